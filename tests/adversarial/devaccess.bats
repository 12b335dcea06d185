#!/usr/bin/env bats
# `sbxrun access` answers what run allows under /dev, which is not the host's /dev the entries
# name: with a mount namespace the private one (the allowed nodes read and written, a /dev/shm of
# the run's own, a pts instance without the user's other terminals, nothing else), without one
# the host's behind Landlock (the allowed nodes and the directories, nothing else opens). Each
# answer is checked against run doing the same operation, with and without a mount namespace
# (failinj unshare), and without a PID namespace (failinj clone, the mount namespace kept).
load common

setup_file() {
	make_layout
}

setup() {
	make_layout_vars
	PROFILE=$(profile restricted "$(entry_special root read)")
	PFILE="$BASE/profile-$BATS_TEST_NUMBER.json"
	echo "$PROFILE" >"$PFILE"
	SHMF=/dev/shm/sbx-devaccess-$SBX_USER-$BATS_TEST_NUMBER
	rm -f "$SHMF"
}
teardown() {
	rm -f "$SHMF"
	if [ -n "${HOLDER:-}" ]; then
		kill "$HOLDER" 2>/dev/null || true
	fi
}

# access_is FAULT PATH ANSWER: access (under failinj FAULT, or none) answers ANSWER for PATH
# with $PROFILE, in --json and in the text form alike.
access_is() {
	local fault=$1 path=$2 want=$3 pre=()
	[ "$fault" = none ] || pre=("$BIN/failinj" "$fault" --)
	run "${pre[@]}" "$BIN/sbxrun" access --json -C "$WS" --profile "$PFILE" "$path"
	echo "access ($fault) --json $path: $status: $output (want $want)"
	[ "$status" -eq 0 ]
	[ "$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])[0]["access"])' \
		"$output")" = "$want" ]
	run "${pre[@]}" "$BIN/sbxrun" access -C "$WS" --profile "$PFILE" "$path"
	echo "access ($fault) $path: $status: $output"
	[ "$status" -eq 0 ]
	[[ "$output" == "$want "* ]]
}

# devices_by FAULT MECHANISM: explain (under failinj FAULT, or none) enforces the devices
# requirement with MECHANISM, the /dev that access answers for.
devices_by() {
	local fault=$1 want=$2 pre=()
	[ "$fault" = none ] || pre=("$BIN/failinj" "$fault" --)
	run "${pre[@]}" "$BIN/sbxrun" explain --json -C "$WS" --profile "$PFILE"
	[ "$status" -eq 0 ]
	run python3 -c '
import json, sys
j = json.loads(sys.argv[1])
r = [r for r in j["requirements"] if r["rule"] == "no host device node reachable but the allow-list"]
print(r[0]["status"], r[0]["mechanism"])' "$output"
	echo "explain ($fault): devices $output (want enforced $want)"
	[ "$output" = "enforced $want" ]
}

# does FAULT ERRNO OP ARG: the probe in the sandbox (under failinj FAULT, or none) gets ERRNO.
does() {
	local fault=$1
	shift
	if [ "$fault" = none ]; then
		expect "$@"
	else
		fexpect "$fault" "$@"
	fi
}

@test "the allowed nodes: access says write, and run reads and writes them" {
	outside read /dev/null
	outside open-wr /dev/full
	devices_by none mount-namespace
	devices_by clone mount-namespace
	devices_by unshare landlock
	for fault in none clone unshare; do
		for node in /dev/null /dev/zero /dev/full /dev/urandom; do
			access_is "$fault" "$node" write
			does "$fault" OK read "$node"
			does "$fault" OK open-wr "$node"
		done
	done
}

@test "/dev/shm: the run's own and writable with a mount namespace, out of reach without" {
	# Outside, this user writes the host's /dev/shm (the positive control), and plants a file.
	outside write "$SHMF"
	echo host >"$SHMF"
	for fault in none clone; do
		access_is "$fault" "$SHMF" write
		access_is "$fault" /dev/shm write
		# The planted file is not in the run's /dev/shm; one written there is gone next run.
		does "$fault" ENOENT read "$SHMF"
		does "$fault" OK write "$SHMF"
		does "$fault" ENOENT read "$SHMF"
	done
	# Within one run the file written there reads back; the host's is untouched.
	run sbx sh -c "'$P' write '$SHMF' && '$P' read '$SHMF'"
	[ "$output" = $'OK\nOK' ]
	[ "$(cat "$SHMF")" = host ]
	access_is unshare "$SHMF" deny
	does unshare EACCES read "$SHMF"
	does unshare EACCES write "$SHMF"
	does unshare EACCES write "/dev/shm/new-$SBX_USER"
	# The directory itself is listed as every directory around /dev is.
	access_is unshare /dev/shm read
	does unshare OK list /dev/shm
}

@test "a device not in the allow-list: deny, absent or refused" {
	[ -c /dev/kmsg ]
	# Root opens it outside (the positive control); another user is kept out by its mode too.
	if as_root; then
		outside open-wr /dev/kmsg
	fi
	for fault in none clone; do
		access_is "$fault" /dev/kmsg deny
		does "$fault" ENOENT open-wr /dev/kmsg
		does "$fault" ENOENT read /dev/kmsg
	done
	access_is unshare /dev/kmsg deny
	does unshare EACCES open-wr /dev/kmsg
	does unshare EACCES read /dev/kmsg
}

@test "another terminal of the user: deny, and run cannot open it" {
	local name="$BASE/pty-$BATS_TEST_NUMBER"
	rm -f "$name"
	python3 -c '
import os, pty, sys, time
m, s = pty.openpty()
open(sys.argv[1] + ".tmp", "w").write(os.ttyname(s))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(120)
' "$name" 3>&- &
	HOLDER=$!
	for _ in $(seq 100); do [ -s "$name" ] && break; sleep 0.05; done
	PTS=$(cat "$name")
	[[ "$PTS" == /dev/pts/* ]]
	# Outside, the user opens that terminal of theirs.
	outside open-tty "$PTS"
	for fault in none clone; do
		access_is "$fault" "$PTS" deny
		does "$fault" ENOENT open-tty "$PTS"
		# The run's own pts instance is there, listed.
		access_is "$fault" /dev/pts read
		does "$fault" OK list /dev/pts
	done
	access_is unshare "$PTS" deny
	does unshare EACCES open-tty "$PTS"
}

@test "the private /dev has nothing else: a directory of the host's there is absent" {
	[ -d /dev/pts ]
	local dir
	dir=$(find /dev -mindepth 1 -maxdepth 1 -type d ! -name pts ! -name shm | head -n1)
	[ -n "$dir" ]
	outside list "$dir"
	for fault in none clone; do
		access_is "$fault" "$dir" deny
		does "$fault" ENOENT list "$dir"
		# /dev itself: read, never written (a read-only tmpfs).
		access_is "$fault" /dev read
		does "$fault" OK list /dev
	done
	# Without a mount namespace Landlock lists the directories around /dev.
	access_is unshare "$dir" read
	does unshare OK list "$dir"
	access_is unshare /dev read
	does unshare OK list /dev
}

@test "the command's own terminal: write where run gives it its name, deny where it does not" {
	local pty="$BATS_TEST_DIRNAME/../enforce/ptyrun.py" fault want got
	# access and the run share a terminal of their own (ptyrun's), as at a shell; the run opens
	# it again by its name. Under init the private /dev binds it at that name; without a PID
	# namespace nothing holds the name, so it is not there; without a mount namespace Landlock
	# grants the node itself.
	for fault in none clone unshare; do
		case $fault in
		clone) want="deny ENOENT" ;;
		*) want="write OK" ;;
		esac
		run env FAULT="$fault" PFILE="$PFILE" PROFILE="$PROFILE" S="$BIN/sbxrun" H="$H" P="$P" \
			F="$BIN/failinj" WS="$WS" python3 "$pty" -- sh -c '
			T=$(tty)
			set --
			[ "$FAULT" = none ] || set -- "$F" "$FAULT" --
			a=$("$@" "$S" access -C "$WS" --profile "$PFILE" "$T")
			r=$("$@" "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- \
				"$P" open-tty "$T")
			echo "$T: ${a%% *} $r"'
		echo "$fault: $output (want $want)"
		got=$(printf '%s\n' "$output" | grep '^/dev/pts/')
		[ "${got#*: }" = "$want" ]
	done
}

@test "in /dev/shm a root is the entries' to decide, a deny no root holds is not" {
	local dir="/dev/shm/sbx-devaccess-dir-$SBX_USER"
	rm -rf "$dir"
	mkdir "$dir"
	echo planted >"$dir/f"
	echo planted >"$SHMF"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$dir" read)" \
		"$(entry_path "$SHMF" deny)")
	echo "$PROFILE" >"$PFILE"
	# Outside, the user writes both (the positive control).
	outside write "$dir/f"
	outside write "$SHMF"
	for fault in none clone unshare; do
		# The readable root in /dev/shm is the host's, bound (or granted) read-only.
		access_is "$fault" "$dir/f" read
		does "$fault" OK read "$dir/f"
	done
	does none EROFS write "$dir/f"
	does clone EROFS write "$dir/f"
	does unshare EACCES write "$dir/f"
	# The deny names a file no root holds: the private /dev/shm has no such file to hide, and
	# the name is the run's own to write; without a mount namespace the host's stays denied.
	for fault in none clone; do
		access_is "$fault" "$SHMF" write
		does "$fault" OK write "$SHMF"
	done
	access_is unshare "$SHMF" deny
	does unshare EACCES write "$SHMF"
	does unshare EACCES read "$SHMF"
	rm -rf "$dir"
}

@test "/proc: a process of the host is not in the run's fresh /proc, and access says so" {
	sleep 120 3>&- &
	HOLDER=$!
	outside read "/proc/$HOLDER/status"
	# Under init the PID namespace's own /proc: the host's process is absent (its number is
	# far above what the few processes of the sandbox get).
	access_is none "/proc/$HOLDER/status" deny
	does none ENOENT read "/proc/$HOLDER/status"
	# Without a PID namespace, with or without a mount namespace, the host's /proc is read.
	for fault in clone unshare; do
		access_is "$fault" "/proc/$HOLDER/status" read
		does "$fault" OK read "/proc/$HOLDER/status"
	done
	# The command's own entries: the entries decide them, and run reads them.
	access_is none /proc/self/status read
	does none OK read /proc/self/status
}

# denied_nodes EXTRA...: with /dev/null and /dev/ptmx denied by name ($DENIES, by default the
# two paths) beside read / and EXTRA,
# access says deny, and run finds neither (ENOENT in the private /dev, EACCES behind Landlock),
# while /dev/zero, not denied, is written in the same runs (the positive control).
denied_nodes() {
	local ro fault want node faults=(none clone unshare)
	ro=$(entry_special root read)
	[ -n "${DENIES:-}" ] || DENIES="$(entry_path /dev/null deny),$(entry_path /dev/ptmx deny)"
	PROFILE=$(profile restricted "$ro" "$@" "$DENIES")
	echo "$PROFILE" >"$PFILE"
	# Without a mount namespace a writable workspace's protected names refuse.
	[ $# -eq 0 ] || faults=(none clone)
	outside open-wr /dev/null
	outside open-wr /dev/ptmx
	for fault in "${faults[@]}"; do
		want=ENOENT
		[ "$fault" = unshare ] && want=EACCES
		for node in /dev/null /dev/ptmx; do
			access_is "$fault" "$node" deny
			does "$fault" "$want" open-wr "$node"
			does "$fault" "$want" read "$node"
		done
		access_is "$fault" /dev/zero write
		does "$fault" OK open-wr /dev/zero
	done
}

@test "an allowed node denied by name: left out of the private /dev, the run goes on" {
	denied_nodes
}

@test "an allowed node denied by name, the workspace writable: /dev built first, the deny held" {
	# The workspace's missing protected names are made on the host while init builds /dev,
	# before the masks: the node must be left out all the same.
	[ ! -e "$WS/.codex" ]
	denied_nodes "$(entry_special project_roots write)"
}

@test "an allowed node a deny glob matches: left out as well, and access says deny" {
	# A glob matching /dev itself is no mask (the private /dev replaces it); one matching the
	# node is.
	DENIES="$(glob_deny '/dev/nul*'),$(glob_deny '/dev/ptm?')"
	denied_nodes
}

@test "/dev/pts/ptmx: the run's own pts instance's, opened; behind Landlock the host's is not" {
	# Outside, root opens the host's (mode 0 there, as devpts makes it); nobody else may.
	if as_root; then
		outside open-wr /dev/pts/ptmx
	fi
	for fault in none clone; do
		access_is "$fault" /dev/pts/ptmx write
		does "$fault" OK open-wr /dev/pts/ptmx
	done
	access_is unshare /dev/pts/ptmx deny
	does unshare EACCES open-wr /dev/pts/ptmx
}
