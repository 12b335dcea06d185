/* SPDX-License-Identifier: MIT */
/*
 * test_resolve.c - predicates, precedence, specials, protected metadata and the roots every
 * platform enforces from.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

/* The vector's input (substituted) and its policy; NULL when the vector is missing. */
static json_t *policy_of(const char *id, struct sbx_fs *fs)
{
	json_t *v = vec_get(id), *in;

	memset(fs, 0, sizeof(*fs));
	if (!v)
		return NULL;
	in = vec_subst(json_object_get(v, "input"));
	CHECK_INT(vec_fs_policy(json_object_get(in, "file_system_policy"), fs), 0);
	return in;
}

static char *cat(const char *a, const char *b)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s", a, b) < 0)
		return NULL;
	return s;
}

static bool has_str(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static bool has_name(const struct sbx_writable_root *w, const char *name)
{
	for (size_t i = 0; i < w->n_protected_missing; i++)
		if (strcmp(w->protected_missing[i], name) == 0)
			return true;
	return false;
}

static const struct sbx_writable_root *find_root(const struct sbx_roots *r, const char *p)
{
	for (size_t i = 0; i < r->n_writable; i++)
		if (strcmp(r->writable[i].root, p) == 0)
			return &r->writable[i];
	return NULL;
}

/* ---- full_disk_access ----------------------------------------------------------------------- */

/* Codex's write-narrowing table, row by row. */
TEST(full_write_narrowing_table)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_fs fs = { 0 };

	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_WRITE, false);
	CHECK(sbx_fs_full_write(&fs, &ctx));
	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false); /* root read: no */
	CHECK(sbx_fs_full_write(&fs, &ctx));
	sbx_fs_push_path(&fs, "/a", SBX_READ, false); /* path read: yes ... */
	CHECK(!sbx_fs_full_write(&fs, &ctx));
	sbx_fs_push_path(&fs, "/a", SBX_WRITE, false); /* ... unless a write names it */
	CHECK(sbx_fs_full_write(&fs, &ctx));
	sbx_fs_push_special(&fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_READ, false);
	CHECK(!sbx_fs_full_write(&fs, &ctx));
	sbx_fs_push_special(&fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false);
	CHECK(sbx_fs_full_write(&fs, &ctx));
	sbx_fs_push_special(&fs, SBX_SP_SLASH_TMP, NULL, SBX_READ, false);
	CHECK(!sbx_fs_full_write(&fs, &ctx));
	ctx.platform = SBX_PLATFORM_WINDOWS; /* slash_tmp off Unix never narrows */
	CHECK(sbx_fs_full_write(&fs, &ctx));
	ctx.platform = SBX_PLATFORM_LINUX;
	fs.n--;
	vec_push_glob(&fs, "/a/*.pem", SBX_DENY);
	CHECK(!sbx_fs_full_write(&fs, &ctx));
	sbx_fs_clear(&fs);
}

TEST(full_read_rules)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_fs fs = { 0 };

	CHECK(!sbx_fs_full_read(&fs, &ctx));
	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_WRITE, false);
	CHECK(sbx_fs_full_read(&fs, &ctx));
	sbx_fs_push_special(&fs, SBX_SP_SLASH_TMP, NULL, SBX_DENY, false);
	CHECK(!sbx_fs_full_read(&fs, &ctx));
	ctx.platform = SBX_PLATFORM_WINDOWS; /* a slash_tmp deny off Unix is ignored */
	CHECK(sbx_fs_full_read(&fs, &ctx));
	sbx_fs_clear(&fs);
	fs.kind = SBX_FS_EXTERNAL;
	CHECK(sbx_fs_full_read(&fs, &ctx) && sbx_fs_full_write(&fs, &ctx));
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, "/x", NULL), SBX_WRITE);
}

TEST(platform_defaults_rule)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_fs fs = { 0 };

	sbx_fs_push_special(&fs, SBX_SP_MINIMAL, NULL, SBX_READ, false);
	CHECK(sbx_fs_include_platform_defaults(&fs, &ctx));
	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	CHECK(!sbx_fs_include_platform_defaults(&fs, &ctx)); /* full read makes it moot */
	sbx_fs_clear(&fs);
	sbx_fs_push_special(&fs, SBX_SP_MINIMAL, NULL, SBX_DENY, false);
	CHECK(!sbx_fs_include_platform_defaults(&fs, &ctx));
	sbx_fs_clear(&fs);
}

/* ---- precedence ----------------------------------------------------------------------------- */

TEST(precedence_middle_and_outside)
{
	struct sbx_fs fs;
	json_t *in = policy_of("pre-01", &fs);
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	char *priv = cat(vec_cwd(), "/docs/private/x"), *rel = NULL;

	if (!in)
		return;
	rel = strdup("docs/private/public/y");
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, priv, NULL), SBX_DENY);
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, rel, NULL), SBX_WRITE); /* relative: cwd */
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, "/elsewhere", NULL), SBX_DENY); /* no match */
	free(priv);
	free(rel);
	sbx_fs_clear(&fs);
	json_decref(in);
}

TEST(can_write_protected_names)
{
	struct sbx_ctx ctx = vec_ctx("/ws");
	struct sbx_fs fs = { 0 };

	sbx_fs_push_path(&fs, "/ws", SBX_WRITE, false);
	CHECK(sbx_fs_can_write(&fs, &ctx, "/ws/src/a.c"));
	CHECK(!sbx_fs_can_write(&fs, &ctx, "/ws/.git/config"));
	CHECK(!sbx_fs_can_write(&fs, &ctx, "/ws/.agents"));
	CHECK(sbx_fs_can_write(&fs, &ctx, "/ws/src/.git/x")); /* only the first component */
	sbx_fs_push_path(&fs, "/ws/.git/hooks", SBX_WRITE, false);
	CHECK(sbx_fs_can_write(&fs, &ctx, "/ws/.git/hooks/pre-commit"));
	CHECK(!sbx_fs_can_write(&fs, &ctx, "/ws/.git/config"));
	sbx_fs_clear(&fs);
	/* Full-disk write does not protect metadata (as Codex). */
	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_WRITE, false);
	CHECK(sbx_fs_can_write(&fs, &ctx, "/ws/.git/config"));
	sbx_fs_clear(&fs);
}

/* ---- specials ------------------------------------------------------------------------------- */

static char *resolve_special(enum sbx_special sp, const char *sub, const struct sbx_ctx *ctx)
{
	struct sbx_entry e = { .kind = SBX_SPECIAL, .special = sp, .subpath = (char *)sub };

	return sbx_special_resolve(&e, ctx);
}

TEST(special_resolution)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	char *s;
	struct stat st;

	s = resolve_special(SBX_SP_ROOT, NULL, &ctx);
	CHECK_STR(s, "/");
	free(s);
	s = resolve_special(SBX_SP_PROJECT_ROOTS, "docs/../src", &ctx);
	CHECK_STR(s, "/repo/src");
	free(s);
	s = resolve_special(SBX_SP_PROJECT_ROOTS, NULL, &ctx);
	CHECK_STR(s, "/repo");
	free(s);
	CHECK(resolve_special(SBX_SP_TMPDIR, NULL, &ctx) == NULL); /* unset */
	ctx.tmpdir = "";
	CHECK(resolve_special(SBX_SP_TMPDIR, NULL, &ctx) == NULL);
	ctx.tmpdir = "relative/tmp"; /* dropped, unlike Codex */
	CHECK(resolve_special(SBX_SP_TMPDIR, NULL, &ctx) == NULL);
	ctx.tmpdir = "/var/tmp//x/";
	s = resolve_special(SBX_SP_TMPDIR, NULL, &ctx);
	CHECK_STR(s, "/var/tmp/x");
	free(s);
	s = resolve_special(SBX_SP_SLASH_TMP, NULL, &ctx);
	if (stat("/tmp", &st) == 0 && S_ISDIR(st.st_mode))
		CHECK_STR(s, "/tmp");
	else
		CHECK(s == NULL);
	free(s);
	CHECK(resolve_special(SBX_SP_MINIMAL, NULL, &ctx) == NULL);
	CHECK(resolve_special(SBX_SP_UNKNOWN, "x", &ctx) == NULL);
	ctx.platform = SBX_PLATFORM_WINDOWS;
	CHECK(resolve_special(SBX_SP_SLASH_TMP, NULL, &ctx) == NULL);
}

TEST(windows_paths_never_resolve_elsewhere)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;

	sbx_fs_push_path(&fs, "C:\\work", SBX_WRITE, false);
	sbx_fs_push_path(&fs, "/repo", SBX_READ, false);
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, "C:\\work\\x", NULL), SBX_DENY);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK_INT(r.n_writable, 0);
	CHECK_INT(r.n_readable, 1);
	sbx_roots_free(&r);
	/* On Windows the same entry resolves, and the POSIX one does not. */
	ctx.platform = SBX_PLATFORM_WINDOWS;
	ctx.cwd = "C:\\work";
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, "C:\\work\\x", NULL), SBX_WRITE);
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, "/repo", NULL), SBX_DENY);
	sbx_fs_clear(&fs);
}

/* ---- default read-only subpaths ------------------------------------------------------------- */

TEST(default_read_only_subpaths)
{
	char *root = vec_fresh_dir(), *p, **v;
	size_t n;

	CHECK_INT(sbx_default_read_only_subpaths(root, false, NULL, &v, &n, NULL), 0);
	CHECK_INT(n, 0);
	sbx_strv_free(v, n);
	CHECK_INT(sbx_default_read_only_subpaths(root, true, NULL, &v, &n, NULL), 0);
	p = cat(root, "/.codex");
	CHECK_INT(n, 1);
	CHECK_STR(n ? v[0] : NULL, p);
	free(p);
	sbx_strv_free(v, n);

	/* .git as a directory, .agents only as a directory, .codex as a directory */
	p = cat(root, "/.git");
	vec_mkdir(p);
	free(p);
	p = cat(root, "/.agents");
	vec_mkfile(p, "not a directory");
	free(p);
	p = cat(root, "/.codex");
	vec_mkdir(p);
	free(p);
	CHECK_INT(sbx_default_read_only_subpaths(root, false, NULL, &v, &n, NULL), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK(strstr(v[0], "/.git") != NULL);
		CHECK(strstr(v[1], "/.codex") != NULL);
	}
	sbx_strv_free(v, n);
	free(root);
}

TEST(gitdir_pointer_files)
{
	char *top = vec_fresh_dir(), *wt = cat(top, "/worktree"), *gd = cat(top, "/main/.git/wt"),
	     *dotgit = cat(wt, "/.git"), *text = NULL, **v;
	size_t n;

	vec_mkdir(wt);
	vec_mkdir(gd);
	/* Relative to the file's directory, with surrounding whitespace trimmed. */
	vec_mkfile(dotgit, "  gitdir:   ../main/.git/wt  \n");
	CHECK_INT(sbx_default_read_only_subpaths(wt, false, NULL, &v, &n, NULL), 0);
	CHECK_INT(n, 2);
	CHECK_STR(n > 0 ? v[0] : NULL, gd); /* the target comes first */
	CHECK_STR(n > 1 ? v[1] : NULL, dotgit);
	sbx_strv_free(v, n);
	/* Absolute pointer. */
	if (asprintf(&text, "gitdir: %s\n", gd) > 0)
		vec_mkfile(dotgit, text);
	free(text);
	CHECK_INT(sbx_default_read_only_subpaths(wt, false, NULL, &v, &n, NULL), 0);
	CHECK_STR(n > 0 ? v[0] : NULL, gd);
	sbx_strv_free(v, n);
	/* A target that does not exist, and a malformed file: .git alone. */
	vec_mkfile(dotgit, "gitdir: ../nowhere\n");
	CHECK_INT(sbx_default_read_only_subpaths(wt, false, NULL, &v, &n, NULL), 0);
	CHECK_INT(n, 1);
	sbx_strv_free(v, n);
	vec_mkfile(dotgit, "this is not a pointer\n");
	CHECK_INT(sbx_default_read_only_subpaths(wt, false, NULL, &v, &n, NULL), 0);
	CHECK_INT(n, 1);
	CHECK_STR(n ? v[0] : NULL, dotgit);
	sbx_strv_free(v, n);
	free(top);
	free(wt);
	free(gd);
	free(dotgit);
}

/* ---- roots ---------------------------------------------------------------------------------- */

TEST(roots_layered_carveouts)
{
	char *w = vec_fresh_dir();
	char *docs = cat(w, "/docs"), *priv = cat(w, "/docs/private"),
	     *pub = cat(w, "/docs/private/public"), *pr = cat(w, "/docs/private/pubread");
	struct sbx_ctx ctx = vec_ctx(w);
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;
	const struct sbx_writable_root *wr;

	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_special(&fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false);
	sbx_fs_push_path(&fs, docs, SBX_READ, false);
	sbx_fs_push_path(&fs, priv, SBX_DENY, false);
	sbx_fs_push_path(&fs, pub, SBX_WRITE, false);
	sbx_fs_push_path(&fs, pr, SBX_READ, false);
	sbx_fs_push_special(&fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false); /* duplicate */
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK(!r.full_read && !r.full_write && !r.platform_defaults);
	CHECK_INT(r.n_writable, 2);
	CHECK_STR(r.n_writable > 0 ? r.writable[0].root : NULL, w); /* sorted by depth */
	CHECK_STR(r.n_writable > 1 ? r.writable[1].root : NULL, pub);
	wr = find_root(&r, w);
	CHECK(wr && has_str(wr->read_only, wr->n_read_only, docs));
	CHECK(wr && !has_str(wr->read_only, wr->n_read_only, pr));
	CHECK(wr && wr->n_protected_missing == 3);
	/* "/" and the read path re-opened inside the denied tree are readable roots. */
	CHECK_INT(r.n_readable, 2);
	CHECK(has_str(r.readable, r.n_readable, "/"));
	CHECK(has_str(r.readable, r.n_readable, pr));
	CHECK_INT(r.n_unreadable, 1);
	CHECK_STR(r.n_unreadable ? r.unreadable[0] : NULL, priv);
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(docs);
	free(priv);
	free(pub);
	free(pr);
	free(w);
}

/*
 * The roots of a loaded profile borrow its paths (kept in the profile's arena) rather than copy
 * them, and give them back to no one: the profile frees them, after the roots.
 */
TEST(roots_borrow_a_loaded_profiles_paths)
{
	char *w = vec_fresh_dir(), *text = NULL;
	char *a = cat(w, "/a"), *ab = cat(w, "/a/b"), *c = cat(w, "/c");
	struct sbx_ctx ctx = vec_ctx(w);
	struct sbx_profile p = {0};
	struct sbx_plan plan;
	struct sbx_diag d;
	const struct sbx_writable_root *wr;

	CHECK(mkdir(a, 0755) == 0 && mkdir(ab, 0755) == 0 && mkdir(c, 0755) == 0);
	CHECK(asprintf(&text,
		       "{\"type\":\"managed\",\"network\":\"restricted\",\"file_system\":{"
		       "\"type\":\"restricted\",\"entries\":["
		       "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"minimal\"}},"
		       "\"access\":\"read\"},"
		       "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\"}},"
		       "\"access\":\"write\"},"
		       "{\"path\":{\"type\":\"path\",\"path\":\"%s\"},\"access\":\"deny\"},"
		       "{\"path\":{\"type\":\"path\",\"path\":\"%s\"},\"access\":\"read\"},"
		       "{\"path\":{\"type\":\"path\",\"path\":\"%s\"},\"access\":\"read\"},"
		       "{\"path\":{\"type\":\"path\",\"path\":\"/etc\"},\"access\":\"read\"}]}}",
		       a, ab, c) > 0);
	CHECK_INT(sbx_profile_load_buf(text, strlen(text), "t.json", &p, NULL, NULL, &d), 0);
	CHECK_INT(sbx_plan_build_take(&p, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan,
				      &d),
		  0);
	/* The deny, the read inside it and the read elsewhere: the profile's own strings. */
	CHECK_INT(plan.roots.n_unreadable, 1);
	CHECK(plan.roots.n_unreadable == 1 &&
	      sbx_arena_owns(&plan.profile.fs.paths, plan.roots.unreadable[0]));
	CHECK(has_str(plan.roots.readable, plan.roots.n_readable, ab));
	CHECK(has_str(plan.roots.readable, plan.roots.n_readable, "/etc"));
	for (size_t i = 0; i < plan.roots.n_readable; i++)
		CHECK(sbx_arena_owns(&plan.profile.fs.paths, plan.roots.readable[i]) ==
		      (strcmp(plan.roots.readable[i], ab) == 0 ||
		       strcmp(plan.roots.readable[i], "/etc") == 0));
	/* The read under the writable root is its carve-out, borrowed too; the root is a copy. */
	wr = find_root(&plan.roots, w);
	CHECK(wr && has_str(wr->read_only, wr->n_read_only, c));
	for (size_t i = 0; wr && i < wr->n_read_only; i++)
		if (strcmp(wr->read_only[i], c) == 0)
			CHECK(sbx_arena_owns(&plan.profile.fs.paths, wr->read_only[i]));
	CHECK(wr && !sbx_arena_owns(&plan.profile.fs.paths, wr->root));
	/* Freed once each (ASan and the leak checker say so in the sanitized build). */
	sbx_plan_free(&plan);
	free(text);
	free(a);
	free(ab);
	free(c);
	free(w);
}

TEST(roots_deny_beats_write_at_same_path)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;

	sbx_fs_push_path(&fs, "/repo/a", SBX_WRITE, false);
	sbx_fs_push_path(&fs, "/repo/a", SBX_DENY, false);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK_INT(r.n_writable, 0);
	CHECK_INT(r.n_unreadable, 1);
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
}

TEST(roots_skip_missing)
{
	char *w = vec_fresh_dir(), *miss = cat(w, "/missing"), *miss2 = cat(w, "/missing2"),
	     *there = cat(w, "/there");
	struct sbx_ctx ctx = vec_ctx(w);
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;

	vec_mkdir(there);
	sbx_fs_push_path(&fs, w, SBX_WRITE, false);
	sbx_fs_push_path(&fs, miss, SBX_READ, true);   /* missing + skip: nothing */
	sbx_fs_push_path(&fs, miss2, SBX_READ, false); /* missing, no skip: still a carve-out */
	sbx_fs_push_path(&fs, there, SBX_READ, true);  /* exists: a carve-out */
	sbx_fs_push_path(&fs, "/nonexistent-sbx/x", SBX_DENY, true);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK_INT(r.n_writable, 1);
	if (r.n_writable) {
		CHECK(!has_str(r.writable[0].read_only, r.writable[0].n_read_only, miss));
		CHECK(has_str(r.writable[0].read_only, r.writable[0].n_read_only, miss2));
		CHECK(has_str(r.writable[0].read_only, r.writable[0].n_read_only, there));
	}
	CHECK_INT(r.n_unreadable, 0);
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(w);
	free(miss);
	free(miss2);
	free(there);
}

TEST(roots_multiple_workspace_roots)
{
	char *a = vec_fresh_dir(), *b = vec_fresh_dir(), *agit = cat(a, "/.git"),
	     *benv = cat(b, "/.env"), *pat = NULL;
	const char *roots[] = { a, b };
	struct sbx_ctx ctx = vec_ctx(a);
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;
	const struct sbx_writable_root *wa, *wb;

	vec_mkdir(agit);
	ctx.workspace_roots = roots;
	ctx.n_workspace_roots = 2;
	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_special(&fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false);
	vec_push_glob(&fs, "codex-project-roots://**/*.env", SBX_DENY);
	vec_push_glob(&fs, "secrets/*", SBX_DENY);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK_INT(r.n_writable, 2);
	wa = find_root(&r, a);
	wb = find_root(&r, b);
	CHECK(wa && has_str(wa->read_only, wa->n_read_only, agit) && !has_name(wa, ".git"));
	CHECK(wb && has_name(wb, ".git") && has_name(wb, ".codex") && wb->n_read_only == 0);
	CHECK_INT(r.n_deny_globs, 3);
	if (asprintf(&pat, "%s/**/*.env", b) > 0)
		CHECK(has_str(r.deny_globs, r.n_deny_globs, pat));
	free(pat);
	if (asprintf(&pat, "%s/secrets/*", a) > 0) /* relative: against the cwd */
		CHECK(has_str(r.deny_globs, r.n_deny_globs, pat));
	free(pat);
	CHECK(!r.full_read); /* a deny glob clears full read */
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(a);
	free(b);
	free(agit);
	free(benv);
}

TEST(roots_gitdir_target_under_other_root)
{
	char *top = vec_fresh_dir(), *wt = cat(top, "/wt"), *main = cat(top, "/main"),
	     *gd = cat(top, "/main/.git/worktrees/wt"), *dotgit = cat(top, "/wt/.git");
	struct sbx_ctx ctx = vec_ctx(wt);
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;
	const struct sbx_writable_root *w;

	vec_mkdir(gd);
	vec_mkfile(dotgit, "gitdir: ../main/.git/worktrees/wt\n");
	sbx_fs_push_path(&fs, wt, SBX_WRITE, false);
	sbx_fs_push_path(&fs, main, SBX_WRITE, false);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	w = find_root(&r, wt);
	CHECK(w && has_str(w->read_only, w->n_read_only, dotgit));
	w = find_root(&r, main);
	/* main's own .git covers the target already; the pointer target lands there too. */
	CHECK(w && has_str(w->read_only, w->n_read_only, gd));
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(top);
	free(wt);
	free(main);
	free(gd);
	free(dotgit);
}

TEST(roots_symlinked_protected_name_is_carved_out)
{
	char *w = vec_fresh_dir(), *link = cat(w, "/.agents");
	struct sbx_ctx ctx = vec_ctx(w);
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;

	/* A dangling link is still a name in the way: carved out, not "missing". */
	CHECK_INT(symlink("/nonexistent-sbx-target", link), 0);
	sbx_fs_push_path(&fs, w, SBX_WRITE, false);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK(r.n_writable == 1 && has_str(r.writable[0].read_only, r.writable[0].n_read_only, link));
	CHECK(r.n_writable == 1 && !has_name(&r.writable[0], ".agents"));
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(link);
	free(w);
}

TEST(roots_full_write_and_unrestricted)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;

	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_WRITE, false);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK(r.full_read && r.full_write);
	CHECK(r.n_writable == 1 && strcmp(r.writable[0].root, "/") == 0);
	CHECK(r.n_writable == 1 && r.writable[0].n_protected_missing == 0);
	sbx_roots_free(&r);
	/* Narrowed root write protects metadata names under "/" (sb-07's shape). */
	sbx_fs_push_path(&fs, "/nonexistent-sbx-unreadable", SBX_DENY, false);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK(!r.full_write && r.n_writable == 1 && has_name(&r.writable[0], ".codex"));
	CHECK(r.n_unreadable == 1);
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	fs.kind = SBX_FS_UNRESTRICTED;
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK(r.full_read && r.full_write && r.n_writable == 0 && r.n_readable == 0);
	sbx_roots_free(&r);
}

TEST(roots_ten_thousand_entries)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;
	char p[64];

	sbx_fs_push_path(&fs, "/repo", SBX_WRITE, false);
	for (int i = 0; i < 10000; i++) {
		snprintf(p, sizeof(p), "/repo/d%d/f", i);
		sbx_fs_push_path(&fs, p, i % 2 ? SBX_READ : SBX_DENY, false);
	}
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	CHECK_INT(r.n_writable, 1);
	CHECK_INT(r.n_unreadable, 5000);
	CHECK(r.n_writable == 1 && r.writable[0].n_read_only >= 5000);
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
}

/* Read entries already covered by a read ancestor add no readable root (10,000-entry profiles). */
TEST(roots_prune_read_inside_read)
{
	struct sbx_ctx ctx = { .cwd = "/", .platform = SBX_PLATFORM_LINUX };
	struct sbx_fs fs = { .kind = SBX_FS_RESTRICTED };
	struct sbx_roots rt;
	struct sbx_diag d;

	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false), 0);
	CHECK_INT(sbx_fs_push_path(&fs, "/usr", SBX_READ, false), 0);
	CHECK_INT(sbx_fs_push_path(&fs, "/usr/lib", SBX_READ, false), 0);
	CHECK_INT(sbx_fs_push_path(&fs, "/etc", SBX_DENY, false), 0);
	CHECK_INT(sbx_fs_push_path(&fs, "/etc/ssl", SBX_READ, false), 0);
	CHECK_INT(sbx_fs_push_path(&fs, "/etc/ssl/certs", SBX_READ, false), 0);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &rt, &d), 0);
	CHECK_INT(rt.n_readable, 2);
	if (rt.n_readable == 2) {
		CHECK_STR(rt.readable[0], "/");
		CHECK_STR(rt.readable[1], "/etc/ssl"); /* re-opened inside a denied tree */
	}
	CHECK_INT(rt.n_unreadable, 1);
	sbx_roots_free(&rt);
	sbx_fs_clear(&fs);
}

/*
 * A worktree (its .git file points into the main repository's git directory) whose main
 * repository lies in another writable root: the gitdir, the common directory it names and the
 * submodules' git directories there are carve-outs of that root.
 */
TEST(roots_worktree_common_dir_and_modules)
{
	char *top = vec_fresh_dir(), *wt = cat(top, "/wt"), *tmp = cat(top, "/tmp"),
	     *common = cat(top, "/tmp/main/.git"), *gd = cat(top, "/tmp/main/.git/worktrees/wt"),
	     *cd = cat(gd, "/commondir"), *mod = cat(common, "/modules/sub"), *text = NULL;
	struct sbx_ctx ctx = vec_ctx(wt);
	struct sbx_fs fs = { 0 };
	struct sbx_roots r;
	const struct sbx_writable_root *w;

	vec_mkdir(wt);
	vec_mkdir(gd);
	vec_mkdir(mod);
	vec_mkfile(cd, "../..\n");
	if (asprintf(&text, "gitdir: %s\n", gd) > 0) {
		char *dotgit = cat(wt, "/.git");

		vec_mkfile(dotgit, text);
		free(dotgit);
	}
	sbx_fs_push_path(&fs, wt, SBX_WRITE, false);
	sbx_fs_push_path(&fs, tmp, SBX_WRITE, false);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	w = find_root(&r, tmp);
	CHECK(w && has_str(w->read_only, w->n_read_only, gd));
	CHECK(w && has_str(w->read_only, w->n_read_only, common));
	/* The submodule's git directory lies inside the common one: covered, not repeated. */
	CHECK(w && !has_str(w->read_only, w->n_read_only, mod));
	sbx_roots_free(&r);
	/* With the common directory not writable, the submodule's dir alone stays uncovered. */
	sbx_fs_push_path(&fs, common, SBX_DENY, false);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, NULL), 0);
	w = find_root(&r, tmp);
	CHECK(w && !has_str(w->read_only, w->n_read_only, common));
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(text);
	free(top);
	free(wt);
	free(tmp);
	free(common);
	free(gd);
	free(cd);
	free(mod);
}
