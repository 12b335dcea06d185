#!/usr/bin/env bats
# Roots under /dev. The sandbox's /dev is a private tmpfs (the device allow-list and a /dev/shm
# of its own). A root under the host's /dev/shm (a workspace or $TMPDIR there, a readable root)
# is bound into it at its path, as Codex binds its writable roots into its fresh /dev: run 1's
# writes land on the host's object and run 2 finds them, while the rest of the host's /dev/shm
# stays out of reach (ENOENT). Its carve-outs, denies and protected names hold there as anywhere,
# and a link on the way to it that an earlier run planted, or that anyone may replace, refuses
# the run. A root elsewhere under /dev names nothing the command could reach: refused (125),
# naming the rule, why, and a fix; a deny there still holds.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	# Directories of this user's under the host's /dev/shm: a workspace or $TMPDIR, and
	# another that no rule names.
	DEVWS="/dev/shm/sbxrun-adv-$SBX_USER-$BATS_TEST_NUMBER"
	OTHER="/dev/shm/sbxrun-adv-other-$SBX_USER-$BATS_TEST_NUMBER"
	PRIV="/dev/shm/sbxrun-adv-private-$SBX_USER-$BATS_TEST_NUMBER"
	rm -rf "$DEVWS" "$OTHER" "$PRIV"
	mkdir -p "$DEVWS" "$OTHER"
	echo secret >"$OTHER/secret"
	new_canary "$DEVWS"
}
teardown() { rm -rf "$DEVWS" "$OTHER" "$PRIV"; }

# The refusal of a root under /dev, for the requirement named by $1 ("read /dev/kmsg").
dev_refused() {
	refused "sbxrun: cannot enforce \"$1\" on linux: $2 lies under /dev, which the sandbox replaces with a private /dev holding only the allowed devices and /dev/shm: the command would not find it there"
	[[ "${lines[0]}" == *'; hint: use a directory outside /dev (for $TMPDIR: unset it, or point it elsewhere, as /tmp)' ]]
}

# The host's /dev/shm (outside the roots) is out of reach, and the private one still works.
shm_private() {
	outside read "$OTHER/secret"
	expect ENOENT read "$OTHER/secret"
	expect ENOENT write "$OTHER/new"
	[ ! -e "$OTHER/new" ]
	expect OK write "$PRIV"
	[ ! -e "$PRIV" ]
}

@test "a workspace under /dev/shm is a writable root: run 2 finds run 1's file, nothing else" {
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$DEVWS
	# Run 1 writes in its workspace: on the host's object.
	expect OK write "$DEVWS/run1"
	[ -f "$DEVWS/run1" ]
	# Run 2 finds it there.
	expect OK read "$DEVWS/run1"
	# Outside every root the file system is read-only; outside the roots /dev/shm is private.
	expect EROFS write "$OUT/devroots-new"
	[ ! -e "$OUT/devroots-new" ]
	shm_private
	# Its missing protected names are masked, and nothing of them is left on the host.
	expect EROFS mkdir "$DEVWS/.git/hooks"
	expect EROFS write "$DEVWS/.codex/config.toml"
	expect EROFS mkdir "$DEVWS/.agents/x"
	[ ! -e "$DEVWS/.git" ]
	[ ! -e "$DEVWS/.codex" ]
	[ ! -e "$DEVWS/.agents" ]
	# explain shows the rows enforced.
	run "$BIN/sbxrun" explain --profile :workspace --cwd "$DEVWS"
	echo "$output"
	[[ "$output" == *"enforceable:       yes"* ]]
	grep -Eq "^  write $DEVWS +landlock\+mount-namespace +enforced" <<<"$output"
	grep -Eq "^  no-create $DEVWS/\.git +mount-namespace +enforced" <<<"$output"
}

@test "a .git run 1 tries to plant in a /dev/shm workspace, or a killed run left, is masked" {
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$DEVWS
	# Run 1 tries to make the workspace a repository with a hook of its choosing.
	run sbx sh -c "mkdir -p '$DEVWS/.git/hooks' && echo x >'$DEVWS/.git/hooks/post-checkout'"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[ ! -e "$DEVWS/.git" ]
	# What a run killed with SIGKILL leaves: its empty mount point. Run 2 takes it for the
	# name missing, masks it and removes it.
	mkdir -m 1555 "$DEVWS/.git"
	expect EROFS mkdir "$DEVWS/.git/hooks"
	[ ! -e "$DEVWS/.git" ]
	# Control: any other directory is made, on the host's object.
	expect OK mkdir "$DEVWS/notgit"
	[ -d "$DEVWS/notgit" ]
}

@test "the bound root keeps the host mount's nosuid, nodev and noexec" {
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$DEVWS
	host=$(findmnt -no VFS-OPTIONS -T /dev/shm)
	run sbx sh -c "grep ' $DEVWS ' /proc/self/mountinfo"
	echo "host: $host; inside: $output"
	[ "$status" -eq 0 ]
	for flag in nosuid nodev noexec; do
		[[ ",$host," != *",$flag,"* ]] || [[ "$output" == *"$flag"* ]]
	done
	# The private /dev/shm around it: no set-user-id, no device, as before.
	run sbx sh -c "grep ' /dev/shm rw,' /proc/self/mountinfo"
	echo "$output"
	[[ "$output" == *" - tmpfs none "* ]]
	[[ "$output" == *nosuid,nodev* ]]
}

@test "\$TMPDIR under /dev/shm is a writable root; /dev/shm itself binds the host's" {
	PROFILE=$(profile restricted $(workspace_entries))
	# Control: with $TMPDIR elsewhere, the directory under /dev/shm is out of reach.
	mkdir -p "$BASE/tmpdir"
	TMPDIR=$BASE/tmpdir run sbx "$P" write "$DEVWS/t"
	[ "$output" = ENOENT ]
	# $TMPDIR there: the command writes where the host finds it.
	TMPDIR=$DEVWS run sbx "$P" write "$DEVWS/t"
	[ "$output" = OK ]
	[ -f "$DEVWS/t" ]
	TMPDIR=$DEVWS run sbx "$P" read "$OTHER/secret"
	[ "$output" = ENOENT ]
	# TMPDIR=/dev/shm, as some CI runners set it: the default profile runs, on the host's.
	cd "$WS"
	TMPDIR=/dev/shm run "$BIN/sbxrun" -- true
	echo "$output"
	[ "$status" -eq 0 ]
	TMPDIR=/dev/shm run "$BIN/sbxrun" -- "$P" write "$DEVWS/t2"
	[ "$output" = OK ]
	[ -f "$DEVWS/t2" ]
	TMPDIR=/dev/shm run "$BIN/sbxrun" -- "$P" read "$OTHER/secret"
	[ "$output" = OK ]
	# Outside the roots, still read-only.
	TMPDIR=/dev/shm run "$BIN/sbxrun" -- "$P" write "$OUT/devroots-t"
	echo "status $status: $output"
	[ "$output" = EROFS ]
}

@test "a readable root under /dev/shm is bound read-only; a carve-out and a deny there hold" {
	echo data >"$DEVWS/data"
	# Control: without a rule naming it, the private /dev/shm has nothing of it.
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)")
	expect ENOENT read "$DEVWS/data"
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$DEVWS" read)")
	expect OK read "$DEVWS/data"
	expect EROFS write "$DEVWS/data"
	expect EROFS write "$DEVWS/new"
	shm_private
	# It lies below the private /dev/shm, which Landlock lets the command write: its mount is
	# read-only and nodev, so that no write reaches a device node in it either.
	run sbx sh -c "grep ' $DEVWS ' /proc/self/mountinfo"
	echo "$output"
	[[ "$output" == *" $DEVWS ro,nodev"* ]]
	if as_root; then
		# A node only root can make on the host: refused as anywhere Landlock grants reading.
		mknod "$DEVWS/null" c 1 3
		outside write "$DEVWS/null"
		expect EACCES write "$DEVWS/null"
	fi
	# Inside a workspace there: a read-only carve-out and a denied file.
	mkdir -p "$DEVWS/ro"
	echo ro >"$DEVWS/ro/f"
	echo secret >"$DEVWS/secret"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$DEVWS/ro" read)" \
		"$(entry_path "$DEVWS/secret" deny)")
	SBX_CWD=$DEVWS
	expect OK read "$DEVWS/ro/f"
	expect EROFS write "$DEVWS/ro/f"
	expect EACCES read "$DEVWS/secret"
	expect OK write "$DEVWS/free"
	# Run 1 tries to move the carve-out and the denied file away; run 2 still holds both.
	run sbx sh -c "mv '$DEVWS/ro' '$DEVWS/ro2' || mv '$DEVWS/secret' '$DEVWS/s2'"
	[ "$status" -ne 0 ]
	[ -d "$DEVWS/ro" ]
	[ -f "$DEVWS/secret" ]
	expect EROFS write "$DEVWS/ro/f"
	expect EACCES read "$DEVWS/secret"
}

@test "a root under /dev/shm through a link run 1 planted, or anyone may replace, is refused" {
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$DEVWS
	# Run 1, confined to its workspace in /dev/shm, leaves a link to a place it may not write.
	run sbx sh -c "ln -s '$OUT' '$DEVWS/build'"
	[ "$status" -eq 0 ]
	[ -L "$DEVWS/build" ]
	# Run 2 names it as a writable root: refused, nothing written through it.
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$DEVWS/build" write)")
	run sbx sh -c "touch '$CANARY'; echo x >'$DEVWS/build/pwned'"
	refused "sbxrun: cannot enforce \"write $DEVWS/build\" on linux: cannot enforce sandbox writable root $DEVWS/build because it crosses writable symlink $DEVWS/build"
	[ ! -e "$OUT/pwned" ]
	# Control: a directory there, named the same way, is written.
	rm "$DEVWS/build"
	mkdir "$DEVWS/build"
	expect OK write "$DEVWS/build/pwned"
	[ -f "$DEVWS/build/pwned" ]
	# A link in a directory any user may write (as /dev/shm is, but not sticky): refused too.
	mkdir "$DEVWS/open"
	chmod 0777 "$DEVWS/open"
	ln -s "$OUT" "$DEVWS/open/l"
	SBX_CWD=$WS
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$DEVWS/open/l" read)")
	run sbx "$P" write "$CANARY"
	refused "sbxrun: cannot enforce \"read $DEVWS/open/l\" on linux: cannot enforce sandbox readable root $DEVWS/open/l because it crosses symlink $DEVWS/open/l, which users other than root and the caller can replace"
	# A link of the caller's own, which is followed elsewhere: the private /dev binds the root
	# where it leads, not the link, so the name the profile gives would find nothing.
	ln -s "$OUT" "$DEVWS/own"
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$DEVWS/own" read)")
	run sbx "$P" write "$CANARY"
	refused "sbxrun: cannot enforce \"read $DEVWS/own\" on linux: $DEVWS/own crosses symlink $DEVWS/own, which the sandbox's private /dev does not hold (it binds the roots under /dev/shm where they lead): the command would not find it there"
	[[ "${lines[0]}" == *"; hint: name the path it leads to ($OUT) instead" ]]
	# Control: named as the hint says, it is read.
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$OUT" read)")
	expect OK read "$OUT/file.txt"
}

@test "a readable root under /dev/shm beside read / is bound; explain shows it" {
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$DEVWS
	# Run 1, in its workspace under /dev/shm, leaves a file there.
	expect OK write "$DEVWS/run1"
	SBX_CWD=$WS
	# Control: read / alone does not reach it (the private /dev replaces the host's /dev).
	PROFILE=$(profile restricted "$(entry_special root read)")
	expect ENOENT read "$DEVWS/run1"
	# Run 2 names it beside read /, which would cover it on the host: bound read-only there.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$DEVWS" read)")
	expect OK read "$DEVWS/run1"
	expect EROFS write "$DEVWS/run1"
	expect EROFS write "$DEVWS/new"
	[ ! -e "$DEVWS/new" ]
	shm_private
	# explain shows the row, enforced, as run binds it.
	echo "$PROFILE" >"$BASE/shm-read.json"
	run "$BIN/sbxrun" explain --profile "$BASE/shm-read.json" --cwd "$WS"
	echo "$output"
	[[ "$output" == *"enforceable:       yes"* ]]
	grep -Eq "^  read / +landlock +enforced" <<<"$output"
	grep -Eq "^  read $DEVWS +landlock +enforced" <<<"$output"
	rm -f "$BASE/shm-read.json"
}

@test "a root named through links that pass through /dev/shm is refused, naming the link there" {
	# The caller's own links: one outside /dev/shm leads to one inside, which leads out again.
	# On the host the chain reaches $OUT; inside, the private /dev has no such link.
	rm -f "$OUT/via" "$BASE/direct"
	ln -s "$OUT" "$DEVWS/own"
	ln -s "$DEVWS/own" "$OUT/via"
	outside read "$OUT/via/file.txt"
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$OUT/via" read)")
	run sbx "$P" write "$CANARY"
	refused "sbxrun: cannot enforce \"read $OUT/via\" on linux: $OUT/via crosses symlink $DEVWS/own, which the sandbox's private /dev does not hold (it binds the roots under /dev/shm where they lead): the command would not find it there"
	[[ "${lines[0]}" == *"; hint: name the path it leads to ($OUT) instead" ]]
	# Control: named as the hint says, it is read; so is a link to it that stays outside.
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$OUT" read)")
	expect OK read "$OUT/file.txt"
	ln -s "$OUT" "$BASE/direct"
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$BASE/direct" read)")
	expect OK read "$BASE/direct/file.txt"
	rm -f "$OUT/via" "$BASE/direct"
}

@test "before Linux 6.15 (no mount onto a detached /dev) the workspace is bound the same" {
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$DEVWS
	fexpect detached OK write "$DEVWS/run1"
	[ -f "$DEVWS/run1" ]
	fexpect detached OK read "$DEVWS/run1"
	fexpect detached EROFS mkdir "$DEVWS/.git/hooks"
	fexpect detached ENOENT read "$OTHER/secret"
	fexpect detached OK write "$PRIV"
	[ ! -e "$PRIV" ]
	[ ! -e "$DEVWS/.git" ]
}

@test "a deny under /dev/shm holds outside the roots too" {
	echo data >"$DEVWS/data"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$DEVWS/data" deny)")
	# The private /dev has no such name (nothing of the host's /dev/shm but the roots).
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

@test "the nodes the private /dev holds can be named; a root elsewhere under /dev is refused" {
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
	# A writable root elsewhere under /dev, in the same words.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path /dev/mqueue write)")
	run sbx "$P" write "$CANARY"
	dev_refused "write /dev/mqueue" /dev/mqueue
	# The same node named through a link of the caller's own outside /dev, which is followed:
	# the command would follow it into the private /dev and find nothing there. Refused too,
	# never called enforced.
	rm -f "$OUT/kmsg" "$OUT/null"
	ln -s /dev/kmsg "$OUT/kmsg"
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$OUT/kmsg" read)")
	run sbx "$P" write "$CANARY"
	refused "sbxrun: cannot enforce \"read $OUT/kmsg\" on linux: $OUT/kmsg leads to /dev/kmsg, under /dev, which the sandbox replaces with a private /dev holding only the allowed devices and a /dev/shm of its own: the command would not find it there"
	[[ "${lines[0]}" == *'; hint: use a directory outside /dev (for $TMPDIR: unset it, or point it elsewhere, as /tmp)' ]]
	echo "$PROFILE" >"$BASE/kmsg.json"
	run "$BIN/sbxrun" explain --profile "$BASE/kmsg.json" --cwd "$WS"
	echo "$output"
	[[ "$output" == *"enforceable:       no"* ]]
	grep -Eq "^  read $OUT/kmsg +none +unenforceable" <<<"$output"
	# Control: a link to a node the private /dev holds reaches it inside.
	ln -s /dev/null "$OUT/null"
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_path "$OUT/null" write)")
	expect OK write "$OUT/null"
	rm -f "$OUT/kmsg" "$OUT/null" "$BASE/kmsg.json"
}
