/* SPDX-License-Identifier: MIT */
/* test_intent.c - should_require_platform_sandbox, should_sandbox and the platform backend. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

static const char *const srp_ids[] = { "srp-01", "srp-02", "srp-04", "srp-05",
				       "srp-07", "srp-08", "srp-10", "srp-11" };

TEST(vectors_should_require_platform_sandbox_covered)
{
	vec_check_area("should_require_platform_sandbox", srp_ids,
		       sizeof(srp_ids) / sizeof(srp_ids[0]));
}

/* A vector's file_system_policy + network as the profile a runtime would hold. */
static int fs_case(const char *id, struct sbx_profile *p, bool *managed, json_t **expected)
{
	json_t *v = vec_get(id), *in;
	int r;

	if (!v)
		return -1;
	in = vec_subst(json_object_get(v, "input"));
	memset(p, 0, sizeof(*p));
	r = vec_fs_policy(json_object_get(in, "file_system_policy"), &p->fs);
	p->type = p->fs.kind == SBX_FS_EXTERNAL ? SBX_EXTERNAL : SBX_MANAGED;
	p->network = strcmp(json_string_value(json_object_get(in, "network")) ?: "", "enabled") == 0;
	*managed = json_is_true(json_object_get(in, "has_managed_network_requirements"));
	*expected = json_object_get(v, "expected");
	json_decref(in);
	return r;
}

static void check_fs_case(const char *id)
{
	struct sbx_profile p;
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	json_t *want;
	bool managed;

	if (fs_case(id, &p, &managed, &want))
		return;
	CHECK(json_is_boolean(want));
	CHECK_INT(sbx_should_require_platform_sandbox(&p, managed, &ctx), json_is_true(want));
	/* Auto follows the rule; Forbid and Require override it. */
	CHECK_INT(sbx_should_sandbox(&p, SBX_PREF_AUTO, managed, &ctx), json_is_true(want));
	CHECK(!sbx_should_sandbox(&p, SBX_PREF_FORBID, managed, &ctx));
	CHECK(sbx_should_sandbox(&p, SBX_PREF_REQUIRE, managed, &ctx));
	sbx_profile_free(&p);
}

TEST(vec_srp_01) { check_fs_case("srp-01"); }
TEST(vec_srp_02) { check_fs_case("srp-02"); }
TEST(vec_srp_07) { check_fs_case("srp-07"); }
TEST(vec_srp_08) { check_fs_case("srp-08"); }
TEST(vec_srp_10) { check_fs_case("srp-10"); }

static void load_profile(const json_t *pp, struct sbx_profile *p)
{
	char *text = vec_text(pp);
	struct sbx_diag d;
	enum sbx_input_form form;

	CHECK_INT(sbx_profile_load_buf(text, strlen(text), "vector", p, &form, NULL, &d), 0);
	free(text);
}

/* select_initial: the platform's backend when a sandbox is wanted, else none. */
static enum sbx_sandbox select_initial(const struct sbx_profile *p, enum sbx_pref pref,
				       bool managed, enum sbx_platform pl,
				       enum sbx_windows_level level)
{
	struct sbx_ctx ctx = vec_ctx(vec_cwd());

	ctx.platform = pl;
	if (!sbx_should_sandbox(p, pref, managed, &ctx))
		return SBX_SANDBOX_NONE;
	return sbx_platform_sandbox(pl, level);
}

TEST(vec_srp_04)
{
	json_t *v = vec_get("srp-04");
	struct sbx_profile p;

	if (!v)
		return;
	load_profile(json_object_get(json_object_get(v, "input"), "permission_profile"), &p);
	CHECK_STR(json_string_value(json_object_get(json_object_get(v, "expected"),
						    "sandbox_type")),
		  "None");
	for (int pl = SBX_PLATFORM_LINUX; pl <= SBX_PLATFORM_WINDOWS; pl++)
		CHECK_INT(select_initial(&p, SBX_PREF_AUTO, false, pl, SBX_WIN_ELEVATED),
			  SBX_SANDBOX_NONE);
	sbx_profile_free(&p);
}

TEST(vec_srp_05)
{
	json_t *v = vec_get("srp-05");
	struct sbx_profile p;

	if (!v)
		return;
	load_profile(json_object_get(json_object_get(v, "input"), "permission_profile"), &p);
	CHECK(json_is_true(json_object_get(json_object_get(v, "input"),
					   "has_managed_network_requirements")));
	CHECK_INT(select_initial(&p, SBX_PREF_AUTO, true, SBX_PLATFORM_LINUX, SBX_WIN_DISABLED),
		  SBX_SANDBOX_LINUX_SECCOMP);
	CHECK_INT(select_initial(&p, SBX_PREF_AUTO, true, SBX_PLATFORM_MACOS, SBX_WIN_DISABLED),
		  SBX_SANDBOX_MACOS_SEATBELT);
	CHECK_INT(select_initial(&p, SBX_PREF_AUTO, true, SBX_PLATFORM_WINDOWS, SBX_WIN_DISABLED),
		  SBX_SANDBOX_NONE);
	CHECK_INT(select_initial(&p, SBX_PREF_AUTO, true, SBX_PLATFORM_WINDOWS,
				 SBX_WIN_RESTRICTED_TOKEN),
		  SBX_SANDBOX_WINDOWS_RESTRICTED_TOKEN);
	sbx_profile_free(&p);
}

TEST(vec_srp_11)
{
	json_t *v = vec_get("srp-11");
	struct sbx_profile p;
	struct sbx_ctx ctx = vec_ctx(vec_cwd());

	if (!v)
		return;
	load_profile(json_object_get(json_object_get(v, "input"), "permission_profile"), &p);
	CHECK(json_is_true(json_object_get(json_object_get(v, "expected"), "should_sandbox")));
	CHECK(sbx_should_sandbox(&p, SBX_PREF_REQUIRE, false, &ctx));
	/* The control: the same profile under Auto needs no sandbox. */
	CHECK(!sbx_should_sandbox(&p, SBX_PREF_AUTO, false, &ctx));
	sbx_profile_free(&p);
}

/* The profile table of spec 3, row by row. */
TEST(intent_profile_table)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_profile p = { .type = SBX_MANAGED };

	p.fs.kind = SBX_FS_UNRESTRICTED;
	CHECK(sbx_should_require_platform_sandbox(&p, false, &ctx));
	p.network = true;
	CHECK(!sbx_should_require_platform_sandbox(&p, false, &ctx));
	p.fs.kind = SBX_FS_RESTRICTED;
	sbx_fs_push_special(&p.fs, SBX_SP_ROOT, NULL, SBX_WRITE, false);
	CHECK(!sbx_should_require_platform_sandbox(&p, false, &ctx));
	sbx_fs_push_path(&p.fs, "/x", SBX_DENY, false);
	CHECK(sbx_should_require_platform_sandbox(&p, false, &ctx));
	sbx_profile_free(&p);

	p = (struct sbx_profile){ .type = SBX_EXTERNAL, .network = true };
	p.fs.kind = SBX_FS_EXTERNAL;
	CHECK(!sbx_should_require_platform_sandbox(&p, false, &ctx));
	CHECK(sbx_should_require_platform_sandbox(&p, true, &ctx));
	p.network = false;
	CHECK(!sbx_should_require_platform_sandbox(&p, false, &ctx));
}

TEST(intent_names)
{
	CHECK_STR(sbx_sandbox_name(SBX_SANDBOX_NONE), "none");
	CHECK_STR(sbx_sandbox_name(SBX_SANDBOX_LINUX_SECCOMP), "linux-seccomp");
	CHECK_STR(sbx_sandbox_name(SBX_SANDBOX_MACOS_SEATBELT), "macos-seatbelt");
	CHECK_STR(sbx_sandbox_name(SBX_SANDBOX_WINDOWS_RESTRICTED_TOKEN),
		  "windows-restricted-token");
	CHECK_STR(sbx_platform_name(SBX_PLATFORM_LINUX), "linux");
	CHECK_STR(sbx_platform_name(SBX_PLATFORM_MACOS), "macos");
	CHECK_STR(sbx_platform_name(SBX_PLATFORM_WINDOWS), "windows");
	CHECK_INT(sbx_host_platform(), SBX_PLATFORM_LINUX);
}
