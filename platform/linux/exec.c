/* SPDX-License-Identifier: MIT */
/*
 * exec.c - `run` on Linux: re-execute this same binary as the helper with the materialized
 * canonical profile, through the one hand-over (lib/handover.c). Small profiles travel as an
 * argument; large ones (argv and the environment share ARG_MAX, and one argument is capped at
 * 128 KiB) through a sealed memfd, which the helper reads and closes. The memfd is sealed so
 * that nothing holding a copy of the descriptor can change the profile between planning and
 * enforcing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/linux.h"

#define SELF_EXE "/proc/self/exe"

void sbx_linux_self(char *buf, size_t size)
{
	ssize_t n = readlink(SELF_EXE, buf, size - 1);

	if (n < 0)
		snprintf(buf, size, "%s", SELF_EXE);
	else
		buf[n] = '\0';
}

/* A sealed memfd holding json, left inheritable for the helper (which closes it). */
static int sealed_memfd(const char *json, struct sbx_diag *d)
{
	size_t len = strlen(json), off = 0;
	int fd, err;

	fd = memfd_create("sbxrun-profile", MFD_ALLOW_SEALING);
	if (fd < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "memfd_create: %s", strerror(err));
	}
	while (off < len) {
		ssize_t w = write(fd, json + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = w < 0 ? errno : EIO;
			close(fd);
			return sbx_diag_set(d, -err, "writing the profile memfd: %s",
					    strerror(err));
		}
		off += (size_t)w;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0) {
		err = errno;
		close(fd);
		return sbx_diag_set(d, -err, "sealing the profile memfd: %s", strerror(err));
	}
	return fd;
}

int sbx_linux_exec(const struct sbx_handover *h, const char *profile_json, struct sbx_diag *d)
{
	struct sbx_handover with_fd = *h;
	struct sbx_strv argv = {0};
	int fd = -1, rc, err;

	if (h->profile_fd == SBX_HANDOVER_FD_PENDING) {
		fd = sealed_memfd(profile_json, d);
		if (fd < 0)
			return fd;
		with_fd.profile_fd = fd;
	}
	/* The helper is this binary, chosen by argv[0]; /proc/self/exe cannot be swapped on disk. */
	rc = sbx_handover_argv(&with_fd, SBX_HELPER_NAME, &argv);
	if (rc < 0) {
		rc = sbx_diag_set(d, rc, "out of memory building the helper command line");
		goto out;
	}
	execv(SELF_EXE, argv.v);
	err = errno;
	rc = sbx_diag_set(d, -err, "re-executing %s as %s: %s", SELF_EXE, SBX_HELPER_NAME,
			  strerror(err));
out:
	sbx_strv_clear(&argv);
	if (fd >= 0)
		close(fd);
	return rc;
}
