/* SPDX-License-Identifier: MIT */
/*
 * enforce.c - what the enter sequence applies, read off a finished plan: the mechanism bits the
 * planner set on each requirement (lib/plan_linux.c), the roots it planned from and the matches
 * of its deny globs. Nothing here decides anew: a mechanism no requirement names is not applied,
 * and every mechanism a requirement names is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "linux/linux.h"
#include "linux/sandbox.h"

/*
 * A glob match is a deny path found at start: looked up once like every rule path (its object
 * kept), refused when the look-up fails or when it leads through a link that an earlier run or
 * another user could have placed.
 */
static int check_match(const struct sbx_plan *plan, struct sbx_rulepaths *res, const char *m,
		       struct sbx_diag *d)
{
	const struct sbx_rulepath *f = sbx_rulepath_get(res, m);

	if (!f)
		return -ENOMEM;
	if (f->err) {
		sbx_diag_set(d, f->err, "cannot look up %s: %s", m, strerror(-f->err));
		return sbx_diag_hint(d, f->err,
				     "sbxrun never takes an unreadable path for a missing one; "
				     "restore access to it, or drop the rule that names it");
	}
	return sbx_linux_link_check(plan, "deny-read path", m, sbx_rulepath_link(f), f->link_shared,
				    f->real, d);
}

int sbx_linux_enforce_from_plan(const struct sbx_plan *plan, const struct sbx_linux_facts *facts,
				bool traced, struct sbx_rulepaths *res, struct sbx_linux_enforce *e,
				struct sbx_diag *d)
{
	struct sbx_linux_apply a;
	int rc = 0;

	memset(e, 0, sizeof(*e));
	sbx_plan_linux_apply(plan, facts, &a);
	/*
	 * Only init's supervisor traces: a traced plan in place goes under init where the host can
	 * make it (or is refused), and gets all that init gets, its fresh /proc included.
	 */
	if (traced && (rc = sbx_report_model(facts, &a.model, d)) < 0)
		return rc;
	e->res = res;
	e->roots = &plan->roots;
	e->network = plan->network;
	e->mount_namespace = a.mount_namespace;
	e->landlock_abi = a.landlock_abi;
	e->landlock_net = a.landlock_net;
	e->seccomp_metadata = a.seccomp_metadata;
	e->seccomp_ipc = a.seccomp_ipc;
	e->model = a.model;
	e->private_dev = a.private_dev;
	/* Init mounts a fresh /proc (the helper's --no-proc says otherwise). */
	e->fresh_proc = a.model == SBX_MODEL_INIT;
	if (a.model == SBX_MODEL_INIT)
		e->clone_flags = sbx_linux_sandbox_flags(facts, false);
	/* No private /dev: Landlock keeps the host's out of reach, but for its allow-list. */
	if (a.landlock_dev)
		rc = sbx_strv_push(&e->ll_hidden, "/dev");
	for (size_t i = 0; i < plan->n_reqs && rc == 0; i++) {
		const struct sbx_req *r = &plan->reqs[i];
		/* Landlock alone: the readable trees around it are granted piecewise. */
		bool by_landlock_alone = r->mech == SBX_MECH_LANDLOCK;
		char **m = NULL;
		size_t n = 0;

		if (r->status != SBX_ENFORCED)
			continue;
		switch (r->kind) {
		case SBX_REQ_DENY:
			if (by_landlock_alone && r->exists)
				rc = sbx_strv_push(&e->ll_deny, r->path);
			/* Missing: its first missing component is masked (points.c). */
			else if (!r->exists && (r->mech & SBX_MECH_MOUNT_NS))
				rc = sbx_strv_push(&e->deny_missing, r->path);
			break;
		case SBX_REQ_PROTECT_MISSING:
			if (r->mech & SBX_MECH_MOUNT_NS)
				rc = sbx_strv_push(&e->protect_missing, r->path);
			break;
		case SBX_REQ_NO_CREATE:
			if (r->mech & SBX_MECH_MOUNT_NS)
				rc = sbx_strv_push(&e->no_create, r->path);
			break;
		case SBX_REQ_DENY_GLOB:
			/* Expanded once, now: files created later are not covered. */
			rc = sbx_glob_expand(r->path, plan->profile.fs.glob_depth, &res->view, &m,
					     &n, d);
			if (rc < 0) {
				sbx_linux_enforce_free(e);
				return rc;
			}
			for (size_t j = 0; rc == 0 && j < n; j++)
				rc = check_match(plan, res, m[j], d);
			if (rc < 0 && rc != -ENOMEM) {
				sbx_strv_free(m, n);
				sbx_linux_enforce_free(e);
				return rc;
			}
			for (size_t j = 0; rc == 0 && j < n; j++) {
				if (by_landlock_alone)
					rc = sbx_strv_push(&e->ll_deny, m[j]);
				if (rc == 0)
					rc = sbx_strv_push_owned(&e->deny_expanded, m[j]);
				m[j] = NULL;
			}
			sbx_strv_free(m, n);
			break;
		default:
			break;
		}
	}
	if (rc < 0) {
		sbx_linux_enforce_free(e);
		return sbx_diag_set(d, rc, "out of memory");
	}
	/* A watch on a directory Landlock alone denies would report the names inside it. */
	e->seccomp_no_watch = e->ll_deny.n > 0;
	return 0;
}

void sbx_linux_enforce_free(struct sbx_linux_enforce *e)
{
	sbx_strv_clear(&e->deny_expanded);
	sbx_strv_clear(&e->ll_deny);
	sbx_strv_clear(&e->ll_hidden);
	sbx_strv_clear(&e->deny_missing);
	sbx_strv_clear(&e->protect_missing);
	sbx_strv_clear(&e->no_create);
}
