/* SPDX-License-Identifier: MIT */
/*
 * addition.c - additional permissions on top of a profile as sbxrun applies them (--add-permissions
 * and the quick grants): Codex's effective profile, except that a deny is never dropped.
 *
 * Codex's effective_permission_profile leaves an unrestricted or external file system as it is,
 * so a deny entry added to one disappears, and the command would run less confined than the
 * command line says. Here the deny is kept or the run refused (sbxrun-profile(5), ADDITIONAL
 * PERMISSIONS):
 *  - a managed profile with an unrestricted file system becomes a restricted one that writes
 *    everywhere but the denied paths: root write, then the denies, then the additions' write
 *    entries and the read entries inside a denied path (which re-open part of it); a read entry
 *    elsewhere would narrow a write the base gives, and is left out as it adds nothing;
 *  - a disabled profile asks for no sandbox, and an external one is confined outside sbxrun:
 *    neither can take a deny, which is an error.
 * Without a deny, or on a restricted file system, the result is sbx_profile_effective()'s.
 */
#include <errno.h>
#include <string.h>

#include "sbx.h"

static bool has_deny(const struct sbx_additional *a)
{
	for (size_t i = 0; a->has_fs && i < a->fs.n; i++)
		if (a->fs.entries[i].access == SBX_DENY)
			return true;
	return false;
}

/* Is a read entry inside a path the addition denies (so that it re-opens part of it)? */
static bool inside_deny(const struct sbx_additional *a, const struct sbx_entry *e)
{
	if (e->kind != SBX_PATH || !e->path)
		return false;
	for (size_t i = 0; i < a->fs.n; i++) {
		const struct sbx_entry *d = &a->fs.entries[i];

		if (d->access != SBX_DENY || !d->path)
			continue;
		if (d->kind == SBX_PATH && sbx_path_covers(d->path, e->path))
			return true;
		if (d->kind == SBX_GLOB && sbx_glob_match(d->path, e->path))
			return true;
	}
	return false;
}

/* An unrestricted file system narrowed by the addition's denies (see above). */
static int narrow_unrestricted(const struct sbx_additional *a, struct sbx_fs *fs)
{
	int r;

	sbx_fs_clear(fs);
	fs->kind = SBX_FS_RESTRICTED;
	r = sbx_fs_push_special(fs, SBX_SP_ROOT, NULL, SBX_WRITE, false);
	for (size_t i = 0; !r && i < a->fs.n; i++)
		if (a->fs.entries[i].access == SBX_DENY)
			r = sbx_fs_push(fs, &a->fs.entries[i]);
	for (size_t i = 0; !r && i < a->fs.n; i++) {
		const struct sbx_entry *e = &a->fs.entries[i];

		if (e->access == SBX_WRITE || (e->access == SBX_READ && inside_deny(a, e)))
			r = sbx_fs_push(fs, e);
	}
	if (!r)
		r = sbx_fs_dedup(fs);
	fs->glob_depth = a->fs.glob_depth;
	return r;
}

int sbx_profile_add(const struct sbx_profile *base, const struct sbx_additional *extra,
		    struct sbx_profile *out, struct sbx_diag *d)
{
	int r;

	memset(out, 0, sizeof(*out));
	if (extra && has_deny(extra) && base->type != SBX_MANAGED) {
		sbx_diag_set(
			d, SBX_E_INVALID, "a deny entry cannot narrow a profile of type %s: %s",
			sbx_profile_type_name(base->type),
			base->type == SBX_DISABLED ? "it asks for no sandbox at all"
						   : "its file system is confined outside sbxrun");
		return sbx_diag_hint(
			d, SBX_E_INVALID,
			"start from a managed profile, such as "
			"{\"type\":\"managed\",\"file_system\":{\"type\":\"unrestricted\"},"
			"\"network\":\"enabled\"}");
	}
	r = sbx_profile_effective(base, extra, out);
	if (!r && extra && has_deny(extra) && base->fs.kind == SBX_FS_UNRESTRICTED)
		r = narrow_unrestricted(extra, &out->fs);
	if (r) {
		sbx_profile_free(out);
		return sbx_diag_set(d, r, "cannot add permissions: %s", sbx_strerror(r));
	}
	return 0;
}
