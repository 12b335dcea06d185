#!/usr/bin/env bats
# Workspace write with denied secrets: a directory and a file outside the workspace, and a file
# inside it.
load common

setup_file() {
	make_layout
	mkdir -p "$OUT/secrets"
	echo key >"$OUT/secrets/key"
	echo token >"$OUT/token.txt"
	echo inner >"$WS/.env"
	echo visible >"$OUT/visible.txt"
}
setup() {
	make_layout_vars
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$OUT/token.txt" deny)" "$(entry_path "$WS/.env" deny)")
}

@test "denied files and directories cannot be read (EACCES); their siblings can" {
	outside read "$OUT/secrets/key"
	outside read "$OUT/token.txt"
	outside read "$WS/.env"
	expect OK read "$OUT/visible.txt"
	expect EACCES read "$OUT/token.txt"
	expect EACCES read "$WS/.env"
	expect EACCES list "$OUT/secrets"
	expect EACCES read "$OUT/secrets/key"
}

@test "denied paths through symlinks and /proc stay unreadable" {
	ln -sfn "$OUT/token.txt" "$WS/token-link"
	ln -sfn "$OUT/secrets" "$WS/secrets-link"
	expect EACCES read "$WS/token-link"
	expect EACCES read "$WS/secrets-link/key"
	expect EACCES read "/proc/self/root$OUT/token.txt"
	expect EACCES read "/proc/self/root$WS/.env"
	expect EACCES read "/proc/self/cwd/.env"
	run sbx sh -c 'cat /proc/$$/root'"$OUT"'/token.txt'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Permission denied"* ]]
}

@test "a denied file inside the workspace cannot be written or replaced either" {
	expect EROFS write "$WS/.env"
	expect EACCES truncate "$WS/.env"
	expect EBUSY rename "$WS/.env" "$WS/env.moved"
	expect OK write "$WS/other.txt"
	[ "$(cat "$WS/.env")" = inner ]
}

@test "a descriptor the caller passes on is the command's, whatever the profile (CAVEATS)" {
	# Documented behaviour, as env(1): sbxrun closes no descriptor the caller leaves open.
	expect EACCES read "$OUT/token.txt"
	run sbx sh -c 'cat <&3' 3<"$OUT/token.txt"
	[ "$status" -eq 0 ]
	[ "$output" = token ]
	run sbx sh -c 'cat <&3 2>&1' 3<&-
	[ "$status" -ne 0 ]
}

@test "the rest of the workspace scenario holds with denies present" {
	expect EROFS write "$OUT/new.txt"
	expect EROFS append "$WS/.git/config"
	expect OK write "$WS/x.txt"
}

@test "a deny inside a denied directory, and a path denied twice, are masked once" {
	mkdir -p "$OUT/secrets/sub"
	echo nested >"$OUT/secrets/sub/inner.env"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$OUT/secrets/sub" deny)" \
		"$(entry_path "$OUT/token.txt" deny)" "$(entry_path "$OUT/token.txt" deny)")
	outside read "$OUT/secrets/sub/inner.env"
	expect OK read "$OUT/visible.txt"
	expect EACCES read "$OUT/secrets/key"
	expect EACCES read "$OUT/secrets/sub/inner.env"
	expect EACCES read "$OUT/token.txt"
}

# A path re-opened inside a denied directory: the mask stays traversable but not listable (so no
# name in it is shown, and every name not re-opened reads as missing, whether it exists or not),
# and the re-opened path is mounted again inside it with its own access.
@test "a read path re-opened inside a denied directory is readable, the rest stays hidden" {
	mkdir -p "$OUT/secrets/pub"
	outside write "$OUT/secrets/pub/file"
	echo public >"$OUT/secrets/pub/file"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$OUT/secrets/pub" read)")
	outside read "$OUT/secrets/pub/file"
	outside read "$OUT/secrets/key"
	outside list "$OUT/secrets"
	expect OK read "$OUT/secrets/pub/file"
	run sbx cat "$OUT/secrets/pub/file"
	[ "$status" -eq 0 ]
	[ "$output" = public ]
	# The key is as missing as a name that never existed: its existence is not shown either.
	expect ENOENT read "$OUT/secrets/key"
	expect ENOENT read "$OUT/secrets/never-existed"
	expect EACCES list "$OUT/secrets"
	run sbx ls -a "$OUT/secrets"
	[ "$status" -ne 0 ]
	[[ "$output" != *key* ]]
	[[ "$output" != *pub* ]]
	expect EROFS write "$OUT/secrets/pub/file"
	expect EROFS write "$OUT/secrets/new"
	expect OK list "$OUT/secrets/pub"
	expect OK write "$WS/x.txt"
	[ "$(cat "$OUT/secrets/pub/file")" = public ]
}

@test "a writable path re-opened inside a denied directory in the workspace is writable" {
	mkdir -p "$WS/secret/pub"
	echo hidden >"$WS/secret/x"
	rm -f "$WS/secret/pub/new" "$WS/secret/y"
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$WS/secret" deny)" \
		"$(entry_path "$WS/secret/pub" write)")
	before=$(cd "$WS/secret" && find . -printf '%p %y %m\n' | sort)
	outside read "$WS/secret/x"
	expect OK write "$WS/secret/pub/new"
	[ -f "$WS/secret/pub/new" ]
	expect ENOENT read "$WS/secret/x"
	expect EACCES list "$WS/secret"
	expect EROFS write "$WS/secret/y"
	expect EROFS mkdir "$WS/secret/y"
	expect OK write "$WS/other.txt"
	[ ! -e "$WS/secret/y" ]
	# Nothing was created on the host for the mount points: only the file written above.
	after=$(cd "$WS/secret" && find . -printf '%p %y %m\n' | sort | grep -v '^\./pub/new ')
	[ "$before" = "$after" ]
	[ "$(cat "$WS/secret/x")" = hidden ]
}

@test "explain reports re-opened paths enforced by the mount namespace" {
	PROFILE=$(profile restricted $(workspace_entries) "$(entry_path "$WS/secret" deny)" \
		"$(entry_path "$WS/secret/pub" write)" "$(entry_path "$OUT/secrets" deny)" \
		"$(entry_path "$OUT/secrets/pub" read)")
	run "$BIN/sbxrun" explain --json -C "$WS" -p - <<<"$PROFILE"
	echo "$output"
	[ "$status" -eq 0 ]
	# Each rule's "status mechanism", from the JSON.
	rules=$(python3 -c 'import json, sys
plan = json.load(sys.stdin)
print(plan["enforceable"])
for r in plan["requirements"]:
	print("%s: %s %s" % (r["rule"], r["status"], r["mechanism"]))' <<<"$output")
	echo "$rules"
	grep -qx "write $WS/secret/pub: enforced landlock+mount-namespace" <<<"$rules"
	grep -qx "read $OUT/secrets/pub: enforced landlock+mount-namespace" <<<"$rules"
	grep -qx "True" <<<"$rules"
}

# The workspace's own name is joined into the pattern escaped: "p[1]" is not a character class.
@test "a deny glob under a workspace named with glob characters masks its matches" {
	local name ws
	for name in 'p[1]' 'a{b,c}' 'b\c'; do
		ws="$BASE/$name"
		rm -rf "$ws"
		mkdir -p "$ws/sub"
		echo secret >"$ws/sub/.env"
		echo plain >"$ws/sub/plain.txt"
		outside read "$ws/sub/.env"
		run "$H" --sandbox-policy-cwd "$ws" --permission-profile "$(profile restricted \
			$(workspace_entries) '{"path":{"type":"glob_pattern","pattern":"**/*.env"},"access":"deny"}')" \
			-- "$P" read "$ws/sub/.env"
		echo "$name: $output"
		[ "$output" = EACCES ]
		run "$H" --sandbox-policy-cwd "$ws" --permission-profile "$(profile restricted \
			$(workspace_entries) '{"path":{"type":"glob_pattern","pattern":"**/*.env"},"access":"deny"}')" \
			-- "$P" read "$ws/sub/plain.txt"
		[ "$output" = OK ]
	done
}

# The masks' descriptors are closed a run at a time; an op that opens descriptors of its own
# without trying again when they run out (a directory's mask) must not fail for those waiting.
# So whether a run fits a limit of open files depends on that limit only: from the lowest limit
# that fits, every higher one fits too, and each enforces the masks.
@test "near the limit of open files, a mask never fails for descriptors waiting to be closed" {
	local d="$OUT/fdlimit" i prof lim first=0 fits
	rm -rf "$d"
	mkdir -p "$d/files" "$d/zz/d1/d2"
	echo s >"$d/zz/d1/d2/s"
	echo v >"$d/visible"
	prof=$(profile restricted "$(entry_special root read)" "$(entry_path "$d/zz/d1/d2" deny)" \
		$(for i in $(seq 200); do
			echo x >"$d/files/f$i"
			echo "$(entry_path "$d/files/f$i" deny)"
		done))
	outside read "$d/files/f1"
	outside read "$d/zz/d1/d2/s"
	for lim in $(seq 150 450); do
		run bash -c 'ulimit -n "$1" && shift && exec "$@"' - "$lim" "$H" \
			--sandbox-policy-cwd "$WS" --permission-profile "$prof" -- "$P" read "$d/files/f7"
		fits=$((status != 125)) # 125: refused (a mask lacked descriptors), nothing ran
		if [ "$fits" = 0 ] && [ "$first" != 0 ]; then
			echo "fits $first open files, not $lim: $output"
			return 1
		fi
		[ "$fits" = 0 ] || [ "$output" = EACCES ]
		[ "$first" != 0 ] || [ "$fits" = 0 ] || first=$lim
	done
	echo "fits from $first open files"
	# Far too low, the helper's look-ups run out first: the refusal says which limit to raise.
	run bash -c 'ulimit -n "$1" && shift && exec "$@"' - 150 "$H" \
		--sandbox-policy-cwd "$WS" --permission-profile "$prof" -- "$P" read "$d/files/f7"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: cannot look up $d/files/f"*"; hint: raise the limit of open files (ulimit -n): "* ]]
	# The range scanned holds both: limits too low, and limits that fit.
	[ "$first" -gt 150 ]
	[ "$first" -lt 400 ]
	run bash -c 'ulimit -n "$1" && shift && exec "$@"' - "$first" "$H" \
		--sandbox-policy-cwd "$WS" --permission-profile "$prof" -- "$P" read "$d/zz/d1/d2/s"
	[ "$output" = EACCES ]
	# Control: beside the masks, at that limit, a file reads.
	run bash -c 'ulimit -n "$1" && shift && exec "$@"' - "$first" "$H" \
		--sandbox-policy-cwd "$WS" --permission-profile "$prof" -- "$P" read "$d/visible"
	[ "$output" = OK ]
}
