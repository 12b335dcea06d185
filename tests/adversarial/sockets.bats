#!/usr/bin/env bats
# Unix sockets through the broker: a first confined run (workspace write) replaces an allowed
# socket, or a directory on the way to one, with a link to a daemon's socket outside the writable
# roots; the next run must refuse, or reach nothing, never the daemon.
load common

NET="$BATS_TEST_DIRNAME/../net"

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
	PROFILE=$(profile restricted $(workspace_entries))
	ENABLED=$(profile enabled $(workspace_entries))
	rm -rf "$WS/agent" "$WS/agent.real" "$OUT/daemon"
	mkdir -p "$WS/agent" "$OUT/daemon"
	ABS="sbx-bus-$$-$RANDOM"
	# The empty name is one for the whole machine: while this case serves it, the other user's
	# pass waits (a lock on the directory both passes share), or its server could not bind it
	# and the case would reach this one's, gone at its end.
	exec 8<"$BIN"
	flock -w 120 8
	python3 "$NET/unix_echo.py" "$WS/agent/agent.sock" "$OUT/daemon/docker.sock" \
		"dgram:$OUT/daemon/log.sock" "@$ABS" "@" 2>/dev/null 3>&- 8<&- &
	SERVER=$!
	for _ in $(seq 100); do
		served && break
		sleep 0.05
	done
	[ -S "$WS/agent/agent.sock" ]
	[ -S "$OUT/daemon/log.sock" ]
	outside unix "$OUT/daemon/docker.sock"
	outside abstract "$ABS"
	# The empty abstract name (a NUL alone, an address of three bytes) is a host socket too.
	outside abstract ""
}
# Is every socket of the daemons up: each path there, each abstract name listed (the empty one
# as "@")?
served() {
	[ -S "$WS/agent/agent.sock" ] || return 1
	[ -S "$OUT/daemon/docker.sock" ] || return 1
	[ -S "$OUT/daemon/log.sock" ] || return 1
	# Listening (flags __SO_ACCEPTCON), not only bound: a name is in the table from bind(2) on.
	grep -q " 00010000 0001 01 *[0-9][0-9]* @$ABS\$" /proc/net/unix || return 1
	grep -q " 00010000 0001 01 *[0-9][0-9]* @\$" /proc/net/unix
}
teardown() {
	kill "$SERVER" 2>/dev/null || true
	wait "$SERVER" 2>/dev/null || true
	exec 8<&-
}

# with PROFILE OPTION... -- CMD...: the helper with network options.
with() {
	local prof=$1
	shift
	"$H" --sandbox-policy-cwd "$WS" --permission-profile "$prof" "$@"
}

@test "an allowed socket an earlier run replaced with a link to a daemon's socket" {
	run with "$PROFILE" --allow-unix-socket "$WS/agent/agent.sock" -- "$P" unix "$WS/agent/agent.sock"
	[ "$output" = OK ]
	# Run 1, confined, swaps the agent's socket for a link to the daemon's.
	run with "$PROFILE" -- sh -c "mv '$WS/agent/agent.sock' '$WS/agent/agent.real' &&
		ln -s '$OUT/daemon/docker.sock' '$WS/agent/agent.sock'"
	[ "$status" -eq 0 ]
	outside unix "$WS/agent/agent.sock"
	run with "$PROFILE" --allow-unix-socket "$WS/agent/agent.sock" -- touch "$CANARY"
	refused "sbxrun: cannot enforce sandbox Unix socket $WS/agent/agent.sock because it crosses writable symlink $WS/agent/agent.sock"
	[[ "${lines[0]}" == *"; hint: name the path it leads to ($OUT/daemon/docker.sock) instead" ]]
	# Naming the path it leads to, outside the writable roots, is the user's own decision.
	run with "$PROFILE" --allow-unix-socket "$OUT/daemon/docker.sock" -- "$P" unix "$OUT/daemon/docker.sock"
	[ "$output" = OK ]
}

@test "an allowed directory of sockets an earlier run replaced with a link to a daemon's" {
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- "$P" unix "$WS/agent/agent.sock"
	[ "$output" = OK ]
	run with "$PROFILE" -- sh -c "mv '$WS/agent' '$WS/agent.real' && ln -s '$OUT/daemon' '$WS/agent'"
	[ "$status" -eq 0 ]
	outside unix "$WS/agent/docker.sock"
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- touch "$CANARY"
	refused "sbxrun: cannot enforce sandbox Unix socket $WS/agent because it crosses writable symlink $WS/agent"
}

@test "network enabled: a directory an earlier run made a link to the daemon's leads nowhere" {
	# Control: the workspace's own sockets are reachable, the daemon's are not.
	run with "$ENABLED" -- "$P" unix "$WS/agent/agent.sock"
	[ "$output" = OK ]
	run with "$ENABLED" -- "$P" unix "$OUT/daemon/docker.sock"
	[ "$output" = EACCES ]
	run with "$ENABLED" -- ln -s "$OUT/daemon" "$WS/run"
	[ "$status" -eq 0 ]
	outside unix "$WS/run/docker.sock"
	# Below a writable root, looked up with no link followed: a link on the way is refused.
	run with "$ENABLED" -- "$P" unix "$WS/run/docker.sock"
	echo "$output"
	[ "$output" = EACCES ]
	# A relative name from inside the link: the command's directory is where the link led.
	run with "$ENABLED" -- sh -c "cd '$WS/run' && exec '$P' unix docker.sock"
	echo "$output"
	[ "$output" = EACCES ]
	rm -f "$WS/run"
}

# sends PROFILE OPTION...: each kind of datagram socket, sent to the daemon's datagram socket
# by its name and by the link $WS/log.sock, must be refused at the socket (EPERM).
sends() {
	local prof=$1 kind to
	shift
	for kind in dgram raw pair-dgram pair-raw; do
		for to in "$OUT/daemon/log.sock" "$WS/log.sock"; do
			run with "$prof" "$@" -- "$P" unix-send "$kind" "$to"
			echo "$kind to $to: $output"
			[ "$output" = EPERM ]
		done
	done
}

@test "datagrams: no kind of Unix datagram socket reaches a daemon's socket, by name or link" {
	# The kernel makes an AF_UNIX SOCK_RAW socket (or pair) a datagram socket: every kind
	# delivers outside, and inside once every Unix socket is allowed.
	for kind in dgram raw pair-dgram pair-raw; do
		outside unix-send "$kind" "$OUT/daemon/log.sock"
		run env HTTP_PROXY=http://127.0.0.1:9 "$H" --sandbox-policy-cwd "$WS" \
			--permission-profile "$PROFILE" \
			--managed-network '{"dangerously_allow_all_unix_sockets":true}' -- \
			"$P" unix-send "$kind" "$OUT/daemon/log.sock"
		echo "$kind, every Unix socket allowed: $output"
		[ "$output" = OK ]
	done
	# Run 1, confined, plants a link to the daemon's socket in the workspace.
	run with "$PROFILE" -- ln -s "$OUT/daemon/log.sock" "$WS/log.sock"
	[ "$status" -eq 0 ]
	outside unix-send dgram "$WS/log.sock"
	# The network restricted (the main filter), with the broker, and enabled with the broker.
	sends "$PROFILE"
	sends "$PROFILE" --allow-unix-socket "$WS/agent/agent.sock"
	sends "$ENABLED"
	# Stream sockets are what the broker sees: the allowed one is reachable.
	run with "$PROFILE" --allow-unix-socket "$WS/agent/agent.sock" -- "$P" unix "$WS/agent/agent.sock"
	[ "$output" = OK ]
	rm -f "$WS/log.sock"
}

# inherited KIND TARGET PROFILE OPTION...: the helper, with a socket of KIND that its caller left
# without close-on-exec (tests/net/inherit.py), runs a command that uses it to reach TARGET.
inherited() {
	local kind=$1 target=$2 prof=$3
	shift 3
	run python3 "$NET/inherit.py" "$kind" "$target" -- env HTTP_PROXY=http://127.0.0.1:9 \
		"$H" --sandbox-policy-cwd "$WS" --permission-profile "$prof" "$@" -- \
		python3 "$NET/inherit.py" use "$kind" "$target"
	echo "$kind $*: status $status: $output"
}

@test "a socket the caller left inheritable carries the command past none of the network's rules" {
	local unix_hint="hint: close it, or mark it close-on-exec, before starting sbxrun"
	local hint="$unix_hint, or enable the network"
	# Outside, each socket reaches its target: a daemon's stream and datagram sockets, a UDP
	# service of the host.
	run python3 "$NET/inherit.py" unix-stream "$OUT/daemon/docker.sock" -- \
		python3 "$NET/inherit.py" use unix-stream "$OUT/daemon/docker.sock"
	[ "$output" = OK ]
	run python3 "$NET/inherit.py" udp - -- python3 "$NET/inherit.py" use udp -
	[ "${lines[0]}" = OK ]
	[ "${lines[1]}" = received ]
	# In a network namespace of the sandbox's own, connect is not filtered: an unconnected Unix
	# socket made outside would reach the daemon. Refused before the command starts.
	inherited unix-stream "$OUT/daemon/docker.sock" "$PROFILE" --managed-network '{}'
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: descriptor 19, inherited by the command, is a Unix stream socket that is not connected, which a restricted network cannot confine; $unix_hint" ]
	# Enabling the network is no way out for a Unix socket: the broker refuses it the same.
	inherited unix-stream "$OUT/daemon/docker.sock" "$ENABLED"
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: descriptor 19, inherited by the command, is a Unix stream socket that is not connected, which the rules on path sockets cannot confine; $unix_hint" ]
	# The network restricted by the main filter: sendto names its peer, and the datagram would
	# reach the host's service.
	inherited udp - "$PROFILE"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: descriptor 19, inherited by the command, is an IPv4 datagram socket, which a restricted network cannot confine; $hint" ]
	[ "${lines[1]}" = none ]
	inherited udp - "$PROFILE" --allow-unix-socket "$WS/agent/agent.sock"
	[ "$status" -eq 125 ]
	[ "${lines[1]}" = none ]
	# The network enabled, path sockets brokered: a datagram would reach the logging daemon.
	inherited unix-dgram "$OUT/daemon/log.sock" "$ENABLED"
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: descriptor 19, inherited by the command, is a Unix datagram socket, which the rules on path sockets cannot confine; $unix_hint" ]
	[ ! -s "$OUT/daemon/log.sock.got" ]
	# The controls: the network enabled lets an IPv4 socket go; a connected Unix stream
	# socket reaches its peer alone and cannot be aimed again; one marked close-on-exec is not
	# the command's.
	inherited udp - "$ENABLED"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = OK ]
	[ "${lines[1]}" = received ]
	inherited unix-pair "$WS/agent/agent.sock" "$PROFILE" --managed-network '{}'
	[ "$status" -eq 0 ]
	[ "$output" = EISCONN ]
	run python3 "$NET/inherit.py" --cloexec unix-stream "$OUT/daemon/docker.sock" -- \
		env HTTP_PROXY=http://127.0.0.1:9 "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" --managed-network '{}' \
		-- python3 "$NET/inherit.py" use unix-stream "$OUT/daemon/docker.sock"
	[ "$status" -eq 0 ]
	[ "$output" = EBADF ]
	# An O_PATH descriptor of a socket file is no socket, though fstat says so: a file, the
	# caller's. The run goes on, and a new socket naming the file through it meets the rules
	# on names (outside, it reaches the daemon).
	run python3 "$NET/inherit.py" unix-path "$OUT/daemon/docker.sock" -- \
		python3 "$NET/inherit.py" use unix-path -
	[ "$output" = OK ]
	inherited unix-path "$OUT/daemon/docker.sock" "$PROFILE" --managed-network '{}'
	[ "$status" -eq 0 ]
	[ "$output" = EPERM ]
	inherited unix-path "$OUT/daemon/docker.sock" "$ENABLED"
	[ "$status" -eq 0 ]
	[ "$output" = EACCES ]
}

@test "a descriptor whose kind cannot be read is refused, not taken for a file" {
	# fstat fails with EIO on descriptor 250 (the fault injector): before, the check took it for
	# no socket and the run went on with it.
	echo plain >"$BATS_TEST_TMPDIR/plain"
	run "$BIN/failinj" fstat250 -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" \
		-- echo ran 250<"$BATS_TEST_TMPDIR/plain"
	echo "status $status: $output"
	[ "$status" -eq 125 ]
	[ "${lines[-1]}" = "sbxrun: descriptor 250, inherited by the command, cannot be checked for a socket (fstat: $(errtext EIO)); hint: close it, or mark it close-on-exec, before starting sbxrun" ]
	# The controls: the same file without the fault, and the fault on a descriptor that is not
	# open (EBADF from fcntl: nothing to check).
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- echo ran 250<"$BATS_TEST_TMPDIR/plain"
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	run "$BIN/failinj" fstat250 -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- echo ran 250<&-
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
}

# Without /proc, the helper checks each descriptor up to the soft limit on open files: one above
# it (opened before the limit was lowered) is out of that scan's reach, and is made close-on-exec.
# Here /proc is covered by an empty file system in a namespace of the caller's own, and the
# socket moved to descriptor 200 under a limit of 64.
@test "without /proc, a socket above the limit on open files is not inherited unchecked" {
	local cmd="exec 19<&200; exec python3 '$NET/inherit.py' use udp -"
	# The control: the same moves, with /proc in place, are refused by the usual scan.
	run python3 "$NET/inherit.py" udp - -- unshare -rm bash -c \
		"exec 200<&19 19<&- && ulimit -n 64 && exec '$H' --sandbox-policy-cwd '$WS' --permission-profile '$PROFILE' -- bash -c \"$cmd\""
	echo "$output"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: descriptor 200, inherited by the command, is an IPv4 datagram socket, which a restricted network cannot confine; hint: close it, or mark it close-on-exec, before starting sbxrun, or enable the network" ]
	[ "${lines[1]}" = none ]
	# Without /proc the datagram does not leave: the descriptor is not the command's. (The
	# last two lines: a sanitized build warns first that it cannot name its executable.)
	run python3 "$NET/inherit.py" udp - -- unshare -rm bash -c \
		"mount -t tmpfs none /proc && exec 200<&19 19<&- && ulimit -n 64 && exec '$H' --sandbox-policy-cwd '$WS' --permission-profile '$PROFILE' -- bash -c \"$cmd\""
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-3]}" = "bash: line 1: 200: Bad file descriptor" ]
	[ "${lines[-2]}" = EBADF ]
	[ "${lines[-1]}" = none ]
}

@test "an address longer than a sockaddr_un is refused as the kernel refuses it, and the broker holds" {
	# The kernel reads no path from a Unix address longer than its struct: EINVAL.
	run "$P" unix-long "$WS/agent/agent.sock"
	[ "$output" = EINVAL ]
	# Run 1, confined, hands the broker the overlong address, absolute and relative, with the
	# network restricted and enabled: the same EINVAL, and the run goes on to its end.
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- "$P" unix-long "$WS/agent/agent.sock"
	[ "$output" = EINVAL ]
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- \
		sh -c "cd '$WS/agent' && '$P' unix-long agent.sock; echo ended"
	[ "${lines[0]}" = EINVAL ]
	[ "${lines[1]}" = ended ]
	run with "$ENABLED" -- "$P" unix-long "$OUT/daemon/docker.sock"
	[ "$output" = EINVAL ]
	# Run 2: the allowed socket is reachable, the daemon's is not.
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- "$P" unix "$WS/agent/agent.sock"
	[ "$output" = OK ]
	run with "$ENABLED" -- "$P" unix "$OUT/daemon/docker.sock"
	[ "$output" = EACCES ]
}

@test "abstract sockets: an allowed path socket opens none of the host's, with Landlock or without" {
	# Run 1, confined, finds a host daemon's abstract socket by name (the network namespace is
	# the host's, and so is /proc/net/unix).
	run with "$PROFILE" -- grep -c "@$ABS" /proc/net/unix
	[ "$output" = 1 ]
	# Run 2, with a Unix socket allowed: the broker connects it, and not the abstract one,
	# whether Landlock scopes abstract sockets (ABI 6) or is absent (the fault injector).
	run with "$PROFILE" --allow-unix-socket "$WS/agent/agent.sock" -- "$P" abstract "$ABS"
	[ "$output" = EPERM ]
	run "$BIN/failinj" landlock -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" \
		--allow-unix-socket "$WS/agent/agent.sock" -- "$P" abstract "$ABS"
	[ "$output" = EPERM ]
	# The empty name as well, an address that ends at its NUL.
	run with "$PROFILE" --allow-unix-socket "$WS/agent/agent.sock" -- "$P" abstract ""
	[ "$output" = EPERM ]
	run "$BIN/failinj" landlock -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" \
		--allow-unix-socket "$WS/agent/agent.sock" -- "$P" abstract ""
	[ "$output" = EPERM ]
	# Control: the allowed socket is reachable in the same run; with the network enabled, so
	# is the abstract socket (an enabled network reaches the host's).
	run "$BIN/failinj" landlock -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" \
		--allow-unix-socket "$WS/agent/agent.sock" -- "$P" unix "$WS/agent/agent.sock"
	[ "$output" = OK ]
	run "$BIN/failinj" landlock -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$ENABLED" \
		-- "$P" abstract "$ABS"
	[ "$output" = OK ]
	run "$BIN/failinj" landlock -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$ENABLED" \
		-- "$P" abstract ""
	[ "$output" = OK ]
}

# own_abstract NAME: inside, a server binds the abstract name NAME and listens, and a client
# connects to it; a name bound without listening is tried too. Prints each errno (or OK).
own_abstract() {
	python3 -c '
import errno, socket, sys
def try_connect(name):
    c = socket.socket(socket.AF_UNIX)
    try:
        c.connect(b"\0" + name)
        return "OK"
    except OSError as e:
        return errno.errorcode[e.errno]
name = sys.argv[1].encode()
s = socket.socket(socket.AF_UNIX)
s.bind(b"\0" + name)
s.listen(4)
b = socket.socket(socket.AF_UNIX)
b.bind(b"\0" + name + b"-bound")
print(try_connect(name), try_connect(name + b"-bound"))
' "$1"
}
export -f own_abstract

@test "network enabled: connect tells no host abstract name from a missing one; the sandbox's own connect" {
	local none="sbx-none-$$-$RANDOM" own="sbx-own-$$-$RANDOM"
	# Outside, the kernel tells them apart: the daemon's name listens, a missing one refuses.
	run "$P" abstract "$none"
	[ "$output" = ECONNREFUSED ]
	# Run 1, confined with the network enabled, probes both: each is refused alike (before,
	# the daemon's gave EPERM and the missing one ECONNREFUSED: the host's names, one by one).
	run with "$ENABLED" -- sh -c "'$P' abstract '$ABS'; '$P' abstract '$none'; '$P' abstract ''"
	[ "$output" = "$(printf 'EPERM\nEPERM\nEPERM')" ]
	# A name the sandbox did not bind, even one it could: refused as the host's are.
	run with "$ENABLED" -- "$P" abstract "$own"
	[ "$output" = EPERM ]
	# Positive control: a server inside binds a name and a client inside connects to it; a
	# name bound inside and not listening is refused like any other.
	run with "$ENABLED" -- bash -c "own_abstract '$own'"
	[ "$output" = "OK EPERM" ]
}

@test "a \"..\", a trailing \"/\" or a last \".\" in a socket's name: refused, never read lexically" {
	mkdir -p "$OUT/daemon/sub"
	# Run 1, confined, plants a link in the allowed directory to a directory beside the
	# daemon's socket: the kernel climbs "lnk/.." from where the link leads.
	run with "$PROFILE" -- ln -s "$OUT/daemon/sub" "$WS/agent/lnk"
	[ "$status" -eq 0 ]
	outside unix "$WS/agent/lnk/../docker.sock"
	# Positive control: the allowed socket, named plainly, absolute or relative.
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- "$P" unix "$WS/agent/agent.sock"
	[ "$output" = OK ]
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- sh -c "cd '$WS/agent' && '$P' unix agent.sock"
	[ "$output" = OK ]
	# Run 2: read lexically, "lnk/../agent.sock" connected agent.sock, where the kernel finds
	# none; through "..", the kernel's name is the daemon's. Each is refused alike.
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- "$P" unix "$WS/agent/lnk/../agent.sock"
	[ "$output" = EACCES ]
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- "$P" unix "$WS/agent/lnk/../docker.sock"
	[ "$output" = EACCES ]
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- sh -c "cd '$WS/agent' && '$P' unix ../agent/agent.sock"
	[ "$output" = EACCES ]
	# A trailing "/" names a directory, which no socket is: the kernel's ENOTDIR (the slash
	# was dropped, and the socket connected).
	run "$P" unix "$WS/agent/agent.sock/"
	[ "$output" = ENOTDIR ]
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- "$P" unix "$WS/agent/agent.sock/"
	[ "$output" = ENOTDIR ]
	# So does a last "." component: the kernel climbs into the socket (the dot was dropped,
	# and the socket connected).
	run "$P" unix "$WS/agent/agent.sock/."
	[ "$output" = ENOTDIR ]
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- "$P" unix "$WS/agent/agent.sock/."
	[ "$output" = ENOTDIR ]
	run with "$PROFILE" --allow-unix-socket "$WS/agent" -- sh -c "cd '$WS/agent' && '$P' unix agent.sock//."
	[ "$output" = ENOTDIR ]
	# With the network enabled, the writable roots' sockets go through the broker too.
	run with "$ENABLED" -- "$P" unix "$WS/agent/lnk/../agent.sock"
	[ "$output" = EACCES ]
	run with "$ENABLED" -- "$P" unix "$WS/agent/agent.sock/."
	[ "$output" = ENOTDIR ]
	run with "$ENABLED" -- "$P" unix "$WS/agent/agent.sock"
	[ "$output" = OK ]
	rm -f "$WS/agent/lnk"
}
