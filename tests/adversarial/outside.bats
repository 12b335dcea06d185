#!/usr/bin/env bats
# The user's processes outside the sandbox, reached by their pid otherwise than by a signal or
# ptrace. Under init they have no pid in the sandbox's PID namespace. Without one, Landlock
# refuses signals and ptrace across the sandbox's edge, but not a change of another process's
# resource limits: a limit on CPU time below what a process has used kills it (SIGKILL), and
# a limit of open files or of a file's size breaks the user's other programs, the supervisor
# too. One run must hold; there is no ground to prepare.
load common

setup_file() {
	make_layout
	sleep 300 3>&- &
	echo $! >"$BASE/victim.pid"
}
teardown_file() { kill "$(cat "$BASE/victim.pid")" 2>/dev/null || true; }
setup() {
	make_layout_vars
	VICTIM=$(cat "$BASE/victim.pid")
	# A writable root whose protected names are writable too: enforceable without a mount
	# namespace (the fault "unshare" leaves Landlock alone).
	PLAIN="$BASE/plain"
	mkdir -p "$PLAIN"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$PLAIN" write)" \
		$(unprotected "$PLAIN"))
	SBX_CWD=$PLAIN
}

@test "the resource limits of a process outside cannot be changed, in every model" {
	kill -0 "$VICTIM"
	# Control: outside the sandbox the user changes them.
	outside prlimit "$VICTIM"
	# Under init: no such process in the sandbox's PID namespace.
	expect ESRCH prlimit "$VICTIM"
	# Without a PID namespace (a mount namespace alone; Landlock alone): refused.
	fexpect clone EPERM prlimit "$VICTIM"
	fexpect unshare EPERM prlimit "$VICTIM"
	# The command's own limits stay its own to change (pid 0 is the caller), in every model.
	expect OK prlimit 0
	fexpect clone OK prlimit 0
	fexpect unshare OK prlimit 0
	kill -0 "$VICTIM"
}

@test "the scheduling of a process outside cannot be changed, in every model" {
	local how
	kill -0 "$VICTIM"
	for how in scheduler attr param; do
		# Control: outside the sandbox the user moves it to the idle policy.
		outside sched "$how" "$VICTIM"
		expect ESRCH sched "$how" "$VICTIM"
		fexpect clone EPERM sched "$how" "$VICTIM"
		fexpect unshare EPERM sched "$how" "$VICTIM"
		# The command's own (pid 0, the caller) stays its own, in every model.
		expect OK sched "$how" 0
		fexpect clone OK sched "$how" 0
		fexpect unshare OK sched "$how" 0
	done
	kill -0 "$VICTIM"
}

# pgrp_try CMD...: in a process group of its own beside a process outside the sandbox, runs
# CMD..., which does OP WHICH WHO (0: the caller's own group, or user); prints its result, then
# that process's nice value and I/O class.
pgrp_try() {
	setsid -w sh -c 'sleep 300 3>&- & v=$!; "$@"; echo "nice $(ps -o ni= -p $v | tr -d " ")"; ionice -p $v; kill $v' sh "$@"
}

@test "the priority of processes outside cannot be lowered through the caller's process group or user" {
	local fault which who pre want
	# Control: outside the sandbox, a process lowers its whole group's priority.
	run pgrp_try "$P" setpriority 1 0
	echo "$output"
	[ "${lines[0]}" = OK ]
	[ "${lines[1]}" = "nice 19" ]
	run pgrp_try "$P" ioprio 2 0
	[ "${lines[0]}" = OK ]
	[ "${lines[2]}" = idle ]
	# Inside, in every model, the caller's group (1, 2) is refused. Its user (2, 3) is the
	# user's processes in the sandbox's PID namespace under init (allowed: the process outside
	# keeps its priority), every one of them without it (refused).
	for fault in none clone unshare; do
		pre=("$BIN/failinj" "$fault" --)
		if [ "$fault" = none ]; then pre=(); fi
		for which in 1 2; do
			want=EPERM
			if [ "$fault$which" = none2 ]; then want=OK; fi
			run pgrp_try "${pre[@]}" "$H" --sandbox-policy-cwd "$PLAIN" \
				--permission-profile "$PROFILE" -- "$P" setpriority "$which" 0
			echo "$fault setpriority $which: $output (want $want)"
			[ "${lines[0]}" = "$want" ]
			[ "${lines[1]}" = "nice 0" ]
		done
		for which in 2 3; do
			# IOPRIO_WHO_USER takes the uid itself: who 0 is root's processes.
			who=0
			if [ "$which" = 3 ]; then who=$(id -u); fi
			want=EPERM
			if [ "$fault$which" = none3 ]; then want=OK; fi
			run pgrp_try "${pre[@]}" "$H" --sandbox-policy-cwd "$PLAIN" \
				--permission-profile "$PROFILE" -- "$P" ioprio "$which" "$who"
			echo "$fault ioprio $which $who: $output (want $want)"
			[ "${lines[0]}" = "$want" ]
			[ "${lines[2]}" = "none: prio 0" ]
		done
	done
	# The command's own priority (which 0 and 1, who 0: the caller) stays its own.
	expect OK setpriority 0 0
	expect OK ioprio 1 0
	fexpect clone OK setpriority 0 0
	fexpect unshare OK setpriority 0 0
	fexpect unshare OK ioprio 1 0
}

@test "a process in the sandbox's PID namespace sets the priority of itself and of its own by pid" {
	# renice -p $$ and ionice -p $$: under init a pid names a process inside only.
	run sbx sh -c 'exec "$0" setpriority 0 $$' "$P"
	echo "self: $output"
	[ "$output" = OK ]
	run sbx sh -c 'exec "$0" ioprio 1 $$' "$P"
	echo "self: $output"
	[ "$output" = OK ]
	run sbx sh -c 'sleep 30 & "$0" setpriority 0 $!; kill $!' "$P"
	echo "child: $output"
	[ "$output" = OK ]
	# Without a PID namespace any pid but 0 is refused, the command's own included.
	run sbx_fault unshare "$PROFILE" sh -c 'exec "$0" setpriority 0 $$' "$P"
	echo "self under unshare: $output"
	[ "$output" = EPERM ]
	run sbx_fault clone "$PROFILE" sh -c 'exec "$0" ioprio 1 $$' "$P"
	echo "self under clone: $output"
	[ "$output" = EPERM ]
}
