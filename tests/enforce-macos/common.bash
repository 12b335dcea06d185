# Shared by the macOS enforcement suites: the profile helpers, the layout and expect/outside of
# the Linux suites (tests/enforce/common.bash), with sbxrun itself, which runs the command under
# /usr/bin/sandbox-exec, in place of the Linux helper. The run driver sets BIN (sbxrun, probe),
# WORK (a directory this user owns), TMPDIR and SBX_USER (root|nobody).
load "$BATS_TEST_DIRNAME/../enforce/common"
S="$BIN/sbxrun"

# sbx COMMAND...: COMMAND confined by $PROFILE, with the workspace as the cwd, and $SBX_ENV
# (NAME=VALUE) in sbxrun's environment when set.
sbx() {
	printf '%s' "$PROFILE" >"$BASE/profile.json"
	env ${SBX_ENV:+"$SBX_ENV"} "$S" --cwd "$WS" --profile "$BASE/profile.json" -- "$@"
}

entry_glob() { printf '{"path":{"type":"glob_pattern","pattern":"%s"},"access":"deny"}' "$1"; }

# in_tty COMMAND...: COMMAND on a new pseudo-terminal that is its controlling terminal (the
# way a shell runs it), its output without the terminal's carriage returns.
in_tty() { script -q /dev/null "$@" </dev/null | tr -d '\r'; }

# expect_tty ERRNO OP: the probe, confined, on a terminal, prints exactly ERRNO (or OK).
expect_tty() {
	printf '%s' "$PROFILE" >"$BASE/profile.json"
	run in_tty "$S" --cwd "$WS" --profile "$BASE/profile.json" -- "$P" "$2"
	echo "inside, on a terminal: probe $2 -> $output (want $1)"
	[ "$output" = "$1" ]
}

# outside_tty OP: the same operation succeeds on a terminal without the sandbox.
outside_tty() {
	run in_tty "$P" "$1"
	echo "outside, on a terminal: probe $1 -> $output"
	[ "$output" = OK ]
}

# A TCP listener on 127.0.0.1 outside the sandbox; its port in $PORT.
start_listener() {
	python3 -c 'import socket, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
time.sleep(600)' >"$BASE/port" 3>&- &
	echo $! >"$BASE/listener.pid"
	for _ in $(seq 100); do [ -s "$BASE/port" ] && break; sleep 0.05; done
	[ -s "$BASE/port" ]
}
load_listener() { PORT=$(cat "$BASE/port"); }
stop_listener() { kill "$(cat "$BASE/listener.pid")" 2>/dev/null || true; }
