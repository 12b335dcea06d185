#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# access, convert, merge, intersect and context.

load helpers

setup() { setup_ws; cd "$WS"; }

@test "access: workspace write, read-only .git, read elsewhere" {
	run "$SBXRUN" access --profile :workspace "$WS/src/main.c" .git/config /etc/passwd
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "write  $WS/src/main.c  (entries[1]: write $WS)" ]
	[ "${lines[1]}" = "read   $WS/.git/config  (entries[4]: read-only .git (protected))" ]
	[ "${lines[2]}" = "read   /etc/passwd  (entries[0]: read :root)" ]
}

@test "access: protected metadata stays read-only without an explicit entry" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]},"network":"restricted"}' > "$WS/p.json"
	run "$SBXRUN" access --profile "$WS/p.json" .git/hooks/pre-commit .agents/x .codex src
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "read   $WS/.git/hooks/pre-commit  (entries[1]: read-only .git (protected, in write $WS))" ]
	# Missing, a protected name is kept from being created: the words say so.
	[ "${lines[1]}" = "read   $WS/.agents/x  (entries[1]: read-only .agents (protected, in write $WS; missing: cannot be created))" ]
	[ "${lines[2]}" = "read   $WS/.codex  (entries[1]: read-only .codex (protected, in write $WS; missing: cannot be created))" ]
	[ "${lines[3]}" = "write  $WS/src  (entries[1]: write $WS)" ]
	# A read entry inside a writable one is a carve-out; a deny says deny.
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"},{"path":{"type":"path","path":"%s/src"},"access":"read"},{"path":{"type":"path","path":"%s/src/k"},"access":"deny"},{"path":{"type":"path","path":"%s/.codex"},"access":"read"}]},"network":"restricted"}' "$WS" "$WS" "$WS" > "$WS/p.json"
	# .codex holds a file: an empty one is taken for a mount point of another run (missing).
	mkdir "$WS/.codex" && : > "$WS/.codex/config.toml"
	run "$SBXRUN" access --profile "$WS/p.json" src/a.c src/k/x .codex/c /etc/passwd
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "read   $WS/src/a.c  (entries[2]: read-only $WS/src)" ]
	[ "${lines[1]}" = "deny   $WS/src/k/x  (entries[3]: deny $WS/src/k)" ]
	[ "${lines[2]}" = "read   $WS/.codex/c  (entries[4]: read-only .codex (protected))" ]
	[ "${lines[3]}" = "read   /etc/passwd  (entries[0]: read :root)" ]
}

@test "access: the git directory a .git file names is read-only in any writable root, as run keeps it" {
	mkdir -p "$WS/wt" "$WS/gd/real"
	echo "gitdir: $WS/gd/real" >"$WS/wt/.git"
	run "$SBXRUN" access -C "$WS/wt" -w "$WS/wt" -w "$WS/gd" "$WS/gd/real/hooks/pre-commit" \
		"$WS/gd/realm" "$WS/gd/x"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "read   $WS/gd/real/hooks/pre-commit  (entries[2]: read-only $WS/gd/real (protected: git takes hooks and config from there, in write $WS/gd))" ]
	# The controls: beside it, and with an explicit write entry on it, writable.
	[ "${lines[1]}" = "write  $WS/gd/realm  (entries[2]: write $WS/gd)" ]
	[ "${lines[2]}" = "write  $WS/gd/x  (entries[2]: write $WS/gd)" ]
	run "$SBXRUN" access -C "$WS/wt" -w "$WS/wt" -w "$WS/gd" --write "$WS/gd/real" "$WS/gd/real/x"
	[[ "${lines[0]}" == "write  $WS/gd/real/x  (entries["*"]: write $WS/gd/real)" ]]
	if [ "$(uname -s)" = Linux ]; then
		# What run does with it: the same.
		run "$SBXRUN" -C "$WS/wt" -w "$WS/wt" -w "$WS/gd" -- touch "$WS/gd/real/x"
		[ "$status" -eq 1 ]
		[[ "$output" == *"Read-only file system"* ]]
		run "$SBXRUN" -C "$WS/wt" -w "$WS/wt" -w "$WS/gd" -- touch "$WS/gd/x"
		[ "$status" -eq 0 ]
		[ -e "$WS/gd/x" ]
		[ ! -e "$WS/gd/real/x" ]
	fi
}

@test "access: a linked worktree's common git directory is kept as run keeps it, with and without git mode" {
	export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
	M=$WS/r/main
	git init -q "$M"
	git -C "$M" commit -q --allow-empty -m init
	git -C "$M" worktree add -q ../wt
	cd "$WS/r/wt"
	# The common directory is the one the worktree's git directory names (commondir), found on
	# the file system as run finds it: no entry names it, nor is it a protected name of one.
	run "$SBXRUN" access -w "$WS/r/wt" -w "$WS/r" "$M/.git/hooks/x" "$M/.git/config" "$M/.git/objects/x" "$M/x"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "read   $M/.git/hooks/x  (entries["*"]: read-only $M/.git (protected: git takes hooks and config from there, in write $WS/r))" ]]
	[[ "${lines[1]}" == "read   $M/.git/config  (entries["*"]: read-only $M/.git (protected: "* ]]
	[[ "${lines[2]}" == "read   $M/.git/objects/x  (entries["*"]: read-only $M/.git (protected: "* ]]
	# The control: beside it, writable.
	[[ "${lines[3]}" == "write  $M/x  (entries["*"]: write $WS/r)" ]]
	run "$SBXRUN" access --json -w "$WS/r/wt" -w "$WS/r" "$M/.git/config" "$M/x"
	[ "$(jget "$output" '[x["access"] for x in j]')" = '["read", "write"]' ]
	# Git mode keeps the names it keeps there, and the worktree's .git file, as run does.
	run "$SBXRUN" access --allow-git -w "$WS/r/wt" -w "$WS/r" "$M/.git/hooks/x" "$M/.git/config" \
		"$M/.git/objects/x" "$M/.git/commondir" .git
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "read   $M/.git/hooks/x  (entries["*"]: read-only $M/.git/hooks (protected: git runs the programs in it, in write $WS/r))" ]]
	[[ "${lines[1]}" == "read   $M/.git/config  (entries["*"]: read-only $M/.git/config (protected: it can name programs git runs, in write $WS/r))" ]]
	[[ "${lines[2]}" == "write  $M/.git/objects/x  (entries["*"]: write $WS/r)" ]]
	[[ "${lines[3]}" == "read   $M/.git/commondir  (entries["*"]: read-only $M/.git/commondir (protected: it sends git to another git directory, in write $WS/r; missing: cannot be created))" ]]
	[[ "${lines[4]}" == "read   $WS/r/wt/.git  (entries["*"]: read-only .git (protected, in write $WS/r/wt))" ]]
	if [ "$(uname -s)" = Linux ]; then
		# What run does with the same paths: the same.
		run "$SBXRUN" -w "$WS/r/wt" -w "$WS/r" -- touch "$M/.git/hooks/x"
		[ "$status" -eq 1 ]
		[[ "$output" == *"Read-only file system"* ]]
		run "$SBXRUN" -w "$WS/r/wt" -w "$WS/r" -- touch "$M/x"
		[ "$status" -eq 0 ]
		run "$SBXRUN" --allow-git -w "$WS/r/wt" -w "$WS/r" -- touch "$M/.git/hooks/x"
		[ "$status" -eq 1 ]
		[[ "$output" == *"Read-only file system"* ]]
		run "$SBXRUN" --allow-git -w "$WS/r/wt" -w "$WS/r" -- touch "$WS/r/wt/.git"
		[ "$status" -eq 1 ]
		[[ "$output" == *"Read-only file system"* ]]
		run "$SBXRUN" --allow-git -w "$WS/r/wt" -w "$WS/r" -- sh -c "mkdir '$M/.git/objects/x'"
		[ "$status" -eq 0 ]
		[ ! -e "$M/.git/hooks/x" ]
	fi
}

@test "access --json, deny paths and deny globs" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"},{"path":{"type":"path","path":"%s/secret"},"access":"deny"},{"path":{"type":"glob_pattern","pattern":"**/*.env"},"access":"deny"}]},"network":"restricted"}' "$WS" > "$WS/p.json"
	run "$SBXRUN" access --json --profile "$WS/p.json" secret/key src/.env src/ok
	[ "$status" -eq 0 ]
	[ "$(jget "$output" '[x["access"] for x in j]')" = '["deny", "deny", "write"]' ]
	[ "$(jget "$output" 'j[1]["rule"]')" = "entries[3]: deny glob $WS/**/*.env" ]
	[ "$(jget "$output" 'j[0]["path"]')" = "$WS/secret/key" ]
}

@test "access: no entry means deny; unrestricted means write" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"path","path":"%s/src"},"access":"read"}]},"network":"restricted"}' "$WS" > "$WS/p.json"
	run "$SBXRUN" access --profile "$WS/p.json" /etc src
	[[ "${lines[0]}" == "deny   /etc  (no entry covers this path (default deny))" ]]
	[[ "${lines[1]}" == "read   $WS/src  (entries[0]: read $WS/src)" ]]
	run "$SBXRUN" access --profile :danger-full-access /etc
	[[ "${lines[0]}" == "write  /etc  (unrestricted file system)" ]]
	run "$SBXRUN" access --profile :workspace
	[ "$status" -eq 125 ]
}

@test "access: the :minimal set is readable as run reads it, a deny inside it still wins" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"minimal"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"},{"path":{"type":"path","path":"/etc/ssl"},"access":"deny"}]},"network":"restricted"}' > "$WS/p.json"
	run -0 "$SBXRUN" access --profile "$WS/p.json" /usr/bin/env /etc/passwd /dev/null /etc/ssl/certs /var/lib src
	[ "${lines[0]}" = "read   /usr/bin/env  (entries[0]: read :minimal (/usr))" ]
	[ "${lines[1]}" = "read   /etc/passwd  (entries[0]: read :minimal (/etc))" ]
	# /dev/null: one of the devices run gives read and write, whatever the entries say of it.
	[[ "${lines[2]}" == "write  /dev/null  ("*"allowed device)" ]]
	[ "${lines[3]}" = "deny   /etc/ssl/certs  (entries[2]: deny /etc/ssl)" ]
	[ "${lines[4]}" = "deny   /var/lib  (no entry covers this path (default deny))" ]
	[ "${lines[5]}" = "write  $WS/src  (entries[1]: write $WS)" ]
	run -0 "$SBXRUN" access --json --profile "$WS/p.json" /etc/passwd
	[ "$(jget "$output" '[j[0]["access"], j[0]["rule"]]')" = '["read", "entries[0]: read :minimal (/etc)"]' ]
	# What run does with the same profile.
	run -0 "$SBXRUN" --profile "$WS/p.json" -- sh -c 'head -c0 /etc/passwd && echo read'
	[ "$output" = read ]
	run "$SBXRUN" --profile "$WS/p.json" -- sh -c 'ls /var/lib'
	[ "$status" -ne 0 ]
}

@test "access: a deny glob covers what run's scan finds, glob_scan_max_depth levels down" {
	mkdir -p "$WS/g/a/b"
	echo s > "$WS/g/x.env"
	echo s > "$WS/g/a/y.env"
	echo s > "$WS/g/a/b/z.env"
	for depth in 1 2; do
		printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"glob_pattern","pattern":"%s/g/**/*.env"},"access":"deny"}],"glob_scan_max_depth":%s},"network":"restricted"}' "$WS" "$depth" > "$WS/p$depth.json"
	done
	run -0 "$SBXRUN" access --profile "$WS/p1.json" g/x.env g/a/y.env g/a/b/z.env
	[ "${lines[0]}" = "deny   $WS/g/x.env  (entries[1]: deny glob $WS/g/**/*.env)" ]
	[ "${lines[1]}" = "read   $WS/g/a/y.env  (entries[0]: read :root)" ]
	[ "${lines[2]}" = "read   $WS/g/a/b/z.env  (entries[0]: read :root)" ]
	run -0 "$SBXRUN" access --profile "$WS/p2.json" g/x.env g/a/y.env g/a/b/z.env
	[ "${lines[0]}" = "deny   $WS/g/x.env  (entries[1]: deny glob $WS/g/**/*.env)" ]
	[ "${lines[1]}" = "deny   $WS/g/a/y.env  (entries[1]: deny glob $WS/g/**/*.env)" ]
	[ "${lines[2]}" = "read   $WS/g/a/b/z.env  (entries[0]: read :root)" ]
	# run agrees, file by file.
	run "$SBXRUN" --profile "$WS/p1.json" -- cat g/x.env
	[ "$status" -eq 1 ]
	run -0 "$SBXRUN" --profile "$WS/p1.json" -- cat g/a/y.env
	run "$SBXRUN" --profile "$WS/p2.json" -- cat g/a/y.env
	[ "$status" -eq 1 ]
	run -0 "$SBXRUN" --profile "$WS/p2.json" -- cat g/a/b/z.env
}

@test "access: a deny glob without a wildcard covers its path whatever glob_scan_max_depth" {
	mkdir -p "$WS/g/a/b" "$WS/g/p[1]"
	echo s > "$WS/g/a/b/z.env"
	echo s > "$WS/g/p[1]/k"
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"glob_pattern","pattern":"%s/g/a/b/z.env"},"access":"deny"},{"path":{"type":"glob_pattern","pattern":"%s/g/p\\\\[1\\\\]"},"access":"deny"}],"glob_scan_max_depth":1},"network":"restricted"}' "$WS" "$WS" > "$WS/p.json"
	run -0 "$SBXRUN" access --profile "$WS/p.json" g/a/b/z.env 'g/p[1]/k' g/a/b
	[ "${lines[0]}" = "deny   $WS/g/a/b/z.env  (entries[1]: deny glob $WS/g/a/b/z.env)" ]
	[ "${lines[1]}" = "deny   $WS/g/p[1]/k  (entries[2]: deny glob $WS/g/p\\[1\\])" ]
	[ "${lines[2]}" = "read   $WS/g/a/b  (entries[0]: read :root)" ]
	# run agrees: the scan looks each path up and masks it; beside them, read.
	run "$SBXRUN" --profile "$WS/p.json" -- cat g/a/b/z.env
	[ "$status" -eq 1 ]
	run "$SBXRUN" --profile "$WS/p.json" -- cat 'g/p[1]/k'
	[ "$status" -eq 1 ]
	run -0 "$SBXRUN" --profile "$WS/p.json" -- ls g/a/b
}

@test "convert --to profile from a legacy read-only policy" {
	printf '{"type":"read-only"}' > "$WS/l.json"
	run "$SBXRUN" convert --to profile "$WS/l.json"
	[ "$status" -eq 0 ]
	[ "$output" = '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"}]},"network":"restricted"}' ]
}

@test "convert --to legacy, and stdin" {
	run bash -c 'printf "{\"type\":\"disabled\"}" | "$1" convert --to legacy -' sh "$SBXRUN"
	[ "$status" -eq 0 ]
	[ "$output" = '{"type":"danger-full-access"}' ]
	run bash -c 'printf "{\"type\":\"external\",\"network\":\"restricted\"}" | "$1" convert --to legacy' sh "$SBXRUN"
	[ "$output" = '{"type":"external-sandbox","network_access":"restricted"}' ]
}

@test "convert --to legacy fails with the exact message for writes outside the workspace" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"path","path":"/elsewhere"},"access":"write"}]},"network":"restricted"}' > "$WS/p.json"
	run "$SBXRUN" convert --to legacy --cwd "$WS" "$WS/p.json"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"permissions profile requests filesystem writes outside the workspace root, which is not supported until the runtime enforces FileSystemSandboxPolicy directly" ]]
}

@test "convert needs --to and a valid value" {
	run "$SBXRUN" convert
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: convert: --to profile|legacy is required" ]
	run "$SBXRUN" convert --to yaml
	[ "$status" -eq 125 ]
}

@test "merge: union, network only when enabled (vector mi-22)" {
	printf '{"network":{"enabled":false},"file_system":{"read":["/a"]}}' > "$WS/a.json"
	printf '{"file_system":{"write":["/b"]}}' > "$WS/b.json"
	run "$SBXRUN" merge "$WS/a.json" "$WS/b.json"
	[ "$status" -eq 0 ]
	[ "$output" = '{"file_system":{"read":["/a"],"write":["/b"]}}' ]
	run "$SBXRUN" merge "$WS/a.json"
	[ "$status" -eq 125 ]
}

@test "intersect: a narrower grant survives (mi-07), a broader one does not (mi-14)" {
	printf '{"file_system":{"entries":[{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]}}' > "$WS/req.json"
	printf '{"file_system":{"write":["%s/src"]}}' "$WS" > "$WS/grant.json"
	run "$SBXRUN" intersect --cwd "$WS" "$WS/req.json" "$WS/grant.json"
	[ "$status" -eq 0 ]
	[ "$output" = "{\"file_system\":{\"write\":[\"$WS/src\"]}}" ]
	run "$SBXRUN" intersect --cwd "$WS" "$WS/grant.json" "$WS/req.json"
	[ "$status" -eq 0 ]
	[ "$output" = '{}' ]
}

@test "intersect rejects a non-deny glob grant" {
	printf '{"file_system":{"entries":[{"path":{"type":"glob_pattern","pattern":"**/*.env"},"access":"read"}]}}' > "$WS/g.json"
	run "$SBXRUN" intersect "$WS/g.json" "$WS/g.json"
	[ "$status" -eq 125 ]
}

@test "context prints the environment_context block" {
	TZ=Etc/UTC SHELL=/bin/bash run "$SBXRUN" context --profile :read-only
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "<environment_context>" ]
	[ "${lines[1]}" = "  <cwd>$WS</cwd>" ]
	[ "${lines[2]}" = "  <shell>bash</shell>" ]
	[ "${lines[3]}" = "  <current_date>$(date +%Y-%m-%d)</current_date>" ]
	[ "${lines[4]}" = "  <timezone>Etc/UTC</timezone>" ]
	[ "${lines[5]}" = "  <filesystem><workspace_roots><root>$WS</root></workspace_roots><permission_profile type=\"managed\"><file_system type=\"restricted\"><entry access=\"read\"><special>:root</special></entry></file_system></permission_profile></filesystem>" ]
	[ "${lines[6]}" = "</environment_context>" ]
}

# A profile file inside a writable root is kept read-only by an added read entry (explain says
# origin profile-file): context shows the profile run enforces, that entry among it.
@test "context shows the read entry that keeps the profile file read-only, as explain does" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"special","value":{"kind":"current_working_directory"}},"access":"write"}]},"network":"restricted"}' >"$WS/p.json"
	local entry='<entry access="read"><path>'"$WS"'/p.json</path></entry>'
	run "$SBXRUN" explain --json --profile p.json
	[ "$status" -eq 0 ]
	echo "$output" | jq -e --arg p "$WS/p.json" \
		'[.requirements[] | select(.rule == "read-only " + $p and .origin == "profile-file")] | length == 1'
	run "$SBXRUN" context --profile p.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"<entry access=\"write\"><path>$WS</path></entry>$entry</file_system>"* ]]
	# Control: outside every writable root the file needs no entry, and context shows none.
	mkdir "$WS/sub"
	run "$SBXRUN" context --cwd "$WS/sub" --profile p.json
	[ "$status" -eq 0 ]
	[[ "$output" != *"$entry"* ]]
	# Where run refuses the file (a write entry on it), context refuses too.
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"special","value":{"kind":"current_working_directory"}},"access":"write"},{"path":{"type":"path","path":"%s/p.json"},"access":"write"}]},"network":"restricted"}' "$WS" >"$WS/p.json"
	run "$SBXRUN" context --profile p.json
	[ "$status" -eq 125 ]
	[[ "$output" == *"the profile grants write on the file sbxrun read its permissions from"* ]]
}

@test "context for :danger-full-access renders the disabled form" {
	run "$SBXRUN" context --profile :danger-full-access
	[ "$status" -eq 0 ]
	[[ "$output" == *'<permission_profile type="disabled"><file_system type="unrestricted" /></permission_profile>'* ]]
}
