/* SPDX-License-Identifier: MIT */
/*
 * plan.c - the platform-neutral plan: the list of requirements a profile makes.
 *
 * Each requirement names one rule a user can read ("write /home/me/proj", "deny /etc/shadow",
 * "network restricted"). The platform attachers (plan_linux.c, sbpl.c, plan_windows.c) then set,
 * for each, the mechanism that enforces it on the target host or mark it unenforceable; a plan
 * with any unenforceable requirement is refused by `run`.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

/* Where requirements look their paths up, and where a failed look-up is worded. */
struct planner {
	struct sbx_plan *p;
	const struct sbx_ctx *ctx;
	struct sbx_diag *d;
};

/*
 * Appends a requirement: its rule written (owned: freed on failure), or NULL for a requirement
 * of a path, whose rule is written when it is read (sbx_req_rule). Its path is looked up once,
 * here, through the context's view: what it is (or that it is absent) is what the attachers plan
 * with; a look-up that fails other than by absence fails the plan, naming the path. A kept path
 * lies in the plan (its roots, or its arena of paths) and is not copied: at 10,000 entries a
 * copy each, or a rule each, would be a fifth of the plan's memory. A resolved path equal to it
 * is that same string.
 */
_Static_assert(sizeof(struct sbx_req) <= 48, "a requirement grew: a plan holds one per path");

/*
 * The links the caller's name of a project root crossed (a list), when path lies under that root
 * (the rule path, named from it, crosses them too), or NULL.
 */
static const char *root_link(const struct sbx_ctx *ctx, const char *path)
{
	if (!ctx)
		return NULL;
	if (!ctx->n_workspace_roots)
		return ctx->cwd && ctx->cwd_link && ctx->cwd_link[0] &&
				       sbx_path_covers(ctx->cwd, path)
			       ? ctx->cwd_link
			       : NULL;
	for (size_t i = 0; ctx->workspace_root_links && i < ctx->n_workspace_roots; i++) {
		const char *l = ctx->workspace_root_links[i];

		if (l && l[0] && sbx_path_covers(ctx->workspace_roots[i], path))
			return l;
	}
	return NULL;
}

/* Appends the list of links more to the list in buf (struct sbx_pathinfo.link). */
static int link_append(char *buf, size_t size, const char *more)
{
	size_t have = strlen(buf), sep = have > 0, n = strlen(more);

	if (have + sep + n >= size)
		return -ENAMETOOLONG;
	if (sep)
		buf[have] = '/';
	memcpy(buf + have + sep, more, n + 1);
	return 0;
}

static int req_put(struct planner *pl, enum sbx_req_kind kind, const char *path, bool kept,
		   char *rule)
{
	struct sbx_plan *p = pl->p;
	struct sbx_req *r;

	if (p->n_reqs == p->cap_reqs) {
		size_t cap = p->cap_reqs ? p->cap_reqs * 2 : 16;
		struct sbx_req *v = realloc(p->reqs, cap * sizeof(*v));

		if (!v) {
			free(rule);
			return -ENOMEM;
		}
		p->reqs = v;
		p->cap_reqs = cap;
	}
	r = &p->reqs[p->n_reqs];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->status = SBX_ENFORCED;
	r->rule = rule;
	if (path) {
		r->path_kept = kept;
		r->path = kept ? (char *)path : strdup(path);
		if (!r->path)
			goto nomem;
		/*
		 * Only POSIX paths are looked up (Windows paths stay symbolic on other hosts), and
		 * not a glob pattern (its matches are found when the command starts) nor a socket
		 * on the allow-list (not a file-system rule; the macOS attacher checks it).
		 */
		if (path[0] == '/' && kind != SBX_REQ_DENY_GLOB && kind != SBX_REQ_UNIX_SOCKET) {
			const struct sbx_fsview *v = sbx_ctx_fs(pl->ctx);
			struct sbx_pathinfo in;
			int rc = kept && v->lookup_kept ? v->lookup_kept(v->self, path, &in)
							: v->lookup(v->self, path, &in);

			if (rc < 0) {
				if (rc != -ENOMEM)
					sbx_lookup_failed(pl->d, rc, path);
				sbx_req_release(r);
				return rc;
			}
			r->exists = in.exists;
			r->type = in.type;
			r->link_shared = in.link_shared;
			r->linked = in.linked;
			r->is_link = in.is_link;
			/* S_IFCHR or S_IFBLK, spelled out: lib/ builds for Windows too. */
			r->device = in.exists && ((in.mode & 0170000) == 0020000 ||
						  (in.mode & 0170000) == 0060000);
			/* Its own links, then its root's: a refusal may name any of them. */
			if (root_link(pl->ctx, path) &&
			    (rc = link_append(in.link, sizeof(in.link),
					      root_link(pl->ctx, path)))) {
				sbx_lookup_failed(pl->d, rc, path);
				sbx_req_release(r);
				return rc;
			}
			if (in.exists)
				r->real = sbx_strcmp(in.real, r->path) == 0 ? r->path
									    : strdup(in.real);
			if (in.exists && !r->real)
				goto nomem;
			if (in.link[0] && (!(r->note = calloc(1, sizeof(*r->note))) ||
					   !(r->note->link = strdup(in.link))))
				goto nomem;
		}
	}
	p->n_reqs++;
	return 0;
nomem:
	sbx_req_release(r);
	return -ENOMEM;
}

static int req_add(struct planner *pl, enum sbx_req_kind kind, const char *path, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));

/* Appends a requirement with a rule written from fmt. */
static int req_add(struct planner *pl, enum sbx_req_kind kind, const char *path, const char *fmt,
		   ...)
{
	char *rule;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&rule, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	return req_put(pl, kind, path, false, rule);
}

/*
 * Appends the requirement of a path the plan keeps (its roots'), whose rule is its verb and the
 * path (sbx_req_rule).
 */
static int req_path(struct planner *pl, enum sbx_req_kind kind, const char *path)
{
	return req_put(pl, kind, path, true, NULL);
}

/* Room for n more requirements, so that a plan of many paths is not grown by doubling. */
static int req_reserve(struct sbx_plan *p, size_t n)
{
	struct sbx_req *v;

	if (p->n_reqs + n <= p->cap_reqs)
		return 0;
	v = realloc(p->reqs, (p->n_reqs + n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	p->reqs = v;
	p->cap_reqs = p->n_reqs + n;
	return 0;
}

/*
 * req_path(pl, kind, v[i]), with v[i + 1] hinted to the view fv as the next path asked (struct
 * sbx_fsview.ahead): the lists of the roots are what a large profile has many of.
 */
static int req_path_of(struct planner *pl, const struct sbx_fsview *fv, enum sbx_req_kind kind,
		       const char *const *v, size_t n, size_t i)
{
	if (fv->ahead && i + 1 < n)
		fv->ahead(fv->self, v[i + 1]);
	return req_path(pl, kind, v[i]);
}

/*
 * Whether the last requirement added, a name to keep uncreated that is missing (nothing at all
 * there, not even a link), lies in a sealed directory (struct sbx_fsview.sealed): the deepest
 * directory of its path that exists. A mask there is not needed; the helper asks again of the
 * descriptor it holds (platform/linux/points.c). Not known (an error, a view that cannot
 * tell): not sealed, and masked as ever.
 */
static int req_sealed(struct planner *pl, const struct sbx_fsview *fv)
{
	struct sbx_req *r = &pl->p->reqs[pl->p->n_reqs - 1];
	struct sbx_pathinfo in;
	size_t len;
	char *dir;
	int s;

	if (r->exists || r->is_link || !fv->sealed || !r->path || r->path[0] != '/' ||
	    pl->ctx->platform != SBX_PLATFORM_LINUX)
		return 0;
	dir = strdup(r->path);
	if (!dir)
		return -ENOMEM;
	for (;;) {
		len = sbx_path_parent_len(dir, strlen(dir));
		dir[len ? len : 1] = '\0';
		if (fv->lookup(fv->self, dir, &in) < 0) {
			in.exists = false;
			break;
		}
		if (in.exists || in.is_link || strcmp(dir, "/") == 0)
			break;
	}
	s = in.exists && !in.is_link && in.type == SBX_FT_DIR ? fv->sealed(fv->self, dir) : 0;
	free(dir);
	r->sealed = s > 0 ? (unsigned)s & 7 : 0;
	return 0;
}

/*
 * A grant the roots took in under a wider one (a --read of a path :read-only reads already) is
 * no requirement of its own, yet it is a rule the run must keep. On Linux the one kind that
 * cannot be kept there, a device node outside /dev (plan_linux.c), is made one, to be refused
 * by name as when it stands alone; any other such path is left to its root.
 */
static int device_grant_reqs(struct planner *pl)
{
	const struct sbx_fs *fs = &pl->p->profile.fs;
	const struct sbx_fsview *v = sbx_ctx_fs(pl->ctx);
	struct sbx_pathinfo in;
	int r = 0, rc;

	if (pl->ctx->platform != SBX_PLATFORM_LINUX)
		return 0;
	for (size_t i = 0; !r && i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];
		bool have = false;

		if (e->kind != SBX_PATH || !e->path || e->path[0] != '/' ||
		    (e->access != SBX_READ && e->access != SBX_WRITE))
			continue;
		for (size_t j = 0; !have && j < pl->p->n_reqs; j++)
			have = pl->p->reqs[j].path && strcmp(pl->p->reqs[j].path, e->path) == 0;
		if (have)
			continue;
		/* A look-up that fails leaves the path to its root, as before this check. */
		rc = v->lookup(v->self, e->path, &in);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0 || !in.exists ||
		    ((in.mode & 0170000) != 0020000 && (in.mode & 0170000) != 0060000))
			continue;
		r = req_put(pl, e->access == SBX_WRITE ? SBX_REQ_WRITE : SBX_REQ_READ, e->path,
			    false, NULL);
	}
	return r;
}

static int add_file_system_reqs(struct planner *pl)
{
	struct sbx_plan *p = pl->p;
	const struct sbx_roots *rt = &p->roots;
	/*
	 * Every list below, the platform defaults, the two confinements, the network and the four
	 * isolation requirements of a Linux sandbox.
	 */
	size_t want = rt->n_readable + rt->n_unreadable + rt->n_deny_globs + 8;
	const struct sbx_fsview *fv = sbx_ctx_fs(pl->ctx);
	int r;

	for (size_t i = 0; i < rt->n_writable; i++)
		want += 1 + rt->writable[i].n_read_only + rt->writable[i].n_protected_missing +
			rt->writable[i].no_create.n;
	r = req_reserve(p, want);

	/* Full read shows up as a readable root "/" (sbx_fs_roots lists it). */
	for (size_t i = 0; !r && i < rt->n_readable; i++)
		r = req_path_of(pl, fv, SBX_REQ_READ, (const char *const *)rt->readable,
				rt->n_readable, i);
	if (!r && rt->platform_defaults)
		r = req_add(pl, SBX_REQ_PLATFORM_DEFAULTS, NULL,
			    "read :minimal (platform defaults)");
	for (size_t i = 0; !r && i < rt->n_writable; i++) {
		const struct sbx_writable_root *w = &rt->writable[i];

		r = req_path(pl, SBX_REQ_WRITE, w->root);
		for (size_t j = 0; !r && j < w->n_read_only; j++)
			r = req_path_of(pl, fv, SBX_REQ_READ_ONLY,
					(const char *const *)w->read_only, w->n_read_only, j);
		for (size_t j = 0; !r && j < w->n_protected_missing; j++) {
			char *path = NULL, *kept = NULL;

			if (sbx_path_is_windows_abs(w->root)) {
				size_t n = strlen(w->root) + strlen(w->protected_missing[j]) + 2;

				path = malloc(n);
				r = path ? 0 : -ENOMEM;
				if (path)
					snprintf(path, n, "%s%s%s", w->root,
						 strchr("\\/", w->root[strlen(w->root) - 1]) ? ""
											     : "\\",
						 w->protected_missing[j]);
			} else {
				r = sbx_path_join(w->root, w->protected_missing[j], &path);
			}
			/* Kept in the plan's arena of paths, as the roots keep theirs. */
			if (!r && !(kept = sbx_arena_strndup(&p->paths, path, strlen(path))))
				r = -ENOMEM;
			if (!r)
				r = req_path(pl, SBX_REQ_PROTECT_MISSING, kept);
			if (!r)
				r = req_sealed(pl, fv);
			free(path);
		}
		for (size_t j = 0; !r && j < w->no_create.n; j++) {
			r = req_path(pl, SBX_REQ_NO_CREATE, w->no_create.v[j]);
			if (!r)
				r = req_sealed(pl, fv);
		}
	}
	for (size_t i = 0; !r && i < rt->n_unreadable; i++) {
		r = req_path_of(pl, fv, SBX_REQ_DENY, (const char *const *)rt->unreadable,
				rt->n_unreadable, i);
		if (!r)
			r = req_sealed(pl, fv);
	}
	for (size_t i = 0; !r && i < rt->n_deny_globs; i++)
		r = req_path(pl, SBX_REQ_DENY_GLOB, rt->deny_globs[i]);
	/* The hints name the roots' strings: forgotten before anything can free them. */
	if (fv->ahead)
		fv->ahead(fv->self, NULL);
	/*
	 * Writes go nowhere but the writable roots: a requirement of every restricted file system,
	 * whatever the number of roots. With none (:read-only) no "write" requirement above says
	 * that writes are confined, and a host with no mechanism for it must still refuse.
	 */
	if (!r && !rt->full_write)
		r = req_add(pl, SBX_REQ_WRITE_CONFINED, NULL,
			    "writes confined to the writable roots%s",
			    rt->n_writable ? "" : " (none)");
	/* Outside the writable roots even metadata (mode, owner, times) must stay unchanged. */
	if (!r && !rt->full_write)
		r = req_add(pl, SBX_REQ_METADATA, NULL,
			    "no metadata changes (chmod, chown, utimes) outside writable roots");
	/*
	 * A confined file system is only as good as what else the command can reach: the user's
	 * other processes (signals, ptrace, their System V IPC), the host's devices, and time (a
	 * daemon left behind runs unconfined by the end of the run). The Linux sandbox isolates
	 * these; each is a requirement with a mechanism of its own, or the run is refused.
	 */
	if (!r && !rt->full_write && pl->ctx->platform == SBX_PLATFORM_LINUX) {
		r = req_add(pl, SBX_REQ_SIGNALS, NULL,
			    "signals and ptrace only inside the sandbox");
		if (!r)
			r = req_add(pl, SBX_REQ_IPC, NULL,
				    "System V IPC of outside processes unreachable");
		if (!r)
			r = req_add(pl, SBX_REQ_DEVICES, NULL,
				    "no host device node reachable but the allow-list");
		if (!r)
			r = req_add(pl, SBX_REQ_PROCESSES, NULL, "processes end with the run");
	}
	return r;
}

static const char *input_option(const struct sbx_input *f)
{
	return f->origin == SBX_ORIGIN_PROFILE_FILE ? "--profile" : "--add-permissions";
}

/*
 * Can path lie in one of rt's writable roots? A cheap test before sbx_fs_can_write, which weighs
 * every entry: nothing outside them can be written.
 */
static bool in_writable(const struct sbx_roots *rt, const char *path)
{
	for (size_t i = 0; !rt->full_write && i < rt->n_writable; i++)
		if (sbx_path_covers(rt->writable[i].root, path))
			return true;
	return rt->full_write;
}

static bool can_write(const struct sbx_fs *fs, const struct sbx_roots *rt,
		      const struct sbx_ctx *ctx, const char *path)
{
	return in_writable(rt, path) && sbx_fs_can_write(fs, ctx, path);
}

/*
 * The name, under a writable root of rt named through a link (an entry "/home/u/proj" where proj
 * is the user's link to /data/proj), of what resolves to real (a file, or a link on the way to
 * it), when no root covers real as it is written: the roots are names, and a rule inside one is
 * one only when written under it, so the file's read entry must be too. 1 with name, 0 when no
 * root leads to real, or a look-up's error (worded in d).
 */
static int root_named(const struct sbx_fs *fs, const struct sbx_roots *rt,
		      const struct sbx_ctx *ctx, const char *real, char name[SBX_MAX_PATH],
		      struct sbx_diag *d)
{
	struct sbx_pathinfo root;
	int r;

	for (size_t i = 0; i < rt->n_writable; i++) {
		const char *named = rt->writable[i].root;
		size_t n;

		r = sbx_ctx_lookup(ctx, named, &root, d);
		if (r)
			return r;
		if (!root.exists || !strcmp(root.real, named) || !sbx_path_covers(root.real, real))
			continue;
		/* real lies below root.real: the same place, named from the root. */
		n = strcmp(root.real, "/") ? strlen(root.real) : 0;
		r = snprintf(name, SBX_MAX_PATH, "%s%s", named, real + n);
		if (r > 0 && r < SBX_MAX_PATH && can_write(fs, rt, ctx, name))
			return 1;
	}
	return 0;
}

/*
 * The files the run read its permissions from (sbx_ctx.inputs) that a writable root holds: a read
 * entry each, more specific than the root, so that the command cannot rewrite what its next run
 * reads; the roots then make it a read-only carve-out like any other (sbxrun(1), --profile). The
 * entry names the object that was read, where its name resolves: what is there now must be that
 * same object (device and inode), and no link on the way may lie where the command could point it
 * elsewhere. kept[i] is the entry's path for input i, or NULL when none was needed. Called only
 * for a profile with a writable root: a name outside every one may still lead into one through
 * the user's own link (~/ci.json -> ~/proj/ci.json), so each is looked up once (the walk's fast
 * path: three system calls for a name without a link).
 */
static int inputs_keep(struct sbx_fs *fs, const struct sbx_roots *rt, const struct sbx_ctx *ctx,
		       const char *kept[], struct sbx_diag *d)
{
	char alias[SBX_MAX_PATH];
	struct planner one = {.ctx = ctx, .d = d}, *pl = &one;
	struct sbx_pathinfo in;
	int r;

	for (size_t i = 0; i < ctx->n_inputs; i++) {
		const struct sbx_input *f = &ctx->inputs[i];
		const char *at = NULL;

		kept[i] = NULL;
		r = sbx_ctx_lookup(ctx, f->path, &in, NULL);
		if (r == -EACCES && f->by_fd)
			continue; /* out of reach of sbxrun's rights, so of the command's */
		if (r)
			return r == -ENOMEM ? sbx_diag_set(pl->d, r, "%s", sbx_strerror(r))
					    : sbx_lookup_failed(pl->d, r, f->path);
		if ((!in.exists || in.dev != f->dev || in.ino != f->ino) && f->link_up) {
			/* Named lexically, the file is another: say which ".." made it so. */
			sbx_diag_set(pl->d, SBX_E_UNENFORCEABLE,
				     "%s %s: its \"..\" after the symbolic link %s goes up from "
				     "where that link leads: sbxrun names the file lexically (%s), "
				     "and %s",
				     input_option(f), f->given ? f->given : f->path, f->link_up,
				     f->path,
				     in.exists ? "another file is there than the one it read"
					       : "nothing is there");
			return sbx_diag_hint(pl->d, SBX_E_UNENFORCEABLE,
					     "name the file without a \"..\" after a symbolic link "
					     "(realpath prints such a name)");
		}
		if (!in.exists || in.dev != f->dev || in.ino != f->ino) {
			sbx_diag_set(
				pl->d, SBX_E_UNENFORCEABLE, "%s %s: %s", input_option(f), f->path,
				in.exists ? "another file is there now than the one sbxrun read "
					    "its permissions from"
					  : "the file sbxrun read its permissions from is gone");
			return sbx_diag_hint(
				pl->d, SBX_E_UNENFORCEABLE,
				"something replaced or moved it meanwhile; check it, and "
				"run again");
		}
		for (const char *l = in.link; *l;) {
			size_t n = sbx_link_len(l);
			char link[SBX_MAX_PATH];

			snprintf(link, sizeof(link), "%.*s", (int)n, l);
			r = can_write(fs, rt, ctx, link) ? 1
							 : root_named(fs, rt, ctx, link, alias, d);
			if (r < 0)
				return r;
			if (r) {
				sbx_diag_set(
					pl->d, SBX_E_UNENFORCEABLE,
					"%s %s: named through the symbolic link %s, inside a "
					"writable root: the command could point it elsewhere for "
					"its next run",
					input_option(f), f->path, link);
				return sbx_diag_hint(
					pl->d, SBX_E_UNENFORCEABLE,
					"name the file the link leads to (%s), or keep it "
					"outside the writable roots",
					in.real);
			}
			l += n + !!l[n];
		}
		if (can_write(fs, rt, ctx, in.real))
			at = in.real;
		else if (can_write(fs, rt, ctx, f->path))
			at = f->path; /* a writable root named through the user's own link */
		else if ((r = root_named(fs, rt, ctx, in.real, alias, d)) < 0)
			return r;
		else if (r)
			at = alias; /* the same, the file named where it resolves */
		if (!at)
			continue;
		/*
		 * Another name of it (a hard link an earlier run made in a writable root) would
		 * write the very file a read-only mount keeps at this one.
		 */
		if (in.linked) {
			sbx_diag_set(
				pl->d, SBX_E_UNENFORCEABLE,
				"%s %s: the file has more than one name (a hard link), inside a "
				"writable root: the command could rewrite it through another "
				"for its next run",
				input_option(f), f->path);
			return sbx_diag_hint(pl->d, SBX_E_UNENFORCEABLE,
					     "give it a name of its own (cp FILE FILE.new && mv "
					     "FILE.new FILE), and check what it says");
		}
		r = sbx_fs_push_path(fs, at, SBX_READ, false);
		if (r)
			return r;
		kept[i] = fs->entries[fs->n - 1].path;
		/* A write entry on the file itself wins a tie with read (PRECEDENCE). */
		if (sbx_fs_can_write(fs, ctx, at)) {
			sbx_diag_set(
				pl->d, SBX_E_UNENFORCEABLE,
				"%s %s: the profile grants write on the file sbxrun read its "
				"permissions from: the command could rewrite it for its next run",
				input_option(f), f->path);
			return sbx_diag_hint(pl->d, SBX_E_UNENFORCEABLE,
					     "drop the write entry for it, or keep it outside the "
					     "writable roots");
		}
	}
	return 0;
}

int sbx_fs_roots_inputs(struct sbx_fs *fs, const struct sbx_ctx *ctx, struct sbx_roots *out,
			const char *kept[], struct sbx_diag *d)
{
	size_t n = fs->n;
	int r;

	for (size_t i = 0; i < ctx->n_inputs; i++)
		kept[i] = NULL;
	if (ctx->n_inputs > SBX_MAX_INPUTS)
		return sbx_diag_set(d, SBX_E_TOO_BIG, "more than %d files to read permissions from",
				    SBX_MAX_INPUTS);
	r = sbx_fs_roots(fs, ctx, out, d);
	/*
	 * The roots say whether any can be written; with a carve-out added, again. A profile that
	 * writes everywhere is left as it is: its command may write every file the caller can
	 * (the shell's start-up files among them), so keeping one file read-only protects nothing,
	 * and the carve-out would make it a restricted profile (masks at / that only root can make).
	 */
	if (r || !ctx->n_inputs || !out->n_writable || out->full_write)
		return r;
	r = inputs_keep(fs, out, ctx, kept, d);
	if (!r && fs->n != n) {
		sbx_roots_free(out);
		r = sbx_fs_roots(fs, ctx, out, d);
	}
	if (r)
		sbx_roots_free(out);
	return r;
}

/* Says which requirements keep the caller's global or system git config (explain shows it). */
static void git_globals_mark(struct sbx_plan *p)
{
	for (size_t j = 0; p->roots.git_globals.n && j < p->n_reqs; j++)
		if ((p->reqs[j].kind == SBX_REQ_READ_ONLY ||
		     p->reqs[j].kind == SBX_REQ_NO_CREATE) &&
		    !p->reqs[j].origin && sbx_strv_has(&p->roots.git_globals, p->reqs[j].path))
			p->reqs[j].origin = sbx_strv_has(&p->roots.git_system, p->reqs[j].path)
						    ? SBX_ORIGIN_GIT_SYSTEM
						    : SBX_ORIGIN_GIT_GLOBAL;
}

/* Says which requirement keeps which input read-only (explain shows it). */
static void inputs_mark(struct sbx_plan *p, const struct sbx_ctx *ctx, const char *const kept[])
{
	for (size_t i = 0; i < ctx->n_inputs; i++)
		for (size_t j = 0; kept[i] && j < p->n_reqs; j++)
			if (p->reqs[j].kind == SBX_REQ_READ_ONLY && !p->reqs[j].origin &&
			    strcmp(p->reqs[j].path, kept[i]) == 0)
				p->reqs[j].origin = ctx->inputs[i].origin;
}

/*
 * The plan's profile: effective materialized for ctx, or, given take, effective itself when
 * materializing would only copy it (its duplicates dropped as materialization drops them), so
 * that a profile of many entries is not held twice (when it expands, the entries that pass
 * unchanged are moved). With take, *take is left empty.
 */
static int plan_profile(const struct sbx_profile *effective, struct sbx_profile *take,
			const struct sbx_ctx *ctx, struct sbx_profile *out)
{
	if (take && !(take->fs.kind == SBX_FS_RESTRICTED && sbx_fs_expands(&take->fs, ctx))) {
		*out = *take;
		memset(take, 0, sizeof(*take));
		return out->fs.kind == SBX_FS_RESTRICTED ? sbx_fs_dedup(&out->fs) : 0;
	}
	if (take)
		return sbx_profile_materialize_take(take, ctx, out);
	return sbx_profile_materialize(effective, ctx, out);
}

static int plan_build(const struct sbx_profile *effective, struct sbx_profile *take,
		      const struct sbx_ctx *ctx, enum sbx_pref pref, bool managed_network,
		      enum sbx_windows_level wlevel, struct sbx_plan *out, struct sbx_diag *d)
{
	struct planner pl = {.p = out, .ctx = ctx, .d = d};
	int r;

	memset(out, 0, sizeof(*out));
	sbx_diag_clear(d);
	out->platform = ctx->platform;
	out->managed_network = managed_network;
	r = plan_profile(effective, take, ctx, &out->profile);
	if (r)
		goto fail;
	/* The helper gets the profile as JSON text; a path it cannot carry is refused here. */
	r = sbx_profile_check_text(&out->profile, d);
	if (r) {
		sbx_plan_free(out);
		return r;
	}
	out->network = out->profile.network;
	out->sandbox_requested = sbx_should_sandbox(&out->profile, pref, managed_network, ctx);
	out->sandbox = out->sandbox_requested ? sbx_platform_sandbox(ctx->platform, wlevel)
					      : SBX_SANDBOX_NONE;
	/* With no sandbox requested there is nothing to enforce, hence no requirements. */
	if (!out->sandbox_requested)
		return 0;

	if (out->profile.fs.kind == SBX_FS_RESTRICTED) {
		const char *kept[SBX_MAX_INPUTS];

		r = sbx_fs_roots_inputs(&out->profile.fs, ctx, &out->roots, kept, d);
		if (r)
			goto fail;
		r = add_file_system_reqs(&pl);
		if (!r)
			r = device_grant_reqs(&pl);
		if (!r)
			inputs_mark(out, ctx, kept);
		if (!r)
			git_globals_mark(out);
	} else {
		/* Unrestricted and external file systems: only the network is confined. */
		out->roots.full_read = out->roots.full_write = true;
		r = req_put(&pl, SBX_REQ_WRITE, "/", true, NULL);
	}
	if (!r)
		r = req_add(&pl, SBX_REQ_NETWORK, NULL, "network %s",
			    out->network ? "enabled" : "restricted");
	if (!r && managed_network)
		r = req_add(&pl, SBX_REQ_MANAGED_NETWORK, NULL, "managed network (proxy only)");
	/*
	 * Whatever the profile, a Linux sandbox refuses the calls that reach the kernel's largest
	 * attack surface or undo the other layers (platform/linux/seccomp.c): a requirement of
	 * every plan, so that a host without seccomp is refused here, naming it, and explain
	 * says so, rather than the enter sequence failing to load the filter.
	 */
	if (!r && ctx->platform == SBX_PLATFORM_LINUX)
		r = req_add(&pl, SBX_REQ_KERNEL_SURFACE, NULL, "kernel attack surface reduced");
	if (r)
		goto fail;
	return 0;
fail:
	sbx_plan_free(out);
	/* Kept only when nothing was recorded before (a look-up): the first error is reported. */
	return sbx_diag_set(d, r, "cannot plan the sandbox: %s", sbx_strerror(r));
}

int sbx_plan_build(const struct sbx_profile *effective, const struct sbx_ctx *ctx,
		   enum sbx_pref pref, bool managed_network, enum sbx_windows_level wlevel,
		   struct sbx_plan *out, struct sbx_diag *d)
{
	return plan_build(effective, NULL, ctx, pref, managed_network, wlevel, out, d);
}

int sbx_plan_build_take(struct sbx_profile *effective, const struct sbx_ctx *ctx,
			enum sbx_pref pref, bool managed_network, enum sbx_windows_level wlevel,
			struct sbx_plan *out, struct sbx_diag *d)
{
	return plan_build(effective, effective, ctx, pref, managed_network, wlevel, out, d);
}

/*
 * "managed network: connect only to the proxies at 127.0.0.1:3128, [::1]:1080", or for sbxrun's
 * own proxy "managed network: only through sbxrun's proxy, to example.com, *.github.com".
 */
static int managed_rule(const struct sbx_netplan *n, char **out)
{
	const struct sbx_proxies *px = &n->proxies;
	struct sbx_strbuf b = {0};

	if (n->own_proxy) {
		sbx_strbuf_puts(&b, "managed network: only through sbxrun's proxy, to");
		for (size_t i = 0; i < n->n_allow_domains; i++)
			sbx_strbuf_printf(&b, "%s %s", i ? "," : "", n->allow_domains[i]);
		for (size_t i = 0; i < n->n_deny_domains; i++)
			sbx_strbuf_printf(&b, "%s %s", i ? "," : " but not", n->deny_domains[i]);
		if (n->allow_private)
			sbx_strbuf_puts(&b, "; allowed names may lead to private addresses");
		*out = sbx_strbuf_finish(&b, NULL);
		return *out ? 0 : -ENOMEM;
	}
	sbx_strbuf_puts(&b, "managed network: connect only to the proxies at");
	for (size_t i = 0; i < px->n; i++) {
		const struct sbx_proxy_endpoint *a = &px->v[i];
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = px->v[k].port == a->port && strcmp(px->v[k].host, a->host) == 0;
		if (!seen)
			sbx_strbuf_printf(&b, "%s %s%s%s:%u", i ? "," : "", a->ipv6 ? "[" : "",
					  a->host, a->ipv6 ? "]" : "", a->port);
	}
	for (size_t i = 0; i < n->n_ports; i++)
		sbx_strbuf_printf(&b, "%s 127.0.0.1:%u", px->n || i ? "," : "", n->ports[i]);
	*out = sbx_strbuf_finish(&b, NULL);
	return *out ? 0 : -ENOMEM;
}

int sbx_plan_network(struct sbx_plan *p, const struct sbx_net_opts *o, struct sbx_diag *d)
{
	struct planner pl = {.p = p, .d = d};
	struct sbx_netplan *n = &p->net;
	struct sbx_strv socks = {0};
	int r = 0;

	if (o->n_unix_sockets > SBX_MAX_UNIX_SOCKETS)
		return sbx_diag_set(d, SBX_E_TOO_BIG, "more than %d Unix sockets to allow",
				    SBX_MAX_UNIX_SOCKETS);
	for (size_t i = 0; !r && i < o->n_unix_sockets; i++) {
		char *norm = NULL;

		r = sbx_unix_socket_normalize(o->unix_sockets[i], &norm, d);
		if (!r && !sbx_strv_has(&socks, norm))
			r = sbx_strv_push_owned(&socks, norm);
		else
			free(norm);
	}
	if (!r && o->n_ports > SBX_MAX_LOOPBACK_PORTS)
		r = sbx_diag_set(d, SBX_E_TOO_BIG, "more than %d loopback ports",
				 SBX_MAX_LOOPBACK_PORTS);
	/*
	 * Without a sandbox (--sandbox forbid) nothing is confined: no proxy is needed either.
	 * sbxrun's own proxy is made by the run, and the variables are set to it: on Linux inside
	 * the sandbox (no environment is given here), on macOS before planning (they are read).
	 */
	if (!r && p->managed_network && p->sandbox_requested && (!o->own_proxy || o->env) &&
	    (o->env || o->n_ports == 0))
		r = sbx_proxies_from_env(o->env, &n->proxies, d);
	if (r) {
		sbx_strv_clear(&socks);
		return r == -ENOMEM ? sbx_diag_set(d, r, "out of memory") : r;
	}
	/* Sorted, as Codex numbers its parameters (vector sb-08). */
	sbx_strv_sort(&socks);
	n->unix_sockets = socks.v;
	n->n_unix_sockets = socks.n;
	n->allow_local_binding = o->allow_local_binding;
	n->allow_all_unix_sockets = o->allow_all_unix_sockets;
	for (size_t i = 0; i < o->n_ports; i++)
		n->ports[n->n_ports++] = o->ports[i];
	n->own_proxy = o->own_proxy;
	n->allow_domains = o->allow_domains;
	n->n_allow_domains = o->n_allow_domains;
	n->deny_domains = o->deny_domains;
	n->n_deny_domains = o->n_deny_domains;
	n->allow_private = o->own_proxy && o->allow_private;
	if (!p->sandbox_requested)
		return 0;

	for (size_t i = 0; !r && i < p->n_reqs; i++) {
		struct sbx_req *q = &p->reqs[i];
		char *rule = NULL;

		if (q->kind != SBX_REQ_MANAGED_NETWORK)
			continue;
		r = managed_rule(n, &rule);
		if (!r) {
			free(q->rule);
			q->rule = rule;
		}
	}
	if (!r && n->allow_all_unix_sockets)
		r = req_add(&pl, SBX_REQ_UNIX_SOCKET, NULL, "connect to every Unix socket");
	for (size_t i = 0; !r && !n->allow_all_unix_sockets && i < n->n_unix_sockets; i++)
		r = req_add(&pl, SBX_REQ_UNIX_SOCKET, n->unix_sockets[i],
			    "connect to Unix socket %s", n->unix_sockets[i]);
	if (!r && n->allow_local_binding)
		r = req_add(&pl, SBX_REQ_LOCAL_BINDING, NULL, "bind and serve on loopback");
	/*
	 * An enabled network reaches every socket on the file system the file system lets the
	 * command name, daemons' included (Docker's is root on the host): on Linux, where
	 * Landlock cannot refuse connecting to one, this is a requirement of its own.
	 */
	if (!r && p->platform == SBX_PLATFORM_LINUX && p->network && !p->managed_network &&
	    !p->roots.full_write && !n->allow_all_unix_sockets)
		r = req_add(&pl, SBX_REQ_PATH_SOCKETS, NULL,
			    "Unix sockets outside the writable roots unreachable%s",
			    n->n_unix_sockets ? " but the allowed ones" : "");
	/*
	 * An abstract Unix socket has no file, so no file-system rule keeps it out of reach: in
	 * the host's network namespace every one is an outside process's (a desktop bus, a
	 * container runtime's). On Linux, wherever the network is confined in any way, this is a
	 * requirement of its own; the other platforms have no abstract sockets.
	 */
	if (!r && p->platform == SBX_PLATFORM_LINUX && !n->allow_all_unix_sockets &&
	    !(p->network && !p->managed_network && p->roots.full_write))
		r = req_add(&pl, SBX_REQ_ABSTRACT_SOCKETS, NULL,
			    "abstract Unix sockets of outside processes unreachable");
	return r ? sbx_diag_set(d, r, "cannot plan the network: %s", sbx_strerror(r)) : 0;
}

void sbx_plan_free(struct sbx_plan *p)
{
	if (!p)
		return;
	sbx_strv_free(p->net.unix_sockets, p->net.n_unix_sockets);
	for (size_t i = 0; i < p->n_reqs; i++)
		sbx_req_release(&p->reqs[i]);
	free(p->reqs);
	sbx_arena_free(&p->paths);
	sbx_roots_free(&p->roots);
	sbx_profile_free(&p->profile);
	memset(p, 0, sizeof(*p));
}

/* Intent without a backend is never enforceable, whatever the requirements say. */
bool sbx_plan_enforceable(const struct sbx_plan *p)
{
	if (p->sandbox_requested && p->sandbox == SBX_SANDBOX_NONE)
		return false;
	return sbx_plan_first_unenforceable(p) == NULL;
}

const struct sbx_req *sbx_plan_first_unenforceable(const struct sbx_plan *p)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].status == SBX_UNENFORCEABLE)
			return &p->reqs[i];
	return NULL;
}

/* The mechanism names, in the order they are joined: "landlock+mount-namespace". */
static const struct {
	unsigned bit;
	const char *name;
} mech_names[] = {
	{SBX_MECH_LANDLOCK, "landlock"},
	{SBX_MECH_MOUNT_NS, "mount-namespace"},
	{SBX_MECH_PID_NS, "pid-namespace"},
	{SBX_MECH_IPC_NS, "ipc-namespace"},
	{SBX_MECH_SECCOMP, "seccomp"},
	{SBX_MECH_LANDLOCK_NET, "landlock-net"},
	{SBX_MECH_SUPERVISOR, "supervisor"},
	{SBX_MECH_SEATBELT, "seatbelt"},
	{SBX_MECH_RESTRICTED_TOKEN, "restricted-token"},
	{SBX_MECH_NET_NS, "network-namespace"},
	{SBX_MECH_UNIX_BROKER, "unix-broker"},
	{SBX_MECH_PROCESS_GROUP, "process-group"},
};

const char *sbx_mech_name(unsigned mech, char buf[SBX_MECH_NAME_MAX])
{
	size_t o = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(mech_names) / sizeof(*mech_names); i++) {
		size_t n = strlen(mech_names[i].name);

		if (!(mech & mech_names[i].bit) || o + n + 2 > SBX_MECH_NAME_MAX)
			continue;
		if (o)
			buf[o++] = '+';
		memcpy(buf + o, mech_names[i].name, n + 1);
		o += n;
	}
	if (!o)
		snprintf(buf, SBX_MECH_NAME_MAX, "none");
	return buf;
}

const char *sbx_mech_one(unsigned bit)
{
	for (size_t i = 0; i < sizeof(mech_names) / sizeof(*mech_names); i++)
		if (mech_names[i].bit == bit)
			return mech_names[i].name;
	return NULL;
}

void sbx_req_release(struct sbx_req *r)
{
	if (r->real != r->path)
		free(r->real);
	if (!r->path_kept)
		free(r->path);
	free(r->rule);
	if (r->note) {
		free(r->note->reason);
		free(r->note->hint);
		free(r->note->link);
		free(r->note);
	}
	memset(r, 0, sizeof(*r));
}

const char *sbx_req_reason(const struct sbx_req *r)
{
	return r->note ? r->note->reason : NULL;
}

const char *sbx_req_hint(const struct sbx_req *r)
{
	return r->note ? r->note->hint : NULL;
}

const char *sbx_req_link(const struct sbx_req *r)
{
	return r->note ? r->note->link : NULL;
}

struct sbx_span sbx_req_self(const struct sbx_req *r)
{
	return r->note ? r->note->self : (struct sbx_span){0, 0};
}

/* Records the decision with reason (taken over, NULL for none), self its span of r's path. */
static int req_decide(struct sbx_req *r, enum sbx_req_status st, unsigned mech, const char *hint,
		      char *reason, struct sbx_span self)
{
	char *h = NULL;

	if ((hint && !(h = strdup(hint))) ||
	    ((reason || h) && !r->note && !(r->note = calloc(1, sizeof(*r->note))))) {
		free(reason);
		free(h);
		return -ENOMEM;
	}
	r->status = st;
	r->mech = mech;
	/* Most requirements are enforced with nothing to say: they keep no note. */
	if (r->note) {
		free(r->note->reason);
		free(r->note->hint);
		r->note->reason = reason;
		r->note->self = reason ? self : (struct sbx_span){0, 0};
		r->note->hint = h;
		if (!reason && !h && !r->note->link) {
			free(r->note);
			r->note = NULL;
		}
	}
	return 0;
}

int sbx_req_set(struct sbx_req *r, enum sbx_req_status st, unsigned mech, const char *hint,
		const char *fmt, ...)
{
	char *reason = NULL;
	va_list ap;

	if (fmt) {
		va_start(ap, fmt);
		if (vasprintf(&reason, fmt, ap) < 0)
			reason = NULL;
		va_end(ap);
		if (!reason)
			return -ENOMEM;
	}
	return req_decide(r, st, mech, hint, reason, (struct sbx_span){0, 0});
}

int sbx_req_set_self(struct sbx_req *r, enum sbx_req_status st, unsigned mech, const char *hint,
		     const char *lead, const char *fmt, ...)
{
	const char *path = r->path ? r->path : "";
	char *rest = NULL, *reason = NULL;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&rest, fmt, ap) < 0)
		rest = NULL;
	va_end(ap);
	if (!rest || asprintf(&reason, "%s%s%s", lead, path, rest) < 0)
		reason = NULL;
	free(rest);
	if (!reason)
		return -ENOMEM;
	return req_decide(r, st, mech, hint, reason, (struct sbx_span){strlen(lead), strlen(path)});
}

int sbx_req_set_diag(struct sbx_req *r, enum sbx_req_status st, unsigned mech, const char *hint,
		     const struct sbx_diag *d)
{
	char *reason = strdup(d->msg);

	if (!reason)
		return -ENOMEM;
	return req_decide(r, st, mech, hint, reason, d->about);
}
