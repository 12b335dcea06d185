/* SPDX-License-Identifier: MIT */
/* test_glob.c - glob matching, static prefixes, expansion, and project-root materialization. */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

TEST(glob_match_syntax)
{
	CHECK(sbx_glob_match("/a/*.txt", "/a/x.txt"));
	CHECK(sbx_glob_match("/a/*.txt", "/a/.txt"));
	CHECK(!sbx_glob_match("/a/*.txt", "/a/b/x.txt"));
	CHECK(sbx_glob_match("/a/?", "/a/b"));
	CHECK(!sbx_glob_match("/a/?", "/a/bc"));
	CHECK(sbx_glob_match("/a/[abc]", "/a/b"));
	CHECK(!sbx_glob_match("/a/[abc]", "/a/d"));
	CHECK(sbx_glob_match("/a/[!abc]", "/a/d"));
	CHECK(sbx_glob_match("/a/[^abc]", "/a/d"));
	CHECK(!sbx_glob_match("/a/[^abc]", "/a/a"));
	CHECK(sbx_glob_match("/a/[a-c]x", "/a/bx"));
	CHECK(!sbx_glob_match("/a/[a-c]x", "/a/dx"));
	CHECK(sbx_glob_match("/a/[]]", "/a/]"));      /* ']' first is a member */
	CHECK(sbx_glob_match("/a/[!]]", "/a/x"));
	CHECK(sbx_glob_match("/a/[x", "/a/[x"));      /* unclosed '[' is literal */
	CHECK(!sbx_glob_match("/a/[x", "/a/x"));
	CHECK(sbx_glob_match("/a/\\*", "/a/*"));      /* escapes */
	CHECK(!sbx_glob_match("/a/\\*", "/a/b"));
	CHECK(sbx_glob_match("/a/\\[x]", "/a/[x]"));
	CHECK(sbx_glob_match("/a/**", "/a/b"));
	CHECK(sbx_glob_match("/a/**", "/a/b/c/d"));
	CHECK(!sbx_glob_match("/a/**", "/a"));
	CHECK(sbx_glob_match("/a/**/b", "/a/b"));
	CHECK(sbx_glob_match("/a/**/b", "/a/x/y/b"));
	CHECK(!sbx_glob_match("/a/**/b", "/a/x/y/c"));
	CHECK(sbx_glob_match("/a/**/**/b", "/a/b"));
	CHECK(sbx_glob_match("/a/x**y", "/a/xqqy"));  /* "**" inside a component is two stars */
	CHECK(!sbx_glob_match("/a/x**y", "/a/x/y"));
	CHECK(sbx_glob_match("/a//b", "/a/b"));
	CHECK(!sbx_glob_match("a/*", "/a/b"));        /* relative never matches absolute */
	CHECK(sbx_glob_match("/a/*a*a*a*a*a*a*a*b", "/a/aaaaaaaaaaaaaaaaaaaaaaaaab"));
	CHECK(!sbx_glob_match("/a/*a*a*a*a*a*a*a*b", "/a/aaaaaaaaaaaaaaaaaaaaaaaaaa"));
}

TEST(glob_static_prefix_and_meta)
{
	char *p = NULL;

	CHECK_INT(sbx_glob_static_prefix("/repo/src/**/*.pem", &p), 0);
	CHECK_STR(p, "/repo/src");
	free(p);
	CHECK_INT(sbx_glob_static_prefix("/repo/a[bc]/x", &p), 0);
	CHECK_STR(p, "/repo");
	free(p);
	CHECK_INT(sbx_glob_static_prefix("/**/x", &p), 0);
	CHECK_STR(p, "/");
	free(p);
	CHECK_INT(sbx_glob_static_prefix("**/*.env", &p), 0);
	CHECK_STR(p, "");
	free(p);
	CHECK_INT(sbx_glob_static_prefix("/repo/file", &p), 0);
	CHECK_STR(p, "/repo/file");
	free(p);
	CHECK(sbx_glob_has_meta("a*"));
	CHECK(sbx_glob_has_meta("a?"));
	CHECK(sbx_glob_has_meta("a[b"));
	CHECK(sbx_glob_has_meta("a\\b"));
	CHECK(!sbx_glob_has_meta("/plain/path"));
}

static bool has_str(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static char *at(const char *dir, const char *rel)
{
	char *s = NULL;

	if (asprintf(&s, "%s/%s", dir, rel) < 0)
		return NULL;
	return s;
}

TEST(glob_expand_tree)
{
	char *t = vec_fresh_dir(), *pat, *p, **v;
	const char *files[] = { ".env", "app/.env", "app/notes.txt", "app/deep/x/.env",
				"other/.env" };
	struct sbx_diag d;
	size_t n;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		p = at(t, files[i]);
		vec_mkfile(p, "x");
		free(p);
	}
	p = at(t, "outside");
	vec_mkdir(p);
	free(p);
	p = at(t, "outside/.env");
	vec_mkfile(p, "x");
	free(p);
	/* a symlinked directory is not descended into, but can itself match */
	p = at(t, "app/link");
	CHECK_INT(symlink("../outside", p), 0);
	free(p);
	p = at(t, "app/link.env");
	CHECK_INT(symlink("../outside", p), 0);
	free(p);

	pat = at(t, "**/*.env");
	sbx_diag_clear(&d);
	CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), 0);
	CHECK_INT(n, 6);
	for (size_t i = 0; i < n; i++) /* sorted */
		CHECK(i == 0 || strcmp(v[i - 1], v[i]) < 0);
	p = at(t, "app/deep/x/.env");
	CHECK(has_str(v, n, p));
	free(p);
	p = at(t, "app/link.env");
	CHECK(has_str(v, n, p));
	free(p);
	p = at(t, "app/link/.env");
	CHECK(!has_str(v, n, p));
	free(p);
	sbx_strv_free(v, n);
	/* Depth counts levels below the static prefix: 2 = children and grandchildren. */
	CHECK_INT(sbx_glob_expand(pat, 2, NULL, &v, &n, &d), 0);
	CHECK_INT(n, 5);
	p = at(t, "app/deep/x/.env");
	CHECK(!has_str(v, n, p));
	free(p);
	sbx_strv_free(v, n);
	CHECK_INT(sbx_glob_expand(pat, 1, NULL, &v, &n, &d), 0);
	CHECK_INT(n, 1);
	sbx_strv_free(v, n);
	free(pat);

	/* A matching directory covers its subtree: listed once, not descended. */
	pat = at(t, "app/**");
	CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), 0);
	CHECK_INT(n, 5);
	p = at(t, "app/deep");
	CHECK(has_str(v, n, p));
	free(p);
	sbx_strv_free(v, n);
	free(pat);

	/* No glob syntax: the path itself when it exists, nothing when it does not. */
	pat = at(t, "app/notes.txt");
	CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), 0);
	CHECK(n == 1 && strcmp(v[0], pat) == 0);
	sbx_strv_free(v, n);
	free(pat);
	pat = at(t, "nowhere/*.env");
	CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), 0);
	CHECK_INT(n, 0);
	sbx_strv_free(v, n);
	free(pat);
	free(t);
}

/* Is path, or one of its ancestors, among the n paths of v? */
static bool covered_by(char **v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (sbx_path_covers(v[i], path))
			return true;
	return false;
}

/*
 * What access and the denial report take a glob to cover, at each depth, is what the scan at the
 * start of a run finds (and what lies inside it): no more, no less.
 */
TEST(glob_covers_within_is_the_expansion)
{
	char *t = vec_fresh_dir(), *p, *pat, **v;
	const char *files[] = { ".env", "app/.env", "app/notes.txt", "app/deep/x/.env",
				"app/deep/x/y/z.txt", "other/.env" };
	/* The last two have no wildcard: the scan looks the path itself up, at any depth. */
	const char *pats[] = { "**/*.env", "app/**", "*/deep", "app/*/x", "*", "app/deep",
			       "app/.env" };
	const char *probes[] = { ".env", "app", "app/.env", "app/notes.txt", "app/deep",
				 "app/deep/x", "app/deep/x/.env", "app/deep/x/y/z.txt",
				 "other/.env" };
	struct sbx_diag d;
	size_t n;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		p = at(t, files[i]);
		vec_mkfile(p, "x");
		free(p);
	}
	sbx_diag_clear(&d);
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		pat = at(t, pats[i]);
		for (unsigned depth = 0; depth <= 5; depth++) {
			CHECK_INT(sbx_glob_expand(pat, depth, NULL, &v, &n, &d), 0);
			for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++) {
				p = at(t, probes[k]);
				CHECK(sbx_glob_covers_within(pat, depth, p) == covered_by(v, n, p));
				free(p);
			}
			sbx_strv_free(v, n);
		}
		free(pat);
	}
	/* Lexical: a match deeper than the limit covers nothing, one within it its subtree. */
	CHECK(sbx_glob_covers_within("/g/**/*.env", 1, "/g/x.env"));
	CHECK(!sbx_glob_covers_within("/g/**/*.env", 1, "/g/a/y.env"));
	CHECK(sbx_glob_covers_within("/g/**/*.env", 2, "/g/a/y.env"));
	CHECK(sbx_glob_covers_within("/g/**/*.env", 0, "/g/a/b/c/y.env"));
	CHECK(sbx_glob_covers_within("/g/*/deep", 2, "/g/a/deep/in/side"));
	CHECK(!sbx_glob_covers_within("/g/*/deep", 1, "/g/a/deep/in/side"));
	CHECK(sbx_glob_covers_within("/s/p\\[1\\]/*.env", 1, "/s/p[1]/x.env"));
	CHECK(!sbx_glob_covers_within("/g/*.env", 3, "/h/x.env"));
	CHECK(sbx_glob_covers_within("/g/x.env", 1, "/g/x.env"));
	CHECK(sbx_glob_covers_within("/g/p\\[1\\]", 1, "/g/p[1]/in"));
	CHECK(!sbx_glob_covers_within("/g/x.env", 1, "/g/y.env"));
	free(t);
}

TEST(glob_expand_refuses_root_prefix)
{
	struct sbx_diag d;
	char **v = NULL;
	size_t n = 0;

	sbx_diag_clear(&d);
	CHECK_INT(sbx_glob_expand("/**/*.pem", 0, NULL, &v, &n, &d), SBX_E_INVALID);
	CHECK_STR(d.msg, "unreadable glob `/**/*.pem` cannot be safely expanded; use a pattern "
			 "with a non-root directory prefix");
	CHECK(v == NULL && n == 0);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_glob_expand("**/*.env", 0, NULL, &v, &n, &d), SBX_E_INVALID);
	CHECK_STR(d.msg, "unreadable glob `**/*.env` cannot be safely expanded; use a pattern "
			 "with a non-root directory prefix");
}

TEST(glob_expand_match_limit)
{
	char *t = vec_fresh_dir(), *pat, p[PATH_MAX];
	struct sbx_diag d;
	char **v = NULL;
	size_t n = 0;

	for (unsigned i = 0; i <= SBX_MAX_GLOB_MATCHES; i++) {
		snprintf(p, sizeof(p), "%s/f%u", t, i);
		vec_mkfile(p, NULL);
	}
	pat = at(t, "f*");
	sbx_diag_clear(&d);
	CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), SBX_E_TOO_BIG);
	CHECK(strstr(d.msg, "matches more than 8192 paths") != NULL);
	CHECK(v == NULL);
	/* The control: one fewer is fine. */
	snprintf(p, sizeof(p), "%s/f0", t);
	unlink(p);
	CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), 0);
	CHECK_INT(n, SBX_MAX_GLOB_MATCHES);
	sbx_strv_free(v, n);
	free(pat);
	free(t);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

/*
 * Creating 100,000 files costs far more than scanning them on a disk file system, so the tree
 * goes to a memory file system when the host has one; the timing is of the scan alone.
 */
static char *big_tree_dir(void)
{
	char tmpl[] = "/dev/shm/sbx-glob-XXXXXX";

	if (access("/dev/shm", W_OK) == 0 && mkdtemp(tmpl))
		return realpath(tmpl, NULL);
	return vec_fresh_dir();
}

TEST(glob_expand_100k_files_fast)
{
	char *t = big_tree_dir(), *pat, p[PATH_MAX];
	struct timespec a, b;
	struct sbx_diag d;
	char **v = NULL;
	size_t n = 0;
	double secs;

	/* 100 directories x 1,000 files; 100 of them match. */
	for (unsigned i = 0; i < 100; i++) {
		snprintf(p, sizeof(p), "%s/d%u", t, i);
		CHECK_INT(mkdir(p, 0755), 0);
		for (unsigned j = 0; j < 1000; j++) {
			int fd;

			snprintf(p, sizeof(p), "%s/d%u/f%u%s", t, i, j, j == 7 ? ".pem" : "");
			fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0) {
				t_fail(__FILE__, __LINE__, "cannot create %s", p);
				goto out;
			}
			close(fd);
		}
	}
	pat = at(t, "**/*.pem");
	clock_gettime(CLOCK_MONOTONIC, &a);
	CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	CHECK_INT(n, 100);
	if (secs > 0.5)
		t_fail(__FILE__, __LINE__, "expanding over 100,000 files took %.3f s", secs);
	sbx_strv_free(v, n);
	free(pat);
out:
	nftw(t, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(t);
}

TEST(materialize_relative_and_duplicates)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_fs fs = { 0 }, out;

	vec_push_glob(&fs, "./sub/*.pem", SBX_DENY);
	vec_push_glob(&fs, "/abs/*.pem", SBX_DENY);
	sbx_fs_push_special(&fs, SBX_SP_PROJECT_ROOTS, "x", SBX_READ, true);
	sbx_fs_push_path(&fs, "/repo/x", SBX_READ, true); /* same as the materialized one */
	sbx_fs_push_special(&fs, SBX_SP_TMPDIR, NULL, SBX_WRITE, false);
	CHECK_INT(sbx_fs_materialize(&fs, &ctx, &out), 0);
	CHECK_INT(out.n, 4);
	if (out.n == 4) {
		CHECK_STR(out.entries[0].path, "/repo/sub/*.pem");
		CHECK_STR(out.entries[1].path, "/abs/*.pem");
		CHECK_STR(out.entries[2].path, "/repo/x");
		CHECK(out.entries[2].kind == SBX_PATH && out.entries[2].skip_missing);
		CHECK(out.entries[3].kind == SBX_SPECIAL); /* tmpdir stays symbolic */
	}
	sbx_fs_clear(&out);
	sbx_fs_clear(&fs);
}

TEST(glob_escape)
{
	char *p = NULL;

	CHECK_INT(sbx_glob_escape("/x/p[1]", &p), 0);
	CHECK_STR(p, "/x/p\\[1\\]");
	free(p);
	CHECK_INT(sbx_glob_escape("/x/a{b,c}/b\\c/*?", &p), 0);
	CHECK_STR(p, "/x/a\\{b,c\\}/b\\\\c/\\*\\?");
	free(p);
	CHECK_INT(sbx_glob_escape("/plain/path", &p), 0);
	CHECK_STR(p, "/plain/path");
	free(p);
	/* An escaped literal matches itself only, and is a static prefix, unescaped. */
	CHECK_INT(sbx_glob_escape("/x/p[1]", &p), 0);
	CHECK(sbx_glob_match(p, "/x/p[1]"));
	CHECK(!sbx_glob_match(p, "/x/p1"));
	free(p);
	CHECK_INT(sbx_glob_static_prefix("/src/p\\[1\\]/**/*.env", &p), 0);
	CHECK_STR(p, "/src/p[1]");
	free(p);
	CHECK_INT(sbx_glob_static_prefix("/src/a\\{b,c\\}/b\\\\c/*.env", &p), 0);
	CHECK_STR(p, "/src/a{b,c}/b\\c");
	free(p);
	/* An unescaped class still ends the static part. */
	CHECK_INT(sbx_glob_static_prefix("/src/p[1]/*.env", &p), 0);
	CHECK_STR(p, "/src");
	free(p);
}

/* Workspace roots with glob characters: the deny glob under them matches what is in them. */
TEST(glob_roots_with_metacharacters)
{
	static const char *const names[] = { "p[1]", "a{b,c}", "b\\c" };
	char *t = vec_fresh_dir();

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		char *root = at(t, names[i]), *decoy = at(t, "p1"), *f, *g, **v = NULL;
		const char *roots[1] = { root };
		struct sbx_ctx ctx = vec_ctx(root);
		struct sbx_fs fs = { 0 }, out = { 0 };
		struct sbx_diag d;
		size_t n = 0;

		ctx.workspace_roots = roots;
		ctx.n_workspace_roots = 1;
		vec_mkdir(root);
		vec_mkdir(decoy);
		f = at(root, "sub/.env");
		g = at(decoy, "sub/.env");
		vec_mkfile(f, "x");
		vec_mkfile(g, "x");
		vec_push_glob(&fs, "codex-project-roots://**/*.env", SBX_DENY);
		vec_push_glob(&fs, "**/*.env", SBX_DENY); /* relative: against the cwd */
		CHECK_INT(sbx_fs_materialize(&fs, &ctx, &out), 0);
		CHECK_INT(out.n, 1); /* both forms materialize to the same escaped pattern */
		for (size_t j = 0; j < out.n; j++) {
			char *prefix = NULL;

			CHECK(sbx_glob_match(out.entries[j].path, f));
			CHECK(!sbx_glob_match(out.entries[j].path, g));
			CHECK_INT(sbx_glob_static_prefix(out.entries[j].path, &prefix), 0);
			CHECK_STR(prefix, root);
			free(prefix);
			sbx_diag_clear(&d);
			CHECK_INT(sbx_glob_expand(out.entries[j].path, 0, NULL, &v, &n, &d), 0);
			CHECK(n == 1 && strcmp(v[0], f) == 0);
			sbx_strv_free(v, n);
		}
		sbx_fs_clear(&out);
		sbx_fs_clear(&fs);
		free(f);
		free(g);
		free(root);
		free(decoy);
	}
	free(t);
}
