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

@test "the CPUs a process outside may run on cannot be changed, in every model" {
	kill -0 "$VICTIM"
	# Control: outside the sandbox the user sets them (sched_setaffinity: taskset -p).
	outside affinity "$VICTIM"
	expect ESRCH affinity "$VICTIM"
	# Without a PID namespace Landlock has no rule for it: the command would pin the user's
	# other processes to one CPU.
	fexpect clone EPERM affinity "$VICTIM"
	fexpect unshare EPERM affinity "$VICTIM"
	# The command's own (pid 0, the caller) stays its own, in every model.
	expect OK affinity 0
	fexpect clone OK affinity 0
	fexpect unshare OK affinity 0
	kill -0 "$VICTIM"
}

# sleep_base PID: the start of the first mapping of PID once it is sleep's own file. Until its
# execve has mapped sleep, the child of '&' shows the maps of the shell it was forked from (or
# only a stack), and a byte read at that address is EFAULT once sleep runs. Gives up (prints
# nothing) after 1000 reads. The same function, for the shell inside the sandbox.
sleep_base_sh='sleep_base() {
	local s i=0 a=""
	s=$(readlink -f "$(command -v sleep)")
	while [ -z "$a" ] && [ "$i" -lt 1000 ]; do
		a=$(sed -n "1s|-.* $s\$||p" "/proc/$1/maps")
		i=$((i + 1))
	done
	echo "$a"
}'
eval "$sleep_base_sh"

@test "the calls the kernel checks as ptrace are Landlock's: refused outside, allowed inside, in every model" {
	local how addr
	kill -0 "$VICTIM"
	# process_vm_readv and _writev, kcmp, pidfd_getfd, move_pages and migrate_pages,
	# get_robust_list (process_madvise needs CAP_SYS_NICE besides, which the sandbox drops).
	# The start of the victim's first mapping, read outside: a byte there exists.
	addr=$(sleep_base "$VICTIM")
	[ -n "$addr" ]
	for how in vm_readv kcmp getfd move_pages robust; do
		# Control: outside the sandbox the user's process reaches its other one.
		outside ptrace-checked "$how" "$VICTIM" "$addr"
		expect ESRCH ptrace-checked "$how" "$VICTIM" "$addr"
		# Without a PID namespace: Landlock's ptrace rule (no seccomp rule names them).
		fexpect clone EPERM ptrace-checked "$how" "$VICTIM" "$addr"
		fexpect unshare EPERM ptrace-checked "$how" "$VICTIM" "$addr"
	done
	# Inside, a process of the sandbox reaches another (its child) in every model.
	local child="sleep 30 3>&- & $sleep_base_sh"'
		a=$(sleep_base $!)
		for h in vm_readv kcmp getfd move_pages robust; do
			printf "%s " "$h $("$0" ptrace-checked $h $! $a)"; done; kill $!'
	local want='vm_readv OK kcmp OK getfd OK move_pages OK robust OK '
	run sbx sh -c "$child" "$P"
	echo "init, a child: $output"
	[ "$output" = "$want" ]
	run sbx_fault clone "$PROFILE" sh -c "$child" "$P"
	echo "clone, a child: $output"
	[ "$output" = "$want" ]
	run sbx_fault unshare "$PROFILE" sh -c "$child" "$P"
	echo "unshare, a child: $output"
	[ "$output" = "$want" ]
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

# The caller's process group. A PID namespace leaves process groups as they are: kill(0) in the
# sandbox would signal every member of the caller's group, those outside it too (the caller's
# script, an agent that started sbxrun without a group of its own, the supervisor). Without a
# controlling terminal the sandbox has a group of its own; a terminal's job keeps the caller's,
# and there Landlock's signal scope or, without it, seccomp (EPERM) keeps kill(0) in.
PTY="$BATS_TEST_DIRNAME/../enforce/ptyrun.py"
COUNT="$BATS_TEST_DIRNAME/../enforce/sigcount.py"

# caller_try TTY FAULT CMD...: the caller's script, in a group beside a process of its own and
# trapping SIGWINCH (harmless where it lands), runs CMD... through the helper under FAULT (none:
# no fault; outside: CMD without the sandbox, the control), without a controlling terminal (TTY
# no) or as a terminal's foreground job (pty). CMD sees the caller's process group id in $PG.
caller_try() {
	local tty=$1 fault=$2 script
	shift 2
	local cmd=("$BIN/failinj" "$fault" -- "$H" --sandbox-policy-cwd "$PLAIN" \
		--permission-profile "$PROFILE" -- "$@")
	if [ "$fault" = none ]; then cmd=("${cmd[@]:3}"); fi
	if [ "$fault" = outside ]; then cmd=("$@"); fi
	script='trap "echo caller got WINCH" WINCH; sleep 300 3>&- & v=$!
		export PG=$(ps -o pgid= -p $$ | tr -d " "); "$@"; echo "status $?"; kill $v'
	if [ "$tty" = pty ]; then
		python3 "$PTY" -- bash -c "$script" bash "${cmd[@]}"
	else
		setsid -w bash -c "$script" bash "${cmd[@]}"
	fi
}

# In the sandbox: a shell trapping SIGWINCH sends it to its process group (kill pid 0).
KILL0=(sh -c 'trap "echo inside got WINCH" WINCH; "$0" kill 0 28; echo done')

@test "kill(0) in the sandbox reaches no process of the caller's group, with or without Landlock" {
	local tty fault
	# Control: outside the sandbox, the same kill reaches the caller, at a terminal or not.
	for tty in no pty; do
		run caller_try "$tty" outside "$P" kill 0 28
		echo "outside, tty $tty: $output"
		[ "${lines[0]}" = OK ]
		[ "${lines[1]}" = "caller got WINCH" ]
	done
	for tty in no pty; do
		for fault in none landlock unshare; do
			run caller_try "$tty" "$fault" "${KILL0[@]}" "$P"
			echo "tty $tty, fault $fault: $output"
			[[ "$output" != *caller* ]]
			[[ "$output" == *"status 0"* ]]
		done
	done
}

@test "without a terminal kill(0) reaches the sandbox's own processes, whether Landlock scopes signals or not" {
	local fault
	for fault in none landlock; do
		run caller_try no "$fault" "${KILL0[@]}" "$P"
		echo "fault $fault: $output"
		[ "${lines[0]}" = OK ]
		[ "${lines[1]}" = "inside got WINCH" ]
		[ "${lines[2]}" = done ]
		[ "${lines[3]}" = "status 0" ]
	done
}

@test "without a PID namespace the sandbox keeps the caller's group: its SIGKILL ends what the command started" {
	local mark="$PLAIN/started" n=$((300 + RANDOM % 600))$$ st=0
	# Run 1 would leave its children behind if the sandbox were a group of its own: no init
	# ends them there, and sbxrun, killed, cannot. In the caller's group they die with it.
	# (Their output goes nowhere: a child left behind must fail the test, not hold its pipe.)
	# The caller kills its whole group (as timeout does) once both children run, not after a
	# fixed time that a slow start outruns.
	rm -f "$mark"
	setsid -w sh -c '"$@" & i=0
		until { pgrep -xf "sleep $0.1" && pgrep -xf "sleep $0.2"; } >/dev/null || [ $i -ge 1500 ]; do
			sleep 0.02
			i=$((i + 1))
		done
		kill -KILL 0' "$n" "$BIN/failinj" unshare -- "$H" --sandbox-policy-cwd \
		"$PLAIN" --permission-profile "$PROFILE" -- sh -c \
		"sleep $n.1 & sleep $n.2 & : >'$mark'; wait" >/dev/null 2>&1 || st=$?
	echo "status $st"
	[ "$st" -eq 137 ]
	[ -e "$mark" ]
	# (A SIGKILL takes effect when its target next runs, a while later under load: the children
	# are given ten seconds to go, which does not save one left behind, a sleep of minutes.)
	await_gone "sleep $n[.]" || true
	run pgrep -f "sleep $n[.]"
	echo "left: $output"
	pkill -f "sleep $n[.]" || true
	[ "$status" -eq 1 ]
	# And explain says what keeps kill(0) in there: Landlock's scope, not a group of its own.
	run setsid -w "$BIN/failinj" unshare -- "$BIN/sbxrun" explain --cwd "$PLAIN" \
		--profile :read-only -- true
	echo "$output"
	[[ "$output" == *"signals and ptrace only inside the sandbox"*" landlock+seccomp "*enforced* ]]
}

@test "a terminal's job keeps the caller's group: Landlock scopes kill(0), or seccomp refuses it (EPERM)" {
	# With Landlock's signal scope (this kernel): it reaches the sandbox's own processes.
	run caller_try pty none "${KILL0[@]}" "$P"
	echo "$output"
	[ "${lines[0]}" = OK ]
	[ "${lines[1]}" = "inside got WINCH" ]
	# Without it: refused, so that it reaches nothing.
	run caller_try pty landlock "${KILL0[@]}" "$P"
	echo "$output"
	[ "${lines[0]}" = EPERM ]
	[ "${lines[1]}" = done ]
	# The group's id names nothing in the sandbox's PID namespace (its leader is outside).
	run caller_try pty landlock sh -c '"$0" kill "-$PG" 28' "$P"
	echo "$output"
	[ "${lines[0]}" = ESRCH ]
	# Another process's own pid is not refused: kill(2) of the sandbox's own processes works.
	run caller_try pty landlock sh -c 'sleep 5 & "$0" kill $! 15' "$P"
	echo "$output"
	[ "${lines[0]}" = OK ]
}

@test "the reproducer: kill -TERM 0 ends the sandbox, not the caller's script" {
	local tty fault
	for tty in no pty; do
		for fault in none landlock; do
			# shellcheck disable=SC2016
			run caller_try "$tty" "$fault" sh -c 'trap "echo inside got TERM; exit 3" TERM; kill -TERM 0; sleep 1'
			echo "tty $tty, fault $fault: $output"
			[[ "$output" != *caller* ]]
		done
	done
	# Own group: the command got it (exit 3 from its trap).
	run caller_try no landlock sh -c 'trap "echo inside got TERM; exit 3" TERM; kill -TERM 0; sleep 1'
	[ "${lines[0]}" = "inside got TERM" ]
	[ "${lines[1]}" = "status 3" ]
}

@test "timeout(1) and Ctrl-C work inside, with a group of its own or a terminal's" {
	local tty fault
	for tty in no pty; do
		for fault in none landlock; do
			run caller_try "$tty" "$fault" timeout 1 sleep 5
			echo "tty $tty, fault $fault: $output"
			[[ "$output" == *"status 124"* ]]
		done
	done
	for fault in none landlock; do
		local pre=("$BIN/failinj" "$fault" --)
		if [ "$fault" = none ]; then pre=(); fi
		run python3 "$PTY" --after ready '\x03' -- "${pre[@]}" "$H" --sandbox-policy-cwd \
			"$PLAIN" --permission-profile "$PROFILE" -- sh -c 'echo ready; sleep 10'
		echo "Ctrl-C, fault $fault: $output"
		[[ "$output" == *status=130 ]]
	done
}

@test "in a group of its own, a signal to the caller's group or to sbxrun reaches the command once" {
	local out="$BATS_TEST_TMPDIR/out" target fault pid
	for fault in none landlock; do
		for target in group supervisor; do
			: >"$out"
			local pre=("$BIN/failinj" "$fault" --)
			if [ "$fault" = none ]; then pre=(); fi
			setsid "${pre[@]}" "$H" --sandbox-policy-cwd "$PLAIN" --permission-profile \
				"$PROFILE" -- python3 "$COUNT" SIGUSR1 >"$out" 3>&- &
			pid=$!
			for _ in $(seq 100); do grep -q ready "$out" && break; sleep 0.05; done
			grep -q ready "$out"
			if [ "$target" = group ]; then kill -USR1 -- "-$pid"; else kill -USR1 "$pid"; fi
			wait "$pid"
			echo "fault $fault, to the $target: $(cat "$out")"
			grep -qx count=1 "$out"
		done
	done
}

@test "explain names what keeps kill(0) in: its own group, Landlock's scope, or seccomp" {
	local row='signals and ptrace only inside the sandbox'
	run setsid -w "$BIN/sbxrun" explain --cwd "$PLAIN" --profile :read-only -- true
	echo "$output"
	[[ "$output" == *"$row"*"landlock+pid-namespace+process-group"*enforced* ]]
	run setsid -w "$BIN/failinj" landlock -- "$BIN/sbxrun" explain --cwd "$PLAIN" --profile :read-only -- true
	[[ "$output" == *"$row"*" pid-namespace+seccomp+process-group"*enforced* ]]
	# A terminal's job: the caller's group, and what refuses kill(0) there.
	run python3 "$PTY" -- "$BIN/sbxrun" explain --cwd "$PLAIN" --profile :read-only -- true
	echo "$output"
	[[ "$output" == *"$row"*"landlock+pid-namespace "*enforced* ]]
	[[ "$output" == *"Landlock's signal scope refuses them"* ]]
	run python3 "$PTY" -- "$BIN/failinj" landlock -- "$BIN/sbxrun" explain --cwd "$PLAIN" \
		--profile :read-only -- true
	echo "$output"
	[[ "$output" == *"$row"*" pid-namespace+seccomp "*enforced* ]]
	[[ "$output" == *"seccomp refuses kill(0), and signal-driven I/O (O_ASYNC, F_SETSIG)"* ]]
}

@test "a terminal's job names the caller's group by no other call (kill, tgkill, sigqueue, F_SETOWN, setpgid)" {
	local names="$BATS_TEST_DIRNAME/pgrpnames.py"
	# Control: outside the sandbox each of them reaches it.
	run caller_try pty outside python3 "$names"
	echo "$output"
	[ "${lines[0]}" = "kill OK" ]
	[ "${lines[1]}" = "tgkill OK" ]
	[ "${lines[2]}" = "rt_sigqueueinfo OK" ]
	[ "${lines[3]}" = "F_SETOWN OK" ]
	[ "${lines[4]}" = "F_SETOWN_EX OK" ]
	[ "${lines[5]}" = "setpgid OK" ]
	# Inside, without Landlock's signal scope: the group and its leader have no pid there.
	run caller_try pty landlock python3 "$names"
	echo "$output"
	[ "${lines[0]}" = "kill ESRCH" ]
	[ "${lines[1]}" = "tgkill ESRCH" ]
	[ "${lines[2]}" = "rt_sigqueueinfo ESRCH" ]
	[ "${lines[3]}" = "F_SETOWN ESRCH" ]
	[ "${lines[4]}" = "F_SETOWN_EX ESRCH" ]
	[ "${lines[5]}" = "setpgid EPERM" ]
	[[ "$output" != *caller* ]]
}

# tty_caller HOW FAULT CMD...: the caller's script at a terminal runs CMD (run 1) through
# sbxrun under FAULT (none: no fault; outside: CMD without the sandbox, the control), as the
# terminal's foreground job (HOW pty) or with the terminal as its input but not as its
# controlling terminal (HOW setsid: sbxrun in a session of its own, the sandbox in a group of
# its own). It then says "armed", and once a line is typed run 2 reads it in the sandbox.
tty_caller() {
	local how=$1 fault=$2 script
	shift 2
	local cmd=("$BIN/failinj" "$fault" -- "$BIN/sbxrun" -C "$PLAIN" -- "$@")
	if [ "$fault" = none ]; then cmd=("${cmd[@]:3}"); fi
	if [ "$fault" = outside ]; then cmd=("$@"); fi
	if [ "$how" = setsid ]; then cmd=(setsid -w "${cmd[@]}"); fi
	# shellcheck disable=SC2016
	script='ws=$1; shift; "$@"; echo armed
		"$0" -C "$ws" -- sh -c "read -r l; echo \"run 2 read \$l\""; echo "caller alive"'
	python3 "$PTY" --after armed 'x\n' -- bash -c "$script" "$BIN/sbxrun" "$PLAIN" "${cmd[@]}" \
		2>&1
}

@test "run 1 cannot arm the terminal's SIGIO for the caller's group: keys typed later kill nothing" {
	local arm="$BATS_TEST_DIRNAME/asyncio.py" how
	# Control: outside the sandbox the next key typed kills the caller's script (SIGKILL).
	run tty_caller pty outside python3 "$arm"
	echo "$output"
	[ "${lines[0]}" = "F_SETSIG OK" ]
	[ "${lines[1]}" = "F_SETFL OK" ]
	[[ "$output" != *"caller alive"* ]]
	[[ "$output" == *"status=137"* ]]
	for how in pty setsid; do
		# Landlock's signal scope (this kernel): allowed, the signal goes nowhere outside.
		run tty_caller "$how" none python3 "$arm"
		echo "$how, Landlock: $output"
		[ "${lines[0]}" = "F_SETSIG OK" ]
		[ "${lines[1]}" = "F_SETFL OK" ]
		[ "${lines[2]}" = "FIOASYNC OK" ]
		[[ "$output" == *"run 2 read x"* ]]
		[[ "$output" == *"caller alive"* ]]
		# Without it (init, seccomp): each way is refused, and run 2 reads what is typed.
		run tty_caller "$how" landlock python3 "$arm"
		echo "$how, no Landlock: $output"
		[ "${lines[0]}" = "F_SETSIG EPERM" ]
		[ "${lines[1]}" = "F_SETFL EPERM" ]
		[ "${lines[2]}" = "FIOASYNC EPERM" ]
		[[ "$output" == *"run 2 read x"* ]]
		[[ "$output" == *"caller alive"* ]]
		[[ "$output" == *"status=0"* ]]
	done
	# Positive control: a descriptor flag beside it is the command's to set.
	run tty_caller pty landlock python3 -c 'import fcntl, os; fcntl.fcntl(0, fcntl.F_SETFL, os.O_NONBLOCK); print("nonblock OK")'
	echo "$output"
	[ "${lines[0]}" = "nonblock OK" ]
}
