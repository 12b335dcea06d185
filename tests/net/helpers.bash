# Shared helpers for the proxy tests: servers and the proxy on 127.0.0.1, started per test and
# stopped by their process ids in teardown.

NET_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PIDS=()

# wait_line FILE: waits (at most 10 s) until FILE holds a complete line.
wait_line() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ -s "$1" ] && [ "$(tail -c 1 "$1" | od -An -c | tr -d ' ')" = '\n' ] && return 0
		sleep 0.05
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# wait_count FILE STRING N: waits (at most 10 s) until N lines of FILE hold STRING. The proxy
# writes a tunnel's line when the tunnel ends, which may be just after its client has gone.
wait_count() {
	local i
	for ((i = 0; i < 200; i++)); do
		[ "$(grep -cF -- "$2" "$1")" -ge "$3" ] && return 0
		sleep 0.05
	done
	return 0 # the caller's own check says what was found
}

# start_upstream [BIND]: the HTTP server of servers.py serving $WWW; sets UP_PORT and UP_LOG.
start_upstream() {
	WWW=${WWW:-$BATS_TEST_TMPDIR/www}
	mkdir -p "$WWW"
	UP_LOG=$BATS_TEST_TMPDIR/upstream.log
	: >"$UP_LOG"
	python3 "$NET_DIR/servers.py" http "$WWW" "$BATS_TEST_TMPDIR/up.port" "$UP_LOG" \
		${1:+"$1"} </dev/null >/dev/null 2>"$BATS_TEST_TMPDIR/up.err" 3>&- &
	PIDS+=($!)
	wait_line "$BATS_TEST_TMPDIR/up.port"
	UP_PORT=$(cat "$BATS_TEST_TMPDIR/up.port")
}

# start_echo: the TCP echo server; sets ECHO_PORT.
start_echo() {
	python3 "$NET_DIR/servers.py" echo "$BATS_TEST_TMPDIR/echo.port" </dev/null >/dev/null \
		2>"$BATS_TEST_TMPDIR/echo.err" 3>&- &
	PIDS+=($!)
	wait_line "$BATS_TEST_TMPDIR/echo.port"
	ECHO_PORT=$(cat "$BATS_TEST_TMPDIR/echo.port")
}

# start_halfclose: servers.py halfclose, logging to $HC_LOG; sets HC_PORT.
start_halfclose() {
	HC_LOG=$BATS_TEST_TMPDIR/halfclose.log
	: >"$HC_LOG"
	python3 "$NET_DIR/servers.py" halfclose "$BATS_TEST_TMPDIR/hc.port" "$HC_LOG" </dev/null \
		>/dev/null 2>"$BATS_TEST_TMPDIR/hc.err" 3>&- &
	PIDS+=($!)
	wait_line "$BATS_TEST_TMPDIR/hc.port"
	HC_PORT=$(cat "$BATS_TEST_TMPDIR/hc.port")
}

# cpu_ticks PID: the user and system time of a process so far, in clock ticks.
cpu_ticks() {
	awk '{print $14 + $15}' "/proc/$1/stat"
}

# start_proxy ARGS...: sbxrun proxy on 127.0.0.1:0 (unless ARGS name a --listen) logging to
# $PX_LOG; sets PX (its address, as printed) and PX_PID. PX_WRAP runs it under a wrapper.
start_proxy() {
	local listen=(--listen 127.0.0.1:0)
	[[ " $* " == *" --listen "* ]] && listen=()
	PX_LOG=${PX_LOG_DIR:-$BATS_TEST_TMPDIR}/proxy.log
	PX_ERR=$BATS_TEST_TMPDIR/proxy.err
	: >"$BATS_TEST_TMPDIR/proxy.addr"
	${PX_WRAP:-} "$SBXRUN" proxy "${listen[@]}" --log "$PX_LOG" "$@" </dev/null \
		>"$BATS_TEST_TMPDIR/proxy.addr" 2>"$PX_ERR" 3>&- &
	PX_PID=$!
	PIDS+=($PX_PID)
	wait_line "$BATS_TEST_TMPDIR/proxy.addr"
	PX=$(cat "$BATS_TEST_TMPDIR/proxy.addr")
}

# stop_proxy: SIGTERM, and its exit status in PX_STATUS. A sanitizer's report (sanitized
# builds) fails the test, whichever test it is.
stop_proxy() {
	kill -TERM "$PX_PID"
	PX_STATUS=0
	wait "$PX_PID" || PX_STATUS=$?
	PX_PID=
	if grep -q 'Sanitizer\|runtime error' "$PX_ERR"; then
		cat "$PX_ERR" >&2
		return 1
	fi
}

# The proxy must still be alive and serving: a request through it succeeds.
proxy_serves() {
	kill -0 "$PX_PID" &&
		[ "$(curl -sS --max-time 5 -x "http://$PX" "http://localhost:$UP_PORT/f.txt")" = hello ]
}

client() {
	python3 "$NET_DIR/client.py" "$@"
}

# jline N EXPR: evaluates a Python expression on the N-th line (1-based) of the proxy log.
jline() {
	python3 -c 'import json,sys
j=json.loads(open(sys.argv[1]).read().splitlines()[int(sys.argv[2]) - 1]); v=eval(sys.argv[3])
print(v if isinstance(v,str) else json.dumps(v))' "$PX_LOG" "$1" "$2"
}

# with_hosts FILE: later start_proxy calls run the proxy in a private mount namespace where
# FILE is /etc/hosts, so that test names resolve to the loopback without touching the host.
with_hosts() {
	local un=(unshare --mount --propagation private)
	[ "$(id -u)" = 0 ] || un=(unshare --user --map-root-user --mount --propagation private)
	PX_WRAP="${un[*]} $NET_DIR/hosts-exec $1"
}

stop_all() {
	local p
	if [ -n "${PX_PID:-}" ] && kill -0 "$PX_PID" 2>/dev/null; then
		stop_proxy
		[ "$PX_STATUS" -eq 0 ] || { echo "the proxy exited with $PX_STATUS" >&2; return 1; }
	fi
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	PIDS=()
}
