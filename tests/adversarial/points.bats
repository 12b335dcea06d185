#!/usr/bin/env bats
# Names that must not be created in a writable root: a missing .git, .agents or .codex, and the
# first missing component of a denied path. Each is a mount point made on the host for the run
# and masked inside; run 1 tries to plant something there (a git hook, the denied file), and
# afterwards nothing of it is left for the user's own git or for run 2. A run killed with
# SIGKILL leaves its empty mount point, which run 2 takes as it is and removes; whatever appears
# at such a name on the host during a run is removed, and the run's exit status is 1.
load common
bats_require_minimum_version 1.5.0

setup_file() { make_layout; }
setup() {
	make_layout_vars
	# A plain directory, no repository: all three protected names are missing.
	PW="$BASE/plain"
	rm -rf "$PW"
	mkdir -p "$PW"
	new_canary "$BASE"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$PW" write)")
	SBX_CWD=$PW
	# The argument of a command's sleep, which no other process has (the pid at a fixed width,
	# so that no tag of another live test, the other user's pass among them, begins with this
	# one): once it runs, the run's set-up is over.
	TAG="86395.$(printf %07d $$)$RANDOM"
}
teardown() { pkill -KILL -xf "sleep $TAG" 2>/dev/null || true; }

# empty_dir DIR: DIR holds nothing at all.
empty_dir() { [ -z "$(ls -A "$1")" ]; }

# await TEST PATH: waits (up to five seconds) until [ TEST PATH ] holds: -e for a run's mount
# point, -s for a file the command writes once it has started.
await() {
	for _ in $(seq 250); do
		[ "$1" "$2" ] && return 0
		sleep 0.02
	done
	return 1
}

# started_then_killed: starts the helper on a long sleep in the background, waits until the
# sleep runs (every mount point is made by then), and kills the supervisor with SIGKILL.
started_then_killed() {
	"$H" --sandbox-policy-cwd "$SBX_CWD" --permission-profile "$PROFILE" -- sleep "$TAG" 3>&- &
	local pid=$!
	await_pgrep "sleep $TAG"
	kill -KILL "$pid"
	wait "$pid" || true
}

@test "run 1 cannot plant .git/hooks where .git was missing; nothing is left after it" {
	local hook="$PW/.git/hooks/post-checkout"
	run sbx sh -c "mkdir -p '$PW/.git/hooks' && printf '#!/bin/sh\ntouch $CANARY\n' >'$hook'"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	# Positive control: any other directory is created, the hook too, where it would be harmless.
	expect OK mkdir "$PW/notgit"
	run sbx sh -c "mkdir -p '$PW/notgit/hooks' && echo x >'$PW/notgit/hooks/post-checkout'"
	[ "$status" -eq 0 ]
	rm -rf "$PW/notgit"
	# Nothing left on the host: no .git, no mount point; the user's git finds no repository.
	empty_dir "$PW"
	run git -C "$PW" status
	[ "$status" -ne 0 ]
	[ ! -e "$CANARY" ]
	# .agents and .codex the same.
	expect EROFS write "$PW/.codex/config.toml"
	expect EROFS mkdir "$PW/.agents/x"
	empty_dir "$PW"
}

@test "run 1 killed with SIGKILL leaves an empty .git; run 2 holds it and removes it" {
	started_then_killed
	# The leftover: the empty mount point of run 1, and nothing else.
	[ -d "$PW/.git" ]
	empty_dir "$PW/.git"
	# Run 2 takes it as missing: masked (the hook cannot be planted), then removed.
	expect EROFS mkdir "$PW/.git/hooks"
	empty_dir "$PW"
	# Positive control: the workspace itself is writable to run 2.
	expect OK write "$PW/file"
	rm "$PW/file"
}

@test "a run ended by SIGTERM or SIGHUP to sbxrun leaves nothing behind either" {
	local pid st sig
	for sig in TERM HUP; do
		# A background job of a script may inherit SIGHUP ignored (nohup): the signal under
		# test is set back to its default, as a terminal's session would have it.
		env --default-signal="$sig" "$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- sleep "$TAG" 3>&- &
		pid=$!
		await_pgrep "sleep $TAG"
		kill -"$sig" "$pid"
		st=0
		wait "$pid" || st=$?
		echo "$sig: $st"
		[ "$st" -eq $((128 + $(kill -l "$sig"))) ]
		empty_dir "$PW"
	done
}

@test "a run ended by a signal sbxrun does not forward leaves nothing behind and dies of it" {
	local pid st sig
	# Each ends a process by default, and none is passed on to the command: SIGPIPE (a write
	# of sbxrun's to a pipe whose reader has gone), a limit's, a timer's, real-time ones, and
	# a fault's sent by another process (a watchdog's SIGABRT).
	local sigs=(PIPE XFSZ XCPU PROF VTALRM IO PWR RTMIN+1 RTMAX ABRT ILL TRAP SYS)
	# And the faults' signals sent by kill(1); a sanitizer's build catches these three itself.
	grep -q __asan_init "$BIN/sbxrun" || sigs+=(SEGV BUS FPE)
	for sig in "${sigs[@]}"; do
		env --default-signal="$sig" "$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- sleep "$TAG" 3>&- &
		pid=$!
		await_pgrep "sleep $TAG"
		# The points are made by now; a mask is there on the host.
		[ -d "$PW/.git" ]
		kill -"$sig" "$pid"
		st=0
		wait "$pid" || st=$?
		echo "$sig: $st: $(ls -A "$PW")"
		[ "$st" -eq $((128 + $(kill -l "$sig"))) ]
		empty_dir "$PW"
		# The command ended with it.
		await_gone "sleep $TAG"
	done
	# Positive control: one the caller ignores is still ignored, and the run goes on.
	env --ignore-signal=PIPE "$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- sleep "$TAG" 3>&- &
	pid=$!
	await_pgrep "sleep $TAG"
	kill -PIPE "$pid"
	sleep 0.3
	kill -0 "$pid"
	pgrep -xf "sleep $TAG"
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	empty_dir "$PW"
}

@test "a signal the caller blocked stays blocked: the run goes on, the command starts with its mask" {
	local pid st want got
	# A caller's blocked signals are inherited across its execve of sbxrun: sent to sbxrun,
	# one of them stays pending, as it would in the command run in place; none ends the run.
	env --block-signal=PIPE --block-signal=RTMIN+1 --block-signal=ABRT "$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- sleep "$TAG" 3>&- &
	pid=$!
	await_pgrep "sleep $TAG"
	kill -PIPE "$pid"
	kill -RTMIN+1 "$pid"
	kill -ABRT "$pid"
	sleep 0.3
	kill -0 "$pid"
	# The command's mask and ignored set are the caller's, exactly (a job started with & by a
	# script, as the run was: SIGINT and SIGQUIT ignored).
	want=$(
		env --block-signal=PIPE --block-signal=RTMIN+1 --block-signal=ABRT grep -E '^Sig(Blk|Ign):' /proc/self/status &
		wait
	)
	got=$(grep -E '^Sig(Blk|Ign):' "/proc/$(pgrep -xf "sleep $TAG")/status")
	echo "want: $want"
	echo "got:  $got"
	[ "$got" = "$want" ]
	# Positive control: a forwarded one still ends it, and nothing is left.
	kill -TERM "$pid"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 143 ]
	empty_dir "$PW"
	await_gone "sleep $TAG"
}

@test "an empty .git file left behind is a leftover too; a non-empty one is the user's" {
	# As a point is made: empty, mode 01444.
	: >"$PW/.git"
	chmod 1444 "$PW/.git"
	# One run: read-only but readable, as it was; then removed.
	run sbx sh -c "'$P' append '$PW/.git'; '$P' read '$PW/.git'"
	[ "$output" = "$(printf 'EROFS\nOK')" ]
	empty_dir "$PW"
	# An empty one the user can write (no point is) is masked the same, and kept.
	: >"$PW/.git"
	run sbx sh -c "'$P' append '$PW/.git'; '$P' read '$PW/.git'"
	[ "$output" = "$(printf 'EROFS\nOK')" ]
	[ -f "$PW/.git" ]
	[ ! -s "$PW/.git" ]
	rm "$PW/.git"
	# So is an empty read-only one without the mark (mode 0444, the user's: before, removed).
	: >"$PW/.git"
	chmod 0444 "$PW/.git"
	run sbx sh -c "'$P' append '$PW/.git'; '$P' read '$PW/.git'"
	[ "$output" = "$(printf 'EROFS\nOK')" ]
	[ "$(stat -c %a:%s "$PW/.git")" = 444:0 ]
	rm -f "$PW/.git"
	# A .git file with content (a worktree's pointer, say) is protected and kept.
	echo "gitdir: $OUT/nowhere" >"$PW/.git"
	expect EROFS append "$PW/.git"
	expect OK read "$PW/.git"
	[ "$(cat "$PW/.git")" = "gitdir: $OUT/nowhere" ]
}

@test "a .git symlink planted for run 2 is refused; a non-empty .codex is protected and kept" {
	# Planted another way (run 1 cannot: the name is masked): a run under a weaker profile.
	mkdir -p "$OUT/fake-git/hooks"
	ln -s "$OUT/fake-git" "$PW/.git"
	run sbx touch "$CANARY"
	refused "sbxrun: cannot enforce \"read-only $PW/.git\" on linux: cannot enforce sandbox read-only path $PW/.git because it crosses writable symlink $PW/.git"
	[ -L "$PW/.git" ]
	rm "$PW/.git"
	# Control: without it, the same profile runs the command (which writes where it may: the
	# canary lies outside the writable root).
	run sbx touch "$PW/ran"
	[ "$status" -eq 0 ]
	[ -e "$PW/ran" ]
	rm "$PW/ran"
	# A .codex with content is the user's: read-only inside, readable, left as it is.
	mkdir -p "$PW/.codex"
	echo 'model = "x"' >"$PW/.codex/config.toml"
	expect EROFS append "$PW/.codex/config.toml"
	expect EROFS write "$PW/.codex/new.toml"
	expect OK read "$PW/.codex/config.toml"
	[ "$(cat "$PW/.codex/config.toml")" = 'model = "x"' ]
	[ ! -e "$PW/.codex/new.toml" ]
}

@test "what appears at a masked name on the host during the run is removed: exit 1, one line" {
	# Control: nothing appears, the command's status and silence pass through.
	run --separate-stderr sbx sh -c 'exit 0'
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	# Another process, outside the sandbox, replaces the empty .agents by a planted one while
	# the command runs (it says so in a file, and lasts until the plant is done).
	local started="$PW/started" planted="$BASE/planted"
	rm -f "$started" "$planted"
	"$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- \
		sh -c "echo >'$started'; $(until_sh "$planted")" 3>&- 2>"$BASE/stderr" &
	local pid=$!
	await -s "$started"
	rmdir "$PW/.agents"
	mkdir -p "$PW/.agents/skills"
	echo planted >"$PW/.agents/skills/run.sh"
	: >"$planted"
	st=0
	wait "$pid" || st=$?
	rm "$started"
	cat "$BASE/stderr"
	[ "$st" -eq 1 ]
	[ "$(cat "$BASE/stderr")" = "sbxrun: removed what was created on the host during the run: $PW/.agents" ]
	empty_dir "$PW"
	# A command that failed keeps its own status.
	rm -f "$started" "$planted"
	"$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- \
		sh -c "echo >'$started'; $(until_sh "$planted"); exit 7" 3>&- 2>"$BASE/stderr" &
	pid=$!
	await -s "$started"
	chmod u+w "$PW/.codex"
	touch "$PW/.codex/config.toml"
	: >"$planted"
	st=0
	wait "$pid" || st=$?
	rm "$started"
	[ "$st" -eq 7 ]
	[[ "$(cat "$BASE/stderr")" == *"removed what was created on the host during the run: $PW/.codex" ]]
	empty_dir "$PW"
}

@test "a link made at a masked name on the host during the run is reported and left" {
	# Whose a link is cannot be asked of the kernel (it cannot be opened): it may be another
	# user's, even where its owner shows as this one, so it is left.
	local started="$PW/started" planted="$BASE/planted" st=0
	rm -f "$planted"
	"$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- \
		sh -c "echo >'$started'; $(until_sh "$planted")" 3>&- 2>"$BASE/stderr" &
	local pid=$!
	await -s "$started"
	rmdir "$PW/.agents"
	ln -s nowhere "$PW/.agents"
	: >"$planted"
	wait "$pid" || st=$?
	cat "$BASE/stderr"
	[ "$st" -eq 1 ]
	[ "$(cat "$BASE/stderr")" = "sbxrun: created on the host during the run, and its owner cannot be confirmed; left in place: $PW/.agents" ]
	[ "$(readlink "$PW/.agents")" = nowhere ]
	rm "$PW/.agents" "$started"
	# Positive control: a file of the caller's made there the same way is removed.
	rm -f "$planted"
	"$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- \
		sh -c "echo >'$started'; $(until_sh "$planted")" 3>&- 2>"$BASE/stderr" &
	pid=$!
	await -s "$started"
	rmdir "$PW/.agents"
	echo mine >"$PW/.agents"
	: >"$planted"
	st=0
	wait "$pid" || st=$?
	rm "$started"
	[ "$st" -eq 1 ]
	[ "$(cat "$BASE/stderr")" = "sbxrun: removed what was created on the host during the run: $PW/.agents" ]
	empty_dir "$PW"
}

# kind_at_name KIND: while a run lasts, replaces its empty .agents on the host by a KIND (fifo,
# socket) of the suite's user; the run's status and stderr are left in $st and $BASE/stderr. The
# run is killed after 20 s: whose the object is must be asked without waiting on it.
kind_at_name() {
	local started="$PW/started" planted="$BASE/planted"
	rm -f "$started" "$planted"
	timeout -s KILL 20 "$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- \
		sh -c "echo >'$started'; $(until_sh "$planted")" 3>&- 2>"$BASE/stderr" &
	local pid=$!
	await -s "$started"
	rmdir "$PW/.agents"
	case $1 in
	fifo) mkfifo "$PW/.agents" ;;
	socket) python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
		"$PW/.agents" ;;
	esac
	: >"$planted"
	st=0
	wait "$pid" || st=$?
	rm "$started"
	cat "$BASE/stderr"
}

@test "a FIFO or a socket made at a masked name on the host during the run is the caller's: removed" {
	# Opening a FIFO waits for a writer, and a socket cannot be opened: the clean-up asks whose
	# each is all the same, without hanging, and removes the caller's as anything else of its.
	local kind
	for kind in fifo socket; do
		kind_at_name "$kind"
		[ "$st" -eq 1 ]
		[ "$(cat "$BASE/stderr")" = "sbxrun: removed what was created on the host during the run: $PW/.agents" ]
		empty_dir "$PW"
	done
}

@test "a process the command leaves running meets the masks until it is killed; none is left" {
	local i log="$PW/log"
	# The command ends at once; what it started keeps trying to create .agents (a shell
	# built-in, thousands of times a second) until init's end kills it. The masks must hold
	# until then: init tells the supervisor it is alone only when it has no child left, and
	# the mount points go early only then (the window a wrong "alone" would open, between
	# init's report and the kernel's SIGKILL, is too short for this test to catch reliably).
	for i in 1 2 3 4 5; do
		# (It says so before it starts: the command ends once it has, not after a fixed time.)
		run --separate-stderr sbx sh -c "(echo ok && : >'$PW/o'
			while :; do : 2>/dev/null >'$PW/.agents' && echo made; done) >>'$log' &
			$(until_sh "$PW/o"); exit 0"
		echo "run $i: status $status, stderr: $stderr, log: $(cat "$log")"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		# Control: the process ran and wrote where it may.
		[ "$(cat "$log")" = ok ]
		rm "$log" "$PW/o"
		empty_dir "$PW"
	done
}

@test "runs in the same workspace share the mount points; the last one out removes them" {
	local done="$BASE/short-done"
	rm -f "$done"
	"$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- sh -c "$(until_sh "$done")" 3>&- &
	local long=$!
	await -e "$PW/.git"
	# A short run in between: it holds too, and leaves the names to the long one (which lasts
	# until then).
	expect EROFS mkdir "$PW/.git/hooks"
	[ -d "$PW/.git" ]
	[ -d "$PW/.codex" ]
	: >"$done"
	wait "$long"
	empty_dir "$PW"
}

@test "a denied path that does not exist cannot be created; its mask goes after the run" {
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$PW" write)" \
		"$(entry_path "$PW/secrets/key" deny)" "$(entry_path "$PW/.env" deny)")
	run sbx sh -c "mkdir -p '$PW/secrets' && echo stolen >'$PW/secrets/key'"
	[ "$status" -ne 0 ]
	expect EROFS write "$PW/.env"
	expect EACCES read "$PW/.env"
	# Positive control: a path beside it that is not denied is created and read.
	expect OK mkdir "$PW/public"
	expect OK write "$PW/public/key"
	expect OK read "$PW/public/key"
	rm -rf "$PW/public"
	empty_dir "$PW"
	# Deeper: the first missing component is masked, not the denied path.
	mkdir -p "$PW/a"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$PW" write)" \
		"$(entry_path "$PW/a/b/c/key" deny)")
	run sbx sh -c "mkdir -p '$PW/a/b/c'"
	[ "$status" -ne 0 ]
	expect EBUSY rename "$PW/a" "$PW/a2"
	expect OK write "$PW/a/beside"
	[ "$(ls -A "$PW/a")" = beside ]
	# After a SIGKILL the leftover (a marked file) is taken again, and removed.
	"$H" --sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- sleep "$TAG" 3>&- &
	local pid=$!
	await_pgrep "sleep $TAG"
	kill -KILL "$pid"
	wait "$pid" || true
	[ -f "$PW/a/b" ]
	[[ "$(cat "$PW/a/b")" == "sbxrun: keeps a denied path from being created"* ]]
	run sbx sh -c "rm -f '$PW/a/b'; mkdir -p '$PW/a/b/c'"
	[ "$status" -ne 0 ]
	[ "$(ls -A "$PW/a")" = beside ]
	# A file of the user's on the way is kept, read-only, and never removed.
	echo mine >"$PW/a/b"
	expect EROFS append "$PW/a/b"
	run sbx sh -c "rm -f '$PW/a/b'"
	[ "$(cat "$PW/a/b")" = mine ]
}

@test "a point that cannot be made refuses the run before the command; those made go" {
	# The supervisor makes the points while init starts: a failure there must still stop
	# everything before the command runs, worded once, with the points made so far removed.
	local bad="$BASE/nopoints"
	rm -rf "$bad"
	mkdir -p "$bad"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$PW" write)" \
		"$(entry_path "$bad" write)")
	if as_root; then chattr +i "$bad"; else chmod 0555 "$bad"; fi
	run sbx "$P" write "$PW/ran"
	if as_root; then chattr -i "$bad"; else chmod 0755 "$bad"; fi
	echo "$output"
	[ "$status" -eq 125 ]
	if as_root; then
		# Immutable: the plan cannot tell (sbxrun-profile(5)), the point's mkdir fails.
		[[ "${lines[0]}" == "sbxrun: cannot make $bad/."*" a mount point for the run: "* ]]
	else
		# The caller's own directory, not writable: the plan knows no point can be made.
		[[ "${lines[0]}" == "sbxrun: cannot enforce \"no-create $bad/."*"\" on linux: $bad/."*" does not exist, and its directory is yours"* ]]
	fi
	[[ "${lines[0]}" == *"; hint: "* ]]
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$PW/ran" ]
	empty_dir "$PW"
	empty_dir "$bad"
	# Positive control: with the directory writable, the same run goes.
	run sbx "$P" write "$PW/ran"
	[ "$output" = OK ]
	rm "$PW/ran"
	empty_dir "$PW"
	empty_dir "$bad"
}

@test "out of descriptors while the points are made: the error is named, no point made stays" {
	# A low limit of open files (ulimit -n) stops the run at one step or another as it rises:
	# at none may a listing that found no descriptor read as a name that appeared meanwhile
	# (which says that something was planted), nor a point this run made stay behind, nor
	# the failure be said twice.
	# Ten writable roots, each missing its three protected names: the supervisor holds a
	# descriptor for each of the thirty points it makes, far more than init takes meanwhile
	# for its clones and /dev, so at the highest limits that fail it alone runs out, and the
	# points' own error is the one said whichever of the two gets on first.
	local n named=0 last='' emfile roots=("$PW") entries=("$(entry_special root read)") r
	emfile=$(errtext EMFILE)
	rm -rf "$BASE/roots"
	for n in $(seq 9); do
		mkdir -p "$BASE/roots/r$n"
		roots+=("$BASE/roots/r$n")
	done
	for r in "${roots[@]}"; do entries+=("$(entry_path "$r" write)"); done
	PROFILE=$(profile restricted "${entries[@]}")
	for n in $(seq 16 80); do
		run bash -c 'ulimit -n "$1" && shift && exec "$@"' _ "$n" "$H" \
			--sandbox-policy-cwd "$SBX_CWD" --permission-profile "$PROFILE" -- \
			"$P" write "$PW/ran" 3>&-
		echo "ulimit -n $n: status $status: $output"
		[[ "$output" != *"appeared while"* ]]
		if [ "$status" -ne 0 ]; then
			[ "$status" -eq 125 ]
			[[ "${lines[0]}" == *": $emfile"* ]]
			# One line for the one failure: the supervisor making the points and init
			# building /dev may both run out, and only the first says so.
			[ "${#lines[@]}" -eq 1 ]
			[ ! -e "$PW/ran" ]
			last=$output
		fi
		if [[ "$output" == "sbxrun: cannot make $BASE/"*"/."*" a mount point for the run: $emfile; hint: raise the limit of open files"* ]]; then
			named=$((named + 1))
		fi
		rm -f "$PW/ran"
		for r in "${roots[@]}"; do empty_dir "$r"; done
	done
	# The points' own step was reached, at several limits, and is what the highest limit
	# that still fails says; with enough the same run goes.
	echo "named at $named limits; the last failure: $last"
	[ "$named" -gt 1 ]
	[[ "$last" == "sbxrun: cannot make $BASE/"*"/."*" a mount point for the run: $emfile; hint: raise the limit of open files"* ]]
	[ "$output" = OK ]
}

@test "out of descriptors while a point a killed run left is checked: the error is named" {
	# Run 1, killed, leaves its empty points; each run 2 under a low limit lists them first.
	local n named=0 emfile
	emfile=$(errtext EMFILE)
	for n in $(seq 16 64); do
		rmdir "$PW/.git" "$PW/.agents" "$PW/.codex" 2>/dev/null || true
		started_then_killed
		[ -d "$PW/.git" ]
		run bash -c 'ulimit -n "$1" && shift && exec "$@"' _ "$n" "$H" \
			--sandbox-policy-cwd "$SBX_CWD" --permission-profile "$PROFILE" -- \
			"$P" write "$PW/ran" 3>&-
		echo "ulimit -n $n: status $status: $output"
		[[ "$output" != *"appeared while"* ]]
		if [ "$status" -ne 0 ]; then
			[ "$status" -eq 125 ]
			[[ "${lines[0]}" == *": $emfile"* ]]
			[ "${#lines[@]}" -eq 1 ]
		fi
		if [[ "$output" == *"sbxrun: cannot list $PW/."*": $emfile; hint: raise the limit of open files"* ]]; then
			named=$((named + 1))
		fi
		rm -f "$PW/ran"
	done
	[ "$named" -gt 0 ]
	# With enough, the run goes and removes what run 1 left.
	[ "$output" = OK ]
	empty_dir "$PW"
}

@test "without a PID namespace (clone refused) the masks and their clean-up are the same" {
	run sbx_fault clone "$PROFILE" sh -c "mkdir -p '$PW/.git/hooks'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	empty_dir "$PW"
	run sbx_fault clone "$PROFILE" "$P" write "$PW/ok"
	[ "$output" = OK ]
	rm "$PW/ok"
	empty_dir "$PW"
}

@test "a signal sent while the points are made, before the supervisor reads signals: none stays" {
	local pid st
	# Without a PID namespace (clone refused) the points are made before the supervisor starts.
	# Each mkdirat is held on its way back (1.5 s) and SIGTERM is sent once .git is made.
	env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -o /dev/null -e trace=mkdirat \
		-e inject=mkdirat:delay_exit=1500000 "$BIN/failinj" clone -- "$H" \
		--sandbox-policy-cwd "$PW" --permission-profile "$PROFILE" -- sleep "$TAG" 3>&- &
	pid=$!
	await -d "$PW/.git"
	kill -TERM "$(pgrep -P "$pid")"
	st=0
	wait "$pid" || st=$?
	echo "status $st: $(ls -A "$PW")"
	# The run ends of it, after the clean-up: the command never ran.
	[ "$st" -eq 143 ]
	empty_dir "$PW"
	run pgrep -xf "sleep $TAG"
	[ "$status" -eq 1 ]
	# Positive control: the same run, not signalled, goes and leaves nothing.
	run sbx_fault clone "$PROFILE" "$P" write "$PW/ok"
	[ "$output" = OK ]
	rm "$PW/ok"
	empty_dir "$PW"
}

# hammer_script FILE: a script that runs `true` COUNT times ($1) through sbxrun with the profile
# file $2 in the directory $3, printing the first line of each refused run.
hammer_script() {
	cat >"$1" <<-'SH'
		for i in $(seq "$1"); do
			out=$("$BIN/sbxrun" --profile "$2" -C "$3" -- true 2>&1) ||
				echo "run $i as $(id -u): ${out%%$'\n'*}"
		done
	SH
	chmod 0755 "$1"
}

# sticky_roots DIR N: N directories DIR/r1..rN like /tmp (sticky, everyone's), and $PROFILE_FILE,
# a profile that reads everything and writes all of them.
sticky_roots() {
	local entries=("$(entry_special root read)") i
	rm -rf "$1"
	mkdir -m 1777 "$1"
	for i in $(seq "$2"); do
		mkdir -m 1777 "$1/r$i"
		entries+=("$(entry_path "$1/r$i" write)")
	done
	PROFILE_FILE="$1.json"
	profile restricted "${entries[@]}" >"$PROFILE_FILE"
	chmod 0644 "$PROFILE_FILE"
}

# as_other CMD...: CMD as the other user of the mixed cases: uid 65534 when the suite runs as
# root; as 65534, the same user (it cannot become another one).
as_other() {
	if as_root; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- env BIN="$BIN" "$@"
	else
		env BIN="$BIN" "$@"
	fi
}

@test "parallel runs of two users in sticky writable roots: none is refused by another's point" {
	# Each run masks the missing .git, .agents and .codex of 20 roots on mount points that the
	# others share, adopt, make again and remove as they come and go; a plan that took one of
	# them for an existing directory was refused once it had gone (about 1 run in 40 here).
	local st="$BASE/sticky" script="$BASE/hammer.sh" pids=() p
	sticky_roots "$st" 20
	hammer_script "$script"
	for w in 1 2; do
		BIN="$BIN" bash "$script" 100 "$PROFILE_FILE" "$st" >"$BASE/refused-a$w" &
		pids+=($!)
		as_other bash "$script" 100 "$PROFILE_FILE" "$st" >"$BASE/refused-b$w" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p"; done
	cat "$BASE"/refused-*
	[ -z "$(cat "$BASE"/refused-*)" ]
	# What is left is at most an empty point per name, which the next run of its owner removes
	# (the next test), and no one else's: never anything else.
	run find "$st" -mindepth 2 ! -name .git ! -name .agents ! -name .codex
	[ -z "$output" ]
	run find "$st" -mindepth 2 ! -empty
	[ -z "$output" ]
	"$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- true
	run find "$st" -mindepth 2 ! -uid 65534
	[ -z "$output" ]
	as_other "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- true
	run find "$st" -mindepth 2
	echo "$output"
	[ -z "$output" ]
	# Positive control: those runs do mask the names (a hook cannot be planted).
	run "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- mkdir -p "$st/r7/.git/hooks"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	run "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- mkdir "$st/r7/ok"
	[ "$status" -eq 0 ]
	rmdir "$st/r7/ok"
}

@test "another user's point left in a sticky root neither blocks nor weakens a run; its owner's next run removes it" {
	local st="$BASE/sticky2" long
	sticky_roots "$st" 1
	# Run 1 (this user) makes the points; run 2 (the other user) takes them and outlives it:
	# run 1 lasts until run 2's command has started, run 2 until run 1 has been seen to end.
	rm -f "$BASE/sticky2-up" "$BASE/sticky2-end"
	"$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- sh -c "$(until_sh "$st/r1/up")" 3>&- &
	long=$!
	await -e "$st/r1/.git"
	as_other "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- \
		sh -c ": >'$st/r1/up'; $(until_sh "$BASE/sticky2-end")" 3>&- &
	local other=$!
	wait "$long"
	# Run 1 ended while run 2 held them: they stay for run 2.
	[ -d "$st/r1/.git" ]
	: >"$BASE/sticky2-end"
	wait "$other"
	rm "$st/r1/up" "$BASE/sticky2-end"
	if as_root; then
		# Run 2, another user, leaves root's points (not its own to remove): they
		# stay, empty and read-only, one per name, and nothing else.
		[ "$(stat -c %U:%a "$st/r1/.git")" = root:1555 ]
		[ "$(ls -A "$st/r1" | tr '\n' ' ')" = ".agents .codex .git " ]
		# That user's next runs take them as they are: masked, not refused.
		run as_other "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- mkdir "$st/r1/.git/hooks"
		[ "$status" -ne 0 ]
		[[ "$output" == *"Read-only file system"* ]]
		run as_other "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- sh -c "echo x >'$st/r1/ok'"
		[ "$status" -eq 0 ]
		run as_other rm "$st/r1/ok"
		[ "$(ls -A "$st/r1" | tr '\n' ' ')" = ".agents .codex .git " ]
	fi
	# The next run of their owner is the last one out, and removes them.
	"$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- true
	empty_dir "$st/r1"
}

@test "an empty .git that this run could not have made is masked and left in place" {
	local st="$BASE/sticky3"
	sticky_roots "$st" 1
	# Run 1, another user (65534 when this suite runs as root), leaves in a sticky writable
	# root an empty .git just as a point of its own would be: mode 01555, nothing in it.
	as_other mkdir -m 1555 "$st/r1/.git"
	# Run 2 (this user) masks it, and the rest of the root stays writable.
	run "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" mkdir "$st/r1/.git/hooks"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" write "$st/r1/ok"
	[ "$output" = OK ]
	rm "$st/r1/ok"
	if as_root; then
		# Not root's to remove: another user's, whose point it may be or may look like.
		[ "$(stat -c %u:%a "$st/r1/.git")" = 65534:1555 ]
		[ "$(ls -A "$st/r1" | tr '\n' ' ')" = ".git " ]
		# The reverse: root's empty .agents, met by the other user's run, stays as well.
		mkdir -m 1555 "$st/r1/.agents"
		run as_other "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" mkdir "$st/r1/.agents/x"
		[ "$output" = EROFS ]
		[ "$(stat -c %u:%a "$st/r1/.agents")" = 0:1555 ]
		# Met by the other user's run in a user namespace that maps that user alone (a
		# container, another sandbox): root's owner reads as 65534 there, the overflow uid,
		# which is that user's own. Taken for its own point, it was removed at the end, and
		# the kernel refused (EPERM, said on standard error).
		run as_other unshare --user --map-current-user "$BIN/sbxrun" --profile "$PROFILE_FILE" \
			-C "$st" -- "$P" mkdir "$st/r1/.agents/x"
		[ "$output" = EROFS ]
		[ "$(stat -c %u:%a "$st/r1/.agents")" = 0:1555 ]
		# Positive control: the points it made itself (.git, .codex) it removes.
		[ "$(ls -A "$st/r1" | tr '\n' ' ')" = ".agents " ]
		# Each owner's own next run takes its point for a leftover, and removes it.
		as_other "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- true
		[ ! -e "$st/r1/.git" ]
		"$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- true
		[ ! -e "$st/r1/.agents" ]
	else
		# Positive control: the user's own, as a point is made, is a leftover: removed.
		[ ! -e "$st/r1/.git" ]
	fi
	empty_dir "$st/r1"
	# An empty .git the user made (writable: no point is) is masked the same, and kept.
	mkdir "$PW/.git"
	expect EROFS mkdir "$PW/.git/hooks"
	[ -d "$PW/.git" ]
	empty_dir "$PW/.git"
	rmdir "$PW/.git"
}

# In a user namespace that maps only its maker, the kernel shows every other user's object as the
# overflow uid, 65534: a run of 65534 there (nobody's "unshare --user", a rootless container) saw
# another user's point as its own, took it for its leftover, and at the end tried to remove it
# ("cannot remove the mount point ...: Operation not permitted").
@test "in a user namespace where the caller is the overflow uid, another user's point stays another's" {
	local st="$BASE/sticky6"
	sticky_roots "$st" 1
	if as_root; then
		# Run 1, root (another user to 65534), leaves an empty .git as its point would be.
		mkdir -m 1555 "$st/r1/.git"
		# Run 2, 65534 in a user namespace that maps only itself, where root's .git shows as
		# its own: masked, and left to its owner without a word.
		run --separate-stderr as_other unshare --user --map-current-user -- \
			"$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" mkdir "$st/r1/.git/hooks"
		[ "$output" = EROFS ]
		[ "$stderr" = "" ]
		[ "$(stat -c %u:%a "$st/r1/.git")" = 0:1555 ]
		rmdir "$st/r1/.git"
	fi
	# The positive control, as either user: its own leftover there is still its own (masked,
	# then removed), and the rest of the root is writable.
	as_other mkdir -m 1555 "$st/r1/.git"
	run --separate-stderr as_other unshare --user --map-current-user -- \
		"$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" mkdir "$st/r1/.git/hooks"
	[ "$output" = EROFS ]
	[ "$stderr" = "" ]
	run as_other unshare --user --map-current-user -- \
		"$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" write "$st/r1/ok"
	[ "$output" = OK ]
	as_other rm "$st/r1/ok"
	empty_dir "$st/r1"
}

# There too, what appears at a masked name during the run shows as the caller's own whoever made
# it: in a root that is writable and not sticky, a run of 65534 removed root's file made there
# during the run as what its own user had made; and what that user made there itself was taken
# for another's and left, with the wrong words.
@test "in a user namespace where the caller is the overflow uid, what appears during the run is its maker's" {
	local st="$BASE/open7" run2 rc=0
	sticky_roots "$st" 1
	chmod 0777 "$st/r1"
	# Run 2, 65534 in a user namespace that maps only itself, masks the missing .git; while it
	# lasts, the suite's user (root, shown there as 65534 too; or 65534 itself) swaps the point
	# for a file of its own.
	as_other unshare --user --map-current-user -- "$BIN/sbxrun" --profile "$PROFILE_FILE" \
		-C "$st" -- sh -c ": >'$st/r1/started'; while [ ! -e '$st/r1/swapped' ]; do sleep 0.02; done" \
		2>"$BASE/stderr7" 3>&- &
	run2=$!
	await -e "$st/r1/started"
	rmdir "$st/r1/.git"
	echo theirs >"$st/r1/.git"
	: >"$st/r1/swapped"
	wait "$run2" || rc=$?
	cat "$BASE/stderr7"
	[ "$rc" -eq 1 ]
	if as_root; then
		# Root's: another user's to that run, reported and left.
		[ "$(cat "$BASE/stderr7")" = "sbxrun: another user created this on the host during the run; left in place: $st/r1/.git" ]
		[ "$(cat "$st/r1/.git")" = theirs ]
		[ "$(stat -c %u "$st/r1/.git")" = 0 ]
		rm "$st/r1/.git"
	else
		# The run's own user's: removed, as in any other namespace.
		[ "$(cat "$BASE/stderr7")" = "sbxrun: removed what was created on the host during the run: $st/r1/.git" ]
		[ ! -e "$st/r1/.git" ]
	fi
	rm -f "$st/r1/started" "$st/r1/swapped"
	empty_dir "$st/r1"
}

# hold_lock PATH READY: as the other user, opens PATH, takes an exclusive flock(2) on it, and
# holds the lock in one process, whose pid it writes to READY (and to $HOLDER), until killed.
hold_lock() {
	as_other bash -c 'exec 9<"$1" && flock -x 9 && echo $$ >"$2.new" && mv "$2.new" "$2" &&
		exec sleep 60' _ "$1" "$2" 3>&- &
	await -e "$2"
	HOLDER=$(cat "$2")
}

# release READY: ends the process hold_lock started, once it is gone removes READY.
release() {
	kill "$HOLDER"
	while kill -0 "$HOLDER" 2>/dev/null; do sleep 0.02; done
	rm "$1"
}

@test "another user's exclusive lock on an object at a protected name refuses the run, never hangs it" {
	local st="$BASE/sticky4" ready="$BASE/sticky4/held" want
	sticky_roots "$st" 1
	# Run 1, another user, leaves an empty .git as its point would be and holds it locked.
	as_other mkdir -m 1555 "$st/r1/.git"
	hold_lock "$st/r1/.git" "$ready"
	# Run 2 (this user) waited for that lock for ever; it is refused, naming the path.
	run timeout -s KILL 60 "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" mkdir "$st/r1/.git/hooks"
	echo "run 2: $status $output"
	[ "$status" -eq 125 ]
	want="sbxrun: $st/r1/.git is locked (flock, exclusive) by a process that has held it for over 2000 ms"
	[[ "${lines[0]}" == "$want: "*"; hint: end the process that holds it (lslocks names it); if it is another user's, that user or root can" ]]
	# Positive control: the lock released, the same run masks it (EROFS) and the root is writable.
	release "$ready"
	run "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" mkdir "$st/r1/.git/hooks"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" write "$st/r1/ok"
	[ "$output" = OK ]
	rm "$st/r1/ok"
	# Another user's is left in place (the point of this user's own is removed as a leftover).
	if as_root; then
		[ "$(stat -c %u:%a "$st/r1/.git")" = 65534:1555 ]
		as_other rmdir "$st/r1/.git"
	fi
	[ ! -e "$st/r1/.git" ]
	# This user's own leftover point (mode 01555: anyone can open it), locked by the other user.
	mkdir -m 1555 "$st/r1/.agents"
	hold_lock "$st/r1/.agents" "$ready"
	run timeout -s KILL 60 "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" mkdir "$st/r1/.agents/x"
	echo "run 2: $status $output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: $st/r1/.agents is locked (flock, exclusive) by a process that has held it for over 2000 ms: "* ]]
	release "$ready"
	run "$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- "$P" mkdir "$st/r1/.agents/x"
	[ "$output" = EROFS ]
	# The user's own point, taken as a leftover, is removed at the end.
	empty_dir "$st/r1"
}

@test "what another user makes at a masked name during the run is reported and left, never removed" {
	local st="$BASE/sticky5" run2 rc=0
	sticky_roots "$st" 1
	# Run 1, another user, leaves an empty .git as its point would be.
	as_other mkdir -m 1555 "$st/r1/.git"
	# Run 2 (this user) masks it; while it lasts, that user swaps it for a directory of its own
	# holding a file (it may remove its own object in a sticky directory).
	"$BIN/sbxrun" --profile "$PROFILE_FILE" -C "$st" -- sh -c \
		": >'$st/r1/started'; while [ ! -e '$st/r1/swapped' ]; do sleep 0.02; done" \
		2>"$BASE/stderr5" 3>&- &
	run2=$!
	await -e "$st/r1/started"
	as_other sh -c "rmdir '$st/r1/.git' && mkdir '$st/r1/.git' && echo theirs >'$st/r1/.git/file' && : >'$st/r1/swapped'"
	wait "$run2" || rc=$?
	cat "$BASE/stderr5"
	# Something appeared at the masked name on the host: the run's status is 1 either way.
	[ "$rc" -eq 1 ]
	if as_root; then
		# Another user's: reported, left as that user made it.
		[ "$(cat "$BASE/stderr5")" = "sbxrun: another user created this on the host during the run; left in place: $st/r1/.git" ]
		[ "$(stat -c %u "$st/r1/.git")" = 65534 ]
		[ "$(cat "$st/r1/.git/file")" = theirs ]
		rm -rf "$st/r1/.git"
	else
		# Positive control: the user's own (the same user made it) is removed, as ever.
		[ "$(cat "$BASE/stderr5")" = "sbxrun: removed what was created on the host during the run: $st/r1/.git" ]
		[ ! -e "$st/r1/.git" ]
	fi
	rm -f "$st/r1/started" "$st/r1/swapped"
	empty_dir "$st/r1"
}
