/* SPDX-License-Identifier: MIT */
/*
 * load.c - the loader's entry points: strict JSON text to the model, for a PermissionProfile
 * (tagged, or the older rollout shape), a legacy SandboxPolicy and an AdditionalPermissionProfile.
 *
 * A tagged PermissionProfile, the form sbxrun hands its helper and the one large profiles take,
 * is read by the single-pass parser of load_wire.c. Anything that parser does not accept (other
 * shapes, and every input with an error) is read again through jansson and the schema walkers,
 * which accept exactly the same profiles and word the error: "FILE:LINE:COL: /pointer: what is
 * wrong (what is expected)". See lib/README.md, "Loading", and load.h for the files.
 */
#include <string.h>

#include "load.h"

static int load_profile_root(const struct sbx_at *a, json_t *root, struct sbx_profile *out,
			     enum sbx_input_form *form, struct sbx_legacy *legacy_out)
{
	const char *type;
	struct sbx_at c;
	int r;

	*form = SBX_FORM_ROLLOUT;
	if (!json_object_get(root, "type"))
		return sbx_walk_rollout(a, root, out);
	r = sbx_key_string(a, root, "type", "a profile", &type);
	if (r)
		return r;
	*form = SBX_FORM_PROFILE;
	for (size_t i = 0; sbx_legacy_types[i]; i++) {
		if (strcmp(type, sbx_legacy_types[i]) != 0)
			continue;
		if (!legacy_out) {
			sbx_at_key(&c, a, "type");
			r = sbx_at_fail(&c, SBX_E_INVALID,
					"\"%s\" is a legacy SandboxPolicy, not a PermissionProfile",
					type);
			return sbx_diag_hint(
				a->d, r,
				"convert it first: sbxrun convert --to profile --cwd DIR FILE");
		}
		*form = SBX_FORM_LEGACY;
		return sbx_walk_legacy(a, root, type, legacy_out);
	}
	return sbx_walk_tagged(a, root, type, out);
}

int sbx_profile_load_buf(const char *buf, size_t len, const char *name, struct sbx_profile *out,
			 enum sbx_input_form *form, struct sbx_legacy *legacy_out,
			 struct sbx_diag *d)
{
	int r;

	memset(out, 0, sizeof(*out));
	if (legacy_out)
		memset(legacy_out, 0, sizeof(*legacy_out));
	sbx_diag_clear(d);
	if (sbx_profile_load_wire(buf, len, out) == 0) {
		if (form)
			*form = SBX_FORM_PROFILE;
		sbx_fs_trim(&out->fs);
		return 0;
	}
	r = sbx_profile_load_tree(buf, len, name, out, form, legacy_out, d);
	if (r == 0)
		sbx_fs_trim(&out->fs);
	return r;
}

int sbx_profile_load_tree(const char *buf, size_t len, const char *name, struct sbx_profile *out,
			  enum sbx_input_form *form, struct sbx_legacy *legacy_out,
			  struct sbx_diag *d)
{
	enum sbx_input_form dummy;
	json_t *root;
	struct sbx_at a;
	int r;

	memset(out, 0, sizeof(*out));
	if (legacy_out)
		memset(legacy_out, 0, sizeof(*legacy_out));
	sbx_diag_clear(d);
	sbx_at_root(&a, name, NULL, d);
	r = sbx_json_parse_object(buf, len, name, &root, d);
	if (r)
		return r;
	r = load_profile_root(&a, root, out, form ? form : &dummy, legacy_out);
	json_decref(root);
	if (r) {
		sbx_profile_free(out);
		sbx_legacy_free(legacy_out);
		sbx_json_place_pointer(buf, len, d);
	}
	return r;
}

int sbx_additional_load_buf(const char *buf, size_t len, const char *name,
			    struct sbx_additional *out, struct sbx_diag *d)
{
	const char *what = "an additional permission profile";
	json_t *root;
	struct sbx_at a;
	int r;

	memset(out, 0, sizeof(*out));
	out->network = -1;
	sbx_diag_clear(d);
	sbx_at_root(&a, name, NULL, d);
	r = sbx_json_parse_object(buf, len, name, &root, d);
	if (r)
		return r;
	r = sbx_walk_untagged(&a, root, what, NULL, &out->network, &out->has_fs, &out->fs);
	if (r && json_object_get(root, "type"))
		sbx_diag_hint(d, r,
			      "this looks like a PermissionProfile; an additional profile "
			      "has only \"network\" and \"file_system\"");
	json_decref(root);
	if (r) {
		sbx_additional_free(out);
		sbx_json_place_pointer(buf, len, d);
	}
	return r;
}

int sbx_load_object(const char *buf, size_t len, const char *name, struct sbx_diag *d,
		    int (*walk)(const struct sbx_at *a, json_t *root, void *out), void *out)
{
	json_t *root;
	struct sbx_at a;
	int r;

	sbx_diag_clear(d);
	sbx_at_root(&a, name, NULL, d);
	r = sbx_json_parse_object(buf, len, name, &root, d);
	if (r)
		return r;
	r = walk(&a, root, out);
	json_decref(root);
	if (r)
		sbx_json_place_pointer(buf, len, d);
	return r;
}

static int walk_legacy_root(const struct sbx_at *a, json_t *root, void *out)
{
	const char *type;
	int r;

	r = sbx_missing_tag(a, root, "type", "a sandbox policy", SBX_LEGACY_TYPES_EXPECTED);
	if (!r)
		r = sbx_key_string(a, root, "type", "a sandbox policy", &type);
	if (!r)
		r = sbx_walk_legacy(a, root, type, out);
	return r;
}

int sbx_legacy_load_buf(const char *buf, size_t len, const char *name, struct sbx_legacy *out,
			struct sbx_diag *d)
{
	int r;

	memset(out, 0, sizeof(*out));
	r = sbx_load_object(buf, len, name, d, walk_legacy_root, out);
	if (r)
		sbx_legacy_free(out);
	return r;
}
