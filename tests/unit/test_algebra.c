/* SPDX-License-Identifier: MIT */
/* test_algebra.c - normalize, materialize, merge, intersect and the effective profile. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

TEST(intersect_requested_deny_blocks_grant)
{
	struct sbx_additional r = { .network = -1, .has_fs = true }, g = r, out;
	struct sbx_ctx ctx = vec_ctx("/repo");

	sbx_fs_push_special(&r.fs, SBX_SP_ROOT, NULL, SBX_WRITE, false);
	sbx_fs_push_path(&r.fs, "/repo/secret", SBX_DENY, false);
	sbx_fs_push_path(&r.fs, "/repo/secret/open", SBX_WRITE, false);
	vec_push_glob(&r.fs, "/repo/**/*.pem", SBX_DENY);
	sbx_fs_push_path(&g.fs, "/repo/secret/open", SBX_WRITE, false); /* under a deny */
	sbx_fs_push_path(&g.fs, "/repo/k.pem", SBX_READ, false);	 /* matched by a glob */
	sbx_fs_push_path(&g.fs, "/repo/src", SBX_READ, false);		 /* fine */
	sbx_fs_push_path(&g.fs, "/elsewhere", SBX_DENY, false);		 /* no overlap: dropped */
	CHECK_INT(sbx_additional_intersect(&r, &g, &ctx, &out), 0);
	CHECK(out.has_fs);
	/* /repo/src read, then the requested denies that overlap it (the glob's prefix /repo) */
	CHECK_INT(out.fs.n, 2);
	if (out.fs.n == 2) {
		CHECK_STR(out.fs.entries[0].path, "/repo/src");
		CHECK_STR(out.fs.entries[1].path, "/repo/**/*.pem");
	}
	CHECK_INT(out.network, -1);
	sbx_additional_free(&out);
	sbx_additional_free(&r);
	sbx_additional_free(&g);
}

TEST(merge_glob_depth_rules)
{
	struct sbx_fs a = { 0 }, b = { 0 };

	a.glob_depth = 3;
	b.glob_depth = 5;
	CHECK_INT(sbx_merge_glob_depth(&a, &b), 0); /* neither side has deny globs */
	vec_push_glob(&a, "/x/**", SBX_DENY);
	CHECK_INT(sbx_merge_glob_depth(&a, &b), 3); /* b does not count */
	vec_push_glob(&b, "/y/**", SBX_DENY);
	CHECK_INT(sbx_merge_glob_depth(&a, &b), 5); /* the larger */
	b.glob_depth = 0;
	CHECK_INT(sbx_merge_glob_depth(&a, &b), 0); /* unbounded wins */
	CHECK_INT(sbx_merge_glob_depth(&a, NULL), 3);
	sbx_fs_clear(&a);
	sbx_fs_clear(&b);
}

TEST(effective_keeps_base_denies_and_order)
{
	struct sbx_profile base = { .type = SBX_MANAGED }, eff;
	struct sbx_additional a = { .network = 1, .has_fs = true };

	sbx_fs_push_special(&base.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&base.fs, "/repo/secret", SBX_DENY, false);
	sbx_fs_push_path(&a.fs, "/repo", SBX_WRITE, false);
	sbx_fs_push_path(&a.fs, "/repo/secret", SBX_DENY, false); /* already there */
	sbx_fs_push_path(&a.fs, "/repo/secret", SBX_WRITE, false); /* cannot undo the deny */
	CHECK_INT(sbx_profile_effective(&base, &a, &eff), 0);
	CHECK_INT(eff.fs.n, 4);
	CHECK(eff.network);
	if (eff.fs.n == 4) {
		CHECK_INT(eff.fs.entries[1].access, SBX_DENY);
		CHECK_STR(eff.fs.entries[2].path, "/repo");
		CHECK_INT(eff.fs.entries[3].access, SBX_WRITE);
	}
	{
		struct sbx_ctx ctx = vec_ctx("/repo");

		CHECK_INT(sbx_fs_resolve_access(&eff.fs, &ctx, "/repo/secret/x", NULL), SBX_DENY);
	}
	sbx_profile_free(&eff);
	/* An unrestricted base is unchanged by file system additions. */
	sbx_profile_free(&base);
	base = (struct sbx_profile){ .type = SBX_DISABLED, .network = true };
	base.fs.kind = SBX_FS_UNRESTRICTED;
	CHECK_INT(sbx_profile_effective(&base, &a, &eff), 0);
	CHECK_INT(eff.fs.n, 0);
	sbx_profile_free(&eff);
	sbx_additional_free(&a);
}
