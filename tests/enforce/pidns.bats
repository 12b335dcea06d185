#!/usr/bin/env bats
# The process model of platform/linux/sandbox.h, through spawn-demo (tests/enforce/spawn_demo.c):
# the supervisor, init in new PID and IPC namespaces, the private /dev and /proc, and the
# subreaper variant without namespaces. Each refusal beside its positive control.
load common
bats_require_minimum_version 1.5.0

D="$BIN/spawn-demo"
PTY="$BATS_TEST_DIRNAME/ptyrun.py"
COUNT="$BATS_TEST_DIRNAME/sigcount.py"

setup() {
	# A sleep argument no other process has: how daemons are found (the pid at a fixed width, so
	# that no tag of another live test, the other user's pass among them, begins with this one).
	TAG="86399.$(printf %07d $$)$RANDOM"
	IPC_KEY=
	IPC_MADE=()
}
teardown() {
	pkill -KILL -f "sleep $TAG" 2>/dev/null || true
	# The outside IPC objects this test made (the case's checks may fail after any of them).
	local kind
	for kind in "${IPC_MADE[@]}"; do
		case $kind in
		shm) ipcrm -M "$IPC_KEY" ;;
		msg) ipcrm -Q "$IPC_KEY" ;;
		sem) ipcrm -S "$IPC_KEY" ;;
		mq) python3 -c 'import ctypes, sys; ctypes.CDLL(None).mq_unlink(b"/sbx-%d" % int(sys.argv[1]))' "$IPC_KEY" ;;
		esac
	done
}

# wait_for CMD...: polls CMD for up to five seconds.
wait_for() {
	for _ in $(seq 100); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
running() { pgrep -f "sleep $TAG" >/dev/null; }
# status_of PID: waits for the background job PID and sets st to its exit status.
status_of() {
	st=0
	wait "$1" || st=$?
}
gone() { ! running; }

@test "exit status N and death by signal S pass through as N and 128+S" {
	for n in 0 1 42 255; do
		run "$D" -- sh -c "exit $n"
		echo "exit $n -> $status"
		[ "$status" -eq "$n" ]
	done
	for sig in TERM KILL SEGV; do
		run "$D" -- sh -c "kill -$sig \$\$"
		want=$((128 + $(kill -l "$sig")))
		echo "$sig -> $status (want $want)"
		[ "$status" -eq "$want" ]
	done
	# The subreaper variant too.
	run "$D" --subreaper -- sh -c 'exit 42'
	[ "$status" -eq 42 ]
	run "$D" --subreaper -- sh -c 'kill -SEGV $$'
	[ "$status" -eq 139 ]
}

@test "a command that cannot be executed: 127 and 126 with the usual words" {
	run -127 "$D" -- no-such-command-here
	[ "$status" -eq 127 ]
	[ "$output" = "sbxrun: no-such-command-here: command not found" ]
	run -126 "$D" -- /etc/passwd
	[ "$status" -eq 126 ]
	[ "$output" = "sbxrun: /etc/passwd: cannot execute: Permission denied" ]
}

@test "a sandbox that cannot be applied: 125, its message, and the command never runs" {
	for variant in "" --subreaper; do
		run -125 "$D" $variant --fail -- sh -c 'echo ran'
		[ "$output" = "sbxrun: the sandbox could not be applied (--fail)" ]
	done
	# Control: the same command runs when it can.
	run "$D" -- sh -c 'echo ran'
	[ "$output" = ran ]
}

@test "closed standard streams stay closed for the command and cost nothing else" {
	for variant in "" --subreaper; do
		# Not through run, which gives the command a stdout of its own.
		run timeout -k 5 20 sh -c "'$D' $variant -- sh -c 'for fd in 0 1; do test -e /proc/self/fd/\$fd || echo \"\$fd closed\" >&2; done; exit 3' <&- >&-"
		echo "variant '$variant': $status $output"
		[ "$status" -eq 3 ]
		[ "$output" = "$(printf '0 closed\n1 closed')" ]
		# A signal still reaches the command through the supervisor.
		# (A nap of this test's own length: the other user's pass may be in this case too.)
		"$D" $variant -- sh -c "trap 'exit 7' TERM; while :; do sleep 0.05$$; done" <&- >&- 3>&- &
		pid=$!
		wait_for pgrep -f "^sleep 0[.]05$$\$" >/dev/null # the trap is set by then
		kill -TERM "$pid"
		status_of "$pid"
		[ "$st" -eq 7 ]
	done
}

@test "kill -TERM of the supervisor reaches the command (trap, exit 7)" {
	for variant in "" --subreaper; do
		out="$BATS_TEST_TMPDIR/out"
		: >"$out"
		"$D" $variant -- sh -c 'trap "exit 7" TERM; echo ready; while :; do sleep 0.05; done' \
			>"$out" 3>&- &
		pid=$!
		wait_for grep -q ready "$out"
		kill -TERM "$pid"
		status_of "$pid"
		echo "variant '$variant': status $st"
		[ "$st" -eq 7 ]
	done
}

@test "a signal the command sends its own process group is not forwarded back to it" {
	# kill(0) reaches the supervisor too (same process group): one delivery, not two.
	run setsid -w python3 "$COUNT" SIGUSR1 --kill-group
	[ "$output" = "$(printf 'ready\ncount=1')" ]
	for variant in "" --subreaper; do
		run setsid -w "$D" $variant -- python3 "$COUNT" SIGUSR1 --kill-group
		echo "variant '$variant': $output"
		[ "$output" = "$(printf 'ready\ncount=1')" ]
	done
}

@test "a signal sent to the whole process group reaches the command once" {
	out="$BATS_TEST_TMPDIR/out"
	for target in group supervisor; do
		: >"$out"
		setsid "$D" -- python3 "$COUNT" SIGUSR1 >"$out" 3>&- &
		pid=$!
		wait_for grep -q ready "$out"
		if [ $target = group ]; then kill -USR1 -- "-$pid"; else kill -USR1 "$pid"; fi
		wait "$pid"
		echo "to the $target: $(cat "$out")"
		grep -qx count=1 "$out"
	done
}

@test "a signal sent while the sandbox is being set up is not lost" {
	# Sent to the supervisor or its process group at once, over and over at varying moments:
	# the run must end by it (7 from the trap, or 143 before the trap was set), never wait
	# out the sleep.
	for i in $(seq 10); do
		for target in group supervisor; do
			SECONDS=0
			setsid "$D" -- sh -c 'trap "exit 7" TERM; sleep 20 & wait' 3>&- &
			pid=$!
			sleep "0.0$i"
			# The group exists once setsid(1) has made it.
			if [ $target = group ]; then
				until kill -TERM -- "-$pid" 2>/dev/null; do sleep 0.01; done
			else
				kill -TERM "$pid"
			fi
			status_of "$pid"
			echo "$i $target: status $st after ${SECONDS}s"
			[ "$st" -eq 7 ] || [ "$st" -eq 143 ]
			[ "$SECONDS" -lt 10 ]
		done
	done
}

@test "kill -KILL of the supervisor leaves no process of the sandbox alive" {
	"$D" -- sh -c "sleep $TAG & wait" 3>&- &
	pid=$!
	# The positive control: the marker runs inside (its whole line: the supervisor's and the
	# shell's lines hold "sleep $TAG" too, from before the sandbox is made).
	wait_for pgrep -xf "sleep $TAG" >/dev/null
	kill -KILL "$pid"
	wait "$pid" || true
	# Gone: polled for up to ten seconds (a SIGKILL takes effect when its target next runs, a
	# while later under load; what outlives the sandbox is a sleep of a day).
	for _ in $(seq 200); do gone && break; sleep 0.05; done
	gone
}

@test "a daemon the command leaves behind is gone after the run (PID namespace, subreaper)" {
	# Control: without the sandbox, a double-forked daemon outlives its parent.
	sh -c "(setsid sleep $TAG &)"
	wait_for running
	pkill -KILL -f "sleep $TAG"
	wait_for gone
	# Inside, the command ends (3) once the daemon runs the sleep: pgrep -x, as the command's
	# own line holds "sleep $TAG" too, and would match before the daemon ran anything.
	for variant in "" --subreaper; do
		run "$D" $variant --on-exit "sleep $TAG" -- sh -c \
			"(setsid sleep $TAG &); for i in \$(seq 500); do pgrep -xf 'sleep $TAG' >/dev/null && exit 3; sleep 0.02; done"
		echo "variant '$variant': $output"
		[ "$status" -eq 3 ] # the daemon was running inside
		[[ "$output" == *"on-exit: 0 left, wait status 0x300"* ]]
		gone
	done
}

@test "started with SIGCHLD ignored, the end is still seen; the command keeps the disposition" {
	# Ignored signals stay ignored across execve: python shows what the command got.
	show='import signal, sys; print(signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN); sys.exit(4)'
	run timeout -k 5 20 python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' python3 -c "$show"
	[ "$status" -eq 4 ]
	[ "$output" = True ] # the control
	for variant in "" --subreaper; do
		run timeout -k 5 20 python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' "$D" $variant -- python3 -c "$show"
		echo "variant '$variant': $status $output"
		[ "$status" -eq 4 ]
		[ "$output" = True ]
	done
}

@test "stdin passes through" {
	run sh -c "echo hi | '$D' -- cat"
	[ "$output" = hi ]
	run sh -c "echo hi | '$D' --subreaper -- cat"
	[ "$output" = hi ]
}

@test "at a terminal: stdin, /dev/tty and ioctls as without the sandbox" {
	script='test -t 0 && echo stdin-is-tty; echo ready; read x; echo "got $x"; : </dev/tty && echo devtty-ok; stty size >/dev/null && echo stty-ok'
	run python3 "$PTY" --after ready 'hello\n' -- sh -c "$script"
	outside=$output
	echo "$outside"
	[[ "$outside" == *"got hello"*devtty-ok*stty-ok*status=0 ]]
	run python3 "$PTY" --after ready 'hello\n' -- "$D" -- sh -c "$script"
	echo "$output"
	[ "$output" = "$outside" ]
}

@test "at a terminal: its own name inside, the same node; no other terminal of the user; new ptys work" {
	local own other fresh="$BATS_TEST_TMPDIR/fresh.py"
	echo 'import os; m, s = os.openpty(); os.write(s, b"ping\n"); print(os.ttyname(s), os.read(m, 9))' >"$fresh"
	# Another terminal of the same user, held open outside while the sandbox runs.
	exec 4< <(python3 -c 'import os, time; m, s = os.openpty(); print(os.ttyname(s), flush=True); time.sleep(30)')
	read -r other <&4
	[ -c "$other" ]
	for flags in "" --attach-first; do
		run python3 "$PTY" -- sh -c "tty; stat -Lc %d:%i /dev/stdin; $D $flags -- sh -c 'tty; stat -c %d:%i \$(tty); ls -1A /dev/pts; $P open-tty \$(tty); $P open-tty $other'"
		echo "$flags: $output"
		own=${lines[0]}
		[[ "$own" == /dev/pts/* ]]
		# tty names the terminal as outside, and the name is the very node on stdin.
		[ "${lines[2]}" = "$own" ]
		[ "${lines[3]}" = "${lines[1]}" ]
		[ "${lines[4]}" = "${own#/dev/pts/}" ]
		[ "${lines[5]}" = ptmx ]
		# Its own terminal opens by name (the control); the other one has no name inside.
		[ "${lines[6]}" = OK ]
		[ "${lines[7]}" = ENOENT ]
		# The command's new pty: the lowest index free in its instance, not its terminal's (this
		# run's terminal: the other user's pass may hold the index the first run had).
		run python3 "$PTY" -- sh -c "tty; $D $flags -- python3 $fresh"
		echo "$flags: $output"
		[[ "${lines[0]}" == /dev/pts/* ]]
		[[ "${lines[1]}" == "/dev/pts/"[0-9]*" b'ping\r\n'" ]]
		[ "${lines[1]%% *}" != "${lines[0]}" ]
	done
	exec 4<&-
}

@test "at a terminal: the name stays once init has closed what it does not use" {
	# Init closes every descriptor it does not use once the command runs, but for the master
	# that holds the terminal's name in the sandbox's pts instance: closed, the name is gone
	# (tty: not a tty) for a command that asks a moment after it started.
	for cmd in "$D" "$BIN/sbxrun -C $BATS_TEST_TMPDIR -w $BATS_TEST_TMPDIR"; do
		run python3 "$PTY" -- sh -c "tty; $cmd -- sh -c 'sleep 0.5; tty; ls -1A /dev/pts'"
		echo "$cmd: $output"
		[[ "${lines[0]}" == /dev/pts/* ]]
		[ "${lines[1]}" = "${lines[0]}" ]
		[ "${lines[2]}" = "${lines[0]#/dev/pts/}" ]
		# New ptys the command opens itself still work, with their names.
		run python3 "$PTY" -- $cmd -- python3 -c 'import os, time; time.sleep(0.5); m, s = os.openpty(); print(os.ttyname(s))'
		[[ "${lines[0]}" == /dev/pts/[0-9]* ]]
	done
}

@test "at a terminal of index 256 or more: its own name inside, the device (136, N)" {
	local hold="$BATS_TEST_TMPDIR/hold.py" own
	# 256 other terminals of the user held open outside: the terminal's index is 256 or more.
	cat >"$hold" <<-'EOF'
		import os, subprocess, sys
		held = [os.openpty() for _ in range(256)]
		sys.exit(subprocess.run(sys.argv[1:]).returncode)
	EOF
	for _ in 1 2 3 4 5; do
		run python3 "$hold" python3 "$PTY" -- sh -c "tty; stat -Lc '%t %T' /dev/stdin; $D -- tty"
		echo "$output"
		own=${lines[0]}
		[[ "$own" == /dev/pts/[0-9]* ]]
		# Another process (the other user's pass, at the same moment) may free a lower index
		# between the hold and the terminal's opening: this case needs one of 256 or more.
		[ "${own#/dev/pts/}" -lt 256 ] || break
	done
	[ "${own#/dev/pts/}" -ge 256 ]
	# The device is (136, N) (hexadecimal here), not (137, N - 256).
	[ "${lines[1]}" = "88 $(printf %x "${own#/dev/pts/}")" ]
	[ "${lines[2]}" = "$own" ]
}

@test "at a terminal: a name that is another pty than the terminal's is not bound in" {
	local hold="$BATS_TEST_TMPDIR/hold.py"
	# Run 1 prepares the ground: /dev/pts is another devpts instance (another user's, a
	# container's), where the terminal's index names a pty that is not the terminal.
	cat >"$hold" <<-'EOF'
		import os, subprocess, sys
		n, held = sys.argv[1], []
		while not held or os.ttyname(held[-1][1]) != "/dev/pts/" + n:
		    held.append(os.openpty())
		print("held", os.ttyname(held[-1][1]), flush=True)
		sys.exit(subprocess.run(sys.argv[2:]).returncode)
	EOF
	run python3 "$PTY" -- unshare -rm sh -c "n=\$(tty); n=\${n#/dev/pts/}; mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts && python3 $hold \$n $D -- sh -c 'tty; $P open-tty /dev/pts/'\$n"
	echo "$output"
	# Control: outside, in that namespace, the name is there, a pty of the new instance.
	[[ "${lines[0]}" == "held /dev/pts/"[0-9]* ]]
	# Run 2 holds: the terminal goes without a name rather than with another pty's.
	[ "${lines[1]}" = "not a tty" ]
	[ "${lines[2]}" = ENOENT ]
}

# A command killed by a signal (a full-screen program, `stty raw -echo` interrupted) would leave
# the caller's terminal as it had set it: the supervisor puts back the modes the command started
# with, as an interactive shell does for its job, when the command dies by a signal (its own, or
# one sbxrun relayed); one that exits keeps what it changed (what stty is for). The caller here
# is a script, which restores nothing by itself. A command that writes into a pipe is not the
# terminal's owner: a pager at the other end sets its modes before sbxrun starts (here: 0.5 s
# before) and puts them back when it quits, and the writer's SIGPIPE, which comes after, must not
# bring the pager's modes back. The relayed SIGTERM is sent once the command has turned echo off,
# not after a fixed time that a slow start outruns; each step starts from the caller's modes, so
# the wait is on this command's change (and on its process ID written), not on the step before.
@test "the terminal's modes: restored after death by a signal, kept after an exit" {
	local script='b=$(stty -g)
"$@" sh -c "stty raw -echo; kill -KILL \$\$"; echo "killed=$?"
a=$(stty -g); [ "$a" = "$b" ] && echo killed-same || echo killed-differ
stty "$b"; p=$(mktemp); (i=0; until { [ -s "$p" ] && stty -a </dev/tty | grep -q -- " -echo "; } || [ $i -ge 1500 ]; do sleep 0.02; i=$((i+1)); done; kill -TERM "$(cat "$p")") & sh -c "echo \$\$ >\"$p\"; exec \"\$@\"" sh "$@" sh -c "stty -echo; echo up; exec sleep 5"; echo "termed=$?"; rm -f "$p"
a=$(stty -g); [ "$a" = "$b" ] && echo termed-same || echo termed-differ
stty "$b"; sh -c "sleep 0.5; exec \"\$@\"" sh "$@" env --default-signal=PIPE yes | sh -c "o=\$(stty -g </dev/tty); stty -echo -icanon </dev/tty; head -c 100000 >/dev/null; stty \"\$o\" </dev/tty"
a=$(stty -g); [ "$a" = "$b" ] && echo piped-same || echo piped-differ
"$@" stty -echo; echo "exited=$?"
a=$(stty -g); [ "$a" = "$b" ] && echo exited-same || echo exited-differ
stty -a | grep -o -- "-echo " | head -n 1'
	# The control: without sbxrun, a script's terminal keeps what the killed command set.
	run python3 "$PTY" -- sh -c "$script" sh env
	echo "$output"
	[[ "$output" == *killed=137*killed-differ*termed=143*termed-differ*piped-same*exited=0*exited-differ*"-echo "*status=0 ]]
	mkdir -p "$WORK/tty"
	for variant in "$D --" "$D --subreaper --" "$BIN/sbxrun -C $WORK/tty --"; do
		run python3 "$PTY" -- sh -c "$script" sh $variant
		echo "variant '$variant': $output"
		[[ "$output" == *killed=137*killed-same*termed=143*termed-same*piped-same*exited=0*exited-differ*"-echo "*status=0 ]]
	done
}

@test "Ctrl-C interrupts the command once, not twice" {
	run python3 "$PTY" --after ready '\x03' -- python3 "$COUNT" SIGINT
	echo "$output"
	[[ "$output" == *count=1* ]]
	for variant in "" --subreaper; do
		run python3 "$PTY" --after ready '\x03' -- "$D" $variant -- python3 "$COUNT" SIGINT
		echo "variant '$variant': $output"
		[[ "$output" == *count=1* ]]
	done
	# Uncaught, it ends the command, and the supervisor dies of it too (130).
	run python3 "$PTY" --after ready '\x03' -- "$D" -- sh -c 'echo ready; sleep 10'
	[[ "$output" == *status=130 ]]
}

# stop_job FILE: writes FILE, a job for the Ctrl-Z cases. It prints its first argument, lasts
# until it is continued (SIGCONT, blocked so that it stays pending), not for a fixed time that
# a slow Ctrl-Z outruns (then nothing is stopped), and prints the rest only then: after ten
# seconds without a SIGCONT it says so and prints nothing else, so that a broken case ends, and
# fails. One process, as a sleep is: the job stops whole at once.
stop_job() {
	cat >"$1" <<-'EOF'
		import signal, sys
		signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGCONT])
		print(sys.argv[1], flush=True)
		if signal.sigtimedwait([signal.SIGCONT], 10) is None:
		    sys.exit("no SIGCONT in 10 s")
		print(*sys.argv[2:], sep="\n")
	EOF
}

@test "Ctrl-Z stops the sandbox as one job and fg continues it" {
	local job="$BATS_TEST_TMPDIR/job.py"
	stop_job "$job"
	# The marks are computed, so that the echo of the typed line does not match them.
	run python3 "$PTY" --after 'PROMPT>' \
		"'$D' -- python3 '$job' \$((40+2))-started \$((40+3))-finished\n" \
		--after 42-started '\x1a' --after Stopped 'fg\n' --after 43-finished 'exit\n' \
		-- env PS1='PROMPT> ' bash --norc --noprofile -i
	echo "$output"
	[[ "$output" == *42-started*Stopped*43-finished* ]]
	[[ "$output" == *status=0 ]]
}

@test "fg, bg and a SIGCONT to the whole group continue the command once, as in place" {
	# The supervisor forwards a SIGCONT it is sent (a command that stopped itself goes on), but
	# one the command got itself, as a member of the group, must not come twice: a handler
	# (a full-screen program's redraw) would run twice. The control: the same in place.
	for variant in place "" --subreaper; do
		pre=("$D" $variant --)
		[ "$variant" != place ] || pre=()
		for how in fg bg; do
			run python3 "$PTY" --after 'PROMPT>' "${pre[*]} python3 '$COUNT' SIGCONT\n" \
				--after ready '\x1a' --after Stopped "$how\\n" \
				--after count= 'wait; exit\n' \
				-- env PS1='PROMPT> ' bash --norc --noprofile -i
			echo "variant '$variant', $how: $output"
			[[ "$output" == *count=1* ]]
		done
		# Without a terminal: kill -CONT of the group (timeout(1) sends one after its SIGTERM).
		out="$BATS_TEST_TMPDIR/out"
		: >"$out"
		setsid "${pre[@]}" python3 "$COUNT" SIGCONT >"$out" 3>&- &
		pid=$!
		wait_for grep -q ready "$out"
		kill -CONT -- "-$pid"
		wait "$pid"
		echo "variant '$variant', the group: $(cat "$out")"
		grep -qx count=1 "$out"
	done
}

@test "an interactive shell inside manages its own jobs: Ctrl-Z and fg" {
	local job="$BATS_TEST_TMPDIR/job.py"
	stop_job "$job"
	# The job says it runs (a computed mark, unlike the echo of the typed line) before ^Z.
	run python3 "$PTY" --after 'P>' "python3 '$job' \$((40+1))-running \$((40+3))-continued\n" \
		--after 41-running '\x1a' --after Stopped 'fg\n' \
		--after 'P>' 'echo $((6*7))-ok; exit\n' \
		-- "$D" -- env PS1='P> ' bash --norc --noprofile -i
	echo "$output"
	[[ "$output" == *41-running*Stopped*43-continued*42-ok* ]]
	[[ "$output" == *status=0 ]]
}

@test "/proc lists only the sandbox's processes" {
	# Control: outside, this shell and the supervisor are listed.
	[ -d "/proc/$$" ]
	run sh -c "echo \$\$; exec '$D' -- sh -c 'echo \$SBX_DEMO_PROC; ls /proc | grep -c \"^[0-9]\"; test -e /proc/$$ || echo no-bats-shell'"
	echo "$output"
	sup=${lines[0]}
	[ "${lines[1]}" = fresh ]
	[ "${lines[2]}" -le 5 ]
	[ "${lines[3]}" = no-bats-shell ]
	run "$D" -- sh -c "test -e /proc/$sup && echo seen || echo absent"
	[ "$output" = absent ]
	# Kernel knobs stay read-only inside; the same when built in place.
	for flags in "" --attach-first; do
		run "$D" $flags -- sh -c 'echo $SBX_DEMO_PROC; ls /proc | grep -c "^[0-9]"'
		[ "${lines[0]}" = fresh ]
		[ "${lines[1]}" -le 5 ]
		run "$D" $flags -- sh -c 'echo 1 >/proc/sys/kernel/ns_last_pid'
		[[ "$output" == *"Read-only file system"* ]]
		run "$D" $flags -- grep -c ' /proc/sys ro,nosuid,nodev,noexec' /proc/self/mountinfo
		[ "$output" = 1 ]
	done
}

@test "init holds no capability, and neither its memory nor its descriptors are reachable" {
	run "$D" -- cat /proc/1/status
	grep -qx 'CapEff:	0000000000000000' <<<"$output"
	grep -qx 'CapPrm:	0000000000000000' <<<"$output"
	grep -qx 'NoNewPrivs:	1' <<<"$output"
	run "$D" -- sh -c 'readlink /proc/self/fd/2 >/dev/null && echo own-ok; readlink /proc/1/fd/2 || echo denied'
	echo "$output"
	[ "$output" = "$(printf 'own-ok\ndenied')" ]
	run "$D" -- sh -c 'head -c1 /proc/1/mem'
	[[ "$output" == *"Permission denied"* ]]
}

@test "where the kernel refuses a new /proc (masked paths), the host's stays and is reported" {
	if [ "$SBX_USER" = root ]; then pre=(unshare -m); else pre=(unshare -Urm); fi
	# Control: the same with nothing masked gives a fresh /proc.
	run "${pre[@]}" "$D" --userns -- sh -c 'echo $SBX_DEMO_PROC'
	[ "$output" = fresh ]
	run "${pre[@]}" sh -c "mount --bind /dev/null /proc/uptime && '$D' --userns -- sh -c 'echo \$SBX_DEMO_PROC; ls /proc | grep -c \"^[0-9]\"'"
	echo "$output"
	[ "${lines[0]}" = host ]
	[ "${lines[1]}" -gt 5 ]
}

@test "System V and POSIX IPC objects of an outside process are unreachable" {
	IPC_KEY=$(ipc_key 0x5b000000)
	key=$IPC_KEY
	ipc=$BATS_TEST_DIRNAME/ipc.py
	for kind in shm msg sem mq; do
		run python3 "$ipc" "$kind-create" "$key"
		[ "$output" = OK ]
		IPC_MADE+=("$kind")
		# Control: another process outside reaches it.
		run python3 "$ipc" "$kind" "$key"
		[ "$output" = OK ]
		run "$D" -- python3 "$ipc" "$kind" "$key"
		echo "$kind inside: $output"
		[ "$output" = ENOENT ]
		# Inside, its own objects work.
		run "$D" -- python3 "$ipc" "$kind-create" "$key"
		[ "$output" = OK ]
	done
}

@test "/dev holds exactly the allow-list; no other host node or terminal is reachable" {
	for flags in "" --attach-first; do
		run "$D" $flags -- ls -A /dev
		[ "$(echo $output)" = "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero" ]
		run "$D" $flags -- ls -A /dev/pts
		[ "$output" = ptmx ]
		# At a terminal: the terminal's own name too, and nothing else.
		run python3 "$PTY" -- sh -c "tty; $D $flags -- ls -1A /dev/pts"
		[ "$(echo ${lines[1]} ${lines[2]})" = "${lines[0]#/dev/pts/} ptmx" ]
		[ "${lines[3]}" = status=0 ]
	done
	# Control: outside, block devices and other terminals exist.
	disk=$(ls /dev/vda /dev/sda /dev/nvme0n1 /dev/loop0 2>/dev/null | head -1)
	[ -n "$disk" ]
	exec 4< <(python3 -c 'import os, time; m, s = os.openpty(); print(os.ttyname(s), flush=True); time.sleep(30)')
	read -r other <&4
	[ -c "$other" ]
	run "$D" -- sh -c "test -e $disk || echo no-disk; test -e $other || echo no-terminal; test -e /dev/mem || echo no-mem"
	[ "$output" = "$(printf 'no-disk\nno-terminal\nno-mem')" ]
	exec 4<&-
	# The top of /dev is read-only: nothing can be added.
	run "$D" -- sh -c 'touch /dev/x'
	[[ "$output" == *"Read-only file system"* ]]
}

@test "/dev works: null, urandom, full, shm (multiprocessing), a new pty; also under Landlock" {
	for flags in "" --landlock; do
		run "$D" $flags -- sh -c 'echo x >/dev/null && head -c 8 /dev/urandom | wc -c'
		[ "$output" = 8 ]
		run "$D" $flags -- python3 -c 'import os; os.write(os.open("/dev/full", os.O_WRONLY), b"x")'
		[[ "$output" == *"No space left on device"* ]]
		run "$D" $flags -- python3 -c 'import multiprocessing; multiprocessing.Lock(); print("lock")'
		[ "$output" = lock ]
		run "$D" $flags -- python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s))'
		[ "$output" = /dev/pts/0 ]
		run "$D" $flags -- sh -c 'echo y >/dev/shm/f && cat /dev/shm/f'
		[ "$output" = y ]
	done
	# Landlock holds elsewhere: /proc is read-write, but nothing grants writing it.
	run "$D" -- sh -c 'echo demo >/proc/self/comm && echo written'
	[ "$output" = written ]
	run "$D" --landlock -- sh -c 'echo demo >/proc/self/comm'
	[[ "$output" == *"Permission denied"* ]]
}

@test "the supervisor polls the caller's descriptors while the sandbox runs" {
	run "$D" --watch -- sh -c 'echo report >&3; sleep 0.2; exit 5'
	echo "$output"
	[ "$status" -eq 5 ]
	[[ "$output" == *"watch: report"* ]]
}
