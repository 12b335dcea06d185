#!/usr/bin/env bats
# A profile kept in the workspace it makes writable (a CI job's ci.json, an agent's workspace
# config), and an --add-permissions file beside it. Run 1, confined by that very profile, tries
# every way to make the file say something else by run 2: write it, truncate it, rename another
# file over it, move or remove it and make a new one, move its directory away, replace it by a
# link. Each must fail with the errno of the read-only mount that keeps it (or of the mount point
# it is), while a file beside it stays writable (the positive control); run 2 is as confined.
load common

S="$BIN/sbxrun"

setup_file() { make_layout; }
setup() {
	make_layout_vars
	new_canary "$WS"
	rm -rf "$WS/cfg" "$WS/other" "$WS/link.json" "$WS/link2.json" "$OUT/ext.json" "$OUT/pwned" \
		"$OUT/wslink"
	mkdir -p "$WS/cfg"
	# The workspace's own profile: read everywhere, write the workspace.
	PROF=$(profile restricted "$(entry_special root read)" "$(entry_special project_roots write)")
	ADD='{"file_system":{"entries":[]}}'
	echo "$PROF" >"$WS/cfg/sandbox.json"
	echo "$ADD" >"$WS/cfg/add.json"
	echo other >"$WS/other"
}

# attempt OP ARG...: probe OP inside run 1, confined by the workspace's profile and addition.
attempt() {
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" --add-permissions "$WS/cfg/add.json" \
		-- "$P" "$@"
	echo "inside: probe $* -> $output"
}

# origins JSON: the requirements of explain --json that name where they come from, one a line.
origins() {
	python3 -c 'import json, sys
for r in json.loads(sys.argv[1])["requirements"]:
    if "origin" in r:
        print(r["origin"], r["rule"], r["mechanism"], r["status"] + ":", r.get("why"))' "$1"
}

# unchanged: both files still hold what the user wrote, and run 2 is confined by them.
unchanged() {
	[ "$(cat "$WS/cfg/sandbox.json")" = "$PROF" ]
	[ "$(cat "$WS/cfg/add.json")" = "$ADD" ]
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" --add-permissions "$WS/cfg/add.json" \
		-- "$P" write "$OUT/pwned"
	echo "run 2: $output"
	[ "$output" = EROFS ]
	[ ! -e "$OUT/pwned" ]
}

@test "the profile and an addition a run read cannot be rewritten, truncated or chmod-ed by it" {
	for f in sandbox.json add.json; do
		for op in write append truncate chmod; do
			attempt "$op" "$WS/cfg/$f"
			[ "$output" = EROFS ]
		done
	done
	# Control: the file beside them is the command's.
	attempt append "$WS/other"
	[ "$output" = OK ]
	attempt chmod "$WS/other"
	[ "$output" = OK ]
	unchanged
}

@test "the profile and an addition a run read cannot be renamed over, moved, removed or linked" {
	for f in sandbox.json add.json; do
		attempt rename "$WS/other" "$WS/cfg/$f"
		[ "$output" = EXDEV ]
		# Its directory is bound onto itself (it holds a carve-out): EXDEV across it.
		attempt rename "$WS/cfg/$f" "$WS/$f.old"
		[ "$output" = EXDEV ]
		attempt rename "$WS/cfg/$f" "$WS/cfg/$f.old"
		[ "$output" = EBUSY ]
		attempt unlink "$WS/cfg/$f"
		[ "$output" = EBUSY ]
		# Gone, it could be made again with other words: it is not gone.
		attempt mknod "$WS/cfg/$f"
		[ "$output" = EEXIST ]
		attempt link "$WS/cfg/$f" "$WS/$f"
		[ "$output" = EXDEV ]
	done
	# Its directory stays where it is: moved away, the name could be made anew.
	attempt rename "$WS/cfg" "$WS/cfg.old"
	[ "$output" = EBUSY ]
	# Control: a file beside them is made, renamed, linked and removed.
	attempt mknod "$WS/cfg/other"
	[ "$output" = OK ]
	attempt rename "$WS/cfg/other" "$WS/cfg/other.old"
	[ "$output" = OK ]
	attempt link "$WS/cfg/other.old" "$WS/cfg/other"
	[ "$output" = OK ]
	attempt unlink "$WS/cfg/other.old"
	[ "$output" = OK ]
	unchanged
}

@test "the reproducer: a run that rewrites its profile, then a run that writes outside" {
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- \
		sh -c 'echo "{\"type\":\"disabled\"}" >cfg/sandbox.json'
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cfg/sandbox.json: Read-only file system"* ]]
	run "$S" -C "$WS" --add-permissions "$WS/cfg/add.json" -- \
		sh -c 'echo "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/\"},\"access\":\"write\"}]}}" >cfg/add.json'
	[ "$status" -ne 0 ]
	unchanged
	# Control: the same write lands in the file beside it.
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- sh -c 'echo x >other'
	[ "$status" -eq 0 ]
	[ "$(cat "$WS/other")" = x ]
}

@test "explain shows the carve-out, with where it comes from; a profile outside adds none" {
	run "$S" explain -C "$WS" --profile "$WS/cfg/sandbox.json" -- true
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"read-only $WS/cfg/sandbox.json "*"mount-namespace"*"enforced [1]"* ]]
	[[ "$output" == *"[1] the profile file (--profile) this run read its permissions from, inside a writable root: kept read-only, so that the command cannot rewrite what its next run reads"* ]]
	run "$S" explain --json -C "$WS" --add-permissions "$WS/cfg/add.json" -- true
	[ "$status" -eq 0 ]
	origins "$output" >"$BATS_TEST_TMPDIR/rows"
	cat "$BATS_TEST_TMPDIR/rows"
	[ "$(cat "$BATS_TEST_TMPDIR/rows")" = "add-permissions-file read-only $WS/cfg/add.json mount-namespace enforced: an --add-permissions file this run read its permissions from, inside a writable root: kept read-only, so that the command cannot rewrite what its next run reads" ]
	# access answers as run enforces, naming the file's rule; the file beside it is written.
	run "$S" access -C "$WS" --profile "$WS/cfg/sandbox.json" --add-permissions \
		"$WS/cfg/add.json" "$WS/cfg/sandbox.json" "$WS/cfg/add.json" "$WS/other"
	echo "$output"
	[ "${lines[0]}" = "read   $WS/cfg/sandbox.json  (read-only: the --profile file this run read)" ]
	[ "${lines[1]}" = "read   $WS/cfg/add.json  (read-only: an --add-permissions file this run read)" ]
	[ "${lines[2]}" = "write  $WS/other  (entries[1]: write $WS)" ]
	# Control: from outside the writable roots, by name or on standard input, nothing is added.
	cp "$WS/cfg/sandbox.json" "$OUT/sandbox.json"
	run "$S" explain --json -C "$WS" --profile "$OUT/sandbox.json" -- true
	[ "$status" -eq 0 ]
	[ -z "$(origins "$output")" ]
	run "$S" explain --json -C "$WS" --profile - -- true <"$OUT/sandbox.json"
	[ "$status" -eq 0 ]
	[ -z "$(origins "$output")" ]
}

@test "a profile and an addition on standard input redirected from the workspace are kept" {
	# sbxrun -p - < ci.json reads ci.json again on its next run: the same file as -p ci.json.
	rm -f "$OUT/pwned"
	for op in write append truncate chmod; do
		run "$S" -C "$WS" -p - -- "$P" "$op" "$WS/cfg/sandbox.json" <"$WS/cfg/sandbox.json"
		echo "run 1: -p - probe $op: $output"
		[ "$output" = EROFS ]
		run "$S" -C "$WS" --add-permissions - -- "$P" "$op" "$WS/cfg/add.json" \
			<"$WS/cfg/add.json"
		echo "run 1: --add-permissions - probe $op: $output"
		[ "$output" = EROFS ]
	done
	run "$S" -C "$WS" -p - -- "$P" rename "$WS/other" "$WS/cfg/sandbox.json" \
		<"$WS/cfg/sandbox.json"
	[ "$output" = EXDEV ]
	# Run 2, started the same way, is confined by what the user wrote.
	run "$S" -C "$WS" -p - -- "$P" write "$OUT/pwned" <"$WS/cfg/sandbox.json"
	echo "run 2: $output"
	[ "$output" = EROFS ]
	[ ! -e "$OUT/pwned" ]
	run "$S" explain --json -C "$WS" -p - -- true <"$WS/cfg/sandbox.json"
	origins "$output" >"$BATS_TEST_TMPDIR/rows"
	cat "$BATS_TEST_TMPDIR/rows"
	[[ "$(cat "$BATS_TEST_TMPDIR/rows")" == "profile-file read-only $WS/cfg/sandbox.json mount-namespace enforced: "* ]]
	# Control: the same write from a profile on standard input from outside, from a pipe, or
	# from a file no name holds any more (nothing a later run reads) lands.
	cp "$WS/cfg/sandbox.json" "$OUT/sandbox.json"
	run "$S" -C "$WS" -p - -- "$P" write "$WS/cfg/sandbox.json" <"$OUT/sandbox.json"
	[ "$output" = OK ]
	echo "$PROF" >"$WS/cfg/sandbox.json"
	run sh -c 'cat "$1" | "$2" -C "$3" -p - -- "$4" write "$3/cfg/sandbox.json"' sh \
		"$WS/cfg/sandbox.json" "$S" "$WS" "$P"
	[ "$output" = OK ]
	echo "$PROF" >"$WS/cfg/sandbox.json"
	echo "$PROF" >"$WS/cfg/gone.json"
	exec 5<"$WS/cfg/gone.json"
	rm "$WS/cfg/gone.json"
	run "$S" -C "$WS" -p - -- "$P" write "$WS/other" <&5
	exec 5<&-
	[ "$output" = OK ]
	# A second name an earlier run made for it is refused, as for the file named.
	run "$S" -C "$WS" -- ln cfg/sandbox.json cfg/.cache
	[ "$status" -eq 0 ]
	run "$S" -C "$WS" -p - -- touch "$CANARY" <"$WS/cfg/sandbox.json"
	refused "sbxrun: --profile $WS/cfg/sandbox.json: the file has more than one name (a hard link), inside a writable root: *"
	rm "$WS/cfg/.cache"
	unchanged
}

@test "a profile named through a link inside the workspace is refused; through one outside, its file is kept" {
	# Run 1 under :workspace (which keeps no file of sbxrun's) planted the link: run 2 could
	# keep the file it leads to read-only, but not the link, which run 2 would point elsewhere.
	run "$S" -C "$WS" -- ln -s cfg/sandbox.json link.json
	[ "$status" -eq 0 ]
	run "$S" -C "$WS" --profile "$WS/link.json" -- touch "$CANARY"
	refused "sbxrun: --profile $WS/link.json: named through the symbolic link $WS/link.json, inside a writable root: the command could point it elsewhere for its next run"
	[[ "$output" == *"; hint: name the file the link leads to ($WS/cfg/sandbox.json), or keep it outside the writable roots" ]]
	run "$S" -C "$WS" -- ln -s cfg/add.json link2.json
	run "$S" -C "$WS" --add-permissions "$WS/link2.json" -- touch "$CANARY"
	refused "sbxrun: --add-permissions $WS/link2.json: named through the symbolic link $WS/link2.json, inside a writable root: the command could point it elsewhere for its next run"
	# The user's own link, outside every writable root: what it leads to is kept.
	ln -s "$WS/cfg/sandbox.json" "$OUT/ext.json"
	run "$S" -C "$WS" --profile "$OUT/ext.json" -- "$P" write "$WS/cfg/sandbox.json"
	[ "$output" = EROFS ]
	run "$S" -C "$WS" --profile "$OUT/ext.json" -- "$P" rename "$WS/other" "$WS/cfg/sandbox.json"
	[ "$output" = EXDEV ]
	# Control: the file beside it.
	run "$S" -C "$WS" --profile "$OUT/ext.json" -- "$P" write "$WS/cfg/other"
	[ "$output" = OK ]
	unchanged
}

# The name is made absolute lexically, where the kernel took a ".." after a link from where the
# link leads: the file kept read-only would not be the one read. The run is refused (run 1 could
# point the link elsewhere for run 2), and the refusal names the file as given and the link.
@test "a profile named with a .. after a link run 1 planted is refused, naming the name and the link" {
	mkdir -p "$WS/cfg/sub"
	run "$S" -C "$WS" -- ln -s cfg/sub lnk
	[ "$status" -eq 0 ]
	cd "$WS"
	run "$S" -C "$WS" --profile lnk/../sandbox.json -- touch "$CANARY"
	refused "sbxrun: --profile lnk/../sandbox.json: its \"..\" after the symbolic link $WS/lnk goes up from where that link leads: sbxrun names the file lexically ($WS/sandbox.json), and nothing is there"
	[[ "$output" == *"; hint: name the file without a \"..\" after a symbolic link (realpath prints such a name)" ]]
	# A file at the lexical name (run 1's) is not taken for the one read.
	echo "$PROF" >"$WS/sandbox.json"
	run "$S" -C "$WS" --add-permissions "$WS/./lnk/../add.json" --profile lnk/../sandbox.json \
		-- touch "$CANARY"
	refused "sbxrun: --profile lnk/../sandbox.json: its \"..\" after the symbolic link $WS/lnk goes up from where that link leads: sbxrun names the file lexically ($WS/sandbox.json), and another file is there than the one it read"
	rm "$WS/sandbox.json"
	# Control: a ".." after a directory is what the kernel takes too: the file is kept.
	run "$S" -C "$WS" --profile cfg/sub/../sandbox.json -- "$P" write "$WS/cfg/sandbox.json"
	[ "$output" = EROFS ]
	run "$S" -C "$WS" --profile cfg/sub/../sandbox.json -- "$P" write "$WS/cfg/other"
	[ "$output" = OK ]
	rm -rf "$WS/lnk" "$WS/cfg/sub" "$WS/cfg/other"
	unchanged
}

@test "a profile in a writable root the profile names through the user's link is kept" {
	# The root is written "$OUT/wslink" (the user's link to the workspace); the profile is named
	# where it lies (as a relative name from the workspace would be): the same file, kept.
	ln -s "$WS" "$OUT/wslink"
	PROF=$(profile restricted "$(entry_special root read)" "$(entry_path "$OUT/wslink" write)")
	echo "$PROF" >"$WS/cfg/sandbox.json"
	run "$S" explain -C "$WS" --profile "$WS/cfg/sandbox.json" -- true
	echo "$output"
	[[ "$output" == *"read-only $OUT/wslink/cfg/sandbox.json "*"mount-namespace"*"enforced [1]"* ]]
	for f in "$WS/cfg/sandbox.json" "$OUT/wslink/cfg/sandbox.json"; do
		run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- "$P" write "$f"
		echo "$f: $output"
		[ "$output" = EROFS ]
	done
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- "$P" rename "$WS/other" \
		"$WS/cfg/sandbox.json"
	[ "$output" = EXDEV ]
	# Control: the file beside it is the command's, by either name.
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- "$P" write "$WS/cfg/other"
	[ "$output" = OK ]
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- "$P" write "$OUT/wslink/cfg/other"
	[ "$output" = OK ]
	# A link run 1 planted in that root, named where it lies, is refused as any such link.
	ln -s cfg/sandbox.json "$WS/link.json"
	run "$S" -C "$WS" --profile "$WS/link.json" -- touch "$CANARY"
	refused "sbxrun: --profile $WS/link.json: named through the symbolic link $WS/link.json, inside a writable root: the command could point it elsewhere for its next run"
	unchanged
}

@test "a profile read from a file no name holds any more (a here-document) runs, confined" {
	# What a shell's here-document is: a file removed once opened, read through /dev/fd/N.
	# No later run can read it: nothing to keep, and no name to look for it at.
	echo "$PROF" >"$WS/cfg/gone.json"
	exec 5<"$WS/cfg/gone.json"
	rm "$WS/cfg/gone.json"
	run "$S" -C "$WS" --profile /dev/fd/5 -- "$P" write "$WS/other"
	echo "control: $output"
	[ "$output" = OK ]
	run "$S" -C "$WS" --profile /dev/fd/5 -- "$P" write "$OUT/pwned"
	exec 5<&-
	echo "outside: $output"
	[ "$output" = EROFS ]
	[ ! -e "$OUT/pwned" ]
}

@test "a profile with a second name an earlier run made in the workspace is refused" {
	# Run 1 under :workspace (which keeps no file of sbxrun's) links a name of its own to the
	# file the user later runs with: the read-only mount at one name, the other writes it.
	run "$S" -C "$WS" -- ln cfg/sandbox.json cfg/.cache
	[ "$status" -eq 0 ]
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- touch "$CANARY"
	refused "sbxrun: --profile $WS/cfg/sandbox.json: the file has more than one name (a hard link), inside a writable root: the command could rewrite it through another for its next run"
	[[ "$output" == *"; hint: give it a name of its own (cp FILE FILE.new && mv FILE.new FILE), and check what it says" ]]
	# Control: given a name of its own, as the hint says, it runs and is kept.
	cp "$WS/cfg/sandbox.json" "$WS/cfg/new" && mv "$WS/cfg/new" "$WS/cfg/sandbox.json"
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- "$P" write "$WS/cfg/.cache"
	[ "$output" = OK ]
	unchanged
}

@test "a profile inside a writable root where no mount namespace can be made: refused, naming it" {
	# No .git there: only the profile's own carve-out needs the mount namespace.
	local root="$BASE/plain"
	rm -rf "$root"
	mkdir -p "$root"
	prof=$(profile restricted "$(entry_special root read)" "$(entry_path "$root" write)" \
		$(unprotected "$root"))
	echo "$prof" >"$root/sandbox.json"
	run "$BIN/failinj" unshare -- "$S" -C "$root" --profile "$root/sandbox.json" -- \
		touch "$root/canary"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot enforce \"read-only $root/sandbox.json\" on linux: $root/sandbox.json is the --profile file this run read its permissions from, inside a writable root: the command could rewrite it for its next run, and keeping it read-only needs a mount namespace (Landlock cannot take back rights granted on a parent): "* ]]
	[[ "${lines[0]}" == *"; hint: keep the file outside the roots it makes writable (or run where a mount namespace can be made)" ]]
	[ "${#lines[@]}" -eq 1 ]
	[ ! -e "$root/canary" ]
	# Control: kept outside the root it makes writable, the same profile runs there.
	cp "$root/sandbox.json" "$OUT/plain.json"
	run "$BIN/failinj" unshare -- "$S" -C "$root" --profile "$OUT/plain.json" -- \
		"$P" write "$root/canary"
	[ "$output" = OK ]
}

@test "a profile that grants write on its own file is refused" {
	prof=$(profile restricted "$(entry_special root read)" "$(entry_special project_roots write)" \
		"$(entry_path "$WS/cfg/sandbox.json" write)")
	echo "$prof" >"$WS/cfg/sandbox.json"
	run "$S" -C "$WS" --profile "$WS/cfg/sandbox.json" -- touch "$CANARY"
	refused "sbxrun: --profile $WS/cfg/sandbox.json: the profile grants write on the file sbxrun read its permissions from: the command could rewrite it for its next run"
}

@test "a profile that writes everywhere is left as it is: nothing it keeps, nothing it refuses" {
	# Its command may write every file the caller can: keeping its own file read-only would
	# protect nothing, and would make it a restricted profile that needs mount points at /.
	profile restricted "$(entry_special root write)" >"$WS/cfg/all.json"
	run "$S" explain --json -C "$WS" --profile "$WS/cfg/all.json" -- true
	[ "$status" -eq 0 ]
	[ -z "$(origins "$output")" ]
	run "$S" -C "$WS" --profile "$WS/cfg/all.json" -- sh -c 'echo x >>cfg/all.json && echo ok'
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
}

@test "a profile on standard input that the caller's shell opened where sbxrun cannot search is read" {
	# The shell opens the file with its own rights (sudo -u build sbxrun -p - < /root/ci.json):
	# sbxrun, and so its command, cannot reach it by name, so there is nothing to keep, and
	# the run goes on instead of being refused for a look-up it cannot make.
	local nb="$BASE/nb-ws" priv="$BASE/priv"
	rm -rf "$nb" "$priv"
	mkdir -p "$nb" "$priv"
	profile restricted "$(entry_special root read)" "$(entry_path "$nb" write)" >"$priv/p.json"
	# Positive control, for every user: the same profile through a pipe.
	run sh -c 'cat "$1" | "$2" -C "$3" -p - -- sh -c "echo ok"' - "$priv/p.json" "$S" "$nb"
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
	if as_root; then
		chmod 700 "$priv"
		chown 65534:65534 "$nb"
		run setpriv --reuid=65534 --regid=65534 --clear-groups \
			"$S" -C "$nb" -p - -- sh -c 'echo ok' <"$priv/p.json"
		echo "$output"
		[ "$status" -eq 0 ]
		[ "$output" = ok ]
	fi
}

# --sandbox forbid runs the command unconfined. An --add-permissions file that denies something
# asks for a restriction only a sandbox keeps, as --deny does: the run and explain refuse it
# (125, naming the file and what it denies) rather than drop the deny and let the command read
# what the caller kept from it. Grants only widen what an unconfined run has: those still run.
@test "--sandbox forbid with an addition that denies refuses, run and explain alike" {
	echo secret >"$WS/secret"
	echo "{\"file_system\":{\"entries\":[$(entry_path "$WS/secret" deny)]}}" >"$OUT/deny.json"
	echo "{\"file_system\":{\"entries\":[$(glob_deny "$WS/**/*.key")]}}" >"$OUT/glob.json"
	echo "{\"file_system\":{\"entries\":[$(entry_path "$WS/secret" read)]}}" >"$OUT/grant.json"
	# Run 1, confined with the addition: the deny holds, the file beside it reads.
	run "$S" -C "$WS" --add-permissions "$OUT/deny.json" -- "$P" read "$WS/secret"
	echo "run 1: $output"
	[ "$output" = EACCES ]
	run "$S" -C "$WS" --add-permissions "$OUT/deny.json" -- "$P" read "$WS/other"
	[ "$output" = OK ]
	# Run 2 waives the sandbox with the same addition: refused, nothing run.
	run "$S" -C "$WS" --sandbox forbid --add-permissions "$OUT/deny.json" -- touch "$CANARY"
	refused "sbxrun: $OUT/deny.json: --sandbox forbid runs the command unconfined, and this additional profile denies $WS/secret, a restriction that only a sandbox can keep"
	[ "${lines[0]#*; hint: }" = "drop --sandbox forbid to have it enforced, or drop --add-permissions $OUT/deny.json to run unconfined" ]
	run "$S" explain -C "$WS" --sandbox forbid --add-permissions "$OUT/deny.json" -- touch "$CANARY"
	refused "sbxrun: $OUT/deny.json: --sandbox forbid runs the command unconfined, and this additional profile denies $WS/secret, *"
	# A deny glob, the second of two additions, and one on standard input are refused too.
	run "$S" -C "$WS" --sandbox forbid -a "$OUT/grant.json" -a "$OUT/glob.json" -- touch "$CANARY"
	refused "sbxrun: $OUT/glob.json: --sandbox forbid runs the command unconfined, and this additional profile denies $WS/\*\*/\*.key, *"
	run "$S" -C "$WS" --sandbox forbid -a - -- touch "$CANARY" <"$OUT/deny.json"
	refused "sbxrun: -: --sandbox forbid runs the command unconfined, and this additional profile denies $WS/secret, *"
	# A profile that asks for no sandbox refuses the same addition too, and an unrestricted
	# managed one keeps it: no way to have the deny dropped.
	run "$S" -C "$WS" -p :danger-full-access --add-permissions "$OUT/deny.json" -- touch "$CANARY"
	refused "sbxrun: $OUT/deny.json: a deny entry cannot narrow a profile of type disabled: *"
	echo '{"type":"managed","file_system":{"type":"unrestricted"},"network":"enabled"}' >"$OUT/un.json"
	run "$S" -C "$WS" -p "$OUT/un.json" --add-permissions "$OUT/deny.json" -- "$P" read "$WS/secret"
	[ "$output" = EACCES ]
	# Control: grants, by a file or on the command line, run unconfined as asked.
	run "$S" -C "$WS" --sandbox forbid -a "$OUT/grant.json" --read "$WS" --write "$WS" -- \
		"$P" read "$WS/secret"
	[ "$status" -eq 0 ]
	[ "$output" = OK ]
}
