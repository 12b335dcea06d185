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

static const char *const names[] = { "$CWD", "$T", "$WS", "$REQ_CWD", "$LATER_CWD",
				     "$TMP", "$EXTRA", "$D" };
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

void vec_check_area(const char *area, const char *const *ids, size_t n)
{
	size_t i;
	json_t *v;

	for (size_t k = 0; k < n; k++) {
		v = vec_get(ids[k]);
		if (v && strcmp(json_string_value(json_object_get(v, "area")) ?: "", area) != 0)
			t_fail(__FILE__, __LINE__, "vector %s is not in area %s", ids[k], area);
	}
	if (!all_vectors)
		return;
	json_array_foreach(all_vectors, i, v) {
		const char *id = json_string_value(json_object_get(v, "id")) ?: "";
		bool listed = false;

		if (strcmp(json_string_value(json_object_get(v, "area")) ?: "", area) != 0)
			continue;
		for (size_t k = 0; k < n && !listed; k++)
			listed = strcmp(ids[k], id) == 0;
		if (!listed)
			t_fail(__FILE__, __LINE__, "vector %s (area %s) has no test", id, area);
	}
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
