#!/usr/bin/env bats
# A workspace whose own name holds glob characters: run 1 writes a secret matching the profile's
# deny glob; run 2 must not read it. Unescaped, "p[1]" would be a character class and the glob
# would match nothing.
load common

setup_file() { make_layout; }
setup() { make_layout_vars; }

@test "a deny glob under a workspace named p[1], a{b,c} or b\\c: run 2 cannot read run 1's match" {
	local name ws
	[ -n "$BASE" ]
	for name in 'p[1]' 'a{b,c}' 'b\c'; do
		ws="$BASE/$name"
		rm -rf "$ws"
		mkdir -p "$ws"
		SBX_CWD=$ws
		PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny '**/*.env')")
		# Run 1 writes a matching file and a plain one (positive control for writes).
		run sbx sh -c "mkdir -p '$ws/sub' && echo secret >'$ws/sub/.env' && echo p >'$ws/sub/p.txt'"
		[ "$status" -eq 0 ]
		outside read "$ws/sub/.env"
		# Run 2: the match is masked, its neighbour readable.
		expect EACCES read "$ws/sub/.env"
		expect OK read "$ws/sub/p.txt"
	done
}
