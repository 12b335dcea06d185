/* SPDX-License-Identifier: MIT */
/*
 * readfile.c - reading a profile: a file or stdin ("-"), at most SBX_MAX_PROFILE_BYTES, with the
 * system's reason when it cannot be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx.h"

static int read_error(struct sbx_diag *d, const char *path, const char *what, int err)
{
	return sbx_diag_set_at(d, -err, path, 0, 0, NULL, "cannot %s: %s", what, strerror(err));
}

static int too_big(struct sbx_diag *d, const char *path)
{
	return sbx_diag_set_at(d, SBX_E_TOO_BIG, path, 0, 0, NULL,
			       "larger than %u MiB, the limit for a profile",
			       SBX_MAX_PROFILE_BYTES >> 20);
}

/* Reads up to SBX_MAX_PROFILE_BYTES from fd; one byte more means the input is too big. */
static int read_bounded(int fd, const char *path, char **buf, size_t *len, struct sbx_diag *d)
{
	const size_t limit = (size_t)SBX_MAX_PROFILE_BYTES + 1;
	size_t cap = 64 * 1024, n = 0;
	char *b = malloc(cap + 1), *nb;
	ssize_t got;

	if (!b)
		return read_error(d, path, "read", ENOMEM);
	while (n < limit) {
		if (n == cap) {
			cap = cap * 2 < limit ? cap * 2 : limit;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return read_error(d, path, "read", ENOMEM);
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;

			free(b);
			return read_error(d, path, "read", err);
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n >= limit) {
		free(b);
		return too_big(d, path);
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* The descriptor made blocking again (Windows has no FIFOs, and opens nothing non-blocking). */
static int blocking(int fd)
{
#ifdef _WIN32
	(void)fd;
	return 0;
#else
	return fcntl(fd, F_SETFL, 0);
#endif
}

int sbx_read_file(const char *path, char **buf, size_t *len, struct sbx_diag *d)
{
	unsigned long long dev, ino;

	return sbx_read_file_id(path, buf, len, &dev, &ino, d);
}

int sbx_read_file_id(const char *path, char **buf, size_t *len, unsigned long long *dev,
		     unsigned long long *ino, struct sbx_diag *d)
{
	struct stat st;
	int fd, r;

	*buf = NULL;
	*len = 0;
	*dev = *ino = 0;
	sbx_diag_clear(d);
	if (strcmp(path, "-") == 0) {
		/*
		 * Standard input redirected from a file (-p - < ci.json) is that file, read again
		 * by a later run started the same way: its identity, as for a file named.
		 */
		if (fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 0) {
			*dev = (unsigned long long)st.st_dev;
			*ino = (unsigned long long)st.st_ino;
		}
		return read_bounded(STDIN_FILENO, path, buf, len, d);
	}
	/*
	 * Not blocking in open: a FIFO with no writer (which an earlier confined run can leave
	 * where a profile in its workspace was) would hold the start for ever. Read blocking, as
	 * a pipe being written (a shell's <(...)) must be; one nothing writes to reads as ended.
	 */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return read_error(d, path, "open", errno);
	if (fstat(fd, &st) < 0 || blocking(fd) < 0) {
		r = read_error(d, path, "stat", errno);
	} else if (S_ISDIR(st.st_mode)) {
		r = read_error(d, path, "read", EISDIR);
	} else if (S_ISREG(st.st_mode) && st.st_size > (off_t)SBX_MAX_PROFILE_BYTES) {
		r = too_big(d, path);
	} else {
		/*
		 * What was read, for the planner to keep read-only (sbx_ctx.inputs): a file. A pipe
		 * (a shell's <(...)) holds nothing a later run reads again, and neither does a file
		 * no name holds any more (a shell's here-document, read through /dev/fd/N).
		 */
		if (S_ISREG(st.st_mode) && st.st_nlink > 0) {
			*dev = (unsigned long long)st.st_dev;
			*ino = (unsigned long long)st.st_ino;
		}
		r = read_bounded(fd, path, buf, len, d);
		if (r == 0 && *len == 0 && S_ISFIFO(st.st_mode)) {
			free(*buf);
			*buf = NULL;
			r = sbx_diag_set_at(d, -EPIPE, path, 0, 0, NULL,
					    "cannot read: a pipe that nothing writes to");
		}
	}
	close(fd);
	return r;
}
