#!/usr/bin/env bats
# Workspace write with denied secrets: a directory and a file outside the workspace, and a file
# inside it.
load common

setup_file() {
	make_layout
	mkdir -p "$OUT/secrets"
	echo key >"$OUT/secrets/key"
	echo token >"$OUT/token.txt"
	echo inner >"$WS/.env"
	echo visible >"$OUT/visible.txt"
}
setup() {
	make_layout_vars
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$OUT/token.txt" deny)" "$(entry_path "$WS/.env" deny)")
}

@test "denied files and directories cannot be read (EACCES); their siblings can" {
	outside read "$OUT/secrets/key"
	outside read "$OUT/token.txt"
	outside read "$WS/.env"
	expect OK read "$OUT/visible.txt"
	expect EACCES read "$OUT/token.txt"
	expect EACCES read "$WS/.env"
	expect EACCES list "$OUT/secrets"
	expect EACCES read "$OUT/secrets/key"
}

@test "denied paths through symlinks and /proc stay unreadable" {
	ln -sfn "$OUT/token.txt" "$WS/token-link"
	ln -sfn "$OUT/secrets" "$WS/secrets-link"
	expect EACCES read "$WS/token-link"
	expect EACCES read "$WS/secrets-link/key"
	expect EACCES read "/proc/self/root$OUT/token.txt"
	expect EACCES read "/proc/self/root$WS/.env"
	expect EACCES read "/proc/self/cwd/.env"
	run sbx sh -c 'cat /proc/$$/root'"$OUT"'/token.txt'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Permission denied"* ]]
}

@test "a denied file inside the workspace cannot be written or replaced either" {
	expect EROFS write "$WS/.env"
	expect EACCES truncate "$WS/.env"
	expect EBUSY rename "$WS/.env" "$WS/env.moved"
	expect OK write "$WS/other.txt"
	[ "$(cat "$WS/.env")" = inner ]
}

@test "the rest of the workspace scenario holds with denies present" {
	expect EROFS write "$OUT/new.txt"
	expect EROFS append "$WS/.git/config"
	expect OK write "$WS/x.txt"
}

@test "a deny inside a denied directory, and a path denied twice, are masked once" {
	mkdir -p "$OUT/secrets/sub"
	echo nested >"$OUT/secrets/sub/inner.env"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$OUT/secrets/sub" deny)" \
		"$(entry_path "$OUT/token.txt" deny)" "$(entry_path "$OUT/token.txt" deny)")
	outside read "$OUT/secrets/sub/inner.env"
	expect OK read "$OUT/visible.txt"
	expect EACCES read "$OUT/secrets/key"
	expect EACCES read "$OUT/secrets/sub/inner.env"
	expect EACCES read "$OUT/token.txt"
}

@test "a path re-opened inside a denied directory is refused, not silently hidden" {
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$OUT/secrets/key" read)")
	rm -f "$WS/canary"
	run sbx sh -c "touch '$WS/canary'"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"cannot enforce \"read $OUT/secrets/key\""*"lies inside the denied $OUT/secrets"* ]]
	[ ! -e "$WS/canary" ]
}
