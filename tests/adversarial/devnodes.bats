#!/usr/bin/env bats
# A device node opens the host's device wherever it lies: the dev/ of an image or chroot tree
# that root built in a workspace (debootstrap, an image builder, a container's root file system
# unpacked as root), or one in a tree that is only readable. The private /dev is the allow-list
# of devices: no other node may open in the sandbox, written or read, as root or as any user.
# The command cannot make a node (no CAP_MKNOD): the nodes are the host's, made by root before
# the runs (the enforcement driver's fixtures), and run 1 can only give them other names.
load common

setup() {
	make_layout_vars
	IMG=$WORK/image-ws
	NODES=$IMG/rootfs/dev
	RO_NODES=$FIXTURES/image/dev
	SBX_CWD=$IMG
	PROFILE=$(profile restricted $(workspace_entries))
	MOVED=$IMG/kmsg-moved
}
# Run 1's new name of a node, given back for the next case.
teardown() {
	if [ -e "$MOVED" ]; then
		mv "$MOVED" "$NODES/kmsg"
	fi
}

@test "a device node in a workspace's image tree, or in a readable tree, does not open" {
	# Positive controls: outside the sandbox every node opens; inside, the private /dev's do.
	outside read "$NODES/null"
	outside write "$NODES/null"
	outside open-wr "$NODES/kmsg"
	outside read "$RO_NODES/null"
	outside open-wr "$RO_NODES/kmsg"
	expect OK read /dev/null
	expect OK write /dev/null
	# Run 1 cannot make a node of its own; it gives root's another name in its workspace.
	expect EPERM mknod-dev "$IMG/own-null"
	expect OK rename "$NODES/kmsg" "$MOVED"
	[ -c "$MOVED" ]
	# Run 2: no node outside the private /dev opens, under any of its names. /dev/kmsg is not
	# in the allow-list: the private /dev has no such name.
	expect ENOENT open-wr /dev/kmsg
	expect EACCES open-wr "$MOVED"
	expect EACCES read "$NODES/null"
	expect EACCES write "$NODES/null"
	expect EACCES read "$RO_NODES/null"
	# The same without a PID namespace (the supervisor's clone refused): the mount namespace
	# and its private /dev are still there.
	fexpect clone EACCES open-wr "$MOVED"
	fexpect clone EACCES read "$RO_NODES/null"
	fexpect clone OK write /dev/null
}

@test "without a mount namespace a node elsewhere stays reachable, and explain says so" {
	# Landlock has no right for opening a device, only for its ioctls: a node in a granted tree
	# opens as its mode allows. explain names that limit on the devices requirement.
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" explain --cwd "$IMG" --profile :read-only
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"no host device node reachable but the allow-list"*"landlock"*"enforced"* ]]
	local limit="a node of a device elsewhere (an image's dev/ in a readable or writable root)"
	[[ "$output" == *"$limit opens as its mode allows"* ]]
	# access says what the run finds there: the node under the granted tree opens, as read.
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" access --cwd "$IMG" --profile :read-only \
		"$NODES/null"
	echo "$output"
	[ "$output" = "read   $NODES/null  (entries[0]: read :root)" ]
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" --cwd "$IMG" --profile :read-only -- \
		"$P" read "$NODES/null"
	[ "$output" = OK ]
	# Control: with the mount namespace, the requirement carries no such note.
	run "$BIN/sbxrun" explain --cwd "$IMG" --profile :read-only
	[ "$status" -eq 0 ]
	[[ "$output" != *"a node of a device elsewhere"* ]]
}

# A grant that names a device node outside /dev (to read it, to write it, or to read it in a
# writable root) cannot be kept as it reads: the node does not open in the sandbox (nodev), and
# without a mount namespace Landlock would let it open. run refuses it by name, explain shows it
# unenforceable for the same reason, and access says a node under a granted tree is denied: the
# three agree, with or without a mount namespace.
@test "a grant of a device node outside /dev refuses the run, as explain and access say" {
	local why="is a device node outside /dev: the sandbox opens no device but those of its own /dev (every other mount is nodev)"
	local hint="open the device at its name in /dev (the allow-list), or drop the rule"
	new_canary "$IMG"
	outside read "$NODES/null"
	# Run 1 gives root's node a new name in its workspace.
	expect OK rename "$NODES/kmsg" "$MOVED"
	# Run 2 grants it by that name: refused, nothing run.
	run "$BIN/sbxrun" -C "$IMG" --read "$MOVED" -- touch "$CANARY"
	refused "sbxrun: cannot enforce \"read-only $MOVED\" on linux: $MOVED $why"
	[ "${lines[0]#*; hint: }" = "$hint" ]
	run "$BIN/sbxrun" -C "$IMG" -p :read-only --write "$NODES/null" -- touch "$CANARY"
	refused "sbxrun: cannot enforce \"write $NODES/null\" on linux: $NODES/null $why"
	# Also where a wider grant reads it already (:read-only reads /): the rule is the caller's.
	run "$BIN/sbxrun" -C "$IMG" -p :read-only --read "$MOVED" -- touch "$CANARY"
	refused "sbxrun: cannot enforce \"read $MOVED\" on linux: $MOVED $why"
	run "$BIN/sbxrun" explain -C "$IMG" -p :read-only --read "$NODES/null" -- true
	[[ "$output" == *"read $NODES/null "*"none "*"unenforceable"* ]]
	# Control: the tree that holds them, granted by its name, runs (its nodes do not open).
	run "$BIN/sbxrun" -C "$IMG" -p :read-only --read "$NODES" -- "$P" read "$NODES/null"
	[ "$output" = EACCES ]
	# The same without a mount namespace, where the node would open.
	run "$BIN/failinj" unshare -- "$BIN/sbxrun" -C "$IMG" -p :read-only --write "$NODES/null" \
		-- touch "$CANARY"
	refused "sbxrun: cannot enforce \"write $NODES/null\" on linux: $NODES/null $why"
	# explain says the same of the grant; access of the node under a granted tree says deny.
	run "$BIN/sbxrun" explain -C "$IMG" -p :read-only --write "$NODES/null" -- true
	echo "$output"
	[[ "$output" == *"write $NODES/null "*"none "*"unenforceable"* ]]
	[[ "$output" == *"this path $why; hint: $hint"* ]]
	run "$BIN/sbxrun" access -C "$IMG" "$NODES/null" "$MOVED" "$IMG/rootfs"
	echo "$output"
	[ "${lines[0]}" = "deny   $NODES/null  (a device node outside /dev: the sandbox opens none but those of its own /dev)" ]
	[ "${lines[1]}" = "deny   $MOVED  (a device node outside /dev: the sandbox opens none but those of its own /dev)" ]
	[[ "${lines[2]}" == "write  $IMG/rootfs  ("* ]]
	# And it is what run finds: the node under the granted tree does not open (EACCES).
	run "$BIN/sbxrun" -C "$IMG" -- "$P" read "$NODES/null"
	[ "$output" = EACCES ]
	# Positive control: the allow-list's node, granted at its name in /dev, runs and opens.
	run "$BIN/sbxrun" -C "$IMG" -p :read-only --read /dev/null -- "$P" read /dev/null
	[ "$status" -eq 0 ]
	[ "$output" = OK ]
}
