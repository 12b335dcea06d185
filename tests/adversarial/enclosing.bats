#!/usr/bin/env bats
# A workspace opened in a subdirectory of a checkout (a package of a monorepo): the writable root
# is that subdirectory, and the repository's git directory lies above it, read-only. But what
# that git directory leads to may lie inside the root: a hook linked to a script of the working
# tree, a config file it includes, a submodule checkout's .git file. Run 1 must not be able to
# rewrite any of them for git, run later at the top of the checkout outside the sandbox, to run.
load common

setup_file() {
	make_layout_vars
	mkdir -p "$BASE"
	local g=(git -c user.name=t -c user.email=t@t -c init.defaultBranch=main
		-c protocol.file.allow=always)
	rm -rf "$BASE/lib" "$BASE/top"
	"${g[@]}" init -q "$BASE/lib"
	"${g[@]}" -C "$BASE/lib" commit -q --allow-empty -m lib
	"${g[@]}" init -q "$BASE/top"
	mkdir -p "$BASE/top/pkg/scripts"
	printf '#!/bin/sh\nexit 0\n' >"$BASE/top/pkg/scripts/pre-commit"
	chmod +x "$BASE/top/pkg/scripts/pre-commit"
	ln -s ../../pkg/scripts/pre-commit "$BASE/top/.git/hooks/pre-commit"
	printf '[user]\n\tname = t\n' >"$BASE/top/pkg/team.gitconfig"
	"${g[@]}" -C "$BASE/top" config include.path ../pkg/team.gitconfig
	"${g[@]}" -C "$BASE/top" config --add include.path ../pkg/local.gitconfig
	"${g[@]}" -C "$BASE/top" add pkg
	"${g[@]}" -C "$BASE/top" commit -qm init
	"${g[@]}" -C "$BASE/top" submodule add -q "$BASE/lib" pkg/vendor/lib 2>/dev/null
	"${g[@]}" -C "$BASE/top" commit -qm lib
}

setup() {
	make_layout_vars
	TOP="$BASE/top"
	PKG="$TOP/pkg"
	new_canary "$PKG"
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$PKG
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
}

@test "the layout: git at the top takes the hook, the includes and the submodule from pkg/" {
	[ "$(readlink -f "$TOP/.git/hooks/pre-commit")" = "$PKG/scripts/pre-commit" ]
	[ "$(git -C "$TOP" config user.name)" = t ]
	[ "$(cat "$PKG/vendor/lib/.git")" = "gitdir: ../../../.git/modules/pkg/vendor/lib" ]
	# Positive control: the rest of pkg/ is the command's, and so is a script no hook names.
	expect OK write "$PKG/scripts/build.sh"
	expect OK append "$PKG/scripts/build.sh"
	expect OK write "$PKG/vendor/lib/new-file"
}

@test "run 1 cannot rewrite the script the top's hook links to" {
	expect EROFS append "$PKG/scripts/pre-commit"
	expect EBUSY rename "$PKG/scripts/pre-commit" "$PKG/scripts/old"
	expect EBUSY unlink "$PKG/scripts/pre-commit"
	expect EBUSY rename "$PKG/scripts" "$PKG/scripts2"
	run sbx sh -c "printf 'touch %s\n' '$CANARY' >>scripts/pre-commit"
	[ "$status" -ne 0 ]
	# Run 2 is the user's commit at the top.
	run git -C "$TOP" -c user.email=t@t commit -q --allow-empty -m later
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
}

@test "run 1 cannot set core.fsmonitor in a config the top includes, nor make a missing one" {
	expect EROFS append "$PKG/team.gitconfig"
	expect EBUSY rename "$PKG/team.gitconfig" "$PKG/old.gitconfig"
	expect EROFS write "$PKG/local.gitconfig"
	run sbx sh -c "printf '[core]\n\tfsmonitor = \"touch %s; false\"\n' '$CANARY' >>team.gitconfig"
	[ "$status" -ne 0 ]
	run sbx sh -c "printf '[core]\n\tfsmonitor = \"touch %s; false\"\n' '$CANARY' >local.gitconfig"
	[ "$status" -ne 0 ]
	[ ! -e "$PKG/local.gitconfig" ]
	run git -C "$TOP" status --short
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
}

@test "run 1 cannot repoint the .git of a submodule checked out in pkg/" {
	local evil="$BASE/evil-$BATS_TEST_NUMBER"
	rm -rf "$evil"
	git init -q --bare "$evil"
	git -C "$evil" config core.fsmonitor "touch $CANARY; false"
	expect EROFS write "$PKG/vendor/lib/.git"
	expect EBUSY rename "$PKG/vendor/lib/.git" "$PKG/vendor/lib/old"
	run sbx sh -c "echo 'gitdir: $evil' >vendor/lib/.git"
	[ "$status" -ne 0 ]
	run git -C "$TOP" status --short
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
}

@test "a checkout under a writable root, the workspace below its top: its .git is kept whole" {
	local top="$TMPDIR/co-$BATS_TEST_NUMBER"
	rm -rf "$top"
	git init -q "$top"
	mkdir -p "$top/sub"
	SBX_CWD=$top/sub
	expect EROFS write "$top/.git/hooks/post-checkout"
	expect EROFS append "$top/.git/config"
	expect EBUSY rename "$top/.git" "$top/.git-old"
	# Control: beside it, $TMPDIR is the command's.
	expect OK write "$TMPDIR/free-$BATS_TEST_NUMBER"
	expect OK write "$top/sub/file"
}

@test "a checkout whose .git file names a git directory inside the workspace below its top" {
	local top="$BASE/sep-$BATS_TEST_NUMBER"
	rm -rf "$top"
	mkdir -p "$top/pkg"
	git init -q --separate-git-dir="$top/pkg/.gd" "$top"
	echo "gitdir: pkg/.gd" >"$top/.git"
	git -C "$top" status --short
	SBX_CWD=$top/pkg
	expect EROFS append "$top/pkg/.gd/config"
	expect EROFS write "$top/pkg/.gd/hooks/pre-commit"
	expect EBUSY rename "$top/pkg/.gd" "$top/pkg/gd-old"
	# Control: the rest of the workspace is the command's.
	expect OK write "$top/pkg/file"
}

@test "explain shows what the repository above the workspace keeps in it" {
	run "$BIN/sbxrun" explain --cwd "$PKG" --profile :workspace
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"read-only $PKG/scripts/pre-commit "* ]]
	[[ "$output" == *"read-only $PKG/team.gitconfig "* ]]
	[[ "$output" == *"read-only $PKG/vendor/lib/.git "* ]]
	# Control: a workspace beside the checkout keeps none of it.
	mkdir -p "$BASE/beside"
	run "$BIN/sbxrun" explain --cwd "$BASE/beside" --profile :workspace
	[ "$status" -eq 0 ]
	[[ "$output" != *"read-only $BASE/beside/"* ]]
}

@test "a workspace named through the user's link keeps what the .git above where it leads keeps" {
	# Git finds the repository up from where the directory lies, not up the link's name.
	local link="$BASE/pkg-link-$BATS_TEST_NUMBER"
	rm -f "$link"
	ln -s "$PKG" "$link"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$link" write)")
	SBX_CWD=$link
	expect EROFS append "$link/scripts/pre-commit"
	expect EROFS append "$PKG/scripts/pre-commit"
	expect EROFS append "$link/team.gitconfig"
	expect EROFS write "$link/local.gitconfig"
	expect EROFS write "$link/vendor/lib/.git"
	run sbx sh -c "printf 'touch %s\n' '$CANARY' >>scripts/pre-commit"
	[ "$status" -ne 0 ]
	run git -C "$TOP" -c user.email=t@t commit -q --allow-empty -m later
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
	# Control: the rest of the workspace is the command's by either name.
	expect OK write "$link/scripts/build.sh"
	expect OK write "$PKG/scripts/build.sh"
}
