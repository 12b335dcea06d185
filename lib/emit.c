/* SPDX-License-Identifier: MIT */
/*
 * emit.c - model to canonical wire JSON: compact, keys in the documented order, aliases written
 * in their canonical spelling ("none" as "deny", current_working_directory as project_roots).
 */
#include <jansson.h>
#include <stdlib.h>

#include "sbx.h"

/*
 * jansson's setters steal the value and fail on NULL, so a failed allocation anywhere below
 * surfaces as a failed set, which every builder turns into NULL.
 */
static bool set(json_t *obj, const char *key, json_t *v)
{
	return json_object_set_new(obj, key, v) == 0;
}

static json_t *finish(json_t *obj, bool ok)
{
	if (ok)
		return obj;
	json_decref(obj);
	return NULL;
}

static json_t *special_jv(const struct sbx_entry *e)
{
	json_t *v = json_object();
	bool ok = v && set(v, "kind", json_string(sbx_special_name(e->special)));

	if (ok && e->special == SBX_SP_UNKNOWN)
		ok = set(v, "path", json_string(e->path ? e->path : ""));
	if (ok && e->subpath)
		ok = set(v, "subpath", json_string(e->subpath));
	return finish(v, ok);
}

static json_t *fs_path_jv(const struct sbx_entry *e)
{
	json_t *v = json_object();
	bool ok = v != NULL;

	switch (e->kind) {
	case SBX_PATH:
		ok = ok && set(v, "type", json_string("path")) &&
		     set(v, "path", json_string(e->path));
		break;
	case SBX_GLOB:
		ok = ok && set(v, "type", json_string("glob_pattern")) &&
		     set(v, "pattern", json_string(e->path));
		break;
	default:
		ok = ok && set(v, "type", json_string("special")) && set(v, "value", special_jv(e));
		break;
	}
	return finish(v, ok);
}

static json_t *entry_jv(const struct sbx_entry *e)
{
	json_t *v = json_object();
	bool ok = v && set(v, "path", fs_path_jv(e)) &&
		  set(v, "access", json_string(sbx_access_name(e->access)));

	if (ok && e->skip_missing)
		ok = set(v, "missing_path_behavior", json_string("skip"));
	return finish(v, ok);
}

static json_t *entries_jv(const struct sbx_fs *fs)
{
	json_t *a = json_array();
	bool ok = a != NULL;

	for (size_t i = 0; ok && i < fs->n; i++)
		ok = json_array_append_new(a, entry_jv(&fs->entries[i])) == 0;
	return finish(a, ok);
}

/* Appends "entries" and, when bounded, "glob_scan_max_depth" to obj. */
static bool put_entries(json_t *obj, const struct sbx_fs *fs)
{
	if (!set(obj, "entries", entries_jv(fs)))
		return false;
	return !fs->glob_depth || set(obj, "glob_scan_max_depth", json_integer(fs->glob_depth));
}

static json_t *managed_fs_jv(const struct sbx_fs *fs)
{
	json_t *v = json_object();
	bool ok = v != NULL;

	if (ok && fs->kind == SBX_FS_UNRESTRICTED)
		ok = set(v, "type", json_string("unrestricted"));
	else if (ok)
		ok = set(v, "type", json_string("restricted")) && put_entries(v, fs);
	return finish(v, ok);
}

static const char *network_name(bool enabled)
{
	return enabled ? "enabled" : "restricted";
}

json_t *sbx_profile_to_jv(const struct sbx_profile *p)
{
	json_t *v = json_object();
	bool ok = v != NULL;

	/* A managed profile cannot carry an external file system: the wire form is External. */
	if (p->type == SBX_EXTERNAL || (p->type == SBX_MANAGED && p->fs.kind == SBX_FS_EXTERNAL))
		ok = ok && set(v, "type", json_string("external")) &&
		     set(v, "network", json_string(network_name(p->network)));
	else if (p->type == SBX_DISABLED)
		ok = ok && set(v, "type", json_string("disabled"));
	else
		ok = ok && set(v, "type", json_string("managed")) &&
		     set(v, "file_system", managed_fs_jv(&p->fs)) &&
		     set(v, "network", json_string(network_name(p->network)));
	return finish(v, ok);
}

static char *dump(json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(v);
	return s;
}

char *sbx_profile_to_json(const struct sbx_profile *p)
{
	return dump(sbx_profile_to_jv(p));
}

/* The legacy {"read":[..],"write":[..]} form fits plain read/write paths without a depth. */
static bool fits_read_write(const struct sbx_fs *fs)
{
	if (fs->glob_depth)
		return false;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];

		if (e->kind != SBX_PATH || e->access == SBX_DENY || e->skip_missing)
			return false;
	}
	return true;
}

/* Adds the list of paths with access acc under key, leaving an empty list out. */
static bool put_path_list(json_t *obj, const char *key, const struct sbx_fs *fs,
			  enum sbx_access acc)
{
	json_t *a = json_array();
	bool ok = a != NULL;

	for (size_t i = 0; ok && i < fs->n; i++)
		if (fs->entries[i].access == acc)
			ok = json_array_append_new(a, json_string(fs->entries[i].path)) == 0;
	if (ok && json_array_size(a) == 0) {
		json_decref(a);
		return true;
	}
	return ok ? set(obj, key, a) : (json_decref(a), false);
}

static json_t *fs_permissions_jv(const struct sbx_fs *fs)
{
	json_t *v = json_object();
	bool ok = v != NULL;

	if (ok && fits_read_write(fs))
		ok = put_path_list(v, "read", fs, SBX_READ) &&
		     put_path_list(v, "write", fs, SBX_WRITE);
	else if (ok)
		ok = put_entries(v, fs);
	return finish(v, ok);
}

char *sbx_additional_to_json(const struct sbx_additional *a)
{
	json_t *v = json_object(), *net = NULL;
	bool ok = v != NULL;

	/* Spec 2.9: only an enabled network survives; false and null both serialize away. */
	if (ok && a->network == 1) {
		net = json_object();
		ok = net && set(net, "enabled", json_true()) && set(v, "network", net);
	}
	if (ok && a->has_fs)
		ok = set(v, "file_system", fs_permissions_jv(&a->fs));
	return dump(finish(v, ok));
}

static bool put_writable_roots(json_t *obj, const struct sbx_legacy *l)
{
	json_t *a;
	bool ok;

	if (l->n_writable_roots == 0)
		return true;
	a = json_array();
	ok = a != NULL;
	for (size_t i = 0; ok && i < l->n_writable_roots; i++)
		ok = json_array_append_new(a, json_string(l->writable_roots[i])) == 0;
	return ok ? set(obj, "writable_roots", a) : (json_decref(a), false);
}

char *sbx_legacy_to_json(const struct sbx_legacy *l)
{
	json_t *v = json_object();
	bool ok = v != NULL;

	switch (l->type) {
	case SBX_LEGACY_DANGER_FULL_ACCESS:
		ok = ok && set(v, "type", json_string("danger-full-access"));
		break;
	case SBX_LEGACY_READ_ONLY:
		ok = ok && set(v, "type", json_string("read-only"));
		if (ok && l->network_access)
			ok = set(v, "network_access", json_true());
		break;
	case SBX_LEGACY_EXTERNAL_SANDBOX:
		ok = ok && set(v, "type", json_string("external-sandbox")) &&
		     set(v, "network_access", json_string(network_name(l->network_access)));
		break;
	case SBX_LEGACY_WORKSPACE_WRITE:
		ok = ok && set(v, "type", json_string("workspace-write")) &&
		     put_writable_roots(v, l) &&
		     set(v, "network_access", json_boolean(l->network_access)) &&
		     set(v, "exclude_tmpdir_env_var", json_boolean(l->exclude_tmpdir_env_var)) &&
		     set(v, "exclude_slash_tmp", json_boolean(l->exclude_slash_tmp));
		break;
	}
	return dump(finish(v, ok));
}
