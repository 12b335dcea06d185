/* SPDX-License-Identifier: MIT */
/* load_vectors.c - see load_vectors.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "t.h"
#include "load_vectors.h"

json_t *lv_load_all(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/codex-vectors.json", t_vectors_dir);
	return json_load_file(path, JSON_REJECT_DUPLICATES, NULL);
}

json_t *lv_find(json_t *all, const char *id)
{
	size_t i;
	json_t *v;

	json_array_foreach(all, i, v) if (strcmp(json_string_value(json_object_get(v, "id")) ?: "",
						 id) == 0) return v;
	return NULL;
}

const char *lv_cwd(void)
{
	static char dir[] = "/tmp/sbx-vec-XXXXXX";
	static const char *made;

	if (!made)
		made = mkdtemp(dir);
	return made ? made : "/tmp";
}

static json_t *lv_subst_string(const char *s)
{
	char *out = NULL;
	json_t *v;

	if (strncmp(s, "$CWD", 4) != 0)
		return json_string(s);
	if (asprintf(&out, "%s%s", lv_cwd(), s + 4) < 0)
		return NULL;
	v = json_string(out);
	free(out);
	return v;
}

json_t *lv_subst(const json_t *v)
{
	json_t *out, *x;
	const char *k;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return lv_subst_string(json_string_value(v));
	case JSON_ARRAY:
		out = json_array();
		json_array_foreach((json_t *)v, i, x) json_array_append_new(out, lv_subst(x));
		return out;
	case JSON_OBJECT:
		out = json_object();
		json_object_foreach((json_t *)v, k, x) json_object_set_new(out, k, lv_subst(x));
		return out;
	default:
		return json_deep_copy(v);
	}
}

char *lv_text(const json_t *v)
{
	return json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
}
