/* SPDX-License-Identifier: MIT */
/* test_context.c - <environment_context> rendering. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

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
