#!/usr/bin/env bats
# Classes of calls, not examples. Without a mount namespace the file system is not read-only
# underneath, so what changes a file's attributes must be refused as a class: ioctl is an
# allow-list (terminal and descriptor requests), file_setattr is refused; a denied directory
# enforced by Landlock alone cannot be watched, and what it holds can be looked up (a limit
# explain says); system calls newer than this build are ENOSYS everywhere. With a mount
# namespace and Landlock, a glob match nothing grants gets no mask.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	# A writable root whose protected names are writable too: enforceable without a mount
	# namespace (nothing could keep a missing .git from being created there).
	PLAIN="$BASE/plain"
	mkdir -p "$PLAIN"
	echo p >"$PLAIN/f"
	PLAIN_W="$(entry_path "$PLAIN" write) $(unprotected "$PLAIN")"
	PROFILE=$(profile restricted "$(entry_special root read)" $PLAIN_W)
	SBX_CWD=$PLAIN
}

# nexpect ERRNO OP ARG...: with no mount namespace (unshare hidden).
nexpect() { fexpect unshare "$@"; }

@test "no mount namespace: file attributes cannot be changed by any ioctl or file_setattr" {
	local f
	for f in "$OUT/file.txt" "$PLAIN/f"; do
		outside setflags "$f"
		outside fssetxattr "$f"
		outside file_setattr "$f"
		# Run 1 tries each way; every one is refused, inside the writable root too.
		nexpect EPERM setflags "$f"
		nexpect EPERM fssetxattr "$f"
		nexpect EPERM file_setattr "$f"
	done
	# What a program needs of ioctl still works: its own terminal's requests, FIONREAD. (A new
	# pseudo-terminal cannot be opened: its other end would need all of /dev/pts, which holds
	# the user's other terminals.)
	run script -qec "$BIN/failinj unshare -- $H --sandbox-policy-cwd $PLAIN --permission-profile '$PROFILE' -- stty size" /dev/null
	echo "stty size: $output"
	[[ "$output" =~ ^[0-9]+\ [0-9]+ ]]
	nexpect EACCES pty
	nexpect OK fionread "$PLAIN/f"
	nexpect OK write "$PLAIN/new"
	# Run 2 (same refusals; the plan says how metadata is enforced here).
	nexpect EPERM fssetxattr "$OUT/file.txt"
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" explain --json --cwd "$PLAIN" \
		--profile <(echo "$PROFILE") -- true
	[[ "$output" == *'"mechanism": "seccomp"'* ]]
}

@test "with a mount namespace the same calls are refused by the read-only file system" {
	expect EROFS fssetxattr "$OUT/file.txt"
	expect EROFS file_setattr "$OUT/file.txt"
	expect OK pty
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$PLAIN" write)")
	expect OK fssetxattr "$PLAIN/f"
}

@test "no mount namespace: a denied directory enforced by Landlock alone cannot be watched" {
	rm -rf "$OUT/watched"
	mkdir -p "$OUT/watched"
	PROFILE=$(profile restricted "$(entry_special root read)" $PLAIN_W \
		"$(entry_path "$OUT/watched" deny)")
	outside inotify "$OUT/watched"
	nexpect EACCES list "$OUT/watched"
	nexpect EPERM inotify "$OUT/watched"
	# The class is closed: no watch at all while a deny rests on Landlock alone.
	nexpect EPERM inotify "$PLAIN"
	# Controls: without denies, or with a mount namespace, watches work where reads do.
	PROFILE=$(profile restricted "$(entry_special root read)" $PLAIN_W)
	nexpect OK inotify "$PLAIN"
	PROFILE=$(profile restricted "$(entry_special root read)" $PLAIN_W \
		"$(entry_path "$OUT/watched" deny)")
	expect OK inotify "$PLAIN"
}

@test "no mount namespace: a name in a denied directory is looked up, not opened; explain says so" {
	rm -rf "$OUT/looked"
	mkdir -p "$OUT/looked"
	echo secret >"$OUT/looked/key"
	ln -s secret-target "$OUT/looked/lnk"
	PROFILE=$(profile restricted "$(entry_special root read)" $PLAIN_W \
		"$(entry_path "$OUT/looked" deny)")
	# Run 1 guesses names: opening and listing are refused; looking up is not (Landlock rules
	# opening only), so whether a name exists, its status and a link's text are answered.
	nexpect EACCES read "$OUT/looked/key"
	nexpect EACCES list "$OUT/looked"
	nexpect OK stat "$OUT/looked/key"
	nexpect ENOENT stat "$OUT/looked/guessed"
	nexpect OK readlink "$OUT/looked/lnk"
	# That limit is said on the deny's row.
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" explain --cwd "$PLAIN" \
		--profile <(echo "$PROFILE") -- true
	echo "$output"
	local limit="Landlock rules opening, not looking up: the denied path and a name guessed in it"
	[[ "$output" == *"$limit can still be looked up"* ]]
	# Control: with a mount namespace the directory's mask hides every name in it.
	expect EACCES stat "$OUT/looked/key"
	expect EACCES stat "$OUT/looked/guessed"
	expect EACCES readlink "$OUT/looked/lnk"
	run "$BIN/sbxrun" explain --cwd "$PLAIN" --profile <(echo "$PROFILE") -- true
	[[ "$output" != *"not looking up"* ]]
}

@test "system calls newer than this build are ENOSYS in every mode" {
	expect ENOSYS syscall 470
	nexpect ENOSYS syscall 470
	# This kernel has none above the bound: the same filter with a lower bound shows the range
	# refused on a call it does implement (file_getattr, 468).
	run "$P" syscall 468
	[ "$output" = EINVAL ]
	run "$BIN/filter-demo" 467 plain -- "$P" syscall 468
	[ "$output" = ENOSYS ]
	run "$BIN/filter-demo" 468 plain -- "$P" syscall 468
	[ "$output" = EINVAL ]
}

@test "an x32 system call kills the command (SIGSYS), where the native call runs" {
	# getpid, 39 in the native table and 0x40000000 + 39 in x32's. The filter is built for the
	# native architecture alone: another ABI's numbers would slip past its rules.
	[ "$(uname -m)" = x86_64 ] || return 0
	expect OK syscall 39
	run sbx "$P" syscall $((0x40000000 + 39))
	echo "inside: probe syscall x32 getpid -> status $status, $output"
	[ "$status" = 159 ]
	[ -z "$output" ]
}

@test "a deny glob's match that nothing grants gets no mask (its path stays unpublished)" {
	SBX_CWD=$WS
	rm -rf "$OUT/gl" "$WS/gl"
	mkdir -p "$OUT/gl" "$WS/gl"
	echo k >"$OUT/gl/a.key"
	echo k >"$WS/gl/b.key"
	PROFILE=$(profile restricted "$(entry_special minimal read)" "$(entry_path "$BIN" read)" \
		"$(entry_special project_roots write)" \
		"$(glob_deny "$OUT/gl/**/*.key")" "$(glob_deny "$WS/gl/**/*.key")")
	outside read "$OUT/gl/a.key"
	outside read "$WS/gl/b.key"
	expect EACCES read "$OUT/gl/a.key"
	expect EACCES read "$WS/gl/b.key"
	# Read by the shell itself: the minimal set grants /proc/self, which with a fresh /proc is
	# all of it (it shows the sandbox's processes only).
	run sbx sh -c 'while read -r l; do echo "$l"; done </proc/self/mountinfo'
	[ "$status" -eq 0 ]
	[[ "$output" == *"$WS/gl/b.key"* ]]
	[[ "$output" != *"$OUT/gl"* ]]
	run "$BIN/sbxrun" explain --json --cwd "$WS" --profile <(echo "$PROFILE") -- true
	[[ "$output" == *'"rule": "deny glob '"$OUT"'/gl/**/*.key",'*'"mechanism": "landlock+mount-namespace"'* ]]
}
