/* SPDX-License-Identifier: MIT */
/*
 * probe.c - the macOS enforcement suite's probe: performs exactly one operation and prints "OK"
 * or the name of the errno it failed with (EPERM, EACCES, ...), so that each test asserts the
 * exact refusal. Plain POSIX plus the terminal ioctls, so that it also compiles on Linux (make
 * check-macos checks it there).
 *
 *   probe write|read|list|mkdir|rmdir|unlink PATH
 *   probe rename|link FROM TO
 *   probe tcp4 PORT            connect to 127.0.0.1:PORT
 *   probe unix PATH            connect to the Unix socket at PATH
 *   probe serve4               bind 127.0.0.1 (any port), listen, connect to it and accept
 *   probe tiocsti|tcsetattr|winsize   on standard input, the terminal
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

static const struct {
	int value;
	const char *name;
} errnos[] = {
	{EPERM, "EPERM"},
	{ENOENT, "ENOENT"},
	{EIO, "EIO"},
	{EBADF, "EBADF"},
	{EACCES, "EACCES"},
	{EBUSY, "EBUSY"},
	{EEXIST, "EEXIST"},
	{EXDEV, "EXDEV"},
	{ENOTDIR, "ENOTDIR"},
	{EISDIR, "EISDIR"},
	{EINVAL, "EINVAL"},
	{ENOTTY, "ENOTTY"},
	{EROFS, "EROFS"},
	{ENOTEMPTY, "ENOTEMPTY"},
	{ECONNREFUSED, "ECONNREFUSED"},
	{ENETUNREACH, "ENETUNREACH"},
	{ENAMETOOLONG, "ENAMETOOLONG"},
	{EADDRNOTAVAIL, "EADDRNOTAVAIL"},
};

static int result(int rc)
{
	int err = errno;

	if (rc == 0) {
		printf("OK\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(errnos) / sizeof(errnos[0]); i++) {
		if (errnos[i].value == err) {
			printf("%s\n", errnos[i].name);
			return 1;
		}
	}
	printf("E%d\n", err);
	return 1;
}

static int do_write(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (write(fd, "x\n", 2) != 2) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int do_read(const char *p)
{
	char buf[64];
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf)) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int do_list(const char *p)
{
	DIR *d = opendir(p);

	if (!d)
		return -1;
	errno = 0;
	while (readdir(d))
		;
	if (errno) {
		closedir(d);
		return -1;
	}
	return closedir(d);
}

static int do_tcp4(const char *port)
{
	struct sockaddr_in a;
	int fd, rc;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)atoi(port));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	if (rc < 0) {
		int err = errno;

		close(fd);
		errno = err;
		return -1;
	}
	return close(fd);
}

/* Closes fd keeping the errno of the failure that came before. */
static int fail_closing(int fd)
{
	int err = errno;

	close(fd);
	errno = err;
	return -1;
}

static int do_unix(const char *path)
{
	struct sockaddr_un a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(a.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(a.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0)
		return fail_closing(fd);
	return close(fd);
}

/* What a test server does: listen on loopback, and a client of it connects. */
static int do_serve4(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int srv, cli, conn;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	srv = socket(AF_INET, SOCK_STREAM, 0);
	if (srv < 0)
		return -1;
	if (bind(srv, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(srv, 1) < 0 ||
	    getsockname(srv, (struct sockaddr *)&a, &len) < 0)
		return fail_closing(srv);
	cli = socket(AF_INET, SOCK_STREAM, 0);
	if (cli < 0)
		return fail_closing(srv);
	if (connect(cli, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(cli);
		return fail_closing(srv);
	}
	conn = accept(srv, NULL, NULL);
	if (conn < 0) {
		close(cli);
		return fail_closing(srv);
	}
	close(conn);
	close(cli);
	return close(srv);
}

/* One byte pushed into the terminal's input queue: what a command must not be able to do. */
static int do_tiocsti(void)
{
	char c = '#';

	return ioctl(STDIN_FILENO, TIOCSTI, &c);
}

/* What every interactive program does with its terminal: read and set its modes. */
static int do_tcsetattr(void)
{
	struct termios t;

	if (tcgetattr(STDIN_FILENO, &t) != 0)
		return -1;
	return tcsetattr(STDIN_FILENO, TCSANOW, &t);
}

static int do_winsize(void)
{
	struct winsize w;

	return ioctl(STDIN_FILENO, TIOCGWINSZ, &w);
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "";
	const char *b = argc > 3 ? argv[3] : "";

	if (!strcmp(op, "write"))
		return result(do_write(a));
	if (!strcmp(op, "read"))
		return result(do_read(a));
	if (!strcmp(op, "list"))
		return result(do_list(a));
	if (!strcmp(op, "mkdir"))
		return result(mkdir(a, 0755));
	if (!strcmp(op, "rmdir"))
		return result(rmdir(a));
	if (!strcmp(op, "unlink"))
		return result(unlink(a));
	if (!strcmp(op, "rename"))
		return result(rename(a, b));
	if (!strcmp(op, "link"))
		return result(link(a, b));
	if (!strcmp(op, "tcp4"))
		return result(do_tcp4(a));
	if (!strcmp(op, "unix"))
		return result(do_unix(a));
	if (!strcmp(op, "serve4"))
		return result(do_serve4());
	if (!strcmp(op, "tiocsti"))
		return result(do_tiocsti());
	if (!strcmp(op, "tcsetattr"))
		return result(do_tcsetattr());
	if (!strcmp(op, "winsize"))
		return result(do_winsize());
	fprintf(stderr, "probe: unknown operation '%s'\n", op);
	return 2;
}
