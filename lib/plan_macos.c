/* SPDX-License-Identifier: MIT */
/*
 * plan_macos.c - the macOS requirement attacher: which requirement the Seatbelt policy of sbpl.c
 * enforces, and which it cannot (no sandbox-exec, a writable root or an allowed Unix socket
 * through a symlink, a deny glob the policy cannot express), with the reason and a hint.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl.h"
#include "sbx.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"

/* The reason a deny glob cannot be enforced, or 0 when it can. */
static int check_glob(const struct sbx_plan *p, struct sbx_req *r)
{
	struct sbx_diag d;
	int rc;

	sbx_diag_clear(&d);
	rc = sbx_sbpl_glob_check(&p->roots, r->path, &d);
	if (rc == -ENOMEM)
		return rc;
	if (!rc)
		return 0;
	return sbx_req_set_diag(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT, d.hint[0] ? d.hint : NULL,
				&d);
}

/*
 * A Unix socket of the allow-list is named by its resolved path, as Seatbelt matches it; only a
 * symlinked top-level component (/tmp, /var) is resolved. A link deeper down could have been
 * planted by an earlier run to lead anywhere (to the Docker daemon's socket, say), and is
 * refused rather than followed, as for writable roots.
 */
static int check_socket(struct sbx_req *r)
{
	char *canon = NULL, *deeper = NULL;
	int rc;

	if (r->path[0] != '/')
		return sbx_req_set(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT, NULL,
				   "a Windows path names no Unix socket on macOS");
	rc = sbx_sbpl_write_root(r->path, &canon, &deeper);
	free(canon);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		rc = sbx_req_set_self(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT, NULL,
				      "cannot inspect Unix socket path ", ": %s", strerror(-rc));
	else if (deeper)
		rc = sbx_req_set_self(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT,
				      "name the socket by its real path", "Unix socket path ",
				      " goes through symbolic link %s, which could lead anywhere",
				      deeper);
	free(deeper);
	return rc;
}

int sbx_plan_attach_macos(struct sbx_plan *p, bool sandbox_exec_present)
{
	for (size_t i = 0; i < p->n_reqs; i++) {
		struct sbx_req *r = &p->reqs[i];
		char *canon = NULL, *deeper = NULL;
		int rc;

		rc = sbx_req_set(r, SBX_ENFORCED, SBX_MECH_SEATBELT, NULL, NULL);
		if (!sandbox_exec_present) {
			rc = sbx_req_set(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT,
					 "it ships with macOS: restore it, or run where it exists",
					 SANDBOX_EXEC " is missing");
		} else if (r->kind == SBX_REQ_WRITE && r->path && r->path[0] == '/') {
			rc = sbx_sbpl_write_root(r->path, &canon, &deeper);
			if (rc && rc != -ENOMEM)
				rc = sbx_req_set_self(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT, NULL,
						      "cannot inspect writable root ", ": %s",
						      strerror(-rc));
			else if (!rc && deeper)
				rc = sbx_req_set_self(
					r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT,
					"name the directory the symlink points to instead",
					"writable root ",
					" contains symlink component %s; symlinked writable roots "
					"are not supported",
					deeper);
		} else if (r->kind == SBX_REQ_DENY_GLOB && r->path) {
			rc = check_glob(p, r);
		} else if (r->kind == SBX_REQ_UNIX_SOCKET && r->path) {
			rc = check_socket(r);
		}
		free(canon);
		free(deeper);
		if (rc)
			return rc;
	}
	return 0;
}
