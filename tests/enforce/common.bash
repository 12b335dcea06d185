# Shared by the enforcement suites. The run driver sets BIN (sbxrun, the helper link, probe,
# failinj, suid-probe), WORK (a directory this user owns), TMPDIR and SBX_USER (root|nobody).
H="$BIN/sbxrun-linux-sandbox"
P="$BIN/probe"

entry_special() { printf '{"path":{"type":"special","value":{"kind":"%s"}},"access":"%s"}' "$1" "$2"; }
entry_path() { printf '{"path":{"type":"path","path":"%s"},"access":"%s"}' "$1" "$2"; }
profile() { # profile NETWORK ENTRY...
	local net=$1 IFS=,
	shift
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[%s]},"network":"%s"}' \
		"$*" "$net"
}

# unprotected ROOT: write entries for ROOT's protected names (.git, .agents, .codex), which a
# mount namespace keeps from being created otherwise: for the cases without one, where only
# another rule is in question.
unprotected() {
	echo "$(entry_path "$1/.git" write)" "$(entry_path "$1/.agents" write)" \
		"$(entry_path "$1/.codex" write)"
}

# The :workspace profile written out: root read, project roots, /tmp and $TMPDIR write.
workspace_entries() {
	echo "$(entry_special root read)" "$(entry_special project_roots write)" \
		"$(entry_special slash_tmp write)" "$(entry_special tmpdir write)"
}

# A fresh layout per suite: WS (a git repository, the workspace), OUT (outside every writable
# root, but writable by this user on the host, so only the sandbox can refuse a write there).
make_layout() {
	BASE="$WORK/$(basename "$BATS_TEST_FILENAME" .bats)"
	rm -rf "$BASE"
	WS="$BASE/ws"
	OUT="$BASE/out"
	mkdir -p "$WS" "$OUT"
	git -C "$WS" init -q
	echo hello >"$WS/file.txt"
	git -C "$WS" add file.txt
	git -C "$WS" -c user.name=t -c user.email=t@t commit -qm init
	echo change >>"$WS/file.txt"
	echo outside >"$OUT/file.txt"
	mkdir -p "$OUT/dir"
	echo tmp >"$WS/movable.txt"
	echo tmp >"$OUT/movable.txt"
}

# sbx CMD...: the helper with $PROFILE, its policy cwd $SBX_CWD (default: the workspace).
sbx() { "$H" --sandbox-policy-cwd "${SBX_CWD:-$WS}" --permission-profile "$PROFILE" -- "$@"; }

# sbx_fault FAULT PROFILE CMD...: the same under the fault injector, FAULT hidden (failinj).
sbx_fault() {
	local fault=$1 prof=$2
	shift 2
	"$BIN/failinj" "$fault" -- "$H" --sandbox-policy-cwd "${SBX_CWD:-$WS}" \
		--permission-profile "$prof" -- "$@"
}

# expect ERRNO OP ARG...: the probe inside the sandbox prints exactly ERRNO (or OK).
expect() {
	local want=$1
	shift
	run sbx "$P" "$@"
	echo "inside: probe $* -> $output (want $want)"
	[ "$output" = "$want" ]
}

# fexpect FAULT ERRNO OP ARG...: expect, with $PROFILE, under the fault injector.
fexpect() {
	local fault=$1 want=$2
	shift 2
	run sbx_fault "$fault" "$PROFILE" "$P" "$@"
	echo "under $fault: probe $* -> $output (want $want)"
	[ "$output" = "$want" ]
}

# outside OP ARG...: the same operation succeeds without the sandbox (the positive control).
outside() {
	run "$P" "$@"
	echo "outside: probe $* -> $output"
	[ "$output" = OK ]
}

# Listeners and a plain process outside the sandbox, for the network and process tests.
start_outside() {
	SOCKDIR="$BASE/sock"
	mkdir -p "$SOCKDIR"
	echo "sbx-abs-$$-$RANDOM" >"$SOCKDIR/abstract"
	python3 "$BATS_TEST_DIRNAME/listen.py" "$SOCKDIR/ports" "$SOCKDIR/s" \
		"$(cat "$SOCKDIR/abstract")" 3>&- &
	echo $! >"$SOCKDIR/listen.pid"
	sleep 300 3>&- &
	echo $! >"$SOCKDIR/victim.pid"
	for _ in $(seq 100); do [ -s "$SOCKDIR/ports" ] && break; sleep 0.05; done
	[ -s "$SOCKDIR/ports" ]
}
load_outside() {
	SOCKDIR="$BASE/sock"
	read -r TCP4 TCP6 UDP4 <"$SOCKDIR/ports"
	ABSTRACT=$(cat "$SOCKDIR/abstract")
	VICTIM=$(cat "$SOCKDIR/victim.pid")
}
stop_outside() {
	kill "$(cat "$BASE/sock/listen.pid")" "$(cat "$BASE/sock/victim.pid")" 2>/dev/null || true
}

# uses_outside: the suite's layout is made once and the listeners and plain process of
# start_outside run for the whole suite; each test's setup then starts with outside_vars.
uses_outside() {
	setup_file() {
		make_layout
		start_outside
	}
	teardown_file() { stop_outside; }
}
outside_vars() {
	make_layout_vars
	load_outside
}
make_layout_vars() {
	BASE="$WORK/$(basename "$BATS_TEST_FILENAME" .bats)"
	WS="$BASE/ws"
	OUT="$BASE/out"
}

# Git as the git mode suites run it: no system or user configuration, a fixed identity.
git_env() {
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
}

# make_git_repo DIR LIB: a repository at DIR with one commit, the repository LIB (made when
# missing) as submodule sub/, and a linked worktree at DIR/wt; everything as git lays it out.
make_git_repo() {
	local dir=$1 lib=$2 g=(git -c protocol.file.allow=always -c init.defaultBranch=main)
	if [ ! -d "$lib" ]; then
		"${g[@]}" init -q "$lib"
		"${g[@]}" -C "$lib" commit -q --allow-empty -m lib
	fi
	"${g[@]}" init -q "$dir"
	echo a >"$dir/a"
	"${g[@]}" -C "$dir" add a
	"${g[@]}" -C "$dir" commit -qm init
	"${g[@]}" -C "$dir" submodule add -q "$lib" sub
	"${g[@]}" -C "$dir" commit -qm sub
	"${g[@]}" -C "$dir" worktree add -q "$dir/wt"
}

# gsbx CMD...: sbxrun in git mode (--allow-git) with :workspace, $WS as cwd and workspace root
# (-C DIR first to run elsewhere in it).
gsbx() {
	local cwd=$WS
	if [ "$1" = -C ]; then
		cwd=$2
		shift 2
	fi
	"$BIN/sbxrun" --allow-git -C "$cwd" -w "$WS" -- "$@"
}

# gexpect ERRNO OP ARG...: the probe in git mode prints exactly ERRNO (or OK).
gexpect() {
	local want=$1
	shift
	run gsbx "$P" "$@"
	echo "git mode: probe $* -> $output (want $want)"
	[ "$output" = "$want" ]
}

# until_sh FILE: a loop for a command run inside (sh -c), which returns once FILE exists (or
# after about thirty seconds, so that a broken case ends): a run held open until the case has
# done its part, never for a fixed time that the case, slowed by the machine's load, can outrun.
until_sh() { printf "i=0; until [ -e '%s' ] || [ \$i -ge 1500 ]; do sleep 0.02; i=\$((i+1)); done" "$1"; }

# await_pgrep PATTERN: waits (up to ten seconds) until a process's full command line is
# PATTERN (pgrep -xf): a command has started once its run's set-up is over.
await_pgrep() {
	for _ in $(seq 500); do
		pgrep -xf "$1" >/dev/null && return 0
		sleep 0.02
	done
	return 1
}

# await_gone PATTERN: waits (up to ten seconds) until no process's command line matches
# PATTERN (pgrep -f): SIGKILL takes effect when its target is next scheduled, which under the
# machine's load may be a while after kill(2) returned.
await_gone() {
	for _ in $(seq 500); do
		pgrep -f "$1" >/dev/null || return 0
		sleep 0.02
	done
	return 1
}

# listening NAME: does a stream socket listen at NAME, a path or an abstract name written @NAME
# (the empty one as @; no backslash in NAME), in this network namespace? A name is in
# /proc/net/unix from bind(2) on, but a connect is refused until listen(2) (the flag
# __SO_ACCEPTCON, 00010000); and a socket file an earlier run left is there for [ -S ], with
# nothing listening behind it.
listening() {
	awk -v n=" $1" '$4 == "00010000" && $5 == "0001" && $6 == "01" &&
		substr($0, length($0) - length(n) + 1) == n { found = 1 } END { exit !found }' /proc/net/unix
}

# await_listening NAME...: waits (up to ten seconds) until a stream socket listens at every NAME.
await_listening() {
	local n up
	for _ in $(seq 500); do
		up=1
		for n in "$@"; do
			listening "$n" || up=0
		done
		if [ "$up" = 1 ]; then
			return 0
		fi
		sleep 0.02
	done
	echo "not listening: $*" >&2
	return 1
}

# ipc_key BASE: a System V key (and POSIX queue name, /sbx-KEY) for this test, which no object
# of any kind holds: BASE plus this suite's pid, which no other live suite has (keys are the
# machine's, and the other user's pass runs beside this one). A key held already (by another
# program, or left by a run killed before its cleanup whose pid came back) moves on by pid_max's
# ceiling, up to three times: the key is what another process can take, so the retry is there.
# The objects are then made exclusively (ipc.py), so one made in between is never taken for
# this test's own.
ipc_key() {
	local key n kind ipc
	ipc="$(dirname "${BASH_SOURCE[0]}")/ipc.py"
	for n in 0 1 2 3; do
		key=$(($1 + n * 0x400000 + $$))
		for kind in shm msg sem mq; do
			[ "$(python3 "$ipc" "$kind" "$key")" = ENOENT ] || continue 2
		done
		echo "$key"
		return 0
	done
	echo "ipc_key: every key from $1 is held" >&2
	return 1
}
