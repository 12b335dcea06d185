#!/usr/bin/env bats
#
# Every fixture in bad/ must be refused before anything runs: exit 125, and the first stderr line
# equal to NN-name.err with FILE standing for the fixture's path. A NN-name.gen fixture describes
# an input too big to commit (first line: size in bytes; the rest: JSON padded with spaces).

BAD="$BATS_TEST_DIRNAME/bad"

# Prints the input path of a fixture, generating .gen inputs into the test's temporary directory.
fixture_input() {
	local f=$1 size
	case "$f" in
	*.gen)
		local out="$BATS_TEST_TMPDIR/$(basename "${f%.gen}").json"
		size=$(head -n 1 "$f")
		tail -n +2 "$f" >"$out"
		head -c $((size - $(stat -c %s "$out"))) /dev/zero | tr '\0' ' ' >>"$out"
		echo "$out"
		;;
	*) echo "$f" ;;
	esac
}

# check_refused NAME INPUT EXPECTED-FIRST-LINE, after `run`.
check_refused() {
	local first=${lines[0]:-}

	if [ "$status" -ne 125 ]; then
		echo "$1: exit $status, expected 125; stderr: $first" >&2
		return 1
	fi
	if [ "$first" != "$3" ]; then
		printf '%s:\n  got:  %s\n  want: %s\n' "$1" "$first" "$3" >&2
		return 1
	fi
}

for_each_fixture() {
	local f input want failed=0 n=0

	for f in "$BAD"/*.json "$BAD"/*.gen; do
		[ -e "$f" ] || continue
		input=$(fixture_input "$f")
		want=$(head -n 1 "${f%.*}.err")
		want=${want//FILE/$input}
		"$@" "$f" "$input" "$want" || failed=1
		n=$((n + 1))
	done
	[ "$n" -ge 45 ] || { echo "only $n fixtures" >&2; return 1; }
	return "$failed"
}

run_one() {
	local name=$1 input=$2 want=$3

	rm -f "$BATS_TEST_TMPDIR/canary"
	run --separate-stderr "$SBXRUN" --profile "$input" -- touch "$BATS_TEST_TMPDIR/canary"
	lines=("${stderr_lines[@]}")
	check_refused "$(basename "$name")" "$input" "$want" || return 1
	if [ -e "$BATS_TEST_TMPDIR/canary" ]; then
		echo "$(basename "$name"): the command ran" >&2
		return 1
	fi
}

explain_one() {
	local name=$1 input=$2 want=$3

	run --separate-stderr "$SBXRUN" explain --profile "$input"
	lines=("${stderr_lines[@]}")
	check_refused "$(basename "$name")" "$input" "$want"
}

@test "bad profiles are refused with exit 125, the expected message, and nothing runs" {
	bats_require_minimum_version 1.5.0
	for_each_fixture run_one
}

@test "explain refuses every bad profile with the same message" {
	bats_require_minimum_version 1.5.0
	for_each_fixture explain_one
}

@test "a missing profile file is refused with the system's reason" {
	bats_require_minimum_version 1.5.0
	run --separate-stderr "$SBXRUN" --profile "$BATS_TEST_TMPDIR/absent.json" -- touch "$BATS_TEST_TMPDIR/canary"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "sbxrun: $BATS_TEST_TMPDIR/absent.json: cannot open: No such file or directory" ]
	[ ! -e "$BATS_TEST_TMPDIR/canary" ]
}

@test "a directory given as the profile is refused" {
	bats_require_minimum_version 1.5.0
	run --separate-stderr "$SBXRUN" --profile "$BATS_TEST_TMPDIR" -- touch "$BATS_TEST_TMPDIR/canary"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "sbxrun: $BATS_TEST_TMPDIR: cannot read: Is a directory" ]
	[ ! -e "$BATS_TEST_TMPDIR/canary" ]
}
