/* SPDX-License-Identifier: MIT */
/*
 * exec.c - execvp(3) as env(1), timeout(1) and the shells run a command, on every C library.
 *
 * POSIX has execvp(3) hand a file the kernel cannot execute (ENOEXEC: a script without a "#!"
 * line) to the shell, and glibc's does, as every shell does for a command typed; musl's does
 * not. sbxrun is built against musl where it can, so such a script, which runs under env(1),
 * failed under sbxrun with "Exec format error". The search and its errors are musl's and
 * glibc's own (the first EACCES is kept, ENOENT and ENOTDIR go on to the next directory, any
 * other error stops); PATH unset searches glibc's /bin:/usr/bin.
 *
 * A file whose first line holds a NUL byte is taken for a program of another machine and is not
 * given to the shell (bash's rule): "Exec format error" says more than the syntax errors a shell
 * would print reading it.
 *
 * sbx_execvp runs in a vfork(2) child too (platform/linux/supervise.c), where it shares the
 * parent's memory: it allocates nothing with malloc and touches no stdio, only its stack and
 * system calls (the shell's argument vector is mapped, and unmapped again if that fails). The
 * map is made in the memory the child shares with its parent, where it stays once the shell
 * runs: the parent unmaps it with sbx_exec_release when vfork(2) has returned.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unix/exec.h"

extern char **environ;

#define DEFAULT_PATH "/bin:/usr/bin"
#define SHELL_PATH   SBX_EXEC_SHELL
/* As much of the first line as bash looks at to tell a binary from a script, and more. */
#define HEAD_BYTES 256

/*
 * The shell's argument vector while it is mapped: a vfork(2) child writes it in its parent's
 * memory, where the parent finds it after the child has executed the shell, or has been killed
 * between the map and the exec.
 */
static void *volatile shell_argv;
static volatile size_t shell_argv_size;

/* Whether the first line of path holds a NUL byte (or the file cannot be read at all). */
static bool looks_binary(const char *path)
{
	char buf[HEAD_BYTES];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 0)
		return true;
	for (ssize_t i = 0; i < n && buf[i] != '\n'; i++)
		if (buf[i] == '\0')
			return true;
	return false;
}

bool sbx_exec_for_shell(const char *path)
{
	return !looks_binary(path);
}

/*
 * path gave ENOEXEC: run it as "/bin/sh path ARG...", as glibc does, or "/bin/sh -- path ARG..."
 * when path begins with '-' (a command "-i" found through an empty PATH element): the shell
 * would take it for its options and run something else (an interactive shell) than the file.
 * Returns with errno ENOEXEC when that cannot be done.
 */
static void run_with_shell(const char *path, char *const argv[])
{
	size_t argc = 0, size, k = 0;
	char **sh_argv;

	if (looks_binary(path)) {
		errno = ENOEXEC;
		return;
	}
	while (argv[argc])
		argc++;
	/* The shell, "--", path, argv[1..argc - 1] and the NULL: at most argc + 3. */
	size = (argc + 3) * sizeof(*sh_argv);
	sh_argv = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (sh_argv == MAP_FAILED) {
		errno = ENOEXEC;
		return;
	}
	sh_argv[k++] = (char *)SHELL_PATH;
	if (path[0] == '-')
		sh_argv[k++] = (char *)"--";
	sh_argv[k++] = (char *)path;
	for (size_t i = 1; i < argc; i++)
		sh_argv[k++] = argv[i];
	sh_argv[k] = NULL;
	shell_argv_size = size;
	shell_argv = sh_argv;
	execve(SHELL_PATH, sh_argv, environ);
	shell_argv = NULL;
	munmap(sh_argv, size);
	errno = ENOEXEC;
}

void sbx_exec_release(void)
{
	int err = errno;

	if (shell_argv) {
		munmap(shell_argv, shell_argv_size);
		shell_argv = NULL;
	}
	errno = err;
}

int sbx_execvp(const char *file, char *const argv[])
{
	const char *path, *p;
	char buf[PATH_MAX];
	bool eacces = false;
	size_t len;

	if (!*file) {
		errno = ENOENT;
		return -1;
	}
	if (strchr(file, '/')) {
		execve(file, argv, environ);
		if (errno == ENOEXEC)
			run_with_shell(file, argv);
		return -1;
	}
	len = strnlen(file, NAME_MAX + 1);
	if (len > NAME_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	path = getenv("PATH");
	for (p = path ? path : DEFAULT_PATH;; p++) {
		size_t n = strcspn(p, ":");
		const char *z = p + n;

		/* An empty element is the current directory; one too long to name is passed over. */
		if (n + 1 + len < sizeof(buf)) {
			memcpy(buf, p, n);
			buf[n] = '/';
			memcpy(buf + n + (n > 0), file, len + 1);
			execve(buf, argv, environ);
			switch (errno) {
			case ENOEXEC:
				run_with_shell(buf, argv);
				return -1;
			case EACCES:
				eacces = true;
				break;
			case ENOENT:
			case ENOTDIR:
				break;
			default:
				return -1;
			}
		}
		if (!*z)
			break;
		p = z;
	}
	errno = eacces ? EACCES : ENOENT;
	return -1;
}
