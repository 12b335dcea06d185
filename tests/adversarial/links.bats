#!/usr/bin/env bats
# Names versus objects: a first run replaces a directory on the way to a rule path with a
# symbolic link (inside a writable root, where any confined run may write), or plants one where
# any user may replace it; the next run must refuse in Codex's words, never follow it.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
	# An earlier run under a profile that writes everywhere (no carve-outs, no masks).
	FULL='{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}'
}

# full CMD...: an earlier run with full write.
full() { PROFILE=$FULL sbx "$@"; }

@test "a denied path whose parent an earlier run replaced with a link" {
	rm -rf "$WS/sub" "$WS/sub.real" "$WS/decoy"
	mkdir -p "$WS/sub" "$WS/decoy"
	echo secret >"$WS/sub/secret"
	echo decoy >"$WS/decoy/secret"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$WS/sub/secret" deny)")
	expect EACCES read "$WS/sub/secret"
	# Run 1 moves the directory away and leaves a link to a decoy in its place.
	run full sh -c "mv '$WS/sub' '$WS/sub.real' && ln -s decoy '$WS/sub'"
	[ "$status" -eq 0 ]
	run sbx touch "$CANARY"
	refused "sbxrun: cannot enforce \"deny $WS/sub/secret\" on linux: cannot enforce sandbox deny-read path $WS/sub/secret because it crosses writable symlink $WS/sub"
	[[ "${lines[0]}" == *"; hint: name the path it leads to ($WS/decoy/secret) instead" ]]
	# The same under a kernel without openat2 (the component walk).
	run sbx_fault openat2 "$PROFILE" touch "$CANARY"
	refused "sbxrun: cannot enforce \"deny $WS/sub/secret\" on linux: cannot enforce sandbox deny-read path $WS/sub/secret because it crosses writable symlink $WS/sub"
	# Control: with the directory back, the run is allowed and the deny holds.
	rm "$WS/sub"
	mv "$WS/sub.real" "$WS/sub"
	expect EACCES read "$WS/sub/secret"
	fexpect openat2 EACCES read "$WS/sub/secret"
}

@test "a writable root an earlier run replaced with a link to a read-only place" {
	rm -rf "$WS/build" "$OUT/pwned"
	mkdir -p "$WS/build"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$WS/build" write)")
	expect OK write "$WS/build/out.o"
	expect EROFS write "$OUT/pwned"
	outside write "$OUT/pwned"
	rm "$OUT/pwned"
	# Run 1 (allowed to write the workspace) points build/ at the directory it may not write.
	run full sh -c "rm -rf '$WS/build' && ln -s '$OUT' '$WS/build'"
	[ "$status" -eq 0 ]
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$WS" write)" \
		"$(entry_path "$WS/build" write)")
	run sbx sh -c "touch '$CANARY'; echo x >'$WS/build/pwned'"
	refused "sbxrun: cannot enforce \"write $WS/build\" on linux: cannot enforce sandbox writable root $WS/build because it crosses writable symlink $WS/build"
	[ ! -e "$OUT/pwned" ]
	rm "$WS/build"
}

@test "a read-only carve-out (.git) an earlier run replaced with a link" {
	rm -rf "$WS/.git.real"
	PROFILE=$(profile restricted $(workspace_entries))
	expect EROFS append "$WS/.git/config"
	# Within the workspace profile the carve-out is a mount point: it cannot even be moved.
	expect EBUSY rename "$WS/.git" "$WS/.git.real"
	# An earlier run with full write moves it and leaves a link.
	run full sh -c "mv '$WS/.git' '$WS/.git.real' && ln -s .git.real '$WS/.git'"
	[ "$status" -eq 0 ]
	run sbx sh -c "touch '$CANARY'; echo x >>'$WS/.git.real/config'"
	refused "sbxrun: cannot enforce \"read-only $WS/.git\" on linux: cannot enforce sandbox read-only path $WS/.git because it crosses writable symlink $WS/.git"
	rm "$WS/.git"
	mv "$WS/.git.real" "$WS/.git"
	expect EROFS append "$WS/.git/config"
}

@test "a deny glob match an earlier run made a link to elsewhere" {
	rm -f "$WS/planted.env"
	echo mine >"$WS/own.env"
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/**/*.env")")
	expect EACCES read "$WS/own.env"
	expect OK read /etc/hostname
	# Run 1 plants a match that leads out of the workspace: masking it would mask its target.
	run sbx ln -s /etc/hostname "$WS/planted.env"
	[ "$status" -eq 0 ]
	run sbx touch "$CANARY"
	refused "$(glob_refused "$WS/**/*.env")cannot enforce sandbox deny-read path $WS/planted.env because it crosses writable symlink $WS/planted.env"
	explain_agrees
	# The human form names the match: the path its words are about is not the glob's row's.
	run "$BIN/sbxrun" explain --cwd "$WS" --profile "$BASE/explain-$BATS_TEST_NUMBER.json"
	[[ "$output" == *"] cannot enforce sandbox deny-read path $WS/planted.env because"* ]]
	rm "$WS/planted.env"
	expect EACCES read "$WS/own.env"
}

@test "a link any user may replace, on the way to a rule path, is refused" {
	local d="$FIXTURES/open-0777" name="link-$SBX_USER-$$"
	rm -f "$d/$name"
	mkdir -p "$OUT/target"
	ln -s "$OUT/target" "$d/$name"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$d/$name/secret" deny)")
	run sbx touch "$CANARY"
	refused "sbxrun: cannot enforce \"deny $d/$name/secret\" on linux: cannot enforce sandbox deny-read path $d/$name/secret because it crosses symlink $d/$name, which users other than root and the caller can replace"
	# Control: the same deny named by where the link leads is planned.
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/target/secret" deny)")
	run sbx touch "$CANARY"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
	rm -f "$d/$name" "$CANARY"
	# The cwd itself is resolved the same way by run and by the helper.
	ln -s "$WS" "$d/$name"
	run "$BIN/sbxrun" --cwd "$d/$name" -- touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: --cwd '$d/$name': it crosses symlink $d/$name, which users other than root and the caller can replace" ]
	run "$H" --sandbox-policy-cwd "$d/$name" --permission-profile "$PROFILE" -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: --sandbox-policy-cwd $d/$name: it crosses symlink $d/$name, which users other than root and the caller can replace" ]
	[ ! -e "$CANARY" ]
	rm -f "$d/$name"
}

@test "a \$TMPDIR inside the workspace, replaced with a link by an earlier run" {
	rm -rf "$WS/tmpdir"
	mkdir -p "$WS/tmpdir"
	PROFILE=$(profile restricted $(workspace_entries))
	TMPDIR="$WS/tmpdir" expect OK write "$WS/tmpdir/a"
	TMPDIR="$WS/tmpdir" expect EROFS write "$OUT/pwned"
	# Run 1 points the caller's $TMPDIR at a place it may not write.
	run full sh -c "rm -rf '$WS/tmpdir' && ln -s '$OUT' '$WS/tmpdir'"
	[ "$status" -eq 0 ]
	TMPDIR="$WS/tmpdir" run sbx sh -c "touch '$CANARY'; echo x >'$WS/tmpdir/pwned'"
	refused "sbxrun: cannot enforce \"write $WS/tmpdir\" on linux: cannot enforce sandbox writable root $WS/tmpdir because it crosses writable symlink $WS/tmpdir"
	[ ! -e "$OUT/pwned" ]
	rm "$WS/tmpdir"
}

# A nested directory's .codex and .agents are plain directories to a run started above it: run 1
# there links the config and a skill to files of the work tree, harmless for now. Run 2, in the
# nested directory, keeps .codex and .agents read-only, the links with them: what they lead to
# must be too, or run 2 rewrites what the next agent reads, outside any sandbox.
@test "a .codex or .agents file linked into the work tree by run 1 above: run 2 cannot rewrite it" {
	local p a
	p=$(realpath "$TMPDIR")/agentlinks-$BATS_TEST_NUMBER
	a=$p/A
	rm -rf "$p"
	mkdir -p "$a/.codex" "$a/.agents/skills"
	new_canary "$a"
	# Run 1, above A: A/.codex and A/.agents are plain nested directories, writable.
	SBX_CWD=$p
	PROFILE=$(profile restricted $(workspace_entries))
	run sbx sh -c "mkdir '$a/notes' && echo 'model = \"m\"' >'$a/notes/cfg.toml' &&
		echo skill >'$a/notes/skill.md' && ln -s ../notes/cfg.toml '$a/.codex/config.toml' &&
		ln -s ../../notes/skill.md '$a/.agents/skills/s.md'"
	[ "$status" -eq 0 ]
	# Run 2, in A: where each link leads is kept read-only, and explain says so.
	SBX_CWD=$a
	expect EROFS append "$a/notes/cfg.toml"
	expect EROFS append "$a/notes/skill.md"
	expect EROFS append "$a/.codex/config.toml"
	run "$BIN/sbxrun" explain --cwd "$a" --profile :workspace -- true
	[[ "$output" == *"read-only $a/notes/cfg.toml "*"enforced"* ]]
	[[ "$output" == *"read-only $a/notes/skill.md "*"enforced"* ]]
	[ "$(cat "$a/notes/cfg.toml")" = 'model = "m"' ]
	# Positive control: the rest of the work tree is the command's.
	expect OK write "$a/notes/other.md"
	# A link to nothing there is, or through a link in the work tree: refused, named.
	SBX_CWD=$p
	run sbx ln -s ../notes/gone.toml "$a/.codex/gone.toml"
	[ "$status" -eq 0 ]
	SBX_CWD=$a
	run sbx sh -c "touch '$CANARY'"
	refused "sbxrun: $a/.codex/gone.toml is a symbolic link to nothing there is: an agent would take what the command makes where it leads"
	SBX_CWD=$p
	run sbx sh -c "rm '$a/.codex/gone.toml' && ln -s notes '$a/nl' &&
		ln -s ../../nl/skill.md '$a/.agents/skills/t.md'"
	[ "$status" -eq 0 ]
	SBX_CWD=$a
	run sbx sh -c "touch '$CANARY'"
	refused "sbxrun: $a/.agents/skills/t.md is a symbolic link that an agent follows through $a/nl, inside a writable root: the command could repoint it"
	SBX_CWD=$WS
	rm -rf "$p"
}
