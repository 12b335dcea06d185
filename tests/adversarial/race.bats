#!/usr/bin/env bats
# Races: while runs start one after another, something swaps a directory on the way to a rule
# path for a symbolic link (or another directory) and back, as fast as it can. Each rule path
# is looked up once and the same object enforced, so no start may ever be redirected: a start
# either runs confined as planned or refuses (125).
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
}
teardown() {
	touch "$BASE/stop"
	[ -z "${SWAPPER:-}" ] || wait "$SWAPPER" 2>/dev/null || true
}

STARTS=150

# starts CMD...: runs CMD $STARTS times, counting in ok, refused and other how each ended (a run
# confined as planned exits 0, a refused one 125; anything else is shown).
starts() {
	local i
	ok=0 refused=0 other=0
	for i in $(seq $STARTS); do
		run "$@"
		case $status in
		0) ok=$((ok + 1)) ;;
		125) refused=$((refused + 1)) ;;
		*) other=$((other + 1)); echo "start $i: $status $output" ;;
		esac
	done
}

# A concurrent confined run (same user, a profile that only lets it write the workspace) swaps
# a read-only carve-out for a link to a copy it may write; the next starts must never let the
# real carve-out be written, whichever name it has at that moment.
@test "a carve-out swapped for a link by a concurrent run: never written" {
	rm -rf "$WS/ro" "$WS/ro.real" "$WS/ro.fake"
	mkdir -p "$WS/ro" "$WS/ro.fake"
	echo original >"$WS/ro/f"
	echo fake >"$WS/ro.fake/f"
	local swapper_profile
	swapper_profile=$(profile restricted "$(entry_special root read)" "$(entry_path "$WS" write)")
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$WS" write)" \
		"$(entry_path "$WS/ro" read)")
	expect EROFS append "$WS/ro/f"
	local ino
	ino=$(stat -c %i "$WS/ro")
	rm -f "$BASE/stop"
	# Each round ends with the carve-out back in place; the swapper stops at a round's end.
	"$H" --sandbox-policy-cwd "$WS" --permission-profile "$swapper_profile" -- sh -c "
		cd '$WS' || exit 1
		while [ ! -e '$BASE/stop' ]; do
			mv ro ro.real 2>/dev/null && ln -s ro.fake ro 2>/dev/null
			rm -f ro 2>/dev/null; mv ro.real ro 2>/dev/null
		done" 3>&- &
	SWAPPER=$!
	starts sbx sh -c "echo x >>'$WS/ro/f'; echo x >>'$WS/ro.real/f'; exit 0"
	touch "$BASE/stop"
	wait "$SWAPPER"
	SWAPPER=
	echo "started $ok, refused $refused, other $other"
	# Never redirected: the carve-out (the same directory) is back, its file as it was.
	[ "$(stat -c %i "$WS/ro")" = "$ino" ]
	[ "$(cat "$WS/ro/f")" = original ]
	[ "$other" -eq 0 ]
	# The test raced for real: starts met the swapped state and were refused. How many of the
	# others started depends on the machine's timing, so the start that must succeed is made
	# once the ground is at rest (the positive control).
	[ "$refused" -gt 0 ]
	run sbx sh -c "echo x >>'$WS/ro/f'"
	[ "$status" -ne 0 ]
	run sbx true
	[ "$status" -eq 0 ]
}

# As root, building another user's checkout: that user owns the directory on the way and swaps
# the checkout for a link to a directory only root may write. As uid 65534 there is no other
# user to play: the same rule is checked on a directory any user may write.
@test "a writable root swapped for a link by its owner: root is never redirected" {
	local home="$BASE/home-other" victim="$BASE/victim"
	rm -rf "$home" "$victim"
	mkdir -p "$home/checkout" "$victim"
	if ! as_root; then
		ln -sfn "$home/checkout" "$FIXTURES/open-0777/checkout-$$"
		run "$BIN/sbxrun" --cwd "$FIXTURES/open-0777/checkout-$$" --profile :workspace -- true
		rm -f "$FIXTURES/open-0777/checkout-$$"
		[ "$status" -eq 125 ]
		[[ "$output" == *"which users other than root and the caller can replace" ]]
		run "$BIN/sbxrun" --cwd "$home/checkout" --profile :workspace -- true
		[ "$status" -eq 0 ]
		return
	fi
	chown -R 65534:65534 "$home"
	chmod 0755 "$victim"
	rm -f "$BASE/stop"
	setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c "
		cd '$home' || exit 1
		while [ ! -e '$BASE/stop' ]; do
			mv checkout real 2>/dev/null && ln -s '$victim' checkout 2>/dev/null
			rm -f checkout 2>/dev/null; mv real checkout 2>/dev/null
		done" 3>&- &
	SWAPPER=$!
	starts "$BIN/sbxrun" --cwd "$home/checkout" --profile :workspace -- sh -c 'echo x >pwned-$$; true'
	touch "$BASE/stop"
	wait "$SWAPPER"
	SWAPPER=
	echo "started $ok, refused $refused, other $other"
	ls -la "$victim"
	# Zero redirections: nothing was ever written where the link led.
	[ -z "$(ls -A "$victim")" ]
	# The swapped state was met (refusals); with the ground at rest a start succeeds and
	# writes where it was meant to (the positive control).
	[ "$refused" -gt 0 ]
	# (root inside holds no capability: the checkout must let anyone write for the control)
	chmod 0777 "$home/checkout"
	run "$BIN/sbxrun" --cwd "$home/checkout" --profile :workspace -- sh -c 'echo x >control'
	[ "$status" -eq 0 ]
	[ -f "$home/checkout/control" ]
	[ -z "$(ls -A "$victim")" ]
}
