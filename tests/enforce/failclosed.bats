#!/usr/bin/env bats
# Fail closed: with a kernel feature hidden by a seccomp filter (failinj), a plan that needs it
# ends in exit 125 with the command not run (its canary file is not created). Where the plan
# legitimately has another mechanism, the test says so and checks that it is the one applied.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	CANARY="$WS/canary-$BATS_TEST_NUMBER"
	rm -f "$CANARY"
	WORKSPACE=$(profile restricted $(workspace_entries))
	# Reads limited to the minimal set and the workspace: only Landlock can enforce that.
	PARTIAL=$(profile restricted "$(entry_special minimal read)" "$(entry_special project_roots write)")
}

sbx_fault() { # sbx_fault FAULT PROFILE CMD...
	local fault=$1 prof=$2
	shift 2
	"$BIN/failinj" "$fault" -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$prof" -- "$@"
}

@test "control: without a fault the canary is created" {
	run sbx_fault none-such "$WORKSPACE" touch "$CANARY"
	[ "$status" -eq 2 ] # the injector refuses an unknown fault: the harness itself is checked
	PROFILE=$WORKSPACE
	run sbx touch "$CANARY"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

@test "no user/mount namespace (unshare EPERM): the .git carve-out is unenforceable, exit 125" {
	run sbx_fault unshare "$WORKSPACE" touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"read-only $WS/.git\" on linux: a read-only path inside a writable root needs a mount namespace"* ]]
	[[ "${lines[0]}" == *"(unshare: Operation not permitted)" ]]
	[[ "${lines[1]}" == "hint: allow unprivileged user namespaces"* ]]
	[ "${#lines[@]}" -eq 2 ]
	[ ! -e "$CANARY" ]
}

@test "no Landlock (ENOSYS): limited reads are unenforceable, exit 125" {
	run sbx_fault landlock "$PARTIAL" touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"read :minimal (platform defaults)\" on linux: reading only some paths needs Landlock: Landlock is unavailable"* ]]
	[[ "${lines[1]}" == "hint: Linux 5.13 or later"* ]]
	[ ! -e "$CANARY" ]
}

@test "no Landlock: the workspace profile is still enforced, by the mount namespace" {
	# Full read needs no allow-list, and the mount namespace confines writes: the plan has
	# another mechanism, so the command runs, confined.
	run sbx_fault landlock "$WORKSPACE" "$P" write "$OUT/new.txt"
	[ "$output" = EROFS ]
	run sbx_fault landlock "$WORKSPACE" "$P" append "$WS/.git/config"
	[ "$output" = EROFS ]
	run sbx_fault landlock "$WORKSPACE" "$P" tcp4 1
	[ "$output" = EPERM ]
}

@test "no seccomp: a restricted network is unenforceable, exit 125" {
	run sbx_fault seccomp "$WORKSPACE" touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"network restricted\" on linux: a restricted network needs seccomp: seccomp filters are unavailable"* ]]
	[[ "${lines[1]}" == "hint: a kernel built with CONFIG_SECCOMP_FILTER" ]]
	[ ! -e "$CANARY" ]
}

@test "the helper validates its input: usage errors and a bad profile exit 125, nothing runs" {
	run "$H" --permission-profile '{}' -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[[ "$output" == "sbxrun: --sandbox-policy-cwd is required"* ]]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile '{"type":"managed"' -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[[ "$output" == "sbxrun: --permission-profile:1:"* ]]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$WORKSPACE" --permission-profile-fd 0 -- touch "$CANARY"
	[ "$status" -eq 125 ]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$WORKSPACE"
	[ "$status" -eq 125 ]
	run "$H" --sandbox-policy-cwd relative --permission-profile "$WORKSPACE" -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[ ! -e "$CANARY" ]
}

@test "a 10,000-entry profile through --permission-profile-fd is enforced" {
	local f="$BASE/big.json" i
	{
		printf '{"type":"managed","file_system":{"type":"restricted","entries":[%s,%s' \
			"$(entry_special root read)" "$(entry_special project_roots write)"
		for i in $(seq 10000); do
			printf ',{"path":{"type":"path","path":"%s/r%d"},"access":"read"}' "$OUT" "$i"
		done
		printf ']},"network":"restricted"}'
	}>"$f"
	[ "$(stat -c %s "$f")" -gt 65536 ]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile-fd 9 -- "$P" write "$WS/big-ok" 9<"$f"
	[ "$output" = OK ]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile-fd 9 -- "$P" write "$OUT/big-no" 9<"$f"
	[ "$output" = EROFS ]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile-fd 9 -- sh -c 'ls /proc/self/fd' 9<"$f"
	[[ "$output" != *9* ]]
}
