#!/usr/bin/env bats
# The files sbxrun itself appends to, with the caller's rights and outside any sandbox: the
# denial report (--report), the proxy's log (--network-log, proxy --log). A first confined run
# puts a link, a pipe or a linked directory where the next run's file goes (inside a writable
# root, where it may write); the next run must refuse at once, never write through it or wait.
load common

S="$BIN/sbxrun"
# The refusal of a link at the file's own name (its hint never names where the link leads).
NOLINK="is a symbolic link, which sbxrun does not write through"

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
	echo outside >"$OUT/file.txt"
	rm -rf "$WS/logs" "$WS/report.jsonl" "$WS/net.log" "$OUT/dir"/*
}

# sbxr ARGS... -- CMD...: sbxrun in the workspace, with its default profile there.
sbxr() { "$S" -C "$WS" "$@"; }
# A denied host through sbxrun's own proxy: one line in its log, one in the report.
DENIED=(sh -c 'curl -s -o /dev/null --max-time 5 -x "$HTTPS_PROXY" https://denied.invalid/; :')

# unchanged: the file outside every writable root holds what it held.
unchanged() { [ "$(cat "$OUT/file.txt")" = outside ]; }

@test "a link an earlier run put where the report or the proxy's log goes" {
	# Run 1: a link at each name, to a file the command may not write.
	run sbxr -- sh -c "ln -s '$OUT/file.txt' report.jsonl && ln -s '$OUT/file.txt' net.log"
	[ "$status" -eq 0 ]
	[ -L "$WS/report.jsonl" ]
	[ -L "$WS/net.log" ]
	run sbxr --report "$WS/report.jsonl" -- touch "$CANARY"
	refused "sbxrun: --report $WS/report.jsonl: $NOLINK"
	[[ "${lines[0]}" == *"; hint: remove the link (an earlier confined run may have made it),"* ]]
	run sbxr --allow-domain example.com --network-log "$WS/net.log" -- touch "$CANARY"
	refused "sbxrun: --network-log $WS/net.log: $NOLINK"
	run timeout 20 "$S" proxy --listen 127.0.0.1:0 --allow-domain example.com \
		--log "$WS/net.log"
	refused "sbxrun: proxy: --log $WS/net.log: $NOLINK"
	unchanged
	# Control: at a name that is a file, each line is appended.
	rm "$WS/report.jsonl" "$WS/net.log"
	run sbxr --report "$WS/report.jsonl" --allow-domain example.com --network-log "$WS/net.log" \
		-- "${DENIED[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '"address":"denied.invalid:443".*"mechanism":"proxy"' "$WS/report.jsonl"
	grep -q '"host":"denied.invalid".*"decision":"deny"' "$WS/net.log"
	unchanged
}

@test "a pipe an earlier run made where the report or the proxy's log goes: refused, not waited on" {
	run sbxr -- sh -c "mkfifo report.jsonl net.log"
	[ "$status" -eq 0 ]
	[ -p "$WS/report.jsonl" ]
	[ -p "$WS/net.log" ]
	# Nothing reads from them: opening one for writing would wait for ever.
	run timeout 20 "$S" -C "$WS" --report "$WS/report.jsonl" -- touch "$CANARY"
	refused "sbxrun: --report $WS/report.jsonl: a pipe that nothing reads from"
	[[ "${lines[0]}" == *"; hint: start its reader first, or name a regular file" ]]
	run timeout 20 "$S" -C "$WS" --allow-domain example.com --network-log "$WS/net.log" \
		-- touch "$CANARY"
	refused "sbxrun: --network-log $WS/net.log: a pipe that nothing reads from"
	run timeout 20 "$S" proxy --listen 127.0.0.1:0 --allow-domain example.com \
		--log "$WS/net.log"
	refused "sbxrun: proxy: --log $WS/net.log: a pipe that nothing reads from"
	# Control: a pipe with a reader (this shell, which holds it open) gets the report's lines
	# (no leak check in a traced probe: LeakSanitizer cannot run under ptrace).
	exec 7<>"$WS/report.jsonl"
	run timeout 20 "$S" -C "$WS" --report "$WS/report.jsonl" -- \
		env ASAN_OPTIONS=detect_leaks=0 "$P" write "$OUT/file.txt"
	echo "$output"
	[ "${lines[0]}" = EROFS ]
	read -r -t 5 line <&7
	exec 7<&-
	echo "read from the pipe: $line"
	[[ "$line" == *"\"path\":\"$OUT/file.txt\",\"errno\":\"EROFS\""* ]]
	# A Unix socket there (run 1 with the network on may bind one): open(2) answers ENXIO as
	# for a pipe with no reader, but it is none.
	rm "$WS/report.jsonl"
	profile enabled "$(entry_special root read)" "$(entry_special project_roots write)" \
		>"$BASE/net-on.json"
	run sbxr -p "$BASE/net-on.json" -- \
		python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('report.jsonl')"
	[ "$status" -eq 0 ]
	[ -S "$WS/report.jsonl" ]
	run timeout 20 "$S" -C "$WS" --report "$WS/report.jsonl" -- touch "$CANARY"
	refused "sbxrun: --report $WS/report.jsonl: not a regular file or a pipe"
	unchanged
}

@test "a pipe another confined run holds open and never reads: the report stalls nothing" {
	# Run 1, still running beside run 2 (runs in one workspace may overlap): it makes the
	# pipe where run 2's report goes and holds it open, reading nothing.
	rm -f "$WS/ready"
	"$S" -C "$WS" -- sh -c 'mkfifo report.jsonl && exec 3<>report.jsonl && touch ready &&
		sleep 120' >/dev/null 2>&1 &
	local holder=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	[ -p "$WS/report.jsonl" ]
	# Run 2 meets more refusals than the pipe holds (64 KiB): it ends, and says lines were
	# lost, instead of its supervisor waiting on the pipe for as long as run 1 lives (deaf
	# to timeout's SIGTERM there: -k ends it).
	run timeout -k 5 30 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c \
		"i=0; while [ \$i -lt 2000 ]; do true 2>/dev/null >'$OUT/file.txt'; i=\$((i+1)); done; echo ended"
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ended ]
	[[ "${lines[1]}" =~ ^"sbxrun: --report: "[0-9]+" of 2000 lines were not written: the pipe's reader stopped reading"$ ]]
	[ "${#lines[@]}" -eq 2 ]
	# The same run still ends on a SIGTERM, sent while its tracer waits on the full pipe
	# (the reader is given 5 s): 124 is timeout's TERM honoured, 137 its -k.
	run timeout -k 10 3 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c \
		"i=0; while [ \$i -lt 2000 ]; do true 2>/dev/null >'$OUT/file.txt'; i=\$((i+1)); done; exec sleep 60"
	kill "$holder" 2>/dev/null || true
	wait "$holder" || true
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 124 ]
	unchanged
	# Control: a regular file there gets every line.
	rm "$WS/report.jsonl"
	run timeout 40 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c \
		"i=0; while [ \$i -lt 2000 ]; do true 2>/dev/null >'$OUT/file.txt'; i=\$((i+1)); done; echo ended"
	[ "$status" -eq 0 ]
	[ "$output" = ended ]
	[ "$(grep -c '"errno":"EROFS"' "$WS/report.jsonl")" -eq 2000 ]
}

# refuse_loop N PATH: the command meets N refusals, creating PATH outside its writable roots.
refuse_loop() {
	echo "i=0; while [ \$i -lt $1 ]; do true 2>/dev/null >'$2'; i=\$((i+1)); done"
}

@test "a pipe's reader that closes its end mid-run: the next run's supervisor lives on" {
	# Run 1, beside run 2: it makes the pipe where run 2's report goes, holds it open (so
	# that run 2 may open it), and closes it once run 2's command has started. Run 2's
	# report then goes to a pipe with no reader: write(2) raises SIGPIPE, whose default
	# action would end run 2's supervisor, and with it run 2's command.
	rm -f "$WS/ready" "$WS/started" "$WS/closed"
	"$S" -C "$WS" -- sh -c 'mkfifo report.jsonl && exec 3<>report.jsonl && touch ready &&
		while [ ! -e started ]; do sleep 0.05; done; exec 3<&-; touch closed; sleep 120' \
		>/dev/null 2>&1 &
	local holder=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	[ -p "$WS/report.jsonl" ]
	local cmd
	cmd="touch started; while [ ! -e closed ]; do sleep 0.05; done; $(refuse_loop 10 "$OUT/file.txt"); echo ended"
	run timeout -k 5 30 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c "$cmd"
	kill "$holder" 2>/dev/null || true
	wait "$holder" || true
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ended ]
	[ "${lines[1]}" = "sbxrun: --report: 10 of 10 lines were not written: the pipe's reader closed it" ]
	[ "${#lines[@]}" -eq 2 ]
	unchanged
	# Control: a regular file there gets every line.
	rm "$WS/report.jsonl" "$WS/started" "$WS/closed"
	touch "$WS/closed"
	run timeout -k 5 30 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c "$cmd"
	[ "$status" -eq 0 ]
	[ "$output" = ended ]
	[ "$(grep -c '"errno":"EROFS"' "$WS/report.jsonl")" -eq 10 ]
}

# refused_requests N: a Python program that sends N requests for a denied host through the
# proxy the variables name, each on its own connection, and prints how many got their 403.
refused_requests() {
	echo "import os, socket
host, port = os.environ['http_proxy'].split('//')[1].rstrip('/').split(':')
n = 0
for i in range($1):
    s = socket.create_connection((host, int(port)), timeout=5)
    s.sendall(b'GET http://denied.invalid/x HTTP/1.1\\r\\nHost: denied.invalid\\r\\n\\r\\n')
    n += s.recv(64).startswith(b'HTTP/1.1 403 ')
    s.close()
print(n, flush=True)"
}

@test "--network-log to a pipe another confined run holds and never reads: lines lost are said" {
	# Run 1, beside run 2: it makes the pipe where run 2's log goes and holds it open,
	# reading nothing.
	rm -f "$WS/ready"
	"$S" -C "$WS" -- sh -c 'mkfifo net.log && exec 3<>net.log && touch ready && sleep 120' \
		>/dev/null 2>&1 &
	local holder=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	[ -p "$WS/net.log" ]
	# Run 2 makes more decisions than the pipe holds (64 KiB), waits past the 5 s after
	# which a reader that takes nothing has stopped, and makes some more: the proxy answers
	# every one, and the run says how many lines were lost, and why.
	run timeout -k 5 60 "$S" -C "$WS" --allow-domain example.com --network-log "$WS/net.log" \
		-- sh -c "python3 -c \"$(refused_requests 600)\" && sleep 6 &&
			python3 -c \"$(refused_requests 100)\""
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 600 ]
	[ "${lines[1]}" = 100 ]
	[[ "${lines[2]}" =~ ^"sbxrun: --network-log: "[0-9]+" of 700 lines were not written: the pipe's reader stopped reading"$ ]]
	[ "${#lines[@]}" -eq 3 ]
	# Run 3 ends well within those 5 s, its lines waiting behind the full pipe: they are
	# dropped when the proxy stops, and said so.
	run timeout -k 5 60 "$S" -C "$WS" --allow-domain example.com --network-log "$WS/net.log" \
		-- python3 -c "$(refused_requests 200)"
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 200 ]
	[ "${lines[1]}" = "sbxrun: --network-log: 200 of 200 lines were not written: the pipe's reader had not taken them when the proxy stopped" ]
	[ "${#lines[@]}" -eq 2 ]
	unchanged
	kill "$holder" 2>/dev/null || true
	wait "$holder" || true
	# Control: a reader that reads gets every line, and nothing is said.
	rm "$WS/net.log"
	mkfifo "$WS/net.log"
	# The reader holds the pipe open before the run starts: a cat started in the background
	# may not have reached its open(2) yet when the run opens the pipe, which it then refuses
	# as a pipe nothing reads (125). Opened without waiting for a writer, the pipe shows no
	# end of file before one has come and gone.
	rm -f "$BATS_TEST_TMPDIR/reading"
	timeout 30 python3 -c 'import os, select, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
open(sys.argv[2], "w").close()
out = open(sys.argv[3], "wb")
p = select.poll()
p.register(fd, select.POLLIN)
while True:
    p.poll()
    try:
        b = os.read(fd, 65536)
    except BlockingIOError:
        continue
    if not b:
        break
    out.write(b)
' "$WS/net.log" "$BATS_TEST_TMPDIR/reading" "$BATS_TEST_TMPDIR/got" 2>/dev/null 3>&- &
	local reader=$!
	for _ in $(seq 200); do [ -e "$BATS_TEST_TMPDIR/reading" ] && break; sleep 0.05; done
	[ -e "$BATS_TEST_TMPDIR/reading" ]
	run timeout -k 5 60 "$S" -C "$WS" --allow-domain example.com --network-log "$WS/net.log" \
		-- python3 -c "$(refused_requests 700)"
	wait "$reader" || true
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "$output" = 700 ]
	[ "$(grep -c '"decision":"deny"' "$BATS_TEST_TMPDIR/got")" -eq 700 ]
}

@test "--network-log to a pipe whose reader closes its end mid-run: the proxy lives on, says so" {
	# Run 1, beside run 2: it makes the pipe where run 2's log goes, holds it open, and closes
	# it once run 2's command has started. write(2) then fails with EPIPE (and raises SIGPIPE,
	# whose default action would end the proxy).
	rm -f "$WS/ready" "$WS/started" "$WS/closed"
	"$S" -C "$WS" -- sh -c 'mkfifo net.log && exec 3<>net.log && touch ready &&
		while [ ! -e started ]; do sleep 0.05; done; exec 3<&-; touch closed; sleep 120' \
		>/dev/null 2>&1 &
	local holder=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	[ -p "$WS/net.log" ]
	local cmd
	cmd="touch started; while [ ! -e closed ]; do sleep 0.05; done; python3 -c \"$(refused_requests 10)\""
	run timeout -k 5 30 "$S" -C "$WS" --allow-domain example.com --network-log "$WS/net.log" \
		-- sh -c "$cmd"
	kill "$holder" 2>/dev/null || true
	wait "$holder" || true
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 10 ]
	[ "${lines[1]}" = "sbxrun: --network-log: 10 of 10 lines were not written: the pipe's reader closed it" ]
	[ "${#lines[@]}" -eq 2 ]
	unchanged
	# Control: a regular file there gets every line, appended as they come.
	rm "$WS/net.log" "$WS/started" "$WS/closed"
	touch "$WS/closed"
	run timeout -k 5 30 "$S" -C "$WS" --allow-domain example.com --network-log "$WS/net.log" \
		-- sh -c "$cmd"
	[ "$status" -eq 0 ]
	[ "$output" = 10 ]
	[ "$(grep -c '"decision":"deny"' "$WS/net.log")" -eq 10 ]
}

# on_full_fs DIR CMD...: CMD in a private mount namespace where DIR is a small tmpfs that is full
# already, and /tmp one of its own (what sbxrun makes there, and may not remove from within the
# namespace, goes with it). As uid 65534 the mount namespace is that of a user namespace that
# maps that uid alone, and the capabilities it gives go before CMD: sbxrun runs unprivileged.
on_full_fs() {
	local fill='mount -t tmpfs -o mode=1777 tmpfs /tmp &&
		mount -t tmpfs -o size=32k,mode=1777 tmpfs "$0" &&
		{ dd if=/dev/zero of="$0/fill" bs=1k 2>/dev/null; [ -s "$0/fill" ]; } && exec "$@"'
	if [ "$(id -u)" = 0 ]; then
		unshare --mount --propagation private sh -c "$fill" "$@"
	else
		unshare --user --map-current-user --keep-caps --mount --propagation private \
			sh -c "$fill" "$1" setpriv --inh-caps=-all -- "${@:2}"
	fi
}

@test "a report on a full file system: the lines lost are counted with the system's reason" {
	local d="$BATS_TEST_TMPDIR/full"
	mkdir -p "$d"
	# The supervisor's lines: refusals the command meets.
	run on_full_fs "$d" timeout -k 5 60 "$S" -C "$WS" --report "$d/report.jsonl" -- \
		sh -c "$(refuse_loop 10 "$OUT/file.txt"); echo ended"
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ended ]
	# Its last line, and the only one on lost lines (as uid 65534, in that user namespace,
	# sbxrun may also warn of mount points it made and cannot remove).
	[ "${lines[-1]}" = "sbxrun: --report: 10 of 10 lines were not written: No space left on device" ]
	run grep -c "lines were not written" <<<"$output"
	[ "$output" = 1 ]
	# The proxy worker's lines: requests it refuses.
	run on_full_fs "$d" timeout -k 5 60 "$S" -C "$WS" --allow-domain example.com \
		--report "$d/report.jsonl" -- python3 -c "$(refused_requests 20)"
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = 20 ]
	[ "${lines[-1]}" = "sbxrun: --report: 20 of 20 lines were not written: No space left on device" ]
	run grep -c "lines were not written" <<<"$output"
	[ "$output" = 1 ]
	unchanged
	# Control: a file with room gets every line of both.
	run timeout -k 5 60 "$S" -C "$WS" --allow-domain example.com --report "$d/report.jsonl" \
		-- sh -c "$(refuse_loop 10 "$OUT/file.txt"); python3 -c \"$(refused_requests 20)\""
	[ "$status" -eq 0 ]
	[ "$output" = 20 ]
	[ "$(grep -c '"errno":"EROFS"' "$d/report.jsonl")" -eq 10 ]
	[ "$(grep -c '"address":"denied.invalid:80"' "$d/report.jsonl")" -eq 20 ]
}

@test "a report an earlier run left with a torn last line: the next run's lines stay whole" {
	local d="$BATS_TEST_TMPDIR/full" rest
	mkdir -p "$d"
	# Run 1 fills the file system that holds the report: the file's page has room for some
	# of its lines, then for part of one, then for none. Room is then made (what the caller
	# would do), and run 2, the proxy worker's lines, appends to the same file; run 3, the
	# supervisor's, to a file whose last line a run killed in the middle of a write left torn.
	# Before: each next run's first line was glued to the end of the torn one.
	rest="rm '$d/fill' && echo '{\"first\":1}' >'$d/report.jsonl' && echo run1 >'$d/run1.err' &&
		{ dd if=/dev/zero of='$d/fill' bs=1k 2>/dev/null; [ -s '$d/fill' ]; } &&
		timeout -k 5 60 '$S' -C '$WS' --report '$d/report.jsonl' -- \
			sh -c \"\$1\" 2>>'$d/run1.err'; echo run1 \$?; rm '$d/fill' &&
		timeout -k 5 60 '$S' -C '$WS' --allow-domain example.com --report '$d/report.jsonl' \
			-- python3 -c \"\$2\"; echo run2 \$? &&
		printf '{\"time\":\"2026-' >>'$d/report.jsonl' &&
		timeout -k 5 60 '$S' -C '$WS' --report '$d/report.jsonl' -- sh -c \"\$3\"; echo run3 \$? &&
		cp '$d/report.jsonl' '$d/run1.err' '$BATS_TEST_TMPDIR/'"
	run on_full_fs "$d" sh -c "$rest" sh "$(refuse_loop 40 "$OUT/file.txt")" \
		"$(refused_requests 5)" "$(refuse_loop 5 "$OUT/file.txt")"
	echo "status $status: $output"
	cat "$BATS_TEST_TMPDIR/run1.err" "$BATS_TEST_TMPDIR/report.jsonl"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "run1 0" ]
	[ "${lines[1]}" = 5 ]
	[ "${lines[2]}" = "run2 0" ]
	[ "${lines[3]}" = "run3 0" ]
	run python3 - "$BATS_TEST_TMPDIR/report.jsonl" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
assert text.endswith("\n"), "the file ends with a newline"
whole, torn = [], 0
for l in text.split("\n")[:-1]:
    try:
        whole.append(json.loads(l))
    except ValueError:
        assert l.startswith('{"time":"'), l
        torn += 1
erofs = sum(j.get("errno") == "EROFS" for j in whole)
proxy = sum(j.get("address") == "denied.invalid:80" for j in whole)
print(torn, erofs, proxy)
PY
	echo "$output"
	[ "$status" -eq 0 ]
	read -r torn erofs proxy <<<"$output"
	# Run 1's torn line and the one run 3 found; every other line whole, each run's own.
	[ "$torn" -eq 2 ]
	[ "$proxy" -eq 5 ]
	# Run 3's five, and run 1's that went whole: the rest it counted as lost (the torn one too).
	[ "$erofs" -gt 5 ]
	[ "$erofs" -lt 45 ]
	[ "$(tail -n 1 "$BATS_TEST_TMPDIR/run1.err")" = "sbxrun: --report: $((40 - erofs + 5)) of 40 lines were not written: No space left on device" ]
	unchanged
}

@test "standard error as the report and the proxy's log: the command's output that shares it gains no byte" {
	# The command's output, standard error's file too, ends without a newline, as a
	# progress line does: a last byte that is no newline there is no torn line of sbxrun's.
	# Before: a newline was added to it when the run ended.
	run sh -c "'$S' -C '$WS' --report - --allow-domain example.com --network-log - -- \
		sh -c \"printf 'started '; echo x >'$OUT/file.txt' 2>/dev/null; printf done\" \
		>'$WS/out' 2>&1"
	cat "$WS/out"
	[ "$status" -eq 0 ]
	# The denial's line went there, and the command's last bytes are the file's last.
	grep -qF "\"path\":\"$OUT/file.txt\",\"errno\":\"EROFS\"" "$WS/out"
	[ "$(tail -c 4 "$WS/out")" = done ]
	# Positive control: a report file of its own whose last line the command left open is
	# ended when the run ends.
	run "$S" -C "$WS" --report "$WS/own.jsonl" -- sh -c "printf started >>own.jsonl"
	[ "$status" -eq 0 ]
	[ "$(od -An -c "$WS/own.jsonl" | tr -d ' ')" = 'started\n' ]
	unchanged
}

@test "a pipe's reader that takes a page now and then: the run still ends when its command does" {
	local sock="$BATS_TEST_TMPDIR/ok.sock" got="$BATS_TEST_TMPDIR/got"
	# The broker's refusals (the supervisor's loop, which never waits) wait in memory for the
	# pipe; once the command has ended the summary gives them time. Run 1 holds the pipe and
	# frees a page of it every 3 s: never stopped, but taking some 400 KiB for ever.
	mkfifo "$WS/report.jsonl"
	rm -f "$WS/ready"
	(
		exec 3<>"$WS/report.jsonl"
		touch "$WS/ready"
		for _ in $(seq 30); do
			sleep 3
			timeout 1 dd bs=4096 count=1 <&3 >/dev/null 2>&1
		done
	) >/dev/null 2>&1 &
	local reader=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	local py="import socket
for i in range(2000):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect('$WS/none.sock')
    except OSError:
        pass
    s.close()
print('ended', flush=True)"
	# 137: the supervisor was still waiting at timeout's SIGTERM, deaf to it, and -k ended it.
	run timeout -k 5 40 "$S" -C "$WS" --allow-unix-socket "$sock" --report "$WS/report.jsonl" -- \
		python3 -c "$py"
	kill "$reader" 2>/dev/null || true
	wait "$reader" || true
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ended ]
	[[ "${lines[1]}" =~ ^"sbxrun: --report: "[0-9]+" of 2000 lines were not written: the pipe's reader had not taken them 5 seconds after the command ended"$ ]]
	[ "${#lines[@]}" -eq 2 ]
	# Control: a reader that reads gets every line.
	rm "$WS/report.jsonl"
	mkfifo "$WS/report.jsonl"
	rm -f "$WS/ready"
	(
		exec 3<>"$WS/report.jsonl"
		touch "$WS/ready"
		timeout 30 head -n 2000 <&3 >"$got"
	) >/dev/null 2>&1 &
	reader=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	run timeout -k 5 40 "$S" -C "$WS" --allow-unix-socket "$sock" --report "$WS/report.jsonl" -- \
		python3 -c "$py"
	wait "$reader" || true
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "$output" = ended ]
	[ "$(grep -c '"address":"unix:'"$WS"'/none.sock","errno":"EACCES"' "$got")" -eq 2000 ]
	unchanged
}

@test "a pipe's reader that takes a page now and then: a traced command still ends on SIGTERM" {
	local sock="$BATS_TEST_TMPDIR/ok.sock"
	# Run 1 holds the pipe and frees a page of it every 3 s. The broker's refusals fill the
	# pipe and wait in memory; then a refusal the tracer sees waits for the pipe to take all
	# that waits before it, holding the command, and timeout's SIGTERM with it, so long.
	mkfifo "$WS/report.jsonl"
	rm -f "$WS/ready"
	(
		exec 3<>"$WS/report.jsonl"
		touch "$WS/ready"
		for _ in $(seq 30); do
			sleep 3
			timeout 1 dd bs=4096 count=1 <&3 >/dev/null 2>&1
		done
	) >/dev/null 2>&1 &
	local reader=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	local py="import socket, time
for i in range(3000):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect('$WS/none.sock')
    except OSError:
        pass
    s.close()
print('connected', flush=True)
try:
    open('$OUT/file.txt', 'w')
except OSError as e:
    print(e.errno, flush=True)
time.sleep(60)"
	# 124: the command ended on timeout's SIGTERM; 137: it was still held at the -k.
	run timeout -k 20 10 "$S" -C "$WS" --allow-unix-socket "$sock" --report "$WS/report.jsonl" -- \
		python3 -c "$py"
	kill "$reader" 2>/dev/null || true
	wait "$reader" || true
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 124 ]
	[ "${lines[0]}" = connected ]
	[ "${lines[1]}" = 30 ]
	unchanged
}

@test "a pipe whose reader is slow gets every line of the report, whole" {
	# A directory outside the writable roots with a path of some 4000 bytes: a refusal there
	# is a line longer than PIPE_BUF (4096), which a full pipe could take in part.
	local long="$OUT/long" part
	part=$(printf 'd%.0s' $(seq 200))
	for _ in $(seq 19); do long="$long/$part"; done
	long="$long/$(printf 'e%.0s' $(seq 100))"
	mkdir -p "$long"
	mkfifo "$WS/report.jsonl"
	# The reader opens the pipe first, then reads nothing for 2 s: the command meanwhile
	# fills it (64 KiB) several times over, with long lines among short ones.
	rm -f "$WS/ready"
	(
		exec 3<>"$WS/report.jsonl"
		touch "$WS/ready"
		sleep 2
		timeout 20 head -n 1210 <&3 >"$BATS_TEST_TMPDIR/got"
	) >/dev/null 2>&1 &
	local reader=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	run timeout -k 5 60 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c \
		"$(refuse_loop 600 "$OUT/file.txt"); $(refuse_loop 10 "$long/f"); $(refuse_loop 600 "$OUT/file.txt"); echo ended"
	wait "$reader" || true
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "$output" = ended ]
	wc -lc "$BATS_TEST_TMPDIR/got"
	[ "$(grep -c '"path":"'"$OUT"'/file.txt","errno":"EROFS"' "$BATS_TEST_TMPDIR/got")" -eq 1200 ]
	[ "$(grep -c '"path":"'"$long"'/f","errno":"EROFS"' "$BATS_TEST_TMPDIR/got")" -eq 10 ]
	[ "$(grep -m 1 "$long/f" "$BATS_TEST_TMPDIR/got" | wc -c)" -gt 4096 ]
	# Every line is one JSON object: none was torn.
	[ "$(jq -c . "$BATS_TEST_TMPDIR/got" | wc -l)" -eq 1210 ]
	unchanged
}

@test "a pipe whose reader stops: no line of the report is left in part in it" {
	local base="$OUT/long" part dirs=() m l0 e
	part=$(printf 'd%.0s' $(seq 200))
	for _ in $(seq 18); do base="$base/$part"; done
	mkdir -p "$base"
	# The refusal at $base/f makes a line of l0 bytes; one at $base/EEE/MMM/f one of
	# l0 + 202 + m. A full pipe takes in part a line longer than PIPE_BUF of which the bytes
	# past a page fit the last page's room: lines of 4097 to 4249 bytes, 8 apart, meet it.
	run sbxr --report "$BATS_TEST_TMPDIR/m.jsonl" -- sh -c "true 2>/dev/null >'$base/f'"
	l0=$(wc -c <"$BATS_TEST_TMPDIR/m.jsonl")
	part=$(printf 'e%.0s' $(seq 200))
	for k in $(seq 0 19); do
		m=$((4097 + 8 * k - l0 - 202))
		[ "$m" -ge 1 ]
		[ "$m" -le 255 ]
		e=$(printf 'm%.0s' $(seq "$m"))
		mkdir -p "$base/$part/$e"
		dirs+=("$base/$part/$e")
	done
	mkfifo "$WS/report.jsonl"
	# The pipe's reader (this shell) takes nothing while the command runs: short lines fill
	# the pipe, then come the long ones.
	local cmd
	cmd="$(refuse_loop 400 "$OUT/file.txt")"
	for d in "${dirs[@]}"; do cmd="$cmd; true 2>/dev/null >'$d/f'"; done
	exec 7<>"$WS/report.jsonl"
	run timeout -k 5 60 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c "$cmd; echo ended"
	# The run has ended and the report's descriptor with it: once this shell's own writer
	# (fd 7) is gone, a reader opened before it reads what the pipe holds, then its end.
	exec 8<"$WS/report.jsonl"
	exec 7<&-
	timeout 5 cat <&8 >"$BATS_TEST_TMPDIR/got" || true
	exec 8<&-
	echo "status $status: $output"
	wc -lc "$BATS_TEST_TMPDIR/got"
	# What it holds is whole lines, each one JSON object.
	[ "$(tail -c 1 "$BATS_TEST_TMPDIR/got" | od -An -c | tr -d ' ')" = '\n' ]
	[ "$(jq -c . "$BATS_TEST_TMPDIR/got" | wc -l)" -eq "$(wc -l <"$BATS_TEST_TMPDIR/got")" ]
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = ended ]
	[[ "${lines[1]}" =~ ^"sbxrun: --report: "[0-9]+" of 420 lines were not written: the pipe's reader stopped reading"$ ]]
	# Control: a regular file gets the same lines whole, the long ones as long as meant.
	rm "$WS/report.jsonl"
	run timeout -k 5 60 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c "$cmd; echo ended"
	[ "$output" = ended ]
	[ "$(jq -c . "$WS/report.jsonl" | wc -l)" -eq 420 ]
	[ "$(grep -m 1 "${dirs[0]}/f" "$WS/report.jsonl" | wc -c)" -eq 4097 ]
	unchanged
}

@test "a directory on the way to the report or the proxy's log an earlier run made a link" {
	mkdir -p "$WS/logs"
	# Run 1: logs/ becomes a link to a directory the command may not write.
	run sbxr -- sh -c "rm -rf logs && ln -s '$OUT/dir' logs"
	[ "$status" -eq 0 ]
	[ -L "$WS/logs" ]
	run sbxr --report "$WS/logs/report.jsonl" -- touch "$CANARY"
	refused "sbxrun: cannot enforce sandbox --report $WS/logs/report.jsonl because it crosses writable symlink $WS/logs"
	# The hint does not send the user where the planted link leads.
	[[ "${lines[0]}" == *"; hint: remove the link (an earlier confined run may have made it),"* ]]
	[[ "${lines[0]}" == *" or name another path" ]]
	# Named relative to the current directory, the same.
	run sh -c 'cd "$1" && shift && exec "$@"' - "$WS" "$S" --report logs/report.jsonl -- \
		touch "$CANARY"
	refused "sbxrun: cannot enforce sandbox --report logs/report.jsonl because it crosses writable symlink $WS/logs"
	run sbxr --allow-domain example.com --network-log "$WS/logs/net.log" -- touch "$CANARY"
	refused "sbxrun: cannot enforce sandbox --network-log $WS/logs/net.log because it crosses writable symlink $WS/logs"
	[ -z "$(ls -A "$OUT/dir")" ]
	# Control: named where the link leads (outside every writable root), both are made there.
	run sbxr --report "$OUT/dir/report.jsonl" --allow-domain example.com \
		--network-log "$OUT/dir/net.log" -- "${DENIED[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '"mechanism":"proxy"' "$OUT/dir/report.jsonl"
	grep -q '"decision":"deny"' "$OUT/dir/net.log"
	rm "$WS/logs"
}

# refusals N DIR: a command that tries N times to create a file in DIR (outside every writable
# root), each try one line of the report, as long as DIR's name.
refusals() {
	"$S" -C "$WS" --profile :read-only --report "$WS/report.jsonl" -- python3 -c '
import os, sys
for _ in range(int(sys.argv[1])):
    try:
        os.open(sys.argv[2] + "/x", os.O_WRONLY | os.O_CREAT)
    except OSError:
        pass' "$1" "$2"
}

@test "a command that meets refusals without end cannot fill the disk that holds the report" {
	local deep=$OUT/deep
	for _ in $(seq 14); do deep=$deep/$(printf 'D%.0s' $(seq 250)); done
	mkdir -p "$deep"
	# Lines of about 3.7 kB: 6000 of them are some 22 MB, past the limit.
	run refusals 6000 "$deep"
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$WS/report.jsonl")" -le $((16 << 20)) ]
	lines=$(wc -l <"$WS/report.jsonl")
	[ "$output" = "sbxrun: --report: $((6000 - lines)) of 6000 lines were not written: past the limit of 16 MiB" ]
	# Each line written is whole.
	[ "$(grep -c '"errno":"EROFS"' "$WS/report.jsonl")" -eq "$lines" ]
	# Control: under the limit every line is written, and nothing more is said.
	rm "$WS/report.jsonl"
	run refusals 100 "$deep"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(grep -c '"errno":"EROFS"' "$WS/report.jsonl")" -eq 100 ]
	rm -rf "$OUT/deep"
}

# The limit keeps the disk that holds the report: a line that never reached it (the pipe's reader
# closed it) must not count, or a run 1 that made the pipe and closed it would leave everything
# past 16 MiB of lost lines unreported, once a reader comes.
@test "report lines a pipe never took do not count toward its 16 MiB" {
	local deep=$OUT/deep
	for _ in $(seq 14); do deep=$deep/$(printf 'D%.0s' $(seq 250)); done
	mkdir -p "$deep"
	# Run 1, beside run 2: it makes the pipe where run 2's report goes, holds it open until run
	# 2's command has started, then closes it: every line fails with EPIPE.
	rm -f "$WS/ready" "$WS/started" "$WS/closed" "$WS/lost" "$WS/reading"
	"$S" -C "$WS" -- sh -c 'mkfifo report.jsonl && exec 3<>report.jsonl && touch ready &&
		while [ ! -e started ]; do sleep 0.05; done; exec 3<&-; touch closed; sleep 120' \
		>/dev/null 2>&1 &
	local holder=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	[ -p "$WS/report.jsonl" ]
	# A reader that comes once run 2 has lost some 22 MB of lines (6000 of about 3.7 kB).
	(
		for _ in $(seq 2400); do [ -e "$WS/lost" ] && break; sleep 0.05; done
		exec 4<"$WS/report.jsonl"
		touch "$WS/reading"
		exec timeout 60 cat <&4
	) >"$BATS_TEST_TMPDIR/got" 2>/dev/null 3>&- &
	local reader=$!
	local loop='import os, sys
for _ in range(int(sys.argv[1])):
    try:
        os.open(sys.argv[2] + "/x", os.O_WRONLY | os.O_CREAT)
    except OSError:
        pass'
	local cmd="touch started; while [ ! -e closed ]; do sleep 0.05; done
		python3 -c '$loop' 6000 '$deep' && touch lost
		while [ ! -e reading ]; do sleep 0.05; done; python3 -c '$loop' 100 '$OUT'"
	run timeout -k 5 300 "$S" -C "$WS" --report "$WS/report.jsonl" -- sh -c "$cmd"
	kill "$holder" 2>/dev/null || true
	wait "$holder" || true
	wait "$reader" || true
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "$output" = "sbxrun: --report: 6000 of 6100 lines were not written: the pipe's reader closed it" ]
	# Every refusal met once the reader came is reported, whole.
	[ "$(grep -c '"errno":"EROFS"' "$BATS_TEST_TMPDIR/got")" -eq 100 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/got")" -eq 100 ]
	unchanged
	rm -rf "$OUT/deep"
}

# CONNECT_PY N [LETTER]: asks sbxrun's own proxy N times (four at a time) for a denied host of
# 253 characters (LETTER, "a" by default, repeated), each one line of --network-log.
CONNECT_PY='
import os, socket, sys, threading
host, port = os.environ["HTTPS_PROXY"].split("//")[-1].rstrip("/").rsplit(":", 1)
name = ".".join([(sys.argv[2] if len(sys.argv) > 2 else "a") * 63] * 3) + ".invalid"
req = ("CONNECT %s:443 HTTP/1.1\r\nHost: %s:443\r\n\r\n" % (name, name)).encode()
def ask(n):
    for _ in range(n):
        s = socket.create_connection((host, int(port)))
        s.sendall(req)
        s.recv(4096)
        s.close()
ts = [threading.Thread(target=ask, args=(int(sys.argv[1]) // 4,)) for _ in range(4)]
for t in ts:
    t.start()
for t in ts:
    t.join()'

# connections N: a command that makes N such decisions.
connections() {
	"$S" -C "$WS" --profile :read-only --allow-domain example.com \
		--network-log "$WS/net.log" -- python3 -c "$CONNECT_PY" "$1"
}

@test "a command that opens connections without end cannot fill the disk that holds --network-log" {
	# Lines of some 370 bytes: 48000 of them are some 18 MB, past the limit.
	run connections 48000
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$WS/net.log")" -le $((16 << 20)) ]
	[ "$output" = "sbxrun: --network-log: past the limit of 16 MiB; later decisions are not logged" ]
	# Each line written is whole.
	[ "$(grep -c '"decision":"deny","rule":"not in the allow list","status":403' "$WS/net.log")" \
		-eq "$(wc -l <"$WS/net.log")" ]
	# Control: under the limit every decision is logged, and nothing is said.
	rm "$WS/net.log"
	run connections 400
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[ "$(grep -c '"decision":"deny"' "$WS/net.log")" -eq 400 ]
}

# The limit keeps the disk that holds the log: a line that never reached it (the pipe's reader
# closed it, or stopped reading) must not count, or a run 1 that made the pipe and closed it would
# leave everything past 16 MiB of lost lines unlogged, once a reader comes.
@test "lines --network-log could not write do not count toward its 16 MiB" {
	# Run 1, beside run 2: it makes the pipe where run 2's log goes, holds it open until run
	# 2's command has started, then closes it: every line fails with EPIPE.
	rm -f "$WS/ready" "$WS/started" "$WS/closed" "$WS/lost" "$WS/reading"
	"$S" -C "$WS" -- sh -c 'mkfifo net.log && exec 3<>net.log && touch ready &&
		while [ ! -e started ]; do sleep 0.05; done; exec 3<&-; touch closed; sleep 120' \
		>/dev/null 2>&1 &
	local holder=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	[ -p "$WS/net.log" ]
	# A reader that comes once run 2 has lost some 18 MB of lines (48000 decisions).
	(
		for _ in $(seq 2400); do [ -e "$WS/lost" ] && break; sleep 0.05; done
		exec 4<"$WS/net.log"
		# Room for all the lines to come: the proxy cannot wait for a reader that a loaded
		# machine runs late, and counts what a full pipe did not take (a reader's pace is
		# not what this case is about).
		python3 -c 'import fcntl; fcntl.fcntl(4, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)'
		touch "$WS/reading"
		exec timeout 60 cat <&4
	) >"$BATS_TEST_TMPDIR/got" 2>/dev/null 3>&- &
	local reader=$!
	local cmd="touch started; while [ ! -e closed ]; do sleep 0.05; done
		python3 -c '$CONNECT_PY' 48000 && touch lost
		while [ ! -e reading ]; do sleep 0.05; done; python3 -c '$CONNECT_PY' 400 b"
	run timeout -k 5 300 "$S" -C "$WS" --allow-domain example.com --network-log "$WS/net.log" \
		-- sh -c "$cmd"
	kill "$holder" 2>/dev/null || true
	wait "$holder" || true
	wait "$reader" || true
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "$output" = "sbxrun: --network-log: 48000 of 48400 lines were not written: the pipe's reader closed it" ]
	# Every decision made once the reader came is logged, whole.
	[ "$(grep -c '"host":"bbbbbbbbbb' "$BATS_TEST_TMPDIR/got")" -eq 400 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/got")" -eq 400 ]
	unchanged
}

# The same for the proxy's lines in the report, which its own process writes (relay_add).
@test "the proxy's report lines a pipe never took do not count toward its 16 MiB" {
	rm -f "$WS/ready" "$WS/started" "$WS/closed" "$WS/lost" "$WS/reading"
	"$S" -C "$WS" -- sh -c 'mkfifo report.jsonl && exec 3<>report.jsonl && touch ready &&
		while [ ! -e started ]; do sleep 0.05; done; exec 3<&-; touch closed; sleep 120' \
		>/dev/null 2>&1 &
	local holder=$!
	for _ in $(seq 200); do [ -e "$WS/ready" ] && break; sleep 0.05; done
	[ -p "$WS/report.jsonl" ]
	# A reader that comes once run 2 has lost 60000 of the proxy's lines, past 16 MiB.
	(
		for _ in $(seq 2400); do [ -e "$WS/lost" ] && break; sleep 0.05; done
		exec 4<"$WS/report.jsonl"
		# Room for all the lines to come: the proxy cannot wait for a reader that a loaded
		# machine runs late, and counts what a full pipe did not take (a reader's pace is
		# not what this case is about).
		python3 -c 'import fcntl; fcntl.fcntl(4, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)'
		touch "$WS/reading"
		exec timeout 60 cat <&4
	) >"$BATS_TEST_TMPDIR/got" 2>/dev/null 3>&- &
	local reader=$!
	local cmd="touch started; while [ ! -e closed ]; do sleep 0.05; done
		python3 -c '$CONNECT_PY' 60000 && touch lost
		while [ ! -e reading ]; do sleep 0.05; done; python3 -c '$CONNECT_PY' 400 b"
	run timeout -k 5 300 "$S" -C "$WS" --allow-domain example.com --report "$WS/report.jsonl" \
		-- sh -c "$cmd"
	kill "$holder" 2>/dev/null || true
	wait "$holder" || true
	wait "$reader" || true
	echo "status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	[ "$output" = "sbxrun: --report: 60000 of 60400 lines were not written: the pipe's reader closed it" ]
	# Every decision made once the reader came is reported, whole.
	[ "$(grep -c 'bbbbbbbbbb' "$BATS_TEST_TMPDIR/got")" -eq 400 ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/got")" -eq 400 ]
	unchanged
}

@test "a run refused once it made --network-log (125) leaves no log behind; the caller's stays" {
	# The helper refuses at its clone(2), once the log is open: nothing ran, nothing is left.
	run "$BIN/failinj" newnet -- "$S" -C "$WS" --allow-domain example.com \
		--network-log "$WS/net.log" -- touch "$CANARY"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: clone("*"CLONE_NEWNET): Operation not permitted; hint: "* ]]
	[ ! -e "$CANARY" ]
	[ ! -e "$WS/net.log" ]
	# Refused by the plan (no seccomp, which every sandbox needs), with a report asked for too:
	# before either file is opened, so neither is made.
	run "$BIN/failinj" seccomp -- "$S" -C "$WS" --report "$WS/report.jsonl" \
		--allow-domain example.com --network-log "$WS/net.log" -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"network restricted\" on linux: "*"seccomp filters are unavailable"* ]]
	[ ! -e "$CANARY" ]
	[ ! -e "$WS/net.log" ]
	[ ! -e "$WS/report.jsonl" ]
	# A file at the name before the run (an earlier run's, or the caller's) is not this run's.
	echo earlier >"$WS/net.log"
	run "$BIN/failinj" newnet -- "$S" -C "$WS" --allow-domain example.com \
		--network-log "$WS/net.log" -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[ "$(cat "$WS/net.log")" = earlier ]
	: >"$WS/net.log"
	run "$BIN/failinj" newnet -- "$S" -C "$WS" --allow-domain example.com \
		--network-log "$WS/net.log" -- touch "$CANARY"
	[ "$status" -eq 125 ]
	[ -e "$WS/net.log" ]
	rm "$WS/net.log"
	# Control: a run whose command starts keeps the log made for it, empty or not.
	run sbxr --allow-domain example.com --network-log "$WS/net.log" -- touch "$CANARY"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
	[ -e "$WS/net.log" ]
}

@test "the proxy's log this run makes where a deny glob matches: denied as the glob's other matches" {
	profile restricted $(workspace_entries) "$(glob_deny "$WS/**/*.env")" >"$BASE/glob.json"
	echo secret >"$WS/old.env"
	# Run 1 clears the ground: the log's name is free, so that run 2 makes its file afresh.
	run sbxr -- rm -f "$WS/net.env"
	[ "$status" -eq 0 ]
	[ ! -e "$WS/net.env" ]
	# Run 2 makes its log at a name the deny glob matches: the command can neither read nor
	# rewrite nor remove it (before, the glob was scanned first and this file was left open).
	run sbxr -p "$BASE/glob.json" --allow-domain example.com --network-log "$WS/net.env" -- \
		sh -c "'$P' read '$WS/net.env'; '$P' append '$WS/net.env'; '$P' unlink '$WS/net.env';
		'$P' read '$WS/old.env'; '$P' read '$WS/file.txt'; \"\$@\"" sh "${DENIED[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	# Positive control: the glob's earlier match is denied alike, a file it does not match is
	# read, and the proxy still writes its log.
	[ "$output" = "$(printf 'EACCES\nEACCES\nEBUSY\nEACCES\nOK')" ]
	grep -q '"host":"denied.invalid".*"decision":"deny"' "$WS/net.env"
	rm -f "$WS/net.env" "$WS/old.env"
}
