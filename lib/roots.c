/* SPDX-License-Identifier: MIT */
/*
 * roots.c - the roots every platform enforces from (sbx_fs_roots): readable and writable roots,
 * the read-only carve-outs inside writable roots (explicit entries and protected metadata:
 * .git, .agents, .codex, the git directories git takes hooks and config from), the protected
 * names to keep from being created, denied paths and deny globs (sbxrun-profile(5), PROTECTED
 * METADATA).
 *
 * The file system is looked at through the context's struct sbx_fsview only ("does this
 * protected name exist", the .git pointer file, a worktree's commondir, modules/); a look-up
 * that fails for any reason but absence is an error, never "missing".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "winpath.h"

/*
 * A .git pointer file or a commondir holds one path: one longer than this cannot be read whole,
 * and refuses the plan (sbx_git_read_lines) rather than be taken for no pointer.
 */
#define GITDIR_FILE_MAX 4096

/* ---- protected metadata (sbxrun-profile(5), PROTECTED METADATA) ---------------------------- */

/* Is p a directory? Absent is "no"; a failed look-up is an error. */
static int is_dir(const struct sbx_ctx *ctx, const char *p, bool *dir, struct sbx_diag *d)
{
	struct sbx_pathinfo in;
	int r = sbx_ctx_lookup(ctx, p, &in, d);

	*dir = r == 0 && in.exists && in.type == SBX_FT_DIR;
	return r;
}

/*
 * The paths a ".git" file points to with "gitdir: <path>" (git's reading and the profile
 * semantics', which trims it: sbx_git_read_lines), resolved against the file's directory, and
 * what is at each (at[i]); out[i] NULL past them. A malformed pointer is ignored (it protects
 * nothing, and .git itself still is); a pointer that cannot be read (or not whole), or a target
 * that cannot be looked up, is an error. The profile semantics' target comes first.
 */
static int gitdir_targets(const struct sbx_ctx *ctx, const char *root, const char *dotgit,
			  char *out[SBX_GIT_READINGS], struct sbx_pathinfo at[SBX_GIT_READINGS],
			  struct sbx_diag *d)
{
	char *lines[SBX_GIT_READINGS];
	int r, n, k = 0;

	for (int i = 0; i < SBX_GIT_READINGS; i++)
		out[i] = NULL;
	r = n = sbx_git_read_lines(ctx, dotgit, SBX_GIT_DOTGIT,
				   "a .git file names the git directory to protect",
				   GITDIR_FILE_MAX, lines, d);
	for (int i = n - 1; r >= 0 && i >= 0; i--) {
		const char *s = lines[i];
		char *t = NULL;

		if (sbx_path_is_windows_abs(root)) {
			/* One canonical Windows path, the pointer absolute or relative to the root. */
			char *joined = NULL;

			if (!sbx_path_is_windows_abs(s) && sbx_path_join_any(root, s, &joined))
				continue;
			r = sbx_win_path_normalize(joined ? joined : s, &t, NULL);
			free(joined);
			if (r) {
				r = r == -ENOMEM ? r : 0; /* malformed: protects nothing */
				continue;
			}
		} else if ((r = sbx_git_join(dotgit, root, s, &t, d))) {
			break;
		}
		for (int j = 0; t && j < k; j++)
			if (strcmp(out[j], t) == 0) {
				free(t);
				t = NULL;
			}
		if (t && (r = sbx_ctx_lookup(ctx, t, &at[k], d)) < 0)
			free(t);
		else if (t)
			out[k++] = t;
	}
	for (int i = 0; i < n; i++)
		free(lines[i]);
	if (r < 0)
		for (int i = 0; i < k; i++) {
			free(out[i]);
			out[i] = NULL;
		}
	return r < 0 ? r : 0;
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

			r = gitdir_targets(ctx, root, git, target, at, d);
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

/* Distinct resolved paths of a profile, each with the strongest access of the entries there. */
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

struct pmap {
	struct pslot {
		const char *p; /* borrowed from paths.v */
		/* access: the largest of the entries at exactly this path (enum sbx_access) */
		uint32_t len : 30, access : 2;
		int32_t wr; /* index into the writable roots, or -1 */
	} * slots; /* 16 bytes a slot: 256 KiB at 10,000 paths, where 32 missed the cache more */
	size_t cap;
	struct sbx_strv paths;	/* distinct paths in first-seen order (owned) */
	size_t *at;		/* the slot of each of paths.v */
	struct sbx_lenset lens; /* of the paths held: most ancestors looked up hold nothing */
};

/* The slot of p[0..len), or NULL; a length the map holds no path of is not hashed. */
static struct pslot *pmap_find(const struct pmap *m, const char *p, size_t len)
{
	size_t s;

	if (!m->cap || !sbx_lenset_has(&m->lens, len))
		return NULL;
	for (s = (size_t)sbx_hash(p, len) & (m->cap - 1); m->slots[s].p; s = (s + 1) & (m->cap - 1))
		if (m->slots[s].len == len && sbx_bytes_cmp(m->slots[s].p, p, len) == 0)
			return &m->slots[s];
	return NULL;
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
 * The nearest strict ancestor of p in the map for which stop() holds, or NULL. Each ancestor is
 * hashed on its own (a word at a time), and only at a length the map holds: the callers ask
 * once per directory (nearest_entry_of) or for a few paths, while the map's own paths, one
 * hash each, are what a large profile has many of.
 */
static struct pslot *nearest(const struct pmap *m, const char *p,
			     bool (*stop)(const struct pslot *s))
{
	size_t len = strlen(p);
	struct pslot *s;

	while ((len = sbx_path_parent_len(p, len)) > 0) {
		s = pmap_find(m, p, len);
		if (s && stop(s))
			return s;
	}
	return NULL;
}

static bool is_decider(const struct pslot *s)
{
	return s->access == SBX_DENY || s->wr >= 0;
}

static bool is_any(const struct pslot *s)
{
	(void)s;
	return true;
}

/*
 * The nearest strict ancestor of p that is in the map with an access other than read (a
 * writable root or a deny), or NULL. Read entries in between do not stop the walk.
 */
static struct pslot *nearest_decider(const struct pmap *m, const char *p)
{
	return nearest(m, p, is_decider);
}

/* The nearest ancestor of p that an entry names, whatever its access. */
static struct pslot *nearest_entry(const struct pmap *m, const char *p)
{
	return nearest(m, p, is_any);
}

/*
 * nearest_entry's answer for the directory asked last. The answer depends on p's directory
 * alone, and the paths of a large profile come a directory at a time (10,000 files of one),
 * each asking the same; the map does not change while it is asked.
 */
struct near_memo {
	const char *dir; /* the path asked for, of which len bytes are its directory */
	size_t len;
	struct pslot *found;
};

/* nearest_entry(m, s->p), through memo. */
static struct pslot *nearest_entry_of(const struct pmap *m, const struct pslot *s,
				      struct near_memo *memo)
{
	size_t len = sbx_path_parent_len(s->p, s->len);

	if (len && memo->dir && len == memo->len && sbx_bytes_cmp(memo->dir, s->p, len) == 0)
		return memo->found;
	memo->dir = s->p;
	memo->len = len;
	return memo->found = nearest_entry(m, s->p);
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

/*
 * Protected metadata under the writable root w (unless the file system is full-disk-write):
 *  - for each name N, the path w/N is decided by an explicit entry when one resolves exactly
 *    there (write: N is writable; read: a carve-out; deny: unreadable); otherwise, when w/N
 *    exists (as anything), it is a read-only carve-out of w;
 *  - N is "protected missing" when w/N does not exist and is not explicitly writable: the
 *    sandbox must keep it from being created;
 *  - the directory a .git pointer file names (gitdir:) becomes a carve-out of the deepest
 *    writable root that holds it, unless a deny lies in between or an entry names it.
 */
/*
 * The directory a git directory's "commondir" file names (a linked worktree's gitdir points at
 * the repository's common directory, where hooks and config live), or NULL.
 */
static int git_commondir(const struct sbx_ctx *ctx, const char *gitdir, char **out,
			 struct sbx_diag *d)
{
	char *lines[SBX_GIT_READINGS] = {NULL}, *file = NULL;
	bool dir = false;
	int r;

	*out = NULL;
	r = sbx_path_join_any(gitdir, "commondir", &file);
	if (!r)
		r = sbx_git_read_lines(ctx, file, SBX_GIT_COMMONDIR,
				       "it names the git directory whose hooks and config must be "
				       "protected",
				       GITDIR_FILE_MAX, lines, d);
	if (r > 0)
		r = sbx_git_join(file, gitdir, lines[0], out, d);
	free(lines[0]);
	free(file);
	if (r < 0 || !*out)
		return r; /* no such file, or not one line: not a worktree */
	r = is_dir(ctx, *out, &dir, d);
	if (r < 0 || !dir) {
		free(*out);
		*out = NULL;
	}
	return r < 0 ? r : 0;
}

struct list_dirs {
	const char *gitdir, *parent;
	struct sbx_strv *out;
	size_t first;  /* out->v[first] is gitdir */
	bool skip_own; /* git's own subdirectories (sbx_git_own_subdir) */
	struct sbx_diag *d;
	int err; /* what stopped the listing */
};

/*
 * Each push is counted: one listing of many names must not hold them all before the cap is
 * looked at. Past it, the run is refused (each would be a carve-out), naming the directory to
 * clean: one run in git mode can fill modules/, and every later run then refuses until then.
 */
static int push_subdir(void *arg, const char *name, enum sbx_ftype type)
{
	struct list_dirs *l = arg;
	char *p = NULL;
	int r;

	/*
	 * In a git directory itself (skip_own) a link is a file git reads (git_reads) or no git
	 * directory's.
	 */
	if ((type != SBX_FT_DIR && (type != SBX_FT_LINK || l->skip_own)) ||
	    (l->skip_own && sbx_git_own_subdir(name)))
		return 0;
	r = sbx_path_join_any(l->parent, name, &p);
	if (!r && type == SBX_FT_LINK) {
		/*
		 * Git follows it to wherever it leads (a submodule's .git file, a worktree's, names
		 * it), and takes hooks and config there: kept read-only only as far as the git
		 * directory goes, the link would lead the next git to a directory the command writes.
		 */
		sbx_diag_set(l->d, SBX_E_UNENFORCEABLE,
			     "%s is a symbolic link among git directories: git would follow it to "
			     "hooks and config that are not kept read-only",
			     p);
		r = sbx_diag_hint(l->d, SBX_E_UNENFORCEABLE,
				  "put the directory there instead of the link, or remove it");
		free(p);
	} else if (!r && l->out->n - l->first > SBX_MAX_GIT_DIRS) {
		sbx_diag_set(
			l->d, SBX_E_TOO_BIG,
			"more than %d git directories of submodules and worktrees at %s (%s is "
			"one too many)",
			SBX_MAX_GIT_DIRS, l->gitdir, p);
		r = sbx_diag_hint(l->d, SBX_E_TOO_BIG,
				  "remove the ones no longer used from %s (git submodule deinit, "
				  "git worktree prune, then the directory)",
				  l->parent);
		free(p);
	} else if (!r) {
		r = sbx_strv_push_owned(l->out, p);
	}
	l->err = r;
	return r ? 1 : 0;
}

/* Appends to l->out the subdirectories of dir/sub (of dir when sub is NULL). */
static int list_subdirs(const struct sbx_ctx *ctx, struct list_dirs *l, const char *dir,
			const char *sub, struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	char *list = NULL;
	int r = sub ? sbx_path_join_any(dir, sub, &list) : (list = strdup(dir)) ? 0 : -ENOMEM;

	if (r)
		return r;
	l->parent = list;
	l->err = 0;
	r = v->list(v->self, list, push_subdir, l);
	if (l->err)
		r = l->err;
	else if (r == -ENOENT || r == -ENOTDIR)
		r = 0;
	else if (r && r != -ENOMEM && d) {
		sbx_diag_set(d, r < 0 ? r : -EACCES, "cannot list %s: %s", list,
			     strerror(r < 0 ? -r : EACCES));
		r = r < 0 ? r : -EACCES;
	}
	free(list);
	return r;
}

/*
 * The directories whose hooks and config git runs, for the git directory gitdir of a writable
 * root: gitdir itself, the common directory it names (a worktree's), and each submodule's
 * (<dir>/modules/NAME, and the nested ones in its own modules/). A submodule's name may have a
 * slash (git names one by its path), so a directory under modules/ that is no git directory to
 * git (sbx_git_is_gitdir) is searched for them in turn, and so is a submodule's git directory
 * but for git's own subdirectories: the command may have made the directory around a nested one
 * a git directory. A failed look-up or listing is an error.
 */
static int git_dirs(const struct sbx_ctx *ctx, const char *gitdir, struct sbx_strv *out,
		    struct sbx_diag *d)
{
	size_t *worktrees = NULL, n_worktrees = 0, next_worktree = 0, first = out->n, roots;
	char *common = NULL;
	int r = sbx_strv_push(out, gitdir);

	if (!r)
		r = git_commondir(ctx, gitdir, &common, d);
	if (!r && common)
		r = sbx_strv_push_owned(out, common);
	common = NULL;
	roots = out->n;
	for (size_t i = first; !r && i < out->n; i++) {
		struct list_dirs l = {.gitdir = gitdir, .out = out, .first = first, .d = d};
		/* Worktrees' git directories are met in the order they were listed (at their index). */
		bool git = true,
		     worktree = next_worktree < n_worktrees && worktrees[next_worktree] == i;
		size_t n;

		next_worktree += worktree;
		/*
		 * A linked worktree's git directory names its common directory, where git takes
		 * hooks and config for that worktree: wherever it lies, it is one of these. It
		 * holds no submodules' git directories (git keeps them in the common one), and
		 * lies in a git directory read-only whole: nothing more is looked for in it.
		 */
		if (worktree) {
			r = git_commondir(ctx, out->v[i], &common, d);
			/* Mostly the git directory it was found in, first of all: asked first. */
			if (!r && common && strcmp(common, out->v[first]) &&
			    !sbx_strv_has(out, common))
				r = sbx_strv_push_owned(out, common);
			else
				free(common);
			common = NULL;
			continue;
		}
		if (i >= roots)
			r = sbx_git_is_gitdir(ctx, out->v[i], &git, d);
		if (!r && git)
			r = list_subdirs(ctx, &l, out->v[i], "modules", d);
		/* Worktrees' git directories, for what git reads there (git_reads). */
		n = out->n;
		if (!r && git)
			r = list_subdirs(ctx, &l, out->v[i], "worktrees", d);
		if (!r && out->n > n) {
			size_t *more =
				realloc(worktrees, (n_worktrees + out->n - n) * sizeof(*more));

			if (!more)
				r = -ENOMEM;
			else
				worktrees = more;
		}
		for (; !r && n < out->n; n++)
			worktrees[n_worktrees++] = n;
		l.skip_own = git;
		if (!r && i >= roots)
			r = list_subdirs(ctx, &l, out->v[i], NULL, d);
	}
	free(worktrees);
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
	up = nearest_decider(m, s->p);
	if (!up || up->access == SBX_DENY || up->wr < 0)
		return 0;
	return is_dotgit_of(out->writable[up->wr].root, s->p, yes);
}

/*
 * A .git file's target that is no directory (missing, a file, a link) is no git directory to
 * git. Inside a writable root the command could make it one of its own (a config that runs a
 * command), which the next git, outside the sandbox, would take: it is denied (deny), so that
 * nothing can be created there and anything there stays as it is (a link is refused). An entry
 * naming the path decides instead, as a deny above it or the lack of a writable root leaves it
 * to the rest of the profile.
 */
static int keep_gitdir_target(const struct pmap *m, const char *target, struct sbx_strv *deny)
{
	const struct pslot *s;

	if (pmap_find(m, target, strlen(target)) || sbx_strv_has(deny, target))
		return 0;
	s = nearest_decider(m, target);
	if (!s || s->access == SBX_DENY || s->wr < 0)
		return 0;
	return sbx_strv_push(deny, target);
}

/*
 * Does the look-up in cross a symbolic link that lies in a writable root, other than one inside
 * the git directories in git[0..n) (read-only there)? The first such is copied to one.
 */
static bool crosses_writable_link(const struct pmap *m, const struct sbx_pathinfo *in,
				  const struct sbx_strv *git, size_t n, char one[SBX_MAX_PATH])
{
	size_t len;

	for (const char *l = in->link; *l; l += len + !!l[len]) {
		const struct pslot *s;
		bool kept = false;

		len = sbx_link_len(l);
		snprintf(one, SBX_MAX_PATH, "%.*s", (int)len, l);
		if (len >= SBX_MAX_PATH)
			return true;
		for (size_t k = 0; !kept && k < n; k++)
			kept = sbx_path_covers_any(git->v[k], one) && strcmp(git->v[k], one);
		s = kept ? NULL : nearest_decider(m, one);
		if (s && s->access != SBX_DENY && s->wr >= 0)
			return true;
	}
	return false;
}

/*
 * The name of real, a resolved path, as the roots are enforced by their names (*out, to free):
 * by the name of the writable root it lies in, which may be named through a link of its own
 * (~/proj -> /data/proj); real itself when none holds it.
 */
static int root_name(const struct sbx_ctx *ctx, const struct pmap *m, const struct sbx_roots *roots,
		     const char *real, char **out, struct sbx_diag *d)
{
	const struct pslot *s = nearest_decider(m, real);
	struct sbx_pathinfo in;
	int r = 0;

	*out = NULL;
	if (s && s->access != SBX_DENY && s->wr >= 0)
		return (*out = strdup(real)) ? 0 : -ENOMEM;
	for (size_t i = 0; i < roots->n_writable; i++) {
		size_t n;

		if ((r = sbx_ctx_lookup(ctx, roots->writable[i].root, &in, d)))
			return r;
		n = strlen(in.real);
		if (!in.exists || !n || !sbx_path_covers_any(in.real, real) ||
		    !strcmp(in.real, roots->writable[i].root))
			continue;
		return sbx_path_join_any(roots->writable[i].root, real[n] ? real + n + 1 : ".",
					 out);
	}
	return (*out = strdup(real)) ? 0 : -ENOMEM;
}

/* Keeps real, where a link git follows leads (resolved), read-only, by its root_name(). */
static int keep_target(const struct sbx_ctx *ctx, const struct pmap *m,
		       const struct sbx_roots *roots, const char *real, struct sbx_strv *keep,
		       struct sbx_diag *d)
{
	char *named = NULL;
	int r = root_name(ctx, m, roots, real, &named, d);

	if (!r)
		r = sbx_strv_add_unique(keep, named);
	free(named);
	return r;
}

/* The names git reads in a git directory that may lead elsewhere: their index is a bit. */
static const char *const reads[] = {"hooks", "config", "config.worktree", "commondir", "gitdir"};

struct read_links {
	unsigned *links;
};

static int read_link(void *arg, const char *name, enum sbx_ftype type)
{
	struct read_links *l = arg;

	for (size_t i = 0; type == SBX_FT_LINK && i < sizeof(reads) / sizeof(reads[0]); i++)
		if (!strcmp(name, reads[i]))
			*l->links |= 1u << i;
	return 0;
}

/*
 * Which of the names git reads (reads[]) are symbolic links in the git directory dir, as bits
 * of *links: one listing, where a look-up each would cost more. A directory that cannot be
 * listed is an error.
 */
static int read_links(const struct sbx_ctx *ctx, const char *dir, unsigned *links,
		      struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	struct read_links l = {.links = links};
	int r;

	*links = 0;
	r = v->list(v->self, dir, read_link, &l);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r && r != -ENOMEM && d) {
		sbx_diag_set(d, r < 0 ? r : -EACCES, "cannot list %s: %s", dir,
			     strerror(r < 0 ? -r : EACCES));
		r = r < 0 ? r : -EACCES;
	}
	return r;
}

/* Git's include depth (config.c, MAX_INCLUDE_DEPTH): past it git refuses to run. */
#define GIT_INCLUDE_DEPTH 10

/*
 * The file p that the config from includes: kept read-only where it really is (and added to
 * configs, whose includes git reads in turn, by the real path of its directory, which git goes
 * up from on a ".."), denied when missing at the real path of its directory, refused when
 * reached through a link in a writable root, or when missing through a link to nothing (the
 * command could make where it leads). Each real path is named from the writable root that
 * holds it (root_name), as the roots are enforced by their names.
 */
static int keep_include(const struct sbx_ctx *ctx, const struct pmap *m,
			const struct sbx_roots *roots, const struct sbx_strv *git, bool git_mode,
			const char *from, const char *p, struct sbx_strv *keep,
			struct sbx_strv *deny, struct sbx_strv *configs, struct sbx_diag *d)
{
	struct sbx_pathinfo in, up;
	char one[SBX_MAX_PATH], *dir = NULL, *named = NULL, *at = NULL;
	size_t plen = strlen(p), dlen = sbx_path_parent_len(p, plen);
	int r = sbx_ctx_lookup(ctx, p, &in, d);

	if (r)
		return r;
	/* Git mode's git directories are writable: a link in one is the command's. */
	if (crosses_writable_link(m, &in, git, git_mode ? 0 : git->n, one)) {
		if (strcmp(one, p))
			sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				     "%s includes %s, through the symbolic link %s inside a "
				     "writable root: the command could repoint it at a config of "
				     "its own",
				     from, p, one);
		else
			sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				     "%s includes %s, a symbolic link inside a writable root: the "
				     "command could repoint it at a config of its own",
				     from, p);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "include the file it leads to (git config include.path), or "
				     "put that file there instead of the link");
	}
	/* The directory as the kernel resolves it, links outside the writable roots followed. */
	if (!dlen || dlen >= plen) {
		sbx_pathinfo_clear(&up);
	} else {
		if (!(dir = strndup(p, dlen)))
			return -ENOMEM;
		r = sbx_ctx_lookup(ctx, dir, &up, d);
		free(dir);
		if (r)
			return r;
	}
	/*
	 * Missing through a link to nothing there is, on the way or at its own name: where it
	 * would be made is wherever the command makes that lead.
	 */
	if (!in.exists && ((!up.exists && up.link[0]) || (up.exists && strcmp(in.link, up.link)))) {
		if (up.exists)
			snprintf(one, sizeof(one), "%s", p);
		else
			snprintf(one, sizeof(one), "%.*s", (int)sbx_link_len(up.link), up.link);
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s includes %s, which is missing, through the symbolic link %s to "
			     "nothing there is: the command could make what it leads to, and the "
			     "file in it",
			     from, p, one);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "make the directory it leads to, or remove the include (git "
				     "config --unset include.path)");
	}
	if (!up.exists && !in.exists)
		return keep_gitdir_target(m, p, deny); /* no link on the way: p is where it is */
	/* p a root: there is no directory to go up from. */
	if (!up.exists)
		return keep_target(ctx, m, roots, in.real, keep, d);
	r = sbx_path_join_any(up.real, p + dlen + !!sbx_path_is_sep(p[dlen]), &at);
	if (!r && in.exists)
		r = keep_target(ctx, m, roots, in.real, keep, d);
	else if (!r)
		r = root_name(ctx, m, roots, at, &named, d);
	if (!r && !in.exists)
		r = keep_gitdir_target(m, named, deny);
	if (!r && in.exists && in.type == SBX_FT_REG)
		r = sbx_strv_add_unique(configs, at);
	free(named);
	free(at);
	return r;
}

/*
 * What git reads from the git directories in git (git_dirs' or gitmode.c's) that lies
 * elsewhere, appended to keep (read-only carve-outs) or deny (missing: not to be made).
 *  - Without git mode each git directory is read-only whole, but not where a symbolic link
 *    in it leads: at the names git reads (hooks, config, config.worktree, commondir, gitdir),
 *    the link's target is kept read-only too, resolved once here, which the plan keeps as it
 *    is (a link on the way there inside a writable root is refused: the command could repoint
 *    it). One that leads nowhere is refused: the command could make its target. (Git mode
 *    keeps those names themselves, and so refuses a link at one.)
 *  - The files each config includes (include.path, includeIf), and those they include, down
 *    to git's depth, are kept read-only; one missing is denied, so that the command cannot
 *    make it. One reached through a link in a writable root is refused.
 * Each git directory that is listed is a directory (a checkout's .git file among them reads as
 * none). Bounded: SBX_MAX_GIT_DIRS files included in all.
 */
static int git_reads(const struct sbx_ctx *ctx, const struct pmap *m, const struct sbx_roots *roots,
		     const struct sbx_strv *git, size_t ndirs, bool git_mode, struct sbx_strv *keep,
		     struct sbx_strv *deny, struct sbx_diag *d)
{
	struct sbx_strv configs = {0}, next = {0}, seen = {0};
	char one[SBX_MAX_PATH];
	unsigned links = 0;
	size_t base;
	int r = 0;

	for (size_t k = 0; !r && k < git->n; k++) {
		const char *slash = strrchr(git->v[k], '/');
		const char *name = slash ? slash + 1 : git->v[k];

		if (git_mode) {
			/* gitmode.c's list holds the files: the configs among them. */
			if (!strcmp(name, "config") || !strcmp(name, "config.worktree"))
				r = sbx_strv_add_unique(&configs, git->v[k]);
			continue;
		}
		if (k >= ndirs)
			break;
		r = read_links(ctx, git->v[k], &links, d);
		/* A config missing includes nothing (sbx_git_config_includes). */
		for (size_t i = 1; !r && i < 3; i++) {
			char *p = NULL;

			r = sbx_path_join_any(git->v[k], reads[i], &p);
			if (!r)
				r = sbx_strv_push_owned(&configs, p);
		}
		for (size_t i = 0; !r && i < sizeof(reads) / sizeof(reads[0]); i++) {
			struct sbx_pathinfo in;
			char *p = NULL;

			if (!(links & (1u << i)))
				continue;
			r = sbx_path_join_any(git->v[k], reads[i], &p);
			if (!r)
				r = sbx_ctx_lookup(ctx, p, &in, d);
			if (r) {
				free(p);
				continue;
			}
			if (!in.is_link || crosses_writable_link(m, &in, git, ndirs, one)) {
				/* Not a link now, when it was listed as one: swapped meanwhile. */
				if (!in.is_link)
					snprintf(one, sizeof(one), "%s", p);
				sbx_diag_set(d, SBX_E_UNENFORCEABLE,
					     "%s is a symbolic link that git follows through %s, "
					     "inside a writable root: the command could repoint it",
					     p, one);
				r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
						  "put the file or directory it leads to there "
						  "instead of the link");
			} else if (!in.exists) {
				sbx_diag_set(d, SBX_E_UNENFORCEABLE,
					     "%s is a symbolic link to nothing there is: git would "
					     "take what the command makes where it leads",
					     p);
				r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
						  "make what it leads to, or remove the link");
			} else {
				r = keep_target(ctx, m, roots, in.real, keep, d);
			}
			free(p);
		}
	}
	base = configs.n; /* the git directories' own, which the cap does not count */
	for (int depth = 0; !r && depth <= GIT_INCLUDE_DEPTH && configs.n; depth++) {
		struct sbx_strv these = configs;

		configs = (struct sbx_strv){0};
		for (size_t k = 0; !r && k < these.n; k++) {
			const char *from = these.v[k];

			/*
			 * The git directories' own configs are as many names as there are git
			 * directories (two each): looked for only among the files included.
			 */
			if (depth && sbx_strv_has(&seen, from))
				continue;
			if (seen.n >= base + SBX_MAX_GIT_DIRS) {
				sbx_diag_set(d, SBX_E_TOO_BIG,
					     "git's config files include more than %d files (%s is "
					     "one too many), each of which sbxrun keeps read-only",
					     SBX_MAX_GIT_DIRS, from);
				r = sbx_diag_hint(d, SBX_E_TOO_BIG,
						  "include fewer files (include.path, includeIf)");
				break;
			}
			r = sbx_strv_push(&seen, from);
			if (!r)
				r = sbx_git_config_includes(ctx, from, &next, d);
			for (size_t i = 0; !r && i < next.n; i++)
				r = keep_include(ctx, m, roots, git, git_mode, from, next.v[i],
						 keep, deny, &configs, d);
			sbx_strv_clear(&next);
		}
		sbx_strv_clear(&these);
	}
	sbx_strv_clear(&configs);
	sbx_strv_clear(&next);
	sbx_strv_clear(&seen);
	if (r == -ENOMEM)
		sbx_diag_set(d, r, "out of memory");
	return r;
}

static int protect_root(struct sbx_roots *out, const struct pmap *m, size_t wi,
			const struct sbx_ctx *ctx, struct sbx_strv *deny, struct sbx_diag *d)
{
	struct sbx_strv gits = {0}, missing = {0}, gone = {0}, missing_names = {0}, extra = {0};
	struct sbx_writable_root *w = &out->writable[wi];
	struct sbx_pathinfo in = {0}, tin[SBX_GIT_READINGS];
	char **defaults = NULL, *git = NULL, *target[SBX_GIT_READINGS] = {NULL};
	size_t n_defaults = 0, ndirs = 0;
	bool git_mode = false, any = false;
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
		s = pmap_find(m, p, strlen(p));
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
	/*
	 * Git runs hooks and reads config from more places than .git: the directory a .git file
	 * points to (gitdir:), and from there a worktree's common directory and every
	 * submodule's. Each is a carve-out of the writable root that holds it; in git mode only
	 * what gitmode.c names is, and the missing ones of those must not be created.
	 */
	/* Each reading of a .git file (gitdir_targets) is git's directory to protect. */
	if (!r && in.exists && in.type == SBX_FT_REG)
		r = gitdir_targets(ctx, w->root, git, target, tin, d);
	for (int i = 0; !r && i < SBX_GIT_READINGS && target[i]; i++) {
		if (!(tin[i].exists && tin[i].type == SBX_FT_DIR)) {
			r = keep_gitdir_target(m, target[i], deny);
			continue;
		}
		any = true;
		r = git_mode ? sbx_git_mode_paths(ctx, target[i], &gits, &missing, &gone, d)
			     : git_dirs(ctx, target[i], &gits, d);
	}
	if (!r && !any && in.exists && in.type == SBX_FT_DIR) {
		any = true;
		r = git_mode ? sbx_git_mode_paths(ctx, git, &gits, &missing, &gone, d)
			     : git_dirs(ctx, git, &gits, d);
	}
	if (!r && any) {
		/*
		 * The checkouts those git directories name (a submodule's): git status recurses
		 * into each through its .git, which the command could otherwise point at a git
		 * directory of its own. Git mode keeps them itself.
		 */
		ndirs = gits.n; /* past them, checkouts' .git (git mode: files) */
		for (size_t k = 0, n = gits.n; !r && !git_mode && k < n; k++)
			r = sbx_git_keep_checkout(ctx, gits.v[k], &gits, &missing, &gone, d);
		for (size_t k = 0; !r && k < gone.n; k++)
			r = keep_gitdir_target(m, gone.v[k], deny);
		/* What git reads from them that lies elsewhere: a link's target, an include. */
		if (!r)
			r = git_reads(ctx, m, out, &gits, ndirs, git_mode, &extra, deny, d);
		for (size_t k = 0; !r && k < extra.n; k++)
			r = sbx_strv_add_unique(&gits, extra.v[k]);
	}
	for (size_t k = 0; !r && k < n_defaults + gits.n; k++) {
		const char *p = k < n_defaults ? defaults[k] : gits.v[k - n_defaults];
		struct pslot *s;

		if (pmap_find(m, p, strlen(p)) || sbx_strv_has(&missing_names, p))
			continue;
		if (git_mode && k < n_defaults &&
		    ((target[0] && strcmp(p, target[0]) == 0) ||
		     (target[1] && strcmp(p, target[1]) == 0) || strcmp(p, git) == 0))
			continue; /* gitmode.c's, or the .git added above */
		s = nearest_decider(m, p);
		if (s && s->access != SBX_DENY && s->wr >= 0)
			r = k < n_defaults ? add_read_only(&out->writable[s->wr], p)
					   : add_read_only_uncovered(&out->writable[s->wr], p);
	}
	for (size_t k = 0; !r && k < missing.n; k++) {
		const char *p = missing.v[k];
		struct pslot *s;

		if (pmap_find(m, p, strlen(p)))
			continue;
		s = nearest_decider(m, p);
		if (s && s->access != SBX_DENY && s->wr >= 0)
			r = add_no_create(&out->writable[s->wr], p);
	}
out:
	sbx_strv_free(defaults, n_defaults);
	sbx_strv_clear(&gits);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);
	sbx_strv_clear(&missing_names);
	sbx_strv_clear(&extra);
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
 *  - Protected metadata under each writable root: see protect_root().
 */
int sbx_fs_roots(const struct sbx_fs *fs, const struct sbx_ctx *ctx, struct sbx_roots *out,
		 struct sbx_diag *d)
{
	struct sbx_fs m = {0};
	const struct sbx_fs *src = fs;
	char **resolved = NULL;
	struct pmap map = {0};
	struct near_memo near = {0};
	struct sbx_strv readable = {0}, unreadable = {0}, globs = {0};
	size_t n_wr = 0;
	int r;

	memset(out, 0, sizeof(*out));
	out->full_read = sbx_fs_full_read(fs, ctx);
	out->full_write = sbx_fs_full_write(fs, ctx);
	out->platform_defaults = sbx_fs_include_platform_defaults(fs, ctx);
	if (fs->kind != SBX_FS_RESTRICTED)
		return 0;

	/*
	 * A profile already materialized for ctx (the plan's) is read as it is: copying it again
	 * would only drop duplicates, which the map below merges anyway.
	 */
	if (sbx_fs_expands(fs, ctx)) {
		r = sbx_fs_materialize(fs, ctx, &m);
		if (r)
			goto fail;
		src = &m;
	} else {
		out->borrowed = fs->paths;
	}
	resolved = calloc(src->n ? src->n : 1, sizeof(*resolved));
	if (!resolved) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < src->n; i++) {
		const struct sbx_entry *e = &src->entries[i];

		if (e->kind == SBX_GLOB) {
			if (e->access != SBX_DENY)
				continue;
			if (!sbx_path_is_posix_abs(e->path) && !sbx_path_is_windows_abs(e->path)) {
				r = sbx_diag_set(
					d, SBX_E_INVALID,
					"deny glob `%s` is relative and there is no working "
					"directory to resolve it against",
					e->path);
				goto fail;
			}
			if (sbx_ctx_native_abs(e->path, ctx) && !sbx_strv_has(&globs, e->path) &&
			    (r = sbx_strv_push_owned(&globs, strdup(e->path))))
				goto fail;
			continue;
		}
		if (src == fs && e->kind == SBX_PATH && e->pooled && e->path &&
		    ctx->platform != SBX_PLATFORM_WINDOWS && sbx_ctx_native_abs(e->path, ctx)) {
			/* As sbx_entry_resolve would copy it, borrowed (str_drop). */
			resolved[i] = e->path;
			r = 0;
		} else {
			r = sbx_entry_resolve(e, ctx, &resolved[i], d);
		}
		if (r == -EINVAL) {
			r = windows_path_error(e, d);
			goto fail;
		}
		if (r)
			goto fail;
		if (resolved[i] && e->skip_missing) {
			struct sbx_pathinfo at;
			bool exists;

			r = path_exists(ctx, resolved[i], &exists, &at, d);
			/* A mount point at a protected name is that name missing (is_point). */
			if (!r && exists && e->access == SBX_READ && protected_name(resolved[i])) {
				bool point;

				r = is_point(ctx, resolved[i], &at, &point, d);
				exists = !point;
			}
			if (r)
				goto fail;
			if (!exists) {
				str_drop(&out->borrowed, resolved[i]);
				resolved[i] = NULL;
			}
		}
	}
	r = pmap_build(&map, resolved, src);
	if (r)
		goto fail;

	for (size_t i = 0; i < map.paths.n; i++)
		if (pmap_at(&map, i)->access == SBX_WRITE)
			n_wr++;
	out->writable = calloc(n_wr ? n_wr : 1, sizeof(*out->writable));
	if (!out->writable) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < map.paths.n; i++) {
		const char *p = map.paths.v[i];

		if (pmap_at(&map, i)->access != SBX_WRITE)
			continue;
		out->writable[out->n_writable].root = strdup(p);
		if (!out->writable[out->n_writable++].root) {
			r = -ENOMEM;
			goto fail;
		}
	}
	qsort(out->writable, out->n_writable, sizeof(*out->writable), cmp_writable);
	for (size_t i = 0; i < out->n_writable; i++)
		pmap_find(&map, out->writable[i].root, strlen(out->writable[i].root))->wr =
			(int32_t)i;

	/*
	 * Each distinct path is listed at most once below, so a list takes the map's own string
	 * (the map's slot still points at it, alive as long as the roots are).
	 */
	for (size_t i = 0; i < map.paths.n; i++) {
		char *p = map.paths.v[i];
		struct pslot *s = pmap_at(&map, i), *up;
		bool lifted;

		if (s->access == SBX_DENY) {
			if (is_fs_root(p))
				continue;
			if ((r = push_kept(&unreadable, p)))
				goto fail;
			map.paths.v[i] = NULL;
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
		up = nearest_entry_of(&map, s, &near);
		/*
		 * Linux's private /dev hides the host's /dev/shm from what an ancestor outside
		 * it grants (read /): a root there is bound in only as a root of its own.
		 */
		if (up && up->access == SBX_READ && shm_apart(ctx, up->p, p))
			up = nearest_decider(&map, p);
		else if (up && up->access == SBX_READ) {
			/* Unless that ancestor is a .git git mode lifts: then it covers nothing. */
			if ((r = lifted_by_git_mode(&map, out, ctx, up, &lifted)))
				goto fail;
			if (!lifted)
				continue;
			/* The lifted .git decides nothing: the decider is above it. */
			up = nearest_decider(&map, p);
		}
		/* The .git of a writable root itself: git mode decides it (protect_root). */
		if ((r = lifted_by_git_mode(&map, out, ctx, s, &lifted)))
			goto fail;
		if (lifted)
			continue;
		/* Any other nearest entry is a deny or a writable root: the nearest decider. */
		if (up && up->access != SBX_DENY)
			r = push_read_only(&out->writable[up->wr], p);
		else
			r = push_kept(&readable, p);
		if (r)
			goto fail;
		map.paths.v[i] = NULL;
	}
	for (size_t i = 0; !out->full_write && i < out->n_writable; i++)
		if ((r = protect_root(out, &map, i, ctx, &unreadable, d)))
			goto fail;

	/* The plan keeps these lists as long as it lives: 10,000 paths leave 6,000 slots spare. */
	sbx_strv_fit(&readable);
	sbx_strv_fit(&unreadable);
	out->readable = readable.v;
	out->n_readable = readable.n;
	out->unreadable = unreadable.v;
	out->n_unreadable = unreadable.n;
	out->deny_globs = globs.v;
	out->n_deny_globs = globs.n;
	readable = unreadable = globs = (struct sbx_strv){0};
fail:
	strs_drop(&out->borrowed, resolved, resolved ? src->n : 0);
	pmap_free(&map, &out->borrowed);
	sbx_fs_clear(&m);
	strv_drop(&out->borrowed, &readable);
	strv_drop(&out->borrowed, &unreadable);
	sbx_strv_clear(&globs);
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
	memset(r, 0, sizeof(*r));
}
