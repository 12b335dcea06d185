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

/* Writes n bytes of s to fd. */
static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * The canonical text on its way out: held while it fits an argument, then a memfd (left
 * inheritable for the helper, which closes it) that the rest is written into as it is made, so
 * that a profile of 10,000 entries is never a megabyte of text in this process as well.
 */
struct handover_text {
	struct sbx_strbuf arg;
	int fd;
	const char *failed; /* what failed, for the message */
};

static int text_put(void *self, const char *s, size_t n)
{
	struct handover_text *t = self;
	int r;

	if (t->fd < 0 && t->arg.n + n <= SBX_PROFILE_ARG_MAX) {
		sbx_strbuf_put(&t->arg, s, n);
		return t->arg.oom ? -ENOMEM : 0;
	}
	if (t->fd < 0) {
		t->fd = memfd_create("sbxrun-profile", MFD_ALLOW_SEALING);
		if (t->fd < 0) {
			t->failed = "memfd_create";
			return -errno;
		}
		r = write_all(t->fd, t->arg.p ? t->arg.p : "", t->arg.n);
		free(sbx_strbuf_finish(&t->arg, NULL));
		if (r < 0) {
			t->failed = "writing the profile memfd";
			return r;
		}
	}
	r = write_all(t->fd, s, n);
	if (r < 0)
		t->failed = "writing the profile memfd";
	return r;
}

/* Writes profile into h: an argument (*arg, the caller's to free), or a sealed memfd. */
static int handover_profile(struct sbx_handover *h, const struct sbx_profile *profile, char **arg,
			    struct sbx_diag *d)
{
	struct handover_text t = {.fd = -1};
	int r = sbx_profile_to_json_stream(profile, 64 * 1024, text_put, &t);

	if (r == 0 && t.fd >= 0 &&
	    fcntl(t.fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) <
		    0) {
		r = -errno;
		t.failed = "sealing the profile memfd";
	}
	if (r < 0) {
		free(sbx_strbuf_finish(&t.arg, NULL));
		if (t.fd >= 0)
			close(t.fd);
		if (r == -ENOMEM || !t.failed)
			return sbx_diag_set(d, r, "out of memory emitting the profile");
		return sbx_diag_set(d, r, "%s: %s", t.failed, strerror(-r));
	}
	if (t.fd < 0) {
		*arg = sbx_strbuf_finish(&t.arg, NULL);
		if (!*arg)
			return sbx_diag_set(d, -ENOMEM, "out of memory emitting the profile");
		h->profile = *arg;
	}
	h->profile_fd = t.fd;
	return 0;
}

int sbx_linux_exec(struct sbx_handover *h, const struct sbx_profile *profile, struct sbx_diag *d)
{
	struct sbx_strv argv = {0};
	char *arg = NULL;
	int rc, err;

	rc = handover_profile(h, profile, &arg, d);
	if (rc < 0)
		return rc;
	/* The helper is this binary, chosen by argv[0]; /proc/self/exe cannot be swapped on disk. */
	rc = sbx_handover_argv(h, SBX_HELPER_NAME, &argv);
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
	free(arg);
	if (h->profile_fd >= 0)
		close(h->profile_fd);
	return rc;
}
