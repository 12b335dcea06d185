/* SPDX-License-Identifier: MIT */
/*
 * The files a run read its permissions from (sbx_ctx.inputs): one inside a writable root is a
 * read-only carve-out of the plan, named where it resolves and marked with where it comes from;
 * one outside adds nothing; an object at the name that is not the one read, a link on the way
 * inside a writable root, and a profile that grants write on its own file refuse the plan.
 */
#include <string.h>

#include "fakefs.h"
#include "sbx.h"
#include "t.h"

/*
 * The workspace /t/ws (writable), /t/out outside it, links into and out of it, and /t/wl, the
 * user's link to the workspace.
 */
static json_t *facts(void)
{
	return json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:s, s:s}, "
			 "s:{s:s, s:b}, s:{s:s, s:s, s:s}}",
			 "/t", "dir", "/t/ws", "dir", "/t/ws/cfg", "dir", "/t/ws/cfg/p.json",
			 "file", "/t/out", "dir", "/t/out/p.json", "file", "/t/ws/l.json", "type",
			 "file", "link", "/t/ws/l.json", "real", "/t/ws/cfg/p.json",
			 "/t/out/e.json", "type", "file", "link", "/t/out/e.json", "real",
			 "/t/ws/cfg/p.json", "/t/ws/h.json", "type", "file", "linked", 1, "/t/wl",
			 "type", "dir", "link", "/t/wl", "real", "/t/ws");
}

/*
 * Plans :workspace-like entries for cwd (and extra) with the one input at path, read as what is
 * at read.
 */
static int plan_in(struct fakefs *fs, const char *cwd, const char *path, const char *read,
		   enum sbx_req_origin origin, const char *extra_write, struct sbx_plan *plan,
		   struct sbx_diag *d)
{
	struct sbx_ctx ctx = {.platform = SBX_PLATFORM_LINUX, .cwd = cwd, .fs = &fs->view};
	struct sbx_profile prof = {0};
	struct sbx_pathinfo in;
	struct sbx_input input = {.path = path, .origin = origin};
	int r;

	CHECK_INT(fs->view.lookup(fs->view.self, read, &in), 0);
	input.dev = in.dev;
	input.ino = in.ino;
	ctx.inputs = &input;
	ctx.n_inputs = 1;
	sbx_fs_push_special(&prof.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_special(&prof.fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false);
	if (extra_write)
		sbx_fs_push_path(&prof.fs, extra_write, SBX_WRITE, false);
	sbx_diag_clear(d);
	r = sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, plan, d);
	sbx_profile_free(&prof);
	return r;
}

/* The same in the workspace /t/ws. */
static int plan_with(struct fakefs *fs, const char *path, const char *read,
		     enum sbx_req_origin origin, const char *extra_write, struct sbx_plan *plan,
		     struct sbx_diag *d)
{
	return plan_in(fs, "/t/ws", path, read, origin, extra_write, plan, d);
}

static const struct sbx_req *find(const struct sbx_plan *p, enum sbx_req_kind k, const char *path)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].kind == k && p->reqs[i].path && strcmp(p->reqs[i].path, path) == 0)
			return &p->reqs[i];
	return NULL;
}

TEST(plan_inputs_inside_a_writable_root_are_kept)
{
	json_t *f = facts();
	struct fakefs fs;
	struct sbx_plan plan;
	struct sbx_diag d;
	const struct sbx_req *r;

	fakefs_init(&fs, f);
	CHECK_INT(plan_with(&fs, "/t/ws/cfg/p.json", "/t/ws/cfg/p.json", SBX_ORIGIN_PROFILE_FILE,
			    NULL, &plan, &d),
		  0);
	r = find(&plan, SBX_REQ_READ_ONLY, "/t/ws/cfg/p.json");
	CHECK(r && r->origin == SBX_ORIGIN_PROFILE_FILE);
	/* It is in the profile the helper is handed, as a read entry. */
	CHECK(!sbx_fs_can_write(&plan.profile.fs, &(struct sbx_ctx){.cwd = "/t/ws"},
				"/t/ws/cfg/p.json"));
	CHECK_STR(sbx_origin_name(r->origin), "profile-file");
	sbx_plan_free(&plan);

	/* Named through the user's own link outside the root: what it leads to is kept. */
	CHECK_INT(plan_with(&fs, "/t/out/e.json", "/t/ws/cfg/p.json", SBX_ORIGIN_ADDITION_FILE,
			    NULL, &plan, &d),
		  0);
	r = find(&plan, SBX_REQ_READ_ONLY, "/t/ws/cfg/p.json");
	CHECK(r && r->origin == SBX_ORIGIN_ADDITION_FILE);
	CHECK_STR(sbx_origin_name(r->origin), "add-permissions-file");
	sbx_plan_free(&plan);

	/* Outside every writable root: nothing added, nothing marked. */
	CHECK_INT(plan_with(&fs, "/t/out/p.json", "/t/out/p.json", SBX_ORIGIN_PROFILE_FILE, NULL,
			    &plan, &d),
		  0);
	CHECK_INT((long)plan.profile.fs.n, 2);
	for (size_t i = 0; i < plan.n_reqs; i++)
		CHECK(plan.reqs[i].origin == SBX_ORIGIN_RULE);
	sbx_plan_free(&plan);
	json_decref(f);
}

TEST(plan_inputs_refused)
{
	json_t *f = facts();
	struct fakefs fs;
	struct sbx_plan plan;
	struct sbx_diag d;

	fakefs_init(&fs, f);
	/* Another object at the name than the one read. */
	CHECK_INT(plan_with(&fs, "/t/ws/cfg/p.json", "/t/out/p.json", SBX_ORIGIN_PROFILE_FILE, NULL,
			    &plan, &d),
		  SBX_E_UNENFORCEABLE);
	CHECK_STR(d.msg, "--profile /t/ws/cfg/p.json: another file is there now than the one "
			 "sbxrun read its permissions from");
	CHECK_STR(d.hint, "something replaced or moved it meanwhile; check it, and run again");
	/* Gone meanwhile. */
	CHECK_INT(plan_with(&fs, "/t/ws/gone.json", "/t/out/p.json", SBX_ORIGIN_PROFILE_FILE, NULL,
			    &plan, &d),
		  SBX_E_UNENFORCEABLE);
	CHECK_STR(d.msg, "--profile /t/ws/gone.json: the file sbxrun read its permissions from is "
			 "gone");
	/* A link inside the writable root, which the command could point elsewhere. */
	CHECK_INT(plan_with(&fs, "/t/ws/l.json", "/t/ws/cfg/p.json", SBX_ORIGIN_ADDITION_FILE, NULL,
			    &plan, &d),
		  SBX_E_UNENFORCEABLE);
	CHECK_STR(d.msg, "--add-permissions /t/ws/l.json: named through the symbolic link "
			 "/t/ws/l.json, inside a writable root: the command could point it "
			 "elsewhere for its next run");
	CHECK_STR(d.hint, "name the file the link leads to (/t/ws/cfg/p.json), or keep it outside "
			  "the writable roots");
	/* A file with another name, which the command could write through. */
	CHECK_INT(plan_with(&fs, "/t/ws/h.json", "/t/ws/h.json", SBX_ORIGIN_PROFILE_FILE, NULL,
			    &plan, &d),
		  SBX_E_UNENFORCEABLE);
	CHECK_STR(d.msg, "--profile /t/ws/h.json: the file has more than one name (a hard link), "
			 "inside a writable root: the command could rewrite it through another for "
			 "its next run");
	/* The profile grants write on the file itself. */
	CHECK_INT(plan_with(&fs, "/t/ws/cfg/p.json", "/t/ws/cfg/p.json", SBX_ORIGIN_PROFILE_FILE,
			    "/t/ws/cfg/p.json", &plan, &d),
		  SBX_E_UNENFORCEABLE);
	CHECK_STR(d.msg,
		  "--profile /t/ws/cfg/p.json: the profile grants write on the file sbxrun "
		  "read its permissions from: the command could rewrite it for its next run");
	json_decref(f);
}

TEST(plan_inputs_under_a_root_written_through_a_link)
{
	json_t *f = facts();
	struct fakefs fs;
	struct sbx_plan plan;
	struct sbx_diag d;
	const struct sbx_req *r;

	fakefs_init(&fs, f);
	/*
	 * The writable root is written /t/wl; the file is named where it lies: it is kept, named
	 * from the root as written, so that the roots hold it as a carve-out.
	 */
	CHECK_INT(plan_in(&fs, "/t/out", "/t/ws/cfg/p.json", "/t/ws/cfg/p.json",
			  SBX_ORIGIN_PROFILE_FILE, "/t/wl", &plan, &d),
		  0);
	r = find(&plan, SBX_REQ_READ_ONLY, "/t/wl/cfg/p.json");
	CHECK(r && r->origin == SBX_ORIGIN_PROFILE_FILE);
	sbx_plan_free(&plan);
	/* A link on the way, inside that root as it resolves, is refused as any such link. */
	CHECK_INT(plan_in(&fs, "/t/out", "/t/ws/l.json", "/t/ws/cfg/p.json",
			  SBX_ORIGIN_PROFILE_FILE, "/t/wl", &plan, &d),
		  SBX_E_UNENFORCEABLE);
	CHECK_STR(d.msg, "--profile /t/ws/l.json: named through the symbolic link /t/ws/l.json, "
			 "inside a writable root: the command could point it elsewhere for its "
			 "next run");
	/* Control: outside that root, nothing is added. */
	CHECK_INT(plan_in(&fs, "/t/ws", "/t/out/p.json", "/t/out/p.json", SBX_ORIGIN_PROFILE_FILE,
			  "/t/wl", &plan, &d),
		  0);
	CHECK_INT((long)plan.profile.fs.n, 3);
	sbx_plan_free(&plan);
	json_decref(f);
}

/* The words each origin is rendered in, from its one row: explain --json, explain, access. */
TEST(origin_words)
{
	CHECK(!sbx_origin_name(SBX_ORIGIN_RULE));
	CHECK(!sbx_origin_rule(SBX_ORIGIN_RULE));
	CHECK(!sbx_origin_reason(SBX_ORIGIN_RULE));
	CHECK_STR(sbx_origin_name(SBX_ORIGIN_PROFILE_FILE), "profile-file");
	CHECK_STR(sbx_origin_rule(SBX_ORIGIN_PROFILE_FILE),
		  "read-only: the --profile file this run read");
	CHECK_STR(sbx_origin_reason(SBX_ORIGIN_PROFILE_FILE),
		  "the profile file (--profile) this run read its permissions from, inside a "
		  "writable root: kept read-only, so that the command cannot rewrite what its next "
		  "run reads");
	CHECK_STR(sbx_origin_name(SBX_ORIGIN_ADDITION_FILE), "add-permissions-file");
	CHECK_STR(sbx_origin_rule(SBX_ORIGIN_ADDITION_FILE),
		  "read-only: an --add-permissions file this run read");
	CHECK_STR(
		sbx_origin_reason(SBX_ORIGIN_ADDITION_FILE),
		"an --add-permissions file this run read its permissions from, inside a writable "
		"root: kept read-only, so that the command cannot rewrite what its next run reads");
}
