# Shared by the adversarial suites: each case is two or more runs in one workspace, the first
# (confined, as a hostile command would be) preparing the ground, the last checked to be no
# weaker, each beside a positive control. Built on the enforcement suites' setup.
load ../enforce/common

# glob_deny PATTERN: a deny entry for a glob pattern.
glob_deny() { printf '{"path":{"type":"glob_pattern","pattern":"%s"},"access":"deny"}' "$1"; }

# new_canary DIR: $CANARY names a file the command would create first thing; none there yet.
new_canary() {
	CANARY="$1/canary-$BATS_TEST_NUMBER"
	rm -f "$CANARY"
}

# refused PATTERN: the last run exited 125, printed PATTERN (a glob) on its first line (before
# the "; hint: " that may end it, which the caller checks), and did not run the command (it would
# have created $CANARY).
refused() {
	echo "status $status: $output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]%%; hint: *}" == $1 ]]
	[ ! -e "$CANARY" ]
}

# errtext ENAME: the C library's wording of that errno, as sbxrun's messages carry it (glibc
# and musl word some differently: "Too many levels of symbolic links", "Symbolic link loop").
errtext() { "$P" strerror "$1"; }

# as_root: true when the suite runs as root (the harness runs every suite as root and as 65534).
as_root() { [ "$SBX_USER" = root ]; }

# glob_refused PATTERN: how a run refuses a deny glob whose scan or matches cannot be enforced,
# up to the reason (which follows).
glob_refused() { printf 'sbxrun: cannot enforce "deny glob %s" on linux: ' "$1"; }

# explain_agrees: after a run refused (its first line in $lines), explain, given the same
# $PROFILE and cwd, says the plan is not enforceable, for the same rule, reason and hint: the
# line run printed is explain's row of its first unenforceable requirement, put in run's words
# (a reason too long for one line loses its middle in both, not at the same place: then its
# start and its end are compared).
explain_agrees() {
	local said=${lines[0]} f="$BASE/explain-$BATS_TEST_NUMBER.json" line
	echo "$PROFILE" >"$f"
	run "$BIN/sbxrun" explain --json --cwd "${SBX_CWD:-$WS}" --profile "$f"
	echo "explain: status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	line=$(python3 -c '
import json, sys
j = json.loads(sys.argv[1])
print("enforceable" if j["enforceable"] else "")
r = [r for r in j["requirements"] if r["status"] == "unenforceable"][0]
line = "sbxrun: cannot enforce \"%s\" on linux: %s" % (r["rule"], r["why"])
print(line + ("; hint: " + r["hint"] if "hint" in r else ""))
' "$output")
	[ "${line%%$'\n'*}" = "" ]
	line=${line#*$'\n'}
	echo "run:     $said"
	echo "explain: $line"
	if [[ "$said" != *" ... "* ]]; then
		[ "$line" = "$said" ]
		return
	fi
	[[ "$line" == "${said%% ... *}"* ]]
	[[ "$line" == *"${said##* ... }" ]]
}
