#!/usr/bin/env bats
# Read-only: the whole file system readable, nothing writable, the network restricted.
load common

setup_file() { make_layout; }
setup() {
	make_layout_vars
	PROFILE=$(profile restricted $(entry_special root read))
}

@test "read-only: reads work, every kind of write is refused with EROFS" {
	expect OK read "$WS/file.txt"
	expect OK read /etc/passwd
	outside write "$WS/host.txt"
	expect EROFS write "$WS/new.txt"
	expect EROFS append "$WS/file.txt"
	expect EROFS truncate "$WS/file.txt"
	expect EROFS chmod "$WS/file.txt"
	expect EROFS chown "$WS/file.txt"
	expect EROFS utimes "$WS/file.txt"
	expect EROFS mkfifo "$WS/fifo"
	expect EROFS mknod "$WS/node"
	expect EROFS mkdir "$WS/dir"
	expect EROFS symlink /etc "$WS/link"
	expect EROFS rename "$WS/movable.txt" "$WS/moved.txt"
	expect EROFS link "$WS/file.txt" "$WS/hard.txt"
	expect EROFS write "$TMPDIR/t.txt"
	expect EROFS write "/tmp/sbx-ro-$$"
	expect EROFS write "/proc/self/root$WS/via-root.txt"
	expect EROFS write "/proc/self/cwd/via-cwd.txt"
	[ "$(cat "$WS/file.txt")" = "$(printf 'hello\nchange')" ]
}

@test "read-only: git status and git diff work; .git cannot be changed" {
	run sbx git -C "$WS" status --short
	[ "$status" -eq 0 ]
	run sbx git -C "$WS" diff
	[[ "$output" == *"+change"* ]]
	expect EROFS append "$WS/.git/config"
	expect EROFS write "$WS/.git/hooks/post-checkout"
}

@test "read-only: /dev/null is writable and /dev/urandom readable" {
	run sbx sh -c 'echo x >/dev/null && head -c 16 /dev/urandom | wc -c'
	[ "$status" -eq 0 ]
	[ "$output" = 16 ]
}
