#!/usr/bin/env bats
# Git mode (--allow-git) lets the command write the index and make git directories, as every
# commit does, so no mount can keep it from leaving what runs a program at the caller's next
# plain git: a submodule of its own (a gitlink and a repository, or a .git file naming one it
# made under .git/modules/), or a rebase in progress with an exec step. Run 1 leaves each; the
# end-of-run check must say so, naming the path, and end the run with exit status 1. Each plant
# is shown live (the caller's plain git runs it), and the controls (a commit, a rebase started
# and finished, a submodule commit, a rebase the user had in progress) stay silent with 0.
load common

setup() {
	make_layout_vars
	git_env
	TOP="$BASE/gs-$BATS_TEST_NUMBER"
	WS="$TOP/ws"
	G="$WS/.git"
	MARK="$TOP/marks"
	rm -rf "$TOP"
	mkdir -p "$MARK"
	make_git_repo "$WS" "$BASE/lib"
}

teardown() { rm -rf "$TOP"; }

# The markers made, sorted, one a line.
marks() { ls "$MARK" | sort | tr '\n' ' '; }

# said PATTERN: a line of the last run's output matches PATTERN (a glob).
said() {
	local l
	for l in "${lines[@]}"; do
		[[ $l == $1 ]] && return 0
	done
	echo "no line like: $1"
	return 1
}

# silent: the last run ended 0 and the check said nothing.
silent() {
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[[ $output != *"git mode:"* ]]
}

@test "run 1 registers a repository of its own as a submodule: said, exit 1; git status outside runs it" {
	local plant="git init -q evil && git -C evil commit -q --allow-empty -m e &&
		git -C evil config core.fsmonitor 'touch $MARK/fsmonitor; false' && git add evil"
	run gsbx sh -c "$plant 2>/dev/null"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command registered a submodule of its own at $WS/evil (a gitlink in the index, and a git directory there): git status and git diff outside the sandbox enter it and run what its config names (core.fsmonitor); hint: *git rm --cached*"
	[ "${#lines[@]}" -eq 1 ]
	# The plant is there at the end of run 1, and live: the caller's plain git status runs it.
	[ "$(git -C "$WS" ls-files -s evil | cut -c1-6)" = 160000 ]
	git -C "$WS" status --short >/dev/null 2>&1
	[ "$(marks)" = "fsmonitor " ]
	# A failing command keeps its own status.
	git -C "$WS" rm -qf --cached evil
	rm -rf "$WS/evil"
	run gsbx sh -c "$plant 2>/dev/null; exit 3"
	[ "$status" -eq 3 ]
	said "sbxrun: git mode: the command registered a submodule of its own at $WS/evil *"
	# Run 2 finds it there at its start: said once, by the run that made it.
	run gsbx true
	silent
}

@test "run 1 adds a submodule whose .git file names a git directory it made under modules/" {
	local plant="git init -q --separate-git-dir '$G/modules/evil' evil &&
		git -C evil commit -q --allow-empty -m e &&
		git -C evil config core.fsmonitor 'touch $MARK/fsmonitor; false' && git add evil"
	run gsbx sh -c "$plant 2>/dev/null"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command registered a submodule of its own at $WS/evil (a gitlink in the index, and a .git file there)*"
	said "sbxrun: git mode: the command made $G/modules/evil, a git directory for a submodule: git submodule update outside the sandbox takes it as it finds it, hooks and config included; hint: *"
	[ "${#lines[@]}" -eq 2 ]
	git -C "$WS" status --short >/dev/null 2>&1
	[ "$(marks)" = "fsmonitor " ]
}

@test "run 1 registers a submodule in the index of a linked worktree: said, exit 1" {
	run gsbx sh -c "cd wt && git init -q evil && git -C evil commit -q --allow-empty -m e &&
		git -C evil config core.fsmonitor 'touch $MARK/fsmonitor; false' && git add evil 2>/dev/null"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command registered a submodule of its own at $WS/wt/evil (a gitlink in the index, and a git directory there)*"
	[ "${#lines[@]}" -eq 1 ]
	git -C "$WS/wt" status --short >/dev/null 2>&1
	[ "$(marks)" = "fsmonitor " ]
}

@test "run 1 registers a submodule inside the existing submodule, the top index left alone" {
	local before
	before=$(stat -c '%i %s %Y %Z' "$G/index")
	run gsbx sh -c "cd sub && git init -q evil && git -C evil commit -q --allow-empty -m e &&
		git -C evil config core.fsmonitor 'touch $MARK/fsmonitor; false' && git add evil 2>/dev/null"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command registered a submodule of its own at $WS/sub/evil (a gitlink in the index, and a git directory there)*"
	[ "${#lines[@]}" -eq 1 ]
	# The top index is the one the start read: the check walked into sub by what it found then.
	[ "$(stat -c '%i %s %Y %Z' "$G/index")" = "$before" ]
	git -C "$WS/sub" status --short >/dev/null 2>&1
	[ "$(marks)" = "fsmonitor " ]
}

@test "run 1 makes a git directory under modules/ alone, and one nested in the submodule's" {
	run gsbx sh -c "mkdir -p '$G/modules/later/hooks' '$G/modules/sub/modules/deep' &&
		printf '[core]\\n\\tfsmonitor = touch $MARK/x\\n' >'$G/modules/later/config'"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command made $G/modules/later, a git directory for a submodule*"
	said "sbxrun: git mode: the command made $G/modules/sub/modules/deep, a git directory for a submodule*"
	[ "${#lines[@]}" -eq 2 ]
}

@test "run 1 plants a rebase in progress with an exec step: said, exit 1; git rebase --continue outside runs it" {
	local plant="mkdir -p '$G/rebase-merge' && git rev-parse HEAD >'$G/rebase-merge/onto' &&
		git rev-parse HEAD >'$G/rebase-merge/orig-head' &&
		echo refs/heads/main >'$G/rebase-merge/head-name' && : >'$G/rebase-merge/interactive' &&
		: >'$G/rebase-merge/done' &&
		printf 'pick 0000000 x\\n  exec touch $MARK/exec\\n' >'$G/rebase-merge/git-rebase-todo'"
	run gsbx sh -c "$plant"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command left a step that runs a program in $G/rebase-merge/git-rebase-todo (\"  exec touch $MARK/exec\"): git rebase --continue outside the sandbox would run it; hint: *git rebase --abort*"
	[ "${#lines[@]}" -eq 1 ]
	# Live: the caller continues the rebase run 1 left.
	printf 'exec touch %s/exec\n' "$MARK" >"$G/rebase-merge/git-rebase-todo"
	git -C "$WS" rebase --continue >/dev/null 2>&1
	[ "$(marks)" = "exec " ]
}

@test "run 1 adds an exec step to a rebase the user had in progress, or to a worktree's, or a cherry-pick's" {
	# The user's own rebase, stopped at a break with an exec step still to take: no finding.
	GIT_SEQUENCE_EDITOR="sed -i '1i break'" git -C "$WS" rebase -q -i --exec "touch $MARK/own" HEAD~1 \
		>/dev/null 2>&1
	grep -q "^exec touch $MARK/own" "$G/rebase-merge/git-rebase-todo"
	run gsbx git status --short
	silent
	run gsbx sh -c "echo 'x touch $MARK/planted' >>'$G/rebase-merge/git-rebase-todo'"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command left a step that runs a program in $G/rebase-merge/git-rebase-todo (\"x touch $MARK/planted\")*"
	[ "${#lines[@]}" -eq 1 ]
	git -C "$WS" rebase --abort
	# A linked worktree's, and the sequencer's.
	run gsbx sh -c "mkdir -p '$G/worktrees/wt/rebase-merge' '$G/sequencer' &&
		echo 'exec touch $MARK/wt' >'$G/worktrees/wt/rebase-merge/git-rebase-todo' &&
		echo 'exec touch $MARK/seq' >'$G/sequencer/todo'"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command left a step that runs a program in $G/worktrees/wt/rebase-merge/git-rebase-todo*"
	said "sbxrun: git mode: the command left a step that runs a program in $G/sequencer/todo*"
	[ "${#lines[@]}" -eq 2 ]
}

@test "run 1 names a merge strategy of its own for a rebase or a cherry-pick in progress: said, exit 1; live" {
	# The user's rebase, stopped at an edit with a pick still to take: no finding.
	echo b >"$WS/b"
	git -C "$WS" add b
	git -C "$WS" commit -qm two
	echo c >"$WS/c"
	git -C "$WS" add c
	git -C "$WS" commit -qm three
	GIT_SEQUENCE_EDITOR="sed -i '1s/^pick/edit/'" git -C "$WS" rebase -q -i HEAD~2 >/dev/null 2>&1
	[ -f "$G/rebase-merge/git-rebase-todo" ]
	run gsbx git status --short
	silent
	# Control: git's own strategies run git's own programs, whoever names them.
	run gsbx sh -c "echo ort >'$G/rebase-merge/strategy' &&
		mkdir -p '$G/sequencer' && printf '[options]\n\tstrategy = resolve\n' >'$G/sequencer/opts'"
	silent
	# Run 1: git runs git-merge-STRATEGY, which a strategy with a slash makes a path from the
	# top of the checkout; the amend makes the next pick a merge rather than a fast-forward.
	run gsbx sh -c "mkdir git-merge-. && printf '#!/bin/sh\ntouch $MARK/strategy\n' >git-merge-./x &&
		chmod +x git-merge-./x && git commit -q --amend -m two2 &&
		echo ./x >'$G/rebase-merge/strategy' &&
		printf '[options]\n\tstrategy = ./y\n' >'$G/sequencer/opts'"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command named a merge strategy git runs as a program in $G/rebase-merge/strategy (\"./x\"): git rebase --continue or git cherry-pick --continue outside the sandbox would run it; hint: *git rebase --abort*"
	said "sbxrun: git mode: the command named a merge strategy git runs as a program in $G/sequencer/opts (\"./y\")*"
	[ "${#lines[@]}" -eq 2 ]
	# Run 2 finds them at its start: said once, by the run that made them.
	run gsbx true
	silent
	# Live: the caller continues the rebase run 1 left.
	git -C "$WS" rebase --continue >/dev/null 2>&1 || true
	[ "$(marks)" = "strategy " ]
}

@test "run 1 leaves a FIFO, a link, a huge file where the check reads: said, no hang, exit 1" {
	run timeout 60 "$BIN/sbxrun" --allow-git -C "$WS" -w "$WS" -- sh -c "
		mkdir -p '$G/rebase-merge' '$G/sequencer' && mkfifo '$G/rebase-merge/git-rebase-todo' &&
		ln -s /dev/zero '$G/sequencer/todo' &&
		mkdir -p '$G/worktrees/wt/rebase-merge' &&
		head -c 1100000 /dev/zero | tr '\\0' '#' >'$G/worktrees/wt/rebase-merge/git-rebase-todo'"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: $G/rebase-merge/git-rebase-todo cannot be checked after the run (not a regular file, or not as git writes it): it could hold a step git runs as a program (exec)*"
	said "sbxrun: git mode: $G/sequencer/todo cannot be checked after the run ($(errtext ELOOP))*"
	said "sbxrun: git mode: $G/worktrees/wt/rebase-merge/git-rebase-todo cannot be checked after the run (too big)*"
	[ "${#lines[@]}" -eq 3 ]
	rm -rf "$G/rebase-merge" "$G/sequencer" "$G/worktrees/wt/rebase-merge"
	# An index cut short hides the gitlinks it would name.
	run gsbx sh -c "head -c 100 '$G/index' >'$G/index.new' && mv '$G/index.new' '$G/index'"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: $G/index cannot be checked after the run (not a regular file, or not as git writes it): it could hold a submodule git would enter (a gitlink)*"
}

@test "without openat2 (the component walk of an older kernel) the check says the same" {
	run "$BIN/failinj" openat2 -- "$BIN/sbxrun" --allow-git -C "$WS" -w "$WS" -- sh -c "
		git init -q evil && git -C evil commit -q --allow-empty -m e && git add evil 2>/dev/null &&
		mkdir -p '$G/sequencer' '$G/rebase-merge' && ln -s /dev/zero '$G/sequencer/todo' &&
		echo 'exec touch $MARK/exec' >'$G/rebase-merge/git-rebase-todo'"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command registered a submodule of its own at $WS/evil (a gitlink in the index, and a git directory there)*"
	said "sbxrun: git mode: $G/sequencer/todo cannot be checked after the run ($(errtext ELOOP))*"
	said "sbxrun: git mode: the command left a step that runs a program in $G/rebase-merge/git-rebase-todo (\"exec touch $MARK/exec\")*"
	[ "${#lines[@]}" -eq 3 ]
	# The link is said again (what lies behind it may change); the rest was there at its start.
	run "$BIN/failinj" openat2 -- "$BIN/sbxrun" --allow-git -C "$WS" -w "$WS" -- true
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: $G/sequencer/todo cannot be checked after the run ($(errtext ELOOP))*"
	[ "${#lines[@]}" -eq 1 ]
	rm "$G/sequencer/todo"
	run "$BIN/failinj" openat2 -- "$BIN/sbxrun" --allow-git -C "$WS" -w "$WS" -- true
	silent
}

@test "run 2 writes steps behind the link, or into the huge list, run 1 left: said again, exit 1" {
	# Run 1: rebase-merge a link to a directory of the workspace (both files git reads there are
	# behind it), a list too big to read.
	run gsbx sh -c "mkdir junk && ln -s ../junk '$G/rebase-merge' &&
		mkdir -p '$G/worktrees/wt/rebase-merge' &&
		head -c 1100000 /dev/zero | tr '\\0' '#' >'$G/worktrees/wt/rebase-merge/git-rebase-todo'"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: $G/rebase-merge/git-rebase-todo cannot be checked after the run ($(errtext ELOOP))*"
	said "sbxrun: git mode: $G/rebase-merge/strategy cannot be checked after the run ($(errtext ELOOP)): it could hold a merge strategy git runs as a program*"
	said "sbxrun: git mode: $G/worktrees/wt/rebase-merge/git-rebase-todo cannot be checked after the run (too big)*"
	[ "${#lines[@]}" -eq 3 ]
	# Run 2: an exec step behind the link (git follows it), and one in the list, still too big.
	run gsbx sh -c "echo 'exec touch $MARK/exec' >junk/git-rebase-todo &&
		{ echo 'exec touch $MARK/exec2'; head -c 1100000 /dev/zero | tr '\\0' '#'; } \
		>'$G/worktrees/wt/rebase-merge/git-rebase-todo'"
	echo "run 2: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: $G/rebase-merge/git-rebase-todo cannot be checked after the run ($(errtext ELOOP))*"
	said "sbxrun: git mode: $G/rebase-merge/strategy cannot be checked after the run ($(errtext ELOOP)): it could hold a merge strategy git runs as a program*"
	said "sbxrun: git mode: $G/worktrees/wt/rebase-merge/git-rebase-todo cannot be checked after the run (too big)*"
	[ "${#lines[@]}" -eq 3 ]
	# The huge list left alone is no new finding; the link is said at every end.
	run gsbx true
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: $G/rebase-merge/git-rebase-todo cannot be checked after the run ($(errtext ELOOP))*"
	said "sbxrun: git mode: $G/rebase-merge/strategy cannot be checked after the run ($(errtext ELOOP)): it could hold a merge strategy git runs as a program*"
	[ "${#lines[@]}" -eq 2 ]
	# Control: without the link, silent.
	rm "$G/rebase-merge"
	run gsbx true
	silent
}

@test "run 1 makes a git directory under a linked worktree's own modules/: said, exit 1; live" {
	# git keeps a linked worktree's submodules under its own git directory, not the common one.
	local gd="$G/worktrees/wt"
	git -C "$WS/wt" -c protocol.file.allow=always submodule update -q --init
	run gsbx sh -c "cd wt && git init -q --separate-git-dir '$gd/modules/evil' evil &&
		git -C evil commit -q --allow-empty -m e &&
		printf '#!/bin/sh\ntouch $MARK/hook\n' >'$gd/modules/evil/hooks/post-checkout' &&
		chmod +x '$gd/modules/evil/hooks/post-checkout' && git add evil 2>/dev/null &&
		git config -f .gitmodules submodule.evil.path evil &&
		git config -f .gitmodules submodule.evil.url ./nowhere && git add .gitmodules &&
		rm -rf evil && mkdir evil"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command made $gd/modules/evil, a git directory for a submodule: *"
	[ "${#lines[@]}" -eq 1 ]
	# Live: the caller's git submodule update in the worktree takes it, and runs its hook.
	git -C "$WS/wt" -c protocol.file.allow=always submodule update -q --init >/dev/null 2>&1
	[ "$(marks)" = "hook " ]
	# Control: a commit in the worktree's existing submodule, recorded, is silent.
	run gsbx sh -c "git -C wt/sub commit -q --allow-empty -m s && git -C wt add sub &&
		git -C wt commit -qm bump"
	silent
}

@test "run 1 fills modules/ with more names than the walk reads: said, exit 1" {
	# Files git ignores, but read one by one at every run's start and end, without a bound.
	run gsbx sh -c "cd '$G/modules' && seq 20000 | xargs touch"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: $G/modules cannot be checked after the run (more of them than sbxrun walks): it could hold a submodule's git directory*"
	[ "${#lines[@]}" -eq 1 ]
	# Control: without them, silent.
	find "$G/modules" -maxdepth 1 -type f -delete
	run gsbx true
	silent
}

@test "run 1 makes more worktree directories than the walk takes: said, exit 1" {
	# Past the bound lies a worktree whose index the walk would not read: a gitlink there.
	run gsbx sh -c "i=0; while [ \$i -lt 300 ]; do mkdir '$G/worktrees/w'\$i || exit 9; i=\$((i+1)); done"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: $G/worktrees cannot be checked after the run (more of them than sbxrun walks): it could hold a linked worktree's steps in progress*"
	[ "${#lines[@]}" -eq 1 ]
	# Control: the git directories git made are walked, silent.
	rm -rf "$G"/worktrees/w*
	run gsbx true
	silent
}

@test "the controls: a commit, a rebase started and finished, a submodule's commit, a cherry-pick: silent, 0" {
	echo b >"$WS/b"
	git -C "$WS" add b
	git -C "$WS" commit -qm b
	run gsbx sh -c "echo c >c && git add c && git commit -qm c"
	silent
	run gsbx sh -c "GIT_SEQUENCE_EDITOR=true git rebase -q -i --exec true HEAD~2 2>&1"
	silent
	[ "$(git -C "$WS" log --format=%s -1)" = c ]
	run gsbx sh -c "git submodule status >/dev/null && git -C sub commit -q --allow-empty -m s &&
		git add sub && git commit -qm bump && git status --short"
	silent
	[ "$(git -C "$WS" log --format=%s -1)" = bump ]
	run gsbx sh -c "git checkout -q -b side HEAD~1 && git cherry-pick HEAD@{1} >/dev/null &&
		git checkout -q main"
	silent
	# And the same plant as the first case is said by this very binary: the check is on.
	run gsbx sh -c "git init -q evil && git -C evil commit -q --allow-empty -m e && git add evil 2>/dev/null"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command registered a submodule of its own at $WS/evil *"
	# Without --allow-git the index is read-only: nothing to check, nothing said.
	run "$BIN/sbxrun" -C "$WS" -w "$WS" -- sh -c "git status --short >/dev/null"
	silent
}

@test "--report records what the check found" {
	local rep="$TOP/report.jsonl"
	run "$BIN/sbxrun" --allow-git --report "$rep" -C "$WS" -w "$WS" -- sh -c \
		"git init -q evil && git -C evil commit -q --allow-empty -m e && git add evil 2>/dev/null"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	cat "$rep"
	grep -q "^{\"time\":\"20[0-9-]*T[0-9:.]*Z\",\"pid\":null,\"comm\":null,\"op\":\"git-state\",\"path\":\"$WS/evil\",\"errno\":null,\"rule\":\"git mode: the command registered a submodule of its own at $WS/evil .*\",\"mechanism\":\"git mode's end-of-run check\"}$" "$rep"
	[ "$(wc -l <"$rep")" -eq 1 ]
	# It is no denial: the summary of denials says nothing.
	[[ $output != *"denied"* ]]
}

# The check records a strategy it finds at the start by its name: one longer than the 255 bytes
# it kept of it (a path of many directories, as git runs git-merge-./d/d/.../x from the top of
# the checkout), or than a line the check reads whole, was recorded by its start alone. Run 1
# names one (said); run 2 rewrote its end, to a program of its own, unsaid.
@test "run 2 rewrites the end of a long merge strategy run 1 named: said again, exit 1" {
	local long c d
	long=./$(printf 'd/%.0s' $(seq 130))
	c=$(head -c 1500 /dev/zero | tr '\0' c)
	d=$(head -c 1500 /dev/zero | tr '\0' d)
	run gsbx sh -c "mkdir -p '$G/sequencer' && printf '[options]\n\tstrategy = %s\n' '${long}a' >'$G/sequencer/opts'"
	echo "run 1: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command named a merge strategy git runs as a program in $G/sequencer/opts (\"./d/d/d/*"
	# Run 2 leaves it as it is: silent (the control).
	run gsbx true
	silent
	# Run 2 rewrites its last byte.
	run gsbx sh -c "printf '[options]\n\tstrategy = %s\n' '${long}b' >'$G/sequencer/opts'"
	echo "run 2: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command named a merge strategy git runs as a program in $G/sequencer/opts (\"./d/d/d/*"
	# One longer than the line the check reads, then another as long.
	run gsbx sh -c "printf '[options]\n\tstrategy = %s\n' '$c' >'$G/sequencer/opts'"
	[ "$status" -eq 1 ]
	run gsbx true
	silent
	run gsbx sh -c "printf '[options]\n\tstrategy = %s\n' '$d' >'$G/sequencer/opts'"
	echo "run 4: $status $output"
	[ "$status" -eq 1 ]
	said "sbxrun: git mode: the command named a merge strategy git runs as a program in $G/sequencer/opts (\"ddd*"
}
