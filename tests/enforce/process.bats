#!/usr/bin/env bats
# Process and kernel boundaries, and the positive controls, for each scenario: read-only,
# workspace write, workspace write with denied secrets, workspace write with network enabled.
load common

uses_outside
setup() {
	outside_vars
	PROFILES=(
		"$(profile restricted "$(entry_special root read)")"
		"$(profile restricted $(workspace_entries))"
		"$(profile restricted $(workspace_entries) "$(entry_path "$OUT/dir" deny)")"
		"$(profile enabled $(workspace_entries))"
	)
}

# each CMD...: runs CMD once per scenario with PROFILE set.
each() {
	for PROFILE in "${PROFILES[@]}"; do
		"$@" || return 1
	done
}

@test "io_uring is refused with ENOSYS" {
	each expect ENOSYS io_uring
}

@test "TIOCSTI on a terminal is refused (EPERM); control: allowed outside" {
	run script -qec "$P tiocsti /dev/tty" /dev/null
	[[ "$output" == *OK* ]]
	for PROFILE in "${PROFILES[@]}"; do
		run script -qec "$H --sandbox-policy-cwd $WS --permission-profile '$PROFILE' -- $P tiocsti /dev/tty" /dev/null
		echo "$output"
		[[ "$output" == *EPERM* ]]
	done
}

@test "ptrace, signals and /proc/PID/environ of a process outside are refused" {
	kill -0 "$VICTIM"
	outside read "/proc/$VICTIM/environ"
	# In the sandbox's own PID namespace a process outside has no pid, and /proc has no entry.
	each expect ESRCH ptrace "$VICTIM"
	each expect ESRCH kill "$VICTIM" 0
	each expect ENOENT read "/proc/$VICTIM/environ"
	# Without one (clone refused), Landlock refuses them (signal scope, ptrace rule).
	each fexpect clone EPERM ptrace "$VICTIM"
	each fexpect clone EPERM kill "$VICTIM" 0
	each fexpect clone EACCES read "/proc/$VICTIM/environ"
	run sbx sh -c 'sleep 5 & kill -TERM $!; wait $!; echo "status=$?"'
	[[ "$output" == *status=143* ]]
}

@test "setuid binaries do not raise privilege (no_new_privs)" {
	run "$BIN/suid-probe" euid
	[ "$output" = 0 ]
	for PROFILE in "${PROFILES[@]}"; do
		run sbx "$BIN/suid-probe" euid
		[ "$output" = "$(id -u)" ]
	done
}

@test "no new user namespace, no mount, no bpf, no personality change" {
	if [ "$SBX_USER" = nobody ]; then outside unshare-user; fi
	each expect EPERM unshare-user
	each expect EPERM clone-user
	each expect ENOSYS clone3
	each expect EPERM unshare-ns
	each expect EPERM mount "$TMPDIR"
	each expect EPERM bpf
	each expect EPERM personality
	# Controls: the same calls without a namespace flag, and the execution domains the filter
	# leaves (the query and the default), run.
	each expect OK unshare-files
	each expect OK clone-plain
	each expect OK personality-query
	each expect OK personality-default
}

@test "capability sets are empty, NoNewPrivs and seccomp are on" {
	for PROFILE in "${PROFILES[@]}"; do
		run sbx cat /proc/self/status
		for f in CapInh CapPrm CapEff CapBnd CapAmb; do
			grep -qx "$f:	0000000000000000" <<<"$output"
		done
		grep -qx "NoNewPrivs:	1" <<<"$output"
		grep -qx "Seccomp:	2" <<<"$output"
	done
}

@test "controls: exit status 42, death by SIGTERM, stdin, pipes, /dev/null, /dev/urandom, python" {
	for PROFILE in "${PROFILES[@]}"; do
		run sbx sh -c 'exit 42'
		[ "$status" -eq 42 ]
		run sbx sh -c 'kill -TERM $$'
		[ "$status" -eq 143 ]
		run sbx cat <<<"from stdin"
		[ "$output" = "from stdin" ]
		run sbx sh -c 'echo a | tr a b >/dev/null && head -c 8 /dev/urandom | wc -c'
		[ "$output" = 8 ]
		run sbx python3 -c 'print(6 * 7)'
		[ "$output" = 42 ]
	done
}

@test "controls: SIGTERM sent to the sandboxed process reaches the command" {
	for PROFILE in "${PROFILES[@]}"; do
		# Started directly (not through a shell function) so $! is the sandboxed process.
		"$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- sleep 30 3>&- &
		pid=$!
		# (Up to ten seconds: a run's set-up under a loaded machine's sanitizers takes seconds.)
		for _ in $(seq 500); do
			[ "$(cat /proc/$pid/comm 2>/dev/null)" = sleep ] && break
			sleep 0.02
		done
		[ "$(cat /proc/$pid/comm)" = sleep ]
		kill -TERM "$pid"
		st=0
		wait "$pid" || st=$?
		[ "$st" -eq 143 ]
	done
}

@test "a command that stopped itself goes on at kill -CONT of the sandboxed process, as in place" {
	# Without a terminal the sandbox has a process group of its own: the caller knows only the
	# pid it started (timeout(1) sends SIGCONT after its SIGTERM, to that pid). The command
	# must not stay stopped for good. The control: the same command run in place.
	PROFILE=${PROFILES[1]}
	out="$BATS_TEST_TMPDIR/out"
	cmd='echo stopping; kill -STOP $$; echo continued'
	for how in place init subreaper; do
		: >"$out"
		case $how in
		place) sh -c "$cmd" >"$out" 3>&- & ;;
		init) "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- \
			sh -c "$cmd" >"$out" 3>&- & ;;
		# No PID namespace: the supervisor is the command's parent and subreaper.
		subreaper) "$BIN/failinj" clone -- "$H" --sandbox-policy-cwd "$WS" \
			--permission-profile "$PROFILE" -- sh -c "$cmd" >"$out" 3>&- & ;;
		esac
		pid=$!
		for _ in $(seq 500); do
			grep -q stopping "$out" && break
			sleep 0.02
		done
		# Sent again until it takes: the first may come before the stop.
		for _ in $(seq 250); do
			kill -CONT "$pid" 2>/dev/null || break
			grep -q continued "$out" && break
			sleep 0.02
		done
		grep -q continued "$out" || kill -KILL "$pid"
		st=0
		wait "$pid" || st=$?
		echo "$how: status $st, output: $(cat "$out")"
		[ "$(cat "$out")" = "$(printf 'stopping\ncontinued')" ]
		[ "$st" -eq 0 ]
	done
}

@test "controls: building and running a C program in the workspace" {
	PROFILE=${PROFILES[1]}
	printf '#include <stdio.h>\nint main(void){puts("built");return 0;}\n' >"$WS/hello.c"
	run sbx sh -c 'cc -o hello hello.c && ./hello'
	[ "$status" -eq 0 ]
	[ "$output" = built ]
}
