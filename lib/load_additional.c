/* SPDX-License-Identifier: MIT */
/*
 * load_additional.c - the untagged shape {"network":{"enabled":...},"file_system":{...}}: an
 * AdditionalPermissionProfile, and the older rollout PermissionProfile, which has the same shape
 * and becomes a managed restricted profile. See sbxrun-profile(5), ADDITIONAL PERMISSIONS and
 * OLDER SHAPES.
 */
#include <string.h>

#include "load.h"

/* {"enabled":bool|null}|null as in the rollout shape and AdditionalPermissionProfile. */
static int load_network_flag(const struct sbx_at *a, json_t *obj, int *out)
{
	static const char *const keys[] = {"enabled", NULL};
	json_t *v = sbx_get_optional(obj, "network");
	json_t *en;
	bool b = false;
	struct sbx_at c, ce;
	int r;

	*out = -1;
	if (!v)
		return 0;
	sbx_at_key(&c, a, "network");
	r = sbx_want_type(&c, v, JSON_OBJECT, "a network object {\"enabled\":true|false}");
	if (!r)
		r = sbx_check_keys(&c, v, keys, "network", "only \"enabled\"");
	en = r ? NULL : sbx_get_optional(v, "enabled");
	if (r || !en)
		return r;
	sbx_at_key(&ce, &c, "enabled");
	r = sbx_get_bool(&ce, en, &b);
	if (!r)
		*out = b;
	return r;
}

int sbx_walk_untagged(const struct sbx_at *a, json_t *root, const char *what,
		      const char *const *near, int *network, bool *has_fs, struct sbx_fs *fs)
{
	static const char *const keys[] = {"network", "file_system", NULL};
	json_t *v;
	struct sbx_at c;
	int r;

	r = sbx_check_keys_near(a, root, keys, near ? near : keys, what,
				"\"network\" and \"file_system\"");
	if (!r)
		r = load_network_flag(a, root, network);
	if (r)
		return r;
	fs->kind = SBX_FS_RESTRICTED;
	v = sbx_get_optional(root, "file_system");
	*has_fs = v != NULL;
	if (!v)
		return 0;
	sbx_at_key(&c, a, "file_system");
	return sbx_walk_fs_permissions(&c, v, fs);
}

/*
 * Does a root object without "type" look like a tagged profile that lost it rather than the
 * rollout shape: a file_system with a "type", a network mode string without a rollout
 * file_system beside it, or a legacy policy's keys?
 */
static bool lost_its_type(json_t *root)
{
	static const char *const legacy_keys[] = {"writable_roots", "network_access",
						  "exclude_tmpdir_env_var", "exclude_slash_tmp"};
	json_t *fs = json_object_get(root, "file_system");

	if (json_is_object(fs) ? json_object_get(fs, "type") != NULL
			       : json_is_string(json_object_get(root, "network")))
		return true;
	for (size_t i = 0; i < sizeof(legacy_keys) / sizeof(legacy_keys[0]); i++)
		if (json_object_get(root, legacy_keys[i]))
			return true;
	return false;
}

int sbx_walk_rollout(const struct sbx_at *a, json_t *root, struct sbx_profile *out)
{
	static const char *const near[] = {"network", "file_system", "type", NULL};
	static const char *const type[] = {"type", NULL};
	const char *what = "a profile of the older rollout shape (no \"type\")";
	int network = -1, r;
	bool has_fs;

	out->type = SBX_MANAGED;
	if (lost_its_type(root)) {
		/* A misspelt "type" is named as such; a missing one is said to be missing. */
		for (void *it = json_object_iter(root); it; it = json_object_iter_next(root, it))
			if (sbx_suggest(json_object_iter_key(it), type))
				return sbx_check_keys_near(a, root, near, near, "a profile",
							   "\"type\", \"file_system\" and "
							   "\"network\"");
		r = sbx_at_fail(a, SBX_E_PARSE,
				"missing required key \"type\" in a profile "
				"(expected " SBX_PROFILE_TYPES_EXPECTED ")");
		return sbx_diag_hint(a->d, r,
				     "without \"type\" a profile has the older rollout shape "
				     "{\"network\":{\"enabled\":...},\"file_system\":{...}}");
	}
	r = sbx_walk_untagged(a, root, what, near, &network, &has_fs, &out->fs);
	out->network = network == 1;
	return r;
}
