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
