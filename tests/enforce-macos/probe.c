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
	if (!strcmp(op, "tiocsti"))
		return result(do_tiocsti());
	if (!strcmp(op, "tcsetattr"))
		return result(do_tcsetattr());
	if (!strcmp(op, "winsize"))
		return result(do_winsize());
	fprintf(stderr, "probe: unknown operation '%s'\n", op);
	return 2;
}
