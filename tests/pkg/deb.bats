#!/usr/bin/env bats
# The package, installed for real by dpkg: tests/pkg/run runs this file in a mount namespace
# whose /usr, /etc and /var are overlays, so nothing reaches the host. The tests run in order
# and share the system state: install, use, remove, purge.

load common

setup_file() {
	: "${DEB:?set DEB to the package}"
	# What the file system holds before: after the purge it must hold exactly this again.
	find /usr /etc -xdev 2>/dev/null | LC_ALL=C sort >"$SCRATCH/before"
}

@test "dpkg -i installs the package" {
	run dpkg -i "$DEB"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(dpkg-query -W -f='${Status}' sbxrun)" = "install ok installed" ]
	# Where AppArmor is not active (this machine), the postinst loads nothing and says nothing.
	[[ "$output" != *"could not load"* ]]
}

@test "the files are where Debian puts them" {
	run dpkg -L sbxrun
	for f in /usr/bin/sbxrun /usr/bin/sbxrun-linux-sandbox /usr/share/man/man1/sbxrun.1.gz \
		/usr/share/man/man1/sbxrun-linux-sandbox.1.gz /usr/share/man/man5/sbxrun-profile.5.gz \
		/usr/share/bash-completion/completions/sbxrun /usr/share/zsh/vendor-completions/_sbxrun \
		/usr/share/sbxrun/profile.schema.json /etc/apparmor.d/sbxrun \
		/usr/share/doc/sbxrun/copyright /usr/share/doc/sbxrun/changelog.Debian.gz; do
		grep -qx "$f" <<<"$output" || { echo "missing: $f" >&2; return 1; }
		[ -e "$f" ]
	done
	[ "$(readlink /usr/bin/sbxrun-linux-sandbox)" = sbxrun ]
	[ "$(dpkg-query -W -f='${Conffiles}' sbxrun | awk '{print $1}')" = /etc/apparmor.d/sbxrun ]
	zcat /usr/share/man/man1/sbxrun.1.gz | mandoc -Tlint -W warning
	zcat /usr/share/man/man5/sbxrun-profile.5.gz | grep -q profile.schema.json
	dpkg --verify sbxrun
}

@test "the installed sbxrun runs a command confined, as root and as uid 65534" {
	make_checkout
	run sh -c "cd '$CHECKOUT' && sbxrun -- true"
	[ "$status" -eq 0 ]
	run setpriv --reuid=65534 --regid=65534 --clear-groups -- \
		sh -c "cd '$CHECKOUT' && sbxrun -- sh -c 'echo ok >out && ! touch .git/hook'"
	[ "$status" -eq 0 ]
	[ "$(cat "$CHECKOUT/out")" = ok ]
	[ ! -e "$CHECKOUT/.git/hook" ]
	run sbxrun explain --json -- true
	[[ "$output" == *'"/usr/bin/sbxrun"'* ]]
	[ "$(sbxrun --version)" = "sbxrun $(dpkg-query -W -f='${Version}' sbxrun | sed 's/-[^-]*$//')" ]
}

@test "the installed completions pass the completion tests" {
	run env SBXRUN=/usr/bin/sbxrun \
		SBX_BASH_COMPLETION=/usr/share/bash-completion/completions/sbxrun \
		SBX_ZSH_COMPLETION=/usr/share/zsh/vendor-completions/_sbxrun \
		bats --tap "$SRC/tests/cli/completion.bats"
	echo "$output"
	[ "$status" -eq 0 ]
	# bash-completion finds the script by the command's name, as in a login shell.
	run bash --norc -c '. /usr/share/bash-completion/bash_completion;
		__load_completion sbxrun && complete -p sbxrun'
	[ "$output" = "complete -F _sbxrun sbxrun" ]
}

@test "the installed schema passes the schema tests" {
	run env SBXRUN=/usr/bin/sbxrun SBX_SCHEMA=/usr/share/sbxrun/profile.schema.json \
		"$SRC/tests/schema/check"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "restricted, the installed sbxrun: its profile lets it make namespaces, or probe says why not" {
	if [ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]; then
		# AppArmor is active here: the postinst loaded the profile, and under the
		# restriction the installed sbxrun still makes its mount namespace.
		run as_restricted sbxrun probe --json
		[ "$status" -eq 0 ]
		[[ "$output" == *'"mount_namespace": true'* ]]
		return
	fi
	# No AppArmor here: the profile is installed but nothing loaded it.
	run blocked_by /usr/bin/sbxrun
	[ "$output" = "False AppArmor (kernel.apparmor_restrict_unprivileged_userns=1); /etc/apparmor.d/sbxrun is not loaded (apparmor_parser -r /etc/apparmor.d/sbxrun)" ]
	make_checkout
	run as_restricted sh -c "cd '$CHECKOUT' && exec sbxrun -- touch ran"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == *"user namespaces are blocked by AppArmor (kernel.apparmor_restrict_unprivileged_userns=1); /etc/apparmor.d/sbxrun is not loaded (apparmor_parser -r /etc/apparmor.d/sbxrun);"* ]]
	[[ "${lines[0]}" == *"; hint: allow unprivileged user namespaces (for AppArmor: the sbxrun package's profile"* ]]
	[ ! -e "$CHECKOUT/ran" ]
	# What does not need a mount namespace still runs (the positive control).
	run as_restricted sh -c "cd '$CHECKOUT' && exec sbxrun --profile :read-only -- true"
	[ "$status" -eq 0 ]
}

@test "dpkg -r leaves only the AppArmor profile, a conffile" {
	run dpkg -r sbxrun
	[ "$status" -eq 0 ]
	[ "$(dpkg-query -W -f='${Status}' sbxrun)" = "deinstall ok config-files" ]
	[ ! -e /usr/bin/sbxrun ]
	[ ! -L /usr/bin/sbxrun-linux-sandbox ]
	[ -e /etc/apparmor.d/sbxrun ]
}

@test "dpkg --purge leaves nothing" {
	run dpkg --purge sbxrun
	[ "$status" -eq 0 ]
	run dpkg-query -W sbxrun
	[ "$status" -ne 0 ]
	find /usr /etc -xdev 2>/dev/null | LC_ALL=C sort >"$SCRATCH/after"
	run diff "$SCRATCH/before" "$SCRATCH/after"
	echo "$output"
	[ "$status" -eq 0 ]
}
