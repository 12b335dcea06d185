#!/usr/bin/env bats
# sbxrun under sandbox-exec on a real Mac: each rule of a profile holds against the command,
# with the exact errno (Seatbelt refuses with EPERM), next to the same operation succeeding
# where the profile allows it or outside the sandbox.
load common

setup_file() {
	make_layout
	mkdir -p "$WS/sub/deep" "$WS/conf/prod" "$WS/other" "$OUT/secrets"
	echo key >"$WS/sub/deep/b.env"
	echo text >"$WS/sub/deep/b.txt"
	echo inner >"$WS/.env"
	echo token >"$OUT/secrets/token"
	echo visible >"$OUT/visible.txt"
	start_listener
}
teardown_file() { stop_listener; }
setup() {
	make_layout_vars
	load_listener
	PROFILE=$(profile restricted $(workspace_entries))
}

@test "writes: inside the workspace, not outside it" {
	expect OK write "$WS/new.txt"
	outside write "$OUT/host.txt"
	expect EPERM write "$OUT/new.txt"
	expect EPERM write "$OUT/file.txt"
	[ "$(cat "$OUT/file.txt")" = outside ]
}

@test ".git stays read-only and .agents cannot be created in the workspace" {
	outside write "$WS/.git/outside-control"
	expect EPERM write "$WS/.git/config"
	expect EPERM write "$WS/.git/hooks/pre-commit"
	expect EPERM mkdir "$WS/.agents"
	expect OK mkdir "$WS/.agentsx"
}

@test "nested writable roots: \$TMPDIR holding the workspace does not re-open its .git" {
	mkdir -p "$BASE/scratch-dir"
	SBX_ENV="TMPDIR=$BASE"
	expect OK write "$BASE/scratch.txt"
	expect OK write "$WS/in-ws.txt"
	expect EPERM write "$WS/.git/config"
	expect EPERM write "$WS/.git/hooks/pre-commit"
	expect EPERM mkdir "$WS/.codex"
	expect OK rename "$BASE/scratch-dir" "$BASE/scratch-moved"
	expect EPERM rename "$WS" "$BASE/ws-moved"
}

@test "denied paths: unreadable and unwritable; their siblings readable" {
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$WS/.env" deny)")
	outside read "$OUT/secrets/token"
	outside read "$WS/.env"
	expect OK read "$OUT/visible.txt"
	expect EPERM read "$OUT/secrets/token"
	expect EPERM list "$OUT/secrets"
	expect EPERM read "$WS/.env"
	expect EPERM write "$WS/.env"
	expect EPERM rename "$WS/.env" "$WS/env.moved"
	[ "$(cat "$WS/.env")" = inner ]
}

@test ":minimal: a denied file inside the platform defaults stays denied" {
	PROFILE=$(profile restricted "$(entry_special minimal read)" \
		"$(entry_special project_roots write)" "$(entry_path "$BIN" read)" \
		"$(entry_path /etc/hosts deny)")
	outside read /etc/hosts
	expect OK read /etc/services
	expect EPERM read /etc/hosts
	expect EPERM read /private/etc/hosts
}

@test "deny globs: matches unreadable; the directories holding them cannot be moved away" {
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_glob "$WS/**/*.env")" \
		"$(entry_glob "$WS/conf/*/secret.txt")")
	outside read "$WS/sub/deep/b.env"
	expect OK read "$WS/sub/deep/b.txt"
	expect EPERM read "$WS/sub/deep/b.env"
	expect EPERM write "$WS/sub/deep/new.env"
	expect EPERM rename "$WS/sub" "$WS/moved"
	expect EPERM rename "$WS/sub/deep" "$WS/deep-moved"
	expect EPERM rename "$WS/conf/prod" "$WS/conf/moved"
	expect OK rename "$WS/other" "$WS/other-moved"
	expect OK rename "$WS/other-moved" "$WS/other"
	outside link "$WS/sub/deep/b.txt" "$WS/b-link.txt"
	expect EPERM link "$WS/sub/deep/b.env" "$WS/b-link.env"
	[ -e "$WS/sub/deep/b.env" ]
}

@test "a deny glob with a POSIX character class is refused (exit 125), nothing runs" {
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_glob "$WS/[[:digit:]].key")")
	run sbx "$P" write "$WS/ran.txt"
	echo "$output"
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"POSIX class syntax"* ]]
	[ ! -e "$WS/ran.txt" ]
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_glob "$WS/[0-9].key")")
	expect OK write "$WS/ran.txt"
}

@test "network restricted: even loopback is refused; enabled: allowed" {
	outside tcp4 "$PORT"
	expect EPERM tcp4 "$PORT"
	PROFILE=$(profile enabled $(workspace_entries))
	expect OK tcp4 "$PORT"
}

@test "the terminal: TIOCSTI refused, the other terminal ioctls work" {
	outside_tty tiocsti
	expect_tty EPERM tiocsti
	expect_tty OK tcsetattr
	expect_tty OK winsize
}
