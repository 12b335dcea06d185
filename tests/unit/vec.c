/* SPDX-License-Identifier: MIT */
/* vec.c - see vec.h. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "t.h"
#include "vec.h"

json_t *vec_load_all(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/codex-vectors.json", t_vectors_dir);
	return json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
}

json_t *vec_find(json_t *all, const char *id)
{
	size_t i;
	json_t *v;

	json_array_foreach(all, i, v)
		if (strcmp(json_string_value(json_object_get(v, "id")) ?: "", id) == 0)
			return v;
	return NULL;
}

static json_t *all_vectors;

static void free_vectors(void)
{
	json_decref(all_vectors);
}

json_t *vec_get(const char *id)
{
	json_t *v;

	if (!all_vectors) {
		all_vectors = vec_load_all();
		if (!all_vectors) {
			t_fail(__FILE__, __LINE__, "cannot load %s/codex-vectors.json",
			       t_vectors_dir);
			return NULL;
		}
		atexit(free_vectors);
	}
	v = vec_find(all_vectors, id);
	if (!v)
		t_fail(__FILE__, __LINE__, "vector %s is missing from the vectors file", id);
	return v;
}

/* ---- placeholder directories ------------------------------------------------------------- */

/* $FRESH and $FRESH2 are new, empty directories for every case (vec_fresh_reset). */
static const char *const names[] = { "$CWD", "$T", "$WS", "$REQ_CWD", "$LATER_CWD",
				     "$TMP", "$EXTRA", "$D", "$FRESH", "$FRESH2" };
#define N_NAMES (sizeof(names) / sizeof(names[0]))
static char base[PATH_MAX];
static char dirs[N_NAMES][PATH_MAX + 64];

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(p);
	return 0;
}

static void remove_base(void)
{
	if (base[0])
		nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void make_dirs(void)
{
	char tmpl[PATH_MAX];
	const char *tmp = getenv("TMPDIR");

	if (base[0])
		return;
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	snprintf(tmpl, sizeof(tmpl), "%s/sbx-vec-XXXXXX", tmp);
	if (!mkdtemp(tmpl) || !realpath(tmpl, base)) {
		t_fail(__FILE__, __LINE__, "cannot create a temporary directory: %s",
		       strerror(errno));
		snprintf(base, sizeof(base), "/nonexistent-sbx-vec");
		return;
	}
	atexit(remove_base);
	for (size_t i = 0; i < N_NAMES; i++) {
		char lower[32];
		size_t j;

		for (j = 0; names[i][j + 1] && j < sizeof(lower) - 1; j++)
			lower[j] = (char)(names[i][j + 1] | 0x20);
		lower[j] = '\0';
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", base, lower);
		mkdir(dirs[i], 0755);
	}
}

const char *vec_dir(const char *name)
{
	make_dirs();
	for (size_t i = 0; i < N_NAMES; i++)
		if (strcmp(names[i], name) == 0)
			return dirs[i];
	return NULL;
}

const char *vec_cwd(void)
{
	return vec_dir("$CWD");
}

static bool ident_char(char c)
{
	return (c >= 'A' && c <= 'Z') || c == '_';
}

char *vec_subst_str(const char *s)
{
	size_t cap = strlen(s) + 1, n = 0;
	char *out;

	make_dirs();
	for (const char *p = s; *p; p++)
		if (*p == '$')
			cap += PATH_MAX;
	out = malloc(cap);
	if (!out)
		return NULL;
	while (*s) {
		size_t i, len = 0;

		if (*s == '$') {
			while (ident_char(s[1 + len]))
				len++;
			for (i = 0; i < N_NAMES; i++)
				if (strlen(names[i]) == len + 1 && strncmp(names[i], s, len + 1) == 0)
					break;
			if (len && i < N_NAMES) {
				n += (size_t)snprintf(out + n, cap - n, "%s", dirs[i]);
				s += len + 1;
				continue;
			}
		}
		out[n++] = *s++;
	}
	out[n] = '\0';
	return out;
}

json_t *vec_subst(const json_t *v)
{
	json_t *out, *x;
	const char *k;
	char *s;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		s = vec_subst_str(json_string_value(v));
		out = s ? json_string(s) : NULL;
		free(s);
		return out;
	case JSON_ARRAY:
		out = json_array();
		json_array_foreach((json_t *)v, i, x)
			json_array_append_new(out, vec_subst(x));
		return out;
	case JSON_OBJECT:
		out = json_object();
		json_object_foreach((json_t *)v, k, x)
			json_object_set_new(out, k, vec_subst(x));
		return out;
	default:
		return json_deep_copy(v);
	}
}

char *vec_text(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
}

/* ---- model conversions -------------------------------------------------------------------- */

int vec_fs_policy(const json_t *raw, struct sbx_fs *fs)
{
	const char *kind = json_string_value(json_object_get(raw, "kind"));
	json_t *entries = json_object_get(raw, "entries"), *depth;
	struct sbx_diag d;
	int r = 0;

	memset(fs, 0, sizeof(*fs));
	sbx_diag_clear(&d);
	if (!kind)
		return -EINVAL;
	if (strcmp(kind, "restricted") == 0)
		fs->kind = SBX_FS_RESTRICTED;
	else if (strcmp(kind, "unrestricted") == 0)
		fs->kind = SBX_FS_UNRESTRICTED;
	else if (strcmp(kind, "external-sandbox") == 0)
		fs->kind = SBX_FS_EXTERNAL;
	else
		return -EINVAL;
	if (entries)
		r = sbx_entries_load_jv(entries, "vector", "/entries", fs, &d);
	if (r) {
		t_fail(__FILE__, __LINE__, "vector entries: %s", d.msg);
		return r;
	}
	depth = json_object_get(raw, "glob_scan_max_depth");
	if (depth)
		fs->glob_depth = (unsigned)json_integer_value(depth);
	return 0;
}

int vec_additional(const json_t *v, struct sbx_additional *out)
{
	char *text = vec_text(v);
	struct sbx_diag d;
	int r;

	if (!text)
		return -ENOMEM;
	r = sbx_additional_load_buf(text, strlen(text), "vector", out, &d);
	if (r)
		t_fail(__FILE__, __LINE__, "vector additional profile %s: %s", text, d.msg);
	free(text);
	return r;
}

json_t *vec_entries_jv(const struct sbx_fs *fs)
{
	struct sbx_profile p = { .type = SBX_MANAGED, .fs = *fs };
	json_t *v, *e;

	p.fs.kind = SBX_FS_RESTRICTED;
	v = sbx_profile_to_jv(&p);
	e = json_object_get(json_object_get(v, "file_system"), "entries");
	json_incref(e);
	json_decref(v);
	return e;
}

json_t *vec_additional_jv(const struct sbx_additional *a)
{
	char *s = sbx_additional_to_json(a);
	json_t *v = s ? json_loads(s, 0, NULL) : NULL;

	free(s);
	return v;
}

bool vec_json_check(const char *file, int line, const json_t *got, const json_t *want)
{
	char *g, *w;

	if (got && want && json_equal((json_t *)got, (json_t *)want))
		return true;
	g = got ? vec_text(got) : NULL;
	w = want ? vec_text(want) : NULL;
	t_fail(file, line, "JSON differs\n    got:  %s\n    want: %s", g ? g : "(null)",
	       w ? w : "(null)");
	free(g);
	free(w);
	return false;
}

struct sbx_ctx vec_ctx(const char *cwd)
{
	struct sbx_ctx c = { .cwd = cwd, .platform = sbx_host_platform() };

	return c;
}

char *vec_fresh_dir(void)
{
	char tmpl[PATH_MAX + 64], *out;

	make_dirs();
	snprintf(tmpl, sizeof(tmpl), "%s/fresh-XXXXXX", base);
	if (!mkdtemp(tmpl))
		return NULL;
	out = realpath(tmpl, NULL);
	return out;
}

int vec_mkdir(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(buf, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int vec_mkfile(const char *path, const char *text)
{
	char dir[PATH_MAX];
	char *slash;
	FILE *f;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		if (vec_mkdir(dir))
			return -errno;
	}
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (text)
		fputs(text, f);
	return fclose(f) ? -errno : 0;
}

int vec_push_glob(struct sbx_fs *fs, const char *pattern, enum sbx_access a)
{
	struct sbx_entry e = { .kind = SBX_GLOB, .access = a };
	int r;

	e.path = strdup(pattern);
	if (!e.path)
		return -ENOMEM;
	r = sbx_fs_push(fs, &e);
	free(e.path);
	return r;
}

bool vec_io(const char *id, json_t **in, json_t **want)
{
	json_t *v = vec_get(id);

	*in = *want = NULL;
	if (!v)
		return false;
	*in = vec_subst(json_object_get(v, "input"));
	*want = vec_subst(json_object_get(v, "expected"));
	return true;
}

void vec_done(json_t *in, json_t *want)
{
	json_decref(in);
	json_decref(want);
}

void vec_fresh_reset(void)
{
	for (size_t i = 0; i < N_NAMES; i++) {
		char *d;

		if (strncmp(names[i], "$FRESH", 6) != 0)
			continue;
		d = vec_fresh_dir();
		if (d)
			snprintf(dirs[i], sizeof(dirs[i]), "%s", d);
		free(d);
	}
}

static json_t *load_array(const char *file)
{
	char path[4096];
	json_error_t e;
	json_t *v;

	snprintf(path, sizeof(path), "%s/%s", t_vectors_dir, file);
	v = json_load_file(path, JSON_REJECT_DUPLICATES, &e);
	if (!json_is_array(v)) {
		t_fail(__FILE__, __LINE__, "%s:%d: %s", path, e.line, v ? "not an array" : e.text);
		json_decref(v);
		return NULL;
	}
	return v;
}

/* RFC 7396: the patch's members replace the target's, and a null member removes one. */
static void merge_patch(json_t *target, json_t *patch)
{
	const char *k;
	json_t *x;

	json_object_foreach(patch, k, x) {
		json_t *t = json_object_get(target, k);

		if (json_is_null(x))
			json_object_del(target, k);
		else if (json_is_object(x) && json_is_object(t))
			merge_patch(t, x);
		else
			json_object_set(target, k, x);
	}
}

json_t *vec_all_cases(void)
{
	json_t *codex = load_array("codex-vectors.json"), *own = load_array("sbxrun-vectors.json");
	json_t *all, *o, *v;
	size_t i, j;

	if (!codex || !own) {
		json_decref(codex);
		json_decref(own);
		return NULL;
	}
	all = json_deep_copy(codex);
	json_array_foreach(own, i, o) {
		const char *id = json_string_value(json_object_get(o, "id"));
		const char *area = json_string_value(json_object_get(o, "area"));
		bool found = false;

		if (!id) {
			/* A whole area: {"area": A, "skip": why}. */
			json_array_foreach(all, j, v)
				if (area && strcmp(json_string_value(json_object_get(v, "area")) ?: "",
						   area) == 0)
					json_object_set(v, "skip", json_object_get(o, "skip"));
			continue;
		}
		json_array_foreach(all, j, v) {
			if (strcmp(json_string_value(json_object_get(v, "id")) ?: "", id) != 0)
				continue;
			/*
			 * A restatement or a skip of a Codex vector: its keys replace the vector's,
			 * but "expected_patch", which amends the expected object (RFC 7396).
			 */
			json_object_update(v, o);
			if (json_object_get(o, "expected_patch")) {
				merge_patch(json_object_get(v, "expected"),
					    json_object_get(o, "expected_patch"));
				json_object_del(v, "expected_patch");
			}
			found = true;
		}
		if (!found)
			json_array_append(all, o);
	}
	json_decref(codex);
	json_decref(own);
	return all;
}

/* Entries of a file_system object, into the model as they are: no check of the loader's. */
static int raw_entry(const json_t *e, struct sbx_fs *fs)
{
	json_t *path = json_object_get(e, "path");
	const char *type = json_string_value(json_object_get(path, "type")) ?: "";
	const char *access = json_string_value(json_object_get(e, "access")) ?: "";
	struct sbx_entry en = { .access = !strcmp(access, "read")    ? SBX_READ
					  : !strcmp(access, "write") ? SBX_WRITE
								     : SBX_DENY };
	int r;

	if (strcmp(type, "glob_pattern") == 0) {
		en.kind = SBX_GLOB;
		en.path = (char *)json_string_value(json_object_get(path, "pattern"));
	} else if (strcmp(type, "path") == 0) {
		en.kind = SBX_PATH;
		en.path = (char *)json_string_value(json_object_get(path, "path"));
	} else {
		return -EINVAL;
	}
	r = en.path ? sbx_fs_push(fs, &en) : -EINVAL;
	return r;
}

int vec_additional_raw(const json_t *v, struct sbx_additional *out)
{
	json_t *fs = json_object_get(v, "file_system"), *e;
	size_t i;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->network = -1;
	out->has_fs = fs != NULL;
	json_array_foreach(json_object_get(fs, "entries"), i, e)
		if (!r)
			r = raw_entry(e, &out->fs);
	if (r)
		t_fail(__FILE__, __LINE__, "raw additional profile: %d", r);
	return r;
}

size_t vec_each_profile(const json_t *v, void (*fn)(json_t *profile, void *arg), void *arg)
{
	const char *k, *type;
	size_t i, n = 0;
	json_t *x;

	if (json_is_array(v)) {
		json_array_foreach((json_t *)v, i, x)
			n += vec_each_profile(x, fn, arg);
		return n;
	}
	if (!json_is_object(v))
		return 0;
	type = json_string_value(json_object_get(v, "type"));
	if (type &&
	    (!strcmp(type, "managed") || !strcmp(type, "disabled") || !strcmp(type, "external"))) {
		json_t *s = vec_subst(v);

		if (s)
			fn(s, arg);
		json_decref(s);
		return 1;
	}
	json_object_foreach((json_t *)v, k, x)
		n += vec_each_profile(x, fn, arg);
	return n;
}
