#!/usr/bin/env bats
# A writable root where the command can create nothing, for a reason it cannot undo during the
# run: a checkout on a read-only mount of a file system mounted nowhere else writable (root's
# pass: a copy on a tmpfs, made read-only; the sandbox's writable bind is a clone of that mount),
# or another user's directory that the caller may not write (uid 65534's pass: a checkout of
# root's, mode 0755). A read-only bind of a writable tree is no such place: the command may
# create the name through the writable mount. A missing .git, .codex or .agents there needs no mask: run 1
# tries to create them, run 2 finds nothing masked and still nothing creatable, `git status`
# works, and explain says the same as run. The control: a workspace of the caller's own that run
# 1 made 0555 is still masked, since the command can chmod it back.
load common
bats_require_minimum_version 1.5.0

# The checkout, read-only for this user: root's pass mounts the fixture read-only over a
# directory of its own; uid 65534's uses it where it lies.
checkout_vars() {
	if as_root; then
		CO="$BASE/ro"
		ERR=EROFS
		CHMOD_ERR=EROFS
		WHY="read-only file system"
	else
		CO="$FIXTURES/checkout-0755"
		ERR=EACCES
		CHMOD_ERR=EPERM
		WHY="not writable by you"
	fi
	# A writable root holding p/m, a directory where nothing can be created: root's pass mounts
	# an empty one read-only there; uid 65534's is root's 0755 inside root's 0777.
	if as_root; then
		DW="$BASE/dw"
	else
		DW="$FIXTURES/deny-0777"
	fi
}

setup_file() {
	make_layout
	checkout_vars
	if as_root; then
		# Copies on a tmpfs of their own, made read-only by the mount's flag (the file
		# system stays writable, but no mount of it is).
		mkdir -p "$CO"
		mount -t tmpfs -o mode=0755 sealed-co "$CO"
		cp -a "$FIXTURES/checkout-0755/." "$CO/"
		mount -o remount,bind,ro "$CO"
		mkdir -p "$DW/p/m"
		mount -t tmpfs -o mode=0755 sealed-dw "$DW/p/m"
		mount -o remount,bind,ro "$DW/p/m"
	fi
}
teardown_file() {
	make_layout_vars
	checkout_vars
	if as_root; then
		umount "$CO"
		# Where a weaker build let the command rename p, the mount went with it.
		umount "$DW/p/m" 2>/dev/null || umount "$DW/q/m"
	fi
}
setup() {
	make_layout_vars
	checkout_vars
	new_canary "$BASE"
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
}

# sealed_profile DIR: root read, DIR write.
sealed_profile() {
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$1" write)")
	SBX_CWD=$1
}

# explain_row PATH: explain's status and reason for the requirement of PATH, on one line, after
# "enforceable=yes|no"; same $PROFILE and cwd as the runs.
explain_row() {
	local f="$BASE/explain-$BATS_TEST_NUMBER.json"
	echo "$PROFILE" >"$f"
	run "$BIN/sbxrun" explain --json --cwd "$SBX_CWD" --profile "$f"
	[ "$status" -eq 0 ]
	run python3 -c '
import json, sys
j = json.loads(sys.argv[1])
r = [r for r in j["requirements"] if r["rule"].split(" ", 1)[-1] == sys.argv[2]][0]
print("enforceable=%s %s: %s" % ("yes" if j["enforceable"] else "no", r["status"], r.get("why", "")))
' "$output" "$1"
	echo "explain: $output"
	[ "$status" -eq 0 ]
}

@test "a read-only checkout: no mask, nothing creatable in two runs, explain agrees" {
	sealed_profile "$CO/plain"
	# Run 1, hostile: tries every way to get .git and .codex made, the mode back included.
	run sbx sh -c "mkdir '$CO/plain/.git'; mkdir -p '$CO/plain/.codex'; chmod 0777 '$CO/plain'
		echo ran"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = ran ]
	# Run 2: nothing was masked (no mount point inside), and still nothing can be created.
	expect ENOENT list "$CO/plain/.git"
	expect ENOENT list "$CO/plain/.codex"
	expect ENOENT list "$CO/plain/.agents"
	expect "$ERR" mkdir "$CO/plain/.git"
	expect "$ERR" mkdir "$CO/plain/.codex"
	expect "$ERR" write "$CO/plain/.agents"
	expect "$CHMOD_ERR" chmod "$CO/plain"
	# Nothing on the host either.
	[ -z "$(ls -A "$CO/plain")" ]
	# Explain said so: enforceable, no mask, for the very reason.
	explain_row "$CO/plain/.git"
	[[ "$output" == "enforceable=yes enforced: it does not exist, and cannot be created here: $WHY "* ]]
	explain_row "$CO/plain/.codex"
	[[ "$output" == *"cannot be created here: $WHY "*"no mask needed" ]]
}

@test "sbxrun -- git status works in a read-only checkout, as explain says" {
	cd "$CO/repo"
	run "$BIN/sbxrun" -- git -c safe.directory='*' status --porcelain=v1 --branch
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"## main"* ]]
	run "$BIN/sbxrun" -- "$P" mkdir "$CO/repo/.codex"
	[ "$output" = "$ERR" ]
	run "$BIN/sbxrun" explain
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"enforceable:       yes"* ]]
	[[ "$output" == *"cannot be created here: $WHY"* ]]
}

@test "control: a workspace of the caller's own that run 1 made 0555 is masked, or refused" {
	local w="$BASE/own-$BATS_TEST_NUMBER"
	rm -rf "$w"
	mkdir -p "$w"
	sealed_profile "$w"
	# Run 1: makes its own workspace look like a read-only checkout.
	run sbx sh -c "chmod 0555 '$w'"
	[ "$status" -eq 0 ]
	run stat -c %a "$w"
	[ "$output" = 555 ]
	# Run 2 chmods it back and tries to plant a hook: masked (EROFS), or refused before it
	# runs; never created. Explain says which, as run does.
	CANARY="$w/canary"
	run sbx sh -c "chmod 0755 '$w' && touch '$CANARY' && mkdir -p '$w/.git/hooks'"
	echo "$output"
	if [ "$status" -eq 125 ]; then
		refused "sbxrun: cannot enforce \"*$w/.git\" on linux: $w/.git does not exist, and its directory is yours*"
		explain_agrees
	else
		[[ "$output" == *".git/hooks"*"Read-only file system"* ]]
		[ -e "$CANARY" ]
		explain_row "$w/.git"
		[[ "$output" == "enforceable=yes enforced: "*"the name cannot be created: an empty read-only directory is mounted at it"* ]]
	fi
	[ ! -e "$w/.git/hooks" ]
	# The same workspace made 0555 on the host, with nothing left in it: root may write it
	# anyway, and masks the name; uid 65534 cannot make the mount point, and is refused.
	rm -rf "$w"
	mkdir -p "$w"
	chmod 0555 "$w"
	run sbx sh -c "chmod 0755 '$w' && touch '$CANARY' && mkdir -p '$w/.git/hooks'"
	echo "$output"
	if as_root; then
		[[ "$output" == *".git/hooks"*"Read-only file system"* ]]
		explain_row "$w/.git"
		[[ "$output" == "enforceable=yes enforced: it does not exist; the name cannot be created: an empty read-only directory is mounted at it"* ]]
	else
		refused "sbxrun: cannot enforce \"*$w/.git\" on linux: $w/.git does not exist, and its directory is yours*"
		explain_agrees
	fi
	[ ! -e "$w/.git/hooks" ]
	# Positive control: with the mode back, the mask holds and anything else is created.
	chmod 0755 "$w"
	expect EROFS mkdir "$w/.git/hooks"
	expect OK mkdir "$w/notgit"
	[ -d "$w/notgit" ]
	[ ! -e "$w/.git" ]
}

@test "a denied path missing under a sealed directory: refused, never made by a rename on its way" {
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$DW" write)" \
		"$(entry_path "$DW/p/m/x" none)")
	SBX_CWD=$DW
	CANARY="$DW/canary"
	# Without a mask nothing pins p: renamed away, the whole path is made anew where it is
	# denied. So the run is refused before the command starts, as explain says.
	run sbx sh -c "touch '$CANARY'; mv '$DW/p' '$DW/q' && mkdir -p '$DW/p/m/x' && echo made"
	refused "sbxrun: cannot enforce \"*$DW/p/m/x\" on linux: $DW/p/m/x does not exist, and the mount point of the mask that keeps it from being created cannot be made in its directory ($WHY)*"
	explain_agrees
	[ ! -e "$DW/q" ]
	[ ! -e "$DW/p/m/x" ]
	# Positive control: denied where a mask can be made (p is writable), the same rename is
	# refused and anything else is created.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$DW" write)" \
		"$(entry_path "$DW/p/x" none)")
	expect EBUSY rename "$DW/p" "$DW/q"
	expect OK mkdir "$DW/other-$BATS_TEST_NUMBER"
	[ -d "$DW/other-$BATS_TEST_NUMBER" ]
	[ ! -e "$DW/p/x" ]
}

@test "a read-only bind of a writable tree: refused, never created through the writable mount" {
	local top="$FIXTURES/alias-top-$SBX_USER" ro="$FIXTURES/alias-ro-$SBX_USER"
	local src="$top/src"
	# The same tree writable where it lies, below another writable root of the profile (where
	# src/.codex is no protected name of that root): the read-only bind is not sealed.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$ro" write)" \
		"$(entry_path "$top" write)")
	SBX_CWD=$ro
	CANARY="$top/canary"
	rm -rf "$src/.codex" "$src/.git" "$src/.agents" "$CANARY"
	run sbx sh -c "touch '$CANARY'; mkdir '$src/.codex' && echo made"
	refused "sbxrun: cannot enforce \"*$ro/.git\" on linux: $ro/.git does not exist, and its directory is on a read-only mount of a file system that may be written elsewhere*"
	explain_agrees
	[ ! -e "$src/.codex" ]
	[ ! -e "$CANARY" ]
	# Control: with the read-only root alone out of the profile, the same command creates the
	# name through the writable mount (what the refusal keeps from happening), and the
	# read-only mount refuses it.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$top" write)")
	SBX_CWD=$top
	expect EROFS mkdir "$ro/.codex"
	expect OK mkdir "$src/.codex"
	[ -d "$ro/.codex" ]
	rmdir "$src/.codex"
}

@test "a read-only overlay of writable layers: refused, never created through a layer" {
	local top="$FIXTURES/alias-top-$SBX_USER" ovl="$FIXTURES/alias-ovl-$SBX_USER"
	local low="$top/l1"
	# The overlay's super block is read-only, but its layers are writable where they lie,
	# below another writable root of the profile: what is made there shows in the overlay.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$ovl" write)" \
		"$(entry_path "$top" write)")
	SBX_CWD=$ovl
	CANARY="$top/canary"
	rm -rf "$low/.codex" "$low/.git" "$low/.agents" "$CANARY"
	run sbx sh -c "touch '$CANARY'; mkdir '$low/.codex' && echo made"
	refused "sbxrun: cannot enforce \"*$ovl/.git\" on linux: $ovl/.git does not exist, and its directory is on a read-only mount of a file system that may be written elsewhere*"
	explain_agrees
	[ ! -e "$low/.codex" ]
	[ ! -e "$CANARY" ]
	# Control: without the overlay's root, the name made in a layer shows in the overlay.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$top" write)")
	SBX_CWD=$top
	expect EROFS mkdir "$ovl/.codex"
	expect OK mkdir "$low/.codex"
	# Listed from the layers (a look-up may still meet the overlay's cached miss, until it is
	# dropped).
	run ls -A "$ovl"
	[ "$output" = ".codex" ]
	rmdir "$low/.codex"
}
