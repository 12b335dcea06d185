#!/usr/bin/env bats
# The network beyond the profile, under sandbox-exec on a real Mac: managed networking reaches
# its proxy's port and no other, an allowed Unix socket connects and another does not, local
# binding serves on loopback. Each refusal is EPERM (Seatbelt's), next to the same operation
# succeeding outside the sandbox or where the options allow it.
load common

setup_file() {
	make_layout
	start_net_listeners
}
teardown_file() { stop_net_listeners; }
setup() {
	make_layout_vars
	load_net_listeners
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_ENV=
	SBX_OPTS=()
}

@test "managed network: the proxy's port connects, another loopback port is refused" {
	outside tcp4 "$PROXY_PORT"
	outside tcp4 "$OTHER_PORT"
	SBX_ENV="HTTPS_PROXY=http://127.0.0.1:$PROXY_PORT"
	SBX_OPTS=(--managed-network)
	expect OK tcp4 "$PROXY_PORT"
	expect EPERM tcp4 "$OTHER_PORT"
	# The profile's enabled network is narrowed to the proxy all the same.
	PROFILE=$(profile enabled $(workspace_entries))
	expect OK tcp4 "$PROXY_PORT"
	expect EPERM tcp4 "$OTHER_PORT"
	# The control: the enabled network without managed networking reaches both.
	SBX_OPTS=()
	expect OK tcp4 "$OTHER_PORT"
}

@test "managed network: a proxy by name (localhost) and one given without a scheme" {
	SBX_OPTS=(--managed-network)
	SBX_ENV="http_proxy=localhost:$PROXY_PORT"
	expect OK tcp4 "$PROXY_PORT"
	expect EPERM tcp4 "$OTHER_PORT"
}

@test "managed network without a loopback proxy: refused (125) before anything runs" {
	SBX_OPTS=(--managed-network)
	run sbx "$P" write "$WS/canary"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: managed networking needs a proxy"* ]]
	SBX_ENV="HTTPS_PROXY=http://192.0.2.1:$PROXY_PORT"
	run sbx "$P" write "$WS/canary"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"is not on this machine's loopback interface"* ]]
	[ ! -e "$WS/canary" ]
}

@test "--allow-unix-socket: that socket connects with the network restricted, another does not" {
	outside unix "$NET/ok/agent.sock"
	outside unix "$NET/other.sock"
	expect EPERM unix "$NET/ok/agent.sock"
	SBX_OPTS=(--allow-unix-socket "$NET/ok/agent.sock")
	expect OK unix "$NET/ok/agent.sock"
	expect EPERM unix "$NET/other.sock"
	expect EPERM tcp4 "$PROXY_PORT"
}

@test "--allow-unix-socket on a directory: the sockets below it, not beside it" {
	SBX_OPTS=(--allow-unix-socket "$NET/ok")
	expect OK unix "$NET/ok/agent.sock"
	expect EPERM unix "$NET/other.sock"
}

@test "--allow-unix-socket with managed networking: the socket and the proxy" {
	SBX_ENV="HTTPS_PROXY=http://127.0.0.1:$PROXY_PORT"
	SBX_OPTS=(--managed-network --allow-unix-socket "$NET/ok/agent.sock")
	expect OK unix "$NET/ok/agent.sock"
	expect OK tcp4 "$PROXY_PORT"
	expect EPERM unix "$NET/other.sock"
	expect EPERM tcp4 "$OTHER_PORT"
}

@test "--allow-local-binding: a server inside binds and serves on loopback" {
	expect EPERM serve4
	SBX_OPTS=(--allow-local-binding)
	expect OK serve4
	# Seatbelt cannot tell the command's listeners from the host's: loopback services outside
	# are reachable too, as in Codex.
	expect OK tcp4 "$OTHER_PORT"
}
