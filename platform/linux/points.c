/* SPDX-License-Identifier: MIT */
/*
 * points.c - the mount points made on the host for a run, as Codex makes them: a name inside a
 * writable root that the command must not create (a missing .git, .agents or .codex; the first
 * missing component of a denied path) can only be refused by a mount at that very name, and a
 * mount needs something there to sit on. The supervisor makes it before the sandbox starts and
 * removes it after every process of the sandbox has ended (but init, which then only exits:
 * sbx_supervise_on_empty).
 *
 * Everything here goes through descriptors: a point is made with mkdirat or openat(O_CREAT |
 * O_EXCL) in the descriptor its parent's one look-up kept, opened, locked, and checked to be
 * the very object at that name (never a check by path and then a use by path). An earlier run
 * can only have left an empty object there (its own point, if it was killed before its
 * clean-up: SIGKILL): an empty directory, or an empty file at a protected name, is taken as a
 * leftover and used as it is; a denied path's point is a file holding MARKER, so that only a
 * point is taken for one. Anything else at that name refuses the run.
 *
 * Only what this run could have made is ever removed (point_ours): the caller's, as the kernel
 * says (owned), with no write permission and the sticky bit (made 01555 or 01444, whatever the
 * umask), of the shape planned. The sticky bit is the mark the user's own objects do not carry:
 * an empty read-only directory the user made (.git/hooks of mode 0555) is no leftover of a
 * killed run, and removing it would lose it. The command can set the bit on what it owns in a
 * writable root, never at a masked name: a mark it forges there makes a later run remove an
 * empty object it could have removed itself, but for the root's own directory, which it cannot
 * remove: empty and at a name another run protects, that run removes it. Another user can fake every other fact of a point
 * (an empty directory of mode 01555 in /tmp), and root can remove it: such an object, or an
 * unmarked or writable empty .git of the user's own, is masked as it stands (and share-locked,
 * so that its owner's run leaves it while this one lasts), then left in place.
 *
 * Runs in the same workspace share points: each holds a shared flock(2) on its point for as
 * long as it runs, and the one that can turn it exclusive at the end (no other run holds it)
 * removes it. A run that starts meanwhile waits for that lock and, finding the name gone, makes
 * the point again. It waits two seconds at most: anyone who can open the object can hold the
 * lock for ever (lock_shared), and the run is then refused, naming the path.
 *
 * At the end, whatever is at the name other than the empty point itself was created on the host
 * during the run, by someone outside the sandbox (inside, the name is a read-only mount): it is
 * removed as Codex removes it, reported, and the run's exit status becomes 1 (enter.c). At a
 * name of the caller's global git config it is reported and left, the status 1 all the same:
 * there, what appears is the caller's own config (git config --global in another terminal),
 * which the run is no judge of, and removing it would lose it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "linux/linux.h"

/* What a denied path's point holds on the host, for whoever finds it there. */
static const char MARKER[] = "sbxrun: keeps a denied path from being created while a sandbox "
			     "runs; removed when the run ends\n";

/* Attempts at a point that a finishing run keeps removing under us. */
#define MAKE_TRIES 8
/*
 * How long a run waits for another's exclusive lock on a point, in steps of LOCK_STEP_MS. A run
 * ending holds it only while it checks and removes the point; anyone who can open the object
 * (a point is world-readable, and another user's object is that user's) can hold it for as
 * long as they like, which an unbounded wait turned into a run that never started.
 */
#define LOCK_WAIT_MS 2000
#define LOCK_STEP_MS 10
/* Directories deeper than this below a point are not removed (reported). */
#define REMOVE_DEPTH_MAX 64

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- what an object at a point's name is ---------------------------------------------------- */

/* A record of getdents64(2), as the kernel lays it out (struct linux_dirent64). */
struct kdirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/*
 * Does the directory dfd hold no entry? 1 yes, 0 no, -errno when it cannot be listed (-ENOENT:
 * it was removed meanwhile, which readdir(3) would take for the end of an empty listing). Listed by
 * getdents64(2) into the stack, not through a DIR: this runs twice per point on every start,
 * and musl's fdopendir adds an fstat, two fcntl calls and a heap block to each listing.
 */
static int dir_empty(int dfd)
{
	/* Room for a few entries; an empty directory has two, "." and "..". */
	char buf[1024] __attribute__((aligned(8)));
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), empty = 1;
	long n;

	if (fd < 0)
		return -errno;
	while (empty == 1 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			empty = -errno;
			break;
		}
		for (long off = 0; off < n && empty == 1;) {
			const struct kdirent *de = (const struct kdirent *)(buf + off);

			if (strcmp(de->name, ".") != 0 && strcmp(de->name, "..") != 0)
				empty = 0;
			off += de->reclen;
		}
	}
	close(fd);
	return empty;
}

/*
 * Opens for reading, with flags besides, the object that fd holds (an O_PATH descriptor too):
 * a new descriptor, or -1 with errno set. Through /proc/self/fd, never by a name.
 */
static int reopen(int fd, int flags)
{
	char self[64];

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	return open(self, O_RDONLY | O_CLOEXEC | flags);
}

/*
 * Is the object fd (of type st) a point of the kind asked: an empty directory (dir), or a regular
 * file holding exactly holds? A directory removed meanwhile counts as empty when gone_empty (at
 * the start: another run's clean-up removed it, and the point is made again and checked by its
 * identity), and never in the clean-up, where the name may hold something else by then.
 */
static bool empty_point(int fd, const struct stat *st, bool dir, const char *holds, bool gone_empty)
{
	size_t want = strlen(holds);
	char buf[sizeof(MARKER)];
	ssize_t n;
	int rfd, r;

	if (dir) {
		r = S_ISDIR(st->st_mode) ? dir_empty(fd) : 0;
		return r == 1 || (gone_empty && r == -ENOENT);
	}
	if (!S_ISREG(st->st_mode) || (size_t)st->st_size != want)
		return false;
	if (!want)
		return true;
	n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0 && errno == EBADF) {
		/* An O_PATH descriptor cannot be read: open the object it holds again. */
		rfd = reopen(fd, 0);
		if (rfd < 0)
			return false;
		n = pread(rfd, buf, sizeof(buf), 0);
		close(rfd);
	}
	return n == (ssize_t)want && memcmp(buf, holds, want) == 0;
}

/*
 * Whose is the object fd (of type st; fd may be O_PATH)? 1 the caller's own, 0 another user's,
 * -errno when the kernel cannot be asked (a symbolic link, a device, an object the caller may
 * not read).
 *
 * The owner stat shows is not enough: in a user namespace an owner that the namespace does not
 * map reads as the overflow uid, 65534, which may be the caller's own uid there (a namespace made
 * by nobody, a rootless container), so root's object and the caller's read alike. The kernel
 * compares the real ids: an open with O_NOATIME takes the object's owner or CAP_FOWNER over it
 * (in a user namespace, only over objects whose owner it maps), the very right that removing it
 * from a sticky directory takes, and it is checked before the object's own open (a socket then
 * fails with ENXIO). Root holds CAP_FOWNER over everyone's, so the owner shown must be the
 * caller's as well. A device is not opened: its open acts on it, and only root can make one.
 * A descriptor open for reading (a point found at the start) is asked the same question without
 * an open: F_SETFL of O_NOATIME takes the same right, and spares the look-up in /proc at start-up.
 */
static int owned(int fd, const struct stat *st)
{
	int rfd, fl;

	if (st->st_uid != geteuid())
		return 0;
	if (S_ISLNK(st->st_mode) || S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode))
		return -EOPNOTSUPP;
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && !(fl & (O_PATH | O_NOATIME))) {
		if (fcntl(fd, F_SETFL, fl | O_NOATIME) < 0)
			return errno == EPERM ? 0 : -errno;
		fcntl(fd, F_SETFL, fl);
		return 1;
	}
	rfd = reopen(fd, O_NOATIME | O_NONBLOCK | O_NOCTTY);
	if (rfd >= 0)
		close(rfd);
	else if (errno == EPERM)
		return 0;
	else if (!(errno == ENXIO && S_ISSOCK(st->st_mode)))
		return -errno;
	return 1;
}

/*
 * Could this run have made the object fd (of type st)? Its user's own (owned), with no write
 * permission and the sticky bit: a point is made 01555 or 01444. Another user's object in a
 * shared directory (a point of that user's, or what an attacker made to look like one), or one
 * of the user's own that is writable or unmarked (a .git/hooks of mode 0555 the user made), is
 * not this run's to remove.
 */
static bool point_ours(int fd, const struct stat *st)
{
	return (st->st_mode & (S_ISVTX | 0222)) == S_ISVTX && owned(fd, st) == 1;
}

/* ---- finding the points of a plan ---------------------------------------------------------- */

/*
 * Can nothing be created in the directory e (sbx_rulepath_sealed: the answer the helper's plan
 * read of the same object) for as long as the run lasts? Not known, or a directory the command
 * could make writable again: no.
 */
static bool sealed(const struct sbx_rulepath *e)
{
	int s = sbx_rulepath_sealed(e);

	return s == SBX_SEALED_ROFS || s == SBX_SEALED_ACCESS;
}

/* The one look-up of path, or -errno worded in d (a failure is never taken for "missing"). */
static int look(struct sbx_rulepaths *res, const char *path, const struct sbx_rulepath **f,
		struct sbx_diag *d)
{
	*f = sbx_rulepath_get(res, path);
	if (!*f)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	if ((*f)->err)
		return sbx_lookup_failed(d, (*f)->err, path);
	return 0;
}

/*
 * Does a writable root hold path strictly (so that the command could create it)? path is where
 * a name resolves, and so is each root compared: one named through the user's link (--write
 * ~/link) holds what lies below where the link leads, under that name alone.
 */
static int under_writable_root(struct sbx_rulepaths *res, const struct sbx_roots *r,
			       const char *path, bool *yes, struct sbx_diag *d)
{
	*yes = false;
	for (size_t i = 0; i < r->n_writable && !*yes; i++) {
		const char *root = r->writable[i].root;
		const struct sbx_rulepath *w;
		int rc = look(res, root, &w, d);

		if (rc < 0)
			return rc;
		if (w->real)
			root = w->real;
		*yes = sbx_path_covers(root, path) && strcmp(root, path);
	}
	return 0;
}

/* Adds the point parent/name (a directory that exists), unless it is there already. */
static int add_point(struct sbx_points *pts, const struct sbx_rulepath *parent, const char *name,
		     bool dir, bool protect, bool keep_created, const char *holds,
		     const struct sbx_rulepath *leftover, struct sbx_diag *d)
{
	struct sbx_point *pt;
	char *path = NULL;

	if (sbx_path_join(parent->real, name, &path) < 0)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	for (size_t i = 0; i < pts->n; i++)
		if (strcmp(pts->v[i].path, path) == 0) {
			/* A protected name and a denied path below it: the directory holds both. */
			pts->v[i].dir |= dir;
			pts->v[i].protect |= protect;
			/* What another rule of the name removes is not left for this one. */
			pts->v[i].keep_created &= keep_created;
			free(path);
			return 0;
		}
	if (pts->n == pts->cap) {
		size_t cap = pts->cap ? pts->cap * 2 : 8;
		struct sbx_point *v = realloc(pts->v, cap * sizeof(*v));

		if (!v) {
			free(path);
			return sbx_diag_set(d, -ENOMEM, "out of memory");
		}
		pts->v = v;
		pts->cap = cap;
	}
	pt = &pts->v[pts->n++];
	*pt = (struct sbx_point){.path = path,
				 .name = strrchr(path, '/') + 1,
				 .parent = parent,
				 .dir = dir,
				 .protect = protect,
				 .keep_created = keep_created,
				 .holds = holds,
				 .fd = -1,
				 .op = -1};
	if (leftover) {
		pt->leftover = true;
		pt->dev = leftover->facts.dev;
		pt->ino = leftover->facts.ino;
	}
	return 0;
}

/* The parent directory of path (a copy), for the look-up of a point's parent. */
static char *parent_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return NULL;
	return slash == path ? strdup("/") : strndup(path, (size_t)(slash - path));
}

/*
 * A denied path that does not exist: the first component on its way that is not a directory.
 * Missing, it becomes a point when a writable root holds it (elsewhere nothing can create it);
 * a leftover point there is taken as it is; anything else there (a file of the user's) is bound
 * read-only onto itself, so that it cannot be replaced by a directory.
 */
static int deny_point(const struct sbx_linux_enforce *e, const char *denied, struct sbx_points *out,
		      struct sbx_diag *d)
{
	const struct sbx_rulepath *up = NULL, *f = NULL;
	char *at = strdup(denied), *parent = NULL, *real = NULL;
	bool held = false;
	struct stat st;
	int rc = at ? 0 : -ENOMEM;

	/* Up from the denied path to the deepest ancestor that exists. */
	while (rc == 0 && strcmp(at, "/") != 0) {
		parent = parent_of(at);
		rc = parent ? look(e->res, parent, &up, d) : -ENOMEM;
		if (rc < 0 || up->facts.exists)
			break;
		free(at);
		at = parent;
		parent = NULL;
	}
	if (rc < 0 || !up || !up->facts.exists)
		goto out;
	/* A file on the way is the component in question; else the missing child of up. */
	if (up->facts.type != SBX_FT_DIR) {
		free(at);
		at = parent;
		parent = parent_of(at);
		rc = parent ? look(e->res, parent, &up, d) : -ENOMEM;
		if (rc < 0 || !up->facts.exists || up->facts.type != SBX_FT_DIR)
			goto out;
	}
	rc = sbx_path_join(up->real, strrchr(at, '/') + 1, &real);
	if (rc == 0)
		rc = look(e->res, real, &f, d);
	if (rc == 0)
		rc = under_writable_root(e->res, e->roots, real, &held, d);
	if (rc < 0 || !held)
		goto out;
	/*
	 * Never left without a point, sealed directory or not (lib/plan_linux.c): a rename of a
	 * directory on the way would let the command make the path anew. Where the point cannot be
	 * made, the run refuses.
	 */
	if (!f->facts.exists && !f->facts.is_link)
		rc = add_point(out, up, strrchr(real, '/') + 1, false, false, false, MARKER, NULL,
			       d);
	else if (f->facts.exists && !f->facts.is_link && f->facts.type == SBX_FT_REG &&
		 fstat(f->fd, &st) == 0 && empty_point(f->fd, &st, false, MARKER, true))
		rc = add_point(out, up, strrchr(real, '/') + 1, false, false, false, MARKER, f, d);
	else if (f->facts.exists && !f->facts.is_link && f->facts.type != SBX_FT_DIR)
		rc = sbx_strv_add_unique(&out->pins, real);
	else
		rc = sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				  "cannot enforce sandbox deny-read path %s: %s changed while the "
				  "sandbox was being built",
				  denied, real);
out:
	free(at);
	free(parent);
	free(real);
	return rc == -ENOMEM ? sbx_diag_set(d, rc, "out of memory") : rc;
}

/*
 * A name the plan takes for missing (a protected name, or one git mode keeps from being created)
 * directly in the existing directory that holds it: a point of the kind given, or, when the name
 * holds such a point already (another run's, or one a killed run left, which the plan counted
 * as missing), that one. Anything else there appeared since the plan, and refuses the run.
 * keep: what appears at the name during the run is left (the caller's global git config).
 */
static int name_point(const struct sbx_linux_enforce *e, const char *path, bool dir,
		      const char *holds, bool keep, struct sbx_points *out, struct sbx_diag *d)
{
	const struct sbx_rulepath *parent = NULL, *f = NULL;
	char *up = parent_of(path);
	struct stat st;
	int empty,
		rc = up ? look(e->res, up, &parent, d) : sbx_diag_set(d, -ENOMEM, "out of memory");

	if (rc == 0)
		rc = look(e->res, path, &f, d);
	if (rc < 0 || !parent->facts.exists || parent->facts.type != SBX_FT_DIR)
		goto out;
	if (!f->facts.exists && !f->facts.is_link) {
		/*
		 * Asked of the directory this run holds (once, as the helper's plan asked it),
		 * whatever the front end's plan said: where nothing can be created for as long as
		 * the run lasts, no point is made (the command gets EROFS or EACCES there as anyone
		 * would); where something can now, the name is masked as ever.
		 */
		if (!sealed(parent))
			rc = add_point(out, parent, strrchr(path, '/') + 1, dir, true, keep, holds,
				       NULL, d);
		goto out;
	}
	/* A protected name's point may be a file: what an empty .git file stands for. */
	if (!f->facts.is_link && f->facts.type == SBX_FT_REG && !*holds)
		dir = false;
	/* A directory that cannot be listed (EMFILE) is that error, not a name that appeared. */
	if (f->facts.is_link || fstat(f->fd, &st) < 0)
		empty = 0;
	else if (dir && S_ISDIR(st.st_mode)) {
		empty = dir_empty(f->fd);
		if (empty == -ENOENT)
			empty = 1; /* removed meanwhile: made again, checked by its identity */
	} else
		empty = empty_point(f->fd, &st, dir, holds, true);
	if (empty < 0) {
		rc = sbx_diag_set(d, empty, "cannot list %s: %s", path, strerror(-empty));
		if (empty == -EMFILE || empty == -ENFILE)
			rc = sbx_diag_hint(d, empty, "raise the limit of open files (ulimit -n)");
	} else if (empty)
		rc = add_point(out, parent, strrchr(path, '/') + 1, dir, true, keep, holds, f, d);
	else
		rc = sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				  "%s appeared while the sandbox was being built", path);
out:
	free(up);
	return rc;
}

int sbx_points_find(const struct sbx_linux_enforce *e, struct sbx_points *out, struct sbx_diag *d)
{
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* The missing protected names the plan masks: each directly inside its writable root. */
	for (size_t i = 0; rc == 0 && i < e->protect_missing.n; i++)
		rc = name_point(e, e->protect_missing.v[i], true, "", false, out, d);
	/* Git mode's: each in a git directory, a directory or a file as git takes it missing. */
	for (size_t i = 0; rc == 0 && i < e->no_create.n; i++) {
		const char *holds = "";
		bool dir = false,
		     /* the caller's git config: an empty file whatever its name (gitroots.c) */
			file = sbx_strv_has(&e->no_create_file, e->no_create.v[i]),
		     sys = sbx_strv_has(&e->no_create_system, e->no_create.v[i]);

		if (!file && !sbx_git_point(e->no_create.v[i], &dir, &holds))
			rc = sbx_diag_set(d, -EINVAL, "%s: no point for that name",
					  e->no_create.v[i]);
		else
			rc = name_point(e, e->no_create.v[i], dir && !file, holds,
					sbx_strv_has(&e->no_create_kept, e->no_create.v[i]), out,
					d);
		for (size_t k = 0; rc == 0 && sys && k < out->n; k++)
			out->v[k].system |= !strcmp(out->v[k].path, e->no_create.v[i]);
	}
	for (size_t i = 0; rc == 0 && i < e->deny_missing.n; i++)
		rc = deny_point(e, e->deny_missing.v[i], out, d);
	if (rc == 0 && out->pins.n > 1)
		qsort(out->pins.v, out->pins.n, sizeof(*out->pins.v), str_cmp);
	if (rc < 0)
		sbx_points_free(out);
	return rc;
}

/* ---- making them ----------------------------------------------------------------------------- */

/*
 * Share-locks fd, the object at pt's name: 0, 1 when the name has gone or holds another
 * object meanwhile (a run ending removed it under its exclusive lock: make it again), or
 * -errno. An exclusive lock held past LOCK_WAIT_MS is no run's: refused, naming the path.
 */
static int lock_shared(const struct sbx_point *pt, int fd, struct sbx_diag *d)
{
	struct stat st, now;

	for (int waited = 0;; waited += LOCK_STEP_MS) {
		if (flock(fd, LOCK_SH | LOCK_NB) == 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (fstat(fd, &st) < 0 ||
		    fstatat(pt->parent->fd, pt->name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st.st_dev != now.st_dev || st.st_ino != now.st_ino)
			return 1;
		if (waited >= LOCK_WAIT_MS)
			break;
		nanosleep(&(struct timespec){.tv_nsec = LOCK_STEP_MS * 1000 * 1000}, NULL);
	}
	sbx_diag_set(d, SBX_E_UNENFORCEABLE,
		     "%s is locked (flock, exclusive) by a process that has held it for over %d "
		     "ms: a run ending holds that lock only while it removes its mount point, and "
		     "this run cannot mask the name without sharing it",
		     pt->path, LOCK_WAIT_MS);
	return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
			     "end the process that holds it (lslocks names it); if it is another "
			     "user's, that user or root can");
}

/* Refuses the run: pt's point cannot be made (errno err), with the fix for that error. */
static int cannot_make(const struct sbx_point *pt, int err, struct sbx_diag *d)
{
	sbx_diag_set(d, -err, "cannot make %s a mount point for the run: %s", pt->path,
		     strerror(err));
	if (err == EMFILE || err == ENFILE)
		return sbx_diag_hint(
			d, -err,
			"raise the limit of open files (ulimit -n): the sandbox holds "
			"a descriptor for each mount point it makes while it is built");
	return sbx_diag_hint(d, -err,
			     "a missing name inside a writable root is masked on a mount point "
			     "made there for the run; let the caller create it, or drop the rule");
}

/*
 * Removes the point this run made at pt's name when making it failed, so that no run leaves one
 * behind: fd is the object made, opened (-1 if it could not be: then *spare, a descriptor kept
 * for this, is closed to open it). Only under the exclusive lock, which no other run holds on
 * it (one that found it meanwhile holds its shared lock, and removes it when it ends), and only
 * that object, still empty (rmdir refuses a directory that is not). errno is kept.
 */
static void unmake(const struct sbx_point *pt, int fd, int *spare)
{
	int pfd = pt->parent->fd, err = errno;
	struct stat st, now;

	if (fd < 0 && *spare >= 0) {
		close(*spare);
		*spare = -1;
		fd = openat(pfd, pt->name,
			    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (pt->dir ? O_DIRECTORY : 0));
	}
	if (fd < 0) {
		errno = err;
		return;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &st) == 0 &&
	    fstatat(pfd, pt->name, &now, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == now.st_dev &&
	    st.st_ino == now.st_ino && (pt->dir || (size_t)st.st_size == strlen(pt->holds)))
		unlinkat(pfd, pt->name, pt->dir ? AT_REMOVEDIR : 0);
	close(fd);
	errno = err;
}

/*
 * Makes, opens, locks and checks one point; 0, 1 to try again (it went away), or -errno. What
 * it made and could not finish is removed again (unmake, with *spare).
 */
static int make_one(struct sbx_point *pt, int *spare, struct sbx_diag *d)
{
	int pfd = pt->parent->fd, fd = -1, err, r;
	bool made = false;
	struct stat st, now;

	if (pt->dir) {
		made = mkdirat(pfd, pt->name, S_ISVTX | 0555) == 0;
		if (!made && errno != EEXIST)
			goto fail;
	} else {
		fd = openat(pfd, pt->name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			    S_ISVTX | 0444);
		if (fd < 0 && errno != EEXIST)
			goto fail;
		made = fd >= 0;
		if (fd >= 0) {
			size_t len = strlen(pt->holds);
			ssize_t n = len ? write(fd, pt->holds, len) : 0;

			err = errno;
			close(fd);
			fd = -1;
			made = true;
			if (n != (ssize_t)len) {
				errno = n < 0 ? err : EIO;
				goto fail;
			}
		}
	}
	fd = openat(pfd, pt->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | (pt->dir ? O_DIRECTORY : 0));
	if (fd < 0 && errno == ENOENT)
		return 1; /* removed by a run ending now: make it again */
	if (fd < 0)
		goto fail;
	if ((err = lock_shared(pt, fd, d)) != 0) {
		if (err == 1 || err == SBX_E_UNENFORCEABLE) {
			close(fd);
			return err;
		}
		errno = -err;
		goto fail;
	}
	/* Locked: still the object at that name (a finishing run may have removed it)? */
	if (fstat(fd, &st) < 0 || fstatat(pfd, pt->name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != now.st_dev || st.st_ino != now.st_ino) {
		close(fd);
		return 1;
	}
	/*
	 * Made here, the mark is set again where the file system dropped it on creation: the mark
	 * is what the clean-up removes by. The object is the one locked (checked above). Where it
	 * cannot be set, the point is not this run's to remove (point_ours): masked all the same,
	 * and left at the end as another user's is, never a user's object taken for a point.
	 */
	if (made && !(st.st_mode & S_ISVTX) && fchmod(fd, S_ISVTX | (st.st_mode & 0555)) == 0 &&
	    fstat(fd, &st) < 0)
		goto fail;
	/*
	 * A point, of the kind planned: anything else was not made by a run. A directory that
	 * cannot be listed (no descriptor left for the listing: EMFILE) is that error, not a
	 * name that appeared.
	 */
	if (pt->dir) {
		r = S_ISDIR(st.st_mode) ? dir_empty(fd) : 0;
		if (r < 0 && r != -ENOENT) {
			errno = -r;
			goto fail;
		}
	} else {
		r = empty_point(fd, &st, false, pt->holds, true);
	}
	if (r == 0) {
		close(fd);
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s appeared while the sandbox was being built, and is not empty",
			     pt->path);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "run again; if it stays, look at what is there");
	}
	pt->fd = fd;
	pt->dev = (unsigned long long)st.st_dev;
	pt->ino = (unsigned long long)st.st_ino;
	pt->foreign = !point_ours(fd, &st);
	return 0;
fail:
	err = errno;
	if (made)
		unmake(pt, fd, spare);
	else if (fd >= 0)
		close(fd);
	return cannot_make(pt, err, d);
}

int sbx_points_make(struct sbx_points *pts, struct sbx_diag *d)
{
	/*
	 * A descriptor kept while the points are made, freed to remove one that this run made and
	 * could not open (out of descriptors: EMFILE), which needs one to take the lock.
	 */
	int spare = -1, rc = 0;

	for (size_t i = 0; rc == 0 && i < pts->n; i++) {
		struct sbx_point *pt = &pts->v[i];

		if (pt->op < 0)
			continue;
		if (spare < 0 && (spare = fcntl(pt->parent->fd, F_DUPFD_CLOEXEC, 0)) < 0) {
			rc = cannot_make(pt, errno, d);
			break;
		}
		rc = 1;
		for (int t = 0; rc == 1 && t < MAKE_TRIES; t++)
			rc = make_one(pt, &spare, d);
		if (rc == 1)
			rc = sbx_diag_set(d, -EAGAIN,
					  "cannot make %s a mount point for the run: it "
					  "keeps being removed",
					  pt->path);
	}
	if (spare >= 0)
		close(spare);
	return rc < 0 ? rc : 0;
}

/* ---- removing them -------------------------------------------------------------------------- */

/* Removes name in dfd and everything below it, following no link; 0 or -errno. */
static int remove_tree(int dfd, const char *name, int depth)
{
	struct stat st;
	struct dirent *de;
	DIR *dir;
	int fd, rc = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) < 0 && errno != ENOENT ? -errno : 0;
	if (depth >= REMOVE_DEPTH_MAX)
		return -ELOOP;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while (rc == 0 && (de = readdir(dir)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			rc = remove_tree(dirfd(dir), de->d_name, depth + 1);
	closedir(dir);
	if (rc == 0 && unlinkat(dfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT)
		rc = -errno;
	return rc;
}

/* Reports "WHAT PATH" or "WHAT PATH: ERROR". */
static void say(void (*report)(void *, const char *), void *arg, const char *what, const char *path,
		int err)
{
	char msg[SBX_MAX_PATH + 256];

	snprintf(msg, sizeof(msg), "%s %s%s%s", what, path, err ? ": " : "",
		 err ? strerror(-err) : "");
	report(arg, msg);
}

size_t sbx_points_clean(struct sbx_points *pts, void (*report)(void *arg, const char *msg),
			void *arg)
{
	size_t created = 0;

	for (size_t i = 0; i < pts->n; i++) {
		struct sbx_point *pt = &pts->v[i];
		int pfd = pt->parent->fd, rc, own, at;
		bool mine;
		struct stat st;

		if (pt->fd < 0)
			continue;
		/* Another run still holds it: that one removes it when it ends. */
		if (flock(pt->fd, LOCK_EX | LOCK_NB) < 0) {
			close(pt->fd);
			pt->fd = -1;
			continue;
		}
		/* What is at the name now, opened once: whose it is is asked of that object. */
		at = openat(pfd, pt->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (at < 0 || fstat(at, &st) < 0) {
			if (at >= 0)
				close(at);
			close(pt->fd); /* nothing there any more */
			pt->fd = -1;
			continue;
		}
		/*
		 * The object this run found and did not make (another user's, a writable one of
		 * the user's): left as it is, whatever its owner put in it on the host meanwhile
		 * (inside, it was masked). Only that user's next run removes a point of theirs.
		 */
		if (pt->foreign && (unsigned long long)st.st_dev == pt->dev &&
		    (unsigned long long)st.st_ino == pt->ino) {
			close(at);
			close(pt->fd);
			pt->fd = -1;
			continue;
		}
		/* The point itself, still empty, is removed; anything else is asked whose it is. */
		mine = (unsigned long long)st.st_dev == pt->dev &&
		       (unsigned long long)st.st_ino == pt->ino &&
		       empty_point(pt->fd, &st, pt->dir, pt->holds, false);
		own = mine ? 1 : owned(at, &st);
		close(at);
		if (mine) {
			rc = unlinkat(pfd, pt->name, pt->dir ? AT_REMOVEDIR : 0) < 0 ? -errno : 0;
			if (rc < 0 && rc != -ENOENT)
				say(report, arg, "cannot remove the mount point", pt->path, rc);
		} else if (own == 0) {
			/*
			 * Another user's, made there on the host during the run (that user could
			 * remove the object masked: its own, or in a directory it may write):
			 * theirs to remove, never this run's, root's included. The command cannot
			 * make one (no capability to chown, and the name was masked).
			 */
			created++;
			say(report, arg,
			    "another user created this on the host during the run; left in place:",
			    pt->path, 0);
		} else if (pt->keep_created) {
			/*
			 * The caller's global git config, made outside the sandbox (inside, the
			 * name was a read-only mount): the caller's own git wrote it meanwhile,
			 * over the point (git renames its lock file onto the name) or into it
			 * (root writes through mode 0444), and removing it would lose it.
			 */
			created++;
			say(report, arg,
			    pt->system ? "the caller's system git config was created on the host "
					 "during the run; left in place:"
				       : "the caller's global git config was created on the host "
					 "during the run; left in place:",
			    pt->path, 0);
		} else if (own < 0) {
			/* Whose it is cannot be asked (a link, a device): maybe another's, so left. */
			created++;
			say(report, arg,
			    "created on the host during the run, and its owner cannot be "
			    "confirmed; left in place:",
			    pt->path, 0);
		} else {
			created++;
			rc = remove_tree(pfd, pt->name, 0);
			say(report, arg,
			    rc < 0 ? "created on the host during the run, and cannot be removed:"
				   : "removed what was created on the host during the run:",
			    pt->path, rc);
		}
		close(pt->fd);
		pt->fd = -1;
	}
	return created;
}

void sbx_points_free(struct sbx_points *pts)
{
	for (size_t i = 0; i < pts->n; i++) {
		if (pts->v[i].fd >= 0)
			close(pts->v[i].fd);
		free(pts->v[i].path);
	}
	free(pts->v);
	sbx_strv_clear(&pts->pins);
	memset(pts, 0, sizeof(*pts));
}
