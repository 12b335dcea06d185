#!/usr/bin/env bats
# Fail-open classes: on a host with neither Landlock nor a mount namespace (both hidden by the
# fault injector) a read-only profile must refuse rather than run with full write; with an
# unrestricted file system and a restricted network the command must run (Landlock handles no
# file-system right) and still not reach the network. Run 1 tries to write where run 2 looks.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
	rm -f "$OUT/planted"
	PROFILE=$(profile restricted "$(entry_special root read)")
}

@test "no Landlock, no mount namespace: read-only refuses, run 1 plants nothing for run 2" {
	# Control: with either mechanism the write is refused and the command runs.
	fexpect landlock EROFS write "$OUT/planted"
	fexpect unshare EACCES write "$OUT/planted"
	outside write "$OUT/planted"
	rm "$OUT/planted"
	# Run 1, with neither: refused before anything runs.
	run sbx_fault landlock,unshare "$PROFILE" sh -c "touch '$CANARY'; echo x >'$OUT/planted'"
	refused 'sbxrun: cannot enforce "writes confined to the writable roots (none)" on linux: *'
	# Run 2 finds nothing planted.
	[ ! -e "$OUT/planted" ]
	run "$BIN/failinj" landlock,unshare -- "$BIN/sbxrun" --cwd "$WS" --profile :read-only -- \
		sh -c "touch '$CANARY'"
	refused 'sbxrun: cannot enforce "writes confined to the writable roots (none)" on linux: *'
}

@test "full write, restricted network: the shell runs, the network stays closed" {
	PROFILE='{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}'
	run sbx sh -c 'echo ok'
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	expect OK write "$OUT/planted"
	expect EPERM tcp4 1
	expect EPERM udp4 1
	run "$P" udp4 1
	[ "$output" = OK ] # the control: outside, a datagram leaves
	rm -f "$OUT/planted"
}
