/* SPDX-License-Identifier: MIT */
/*
 * algebra.c - additional permissions: normalize, materialize, merge (union), intersect (what
 * survives an approval) and the effective profile (sbxrun-profile(5), ADDITIONAL PERMISSIONS).
 *
 * Nothing here removes a deny entry of a base: the effective profile only appends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

static bool has_deny_glob(const struct sbx_fs *fs)
{
	for (size_t i = 0; fs && i < fs->n; i++)
		if (fs->entries[i].kind == SBX_GLOB && fs->entries[i].access == SBX_DENY)
			return true;
	return false;
}

/* Depth of two sides that count: unbounded (0) if either is, else the larger. */
static unsigned merge_depth(bool ca, unsigned da, bool cb, unsigned db)
{
	if (!ca && !cb)
		return 0;
	if ((ca && !da) || (cb && !db))
		return 0;
	if (!ca)
		return db;
	if (!cb)
		return da;
	return da > db ? da : db;
}

/*
 * merge_glob_scan_max_depth: a side without deny globs does not count; any counting side that
 * is unbounded makes the result unbounded; otherwise the maximum.
 */
unsigned sbx_merge_glob_depth(const struct sbx_fs *a, const struct sbx_fs *b)
{
	return merge_depth(has_deny_glob(a), a ? a->glob_depth : 0, has_deny_glob(b),
			   b ? b->glob_depth : 0);
}

/* An empty file system is no file system. */
static void drop_empty(struct sbx_additional *a)
{
	if (a->has_fs && a->fs.n == 0) {
		sbx_fs_clear(&a->fs);
		a->has_fs = false;
	}
	a->fs.kind = SBX_FS_RESTRICTED;
}

int sbx_additional_normalize(struct sbx_additional *a, struct sbx_diag *d)
{
	int r;

	sbx_diag_clear(d);
	for (size_t i = 0; a->has_fs && i < a->fs.n; i++) {
		struct sbx_entry *e = &a->fs.entries[i];
		char *n = NULL;

		if (e->kind == SBX_GLOB && e->access != SBX_DENY)
			return sbx_diag_set(d, SBX_E_INVALID,
					    "glob file system permissions only support deny-read "
					    "entries");
		if (e->kind == SBX_PATH && sbx_path_is_posix_abs(e->path)) {
			/* Lexical only: symbolic links are preserved, never resolved. */
			r = sbx_path_normalize(e->path, &n);
			if (r)
				return sbx_diag_set(d, r, "%s: %s", e->path, strerror(-r));
			free(e->path);
			e->path = n;
		}
	}
	if (a->has_fs && (r = sbx_fs_dedup(&a->fs)))
		return sbx_diag_set(d, r, "%s", strerror(-r));
	drop_empty(a);
	return 0;
}

/* The cwd alone: additional permissions materialize against it, not the workspace roots. */
static struct sbx_ctx cwd_ctx(const struct sbx_ctx *ctx)
{
	struct sbx_ctx c = *ctx;

	c.workspace_roots = NULL;
	c.n_workspace_roots = 0;
	return c;
}

int sbx_additional_materialize(const struct sbx_additional *in, const struct sbx_ctx *ctx,
			       struct sbx_additional *out)
{
	struct sbx_ctx c = cwd_ctx(ctx);
	int r;

	memset(out, 0, sizeof(*out));
	out->network = in->network;
	out->has_fs = in->has_fs;
	if (!in->has_fs)
		return 0;
	r = sbx_fs_materialize(&in->fs, &c, &out->fs);
	if (r) {
		sbx_additional_free(out);
		return r;
	}
	drop_empty(out);
	return 0;
}

static int append_all(struct sbx_fs *dst, const struct sbx_fs *src)
{
	for (size_t i = 0; i < src->n; i++) {
		int r = sbx_fs_push(dst, &src->entries[i]);

		if (r)
			return r;
	}
	return 0;
}

int sbx_additional_merge(const struct sbx_additional *base, const struct sbx_additional *extra,
			 struct sbx_additional *out)
{
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->network = (base->network == 1 || extra->network == 1) ? 1 : -1;
	out->fs.kind = SBX_FS_RESTRICTED;
	if (!base->has_fs && !extra->has_fs)
		return 0;
	out->has_fs = true;
	if (base->has_fs)
		r = append_all(&out->fs, &base->fs);
	if (!r && extra->has_fs)
		r = append_all(&out->fs, &extra->fs);
	if (!r)
		r = sbx_fs_dedup(&out->fs);
	if (r) {
		sbx_additional_free(out);
		return r;
	}
	out->fs.glob_depth = sbx_merge_glob_depth(base->has_fs ? &base->fs : NULL,
						  extra->has_fs ? &extra->fs : NULL);
	drop_empty(out);
	return 0;
}

/* ---- intersection -------------------------------------------------------------------------- */

/* Resolved path of e, or for a glob its static prefix; *p NULL when there is none. */
static int anchor(const struct sbx_entry *e, const struct sbx_ctx *ctx, char **p)
{
	*p = NULL;
	if (e->kind == SBX_GLOB) {
		if (!sbx_path_is_posix_abs(e->path))
			return 0;
		return sbx_glob_static_prefix(e->path, p);
	}
	*p = sbx_special_resolve(e, ctx);
	return (!*p && errno == ENOMEM) ? -ENOMEM : 0;
}

/* Is p under a requested deny path, or matched by a requested deny glob? */
static int denied_by(const struct sbx_fs *req, const struct sbx_ctx *ctx, const char *p,
		     bool *denied)
{
	*denied = false;
	for (size_t i = 0; i < req->n && !*denied; i++) {
		const struct sbx_entry *e = &req->entries[i];
		char *t;

		if (e->access != SBX_DENY)
			continue;
		if (e->kind == SBX_GLOB) {
			*denied = sbx_glob_match(e->path, p);
			continue;
		}
		t = sbx_special_resolve(e, ctx);
		if (!t && errno == ENOMEM)
			return -ENOMEM;
		*denied = t && sbx_path_covers(t, p);
		free(t);
	}
	return 0;
}

/*
 * Is the granted entry g (materialized) covered by the requested policy? A grant that resolves
 * must land where the request gives at least its access and no requested deny reaches; one
 * that does not resolve must be named identically by a request entry of at least its access.
 */
static int grant_accepted(const struct sbx_entry *g, const struct sbx_fs *req,
			  const struct sbx_ctx *ctx, bool *ok)
{
	enum sbx_access a;
	bool denied;
	char *p;
	int r;

	*ok = false;
	if (g->access == SBX_DENY || g->kind == SBX_GLOB)
		return 0; /* a deny is never a grant; a glob can only deny */
	if (g->kind == SBX_SPECIAL && g->special == SBX_SP_SLASH_TMP &&
	    ctx->platform == SBX_PLATFORM_WINDOWS)
		return 0;
	p = sbx_special_resolve(g, ctx);
	if (!p) {
		if (errno == ENOMEM)
			return -ENOMEM;
		for (size_t i = 0; i < req->n && !*ok; i++) {
			const struct sbx_entry *e = &req->entries[i];

			*ok = sbx_entry_same_path(e, g) &&
			      (e->access == SBX_WRITE || e->access == g->access);
		}
		return 0;
	}
	a = sbx_fs_resolve_access(req, ctx, p, NULL);
	*ok = g->access == SBX_WRITE ? a == SBX_WRITE : (a == SBX_READ || a == SBX_WRITE);
	if (*ok) {
		r = denied_by(req, ctx, p, &denied);
		if (r) {
			free(p);
			return r;
		}
		*ok = !denied;
	}
	free(p);
	return 0;
}

/* Does the deny entry overlap an accepted grant (prefix relation either way)? */
static int overlaps(const struct sbx_entry *deny, const struct sbx_fs *acc,
		    const struct sbx_ctx *ctx, bool *hit)
{
	char *dp = NULL;
	int r = anchor(deny, ctx, &dp);

	*hit = false;
	if (r || !dp)
		return r;
	for (size_t i = 0; i < acc->n && !*hit; i++) {
		char *gp = sbx_special_resolve(&acc->entries[i], ctx);

		if (!gp && errno == ENOMEM) {
			r = -ENOMEM;
			break;
		}
		*hit = gp && (sbx_path_covers(dp, gp) || sbx_path_covers(gp, dp));
		free(gp);
	}
	free(dp);
	return r;
}

/* Appends the denies of side that overlap an accepted grant; *kept_glob when one was a glob. */
static int keep_denies(const struct sbx_fs *side, const struct sbx_fs *acc,
		       const struct sbx_ctx *ctx, struct sbx_fs *out, bool *kept_glob)
{
	*kept_glob = false;
	for (size_t i = 0; i < side->n; i++) {
		const struct sbx_entry *e = &side->entries[i];
		bool hit;
		int r;

		if (e->access != SBX_DENY)
			continue;
		r = overlaps(e, acc, ctx, &hit);
		if (!r && hit) {
			r = sbx_fs_push(out, e);
			if (e->kind == SBX_GLOB)
				*kept_glob = true;
		}
		if (r)
			return r;
	}
	return 0;
}

/*
 * Codex's intersect_permission_profiles (sbxrun-profile(5), ADDITIONAL PERMISSIONS): the network
 * only when both enable it; a granted
 * read or write entry only where the request covers it (grant_accepted); accepted entries are
 * stored materialized against the cwd so a later cwd cannot reuse them (mi-08); denies of
 * either side are kept, materialized, when they overlap an accepted grant; the depth merges
 * over the sides whose deny globs were kept.
 */
int sbx_additional_intersect(const struct sbx_additional *requested,
			     const struct sbx_additional *granted, const struct sbx_ctx *ctx,
			     struct sbx_additional *out)
{
	struct sbx_ctx c = cwd_ctx(ctx);
	struct sbx_fs req = {0}, gr = {0};
	bool kr = false, kg = false;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->network = (requested->network == 1 && granted->network == 1) ? 1 : -1;
	out->fs.kind = SBX_FS_RESTRICTED;
	if (!requested->has_fs || !granted->has_fs)
		return 0;
	if ((r = sbx_fs_materialize(&requested->fs, &c, &req)) ||
	    (r = sbx_fs_materialize(&granted->fs, &c, &gr)))
		goto out;
	req.kind = gr.kind = SBX_FS_RESTRICTED;
	for (size_t i = 0; i < gr.n; i++) {
		bool ok;

		r = grant_accepted(&gr.entries[i], &req, &c, &ok);
		if (!r && ok)
			r = sbx_fs_push(&out->fs, &gr.entries[i]);
		if (r)
			goto out;
	}
	if (out->fs.n) {
		struct sbx_fs acc = {0};

		/* The overlap test looks at the accepted grants only, not at kept denies. */
		if ((r = sbx_fs_copy(&acc, &out->fs)))
			goto out;
		r = keep_denies(&req, &acc, &c, &out->fs, &kr);
		if (!r)
			r = keep_denies(&gr, &acc, &c, &out->fs, &kg);
		sbx_fs_clear(&acc);
		if (r)
			goto out;
	}
	if ((r = sbx_fs_dedup(&out->fs)))
		goto out;
	out->fs.glob_depth = merge_depth(kr, req.glob_depth, kg, gr.glob_depth);
	out->has_fs = true;
	drop_empty(out);
out:
	sbx_fs_clear(&req);
	sbx_fs_clear(&gr);
	if (r)
		sbx_additional_free(out);
	return r;
}

/*
 * effective_permission_profile: a restricted base gains the extra entries it does not already
 * have (appended, so base denies stay and keep their place) and the merged depth; unrestricted
 * and external bases are unchanged. With an extra profile present the network is enabled when
 * the base or the extra enables it, else restricted. The profile type is preserved (mi-20).
 * extra is expected materialized (sbx_additional_materialize).
 */
int sbx_profile_effective(const struct sbx_profile *base, const struct sbx_additional *extra,
			  struct sbx_profile *out)
{
	int r = sbx_profile_copy(out, base);

	if (r || !extra)
		return r;
	if (base->type == SBX_MANAGED && base->fs.kind == SBX_FS_RESTRICTED && extra->has_fs) {
		/*
		 * Append, then drop exact duplicates keeping the first: an extra entry the base
		 * already has disappears, and so does an exact repeat within the base, which
		 * changes nothing (linear, where a containment test per entry is quadratic).
		 */
		r = append_all(&out->fs, &extra->fs);
		if (!r)
			r = sbx_fs_dedup(&out->fs);
		if (r) {
			sbx_profile_free(out);
			return r;
		}
		out->fs.glob_depth = sbx_merge_glob_depth(&base->fs, &extra->fs);
	}
	out->network = base->network || extra->network == 1;
	return 0;
}
