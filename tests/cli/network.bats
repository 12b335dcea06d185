#!/usr/bin/env bats
bats_require_minimum_version 1.5.0
# The network beyond the profile: --managed-network and its proxy variables,
# --allow-unix-socket, --allow-local-binding; what each platform plans and refuses.

load helpers

setup() { setup_ws; cd "$WS"; }

# sbx VAR=VALUE... -- ARGS...: sbxrun with exactly these variables (and PATH), so that the
# proxy variables of the machine running the tests play no part.
sbx() {
	local vars=()
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	env -i PATH="$PATH" "${vars[@]}" "$SBXRUN" "$@"
}

rules_json() { jget "$1" '[r["rule"] for r in j["requirements"]]'; }
req() { jget "$1" '[r for r in j["requirements"] if r["rule"]=='"'$2'"'][0]["'"$3"'"]'; }

@test "--managed-network without a proxy variable: one line and a hint, 125, nothing runs" {
	run --separate-stderr sbx -- --managed-network -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == "sbxrun: managed networking needs a proxy, and no proxy variable is set"* ]]
	[[ "${stderr_lines[0]}" == *"; hint: set HTTPS_PROXY and HTTP_PROXY"* ]]
	[ ! -e "$WS/canary" ]
	run --separate-stderr sbx -- explain --platform macos --managed-network -- true
	[ "$status" -eq 125 ]
	# No sandbox wanted cannot keep managed networking: a usage error, never unconfined.
	run --separate-stderr sbx -- --sandbox forbid --managed-network -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "sbxrun: --sandbox forbid runs the command unconfined, and --managed-network asks for a restriction"* ]]
	[ ! -e "$WS/canary" ]
	# The control: with no sandbox wanted and no restriction asked, nothing is confined.
	run sbx -- --sandbox forbid -- touch "$WS/canary"
	[ "$status" -eq 0 ]
	[ -e "$WS/canary" ]
}

@test "a proxy that is not on loopback is refused by host and port, never with its password" {
	run --separate-stderr sbx HTTPS_PROXY=http://user:hunter2@proxy.corp:8080 -- \
		explain --platform macos --managed-network -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "sbxrun: HTTPS_PROXY names the proxy proxy.corp:8080, which is not on this machine's loopback interface (127.0.0.0/8, ::1 or localhost): managed networking lets the command reach its proxies and nothing else; hint: "* ]]
	[[ "$stderr" != *hunter2* ]]
	run --separate-stderr sbx http_proxy=http://127.0.0.1:3128/path -- --managed-network -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "sbxrun: http_proxy: a proxy URL is SCHEME://HOST:PORT"* ]]
	[ ! -e "$WS/canary" ]
	# The control: on loopback, the same planning succeeds.
	run sbx HTTPS_PROXY=http://user:hunter2@127.0.0.1:8080 -- explain --platform macos --managed-network -- true
	[ "$status" -eq 0 ]
}

@test "explain --platform macos --managed-network: only the proxies' ports on loopback" {
	run sbx HTTPS_PROXY=http://127.0.0.1:3128 ALL_PROXY='socks5h://[::1]' NO_PROXY=localhost -- \
		explain --platform macos --json --managed-network -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
	[ "$(req "$output" 'managed network: connect only to the proxies at 127.0.0.1:3128, [::1]:1080' status)" = enforced ]
	[ "$(jget "$output" '"(allow network-outbound (remote ip \"localhost:3128\"))" in j["argv"][2]')" = true ]
	[ "$(jget "$output" '"(allow network-outbound (remote ip \"localhost:1080\"))" in j["argv"][2]')" = true ]
	[ "$(jget "$output" '"(allow network-outbound)" in j["argv"][2]')" = false ]
	# The control: without --managed-network the proxy variables change nothing.
	run sbx HTTPS_PROXY=http://127.0.0.1:3128 -- explain --platform macos --json -- true
	[ "$(jget "$output" '"localhost:3128" in j["argv"][2]')" = false ]
}

@test "--allow-unix-socket: normalized, sorted, one parameter each; relative paths refused" {
	run sbx -- explain --platform macos --json --allow-unix-socket /run/b.sock \
		--allow-unix-socket /run/x/../a.sock --allow-unix-socket /run/a.sock/ -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" '[a for a in j["argv"] if a.startswith("-DUNIX")]')" = '["-DUNIX_SOCKET_PATH_0=/run/a.sock", "-DUNIX_SOCKET_PATH_1=/run/b.sock"]' ]
	[ "$(req "$output" 'connect to Unix socket /run/a.sock' status)" = enforced ]
	[ "$(jget "$output" '"(remote unix-socket (subpath (param \"UNIX_SOCKET_PATH_1\")))" in j["argv"][2]')" = true ]
	run --separate-stderr sbx -- --allow-unix-socket agent.sock -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == 'sbxrun: Unix socket path "agent.sock" is not absolute'* ]]
	[ ! -e "$WS/canary" ]
	run --separate-stderr sbx -- --allow-unix-socket
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == *"option '--allow-unix-socket' needs a value" ]]
}

@test "a Unix socket path through a symbolic link is refused on macOS; its real path is not" {
	mkdir -p "$WS/real"
	ln -s "$WS/real" "$WS/link"
	run sbx -- explain --platform macos --json --allow-unix-socket "$WS/link/agent.sock" -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	[[ "$(req "$output" "connect to Unix socket $WS/link/agent.sock" why)" == *"goes through symbolic link $WS/link"* ]]
	run sbx -- explain --platform macos --json --allow-unix-socket "$WS/real/agent.sock" -- true
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
}

@test "--allow-local-binding: bind and serve on loopback, with the network restricted or enabled" {
	run sbx -- explain --platform macos --json --allow-local-binding --profile :read-only -- true
	[ "$status" -eq 0 ]
	[ "$(req "$output" 'bind and serve on loopback' status)" = enforced ]
	[ "$(jget "$output" '"(allow network-bind (local ip \"*:*\"))" in j["argv"][2]')" = true ]
	[ "$(jget "$output" '"(allow network-outbound (remote ip \"localhost:*\"))" in j["argv"][2]')" = true ]
	[ "$(jget "$output" '":53" in j["argv"][2]')" = false ]
	run sbx -- explain --platform macos --json --profile :read-only -- true
	[ "$(jget "$output" '"network-bind" in j["argv"][2]')" = false ]
}

@test "Linux: the allowances are planned: the broker, a network namespace" {
	run sbx -- explain --platform linux --json --allow-unix-socket /run/a.sock --allow-local-binding -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = true ]
	[ "$(req "$output" 'connect to Unix socket /run/a.sock' mechanism)" = seccomp+unix-broker ]
	[ "$(req "$output" 'bind and serve on loopback' mechanism)" = seccomp+network-namespace ]
	# Landlock's TCP rules would refuse the ports a local server takes: not used then.
	[ "$(req "$output" 'network restricted' mechanism)" = seccomp ]
	run sbx HTTPS_PROXY=http://127.0.0.1:3128 -- explain --platform linux --json --managed-network -- true
	[ "$(req "$output" 'managed network: connect only to the proxies at 127.0.0.1:3128' mechanism)" = seccomp+network-namespace ]
	# With the network enabled, the sockets of daemons outside the writable roots.
	run sbx -- explain --platform linux --json --network -- true
	[ "$(req "$output" 'Unix sockets outside the writable roots unreachable' mechanism)" = seccomp+unix-broker ]
	# The control: without a restricted file system there is no such requirement.
	run sbx -- explain --platform linux --json --network --profile :danger-full-access -- true
	[[ "$(rules_json "$output")" != *"Unix sockets outside"* ]]
}

@test "--allow-domain: sbxrun's own proxy, planned; bad patterns and combinations refused" {
	run sbx -- explain --platform linux --json --allow-domain registry.npmjs.org \
		--allow-domain '*.github.com' --deny-domain bad.github.com -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" '[r["rule"] + " = " + r["mechanism"] for r in j["requirements"] if r["rule"].startswith("managed")][0]')" = "managed network: only through sbxrun's proxy, to registry.npmjs.org, *.github.com but not bad.github.com = seccomp+network-namespace" ]
	# No proxy variable is needed: the run sets them to its own proxy.
	run sbx -- explain --platform linux --allow-domain example.com -- true
	[[ "$output" == *" http_proxy "* && "$output" == *" HTTPS_PROXY "* ]]
	# But for npm's "http-proxy" spelling, which the run removes, even where the caller set it;
	# under --managed-network the caller's is passed on (rewritten).
	for platform in linux macos; do
		run sbx npm_config_http_proxy=http://proxy.invalid:3128 \
			NPM_CONFIG_HTTP_PROXY=http://proxy.invalid:3128 -- explain --platform "$platform" \
			--json --allow-domain example.com -- true
		[ "$status" -eq 0 ]
		[ "$(jget "$output" '[n for n in j["environment"] if "npm_config_http_" in n.lower()]')" = "[]" ]
	done
	[ "$(jget "$output" 'len(j["environment"])')" -gt 0 ]
	run sbx npm_config_http_proxy=http://proxy.invalid:3128 -- explain --platform linux --json \
		--allow-domain example.com -- true
	[ "$(jget "$output" '[n for n in j["environment"] if "npm_config" in n.lower()]')" = '["NPM_CONFIG_HTTPS_PROXY", "NPM_CONFIG_PROXY", "npm_config_https_proxy", "npm_config_proxy"]' ]
	# A caller's no-proxy variables are removed (they would send requests around the proxy);
	# with local binding they are set, to the loopback; under --managed-network, passed on.
	for platform in linux macos; do
		run sbx NO_PROXY='*' no_proxy='*' npm_config_noproxy='*' -- explain --platform "$platform" \
			--json --allow-domain example.com -- true
		[ "$(jget "$output" '[n for n in j["environment"] if "no_proxy" in n.lower() or "noproxy" in n.lower()]')" = "[]" ]
	done
	run sbx -- explain --platform linux --json --allow-domain example.com --allow-local-binding -- true
	[ "$(jget "$output" '[n for n in j["environment"] if "no_proxy" in n.lower() or "noproxy" in n.lower()]')" = '["BUNDLE_NO_PROXY", "NO_PROXY", "NPM_CONFIG_NOPROXY", "YARN_NO_PROXY", "bundle_no_proxy", "no_proxy", "npm_config_noproxy", "yarn_no_proxy"]' ]
	run sbx NO_PROXY='*' http_proxy=http://127.0.0.1:3128 -- explain --platform linux --json \
		--managed-network -- true
	[ "$(jget "$output" '[n for n in j["environment"] if "no_proxy" in n.lower()]')" = '["NO_PROXY"]' ]
	run sbx npm_config_http_proxy=http://127.0.0.1:3128 -- explain --platform linux --json \
		--managed-network -- true
	[ "$(jget "$output" '[n for n in j["environment"] if "npm_config" in n.lower()]')" = '["npm_config_http_proxy"]' ]
	run --separate-stderr sbx -- --allow-domain 'exa mple.com' -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "sbxrun: --allow-domain: "* ]]
	run --separate-stderr sbx -- --allow-domain '*' -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	run --separate-stderr sbx -- --deny-domain example.com -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "sbxrun: --deny-domain: only with --allow-domain (sbxrun's own proxy); hint: name the hosts the command may reach with --allow-domain" ]
	run --separate-stderr sbx -- --network-log "$WS/log" -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	run --separate-stderr sbx HTTPS_PROXY=http://127.0.0.1:3128 -- --managed-network \
		--allow-domain example.com -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == *"give one of them"* ]]
	[ ! -e "$WS/canary" ]
	# Windows: managed networking needs the elevated backend.
	run sbx -- explain --platform windows --json --allow-domain example.com -- true
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	# Options of run and explain only.
	run sbx -- access --allow-domain example.com "$WS"
	[ "$status" -eq 125 ]
}

@test "--allow-private-addresses: with --allow-domain only; explain shows it; passed to the helper" {
	run sbx -- explain --platform linux --json --allow-domain npm.corp.example:443 \
		--allow-private-addresses -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" '[r["rule"] + " = " + r["mechanism"] for r in j["requirements"] if r["rule"].startswith("managed")][0]')" = "managed network: only through sbxrun's proxy, to npm.corp.example:443; allowed names may lead to private addresses = seccomp+network-namespace" ]
	[ "$(jget "$output" '"--allow-private-addresses" in j["argv"]')" = true ]
	# The control: without it, neither the rule nor the helper's command line says it.
	run sbx -- explain --platform linux --json --allow-domain npm.corp.example:443 -- true
	[ "$(jget "$output" '[r["rule"] for r in j["requirements"] if r["rule"].startswith("managed")][0]')" = "managed network: only through sbxrun's proxy, to npm.corp.example:443" ]
	[ "$(jget "$output" '"--allow-private-addresses" in j["argv"]')" = false ]
	run sbx -- explain --platform macos --json --allow-domain npm.corp.example \
		--allow-private-addresses -- true
	[ "$status" -eq 0 ]
	[[ "$(rules_json "$output")" == *"; allowed names may lead to private addresses"* ]]
	# Refused without --allow-domain, as --deny-domain and --network-log are: nothing runs.
	run --separate-stderr sbx -- --allow-private-addresses -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "sbxrun: --allow-private-addresses: only with --allow-domain (sbxrun's own proxy); hint: name the hosts the command may reach with --allow-domain" ]
	[ ! -e "$WS/canary" ]
	run --separate-stderr sbx -- explain --allow-private-addresses -- true
	[ "$status" -eq 125 ]
	[[ "${stderr_lines[0]}" == "sbxrun: --allow-private-addresses: only with --allow-domain"* ]]
	# The helper refuses it alone too; the control: with --allow-domain it gets further.
	ln -s "$SBXRUN" "$BATS_TEST_TMPDIR/sbxrun-linux-sandbox"
	run --separate-stderr "$BATS_TEST_TMPDIR/sbxrun-linux-sandbox" --sandbox-policy-cwd "$WS" \
		--permission-profile '{"type":"disabled"}' --allow-private-addresses -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "sbxrun: --allow-private-addresses: only with --allow-domain" ]
	run --separate-stderr "$BATS_TEST_TMPDIR/sbxrun-linux-sandbox" --sandbox-policy-cwd "$WS" \
		--permission-profile '{"type":"disabled"}' --allow-domain x.example \
		--allow-private-addresses -- true
	[[ "$stderr" != *"only with --allow-domain"* ]]
	# A flag: no value.
	run --separate-stderr sbx -- --allow-domain x.example --allow-private-addresses=1 -- true
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "sbxrun: option '--allow-private-addresses' takes no value" ]
	# Windows refuses it as it refuses --allow-domain: managed networking needs the elevated backend.
	run sbx -- explain --platform windows --json --allow-domain x.example --allow-private-addresses -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	[ "$(jget "$output" '[r["rule"] for r in j["requirements"] if r["rule"].startswith("managed")][0]')" = "managed network: only through sbxrun's proxy, to x.example; allowed names may lead to private addresses" ]
	[[ "$(jget "$output" '[r["why"] for r in j["requirements"] if r["rule"].startswith("managed")][0]')" == "managed networking requires the elevated Windows sandbox backend"* ]]
	run sbx -- explain --platform windows --json --allow-domain x.example -- true
	[[ "$(jget "$output" '[r["why"] for r in j["requirements"] if r["rule"].startswith("managed")][0]')" == "managed networking requires the elevated Windows sandbox backend"* ]]
	# Options of run and explain (and proxy) only.
	run --separate-stderr sbx -- access --allow-private-addresses "$WS"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "sbxrun: access: option '--allow-private-addresses' does not apply here" ]
	run "$SBXRUN" --help
	[[ "$output" == *"--allow-private-addresses"* ]]
}

@test "Windows: managed networking in Codex's words, the socket allow-list refused" {
	run sbx HTTPS_PROXY=http://127.0.0.1:3128 -- explain --platform windows --json --managed-network -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	[[ "$(req "$output" 'managed network: connect only to the proxies at 127.0.0.1:3128' why)" == "managed networking requires the elevated Windows sandbox backend"* ]]
	run sbx HTTPS_PROXY=http://127.0.0.1:3128 -- explain --platform windows --json --managed-network --profile :danger-full-access -- true
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	[[ "$(jget "$output" 'j["requirements"][0]["why"]')" == "managed networking requires the elevated Windows sandbox backend"* ]]
	run sbx -- explain --platform windows --json --allow-unix-socket 'C:\run\a.sock' -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["enforceable"]')" = false ]
	[[ "$(req "$output" 'connect to Unix socket C:\\run\\a.sock' why)" == *"cannot keep Unix sockets to an allow-list"* ]]
}

@test "the options belong to run and explain only, and --help names them" {
	run --separate-stderr sbx -- access --allow-local-binding "$WS"
	[ "$status" -eq 125 ]
	[ "${stderr_lines[0]}" = "sbxrun: access: option '--allow-local-binding' does not apply here" ]
	run --separate-stderr sbx -- context --allow-unix-socket /run/a.sock
	[ "$status" -eq 125 ]
	run "$SBXRUN" --help
	[[ "$output" == *"--allow-unix-socket PATH"* ]]
	[[ "$output" == *"--allow-local-binding"* ]]
}
