#!/usr/bin/env bats
# What a run leaves behind besides files: a daemon, System V IPC objects, POSIX shared memory.
# Run 1 starts or makes them (and, as the positive control, reaches them itself); before run 2
# starts, the daemon is gone, and run 2 cannot reach what run 1 made, nor what a process outside
# made. Under init the PID and IPC namespaces do it; without them (clone refused) the subreaper
# kills the daemon and seccomp refuses System V IPC altogether.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	PROFILE=$(profile restricted $(workspace_entries))
	# A sleep argument no other process has (the pid at a fixed width, so that no tag of another
	# live test, the other user's pass among them, begins with this one).
	TAG="86397.$(printf %07d $$)$RANDOM"
	IPC="$BATS_TEST_DIRNAME/../enforce/ipc.py"
	KEY=
	KEY2=
}
teardown() {
	pkill -KILL -f "sleep $TAG" 2>/dev/null || true
	# KEY2's segment exists only if seccomp let run 2 make one on the host.
	for k in "$KEY" "$KEY2"; do
		if [ -n "$k" ]; then ipcrm -M "$k" 2>/dev/null || true; fi
	done
	rm -f "/dev/shm/sbx-$TAG"
}

running() { pgrep -f "sleep $TAG" >/dev/null; }

@test "a daemon started by run 1 is gone before run 2 starts (init, then the subreaper)" {
	# Control: outside, the same command leaves its daemon running.
	sh -c "setsid sleep $TAG >/dev/null 2>&1 </dev/null &"
	await_pgrep "sleep $TAG"
	pkill -KILL -f "sleep $TAG"
	# Inside, the command ends once its daemon is the sleep itself (not a shell yet to run it),
	# and says so.
	local fault daemon="setsid sleep $TAG >/dev/null 2>&1 </dev/null &
		i=0; until pgrep -xf 'sleep $TAG' >/dev/null || [ \$i -ge 1500 ]; do sleep 0.02; i=\$((i+1)); done
		pgrep -xf 'sleep $TAG' >/dev/null && echo started"
	for fault in none clone; do
		if [ "$fault" = none ]; then
			run sbx sh -c "$daemon"
		else
			run sbx_fault clone "$PROFILE" sh -c "$daemon"
		fi
		echo "$fault: $output"
		[ "$output" = started ]
		# Run 1 has returned: nothing of it is left.
		run running
		[ "$status" -eq 1 ]
	done
}

@test "run 1's System V segment: run 1 reaches it, run 2 does not, nor one made outside" {
	KEY=$(ipc_key 0x5d000000)
	KEY2=$(ipc_key 0x5e000000)
	run sbx sh -c "python3 '$IPC' shm-create $KEY && python3 '$IPC' shm $KEY"
	[ "$output" = "$(printf 'OK\nOK')" ]
	run sbx python3 "$IPC" shm "$KEY"
	[ "$output" = ENOENT ]
	# Nor did it reach the host.
	run python3 "$IPC" shm "$KEY"
	[ "$output" = ENOENT ]
	# A segment outside, reached outside (control), is out of reach inside.
	run python3 "$IPC" shm-create "$KEY"
	[ "$output" = OK ]
	run python3 "$IPC" shm "$KEY"
	[ "$output" = OK ]
	run sbx python3 "$IPC" shm "$KEY"
	[ "$output" = ENOENT ]
	# Without an IPC namespace (clone refused): seccomp refuses System V IPC itself.
	run sbx_fault clone "$PROFILE" python3 "$IPC" shm "$KEY"
	[ "$output" = EPERM ]
	run sbx_fault clone "$PROFILE" python3 "$IPC" shm-create "$KEY2"
	[ "$output" = EPERM ]
}

@test "run 1's /dev/shm file: run 1 reads it back, run 2 and the host do not see it" {
	local f="/dev/shm/sbx-$TAG"
	run sbx sh -c "echo secret >'$f' && cat '$f'"
	[ "$output" = secret ]
	[ ! -e "$f" ]
	run sbx cat "$f"
	[ "$status" -ne 0 ]
	[[ "$output" == *"No such file or directory"* ]]
	# A file outside (control: readable outside) is not in the sandbox's /dev/shm.
	echo host >"$f"
	run cat "$f"
	[ "$output" = host ]
	run sbx cat "$f"
	[[ "$output" == *"No such file or directory"* ]]
	# Python's multiprocessing works on the private one.
	run sbx python3 -c 'import multiprocessing; multiprocessing.Lock(); print("lock")'
	[ "$output" = lock ]
}
