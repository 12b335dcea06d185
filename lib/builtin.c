/* SPDX-License-Identifier: MIT */
/*
 * builtin.c - the built-in profiles (sbxrun-profile(5), BUILT-IN PROFILES). They are symbolic: project_roots, tmpdir and
 * slash_tmp are resolved later, for the cwd and environment of the run.
 */
#include <string.h>

#include "sbx.h"

static int read_only(struct sbx_profile *p)
{
	p->type = SBX_MANAGED;
	p->fs.kind = SBX_FS_RESTRICTED;
	p->network = false;
	return sbx_fs_push_special(&p->fs, SBX_SP_ROOT, NULL, SBX_READ, false);
}

/*
 * Root readable, the project roots and both temporary directories writable, and the protected
 * metadata directories kept read-only (they hold hooks and config that run outside any sandbox).
 */
static int workspace(struct sbx_profile *p)
{
	static const char *const carveouts[] = {".git", ".agents", ".codex"};
	int r = read_only(p);

	if (!r)
		r = sbx_fs_push_special(&p->fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false);
	if (!r)
		r = sbx_fs_push_special(&p->fs, SBX_SP_SLASH_TMP, NULL, SBX_WRITE, false);
	if (!r)
		r = sbx_fs_push_special(&p->fs, SBX_SP_TMPDIR, NULL, SBX_WRITE, false);
	for (size_t i = 0; !r && i < sizeof(carveouts) / sizeof(carveouts[0]); i++)
		r = sbx_fs_push_special(&p->fs, SBX_SP_PROJECT_ROOTS, carveouts[i], SBX_READ, true);
	return r;
}

static int danger_full_access(struct sbx_profile *p)
{
	p->type = SBX_DISABLED;
	p->fs.kind = SBX_FS_UNRESTRICTED;
	p->network = true;
	return 0;
}

static const struct {
	const char *name;
	int (*build)(struct sbx_profile *p);
} builtins[] = {
	{":read-only", read_only},
	{":workspace", workspace},
	{":danger-full-access", danger_full_access},
};

int sbx_profile_builtin(const char *name, struct sbx_profile *out, struct sbx_diag *d)
{
	int r;

	memset(out, 0, sizeof(*out));
	sbx_diag_clear(d);
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++) {
		if (strcmp(name, builtins[i].name) != 0)
			continue;
		r = builtins[i].build(out);
		if (r) {
			sbx_profile_free(out);
			sbx_diag_set(d, r, "%s: %s", name, sbx_strerror(r));
		}
		return r;
	}
	r = sbx_diag_set(d, SBX_E_USAGE, "unknown built-in profile `%s`", name);
	return sbx_diag_hint(d, r,
			     "the built-in profiles are :read-only, :workspace, :workspace-git and "
			     ":danger-full-access");
}
