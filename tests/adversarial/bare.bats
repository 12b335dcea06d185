#!/usr/bin/env bats
# A workspace that is itself a git directory (a bare repository: a mirror, a server's copy) has
# no .git to keep: git reads its hooks and config from the workspace itself. Run 1 must not be
# able to plant there what a later git, outside the sandbox, runs (a reference-transaction hook
# runs at every fetch into a mirror), nor break the repository so that run 2 no longer sees it
# is one; its objects and refs stay the command's to write.
load common

# bare_repo DIR: a bare repository at DIR with one commit on main, as git clone --bare makes it.
bare_repo() {
	local g=(git -c user.name=t -c user.email=t@t -c init.defaultBranch=main)
	rm -rf "$1" "$1.src"
	"${g[@]}" init -q "$1.src"
	"${g[@]}" -C "$1.src" commit -q --allow-empty -m init
	git clone -q --bare "$1.src" "$1"
	rm -rf "$1.src"
}

setup() {
	make_layout_vars
	mkdir -p "$BASE"
	BARE="$BASE/mirror-$BATS_TEST_NUMBER.git"
	bare_repo "$BARE"
	new_canary "$BASE"
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$BARE
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
}

@test "a bare workspace: run 1 plants no hook or config; git outside runs nothing of it" {
	# Positive controls: a plain file at those names elsewhere in the workspace is the
	# command's, and so are the repository's objects and refs.
	mkdir -p "$BARE/sub/hooks"
	expect OK write "$BARE/sub/config"
	expect OK write "$BARE/sub/hooks/reference-transaction"
	expect OK write "$BARE/refs/heads/new"
	rm -f "$BARE/refs/heads/new"
	run sbx git -C "$BARE" update-ref refs/heads/copy main
	[ "$status" -eq 0 ]
	# Run 1, as a hostile command would.
	expect EROFS write "$BARE/hooks/reference-transaction"
	expect EROFS write "$BARE/hooks/post-update"
	expect EROFS write "$BARE/config"
	expect EROFS append "$BARE/config"
	expect EBUSY rename "$BARE/config" "$BARE/config.old"
	expect EBUSY unlink "$BARE/HEAD"
	expect EROFS write "$BARE/HEAD"
	expect EROFS write "$BARE/commondir"
	expect EROFS write "$BARE/config.worktree"
	run sbx sh -c "printf '#!/bin/sh\ntouch %s\n' '$CANARY' >hooks/reference-transaction"
	[ "$status" -ne 0 ]
	run sbx git config core.hooksPath "$BASE/planted-hooks"
	echo "$output"
	[ "$status" -ne 0 ]
	# Run 2 is git outside, as a fetch into the mirror would update its refs.
	run git -C "$BARE" update-ref refs/heads/later main
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
	run git -C "$BARE" config --get core.hooksPath
	[ "$status" -eq 1 ]
	[ ! -e "$BARE/hooks/reference-transaction" ]
	[ ! -e "$BARE/commondir" ]
	[ ! -e "$BARE/config.worktree" ]
}

@test "a bare workspace run 1 strips of objects/ and refs/: run 2 still keeps its hooks and HEAD" {
	# Run 1 removes what git's own test of a git directory looks for (allowed: they are the
	# command's), so that a plan reading that test would see no repository at run 2.
	run sbx sh -c 'rm -rf objects refs && echo removed'
	[ "$output" = removed ]
	[ ! -e "$BARE/objects" ]
	[ ! -e "$BARE/refs" ]
	# Run 2 would plant the hook, then make the repository whole again for git outside.
	expect EROFS write "$BARE/hooks/reference-transaction"
	expect EBUSY unlink "$BARE/HEAD"
	expect EROFS write "$BARE/config"
	expect OK mkdir "$BARE/refs"
}

@test "a bare workspace's hook linked into it: what the link leads to stays read-only" {
	mkdir -p "$BARE/scripts"
	echo '#!/bin/sh' >"$BARE/scripts/post-update"
	chmod +x "$BARE/scripts/post-update"
	ln -s ../scripts/post-update "$BARE/hooks/post-update"
	expect EROFS append "$BARE/scripts/post-update"
	# Control: the directory around it is the command's.
	expect OK write "$BARE/scripts/other"
}

@test "a bare workspace whose hooks/ is a link: refused, naming it; the command cannot repoint it" {
	mkdir -p "$BASE/shared-$BATS_TEST_NUMBER"
	mv "$BARE/hooks" "$BASE/shared-$BATS_TEST_NUMBER/hooks"
	ln -s "$BASE/shared-$BATS_TEST_NUMBER/hooks" "$BARE/hooks"
	new_canary "$BARE"
	run sbx sh -c ": >'$CANARY'; rm hooks; mkdir hooks"
	refused "sbxrun: $BARE/hooks is a symbolic link, which git follows: in a writable root that is a git directory (a bare repository), the command could repoint it"
	[[ "$output" == *"; hint: put what it leads to there instead of the link, or name the repository read-only" ]]
	[ -L "$BARE/hooks" ]
	# Control: with the directory itself there, the run starts.
	rm "$BARE/hooks"
	mv "$BASE/shared-$BATS_TEST_NUMBER/hooks" "$BARE/hooks"
	run sbx sh -c ": >'$CANARY'"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

@test "explain shows what a bare workspace keeps" {
	run "$BIN/sbxrun" explain --cwd "$BARE" --profile :workspace
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"read-only $BARE/HEAD "* ]]
	[[ "$output" == *"read-only $BARE/hooks "* ]]
	[[ "$output" == *"read-only $BARE/config "* ]]
	[[ "$output" == *"no-create $BARE/commondir "* ]]
	[[ "$output" == *"no-create $BARE/config.worktree "* ]]
	# Control: a workspace that is no git directory keeps none of those names.
	mkdir -p "$BASE/plain"
	run "$BIN/sbxrun" explain --cwd "$BASE/plain" --profile :workspace
	[ "$status" -eq 0 ]
	[[ "$output" != *"$BASE/plain/config"* ]]
	[[ "$output" != *"$BASE/plain/hooks"* ]]
}

@test "a bare workspace without a mount namespace: refused, not run with its hooks writable" {
	# The root's own protected names written out, so that only the repository's stay.
	PROFILE=$(profile restricted "$(entry_special root read)" \
		"$(entry_special project_roots write)" $(unprotected "$BARE"))
	new_canary "$BARE"
	run sbx_fault unshare "$PROFILE" sh -c ": >'$CANARY'; echo x >hooks/post-update"
	refused 'sbxrun: cannot enforce "read-only '"$BARE"'/HEAD" on linux: a read-only path inside a writable root needs a mount namespace *'
	[ ! -e "$BARE/hooks/post-update" ]
	# Control: the same profile in a workspace that is no repository runs there.
	mkdir -p "$BASE/plain-$BATS_TEST_NUMBER"
	SBX_CWD=$BASE/plain-$BATS_TEST_NUMBER
	PROFILE=$(profile restricted "$(entry_special root read)" \
		"$(entry_special project_roots write)" $(unprotected "$SBX_CWD"))
	new_canary "$SBX_CWD"
	cd "$SBX_CWD"
	run sbx_fault unshare "$PROFILE" sh -c ": >'$CANARY'"
	echo "control: status $status: $output"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
}

@test "a workspace holding a file named HEAD that git takes for none: its config/ stays the command's" {
	# A plain project with a file of its own named HEAD: git never takes the directory for a
	# repository, so nothing of it is kept (a config/ directory, modules/, hooks/).
	local plain="$BASE/notes-$BATS_TEST_NUMBER"
	rm -rf "$plain"
	mkdir -p "$plain/config" "$plain/modules/auth" "$plain/hooks"
	echo 'release notes' >"$plain/HEAD"
	run git -C "$plain" rev-parse --git-dir
	[ "$status" -ne 0 ]
	SBX_CWD=$plain
	expect OK write "$plain/config/app.yml"
	expect OK write "$plain/modules/auth/main.py"
	expect OK write "$plain/hooks/useful.js"
	expect OK append "$plain/HEAD"
	# Control: the same names of a bare repository, whose HEAD names a ref, stay read-only,
	# and so do they once run 1 has stripped objects/ and refs/ (kept HEAD, kept test).
	expect EROFS write "$BARE/config"
	expect EROFS append "$BARE/HEAD"
	run sbx sh -c 'rm -rf objects refs && echo removed'
	[ "$output" = removed ]
	expect EROFS write "$BARE/hooks/post-update"
}

@test "a bare workspace whose HEAD is a link (as old git made it): refused, naming it and the fix" {
	ln -sf refs/heads/main "$BARE/HEAD"
	run git -C "$BARE" rev-parse --git-dir
	[ "$output" = . ]
	new_canary "$BARE"
	run sbx sh -c ": >'$CANARY'; ln -sf refs/heads/other HEAD"
	refused "sbxrun: $BARE/HEAD is a symbolic link, which git follows: in a writable root that is a git directory (a bare repository), the command could repoint it"
	[[ "$output" == *"; hint: make it a file (git symbolic-ref HEAD refs/heads/BRANCH, with core.preferSymlinkRefs unset), or name the repository read-only" ]]
	[ "$(readlink "$BARE/HEAD")" = refs/heads/main ]
	# Control: with HEAD made a file as the hint says, the run starts and HEAD stays.
	git -C "$BARE" symbolic-ref HEAD refs/heads/main
	[ -f "$BARE/HEAD" ]
	[ ! -L "$BARE/HEAD" ]
	run sbx sh -c ": >'$CANARY'"
	[ "$status" -eq 0 ]
	[ -e "$CANARY" ]
	expect EBUSY unlink "$BARE/HEAD"
}
