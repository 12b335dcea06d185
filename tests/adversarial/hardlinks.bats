#!/usr/bin/env bats
# Hard links: a mask hides a name, not the file. Run 1 gives a file that no rule denies yet a
# second name that a deny glob matches (or puts such a file in a directory the glob matches);
# the user later writes a secret through the matched name, in place. Run 2 must not read it
# through the other name: it refuses, naming the file. Linking a file that is denied or
# read-only at the time is refused by the kernel (EXDEV: the mask is another mount).
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
}

# Words of the refusals: the path denied, and what of it has other names. A glob's match is
# refused as the glob ($(glob_refused PATTERN)), in these words.
CANNOT="sbxrun: cannot enforce sandbox deny-read path"
GLOBBED="cannot enforce sandbox deny-read path"
TWO="has other names (hard links): the command could read it through one of them"

@test "run 1 links a file under a name the deny glob matches later; run 2 refuses" {
	rm -f "$WS/notes.txt" "$WS/x.env"
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/**/*.env")")
	run sbx sh -c "echo >'$WS/notes.txt' && ln '$WS/notes.txt' '$WS/x.env'"
	[ "$status" -eq 0 ]
	# The user writes a secret through the matched name, in place (the inode is kept).
	echo secret >"$WS/x.env"
	run sbx sh -c "touch '$CANARY'; cat '$WS/notes.txt'"
	refused "$(glob_refused "$WS/**/*.env")$GLOBBED $WS/x.env because it $TWO"
	[[ "${lines[0]}" == *"; hint: remove its other names, which hold the same content (find \
\"\$(stat -c %m $WS/x.env)\" -xdev -samefile $WS/x.env lists them)" ]]
	explain_agrees
	# Control: with one name left, the run starts and the match is masked.
	rm "$WS/notes.txt"
	expect EACCES read "$WS/x.env"
	expect OK read "$WS/file.txt"
	rm -f "$WS/x.env"
}

@test "run 1 plants a linked file in a directory the deny glob matches later; run 2 refuses" {
	rm -rf "$WS/app" "$WS/notes2.txt"
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/**/secrets")")
	run sbx sh -c "echo >'$WS/notes2.txt' && mkdir -p '$WS/app/secrets/k' &&
		ln '$WS/notes2.txt' '$WS/app/secrets/k/key'"
	[ "$status" -eq 0 ]
	echo secret >"$WS/app/secrets/k/key"
	run sbx sh -c "touch '$CANARY'; cat '$WS/notes2.txt'"
	refused "$(glob_refused "$WS/**/secrets")$GLOBBED $WS/app/secrets because $WS/app/secrets/k/key inside it $TWO"
	explain_agrees
	# Control: one name left; the whole directory is masked.
	rm "$WS/notes2.txt"
	expect EACCES read "$WS/app/secrets/k/key"
	expect OK read "$WS/file.txt"
	rm -rf "$WS/app"
}

# Words of a symbolic link in a matched directory that may lead out of it.
OUT_LINK='may lead out of it (absolute, or through ".."): what is written through it lands unmasked'

@test "run 1 plants a symlink out of a directory the deny glob matches later; run 2 refuses" {
	local s="$WS/app/secrets" how
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/**/secrets")")
	for how in ../../notes3.txt "$WS/notes3.txt" sub/../../../notes3.txt; do
		rm -rf "$WS/app" "$WS/notes3.txt"
		# Run 1: the link leads out of the directory; "inner" stays inside it.
		run sbx sh -c "mkdir -p '$s/sub' && ln -s '$how' '$s/key' && ln -s sub/f '$s/inner'"
		[ "$status" -eq 0 ]
		# The user writes a secret through the matched name; it lands in notes3.txt.
		echo topsecret >"$s/key"
		run sbx sh -c "touch '$CANARY'; cat '$WS/notes3.txt'"
		refused "$(glob_refused "$WS/**/secrets")$GLOBBED $s: symlink $s/key inside it $OUT_LINK"
		[[ "${lines[0]}" == *"; hint: remove the link, and check the place it led to for \
anything written through it" ]]
		explain_agrees
		[[ "$output" != *topsecret* ]]
	done
	# Control: the link that stays inside is walked past; the whole directory is masked.
	rm "$s/key" "$WS/notes3.txt"
	echo inside >"$s/inner"
	expect EACCES read "$s/inner"
	expect EACCES read "$s/sub/f"
	expect OK read "$WS/file.txt"
	rm -rf "$WS/app"
}

@test "a writable root named through a link: a linked match refuses by either name" {
	local real="$BASE/data-$SBX_USER" lnk="$BASE/proj-$SBX_USER" via
	rm -rf "$real" "$lnk"
	mkdir -p "$real"
	# The user's own link to the project, outside every writable root: followed.
	ln -s "$real" "$lnk"
	for via in "$lnk" "$real"; do
		PROFILE=$(profile restricted "$(entry_special root read)" \
			"$(entry_path "$lnk" write)" "$(glob_deny "$via/**/*.env")")
		SBX_CWD=$lnk
		new_canary "$real"
		# Run 1 links a file of its own under a name the glob matches later.
		run sbx sh -c "echo >'$lnk/notes.txt' && ln '$lnk/notes.txt' '$lnk/x.env'"
		[ "$status" -eq 0 ]
		echo secret >"$lnk/x.env"
		run sbx sh -c "touch '$CANARY'; cat '$lnk/notes.txt'"
		refused "$(glob_refused "$via/**/*.env")$GLOBBED $via/x.env because it $TWO"
		explain_agrees
		# Control: one name left; the match is masked, the other file reads.
		rm "$lnk/notes.txt"
		expect EACCES read "$lnk/x.env"
		echo plain >"$lnk/plain.txt"
		expect OK read "$lnk/plain.txt"
		rm -f "$lnk/x.env" "$lnk/plain.txt"
	done
	rm -rf "$real" "$lnk"
}

@test "run 1 gives a FIFO a second name the deny glob matches; run 2 refuses" {
	rm -rf "$WS/pipe" "$WS/p.env" "$WS/fifos"
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/**/*.env")" \
		"$(glob_deny "$WS/**/fifos")")
	# Run 1: what the user writes into p.env (or fifos/key) goes to a reader of pipe.
	run sbx sh -c "mkfifo '$WS/pipe' && ln '$WS/pipe' '$WS/p.env'"
	[ "$status" -eq 0 ]
	run timeout 30 "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- \
		sh -c "touch '$CANARY'; cat '$WS/pipe' </dev/null & sleep 1; kill \$!"
	refused "$(glob_refused "$WS/**/*.env")$GLOBBED $WS/p.env because it $TWO"
	explain_agrees
	rm "$WS/p.env"
	run sbx sh -c "mkdir '$WS/fifos' && ln '$WS/pipe' '$WS/fifos/key'"
	[ "$status" -eq 0 ]
	run timeout 30 "$H" --sandbox-policy-cwd "$WS" --permission-profile "$PROFILE" -- \
		sh -c "touch '$CANARY'; cat '$WS/pipe' </dev/null & sleep 1; kill \$!"
	refused "$(glob_refused "$WS/**/fifos")$GLOBBED $WS/fifos because $WS/fifos/key inside it $TWO"
	explain_agrees
	# Control: with one name left, the run starts and the match is masked.
	rm "$WS/pipe"
	expect EACCES read "$WS/fifos/key"
	expect OK read "$WS/file.txt"
	rm -rf "$WS/fifos"
}

@test "a matched directory too deep to check for links refuses the run, in words" {
	local d="$WS/deep/secrets"
	rm -rf "$WS/deep"
	PROFILE=$(profile restricted $(workspace_entries) "$(glob_deny "$WS/**/secrets")")
	# Run 1 nests 70 directories in a directory the glob will match.
	run sbx sh -c "mkdir -p '$d' && cd '$d' && for i in \$(seq 70); do mkdir d && cd d; done"
	[ "$status" -eq 0 ]
	run sbx touch "$CANARY"
	refused "$(glob_refused "$WS/**/secrets")$GLOBBED $d: it is more than 64 directories deep, at $d/d*"
	[[ "${lines[0]}" == *"; hint: flatten the tree, or remove it" ]]
	explain_agrees
	# Control: a shallower tree is walked and masked.
	rm -rf "$d/d/d/d/d"
	expect EACCES list "$d/d"
	rm -rf "$WS/deep"
}

@test "a denied or read-only file cannot get a second name; a denied file with one refuses" {
	rm -f "$WS/l1" "$WS/l2" "$WS/l3" "$WS/l4" "$WS/sec" "$OUT/sec2"
	echo secret >"$WS/sec"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$WS/sec" deny)")
	# Run 1 tries to link the denied file, the protected git config and a hook in the workspace.
	expect EXDEV link "$WS/sec" "$WS/l1"
	expect EXDEV link "$WS/.git/config" "$WS/l2"
	expect EXDEV link "$WS/.git/description" "$WS/l3"
	# Positive control: an ordinary file links.
	expect OK link "$WS/file.txt" "$WS/l4"
	outside link "$WS/sec" "$WS/l1"
	rm -f "$WS/l1" "$WS/l4"
	# Run 2 holds: nothing was linked.
	[ "$(stat -c %h "$WS/sec")" = 1 ]
	expect EACCES read "$WS/sec"
	# A denied file in a writable root that has a second name (made outside) is refused.
	ln "$WS/sec" "$WS/l1"
	run sbx touch "$CANARY"
	refused "sbxrun: cannot enforce \"deny $WS/sec\" on linux: ${CANNOT#sbxrun: } $WS/sec \
because it $TWO"
	# explain says so too: the planner decides it for a path the profile names.
	echo "$PROFILE" >"$BASE/deny-sec.json"
	run "$BIN/sbxrun" explain --cwd "$WS" --profile "$BASE/deny-sec.json"
	[[ "$output" == *"enforceable:       no"* ]]
	[[ "$output" == *"because it $TWO"* ]]
	rm "$WS/l1"
	# Outside every writable root no run could have made the other name: not asked about.
	echo secret >"$OUT/sec2"
	ln "$OUT/sec2" "$OUT/sec2.link"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/sec2" deny)")
	expect EACCES read "$OUT/sec2"
	rm -f "$OUT/sec2" "$OUT/sec2.link" "$WS/sec"
}

@test "a read-only or denied file cannot be linked into a writable root, in every model" {
	local pw="$BASE/plain" model
	rm -rf "$pw"
	mkdir -p "$pw"
	echo orig >"$OUT/ro"
	echo secret >"$OUT/sec"
	echo mine >"$pw/own"
	# Landlock alone cannot keep names from being created: the protected names are granted.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$pw" write)" \
		$(unprotected "$pw") "$(entry_path "$OUT/sec" deny)")
	SBX_CWD=$pw
	# A second name in the writable root would make the file writable (or readable) there.
	outside link "$OUT/ro" "$pw/l"
	rm "$pw/l"
	expect EXDEV link "$OUT/ro" "$pw/l"
	expect EXDEV link "$OUT/sec" "$pw/s"
	expect OK link "$pw/own" "$pw/own2"
	rm -f "$pw/own2"
	# Moving it there: another mount (EXDEV); with Landlock alone, no right to remove it.
	expect EXDEV rename "$OUT/ro" "$pw/l"
	fexpect clone EXDEV rename "$OUT/ro" "$pw/l"
	fexpect unshare EACCES rename "$OUT/ro" "$pw/l"
	# A mount namespace without the PID one (clone), and Landlock alone (unshare).
	for model in clone unshare; do
		fexpect "$model" EXDEV link "$OUT/ro" "$pw/l"
		fexpect "$model" EXDEV link "$OUT/sec" "$pw/s"
		fexpect "$model" OK link "$pw/own" "$pw/own2"
		rm -f "$pw/own2"
	done
	[ "$(stat -c %h "$OUT/ro")" = 1 ]
	[ "$(stat -c %h "$OUT/sec")" = 1 ]
	rm -rf "$pw" "$OUT/ro" "$OUT/sec"
}

@test "run 1 links a file in a directory a deny names later; run 2 refuses, naming the file" {
	local d="$WS/secrets"
	rm -rf "$d" "$WS/notes.txt"
	# Run 1, before the deny was written: a directory, a file in it, its other name outside.
	PROFILE=$(profile restricted $(workspace_entries))
	run sbx sh -c "mkdir '$d' && echo >'$d/token' && ln '$d/token' '$WS/notes.txt'"
	[ "$status" -eq 0 ]
	# The user writes a secret through the denied name, in place, and denies the directory.
	echo hunter2 >"$d/token"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$d" deny)")
	run sbx sh -c "touch '$CANARY'; cat '$WS/notes.txt'"
	refused "sbxrun: cannot enforce \"deny $d\" on linux: $GLOBBED $d because $d/token inside it $TWO"
	[[ "$output" != *hunter2* ]]
	explain_agrees
	# Control: with one name left, the run starts and the directory is masked.
	rm "$WS/notes.txt"
	expect EACCES read "$d/token"
	expect OK read "$WS/file.txt"
	rm -rf "$d"
}

@test "run 1 links a file a read-only entry names later; run 2 refuses, never rewrites it" {
	rm -f "$WS/build.sh" "$WS/.b"
	# Run 1, before the read-only entry was written: a file of its own and its other name.
	PROFILE=$(profile restricted $(workspace_entries))
	run sbx sh -c "echo >'$WS/build.sh' && ln '$WS/build.sh' '$WS/.b'"
	[ "$status" -eq 0 ]
	# The user writes the script in place and keeps it read-only for the next runs.
	echo 'make all' >"$WS/build.sh"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$WS/build.sh" read)")
	run sbx sh -c "touch '$CANARY'; echo planted >'$WS/.b'"
	refused "sbxrun: cannot enforce \"read-only $WS/build.sh\" on linux: cannot enforce sandbox \
read-only path $WS/build.sh because it has other names (hard links): the command could rewrite \
it through one of them"
	[[ "${lines[0]}" == *"; hint: give it a name of its own (cp -p $WS/build.sh $WS/build.sh.new \
&& mv $WS/build.sh.new $WS/build.sh), and check what it says" ]]
	[ "$(cat "$WS/build.sh")" = "make all" ]
	explain_agrees
	# The hint's fix: a copy of its own starts the run; the other name keeps the old text.
	cp -p "$WS/build.sh" "$WS/build.sh.new"
	mv "$WS/build.sh.new" "$WS/build.sh"
	expect EROFS append "$WS/build.sh"
	expect OK append "$WS/.b"
	[ "$(cat "$WS/build.sh")" = "make all" ]
	rm -f "$WS/build.sh" "$WS/.b"
}

@test "a writable carve-out in a denied directory: what run 1 links there refuses nothing" {
	local d="$WS/secrets"
	rm -rf "$d"
	mkdir -p "$d/pub"
	echo hunter2 >"$d/token"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$d" deny)" \
		"$(entry_path "$d/pub" write)")
	# Run 1 writes in the carve-out and gives its file a second name there.
	expect OK write "$d/pub/a"
	expect OK link "$d/pub/a" "$d/pub/b"
	[ "$(stat -c %h "$d/pub/a")" = 2 ]
	# Run 2 starts: the carve-out is the command's own, the rest of the directory stays hidden.
	expect OK read "$d/pub/b"
	expect EACCES list "$d"
	expect ENOENT read "$d/token"
	rm -rf "$d"
}

@test "a denied directory another user closed is passed over, as by the glob's walk; one's own is not" {
	local w="$WORK/closed-ws" d="$WORK/closed-ws/closed" rule
	new_canary "$w"
	SBX_CWD=$w
	for rule in "$(entry_path "$d" deny)" "$(glob_deny "$w/clo*")"; do
		PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$w" write)" \
			"$rule")
		if as_root; then
			# Root lists it, so a command as root could have linked there: walked, refused.
			run sbx sh -c "touch '$CANARY'"
			refused "sbxrun: cannot enforce \"deny*\" on linux: $GLOBBED $d because $d/[ab] inside it $TWO"
			explain_agrees
		else
			# Root's, mode 0700: uid 65534 can open, list and link nothing in it, as before.
			expect EACCES list "$d"
			expect EACCES read "$d/a"
			expect EACCES link "$d/a" "$w/c"
			expect OK write "$w/c"
		fi
	done
	# Control: a directory of the command's own that it closed refuses (it may open it again).
	rm -rf "$w/mine" "$w/c"
	mkdir "$w/mine"
	chmod 0000 "$w/mine"
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$w" write)" \
		"$(entry_path "$w/mine" deny)")
	if as_root; then
		expect EACCES list "$w/mine"
	else
		run sbx sh -c "touch '$CANARY'"
		refused "sbxrun: cannot enforce \"deny $w/mine\" on linux: $GLOBBED $w/mine: cannot list it to check for hard links: $(errtext EACCES)"
		explain_agrees
	fi
	rm -rf "$w/mine" "$w/c"
}

# unenforced: explain's rows (rule, then why) that it cannot enforce, for $PROFILE in $SBX_CWD.
unenforced() {
	local f="$BASE/explain-$BATS_TEST_NUMBER.json"
	echo "$PROFILE" >"$f"
	"$BIN/sbxrun" explain --json --cwd "$SBX_CWD" --profile "$f" | python3 -c '
import json, sys
for r in json.load(sys.stdin)["requirements"]:
    if r["status"] == "unenforceable":
        print("%s: %s" % (r["rule"], r["why"]))'
}

@test "another user's 0750 directory the command cannot enter is passed over in a denied or kept tree" {
	local g="$WORK/grp-ws" rows
	new_canary "$g"
	SBX_CWD=$g
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$g" write)" \
		"$(entry_path "$g/d1" deny)")
	run unenforced
	echo "$output"
	[ "$status" -eq 0 ]
	rows=$output
	if as_root; then
		# Root lists them, so a command as root could have linked there: each walked, refused.
		[[ "$rows" == *"deny $g/d1: $GLOBBED $g/d1 because $g/d1/grp/"[ab]" inside it $TWO"* ]]
		[[ "$rows" == *"read-only $g/.codex: cannot enforce sandbox read-only path $g/.codex because $g/.codex/grp/"[ab]" inside it $KEPT_TWO"* ]]
		[[ "$rows" == *"read-only $g/.git: cannot enforce sandbox read-only path $g/.git because $g/.git/hooks/pre-"* ]]
		run sbx sh -c "touch '$CANARY'"
		refused "sbxrun: cannot enforce \"*\" on linux: cannot enforce sandbox *"
	else
		# Root's, mode 0750, group root: uid 65534 can open, list and link nothing in them.
		[ "$rows" = "" ]
		expect EACCES read "$g/.codex/grp/a"
		expect EACCES link "$g/.codex/grp/a" "$g/c"
		expect EACCES link "$g/.git/hooks/pre-commit" "$g/c"
		expect EACCES list "$g/d1"
		run sbx sh -c "touch '$CANARY'"
		[ "$status" -eq 0 ]
		[ -e "$CANARY" ]
	fi
	# Control: one of mode 0710 whose group uid 65534 is in: it can pass through and open its
	# files by name, so the walk cannot pass over it.
	PROFILE=$(profile restricted "$(entry_special root read)" "$(entry_path "$g" write)" \
		"$(entry_path "$g/d2" deny)")
	rm -f "$CANARY" "$g/c"
	run sbx sh -c "touch '$CANARY'"
	if as_root; then
		refused "sbxrun: cannot enforce \"*\" on linux: cannot enforce sandbox *"
	else
		refused "sbxrun: cannot enforce \"deny $g/d2\" on linux: $GLOBBED $g/d2: cannot list $g/d2/pass: $(errtext EACCES)"
		explain_agrees
	fi
	rm -f "$CANARY" "$g/c"
}

@test "a denied directory of more entries than are checked refuses the run, in words" {
	local d="$WS/data"
	rm -rf "$d"
	# Run 1, before the deny was written: 8193 entries, more than the walk checks.
	PROFILE=$(profile restricted $(workspace_entries))
	run sbx sh -c "mkdir '$d' && cd '$d' && seq 8193 | xargs touch"
	[ "$status" -eq 0 ]
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$d" deny)")
	run sbx sh -c "touch '$CANARY'"
	refused "sbxrun: cannot enforce \"deny $d\" on linux: $GLOBBED $d: it holds more than 8192 \
entries to check for hard links"
	[[ "${lines[0]}" == *"; hint: empty it, or deny the parts of it that hold secrets (each \
denied directory is walked on its own)" ]]
	explain_agrees
	# Control: at the bound the tree is walked, and the run starts with it masked.
	rm "$d/8193"
	expect EACCES read "$d/1"
	expect OK read "$WS/file.txt"
	rm -rf "$d"
}

# Words of a read-only directory's file that makes something run later, with another name.
KEPT_TWO="has other names (hard links): the command could rewrite it through one of them"

# kept_refused DIR FILE: the run refused the read-only DIR for FILE inside it, with the fix.
kept_refused() {
	refused "sbxrun: cannot enforce \"read-only $1\" on linux: cannot enforce sandbox read-only \
path $1 because $2 inside it $KEPT_TWO"
	[[ "${lines[0]}" == *"; hint: give it a name of its own (cp -p $2 $2.new && mv $2.new $2), \
and check what it says" ]]
}

@test "run 1 links a nested repository's config, hook and .codex file; run 2 there refuses" {
	local p f
	p=$(realpath "$TMPDIR")/kept-$BATS_TEST_NUMBER
	rm -rf "$p"
	mkdir -p "$p/A/.codex"
	new_canary "$p"
	git init -q "$p/A"
	echo '#!/bin/sh' >"$p/A/.git/hooks/pre-commit"
	echo 'model = "m"' >"$p/A/.codex/config.toml"
	PROFILE=$(profile restricted $(workspace_entries))
	for f in .git/config .git/hooks/pre-commit .codex/config.toml; do
		# Run 1, in P: A/.git and A/.codex are plain nested directories, writable.
		SBX_CWD=$p
		run sbx ln "$p/A/$f" "$p/zz"
		[ "$status" -eq 0 ]
		# Run 2, in A: its .git and .codex are kept read-only, P/zz is not.
		SBX_CWD=$p/A
		run sbx sh -c "touch '$CANARY'; echo '[core] fsmonitor = planted' >>'$p/zz'"
		kept_refused "$p/A/${f%%/*}" "$p/A/$f"
		[ "$(grep -c planted "$p/A/$f")" = 0 ]
		explain_agrees
		rm "$p/zz"
	done
	# Control: the same layout without the link runs, and the config stays read-only; so does
	# one with a linked example hook, which git never runs.
	cp -p "$p/A/.git/config" "$p/zz"
	echo '#!/bin/sh' >"$p/A/.git/hooks/pre-push.sample"
	ln "$p/A/.git/hooks/pre-push.sample" "$p/s"
	expect EROFS append "$p/A/.git/config"
	expect EROFS append "$p/A/.git/hooks/pre-commit"
	expect EROFS append "$p/A/.codex/config.toml"
	expect OK append "$p/zz"
	SBX_CWD=$WS
	rm -rf "$p"
}

@test "a Codex home's sessions and log are passed over; as many entries elsewhere in .codex refuse" {
	local p
	p=$(realpath "$TMPDIR")/codexhome-$BATS_TEST_NUMBER
	rm -rf "$p"
	mkdir -p "$p/A/.codex/sessions/2026/12/02" "$p/A/.codex/log"
	new_canary "$p"
	git init -q "$p/A"
	# What Codex records in its home: more files than the walk checks, one with a second name.
	(cd "$p/A/.codex/sessions/2026/12/02" && seq 8200 | xargs touch)
	ln "$p/A/.codex/sessions/2026/12/02/1" "$p/A/.codex/log/1"
	echo 'model = "m"' >"$p/A/.codex/config.toml"
	touch "$p/A/f"
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$p/A
	expect EROFS append "$p/A/.codex/config.toml"
	expect OK append "$p/A/f"
	# The same tree where Codex reads what it runs or is told is walked: the second name found,
	# and without it, more entries than the walk checks.
	mv "$p/A/.codex/sessions" "$p/A/.codex/prompts"
	run sbx sh -c "touch '$CANARY'"
	kept_refused "$p/A/.codex" "$p/A/.codex/prompts/2026/12/02/1"
	rm "$p/A/.codex/log/1"
	run sbx sh -c "touch '$CANARY'"
	refused "sbxrun: cannot enforce \"read-only $p/A/.codex\" on linux: cannot enforce sandbox \
read-only path $p/A/.codex: it holds more than 8192 entries to check for hard links"
	explain_agrees
	SBX_CWD=$WS
	rm -rf "$p"
}

@test "the fix the refusal gives starts the run; the other name keeps the old content" {
	local p
	p=$(realpath "$TMPDIR")/kept-$BATS_TEST_NUMBER
	rm -rf "$p"
	git init -q "$p/A"
	new_canary "$p"
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$p
	run sbx ln "$p/A/.git/config" "$p/zz"
	[ "$status" -eq 0 ]
	SBX_CWD=$p/A
	run sbx sh -c "touch '$CANARY'"
	kept_refused "$p/A/.git" "$p/A/.git/config"
	cp -p "$p/A/.git/config" "$p/A/.git/config.new"
	mv "$p/A/.git/config.new" "$p/A/.git/config"
	expect EROFS append "$p/A/.git/config"
	expect OK append "$p/zz"
	[ "$(grep -c fsmonitor "$p/A/.git/config")" = 0 ]
	SBX_CWD=$WS
	rm -rf "$p"
}

@test "a linked worktree's and a submodule's git files with other names refuse; objects do not" {
	local p g=(git -c user.name=t -c user.email=t@t -c protocol.file.allow=always)
	p=$(realpath "$TMPDIR")/kept-$BATS_TEST_NUMBER
	rm -rf "$p"
	"${g[@]}" init -q "$p/lib"
	"${g[@]}" -C "$p/lib" commit -q --allow-empty -m lib
	new_canary "$p"
	"${g[@]}" init -q "$p/A"
	"${g[@]}" -C "$p/A" commit -q --allow-empty -m init
	"${g[@]}" -C "$p/A" submodule add -q "$p/lib" sub 2>/dev/null
	"${g[@]}" -C "$p/A" commit -qm sub
	"${g[@]}" -C "$p/A" worktree add -q "$p/W"
	# Innocent second names: a local clone hard-links the objects, and runs.
	"${g[@]}" clone -q --local "$p/A" "$p/C"
	[ "$(find "$p/C/.git/objects" -type f -links +1 | wc -l)" -gt 0 ]
	PROFILE=$(profile restricted $(workspace_entries))
	SBX_CWD=$p/C
	expect EROFS append "$p/C/.git/config"
	SBX_CWD=$p/W
	expect EROFS append "$p/A/.git/worktrees/W/commondir"
	SBX_CWD=$p/A
	expect EROFS append "$p/A/.git/modules/sub/config"
	# An earlier run, in P, links the files git takes from them.
	SBX_CWD=$p
	run sbx sh -c "ln '$p/A/.git/modules/sub/config' '$p/m' &&
		ln '$p/A/.git/worktrees/W/commondir' '$p/w'"
	[ "$status" -eq 0 ]
	SBX_CWD=$p/A
	run sbx sh -c "touch '$CANARY'"
	kept_refused "$p/A/.git" "$p/A/.git/modules/sub/config"
	explain_agrees
	SBX_CWD=$p/W
	run sbx sh -c "touch '$CANARY'"
	kept_refused "$p/A/.git/worktrees/W" "$p/A/.git/worktrees/W/commondir"
	rm "$p/m" "$p/w"
	# Its gitdir (the checkout git worktree remove deletes, and prune goes by), linked by a
	# run in P.
	SBX_CWD=$p
	run sbx ln "$p/A/.git/worktrees/W/gitdir" "$p/d"
	[ "$status" -eq 0 ]
	SBX_CWD=$p/W
	run sbx sh -c "touch '$CANARY'"
	kept_refused "$p/A/.git/worktrees/W" "$p/A/.git/worktrees/W/gitdir"
	rm "$p/d"
	# The worktree's .git file itself, linked by a run in P.
	SBX_CWD=$p
	run sbx ln "$p/W/.git" "$p/g"
	[ "$status" -eq 0 ]
	SBX_CWD=$p/W
	run sbx sh -c "touch '$CANARY'"
	refused "sbxrun: cannot enforce \"read-only $p/W/.git\" on linux: cannot enforce sandbox \
read-only path $p/W/.git because it $KEPT_TWO"
	rm "$p/g"
	expect OK write "$p/W/new"
	SBX_CWD=$WS
	rm -rf "$p"
}

@test "in git mode, a hook with another name refuses; the git directory stays writable" {
	local p
	p=$(realpath "$TMPDIR")/kept-$BATS_TEST_NUMBER
	rm -rf "$p"
	git init -q "$p/A"
	new_canary "$p"
	echo '#!/bin/sh' >"$p/A/.git/hooks/pre-commit"
	PROFILE=$(profile restricted $(workspace_entries))
	# Run 1, in P: A/.git is a plain nested directory, writable.
	SBX_CWD=$p
	run sbx ln "$p/A/.git/hooks/pre-commit" "$p/A/zz"
	[ "$status" -eq 0 ]
	# Run 2, in A in git mode: hooks/ is kept read-only, A/zz is not.
	run "$BIN/sbxrun" --allow-git -C "$p/A" -w "$p/A" -- \
		sh -c "touch '$CANARY'; echo planted >>'$p/A/zz'"
	kept_refused "$p/A/.git/hooks" "$p/A/.git/hooks/pre-commit"
	[ "$(grep -c planted "$p/A/.git/hooks/pre-commit")" = 0 ]
	# Control: with a name of its own the run starts, the hook read-only, the rest writable.
	rm "$p/A/zz"
	run "$BIN/sbxrun" --allow-git -C "$p/A" -w "$p/A" -- "$P" append "$p/A/.git/hooks/pre-commit"
	[ "$output" = EROFS ]
	run "$BIN/sbxrun" --allow-git -C "$p/A" -w "$p/A" -- "$P" write "$p/A/.git/description"
	[ "$output" = OK ]
	SBX_CWD=$WS
	rm -rf "$p"
}
