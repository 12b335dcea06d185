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
 *   seccomp          always: the calls no sandbox needs (mounts, namespaces, bpf, keys, perf,
 *                    modules, io_uring, TIOCSTI); socket families and connect/bind/listen/
 *                    accept; metadata calls everywhere when there is no mount namespace
 *   landlock-net     TCP bind/connect (ABI 4)
 *
 *   pid-namespace    init (pid 1) of a new PID namespace: signals and ptrace reach nothing
 *                    outside by a pid, and every process ends with init
 *   process-group    the sandbox in a process group of its own (no controlling terminal):
 *                    kill(0) reaches the sandbox alone; a terminal's job keeps the caller's
 *                    group, and Landlock's signal scope or seccomp refuses kill(0) there
 *   ipc-namespace    System V IPC and POSIX message queues of its own
 *   supervisor       without a PID namespace: sbxrun as a child subreaper that kills what is
 *                    left below it when the command ends
 *
 * Missing protected names (.git, .agents, .codex that do not exist under a writable root), and
 * the first missing component of a denied path inside a writable root, get an empty read-only
 * mask, as Codex does: refusing the creation of one name inside a writable directory needs a
 * mount point there, which the supervisor makes on the host for the run and removes after it
 * (platform/linux/points.c). Without a mount namespace nothing can refuse it (Landlock grants
 * whole hierarchies, seccomp cannot read paths): unenforceable, like a read-only carve-out.
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
	f->pid_namespace = true;
	f->ipc_namespace = true;
	f->net_namespace = true;
	f->unix_broker = true;
}

/* A missing host feature: what is missing, and what the user can do about it. */
struct lack {
	char why[320];
	char hint[320];
};

struct host {
	const struct sbx_linux_facts *f;
	bool ll, sec, mnt;
	bool init;   /* the sandbox runs under its own init: PID, IPC and mount namespaces */
	bool netns;  /* and a network namespace of its own (with seccomp) */
	bool broker; /* and the supervisor's Unix socket broker */
	struct lack nonet, nobroker;
	const char **denied; /* the plan's denied paths, sorted, for ancestor lookups */
	size_t n_denied;
	struct lack nomnt, noll, nosec, noinit;
	char hint_write[700]; /* Landlock's or a mount namespace's fix, for writes */
	char hint_meta[700];  /* a mount namespace's or seccomp's fix, for metadata */
};

#define LL   SBX_MECH_LANDLOCK
#define MNT  SBX_MECH_MOUNT_NS
#define SEC  SBX_MECH_SECCOMP
#define PID  SBX_MECH_PID_NS
#define IPC  SBX_MECH_IPC_NS
#define SUP  SBX_MECH_SUPERVISOR
#define PGRP SBX_MECH_PROCESS_GROUP

/*
 * How a name that must not be created is kept so, in the words explain shows: a mask over a
 * mount point made on the host, shared by the runs that need it at once, removed by the last of
 * them (platform/linux/points.c). An empty object found there is such a point, not a file of
 * the user's: it counts as the name missing.
 */
static const char point_there[] = "only an empty mount point of another run is there (counted "
				  "as missing)";
#define POINT_REST                                                                                 \
	" (shared with other runs at the same time, removed by the last one after it ends, with "  \
	"whatever was created there on the host meanwhile: the exit status is then 1)"
static const char point_dir[] = "the name cannot be created: an empty read-only directory is "
				"mounted at it for the run" POINT_REST;
static const char point_file[] = "the name cannot be created: an empty read-only file is "
				 "mounted at it for the run" POINT_REST;
/* The caller's global git config's: what its own git writes there meanwhile is left. */
static const char point_dir_kept[] =
	"the name cannot be created: an empty read-only directory is mounted at it for the run "
	"(shared with other runs at the same time, removed by the last one after it ends; what "
	"the caller's git writes there on the host meanwhile is left: the exit status is then 1)";
static const char point_file_kept[] =
	"the name cannot be created: an empty read-only file is mounted at it for the run "
	"(shared with other runs at the same time, removed by the last one after it ends; what "
	"the caller's git writes there on the host meanwhile is left: the exit status is then 1)";
static const char point_commondir[] = "the name cannot be created: a read-only file naming "
				      "\".\" (what git takes a missing commondir for: the git "
				      "directory itself) is mounted at it for the run" POINT_REST;

/*
 * A missing name in a directory where nothing can be created for the length of the run (struct
 * sbx_fsview.sealed): no mask is needed, and none is made. With a mount namespace the helper
 * asks again of the directory it holds, and masks the name after all if the answer changed.
 */
static int sealed(const struct host *h, struct sbx_req *r)
{
	if (r->sealed == SBX_SEALED_UNMASKABLE && h->mnt)
		return sbx_req_set_self(
			r, SBX_UNENFORCEABLE, 0,
			"make the directory writable again (chmod u+w), or create the name", "",
			" does not exist, and its directory is yours (or yours to chmod) but not "
			"writable: the command can chmod it back and create the name, and the "
			"mount point its mask needs cannot be made there");
	if (r->sealed == SBX_SEALED_ALIASED && h->mnt)
		return sbx_req_set_self(
			r, SBX_UNENFORCEABLE, 0,
			"create the name, or make the other mount read-only (or run where the "
			"checkout is mounted writable)",
			"",
			" does not exist, and its directory is on a read-only mount of a file "
			"system that may be written elsewhere (a read-only bind of a writable "
			"tree, an overlay's layers): the command may create the name there, and "
			"the mount point its mask needs cannot be made on the read-only one");
	if (r->sealed == SBX_SEALED_UNMASKABLE || r->sealed == SBX_SEALED_ALIASED)
		return 1; /* as if not sealed: the caller's case says why */
	return sbx_req_set(r, SBX_ENFORCED, h->mnt ? MNT : SBX_MECH_NONE, NULL,
			   "it does not exist, and cannot be created here: %s (%s); no mask "
			   "needed",
			   sbx_sealed_name(r->sealed),
			   r->sealed == SBX_SEALED_ROFS
				   ? "the sandbox's writable bind is a clone of that read-only "
				     "mount, and the command makes no mount calls"
				   : "another user's directory, which you may not write and "
				     "cannot chmod");
}

/* A denied path's first missing component in a sealed directory (attach_one). */
static const char deny_sealed_hint[] =
	"create the denied path's first missing component, or deny an existing path instead";
static const char deny_sealed_why[] =
	" does not exist, and the mount point of the mask that keeps it from being created cannot "
	"be made in its directory (%s): without one the command could rename a directory on its "
	"way and create it";

/* The Landlock ABI that scopes signals to the sandbox (Linux 6.12). */
#define LL_ABI_SIGNAL_SCOPE 6

static void enforced(struct sbx_req *r, unsigned mech)
{
	sbx_req_set(r, SBX_ENFORCED, mech, NULL, NULL); /* cannot fail: nothing is copied */
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

/* Is path under where a writable root resolves (a root named through a link is kept as named)? */
static bool under_write_real(const struct sbx_plan *p, const char *path)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].kind == SBX_REQ_WRITE && p->reqs[i].real &&
		    sbx_path_covers(p->reqs[i].real, path))
			return true;
	return false;
}

/*
 * Does the link lie inside a writable root, named as the profile names it or as it resolves
 * (the walk reports links by their resolved place)?
 */
static bool link_in_writable(const struct sbx_plan *p, const char *link)
{
	const struct sbx_roots *rt = &p->roots;

	/*
	 * Strictly inside: a writable root that is itself a link (~/proj -> /data/proj) lets the
	 * command write where the link leads, not replace the link, whose directory it cannot write.
	 */
	if (rt->full_write)
		return true;
	for (size_t i = 0; i < rt->n_writable; i++)
		if (sbx_path_covers(rt->writable[i].root, link) &&
		    strcmp(rt->writable[i].root, link))
			return true;
	return under_write_real(p, link);
}

/*
 * The first link of the list links that lies inside a writable root, copied to one, or false.
 * Each is asked, not the first alone: the user's own link (~/p -> /tmp/x) may lead to one an
 * earlier run planted (/tmp/x -> ~/secret).
 */
static bool links_in_writable(const struct sbx_plan *p, const char *links, char one[SBX_MAX_PATH])
{
	size_t n;

	for (const char *l = links; *l; l += n + !!l[n]) {
		n = sbx_link_len(l);
		/* Longer than a path cannot be (the walk refuses it): refused, cut short. */
		snprintf(one, SBX_MAX_PATH, "%.*s", (int)n, l);
		if (n >= SBX_MAX_PATH || link_in_writable(p, one))
			return true;
	}
	return false;
}

/* The words before the path in the refusals of the link checks below ("what" is short). */
#define REFUSAL_LEAD_MAX 128
static void refusal_lead(char lead[REFUSAL_LEAD_MAX], const char *what)
{
	snprintf(lead, REFUSAL_LEAD_MAX, "cannot enforce sandbox %s ", what);
}

int sbx_linux_link_check(const struct sbx_plan *p, const char *what, const char *path,
			 const char *link, bool shared, const char *real, struct sbx_diag *d)
{
	char hint[SBX_MAX_PATH + 64], one[SBX_MAX_PATH], lead[REFUSAL_LEAD_MAX];

	if (!link || !link[0])
		return 0;
	if (real && !strcmp(real, path))
		/* A project root named through the link (sbx_ctx.cwd_link), and what lies under it. */
		snprintf(hint, sizeof(hint),
			 "the directory was named through that link (--cwd, a workspace root, "
			 "the shell's current directory): "
			 "name where it leads (%s) instead, or remove the link",
			 real);
	else if (real)
		snprintf(hint, sizeof(hint), "name the path it leads to (%s) instead", real);
	else
		snprintf(hint, sizeof(hint),
			 "remove the link (an earlier confined run may have made it), or name "
			 "another path");
	/*
	 * An earlier run could have planted a link inside a writable root, and whoever may replace
	 * a link elsewhere may point it anywhere between two starts: following either would put
	 * the rule (a grant, a mask) wherever they choose. Codex's words.
	 */
	refusal_lead(lead, what);
	if (links_in_writable(p, link, one))
		sbx_diag_set_about(d, SBX_E_UNENFORCEABLE, lead, path,
				   " because it crosses writable symlink %s", one);
	else if (shared) /* the shared one leads the list */
		sbx_diag_set_about(d, SBX_E_UNENFORCEABLE, lead, path,
				   " because it crosses symlink %.*s, which users other than "
				   "root and the caller can replace",
				   (int)sbx_link_len(link), link);
	else
		return 0; /* a system link (/lib -> usr/lib): followed */
	return sbx_diag_hint(d, SBX_E_UNENFORCEABLE, "%s", hint);
}

/*
 * A denied file is masked by its name; another name of the same file (a hard link) reads it
 * unmasked. Inside a writable root an earlier run may have made both: a file matching no rule
 * yet, linked under a name a deny glob matches later, where the user then writes a secret in
 * place. Outside one the command can have made neither, so only paths in a writable root are
 * asked about. The whole tree of a matched directory is asked about, file by file (inside).
 */
bool sbx_linux_in_writable(const struct sbx_plan *p, const char *path)
{
	/*
	 * A writable root named through a link (~/proj -> /data/proj) is kept as named; a file
	 * looked up under it is known by its resolved place: the root's own resolved place covers
	 * it too.
	 */
	if (under_writable(&p->roots, path))
		return true;
	return under_write_real(p, path);
}

static const char *link_what(enum sbx_req_kind k);

int sbx_linux_nlink_check(const struct sbx_plan *p, const char *what, const char *path,
			  const char *real, const char *inside, bool linked, struct sbx_diag *d)
{
	const char *file = inside ? inside : path;
	/* A read-only file is kept for what it says, a denied one for what it hides. */
	bool kept = !strcmp(what, link_what(SBX_REQ_READ_ONLY));
	char lead[REFUSAL_LEAD_MAX];

	/* As named or as resolved: the denied name and the writable root may each cross a link. */
	if (!linked || !(sbx_linux_in_writable(p, file) ||
			 (!inside && real && sbx_linux_in_writable(p, real))))
		return 0;
	refusal_lead(lead, what);
	if (inside)
		sbx_diag_set_about(d, SBX_E_UNENFORCEABLE, lead, path,
				   " because %s inside it has other names (hard links): the "
				   "command could read it through one of them",
				   inside);
	else
		sbx_diag_set_about(d, SBX_E_UNENFORCEABLE, lead, path,
				   " because it has other names (hard links): the command could "
				   "%s it through one of them",
				   kept ? "rewrite" : "read");
	/*
	 * A kept file's content is no secret: a copy of its own (one name) is kept, and the other
	 * names are left the old content, which nothing reads as the kept file (the words of
	 * git's global config's refusal). What it says may be an earlier run's: checked. The
	 * same file often has other names for innocent reasons (a `cp -l` tree, pnpm's store).
	 */
	if (kept && !inside)
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "give it a name of its own (cp -p %s %s.new && mv %s.new %s), "
				     "and check what it says",
				     file, file, file, file);
	/*
	 * Not "replace it with a copy": the other names keep the content (the secret the user
	 * wrote in place), and the next run reads it through them. They can be anywhere on its
	 * file system (/tmp too), so the search starts at that file system's top.
	 */
	return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
			     "remove its other names, which hold the same content (find "
			     "\"$(stat -c %%m %s)\" -xdev -samefile %s lists them)",
			     file, file);
}

/* What a requirement's path is, in the words of the symlink refusals. */
static const char *link_what(enum sbx_req_kind k)
{
	switch (k) {
	case SBX_REQ_READ:
		return "readable root";
	case SBX_REQ_WRITE:
		return "writable root";
	case SBX_REQ_READ_ONLY:
		return "read-only path";
	case SBX_REQ_DENY:
		return "deny-read path";
	default:
		return NULL;
	}
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

/* Do granted trees cover the static prefix of the pattern (so every match)? */
static bool glob_granted(const struct sbx_roots *rt, const char *pattern)
{
	char *prefix = NULL;
	bool covered = false;

	if (pattern && sbx_glob_static_prefix(pattern, &prefix) == 0 && prefix)
		covered = granted_tree_covers(rt, prefix);
	free(prefix);
	return covered;
}

/* Does the writable root that path (a protected name) lies directly in exist on the host? */
static bool parent_root_exists(const struct sbx_plan *p, const char *path)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;

	for (size_t i = 0; slash && i < p->n_reqs; i++) {
		const struct sbx_req *w = &p->reqs[i];

		if (w->kind != SBX_REQ_WRITE || !w->path)
			continue;
		if (n == 0 ? strcmp(w->path, "/") == 0
			   : strlen(w->path) == n && strncmp(w->path, path, n) == 0)
			return w->exists;
	}
	return true;
}

/* Why, without a mount namespace, a denied path inside a readable tree is still enforced. */
static const char around_note[] =
	"Landlock grants the readable tree around it instead: a rule on every entry of each "
	"directory on the way down except the one leading to it; those directories stay listable, "
	"except above a denied directory (stricter than the profile), and the command is refused "
	"at start if one of them has more than " SBX_STR(SBX_LANDLOCK_DIR_ENTRIES_MAX) " entries";

/* What Landlock leaves of a path it denies: it rules opening, not looking up. */
static const char lookup_note[] =
	"Landlock rules opening, not looking up: the denied path and a name guessed in it can "
	"still be looked up (whether it exists, its size, mode, owner and times, a symbolic "
	"link's text)";

/* The mechanisms that keep writes out of everything but the writable roots (0: none). */
static unsigned write_mech(const struct host *h)
{
	return (h->ll ? LL : 0) | (h->mnt ? MNT : 0);
}

/* Is a denied path strictly above path? One lookup per component: profiles hold 10,000s. */
static bool denied_above(const struct host *h, const char *path)
{
	return path[0] == '/' && sbx_path_under_sorted(h->denied, h->n_denied, path, false);
}

/* Does the plan put the sandbox in a network namespace of its own (where the host allows)? */
static bool uses_netns(const struct sbx_plan *p)
{
	return p->managed_network || (!p->network && p->net.allow_local_binding);
}

/*
 * Does the private /dev hide what r grants? With a mount namespace the sandbox's /dev is a tmpfs
 * of its own holding only the device allow-list and a /dev/shm of its own
 * (platform/linux/devfs.c), into which the roots under the host's /dev/shm are bound at their
 * paths (platform/linux/enter.c): they are enforced as anywhere. A root elsewhere in /dev but
 * those nodes, or a name to keep read-only or uncreated there, names nothing the command can
 * reach, and calling it enforced would be a lie. A deny there holds by itself.
 */
static bool hidden_by_private_dev(const struct sbx_plan *p, const struct sbx_req *r,
				  const struct host *h)
{
	return h->mnt && !p->roots.full_write && sbx_linux_private_dev_hides(r->kind, r->path);
}

/*
 * Does what r grants lie elsewhere than /dev but lead there, through a link that would be
 * followed, to a path the private /dev hides? The command follows the link to the private /dev,
 * where the object is not: calling the rule enforced would be a lie, as for the path named.
 */
static bool leads_into_private_dev(const struct sbx_plan *p, const struct sbx_req *r,
				   const struct host *h)
{
	/* real is path itself (the same pointer) when they are equal: most paths stop there. */
	return r->real && r->real != r->path && h->mnt && !p->roots.full_write &&
	       sbx_linux_private_dev_hides(r->kind, r->real);
}

/*
 * The first link r crosses that lies in /dev/shm (its length in *len), where the private /dev is
 * planned, or NULL. Its roots are bound there where they resolve: the link itself is not, and a
 * name that crosses it (under /dev/shm, or elsewhere through a link that leads there) finds
 * nothing. The link named is that one: the list may start with others (a project root's, or the
 * one that led there), which the private /dev does not hide.
 */
static const char *hidden_link_in_shm(const struct sbx_plan *p, const struct sbx_req *r,
				      const struct host *h, size_t *len)
{
	const char *links = sbx_req_link(r);

	/* A deny holds where the link leads, and the link is hidden. */
	if (!sbx_linux_dev_rule_kind(r->kind))
		return NULL;
	/* real is path itself (the same pointer) when they are equal: most paths stop there. */
	if (!r->real || r->real == r->path || !h->mnt || p->roots.full_write ||
	    strcmp(r->real, r->path) == 0)
		return NULL;
	for (const char *l = links ? links : ""; *l; l += *len + !!l[*len]) {
		*len = sbx_link_len(l);
		if (*len >= 8 && strncmp(l, "/dev/shm", 8) == 0 && (*len == 8 || l[8] == '/'))
			return l;
	}
	/* No link's own place listed (the list was cut short): the path itself is in /dev/shm. */
	if (!sbx_linux_private_shm(r->path))
		return NULL;
	*len = links ? sbx_link_len(links) : strlen(r->path);
	return links ? links : r->path;
}

/*
 * A deny glob whose static prefix is "/" or nothing: the helper refuses to expand it (it would
 * scan the whole file system, sbx_glob_expand()), so the plan says so, and explain with it.
 * Out of memory counts as unscannable: the run is refused either way.
 */
static bool glob_unscannable(const char *pattern)
{
	char *prefix = NULL;
	bool bad = sbx_glob_static_prefix(pattern, &prefix) < 0 || strcmp(prefix, "/") == 0 ||
		   !prefix[0];

	free(prefix);
	return bad;
}

/* Is a requirement of kind k in the plan? */
static bool has_req(const struct sbx_plan *p, enum sbx_req_kind k)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].kind == k)
			return true;
	return false;
}

/*
 * Abstract Unix sockets (no file: no file-system rule reaches them). Each way the network can
 * be confined keeps the host's out of reach by another mechanism, named here as the helper
 * applies it (platform/linux/network.c, landlock.c).
 */
static int attach_abstract(struct sbx_plan *p, struct sbx_req *r, const struct host *h)
{
	/* A network namespace of the sandbox's own: every abstract name in it is the sandbox's. */
	if (uses_netns(p) && h->netns)
		return sbx_req_set(r, SBX_ENFORCED, SBX_MECH_NET_NS | SEC, NULL,
				   "in the sandbox's own network namespace every abstract socket "
				   "is one the sandbox made");
	if (!p->network) {
		/* The host's namespace: the broker connects the allowed path sockets only. */
		if (p->net.n_unix_sockets && h->broker)
			return sbx_req_set(
				r, SBX_ENFORCED, SBX_MECH_UNIX_BROKER | SEC, NULL,
				"the host's network namespace, where each abstract "
				"socket is an outside process's: the supervisor refuses "
				"every abstract address (EPERM), with Landlock's scope or "
				"without it");
		if (h->sec)
			return sbx_req_set(r, SBX_ENFORCED, SEC, NULL,
					   "seccomp refuses connect, bind, listen and accept on "
					   "every socket (EPERM)");
		return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->nosec.hint,
				   "keeping abstract sockets out of reach with the network "
				   "restricted needs seccomp: %s",
				   h->nosec.why);
	}
	/* The network enabled, in the host's namespace: Landlock's scope alone refuses them. */
	if (h->ll && h->f->landlock_abi >= LL_ABI_SIGNAL_SCOPE) {
		/* The broker sees every connect where it keeps path sockets (network.c). */
		if (h->broker && has_req(p, SBX_REQ_PATH_SOCKETS))
			return sbx_req_set(
				r, SBX_ENFORCED, LL, NULL,
				"Landlock scopes them (EPERM) and the supervisor's broker answers "
				"EPERM for a name nobody bound as well, so connect does not tell "
				"which names the host has; its /proc/net/unix still lists them, "
				"and "
				"binding a name the host holds is EADDRINUSE");
		return sbx_req_set(r, SBX_ENFORCED, LL, NULL,
				   "Landlock scopes them (EPERM); without the supervisor's broker "
				   "(%s) connect tells a name the host has (EPERM) from one it has "
				   "not (ECONNREFUSED)",
				   h->broker ? "no path socket is confined" : h->nobroker.why);
	}
	/* Said, not refused, as for path sockets: an enabled network reaches them all. */
	return sbx_req_set(r, SBX_SKIPPED, SBX_MECH_NONE,
			   h->ll ? "Linux 6.12 or later (Landlock ABI 6)" : h->noll.hint,
			   "not enforceable here (%s): with the network enabled in the host's "
			   "network namespace the command can connect to any abstract socket "
			   "there; Landlock scopes them from ABI %d (Linux 6.12) on",
			   h->ll ? "this kernel's Landlock ABI is older" : h->noll.why,
			   LL_ABI_SIGNAL_SCOPE);
}

static int attach_one(struct sbx_plan *p, struct sbx_req *r, const struct host *h)
{
	const struct sbx_roots *rt = &p->roots;
	const char *path = r->path ? r->path : "";
	const char *what = link_what(r->kind), *via;
	size_t via_len = 0;
	unsigned m;
	int rc;

	if (hidden_by_private_dev(p, r, h))
		return sbx_req_set_self(
			r, SBX_UNENFORCEABLE, 0,
			"use a directory outside /dev (for $TMPDIR: unset it, or point it "
			"elsewhere, as /tmp)",
			"",
			" lies under /dev, which the sandbox replaces with a private /dev "
			"holding only the allowed devices and /dev/shm: the command "
			"would not find it there");
	if (leads_into_private_dev(p, r, h))
		return sbx_req_set_self(
			r, SBX_UNENFORCEABLE, 0,
			"use a directory outside /dev (for $TMPDIR: unset it, or point it "
			"elsewhere, as /tmp)",
			"",
			" leads to %s, under /dev, which the sandbox replaces with a "
			"private /dev holding only the allowed devices and a /dev/shm of its "
			"own: the command would not find it there",
			r->real);
	/*
	 * A grant of a device node elsewhere than /dev (to read or write it, or to read it in a
	 * writable root): with a mount namespace every mount but
	 * the private /dev is nodev, and the open fails (EACCES); without one Landlock has no
	 * right for devices, and the node would open as its mode allows. Neither keeps what the
	 * rule says alike on every host: refused by name, so that explain, access and run agree.
	 */
	if ((r->kind == SBX_REQ_READ || r->kind == SBX_REQ_WRITE ||
	     (r->kind == SBX_REQ_READ_ONLY && r->origin == SBX_ORIGIN_RULE)) &&
	    r->device && !sbx_path_covers("/dev", r->real ? r->real : path))
		return sbx_req_set_self(
			r, SBX_UNENFORCEABLE, 0,
			"open the device at its name in /dev (the allow-list), or drop the rule",
			"",
			" is a device node outside /dev: the sandbox opens no device but "
			"those of its own /dev (every other mount is nodev)");

	if (what && sbx_req_link(r)) {
		struct sbx_diag d;

		sbx_diag_clear(&d);
		if (sbx_linux_link_check(p, what, path, sbx_req_link(r), r->link_shared, r->real,
					 &d))
			return sbx_req_set_diag(r, SBX_UNENFORCEABLE, 0, d.hint, &d);
	}

	/*
	 * A denied file with another name: the command reads it through that one. A read-only
	 * one: the command rewrites it through that one, for the user and the next run to read
	 * (as the --profile file and git's configs, refused the same way where they are kept).
	 */
	if ((r->kind == SBX_REQ_DENY || r->kind == SBX_REQ_READ_ONLY) && r->exists && r->linked) {
		struct sbx_diag d;

		sbx_diag_clear(&d);
		if (sbx_linux_nlink_check(p, what, path, r->real, NULL, true, &d))
			return sbx_req_set_diag(r, SBX_UNENFORCEABLE, 0, d.hint, &d);
	}

	/*
	 * A link followed under /dev/shm (the caller's own, or the system's): the private /dev
	 * holds the root where the link leads, not the link, so the command would not find it
	 * by the name the profile gives.
	 */
	if ((via = hidden_link_in_shm(p, r, h, &via_len))) {
		char hint[SBX_MAX_PATH + 64];

		snprintf(hint, sizeof(hint), "name the path it leads to (%s) instead", r->real);
		return sbx_req_set_self(r, SBX_UNENFORCEABLE, 0, hint, "",
					" crosses symlink %.*s, which the sandbox's private /dev "
					"does not hold (it binds the roots under /dev/shm where "
					"they lead): the command would not find it there",
					(int)via_len, via);
	}

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
			enforced(r, (h->ll ? LL : 0) | MNT);
			return 0;
		}
		if (r->kind == SBX_REQ_WRITE && !rt->full_write) {
			enforced(r, write_mech(h)); /* non-zero: h->mnt */
			return 0;
		}
	}

	switch (r->kind) {
	case SBX_REQ_READ:
	case SBX_REQ_PLATFORM_DEFAULTS:
		if (h->ll) {
			enforced(r, LL);
			return 0;
		}
		if (rt->full_read || rt->full_write) {
			/* Everything is readable: there is nothing to restrict. */
			enforced(r, SBX_MECH_NONE);
			return 0;
		}
		return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->noll.hint,
				   "reading only some paths needs Landlock: %s", h->noll.why);

	case SBX_REQ_WRITE:
	case SBX_REQ_WRITE_CONFINED:
		if (rt->full_write) {
			enforced(r, SBX_MECH_NONE);
			return 0;
		}
		m = write_mech(h);
		if (m) {
			enforced(r, m);
			return 0;
		}
		return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->hint_write,
				   "confining writes needs Landlock or a mount namespace: %s; %s",
				   h->noll.why, h->nomnt.why);

	case SBX_REQ_READ_ONLY:
		if (!r->exists)
			return sbx_req_set_self(
				r, SBX_UNENFORCEABLE, 0, "create it first or drop the entry", "",
				" does not exist: making it read-only inside a writable "
				"root would need a mount point created on the host");
		if (h->mnt) {
			enforced(r, MNT);
			return 0;
		}
		if (r->origin == SBX_ORIGIN_PROFILE_FILE || r->origin == SBX_ORIGIN_ADDITION_FILE)
			return sbx_req_set_self(
				r, SBX_UNENFORCEABLE, 0,
				"keep the file outside the roots it makes writable (or run where a "
				"mount namespace can be made)",
				"",
				" is the %s file this run read its permissions from, inside a "
				"writable root: the command could rewrite it for its next run, and "
				"keeping it read-only needs a mount namespace (Landlock cannot "
				"take "
				"back rights granted on a parent): %s",
				r->origin == SBX_ORIGIN_PROFILE_FILE ? "--profile"
								     : "--add-permissions",
				h->nomnt.why);
		return sbx_req_set(
			r, SBX_UNENFORCEABLE, 0, h->nomnt.hint,
			"a read-only path inside a writable root needs a mount namespace "
			"(Landlock cannot take back rights granted on a parent): %s",
			h->nomnt.why);

	case SBX_REQ_PROTECT_MISSING:
		if (!parent_root_exists(p, path))
			return sbx_req_set(r, SBX_SKIPPED, SBX_MECH_NONE, NULL,
					   "its writable root does not exist: nothing is granted "
					   "to create it in");
		if (r->sealed && (rc = sealed(h, r)) <= 0)
			return rc;
		if (h->mnt)
			return sbx_req_set(r, SBX_ENFORCED, MNT, NULL, "%s; %s",
					   r->exists ? point_there : "it does not exist",
					   point_dir);
		return sbx_req_set_self(
			r, SBX_UNENFORCEABLE, 0, h->nomnt.hint, "",
			" does not exist; refusing its creation inside a writable root "
			"needs a mount namespace (Landlock cannot refuse one name in a "
			"writable directory): %s",
			h->nomnt.why);

	case SBX_REQ_NO_CREATE: {
		/*
		 * Unlike a missing protected name, not skipped: git mode's promise is that these
		 * stay git's own, and the command creating one (a commondir, a hooks directory)
		 * would make the next git outside the sandbox run its code. The mask keeps git
		 * working: git dies on an empty commondir, but takes one holding "." for the
		 * directory it lies in, as it takes a missing one.
		 */
		const char *holds = "";
		bool dir = false,
		     /* the caller's git config: an empty file whatever its name (gitroots.c) */
			file = r->origin && sbx_strv_has(&p->roots.git_files, path);

		if (r->sealed && (rc = sealed(h, r)) <= 0)
			return rc;
		if (h->mnt && (file || sbx_git_point(path, &dir, &holds))) {
			const char *how = dir ? point_dir : *holds ? point_commondir : point_file;

			if (file)
				dir = false, how = point_file_kept;
			else if (r->origin == SBX_ORIGIN_GIT_GLOBAL)
				how = dir ? point_dir_kept : point_file_kept;

			return sbx_req_set(r, SBX_ENFORCED, MNT, NULL, "%s; %s",
					   r->exists ? point_there : "it does not exist", how);
		}
		return sbx_req_set_self(
			r, SBX_UNENFORCEABLE, 0,
			sbx_git_checkout_point(path)
				? "check the submodule out (git submodule update), so that its "
				  ".git exists and stays read-only, or run on macOS"
				: "run without --allow-git (the git directory stays read-only), or "
				  "on macOS",
			"",
			" does not exist; refusing its creation needs a mount namespace "
			"(Landlock cannot refuse one name in a writable directory): %s",
			h->nomnt.why);
	}

	case SBX_REQ_DENY:
		/*
		 * A sealed directory on the way is no reason to go without a mask here: the first
		 * missing component may lie below the writable root, in a directory that an
		 * ordinary one above it holds, and renaming that one away lets the command make the
		 * whole path anew. The mask pins the way; its mount point cannot be made there.
		 */
		if (!r->exists && r->sealed && under_writable(rt, path) && h->mnt)
			return sbx_req_set_self(
				r, SBX_UNENFORCEABLE, 0, deny_sealed_hint, "", deny_sealed_why,
				sbx_sealed_name(r->sealed == SBX_SEALED_ROFS ||
								r->sealed == SBX_SEALED_ALIASED
							? r->sealed
							: SBX_SEALED_ACCESS));
		if (!r->exists) {
			if (under_writable(rt, path) && h->mnt)
				return sbx_req_set(
					r, SBX_ENFORCED, MNT, NULL,
					"it does not exist: an empty read-only file is mounted at "
					"its first missing component, made on the host for the run "
					"and removed after it, so it cannot be created");
			if (under_writable(rt, path))
				return sbx_req_set_self(
					r, SBX_UNENFORCEABLE, 0, h->nomnt.hint, "",
					" does not exist inside a writable root; keeping "
					"it from being created needs a mount namespace: %s",
					h->nomnt.why);
			/* It cannot appear: nothing outside the writable roots can be created. */
			m = write_mech(h);
			if (m) {
				enforced(r, m);
				return 0;
			}
			return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->hint_write,
					   "no mechanism confines writes: %s; %s", h->noll.why,
					   h->nomnt.why);
		}
		if (h->mnt) {
			enforced(r, granted_tree_covers(rt, path) || !h->ll ? MNT : LL | MNT);
			return 0;
		}
		if (h->ll && !under_writable(rt, path)) {
			if (!granted_tree_covers(rt, path)) {
				enforced(r, LL); /* nothing grants it */
				return 0;
			}
			return sbx_req_set(r, SBX_ENFORCED, LL, NULL,
					   "no mount namespace here: %s; %s", around_note,
					   lookup_note);
		}
		return sbx_req_set_self(r, SBX_UNENFORCEABLE, 0, h->nomnt.hint, "denying ",
					" inside a writable root needs a mount namespace "
					"(Landlock cannot take back rights granted on a parent): "
					"%s",
					h->nomnt.why);

	case SBX_REQ_DENY_GLOB:
		if (glob_unscannable(path))
			return sbx_req_set(r, SBX_UNENFORCEABLE, 0,
					   "use a pattern with a non-root directory prefix",
					   "its static prefix is /: the matches cannot be found "
					   "without scanning the whole file system");
		if (h->mnt) {
			/*
			 * Each match inside a granted tree is masked; one that nothing grants is
			 * refused by Landlock and left unmasked (a mask would only publish its
			 * path in /proc/self/mountinfo).
			 */
			enforced(r, h->ll && !glob_granted(rt, r->path) ? LL | MNT : MNT);
			return 0;
		}
		if (h->ll && !glob_meets_writable(rt, r->path))
			return sbx_req_set(
				r, SBX_ENFORCED, LL, NULL,
				"no mount namespace here: the matches are found once, at "
				"start, and for each %s; %s",
				around_note, lookup_note);
		return sbx_req_set_self(
			r, SBX_UNENFORCEABLE, 0, h->nomnt.hint, "masking the matches of ",
			" inside a writable root needs a mount namespace: %s", h->nomnt.why);

	case SBX_REQ_NETWORK:
		if (p->network) {
			enforced(r, SBX_MECH_NONE);
			return 0;
		}
		if (h->sec) {
			/* In a namespace of its own (above), Landlock's TCP rules add nothing. */
			enforced(r, SEC | (h->ll && h->f->landlock_abi >= 4 && !uses_netns(p)
						   ? SBX_MECH_LANDLOCK_NET
						   : 0));
			return 0;
		}
		return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->nosec.hint,
				   "a restricted network needs seccomp: %s", h->nosec.why);

	case SBX_REQ_MANAGED_NETWORK:
		if (!h->netns)
			return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->nonet.hint,
					   "managed networking needs a network namespace of the "
					   "sandbox's own: %s",
					   h->nonet.why);
		/*
		 * The namespace's only interface is lo, where the bridge's listeners are the
		 * only ones (the command cannot listen without local binding): a connection
		 * elsewhere finds no route (ENETUNREACH) or no listener (ECONNREFUSED).
		 */
		enforced(r, SBX_MECH_NET_NS | SEC);
		return 0;

	case SBX_REQ_LOCAL_BINDING:
		if (p->network && !p->managed_network) {
			enforced(r, SBX_MECH_NONE);
			return 0;
		}
		if (!h->netns)
			return sbx_req_set(
				r, SBX_UNENFORCEABLE, 0, h->nonet.hint,
				"serving on loopback with the network restricted needs a "
				"network namespace of the sandbox's own (nothing outside "
				"can reach it, it reaches nothing outside): %s",
				h->nonet.why);
		enforced(r, SBX_MECH_NET_NS | SEC);
		return 0;

	case SBX_REQ_SIGNALS:
		if (h->init && !h->f->terminal &&
		    (h->sec || (h->ll && h->f->landlock_abi >= LL_ABI_SIGNAL_SCOPE))) {
			/*
			 * A PID namespace leaves process groups as they are: kill(0) would reach
			 * every member of the caller's group, outside the namespace too. With no
			 * terminal there is no job control to keep, and the sandbox gets a group
			 * of its own. Landlock, where there is one, refuses ptrace of anything
			 * outside too. A terminal inherited all the same (a descriptor of one
			 * that is not the controlling terminal) names its own foreground group,
			 * outside, as the owner of SIGIO: below Landlock's signal scope, seccomp
			 * refuses signal-driven I/O (see below).
			 */
			enforced(r, PID | PGRP | (h->ll ? LL : 0) |
					    (h->ll && h->f->landlock_abi >= LL_ABI_SIGNAL_SCOPE
						     ? 0
						     : SEC));
			return 0;
		}
		if (h->init && h->ll && h->f->landlock_abi >= LL_ABI_SIGNAL_SCOPE)
			return sbx_req_set(r, SBX_ENFORCED, PID | LL, NULL,
					   "a terminal's job: the command stays in the caller's "
					   "process group, whose members outside the PID namespace "
					   "kill(0) reaches; Landlock's signal scope refuses them");
		if (h->init && h->sec)
			return sbx_req_set(
				r, SBX_ENFORCED, PID | SEC | (h->ll ? LL : 0), NULL,
				"a terminal's job: the command stays in the caller's "
				"process group, whose members outside the PID namespace "
				"kill(0) reaches, and this kernel has no Landlock signal "
				"scope: seccomp refuses kill(0), and signal-driven I/O "
				"(O_ASYNC, F_SETSIG), which the terminal would send that "
				"group (EPERM)");
		if (h->init && !h->f->terminal)
			return sbx_req_set(
				r, SBX_UNENFORCEABLE, 0, h->nosec.hint,
				"a terminal the command inherits names its foreground process "
				"group, outside the PID namespace, as the owner of its SIGIO "
				"(O_ASYNC): refusing signal-driven I/O needs seccomp or "
				"Landlock's signal scope (ABI %d, Linux 6.12): %s",
				LL_ABI_SIGNAL_SCOPE, h->nosec.why);
		if (h->init)
			return sbx_req_set(
				r, SBX_UNENFORCEABLE, 0,
				"run sbxrun without a controlling terminal (setsid), where the "
				"sandbox gets a process group of its own",
				"a terminal's job keeps the caller's process group, which kill(0) "
				"reaches across the PID namespace: refusing it needs seccomp or "
				"Landlock's signal scope (ABI %d, Linux 6.12): %s",
				LL_ABI_SIGNAL_SCOPE, h->nosec.why);
		/*
		 * Landlock has no rule for another process's resource limits or scheduling, which
		 * a process of the same uid may change (a CPU-time limit below what it has used
		 * kills it; the idle policy starves it): seccomp refuses prlimit, sched_set*,
		 * setpriority and ioprio_set of any process but the caller. The sandbox keeps the
		 * caller's process group here, terminal or not: Landlock's scope, which this model
		 * needs, keeps kill(0) in, and a SIGKILL of the caller's group (timeout -s KILL)
		 * still reaches what the command started, which no init ends with the run.
		 */
		if (h->ll && h->f->landlock_abi >= LL_ABI_SIGNAL_SCOPE && h->sec)
			return sbx_req_set(
				r, SBX_ENFORCED, LL | SEC, NULL,
				"no PID namespace here (%s): Landlock scopes signals to the "
				"sandbox and refuses ptrace of any process outside, and with it "
				"their memory, environment and descriptors in /proc, which still "
				"lists them; seccomp refuses changing their resource limits and "
				"scheduling (prlimit, sched_set*, setpriority and ioprio_set of "
				"another process)",
				h->noinit.why);
		if (h->ll && h->f->landlock_abi >= LL_ABI_SIGNAL_SCOPE)
			return sbx_req_set(
				r, SBX_UNENFORCEABLE, 0, h->noinit.hint,
				"keeping the processes outside out of reach needs a PID namespace, "
				"or seccomp beside Landlock (another process's resource limits and "
				"scheduling): "
				"%s; seccomp is unavailable",
				h->noinit.why);
		return sbx_req_set(
			r, SBX_UNENFORCEABLE, 0, h->noinit.hint,
			"keeping signals inside the sandbox needs a PID namespace or Landlock's "
			"signal scope (ABI %d, Linux 6.12): %s; %s",
			LL_ABI_SIGNAL_SCOPE, h->noinit.why,
			h->ll ? "this kernel's Landlock ABI is older" : h->noll.why);

	case SBX_REQ_IPC:
		if (h->init) {
			enforced(r, IPC);
			return 0;
		}
		if (h->sec)
			return sbx_req_set(r, SBX_ENFORCED, SEC, NULL,
					   "no IPC namespace here (%s): seccomp refuses System V "
					   "IPC and POSIX message queues to the command itself too "
					   "(stricter than the profile)",
					   h->noinit.why);
		return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->noinit.hint,
				   "keeping the System V IPC of outside processes out of reach "
				   "needs an IPC namespace or seccomp: %s; %s",
				   h->noinit.why, h->nosec.why);

	case SBX_REQ_DEVICES:
		if (h->mnt) {
			enforced(r, MNT);
			return 0;
		}
		if (h->ll && !under_writable(rt, "/dev"))
			return sbx_req_set(
				r, SBX_ENFORCED, LL, NULL,
				"no mount namespace here (%s): Landlock grants the readable trees "
				"around /dev, and a device only to /dev/null, zero, full, random, "
				"urandom, tty, ptmx and the command's own terminal; /dev/shm is "
				"out of reach (POSIX shared memory and semaphores fail); Landlock "
				"has no right for opening a device, so a node of a device "
				"elsewhere (an image's dev/ in a readable or writable root) "
				"opens as its mode allows",
				h->nomnt.why);
		if (h->ll)
			return sbx_req_set(
				r, SBX_UNENFORCEABLE, 0, h->nomnt.hint,
				"a writable root holds /dev, and without a mount namespace "
				"no private /dev can replace it: %s",
				h->nomnt.why);
		return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->hint_write,
				   "keeping host devices out of reach needs a mount namespace or "
				   "Landlock: %s; %s",
				   h->noll.why, h->nomnt.why);

	case SBX_REQ_PROCESSES:
		if (h->init) {
			enforced(r, PID);
			return 0;
		}
		return sbx_req_set(r, SBX_ENFORCED, SUP, NULL,
				   "no PID namespace here (%s): sbxrun stays the command's parent "
				   "as a child subreaper and kills every process left below it "
				   "when the command ends; a SIGKILL of sbxrun itself leaves them "
				   "running",
				   h->noinit.why);

	case SBX_REQ_UNIX_SOCKET:
		/* An enabled network reaches them all; the path-socket requirement decides. */
		if (p->network && !p->managed_network) {
			enforced(r, SBX_MECH_NONE);
			return 0;
		}
		if (!r->path) {
			enforced(r, SEC);
			return 0;
		}
		if (!h->broker)
			return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->nobroker.hint,
					   "connecting to one Unix socket and no other needs the "
					   "supervisor's broker: %s",
					   h->nobroker.why);
		enforced(r, SBX_MECH_UNIX_BROKER | SEC);
		return 0;

	case SBX_REQ_PATH_SOCKETS:
		if (h->broker) {
			enforced(r, SBX_MECH_UNIX_BROKER | SEC);
			return 0;
		}
		/* Said, not refused: an enabled network on an older kernel stays usable. */
		return sbx_req_set(r, SBX_SKIPPED, SBX_MECH_NONE, h->nobroker.hint,
				   "not enforceable here (%s): the command can connect to any "
				   "Unix socket on the file system it can name, a daemon's too",
				   h->nobroker.why);

	case SBX_REQ_ABSTRACT_SOCKETS:
		return attach_abstract(p, r, h);

	case SBX_REQ_KERNEL_SURFACE:
		if (h->sec) {
			enforced(r, SEC);
			return 0;
		}
		return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->nosec.hint,
				   "refusing the system calls no sandbox needs (mount and new "
				   "namespaces, bpf, kernel keys, perf events, module loading, "
				   "io_uring, faking terminal input) needs seccomp: %s",
				   h->nosec.why);

	case SBX_REQ_METADATA:
		if (rt->full_write) {
			enforced(r, SBX_MECH_NONE);
			return 0;
		}
		if (h->mnt) {
			enforced(r, MNT);
			return 0;
		}
		if (h->sec)
			/* Enforced, and stricter than the profile: say so. */
			return sbx_req_set(r, SBX_ENFORCED, SEC, NULL,
					   "no mount namespace (%s): chmod, chown, utimes and "
					   "extended attributes are refused everywhere, inside the "
					   "writable roots too",
					   h->nomnt.why);
		return sbx_req_set(r, SBX_UNENFORCEABLE, 0, h->hint_meta,
				   "refusing chmod, chown and utimes outside the writable roots "
				   "needs a mount namespace or seccomp: %s; %s",
				   h->nomnt.why, h->nosec.why);
	}
	return 0;
}

enum sbx_linux_devs sbx_linux_devs_for(const struct sbx_roots *rt, const struct sbx_linux_facts *f,
				       bool *init)
{
	/*
	 * The devices requirement's own choice (SBX_REQ_DEVICES), on the same facts; the processes
	 * requirement beside it takes init where the PID and IPC namespaces come along.
	 */
	*init = !rt->full_write && f->wsl != 1 && f->mount_namespace && f->pid_namespace &&
		f->ipc_namespace;
	if (rt->full_write || f->wsl == 1)
		return SBX_DEVS_NONE;
	if (f->mount_namespace)
		return SBX_DEVS_PRIVATE;
	if (f->landlock_abi >= 1 && f->no_new_privs && !under_writable(rt, "/dev"))
		return SBX_DEVS_LANDLOCK;
	return SBX_DEVS_NONE;
}

int sbx_plan_attach_linux(struct sbx_plan *p, const struct sbx_linux_facts *f)
{
	struct host h = {.f = f};

	h.ll = f->landlock_abi >= 1 && f->no_new_privs && f->wsl != 1;
	h.sec = f->seccomp && f->no_new_privs && f->wsl != 1;
	h.mnt = f->mount_namespace && f->wsl != 1;
	h.init = h.mnt && f->pid_namespace && f->ipc_namespace;

	if (f->wsl == 1) {
		static const struct lack wsl1 = {
			"WSL1 translates system calls and has none of Landlock, seccomp or "
			"namespaces",
			"run under WSL2"};

		h.noll = h.nosec = h.nomnt = wsl1;
	} else {
		if (!f->no_new_privs)
			snprintf(h.noll.why, sizeof(h.noll.why),
				 "prctl(PR_SET_NO_NEW_PRIVS) is unavailable (kernel %s)",
				 f->kernel);
		else
			snprintf(h.noll.why, sizeof(h.noll.why),
				 "Landlock is unavailable (kernel %s)", f->kernel);
		snprintf(h.noll.hint, sizeof(h.noll.hint),
			 "Linux 5.13 or later with Landlock in the lsm= boot parameter");
		snprintf(h.nosec.why, sizeof(h.nosec.why),
			 "seccomp filters are unavailable (kernel %s)", f->kernel);
		snprintf(h.nosec.hint, sizeof(h.nosec.hint),
			 "a kernel built with CONFIG_SECCOMP_FILTER");
		if (f->running_as_root && !f->user_namespaces && !f->userns_blocked_by[0]) {
			snprintf(h.nomnt.why, sizeof(h.nomnt.why),
				 "no mount namespace can be made (root without CAP_SYS_ADMIN)");
			snprintf(h.nomnt.hint, sizeof(h.nomnt.hint),
				 "run with CAP_SYS_ADMIN or allow user namespaces");
		} else {
			snprintf(
				h.nomnt.why, sizeof(h.nomnt.why),
				"no mount namespace can be made: user namespaces are blocked by %s",
				f->userns_blocked_by[0] ? f->userns_blocked_by : "the host");
			snprintf(h.nomnt.hint, sizeof(h.nomnt.hint),
				 "allow unprivileged user namespaces (for AppArmor: the "
				 "sbxrun package's profile, or sysctl "
				 "kernel.apparmor_restrict_unprivileged_userns=0), or run as root");
		}
	}
	if (!h.mnt) {
		h.noinit = h.nomnt;
	} else if (!h.init) {
		snprintf(h.noinit.why, sizeof(h.noinit.why),
			 "a mount namespace but no PID and IPC namespace can be made: clone(2) "
			 "refuses them, or user.max_pid_namespaces or user.max_ipc_namespaces "
			 "is 0");
		snprintf(h.noinit.hint, sizeof(h.noinit.hint),
			 "allow clone(2) with CLONE_NEWPID and CLONE_NEWIPC (a container's "
			 "seccomp profile), or raise those limits");
	}
	/*
	 * A network namespace is made by the clone(2) of init, with the other namespaces; the
	 * broker is the supervisor's, with a process of its own inside (platform/linux/broker.c).
	 */
	h.netns = h.sec && h.init && f->net_namespace;
	h.broker = h.netns && f->unix_broker;
	if (!h.sec)
		h.nonet = h.nosec;
	else if (!h.init)
		h.nonet = h.noinit;
	else if (!h.netns) {
		snprintf(h.nonet.why, sizeof(h.nonet.why),
			 "no network namespace can be made here (kernel %s)", f->kernel);
		snprintf(h.nonet.hint, sizeof(h.nonet.hint), "a kernel with network namespaces");
	}
	h.nobroker = h.nonet;
	if (h.netns && !h.broker) {
		snprintf(h.nobroker.why, sizeof(h.nobroker.why),
			 "kernel %s lacks seccomp user notification with pidfd_getfd", f->kernel);
		snprintf(h.nobroker.hint, sizeof(h.nobroker.hint), "Linux 5.9 or later");
	}
	/* Either of two features would do: either fix, once when they are the same. */
	snprintf(h.hint_write, sizeof(h.hint_write), "%s%s%s", h.noll.hint,
		 strcmp(h.noll.hint, h.nomnt.hint) ? "; or " : "",
		 strcmp(h.noll.hint, h.nomnt.hint) ? h.nomnt.hint : "");
	snprintf(h.hint_meta, sizeof(h.hint_meta), "%s%s%s", h.nomnt.hint,
		 strcmp(h.nomnt.hint, h.nosec.hint) ? "; or " : "",
		 strcmp(h.nomnt.hint, h.nosec.hint) ? h.nosec.hint : "");

	h.n_denied = p->roots.n_unreadable;
	if (h.n_denied) {
		h.denied = malloc(h.n_denied * sizeof(*h.denied));
		if (!h.denied)
			return -ENOMEM;
		memcpy(h.denied, p->roots.unreadable, h.n_denied * sizeof(*h.denied));
		sbx_sort_strs(h.denied, h.n_denied);
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

/* Does an enforced requirement name one of the mechanisms in bits (of kind k, when k >= 0)? */
static bool uses(const struct sbx_plan *p, unsigned bits, int k)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].status == SBX_ENFORCED && (p->reqs[i].mech & bits) &&
		    (k < 0 || (int)p->reqs[i].kind == k))
			return true;
	return false;
}

void sbx_plan_linux_apply(const struct sbx_plan *p, const struct sbx_linux_facts *f,
			  struct sbx_linux_apply *out)
{
	memset(out, 0, sizeof(*out));
	/* The network's namespace and broker need init and its supervisor too (netns.h). */
	if (uses(p, SBX_MECH_PID_NS | SBX_MECH_IPC_NS | SBX_MECH_NET_NS | SBX_MECH_UNIX_BROKER, -1))
		out->model = SBX_MODEL_INIT;
	else if (uses(p, SBX_MECH_SUPERVISOR, -1))
		out->model = SBX_MODEL_SUBREAPER;
	out->mount_namespace = uses(p, SBX_MECH_MOUNT_NS, -1);
	if (uses(p, SBX_MECH_LANDLOCK | SBX_MECH_LANDLOCK_NET, -1))
		out->landlock_abi = f->landlock_abi;
	out->landlock_fs = out->landlock_abi > 0 && !p->roots.full_write;
	out->landlock_net = uses(p, SBX_MECH_LANDLOCK_NET, SBX_REQ_NETWORK);
	out->seccomp_network = !p->network;
	out->seccomp_metadata = uses(p, SBX_MECH_SECCOMP, SBX_REQ_METADATA);
	out->net_namespace = uses(p, SBX_MECH_NET_NS, -1);
	out->unix_broker = uses(p, SBX_MECH_UNIX_BROKER, -1);
	/* One switch: the calls that reach processes outside by an identifier (no init). */
	out->seccomp_ipc =
		uses(p, SBX_MECH_SECCOMP, SBX_REQ_IPC) ||
		(out->model != SBX_MODEL_INIT && uses(p, SBX_MECH_SECCOMP, SBX_REQ_SIGNALS));
	out->own_group = uses(p, SBX_MECH_PROCESS_GROUP, SBX_REQ_SIGNALS);
	/*
	 * Under init seccomp keeps signals in for kill(0) of a terminal's job (a group of its
	 * own is the sandbox's to signal)...
	 */
	out->seccomp_pgrp = out->model == SBX_MODEL_INIT && !out->own_group &&
			    uses(p, SBX_MECH_SECCOMP, SBX_REQ_SIGNALS);
	/*
	 * ...and for signal-driven I/O, whose owner a terminal names itself (its foreground
	 * group, outside), in a group of its own too: wherever Landlock's scope does not.
	 */
	out->seccomp_async =
		out->model == SBX_MODEL_INIT && uses(p, SBX_MECH_SECCOMP, SBX_REQ_SIGNALS);
	out->private_dev = uses(p, SBX_MECH_MOUNT_NS, SBX_REQ_DEVICES);
	out->landlock_dev = !out->private_dev && uses(p, SBX_MECH_LANDLOCK, SBX_REQ_DEVICES);
}
