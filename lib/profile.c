/* SPDX-License-Identifier: MIT */
/* profile.c - construction, copying, comparison and destruction of the profile model. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

static const char *const access_names[] = {"read", "write", "deny"};
static const char *const special_names[] = {"root",   "minimal",   "project_roots",
					    "tmpdir", "slash_tmp", "unknown"};

const char *sbx_access_name(enum sbx_access a)
{
	return (unsigned)a < 3 ? access_names[a] : "?";
}

const char *sbx_special_name(enum sbx_special s)
{
	return (unsigned)s < 6 ? special_names[s] : "?";
}

static int dup_opt(char **dst, const char *src)
{
	*dst = NULL;
	if (!src)
		return 0;
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

void sbx_entry_clear(struct sbx_entry *e)
{
	if (!e)
		return;
	if (!e->pooled)
		free(e->path);
	free(e->subpath);
	memset(e, 0, sizeof(*e));
}

int sbx_entry_copy(struct sbx_entry *dst, const struct sbx_entry *src)
{
	*dst = *src;
	dst->path = dst->subpath = NULL;
	dst->pooled = false;
	if (dup_opt(&dst->path, src->path) || dup_opt(&dst->subpath, src->subpath)) {
		sbx_entry_clear(dst);
		return -ENOMEM;
	}
	return 0;
}

static bool str_eq(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

bool sbx_entry_same_path(const struct sbx_entry *a, const struct sbx_entry *b)
{
	if (a->kind != b->kind || (a->kind == SBX_SPECIAL && a->special != b->special))
		return false;
	return str_eq(a->path, b->path) && str_eq(a->subpath, b->subpath);
}

bool sbx_entry_equal(const struct sbx_entry *a, const struct sbx_entry *b)
{
	return a->access == b->access && a->skip_missing == b->skip_missing &&
	       sbx_entry_same_path(a, b);
}

int sbx_fs_reserve(struct sbx_fs *fs, size_t n)
{
	struct sbx_entry *v;

	if (n <= fs->cap)
		return 0;
	if (n > SBX_MAX_ENTRIES)
		return SBX_E_TOO_BIG;
	v = realloc(fs->entries, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	fs->entries = v;
	fs->cap = n;
	return 0;
}

_Static_assert(sizeof(struct sbx_entry) <= 24, "an entry grew: a profile may hold 100,000");

void sbx_fs_trim(struct sbx_fs *fs)
{
	struct sbx_entry *v;

	if (fs->n == fs->cap || fs->n == 0)
		return;
	/* Shrinking in place: a failure keeps the larger array, which is still valid. */
	v = realloc(fs->entries, fs->n * sizeof(*v));
	if (v) {
		fs->entries = v;
		fs->cap = fs->n;
	}
}

/* Room for one more entry: doubling, up to the limit. */
static int fs_grow(struct sbx_fs *fs)
{
	size_t cap = fs->cap ? fs->cap * 2 : 8;

	if (fs->n < fs->cap)
		return 0;
	if (fs->n >= SBX_MAX_ENTRIES)
		return SBX_E_TOO_BIG;
	return sbx_fs_reserve(fs, cap < SBX_MAX_ENTRIES ? cap : SBX_MAX_ENTRIES);
}

int sbx_fs_push(struct sbx_fs *fs, const struct sbx_entry *e)
{
	int r = fs_grow(fs);

	if (r)
		return r;
	r = sbx_entry_copy(&fs->entries[fs->n], e);
	if (r)
		return r;
	fs->n++;
	return 0;
}

int sbx_fs_push_owned(struct sbx_fs *fs, struct sbx_entry *e)
{
	int r = fs_grow(fs);

	if (r) {
		sbx_entry_clear(e);
		return r;
	}
	fs->entries[fs->n++] = *e;
	memset(e, 0, sizeof(*e));
	return 0;
}

int sbx_fs_push_path(struct sbx_fs *fs, const char *path, enum sbx_access a, bool skip)
{
	struct sbx_entry e = {
		.kind = SBX_PATH, .path = (char *)path, .access = a, .skip_missing = skip};

	return sbx_fs_push(fs, &e);
}

int sbx_fs_push_special(struct sbx_fs *fs, enum sbx_special sp, const char *subpath,
			enum sbx_access a, bool skip)
{
	struct sbx_entry e = {.kind = SBX_SPECIAL,
			      .special = sp,
			      .subpath = (char *)subpath,
			      .access = a,
			      .skip_missing = skip};

	return sbx_fs_push(fs, &e);
}

bool sbx_fs_contains(const struct sbx_fs *fs, const struct sbx_entry *e)
{
	for (size_t i = 0; i < fs->n; i++)
		if (sbx_entry_equal(&fs->entries[i], e))
			return true;
	return false;
}

int sbx_fs_copy(struct sbx_fs *dst, const struct sbx_fs *src)
{
	int r;

	memset(dst, 0, sizeof(*dst));
	dst->kind = src->kind;
	dst->glob_depth = src->glob_depth;
	for (size_t i = 0; i < src->n; i++) {
		r = sbx_fs_push(dst, &src->entries[i]);
		if (r) {
			sbx_fs_clear(dst);
			return r;
		}
	}
	return 0;
}

void sbx_fs_clear(struct sbx_fs *fs)
{
	if (!fs)
		return;
	for (size_t i = 0; i < fs->n; i++)
		sbx_entry_clear(&fs->entries[i]);
	free(fs->entries);
	sbx_arena_free(&fs->paths);
	memset(fs, 0, sizeof(*fs));
}

void sbx_profile_free(struct sbx_profile *p)
{
	if (!p)
		return;
	sbx_fs_clear(&p->fs);
	memset(p, 0, sizeof(*p));
}

int sbx_profile_copy(struct sbx_profile *dst, const struct sbx_profile *src)
{
	*dst = *src;
	return sbx_fs_copy(&dst->fs, &src->fs);
}

void sbx_additional_free(struct sbx_additional *a)
{
	if (!a)
		return;
	sbx_fs_clear(&a->fs);
	memset(a, 0, sizeof(*a));
	a->network = -1;
}

void sbx_strv_free(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void sbx_legacy_free(struct sbx_legacy *l)
{
	if (!l)
		return;
	sbx_strv_free(l->writable_roots, l->n_writable_roots);
	memset(l, 0, sizeof(*l));
}

/* Room for one more pointer after the n there are, and for the NULL after that one. */
static int strv_room(struct sbx_strv *s)
{
	size_t cap = s->cap ? s->cap * 2 : 8;
	char **v;

	if (s->n + 1 < s->cap)
		return 0;
	v = realloc(s->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	s->cap = cap;
	return 0;
}

int sbx_strv_push_owned(struct sbx_strv *s, char *str)
{
	if (!str)
		return -ENOMEM;
	/* v stays NULL-terminated (an argv for execv). */
	if (strv_room(s)) {
		free(str);
		return -ENOMEM;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

int sbx_strv_push(struct sbx_strv *s, const char *str)
{
	/* strdup's copy, without musl's memcpy and its fixed cost (a path a push, 10,000s). */
	size_t n = strlen(str) + 1;
	char *copy = malloc(n);

	if (copy)
		sbx_copy(copy, str, n);
	return sbx_strv_push_owned(s, copy);
}

int sbx_strv_terminate(struct sbx_strv *s)
{
	if (strv_room(s))
		return -ENOMEM;
	s->v[s->n] = NULL;
	return 0;
}

void sbx_strv_fit(struct sbx_strv *s)
{
	char **v;

	if (!s->v || s->n + 1 == s->cap)
		return;
	/* Shrinking in place: a failure keeps the larger array, which is still valid. */
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (v) {
		s->v = v;
		s->cap = s->n + 1;
	}
}

bool sbx_strv_has(const struct sbx_strv *s, const char *str)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->v[i], str) == 0)
			return true;
	return false;
}

int sbx_strv_add_unique(struct sbx_strv *s, const char *str)
{
	if (sbx_strv_has(s, str))
		return 0;
	return sbx_strv_push_owned(s, strdup(str));
}

void sbx_strv_sort(struct sbx_strv *s)
{
	if (s->n > 1)
		sbx_sort_strs(s->v, s->n);
}

void sbx_strv_clear(struct sbx_strv *s)
{
	sbx_strv_free(s->v, s->n);
	memset(s, 0, sizeof(*s));
}

const char *sbx_profile_type_name(enum sbx_profile_type t)
{
	switch (t) {
	case SBX_MANAGED:
		return "managed";
	case SBX_DISABLED:
		return "disabled";
	case SBX_EXTERNAL:
		return "external";
	}
	return "unknown";
}
