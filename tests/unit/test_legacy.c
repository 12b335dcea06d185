/* SPDX-License-Identifier: MIT */
/* test_legacy.c - legacy SandboxPolicy to profile and back, and the compatibility fallback. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

static const char *const l2c_ids[] = { "l2c-01", "l2c-02", "l2c-04", "l2c-05" };
static const char *const c2l_ids[] = { "c2l-01", "c2l-02", "c2l-04",
				       "c2l-05", "c2l-07", "c2l-08" };

TEST(vectors_legacy_to_canonical_covered)
{
	vec_check_area("legacy_to_canonical", l2c_ids, sizeof(l2c_ids) / sizeof(l2c_ids[0]));
}

TEST(vectors_canonical_to_legacy_covered)
{
	vec_check_area("canonical_to_legacy", c2l_ids, sizeof(c2l_ids) / sizeof(c2l_ids[0]));
}

static int legacy_of(const json_t *v, struct sbx_legacy *l)
{
	char *text = vec_text(v);
	struct sbx_diag d;
	int r = sbx_legacy_load_buf(text, strlen(text), "vector", l, &d);

	if (r)
		t_fail(__FILE__, __LINE__, "legacy %s: %s", text, d.msg);
	free(text);
	return r;
}

static json_t *jv_of(char *s)
{
	json_t *v = s ? json_loads(s, 0, NULL) : NULL;

	free(s);
	return v;
}

TEST(vec_l2c_01)
{
	json_t *in, *want, *got;
	struct sbx_legacy l;
	struct sbx_profile p;
	struct sbx_ctx ctx = vec_ctx(vec_cwd());

	if (!vec_io("l2c-01", &in, &want))
		return;
	CHECK_INT(legacy_of(json_object_get(in, "sandbox_policy"), &l), 0);
	/*
	 * The cwd's concrete protected subpaths that sbxrun adds for the cwd name the same
	 * targets as the symbolic project_roots ones, so the result is exactly From<&policy>.
	 */
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	CHECK_INT(p.type, SBX_MANAGED);
	CHECK(!p.network);
	got = vec_entries_jv(&p.fs);
	VEC_JSON_EQ(got, json_object_get(want, "entries"));
	json_decref(got);
	sbx_profile_free(&p);
	sbx_legacy_free(&l);
	vec_done(in, want);
}

TEST(vec_l2c_02)
{
	json_t *in, *want, *got;
	struct sbx_legacy l;
	struct sbx_profile p;
	struct sbx_ctx ctx = vec_ctx(vec_cwd());

	if (!vec_io("l2c-02", &in, &want))
		return;
	CHECK_INT(legacy_of(json_object_get(in, "sandbox_policy"), &l), 0);
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	got = jv_of(sbx_profile_to_json(&p));
	VEC_JSON_EQ(got, json_object_get(want, "permission_profile"));
	json_decref(got);
	sbx_profile_free(&p);
	sbx_legacy_free(&l);
	vec_done(in, want);
}

/* Is want an ordered subsequence of got (both arrays)? */
static bool subsequence(const json_t *got, const json_t *want)
{
	size_t j = 0;

	for (size_t i = 0; i < json_array_size(got) && j < json_array_size(want); i++)
		if (json_equal(json_array_get(got, i), json_array_get(want, j)))
			j++;
	return j == json_array_size(want);
}

TEST(vec_l2c_04)
{
	json_t *in, *want, *got, *pol, *roots;
	struct sbx_legacy l;
	struct sbx_profile p;
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	const char *extra = vec_dir("$EXTRA");
	char *git = NULL;

	if (!vec_io("l2c-04", &in, &want))
		return;
	/* "$EXTRA (contains .git dir)": make it so, and use the bare directory. */
	if (asprintf(&git, "%s/.git", extra) > 0)
		vec_mkdir(git);
	free(git);
	pol = json_deep_copy(json_object_get(in, "sandbox_policy"));
	roots = json_pack("[s]", extra);
	json_object_set_new(pol, "writable_roots", roots);
	CHECK_INT(legacy_of(pol, &l), 0);
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	got = vec_entries_jv(&p.fs);
	/*
	 * The vector shows with_additional_legacy_workspace_writable_roots on [project_roots
	 * write]; the whole projection has those entries in that order among the others.
	 */
	if (!subsequence(got, want))
		VEC_JSON_EQ(got, want);
	json_decref(got);
	sbx_profile_free(&p);
	sbx_legacy_free(&l);
	json_decref(pol);
	vec_done(in, want);
}

/* Replaces a leading "/ws" or "/w2" component in every string of v. */
static json_t *rebase(const json_t *v, const char *ws, const char *w2)
{
	json_t *out, *x;
	const char *k, *s;
	char *t = NULL;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_STRING:
		s = json_string_value(v);
		if ((strncmp(s, "/ws", 3) == 0 || strncmp(s, "/w2", 3) == 0) &&
		    (s[3] == '\0' || s[3] == '/')) {
			if (asprintf(&t, "%s%s", s[2] == 's' ? ws : w2, s + 3) < 0)
				return NULL;
			out = json_string(t);
			free(t);
			return out;
		}
		return json_deep_copy(v);
	case JSON_ARRAY:
		out = json_array();
		json_array_foreach((json_t *)v, i, x)
			json_array_append_new(out, rebase(x, ws, w2));
		return out;
	case JSON_OBJECT:
		out = json_object();
		json_object_foreach((json_t *)v, k, x)
			json_object_set_new(out, k, rebase(x, ws, w2));
		return out;
	default:
		return json_deep_copy(v);
	}
}

TEST(vec_l2c_05)
{
	json_t *in, *want, *exp, *entries, *e, *got;
	char *ws = vec_fresh_dir(), *w2 = vec_fresh_dir();
	const char *roots[2] = { ws, w2 };
	struct sbx_legacy l = { .type = SBX_LEGACY_WORKSPACE_WRITE, .network_access = true,
				.exclude_slash_tmp = true };
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_profile p, m;
	size_t i;

	if (!vec_io("l2c-05", &in, &want))
		goto out;
	/* sandbox_mode=workspace-write, writable_roots=[/w2], network on, exclude_slash_tmp */
	l.writable_roots = (char **)roots + 1;
	l.n_writable_roots = 1;
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	l.writable_roots = NULL;
	ctx.workspace_roots = roots;
	ctx.n_workspace_roots = 2;
	CHECK_INT(sbx_profile_materialize(&p, &ctx, &m), 0);
	/*
	 * Two deliberate differences from the observed 0.169 helper JSON: sbxrun protects
	 * .git, .agents and .codex (PROFILE.md 4; .aws is a 0.169 addition), and materialization
	 * drops the exact duplicate "/w2 write" that 0.169 passes along.
	 */
	exp = rebase(json_object_get(want, "helper_json"), ws, w2);
	entries = json_object_get(json_object_get(exp, "file_system"), "entries");
	for (i = json_array_size(entries); i-- > 0;) {
		const char *path;
		bool dup = false;

		e = json_array_get(entries, i);
		path = json_string_value(json_object_get(json_object_get(e, "path"), "path"));
		for (size_t j = 0; j < i; j++)
			dup = dup || json_equal(json_array_get(entries, j), e);
		if (dup || (path && strlen(path) > 5 && !strcmp(path + strlen(path) - 5, "/.aws")))
			json_array_remove(entries, i);
	}
	got = jv_of(sbx_profile_to_json(&m));
	VEC_JSON_EQ(got, exp);
	json_decref(got);
	json_decref(exp);
	sbx_profile_free(&p);
	sbx_profile_free(&m);
	vec_done(in, want);
out:
	free(ws);
	free(w2);
}

/* A vector's file_system_policy and network as a managed profile. */
static void profile_of(const json_t *in, struct sbx_profile *p)
{
	memset(p, 0, sizeof(*p));
	p->type = SBX_MANAGED;
	CHECK_INT(vec_fs_policy(json_object_get(in, "file_system_policy"), &p->fs), 0);
	p->network = strcmp(json_string_value(json_object_get(in, "network")) ?: "", "enabled") == 0;
}

static void check_c2l(const char *id)
{
	json_t *in, *want, *got;
	struct sbx_profile p;
	struct sbx_legacy l;
	struct sbx_diag d;
	const char *cwd;
	struct sbx_ctx ctx;

	if (!vec_io(id, &in, &want))
		return;
	cwd = json_string_value(json_object_get(in, "cwd"));
	ctx = vec_ctx(cwd ? cwd : vec_cwd());
	profile_of(in, &p);
	sbx_diag_clear(&d);
	if (json_object_get(want, "error_kind")) {
		CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &l, &d), SBX_E_NO_LEGACY);
		CHECK_STR(d.msg, json_string_value(json_object_get(want, "message")));
	} else {
		CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &l, &d), 0);
		got = jv_of(sbx_legacy_to_json(&l));
		VEC_JSON_EQ(got, want);
		json_decref(got);
		sbx_legacy_free(&l);
	}
	sbx_profile_free(&p);
	vec_done(in, want);
}

TEST(vec_c2l_01) { check_c2l("c2l-01"); }
TEST(vec_c2l_02) { check_c2l("c2l-02"); }
TEST(vec_c2l_04) { check_c2l("c2l-04"); }
TEST(vec_c2l_05) { check_c2l("c2l-05"); }

TEST(vec_c2l_07)
{
	json_t *in, *want;
	struct sbx_profile p = { .type = SBX_MANAGED, .network = true };
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_legacy l;
	struct sbx_diag d;

	if (!vec_io("c2l-07", &in, &want))
		return;
	/* fs=[root:read, /elsewhere:write], network=enabled, cwd=/repo */
	sbx_fs_push_special(&p.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&p.fs, "/elsewhere", SBX_WRITE, false);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &l, &d), SBX_E_NO_LEGACY);
	CHECK_INT(sbx_profile_compat_legacy(&p, &ctx, &l), 0);
	CHECK_INT(l.type, SBX_LEGACY_WORKSPACE_WRITE);
	CHECK_STR(json_string_value(json_object_get(want, "type")), "workspace-write");
	CHECK_INT(l.n_writable_roots, 1);
	CHECK_STR(l.n_writable_roots ? l.writable_roots[0] : NULL, "/elsewhere");
	CHECK(l.network_access);
	CHECK(l.exclude_tmpdir_env_var); /* TMPDIR unset */
	CHECK(l.exclude_slash_tmp);	 /* /tmp not writable */
	sbx_legacy_free(&l);
	/* TMPDIR under a writable root, and /tmp writable, flip the exclusions. */
	ctx.tmpdir = "/elsewhere/tmp";
	sbx_fs_push_special(&p.fs, SBX_SP_SLASH_TMP, NULL, SBX_WRITE, false);
	CHECK_INT(sbx_profile_compat_legacy(&p, &ctx, &l), 0);
	CHECK(!l.exclude_tmpdir_env_var);
	CHECK(!l.exclude_slash_tmp);
	CHECK(l.n_writable_roots == 2); /* /elsewhere and /tmp; never the cwd */
	sbx_legacy_free(&l);
	sbx_profile_free(&p);
	vec_done(in, want);
}

/*
 * c2l-08: needs_direct_runtime_enforcement, because the legacy projection cannot express the
 * read-only docs carve-out. Shown as it matters to sbxrun: the roots of the profile differ
 * from the roots of its legacy round trip.
 */
TEST(vec_c2l_08)
{
	json_t *in, *want;
	struct sbx_profile p, back;
	struct sbx_legacy l;
	struct sbx_diag d;
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	struct sbx_roots a, b;
	char *docs = NULL;

	if (!vec_io("c2l-08", &in, &want))
		return;
	CHECK(json_is_true(json_object_get(want, "needs_direct_runtime_enforcement")));
	profile_of(in, &p);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &l, &d), 0);
	CHECK_INT(l.type, SBX_LEGACY_WORKSPACE_WRITE);
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &back), 0);
	CHECK_INT(sbx_fs_roots(&p.fs, &ctx, &a, &d), 0);
	CHECK_INT(sbx_fs_roots(&back.fs, &ctx, &b, &d), 0);
	if (asprintf(&docs, "%s/docs", vec_cwd()) > 0 && a.n_writable == 1 && b.n_writable >= 1) {
		bool in_a = false, in_b = false;

		for (size_t i = 0; i < a.writable[0].n_read_only; i++)
			in_a = in_a || !strcmp(a.writable[0].read_only[i], docs);
		for (size_t i = 0; i < b.writable[0].n_read_only; i++)
			in_b = in_b || !strcmp(b.writable[0].read_only[i], docs);
		CHECK(in_a && !in_b);
	} else {
		CHECK(!"roots as expected");
	}
	free(docs);
	sbx_roots_free(&a);
	sbx_roots_free(&b);
	sbx_profile_free(&back);
	sbx_legacy_free(&l);
	sbx_profile_free(&p);
	vec_done(in, want);
}

TEST(legacy_other_kinds)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_legacy l = { .type = SBX_LEGACY_DANGER_FULL_ACCESS }, back;
	struct sbx_profile p;
	struct sbx_diag d;

	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	CHECK(p.type == SBX_DISABLED && p.fs.kind == SBX_FS_UNRESTRICTED && p.network);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), 0);
	CHECK_INT(back.type, SBX_LEGACY_DANGER_FULL_ACCESS);
	sbx_profile_free(&p);
	l = (struct sbx_legacy){ .type = SBX_LEGACY_EXTERNAL_SANDBOX, .network_access = true };
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	CHECK(p.type == SBX_EXTERNAL && p.fs.kind == SBX_FS_EXTERNAL && p.network);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), 0);
	CHECK(back.type == SBX_LEGACY_EXTERNAL_SANDBOX && back.network_access);
	sbx_profile_free(&p);
	/* A writable tmpdir alone cannot be expressed; a read-only profile can. */
	p = (struct sbx_profile){ .type = SBX_MANAGED };
	sbx_fs_push_special(&p.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), 0);
	CHECK_INT(back.type, SBX_LEGACY_READ_ONLY);
	sbx_fs_push_special(&p.fs, SBX_SP_TMPDIR, NULL, SBX_WRITE, false);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), SBX_E_NO_LEGACY);
	/* A path equal to the cwd counts as the workspace; project_roots{sub} is a root. */
	sbx_fs_push_path(&p.fs, "/repo", SBX_WRITE, false);
	sbx_fs_push_special(&p.fs, SBX_SP_PROJECT_ROOTS, "out", SBX_WRITE, false);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), 0);
	CHECK_INT(back.type, SBX_LEGACY_WORKSPACE_WRITE);
	CHECK(back.n_writable_roots == 1 && !strcmp(back.writable_roots[0], "/repo/out"));
	CHECK(!back.exclude_tmpdir_env_var && back.exclude_slash_tmp);
	sbx_legacy_free(&back);
	sbx_profile_free(&p);
}

TEST(legacy_workspace_gitdir_pointer_in_cwd)
{
	char *top = vec_fresh_dir(), *cwd = NULL, *gd = NULL, *dotgit = NULL;
	struct sbx_legacy l = { .type = SBX_LEGACY_WORKSPACE_WRITE };
	struct sbx_profile p;
	struct sbx_entry want = { .kind = SBX_PATH, .access = SBX_READ, .skip_missing = true };
	struct sbx_ctx ctx;

	if (asprintf(&cwd, "%s/wt", top) < 0 || asprintf(&gd, "%s/repo/.git/worktrees/wt", top) < 0 ||
	    asprintf(&dotgit, "%s/.git", cwd) < 0)
		goto out;
	vec_mkdir(gd);
	vec_mkfile(dotgit, "gitdir: ../repo/.git/worktrees/wt\n");
	ctx = vec_ctx(cwd);
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	/* The pointer's target is protected as a concrete path; cwd/.git stays symbolic. */
	want.path = gd;
	CHECK(sbx_fs_contains(&p.fs, &want));
	want.path = dotgit;
	CHECK(!sbx_fs_contains(&p.fs, &want));
	sbx_profile_free(&p);
out:
	free(top);
	free(cwd);
	free(gd);
	free(dotgit);
}
