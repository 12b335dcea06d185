/* SPDX-License-Identifier: MIT */
/* vec.c - see vec.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

const char *vec_cwd(void)
{
	static char dir[] = "/tmp/sbx-vec-XXXXXX";
	static const char *made;

	if (!made)
		made = mkdtemp(dir);
	return made ? made : "/tmp";
}

static json_t *subst_string(const char *s)
{
	char *out = NULL;
	json_t *v;

	if (strncmp(s, "$CWD", 4) != 0)
		return json_string(s);
	if (asprintf(&out, "%s%s", vec_cwd(), s + 4) < 0)
		return NULL;
	v = json_string(out);
	free(out);
	return v;
}

json_t *vec_subst(const json_t *v)
{
	json_t *out, *x;
	const char *k;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		return subst_string(json_string_value(v));
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
