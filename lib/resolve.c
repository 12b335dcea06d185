/* SPDX-License-Identifier: MIT */
/*
 * resolve.c - where entries point and which entry decides a path: special paths, the
 * materialization of project roots, the predicates and precedence of Codex's permission model
 * (sbxrun-profile(5): RESOLUTION, PRECEDENCE, WHEN A SANDBOX IS NEEDED). The roots every
 * platform enforces from are roots.c's.
 *
 * Paths are compared component-wise and lexically. The only file system access here is
 * "/tmp is a directory" (slash_tmp), through the context's struct sbx_fsview.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx.h"
#include "winpath.h"

const char *const sbx_protected_names[SBX_PROTECTED_NAMES_N] = {".git", ".agents", ".codex"};

const char *sbx_platform_name(enum sbx_platform p)
{
	switch (p) {
	case SBX_PLATFORM_LINUX:
		return "linux";
	case SBX_PLATFORM_MACOS:
		return "macos";
	case SBX_PLATFORM_WINDOWS:
		return "windows";
	}
	return "?";
}

enum sbx_platform sbx_host_platform(void)
{
#if defined(__APPLE__)
	return SBX_PLATFORM_MACOS;
#elif defined(_WIN32)
	return SBX_PLATFORM_WINDOWS;
#else
	return SBX_PLATFORM_LINUX;
#endif
}

/* ---- paths of the context's platform ------------------------------------------------------ */

/* "Native" absolute: what can resolve on the platform ctx describes. */
bool sbx_ctx_native_abs(const char *p, const struct sbx_ctx *ctx)
{
	if (ctx->platform == SBX_PLATFORM_WINDOWS)
		return sbx_path_is_windows_abs(p);
	return sbx_path_is_posix_abs(p);
}

/* ---- resolution ---------------------------------------------------------------------------- */

static int resolve_entry_as_written(const struct sbx_entry *e, const struct sbx_ctx *ctx,
				    char **out, struct sbx_diag *d)
{
	struct sbx_pathinfo in;
	int r;

	*out = NULL;
	if (e->kind == SBX_GLOB)
		return 0;
	if (e->kind == SBX_PATH) {
		if (!e->path || !sbx_ctx_native_abs(e->path, ctx))
			return 0; /* a foreign (e.g. Windows) path never resolves here */
		*out = strdup(e->path);
		return *out ? 0 : -ENOMEM;
	}
	switch (e->special) {
	case SBX_SP_ROOT:
		if (ctx->platform == SBX_PLATFORM_WINDOWS) {
			/* The root of the cwd's drive. */
			if (!ctx->cwd || !sbx_path_is_windows_abs(ctx->cwd) || ctx->cwd[1] != ':')
				return 0;
			*out = strdup("C:\\");
			if (*out)
				(*out)[0] = ctx->cwd[0];
		} else {
			*out = strdup("/");
		}
		return *out ? 0 : -ENOMEM;
	case SBX_SP_PROJECT_ROOTS:
		if (!ctx->cwd || !sbx_ctx_native_abs(ctx->cwd, ctx))
			return 0;
		return sbx_path_join_any(ctx->cwd, e->subpath, out);
	case SBX_SP_TMPDIR:
		/*
		 * Deliberately stricter than Codex, which resolves a relative TMPDIR against the
		 * process cwd: a relative TMPDIR is dropped (sbxrun-profile(5)
		 * RESOLUTION).
		 */
		if (!ctx->tmpdir || !ctx->tmpdir[0] || !sbx_ctx_native_abs(ctx->tmpdir, ctx))
			return 0;
		return sbx_path_join_any(ctx->tmpdir, NULL, out);
	case SBX_SP_SLASH_TMP:
		if (ctx->platform == SBX_PLATFORM_WINDOWS)
			return 0;
		r = sbx_ctx_lookup(ctx, "/tmp", &in, d);
		if (r < 0)
			return r;
		if (!in.exists || in.type != SBX_FT_DIR)
			return 0;
		*out = strdup("/tmp");
		return *out ? 0 : -ENOMEM;
	case SBX_SP_MINIMAL:
	case SBX_SP_UNKNOWN:
		return 0;
	}
	return 0;
}

/*
 * Where an entry points. On Windows the result is put in the one canonical form (winpath.c)
 * before anything compares it, so that "C:\Windows\.." cannot pass for something other than
 * "C:\". A path entry that cannot be put in that form, or that is not a Windows path while the
 * working directory is one ("/work" would be relative to the current drive), is an error
 * (-EINVAL), not an entry that silently matches nothing: dropping a read-only carve-out would
 * widen the writable root. (Planned from a POSIX working directory, as `explain --platform
 * windows` on Linux does, POSIX paths stay foreign and resolve to nothing.)
 */
int sbx_entry_resolve(const struct sbx_entry *e, const struct sbx_ctx *ctx, char **out,
		      struct sbx_diag *d)
{
	char *raw = NULL;
	int r = resolve_entry_as_written(e, ctx, &raw, d);

	*out = NULL;
	if (r || ctx->platform != SBX_PLATFORM_WINDOWS) {
		*out = raw;
		return r;
	}
	if (!raw) {
		/* With a Windows working directory a POSIX path is not foreign but relative. */
		if (e->kind == SBX_PATH && e->path && sbx_path_is_windows_abs(ctx->cwd))
			return -EINVAL;
		return 0;
	}
	r = sbx_win_path_normalize(raw, out, NULL);
	free(raw);
	return r;
}

/*
 * Also resolves path entries (to themselves, when native). errno is ENOMEM when NULL comes from
 * an allocation failure, 0 when the entry simply does not resolve.
 */
char *sbx_special_resolve(const struct sbx_entry *e, const struct sbx_ctx *ctx)
{
	char *p = NULL;
	int r = sbx_entry_resolve(e, ctx, &p, NULL);

	errno = r ? -r : 0;
	return p;
}

/* ---- deduplication ------------------------------------------------------------------------- */

static uint64_t hash_entry(const struct sbx_entry *e)
{
	/* The four small fields in a word, mixed by one multiplication (not a hash call each). */
	uint64_t k = (uint64_t)(unsigned char)e->kind |
		     (uint64_t)(unsigned char)(e->kind == SBX_SPECIAL ? e->special : 0) << 8 |
		     (uint64_t)(unsigned char)e->access << 16 |
		     (uint64_t)(unsigned char)e->skip_missing << 24;
	uint64_t h = (k + 1) * 0x9e3779b97f4a7c15ull;

	if (e->path)
		h = (h ^ sbx_hash(e->path, strlen(e->path))) * 0x100000001b3ull;
	if (e->subpath)
		h = (h ^ sbx_hash(e->subpath, strlen(e->subpath))) * 0x100000001b3ull + 1;
	return h;
}

/* The hash of entry i (struct sbx_ahead): every entry is probed. */
static inline bool ahead_entry(const void *keys, size_t i, struct sbx_ahead_key *k)
{
	k->hash = hash_entry(&((const struct sbx_entry *)keys)[i]);
	return true;
}

/* Removes exact duplicates, keeping the first of each; linear expected time. */
int sbx_fs_dedup(struct sbx_fs *fs)
{
	/*
	 * Each slot keeps its entry's hash beside its index: a probe that meets another entry
	 * compares the hashes, not the entries (a second load from a random place, and the paths).
	 */
	struct dedup_slot {
		uint32_t hash;
		uint32_t at; /* the kept entry's index + 1; 0 = empty */
	} * slots;
	struct sbx_ahead_key ring[SBX_HASH_AHEAD];
	size_t cap = 16, o = 0;

	if (fs->n < 2)
		return 0;
	if (fs->n >= UINT32_MAX)
		return -ENOMEM; /* an index that does not fit a slot */
	while (cap < fs->n * 2)
		cap *= 2;
	slots = calloc(cap, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	const struct sbx_ahead ahead = {
		.key = ahead_entry,
		.keys = fs->entries,
		.n = fs->n,
		.slots = (const char *)slots,
		.slot_size = sizeof(*slots),
		.mask = cap - 1,
	};

	sbx_ahead_start(&ahead, ring);
	for (size_t i = 0; i < fs->n; i++) {
		struct sbx_entry *e = &fs->entries[i];
		/* Entry i + SBX_HASH_AHEAD, hashed now, is not moved yet: only entries up to i are. */
		uint64_t h = sbx_ahead_next(&ahead, ring, i).hash;
		size_t s = (size_t)h & (cap - 1);
		bool dup = false;

		for (; slots[s].at; s = (s + 1) & (cap - 1)) {
			if (slots[s].hash == (uint32_t)h &&
			    sbx_entry_equal(&fs->entries[slots[s].at - 1], e)) {
				dup = true;
				break;
			}
		}
		if (dup) {
			sbx_entry_clear(e);
			continue;
		}
		if (o != i) {
			fs->entries[o] = *e;
			memset(e, 0, sizeof(*e));
		}
		slots[s] = (struct dedup_slot){(uint32_t)h, (uint32_t)(o + 1)};
		o++;
	}
	fs->n = o;
	free(slots);
	return 0;
}

/* ---- materialization ----------------------------------------------------------------------- */

#define PROJECT_ROOTS_GLOB "codex-project-roots://"

static int push_owned(struct sbx_fs *fs, struct sbx_entry *e)
{
	int r = sbx_fs_push(fs, e);

	sbx_entry_clear(e);
	return r;
}

/*
 * A glob under a root: "root/sub", the root escaped so that its own characters match only
 * themselves (a workspace at /src/p[1] must not turn into a character class). Globs are not
 * normalized beyond what the join does. Windows roots are joined as they are: there the
 * backslash separates, and deny globs are refused anyway (plan_windows.c).
 */
static int glob_under(const char *root, const char *sub, char **out)
{
	size_t n;

	if (sbx_path_is_posix_abs(root)) {
		char *lit = NULL;
		int r = sbx_glob_escape(root, &lit);

		if (!r)
			r = sbx_path_join(lit, sub, out);
		free(lit);
		return r;
	}
	n = strlen(root) + strlen(sub) + 2;
	*out = malloc(n);
	if (!*out)
		return -ENOMEM;
	snprintf(*out, n, "%s%s%s", root, sbx_path_is_sep(root[strlen(root) - 1]) ? "" : "\\", sub);
	return 0;
}

/* What materialization makes of an entry: itself, one entry per root, or a glob under the cwd. */
enum expansion { EXP_NONE, EXP_PER_ROOT, EXP_UNDER_CWD };

static enum expansion expansion_of(const struct sbx_entry *e, const struct sbx_ctx *ctx,
				   size_t n_roots)
{
	bool pr_glob = e->kind == SBX_GLOB && e->path &&
		       strncmp(e->path, PROJECT_ROOTS_GLOB, strlen(PROJECT_ROOTS_GLOB)) == 0;

	if ((e->kind == SBX_SPECIAL && e->special == SBX_SP_PROJECT_ROOTS && n_roots) ||
	    (pr_glob && n_roots))
		return EXP_PER_ROOT;
	if (e->kind == SBX_GLOB && e->path && !pr_glob && !sbx_path_is_posix_abs(e->path) &&
	    !sbx_path_is_windows_abs(e->path) && ctx->cwd)
		return EXP_UNDER_CWD;
	return EXP_NONE;
}

/* The roots project_roots stands for: the workspace roots, else the cwd, else none. */
static size_t roots_of(const struct sbx_ctx *ctx, const char *const **roots,
		       const char *cwd_only[1])
{
	*roots = ctx->workspace_roots;
	if (*roots && ctx->n_workspace_roots)
		return ctx->n_workspace_roots;
	cwd_only[0] = ctx->cwd;
	*roots = cwd_only;
	return ctx->cwd ? 1 : 0;
}

bool sbx_fs_expands(const struct sbx_fs *fs, const struct sbx_ctx *ctx)
{
	const char *const *roots;
	const char *cwd_only[1];
	size_t n_roots = roots_of(ctx, &roots, cwd_only);

	for (size_t i = 0; i < fs->n; i++)
		if (expansion_of(&fs->entries[i], ctx, n_roots) != EXP_NONE)
			return true;
	return false;
}

/*
 * project_roots{sub} becomes one path entry per workspace root, "codex-project-roots://sub"
 * globs one absolute glob per root, relative globs one absolute glob against the cwd. Order is
 * entry by entry (gl-01), then exact duplicates are dropped.
 */
/*
 * With take (the same fs as in), the entries that pass unchanged are moved out of it instead of
 * copied: a profile of many path entries is then held once, not twice, while it is planned.
 */
static int materialize(const struct sbx_fs *in, struct sbx_fs *take, const struct sbx_ctx *ctx,
		       struct sbx_fs *out)
{
	const char *const *roots;
	const char *cwd_only[1];
	size_t n_roots = roots_of(ctx, &roots, cwd_only);
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->kind = in->kind;
	out->glob_depth = in->glob_depth;
	r = sbx_fs_reserve(out, in->n);
	for (size_t i = 0; i < in->n && !r; i++) {
		const struct sbx_entry *e = &in->entries[i];
		enum expansion x = expansion_of(e, ctx, n_roots);
		bool pr_glob = x == EXP_PER_ROOT && e->kind == SBX_GLOB;

		if (x == EXP_PER_ROOT) {
			for (size_t j = 0; j < n_roots && !r; j++) {
				struct sbx_entry m = {.access = e->access,
						      .skip_missing = e->skip_missing};

				if (pr_glob) {
					m.kind = SBX_GLOB;
					r = glob_under(roots[j],
						       e->path + strlen(PROJECT_ROOTS_GLOB),
						       &m.path);
				} else {
					m.kind = SBX_PATH;
					r = sbx_path_join_any(roots[j], e->subpath, &m.path);
				}
				if (!r)
					r = push_owned(out, &m);
			}
		} else if (x == EXP_UNDER_CWD) {
			struct sbx_entry m = {.kind = SBX_GLOB,
					      .access = e->access,
					      .skip_missing = e->skip_missing};

			r = glob_under(ctx->cwd, e->path, &m.path);
			if (!r)
				r = push_owned(out, &m);
		} else {
			r = take ? sbx_fs_push_owned(out, &take->entries[i]) : sbx_fs_push(out, e);
		}
	}
	if (!r)
		r = sbx_fs_dedup(out);
	if (r)
		sbx_fs_clear(out);
	return r;
}

int sbx_fs_materialize(const struct sbx_fs *in, const struct sbx_ctx *ctx, struct sbx_fs *out)
{
	return materialize(in, NULL, ctx, out);
}

int sbx_profile_materialize(const struct sbx_profile *in, const struct sbx_ctx *ctx,
			    struct sbx_profile *out)
{
	int r;

	*out = *in;
	if (in->fs.kind != SBX_FS_RESTRICTED)
		return sbx_fs_copy(&out->fs, &in->fs);
	r = sbx_fs_materialize(&in->fs, ctx, &out->fs);
	if (r)
		memset(&out->fs, 0, sizeof(out->fs));
	return r;
}

int sbx_profile_materialize_take(struct sbx_profile *in, const struct sbx_ctx *ctx,
				 struct sbx_profile *out)
{
	int r = 0;

	*out = *in;
	memset(&out->fs, 0, sizeof(out->fs));
	if (in->fs.kind != SBX_FS_RESTRICTED) {
		out->fs = in->fs;
		memset(&in->fs, 0, sizeof(in->fs));
	} else {
		r = materialize(&in->fs, &in->fs, ctx, &out->fs);
		/* The entries moved keep their paths in the arena, which moves with them. */
		if (r == 0) {
			out->fs.paths = in->fs.paths;
			memset(&in->fs.paths, 0, sizeof(in->fs.paths));
		}
	}
	sbx_profile_free(in);
	return r;
}

/* ---- predicates (sbxrun-profile(5), WHEN A SANDBOX IS NEEDED) ------------------------------- */

static bool is_root(const struct sbx_entry *e)
{
	return e->kind == SBX_SPECIAL && e->special == SBX_SP_ROOT;
}

/* slash_tmp means nothing off Unix, so it neither denies nor narrows there. */
static bool ignored_slash_tmp(const struct sbx_entry *e, const struct sbx_ctx *ctx)
{
	return e->kind == SBX_SPECIAL && e->special == SBX_SP_SLASH_TMP &&
	       ctx->platform == SBX_PLATFORM_WINDOWS;
}

bool sbx_fs_full_read(const struct sbx_fs *fs, const struct sbx_ctx *ctx)
{
	bool root_read = false;

	if (fs->kind != SBX_FS_RESTRICTED)
		return true;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];

		if (e->access == SBX_DENY && !ignored_slash_tmp(e, ctx))
			return false; /* any deny at all: path, glob or special */
		if (is_root(e))
			root_read = true; /* read and write both read */
	}
	return root_read;
}

/*
 * A write entry with higher precedence names the same target: the same symbolic path, or (a
 * refinement of the same rule) an entry that resolves to the same absolute path.
 */
static bool write_overrides(const struct sbx_fs *fs, const struct sbx_entry *e,
			    const struct sbx_ctx *ctx)
{
	char *target = NULL;
	bool found = false;

	if (e->access != SBX_READ)
		return false; /* nothing outranks deny */
	sbx_entry_resolve(e, ctx, &target, NULL);
	for (size_t i = 0; i < fs->n && !found; i++) {
		const struct sbx_entry *c = &fs->entries[i];
		char *ct = NULL;

		if (c->access != SBX_WRITE)
			continue;
		if (sbx_entry_same_path(c, e)) {
			found = true;
			break;
		}
		if (target && c->kind != SBX_GLOB && sbx_entry_resolve(c, ctx, &ct, NULL) == 0 &&
		    ct) {
			found = strcmp(ct, target) == 0;
			free(ct);
		}
	}
	free(target);
	return found;
}

/* has_write_narrowing_entries, by Codex's table (tests/unit/test_resolve.c). */
static bool narrows_write(const struct sbx_fs *fs, const struct sbx_entry *e,
			  const struct sbx_ctx *ctx)
{
	if (e->access == SBX_WRITE)
		return false;
	if (e->kind == SBX_GLOB)
		return true;
	if (e->kind == SBX_PATH)
		return !write_overrides(fs, e, ctx);
	switch (e->special) {
	case SBX_SP_ROOT:
		return e->access == SBX_DENY;
	case SBX_SP_MINIMAL:
	case SBX_SP_UNKNOWN:
		return false;
	case SBX_SP_SLASH_TMP:
		if (ctx->platform == SBX_PLATFORM_WINDOWS)
			return false;
		return !write_overrides(fs, e, ctx);
	case SBX_SP_PROJECT_ROOTS:
	case SBX_SP_TMPDIR:
		return !write_overrides(fs, e, ctx);
	}
	return true;
}

bool sbx_fs_full_write(const struct sbx_fs *fs, const struct sbx_ctx *ctx)
{
	bool root_write = false;

	if (fs->kind != SBX_FS_RESTRICTED)
		return true;
	for (size_t i = 0; i < fs->n; i++)
		if (is_root(&fs->entries[i]) && fs->entries[i].access == SBX_WRITE)
			root_write = true;
	if (!root_write)
		return false;
	for (size_t i = 0; i < fs->n; i++)
		if (narrows_write(fs, &fs->entries[i], ctx))
			return false;
	return true;
}

bool sbx_fs_include_platform_defaults(const struct sbx_fs *fs, const struct sbx_ctx *ctx)
{
	if (fs->kind != SBX_FS_RESTRICTED || sbx_fs_full_read(fs, ctx))
		return false;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];

		if (e->kind == SBX_SPECIAL && e->special == SBX_SP_MINIMAL && e->access != SBX_DENY)
			return true;
	}
	return false;
}

/* ---- precedence (sbxrun-profile(5), PRECEDENCE) -------------------------------------------- */

/* A query path made absolute against the cwd; NULL when that is impossible. */
static char *query_path(const char *path, const struct sbx_ctx *ctx)
{
	char *out = NULL;

	if (!path)
		return NULL;
	if (sbx_path_is_windows_abs(path)) {
		sbx_win_path_normalize(path, &out, NULL);
		return out;
	}
	if (sbx_path_is_posix_abs(path)) {
		sbx_path_normalize(path, &out);
		return out;
	}
	if (!ctx->cwd)
		return NULL;
	sbx_path_join_any(ctx->cwd, path, &out);
	return out;
}

/*
 * The most specific entry wins; on equal depth deny > write > read; no match is deny.
 * Globs, minimal, unknown and specials that do not resolve take no part.
 */
enum sbx_access sbx_fs_resolve_access(const struct sbx_fs *fs, const struct sbx_ctx *ctx,
				      const char *path, long *decided_by)
{
	enum sbx_access best = SBX_DENY;
	size_t best_depth = 0;
	long who = -1;
	char *q;

	if (decided_by)
		*decided_by = -1;
	if (fs->kind != SBX_FS_RESTRICTED)
		return SBX_WRITE;
	q = query_path(path, ctx);
	if (!q)
		return SBX_DENY;
	for (size_t i = 0; i < fs->n; i++) {
		char *t = NULL;
		size_t dd;

		if (sbx_entry_resolve(&fs->entries[i], ctx, &t, NULL) || !t)
			continue;
		if (sbx_path_covers_any(t, q)) {
			dd = sbx_path_depth_any(t);
			if (who < 0 || dd > best_depth ||
			    (dd == best_depth && fs->entries[i].access > best)) {
				best = fs->entries[i].access;
				best_depth = dd;
				who = (long)i;
			}
		}
		free(t);
	}
	free(q);
	if (decided_by)
		*decided_by = who;
	return who < 0 ? SBX_DENY : best;
}

/* The first component of path below prefix, as [*name, *name + *len). */
static bool first_component_below(const char *prefix, const char *path, const char **name,
				  size_t *len)
{
	size_t n = strlen(prefix);
	const char *s;

	if (!sbx_path_covers_any(prefix, path) || strlen(path) <= n)
		return false;
	s = path + n;
	while (sbx_path_is_sep(*s))
		s++;
	if (!*s)
		return false;
	*name = s;
	for (*len = 0; s[*len] && !sbx_path_is_sep(s[*len]); (*len)++)
		;
	return true;
}

bool sbx_is_protected_name(const char *name, size_t len)
{
	for (size_t i = 0; i < SBX_PROTECTED_NAMES_N; i++)
		if (strlen(sbx_protected_names[i]) == len &&
		    memcmp(sbx_protected_names[i], name, len) == 0)
			return true;
	return false;
}

bool sbx_path_protected_below(const char *root, const char *path, size_t *end)
{
	const char *name;
	size_t len;

	if (!first_component_below(root, path, &name, &len) || !sbx_is_protected_name(name, len))
		return false;
	*end = (size_t)(name - path) + len;
	return true;
}

/* An explicit write entry at or inside meta that covers q. */
static bool explicit_write_covers(const struct sbx_fs *fs, const struct sbx_ctx *ctx,
				  const char *meta, const char *q)
{
	bool found = false;

	for (size_t i = 0; i < fs->n && !found; i++) {
		char *t = NULL;

		if (fs->entries[i].access != SBX_WRITE ||
		    sbx_entry_resolve(&fs->entries[i], ctx, &t, NULL) || !t)
			continue;
		found = sbx_path_covers_any(meta, t) && sbx_path_covers_any(t, q);
		free(t);
	}
	return found;
}

/*
 * resolve_access == write, and, unless the policy is full-disk-write, no writable entry above
 * the path has a protected metadata name as the path's first component below it, except where
 * an explicit write entry at or inside <entry>/<name> covers the path (sbxrun-profile(5),
 * PRECEDENCE and PROTECTED METADATA).
 */
bool sbx_fs_can_write(const struct sbx_fs *fs, const struct sbx_ctx *ctx, const char *path)
{
	bool ok = true;
	char *q;

	if (sbx_fs_resolve_access(fs, ctx, path, NULL) != SBX_WRITE)
		return false;
	if (sbx_fs_full_write(fs, ctx))
		return true;
	q = query_path(path, ctx);
	if (!q)
		return false;
	for (size_t i = 0; i < fs->n && ok; i++) {
		size_t end;
		char *t = NULL, *meta = NULL;

		if (fs->entries[i].access != SBX_WRITE ||
		    sbx_entry_resolve(&fs->entries[i], ctx, &t, NULL) || !t)
			continue;
		if (sbx_path_protected_below(t, q, &end)) {
			meta = strndup(q, end);
			ok = meta && explicit_write_covers(fs, ctx, meta, q);
		}
		free(t);
		free(meta);
	}
	free(q);
	return ok;
}
