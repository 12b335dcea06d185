#!/usr/bin/env bats
# Unrenamable ancestors: with a mount namespace, the directories between a writable root and a
# denied path or read-only carve-out inside it are mount points, so a run cannot rename them and
# leave the next run's rule naming nothing.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	rm -rf "$WS/sub" "$WS/sub2" "$WS/free" "$WS/free2"
	mkdir -p "$WS/sub/deeper" "$WS/free"
	echo secret >"$WS/sub/deeper/secret"
	echo plain >"$WS/sub/deeper/plain"
	mkdir -p "$WS/sub/ro"
	echo keep >"$WS/sub/ro/f"
	PROFILE=$(profile restricted $(workspace_entries) \
		"$(entry_path "$WS/sub/deeper/secret" deny)" "$(entry_path "$WS/sub/ro" read)")
}

@test "run 1 cannot rename a directory on the way to a deny (EBUSY); run 2's deny holds" {
	outside rename "$WS/free" "$WS/free2"
	mv "$WS/free2" "$WS/free"
	expect EACCES read "$WS/sub/deeper/secret"
	# Run 1 tries to move the deny out of the way, at each level, and to remove them.
	expect EBUSY rename "$WS/sub" "$WS/sub2"
	expect EBUSY rename "$WS/sub/deeper" "$WS/sub/deeper2"
	# Positive controls: a directory off the way renames, files beside the deny are writable.
	expect OK rename "$WS/free" "$WS/free2"
	expect OK write "$WS/sub/deeper/new"
	expect OK rename "$WS/sub/deeper/plain" "$WS/sub/deeper/plain2"
	# Removing the tree takes what it may (plain files) but not the way to the deny.
	run sbx sh -c "rm -rf '$WS/sub' 2>&1; mv '$WS/sub' '$WS/sub2' 2>&1"
	[ -e "$WS/sub/deeper/secret" ]
	[ ! -e "$WS/sub2" ]
	[ ! -e "$WS/sub/deeper/new" ]
	# Run 2: the deny still names the file.
	expect EACCES read "$WS/sub/deeper/secret"
	[ "$(cat "$WS/sub/deeper/secret")" = secret ]
}

@test "run 1 cannot rename the way to a read-only carve-out; run 2's carve-out holds" {
	expect EROFS write "$WS/sub/ro/f"
	expect EBUSY rename "$WS/sub" "$WS/sub2"
	expect EBUSY rename "$WS/sub/ro" "$WS/sub/ro2"
	expect EROFS write "$WS/sub/ro/f"
	[ "$(cat "$WS/sub/ro/f")" = keep ]
}

@test "without a mount namespace nothing can be pinned: such a plan is refused, not weakened" {
	run sbx_fault unshare "$PROFILE" mv "$WS/sub" "$WS/sub2"
	[ "$status" -eq 125 ]
	[ -e "$WS/sub/deeper/secret" ]
	[ ! -e "$WS/sub2" ]
}

# A writable root inside another (a workspace under /tmp, a checkout under a writable home): the
# directories between the two are as renamable as those below one root. Moving them carries the
# inner root, its carve-outs and its denies away, and a run could put a tree of its own (a .git
# whose config runs a command) where the next run and the user look for the workspace.
@test "a writable root nested in another: run 1 cannot move the directories above it" {
	local outer="$BASE/outer" inner="$BASE/outer/a/b/proj"
	rm -rf "$outer" "$BASE/moved"
	mkdir -p "$inner" "$outer/free"
	git -C "$inner" init -q
	echo secret >"$inner/secret"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$outer" write)" \
		"$(entry_path "$inner" write)" "$(entry_path "$inner/secret" deny)")
	outside rename "$outer/a" "$BASE/moved"
	mv "$BASE/moved" "$outer/a"
	expect EACCES read "$inner/secret"
	expect EROFS append "$inner/.git/config"
	# Run 1 tries to move each directory between the two roots away.
	expect EBUSY rename "$outer/a" "$outer/a2"
	expect EBUSY rename "$outer/a/b" "$outer/a/b2"
	# Positive controls: beside the way, the outer root is writable and renames.
	expect OK rename "$outer/free" "$outer/free2"
	expect OK write "$outer/a/new"
	# The whole attack: the real tree moved aside, a copy with a planted config in its place.
	run sbx sh -c "mv '$outer/a' '$outer/real' && cp -r '$outer/real' '$outer/a' &&
		git config -f '$inner/.git/config' core.fsmonitor 'touch $OUT/pwned'"
	[ ! -e "$outer/real" ]
	run git -C "$inner" config core.fsmonitor
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	# Run 2: the deny and the carve-out still name the same objects.
	expect EACCES read "$inner/secret"
	expect EROFS append "$inner/.git/config"
	rm -rf "$outer"
}

# The same through the front end: :workspace on a workspace under /tmp, which it makes writable.
@test "a workspace under /tmp: run 1 cannot move its parent and leave a planted copy" {
	local top="/tmp/sbxrun-adv-rename-$SBX_USER-$$"
	rm -rf "$top"
	mkdir -p "$top/a/proj" "$top/free"
	git -C "$top/a/proj" init -q
	run "$BIN/sbxrun" -C "$top/a/proj" -- "$P" append "$top/a/proj/.git/config"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" -C "$top/a/proj" -- "$P" rename "$top/a" "$top/a2"
	echo "rename of the workspace's parent: $output"
	[ "$output" = EBUSY ]
	run "$BIN/sbxrun" -C "$top/a/proj" -- "$P" rename "$top/free" "$top/free2"
	[ "$output" = OK ]
	run "$BIN/sbxrun" -C "$top/a/proj" -- sh -c "mv '$top/a' '$top/real' &&
		cp -r '$top/real' '$top/a' && echo '[core] fsmonitor = x' >>'$top/a/proj/.git/config'"
	[ "$status" -ne 0 ]
	[ ! -e "$top/real" ]
	run git -C "$top/a/proj" config core.fsmonitor
	[ "$status" -eq 1 ]
	rm -rf "$top"
}
