/* SPDX-License-Identifier: MIT */
/*
 * test_addition.c - additions as sbxrun applies them (--add-permissions, the quick grants): as
 * Codex's effective profile, except that a deny is never dropped.
 */
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

static struct sbx_additional grants(void)
{
	struct sbx_additional a = {.network = -1, .has_fs = true};

	sbx_fs_push_path(&a.fs, "/home/u/.ssh", SBX_DENY, false);
	sbx_fs_push_path(&a.fs, "/home/u/.ssh/known_hosts", SBX_READ, false);
	sbx_fs_push_path(&a.fs, "/etc", SBX_READ, false);
	sbx_fs_push_path(&a.fs, "/srv/out", SBX_WRITE, false);
	return a;
}

TEST(addition_without_deny_is_the_effective_profile)
{
	struct sbx_profile base = {.type = SBX_MANAGED}, a1, a2;
	struct sbx_additional a = {.network = 1, .has_fs = true};
	struct sbx_diag d;

	sbx_fs_push_special(&base.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&a.fs, "/srv", SBX_WRITE, false);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_add(&base, &a, &a1, &d), 0);
	CHECK_INT(sbx_profile_effective(&base, &a, &a2), 0);
	CHECK(a1.fs.n == a2.fs.n && a1.network == a2.network && a1.network);
	sbx_profile_free(&a1);
	sbx_profile_free(&a2);
	/* Unrestricted stays unrestricted when nothing is denied. */
	sbx_profile_free(&base);
	base = (struct sbx_profile){.type = SBX_MANAGED};
	base.fs.kind = SBX_FS_UNRESTRICTED;
	CHECK_INT(sbx_profile_add(&base, &a, &a1, &d), 0);
	CHECK_INT(a1.fs.kind, SBX_FS_UNRESTRICTED);
	CHECK_INT(a1.fs.n, 0);
	sbx_profile_free(&a1);
	CHECK_INT(sbx_profile_add(&base, NULL, &a1, &d), 0);
	sbx_profile_free(&a1);
	sbx_additional_free(&a);
}

TEST(addition_deny_on_restricted_survives_and_wins_ties)
{
	struct sbx_profile base = {.type = SBX_MANAGED}, out;
	struct sbx_additional a = {.network = -1, .has_fs = true};
	struct sbx_ctx ctx = vec_ctx("/w");
	struct sbx_diag d;

	sbx_fs_push_special(&base.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&base.fs, "/w", SBX_WRITE, false);
	sbx_fs_push_path(&a.fs, "/w", SBX_DENY, false); /* same path as a write: deny wins */
	sbx_fs_push_path(&a.fs, "/home/u/.ssh", SBX_DENY, false); /* more specific than root */
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_add(&base, &a, &out, &d), 0);
	CHECK_INT(out.fs.n, 4);
	CHECK_INT(sbx_fs_resolve_access(&out.fs, &ctx, "/w/x", NULL), SBX_DENY);
	CHECK_INT(sbx_fs_resolve_access(&out.fs, &ctx, "/home/u/.ssh/id", NULL), SBX_DENY);
	CHECK_INT(sbx_fs_resolve_access(&out.fs, &ctx, "/home/u/x", NULL), SBX_READ);
	sbx_profile_free(&out);
	sbx_profile_free(&base);
	sbx_additional_free(&a);
}

TEST(addition_deny_narrows_an_unrestricted_file_system)
{
	struct sbx_profile base = {.type = SBX_MANAGED, .network = true}, out;
	struct sbx_additional a = grants();
	struct sbx_ctx ctx = vec_ctx("/w");
	struct sbx_diag d;

	base.fs.kind = SBX_FS_UNRESTRICTED;
	vec_push_glob(&a.fs, "/w/**/*.pem", SBX_DENY);
	a.fs.glob_depth = 4;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_add(&base, &a, &out, &d), 0);
	CHECK_INT(out.type, SBX_MANAGED);
	CHECK_INT(out.fs.kind, SBX_FS_RESTRICTED);
	CHECK(out.network);
	CHECK_INT(out.fs.glob_depth, 4);
	/* root write, the denies, the write, the read re-opening inside a deny: not /etc read */
	CHECK_INT(out.fs.n, 5);
	if (out.fs.n == 5) {
		CHECK_INT(out.fs.entries[0].kind, SBX_SPECIAL);
		CHECK_INT(out.fs.entries[0].access, SBX_WRITE);
		CHECK_STR(out.fs.entries[1].path, "/home/u/.ssh");
		CHECK_STR(out.fs.entries[2].path, "/w/**/*.pem");
		CHECK_STR(out.fs.entries[3].path, "/home/u/.ssh/known_hosts");
		CHECK_STR(out.fs.entries[4].path, "/srv/out");
	}
	CHECK_INT(sbx_fs_resolve_access(&out.fs, &ctx, "/etc/passwd", NULL), SBX_WRITE);
	CHECK_INT(sbx_fs_resolve_access(&out.fs, &ctx, "/home/u/.ssh/id", NULL), SBX_DENY);
	CHECK_INT(sbx_fs_resolve_access(&out.fs, &ctx, "/home/u/.ssh/known_hosts", NULL), SBX_READ);
	CHECK(!sbx_fs_full_write(&out.fs, &ctx));
	sbx_profile_free(&out);
	sbx_profile_free(&base);
	sbx_additional_free(&a);
}

TEST(addition_deny_refused_where_nothing_can_take_it)
{
	struct sbx_profile base = {.type = SBX_DISABLED, .network = true}, out;
	struct sbx_additional a = grants();
	struct sbx_diag d;

	base.fs.kind = SBX_FS_UNRESTRICTED;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_add(&base, &a, &out, &d), SBX_E_INVALID);
	CHECK_STR(d.msg, "a deny entry cannot narrow a profile of type disabled: it asks for no "
			 "sandbox at all");
	CHECK(strstr(d.hint, "\"type\":\"managed\"") != NULL);
	CHECK(out.fs.n == 0 && out.fs.entries == NULL);
	base.type = SBX_EXTERNAL;
	base.fs.kind = SBX_FS_EXTERNAL;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_add(&base, &a, &out, &d), SBX_E_INVALID);
	CHECK(strstr(d.msg, "type external: its file system is confined outside sbxrun") != NULL);
	sbx_additional_free(&a);
}
