#!/usr/bin/env bats
# explain --platform macos: what the generated Seatbelt policy holds (its decisions are tested in
# tests/unit/test_sbpl_golden.c).

load helpers

setup() { setup_ws; cd "$WS"; }

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
