#!/usr/bin/env bats
# A terminal's state that outlives the run. At a Linux virtual console the owner of the
# controlling terminal may change the keyboard map (global to every VT: a function key's string
# types a command into the shell when pressed after the run), the keyboard mode, the font and
# the screen maps, and switch VTs; on any terminal, a line discipline stays set after the command
# exits, and so does exclusive mode. Tried at a pseudo-terminal, where the driver answers a console request with ENOTTY, so
# that EPERM can only come from the filter: the whole two classes of console requests ('K',
# 0x4b00-0x4bff; 'V', 0x5600-0x561f) are refused but the getters, which keep answering, with a
# mount namespace, without a PID namespace (clone refused), without a mount namespace and
# without Landlock (where the filter refuses signal-driven I/O too).
load common

PTY="$BATS_TEST_DIRNAME/../enforce/ptyrun.py"

# The getters: KDGETLED KDGKBTYPE KDGETMODE GIO_SCRNMAP KDGKBMODE KDGKBENT KDGKBSENT KDGKBDIACR
# KDGETKEYCODE GIO_FONT KDGKBMETA KDGKBLED GIO_UNIMAP GIO_UNISCRNMAP GIO_FONTX GIO_CMAP
# KDGKBDIACRUC; VT_OPENQRY VT_GETMODE VT_GETSTATE VT_WAITACTIVE VT_GETHIFONTMASK VT_WAITEVENT.
# (VT_GETCONSIZECSRPOS is _IOR('V', 0x10, ...), outside the class: 0x5610 is no getter.)
GETTERS=(0x4b31 0x4b33 0x4b3b 0x4b40 0x4b44 0x4b46 0x4b48 0x4b4a 0x4b4c 0x4b60 0x4b62 0x4b64
	0x4b66 0x4b69 0x4b6b 0x4b70 0x4bfa 0x5600 0x5601 0x5603 0x5607 0x560d 0x560e)

setup_file() { make_layout; }
setup() {
	make_layout_vars
	# A writable root whose protected names are writable too: enforceable without a mount
	# namespace as well.
	PLAIN="$BASE/plain"
	mkdir -p "$PLAIN"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$PLAIN" write)" \
		$(unprotected "$PLAIN"))
}

# cmd_for MODEL CMD...: sets CMD to CMD... through the helper with $PROFILE under the fault
# injector's MODEL (none: no fault; outside: CMD without the sandbox, the control).
cmd_for() {
	local model=$1
	shift
	case $model in
	outside) CMD=("$@") ;;
	none) CMD=("$H" --sandbox-policy-cwd "$PLAIN" --permission-profile "$PROFILE" -- "$@") ;;
	*) CMD=("$BIN/failinj" "$model" -- "$H" --sandbox-policy-cwd "$PLAIN" \
		--permission-profile "$PROFILE" -- "$@") ;;
	esac
}

# at_tty MODEL CMD...: CMD under MODEL as the session leader of a new pseudo-terminal, which is
# its controlling terminal. Prints the output, then "status=N".
at_tty() {
	cmd_for "$@"
	python3 "$PTY" -- "${CMD[@]}"
}

# want FIRST LAST ERRNO: the probe's tty-sweep from FIRST to LAST when every request but a
# getter gets ERRNO (a getter reaches the driver: ENOTTY), then ptyrun's status line.
want() {
	local r h
	for ((r = $1; r <= $2; r++)); do
		h=$(printf '%#06x' "$r")
		case " ${GETTERS[*]} " in
		*" $h "*) echo "$h ENOTTY" ;;
		*) echo "$h $3" ;;
		esac
	done
	printf '\nstatus=0\n'
}

@test "console requests: every one but the getters is EPERM at a terminal; control: ENOTTY outside" {
	local model edge
	# Control: outside the sandbox every request reaches the pseudo-terminal's driver.
	run at_tty outside "$P" tty-sweep /dev/tty 0x4b00 0x4bff
	diff <(echo "$output") <(want 0x4b00 0x4bff ENOTTY)
	run at_tty outside "$P" tty-sweep /dev/tty 0x5600 0x561f
	diff <(echo "$output") <(want 0x5600 0x561f ENOTTY)
	# The kernel drops a request's high 32 bits: KDSKBMODE reaches the driver, TIOCSETD (N_TTY,
	# the one it has) works.
	run at_tty outside "$P" tty-sweep /dev/tty 0xffffffff00004b45
	[ "${lines[0]}" = "0xffffffff00004b45 ENOTTY" ]
	run at_tty outside "$P" tty-sweep /dev/tty 0x100005423
	[ "${lines[0]}" = "0x100005423 OK" ]
	for model in none clone unshare landlock; do
		echo "model $model"
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x4b00 0x4bff
		diff <(echo "$output") <(want 0x4b00 0x4bff EPERM)
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x5600 0x561f
		diff <(echo "$output") <(want 0x5600 0x561f EPERM)
		# Either side of the classes the driver answers, but without a mount namespace, where
		# ioctl is an allow-list.
		edge=ENOTTY
		if [ "$model" = unshare ]; then edge=EPERM; fi
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x4aff
		[ "${lines[0]}" = "0x4aff $edge" ]
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x4c00
		[ "${lines[0]}" = "0x4c00 $edge" ]
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x5620
		[ "${lines[0]}" = "0x5620 $edge" ]
		# A request with size and direction bits is not of the classes, whatever its type
		# and number: VT_GETCONSIZECSRPOS, VIDIOC_QUERYCAP (V4L2's 'V'), KDSKBMODE's number
		# as _IOW.
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x80085610
		[ "${lines[0]}" = "0x80085610 $edge" ]
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x80685600
		[ "${lines[0]}" = "0x80685600 $edge" ]
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x40044b45
		[ "${lines[0]}" = "0x40044b45 $edge" ]
		# The kernel reads the request's low 32 bits: a setter with high bits set is one.
		run at_tty "$model" "$P" tty-sweep /dev/tty 0xffffffff00004b45
		[ "${lines[0]}" = "0xffffffff00004b45 EPERM" ]
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x100005423
		[ "${lines[0]}" = "0x100005423 EPERM" ]
		# The terminal's own requests still work (the window size).
		run at_tty "$model" stty size
		[[ "${lines[0]}" =~ ^[0-9]+\ [0-9]+$ ]]
	done
}

# line_discipline MODEL: run 1 (under MODEL) sets the null line discipline on its terminal, its
# answer kept in $R1; then the next command at the same terminal, outside, reads a line typed
# once it says READY.
line_discipline() {
	local r1=$BATS_TEST_TMPDIR/r1
	cmd_for "$1" "$P" tiocsetd /dev/tty 27
	rm -f "$r1"
	run python3 "$PTY" --after READY 'typed\n' -- sh -c \
		'"$@" >"$0"; echo READY; read -r l; echo "read:$l"' "$r1" "${CMD[@]}"
	R1=$(cat "$r1")
	echo "run 1 under $1: $R1; then: $output"
}

@test "a line discipline would outlive the run: TIOCSETD is EPERM, the next command reads what is typed" {
	local model
	# Control: outside, the null discipline is set and the terminal then passes nothing on.
	line_discipline outside
	[ "$R1" = OK ]
	[[ "$output" != *READY* ]]
	[[ "$output" != *read:typed* ]]
	# Setting the one it has (N_TTY) works outside, and is refused inside all the same.
	run at_tty outside "$P" tiocsetd /dev/tty 0
	[ "${lines[0]}" = OK ]
	for model in none clone unshare landlock; do
		line_discipline "$model"
		[ "$R1" = EPERM ]
		[[ "$output" == *read:typed* ]]
		run at_tty "$model" "$P" tiocsetd /dev/tty 0
		[ "${lines[0]}" = EPERM ]
		# TIOCGETD still answers.
		run at_tty "$model" "$P" tty-sweep /dev/tty 0x5424
		[ "${lines[0]}" = "0x5424 OK" ]
	done
}

@test "exclusive mode would outlive the run: TIOCEXCL is EPERM, the next command opens the terminal" {
	local model
	# Control: outside, exclusive mode is set and the next open of the terminal is EBUSY (root
	# passes it: CAP_SYS_ADMIN).
	cmd_for outside "$P" tiocexcl /dev/tty
	run python3 "$PTY" -- sh -c '"$@"; "$0" open-tty /dev/tty' "$P" "${CMD[@]}"
	echo "outside: $output"
	[ "${lines[0]}" = OK ]
	if as_root; then
		[ "${lines[1]}" = OK ]
	else
		[ "${lines[1]}" = EBUSY ]
	fi
	for model in none clone unshare landlock; do
		cmd_for "$model" "$P" tiocexcl /dev/tty
		run python3 "$PTY" -- sh -c '"$@"; "$0" open-tty /dev/tty' "$P" "${CMD[@]}"
		echo "under $model: $output"
		[ "${lines[0]}" = EPERM ]
		[ "${lines[1]}" = OK ]
		# Ending exclusive mode still works inside.
		run at_tty "$model" "$P" tiocnxcl /dev/tty
		[ "${lines[0]}" = OK ]
	done
}

@test "the denial report words the refusal: a console's state, a line discipline" {
	local rep=$BATS_TEST_TMPDIR/report.json rule
	rule="refused in every sandbox: faking terminal input (TIOCSTI, TIOCLINUX), changing a Linux"
	rule+=" console's keyboard, font or VTs (every KD and VT request but the getters), or a"
	rule+=" terminal's line discipline or exclusive mode (TIOCSETD, TIOCEXCL)"
	# LeakSanitizer cannot run in a traced process: a sanitized probe skips its leak check. The
	# report is appended to: each run starts without one.
	rm -f "$rep"
	run python3 "$PTY" -- "$BIN/sbxrun" -C "$PLAIN" --report "$rep" -- \
		env ASAN_OPTIONS=detect_leaks=0 "$P" tty-sweep /dev/tty 0x4b49
	[ "${lines[0]}" = "0x4b49 EPERM" ]
	diff <(sed 's/"time":"[^"]*","pid":[0-9]*/T/' "$rep") <(printf '{T,"comm":"probe","op":"ioctl","path":"/dev/tty","errno":"EPERM","rule":"%s","mechanism":"seccomp"}\n' "$rule")
	rm -f "$rep"
	run python3 "$PTY" -- "$BIN/sbxrun" -C "$PLAIN" --report "$rep" -- \
		env ASAN_OPTIONS=detect_leaks=0 "$P" tiocsetd /dev/tty 0
	[ "${lines[0]}" = EPERM ]
	diff <(sed 's/"time":"[^"]*","pid":[0-9]*/T/' "$rep") <(printf '{T,"comm":"probe","op":"ioctl","path":"/dev/tty","errno":"EPERM","rule":"%s","mechanism":"seccomp"}\n' "$rule")
	# Control: a getter leaves no record.
	rm -f "$rep"
	run python3 "$PTY" -- "$BIN/sbxrun" -C "$PLAIN" --report "$rep" -- \
		env ASAN_OPTIONS=detect_leaks=0 "$P" tty-sweep /dev/tty 0x4b33
	[ "${lines[0]}" = "0x4b33 ENOTTY" ]
	[ ! -s "$rep" ]
}
