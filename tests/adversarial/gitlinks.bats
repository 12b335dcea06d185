#!/usr/bin/env bats
# The checkouts git status recurses into are the index's gitlinks (mode 160000), wherever their
# git directory lies: a repository already in the tree that `git submodule add` takes in keeps
# its git directory in the checkout (an embedded one), with no .git/modules/ entry at all. Run 1,
# confined, tries to plant a command in such a git directory's config or hooks, or to make one
# where a gitlink's checkout has none; the user's next plain git status (outside any sandbox)
# must run nothing. .gitmodules is the command's to edit: it never takes protection away.
load common

setup() {
	make_layout_vars
	git_env
	TOP="$BASE/gl-$BATS_TEST_NUMBER"
	WSG="$TOP/ws"
	rm -rf "$TOP"
	mkdir -p "$TOP"
	new_canary "$TOP"
	SBX_CWD=$WSG
	PROFILE=$(profile restricted $(workspace_entries))
	G=(git -c protocol.file.allow=always)
}

teardown() { rm -rf "$TOP"; }

# embedded HOW: the workspace WSG with the repository vend, already in its tree, taken in as a
# gitlink: by git submodule add (HOW "submodule") or by git add alone, no .gitmodules ("add").
embedded() {
	"${G[@]}" init -q "$WSG"
	"${G[@]}" -C "$WSG" commit -q --allow-empty -m init
	"${G[@]}" init -q "$WSG/vend"
	echo v >"$WSG/vend/file"
	"${G[@]}" -C "$WSG/vend" add file
	"${G[@]}" -C "$WSG/vend" commit -qm v
	if [ "$1" = submodule ]; then
		"${G[@]}" -C "$WSG" submodule add -q ./vend vend 2>/dev/null
	else
		"${G[@]}" -C "$WSG" add vend 2>/dev/null
	fi
	"${G[@]}" -C "$WSG" commit -qm vend
	[ -d "$WSG/vend/.git" ]
	[ ! -e "$WSG/.git/modules/vend" ]
	[ "$("${G[@]}" -C "$WSG" ls-files -s vend | cut -c1-6)" = 160000 ]
}

# holds MODE: in MODE (plain, or git for --allow-git) run 1 cannot plant a command in vend's git
# directory, and the user's next git status runs none.
holds() {
	local run=(sbx)
	[ "$1" = plain ] || run=("$BIN/sbxrun" --allow-git -C "$WSG" --)
	# Positive control: the checkout's own files are the command's.
	run "${run[@]}" "$P" write "$WSG/vend/file"
	[ "$output" = OK ]
	run "${run[@]}" "$P" append "$WSG/vend/.git/config"
	[ "$output" = EROFS ]
	run "${run[@]}" "$P" write "$WSG/vend/.git/hooks/post-checkout"
	[ "$output" = EROFS ]
	run "${run[@]}" sh -c "git -C '$WSG/vend' config core.fsmonitor 'touch $CANARY'"
	[ "$status" -ne 0 ]
	run git -C "$WSG" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
}

@test "an embedded submodule's config and hooks: run 1 cannot plant, in either mode" {
	embedded submodule
	holds plain
	holds git
}

@test "a gitlink without .gitmodules, and one run 1 removed .gitmodules for" {
	embedded add
	[ ! -e "$WSG/.gitmodules" ]
	holds plain
	rm -rf "$WSG"
	embedded submodule
	# Run 1 edits .gitmodules away (it is the command's file); run 2 holds all the same.
	run sbx sh -c "rm '$WSG/.gitmodules'"
	[ "$status" -eq 0 ]
	[ ! -e "$WSG/.gitmodules" ]
	holds plain
}

@test "a repository embedded in an embedded one: held as deep as the gitlinks go" {
	embedded submodule
	"${G[@]}" init -q "$WSG/vend/deep"
	"${G[@]}" -C "$WSG/vend/deep" commit -q --allow-empty -m d
	"${G[@]}" -C "$WSG/vend" add deep 2>/dev/null
	"${G[@]}" -C "$WSG/vend" commit -qm deep
	expect OK write "$WSG/vend/deep/new-file"
	expect EROFS append "$WSG/vend/deep/.git/config"
	expect EROFS write "$WSG/vend/deep/.git/hooks/pre-commit"
}

@test "a gitlink not checked out: run 1 cannot make its git directory" {
	embedded add
	# The user's own git rm of the checkout leaves the gitlink in the index (its directory gone).
	rm -rf "$WSG/vend"
	[ "$("${G[@]}" -C "$WSG" ls-files -s vend | cut -c1-6)" = 160000 ]
	local plant="mkdir -p '$WSG/vend' && git init -q '$WSG/vend' &&
		git -C '$WSG/vend' config core.fsmonitor 'touch $CANARY'"
	run sbx sh -c "$plant"
	[ "$status" -ne 0 ]
	[ ! -e "$WSG/vend/.git" ]
	run "$BIN/sbxrun" --allow-git -C "$WSG" -- sh -c "$plant"
	[ "$status" -ne 0 ]
	[ ! -e "$WSG/vend/.git" ]
	# An empty checkout directory (a clone without its submodules) is kept read-only whole:
	# an empty directory mounted at its .git is one git status dies on.
	mkdir "$WSG/vend"
	expect EROFS mkdir "$WSG/vend/.git"
	expect EROFS write "$WSG/vend/file"
	[ ! -e "$WSG/vend/.git" ]
	run sbx git -C "$WSG" status --short
	[ "$status" -eq 0 ]
	# Positive control: beside it the workspace is the command's.
	expect OK write "$WSG/other-file"
	run git -C "$WSG" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
}

# A clone without --recurse-submodules leaves an empty directory at each submodule's path, and
# no git directory anywhere: run 1 must not make one there for the user's next git status.
@test "a clone without its submodules: run 1 cannot make a submodule's git directory" {
	embedded submodule
	"${G[@]}" clone -q "$WSG" "$TOP/clone"
	[ -d "$TOP/clone/vend" ]
	[ ! -e "$TOP/clone/vend/.git" ]
	SBX_CWD=$TOP/clone
	local plant="git init -q '$TOP/clone/vend' &&
		git -C '$TOP/clone/vend' config core.fsmonitor 'touch $CANARY'"
	run sbx sh -c "$plant"
	[ "$status" -ne 0 ]
	run "$BIN/sbxrun" --allow-git -C "$TOP/clone" -- sh -c "$plant"
	[ "$status" -ne 0 ]
	[ ! -e "$TOP/clone/vend/.git" ]
	# Git status inside runs (the submodule not checked out), and outside runs nothing.
	run sbx git -C "$TOP/clone" status --short
	[ "$status" -eq 0 ]
	expect OK write "$TOP/clone/new-file"
	run git -C "$TOP/clone" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
}

# Git mode and a submodule the user initialised (git submodule init) but did not check out: git
# submodule update would make its git directory under modules/, whose config the command writes
# in the same run, and the .git in its checkout that the user's git status then enters. Its
# empty checkout is read-only whole, so the update fails before git enters it; the user checks
# it out outside.
@test "git mode: run 1 cannot check out a submodule the user initialised and plant its config" {
	embedded submodule
	"${G[@]}" clone -q "$WSG" "$TOP/clone"
	"${G[@]}" -C "$TOP/clone" submodule init -q
	[ ! -e "$TOP/clone/vend/.git" ]
	local plant="git -c protocol.file.allow=always submodule update -q;
		git config -f .git/modules/vend/config core.fsmonitor 'touch $CANARY'"
	run "$BIN/sbxrun" --allow-git -C "$TOP/clone" -- sh -c "$plant"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Read-only file system"* ]]
	[ ! -e "$TOP/clone/vend/.git" ]
	run git -C "$TOP/clone" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
	# Positive control: git mode commits beside it.
	run "$BIN/sbxrun" --allow-git -C "$TOP/clone" -- sh -c "echo n >new && git add new &&
		git commit -qm new"
	[ "$status" -eq 0 ]
}

@test "an index sbxrun cannot read is refused, never taken for one without gitlinks" {
	embedded submodule
	cp "$WSG/.git/index" "$TOP/index.good"
	printf 'XIRC' | dd of="$WSG/.git/index" conv=notrunc status=none
	run sbx "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	local said=${lines[0]}
	run "$BIN/sbxrun" explain -C "$WSG"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "$said" ]
	# A split index keeps the entries elsewhere: refused, naming the fix.
	cp "$TOP/index.good" "$WSG/.git/index"
	"${G[@]}" -C "$WSG" update-index --split-index
	run sbx "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds a split index (the link extension)*"
	[[ "$output" == *"git update-index --no-split-index"* ]]
	"${G[@]}" -C "$WSG" update-index --no-split-index
	# Positive control: the index git writes whole is read.
	expect OK write "$WSG/vend/file"
	expect EROFS append "$WSG/vend/.git/config"
}

# A gitlink's .git file naming its git directory relatively ("gitdir: gd"): git reads it from
# the checkout the file lies in, and that directory is the one kept from the command.
@test "a gitlink's relative gitdir: held where git reads it, from the checkout" {
	embedded submodule
	mv "$WSG/vend/.git" "$WSG/vend/gd"
	echo "gitdir: gd" >"$WSG/vend/.git"
	[ "$(git -C "$WSG/vend" rev-parse --absolute-git-dir)" = "$WSG/vend/gd" ]
	expect OK write "$WSG/vend/file"
	expect EROFS append "$WSG/vend/gd/config"
	expect EROFS write "$WSG/vend/gd/hooks/post-checkout"
	run sbx sh -c "git -C '$WSG/vend' config core.fsmonitor 'touch $CANARY'"
	[ "$status" -ne 0 ]
	run git -C "$WSG" status
	[ "$status" -eq 0 ]
	[ ! -e "$CANARY" ]
}

# run leaves the gitlinks to the helper, whose plan is the one enforced (each index is read
# through once a start); a plan refused without them is made again with them, so that run
# refuses in the words of the whole plan, whose gitlinks come before what follows them.
@test "run refuses an index run 1 broke in the whole plan's words, beside a later fault" {
	embedded submodule
	cp "$WSG/.git/index" "$TOP/index.good"
	mkdir "$WSG/gcfg"
	CANARY="$WSG/canary" # in the writable root: made by any run that runs the command
	# Run 1, in git mode (the index is the command's to write there), breaks the index.
	run "$BIN/sbxrun" --allow-git -C "$WSG" -- sh -c "printf XIRC | dd of=.git/index \
		conv=notrunc status=none"
	# Git mode's end-of-run check cannot read the index run 1 broke: said, exit 1.
	[ "$status" -eq 1 ]
	[[ $output == "sbxrun: git mode: $WSG/.git/index cannot be checked after the run "* ]]
	run "$BIN/sbxrun" explain -C "$WSG"
	[ "$status" -eq 125 ]
	local said=${lines[0]}
	[[ "$said" == "sbxrun: $WSG/.git/index holds no index signature: "* ]]
	# Run 2 is refused in those words, by run and not past it: with a plan that is not
	# enforceable without them (no seccomp), with a later fault of its own (a global config
	# that is no file), and as shown (-v).
	run "$BIN/failinj" seccomp -- "$BIN/sbxrun" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	[ "${lines[0]}" = "$said" ]
	run env GIT_CONFIG_GLOBAL="$WSG/gcfg" "$BIN/sbxrun" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	[ "${lines[0]}" = "$said" ]
	run "$BIN/sbxrun" -v -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	# And by the helper when nothing else refuses: the same line, nothing run.
	run "$BIN/sbxrun" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	[ "${lines[0]}" = "$said" ]
	# Positive controls: the index git writes, then each later fault in its own words.
	cp "$TOP/index.good" "$WSG/.git/index"
	run "$BIN/failinj" seccomp -- "$BIN/sbxrun" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: cannot enforce \"network restricted\" on linux: *seccomp*"
	run env GIT_CONFIG_GLOBAL="$WSG/gcfg" "$BIN/sbxrun" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: git's global config $WSG/gcfg is no regular file *"
	run "$BIN/sbxrun" -C "$WSG" -- "$P" write "$CANARY"
	echo "status $status: $output"
	[ "$status" -eq 0 ]
	[ "$output" = OK ]
	[ -e "$CANARY" ]
}

# Nor does a fault of a name run checks against its plan (--report, and --network-log, which the
# helper checks before it asks whether its plan holds) or of the network's options come first:
# the whole plan's fails before either, whether the gitlinks fail it (an index run 1 broke) or
# hold a requirement that cannot be enforced (a gitlink's .git names a file with another name).
@test "a gitlink's fault is refused before --report, --network-log and the network options" {
	embedded submodule
	cp "$WSG/.git/index" "$TOP/index.good"
	CANARY="$WSG/canary"
	ln -s "$TOP/nowhere" "$TOP/link"
	run "$BIN/sbxrun" --allow-git -C "$WSG" -- sh -c "printf XIRC | dd of=.git/index \
		conv=notrunc status=none"
	# Git mode's end-of-run check cannot read the index run 1 broke: said, exit 1.
	[ "$status" -eq 1 ]
	[[ $output == "sbxrun: git mode: $WSG/.git/index cannot be checked after the run "* ]]
	run "$BIN/sbxrun" explain -C "$WSG"
	[ "$status" -eq 125 ]
	local said=${lines[0]}
	[[ "$said" == "sbxrun: $WSG/.git/index holds no index signature: "* ]]
	run "$BIN/sbxrun" --report "$TOP/link" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	[ "${lines[0]}" = "$said" ]
	run "$BIN/sbxrun" --allow-unix-socket '' -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	[ "${lines[0]}" = "$said" ]
	# The same with the profile read from a stream (standard input, a pipe), which a second
	# plan could not read again: the whole plan is made once.
	local prof='{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"path","path":"'$WSG'"},"access":"write"}]},"network":"restricted"}'
	run "$BIN/sbxrun" -p - --allow-unix-socket '' -C "$WSG" -- "$P" write "$CANARY" <<<"$prof"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	run "$BIN/sbxrun" -p <(echo "$prof") --allow-unix-socket '' -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	run "$BIN/sbxrun" --add-permissions - --allow-unix-socket '' -C "$WSG" -- "$P" write \
		"$CANARY" <<<'{"network":{"enabled":false}}'
	refused "sbxrun: $WSG/.git/index holds no index signature: *"
	# Run 1's layout: vend's .git names a file with a second name, whose deny cannot hold.
	cp "$TOP/index.good" "$WSG/.git/index"
	rm -rf "$WSG/vend/.git"
	echo x >"$WSG/tgt"
	ln "$WSG/tgt" "$WSG/tgt2"
	echo "gitdir: $WSG/tgt" >"$WSG/vend/.git"
	run "$BIN/sbxrun" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: cannot enforce \"deny $WSG/tgt\" on linux: *hard links*"
	said=${lines[0]}
	run "$BIN/sbxrun" --report "$TOP/link" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: cannot enforce \"deny $WSG/tgt\" on linux: *"
	[ "${lines[0]}" = "$said" ]
	[ ! -L "$TOP/nowhere" ]
	run "$BIN/sbxrun" --allow-domain example.com --network-log "$TOP/fresh.log" -C "$WSG" -- \
		"$P" write "$CANARY"
	refused "sbxrun: cannot enforce *"
	said=${lines[0]}
	[ ! -e "$TOP/fresh.log" ]
	run "$BIN/sbxrun" --allow-domain example.com --network-log "$TOP/link" -C "$WSG" -- \
		"$P" write "$CANARY"
	refused "sbxrun: cannot enforce *"
	[ "${lines[0]}" = "$said" ]
	# Positive controls: with one name to the file, each fault in its own words.
	rm "$WSG/tgt2"
	run "$BIN/sbxrun" --report "$TOP/link" -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: --report $TOP/link: is a symbolic link, *"
	run "$BIN/sbxrun" --allow-domain example.com --network-log "$TOP/link" -C "$WSG" -- \
		"$P" write "$CANARY"
	refused "sbxrun: --network-log $TOP/link: is a symbolic link, *"
	run "$BIN/sbxrun" --allow-unix-socket '' -C "$WSG" -- "$P" write "$CANARY"
	refused "sbxrun: a Unix socket path is empty"
	run "$BIN/sbxrun" -C "$WSG" -- "$P" write "$CANARY"
	[ "$status" -eq 0 ]
	[ "$output" = OK ]
}

# index_lookups INDEX: how many times the last traced start ($BATS_TEST_TMPDIR/trace) opened
# the index by name to read it (once a reading: the resolver's O_PATH look-up, which the helper
# reads through, or the host's view's openat2 that reads it in run's half).
index_lookups() {
	grep -c "\"$1\".*) = [0-9]*$" "$BATS_TEST_TMPDIR/trace" || true
}

@test "each git index is read once a start, by the helper; run -v reads it to show the plan" {
	embedded submodule
	# LeakSanitizer (an ASan build) cannot run under a tracer.
	local trace=(env ASAN_OPTIONS=detect_leaks=0 strace -f -qq -e trace=openat2,openat,open
		-o "$BATS_TEST_TMPDIR/trace")
	run "${trace[@]}" "$BIN/sbxrun" -C "$WSG" -- "$P" append "$WSG/vend/.git/config"
	[ "$output" = EROFS ]
	[ "$(index_lookups "$WSG/.git/index")" -eq 1 ]
	[ "$(index_lookups "$WSG/vend/.git/index")" -eq 1 ]
	# Controls: explain reads each once; run -v, which prints the plan, twice (its own plan
	# and the helper's), and holds all the same.
	run "${trace[@]}" "$BIN/sbxrun" explain -C "$WSG"
	[ "$status" -eq 0 ]
	[ "$(index_lookups "$WSG/.git/index")" -eq 1 ]
	[ "$(index_lookups "$WSG/vend/.git/index")" -eq 1 ]
	run "${trace[@]}" "$BIN/sbxrun" -v -C "$WSG" -- "$P" append "$WSG/vend/.git/config"
	[ "${lines[-1]}" = EROFS ]
	[ "$(index_lookups "$WSG/.git/index")" -eq 2 ]
	[ "$(index_lookups "$WSG/vend/.git/index")" -eq 2 ]
}
