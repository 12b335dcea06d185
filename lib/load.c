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
#define PTR_MAX	       sizeof(((struct sbx_diag *)0)->pointer)

/*
 * Where a value sits: the input's name, the diagnostic to fill, and the step from the enclosing
 * value (a member name, or an array index). The JSON pointer is rendered from this chain only
 * when an error is reported, so the walk over a large profile formats no pointers at all.
 */
struct at {
	const char *name;
	struct sbx_diag *d;
	const struct at *up; /* NULL at the start of the walk */
	const char *key;     /* the member name; NULL for an array element */
	size_t index;
	const char *base; /* at the start: the pointer of the value the walk began at */
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

/* The JSON pointer of a (dst holds PTR_MAX bytes; a long pointer is cut as it always was). */
static void render_ptr(const struct at *a, char *dst)
{
	char num[24];

	if (!a->up) {
		snprintf(dst, PTR_MAX, "%s", a->base ? a->base : "");
		return;
	}
	render_ptr(a->up, dst);
	if (a->key) {
		ptr_append(dst, a->key);
	} else {
		snprintf(num, sizeof(num), "%zu", a->index);
		ptr_append(dst, num);
	}
}

static void at_key(struct at *c, const struct at *p, const char *key)
{
	*c = (struct at){.name = p->name, .d = p->d, .up = p, .key = key};
}

static void at_index(struct at *c, const struct at *p, size_t i)
{
	*c = (struct at){.name = p->name, .d = p->d, .up = p, .index = i};
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

__attribute__((format(printf, 3, 4))) static int fail(const struct at *a, int code, const char *fmt,
						      ...)
{
	char ptr[PTR_MAX];
	va_list ap;

	if (!a->d)
		return code;
	render_ptr(a, ptr);
	diag_place(a->d, a->name, ptr);
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
static int check_keys(const struct at *a, json_t *obj, const char *const *allowed, const char *what,
		      const char *expected)
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

static int get_bool(const struct at *a, json_t *v, bool *out)
{
	if (!json_is_boolean(v))
		return fail(a, SBX_E_PARSE, "expected true or false, got %s", type_name(v));
	*out = json_is_true(v);
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

/*
 * One pass over obj for check_keys() and the lookups after it: an unknown key is the same error,
 * found in the same order, and the value of allowed[i] lands in vals[i] (left NULL when absent).
 */
static int scan_keys(const struct at *a, json_t *obj, const char *const *allowed, json_t **vals,
		     const char *what, const char *expected)
{
	for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
		const char *k = json_object_iter_key(it);
		size_t i = 0;
		struct at c;

		while (allowed[i] && strcmp(k, allowed[i]) != 0)
			i++;
		if (!allowed[i]) {
			at_key(&c, a, k);
			return fail(&c, SBX_E_PARSE, "unknown key \"%s\" in %s (expected %s)", k,
				    what, expected);
		}
		/* A key holding a NUL (built by a caller, never parsed) is none json_object_get finds. */
		if (json_object_iter_key_len(it) == strlen(k))
			vals[i] = json_object_iter_value(it);
	}
	return 0;
}

/* get_required() for a value scan_keys() found (NULL when the key is absent). */
static int member_required(const struct at *a, json_t *v, const char *key, const char *what,
			   json_t **out)
{
	*out = v;
	if (v)
		return 0;
	return fail(a, SBX_E_PARSE, "missing required key \"%s\" in %s", key, what);
}

/* key_string() for a value scan_keys() found. */
static int member_string(const struct at *a, json_t *v, const char *key, const char *what,
			 const char **out)
{
	struct at c;
	int r = member_required(a, v, key, what, &v);

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
		r = fail(
			a, SBX_E_INVALID,
			"home-relative path \"%s\" (paths must be absolute; \"~\" is not expanded)",
			s);
		return sbx_diag_hint(a->d, r, "write the home directory out in full");
	}
	if (strncmp(s, "file:", 5) == 0) {
		r = fail(a, SBX_E_INVALID, "URI \"%s\" (paths must be absolute paths, not URIs)",
			 s);
		return sbx_diag_hint(a->d, r, "write the path without the file:// prefix");
	}
	r = fail(a, SBX_E_INVALID, "relative path \"%s\" (paths must be absolute)", s);
	return sbx_diag_hint(
		a->d, r,
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
	{"root", SBX_SP_ROOT, false},
	{"minimal", SBX_SP_MINIMAL, false},
	{"project_roots", SBX_SP_PROJECT_ROOTS, true},
	{"current_working_directory", SBX_SP_PROJECT_ROOTS, true}, /* input alias */
	{"tmpdir", SBX_SP_TMPDIR, false},
	{"slash_tmp", SBX_SP_SLASH_TMP, false},
	{"unknown", SBX_SP_UNKNOWN, true},
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
	static const char *const with_sub[] = {"kind", "subpath", NULL};
	static const char *const unknown[] = {"kind", "path", "subpath", NULL};
	static const char *const bare[] = {"kind", NULL};
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
	static const char *const k_path[] = {"type", "path", NULL};
	static const char *const k_glob[] = {"type", "pattern", NULL};
	static const char *const k_special[] = {"type", "value", NULL};
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
		json_t *vals[2] = {NULL, NULL};

		r = scan_keys(a, v, k_path, vals, "a path", "\"type\" and \"path\"");
		if (!r)
			r = member_string(a, vals[1], "path", "a path", &s);
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

/* v is the member's value, NULL when absent; null means absent too. */
static int load_missing(const struct at *a, json_t *v, bool *skip)
{
	const char *s;
	struct at c;
	int r;

	*skip = false;
	if (!v || json_is_null(v))
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
	static const char *const keys[] = {"path", "access", "missing_path_behavior", NULL};
	json_t *vals[3] = {NULL, NULL, NULL}, *path, *access;
	struct at c;
	int r;

	r = want_type(a, v, JSON_OBJECT, "an entry object {\"path\":...,\"access\":...}");
	if (!r)
		r = scan_keys(a, v, keys, vals, "an entry",
			      "\"path\", \"access\" and \"missing_path_behavior\"");
	if (!r)
		r = member_required(a, vals[0], "path", "an entry", &path);
	if (!r)
		r = member_required(a, vals[1], "access", "an entry", &access);
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
		r = fail(&c, SBX_E_INVALID,
			 "glob_pattern entries support only deny access, got \"%s\"",
			 sbx_access_name(e->access));
		return sbx_diag_hint(a->d, r,
				     "use an exact path entry to grant %s access to a subtree",
				     sbx_access_name(e->access));
	}
	return load_missing(a, vals[2], &e->skip_missing);
}

/* Moves e into out: its strings change owner instead of being copied and freed. */
static int push_owned(const struct at *a, struct sbx_fs *out, struct sbx_entry *e)
{
	struct sbx_entry shell = *e;
	struct sbx_entry *slot;
	int r;

	shell.path = shell.subpath = NULL;
	r = sbx_fs_push(out, &shell);
	if (r) {
		sbx_entry_clear(e);
		if (r == SBX_E_TOO_BIG)
			return fail(a, r, "too many entries (limit %u)", SBX_MAX_ENTRIES);
		return r;
	}
	slot = &out->entries[out->n - 1];
	slot->path = e->path;
	slot->subpath = e->subpath;
	memset(e, 0, sizeof(*e));
	return 0;
}

static int load_entries(const struct at *a, json_t *v, struct sbx_fs *out)
{
	size_t n;
	int r;

	r = want_type(a, v, JSON_ARRAY, "an array of entries");
	if (r)
		return r;
	n = json_array_size(v);
	if (n > SBX_MAX_ENTRIES)
		return fail(a, SBX_E_TOO_BIG, "%zu entries (limit %u)", n, SBX_MAX_ENTRIES);
	for (size_t i = 0; i < n; i++) {
		struct sbx_entry e = {0};
		struct at c;

		at_index(&c, a, i);
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
	struct at a = {.name = name, .d = d, .base = pointer};

	return load_entries(&a, v, out);
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
		struct sbx_entry e = {.kind = SBX_PATH, .access = acc};
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
	static const char *const canonical[] = {"entries", "glob_scan_max_depth", NULL};
	static const char *const legacy[] = {"read", "write", NULL};
	json_t *entries;
	struct at c;
	int r;

	r = want_type(a, v, JSON_OBJECT, "a file_system object");
	if (r)
		return r;
	out->kind = SBX_FS_RESTRICTED;
	if (!json_object_get(v, "entries") && !json_object_get(v, "glob_scan_max_depth")) {
		r = check_keys(
			a, v, legacy, "file_system permissions",
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
	return load_entries(&c, entries, out);
}

int sbx_fs_permissions_load_jv(json_t *v, const char *name, const char *pointer, struct sbx_fs *out,
			       struct sbx_diag *d)
{
	struct at a = {.name = name, .d = d, .base = pointer};

	return load_fs_permissions(&a, v, out);
}

/* ---- PermissionProfile -------------------------------------------------------------------- */

static int load_network_mode(const struct at *a, json_t *v, bool *enabled)
{
	const char *s;
	int r = want_type(a, v, JSON_STRING, "\"restricted\" or \"enabled\"");

	if (!r)
		r = get_string(a, v, &s);
	if (r)
		return r;
	if (strcmp(s, "enabled") != 0 && strcmp(s, "restricted") != 0)
		return fail(a, SBX_E_PARSE,
			    "unknown network \"%s\" (expected \"restricted\" or \"enabled\")", s);
	*enabled = strcmp(s, "enabled") == 0;
	return 0;
}

static int key_network_mode(const struct at *a, json_t *obj, const char *what, bool *enabled)
{
	struct at c;
	json_t *v;
	int r = get_required(a, obj, "network", what, &v);

	if (r)
		return r;
	at_key(&c, a, "network");
	return load_network_mode(&c, v, enabled);
}

/* ManagedFileSystemPermissions: {"type":"restricted","entries":[...]} or {"type":"unrestricted"}.
 */
static int load_managed_fs(const struct at *a, json_t *v, struct sbx_fs *fs)
{
	static const char *const restricted[] = {"type", "entries", "glob_scan_max_depth", NULL};
	static const char *const unrestricted[] = {"type", NULL};
	const char *type;
	json_t *entries;
	struct at c;
	int r;

	r = want_type(a, v, JSON_OBJECT, "a file_system object");
	if (r)
		return r;
	if (!json_object_get(v, "type")) {
		r = fail(a, SBX_E_PARSE, "missing required key \"type\" in file_system");
		return sbx_diag_hint(a->d, r,
				     "add \"type\":\"restricted\" (with \"entries\") or "
				     "\"type\":\"unrestricted\"");
	}
	r = key_string(a, v, "type", "file_system", &type);
	if (r)
		return r;
	if (strcmp(type, "unrestricted") == 0) {
		fs->kind = SBX_FS_UNRESTRICTED;
		return check_keys(a, v, unrestricted, "an unrestricted file_system",
				  "only \"type\"");
	}
	if (strcmp(type, "restricted") != 0) {
		at_key(&c, a, "type");
		return fail(&c, SBX_E_PARSE,
			    "unknown file_system type \"%s\" (expected restricted or unrestricted)",
			    type);
	}
	fs->kind = SBX_FS_RESTRICTED;
	r = check_keys(a, v, restricted, "a restricted file_system",
		       "\"type\", \"entries\" and \"glob_scan_max_depth\"");
	if (!r)
		r = get_required(a, v, "entries", "a restricted file_system", &entries);
	if (!r)
		r = load_depth(a, v, &fs->glob_depth);
	if (r)
		return r;
	at_key(&c, a, "entries");
	return load_entries(&c, entries, fs);
}

static int load_managed(const struct at *a, json_t *root, struct sbx_profile *out)
{
	static const char *const keys[] = {"type", "file_system", "network", NULL};
	json_t *fs;
	struct at c;
	int r;

	out->type = SBX_MANAGED;
	r = check_keys(a, root, keys, "a managed profile",
		       "\"type\", \"file_system\" and \"network\"");
	if (!r)
		r = get_required(a, root, "file_system", "a managed profile", &fs);
	if (!r)
		r = key_network_mode(a, root, "a managed profile", &out->network);
	if (r)
		return r;
	at_key(&c, a, "file_system");
	return load_managed_fs(&c, fs, &out->fs);
}

static int load_tagged(const struct at *a, json_t *root, const char *type, struct sbx_profile *out)
{
	static const char *const k_disabled[] = {"type", NULL};
	static const char *const k_external[] = {"type", "network", NULL};
	struct at c;
	int r;

	if (strcmp(type, "managed") == 0)
		return load_managed(a, root, out);
	if (strcmp(type, "disabled") == 0) {
		out->type = SBX_DISABLED;
		out->fs.kind = SBX_FS_UNRESTRICTED;
		out->network = true;
		return check_keys(a, root, k_disabled, "a disabled profile", "only \"type\"");
	}
	if (strcmp(type, "external") == 0) {
		out->type = SBX_EXTERNAL;
		out->fs.kind = SBX_FS_EXTERNAL;
		r = check_keys(a, root, k_external, "an external profile",
			       "\"type\" and \"network\"");
		return r ? r : key_network_mode(a, root, "an external profile", &out->network);
	}
	at_key(&c, a, "type");
	return fail(&c, SBX_E_PARSE,
		    "unknown profile type \"%s\" (expected managed, disabled or external, or a "
		    "legacy read-only, workspace-write, danger-full-access or external-sandbox)",
		    type);
}

/* {"enabled":bool|null}|null as in the rollout shape and AdditionalPermissionProfile. */
static int load_network_flag(const struct at *a, json_t *obj, int *out)
{
	static const char *const keys[] = {"enabled", NULL};
	json_t *v = get_optional(obj, "network");
	json_t *en;
	bool b = false;
	struct at c;
	int r;

	*out = -1;
	if (!v)
		return 0;
	at_key(&c, a, "network");
	r = want_type(&c, v, JSON_OBJECT, "a network object {\"enabled\":true|false}");
	if (!r)
		r = check_keys(&c, v, keys, "network", "only \"enabled\"");
	en = r ? NULL : get_optional(v, "enabled");
	if (r || !en)
		return r;
	{
		struct at ce;

		at_key(&ce, &c, "enabled");
		r = get_bool(&ce, en, &b);
	}
	if (!r)
		*out = b;
	return r;
}

/* The shape shared by the older rollout profile and AdditionalPermissionProfile. */
static int load_untagged(const struct at *a, json_t *root, const char *what, int *network,
			 bool *has_fs, struct sbx_fs *fs)
{
	static const char *const keys[] = {"network", "file_system", NULL};
	json_t *v;
	struct at c;
	int r;

	r = check_keys(a, root, keys, what, "\"network\" and \"file_system\"");
	if (!r)
		r = load_network_flag(a, root, network);
	if (r)
		return r;
	fs->kind = SBX_FS_RESTRICTED;
	v = get_optional(root, "file_system");
	*has_fs = v != NULL;
	if (!v)
		return 0;
	at_key(&c, a, "file_system");
	return load_fs_permissions(&c, v, fs);
}

static int load_rollout(const struct at *a, json_t *root, struct sbx_profile *out)
{
	const char *what = "a profile of the older rollout shape (no \"type\")";
	int network = -1, r;
	bool has_fs;

	out->type = SBX_MANAGED;
	r = load_untagged(a, root, what, &network, &has_fs, &out->fs);
	out->network = network == 1;
	return r;
}

/* ---- legacy SandboxPolicy ----------------------------------------------------------------- */

static const char *const legacy_types[] = {"danger-full-access", "read-only", "external-sandbox",
					   "workspace-write", NULL};

static int key_bool(const struct at *a, json_t *obj, const char *key, bool *out)
{
	json_t *v = get_optional(obj, key);
	struct at c;

	*out = false;
	if (!v)
		return 0;
	at_key(&c, a, key);
	return get_bool(&c, v, out);
}

static int load_writable_roots(const struct at *a, json_t *obj, struct sbx_legacy *l)
{
	json_t *v = get_optional(obj, "writable_roots");
	size_t n;
	struct at c;
	int r;

	if (!v)
		return 0;
	at_key(&c, a, "writable_roots");
	r = want_type(&c, v, JSON_ARRAY, "an array of absolute paths");
	if (r)
		return r;
	n = json_array_size(v);
	if (n > SBX_MAX_ENTRIES)
		return fail(&c, SBX_E_TOO_BIG, "%zu writable roots (limit %u)", n, SBX_MAX_ENTRIES);
	l->writable_roots = calloc(n ? n : 1, sizeof(char *));
	if (!l->writable_roots)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const char *s;
		struct at ci;

		at_index(&ci, &c, i);
		r = get_string(&ci, json_array_get(v, i), &s);
		if (!r)
			r = absolute_path(&ci, s, &l->writable_roots[i]);
		if (r)
			return r;
		l->n_writable_roots++;
	}
	return 0;
}

static int load_external_sandbox(const struct at *a, json_t *root, struct sbx_legacy *l)
{
	static const char *const keys[] = {"type", "network_access", NULL};
	json_t *v = get_optional(root, "network_access");
	struct at c;
	int r;

	l->type = SBX_LEGACY_EXTERNAL_SANDBOX;
	r = check_keys(a, root, keys, "an external-sandbox policy",
		       "\"type\" and \"network_access\"");
	if (r || !v)
		return r;
	at_key(&c, a, "network_access");
	return load_network_mode(&c, v, &l->network_access);
}

static int load_workspace_write(const struct at *a, json_t *root, struct sbx_legacy *l)
{
	static const char *const keys[] = {"type",
					   "writable_roots",
					   "network_access",
					   "exclude_tmpdir_env_var",
					   "exclude_slash_tmp",
					   NULL};
	int r;

	l->type = SBX_LEGACY_WORKSPACE_WRITE;
	r = check_keys(a, root, keys, "a workspace-write policy",
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

static int load_legacy(const struct at *a, json_t *root, const char *type, struct sbx_legacy *l)
{
	static const char *const k_danger[] = {"type", NULL};
	static const char *const k_read_only[] = {"type", "network_access", NULL};
	struct at c;
	int r;

	if (strcmp(type, "danger-full-access") == 0) {
		l->type = SBX_LEGACY_DANGER_FULL_ACCESS;
		return check_keys(a, root, k_danger, "a danger-full-access policy",
				  "only \"type\"");
	}
	if (strcmp(type, "read-only") == 0) {
		l->type = SBX_LEGACY_READ_ONLY;
		r = check_keys(a, root, k_read_only, "a read-only policy",
			       "\"type\" and \"network_access\"");
		return r ? r : key_bool(a, root, "network_access", &l->network_access);
	}
	if (strcmp(type, "external-sandbox") == 0)
		return load_external_sandbox(a, root, l);
	if (strcmp(type, "workspace-write") == 0)
		return load_workspace_write(a, root, l);
	at_key(&c, a, "type");
	return fail(&c, SBX_E_PARSE,
		    "unknown sandbox policy type \"%s\" (expected read-only, workspace-write, "
		    "danger-full-access or external-sandbox)",
		    type);
}

/* ---- the text: pre-scan, jansson errors, positions ---------------------------------------- */

/* Line and column (1-based, in characters as jansson counts them) of byte offset off. */
static void position_of(const char *buf, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\n') {
			(*line)++;
			*col = 1;
		} else if ((c & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

__attribute__((format(printf, 5, 6))) static int
fail_at(struct sbx_diag *d, const char *name, const char *buf, size_t off, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return SBX_E_PARSE;
	diag_place(d, name, NULL);
	position_of(buf, off, &d->line, &d->col);
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return SBX_E_PARSE;
}

/*
 * What jansson would report without a position we can trust, found first: NUL bytes, invalid
 * UTF-8 (at the offending byte, not at the start of its string) and nesting deeper than
 * SBX_MAX_JSON_DEPTH (so a hostile file cannot make any later recursive walk deep).
 */
static int prescan(const char *buf, size_t len, const char *name, struct sbx_diag *d)
{
	const unsigned char *s = (const unsigned char *)buf;
	bool in_string = false, escaped = false;
	unsigned depth = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		return fail_at(d, name, buf, 0,
			       "byte order mark at the start of the input (JSON text must not have "
			       "one)");

	for (size_t i = 0; i < len;) {
		size_t n;

		/* Most of a large profile is path text: plain ASCII in a string changes no state. */
		if (in_string && !escaped) {
			while (i < len && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' &&
			       s[i] != '\\')
				i++;
			if (i == len)
				break;
		}
		n = sbx_utf8_len(s + i, len - i);
		if (s[i] == 0)
			return fail_at(d, name, buf, i,
				       "NUL byte in the input (expected JSON text)");
		if (n == 0)
			return fail_at(d, name, buf, i,
				       "invalid UTF-8 byte 0x%02x (JSON text must "
				       "be UTF-8)",
				       s[i]);
		if (in_string) {
			if (escaped)
				escaped = false;
			else if (s[i] == '\\')
				escaped = true;
			else if (s[i] == '"')
				in_string = false;
		} else if (s[i] == '"') {
			in_string = true;
		} else if (s[i] == '[' || s[i] == '{') {
			if (++depth > SBX_MAX_JSON_DEPTH)
				return fail_at(d, name, buf, i,
					       "nesting deeper than %d levels (a profile nests at "
					       "most 8)",
					       SBX_MAX_JSON_DEPTH);
		} else if ((s[i] == ']' || s[i] == '}') && depth > 0) {
			depth--;
		}
		i += n;
	}
	return 0;
}

/* jansson's error text ends in " near '<token>'"; the token tells where the error starts. */
static const char *near_token(const json_error_t *e, size_t *n)
{
	const char *t = strstr(e->text, " near '");
	size_t len;

	if (!t)
		return NULL;
	t += strlen(" near '");
	len = strlen(t);
	if (len == 0 || t[len - 1] != '\'')
		return NULL;
	*n = len - 1;
	return t;
}

static void strip_near(char *dst, size_t size, const char *text)
{
	const char *t = strstr(text, " near ");
	int n = t ? (int)(t - text) : (int)strlen(text);

	snprintf(dst, size, "%.*s", n, text);
}

static int jansson_error(const json_error_t *e, const char *buf, size_t len, const char *name,
			 struct sbx_diag *d)
{
	size_t tn = 0, off = (size_t)e->position;
	const char *tok = near_token(e, &tn);
	char what[JSON_ERROR_TEXT_LENGTH];
	int r;

	/* Point at the start of the offending token when the text confirms where it is. */
	if (tok && tn <= off && off <= len && memcmp(buf + off - tn, tok, tn) == 0)
		off -= tn;
	else if (off > 0)
		off--;
	strip_near(what, sizeof(what), e->text);
	switch (json_error_code(e)) {
	case json_error_duplicate_key:
		return fail_at(d, name, buf, off, "invalid JSON: duplicate key %.*s", (int)tn, tok);
	case json_error_null_character:
	case json_error_null_byte_in_key:
		return fail_at(d, name, buf, off,
			       "a string holds a NUL character (\\u0000), which no path or key "
			       "may contain");
	case json_error_premature_end_of_input:
		return fail_at(d, name, buf, len, "invalid JSON: unexpected end of input (%s)",
			       what);
	case json_error_end_of_input_expected:
		return fail_at(
			d, name, buf, off,
			"invalid JSON: unexpected text after the end of the top-level object");
	case json_error_invalid_syntax:
		if (strstr(what, "unexpected newline"))
			return fail_at(d, name, buf, off,
				       "invalid JSON: a newline inside a string (write it as \\n)");
		break;
	case json_error_numeric_overflow:
		return fail_at(d, name, buf, off, "invalid JSON: number out of range");
	default:
		break;
	}
	if (tok)
		r = fail_at(d, name, buf, off, "invalid JSON: %s near '%.*s'", what, (int)tn, tok);
	else
		r = fail_at(d, name, buf, off, "invalid JSON: %s", what);
	if (tok && (tok[0] == '}' || tok[0] == ']'))
		return sbx_diag_hint(d, r, "JSON allows no comma after the last element");
	if (strstr(what, "string or '}' expected"))
		return sbx_diag_hint(d, r, "JSON object keys are double-quoted strings");
	return r;
}

static size_t skip_ws(const char *buf, size_t len, size_t i)
{
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	return i;
}

/* Parses the text to a JSON object, or fills d with a file:line:col diagnostic. */
static int parse_object(const char *buf, size_t len, const char *name, json_t **root,
			struct sbx_diag *d)
{
	json_error_t e;
	size_t start;
	int r;

	*root = NULL;
	start = skip_ws(buf, len, 0);
	if (start == len)
		return fail_at(d, name, buf, start, "empty input (expected a JSON object)");
	r = prescan(buf, len, name, d);
	if (r)
		return r;
	*root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
	if (!*root)
		return jansson_error(&e, buf, len, name, d);
	if (json_is_object(*root))
		return 0;
	r = fail_at(d, name, buf, start, "expected a JSON object at the top level, got %s",
		    type_name(*root));
	json_decref(*root);
	*root = NULL;
	return r;
}

/* ---- JSON pointer to position (used only to place an error) ----------------------------- */

static size_t skip_string(const char *buf, size_t len, size_t i)
{
	for (i++; i < len && buf[i] != '"'; i++)
		if (buf[i] == '\\')
			i++;
	return i < len ? i + 1 : len;
}

static size_t skip_value(const char *buf, size_t len, size_t i)
{
	unsigned depth = 0;

	if (i < len && buf[i] == '"')
		return skip_string(buf, len, i);
	for (; i < len; i++) {
		char c = buf[i];

		if (c == '"') {
			i = skip_string(buf, len, i) - 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (depth == 0 &&
			   (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
			return i;
		}
	}
	return len;
}

static unsigned hex4(const char *s)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++) {
		char c = s[k];

		v = v * 16 + (unsigned)(c >= 'a'   ? c - 'a' + 10
					: c >= 'A' ? c - 'A' + 10
						   : c - '0');
	}
	return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80)
		return (size_t)(o[0] = (char)cp, 1);
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Decodes the (valid, already parsed) JSON string at buf[i] into out (at least its raw size). */
static size_t decode_string(const char *buf, size_t len, size_t i, char *out)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	size_t o = 0;

	for (i++; i < len && buf[i] != '"'; i++) {
		unsigned cp;

		if (buf[i] != '\\') {
			out[o++] = buf[i];
			continue;
		}
		i++;
		if (i < len && buf[i] != 'u') {
			const char *p = strchr(esc_in, buf[i]);

			out[o++] = p ? esc_out[p - esc_in] : buf[i];
			continue;
		}
		if (i + 4 >= len)
			break;
		cp = hex4(buf + i + 1);
		i += 4;
		if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < len && buf[i + 1] == '\\') {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(buf + i + 3) - 0xdc00);
			i += 6;
		}
		o += put_utf8(out + o, cp);
	}
	out[o] = '\0';
	return o;
}

/* The next reference token of pointer p, unescaped (~1 is "/", ~0 is "~"), into tok. */
static const char *next_token(const char *p, char *tok, size_t size)
{
	size_t o = 0;

	for (p++; *p && *p != '/'; p++) {
		char c = *p;

		if (c == '~' && (p[1] == '0' || p[1] == '1'))
			c = *++p == '0' ? '~' : '/';
		if (o + 1 < size)
			tok[o++] = c;
	}
	tok[o] = '\0';
	return p;
}

static bool member_find(const char *buf, size_t len, size_t *i, const char *key, char *scratch)
{
	size_t j = skip_ws(buf, len, *i + 1);

	while (j < len && buf[j] == '"') {
		size_t k = skip_string(buf, len, j);
		bool match = decode_string(buf, len, j, scratch) == strlen(key) &&
			     strcmp(scratch, key) == 0;

		j = skip_ws(buf, len, k);
		if (j >= len || buf[j] != ':')
			return false;
		j = skip_ws(buf, len, j + 1);
		if (match) {
			*i = j;
			return true;
		}
		j = skip_ws(buf, len, skip_value(buf, len, j));
		if (j >= len || buf[j] != ',')
			return false;
		j = skip_ws(buf, len, j + 1);
	}
	return false;
}

static bool element_find(const char *buf, size_t len, size_t *i, const char *index)
{
	char *end;
	unsigned long n = strtoul(index, &end, 10);
	size_t j = skip_ws(buf, len, *i + 1);

	if (*end || !*index)
		return false;
	for (; n > 0; n--) {
		j = skip_ws(buf, len, skip_value(buf, len, j));
		if (j >= len || buf[j] != ',')
			return false;
		j = skip_ws(buf, len, j + 1);
	}
	if (j >= len || buf[j] == ']')
		return false;
	*i = j;
	return true;
}

/* Byte offset where the value named by pointer starts in the text, or -1. */
static long locate(const char *buf, size_t len, const char *pointer)
{
	char tok[PTR_MAX];
	char *scratch = malloc(len + 1);
	size_t i = skip_ws(buf, len, 0);
	bool ok = scratch != NULL;

	while (ok && *pointer == '/') {
		pointer = next_token(pointer, tok, sizeof(tok));
		if (i < len && buf[i] == '{')
			ok = member_find(buf, len, &i, tok, scratch);
		else if (i < len && buf[i] == '[')
			ok = element_find(buf, len, &i, tok);
		else
			ok = false;
	}
	free(scratch);
	return ok ? (long)i : -1;
}

/* Turns a pointer-only diagnostic into "LINE:COL: /pointer: message" (error path only). */
static void place_pointer(const char *buf, size_t len, struct sbx_diag *d)
{
	char msg[sizeof(d->pointer) + sizeof(d->msg) + 2];
	long off;

	if (d && !d->msg[0]) /* only allocation failures leave no message */
		sbx_diag_set(d, -ENOMEM, "out of memory while loading the profile");
	if (!d || !d->file[0] || d->line > 0)
		return;
	off = locate(buf, len, d->pointer);
	if (off < 0)
		return;
	position_of(buf, (size_t)off, &d->line, &d->col);
	if (!d->pointer[0])
		return;
	snprintf(msg, sizeof(msg), "%s: %s", d->pointer, d->msg);
	memcpy(d->msg, msg, sizeof(d->msg) - 1);
	d->msg[sizeof(d->msg) - 1] = '\0';
}

/* ---- entry points ------------------------------------------------------------------------ */

static void at_root(struct at *a, const char *name, struct sbx_diag *d)
{
	memset(a, 0, sizeof(*a));
	a->name = name;
	a->d = d;
}

static int load_profile_root(const struct at *a, json_t *root, struct sbx_profile *out,
			     enum sbx_input_form *form, struct sbx_legacy *legacy_out)
{
	const char *type;
	struct at c;
	int r;

	*form = SBX_FORM_ROLLOUT;
	if (!json_object_get(root, "type"))
		return load_rollout(a, root, out);
	r = key_string(a, root, "type", "a profile", &type);
	if (r)
		return r;
	*form = SBX_FORM_PROFILE;
	if (!in_list(type, legacy_types))
		return load_tagged(a, root, type, out);
	if (!legacy_out) {
		at_key(&c, a, "type");
		r = fail(&c, SBX_E_INVALID,
			 "\"%s\" is a legacy SandboxPolicy, not a PermissionProfile", type);
		return sbx_diag_hint(
			a->d, r, "convert it first: sbxrun convert --to profile --cwd DIR FILE");
	}
	*form = SBX_FORM_LEGACY;
	return load_legacy(a, root, type, legacy_out);
}

int sbx_profile_load_buf(const char *buf, size_t len, const char *name, struct sbx_profile *out,
			 enum sbx_input_form *form, struct sbx_legacy *legacy_out,
			 struct sbx_diag *d)
{
	enum sbx_input_form dummy;
	json_t *root;
	struct at a;
	int r;

	memset(out, 0, sizeof(*out));
	if (legacy_out)
		memset(legacy_out, 0, sizeof(*legacy_out));
	sbx_diag_clear(d);
	at_root(&a, name, d);
	r = parse_object(buf, len, name, &root, d);
	if (r)
		return r;
	r = load_profile_root(&a, root, out, form ? form : &dummy, legacy_out);
	json_decref(root);
	if (r) {
		sbx_profile_free(out);
		sbx_legacy_free(legacy_out);
		place_pointer(buf, len, d);
	}
	return r;
}

int sbx_additional_load_buf(const char *buf, size_t len, const char *name,
			    struct sbx_additional *out, struct sbx_diag *d)
{
	const char *what = "an additional permission profile";
	json_t *root;
	struct at a;
	int r;

	memset(out, 0, sizeof(*out));
	out->network = -1;
	sbx_diag_clear(d);
	at_root(&a, name, d);
	r = parse_object(buf, len, name, &root, d);
	if (r)
		return r;
	r = load_untagged(&a, root, what, &out->network, &out->has_fs, &out->fs);
	if (r && json_object_get(root, "type"))
		sbx_diag_hint(d, r,
			      "this looks like a PermissionProfile; an additional profile "
			      "has only \"network\" and \"file_system\"");
	json_decref(root);
	if (r) {
		sbx_additional_free(out);
		place_pointer(buf, len, d);
	}
	return r;
}

int sbx_legacy_load_buf(const char *buf, size_t len, const char *name, struct sbx_legacy *out,
			struct sbx_diag *d)
{
	const char *type;
	json_t *root;
	struct at a;
	int r;

	memset(out, 0, sizeof(*out));
	sbx_diag_clear(d);
	at_root(&a, name, d);
	r = parse_object(buf, len, name, &root, d);
	if (r)
		return r;
	r = key_string(&a, root, "type", "a sandbox policy", &type);
	if (!r)
		r = load_legacy(&a, root, type, out);
	json_decref(root);
	if (r) {
		sbx_legacy_free(out);
		place_pointer(buf, len, d);
	}
	return r;
}

/* ---- reading files ------------------------------------------------------------------------ */

static int read_error(struct sbx_diag *d, const char *path, const char *what, int err)
{
	diag_place(d, path, NULL);
	return sbx_diag_set(d, -err, "cannot %s: %s", what, strerror(err));
}

static int too_big(struct sbx_diag *d, const char *path)
{
	diag_place(d, path, NULL);
	return sbx_diag_set(d, SBX_E_TOO_BIG, "larger than %u MiB, the limit for a profile",
			    SBX_MAX_PROFILE_BYTES >> 20);
}

/* Reads up to SBX_MAX_PROFILE_BYTES from fd; one byte more means the input is too big. */
static int read_bounded(int fd, const char *path, char **buf, size_t *len, struct sbx_diag *d)
{
	const size_t limit = (size_t)SBX_MAX_PROFILE_BYTES + 1;
	size_t cap = 64 * 1024, n = 0;
	char *b = malloc(cap + 1), *nb;
	ssize_t got;

	if (!b)
		return -ENOMEM;
	while (n < limit) {
		if (n == cap) {
			cap = cap * 2 < limit ? cap * 2 : limit;
			nb = realloc(b, cap + 1);
			if (!nb) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		got = read(fd, b + n, cap - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0) {
			int err = errno;

			free(b);
			return read_error(d, path, "read", err);
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	if (n >= limit) {
		free(b);
		return too_big(d, path);
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

int sbx_read_file(const char *path, char **buf, size_t *len, struct sbx_diag *d)
{
	struct stat st;
	int fd, r;

	*buf = NULL;
	*len = 0;
	sbx_diag_clear(d);
	if (strcmp(path, "-") == 0)
		return read_bounded(STDIN_FILENO, path, buf, len, d);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return read_error(d, path, "open", errno);
	if (fstat(fd, &st) < 0) {
		r = read_error(d, path, "stat", errno);
	} else if (S_ISDIR(st.st_mode)) {
		r = read_error(d, path, "read", EISDIR);
	} else if (S_ISREG(st.st_mode) && st.st_size > (off_t)SBX_MAX_PROFILE_BYTES) {
		r = too_big(d, path);
	} else {
		r = read_bounded(fd, path, buf, len, d);
	}
	close(fd);
	return r;
}
