#!/usr/bin/env bats
# Git runs hooks and reads config from more places than the workspace's .git: a worktree's .git
# file points into the main repository's git directory, whose common directory holds the hooks
# and config, and submodules keep theirs under modules/. Wherever those lie inside a writable
# root (here: under $TMPDIR, which the workspace profile makes writable), run 1 must not be able
# to plant anything there that a later git command (run 2, or the user's own) would execute.
load common

setup_file() {
	make_layout_vars
	rm -rf "$TMPDIR/main" "$BASE/wt"
	mkdir -p "$BASE"
	local g=(git -c user.name=t -c user.email=t@t -c protocol.file.allow=always)
	"${g[@]}" init -q "$TMPDIR/main"
	echo a >"$TMPDIR/main/a"
	"${g[@]}" -C "$TMPDIR/main" add a
	"${g[@]}" -C "$TMPDIR/main" commit -qm init
	"${g[@]}" init -q "$TMPDIR/lib"
	"${g[@]}" -C "$TMPDIR/lib" commit -q --allow-empty -m lib
	"${g[@]}" -C "$TMPDIR/main" submodule add -q "$TMPDIR/lib" sub
	"${g[@]}" -C "$TMPDIR/main" commit -qm sub
	"${g[@]}" -C "$TMPDIR/main" worktree add -q "$BASE/wt"
}
setup() {
	make_layout_vars
	WT="$BASE/wt"
	new_canary "$BASE"
	COMMON="$TMPDIR/main/.git"
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$WT
}

# superproject TOP PATH: a repository at TOP/ws with a submodule (the repository TOP/lib) checked
# out at PATH, as git submodule add makes it.
superproject() {
	local top=$1 path=$2 g=(git -c user.name=t -c user.email=t@t -c protocol.file.allow=always)
	rm -rf "$top"
	mkdir -p "$top"
	"${g[@]}" init -q "$top/lib"
	"${g[@]}" -C "$top/lib" commit -q --allow-empty -m lib
	"${g[@]}" init -q "$top/ws"
	"${g[@]}" -C "$top/ws" commit -q --allow-empty -m init
	"${g[@]}" -C "$top/ws" submodule add -q "$top/lib" "$path" 2>/dev/null
	"${g[@]}" -C "$top/ws" commit -qm sub
}

# Runs in the worktree.
wt() { sbx "$@"; }
wexpect() { expect "$@"; }

@test "the layout: a worktree whose git directory lies in a writable root" {
	[ "$(cat "$WT/.git")" = "gitdir: $COMMON/worktrees/wt" ]
	[ "$(cat "$COMMON/worktrees/wt/commondir")" = ../.. ]
	[ -d "$COMMON/modules/sub" ]
	# Positive control: that root is writable to the command where it is not git's.
	wexpect OK write "$TMPDIR/other-file"
	wexpect OK write "$WT/new-file"
}

@test "hooks and config: the worktree's gitdir, the common directory, the submodule's" {
	local dir
	for dir in "$COMMON" "$COMMON/modules/sub"; do
		outside write "$dir/hooks/probe-outside"
		rm "$dir/hooks/probe-outside"
		wexpect EROFS write "$dir/hooks/pre-commit"
		wexpect EROFS append "$dir/config"
	done
	# The worktree's own git directory (HEAD, its per-worktree config, a hooks directory).
	wexpect EROFS append "$COMMON/worktrees/wt/HEAD"
	wexpect EROFS write "$COMMON/worktrees/wt/config.worktree"
	wexpect EROFS mkdir "$COMMON/worktrees/wt/hooks"
	wexpect EROFS append "$WT/.git"
}

@test "run 1 cannot plant a command in git's config; run 2's git status runs nothing" {
	run wt git config core.fsmonitor "touch $CANARY"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	wexpect EROFS write "$COMMON/hooks/post-checkout"
	run wt git status --short
	[ "$status" -eq 0 ]
	run git -C "$WT" status --short
	[ ! -e "$CANARY" ]
	# Control: in a plain repository of its own in $TMPDIR the command may set any config.
	rm -rf "$TMPDIR/scratch"
	run wt git init -q "$TMPDIR/scratch"
	[ "$status" -eq 0 ]
	run wt git -C "$TMPDIR/scratch" config core.fsmonitor true
	[ "$status" -eq 0 ]
}

# Git follows the paths in its files through the kernel, each time it runs: a ".." after a name
# goes up from wherever that name leads then. Read lexically, commondir names one directory while
# git takes its hooks and config from another, which nothing protects: a symbolic link there
# already, or a directory that run 1 swaps for one while it runs.
@test "a commondir with a .. after a name is refused; git's own layout is protected" {
	local d="$TMPDIR/dotdot" wt="$BASE/wt-dotdot" g=(git -c user.name=t -c user.email=t@t)
	local common="$d/main/.git/worktrees/wt-dotdot/commondir"
	rm -rf "$d" "$wt"
	mkdir -p "$d/elsewhere/sub"
	"${g[@]}" init -q "$d/main"
	"${g[@]}" -C "$d/main" commit -q --allow-empty -m init
	"${g[@]}" -C "$d/main" worktree add -q "$wt"
	# A repository where the link's parent leads, and commondir going up from the link.
	cp -r "$d/main" "$d/elsewhere/main"
	ln -s elsewhere/sub "$d/lnk"
	echo "$d/lnk/../main/.git" >"$common"
	[ "$(git -C "$wt" rev-parse --git-common-dir)" = "$d/elsewhere/main/.git" ]
	SBX_CWD=$wt
	new_canary "$wt"
	run sbx sh -c "touch '$CANARY'; echo x >'$d/elsewhere/main/.git/hooks/pre-commit'"
	refused "sbxrun: $common names $d/lnk/../main/.git, whose \"..\" follows a name: *"
	run "$BIN/sbxrun" --allow-git -C "$wt" -- sh -c "touch '$CANARY'"
	refused "sbxrun: $common names $d/lnk/../main/.git, whose \"..\" follows a name: *"
	[ ! -e "$d/elsewhere/main/.git/hooks/pre-commit" ]
	# The same through the worktree's .git file.
	echo ../.. >"$common"
	echo "gitdir: $d/lnk/../main/.git/worktrees/wt-dotdot" >"$wt/.git"
	run sbx touch "$CANARY"
	refused "sbxrun: $wt/.git names $d/lnk/../main/.git/worktrees/wt-dotdot, whose \"..\" *"
	# A real directory where the link was: run 1 would swap it for the link while it runs,
	# and plant the hook there, for the user's next git outside.
	echo "gitdir: $d/main/.git/worktrees/wt-dotdot" >"$wt/.git"
	rm "$d/lnk"
	mkdir "$d/lnk"
	echo "$d/lnk/../main/.git" >"$common"
	[ "$(cd "$(git -C "$wt" rev-parse --git-common-dir)" && pwd -P)" = \
		"$(cd "$d/main/.git" && pwd -P)" ]
	run sbx sh -c "mv '$d/lnk' '$d/lnk2' && ln -s elsewhere/sub '$d/lnk' &&
		echo 'touch $CANARY' >'$d/elsewhere/main/.git/hooks/pre-commit'"
	refused "sbxrun: $common names $d/lnk/../main/.git, whose \"..\" follows a name: *"
	[ -d "$d/lnk" ]
	[ ! -L "$d/lnk" ]
	[ ! -e "$d/elsewhere/main/.git/hooks/pre-commit" ]
	echo ../.. >"$common"
	# Control: as git writes them, the hooks git takes are read-only, the copy is not git's.
	echo "gitdir: $d/main/.git/worktrees/wt-dotdot" >"$wt/.git"
	[ "$(git -C "$wt" rev-parse --git-common-dir)" = "$d/main/.git" ]
	expect EROFS write "$d/main/.git/hooks/pre-commit"
	expect OK write "$d/elsewhere/main/.git/hooks/pre-commit"
	rm -rf "$d" "$wt"
}

# A .git file whose git directory is missing (a worktree whose repository was moved, a pointer
# not yet filled): git takes the checkout for none. Inside a writable root, run 1 could make that
# directory, with a config that runs a command, for the user's next plain git to take.
@test "a .git file pointing to a missing directory in a writable root: run 1 cannot make it" {
	local ws="$BASE/ws-gone" gone="$TMPDIR/gone"
	rm -rf "$ws" "$gone"
	mkdir -p "$ws" "$gone"
	new_canary "$ws"
	echo "gitdir: $gone/wtgit" >"$ws/.git"
	SBX_CWD=$ws
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$ws" write)" \
		"$(entry_special tmpdir write)")
	# Run 1 makes the git directory, then a deeper one where two names are missing.
	run sbx sh -c "mkdir -p '$gone/wtgit/objects' '$gone/wtgit/refs' &&
		echo 'ref: refs/heads/main' >'$gone/wtgit/HEAD' &&
		printf '[core]\n\tfsmonitor = \"touch $CANARY\"\n' >'$gone/wtgit/config'"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Not a directory"* ]]
	[ ! -e "$gone/wtgit" ]
	run git -C "$ws" status
	[ ! -e "$CANARY" ]
	echo "gitdir: $gone/a/b/wtgit" >"$ws/.git"
	expect EEXIST mkdir "$gone/a"
	expect ENOTDIR mkdir "$gone/a/b"
	run sbx mkdir -p "$gone/a/b/wtgit"
	[ "$status" -ne 0 ]
	[ ! -e "$gone/a" ]
	# Positive controls: beside it the root is writable; a file there stays the user's.
	expect OK write "$gone/sibling"
	echo "gitdir: $gone/file" >"$ws/.git"
	echo mine >"$gone/file"
	expect EACCES read "$gone/file"
	run sbx sh -c "rm -f '$gone/file'; mkdir '$gone/file'"
	[ "$(cat "$gone/file")" = mine ]
	rm -rf "$ws" "$gone"
}

# git status in a repository recurses into each populated submodule, through the checkout's .git.
# Run 1 points that .git at a git directory of its own, or makes one where the checkout has
# none: the user's next plain git status would run its config.
@test "a submodule checkout's .git: run 1 can neither repoint nor make it (both modes)" {
	local top="$BASE/subm" ws="$BASE/subm/ws" evil="$TMPDIR/evil-gitdir"
	rm -rf "$evil"
	superproject "$top" sub
	new_canary "$ws"
	SBX_CWD=$ws
	PROFILE=$(profile restricted $(workspace_entries))
	local plant="cp -r '$ws/.git/modules/sub' '$evil' &&
		git config -f '$evil/config' --unset core.worktree;
		git config -f '$evil/config' core.fsmonitor 'touch $CANARY'"
	# Positive control: the checkout's files are the command's to write.
	expect OK write "$ws/sub/new-file"
	expect EROFS append "$ws/sub/.git"
	run sbx sh -c "$plant; '$P' write '$ws/sub/.git'"
	[ "${lines[-1]}" = EROFS ]
	expect EBUSY rename "$ws/sub/.git" "$ws/sub/git2"
	run sbx sh -c "rm -f '$ws/sub/.git'; '$P' mkdir '$ws/sub/.git'"
	[ "${lines[-1]}" = EEXIST ]
	run "$BIN/sbxrun" --allow-git -C "$ws" -- "$P" write "$ws/sub/.git"
	[ "$output" = EROFS ]
	[ "$(cat "$ws/sub/.git")" = "gitdir: ../.git/modules/sub" ]
	run git -C "$ws" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
	# A checkout whose .git was removed (its git directory still naming it): none can be
	# made there.
	rm -f "$ws/sub/.git"
	[ -d "$ws/sub" ]
	[ -d "$ws/.git/modules/sub" ]
	run sbx sh -c "$plant; '$P' mkdir '$ws/sub/.git'"
	[ "${lines[-1]}" = EEXIST ]
	[ ! -e "$ws/sub/.git" ]
	run git -C "$ws" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
	rm -rf "$top" "$evil"
}

# A submodule checkout's missing .git is kept from being made by a mount point there, for the
# run (a checkout holding files: an empty one is kept read-only whole). Run B, started while
# run A holds that point, must take it for what it is (the name missing, held with A's point)
# and not for the user's .git: held read-only as the user's, its mount goes when A ends and
# removes the point, and B could make the .git then.
@test "a submodule checkout's missing .git: a run started beside another cannot make it" {
	local top="$BASE/subm2" ws="$BASE/subm2/ws" pid
	superproject "$top" sub
	rm -f "$ws/sub/.git"
	echo x >"$ws/sub/kept"
	SBX_CWD=$ws
	PROFILE=$(profile restricted $(workspace_entries))
	local mode up="$ws/b-up" ended="$BASE/subm2-a-ended" b bpid
	for mode in plain git; do
		rm -f "$up" "$ended"
		# Run A holds its point at sub/.git until run B's command has started (B's set-up
		# is done while A holds, however long it takes).
		sbx sh -c "$(until_sh "$up")" 3>&- &
		pid=$!
		for _ in $(seq 250); do
			[ -e "$ws/sub/.git" ] && break
			sleep 0.02
		done
		[ -d "$ws/sub/.git" ]
		# Run B starts beside it and, once A has ended, tries to make the .git.
		b=": >'$up'; $(until_sh "$ended"); '$P' mkdir '$ws/sub/.git'; '$P' write '$ws/sub/.git/config'"
		if [ $mode = plain ]; then
			sbx sh -c "$b" >"$BASE/b.out" 2>&1 3>&- &
		else
			"$BIN/sbxrun" --allow-git -C "$ws" -- sh -c "$b" >"$BASE/b.out" 2>&1 3>&- &
		fi
		bpid=$!
		wait "$pid"
		: >"$ended"
		wait "$bpid" || true
		rm "$up"
		run cat "$BASE/b.out"
		echo "$mode: $output"
		[ "${lines[0]}" = EEXIST ]
		[ "${lines[1]}" = EROFS ]
		[ ! -e "$ws/sub/.git" ]
	done
	# Positive control: beside it the checkout is writable.
	expect OK write "$ws/sub/new-file"
	rm -rf "$top"
}

# A submodule whose checkout directory is missing (a clone without --recurse-submodules, a
# deinit, rm -rf): run 1 must not make the directory and a .git in it (a config that runs a
# command), which the user's next plain git status would take for the submodule's repository.
@test "a submodule whose checkout directory is missing: run 1 cannot make it" {
	local top="$BASE/subm3" ws="$BASE/subm3/ws"
	superproject "$top" deep/sub
	new_canary "$ws"
	SBX_CWD=$ws
	PROFILE=$(profile restricted $(workspace_entries))
	rm -rf "$ws/deep"
	[ -d "$ws/.git/modules/deep/sub" ]
	local plant="mkdir -p '$ws/deep/sub/.git' &&
		cp -r '$ws/.git/modules/deep/sub/.' '$ws/deep/sub/.git/' &&
		git config -f '$ws/deep/sub/.git/config' --unset core.worktree;
		git config -f '$ws/deep/sub/.git/config' core.fsmonitor 'touch $CANARY'"
	expect EEXIST mkdir "$ws/deep"
	run sbx sh -c "$plant"
	[ "$status" -ne 0 ]
	[ ! -e "$ws/deep" ]
	run "$BIN/sbxrun" --allow-git -C "$ws" -- "$P" mkdir "$ws/deep"
	[ "$output" = EEXIST ]
	run "$BIN/sbxrun" --allow-git -C "$ws" -- sh -c "$plant"
	[ "$status" -ne 0 ]
	[ ! -e "$ws/deep" ]
	run git -C "$ws" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
	# Positive controls: beside it the workspace is writable. An empty checkout directory
	# (git submodule deinit leaves one) is kept read-only whole, which git takes for a
	# submodule not checked out (an empty directory mounted at its .git is one git status
	# dies on); one holding files is the command's, its .git not.
	expect OK mkdir "$ws/other"
	mkdir "$ws/deep" "$ws/deep/sub"
	expect EROFS write "$ws/deep/sub/file"
	expect EROFS mkdir "$ws/deep/sub/.git"
	run sbx git -C "$ws" status --short
	[ "$status" -eq 0 ]
	echo x >"$ws/deep/sub/kept"
	expect OK write "$ws/deep/sub/file"
	expect EROFS mkdir "$ws/deep/sub/.git/hooks"
	[ ! -e "$ws/deep/sub/.git" ]
	rm -rf "$top"
}

# nested TOP WHEN PREPARE: the superproject TOP/ws with a submodule at lib/a, whose git directory
# git keeps in modules/lib/a (a name with a slash), and PREPARE run in the workspace: by a git
# mode run before the user adds the submodule (WHEN "before"), or outside after it ("outside").
# Run 2 must hold the checkout's .git and the submodule's hooks and config.
nested() {
	local top=$1 when=$2 prep=$3 ws=$1/ws g=(git -c user.name=t -c user.email=t@t
		-c protocol.file.allow=always)
	superproject "$top" sub
	new_canary "$ws"
	SBX_CWD=$ws
	PROFILE=$(profile restricted $(workspace_entries))
	if [ "$when" = before ]; then
		# What prep makes under modules/ is said by git mode's end-of-run check (exit 1).
		run "$BIN/sbxrun" --allow-git -C "$ws" -- sh -c "$prep"
		echo "prepare: $status $output"
		if [ "$prep" = true ]; then
			[ "$status" -eq 0 ]
		else
			[ "$status" -eq 1 ]
		fi
	fi
	"${g[@]}" -C "$ws" submodule add -q "$top/lib" lib/a 2>/dev/null
	"${g[@]}" -C "$ws" commit -qm lib/a
	[ "$(cat "$ws/lib/a/.git")" = "gitdir: ../../.git/modules/lib/a" ]
	[ "$when" != outside ] || (cd "$ws" && sh -c "$prep")
	# Positive control: the checkout's files are the command's.
	expect OK write "$ws/lib/a/new-file"
	expect EROFS append "$ws/lib/a/.git"
	run "$BIN/sbxrun" --allow-git -C "$ws" -- "$P" append "$ws/lib/a/.git"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --allow-git -C "$ws" -- "$P" append "$ws/.git/modules/lib/a/config"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --allow-git -C "$ws" -- "$P" write "$ws/.git/modules/lib/a/hooks/x"
	[ "$output" = EROFS ]
	# What git mode is for: the superproject's own git directory is writable.
	run "$BIN/sbxrun" --allow-git -C "$ws" -- "$P" write "$ws/.git/new-file"
	[ "$output" = OK ]
	run "$BIN/sbxrun" --allow-git -C "$ws" -- sh -c \
		"git -C '$ws/lib/a' config core.fsmonitor 'touch $CANARY'"
	[ "$status" -ne 0 ]
	run git -C "$ws" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
	rm -rf "$top"
}

@test "a submodule named lib/a: the layout git makes is held (the control)" {
	nested "$BASE/nest0" before true
}

# Git takes modules/lib for no git directory unless it has a valid HEAD, objects/ and refs/:
# a HEAD of run 1's there must not hide modules/lib/a from run 2.
@test "a submodule named lib/a: run 1's junk modules/lib/HEAD does not hide it" {
	nested "$BASE/nest1" before "mkdir -p .git/modules/lib && echo junk >.git/modules/lib/HEAD"
}

# Git refuses a submodule git directory inside another git directory, but one that becomes
# one around it later leaves the nested one git's still: it must still be found. A git mode run
# cannot make it one (modules/lib, no git directory, is kept whole): made outside here.
@test "a submodule named lib/a: modules/lib made a git directory around it" {
	local ws="$BASE/nest2/ws" lib="$BASE/nest2/ws/.git/modules/lib"
	nested "$BASE/nest2" outside "
		[ \"\$('$BIN/sbxrun' --allow-git -C '$ws' -- '$P' mkdir '$lib/refs')\" = EROFS ] &&
		cd '$lib' && mkdir objects refs && echo 'ref: refs/heads/main' >HEAD &&
		git --git-dir=. rev-parse --git-dir"
}

# Past its cap on git directories sbxrun refuses a run rather than leave one unprotected. One
# git mode run can pass it (mkdir modules/junk1 ... junk300): the refusal of every later run
# must say where, so that the user can clean it.
@test "too many directories under modules/: the refusal names them" {
	local top="$BASE/many" ws="$BASE/many/ws" out
	superproject "$top" sub
	SBX_CWD=$ws
	PROFILE=$(profile restricted $(workspace_entries))
	# Positive control: a layout under the cap runs.
	run "$BIN/sbxrun" --allow-git -C "$ws" -- bash -c "mkdir '$ws/.git/modules/junk'{1..200}"
	# Git mode's end-of-run check says each, exit 1.
	[ "$status" -eq 1 ]
	[[ $output == *"sbxrun: git mode: the command made $ws/.git/modules/junk200, a git directory for a submodule"* ]]
	expect OK write "$ws/sub/new-file"
	run "$BIN/sbxrun" --allow-git -C "$ws" -- bash -c "mkdir '$ws/.git/modules/junk'{201..300}"
	[ "$status" -eq 1 ]
	for mode in plain git; do
		if [ $mode = plain ]; then
			run sbx "$P" write "$ws/sub/new-file"
		else
			run "$BIN/sbxrun" --allow-git -C "$ws" -- "$P" write "$ws/sub/new-file"
		fi
		echo "$mode: $output"
		[ "$status" -eq 125 ]
		[[ $output == *"$ws/.git/modules/junk"* ]]
		[[ $output == *"from $ws/.git/modules"* ]]
	done
	rm -rf "$top"
}

# pointed NAME: a repository $TMPDIR/NAME/main (in a writable root) with a linked worktree at
# $BASE/wt-NAME (the workspace); PD its worktree's git directory, PC its common one.
pointed() {
	local d="$TMPDIR/$1" g=(git -c user.name=t -c user.email=t@t)
	PW="$BASE/wt-$1"
	rm -rf "$d" "$PW"
	"${g[@]}" init -q "$d/main"
	"${g[@]}" -C "$d/main" commit -q --allow-empty -m init
	"${g[@]}" -C "$d/main" worktree add -q "$PW"
	PC="$d/main/.git"
	PD="$PC/worktrees/wt-$1"
	SBX_CWD=$PW
}

# Git reads a commondir as a C string: what follows a NUL byte is not its. Taken for a file that
# is no pointer, the common directory went unprotected: run 1 could write a hook there, which the
# user's next plain git in the worktree runs. The file is the host user's (cloned, made outside):
# inside the sandbox it is read-only.
@test "a commondir with a NUL byte: read as git reads it, the common directory held" {
	pointed nul
	printf '../..\0junk\n' >"$PD/commondir"
	[ "$(git -C "$PW" rev-parse --git-common-dir)" = "$PC" ]
	expect EROFS write "$PC/hooks/pre-commit"
	expect EROFS append "$PC/config"
	expect EROFS write "$PD/commondir"
	# Positive control: beside it the writable root is the command's.
	expect OK write "$TMPDIR/nul/other-file"
	rm -rf "$TMPDIR/nul" "$PW"
}

# A line break before the path (or inside it) is none git writes: git takes a path holding it,
# which a git mode run 1 could make (worktrees/W is writable there). sbxrun refuses the run rather
# than read the file as pointing nowhere and leave the common directory unprotected.
@test "a commondir with a line break in its path: the run is refused, naming the file" {
	pointed nl
	new_canary "$PW"
	printf '\n../..\n' >"$PD/commondir"
	run git -C "$PW" rev-parse --git-common-dir
	[ "$status" -ne 0 ]
	[[ "$output" == *"Invalid path '$PD/"* ]]
	run sbx sh -c "touch '$CANARY'"
	refused "sbxrun: $PD/commondir: the path git reads there holds a line break *"
	[[ "$output" == *"; hint: it names the git directory whose hooks and config must be protected; write there the one line git writes"* ]]
	run "$BIN/sbxrun" --allow-git -C "$PW" -- sh -c "touch '$CANARY'"
	refused "sbxrun: $PD/commondir: the path git reads there holds a line break *"
	# Positive control: the line git writes runs, its common directory held.
	echo ../.. >"$PD/commondir"
	expect EROFS write "$PC/hooks/pre-commit"
	expect OK write "$TMPDIR/nl/other-file"
	rm -rf "$TMPDIR/nl" "$PW"
}

# "gitdir:" without the blank after it is no .git file to git (it refuses it as invalid), but the
# profile semantics read a path there, trimmed: one holding a line break is refused still, and
# worded so: git reads no path there.
@test "a .git file of gitdir: and a line break, no blank: refused, worded as no reading of git's" {
	pointed nlg
	printf 'gitdir:%s\nx\n' "$PD" >"$PW/.git"
	run git -C "$PW" rev-parse --git-dir
	[ "$status" -ne 0 ]
	[[ "$output" == *"invalid gitfile format"* ]]
	new_canary "$PW"
	run sbx sh -c "touch '$CANARY'"
	refused "sbxrun: $PW/.git: the path it names (read as a profile reads a .git file, blanks trimmed: git takes it for no .git file) holds a line break*"
	# Positive control: the line git writes runs, its git directory held.
	printf 'gitdir: %s\n' "$PD" >"$PW/.git"
	expect EROFS write "$PD/commondir"
	expect OK write "$TMPDIR/nlg/other-file"
	rm -rf "$TMPDIR/nlg" "$PW"
}

# Git keeps a blank at the end of a .git file's path ("gitdir: X \n" is the directory "X "), where
# the profile semantics trim it. Protecting only "X", sbxrun left git's directory writable: run 1
# could repoint its commondir at a common directory of its own, with a hook, for the user's next
# plain git. Both readings are protected now.
@test "a .git file with a blank after its path: git's directory is protected too" {
	local evil="$TMPDIR/blank/evil"
	pointed blank
	mv "$PD" "$PD "
	printf 'gitdir: %s \n' "$PD" >"$PW/.git"
	[ "$(git -C "$PW" rev-parse --git-dir)" = "$PD " ]
	[ "$(git -C "$PW" rev-parse --git-common-dir)" = "$PC" ]
	expect EROFS write "$PD /commondir"
	expect EROFS write "$PC/hooks/pre-commit"
	run sbx sh -c "cp -r '$PC' '$evil' && echo '$evil' >'$PD /commondir'"
	[ "$status" -ne 0 ]
	[ "$(git -C "$PW" rev-parse --git-common-dir)" = "$PC" ]
	# The trimmed reading names no directory: it cannot be made either.
	expect EEXIST mkdir "$PD"
	expect ENOTDIR mkdir "$PD/hooks"
	# Positive control: beside them the writable root is the command's.
	expect OK write "$TMPDIR/blank/other-file"
	rm -rf "$TMPDIR/blank" "$PW"
}

# Git reads a worktree's gitdir two ways: git worktree list and remove drop blanks at its end,
# prune keeps them (a worktree whose file is gone is pruned: its git directory, index and stash
# of work in progress deleted). sbxrun kept only the trimmed reading's file: a git mode run 1
# could remove the one prune checks, and the user's next git worktree prune would drop the
# worktree. Every reading's file is kept now.
@test "a worktree's gitdir with a blank at its end: the file each git reading names is kept" {
	pointed gd
	echo mine >"$PW/.git "
	printf '%s/.git \n' "$PW" >"$PD/gitdir"
	run git -C "$PC" worktree list --porcelain
	[[ "$output" == *"worktree $PW"$'\n'* ]]
	run git -C "$PC" worktree prune -n -v --expire=now
	[ "$output" = "" ]
	run "$BIN/sbxrun" --allow-git -C "$PW" -- "$P" unlink "$PW/.git "
	[ "$output" = EBUSY ]
	run "$BIN/sbxrun" --allow-git -C "$PW" -- "$P" write "$PW/.git "
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --allow-git -C "$PW" -- "$P" unlink "$PW/.git"
	[ "$output" = EBUSY ]
	[ "$(cat "$PW/.git ")" = mine ]
	run git -C "$PC" worktree prune -n -v --expire=now
	[ "$output" = "" ]
	# Positive control: beside them the worktree, and the git directory, are the command's.
	run "$BIN/sbxrun" --allow-git -C "$PW" -- "$P" write "$PW/.git2"
	[ "$output" = OK ]
	run "$BIN/sbxrun" --allow-git -C "$PW" -- "$P" write "$PD/new-file"
	[ "$output" = OK ]
	rm -rf "$TMPDIR/gd" "$PW"
}
