#!/usr/bin/env bats
# The caller's global git config (~/.gitconfig, ~/.config/git/config, GIT_CONFIG_GLOBAL) when
# HOME lies in a writable root (:workspace run from the home directory, a CI job whose HOME is
# its checkout): git runs what it holds (core.fsmonitor, core.hooksPath, alias.x=!cmd) for every
# repository of the caller, outside any sandbox. Run 1 is the hostile command planting one,
# run 2 must hold, and the caller's plain git afterwards takes nothing planted.
load common
bats_require_minimum_version 1.5.0

setup() {
	make_layout_vars
	H="$BASE/home-$BATS_TEST_NUMBER"
	rm -rf "$H"
	mkdir -p "$H/.config"
	unset XDG_CONFIG_HOME GIT_CONFIG_GLOBAL
	export HOME="$H" GIT_CONFIG_NOSYSTEM=1
	new_canary "$H"
	SYNC=$H
}

# release: lets a run waiting on $SYNC/go end (once; teardown too, after a failed check).
release() {
	if [ -p "$SYNC/go" ]; then
		echo go >"$SYNC/go"
		rm -f "$SYNC/go"
	fi
}

teardown() {
	release
	chmod -R u+rwx "$H" 2>/dev/null || true
	rm -rf "$H"
}

# hold [-C DIR]: a run (in the home directory, or DIR, where its FIFOs lie) that waits inside
# its sandbox until release; its stderr goes to $H/stderr. Returns once the command runs (the
# timeout only keeps a run that never started from hanging the suite). held releases it and
# sets $st to sbxrun's exit status.
hold() {
	SYNC=$H
	[ "${1:-}" != -C ] || SYNC=$2
	rm -f "$SYNC/ready" "$SYNC/go"
	mkfifo "$SYNC/ready" "$SYNC/go"
	"$BIN/sbxrun" -C "$SYNC" -w "$SYNC" -- sh -c "echo up >'$SYNC/ready'; cat '$SYNC/go' >/dev/null" \
		2>"$H/stderr" &
	holder=$!
	[ "$(timeout 60 cat "$SYNC/ready")" = up ]
}
held() {
	release
	st=0
	wait "$holder" || st=$?
	cat "$H/stderr"
}

# hsbx CMD...: sbxrun with :workspace in the home directory. The root is named with -w: the same
# root as the cwd's, without the warning that it holds HOME (the first test shows both), so that
# the output compared is the command's and sbxrun's refusals alone.
hsbx() { "$BIN/sbxrun" -C "$H" -w "$H" -- "$@"; }
# hexpect ERRNO OP ARG...: the probe there prints exactly ERRNO (or OK).
hexpect() {
	local want=$1
	shift
	run hsbx "$P" "$@"
	echo "probe $* -> $output (want $want)"
	[ "$output" = "$want" ]
}
# global KEY: what the caller's own git takes for KEY from its global config and what it
# includes (empty: none).
global() { git config --includes --global --get "$1" || true; }

@test "an existing ~/.gitconfig: run 1 cannot plant core.fsmonitor, the caller's git takes none" {
	printf '[user]\n\tname = u\n' >"$H/.gitconfig"
	hexpect EROFS write "$H/.gitconfig"
	run hsbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY\n' >>'$H/.gitconfig'"
	[ "$status" -ne 0 ]
	hexpect EROFS write "$H/.gitconfig"
	hexpect EBUSY rename "$H/.gitconfig" "$H/moved"
	[ -z "$(global core.fsmonitor)" ]
	[ "$(global user.name)" = u ]
	# Positive control: a file beside it in HOME is the command's.
	hexpect OK write "$H/other"
	# The root taken from the cwd, unnamed: the warning, on stderr alone; named, none.
	run --separate-stderr "$BIN/sbxrun" -C "$H" -- "$P" write "$H/.gitconfig"
	[ "$output" = EROFS ]
	[ "$stderr" = "sbxrun: warning: the workspace root $H holds your home directory: the command may write all of it (the shell's start-up files, .ssh); hint: run from the project's directory, or name it with -C DIR or -w DIR" ]
	run --separate-stderr hsbx "$P" write "$H/.gitconfig"
	[ "$output" = EROFS ]
	[ "$stderr" = "" ]
}

@test "a missing ~/.gitconfig and ~/.config/git/config: run 1 cannot create them" {
	hexpect EROFS write "$H/.gitconfig"
	hexpect EROFS write "$H/.config/git/config"
	run hsbx sh -c "mkdir -p '$H/.config/git' && printf '[alias]\n\tx = !touch $CANARY\n' >'$H/.config/git/config'"
	[ "$status" -ne 0 ]
	hexpect EROFS write "$H/.config/git/config"
	# Nothing left behind: the caller's git finds no global config.
	[ ! -e "$H/.gitconfig" ]
	[ ! -e "$H/.config/git" ]
	[ -z "$(global alias.x)" ]
	# Positive control: the other programs' ~/.config stays the command's.
	hexpect OK mkdir "$H/.config/tool"
	hexpect OK write "$H/.config/tool.conf"
}

@test "a missing ~/.gitconfig: runs at once share its point, and none is left after them" {
	mkfifo "$H/ready" "$H/go"
	hsbx sh -c "echo up >'$H/ready'; cat '$H/go' >/dev/null" &
	holder=$!
	# Run 1 is inside its sandbox: the point is on the host, empty, which git reads as none.
	cat "$H/ready"
	[ -f "$H/.gitconfig" ]
	[ ! -s "$H/.gitconfig" ]
	[ -z "$(global user.name)" ]
	# Run 2 meanwhile takes the same point, and cannot write through it either.
	hexpect EROFS write "$H/.gitconfig"
	release
	wait "$holder"
	[ ! -e "$H/.gitconfig" ]
	# Positive control: beside it, the command's.
	hexpect OK write "$H/.gitconfig-not"
}

@test "the caller's git config --global during a run over a missing ~/.gitconfig: left, exit 1" {
	hold
	# In another terminal meanwhile, the caller's own git writes its global config: over the
	# empty point, which git renames its lock file onto.
	git config --global a.b c
	held
	[ "$(git config --file "$H/.gitconfig" --get a.b)" = c ]
	[ "$(global a.b)" = c ]
	[ "$st" -eq 1 ]
	[ "$(cat "$H/stderr")" = "sbxrun: the caller's global git config was created on the host during the run; left in place: $H/.gitconfig" ]
	# Positive control: with nothing written meanwhile, the point itself goes, and exit 0.
	rm "$H/.gitconfig"
	hold
	[ -f "$H/.gitconfig" ]
	held
	[ "$st" -eq 0 ]
	[ ! -s "$H/stderr" ]
	[ ! -e "$H/.gitconfig" ]
}

@test "a config made in ~/.config/git on the host during the run: left with its directory" {
	hold
	# The point is an empty directory of mode 01555: the caller's tool makes git's anew.
	[ -d "$H/.config/git" ]
	rmdir "$H/.config/git"
	mkdir "$H/.config/git"
	git config --file "$H/.config/git/config" a.b d
	held
	[ "$(global a.b)" = d ]
	[ "$st" -eq 1 ]
	[ "$(cat "$H/stderr")" = "sbxrun: the caller's global git config was created on the host during the run; left in place: $H/.config/git" ]
	# Positive control: a protected name's point keeps Codex's rule, what is made there goes.
	mkdir "$H/ws"
	hold -C "$H/ws"
	rmdir "$H/ws/.codex"
	mkdir "$H/ws/.codex"
	echo x >"$H/ws/.codex/config.toml"
	held
	[ "$st" -eq 1 ]
	[ "$(cat "$H/stderr")" = "sbxrun: removed what was created on the host during the run: $H/ws/.codex" ]
	[ ! -e "$H/ws/.codex" ]
}

@test "a missing ~/.config: made (0700, the caller's), and git's directory in it still kept" {
	rmdir "$H/.config"
	# Run 1 tries to plant git's config where nothing was; before this was made, it refused (125).
	run hsbx sh -c "mkdir -p '$H/.config/git' && printf '[alias]\n\tx = !touch $CANARY\n' >'$H/.config/git/config'"
	echo "status $status: $output"
	[ "$status" -ne 0 ]
	[ "$status" -ne 125 ]
	[[ "$output" == *"$H/.config/git/config: Read-only file system"* ]]
	[ -d "$H/.config" ]
	[ "$(stat -c %a "$H/.config")" = 700 ]
	[ "$(stat -c %u "$H/.config")" = "$(id -u)" ]
	[ ! -e "$H/.config/git" ]
	[ -z "$(global alias.x)" ]
	[ ! -e "$CANARY" ]
	# Run 2, ~/.config now there: the same.
	hexpect EROFS write "$H/.config/git/config"
	hexpect EROFS mkdir "$H/.config/git/sub"
	# Positive control: the rest of ~/.config is the command's.
	hexpect OK write "$H/.config/tool.conf"
}

@test "a link planted at a missing ~/.config still refuses; XDG_CONFIG_HOME missing is not made" {
	rmdir "$H/.config"
	mkdir "$H/elsewhere"
	ln -s elsewhere "$H/.config"
	run hsbx touch "$CANARY"
	refused "sbxrun: git's global config $H/.config/git/config is reached through the symbolic link $H/.config inside a writable root: *"
	[ ! -e "$H/elsewhere/git" ]
	# A missing XDG_CONFIG_HOME names the caller's choice: refused as before, nothing made.
	rm "$H/.config"
	export XDG_CONFIG_HOME="$H/xdg"
	run hsbx touch "$CANARY"
	refused "sbxrun: git's global config $H/xdg/git/config is missing, and so is its directory $H/xdg/git, which the command could make from $H/xdg in a writable root: *"
	[ ! -e "$H/xdg" ]
	[ ! -e "$H/.config" ]
	# Positive control: made by the caller, the run goes on and git's directory is kept.
	mkdir "$H/xdg"
	hexpect EROFS write "$H/xdg/git/config"
	hexpect OK write "$H/xdg/tool.conf"
}

@test "a home reached through a link planted in a writable root: nothing made where it leads" {
	# Run 1 replaced the home directory, in the workspace, with a link to a directory outside
	# the writable roots that has no ~/.config: run 2 must make nothing there, and refuse.
	mkdir "$H/ws" "$H/out"
	ln -s ../out "$H/ws/home"
	run env HOME="$H/ws/home" "$BIN/sbxrun" -C "$H/ws" -- touch "$CANARY"
	refused "sbxrun: git's global config $H/ws/home/.config/git/config is reached through the symbolic link $H/ws/home inside a writable root: *"
	[ ! -e "$H/out/.config" ]
	# Positive control: the same home as a directory gets its ~/.config.
	rm "$H/ws/home"
	mkdir "$H/ws/home"
	run env HOME="$H/ws/home" "$BIN/sbxrun" -C "$H/ws" -- true
	[ "$status" -eq 0 ]
	[ -d "$H/ws/home/.config" ]
}

@test "a missing ~/.config under --sandbox forbid: nothing confined, nothing made" {
	rmdir "$H/.config"
	run "$BIN/sbxrun" --sandbox forbid -C "$H" -w "$H" -- true
	[ "$status" -eq 0 ]
	[ ! -e "$H/.config" ]
	# Positive control: confined, it is made.
	run hsbx true
	[ "$status" -eq 0 ]
	[ -d "$H/.config" ]
}

@test "no directory where git's goes (left by a run that kept another): refused, not skipped" {
	# Run 1 had XDG_CONFIG_HOME elsewhere, so ~/.config/git was not git's: it plants a file
	# there, which git reads nothing through, and a later run could make a directory of.
	mkdir "$H/xdg"
	XDG_CONFIG_HOME="$H/xdg" hsbx sh -c "echo x >'$H/.config/git'"
	[ -f "$H/.config/git" ]
	run hsbx sh -c "rm '$H/.config/git' && mkdir '$H/.config/git' && touch '$CANARY'"
	refused "sbxrun: git's global config $H/.config/git/config is missing, and $H/.config/git on its way is no directory *"
	[[ "$output" == *"hint: remove it and make the directory (mkdir -p $H/.config/git)"* ]]
	# A FIFO there, and ~/.config itself a file, the same.
	XDG_CONFIG_HOME="$H/xdg" hsbx sh -c "rm '$H/.config/git' && mkfifo '$H/.config/git'"
	[ -p "$H/.config/git" ]
	run hsbx touch "$CANARY"
	refused "sbxrun: git's global config $H/.config/git/config is missing, and $H/.config/git on its way is no directory *"
	XDG_CONFIG_HOME="$H/xdg" hsbx sh -c "rm -r '$H/.config' && echo x >'$H/.config'"
	[ -f "$H/.config" ]
	run hsbx touch "$CANARY"
	refused "sbxrun: git's global config $H/.config/git/config is missing, and $H/.config on its way is no directory *"
	# Positive control: a directory there again, the run goes on, and git's is kept.
	rm "$H/.config"
	mkdir "$H/.config"
	hexpect EROFS write "$H/.config/git/config"
	hexpect OK write "$H/.config/tool.conf"
}

@test "a hard link to ~/.gitconfig (made by a run that kept another): refused" {
	printf '[user]\n\tname = u\n' >"$H/.gitconfig"
	# Run 1's caller had GIT_CONFIG_GLOBAL elsewhere: ~/.gitconfig was not git's to keep.
	GIT_CONFIG_GLOBAL="$H/elsewhere" hsbx ln "$H/.gitconfig" "$H/other"
	[ "$(stat -c %h "$H/.gitconfig")" -eq 2 ]
	run hsbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY\n' >>'$H/other'"
	refused "sbxrun: git's global config $H/.gitconfig has more than one name (a hard link), *"
	[ -z "$(global core.fsmonitor)" ]
	# Positive control: a name of its own again, the run goes on and it stays read-only.
	rm "$H/other"
	hexpect EROFS write "$H/.gitconfig"
	hexpect OK write "$H/other"
}

@test "GIT_CONFIG_GLOBAL: that file alone, kept read-only; no regular file there refuses" {
	mkdir "$H/cfg"
	printf '[user]\n\tname = g\n' >"$H/cfg/global"
	export GIT_CONFIG_GLOBAL="$H/cfg/global"
	hexpect EROFS write "$H/cfg/global"
	[ "$(global user.name)" = g ]
	# ~/.gitconfig is no global config of this caller's git: the command's.
	hexpect OK write "$H/.gitconfig"
	rm -f "$H/.gitconfig"
	rm "$H/cfg/global"
	mkfifo "$H/cfg/global"
	run hsbx touch "$CANARY"
	refused "sbxrun: git's global config $H/cfg/global is no regular file *"
}

@test "an error looking up the global config refuses: a link loop, a parent made unreadable" {
	ln -s loop "$H/loop"
	export GIT_CONFIG_GLOBAL="$H/loop/cfg"
	run hsbx touch "$CANARY"
	refused "sbxrun: cannot check git's global config $H/loop/cfg, *: looking up $H/loop/cfg: $(errtext ELOOP)"
	# A parent chmod-ed by run 1 (root reads through it: only the other user meets EACCES).
	mkdir -p "$H/locked"
	export GIT_CONFIG_GLOBAL="$H/locked/cfg"
	run hsbx chmod 000 "$H/locked"
	run hsbx touch "$CANARY"
	if as_root; then
		[ "$status" -eq 0 ]
	else
		refused "sbxrun: cannot check git's global config $H/locked/cfg, *: looking up $H/locked/cfg: $(errtext EACCES)"
	fi
}

@test "an include through ~/ is the caller's HOME: kept read-only, nothing planted there runs" {
	printf '[include]\n\tpath = ~/inc.cfg\n' >"$H/.gitconfig"
	printf '[user]\n\tname = i\n' >"$H/inc.cfg"
	hexpect EROFS write "$H/inc.cfg"
	run hsbx sh -c "printf '[core]\n\tpager = touch $CANARY\n' >>'$H/inc.cfg'"
	[ "$status" -ne 0 ]
	[ -z "$(global core.pager)" ]
	[ "$(global user.name)" = i ]
	# A missing one is kept from being made.
	printf '[include]\n\tpath = ~/later.cfg\n' >"$H/.gitconfig"
	hexpect EROFS write "$H/later.cfg"
	[ ! -e "$H/later.cfg" ]
	hexpect OK write "$H/other"
}

@test "--write of HOME and git mode lift nothing: only an entry naming the file itself does" {
	printf '[user]\n\tname = u\n' >"$H/.gitconfig"
	run "$BIN/sbxrun" -C "$H" -w "$H" --write "$H" --allow-git -- "$P" write "$H/.gitconfig"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" -C "$H" -w "$H" --write "$H/.gitconfig" -- "$P" write "$H/.gitconfig"
	[ "$output" = OK ]
}

@test "a global config at the top of the file system: its whole name is kept, not a shorter one" {
	# (The user and pid in the name: / is the other pass's too.)
	local top="/.sbxrun-globalgit-$SBX_USER-$$"
	[ ! -e "$top" ]
	# HOME=/ (a service account's), or GIT_CONFIG_GLOBAL or XDG_CONFIG_HOME there, with / writable.
	run env XDG_CONFIG_HOME="$top" "$BIN/sbxrun" -C "$H" -w "$H" --write / -- touch "$CANARY"
	refused "sbxrun: git's global config $top/git/config is missing, and so is its directory $top/git, which the command could make from $top in a writable root: *"
	run env GIT_CONFIG_GLOBAL="$top" "$BIN/sbxrun" explain -C "$H" -w "$H" --write / -- true
	echo "$output"
	[ "$status" -eq 0 ]
	# Missing: an empty file at it for the run, whatever the name (git reads it as none).
	[[ "$output" == *$'\n'"  no-create $top "* ]]
	[[ "$output" != *$'\n'"  no-create /${top#/.} "* ]]
}

@test "a global config too large to read, HOME outside the roots: refused, the hint about it" {
	# Its includes, unread, could lie in a writable root: the run cannot tell, so it refuses.
	mkdir "$H/ws"
	python3 -c 'import sys; sys.stdout.write("[alias]\n" + "\ta = log --oneline\n" * 70000)' \
		>"$H/.gitconfig"
	run "$BIN/sbxrun" -C "$H/ws" -- touch "$CANARY"
	refused "sbxrun: $H/.gitconfig: it is over 1048576 bytes, *"
	[[ "$output" == *"hint: what a git config sbxrun keeps (a protected git directory's, the caller's global one) includes must be kept read-only: shorten the file"* ]]
	# Positive control: under the bound, the run goes on.
	printf '[alias]\n\ta = log\n' >"$H/.gitconfig"
	run "$BIN/sbxrun" -C "$H/ws" -- "$P" write "$H/ws/f"
	[ "$output" = OK ]
}

@test "a relative GIT_CONFIG_GLOBAL, XDG_CONFIG_HOME or HOME names a file in every directory: refused" {
	local v
	mkdir -p "$H/sub"
	for v in GIT_CONFIG_GLOBAL=gc XDG_CONFIG_HOME=cfg HOME=home; do
		# Run 1 would plant it below the directory the caller's git runs in later.
		run env "$v" "$BIN/sbxrun" -C "$H" -w "$H" -- sh -c "mkdir -p sub/cfg/git sub/home && printf '[alias]\n\tx = !touch $CANARY\n' | tee sub/gc sub/cfg/git/config sub/home/.gitconfig >/dev/null"
		refused "sbxrun: git's global config is named through a relative ${v%%=*}, *"
		[ ! -e "$H/sub/gc" ]
		[ -z "$(cd "$H/sub" && env "$v" git config --global --get alias.x)" ]
	done
	# Control: an absolute one is kept where git reads it, the run goes on.
	run env GIT_CONFIG_GLOBAL="$H/sub/gc" "$BIN/sbxrun" -C "$H" -w "$H" -- "$P" write "$H/sub/gc"
	[ "$output" = EROFS ]
	run env GIT_CONFIG_GLOBAL="$H/sub/gc" "$BIN/sbxrun" -C "$H" -w "$H" -- "$P" write "$H/sub/other"
	[ "$output" = OK ]
	# Without a writable root nothing could plant it: a relative one is no reason to refuse.
	run env GIT_CONFIG_GLOBAL=gc "$BIN/sbxrun" -C "$H" -w "$H" --profile :read-only -- "$P" write "$H/sub/gc"
	[ "$output" = EROFS ]
}

@test "a \"..\" in HOME or XDG_CONFIG_HOME follows what run 1 links before it: refused" {
	local v
	mkdir -p "$H/a" "$H/b/.config" "$H/c"
	for v in "HOME=$H/a/../b" "XDG_CONFIG_HOME=$H/a/../c"; do
		# Run 1 makes a a link, so that a/.. is x/, and plants the config git then reads there.
		run env "$v" "$BIN/sbxrun" -C "$H" -w "$H" -- sh -c "rmdir a && mkdir -p x/y x/b x/c/git && ln -s x/y a && printf '[alias]\n\tx = !touch $CANARY\n' | tee x/b/.gitconfig x/c/git/config >/dev/null"
		refused "sbxrun: git's global config is named through ${v%%=*}, whose \"..\" *"
		[ -d "$H/a" ]
		[ ! -e "$H/x" ]
		[ -z "$(env "$v" git config --global --get alias.x)" ]
	done
	# Control: the same directory named without "..": kept, and the run goes on.
	run env HOME="$H/b" "$BIN/sbxrun" -C "$H" -w "$H" -- "$P" write "$H/b/.gitconfig"
	[ "$output" = EROFS ]
	run env HOME="$H/b" "$BIN/sbxrun" -C "$H" -w "$H" -- "$P" write "$H/b/other"
	[ "$output" = OK ]
}

# system KEY: what the caller's own git takes for KEY from its system config (GIT_CONFIG_SYSTEM)
# and what that includes (empty: none).
system() { git config --includes --system --get "$1" || true; }

@test "GIT_CONFIG_SYSTEM in a writable root: run 1 plants nothing in it, its includes, or a missing one" {
	# The caller's git reads the system config for every repository, as it reads the global one.
	unset GIT_CONFIG_NOSYSTEM
	mkdir "$H/etc"
	printf '[user]\n\tname = s\n[include]\n\tpath = %s\n' "$H/etc/inc" >"$H/etc/gitconfig"
	printf '[user]\n\temail = s@x\n' >"$H/etc/inc"
	export GIT_CONFIG_SYSTEM="$H/etc/gitconfig"
	run hsbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY\n' | tee -a '$H/etc/gitconfig' '$H/etc/inc'"
	[ "$status" -ne 0 ]
	hexpect EROFS write "$H/etc/gitconfig"
	hexpect EROFS write "$H/etc/inc"
	hexpect EBUSY rename "$H/etc/gitconfig" "$H/etc/moved"
	[ -z "$(system core.fsmonitor)" ]
	[ "$(system user.name)" = s ]
	[ "$(system user.email)" = s@x ]
	# A missing one cannot be made, and nothing is left after the run.
	export GIT_CONFIG_SYSTEM="$H/etc/missing"
	hexpect EROFS write "$H/etc/missing"
	[ ! -e "$H/etc/missing" ]
	[ -z "$(system core.fsmonitor)" ]
	# Positive control: a file beside them is the command's.
	hexpect OK write "$H/etc/other"
	# A relative one names a file in whatever directory the caller's git runs in: refused.
	run env GIT_CONFIG_SYSTEM=etc/gitconfig "$BIN/sbxrun" -C "$H" -w "$H" -- "$P" write "$H/etc/other"
	refused "sbxrun: git's system config is named through a relative GIT_CONFIG_SYSTEM, *"
	# So does one through "..", which follows whatever run 1 links before it.
	run env GIT_CONFIG_SYSTEM="$H/etc/../etc/gitconfig" "$BIN/sbxrun" -C "$H" -w "$H" -- "$P" write "$H/etc/other"
	refused "sbxrun: git's system config is named through GIT_CONFIG_SYSTEM, whose \"..\" *"
}

@test "a missing system config in a writable root: git in the sandbox reads none, run 1 makes none" {
	# Git dies on a system config it cannot read (unlike a global one): a mask there would
	# stop every git the command runs. An empty file is mounted instead, which git reads as none.
	unset GIT_CONFIG_NOSYSTEM
	mkdir "$H/etc"
	export GIT_CONFIG_SYSTEM="$H/etc/gitconfig"
	run hsbx git config --system --list
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	hexpect EROFS write "$H/etc/gitconfig"
	run hsbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY\n' >'$H/etc/gitconfig'"
	[ "$status" -ne 0 ]
	[ ! -e "$H/etc/gitconfig" ]
	[ -z "$(system core.fsmonitor)" ]
	# Positive control: a file beside it is the command's.
	hexpect OK write "$H/etc/other"
}

@test "a system config the caller cannot read, outside the writable roots: nothing refused" {
	# The caller's git cannot read it either (it dies on one: that caller runs git with
	# GIT_CONFIG_NOSYSTEM), so it takes nothing from it, and the command can change nothing
	# there. As root the file is read and, outside the roots, kept as it is: the same answer.
	f="$BASE/system-$BATS_TEST_NUMBER"
	printf '[user]\n\tname = s\n' >"$f"
	chmod 0000 "$f"
	run env GIT_CONFIG_SYSTEM="$f" "$BIN/sbxrun" -C "$H" -w "$H" -- "$P" write "$H/other"
	chmod 0644 "$f"
	rm -f "$f"
	[ "$output" = OK ]
	[ "$status" -eq 0 ]
}

@test "a missing GIT_CONFIG_SYSTEM and GIT_CONFIG_GLOBAL of any name: git inside works, run 1 makes none" {
	# Git dies on a system config it cannot read and warns on a global one (git config
	# --global dies): whatever their names, each missing one is an empty file for the run.
	unset GIT_CONFIG_NOSYSTEM
	mkdir "$H/etc"
	git init -q "$H/repo"
	export GIT_CONFIG_SYSTEM="$H/etc/system.cfg" GIT_CONFIG_GLOBAL="$H/etc/global.cfg"
	run hsbx git -C "$H/repo" status --porcelain
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run hsbx git config --system --list
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run hsbx git config --global --list
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# Run 1 cannot make either; nothing is left after it, and the caller's git takes nothing.
	hexpect EROFS write "$H/etc/system.cfg"
	hexpect EROFS write "$H/etc/global.cfg"
	run hsbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY\n' | tee '$H/etc/system.cfg' '$H/etc/global.cfg'"
	[ "$status" -ne 0 ]
	[ ! -e "$H/etc/system.cfg" ]
	[ ! -e "$H/etc/global.cfg" ]
	[ -z "$(system core.fsmonitor)" ]
	[ -z "$(global core.fsmonitor)" ]
	# Positive control: a file beside them is the command's.
	hexpect OK write "$H/etc/other"
}

@test "the caller's git config --system during a run over a missing one: left, said to be the system one" {
	unset GIT_CONFIG_NOSYSTEM
	mkdir "$H/etc"
	export GIT_CONFIG_SYSTEM="$H/etc/system.cfg"
	hold
	[ -f "$H/etc/system.cfg" ]
	git config --system a.b c
	held
	[ "$(system a.b)" = c ]
	[ "$st" -eq 1 ]
	[ "$(cat "$H/stderr")" = "sbxrun: the caller's system git config was created on the host during the run; left in place: $H/etc/system.cfg" ]
	# Positive control: with nothing written meanwhile, the point itself goes, and exit 0.
	rm "$H/etc/system.cfg"
	hold
	held
	[ "$st" -eq 0 ]
	[ ! -s "$H/stderr" ]
	[ ! -e "$H/etc/system.cfg" ]
}

@test "a system config run 1 made no regular file, linked, or unreadable: refused as the system one" {
	unset GIT_CONFIG_NOSYSTEM
	mkdir "$H/etc"
	printf '[user]\n\tname = s\n' >"$H/etc/system.cfg"
	# Run 1's caller named no system file there: the command's to do with.
	hsbx ln "$H/etc/system.cfg" "$H/etc/other"
	export GIT_CONFIG_SYSTEM="$H/etc/system.cfg"
	run hsbx touch "$CANARY"
	refused "sbxrun: git's system config $H/etc/system.cfg has more than one name (a hard link), *"
	GIT_CONFIG_SYSTEM= hsbx sh -c "rm '$H/etc/other' '$H/etc/system.cfg' && mkfifo '$H/etc/system.cfg'"
	run hsbx touch "$CANARY"
	refused "sbxrun: git's system config $H/etc/system.cfg is no regular file *"
	[[ "$output" == *"hint: remove what is there, or point GIT_CONFIG_SYSTEM at a file outside the writable roots, or unset it and set GIT_CONFIG_NOSYSTEM=1"* ]]
	GIT_CONFIG_SYSTEM= hsbx sh -c "rm '$H/etc/system.cfg' && ln -s loop '$H/etc/loop'"
	export GIT_CONFIG_SYSTEM="$H/etc/loop/cfg"
	run hsbx touch "$CANARY"
	refused "sbxrun: cannot check git's system config $H/etc/loop/cfg, *: looking up $H/etc/loop/cfg: $(errtext ELOOP)"
	[[ "$output" == *"or point GIT_CONFIG_SYSTEM at a file outside the writable roots"* ]]
	# The global ones keep their own words.
	export GIT_CONFIG_SYSTEM="$H/etc/system.cfg" GIT_CONFIG_GLOBAL="$H/etc/loop/cfg"
	run hsbx touch "$CANARY"
	refused "sbxrun: cannot check git's global config $H/etc/loop/cfg, *"
	[[ "$output" == *"or point GIT_CONFIG_GLOBAL at a file outside the writable roots"* ]]
	# Positive control: a system file of its own name again, kept read-only, the run goes on.
	unset GIT_CONFIG_GLOBAL
	printf '[user]\n\tname = s\n' >"$H/etc/system.cfg"
	hexpect EROFS write "$H/etc/system.cfg"
	hexpect OK write "$H/etc/new"
}

@test "one file named by GIT_CONFIG_GLOBAL and GIT_CONFIG_SYSTEM: carried once, as the system one" {
	unset GIT_CONFIG_NOSYSTEM
	mkdir "$H/etc"
	export GIT_CONFIG_SYSTEM="$H/etc/both.cfg" GIT_CONFIG_GLOBAL="$H/etc/both.cfg"
	# Missing: an empty file for the run, which run 1 cannot fill, and none left after it.
	run hsbx git config --system --list
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	hexpect EROFS write "$H/etc/both.cfg"
	[ ! -e "$H/etc/both.cfg" ]
	run "$BIN/sbxrun" explain --json -C "$H" -w "$H" -- true
	echo "$output"
	[[ "$output" == *"\"rule\": \"no-create $H/etc/both.cfg\","*"\"origin\": \"git-system-config\""* ]]
	# Present: kept read-only, the caller's git takes nothing planted.
	printf '[user]\n\tname = s\n' >"$H/etc/both.cfg"
	run hsbx sh -c "printf '[core]\n\tfsmonitor = touch $CANARY\n' >>'$H/etc/both.cfg'"
	[ "$status" -ne 0 ]
	[ -z "$(system core.fsmonitor)" ]
	[ -z "$(global core.fsmonitor)" ]
	# GIT_CONFIG_GLOBAL=/etc/gitconfig, the file every git reads as the system one: runs.
	run env GIT_CONFIG_GLOBAL=/etc/gitconfig "$BIN/sbxrun" -C "$H" -w "$H" -- "$P" write "$H/etc/other"
	[ "$output" = OK ]
	[ "$status" -eq 0 ]
	# Positive control: a file beside it is the command's.
	hexpect OK write "$H/etc/other"
}

@test "a missing system config of any name, two runs at once: the later shares the point, the name holds" {
	# Run 1's empty file at the name, taken by run 2 for the user's file, would be kept as a
	# file and unshared: run 1's clean-up would unlink it from under run 2's mount, and run
	# 2's command would make the config the caller's git then runs.
	unset GIT_CONFIG_NOSYSTEM
	mkdir "$H/etc"
	export GIT_CONFIG_SYSTEM="$H/etc/sys.cfg"
	hold
	[ -f "$H/etc/sys.cfg" ]
	mkfifo "$H/r2" "$H/g2"
	"$BIN/sbxrun" -C "$H" -w "$H" -- sh -c "echo up >'$H/r2'; cat '$H/g2' >/dev/null; exec '$P' write '$H/etc/sys.cfg'" \
		>"$H/out2" 2>&1 &
	two=$!
	[ "$(timeout 60 cat "$H/r2")" = up ]
	held
	[ "$st" -eq 0 ]
	echo go >"$H/g2"
	st2=0
	wait "$two" || st2=$?
	cat "$H/out2"
	[ "$(cat "$H/out2")" = EROFS ]
	[ "$st2" -eq 1 ]
	[ ! -e "$H/etc/sys.cfg" ]
	[ -z "$(system core.fsmonitor)" ]
	# Positive control: a file beside it is the command's.
	hexpect OK write "$H/etc/other"
}
