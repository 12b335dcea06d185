#!/usr/bin/env bats
# What sbxrun reads on its next start from a place a confined run could write: a profile or an
# additional-permission file kept in the workspace. A first run leaves a FIFO at that name; the
# next start must refuse at once (nothing writes to it: every process of run 1 has ended), not
# wait in open(2) for a writer that never comes.
load common

S="$BIN/sbxrun"

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
	# The workspace's own profile: read everywhere, write the workspace.
	PROF=$(profile restricted "$(entry_special root read)" "$(entry_special project_roots write)")
	ADD='{"file_system":{"entries":[]}}'
	echo "$PROF" >"$WS/sandbox.json"
	echo "$PROF" >"$WS/sandbox.json.keep"
	echo "$ADD" >"$WS/add.json"
}

@test "a FIFO an earlier run left where the profile or the additional permissions were" {
	# Run 1, under :workspace (a run under the workspace's own profile keeps both files
	# read-only: tests/adversarial/profiles.bats): both names become FIFOs.
	run "$S" -C "$WS" -- sh -c "rm sandbox.json add.json && mkfifo sandbox.json add.json"
	[ "$status" -eq 0 ]
	[ -p "$WS/sandbox.json" ]
	[ -p "$WS/add.json" ]
	run timeout 20 "$S" -C "$WS" --profile "$WS/sandbox.json" -- touch "$CANARY"
	refused "sbxrun: $WS/sandbox.json: cannot read: a pipe that nothing writes to"
	run timeout 20 "$S" explain -C "$WS" --profile "$WS/sandbox.json" -- true
	echo "$output"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: $WS/sandbox.json: cannot read: a pipe that nothing writes to" ]
	run timeout 20 "$S" -C "$WS" --add-permissions "$WS/add.json" -- touch "$CANARY"
	refused "sbxrun: $WS/add.json: cannot read: a pipe that nothing writes to"
	# Control: a pipe that is being written (a shell's <(...), its writer slow) is read whole.
	rm "$WS/sandbox.json" "$WS/add.json"
	run timeout 20 "$S" -C "$WS" --profile <(sleep 1 && echo "$PROF") \
		--add-permissions <(sleep 1 && echo "$ADD") -- "$P" write "$WS/ok"
	echo "$output"
	[ "$output" = OK ]
	run timeout 20 "$S" -C "$WS" --profile <(echo "$PROF") -- "$P" write "$OUT/pwned"
	[ "$output" = EROFS ]
	# /dev/stdin, a pipe with a slow writer or a file: read whole as well.
	run timeout 20 sh -c "(sleep 1 && cat '$WS/sandbox.json.keep') | \
		'$S' -C '$WS' --profile /dev/stdin -- '$P' write '$WS/ok'"
	[ "$output" = OK ]
	run timeout 20 sh -c "'$S' -C '$WS' --profile /dev/stdin -- '$P' write '$OUT/pwned' \
		<'$WS/sandbox.json.keep'"
	[ "$output" = EROFS ]
}
