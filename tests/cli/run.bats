#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# run: exit statuses, signals, stdin, and the direct path when no sandbox is requested.

load helpers

setup() { setup_ws; cd "$WS"; }

@test "--version and -V print the version and exit 0" {
	run "$SBXRUN" --version
	[ "$status" -eq 0 ]
	[ "$output" = "sbxrun 0.1.0" ]
	run "$SBXRUN" -V
	[ "$output" = "sbxrun 0.1.0" ]
}

@test "--help prints usage to stdout and exits 0" {
	run "$SBXRUN" --help
	[ "$status" -eq 0 ]
	[[ "$output" == usage:\ sbxrun* ]]
	for sub in run explain probe access convert merge intersect context; do
		run "$SBXRUN" "$sub" --help
		[ "$status" -eq 0 ]
		[[ "$output" == usage:* ]]
	done
}

@test "no command is bad usage: 125" {
	run "$SBXRUN"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: no command given; hint: sbxrun [OPTIONS] [--] COMMAND [ARG...]; see 'sbxrun --help'" ]
	[ "${#lines[@]}" -eq 1 ]
	run "$SBXRUN" run --profile :read-only
	[ "$status" -eq 125 ]
}

@test "an unknown option is one line, exit 125, and nothing runs" {
	run "$SBXRUN" --frobnicate -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: unknown option '--frobnicate'; hint: "* ]]
	[[ "${lines[0]}" == *"; hint: see 'sbxrun --help'" ]]
	[ ! -e "$WS/canary" ]
}

@test "options that need a value, and bad values, are refused" {
	run "$SBXRUN" --profile
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"option '--profile' needs a value" ]]
	run "$SBXRUN" --sandbox sometimes -- true
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: --sandbox: invalid value 'sometimes' (expected auto, require or forbid)" ]
	run "$SBXRUN" --windows-sandbox on -- true
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"expected disabled, restricted-token or elevated)" ]]
	run "$SBXRUN" --platform macos -- true
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: option '--platform' does not apply here" ]
	run "$SBXRUN" --json -- true
	[ "$status" -eq 125 ]
}

@test "a short option without its value is named as given, one line, 125" {
	for opt in -p -C -w -a; do
		run "$SBXRUN" "$opt"
		[ "$status" -eq 125 ]
		[ "${lines[0]}" = "sbxrun: option '$opt' needs a value" ]
		[ "${#lines[@]}" -eq 1 ]
	done
	run "$SBXRUN" -vp
	[ "${lines[0]}" = "sbxrun: option '-p' needs a value" ]
	run "$SBXRUN" explain -C
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: explain: option '-C' needs a value" ]
	run "$SBXRUN" --cwd
	[ "${lines[0]}" = "sbxrun: option '--cwd' needs a value" ]
}

# getopt takes the "--" after an option whose value was forgotten for that value: the profile
# "--", a deny of ./--, the cwd "--", and the command then ran with what the caller did not mean.
@test "an option whose value was forgotten before -- is one line, 125, and nothing runs" {
	for opt in --profile -p --cwd -C --workspace-root --add-permissions --deny --write --read \
		--env-keep; do
		run -125 "$SBXRUN" "$opt" -- touch "$WS/canary"
		[[ "${lines[0]}" == "sbxrun: option '$opt' needs a value before '--'; hint: "* ]]
		[ "${#lines[@]}" -eq 1 ]
	done
	run -125 "$SBXRUN" --profile=-- -- touch "$WS/canary"
	[ "${lines[0]}" = "sbxrun: option '--profile' needs a value before '--'; hint: '--' ends the options; a file named so is ./--" ]
	run -125 "$SBXRUN" explain --cwd -- true
	[[ "${lines[0]}" == "sbxrun: explain: option '--cwd' needs a value before '--'; hint: "* ]]
	[ ! -e "$WS/canary" ]
	# The control: a file of that name, named as the hint says, is a profile; and after the
	# options "--" is the command's own.
	printf '{"type":"disabled"}' > "$WS/--"
	run -0 "$SBXRUN" --profile ./-- -- sh -c 'echo "$@"' sh --profile --
	[ "$output" = "--profile --" ]
}

@test "-V and --version among plain sbxrun's options print the version, as -h prints the help" {
	run "$SBXRUN" -v -V
	[ "$status" -eq 0 ]
	[ "$output" = "sbxrun 0.1.0" ]
	run "$SBXRUN" -vV
	[ "$status" -eq 0 ]
	[ "$output" = "sbxrun 0.1.0" ]
	run "$SBXRUN" -Vh
	[ "$status" -eq 0 ]
	[ "$output" = "sbxrun 0.1.0" ]
	run "$SBXRUN" -p :read-only --version -- touch "$WS/canary"
	[ "$status" -eq 0 ]
	[ "$output" = "sbxrun 0.1.0" ]
	[ ! -e "$WS/canary" ]
	run "$SBXRUN" run -vV -- true
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: run: unknown option '-V'; hint: see 'sbxrun run --help'" ]
	run "$SBXRUN" run --network -Vv -- true
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: run: unknown option '-V'; hint: see 'sbxrun run --help'" ]
}

@test "a long option that takes no value, given one, is named as given, one line, 125" {
	run "$SBXRUN" --version=1
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: option '--version' takes no value" ]
	run "$SBXRUN" --verbose=1 -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: option '--verbose' takes no value" ]
	[ ! -e "$WS/canary" ]
	run "$SBXRUN" run --network=yes -- true
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: run: option '--network' takes no value" ]
	run "$SBXRUN" explain --help=x
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: explain: option '--help' takes no value" ]
	# A short option after such a word is still named for itself.
	run "$SBXRUN" --verbose -Xv -- true
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: unknown option '-X'; hint: see 'sbxrun --help'" ]
}

@test "a missing profile file, cwd or workspace root is refused with 125" {
	run "$SBXRUN" --profile "$WS/nope.json" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: $WS/nope.json: "* ]]
	run "$SBXRUN" --cwd "$WS/nope" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: --cwd '$WS/nope': No such file or directory" ]]
	run "$SBXRUN" --workspace-root "$WS/src/x" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	run "$SBXRUN" --profile :nope -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ ! -e "$WS/canary" ]
}

@test "unconfined run passes the exit status through" {
	for code in 0 1 7 42 255; do
		run "$SBXRUN" --profile :danger-full-access -- sh -c "exit $code"
		[ "$status" -eq "$code" ]
	done
}

@test "--sandbox forbid runs the command directly even under :read-only" {
	run "$SBXRUN" --sandbox forbid --profile :read-only -- sh -c 'echo ok > "$1"; echo "${SBXRUN_SANDBOX-unset}"' sh "$WS/out"
	[ "$status" -eq 0 ]
	[ "$output" = "unset" ]
	[ "$(cat "$WS/out")" = ok ]
}

@test "--sandbox forbid with an option that asks for a restriction: 125, naming both, nothing runs" {
	local opts=("--deny $WS/secret" "--managed-network" "--allow-domain example.com"
		"--deny-domain example.com" "--network-log -" "--allow-private-addresses"
		"--allow-unix-socket $WS/sock" "--allow-local-binding") o
	echo secret >"$WS/secret"
	for o in "${opts[@]}"; do
		# shellcheck disable=SC2086 # each is an option and its value
		run --separate-stderr "$SBXRUN" --sandbox forbid $o -- sh -c 'cat "$1"; touch "$2"' sh \
			"$WS/secret" "$WS/canary"
		echo "$o: $status: $stderr"
		[ "$status" -eq 125 ]
		[ "$output" = "" ]
		[ ! -e "$WS/canary" ]
		[ "${#stderr_lines[@]}" -eq 1 ]
		[ "${stderr_lines[0]}" = "sbxrun: --sandbox forbid runs the command unconfined, and ${o%% *} asks for a restriction that only a sandbox can keep; hint: drop --sandbox forbid to have it enforced, or drop ${o%% *} to run unconfined" ]
		# In either order, and explain the same.
		# shellcheck disable=SC2086
		run "$SBXRUN" $o --sandbox forbid -- true
		[ "$status" -eq 125 ]
		# shellcheck disable=SC2086
		run --separate-stderr "$SBXRUN" explain --sandbox forbid $o -- true
		[ "$status" -eq 125 ]
		[[ "${stderr_lines[0]}" == "sbxrun: explain: --sandbox forbid runs the command unconfined, and ${o%% *} asks"* ]]
	done
	# The controls: forbid with a grant, or with the profile's own rules, runs unconfined; the
	# same --deny without forbid is enforced.
	run "$SBXRUN" --sandbox forbid --read "$WS" -- cat "$WS/secret"
	[ "$status" -eq 0 ]
	[ "$output" = secret ]
	run "$SBXRUN" --sandbox forbid --profile :read-only -- cat "$WS/secret"
	[ "$output" = secret ]
	run "$SBXRUN" explain --deny "$WS/secret" -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *"sandbox requested: yes"* ]]
}

@test "command not found is 127, not executable is 126" {
	run -127 "$SBXRUN" --profile :danger-full-access -- no-such-command-sbxrun
	[ "${lines[0]}" = "sbxrun: no-such-command-sbxrun: command not found" ]
	printf 'x' > "$WS/notexec"
	chmod 644 "$WS/notexec"
	run -126 "$SBXRUN" --profile :danger-full-access -- "$WS/notexec"
	[[ "${lines[0]}" == "sbxrun: $WS/notexec: cannot execute: Permission denied" ]]
}

@test "death by signal is passed through as the same signal" {
	run "$SBXRUN" --profile :danger-full-access -- sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	run "$SBXRUN" --profile :danger-full-access -- sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
}

@test "stdin and stdout pass through untouched" {
	run bash -c 'printf "a\0b\nc" | "$1" --profile :danger-full-access -- cat | od -An -c | tr -s " "' sh "$SBXRUN"
	[ "$status" -eq 0 ]
	[ "$output" = " a \0 b \n c" ]
}

@test "the command's own options are its own" {
	run "$SBXRUN" --profile :danger-full-access sh -c 'echo "$@"' sh --profile -x
	[ "$status" -eq 0 ]
	[ "$output" = "--profile -x" ]
}

@test "-- selects a program named like a subcommand" {
	mkdir -p "$WS/bin"
	printf '#!/bin/sh\necho "I am explain"\n' > "$WS/bin/explain"
	chmod +x "$WS/bin/explain"
	PATH="$WS/bin:$PATH" run "$SBXRUN" --profile :danger-full-access -- explain
	[ "$status" -eq 0 ]
	[ "$output" = "I am explain" ]
}

@test "an external profile with the network enabled runs directly" {
	printf '{"type":"external","network":"enabled"}' > "$WS/ext.json"
	run "$SBXRUN" --profile "$WS/ext.json" -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
}

@test "--cwd sets the command's directory" {
	run "$SBXRUN" --profile :danger-full-access --cwd "$WS/src" -- pwd
	[ "$status" -eq 0 ]
	[ "$output" = "$WS/src" ]
}

@test "the profile can come from stdin" {
	run bash -c 'echo "{\"type\":\"disabled\"}" | "$1" --profile - -- sh -c "exit 5"' sh "$SBXRUN"
	[ "$status" -eq 5 ]
}

@test "Windows sandbox level disabled on the host platform does not matter on Linux" {
	run "$SBXRUN" --windows-sandbox disabled --profile :danger-full-access -- true
	[ "$status" -eq 0 ]
}

@test "confined runs report a missing or unusable command as unconfined runs do" {
	run -127 "$SBXRUN" --profile :read-only -- no-such-command-sbxrun
	[ "${lines[0]}" = "sbxrun: no-such-command-sbxrun: command not found" ]
	printf 'x' > "$WS/notexec"
	chmod 644 "$WS/notexec"
	run -126 "$SBXRUN" --profile :read-only -- "$WS/notexec"
	[ "${lines[0]}" = "sbxrun: $WS/notexec: cannot execute: Permission denied" ]
}

@test "a program whose interpreter is missing is named so, 127, confined or not" {
	printf '#!/nonexistent-sbxrun/interp\n' > "$WS/sbxrun-noint"
	chmod 755 "$WS/sbxrun-noint"
	printf '#!interp-sbxrun\n' > "$WS/relative"
	chmod 755 "$WS/relative"
	# No entry grants the interpreter's directory: it is missing all the same, not refused.
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"minimal"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]},"network":"restricted"}' > "$WS/minimal.json"
	for p in :danger-full-access :read-only :workspace "$WS/minimal.json"; do
		run -127 "$SBXRUN" --profile "$p" -- "$WS/sbxrun-noint"
		[ "${lines[0]}" = "sbxrun: $WS/sbxrun-noint: cannot execute: interpreter /nonexistent-sbxrun/interp not found" ]
		[ "${#lines[@]}" -eq 1 ]
		run -127 env PATH="$WS:$PATH" "$SBXRUN" --profile "$p" -- sbxrun-noint
		[ "${lines[0]}" = "sbxrun: sbxrun-noint: cannot execute: interpreter /nonexistent-sbxrun/interp not found" ]
		# The kernel takes a relative interpreter from the cwd.
		run -127 "$SBXRUN" --profile "$p" -- ./relative
		[ "${lines[0]}" = "sbxrun: ./relative: cannot execute: interpreter interp-sbxrun not found" ]
		# Positive control: the same script, its interpreter there, runs.
		printf '#!/bin/sh\necho ran\n' > "$WS/ok"
		chmod 755 "$WS/ok"
		run -0 "$SBXRUN" --profile "$p" -- "$WS/ok"
		[ "$output" = ran ]
	done
}

@test "a command not found that misspells a subcommand, or is help, names the subcommand" {
	for p in :danger-full-access :read-only :workspace; do
		run -127 "$SBXRUN" --profile "$p" -- explaine
		[ "$output" = "sbxrun: explaine: command not found; hint: did you mean 'sbxrun explain'?" ]
		run -127 "$SBXRUN" --profile "$p" help
		[ "$output" = "sbxrun: help: command not found; hint: did you mean 'sbxrun --help'?" ]
		# Nothing like a subcommand: no hint.
		run -127 "$SBXRUN" --profile "$p" -- no-such-command-sbxrun
		[ "$output" = "sbxrun: no-such-command-sbxrun: command not found" ]
	done
	run -127 "$SBXRUN" acess /etc
	[ "$output" = "sbxrun: acess: command not found; hint: did you mean 'sbxrun access'?" ]
	# The control: a program of that name on PATH runs, with no word from sbxrun.
	mkdir -p "$WS/bin"
	printf '#!/bin/sh\necho mine\n' > "$WS/bin/explaine"
	chmod 755 "$WS/bin/explaine"
	run -0 env PATH="$WS/bin:$PATH" "$SBXRUN" -- explaine
	[ "$output" = mine ]
}

@test "a command that is a directory is 126, named as one, confined or not" {
	mkdir -p "$WS/adir" "$WS/bin2"
	printf '#!/bin/sh\necho sbxrun-adir-on-path\n' > "$WS/bin2/adir"
	chmod 755 "$WS/bin2/adir"
	for p in :danger-full-access :read-only :workspace; do
		run -126 "$SBXRUN" --profile "$p" -- "$WS/adir"
		[ "${lines[0]}" = "sbxrun: $WS/adir: cannot execute: Is a directory" ]
		[ "${#lines[@]}" -eq 1 ]
		run -126 "$SBXRUN" --profile "$p" -- ./adir
		[ "${lines[0]}" = "sbxrun: ./adir: cannot execute: Is a directory" ]
		# A directory on PATH is passed over, as execvp passes it over: the next one runs.
		run -0 env PATH="$WS:$WS/bin2:$PATH" "$SBXRUN" --profile "$p" -- adir
		[ "$output" = "sbxrun-adir-on-path" ]
	done
}

@test "a removed current directory is one line, 125, naming the fix; --cwd runs" {
	mkdir "$WS/gone"
	cd "$WS/gone"
	rmdir "$WS/gone"
	run -125 "$SBXRUN" -- true
	[ "$output" = "sbxrun: cannot determine the current directory: No such file or directory; hint: run sbxrun from a directory that exists (this one may have been removed), or name one with --cwd" ]
	# The control: the same run with a directory named.
	run -0 "$SBXRUN" --cwd "$WS" -- pwd
	[ "$output" = "$WS" ]
}

# POSIX execvp(3), glibc's (so env(1), timeout(1), nice(1)) and every shell hand a file the kernel
# cannot execute (ENOEXEC: a script without "#!") to /bin/sh; musl's execvp does not.
@test "a script without #! runs under /bin/sh, as under env(1), confined or not, by path and on PATH" {
	mkdir -p "$WS/bin"
	printf 'echo "$0|$#|$*"\nexit 3\n' > "$WS/bin/nohashbang"
	chmod 755 "$WS/bin/nohashbang"
	: > "$WS/bin/empty"
	chmod 755 "$WS/bin/empty"
	# A file whose first line holds a NUL byte is a program of another machine, not a script.
	printf '\177ELF\002\001\001\000\000\000\nexit 0\n' > "$WS/bin/foreign"
	chmod 755 "$WS/bin/foreign"
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"minimal"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]},"network":"restricted"}' > "$WS/minimal.json"
	for p in :danger-full-access :read-only :workspace "$WS/minimal.json"; do
		run -3 "$SBXRUN" --profile "$p" -- "$WS/bin/nohashbang" a 'b c'
		[ "$output" = "$WS/bin/nohashbang|2|a b c" ]
		run -3 env PATH="$WS/bin:$PATH" "$SBXRUN" --profile "$p" -- nohashbang
		[ "$output" = "$WS/bin/nohashbang|0|" ]
		run -0 "$SBXRUN" --profile "$p" -- "$WS/bin/empty"
		[ "$output" = "" ]
		run -126 "$SBXRUN" --profile "$p" -- "$WS/bin/foreign"
		[ "${lines[0]}" = "sbxrun: $WS/bin/foreign: cannot execute: Exec format error" ]
		[ "${#lines[@]}" -eq 1 ]
	done
	# The control: env(1) runs the same script the same way.
	run -3 env "$WS/bin/nohashbang" a 'b c'
	[ "$output" = "$WS/bin/nohashbang|2|a b c" ]
}

# A script without "#!" goes to /bin/sh: when the profile denies the shell, the message names the
# rule, as for a "#!" line's interpreter, not "Exec format error".
@test "a script without #! whose shell the profile denies is 126 naming the rule" {
	local sh
	sh=$(realpath /bin/sh)
	printf 'echo ran\n' > "$WS/nohashbang"
	chmod 755 "$WS/nohashbang"
	printf '\177ELF\002\001\001\000\000\000\nexit 0\n' > "$WS/foreign"
	chmod 755 "$WS/foreign"
	for p in :read-only :workspace; do
		run -126 "$SBXRUN" --profile "$p" --deny "$sh" -- "$WS/nohashbang"
		[[ "${lines[0]}" == "sbxrun: $WS/nohashbang: cannot execute: its interpreter: $sh is denied by entries["*"]: deny $sh; hint: a deny wins over a read grant: "* ]]
		[ "${#lines[@]}" -eq 1 ]
		# A program of another machine is not the shell's: the kernel's words stay.
		run -126 "$SBXRUN" --profile "$p" --deny "$sh" -- "$WS/foreign"
		[ "$output" = "sbxrun: $WS/foreign: cannot execute: Exec format error" ]
		# The control: without the deny the shell runs it.
		run -0 "$SBXRUN" --profile "$p" -- "$WS/nohashbang"
		[ "$output" = ran ]
	done
}

# A script without "#!" whose /bin/sh cannot run (missing, no execute permission: here a node
# without one mounted over it, in a mount namespace of the test's own) is not in a format the
# kernel rejects: the words say what is wrong, confined or not, by path and on PATH.
@test "a script without #! whose /bin/sh cannot run says so, not Exec format error" {
	printf 'echo ran\n' > "$WS/nohashbang"
	chmod 755 "$WS/nohashbang"
	for p in :danger-full-access :read-only :workspace; do
		run -126 unshare -rm sh -c 'mount --bind /dev/null /bin/sh && exec "$@"' sh \
			"$SBXRUN" --profile "$p" -- "$WS/nohashbang"
		[ "$output" = "sbxrun: $WS/nohashbang: cannot execute: no \"#!\" line, and /bin/sh, which runs such a file, cannot be executed: Permission denied" ]
		run -126 unshare -rm sh -c 'mount --bind /dev/null /bin/sh && exec "$@"' sh \
			env PATH="$WS:$PATH" "$SBXRUN" --profile "$p" -- nohashbang
		[ "$output" = "sbxrun: nohashbang: cannot execute: no \"#!\" line, and /bin/sh, which runs such a file, cannot be executed: Permission denied" ]
		# The control: the same namespace without the mount runs it.
		run -0 unshare -rm sh -c 'exec "$@"' sh "$SBXRUN" --profile "$p" -- "$WS/nohashbang"
		[ "$output" = ran ]
	done
}

# "/bin/sh -i" is an interactive shell, not the script "-i": a command whose name begins with '-'
# (found through an empty PATH element, or named "-x/f") reaches the shell after "--".
@test "a script without #! whose name begins with - runs as that script, not as the shell's option" {
	printf 'echo "script $0|$*"\nexit 3\n' > "$WS/-i"
	chmod 755 "$WS/-i"
	mkdir "$WS/-x"
	cp "$WS/-i" "$WS/-x/f"
	for p in :danger-full-access :read-only :workspace; do
		run -3 env PATH=":$PATH" "$SBXRUN" --profile "$p" -- -i a < /dev/null
		[ "$output" = "script -i|a" ]
		run -3 "$SBXRUN" --profile "$p" -- -x/f a < /dev/null
		[ "$output" = "script -x/f|a" ]
	done
	# The control: a name without '-' is still "/bin/sh NAME", $0 the name found.
	cp "$WS/-i" "$WS/plain"
	run -3 env PATH=":$PATH" "$SBXRUN" -- plain b < /dev/null
	[ "$output" = "script plain|b" ]
}

# The shell's argument vector for a script without "#!" is mapped by the command's process while
# it still shares init's memory (vfork): left there once the shell runs, it would stay in init,
# as large as the arguments, for the whole run. init's anonymous memory, with and without "#!".
@test "a script without #! leaves nothing of its shell's arguments in init's memory" {
	local with without args
	printf 'sed -n "s/^RssAnon:[^0-9]*\\([0-9]*\\) kB$/\\1/p" /proc/1/status\n' >"$WS/nohashbang"
	printf '#!/bin/sh\n' | cat - "$WS/nohashbang" >"$WS/hashbang"
	chmod 755 "$WS/nohashbang" "$WS/hashbang"
	# 100,000 arguments: 800 kB of the shell's vector on a 64-bit machine.
	mapfile -t args < <(seq 100000)
	for p in :read-only :workspace; do
		run -0 "$SBXRUN" --profile "$p" -- "$WS/hashbang" "${args[@]}"
		with=$output
		[[ "$with" =~ ^[0-9]+$ ]]
		run -0 "$SBXRUN" --profile "$p" -- "$WS/nohashbang" "${args[@]}"
		without=$output
		[[ "$without" =~ ^[0-9]+$ ]]
		echo "$p: RssAnon $with kB with #!, $without kB without"
		[ "$without" -lt $((with + 200)) ]
	done
}

@test "-v and SBXRUN_DEBUG=1 print the plan on stderr first; stdout stays the command's" {
	for how in -v --verbose SBXRUN_DEBUG=1; do
		if [ "$how" = SBXRUN_DEBUG=1 ]; then
			SBXRUN_DEBUG=1 run --separate-stderr "$SBXRUN" --sandbox forbid -p :read-only -- echo hi
		else
			run --separate-stderr "$SBXRUN" "$how" --sandbox forbid -p :read-only -- echo hi
		fi
		[ "$status" -eq 0 ]
		[ "$output" = hi ]
		[ "$(head -n 1 <<<"$stderr")" = "sbxrun: profile :read-only (managed, network restricted), cwd $WS" ]
		[ "$(sed -n 2p <<<"$stderr")" = "sbxrun: sandbox none (not requested): the command runs unconfined" ]
	done
	SBXRUN_DEBUG=0 run --separate-stderr "$SBXRUN" --sandbox forbid -- echo hi
	[ "$stderr" = "" ]
	run --separate-stderr "$SBXRUN" -v --sandbox forbid --env-clear --env-set B=1 --env-set A=2 -- /usr/bin/env
	[ "$(tail -n 1 <<<"$stderr")" = "sbxrun: environment (2): A B" ]
}

@test "-v lists each requirement with its mechanism and status, and a refusal still refuses" {
	# A read-only carve-out that does not exist inside the writable workspace: unenforceable.
	run --separate-stderr "$SBXRUN" -v --read "$WS/nope" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"sbxrun: sandbox linux-seccomp, not enforceable (refused)"* ]]
	[[ "$stderr" == *"sbxrun:   read /"*"enforced"* ]]
	n=$(sed -n "s|^sbxrun:   read-only $WS/nope .*unenforceable \[\([0-9]*\)\]\$|\1|p" <<<"$stderr")
	[ -n "$n" ]
	[[ "$stderr" == *"sbxrun:   [$n] this path does not exist: making it read-only"* ]]
	[ ! -e "$WS/canary" ]
	run "$SBXRUN" explain -v -- true
	[ "$status" -eq 125 ]
}

@test "long options are spelled out in full: a prefix is an unknown option" {
	run "$SBXRUN" --net -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: unknown option '--net'; hint: "* ]]
	[[ "${lines[0]}" == *"; hint: options are spelled out in full; see 'sbxrun --help'" ]]
	run "$SBXRUN" explain --prof=:read-only -- true
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: explain: unknown option '--prof=:read-only'; hint: "* ]]
	# A prefix of an option that takes no value, given one: the word as given, never the
	# option's letter ("-v"), and never "takes no value" (it is no option at all).
	run "$SBXRUN" --verb=1 -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "${lines[0]}" = "sbxrun: unknown option '--verb=1'; hint: options are spelled out in full; see 'sbxrun --help'" ]
	run "$SBXRUN" explain --hel=x -- true
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: explain: unknown option '--hel=x'; hint: options are spelled out in full; see 'sbxrun explain --help'" ]
	run "$SBXRUN" explain --js=1 -- true
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: explain: unknown option '--js=1'; hint: options are spelled out in full; see 'sbxrun explain --help'" ]
	run "$SBXRUN" proxy --listen 127.0.0.1:0 --allow-priv=1
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: proxy: unknown option '--allow-priv=1'; hint: options are spelled out in full; see 'sbxrun proxy --help'" ]
	run "$SBXRUN" proxy --listen 127.0.0.1:0 --allow-private-addresses=1
	[ "$status" -eq 125 ]
	[ "$output" = "sbxrun: proxy: option '--allow-private-addresses' takes no value" ]
	# --deny is the run's, never a short --deny-domain of the proxy.
	run "$SBXRUN" proxy --listen 127.0.0.1:0 --deny example.com
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: proxy: unknown option '--deny'; hint: "* ]]
	# A value that looks like an option is still the value.
	run "$SBXRUN" --sandbox forbid --env-clear --env-set --x=1 -- /usr/bin/env
	[ "$status" -eq 0 ]
	[ "$output" = "--x=1" ]
	[ ! -e "$WS/canary" ]
}

@test "a working directory that is not UTF-8 refuses run and explain with one clear line" {
	local odd="$WS/x$(printf '\377')y"
	mkdir "$odd"
	cd "$odd"
	run --separate-stderr "$SBXRUN" --profile :workspace -- touch made
	[ "$status" -eq 125 ]
	[ "$stderr" = "sbxrun: the path $WS/x\\xffy is not UTF-8 text, which a profile (JSON) cannot carry; hint: run from, and name, directories whose names are UTF-8" ]
	[ ! -e made ]
	run --separate-stderr "$SBXRUN" explain --json -- true
	[ "$status" -eq 125 ]
	[[ "$stderr" == *"x\\xffy is not UTF-8 text"* ]]
	# Positive control: a profile that names no path of the directory runs from it.
	run "$SBXRUN" --profile :read-only -- sh -c 'pwd | od -An -c | tr -d " \n"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"x377y"* ]]
}

# Started from / or from $HOME, the default workspace root makes all of it writable: one line on
# stderr says so and how to narrow it; the command's own output is untouched.
@test "a workspace root at / or holding \$HOME is warned about, unless named with -w" {
	local fs="sbxrun: warning: the workspace root is /, the whole file system: the command may write every file you can; hint: run from the project's directory, or name it with -C DIR or -w DIR"
	mkdir -p "$WS/home"
	run -0 --separate-stderr env HOME="$WS/home" "$SBXRUN" -C "$WS/home" -- echo hi
	[ "$output" = hi ]
	[ "$stderr" = "sbxrun: warning: the workspace root $WS/home holds your home directory: the command may write all of it (the shell's start-up files, .ssh); hint: run from the project's directory, or name it with -C DIR or -w DIR" ]
	# A directory above $HOME holds it too.
	run -0 --separate-stderr env HOME="$WS/home" "$SBXRUN" -- true
	[ "$stderr" = "sbxrun: warning: the workspace root $WS holds your home directory: the command may write all of it (the shell's start-up files, .ssh); hint: run from the project's directory, or name it with -C DIR or -w DIR" ]
	# $HOME named through a symbolic link (git's config kept outside, as the link would refuse):
	# where it leads is held all the same.
	ln -s home "$WS/homelink"
	run -0 --separate-stderr env HOME="$WS/homelink/" GIT_CONFIG_GLOBAL=/dev/null "$SBXRUN" -C "$WS/home" -- true
	[ "$stderr" = "sbxrun: warning: the workspace root $WS/home holds your home directory: the command may write all of it (the shell's start-up files, .ssh); hint: run from the project's directory, or name it with -C DIR or -w DIR" ]
	run -0 --separate-stderr "$SBXRUN" -C / -- echo hi
	[ "$output" = hi ]
	[ "$stderr" = "$fs" ]
	run -0 --separate-stderr "$SBXRUN" explain -C / -- true
	[ "$stderr" = "$fs" ]
	# The controls: a root below $HOME, a profile that keeps the root read-only, one that
	# writes everywhere anyway, a root named with -w.
	run -0 --separate-stderr env HOME="$WS/home" "$SBXRUN" -C "$WS/src" -- true
	[ "$stderr" = "" ]
	run -0 --separate-stderr "$SBXRUN" -C / -p :read-only -- true
	[ "$stderr" = "" ]
	run -0 --separate-stderr "$SBXRUN" -C / -p :danger-full-access -- true
	[ "$stderr" = "" ]
	run -0 --separate-stderr env HOME="$WS/home" "$SBXRUN" -C "$WS/home" -w "$WS/home" -- true
	[ "$stderr" = "" ]
}
