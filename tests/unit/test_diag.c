/* SPDX-License-Identifier: MIT */
/*
 * test_diag.c - the diagnostic contract: the first error recorded is the one kept (and its hint
 * with it), and every lib/ entry point that fails fills the message, on every failure path,
 * including each allocation that can fail (failalloc.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "failalloc.h"
#include "net.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

TEST(diag_first_error_is_kept)
{
	struct sbx_diag d;

	sbx_diag_clear(&d);
	CHECK_INT(sbx_diag_set_at(&d, -EINVAL, "p.json", 3, 7, "/a", "first %d", 1), -EINVAL);
	CHECK_INT(sbx_diag_hint(&d, -EINVAL, "first hint"), -EINVAL);
	/* A later error, and the hint that follows it, are ignored; the code is passed through. */
	CHECK_INT(sbx_diag_set_at(&d, -ENOENT, "q.json", 9, 9, "/b", "second"), -ENOENT);
	CHECK_INT(sbx_diag_hint(&d, -ENOENT, "second hint"), -ENOENT);
	CHECK_INT(sbx_diag_set(&d, -EIO, "third"), -EIO);
	CHECK_STR(d.msg, "first 1");
	CHECK_STR(d.file, "p.json");
	CHECK_STR(d.pointer, "/a");
	CHECK_INT(d.line, 3);
	CHECK_INT(d.col, 7);
	CHECK_STR(d.hint, "first hint");

	/* The hint of a dropped error is not attached to the first one either. */
	sbx_diag_clear(&d);
	sbx_diag_set(&d, -EINVAL, "first");
	sbx_diag_set(&d, -EIO, "second");
	sbx_diag_hint(&d, -EIO, "belongs to the second");
	CHECK_STR(d.hint, "");
	/* ...while a hint for the first error stays the first hint. */
	sbx_diag_clear(&d);
	sbx_diag_set(&d, -EINVAL, "first");
	sbx_diag_hint(&d, -EINVAL, "one");
	sbx_diag_hint(&d, -EINVAL, "two");
	CHECK_STR(d.hint, "one");
	/* An empty message still counts as recorded. */
	sbx_diag_clear(&d);
	sbx_diag_set(&d, -EINVAL, "%s", "");
	CHECK(d.msg[0] != '\0');
	sbx_diag_set(&d, -EIO, "later");
	CHECK(strcmp(d.msg, "later") != 0);
	/* NULL is no diagnostic: the code comes back all the same. */
	CHECK_INT(sbx_diag_set(NULL, -EIO, "x"), -EIO);
	CHECK_INT(sbx_diag_hint(NULL, -EIO, "x"), -EIO);
}

/*
 * A message longer than the record (a path near PATH_MAX) keeps its start and its end: the rule
 * it names and the error, never "cannot look up /aaaa...a" with the error cut off.
 */
TEST(diag_long_message_keeps_its_end)
{
	static const char err[] = ": Permission denied";
	char path[4001], *m;
	struct sbx_diag d;
	size_t n;

	path[0] = '/';
	for (size_t i = 1; i < sizeof(path) - 1; i++)
		path[i] = i % 100 == 0 ? '/' : 'a' + (char)(i % 26);
	path[sizeof(path) - 1] = 0;
	sbx_diag_clear(&d);
	sbx_diag_set(&d, -EACCES, "cannot look up %s%s", path, err);
	m = d.msg;
	n = strlen(m);
	CHECK(n == sizeof(d.msg) - 1);
	CHECK(strncmp(m, "cannot look up /bcd", 19) == 0);
	CHECK(strstr(m, " ... ") != NULL);
	CHECK(n > strlen(err) && strcmp(m + n - strlen(err), err) == 0);
	/* The path's own last component is there, just before the error. */
	CHECK(strstr(m, path + sizeof(path) - 1 - 50) != NULL);

	/* No UTF-8 sequence is cut in two at either side of the gap. */
	for (size_t i = 1; i < sizeof(path) - 2; i += 2) {
		path[i] = (char)0xc3;
		path[i + 1] = (char)0xa9; /* U+00E9 */
	}
	for (int shift = 0; shift < 2; shift++) {
		char *g;

		sbx_diag_clear(&d);
		sbx_diag_set(&d, -EACCES, "%.*s%s%s", shift, "xx", path, err);
		m = d.msg;
		n = strlen(m);
		CHECK(strcmp(m + n - strlen(err), err) == 0);
		g = strstr(m, " ... ");
		CHECK(g != NULL);
		if (g) {
			CHECK((g[-1] & 0xc0) != 0xc0); /* no lead byte left alone */
			CHECK((g[5] & 0xc0) != 0x80);  /* no continuation byte first */
		}
	}
	/* A message that fits is kept whole. */
	sbx_diag_clear(&d);
	sbx_diag_set(&d, -EACCES, "cannot look up %.*s%s", 900, path, err);
	CHECK(strstr(d.msg, " ... ") == NULL);
}

/* The loader keeps the error nearest its cause: the caller's context is not written over it. */
TEST(diag_loader_keeps_first_error)
{
	const char *text = "{\"file_system\":{\"read\":[\"rel\"]}}";
	struct sbx_profile p;
	struct sbx_diag d;

	CHECK_INT(sbx_profile_load_buf(text, strlen(text), "t.json", &p, NULL, NULL, &d),
		  SBX_E_INVALID);
	sbx_diag_set(&d, -EIO, "the caller's words");
	CHECK_STR(d.msg, "/file_system/read/0: relative path \"rel\" (paths must be absolute)");
	CHECK_INT(d.line, 1);
	CHECK(strstr(d.hint, "project_roots") != NULL);
}

/* ---- every entry point, every failure ------------------------------------------------------ */

struct fixture {
	char *dir, *file, *glob;
	struct sbx_ctx ctx;
};

static void fixture_make(struct fixture *f)
{
	char *git = NULL;

	f->dir = vec_fresh_dir();
	f->ctx = vec_ctx(f->dir);
	if (asprintf(&f->file, "%s/p.json", f->dir) < 0)
		f->file = NULL;
	if (asprintf(&f->glob, "%s/*.json", f->dir) < 0)
		f->glob = NULL;
	if (asprintf(&git, "%s/.git", f->dir) > 0)
		vec_mkdir(git);
	free(git);
	/* For git mode: hooks, a submodule's git directory with its config, a worktree's. */
	if (asprintf(&git, "%s/.git/hooks", f->dir) > 0)
		vec_mkdir(git);
	free(git);
	if (asprintf(&git, "%s/.git/HEAD", f->dir) > 0)
		vec_mkfile(git, "ref: refs/heads/main\n");
	free(git);
	if (asprintf(&git, "%s/.git/modules/sub/HEAD", f->dir) > 0)
		vec_mkfile(git, "ref: refs/heads/main\n");
	free(git);
	if (asprintf(&git, "%s/.git/modules/sub/config", f->dir) > 0)
		vec_mkfile(git, "[core]\n\tworktree = ../../../sub\n");
	free(git);
	if (asprintf(&git, "%s/.git/worktrees/wt/commondir", f->dir) > 0)
		vec_mkfile(git, "../..\n");
	free(git);
	vec_mkfile(f->file, "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
			    "\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/etc\"},"
			    "\"access\":\"read\"}]},\"network\":\"restricted\"}");
}

static const char *const texts[] = {
	/* the canonical form, the single-pass parser's */
	"{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
	"{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\",\"subpath\":\"d\"}},"
	"\"access\":\"write\"},{\"path\":{\"type\":\"path\",\"path\":\"/a/../b\"},\"access\":"
	"\"deny\"},{\"path\":{\"type\":\"glob_pattern\",\"pattern\":\"/x/"
	"**\"},\"access\":\"deny\"},"
	"{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"unknown\",\"path\":\":f\"}},"
	"\"access\":\"read\"}],\"glob_scan_max_depth\":3},\"network\":\"enabled\"}",
	/* the rollout shape, with both lists */
	"{\"network\":{\"enabled\":true},\"file_system\":{\"read\":[\"/r\"],\"write\":[\"/w\"]}}",
	/* a legacy policy */
	"{\"type\":\"workspace-write\",\"writable_roots\":[\"/w\",\"/v\"],\"network_access\":true}",
	/* an error, which must be worded whatever else fails */
	"{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":[{\"path\":"
	"{\"type\":\"path\",\"path\":\"rel\"},\"access\":\"read\"}]},\"network\":\"restricted\"}",
};

static int call(int which, const struct fixture *f, struct sbx_diag *d)
{
	const char *t = texts[which % 4];
	struct sbx_profile p = {0}, q = {0};
	struct sbx_additional a = {0};
	struct sbx_legacy l = {0};
	struct sbx_plan plan;
	struct sbx_roots roots;
	json_t *v;
	char *buf = NULL, **m = NULL;
	size_t len, n = 0;
	int r = 0;

	sbx_diag_clear(d);
	switch (which) {
	case 0:
	case 1:
	case 2:
	case 3:
		r = sbx_profile_load_buf(t, strlen(t), "t.json", &p, NULL, &l, d);
		break;
	case 4:
		r = sbx_additional_load_buf(texts[1], strlen(texts[1]), "a.json", &a, d);
		if (!r)
			r = sbx_additional_normalize(&a, d);
		break;
	case 5:
		r = sbx_legacy_load_buf(texts[2], strlen(texts[2]), "l.json", &l, d);
		break;
	case 6:
		v = json_loads(
			"[{\"path\":{\"type\":\"path\",\"path\":\"/a\"},\"access\":\"read\"},"
			"{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},"
			"\"access\":\"read\"}]",
			0, NULL);
		r = v ? sbx_entries_load_jv(v, "v", "/entries", &p.fs, d) : 1;
		json_decref(v);
		break;
	case 7:
		v = json_loads("{\"read\":[\"/a\"],\"write\":[\"/b\"]}", 0, NULL);
		r = v ? sbx_fs_permissions_load_jv(v, "v", "/file_system", &p.fs, d) : 1;
		json_decref(v);
		break;
	case 8:
		r = sbx_read_file(f->file, &buf, &len, d);
		break;
	case 9:
		r = sbx_profile_builtin(":workspace", &p, d);
		break;
	case 10:
		/* The set-up may fail too: 1 says so, and the run does not count. */
		if (sbx_profile_builtin(":read-only", &p, d) ||
		    sbx_fs_push_path(&p.fs, "/elsewhere", SBX_WRITE, false) ||
		    sbx_fs_push_path(&p.fs, f->dir, SBX_WRITE, false))
			r = 1;
		else
			r = sbx_profile_to_legacy(&p, &f->ctx, &l, d);
		break;
	case 11:
		if (sbx_profile_builtin(":workspace", &p, d) ||
		    sbx_fs_push_path(&p.fs, "/etc/shadow", SBX_DENY, false))
			r = 1;
		else
			r = sbx_plan_build(&p, &f->ctx, SBX_PREF_REQUIRE, true, SBX_WIN_DISABLED,
					   &plan, d);
		if (!r)
			sbx_plan_free(&plan);
		break;
	case 12:
		if (sbx_profile_builtin(":workspace", &p, d) ||
		    sbx_profile_materialize(&p, &f->ctx, &q))
			r = 1;
		else
			r = sbx_fs_roots(&q.fs, &f->ctx, &roots, d);
		if (!r)
			sbx_roots_free(&roots);
		break;
	case 13:
		r = sbx_glob_expand(f->glob, 2, NULL, &m, &n, d);
		if (!r)
			sbx_strv_free(m, n);
		break;
	case 15: {
		static const char ctx_json[] = "{\"loopbackPorts\":[3128,8080],"
					       "\"allow_local_binding\":true}";
		struct sbx_managed_ctx mc;

		r = sbx_managed_ctx_load_buf(ctx_json, strlen(ctx_json), "--managed-network", &mc,
					     d);
		break;
	}
	case 14:
	case 16:
	case 17: {
		/* 14: the workspace's policy; 16: its plan with a managed network; 17: that policy. */
		static char proxy[] = "HTTPS_PROXY=http://127.0.0.1:3128";
		static char *env[] = {proxy, NULL};
		const char *socks[] = {"/run/b.sock", "/run/a.sock"};
		struct sbx_net_opts o = {.env = env,
					 .unix_sockets = socks,
					 .n_unix_sockets = 2,
					 .allow_local_binding = true};
		struct sbx_ctx mac = f->ctx;
		struct sbx_sbpl sb = {0};

		mac.platform = SBX_PLATFORM_MACOS;
		if (sbx_profile_builtin(":workspace", &p, d) ||
		    sbx_plan_build(&p, &mac, SBX_PREF_REQUIRE, which != 14, SBX_WIN_DISABLED, &plan,
				   d)) {
			r = 1;
			break;
		}
		if (which != 14)
			r = sbx_plan_network(&plan, &o, d);
		if (!r && which != 16) {
			if (sbx_plan_attach_macos(&plan, true))
				r = 1;
			else
				r = sbx_sbpl_build(&plan, &mac, &sb, d);
		}
		sbx_sbpl_free(&sb);
		sbx_plan_free(&plan);
		break;
	}
	case 18: {
		struct sbx_domain_policy pol = {0};

		r = sbx_domain_policy_add(&pol, false, "*.example.com", d);
		if (!r)
			r = sbx_domain_policy_add(&pol, true, "evil.example.com:443", d);
		sbx_domain_policy_free(&pol);
		break;
	}
	case 20: {
		/* Git mode, on the fixture's repository. */
		struct sbx_ctx git = f->ctx;

		git.allow_git = true;
		if (sbx_profile_builtin(":workspace", &p, d) ||
		    sbx_profile_materialize(&p, &git, &q))
			r = 1;
		else
			r = sbx_fs_roots(&q.fs, &git, &roots, d);
		if (!r)
			sbx_roots_free(&roots);
		break;
	}
	case 21: {
		/*
		 * A loaded profile keeps its paths in an arena, which the roots of the plan that
		 * takes it borrow: a deny, a read inside it, a carve-out, a read under a read.
		 */
		static const char fmt[] =
			"{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
			"\"entries\":[{\"path\":{\"type\":\"special\",\"value\":{\"kind\":"
			"\"root\"}},\"access\":\"read\"},{\"path\":{\"type\":\"special\","
			"\"value\":{\"kind\":\"project_roots\"}},\"access\":\"write\"},"
			"{\"path\":{\"type\":\"path\",\"path\":\"%s/a\"},\"access\":\"deny\"},"
			"{\"path\":{\"type\":\"path\",\"path\":\"%s/a/b\"},\"access\":\"read\"},"
			"{\"path\":{\"type\":\"path\",\"path\":\"%s/c\"},\"access\":\"read\"},"
			"{\"path\":{\"type\":\"path\",\"path\":\"/etc\"},\"access\":\"read\"}]},"
			"\"network\":\"restricted\"}";

		if (asprintf(&buf, fmt, f->dir, f->dir, f->dir) < 0)
			buf = NULL;
		if (!buf || sbx_profile_load_buf(buf, strlen(buf), "t.json", &p, NULL, NULL, d))
			r = 1;
		else
			r = sbx_plan_build_take(&p, &f->ctx, SBX_PREF_REQUIRE, false,
						SBX_WIN_DISABLED, &plan, d);
		if (!r)
			sbx_plan_free(&plan);
		break;
	}
	case 22:
		/* The quick grants' path: normalized (a lexical path made one), then deduplicated. */
		a.has_fs = true;
		a.network = -1;
		if (sbx_fs_push_path(&a.fs, "/srv/./a/../b", SBX_WRITE, false) ||
		    sbx_fs_push_path(&a.fs, "/srv/b", SBX_WRITE, false) ||
		    sbx_fs_push_path(&a.fs, "/etc", SBX_READ, false))
			r = 1;
		else
			r = sbx_additional_normalize(&a, d);
		break;
	case 19: {
		/* A deny narrowing an unrestricted file system: the path that builds one. */
		struct sbx_additional x = {.network = -1, .has_fs = true};

		p.type = SBX_MANAGED;
		p.fs.kind = SBX_FS_UNRESTRICTED;
		if (sbx_fs_push_path(&x.fs, "/etc/shadow", SBX_DENY, false) ||
		    sbx_fs_push_path(&x.fs, "/etc/shadow/x", SBX_READ, false) ||
		    sbx_fs_push_path(&x.fs, "/srv", SBX_WRITE, false))
			r = 1;
		else
			r = sbx_profile_add(&p, &x, &q, d);
		sbx_additional_free(&x);
		break;
	}
	}
	free(buf);
	sbx_profile_free(&p);
	sbx_profile_free(&q);
	sbx_additional_free(&a);
	sbx_legacy_free(&l);
	return r;
}

/* What each call returns without injection. */
static const int outcomes[] = {
	0, 0, 0, SBX_E_INVALID, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};

static const char *const names[] = {
	"sbx_profile_load_buf (canonical)",
	"sbx_profile_load_buf (rollout)",
	"sbx_profile_load_buf (legacy)",
	"sbx_profile_load_buf (error)",
	"sbx_additional_load_buf",
	"sbx_legacy_load_buf",
	"sbx_entries_load_jv",
	"sbx_fs_permissions_load_jv",
	"sbx_read_file",
	"sbx_profile_builtin",
	"sbx_profile_to_legacy",
	"sbx_plan_build",
	"sbx_fs_roots",
	"sbx_glob_expand",
	"sbx_sbpl_build",
	"sbx_managed_ctx_load_buf",
	"sbx_plan_network",
	"sbx_sbpl_build (managed network)",
	"sbx_domain_policy_add",
	"sbx_profile_add",
	"sbx_fs_roots (git mode)",
	"sbx_plan_build_take (roots borrowing the loaded paths)",
	"sbx_additional_normalize",
};

/*
 * Each entry point once without injection (the expected outcome), then with the n-th allocation
 * failing, for every n until a run completes without reaching it: every failure returns a code
 * and a message. A run that survives the failed allocation (a fallback) must end as without it.
 */
TEST(diag_every_failure_has_a_message)
{
#ifdef SBX_FAILALLOC
	struct fixture f;
	struct sbx_diag d;

	fixture_make(&f);
	fa_jansson(true);
	for (int which = 0; which < (int)(sizeof(names) / sizeof(names[0])); which++) {
		int want = call(which, &f, &d), r;
		long n;

		CHECK_INT(want, outcomes[which]);
		for (n = 0; n < 100000; n++) {
			bool fired;

			fa_arm(n);
			r = call(which, &f, &d);
			fired = fa_fired();
			fa_arm(-1);
			if (!fired) {
				CHECK_INT(r, want);
				break;
			}
			if (r == want || r == 1)
				continue;
			if (r >= 0 || !d.msg[0])
				t_fail(__FILE__, __LINE__,
				       "%s: allocation %ld failed: returned %d with message \"%s\"",
				       names[which], n, r, d.msg);
		}
		/* Every entry point allocates: injection that never fires tests nothing. */
		CHECK(n > 0);
	}
	fa_jansson(false);
	free(f.file);
	free(f.glob);
	free(f.dir);
#endif
}

/*
 * An allocation jansson fails while it reads a valid profile is out of memory, not invalid
 * JSON: jansson leaves its error text empty then and its error code unset, which was read (an
 * uninitialised byte picking the message) and worded "invalid JSON: " with no reason. Some of
 * jansson's own allocations fail as a syntax error of its words ("invalid token"); those keep
 * them.
 */
TEST(diag_jansson_out_of_memory_is_not_invalid_json)
{
#ifdef SBX_FAILALLOC
	static const char text[] = "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
				   "\"entries\":[]},\"network\":\"restricted\"}";
	long n, nomem = 0;

	fa_jansson(true);
	for (n = 0; n < 1000; n++) {
		struct sbx_profile p;
		struct sbx_diag d;
		bool fired;
		int r;

		fa_arm(n);
		r = sbx_profile_load_tree(text, sizeof(text) - 1, "t.json", &p, NULL, NULL, &d);
		fired = fa_fired();
		fa_arm(-1);
		if (!fired) {
			CHECK_INT(r, 0);
			sbx_profile_free(&p);
			break;
		}
		if (r == -ENOMEM) {
			CHECK_STR(d.msg, "out of memory while reading the JSON");
			CHECK_STR(d.file, "t.json");
			nomem++;
			continue;
		}
		CHECK_INT(r, SBX_E_PARSE);
		if (strcmp(d.msg, "invalid JSON: ") == 0)
			t_fail(__FILE__, __LINE__, "allocation %ld failed: \"%s\" and no reason", n,
			       d.msg);
	}
	fa_jansson(false);
	CHECK(n > 0);
	CHECK(nomem > 0);
#endif
}

/*
 * ---- the functions without a diagnostic: every failure is -ENOMEM -------------------------
 * (Not sbx_access_rule: the precedence predicates under it, sbx_fs_resolve_access and
 * sbx_fs_can_write, have no failure to report and pass over an entry they cannot resolve.)
 */

static int call_plain(int which)
{
	static const char *const vars[] = {"PATH=/bin", "GH_TOKEN=t", "A=1", NULL};
	static const char *const keep[] = {"*"}, *const set[] = {"B=2", "A=3"};
	static const char *const why[] = {"/a does not exist", "x", "/b does not exist", NULL};
	static const struct sbx_span self[] = {{0, 2}, {0, 0}, {0, 2}, {0, 0}};
	struct sbx_env_policy pol = {.keep = keep,
				     .n_keep = 1,
				     .deny_secrets = true,
				     .offline = true,
				     .set = set,
				     .n_set = 2};
	struct sbx_strv env = {0}, sorted = {0};
	struct sbx_notes notes = {0};
	int r = 0;

	switch (which) {
	case 0:
		r = sbx_env_build(vars, &pol, false, &env);
		if (!r)
			r = sbx_env_names(&env, keep, 1, &sorted);
		break;
	case 1:
		r = sbx_notes_group(why, self, 4, &notes);
		break;
	}
	sbx_notes_free(&notes);
	sbx_strv_clear(&env);
	sbx_strv_clear(&sorted);
	return r;
}

TEST(diag_plain_functions_fail_with_enomem)
{
#ifdef SBX_FAILALLOC
	for (int which = 0; which < 2; which++) {
		long n;

		CHECK_INT(call_plain(which), 0);
		for (n = 0; n < 10000; n++) {
			bool fired;
			int r;

			fa_arm(n);
			r = call_plain(which);
			fired = fa_fired();
			fa_arm(-1);
			if (!fired) {
				CHECK_INT(r, 0);
				break;
			}
			if (r != -ENOMEM && r != 1)
				t_fail(__FILE__, __LINE__, "call %d: allocation %ld: returned %d",
				       which, n, r);
		}
		CHECK(n > 0);
	}
#endif
}

/* What sbx_put_sanitized writes for s, in buf. */
static void shown(const char *s, char *buf, size_t size)
{
	FILE *f = fmemopen(buf, size, "w");

	CHECK(f != NULL);
	sbx_put_sanitized(s, f);
	fclose(f);
	CHECK_INT(strlen(buf), sbx_sanitized_len(s));
}

/*
 * A name holding the text "\x1b" and one holding ESC are shown apart: the backslash that an
 * escape could be taken for is itself escaped, every other one (a Windows path's) stays.
 */
TEST(diag_escapes_read_back_one_way)
{
	char a[128] = "", b[128] = "";
	struct sbx_diag d;
	FILE *f;

	shown("/w/\x1b", a, sizeof(a));
	shown("/w/\\x1b", b, sizeof(b));
	CHECK_STR(a, "/w/\\x1b");
	CHECK_STR(b, "/w/\\x5cx1b");
	shown("/w/\\\x1b", a, sizeof(a));
	CHECK_STR(a, "/w/\\\\x1b");
	shown("C:\\Users\\a\\", a, sizeof(a));
	CHECK_STR(a, "C:\\Users\\a\\");
	shown("\\x\\xx", a, sizeof(a));
	CHECK_STR(a, "\\x5cx\\x5cxx");
	CHECK_INT(sbx_sanitized_char("\\x"), 0);
	CHECK_INT(sbx_sanitized_char("\\y"), 1);

	/* A diagnostic's file, message and hint alike. */
	sbx_diag_clear(&d);
	sbx_diag_set_at(&d, -EINVAL, "/w/\\x0a.json", 1, 2, NULL, "at '/w/\\x1b'");
	sbx_diag_hint(&d, -EINVAL, "rename '\n'");
	f = fmemopen(a, sizeof(a), "w");
	CHECK(f != NULL);
	sbx_diag_print(&d, f);
	fclose(f);
	CHECK_STR(a, "sbxrun: /w/\\x5cx0a.json:1:2: at '/w/\\x5cx1b'; hint: rename '\\x0a'\n");

	/* A profile path that is not UTF-8 text, named in the refusal. */
	{
		struct sbx_profile p = {.type = SBX_MANAGED};

		CHECK_INT(sbx_fs_push_path(&p.fs, "/w/\\x41\xff", SBX_READ, false), 0);
		sbx_diag_clear(&d);
		CHECK(sbx_profile_check_text(&p, &d) != 0);
		f = fmemopen(a, sizeof(a), "w");
		CHECK(f != NULL);
		sbx_diag_print(&d, f);
		fclose(f);
		CHECK(strstr(a, " /w/\\x5cx41\\xff is not UTF-8") != NULL);
		sbx_profile_free(&p);
	}
}
