#!/usr/bin/env bats
# Workspace write with the network enabled: loopback TCP and UDP work; the file system rules,
# abstract-socket scoping and the always-on refusals stay.
load common

uses_outside
setup() {
	outside_vars
	PROFILE=$(profile enabled $(workspace_entries))
}

@test "network enabled: TCP v4/v6 and UDP to a loopback listener outside work" {
	expect OK tcp4 "$TCP4"
	expect OK tcp6 "$TCP6"
	expect OK udp4 "$UDP4"
	# A path socket outside the writable roots is a daemon's: refused (managed.bats has more).
	outside unix "$SOCKDIR/s"
	expect EACCES unix "$SOCKDIR/s"
	run sbx env
	echo "env: status $status: ${output:0:400}"
	[[ "$output" == *"SBXRUN_SANDBOX=linux-seccomp"* ]]
	[[ "$output" != *"SBXRUN_NETWORK_DISABLED"* ]]
}

@test "network enabled: an abstract socket outside is still out of scope (EPERM)" {
	outside abstract "$ABSTRACT"
	expect EPERM abstract "$ABSTRACT"
}

@test "network enabled: raw sockets need a capability that is gone (EPERM)" {
	expect EPERM raw
	expect OK netlink
}

@test "network enabled: the file system is confined as in the workspace scenario" {
	expect OK write "$WS/new.txt"
	expect EROFS write "$OUT/new.txt"
	expect EROFS chmod "$OUT/file.txt"
	expect EROFS append "$WS/.git/config"
	expect EXDEV rename "$WS/movable.txt" "$OUT/m"
}

# Full write with a restricted network: Landlock handles the network only (a handled file-system
# right with no rule would refuse even executing the shell).
@test "unrestricted file system, restricted network: programs run, TCP is refused (EPERM)" {
	PROFILE='{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}'
	outside tcp4 "$TCP4"
	run sbx sh -c 'echo ok'
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	expect OK write "$OUT/full-write.txt"
	expect EPERM tcp4 "$TCP4"
	expect EPERM tcp6 "$TCP6"
	run sbx env
	echo "env: status $status: ${output:0:400}"
	[[ "$output" == *"SBXRUN_NETWORK_DISABLED=1"* ]]
}
