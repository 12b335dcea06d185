/* SPDX-License-Identifier: MIT */
/*
 * enforce.c - what the enter sequence applies, read off a finished plan: the mechanism bits the
 * planner set on each requirement (lib/plan_linux.c), the roots it planned from and the matches
 * of its deny globs. Nothing here decides anew: a mechanism no requirement names is not applied,
 * and every mechanism a requirement names is.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/sandbox.h"

/*
 * The tree of a denied directory in a writable root (matched or named), walked by descriptor (no link followed,
 * nothing opened but directories): a file in it that has another name is read through that
 * name. An earlier run made the tree, so its size and depth are bounded, and a tree beyond the
 * bounds refuses the run (the scan must neither stall the start nor run out of descriptors).
 */
#define TREE_MAX_DEPTH 64u

struct tree {
	const struct sbx_plan *plan;
	const char *top;
	char path[SBX_MAX_PATH];
	char why[SBX_MAX_PATH + 128]; /* one refusal's words: not on each level's stack */
	size_t seen;
	struct sbx_diag *d;
	bool regranted; /* a read or write rule names a path inside the tree */
};

/* Is a path inside the denied tree granted again by a rule of the plan (read or write)? */
static bool regrants(const struct sbx_plan *plan, const char *path, bool below)
{
	for (size_t i = 0; i < plan->n_reqs; i++) {
		const struct sbx_req *r = &plan->reqs[i];

		if ((r->kind != SBX_REQ_READ && r->kind != SBX_REQ_WRITE &&
		     r->kind != SBX_REQ_READ_ONLY) ||
		    !r->path)
			continue;
		if (below ? sbx_path_covers(path, r->path) && strcmp(path, r->path)
			  : !strcmp(path, r->path))
			return true;
	}
	return false;
}

/*
 * Can the command search the directory fd holds (opened O_PATH or not)? Asked of the kernel on
 * the object itself, with the caller's ids and groups, ACL entries included (faccessat2,
 * Linux 5.8); the command runs with the same ids and none of the capabilities that would
 * override them. Where the kernel cannot answer, the mode alone decides, as it can only for
 * a directory whose group and others have no search bit (no ACL entry grants one past the
 * mask then): anything else may let the command in, and counts as searchable.
 */
static bool command_searches(int fd, const struct stat *st)
{
	if (syscall(SYS_faccessat2, fd, "", X_OK, AT_EACCESS | AT_EMPTY_PATH) == 0)
		return true;
	if (errno == EACCES)
		return false;
	return (st->st_mode & (S_IXGRP | S_IXOTH)) != 0;
}

/*
 * A descriptor to list the directory fd names (opened O_PATH or not), or -errno; 1 in *closed
 * when the caller cannot list it, it is another user's, and the command cannot search it
 * either (a 0700 directory, or a 0750 one of a group the caller is not in): it can open
 * nothing in it and link nothing there or to it, as the glob's own walk finds (it passes
 * over such a directory). Only its owner, or a run before the owner closed it, made its
 * files' other names. One the command can search but not list (0711) is not closed: its
 * files open by name.
 */
static int open_listing(int fd, bool *closed)
{
	int l = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	int err = errno;
	uid_t me = geteuid();
	struct stat st;

	*closed = false;
	if (l >= 0)
		return l;
	/* The object the descriptor holds, not a name an earlier run may have swapped since. */
	if ((err == EACCES || err == EPERM) && me != 0 && fstat(fd, &st) == 0 &&
	    S_ISDIR(st.st_mode) && st.st_uid != me && !command_searches(fd, &st))
		*closed = true;
	return -err;
}

static int tree_refuse(struct tree *t, const char *why, const char *hint)
{
	sbx_diag_set(t->d, SBX_E_UNENFORCEABLE, "cannot enforce sandbox deny-read path %s: %s",
		     t->top, why);
	return sbx_diag_hint(t->d, SBX_E_UNENFORCEABLE, "%s", hint);
}

/*
 * Can a symbolic link's text lead out of the directory that holds it? Decided from the text
 * alone, never by following it (what it names now is the attacker's to change): an absolute
 * text, or one with a ".." anywhere, may; a relative text without ".." stays below the link's
 * directory (a link it meets there is in the same tree, and walked too).
 */
static bool link_text_leaves(const char *text)
{
	return text[0] == '/' || sbx_path_has_dotdot(text);
}

/*
 * A symbolic link in a matched directory. What the user writes through its name (the mask
 * hides the directory from the command, not from the user) lands where the link leads: out of
 * the mask, where the next run reads it, if the link may lead out. An earlier run could plant
 * it as it could a hard link.
 */
static int tree_link(struct tree *t, int dfd, const char *name)
{
	char text[SBX_MAX_PATH];
	ssize_t n = readlinkat(dfd, name, text, sizeof(text));

	if (n < 0 && errno == ENOENT)
		return 0; /* gone since it was listed: nothing to write through */
	if (n < 0) {
		snprintf(t->why, sizeof(t->why), "cannot read symlink %s: %s", t->path,
			 strerror(errno));
		return tree_refuse(t, t->why, "remove the link");
	}
	/* Cut short: what was read is not the whole text, which may lead anywhere. */
	if ((size_t)n < sizeof(text)) {
		text[n] = '\0';
		if (!link_text_leaves(text))
			return 0;
	}
	snprintf(t->why, sizeof(t->why),
		 "symlink %s inside it may lead out of it (absolute, or through \"..\"): what "
		 "is written through it lands unmasked",
		 t->path);
	/* Not "copy what it leads to": that is where a secret written through it now lies. */
	return tree_refuse(t, t->why,
			   "remove the link, and check the place it led to for anything written "
			   "through it");
}

static int tree_walk(struct tree *t, int dfd, size_t len, unsigned depth)
{
	DIR *dir = fdopendir(dfd);
	char *why = t->why;
	struct dirent *de;
	int r = 0;

	if (!dir) {
		close(dfd);
		return -ENOMEM;
	}
	while (!r) {
		struct stat st;
		bool closed = false;
		size_t nl;
		int sub;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno) {
				snprintf(why, sizeof(t->why), "cannot list %s: %s", t->path,
					 strerror(errno));
				r = tree_refuse(t, why, "make it listable, or remove it");
			}
			break;
		}
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (++t->seen > SBX_MAX_GLOB_MATCHES) {
			snprintf(why, sizeof(t->why),
				 "it holds more than %u entries to check for hard links",
				 SBX_MAX_GLOB_MATCHES);
			/* Not "deny its files by a pattern": a glob matches no more than that. */
			r = tree_refuse(t, why,
					"empty it, or deny the parts of it that hold secrets "
					"(each denied directory is walked on its own)");
			break;
		}
		nl = strlen(de->d_name);
		if (len + 1 + nl >= SBX_MAX_PATH) {
			snprintf(why, sizeof(t->why),
				 "a path in it of %zu bytes cannot be checked (%s)", len + 1 + nl,
				 strerror(ENAMETOOLONG));
			r = tree_refuse(t, why, "shorten the tree, or remove it");
			break;
		}
		t->path[len] = '/';
		memcpy(t->path + len + 1, de->d_name, nl + 1);
		/*
		 * A path a rule grants again inside the mask (a writable carve-out in a denied
		 * directory) is the command's to read and to link in: nothing there is hidden.
		 */
		if (t->regranted && regrants(t->plan, t->path, false)) {
			t->path[len] = '\0';
			continue;
		}
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno != ENOENT) {
				snprintf(why, sizeof(t->why), "cannot look up %s: %s", t->path,
					 strerror(errno));
				r = tree_refuse(t, why, "restore access to it, or remove it");
			}
		} else if (!S_ISDIR(st.st_mode)) {
			if (S_ISLNK(st.st_mode))
				r = tree_link(t, dirfd(dir), de->d_name);
			/* A FIFO's other name reads what is written into this one, as a file's. */
			if (!r)
				r = sbx_linux_nlink_check(t->plan, "deny-read path", t->top, NULL,
							  t->path, st.st_nlink > 1, t->d);
		} else if (S_ISDIR(st.st_mode)) {
			if (depth >= TREE_MAX_DEPTH) {
				snprintf(why, sizeof(t->why),
					 "it is more than %u directories deep, at %s",
					 TREE_MAX_DEPTH, t->path);
				r = tree_refuse(t, why, "flatten the tree, or remove it");
				break;
			}
			sub = openat(dirfd(dir), de->d_name,
				     O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				int p = sub;

				sub = open_listing(p, &closed);
				close(p);
			} else
				sub = -errno;
			if (sub >= 0)
				r = tree_walk(t, sub, len + 1 + nl, depth + 1);
			else if (sub != -ENOENT && !closed) {
				snprintf(why, sizeof(t->why), "cannot list %s: %s", t->path,
					 strerror(-sub));
				r = tree_refuse(t, why, "make it listable, or remove it");
			}
		}
		t->path[len] = '\0';
	}
	closedir(dir);
	return r;
}

/*
 * A glob match's other names (hard links), where an earlier run could have made them: a file,
 * or the files in a matched directory or one the profile denies by name (the planner asks the
 * same of a file the profile names).
 */
static int check_names(const struct sbx_plan *plan, const struct sbx_rulepath *f, const char *m,
		       struct sbx_diag *d)
{
	const char *real = f->real ? f->real : m;
	struct tree t = {.plan = plan, .top = m, .d = d};
	struct stat st;
	size_t len = strlen(real);
	bool closed;
	int fd;

	if (!f->facts.exists || f->fd < 0 ||
	    !(sbx_linux_in_writable(plan, m) || (real != m && sbx_linux_in_writable(plan, real))))
		return 0;
	if (fstat(f->fd, &st) < 0) {
		int err = errno;

		return sbx_diag_set(d, -err, "cannot look up %s: %s", m, strerror(err));
	}
	if (!S_ISDIR(st.st_mode))
		return sbx_linux_nlink_check(plan, "deny-read path", m, real, NULL, st.st_nlink > 1,
					     d);
	if (len >= sizeof(t.path))
		return 0;
	fd = open_listing(f->fd, &closed);
	if (closed)
		return 0;
	if (fd < 0) {
		char why[SBX_MAX_PATH + 64];

		snprintf(why, sizeof(why), "cannot list it to check for hard links: %s",
			 strerror(-fd));
		return tree_refuse(&t, why, "make it listable, or deny its files by name");
	}
	memcpy(t.path, real, len + 1);
	t.regranted = regrants(plan, real, true);
	return tree_walk(&t, fd, len, 1);
}

/*
 * A glob match is a deny path found at start: looked up once like every rule path (its object
 * kept), refused when the look-up fails or when it leads through a link that an earlier run or
 * another user could have placed.
 */
static int check_match(const struct sbx_plan *plan, struct sbx_rulepaths *res, const char *m,
		       struct sbx_diag *d)
{
	const struct sbx_rulepath *f = sbx_rulepath_get(res, m);

	if (!f)
		return -ENOMEM;
	if (f->err)
		return sbx_lookup_failed(d, f->err, m);
	if (sbx_linux_link_check(plan, "deny-read path", m, sbx_rulepath_link(f),
				 f->facts.link_shared, f->real, d))
		return SBX_E_UNENFORCEABLE;
	return check_names(plan, f, m, d);
}

/*
 * A directory the profile denies by name, in a writable root: its tree is walked as a matched
 * directory's. It was masked in every earlier run that had the rule, but not in one before the
 * rule was written: such a run can have made the directory, a file in it and that file's other
 * name outside it, for the user to write a secret through the denied name later.
 */
static int check_denied_dir(const struct sbx_plan *plan, struct sbx_rulepaths *res,
			    const struct sbx_req *r, struct sbx_diag *d)
{
	const struct sbx_rulepath *f;

	if (!r->path || !r->exists || r->type != SBX_FT_DIR)
		return 0;
	f = sbx_rulepath_get(res, r->path);
	if (!f)
		return -ENOMEM;
	if (f->err)
		return sbx_lookup_failed(d, f->err, r->path);
	return check_names(plan, f, r->path, d);
}

/*
 * The files of a directory kept read-only because what they say makes something run later (a
 * git directory's config and hooks, what .codex and .agents hold): one with another name is
 * rewritten through that name, where an earlier run (to which the directory was a plain
 * nested one, writable) could have made it, for a later git or agent to run. Checked on the
 * descriptor the plan's look-up kept, names the tree holds looked at without following links;
 * bounded as the denied tree's walk is (an earlier run made the tree). A git directory's
 * objects and other data run nothing, and are not looked at (git's objects are often links).
 */
struct kept {
	const char *top;
	char path[SBX_MAX_PATH];
	size_t seen;
	bool codex; /* top is a .codex: its data directories are passed over (codex_data) */
	struct sbx_diag *d;
};

static int kept_refuse(struct kept *k, const char *why, const char *hint)
{
	sbx_diag_set(k->d, SBX_E_UNENFORCEABLE, "cannot enforce sandbox read-only path %s%s",
		     k->top, why);
	return sbx_diag_hint(k->d, SBX_E_UNENFORCEABLE, "%s", hint);
}

/*
 * kept_refuse with why formatted here: the room for it is taken in this frame alone, not in
 * every level of the walk's recursion (kept_list, kept_walk: up to TREE_MAX_DEPTH levels each,
 * which with a path's room at each took some 8 KiB a level off the caller's stack).
 */
__attribute__((noinline, format(printf, 3, 4))) static int
kept_refusef(struct kept *k, const char *hint, const char *fmt, ...)
{
	char why[SBX_MAX_PATH + 96];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return kept_refuse(k, why, hint);
}

/* k->path + len is name (room checked); 0 when it fits, else the refusal. */
static int kept_name(struct kept *k, size_t len, const char *name)
{
	size_t nl = strlen(name);

	if (len + 1 + nl >= sizeof(k->path))
		return kept_refuse(k, ": a path inside it is too long to check for hard links",
				   "shorten the names inside it");
	k->path[len] = '/';
	memcpy(k->path + len + 1, name, nl + 1);
	return 0;
}

/* One name in dfd: a regular file there with more than one name refuses the run. */
static int kept_file(struct kept *k, int dfd, const char *name, size_t len, struct stat *st)
{
	char why[2 * SBX_MAX_PATH + 160];
	int r;

	if ((r = kept_name(k, len, name)))
		return r;
	if (++k->seen > SBX_MAX_GLOB_MATCHES) {
		snprintf(why, sizeof(why),
			 ": it holds more than %u entries to check for hard links",
			 SBX_MAX_GLOB_MATCHES);
		return kept_refuse(k, why, "empty it, or remove what it need not hold");
	}
	if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) < 0) {
		st->st_mode = 0;
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		snprintf(why, sizeof(why), ": cannot look up %s to check for hard links: %s",
			 k->path, strerror(errno));
		return kept_refuse(k, why, "make it readable, or remove it");
	}
	if (!S_ISREG(st->st_mode) || st->st_nlink < 2)
		return 0;
	snprintf(why, sizeof(why),
		 " because %s inside it has other names (hard links): the command could rewrite "
		 "it through one of them",
		 k->path);
	sbx_diag_set(k->d, SBX_E_UNENFORCEABLE, "cannot enforce sandbox read-only path %s%s",
		     k->top, why);
	return sbx_diag_hint(k->d, SBX_E_UNENFORCEABLE,
			     "give it a name of its own (cp -p %s %s.new && mv %s.new %s), and "
			     "check what it says",
			     k->path, k->path, k->path, k->path);
}

static bool dot_or_dotdot(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

enum kept_how {
	KEPT_ALL,      /* every regular file of the tree (.codex, .agents) */
	KEPT_GITDIR,   /* a git directory: config, config.worktree, commondir, gitdir, hooks/,
			  and the git directories modules/ and worktrees/ hold */
	KEPT_MODULES,  /* a directory of modules/: a submodule's git directory, or a part of
			  its name (a name may hold slashes) */
	KEPT_HOOKS,    /* the regular files of hooks/, and of the directories in it */
	KEPT_WORKTREES /* each entry a linked worktree's git directory */
};

static int kept_walk(struct kept *k, int dfd, const char *name, size_t len, enum kept_how how,
		     unsigned depth);

/*
 * What a git directory at k->path (len), open as dfd, keeps of the files that run code or send
 * git elsewhere: a linked worktree's gitdir names the checkout git worktree remove deletes.
 */
static int kept_gitdir(struct kept *k, int dfd, size_t len, unsigned depth)
{
	static const char *const files[] = {"config", "config.worktree", "commondir", "gitdir"};
	struct stat st;
	int r = 0;

	for (size_t i = 0; !r && i < sizeof(files) / sizeof(files[0]); i++)
		r = kept_file(k, dfd, files[i], len, &st);
	if (!r)
		r = kept_walk(k, dfd, "hooks", len, KEPT_HOOKS, depth + 1);
	if (!r)
		r = kept_walk(k, dfd, "modules", len, KEPT_MODULES, depth + 1);
	if (!r)
		r = kept_walk(k, dfd, "worktrees", len, KEPT_WORKTREES, depth + 1);
	k->path[len] = '\0';
	return r;
}

/*
 * A hook git never runs: git runs hooks/NAME for the names of its hooks, none of which ends so
 * (git init lays a dozen such examples in every repository: not looked up at each start).
 */
static bool sample(const char *name)
{
	size_t n = strlen(name);

	return n > 7 && !strcmp(name + n - 7, ".sample");
}

/*
 * A directory of a .codex that holds what Codex records of its sessions and its log: data it
 * reads back, never a program it runs or a setting, and in a Codex home (a workspace at $HOME)
 * thousands of files, more than the walk checks. Passed over, at the top of .codex only.
 */
static bool codex_data(const char *name)
{
	return !strcmp(name, "sessions") || !strcmp(name, "archived_sessions") ||
	       !strcmp(name, "log");
}

/* Does the directory dfd hold a HEAD (a git directory, as git takes one)? */
static bool has_head(int dfd)
{
	struct stat st;

	return fstatat(dfd, "HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/*
 * Is the directory dfd a git directory's hooks/ (its parent holds a HEAD)? Asked of the object
 * the descriptor holds: its parent now, as git would take it.
 */
static bool is_hooks(int dfd)
{
	struct stat st;

	return fstatat(dfd, "../HEAD", &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* The directory open as fd (taken), at k->path (len), looked through as how says. */
static int kept_list(struct kept *k, int fd, size_t len, enum kept_how how, unsigned depth)
{
	struct dirent *de;
	DIR *dir = fdopendir(fd);
	int r = 0;

	if (!dir) {
		close(fd);
		return -ENOMEM;
	}
	while (!r) {
		struct stat st;
		int sub;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno) {
				k->path[len] = '\0';
				r = kept_refusef(k, "make it listable, or remove it",
						 ": cannot list %s: %s", k->path, strerror(errno));
			}
			break;
		}
		if (dot_or_dotdot(de->d_name) || (how == KEPT_HOOKS && sample(de->d_name)))
			continue;
		r = kept_file(k, dirfd(dir), de->d_name, len, &st);
		if (r || !S_ISDIR(st.st_mode))
			continue;
		/*
		 * A directory of hooks/ (a hook manager's pre-commit.d/): hooks/pre-commit runs
		 * what it holds, every file of it, as git runs hooks/pre-commit.
		 */
		if (how == KEPT_ALL || how == KEPT_HOOKS) {
			if (k->codex && depth == 1 && codex_data(de->d_name))
				continue;
			r = kept_walk(k, dirfd(dir), de->d_name, len, KEPT_ALL, depth + 1);
			continue;
		}
		sub = openat(dirfd(dir), de->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0)
			continue; /* gone, or swapped for a link: git takes nothing there */
		if (how == KEPT_MODULES && !has_head(sub)) {
			/* A part of a submodule's name (one may hold slashes): walked on. */
			close(sub);
			r = kept_walk(k, dirfd(dir), de->d_name, len, KEPT_MODULES, depth + 1);
			continue;
		}
		r = kept_gitdir(k, sub, len + 1 + strlen(de->d_name), depth + 1);
		close(sub);
	}
	closedir(dir);
	k->path[len] = '\0';
	return r;
}

static int kept_walk(struct kept *k, int dfd, const char *name, size_t len, enum kept_how how,
		     unsigned depth)
{
	bool closed = false;
	int fd, r;

	if ((r = kept_name(k, len, name)))
		return r;
	if (depth > TREE_MAX_DEPTH)
		return kept_refusef(k, "flatten it",
				    ": it is more than %u levels deep to check for hard links",
				    TREE_MAX_DEPTH);
	/*
	 * None there, or a link (git takes no hooks/ through one here: gitroots.c keeps what it
	 * leads to), or another user's directory closed to the command as the denied tree's
	 * walk passes over (open_listing): nothing in it the command could have linked.
	 */
	fd = openat(dfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		int p = fd;

		fd = open_listing(p, &closed);
		close(p);
	} else
		fd = -errno;
	if (fd < 0 && fd != -ENOENT && fd != -ENOTDIR && fd != -ELOOP && !closed)
		return kept_refusef(k, "make it listable, or remove it",
				    ": cannot list %s to check for hard links: %s", k->path,
				    strerror(-fd));
	r = fd < 0 ? 0 : kept_list(k, fd, len + 1 + strlen(name), how, depth);
	k->path[len] = '\0';
	return r;
}

/*
 * A read-only directory the run keeps in a writable root for what its files make run: a
 * protected name's (.git, .codex, .agents), a git directory gitroots.c keeps elsewhere (a
 * .git file's target, a common directory: one that holds a HEAD, as git asks), or the hooks/
 * git mode keeps alone (the git directory around it writable).
 */
static int check_kept_dir(const struct sbx_plan *plan, struct sbx_rulepaths *res,
			  const struct sbx_req *r, struct sbx_diag *d)
{
	const struct sbx_rulepath *f;
	struct kept k = {.top = r->path, .d = d};
	const char *base, *real;
	enum kept_how how;
	bool closed;
	size_t len;
	int fd;

	if (!r->path || !r->exists || r->type != SBX_FT_DIR ||
	    !sbx_linux_in_writable(plan, r->path))
		return 0;
	f = sbx_rulepath_get(res, r->path);
	if (!f)
		return -ENOMEM;
	if (f->err || f->fd < 0)
		return 0; /* the carve-out's own look-up says why */
	base = strrchr(r->path, '/');
	base = base ? base + 1 : r->path;
	if (!strcmp(base, ".codex") || !strcmp(base, ".agents")) {
		how = KEPT_ALL;
		k.codex = !strcmp(base, ".codex");
	} else if (!strcmp(base, ".git") || has_head(f->fd))
		how = KEPT_GITDIR;
	else if (!strcmp(base, "hooks") && is_hooks(f->fd))
		how = KEPT_HOOKS; /* git mode keeps hooks/ alone, the git directory writable */
	else
		return 0;
	real = f->real ? f->real : r->path;
	len = strlen(real);
	if (len >= sizeof(k.path))
		return 0;
	memcpy(k.path, real, len + 1);
	if (how == KEPT_GITDIR)
		return kept_gitdir(&k, f->fd, len, 1);
	fd = open_listing(f->fd, &closed);
	if (closed)
		return 0;
	if (fd < 0) {
		char why[SBX_MAX_PATH + 64];

		snprintf(why, sizeof(why), ": cannot list it to check for hard links: %s",
			 strerror(-fd));
		return kept_refuse(&k, why, "make it listable, or remove it");
	}
	return kept_list(&k, fd, len, how, 1);
}

/*
 * One deny glob's scan: its matches on this host now, each checked (check_match). 0 with the
 * matches, -ENOMEM, or another negative code with d saying why the glob cannot be enforced.
 */
static int scan_one(const struct sbx_plan *plan, const struct sbx_req *r, struct sbx_rulepaths *res,
		    struct sbx_strv *out, struct sbx_diag *d)
{
	char **m = NULL;
	size_t n = 0;
	int rc = sbx_glob_expand(r->path, plan->profile.fs.glob_depth, &res->view, &m, &n, d);

	for (size_t j = 0; rc == 0 && j < n; j++)
		rc = check_match(plan, res, m[j], d);
	if (rc < 0) {
		sbx_strv_free(m, n);
		return rc;
	}
	out->v = m;
	out->n = out->cap = n;
	return 0;
}

/*
 * The words of a scan that found its matches, after what the planner said of the glob: the
 * count, which explain shows and its JSON lists.
 */
static int scan_note(struct sbx_req *r, size_t n)
{
	const char *was = sbx_req_reason(r);
	char *keep = was ? strdup(was) : NULL;
	int rc;

	if (was && !keep)
		return -ENOMEM;
	rc = sbx_req_set(r, r->status, r->mech, sbx_req_hint(r),
			 "%s%s%zu path%s on this host match%s it now (found again when run starts; "
			 "a match made later is not covered)",
			 keep ? keep : "", keep ? "; " : "", n, n == 1 ? "" : "s",
			 n == 1 ? "es" : "");
	free(keep);
	return rc;
}

int sbx_linux_scan_globs(struct sbx_plan *plan, struct sbx_rulepaths *res,
			 struct sbx_linux_globs *g, struct sbx_diag *d)
{
	memset(g, 0, sizeof(*g));
	g->matches = calloc(plan->n_reqs ? plan->n_reqs : 1, sizeof(*g->matches));
	if (!g->matches)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	g->n = plan->n_reqs;
	for (size_t i = 0; i < plan->n_reqs; i++) {
		struct sbx_req *r = &plan->reqs[i];
		struct sbx_diag why;
		int rc;

		if ((r->kind != SBX_REQ_DENY_GLOB && r->kind != SBX_REQ_DENY &&
		     r->kind != SBX_REQ_READ_ONLY) ||
		    r->status != SBX_ENFORCED)
			continue;
		sbx_diag_clear(&why);
		if (r->kind != SBX_REQ_DENY_GLOB) {
			rc = r->kind == SBX_REQ_DENY ? check_denied_dir(plan, res, r, &why)
						     : check_kept_dir(plan, res, r, &why);
			if (rc < 0 && rc != -ENOMEM)
				rc = sbx_req_set_diag(r, SBX_UNENFORCEABLE, 0,
						      why.hint[0] ? why.hint : NULL, &why);
			if (rc < 0) {
				sbx_linux_globs_free(g);
				return sbx_diag_set(d, rc, "out of memory");
			}
			continue;
		}
		rc = scan_one(plan, r, res, &g->matches[i], &why);
		/*
		 * Refused: the glob's requirement says why, as any rule's that cannot be enforced.
		 * A path the words mark as the one they are about is a match's, not the glob's own
		 * (explain would call it "this path" on the glob's row): kept as written.
		 */
		if (rc < 0 && rc != -ENOMEM) {
			why.about = (struct sbx_span){0};
			rc = sbx_req_set_diag(r, SBX_UNENFORCEABLE, 0,
					      why.hint[0] ? why.hint : NULL, &why);
		} else if (rc == 0)
			rc = scan_note(r, g->matches[i].n);
		if (rc < 0) {
			sbx_linux_globs_free(g);
			return sbx_diag_set(d, rc, "out of memory");
		}
	}
	return 0;
}

void sbx_linux_globs_free(struct sbx_linux_globs *g)
{
	for (size_t i = 0; g->matches && i < g->n; i++)
		sbx_strv_clear(&g->matches[i]);
	free(g->matches);
	memset(g, 0, sizeof(*g));
}

int sbx_linux_enforce_from_plan(const struct sbx_plan *plan, const struct sbx_linux_facts *facts,
				bool traced, struct sbx_rulepaths *res,
				struct sbx_linux_globs *globs, struct sbx_linux_enforce *e,
				struct sbx_diag *d)
{
	struct sbx_linux_apply a;
	int rc = 0;

	memset(e, 0, sizeof(*e));
	/* A glob not scanned for this very plan would mask nothing: never run without it. */
	if (!globs || globs->n != plan->n_reqs || (plan->n_reqs && !globs->matches))
		return sbx_diag_set(d, -EINVAL, "the deny globs were not scanned for this plan");
	sbx_plan_linux_apply(plan, facts, &a);
	/*
	 * Only init's supervisor traces: a traced plan in place goes under init where the host can
	 * make it (or is refused), and gets all that init gets, its fresh /proc included.
	 */
	if (traced && (rc = sbx_report_model(facts, &a.model, d)) < 0)
		return rc;
	e->res = res;
	e->roots = &plan->roots;
	e->network = plan->network;
	e->mount_namespace = a.mount_namespace;
	e->landlock_abi = a.landlock_abi;
	e->landlock_net = a.landlock_net;
	e->seccomp_metadata = a.seccomp_metadata;
	e->seccomp_ipc = a.seccomp_ipc;
	e->seccomp_pgrp = a.seccomp_pgrp;
	e->seccomp_async = a.seccomp_async;
	e->own_group = a.own_group;
	e->model = a.model;
	e->private_dev = a.private_dev;
	/* Init mounts a fresh /proc (the helper's --no-proc says otherwise). */
	e->fresh_proc = a.model == SBX_MODEL_INIT;
	if (a.model == SBX_MODEL_INIT)
		e->clone_flags = sbx_linux_sandbox_flags(facts, false);
	/* No private /dev: Landlock keeps the host's out of reach, but for its allow-list. */
	if (a.landlock_dev)
		rc = sbx_strv_push(&e->ll_hidden, "/dev");
	for (size_t i = 0; i < plan->n_reqs && rc == 0; i++) {
		const struct sbx_req *r = &plan->reqs[i];
		/* Landlock alone: the readable trees around it are granted piecewise. */
		bool by_landlock_alone = r->mech == SBX_MECH_LANDLOCK;

		if (r->status != SBX_ENFORCED)
			continue;
		switch (r->kind) {
		case SBX_REQ_DENY:
			/* Linked (another name): refused by the planner (attach_one). */
			if (by_landlock_alone && r->exists)
				rc = sbx_strv_push(&e->ll_deny, r->path);
			/* Missing: its first missing component is masked (points.c). */
			else if (!r->exists && (r->mech & SBX_MECH_MOUNT_NS))
				rc = sbx_strv_push(&e->deny_missing, r->path);
			break;
		case SBX_REQ_PROTECT_MISSING:
			if (r->mech & SBX_MECH_MOUNT_NS)
				rc = sbx_strv_push(&e->protect_missing, r->path);
			break;
		case SBX_REQ_NO_CREATE:
			if (r->mech & SBX_MECH_MOUNT_NS)
				rc = sbx_strv_push(&e->no_create, r->path);
			if (rc == 0 && (r->mech & SBX_MECH_MOUNT_NS) &&
			    (r->origin == SBX_ORIGIN_GIT_GLOBAL ||
			     r->origin == SBX_ORIGIN_GIT_SYSTEM))
				rc = sbx_strv_push(&e->no_create_kept, r->path);
			if (rc == 0 && (r->mech & SBX_MECH_MOUNT_NS) &&
			    r->origin == SBX_ORIGIN_GIT_SYSTEM)
				rc = sbx_strv_push(&e->no_create_system, r->path);
			if (rc == 0 && (r->mech & SBX_MECH_MOUNT_NS) && r->origin &&
			    sbx_strv_has(&plan->roots.git_files, r->path))
				rc = sbx_strv_push(&e->no_create_file, r->path);
			break;
		case SBX_REQ_DENY_GLOB: {
			/* Scanned once, before the plan was judged: what is made later is not covered. */
			struct sbx_strv *m = &globs->matches[i];

			for (size_t j = 0; rc == 0 && j < m->n; j++) {
				if (by_landlock_alone)
					rc = sbx_strv_push(&e->ll_deny, m->v[j]);
				if (rc < 0)
					break;
				/* Taken (and freed on failure) by the list. */
				rc = sbx_strv_push_owned(&e->deny_expanded, m->v[j]);
				m->v[j] = NULL;
			}
			break;
		}
		default:
			break;
		}
	}
	if (rc < 0) {
		sbx_linux_enforce_free(e);
		return sbx_diag_set(d, rc, "out of memory");
	}
	/* A watch on a directory Landlock alone denies would report the names inside it. */
	e->seccomp_no_watch = e->ll_deny.n > 0;
	return 0;
}

void sbx_linux_enforce_free(struct sbx_linux_enforce *e)
{
	sbx_strv_clear(&e->deny_expanded);
	sbx_strv_clear(&e->ll_deny);
	sbx_strv_clear(&e->ll_hidden);
	sbx_strv_clear(&e->deny_missing);
	sbx_strv_clear(&e->protect_missing);
	sbx_strv_clear(&e->no_create);
	sbx_strv_clear(&e->no_create_kept);
	sbx_strv_clear(&e->no_create_system);
	sbx_strv_clear(&e->no_create_file);
}
