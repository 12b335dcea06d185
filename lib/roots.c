/* SPDX-License-Identifier: MIT */
/*
 * roots.c - the roots every platform enforces from (sbx_fs_roots): readable and writable roots,
 * the read-only carve-outs inside writable roots (explicit entries and protected metadata:
 * .git, .agents, .codex, the git directories git takes hooks and config from), the protected
 * names to keep from being created, denied paths and deny globs (sbxrun-profile(5), PROTECTED
 * METADATA).
 *
 * The git directories and files a writable root keeps are gitroots.c's.
 *
 * The file system is looked at through the context's struct sbx_fsview only ("does this
 * protected name exist", the .git pointer file); a look-up that fails for any reason but
 * absence is an error, never "missing".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitroots.h"
#include "pmap.h"
#include "winpath.h"

/* ---- protected metadata (sbxrun-profile(5), PROTECTED METADATA) ---------------------------- */

/* Is p a directory? Absent is "no"; a failed look-up is an error. */
static int is_dir(const struct sbx_ctx *ctx, const char *p, bool *dir, struct sbx_diag *d)
{
	struct sbx_pathinfo in;
	int r = sbx_ctx_lookup(ctx, p, &in, d);

	*dir = r == 0 && in.exists && in.type == SBX_FT_DIR;
	return r;
}

int sbx_default_read_only_subpaths(const char *root, bool protect_missing_dot_codex,
				   const struct sbx_ctx *ctx, char ***out, size_t *n,
				   struct sbx_diag *d)
{
	struct sbx_strv v = {0};
	char *git = NULL, *agents = NULL, *codex = NULL, *target[SBX_GIT_READINGS] = {NULL};
	struct sbx_pathinfo in;
	bool dir;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = sbx_path_join_any(root, ".git", &git)) ||
	    (r = sbx_path_join_any(root, ".agents", &agents)) ||
	    (r = sbx_path_join_any(root, ".codex", &codex)))
		goto out;
	if ((r = sbx_ctx_lookup(ctx, git, &in, d)))
		goto out;
	if (in.exists && (in.type == SBX_FT_DIR || in.type == SBX_FT_REG)) {
		if (in.type == SBX_FT_REG) {
			struct sbx_pathinfo at[SBX_GIT_READINGS];

			r = sbx_gitdir_targets(ctx, root, git, target, at, d);
			for (int i = 0; !r && i < SBX_GIT_READINGS && target[i]; i++)
				if (at[i].exists && at[i].type == SBX_FT_DIR)
					r = sbx_strv_add_unique(&v, target[i]);
			if (r)
				goto out;
		}
		if ((r = sbx_strv_add_unique(&v, git)))
			goto out;
	}
	if ((r = is_dir(ctx, agents, &dir, d)) || (dir && (r = sbx_strv_add_unique(&v, agents))))
		goto out;
	if ((r = is_dir(ctx, codex, &dir, d)))
		goto out;
	if ((protect_missing_dot_codex || dir) && (r = sbx_strv_add_unique(&v, codex)))
		goto out;
	*out = v.v;
	*n = v.n;
	v.v = NULL;
	v.n = 0;
out:
	sbx_strv_clear(&v);
	free(git);
	free(agents);
	free(codex);
	for (int i = 0; i < SBX_GIT_READINGS; i++)
		free(target[i]);
	return r;
}

/* ---- roots --------------------------------------------------------------------------------- */

/*
 * A profile's path entry that is already absolute and canonical is taken as it is: the roots
 * borrow its string from the profile's arena (out->borrowed) instead of copying it, which at
 * 10,000 entries is a copy and an allocation fewer each. Every string the roots drop goes
 * through these, which free it unless it is borrowed.
 */
static void str_drop(const struct sbx_arena *borrowed, char *p)
{
	if (p && !sbx_arena_owns(borrowed, p))
		free(p);
}

static void strs_drop(const struct sbx_arena *borrowed, char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		str_drop(borrowed, v[i]);
	free(v);
}

static void strv_drop(const struct sbx_arena *borrowed, struct sbx_strv *s)
{
	strs_drop(borrowed, s->v, s->n);
	memset(s, 0, sizeof(*s));
}

/* Appends p to s; on failure p is left to the caller (it may be borrowed: never freed here). */
static int push_kept(struct sbx_strv *s, char *p)
{
	int r = sbx_strv_terminate(s); /* the room first: the push below cannot fail */

	return r ? r : sbx_strv_push_owned(s, p);
}

/* The slot of the i-th distinct path. */
static struct pslot *pmap_at(const struct pmap *m, size_t i)
{
	return &m->slots[m->at[i]];
}

/* The length and hash of resolved path i (struct sbx_ahead): none for NULL, a path not kept. */
static inline bool ahead_path(const void *keys, size_t i, struct sbx_ahead_key *k)
{
	const char *p = ((char *const *)keys)[i];

	if (!p)
		return false;
	k->len = strlen(p);
	k->hash = sbx_hash(p, k->len);
	return true;
}

/* Takes the resolved paths (each moved into the map, or freed as a repeat). */
static int pmap_build(struct pmap *m, char **resolved, const struct sbx_fs *fs)
{
	struct sbx_ahead_key ring[SBX_HASH_AHEAD];
	size_t cap = 16, n = 0;

	memset(m, 0, sizeof(*m));
	/* A load of at most three quarters: linear probing stays short, the table small. */
	while (cap < fs->n + fs->n / 3 + 2)
		cap *= 2;
	m->slots = calloc(cap, sizeof(*m->slots));
	m->at = calloc(fs->n ? fs->n : 1, sizeof(*m->at));
	if (!m->slots || !m->at)
		return -ENOMEM;
	m->cap = cap;
	const struct sbx_ahead ahead = {
		.key = ahead_path,
		.keys = resolved,
		.n = fs->n,
		.slots = (const char *)m->slots,
		.slot_size = sizeof(*m->slots),
		.mask = cap - 1,
	};

	sbx_ahead_start(&ahead, ring);
	for (size_t i = 0; i < fs->n; i++) {
		char *p = resolved[i];
		struct sbx_ahead_key a = sbx_ahead_next(&ahead, ring, i);
		size_t s;
		int r;

		if (!p)
			continue;
		for (s = (size_t)a.hash & (cap - 1); m->slots[s].p; s = (s + 1) & (cap - 1))
			if (m->slots[s].len == a.len && sbx_bytes_cmp(m->slots[s].p, p, a.len) == 0)
				break;
		if (m->slots[s].p) {
			if (fs->entries[i].access > m->slots[s].access)
				m->slots[s].access = fs->entries[i].access;
			continue;
		}
		r = push_kept(&m->paths, p);
		if (r)
			return r;
		resolved[i] = NULL;
		m->slots[s] = (struct pslot){p, (uint32_t)a.len, fs->entries[i].access, -1};
		sbx_lenset_add(&m->lens, a.len);
		m->at[n++] = s;
	}
	return 0;
}

static void pmap_free(struct pmap *m, const struct sbx_arena *borrowed)
{
	free(m->slots);
	free(m->at);
	strv_drop(borrowed, &m->paths);
}

/*
 * sbx_pmap_entry's answer for the directory asked last. The answer depends on p's directory
 * alone, and the paths of a large profile come a directory at a time (10,000 files of one),
 * each asking the same; the map does not change while it is asked.
 */
struct near_memo {
	const char *dir; /* the path asked for, of which len bytes are its directory */
	size_t len;
	struct pslot *found;
};

/* sbx_pmap_entry(m, s->p), through memo. */
static struct pslot *nearest_entry_of(const struct pmap *m, const struct pslot *s,
				      struct near_memo *memo)
{
	size_t len = sbx_path_parent_len(s->p, s->len);

	if (len && memo->dir && len == memo->len && sbx_bytes_cmp(memo->dir, s->p, len) == 0)
		return memo->found;
	memo->dir = s->p;
	memo->len = len;
	return memo->found = sbx_pmap_entry(m, s->p);
}

/*
 * Does p lie in the host's /dev/shm, which the Linux sandbox replaces with a private one, and its
 * ancestor up outside it, so that what up grants does not reach p there?
 */
static bool shm_apart(const struct sbx_ctx *ctx, const char *up, const char *p)
{
	return ctx->platform == SBX_PLATFORM_LINUX && sbx_linux_private_shm(p) &&
	       !sbx_linux_private_shm(up);
}

static bool is_fs_root(const char *p)
{
	return strcmp(p, "/") == 0 || (sbx_path_is_windows_abs(p) && !p[sbx_path_win_root_len(p)]);
}

/*
 * Is there anything at p, a dangling link included (it is a name in the way)? What the look-up
 * found is kept in *in, for is_point(). A failed look-up is an error, worded in d.
 */
static int path_exists(const struct sbx_ctx *ctx, const char *p, bool *exists,
		       struct sbx_pathinfo *in, struct sbx_diag *d)
{
	int r = sbx_ctx_lookup(ctx, p, in, d);

	*exists = r == 0 && (in->exists || in->is_link);
	return r;
}

/*
 * Is the protected name p, found as in (path_exists: it exists), what a mount point of the
 * Linux backend is there: an empty directory or an empty file (platform/linux/points.c)?
 * Another run's point, or one a killed run left, stands for the missing name: planned as such,
 * the points protocol takes it or makes it again, where planning it as a read-only carve-out
 * would refuse the run once that other run has removed it. Without points (sbx_ctx.points)
 * what is there is the user's. The name is not looked up again: what was found is what is
 * judged.
 */
static int is_point(const struct sbx_ctx *ctx, const char *p, const struct sbx_pathinfo *in,
		    bool *yes, struct sbx_diag *d)
{
	*yes = false;
	if (!ctx->points)
		return 0;
	return sbx_ctx_is_point(ctx, p, in, in->type == SBX_FT_DIR, NULL, yes, d);
}

/* Is the last name of p one of sbx_protected_names? */
static bool protected_name(const char *p)
{
	const char *slash = strrchr(p, '/');

	return slash && sbx_is_protected_name(slash + 1, strlen(slash + 1));
}

static int cmp_writable(const void *a, const void *b)
{
	const struct sbx_writable_root *x = a, *y = b;
	size_t dx = sbx_path_depth_any(x->root), dy = sbx_path_depth_any(y->root);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x->root, y->root);
}

/*
 * Appends p to w's carve-outs (on failure p is left to the caller: it may be borrowed). The list
 * grows by doubling (its size is a power of two whenever it is full): a workspace can hold
 * thousands of read entries.
 */
static int push_read_only(struct sbx_writable_root *w, char *p)
{
	size_t n = w->n_read_only;

	if (!p)
		return -ENOMEM;
	if (n >= 4 && (n & (n - 1)) == 0) {
		char **v = realloc(w->read_only, 2 * n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->read_only = v;
	} else if (n < 4 && !w->read_only) {
		w->read_only = malloc(4 * sizeof(*w->read_only));
		if (!w->read_only)
			return -ENOMEM;
	}
	w->read_only[w->n_read_only++] = p;
	return 0;
}

/* Adds a copy of p to w's carve-outs unless it is one already (the few paths added by name). */
static int add_read_only(struct sbx_writable_root *w, const char *p)
{
	char *copy;
	int r;

	for (size_t i = 0; i < w->n_read_only; i++)
		if (strcmp(w->read_only[i], p) == 0)
			return 0;
	copy = strdup(p);
	r = push_read_only(w, copy);
	if (r)
		free(copy);
	return r;
}

/* Adds p as a read-only carve-out of w unless one already covers it. */
static int add_read_only_uncovered(struct sbx_writable_root *w, const char *p)
{
	for (size_t i = 0; i < w->n_read_only; i++)
		if (sbx_path_covers_any(w->read_only[i], p))
			return 0;
	return add_read_only(w, p);
}

/* Adds p to the paths of w that must not be created, unless a carve-out already covers it. */
static int add_no_create(struct sbx_writable_root *w, const char *p)
{
	for (size_t i = 0; i < w->n_read_only; i++)
		if (sbx_path_covers_any(w->read_only[i], p))
			return 0;
	return sbx_strv_add_unique(&w->no_create, p);
}

/*
 * Git mode lets the .git directory of a writable root be written but for what gitmode.c keeps
 * (sbxrun(1), GIT MODE), unless an entry other than a read names it: an explicit write or deny
 * decides, as anywhere; a read there (:workspace has one) is what the mode is asked to lift.
 */
static bool git_mode_lifts(const struct sbx_ctx *ctx, const struct pslot *s)
{
	return ctx->allow_git && (!s || s->access == SBX_READ);
}

/* Is p the .git of root? */
static int is_dotgit_of(const char *root, const char *p, bool *yes)
{
	char *git = NULL;
	int r = sbx_path_join_any(root, ".git", &git);

	*yes = !r && strcmp(git, p) == 0;
	free(git);
	return r;
}

/*
 * Is s a read entry at the .git of a writable root, which git mode lifts (protect_root then
 * decides that .git)?
 */
static int lifted_by_git_mode(const struct pmap *m, const struct sbx_roots *out,
			      const struct sbx_ctx *ctx, const struct pslot *s, bool *yes)
{
	const struct pslot *up;

	*yes = false;
	if (!ctx->allow_git || s->access != SBX_READ)
		return 0;
	up = sbx_pmap_decider(m, s->p);
	if (!up || up->access == SBX_DENY || up->wr < 0)
		return 0;
	return is_dotgit_of(out->writable[up->wr].root, s->p, yes);
}

/* *p, when it lies in real (where the root named given resolves), named through given. */
static int under_name(char **p, const char *real, const char *given)
{
	size_t n = strlen(real);
	char *q;

	if (strcmp(real, given) == 0 || !sbx_path_covers(real, *p))
		return 0;
	if (asprintf(&q, "%s%s", given, *p + n) < 0)
		return -ENOMEM;
	free(*p);
	*p = q;
	return 0;
}

/*
 * The repositories whose working tree holds the writable root root (a workspace opened in a
 * subdirectory of a checkout): git, run later at their top, reads their git directory, which
 * lies above this root, but what it leads to may lie inside (a hook linked to a script of the
 * working tree, a config it includes, a submodule checkout's .git file). Each ancestor with a
 * .git (as anything), up to the top of the file system (a superproject's git recurses into the
 * submodule), is looked at as a writable root's own .git is, what it finds appended to gits and
 * missing for the caller to keep where a writable root holds it; so is that .git itself, where
 * one holds it (a checkout under /tmp). An ancestor that is a writable root is skipped: its own
 * protect_root() keeps its .git.
 */
static int enclosing_repos(const struct sbx_roots *out, const struct pmap *m,
			   const struct sbx_ctx *ctx, const char *root, struct sbx_strv *gits,
			   struct sbx_strv *missing, struct sbx_strv *deny,
			   struct sbx_strv *dangling, struct sbx_diag *d)
{
	struct sbx_pathinfo at;
	const char *given = root;
	size_t len, first_git = gits->n, first_missing = missing->n;
	int r;

	if (root[0] != '/')
		return 0; /* a Windows root: git's discovery there is not this one */
	/*
	 * Git discovers a repository up from where a directory lies, not up the name it was given
	 * by: a root named through the user's link (--write ~/link) is walked up from where the
	 * link leads, and each ancestor compared with the roots where they lie.
	 */
	r = sbx_ctx_lookup(ctx, root, &at, d);
	if (r)
		return r == -ENOMEM ? sbx_diag_set(d, r, "out of memory") : r;
	if (at.real[0])
		root = at.real;
	len = strlen(root);
	while (!r && (len = sbx_path_parent_len(root, len)) > 0) {
		char *dir = strndup(root, len), *git = NULL, *target[SBX_GIT_READINGS] = {NULL};
		struct sbx_pathinfo in = {0};
		bool writable = false;

		for (size_t i = 0; !r && dir && !writable && i < out->n_writable; i++) {
			r = sbx_ctx_lookup(ctx, out->writable[i].root, &in, d);
			writable = !r && (strcmp(out->writable[i].root, dir) == 0 ||
					  strcmp(in.real, dir) == 0);
		}
		if (!r)
			r = dir ? sbx_path_join_any(dir, ".git", &git) : -ENOMEM;
		if (!r && !writable)
			r = sbx_ctx_lookup(ctx, git, &in, d);
		if (!r && !writable && (in.exists || in.is_link))
			r = sbx_strv_add_unique(gits, git);
		if (!r && !writable && in.exists)
			r = sbx_roots_git(ctx, m, out, dir, git, &in, false, target, gits, missing,
					  deny, dangling, d);
		for (int i = 0; i < SBX_GIT_READINGS; i++)
			free(target[i]);
		free(git);
		free(dir);
		if (len == 1)
			break;
	}
	/*
	 * What was found where the link leads is kept under the root's own name, as the plan
	 * knows the root by it.
	 */
	for (struct sbx_strv *v = gits; !r && v; v = v == gits ? missing : NULL)
		for (size_t k = v == gits ? first_git : first_missing; !r && k < v->n; k++)
			r = under_name(&v->v[k], root, given);
	if (r == -ENOMEM)
		sbx_diag_set(d, r, "out of memory");
	return r;
}

/*
 * Protected metadata under the writable root w (unless the file system is full-disk-write):
 *  - for each name N, the path w/N is decided by an explicit entry when one resolves exactly
 *    there (write: N is writable; read: a carve-out; deny: unreadable); otherwise, when w/N
 *    exists (as anything), it is a read-only carve-out of w;
 *  - N is "protected missing" when w/N does not exist and is not explicitly writable: the
 *    sandbox must keep it from being created;
 *  - the directory a .git pointer file names (gitdir:) becomes a carve-out of the deepest
 *    writable root that holds it, unless a deny lies in between or an entry names it; so do
 *    the other git directories and files git reads from there (gitroots.c).
 */
static int protect_root(struct sbx_roots *out, const struct pmap *m, size_t wi,
			const struct sbx_ctx *ctx, struct sbx_strv *deny, struct sbx_diag *d)
{
	struct sbx_strv gits = {0}, missing = {0}, missing_names = {0};
	struct sbx_writable_root *w = &out->writable[wi];
	struct sbx_pathinfo in = {0};
	char **defaults = NULL, *git = NULL, *target[SBX_GIT_READINGS] = {NULL};
	size_t n_defaults = 0;
	bool git_mode = false;
	int r;

	r = sbx_path_join_any(w->root, ".git", &git);
	if (!r)
		r = sbx_ctx_lookup(ctx, git, &in, d);
	if (r)
		goto out;
	for (size_t k = 0; k < SBX_PROTECTED_NAMES_N; k++) {
		char *p = NULL;
		struct pslot *s;
		struct sbx_pathinfo at;
		bool exists, lifted, point = false, dotgit;

		r = sbx_path_join_any(w->root, sbx_protected_names[k], &p);
		if (!r)
			r = path_exists(ctx, p, &exists, &at, d);
		if (r) {
			free(p);
			goto out;
		}
		s = sbx_pmap_find(m, p, strlen(p));
		dotgit = strcmp(p, git) == 0;
		/* A read entry at .git that sbx_fs_roots() left to this function. */
		lifted = ctx->allow_git && s && s->access == SBX_READ && dotgit;
		/* An empty one that no entry names is the name missing, to every rule below. */
		if (exists && (!s || lifted))
			r = is_point(ctx, p, &at, &point, d);
		if (!r && point) {
			exists = false;
			if (dotgit)
				in.exists = false;
		}
		/*
		 * Decided missing here, it stays so below: the look-ups that follow (the default
		 * carve-outs) may find another run's point made there meanwhile.
		 */
		if (!r && !exists)
			r = sbx_strv_push(&missing_names, p);
		/* The mode takes a .git directory (not a link to one: that stays read-only whole). */
		if (dotgit && git_mode_lifts(ctx, s) && !in.is_link)
			git_mode = in.exists && (in.type == SBX_FT_DIR || in.type == SBX_FT_REG);
		if (r) {
			free(p);
			goto out;
		}
		if (!exists) {
			if (!s || s->access != SBX_WRITE)
				w->protected_missing[w->n_protected_missing++] =
					sbx_protected_names[k];
		} else if ((!s || lifted) && !(git_mode && dotgit && in.type == SBX_FT_DIR)) {
			r = add_read_only(w,
					  p); /* a .git file stays read-only: it points the way */
		}
		free(p);
		if (r)
			goto out;
	}
	r = sbx_default_read_only_subpaths(w->root, false, ctx, &defaults, &n_defaults, d);
	if (!r)
		r = sbx_roots_git(ctx, m, out, w->root, git, &in, git_mode, target, &gits, &missing,
				  deny, &out->hook_dangling, d);
	if (!r)
		r = sbx_roots_git_root(ctx, m, out, w->root, &gits, &missing, deny,
				       &out->hook_dangling, d);
	if (!r)
		r = enclosing_repos(out, m, ctx, w->root, &gits, &missing, deny,
				    &out->hook_dangling, d);
	/*
	 * Where the links of a kept .codex or .agents lead: read-only too, as the links are. Not
	 * one an entry lets the command write or denies, nor one decided missing above (another
	 * run's empty point, which its last run removes at any time).
	 */
	for (size_t k = 0; !r && k < n_defaults; k++) {
		const char *p = defaults[k], *base = strrchr(p, '/');
		struct pslot *s;

		if (!base || (strcmp(base, "/.codex") && strcmp(base, "/.agents")) ||
		    sbx_strv_has(&missing_names, p))
			continue;
		s = sbx_pmap_find(m, p, strlen(p));
		if (s && s->access != SBX_READ)
			continue;
		s = sbx_pmap_decider(m, p);
		if (s && s->access != SBX_DENY && s->wr >= 0)
			r = sbx_roots_agent_links(ctx, m, out, p, &gits, d);
	}
	for (size_t k = 0; !r && k < n_defaults + gits.n; k++) {
		const char *p = k < n_defaults ? defaults[k] : gits.v[k - n_defaults];
		struct pslot *s;

		if (sbx_pmap_find(m, p, strlen(p)) || sbx_strv_has(&missing_names, p))
			continue;
		if (git_mode && k < n_defaults &&
		    ((target[0] && strcmp(p, target[0]) == 0) ||
		     (target[1] && strcmp(p, target[1]) == 0) || strcmp(p, git) == 0))
			continue; /* gitmode.c's, or the .git added above */
		s = sbx_pmap_decider(m, p);
		if (s && s->access != SBX_DENY && s->wr >= 0)
			r = k < n_defaults ? add_read_only(&out->writable[s->wr], p)
					   : add_read_only_uncovered(&out->writable[s->wr], p);
	}
	for (size_t k = 0; !r && k < missing.n; k++) {
		const char *p = missing.v[k];
		struct pslot *s;

		if (sbx_pmap_find(m, p, strlen(p)))
			continue;
		s = sbx_pmap_decider(m, p);
		if (s && s->access != SBX_DENY && s->wr >= 0)
			r = add_no_create(&out->writable[s->wr], p);
	}
out:
	sbx_strv_free(defaults, n_defaults);
	sbx_strv_clear(&gits);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&missing_names);
	free(git);
	for (int i = 0; i < SBX_GIT_READINGS; i++)
		free(target[i]);
	return r;
}

/* Why sbx_entry_resolve() refused e on Windows. */
static int windows_path_error(const struct sbx_entry *e, struct sbx_diag *d)
{
	const char *why = "not a Windows path";
	char *canon = NULL;

	if (e->path)
		sbx_win_path_normalize(e->path, &canon, &why);
	free(canon);
	sbx_diag_set(d, SBX_E_INVALID, "path \"%s\" cannot be used on Windows: %s",
		     e->path ? e->path : "(special)", why ? why : "not a Windows path");
	return sbx_diag_hint(d, SBX_E_INVALID,
			     "name it by its plain full path, such as C:\\work\\dir");
}

/* What sbx_fs_roots() works on, from the profile's entries to the roots it hands over. */
struct build {
	const struct sbx_fs *fs;
	const struct sbx_fs *src; /* fs, or m: fs materialized for ctx */
	const struct sbx_ctx *ctx;
	struct sbx_roots *out;
	struct sbx_diag *d;
	struct sbx_fs m;
	char **resolved; /* each of src's entries' path, NULL where it has none */
	struct pmap map;
	struct sbx_strv readable, unreadable, globs;
};

/*
 * The entries to read: a profile already materialized for ctx (the plan's) is read as it is,
 * its paths borrowed, since copying it again would only drop duplicates, which the map merges
 * anyway.
 */
static int take_entries(struct build *b)
{
	if (!sbx_fs_expands(b->fs, b->ctx)) {
		b->out->borrowed = b->fs->paths;
		return 0;
	}
	b->src = &b->m;
	return sbx_fs_materialize(b->fs, b->ctx, &b->m);
}

/* A deny glob, kept once when it is absolute for the host: other globs grant nothing. */
static int add_deny_glob(struct build *b, const struct sbx_entry *e)
{
	if (e->access != SBX_DENY)
		return 0;
	if (!sbx_path_is_posix_abs(e->path) && !sbx_path_is_windows_abs(e->path))
		return sbx_diag_set(b->d, SBX_E_INVALID,
				    "deny glob `%s` is relative and there is no working directory "
				    "to resolve it against",
				    e->path);
	if (!sbx_ctx_native_abs(e->path, b->ctx) || sbx_strv_has(&b->globs, e->path))
		return 0;
	return sbx_strv_push_owned(&b->globs, strdup(e->path));
}

/*
 * The path of entry i, in b->resolved[i]: NULL for one that skips a missing path, when nothing
 * is there (a mount point at a protected name is that name missing: is_point).
 */
static int resolve_path(struct build *b, size_t i)
{
	const struct sbx_entry *e = &b->src->entries[i];
	const struct sbx_ctx *ctx = b->ctx;
	struct sbx_pathinfo at;
	bool exists, point;
	int r;

	if (b->src == b->fs && e->kind == SBX_PATH && e->pooled && e->path &&
	    ctx->platform != SBX_PLATFORM_WINDOWS && sbx_ctx_native_abs(e->path, ctx))
		b->resolved[i] =
			e->path; /* as sbx_entry_resolve would copy it, borrowed (str_drop) */
	else if ((r = sbx_entry_resolve(e, ctx, &b->resolved[i], b->d)))
		return r == -EINVAL ? windows_path_error(e, b->d) : r;
	if (!b->resolved[i] || !e->skip_missing)
		return 0;
	r = path_exists(ctx, b->resolved[i], &exists, &at, b->d);
	if (!r && exists && e->access == SBX_READ && protected_name(b->resolved[i])) {
		r = is_point(ctx, b->resolved[i], &at, &point, b->d);
		exists = !point;
	}
	if (!r && !exists) {
		str_drop(&b->out->borrowed, b->resolved[i]);
		b->resolved[i] = NULL;
	}
	return r;
}

/* Each entry to the deny globs or to its path in b->resolved. */
static int resolve_entries(struct build *b)
{
	int r = 0;

	b->resolved = calloc(b->src->n ? b->src->n : 1, sizeof(*b->resolved));
	if (!b->resolved)
		return -ENOMEM;
	for (size_t i = 0; !r && i < b->src->n; i++)
		r = b->src->entries[i].kind == SBX_GLOB ? add_deny_glob(b, &b->src->entries[i])
							: resolve_path(b, i);
	return r;
}

/* The writable roots: the paths whose access is write, in cmp_writable's order, indexed. */
static int place_writable(struct build *b)
{
	struct sbx_roots *out = b->out;
	const struct pmap *map = &b->map;
	size_t n_wr = 0;

	for (size_t i = 0; i < map->paths.n; i++)
		if (pmap_at(map, i)->access == SBX_WRITE)
			n_wr++;
	out->writable = calloc(n_wr ? n_wr : 1, sizeof(*out->writable));
	if (!out->writable)
		return -ENOMEM;
	for (size_t i = 0; i < map->paths.n; i++) {
		if (pmap_at(map, i)->access != SBX_WRITE)
			continue;
		out->writable[out->n_writable].root = strdup(map->paths.v[i]);
		if (!out->writable[out->n_writable++].root)
			return -ENOMEM;
	}
	qsort(out->writable, out->n_writable, sizeof(*out->writable), cmp_writable);
	for (size_t i = 0; i < out->n_writable; i++)
		sbx_pmap_find(map, out->writable[i].root, strlen(out->writable[i].root))->wr =
			(int32_t)i;
	return 0;
}

/*
 * Each deny path to the unreadable ones, each read path to the carve-outs of the writable root
 * it lies in or to the readable roots. Each distinct path is listed at most once, so a list
 * takes the map's own string (the map's slot still points at it, alive as long as the roots
 * are).
 */
static int place_read_and_deny(struct build *b)
{
	struct sbx_roots *out = b->out;
	struct pmap *map = &b->map;
	struct near_memo near = {0};
	int r;

	for (size_t i = 0; i < map->paths.n; i++) {
		char *p = map->paths.v[i];
		struct pslot *s = pmap_at(map, i), *up;
		bool lifted;

		if (s->access == SBX_DENY) {
			if (is_fs_root(p))
				continue;
			if ((r = push_kept(&b->unreadable, p)))
				return r;
			map->paths.v[i] = NULL;
			continue;
		}
		if (s->access != SBX_READ)
			continue;
		/*
		 * A read path whose nearest named ancestor is itself read adds nothing: that
		 * ancestor (a readable root or a carve-out) already covers it with the same
		 * access, and no deny or write lies in between. Dropping it keeps a profile of
		 * many read entries under "/" from costing one rule each.
		 */
		up = nearest_entry_of(map, s, &near);
		/*
		 * Linux's private /dev hides the host's /dev/shm from what an ancestor outside
		 * it grants (read /): a root there is bound in only as a root of its own.
		 */
		if (up && up->access == SBX_READ && shm_apart(b->ctx, up->p, p))
			up = sbx_pmap_decider(map, p);
		else if (up && up->access == SBX_READ) {
			/* Unless that ancestor is a .git git mode lifts: then it covers nothing. */
			if ((r = lifted_by_git_mode(map, out, b->ctx, up, &lifted)))
				return r;
			if (!lifted)
				continue;
			/* The lifted .git decides nothing: the decider is above it. */
			up = sbx_pmap_decider(map, p);
		}
		/* The .git of a writable root itself: git mode decides it (protect_root). */
		if ((r = lifted_by_git_mode(map, out, b->ctx, s, &lifted)))
			return r;
		if (lifted)
			continue;
		/* Any other nearest entry is a deny or a writable root: the nearest decider. */
		if (up && up->access != SBX_DENY)
			r = push_read_only(&out->writable[up->wr], p);
		else
			r = push_kept(&b->readable, p);
		if (r)
			return r;
		map->paths.v[i] = NULL;
	}
	return 0;
}

/* The protected metadata of each writable root, unless the file system is full-disk-write. */
static int protect_roots(struct build *b)
{
	int r = 0;

	for (size_t i = 0; !r && !b->out->full_write && i < b->out->n_writable; i++)
		r = protect_root(b->out, &b->map, i, b->ctx, &b->unreadable, b->d);
	return r;
}

/* Which of git's config files the variable var names: "system" or "global". */
static const char *config_kind(const char *var)
{
	return strcmp(var, "GIT_CONFIG_SYSTEM") == 0 ? "system" : "global";
}

/*
 * The caller's global and system git config (sbx_ctx.git_globals) where it lies in a writable
 * root: kept read-only, or from being created, whatever the entries write above it (as .git
 * is: an explicit write root of HOME, or git mode, lifts nothing), unless an entry names the
 * file itself. Git runs what it holds (core.fsmonitor, core.hooksPath, alias.x=!cmd) for every
 * repository of the caller, outside any sandbox. Unless the file system is full-disk-write.
 */
static int protect_git_globals(struct build *b)
{
	struct sbx_strv keep = {0}, missing = {0}, system = {0}, files = {0};
	const struct pmap *m = &b->map;
	int r;

	if (b->out->full_write || !b->ctx->n_git_globals || !b->out->n_writable)
		return 0;
	/*
	 * A relative name is joined to whatever directory the caller's git runs in, and a ".."
	 * follows whatever the name before it is when git runs (a link the command made there):
	 * the command could plant the file where git then looks, for the caller's git run
	 * later. No one name can be kept.
	 */
	if (b->ctx->git_globals_unsure && b->ctx->git_globals_dotdot) {
		const char *v = b->ctx->git_globals_unsure;

		sbx_diag_set(b->d, SBX_E_UNENFORCEABLE,
			     "git's %s config is named through %s, whose \"..\" the caller's "
			     "git takes after whatever the name before it is when it runs: the "
			     "command could put a link there in a writable root",
			     config_kind(v), v);
		return sbx_diag_hint(b->d, SBX_E_UNENFORCEABLE,
				     "set %s to a path without \"..\" (realpath)", v);
	}
	if (b->ctx->git_globals_unsure) {
		const char *v = b->ctx->git_globals_unsure;

		sbx_diag_set(
			b->d, SBX_E_UNENFORCEABLE,
			"git's %s config is named through a relative %s, which the "
			"caller's git joins to whatever directory it runs in: the command could "
			"plant one in any directory of a writable root",
			config_kind(v), v);
		return sbx_diag_hint(b->d, SBX_E_UNENFORCEABLE, "make %s an absolute path", v);
	}
	r = sbx_git_globals_keep(b->ctx, m, b->out, &keep, &missing, &b->unreadable, &system,
				 &files, b->d);
	for (size_t k = 0; !r && k < keep.n + missing.n; k++) {
		const char *p = k < keep.n ? keep.v[k] : missing.v[k - keep.n];
		const struct pslot *s;

		if (sbx_pmap_find(m, p, strlen(p)))
			continue;
		s = sbx_pmap_decider(m, p);
		if (!s || s->access == SBX_DENY || s->wr < 0)
			continue;
		r = k < keep.n ? add_read_only_uncovered(&b->out->writable[s->wr], p)
			       : add_no_create(&b->out->writable[s->wr], p);
		if (!r)
			r = sbx_strv_add_unique(&b->out->git_globals, p);
		if (!r && sbx_strv_has(&system, p))
			r = sbx_strv_add_unique(&b->out->git_system, p);
		if (!r && k >= keep.n && sbx_strv_has(&files, p))
			r = sbx_strv_add_unique(&b->out->git_files, p);
	}
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&system);
	sbx_strv_clear(&files);
	return r;
}

/* The lists to the roots: the plan keeps them as long as it lives, so they are fitted. */
static void hand_over(struct build *b)
{
	/* 10,000 paths leave 6,000 slots spare. */
	sbx_strv_fit(&b->readable);
	sbx_strv_fit(&b->unreadable);
	b->out->readable = b->readable.v;
	b->out->n_readable = b->readable.n;
	b->out->unreadable = b->unreadable.v;
	b->out->n_unreadable = b->unreadable.n;
	b->out->deny_globs = b->globs.v;
	b->out->n_deny_globs = b->globs.n;
	b->readable = b->unreadable = b->globs = (struct sbx_strv){0};
}

static void build_free(struct build *b)
{
	const struct sbx_arena *borrowed = &b->out->borrowed;

	strs_drop(borrowed, b->resolved, b->resolved ? b->src->n : 0);
	pmap_free(&b->map, borrowed);
	sbx_fs_clear(&b->m);
	strv_drop(borrowed, &b->readable);
	strv_drop(borrowed, &b->unreadable);
	sbx_strv_clear(&b->globs);
}

/*
 * The roots a platform enforces, computed from the profile materialized for ctx (project roots
 * for every workspace root, relative globs against the cwd). The rules:
 *
 *  - Flags: full_read, full_write and platform_defaults are Codex's predicates. For the
 *    unrestricted and external kinds all lists are empty and both full flags are set.
 *  - Skip entries (missing_path_behavior "skip") whose path does not exist produce nothing.
 *  - Every other entry that resolves contributes its path; at one path the strongest access of
 *    the entries there is that path's access (deny > write > read, as in resolve_access).
 *  - writable: the distinct paths whose access is write, sorted by depth (then bytes), so that
 *    a platform applying them in order lets a deeper root re-open a carve-out of a shallower one.
 *  - A path whose access is read is a read-only carve-out of the nearest writable root above
 *    it, provided no deny lies in between; otherwise (no writable root above, or re-opened
 *    inside a denied tree) it is a readable root. So readable holds "/" when root is readable
 *    and not writable, and never anything inside a writable root's plain subtree.
 *  - unreadable: the distinct deny paths, except the file system root (a root deny only
 *    removes the baseline; it is not a mask, fda-04), and the target of a .git file inside a
 *    writable root that is no directory (keep_gitdir_target).
 *  - deny_globs: deny glob patterns, absolute after materialization. Non-deny globs grant
 *    nothing (the loader refuses them) and are ignored.
 *  - Protected metadata under each writable root: see protect_root(); the caller's global
 *    git config: see protect_git_globals().
 *
 * The steps it takes, in this order, are the function: each reads what the ones before made.
 */
int sbx_fs_roots(const struct sbx_fs *fs, const struct sbx_ctx *ctx, struct sbx_roots *out,
		 struct sbx_diag *d)
{
	struct build b = {.fs = fs, .src = fs, .ctx = ctx, .out = out, .d = d};
	int r;

	memset(out, 0, sizeof(*out));
	out->full_read = sbx_fs_full_read(fs, ctx);
	out->full_write = sbx_fs_full_write(fs, ctx);
	out->platform_defaults = sbx_fs_include_platform_defaults(fs, ctx);
	if (fs->kind != SBX_FS_RESTRICTED)
		return 0;
	r = take_entries(&b);
	if (!r)
		r = resolve_entries(&b);
	if (!r)
		r = pmap_build(&b.map, b.resolved, b.src);
	if (!r)
		r = place_writable(&b);
	if (!r)
		r = place_read_and_deny(&b);
	if (!r)
		r = protect_roots(&b);
	if (!r)
		r = protect_git_globals(&b);
	if (!r)
		hand_over(&b);
	build_free(&b);
	if (r) {
		if (r == -ENOMEM)
			sbx_diag_set(d, r, "out of memory while resolving the profile");
		sbx_roots_free(out);
	}
	return r;
}

void sbx_roots_free(struct sbx_roots *r)
{
	if (!r)
		return;
	strs_drop(&r->borrowed, r->readable, r->n_readable);
	for (size_t i = 0; i < r->n_writable; i++) {
		free(r->writable[i].root);
		strs_drop(&r->borrowed, r->writable[i].read_only, r->writable[i].n_read_only);
		sbx_strv_clear(&r->writable[i].no_create);
	}
	free(r->writable);
	strs_drop(&r->borrowed, r->unreadable, r->n_unreadable);
	sbx_strv_free(r->deny_globs, r->n_deny_globs);
	sbx_strv_clear(&r->git_globals);
	sbx_strv_clear(&r->git_system);
	sbx_strv_clear(&r->git_files);
	sbx_strv_clear(&r->hook_dangling);
	memset(r, 0, sizeof(*r));
}
