/* SPDX-License-Identifier: MIT */
/* test_legacy.c - legacy SandboxPolicy to profile and back, and the compatibility fallback. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

TEST(legacy_other_kinds)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	struct sbx_legacy l = { .type = SBX_LEGACY_DANGER_FULL_ACCESS }, back;
	struct sbx_profile p;
	struct sbx_diag d;

	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	CHECK(p.type == SBX_DISABLED && p.fs.kind == SBX_FS_UNRESTRICTED && p.network);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), 0);
	CHECK_INT(back.type, SBX_LEGACY_DANGER_FULL_ACCESS);
	sbx_profile_free(&p);
	l = (struct sbx_legacy){ .type = SBX_LEGACY_EXTERNAL_SANDBOX, .network_access = true };
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	CHECK(p.type == SBX_EXTERNAL && p.fs.kind == SBX_FS_EXTERNAL && p.network);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), 0);
	CHECK(back.type == SBX_LEGACY_EXTERNAL_SANDBOX && back.network_access);
	sbx_profile_free(&p);
	/* A writable tmpdir alone cannot be expressed; a read-only profile can. */
	p = (struct sbx_profile){ .type = SBX_MANAGED };
	sbx_fs_push_special(&p.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), 0);
	CHECK_INT(back.type, SBX_LEGACY_READ_ONLY);
	sbx_fs_push_special(&p.fs, SBX_SP_TMPDIR, NULL, SBX_WRITE, false);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), SBX_E_NO_LEGACY);
	/* A path equal to the cwd counts as the workspace; project_roots{sub} is a root. */
	sbx_fs_push_path(&p.fs, "/repo", SBX_WRITE, false);
	sbx_fs_push_special(&p.fs, SBX_SP_PROJECT_ROOTS, "out", SBX_WRITE, false);
	CHECK_INT(sbx_profile_to_legacy(&p, &ctx, &back, &d), 0);
	CHECK_INT(back.type, SBX_LEGACY_WORKSPACE_WRITE);
	CHECK(back.n_writable_roots == 1 && !strcmp(back.writable_roots[0], "/repo/out"));
	CHECK(!back.exclude_tmpdir_env_var && back.exclude_slash_tmp);
	sbx_legacy_free(&back);
	sbx_profile_free(&p);
}

TEST(legacy_workspace_gitdir_pointer_in_cwd)
{
	char *top = vec_fresh_dir(), *cwd = NULL, *gd = NULL, *dotgit = NULL;
	struct sbx_legacy l = { .type = SBX_LEGACY_WORKSPACE_WRITE };
	struct sbx_profile p;
	struct sbx_entry want = { .kind = SBX_PATH, .access = SBX_READ, .skip_missing = true };
	struct sbx_ctx ctx;

	if (asprintf(&cwd, "%s/wt", top) < 0 || asprintf(&gd, "%s/repo/.git/worktrees/wt", top) < 0 ||
	    asprintf(&dotgit, "%s/.git", cwd) < 0)
		goto out;
	vec_mkdir(gd);
	vec_mkfile(dotgit, "gitdir: ../repo/.git/worktrees/wt\n");
	ctx = vec_ctx(cwd);
	CHECK_INT(sbx_legacy_to_profile(&l, &ctx, &p), 0);
	/* The pointer's target is protected as a concrete path; cwd/.git stays symbolic. */
	want.path = gd;
	CHECK(sbx_fs_contains(&p.fs, &want));
	want.path = dotgit;
	CHECK(!sbx_fs_contains(&p.fs, &want));
	sbx_profile_free(&p);
out:
	free(top);
	free(cwd);
	free(gd);
	free(dotgit);
}
