#!/usr/bin/env bats
# explain --platform macos: what the Seatbelt plan refuses, and the denials the generated policy
# ends with (the policy's decisions are tested in tests/unit/test_sbpl_golden.c).

load helpers

setup() { setup_ws; cd "$WS"; }

profile_with_glob() {
	printf '{"type":"managed","network":"restricted","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"},{"path":{"type":"glob_pattern","pattern":"%s"},"access":"deny"}]}}' "$1" >"$WS/p.json"
}

@test "explain --platform macos: the policy ends by denying TIOCSTI" {
	run "$SBXRUN" explain --json --platform macos --profile :workspace -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["argv"][2].rstrip().splitlines()[-1]')" = "(deny file-ioctl (ioctl-command TIOCSTI))" ]
}

@test "explain --platform macos: \$TMPDIR holding the workspace carries the workspace's carve-outs" {
	TMPDIR=$(dirname "$WS") run "$SBXRUN" explain --json --platform macos --profile :workspace -- true
	[ "$status" -eq 0 ]
	# Every writable root that holds the workspace (TMPDIR, the workspace, maybe /tmp) excludes
	# the workspace's .git.
	d='dict(a[2:].split("=", 1) for a in j["argv"] if a.startswith("-D"))'
	holders='[r for r, p in '"$d"'.items() if r.startswith("WRITABLE_ROOT_") and r.count("_") == 2 and ("'"$WS"'/").startswith(p.rstrip("/") + "/")]'
	[ "$(jget "$output" "len($holders) >= 2")" = true ]
	[ "$(jget "$output" "all(any(k.startswith(r + \"_EXCLUDED_\") and v == \"$WS/.git\" for k, v in $d.items()) for r in $holders)")" = true ]
}

@test "explain --platform macos: a POSIX class in a deny glob is unenforceable, with a hint" {
	profile_with_glob '[[:digit:]].key'
	run "$SBXRUN" explain --json --platform macos --profile "$WS/p.json" -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	[ "$(jget "$output" 'j["argv"]')" = null ]
	[ "$(jget "$output" '[r["why"] for r in j["requirements"] if r["status"]=="unenforceable"]')" = '["deny glob `'"$WS"'/[[:digit:]].key`: `[:` in a character class is POSIX class syntax, which globs do not have"]' ]
	[ "$(jget "$output" '[r["hint"] for r in j["requirements"] if r["status"]=="unenforceable"]')" = '["list the characters or a range, as in [0-9]; a `[` meant literally goes last in the class, as in [.[]"]' ]
	profile_with_glob '[0-9].key'
	run "$SBXRUN" explain --json --platform macos --profile "$WS/p.json" -- true
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
}

@test "explain --platform macos: a deny glob under / alone meets a writable root: unenforceable" {
	profile_with_glob '/**/*.pem'
	run "$SBXRUN" explain --json --platform macos --profile "$WS/p.json" -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	[[ "$(jget "$output" '[r["why"] for r in j["requirements"] if r["status"]=="unenforceable"][0]')" == *"has no directory prefix below /"* ]]
	[ -n "$(jget "$output" '[r["hint"] for r in j["requirements"] if r["status"]=="unenforceable"][0]')" ]
}

@test "explain --platform macos: a glob the policy builder cannot scan is refused in its own words" {
	d=$WS/c
	for i in $(seq 20); do d=$d/$(printf 'x%.0s' $(seq 250)); done
	mkdir -p "$d"
	profile_with_glob "$WS/c/**/*.env"
	run "$SBXRUN" explain --platform macos --profile "$WS/p.json" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"glob \`$WS/c/**/*.env\`: a path of "*" bytes cannot be named to the kernel"* ]]
	profile_with_glob "$WS/c/*.env"
	run "$SBXRUN" explain --platform macos --profile "$WS/p.json" -- true
	[ "$status" -eq 0 ]
}
