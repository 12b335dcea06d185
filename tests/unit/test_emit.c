/* SPDX-License-Identifier: MIT */
/* test_emit.c - canonical wire JSON: key order, omissions, aliases, the serde vectors. */
#include <jansson.h>
#include <stdlib.h>

#include "sbx.h"
#include "t.h"
#include "load_vectors.h"

/* Loads text as a profile and returns its canonical JSON (malloc'd), or NULL. */
static char *canonical(const char *text)
{
	struct sbx_profile p;
	enum sbx_input_form form;
	struct sbx_diag d;
	char *out;

	if (sbx_profile_load_buf(text, strlen(text), "t", &p, &form, NULL, &d)) {
		t_fail(__FILE__, __LINE__, "%s", d.msg);
		return NULL;
	}
	out = sbx_profile_to_json(&p);
	sbx_profile_free(&p);
	return out;
}

static char *additional_canonical(const char *text)
{
	struct sbx_additional a;
	struct sbx_diag d;
	char *out;

	if (sbx_additional_load_buf(text, strlen(text), "t", &a, &d)) {
		t_fail(__FILE__, __LINE__, "%s", d.msg);
		return NULL;
	}
	out = sbx_additional_to_json(&a);
	sbx_additional_free(&a);
	return out;
}

#define CHECK_CANONICAL(fn, in, want)                                                              \
	do {                                                                                       \
		char *got_ = fn(in);                                                               \
		CHECK_STR(got_, want);                                                             \
		free(got_);                                                                        \
	} while (0)

TEST(emit_key_order_and_aliases)
{
	/* Keys written out of order, aliases, a null optional: all come back canonical. */
	CHECK_CANONICAL(
	    canonical,
	    "{\"network\":\"enabled\",\"file_system\":{\"glob_scan_max_depth\":2,"
	    "\"entries\":[{\"access\":\"none\",\"missing_path_behavior\":\"skip\","
	    "\"path\":{\"path\":\"/a/./b/\",\"type\":\"path\"}},"
	    "{\"access\":\"read\",\"path\":{\"value\":{\"subpath\":\"s\",\"kind\":"
	    "\"current_working_directory\"},\"type\":\"special\"}},"
	    "{\"access\":\"deny\",\"path\":{\"pattern\":\"*.pem\",\"type\":"
	    "\"glob_pattern\"}},"
	    "{\"access\":\"write\",\"path\":{\"type\":\"special\",\"value\":{\"subpath\":"
	    "\"x\",\"path\":\":t\",\"kind\":\"unknown\"}},\"missing_path_behavior\":null}"
	    "],\"type\":\"restricted\"},\"type\":\"managed\"}",
	    "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
	    "{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"deny\","
	    "\"missing_path_behavior\":\"skip\"},"
	    "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\","
	    "\"subpath\":\"s\"}},\"access\":\"read\"},"
	    "{\"path\":{\"type\":\"glob_pattern\",\"pattern\":\"*.pem\"},\"access\":"
	    "\"deny\"},"
	    "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"unknown\",\"path\":"
	    "\":t\",\"subpath\":\"x\"}},\"access\":\"write\"}],"
	    "\"glob_scan_max_depth\":2},\"network\":\"enabled\"}");
	CHECK_CANONICAL(canonical, "{\"type\":\"disabled\"}", "{\"type\":\"disabled\"}");
	CHECK_CANONICAL(canonical, "{\"network\":\"enabled\",\"type\":\"external\"}",
			"{\"type\":\"external\",\"network\":\"enabled\"}");
	CHECK_CANONICAL(canonical,
			"{\"type\":\"managed\",\"network\":\"restricted\",\"file_system\":"
			"{\"type\":\"unrestricted\"}}",
			"{\"type\":\"managed\",\"file_system\":{\"type\":\"unrestricted\"},"
			"\"network\":\"restricted\"}");
	/* The older rollout shape is written as the tagged form. */
	CHECK_CANONICAL(
	    canonical, "{\"file_system\":{\"write\":[\"/w\"]}}",
	    "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
	    "{\"path\":{\"type\":\"path\",\"path\":\"/w\"},\"access\":\"write\"}]},"
	    "\"network\":\"restricted\"}");
}

TEST(emit_managed_external_file_system_is_external)
{
	struct sbx_profile p = {.type = SBX_MANAGED, .fs = {.kind = SBX_FS_EXTERNAL}};
	char *s = sbx_profile_to_json(&p);

	CHECK_STR(s, "{\"type\":\"external\",\"network\":\"restricted\"}");
	free(s);
}

TEST(emit_builtins)
{
	struct sbx_profile p;
	struct sbx_diag d;
	char *s;

	CHECK_INT(sbx_profile_builtin(":workspace", &p, &d), 0);
	s = sbx_profile_to_json(&p);
	CHECK_STR(s,
		  "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},\"access\":"
		  "\"read\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\"}},"
		  "\"access\":\"write\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"slash_tmp\"}},"
		  "\"access\":\"write\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"tmpdir\"}},"
		  "\"access\":\"write\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\","
		  "\"subpath\":\".git\"}},\"access\":\"read\",\"missing_path_behavior\":\"skip\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\","
		  "\"subpath\":\".agents\"}},\"access\":\"read\",\"missing_path_behavior\":"
		  "\"skip\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\","
		  "\"subpath\":\".codex\"}},\"access\":\"read\",\"missing_path_behavior\":"
		  "\"skip\"}]},\"network\":\"restricted\"}");
	free(s);
	sbx_profile_free(&p);

	CHECK_INT(sbx_profile_builtin(":read-only", &p, &d), 0);
	s = sbx_profile_to_json(&p);
	CHECK_STR(s, "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
		     "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},\"access\":"
		     "\"read\"}]},\"network\":\"restricted\"}");
	free(s);
	sbx_profile_free(&p);

	CHECK_INT(sbx_profile_builtin(":danger-full-access", &p, &d), 0);
	s = sbx_profile_to_json(&p);
	CHECK_STR(s, "{\"type\":\"disabled\"}");
	free(s);
	sbx_profile_free(&p);
}

TEST(emit_additional)
{
	CHECK_CANONICAL(additional_canonical, "{}", "{}");
	CHECK_CANONICAL(additional_canonical, "{\"network\":{\"enabled\":false}}", "{}");
	CHECK_CANONICAL(additional_canonical,
			"{\"network\":{\"enabled\":null},\"file_system\":null}", "{}");
	CHECK_CANONICAL(additional_canonical, "{\"network\":{\"enabled\":true}}",
			"{\"network\":{\"enabled\":true}}");
	CHECK_CANONICAL(additional_canonical,
			"{\"file_system\":{\"write\":[\"/w\"],\"read\":[\"/r\"]},\"network\":{"
			"\"enabled\":true}}",
			"{\"network\":{\"enabled\":true},\"file_system\":{\"read\":[\"/r\"],"
			"\"write\":[\"/w\"]}}");
	/* Canonical entries that fit the read/write form are written in it... */
	CHECK_CANONICAL(
	    additional_canonical,
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"write\"}]}}",
	    "{\"file_system\":{\"write\":[\"/b\"]}}");
	/* ...and those that do not (a deny, a special, skip, a depth) stay canonical. */
	CHECK_CANONICAL(
	    additional_canonical,
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"deny\"}]}}",
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"deny\"}]}}");
	CHECK_CANONICAL(
	    additional_canonical,
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"read\",\"missing_path_behavior\":\"skip\"}]}}",
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"read\",\"missing_path_behavior\":\"skip\"}]}}");
	CHECK_CANONICAL(additional_canonical,
			"{\"file_system\":{\"entries\":[],\"glob_scan_max_depth\":1}}",
			"{\"file_system\":{\"entries\":[],\"glob_scan_max_depth\":1}}");
}

static void check_legacy(const char *in, const char *want)
{
	struct sbx_legacy l;
	struct sbx_diag d;
	char *s;

	CHECK_INT(sbx_legacy_load_buf(in, strlen(in), "t", &l, &d), 0);
	s = sbx_legacy_to_json(&l);
	CHECK_STR(s, want);
	free(s);
	sbx_legacy_free(&l);
}

TEST(emit_legacy)
{
	check_legacy("{\"type\":\"danger-full-access\"}", "{\"type\":\"danger-full-access\"}");
	check_legacy("{\"type\":\"read-only\",\"network_access\":false}",
		     "{\"type\":\"read-only\"}");
	check_legacy("{\"network_access\":true,\"type\":\"read-only\"}",
		     "{\"type\":\"read-only\",\"network_access\":true}");
	check_legacy("{\"type\":\"external-sandbox\"}",
		     "{\"type\":\"external-sandbox\",\"network_access\":\"restricted\"}");
	check_legacy("{\"type\":\"workspace-write\"}",
		     "{\"type\":\"workspace-write\",\"network_access\":false,"
		     "\"exclude_tmpdir_env_var\":false,\"exclude_slash_tmp\":false}");
	check_legacy("{\"exclude_slash_tmp\":true,\"writable_roots\":[\"/a\",\"/b/\"],"
		     "\"type\":\"workspace-write\",\"network_access\":true}",
		     "{\"type\":\"workspace-write\",\"writable_roots\":[\"/a\",\"/b\"],"
		     "\"network_access\":true,\"exclude_tmpdir_env_var\":false,"
		     "\"exclude_slash_tmp\":true}");
}

/* ---- the serde vectors about emitting --------------------------------------------------- */

static struct sbx_additional additional_of(enum sbx_access a1, const char *p1, enum sbx_access a2,
					   const char *p2, unsigned depth)
{
	struct sbx_additional a = {.network = -1, .has_fs = true};

	sbx_fs_push_path(&a.fs, p1, a1, false);
	if (p2)
		sbx_fs_push_path(&a.fs, p2, a2, false);
	a.fs.glob_depth = depth;
	return a;
}

static void check_file_system(const struct sbx_additional *a, const json_t *want)
{
	char *text = sbx_additional_to_json(a), *w = lv_text(want);
	json_t *got = text ? json_loads(text, 0, NULL) : NULL;
	char *g = lv_text(json_object_get(got, "file_system"));

	CHECK_STR(g, w);
	free(g);
	free(w);
	free(text);
	json_decref(got);
}

TEST(emit_serde_vectors)
{
	json_t *all = lv_load_all(), *v, *want;
	struct sbx_additional a;
	struct sbx_profile p = {.type = SBX_DISABLED, .network = false};
	char *s;

	/* ser-04: a depth forces the canonical form. */
	v = lv_find(all, "ser-04");
	want = json_object_get(json_object_get(v, "expected"), "json");
	a = additional_of(SBX_READ, "/tmp/allowed", SBX_READ, NULL, 2);
	check_file_system(&a, want);
	CHECK(json_is_false(
	    json_object_get(json_object_get(v, "expected"), "has_keys_read_or_write")));
	sbx_additional_free(&a);

	/* ser-05: plain read/write paths without a depth use the legacy form. */
	v = lv_find(all, "ser-05");
	a = additional_of(SBX_READ, "/a", SBX_WRITE, "/b", 0);
	check_file_system(&a, json_object_get(json_object_get(v, "expected"), "json"));
	sbx_additional_free(&a);

	/* ser-08: a disabled profile ignores the runtime network policy. */
	v = lv_find(all, "ser-08");
	s = sbx_profile_to_json(&p);
	want = json_object_get(v, "expected");
	CHECK(want != NULL);
	{
		char *w = lv_text(want);

		CHECK_STR(s, w);
		free(w);
	}
	free(s);
	json_decref(all);
}

/* mi-05: an empty read list serializes away; the rest survives a load and emit unchanged. */
TEST(emit_merge_intersect_vectors)
{
	json_t *all = lv_load_all(), *v = lv_find(all, "mi-05");
	json_t *in = lv_subst(json_object_get(json_object_get(v, "input"), "requested"));
	json_t *want = lv_subst(json_object_get(v, "expected"));
	char *text = lv_text(in), *w = lv_text(want), *got = additional_canonical(text);

	CHECK_STR(got, w);
	free(got);
	free(text);
	free(w);
	json_decref(in);
	json_decref(want);

	/* mi-04: the canonical input (specials, skip, a relative glob, a depth) round-trips. */
	v = lv_find(all, "mi-04");
	in = lv_subst(json_object_get(json_object_get(v, "input"), "additional"));
	text = lv_text(in);
	got = additional_canonical(text);
	CHECK_STR(got, text);
	free(got);
	free(text);
	json_decref(in);
	json_decref(all);
}
