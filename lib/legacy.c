/* SPDX-License-Identifier: MIT */
/*
 * legacy.c - the legacy SandboxPolicy and the canonical PermissionProfile, both ways
 * (sbxrun-profile(5), OLDER SHAPES and CONVERSION TO LEGACY). Legacy to canonical is exact;
 * canonical to legacy is lossy and can fail.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

#define NO_LEGACY_MSG                                                                              \
	"permissions profile requests filesystem writes outside the workspace root, which is "     \
	"not supported until the runtime enforces FileSystemSandboxPolicy directly"

/* Does some entry of fs already name e's target, symbolically or by resolving to it? */
static int names_target(const struct sbx_fs *fs, const struct sbx_entry *e,
			const struct sbx_ctx *ctx, bool *found)
{
	char *t = sbx_special_resolve(e, ctx);

	*found = false;
	if (!t && errno == ENOMEM)
		return -ENOMEM;
	for (size_t i = 0; i < fs->n && !*found; i++) {
		char *o;

		if (sbx_entry_same_path(&fs->entries[i], e)) {
			*found = true;
			break;
		}
		if (!t || fs->entries[i].kind == SBX_GLOB)
			continue;
		o = sbx_special_resolve(&fs->entries[i], ctx);
		if (!o && errno == ENOMEM) {
			free(t);
			return -ENOMEM;
		}
		*found = o && strcmp(o, t) == 0;
		free(o);
	}
	free(t);
	return 0;
}

static int push_unless_named(struct sbx_fs *fs, const struct sbx_entry *e,
			     const struct sbx_ctx *ctx)
{
	bool found;
	int r = names_target(fs, e, ctx, &found);

	if (r || found)
		return r;
	return sbx_fs_push(fs, e);
}

/* A legacy writable root as an absolute path; relative roots are taken against the cwd. */
static int writable_root_path(const char *root, const struct sbx_ctx *ctx, char **out)
{
	*out = NULL;
	if (sbx_path_is_windows_abs(root)) {
		*out = strdup(root);
		return *out ? 0 : -ENOMEM;
	}
	if (sbx_path_is_posix_abs(root))
		return sbx_path_normalize(root, out);
	if (!ctx->cwd || !sbx_path_is_posix_abs(ctx->cwd))
		return -EINVAL;
	return sbx_path_join(ctx->cwd, root, out);
}

/* The existing protected subpaths of root (always .codex when forced), as read + skip. */
static int push_protected(struct sbx_fs *fs, const char *root, bool force_codex,
			  const struct sbx_ctx *ctx)
{
	char **v = NULL;
	size_t n = 0;
	int r = sbx_default_read_only_subpaths(root, force_codex, ctx, &v, &n, NULL);

	for (size_t i = 0; !r && i < n; i++) {
		struct sbx_entry e = {
			.kind = SBX_PATH, .path = v[i], .access = SBX_READ, .skip_missing = true};

		r = push_unless_named(fs, &e, ctx);
	}
	sbx_strv_free(v, n);
	return r;
}

/*
 * FileSystemSandboxPolicy::workspace_write plus the cwd's own protected subpaths
 * (from_legacy_sandbox_policy_for_cwd). Order: root read, project roots write, /tmp and
 * $TMPDIR write unless excluded, each writable root write, the symbolic protected names of
 * the project roots (read + skip) unless an entry already names them, the existing protected
 * subpaths of each writable root, then the cwd's (.codex always).
 */
static int workspace_write(const struct sbx_legacy *l, const struct sbx_ctx *ctx, struct sbx_fs *fs)
{
	int r;

	fs->kind = SBX_FS_RESTRICTED;
	if ((r = sbx_fs_push_special(fs, SBX_SP_ROOT, NULL, SBX_READ, false)) ||
	    (r = sbx_fs_push_special(fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false)))
		return r;
	if (!l->exclude_slash_tmp &&
	    (r = sbx_fs_push_special(fs, SBX_SP_SLASH_TMP, NULL, SBX_WRITE, false)))
		return r;
	if (!l->exclude_tmpdir_env_var &&
	    (r = sbx_fs_push_special(fs, SBX_SP_TMPDIR, NULL, SBX_WRITE, false)))
		return r;
	for (size_t i = 0; i < l->n_writable_roots; i++) {
		char *p = NULL;

		r = writable_root_path(l->writable_roots[i], ctx, &p);
		if (!r)
			r = sbx_fs_push_path(fs, p, SBX_WRITE, false);
		free(p);
		if (r)
			return r;
	}
	for (size_t k = 0; k < SBX_PROTECTED_NAMES_N; k++) {
		struct sbx_entry e = {.kind = SBX_SPECIAL,
				      .special = SBX_SP_PROJECT_ROOTS,
				      .subpath = (char *)sbx_protected_names[k],
				      .access = SBX_READ,
				      .skip_missing = true};

		if ((r = push_unless_named(fs, &e, ctx)))
			return r;
	}
	for (size_t i = 0; i < l->n_writable_roots; i++) {
		char *p = NULL;

		r = writable_root_path(l->writable_roots[i], ctx, &p);
		if (!r)
			r = push_protected(fs, p, false, ctx);
		free(p);
		if (r)
			return r;
	}
	if (ctx->cwd && (sbx_path_is_posix_abs(ctx->cwd) || sbx_path_is_windows_abs(ctx->cwd)))
		return push_protected(fs, ctx->cwd, true, ctx);
	return 0;
}

int sbx_legacy_to_profile(const struct sbx_legacy *l, const struct sbx_ctx *ctx,
			  struct sbx_profile *out)
{
	int r = 0;

	memset(out, 0, sizeof(*out));
	switch (l->type) {
	case SBX_LEGACY_DANGER_FULL_ACCESS:
		out->type = SBX_DISABLED;
		out->fs.kind = SBX_FS_UNRESTRICTED;
		out->network = true;
		return 0;
	case SBX_LEGACY_EXTERNAL_SANDBOX:
		out->type = SBX_EXTERNAL;
		out->fs.kind = SBX_FS_EXTERNAL;
		out->network = l->network_access;
		return 0;
	case SBX_LEGACY_READ_ONLY:
		out->type = SBX_MANAGED;
		out->fs.kind = SBX_FS_RESTRICTED;
		out->network = l->network_access;
		r = sbx_fs_push_special(&out->fs, SBX_SP_ROOT, NULL, SBX_READ, false);
		break;
	case SBX_LEGACY_WORKSPACE_WRITE:
		out->type = SBX_MANAGED;
		out->network = l->network_access;
		r = workspace_write(l, ctx, &out->fs);
		break;
	default:
		return -EINVAL;
	}
	if (r)
		sbx_profile_free(out);
	return r;
}

/* ---- canonical -> legacy ------------------------------------------------------------------- */

/* Everything that is not a restricted file system, and full-disk write. */
static bool project_unrestricted(const struct sbx_profile *p, const struct sbx_ctx *ctx,
				 struct sbx_legacy *out)
{
	if (p->type == SBX_DISABLED) {
		out->type = SBX_LEGACY_DANGER_FULL_ACCESS;
		out->network_access = true;
		return true;
	}
	if (p->type == SBX_EXTERNAL || p->fs.kind == SBX_FS_EXTERNAL) {
		out->type = SBX_LEGACY_EXTERNAL_SANDBOX;
		out->network_access = p->network;
		return true;
	}
	if (p->fs.kind == SBX_FS_UNRESTRICTED || sbx_fs_full_write(&p->fs, ctx)) {
		/* Full write with network is danger; without, only an outer sandbox says it. */
		out->type =
			p->network ? SBX_LEGACY_DANGER_FULL_ACCESS : SBX_LEGACY_EXTERNAL_SANDBOX;
		out->network_access = p->network;
		return true;
	}
	return false;
}

/*
 * to_legacy_sandbox_policy (sbxrun-profile(5), CONVERSION TO LEGACY): project roots (no subpath) writable, or a path entry
 * equal to the cwd writable, gives workspace-write with every other writable path (and
 * project_roots{subpath}) as writable roots; otherwise any write (root, a path, tmpdir,
 * /tmp) cannot be expressed; otherwise read-only. Reads, denies, globs, minimal and unknown
 * entries are dropped.
 */
int sbx_profile_to_legacy(const struct sbx_profile *p, const struct sbx_ctx *ctx,
			  struct sbx_legacy *out, struct sbx_diag *d)
{
	bool ws = false, root_w = false, tmp_w = false, slash_w = false;
	struct sbx_strv roots = {0};
	int r = 0;

	memset(out, 0, sizeof(*out));
	sbx_diag_clear(d);
	if (project_unrestricted(p, ctx, out))
		return 0;
	for (size_t i = 0; i < p->fs.n && !r; i++) {
		const struct sbx_entry *e = &p->fs.entries[i];
		char *t;

		if (e->access != SBX_WRITE || e->kind == SBX_GLOB)
			continue;
		if (e->kind == SBX_SPECIAL) {
			switch (e->special) {
			case SBX_SP_ROOT:
				root_w = true;
				continue;
			case SBX_SP_TMPDIR:
				tmp_w = true;
				continue;
			case SBX_SP_SLASH_TMP:
				if (ctx->platform != SBX_PLATFORM_WINDOWS)
					slash_w = true;
				continue;
			case SBX_SP_PROJECT_ROOTS:
				if (!e->subpath) {
					ws = true;
					continue;
				}
				break;
			case SBX_SP_MINIMAL:
			case SBX_SP_UNKNOWN:
				continue;
			}
		}
		if (e->kind == SBX_PATH) {
			t = strdup(e->path);
		} else {
			t = sbx_special_resolve(e, ctx);
			if (!t && errno != ENOMEM)
				continue;
		}
		if (!t) {
			r = -ENOMEM;
			break;
		}
		if (ctx->cwd && strcmp(t, ctx->cwd) == 0)
			ws = true;
		else
			r = sbx_strv_add_unique(&roots, t);
		free(t);
	}
	if (r) {
		sbx_strv_clear(&roots);
		return sbx_diag_set(d, r, "out of memory");
	}
	if (ws) {
		out->type = SBX_LEGACY_WORKSPACE_WRITE;
		out->network_access = p->network;
		out->writable_roots = roots.v;
		out->n_writable_roots = roots.n;
		out->exclude_tmpdir_env_var = !tmp_w;
		out->exclude_slash_tmp = !slash_w;
		return 0;
	}
	if (root_w || roots.n || tmp_w || slash_w) {
		sbx_strv_clear(&roots);
		return sbx_diag_set(d, SBX_E_NO_LEGACY, NO_LEGACY_MSG);
	}
	/* No root was kept: nothing to free. */
	out->type = SBX_LEGACY_READ_ONLY;
	out->network_access = p->network;
	return 0;
}

/*
 * compatibility_sandbox_policy_for_permission_profile: when the projection fails, a
 * workspace-write policy with every effective writable root except the cwd, and the /tmp and
 * $TMPDIR exclusions from whether those actually are writable. Only for display.
 */
int sbx_profile_compat_legacy(const struct sbx_profile *p, const struct sbx_ctx *ctx,
			      struct sbx_legacy *out)
{
	struct sbx_diag d;
	struct sbx_roots roots;
	struct sbx_strv kept = {0}; /* the writable roots but the cwd */
	struct sbx_entry tmpdir = {.kind = SBX_SPECIAL, .special = SBX_SP_TMPDIR};
	char *t;
	int r;

	sbx_diag_clear(&d);
	r = sbx_profile_to_legacy(p, ctx, out, &d);
	if (r != SBX_E_NO_LEGACY)
		return r;
	memset(out, 0, sizeof(*out));
	r = sbx_fs_roots(&p->fs, ctx, &roots, &d);
	if (r)
		return r;
	out->type = SBX_LEGACY_WORKSPACE_WRITE;
	out->network_access = p->network;
	for (size_t i = 0; i < roots.n_writable && !r; i++)
		if (!ctx->cwd || strcmp(roots.writable[i].root, ctx->cwd) != 0)
			r = sbx_strv_add_unique(&kept, roots.writable[i].root);
	sbx_roots_free(&roots);
	if (r) {
		sbx_strv_clear(&kept);
		sbx_legacy_free(out);
		return r;
	}
	out->writable_roots = kept.v;
	out->n_writable_roots = kept.n;
	t = sbx_special_resolve(&tmpdir, ctx);
	out->exclude_tmpdir_env_var =
		!(t && sbx_fs_resolve_access(&p->fs, ctx, t, NULL) == SBX_WRITE);
	free(t);
	out->exclude_slash_tmp = true;
	if (ctx->platform != SBX_PLATFORM_WINDOWS) {
		struct sbx_entry st = {.kind = SBX_SPECIAL, .special = SBX_SP_SLASH_TMP};

		t = sbx_special_resolve(&st, ctx);
		out->exclude_slash_tmp =
			!(t && sbx_fs_resolve_access(&p->fs, ctx, t, NULL) == SBX_WRITE);
		free(t);
	}
	return 0;
}
