#!/usr/bin/env bats
# The command's environment: --env-clear, --env-keep, --env-deny, --env-deny-secrets,
# --env-offline, --env-set; what explain lists; the TMPDIR that is planned with.
# (Through the Linux helper, as root and as nobody: tests/enforce/quick.bats.)

load helpers

setup() { setup_ws; cd "$WS"; }

# The names the command sees (from a known environment), sorted, on one line.
seen() {
	env -i A=1 GH_TOKEN=t AWS_REGION=r aws_secret=s "$SBXRUN" --sandbox forbid "$@" -- \
		/usr/bin/env | cut -d= -f1 | sort | tr '\n' ' '
}

@test "by default the environment passes through untouched" {
	run env -i A=1 GH_TOKEN=t PATH="$PATH" "$SBXRUN" --sandbox forbid -- /usr/bin/env
	[ "$status" -eq 0 ]
	[ "$output" = "A=1
GH_TOKEN=t
PATH=$PATH" ]
}

@test "--env-clear, --env-keep (patterns, case ignored), --env-deny, --env-set in order" {
	[ "$(seen --env-clear)" = "" ]
	[ "$(seen --env-clear --env-set X=1)" = "X " ]
	[ "$(seen)" = "A AWS_REGION GH_TOKEN aws_secret " ]
	[ "$(seen --env-keep 'aws_*' --env-keep a)" = "A AWS_REGION aws_secret " ]
	# deny beats keep; set beats deny
	[ "$(seen --env-keep 'aws_*' --env-deny '*SECRET*')" = "AWS_REGION " ]
	[ "$(seen --env-clear --env-deny 'X' --env-set X=2)" = "X " ]
	run env -i A=1 B=2 "$SBXRUN" --sandbox forbid --env-set 'A=x=y' --env-set B= -- /usr/bin/env
	[ "$output" = "A=x=y
B=" ]
}

@test "--env-deny-secrets removes Codex's default excludes: *KEY*, *SECRET*, *TOKEN*" {
	run env -i PATH="$PATH" API_KEY=k GH_TOKEN=t my_secret=s KEEP=1 \
		"$SBXRUN" --sandbox forbid --env-deny-secrets -- /usr/bin/env
	[ "$output" = "PATH=$PATH
KEEP=1" ]
}

@test "--env-offline only where sbxrun keeps the network from the command" {
	run "$SBXRUN" explain --json --env-offline -- true
	[ "$(jget "$output" '[n for n in j["environment"] if n in ("npm_config_offline","PIP_NO_INDEX","CARGO_NET_OFFLINE","GOPROXY")]')" = '["CARGO_NET_OFFLINE", "GOPROXY", "PIP_NO_INDEX", "npm_config_offline"]' ]
	run "$SBXRUN" explain --json --env-offline --network -- true
	[ "$(jget "$output" '[n for n in j["environment"] if n == "GOPROXY"]')" = '[]' ]
	[ "$(seen -p :read-only --env-clear --env-offline)" = "" ]
}

@test "bad --env-* values are refused: 125, nothing runs" {
	run "$SBXRUN" --env-set NOEQUALS -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: --env-set: invalid value 'NOEQUALS' (expected NAME=VALUE)" ]
	run "$SBXRUN" --env-set =x -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	run "$SBXRUN" --env-keep '' -- touch "$WS/canary"
	[ "$status" -eq 125 ]
	[ "${lines[0]}" = "sbxrun: --env-keep: empty pattern" ]
	run "$SBXRUN" --env-deny
	[ "$status" -eq 125 ]
	run "$SBXRUN" probe --env-clear
	[ "$status" -eq 125 ]
	[ ! -e "$WS/canary" ]
}

@test "explain lists the names the command will see, sorted, never the values" {
	run env -i PATH="$PATH" ZED=secret-value A=1 "$SBXRUN" explain --json -- true
	[ "$status" -eq 0 ]
	[ "$(jget "$output" 'j["environment"]')" = '["A", "PATH", "SBXRUN_NETWORK_DISABLED", "SBXRUN_SANDBOX", "ZED"]' ]
	[[ "$output" != *secret-value* ]]
	run env -i PATH="$PATH" A=1 "$SBXRUN" explain --json --network --env-deny PATH -- true
	[ "$(jget "$output" 'j["environment"]')" = '["A", "SBXRUN_SANDBOX"]' ]
	# No sandbox: exactly what is passed on.
	run env -i A=1 "$SBXRUN" explain --json -p :danger-full-access -- true
	[ "$(jget "$output" 'j["environment"]')" = '["A"]' ]
	run env -i A=1 ZED=secret-value "$SBXRUN" explain -p :danger-full-access -- true
	[[ "$output" == *"environment:       2 variables"*"A ZED"* ]]
	[[ "$output" != *secret-value* ]]
}

@test "the plan is made with the TMPDIR the command will see" {
	mkdir -p "$WS/t1" "$WS/t2"
	run env TMPDIR="$WS/t1" "$SBXRUN" explain --json -p :workspace -C "$WS/src" -- true
	[ "$(jget "$output" '"write '"$WS"'/t1" in [r["rule"] for r in j["requirements"]]')" = true ]
	run env TMPDIR="$WS/t1" "$SBXRUN" explain --json -C "$WS/src" --env-set TMPDIR="$WS/t2" -- true
	[ "$(jget "$output" '[r["rule"] for r in j["requirements"] if r["rule"].startswith("write '"$WS"'/t")]')" = "[\"write $WS/t2\"]" ]
	run env TMPDIR="$WS/t1" "$SBXRUN" explain --json -C "$WS/src" --env-clear -- true
	[ "$(jget "$output" '[r["rule"] for r in j["requirements"] if r["rule"].startswith("write '"$WS"'/t")]')" = "[]" ]
}

@test "--managed-network reads the proxies from the environment made for the command" {
	run env HTTPS_PROXY=http://127.0.0.1:3128 "$SBXRUN" explain --json --managed-network \
		--env-set HTTPS_PROXY=http://127.0.0.1:3129 -- true
	[ "$status" -eq 0 ]
	[[ "$(jget "$output" '[r["rule"] for r in j["requirements"]]')" == *"127.0.0.1:3129"* ]]
	[[ "$(jget "$output" '[r["rule"] for r in j["requirements"]]')" != *"127.0.0.1:3128"* ]]
	# Cleared away, there is none: refused, as without any proxy variable.
	run env HTTPS_PROXY=http://127.0.0.1:3128 "$SBXRUN" explain --managed-network --env-clear -- true
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "sbxrun: managed networking needs a proxy, and no proxy variable is set"* ]]
	# No offline variables there: the proxies serve the package managers.
	run env HTTPS_PROXY=http://127.0.0.1:3128 "$SBXRUN" explain --json --managed-network --env-offline -- true
	[ "$(jget "$output" '[n for n in j["environment"] if n == "GOPROXY"]')" = '[]' ]
}
