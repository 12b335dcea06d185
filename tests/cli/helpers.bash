# Shared helpers for the command-line tests.

# jget JSON EXPR: evaluates a Python expression on the parsed JSON `j` and prints the result
# (strings bare, everything else as JSON).
jget() {
	python3 -c 'import json,sys
j=json.loads(sys.argv[1]); v=eval(sys.argv[2])
print(v if isinstance(v,str) else json.dumps(v))' "$@"
}

setup_ws() {
	WS="$BATS_TEST_TMPDIR/ws"
	mkdir -p "$WS/src" "$WS/.git/hooks"
	WS=$(cd "$WS" && pwd -P)
}

# The first line of stderr of the last `run --separate-stderr`, or of output.
first_line() {
	printf '%s\n' "$1" | head -n 1
}
