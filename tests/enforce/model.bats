#!/usr/bin/env bats
# The process model as `run` chooses it per host: under init in new PID and IPC namespaces
# (here), under a subreaper with a mount namespace (clone refused: a container that lets unshare
# through), under a subreaper with Landlock alone (no namespace at all). In each, the exit status
# and death by signal pass through, what explain says is what runs, and each isolation
# requirement holds by its own mechanism, beside its control outside.
load common
bats_require_minimum_version 1.5.0

uses_outside
setup() {
	outside_vars
	WSP=$(profile restricted $(workspace_entries))
	RO=$(profile restricted "$(entry_special root read)")
	# Without a mount namespace a writable root needs its protected names writable too.
	LLW=$(profile restricted "$(entry_special root read)" "$(entry_path "$BASE" write)" \
		$(unprotected "$BASE"))
	# (The pid at a fixed width: no tag of another live test begins with this one, as pgrep -f
	# would match.)
	TAG="86396.$(printf %07d $$)$RANDOM"
}
teardown() { pkill -KILL -f "sleep $TAG" 2>/dev/null || true; }

# under MODEL PROFILE CMD...: the helper under the host's model (init), or a fallback; it
# replaces the shell, so that a job started with it is the helper itself.
under() {
	local model=$1 prof=$2 fault=()
	shift 2
	case $model in
	subreaper) fault=("$BIN/failinj" clone --) ;;
	landlock) fault=("$BIN/failinj" unshare --) ;;
	esac
	exec "${fault[@]}" "$H" --sandbox-policy-cwd "$WS" --permission-profile "$prof" -- "$@"
}
# What each model can run: without a mount namespace, no missing protected name to mask.
profile_for() { if [ "$1" = landlock ]; then echo "$LLW"; else echo "$WSP"; fi; }

@test "exit status N and death by signal S pass through in every model" {
	local m prof
	for m in init subreaper landlock; do
		prof=$(profile_for $m)
		run -42 under $m "$prof" sh -c 'exit 42'
		run -143 under $m "$prof" sh -c 'kill -TERM $$'
		run -137 under $m "$prof" sh -c 'kill -KILL $$'
		run -127 under $m "$prof" no-such-command-here
		echo "$m: $output"
		[ "$output" = "sbxrun: no-such-command-here: command not found" ]
	done
}

@test "SIGTERM sent to sbxrun reaches the command in every model" {
	local m prof pid st
	for m in init subreaper landlock; do
		prof=$(profile_for $m)
		rm -f "$WS/ready"
		(under $m "$prof" sh -c "trap 'exit 3' TERM; echo >'$WS/ready'; while :; do sleep 0.05; done") \
			3>&- 2>/dev/null &
		pid=$!
		# (Up to ten seconds: a run's set-up under a loaded machine's sanitizers takes seconds.)
		for _ in $(seq 500); do [ -e "$WS/ready" ] && break; sleep 0.02; done
		[ -e "$WS/ready" ] || { kill -KILL "$pid"; false; }
		kill -TERM "$pid"
		st=0
		wait "$pid" || st=$?
		echo "$m: $st"
		[ "$st" -eq 3 ]
	done
}

@test "explain says which model runs, and which mechanism holds each isolation requirement" {
	run "$BIN/sbxrun" explain --cwd "$WS" -- true
	[[ "$output" == *"process:           sbxrun supervises; the command runs under its own init (pid 1) in new PID, IPC and mount namespaces"* ]]
	[[ "$output" == *"signals and ptrace only inside the sandbox"*"landlock+pid-namespace"*"enforced"* ]]
	[[ "$output" == *"processes end with the run"*"pid-namespace"*"enforced"* ]]
	run "$BIN/failinj" clone -- "$BIN/sbxrun" explain --cwd "$WS" -- true
	[[ "$output" == *"process:           sbxrun supervises as a child subreaper; the command runs in a new mount namespace, without a PID namespace"* ]]
	[[ "$output" == *"System V IPC of outside processes unreachable"*"seccomp"*"enforced"* ]]
	[[ "$output" == *"processes end with the run"*"supervisor"*"enforced"* ]]
	[[ "$output" == *"a SIGKILL of sbxrun itself leaves them running"* ]]
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" explain --cwd "$WS" --profile :read-only -- true
	[[ "$output" == *"process:           sbxrun supervises as a child subreaper; no namespace"* ]]
	[[ "$output" == *"no host device node reachable but the allow-list"*"landlock"*"enforced"* ]]
	# The JSON form names the same three.
	run "$BIN/sbxrun" explain --json --cwd "$WS" -- true
	[[ "$output" == *'"process": "init",'* ]]
	run "$BIN/failinj" clone -- "$BIN/sbxrun" explain --json --cwd "$WS" -- true
	[[ "$output" == *'"process": "subreaper+mount-namespace",'* ]]
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" explain --json --cwd "$WS" --profile :read-only -- true
	[[ "$output" == *'"process": "subreaper",'* ]]
}

@test "processes outside: unreachable by signal and ptrace in every model" {
	kill -0 "$VICTIM"
	outside kill "$VICTIM" 0
	run under init "$WSP" "$P" kill "$VICTIM" 0
	[ "$output" = ESRCH ]
	run under subreaper "$WSP" "$P" kill "$VICTIM" 0
	[ "$output" = EPERM ]
	run under landlock "$RO" "$P" kill "$VICTIM" 0
	[ "$output" = EPERM ]
	run under landlock "$RO" "$P" ptrace "$VICTIM"
	[ "$output" = EPERM ]
	# Control: inside, the command signals its own children.
	run under landlock "$RO" sh -c 'sleep 5 & kill -TERM $!; wait $!; echo "status=$?"'
	[[ "$output" == *status=143 ]]
}

@test "/proc: the sandbox's processes only under init (not with --no-proc), the host's otherwise" {
	run under init "$WSP" sh -c 'ls /proc | grep -c "^[0-9]"'
	[ "$output" -le 4 ]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$WSP" --no-proc -- \
		sh -c 'ls /proc | grep -c "^[0-9]"'
	[ "$output" -gt 4 ]
	run under subreaper "$WSP" sh -c 'ls /proc | grep -c "^[0-9]"'
	[ "$output" -gt 4 ]
	# The host's /proc lists them, but what a process holds is closed (Landlock's ptrace rule).
	outside read "/proc/$VICTIM/environ"
	run under subreaper "$WSP" "$P" read "/proc/$VICTIM/environ"
	[ "$output" = EACCES ]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$WSP" --no-proc -- \
		"$P" read "/proc/$VICTIM/environ"
	[ "$output" = EACCES ]
	# The command's own /proc entries stay readable in every model.
	run under landlock "$RO" sh -c 'head -c 4 /proc/self/status'
	[ "$output" = Name ]
}

@test "devices: a private /dev with a mount namespace, Landlock's allow-list without one" {
	local disk own
	disk=$(ls /dev/vda /dev/sda /dev/nvme0n1 /dev/loop0 2>/dev/null | head -1)
	[ -b "$disk" ] || [ -c "$disk" ]
	for m in init subreaper; do
		run under $m "$WSP" ls -A /dev
		[ "$(echo $output)" = "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero" ]
		run under $m "$WSP" "$P" read "$disk"
		[ "$output" = ENOENT ]
	done
	# Without a mount namespace the host's /dev stays; its names list, but only the
	# allow-list opens.
	run under landlock "$RO" "$P" read "$disk"
	[ "$output" = EACCES ]
	run under landlock "$RO" "$P" read /dev/kmsg
	[ "$output" = EACCES ]
	run under landlock "$RO" sh -c 'echo x >/dev/null && head -c 3 /dev/urandom | wc -c'
	[ "$output" = 3 ]
	run under landlock "$RO" "$P" write /dev/shm/sbx-$TAG
	[ "$output" = EACCES ]
	# Another terminal of the user: unreachable by name; its own terminal stays usable.
	exec 4< <(python3 -c 'import os, time; m, s = os.openpty(); print(os.ttyname(s), flush=True); time.sleep(30)')
	read -r other <&4
	outside append "$other"
	run under landlock "$RO" "$P" append "$other"
	[ "$output" = EACCES ]
	run under init "$WSP" "$P" append "$other"
	[ "$output" = ENOENT ]
	exec 4<&-
	run script -qec "$BIN/failinj unshare -- $H --sandbox-policy-cwd $WS --permission-profile '$RO' -- sh -c 'stty size >/dev/null && echo x >/dev/tty && tty'" /dev/null
	[[ "$output" == *"/dev/pts/"* ]]
	# Under init its terminal keeps its own name, the outside one; in the command's own process
	# (a subreaper) nothing outlives its execve to hold the name, and it goes without.
	run script -qec "tty; $H --sandbox-policy-cwd $WS --permission-profile '$WSP' -- sh -c 'stty size >/dev/null && echo x >/dev/tty && tty'" /dev/null
	own=${lines[0]%$'\r'}
	[[ "$own" == /dev/pts/* ]]
	[ "${output//$'\r'/}" = "$own"$'\n'x$'\n'"$own" ]
	# The same where the kernel refuses mounts onto a detached one (before 6.15).
	run script -qec "tty; $BIN/failinj detached -- $H --sandbox-policy-cwd $WS --permission-profile '$WSP' -- tty" /dev/null
	own=${lines[0]%$'\r'}
	[[ "$own" == /dev/pts/* ]]
	[ "${lines[1]%$'\r'}" = "$own" ]
	run script -qec "$BIN/failinj clone -- $H --sandbox-policy-cwd $WS --permission-profile '$WSP' -- sh -c 'stty size >/dev/null && echo x >/dev/tty && tty'" /dev/null
	[[ "$output" == *"not a tty"* ]]
}

# The command says "started" only once its daemon runs (a fork that has not yet reached its
# execve is no daemon yet, and one that never ran would leave nothing to find). The control: the
# same command without sbxrun leaves its daemon running, and the check finds it.
@test "a daemon is gone after the run under every model" {
	local m prof daemon
	daemon="setsid sleep $TAG >/dev/null 2>&1 </dev/null & i=0; until pgrep -xf 'sleep $TAG' >/dev/null || [ \$i -ge 500 ]; do sleep 0.02; i=\$((i+1)); done; pgrep -xf 'sleep $TAG' >/dev/null && echo started"
	run sh -c "$daemon"
	[ "$output" = started ]
	run pgrep -xf "sleep $TAG"
	[ "$status" -eq 0 ]
	pkill -KILL -xf "sleep $TAG"
	await_gone "sleep $TAG"
	for m in init subreaper landlock; do
		prof=$(profile_for $m)
		run under $m "$prof" sh -c "$daemon"
		[ "$output" = started ]
		run pgrep -f "sleep $TAG"
		[ "$status" -eq 1 ]
	done
}
