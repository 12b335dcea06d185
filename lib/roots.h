/* SPDX-License-Identifier: MIT */
/*
 * roots.h - what the two files of the roots share (lib/ internal; not part of the public
 * interface):
 *
 *   roots.c      the profile's path map, the roots a platform enforces and each writable root's
 *                protected names (sbx_fs_roots)
 *   gitroots.c   the git directories and files a writable root keeps read-only: where a .git
 *                file points, worktrees' and submodules' git directories, what git reads from
 *                them that lies elsewhere (a link's target, an included config)
 *
 * gitroots.c asks the map only where a path lies: which entry names it, which writable root or
 * deny decides it.
 */
#ifndef SBX_ROOTS_H
#define SBX_ROOTS_H

#include <stdint.h>

#include "sbx.h"

/* Distinct resolved paths of a profile, each with the strongest access of the entries there. */
struct pmap {
	struct pslot {
		const char *p; /* borrowed from paths.v */
		/* access: the largest of the entries at exactly this path (enum sbx_access) */
		uint32_t len : 30, access : 2;
		int32_t wr; /* index into the writable roots, or -1 */
	} * slots; /* 16 bytes a slot: 256 KiB at 10,000 paths, where 32 missed the cache more */
	size_t cap;
	struct sbx_strv paths;	/* distinct paths in first-seen order (owned) */
	size_t *at;		/* the slot of each of paths.v */
	struct sbx_lenset lens; /* of the paths held: most ancestors looked up hold nothing */
};

/* The slot of p[0..len), or NULL. */
struct pslot *sbx_pmap_find(const struct pmap *m, const char *p, size_t len);

/*
 * The nearest strict ancestor of p that is in the map with an access other than read (a
 * writable root or a deny), or NULL. Read entries in between do not stop the walk.
 */
struct pslot *sbx_pmap_decider(const struct pmap *m, const char *p);

/*
 * The paths a .git file at dotgit, in the root root, points to, and what is at each: out[i]
 * NULL past them (gitroots.c).
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

#endif
