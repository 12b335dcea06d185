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

/* Marks r unenforceable with why (taken over; NULL means out of memory). */
static int set_unenforceable(struct sbx_req *r, char *why)
{
	r->status = SBX_UNENFORCEABLE;
	free(r->why);
	r->why = why;
	return why ? 0 : -ENOMEM;
}

/* The reason a deny glob cannot be enforced, or 0 when it can. */
static int check_glob(const struct sbx_plan *p, struct sbx_req *r)
{
	struct sbx_diag d;
	struct sbx_buf w = {0};
	int rc;

	sbx_diag_clear(&d);
	rc = sbx_sbpl_glob_check(&p->roots, r->path, &d);
	if (rc == -ENOMEM)
		return rc;
	if (!rc)
		return 0;
	sbx_buf_add(&w, d.msg);
	if (d.hint[0])
		sbx_buf_addf(&w, "; hint: %s", d.hint);
	return set_unenforceable(r, sbx_buf_steal(&w));
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
	struct sbx_buf w = {0};
	int rc;

	if (r->path[0] != '/')
		return set_unenforceable(r, strdup("a Windows path names no Unix socket on macOS"));
	rc = sbx_sbpl_write_root(r->path, &canon, &deeper);
	free(canon);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		sbx_buf_addf(&w, "cannot inspect Unix socket path %s: %s", r->path, strerror(-rc));
	else if (deeper)
		sbx_buf_addf(&w,
			     "Unix socket path %s goes through symbolic link %s, which could lead "
			     "anywhere; hint: name the socket by its real path",
			     r->path, deeper);
	free(deeper);
	if (!rc && !w.len && !w.oom)
		return 0;
	return set_unenforceable(r, sbx_buf_steal(&w));
}

int sbx_plan_attach_macos(struct sbx_plan *p, bool sandbox_exec_present)
{
	for (size_t i = 0; i < p->n_reqs; i++) {
		struct sbx_req *r = &p->reqs[i];
		char *canon = NULL, *deeper = NULL;
		int rc = 0;

		r->mechanism = "seatbelt";
		r->status = SBX_ENFORCED;
		free(r->why);
		r->why = NULL;
		if (!sandbox_exec_present) {
			rc = set_unenforceable(r, strdup(SANDBOX_EXEC
							 " is missing; hint: it ships with macOS: "
							 "restore it, or run where it exists"));
		} else if (r->kind == SBX_REQ_WRITE && r->path && r->path[0] == '/') {
			rc = sbx_sbpl_write_root(r->path, &canon, &deeper);
			if (rc && rc != -ENOMEM) {
				struct sbx_buf w = {0};

				sbx_buf_addf(&w, "cannot inspect writable root %s: %s", r->path,
					     strerror(-rc));
				rc = set_unenforceable(r, sbx_buf_steal(&w));
			} else if (!rc && deeper) {
				struct sbx_buf w = {0};

				sbx_buf_addf(
					&w,
					"writable root %s contains symlink component %s; "
					"symlinked writable roots are not supported; hint: name "
					"the directory the symlink points to instead",
					r->path, deeper);
				rc = set_unenforceable(r, sbx_buf_steal(&w));
			}
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
