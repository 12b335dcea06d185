/* SPDX-License-Identifier: MIT */
/*
 * load_walk.c - what every schema walker uses: where a value sits (the JSON pointer, rendered only
 * for an error), type and key checks, and the suggestion for a misspelt key or value.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "load.h"

static void ptr_append(char *dst, const char *tok)
{
	size_t o = strlen(dst);

	if (o + 1 >= SBX_PTR_MAX)
		return;
	dst[o++] = '/';
	for (; *tok && o + 2 < SBX_PTR_MAX; tok++) {
		if (*tok == '~' || *tok == '/') {
			dst[o++] = '~';
			dst[o++] = *tok == '~' ? '0' : '1';
		} else {
			dst[o++] = *tok;
		}
	}
	dst[o] = '\0';
}

/* The JSON pointer of a (dst holds SBX_PTR_MAX bytes; a long pointer is cut). */
static void render_ptr(const struct sbx_at *a, char *dst)
{
	char num[24];

	if (!a->up) {
		snprintf(dst, SBX_PTR_MAX, "%s", a->base ? a->base : "");
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

void sbx_at_root(struct sbx_at *a, const char *name, const char *base, struct sbx_diag *d)
{
	*a = (struct sbx_at){.name = name, .d = d, .base = base};
}

void sbx_at_key(struct sbx_at *c, const struct sbx_at *p, const char *key)
{
	*c = (struct sbx_at){.name = p->name, .d = p->d, .up = p, .key = key};
}

void sbx_at_index(struct sbx_at *c, const struct sbx_at *p, size_t i)
{
	*c = (struct sbx_at){.name = p->name, .d = p->d, .up = p, .index = i};
}

int sbx_at_fail(const struct sbx_at *a, int code, const char *fmt, ...)
{
	char ptr[SBX_PTR_MAX];
	va_list ap;

	/* The first error is kept: no pointer is rendered for one that would be dropped. */
	if (!a->d || a->d->msg[0])
		return sbx_diag_set(a->d, code, "%s", "");
	render_ptr(a, ptr);
	va_start(ap, fmt);
	sbx_diag_vset_at(a->d, code, a->name ? a->name : "", 0, 0, ptr, fmt, ap);
	va_end(ap);
	return code;
}

int sbx_at_nomem(const struct sbx_at *a)
{
	return sbx_at_fail(a, -ENOMEM, "out of memory while loading the profile");
}

const char *sbx_json_type_name(const json_t *v)
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

int sbx_want_type(const struct sbx_at *a, const json_t *v, json_type t, const char *what)
{
	if (json_typeof(v) == t)
		return 0;
	return sbx_at_fail(a, SBX_E_PARSE, "expected %s, got %s", what, sbx_json_type_name(v));
}

/* ---- suggestions ------------------------------------------------------------------------- */

/*
 * Edit distance with adjacent swaps (the optimal string alignment distance), counted only up to
 * limit + 1: names are short, and anything further away is no suggestion.
 */
static size_t edit_distance(const char *s, const char *t, size_t limit)
{
	enum { MAXLEN = 40 };
	size_t n = strlen(s), m = strlen(t);
	size_t rows[3][MAXLEN + 1];

	if (n > MAXLEN || m > MAXLEN || (n > m ? n - m : m - n) > limit)
		return limit + 1;
	for (size_t j = 0; j <= m; j++)
		rows[0][j] = j;
	for (size_t i = 1; i <= n; i++) {
		size_t *cur = rows[i % 3], *prev = rows[(i - 1) % 3], *prev2 = rows[(i + 1) % 3];

		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = s[i - 1] != t[j - 1];
			size_t best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && s[i - 1] == t[j - 2] && s[i - 2] == t[j - 1] &&
			    prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
	}
	return rows[n % 3][m] > limit ? limit + 1 : rows[n % 3][m];
}

const char *sbx_suggest(const char *s, const char *const *names)
{
	const char *best = NULL;
	size_t best_d = 3;
	bool tie = false;

	for (const char *const *n = names; *n; n++)
		if (strcasecmp(s, *n) == 0)
			return *n;
	for (const char *const *n = names; *n; n++) {
		size_t dist = edit_distance(s, *n, 2);

		/* A word of one or two letters is at distance 2 from too much to mean anything. */
		if (dist > 2 || dist >= strlen(*n))
			continue;
		if (dist < best_d) {
			best = *n;
			best_d = dist;
			tie = false;
		} else if (dist == best_d && strcmp(*n, best) != 0) {
			tie = true;
		}
	}
	return tie ? NULL : best;
}

int sbx_unknown_value(const struct sbx_at *a, const char *what, const char *s,
		      const char *const *names, const char *expected)
{
	const char *m = sbx_suggest(s, names);

	if (m)
		return sbx_at_fail(a, SBX_E_PARSE,
				   "unknown %s \"%s\" (expected %s); did you mean \"%s\"?", what, s,
				   expected, m);
	return sbx_at_fail(a, SBX_E_PARSE, "unknown %s \"%s\" (expected %s)", what, s, expected);
}

/* ---- keys ------------------------------------------------------------------------------------ */

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

static int unknown_key(const struct sbx_at *a, const char *k, const char *const *candidates,
		       const char *what, const char *expected)
{
	const char *m = sbx_suggest(k, candidates);
	struct sbx_at c;

	sbx_at_key(&c, a, k);
	if (m)
		return sbx_at_fail(&c, SBX_E_PARSE,
				   "unknown key \"%s\" in %s (expected %s); did you mean \"%s\"?",
				   k, what, expected, m);
	return sbx_at_fail(&c, SBX_E_PARSE, "unknown key \"%s\" in %s (expected %s)", k, what,
			   expected);
}

int sbx_check_keys_near(const struct sbx_at *a, json_t *obj, const char *const *allowed,
			const char *const *candidates, const char *what, const char *expected)
{
	for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
		const char *k = json_object_iter_key(it);

		if (!in_list(k, allowed))
			return unknown_key(a, k, candidates, what, expected);
	}
	return 0;
}

int sbx_check_keys(const struct sbx_at *a, json_t *obj, const char *const *allowed,
		   const char *what, const char *expected)
{
	return sbx_check_keys_near(a, obj, allowed, allowed, what, expected);
}

int sbx_scan_keys(const struct sbx_at *a, json_t *obj, const char *const *allowed, json_t **vals,
		  const char *what, const char *expected)
{
	for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
		const char *k = json_object_iter_key(it);
		size_t i = 0;

		while (allowed[i] && strcmp(k, allowed[i]) != 0)
			i++;
		if (!allowed[i])
			return unknown_key(a, k, allowed, what, expected);
		/* A key holding a NUL (built by a caller, never parsed) is none json_object_get finds. */
		if (json_object_iter_key_len(it) == strlen(k))
			vals[i] = json_object_iter_value(it);
	}
	return 0;
}

int sbx_member_required(const struct sbx_at *a, json_t *v, const char *key, const char *what,
			json_t **out)
{
	*out = v;
	if (v)
		return 0;
	return sbx_at_fail(a, SBX_E_PARSE, "missing required key \"%s\" in %s", key, what);
}

int sbx_get_required(const struct sbx_at *a, json_t *obj, const char *key, const char *what,
		     json_t **out)
{
	return sbx_member_required(a, json_object_get(obj, key), key, what, out);
}

json_t *sbx_get_optional(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_null(v) ? NULL : v;
}

int sbx_get_string(const struct sbx_at *a, json_t *v, const char **out)
{
	int r = sbx_want_type(a, v, JSON_STRING, "a string");

	if (r)
		return r;
	if (strlen(json_string_value(v)) != json_string_length(v))
		return sbx_at_fail(a, SBX_E_PARSE, "string contains a NUL character");
	*out = json_string_value(v);
	return 0;
}

int sbx_get_bool(const struct sbx_at *a, json_t *v, bool *out)
{
	if (!json_is_boolean(v))
		return sbx_at_fail(a, SBX_E_PARSE, "expected true or false, got %s",
				   sbx_json_type_name(v));
	*out = json_is_true(v);
	return 0;
}

int sbx_member_string(const struct sbx_at *a, json_t *v, const char *key, const char *what,
		      const char **out)
{
	struct sbx_at c;
	int r = sbx_member_required(a, v, key, what, &v);

	if (r)
		return r;
	sbx_at_key(&c, a, key);
	return sbx_get_string(&c, v, out);
}

int sbx_key_string(const struct sbx_at *a, json_t *obj, const char *key, const char *what,
		   const char **out)
{
	return sbx_member_string(a, json_object_get(obj, key), key, what, out);
}

int sbx_missing_tag(const struct sbx_at *a, json_t *obj, const char *key, const char *what,
		    const char *expected)
{
	const char *const name[] = {key, NULL};

	if (json_object_get(obj, key))
		return 0;
	/* A misspelt tag is named as such: "missing" would send the reader looking elsewhere. */
	for (void *it = json_object_iter(obj); it; it = json_object_iter_next(obj, it)) {
		const char *k = json_object_iter_key(it);
		struct sbx_at c;

		if (!sbx_suggest(k, name))
			continue;
		sbx_at_key(&c, a, k);
		return sbx_at_fail(&c, SBX_E_PARSE,
				   "unknown key \"%s\" in %s; did you mean \"%s\"?", k, what, key);
	}
	return sbx_at_fail(a, SBX_E_PARSE, "missing required key \"%s\" in %s (expected %s)", key,
			   what, expected);
}
