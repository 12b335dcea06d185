/* SPDX-License-Identifier: MIT */
/*
 * gitroots.h - the git directories and files a writable root keeps read-only (gitroots.c), as
 * roots.c asks for them (lib/ internal; not part of the public interface).
 */
#ifndef SBX_GITROOTS_H
#define SBX_GITROOTS_H

#include "pmap.h"

/*
 * The paths a .git file at dotgit, in the root root, points to, and what is at each: out[i]
 * NULL past them.
 */
int sbx_gitdir_targets(const struct sbx_ctx *ctx, const char *root, const char *dotgit,
		       char *out[SBX_GIT_READINGS], struct sbx_pathinfo at[SBX_GIT_READINGS],
		       struct sbx_diag *d);

/*
 * The git directories and files the writable root root keeps read-only, whose .git is git,
 * found as in (gitroots.c): appended to gits (git mode: what gitmode.c keeps, and to missing
 * what must not be created), deny (what must not be made where no directory is), and the .git
 * file's targets to target (to free).
 */
int sbx_roots_git(const struct sbx_ctx *ctx, const struct pmap *m, const struct sbx_roots *roots,
		  const char *root, const char *git, const struct sbx_pathinfo *in, bool git_mode,
		  char *target[SBX_GIT_READINGS], struct sbx_strv *gits, struct sbx_strv *missing,
		  struct sbx_strv *deny, struct sbx_diag *d);

/*
 * The global config files of the context (sbx_ctx.git_globals) that lie in a writable root,
 * and what they include (gitroots.c): appended to keep (existing: read-only, at their real
 * path), missing (to be kept from being created: an empty file or directory at the name, which
 * git takes for none: sbx_git_point) and deny (missing elsewhere). A look-up that fails other
 * than by absence, a global config that is no regular file, or one whose missing name could
 * only be kept by masking a directory other programs write (~/.config) is refused in d.
 */
int sbx_git_globals_keep(const struct sbx_ctx *ctx, const struct pmap *m,
			 const struct sbx_roots *roots, struct sbx_strv *keep,
			 struct sbx_strv *missing, struct sbx_strv *deny, struct sbx_diag *d);

#endif
