/* SPDX-License-Identifier: MIT */
/*
 * gitcheck.c - git mode's end-of-run check (sbxrun(1), GIT MODE): what the command left in a
 * repository that would run a program at the caller's next git outside the sandbox, and that
 * no mount can keep from being made, since git writes the very same files for a commit or a
 * rebase of its own.
 *
 *  - A populated gitlink: an entry of mode 160000 in an index whose checkout holds a .git (a
 *    git directory, or a file naming one). git status and git diff enter it and run git there,
 *    with its config (core.fsmonitor runs a program) and hooks.
 *  - A directory under a common directory's modules/: git submodule update takes one made for
 *    a submodule not yet initialised as it finds it, hooks and config included.
 *  - An exec step in a rebase's or a cherry-pick's list of steps still to take
 *    (rebase-merge/git-rebase-todo, sequencer/todo): git rebase --continue runs it.
 *  - A merge strategy other than git's own for the steps still to take (rebase-merge/strategy,
 *    sequencer/opts): git runs git-merge-NAME for it, from the caller's PATH or, when NAME
 *    holds a slash, from the top of the checkout.
 *
 * The same walk runs twice: in the helper before the command starts, which records what it
 * finds as keys (a path, the identity of the object there, an exec step's text), and in the
 * supervisor once every process of the sandbox has ended, where nothing races it; what it finds
 * then that the first walk did not was made by the run, and is reported. A kept object (a
 * submodule's .git, read-only and unrenamable in the run) has the same identity at both ends.
 *
 * What the command left is hostile input: every name is opened below a descriptor taken before
 * the run, never through a symbolic link (openat2 RESOLVE_NO_SYMLINKS, or a component walk
 * with O_NOFOLLOW), without blocking (O_NONBLOCK: a FIFO), as a regular file before it is read,
 * and read bounded. What cannot be read so is itself a finding: it could hide any of the above.
 * The walk is bounded too (SBX_MAX_GIT_DIRS git directories and directories under modules/).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitroots.h"
#include "linux/linux.h"

/* The most read of a list of steps, and of a .git or commondir file (as the planner reads it). */
#define TODO_MAX    (1u << 20)
#define POINTER_MAX 4096u
#define INDEX_CHUNK (64u << 10)
/* The most read of an index: 30 times the 100,000-file checkout's (8.8 MB). */
#define INDEX_MAX (256ull << 20)
/* How deep directories under modules/ are walked (a submodule named a/b/c nests three). */
#define MODULES_DEPTH 16
/*
 * The most names read under modules/ in a walk: each of 256 git directories' own (a dozen), with
 * room to spare. Files there git ignores, but reading millions of them would slow every run.
 */
#define MODULES_NAMES (SBX_MAX_GIT_DIRS * 64)

enum { MODE_START, MODE_END };

struct walk {
	struct sbx_gitcheck *g;
	int mode;
	struct sbx_strv seen; /* the git directories walked, as "dev:ino" */
	size_t n_dirs;	      /* directories under modules/ met */
	size_t n_names;	      /* names under modules/ read, files included */
	char *buf;	      /* INDEX_CHUNK bytes, the index's and the lists' reads */
};

/*
 * The regular file rel below base read whole into a fresh buffer (*out, NUL-terminated, *len
 * bytes) when it is at most max bytes: 0; -ENOENT when missing; -EINVAL when not a regular
 * file, -EFBIG past max, or the error.
 */
static int read_small(int base, const char *rel, size_t max, char **out, size_t *len)
{
	struct stat st;
	char *b;
	size_t got = 0, cap;
	int fd = sbx_linux_open_nolinks(base, rel, O_RDONLY | O_NONBLOCK), r = 0;

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return fd == -ENOTDIR ? -ENOENT : fd;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EINVAL;
	else if ((unsigned long long)st.st_size > max)
		r = -EFBIG;
	/* Its size and a byte more: a file that grows meanwhile is not read as cut. */
	cap = r ? 0 : (size_t)st.st_size + 1;
	b = r ? NULL : malloc(cap + 1);
	if (!r && !b)
		r = -ENOMEM;
	while (!r && got < cap) {
		ssize_t n = read(fd, b + got, cap - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!r && got >= cap)
		r = -EFBIG; /* it grew meanwhile */
	if (r) {
		free(b);
		return r;
	}
	b[got] = '\0';
	*out = b;
	*len = got;
	return 0;
}

/* ---- findings ---------------------------------------------------------------------------- */

/*
 * One finding: at the start its key is recorded; at the end, a key not recorded then is
 * reported, in words (what, path, and the remedy), and 1 returned: what the run made is said
 * whole, not searched further.
 */
static int found(struct walk *w, const char *key, const char *path, const char *msg,
		 const char *hint)
{
	char *k;

	if (w->mode == MODE_START)
		return sbx_strv_push(&w->g->start, key);
	for (size_t lo = 0, hi = w->g->start.n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(key, w->g->start.v[mid]);

		if (!c)
			return 0;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	/* Each once: a git directory reached two ways is walked once, but say so anyway. */
	if (sbx_strv_has(&w->g->said, key))
		return 1;
	k = strdup(key);
	if (!k || sbx_strv_push_owned(&w->g->said, k) < 0)
		return -ENOMEM;
	w->g->n_found++;
	if (w->g->found)
		w->g->found(w->g->arg, path, msg, hint);
	return 1;
}

/* The key "KIND\nPATH\nREST". */
static int keyf(char **out, char kind, const char *path, const char *rest)
{
	return asprintf(out, "%c\n%s\n%s", kind, path, rest) < 0 ? -ENOMEM : 0;
}

/*
 * Something the check cannot read: the same words at start and end, so only a new one speaks.
 * A symbolic link is said at every end, since git follows it where the check does not look: what
 * lies behind it changes without the link changing; so is more than the walk takes, since what
 * lies past its bound changes unseen. id, when given, is the identity of what was
 * found ("dev:ino:size:mtime:ctime": a file too big to read), so that another run's rewriting it
 * is a new finding.
 */
static int unreadable_id(struct walk *w, const char *path, int err, const char *what,
			 const char *id)
{
	char *key = NULL, msg[SBX_MAX_PATH + 512];
	int r;

	if (err == -ENOMEM)
		return err;
	if (w->mode == MODE_START && (err == -ELOOP || err == -E2BIG))
		return 0;
	if (asprintf(&key, "?\n%s\n%s\n%s", path, strerror(-err), id ? id : "") < 0)
		return -ENOMEM;
	snprintf(msg, sizeof(msg),
		 "git mode: %s cannot be checked after the run (%s): it could hold %s", path,
		 err == -EFBIG	  ? "too big"
		 : err == -EINVAL ? "not a regular file, or not as git writes it"
		 : err == -E2BIG  ? "more of them than sbxrun walks"
				  : strerror(-err),
		 what);
	r = found(w, key, path, msg, "look at it before running git outside, or remove it");
	free(key);
	return r < 0 ? r : 0;
}

static int unreadable(struct walk *w, const char *path, int err, const char *what)
{
	return unreadable_id(w, path, err, what, NULL);
}

/* The identity of st as a key's part: any write moves its ctime, which only the clock sets. */
static void identity(char *id, size_t n, const struct stat *st)
{
	snprintf(id, n, "%llu:%llu:%lld:%lld.%ld:%lld.%ld", (unsigned long long)st->st_dev,
		 (unsigned long long)st->st_ino, (long long)st->st_size,
		 (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec,
		 (long long)st->st_ctim.tv_sec, (long)st->st_ctim.tv_nsec);
}

static char *join(const char *a, const char *b)
{
	char *s = NULL;

	return asprintf(&s, "%s%s%s", a, a[0] && a[strlen(a) - 1] != '/' ? "/" : "", b) < 0 ? NULL
											    : s;
}

/* ---- the steps of a rebase or cherry-pick in progress ------------------------------------------ */

/* A line of a list of steps that git runs as a program: "exec CMD" or "x CMD" (sequencer.c). */
static bool exec_step(const char *s, size_t n)
{
	size_t i = 0, w;

	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	w = i;
	while (i < n && s[i] != ' ' && s[i] != '\t')
		i++;
	w = i - w;
	return ((w == 4 && !memcmp(s + i - 4, "exec", 4)) || (w == 1 && s[i - 1] == 'x')) && i < n;
}

/* The exec step s[0..n) of the list at path: its key is its text, said with a safe copy. */
static int step(struct walk *w, const char *path, const char *s, size_t n)
{
	char line[256], msg[SBX_MAX_PATH + 640], *key = NULL;
	int r;

	snprintf(line, sizeof(line), "%.*s", (int)(n < 200 ? n : 200), s);
	if (asprintf(&key, "x\n%s\n%.*s", path, (int)n, s) < 0)
		return -ENOMEM;
	snprintf(msg, sizeof(msg),
		 "git mode: the command left a step that runs a program in %s (\"%s\"): git rebase "
		 "--continue outside the sandbox would run it",
		 path, line);
	r = found(w, key, path, msg,
		  "read the steps (git status) and remove it, or give up that rebase (git rebase "
		  "--abort)");
	free(key);
	return r < 0 ? r : 0;
}

/*
 * The file rel of the git directory gitdir (at path), of what git keeps of an operation in
 * progress, read whole into *text (*len bytes): NULL when missing, or when it cannot be read so,
 * which is said instead (it could hide what). 0 or -ENOMEM.
 */
static int state_read(struct walk *w, int gitdir, const char *path, const char *rel,
		      const char *what, char **text, size_t *len)
{
	int r = read_small(gitdir, rel, TODO_MAX, text, len);

	if (r == -EFBIG) {
		/* git reads it whole: another run's rewrite of it is said again. */
		char id[160] = "";
		struct stat st;
		int fd = sbx_linux_open_nolinks(gitdir, rel, O_PATH);

		if (fd >= 0 && fstat(fd, &st) == 0)
			identity(id, sizeof(id), &st);
		if (fd >= 0)
			close(fd);
		return unreadable_id(w, path, r, what, id);
	}
	if (r == -ENOENT)
		return 0;
	return r ? unreadable(w, path, r, what) : 0;
}

/* The list of steps rel of the git directory gitdir (at dir): each exec step in it. */
static int todo(struct walk *w, int gitdir, const char *dir, const char *rel)
{
	char *text = NULL, *path = join(dir, rel);
	size_t len, i = 0;
	int r;

	if (!path)
		return -ENOMEM;
	r = state_read(w, gitdir, path, rel, "a step git runs as a program (exec)", &text, &len);
	while (text && !r && i < len) {
		const char *eol = memchr(text + i, '\n', len - i);
		size_t n = eol ? (size_t)(eol - (text + i)) : len - i;

		if (exec_step(text + i, n))
			r = step(w, path, text + i, n);
		i += n + 1;
	}
	free(text);
	free(path);
	return r;
}

/* ---- the merge strategy of a rebase or cherry-pick in progress ------------------------------ */

/*
 * The strategies git merges with on its own: ort and recursive in the process, the others with
 * its own programs, which it finds in its exec-path before the caller's PATH (builtin/merge.c,
 * all_strategy). For any other name S, git rebase --continue and git cherry-pick --continue run
 * git-merge-S: a program looked up on the caller's PATH or, with a slash in S, a path from the
 * top of the checkout, where the command writes.
 */
static bool own_strategy(const char *s)
{
	static const char *const own[] = {"ort",     "recursive", "resolve",
					  "octopus", "ours",	  "subtree"};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (!strcmp(s, own[i]))
			return true;
	return false;
}

/*
 * The strategy s that the file at path names: said when none of git's own. cut, when given, is
 * the identity of the file (identity()) of a strategy read only in part: the key holds it, so
 * that a rewrite past the part read is a new finding, not the start's.
 */
static int strategy(struct walk *w, const char *path, const char *s, const char *cut)
{
	char msg[SBX_MAX_PATH + 640], *key = NULL;
	int r;

	if (!cut && own_strategy(s))
		return 0;
	if (asprintf(&key, "s\n%s\n%s%s%s", path, s, cut ? "\n" : "", cut ? cut : "") < 0)
		return -ENOMEM;
	snprintf(msg, sizeof(msg),
		 "git mode: the command named a merge strategy git runs as a program in %s "
		 "(\"%.200s\"): git rebase --continue or git cherry-pick --continue outside the "
		 "sandbox would run it",
		 path, s);
	r = found(w, key, path, msg,
		  "read it and remove it, or give up that rebase or cherry-pick (git rebase "
		  "--abort, git cherry-pick --abort)");
	free(key);
	return r < 0 ? r : 0;
}

/*
 * The strategy of the git directory gitdir (at dir): rebase-merge/strategy, one line (git drops
 * a newline at its end, and a carriage return before it), and sequencer/opts's options.strategy.
 */
static int strategies(struct walk *w, int gitdir, const char *dir)
{
	static const char what[] = "a merge strategy git runs as a program";
	/* As long a value as a line the config reader takes whole: the key is the name. */
	char *text = NULL, *path = join(dir, "rebase-merge/strategy"), val[1024], id[160] = "";
	size_t len;
	int r;

	if (!path)
		return -ENOMEM;
	r = state_read(w, gitdir, path, "rebase-merge/strategy", what, &text, &len);
	if (text && !r) {
		if (len && text[len - 1] == '\n' && --len && text[len - 1] == '\r')
			len--;
		text[len] = '\0'; /* and git's string ends at a NUL byte before */
		r = strategy(w, path, text, NULL);
	}
	free(text);
	free(path);
	text = NULL;
	path = r ? NULL : join(dir, "sequencer/opts");
	if (r || !path)
		return r ? r : -ENOMEM;
	r = state_read(w, gitdir, path, "sequencer/opts", what, &text, &len);
	if (text && !r) {
		int got = sbx_git_sequencer_strategy(text, len, val, sizeof(val));

		/* Longer still: the file's identity, which any rewrite of it moves (its ctime). */
		if (got > 1) {
			struct stat st;
			int fd = sbx_linux_open_nolinks(gitdir, "sequencer/opts", O_PATH);

			if (fd >= 0 && fstat(fd, &st) == 0)
				identity(id, sizeof(id), &st);
			if (fd >= 0)
				close(fd);
		}
		r = got < 0   ? unreadable(w, path, got, what)
		    : got > 1 ? strategy(w, path, val, id)
		    : got     ? strategy(w, path, val, NULL)
			      : 0;
	}
	free(text);
	free(path);
	return r;
}

/* What git takes up again of an operation in progress: its steps, and its strategy. */
static int in_progress(struct walk *w, int gitdir, const char *dir)
{
	int r = todo(w, gitdir, dir, "rebase-merge/git-rebase-todo");

	if (!r)
		r = todo(w, gitdir, dir, "sequencer/todo");
	return r ? r : strategies(w, gitdir, dir);
}

/* ---- directories under modules/ ------------------------------------------------------------- */

static int modules(struct walk *w, int base, const char *path, int depth)
{
	DIR *dir;
	struct dirent *de;
	/* An O_PATH descriptor cannot be listed: the directory itself, opened again. */
	int fd = openat(base, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), r = 0;

	if (fd < 0)
		return unreadable(w, path, -errno, "a submodule's git directory");
	dir = fdopendir(fd);
	if (!dir) {
		r = -errno;
		close(fd);
		return unreadable(w, path, r, "a submodule's git directory");
	}
	while (!r && (de = readdir(dir))) {
		char *sub, *key = NULL, msg[SBX_MAX_PATH + 512], id[64];
		struct stat st;
		int cfd;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (++w->n_names > MODULES_NAMES) {
			r = unreadable(w, path, -E2BIG, "a submodule's git directory");
			break;
		}
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue;
			r = -errno;
			break;
		}
		if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
			continue;
		if (depth > 0 && sbx_git_own_subdir(de->d_name) && strcmp(de->d_name, "modules"))
			continue; /* objects/, refs/ and the like of a submodule's git directory */
		sub = join(path, de->d_name);
		if (!sub) {
			r = -ENOMEM;
			break;
		}
		if (depth > 0 && !strcmp(de->d_name, "modules")) {
			/* A submodule's own submodules: walked as the top's are. */
			cfd = sbx_linux_open_nolinks(dirfd(dir), de->d_name, O_PATH | O_DIRECTORY);
			r = cfd < 0 ? unreadable(w, sub, cfd, "a submodule's git directory")
				    : modules(w, cfd, sub, depth + 1);
			if (cfd >= 0)
				close(cfd);
			free(sub);
			continue;
		}
		if (++w->n_dirs > SBX_MAX_GIT_DIRS || depth >= MODULES_DEPTH) {
			r = unreadable(w, path, -E2BIG, "a submodule's git directory");
			free(sub);
			break;
		}
		snprintf(id, sizeof(id), "%s%llu:%llu", S_ISLNK(st.st_mode) ? "link " : "",
			 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino);
		r = keyf(&key, 'm', sub, id);
		snprintf(msg, sizeof(msg),
			 "git mode: the command made %s%s, a git directory for a submodule: git "
			 "submodule update outside the sandbox takes it as it finds it, hooks and "
			 "config included",
			 sub, S_ISLNK(st.st_mode) ? " (a symbolic link)" : "");
		if (!r)
			r = found(w, key, sub, msg,
				  "look at its config and hooks before git submodule update, or "
				  "remove it");
		free(key);
		/* A new one is said whole; one from the start is searched for nested names. */
		if (r > 0)
			r = 0;
		else if (!r && S_ISDIR(st.st_mode)) {
			cfd = sbx_linux_open_nolinks(dirfd(dir), de->d_name, O_PATH | O_DIRECTORY);
			r = cfd < 0 ? unreadable(w, sub, cfd, "a submodule's git directory")
				    : modules(w, cfd, sub, depth + 1);
			if (cfd >= 0)
				close(cfd);
		}
		free(sub);
	}
	closedir(dir);
	return r;
}

/*
 * The directories under modules/ of the git directory gitdir (at path): the common directory's,
 * and a linked worktree's own (git keeps the submodules of a linked worktree there).
 */
static int gitdir_modules(struct walk *w, int gitdir, const char *path)
{
	char *mpath = join(path, "modules");
	int fd, r = 0;

	if (!mpath)
		return -ENOMEM;
	fd = sbx_linux_open_nolinks(gitdir, "modules", O_PATH | O_DIRECTORY);
	if (fd >= 0) {
		r = modules(w, fd, mpath, 0);
		close(fd);
	} else if (fd != -ENOENT && fd != -ENOTDIR) {
		r = unreadable(w, mpath, fd, "a submodule's git directory");
	}
	free(mpath);
	return r;
}

/* ---- the gitlinks of each index ------------------------------------------------------------ */

/* The gitlinks of gitdir's index, object names of hashsz bytes: 0 or the reading's error. */
static int index_as(struct walk *w, int fd, size_t hashsz, struct sbx_strv *links, const char **why)
{
	struct sbx_gitindex x;
	unsigned long long got = 0;
	int r = 0;

	sbx_gitindex_init(&x, hashsz, SBX_MAX_GIT_DIRS, links);
	if (lseek(fd, 0, SEEK_SET) < 0)
		r = -errno;
	while (!r) {
		ssize_t n = read(fd, w->buf, INDEX_CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		if (n <= 0)
			break;
		got += (unsigned long long)n;
		r = got > INDEX_MAX ? -EFBIG : sbx_gitindex_feed(&x, w->buf, (size_t)n);
	}
	if (r && r != x.err) {
		sbx_gitindex_end(&x);
		return r;
	}
	r = sbx_gitindex_end(&x);
	*why = x.why;
	return r;
}

static int walk_gitdir(struct walk *w, int gitdir, const char *gdpath, int checkout,
		       const char *copath);

/* The checkout copath/link of a gitlink: what is at its .git, and the git directory it names. */
static int gitlink(struct walk *w, int checkout, const char *copath, const char *link)
{
	char *sub = join(copath, link), *dotgit = NULL, *rel = NULL, *key = NULL;
	char id[64], msg[SBX_MAX_PATH * 2 + 512], *text = NULL, *target = NULL;
	struct stat st;
	size_t len;
	int fd = -1, subfd = -1, gfd = -1, r = 0;

	if (!sub || !(dotgit = join(sub, ".git")) || !(rel = join(link, ".git"))) {
		r = -ENOMEM;
		goto out;
	}
	fd = sbx_linux_open_nolinks(checkout, rel, O_PATH);
	if (fd == -ENOENT || fd == -ENOTDIR)
		goto out; /* not checked out: git status does not enter it */
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = unreadable(w, dotgit, fd < 0 ? fd : -errno, "a submodule git would enter");
		goto out;
	}
	snprintf(id, sizeof(id), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	r = keyf(&key, 'g', dotgit, id);
	snprintf(msg, sizeof(msg),
		 "git mode: the command registered a submodule of its own at %s (a gitlink in "
		 "the index, and %s): git status and git diff outside the sandbox enter it and run "
		 "what its config names (core.fsmonitor)",
		 sub,
		 S_ISDIR(st.st_mode)   ? "a git directory there"
		 : S_ISREG(st.st_mode) ? "a .git file there"
				       : "a .git there that git would follow");
	if (!r)
		r = found(w, key, sub, msg,
			  "look at its config and hooks before running git in the repository "
			  "outside, or remove it (git rm --cached, then rm -rf the directory)");
	if (r) {
		r = r < 0 ? r : 0; /* a new one is said whole */
		goto out;
	}
	/* Its own index may name more: walked as deep as the gitlinks go. */
	subfd = sbx_linux_open_nolinks(checkout, link, O_PATH | O_DIRECTORY);
	if (subfd < 0)
		goto out; /* said above if it mattered: its .git opened */
	if (S_ISDIR(st.st_mode)) {
		r = walk_gitdir(w, fd, dotgit, subfd, sub);
	} else if (S_ISREG(st.st_mode)) {
		r = read_small(subfd, ".git", POINTER_MAX, &text, &len);
		if (r == -ENOENT) {
			r = 0;
		} else if (r) {
			r = unreadable(w, dotgit, r, "the git directory of a submodule");
		} else if (!strncmp(text, "gitdir: ", 8)) {
			char *t = text + 8;
			size_t n = strnlen(t, len - 8);

			while (n && (t[n - 1] == '\n' || t[n - 1] == '\r'))
				n--;
			t[n] = '\0';
			if (t[0] == '/')
				target = strdup(t);
			else
				sbx_path_join(sub, t, &target);
			if (!target) {
				r = -ENOMEM;
			} else {
				gfd = sbx_linux_open_nolinks(AT_FDCWD, target,
							     O_PATH | O_DIRECTORY);
				if (gfd >= 0)
					r = walk_gitdir(w, gfd, target, subfd, sub);
				else if (gfd != -ENOENT && gfd != -ENOTDIR)
					r = unreadable(w, target, gfd,
						       "the git directory of a submodule");
			}
		}
	}
out:
	if (fd >= 0)
		close(fd);
	if (subfd >= 0)
		close(subfd);
	if (gfd >= 0)
		close(gfd);
	free(text);
	free(target);
	free(key);
	free(rel);
	free(dotgit);
	free(sub);
	return r;
}

/* The start's reading of the index iid names (its identity): a copy of links. */
static int keep_index(struct sbx_gitcheck *g, const char *iid, const struct sbx_strv *links)
{
	struct sbx_gitcheck_index *more = realloc(g->idx, (g->n_idx + 1) * sizeof(*g->idx));
	struct sbx_gitcheck_index *x;
	int r = 0;

	if (!more)
		return -ENOMEM;
	g->idx = more;
	x = &g->idx[g->n_idx];
	memset(x, 0, sizeof(*x));
	x->id = strdup(iid);
	if (!x->id)
		return -ENOMEM;
	for (size_t i = 0; !r && i < links->n; i++)
		r = sbx_strv_push(&x->links, links->v[i]);
	g->n_idx++; /* freed whole, as far as it got */
	return r;
}

/*
 * A git directory (gitdir, at gdpath) serving the checkout at copath: what is in progress,
 * and the gitlinks of its index, each walked in turn. Each git directory once, SBX_MAX_GIT_DIRS
 * at most.
 */
static int walk_gitdir(struct walk *w, int gitdir, const char *gdpath, int checkout,
		       const char *copath)
{
	struct sbx_strv links = {0};
	const struct sbx_strv *use = NULL;
	const char *why = "";
	char id[64], iid[160], *ipath;
	struct stat st;
	int fd, r;

	if (fstat(gitdir, &st) < 0)
		return unreadable(w, gdpath, -errno, "a submodule git would enter");
	snprintf(id, sizeof(id), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	if (sbx_strv_has(&w->seen, id))
		return 0;
	if (w->seen.n >= SBX_MAX_GIT_DIRS)
		return unreadable(w, gdpath, -E2BIG, "a submodule git would enter");
	r = sbx_strv_push(&w->seen, id);
	if (!r)
		r = in_progress(w, gitdir, gdpath);
	if (r)
		return r;
	ipath = join(gdpath, "index");
	if (!ipath)
		return -ENOMEM;
	fd = sbx_linux_open_nolinks(gitdir, "index", O_RDONLY | O_NONBLOCK);
	if (fd == -ENOENT) {
		free(ipath);
		return 0; /* no index: no gitlink */
	}
	if (fd >= 0) {
		r = fstat(fd, &st) < 0				 ? -errno
		    : !S_ISREG(st.st_mode)			 ? -EINVAL
		    : (unsigned long long)st.st_size > INDEX_MAX ? -EFBIG
								 : 0;
		if (r) {
			close(fd);
			fd = r;
		}
	}
	if (fd < 0) {
		if (fd == -EFBIG)
			identity(iid, sizeof(iid), &st);
		r = unreadable_id(w, ipath, fd, "a submodule git would enter (a gitlink)",
				  fd == -EFBIG ? iid : NULL);
		free(ipath);
		return r;
	}
	/*
	 * The same file, unchanged since the start (its inode, size, and times: the command can
	 * set mtime, but any write moves ctime, which only the clock sets), names the same
	 * gitlinks: read once, where the run left the index alone.
	 */
	identity(iid, sizeof(iid), &st);
	for (size_t i = 0; w->mode == MODE_END && !use && i < w->g->n_idx; i++)
		if (!strcmp(w->g->idx[i].id, iid))
			use = &w->g->idx[i].links;
	/* As the planner reads it: SHA-1 object names, else SHA-256 ones. */
	if (!use) {
		r = index_as(w, fd, 20, &links, &why);
		if (r == -EINVAL) {
			sbx_strv_clear(&links);
			r = index_as(w, fd, 32, &links, &why);
		}
		use = &links;
	}
	close(fd);
	if (r) {
		/* What it names cannot be told: none of it is walked. */
		sbx_strv_clear(&links);
		r = unreadable(w, ipath, r == -ENOTSUP ? -EINVAL : r,
			       "a submodule git would enter (a gitlink)");
	} else if (w->mode == MODE_START) {
		r = keep_index(w->g, iid, &links);
	}
	for (size_t i = 0; !r && i < use->n; i++)
		r = gitlink(w, checkout, copath, use->v[i]);
	sbx_strv_clear(&links);
	free(ipath);
	return r;
}

/* ---- the repositories of the writable roots -------------------------------------------------- */

/*
 * The one path a .git, gitdir or commondir file names (git's reading: newlines dropped at its
 * end), after prefix, joined to from when relative.
 */
static int pointer(int base, const char *rel, const char *prefix, const char *from, char **out)
{
	char *text = NULL;
	size_t len, n, p = strlen(prefix);
	int r = read_small(base, rel, POINTER_MAX, &text, &len);

	*out = NULL;
	if (r)
		return r;
	n = strnlen(text, len);
	while (n && (text[n - 1] == '\n' || text[n - 1] == '\r'))
		n--;
	text[n] = '\0';
	if (strncmp(text, prefix, p)) {
		free(text);
		return -EINVAL;
	}
	if (text[p] == '/')
		*out = strdup(text + p);
	else
		sbx_path_join(from, text[p] ? text + p : ".", out);
	free(text);
	return *out ? 0 : -ENOMEM;
}

/*
 * A linked worktree's git directory gitdir (at path): what is in progress, and the gitlinks of
 * its index in the checkout its gitdir file names (kept read-only in git mode), walked as the
 * root's are. A worktree whose checkout is gone (git worktree prune removes it) has none.
 */
static int worktree(struct walk *w, int gitdir, const char *path)
{
	char *dotgit = NULL, *co = NULL;
	int r = pointer(gitdir, "gitdir", "", path, &dotgit), cfd;

	if (r == -ENOENT || r == -EINVAL) {
		r = 0;
	} else if (!r) {
		co = strndup(dotgit, sbx_path_parent_len(dotgit, strlen(dotgit)));
		r = co ? 0 : -ENOMEM;
	} else if (r != -ENOMEM) {
		char *f = join(path, "gitdir");

		r = f ? unreadable(w, f, r, "the checkout of a linked worktree") : -ENOMEM;
		free(f);
	}
	if (!r && co && co[0] == '/') {
		cfd = sbx_linux_open_nolinks(AT_FDCWD, co, O_PATH | O_DIRECTORY);
		if (cfd >= 0) {
			r = walk_gitdir(w, gitdir, path, cfd, co);
			close(cfd);
			free(dotgit);
			free(co);
			return r;
		}
		if (cfd != -ENOENT && cfd != -ENOTDIR)
			r = unreadable(w, co, cfd, "a submodule git would enter (a gitlink)");
	}
	free(dotgit);
	free(co);
	return r ? r : in_progress(w, gitdir, path);
}

/* A linked worktree: the above, and the git directories of its own submodules. */
static int worktree_all(struct walk *w, int gitdir, const char *path)
{
	int r = worktree(w, gitdir, path);

	return r ? r : gitdir_modules(w, gitdir, path);
}

/* The whole walk over g's repositories, in mode. */
static int walk_all(struct sbx_gitcheck *g, int mode)
{
	struct walk w = {.g = g, .mode = mode};
	int r = 0;

	w.buf = malloc(INDEX_CHUNK);
	if (!w.buf)
		return -ENOMEM;
	for (size_t i = 0; !r && i < g->n; i++) {
		struct sbx_gitcheck_repo *o = &g->v[i];
		char *wpath = join(o->common_path, "worktrees");
		int fd;

		if (!wpath)
			r = -ENOMEM;
		if (!r)
			r = walk_gitdir(&w, o->gitdir, o->gitdir_path, o->root, o->root_path);
		/* The common directory's submodules' git directories. */
		if (!r)
			r = gitdir_modules(&w, o->common, o->common_path);
		/* Each linked worktree's steps in progress (its checkout lies elsewhere). */
		fd = r ? -1
		       : sbx_linux_open_nolinks(o->common, "worktrees", O_RDONLY | O_DIRECTORY);
		if (fd >= 0) {
			DIR *dir = fdopendir(fd);
			struct dirent *de;
			size_t n = 0;

			if (!dir)
				close(fd);
			while (dir && !r && (de = readdir(dir))) {
				char *wt;
				int wfd;

				if (de->d_name[0] == '.')
					continue;
				if (++n > SBX_MAX_GIT_DIRS) {
					r = unreadable(&w, wpath, -E2BIG,
						       "a linked worktree's steps in progress");
					break;
				}
				wfd = sbx_linux_open_nolinks(dirfd(dir), de->d_name,
							     O_PATH | O_DIRECTORY);
				if (wfd < 0)
					continue; /* a file, or a link: git mode refuses those */
				wt = join(wpath, de->d_name);
				r = wt ? worktree_all(&w, wfd, wt) : -ENOMEM;
				free(wt);
				close(wfd);
			}
			if (dir)
				closedir(dir);
		} else if (fd != -1 && fd != -ENOENT && fd != -ENOTDIR) {
			r = unreadable(&w, wpath, fd, "a linked worktree's steps in progress");
		}
		free(wpath);
	}
	sbx_strv_clear(&w.seen);
	free(w.buf);
	return r;
}

/* The repository of writable root root, if it has one: its descriptors taken now. */
static int add_root(struct sbx_gitcheck *g, const char *root)
{
	struct sbx_gitcheck_repo o = {.root = -1, .gitdir = -1, .common = -1};
	char *common = NULL;
	struct stat st;
	int r = 0;

	o.root = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (o.root < 0)
		return 0; /* the plan looked it up: a root that is no directory has no .git */
	if (fstatat(o.root, ".git", &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
		close(o.root);
		return 0; /* none, or a link (kept read-only whole: git mode does not lift it) */
	}
	o.root_path = strdup(root);
	if (!o.root_path)
		r = -ENOMEM;
	if (!r && S_ISDIR(st.st_mode)) {
		o.gitdir_path = join(root, ".git");
		r = o.gitdir_path ? 0 : -ENOMEM;
	} else if (!r) {
		r = pointer(o.root, ".git", "gitdir: ", root, &o.gitdir_path);
	}
	if (!r)
		o.gitdir = open(o.gitdir_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (!r && o.gitdir >= 0) {
		/* A linked worktree's common directory holds modules/ and worktrees/. */
		r = pointer(o.gitdir, "commondir", "", o.gitdir_path, &common);
		if (r == -ENOENT || r == -EINVAL || r == -EFBIG)
			r = 0;
		o.common_path = common ? common : strdup(o.gitdir_path);
		if (!r && !o.common_path)
			r = -ENOMEM;
		if (!r)
			o.common = open(o.common_path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	}
	if (r == -ENOMEM || (!r && o.gitdir >= 0 && o.common >= 0)) {
		struct sbx_gitcheck_repo *more =
			r ? NULL : realloc(g->v, (g->n + 1) * sizeof(*g->v));

		if (more) {
			g->v = more;
			g->v[g->n++] = o;
			return 0;
		}
		r = -ENOMEM;
	}
	/* No git directory git could use there: nothing of it to check. */
	if (o.common >= 0)
		close(o.common);
	if (o.gitdir >= 0)
		close(o.gitdir);
	close(o.root);
	free(o.root_path);
	free(o.gitdir_path);
	free(o.common_path);
	return r == -ENOMEM ? r : 0;
}

int sbx_gitcheck_start(struct sbx_gitcheck *g, const struct sbx_roots *roots, struct sbx_diag *d)
{
	int r = 0;

	for (size_t i = 0; !r && i < roots->n_writable; i++)
		r = add_root(g, roots->writable[i].root);
	if (!r)
		r = walk_all(g, MODE_START);
	if (r)
		return sbx_diag_set(d, r, "git mode: the check of the repository: %s",
				    strerror(-r));
	sbx_strv_sort(&g->start);
	return 0;
}

size_t sbx_gitcheck_end(struct sbx_gitcheck *g)
{
	int r = walk_all(g, MODE_END);

	/* Out of memory half-way: what is not checked is not called clean. */
	if (r < 0 && g->found) {
		char msg[256];

		snprintf(msg, sizeof(msg),
			 "git mode: the repository could not be checked after the run: %s",
			 strerror(-r));
		g->found(g->arg, NULL, msg, "look at it before running git outside");
		g->n_found++;
	}
	return g->n_found;
}

void sbx_gitcheck_free(struct sbx_gitcheck *g)
{
	for (size_t i = 0; i < g->n; i++) {
		close(g->v[i].root);
		close(g->v[i].gitdir);
		close(g->v[i].common);
		free(g->v[i].root_path);
		free(g->v[i].gitdir_path);
		free(g->v[i].common_path);
	}
	free(g->v);
	for (size_t i = 0; i < g->n_idx; i++) {
		free(g->idx[i].id);
		sbx_strv_clear(&g->idx[i].links);
	}
	free(g->idx);
	sbx_strv_clear(&g->start);
	sbx_strv_clear(&g->said);
	memset(g, 0, sizeof(*g));
}
