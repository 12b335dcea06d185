/* SPDX-License-Identifier: MIT */
/*
 * grants.c - the quick grants: --read, --write and --deny PATH and --network become one
 * additional-permission profile, merged on top of the profile after every --add-permissions
 * file, by the same algebra (sbx_profile_add: a deny is never dropped).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static const char *grant_opt(enum sbx_access a)
{
	return a == SBX_READ ? "--read" : a == SBX_WRITE ? "--write" : "--deny";
}

/*
 * The absolute, lexically normalized path a grant names: "~" and "~/x" from $HOME (as a shell
 * would have expanded them, which it does not after "--read="), anything relative from the cwd.
 * Symbolic links are kept, as for --add-permissions: the planner decides what they lead to.
 */
int grant_path(const char *arg, enum sbx_access a, const char *cwd, char **out)
{
	bool windows = sbx_path_is_windows_abs(cwd);
	const char *base = cwd, *rel = arg;
	int r;

	*out = NULL;
	if (arg[0] == '~') {
		const char *home = env_get("HOME");

		if (arg[1] && arg[1] != '/')
			return refuse("%s '%s': only ~ and ~/ are expanded", grant_opt(a), arg);
		if (!home ||
		    !(windows ? sbx_path_is_windows_abs(home) : sbx_path_is_posix_abs(home)))
			return refuse("%s '%s': cannot expand ~: HOME is not an absolute path",
				      grant_opt(a), arg);
		base = home;
		rel = arg[1] ? arg + 2 : ".";
	}
	if (windows) {
		/* Windows paths are put in their one form by the planner (lib/winpath.c). */
		if (sbx_path_is_windows_abs(rel) && base == cwd)
			*out = strdup(rel);
		else if (asprintf(out, "%s\\%s", base, rel) < 0)
			*out = NULL;
		return *out ? 0 : refuse("out of memory");
	}
	r = sbx_path_is_posix_abs(rel) && base == cwd ? sbx_path_normalize(rel, out)
						      : sbx_path_join(base, rel, out);
	if (r)
		return refuse("%s '%s': cannot be made an absolute path: %s", grant_opt(a), arg,
			      sbx_strerror(r));
	return 0;
}

int grants_apply(struct invocation *inv, const struct opts *o)
{
	struct sbx_additional a = {.network = o->network ? 1 : -1}, m = {.network = -1};
	struct sbx_profile eff = {0};
	struct sbx_diag d;
	int r = 0;

	if (!o->n_grants && !o->network)
		return 0;
	sbx_diag_clear(&d);
	a.fs.kind = SBX_FS_RESTRICTED;
	a.has_fs = o->n_grants > 0;
	for (size_t i = 0; !r && i < o->n_grants; i++) {
		char *path = NULL;

		if (grant_path(o->grants[i].path, o->grants[i].access, inv->cwd, &path)) {
			sbx_additional_free(&a);
			return EXIT_REFUSED;
		}
		r = sbx_fs_push_path(&a.fs, path, o->grants[i].access, false);
		free(path);
	}
	/* Pushing and materializing fail only for want of memory or over a limit: worded here. */
	if (r)
		sbx_diag_set(&d, r, "the quick grants: %s", sbx_strerror(r));
	if (!r)
		r = sbx_additional_normalize(&a, &d);
	if (!r && (r = sbx_additional_materialize(&a, &inv->ctx, &m)))
		sbx_diag_set(&d, r, "the quick grants: %s", sbx_strerror(r));
	if (!r)
		r = sbx_profile_add(&inv->profile, &m, &eff, &d);
	sbx_additional_free(&a);
	sbx_additional_free(&m);
	if (r)
		return refuse_diag(&d);
	sbx_profile_free(&inv->profile);
	inv->profile = eff;
	return 0;
}
