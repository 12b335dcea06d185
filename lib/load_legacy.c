/* SPDX-License-Identifier: MIT */
/*
 * load_legacy.c - the legacy SandboxPolicy: read-only, workspace-write, danger-full-access and
 * external-sandbox. See sbxrun-profile(5), LEGACY SANDBOX POLICIES.
 */
#include <stdlib.h>
#include <string.h>

#include "load.h"

const char *const sbx_legacy_types[] = {"danger-full-access", "read-only", "external-sandbox",
					"workspace-write", NULL};

static int key_bool(const struct sbx_at *a, json_t *obj, const char *key, bool *out)
{
	json_t *v = sbx_get_optional(obj, key);
	struct sbx_at c;

	*out = false;
	if (!v)
		return 0;
	sbx_at_key(&c, a, key);
	return sbx_get_bool(&c, v, out);
}

static int load_writable_roots(const struct sbx_at *a, json_t *obj, struct sbx_legacy *l)
{
	json_t *v = sbx_get_optional(obj, "writable_roots");
	size_t n;
	struct sbx_at c;
	int r;

	if (!v)
		return 0;
	sbx_at_key(&c, a, "writable_roots");
	r = sbx_want_type(&c, v, JSON_ARRAY, "an array of absolute paths");
	if (r)
		return r;
	n = json_array_size(v);
	if (n > SBX_MAX_ENTRIES)
		return sbx_at_fail(&c, SBX_E_TOO_BIG, "%zu writable roots (limit %u)", n,
				   SBX_MAX_ENTRIES);
	l->writable_roots = calloc(n ? n : 1, sizeof(char *));
	if (!l->writable_roots)
		return sbx_at_nomem(&c);
	for (size_t i = 0; i < n; i++) {
		const char *s;
		struct sbx_at ci;

		sbx_at_index(&ci, &c, i);
		r = sbx_get_string(&ci, json_array_get(v, i), &s);
		if (!r)
			r = sbx_walk_listed_path(&ci, s, "", &l->writable_roots[i]);
		if (r)
			return r;
		l->n_writable_roots++;
	}
	return 0;
}

static int load_external_sandbox(const struct sbx_at *a, json_t *root, struct sbx_legacy *l)
{
	static const char *const keys[] = {"type", "network_access", NULL};
	json_t *v = sbx_get_optional(root, "network_access");
	struct sbx_at c;
	int r;

	l->type = SBX_LEGACY_EXTERNAL_SANDBOX;
	r = sbx_check_keys(a, root, keys, "an external-sandbox policy",
			   "\"type\" and \"network_access\"");
	if (r || !v)
		return r;
	sbx_at_key(&c, a, "network_access");
	return sbx_walk_network_mode(&c, v, &l->network_access);
}

static int load_workspace_write(const struct sbx_at *a, json_t *root, struct sbx_legacy *l)
{
	static const char *const keys[] = {"type",
					   "writable_roots",
					   "network_access",
					   "exclude_tmpdir_env_var",
					   "exclude_slash_tmp",
					   NULL};
	int r;

	l->type = SBX_LEGACY_WORKSPACE_WRITE;
	r = sbx_check_keys(a, root, keys, "a workspace-write policy",
			   "\"type\", \"writable_roots\", \"network_access\", "
			   "\"exclude_tmpdir_env_var\" and \"exclude_slash_tmp\"");
	if (!r)
		r = load_writable_roots(a, root, l);
	if (!r)
		r = key_bool(a, root, "network_access", &l->network_access);
	if (!r)
		r = key_bool(a, root, "exclude_tmpdir_env_var", &l->exclude_tmpdir_env_var);
	if (!r)
		r = key_bool(a, root, "exclude_slash_tmp", &l->exclude_slash_tmp);
	return r;
}

int sbx_walk_legacy(const struct sbx_at *a, json_t *root, const char *type, struct sbx_legacy *l)
{
	static const char *const k_danger[] = {"type", NULL};
	static const char *const k_read_only[] = {"type", "network_access", NULL};
	struct sbx_at c;
	int r;

	if (strcmp(type, "danger-full-access") == 0) {
		l->type = SBX_LEGACY_DANGER_FULL_ACCESS;
		return sbx_check_keys(a, root, k_danger, "a danger-full-access policy",
				      "only \"type\"");
	}
	if (strcmp(type, "read-only") == 0) {
		l->type = SBX_LEGACY_READ_ONLY;
		r = sbx_check_keys(a, root, k_read_only, "a read-only policy",
				   "\"type\" and \"network_access\"");
		return r ? r : key_bool(a, root, "network_access", &l->network_access);
	}
	if (strcmp(type, "external-sandbox") == 0)
		return load_external_sandbox(a, root, l);
	if (strcmp(type, "workspace-write") == 0)
		return load_workspace_write(a, root, l);
	sbx_at_key(&c, a, "type");
	return sbx_unknown_value(&c, "sandbox policy type", type, sbx_legacy_types,
				 SBX_LEGACY_TYPES_EXPECTED);
}
