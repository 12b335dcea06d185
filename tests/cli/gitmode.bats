#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# Git mode (--allow-git) as the command line shows it: what explain plans on each platform,
# what access says, where the option applies. Enforcement is tests/enforce/gitmode.bats.

load helpers
load ../enforce/common # make_git_repo, git_env

# A repository as git makes it, with a submodule and a linked worktree inside the workspace.
setup() {
	git_env
	make_git_repo "$BATS_TEST_TMPDIR/ws" "$BATS_TEST_TMPDIR/lib"
	WS=$(cd "$BATS_TEST_TMPDIR/ws" && pwd -P)
	cd "$WS"
}

# The requirements on paths in the workspace, "RULE STATUS" a line.
rules() { jget "$1" '"\n".join(r["rule"] + " " + r["status"] for r in j["requirements"] if " '"$WS"'/" in r["rule"])'; }
req() { jget "$1" '[r for r in j["requirements"] if r["rule"]=='"'$2'"'][0]["'"$3"'"]'; }

@test "explain: the git directories writable but what runs code, on macOS" {
	run "$SBXRUN" explain --platform macos --json --allow-git -- git commit
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["allow_git"]')" = true ]
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
	G=$WS/.git
	[ "$(rules "$output")" = "read-only $G/hooks enforced
read-only $G/config enforced
read-only $G/modules/sub/hooks enforced
read-only $G/modules/sub/config enforced
read-only $WS/sub/.git enforced
read-only $G/worktrees/wt/commondir enforced
read-only $G/worktrees/wt/gitdir enforced
read-only $WS/wt/.git enforced
no-create $WS/.agents enforced
no-create $WS/.codex enforced
no-create $G/commondir enforced
no-create $G/config.worktree enforced
no-create $G/modules/sub/commondir enforced
no-create $G/modules/sub/config.worktree enforced
no-create $G/worktrees/wt/config.worktree enforced" ]
	# The policy names the missing ones by anchored, escaped regexes.
	[ "$(jget "$output" '"(require-not (regex #\"^" in j["argv"][2] and "/\\.git/commondir(/.*)?$\"))" in j["argv"][2]')" = true ]
	# The control: without the mode .git is one read-only carve-out, and the submodule's
	# checkout keeps its .git, through which git status recurses into it.
	run "$SBXRUN" explain --platform macos --json -- git commit
	[ "$(jget "$output" 'j["allow_git"]')" = false ]
	[ "$(rules "$output")" = "read-only $WS/.git enforced
read-only $WS/sub/.git enforced
no-create $WS/.agents enforced
no-create $WS/.codex enforced" ]
}

@test "explain: on Linux a missing name is masked on a mount point, in words; without one it refuses" {
	local mnt
	mnt=$(jget "$("$SBXRUN" probe --json)" 'j["mount_namespace"]')
	run "$SBXRUN" explain --platform linux --json --allow-git -- git commit
	[ "$status" -eq 0 ]
	[ "$(req "$output" "read-only $WS/.git/hooks" mechanism)" = mount-namespace ]
	if [ "$mnt" = true ]; then
		[ "$(jget "$output" 'j["enforceable"]')" = true ]
		[ "$(req "$output" "no-create $WS/.git/commondir" status)" = enforced ]
		[ "$(req "$output" "no-create $WS/.git/commondir" mechanism)" = mount-namespace ]
		[[ "$(req "$output" "no-create $WS/.git/commondir" why)" == "it does not exist; the name cannot be created: a read-only file naming \".\" (what git takes a missing commondir for: the git directory itself) is mounted at it for the run"* ]]
		[[ "$(req "$output" "no-create $WS/.git/config.worktree" why)" == "it does not exist; the name cannot be created: an empty read-only file is mounted at it"* ]]
		# The run needs nothing prepared, and leaves nothing behind.
		if [ "$(uname -s)" = Linux ]; then
			run "$SBXRUN" --allow-git -- sh -c "cat .git/commondir; touch '$WS/canary'"
			[ "$status" -eq 0 ]
			[ "$output" = . ]
			[ -e "$WS/canary" ]
			[ ! -e "$WS/.git/commondir" ]
		fi
	else
		[ "$(jget "$output" 'j["enforceable"]')" = false ]
		[ "$(req "$output" "no-create $WS/.git/commondir" status)" = unenforceable ]
		[[ "$(req "$output" "no-create $WS/.git/commondir" why)" == "$WS/.git/commondir does not exist; refusing its creation needs a mount namespace"* ]]
		[[ "$(req "$output" "no-create $WS/.git/commondir" hint)" == "run without --allow-git"* ]]
		[ "$(jget "$output" 'j["argv"]')" = null ]
	fi
}

@test "the helper's command line carries the mode; the profile does not" {
	run "$SBXRUN" explain --platform linux --json -p :read-only --allow-git -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
	[ "$(jget "$output" 'j["argv"][j["argv"].index("--")-1]')" = --allow-git ]
	mode=$(jget "$output" 'j["profile"]')
	run "$SBXRUN" explain --platform linux --json -p :read-only -- true
	[ "$(jget "$output" '"--allow-git" in j["argv"]')" = false ]
	[ "$(jget "$output" 'j["profile"]')" = "$mode" ]
}

@test "access: each path, and the rule that keeps it" {
	run "$SBXRUN" access --allow-git .git/index .git/hooks/pre-commit .git/config \
		.git/modules/sub/hooks/post-checkout .git/worktrees/wt/commondir .git/objects src/a.c
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "write  $WS/.git/index  (entries[1]: write .git (git mode, in write $WS))" ]
	[ "${lines[1]}" = "read   $WS/.git/hooks/pre-commit  (entries[1]: read-only .git/hooks (git mode: git runs the programs in it))" ]
	[ "${lines[2]}" = "read   $WS/.git/config  (entries[1]: read-only .git/config (git mode: it can name programs git runs))" ]
	[ "${lines[3]}" = "read   $WS/.git/modules/sub/hooks/post-checkout  (entries[1]: read-only .git/modules/sub/hooks (git mode: git runs the programs in it))" ]
	[ "${lines[4]}" = "read   $WS/.git/worktrees/wt/commondir  (entries[1]: read-only .git/worktrees/wt/commondir (git mode: it sends git to another git directory))" ]
	[ "${lines[5]}" = "write  $WS/.git/objects  (entries[1]: write .git (git mode, in write $WS))" ]
	[ "${lines[6]}" = "write  $WS/src/a.c  (entries[1]: write $WS)" ]
	# A kept name that is missing is kept from being created.
	run "$SBXRUN" access --allow-git .git/config.worktree
	[ "${lines[0]}" = "read   $WS/.git/config.worktree  (entries[1]: read-only .git/config.worktree (git mode: it can name programs git runs; missing: cannot be created))" ]
	# The control: without the mode, the read entry of :workspace decides.
	run "$SBXRUN" access .git/index
	[ "${lines[0]}" = "read   $WS/.git/index  (entries[4]: read-only .git (protected))" ]
}

@test "--allow-git belongs to run, explain and access; --help names it" {
	for sub in context convert probe; do
		run --separate-stderr "$SBXRUN" "$sub" --allow-git
		[ "$status" -eq 125 ]
		[[ "${stderr_lines[0]}" == "sbxrun: $sub: "*"'--allow-git'"* ]]
	done
	run "$SBXRUN" --help
	[[ "$output" == *"--allow-git "*"the git directory of each writable root writable"* ]]
	run "$SBXRUN" explain --allow-git -- true
	[[ "$output" == *"git mode:          on"* ]]
	# What the mode leaves writable that runs code is said where the mode is.
	[[ "$output" == *"git mode:          on (the git directories writable but for what runs code; not a hooks directory that core.hooksPath names inside one: sbxrun(1), GIT MODE)"* ]]
	run "$SBXRUN" explain -- true
	[[ "$output" != *"git mode:"* ]]
}

@test ":workspace-git is :workspace in git mode, wherever a profile name goes" {
	# The same plan, but for the rows of /tmp's protected names, which another run going at
	# the same time (a test tier beside this one) may hold as its points.
	local same='{k: ([r for r in v if r["rule"].split(" ")[-1] not in ("/tmp/.git", "/tmp/.agents", "/tmp/.codex")] if k in ("requirements", "skipped") else v) for k, v in j.items()}'
	run "$SBXRUN" explain --platform linux --json --allow-git -- git commit
	[ "$status" -eq 0 ]
	want=$(jget "$output" "$same")
	run "$SBXRUN" explain --platform linux --json -p :workspace-git -- git commit
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["allow_git"]')" = true ]
	[ "$(jget "$output" "$same")" = "$want" ]
	run "$SBXRUN" access -p :workspace-git .git/index .git/hooks/pre-commit
	[ "${lines[0]}" = "write  $WS/.git/index  (entries[1]: write .git (git mode, in write $WS))" ]
	[ "${lines[1]}" = "read   $WS/.git/hooks/pre-commit  (entries[1]: read-only .git/hooks (git mode: git runs the programs in it))" ]
	run "$SBXRUN" explain -p :workspace-git -- true
	[[ "$output" == *"profile:           :workspace-git"*"git mode:          on"* ]]
	if [ "$(uname -s)" = Linux ]; then
		echo b >"$WS/a"
		run "$SBXRUN" -p :workspace-git -- git commit -qam b
		[ "$status" -eq 0 ]
		[ "$(git -C "$WS" log -1 --format=%s)" = b ]
		# The control: :workspace keeps .git read-only.
		echo c >"$WS/a"
		run "$SBXRUN" -p :workspace -- git commit -qam c
		[ "$status" -ne 0 ]
		[ "$(git -C "$WS" log -1 --format=%s)" = b ]
	fi
}

@test "convert refuses :workspace-git: a profile cannot hold the git mode" {
	run --separate-stderr "$SBXRUN" convert --to profile :workspace-git
	[ "$status" -eq 125 ]
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "sbxrun: convert: :workspace-git is :workspace in git mode, which a profile cannot hold; hint: convert :workspace, and run the profile with --allow-git" ]
	run "$SBXRUN" convert --to profile :workspace
	[ "$status" -eq 0 ]
}
