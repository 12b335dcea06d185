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
 * what must not be created), deny (what must not be made where no directory is), dangling
 * (pairs: a hook linked to nothing, and where the command cannot make it, outside every
 * writable root), and the .git file's targets to target (to free).
 */
int sbx_roots_git(const struct sbx_ctx *ctx, const struct pmap *m, const struct sbx_roots *roots,
		  const char *root, const char *git, const struct sbx_pathinfo *in, bool git_mode,
		  char *target[SBX_GIT_READINGS], struct sbx_strv *gits, struct sbx_strv *missing,
		  struct sbx_strv *deny, struct sbx_strv *dangling, struct sbx_diag *d);

/*
 * A writable root root that is itself a git directory (a bare repository): what git runs or
 * reads from it, found as sbx_git_root_paths does, appended to gits (to stay read-only) and
 * missing (not to be created); what must not be made where no directory is to deny. Nothing
 * where the root has no HEAD.
 */
int sbx_roots_git_root(const struct sbx_ctx *ctx, const struct pmap *m,
		       const struct sbx_roots *roots, const char *root, struct sbx_strv *gits,
		       struct sbx_strv *missing, struct sbx_strv *deny, struct sbx_strv *dangling,
		       struct sbx_diag *d);

/*
 * What the symbolic links in the tree of a kept .codex or .agents, dir, lead to (gitroots.c):
 * appended to keep, to be kept read-only where it lies (an earlier run to which the directory
 * was a plain nested one could link a file there into a writable root, for this run to rewrite
 * what the next agent reads). One that leads nowhere, or through a link in a writable root, is
 * refused in d; so is a tree of more than SBX_MAX_GLOB_MATCHES entries or 64 levels. Codex's
 * session records and log at the top of a .codex are passed over.
 */
int sbx_roots_agent_links(const struct sbx_ctx *ctx, const struct pmap *m,
			  const struct sbx_roots *roots, const char *dir, struct sbx_strv *keep,
			  struct sbx_diag *d);

/*
 * The global config files of the context (sbx_ctx.git_globals) that lie in a writable root,
 * and what they include (gitroots.c): appended to keep (existing: read-only, at their real
 * path), missing (to be kept from being created: an empty file or directory at the name, which
 * git takes for none: sbx_git_point) and deny (missing elsewhere). A look-up that fails other
 * than by absence, a global config that is no regular file, or one whose missing name could
 * only be kept by masking a directory other programs write (~/.config) is refused in d. The
 * system files among keep and missing (sbx_ctx.n_git_system) are appended to system as well,
 * and the missing config files themselves (an empty file whatever their name) to files.
 */
int sbx_git_globals_keep(const struct sbx_ctx *ctx, const struct pmap *m,
			 const struct sbx_roots *roots, struct sbx_strv *keep,
			 struct sbx_strv *missing, struct sbx_strv *deny, struct sbx_strv *system,
			 struct sbx_strv *files, struct sbx_diag *d);

/*
 * A git index read as its bytes come (gitindex.c): the paths of its gitlinks (mode 0160000)
 * appended to out, at most max in all. Fed chunk after chunk, then ended: 0; -EINVAL when
 * malformed or cut short, -ENOTSUP when split (the link extension), why then saying what;
 * -E2BIG past max; -ENOMEM. A feed that fails stops the reading (the same error again).
 */
struct sbx_gitindex {
	size_t hashsz, max;
	struct sbx_strv *out;
	const char *why;
	int err;
	bool seen_header;
	uint32_t version, entries; /* entries: those still to come */
	uint64_t skip;		   /* bytes of an extension still to pass */
	char *name;		   /* the last path (version 4 builds on it) */
	size_t nlen, cap;
	unsigned char *carry; /* the bytes of a step a chunk cut */
	size_t clen, ccap;
};
void sbx_gitindex_init(struct sbx_gitindex *x, size_t hashsz, size_t max, struct sbx_strv *out);
int sbx_gitindex_feed(struct sbx_gitindex *x, const char *chunk, size_t n);
int sbx_gitindex_end(struct sbx_gitindex *x);

/*
 * The gitlinks of the index buf[0..len), fed chunk bytes at a time, read with SHA-1 object
 * names and, when that reading is malformed, with SHA-256 ones: as sbx_gitindex_end.
 */
int sbx_git_index_gitlinks(const unsigned char *buf, size_t len, size_t chunk, size_t max,
			   struct sbx_strv *out, const char **why);

#endif
