#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The quick grants (--read, --write, --deny, --network), --mkdir, and a built-in printed as an
# editable profile.

load helpers

setup() { setup_ws; cd "$WS"; }

# The entries of the effective profile as "access path" lines (specials as :kind).
entries() {
	jget "$1" '"\n".join(e["access"] + " " + (e["path"].get("path") or e["path"].get("pattern") or ":" + e["path"]["value"]["kind"]) for e in j["profile"]["file_system"]["entries"])'
}

@test "grants are merged after the --add-permissions files, in command-line order" {
	printf '{"file_system":{"write":["%s/from-file"]}}' "$WS" > "$WS/add.json"
	run "$SBXRUN" explain --json -p :read-only -a "$WS/add.json" --write out --deny "$WS/src/../secret" \
		--read /etc/./hosts -- true
	[ "$status" -eq 0 ]
	[ "$(entries "$output")" = "read :root
write $WS/from-file
write $WS/out
deny $WS/secret
read /etc/hosts" ]
	[ "$(jget "$output" 'j["profile"]["network"]')" = restricted ]
}

@test "relative grants are taken from -C; ~ and ~/ from HOME" {
	mkdir -p "$WS/sub"
	cd /
	HOME="$WS/home" run "$SBXRUN" explain --json -p :read-only -C "$WS/sub" --read x --read '~' \
		--read '~/k' --read=~/l -- true
	[ "$status" -eq 0 ]
	[ "$(entries "$output")" = "read :root
read $WS/sub/x
read $WS/home
read $WS/home/k
read $WS/home/l" ]
}

@test "a grant that cannot be made absolute is bad usage: 125, nothing runs" {
	run "$SBXRUN" --read '~root/x' -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: --read '~root/x': only ~ and ~/ are expanded" ]
	HOME=relative run "$SBXRUN" --write '~/x' -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: --write '~/x': cannot expand ~: HOME is not an absolute path" ]
	run env -u HOME "$SBXRUN" --deny '~' -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	run "$SBXRUN" --read '' -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: --read: empty path" ]
	run "$SBXRUN" --write
	[ "$status" -eq 125 ]
	[ ! -e "$WS/canary" ]
}

@test "each repeatable option takes at most 256 values" {
	args=()
	for i in $(seq 257); do args+=(--read "/r$i"); done
	run "$SBXRUN" "${args[@]}" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: --read: given more than 256 times" ]
	[ ! -e "$WS/canary" ]
}

@test "--network enables the network, as an addition with network enabled does" {
	run "$SBXRUN" explain --json --network -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["profile"]["network"]')" = enabled ]
	[ "$(jget "$output" '"network enabled" in [r["rule"] for r in j["requirements"]]')" = true ]
}

@test "a grant on a missing path is skipped: missing, no effect; never enforced" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"minimal"}},"access":"read"}]},"network":"restricted"}' > "$WS/min.json"
	run "$SBXRUN" explain --json -p "$WS/min.json" --write "$WS/nope" --read /nonexistent -- true
	[ "$status" -eq 0 ]
	# In the JSON form a status is enforced or unenforceable: these rows are under "skipped".
	[ "$(jget "$output" '[(r["rule"], r["why"]) for r in j["skipped"] if r["rule"] in ("write '"$WS"'/nope", "read /nonexistent")]')" = '[["read /nonexistent", "missing: no effect"], ["write '"$WS"'/nope", "missing: no effect"]]' ]
	[ "$(jget "$output" 'sorted(set(r["status"] for r in j["requirements"]))')" = '["enforced"]' ]
	[ "$(jget "$output" '[r for r in j["requirements"] if r["rule"] in ("write '"$WS"'/nope", "read /nonexistent")]')" = '[]' ]
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
	run "$SBXRUN" explain -p :read-only --write "$WS/nope" -- true
	[[ "$output" == *"write $WS/nope"*"none"*"skipped [1]"* ]]
	[[ "$output" == *"[1] missing: no effect"* ]]
	# An existing one is enforced, and with nothing skipped there is no "skipped" key.
	run "$SBXRUN" explain --json -p :read-only --write "$WS/src" -- true
	[ "$(jget "$output" '[r["status"] for r in j["requirements"] if r["rule"]=="write '"$WS"'/src"]')" = '["enforced"]' ]
	[ "$(jget "$output" '"skipped" in j')" = false ]
}

@test "a deny cannot narrow a disabled or external profile: 125 with a hint" {
	run "$SBXRUN" -p :danger-full-access --deny "$WS/src" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: a deny entry cannot narrow a profile of type disabled: it asks for no sandbox at all; hint: "* ]]
	[[ "${lines[0]}" == *'; hint: start from a managed profile, such as {"type":"managed",'* ]]
	printf '{"type":"external","network":"restricted"}' > "$WS/x.json"
	run "$SBXRUN" -p "$WS/x.json" --deny "$WS/src" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"type external: its file system is confined outside sbxrun; hint: "* ]]
	# The same deny from an --add-permissions file is refused as well, naming the file.
	printf '{"file_system":{"entries":[{"path":{"type":"path","path":"%s/src"},"access":"deny"}]}}' "$WS" > "$WS/d.json"
	run "$SBXRUN" -p :danger-full-access -a "$WS/d.json" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: $WS/d.json: a deny entry cannot narrow"* ]]
	[ ! -e "$WS/canary" ]
	# Grants alone change nothing there, and are accepted.
	run "$SBXRUN" -p :danger-full-access --read /etc --write "$WS" -- true
	[ "$status" -eq 0 ]
}

@test "a deny narrows an unrestricted file system to root write but the denied paths" {
	printf '{"type":"managed","file_system":{"type":"unrestricted"},"network":"enabled"}' > "$WS/u.json"
	for how in quick file; do
		if [ $how = quick ]; then
			run "$SBXRUN" explain --json -p "$WS/u.json" --deny "$WS/src" --read /etc -- true
		else
			printf '{"file_system":{"entries":[{"path":{"type":"path","path":"%s/src"},"access":"deny"},{"path":{"type":"path","path":"/etc"},"access":"read"}]}}' "$WS" > "$WS/d.json"
			run "$SBXRUN" explain --json -p "$WS/u.json" -a "$WS/d.json" -- true
		fi
		[ "$status" -eq 0 ]
		[ "$(jget "$output" 'j["profile"]["file_system"]["type"]')" = restricted ]
		# The files read, now inside a writable root, are kept read-only (sbxrun(1), --profile).
		if [ $how = quick ]; then
			[ "$(entries "$output")" = "write :root
deny $WS/src
read $WS/u.json" ]
		else
			[ "$(entries "$output")" = "write :root
deny $WS/src
read $WS/u.json
read $WS/d.json" ]
		fi
		[ "$(jget "$output" 'j["sandbox_requested"]')" = true ]
	done
	run "$SBXRUN" access -p "$WS/u.json" --deny "$WS/src" "$WS/src/a" /etc/hosts
	[ "${lines[0]}" = "deny   $WS/src/a  (entries[1]: deny $WS/src)" ]
	[ "${lines[1]}" = "write  /etc/hosts  (entries[0]: write :root)" ]
}

@test "access sees the quick grants: a deny is more specific than the workspace" {
	run "$SBXRUN" access --deny src/secret --read /nonexistent src/secret/k src/ok
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "deny   $WS/src/secret/k  (entries[7]: deny $WS/src/secret)" ]
	[ "${lines[1]}" = "write  $WS/src/ok  (entries[1]: write $WS)" ]
}

@test "--mkdir: explain creates nothing and says run will" {
	run "$SBXRUN" explain --json -p :read-only --mkdir --write "$WS/new/deep" -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" '[r["why"] for r in j["requirements"] if r["rule"]=="write '"$WS"'/new/deep"]')" = '["missing: created when run (--mkdir)"]' ]
	[ ! -e "$WS/new" ]
	run "$SBXRUN" access --mkdir x
	[ "$status" -eq 125 ]
}

@test "--mkdir creates what --write names, as mkdir -p with the umask, and nothing else" {
	run bash -c 'umask 027; "$1" --sandbox forbid -p :read-only --mkdir --write "$2/a/b" --read "$2/r" -- true' \
		sh "$SBXRUN" "$WS"
	[ "$status" -eq 0 ]
	[ -d "$WS/a/b" ]
	[ "$(stat -c %a "$WS/a")" = 750 ]
	[ "$(stat -c %a "$WS/a/b")" = 750 ]
	[ ! -e "$WS/r" ]
	# An existing directory is left as it is.
	chmod 700 "$WS/a/b"
	run "$SBXRUN" --sandbox forbid --mkdir --write "$WS/a/b" -- true
	[ "$status" -eq 0 ]
	[ "$(stat -c %a "$WS/a/b")" = 700 ]
	# A file on the way is an error.
	run "$SBXRUN" --sandbox forbid --mkdir --write "$WS/src/../a/b/../../x/y" -- true
	[ "$status" -eq 0 ]
	[ -d "$WS/x/y" ]
	touch "$WS/file"
	run "$SBXRUN" --sandbox forbid --mkdir --write "$WS/file/d" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: --mkdir '$WS/file/d': file: Not a directory" ]
	[ ! -e "$WS/canary" ]
}

@test "--mkdir refuses a link a confined run could have planted, and creates nothing" {
	out="$BATS_TEST_TMPDIR/outside"
	mkdir -p "$out"
	# Run 1 (the workspace is writable) leaves a link to a place outside it.
	ln -s "$out" "$WS/build"
	run "$SBXRUN" --mkdir --write "$WS/build/cache" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: --mkdir '$WS/build/cache': $WS/build is a symbolic link a confined command could have placed (inside a writable root, or not yours); hint: "* ]]
	[[ "${lines[0]}" == *"; hint: name the directory it leads to, or remove the link" ]]
	[ ! -e "$out/cache" ]
	[ ! -e "$WS/canary" ]
	# A link outside every writable root, owned by root or the caller, is followed.
	ln -s "$out" "$BATS_TEST_TMPDIR/trusted"
	run "$SBXRUN" --sandbox forbid -p :read-only --mkdir --write "$BATS_TEST_TMPDIR/trusted/ok" -- true
	[ "$status" -eq 0 ]
	[ -d "$out/ok" ]
}

@test "--mkdir: a run refused after creating removes what it created" {
	# A read-only carve-out that does not exist in the workspace cannot be enforced: the plan
	# is refused after --mkdir.
	run "$SBXRUN" --read "$WS/nope" --mkdir --write "$WS/m1/m2" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ ! -e "$WS/m1" ]
	[ ! -e "$WS/canary" ]
	# So is one whose command cannot be found.
	run -127 "$SBXRUN" --sandbox forbid --mkdir --write "$WS/m3" -- /nonexistent/cmd
	[ "$status" -eq 127 ]
	[ ! -e "$WS/m3" ]
}

@test "convert --to profile prints a built-in as an editable profile, which loads back" {
	run "$SBXRUN" convert --to profile :workspace
	[ "$status" -eq 0 ]
	[ "$output" = '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"},{"path":{"type":"special","value":{"kind":"slash_tmp"}},"access":"write"},{"path":{"type":"special","value":{"kind":"tmpdir"}},"access":"write"},{"path":{"type":"special","value":{"kind":"project_roots","subpath":".git"}},"access":"read","missing_path_behavior":"skip"},{"path":{"type":"special","value":{"kind":"project_roots","subpath":".agents"}},"access":"read","missing_path_behavior":"skip"},{"path":{"type":"special","value":{"kind":"project_roots","subpath":".codex"}},"access":"read","missing_path_behavior":"skip"}]},"network":"restricted"}' ]
	printf '%s' "$output" > "$WS/ws.json"
	# /tmp's protected names are left out: another run's mount points come and go there
	# (a point is an empty directory, which reads as existing while that run lasts).
	a=$("$SBXRUN" explain --json -p :workspace -- true | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps([j["profile"], [r for r in j["requirements"] if " /tmp/." not in r["rule"]]]))')
	# Through a pipe: read from the file, inside the workspace, it would be kept read-only besides.
	b=$(cat "$WS/ws.json" | "$SBXRUN" explain --json -p - -- true | python3 -c 'import json,sys; j=json.load(sys.stdin); print(json.dumps([j["profile"], [r for r in j["requirements"] if " /tmp/." not in r["rule"]]]))')
	[ "$a" = "$b" ]
	run "$SBXRUN" convert --to profile :read-only
	[ "$output" = '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"}]},"network":"restricted"}' ]
	run "$SBXRUN" convert --to profile :danger-full-access
	[ "$output" = '{"type":"disabled"}' ]
	run "$SBXRUN" convert --to profile :nope
	[ "$status" -eq 125 ]
}
