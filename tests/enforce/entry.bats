#!/usr/bin/env bats
# The real entry point: `sbxrun --profile FILE -- CMD` and `sbxrun run --profile FILE --cwd DIR --
# CMD`, which plan, re-execute sbxrun as the helper and confine CMD. The four scenarios of the
# other suites (read-only; workspace write; workspace write with denied secrets; workspace write
# with the network enabled) are profile files here, and every check goes through both forms.
load common

setup_file() {
	make_layout
	mkdir -p "$OUT/secrets"
	echo key >"$OUT/secrets/key"
	echo token >"$OUT/token.txt"
	echo inner >"$WS/.env"
	echo visible >"$OUT/visible.txt"
	profile restricted "$(entry_special root read)" >"$BASE/ro.json"
	profile restricted $(workspace_entries) >"$BASE/ws.json"
	profile restricted $(workspace_entries) "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$OUT/token.txt" deny)" "$(entry_path "$WS/.env" deny)" >"$BASE/deny.json"
	profile enabled $(workspace_entries) >"$BASE/net.json"
	start_outside
}
teardown_file() { stop_outside; }
setup() {
	make_layout_vars
	load_outside
	SCENARIOS=(ro ws deny net)
}

# The two forms of the entry point; F is the profile file of the scenario.
dash() { (cd "$WS" && exec "$BIN/sbxrun" --profile "$BASE/$F.json" -- "$@"); }
subcmd() { "$BIN/sbxrun" run --profile "$BASE/$F.json" --cwd "$WS" -- "$@"; }
FORMS=(dash subcmd)

# sx ERRNO OP ARG...: the probe, through both forms, prints exactly ERRNO (or OK).
sx() {
	local want=$1 form
	shift
	for form in "${FORMS[@]}"; do
		run "$form" "$P" "$@"
		echo "$F/$form: probe $* -> $output (want $want)"
		[ "$output" = "$want" ] || return 1
	done
}

@test "read-only through sbxrun: reads work, writes EROFS; control: writable outside" {
	F=ro
	outside write "$WS/host-ro.txt"
	sx OK read "$WS/file.txt"
	sx EROFS write "$WS/new.txt"
	sx EROFS append "$WS/file.txt"
	sx EROFS chmod "$WS/file.txt"
	sx EROFS write "$TMPDIR/t.txt"
	sx EPERM tcp4 "$TCP4"
}

@test "workspace through sbxrun: workspace and /tmp writable, .git read-only, outside EROFS" {
	F=ws
	outside write "$OUT/host-ws.txt"
	sx OK write "$WS/new.txt"
	sx OK chmod "$WS/new.txt"
	sx OK write "$TMPDIR/t.txt"
	sx OK write "/tmp/sbx-entry-$$-$BATS_TEST_NUMBER"
	rm -f "/tmp/sbx-entry-$$-$BATS_TEST_NUMBER"
	sx EROFS write "$OUT/new.txt"
	sx EROFS chmod "$OUT/file.txt"
	sx EROFS append "$WS/.git/config"
	sx EROFS write "$WS/.git/hooks/pre-commit"
	sx EXDEV rename "$WS/movable.txt" "$OUT/moved.txt"
	sx EPERM tcp4 "$TCP4"
	local form
	for form in "${FORMS[@]}"; do
		run "$form" git status --short
		[ "$status" -eq 0 ]
		[[ "$output" == *"file.txt"* ]]
	done
}

@test "denied secrets through sbxrun: a directory and a file outside, a file inside, EACCES" {
	F=deny
	outside read "$OUT/token.txt"
	outside read "$WS/.env"
	outside list "$OUT/secrets"
	sx OK read "$OUT/visible.txt"
	sx EACCES read "$OUT/token.txt"
	sx EACCES read "$OUT/secrets/key"
	sx EACCES list "$OUT/secrets"
	sx EACCES read "$WS/.env"
	sx EACCES read "/proc/self/root$OUT/token.txt"
	sx OK write "$WS/other.txt"
	sx EROFS write "$OUT/new.txt"
}

@test "network enabled through sbxrun: loopback TCP v4/v6 and UDP work; the file system stays confined" {
	F=net
	sx OK tcp4 "$TCP4"
	sx OK tcp6 "$TCP6"
	sx OK udp4 "$UDP4"
	sx EPERM abstract "$ABSTRACT"
	sx OK write "$WS/net.txt"
	sx EROFS write "$OUT/new.txt"
	F=ws
	sx EPERM tcp6 "$TCP6"
	sx EPERM udp4 "$UDP4"
}

@test "exit status 42 passes through; death by SIGTERM gives 143; stdin passes through" {
	local form
	for F in "${SCENARIOS[@]}"; do
		for form in "${FORMS[@]}"; do
			run "$form" sh -c 'exit 42'
			echo "$F/$form: exit -> $status"
			[ "$status" -eq 42 ]
			run "$form" sh -c 'kill -TERM $$'
			echo "$F/$form: SIGTERM -> $status"
			[ "$status" -eq 143 ]
			run "$form" cat <<<"in $F by $form"
			[ "$output" = "in $F by $form" ]
		done
	done
}

@test "SIGTERM sent to sbxrun reaches the command, which traps it" {
	local form pid st log cmd
	for F in "${SCENARIOS[@]}"; do
		for form in "${FORMS[@]}"; do
			log="$BASE/trap-$F-$form.log"
			rm -f "$log"
			# The log is opened outside, so even the read-only scenario can write the marker.
			if [ "$form" = dash ]; then
				(cd "$WS" && exec "$BIN/sbxrun" --profile "$BASE/$F.json" -- sh -c \
					'trap "echo trapped; exit 3" TERM; echo ready; while :; do sleep 0.05; done') \
					>"$log" 2>&1 3>&- &
			else
				"$BIN/sbxrun" run --profile "$BASE/$F.json" --cwd "$WS" -- sh -c \
					'trap "echo trapped; exit 3" TERM; echo ready; while :; do sleep 0.05; done' \
					>"$log" 2>&1 3>&- &
			fi
			pid=$!
			# (Up to ten seconds: a run's set-up under a loaded machine's sanitizers takes seconds.)
			for _ in $(seq 500); do
				grep -q ready "$log" 2>/dev/null && break
				sleep 0.02
			done
			grep -q ready "$log"
			# sbxrun supervises under the command's name; the command runs below its init.
			[ "$(cat /proc/$pid/comm)" = sh ]
			cmd=$(pgrep -P "$(pgrep -P "$pid")" -x sh)
			grep -q '^SBXRUN_SANDBOX=linux-seccomp$' <(tr '\0' '\n' </proc/$cmd/environ)
			kill -TERM "$pid"
			st=0
			wait "$pid" || st=$?
			echo "$F/$form: status $st, log: $(cat "$log")"
			[ "$st" -eq 3 ]
			[ "$(cat "$log")" = "$(printf 'ready\ntrapped')" ]
		done
	done
}

@test "SBXRUN_SANDBOX and SBXRUN_NETWORK_DISABLED in the command's environment" {
	local form
	run env
	[[ "$output" != *SBXRUN_* ]]
	for F in "${SCENARIOS[@]}"; do
		for form in "${FORMS[@]}"; do
			run "$form" env
			grep -qx 'SBXRUN_SANDBOX=linux-seccomp' <<<"$output"
			if [ "$F" = net ]; then
				[[ $output != *SBXRUN_NETWORK_DISABLED* ]]
			else
				grep -qx 'SBXRUN_NETWORK_DISABLED=1' <<<"$output"
			fi
			# Nothing else is changed: the rest of the environment is the caller's.
			[ "$(grep -Ev '^(SBXRUN_[A-Z_]*|_|PWD|OLDPWD)=' <<<"$output" | sort)" = \
				"$(env | grep -Ev '^(_|PWD|OLDPWD)=' | sort)" ]
		done
	done
}

@test "a 10,000-entry profile given by --profile FILE goes through the memfd and is enforced" {
	local f="$BASE/big.json" i form
	{
		printf '{"type":"managed","file_system":{"type":"restricted","entries":[%s,%s' \
			"$(entry_special root read)" "$(entry_special project_roots write)"
		for i in $(seq 10000); do
			printf ',{"path":{"type":"path","path":"%s/r%d"},"access":"read"}' "$OUT" "$i"
		done
		printf ']},"network":"restricted"}'
	} >"$f"
	[ "$(stat -c %s "$f")" -gt 65536 ]
	# The plan shows the helper reading the profile from a descriptor, not an argument.
	"$BIN/sbxrun" explain --json --profile "$f" --cwd "$WS" -- true >"$BASE/big-plan.json"
	python3 -c '
import json, sys
argv = json.load(open(sys.argv[1]))["argv"]
i = argv.index("--permission-profile-fd")
assert argv[i + 1] == "<memfd>" and "--permission-profile" not in argv, argv[:8]
' "$BASE/big-plan.json"
	F=big
	sx OK write "$WS/big-ok"
	sx EROFS write "$OUT/big-no"
	sx EROFS append "$WS/.git/config"
	# The helper closed the descriptor: the command holds no memfd.
	for form in "${FORMS[@]}"; do
		run "$form" sh -c 'ls -l /proc/self/fd/ | grep -c memfd'
		[ "$output" = 0 ]
	done
	# Control: as one argument the profile could not be passed at all (E2BIG).
	run "$BIN/probe" euid "$(cat "$f")"
	[ "$status" -eq 126 ]
	[[ "$output" == *"Argument list too long"* ]]
}

# check_requirement STATUS RULE: does reality match what explain said of one requirement?
check_requirement() {
	local st=$1 rule=$2 p
	echo "requirement: $st $rule"
	case "$st:$rule" in
	"enforced:read /")
		sx OK read /etc/passwd ;;
	enforced:write\ *)
		p=${rule#write }
		sx OK write "$p/sbx-req-$$" && rm -f "$p/sbx-req-$$" ;;
	enforced:read-only\ *)
		p=${rule#read-only }
		if [ -d "$p" ]; then sx EROFS write "$p/sbx-req-$$"; else sx EROFS append "$p"; fi ;;
	enforced:deny\ *)
		p=${rule#deny }
		if [ -d "$p" ]; then sx EACCES list "$p"; else sx EACCES read "$p"; fi ;;
	enforced:no-create\ *)
		# An empty read-only directory inside; nothing left on the host after the run (the
		# host's /tmp is shared: another run may hold its names at that moment).
		p=${rule#no-create }
		sx EROFS mkdir "$p/x" || return 1
		[ "${p%/*}" = /tmp ] || [ ! -e "$p" ] ;;
	"enforced:signals and ptrace only inside the sandbox")
		sx ESRCH kill "$VICTIM" 0 && sx ESRCH ptrace "$VICTIM" ;;
	"enforced:System V IPC of outside processes unreachable")
		local key rc=0
		key=$(ipc_key 0x5c000000) || return 1
		[ "$(python3 "$BATS_TEST_DIRNAME/ipc.py" shm-create "$key")" = OK ] || return 1
		run dash python3 "$BATS_TEST_DIRNAME/ipc.py" shm "$key"
		[ "$output" = ENOENT ] || rc=1
		ipcrm -M "$key"
		return $rc ;;
	"enforced:no host device node reachable but the allow-list")
		[ -c /dev/kmsg ] && sx ENOENT read /dev/kmsg && sx OK write /dev/null ;;
	"enforced:processes end with the run")
		# The pid at a fixed width: no other live test's tag (the other user's pass runs beside
		# this one) starts with this one, which pgrep -f would match.
		# The command says "started" once its child runs the sleep, not while it is a fork on
		# its way to the execve (which the run's end could catch before it ran anything).
		local tag="86398.$(printf %07d $$)$RANDOM"
		run dash sh -c "sleep $tag >/dev/null 2>&1 & i=0; until pgrep -xf 'sleep $tag' >/dev/null || [ \$i -ge 500 ]; do sleep 0.02; i=\$((i+1)); done; pgrep -xf 'sleep $tag' >/dev/null && echo started"
		[ "$output" = started ] || return 1
		if pgrep -f "sleep $tag"; then pkill -f "sleep $tag"; return 1; fi ;;
	"enforced:writes confined to the writable roots"*)
		sx EROFS write "$OUT/sbx-req-$$" ;;
	"enforced:no metadata changes (chmod, chown, utimes) outside writable roots")
		sx EROFS chmod "$OUT/file.txt" ;;
	"enforced:kernel attack surface reduced")
		# The base filter: bpf refused (outside, root gets EFAULT or EINVAL for these
		# arguments), io_uring unknown so programs fall back.
		sx EPERM bpf && sx ENOSYS io_uring ;;
	"enforced:network restricted")
		sx EPERM tcp4 "$TCP4" ;;
	"enforced:network enabled")
		sx OK tcp4 "$TCP4" ;;
	"enforced:Unix sockets outside the writable roots unreachable")
		outside unix "$SOCKDIR/s" && sx EACCES unix "$SOCKDIR/s" ;;
	"enforced:abstract Unix sockets of outside processes unreachable")
		# The host's name refused, and a missing one alike (connect tells them not apart).
		outside abstract "$ABSTRACT" && sx EPERM abstract "$ABSTRACT" &&
			sx EPERM abstract "sbx-none-$$" ;;
	*)
		echo "no check for: $st $rule"
		return 1 ;;
	esac
}

@test "explain --json statuses match reality: :workspace, denied secrets, network enabled" {
	local spec rule st n
	for spec in :workspace deny net; do
		if [ "$spec" = :workspace ]; then
			F=ws
			run "$BIN/sbxrun" explain --json --profile :workspace --cwd "$WS" -- true
		else
			F=$spec
			run "$BIN/sbxrun" explain --json --profile "$BASE/$F.json" --cwd "$WS" -- true
		fi
		[ "$status" -eq 0 ]
		local plan=$output
		python3 -c 'import json,sys; assert json.loads(sys.argv[1])["enforceable"] is True' "$plan"
		n=0
		while IFS=$'\t' read -r st rule; do
			check_requirement "$st" "$rule"
			n=$((n + 1))
		done < <(python3 -c '
import json, sys
for r in json.loads(sys.argv[1])["requirements"]:
    print(r["status"] + "\t" + r["rule"])
' "$plan")
		[ "$n" -ge 8 ]
	done
	# Of :workspace, every requirement is enforced, the missing protected names by a mask:
	# .agents and .codex in the workspace and in $TMPDIR (and /tmp's).
	run "$BIN/sbxrun" explain --json --profile :workspace --cwd "$WS" -- true
	python3 -c '
import json, sys
ws, tmp = sys.argv[2], sys.argv[3]
reqs = json.loads(sys.argv[1])["requirements"]
other = {r["rule"] for r in reqs if r["status"] != "enforced"}
assert not other, other
want = {"no-create %s/%s" % (d, n) for d in (ws, tmp) for n in (".agents", ".codex")}
want |= {"no-create %s/.git" % tmp}
masked = {r["rule"] for r in reqs if r["mechanism"] == "mount-namespace"}
assert want <= masked, (want, masked)
assert "read-only %s/.git" % ws in masked
' "$output" "$WS" "$TMPDIR"
}
