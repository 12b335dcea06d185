/* SPDX-License-Identifier: MIT */
/*
 * gitroots.c - the git directories and files a writable root keeps read-only (sbxrun-profile(5),
 * PROTECTED METADATA): the directory a .git file points to, a worktree's common directory,
 * every submodule's and worktree's git directory, the checkouts they name, and what git reads
 * from them that lies elsewhere (where a link at hooks or config leads, the files a config
 * includes), or, in git mode, what gitmode.c keeps of them.
 *
 * The file system is looked at through the context's struct sbx_fsview only (the .git pointer
 * file, a worktree's commondir, modules/, worktrees/, the configs); a look-up that fails for any
 * reason but absence is an error, never "missing". Where each path lies (which writable root or
 * deny decides it) is the profile's map's answer (pmap.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gitroots.h"
#include "winpath.h"

/*
 * A .git pointer file or a commondir holds one path: one longer than this cannot be read whole,
 * and refuses the plan (sbx_git_read_lines) rather than be taken for no pointer.
 */
#define GITDIR_FILE_MAX 4096

/*
 * The paths a ".git" file points to with "gitdir: <path>" (git's reading and the profile
 * semantics', which trims it: sbx_git_read_lines), resolved against the file's directory, and
 * what is at each (at[i]); out[i] NULL past them. A malformed pointer is ignored (it protects
 * nothing, and .git itself still is); a pointer that cannot be read (or not whole), or a target
 * that cannot be looked up, is an error. The profile semantics' target comes first.
 */
int sbx_gitdir_targets(const struct sbx_ctx *ctx, const char *root, const char *dotgit,
		       char *out[SBX_GIT_READINGS], struct sbx_pathinfo at[SBX_GIT_READINGS],
		       struct sbx_diag *d)
{
	char *lines[SBX_GIT_READINGS];
	int r, n, k = 0;

	for (int i = 0; i < SBX_GIT_READINGS; i++)
		out[i] = NULL;
	r = n = sbx_git_read_lines(ctx, dotgit, SBX_GIT_DOTGIT,
				   "a .git file names the git directory to protect",
				   GITDIR_FILE_MAX, lines, d);
	for (int i = n - 1; r >= 0 && i >= 0; i--) {
		const char *s = lines[i];
		char *t = NULL;

		if (sbx_path_is_windows_abs(root)) {
			/* One canonical Windows path, the pointer absolute or relative to the root. */
			char *joined = NULL;

			if (!sbx_path_is_windows_abs(s) && sbx_path_join_any(root, s, &joined))
				continue;
			r = sbx_win_path_normalize(joined ? joined : s, &t, NULL);
			free(joined);
			if (r) {
				r = r == -ENOMEM ? r : 0; /* malformed: protects nothing */
				continue;
			}
		} else if ((r = sbx_git_join(dotgit, root, s, &t, d))) {
			break;
		}
		for (int j = 0; t && j < k; j++)
			if (strcmp(out[j], t) == 0) {
				free(t);
				t = NULL;
			}
		if (t && (r = sbx_ctx_lookup(ctx, t, &at[k], d)) < 0)
			free(t);
		else if (t)
			out[k++] = t;
	}
	for (int i = 0; i < n; i++)
		free(lines[i]);
	if (r < 0)
		for (int i = 0; i < k; i++) {
			free(out[i]);
			out[i] = NULL;
		}
	return r < 0 ? r : 0;
}

/*
 * The directory a git directory's "commondir" file names (a linked worktree's gitdir points at
 * the repository's common directory, where hooks and config live), or NULL.
 */
static int git_commondir(const struct sbx_ctx *ctx, const char *gitdir, char **out,
			 struct sbx_diag *d)
{
	char *lines[SBX_GIT_READINGS] = {NULL}, *file = NULL;
	struct sbx_pathinfo in;
	int r;

	*out = NULL;
	r = sbx_path_join_any(gitdir, "commondir", &file);
	if (!r)
		r = sbx_git_read_lines(ctx, file, SBX_GIT_COMMONDIR,
				       "it names the git directory whose hooks and config must be "
				       "protected",
				       GITDIR_FILE_MAX, lines, d);
	if (r > 0)
		r = sbx_git_join(file, gitdir, lines[0], out, d);
	free(lines[0]);
	free(file);
	if (r < 0 || !*out)
		return r; /* no such file, or not one line: not a worktree */
	r = sbx_ctx_lookup(ctx, *out, &in, d);
	if (r || !in.exists || in.type != SBX_FT_DIR) {
		free(*out);
		*out = NULL;
	}
	return r < 0 ? r : 0;
}

struct list_dirs {
	const char *gitdir, *parent;
	struct sbx_strv *out;
	size_t first;  /* out->v[first] is gitdir */
	bool skip_own; /* git's own subdirectories (sbx_git_own_subdir) */
	struct sbx_diag *d;
	int err; /* what stopped the listing */
};

/*
 * Each push is counted: one listing of many names must not hold them all before the cap is
 * looked at. Past it, the run is refused (each would be a carve-out), naming the directory to
 * clean: one run in git mode can fill modules/, and every later run then refuses until then.
 */
static int push_subdir(void *arg, const char *name, enum sbx_ftype type)
{
	struct list_dirs *l = arg;
	char *p = NULL;
	int r;

	/*
	 * In a git directory itself (skip_own) a link is a file git reads (git_reads) or no git
	 * directory's.
	 */
	if ((type != SBX_FT_DIR && (type != SBX_FT_LINK || l->skip_own)) ||
	    (l->skip_own && sbx_git_own_subdir(name)))
		return 0;
	r = sbx_path_join_any(l->parent, name, &p);
	if (!r && type == SBX_FT_LINK) {
		/*
		 * Git follows it to wherever it leads (a submodule's .git file, a worktree's, names
		 * it), and takes hooks and config there: kept read-only only as far as the git
		 * directory goes, the link would lead the next git to a directory the command writes.
		 */
		sbx_diag_set(l->d, SBX_E_UNENFORCEABLE,
			     "%s is a symbolic link among git directories: git would follow it to "
			     "hooks and config that are not kept read-only",
			     p);
		r = sbx_diag_hint(l->d, SBX_E_UNENFORCEABLE,
				  "put the directory there instead of the link, or remove it");
		free(p);
	} else if (!r && l->out->n - l->first > SBX_MAX_GIT_DIRS) {
		sbx_diag_set(
			l->d, SBX_E_TOO_BIG,
			"more than %d git directories of submodules and worktrees at %s (%s is "
			"one too many)",
			SBX_MAX_GIT_DIRS, l->gitdir, p);
		r = sbx_diag_hint(l->d, SBX_E_TOO_BIG,
				  "remove the ones no longer used from %s (git submodule deinit, "
				  "git worktree prune, then the directory)",
				  l->parent);
		free(p);
	} else if (!r) {
		r = sbx_strv_push_owned(l->out, p);
	}
	l->err = r;
	return r ? 1 : 0;
}

/* Appends to l->out the subdirectories of dir/sub (of dir when sub is NULL). */
static int list_subdirs(const struct sbx_ctx *ctx, struct list_dirs *l, const char *dir,
			const char *sub, struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	char *list = NULL;
	int r = sub ? sbx_path_join_any(dir, sub, &list) : (list = strdup(dir)) ? 0 : -ENOMEM;

	if (r)
		return r;
	l->parent = list;
	l->err = 0;
	r = v->list(v->self, list, push_subdir, l);
	if (l->err)
		r = l->err;
	else if (r == -ENOENT || r == -ENOTDIR)
		r = 0;
	else if (r && r != -ENOMEM && d) {
		sbx_diag_set(d, r < 0 ? r : -EACCES, "cannot list %s: %s", list,
			     strerror(r < 0 ? -r : EACCES));
		r = r < 0 ? r : -EACCES;
	}
	free(list);
	return r;
}

/*
 * The directories whose hooks and config git runs, for the git directory gitdir of a writable
 * root: gitdir itself, the common directory it names (a worktree's), and each submodule's
 * (<dir>/modules/NAME, and the nested ones in its own modules/). A submodule's name may have a
 * slash (git names one by its path), so a directory under modules/ that is no git directory to
 * git (sbx_git_is_gitdir) is searched for them in turn, and so is a submodule's git directory
 * but for git's own subdirectories: the command may have made the directory around a nested one
 * a git directory. A failed look-up or listing is an error.
 */
static int git_dirs(const struct sbx_ctx *ctx, const char *gitdir, struct sbx_strv *out,
		    struct sbx_diag *d)
{
	size_t *worktrees = NULL, n_worktrees = 0, next_worktree = 0, first = out->n, roots;
	char *common = NULL;
	int r = sbx_strv_push(out, gitdir);

	if (!r)
		r = git_commondir(ctx, gitdir, &common, d);
	if (!r && common)
		r = sbx_strv_push_owned(out, common);
	common = NULL;
	roots = out->n;
	for (size_t i = first; !r && i < out->n; i++) {
		struct list_dirs l = {.gitdir = gitdir, .out = out, .first = first, .d = d};
		/* Worktrees' git directories are met in the order they were listed (at their index). */
		bool git = true,
		     worktree = next_worktree < n_worktrees && worktrees[next_worktree] == i;
		size_t n;

		next_worktree += worktree;
		/*
		 * A linked worktree's git directory names its common directory, where git takes
		 * hooks and config for that worktree: wherever it lies, it is one of these. It
		 * holds no submodules' git directories (git keeps them in the common one), and
		 * lies in a git directory read-only whole: nothing more is looked for in it.
		 */
		if (worktree) {
			r = git_commondir(ctx, out->v[i], &common, d);
			/* Mostly the git directory it was found in, first of all: asked first. */
			if (!r && common && strcmp(common, out->v[first]) &&
			    !sbx_strv_has(out, common))
				r = sbx_strv_push_owned(out, common);
			else
				free(common);
			common = NULL;
			continue;
		}
		if (i >= roots)
			r = sbx_git_is_gitdir(ctx, out->v[i], &git, d);
		if (!r && git)
			r = list_subdirs(ctx, &l, out->v[i], "modules", d);
		/* Worktrees' git directories, for what git reads there (git_reads). */
		n = out->n;
		if (!r && git)
			r = list_subdirs(ctx, &l, out->v[i], "worktrees", d);
		if (!r && out->n > n) {
			size_t *more =
				realloc(worktrees, (n_worktrees + out->n - n) * sizeof(*more));

			if (!more)
				r = -ENOMEM;
			else
				worktrees = more;
		}
		for (; !r && n < out->n; n++)
			worktrees[n_worktrees++] = n;
		l.skip_own = git;
		if (!r && i >= roots)
			r = list_subdirs(ctx, &l, out->v[i], NULL, d);
	}
	free(worktrees);
	return r;
}

/*
 * A .git file's target that is no directory (missing, a file, a link) is no git directory to
 * git. Inside a writable root the command could make it one of its own (a config that runs a
 * command), which the next git, outside the sandbox, would take: it is denied (deny), so that
 * nothing can be created there and anything there stays as it is (a link is refused). An entry
 * naming the path decides instead, as a deny above it or the lack of a writable root leaves it
 * to the rest of the profile.
 */
static int keep_gitdir_target(const struct pmap *m, const char *target, struct sbx_strv *deny)
{
	const struct pslot *s;

	if (sbx_pmap_find(m, target, strlen(target)) || sbx_strv_has(deny, target))
		return 0;
	s = sbx_pmap_decider(m, target);
	if (!s || s->access == SBX_DENY || s->wr < 0)
		return 0;
	return sbx_strv_push(deny, target);
}

/*
 * Does the look-up in cross a symbolic link that lies in a writable root, other than one inside
 * the git directories in git[0..n) (read-only there)? The first such is copied to one.
 */
static bool crosses_writable_link(const struct pmap *m, const struct sbx_pathinfo *in,
				  const struct sbx_strv *git, size_t n, char one[SBX_MAX_PATH])
{
	size_t len;

	for (const char *l = in->link; *l; l += len + !!l[len]) {
		const struct pslot *s;
		bool kept = false;

		len = sbx_link_len(l);
		snprintf(one, SBX_MAX_PATH, "%.*s", (int)len, l);
		if (len >= SBX_MAX_PATH)
			return true;
		for (size_t k = 0; !kept && k < n; k++)
			kept = sbx_path_covers_any(git->v[k], one) && strcmp(git->v[k], one);
		s = kept ? NULL : sbx_pmap_decider(m, one);
		if (s && s->access != SBX_DENY && s->wr >= 0)
			return true;
	}
	return false;
}

/*
 * The name of real, a resolved path, as the roots are enforced by their names (*out, to free):
 * by the name of the writable root it lies in, which may be named through a link of its own
 * (~/proj -> /data/proj); real itself when none holds it.
 */
static int root_name(const struct sbx_ctx *ctx, const struct pmap *m, const struct sbx_roots *roots,
		     const char *real, char **out, struct sbx_diag *d)
{
	const struct pslot *s = sbx_pmap_decider(m, real);
	struct sbx_pathinfo in;
	int r = 0;

	*out = NULL;
	if (s && s->access != SBX_DENY && s->wr >= 0)
		return (*out = strdup(real)) ? 0 : -ENOMEM;
	for (size_t i = 0; i < roots->n_writable; i++) {
		size_t n;

		if ((r = sbx_ctx_lookup(ctx, roots->writable[i].root, &in, d)))
			return r;
		n = strlen(in.real);
		if (!in.exists || !n || !sbx_path_covers_any(in.real, real) ||
		    !strcmp(in.real, roots->writable[i].root))
			continue;
		return sbx_path_join_any(roots->writable[i].root, real[n] ? real + n + 1 : ".",
					 out);
	}
	return (*out = strdup(real)) ? 0 : -ENOMEM;
}

/* Keeps real, where a link git follows leads (resolved), read-only, by its root_name(). */
static int keep_target(const struct sbx_ctx *ctx, const struct pmap *m,
		       const struct sbx_roots *roots, const char *real, struct sbx_strv *keep,
		       struct sbx_diag *d)
{
	char *named = NULL;
	int r = root_name(ctx, m, roots, real, &named, d);

	if (!r)
		r = sbx_strv_add_unique(keep, named);
	free(named);
	return r;
}

/* The names git reads in a git directory that may lead elsewhere: their index is a bit. */
static const char *const reads[] = {"hooks", "config", "config.worktree", "commondir", "gitdir"};

struct read_links {
	unsigned *links;
};

static int read_link(void *arg, const char *name, enum sbx_ftype type)
{
	struct read_links *l = arg;

	for (size_t i = 0; type == SBX_FT_LINK && i < sizeof(reads) / sizeof(reads[0]); i++)
		if (!strcmp(name, reads[i]))
			*l->links |= 1u << i;
	return 0;
}

/*
 * Which of the names git reads (reads[]) are symbolic links in the git directory dir, as bits
 * of *links: one listing, where a look-up each would cost more. A directory that cannot be
 * listed is an error.
 */
static int read_links(const struct sbx_ctx *ctx, const char *dir, unsigned *links,
		      struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	struct read_links l = {.links = links};
	int r;

	*links = 0;
	r = v->list(v->self, dir, read_link, &l);
	if (r == -ENOENT || r == -ENOTDIR)
		return 0;
	if (r && r != -ENOMEM && d) {
		sbx_diag_set(d, r < 0 ? r : -EACCES, "cannot list %s: %s", dir,
			     strerror(r < 0 ? -r : EACCES));
		r = r < 0 ? r : -EACCES;
	}
	return r;
}

/* Git's include depth (config.c, MAX_INCLUDE_DEPTH): past it git refuses to run. */
#define GIT_INCLUDE_DEPTH 10

/*
 * The file p that the config from includes: kept read-only where it really is (and added to
 * configs, whose includes git reads in turn, by the real path of its directory, which git goes
 * up from on a ".."), denied when missing at the real path of its directory, refused when
 * reached through a link in a writable root, or when missing through a link to nothing (the
 * command could make where it leads). Each real path is named from the writable root that
 * holds it (root_name), as the roots are enforced by their names.
 */
static int keep_include(const struct sbx_ctx *ctx, const struct pmap *m,
			const struct sbx_roots *roots, const struct sbx_strv *git, bool git_mode,
			const char *from, const char *p, struct sbx_strv *keep,
			struct sbx_strv *deny, struct sbx_strv *configs, struct sbx_diag *d)
{
	struct sbx_pathinfo in, up;
	char one[SBX_MAX_PATH], *dir = NULL, *named = NULL, *at = NULL;
	size_t plen = strlen(p), dlen = sbx_path_parent_len(p, plen);
	int r = sbx_ctx_lookup(ctx, p, &in, d);

	if (r)
		return r;
	/* Git mode's git directories are writable: a link in one is the command's. */
	if (crosses_writable_link(m, &in, git, git_mode ? 0 : git->n, one)) {
		if (strcmp(one, p))
			sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				     "%s includes %s, through the symbolic link %s inside a "
				     "writable root: the command could repoint it at a config of "
				     "its own",
				     from, p, one);
		else
			sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				     "%s includes %s, a symbolic link inside a writable root: the "
				     "command could repoint it at a config of its own",
				     from, p);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "include the file it leads to (git config include.path), or "
				     "put that file there instead of the link");
	}
	/* The directory as the kernel resolves it, links outside the writable roots followed. */
	if (!dlen || dlen >= plen) {
		sbx_pathinfo_clear(&up);
	} else {
		if (!(dir = strndup(p, dlen)))
			return -ENOMEM;
		r = sbx_ctx_lookup(ctx, dir, &up, d);
		free(dir);
		if (r)
			return r;
	}
	/*
	 * Missing through a link to nothing there is, on the way or at its own name: where it
	 * would be made is wherever the command makes that lead.
	 */
	if (!in.exists && ((!up.exists && up.link[0]) || (up.exists && strcmp(in.link, up.link)))) {
		if (up.exists)
			snprintf(one, SBX_MAX_PATH, "%s", p);
		else
			snprintf(one, sizeof(one), "%.*s", (int)sbx_link_len(up.link), up.link);
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s includes %s, which is missing, through the symbolic link %s to "
			     "nothing there is: the command could make what it leads to, and the "
			     "file in it",
			     from, p, one);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "make the directory it leads to, or remove the include (git "
				     "config --unset include.path)");
	}
	if (!up.exists && !in.exists)
		return keep_gitdir_target(m, p, deny); /* no link on the way: p is where it is */
	/* p a root: there is no directory to go up from. */
	if (!up.exists)
		return keep_target(ctx, m, roots, in.real, keep, d);
	r = sbx_path_join_any(up.real, p + dlen + !!sbx_path_is_sep(p[dlen]), &at);
	if (!r && in.exists)
		r = keep_target(ctx, m, roots, in.real, keep, d);
	else if (!r)
		r = root_name(ctx, m, roots, at, &named, d);
	if (!r && !in.exists)
		r = keep_gitdir_target(m, named, deny);
	if (!r && in.exists && in.type == SBX_FT_REG)
		r = sbx_strv_add_unique(configs, at);
	free(named);
	free(at);
	return r;
}

/*
 * The files the configs in *configs include (include.path, includeIf), and those they include,
 * down to git's depth, kept read-only (keep_include); *configs is taken (emptied). Bounded:
 * SBX_MAX_GIT_DIRS files included in all, past the configs given.
 */
static int follow_includes(const struct sbx_ctx *ctx, const struct pmap *m,
			   const struct sbx_roots *roots, const struct sbx_strv *git, bool git_mode,
			   struct sbx_strv *configs, struct sbx_strv *keep, struct sbx_strv *deny,
			   struct sbx_diag *d)
{
	struct sbx_strv next = {0}, seen = {0};
	size_t base;
	int r = 0;

	base = configs->n; /* the git directories' own, which the cap does not count */
	for (int depth = 0; !r && depth <= GIT_INCLUDE_DEPTH && configs->n; depth++) {
		struct sbx_strv these = *configs;

		*configs = (struct sbx_strv){0};
		for (size_t k = 0; !r && k < these.n; k++) {
			const char *from = these.v[k];

			/*
			 * The git directories' own configs are as many names as there are git
			 * directories (two each): looked for only among the files included.
			 */
			if (depth && sbx_strv_has(&seen, from))
				continue;
			if (seen.n >= base + SBX_MAX_GIT_DIRS) {
				sbx_diag_set(d, SBX_E_TOO_BIG,
					     "git's config files include more than %d files (%s is "
					     "one too many), each of which sbxrun keeps read-only",
					     SBX_MAX_GIT_DIRS, from);
				r = sbx_diag_hint(d, SBX_E_TOO_BIG,
						  "include fewer files (include.path, includeIf)");
				break;
			}
			r = sbx_strv_push(&seen, from);
			if (!r)
				r = sbx_git_config_includes(ctx, from, &next, d);
			for (size_t i = 0; !r && i < next.n; i++)
				r = keep_include(ctx, m, roots, git, git_mode, from, next.v[i],
						 keep, deny, configs, d);
			sbx_strv_clear(&next);
		}
		sbx_strv_clear(&these);
	}
	sbx_strv_clear(&next);
	sbx_strv_clear(&seen);
	return r;
}

/*
 * How deep the directories links lead to are walked for files with other names, in all: a
 * directory in one, and one a link there leads to, each count (an earlier run may have made a
 * chain of links, each to the next directory, and the walk recurses).
 */
#define LINKED_TREE_DEPTH 64u

/*
 * Does real, a resolved path, lie in a writable root (as root_name finds it)? By its path, or by
 * identity: real or a directory above it is a writable root under another name (a bind mount of
 * the work tree elsewhere), which a comparison of paths calls outside. Each root looked up once.
 */
static int target_in_writable(const struct sbx_ctx *ctx, const struct pmap *m,
			      const struct sbx_roots *roots, const char *real, bool *in,
			      struct sbx_diag *d)
{
	const struct pslot *s = sbx_pmap_decider(m, real);
	struct sbx_pathinfo *ri;
	struct {
		unsigned long long dev, ino;
	} * id;
	size_t nid = 0, n = strlen(real);
	char *q;
	int r = 0;

	*in = s && s->access != SBX_DENY && s->wr >= 0;
	if (*in || !n || n >= SBX_MAX_PATH)
		return 0;
	ri = malloc(sizeof(*ri));
	id = malloc((roots->n_writable + 1) * sizeof(*id));
	q = malloc(n + 1);
	if (!ri || !id || !q) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; !*in && i < roots->n_writable; i++) {
		if ((r = sbx_ctx_lookup(ctx, roots->writable[i].root, ri, d)))
			goto out;
		if (!ri->exists || !ri->real[0])
			continue;
		*in = sbx_path_covers_any(ri->real, real);
		id[nid].dev = ri->dev;
		id[nid++].ino = ri->ino;
	}
	memcpy(q, real, n + 1);
	while (!*in) {
		if ((r = sbx_ctx_lookup(ctx, q, ri, d)))
			break;
		for (size_t i = 0; ri->exists && !*in && i < nid; i++)
			*in = id[i].dev == ri->dev && id[i].ino == ri->ino;
		if (n <= 1 || !(n = sbx_path_parent_len(q, n)))
			break;
		q[n] = '\0';
	}
out:
	free(ri);
	free(id);
	free(q);
	return r;
}

/*
 * The walk of the directories links lead to, from the links git or an agent follows: links in
 * them are followed in turn (a hook manager's pre-commit.d/ linked to scripts/hooks.d/, whose
 * entries link to scripts of the work tree). One for all the links of a step (git's reads, an
 * agent directory), so that each directory is walked once and the bound on entries holds in all:
 * an earlier run that plants many links to one large directory does not have it walked for each.
 */
struct linked_tree {
	const struct sbx_ctx *ctx;
	const struct pmap *m;
	const struct sbx_roots *roots;
	const char *top; /* the directory walked, as the refusals name it */
	const char *who;
	struct sbx_strv *keep;
	struct sbx_strv visited; /* the directories walked, resolved */
	size_t seen, links;	 /* entries listed, and links followed, in all */
	unsigned depth;		 /* directories open in the walk now, through links too */
	struct sbx_diag *d;
	/*
	 * Walking hooks/ (a link there to nothing is refused only where the command could make
	 * what it leads to), and the hooks that lead to nothing it cannot make: pairs of the link
	 * and where it leads, for explain (sbx_roots.hook_dangling).
	 */
	bool hooks;
	struct sbx_strv *dangling;
};

static int keep_link_in(struct linked_tree *t, const struct sbx_strv *git, size_t ndirs,
			const char *p);

struct tree_list {
	struct sbx_strv files, dirs, links;
	size_t *seen;
	bool many;
};

static int tree_entry(void *arg, const char *name, enum sbx_ftype type)
{
	struct tree_list *l = arg;

	if (type != SBX_FT_REG && type != SBX_FT_DIR && type != SBX_FT_LINK)
		return 0;
	if (++*l->seen > SBX_MAX_GLOB_MATCHES) {
		l->many = true;
		return 0;
	}
	return sbx_strv_push(type == SBX_FT_REG	  ? &l->files
			     : type == SBX_FT_DIR ? &l->dirs
						  : &l->links,
			     name);
}

/*
 * The directory dir of a tree a link git or an agent follows leads to (kept read-only whole,
 * in a writable root): a regular file there with another name is one the command rewrites
 * through that name, where an earlier run (before the link was made) could have given it one,
 * and git or the agent runs it later. Refused, as the kept trees' walk of enforce.c refuses a
 * hook with another name. Names are looked at without following links; bounded as that walk.
 * A link in it is kept where it leads as the one that led here (keep_link_in).
 */
static int linked_tree(struct linked_tree *t, const char *dir)
{
	const struct sbx_fsview *v = sbx_ctx_fs(t->ctx);
	struct tree_list l = {.seen = &t->seen};
	int r;

	if (t->depth >= LINKED_TREE_DEPTH) {
		sbx_diag_set(t->d, SBX_E_UNENFORCEABLE,
			     "cannot enforce sandbox read-only path %s: it is more than %u levels "
			     "deep, through its directories and links, to check for hard links",
			     t->top, LINKED_TREE_DEPTH);
		return sbx_diag_hint(t->d, SBX_E_UNENFORCEABLE, "flatten it");
	}
	t->depth++;
	r = v->list(v->self, dir, tree_entry, &l);
	if (r == -ENOENT || r == -ENOTDIR || r == SBX_FS_CLOSED)
		r = 0;
	if (r < 0 && r != -ENOMEM) {
		sbx_diag_set(
			t->d, SBX_E_UNENFORCEABLE,
			"cannot enforce sandbox read-only path %s: cannot list %s to check for "
			"hard links: %s",
			t->top, dir, strerror(-r));
		r = sbx_diag_hint(t->d, SBX_E_UNENFORCEABLE, "make it listable, or remove it");
	}
	if (!r && l.many) {
		sbx_diag_set(t->d, SBX_E_UNENFORCEABLE,
			     "cannot enforce sandbox read-only path %s: it and the other "
			     "directories links lead to hold more than %d entries to check for "
			     "hard links",
			     t->top, SBX_MAX_GLOB_MATCHES);
		r = sbx_diag_hint(t->d, SBX_E_UNENFORCEABLE,
				  "empty it, or remove what it need not hold");
	}
	/* Each link followed is a read-only mount of where it leads: as many as hooks/ may hold. */
	if (!r && (t->links += l.links.n) > SBX_MAX_GIT_DIRS) {
		sbx_diag_set(t->d, SBX_E_UNENFORCEABLE,
			     "cannot enforce sandbox read-only path %s: it and the other "
			     "directories links lead to hold more than %u symbolic links to keep "
			     "read-only where they lead",
			     t->top, SBX_MAX_GIT_DIRS);
		r = sbx_diag_hint(t->d, SBX_E_UNENFORCEABLE,
				  "remove the links git and the agents do not follow");
	}
	for (size_t i = 0; !r && i < l.links.n; i++) {
		/* The directory read-only (kept whole): its links are not the command's to repoint. */
		char *kept[1] = {(char *)t->top}, *p = NULL;
		const struct sbx_strv here = {.v = kept, .n = 1, .cap = 1};
		const char *top = t->top;

		r = sbx_path_join_any(dir, l.links.v[i], &p);
		if (!r)
			r = keep_link_in(t, &here, 1, p);
		t->top = top;
		free(p);
	}
	/* On the heap: the walk recurses up to LINKED_TREE_DEPTH levels, on any stack's limit. */
	struct sbx_pathinfo *in = l.files.n ? malloc(sizeof(*in)) : NULL;

	if (!r && l.files.n && !in)
		r = -ENOMEM;
	for (size_t i = 0; !r && i < l.files.n + l.dirs.n; i++) {
		bool file = i < l.files.n;
		char *p = NULL;

		r = sbx_path_join_any(dir, file ? l.files.v[i] : l.dirs.v[i - l.files.n], &p);
		if (!r && !file)
			r = linked_tree(t, p);
		else if (!r)
			r = sbx_ctx_lookup(t->ctx, p, in, t->d);
		if (!r && file && in->exists && in->type == SBX_FT_REG && in->linked) {
			sbx_diag_set(
				t->d, SBX_E_UNENFORCEABLE,
				"cannot enforce sandbox read-only path %s because %s inside it has "
				"other names (hard links): the command could rewrite it through "
				"one of them",
				t->top, p);
			r = sbx_diag_hint(t->d, SBX_E_UNENFORCEABLE,
					  "give it a name of its own (cp -p %s %s.new && mv %s.new "
					  "%s), and check what it says",
					  p, p, p, p);
		}
		free(p);
	}
	free(in);
	sbx_strv_clear(&l.files);
	sbx_strv_clear(&l.dirs);
	sbx_strv_clear(&l.links);
	t->depth--;
	return r;
}

/* q, then the names in rest (the link's text left), one "/" between each: *where, to free. */
static int spell_where(const char *q, const char *rest, char **where)
{
	size_t n = strlen(q);
	char *w = malloc(n + strlen(rest) + 1);

	*where = w;
	if (!w)
		return -ENOMEM;
	memcpy(w, q, n);
	for (; *rest; rest++)
		if (*rest != '/' || (rest[1] && rest[1] != '/'))
			w[n++] = *rest;
	w[n] = '\0';
	return 0;
}

/*
 * p, a link git follows to run a hook, leads to nothing there is. What the command made where
 * it leads would be git's to run, and where it leads is the link's text, read here (the view's
 * readlink), then each name of it looked up from the directory resolved so far: a link there
 * to nothing read in turn (bounded as the kernel's own look-up), a link to something followed.
 * The first name missing is where the command would have to make something, in the directory
 * before it: *open is whether that directory, or any other a name was looked up in on the way,
 * lies in a writable root (there the command can replace the name: a directory swapped for a
 * link sends a later ".." where it likes), true too when it cannot be told (no readlink in the
 * view, a name found now that was missing, too many links), and *where (to free) the path that
 * would be made, as the refusal and explain name it.
 */
static int dangling_target(struct linked_tree *t, const char *p, bool *open, char **where)
{
	const struct sbx_fsview *v = sbx_ctx_fs(t->ctx);
	struct {
		char link[SBX_MAX_PATH], dir[SBX_MAX_PATH], text[SBX_MAX_PATH], q[SBX_MAX_PATH];
		char todo[2 * SBX_MAX_PATH + 2];
		struct sbx_pathinfo in;
	} *f = NULL;
	size_t pos = 0;
	bool more = true;
	int r = 0, n;

	*open = true;
	*where = NULL;
	if (!v->readlink || strlen(p) >= SBX_MAX_PATH)
		return 0;
	if (!(f = malloc(sizeof(*f))))
		return -ENOMEM;
	strcpy(f->link, p);
	f->todo[0] = '\0';
	for (unsigned hops = 0; !r && more && hops < SBX_MAX_LINK_HOPS; hops++) {
		size_t plen = strlen(f->link), dlen = sbx_path_parent_len(f->link, plen), rest;

		more = false;
		if (!dlen || dlen >= plen)
			break;
		n = v->readlink(v->self, f->link, f->text, sizeof(f->text));
		if (n == -EINVAL || n == -ENAMETOOLONG)
			break; /* swapped for something else meanwhile, or longer than a path */
		if (n < 0) {
			sbx_diag_set(t->d, n, "cannot read the symbolic link %s: %s", f->link,
				     strerror(-n));
			r = n;
			break;
		}
		/* The directory the link lies in, resolved (its own last name is the link). */
		if (f->text[0] == '/') {
			strcpy(f->dir, "/");
		} else {
			snprintf(f->q, sizeof(f->q), "%.*s", (int)dlen, f->link);
			if ((r = sbx_ctx_lookup(t->ctx, f->q, &f->in, t->d)) || !f->in.exists)
				break;
			snprintf(f->dir, sizeof(f->dir), "%s", f->in.real);
		}
		/* The link's text, then what was left after it. */
		rest = strlen(f->todo + pos);
		if ((size_t)n + 1 + rest >= sizeof(f->todo))
			break;
		memmove(f->todo + n + 1, f->todo + pos, rest + 1);
		memcpy(f->todo, f->text, (size_t)n);
		f->todo[n] = '/';
		pos = 0;
		while (!r) {
			size_t k, dl = strlen(f->dir), up;
			const char *name;

			while (f->todo[pos] == '/')
				pos++;
			if (!f->todo[pos])
				break; /* all there now: made meanwhile */
			name = f->todo + pos;
			k = strcspn(name, "/");
			pos += k;
			if (k == 1 && name[0] == '.')
				continue;
			if (k == 2 && name[0] == '.' && name[1] == '.') {
				up = sbx_path_parent_len(f->dir, dl);
				f->dir[up ? up : 1] = '\0';
				continue;
			}
			if (snprintf(f->q, sizeof(f->q), "%s%s%.*s", f->dir, dl > 1 ? "/" : "",
				     (int)k, name) >= (int)sizeof(f->q))
				break;
			/*
			 * A name in a writable root is the command's to replace (a directory
			 * swapped for a link turns a later ".." anywhere): what follows is its.
			 */
			if ((r = target_in_writable(t->ctx, t->m, t->roots, f->dir, open, t->d)))
				break;
			if (*open) {
				r = spell_where(f->q, f->todo + pos, where);
				free(f);
				return r;
			}
			if ((r = sbx_ctx_lookup(t->ctx, f->q, &f->in, t->d)))
				break;
			if (f->in.exists) {
				snprintf(f->dir, sizeof(f->dir), "%s", f->in.real);
				continue;
			}
			/* f->dir has no link on it: a link met is the last name's own, read next. */
			if (f->in.is_link) {
				strcpy(f->link, f->q);
				more = true;
				break;
			}
			/* The first name missing: made, if at all, in f->dir. */
			r = target_in_writable(t->ctx, t->m, t->roots, f->dir, open, t->d);
			if (!r)
				r = spell_where(f->q, f->todo + pos, where);
			free(f);
			return r;
		}
	}
	*open = true;
	free(f);
	return r;
}

/* keep_link_in's work, once p is looked up (in); one is room for a name. */
static int keep_link_found(struct linked_tree *t, const struct sbx_strv *git, size_t ndirs,
			   const char *p, char one[SBX_MAX_PATH], const struct sbx_pathinfo *in)
{
	const struct sbx_ctx *ctx = t->ctx;
	const struct pmap *m = t->m;
	const char *who = t->who;
	struct sbx_diag *d = t->d;
	int r = 0;

	if (!in->is_link || crosses_writable_link(m, in, git, ndirs, one)) {
		/* Not a link now, when it was listed as one: swapped meanwhile. */
		if (!in->is_link)
			snprintf(one, SBX_MAX_PATH, "%s", p);
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s is a symbolic link that %s follows through %s, inside a writable "
			     "root: the command could repoint it",
			     p, who, one);
		return sbx_diag_hint(
			d, SBX_E_UNENFORCEABLE,
			"put the file or directory it leads to there instead of the link");
	}
	if (!in->exists && t->hooks) {
		/*
		 * A hook git would run once something is made where it leads: refused only where
		 * the command can make it; else explain names it (sbx_roots.hook_dangling).
		 */
		bool open = true;
		char *where = NULL;

		r = dangling_target(t, p, &open, &where);
		if (!r && !open)
			r = sbx_strv_push(t->dangling, p);
		if (!r && !open)
			r = sbx_strv_push(t->dangling, where);
		if (!r && open && where) {
			sbx_diag_set(
				d, SBX_E_UNENFORCEABLE,
				"%s is a symbolic link to nothing there is: %s would take what "
				"the command makes where it leads, %s, in a writable root",
				p, who, where);
			r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
					  "make what it leads to, or remove the link");
		}
		free(where);
		if (r || !open)
			return r;
	}
	if (!in->exists) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s is a symbolic link to nothing there is: %s would take what the "
			     "command makes where it leads",
			     p, who);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "make what it leads to, or remove the link");
	}
	/*
	 * A directory, kept whole: its files run too (a hooks/ linked to one, pre-commit.d/), and
	 * what its links lead to. Each walked once: a link may lead back up.
	 */
	if (in->type == SBX_FT_DIR && !sbx_strv_has(&t->visited, in->real)) {
		bool inside = false;

		r = sbx_strv_push(&t->visited, in->real);
		if (!r)
			r = target_in_writable(ctx, m, t->roots, in->real, &inside, d);
		if (!r && inside) {
			t->top = t->visited.v[t->visited.n - 1];
			r = linked_tree(t, t->top);
		}
		if (r)
			return r;
	}
	return keep_target(ctx, m, t->roots, in->real, t->keep, d);
}

/*
 * p, a symbolic link git follows in a git directory (read-only: the link stays as it is), keeps
 * what it leads to read-only too, resolved once here. Refused when the way there crosses
 * another link inside a writable root (the command could repoint it), or leads to nothing (the
 * command could make it).
 */
static int keep_link_in(struct linked_tree *t, const struct sbx_strv *git, size_t ndirs,
			const char *p)
{
	/* On the heap: the walk recurses through here, up to LINKED_TREE_DEPTH levels. */
	struct {
		char one[SBX_MAX_PATH];
		struct sbx_pathinfo in;
	} *f = malloc(sizeof(*f));
	int r = f ? sbx_ctx_lookup(t->ctx, p, &f->in, t->d) : -ENOMEM;

	if (!r)
		r = keep_link_found(t, git, ndirs, p, f->one, &f->in);
	free(f);
	return r;
}

/*
 * p, a symbolic link who follows in a git directory (read-only: the link stays as it is), keeps
 * what it leads to read-only too (keep_link_in), the links of a directory it leads to with it;
 * t is the walk of the step's links (linked_tree), its directories walked once.
 */
static int keep_link(struct linked_tree *t, const struct sbx_strv *git, size_t ndirs, const char *p,
		     const char *who)
{
	t->who = who;
	return keep_link_in(t, git, ndirs, p);
}

/*
 * Lists dir, at depth (1: the top) of a walk for symbolic links bounded at max levels, through
 * fn(arg); top names the walk in a refusal. A directory gone or closed holds nothing to keep.
 */
static int list_for_links(const struct sbx_ctx *ctx, const char *dir, unsigned depth, unsigned max,
			  const char *top, sbx_fs_list_fn fn, void *arg, struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	int r;

	if (depth > max) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s is more than %u levels deep to look for symbolic links", top, max);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE, "flatten it");
	}
	r = v->list(v->self, dir, fn, arg);
	if (r == -ENOENT || r == -ENOTDIR || r == SBX_FS_CLOSED)
		r = 0;
	if (r < 0 && r != -ENOMEM)
		sbx_diag_set(d, r, "cannot list %s: %s", dir, strerror(-r));
	return r;
}

/* How deep directories under hooks/ are walked for links (a hook manager nests one or two). */
#define HOOK_MAX_DEPTH 16u

/*
 * The links and the directories one directory of hooks/ holds, but the examples git never runs
 * (*.sample, at the top of hooks/: git init lays them there).
 */
struct hook_list {
	struct sbx_strv links, dirs;
	size_t *seen;
	bool top, many;
};

static int hook_entry(void *arg, const char *name, enum sbx_ftype type)
{
	struct hook_list *l = arg;
	size_t n = strlen(name);

	if ((type != SBX_FT_LINK && type != SBX_FT_DIR) ||
	    (l->top && n > 7 && !strcmp(name + n - 7, ".sample")))
		return 0;
	if (++*l->seen > SBX_MAX_GIT_DIRS) {
		l->many = true;
		return 0;
	}
	return sbx_strv_push(type == SBX_FT_LINK ? &l->links : &l->dirs, name);
}

struct hook_walk {
	const struct sbx_ctx *ctx;
	const struct pmap *m;
	const struct sbx_roots *roots;
	const struct sbx_strv *kept; /* the git directories, and where a link at hooks/ leads */
	const char *top;	     /* hooks/, as the refusals name it */
	struct sbx_strv *keep;
	struct sbx_diag *d;
	struct linked_tree *linked; /* the walk of where its links lead */
	size_t seen;
};

/*
 * The links of the directory dir of hooks/ (depth 1: hooks/ itself), and of the directories in
 * it: a hook manager's hooks/pre-commit runs what hooks/pre-commit.d/ holds, as git runs
 * hooks/pre-commit, so a link there leads to what the caller's next git commit runs.
 */
static int hook_dir(struct hook_walk *w, const char *dir, unsigned depth)
{
	struct hook_list l = {.seen = &w->seen, .top = depth == 1};
	int r = list_for_links(w->ctx, dir, depth, HOOK_MAX_DEPTH, w->top, hook_entry, &l, w->d);

	if (!r && l.many) {
		sbx_diag_set(w->d, SBX_E_UNENFORCEABLE,
			     "%s holds more than %u symbolic links and directories to keep "
			     "read-only where they lead",
			     w->top, SBX_MAX_GIT_DIRS);
		r = sbx_diag_hint(w->d, SBX_E_UNENFORCEABLE,
				  "remove the links and directories git does not run");
	}
	for (size_t i = 0; !r && i < l.links.n + l.dirs.n; i++) {
		bool link = i < l.links.n;
		char *p = NULL;

		r = sbx_path_join_any(dir, link ? l.links.v[i] : l.dirs.v[i - l.links.n], &p);
		if (!r)
			r = link ? keep_link(w->linked, w->kept, w->kept->n, p, "git")
				 : hook_dir(w, p, depth + 1);
		free(p);
	}
	sbx_strv_clear(&l.links);
	sbx_strv_clear(&l.dirs);
	return r;
}

/*
 * A hook that is a symbolic link (to a script of the repository, often): git runs what it
 * leads to, which an earlier run, to which a nested repository's hooks/ was writable, could
 * have linked into a writable root to rewrite it in a later run. What each leads to is kept
 * read-only as a link at a name git reads is (keep_link), and so is what a link in a directory
 * of hooks/ leads to (hook_dir); hooks/ as git takes it, through a link of its own (whose
 * target keep_link keeps).
 */
static int hook_links(struct linked_tree *t, const struct sbx_strv *git, size_t ndirs,
		      const char *dir)
{
	const struct sbx_ctx *ctx = t->ctx;
	struct sbx_diag *d = t->d;
	struct sbx_strv kept = {0};
	struct sbx_pathinfo in = {0};
	char *hooks = NULL;
	int r = sbx_path_join_any(dir, "hooks", &hooks);

	/*
	 * hooks/ through a link of its own leads to a directory kept read-only (keep_link): a
	 * link in it is the command's to repoint no more than one in the git directory.
	 */
	if (!r)
		r = sbx_ctx_lookup(ctx, hooks, &in, d);
	for (size_t k = 0; !r && k < ndirs; k++)
		r = sbx_strv_push(&kept, git->v[k]);
	/* Looked into where it leads, so that a hook's own link is the first its look-up meets. */
	if (!r && in.is_link && in.exists && in.type == SBX_FT_DIR) {
		r = sbx_strv_push(&kept, in.real);
		free(hooks);
		hooks = r ? NULL : strdup(in.real);
		r = r ? r : hooks ? 0 : -ENOMEM;
	}
	if (!r) {
		struct hook_walk w = {.ctx = ctx,
				      .m = t->m,
				      .roots = t->roots,
				      .kept = &kept,
				      .top = hooks,
				      .keep = t->keep,
				      .d = d,
				      .linked = t};

		t->hooks = true;
		r = hook_dir(&w, hooks, 1);
		t->hooks = false;
	}
	sbx_strv_clear(&kept);
	free(hooks);
	return r;
}

/* ---- the links of .codex and .agents ---------------------------------------------------- */

/* The tree of a kept .codex or .agents, walked for its links; bounded as the kept walk is. */
#define AGENT_MAX_DEPTH 64u

struct agent_walk {
	const struct sbx_ctx *ctx;
	const struct pmap *m;
	const struct sbx_roots *roots;
	const struct sbx_strv *top; /* the kept directory alone: its own links are read-only */
	struct sbx_strv *keep;
	struct sbx_diag *d;
	struct linked_tree linked; /* the walk of where its links lead */
	size_t seen;
	bool codex;
};

struct agent_list {
	struct sbx_strv links, dirs;
	size_t *seen;
	bool many;
};

static int agent_entry(void *arg, const char *name, enum sbx_ftype type)
{
	struct agent_list *l = arg;

	if (type != SBX_FT_LINK && type != SBX_FT_DIR)
		return 0;
	if (++*l->seen > SBX_MAX_GLOB_MATCHES) {
		l->many = true;
		return 0;
	}
	return sbx_strv_push(type == SBX_FT_LINK ? &l->links : &l->dirs, name);
}

/*
 * Codex's session records and log, at the top of a .codex: data it reads back, never a setting
 * or a program, and in a Codex home thousands of files (the kept walk passes them over too).
 */
static bool codex_data(const char *name)
{
	return !strcmp(name, "sessions") || !strcmp(name, "archived_sessions") ||
	       !strcmp(name, "log");
}

static int agent_dir(struct agent_walk *w, const char *dir, unsigned depth)
{
	struct agent_list l = {.seen = &w->seen};
	int r = list_for_links(w->ctx, dir, depth, AGENT_MAX_DEPTH, w->top->v[0], agent_entry, &l,
			       w->d);

	if (!r && l.many) {
		sbx_diag_set(w->d, SBX_E_UNENFORCEABLE,
			     "%s holds more than %u entries to look for symbolic links",
			     w->top->v[0], SBX_MAX_GLOB_MATCHES);
		r = sbx_diag_hint(w->d, SBX_E_UNENFORCEABLE,
				  "empty it, or remove what it need not hold");
	}
	for (size_t i = 0; !r && i < l.links.n + l.dirs.n; i++) {
		bool link = i < l.links.n;
		const char *name = link ? l.links.v[i] : l.dirs.v[i - l.links.n];
		char *p = NULL;

		if (!link && w->codex && depth == 1 && codex_data(name))
			continue;
		r = sbx_path_join_any(dir, name, &p);
		if (!r)
			r = link ? keep_link(&w->linked, w->top, 1, p, "an agent")
				 : agent_dir(w, p, depth + 1);
		free(p);
	}
	sbx_strv_clear(&l.links);
	sbx_strv_clear(&l.dirs);
	return r;
}

int sbx_roots_agent_links(const struct sbx_ctx *ctx, const struct pmap *m,
			  const struct sbx_roots *roots, const char *dir, struct sbx_strv *keep,
			  struct sbx_diag *d)
{
	const char *base = strrchr(dir, '/');
	char *v[1] = {(char *)dir};
	struct sbx_strv top = {.v = v, .n = 1, .cap = 1};
	struct agent_walk w = {
		.ctx = ctx,
		.m = m,
		.roots = roots,
		.top = &top,
		.keep = keep,
		.d = d,
		.linked = {.ctx = ctx, .m = m, .roots = roots, .keep = keep, .d = d}};
	int r;

	w.codex = base && !strcmp(base + 1, ".codex");
	r = agent_dir(&w, dir, 1);
	sbx_strv_clear(&w.linked.visited);
	return r;
}

/*
 * What git reads from the git directories in git (git_dirs' or gitmode.c's) that lies
 * elsewhere, appended to keep (read-only carve-outs) or deny (missing: not to be made).
 *  - Without git mode each git directory is read-only whole, but not where a symbolic link
 *    in it leads: at the names git reads (hooks, config, config.worktree, commondir, gitdir),
 *    the link's target is kept read-only too, resolved once here, which the plan keeps as it
 *    is (a link on the way there inside a writable root is refused: the command could repoint
 *    it). One that leads nowhere is refused: the command could make its target. (Git mode
 *    keeps those names themselves, and so refuses a link at one.)
 *  - The files each config includes (include.path, includeIf), and those they include, down
 *    to git's depth, are kept read-only; one missing is denied, so that the command cannot
 *    make it. One reached through a link in a writable root is refused.
 * Each git directory that is listed is a directory (a checkout's .git file among them reads as
 * none). Bounded: SBX_MAX_GIT_DIRS files included in all.
 */
static int git_reads(const struct sbx_ctx *ctx, const struct pmap *m, const struct sbx_roots *roots,
		     const struct sbx_strv *git, size_t ndirs, bool git_mode, struct sbx_strv *keep,
		     struct sbx_strv *deny, struct sbx_strv *dangling, struct sbx_diag *d)
{
	struct sbx_strv configs = {0};
	struct linked_tree t = {
		.ctx = ctx, .m = m, .roots = roots, .keep = keep, .d = d, .dangling = dangling};
	unsigned links = 0;
	int r = 0;

	for (size_t k = 0; !r && k < git->n; k++) {
		const char *slash = strrchr(git->v[k], '/');
		const char *name = slash ? slash + 1 : git->v[k];

		if (git_mode) {
			/*
			 * gitmode.c's list holds the files: the configs among them; and hooks/,
			 * kept read-only alone, whose links lead where the command writes.
			 */
			if (!strcmp(name, "config") || !strcmp(name, "config.worktree"))
				r = sbx_strv_add_unique(&configs, git->v[k]);
			if (!strcmp(name, "hooks") && slash) {
				char *dir = strndup(git->v[k], (size_t)(slash - git->v[k]));

				r = dir ? hook_links(&t, git, ndirs, dir) : -ENOMEM;
				free(dir);
			}
			continue;
		}
		if (k >= ndirs)
			break;
		r = read_links(ctx, git->v[k], &links, d);
		/* A config missing includes nothing (sbx_git_config_includes). */
		for (size_t i = 1; !r && i < 3; i++) {
			char *p = NULL;

			r = sbx_path_join_any(git->v[k], reads[i], &p);
			if (!r)
				r = sbx_strv_push_owned(&configs, p);
		}
		for (size_t i = 0; !r && i < sizeof(reads) / sizeof(reads[0]); i++) {
			char *p = NULL;

			if (!(links & (1u << i)))
				continue;
			r = sbx_path_join_any(git->v[k], reads[i], &p);
			t.hooks = !strcmp(reads[i], "hooks"); /* hooks/ itself, through a link */
			if (!r)
				r = keep_link(&t, git, ndirs, p, "git");
			t.hooks = false;
			free(p);
		}
		if (!r)
			r = hook_links(&t, git, ndirs, git->v[k]);
	}
	if (!r)
		r = follow_includes(ctx, m, roots, git, git_mode, &configs, keep, deny, d);
	sbx_strv_clear(&configs);
	sbx_strv_clear(&t.visited);
	if (r == -ENOMEM)
		sbx_diag_set(d, r, "out of memory");
	return r;
}

/* ---- the gitlinks of the index (gitindex.c) ---------------------------------------------- */

/*
 * The chunks an index is read in, on the stack: a 100,000-file checkout's index is 8.8 MB, read
 * in 135 system calls, where a heap block of its size would be a map, its pages' faults and an
 * unmap (tests/bench/README.md).
 */
#define GIT_INDEX_CHUNK (64u << 10)
/* Where the view reads no chunks, the most read whole (fakes for tests: small files). */
#define GIT_INDEX_WHOLE (16u << 20)

static int feed_index(void *arg, const char *chunk, size_t n)
{
	return sbx_gitindex_feed(arg, chunk, n);
}

/*
 * The index read through once with object names of hashsz bytes (gitindex.c): 0, or its
 * error (the reading's in x->err and x->why; the file's otherwise).
 */
static int read_index_as(const struct sbx_fsview *v, const char *file, char *buf, size_t hashsz,
			 struct sbx_gitindex *x, struct sbx_strv *links)
{
	char *whole = NULL;
	size_t got = 0;
	int r;

	sbx_gitindex_init(x, hashsz, SBX_MAX_GIT_DIRS, links);
	if (v->read_chunks) {
		r = v->read_chunks(v->self, file, buf, GIT_INDEX_CHUNK, feed_index, x);
	} else {
		r = (whole = malloc(GIT_INDEX_WHOLE)) ? 0 : -ENOMEM;
		if (!r)
			r = v->read_file(v->self, file, whole, GIT_INDEX_WHOLE, &got);
		if (!r && got == GIT_INDEX_WHOLE)
			r = -EFBIG;
		if (!r)
			sbx_gitindex_feed(x, whole, got);
		free(whole);
	}
	/*
	 * No index is none (a repository before its first git add); a failed read is the file's
	 * error, not the reading's (x->err cleared). A reading's own error ends it.
	 */
	if (r == -ENOENT || (r && r != x->err)) {
		sbx_gitindex_end(x);
		x->err = 0;
		return r == -ENOENT ? 0 : r;
	}
	return sbx_gitindex_end(x);
}

/*
 * The gitlinks of gitdir's index (its entries of mode 0160000, paths relative to the checkout),
 * appended to links. No index is none (a repository before its first git add); one that cannot
 * be read, or is malformed, or split, is refused in d: the checkouts git recurses into would
 * otherwise go unprotected. Read with the object names of the size the repository's config
 * names (the index does not say which), as git reads it: an index that reads one way with SHA-1
 * names and another with SHA-256 ones is the command's to write in git mode, and git reads it
 * the config's way. Only where git would read that config no way, both.
 */
static int index_gitlinks(const struct sbx_ctx *ctx, const char *gitdir, struct sbx_strv *links,
			  struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	struct sbx_gitindex x;
	char buf[GIT_INDEX_CHUNK], *file = NULL, *common = NULL;
	size_t hashsz[2] = {20, 32}, named = 0;
	int ways = 2;
	const char *why = "";
	int r = sbx_path_join_any(gitdir, "index", &file);

	/* A linked worktree's repository is its common directory's. */
	if (!r)
		r = git_commondir(ctx, gitdir, &common, d);
	if (!r)
		r = sbx_git_object_hash(ctx, common ? common : gitdir, &named, d);
	if (!r && named) {
		hashsz[0] = named;
		ways = 1;
	}
	free(common);
	r = r ? r : -EBADMSG;
	for (int i = 0; r == -EBADMSG && i < ways; i++) {
		size_t n0 = links->n;

		r = read_index_as(v, file, buf, hashsz[i], &x, links);
		if (!i || r != -EINVAL || x.err != -EINVAL)
			why = x.why;
		if (r == -EINVAL && x.err == -EINVAL)
			r = -EBADMSG; /* malformed as read: the other reading may hold */
		while (r && links->n > n0)
			free(links->v[--links->n]);
	}
	if (r == -EBADMSG) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s holds %s: sbxrun cannot tell which checkouts git recurses into "
			     "(gitlinks)",
			     file, why);
		r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				  "let git write it again (rm the index, then git reset)");
	} else if (r == -ENOTSUP) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s holds %s: sbxrun cannot tell which checkouts git recurses into "
			     "(gitlinks)",
			     file, why);
		r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				  "write it whole (git update-index --no-split-index)");
	} else if (r == -E2BIG) {
		sbx_diag_set(d, SBX_E_TOO_BIG,
			     "%s names more than %d gitlinks (submodule checkouts), each of whose "
			     "git directories sbxrun keeps read-only",
			     file, SBX_MAX_GIT_DIRS);
		r = sbx_diag_hint(d, SBX_E_TOO_BIG,
				  "remove the submodules no longer used (git rm)");
	} else if (r == -EINVAL) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s is no regular file: sbxrun cannot tell which checkouts git "
			     "recurses into (gitlinks), whose git directories it keeps read-only",
			     file);
		r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				  "remove it and let git make it again (git reset)");
	} else if (r && r != -ENOMEM) {
		sbx_diag_set(d, r,
			     "cannot read %s, which names the checkouts git recurses into "
			     "(gitlinks): %s",
			     file, strerror(-r));
		r = sbx_diag_hint(
			d, r,
			"sbxrun never takes an unreadable index for one without gitlinks: "
			"restore access to it (chmod u+r)");
	}
	free(file);
	return r;
}

/*
 * The walk over gitlinks: each git directory met with the checkout it serves, whose index names
 * the checkouts git recurses into. Bounded: SBX_MAX_GIT_DIRS pairs.
 */
struct linkwalk {
	const struct sbx_ctx *ctx;
	const struct pmap *m;
	bool git_mode;
	struct sbx_strv *gits, *missing, *gone, *files, *deny;
	struct sbx_strv gitdirs, checkouts; /* the queue, in step */
	struct sbx_diag *d;
};

static int link_enqueue(struct linkwalk *w, const char *gitdir, const char *checkout)
{
	int r;

	if (sbx_strv_has(&w->gitdirs, gitdir))
		return 0;
	if (w->gitdirs.n >= SBX_MAX_GIT_DIRS) {
		sbx_diag_set(w->d, SBX_E_TOO_BIG,
			     "more than %d git directories of checkouts git recurses into "
			     "(gitlinks) (%s is one too many)",
			     SBX_MAX_GIT_DIRS, gitdir);
		return sbx_diag_hint(w->d, SBX_E_TOO_BIG,
				     "remove the submodules no longer used (git rm)");
	}
	r = sbx_strv_push(&w->gitdirs, gitdir);
	if (!r && (r = sbx_strv_push(&w->checkouts, checkout)))
		free(w->gitdirs.v[--w->gitdirs.n]);
	return r;
}

/* The git directory dir that the gitlink checkout serves: protected as the root's, and walked. */
static int link_gitdir(struct linkwalk *w, const char *dir, const char *checkout)
{
	int r = 0;

	if (!sbx_strv_has(w->gits, dir))
		r = w->git_mode
			    ? sbx_git_mode_paths(w->ctx, dir, w->gits, w->missing, w->gone, w->d)
			    : git_dirs(w->ctx, dir, w->gits, w->d);
	return r ? r : link_enqueue(w, dir, checkout);
}

/*
 * The gitlink path (git's, "/"-separated) of the checkout checkout: what is at its .git is kept.
 *  - A directory is a git directory (an embedded repository: `git submodule add` of one already
 *    in the tree, or an older git's submodule), protected as the root's: hooks, config, its own
 *    modules/ and gitlinks.
 *  - Anything else there is kept read-only, and a pointer file's git directory protected: the
 *    command could otherwise put a directory of its own in its place.
 *  - Missing, the name is kept from being made: git status would take a git directory made
 *    there for the submodule's. An empty checkout directory is kept read-only whole; in one
 *    holding files the name is masked (a point, as a missing protected name); a missing
 *    checkout directory is denied.
 * Reached through a link that lies in a writable root, it is refused: the command could
 * repoint it.
 */
static int link_one(struct linkwalk *w, const char *checkout, const char *path)
{
	char *target[SBX_GIT_READINGS] = {NULL}, *rel = NULL, *sub = NULL, *dotgit = NULL;
	struct sbx_pathinfo in, tin[SBX_GIT_READINGS], up;
	struct sbx_strv none = {0};
	char one[SBX_MAX_PATH];
	const char *holds;
	bool point = false, pdir, empty = false;
	int r = (rel = strdup(path)) ? 0 : -ENOMEM;

	if (!r && sbx_path_is_windows_abs(checkout))
		for (char *c = rel; *c; c++)
			*c = *c == '/' ? '\\' : *c;
	if (!r)
		r = sbx_path_join_any(checkout, rel, &sub);
	if (!r)
		r = sbx_path_join_any(sub, ".git", &dotgit);
	if (!r)
		r = sbx_ctx_lookup(w->ctx, dotgit, &in, w->d);
	if (!r && crosses_writable_link(w->m, &in, &none, 0, one)) {
		sbx_diag_set(w->d, SBX_E_UNENFORCEABLE,
			     "%s, the .git of a checkout git recurses into (a gitlink), is reached "
			     "through the symbolic link %s inside a writable root: the command "
			     "could repoint it at a git directory of its own",
			     dotgit, one);
		r = sbx_diag_hint(w->d, SBX_E_UNENFORCEABLE,
				  "put the directory there instead of the link, or remove it");
	}
	if (!r && w->ctx->points && sbx_git_point(dotgit, &pdir, &holds))
		r = sbx_ctx_is_point(w->ctx, dotgit, &in, pdir, holds, &point, w->d);
	if (r)
		goto out;
	if (in.exists && !point && !in.is_link && in.type == SBX_FT_DIR) {
		r = link_gitdir(w, dotgit, sub);
	} else if ((in.exists || in.is_link) && !point) {
		r = sbx_strv_add_unique(w->git_mode ? w->gits : w->files, dotgit);
		/* Git reads a relative gitdir: from the directory of the .git file, the checkout's. */
		if (!r && in.exists && in.type == SBX_FT_REG)
			r = sbx_gitdir_targets(w->ctx, sub, dotgit, target, tin, w->d);
		for (int i = 0; !r && i < SBX_GIT_READINGS && target[i]; i++)
			r = tin[i].exists && tin[i].type == SBX_FT_DIR
				    ? link_gitdir(w, target[i], sub)
				    : keep_gitdir_target(w->m, target[i], w->deny);
	} else {
		r = sbx_ctx_lookup(w->ctx, sub, &up, w->d);
		if (!r && up.exists && !up.is_link && up.type == SBX_FT_DIR)
			r = sbx_git_list_empty(w->ctx, sub, &empty, w->d);
		/*
		 * An empty checkout directory (a clone without its submodules) is kept read-only
		 * whole: git takes it for a submodule not checked out, where an empty directory
		 * mounted at its .git is one git status dies on ("not recognized as a git
		 * repository"). One holding files keeps its .git from being made by a point
		 * there (sbx_git_keep_checkout); without one, the name is denied (a mask at the
		 * first missing name).
		 */
		if (!r && empty)
			r = sbx_strv_add_unique(w->files, sub);
		else if (!r && up.exists && !up.is_link && up.type == SBX_FT_DIR)
			r = sbx_strv_add_unique(w->missing, dotgit);
		else if (!r)
			r = sbx_strv_add_unique(w->gone, dotgit);
	}
out:
	for (int i = 0; i < SBX_GIT_READINGS; i++)
		free(target[i]);
	free(rel);
	free(sub);
	free(dotgit);
	return r;
}

/*
 * The checkouts git recurses into from the git directories own[0..n_own) of the checkout root,
 * and (outside git mode) those in gits from first on, each with the checkout its config names (a
 * submodule's), and from the ones found in turn: the gitlinks of each one's index (link_one). The .git files met are appended to files (to
 * follow the directories in gits, as the checkouts' .git are).
 */
static int gitlinks(const struct sbx_ctx *ctx, const struct pmap *m, const char *root,
		    const char *const *own, size_t n_own, size_t first, bool git_mode,
		    struct sbx_strv *gits, struct sbx_strv *missing, struct sbx_strv *gone,
		    struct sbx_strv *files, struct sbx_strv *deny, struct sbx_diag *d)
{
	struct linkwalk w = {.ctx = ctx,
			     .m = m,
			     .git_mode = git_mode,
			     .gits = gits,
			     .missing = missing,
			     .gone = gone,
			     .files = files,
			     .deny = deny,
			     .d = d};
	struct sbx_strv links = {0};
	size_t n = git_mode ? first : gits->n; /* git mode's list holds files */
	int r = 0;

	for (size_t k = 0; !r && k < n_own; k++)
		r = link_enqueue(&w, own[k], root);
	/* A submodule's git directory serves the checkout its config names. */
	for (size_t k = first; !r && k < n; k++) {
		char *dotgit = NULL;

		if (sbx_strv_has(&w.gitdirs, gits->v[k]))
			continue; /* the root's own */
		r = sbx_git_checkout(ctx, gits->v[k], &dotgit, d);
		if (!r && dotgit) {
			dotgit[sbx_path_parent_len(dotgit, strlen(dotgit))] = '\0';
			r = link_enqueue(&w, gits->v[k], dotgit);
		}
		free(dotgit);
	}
	for (size_t i = 0; !r && i < w.gitdirs.n; i++) {
		r = index_gitlinks(ctx, w.gitdirs.v[i], &links, d);
		for (size_t k = 0; !r && k < links.n; k++)
			r = link_one(&w, w.checkouts.v[i], links.v[k]);
		sbx_strv_clear(&links);
	}
	sbx_strv_clear(&links);
	sbx_strv_clear(&w.gitdirs);
	sbx_strv_clear(&w.checkouts);
	return r;
}

/*
 * Git runs hooks and reads config from more places than .git: the directory a .git file points
 * to (gitdir:), and from there a worktree's common directory and every submodule's. Each is a
 * carve-out of the writable root that holds it (the caller places them); in git mode only what
 * gitmode.c names is, and the missing ones of those must not be created.
 */
int sbx_roots_git(const struct sbx_ctx *given, const struct pmap *m, const struct sbx_roots *roots,
		  const char *root, const char *git, const struct sbx_pathinfo *in, bool git_mode,
		  char *target[SBX_GIT_READINGS], struct sbx_strv *gits, struct sbx_strv *missing,
		  struct sbx_strv *deny, struct sbx_strv *dangling, struct sbx_diag *d)
{
	/*
	 * Each git directory's config is read once here, for the checkout it names and the size
	 * of its index's object names alike (gitmode.c, sbx_git_config_parse).
	 */
	struct sbx_git_configs configs = {0};
	struct sbx_ctx with = *given;
	const struct sbx_ctx *ctx = &with;
	struct sbx_strv gone = {0}, extra = {0}, files = {0};
	struct sbx_pathinfo tin[SBX_GIT_READINGS];
	const char *own[SBX_GIT_READINGS];
	size_t ndirs, n_own = 0, first = gits->n;
	bool any = false;
	int r = 0;

	if (!with.git_configs)
		with.git_configs = &configs;
	/* Each reading of a .git file (sbx_gitdir_targets) is git's directory to protect. */
	if (in->exists && in->type == SBX_FT_REG) {
		r = sbx_gitdir_targets(ctx, root, git, target, tin, d);
		for (int i = 0; !r && i < SBX_GIT_READINGS && target[i]; i++) {
			if (!(tin[i].exists && tin[i].type == SBX_FT_DIR)) {
				r = keep_gitdir_target(m, target[i], deny);
				continue;
			}
			any = true;
			own[n_own++] = target[i];
			r = git_mode ? sbx_git_mode_paths(ctx, target[i], gits, missing, &gone, d)
				     : git_dirs(ctx, target[i], gits, d);
		}
	}
	if (!r && !any && in->exists && in->type == SBX_FT_DIR) {
		any = true;
		own[n_own++] = git;
		r = git_mode ? sbx_git_mode_paths(ctx, git, gits, missing, &gone, d)
			     : git_dirs(ctx, git, gits, d);
	}
	/*
	 * The checkouts git recurses into are the index's gitlinks, wherever their git directory
	 * lies: one kept in the checkout (an embedded repository) has none under modules/.
	 * Where a later plan reads them (sbx_ctx.gitlinks_later), this one does not: each index
	 * is read through once a start.
	 */
	if (!r && any && !ctx->gitlinks_later)
		r = gitlinks(ctx, m, root, own, n_own, first, git_mode, gits, missing, &gone,
			     &files, deny, d);
	if (!r && any) {
		/*
		 * The checkouts those git directories name (a submodule's): git status recurses
		 * into each through its .git, which the command could otherwise point at a git
		 * directory of its own. Git mode keeps them itself.
		 */
		ndirs = gits->n; /* past them, checkouts' .git (git mode: files) */
		for (size_t k = 0, n = gits->n; !r && !git_mode && k < n; k++)
			r = sbx_git_keep_checkout(ctx, gits->v[k], gits, missing, &gone, d);
		for (size_t k = 0; !r && k < files.n; k++)
			r = sbx_strv_add_unique(gits, files.v[k]);
		for (size_t k = 0; !r && k < gone.n; k++)
			r = keep_gitdir_target(m, gone.v[k], deny);
		/* What git reads from them that lies elsewhere: a link's target, an include. */
		if (!r)
			r = git_reads(ctx, m, roots, gits, ndirs, git_mode, &extra, deny, dangling,
				      d);
		for (size_t k = 0; !r && k < extra.n; k++)
			r = sbx_strv_add_unique(gits, extra.v[k]);
	}
	sbx_strv_clear(&gone);
	sbx_strv_clear(&extra);
	sbx_strv_clear(&files);
	sbx_git_configs_free(&configs);
	return r;
}

/*
 * A writable root that is itself a git directory (sbx_git_root_paths): what git runs or reads
 * from it is kept as git mode keeps a repository's, with or without the mode (kept whole, it
 * would be no writable root), and so is what its hook links lead to and its config includes.
 */
int sbx_roots_git_root(const struct sbx_ctx *given, const struct pmap *m,
		       const struct sbx_roots *roots, const char *root, struct sbx_strv *gits,
		       struct sbx_strv *missing, struct sbx_strv *deny, struct sbx_strv *dangling,
		       struct sbx_diag *d)
{
	struct sbx_git_configs configs = {0};
	struct sbx_ctx with = *given;
	const struct sbx_ctx *ctx = &with;
	struct sbx_strv own = {0}, gone = {0}, extra = {0};
	bool is = false;
	int r;

	if (!with.git_configs)
		with.git_configs = &configs;
	r = sbx_git_root_paths(ctx, root, &own, missing, &gone, &is, d);
	for (size_t k = 0; !r && k < gone.n; k++)
		r = keep_gitdir_target(m, gone.v[k], deny);
	if (!r && is)
		r = git_reads(ctx, m, roots, &own, own.n, true, &extra, deny, dangling, d);
	for (size_t k = 0; !r && k < own.n; k++)
		r = sbx_strv_add_unique(gits, own.v[k]);
	for (size_t k = 0; !r && k < extra.n; k++)
		r = sbx_strv_add_unique(gits, extra.v[k]);
	sbx_strv_clear(&own);
	sbx_strv_clear(&gone);
	sbx_strv_clear(&extra);
	sbx_git_configs_free(&configs);
	return r;
}

/* ---- the caller's global config (sbxrun(1), GIT MODE) ---------------------------------------- */

/* v joined to cwd when relative, then joined with rest (NULL: none), normalized, into *out. */
static int global_path(const char *cwd, const char *v, const char *rest, char **out)
{
	char *base = NULL;
	int r = sbx_path_join(cwd, v, &base);

	if (!r && rest)
		r = sbx_path_join(base, rest, out);
	else if (!r)
		*out = base, base = NULL;
	free(base);
	return r;
}

/*
 * git 2.39, config.c git_global_config(): GIT_CONFIG_GLOBAL, when set, is the one global file
 * (an empty value names none: access("") fails); else xdg_config_home("config") and
 * interpolate_path("~/.gitconfig"), both of which are NULL without HOME, but for the former
 * when XDG_CONFIG_HOME is set and not empty (path.c, xdg_config_home_for).
 */
int sbx_git_globals(const char *cwd, const char *git_config_global, const char *xdg_config_home,
		    const char *home, const char *git_config_system, char *out[SBX_GIT_GLOBALS],
		    size_t *n_system)
{
	int r = 0, n = 0, globals;
	bool etc = false;

	*n_system = 0;
	for (int i = 0; i < SBX_GIT_GLOBALS; i++)
		out[i] = NULL;
	/* A POSIX host's only: Windows keeps no read-only carve-out of the kind. */
	if (!sbx_path_is_posix_abs(cwd))
		return 0;
	/* Git writes "$HOME/.gitconfig" as text: an empty HOME names /.gitconfig, not ./ one. */
	if (home && !home[0])
		home = "/";
	if (git_config_global) {
		if (git_config_global[0])
			r = global_path(cwd, git_config_global, NULL, &out[n++]);
	} else {
		if (xdg_config_home && xdg_config_home[0])
			r = global_path(cwd, xdg_config_home, "git/config", &out[n++]);
		else if (home)
			r = global_path(cwd, home, ".config/git/config", &out[n++]);
		if (!r && home)
			r = global_path(cwd, home, ".gitconfig", &out[n++]);
	}
	/*
	 * The system file runs programs for every repository as the global ones do, and
	 * GIT_CONFIG_SYSTEM may name one in a writable root (a CI job's, a wrapper's). The
	 * default is the prefix git was built with: /etc/gitconfig for a distribution's git,
	 * which every other git of the host reads, whatever this environment names instead or
	 * GIT_CONFIG_NOSYSTEM says: kept in any case, once.
	 */
	globals = n;
	if (!r && git_config_system && git_config_system[0])
		r = global_path(cwd, git_config_system, NULL, &out[n++]);
	for (int i = globals; !r && i < n; i++)
		etc = etc || !strcmp(out[i], "/etc/gitconfig");
	if (!r && !etc)
		r = global_path(cwd, "/etc/gitconfig", NULL, &out[n++]);
	/*
	 * A global name that is also a system one (GIT_CONFIG_GLOBAL=/etc/gitconfig, or the same
	 * file in both variables) is one file, carried once and as the system one: git dies on
	 * a system file it cannot read, and the helper takes no file twice.
	 */
	for (int i = 0; !r && i < globals; i++) {
		bool sys = false;

		for (int k = globals; k < n; k++)
			sys = sys || !strcmp(out[i], out[k]);
		if (!sys)
			continue;
		free(out[i]);
		memmove(&out[i], &out[i + 1], (size_t)(n - i - 1) * sizeof(out[0]));
		out[--n] = NULL;
		globals--, i--;
	}
	if (!r)
		*n_system = (size_t)(n - globals);
	if (r)
		for (int i = 0; i < SBX_GIT_GLOBALS; i++) {
			free(out[i]);
			out[i] = NULL;
		}
	return r;
}

/* git's config g, a system one (sys) or a global one: "system" or "global". */
static const char *kind(bool sys)
{
	return sys ? "system" : "global";
}

/*
 * The other way out for git's config g in a writable root: the variable that names it pointed
 * elsewhere. /etc/gitconfig, which every other git of the host reads whatever this environment
 * says (sbx_git_globals), has none but leaving it out of the writable roots.
 */
static const char *elsewhere(const char *g, bool sys)
{
	if (!sys)
		return "point GIT_CONFIG_GLOBAL at a file outside the writable roots";
	if (!strcmp(g, "/etc/gitconfig"))
		return "leave /etc out of the writable roots: every git of the host reads "
		       "/etc/gitconfig";
	return "point GIT_CONFIG_SYSTEM at a file outside the writable roots, or unset it "
	       "and set GIT_CONFIG_NOSYSTEM=1";
}

/* Does the resolved path p lie in a writable root, no deny in between, and no entry at it? */
static bool in_writable(const struct pmap *m, const char *p)
{
	const struct pslot *s = sbx_pmap_decider(m, p);

	return !sbx_pmap_find(m, p, strlen(p)) && s && s->access != SBX_DENY && s->wr >= 0;
}

/*
 * A look-up of a global config, or of a directory on its way, that failed: refused in d where
 * the name lies in a writable root (an earlier run may have chmod-ed a parent, planted a link
 * loop). Elsewhere the command can change nothing on the way, and git, which ignores a global
 * config it cannot reach (config.c, access_or_die with ACCESS_EACCES_OK), takes nothing from
 * it: 1, nothing to keep.
 */
static int global_lookup(const struct sbx_ctx *ctx, const struct pmap *m, const char *g, bool sys,
			 const char *p, struct sbx_pathinfo *in, struct sbx_diag *d)
{
	const struct pslot *s;
	int r = sbx_ctx_lookup(ctx, p, in, NULL);

	if (r >= 0 || r == -ENOMEM)
		return r;
	s = sbx_pmap_find(m, p, strlen(p));
	if (!s || s->access == SBX_READ)
		s = sbx_pmap_decider(m, p);
	if (!s || s->access != SBX_WRITE)
		return 1;
	sbx_diag_set(d, r,
		     "cannot check git's %s config %s, which the caller's git runs commands "
		     "from: looking up %s: %s",
		     kind(sys), g, p, strerror(-r));
	return sbx_diag_hint(d, r,
			     "sbxrun never takes an unreadable path for a missing one: restore "
			     "access to it (chmod u+rwx on the directory), or %s",
			     elsewhere(g, sys));
}

/*
 * Is the object in, found at p, what a mount point of the Linux backend at that name is (an
 * empty file or directory made for another run, or left by a killed one)? Then it stands for
 * the name missing, as a protected name's does (roots.c, is_point). The config file itself
 * (file) gets an empty file whatever its name (global_missing): taken for the user's, another
 * run's point would be kept as a file, unshared, and that run's clean-up would unlink it from
 * under this run's mount, leaving the name to the command.
 */
static int global_point(const struct sbx_ctx *ctx, const char *p, bool file,
			const struct sbx_pathinfo *in, bool *yes, struct sbx_diag *d)
{
	const char *holds = "";
	bool dir = false;

	*yes = false;
	if (!ctx->points || in->is_link || (!file && !sbx_git_point(p, &dir, &holds)) ||
	    dir != (in->type == SBX_FT_DIR))
		return 0;
	return sbx_ctx_is_point(ctx, p, in, dir, holds, yes, d);
}

/*
 * real, where something would be made, named as the roots are enforced (root_name) into *named,
 * when it lies in a writable root (else *named is NULL).
 */
static int named_in_writable(const struct sbx_ctx *ctx, const struct pmap *m,
			     const struct sbx_roots *roots, const char *real, char **named,
			     struct sbx_diag *d)
{
	int r = root_name(ctx, m, roots, real, named, d);

	if (!r && !in_writable(m, *named)) {
		free(*named);
		*named = NULL;
	}
	return r;
}

/*
 * Where the last name of a POSIX absolute path starts, past its parent of length dlen
 * (sbx_path_parent_len): the parent "/" holds its own slash.
 */
static size_t child_at(size_t dlen)
{
	return dlen == 1 ? 1 : dlen + 1;
}

/*
 * in, found at p on the way to the missing global config g, is there but no directory (a file,
 * a FIFO): git reads nothing through it, but in a writable root the command could put a
 * directory in its place and a config in that (an earlier run made it where this one's
 * environment, XDG_CONFIG_HOME or GIT_CONFIG_GLOBAL, kept nothing). Refused in d there.
 */
static int global_not_dir(const struct sbx_ctx *ctx, const struct pmap *m,
			  const struct sbx_roots *roots, const char *g, bool sys, const char *p,
			  const struct sbx_pathinfo *in, struct sbx_diag *d)
{
	char *named = NULL;
	int r = named_in_writable(ctx, m, roots, in->real, &named, d);

	if (!r && named) {
		sbx_diag_set(
			d, SBX_E_UNENFORCEABLE,
			"git's %s config %s is missing, and %s on its way is no directory "
			"(a file, a FIFO, a socket or a device) in a writable root: the command "
			"could put a directory holding a config in its place",
			kind(sys), g, p);
		r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				  "remove it and make the directory (mkdir -p %s), or %s", p,
				  elsewhere(g, sys));
	}
	free(named);
	return r;
}

/*
 * The missing global or system (sys) config g: kept from being created where it would be made in a writable
 * root. The file itself, whatever its name, gets an empty file mounted there for the run (and is
 * appended to files as well), which git reads as no config at all: git dies on a system config
 * it cannot read, and warns on a global one, where it takes a missing one for empty; git's own
 * directory of ~/.config/git/config, missing, gets an empty directory. Any other missing
 * directory on the way (~/.config itself) is refused: masking it would break every program that
 * keeps its configuration there, and making it for the user is no business of a sandbox's.
 */
static int global_missing(const struct sbx_ctx *ctx, const struct pmap *m,
			  const struct sbx_roots *roots, const char *g, bool sys,
			  struct sbx_strv *missing, struct sbx_strv *files, struct sbx_diag *d)
{
	struct sbx_pathinfo in;
	size_t len = strlen(g), dlen = sbx_path_parent_len(g, len);
	char *dir = strndup(g, dlen), *at = NULL, *named = NULL, *parent = NULL;
	const char *name = g + child_at(dlen), *missing_dir = NULL;
	bool point = false;
	int r = dir ? global_lookup(ctx, m, g, sys, dir, &in, d) : -ENOMEM;

	if (!r && in.exists && in.type == SBX_FT_DIR) {
		/* Git's directory that another run's point is: that point keeps the name. */
		if (!strcmp(name, "config"))
			r = global_point(ctx, dir, false, &in, &point, d);
		if (!r && point)
			r = named_in_writable(ctx, m, roots, in.real, &named, d);
		else if (!r)
			r = sbx_path_join_any(in.real, name, &at);
		if (!r && at)
			r = named_in_writable(ctx, m, roots, at, &named, d);
		if (!r && named)
			r = sbx_strv_add_unique(missing, named);
		if (!r && named && !point)
			r = sbx_strv_add_unique(files, named);
		goto out;
	}
	if (!r && in.exists)
		r = global_not_dir(ctx, m, roots, g, sys, dir, &in, d);
	if (r || in.exists || in.is_link)
		goto out;
	/* The directory is missing: the one above it decides. */
	len = dlen;
	dlen = sbx_path_parent_len(dir, len);
	if (!dlen || dlen >= len)
		goto out;
	if (!(parent = strndup(dir, dlen)))
		r = -ENOMEM;
	if (!r)
		r = global_lookup(ctx, m, g, sys, parent, &in, d);
	if (!r && in.exists && in.type == SBX_FT_DIR) {
		r = sbx_path_join_any(in.real, dir + child_at(dlen), &at);
		if (!r)
			r = named_in_writable(ctx, m, roots, at, &named, d);
		if (r || !named)
			goto out;
		if (!strcmp(dir + child_at(dlen), "git") && !strcmp(name, "config")) {
			r = sbx_strv_add_unique(missing, named);
			goto out;
		}
		missing_dir = named;
		goto refuse;
	}
	if (!r && in.exists) {
		r = global_not_dir(ctx, m, roots, g, sys, parent, &in, d);
		goto out;
	}
	/* ~/.config, which run makes first (config_home_make): planned as run will find it. */
	if (!r && !in.exists && !in.is_link && ctx->config_home_made &&
	    !strcmp(parent, ctx->config_home_made)) {
		size_t hlen = sbx_path_parent_len(parent, dlen);

		parent[hlen ? hlen : 1] = '\0';
		r = global_lookup(ctx, m, g, sys, parent, &in, d);
		if (!r && in.exists && in.type == SBX_FT_DIR) {
			r = sbx_path_join_any(in.real, ".config/git", &at);
			if (!r)
				r = named_in_writable(ctx, m, roots, at, &named, d);
			if (!r && named)
				r = sbx_strv_add_unique(missing, named);
		}
		goto out;
	}
	/*
	 * Missing further up: the first missing directory, in the first one that is there, is
	 * where the command would start making it.
	 */
	len = dlen;
	while (!r && !in.exists && !in.is_link && len > 1) {
		len = dlen;
		dlen = sbx_path_parent_len(parent, len);
		parent[len] = '\0';
		if (dlen > 1)
			parent[dlen] = '\0';
		r = global_lookup(ctx, m, g, sys, dlen > 1 ? parent : "/", &in, d);
		if (dlen > 1)
			parent[dlen] = '/';
	}
	if (!r && in.exists && in.type != SBX_FT_DIR && dlen > 1) {
		parent[dlen] = '\0'; /* what was looked up last, no directory: out next */
		r = global_not_dir(ctx, m, roots, g, sys, parent, &in, d);
	}
	if (r || !in.exists || in.type != SBX_FT_DIR)
		goto out;
	r = sbx_path_join_any(in.real, parent + child_at(dlen), &at);
	if (!r)
		r = named_in_writable(ctx, m, roots, at, &named, d);
	if (r || !named)
		goto out;
	missing_dir = named;
refuse:
	sbx_diag_set(d, SBX_E_UNENFORCEABLE,
		     "git's %s config %s is missing, and so is its directory %s, which the "
		     "command could make from %s in a writable root: the caller's next git would "
		     "run what it plants there",
		     kind(sys), g, dir, missing_dir);
	r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
			  "make the directory (mkdir -p %s): keeping it from being made would mask "
			  "a directory other programs write; or %s",
			  dir, elsewhere(g, sys));
out:
	free(dir);
	free(at);
	free(named);
	free(parent);
	return r > 0 ? 0 : r;
}

/*
 * Is the regular file p closed to the caller (EACCES, EPERM)? Then to the caller's git as well,
 * which skips a global config it cannot read and dies on a system one: it takes nothing from it
 * nor from what it would include.
 */
static bool closed_config(const struct sbx_ctx *ctx, const char *p)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	size_t got = 0;
	char c;
	int r = v->read_file(v->self, p, &c, 1, &got);

	return r == -EACCES || r == -EPERM;
}

int sbx_git_globals_keep(const struct sbx_ctx *ctx, const struct pmap *m,
			 const struct sbx_roots *roots, struct sbx_strv *keep,
			 struct sbx_strv *missing, struct sbx_strv *deny, struct sbx_strv *system,
			 struct sbx_strv *files, struct sbx_diag *d)
{
	struct sbx_strv configs = {0}, none = {0};
	char one[SBX_MAX_PATH];
	int r = 0;

	for (size_t i = 0; !r && i < ctx->n_git_globals; i++) {
		const char *g = ctx->git_globals[i];
		bool sys = i >= ctx->n_git_globals - ctx->n_git_system;
		struct sbx_pathinfo in;
		bool point = false;

		if (!sbx_path_is_posix_abs(g))
			continue; /* sbxrun hands over none such; a helper's caller might */
		r = global_lookup(ctx, m, g, sys, g, &in, d);
		if (r > 0) {
			r = 0;
			continue;
		}
		/* A point is made in a writable root only: elsewhere it is read for nothing. */
		if (!r && in.exists && in_writable(m, in.real))
			r = global_point(ctx, g, true, &in, &point, d);
		if (r)
			break;
		/* No regular file outside the writable roots (/dev/null): git reads nothing. */
		if (in.exists && !point && in.type != SBX_FT_REG && !in_writable(m, in.real))
			continue;
		/*
		 * Nor one the caller cannot read there (a system file only root may read): the
		 * command can change nothing on the way, unless through a link it could repoint.
		 * One others may read (S_IROTH, the usual 0644) is not opened twice to find out.
		 */
		if (in.exists && !point && !(in.mode & 0004) && !in_writable(m, in.real) &&
		    !crosses_writable_link(m, &in, &none, 0, one) && closed_config(ctx, g))
			continue;
		if (in.exists && !point && in.type != SBX_FT_REG) {
			sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				     "git's %s config %s is no regular file (a directory, a "
				     "FIFO, a socket or a device): sbxrun cannot tell what the "
				     "caller's git takes from it",
				     kind(sys), g);
			r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE, "remove what is there, or %s",
					  elsewhere(g, sys));
		} else if (crosses_writable_link(m, &in, &none, 0, one)) {
			sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				     "git's %s config %s is reached through the symbolic link "
				     "%s inside a writable root: the command could repoint it at a "
				     "config of its own",
				     kind(sys), g, one);
			r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
					  "put the file it leads to there instead of the link, or "
					  "%s",
					  elsewhere(g, sys));
		} else if (in.exists && !point && in.linked && in_writable(m, in.real)) {
			/*
			 * Another name of it (an earlier run, which this environment's global
			 * config was not, linked it) writes the very file kept read-only here.
			 */
			sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				     "git's %s config %s has more than one name (a hard link), "
				     "inside a writable root: the command could rewrite it through "
				     "another",
				     kind(sys), g);
			r = sbx_diag_hint(
				d, SBX_E_UNENFORCEABLE,
				"give it a name of its own (cp %s %s.new && mv %s.new %s), "
				"and check what it says",
				g, g, g, g);
		} else if ((in.exists && !point) || in.is_link) {
			/*
			 * As a file included: kept read-only at its real path, its includes
			 * followed; a link to nothing refused (the command could make its target).
			 */
			r = keep_include(ctx, m, roots, &none, false, "the caller's environment", g,
					 keep, deny, &configs, d);
			if (!r && sys && in.exists)
				r = sbx_strv_add_unique(system, in.real);
		} else {
			size_t before = missing->n;

			r = global_missing(ctx, m, roots, g, sys, missing, files, d);
			for (size_t k = before; !r && sys && k < missing->n; k++)
				r = sbx_strv_add_unique(system, missing->v[k]);
		}
	}
	if (!r)
		r = follow_includes(ctx, m, roots, &none, false, &configs, keep, deny, d);
	sbx_strv_clear(&configs);
	if (r == -ENOMEM)
		sbx_diag_set(d, r, "out of memory");
	return r;
}
