#!/usr/bin/env bats
# A hook manager's layout: git runs hooks/pre-commit, a script that runs what hooks/pre-commit.d/
# holds, where the project links its scripts of the work tree (ln -s ../../../scripts/lint.sh
# .git/hooks/pre-commit.d/10-lint). What such a link leads to runs at the caller's next plain
# git commit, outside any sandbox, exactly as a hook linked at the top of hooks/ does: it must
# stay read-only during the run, however deep in hooks/ the link lies. Run 1 is the hostile
# command; run 2 and the user's git after it must hold.
load common

setup() {
	make_layout_vars
	git_env
	R="$BASE/ht-$BATS_TEST_NUMBER"
	rm -rf "$R"
	mkdir -p "$BASE"
	git init -q -b main "$R"
	git -C "$R" commit -q --allow-empty -m init
	new_canary "$R"
}

teardown() { rm -rf "$R" "$R-up"; }

# psbx CMD...: sbxrun with :workspace in the repository; gsbx likewise in git mode.
psbx() { "$BIN/sbxrun" -C "$R" -w "$R" -- "$@"; }
gsbx() { "$BIN/sbxrun" --allow-git -C "$R" -w "$R" -- "$@"; }

# manager: a dispatcher at hooks/pre-commit running every program of hooks/pre-commit.d/ (a
# directory under it too, as run-parts' users nest them), each a link into the work tree.
manager() {
	mkdir -p "$R/scripts/sub" "$R/.git/hooks/pre-commit.d/lint.d"
	printf '#!/bin/sh\nfor f in "$(dirname "$0")"/pre-commit.d/* "$(dirname "$0")"/pre-commit.d/*/*; do [ -f "$f" ] && [ -x "$f" ] && "$f"; done\ntrue\n' \
		>"$R/.git/hooks/pre-commit"
	chmod +x "$R/.git/hooks/pre-commit"
	printf '#!/bin/sh\ntouch %s\n' "$R/outside-lint" >"$R/scripts/lint.sh"
	printf '#!/bin/sh\ntrue\n' >"$R/scripts/sub/deep.sh"
	chmod +x "$R/scripts/lint.sh" "$R/scripts/sub/deep.sh"
	ln -s ../../../scripts/lint.sh "$R/.git/hooks/pre-commit.d/10-lint"
	ln -s ../../../../scripts/sub/deep.sh "$R/.git/hooks/pre-commit.d/lint.d/20-deep"
	# Outside, git commit runs what the links lead to.
	git -C "$R" commit -q --allow-empty -m outside
	[ -e "$R/outside-lint" ]
	rm "$R/outside-lint"
}

@test "a hook manager's pre-commit.d/ linked into the work tree: run 1 cannot rewrite what runs" {
	manager
	# Run 1 rewrites the scripts the links lead to, at any depth of hooks/, in either mode.
	run psbx "$P" append "$R/scripts/lint.sh"
	[ "$output" = EROFS ]
	run psbx "$P" append "$R/scripts/sub/deep.sh"
	[ "$output" = EROFS ]
	run gsbx "$P" append "$R/scripts/lint.sh"
	[ "$output" = EROFS ]
	run gsbx "$P" append "$R/scripts/sub/deep.sh"
	[ "$output" = EROFS ]
	run psbx sh -c "echo 'touch $CANARY' >>'$R/scripts/sub/deep.sh'"
	[ "$status" -ne 0 ]
	run gsbx sh -c "echo 'touch $CANARY' >>'$R/scripts/lint.sh'"
	[ "$status" -ne 0 ]
	# explain says what it keeps.
	run "$BIN/sbxrun" explain -C "$R" -w "$R" -- true
	[[ "$output" == *"read-only $R/scripts/sub/deep.sh "*"enforced"* ]]
	# Run 2, then the user's plain git commit: nothing planted runs.
	run psbx "$P" append "$R/scripts/lint.sh"
	[ "$output" = EROFS ]
	git -C "$R" commit -q --allow-empty -m probe
	[ ! -e "$CANARY" ]
	[ -e "$R/outside-lint" ]
	# Positive control: a script beside them, which no hook leads to, is the command's.
	run psbx "$P" write "$R/scripts/other.sh"
	[ "$output" = OK ]
	run gsbx "$P" write "$R/scripts/sub/other.sh"
	[ "$output" = OK ]
}

# Run 1, above a nested repository (its .git a plain directory there), gives a file of the hook
# manager's directory a second name in the work tree; run 2, in the repository, would rewrite it
# through that name: refused, as for a hook at the top of hooks/, in either mode.
@test "run 1 hard-links a file of hooks/pre-commit.d/ into the work tree: run 2 refuses" {
	local p="$R-up" a="$R-up/A" f
	rm -rf "$p"
	git init -q -b main "$a"
	mkdir "$a/.git/hooks/pre-commit.d"
	printf '#!/bin/sh\ntrue\n' >"$a/.git/hooks/pre-commit.d/10-lint"
	f="$a/.git/hooks/pre-commit.d/10-lint"
	new_canary "$a"
	run "$BIN/sbxrun" -C "$p" -w "$p" -- ln "$f" "$a/zz"
	[ "$status" -eq 0 ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- sh -c "touch '$CANARY'; echo planted >>'$a/zz'"
	refused "sbxrun: cannot enforce \"read-only $a/.git\" on linux: cannot enforce sandbox read-only path $a/.git because $f inside it has other names (hard links): *"
	run "$BIN/sbxrun" --allow-git -C "$a" -w "$a" -- sh -c "touch '$CANARY'; echo planted >>'$a/zz'"
	refused "sbxrun: cannot enforce \"read-only $a/.git/hooks\" on linux: cannot enforce sandbox read-only path $a/.git/hooks because $f inside it has other names (hard links): *"
	[ "$(grep -c planted "$f")" = 0 ]
	# Control: with a name of its own the run starts, the file read-only, the rest writable.
	rm "$a/zz"
	run "$BIN/sbxrun" --allow-git -C "$a" -w "$a" -- "$P" append "$f"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --allow-git -C "$a" -w "$a" -- "$P" write "$a/zz"
	[ "$output" = OK ]
	rm -rf "$p"
}

# A link git or an agent follows to a directory keeps the directory read-only whole: hooks/
# itself linked to one of the work tree (ln -s ../githooks .git/hooks), a hook manager's
# pre-commit.d/ linked to scripts/hooks.d/, an agent's skills. Run 1, before the user made the
# link, gave a file there a second name in the work tree; run 2 would rewrite it through that
# name, for the caller's next git commit to run: refused, naming the file and the fix.
@test "run 1 hard-links a file of a directory a hook link later leads to: run 2 refuses" {
	local f
	mkdir -p "$R/githooks" "$R/scripts/hooks.d/sub" "$R/skills/one"
	printf '#!/bin/sh\ntrue\n' >"$R/githooks/post-commit"
	printf '#!/bin/sh\ntrue\n' >"$R/scripts/hooks.d/sub/10-lint"
	echo 'run this' >"$R/skills/one/SKILL.md"
	chmod +x "$R/githooks/post-commit" "$R/scripts/hooks.d/sub/10-lint"
	for f in githooks/post-commit scripts/hooks.d/sub/10-lint skills/one/SKILL.md; do
		# Run 1: nothing links to the directory yet, which is the command's.
		run psbx ln "$R/$f" "$R/zz"
		[ "$status" -eq 0 ]
		# The user links it.
		case $f in
		githooks/*)
			rm -rf "$R/.git/hooks"
			ln -s ../githooks "$R/.git/hooks"
			;;
		scripts/*)
			rm "$R/.git/hooks"
			mkdir "$R/.git/hooks"
			ln -s ../../scripts/hooks.d "$R/.git/hooks/pre-commit.d"
			;;
		skills/*)
			mkdir -p "$R/.agents"
			ln -s ../skills "$R/.agents/skills"
			;;
		esac
		# Run 2 rewrites it through the other name: refused, the file unchanged.
		run psbx sh -c "touch '$CANARY'; echo planted >>'$R/zz'"
		refused "sbxrun: cannot enforce sandbox read-only path $R/${f%%/*}* because $R/$f inside it has other names (hard links): *"
		[[ "${lines[0]}" == *"; hint: give it a name of its own (cp -p $R/$f $R/$f.new && mv $R/$f.new $R/$f), and check what it says" ]]
		[ "$(grep -c planted "$R/$f")" = 0 ]
		# Control: with a name of its own the run starts, the file read-only.
		rm "$R/zz"
		run psbx "$P" append "$R/$f"
		[ "$output" = EROFS ]
	done
	# Positive control: a file beside the linked directories is the command's.
	run psbx "$P" write "$R/scripts/other"
	[ "$output" = OK ]
}

# The user's hook manager directory linked to one of the work tree, whose entries are links to
# the project's scripts (pre-commit.d -> scripts/hooks.d, hooks.d/10-lint -> ../lint.sh): git's
# pre-commit runs the script two links away, which run 1 must not rewrite. A link back to the
# directory itself is walked once.
@test "a link in a directory a hook link leads to: what it leads to stays read-only" {
	mkdir -p "$R/scripts/hooks.d"
	printf '#!/bin/sh\ntouch %s\n' "$R/outside-lint" >"$R/scripts/lint.sh"
	chmod +x "$R/scripts/lint.sh"
	ln -s ../lint.sh "$R/scripts/hooks.d/10-lint"
	ln -s . "$R/scripts/hooks.d/self"
	ln -s ../../scripts/hooks.d "$R/.git/hooks/pre-commit.d"
	printf '#!/bin/sh\nfor f in "$(dirname "$0")"/pre-commit.d/*; do [ -f "$f" ] && [ -x "$f" ] && "$f"; done\ntrue\n' \
		>"$R/.git/hooks/pre-commit"
	chmod +x "$R/.git/hooks/pre-commit"
	# Outside, git commit runs the script.
	git -C "$R" commit -q --allow-empty -m outside
	[ -e "$R/outside-lint" ]
	# Run 1 rewrites it, in either mode.
	run psbx "$P" append "$R/scripts/lint.sh"
	[ "$output" = EROFS ]
	run gsbx "$P" append "$R/scripts/lint.sh"
	[ "$output" = EROFS ]
	run psbx sh -c "echo 'touch $CANARY' >>'$R/scripts/lint.sh'"
	[ "$status" -ne 0 ]
	# Run 2, then the user's plain git commit: nothing planted runs.
	run psbx "$P" append "$R/scripts/lint.sh"
	[ "$output" = EROFS ]
	git -C "$R" commit -q --allow-empty -m probe
	[ ! -e "$CANARY" ]
	# Positive control: a script beside it, which no link leads to, is the command's.
	run psbx "$P" write "$R/scripts/other.sh"
	[ "$output" = OK ]
}

# Run 1, above a nested repository (whose hooks/ is then its own to write), links hooks to
# nothing: git runs nothing there until something is made where such a link leads, which only
# matters where the command can make it. Run 2, in the repository, starts when the target lies
# outside every writable root (directly, or through a second link to nothing there), and explain
# names it; it refuses when the command could make the target (in the work tree, directly or
# through a link outside that leads back in), naming the link and where it leads.
@test "run 1 links hooks to nothing: run 2 starts where the command cannot make the target, refuses where it can" {
	local p="$R-up" a="$R-up/A" out="$BASE/nohook-$BATS_TEST_NUMBER"
	rm -rf "$out"
	mkdir -p "$p" "$out"
	git init -q -b main "$a"
	git -C "$a" commit -q --allow-empty -m init
	# The user's own links outside: one to nothing there, one back into the work tree.
	ln -s gone2 "$out/chain"
	ln -s "$a/tools/gone.sh" "$out/back"
	# Run 1, above A: A/.git/hooks is a plain nested directory, writable.
	run "$BIN/sbxrun" -C "$p" -w "$p" -- sh -c "ln -s '$out/gone/pre-commit' '$a/.git/hooks/pre-commit' &&
		mkdir '$a/.git/hooks/pre-push.d' && ln -s '$out/chain' '$a/.git/hooks/pre-push.d/10'"
	[ "$status" -eq 0 ]
	# Run 2, in A: it starts, and cannot make what either link leads to.
	run "$BIN/sbxrun" -C "$a" -w "$a" -- "$P" mkdir "$out/gone"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- "$P" write "$out/gone2"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --allow-git -C "$a" -w "$a" -- "$P" mkdir "$out/gone"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- sh -c "mkdir -p '$out/gone' && printf '#!/bin/sh\ntouch $CANARY\n' >'$out/gone/pre-commit'"
	[ "$status" -ne 0 ]
	run "$BIN/sbxrun" explain -C "$a" -w "$a" -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *"hook link:         $a/.git/hooks/pre-commit leads to $out/gone/pre-commit, which does not exist and lies outside every writable root:"* ]]
	[[ "$output" == *"hook link:         $a/.git/hooks/pre-push.d/10 leads to $out/gone2, which does not exist"* ]]
	# The user's next plain git commit runs nothing.
	git -C "$a" commit -q --allow-empty -m outside
	[ ! -e "$CANARY" ]
	# Positive control: the work tree is the command's.
	run "$BIN/sbxrun" -C "$a" -w "$a" -- "$P" mkdir "$a/tools"
	[ "$output" = OK ]
	rmdir "$a/tools"
	# Run 1 again: a link to nothing in the work tree, then through the user's link back into
	# it. Run 2 refuses each, naming where it leads.
	run "$BIN/sbxrun" -C "$p" -w "$p" -- ln -sfn ../../tools/gone.sh "$a/.git/hooks/pre-commit"
	[ "$status" -eq 0 ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- touch "$CANARY"
	refused "sbxrun: $a/.git/hooks/pre-commit is a symbolic link to nothing there is: git would take what the command makes where it leads, $a/tools/gone.sh, in a writable root"
	run "$BIN/sbxrun" -C "$p" -w "$p" -- ln -sfn "$out/back" "$a/.git/hooks/pre-commit"
	[ "$status" -eq 0 ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- touch "$CANARY"
	refused "sbxrun: $a/.git/hooks/pre-commit is a symbolic link to nothing there is: git would take what the command makes where it leads, $a/tools/gone.sh, in a writable root"
	# Run 1 again: the way to nothing outside passes through a directory of the work tree and
	# back up, which run 2 could swap for a link deeper in it (sub/.. then lies in the tree).
	run "$BIN/sbxrun" -C "$p" -w "$p" -- sh -c "mkdir '$a/sub' && ln -sfn '$a/sub/../../../nohook-$BATS_TEST_NUMBER/gone' '$a/.git/hooks/pre-commit'"
	[ "$status" -eq 0 ]
	run "$BIN/sbxrun" -C "$a" -w "$a" -- touch "$CANARY"
	refused "sbxrun: $a/.git/hooks/pre-commit is a symbolic link to nothing there is: git would take what the command makes where it leads, $a/sub/../../../nohook-$BATS_TEST_NUMBER/gone, in a writable root"
	rm -rf "$out"
}

# Another name of the work tree outside it (a bind mount the caller or the host made, here in a
# mount namespace of the test's own): a path through it lies outside every writable root by its
# spelling, but is the work tree. Run 1 links a hook to nothing there; run 2 refuses, as it does
# for the work tree's own name. Control: the same link with the alias an ordinary directory
# outside lets run 2 start.
@test "run 1 links a hook to nothing through another name of the work tree: run 2 refuses" {
	local p="$R-up" a="$R-up/A" out="$BASE/alias-$BATS_TEST_NUMBER"
	rm -rf "$out"
	mkdir -p "$p" "$out/alias"
	git init -q -b main "$a"
	git -C "$a" commit -q --allow-empty -m init
	run unshare -rm sh -c "mount --bind '$a' '$out/alias' &&
		'$BIN/sbxrun' -C '$p' -w '$p' -- ln -s '$out/alias/gone' '$a/.git/hooks/pre-commit' &&
		exec '$BIN/sbxrun' -C '$a' -w '$a' -- touch '$CANARY'"
	echo "status $status: $output"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: $a/.git/hooks/pre-commit is a symbolic link to nothing there is: git would take what the command makes where it leads, $out/alias/gone, in a writable root; hint: make what it leads to, or remove the link" ]
	[ ! -e "$CANARY" ]
	# Control: no alias, the same link leads outside, and the command cannot make its target.
	run "$BIN/sbxrun" -C "$a" -w "$a" -- "$P" write "$out/alias/gone"
	[ "$output" = EROFS ]
	rm -f "$a/.git/hooks/pre-commit"
	rm -rf "$out"
}

# Run 1 makes a chain of directories, each linking to the next, where the user's hook manager
# link will lead: the walk recurses through each, so it is bounded in all (64 levels), and past
# that the run is refused, naming the limit, not followed until the helper's stack runs out.
@test "run 1 chains linked directories past the walk's bound: run 2 refuses, naming it" {
	run psbx sh -c "cd '$R' && for i in \$(seq 1 100); do mkdir d\$i; done &&
		for i in \$(seq 1 99); do ln -s ../d\$((i + 1)) d\$i/n; done"
	[ "$status" -eq 0 ]
	ln -s ../../d1 "$R/.git/hooks/pre-commit.d"
	run psbx sh -c "touch '$CANARY'"
	refused "sbxrun: cannot enforce sandbox read-only path $R/d65: it is more than 64 levels deep, through its directories and links, to check for hard links"
	[[ "${lines[0]}" == *"; hint: flatten it" ]]
	# Control: the chain cut short, the run starts, what it leads to read-only.
	rm "$R/d30/n"
	run psbx "$P" write "$R/d20/f"
	[ "$output" = EROFS ]
	run psbx "$P" write "$R/d40/f"
	[ "$output" = OK ]
}

# The same chain cut just short of the bound: run 2 walks all of it, on a stack of 1 MiB (a
# caller's ulimit -s), and keeps its end read-only; the walk's room for each level is not taken
# from the stack, or a deep chain ended the run by SIGSEGV instead of a refusal or a start.
@test "run 1 chains linked directories to just short of the walk's bound: run 2 holds on a small stack" {
	run psbx sh -c "cd '$R' && for i in \$(seq 1 70); do mkdir d\$i; done &&
		for i in \$(seq 1 69); do ln -s ../d\$((i + 1)) d\$i/n; done && rm d63/n"
	[ "$status" -eq 0 ]
	ln -s ../../d1 "$R/.git/hooks/pre-commit.d"
	run bash -c "ulimit -s 1024 && exec '$BIN/sbxrun' -C '$R' -w '$R' -- '$P' write '$R/d63/f'"
	echo "status $status: $output"
	[ "$output" = EROFS ]
	# Control: past the chain's end, the work tree is the command's.
	run bash -c "ulimit -s 1024 && exec '$BIN/sbxrun' -C '$R' -w '$R' -- '$P' write '$R/d64/f'"
	[ "$output" = OK ]
}

# The walk of a kept tree (a .agents of skills, checked for files with other names) takes a
# little of the stack a level, not a path's room: a tree just short of its 64 levels, on a stack
# of 512 KiB (a caller's ulimit -s), ended the run by SIGSEGV; it starts, the tree read-only.
@test "a kept .agents tree 62 levels deep: the run holds on a small stack" {
	local p="$R/.agents"
	for _ in $(seq 62); do p="$p/d"; done
	mkdir -p "$p"
	echo skill >"$p/f"
	run bash -c "ulimit -s 512 && exec '$BIN/sbxrun' -C '$R' -w '$R' -- '$P' append '$p/f'"
	echo "status $status: $output"
	[ "$output" = EROFS ]
	# Control: beside the kept tree, the work tree is the command's.
	run bash -c "ulimit -s 512 && exec '$BIN/sbxrun' -C '$R' -w '$R' -- '$P' write '$R/f'"
	[ "$output" = OK ]
}

# Run 1, above a nested repository, plants many hook links in its hooks/, each to one of a few
# large directories of the work tree: the walk of where they lead is bounded in all, not per
# link (per link, 256 links each to a directory of 8192 entries were two million look-ups at
# each start). The same directory through many links is walked once, and runs; two that hold
# more than the bound together are refused, naming it.
@test "run 1 plants many hook links to large directories: the walk is bounded in all" {
	local i
	run psbx sh -c "mkdir '$R/big' '$R/big2' && cd '$R/big' && seq 1 5000 | xargs touch &&
		cd '$R/big2' && seq 1 5000 | xargs touch"
	[ "$status" -eq 0 ]
	for i in $(seq 1 40); do ln -s ../../big "$R/.git/hooks/l$i"; done
	# One directory through 40 links: walked once, under the bound, the run starts.
	run psbx "$P" append "$R/big/17"
	[ "$output" = EROFS ]
	run psbx "$P" write "$R/other"
	[ "$output" = OK ]
	# Two directories through two links: 10000 entries in all, past the bound.
	ln -s ../../big2 "$R/.git/hooks/m1"
	run psbx sh -c "touch '$CANARY'"
	refused "sbxrun: cannot enforce sandbox read-only path $R/big*: it and the other directories links lead to hold more than 8192 entries to check for hard links"
	[[ "${lines[0]}" == *"; hint: empty it, or remove what it need not hold" ]]
}

# Run 1 fills a directory the user's hook manager link will lead to with links, each to a file
# of its own: each link followed is a read-only mount of where it leads, so their number is
# bounded in all as hooks/' own (256): past it the run is refused, naming the limit, where
# thousands of mounts made each start slow and, past the descriptors a run may hold, refused it
# with a message naming no rule.
@test "run 1 fills a linked directory with links: run 2 refuses past 256, naming it" {
	run psbx sh -c "mkdir '$R/t' '$R/s' && cd '$R/t' && seq 1 300 | xargs touch &&
		cd '$R/s' && for i in \$(seq 1 300); do ln -s ../t/\$i l\$i; done"
	[ "$status" -eq 0 ]
	ln -s ../../s "$R/.git/hooks/pre-commit.d"
	run psbx sh -c "touch '$CANARY'"
	refused "sbxrun: cannot enforce sandbox read-only path $R/s: it and the other directories links lead to hold more than 256 symbolic links to keep read-only where they lead"
	[[ "${lines[0]}" == *"; hint: remove the links git and the agents do not follow" ]]
	# Control: 200 links left, the run starts, what they lead to read-only.
	rm "$R"/s/l2[0-9][0-9] "$R"/s/l300
	run psbx "$P" append "$R/t/150"
	[ "$output" = EROFS ]
	run psbx "$P" append "$R/t/250"
	[ "$output" = OK ]
}
