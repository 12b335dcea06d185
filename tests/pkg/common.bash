# Shared helpers of the package tests (run as root by tests/pkg/run).

SRC=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# as_restricted [--apparmor-d DIR] CMD...: CMD as uid 65534 on a simulated Ubuntu: in a mount
# namespace of its own, /proc/sys/kernel holds apparmor_restrict_unprivileged_userns=1 (a
# tmpfs with that one file: Debian's kernel has no such sysctl), and DIR, when given, stands
# for /etc/apparmor.d. Without AppArmor in the kernel the process reads as unconfined, as it
# does on Ubuntu without the sbxrun profile loaded.
as_restricted() {
	local dir=
	if [ "$1" = --apparmor-d ]; then
		dir=$2
		shift 2
	fi
	unshare --mount --propagation private -- sh -c '
		mount -t tmpfs -o size=16k,mode=0755 sbxrun-test /proc/sys/kernel &&
		echo 1 >/proc/sys/kernel/apparmor_restrict_unprivileged_userns &&
		if [ -n "$0" ]; then mount --bind "$0" /etc/apparmor.d; fi &&
		exec setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"' "$dir" "$@"
}

# A git checkout uid 65534 owns: under :workspace its .git is a read-only carve-out, which
# needs the mount namespace the restriction takes away.
make_checkout() {
	CHECKOUT=$(mktemp -d /tmp/sbxrun-pkg-ws.XXXXXX)
	mkdir -p "$CHECKOUT/.git"
	chown -R 65534:65534 "$CHECKOUT"
	chmod 0755 "$CHECKOUT"
}

# blocked_by [--apparmor-d DIR] SBXRUN: whether `sbxrun probe --json` finds user namespaces
# usable and what it says blocks them, restricted.
blocked_by() {
	as_restricted "$@" probe --json | python3 -c 'import json,sys
j=json.load(sys.stdin); print(j["user_namespaces"], j["user_namespaces_blocked_by"])'
}

# A checkout is outside the test's temporary directory (which uid 65534 cannot enter): removed
# here, whether the test passed or not.
teardown() {
	if [ -n "${CHECKOUT:-}" ]; then
		rm -rf "$CHECKOUT"
	fi
}
