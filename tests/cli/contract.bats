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

@test "a deny glob whose static prefix is /: explain says unenforceable, as run refuses it" {
	[ "$(uname -s)" = Linux ] || return 0 # the Linux plan; macOS matches globs at each access
	for g in '/*.env' '/**/id_rsa' '/[a-z]*/x'; do
		printf '{"type":"managed","file_system":{"type":"restricted","entries":[
			{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},
			{"path":{"type":"glob_pattern","pattern":"%s"},"access":"deny"}
		]},"network":"restricted"}' "$g" >"$WS/g.json"
		run -0 "$SBXRUN" explain --json -p "$WS/g.json" -- true
		[ "$(jget "$output" 'j["enforceable"]')" = false ]
		[ "$(jget "$output" '[r["status"] for r in j["requirements"] if r["rule"] == "deny glob '"$g"'"]')" = '["unenforceable"]' ]
		run -125 --separate-stderr "$SBXRUN" -p "$WS/g.json" -- touch "$WS/canary"
		[ "${stderr_lines[0]}" = "sbxrun: cannot enforce \"deny glob $g\" on linux: its static prefix is /: the matches cannot be found without scanning the whole file system; hint: use a pattern with a non-root directory prefix" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ ! -e "$WS/canary" ]
	done
	# The control: below a directory, the same glob is enforced and the run starts.
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[
		{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},
		{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"},
		{"path":{"type":"glob_pattern","pattern":"%s/*.env"},"access":"deny"}
	]},"network":"restricted"}' "$WS" >"$WS/g.json"
	run -0 "$SBXRUN" explain --json -p "$WS/g.json" -- true
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
	run -0 "$SBXRUN" -p "$WS/g.json" -- touch "$WS/canary"
	[ -e "$WS/canary" ]
}

@test "explain --json: the contract's keys, and a status is enforced or unenforceable only" {
	unenforceable
	for platform in linux macos windows; do
		for args in "-p :workspace" "-p :read-only --write $WS/nope --read /nonexistent" \
			"-p $WS/unenforceable.json" "-p :workspace --network"; do
			# shellcheck disable=SC2086 # the words of args are options
			run -0 "$SBXRUN" explain --json --platform "$platform" $args -- true
			[ "$(jget "$output" '[k for k in ("version", "platform", "profile", "sandbox_requested", "sandbox", "enforceable", "requirements", "argv", "cwd") if k not in j]')" = '[]' ]
			[ "$(jget "$output" 'sorted(set(r["status"] for r in j["requirements"]) - {"enforced", "unenforceable"})')" = '[]' ]
			[ "$(jget "$output" 'j["enforceable"] == all(r["status"] == "enforced" for r in j["requirements"])')" = true ]
			[ "$(jget "$output" 'j["sandbox"] in ("none", "linux-seccomp", "macos-seatbelt", "windows-restricted-token")')" = true ]
		done
	done
	# The grants on missing paths are listed, with their reason, under "skipped".
	run -0 "$SBXRUN" explain --json -p :read-only --write "$WS/nope" -- true
	[ "$(jget "$output" '[r for r in j["skipped"] if r["rule"] == "write '"$WS"'/nope"]')" = '[{"rule": "write '"$WS"'/nope", "why": "missing: no effect"}]' ]
}

@test "every refusal is one line on stderr starting sbxrun: ; cannot-enforce names the rule and a fix" {
	unenforceable
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":"rel","access":"read"}]},"network":"restricted"}' >"$WS/bad.json"
	for args in "--frobnicate -- true" "--sandbox sometimes -- true" "" "-p :nope -- true" \
		"-p $WS/bad.json -- true" "explain --bogus" "convert --to legacy :workspace-git" \
		"proxy --listen 0.0.0.0:1"; do
		# shellcheck disable=SC2086 # the words of args are sbxrun's arguments
		run -125 --separate-stderr "$SBXRUN" $args
		[ "$output" = "" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "${stderr_lines[0]}" == "sbxrun: "* ]]
	done
	[ "$(uname -s)" = Linux ] || return 0 # what the Linux plan cannot enforce
	# A refusal of a plan: the rule, why this host cannot, and the fix, on that one line.
	run -125 --separate-stderr "$SBXRUN" -p "$WS/unenforceable.json" -- touch "$WS/canary"
	[ "$stderr" = "sbxrun: cannot enforce \"read-only $WS/nope\" on linux: $WS/nope does not exist: making it read-only inside a writable root would need a mount point created on the host; hint: create it first or drop the entry" ]
	[ ! -e "$WS/canary" ]
	# The control: the same profile once the path exists runs.
	mkdir "$WS/nope"
	run -0 "$SBXRUN" -p "$WS/unenforceable.json" -- touch "$WS/canary"
	[ -e "$WS/canary" ]
}

@test "an empty --cwd, --workspace-root or --add-permissions is refused, never the current directory" {
	mkdir "$WS/other"
	cd "$WS/other"
	# As a script with DIR unset would write it: the writable root must not become "."
	for opt in -C --cwd= -w --workspace-root= -a --add-permissions=; do
		case $opt in
		*=) args=("$opt") ;;
		*) args=("$opt" "") ;;
		esac
		run -125 --separate-stderr "$SBXRUN" "${args[@]}" -- touch "$WS/other/canary"
		[[ "${stderr_lines[0]}" == "sbxrun: --"*": empty value" ]]
		[ ! -e "$WS/other/canary" ]
		run -125 --separate-stderr "$SBXRUN" explain "${args[@]}" -- true
		run -125 --separate-stderr "$SBXRUN" access "${args[@]}" x
	done
	# The control: the directory named is taken.
	run -0 "$SBXRUN" --sandbox forbid -C "$WS/src" -w "$WS/src" -- pwd
	[ "$output" = "$WS/src" ]
}

# What sbxrun prints is its answer: a plan written to a full disk, or to a closed standard
# output, is lost, and a script that saved it must not read it as given (exit 0), as
# coreutils and git report a write error.
@test "explain, probe, access, convert, --help: a failed write of standard output is 125 and said" {
	[ -w /dev/full ] || return 0 # Linux, and the BSDs, have it
	printf '{"type":"disabled"}' >"$WS/p.json"
	printf '{}' >"$WS/add.json"
	for sub in "explain -- true" "explain --json -- true" "probe --json" "access $WS" \
		"convert --to legacy $WS/p.json" "merge $WS/add.json $WS/add.json" "--help" "--version"; do
		# The control: to /dev/null it succeeds.
		"$SBXRUN" $sub </dev/null >/dev/null
		run --separate-stderr sh -c 'exec "$@" </dev/null >/dev/full' sh "$SBXRUN" $sub
		echo "$sub: status $status: $stderr"
		[ "$status" -eq 125 ]
		# One line, with the reason where the last write was the one that failed.
		[ "${#stderr_lines[@]}" -eq 1 ]
		[[ "$stderr" =~ ^"sbxrun: cannot write standard output"(": No space left on device")?$ ]]
	done
	run --separate-stderr sh -c 'exec "$@" >&-' sh "$SBXRUN" explain -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" =~ ^"sbxrun: cannot write standard output"(": Bad file descriptor")?$ ]]
	# A run's standard output is the command's: its status is the command's own.
	run -0 sh -c 'exec "$@" >/dev/full' sh "$SBXRUN" -- true
	run -1 sh -c 'exec "$@" >/dev/full' sh "$SBXRUN" -- sh -c 'echo x || exit 1'
	run -3 sh -c 'exec "$@" >/dev/full' sh "$SBXRUN" --sandbox forbid -- sh -c 'exit 3'
}
