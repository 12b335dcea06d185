/* SPDX-License-Identifier: MIT */
/*
 * test_sbpl_golden.c - the whole macOS pipeline, profile JSON -> plan -> Seatbelt policy, on a
 * fixture workspace: the policies against golden files (tests/golden/sbpl/NAME.sb and
 * NAME.params), what they decide against a table of cases run through the SBPL evaluator
 * (tests/golden/sbpl/cases), and vectors sb-07 and sb-11.
 *
 * The fixture, under a fresh directory @DIR@ in /tmp: the workspace @WS@ (the cwd) holding .git/,
 * src/, secret, a.env, sub/deep/b.env and conf/prod/. NAME.ctx, when present, changes it: a line
 * "ws=NAME" names the workspace directory, "tmpdir" sets TMPDIR to @DIR@. In NAME.json @WS@ is
 * the workspace and @WS_GLOB@ the workspace with its glob metacharacters escaped.
 *
 * NAME.ctx also says what the network may do beyond the profile (sbx_plan_network): "managed"
 * plans managed networking, whose proxies come from the "env=NAME=VALUE" lines; "unix-socket=PATH"
 * (@WS@ and @DIR@ substituted) allows a Unix socket, "local-binding" local binding and
 * "all-unix-sockets" every Unix socket. "managed-unchecked" plans managed networking without
 * sbx_plan_network, as a caller that never named a proxy would: the policy must fail closed.
 * "git" plans git mode (--allow-git) on a repository laid out as git lays one out: .git/ with
 * hooks/, config, objects/, a submodule (modules/sub, checked out at sub/) and a linked worktree
 * (worktrees/wt, checked out at wt/).
 * SBX_UPDATE_GOLDEN=1 rewrites the golden files.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sbpl.h"
#include "sbpl_eval.h"
#include "sbpl_reader.h"
#include "sbpl_test.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

#ifdef __linux__
/* The network of a fixture: what NAME.ctx says beyond the profile. */
struct netfix {
	bool managed, unchecked, planned;
	char *env[8], *socks[8];
	size_t n_env, n_socks;
	struct sbx_net_opts o;
};

/*
 * Loads a profile (JSON text, or a built-in name starting with ':'; a legacy SandboxPolicy is
 * projected for the cwd), plans it for macOS as `run` does, with the network of net when not
 * NULL (the attacher must find it enforceable), and builds the policy.
 */
static int pipeline(const char *input, const struct sbx_ctx *ctx, const struct netfix *net,
		    struct sbx_sbpl *out, struct sbx_diag *d)
{
	struct sbx_profile prof = {0};
	struct sbx_legacy leg = {0};
	enum sbx_input_form form = SBX_FORM_PROFILE;
	struct sbx_plan p = {0};
	const struct sbx_req *bad;
	char rule[SBX_REQ_RULE_MAX];
	int rc;

	sbx_diag_clear(d);
	if (input[0] == ':') {
		rc = sbx_profile_builtin(input, &prof, d);
	} else {
		rc = sbx_profile_load_buf(input, strlen(input), "golden", &prof, &form, &leg, d);
		if (!rc && form == SBX_FORM_LEGACY)
			rc = sbx_legacy_to_profile(&leg, ctx, &prof);
	}
	if (!rc)
		rc = sbx_plan_build(&prof, ctx, SBX_PREF_REQUIRE,
				    net && (net->managed || net->unchecked),
				    SBX_WIN_RESTRICTED_TOKEN, &p, d);
	if (!rc && net && net->planned)
		rc = sbx_plan_network(&p, &net->o, d);
	if (!rc)
		rc = sbx_plan_attach_macos(&p, true);
	if (!rc && (bad = sbx_plan_first_unenforceable(&p)))
		rc = sbx_diag_set(d, SBX_E_UNENFORCEABLE, "%s: %s", sbx_req_rule(bad, rule),
				  sbx_req_reason(bad));
	if (!rc)
		rc = sbx_sbpl_build(&p, ctx, out, d);
	sbx_plan_free(&p);
	sbx_profile_free(&prof);
	sbx_legacy_free(&leg);
	return rc;
}

static char *golden_path(const char *name, const char *ext)
{
	char *p = malloc(strlen(t_vectors_dir) + strlen(name) + strlen(ext) + 32);

	sprintf(p, "%s/../golden/sbpl/%s%s", t_vectors_dir, name, ext);
	return p;
}

/*
 * The golden policies name /tmp's protected names as missing (/tmp is a writable root). /tmp is
 * shared with whatever else runs on the machine, which may hold a .git or .codex there for a
 * while; the fixture's view reports those three names as absent, and the rest as the host does.
 */
static bool shared_tmp_name(const char *path)
{
	return !strcmp(path, "/tmp/.git") || !strcmp(path, "/tmp/.codex") ||
	       !strcmp(path, "/tmp/.agents");
}

static int hidden_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	(void)self;
	if (shared_tmp_name(path)) {
		memset(out, 0, sizeof(*out));
		return 0;
	}
	return sbx_fsview_host.lookup(sbx_fsview_host.self, path, out);
}

static int hidden_read_file(void *self, const char *path, char *buf, size_t size, size_t *len)
{
	(void)self;
	if (shared_tmp_name(path))
		return -ENOENT;
	return sbx_fsview_host.read_file(sbx_fsview_host.self, path, buf, size, len);
}

static int hidden_list(void *self, const char *dir, sbx_fs_list_fn each, void *arg)
{
	(void)self;
	return sbx_fsview_host.list(sbx_fsview_host.self, dir, each, arg);
}

static const struct sbx_fsview shared_tmp_hidden = {
	.lookup = hidden_lookup, .read_file = hidden_read_file, .list = hidden_list};

struct fixture {
	char *dir, *ws, *tmpdir;
	struct sbx_ctx ctx;
	struct netfix net;
};

static void mkdir_in(const char *base, const char *rel)
{
	char *p = st_join(base, rel);

	if (mkdir(p, 0700) != 0)
		t_fail(__FILE__, __LINE__, "cannot create %s", p);
	free(p);
}

static void touch_in(const char *base, const char *rel)
{
	char *p = st_join(base, rel);

	st_touch(p);
	free(p);
}

static void write_in(const char *base, const char *rel, const char *text)
{
	char *p = st_join(base, rel);
	FILE *f = fopen(p, "w");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		t_fail(__FILE__, __LINE__, "cannot write %s", p);
	free(p);
}

/* The repository of a "git" fixture (see the top of this file), in the workspace ws. */
static void git_layout(const char *ws)
{
	static const char *const dirs[] = {
		".git/hooks",
		".git/objects",
		".git/refs",
		".git/modules",
		".git/modules/sub",
		".git/modules/sub/hooks",
		".git/modules/sub/objects",
		".git/modules/sub/refs",
		".git/worktrees",
		".git/worktrees/wt",
		"wt",
	};
	char *text = NULL;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++)
		mkdir_in(ws, dirs[i]);
	write_in(ws, ".git/config", "[core]\n\tbare = false\n");
	write_in(ws, ".git/HEAD", "ref: refs/heads/main\n");
	write_in(ws, ".git/modules/sub/config", "[core]\n\tworktree = ../../../sub\n");
	write_in(ws, "sub/.git", "gitdir: ../.git/modules/sub\n");
	write_in(ws, ".git/modules/sub/HEAD", "ref: refs/heads/main\n");
	write_in(ws, ".git/worktrees/wt/HEAD", "ref: refs/heads/wt\n");
	write_in(ws, ".git/worktrees/wt/commondir", "../..\n");
	if (asprintf(&text, "%s/wt/.git\n", ws) > 0)
		write_in(ws, ".git/worktrees/wt/gitdir", text);
	free(text);
	if (asprintf(&text, "gitdir: %s/.git/worktrees/wt\n", ws) > 0)
		write_in(ws, "wt/.git", text);
	free(text);
}

/* A network line of NAME.ctx; false when line is none. */
static bool net_line(struct netfix *n, const char *line, size_t len)
{
	char **list = NULL;
	size_t *count = NULL, skip = 0;

	if (len == 7 && !strncmp(line, "managed", 7))
		n->managed = n->planned = true;
	else if (len == 17 && !strncmp(line, "managed-unchecked", 17))
		n->unchecked = true;
	else if (len == 13 && !strncmp(line, "local-binding", 13))
		n->o.allow_local_binding = n->planned = true;
	else if (len == 16 && !strncmp(line, "all-unix-sockets", 16))
		n->o.allow_all_unix_sockets = n->planned = true;
	else if (!strncmp(line, "env=", 4))
		list = n->env, count = &n->n_env, skip = 4;
	else if (!strncmp(line, "unix-socket=", 12))
		list = n->socks, count = &n->n_socks, skip = 12;
	else
		return false;
	if (list && *count < 7) {
		list[(*count)++] = strndup(line + skip, len - skip);
		n->planned = true;
	}
	return true;
}

/* The options of the network lines, with the fixture's paths in place of @WS@ and @DIR@. */
static void net_finish(struct fixture *fx)
{
	struct netfix *n = &fx->net;

	for (size_t i = 0; i < n->n_socks; i++)
		n->socks[i] = st_replace_all(st_replace_all(n->socks[i], "@WS@", fx->ws), "@DIR@",
					     fx->dir);
	n->o.env = n->env;
	n->o.unix_sockets = (const char *const *)n->socks;
	n->o.n_unix_sockets = n->n_socks;
}

/* Builds the fixture for golden name (its NAME.ctx options applied). */
static bool fixture_make(struct fixture *fx, const char *name)
{
	char *opts_path = golden_path(name, ".ctx"), *opts = st_read_text(opts_path);
	char ws_name[256] = "ws";
	const char *line;

	free(opts_path);
	memset(fx, 0, sizeof(*fx));
	fx->dir = st_tempdir();
	if (!fx->dir) {
		free(opts);
		t_fail(__FILE__, __LINE__, "cannot create a temporary directory");
		return false;
	}
	for (line = opts; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : "") {
		size_t len = strcspn(line, "\n");

		if (strncmp(line, "ws=", 3) == 0 && len - 3 < sizeof(ws_name))
			snprintf(ws_name, sizeof(ws_name), "%.*s", (int)(len - 3), line + 3);
		else if (strncmp(line, "tmpdir", len) == 0 && len == 6)
			fx->tmpdir = strdup(fx->dir);
		else if (strncmp(line, "git", len) == 0 && len == 3)
			fx->ctx.allow_git = true;
		else if (len && net_line(&fx->net, line, len))
			;
		else if (len)
			t_fail(__FILE__, __LINE__, "%s.ctx: unknown line %.*s", name, (int)len,
			       line);
	}
	free(opts);
	fx->ws = st_join(fx->dir, ws_name);
	if (mkdir(fx->ws, 0700) != 0) {
		t_fail(__FILE__, __LINE__, "cannot create %s", fx->ws);
		return false;
	}
	mkdir_in(fx->ws, ".git");
	mkdir_in(fx->ws, "src");
	mkdir_in(fx->ws, "sub");
	mkdir_in(fx->ws, "sub/deep");
	mkdir_in(fx->ws, "conf");
	mkdir_in(fx->ws, "conf/prod");
	touch_in(fx->ws, "secret");
	touch_in(fx->ws, "a.env");
	touch_in(fx->ws, "sub/deep/b.env");
	if (fx->ctx.allow_git)
		git_layout(fx->ws);
	fx->ctx.platform = SBX_PLATFORM_MACOS;
	fx->ctx.cwd = fx->ws;
	fx->ctx.tmpdir = fx->tmpdir;
	fx->ctx.fs = &shared_tmp_hidden;
	net_finish(fx);
	return true;
}

static void fixture_free(struct fixture *fx)
{
	for (size_t i = 0; i < fx->net.n_env; i++)
		free(fx->net.env[i]);
	for (size_t i = 0; i < fx->net.n_socks; i++)
		free(fx->net.socks[i]);
	st_rmdir(fx->dir);
	free(fx->dir);
	free(fx->ws);
	free(fx->tmpdir);
	memset(fx, 0, sizeof(*fx));
}

/* s as the inside of a JSON string. */
static char *json_inner(const char *s)
{
	json_t *j = json_string(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL, *inner = NULL;

	json_decref(j);
	if (text) {
		inner = strndup(text + 1, strlen(text) - 2);
		free(text);
	}
	return inner;
}

/* Builds the policy of golden name for fx; false (and a test failure) when it cannot. */
static bool golden_build(const char *name, const struct fixture *fx, struct sbx_sbpl *s)
{
	char *path = golden_path(name, ".json"), *input = st_read_text(path), *ws_j, *glob_j;
	char *esc = NULL;
	struct sbx_diag d;
	char err[512];
	bool ok = true;

	if (!input) {
		t_fail(__FILE__, __LINE__, "cannot read %s", path);
		free(path);
		return false;
	}
	free(path);
	/* The workspace as a glob that matches it literally, as a profile author writes it. */
	glob_j = sbx_glob_escape(fx->ws, &esc) == 0 ? json_inner(esc) : NULL;
	free(esc);
	ws_j = json_inner(fx->ws);
	input = st_replace_all(st_replace_all(input, "@WS_GLOB@", glob_j), "@WS@", ws_j);
	free(ws_j);
	free(glob_j);
	if (input[0] == ':')
		input[strcspn(input, "\n")] = '\0';
	if (pipeline(input, &fx->ctx, &fx->net, s, &d) != 0) {
		t_fail(__FILE__, __LINE__, "%s: %s", name, d.msg);
		ok = false;
	} else if (sbpl_check(s->policy, s->params, s->n_params, err, sizeof(err)) != 0) {
		t_fail(__FILE__, __LINE__, "%s: policy rejected by the reader: %s", name, err);
		ok = false;
	}
	free(input);
	return ok;
}

/* text with the fixture's paths replaced by @WS@ and @DIR@ (text is freed). */
static char *mask(char *text, const struct fixture *fx)
{
	return st_replace_all(st_replace_all(text, fx->ws, "@WS@"), fx->dir, "@DIR@");
}

static void compare_or_update(const char *name, const char *ext, const char *got)
{
	char *path = golden_path(name, ext), *want;
	FILE *f;

	if (getenv("SBX_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		if (f) {
			fputs(got, f);
			fclose(f);
		}
	} else {
		want = st_read_text(path);
		if (!want || strcmp(want, got) != 0)
			t_fail(__FILE__, __LINE__, "%s differs from the generated text:\n%s", path,
			       got);
		free(want);
	}
	free(path);
}

static void golden(const char *name)
{
	struct fixture fx;
	struct sbx_sbpl s = {0};
	struct sbx_buf pb = {0};

	if (!fixture_make(&fx, name))
		goto out;
	if (!golden_build(name, &fx, &s))
		goto out;
	for (size_t i = 0; i < s.n_params; i++) {
		sbx_buf_add(&pb, s.params[i]);
		sbx_buf_addc(&pb, '\n');
	}
	{
		char *params = mask(sbx_buf_steal(&pb), &fx), *text = mask(strdup(s.policy), &fx);

		compare_or_update(name, ".sb", text);
		compare_or_update(name, ".params", params);
		free(text);
		free(params);
	}
out:
	sbx_sbpl_free(&s);
	fixture_free(&fx);
}

TEST(sbpl_golden_read_only)
{
	golden("read-only");
}

TEST(sbpl_golden_workspace)
{
	golden("workspace");
}

TEST(sbpl_golden_workspace_deny)
{
	golden("workspace-deny");
}

TEST(sbpl_golden_full_access_carve_outs)
{
	golden("full-access-carve-outs");
}

TEST(sbpl_golden_minimal)
{
	golden("minimal");
}

TEST(sbpl_golden_network_enabled)
{
	golden("network-enabled");
}

TEST(sbpl_golden_legacy_workspace_write)
{
	golden("legacy-workspace-write");
}

TEST(sbpl_golden_workspace_in_tmpdir)
{
	golden("workspace-in-tmpdir");
}

TEST(sbpl_golden_minimal_deny)
{
	golden("minimal-deny");
}

TEST(sbpl_golden_deny_reopen)
{
	golden("deny-reopen");
}

TEST(sbpl_golden_deny_glob_rename)
{
	golden("deny-glob-rename");
}

TEST(sbpl_golden_deny_glob_classes)
{
	golden("deny-glob-classes");
}

TEST(sbpl_golden_hostile_root)
{
	golden("hostile-root");
}

/* The network beyond the profile: managed networking, Unix sockets, local binding. */
TEST(sbpl_golden_managed_proxy)
{
	golden("managed-proxy");
}

TEST(sbpl_golden_managed_local_binding)
{
	golden("managed-local-binding");
}

TEST(sbpl_golden_managed_no_proxy)
{
	golden("managed-no-proxy");
}

TEST(sbpl_golden_unix_sockets)
{
	golden("unix-sockets");
}

TEST(sbpl_golden_unix_sockets_enabled)
{
	golden("unix-sockets-enabled");
}

TEST(sbpl_golden_unix_sockets_all)
{
	golden("unix-sockets-all");
}

TEST(sbpl_golden_local_binding)
{
	golden("local-binding");
}

/* Git mode: what runs code stays git's own, the missing names by their regexes. */
TEST(sbpl_golden_workspace_git)
{
	golden("workspace-git");
}

/* ---- the policies' decisions, through the evaluator ----------------------------------------- */

static const struct {
	const char *name, *vnode;
} vnode_names[] = {
	{"file", "REGULAR-FILE"},
	{"dir", "DIRECTORY"},
	{"tty", "CHARACTER-DEVICE"},
	{"-", NULL},
};

/* One line of the cases table: GOLDEN OPERATION PATH TYPE EXPECT. Returns 1 ok, 0 failed. */
static int run_case(const char *file, int lineno, const struct sbpl_policy *pol,
		    const struct fixture *fx, char *op, const char *path_in, const char *type,
		    const char *expect)
{
	struct sbpl_query q = {.op = op};
	char *path = NULL, *colon = strchr(op, ':'), err[512];
	int got, want = strcmp(expect, "allow") == 0, line;
	size_t i;

	if (!want && strcmp(expect, "deny") != 0) {
		t_fail(file, lineno, "expected allow or deny, not %s", expect);
		return 0;
	}
	if (colon) {
		*colon = '\0';
		q.ioctl = sbpl_ioctl_request(colon + 1);
		if (!q.ioctl) {
			t_fail(file, lineno, "unknown ioctl %s", colon + 1);
			return 0;
		}
	}
	for (i = 0; i < sizeof(vnode_names) / sizeof(vnode_names[0]); i++)
		if (strcmp(vnode_names[i].name, type) == 0)
			break;
	if (i == sizeof(vnode_names) / sizeof(vnode_names[0])) {
		t_fail(file, lineno, "unknown type %s", type);
		return 0;
	}
	q.vnode = vnode_names[i].vnode;
	if (strcmp(path_in, "-") != 0) {
		path = st_replace_all(st_replace_all(strdup(path_in), "@WS@", fx->ws), "@DIR@",
				      fx->dir);
		q.path = path;
	}
	/* Network operations: the PATH column is an address, or DOMAIN[/PROTOCOL] of a socket. */
	if (q.path && strcmp(op, "network-outbound") == 0) {
		q.remote = q.path;
		q.path = NULL;
	} else if (q.path && (!strcmp(op, "network-bind") || !strcmp(op, "network-inbound"))) {
		q.local = q.path;
		q.path = NULL;
	} else if (q.path && strcmp(op, "system-socket") == 0) {
		char *slash = strchr(path, '/');

		if (slash) {
			*slash = '\0';
			q.socket_protocol = atoi(slash + 1);
		}
		q.socket_domain = q.path;
		q.path = NULL;
	}
	got = sbpl_allows(pol, &q, &line, err, sizeof(err));
	if (got < 0)
		t_fail(file, lineno, "%s %s: %s", op, path_in, err);
	else if (got != want)
		t_fail(file, lineno, "%s %s: %s by the rule on policy line %d, expected %s", op,
		       path_in, got ? "allowed" : "denied", line, expect);
	free(path);
	return got == want;
}

/*
 * tests/golden/sbpl/cases: for each line, the golden profile is built for its own fixture and
 * the operation is asked of the policy. Consecutive lines of one golden share a build.
 */
TEST(sbpl_eval_cases)
{
	char *path = golden_path("cases", ""), *text = st_read_text(path), *save, *line;
	char cur[128] = "";
	struct fixture fx = {0};
	struct sbx_sbpl s = {0};
	struct sbpl_policy *pol = NULL;
	int lineno = 0, n_cases = 0;

	if (!text) {
		t_fail(__FILE__, __LINE__, "cannot read %s", path);
		free(path);
		return;
	}
	/* Line by line, empty ones included, so that a failure names the right line. */
	for (save = text; (line = strsep(&save, "\n"));) {
		char name[128], op[64], p[1024], type[16], expect[16], err[256];

		lineno++;
		if (line[0] == '#' || line[strspn(line, " \t")] == '\0')
			continue;
		if (sscanf(line, "%127s %63s %1023s %15s %15s", name, op, p, type, expect) != 5) {
			t_fail(path, lineno, "malformed case: %s", line);
			continue;
		}
		if (strcmp(name, cur) != 0) {
			sbpl_policy_free(pol);
			pol = NULL;
			sbx_sbpl_free(&s);
			fixture_free(&fx);
			snprintf(cur, sizeof(cur), "%s", name);
			if (!fixture_make(&fx, name) || !golden_build(name, &fx, &s))
				continue;
			pol = sbpl_policy_load(s.policy, s.params, s.n_params, err, sizeof(err));
			if (!pol)
				t_fail(path, lineno, "%s: %s", name, err);
		}
		if (pol)
			n_cases += run_case(path, lineno, pol, &fx, op, p, type, expect);
	}
	sbpl_policy_free(pol);
	sbx_sbpl_free(&s);
	fixture_free(&fx);
	CHECK(n_cases > 0);
	free(text);
	free(path);
}

/* Vector sb-07 through the loader and the roots computation, with cwd "/". */
TEST(sbpl_sb07_pipeline)
{
	json_t *v = vec_get("sb-07"), *in, *exp, *item;
	struct sbx_ctx ctx = {.cwd = "/", .platform = SBX_PLATFORM_MACOS};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *profile, *tmp = realpath("/tmp", NULL), *canon = st_join(tmp, "codex-unreadable");
	json_t *pj;
	size_t i;
	char want[256], err[512];

	if (!v)
		goto out;
	in = json_object_get(v, "input");
	/* The vector gives the runtime policy ("kind"); a profile spells it with "type". */
	pj = json_pack("{s:s, s:{s:s, s:O}, s:O}", "type", "managed", "file_system", "type",
		       "restricted", "entries",
		       json_object_get(json_object_get(in, "file_system_policy"), "entries"),
		       "network", json_object_get(in, "network"));
	profile = json_dumps(pj, 0);
	json_decref(pj);
	CHECK_INT(pipeline(profile, &ctx, NULL, &s, &d), 0);
	free(profile);
	if (!s.policy)
		goto out;
	CHECK_INT(sbpl_check(s.policy, s.params, s.n_params, err, sizeof(err)), 0);
	exp = json_object_get(v, "expected");
	json_array_foreach(json_object_get(exp, "policy_contains"), i, item)
		CHECK(st_has(s.policy, json_string_value(item)));
	json_array_foreach(json_object_get(exp, "write_definitions"), i, item)
	{
		const char *def = json_string_value(item);

		if (strstr(def, "<canonical")) {
			snprintf(want, sizeof(want), "%.*s%s", (int)(strchr(def, '<') - def), def,
				 canon);
			def = want;
		}
		CHECK(sbpl_param(s.params, s.n_params, "") == NULL);
		CHECK_STR(sbpl_param(s.params, s.n_params, strtok(strcpy(err, def + 2), "=")),
			  strchr(def, '=') + 1);
	}
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0_EXCLUDED_0"), canon);
out:
	sbx_sbpl_free(&s);
	free(tmp);
	free(canon);
}

/*
 * Vector sb-11: a legacy workspace-write policy with two more writable roots, one holding .git
 * and .codex, one empty. The cwd's root comes first, its missing .codex carved out first.
 */
TEST(sbpl_sb11_pipeline)
{
	char *dir = st_tempdir(), *cwd = st_join(dir, "a-cwd"), *vuln = st_join(dir, "b-vuln");
	char *empty = st_join(dir, "c-empty"), *legacy, err[512], want[1024];
	struct sbx_ctx ctx = {.platform = SBX_PLATFORM_MACOS};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	struct sbx_buf b = {0};
	json_t *v = vec_get("sb-11"), *item;
	size_t i;

	mkdir_in(dir, "a-cwd");
	mkdir_in(dir, "b-vuln");
	mkdir_in(dir, "c-empty");
	mkdir_in(cwd, ".git");
	mkdir_in(cwd, ".agents");
	mkdir_in(vuln, ".git");
	mkdir_in(vuln, ".codex");
	ctx.cwd = cwd;
	sbx_buf_addf(&b,
		     "{\"type\":\"workspace-write\",\"writable_roots\":[\"%s\",\"%s\"],"
		     "\"network_access\":false,\"exclude_tmpdir_env_var\":true,"
		     "\"exclude_slash_tmp\":true}",
		     vuln, empty);
	legacy = sbx_buf_steal(&b);
	CHECK_INT(pipeline(legacy, &ctx, NULL, &s, &d), 0);
	free(legacy);
	if (!s.policy || !v)
		goto out;
	CHECK_INT(sbpl_check(s.policy, s.params, s.n_params, err, sizeof(err)), 0);
	json_array_foreach(json_object_get(json_object_get(v, "expected"), "policy_contains"), i,
			   item) CHECK(st_has(s.policy, json_string_value(item)));
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0"), cwd);
	snprintf(want, sizeof(want), "%s/.codex", cwd);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_0"), want);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_1"), vuln);
	snprintf(want, sizeof(want), "%s/.git", vuln);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_1_EXCLUDED_0"), want);
	snprintf(want, sizeof(want), "%s/.codex", vuln);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_1_EXCLUDED_1"), want);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_2"), empty);
out:
	sbx_sbpl_free(&s);
	st_rmdir(dir);
	free(cwd);
	free(vuln);
	free(empty);
	free(dir);
}
#endif
