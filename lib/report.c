/* SPDX-License-Identifier: MIT */
/*
 * report.c - the denial report's decisions: whether an operation that failed in the sandbox was
 * refused by it, by which rule and which mechanism, and the JSON line and summary that say so.
 *
 * The tracer (platform/linux/trace.c) sees every failure of the calls it watches; most are
 * ordinary (a file that does not exist, a mode bit). A failure is a denial only when the plan
 * refuses that operation on that path AND the errno is one the mechanism enforcing it gives:
 * nothing is reported that the profile allows, and a refusal the profile makes is reported
 * whichever layer met the call first.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

static const char *const op_names[] = {
	[SBX_OP_READ] = "read",	      [SBX_OP_WRITE] = "write",	  [SBX_OP_CREATE] = "create",
	[SBX_OP_DELETE] = "delete",   [SBX_OP_RENAME] = "rename", [SBX_OP_LINK] = "link",
	[SBX_OP_CHMOD] = "chmod",     [SBX_OP_CHOWN] = "chown",	  [SBX_OP_UTIMES] = "utimes",
	[SBX_OP_XATTR] = "xattr",     [SBX_OP_EXEC] = "exec",	  [SBX_OP_SOCKET] = "socket",
	[SBX_OP_CONNECT] = "connect", [SBX_OP_BIND] = "bind",	  [SBX_OP_LISTEN] = "listen",
	[SBX_OP_ACCEPT] = "accept",   [SBX_OP_CALL] = "call",
};

const char *sbx_op_name(enum sbx_op op)
{
	return (size_t)op < sizeof(op_names) / sizeof(*op_names) ? op_names[op] : "?";
}

/* The errnos a refusal can carry, and those an ordinary failure is often met with. */
static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{EACCES, "EACCES"}, {EPERM, "EPERM"},
	{EROFS, "EROFS"},   {ENOENT, "ENOENT"},
	{EBUSY, "EBUSY"},   {ENOSYS, "ENOSYS"},
	{EXDEV, "EXDEV"},   {ENOTDIR, "ENOTDIR"},
	{EEXIST, "EEXIST"}, {EINVAL, "EINVAL"},
	{ELOOP, "ELOOP"},   {ENOTEMPTY, "ENOTEMPTY"},
	{EISDIR, "EISDIR"}, {ECONNREFUSED, "ECONNREFUSED"},
};

const char *sbx_errno_name(int err)
{
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(*errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	return NULL;
}

/* ---- the plan as it resolves -------------------------------------------------------------- */

/* Does the plan enforce a requirement with one of these mechanism bits? */
static bool plan_uses(const struct sbx_plan *p, unsigned bits)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].status == SBX_ENFORCED && (p->reqs[i].mech & bits))
			return true;
	return false;
}

/* The entry e as it resolves: replaced by a path entry where it leads, when that differs. */
static int realize(struct sbx_entry *e, const struct sbx_ctx *ctx, struct sbx_diag *d)
{
	struct sbx_pathinfo *in;
	char *t = NULL;
	int r;

	if (e->kind == SBX_GLOB)
		return 0;
	r = sbx_entry_resolve(e, ctx, &t, d);
	if (r < 0 || !t)
		return r;
	in = malloc(sizeof(*in));
	if (!in) {
		free(t);
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	}
	r = sbx_ctx_lookup(ctx, t, in, d);
	if (r == 0 && in->exists && strcmp(in->real, t) != 0) {
		char *real = strdup(in->real);

		if (!real) {
			r = sbx_diag_set(d, -ENOMEM, "out of memory");
		} else {
			free(e->path);
			free(e->subpath);
			e->kind = SBX_PATH;
			e->path = real;
			e->subpath = NULL;
		}
	}
	free(in);
	free(t);
	return r;
}

int sbx_report_view_init(struct sbx_report_view *v, const struct sbx_plan *plan,
			 const struct sbx_ctx *ctx, const char *const *minimal, struct sbx_diag *d)
{
	int r;

	sbx_diag_clear(d);
	memset(v, 0, sizeof(*v));
	v->plan = plan;
	v->ctx = ctx;
	v->minimal = minimal;
	v->mount_namespace = plan_uses(plan, SBX_MECH_MOUNT_NS);
	v->landlock = plan_uses(plan, SBX_MECH_LANDLOCK);
	r = sbx_fs_copy(&v->real, &plan->profile.fs);
	if (r < 0)
		return sbx_diag_set(d, r, "out of memory");
	for (size_t i = 0; r == 0 && i < v->real.n; i++)
		r = realize(&v->real.entries[i], ctx, d);
	if (r < 0)
		sbx_report_view_free(v);
	return r;
}

void sbx_report_view_free(struct sbx_report_view *v)
{
	sbx_fs_clear(&v->real);
}

int sbx_report_model(const struct sbx_linux_facts *f, enum sbx_linux_model *model,
		     struct sbx_diag *d)
{
	if (*model == SBX_MODEL_INIT)
		return 0;
	/* The namespaces the supervisor's clone makes for init (sbx_linux_sandbox_flags). */
	if (*model == SBX_MODEL_IN_PLACE && f->mount_namespace && f->pid_namespace &&
	    f->ipc_namespace) {
		*model = SBX_MODEL_INIT;
		return 0;
	}
	sbx_diag_set(d, SBX_E_UNENFORCEABLE,
		     "--report: the denial report traces the command from a sandbox of its own "
		     "(a PID namespace), which this host cannot make%s%s",
		     f->userns_blocked_by[0] ? ": " : "", f->userns_blocked_by);
	return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
			     "a host where sbxrun can make a PID namespace (root with "
			     "CAP_SYS_ADMIN, or unprivileged user namespaces allowed), or run "
			     "without --report");
}

/* ---- deciding ----------------------------------------------------------------------------- */

/*
 * Does a deny of the plan that an empty mount masks cover path (where it leads)? A deny that
 * nothing grants is Landlock's alone (lib/plan_linux.c names both mechanisms then, and no mask
 * is mounted over it).
 */
static bool masked(const struct sbx_report_view *v, const char *path)
{
	const struct sbx_plan *p = v->plan;

	for (size_t i = 0; i < p->n_reqs; i++) {
		const struct sbx_req *r = &p->reqs[i];

		if (r->status != SBX_ENFORCED || (r->mech & SBX_MECH_LANDLOCK) ||
		    !(r->mech & SBX_MECH_MOUNT_NS) || !r->path)
			continue;
		if (r->kind == SBX_REQ_DENY && r->exists &&
		    sbx_path_covers(r->real ? r->real : r->path, path))
			return true;
		if (r->kind == SBX_REQ_DENY_GLOB &&
		    sbx_glob_covers_within(r->path, p->profile.fs.glob_depth, path))
			return true;
	}
	return false;
}

/* The requirement of this kind (NULL when the plan has none): its rule words a seccomp group. */
static const char *req_rule(const struct sbx_plan *p, enum sbx_req_kind k)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].kind == k && p->reqs[i].rule)
			return p->reqs[i].rule;
	return NULL;
}

/* What a seccomp rule of group g refused: that rule, in words. */
static char *seccomp_rule(const struct sbx_plan *p, enum sbx_seccomp_group g)
{
	const char *w = NULL;

	switch (g) {
	case SBX_SCG_KERNEL:
		w = "refused in every sandbox: mounts, kernel keys, bpf, perf events, kernel "
		    "modules";
		break;
	case SBX_SCG_TTY:
		w = "refused in every sandbox: faking terminal input (TIOCSTI, TIOCLINUX), "
		    "changing a Linux console's keyboard, font or VTs (every KD and VT request "
		    "but the getters), or a terminal's line discipline or exclusive mode "
		    "(TIOCSETD, TIOCEXCL)";
		break;
	case SBX_SCG_NAMESPACE:
		w = "refused in every sandbox: new namespaces";
		break;
	case SBX_SCG_PERSONALITY:
		w = "refused in every sandbox: execution domains (personality)";
		break;
	case SBX_SCG_METADATA:
	case SBX_SCG_IOCTL:
		w = req_rule(p, SBX_REQ_METADATA);
		break;
	case SBX_SCG_WATCH:
		w = "no inotify or fanotify watch: denied paths are enforced by Landlock alone";
		break;
	case SBX_SCG_IPC:
		w = req_rule(p, SBX_REQ_IPC);
		break;
	case SBX_SCG_PROCESSES:
		w = req_rule(p, SBX_REQ_SIGNALS);
		break;
	case SBX_SCG_NETWORK:
		/*
		 * With the network enabled the group refuses only Unix datagram sockets (the
		 * broker's filter, platform/linux/seccomp_net.c): not the network's rule.
		 */
		if (p->managed_network)
			w = req_rule(p, SBX_REQ_MANAGED_NETWORK);
		else if (p->network)
			w = "Unix datagram sockets: a datagram names its peer where no broker sees "
			    "it, and path sockets outside the writable roots stay unreachable";
		else
			w = req_rule(p, SBX_REQ_NETWORK);
		break;
	case SBX_SCG_NONE:
	case SBX_SCG_MAX:
		break;
	}
	return strdup(w ? w : "refused by the seccomp filter");
}

/* The rule by which the plan refuses to let path be read; NULL rule when it lets it. */
static int read_refused(const struct sbx_report_view *v, const char *path, struct sbx_access_why *a)
{
	int r = sbx_read_rule(v->plan, &v->real, v->ctx, path, v->minimal, a);

	if (r == 0 && a->access != SBX_DENY)
		sbx_access_why_free(a);
	return r;
}

/* The rule by which the plan refuses to let path be written; NULL rule when it lets it. */
static int write_refused(const struct sbx_report_view *v, const char *path,
			 struct sbx_access_why *a)
{
	int r = sbx_access_rule_in(&v->plan->profile, &v->real, v->ctx, path, a);

	if (r == 0 && a->access == SBX_WRITE)
		sbx_access_why_free(a);
	return r;
}

/*
 * Is where one of the plan's points (a missing protected name, a name git mode keeps), or, with
 * below, a point that is not a directory on its way? The mask there refuses a new name with
 * EEXIST or EISDIR, and a name below a file with ENOTDIR.
 */
static bool at_point(const struct sbx_report_view *v, const char *where, bool below)
{
	const struct sbx_plan *p = v->plan;

	for (size_t i = 0; i < p->n_reqs; i++) {
		const struct sbx_req *r = &p->reqs[i];
		const char *at = r->real ? r->real : r->path;
		const char *holds;
		bool dir = true;

		if (r->status != SBX_ENFORCED || !at ||
		    (r->kind != SBX_REQ_PROTECT_MISSING && r->kind != SBX_REQ_NO_CREATE))
			continue;
		if (!below && strcmp(at, where) == 0)
			return true;
		if (below && r->kind == SBX_REQ_NO_CREATE && sbx_git_point(at, &dir, &holds) &&
		    !dir && sbx_path_covers(at, where) && strcmp(at, where) != 0)
			return true;
	}
	return false;
}

/* The errno fits the mechanism the plan enforces a file refusal with: which (a bit), or 0. */
static unsigned fs_mech(const struct sbx_report_view *v, const struct sbx_op_seen *s,
			const char *where, bool read)
{
	const unsigned ns = v->mount_namespace ? SBX_MECH_MOUNT_NS : 0;

	switch (s->err) {
	case ENOENT:
		return ns && s->hidden && masked(v, where) ? ns : 0;
	case EROFS:
		return !read ? ns : 0;
	case EBUSY:
		/* A mount point of the sandbox cannot be removed or renamed. */
		return !read ? ns : 0;
	case EEXIST:
	case EISDIR:
		/* The empty object of a point is there: only at its name is that a refusal. */
		return ns && !read && at_point(v, where, false) ? ns : 0;
	case ENOTDIR:
		return ns && !read && at_point(v, where, true) ? ns : 0;
	case EACCES:
		/* A mask's mode refuses before Landlock is asked. */
		if (ns && masked(v, where))
			return ns;
		return v->landlock ? SBX_MECH_LANDLOCK : 0;
	}
	return 0;
}

/* That mechanism's name, as the plan words it, or NULL. */
static const char *fs_mechanism(const struct sbx_report_view *v, const struct sbx_op_seen *s,
				const char *where, bool read)
{
	return sbx_mech_one(fs_mech(v, s, where, read));
}

/* path, where it leads when known. */
static const char *leads(const char *path, const char *real)
{
	return real ? real : path;
}

/* An exec: the program (as named, where it leads), then its interpreter, that the plan refuses. */
static int exec_refused(const struct sbx_report_view *v, const struct sbx_op_seen *s,
			struct sbx_denial *out)
{
	const char *paths[4] = {s->path, s->real, s->interp, s->interp_real};

	for (size_t i = 0; i < 4; i++) {
		struct sbx_access_why a;
		const char *mech;
		int r;

		if (!paths[i] || paths[i][0] != '/')
			continue;
		r = read_refused(v, paths[i], &a);
		if (r < 0)
			return r;
		if (!a.rule)
			continue;
		mech = fs_mechanism(v, s, paths[i], true);
		if (!mech) {
			sbx_access_why_free(&a);
			return 0;
		}
		if (i >= 2) {
			char *w = NULL;

			if (asprintf(&w, "its interpreter %s: %s", paths[i], a.rule) < 0)
				w = NULL;
			free(a.rule);
			a.rule = w;
		}
		out->rule = a.rule;
		a.rule = NULL;
		sbx_access_why_free(&a);
		if (!out->rule)
			return -ENOMEM;
		out->mechanism = mech;
		return 1;
	}
	return 0;
}

int sbx_denial_decide(const struct sbx_report_view *v, const struct sbx_op_seen *s,
		      struct sbx_denial *out)
{
	struct sbx_access_why a = {0};
	const char *where = leads(s->path, s->real);
	int r;

	memset(out, 0, sizeof(*out));
	out->op = s->op == SBX_OP_CALL && s->call ? s->call : sbx_op_name(s->op);
	if (s->seccomp != SBX_SCG_NONE) {
		/* The filter itself refused it: there is no other cause to rule out. */
		out->mechanism = sbx_mech_one(SBX_MECH_SECCOMP);
		out->rule = seccomp_rule(v->plan, s->seccomp);
		return out->rule ? 1 : -ENOMEM;
	}
	if (!v->plan->sandbox_requested || !where)
		return 0;
	switch (s->op) {
	case SBX_OP_EXEC:
		return exec_refused(v, s, out);
	case SBX_OP_READ:
		r = read_refused(v, where, &a);
		break;
	case SBX_OP_LINK:
		/* The new name is made: the plan must let it be written. */
		where = leads(s->to, s->to_real);
		r = where ? write_refused(v, where, &a) : 0;
		break;
	case SBX_OP_RENAME:
		r = write_refused(v, where, &a);
		if (r == 0 && !a.rule && s->to) {
			where = leads(s->to, s->to_real);
			r = write_refused(v, where, &a);
		}
		break;
	case SBX_OP_WRITE:
	case SBX_OP_CREATE:
	case SBX_OP_DELETE:
	case SBX_OP_CHMOD:
	case SBX_OP_CHOWN:
	case SBX_OP_UTIMES:
	case SBX_OP_XATTR:
		r = write_refused(v, where, &a);
		break;
	default:
		/* Sockets and other calls are refused by seccomp alone (above). */
		return 0;
	}
	if (r < 0 || !a.rule)
		return r;
	out->mechanism = fs_mechanism(v, s, where, s->op == SBX_OP_READ);
	if (out->mechanism) {
		out->rule = a.rule;
		a.rule = NULL;
	}
	sbx_access_why_free(&a);
	return out->mechanism ? 1 : 0;
}

/* ---- the line and the summary ------------------------------------------------------------- */

static json_t *str_or_null(const char *s)
{
	return sbx_json_text(s);
}

char *sbx_report_line_json(const struct sbx_report_line *l)
{
	const char *en = l->err ? sbx_errno_name(l->err) : NULL;
	char errbuf[16];
	json_t *o = json_object();
	bool ok = o != NULL;

	if (l->err && !en) {
		snprintf(errbuf, sizeof(errbuf), "E%d", l->err);
		en = errbuf;
	}
	/* json_object_set_new steals the value and fails on NULL (a failed allocation). */
	ok = ok && !json_object_set_new(o, "time", str_or_null(l->time));
	ok = ok && !json_object_set_new(o, "pid", l->pid >= 0 ? json_integer(l->pid) : json_null());
	ok = ok && !json_object_set_new(o, "comm", str_or_null(l->comm));
	ok = ok && !json_object_set_new(o, "op", str_or_null(l->op));
	if (l->address)
		ok = ok && !json_object_set_new(o, "address", sbx_json_text(l->address));
	else
		ok = ok && !json_object_set_new(o, "path", str_or_null(l->path));
	if (l->to)
		ok = ok && !json_object_set_new(o, "to", sbx_json_text(l->to));
	ok = ok && !json_object_set_new(o, "errno", str_or_null(en));
	ok = ok && !json_object_set_new(o, "rule", str_or_null(l->rule));
	ok = ok && !json_object_set_new(o, "mechanism", str_or_null(l->mechanism));
	return sbx_json_line(o, ok);
}

char *sbx_report_brief(const struct sbx_report_line *l)
{
	const char *what = l->address ? l->address : l->path;
	char *s = NULL;

	if (asprintf(&s, "%s%s%s%s%s", l->op ? l->op : "?", what ? " " : "", what ? what : "",
		     l->rule ? ": " : "", l->rule ? l->rule : "") < 0)
		return NULL;
	return s;
}

char *sbx_report_summary(size_t n, const char *first)
{
	char *s = NULL;

	if (asprintf(&s, "%zu operation%s denied (first: %s); see --report", n,
		     n == 1 ? " was" : "s were", first ? first : "?") < 0)
		return NULL;
	return s;
}
