#!/usr/bin/env bats
# Roots under /dev. The sandbox's /dev is a private tmpfs (the device allow-list and an empty
# /dev/shm of its own), so a root granted under the host's /dev names nothing the command can
# reach: run 1 would write into its private /dev/shm and see the file vanish, run 2 would find
# nothing of it. sbxrun must not call such a root enforced: the run is refused (125), naming the
# rule, why, and a fix; a deny under /dev still holds (the private /dev hides it anyway).
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	# A directory of this user's under the host's /dev/shm, as a workspace or $TMPDIR would be.
	DEVWS="/dev/shm/sbxrun-adv-$SBX_USER-$BATS_TEST_NUMBER"
	rm -rf "$DEVWS"
	mkdir -p "$DEVWS"
	new_canary "$DEVWS"
}
teardown() { rm -rf "$DEVWS"; }

# The refusal of a root under /dev, for the requirement named by $1 ("write /dev/shm/...").
dev_refused() {
	refused "sbxrun: cannot enforce \"$1\" on linux: $2 lies under /dev, which the sandbox replaces with a private /dev holding only the allowed devices and an empty /dev/shm: the command would not find it there"
	[[ "${lines[0]}" == *'; hint: use a directory outside /dev (for $TMPDIR: unset it, or point it elsewhere, as /tmp)' ]]
}

@test "a workspace under /dev/shm is refused, not shown enforced and hidden" {
	PROFILE=$(profile restricted $(workspace_entries))
	# Control: the same profile with the workspace outside /dev writes there.
	outside write "$DEVWS/control"
	rm -f "$DEVWS/control"
	expect OK write "$WS/devroots-control"
	rm -f "$WS/devroots-control"
	# The command would create the canary in its workspace first thing.
	SBX_CWD=$DEVWS run sbx "$P" write "$CANARY"
	dev_refused "write $DEVWS" "$DEVWS"
	# explain says so too.
	run "$BIN/sbxrun" explain --profile :workspace --cwd "$DEVWS"
	echo "$output"
	[[ "$output" == *"enforceable:       no"* ]]
	grep -Eq "^  write $DEVWS +none +unenforceable" <<<"$output"
}

@test "\$TMPDIR under /dev/shm is refused, and the same run with it elsewhere holds" {
	PROFILE=$(profile restricted $(workspace_entries))
	# Control: $TMPDIR outside /dev is a writable root the command reaches.
	mkdir -p "$BASE/tmpdir"
	TMPDIR=$BASE/tmpdir run sbx "$P" write "$BASE/tmpdir/devroots-control"
	[ "$output" = OK ]
	rm -f "$BASE/tmpdir/devroots-control"
	# Run 1: a run with $TMPDIR under /dev/shm would write there; it is refused instead.
	TMPDIR=$DEVWS run sbx "$P" write "$CANARY"
	dev_refused "write $DEVWS" "$DEVWS"
}

@test "a readable root under /dev is refused; a deny under /dev still holds" {
	echo data >"$DEVWS/data"
	outside read "$DEVWS/data"
	PROFILE=$(profile restricted "$(entry_path "$WS" read)" "$(entry_path "$DEVWS" read)")
	run sbx "$P" read "$DEVWS/data"
	dev_refused "read $DEVWS" "$DEVWS"
	# A deny there is enforced: the private /dev has no such name (its /dev/shm is empty).
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$DEVWS/data" deny)")
	expect ENOENT read "$DEVWS/data"
	expect OK read "$WS/file.txt"
}

@test "without a mount namespace the host's /dev stays: a workspace under /dev/shm is granted" {
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$DEVWS" write)" \
		$(unprotected "$DEVWS"))
	# Landlock alone (unshare refused): the root is the host's, reachable and confined.
	SBX_CWD=$DEVWS run sbx_fault unshare "$PROFILE" "$P" write "$DEVWS/new"
	echo "$output"
	[ "$output" = OK ]
	[ -f "$DEVWS/new" ]
	outside write "$OUT/devroots-new"
	rm -f "$OUT/devroots-new"
	SBX_CWD=$DEVWS run sbx_fault unshare "$PROFILE" "$P" write "$OUT/devroots-new"
	echo "$output"
	[ "$output" = EACCES ]
	[ ! -e "$OUT/devroots-new" ]
}

@test "the nodes the private /dev holds can be named; a node it lacks is refused" {
	# The private /dev holds the host's null, zero, full, random, urandom and tty: a profile that
	# names them reaches the same nodes inside, as it did before roots under /dev were judged.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path /dev/null write)" \
		"$(entry_path /dev/urandom read)")
	expect OK read /dev/urandom
	expect OK write /dev/null
	# A read of /dev itself: what the command reads there is the private /dev.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path /dev read)")
	expect OK read /dev/zero
	# A node the private /dev does not hold, named the same way, is refused (the nodes above
	# are the control).
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path /dev/kmsg read)")
	run sbx "$P" read /dev/kmsg
	dev_refused "read /dev/kmsg" /dev/kmsg
}
