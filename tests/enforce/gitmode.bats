#!/usr/bin/env bats
# Git mode (--allow-git) on real repositories: the workspace is a repository with a submodule
# and a linked worktree inside it, its remote a bare repository outside every writable root.
# Git's everyday commands work; what makes git run code or look elsewhere stays git's own, each
# refusal with its errno beside the same write succeeding outside the sandbox. Nothing is prepared:
# a kept name that is missing (commondir, config.worktree, hooks) is masked on a mount point made
# on the host for the run and removed after it, so nothing of the run is left in .git.
load common

setup_file() {
	make_layout_vars
	git_env
	rm -rf "$BASE"
	mkdir -p "$BASE" "$OUT"
	local g=(git -c init.defaultBranch=main)
	"${g[@]}" init -q --bare "$BASE/remote.git"
	make_git_repo "$WS" "$BASE/lib"
	"${g[@]}" -C "$WS" remote add origin "$BASE/remote.git"
	"${g[@]}" -C "$WS" push -q origin main
	# Something for fetch to bring: a commit pushed from elsewhere.
	"${g[@]}" clone -q "$BASE/remote.git" "$BASE/other"
	"${g[@]}" -C "$BASE/other" commit -q --allow-empty -m upstream
	"${g[@]}" -C "$BASE/other" push -q origin main
}

setup() {
	make_layout_vars
	git_env
	G="$WS/.git"
	PROFILE=$(profile restricted $(workspace_entries))
}

# git_names: every name git mode keeps that lies in a git directory of the workspace, missing or
# not, with its type: what the host holds there.
git_names() {
	local d f
	for d in "$G" "$G"/modules/* "$G"/worktrees/*; do
		for f in commondir config config.worktree hooks gitdir; do
			if [ -e "$d/$f" ]; then
				echo "$d/$f $(stat -c %F "$d/$f")"
			fi
		done
	done
}

@test "commit, checkout -b, stash, gc, fetch, worktree add: all work in git mode" {
	local before
	before=$(git_names)
	# Nothing prepared: the repository as git made it, commondir and config.worktree missing.
	[ ! -e "$G/commondir" ]
	[ ! -e "$G/config.worktree" ]
	run gsbx sh -ec '
		echo b >>a
		git commit -qam two
		git checkout -qb feature
		echo c >>a
		git stash -q
		test "$(cat a)" = "a
b"
		git stash pop -q
		git commit -qam three
		git gc -q
		git fetch -q origin
		git worktree add -q wt2
		echo ok'
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	[ "$(git -C "$WS" log --format=%s -2)" = "three
two" ]
	[ "$(git -C "$WS" branch --show-current)" = feature ]
	[ "$(git -C "$WS" log --format=%s -1 origin/main)" = upstream ]
	[ "$(git -C "$WS" stash list)" = "" ]
	[ -e "$WS/wt2/a" ]
	[ -d "$G/worktrees/wt2" ]
	# Nothing of the masks is left on the host: the same names as before, and wt2's own.
	[ "$(git_names | grep -v /worktrees/wt2/)" = "$before" ]
	[ "$(git_names | grep /worktrees/wt2/ | sed "s|$G/||")" = "worktrees/wt2/commondir regular file
worktrees/wt2/gitdir regular file" ]
	# The new worktree's git directory is kept from the next run on: its config.worktree is
	# masked where it is missing, its gitdir read-only.
	gexpect EROFS write "$G/worktrees/wt2/config.worktree"
	gexpect EROFS append "$G/worktrees/wt2/gitdir"
	[ ! -e "$G/worktrees/wt2/config.worktree" ]
	# The remote, outside every writable root, was only read.
	[ "$(git -C "$BASE/remote.git" log --format=%s -1 main)" = upstream ]
	run gsbx git push -q origin feature
	[ "$status" -ne 0 ]
	run git -C "$BASE/remote.git" rev-parse -q --verify feature
	[ "$status" -eq 1 ]
}

@test "the worktree and the submodule commit too" {
	run gsbx -C "$WS/wt" sh -ec 'echo w >>a; git commit -qam in-worktree'
	[ "$status" -eq 0 ]
	[ "$(git -C "$WS/wt" log --format=%s -1)" = in-worktree ]
	run gsbx -C "$WS/sub" sh -ec 'echo s >s; git add s; git commit -qm in-submodule'
	[ "$status" -eq 0 ]
	[ "$(git -C "$WS/sub" log --format=%s -1)" = in-submodule ]
}

@test "the control: without git mode .git stays read-only (EROFS), git commit fails" {
	expect EROFS write "$G/index.lock"
	run sbx git commit -q --allow-empty -m no
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	gexpect OK write "$G/probe"
	rm "$G/probe"
}

@test "hooks: the repository's, the submodule's, the worktree's common ones (EROFS)" {
	local h
	for h in "$G/hooks/pre-commit" "$G/modules/sub/hooks/x"; do
		outside write "$h"
		rm "$h"
		gexpect EROFS write "$h"
	done
	# From the worktree, its hooks are the common directory's.
	run gsbx -C "$WS/wt" "$P" write "$G/hooks/post-checkout"
	[ "$output" = EROFS ]
	gexpect EROFS mkdir "$G/hooks/sub"
	gexpect EBUSY rename "$G/hooks" "$G/hooks.old"
	[ ! -e "$G/hooks/pre-commit" ]
	[ ! -e "$G/modules/sub/hooks/x" ]
}

@test "config: git config fails (EBUSY), each config file is EROFS" {
	local before
	before=$(cat "$G/config")
	run gsbx git config core.hooksPath "$TMPDIR/x"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Device or resource busy"* ]]
	run gsbx git config alias.x '!sh'
	[ "$status" -ne 0 ]
	[ "$(cat "$G/config")" = "$before" ]
	[ ! -e "$G/config.lock" ]
	gexpect EROFS append "$G/config"
	gexpect EROFS append "$G/modules/sub/config"
	touch "$G/config.new"
	gexpect EBUSY rename "$G/config.new" "$G/config"
	rm "$G/config.new"
	# The control: the same command outside the sandbox.
	git -C "$WS" config alias.x '!true'
	git -C "$WS" config --unset alias.x
}

@test "pointers: commondir, gitdir, the .git files of the worktree and the submodule (EROFS)" {
	local f saved
	for f in "$G/worktrees/wt/commondir" "$G/worktrees/wt/gitdir" "$WS/wt/.git" "$WS/sub/.git"; do
		saved=$(cat "$f")
		outside append "$f"
		printf '%s\n' "$saved" >"$f"
		gexpect EROFS append "$f"
		gexpect EROFS truncate "$f"
		[ "$(cat "$f")" = "$saved" ]
	done
	gexpect EBUSY rename "$WS/wt/.git" "$WS/wt/.git.old"
	gexpect EBUSY rename "$WS/sub" "$WS/sub.old"
}

@test "names git reads on demand: missing, masked (EROFS, EBUSY) and gone after; given, kept" {
	local f
	for f in "$G/commondir" "$G/config.worktree" "$G/modules/sub/commondir" \
		"$G/modules/sub/config.worktree" "$G/worktrees/wt/config.worktree"; do
		[ ! -e "$f" ]
		gexpect EROFS write "$f"
		gexpect EROFS append "$f"
		touch "$f.new"
		gexpect EBUSY rename "$f.new" "$f"
		rm "$f.new"
		gexpect EBUSY rename "$f" "$f.old"
		[ ! -e "$f" ]
		# The control: outside the sandbox the name can be created.
		outside write "$f"
		rm "$f"
	done
	# Inside, commondir reads "." (what git takes a missing one for), config.worktree nothing.
	run gsbx cat "$G/commondir" "$G/config.worktree" "$G/modules/sub/commondir"
	[ "$status" -eq 0 ]
	[ "$output" = ".
." ]
	# Given by the user (not what a mount point holds), one is kept read-only and stays.
	printf '[core]\n\tbare = false\n' >"$G/config.worktree"
	gexpect EROFS append "$G/config.worktree"
	gexpect EBUSY rename "$G/config.worktree" "$G/config.worktree.old"
	[ "$(cat "$G/config.worktree")" = "$(printf '[core]\n\tbare = false')" ]
	rm "$G/config.worktree"
}

@test "a missing hooks directory is masked: nothing can be planted in it, and it is gone after" {
	rm -rf "$G/modules/sub/hooks"
	outside mkdir "$G/modules/sub/hooks"
	rmdir "$G/modules/sub/hooks"
	gexpect EROFS mkdir "$G/modules/sub/hooks/x"
	gexpect EROFS write "$G/modules/sub/hooks/pre-commit"
	gexpect EBUSY rename "$G/modules/sub/hooks" "$G/modules/sub/hooks.old"
	[ ! -e "$G/modules/sub/hooks" ]
	mkdir "$G/modules/sub/hooks"
	touch "$G/modules/sub/hooks/pre-commit.sample"
	gexpect EROFS write "$G/modules/sub/hooks/pre-commit"
}

@test "what runs nothing stays writable: objects, refs, index, info/attributes" {
	gexpect OK write "$G/objects/probe"
	gexpect OK write "$G/refs/heads/probe"
	gexpect OK write "$G/info/attributes"
	gexpect OK write "$G/probe"
	gexpect OK write "$G/modules/sub/probe"
	gexpect OK write "$G/worktrees/wt/probe"
	rm "$G/objects/probe" "$G/refs/heads/probe" "$G/info/attributes" "$G/probe" \
		"$G/modules/sub/probe" "$G/worktrees/wt/probe"
	git -C "$WS" status --short >/dev/null
}
