#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Everyday use through the real entry point (sbxrun, then its helper): the quick grants take
# effect as the same rules in a profile would, the environment the options make is the one the
# command sees, --mkdir and a link planted by an earlier run, and the rule a 126 names.
load common

setup_file() {
	make_layout
	mkdir -p "$OUT/dir" "$OUT/secrets" "$OUT/t"
	echo key >"$OUT/secrets/key"
	echo pub >"$OUT/secrets/pub"
	echo secret >"$WS/secret.txt"
	start_outside
}
teardown_file() { stop_outside; }
setup() {
	make_layout_vars
	load_outside
}

# q OPTION... -- CMD...: sbxrun with the default profile (:workspace), from the workspace.
q() { (cd "$WS" && exec "$BIN/sbxrun" "$@"); }

# qx ERRNO OPTION... -- OP ARG...: the probe under sbxrun prints exactly ERRNO (or OK).
qx() {
	local want=$1
	shift
	run q "$@"
	echo "sbxrun $* -> $output (want $want)"
	[ "$output" = "$want" ]
}

@test "--write opens a directory outside the workspace, and only it (EROFS elsewhere)" {
	outside write "$OUT/host.txt"
	qx OK --write "$OUT/dir" -- "$P" write "$OUT/dir/new.txt"
	qx EROFS --write "$OUT/dir" -- "$P" write "$OUT/new.txt"
	qx EROFS -- "$P" write "$OUT/dir/new2.txt"
	# Relative to -C, as a shell user would write it.
	run "$BIN/sbxrun" -C "$OUT" --write dir -- "$P" write "$OUT/dir/rel.txt"
	[ "$output" = OK ]
}

@test "--deny hides a file inside the writable workspace (EACCES); its siblings stay" {
	outside read "$WS/secret.txt"
	qx EACCES --deny secret.txt -- "$P" read "$WS/secret.txt"
	qx OK --deny secret.txt -- "$P" read "$WS/file.txt"
	qx OK --deny secret.txt -- "$P" write "$WS/new.txt"
	qx OK -- "$P" read "$WS/secret.txt"
}

@test "--read re-opens one file inside a --deny (the most specific rule wins)" {
	qx EACCES --deny "$OUT/secrets" -- "$P" read "$OUT/secrets/pub"
	qx OK --deny "$OUT/secrets" --read "$OUT/secrets/pub" -- "$P" read "$OUT/secrets/pub"
	# The rest of the denied directory reads as missing (sbxrun(1), PLATFORMS).
	qx ENOENT --deny "$OUT/secrets" --read "$OUT/secrets/pub" -- "$P" read "$OUT/secrets/key"
}

@test "--read on a profile that reads nothing there: that file reads, the rest EACCES" {
	profile restricted "$(entry_special minimal read)" "$(entry_special project_roots write)" \
		>"$BASE/min.json"
	outside read "$OUT/file.txt"
	qx EACCES -p "$BASE/min.json" --read "$BIN" -- "$P" read "$OUT/file.txt"
	qx OK -p "$BASE/min.json" --read "$BIN" --read "$OUT/file.txt" -- "$P" read "$OUT/file.txt"
	qx EACCES -p "$BASE/min.json" --read "$BIN" --read "$OUT/file.txt" -- "$P" read \
		"$OUT/secrets/key"
}

@test "--network lets a loopback TCP connection out; without it EPERM" {
	qx EPERM -- "$P" tcp4 "$TCP4"
	qx OK --network -- "$P" tcp4 "$TCP4"
	qx EROFS --network -- "$P" write "$OUT/new.txt"
}

@test "the filtered environment reaches the command through the helper unchanged" {
	run env -i PATH=/usr/bin:/bin XA=1 XB=2 GH_TOKEN=t API_KEY=k HOME=/nowhere \
		"$BIN/sbxrun" -C "$WS" --env-keep 'x*' --env-keep PATH --env-deny XB --env-set Y=a=b \
		-- /usr/bin/env
	[ "$status" -eq 0 ]
	[ "$output" = "PATH=/usr/bin:/bin
XA=1
Y=a=b
SBXRUN_SANDBOX=linux-seccomp
SBXRUN_NETWORK_DISABLED=1" ]
	run env -i PATH=/usr/bin:/bin GH_TOKEN=t API_KEY=k my_secret=s KEEP=1 \
		"$BIN/sbxrun" -C "$WS" --env-deny-secrets --network -- /usr/bin/env
	[ "$output" = "PATH=/usr/bin:/bin
KEEP=1
SBXRUN_SANDBOX=linux-seccomp" ]
	# Without options, exactly what sbxrun had, plus the helper's.
	run env -i PATH=/usr/bin:/bin A=1 "$BIN/sbxrun" -C "$WS" -- /usr/bin/env
	[ "$output" = "PATH=/usr/bin:/bin
A=1
SBXRUN_SANDBOX=linux-seccomp
SBXRUN_NETWORK_DISABLED=1" ]
}

@test "the helper plans with the command's TMPDIR: --env-set TMPDIR is writable, TMPDIR cleared is not" {
	qx OK --env-set TMPDIR="$OUT/t" -- "$P" write "$OUT/t/a.txt"
	qx EROFS -- "$P" write "$OUT/t/b.txt"
	run env TMPDIR="$OUT/t" "$BIN/sbxrun" -C "$WS" --env-clear -- "$P" write "$OUT/t/c.txt"
	[ "$output" = EROFS ]
	run env TMPDIR="$OUT/t" "$BIN/sbxrun" -C "$WS" -- "$P" write "$OUT/t/d.txt"
	[ "$output" = OK ]
}

@test "--env-offline: package managers are told the network is gone, only when it is" {
	run q --env-offline -- /usr/bin/env
	[[ "$output" == *"npm_config_offline=true"* ]]
	[[ "$output" == *"PIP_NO_INDEX=1"* ]]
	[[ "$output" == *"CARGO_NET_OFFLINE=true"* ]]
	[[ "$output" == *"GOPROXY=off"* ]]
	run q --env-offline --network -- /usr/bin/env
	[[ "$output" != *"GOPROXY"* ]]
}

@test "--mkdir makes the directory before planning, and the grant takes effect" {
	# Without --mkdir the grant has no effect, and the command cannot make the directory.
	qx EROFS --write "$OUT/made/deep" -- "$P" mkdir "$OUT/made"
	[ ! -e "$OUT/made" ]
	qx OK --mkdir --write "$OUT/made/deep" -- "$P" write "$OUT/made/deep/f.txt"
	[ -f "$OUT/made/deep/f.txt" ]
	qx EROFS --mkdir --write "$OUT/made/deep" -- "$P" write "$OUT/made/other.txt"
}

@test "--mkdir: run 1 plants a link in the workspace, run 2 refuses to follow it" {
	rm -rf "$OUT/planted"
	mkdir -p "$OUT/planted"
	# Run 1, confined, can write the workspace: it leaves a link to a place outside.
	run q -- ln -s "$OUT/planted" "$WS/cache"
	[ "$status" -eq 0 ]
	[ -L "$WS/cache" ]
	# Run 2 would create, and be granted, a directory out there.
	run q --mkdir --write "$WS/cache/sub" -- "$P" write "$OUT/planted/sub/x.txt"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"$WS/cache is a symbolic link a confined command could have placed"* ]]
	[ ! -e "$OUT/planted/sub" ]
	rm -f "$WS/cache"
}

@test "126 names the rule: entries [] refuses the program; a grant on it lets it run" {
	profile restricted >"$BASE/empty.json"
	run q -p "$BASE/empty.json" -- true
	[ "$status" -eq 126 ]
	[[ "${lines[0]}" == "sbxrun: true: cannot execute: no entry grants read on /usr/bin/true; hint: "* ]]
	[[ "${lines[0]}" == *"; hint: let the command read it: --read /usr/bin/true, or a read entry in the profile" ]]
	# The positive control: the same profile with the program and its loader readable.
	run q -p "$BASE/empty.json" --read /usr --read /lib --read /lib64 -- /usr/bin/true
	[ "$status" -eq 0 ]
}

@test "126 names the rule that hides the program's interpreter" {
	# The dynamic loader /usr/bin/true names (PT_INTERP), where it really is.
	loader=$(readlink -f "$(ldd /usr/bin/true | awk '$1 ~ /^\// {print $1}')")
	[ -e "$loader" ]
	run q --deny "$(dirname "$loader")" -- /usr/bin/true
	[ "$status" -eq 126 ]
	[[ "${lines[0]}" == "sbxrun: /usr/bin/true: cannot execute: its interpreter: $loader is denied by entries["*"]: deny $(dirname "$loader"); hint: "* ]]
	# A read grant cannot beat the deny: the hint says what can.
	[[ "${lines[0]}" == *"; hint: a deny wins over a read grant: drop entries["*"] (or the --deny that made it) to let the command read $loader" ]]
	run q -- /usr/bin/true
	[ "$status" -eq 0 ]
}

@test "-v prints the plan on stderr, then the command runs confined" {
	run --separate-stderr q -v -- "$P" write "$OUT/v.txt"
	[ "$output" = EROFS ]
	[[ "$stderr" == *"sbxrun: sandbox linux-seccomp, enforceable"* ]]
	[[ "$stderr" == *"sbxrun:   write $WS "*"enforced"* ]]
}
