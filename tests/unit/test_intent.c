/* SPDX-License-Identifier: MIT */
/* test_intent.c - should_require_platform_sandbox, should_sandbox and the platform backend. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

/* The rule of sbxrun-profile(5), WHEN A SANDBOX IS NEEDED, row by row. */
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
