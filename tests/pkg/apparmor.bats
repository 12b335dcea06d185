#!/usr/bin/env bats
# The AppArmor profile (platform/linux/apparmor/sbxrun) and what sbxrun says where AppArmor
# restricts user namespaces, for a copy of sbxrun that is not /usr/bin/sbxrun. The installed
# binary is tested by deb.bats.

load common

PROFILE="$SRC/platform/linux/apparmor/sbxrun"

# A copy of the build's sbxrun that uid 65534 can run (the build tree may be closed to it).
setup_file() {
	export COPY_DIR
	COPY_DIR=$(mktemp -d /tmp/sbxrun-pkg-bin.XXXXXX)
	chmod 0755 "$COPY_DIR"
	cp "$SBXRUN" "$COPY_DIR/sbxrun"
	ln -s sbxrun "$COPY_DIR/sbxrun-linux-sandbox"
	export SBXRUN=$COPY_DIR/sbxrun
}

teardown_file() { rm -rf "$COPY_DIR"; }

@test "the AppArmor profile grants /usr/bin/sbxrun userns and nothing else" {
	# The rules, comments and blank lines aside: the abi, the tunables, one unconfined
	# profile attached to the installed path, holding the userns rule and the local include.
	run sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e 's/^[[:space:]]*//' "$PROFILE"
	[ "$status" -eq 0 ]
	want='abi <abi/4.0>,
include <tunables/global>
profile sbxrun /usr/bin/sbxrun flags=(unconfined) {
userns,
include if exists <local/sbxrun>
}'
	[ "$output" = "$want" ] || { printf 'got:\n%s\n' "$output" >&2; return 1; }
}

@test "apparmor_parser accepts the AppArmor profile" {
	command -v apparmor_parser
	if [ -e /etc/apparmor.d/abi/4.0 ]; then
		run apparmor_parser -Q -K "$PROFILE"
	else
		# AppArmor 3 (Debian 12) knows neither the 4.0 abi nor the userns rule: the rest of
		# the profile is checked, and the test says what was not.
		echo "# apparmor_parser $(apparmor_parser --version | head -n 1 | grep -o '[0-9.]*$'): no AppArmor 4 abi; userns rule not parsed" >&3
		sed -e 's#abi <abi/4.0>#abi <abi/3.0>#' -e '/^[[:space:]]*userns,/d' "$PROFILE" \
			>"$BATS_TEST_TMPDIR/sbxrun"
		run apparmor_parser -Q -K "$BATS_TEST_TMPDIR/sbxrun"
	fi
	echo "$output"
	[ "$status" -eq 0 ]
	# The parser refuses a broken profile (a positive control for the check above).
	printf 'profile broken /usr/bin/sbxrun {\n  userns\n' >"$BATS_TEST_TMPDIR/broken"
	run apparmor_parser -Q -K "$BATS_TEST_TMPDIR/broken"
	[ "$status" -ne 0 ]
}

@test "restricted, no profile installed: probe and the refusal say so and name the fix" {
	make_checkout
	mkdir -p "$BATS_TEST_TMPDIR/aa"
	run blocked_by --apparmor-d "$BATS_TEST_TMPDIR/aa" "$SBXRUN"
	[ "$output" = "False AppArmor (kernel.apparmor_restrict_unprivileged_userns=1); no sbxrun AppArmor profile (install the sbxrun package)" ]
	run as_restricted --apparmor-d "$BATS_TEST_TMPDIR/aa" sh -c "cd '$CHECKOUT' && exec '$SBXRUN' -- touch ran"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"no mount namespace can be made: user namespaces are blocked by AppArmor (kernel.apparmor_restrict_unprivileged_userns=1); no sbxrun AppArmor profile (install the sbxrun package);"* ]]
	[[ "${lines[0]}" == *"; hint: allow unprivileged user namespaces (for AppArmor: the sbxrun package's profile, or sysctl kernel.apparmor_restrict_unprivileged_userns=0), or run as root" ]]
	[ ! -e "$CHECKOUT/ran" ]
}

@test "restricted, profile installed, another copy of sbxrun: probe names the installed path" {
	mkdir -p "$BATS_TEST_TMPDIR/aa"
	cp "$PROFILE" "$BATS_TEST_TMPDIR/aa/sbxrun"
	chmod -R a+rX "$BATS_TEST_TMPDIR/aa"
	run blocked_by --apparmor-d "$BATS_TEST_TMPDIR/aa" "$SBXRUN"
	[ "$output" = "False AppArmor (kernel.apparmor_restrict_unprivileged_userns=1); the sbxrun AppArmor profile covers /usr/bin/sbxrun only" ]
}

@test "not restricted, the same copy makes its mount namespace (the positive control)" {
	make_checkout
	run setpriv --reuid=65534 --regid=65534 --clear-groups -- sh -c \
		"cd '$CHECKOUT' && '$SBXRUN' probe --json"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"user_namespaces_blocked_by": null'* ]]
	[[ "$output" == *'"mount_namespace": true'* ]]
}
