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

@test "control: without a fault the canary is created" {
	run sbx_fault none-such "$WORKSPACE" touch "$CANARY"
	[ "$status" -eq 2 ] # the injector refuses an unknown fault: the harness itself is checked
	PROFILE=$WORKSPACE
	run sbx touch "$CANARY"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

@test "no user/mount namespace (unshare EPERM): the .git carve-out is unenforceable, exit 125" {
	local ws
	ws=$(profile restricted "$(entry_special root read)" "$(entry_special project_roots write)")
	run sbx_fault unshare "$ws" touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"read-only $WS/.git\" on linux: a read-only path inside a writable root needs a mount namespace"* ]]
	[[ "${lines[0]}" == *"(unshare: Operation not permitted); hint: allow unprivileged user namespaces"* ]]
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$CANARY" ]
}

@test "no user/mount namespace: a missing .agents cannot be kept from being created, exit 125" {
	local root="$BASE/nogit"
	rm -rf "$root"
	mkdir -p "$root"
	prof=$(profile restricted "$(entry_special root read)" "$(entry_path "$root" write)" \
		"$(entry_path "$root/.git" write)")
	run sbx_fault unshare "$prof" touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"no-create $root/.agents\" on linux: $root/.agents does not exist; refusing its creation inside a writable root needs a mount namespace"* ]]
	[ ! -e "$CANARY" ]
	[ -z "$(ls -A "$root")" ]
	# Control: with a mount namespace the same profile runs, and the name stays uncreated.
	PROFILE=$prof SBX_CWD=$root
	expect EROFS mkdir "$root/.agents/x"
	[ -z "$(ls -A "$root")" ]
}

@test "no Landlock (ENOSYS): limited reads are unenforceable, exit 125" {
	run sbx_fault landlock "$PARTIAL" touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"read :minimal (platform defaults)\" on linux: reading only some paths needs Landlock: Landlock is unavailable"* ]]
	[[ "${lines[0]}" == *"; hint: Linux 5.13 or later"* ]]
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

@test "no Landlock and no mount namespace: read-only writes cannot be confined, exit 125" {
	local ro
	ro=$(profile restricted "$(entry_special root read)")
	# Controls: with either mechanism present the same profile runs, confined.
	PROFILE=$ro
	expect EROFS write "$OUT/new.txt"
	run sbx_fault landlock "$ro" "$P" write "$OUT/new.txt"
	[ "$output" = EROFS ]
	run sbx_fault unshare "$ro" "$P" write "$OUT/new.txt"
	[ "$output" = EACCES ]
	outside write "$OUT/new.txt"
	rm -f "$OUT/new.txt"
	# With neither, no requirement may be called enforced: the helper refuses, nothing runs.
	run sbx_fault landlock,unshare "$ro" touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"writes confined to the writable roots (none)\" on linux: confining writes needs Landlock or a mount namespace"* ]]
	[ ! -e "$CANARY" ]
	# So does run with the built-in profile, and explain says why.
	run "$BIN/failinj" landlock,unshare -- "$BIN/sbxrun" --cwd "$WS" --profile :read-only -- \
		touch "$CANARY"
	[ "$status" -eq 125 ]
	[ ! -e "$CANARY" ]
	run "$BIN/failinj" landlock,unshare -- "$BIN/sbxrun" explain --cwd "$WS" --json \
		--profile :read-only -- true
	python3 -c '
import json, sys
plan = json.loads(sys.argv[1])
assert plan["enforceable"] is False, plan
w = [r for r in plan["requirements"] if r["rule"] == "writes confined to the writable roots (none)"]
assert len(w) == 1 and w[0]["status"] == "unenforceable", w
' "$output"
}

@test "no seccomp: a restricted network is unenforceable, exit 125" {
	run sbx_fault seccomp "$WORKSPACE" touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"network restricted\" on linux: a restricted network needs seccomp: seccomp filters are unavailable"* ]]
	[[ "${lines[0]}" == *"; hint: a kernel built with CONFIG_SECCOMP_FILTER" ]]
	[ ! -e "$CANARY" ]
}

# plan_get JSON EXPR: EXPR (Python, over the explain --json plan j) printed.
plan_get() {
	python3 -c '
import json, sys
j = json.loads(sys.argv[1])
def rule(name):
    return [r for r in j["requirements"] if r["rule"] == name][0]
print(eval(sys.argv[2]))' "$1" "$2"
}

@test "no seccomp: every sandbox needs it (its base filter), explain and run agree, exit 125" {
	local unr="$BASE/unrestricted-$BATS_TEST_NUMBER.json" mark="ran-$BATS_TEST_NUMBER" opts rule
	echo '{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}' >"$unr"
	# Each case: the options, then the rule the refusal names (the first explain calls
	# unenforceable). With the network enabled no other requirement needs seccomp.
	local cases=(
		"--network|kernel attack surface reduced"
		"--profile :read-only|network restricted"
		"--profile :read-only --network|kernel attack surface reduced"
		"--profile $unr|network restricted"
		"--sandbox require --profile :danger-full-access|kernel attack surface reduced"
	)
	for c in "${cases[@]}"; do
		read -ra opts <<<"${c%%|*}"
		rule=${c#*|}
		echo "case: ${opts[*]}"
		run "$BIN/failinj" seccomp -- "$BIN/sbxrun" explain --json --cwd "$WS" "${opts[@]}" -- true
		[ "$status" -eq 0 ]
		[ "$(plan_get "$output" 'j["enforceable"]')" = False ]
		[ "$(plan_get "$output" '[r["rule"] for r in j["requirements"] if r["status"] == "unenforceable"][0]')" = "$rule" ]
		[ "$(plan_get "$output" 'rule("kernel attack surface reduced")["status"]')" = unenforceable ]
		run "$BIN/failinj" seccomp -- "$BIN/sbxrun" --cwd "$WS" "${opts[@]}" -- echo "$mark"
		echo "$output"
		[ "$status" -eq 125 ]
		[[ "${lines[0]}" == "sbxrun: cannot enforce \"$rule\" on linux: "*"needs seccomp: seccomp filters are unavailable"* ]]
		[[ "${lines[0]}" == *"; hint: a kernel built with CONFIG_SECCOMP_FILTER" ]]
		[ "${#lines[@]}" -eq 1 ]
		[[ "$output" != *"$mark"* ]]
		# The positive control: without the fault the same plan is enforced, the filter loaded.
		run "$BIN/sbxrun" explain --json --cwd "$WS" "${opts[@]}" -- true
		[ "$(plan_get "$output" 'j["enforceable"]')" = True ]
		[ "$(plan_get "$output" 'rule("kernel attack surface reduced")["mechanism"]')" = seccomp ]
		run "$BIN/sbxrun" --cwd "$WS" "${opts[@]}" -- echo "$mark"
		[ "$status" -eq 0 ]
		[ "$output" = "$mark" ]
	done
}

# net_fault FAULT PROFILE OPTION... -- CMD...: the helper with network options, under a fault.
net_fault() {
	local fault=$1 prof=$2
	shift 2
	"$BIN/failinj" "$fault" -- "$H" --sandbox-policy-cwd "$WS" --permission-profile "$prof" "$@"
}

@test "managed networking without user namespaces (unshare EPERM): refused, exit 125" {
	# Nothing else in this profile needs a namespace (Landlock confines it): only the network.
	# (Its missing protected names are left writable: masking them would need one too.)
	NETONLY=$(profile restricted "$(entry_special root read)" "$(entry_path "$OUT" write)" \
		$(unprotected "$OUT"))
	canary="$OUT/canary-$BATS_TEST_NUMBER"
	rm -f "$canary"
	run net_fault unshare "$NETONLY" --allow-domain localhost -- touch "$canary"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"managed network: only through sbxrun's proxy, to localhost\" on linux: managed networking needs a network namespace of the sandbox's own: no mount namespace can be made"*"(unshare: Operation not permitted); hint: allow unprivileged user namespaces"* ]]
	[ ! -e "$canary" ]
	# The positive controls: the same profile without the network option, and without the fault.
	# (Not touch: without a mount namespace seccomp refuses the times it sets.)
	run net_fault unshare "$NETONLY" -- sh -c ": >'$canary'"
	echo "$output"
	[ "$status" -eq 0 ]
	rm "$canary"
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$NETONLY" \
		--allow-domain localhost -- touch "$canary"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -e "$canary" ]
	rm "$canary"
}

@test "a network namespace the kernel refuses at the start (clone EPERM): exit 125, nothing runs" {
	run net_fault newnet "$WORKSPACE" --allow-domain localhost -- touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: clone("*"CLONE_NEWNET): Operation not permitted; hint: "* ]]
	[ ! -e "$CANARY" ]
	# The fault touches only the network namespace: a profile without one still runs.
	run net_fault newnet "$WORKSPACE" -- touch "$CANARY"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

@test "no Unix socket broker (pidfd_getfd ENOSYS): a socket allow-list is refused, exit 125" {
	run net_fault getfd "$WORKSPACE" --allow-unix-socket "$WS" -- touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" == *"connecting to one Unix socket and no other needs the supervisor's broker: kernel "*" lacks seccomp user notification with pidfd_getfd"* ]]
	[ ! -e "$CANARY" ]
	# With the network enabled the run goes on, and explain says what is not enforced.
	ENABLED=$(profile enabled $(workspace_entries))
	run net_fault getfd "$ENABLED" -- touch "$CANARY"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
	printf '%s' "$ENABLED" >"$BATS_TEST_TMPDIR/enabled.json"
	run "$BIN/failinj" getfd -- "$BIN/sbxrun" explain -C "$WS" -p "$BATS_TEST_TMPDIR/enabled.json" -- true
	echo "$output"
	[[ "$output" == *"Unix sockets outside the writable roots unreachable"*"none"*"skipped"* ]]
	run "$BIN/sbxrun" explain -C "$WS" -p "$BATS_TEST_TMPDIR/enabled.json" -- true
	[[ "$output" == *"Unix sockets outside the writable roots unreachable"*"seccomp+unix-broker"*"enforced"* ]]
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
	# Managed networking with no proxy variable, or a context that does not load: refused.
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$WORKSPACE" \
		--managed-network '{"loopback_ports":[]}' -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[[ "$output" == "sbxrun: managed networking needs a proxy, and no proxy variable is set"* ]]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$WORKSPACE" \
		--managed-network '{"loopback_ports":[0]}' -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: --managed-network:1:20: /loopback_ports/0: a loopback port must be an integer from 1 to 65535" ]
	run "$H" --sandbox-policy-cwd "$WS" --permission-profile "$WORKSPACE" \
		--allow-domain example.com --managed-network '{}' -- touch "$CANARY"
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

# Without a mount namespace a deny inside a readable tree is enforced by Landlock alone: the tree
# is granted around the denied path (a rule on each entry beside the way down to it).
@test "no mount namespace: a denied file in a readable tree is EACCES, its siblings readable" {
	local d="$OUT/carve"
	rm -rf "$d"
	mkdir -p "$d/sub/deeper"
	echo s >"$d/sub/secret.txt"
	echo v >"$d/sub/visible.txt"
	echo w >"$d/sub/deeper/w.txt"
	echo x >"$d/beside.txt"
	ln -s secret.txt "$d/sub/link-to-secret"
	local prof
	prof=$(profile restricted "$(entry_special root read)" "$(entry_path "$d/sub/secret.txt" deny)")
	outside read "$d/sub/secret.txt"
	run sbx_fault unshare "$prof" "$P" read "$d/sub/secret.txt"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" read "$d/sub/link-to-secret"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" read "/proc/self/root$d/sub/secret.txt"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" read "$d/sub/visible.txt"
	[ "$output" = OK ]
	run sbx_fault unshare "$prof" "$P" read "$d/sub/deeper/w.txt"
	[ "$output" = OK ]
	run sbx_fault unshare "$prof" "$P" read "$d/beside.txt"
	[ "$output" = OK ]
	run sbx_fault unshare "$prof" "$P" read /etc/passwd
	[ "$output" = OK ]
	# The directories on the way stay listable when the denied path is a file.
	run sbx_fault unshare "$prof" "$P" list "$d/sub"
	[ "$output" = OK ]
	run sbx_fault unshare "$prof" "$P" list /
	[ "$output" = OK ]
	# Still read-only everywhere (no writable root), metadata refused by seccomp.
	run sbx_fault unshare "$prof" "$P" write "$d/sub/new.txt"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" chmod "$d/sub/visible.txt"
	[ "$output" = EPERM ]
	# And no mount namespace was made: the probe ran, confined by Landlock alone.
	run sbx_fault unshare "$prof" sh -c 'cat /proc/self/status'
	grep -qx "NoNewPrivs:	1" <<<"$output"
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" explain --cwd "$WS" --json \
		--profile <(echo "$prof") -- true
	python3 -c '
import json, sys
plan = json.loads(sys.argv[1])
deny = [r for r in plan["requirements"] if r["rule"].startswith("deny ")]
assert len(deny) == 1 and deny[0]["mechanism"] == "landlock" and deny[0]["status"] == "enforced", deny
assert "grants the readable tree around it" in deny[0]["why"], deny
' "$output"
}

@test "no mount namespace: a denied directory is EACCES, its siblings readable, its parent unlisted" {
	local d="$OUT/carvedir"
	rm -rf "$d"
	mkdir -p "$d/secrets" "$d/other"
	echo k >"$d/secrets/key"
	echo o >"$d/other/o.txt"
	echo t >"$d/top.txt"
	local prof
	prof=$(profile restricted "$(entry_special root read)" "$(entry_path "$d/secrets" deny)")
	outside list "$d/secrets"
	run sbx_fault unshare "$prof" "$P" list "$d/secrets"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" read "$d/secrets/key"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" read "$d/other/o.txt"
	[ "$output" = OK ]
	run sbx_fault unshare "$prof" "$P" list "$d/other"
	[ "$output" = OK ]
	run sbx_fault unshare "$prof" "$P" read "$d/top.txt"
	[ "$output" = OK ]
	# Listing a directory above a denied directory would list it too: stricter, refused.
	run sbx_fault unshare "$prof" "$P" list "$d"
	[ "$output" = EACCES ]
}

@test "no mount namespace: a deny glob's matches in a readable tree are EACCES" {
	local d="$OUT/carveglob"
	rm -rf "$d"
	mkdir -p "$d/a" "$d/b"
	echo 1 >"$d/a/one.key"
	echo 2 >"$d/b/two.key"
	echo 3 >"$d/b/three.txt"
	local prof
	prof=$(profile restricted "$(entry_special root read)" \
		'{"path":{"type":"glob_pattern","pattern":"'"$d"'/**/*.key"},"access":"deny"}')
	run sbx_fault unshare "$prof" "$P" read "$d/a/one.key"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" read "$d/b/two.key"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" read "$d/b/three.txt"
	[ "$output" = OK ]
}

@test "no mount namespace: a deny inside a writable root is unenforceable, exit 125" {
	local prof
	prof=$(profile restricted "$(entry_special root read)" "$(entry_path "$OUT" write)" \
		$(unprotected "$OUT") "$(entry_path "$OUT/file.txt" deny)")
	rm -f "$OUT/canary"
	run sbx_fault unshare "$prof" touch "$OUT/canary"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"deny $OUT/file.txt\" on linux: denying $OUT/file.txt inside a writable root needs a mount namespace"* ]]
	[ ! -e "$OUT/canary" ]
}

@test "no mount namespace: a directory on the way with more than 4096 entries refuses, exit 125" {
	local d="$OUT/crowded" prof cw="$BASE/cw"
	rm -rf "$d" "$cw"
	mkdir -p "$d" "$cw"
	(cd "$d" && seq 4096 | xargs touch)
	echo s >"$d/4000"
	prof=$(profile restricted "$(entry_special root read)" "$(entry_path "$cw" write)" \
		$(unprotected "$cw") "$(entry_path "$d/4000" deny)")
	# Control: at the limit the command runs, the denied file EACCES, the canary written.
	run sbx_fault unshare "$prof" "$P" read "$d/4000"
	[ "$output" = EACCES ]
	run sbx_fault unshare "$prof" "$P" read "$d/4096"
	[ "$output" = OK ]
	run sbx_fault unshare "$prof" "$P" write "$cw/canary"
	[ "$output" = OK ]
	rm "$cw/canary"
	# One entry more: refused before anything runs.
	touch "$d/4097"
	run sbx_fault unshare "$prof" "$P" write "$cw/canary"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce the denied paths inside / without a mount namespace: $d has more than 4096 entries (each would need its own Landlock rule); hint: "* ]]
	[[ "${lines[0]}" == *"; hint: allow user namespaces"* ]]
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$cw/canary" ]
	# With a mount namespace the same profile is enforced by masking, whatever the count.
	PROFILE=$prof
	expect EACCES read "$d/4000"
	expect OK read "$d/4097"
}

@test "a kernel that mounts onto attached mounts only (before 6.15): the same /dev and /proc, built once" {
	local log="$BATS_TEST_TMPDIR/mounts" want made
	local look='ls -A /dev | tr "\n" " "; ls -A /dev/pts; set -- /proc/[0-9]*; echo $#; grep -c " /proc/sys ro," /proc/self/mountinfo'
	# strace cannot read the names a process in a user namespace of its own passes (uid
	# 65534): the calls are told apart by their descriptors and flags.
	local trace=(strace -f -qq -e trace=move_mount,fsopen,open_tree -o "$log")
	PROFILE=$WORKSPACE
	# Control: on Linux 6.15 and later /dev and /proc are assembled detached, each piece
	# mounted onto a name under its top's descriptor: only the two tops are mounted on by path
	# (AT_FDCWD). An older kernel takes the other path by itself, as under the fault below.
	local major minor old=0
	IFS=. read -r major minor _ <<<"$(uname -r)"
	if [ "$major" -lt 6 ] || { [ "$major" -eq 6 ] && [ "${minor%%[!0-9]*}" -lt 15 ]; }; then
		old=1
	fi
	run "${trace[@]}" "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- \
		sh -c "$look"
	[ "$status" -eq 0 ]
	want=$output
	echo "control: $(echo $want)"
	[ "$(echo $want)" = "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero ptmx 2 1" ]
	if [ "$old" = 1 ]; then
		[ "$(grep -c 'move_mount(.*MOVE_MOUNT_F_EMPTY_PATH) = -1 EINVAL' "$log")" -eq 2 ]
		[ "$(grep -c 'move_mount(.*AT_FDCWD' "$log")" -gt 10 ]
	else
		[ "$(grep -c 'EINVAL' "$log")" -eq 0 ]
		[ "$(grep -c 'move_mount(.*AT_FDCWD' "$log")" -eq 2 ]
	fi
	made=$(grep -cE '^[0-9]+ +(fsopen|open_tree)\(' "$log")
	# Under the fault the first mount onto each detached top answers EINVAL; the pieces
	# already made are mounted by path once their top is attached, and nothing is made twice.
	run "${trace[@]}" "$BIN/failinj" detached -- "$H" --sandbox-policy-cwd "$WS" \
		--permission-profile "$PROFILE" -- sh -c "$look"
	cat "$log"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	[ "$(grep -c 'move_mount(.*MOVE_MOUNT_F_EMPTY_PATH) = -1 EINVAL' "$log")" -eq 2 ]
	[ "$(grep -c 'move_mount(.*AT_FDCWD' "$log")" -gt 10 ]
	[ "$(grep -cE '^[0-9]+ +(fsopen|open_tree)\(' "$log")" -eq "$made" ]
	# The private /dev and /proc hold as they do on this kernel.
	run sbx_fault detached "$PROFILE" "$P" mkdir /dev/new
	[ "$output" = EROFS ]
	run sbx_fault detached "$PROFILE" "$P" write /dev/shm/x
	[ "$output" = OK ]
	run sbx_fault detached "$PROFILE" "$P" write /dev/null
	[ "$output" = OK ]
	run sbx_fault detached "$PROFILE" "$P" write /proc/sys/kernel/ns_last_pid
	[ "$output" = EROFS ]
	run sbx_fault detached "$PROFILE" "$P" read /dev/zero
	[ "$output" = OK ]
}
