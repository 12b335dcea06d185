#!/usr/bin/env bats
# Workspace write: the workspace writable except its .git, /tmp and $TMPDIR writable, the rest
# of the file system read-only, the network restricted.
load common

uses_outside
setup() {
	outside_vars
	PROFILE=$(profile restricted $(workspace_entries))
}

@test "write, append, truncate inside the workspace (control) and outside (EROFS)" {
	expect OK write "$WS/new.txt"
	expect OK append "$WS/file.txt"
	expect OK truncate "$WS/new.txt"
	outside write "$OUT/host.txt"
	expect EROFS write "$OUT/new.txt"
	expect EROFS append "$OUT/file.txt"
	expect EROFS truncate "$OUT/file.txt"
	[ "$(cat "$OUT/file.txt")" = outside ]
}

@test "chmod, chown, utimes: allowed inside, EROFS outside" {
	expect OK chmod "$WS/file.txt"
	expect OK chown "$WS/file.txt"
	expect OK utimes "$WS/file.txt"
	outside chmod "$OUT/file.txt"
	expect EROFS chmod "$OUT/file.txt"
	expect EROFS chown "$OUT/file.txt"
	expect EROFS utimes "$OUT/file.txt"
}

@test "mkfifo, mknod, mkdir, symlink: allowed inside, EROFS outside" {
	expect OK mkfifo "$WS/fifo"
	expect OK mknod "$WS/node"
	expect EROFS mkfifo "$OUT/fifo"
	expect EROFS mknod "$OUT/node"
	expect EROFS mkdir "$OUT/d"
	expect EROFS symlink /etc "$OUT/link"
	expect EPERM mknod-dev "$WS/null"
}

@test "renames and hard links into and out of the workspace are refused" {
	expect OK rename "$WS/movable.txt" "$WS/moved.txt"
	expect OK link "$WS/file.txt" "$WS/hard.txt"
	expect EXDEV rename "$WS/moved.txt" "$OUT/moved.txt"
	expect EXDEV rename "$OUT/movable.txt" "$WS/in.txt"
	expect EROFS link "$WS/file.txt" "$OUT/hard.txt"
	expect EXDEV link "$OUT/file.txt" "$WS/hard2.txt"
	[ -e "$OUT/movable.txt" ]
	[ ! -e "$WS/in.txt" ]
}

@test "a symlink out of the workspace does not make the outside writable" {
	expect OK symlink "$OUT" "$WS/escape"
	expect EROFS write "$WS/escape/through-link.txt"
	[ ! -e "$OUT/through-link.txt" ]
}

@test "writes through /proc/self/root and /proc/self/cwd" {
	expect OK write "/proc/self/cwd/via-cwd.txt"
	expect OK write "/proc/self/root$WS/via-root.txt"
	expect EROFS write "/proc/self/root$OUT/via-root.txt"
}

@test ".git/config and .git/hooks are read-only; git status and git diff work" {
	expect EROFS append "$WS/.git/config"
	expect EROFS write "$WS/.git/hooks/pre-commit"
	expect EROFS chmod "$WS/.git/config"
	run sbx git -C "$WS" status --short
	[ "$status" -eq 0 ]
	[[ "$output" == *"file.txt"* ]]
	run sbx git -C "$WS" diff
	[ "$status" -eq 0 ]
	[[ "$output" == *"+change"* ]]
	[ ! -e "$WS/.git/hooks/pre-commit" ]
}

@test "/tmp and \$TMPDIR are writable" {
	expect OK write "$TMPDIR/t.txt"
	run sbx sh -c 'f=$(mktemp /tmp/sbx.XXXXXX) && echo x >"$f" && rm "$f"'
	[ "$status" -eq 0 ]
}

@test "network restricted: TCP v4/v6, UDP, unix path and abstract sockets, netlink, raw" {
	outside tcp4 "$TCP4"
	outside tcp6 "$TCP6"
	outside udp4 "$UDP4"
	outside unix "$SOCKDIR/s"
	outside abstract "$ABSTRACT"
	expect EPERM tcp4 "$TCP4"
	expect EPERM tcp6 "$TCP6"
	expect EPERM udp4 "$UDP4"
	expect EPERM unix "$SOCKDIR/s"
	expect EPERM abstract "$ABSTRACT"
	expect EPERM netlink
	expect EPERM raw
	expect OK socketpair
	run sbx sh -c 'echo piped | cat'
	[ "$output" = piped ]
	run sbx env
	[[ "$output" == *"SBXRUN_SANDBOX=linux-seccomp"* ]]
	[[ "$output" == *"SBXRUN_NETWORK_DISABLED=1"* ]]
}
