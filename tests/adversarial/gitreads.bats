#!/usr/bin/env bats
# What git reads from a protected git directory, wherever it lies: a hooks directory, a config,
# a commondir reached through a symbolic link there, and the files a config includes
# (include.path, includeIf). The git directory itself is read-only; what it leads to, inside a
# writable root, was not: run 1 could plant a hook or a core.fsmonitor there that the user's next
# plain git runs, outside any sandbox. The links and includes are the host user's (a project's
# setup: git config include.path ../.gitconfig); run 1 is the hostile command, run 2 must hold.
load common

setup() {
	make_layout_vars
	git_env
	R="$BASE/repo-$BATS_TEST_NUMBER"
	rm -rf "$R"
	mkdir -p "$BASE"
	git init -q -b main "$R"
	git -C "$R" commit -q --allow-empty -m init
	new_canary "$R"
}

teardown() { rm -rf "$R" "$R-wt" "$R-lnk" "$R-lnk2" "$R-lnk3" "$R-x.cfg"; }

# psbx CMD...: sbxrun with :workspace in the repository, without git mode.
psbx() { "$BIN/sbxrun" -C "$R" -w "$R" -- "$@"; }
# pexpect ERRNO OP ARG...: the probe there prints exactly ERRNO (or OK).
pexpect() {
	local want=$1
	shift
	run psbx "$P" "$@"
	echo "probe $* -> $output (want $want)"
	[ "$output" = "$want" ]
}

@test "a .git/hooks link into the workspace: run 1 cannot plant a hook there, run 2's git runs none" {
	mkdir "$R/githooks"
	rmdir "$R/.git/hooks" 2>/dev/null || rm -rf "$R/.git/hooks"
	ln -s ../githooks "$R/.git/hooks"
	# Outside, the link is git's hooks directory: a hook there runs.
	printf '#!/bin/sh\ntouch %s\n' "$R/outside-hook" >"$R/githooks/post-commit"
	chmod +x "$R/githooks/post-commit"
	git -C "$R" commit -q --allow-empty -m outside
	[ -e "$R/outside-hook" ]
	rm "$R/githooks/post-commit"
	# Run 1 writes through the link and at its target.
	pexpect EROFS write "$R/.git/hooks/pre-commit"
	pexpect EROFS write "$R/githooks/pre-commit"
	run psbx sh -c "printf '#!/bin/sh\ntouch $CANARY\n' >'$R/githooks/post-commit'"
	[ "$status" -ne 0 ]
	[ ! -e "$R/githooks/post-commit" ]
	# Run 2, then the user's plain git: nothing runs.
	pexpect EROFS write "$R/githooks/post-commit"
	git -C "$R" commit -q --allow-empty -m probe
	[ ! -e "$CANARY" ]
	# Git mode keeps hooks/ itself, which is the link: the run is refused.
	run "$BIN/sbxrun" --allow-git -C "$R" -w "$R" -- touch "$CANARY"
	refused "sbxrun: git mode: $R/.git/hooks is a symbolic link, which git follows: *"
	# Positive control: beside it the repository's working tree is the command's.
	pexpect OK write "$R/other-file"
	pexpect OK mkdir "$R/githooks-not"
}

# A nested repository's hooks/ is a plain directory to a run started above it: run 1 there links
# a hook to a script of the repository's work tree, harmless for now. Run 2, in the repository,
# keeps its git directory read-only, the link with it: what the link leads to must be too, or
# run 2 rewrites the hook the user's next plain git runs.
@test "a hook linked into the work tree by run 1 above a nested repository: run 2 cannot rewrite it" {
	local p="$R-lnk" a="$R-lnk/A"
	mkdir -p "$p"
	git init -q -b main "$a"
	git -C "$a" commit -q --allow-empty -m init
	# Run 1, above A: A/.git is a plain nested directory, writable.
	run "$BIN/sbxrun" -C "$p" -w "$p" -- sh -c "mkdir '$a/tools' &&
		printf '#!/bin/sh\ntrue\n' >'$a/tools/hook.sh' && chmod +x '$a/tools/hook.sh' &&
		ln -s ../../tools/hook.sh '$a/.git/hooks/post-commit'"
	[ "$status" -eq 0 ]
	# Run 2, in A: the hook's script is kept read-only where it lies, and explain says so.
	run "$BIN/sbxrun" -C "$a" -w "$a" -- sh -c "echo 'touch $CANARY' >>'$a/tools/hook.sh'"
	[ "$status" -ne 0 ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- "$P" append "$a/tools/hook.sh"
	[ "$output" = EROFS ]
	# So in git mode, where hooks/ is kept read-only alone.
	run "$BIN/sbxrun" --allow-git -C "$a" -w "$a" -- "$P" append "$a/tools/hook.sh"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" explain -C "$a" -w "$a" -- true
	[[ "$output" == *"read-only $a/tools/hook.sh "*"enforced"* ]]
	# The user's next plain git runs the hook as run 1 left it.
	git -C "$a" commit -q --allow-empty -m outside
	[ ! -e "$CANARY" ]
	# Positive control: the rest of the work tree is the command's.
	run "$BIN/sbxrun" -C "$a" -w "$a" -- "$P" write "$a/tools/other.sh"
	[ "$output" = OK ]
	# A hook linked to nothing, or through a link in the work tree (which run 2 could
	# repoint): refused, named.
	run "$BIN/sbxrun" -C "$p" -w "$p" -- ln -s ../../tools/gone.sh "$a/.git/hooks/pre-push"
	[ "$status" -eq 0 ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- touch "$CANARY"
	refused "sbxrun: $a/.git/hooks/pre-push is a symbolic link to nothing there is: *"
	run "$BIN/sbxrun" -C "$p" -w "$p" -- sh -c "rm '$a/.git/hooks/pre-push' &&
		ln -s tools '$a/tl' && ln -s ../../tl/hook.sh '$a/.git/hooks/pre-push'"
	[ "$status" -eq 0 ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- touch "$CANARY"
	refused "sbxrun: $a/.git/hooks/pre-push is a symbolic link that git follows through $a/tl, inside a writable root: *"
	# hooks/ itself a link into the work tree (kept read-only), a hook there linked to a script:
	# the script is kept too, and the run starts.
	rm -rf "$a/tl" "$a/.git/hooks"
	mkdir "$a/githooks"
	ln -s ../tools/hook.sh "$a/githooks/post-commit"
	ln -s ../githooks "$a/.git/hooks"
	run "$BIN/sbxrun" -C "$a" -w "$a" -- "$P" append "$a/tools/hook.sh"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- "$P" write "$a/tools/other.sh"
	[ "$output" = OK ]
	rm -rf "$p"
}

# The project's own setup (ln -s ../../scripts/pre-commit .git/hooks/pre-commit), which git
# follows: run 1 must not rewrite the script, by its name or through the link, in either mode. A
# hook linked to a directory keeps the directory whole (run 1 would otherwise put a script at its
# name); git's examples (*.sample) run nothing and are passed over, even linked to nothing.
@test "a hook the project linked into the working tree: run 1 cannot rewrite what it leads to, in either mode" {
	mkdir "$R/scripts" "$R/hookdir"
	printf '#!/bin/sh\ntouch %s\n' "$R/outside-hook" >"$R/scripts/pre-commit"
	chmod +x "$R/scripts/pre-commit"
	ln -s ../../scripts/pre-commit "$R/.git/hooks/pre-commit"
	# Outside, git runs what the link leads to.
	git -C "$R" commit -q --allow-empty -m outside
	[ -e "$R/outside-hook" ]
	# Run 1, in either mode, by its name or through the link.
	pexpect EROFS append "$R/scripts/pre-commit"
	pexpect EROFS append "$R/.git/hooks/pre-commit"
	pexpect EBUSY rename "$R/scripts" "$R/scripts2"
	run "$BIN/sbxrun" --allow-git -C "$R" -w "$R" -- "$P" append "$R/scripts/pre-commit"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --allow-git -C "$R" -w "$R" -- "$P" append "$R/.git/hooks/pre-commit"
	[ "$output" = EROFS ]
	# Run 2, then the user's plain git commit: nothing planted runs.
	run psbx sh -c "echo 'touch $CANARY' >>'$R/scripts/pre-commit'"
	[ "$status" -ne 0 ]
	git -C "$R" commit -q --allow-empty -m probe
	[ ! -e "$CANARY" ]
	# A hook linked to a directory: kept whole, neither written in nor removed.
	ln -s ../../hookdir "$R/.git/hooks/post-commit"
	pexpect EROFS write "$R/hookdir/x"
	pexpect EBUSY rename "$R/hookdir" "$R/hookdir2"
	rm "$R/.git/hooks/post-commit"
	# Git's examples, even linked to nothing: passed over, the run starts.
	ln -s ../../scripts/nothing "$R/.git/hooks/post-commit.sample"
	pexpect OK write "$R/scripts/other"
	# Positive control: with no hook linked to it, the directory is the command's.
	pexpect OK write "$R/hookdir/x"
}

@test "a .git/config link into the workspace: run 1 cannot set core.fsmonitor through it" {
	mv "$R/.git/config" "$R/cfg"
	ln -s ../cfg "$R/.git/config"
	[ "$(git -C "$R" config core.bare)" = false ]
	pexpect EROFS append "$R/.git/config"
	pexpect EROFS append "$R/cfg"
	run psbx git config core.fsmonitor "touch $CANARY; false"
	[ "$status" -ne 0 ]
	run git -C "$R" config core.fsmonitor
	[ "$output" = "" ]
	git -C "$R" status --short
	[ ! -e "$CANARY" ]
	# Positive control: the file beside it is the command's.
	pexpect OK write "$R/a-file"
}

@test "a worktree's commondir linked to a file in the workspace: run 1 cannot repoint it" {
	git -C "$R" worktree add -q "$R-wt"
	local wd="$R/.git/worktrees/${R##*/}-wt"
	mv "$wd/commondir" "$R/cd"
	echo "$R/.git" >"$R/cd"
	ln -s ../../../cd "$wd/commondir"
	[ "$(git -C "$R-wt" rev-parse --git-common-dir)" = "$R/.git" ]
	pexpect EROFS append "$R/cd"
	pexpect EROFS write "$wd/commondir"
	# Positive control.
	pexpect OK write "$R/cd2"
}

@test "include.path ../.gitconfig: run 1 cannot set core.hooksPath or core.fsmonitor in it" {
	echo '[user]' >"$R/.gitconfig"
	git -C "$R" config include.path ../.gitconfig
	# Outside, the include is read.
	git config -f "$R/.gitconfig" core.fsmonitor "touch $R/outside-fsmonitor; false"
	git -C "$R" status --short
	[ -e "$R/outside-fsmonitor" ]
	git config -f "$R/.gitconfig" --unset core.fsmonitor
	pexpect EROFS append "$R/.gitconfig"
	run psbx git config -f "$R/.gitconfig" core.fsmonitor "touch $CANARY; false"
	[ "$status" -ne 0 ]
	git -C "$R" status --short
	[ ! -e "$CANARY" ]
	# Git mode keeps the repository's config read-only, and what it includes with it.
	run "$BIN/sbxrun" --allow-git -C "$R" -w "$R" -- "$P" append "$R/.gitconfig"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --allow-git -C "$R" -w "$R" -- "$P" append "$R/.git/config"
	[ "$output" = EROFS ]
	# Positive control: a config of the same name elsewhere in the workspace is the command's.
	pexpect OK write "$R/sub.gitconfig"
	run "$BIN/sbxrun" --allow-git -C "$R" -w "$R" -- "$P" write "$R/.git/description"
	[ "$output" = OK ]
}

@test "includeIf and what an included file includes: each is kept, a missing one cannot be made" {
	mkdir "$R/conf"
	printf '[include]\n\tpath = second.cfg\n' >"$R/conf/first.cfg"
	echo '[user]' >"$R/conf/second.cfg"
	git -C "$R" config 'includeIf.gitdir:/.path' "$R/conf/first.cfg"
	git -C "$R" config --add 'includeIf.onbranch:other.path' ../conf/missing.cfg
	pexpect EROFS append "$R/conf/first.cfg"
	pexpect EROFS append "$R/conf/second.cfg"
	# Run 1 makes the one included on another branch: it cannot.
	run psbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY; false\n' >'$R/conf/missing.cfg'"
	[ "$status" -ne 0 ]
	[ ! -e "$R/conf/missing.cfg" ]
	pexpect EROFS write "$R/conf/missing.cfg"
	git -C "$R" checkout -q -b other
	git -C "$R" status --short
	[ ! -e "$CANARY" ]
	# Positive control: beside them the directory is the command's.
	pexpect OK write "$R/conf/third.cfg"
}

# Git reads a config as an editor on Windows may leave it: a byte order mark at its start, CRLF
# line ends (a backslash before one continues the line), and it drops the blanks after an empty
# "". sbxrun took the first include of such a file for none, the next for a path beginning with
# blanks, and stopped at the continued line: run 1 could set core.fsmonitor in each.
@test "a config with a byte order mark, CRLF, a continued line: what it includes is kept" {
	printf '[rv]\n\tx = a\n' >"$R/a.cfg"
	printf '[rv]\n\tx = b\n' >"$R/b.cfg"
	printf '[rv]\n\tx = c\n' >"$R/c.cfg"
	{
		printf '\357\273\277[include]\r\n\tpath = ../a.cfg\r\n'
		cat "$R/.git/config"
		printf '[include]\r\n\tpath = "" ../b.cfg\r\n\tpath = ../c\\\r\n.cfg\r\n'
	} >"$R/cfg"
	mv "$R/cfg" "$R/.git/config"
	# Outside, git includes all three.
	run git -C "$R" config --get-all rv.x
	[ "$output" = "$(printf 'a\nb\nc')" ]
	pexpect EROFS append "$R/a.cfg"
	pexpect EROFS append "$R/b.cfg"
	pexpect EROFS append "$R/c.cfg"
	run psbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY; false\n' >>'$R/c.cfg'"
	[ "$status" -ne 0 ]
	git -C "$R" status --short
	[ ! -e "$CANARY" ]
	# Positive control: a file beside them is the command's.
	pexpect OK write "$R/d.cfg"
}

@test "an include through a link in the workspace, a dangling hooks link: refused, named" {
	echo '[user]' >"$R/real.cfg"
	ln -s real.cfg "$R/linked.cfg"
	git -C "$R" config include.path ../linked.cfg
	run psbx touch "$CANARY"
	refused "sbxrun: $R/.git/config includes $R/linked.cfg, a symbolic link *"
	git -C "$R" config --unset include.path
	rm -rf "$R/.git/hooks"
	ln -s ../nohooks "$R/.git/hooks"
	run psbx touch "$CANARY"
	refused "sbxrun: $R/.git/hooks is a symbolic link to nothing there is: *"
	# Positive control: without the link the run starts.
	rm "$R/.git/hooks"
	run psbx touch "$CANARY"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

@test "a submodule's or a worktree's git directory linked into the workspace: refused, named" {
	mkdir -p "$R/.git/modules" "$R/evil"
	git init -q "$R/evil/sub"
	ln -s ../../evil/sub/.git "$R/.git/modules/sub"
	run psbx touch "$CANARY"
	refused "sbxrun: $R/.git/modules/sub is a symbolic link among git directories*"
	rm "$R/.git/modules/sub"
	mkdir -p "$R/.git/worktrees"
	ln -s ../../evil/sub/.git "$R/.git/worktrees/w"
	run psbx touch "$CANARY"
	refused "sbxrun: $R/.git/worktrees/w is a symbolic link among git directories*"
	rm "$R/.git/worktrees/w"
	# Positive control: without the links the run starts.
	run psbx touch "$CANARY"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

# An include named through a link outside the writable roots ($R-lnk, the host user's: read-only
# to the command) that leads into the workspace: git reads the file where the link leads, and
# joins a relative include of that file to the link, which the kernel resolves before the "..".
# sbxrun kept the names as written, which the command cannot write, and left the files git
# reads writable: run 1 set core.fsmonitor in one, and made the missing one.
@test "includes through a read-only link into the workspace: kept where they are, one missing is not made" {
	mkdir "$R/team" "$R/team2"
	printf '[include]\n\tpath = ../common.cfg\n' >"$R/team/team.cfg"
	echo '[user]' >"$R/common.cfg"
	ln -s "$R/team" "$R-lnk"
	ln -s "$R/team2" "$R-lnk2"
	git -C "$R" config include.path "$R-lnk/team.cfg"
	git -C "$R" config --add include.path "$R-lnk2/missing.cfg"
	# Outside, git reads the file where the link leads, and what it includes from there.
	git config -f "$R/common.cfg" rv.x common
	[ "$(git -C "$R" config rv.x)" = common ]
	pexpect EROFS append "$R/team/team.cfg"
	pexpect EROFS append "$R/common.cfg"
	pexpect EROFS write "$R/team2/missing.cfg"
	pexpect EROFS write "$R-lnk2/missing.cfg"
	# Run 1 sets core.fsmonitor in each, and makes the missing one: it cannot.
	run psbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY; false\n' >>'$R/team/team.cfg'"
	[ "$status" -ne 0 ]
	run psbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY; false\n' >>'$R/common.cfg'"
	[ "$status" -ne 0 ]
	run psbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY; false\n' >'$R/team2/missing.cfg'"
	[ "$status" -ne 0 ]
	[ ! -e "$R/team2/missing.cfg" ]
	# Run 2, then the user's plain git: nothing runs.
	pexpect EROFS append "$R/team/team.cfg"
	git -C "$R" status --short
	[ ! -e "$CANARY" ]
	# Positive control: beside them the directories are the command's.
	pexpect OK write "$R/team/other.cfg"
	pexpect OK write "$R/team2/other.cfg"
	pexpect OK write "$R/other.cfg"
}

# A missing include whose directory is a read-only link to nothing there is: the command could
# make the directory it leads to, and the file in it. It cannot be denied where it will be: refused.
@test "a missing include through a read-only link to nothing there is: refused, named" {
	ln -s "$R/nodir" "$R-lnk3"
	git -C "$R" config include.path "$R-lnk3/missing.cfg"
	run psbx touch "$CANARY"
	refused "sbxrun: $R/.git/config includes $R-lnk3/missing.cfg, which is missing, through the symbolic link $R-lnk3 to nothing there is: *"
	# Positive control: with the directory made, the run starts and cannot make the file.
	mkdir "$R/nodir"
	pexpect EROFS write "$R/nodir/missing.cfg"
	pexpect OK write "$R/nodir/other.cfg"
	# The include's own name a read-only link to a file missing in the workspace: refused.
	ln -s "$R/nofile.cfg" "$R-x.cfg"
	git -C "$R" config include.path "$R-x.cfg"
	run psbx touch "$CANARY"
	refused "sbxrun: $R/.git/config includes $R-x.cfg, which is missing, through the symbolic link $R-x.cfg to nothing there is: *"
	# Positive control: with the file made, it is kept read-only where it is.
	echo '[user]' >"$R/nofile.cfg"
	pexpect EROFS append "$R/nofile.cfg"
	pexpect OK write "$R/nofile2.cfg"
}
