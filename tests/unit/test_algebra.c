/* SPDX-License-Identifier: MIT */
/* test_algebra.c - normalize, materialize, merge, intersect and the effective profile. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

static const char *const mi_ids[] = { "mi-01", "mi-02", "mi-04", "mi-05", "mi-07", "mi-08",
				      "mi-10", "mi-11", "mi-13", "mi-14", "mi-16", "mi-17",
				      "mi-19", "mi-20", "mi-22", "mi-23" };

TEST(vectors_merge_intersect_covered)
{
	vec_check_area("merge_intersect", mi_ids, sizeof(mi_ids) / sizeof(mi_ids[0]));
}

TEST(vec_mi_01)
{
	json_t *in, *want;
	struct sbx_additional a = { .network = -1, .has_fs = true };
	struct sbx_diag d;

	if (!vec_io("mi-01", &in, &want))
		return;
	/* The loader already refuses a read glob, so the model is built directly. */
	vec_push_glob(&a.fs, "**/*.env", SBX_READ);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_additional_normalize(&a, &d), SBX_E_INVALID);
	CHECK_STR(d.msg, json_string_value(json_object_get(want, "error")));
	sbx_additional_free(&a);
	vec_done(in, want);
}

TEST(vec_mi_02)
{
	json_t *in, *want, *got;
	struct sbx_additional a;
	struct sbx_diag d;

	if (!vec_io("mi-02", &in, &want))
		return;
	CHECK_INT(vec_additional(json_object_get(in, "additional"), &a), 0);
	CHECK_INT(sbx_additional_normalize(&a, &d), 0);
	got = vec_additional_jv(&a);
	VEC_JSON_EQ(got, want);
	json_decref(got);
	sbx_additional_free(&a);
	vec_done(in, want);
}

TEST(vec_mi_04)
{
	json_t *in, *want, *got;
	struct sbx_additional a, m;
	struct sbx_ctx ctx;

	if (!vec_io("mi-04", &in, &want))
		return;
	ctx = vec_ctx(json_string_value(json_object_get(in, "cwd")));
	CHECK_INT(vec_additional(json_object_get(in, "additional"), &a), 0);
	CHECK_INT(sbx_additional_materialize(&a, &ctx, &m), 0);
	got = vec_additional_jv(&m);
	VEC_JSON_EQ(got, want);
	json_decref(got);
	sbx_additional_free(&a);
	sbx_additional_free(&m);
	vec_done(in, want);
}

/* intersect(requested, granted) for cwd, as wire JSON. */
static json_t *intersect_jv(const json_t *req, const json_t *gr, const char *cwd)
{
	struct sbx_additional r, g, out;
	struct sbx_ctx ctx = vec_ctx(cwd);
	json_t *got = NULL;

	if (vec_additional(req, &r))
		return NULL;
	if (vec_additional(json_is_string(gr) ? req : gr, &g)) { /* "same as requested" */
		sbx_additional_free(&r);
		return NULL;
	}
	CHECK_INT(sbx_additional_intersect(&r, &g, &ctx, &out), 0);
	got = vec_additional_jv(&out);
	sbx_additional_free(&r);
	sbx_additional_free(&g);
	sbx_additional_free(&out);
	return got;
}

static void check_intersect(const char *id)
{
	json_t *in, *want, *got, *w;

	if (!vec_io(id, &in, &want))
		return;
	CHECK_STR(json_string_value(json_object_get(in, "op")), "intersect");
	got = intersect_jv(json_object_get(in, "requested"), json_object_get(in, "granted"),
			   json_string_value(json_object_get(in, "cwd")));
	w = json_deep_copy(want);
	json_object_del(w, "then"); /* prose, checked separately where it applies */
	json_object_del(w, "note");
	VEC_JSON_EQ(got, w);
	json_decref(w);
	json_decref(got);
	vec_done(in, want);
}

TEST(vec_mi_05) { check_intersect("mi-05"); }
TEST(vec_mi_07) { check_intersect("mi-07"); }
TEST(vec_mi_10) { check_intersect("mi-10"); }
TEST(vec_mi_11) { check_intersect("mi-11"); }
TEST(vec_mi_13) { check_intersect("mi-13"); }
TEST(vec_mi_14) { check_intersect("mi-14"); }
TEST(vec_mi_16) { check_intersect("mi-16"); }

TEST(vec_mi_08)
{
	json_t *in, *want, *grant, *req, *got, *empty = json_object();
	char *child = NULL;

	check_intersect("mi-08");
	if (!vec_io("mi-08", &in, &want))
		return;
	/* then: the stored grant, re-used for a request from another cwd, yields nothing */
	grant = json_object_get(want, "file_system");
	grant = json_pack("{s:O}", "file_system", grant);
	if (asprintf(&child, "%s/child", vec_dir("$LATER_CWD")) > 0) {
		req = json_pack("{s:{s:[s]}}", "file_system", "write", child);
		got = intersect_jv(req, grant, vec_dir("$LATER_CWD"));
		VEC_JSON_EQ(got, empty);
		json_decref(got);
		json_decref(req);
	}
	free(child);
	json_decref(grant);
	json_decref(empty);
	vec_done(in, want);
}

TEST(intersect_requested_deny_blocks_grant)
{
	struct sbx_additional r = { .network = -1, .has_fs = true }, g = r, out;
	struct sbx_ctx ctx = vec_ctx("/repo");

	sbx_fs_push_special(&r.fs, SBX_SP_ROOT, NULL, SBX_WRITE, false);
	sbx_fs_push_path(&r.fs, "/repo/secret", SBX_DENY, false);
	sbx_fs_push_path(&r.fs, "/repo/secret/open", SBX_WRITE, false);
	vec_push_glob(&r.fs, "/repo/**/*.pem", SBX_DENY);
	sbx_fs_push_path(&g.fs, "/repo/secret/open", SBX_WRITE, false); /* under a deny */
	sbx_fs_push_path(&g.fs, "/repo/k.pem", SBX_READ, false);	 /* matched by a glob */
	sbx_fs_push_path(&g.fs, "/repo/src", SBX_READ, false);		 /* fine */
	sbx_fs_push_path(&g.fs, "/elsewhere", SBX_DENY, false);		 /* no overlap: dropped */
	CHECK_INT(sbx_additional_intersect(&r, &g, &ctx, &out), 0);
	CHECK(out.has_fs);
	/* /repo/src read, then the requested denies that overlap it (the glob's prefix /repo) */
	CHECK_INT(out.fs.n, 2);
	if (out.fs.n == 2) {
		CHECK_STR(out.fs.entries[0].path, "/repo/src");
		CHECK_STR(out.fs.entries[1].path, "/repo/**/*.pem");
	}
	CHECK_INT(out.network, -1);
	sbx_additional_free(&out);
	sbx_additional_free(&r);
	sbx_additional_free(&g);
}

TEST(vec_mi_17)
{
	json_t *in, *want, *got, *e;
	struct sbx_profile base = { .type = SBX_MANAGED }, eff;
	struct sbx_additional a;
	size_t i;

	if (!vec_io("mi-17", &in, &want))
		return;
	CHECK_INT(vec_fs_policy(json_object_get(in, "base"), &base.fs), 0);
	e = json_pack("{s:O}", "file_system", json_object_get(in, "additional"));
	CHECK_INT(vec_additional(e, &a), 0);
	json_decref(e);
	CHECK_INT(sbx_profile_effective(&base, &a, &eff), 0);
	got = vec_entries_jv(&eff.fs);
	json_array_foreach(json_object_get(want, "entries_contain"), i, e) {
		bool found = false;
		size_t j;
		json_t *x;

		json_array_foreach(got, j, x)
			found = found || json_equal(x, e);
		if (!found) {
			char *t = vec_text(e);

			t_fail(__FILE__, __LINE__, "effective entries lack %s", t);
			free(t);
		}
	}
	json_decref(got);
	sbx_profile_free(&base);
	sbx_profile_free(&eff);
	sbx_additional_free(&a);
	vec_done(in, want);
}

TEST(vec_mi_19)
{
	json_t *in, *want, *got;
	struct sbx_profile base = { .type = SBX_MANAGED }, eff;

	if (!vec_io("mi-19", &in, &want))
		return;
	CHECK(json_is_null(json_object_get(in, "additional")));
	CHECK_INT(vec_fs_policy(json_object_get(in, "base"), &base.fs), 0);
	CHECK_INT(sbx_profile_effective(&base, NULL, &eff), 0);
	got = vec_entries_jv(&eff.fs);
	VEC_JSON_EQ(got, json_object_get(want, "entries"));
	CHECK_INT(eff.fs.kind, SBX_FS_RESTRICTED);
	json_decref(got);
	sbx_profile_free(&base);
	sbx_profile_free(&eff);
	vec_done(in, want);
}

static void load_profile(const json_t *pp, struct sbx_profile *p)
{
	char *text = vec_text(pp);
	struct sbx_diag d;
	enum sbx_input_form form;

	CHECK_INT(sbx_profile_load_buf(text, strlen(text), "vector", p, &form, NULL, &d), 0);
	free(text);
}

TEST(vec_mi_20)
{
	json_t *in, *want, *got;
	struct sbx_profile p, eff;
	struct sbx_additional a;
	char *s;

	if (!vec_io("mi-20", &in, &want))
		return;
	load_profile(json_object_get(in, "permission_profile"), &p);
	CHECK_INT(vec_additional(json_object_get(in, "additional"), &a), 0);
	CHECK_INT(sbx_profile_effective(&p, &a, &eff), 0);
	s = sbx_profile_to_json(&eff);
	got = s ? json_loads(s, 0, NULL) : NULL;
	VEC_JSON_EQ(got, want);
	free(s);
	json_decref(got);
	/* The control: without the network grant it stays restricted. */
	a.network = -1;
	sbx_profile_free(&eff);
	CHECK_INT(sbx_profile_effective(&p, &a, &eff), 0);
	CHECK(!eff.network && eff.type == SBX_EXTERNAL);
	sbx_profile_free(&eff);
	sbx_profile_free(&p);
	sbx_additional_free(&a);
	vec_done(in, want);
}

TEST(vec_mi_22)
{
	json_t *in, *want, *got;
	struct sbx_additional b, e, out;

	if (!vec_io("mi-22", &in, &want))
		return;
	CHECK_INT(vec_additional(json_object_get(in, "base"), &b), 0);
	CHECK_INT(vec_additional(json_object_get(in, "permissions"), &e), 0);
	CHECK_INT(sbx_additional_merge(&b, &e, &out), 0);
	got = vec_additional_jv(&out);
	/* "network": null is the absent network, which the wire form leaves out. */
	CHECK(json_is_null(json_object_get(want, "network")));
	json_object_del(want, "network");
	VEC_JSON_EQ(got, want);
	json_decref(got);
	sbx_additional_free(&b);
	sbx_additional_free(&e);
	sbx_additional_free(&out);
	vec_done(in, want);
}

/*
 * mi-23 (with_managed_mitm_ca_readable_root): sbxrun has no managed proxy; the same result is
 * the effective profile with the CA bundle as an additional read, which is what a caller does.
 */
TEST(vec_mi_23)
{
	json_t *in, *want, *got;
	struct sbx_profile p, eff;
	struct sbx_additional a = { .network = -1, .has_fs = true };

	if (!vec_io("mi-23", &in, &want))
		return;
	load_profile(json_object_get(in, "permission_profile"), &p);
	sbx_fs_push_path(&a.fs, json_string_value(json_object_get(in, "ca_bundle")), SBX_READ,
			 false);
	CHECK_INT(sbx_profile_effective(&p, &a, &eff), 0);
	got = vec_entries_jv(&eff.fs);
	VEC_JSON_EQ(got, json_object_get(json_object_get(want, "file_system_policy"), "entries"));
	CHECK(!eff.network);
	json_decref(got);
	sbx_profile_free(&p);
	sbx_profile_free(&eff);
	sbx_additional_free(&a);
	vec_done(in, want);
}

TEST(merge_glob_depth_rules)
{
	struct sbx_fs a = { 0 }, b = { 0 };

	a.glob_depth = 3;
	b.glob_depth = 5;
	CHECK_INT(sbx_merge_glob_depth(&a, &b), 0); /* neither side has deny globs */
	vec_push_glob(&a, "/x/**", SBX_DENY);
	CHECK_INT(sbx_merge_glob_depth(&a, &b), 3); /* b does not count */
	vec_push_glob(&b, "/y/**", SBX_DENY);
	CHECK_INT(sbx_merge_glob_depth(&a, &b), 5); /* the larger */
	b.glob_depth = 0;
	CHECK_INT(sbx_merge_glob_depth(&a, &b), 0); /* unbounded wins */
	CHECK_INT(sbx_merge_glob_depth(&a, NULL), 3);
	sbx_fs_clear(&a);
	sbx_fs_clear(&b);
}

TEST(effective_keeps_base_denies_and_order)
{
	struct sbx_profile base = { .type = SBX_MANAGED }, eff;
	struct sbx_additional a = { .network = 1, .has_fs = true };

	sbx_fs_push_special(&base.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&base.fs, "/repo/secret", SBX_DENY, false);
	sbx_fs_push_path(&a.fs, "/repo", SBX_WRITE, false);
	sbx_fs_push_path(&a.fs, "/repo/secret", SBX_DENY, false); /* already there */
	sbx_fs_push_path(&a.fs, "/repo/secret", SBX_WRITE, false); /* cannot undo the deny */
	CHECK_INT(sbx_profile_effective(&base, &a, &eff), 0);
	CHECK_INT(eff.fs.n, 4);
	CHECK(eff.network);
	if (eff.fs.n == 4) {
		CHECK_INT(eff.fs.entries[1].access, SBX_DENY);
		CHECK_STR(eff.fs.entries[2].path, "/repo");
		CHECK_INT(eff.fs.entries[3].access, SBX_WRITE);
	}
	{
		struct sbx_ctx ctx = vec_ctx("/repo");

		CHECK_INT(sbx_fs_resolve_access(&eff.fs, &ctx, "/repo/secret/x", NULL), SBX_DENY);
	}
	sbx_profile_free(&eff);
	/* An unrestricted base is unchanged by file system additions. */
	sbx_profile_free(&base);
	base = (struct sbx_profile){ .type = SBX_DISABLED, .network = true };
	base.fs.kind = SBX_FS_UNRESTRICTED;
	CHECK_INT(sbx_profile_effective(&base, &a, &eff), 0);
	CHECK_INT(eff.fs.n, 0);
	sbx_profile_free(&eff);
	sbx_additional_free(&a);
}
