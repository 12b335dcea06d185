#!/usr/bin/env bats
# The directory a run works in, named through a link: run 1 (writing /tmp, as :workspace does)
# plants a link in /tmp to a directory it may not write; the next start names its cwd or a
# workspace root through that link. The project root would then be where the link leads, and
# writable: the start must refuse it as any rule path crossing a link in a writable root.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
	LNK="/tmp/sbx-cwdlink-$SBX_USER-$$"
	rm -f "$LNK" "$OUT/pwned"
	PROFILE=$(profile restricted $(workspace_entries))
	WORDS="cannot enforce sandbox writable root $OUT because it crosses writable symlink $LNK"
}
teardown() { rm -f "$LNK" "$OUT/pwned"; }

@test "a cwd named through a link run 1 planted in /tmp is refused, by run and by the helper" {
	# Run 1: /tmp is writable to it; $OUT is not.
	expect EROFS write "$OUT/pwned"
	run sbx ln -s "$OUT" "$LNK"
	[ "$status" -eq 0 ]
	# Run 2 names its cwd through the link.
	run "$BIN/sbxrun" --cwd "$LNK" -- sh -c "touch '$CANARY'; echo x >'$OUT/pwned'"
	refused "sbxrun: cannot enforce \"write $OUT\" on linux: $WORDS"
	[[ "${lines[0]}" == *"; hint: the directory was named through that link (--cwd, a workspace \
root, the shell's current directory): name where it leads ($OUT) instead, or remove the link" ]]
	run "$H" --sandbox-policy-cwd "$LNK" --permission-profile "$PROFILE" -- \
		sh -c "touch '$CANARY'; echo x >'$OUT/pwned'"
	refused "sbxrun: cannot enforce \"write $OUT\" on linux: $WORDS"
	run "$BIN/sbxrun" --cwd "$WS" -w "$LNK" -- sh -c "touch '$CANARY'; echo x >'$OUT/pwned'"
	refused "sbxrun: cannot enforce \"write $OUT\" on linux: $WORDS"
	run "$BIN/sbxrun" explain --cwd "$LNK"
	[[ "$output" == *"enforceable:       no"* ]]
	[ ! -e "$OUT/pwned" ]
}

@test "a shell that cd-ed through the planted link starts sbxrun with no --cwd: refused too" {
	expect EROFS write "$OUT/pwned"
	run sbx ln -s "$OUT" "$LNK"
	[ "$status" -eq 0 ]
	# Run 2: the usual start, `cd` then sbxrun; getcwd() gives $OUT, the shell's $PWD the link.
	run sh -c 'cd "$1" && shift && exec "$@"' - "$LNK" "$BIN/sbxrun" -- \
		sh -c "touch '$CANARY'; echo x >'$OUT/pwned'"
	refused "sbxrun: cannot enforce \"write $OUT\" on linux: $WORDS"
	[[ "${lines[0]}" == *"the shell's current directory): name where it leads ($OUT) instead"* ]]
	[ ! -e "$OUT/pwned" ]
	# Control: a $PWD that names another directory (stale) tells nothing; the run starts in
	# $WS, and writes there but not in $OUT.
	run sh -c 'cd "$1" && shift && PWD="$LNK" exec "$@"' - "$WS" "$BIN/sbxrun" -- \
		"$P" write "$WS/via-pwd"
	[ "$output" = OK ]
	run sh -c 'cd "$1" && shift && exec "$@"' - "$WS" "$BIN/sbxrun" -- "$P" write "$OUT/pwned"
	[ "$output" = EROFS ]
	rm -f "$WS/via-pwd"
}

@test "a cwd named through a link outside every writable root is followed (control)" {
	local proj="$BASE/proj-$SBX_USER"
	rm -f "$proj"
	# $BASE is no writable root: no run could have planted this link.
	ln -s "$WS" "$proj"
	run "$BIN/sbxrun" --cwd "$proj" -- "$P" write "$WS/via-link"
	[ "$output" = OK ]
	run "$BIN/sbxrun" --cwd "$proj" -- "$P" write "$OUT/pwned"
	[ "$output" = EROFS ]
	rm -f "$proj" "$WS/via-link"
}

@test "a cwd named through the user's own link to one run 1 planted in /tmp is refused" {
	local proj="$BASE/proj2-$SBX_USER" mid="$BASE/mid-$SBX_USER"
	rm -f "$proj" "$mid"
	# Run 1 plants the second link of the chain; $OUT is not writable to it.
	expect EROFS write "$OUT/pwned"
	run sbx ln -s "$OUT" "$LNK"
	[ "$status" -eq 0 ]
	# The user's own link, outside every writable root, leads to the planted one.
	ln -s "$LNK" "$proj"
	run "$BIN/sbxrun" --cwd "$proj" -- sh -c "touch '$CANARY'; echo x >'$OUT/pwned'"
	refused "sbxrun: cannot enforce \"write $OUT\" on linux: $WORDS"
	run "$H" --sandbox-policy-cwd "$proj" --permission-profile "$PROFILE" -- \
		sh -c "touch '$CANARY'; echo x >'$OUT/pwned'"
	refused "sbxrun: cannot enforce \"write $OUT\" on linux: $WORDS"
	run "$BIN/sbxrun" --cwd "$WS" -w "$proj" -- sh -c "touch '$CANARY'; echo x >'$OUT/pwned'"
	refused "sbxrun: cannot enforce \"write $OUT\" on linux: $WORDS"
	[ ! -e "$OUT/pwned" ]
	# Control: a chain of the user's own links outside every writable root is followed.
	rm -f "$proj"
	ln -s "$WS" "$mid"
	ln -s "$mid" "$proj"
	run "$BIN/sbxrun" --cwd "$proj" -- "$P" write "$WS/via-chain"
	[ "$output" = OK ]
	run "$BIN/sbxrun" --cwd "$proj" -- "$P" write "$OUT/pwned"
	[ "$output" = EROFS ]
	rm -f "$proj" "$mid" "$WS/via-chain"
}
