/* SPDX-License-Identifier: MIT */
/*
 * test_gitmode.c - git mode (--allow-git): what the walk over a repository's git directories
 * keeps read-only or uncreatable (gitmode.c), the roots it makes of :workspace (roots.c), and
 * what `access` says (denial.c). On real directories, as git lays them out.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "failalloc.h"
#include "fakefs.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

/* base + the words, joined by "/" (malloc'd). */
static char *at(const char *base, const char *rel)
{
	char *s = NULL;

	if (asprintf(&s, "%s/%s", base, rel) < 0)
		return NULL;
	return s;
}

static void mkdir_at(const char *base, const char *rel)
{
	char *p = at(base, rel);

	CHECK_INT(vec_mkdir(p), 0);
	free(p);
}

static void file_at(const char *base, const char *rel, const char *text)
{
	char *p = at(base, rel);

	CHECK_INT(vec_mkfile(p, text), 0);
	free(p);
}

/* Is base/rel in v? */
static bool has(const struct sbx_strv *v, const char *base, const char *rel)
{
	char *p = at(base, rel);
	bool found = p && sbx_strv_has(v, p);

	free(p);
	return found;
}

static bool has_in(char **v, size_t n, const char *p)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], p) == 0)
			return true;
	return false;
}

static const struct sbx_writable_root *root_of(const struct sbx_roots *r, const char *p)
{
	for (size_t i = 0; i < r->n_writable; i++)
		if (strcmp(r->writable[i].root, p) == 0)
			return &r->writable[i];
	return NULL;
}

/* A git directory as git init makes it: hooks/, config, HEAD, objects/, refs/. */
static void git_init(const char *gitdir)
{
	mkdir_at(gitdir, "hooks");
	mkdir_at(gitdir, "objects/info");
	mkdir_at(gitdir, "refs/heads");
	file_at(gitdir, "HEAD", "ref: refs/heads/main\n");
	file_at(gitdir, "config", "[core]\n\trepositoryformatversion = 0\n");
}

TEST(gitmode_a_plain_repository)
{
	char *top = vec_fresh_dir(), *g = at(top, "ws/.git");
	struct sbx_ctx ctx = vec_ctx(top);
	struct sbx_strv keep = {0}, missing = {0}, gone = {0};
	struct sbx_diag d;

	git_init(g);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), 0);
	CHECK(has(&keep, g, "hooks"));
	CHECK(has(&keep, g, "config"));
	CHECK_INT(keep.n, 2);
	/* Git reads both when they are there: the command must not make them. */
	CHECK(has(&missing, g, "commondir"));
	CHECK(has(&missing, g, "config.worktree"));
	CHECK_INT(missing.n, 2);
	/* What git writes stays out of both lists. */
	CHECK(!has(&keep, g, "HEAD") && !has(&keep, g, "objects") && !has(&keep, g, "refs"));
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);

	/* A missing hooks directory must not be created either. */
	{
		char *hooks = at(g, "hooks");

		CHECK_INT(rmdir(hooks), 0);
		free(hooks);
	}
	CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), 0);
	CHECK(has(&missing, g, "hooks") && !has(&keep, g, "hooks"));
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);
	free(g);
	free(top);
}

/*
 * What git would not take for a git directory is kept whole (the command could make it one);
 * a commondir naming its own directory leaves it a common one, whose hooks and config stay kept.
 */
TEST(gitmode_no_head_and_own_commondir)
{
	char *top = vec_fresh_dir(), *g = at(top, "ws/.git"), *head = at(g, "HEAD");
	struct sbx_ctx ctx = vec_ctx(top);
	struct sbx_strv keep = {0}, missing = {0}, gone = {0};
	struct sbx_diag d;

	git_init(g);
	CHECK_INT(unlink(head), 0);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), 0);
	CHECK(keep.n == 1 && strcmp(keep.v[0], g) == 0);
	CHECK_INT(missing.n, 0);
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);

	git_init(g);
	file_at(g, "commondir", ".\n");
	CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), 0);
	CHECK(has(&keep, g, "commondir") && has(&keep, g, "hooks") && has(&keep, g, "config"));
	CHECK(has(&missing, g, "config.worktree") && !has(&missing, g, "gitdir"));
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);
	free(top);
	free(g);
	free(head);
}

/*
 * A repository with a worktree and a submodule (which has one of its own), as git lays them
 * out: each git directory is found, and each keeps what its kind makes git read.
 */
TEST(gitmode_worktrees_and_submodules)
{
	char *top = vec_fresh_dir(), *ws = at(top, "ws"), *g = at(top, "ws/.git"),
	     *wt = at(g, "worktrees/wt"), *sub = at(g, "modules/sub"),
	     *inner = at(g, "modules/sub/modules/inner"), *text = NULL;
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_strv keep = {0}, missing = {0}, gone = {0};
	struct sbx_diag d;

	git_init(g);
	/* git worktree add ws/wt */
	file_at(wt, "HEAD", "ref: refs/heads/wt\n");
	file_at(wt, "commondir", "../..\n");
	CHECK(asprintf(&text, "%s/wt/.git\n", ws) > 0);
	file_at(wt, "gitdir", text);
	free(text);
	CHECK(asprintf(&text, "gitdir: %s\n", wt) > 0);
	file_at(ws, "wt/.git", text);
	free(text);
	/* git submodule add ... sub, whose config names its checkout */
	git_init(sub);
	file_at(sub, "config",
		"[core]\n\trepositoryformatversion = 0\n\tworktree = ../../../sub\n");
	file_at(ws, "sub/.git", "gitdir: ../.git/modules/sub\n");
	/* and a submodule inside it */
	git_init(inner);
	file_at(inner, "config", "[core]\n\tworktree = ../../../../../sub/inner\n");
	file_at(ws, "sub/inner/.git", "gitdir: ../../.git/modules/sub/modules/inner\n");

	sbx_diag_clear(&d);
	CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), 0);
	for (int i = 0; i < 3; i++) {
		const char *dir = i == 0 ? g : i == 1 ? sub : inner;

		CHECK(has(&keep, dir, "hooks"));
		CHECK(has(&keep, dir, "config"));
		CHECK(has(&missing, dir, "commondir"));
		CHECK(has(&missing, dir, "config.worktree"));
	}
	/* The worktree's: its pointers kept, its per-worktree config not to be made. */
	CHECK(has(&keep, wt, "commondir"));
	CHECK(has(&keep, wt, "gitdir"));
	CHECK(has(&missing, wt, "config.worktree"));
	/* hooks and config there are never read (commondir names where they are). */
	CHECK(!has(&keep, wt, "hooks") && !has(&missing, wt, "hooks"));
	CHECK(!has(&missing, wt, "config"));
	/* The .git files of the checkouts. */
	CHECK(has(&keep, ws, "wt/.git"));
	CHECK(has(&keep, ws, "sub/.git"));
	CHECK(has(&keep, ws, "sub/inner/.git"));
	CHECK_INT(keep.n, 11);
	CHECK_INT(missing.n, 7);
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);
	free(top);
	free(ws);
	free(g);
	free(wt);
	free(sub);
	free(inner);
}

/* core.worktree as git reads a config file: sections, case, quotes, escapes, comments. */
TEST(gitmode_submodule_config_as_git_reads_it)
{
	static const struct {
		const char *config;
		const char *checkout; /* relative to the workspace, NULL: none named */
	} cases[] = {
		{"[core]\n\tworktree = ../../../a\n", "a"},
		{"[CORE]\n\tWorkTree=../../../a\n", "a"},
		{"[core] worktree = ../../../a\n", "a"},
		{"[core]\n\tworktree = \"../../../a b\"\n", "a b"},
		{"[core]\n\tworktree = ../../../a b  # a comment\n", "a b"},
		{"[core]\n\tworktree = ../../../a\\\"b\n", "a\"b"},
		{"[core]\n\tworktree = ../../../a\n\tworktree = ../../../c\n", "c"},
		{"[core]\n\tworktree = ../../../a\\\n/x\n", "a/x"},
		{"; [core]\n[remote \"o\"]\n\tworktree = ../../../a\n", NULL},
		{"[core \"x\"]\n\tworktree = ../../../a\n", NULL},
		{"[core.x]\n\tworktree = ../../../a\n", NULL},
		{"[core]\n\tworktree\n", NULL},
		{"[core]\n\tworktree = ../../../a\\q\n", NULL}, /* git refuses the file */
		{"[core]\n\tworktree = \"../../../a\n", NULL},	/* unterminated quote */
		{"[core]\n\tbare = false\n[user]\n\tworktree = ../../../a\n", NULL},
	};
	static const char *const checkouts[] = {"a", "a b", "a\"b", "c", "a/x"};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *top = vec_fresh_dir(), *ws = at(top, "ws"), *g = at(ws, ".git"),
		     *sub = at(g, "modules/s");
		struct sbx_ctx ctx = vec_ctx(ws);
		struct sbx_strv keep = {0}, missing = {0}, gone = {0};
		struct sbx_diag d;

		git_init(g);
		git_init(sub);
		file_at(sub, "config", cases[i].config);
		/* Every checkout a case may name has a .git file, so only the config decides. */
		for (size_t k = 0; k < sizeof(checkouts) / sizeof(*checkouts); k++) {
			char *p = at(checkouts[k], ".git");

			file_at(ws, p, "gitdir: x\n");
			free(p);
		}
		sbx_diag_clear(&d);
		CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), 0);
		/* g and sub each keep hooks and config; the checkout's .git is the fifth. */
		if (cases[i].checkout) {
			char *p = at(cases[i].checkout, ".git");

			if (!has(&keep, ws, p))
				t_fail(__FILE__, __LINE__, "case %zu: %s/.git not kept", i,
				       cases[i].checkout);
			free(p);
		}
		if (keep.n != (cases[i].checkout ? 5u : 4u))
			t_fail(__FILE__, __LINE__, "case %zu: %zu kept", i, keep.n);
		sbx_strv_clear(&keep);
		sbx_strv_clear(&missing);
		sbx_strv_clear(&gone);
		free(top);
		free(ws);
		free(g);
		free(sub);
	}
}

/*
 * A config read at every length around the reader's steps: the first read takes 4096 bytes and a
 * longer file is read whole again, up to 1 MiB (a clone with many remotes and branches has a
 * config of tens of KiB); one longer is not read whole, and refuses the plan, naming it (git
 * would take the core.worktree past the limit).
 */
TEST(gitmode_submodule_config_of_any_length)
{
	static const size_t sizes[] = {4095, 4096, 4097, 8192, 65536, 65537, 1048576, 1048577};
	static const char tail[] = "[core]\n\tworktree = ../../../a\n";

	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); i++) {
		char *top = vec_fresh_dir(), *ws = at(top, "ws"), *g = at(ws, ".git"),
		     *sub = at(g, "modules/s"), *config = malloc(sizes[i] + 1);
		struct sbx_ctx ctx = vec_ctx(ws);
		struct sbx_strv keep = {0}, missing = {0}, gone = {0};
		struct sbx_diag d;
		size_t pad = sizes[i] - (sizeof(tail) - 1);
		bool named = sizes[i] <= 1048576;

		CHECK(config != NULL);
		/* One comment line of the padding's length, then the section naming ws/a. */
		config[0] = '#';
		memset(config + 1, 'x', pad - 2);
		config[pad - 1] = '\n';
		memcpy(config + pad, tail, sizeof(tail));
		CHECK_INT(strlen(config), sizes[i]);
		git_init(g);
		git_init(sub);
		file_at(sub, "config", config);
		file_at(ws, "a/.git", "gitdir: x\n");
		sbx_diag_clear(&d);
		CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d),
			  named ? 0 : SBX_E_TOO_BIG);
		if (named && !has(&keep, ws, "a/.git"))
			t_fail(__FILE__, __LINE__, "config of %zu bytes: a/.git not kept",
			       sizes[i]);
		if (named && keep.n != 5u)
			t_fail(__FILE__, __LINE__, "config of %zu bytes: %zu kept", sizes[i],
			       keep.n);
		if (!named && (!strstr(d.msg, "/.git/modules/s/config: it is over 1048576 bytes") ||
			       !strstr(d.msg, "core.worktree")))
			t_fail(__FILE__, __LINE__, "config of %zu bytes: %s", sizes[i], d.msg);
		sbx_strv_clear(&keep);
		sbx_strv_clear(&missing);
		sbx_strv_clear(&gone);
		free(config);
		free(top);
		free(ws);
		free(g);
		free(sub);
	}
}

/*
 * What git reads whole but would not fit sbxrun's buffer is refused, never taken for nothing
 * there: a core.worktree longer than a path, and a gitdir or commondir file padded past its
 * buffer with the newlines git drops. A long value of another key is no reason: git takes it,
 * and the core.worktree after it still counts.
 */
TEST(gitmode_refuses_what_it_cannot_read_whole)
{
	static const char *const files[] = {"worktrees/w/gitdir", "worktrees/w/commondir"};
	char *long_value = malloc(SBX_MAX_PATH + 64), *config = malloc(2 * SBX_MAX_PATH + 256);

	CHECK(long_value && config);
	memset(long_value, 'x', SBX_MAX_PATH + 16);
	long_value[SBX_MAX_PATH + 16] = '\0';
	for (int k = 0; k < 3; k++) {
		char *top = vec_fresh_dir(), *ws = at(top, "ws"), *g = at(ws, ".git"),
		     *sub = at(g, "modules/s");
		struct sbx_ctx ctx = vec_ctx(ws);
		struct sbx_strv keep = {0}, missing = {0}, gone = {0};
		struct sbx_diag d;

		git_init(g);
		git_init(sub);
		if (k == 0)
			snprintf(config, 2 * SBX_MAX_PATH + 256,
				 "[core]\n\tworktree = ../../../a/%s\n", long_value);
		else
			snprintf(config, 2 * SBX_MAX_PATH + 256,
				 "[alias]\n\tx = %s\n[core]\n\tworktree = ../../../a\n",
				 long_value);
		file_at(sub, "config", config);
		file_at(ws, "a/.git", "gitdir: x\n");
		sbx_diag_clear(&d);
		CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d),
			  k == 0 ? SBX_E_TOO_BIG : 0);
		if (k == 0)
			CHECK(strstr(d.msg, "its core.worktree is over") != NULL);
		else
			CHECK(has(&keep, ws, "a/.git"));
		sbx_strv_clear(&keep);
		sbx_strv_clear(&missing);
		sbx_strv_clear(&gone);
		free(top);
		free(ws);
		free(g);
		free(sub);
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++) {
		char *top = vec_fresh_dir(), *ws = at(top, "ws"), *g = at(ws, ".git"),
		     *wt = at(g, "worktrees/w");
		struct sbx_ctx ctx = vec_ctx(ws);
		struct sbx_strv keep = {0}, missing = {0}, gone = {0};
		struct sbx_diag d;
		size_t n;

		git_init(g);
		git_init(wt);
		file_at(wt, "commondir", "../..\n");
		file_at(wt, "gitdir", "/elsewhere/.git\n");
		/* The path, then newlines past the buffer: git drops them and takes the path. */
		n = (size_t)snprintf(config, 2 * SBX_MAX_PATH + 256, "%s",
				     i == 0 ? "/elsewhere/.git" : "../..");
		memset(config + n, '\n', SBX_MAX_PATH + 8);
		config[n + SBX_MAX_PATH + 8] = '\0';
		file_at(g, files[i], config);
		sbx_diag_clear(&d);
		CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), SBX_E_TOO_BIG);
		CHECK(strstr(d.msg, files[i]) && strstr(d.msg, "the most sbxrun reads"));
		sbx_strv_clear(&keep);
		sbx_strv_clear(&missing);
		sbx_strv_clear(&gone);
		free(top);
		free(ws);
		free(g);
		free(wt);
	}
	free(long_value);
	free(config);
}

/* Whatever an earlier run could leave among the git directories: refused, never followed. */
TEST(gitmode_refuses_what_it_cannot_keep)
{
	char *top = vec_fresh_dir(), *g = at(top, "ws/.git"), *link = at(g, "modules/evil"),
	     *elsewhere = at(top, "elsewhere");
	struct sbx_ctx ctx = vec_ctx(top);
	struct sbx_strv keep = {0}, missing = {0}, gone = {0};
	struct sbx_diag d;

	git_init(g);
	git_init(elsewhere);
	mkdir_at(g, "modules");
	CHECK_INT(symlink(elsewhere, link), 0);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), SBX_E_UNENFORCEABLE);
	CHECK(strstr(d.msg, link) && strstr(d.msg, "symbolic link"));
	CHECK(d.hint[0]);
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);
	CHECK_INT(unlink(link), 0);

	/* More git directories than a repository has any use for: refused, not walked. */
	for (int i = 0; i <= SBX_MAX_GIT_DIRS; i++) {
		char name[64];

		snprintf(name, sizeof(name), "worktrees/w%d", i);
		mkdir_at(g, name);
	}
	sbx_diag_clear(&d);
	CHECK_INT(sbx_git_mode_paths(&ctx, g, &keep, &missing, &gone, &d), SBX_E_TOO_BIG);
	CHECK(strstr(d.msg, "more than 256 git directories"));
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);
	free(top);
	free(g);
	free(link);
	free(elsewhere);
}

/*
 * The paths git reads from its files, joined as git resolves them: leading ".."s take back the
 * file's directory and its parents; a ".." after a name is refused whatever the name is now (a
 * directory the command can swap for a symbolic link before git runs), without a look-up.
 */
TEST(gitmode_join_as_git_resolves)
{
	char *top = vec_fresh_dir(), *base = at(top, "ws/.git/worktrees/wt"),
	     *want = at(top, "ws/.git"), *out = NULL;
	struct sbx_diag d;

	mkdir_at(top, "a/b");
	CHECK_INT(sbx_git_join("f", base, "../..", &out, NULL), 0);
	CHECK_STR(out, want);
	free(out);
	CHECK_INT(sbx_git_join("f", base, "./../../", &out, NULL), 0);
	CHECK_STR(out, want);
	free(out);
	CHECK_INT(sbx_git_join("f", top, "a/b/main/.git", &out, NULL), 0);
	CHECK(out && strcmp(out + strlen(top), "/a/b/main/.git") == 0);
	free(out);
	/* After a real directory (a/b exists) as after anything else. */
	for (int i = 0; i < 4; i++) {
		static const char *const text[] = {"a/b/../main/.git", "../x/../y", "/a/../b",
						   "a/./.."};

		sbx_diag_clear(&d);
		out = NULL;
		CHECK_INT(sbx_git_join("f", top, text[i], &out, &d), SBX_E_UNENFORCEABLE);
		CHECK(out == NULL && strstr(d.msg, text[i]) && strstr(d.msg, "\"..\"") &&
		      d.hint[0]);
	}
	CHECK_INT(sbx_git_join("f", "/", "../..", &out, NULL), 0);
	CHECK_STR(out, "/");
	free(out);
	CHECK_INT(sbx_git_join("f", top, "/../..//x", &out, NULL), 0);
	CHECK_STR(out, "/x");
	free(out);
	free(top);
	free(base);
	free(want);
}

/*
 * A look-up that fails (here: commondir, which an earlier run could not have made unreadable,
 * but the user could) is an error naming the path, never "no common directory".
 */
TEST(gitmode_a_failed_look_up_is_an_error)
{
	json_t *facts = json_pack("{s:s, s:s, s:{s:s, s:s}, s:s, s:s, s:s, s:{s:s, s:s}}", "/ws",
				  "dir", "/ws/.git", "dir", "/ws/.git/HEAD", "type", "file",
				  "content", "ref: refs/heads/main\n", "/ws/.git/objects", "dir",
				  "/ws/.git/refs", "dir", "/ws/.git/hooks", "dir",
				  "/ws/.git/commondir", "type", "file", "errno", "EACCES");
	struct sbx_ctx ctx = vec_ctx("/ws");
	struct sbx_strv keep = {0}, missing = {0}, gone = {0};
	struct fakefs fs;
	struct sbx_diag d;

	fakefs_init(&fs, facts);
	ctx.fs = &fs.view;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_git_mode_paths(&ctx, "/ws/.git", &keep, &missing, &gone, &d), -EACCES);
	CHECK(strstr(d.msg, "/ws/.git/commondir") != NULL);
	sbx_strv_clear(&keep);
	sbx_strv_clear(&missing);
	sbx_strv_clear(&gone);
	json_decref(facts);
}

/*
 * :workspace in git mode: the read entry it has at .git is lifted; what git runs code from
 * stays read-only, what git would read if it appeared must not appear; without the mode .git
 * stays read-only whole (Codex's semantics).
 */
TEST(gitmode_roots_of_workspace)
{
	char *top = vec_fresh_dir(), *ws = at(top, "ws"), *g = at(ws, ".git"),
	     *hooks = at(g, "hooks"), *config = at(g, "config"), *cd = at(g, "commondir"),
	     *cw = at(g, "config.worktree");
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_profile prof = {0};
	struct sbx_roots r;
	const struct sbx_writable_root *w;
	struct sbx_diag d;

	git_init(g);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_builtin(":workspace", &prof, &d), 0);
	{
		struct sbx_profile m = {0};

		CHECK_INT(sbx_profile_materialize(&prof, &ctx, &m), 0);
		sbx_profile_free(&prof);
		prof = m;
	}
	CHECK_INT(sbx_fs_roots(&prof.fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && has_in(w->read_only, w->n_read_only, g));
	CHECK(w && w->no_create.n == 0);
	sbx_roots_free(&r);

	ctx.allow_git = true;
	CHECK_INT(sbx_fs_roots(&prof.fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && !has_in(w->read_only, w->n_read_only, g));
	CHECK(w && has_in(w->read_only, w->n_read_only, hooks));
	CHECK(w && has_in(w->read_only, w->n_read_only, config));
	CHECK(w && has_in(w->no_create.v, w->no_create.n, cd));
	CHECK(w && has_in(w->no_create.v, w->no_create.n, cw));
	CHECK(w && w->no_create.n == 2);
	sbx_roots_free(&r);

	/* A deny entry still decides .git, and a read entry inside it still holds. */
	{
		char *refs = at(g, "refs");

		CHECK_INT(sbx_fs_push_path(&prof.fs, refs, SBX_READ, false), 0);
		CHECK_INT(sbx_fs_roots(&prof.fs, &ctx, &r, &d), 0);
		w = root_of(&r, ws);
		CHECK(w && has_in(w->read_only, w->n_read_only, refs));
		sbx_roots_free(&r);
		CHECK_INT(sbx_fs_push_path(&prof.fs, g, SBX_DENY, false), 0);
		CHECK_INT(sbx_fs_roots(&prof.fs, &ctx, &r, &d), 0);
		w = root_of(&r, ws);
		CHECK(has_in(r.unreadable, r.n_unreadable, g));
		CHECK(w && w->no_create.n == 0 && !has_in(w->read_only, w->n_read_only, hooks));
		sbx_roots_free(&r);
		free(refs);
	}
	sbx_profile_free(&prof);
	free(top);
	free(ws);
	free(g);
	free(hooks);
	free(config);
	free(cd);
	free(cw);
}

/*
 * A worktree as the workspace, its repository in another writable root: the .git file stays
 * read-only (it points the way), the worktree's git directory and the common one are the
 * mode's, and the repository's own workspace .git is not touched by this root.
 */
TEST(gitmode_roots_of_a_worktree)
{
	char *top = vec_fresh_dir(), *ws = at(top, "wt"), *tmp = at(top, "tmp"),
	     *g = at(tmp, "main/.git"), *wg = at(g, "worktrees/wt"), *dotgit = at(ws, ".git"),
	     *text = NULL;
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_fs fs = {0};
	struct sbx_roots r;
	const struct sbx_writable_root *w, *t;
	struct sbx_diag d;

	git_init(g);
	CHECK_INT(vec_mkdir(ws), 0);
	file_at(wg, "HEAD", "ref: refs/heads/wt\n");
	file_at(wg, "commondir", "../..\n");
	CHECK(asprintf(&text, "%s\n", dotgit) > 0);
	file_at(wg, "gitdir", text);
	free(text);
	CHECK(asprintf(&text, "gitdir: %s\n", wg) > 0);
	CHECK_INT(vec_mkfile(dotgit, text), 0);
	free(text);
	ctx.allow_git = true;
	sbx_fs_push_path(&fs, ws, SBX_WRITE, false);
	sbx_fs_push_path(&fs, tmp, SBX_WRITE, false);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	t = root_of(&r, tmp);
	CHECK(w && has_in(w->read_only, w->n_read_only, dotgit));
	CHECK(t && !has_in(t->read_only, t->n_read_only, wg));
	CHECK(t && !has_in(t->read_only, t->n_read_only, g));
	{
		char *p[] = {at(wg, "commondir"), at(wg, "gitdir"),	     at(g, "hooks"),
			     at(g, "config"),	  at(wg, "config.worktree"), at(g, "commondir")};

		for (int i = 0; i < 4; i++)
			CHECK(t && has_in(t->read_only, t->n_read_only, p[i]));
		for (int i = 4; i < 6; i++)
			CHECK(t && has_in(t->no_create.v, t->no_create.n, p[i]));
		for (int i = 0; i < 6; i++)
			free(p[i]);
	}
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(top);
	free(ws);
	free(tmp);
	free(g);
	free(wg);
	free(dotgit);
}

/*
 * A .git file naming no directory inside a writable root: that path is denied, so the command
 * cannot make a git directory of its own there; outside every writable root nothing is added.
 */
TEST(gitmode_roots_deny_a_missing_gitdir)
{
	char *top = vec_fresh_dir(), *ws = at(top, "ws"), *tmp = at(top, "tmp"),
	     *gone = at(tmp, "a/b/wtgit"), *out = at(top, "out/wtgit"), *dotgit = at(ws, ".git"),
	     *text = NULL;
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_fs fs = {0};
	struct sbx_roots r;
	struct sbx_diag d;

	CHECK_INT(vec_mkdir(ws), 0);
	CHECK_INT(vec_mkdir(tmp), 0);
	sbx_fs_push_path(&fs, ws, SBX_WRITE, false);
	sbx_fs_push_path(&fs, tmp, SBX_WRITE, false);
	for (int mode = 0; mode < 2; mode++) {
		ctx.allow_git = mode == 1;
		CHECK(asprintf(&text, "gitdir: %s\n", gone) > 0);
		CHECK_INT(vec_mkfile(dotgit, text), 0);
		free(text);
		sbx_diag_clear(&d);
		CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
		CHECK(has_in(r.unreadable, r.n_unreadable, gone));
		sbx_roots_free(&r);
		CHECK(asprintf(&text, "gitdir: %s\n", out) > 0);
		CHECK_INT(vec_mkfile(dotgit, text), 0);
		free(text);
		CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
		CHECK_INT(r.n_unreadable, 0);
		sbx_roots_free(&r);
	}
	sbx_fs_clear(&fs);
	free(top);
	free(ws);
	free(tmp);
	free(gone);
	free(out);
	free(dotgit);
}

/*
 * A submodule's checkout .git (its git directory's core.worktree, relative): read-only where it
 * is, not to be created where it is missing, outside git mode too.
 */
TEST(gitmode_roots_keep_submodule_checkouts)
{
	char *top = vec_fresh_dir(), *ws = at(top, "ws"), *g = at(ws, ".git"),
	     *mod = at(g, "modules/sub"), *dotgit = at(ws, "sub/.git"), *sub = at(ws, "sub");
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_fs fs = {0};
	struct sbx_roots r;
	struct sbx_diag d;
	const struct sbx_writable_root *w;

	git_init(g);
	git_init(mod);
	file_at(mod, "config", "[core]\n\tworktree = ../../../sub\n");
	file_at(ws, "sub/.git", "gitdir: ../.git/modules/sub\n");
	sbx_fs_push_path(&fs, ws, SBX_WRITE, false);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && has_in(w->read_only, w->n_read_only, dotgit));
	sbx_roots_free(&r);
	CHECK_INT(unlink(dotgit), 0);
	/* An empty checkout directory is kept read-only whole (a point at .git kills git status). */
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && has_in(w->read_only, w->n_read_only, sub));
	CHECK(w && !has_in(w->no_create.v, w->no_create.n, dotgit));
	sbx_roots_free(&r);
	/* One holding files keeps its .git from being made. */
	{
		char *kept = at(sub, "kept");

		CHECK_INT(vec_mkfile(kept, "x"), 0);
		CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
		w = root_of(&r, ws);
		CHECK(w && has_in(w->no_create.v, w->no_create.n, dotgit));
		CHECK(w && !has_in(w->read_only, w->n_read_only, sub));
		CHECK(!has_in(r.unreadable, r.n_unreadable, dotgit));
		sbx_roots_free(&r);
		CHECK_INT(unlink(kept), 0);
		free(kept);
	}
	/*
	 * An empty directory there is another run's mount point where the backend makes them: the
	 * name missing, never the user's .git held read-only (it goes with that run). Without
	 * points it is the user's.
	 */
	CHECK_INT(vec_mkdir(dotgit), 0);
	ctx.points = true;
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && has_in(w->no_create.v, w->no_create.n, dotgit));
	CHECK(!has_in(w->read_only, w->n_read_only, dotgit));
	sbx_roots_free(&r);
	ctx.points = false;
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && has_in(w->read_only, w->n_read_only, dotgit));
	sbx_roots_free(&r);
	/* The checkout directory gone (a clone without its submodules): the .git is denied. */
	CHECK_INT(rmdir(dotgit), 0);
	CHECK_INT(rmdir(sub), 0);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	CHECK(has_in(r.unreadable, r.n_unreadable, dotgit));
	w = root_of(&r, ws);
	CHECK(w && !has_in(w->no_create.v, w->no_create.n, dotgit));
	sbx_roots_free(&r);
	/* The same in git mode. */
	ctx.allow_git = true;
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	CHECK(has_in(r.unreadable, r.n_unreadable, dotgit));
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(top);
	free(ws);
	free(g);
	free(mod);
	free(dotgit);
	free(sub);
}

#ifdef SBX_FAILALLOC
/*
 * Each allocation on the way to a submodule's checkout failing is -ENOMEM, never "the config
 * names none" (which would leave the checkout's .git unprotected).
 */
TEST(gitmode_checkout_out_of_memory)
{
	char *top = vec_fresh_dir(), *mod = at(top, "ws/.git/modules/sub"),
	     *want = at(top, "ws/sub/.git"), *dotgit = NULL;
	struct sbx_ctx ctx = vec_ctx(top);
	struct sbx_diag d;
	bool done = false;

	git_init(mod);
	file_at(mod, "config", "[core]\n\tworktree = ../../../sub\n");
	for (long n = 0; !done && n < 64; n++) {
		int r;

		sbx_diag_clear(&d);
		fa_arm(n);
		r = sbx_git_checkout(&ctx, mod, &dotgit, &d);
		done = !fa_fired();
		fa_arm(-1);
		if (done) {
			CHECK_INT(r, 0);
			CHECK_STR(dotgit, want);
		} else {
			CHECK_INT(r, -ENOMEM);
			CHECK(dotgit == NULL);
		}
		free(dotgit);
		dotgit = NULL;
	}
	CHECK(done);
	free(top);
	free(mod);
	free(want);
}
#endif

/* access in git mode: lexical, the same names and the same reasons. */
TEST(gitmode_access)
{
	static const struct {
		const char *rel;
		const char *access;
		const char *rule; /* a part of it */
	} cases[] = {
		{".git/index", "write", "entries[1]: write .git (git mode, in write /w)"},
		{".git/objects/ab/cdef", "write", "git mode"},
		{".git", "write", "git mode"},
		{".git/hooks/pre-commit", "read",
		 "entries[1]: read-only .git/hooks (git mode: git runs the programs in it; "
		 "missing: cannot be created)"},
		{".git/hooks", "read", "read-only .git/hooks (git mode"},
		{".git/config", "read",
		 "read-only .git/config (git mode: it can name programs git runs"},
		{".git/config.worktree", "read", "read-only .git/config.worktree (git mode"},
		{".git/commondir", "read", "read-only .git/commondir (git mode: it sends git"},
		{".git/modules/sub/hooks/x", "read", "read-only .git/modules/sub/hooks (git mode"},
		{".git/modules/sub/config", "read", "read-only .git/modules/sub/config (git mode"},
		{".git/modules/sub/modules/in/config", "read",
		 "read-only .git/modules/sub/modules/in/config (git"},
		{".git/modules/sub/index", "write", "git mode"},
		{".git/worktrees/wt/commondir", "read",
		 "read-only .git/worktrees/wt/commondir (git mode"},
		{".git/worktrees/wt/gitdir", "read",
		 "read-only .git/worktrees/wt/gitdir (git mode: it names"},
		{".git/worktrees/wt/config.worktree", "read",
		 "read-only .git/worktrees/wt/config.worktree (git"},
		{".git/worktrees/wt/config", "write", "git mode"},
		{".git/worktrees/wt/HEAD", "write", "git mode"},
		{".git/worktrees/wt/modules/s/hooks/x", "read",
		 "read-only .git/worktrees/wt/modules/s/hooks (git"},
		{".git/modules", "write", "git mode"},
		{".agents/x", "read",
		 "entries[5]: read-only .agents (protected; missing: cannot be created)"},
		{"src/a.c", "write", "entries[1]: write /w"},
	};
	struct sbx_ctx ctx = vec_ctx("/w");
	struct sbx_profile prof = {0}, m = {0};
	struct sbx_diag d;

	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_builtin(":workspace", &prof, &d), 0);
	CHECK_INT(sbx_profile_materialize(&prof, &ctx, &m), 0);
	ctx.allow_git = true;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct sbx_access_why a;
		char *p = at("/w", cases[i].rel);

		CHECK_INT(sbx_access_rule(&m, NULL, &ctx, p, &a), 0);
		if (strcmp(sbx_access_name(a.access), cases[i].access) != 0 ||
		    !strstr(a.rule, cases[i].rule))
			t_fail(__FILE__, __LINE__, "%s: %s (%s), expected %s (%s)", p,
			       sbx_access_name(a.access), a.rule, cases[i].access, cases[i].rule);
		sbx_access_why_free(&a);
		free(p);
	}
	/* Without the mode, .git is read-only whole. */
	ctx.allow_git = false;
	{
		struct sbx_access_why a;

		CHECK_INT(sbx_access_rule(&m, NULL, &ctx, "/w/.git/index", &a), 0);
		CHECK_STR(sbx_access_name(a.access), "read");
		sbx_access_why_free(&a);
	}
	sbx_profile_free(&prof);
	sbx_profile_free(&m);
}

/* Git's own test for a git directory: a valid HEAD, objects/ and refs/ (or a commondir). */
TEST(gitmode_is_gitdir_as_git_tests)
{
	static const struct {
		const char *head; /* NULL: none */
		bool objects, refs, commondir, want;
	} cases[] = {
		{"ref: refs/heads/main\n", true, true, false, true},
		{"ref:\trefs/heads/x", true, true, false, true},
		{"0123456789abcdef0123456789ABCDEF01234567\n", true, true, false, true},
		{"junk\n", true, true, false, false},
		{"ref: heads/main\n", true, true, false, false},
		{"0123456789abcdef\n", true, true, false, false},
		{"", true, true, false, false},
		{NULL, true, true, false, false},
		{"ref: refs/heads/main\n", false, true, false, false},
		{"ref: refs/heads/main\n", true, false, false, false},
		{"ref: refs/heads/main\n", false, false, true, true},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		json_t *facts = json_pack("{s:s, s:s}", "/g", "dir", "/g/x", "dir");
		struct sbx_ctx ctx = vec_ctx("/g");
		struct fakefs fs;
		struct sbx_diag d;
		bool yes = !cases[i].want;

		if (cases[i].head)
			json_object_set_new(
				facts, "/g/HEAD",
				json_pack("{s:s, s:s}", "type", "file", "content", cases[i].head));
		if (cases[i].objects)
			json_object_set_new(facts, "/g/objects", json_string("dir"));
		if (cases[i].refs)
			json_object_set_new(facts, "/g/refs", json_string("dir"));
		if (cases[i].commondir)
			json_object_set_new(
				facts, "/g/commondir",
				json_pack("{s:s, s:s}", "type", "file", "content", "..\n"));
		fakefs_init(&fs, facts);
		ctx.fs = &fs.view;
		sbx_diag_clear(&d);
		CHECK_INT(sbx_git_is_gitdir(&ctx, "/g", &yes, &d), 0);
		CHECK_INT(yes, cases[i].want);
		json_decref(facts);
	}
	CHECK(sbx_git_own_subdir("objects") && sbx_git_own_subdir("modules"));
	CHECK(!sbx_git_own_subdir("a") && !sbx_git_own_subdir("lib"));
}

/*
 * The readings of a file of kind holding text (len bytes) as sbx_git_read_lines gives them,
 * joined by "|"; "" when it gives none, "!" when it refuses the file.
 */
static char *readings_of(const char *dir, const char *text, size_t len, enum sbx_git_file kind)
{
	char *lines[SBX_GIT_READINGS], *file = at(dir, "f"), out[256] = "";
	struct sbx_ctx ctx = vec_ctx(dir);
	struct sbx_diag d;
	FILE *f = fopen(file, "wb");
	int n;

	CHECK(f && fwrite(text, 1, len, f) == len);
	if (f)
		fclose(f);
	sbx_diag_clear(&d);
	n = sbx_git_read_lines(&ctx, file, kind, "test", 64, lines, &d);
	if (n < 0)
		strcpy(out, "!");
	for (int i = 0; i < n; i++) {
		if (i)
			strcat(out, "|");
		strncat(out, lines[i], sizeof(out) - strlen(out) - 2);
		free(lines[i]);
	}
	free(file);
	return strdup(out);
}

#define READS_AS(dir, text, kind, want)                                                            \
	do {                                                                                       \
		char *got_ = readings_of(dir, text, sizeof(text) - 1, kind);                       \
		CHECK_STR(got_, want);                                                             \
		free(got_);                                                                        \
	} while (0)

/*
 * A commondir is read as git 2.39 reads it: trailing newlines and carriage returns dropped,
 * nothing else ("../.. " is taken by git for a directory named ".. "; " ../.." for one named
 * " .." first), and the path up to a NUL byte. Trimmed, or taken for no path, sbxrun would
 * protect another directory than the one git takes.
 */
TEST(git_read_line_commondir_as_git)
{
	char *dir = vec_fresh_dir();

	READS_AS(dir, "../..\n", SBX_GIT_COMMONDIR, "../..");
	READS_AS(dir, "../..\r\n\n", SBX_GIT_COMMONDIR, "../..");
	READS_AS(dir, "../.. \n", SBX_GIT_COMMONDIR, "../.. ");
	READS_AS(dir, "../..\t\n", SBX_GIT_COMMONDIR, "../..\t");
	READS_AS(dir, " ../..\n", SBX_GIT_COMMONDIR, " ../..");
	/* git: the git directory itself; an empty file it cannot read. */
	READS_AS(dir, "\n\r\n", SBX_GIT_COMMONDIR, ".");
	READS_AS(dir, "", SBX_GIT_COMMONDIR, "");
	/* A NUL ends the path (git takes it as a C string). */
	READS_AS(dir, "../..\0junk\n", SBX_GIT_COMMONDIR, "../..");
	READS_AS(dir, "\0../..\n", SBX_GIT_COMMONDIR, ".");
	/* A line break left in the path: refused, never read as no path. */
	READS_AS(dir, "\n../..\n", SBX_GIT_COMMONDIR, "!");
	READS_AS(dir, "../..\nx\n", SBX_GIT_COMMONDIR, "!");
	READS_AS(dir, "../..\r\0\n", SBX_GIT_COMMONDIR, "!");
	free(dir);
}

/*
 * A .git file has two readings: git's (after "gitdir: ", newlines dropped at the end) and the
 * profile semantics' (trimmed); where they differ, both are given, the profile's second.
 */
TEST(git_read_line_dotgit_both_readings)
{
	char *dir = vec_fresh_dir();

	READS_AS(dir, "gitdir: x\n", SBX_GIT_DOTGIT, "x");
	READS_AS(dir, "gitdir: x\r\r\n", SBX_GIT_DOTGIT, "x");
	READS_AS(dir, "gitdir: x \n", SBX_GIT_DOTGIT, "x |x");
	READS_AS(dir, "gitdir:  x\n", SBX_GIT_DOTGIT, " x|x");
	READS_AS(dir, " \tgitdir: x \t\r\n", SBX_GIT_DOTGIT, "x");
	READS_AS(dir, "gitdir:x\n", SBX_GIT_DOTGIT, "x");
	READS_AS(dir, "gitdir: x\0y\n", SBX_GIT_DOTGIT, "x");
	READS_AS(dir, "gitdir: \0y\n", SBX_GIT_DOTGIT, ".");
	READS_AS(dir, " \t\r\n", SBX_GIT_DOTGIT, "");
	READS_AS(dir, "gitdir: \n", SBX_GIT_DOTGIT, "");
	READS_AS(dir, "gitdir: x\ny\n", SBX_GIT_DOTGIT, "!");
	free(dir);
}

/*
 * A linked worktree's gitdir git reads two ways: blanks dropped at the end (worktree list and
 * remove), newlines and carriage returns only (prune). Both are given.
 */
TEST(git_read_line_gitdir_both_readings)
{
	char *dir = vec_fresh_dir();

	READS_AS(dir, "/w/.git\n", SBX_GIT_GITDIR, "/w/.git");
	READS_AS(dir, "/w/.git \t\r\n", SBX_GIT_GITDIR, "/w/.git|/w/.git \t");
	READS_AS(dir, " /w/.git\n", SBX_GIT_GITDIR, " /w/.git");
	READS_AS(dir, "/w/.git\0 x\n", SBX_GIT_GITDIR, "/w/.git");
	READS_AS(dir, " \n", SBX_GIT_GITDIR, " ");
	READS_AS(dir, "/w/.git\n/x\n", SBX_GIT_GITDIR, "!");
	free(dir);
}

/*
 * The files a config includes, as git reads its include.path and includeIf.<any>.path: every
 * condition counts (the command may make it hold), relative paths join the config's directory,
 * "~" and "%(prefix)" (which git expands when it runs) refuse, and a file git refuses includes
 * nothing.
 */
TEST(gitmode_config_includes_as_git_reads_them)
{
	static const struct {
		const char *config;
		const char *first, *second; /* relative to the config's directory, or NULL */
		int ret;
	} cases[] = {
		{"[include]\n\tpath = ../inc.cfg\n", "../inc.cfg", NULL, 0},
		{"[Include]\n\tPATH = \"a b.cfg\"  ; a comment\n", "a b.cfg", NULL, 0},
		{"[include] path = a\n[include]\npath = b\n", "a", "b", 0},
		{"[includeIf \"gitdir:/x/\"]\n\tpath = a\n", "a", NULL, 0},
		{"[includeif \"onbranch:]\\\"x\"]\n\tpath = a\n", "a", NULL, 0},
		{"[includeIf \"hasconfig:remote.*.url:x\"]\npath = /abs.cfg\n", "/abs.cfg", NULL,
		 0},
		{"[include \"x\"]\n\tpath = a\n[include.x]\n\tpath = b\n", NULL, NULL, 0},
		{"[includeIf]\n\tpath = a\n[user]\n\tpath = b\n", NULL, NULL, 0},
		{"# [include]\n[core]\n\tpath = a\n", NULL, NULL, 0},
		/* As git reads them: a byte order mark, CRLF, a line continued, "" before blanks. */
		{"\xef\xbb\xbf[include]\n\tpath = a\n", "a", NULL, 0},
		{"[include]\r\n\tpath = a\\\r\nb\r\n\tpath = c\r\n", "ab", "c", 0},
		{"[include]\n\tpath = \"\"  a\n\tpath = b\\", "a", "b", 0},
		/* Git refuses the file, and so runs nothing: what came before is kept all the same. */
		{"[include]\n\tpath = a\n\tpath = \"b\n\tpath = c\n", "a", NULL, 0},
		{"[include]\n\tpath = ~/x.cfg\n", NULL, NULL, SBX_E_UNENFORCEABLE},
		{"[include]\n\tpath = %(prefix)/x.cfg\n", NULL, NULL, SBX_E_UNENFORCEABLE},
		{"[include]\n\tpath = a/../../x.cfg\n", NULL, NULL, SBX_E_UNENFORCEABLE},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *top = vec_fresh_dir(), *g = at(top, "ws/.git"), *cfg = at(g, "config");
		struct sbx_ctx ctx = vec_ctx(top);
		struct sbx_strv out = {0};
		struct sbx_diag d;
		size_t want = !!cases[i].first + !!cases[i].second;
		int r;

		mkdir_at(top, "ws/.git");
		file_at(g, "config", cases[i].config);
		sbx_diag_clear(&d);
		r = sbx_git_config_includes(&ctx, cfg, &out, &d);
		if (r != cases[i].ret || out.n != want)
			t_fail(__FILE__, __LINE__, "case %zu: %d, %zu paths (%s)", i, r, out.n,
			       d.msg);
		for (size_t k = 0; k < 2 && out.n == want; k++) {
			const char *rel = k ? cases[i].second : cases[i].first;
			char *p = NULL;

			if (!rel)
				continue;
			CHECK_INT(sbx_path_join_any(g, rel, &p), 0);
			if (strcmp(out.v[k], p))
				t_fail(__FILE__, __LINE__, "case %zu: %s, not %s", i, out.v[k], p);
			free(p);
		}
		sbx_strv_clear(&out);
		free(top);
		free(g);
		free(cfg);
	}
}

/*
 * The global config files git 2.39 reads (config.c git_global_config, path.c xdg_config_home),
 * then the system one (git_system_config), and /etc/gitconfig whatever names that.
 */
static void git_globals_free(char *g[SBX_GIT_GLOBALS])
{
	for (int i = 0; i < SBX_GIT_GLOBALS; i++)
		free(g[i]);
}

TEST(git_globals_as_git_finds_them)
{
	char *g[SBX_GIT_GLOBALS];
	size_t ns = 9;

	CHECK_INT(sbx_git_globals("/w", NULL, NULL, "/h", "", g, &ns), 0);
	CHECK_STR(g[0], "/h/.config/git/config");
	CHECK_STR(g[1], "/h/.gitconfig");
	CHECK_STR(g[2], "/etc/gitconfig");
	CHECK(g[3] == NULL);
	CHECK_INT(ns, 1);
	git_globals_free(g);
	/* XDG_CONFIG_HOME set and not empty; relative joined to the cwd. */
	CHECK_INT(sbx_git_globals("/w", NULL, "cfg/", "/h/", "", g, &ns), 0);
	CHECK_STR(g[0], "/w/cfg/git/config");
	CHECK_STR(g[1], "/h/.gitconfig");
	git_globals_free(g);
	CHECK_INT(sbx_git_globals("/w", NULL, "", "/h", "", g, &ns), 0);
	CHECK_STR(g[0], "/h/.config/git/config");
	git_globals_free(g);
	/* An empty HOME: git's "$HOME/.gitconfig" is /.gitconfig, not the cwd's. */
	CHECK_INT(sbx_git_globals("/w", NULL, NULL, "", "", g, &ns), 0);
	CHECK_STR(g[0], "/.config/git/config");
	CHECK_STR(g[1], "/.gitconfig");
	git_globals_free(g);
	/* Without HOME: the XDG file only when XDG_CONFIG_HOME names it. */
	CHECK_INT(sbx_git_globals("/w", NULL, NULL, NULL, "", g, &ns), 0);
	CHECK_STR(g[0], "/etc/gitconfig");
	CHECK(g[1] == NULL);
	git_globals_free(g);
	CHECK_INT(sbx_git_globals("/w", NULL, "/x", NULL, "", g, &ns), 0);
	CHECK_STR(g[0], "/x/git/config");
	CHECK_STR(g[1], "/etc/gitconfig");
	CHECK(g[2] == NULL);
	git_globals_free(g);
	/* GIT_CONFIG_GLOBAL alone, whatever else is set; empty names none. */
	CHECK_INT(sbx_git_globals("/w", "/a/../b/cfg", "/x", "/h", "", g, &ns), 0);
	CHECK_STR(g[0], "/b/cfg");
	CHECK_STR(g[1], "/etc/gitconfig");
	CHECK(g[2] == NULL);
	git_globals_free(g);
	CHECK_INT(sbx_git_globals("/w", "", "/x", "/h", "", g, &ns), 0);
	CHECK_STR(g[0], "/etc/gitconfig");
	CHECK(g[1] == NULL);
	git_globals_free(g);
	/* Not a POSIX host's cwd: none. */
	CHECK_INT(sbx_git_globals("C:\\w", NULL, NULL, "C:\\h", "", g, &ns), 0);
	CHECK(g[0] == NULL);
	CHECK_INT(ns, 0);
	CHECK_INT(sbx_git_globals("C:\\w", NULL, NULL, "C:\\h", NULL, g, &ns), 0);
	CHECK(g[0] == NULL);
	/* The system file after the global ones: GIT_CONFIG_SYSTEM, then /etc/gitconfig. */
	CHECK_INT(sbx_git_globals("/w", NULL, NULL, "/h", NULL, g, &ns), 0);
	CHECK_STR(g[0], "/h/.config/git/config");
	CHECK_STR(g[1], "/h/.gitconfig");
	CHECK_STR(g[2], "/etc/gitconfig");
	CHECK(g[3] == NULL);
	git_globals_free(g);
	CHECK_INT(sbx_git_globals("/w", NULL, NULL, "/h", "/ci/sys", g, &ns), 0);
	CHECK_STR(g[0], "/h/.config/git/config");
	CHECK_STR(g[1], "/h/.gitconfig");
	CHECK_STR(g[2], "/ci/sys");
	CHECK_STR(g[3], "/etc/gitconfig");
	CHECK_INT(ns, 2);
	git_globals_free(g);
	CHECK_INT(sbx_git_globals("/w", "/c", NULL, "/h", "sys/../cfg", g, &ns), 0);
	CHECK_STR(g[0], "/c");
	CHECK_STR(g[1], "/w/cfg");
	CHECK_STR(g[2], "/etc/gitconfig");
	CHECK(g[3] == NULL);
	CHECK_INT(ns, 2);
	git_globals_free(g);
	CHECK_INT(sbx_git_globals("/w", "", NULL, NULL, NULL, g, &ns), 0);
	CHECK_STR(g[0], "/etc/gitconfig");
	CHECK(g[1] == NULL);
	git_globals_free(g);
	/* Named once however often it is named. */
	CHECK_INT(sbx_git_globals("/w", "", NULL, NULL, "/etc//gitconfig", g, &ns), 0);
	CHECK_STR(g[0], "/etc/gitconfig");
	CHECK(g[1] == NULL);
	CHECK_INT(ns, 1);
	git_globals_free(g);
	/* A global file that is also a system one: once, as the system one (the helper's own). */
	CHECK_INT(sbx_git_globals("/w", "/etc/gitconfig", NULL, "/h", NULL, g, &ns), 0);
	CHECK_STR(g[0], "/etc/gitconfig");
	CHECK(g[1] == NULL);
	CHECK_INT(ns, 1);
	git_globals_free(g);
	CHECK_INT(sbx_git_globals("/w", "/c", NULL, "/h", "/c", g, &ns), 0);
	CHECK_STR(g[0], "/c");
	CHECK_STR(g[1], "/etc/gitconfig");
	CHECK(g[2] == NULL);
	CHECK_INT(ns, 2);
	git_globals_free(g);
	CHECK_INT(sbx_git_globals("/w", NULL, NULL, "/h", "/h/.gitconfig", g, &ns), 0);
	CHECK_STR(g[0], "/h/.config/git/config");
	CHECK_STR(g[1], "/h/.gitconfig");
	CHECK_STR(g[2], "/etc/gitconfig");
	CHECK(g[3] == NULL);
	CHECK_INT(ns, 2);
	git_globals_free(g);
}

/*
 * HOME in the workspace: ~/.gitconfig is a read-only carve-out whatever writes above it, the
 * file it includes through ~/ too, a missing ~/.config/git cannot be made; an entry naming the
 * file decides; a missing ~/.config refuses; a FIFO there refuses.
 */
TEST(git_globals_in_a_writable_root)
{
	char *top = vec_fresh_dir(), *ws = at(top, "ws"), *gc = at(ws, ".gitconfig"),
	     *inc = at(ws, "inc.cfg"), *xdg = at(ws, ".config/git/config"),
	     *xdgdir = at(ws, ".config/git");
	const char *globals[] = {xdg, gc};
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_profile prof = {0}, m = {0};
	struct sbx_roots r;
	const struct sbx_writable_root *w;
	struct sbx_diag d;

	mkdir_at(ws, ".config");
	file_at(ws, ".gitconfig", "[include]\n\tpath = ~/inc.cfg\n");
	file_at(ws, "inc.cfg", "[user]\n\tname = u\n");
	ctx.home = ws;
	ctx.git_globals = globals;
	ctx.n_git_globals = 2;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_builtin(":workspace", &prof, &d), 0);
	CHECK_INT(sbx_profile_materialize(&prof, &ctx, &m), 0);
	CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && has_in(w->read_only, w->n_read_only, gc));
	CHECK(w && has_in(w->read_only, w->n_read_only, inc));
	CHECK(w && has_in(w->no_create.v, w->no_create.n, xdgdir));
	CHECK(has_in(r.git_globals.v, r.git_globals.n, gc));
	sbx_roots_free(&r);
	/* Git mode lifts nothing here. */
	ctx.allow_git = true;
	CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && has_in(w->read_only, w->n_read_only, gc));
	sbx_roots_free(&r);
	ctx.allow_git = false;
	/* Without HOME, the include through ~/ cannot be placed: refused. */
	ctx.home = NULL;
	CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
	ctx.home = ws;
	/* An entry naming the file decides it. */
	CHECK_INT(sbx_fs_push_path(&m.fs, gc, SBX_WRITE, false), 0);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && !has_in(w->read_only, w->n_read_only, gc));
	sbx_roots_free(&r);
	sbx_profile_free(&m);
	CHECK_INT(sbx_profile_materialize(&prof, &ctx, &m), 0);
	/* A missing ~/.config refuses, naming the fix. */
	{
		char *cfg = at(ws, ".config");

		CHECK_INT(rmdir(cfg), 0);
		sbx_diag_clear(&d);
		CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
		CHECK(strstr(d.msg, xdgdir) != NULL);
		CHECK(strstr(d.hint, "mkdir -p") != NULL);
		mkdir_at(ws, ".config");
		free(cfg);
	}
	/* A FIFO at ~/.gitconfig refuses. */
	CHECK_INT(unlink(gc), 0);
	CHECK_INT(mkfifo(gc, 0600), 0);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
	CHECK(strstr(d.msg, "no regular file") != NULL);
	sbx_profile_free(&m);
	sbx_profile_free(&prof);
	free(top);
	free(ws);
	free(gc);
	free(inc);
	free(xdg);
	free(xdgdir);
}

/*
 * A missing system config of any name in a writable root: an empty file for the run (git dies
 * on a mask), said to be the system one; a missing global one of another name the same, said to
 * be global; and a refusal about the system file names it and GIT_CONFIG_SYSTEM.
 */
TEST(git_system_config_in_a_writable_root)
{
	char *top = vec_fresh_dir(), *ws = at(top, "ws"), *sys = at(ws, "system.cfg"),
	     *glob = at(ws, "global.cfg");
	const char *globals[] = {glob, sys};
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_profile prof = {0}, m = {0};
	struct sbx_roots r;
	const struct sbx_writable_root *w;
	struct sbx_diag d;

	mkdir_at(top, "ws");
	ctx.git_globals = globals;
	ctx.n_git_globals = 2;
	ctx.n_git_system = 1;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_builtin(":workspace", &prof, &d), 0);
	CHECK_INT(sbx_profile_materialize(&prof, &ctx, &m), 0);
	CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && has_in(w->no_create.v, w->no_create.n, sys));
	CHECK(w && has_in(w->no_create.v, w->no_create.n, glob));
	CHECK(has_in(r.git_files.v, r.git_files.n, sys));
	CHECK(has_in(r.git_files.v, r.git_files.n, glob));
	CHECK(has_in(r.git_system.v, r.git_system.n, sys));
	CHECK(!has_in(r.git_system.v, r.git_system.n, glob));
	sbx_roots_free(&r);
	CHECK_INT(mkfifo(sys, 0600), 0);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
	CHECK(strstr(d.msg, "git's system config") != NULL);
	CHECK(strstr(d.hint, "GIT_CONFIG_SYSTEM") != NULL);
	CHECK(strstr(d.hint, "GIT_CONFIG_GLOBAL") == NULL);
	/* The same file named as a global one: the global words. */
	ctx.n_git_system = 0;
	globals[0] = sys;
	globals[1] = glob;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_roots(&m.fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
	CHECK(strstr(d.msg, "git's global config") != NULL);
	CHECK(strstr(d.hint, "GIT_CONFIG_GLOBAL") != NULL);
	CHECK_INT(unlink(sys), 0);
	sbx_profile_free(&m);
	sbx_profile_free(&prof);
	free(top);
	free(ws);
	free(sys);
	free(glob);
}

/* One pass over a config's text for both keys sbxrun takes from it, as git parses them. */
TEST(git_config_parse_both_keys_at_once)
{
	static const struct {
		const char *text;
		int worktree;
		const char *tree;
		size_t hashsz;
	} cases[] = {
		{"", 0, "", 20},
		{"[core]\n\tbare = false\n", 0, "", 20},
		{"[core]\n\tworktree = ../../sub\n[extensions]\n\tobjectFormat = sha256\n", 1,
		 "../../sub", 32},
		/* Sections and keys in any case, a key on its header's line, the last one taken. */
		{"[CORE] WorkTree = a\n[Extensions] OBJECTFORMAT = sha1\n[core]\nworktree = b\n", 1,
		 "b", 20},
		/* Values exactly: git refuses "SHA256" (hash_algo_by_name): no index read. */
		{"[extensions]\n\tobjectformat = SHA256\n", 0, "", 0},
		{"[extensions]\n\tobjectformat = \"sha256\" # quoted, commented\n", 0, "", 32},
		/* A subsection is another section: neither key there. */
		{"[core \"x\"]\n\tworktree = a\n[extensions \"y\"]\n\tobjectformat = sha256\n", 0,
		 "", 20},
		/* An empty core.worktree names none. */
		{"[core]\n\tworktree =\n", 0, "", 20},
		/* A line git refuses: the file names nothing, and git reads no index with it. */
		{"[core]\n\tworktree = a\n[extensions]\n\tobjectformat = sha256\n\tx = \"open\n", 0,
		 "", 0},
	};
	struct sbx_git_config c;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sbx_git_config_parse(cases[i].text, strlen(cases[i].text), &c);
		CHECK_INT(c.worktree, cases[i].worktree);
		CHECK_STR(c.tree, cases[i].tree);
		CHECK_INT(c.hashsz, cases[i].hashsz);
	}
	/* A core.worktree longer than a path is too big; a later line git refuses undoes it. */
	{
		size_t n = SBX_MAX_PATH + 40;
		char *t = malloc(n + 64);

		CHECK(t != NULL);
		strcpy(t, "[core]\n\tworktree = ");
		memset(t + strlen(t), 'a', SBX_MAX_PATH + 1);
		t[19 + SBX_MAX_PATH + 1] = '\0';
		strcat(t, "\n");
		sbx_git_config_parse(t, strlen(t), &c);
		CHECK_INT(c.worktree, SBX_E_TOO_BIG);
		CHECK_INT(c.hashsz, 20);
		strcat(t, "x = \"open\n");
		sbx_git_config_parse(t, strlen(t), &c);
		CHECK_INT(c.worktree, 0);
		CHECK_INT(c.hashsz, 0);
		free(t);
	}
}

/* A sequencer's options.strategy, as git's cherry-pick --continue takes it: the last one named. */
TEST(git_sequencer_strategy_as_git_reads_it)
{
	static const struct {
		const char *text;
		int got;
		const char *val;
	} cases[] = {
		{"", 0, ""},
		/* As git writes it. */
		{"[options]\n\tallow-ff = true\n\tstrategy = ort\n", 1, "ort"},
		/* Any case, the last one taken, a quoted value with a comment after it. */
		{"[options]\n\tstrategy = ort\n[OPTIONS]\n\tStrategy = \"./x\" # c\n", 1, "./x"},
		/* A subsection is another key; a boolean without "=" names nothing. */
		{"[options \"s\"]\n\tstrategy = ./x\n[options]\n\tstrategy\n", 0, ""},
		/* A file git refuses: it continues nothing with it. */
		{"[options]\n\tstrategy = \"./x\n", -EINVAL, ""},
	};
	char val[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_INT(sbx_git_sequencer_strategy(cases[i].text, strlen(cases[i].text), val,
						     sizeof(val)),
			  cases[i].got);
		if (cases[i].got > 0)
			CHECK_STR(val, cases[i].val);
	}
	/* A value longer than the buffer is cut, and said to be: never taken for a shorter name. */
	CHECK_INT(sbx_git_sequencer_strategy("[options]\nstrategy = recursive-x\n", 33, val, 10),
		  2);
	CHECK_STR(val, "recursive");
	CHECK_INT(sbx_git_sequencer_strategy("[options]\nstrategy = recursive\n", 31, val, 10), 1);
	CHECK_STR(val, "recursive");
	/*
	 * One longer than a line the reader takes, after another: its start is out, not the
	 * earlier name (the end-of-run check keys a strategy by it).
	 */
	{
		char text[1200], big[1100];
		int n;

		memset(big, 'z', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		n = snprintf(text, sizeof(text), "[options]\nstrategy = ort\nstrategy = %s\n", big);
		CHECK_INT(sbx_git_sequencer_strategy(text, (size_t)n, val, sizeof(val)), 2);
		CHECK(val[0] == 'z');
	}
}
