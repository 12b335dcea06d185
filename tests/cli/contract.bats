#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The command-line contract (sbxrun(1)) where no other file checks it: what a refused run leaves
# on the host, whether explain and run agree, the shape of explain --json.

load helpers

setup() { setup_ws; cd "$WS"; }

# A profile whose plan this host cannot enforce: a read-only carve-out, inside the writable
# workspace, of a path that does not exist.
unenforceable() {
	printf '%s' '{"type":"managed","file_system":{"type":"restricted","entries":[
		{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},
		{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"},
		{"path":{"type":"special","value":{"kind":"project_roots","subpath":"nope"}},"access":"read"}
	]},"network":"restricted"}' >"$WS/unenforceable.json"
}

@test "run --report: a refused run (125) creates no report file; a run that starts does" {
	[ "$(uname -s)" = Linux ] || return 0 # the denial report is made on Linux only
	unenforceable
	mkdir "$WS/out"
	run -125 "$SBXRUN" -p "$WS/unenforceable.json" --report "$WS/out/r.json" -- touch "$WS/canary"
	[ ! -e "$WS/out/r.json" ]
	[ ! -e "$WS/canary" ]
	printf '{"type":"disabled",}' >"$WS/bad.json"
	run -125 "$SBXRUN" -p "$WS/bad.json" --report "$WS/out/r.json" -- touch "$WS/canary"
	run -125 "$SBXRUN" -p :nope --report "$WS/out/r.json" -- touch "$WS/canary"
	run -125 "$SBXRUN" --mkdir --write "$WS/out/new" -p "$WS/bad.json" --report "$WS/out/r.json" \
		-- touch "$WS/canary"
	[ "$(ls -A "$WS/out")" = "" ]
	[ ! -e "$WS/canary" ]
	# The control: the same report for a run that starts.
	run -0 "$SBXRUN" --report "$WS/out/r.json" -- touch "$WS/canary"
	[ -f "$WS/out/r.json" ]
	[ -e "$WS/canary" ]
}
