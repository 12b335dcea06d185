/* SPDX-License-Identifier: MIT */
/* test_context.c - <environment_context> rendering. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

static const char *const ec_ids[] = { "ec-01", "ec-02", "ec-04", "ec-05", "ec-07", "ec-08" };

TEST(vectors_environment_context_covered)
{
	vec_check_area("environment_context", ec_ids, sizeof(ec_ids) / sizeof(ec_ids[0]));
}

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

static void load_profile(const json_t *pp, struct sbx_profile *p)
{
	char *text = vec_text(pp);
	struct sbx_diag d;
	enum sbx_input_form form;

	CHECK_INT(sbx_profile_load_buf(text, strlen(text), "vector", p, &form, NULL, &d), 0);
	free(text);
}

TEST(vec_ec_01)
{
	json_t *v = vec_get("ec-01"), *in;
	struct sbx_context_in c = { 0 };
	char *got;

	if (!v)
		return;
	in = json_object_get(v, "input");
	CHECK(json_is_null(json_object_get(in, "filesystem")));
	c.cwd = str(in, "cwd");
	c.shell = str(in, "shell");
	c.current_date = str(in, "current_date");
	c.timezone = str(in, "timezone");
	got = sbx_context_render(&c);
	CHECK_STR(got, str(v, "expected"));
	free(got);
}

TEST(vec_ec_02)
{
	json_t *v = vec_get("ec-02"), *in;
	struct sbx_context_in c = { 0 };
	struct sbx_profile p;
	const char *root;
	char *cwd, *got, *mark;

	if (!v)
		return;
	in = json_object_get(v, "input");
	/* The input marks the cwd "(foreign)": a Windows cwd rendered on another host. */
	cwd = strdup(str(in, "cwd"));
	mark = strstr(cwd, " (foreign)");
	CHECK(mark != NULL);
	if (mark)
		*mark = '\0';
	load_profile(json_object_get(in, "permission_profile"), &p);
	root = json_string_value(json_array_get(json_object_get(in, "workspace_roots"), 0));
	c.cwd = cwd;
	c.shell = str(in, "shell");
	c.profile = &p;
	c.workspace_roots = &root;
	c.n_workspace_roots = 1;
	got = sbx_context_render(&c);
	CHECK_STR(got, str(v, "expected"));
	free(got);
	free(cwd);
	sbx_profile_free(&p);
}

static void check_filesystem(const char *id, const struct sbx_profile *p, const char *const *roots,
			     size_t n, const char *want)
{
	char *got = sbx_context_filesystem(p, roots, n);

	if (!got || strcmp(got, want) != 0)
		t_fail(__FILE__, __LINE__, "%s:\n    got:  %s\n    want: %s", id,
		       got ? got : "(null)", want);
	free(got);
}

TEST(vec_ec_04)
{
	json_t *v = vec_get("ec-04"), *in, *r;
	struct sbx_profile p;
	const char *roots[4];
	size_t i, n = 0;

	if (!v)
		return;
	in = json_object_get(v, "input");
	load_profile(json_object_get(in, "permission_profile"), &p);
	json_array_foreach(json_object_get(in, "workspace_roots"), i, r)
		if (n < 4)
			roots[n++] = json_string_value(r);
	check_filesystem("ec-04", &p, roots, n, str(v, "expected"));
	sbx_profile_free(&p);
}

TEST(vec_ec_05)
{
	json_t *v = vec_get("ec-05"), *in;
	struct sbx_context_in c = { 0 };
	char *got;

	if (!v)
		return;
	in = json_object_get(v, "input");
	c.current_date = str(in, "current_date");
	c.timezone = str(in, "timezone");
	got = sbx_context_render(&c);
	CHECK_STR(got, str(v, "expected"));
	free(got);
}

/* Removes the one entry for `name` below the workspace root from an expected string. */
static char *without_entry(const char *s, const char *cwd, const char *name)
{
	char *needle = NULL, *out = strdup(s), *at;

	if (!out || asprintf(&needle, "<entry access=\"read\"><path>%s/%s</path></entry>", cwd,
			     name) < 0)
		return out;
	at = strstr(out, needle);
	if (at)
		memmove(at, at + strlen(needle), strlen(at + strlen(needle)) + 1);
	else
		t_fail(__FILE__, __LINE__, "expected text has no %s entry", name);
	free(needle);
	return out;
}

TEST(vec_ec_07)
{
	json_t *v = vec_get("ec-07"), *in;
	struct sbx_profile p;
	struct sbx_diag d;
	const char *cwd;
	char *want;

	if (!v)
		return;
	in = json_object_get(v, "input");
	cwd = str(in, "cwd");
	CHECK_INT(sbx_profile_builtin(str(in, "default_permissions"), &p, &d), 0);
	/* sbxrun protects .git, .agents and .codex; the .aws entry is a 0.169 addition. */
	want = without_entry(str(v, "expected"), cwd, ".aws");
	check_filesystem("ec-07", &p, &cwd, 1, want);
	free(want);
	sbx_profile_free(&p);
}

TEST(vec_ec_08)
{
	json_t *v = vec_get("ec-08"), *in;
	struct sbx_profile p;
	struct sbx_diag d;
	const char *cwd;

	if (!v)
		return;
	in = json_object_get(v, "input");
	cwd = str(in, "cwd");
	CHECK_INT(sbx_profile_builtin(str(in, "default_permissions"), &p, &d), 0);
	check_filesystem("ec-08", &p, &cwd, 1, str(v, "expected"));
	sbx_profile_free(&p);
}

TEST(context_escaping_and_shapes)
{
	struct sbx_profile p = { .type = SBX_MANAGED };
	const char *roots[] = { "/r&d <x>" };
	char *got;

	got = sbx_context_filesystem(&p, roots, 1);
	CHECK_STR(got, "<filesystem><workspace_roots><root>/r&amp;d &lt;x&gt;</root>"
		       "</workspace_roots><permission_profile type=\"managed\"><file_system "
		       "type=\"restricted\" /></permission_profile></filesystem>");
	free(got);
	p.fs.glob_depth = 2;
	vec_push_glob(&p.fs, "/a/\"q'/*", SBX_DENY);
	sbx_fs_push_special(&p.fs, SBX_SP_UNKNOWN, "sub", SBX_READ, false);
	free(p.fs.entries[1].path);
	p.fs.entries[1].path = strdup(":future");
	sbx_fs_push_special(&p.fs, SBX_SP_PROJECT_ROOTS, "docs", SBX_READ, false);
	sbx_fs_push_special(&p.fs, SBX_SP_MINIMAL, NULL, SBX_READ, false);
	got = sbx_context_filesystem(&p, NULL, 0); /* no roots: project roots stay symbolic */
	CHECK_STR(got, "<filesystem><workspace_roots></workspace_roots><permission_profile "
		       "type=\"managed\"><file_system type=\"restricted\" glob_scan_max_depth=\"2\">"
		       "<entry access=\"deny\" escalatable=\"false\"><glob>/a/&quot;q&apos;/*</glob>"
		       "</entry><entry access=\"read\"><special>:future/sub</special></entry>"
		       "<entry access=\"read\"><special>:workspace_roots/docs</special></entry>"
		       "<entry access=\"read\"><special>:minimal</special></entry></file_system>"
		       "</permission_profile></filesystem>");
	free(got);
	sbx_profile_free(&p);
	p = (struct sbx_profile){ .type = SBX_EXTERNAL };
	p.fs.kind = SBX_FS_EXTERNAL;
	got = sbx_context_filesystem(&p, roots, 0);
	CHECK(got && strstr(got, "<permission_profile type=\"external\"><file_system "
				 "type=\"external\" /></permission_profile>"));
	free(got);
}
