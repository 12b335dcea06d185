#!/usr/bin/env bats
# Masks live in the sandbox's mount namespace; /proc/PID/root and /proc/PID/cwd of a process
# outside (the same user's: an editor, a shell) lead into the host's, where the denied file is
# not masked and the read-only tree is writable. Run 1 finds such a process (or starts a daemon
# of its own, which dies with the run); run 2 must not get through it, in any model.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	echo secret >"$WS/sec"
	rm -f "$OUT/pwned"
	# The victim's cwd is the workspace from its fork on: a cd in the child would leave a moment
	# in which /proc/PID/cwd is still the caller's.
	cd "$WS"
	sleep 120 >/dev/null 2>&1 3>&- &
	VICTIM=$!
	cd - >/dev/null
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$WS/sec" deny)")
}
teardown() {
	kill "$VICTIM" 2>/dev/null || true
	rm -f "$WS/sec" "$OUT/pwned"
}

@test "/proc/PID/root and /proc/PID/cwd of an outside process do not lead past the masks" {
	local root="/proc/$VICTIM/root" cwd="/proc/$VICTIM/cwd"
	# Positive control: outside, both lead to the file.
	outside read "$root$WS/sec"
	outside read "$cwd/sec"
	expect EACCES read "$WS/sec"
	# Init: the process has no pid in the sandbox's fresh /proc.
	expect ENOENT read "$root$WS/sec"
	expect ENOENT read "$cwd/sec"
	expect ENOENT write "$root$OUT/pwned"
	# No PID namespace (clone refused): the host's /proc; Landlock's ptrace rule refuses.
	fexpect clone EACCES read "$root$WS/sec"
	fexpect clone EACCES read "$cwd/sec"
	fexpect clone EACCES write "$root$OUT/pwned"
	fexpect clone EROFS write "$OUT/pwned"
	[ ! -e "$OUT/pwned" ]
}

@test "with the host's /proc (--no-proc) and no Landlock, /proc/PID/root is still closed" {
	local prof
	prof=$(profile restricted "$(entry_special root read)" "$(entry_path "$WS" write)")
	outside write "/proc/$VICTIM/root$OUT/pwned"
	rm "$OUT/pwned"
	run "$BIN/failinj" landlock -- "$H" --no-proc --sandbox-policy-cwd "$WS" \
		--permission-profile "$prof" -- "$P" write "/proc/$VICTIM/root$OUT/pwned"
	echo "$output"
	[ "$output" = EACCES ]
	# The same write by name: the read-only root (positive control of the mechanism).
	run "$BIN/failinj" landlock -- "$H" --no-proc --sandbox-policy-cwd "$WS" \
		--permission-profile "$prof" -- "$P" write "$OUT/pwned"
	[ "$output" = EROFS ]
	[ ! -e "$OUT/pwned" ]
	# Without the PID namespace too, the run is refused (signals would reach outside).
	run "$BIN/failinj" landlock,clone -- "$H" --sandbox-policy-cwd "$WS" \
		--permission-profile "$prof" -- "$P" write "/proc/$VICTIM/root$OUT/pwned"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *'cannot enforce "signals and ptrace only inside the sandbox"'* ]]
	[ ! -e "$OUT/pwned" ]
}

@test "the fresh /proc is read-only: no file of the sandbox's processes is written by its mode" {
	local pw="$BASE/write-all.json"
	# Positive control: a profile that writes everywhere, under its own init (--report), gets
	# the fresh /proc read-write: the command renames itself (no leak check in a traced probe:
	# LeakSanitizer cannot run under ptrace).
	echo "$(profile restricted "$(entry_special root write)")" >"$pw"
	run "$BIN/sbxrun" -p "$pw" --report "$OUT/rep" -C "$WS" -- \
		env ASAN_OPTIONS=detect_leaks=0 \
		sh -c "'$P' write /proc/self/comm; test -e /proc/$$ || echo fresh"
	rm -f "$OUT/rep"
	echo "$output"
	[ "$output" = "$(printf 'OK\nfresh')" ]
	# Landlock taken away: uid 0 (or the caller's uid) without capabilities owns init's files
	# and would write them by their mode; the read-only mount answers.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$WS" write)")
	fexpect landlock EROFS write /proc/1/oom_score_adj
	fexpect landlock EROFS write /proc/1/coredump_filter
	fexpect landlock EROFS write /proc/1/clear_refs
	fexpect landlock EROFS write /proc/self/comm
	# With Landlock, the mount answers first.
	expect EROFS write /proc/self/comm
	# What goes through /proc to a file elsewhere still works: magic links lead to its mount.
	run sbx_fault landlock "$PROFILE" bash -c \
		'echo a >/dev/stdout; cat <(echo b); echo c >/proc/self/fd/1; \
		ls /proc/self/fd/ >/dev/null && grep -c "^Name:" /proc/self/status; \
		python3 -c "print(open(\"/proc/self/status\").readline().split()[0])"; \
		echo d >/proc/self/cwd/via-proc && cat via-proc && rm via-proc'
	echo "$output"
	[ "$output" = "$(printf 'a\nb\nc\n1\nName:\nd')" ]
}
