/* SPDX-License-Identifier: MIT */
/*
 * load_profile.c - the tagged PermissionProfile: {"type":"managed","file_system":{...},
 * "network":...}, {"type":"disabled"} and {"type":"external","network":...}. See
 * sbxrun-profile(5), PERMISSION PROFILES.
 */
#include <string.h>

#include "load.h"

const char *const sbx_profile_types[] = {"managed", "disabled", "external", NULL};

static int key_network_mode(const struct sbx_at *a, json_t *obj, const char *what, bool *enabled)
{
	struct sbx_at c;
	json_t *v;
	int r = sbx_get_required(a, obj, "network", what, &v);

	if (r)
		return r;
	sbx_at_key(&c, a, "network");
	return sbx_walk_network_mode(&c, v, enabled);
}

/* ManagedFileSystemPermissions: {"type":"restricted","entries":[...]} or {"type":"unrestricted"}. */
static int load_managed_fs(const struct sbx_at *a, json_t *v, struct sbx_fs *fs)
{
	static const char *const types[] = {"restricted", "unrestricted", NULL};
	static const char *const restricted[] = {"type", "entries", "glob_scan_max_depth", NULL};
	static const char *const unrestricted[] = {"type", NULL};
	const char *type;
	struct sbx_at c;
	int r;

	r = sbx_want_type(a, v, JSON_OBJECT, "a file_system object");
	if (r)
		return r;
	r = sbx_missing_tag(a, v, "type", "file_system", "\"restricted\" or \"unrestricted\"");
	if (r)
		return sbx_diag_hint(a->d, r,
				     "add \"type\":\"restricted\" (with \"entries\") or "
				     "\"type\":\"unrestricted\"");
	r = sbx_key_string(a, v, "type", "file_system", &type);
	if (r)
		return r;
	if (strcmp(type, "unrestricted") == 0) {
		fs->kind = SBX_FS_UNRESTRICTED;
		return sbx_check_keys(a, v, unrestricted, "an unrestricted file_system",
				      "only \"type\"");
	}
	if (strcmp(type, "restricted") != 0) {
		sbx_at_key(&c, a, "type");
		return sbx_unknown_value(&c, "file_system type", type, types,
					 "restricted or unrestricted");
	}
	return sbx_walk_restricted(a, v, restricted, "a restricted file_system",
				   "\"type\", \"entries\" and \"glob_scan_max_depth\"", fs);
}

/*
 * Each member is walked where it stands, in document order, so that the error reported is the
 * first one the text holds (a wrong type at its own line and column); a missing member, an
 * error of the whole object, only after every member there is found sound.
 */
static int load_managed(const struct sbx_at *a, json_t *root, struct sbx_profile *out)
{
	static const char *const keys[] = {"type", "file_system", "network", NULL};
	struct sbx_at c;
	json_t *v;
	int r;

	out->type = SBX_MANAGED;
	r = sbx_check_keys(a, root, keys, "a managed profile",
			   "\"type\", \"file_system\" and \"network\"");
	for (void *it = json_object_iter(root); !r && it; it = json_object_iter_next(root, it)) {
		const char *k = json_object_iter_key(it);

		sbx_at_key(&c, a, k);
		if (!strcmp(k, "file_system"))
			r = load_managed_fs(&c, json_object_iter_value(it), &out->fs);
		else if (!strcmp(k, "network"))
			r = sbx_walk_network_mode(&c, json_object_iter_value(it), &out->network);
	}
	if (!r)
		r = sbx_get_required(a, root, "file_system", "a managed profile", &v);
	if (!r)
		r = sbx_get_required(a, root, "network", "a managed profile", &v);
	return r;
}

int sbx_walk_tagged(const struct sbx_at *a, json_t *root, const char *type, struct sbx_profile *out)
{
	static const char *const k_disabled[] = {"type", NULL};
	static const char *const k_external[] = {"type", "network", NULL};
	static const char *const names[] = {
		"managed",	   "disabled",		 "external",	     "read-only",
		"workspace-write", "danger-full-access", "external-sandbox", NULL};
	struct sbx_at c;
	int r;

	if (strcmp(type, "managed") == 0)
		return load_managed(a, root, out);
	if (strcmp(type, "disabled") == 0) {
		out->type = SBX_DISABLED;
		out->fs.kind = SBX_FS_UNRESTRICTED;
		out->network = true;
		return sbx_check_keys(a, root, k_disabled, "a disabled profile", "only \"type\"");
	}
	if (strcmp(type, "external") == 0) {
		out->type = SBX_EXTERNAL;
		out->fs.kind = SBX_FS_EXTERNAL;
		r = sbx_check_keys(a, root, k_external, "an external profile",
				   "\"type\" and \"network\"");
		return r ? r : key_network_mode(a, root, "an external profile", &out->network);
	}
	sbx_at_key(&c, a, "type");
	return sbx_unknown_value(&c, "profile type", type, names, SBX_PROFILE_TYPES_EXPECTED);
}
