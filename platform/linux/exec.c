/* SPDX-License-Identifier: MIT */
/*
 * exec.c - `run` on Linux: re-execute this same binary as the helper with the materialized
 * canonical profile. Small profiles travel as an argument; large ones (argv and the environment
 * share ARG_MAX, and one argument is capped at 128 KiB) through a sealed memfd, which the helper
 * reads and closes. The memfd is sealed so that nothing holding a copy of the descriptor can
 * change the profile between planning and enforcing.
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

static int strv_push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	nv[*n] = NULL;
	return 0;
}

/* Builds the argv; profile_fd < 0 means "decide by size and show the placeholder". */
static int build_argv(const struct sbx_plan *p, const char *policy_cwd, const char *command_cwd,
		      char *const cmd[], int profile_fd, const char *json, char ***argv_out,
		      size_t *argc_out, struct sbx_diag *d)
{
	char self[PATH_MAX], fdbuf[16];
	char **v = NULL;
	size_t n = 0;
	ssize_t sl;
	int rc = 0;

	(void)p;
	sl = readlink(SELF_EXE, self, sizeof(self) - 1);
	if (sl < 0)
		snprintf(self, sizeof(self), "%s", SELF_EXE);
	else
		self[sl] = 0;
	if (profile_fd >= 0)
		snprintf(fdbuf, sizeof(fdbuf), "%d", profile_fd);
	else
		snprintf(fdbuf, sizeof(fdbuf), "<memfd>");

	rc = strv_push(&v, &n, self);
	if (!rc)
		rc = strv_push(&v, &n, "--sandbox-policy-cwd");
	if (!rc)
		rc = strv_push(&v, &n, policy_cwd);
	if (!rc)
		rc = strv_push(&v, &n, "--command-cwd");
	if (!rc)
		rc = strv_push(&v, &n, command_cwd ? command_cwd : policy_cwd);
	if (!rc && strlen(json) <= SBX_PROFILE_ARG_MAX) {
		rc = strv_push(&v, &n, "--permission-profile");
		if (!rc)
			rc = strv_push(&v, &n, json);
	} else if (!rc) {
		rc = strv_push(&v, &n, "--permission-profile-fd");
		if (!rc)
			rc = strv_push(&v, &n, fdbuf);
	}
	if (!rc)
		rc = strv_push(&v, &n, "--");
	for (size_t i = 0; !rc && cmd && cmd[i]; i++)
		rc = strv_push(&v, &n, cmd[i]);
	if (rc) {
		sbx_strv_free(v, n);
		return sbx_diag_set(d, rc, "out of memory building the helper command line");
	}
	*argv_out = v;
	*argc_out = n;
	return 0;
}

int sbx_linux_helper_argv(const struct sbx_plan *p, const char *policy_cwd, const char *command_cwd,
			  char *const cmd[], char ***argv_out, size_t *argc_out, struct sbx_diag *d)
{
	char *json = sbx_profile_to_json(&p->profile);
	int rc;

	if (!json)
		return sbx_diag_set(d, -ENOMEM, "out of memory emitting the profile");
	rc = build_argv(p, policy_cwd, command_cwd, cmd, -1, json, argv_out, argc_out, d);
	free(json);
	return rc;
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

int sbx_linux_exec(const struct sbx_plan *p, const char *policy_cwd, const char *command_cwd,
		   char *const cmd[], struct sbx_diag *d)
{
	char *json = sbx_profile_to_json(&p->profile);
	char **argv = NULL;
	size_t argc = 0;
	int fd = -1, rc, err;

	if (!json)
		return sbx_diag_set(d, -ENOMEM, "out of memory emitting the profile");
	if (strlen(json) > SBX_PROFILE_ARG_MAX) {
		fd = sealed_memfd(json, d);
		if (fd < 0) {
			free(json);
			return fd;
		}
	}
	rc = build_argv(p, policy_cwd, command_cwd, cmd, fd, json, &argv, &argc, d);
	free(json);
	if (rc < 0)
		goto out;
	/* The helper is this binary, chosen by argv[0]; /proc/self/exe cannot be swapped on disk. */
	free(argv[0]);
	argv[0] = strdup(SBX_HELPER_NAME);
	if (!argv[0]) {
		rc = sbx_diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	execv(SELF_EXE, argv);
	err = errno;
	rc = sbx_diag_set(d, -err, "re-executing %s as %s: %s", SELF_EXE, SBX_HELPER_NAME,
			  strerror(err));
out:
	sbx_strv_free(argv, argc);
	if (fd >= 0)
		close(fd);
	return rc;
}
