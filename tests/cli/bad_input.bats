#!/usr/bin/env bats
#
# The bad-input corpus, one case per directory of bad/ (the layout of jansson's test suites):
#   input      the profile, or
#   input.gen  an input too big to commit: its first line is a size in bytes, the rest a JSON
#              text that is padded with spaces to that size
#   error      everything sbxrun must print on standard error, with FILE standing for the path
#              of the input: the one-line diagnostic, its hint (when there is one) included
# Every case must be refused before anything runs, by `run` and by `explain`: exit 125 and
# exactly the expected error. A new case is a new directory; nothing here names one.

BAD="$BATS_TEST_DIRNAME/bad"

# Prints the input path of a case, generating an input.gen into the test's temporary directory.
case_input() {
	local dir=$1 size out

	if [ -e "$dir/input.gen" ]; then
		out="$BATS_TEST_TMPDIR/$(basename "$dir").json"
		size=$(head -n 1 "$dir/input.gen")
		tail -n +2 "$dir/input.gen" >"$out"
		head -c $((size - $(stat -c %s "$out"))) /dev/zero | tr '\0' ' ' >>"$out"
		echo "$out"
	else
		echo "$dir/input"
	fi
}

# check_refused NAME WANT, after `run --separate-stderr`.
check_refused() {
	if [ "$status" -ne 125 ]; then
		echo "$1: exit $status, expected 125; stderr: $stderr" >&2
		return 1
	fi
	if [ "$stderr" != "$2" ]; then
		printf '%s:\n  got:  %s\n  want: %s\n' "$1" "$stderr" "$2" >&2
		return 1
	fi
}

for_each_case() {
	local dir input want failed=0 n=0

	for dir in "$BAD"/*/; do
		dir=${dir%/}
		if [ ! -e "$dir/error" ] || { [ ! -e "$dir/input" ] && [ ! -e "$dir/input.gen" ]; }; then
			echo "$(basename "$dir"): a case needs an input (or input.gen) and an error" >&2
			failed=1
			continue
		fi
		input=$(case_input "$dir")
		want=$(cat "$dir/error")
		want=${want//FILE/$input}
		"$@" "$(basename "$dir")" "$input" "$want" || failed=1
		n=$((n + 1))
	done
	[ "$n" -ge 85 ] || { echo "only $n cases" >&2; return 1; }
	return "$failed"
}

run_one() {
	local name=$1 input=$2 want=$3

	rm -f "$BATS_TEST_TMPDIR/canary"
	run --separate-stderr "$SBXRUN" --profile "$input" -- touch "$BATS_TEST_TMPDIR/canary"
	check_refused "$name" "$want" || return 1
	if [ -e "$BATS_TEST_TMPDIR/canary" ]; then
		echo "$name: the command ran" >&2
		return 1
	fi
}

explain_one() {
	run --separate-stderr "$SBXRUN" explain --profile "$2"
	check_refused "$1" "$3"
}

@test "bad profiles are refused with exit 125, the expected message, and nothing runs" {
	bats_require_minimum_version 1.5.0
	for_each_case run_one
}

@test "explain refuses every bad profile with the same message" {
	bats_require_minimum_version 1.5.0
	for_each_case explain_one
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
