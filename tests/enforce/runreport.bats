#!/usr/bin/env bats
# sbxrun --report FILE|- through sbxrun itself (cmd/runreport.c): the tracer of the Linux helper
# decides each failed call with the plan, the network's refusals (the network's filter, the
# Unix-socket broker, sbxrun's proxy) join them, and sbxrun prints one summary line when the
# command failed. Every case runs a dynamic and a static probe through a shell that forks and
# execs it, compares the whole report (time and pid aside) with what the case denies, and beside
# it makes the same operation where the profile allows it, which must leave no record.
load common
bats_require_minimum_version 1.5.0

S="$BIN/sbxrun"
PROBES=("$BIN/probe" "$BIN/probe-static")
# LeakSanitizer cannot run in a traced process (it uses ptrace itself): see trace.bats.
NOLEAK=(env ASAN_OPTIONS=detect_leaks=0)

setup_file() { make_layout; }

setup() {
	make_layout_vars
	REP="$BATS_TEST_TMPDIR/report.json"
	rm -f "$REP"
}

# sbxr ARGS... -- CMD...: sbxrun with the report in $REP, in the workspace (:workspace there).
sbxr() { "$S" -C "$WS" --report "$REP" "$@"; }

# The report with what changes from run to run made constant: its time, and a pid (a number).
norm() { sed -E 's/^\{"time":"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]{12}Z","pid":[0-9]+,/{"time":T,"pid":N,/' "${1:-$REP}"; }

# rec OP PATH ERRNO RULE MECHANISM [COMM]: one expected line of a file operation.
rec() {
	printf '{"time":T,"pid":N,"comm":"%s","op":"%s","path":"%s","errno":"%s","rule":"%s","mechanism":"%s"}\n' \
		"${6:-$(basename "$p")}" "$1" "$2" "$3" "$4" "$5"
}

# The rule `sbxrun access` gives a path, as the report must word it.
# listen_unix PATH: a Unix-socket server at PATH for 30 s, in the background (its pid in
# SRV_PIDS), returned once it listens (the file exists from bind(2) on, and a connect before
# listen(2) is refused); false if it does not.
listen_unix() {
	python3 -c "import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(8); time.sleep(30)" "$1" 3>&- &
	SRV_PIDS+=($!)
	await_listening "$1"
}

rule_of() { "$S" access -C "$WS" "$@" | sed -nE 's/^[a-z]+ +[^ ]+  \((entries\[[0-9]+\]: .*)\)$/\1/p' | head -1; }

@test "a write under the read-only .git: exactly one record; the same write in the workspace none" {
	rule=$(rule_of "$WS/.git/index.lock")
	[ -n "$rule" ]
	for p in "${PROBES[@]}"; do
		rm -f "$REP" "$WS/ok"
		run sbxr -- "${NOLEAK[@]}" sh -c "'$p' write '$WS/.git/index.lock'; '$p' write '$WS/ok'"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = "$(printf 'EROFS\nOK')" ]
		diff <(norm) <(rec create "$WS/.git/index.lock" EROFS "$rule" mount-namespace)
	done
}

@test "a write to an existing read-only file (.git/HEAD): op write, EROFS" {
	rule=$(rule_of "$WS/.git/HEAD")
	for p in "${PROBES[@]}"; do
		rm -f "$REP"
		run sbxr -- "${NOLEAK[@]}" sh -c "'$p' append '$WS/.git/HEAD'; '$p' append '$WS/file.txt'"
		[ "$output" = "$(printf 'EROFS\nOK')" ]
		diff <(norm) <(rec write "$WS/.git/HEAD" EROFS "$rule" mount-namespace)
	done
}

@test "a read of a denied file: EACCES, the deny entry named; a readable file beside it: none" {
	echo secret >"$WS/secret"
	for p in "${PROBES[@]}"; do
		rm -f "$REP"
		run sbxr --deny "$WS/secret" -- "${NOLEAK[@]}" sh -c "'$p' read '$WS/secret'; '$p' read '$WS/file.txt'"
		echo "$output"
		[ "$output" = "$(printf 'EACCES\nOK')" ]
		rule=$("$S" access -C "$WS" --deny "$WS/secret" "$WS/secret" | sed -nE 's/.*\((entries\[[0-9]+\]: deny .*)\)$/\1/p')
		[ -n "$rule" ]
		diff <(norm) <(rec read "$WS/secret" EACCES "$rule" mount-namespace)
	done
}

@test "a create inside a protected name (.codex, missing): EROFS; outside it: none" {
	[ ! -e "$WS/.codex" ]
	for p in "${PROBES[@]}"; do
		rm -f "$REP"
		run sbxr -- "${NOLEAK[@]}" sh -c "'$p' write '$WS/.codex/config.toml'; '$p' write '$WS/codex.toml'"
		echo "$output"
		[ "$output" = "$(printf 'EROFS\nOK')" ]
		rule=$(rule_of "$WS/.codex/config.toml")
		[ -n "$rule" ]
		diff <(norm) <(rec create "$WS/.codex/config.toml" EROFS "$rule" mount-namespace)
	done
	[ ! -e "$WS/.codex" ]
}

@test "the words of the rule: those of access, the protected name named" {
	[ "$(rule_of "$WS/.git/index.lock")" = "entries[4]: read-only .git (protected)" ]
	[ "$(rule_of "$WS/.codex/config.toml")" = "entries[6]: read-only .codex (protected; missing: cannot be created)" ]
}

@test "the point at a missing .codex: mkdir EEXIST, open for writing EISDIR; the same elsewhere: none" {
	[ ! -e "$WS/.codex" ]
	rule="entries[6]: read-only .codex (protected; missing: cannot be created)"
	[ "$(rule_of "$WS/.codex")" = "$rule" ]
	mkdir -p "$WS/made"
	for p in "${PROBES[@]}"; do
		rm -f "$REP"
		# The controls: a directory that exists (an ordinary EEXIST), one opened for writing
		# (an ordinary EISDIR), and a new one (made).
		run sbxr -- "${NOLEAK[@]}" sh -c "'$p' mkdir '$WS/.codex'; '$p' write '$WS/.codex'; '$p' mkdir '$WS/made'; '$p' write '$WS/made'; '$p' mkdir '$WS/new-dir'"
		echo "$output"
		[ "$output" = "$(printf 'EEXIST\nEISDIR\nEEXIST\nEISDIR\nOK')" ]
		diff <(norm) <(rec create "$WS/.codex" EEXIST "$rule" mount-namespace
			rec write "$WS/.codex" EISDIR "$rule" mount-namespace)
		rmdir "$WS/new-dir"
	done
	[ ! -e "$WS/.codex" ]
}

@test "git mode: a kept name missing (hooks): mkdir EEXIST at its point; a write in .git: none" {
	rm -rf "$WS/.git/hooks"
	rule="entries[1]: read-only .git/hooks (git mode: git runs the programs in it; missing: cannot be created)"
	wt_rule="entries[1]: read-only .git/config.worktree (git mode: it can name programs git runs; missing: cannot be created)"
	[ "$("$S" access -C "$WS" --allow-git "$WS/.git/hooks" | sed -nE 's/.*  \((.*)\)$/\1/p')" = "$rule" ]
	for p in "${PROBES[@]}"; do
		rm -f "$REP" "$WS/.git/ok"
		# A name below the missing config.worktree (a file point): ENOTDIR, recorded; below
		# an ordinary file: ENOTDIR, not.
		run sbxr --allow-git -- "${NOLEAK[@]}" sh -c "'$p' mkdir '$WS/.git/hooks'; '$p' write '$WS/.git/ok'; '$p' write '$WS/.git/config.worktree/x'; '$p' write '$WS/file.txt/x'; true"
		echo "$output"
		[ "$output" = "$(printf 'EEXIST\nOK\nENOTDIR\nENOTDIR')" ]
		diff <(norm) <(rec create "$WS/.git/hooks" EEXIST "$rule" mount-namespace
			rec create "$WS/.git/config.worktree/x" ENOTDIR "$wt_rule" mount-namespace)
	done
	[ ! -e "$WS/.git/hooks" ]
	[ ! -e "$WS/.git/config.worktree" ]
	rm -f "$WS/.git/ok"
}

@test "an exec of a denied program: the shell's exec is recorded; an allowed copy runs" {
	for p in "${PROBES[@]}"; do
		cp "$p" "$WS/denied-prog"
		cp "$p" "$WS/allowed-prog"
		rm -f "$REP"
		run sbxr --deny "$WS/denied-prog" -- "${NOLEAK[@]}" sh -c "'$WS/denied-prog' euid; '$WS/allowed-prog' euid >/dev/null && echo ran"
		echo "$output"
		[ "$(grep -c '^ran$' <<<"$output")" -eq 1 ]
		grep -q 'Permission denied' <<<"$output"
		rule=$("$S" access -C "$WS" --deny "$WS/denied-prog" "$WS/denied-prog" | sed -nE 's/.*\((entries\[[0-9]+\]: deny .*)\)$/\1/p')
		diff <(norm) <(rec exec "$WS/denied-prog" EACCES "$rule" mount-namespace sh)
	done
}

@test "a connect with the network restricted: the socket refused by seccomp; with --network none" {
	for p in "${PROBES[@]}"; do
		rm -f "$REP"
		run sbxr -- "${NOLEAK[@]}" sh -c "'$p' tcp4 127.0.0.1 9; true"
		[ "$output" = EPERM ]
		diff <(norm) <(printf '{"time":T,"pid":N,"comm":"%s","op":"socket","address":"AF_INET stream","errno":"EPERM","rule":"network restricted","mechanism":"seccomp"}\n' "$(basename "$p")")
		rm -f "$REP"
		run sbxr --network -- "${NOLEAK[@]}" sh -c "'$p' tcp4 127.0.0.1 9; true"
		[ "$output" = ECONNREFUSED ]
		[ -f "$REP" ]
		[ ! -s "$REP" ]
	done
}

@test "the Unix-socket broker: a socket not allowed is refused (seccomp-notify); the allowed one connects" {
	sock="$BATS_TEST_TMPDIR/ok.sock"
	listen_unix "$sock"
	for p in "${PROBES[@]}"; do
		rm -f "$REP"
		run sbxr --allow-unix-socket "$sock" -- "${NOLEAK[@]}" sh -c "'$p' unix '$WS/none.sock'; '$p' unix '$sock'"
		echo "$output"
		[ "$output" = "$(printf 'EACCES\nOK')" ]
		diff <(norm) <(printf '{"time":T,"pid":N,"comm":"%s","op":"connect","address":"unix:%s","errno":"EACCES","rule":"Unix sockets: neither an allowed socket nor below an allowed directory","mechanism":"seccomp-notify"}\n' "$(basename "$p")" "$WS/none.sock")
	done
	kill "${SRV_PIDS[@]}"
}

@test "the broker does not follow a link beneath an allowed directory: recorded; the socket itself connects" {
	dir="$BATS_TEST_TMPDIR/socks"
	mkdir -p "$dir"
	listen_unix "$dir/real.sock"
	listen_unix "$dir/closed.sock"
	chmod 0 "$dir/closed.sock"
	ln -sf real.sock "$dir/link.sock"
	ln -sfn . "$dir/sub"
	for p in "${PROBES[@]}"; do
		rm -f "$REP"
		run sbxr --allow-unix-socket "$dir" -- "${NOLEAK[@]}" sh -c "'$p' unix '$dir/link.sock'; '$p' unix '$dir/sub/real.sock'; '$p' unix '$dir/real.sock'"
		echo "$output"
		[ "$output" = "$(printf 'ECONNREFUSED\nEACCES\nOK')" ]
		diff <(norm) <(for a in "link.sock ECONNREFUSED" "sub/real.sock EACCES"; do
			set -- $a
			printf '{"time":T,"pid":N,"comm":"%s","op":"connect","address":"unix:%s","errno":"%s","rule":"Unix sockets: a symbolic link or another mount on the way, which the broker does not follow","mechanism":"seccomp-notify"}\n' "$(basename "$p")" "$dir/$1" "$2"
		done)
		# A socket whose mode refuses the caller (root too: no capability in the sandbox): the
		# file's permission, as for a file, not a rule of the profile, so never a record.
		rm -f "$REP"
		run sbxr --allow-unix-socket "$dir" -- "${NOLEAK[@]}" "$p" unix "$dir/closed.sock"
		echo "$output"
		[ "$output" = EACCES ]
		[ -f "$REP" ]
		[ ! -s "$REP" ]
	done
	kill "${SRV_PIDS[@]}"
}

@test "an abstract socket outside, through the broker: Landlock's scope recorded; one made inside connects" {
	name="sbxrun-report-$$-$SBX_USER"
	python3 -c "import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind('\0'+sys.argv[1]); s.listen(8); time.sleep(30)" "$name-out" 3>&- &
	srv=$!
	await_listening "@$name-out"
	for p in "${PROBES[@]}"; do
		rm -f "$REP"
		run sbxr --network -- "${NOLEAK[@]}" sh -c "python3 -c \"import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(b'\\\\0'+sys.argv[1].encode()); s.listen(8); time.sleep(30)\" '$name-in' & i=0; until grep -q ' 00010000 0001 01 *[0-9][0-9]* @$name-in\$' /proc/net/unix || [ \$i -ge 1500 ]; do sleep 0.02; i=\$((i+1)); done; '$p' abstract '$name-out'; '$p' abstract '$name-in'; kill \$!"
		echo "$output"
		[ "$output" = "$(printf 'EPERM\nOK')" ]
		diff <(norm) <(printf '{"time":T,"pid":N,"comm":"%s","op":"connect","address":"unix:@%s","errno":"EPERM","rule":"abstract Unix sockets: only those made inside the sandbox","mechanism":"landlock"}\n' "$(basename "$p")" "$name-out")
	done
	kill "$srv"
}

@test "an abstract socket of the host's, the network restricted: the broker's own refusal recorded, the empty name's too" {
	# With a Unix socket allowed and no network namespace, every abstract socket is the host's:
	# the broker refuses it itself, whatever Landlock scopes. The empty name (a NUL alone,
	# three bytes) is an abstract address like any other.
	name="sbxrun-host-$$-$SBX_USER"
	# The empty name is one for the whole machine: the other user's pass, in this case at the
	# same moment, waits for this one to end (a lock on the directory both passes share).
	exec 8<"$BIN"
	flock -w 120 8
	python3 "$BATS_TEST_DIRNAME/../net/unix_echo.py" "@$name" "@" 2>/dev/null 3>&- 8<&- &
	srv=$!
	await_listening "@$name" @
	for p in "${PROBES[@]}"; do
		# The positive control: both reachable outside.
		run "$p" abstract "$name"
		[ "$output" = OK ]
		run "$p" abstract ""
		[ "$output" = OK ]
		rm -f "$REP"
		run sbxr --allow-unix-socket "$WS/none.sock" -- "${NOLEAK[@]}" sh -c "'$p' abstract '$name'; '$p' abstract ''; exit 0" 8<&-
		echo "$output"
		[ "$output" = "$(printf 'EPERM\nEPERM')" ]
		diff <(norm) <(for a in "@$name" "@"; do
			printf '{"time":T,"pid":N,"comm":"%s","op":"connect","address":"unix:%s","errno":"EPERM","rule":"abstract Unix sockets: the host'"'"'s network namespace, the network restricted","mechanism":"seccomp-notify"}\n' "$(basename "$p")" "$a"
		done)
	done
	kill "$srv"
}

@test "an abstract name with a NUL and a control byte: the broker and the tracer word it alike" {
	# Bytes 0, ESC and 0xff inside the name: shown as "@", "\x1b" and "\xff" (never raw on a
	# terminal, and the record still written though the name is not UTF-8), and
	# the name not cut at its NUL; the same address whether the broker (network enabled) or the
	# tracer (network restricted) met the connect.
	name="sbxrun-nul-$$-$SBX_USER"
	python3 -c "import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(b'\0'+sys.argv[1].encode()+b'\0in\x1b\xffside'); s.listen(8); time.sleep(30)" "$name" 3>&- &
	srv=$!
	for _ in $(seq 500); do
		grep -qa " 00010000 0001 01 *[0-9][0-9]* @$name@in" /proc/net/unix && break
		sleep 0.02
	done
	conn="import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(b'\0'+sys.argv[1].encode()+b'\0in\x1b\xffside'); print('OK')
except OSError as e: print(e.errno)"
	# The positive control: outside, the name is reachable as written.
	[ "$(python3 -c "$conn" "$name")" = OK ]
	for net in --network ""; do
		rm -f "$REP"
		run sbxr $net -- "${NOLEAK[@]}" python3 -c "$conn" "$name"
		echo "$output"
		[ "$output" = 1 ]
		grep -F "\"address\":\"unix:@$name@in\\\\x1b\\\\xffside\"" "$REP"
	done
	kill "$srv"
}

@test "a path socket's name with a control byte, a backslash and 0xff: worded as an abstract one's" {
	# A byte that is not UTF-8 copied raw would make the JSON line unwritable and lose the
	# record. The broker refuses it twice, as a socket not on the allow-list (network
	# restricted) and as a path socket outside the writable roots (network enabled), and
	# words the name as the report words an abstract one's.
	dir="$OUT/socks"
	rm -rf "$dir"
	mkdir -p "$dir"
	conn="import socket,sys
s=socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1].encode()+b'/in\x1b\\\\\xffside.sock'); print('OK')
except OSError as e: print(e.errno)"
	python3 -c "import socket,sys,time
s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1].encode()+b'/in\x1b\\\\\xffside.sock'); s.listen(8); time.sleep(30)" "$dir" 3>&- &
	srv=$!
	# (Listening: the file is there from bind(2) on, and a connect before listen(2) is refused.)
	for _ in $(seq 500); do
		grep -qa " 00010000 0001 01 *[0-9][0-9]* $dir/in" /proc/net/unix && break
		sleep 0.02
	done
	# The positive control: outside, the name is reachable as written.
	[ "$(python3 -c "$conn" "$dir")" = OK ]
	for opt in "--allow-unix-socket $dir/ok.sock" --network; do
		rm -f "$REP"
		run sbxr $opt -- "${NOLEAK[@]}" python3 -c "$conn" "$dir"
		echo "$opt: $output"
		cat "$REP"
		[ "$output" = 13 ] # EACCES
		[ "$(wc -l <"$REP")" -eq 1 ]
		grep -F "\"address\":\"unix:$dir/in\\\\x1b\\\\x5c\\\\xffside.sock\"" "$REP"
	done
	kill "$srv"
	rm -rf "$dir"
}

@test "network enabled: a Unix datagram socket is refused for what it is, not as a network rule" {
	# A stream socket beside it is the positive control.
	run sbxr --network -- "${NOLEAK[@]}" python3 -c "import socket
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
except OSError as e: print(e.errno)
socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); print('stream')"
	echo "$output"
	[ "$output" = "$(printf '1\nstream')" ]
	diff <(norm) <(printf '{"time":T,"pid":N,"comm":"python3","op":"socket","address":"AF_UNIX dgram","errno":"EPERM","rule":"Unix datagram sockets: a datagram names its peer where no broker sees it, and path sockets outside the writable roots stay unreachable","mechanism":"seccomp"}\n')
}

# show_net WHAT: what a run through the proxy got (the status line curl printed, the proxy's
# answer, the report, the proxy's decisions), printed where bats shows it: when the test fails.
show_net() {
	echo "$1: status $status, curl printed: $output"
	echo "the answer: $(cat "$BATS_TEST_TMPDIR/body" 2>&1)"
	echo "the report:"
	cat "$REP" 2>&1
	echo "the proxy's decisions:"
	cat "$BATS_TEST_TMPDIR/net.log" 2>&1
}

@test "--allow-domain: the proxy's refusal is in the same report; an allowed host leaves none" {
	local body="$BATS_TEST_TMPDIR/body" log="$BATS_TEST_TMPDIR/net.log"
	run sbxr --allow-domain registry.example --network-log "$log" -- "${NOLEAK[@]}" \
		curl -sS -o "$body" -w '%{http_code}' --max-time 5 "http://localhost:9/x"
	show_net "the refused run"
	[ "$output" = 403 ]
	[ "$(grep -c '"mechanism":"proxy"' "$REP")" -eq 1 ]
	grep -Eqx '\{"time":"[^"]+","pid":null,"comm":null,"op":"connect","address":"localhost:9","errno":null,"rule":"not in the allow list","mechanism":"proxy"\}' "$REP"
	# What else curl was refused is the network namespace's filter's (its own Unix sockets).
	[ -z "$(grep -v '"mechanism":"proxy"' "$REP" | grep -v '"op":"socket","address":"AF_UNIX')" ]
	rm -f "$REP" "$body" "$log"
	# Allowed: the proxy lets it through (nothing listens on port 9: 502), and reports nothing.
	run sbxr --allow-domain localhost --network-log "$log" -- "${NOLEAK[@]}" \
		curl -sS -o "$body" -w '%{http_code}' --max-time 5 "http://localhost:9/x"
	show_net "the allowed run"
	[ "$output" = 502 ]
	[ "$(grep -c '"mechanism":"proxy"' "$REP")" -eq 0 ]
}

# BURST_PY N [read | wait READY GO]: N connections to the proxy the variables name, a request
# for a denied host sent on each, then exit 3; with "read", each 403 is read before the exit;
# with "wait", once connected it makes the file READY and sends only once the file GO exists.
BURST_PY='
import os, socket, sys, time
host, port = os.environ["http_proxy"].split("//")[1].rstrip("/").rsplit(":", 1)
socks = [socket.create_connection((host, int(port)), timeout=10) for _ in range(int(sys.argv[1]))]
if sys.argv[2:3] == ["wait"]:
    open(sys.argv[3], "w").close()
    while not os.path.exists(sys.argv[4]):
        time.sleep(0.01)
for s in socks:
    s.sendall(b"GET http://denied.invalid/x HTTP/1.1\r\nHost: denied.invalid\r\n\r\n")
if sys.argv[2:] == ["read"]:
    for s in socks:
        assert s.recv(64).startswith(b"HTTP/1.1 403 ")
os._exit(3)'

# HELD_SH DIR ERR SBXRUN ARGS...: runs SBXRUN ARGS... -- BURST_PY 500 wait (its files in DIR, its
# standard error to ERR) in the background, the proxy's worker stopped (SIGSTOP) from before the
# command sends its requests until 0.3 s after init, and so the command, has ended: the worker
# decides every request while the run's exit hooks run (its own gives it 2 s to finish). Prints
# sbxrun's standard error, then "status=N".
HELD_SH='
dir=$1 err=$2
shift 2
"$@" -- env ASAN_OPTIONS=detect_leaks=0 python3 -c "$BURST_PY" 500 wait "$dir/ready" "$dir/go" \
	>/dev/null 2>"$err" 3>&- &
sup=$!
for _ in $(seq 400); do [ -e "$dir/ready" ] && break; sleep 0.05; done
worker=$(pgrep -P "$sup" -x sbxrun-proxy)
[ -n "$worker" ] || echo "no worker"
kill -STOP "$worker"
touch "$dir/go"
for _ in $(seq 400); do [ -z "$(pgrep -P "$sup" -x sbxrun-init)" ] && break; sleep 0.05; done
sleep 0.3
kill -CONT "$worker"
st=0
wait "$sup" || st=$?
cat "$err"
echo "status=$st"'

@test "the summary counts every decision of the proxy's, those it took after the command ended too" {
	# The worker is held stopped while the command sends its 500 requests and ends: every
	# decision it takes comes after the command's end, while the run's exit hooks run (before:
	# the summary was read before the worker's own hook stopped it, and counted none of them,
	# the file holding them all). Those the worker had not accepted when it was stopped are
	# never decided: not in the report either.
	rm -f "$WS/ready" "$WS/go"
	export BURST_PY
	run -0 sh -c "$HELD_SH" sh "$WS" "$BATS_TEST_TMPDIR/err" "$S" -C "$WS" --report "$REP" \
		--allow-domain example.com
	echo "$output"
	[ "${lines[-1]}" = status=3 ]
	n=$(grep -c '"address":"denied.invalid:80","errno":null,"rule":"not in the allow list","mechanism":"proxy"' "$REP")
	[ "$n" -gt 0 ]
	[ "$(wc -l <"$REP")" -eq "$n" ]
	[ "${lines[0]}" = "sbxrun: $n operations were denied (first: connect denied.invalid:80: not in the allow list); see --report" ]
	# Control: a command that waits for each answer has every decision counted.
	rm -f "$REP"
	run sbxr --allow-domain example.com -- "${NOLEAK[@]}" python3 -c "$BURST_PY" 500 read
	echo "status $status: $output"
	[ "$status" -eq 3 ]
	[ "$(grep -c '"mechanism":"proxy"' "$REP")" -eq 500 ]
	[ "$output" = "sbxrun: 500 operations were denied (first: connect denied.invalid:80: not in the allow list); see --report" ]
}

# ONE_PY: one request for a denied host through the proxy the variables name, its answer read
# (or the connection's end), then exit 3.
ONE_PY='
import os, socket
host, port = os.environ["http_proxy"].split("//")[1].rstrip("/").rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=10)
s.sendall(b"GET http://denied.invalid/x HTTP/1.1\r\nHost: denied.invalid\r\n\r\n")
try:
    s.recv(64)
except OSError:
    pass
os._exit(3)'

@test "the proxy's worker killed between a refusal's line and its brief: the summary still counts it" {
	# The worker writes each refusal's line to the report, then its brief to the relay the
	# summary counts. Killed between the two (briefkill: its write of the brief kills it, as a
	# SIGKILL there would when it does not end in time), the line is in the file and the
	# decision is counted all the same (before: no summary, the file holding the line).
	run "$BIN/failinj" briefkill -- "$S" -C "$WS" --report "$REP" --allow-domain example.com \
		-- "${NOLEAK[@]}" python3 -c "$ONE_PY"
	echo "status $status: $output"
	[ "$status" -eq 3 ]
	[ "$(grep -c '"address":"denied.invalid:80","errno":null,"rule":"not in the allow list","mechanism":"proxy"' "$REP")" -eq 1 ]
	[ "$(wc -l <"$REP")" -eq 1 ]
	[ "$output" = "sbxrun: 1 operation was denied (first: connect denied.invalid:80: not in the allow list); see --report" ]
	# Control: the same run, the worker not killed, says the same.
	rm -f "$REP"
	run sbxr --allow-domain example.com -- "${NOLEAK[@]}" python3 -c "$ONE_PY"
	echo "status $status: $output"
	[ "$status" -eq 3 ]
	[ "$(wc -l <"$REP")" -eq 1 ]
	[ "$output" = "sbxrun: 1 operation was denied (first: connect denied.invalid:80: not in the allow list); see --report" ]
}

@test "the proxy's worker killed just after a refusal's brief went out: the summary counts it once" {
	# briefwrote: the brief's write is done for the worker, which is then killed before the
	# call returns (as a SIGKILL landing there would). The brief is in the relay; before, the
	# worker's count of the briefs it ended had not been raised, and the summary counted the
	# refusal twice, once as read and once as never ended ("2 operations", as root and as
	# 65534). The fault reads the worker's memory and takes its descriptor: unprivileged, from
	# a user namespace of the caller's own, as the cases above.
	if [ "$SBX_USER" = root ]; then pre=(); else pre=(unshare -Ur); fi
	run "${pre[@]}" "$BIN/failinj" briefwrote -- "$S" -C "$WS" --report "$REP" --allow-domain example.com \
		-- "${NOLEAK[@]}" python3 -c "$ONE_PY"
	echo "status $status: $output"
	[ "$status" -eq 3 ]
	[ "$(grep -c '"address":"denied.invalid:80","errno":null,"rule":"not in the allow list","mechanism":"proxy"' "$REP")" -eq 1 ]
	[ "$(wc -l <"$REP")" -eq 1 ]
	[ "$output" = "sbxrun: 1 operation was denied (first: connect denied.invalid:80: not in the allow list); see --report" ]
}

# SHARED_SH SBXRUN ARGS...: runs SBXRUN ARGS... -- sleep 5 in the background, and once its
# command runs (init's child is sleep, not a fork on its way to the execve) and the proxy's
# worker has its name, prints (then ends the run), for the proxy's worker (a child of the
# supervisor) and for each process of the sandbox (init and every process below it), its name
# and how many mappings of anonymous shared memory it holds.
SHARED_SH='
"$@" -- sleep 5 >/dev/null 2>&1 3>&- &
sup=$!
shared() {
	[ -s "/proc/$1/maps" ] || [ "$(wc -l <"/proc/$1/maps")" -gt 0 ] || echo "$1: no maps read"
	printf "%s %s\n" "$(cat "/proc/$1/comm")" "$(grep -c " rw-s 00000000 [0-9a-f:]* [0-9]* *\/dev\/zero (deleted)$" "/proc/$1/maps")"
}
for _ in $(seq 500); do
	init=$(pgrep -P "$sup" -x sbxrun-init)
	[ -n "$init" ] && [ -n "$(pgrep -P "$init" -x sleep)" ] && [ -n "$(pgrep -P "$sup" -x sbxrun-proxy)" ] && break
	sleep 0.02
done
for k in $(pgrep -P "$sup"); do shared "$k"; done | sort
for k in $(pgrep -P "$init"); do shared "$k"; done
kill "$sup"
wait "$sup" 2>/dev/null || :'

@test "the memory the proxy's worker shares with the supervisor: no process of the sandbox holds it" {
	# The worker counts there the refusals the relay had no room for, and the summary adds
	# them: a process of the sandbox that held it could forge or hide them (before: init,
	# and the command until its execve, held it writable). Unprivileged, a user namespace of
	# the caller's own stands for the host, where the caller may read the maps of processes
	# that are not dumpable, as root may on the host.
	if [ "$SBX_USER" = root ]; then pre=(); else pre=(unshare -Ur); fi
	run -0 "${pre[@]}" sh -c "$SHARED_SH" sh "$S" -C "$WS" --report "$REP" --allow-domain example.com
	echo "$output"
	# The worker holds it (the positive control); init and the command do not.
	[ "$output" = "$(printf 'sbxrun-init 0\nsbxrun-proxy 1\nsleep 0')" ]
}

# FDS_SH SBXRUN ARGS...: runs SBXRUN ARGS... -- sleep 5 in the background, and once its command
# runs prints what the supervisor's descriptors lead to that are the report's (the report file,
# pipes), then every descriptor of init above stderr, one a line, sorted, numbers made N.
FDS_SH='
"$@" -- sleep 5 >/dev/null 2>&1 3>&- &
sup=$!
for _ in $(seq 100); do
	init=$(pgrep -P "$sup" -x sbxrun-init)
	[ -n "$init" ] && [ -n "$(pgrep -P "$init")" ] && break
	sleep 0.05
done
targets() {
	for f in /proc/$1/fd/*; do
		[ "${f##*/}" -gt 2 ] && readlink "$f"
	done | sed -E "s/:\[[0-9]+\]$/:[N]/" | sort
}
targets "$sup" | grep -E "^pipe:|report.json$" | sort -u | sed "s/^/supervisor /"
targets "$init" | sed "s/^/init /"
kill "$sup"
wait "$sup" 2>/dev/null || :'

@test "init holds only what it uses: no report file, no relay pipe, no rule path" {
	# The report file and the ends of the relay pipe are close-on-exec, so the command never
	# had them; init, pid 1 of the sandbox, kept them for the run (before: the report file,
	# both ends of the relay, the rule paths' descriptors). Unprivileged, a user namespace of
	# the caller's own stands for the host, where the caller may list the descriptors of
	# processes that are not dumpable, as root may on the host.
	if [ "$SBX_USER" = root ]; then pre=(); else pre=(unshare -Ur); fi
	run -0 "${pre[@]}" sh -c "$FDS_SH" sh "$S" -C "$WS" --report "$REP" --allow-domain example.com
	echo "$output"
	# The supervisor holds the report file and the relay (the positive control); init holds
	# its socket, its signalfd and the eventfd it ends on, and nothing else.
	[[ "$output" == *"supervisor $REP"* ]]
	[[ "$output" == *"supervisor pipe:[N]"* ]]
	[ "$(grep '^init ' <<<"$output")" = "$(printf 'init anon_inode:[eventfd]\ninit anon_inode:[signalfd]\ninit socket:[N]')" ]
}

@test "init holds only what it uses where neither close_range nor /proc/self/fd can be had" {
	# Before Linux 5.9 init has no close_range(2); where it cannot list /proc/self/fd either
	# (before: it then closed nothing and held the report file, the relay and the rule paths for
	# the whole run), it closes each number up to the hard limit. The fault injector hides both.
	if [ "$SBX_USER" = root ]; then pre=(); else pre=(unshare -Ur); fi
	run -0 "${pre[@]}" sh -c "$FDS_SH" sh "$BIN/failinj" closerange,procfd -- "$S" -C "$WS" \
		--report "$REP" --allow-domain example.com
	echo "$output"
	[[ "$output" == *"supervisor $REP"* ]]
	[[ "$output" == *"supervisor pipe:[N]"* ]]
	[ "$(grep '^init ' <<<"$output")" = "$(printf 'init anon_inode:[eventfd]\ninit anon_inode:[signalfd]\ninit socket:[N]')" ]
	# The fault holds: a listing by path is refused under it (the control: one without it).
	run "$BIN/failinj" closerange,procfd -- ls /proc/self/fd
	[ "$status" -ne 0 ]
	[[ "$output" == *"Permission denied"* ]]
	run -0 ls /proc/self/fd
}

@test "init's close of each number ends where the hard limit is huge or cannot be read" {
	# A hard limit on open files of 2^30 (a container's "unlimited") was a billion close(2)s in
	# init, minutes before it reaped the command; one it cannot read (the fault nofile) stands
	# for it, taken for the largest (before: 2^31 numbers, the run still going when killed here
	# after 60 s, as root and as 65534). Now the run ends with the command.
	run timeout -s KILL 60 "$BIN/failinj" closerange,procfd,nofile -- "$S" -C "$WS" -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	# The fault fired (failinj says so and fails where init read no limit), and no other
	# process was refused the limit: the command reads it (the control).
	[ "$output" = "" ]
	run timeout -s KILL 60 "$BIN/failinj" closerange,procfd,nofile -- "$S" -C "$WS" -- sh -c 'ulimit -Hn'
	[ "$status" -eq 0 ]
	[ "$output" = "$(ulimit -Hn)" ]
	# Where init can list /proc/self/fd it reads no limit: the fault says it never fired.
	run timeout -s KILL 60 "$BIN/failinj" closerange,nofile -- "$S" -C "$WS" -- sh -c 'exit 3'
	[ "$status" -eq 2 ]
	[ "$output" = "failinj: nofile: init read no limit on open files" ]
}

@test "the summary: one line when the command failed and something was denied; none otherwise" {
	rule=$(rule_of "$WS/.git/index.lock")
	run sbxr -- "${NOLEAK[@]}" sh -c "'$BIN/probe' write '$WS/.git/index.lock'; exit 3"
	[ "$status" -eq 3 ]
	[ "$output" = "$(printf 'EROFS\nsbxrun: 1 operation was denied (first: create %s: %s); see --report' "$WS/.git/index.lock" "$rule")" ]
	# Two, the first named.
	rm -f "$REP"
	run sbxr -- "${NOLEAK[@]}" sh -c "'$BIN/probe' write '$WS/.git/a'; '$BIN/probe' write '$WS/.git/b'; false"
	[ "$status" -eq 1 ]
	[ "$(tail -1 <<<"$output")" = "sbxrun: 2 operations were denied (first: create $WS/.git/a: $rule); see --report" ]
	# A name the command chose, with an ESC in it: shown as "\x1b", never raw on the terminal.
	rm -f "$REP"
	run sbxr -- "${NOLEAK[@]}" sh -c "'$BIN/probe' write \"\$(printf '$WS/.git/a\\033[31m')\"; false"
	[ "$status" -eq 1 ]
	[ "$(tail -1 <<<"$output")" = "sbxrun: 1 operation was denied (first: create $WS/.git/a\x1b[31m: $rule); see --report" ]
	# Denied, but the command succeeded: no line (the report holds it).
	rm -f "$REP"
	run sbxr -- "${NOLEAK[@]}" sh -c "'$BIN/probe' write '$WS/.git/index.lock'; true"
	[ "$status" -eq 0 ]
	[ "$output" = EROFS ]
	[ "$(wc -l <"$REP")" -eq 1 ]
	# Failed, nothing denied: no line.
	rm -f "$REP"
	run sbxr -- "${NOLEAK[@]}" sh -c "'$BIN/probe' read '$WS/missing'; exit 4"
	[ "$status" -eq 4 ]
	[ "$output" = ENOENT ]
	[ ! -s "$REP" ]
}

@test "--report -: the records on standard error, standard output untouched" {
	run --separate-stderr "$S" -C "$WS" --report - -- "${NOLEAK[@]}" sh -c "echo out; '$BIN/probe-static' write '$WS/.git/x' >&2; true"
	[ "$status" -eq 0 ]
	[ "$output" = out ]
	[ "$(grep -c '^{' <<<"$stderr")" -eq 1 ]
	grep '^{' <<<"$stderr" >"$BATS_TEST_TMPDIR/err"
	diff <(norm "$BATS_TEST_TMPDIR/err") <(p=probe-static rec create "$WS/.git/x" EROFS "$(rule_of "$WS/.git/x")" mount-namespace)
}

@test "nothing denied: an empty report for git, ls and a write in the workspace" {
	run sbxr -- "${NOLEAK[@]}" env GIT_OPTIONAL_LOCKS=0 sh -c "git -C '$WS' status --porcelain >/dev/null && ls / >/dev/null && echo x >'$WS/new.txt' && echo done"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = done ]
	[ -f "$REP" ]
	[ ! -s "$REP" ]
}

@test "a child of a child: records through fork and exec, with the sandbox's pid" {
	run sbxr -- "${NOLEAK[@]}" sh -c "sh -c \"'$BIN/probe-static' write '$WS/.git/deep'\" & wait"
	echo "$output"
	[ "$(wc -l <"$REP")" -eq 1 ]
	grep -Eq '^\{"time":"[^"]+","pid":([3-9]|[1-9][0-9]+),"comm":"probe-static","op":"create","path":"'"$WS"'/.git/deep"' "$REP"
}

@test "a plan that runs in place is traced under init; without --report it stays in place" {
	prof="$BATS_TEST_TMPDIR/unrestricted.json"
	echo '{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}' >"$prof"
	run "$S" -p "$prof" -C "$WS" --report "$REP" -- "${NOLEAK[@]}" sh -c "'$BIN/probe' tcp4 127.0.0.1 9; echo \$\$"
	echo "$output"
	[ "$output" = "$(printf 'EPERM\n2')" ]
	diff <(norm) <(printf '{"time":T,"pid":N,"comm":"probe","op":"socket","address":"AF_INET stream","errno":"EPERM","rule":"network restricted","mechanism":"seccomp"}\n')
	run "$S" -p "$prof" -C "$WS" -- sh -c "'$BIN/probe' tcp4 127.0.0.1 9; echo \$\$"
	[ "$(head -1 <<<"$output")" = EPERM ]
	[ "$(tail -1 <<<"$output")" != 2 ]
}

@test "a plan in place traced under init gets init's fresh /proc: the sandbox's processes only" {
	prof="$BATS_TEST_TMPDIR/unrestricted.json"
	echo '{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}' >"$prof"
	look="test -e /proc/$$ && echo host-seen || echo host-hidden; set -- /proc/[0-9]*; echo \$#"
	# Control: in place, without a PID namespace, the host's /proc shows this shell.
	run -0 "$S" -p "$prof" -C "$WS" -- sh -c "$look"
	echo "$output"
	[ "${lines[0]}" = host-seen ]
	[ "${lines[1]}" -gt 5 ]
	# Under init (--report): init and the shell (which counts by itself: a pipeline would race
	# its own processes), and nothing of the host.
	run -0 "$S" -p "$prof" -C "$WS" --report "$REP" -- "${NOLEAK[@]}" sh -c "$look"
	echo "$output"
	[ "$output" = "$(printf 'host-hidden\n2')" ]
	[ ! -s "$REP" ]
}

@test "init's /proc with nothing else mounted (--report, --allow-domain) stays off the host's where / is shared" {
	# Unprivileged, a user namespace of the caller's own stands for the host (there sbxrun
	# runs as its root).
	if [ "$SBX_USER" = root ]; then pre=(unshare -m); else pre=(unshare -Urm); fi
	prof="$BATS_TEST_TMPDIR/unrestricted.json"
	echo '{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}' >"$prof"
	# A host whose / is shared, as systemd makes it: a tmpfs mounted in a namespace cloned
	# from it shows in it (the control), the sandbox's /proc must not. The case's own
	# namespace stands for that host: cut from the real one (private) whatever its
	# propagation, then made shared, so that no mount of the case reaches the real host.
	mkdir "$BATS_TEST_TMPDIR/mnt"
	run -0 "${pre[@]}" --propagation private sh -c "mount --make-rshared / &&
		unshare -m --propagation unchanged mount -t tmpfs none '$BATS_TEST_TMPDIR/mnt' &&
		grep -c ' $BATS_TEST_TMPDIR/mnt ' /proc/self/mountinfo &&
		'$S' -p '$prof' -C '$WS' --report '$REP' -- ${NOLEAK[*]} ls /proc/1/ns >/dev/null &&
		grep -c ' /proc ' /proc/self/mountinfo &&
		'$S' -p '$prof' -C '$WS' --allow-domain example.com -- ls /proc/1/ns >/dev/null &&
		grep -c ' /proc ' /proc/self/mountinfo"
	echo "$output"
	[ "$output" = "$(printf '1\n1\n1')" ]
}

@test "off costs nothing: no extra filter, no thread; on: one of each" {
	# Inside: the seccomp filters and the tracer of the command.
	# Inside: the command's seccomp filters (the tracer itself is outside its PID namespace,
	# so TracerPid shows 0 either way).
	filters() { "$S" -C "$WS" "$@" -- "${NOLEAK[@]}" sed -n 's/^Seccomp_filters:\s*//p' /proc/self/status; }
	off_filters=$(filters)
	on_filters=$(filters --report "$REP")
	echo "filters: off $off_filters, on $on_filters"
	[ "$off_filters" -ge 1 ]
	[ "$on_filters" -eq $((off_filters + 1)) ]
	# Outside: the supervisor's threads while the command runs (it made one file and waits for
	# another).
	for mode in off on; do
		rm -f "$BATS_TEST_TMPDIR/started" "$BATS_TEST_TMPDIR/go"
		if [ $mode = on ]; then r=(--report "$REP"); else r=(); fi
		"$S" -C "$WS" "${r[@]}" -- "${NOLEAK[@]}" sh -c "touch '$BATS_TEST_TMPDIR/started'; \
			while [ ! -e '$BATS_TEST_TMPDIR/go' ]; do sleep 0.05; done" 3>&- &
		sup=$!
		for _ in $(seq 600); do [ -e "$BATS_TEST_TMPDIR/started" ] && break; sleep 0.05; done
		eval "${mode}_threads=\$(ls /proc/$sup/task | wc -l)"
		touch "$BATS_TEST_TMPDIR/go"
		wait "$sup"
	done
	echo "threads: off $off_threads, on $on_threads"
	[ "$off_threads" -eq 1 ]
	[ "$on_threads" -eq 2 ]
}

@test "a host without a PID namespace refuses --report (125, nothing runs); without it the run goes on" {
	canary="$BATS_TEST_TMPDIR/ran"
	run -125 "$BIN/failinj" clone -- "$S" -C "$WS" --report "$REP" -- touch "$canary"
	echo "$output"
	[ "$(head -1 <<<"$output")" = "sbxrun: --report: the denial report traces the command from a sandbox of its own (a PID namespace), which this host cannot make; hint: a host where sbxrun can make a PID namespace (root with CAP_SYS_ADMIN, or unprivileged user namespaces allowed), or run without --report" ]
	[ ! -e "$canary" ]
	[ ! -s "$REP" ]
	# explain --report refuses it in the same words; without --report it explains the run.
	refusal=$output
	run -125 "$BIN/failinj" clone -- "$S" explain -C "$WS" --report "$REP" -- touch "$canary"
	[ "$output" = "$refusal" ]
	run -0 "$BIN/failinj" clone -- "$S" explain -C "$WS" -- touch "$canary"
	# The control: the same host runs the command under a subreaper without --report.
	run "$BIN/failinj" clone -- "$S" -C "$WS" -- touch "$canary"
	[ "$status" -eq 0 ]
	[ -e "$canary" ]
}

@test "refused after --report was opened (125): the report file this run made is gone, the caller's stays" {
	canary="$BATS_TEST_TMPDIR/ran"
	# The helper refuses at its clone(2), once the report's file is open: nothing ran.
	run -125 "$BIN/failinj" newnet -- "$S" -C "$WS" --report "$REP" --allow-domain localhost \
		-- touch "$canary"
	echo "$output"
	[[ "${lines[0]}" == "sbxrun: clone("*"CLONE_NEWNET): Operation not permitted; hint: "* ]]
	[ ! -e "$canary" ]
	[ ! -e "$REP" ]
	# Refused in the helper itself, before entering (a PID namespace it cannot make): the same.
	run -125 "$BIN/failinj" clone -- "$S" -C "$WS" --report "$REP" -- touch "$canary"
	[ ! -e "$canary" ]
	[ ! -e "$REP" ]
	# Refused by the plan (no seccomp, which every sandbox needs), before the file is opened:
	# nothing is made.
	run -125 "$BIN/failinj" seccomp -- "$S" -C "$WS" --report "$REP" -- touch "$canary"
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"network restricted\" on linux: "*"seccomp filters are unavailable"* ]]
	[ ! -e "$canary" ]
	[ ! -e "$REP" ]
	# A file the caller had stays as it was, with earlier lines or empty.
	echo '{"earlier":1}' >"$REP"
	run -125 "$BIN/failinj" newnet -- "$S" -C "$WS" --report "$REP" --allow-domain localhost \
		-- touch "$canary"
	[ "$(cat "$REP")" = '{"earlier":1}' ]
	: >"$REP"
	run -125 "$BIN/failinj" newnet -- "$S" -C "$WS" --report "$REP" --allow-domain localhost \
		-- touch "$canary"
	[ -e "$REP" ]
	[ ! -s "$REP" ]
	rm "$REP"
	# The control: a command that ran and ended in 125 itself keeps the report made for it.
	run -125 "$S" -C "$WS" --report "$REP" -- sh -c 'touch "$1"; exit 125' sh "$canary"
	[ -e "$canary" ]
	[ -e "$REP" ]
}

@test "explain --report on this host: the plan in place is shown under init, as run runs it" {
	prof="$BATS_TEST_TMPDIR/unrestricted.json"
	echo '{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}' >"$prof"
	run -0 "$S" explain --json -p "$prof" -C "$WS" -- true
	[ "$(python3 -c 'import json,sys; print(json.load(sys.stdin)["process"])' <<<"$output")" = in-place ]
	run -0 "$S" explain --json -p "$prof" -C "$WS" --report "$REP" -- true
	[ "$(python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["process"], j["report"]["moved_under_init"])' <<<"$output")" = "init True" ]
	[ ! -e "$REP" ]
}

@test "bad --report: a link, a directory, a missing parent, empty: one line, 125, nothing runs" {
	canary="$BATS_TEST_TMPDIR/ran"
	ln -sfn "$BATS_TEST_TMPDIR/target" "$BATS_TEST_TMPDIR/link"
	run -125 "$S" -C "$WS" --report "$BATS_TEST_TMPDIR/link" -- touch "$canary"
	[ "$output" = "sbxrun: --report $BATS_TEST_TMPDIR/link: is a symbolic link, which sbxrun does not write through; hint: remove the link (an earlier confined run may have made it), or name another file" ]
	[ ! -e "$BATS_TEST_TMPDIR/target" ]
	run -125 "$S" -C "$WS" --report "$BATS_TEST_TMPDIR" -- touch "$canary"
	[ "$output" = "sbxrun: --report $BATS_TEST_TMPDIR: Is a directory" ]
	run -125 "$S" -C "$WS" --report "$BATS_TEST_TMPDIR/no/such" -- touch "$canary"
	[ "$output" = "sbxrun: --report $BATS_TEST_TMPDIR/no/such: No such file or directory" ]
	run -125 "$S" -C "$WS" --report "" -- touch "$canary"
	[ "$output" = "sbxrun: --report: empty path (give a file, or - for standard error)" ]
	# explain takes the option and opens nothing, a bad name included.
	run -0 "$S" explain -C "$WS" --report "$BATS_TEST_TMPDIR/link" -- true
	[ ! -e "$BATS_TEST_TMPDIR/target" ]
	[ ! -e "$canary" ]
	# The control: a good name runs it.
	run "$S" -C "$WS" --report "$REP" -- touch "$canary"
	[ "$status" -eq 0 ]
	[ -e "$canary" ]
}

@test "the helper refuses a report descriptor it cannot write" {
	run -125 "$H" --sandbox-policy-cwd "$WS" --permission-profile "$(profile restricted "$(entry_special root read)")" --report-fd 0 -- true 0</dev/null
	[ "$output" = "sbxrun: --report-fd 0: not open for writing" ]
	run -125 "$H" --sandbox-policy-cwd "$WS" --permission-profile "$(profile restricted "$(entry_special root read)")" --report-fd 9 -- true
	[ "$output" = "sbxrun: --report-fd 9: Bad file descriptor" ]
}

@test "a command that cannot be executed under --report: 127 and 126 with the usual words" {
	# Traced, the command's process is forked (the tracer attaches in it before the exec);
	# without --report it is vforked and init words the failure: the two must not differ.
	local traced args
	for traced in yes no; do
		args=()
		[ "$traced" = no ] || args=(--report "$REP")
		rm -f "$REP"
		run -127 "$S" -C "$WS" "${args[@]}" -- no-such-command-here
		[ "$output" = "sbxrun: no-such-command-here: command not found" ]
		run -126 "$S" -C "$WS" "${args[@]}" -- /etc/passwd
		[ "$output" = "sbxrun: /etc/passwd: cannot execute: Permission denied" ]
		[ ! -s "$REP" ]
	done
}

@test "a command that cannot be executed, its words to a closed pipe: SIGPIPE as the command would" {
	# The words are said by init when the command was vforked, by the command's own process
	# when it was forked (--report): with stderr a pipe nobody reads, the command would have
	# died of SIGPIPE, or, with SIGPIPE ignored, ended 127; sbxrun must end the same either way.
	local traced args pipe
	pipe='import os, signal, subprocess, sys
r, w = os.pipe()
os.close(r)
how = signal.SIG_IGN if sys.argv[1] == "ignored" else signal.SIG_DFL
p = subprocess.run(sys.argv[2:], stderr=w, preexec_fn=lambda: signal.signal(signal.SIGPIPE, how))
print(p.returncode)'
	for traced in yes no; do
		args=()
		[ "$traced" = no ] || args=(--report "$REP")
		run python3 -c "$pipe" default "$S" -C "$WS" "${args[@]}" -- no-such-command-here
		[ "$status" -eq 0 ]
		[ "$output" = "-13" ]
		run python3 -c "$pipe" ignored "$S" -C "$WS" "${args[@]}" -- no-such-command-here
		[ "$status" -eq 0 ]
		[ "$output" = "127" ]
	done
}
