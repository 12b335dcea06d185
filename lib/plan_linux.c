/* SPDX-License-Identifier: MIT */
/*
 * plan_linux.c - which Linux mechanism enforces each requirement of a plan on a given host.
 *
 * Pure: it reads struct sbx_linux_facts (from the probe, or assumed for --platform linux) and
 * never touches the kernel, so explain can show the plan for any host. The helper
 * (cmd/helper.c) builds the same plan and reads off it what the enter sequence applies: a mount
 * namespace when a requirement names one, Landlock likewise, seccomp always.
 *
 * The mechanisms:
 *   landlock         allow-list of readable and writable trees; without a mount namespace a
 *                    readable tree holding a denied path is granted around it, entry by entry
 *   mount-namespace  / read-only, writable roots read-write, read-only binds over carve-outs,
 *                    empty read-only mounts over denied paths; refuses chmod/chown/utimes
 *   seccomp          socket families and connect/bind/listen/accept; metadata calls everywhere
 *                    when there is no mount namespace
 *   landlock-net     TCP bind/connect (ABI 4)
 *
 * Missing protected names (.git, .agents, .codex that do not exist under a writable root) are
 * SKIPPED, with the reason shown: refusing the creation of one name inside a writable directory
 * needs a mount point, and a mount point that does not exist would have to be created on the
 * host, which sbxrun never does. Landlock grants rights on whole hierarchies and cannot refuse one
 * name; seccomp cannot read paths. The only other ways (creating the name in advance, or a process
 * that watches and deletes) change the host or leave a process behind. So this is said, not
 * hidden: explain lists each such name as skipped with this reason.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

#define SBX_STR_(x) #x
#define SBX_STR(x)  SBX_STR_(x)

void sbx_linux_facts_assumed(struct sbx_linux_facts *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->kernel, sizeof(f->kernel), "assumed");
	f->landlock_abi = 7;
	f->seccomp = true;
	f->user_namespaces = true;
	f->mount_namespace = true;
	f->no_new_privs = true;
}

struct host {
	const struct sbx_linux_facts *f;
	bool ll, sec, mnt;
	const char **denied; /* the plan's denied paths, sorted, for ancestor lookups */
	size_t n_denied;
	char nomnt[400]; /* why there is no mount namespace, with a hint */
	char noll[300];
	char nosec[300];
};

static int set_why(struct sbx_req *r, enum sbx_req_status st, const char *mech, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));

static int set_why(struct sbx_req *r, enum sbx_req_status st, const char *mech, const char *fmt,
		   ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	r->status = st;
	r->mechanism = mech;
	free(r->why);
	r->why = NULL;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r->why = s;
	return 0;
}

static void enforced(struct sbx_req *r, const char *mech)
{
	r->status = SBX_ENFORCED;
	r->mechanism = mech;
	free(r->why);
	r->why = NULL;
}

/* Is path inside something Landlock would grant (a readable or writable root)? */
static bool granted_tree_covers(const struct sbx_roots *rt, const char *path)
{
	if (rt->full_read || rt->full_write)
		return true;
	for (size_t i = 0; i < rt->n_readable; i++)
		if (sbx_path_covers(rt->readable[i], path))
			return true;
	for (size_t i = 0; i < rt->n_writable; i++)
		if (sbx_path_covers(rt->writable[i].root, path))
			return true;
	return false;
}

static bool under_writable(const struct sbx_roots *rt, const char *path)
{
	if (rt->full_write)
		return true;
	for (size_t i = 0; i < rt->n_writable; i++)
		if (sbx_path_covers(rt->writable[i].root, path))
			return true;
	return false;
}

/* Could a match of the deny glob pattern lie inside a writable root? */
static bool glob_meets_writable(const struct sbx_roots *rt, const char *pattern)
{
	char *prefix = NULL;
	bool meets = true;

	if (rt->full_write)
		return true;
	if (pattern && sbx_glob_static_prefix(pattern, &prefix) == 0 && prefix) {
		meets = under_writable(rt, prefix);
		for (size_t i = 0; !meets && i < rt->n_writable; i++)
			meets = sbx_path_covers(prefix, rt->writable[i].root);
	}
	free(prefix);
	return meets;
}

/* Why, without a mount namespace, a denied path inside a readable tree is still enforced. */
static const char around_note[] =
	"Landlock grants the readable tree around it instead: a rule on every entry of each "
	"directory on the way down except the one leading to it; those directories stay listable, "
	"except above a denied directory (stricter than the profile), and the command is refused "
	"at start if one of them has more than " SBX_STR(SBX_LANDLOCK_DIR_ENTRIES_MAX) " entries";

/* The mechanism that keeps writes out of everything but the writable roots. */
static const char *write_mech(const struct host *h)
{
	if (h->ll && h->mnt)
		return "landlock+mount-namespace";
	if (h->ll)
		return "landlock";
	if (h->mnt)
		return "mount-namespace";
	return NULL;
}

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is a denied path strictly above path? One lookup per component: profiles hold 10,000s. */
static bool denied_above(const struct host *h, const char *path)
{
	char buf[SBX_MAX_PATH + 1];
	size_t len = strlen(path);

	if (!h->n_denied || len > SBX_MAX_PATH || path[0] != '/')
		return false;
	memcpy(buf, path, len + 1);
	for (;;) {
		const char *key = buf;

		while (len > 1 && buf[len - 1] != '/')
			len--;
		if (len <= 1)
			return false;
		buf[--len] = '\0'; /* the parent, without its trailing separator */
		if (bsearch(&key, h->denied, h->n_denied, sizeof(*h->denied), str_ptr_cmp))
			return true;
	}
}

static int attach_one(struct sbx_plan *p, struct sbx_req *r, const struct host *h)
{
	const struct sbx_roots *rt = &p->roots;
	const char *path = r->path ? r->path : "";
	const char *m;

	/*
	 * A path re-opened inside a denied directory. With a mount namespace the directory's mask
	 * is traversable but not listable, and the path is mounted again inside it (a clone taken
	 * before the masks, read-only or read-write as the path's own access says); Landlock grants
	 * it as any root. Without one, Landlock alone grants it (a read) or the deny inside a
	 * writable root is what cannot be enforced (said on the deny), so it falls through.
	 */
	if ((r->kind == SBX_REQ_READ || r->kind == SBX_REQ_WRITE) && r->path && h->mnt &&
	    denied_above(h, path)) {
		if (r->kind == SBX_REQ_READ && (h->ll || rt->full_read)) {
			enforced(r, h->ll ? "landlock+mount-namespace" : "mount-namespace");
			return 0;
		}
		if (r->kind == SBX_REQ_WRITE && !rt->full_write) {
			enforced(r, write_mech(h)); /* non-NULL: h->mnt */
			return 0;
		}
	}

	switch (r->kind) {
	case SBX_REQ_READ:
	case SBX_REQ_PLATFORM_DEFAULTS:
		if (h->ll) {
			enforced(r, "landlock");
			return 0;
		}
		if (rt->full_read || rt->full_write) {
			/* Everything is readable: there is nothing to restrict. */
			enforced(r, "none");
			return 0;
		}
		return set_why(r, SBX_UNENFORCEABLE, NULL,
			       "reading only some paths needs Landlock: %s", h->noll);

	case SBX_REQ_WRITE:
		if (rt->full_write) {
			enforced(r, "none");
			return 0;
		}
		m = write_mech(h);
		if (m) {
			enforced(r, m);
			return 0;
		}
		return set_why(r, SBX_UNENFORCEABLE, NULL,
			       "confining writes needs Landlock or a mount namespace: %s; %s",
			       h->noll, h->nomnt);

	case SBX_REQ_READ_ONLY:
		if (!r->exists)
			return set_why(r, SBX_UNENFORCEABLE, NULL,
				       "%s does not exist: making it read-only inside a writable "
				       "root would need a mount point created on the host; create "
				       "it first or drop the entry",
				       path);
		if (h->mnt) {
			enforced(r, "mount-namespace");
			return 0;
		}
		return set_why(r, SBX_UNENFORCEABLE, NULL,
			       "a read-only path inside a writable root needs a mount namespace "
			       "(Landlock cannot take back rights granted on a parent): %s",
			       h->nomnt);

	case SBX_REQ_PROTECT_MISSING:
		return set_why(r, SBX_SKIPPED, "none",
			       "%s does not exist; refusing its creation would need a mount point "
			       "created on the host (Landlock cannot refuse one name in a writable "
			       "directory), so the command can create it; create it beforehand to "
			       "have it protected",
			       path);

	case SBX_REQ_DENY:
		if (!r->exists) {
			if (under_writable(rt, path))
				return set_why(r, SBX_SKIPPED, "none",
					       "%s does not exist; a file the command creates "
					       "there stays readable to it",
					       path);
			/* It cannot appear: nothing outside the writable roots can be created. */
			m = write_mech(h);
			if (m) {
				enforced(r, m);
				return 0;
			}
			return set_why(r, SBX_UNENFORCEABLE, NULL,
				       "no mechanism confines writes: %s; %s", h->noll, h->nomnt);
		}
		if (h->mnt) {
			enforced(r, granted_tree_covers(rt, path) || !h->ll
					    ? "mount-namespace"
					    : "landlock+mount-namespace");
			return 0;
		}
		if (h->ll && !under_writable(rt, path)) {
			if (!granted_tree_covers(rt, path)) {
				enforced(r, "landlock"); /* nothing grants it */
				return 0;
			}
			return set_why(r, SBX_ENFORCED, "landlock", "no mount namespace here: %s",
				       around_note);
		}
		return set_why(
			r, SBX_UNENFORCEABLE, NULL,
			"denying %s inside a writable root needs a mount namespace (Landlock "
			"cannot take back rights granted on a parent): %s",
			path, h->nomnt);

	case SBX_REQ_DENY_GLOB:
		if (h->mnt) {
			enforced(r, "mount-namespace");
			return 0;
		}
		if (h->ll && !glob_meets_writable(rt, r->path))
			return set_why(r, SBX_ENFORCED, "landlock",
				       "no mount namespace here: the matches are found once, at "
				       "start, and for each %s",
				       around_note);
		return set_why(r, SBX_UNENFORCEABLE, NULL,
			       "masking the matches of %s inside a writable root needs a mount "
			       "namespace: %s",
			       path, h->nomnt);

	case SBX_REQ_NETWORK:
		if (p->network) {
			enforced(r, "none");
			return 0;
		}
		if (h->sec) {
			enforced(r, h->ll && h->f->landlock_abi >= 4 ? "seccomp+landlock-net"
								     : "seccomp");
			return 0;
		}
		return set_why(r, SBX_UNENFORCEABLE, NULL, "a restricted network needs seccomp: %s",
			       h->nosec);

	case SBX_REQ_MANAGED_NETWORK:
		return set_why(r, SBX_UNENFORCEABLE, NULL,
			       "managed network routing (a proxy inside the sandbox) is not "
			       "implemented by the Linux backend; drop --managed-network and "
			       "restrict or enable the network in the profile");

	case SBX_REQ_UNIX_SOCKET:
	case SBX_REQ_LOCAL_BINDING:
		return set_why(r, SBX_UNENFORCEABLE, NULL,
			       "%s is not implemented by the Linux backend yet; hint: drop %s, or "
			       "run the command on macOS",
			       r->kind == SBX_REQ_UNIX_SOCKET ? "a Unix socket allow-list"
							      : "local binding",
			       r->kind == SBX_REQ_UNIX_SOCKET ? "--allow-unix-socket"
							      : "--allow-local-binding");

	case SBX_REQ_METADATA:
		if (rt->full_write) {
			enforced(r, "none");
			return 0;
		}
		if (h->mnt) {
			enforced(r, "mount-namespace");
			return 0;
		}
		if (h->sec)
			/* Enforced, and stricter than the profile: say so. */
			return set_why(r, SBX_ENFORCED, "seccomp",
				       "no mount namespace (%s): chmod, chown, utimes and "
				       "extended attributes are refused everywhere, inside the "
				       "writable roots too",
				       h->nomnt);
		return set_why(r, SBX_UNENFORCEABLE, NULL,
			       "refusing chmod, chown and utimes outside the writable roots needs "
			       "a mount namespace or seccomp: %s; %s",
			       h->nomnt, h->nosec);
	}
	return 0;
}

int sbx_plan_attach_linux(struct sbx_plan *p, const struct sbx_linux_facts *f)
{
	struct host h = {.f = f};
	const char *hint;

	h.ll = f->landlock_abi >= 1 && f->no_new_privs && f->wsl != 1;
	h.sec = f->seccomp && f->no_new_privs && f->wsl != 1;
	h.mnt = f->mount_namespace && f->wsl != 1;

	if (f->wsl == 1) {
		hint = "WSL1 translates system calls and has none of Landlock, seccomp or "
		       "namespaces; hint: run under WSL2";
		snprintf(h.noll, sizeof(h.noll), "%s", hint);
		snprintf(h.nosec, sizeof(h.nosec), "%s", hint);
		snprintf(h.nomnt, sizeof(h.nomnt), "%s", hint);
	} else {
		if (!f->no_new_privs)
			snprintf(h.noll, sizeof(h.noll),
				 "prctl(PR_SET_NO_NEW_PRIVS) is unavailable (kernel %s)",
				 f->kernel);
		else
			snprintf(h.noll, sizeof(h.noll),
				 "Landlock is unavailable (kernel %s); hint: Linux 5.13 or later "
				 "with Landlock in the lsm= boot parameter",
				 f->kernel);
		snprintf(h.nosec, sizeof(h.nosec),
			 "seccomp filters are unavailable (kernel %s); hint: a kernel built with "
			 "CONFIG_SECCOMP_FILTER",
			 f->kernel);
		if (f->running_as_root && !f->user_namespaces && !f->userns_blocked_by[0])
			snprintf(h.nomnt, sizeof(h.nomnt),
				 "no mount namespace can be made (root without CAP_SYS_ADMIN); "
				 "hint: run with CAP_SYS_ADMIN or allow user namespaces");
		else
			snprintf(h.nomnt, sizeof(h.nomnt),
				 "no mount namespace can be made: user namespaces are blocked by "
				 "%s; "
				 "hint: allow unprivileged user namespaces (for AppArmor: the "
				 "sbxrun package's profile, or sysctl "
				 "kernel.apparmor_restrict_unprivileged_userns=0), or run as root",
				 f->userns_blocked_by[0] ? f->userns_blocked_by : "the host");
	}

	h.n_denied = p->roots.n_unreadable;
	if (h.n_denied) {
		h.denied = malloc(h.n_denied * sizeof(*h.denied));
		if (!h.denied)
			return -ENOMEM;
		memcpy(h.denied, p->roots.unreadable, h.n_denied * sizeof(*h.denied));
		qsort(h.denied, h.n_denied, sizeof(*h.denied), str_ptr_cmp);
	}
	for (size_t i = 0; i < p->n_reqs; i++) {
		int rc = attach_one(p, &p->reqs[i], &h);

		if (rc < 0) {
			free(h.denied);
			return rc;
		}
	}
	free(h.denied);
	return 0;
}
