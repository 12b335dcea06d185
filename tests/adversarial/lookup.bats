#!/usr/bin/env bats
# Look-ups that fail are never "missing". A first confined run prepares the ground inside the
# workspace (a parent chmod-ed to 000, a link loop, a glob-scanned directory of mode 0711, a
# match whose path is PATH_MAX bytes long); the next run must either still enforce the deny or
# refuse (125) naming the path and the error. As root the kernel lets the planner through what
# the mode closes (CAP_DAC_OVERRIDE), so the deny must hold; as uid 65534 the look-up fails and
# the run must be refused.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
}

@test "a parent of a denied file chmod-ed to 000 by an earlier run" {
	mkdir -p "$WS/sub"
	echo secret >"$WS/sub/secret"
	echo plain >"$WS/sub/plain"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$WS/sub/secret" deny)")
	# Control: the deny holds and its sibling is readable.
	outside read "$WS/sub/secret"
	expect EACCES read "$WS/sub/secret"
	expect OK read "$WS/sub/plain"
	# Run 1 closes the parent.
	run sbx chmod 000 "$WS/sub"
	[ "$status" -eq 0 ]
	# Run 2 opens it again and reads.
	run sbx sh -c "chmod 755 '$WS/sub' && touch '$CANARY' && cat '$WS/sub/secret'"
	if as_root; then
		[ "$status" -ne 0 ]
		[[ "$output" == *"Permission denied"* ]]
		[ -e "$CANARY" ]
	else
		refused "sbxrun: cannot look up $WS/sub/secret: Permission denied"
		[[ "${lines[0]}" == *"; hint: sbxrun never takes an unreadable path for a missing one; restore access to it, or drop the rule that names it" ]]
	fi
	chmod 755 "$WS/sub"
}

@test "a link loop on the way to a denied path" {
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$WS/loop/secret" deny)")
	rm -f "$WS/loop" "$WS/loop2"
	# Control: with nothing there the deny is planned (nothing to mask) and the command runs.
	run sbx touch "$CANARY"
	[ "$status" -eq 0 ]
	rm -f "$CANARY"
	# Run 1 cannot plant the loop: the denied path's first missing component is masked.
	run sbx sh -c "ln -s loop2 '$WS/loop' && ln -s loop '$WS/loop2'"
	[ "$status" -ne 0 ]
	[ ! -e "$WS/loop" ]
	[ ! -L "$WS/loop" ]
	# Planted another way (a run under a profile without the deny), the next run refuses.
	ln -s loop2 "$WS/loop"
	ln -s loop "$WS/loop2"
	run sbx touch "$CANARY"
	refused "sbxrun: cannot look up $WS/loop/secret: $(errtext ELOOP)"
	rm -f "$WS/loop" "$WS/loop2"
}

@test "a directory a deny glob scans, made passable but not listable by an earlier run" {
	local mode
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/**/*.env")")
	for mode in 0311 0000; do
		rm -rf "$WS/d"
		mkdir -p "$WS/d"
		echo secret >"$WS/d/a.env"
		echo plain >"$WS/d/a.txt"
		# Control: listable, the match is masked, its sibling readable.
		outside read "$WS/d/a.env"
		expect EACCES read "$WS/d/a.env"
		expect OK read "$WS/d/a.txt"
		# Run 1: the directory can still be entered (or opened again by its owner), but
		# the scan can no longer list it.
		run sbx chmod "$mode" "$WS/d"
		[ "$status" -eq 0 ]
		run sbx sh -c "touch '$CANARY'; chmod 755 '$WS/d'; cat '$WS/d/a.env'"
		if as_root; then
			[ "$status" -ne 0 ]
			[[ "$output" == *"Permission denied"* ]]
			rm -f "$CANARY"
		else
			refused "$(glob_refused "$WS/**/*.env")cannot list $WS/d while expanding glob \`$WS/**/*.env\`: Permission denied"
			[[ "${lines[0]}" == *"; hint: the command could still open what is inside it by name"* ]]
			explain_agrees
		fi
		chmod 755 "$WS/d"
	done
}

# Another user's directories (the harness makes them as root): one the caller may pass through
# but not list (a typical 0711 home), one wholly closed to it.
@test "another user's 0711 directory in a glob scan refuses; a closed one is left out" {
	local prof
	prof=$(profile restricted $(workspace_entries) "$(glob_deny "$FIXTURES/**/*.env")")
	PROFILE=$prof
	if as_root; then
		expect EACCES read "$FIXTURES/pass-0711/a.env"
		expect EACCES read "$FIXTURES/closed-0700/a.env"
		return
	fi
	outside read "$FIXTURES/pass-0711/a.env"
	run sbx touch "$CANARY"
	refused "$(glob_refused "$FIXTURES/**/*.env")cannot list $FIXTURES/pass-0711 while expanding glob \`$FIXTURES/**/*.env\`: Permission denied"
	explain_agrees
	# Without the 0711 directory the closed one is skipped: the command cannot reach in either.
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$FIXTURES/closed-*/**/*.env")")
	run "$P" read "$FIXTURES/closed-0700/a.env"
	[ "$output" = EACCES ] # closed to this user on the host already
	expect EACCES read "$FIXTURES/closed-0700/a.env"
	expect OK write "$WS/after-closed"
}

# make_deep LEN: a tree under $WS/deep whose one file, ending in .env, has a path of LEN bytes.
make_deep() {
	python3 - "$WS/deep" "$1" <<'PY'
import os, sys
top, want = sys.argv[1], int(sys.argv[2])
os.makedirs(top, exist_ok=True)
os.chdir(top)
path = top
while want - len(path) > 250:
    name = "d" * 200
    os.makedirs(name, exist_ok=True)
    os.chdir(name)
    path += "/" + name
name = "f" * (want - len(path) - 1 - 4) + ".env"
open(name, "w").write("secret\n")
print(path + "/" + name)
PY
}

@test "a glob match whose path is exactly PATH_MAX (4096) bytes long" {
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/deep/**/*.env")")
	rm -rf "$WS/deep"
	# Control: one byte shorter, the match is masked and the command runs.
	run sbx sh -c "$(declare -f make_deep); WS='$WS' make_deep 4095"
	[ "$status" -eq 0 ]
	local f=$output
	[ "${#f}" -eq 4095 ]
	expect EACCES read "$f"
	# Run 1 makes the match one byte longer: it cannot be named to the kernel, so not masked.
	rm -rf "$WS/deep"
	run sbx sh -c "$(declare -f make_deep); WS='$WS' make_deep 4096"
	[ "$status" -eq 0 ]
	[ "${#output}" -eq 4096 ]
	run sbx touch "$CANARY"
	refused "$(glob_refused "$WS/deep/**/*.env")glob \`$WS/deep/**/*.env\`: a path of 4096 bytes cannot be named to the kernel ($(errtext ENAMETOOLONG)): *"
	explain_agrees
	rm -rf "$WS/deep"
}

@test "a look-up error on a 4000-byte path keeps the error and the rule on the line" {
	local deep tail i
	rm -rf "$WS/loop" "$WS/loop2"
	# A denied path of 4000 bytes below a name that run 1 will turn into a link loop.
	tail=""
	for i in $(seq 40); do tail="$tail/$(printf 'd%02d%096d' "$i" 0)"; done
	deep="$WS/loop$tail"
	deep=${deep:0:4000}
	[ "${#deep}" -eq 4000 ]
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$deep" deny)")
	# Control: with nothing there the deny is planned and the command runs.
	run sbx touch "$CANARY"
	[ "$status" -eq 0 ]
	rm -f "$CANARY"
	# The loop, planted as an earlier run under a profile without the deny would.
	ln -s loop2 "$WS/loop"
	ln -s loop "$WS/loop2"
	run sbx touch "$CANARY"
	echo "status $status: ${lines[0]}"
	[ "$status" -eq 125 ]
	[ ! -e "$CANARY" ]
	# The line starts with the rule's path and ends with the error, its middle left out, and
	# then the hint.
	msg=${lines[0]%%; hint: *}
	[ "${lines[0]}" = "$msg; hint: sbxrun never takes an unreadable path for a missing one; restore access to it, or drop the rule that names it" ]
	[[ "$msg" == "sbxrun: cannot look up $WS/loop/d01"* ]]
	[[ "$msg" == *" ... "*"/d"[0-9][0-9]"0"*": $(errtext ELOOP)" ]]
	[ "${msg: -${#deep}}" != "$deep" ]
	[ "${#msg}" -le 1031 ]
	rm -f "$WS/loop" "$WS/loop2"
}

@test "a kept link whose target's directory an earlier run chmod-ed to 000" {
	local p a
	p=$(realpath "$TMPDIR")/closedlink-$BATS_TEST_NUMBER
	a=$p/A
	rm -rf "$p"
	mkdir -p "$a/.codex" "$a/notes"
	echo 'model = "m"' >"$a/notes/cfg.toml"
	ln -s ../notes/cfg.toml "$a/.codex/config.toml"
	new_canary "$a"
	SBX_CWD=$a
	PROFILE=$(profile restricted $(workspace_entries))
	# Control: where the link leads is kept read-only; the rest of the work tree is writable.
	expect EROFS append "$a/notes/cfg.toml"
	expect OK write "$a/notes/other.md"
	# Run 1 closes the directory the link leads into.
	run sbx chmod 000 "$a/notes"
	[ "$status" -eq 0 ]
	# Run 2 opens it again and rewrites the file an agent reads through the link.
	run sbx sh -c "touch '$CANARY'; chmod 755 '$a/notes' && echo x >'$a/notes/cfg.toml'"
	if as_root; then
		[ "$status" -ne 0 ]
		[ -e "$CANARY" ]
	else
		refused "sbxrun: cannot look up $a/.codex/config.toml: Permission denied"
		# The same under a kernel without openat2 (the component walk).
		run sbx_fault openat2 "$PROFILE" sh -c "touch '$CANARY'"
		refused "sbxrun: cannot look up $a/.codex/config.toml: Permission denied"
	fi
	chmod 755 "$a/notes"
	[ "$(cat "$a/notes/cfg.toml")" = 'model = "m"' ]
	SBX_CWD=$WS
	rm -rf "$p"
}
