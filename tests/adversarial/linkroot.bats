#!/usr/bin/env bats
# A writable root the user names through a link of their own, outside every writable root
# (--write ~/project where ~/project leads to a disk mounted elsewhere): the command reaches what
# lies there by either name. A deny of a path missing there must keep it from being made by
# either name, run after run (a .envrc the command made would be loaded by direnv in the user's
# shell, outside any sandbox), as it does when the root is named where it is.
load common

setup() {
	make_layout_vars
	REAL="$BASE/real-$BATS_TEST_NUMBER"
	LINK="$BASE/link-$BATS_TEST_NUMBER"
	rm -rf "$REAL" "$LINK"
	mkdir -p "$REAL"
	ln -s "$REAL" "$LINK"
	new_canary "$REAL"
}

# deny_missing ROOT DENY-PREFIX: the profile writing ROOT, denying .envrc and sub/secret under
# DENY-PREFIX (both missing).
deny_missing() {
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$1" write)" \
		$(unprotected "$1") "$(entry_path "$2/.envrc" deny)" \
		"$(entry_path "$2/sub/secret" deny)")
	SBX_CWD=$1
}

# holds: run 1 can make neither denied path by either name; nothing is left for run 2.
holds() {
	expect EROFS write "$REAL/.envrc"
	expect EROFS write "$LINK/.envrc"
	expect EEXIST mkdir "$REAL/sub"
	expect EEXIST mkdir "$LINK/sub"
	run sbx sh -c ": >'$CANARY'; echo 'touch $CANARY-envrc' >'$LINK/.envrc'"
	[ "$status" -ne 0 ]
	[ -e "$CANARY" ]
	[ ! -e "$REAL/.envrc" ]
	[ ! -e "$REAL/sub" ]
	# Run 2 finds no more than run 1 did.
	expect EROFS write "$REAL/.envrc"
	expect EEXIST mkdir "$REAL/sub"
	# Positive control: the rest of the root is the command's, by either name.
	expect OK write "$LINK/other"
	expect OK write "$REAL/other2"
}

@test "the root named through the user's link, the denies through it: neither is made" {
	deny_missing "$LINK" "$LINK"
	holds
}

@test "the root named through the user's link, the denies where they are: neither is made" {
	deny_missing "$LINK" "$REAL"
	holds
}

@test "control: the root named where it is, the denies through the link: neither is made" {
	deny_missing "$REAL" "$LINK"
	holds
}

@test "explain calls each deny enforced, as run then holds it" {
	deny_missing "$LINK" "$LINK"
	echo "$PROFILE" >"$BASE/linkroot-profile.json"
	run "$BIN/sbxrun" explain --cwd "$LINK" --profile "$BASE/linkroot-profile.json"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"deny $LINK/.envrc "*" enforced ["* ]]
	[[ "$output" == *"deny $LINK/sub/secret "*" enforced"* ]]
	run "$BIN/sbxrun" --cwd "$LINK" --profile "$BASE/linkroot-profile.json" -- \
		sh -c "echo x >'$LINK/.envrc'"
	[ "$status" -ne 0 ]
	[ ! -e "$REAL/.envrc" ]
}
