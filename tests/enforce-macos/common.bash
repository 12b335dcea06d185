# Shared by the macOS enforcement suites: the profile helpers, the layout and expect/outside of
# the Linux suites (tests/enforce/common.bash), with sbxrun itself, which runs the command under
# /usr/bin/sandbox-exec, in place of the Linux helper. The run driver sets BIN (sbxrun, probe),
# WORK (a directory this user owns), TMPDIR and SBX_USER (root|nobody).
load "$BATS_TEST_DIRNAME/../enforce/common"
S="$BIN/sbxrun"

# sbx COMMAND...: COMMAND confined by $PROFILE, with the workspace as the cwd, $SBX_ENV
# (NAME=VALUE) in sbxrun's environment when set, and the options of the array SBX_OPTS.
sbx() {
	printf '%s' "$PROFILE" >"$BASE/profile.json"
	env ${SBX_ENV:+"$SBX_ENV"} "$S" --cwd "$WS" --profile "$BASE/profile.json" \
		${SBX_OPTS[@]+"${SBX_OPTS[@]}"} -- "$@"
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

# Listeners outside the sandbox for the network suite: two TCP ports on 127.0.0.1 (the "proxy"
# and another service) in $NET/ports, and Unix sockets at $NET/ok/agent.sock and
# $NET/other.sock. They accept and close, and stop by themselves after 600 seconds.
start_net_listeners() {
	NET="$BASE/net"
	mkdir -p "$NET/ok"
	python3 -c 'import os, select, socket, sys, time
net = sys.argv[1]
t = [socket.socket() for _ in range(2)]
for s in t:
    s.bind(("127.0.0.1", 0)); s.listen(64)
u = []
for p in (net + "/ok/agent.sock", net + "/other.sock"):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(p); s.listen(64); u.append(s)
with open(net + "/ports.tmp", "w") as f:
    f.write("%d %d\n" % (t[0].getsockname()[1], t[1].getsockname()[1]))
os.rename(net + "/ports.tmp", net + "/ports")
end = time.time() + 600
while time.time() < end:
    r, _, _ = select.select(t + u, [], [], 1)
    for s in r:
        c, _ = s.accept(); c.close()' "$NET" 3>&- &
	echo $! >"$BASE/net.pid"
	for _ in $(seq 100); do [ -s "$NET/ports" ] && break; sleep 0.05; done
	[ -s "$NET/ports" ]
}
load_net_listeners() {
	NET="$BASE/net"
	read -r PROXY_PORT OTHER_PORT <"$NET/ports"
}
stop_net_listeners() { kill "$(cat "$BASE/net.pid")" 2>/dev/null || true; }
