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
