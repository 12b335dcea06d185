/* SPDX-License-Identifier: MIT */
/*
 * resolve.c - where entries point, which entry decides a path, and the roots every platform
 * enforces from (spec 2.1-2.3, 2.6-2.7; PROFILE.md 2-4).
 *
 * Paths are compared component-wise and lexically. The only file system access here is what
 * the model itself asks for: "/tmp is a directory" (slash_tmp), "the path exists" (skip entries
 * and protected names) and the .git pointer file.
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

/* A .git pointer file is one line; anything longer is not a pointer file. */
#define GITDIR_FILE_MAX 4096

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

/* ---- path helpers that know both conventions ------------------------------------------------ */

static bool is_sep(char c)
{
	return c == '/' || c == '\\';
}

/* Length of the root prefix of a Windows absolute path: "C:\" = 3, "\\srv\share" = its length. */
static size_t win_root_len(const char *p)
{
	size_t i, seps = 0;

	if (p[0] && p[1] == ':')
		return 3;
	for (i = 0; p[i]; i++)
		if (is_sep(p[i]) && ++seps == 4)
			return i;
	return i;
}

/* "Native" absolute: what can resolve on the platform ctx describes. */
static bool native_abs(const char *p, const struct sbx_ctx *ctx)
{
	if (ctx->platform == SBX_PLATFORM_WINDOWS)
		return sbx_path_is_windows_abs(p);
	return sbx_path_is_posix_abs(p);
}

/*
 * Joins rel onto the Windows absolute path base, "." and ".." resolved lexically and never above
 * the root prefix. Separators become backslashes.
 */
static int win_join(const char *base, const char *rel, char **out)
{
	size_t lb = strlen(base), lr = rel ? strlen(rel) : 0, rl = win_root_len(base), o;
	char *buf = malloc(lb + lr + 3), *tmp;
	const char *s;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	tmp = malloc(lb + lr + 3);
	if (!tmp) {
		free(buf);
		return -ENOMEM;
	}
	snprintf(tmp, lb + lr + 3, "%s\\%s", base + rl, rel ? rel : "");
	memcpy(buf, base, rl);
	for (o = 0; o < rl; o++)
		if (buf[o] == '/')
			buf[o] = '\\';
	if (rl == 3)
		o = 3; /* "C:\" keeps its separator */
	for (s = tmp; *s;) {
		const char *c;
		size_t n;

		while (is_sep(*s))
			s++;
		if (!*s)
			break;
		for (c = s; *s && !is_sep(*s); s++)
			;
		n = (size_t)(s - c);
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (o > rl && buf[o - 1] != '\\')
				o--;
			if (o > rl && !(rl == 3 && o == 3))
				o--;
			if (o < rl)
				o = rl;
			continue;
		}
		if (o > 0 && buf[o - 1] != '\\')
			buf[o++] = '\\';
		memcpy(buf + o, c, n);
		o += n;
	}
	buf[o] = '\0';
	free(tmp);
	*out = buf;
	return 0;
}

/* Lexical join for either convention, decided by base. */
static int any_join(const char *base, const char *rel, char **out)
{
	if (sbx_path_is_windows_abs(base))
		return win_join(base, rel, out);
	return sbx_path_join(base, rel, out);
}

/* Component-wise prefix test in either convention. */
static bool covers(const char *prefix, const char *path)
{
	size_t n;

	if (sbx_path_is_posix_abs(prefix))
		return sbx_path_covers(prefix, path);
	n = strlen(prefix);
	if (strncmp(prefix, path, n) != 0)
		return false;
	return path[n] == '\0' || is_sep(path[n]) || (n > 0 && is_sep(prefix[n - 1]));
}

static size_t depth(const char *p)
{
	size_t d = 0;
	const char *s;

	if (sbx_path_is_posix_abs(p))
		return sbx_path_depth(p);
	for (s = p + win_root_len(p); *s; s++)
		if (!is_sep(*s) && (s == p || is_sep(s[-1])))
			d++;
	return d;
}

/* Length of the parent of p[0..len), or 0 when p is a root. */
static size_t parent_len(const char *p, size_t len)
{
	size_t i, rl;

	if (p[0] == '/') {
		if (len <= 1)
			return 0;
		for (i = len - 1; i > 0 && p[i] != '/'; i--)
			;
		return i == 0 ? 1 : i;
	}
	rl = win_root_len(p);
	if (len <= rl)
		return 0;
	for (i = len - 1; i > rl && !is_sep(p[i]); i--)
		;
	return i <= rl ? rl : i;
}

/* ---- resolution ---------------------------------------------------------------------------- */

static int resolve_entry_as_written(const struct sbx_entry *e, const struct sbx_ctx *ctx,
				    char **out)
{
	struct stat st;

	*out = NULL;
	if (e->kind == SBX_GLOB)
		return 0;
	if (e->kind == SBX_PATH) {
		if (!e->path || !native_abs(e->path, ctx))
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
		if (!ctx->cwd || !native_abs(ctx->cwd, ctx))
			return 0;
		return any_join(ctx->cwd, e->subpath, out);
	case SBX_SP_TMPDIR:
		/*
		 * Deliberately stricter than Codex, which resolves a relative TMPDIR against the
		 * process cwd: a relative TMPDIR is dropped (PROFILE.md 2).
		 */
		if (!ctx->tmpdir || !ctx->tmpdir[0] || !native_abs(ctx->tmpdir, ctx))
			return 0;
		return any_join(ctx->tmpdir, NULL, out);
	case SBX_SP_SLASH_TMP:
		if (ctx->platform == SBX_PLATFORM_WINDOWS)
			return 0;
		if (stat("/tmp", &st) != 0 || !S_ISDIR(st.st_mode))
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
static int resolve_entry(const struct sbx_entry *e, const struct sbx_ctx *ctx, char **out)
{
	char *raw = NULL;
	int r = resolve_entry_as_written(e, ctx, &raw);

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
	int r = resolve_entry(e, ctx, &p);

	errno = r ? -r : 0;
	return p;
}

/* ---- deduplication ------------------------------------------------------------------------- */

static uint64_t hash_str(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

static uint64_t hash_entry(const struct sbx_entry *e)
{
	uint64_t h = 0xcbf29ce484222325ull;
	char k[4] = {(char)e->kind, (char)(e->kind == SBX_SPECIAL ? e->special : 0),
		     (char)e->access, (char)e->skip_missing};

	h = hash_str(h, k, sizeof(k));
	if (e->path)
		h = hash_str(h, e->path, strlen(e->path) + 1);
	if (e->subpath)
		h = hash_str(h, e->subpath, strlen(e->subpath) + 1);
	return h;
}

/* Removes exact duplicates, keeping the first of each; linear expected time. */
int sbx_fs_dedup(struct sbx_fs *fs)
{
	size_t cap = 16, o = 0;
	size_t *slots;

	if (fs->n < 2)
		return 0;
	while (cap < fs->n * 2)
		cap *= 2;
	slots = calloc(cap, sizeof(*slots)); /* entry index + 1; 0 = empty */
	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; i < fs->n; i++) {
		struct sbx_entry *e = &fs->entries[i];
		size_t s = (size_t)hash_entry(e) & (cap - 1);
		bool dup = false;

		for (; slots[s]; s = (s + 1) & (cap - 1)) {
			if (sbx_entry_equal(&fs->entries[slots[s] - 1], e)) {
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
		slots[s] = o + 1;
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
	snprintf(*out, n, "%s%s%s", root, is_sep(root[strlen(root) - 1]) ? "" : "\\", sub);
	return 0;
}

/*
 * project_roots{sub} becomes one path entry per workspace root, "codex-project-roots://sub"
 * globs one absolute glob per root, relative globs one absolute glob against the cwd. Order is
 * entry by entry (gl-01), then exact duplicates are dropped.
 */
int sbx_fs_materialize(const struct sbx_fs *in, const struct sbx_ctx *ctx, struct sbx_fs *out)
{
	const char *const *roots = ctx->workspace_roots;
	size_t n_roots = ctx->n_workspace_roots;
	const char *cwd_only[1] = {ctx->cwd};
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->kind = in->kind;
	out->glob_depth = in->glob_depth;
	if (!roots || !n_roots) {
		roots = cwd_only;
		n_roots = ctx->cwd ? 1 : 0;
	}
	for (size_t i = 0; i < in->n && !r; i++) {
		const struct sbx_entry *e = &in->entries[i];
		bool pr_glob =
			e->kind == SBX_GLOB && e->path &&
			strncmp(e->path, PROJECT_ROOTS_GLOB, strlen(PROJECT_ROOTS_GLOB)) == 0;

		if ((e->kind == SBX_SPECIAL && e->special == SBX_SP_PROJECT_ROOTS && n_roots) ||
		    (pr_glob && n_roots)) {
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
					r = any_join(roots[j], e->subpath, &m.path);
				}
				if (!r)
					r = push_owned(out, &m);
			}
		} else if (e->kind == SBX_GLOB && e->path && !pr_glob &&
			   !sbx_path_is_posix_abs(e->path) && !sbx_path_is_windows_abs(e->path) &&
			   ctx->cwd) {
			struct sbx_entry m = {.kind = SBX_GLOB,
					      .access = e->access,
					      .skip_missing = e->skip_missing};

			r = glob_under(ctx->cwd, e->path, &m.path);
			if (!r)
				r = push_owned(out, &m);
		} else {
			r = sbx_fs_push(out, e);
		}
	}
	if (!r)
		r = sbx_fs_dedup(out);
	if (r)
		sbx_fs_clear(out);
	return r;
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

/* ---- predicates (spec 2.1) ----------------------------------------------------------------- */

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
	resolve_entry(e, ctx, &target);
	for (size_t i = 0; i < fs->n && !found; i++) {
		const struct sbx_entry *c = &fs->entries[i];
		char *ct = NULL;

		if (c->access != SBX_WRITE)
			continue;
		if (sbx_entry_same_path(c, e)) {
			found = true;
			break;
		}
		if (target && c->kind != SBX_GLOB && resolve_entry(c, ctx, &ct) == 0 && ct) {
			found = strcmp(ct, target) == 0;
			free(ct);
		}
	}
	free(target);
	return found;
}

/* has_write_narrowing_entries, by the table of spec 2.1. */
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

/* ---- precedence (spec 2.2) ----------------------------------------------------------------- */

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
	any_join(ctx->cwd, path, &out);
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

		if (resolve_entry(&fs->entries[i], ctx, &t) || !t)
			continue;
		if (covers(t, q)) {
			dd = depth(t);
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

	if (!covers(prefix, path) || strlen(path) <= n)
		return false;
	s = path + n;
	while (is_sep(*s))
		s++;
	if (!*s)
		return false;
	*name = s;
	for (*len = 0; s[*len] && !is_sep(s[*len]); (*len)++)
		;
	return true;
}

static bool is_protected_name(const char *name, size_t len)
{
	for (size_t i = 0; i < SBX_PROTECTED_NAMES_N; i++)
		if (strlen(sbx_protected_names[i]) == len &&
		    memcmp(sbx_protected_names[i], name, len) == 0)
			return true;
	return false;
}

/* An explicit write entry at or inside meta that covers q. */
static bool explicit_write_covers(const struct sbx_fs *fs, const struct sbx_ctx *ctx,
				  const char *meta, const char *q)
{
	bool found = false;

	for (size_t i = 0; i < fs->n && !found; i++) {
		char *t = NULL;

		if (fs->entries[i].access != SBX_WRITE || resolve_entry(&fs->entries[i], ctx, &t) ||
		    !t)
			continue;
		found = covers(meta, t) && covers(t, q);
		free(t);
	}
	return found;
}

/*
 * resolve_access == write, and, unless the policy is full-disk-write, no writable entry above
 * the path has a protected metadata name as the path's first component below it, except where
 * an explicit write entry at or inside <entry>/<name> covers the path (spec 2.2, 2.7).
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
		const char *name;
		size_t len;
		char *t = NULL, *meta = NULL;

		if (fs->entries[i].access != SBX_WRITE || resolve_entry(&fs->entries[i], ctx, &t) ||
		    !t)
			continue;
		if (first_component_below(t, q, &name, &len) && is_protected_name(name, len)) {
			meta = strndup(q, (size_t)(name - q) + len);
			ok = meta && explicit_write_covers(fs, ctx, meta, q);
		}
		free(t);
		free(meta);
	}
	free(q);
	return ok;
}

/* ---- protected metadata (spec 2.6) --------------------------------------------------------- */

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * The directory a ".git" file points to with "gitdir: <path>", resolved against the file's
 * directory and trimmed; NULL when the file is not such a pointer or the target is not a
 * directory. A malformed pointer is ignored (it protects nothing, and .git itself still is).
 */
static char *gitdir_target(const char *root, const char *dotgit)
{
	char buf[GITDIR_FILE_MAX + 1], *s, *e, *out = NULL;
	ssize_t n;
	size_t got = 0;
	int fd = open(dotgit, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	while (got < sizeof(buf) - 1) {
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (got >= sizeof(buf) - 1)
		return NULL;
	buf[got] = '\0';
	for (s = buf; *s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'; s++)
		;
	if (strncmp(s, "gitdir:", 7) != 0)
		return NULL;
	s += 7;
	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		e--;
	*e = '\0';
	if (!*s || memchr(s, '\n', (size_t)(e - s)))
		return NULL;
	if (sbx_path_is_windows_abs(root)) {
		/* One canonical Windows path, the pointer absolute or relative to the root. */
		char *joined = NULL;

		if (!sbx_path_is_windows_abs(s) && any_join(root, s, &joined))
			return NULL;
		if (sbx_win_path_normalize(joined ? joined : s, &out, NULL)) {
			free(joined);
			return NULL;
		}
		free(joined);
	} else if (any_join(root, s, &out)) {
		return NULL;
	}
	if (!is_dir(out)) {
		free(out);
		return NULL;
	}
	return out;
}

int sbx_default_read_only_subpaths(const char *root, bool protect_missing_dot_codex, char ***out,
				   size_t *n)
{
	struct sbx_strv v = {0};
	char *git = NULL, *agents = NULL, *codex = NULL, *target;
	struct stat st;
	int r;

	*out = NULL;
	*n = 0;
	if ((r = any_join(root, ".git", &git)) || (r = any_join(root, ".agents", &agents)) ||
	    (r = any_join(root, ".codex", &codex)))
		goto out;
	if (stat(git, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
		if (S_ISREG(st.st_mode) && (target = gitdir_target(root, git))) {
			r = sbx_strv_push_owned(&v, target);
			if (r)
				goto out;
		}
		if ((r = sbx_strv_add_unique(&v, git)))
			goto out;
	}
	if (is_dir(agents) && (r = sbx_strv_add_unique(&v, agents)))
		goto out;
	if ((protect_missing_dot_codex || is_dir(codex)) && (r = sbx_strv_add_unique(&v, codex)))
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
	return r;
}

/* ---- roots --------------------------------------------------------------------------------- */

/* Distinct resolved paths of a profile, each with the strongest access of the entries there. */
struct pmap {
	struct pslot {
		const char *p; /* borrowed from paths.v */
		size_t len;
		int access; /* max over the entries at exactly this path */
		long wr;    /* index into the writable roots, or -1 */
	} * slots;
	size_t cap;
	struct sbx_strv paths; /* distinct paths in first-seen order (owned) */
};

static uint64_t hash_path(const char *p, size_t len)
{
	return hash_str(0xcbf29ce484222325ull, p, len);
}

static struct pslot *pmap_find(const struct pmap *m, const char *p, size_t len)
{
	size_t s;

	if (!m->cap)
		return NULL;
	for (s = (size_t)hash_path(p, len) & (m->cap - 1); m->slots[s].p;
	     s = (s + 1) & (m->cap - 1))
		if (m->slots[s].len == len && memcmp(m->slots[s].p, p, len) == 0)
			return &m->slots[s];
	return NULL;
}

static int pmap_build(struct pmap *m, char **resolved, const struct sbx_fs *fs)
{
	size_t cap = 16;

	memset(m, 0, sizeof(*m));
	while (cap < fs->n * 2 + 2)
		cap *= 2;
	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots)
		return -ENOMEM;
	m->cap = cap;
	for (size_t i = 0; i < fs->n; i++) {
		const char *p = resolved[i];
		size_t len, s;
		int r;

		if (!p)
			continue;
		len = strlen(p);
		for (s = (size_t)hash_path(p, len) & (cap - 1); m->slots[s].p;
		     s = (s + 1) & (cap - 1))
			if (m->slots[s].len == len && memcmp(m->slots[s].p, p, len) == 0)
				break;
		if (m->slots[s].p) {
			if ((int)fs->entries[i].access > m->slots[s].access)
				m->slots[s].access = (int)fs->entries[i].access;
			continue;
		}
		r = sbx_strv_push_owned(&m->paths, strdup(p));
		if (r)
			return r;
		m->slots[s] = (struct pslot){m->paths.v[m->paths.n - 1], len,
					     (int)fs->entries[i].access, -1};
	}
	return 0;
}

static void pmap_free(struct pmap *m)
{
	free(m->slots);
	sbx_strv_clear(&m->paths);
}

/*
 * The nearest strict ancestor of p that is in the map with an access other than read (a
 * writable root or a deny), or NULL. Read entries in between do not stop the walk.
 */
static struct pslot *nearest_decider(const struct pmap *m, const char *p)
{
	size_t len = strlen(p);

	while ((len = parent_len(p, len)) > 0) {
		struct pslot *s = pmap_find(m, p, len);

		if (s && (s->access == SBX_DENY || s->wr >= 0))
			return s;
	}
	return NULL;
}

/* The nearest ancestor of p that an entry names, whatever its access. */
static struct pslot *nearest_entry(const struct pmap *m, const char *p)
{
	size_t len = strlen(p);

	while ((len = parent_len(p, len)) > 0) {
		struct pslot *s = pmap_find(m, p, len);

		if (s)
			return s;
	}
	return NULL;
}

static bool is_fs_root(const char *p)
{
	return strcmp(p, "/") == 0 || (sbx_path_is_windows_abs(p) && !p[win_root_len(p)]);
}

static bool path_exists(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0;
}

static int cmp_writable(const void *a, const void *b)
{
	const struct sbx_writable_root *x = a, *y = b;
	size_t dx = depth(x->root), dy = depth(y->root);

	if (dx != dy)
		return dx < dy ? -1 : 1;
	return strcmp(x->root, y->root);
}

static int add_read_only(struct sbx_writable_root *w, const char *p)
{
	char **v;

	for (size_t i = 0; i < w->n_read_only; i++)
		if (strcmp(w->read_only[i], p) == 0)
			return 0;
	v = realloc(w->read_only, (w->n_read_only + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	w->read_only = v;
	v[w->n_read_only] = strdup(p);
	if (!v[w->n_read_only])
		return -ENOMEM;
	w->n_read_only++;
	return 0;
}

/*
 * Protected metadata under the writable root w (unless the file system is full-disk-write):
 *  - for each name N, the path w/N is decided by an explicit entry when one resolves exactly
 *    there (write: N is writable; read: a carve-out; deny: unreadable); otherwise, when w/N
 *    exists (as anything), it is a read-only carve-out of w;
 *  - N is "protected missing" when w/N does not exist and is not explicitly writable: the
 *    sandbox must keep it from being created;
 *  - the directory a .git pointer file names (spec 2.6) becomes a carve-out of the deepest
 *    writable root that holds it, unless a deny lies in between or an entry names it.
 */
static int protect_root(struct sbx_roots *out, const struct pmap *m, size_t wi)
{
	struct sbx_writable_root *w = &out->writable[wi];
	char **defaults = NULL;
	size_t n_defaults = 0;
	int r;

	for (size_t k = 0; k < SBX_PROTECTED_NAMES_N; k++) {
		char *p = NULL;
		struct pslot *s;

		r = any_join(w->root, sbx_protected_names[k], &p);
		if (r)
			return r;
		s = pmap_find(m, p, strlen(p));
		if (!path_exists(p)) {
			if (!s || s->access != SBX_WRITE)
				w->protected_missing[w->n_protected_missing++] =
					sbx_protected_names[k];
		} else if (!s) {
			r = add_read_only(w, p);
		}
		free(p);
		if (r)
			return r;
	}
	r = sbx_default_read_only_subpaths(w->root, false, &defaults, &n_defaults);
	for (size_t k = 0; !r && k < n_defaults; k++) {
		const char *p = defaults[k];
		struct pslot *s;

		if (pmap_find(m, p, strlen(p)))
			continue;
		s = nearest_decider(m, p);
		if (s && s->access != SBX_DENY && s->wr >= 0)
			r = add_read_only(&out->writable[s->wr], p);
	}
	sbx_strv_free(defaults, n_defaults);
	return r;
}

/* Why resolve_entry() refused e on Windows. */
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
 *  - Flags: full_read, full_write and platform_defaults are the spec 2.1 predicates. For the
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
 *    removes the baseline; it is not a mask, fda-04).
 *  - deny_globs: deny glob patterns, absolute after materialization. Non-deny globs grant
 *    nothing (the loader refuses them) and are ignored.
 *  - Protected metadata under each writable root: see protect_root().
 */
int sbx_fs_roots(const struct sbx_fs *fs, const struct sbx_ctx *ctx, struct sbx_roots *out,
		 struct sbx_diag *d)
{
	struct sbx_fs m = {0};
	char **resolved = NULL;
	struct pmap map = {0};
	struct sbx_strv readable = {0}, unreadable = {0}, globs = {0};
	size_t n_wr = 0;
	int r;

	memset(out, 0, sizeof(*out));
	out->full_read = sbx_fs_full_read(fs, ctx);
	out->full_write = sbx_fs_full_write(fs, ctx);
	out->platform_defaults = sbx_fs_include_platform_defaults(fs, ctx);
	if (fs->kind != SBX_FS_RESTRICTED)
		return 0;

	r = sbx_fs_materialize(fs, ctx, &m);
	if (r)
		goto fail;
	resolved = calloc(m.n ? m.n : 1, sizeof(*resolved));
	if (!resolved) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < m.n; i++) {
		const struct sbx_entry *e = &m.entries[i];

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
			if (native_abs(e->path, ctx) && !sbx_strv_has(&globs, e->path) &&
			    (r = sbx_strv_push_owned(&globs, strdup(e->path))))
				goto fail;
			continue;
		}
		r = resolve_entry(e, ctx, &resolved[i]);
		if (r == -EINVAL) {
			r = windows_path_error(e, d);
			goto fail;
		}
		if (r)
			goto fail;
		if (resolved[i] && e->skip_missing && !path_exists(resolved[i])) {
			free(resolved[i]);
			resolved[i] = NULL;
		}
	}
	r = pmap_build(&map, resolved, &m);
	if (r)
		goto fail;

	for (size_t i = 0; i < map.paths.n; i++) {
		const char *p = map.paths.v[i];

		if (pmap_find(&map, p, strlen(p))->access == SBX_WRITE)
			n_wr++;
	}
	out->writable = calloc(n_wr ? n_wr : 1, sizeof(*out->writable));
	if (!out->writable) {
		r = -ENOMEM;
		goto fail;
	}
	for (size_t i = 0; i < map.paths.n; i++) {
		const char *p = map.paths.v[i];

		if (pmap_find(&map, p, strlen(p))->access != SBX_WRITE)
			continue;
		out->writable[out->n_writable].root = strdup(p);
		if (!out->writable[out->n_writable++].root) {
			r = -ENOMEM;
			goto fail;
		}
	}
	qsort(out->writable, out->n_writable, sizeof(*out->writable), cmp_writable);
	for (size_t i = 0; i < out->n_writable; i++)
		pmap_find(&map, out->writable[i].root, strlen(out->writable[i].root))->wr = (long)i;

	for (size_t i = 0; i < map.paths.n; i++) {
		const char *p = map.paths.v[i];
		struct pslot *s = pmap_find(&map, p, strlen(p)), *up;

		if (s->access == SBX_DENY) {
			if (!is_fs_root(p) && (r = sbx_strv_push_owned(&unreadable, strdup(p))))
				goto fail;
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
		up = nearest_entry(&map, p);
		if (up && up->access == SBX_READ)
			continue;
		up = nearest_decider(&map, p);
		if (up && up->access != SBX_DENY)
			r = add_read_only(&out->writable[up->wr], p);
		else
			r = sbx_strv_push_owned(&readable, strdup(p));
		if (r)
			goto fail;
	}
	for (size_t i = 0; !out->full_write && i < out->n_writable; i++)
		if ((r = protect_root(out, &map, i)))
			goto fail;

	out->readable = readable.v;
	out->n_readable = readable.n;
	out->unreadable = unreadable.v;
	out->n_unreadable = unreadable.n;
	out->deny_globs = globs.v;
	out->n_deny_globs = globs.n;
	readable = unreadable = globs = (struct sbx_strv){0};
fail:
	if (resolved)
		sbx_strv_free(resolved, m.n);
	pmap_free(&map);
	sbx_fs_clear(&m);
	sbx_strv_clear(&readable);
	sbx_strv_clear(&unreadable);
	sbx_strv_clear(&globs);
	if (r) {
		if (r == -ENOMEM && d && !d->msg[0])
			sbx_diag_set(d, r, "out of memory while resolving the profile");
		sbx_roots_free(out);
	}
	return r;
}

void sbx_roots_free(struct sbx_roots *r)
{
	if (!r)
		return;
	sbx_strv_free(r->readable, r->n_readable);
	for (size_t i = 0; i < r->n_writable; i++) {
		free(r->writable[i].root);
		sbx_strv_free(r->writable[i].read_only, r->writable[i].n_read_only);
	}
	free(r->writable);
	sbx_strv_free(r->unreadable, r->n_unreadable);
	sbx_strv_free(r->deny_globs, r->n_deny_globs);
	memset(r, 0, sizeof(*r));
}
