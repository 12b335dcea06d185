/* SPDX-License-Identifier: MIT */
/*
 * load_entries.c - the parts every profile shape has: FileSystemSandboxEntry lists, the
 * FileSystemPermissions object that holds them (canonical {entries, glob_scan_max_depth} or legacy
 * {read, write}), paths, and the network mode. See sbxrun-profile(5), FILE SYSTEM ENTRIES.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

const char *const sbx_access_names_in[] = {"read", "write", "deny", "none", NULL};
const char *const sbx_network_modes[] = {"restricted", "enabled", NULL};
static const char *const path_types[] = {"path", "glob_pattern", "special", NULL};

/* ---- paths ---------------------------------------------------------------------------------- */

int sbx_walk_check_length(const struct sbx_at *a, const char *s, const char *what)
{
	size_t n = strlen(s);

	if (n == 0)
		return sbx_at_fail(a, SBX_E_INVALID, "empty %s", what);
	if (n > SBX_MAX_PATH)
		return sbx_at_fail(a, SBX_E_TOO_BIG, "%s is %zu bytes long (limit %u)", what, n,
				   SBX_MAX_PATH);
	return 0;
}

/*
 * listed: the path is an element of a {"read":[...],"write":[...]} list, which takes strings
 * only ("read", "write"), or of a legacy policy's writable_roots (""); NULL: the "path" of a
 * {"type":"path"} object, where a special path can stand instead.
 */
static int relative_path_error(const struct sbx_at *a, const char *s, const char *listed)
{
	int r;

	if (s[0] == '~') {
		r = sbx_at_fail(
			a, SBX_E_INVALID,
			"home-relative path \"%s\" (paths must be absolute; \"~\" is not expanded)",
			s);
		return sbx_diag_hint(a->d, r, "write the home directory out in full");
	}
	if (strncmp(s, "file:", 5) == 0) {
		r = sbx_at_fail(a, SBX_E_INVALID,
				"URI \"%s\" (paths must be absolute paths, not URIs)", s);
		return sbx_diag_hint(a->d, r, "write the path without the file:// prefix");
	}
	r = sbx_at_fail(a, SBX_E_INVALID, "relative path \"%s\" (paths must be absolute)", s);
	if (listed && !listed[0])
		return sbx_diag_hint(a->d, r, "write the path out in full, from /");
	if (listed)
		return sbx_diag_hint(
			a->d, r,
			"for a path under the project root use the entries form: "
			"{\"entries\":[{\"path\":{\"type\":\"special\",\"value\":"
			"{\"kind\":\"project_roots\",\"subpath\":\"%s\"}},\"access\":\"%s\"}]}",
			s, listed);
	return sbx_diag_hint(
		a->d, r,
		"for a path under the project root use {\"type\":\"special\",\"value\":"
		"{\"kind\":\"project_roots\",\"subpath\":\"%s\"}}",
		s);
}

int sbx_walk_absolute_path(const struct sbx_at *a, const char *s, char **out)
{
	return sbx_walk_listed_path(a, s, NULL, out);
}

int sbx_walk_listed_path(const struct sbx_at *a, const char *s, const char *listed, char **out)
{
	int r = sbx_walk_check_length(a, s, "path");

	if (r)
		return r;
	if (sbx_path_is_windows_abs(s)) {
		*out = strdup(s);
		return *out ? 0 : sbx_at_nomem(a);
	}
	if (!sbx_path_is_posix_abs(s))
		return relative_path_error(a, s, listed);
	r = sbx_path_normalize(s, out);
	return r == -ENOMEM ? sbx_at_nomem(a) : r;
}

/* ---- FileSystemSandboxEntry --------------------------------------------------------------- */

static const struct sbx_kind_name special_kinds[] = {
	{"root", SBX_SP_ROOT, false},
	{"minimal", SBX_SP_MINIMAL, false},
	{"project_roots", SBX_SP_PROJECT_ROOTS, true},
	{"current_working_directory", SBX_SP_PROJECT_ROOTS, true}, /* input alias */
	{"tmpdir", SBX_SP_TMPDIR, false},
	{"slash_tmp", SBX_SP_SLASH_TMP, false},
	{"unknown", SBX_SP_UNKNOWN, true},
	{NULL, SBX_SP_UNKNOWN, false},
};

const struct sbx_kind_name *sbx_find_kind(const char *s)
{
	for (const struct sbx_kind_name *k = special_kinds; k->name; k++)
		if (strcmp(s, k->name) == 0)
			return k;
	return NULL;
}

static int unknown_kind(const struct sbx_at *a, const char *s)
{
	static const char *const names[] = {"root",
					    "minimal",
					    "project_roots",
					    "tmpdir",
					    "slash_tmp",
					    "unknown",
					    "current_working_directory",
					    NULL};
	int r;

	/* A config.toml token with its colon: the hint says what to drop, no guess is needed. */
	if (s[0] == ':' && sbx_find_kind(s + 1)) {
		r = sbx_at_fail(a, SBX_E_PARSE, "unknown special kind \"%s\" (expected %s)", s,
				SBX_KINDS_EXPECTED);
		return sbx_diag_hint(a->d, r, "write the kind without the colon: \"%s\"", s + 1);
	}
	r = sbx_unknown_value(a, "special kind", s, names, SBX_KINDS_EXPECTED);
	if (strcmp(s, "workspace_roots") == 0 || strcmp(s, ":workspace_roots") == 0 ||
	    strcmp(s, ":project_roots") == 0)
		return sbx_diag_hint(a->d, r,
				     "the JSON kind is \"project_roots\" (\"%s\" is a config.toml "
				     "token)",
				     s);
	/* A misspelling has its suggestion in the message; anything else may be a future kind. */
	if (sbx_suggest(s, names))
		return r;
	return sbx_diag_hint(a->d, r,
			     "use {\"kind\":\"unknown\",\"path\":\":%s\"} for forward-compatible "
			     "tokens",
			     s[0] == ':' ? s + 1 : s);
}

static int load_subpath(const struct sbx_at *a, json_t *obj, struct sbx_entry *e)
{
	json_t *v = sbx_get_optional(obj, "subpath");
	const char *s;
	struct sbx_at c;
	int r;

	if (!v)
		return 0;
	sbx_at_key(&c, a, "subpath");
	r = sbx_get_string(&c, v, &s);
	if (r)
		return r;
	if (strlen(s) > SBX_MAX_PATH)
		return sbx_at_fail(&c, SBX_E_TOO_BIG, "subpath is %zu bytes long (limit %u)",
				   strlen(s), SBX_MAX_PATH);
	if (sbx_path_is_posix_abs(s) || sbx_path_is_windows_abs(s))
		return sbx_at_fail(
			&c, SBX_E_INVALID,
			"absolute subpath \"%s\" (a subpath is relative to the project root)", s);
	e->subpath = strdup(s);
	return e->subpath ? 0 : sbx_at_nomem(&c);
}

/* FileSystemSpecialPath, tagged with "kind". */
static int load_special(const struct sbx_at *a, json_t *v, struct sbx_entry *e)
{
	static const char *const with_sub[] = {"kind", "subpath", NULL};
	static const char *const unknown[] = {"kind", "path", "subpath", NULL};
	static const char *const bare[] = {"kind", NULL};
	const struct sbx_kind_name *k;
	const char *s;
	struct sbx_at c;
	int r;

	r = sbx_want_type(a, v, JSON_OBJECT, "a special path object {\"kind\":...}");
	if (!r)
		r = sbx_missing_tag(a, v, "kind", "a special path", SBX_KINDS_EXPECTED);
	if (!r)
		r = sbx_key_string(a, v, "kind", "a special path", &s);
	if (r)
		return r;
	k = sbx_find_kind(s);
	if (!k) {
		sbx_at_key(&c, a, "kind");
		return unknown_kind(&c, s);
	}
	e->kind = SBX_SPECIAL;
	e->special = k->sp;
	if (k->sp == SBX_SP_UNKNOWN) {
		r = sbx_check_keys(a, v, unknown, "an unknown special path",
				   "\"kind\", \"path\" and \"subpath\"");
		if (!r)
			r = sbx_key_string(a, v, "path", "an unknown special path", &s);
		if (r)
			return r;
		e->path = strdup(s);
		if (!e->path)
			return sbx_at_nomem(a);
	} else if (k->has_subpath) {
		r = sbx_check_keys(a, v, with_sub, "a project_roots special path",
				   "\"kind\" and \"subpath\"");
	} else {
		r = sbx_check_keys(a, v, bare, "this special path", "only \"kind\"");
	}
	return r ? r : load_subpath(a, v, e);
}

/* FileSystemPath, tagged with "type". */
static int load_fs_path(const struct sbx_at *a, json_t *v, struct sbx_entry *e)
{
	static const char *const k_path[] = {"type", "path", NULL};
	static const char *const k_glob[] = {"type", "pattern", NULL};
	static const char *const k_special[] = {"type", "value", NULL};
	const char *type, *s;
	struct sbx_at c;
	json_t *val;
	int r;

	r = sbx_want_type(a, v, JSON_OBJECT, "a path object {\"type\":...}");
	if (!r)
		r = sbx_missing_tag(a, v, "type", "a path",
				    "\"path\", \"glob_pattern\" or \"special\"");
	if (!r)
		r = sbx_key_string(a, v, "type", "a path", &type);
	if (r)
		return r;
	if (strcmp(type, "path") == 0) {
		json_t *vals[2] = {NULL, NULL};

		r = sbx_scan_keys(a, v, k_path, vals, "a path", "\"type\" and \"path\"");
		if (!r)
			r = sbx_member_string(a, vals[1], "path", "a path", &s);
		if (r)
			return r;
		e->kind = SBX_PATH;
		sbx_at_key(&c, a, "path");
		return sbx_walk_absolute_path(&c, s, &e->path);
	}
	if (strcmp(type, "glob_pattern") == 0) {
		r = sbx_check_keys(a, v, k_glob, "a glob_pattern", "\"type\" and \"pattern\"");
		if (!r)
			r = sbx_key_string(a, v, "pattern", "a glob_pattern", &s);
		sbx_at_key(&c, a, "pattern");
		if (!r)
			r = sbx_walk_check_length(&c, s, "pattern");
		if (r)
			return r;
		e->kind = SBX_GLOB;
		e->path = strdup(s);
		return e->path ? 0 : sbx_at_nomem(&c);
	}
	if (strcmp(type, "special") == 0) {
		r = sbx_check_keys(a, v, k_special, "a special path", "\"type\" and \"value\"");
		if (!r)
			r = sbx_get_required(a, v, "value", "a special path", &val);
		if (r)
			return r;
		sbx_at_key(&c, a, "value");
		return load_special(&c, val, e);
	}
	sbx_at_key(&c, a, "type");
	return sbx_unknown_value(&c, "path type", type, path_types,
				 "path, glob_pattern or special");
}

static int load_access(const struct sbx_at *a, json_t *v, enum sbx_access *out)
{
	const char *s;
	int r = sbx_get_string(a, v, &s);

	if (r)
		return r;
	for (int i = 0; sbx_access_names_in[i]; i++) {
		if (strcmp(s, sbx_access_names_in[i]) == 0) {
			*out = i > SBX_DENY ? SBX_DENY : (enum sbx_access)i;
			return 0;
		}
	}
	return sbx_unknown_value(a, "access", s, sbx_access_names_in, "read, write, deny or none");
}

/* v is the member's value, NULL when absent; null means absent too. */
static int load_missing(const struct sbx_at *a, json_t *v, bool *skip)
{
	static const char *const names[] = {"skip", NULL};
	const char *s;
	struct sbx_at c;
	int r;

	*skip = false;
	if (!v || json_is_null(v))
		return 0;
	sbx_at_key(&c, a, "missing_path_behavior");
	r = sbx_get_string(&c, v, &s);
	if (r)
		return r;
	if (strcmp(s, "skip") != 0)
		return sbx_at_fail(
			&c, SBX_E_PARSE,
			"unknown missing_path_behavior \"%s\" (the only value is \"skip\")%s", s,
			sbx_suggest(s, names) ? "; did you mean \"skip\"?" : "");
	*skip = true;
	return 0;
}

static int load_entry(const struct sbx_at *a, json_t *v, struct sbx_entry *e)
{
	static const char *const keys[] = {"path", "access", "missing_path_behavior", NULL};
	json_t *vals[3] = {NULL, NULL, NULL}, *path, *access;
	enum sbx_access acc = SBX_READ;
	struct sbx_at c;
	int r;

	r = sbx_want_type(a, v, JSON_OBJECT, "an entry object {\"path\":...,\"access\":...}");
	if (!r)
		r = sbx_scan_keys(a, v, keys, vals, "an entry",
				  "\"path\", \"access\" and \"missing_path_behavior\"");
	/* In document order, the first error the text holds first; a missing member last. */
	for (void *it = json_object_iter(v); !r && it; it = json_object_iter_next(v, it)) {
		const char *k = json_object_iter_key(it);
		json_t *m = json_object_iter_value(it);

		/* A key holding a NUL (built by a caller, never parsed) is none of them. */
		if (json_object_iter_key_len(it) != strlen(k))
			continue;
		sbx_at_key(&c, a, k);
		if (!strcmp(k, keys[0]))
			r = load_fs_path(&c, m, e);
		else if (!strcmp(k, keys[1]))
			r = load_access(&c, m, &acc);
		else
			r = load_missing(a, m, &e->skip_missing);
	}
	if (!r)
		r = sbx_member_required(a, vals[0], "path", "an entry", &path);
	if (!r)
		r = sbx_member_required(a, vals[1], "access", "an entry", &access);
	if (r)
		return r;
	sbx_at_key(&c, a, "access");
	e->access = acc;
	if (e->kind == SBX_GLOB && e->access != SBX_DENY) {
		r = sbx_at_fail(&c, SBX_E_INVALID,
				"glob_pattern entries support only deny access, got \"%s\"",
				sbx_access_name(e->access));
		return sbx_diag_hint(a->d, r,
				     "use an exact path entry to grant %s access to a subtree",
				     sbx_access_name(e->access));
	}
	return 0;
}

/* sbx_fs_push_owned, with the limit worded. */
static int push_owned(const struct sbx_at *a, struct sbx_fs *out, struct sbx_entry *e)
{
	int r = sbx_fs_push_owned(out, e);

	if (r == SBX_E_TOO_BIG)
		return sbx_at_fail(a, r, "too many entries (limit %u)", SBX_MAX_ENTRIES);
	return r ? sbx_at_nomem(a) : 0;
}

int sbx_walk_entries(const struct sbx_at *a, json_t *v, struct sbx_fs *out)
{
	size_t n;
	int r;

	r = sbx_want_type(a, v, JSON_ARRAY, "an array of entries");
	if (r)
		return r;
	n = json_array_size(v);
	if (n > SBX_MAX_ENTRIES)
		return sbx_at_fail(a, SBX_E_TOO_BIG, "%zu entries (limit %u)", n, SBX_MAX_ENTRIES);
	for (size_t i = 0; i < n; i++) {
		struct sbx_entry e = {0};
		struct sbx_at c;

		sbx_at_index(&c, a, i);
		r = load_entry(&c, json_array_get(v, i), &e);
		if (r) {
			sbx_entry_clear(&e);
			return r;
		}
		r = push_owned(&c, out, &e);
		if (r)
			return r;
	}
	return 0;
}

int sbx_entries_load_jv(json_t *v, const char *name, const char *pointer, struct sbx_fs *out,
			struct sbx_diag *d)
{
	struct sbx_at a;

	sbx_diag_clear(d);
	sbx_at_root(&a, name, pointer, d);
	return sbx_walk_entries(&a, v, out);
}

int sbx_walk_depth(const struct sbx_at *a, json_t *obj, unsigned *out)
{
	json_t *v = sbx_get_optional(obj, "glob_scan_max_depth");
	json_int_t n;
	struct sbx_at c;

	*out = 0;
	if (!v)
		return 0;
	sbx_at_key(&c, a, "glob_scan_max_depth");
	if (!json_is_integer(v))
		return sbx_at_fail(&c, SBX_E_PARSE, "expected a positive integer, got %s",
				   sbx_json_type_name(v));
	n = json_integer_value(v);
	if (n < 1 || n > SBX_MAX_GLOB_DEPTH)
		return sbx_at_fail(
			&c, SBX_E_INVALID,
			"glob_scan_max_depth is %lld (expected 1 to %d; omit it for no limit)",
			(long long)n, SBX_MAX_GLOB_DEPTH);
	*out = (unsigned)n;
	return 0;
}

/* The legacy {"read":[...],"write":[...]} lists of absolute paths. */
static int load_path_list(const struct sbx_at *a, json_t *obj, const char *key, enum sbx_access acc,
			  struct sbx_fs *out)
{
	json_t *v = sbx_get_optional(obj, key);
	struct sbx_at c;
	int r;

	if (!v)
		return 0;
	sbx_at_key(&c, a, key);
	r = sbx_want_type(&c, v, JSON_ARRAY, "an array of absolute paths");
	if (!r && json_array_size(v) > SBX_MAX_ENTRIES)
		r = sbx_at_fail(&c, SBX_E_TOO_BIG, "%zu paths (limit %u)", json_array_size(v),
				SBX_MAX_ENTRIES);
	for (size_t i = 0; !r && i < json_array_size(v); i++) {
		struct sbx_entry e = {.kind = SBX_PATH, .access = acc};
		const char *s;
		struct sbx_at ci;

		sbx_at_index(&ci, &c, i);
		r = sbx_get_string(&ci, json_array_get(v, i), &s);
		if (!r)
			r = sbx_walk_listed_path(&ci, s, acc == SBX_WRITE ? "write" : "read",
						 &e.path);
		if (r)
			sbx_entry_clear(&e);
		else
			r = push_owned(&ci, out, &e);
	}
	return r;
}

int sbx_walk_fs_permissions(const struct sbx_at *a, json_t *v, struct sbx_fs *out)
{
	static const char *const canonical[] = {"entries", "glob_scan_max_depth", NULL};
	static const char *const legacy[] = {"read", "write", NULL};
	static const char *const either[] = {"entries", "glob_scan_max_depth", "read", "write",
					     NULL};
	int r;

	r = sbx_want_type(a, v, JSON_OBJECT, "a file_system object");
	if (r)
		return r;
	out->kind = SBX_FS_RESTRICTED;
	if (!json_object_get(v, "entries") && !json_object_get(v, "glob_scan_max_depth")) {
		r = sbx_check_keys_near(
			a, v, legacy, either, "file_system permissions",
			"\"entries\" and \"glob_scan_max_depth\", or \"read\" and \"write\"");
		if (!r)
			r = load_path_list(a, v, "read", SBX_READ, out);
		return r ? r : load_path_list(a, v, "write", SBX_WRITE, out);
	}
	return sbx_walk_restricted(a, v, canonical, "file_system permissions",
				   "\"entries\" and \"glob_scan_max_depth\"", out);
}

int sbx_walk_restricted(const struct sbx_at *a, json_t *v, const char *const *allowed,
			const char *what, const char *expected, struct sbx_fs *fs)
{
	json_t *entries;
	struct sbx_at c;
	int r = sbx_check_keys(a, v, allowed, what, expected);

	/* In document order, the first error the text holds first; a missing "entries" last. */
	fs->kind = SBX_FS_RESTRICTED;
	for (void *it = json_object_iter(v); !r && it; it = json_object_iter_next(v, it)) {
		const char *k = json_object_iter_key(it);

		if (!strcmp(k, "glob_scan_max_depth"))
			r = sbx_walk_depth(a, v, &fs->glob_depth);
		else if (!strcmp(k, "entries")) {
			sbx_at_key(&c, a, "entries");
			r = sbx_walk_entries(&c, json_object_iter_value(it), fs);
		}
	}
	return r ? r : sbx_get_required(a, v, "entries", what, &entries);
}

int sbx_fs_permissions_load_jv(json_t *v, const char *name, const char *pointer, struct sbx_fs *out,
			       struct sbx_diag *d)
{
	struct sbx_at a;

	sbx_diag_clear(d);
	sbx_at_root(&a, name, pointer, d);
	return sbx_walk_fs_permissions(&a, v, out);
}

/* ---- the network mode --------------------------------------------------------------------- */

int sbx_walk_network_mode(const struct sbx_at *a, json_t *v, bool *enabled)
{
	const char *s;
	int r = sbx_want_type(a, v, JSON_STRING, "\"restricted\" or \"enabled\"");

	if (!r)
		r = sbx_get_string(a, v, &s);
	if (r)
		return r;
	if (strcmp(s, "enabled") != 0 && strcmp(s, "restricted") != 0)
		return sbx_unknown_value(a, "network", s, sbx_network_modes,
					 "\"restricted\" or \"enabled\"");
	*enabled = strcmp(s, "enabled") == 0;
	return 0;
}
