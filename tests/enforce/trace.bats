#!/usr/bin/env bats
# The denial report's tracer (platform/linux/trace.c) through spawn-demo --report: the sandbox of
# tests/enforce/spawn_demo.c (/ read-only in a mount namespace; with --landlock, / readable and
# /dev/shm writable but not executable; the network restricted by seccomp), each failed call the
# tracer hands on printed as "report: pid=N comm=C op=OP path=P real=R ... errno=E seccomp=G
# hidden=H". Every case runs a dynamic and a static (as Go builds them) probe, through a shell
# that forks and execs it, and asserts the exact record beside a positive control that leaves
# none. Whether a record is the sandbox's refusal is decided by lib/report.c (tests/unit).
load common
bats_require_minimum_version 1.5.0

D="$BIN/spawn-demo"
# LeakSanitizer cannot run in a traced process (it uses ptrace itself): in sanitized builds the
# traced commands skip their leak check (NOLEAK), the supervisor keeps its own.
NOLEAK=(env ASAN_OPTIONS=detect_leaks=0)
PROBES=("$BIN/probe" "$BIN/probe-static")

# records: the report lines of $output, without the ENOENT of names that do not exist (hidden=0),
# which every program meets looking for its locale and which lib/report.c never calls denials.
records() { grep '^report: ' <<<"$output" | grep -v 'errno=ENOENT seccomp=0 hidden=0$' || true; }

# A path on the read-only root that exists outside: $WORK lies on it.
setup() {
	RO="$WORK/trace-ro"
	mkdir -p "$RO"
	rm -f "$RO/new"
}

@test "a create on the read-only root: EROFS, one record naming the probe; /dev/shm: none" {
	for p in "${PROBES[@]}"; do
		run "$D" --report -- "${NOLEAK[@]}" sh -c "'$p' write '$RO/new'; '$p' write /dev/shm/ok.$$"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$(grep -c '^EROFS$' <<<"$output")" -eq 1 ]
		[ "$(grep -c '^OK$' <<<"$output")" -eq 1 ]
		want="op=create path=$RO/new real=$RO/new to=- address=- errno=EROFS seccomp=0 hidden=0"
		[ "$(records | grep -c .)" -eq 1 ]
		records | grep -Eq "^report: pid=[0-9]+ comm=probe(-static)? $want\$"
	done
}

@test "a write to an existing read-only file: op write, EROFS; truncate too" {
	echo x >"$RO/file"
	for p in "${PROBES[@]}"; do
		run "$D" --report -- "${NOLEAK[@]}" "$p" append "$RO/file"
		[ "$output" != "${output#*EROFS}" ]
		records | grep -q "op=write path=$RO/file real=$RO/file to=- address=- errno=EROFS "
		run "$D" --report -- "${NOLEAK[@]}" "$p" truncate "$RO/file"
		records | grep -q "op=write path=$RO/file real=$RO/file .*errno=EROFS "
	done
}

@test "names from the cwd and through a symlink: the path as named, real where it leads" {
	ln -sfn "$RO" "$WORK/trace-link"
	for p in "${PROBES[@]}"; do
		run "$D" --report -- "${NOLEAK[@]}" sh -c "'$p' mkdir '$WORK/trace-link/sub'; cd '$RO' && '$p' mkdir rel"
		echo "$output"
		[ "$(records | grep -c .)" -eq 2 ]
		records | grep -q "op=create path=$WORK/trace-link/sub real=$RO/sub to=- address=- errno=EROFS "
		records | grep -q "op=create path=$RO/rel real=$RO/rel to=- address=- errno=EROFS "
	done
}

@test "a link the command planted is resolved inside the sandbox, never from the supervisor's root" {
	# /proc/$$ (this shell, on the host) exists for the supervisor, not in the sandbox's /proc.
	[ -d "/proc/$$" ]
	for p in "${PROBES[@]}"; do
		run "$D" --report -- "${NOLEAK[@]}" sh -c "ln -s /proc/$$ /dev/shm/evil && '$p' write /dev/shm/evil/new"
		echo "$output"
		[ "$(grep -c '^ENOENT$' <<<"$output")" -eq 1 ]
		grep -Eq "^report: pid=[0-9]+ comm=probe(-static)? op=create path=/dev/shm/evil/new real=- to=- address=- errno=ENOENT " <<<"$output"
		[[ $output != *"real=/proc/$$"* ]]
	done
}

@test "a failed exec is handed on with the program named (lib/report.c decides whose it was)" {
	for p in "${PROBES[@]}"; do
		run "$D" --landlock --report -- "${NOLEAK[@]}" sh -c "cp '$p' /dev/shm/prog && chmod a-x /dev/shm/prog \
			&& /dev/shm/prog euid; '$p' euid >/dev/null && echo ran"
		echo "$output"
		[ "$(grep -c '^ran$' <<<"$output")" -eq 1 ]
		[ "$(records | grep -c .)" -eq 1 ]
		records | grep -Eq "^report: pid=[0-9]+ comm=sh op=exec path=/dev/shm/prog real=/dev/shm/prog to=- address=- errno=EACCES seccomp=0 hidden=0\$"
	done
}

@test "sockets the restricted network refuses: EPERM from seccomp, the family or address named" {
	for p in "${PROBES[@]}"; do
		run "$D" --report -- "${NOLEAK[@]}" sh -c "'$p' tcp4 127.0.0.1 9; '$p' socketpair; \
			'$p' unix '$WORK/none.sock'; '$p' abstract sbx-none"
		echo "$output"
		[ "$(grep -c '^EPERM$' <<<"$output")" -eq 3 ]
		[ "$(grep -c '^OK$' <<<"$output")" -eq 1 ]
		[ "$(records | grep -c .)" -eq 3 ]
		records | grep -Eq "^report: pid=[0-9]+ comm=probe(-static)? op=socket path=- real=- to=- address=AF_INET stream errno=EPERM seccomp=8 hidden=0\$"
		records | grep -Eq "^report: pid=[0-9]+ comm=probe(-static)? op=connect path=- real=- to=- address=unix:$WORK/none.sock errno=EPERM seccomp=8 hidden=0\$"
		records | grep -Eq "^report: pid=[0-9]+ comm=probe(-static)? op=connect path=- real=- to=- address=unix:@sbx-none errno=EPERM seccomp=8 hidden=0\$"
	done
}

@test "a refused call is not run when traced: unshare still EPERM, named by the call" {
	for p in "${PROBES[@]}"; do
		run "$D" --report -- "${NOLEAK[@]}" "$p" unshare-ns
		echo "$output"
		[ "$(grep -c '^EPERM$' <<<"$output")" -eq 1 ]
		records | grep -Eq "comm=probe(-static)? op=call:unshare .*errno=EPERM seccomp=3 hidden=0\$"
		# Without the report the filter refuses it the same way.
		run "$D" -- "$p" unshare-ns
		[ "$output" = EPERM ]
	done
}

@test "a child of a child: fork and exec are followed, and the pid is the sandbox's" {
	run "$D" --report -- "${NOLEAK[@]}" sh -c "sh -c \"'$BIN/probe-static' write '$RO/deep'\" & wait"
	echo "$output"
	records | grep -Eq "^report: pid=([3-9]|[1-9][0-9]+) comm=probe-static op=create path=$RO/deep "
}

@test "a command that meets no refusal leaves no record: git, ls, a build in /dev/shm" {
	rm -rf "$WORK/trace-repo"
	git init -q "$WORK/trace-repo"
	echo x >"$WORK/trace-repo/a"
	git -C "$WORK/trace-repo" add a
	git -C "$WORK/trace-repo" -c user.name=t -c user.email=t@t commit -qm a
	run "$D" --report -- "${NOLEAK[@]}" env GIT_OPTIONAL_LOCKS=0 sh -c "git -C '$WORK/trace-repo' \
		status --porcelain && ls / >/dev/null && cd /dev/shm && echo 'int main(void){return 0;}' \
		>m.c && cc -o m m.c && ./m && echo done"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^done$' <<<"$output")" -eq 1 ]
	[ -z "$(records)" ]
}

@test "the exit status and the streams are the command's; no report line without --report" {
	run "$D" --report -- "${NOLEAK[@]}" sh -c "echo out; echo err >&2; exit 7"
	[ "$status" -eq 7 ]
	[ "$(grep -v '^report: ' <<<"$output")" = "$(printf 'out\nerr')" ]
	run "$D" -- "$BIN/probe" write "$RO/new"
	[ "$output" = EROFS ]
}

@test "the subreaper variant refuses --report: the status of its own child would be lost" {
	run -125 "$D" --subreaper --report -- true
	[ "$output" = "sbxrun: --report needs the sandbox's own PID namespace, which this host cannot make" ]
}
