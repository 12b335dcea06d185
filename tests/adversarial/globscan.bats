#!/usr/bin/env bats
# What the deny glob scan reads was written by earlier runs. Run 1 plants matches with names a
# path-based tool mishandles (a newline, bytes that are not UTF-8, a tab, a backslash), FIFOs
# (one matching: the scan must not open it and hang), and a symbolic link loop. Run 2 starts at
# once and every match is masked (EACCES, the FIFO too), beside a file the glob does not match.
# Run 1 also builds a tree as deep as a path can name: the scan must still end, and mask.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/**/*.env")")
}

# reads DIR: each name in DIR (sorted, as Python's bytes repr) and what reading it gives: the
# content, or the errno's name; what is not a regular file is not opened (a masked FIFO is an
# empty file of mode 0000).
reads() {
	python3 -c '
import errno, os, stat, sys
d = os.fsencode(sys.argv[1])
for n in sorted(os.listdir(d)):
    p = d + b"/" + n
    st = os.lstat(p)
    if not stat.S_ISREG(st.st_mode):
        print(repr(n), "not a file")
        continue
    try:
        print(repr(n), open(p, "rb").read().decode())
    except OSError as e:
        print(repr(n), errno.errorcode[e.errno])
' "$1"
}
export -f reads

@test "run 1 plants odd names, FIFOs and a link loop where the glob scans: run 2 masks each" {
	local d="$WS/odd"
	rm -rf "$d"
	run sbx python3 -c '
import os, sys
d = os.fsencode(sys.argv[1])
os.mkdir(d)
for n in [b"new\nline.env", b"bad\xff\xfe.env", b"tab\tx.env", b"back\\slash.env", b"plain.txt"]:
    open(d + b"/" + n, "w").write("secret")
os.mkfifo(d + b"/fifo.env")
os.mkfifo(d + b"/fifo")
os.symlink(b"loop", d + b"/loop")
' "$d"
	[ "$status" -eq 0 ]
	# Positive control: outside the sandbox every one of them reads.
	run reads "$d"
	[[ "$output" == *"'new\\nline.env' secret"* ]]
	# Run 2 starts (no hang on the FIFOs, no error on the loop) and masks each match.
	run timeout 30 "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- \
		bash -c "reads '$d'"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "b'back\\\\slash.env' EACCES
b'bad\\xff\\xfe.env' EACCES
b'fifo' not a file
b'fifo.env' EACCES
b'loop' not a file
b'new\\nline.env' EACCES
b'plain.txt' secret
b'tab\\tx.env' EACCES" ]
	rm -rf "$d"
}

@test "run 1 builds a tree as deep as a path can name, a match at its bottom: run 2 masks it" {
	local d="$WS/deep" bottom
	rm -rf "$d"
	# Run 1: a directory a level, two bytes each, down to a path just short of PATH_MAX (about
	# 1,900 levels): a scan that recursed holding each level's listing (its descriptor and its
	# buffers) ran out of stack and died with SIGSEGV here, so that no run could start again.
	run sbx python3 -c '
import os, sys
os.mkdir(sys.argv[1])
os.chdir(sys.argv[1])
while len(os.getcwd()) < 4096 - 16:
    os.mkdir("a")
    os.chdir("a")
open("x.env", "w").write("secret")
open("y.txt", "w").write("plain")
print(os.getcwd())
' "$d"
	[ "$status" -eq 0 ]
	bottom=$output
	[ "${#bottom}" -gt 4000 ]
	# Positive control: outside the sandbox the match reads.
	outside read "$bottom/x.env"
	# Run 2 starts, masks the match and leaves its neighbour readable.
	expect EACCES read "$bottom/x.env"
	expect OK read "$bottom/y.txt"
	rm -rf "$d"
}

# explain_matches PATTERN PATH...: explain, given $PROFILE, calls the plan enforceable and lists
# exactly PATH... (sorted) as what the deny glob PATTERN matches on this host now.
explain_matches() {
	local pattern=$1 f="$BASE/explain-$BATS_TEST_NUMBER.json" want
	shift
	echo "$PROFILE" >"$f"
	run "$BIN/sbxrun" explain --json --cwd "$WS" --profile "$f"
	echo "explain: status $status: ${output:0:2000}"
	[ "$status" -eq 0 ]
	want=$(printf '%s\n' "$@" | sort)
	run python3 -c '
import json, sys
j = json.loads(sys.argv[1])
print(j["enforceable"])
for r in j["requirements"]:
    if r["rule"] == "deny glob " + sys.argv[2]:
        print(r["status"])
        print("\n".join(r["matches"]))
' "$output" "$pattern"
	[ "${lines[0]}" = True ]
	[ "${lines[1]}" = enforced ]
	[ "$(printf '%s\n' "${lines[@]:2}")" = "$want" ]
}

@test "run 1 plants more matches than a start can mask: explain says run refuses, in its words" {
	local d="$WS/many"
	new_canary "$WS"
	rm -rf "$d"
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$d/**/*.env")")
	# Positive control: a tree the scan takes. explain lists what run masks, and run starts.
	run sbx sh -c "mkdir -p '$d/sub' && echo s >'$d/a.env' && echo s >'$d/sub/b.env' &&
		echo p >'$d/plain.txt'"
	[ "$status" -eq 0 ]
	explain_matches "$d/**/*.env" "$d/a.env" "$d/sub/b.env"
	expect EACCES read "$d/sub/b.env"
	expect OK read "$d/plain.txt"
	# Run 1 plants one match more than a start masks.
	run sbx python3 -c '
import os, sys
for i in range(8193):
    open(os.path.join(sys.argv[1], "f%d.env" % i), "w").close()
' "$d/sub"
	[ "$status" -eq 0 ]
	# Run 2 is refused before anything runs, and explain said so first, in the same words.
	run sbx touch "$CANARY"
	refused "$(glob_refused "$d/**/*.env")glob \`$d/**/*.env\` matches more than 8192 paths"
	[[ "${lines[0]}" == *"; hint: narrow the pattern, or set glob_scan_max_depth to limit the scan" ]]
	explain_agrees
	rm -rf "$d"
}

@test "run 1 turns the glob's static prefix into a link loop: explain says run refuses (ELOOP)" {
	local d="$WS/cfg"
	new_canary "$WS"
	rm -rf "$d" "$WS/cfg2"
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$d/**/*.env")")
	# Positive control: a directory there, with no match yet: explain lists none, run starts.
	mkdir -p "$d"
	echo p >"$d/plain.txt"
	explain_matches "$d/**/*.env"
	expect OK read "$d/plain.txt"
	# Run 1: the directory becomes a loop of two links (names the glob does not match).
	run sbx sh -c "rm -r '$d' && ln -s cfg2 '$d' && ln -s cfg '$WS/cfg2'"
	[ "$status" -eq 0 ]
	run sbx touch "$CANARY"
	refused "$(glob_refused "$d/**/*.env")cannot list $d while expanding glob \`$d/**/*.env\`: $(errtext ELOOP)"
	explain_agrees
	rm -f "$d" "$WS/cfg2"
}
