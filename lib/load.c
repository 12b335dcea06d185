/* SPDX-License-Identifier: MIT */
/*
 * load.c - strict JSON to model: PermissionProfile (tagged, or the older rollout shape), legacy
 * SandboxPolicy and AdditionalPermissionProfile.
 *
 * Semantic errors are reported with the JSON pointer of the offending value; when the text is at
 * hand (the *_load_buf entry points) the pointer is turned into a line and column by walking the
 * text again, so every error reads "FILE:LINE:COL: /pointer: what is wrong (what is expected)".
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx.h"

/* A path of SBX_MAX_PATH bytes has at most this many components: deeper scans mean nothing. */
#define MAX_GLOB_DEPTH (SBX_MAX_PATH / 2)
#define PTR_MAX sizeof(((struct sbx_diag *)0)->pointer)

/* Where a value sits: the input's name, the value's JSON pointer and the diagnostic to fill. */
struct at {
	const char *name;
	char ptr[PTR_MAX];
	struct sbx_diag *d;
};

static void ptr_append(char *dst, const char *tok)
{
	size_t o = strlen(dst);

	if (o + 1 >= PTR_MAX)
		return;
	dst[o++] = '/';
	for (; *tok && o + 2 < PTR_MAX; tok++) {
		if (*tok == '~' || *tok == '/') {
			dst[o++] = '~';
			dst[o++] = *tok == '~' ? '0' : '1';
		} else {
			dst[o++] = *tok;
		}
	}
	dst[o] = '\0';
}

static void at_key(struct at *c, const struct at *p, const char *key)
{
	*c = *p;
	ptr_append(c->ptr, key);
}

static void at_index(struct at *c, const struct at *p, size_t i)
{
	char num[24];

	snprintf(num, sizeof(num), "%zu", i);
	at_key(c, p, num);
}

static void diag_place(struct sbx_diag *d, const char *name, const char *ptr)
{
	if (!d)
		return;
	snprintf(d->file, sizeof(d->file), "%s", name ? name : "");
	snprintf(d->pointer, sizeof(d->pointer), "%s", ptr ? ptr : "");
	d->line = d->col = 0;
	d->hint[0] = '\0';
}

__attribute__((format(printf, 3, 4))) static int fail(const struct at *a, int code,
						      const char *fmt, ...)
{
	va_list ap;

	if (!a->d)
		return code;
	diag_place(a->d, a->name, a->ptr);
	va_start(ap, fmt);
	vsnprintf(a->d->msg, sizeof(a->d->msg), fmt, ap);
	va_end(ap);
	return code;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
		return "an integer";
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
		return "true";
	case JSON_FALSE:
		return "false";
	default:
		return "null";
	}
}

static int want_type(const struct at *a, const json_t *v, json_type t, const char *what)
{
	if (json_typeof(v) == t)
		return 0;
	return fail(a, SBX_E_PARSE, "expected %s, got %s", what, type_name(v));
}

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* Unknown keys are errors: a misspelt key must never silently widen or narrow a profile. */
static int check_keys(const struct at *a, json_t *obj, const char *const *allowed,
		      const char *what, const char *expected)
{
	for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
		const char *k = json_object_iter_key(it);
		struct at c;

		if (in_list(k, allowed))
			continue;
		at_key(&c, a, k);
		return fail(&c, SBX_E_PARSE, "unknown key \"%s\" in %s (expected %s)", k, what,
			    expected);
	}
	return 0;
}

static int get_required(const struct at *a, json_t *obj, const char *key, const char *what,
			json_t **out)
{
	*out = json_object_get(obj, key);
	if (*out)
		return 0;
	return fail(a, SBX_E_PARSE, "missing required key \"%s\" in %s", key, what);
}

/* Optional keys: absent and null both mean "not given", as for serde's Option. */
static json_t *get_optional(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_null(v) ? NULL : v;
}

static int get_string(const struct at *a, json_t *v, const char **out)
{
	int r = want_type(a, v, JSON_STRING, "a string");

	if (r)
		return r;
	if (strlen(json_string_value(v)) != json_string_length(v))
		return fail(a, SBX_E_PARSE, "string contains a NUL character");
	*out = json_string_value(v);
	return 0;
}

static int key_string(const struct at *a, json_t *obj, const char *key, const char *what,
		      const char **out)
{
	struct at c;
	json_t *v;
	int r = get_required(a, obj, key, what, &v);

	if (r)
		return r;
	at_key(&c, a, key);
	return get_string(&c, v, out);
}

/* ---- paths ---------------------------------------------------------------------------------- */

static int check_length(const struct at *a, const char *s, const char *what)
{
	size_t n = strlen(s);

	if (n == 0)
		return fail(a, SBX_E_INVALID, "empty %s", what);
	if (n > SBX_MAX_PATH)
		return fail(a, SBX_E_TOO_BIG, "%s is %zu bytes long (limit %u)", what, n,
			    SBX_MAX_PATH);
	return 0;
}

static int relative_path_error(const struct at *a, const char *s)
{
	int r;

	if (s[0] == '~') {
		r = fail(a, SBX_E_INVALID,
			 "home-relative path \"%s\" (paths must be absolute; \"~\" is not expanded)",
			 s);
		return sbx_diag_hint(a->d, r, "write the home directory out in full");
	}
	if (strncmp(s, "file:", 5) == 0) {
		r = fail(a, SBX_E_INVALID, "URI \"%s\" (paths must be absolute paths, not URIs)", s);
		return sbx_diag_hint(a->d, r, "write the path without the file:// prefix");
	}
	r = fail(a, SBX_E_INVALID, "relative path \"%s\" (paths must be absolute)", s);
	return sbx_diag_hint(a->d, r,
			     "for a path under the project root use {\"type\":\"special\",\"value\":"
			     "{\"kind\":\"project_roots\",\"subpath\":\"%s\"}}",
			     s);
}

/*
 * An absolute path: POSIX paths are normalized lexically; Windows paths are kept as written
 * (they stay symbolic on other hosts and never resolve there).
 */
static int absolute_path(const struct at *a, const char *s, char **out)
{
	int r = check_length(a, s, "path");

	if (r)
		return r;
	if (sbx_path_is_windows_abs(s)) {
		*out = strdup(s);
		return *out ? 0 : -ENOMEM;
	}
	if (!sbx_path_is_posix_abs(s))
		return relative_path_error(a, s);
	return sbx_path_normalize(s, out);
}

/* ---- FileSystemSandboxEntry --------------------------------------------------------------- */

struct kind_name {
	const char *name;
	enum sbx_special sp;
	bool has_subpath;
};

static const struct kind_name special_kinds[] = {
	{ "root", SBX_SP_ROOT, false },
	{ "minimal", SBX_SP_MINIMAL, false },
	{ "project_roots", SBX_SP_PROJECT_ROOTS, true },
	{ "current_working_directory", SBX_SP_PROJECT_ROOTS, true }, /* input alias */
	{ "tmpdir", SBX_SP_TMPDIR, false },
	{ "slash_tmp", SBX_SP_SLASH_TMP, false },
	{ "unknown", SBX_SP_UNKNOWN, true },
};

static const struct kind_name *find_kind(const char *s)
{
	for (size_t i = 0; i < sizeof(special_kinds) / sizeof(special_kinds[0]); i++)
		if (strcmp(s, special_kinds[i].name) == 0)
			return &special_kinds[i];
	return NULL;
}

static int unknown_kind(const struct at *a, const char *s)
{
	int r = fail(a, SBX_E_PARSE,
		     "unknown special kind \"%s\" (expected root, minimal, project_roots, tmpdir, "
		     "slash_tmp or unknown)",
		     s);

	if (s[0] == ':' && find_kind(s + 1))
		return sbx_diag_hint(a->d, r, "write the kind without the colon: \"%s\"", s + 1);
	if (strcmp(s, "workspace_roots") == 0 || strcmp(s, ":workspace_roots") == 0 ||
	    strcmp(s, ":project_roots") == 0)
		return sbx_diag_hint(a->d, r,
				     "the JSON kind is \"project_roots\" (\"%s\" is a config.toml "
				     "token)",
				     s);
	return sbx_diag_hint(a->d, r,
			     "use {\"kind\":\"unknown\",\"path\":\":%s\"} for forward-compatible "
			     "tokens",
			     s[0] == ':' ? s + 1 : s);
}

static int load_subpath(const struct at *a, json_t *obj, struct sbx_entry *e)
{
	json_t *v = get_optional(obj, "subpath");
	const char *s;
	struct at c;
	int r;

	if (!v)
		return 0;
	at_key(&c, a, "subpath");
	r = get_string(&c, v, &s);
	if (r)
		return r;
	if (strlen(s) > SBX_MAX_PATH)
		return fail(&c, SBX_E_TOO_BIG, "subpath is %zu bytes long (limit %u)", strlen(s),
			    SBX_MAX_PATH);
	if (sbx_path_is_posix_abs(s) || sbx_path_is_windows_abs(s))
		return fail(&c, SBX_E_INVALID,
			    "absolute subpath \"%s\" (a subpath is relative to the project root)",
			    s);
	e->subpath = strdup(s);
	return e->subpath ? 0 : -ENOMEM;
}

/* FileSystemSpecialPath, tagged with "kind". */
static int load_special(const struct at *a, json_t *v, struct sbx_entry *e)
{
	static const char *const with_sub[] = { "kind", "subpath", NULL };
	static const char *const unknown[] = { "kind", "path", "subpath", NULL };
	static const char *const bare[] = { "kind", NULL };
	const struct kind_name *k;
	const char *s;
	struct at c;
	int r;

	r = want_type(a, v, JSON_OBJECT, "a special path object {\"kind\":...}");
	if (!r)
		r = key_string(a, v, "kind", "a special path", &s);
	if (r)
		return r;
	k = find_kind(s);
	if (!k) {
		at_key(&c, a, "kind");
		return unknown_kind(&c, s);
	}
	e->kind = SBX_SPECIAL;
	e->special = k->sp;
	if (k->sp == SBX_SP_UNKNOWN) {
		r = check_keys(a, v, unknown, "an unknown special path",
			       "\"kind\", \"path\" and \"subpath\"");
		if (!r)
			r = key_string(a, v, "path", "an unknown special path", &s);
		if (r)
			return r;
		e->path = strdup(s);
		if (!e->path)
			return -ENOMEM;
	} else if (k->has_subpath) {
		r = check_keys(a, v, with_sub, "a project_roots special path",
			       "\"kind\" and \"subpath\"");
	} else {
		r = check_keys(a, v, bare, "this special path", "only \"kind\"");
	}
	return r ? r : load_subpath(a, v, e);
}

/* FileSystemPath, tagged with "type". */
static int load_fs_path(const struct at *a, json_t *v, struct sbx_entry *e)
{
	static const char *const k_path[] = { "type", "path", NULL };
	static const char *const k_glob[] = { "type", "pattern", NULL };
	static const char *const k_special[] = { "type", "value", NULL };
	const char *type, *s;
	struct at c;
	json_t *val;
	int r;

	r = want_type(a, v, JSON_OBJECT, "a path object {\"type\":...}");
	if (!r)
		r = key_string(a, v, "type", "a path", &type);
	if (r)
		return r;
	if (strcmp(type, "path") == 0) {
		r = check_keys(a, v, k_path, "a path", "\"type\" and \"path\"");
		if (!r)
			r = key_string(a, v, "path", "a path", &s);
		if (r)
			return r;
		e->kind = SBX_PATH;
		at_key(&c, a, "path");
		return absolute_path(&c, s, &e->path);
	}
	if (strcmp(type, "glob_pattern") == 0) {
		r = check_keys(a, v, k_glob, "a glob_pattern", "\"type\" and \"pattern\"");
		if (!r)
			r = key_string(a, v, "pattern", "a glob_pattern", &s);
		at_key(&c, a, "pattern");
		if (!r)
			r = check_length(&c, s, "pattern");
		if (r)
			return r;
		e->kind = SBX_GLOB;
		e->path = strdup(s);
		return e->path ? 0 : -ENOMEM;
	}
	if (strcmp(type, "special") == 0) {
		r = check_keys(a, v, k_special, "a special path", "\"type\" and \"value\"");
		if (!r)
			r = get_required(a, v, "value", "a special path", &val);
		if (r)
			return r;
		at_key(&c, a, "value");
		return load_special(&c, val, e);
	}
	at_key(&c, a, "type");
	return fail(&c, SBX_E_PARSE,
		    "unknown path type \"%s\" (expected path, glob_pattern or special)", type);
}

static int load_access(const struct at *a, json_t *v, enum sbx_access *out)
{
	const char *s;
	int r = get_string(a, v, &s);

	if (r)
		return r;
	if (strcmp(s, "read") == 0)
		*out = SBX_READ;
	else if (strcmp(s, "write") == 0)
		*out = SBX_WRITE;
	else if (strcmp(s, "deny") == 0 || strcmp(s, "none") == 0)
		*out = SBX_DENY;
	else
		return fail(a, SBX_E_PARSE,
			    "unknown access \"%s\" (expected read, write, deny or none)", s);
	return 0;
}

static int load_missing(const struct at *a, json_t *obj, bool *skip)
{
	json_t *v = get_optional(obj, "missing_path_behavior");
	const char *s;
	struct at c;
	int r;

	*skip = false;
	if (!v)
		return 0;
	at_key(&c, a, "missing_path_behavior");
	r = get_string(&c, v, &s);
	if (r)
		return r;
	if (strcmp(s, "skip") != 0)
		return fail(&c, SBX_E_PARSE,
			    "unknown missing_path_behavior \"%s\" (the only value is \"skip\")", s);
	*skip = true;
	return 0;
}

static int load_entry(const struct at *a, json_t *v, struct sbx_entry *e)
{
	static const char *const keys[] = { "path", "access", "missing_path_behavior", NULL };
	json_t *path, *access;
	struct at c;
	int r;

	r = want_type(a, v, JSON_OBJECT, "an entry object {\"path\":...,\"access\":...}");
	if (!r)
		r = check_keys(a, v, keys, "an entry",
			       "\"path\", \"access\" and \"missing_path_behavior\"");
	if (!r)
		r = get_required(a, v, "path", "an entry", &path);
	if (!r)
		r = get_required(a, v, "access", "an entry", &access);
	if (r)
		return r;
	at_key(&c, a, "path");
	r = load_fs_path(&c, path, e);
	if (r)
		return r;
	at_key(&c, a, "access");
	r = load_access(&c, access, &e->access);
	if (r)
		return r;
	if (e->kind == SBX_GLOB && e->access != SBX_DENY) {
		r = fail(&c, SBX_E_INVALID, "glob_pattern entries support only deny access, got \"%s\"",
			 sbx_access_name(e->access));
		return sbx_diag_hint(a->d, r,
				     "use an exact path entry to grant %s access to a subtree",
				     sbx_access_name(e->access));
	}
	return load_missing(a, v, &e->skip_missing);
}

static int push_owned(const struct at *a, struct sbx_fs *out, struct sbx_entry *e)
{
	int r = sbx_fs_push(out, e);

	sbx_entry_clear(e);
	if (r == SBX_E_TOO_BIG)
		return fail(a, r, "too many entries (limit %u)", SBX_MAX_ENTRIES);
	return r;
}

int sbx_entries_load_jv(json_t *v, const char *name, const char *pointer, struct sbx_fs *out,
			struct sbx_diag *d)
{
	struct at a = { .name = name, .d = d };
	size_t n;
	int r;

	snprintf(a.ptr, sizeof(a.ptr), "%s", pointer ? pointer : "");
	r = want_type(&a, v, JSON_ARRAY, "an array of entries");
	if (r)
		return r;
	n = json_array_size(v);
	if (n > SBX_MAX_ENTRIES)
		return fail(&a, SBX_E_TOO_BIG, "%zu entries (limit %u)", n, SBX_MAX_ENTRIES);
	for (size_t i = 0; i < n; i++) {
		struct sbx_entry e = { 0 };
		struct at c;

		at_index(&c, &a, i);
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

static int load_depth(const struct at *a, json_t *obj, unsigned *out)
{
	json_t *v = get_optional(obj, "glob_scan_max_depth");
	json_int_t n;
	struct at c;

	*out = 0;
	if (!v)
		return 0;
	at_key(&c, a, "glob_scan_max_depth");
	if (!json_is_integer(v))
		return fail(&c, SBX_E_PARSE, "expected a positive integer, got %s", type_name(v));
	n = json_integer_value(v);
	if (n < 1 || n > MAX_GLOB_DEPTH)
		return fail(&c, SBX_E_INVALID,
			    "glob_scan_max_depth is %lld (expected 1 to %d; omit it for no limit)",
			    (long long)n, MAX_GLOB_DEPTH);
	*out = (unsigned)n;
	return 0;
}

/* The legacy {"read":[...],"write":[...]} lists of absolute paths. */
static int load_path_list(const struct at *a, json_t *obj, const char *key, enum sbx_access acc,
			  struct sbx_fs *out)
{
	json_t *v = get_optional(obj, key);
	struct at c;
	int r;

	if (!v)
		return 0;
	at_key(&c, a, key);
	r = want_type(&c, v, JSON_ARRAY, "an array of absolute paths");
	if (!r && json_array_size(v) > SBX_MAX_ENTRIES)
		r = fail(&c, SBX_E_TOO_BIG, "%zu paths (limit %u)", json_array_size(v),
			 SBX_MAX_ENTRIES);
	for (size_t i = 0; !r && i < json_array_size(v); i++) {
		struct sbx_entry e = { .kind = SBX_PATH, .access = acc };
		const char *s;
		struct at ci;

		at_index(&ci, &c, i);
		r = get_string(&ci, json_array_get(v, i), &s);
		if (!r)
			r = absolute_path(&ci, s, &e.path);
		if (r)
			sbx_entry_clear(&e);
		else
			r = push_owned(&ci, out, &e);
	}
	return r;
}

static int load_fs_permissions(const struct at *a, json_t *v, struct sbx_fs *out)
{
	static const char *const canonical[] = { "entries", "glob_scan_max_depth", NULL };
	static const char *const legacy[] = { "read", "write", NULL };
	json_t *entries;
	struct at c;
	int r;

	r = want_type(a, v, JSON_OBJECT, "a file_system object");
	if (r)
		return r;
	out->kind = SBX_FS_RESTRICTED;
	if (!json_object_get(v, "entries") && !json_object_get(v, "glob_scan_max_depth")) {
		r = check_keys(a, v, legacy, "file_system permissions",
			       "\"entries\" and \"glob_scan_max_depth\", or \"read\" and \"write\"");
		if (!r)
			r = load_path_list(a, v, "read", SBX_READ, out);
		return r ? r : load_path_list(a, v, "write", SBX_WRITE, out);
	}
	r = check_keys(a, v, canonical, "file_system permissions",
		       "\"entries\" and \"glob_scan_max_depth\"");
	if (!r)
		r = get_required(a, v, "entries", "file_system permissions", &entries);
	if (!r)
		r = load_depth(a, v, &out->glob_depth);
	if (r)
		return r;
	at_key(&c, a, "entries");
	return sbx_entries_load_jv(entries, c.name, c.ptr, out, c.d);
}

int sbx_fs_permissions_load_jv(json_t *v, const char *name, const char *pointer,
			       struct sbx_fs *out, struct sbx_diag *d)
{
	struct at a = { .name = name, .d = d };

	snprintf(a.ptr, sizeof(a.ptr), "%s", pointer ? pointer : "");
	return load_fs_permissions(&a, v, out);
}
