/* SPDX-License-Identifier: MIT */
/*
 * plan_macos.c - the macOS requirement attacher: which requirement the Seatbelt policy of sbpl.c
 * enforces, and which it cannot (no sandbox-exec, a writable root through a symlink, a deny glob
 * the policy cannot express), with the reason and a hint.
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
	return sbx_req_set(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT, d.hint[0] ? d.hint : NULL, "%s",
			   d.msg);
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
				rc = sbx_req_set(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT, NULL,
						 "cannot inspect writable root %s: %s", r->path,
						 strerror(-rc));
			else if (!rc && deeper)
				rc = sbx_req_set(r, SBX_UNENFORCEABLE, SBX_MECH_SEATBELT,
						 "name the directory the symlink points to instead",
						 "writable root %s contains symlink component %s; "
						 "symlinked writable roots are not supported",
						 r->path, deeper);
		} else if (r->kind == SBX_REQ_DENY_GLOB && r->path) {
			rc = check_glob(p, r);
		}
		free(canon);
		free(deeper);
		if (rc)
			return rc;
	}
	return 0;
}
