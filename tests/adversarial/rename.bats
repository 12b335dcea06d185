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
	outside rename "$WS/free" "$WS/free2" && mv "$WS/free2" "$WS/free"
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
	[ -e "$WS/sub/deeper/secret" ] && [ ! -e "$WS/sub2" ] && [ ! -e "$WS/sub/deeper/new" ]
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
	[ -e "$WS/sub/deeper/secret" ] && [ ! -e "$WS/sub2" ]
}
