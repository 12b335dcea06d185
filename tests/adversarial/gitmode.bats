#!/usr/bin/env bats
# Git mode (--allow-git), attacked: run 1, confined in git mode as a hostile command would be,
# tries to leave something that makes the user's next plain git (outside any sandbox) run a
# program, or that weakens run 2. Each plant has a marker of its own, and the control applies the
# very same plants outside the sandbox to a repository laid out the same way: there every marker
# appears, so each plant would work, and in the sandbox none does. Nothing is prepared: the
# names git reads on demand that are missing (commondir, config.worktree) are masked on mount
# points made on the host for the run, and nothing of those is left after it.
load common

setup_file() {
	make_layout_vars
	git_env
	rm -rf "$BASE"
	mkdir -p "$BASE"
	make_git_repo "$WS" "$BASE/lib"
}

setup() {
	make_layout_vars
	git_env
	G="$WS/.git"
	MARK="$BASE/marks-$BATS_TEST_NUMBER"
	rm -rf "$MARK"
	mkdir -p "$MARK"
}

teardown() {
	if [ -f "$BASE/head-$BATS_TEST_NUMBER" ]; then
		mv "$BASE/head-$BATS_TEST_NUMBER" "$G/HEAD"
	fi
}

# plant_code MARKDIR: in the repository of the cwd, what would run a program at the next git
# command: hooks, config (fsmonitor, an alias, a filter with the attributes that apply it, a
# hooks path), config.worktree (an external diff), and the submodule's own. Every step may fail; none stops it.
plant_code() {
	local m=$1 evil=$TMPDIR/evil-hooks
	mkdir -p "$evil"
	printf '#!/bin/sh\ntouch %s/hook-post-checkout\n' "$m" >.git/hooks/post-checkout
	printf '#!/bin/sh\ntouch %s/hook-pre-commit\n' "$m" >.git/hooks/pre-commit
	chmod +x .git/hooks/post-checkout .git/hooks/pre-commit
	git config core.fsmonitor "touch $m/fsmonitor; false"
	git config alias.st "!touch $m/alias"
	echo '*.txt filter=evil' >.git/info/attributes
	git config filter.evil.clean "touch $m/filter; cat"
	printf '#!/bin/sh\ntouch %s/hooks-path\n' "$m" >"$evil/post-checkout"
	chmod +x "$evil/post-checkout"
	git config core.hooksPath "$evil"
	printf '[diff]\n\texternal = touch %s/config-worktree; true\n' "$m" >.git/config.worktree
	git config extensions.worktreeConfig true
	printf '#!/bin/sh\ntouch %s/sub-hook\n' "$m" >.git/modules/sub/hooks/pre-commit
	chmod +x .git/modules/sub/hooks/pre-commit
	git -C sub config core.fsmonitor "touch $m/sub-fsmonitor; false"
	return 0
}

# plant_redirect MARKDIR: git directories of the command's making, each with a core.fsmonitor,
# named by the repository's commondir, the submodule's .git file and the worktree's commondir.
plant_redirect() {
	local m=$1 name
	for name in common sub worktree; do
		rm -rf "$TMPDIR/evil-$name"
		git init -q "$TMPDIR/evil-$name"
		git -C "$TMPDIR/evil-$name" config core.fsmonitor "touch $m/redirect-$name; false"
	done
	echo "$TMPDIR/evil-common/.git" >.git/commondir
	echo "gitdir: $TMPDIR/evil-sub/.git" >sub/.git
	echo "$TMPDIR/evil-worktree/.git" >.git/worktrees/wt/commondir
	return 0
}

# The user's plain git afterwards, each command one that would run one of the plants (the
# repository's own hooks are asked for by name where a planted hooks path would hide them).
plain_git() {
	local dir=$1 own=(-c core.hooksPath=.git/hooks)
	git -C "$dir" status --short
	git -C "$dir" st
	echo x >"$dir/new.txt"
	git -C "$dir" add new.txt
	git -C "$dir" "${own[@]}" checkout -q -b "probe-$BATS_TEST_NUMBER"
	git -C "$dir" "${own[@]}" commit -q -m probe
	git -C "$dir" checkout -q -b "probe-$BATS_TEST_NUMBER-2"
	echo b >>"$dir/a"
	git -C "$dir" diff
	git -C "$dir/sub" commit -q --allow-empty -m probe
	git -C "$dir/sub" status --short
	git -C "$dir/wt" status --short
	return 0
}

# The markers made, sorted, one a line.
marks() { ls "$1" | sort | tr '\n' ' '; }

@test "run 1 plants code for the next plain git: in git mode none of it runs" {
	export -f plant_code
	run gsbx bash -c "plant_code '$MARK'"
	echo "run 1: $output"
	[ "$status" -eq 0 ]
	plain_git "$WS" >/dev/null 2>&1 || true # (|| keeps set -e off: the plants' git may fail)
	echo "after run 1: $(marks "$MARK")"
	[ "$(marks "$MARK")" = "" ]
	# The control: the same plants outside the sandbox, in a repository laid out the same way.
	make_git_repo "$BASE/control-$BATS_TEST_NUMBER" "$BASE/lib"
	(cd "$BASE/control-$BATS_TEST_NUMBER" && plant_code "$MARK") >/dev/null 2>&1
	plain_git "$BASE/control-$BATS_TEST_NUMBER" >/dev/null 2>&1 || true
	echo "control: $(marks "$MARK")"
	[ "$(marks "$MARK")" = "alias config-worktree filter fsmonitor hook-post-checkout hook-pre-commit hooks-path sub-fsmonitor sub-hook " ]
}

@test "run 1 points git at git directories of its own: in git mode it cannot" {
	export -f plant_redirect
	run gsbx bash -c "plant_redirect '$MARK'"
	echo "run 1: $output"
	[ "$status" -eq 0 ]
	[ ! -e "$G/commondir" ]
	[ "$(cat "$WS/.git/worktrees/wt/commondir")" = ../.. ]
	plain_git "$WS" >/dev/null 2>&1 || true # (|| keeps set -e off: the plants' git may fail)
	echo "after run 1: $(marks "$MARK")"
	[ "$(marks "$MARK")" = "" ]
	make_git_repo "$BASE/control-$BATS_TEST_NUMBER" "$BASE/lib"
	(cd "$BASE/control-$BATS_TEST_NUMBER" && TMPDIR=$BASE/control-tmp plant_redirect "$MARK") \
		>/dev/null 2>&1
	plain_git "$BASE/control-$BATS_TEST_NUMBER" >/dev/null 2>&1 || true
	echo "control: $(marks "$MARK")"
	[ "$(marks "$MARK")" = "redirect-common redirect-sub redirect-worktree " ]
}

@test "run 1 makes a submodule's git directory of its own: run 2 keeps its hooks and config" {
	run gsbx sh -c "mkdir -p '$G/modules/new/hooks' '$G/modules/new/objects' \
		'$G/modules/new/refs' '$G/modules/half' '$G/modules/junk/objects' \
		'$G/modules/junk/refs' && echo '[core]' >'$G/modules/new/config' &&
		echo 'ref: refs/heads/main' >'$G/modules/new/HEAD' &&
		echo junk >'$G/modules/junk/HEAD'"
	# Git mode's end-of-run check says what run 1 made there (exit 1).
	[ "$status" -eq 1 ]
	[[ $output == *"sbxrun: git mode: the command made $G/modules/new, a git directory for a submodule"* ]]
	[[ $output == *"sbxrun: git mode: the command made $G/modules/half, a git directory for a submodule"* ]]
	# It lacks a commondir and a config.worktree: run 2 masks them.
	gexpect EROFS write "$G/modules/new/hooks/pre-commit"
	gexpect EROFS append "$G/modules/new/config"
	gexpect EROFS write "$G/modules/new/commondir"
	gexpect EROFS write "$G/modules/new/config.worktree"
	gexpect OK write "$G/modules/new/index"
	[ ! -e "$G/modules/new/commondir" ]
	[ ! -e "$G/modules/new/config.worktree" ]
	# Without HEAD, or with one git rejects, it is no git directory yet: kept whole, so that
	# run 2 cannot make it one.
	gexpect EROFS write "$G/modules/half/HEAD"
	gexpect EROFS write "$G/modules/half/config"
	gexpect EROFS write "$G/modules/junk/HEAD"
	gexpect EROFS write "$G/modules/junk/index"
	rm -rf "$G/modules/new" "$G/modules/half" "$G/modules/junk"
}

@test "run 1 spoils the repository's HEAD: run 2 still keeps the submodule's and worktree's .git" {
	# The layout is the file's: teardown puts the HEAD back, whatever fails.
	cp "$G/HEAD" "$BASE/head-$BATS_TEST_NUMBER"
	# Control: with the HEAD git wrote, the checkouts' .git files are kept, the rest writable.
	gexpect EROFS append "$WS/sub/.git"
	gexpect EROFS append "$WS/wt/.git"
	gexpect OK write "$WS/sub/spoil-$BATS_TEST_NUMBER"
	rm -f "$WS/sub/spoil-$BATS_TEST_NUMBER"
	# Run 1: a HEAD git rejects, so that git takes .git for no git directory any more.
	run gsbx sh -c "echo junk >'$G/HEAD'"
	echo "run 1: $status $output"
	[ "$status" -eq 0 ]
	# Run 2: what .git named is looked for still.
	gexpect EROFS append "$WS/sub/.git"
	gexpect EROFS append "$WS/wt/.git"
}

@test "run 1 plants a link among the git directories: run 2 refuses, naming it" {
	new_canary "$WS"
	run gsbx sh -c "mkdir -p '$TMPDIR/elsewhere/hooks' && ln -s '$TMPDIR/elsewhere' '$G/modules/planted'"
	[ "$status" -eq 1 ]
	[[ $output == "sbxrun: git mode: the command made $G/modules/planted (a symbolic link), a git directory for a submodule"* ]]
	run gsbx touch "$CANARY"
	refused "sbxrun: git mode: $G/modules/planted is a symbolic link: git would follow it to a git directory the command could swap"
	rm "$G/modules/planted"
	run gsbx touch "$CANARY"
	echo "without the link: $status $output"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

@test "run 1 makes more git directories than any repository has: run 2 refuses" {
	new_canary "$WS"
	run gsbx sh -c "for i in \$(seq 300); do mkdir -p '$G/worktrees/w'\$i; done"
	# More than git mode's check walks: said at the end of run 1.
	[ "$status" -eq 1 ]
	[[ $output == *"sbxrun: git mode: $G/worktrees cannot be checked after the run (more of them than sbxrun walks)"* ]]
	run gsbx touch "$CANARY"
	refused "sbxrun: git mode: more than 256 git directories (*): $G/worktrees/w* is one too*"
	[[ $output == *"hint: remove the ones no longer used from $G/worktrees "* ]]
	rm -rf "$G"/worktrees/w[0-9]*
	run gsbx touch "$CANARY"
	echo "without them: $status $output"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

# fresh_repo DIR: a repository as git init makes it, one commit, no hooks directory (an empty
# template): commondir, config.worktree and hooks all missing.
fresh_repo() {
	rm -rf "$1"
	mkdir -p "$1/tpl"
	git -c init.defaultBranch=main init -q --template="$1/tpl" "$1/repo"
	rmdir "$1/tpl"
	echo a >"$1/repo/a"
	git -C "$1/repo" add a
	git -C "$1/repo" commit -qm init
}

@test "run 1 creates commondir, config.worktree, hooks/pre-commit where missing: each fails, nothing is left" {
	local r="$BASE/fresh-$BATS_TEST_NUMBER/repo" before
	fresh_repo "$BASE/fresh-$BATS_TEST_NUMBER"
	WS=$r G=$r/.git
	[ ! -e "$G/commondir" ]
	[ ! -e "$G/config.worktree" ]
	[ ! -e "$G/hooks" ]
	before=$(cd "$G" && find . | sort)
	# The control first: outside the sandbox each plant is made (and undone).
	outside write "$G/commondir"
	rm "$G/commondir"
	outside write "$G/config.worktree"
	rm "$G/config.worktree"
	outside mkdir "$G/hooks"
	rmdir "$G/hooks"
	# Run 1, each plant with its exact errno: the masks are read-only, and mount points.
	gexpect EROFS write "$G/commondir"
	gexpect EROFS write "$G/config.worktree"
	gexpect EROFS write "$G/hooks/pre-commit"
	gexpect EROFS mkdir "$G/hooks/x"
	touch "$G/planted"
	gexpect EBUSY rename "$G/planted" "$G/commondir"
	gexpect EBUSY rename "$G/planted" "$G/config.worktree"
	rm "$G/planted"
	run gsbx sh -c "echo '$TMPDIR/evil/.git' >'$G/commondir'; echo \$?"
	[[ "$output" == *"Read-only file system"* ]]
	run gsbx sh -c "printf '[core]\\n\\thooksPath = $TMPDIR\\n' >'$G/config.worktree'"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	# Inside, git sees what it sees without them: commondir "." is the git directory itself.
	run gsbx git -C "$r" rev-parse --git-common-dir
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cd "$r" && realpath "$output")" = "$(realpath "$G")" ]
	# Positive control: the commit works in the same runs, and run 2 is as strict.
	echo b >>"$r/a"
	run gsbx -C "$r" git commit -qam two
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(git -C "$r" log --format=%s -1)" = two ]
	gexpect EROFS write "$G/commondir"
	# Nothing of the masks is left in .git: the same names as before, but the commit's.
	run sh -c "cd '$G' && find . | sort"
	[ "$(comm -13 <(echo "$before") <(echo "$output") | grep -v '^./objects/\|^./logs/\|^./refs/\|^./ORIG_HEAD$\|^./COMMIT_EDITMSG$\|^./index$')" = "" ]
	[ ! -e "$G/commondir" ]
	[ ! -e "$G/config.worktree" ]
	[ ! -e "$G/hooks" ]
}

@test "run 1 killed with SIGKILL leaves commondir and config.worktree points: run 2 takes them, then they go" {
	local r="$BASE/fresh-$BATS_TEST_NUMBER/repo" pid tag
	fresh_repo "$BASE/fresh-$BATS_TEST_NUMBER"
	WS=$r G=$r/.git
	# sbxrun itself in the background (it becomes the supervisor), so that the kill hits it once
	# its command, a sleep no other process has (every point is made by then), runs.
	tag="86394.$(printf %07d $$)$RANDOM"
	"$BIN/sbxrun" --allow-git -C "$WS" -w "$WS" -- sleep "$tag" 3>&- &
	pid=$!
	await_pgrep "sleep $tag"
	kill -KILL "$pid"
	wait "$pid" || true
	pkill -KILL -xf "sleep $tag" || true
	# The leftovers: exactly what a mount point holds, which git reads as no file at all.
	[ "$(cat "$G/commondir")" = . ]
	[ -f "$G/config.worktree" ]
	[ ! -s "$G/config.worktree" ]
	[ -d "$G/hooks" ]
	[ -z "$(ls -A "$G/hooks")" ]
	# Run 2 takes them as the names missing: masked, and removed after it.
	gexpect EROFS write "$G/commondir"
	[ ! -e "$G/commondir" ]
	[ ! -e "$G/config.worktree" ]
	[ ! -e "$G/hooks" ]
	# A commondir that is not exactly a point's is the user's: kept read-only, never removed.
	printf '.' >"$G/commondir"
	gexpect EROFS write "$G/commondir"
	[ "$(cat "$G/commondir")" = . ]
	rm "$G/commondir"
}

@test "an empty read-only hooks directory the user made is masked and kept: only a marked point goes" {
	local r="$BASE/fresh-$BATS_TEST_NUMBER/repo" ino
	fresh_repo "$BASE/fresh-$BATS_TEST_NUMBER"
	WS=$r G=$r/.git
	# The user's own, empty, mode 0555: no leftover of a killed run (those carry the sticky
	# bit), though it looks like one in every other way.
	mkdir -m 0555 "$G/hooks"
	ino=$(stat -c %i "$G/hooks")
	# Control: outside, the user (root aside) cannot write into it either.
	if [ "$SBX_USER" != root ]; then
		run "$P" write "$G/hooks/pre-commit"
		[ "$output" = EACCES ]
	fi
	# Run 1 plants a hook: masked, with the exact errno; the commit in the same run works.
	gexpect EROFS write "$G/hooks/pre-commit"
	echo b >>"$r/a"
	run gsbx -C "$r" git commit -qam two
	[ "$status" -eq 0 ]
	# After it, and after run 2, the user's directory is there, the same one (before: removed
	# after run 1 as a leftover point).
	[ "$(stat -c %i:%a "$G/hooks")" = "$ino:555" ]
	gexpect EROFS mkdir "$G/hooks/x"
	[ "$(stat -c %i:%a "$G/hooks")" = "$ino:555" ]
	[ -z "$(ls -A "$G/hooks")" ]
	# Positive control: a point as sbxrun makes it (mode 01555), left by a killed run, is
	# masked and removed.
	rmdir "$G/hooks"
	mkdir -m 1555 "$G/hooks"
	gexpect EROFS write "$G/hooks/pre-commit"
	[ ! -e "$G/hooks" ]
}

@test "run 1 pads a git directory's config or commondir past what sbxrun reads: run 2 refuses, naming it" {
	local small="$G/modules/small-$BATS_TEST_NUMBER" big="$G/modules/big-$BATS_TEST_NUMBER"
	local large="$G/modules/large-$BATS_TEST_NUMBER"
	local wt="$G/worktrees/pad-$BATS_TEST_NUMBER" mk
	new_canary "$WS"
	# Run 1 makes three submodule git directories of its own, each naming a checkout of its
	# own: one config as git writes it, one with the same core.worktree after 100 KB of
	# comments (a clone with many remotes and branches has such a config), one after 1.1 MB.
	mk="mkdir -p '$WS/smallco' '$WS/largeco' '$WS/bigco'"
	mk="$mk && echo x >'$WS/smallco/.git' && echo x >'$WS/largeco/.git' && echo x >'$WS/bigco/.git'"
	for d in "$small" "$large" "$big"; do
		mk="$mk && mkdir -p '$d/objects' '$d/refs' && echo 'ref: refs/heads/main' >'$d/HEAD'"
	done
	mk="$mk && printf '[core]\\n\\tworktree = ../../../smallco\\n' >'$small/config'"
	mk="$mk && { head -c 100000 /dev/zero | tr '\\0' '#'; printf '\\n[core]\\n\\tworktree = ../../../largeco\\n'; } >'$large/config'"
	mk="$mk && { head -c 1100000 /dev/zero | tr '\\0' '#'; printf '\\n[core]\\n\\tworktree = ../../../bigco\\n'; } >'$big/config'"
	run gsbx sh -c "$mk"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	[[ $output == *"sbxrun: git mode: the command made $big, a git directory for a submodule"* ]]
	[ "$(stat -c %s "$large/config")" -gt 65536 ]
	[ "$(stat -c %s "$big/config")" -gt 1048576 ]
	# Git reads the padded ones whole: each names its checkout as the short one does.
	[ "$(git config --file "$large/config" core.worktree)" = ../../../largeco ]
	[ "$(git config --file "$big/config" core.worktree)" = ../../../bigco ]
	# Run 2 cannot tell what the one past 1 MiB names: refused, naming the file and the limit.
	run gsbx touch "$CANARY"
	refused "sbxrun: $big/config: it is over 1048576 bytes, the most sbxrun reads of a git config, so sbxrun cannot tell which checkout it names (core.worktree)"
	[[ "${lines[0]}" == *"; hint: the .git of that checkout must be protected: shorten the file (a remote or branch no longer used is a section git config --remove-section drops), or remove the whole git directory if it is no repository of yours" ]]
	# Control: without it, the short one's checkout is kept, and so is the 100 KB one's.
	rm -rf "$big"
	gexpect EROFS append "$WS/smallco/.git"
	gexpect EROFS append "$WS/largeco/.git"
	gexpect OK append "$WS/bigco/.git"
	# A worktree's commondir padded with the newlines git drops: git still takes the path.
	run gsbx sh -c "mkdir -p '$wt/objects' '$wt/refs' && echo 'ref: refs/heads/main' >'$wt/HEAD' && { printf '%s' '$G'; head -c 5000 /dev/zero | tr '\\0' '\\n'; } >'$wt/commondir'"
	echo "run 1: $status $output"
	[ "$status" -eq 0 ]
	[ "$(git --git-dir="$wt" rev-parse --git-common-dir)" = "$G" ]
	run gsbx touch "$CANARY"
	refused "sbxrun: $wt/commondir is over 4096 bytes, the most sbxrun reads of a file git keeps one path in: it cannot tell what the file names"
	[[ "${lines[0]}" == *"; hint: it names the git directory whose hooks and config must be protected; write there the one line git writes, or remove it" ]]
	rm -rf "$wt" "$small" "$large" "$WS/smallco" "$WS/largeco" "$WS/bigco"
	run gsbx touch "$CANARY"
	echo "without them: $status $output"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
	rm -f "$CANARY"
}
