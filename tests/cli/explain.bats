#!/usr/bin/env bats
# explain and probe: their JSON output, as sbxrun(1) describes it, for the three platforms.

bats_require_minimum_version 1.5.0
load helpers

setup() { setup_ws; cd "$WS"; }

@test "explain --json has every key of the contract, in order" {
	run "$SBXRUN" explain --json --platform linux -- git status
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'list(j.keys())')" = '["version", "platform", "profile", "sandbox_requested", "sandbox", "enforceable", "allow_git", "process", "requirements", "argv", "cwd", "environment"]' ]
	[ "$(jget "$output" 'j["version"]')" = "sbxrun 0.1.0" ]
	[ "$(jget "$output" 'j["cwd"]')" = "$WS" ]
}

@test "explain --platform linux: :workspace is requested, linux-seccomp, helper argv" {
	run "$SBXRUN" explain --json --platform linux --profile :workspace -- git status
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["platform"]')" = linux ]
	[ "$(jget "$output" 'j["sandbox_requested"]')" = true ]
	[ "$(jget "$output" 'j["sandbox"]')" = linux-seccomp ]
	[ "$(jget "$output" 'j["profile"]["type"]')" = managed ]
	[ "$(jget "$output" 'j["profile"]["network"]')" = restricted ]
	# project_roots is materialized to the cwd
	[ "$(jget "$output" '[e["path"]["path"] for e in j["profile"]["file_system"]["entries"] if e["path"]["type"]=="path" and e["access"]=="write"][0]')" = "$WS" ]
	[ "$(jget "$output" '[r["rule"] for r in j["requirements"]].count("write '"$WS"'")')" = 1 ]
	[ "$(jget "$output" '[r["rule"] for r in j["requirements"]].count("network restricted")')" = 1 ]
	[ "$(jget "$output" 'j["argv"][-3:]')" = '["--", "git", "status"]' ]
	[ "$(jget "$output" '"--permission-profile" in j["argv"] or "--permission-profile-fd" in j["argv"]')" = true ]
}

@test "explain --json: process says who runs a Linux command, and is absent elsewhere" {
	# A current kernel (what --platform linux assumes): supervised, under init.
	run "$SBXRUN" explain --json --platform linux --profile :read-only -- true
	[ "$(jget "$output" 'j["process"]')" = init ]
	run "$SBXRUN" explain --platform linux --profile :read-only -- true
	[[ "$output" == *"process:           sbxrun supervises; the command runs under its own init (pid 1) in new PID, IPC and mount namespaces"* ]]
	# Nothing to supervise: an unrestricted file system with a restricted network.
	printf '{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}' \
		>"$WS/open.json"
	run "$SBXRUN" explain --json --platform linux --profile "$WS/open.json" -- true
	[ "$(jget "$output" 'j["process"]')" = in-place ]
	# No sandbox, or another platform: no process key.
	run "$SBXRUN" explain --json --platform linux --profile :danger-full-access -- true
	[ "$(jget "$output" '"process" in j')" = false ]
	run "$SBXRUN" explain --json --platform macos -- true
	[ "$(jget "$output" '"process" in j')" = false ]
}

@test "explain --report: a plan in place goes under init; nothing is opened; off, nothing changes" {
	printf '{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}' \
		>"$WS/open.json"
	# The control: without --report it runs in place, and the JSON has no report key.
	run "$SBXRUN" explain --json --platform linux --profile "$WS/open.json" -- true
	[ "$(jget "$output" 'j["process"]')" = in-place ]
	[ "$(jget "$output" '"report" in j')" = false ]
	run "$SBXRUN" explain --json --platform linux --profile "$WS/open.json" --report "$WS/r.json" -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["process"]')" = init ]
	[ "$(jget "$output" 'j["report"]')" = '{"traced": true, "moved_under_init": true, "note": "each refused operation, traced from the supervisor; the command runs under its own init (in place without --report)"}' ]
	[ "$(jget "$output" 'list(j.keys())')" = '["version", "platform", "profile", "sandbox_requested", "sandbox", "enforceable", "allow_git", "process", "report", "requirements", "argv", "cwd", "environment"]' ]
	[ ! -e "$WS/r.json" ]
	# Already under init: traced, not moved; the human form says so.
	run "$SBXRUN" explain --platform linux --report - -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\nreport:            each refused operation, traced from the supervisor\n'* ]]
	# Nothing confined: nothing refused.
	run "$SBXRUN" explain --json --platform linux --profile :danger-full-access --report - -- true
	[ "$(jget "$output" 'j["report"]["traced"]')" = false ]
	[ "$(jget "$output" 'j["report"]["note"]')" = "nothing is confined: nothing is refused, the report stays empty" ]
}

@test "explain --report for macOS and Windows: refused as run refuses it (125, a hint)" {
	run --separate-stderr "$SBXRUN" explain --platform macos --report - -- true
	[ "$status" -eq 125 ]
	[ "$output" = "" ]
	[[ "${stderr_lines[0]}" == "sbxrun: --report: the denial report is made on Linux only; macos has none; hint: "* ]]
	[[ "${stderr_lines[0]}" == *"; hint: run without --report; the system log has the sandbox's refusals (log stream --predicate 'sender == \"Sandbox\"')" ]]
	run --separate-stderr "$SBXRUN" explain --platform windows --report - -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "sbxrun: --report: the denial report is made on Linux only; windows has none; hint: "* ]]
	[[ "${stderr_lines[0]}" == *"; hint: run without --report" ]]
}

@test "explain --platform macos: argv is sandbox-exec -p POLICY -D... --" {
	run "$SBXRUN" explain --json --platform macos --profile :workspace -- ls -l
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["sandbox"]')" = macos-seatbelt ]
	[ "$(jget "$output" 'j["argv"][0:2]')" = '["/usr/bin/sandbox-exec", "-p"]' ]
	[ "$(jget "$output" 'j["argv"][2].startswith("(version 1)")')" = true ]
	[ "$(jget "$output" 'all(a.startswith("-D") for a in j["argv"][3:j["argv"].index("--")])')" = true ]
	[ "$(jget "$output" 'j["argv"][-3:]')" = '["--", "ls", "-l"]' ]
}

@test "explain --platform macos without a command shows the launcher up to --" {
	run "$SBXRUN" explain --json --platform macos --profile :workspace
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["argv"][0:2]')" = '["/usr/bin/sandbox-exec", "-p"]' ]
	[ "$(jget "$output" 'j["argv"][-1]')" = '--' ]
	run "$SBXRUN" explain --platform macos --profile :read-only
	[ "$status" -eq 0 ]
	[[ "$output" == *"(version 1)"* ]]
}

@test "explain --platform macos human form shows the policy text" {
	run "$SBXRUN" explain --platform macos --profile :read-only -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *"policy:"* ]]
	[[ "$output" == *"(version 1)"* ]]
	[[ "$output" == *"(deny default)"* ]]
}

@test "explain --platform windows: restricted token, the network restriction is unenforceable" {
	run "$SBXRUN" explain --json --platform windows --profile :workspace -- cmd /c dir
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["sandbox"]')" = windows-restricted-token ]
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	[ "$(jget "$output" '[r["status"] for r in j["requirements"] if r["rule"]=="network restricted"][0]')" = unenforceable ]
	[ "$(jget "$output" 'j["argv"]')" = null ]
}

@test "explain --platform windows with the network enabled is enforceable" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"special","value":{"kind":"project_roots"}},"access":"write"}]},"network":"enabled"}' > "$WS/p.json"
	run "$SBXRUN" explain --json --platform windows --profile "$WS/p.json" -- cmd /c dir
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["sandbox"]')" = windows-restricted-token ]
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
	[ "$(jget "$output" 'j["argv"]')" = '["cmd", "/c", "dir"]' ]
}

@test "explain --windows-sandbox disabled: intent without a backend" {
	run "$SBXRUN" explain --json --platform windows --windows-sandbox disabled --profile :read-only -- x
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["sandbox_requested"]')" = true ]
	[ "$(jget "$output" 'j["sandbox"]')" = none ]
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
}

@test "explain: no sandbox requested for :danger-full-access and --sandbox forbid" {
	run "$SBXRUN" explain --json --profile :danger-full-access -- true
	[ "$(jget "$output" 'j["sandbox_requested"]')" = false ]
	[ "$(jget "$output" 'j["sandbox"]')" = none ]
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
	[ "$(jget "$output" 'j["requirements"]')" = '[]' ]
	[ "$(jget "$output" 'j["argv"]')" = '["true"]' ]
	[ "$(jget "$output" 'j["profile"]')" = '{"type": "disabled"}' ]
	run "$SBXRUN" explain --json --sandbox forbid --profile :read-only -- true
	[ "$(jget "$output" 'j["sandbox_requested"]')" = false ]
}

@test "explain: --sandbox require and --managed-network force a sandbox" {
	run "$SBXRUN" explain --json --sandbox require --profile :danger-full-access -- true
	[ "$(jget "$output" 'j["sandbox_requested"]')" = true ]
	run env HTTPS_PROXY=http://127.0.0.1:3128 "$SBXRUN" explain --json --managed-network \
		--profile :danger-full-access -- true
	[ "$(jget "$output" 'j["sandbox_requested"]')" = true ]
	[ "$(jget "$output" '"managed network: connect only to the proxies at 127.0.0.1:3128" in [r["rule"] for r in j["requirements"]]')" = true ]
}

@test "explain --add-permissions merges on top and keeps the base denials" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"special","value":{"kind":"root"}},"access":"read"},{"path":{"type":"path","path":"%s/secret"},"access":"deny"}]},"network":"restricted"}' "$WS" > "$WS/base.json"
	printf '{"network":{"enabled":true},"file_system":{"write":["%s/src"]}}' "$WS" > "$WS/add.json"
	run "$SBXRUN" explain --json --profile "$WS/base.json" --add-permissions "$WS/add.json" -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["profile"]["network"]')" = enabled ]
	[ "$(jget "$output" '[e["access"] for e in j["profile"]["file_system"]["entries"]]')" = '["read", "deny", "write"]' ]
}

@test "explain with a legacy SandboxPolicy file projects it for the cwd" {
	printf '{"type":"workspace-write","network_access":true}' > "$WS/legacy.json"
	run "$SBXRUN" explain --json --profile "$WS/legacy.json" -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["profile"]["network"]')" = enabled ]
	[ "$(jget "$output" '"write '"$WS"'" in [r["rule"] for r in j["requirements"]]')" = true ]
}

@test "explain human form names the decision" {
	run "$SBXRUN" explain --profile :read-only -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *"sandbox requested: yes"* ]]
	[[ "$output" == *"read /"* ]]
}

@test "explain with -w uses every workspace root" {
	mkdir -p "$WS/a" "$WS/b"
	run "$SBXRUN" explain --json -w "$WS/a" -w "$WS/b" -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" '"write '"$WS"'/a" in [r["rule"] for r in j["requirements"]] and "write '"$WS"'/b" in [r["rule"] for r in j["requirements"]]')" = true ]
}

@test "probe --json reports the host facts" {
	run "$SBXRUN" probe --json
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["platform"]')" = linux ]
	[ "$(jget "$output" 'j["kernel"]')" = "$(uname -r)" ]
	for k in landlock_abi seccomp user_namespaces user_namespaces_blocked_by mount_namespace pid_namespace ipc_namespace no_new_privs running_as_root in_container wsl sandbox_exec; do
		[ "$(jget "$output" "'$k' in j")" = true ]
	done
	[ "$(jget "$output" 'j["running_as_root"]')" = "$([ "$(id -u)" = 0 ] && echo true || echo false)" ]
	# The fact that decides whether run keeps the caller's process group: no controlling
	# terminal after setsid, one as a pseudo-terminal's session leader.
	run setsid -w "$SBXRUN" probe --json
	[ "$(jget "$output" 'j["terminal"]')" = false ]
	run python3 "$BATS_TEST_DIRNAME/../enforce/ptyrun.py" -- "$SBXRUN" probe --json
	[ "$(jget "${output%status=*}" 'j["terminal"]')" = true ]
	run "$SBXRUN" probe
	[ "$status" -eq 0 ]
	[[ "$output" == *landlock_abi* ]]
	run "$SBXRUN" probe extra
	[ "$status" -eq 125 ]
}

@test "explain says each reason once: rows share a numbered note" {
	printf '{"type":"managed","file_system":{"type":"restricted","entries":[{"path":{"type":"path","path":"C:\\\\a"},"access":"write"},{"path":{"type":"path","path":"C:\\\\b"},"access":"write"},{"path":{"type":"path","path":"C:\\\\c"},"access":"read"}]},"network":"restricted"}' > "$WS/w.json"
	run "$SBXRUN" explain --platform windows --windows-sandbox disabled -p "$WS/w.json" -- x
	[ "$status" -eq 0 ]
	reason="the Windows sandbox is disabled"
	[ "$(grep -c "$reason" <<<"$output")" = 1 ]
	[[ "$output" == *"  [1] $reason"* ]]
	[ "$(grep -c 'unenforceable \[1\]$' <<<"$output")" = 12 ]
	# JSON keeps each row whole: a reader of one requirement needs no other.
	run "$SBXRUN" explain --json --platform windows --windows-sandbox disabled -p "$WS/w.json" -- x
	[ "$(jget "$output" 'len([r for r in j["requirements"] if r["why"].startswith("'"$reason"'")])')" = 12 ]
}

@test "explain notes name the row's own path as this path, so such rows share them" {
	run "$SBXRUN" explain --platform linux -p :workspace --read "$WS/nope1" --read "$WS/nope2" -- true
	[ "$status" -eq 0 ]
	# Two read-only carve-outs missing in the workspace: one note for both rows.
	n=$(sed -n "s|^  read-only $WS/nope1 .*unenforceable \[\([0-9]*\)\]\$|\1|p" <<<"$output")
	[ -n "$n" ]
	[[ "$output" == *"read-only $WS/nope2"*"unenforceable [$n]"* ]]
	[ "$(grep -c "^  \[$n\] this path does not exist" <<<"$output")" = 1 ]
	# .agents and .codex are missing in the workspace: masked, one note for both rows.
	m=$(sed -n "s|^  no-create $WS/.agents .*mount-namespace *enforced \[\([0-9]*\)\]\$|\1|p" <<<"$output")
	[ -n "$m" ]
	[[ "$output" == *"no-create $WS/.codex"*"enforced [$m]"* ]]
	[ "$(grep -c "^  \[$m\] it does not exist; the name cannot be created: an empty read-only directory is mounted" <<<"$output")" = 1 ]
}

@test "explain: a missing ~/.config is one run makes, and explain makes nothing" {
	export GIT_CONFIG_NOSYSTEM=1
	unset GIT_CONFIG_GLOBAL XDG_CONFIG_HOME
	HOME="$WS" run "$SBXRUN" explain --platform linux --profile :workspace -- true
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"creates:           $WS/.config (mode 0700, left after the run): "* ]]
	[ ! -e "$WS/.config" ]
	# Planned as run finds it: git's directory in it kept from being made, its note saying
	# that what the caller's git writes there meanwhile is left.
	n=$(sed -n "s|^  no-create $WS/.config/git .*mount-namespace *enforced \[\([0-9]*\)\]\$|\1|p" <<<"$output")
	[ -n "$n" ]
	[[ "$output" == *$'\n'"  [$n] it does not exist; the name cannot be created: an empty read-only directory is mounted at it for the run (shared with other runs at the same time, removed by the last one after it ends; what the caller's git writes there on the host meanwhile is left: the exit status is then 1)"* ]]
	# The warning that $HOME is in the workspace goes to stderr, apart from the JSON.
	HOME="$WS" run --separate-stderr "$SBXRUN" explain --json --platform linux --profile :workspace -- true
	[ "$(jq -r .creates <<<"$output")" = "$WS/.config" ]
	# Positive control: there, nothing to make; XDG_CONFIG_HOME set, neither.
	mkdir "$WS/.config"
	HOME="$WS" run "$SBXRUN" explain --platform linux --profile :workspace -- true
	[[ "$output" != *"creates: "* ]]
	rmdir "$WS/.config"
	mkdir "$WS/xdg"
	HOME="$WS" XDG_CONFIG_HOME="$WS/xdg" run "$SBXRUN" explain --platform linux --profile :workspace -- true
	[[ "$output" != *"creates: "* ]]
}

@test "explain: a home: line says what is kept when HOME lies in a writable root, and only then" {
	export GIT_CONFIG_NOSYSTEM=1
	unset GIT_CONFIG_GLOBAL XDG_CONFIG_HOME
	mkdir -p "$WS/.config"
	HOME="$WS" run "$SBXRUN" explain --platform linux --profile :workspace -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"home:              $WS lies in a writable root: git's global config is kept read-only, but "* ]]
	[[ "$output" == *"(.bashrc, .profile), .ssh/config and other programs' configuration are the command's to write"* ]]
	# An unrestricted file system keeps nothing: explain must not say it keeps git's config.
	printf '{"type":"managed","file_system":{"type":"unrestricted"},"network":"restricted"}' \
		>"$WS/unr.json"
	HOME="$WS" run "$SBXRUN" explain --platform linux --profile "$WS/unr.json" -- true
	[ "$status" -eq 0 ]
	[[ "$output" == *$'\n'"home:              $WS lies in a writable root, the whole file system: git's global config, "* ]]
	[[ "$output" != *"kept read-only"* ]]
	# Positive control: HOME outside the writable roots, no line.
	HOME=/nonexistent-home run "$SBXRUN" explain --platform linux --profile :workspace -- true
	[ "$status" -eq 0 ]
	[[ "$output" != *"home: "* ]]
}

@test "JSON output holds any workspace name: quotes, backslashes, newlines, control bytes, not UTF-8" {
	local d f
	for d in 'q"uote' 'back\slash' $'new\nline' $'ctl\x01\x1f' $'tab\tand\\n'; do
		mkdir -p "$WS/$d"
		run "$SBXRUN" explain --json --cwd "$WS/$d" --profile :workspace --deny "$WS/$d/secret" -- true
		[ "$status" -eq 0 ]
		# The cwd, and a rule built from the path, as they are.
		[ "$(jget "$output" 'j["cwd"] == sys.argv[3]' "$WS/$d")" = true ]
		[ "$(jget "$output" '["deny " + sys.argv[3] + "/secret" in [r["rule"] for r in j["requirements"]]]' "$WS/$d")" = '[true]' ]
		run "$SBXRUN" access --json --cwd "$WS/$d" --profile :workspace --deny "$WS/$d/secret" "$WS/$d/secret"
		[ "$status" -eq 0 ]
		[ "$(jget "$output" 'j[0]["path"] == sys.argv[3] + "/secret"' "$WS/$d")" = true ]
		[ "$(jget "$output" 'j[0]["access"]')" = deny ]
	done
	# A name that is not UTF-8 cannot be a JSON string as it is: its stray byte is U+FFFD,
	# and the field is there (it was left out).
	f=$'/tmp/caf\xc3\xa9\xff'
	run "$SBXRUN" access --json --profile :workspace "$f"
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j[0]["path"] == "/tmp/caf\u00e9\ufffd"')" = true ]
}

# explain meets the command as run would (the PATH of the command's environment, its cwd, the
# plan's grants) and says what run would exit with when it could not execute it; run agrees.
@test "explain says when the command is missing, not executable or refused by the profile" {
	mkdir -p "$WS/bin" "$WS/adir"
	printf '#!/bin/sh\necho ran\n' > "$WS/bin/plain"
	printf '#!/nonexistent/interp\n' > "$WS/bin/lost"
	chmod 755 "$WS/bin/lost"
	run -0 "$SBXRUN" explain -- nosuchcmd-xyz
	[ "$(grep '^command:' <<<"$output")" = "command:           nosuchcmd-xyz: command not found: run would exit 127" ]
	run -127 "$SBXRUN" -- nosuchcmd-xyz
	run -0 "$SBXRUN" explain --json -- nosuchcmd-xyz
	[ "$(jget "$output" 'j["command"]')" = '{"exit": 127, "why": "nosuchcmd-xyz: command not found"}' ]
	run -0 "$SBXRUN" explain -- explaine
	[ "$(grep '^command:' <<<"$output")" = "command:           explaine: command not found: run would exit 127; hint: did you mean 'sbxrun explain'?" ]
	# Not executable, on PATH and by path; a directory.
	run -0 env PATH="$WS/bin:$PATH" "$SBXRUN" explain -- plain
	[ "$(grep '^command:' <<<"$output")" = "command:           plain: cannot execute: Permission denied: run would exit 126" ]
	run -126 env PATH="$WS/bin:$PATH" "$SBXRUN" -- plain
	run -0 "$SBXRUN" explain -- bin/plain
	[ "$(grep '^command:' <<<"$output")" = "command:           bin/plain: cannot execute: Permission denied: run would exit 126" ]
	run -0 "$SBXRUN" explain -- ./adir
	[ "$(grep '^command:' <<<"$output")" = "command:           ./adir: cannot execute: Is a directory: run would exit 126" ]
	run -126 "$SBXRUN" -- ./adir
	# The PATH is the command's: --env-set changes it.
	run -0 "$SBXRUN" explain --env-set PATH=/nonexistent -- ls
	[ "$(grep '^command:' <<<"$output")" = "command:           ls: command not found: run would exit 127" ]
	run -127 "$SBXRUN" --env-set PATH=/nonexistent -- ls
	# Its "#!" interpreter missing.
	run -0 "$SBXRUN" explain -- bin/lost
	[ "$(grep '^command:' <<<"$output")" = "command:           bin/lost: cannot execute: interpreter /nonexistent/interp not found: run would exit 127" ]
	run -127 "$SBXRUN" -- bin/lost
	# Refused by the profile: the rule and the hint run gives.
	run -0 "$SBXRUN" explain --profile :read-only --deny "$WS/bin/lost" -- bin/lost
	[[ "$(grep '^command:' <<<"$output")" == "command:           bin/lost: cannot execute: $WS/bin/lost is denied by entries["*"]: deny $WS/bin/lost: run would exit 126; hint: a deny wins over a read grant: drop entries["*"] (or the --deny that made it) to let the command read $WS/bin/lost" ]]
	run -126 "$SBXRUN" --profile :read-only --deny "$WS/bin/lost" -- bin/lost
	[[ "$output" == "sbxrun: bin/lost: cannot execute: $WS/bin/lost is denied by entries["*"]: deny $WS/bin/lost; hint: a deny wins over a read grant: "* ]]
	# The controls: a command run can execute gets no such line nor key.
	chmod 755 "$WS/bin/plain"
	run -0 env PATH="$WS/bin:$PATH" "$SBXRUN" explain -- plain
	[ "$(grep -c '^command:' <<<"$output")" = 0 ]
	run -0 env PATH="$WS/bin:$PATH" "$SBXRUN" -- plain
	[ "$output" = ran ]
	run -0 "$SBXRUN" explain --json -- true
	[ "$(jget "$output" '"command" in j')" = false ]
	# Another platform's files are not this host's: nothing is said.
	run -0 "$SBXRUN" explain --platform macos -- nosuchcmd-xyz
	[ "$(grep -c '^command:' <<<"$output")" = 0 ]
}

# A deny of the program's directory hides it from run's own look-up too (an empty mount no one
# may search): run still names the rule, as explain does, on PATH and by path.
@test "a deny of the command's directory is 126 naming the rule, in run as in explain" {
	local p pre post
	mkdir -p "$WS/tools"
	printf '#!/bin/sh\necho ran\n' > "$WS/tools/tool"
	chmod 755 "$WS/tools/tool"
	pre="cannot execute: $WS/tools/tool is denied by entries["
	post="]: deny $WS/tools"
	for p in :read-only :workspace; do
		run -126 env PATH="$WS/tools:$PATH" "$SBXRUN" --profile "$p" --deny "$WS/tools" -- tool
		[[ "$output" == "sbxrun: tool: $pre"*"$post; hint: a deny wins over a read grant: drop entries["*"] (or the --deny that made it) to let the command read $WS/tools/tool" ]]
		run -0 env PATH="$WS/tools:$PATH" "$SBXRUN" explain --profile "$p" --deny "$WS/tools" -- tool
		[[ "$(grep '^command:' <<<"$output")" == "command:           tool: $pre"*"$post: run would exit 126; hint: "* ]]
		run -126 "$SBXRUN" --profile "$p" --deny "$WS/tools" -- "$WS/tools/tool"
		[[ "$output" == "sbxrun: $WS/tools/tool: $pre"*"$post; hint: "* ]]
		# The control: without the deny it runs.
		run -0 env PATH="$WS/tools:$PATH" "$SBXRUN" --profile "$p" -- tool
		[ "$output" = ran ]
	done
}

# sbx_execvp stops at an error other than "not there" or "not executable" (a link loop, a name
# too long): explain says what run then says, and a PATH element too long to name is passed
# over by both.
@test "explain: a PATH search that ends in ELOOP or ENAMETOOLONG is run's 126" {
	local said long
	mkdir -p "$WS/lp"
	ln -s loop "$WS/lp/tool"
	ln -s tool "$WS/lp/loop"
	run -126 "$SBXRUN" --env-set PATH="$WS/lp:/usr/bin:/bin" -- tool
	said=${output#sbxrun: }
	# The C library's words for ELOOP (glibc and musl word it differently).
	[[ "$said" == "tool: cannot execute: "*"ymbolic link"* ]]
	run -0 "$SBXRUN" explain --env-set PATH="$WS/lp:/usr/bin:/bin" -- tool
	[ "$(grep '^command:' <<<"$output")" = "command:           $said: run would exit 126" ]
	long=$(printf 'x%.0s' $(seq 256))
	run -126 "$SBXRUN" -- "$long"
	said=${output#sbxrun: }
	[[ "$said" == "$long: cannot execute: "* ]]
	run -0 "$SBXRUN" explain -- "$long"
	[ "$(grep '^command:' <<<"$output")" = "command:           $said: run would exit 126" ]
	# The controls: past an element too long to name, a program later on PATH is found.
	long=/$(printf 'd%.0s' $(seq 4094))
	run -0 "$SBXRUN" explain --env-set PATH="$long:/usr/bin:/bin" -- true
	[ "$(grep -c '^command:' <<<"$output")" = 0 ]
	run -0 "$SBXRUN" --env-set PATH="$long:/usr/bin:/bin" -- true
}

# A script without "#!" goes to /bin/sh: explain says what run says when the profile denies the
# shell, or when the shell cannot be executed (a node without execute permission over it, in a
# mount namespace of the test's own).
@test "explain: a script without #! whose shell is denied or cannot run is run's 126" {
	local sh said
	sh=$(realpath /bin/sh)
	printf 'echo ran\n' > "$WS/nohashbang"
	chmod 755 "$WS/nohashbang"
	run -126 "$SBXRUN" --profile :workspace --deny "$sh" -- "$WS/nohashbang"
	said=${output#sbxrun: }
	said=${said%%; hint: *}
	[[ "$said" == "$WS/nohashbang: cannot execute: its interpreter: $sh is denied by entries["*"]: deny $sh" ]]
	run -0 "$SBXRUN" explain --profile :workspace --deny "$sh" -- "$WS/nohashbang"
	[[ "$(grep '^command:' <<<"$output")" == "command:           $said: run would exit 126; hint: "* ]]
	run -0 unshare -rm sh -c 'mount --bind /dev/null /bin/sh && exec "$@"' sh \
		"$SBXRUN" explain -- "$WS/nohashbang"
	[ "$(grep '^command:' <<<"$output")" = "command:           $WS/nohashbang: cannot execute: no \"#!\" line, and /bin/sh, which runs such a file, cannot be executed: Permission denied: run would exit 126" ]
	# The control: with the shell, nothing is said.
	run -0 "$SBXRUN" explain --profile :workspace -- "$WS/nohashbang"
	[ "$(grep -c '^command:' <<<"$output")" = 0 ]
}

# execve(2) refuses what is not a regular file with EACCES, without opening it, and the search
# on PATH goes on past it: explain says what run meets (126), and opens no FIFO run would not.
@test "explain: a FIFO, or a directory on PATH, is what run cannot execute (126)" {
	mkdir -p "$WS/d/tool"
	mkfifo "$WS/fifo"
	chmod 755 "$WS/fifo"
	run -0 "$SBXRUN" explain -- ./fifo
	[ "$(grep '^command:' <<<"$output")" = "command:           ./fifo: cannot execute: Permission denied: run would exit 126" ]
	run -126 "$SBXRUN" -- ./fifo
	run -0 "$SBXRUN" explain --env-set PATH="$WS/d" -- tool
	[ "$(grep '^command:' <<<"$output")" = "command:           tool: cannot execute: Permission denied: run would exit 126" ]
	run -126 "$SBXRUN" --env-set PATH="$WS/d" -- tool
	# The control: a program later on PATH is what both find.
	run -0 "$SBXRUN" explain --env-set PATH="$WS/d:/usr/bin:/bin" -- true
	[ "$(grep -c '^command:' <<<"$output")" = 0 ]
	mkdir "$WS/d/true"
	run -0 "$SBXRUN" explain --env-set PATH="$WS/d:/usr/bin:/bin" -- true
	[ "$(grep -c '^command:' <<<"$output")" = 0 ]
	run -0 "$SBXRUN" --env-set PATH="$WS/d:/usr/bin:/bin" -- true
}

# controls FILE: how many control bytes but the line ends FILE's text holds.
controls() {
	LC_ALL=C tr -d '\n\040-\176\200-\377' <"$1" | wc -c
}

# A name an earlier run made (a directory, a .git file's gitdir) may hold a newline or a
# terminal's escape sequence: the human forms show it as \xHH, one row per requirement, never
# raw, where it would forge rows or move the cursor over "unenforceable".
@test "explain, access and -v show control characters in paths as \\xHH, never raw" {
	e=$(printf '\033')
	ws="$BATS_TEST_TMPDIR/n
l${e}[2K"
	mkdir -p "$ws/in${e}[2Jx/hooks" "$ws/in${e}[2Jx/objects" "$ws/in${e}[2Jx/refs"
	echo 'ref: refs/heads/main' >"$ws/in${e}[2Jx/HEAD"
	printf 'gitdir: in%s[2Jx\n' "$e" >"$ws/.git"
	shown="$BATS_TEST_TMPDIR/n\\x0al\\x1b[2K"
	cd "$ws"
	"$SBXRUN" explain --platform linux -- printf "a${e}b" >"$BATS_TEST_TMPDIR/out"
	cat -A "$BATS_TEST_TMPDIR/out"
	[ "$(controls "$BATS_TEST_TMPDIR/out")" -eq 0 ]
	# The positive control: each is there, on a line of its own.
	grep -qxF "cwd:               $shown" "$BATS_TEST_TMPDIR/out"
	grep -qE "^  read-only $(printf '%s' "$shown/in\\x1b[2Jx" | sed 's/[][\.]/\\&/g') +mount-namespace" "$BATS_TEST_TMPDIR/out"
	[ "$(tail -n 1 "$BATS_TEST_TMPDIR/out")" = "  'a'\$'\\x1b''b'" ]
	"$SBXRUN" access "$ws/in${e}[2Jx/config" >"$BATS_TEST_TMPDIR/out"
	cat -A "$BATS_TEST_TMPDIR/out"
	[ "$(controls "$BATS_TEST_TMPDIR/out")" -eq 0 ]
	grep -qF "$shown/in\\x1b[2Jx/config" "$BATS_TEST_TMPDIR/out"
	"$SBXRUN" -v --sandbox forbid -- true 2>"$BATS_TEST_TMPDIR/out"
	cat -A "$BATS_TEST_TMPDIR/out"
	[ "$(controls "$BATS_TEST_TMPDIR/out")" -eq 0 ]
	grep -qF "cwd $shown" "$BATS_TEST_TMPDIR/out"
}

# unsafe FILE: how many characters of FILE's text a terminal may act on beyond the C0 controls
# (controls): a C1 control (U+0080 to U+009F: U+009B is ESC [) and a byte that is not UTF-8.
unsafe() {
	python3 -c 'import re, sys
t = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
print(t.count("\ufffd") + len(re.findall("[\x80-\x9f]", t)))' "$1"
}

# A terminal reads U+009B as ESC [ (CSI), and a byte that is not UTF-8 as whatever its own
# character set says: each is shown as \xHH too, the macOS policy's paths and the argv's
# bytes included. UTF-8 text (é) stays as it is.
@test "explain, access and the macOS policy show C1 controls and bytes that are not UTF-8 as \\xHH" {
	c1=$(printf 'c\302\2332J\033[2K\303\251')
	ws="$BATS_TEST_TMPDIR/$c1"
	shown="$BATS_TEST_TMPDIR/c\\xc2\\x9b2J\\x1b[2Ké"
	mkdir -p "$ws/$(printf 'x\377y')"
	cd "$ws"
	for platform in linux macos; do
		"$SBXRUN" explain --platform $platform -- printf "a$(printf '\377')b" >"$BATS_TEST_TMPDIR/out"
		cat -A "$BATS_TEST_TMPDIR/out"
		[ "$(controls "$BATS_TEST_TMPDIR/out")" -eq 0 ]
		[ "$(unsafe "$BATS_TEST_TMPDIR/out")" -eq 0 ]
		# The positive control: each is there, shown.
		grep -qxF "cwd:               $shown" "$BATS_TEST_TMPDIR/out"
		grep -qF "'a'\$'\\xff''b'" "$BATS_TEST_TMPDIR/out"
	done
	# The policy's regex of a protected path under the workspace (the macOS run ended last).
	grep -qF "(regex \"^$(sed 's/\[/\\\\[/' <<<"$shown")/\\\\.git(" "$BATS_TEST_TMPDIR/out"
	"$SBXRUN" access "$ws/$(printf 'x\377y')" >"$BATS_TEST_TMPDIR/out"
	cat -A "$BATS_TEST_TMPDIR/out"
	[ "$(controls "$BATS_TEST_TMPDIR/out")" -eq 0 ]
	[ "$(unsafe "$BATS_TEST_TMPDIR/out")" -eq 0 ]
	grep -qF "$shown/x\\xffy" "$BATS_TEST_TMPDIR/out"
}

# A name holding the four characters "\x1b" is not shown as the one holding ESC: the backslash
# an escape could be taken for is shown as \x5c, in explain, access, -v and a refusal alike.
@test "explain, access, -v and a refusal show a literal \\x apart from the byte it would name" {
	e=$(printf '\033')
	lit="$BATS_TEST_TMPDIR/a\\x1b"
	esc="$BATS_TEST_TMPDIR/a$e"
	mkdir -p "$lit" "$esc"
	for which in lit esc; do
		cd "${!which}"
		"$SBXRUN" explain --platform linux -- true >"$BATS_TEST_TMPDIR/out.$which"
		"$SBXRUN" -v --sandbox forbid -- true 2>>"$BATS_TEST_TMPDIR/v"
	done
	cd "$BATS_TEST_TMPDIR"
	grep -qxF "cwd:               $BATS_TEST_TMPDIR/a\\x5cx1b" "$BATS_TEST_TMPDIR/out.lit"
	grep -qxF "cwd:               $BATS_TEST_TMPDIR/a\\x1b" "$BATS_TEST_TMPDIR/out.esc"
	grep -qF "cwd $BATS_TEST_TMPDIR/a\\x5cx1b" "$BATS_TEST_TMPDIR/v"
	grep -qF "cwd $BATS_TEST_TMPDIR/a\\x1b" "$BATS_TEST_TMPDIR/v"
	"$SBXRUN" access "$lit/f" "$esc/f" >"$BATS_TEST_TMPDIR/out"
	cat "$BATS_TEST_TMPDIR/out"
	grep -qF "$BATS_TEST_TMPDIR/a\\x5cx1b/f" "$BATS_TEST_TMPDIR/out"
	grep -qF "$BATS_TEST_TMPDIR/a\\x1b/f" "$BATS_TEST_TMPDIR/out"
	# A refusal naming the file: the literal one is shown escaped, the text after it as it is.
	run "$SBXRUN" -p "$lit/none.json" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == "sbxrun: $BATS_TEST_TMPDIR/a\\x5cx1b/none.json"* ]]
}
