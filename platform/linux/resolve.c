/* SPDX-License-Identifier: MIT */
/*
 * resolve.c - every rule path resolved once, in the helper (sbx_linux_prepare's first step).
 *
 * The resolver is the helper's struct sbx_fsview: the planner looks every path up through it,
 * and each look-up walks the path once (sbx_fs_walk) and keeps an O_PATH descriptor of what it
 * found. The Landlock rules are then added on those very descriptors, and the mounts are checked
 * against their identity, so what was planned and what is enforced are one object: a path
 * swapped for a symbolic link (or another directory) after it was looked up is either not seen
 * at all or refused, never followed.
 *
 * A profile can name tens of thousands of paths, more than the default soft limit of open files
 * (often 1024): the soft limit is raised to the hard one when needed, and restored before the
 * command runs (the descriptors are close-on-exec).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* The slot of path (of length len, hash h): its entry's, or the empty one where it would go. */
_Static_assert(sizeof(struct sbx_rulepath) <= 56, "an entry of the table grew");

static struct sbx_rulepath_slot *slot_of(const struct sbx_rulepaths *res, const char *path,
					 size_t len, uint32_t h)
{
	size_t s = (size_t)h & (res->cap - 1);

	for (; res->slots[s].made; s = (s + 1) & (res->cap - 1)) {
		const struct sbx_rulepath *e = res->made[res->slots[s].made - 1];

		if (res->slots[s].hash != h)
			continue;
		/* Lengths first, then a word at a time (a length past the field: strcmp). */
		if (e->len == UINT16_MAX ? strcmp(e->path, path) == 0
					 : e->len == len && sbx_bytes_cmp(e->path, path, len) == 0)
			break;
	}
	return &res->slots[s];
}

/* The empty slot where an entry of hash h goes, when it is known not to be in the table. */
static struct sbx_rulepath_slot *slot_free(const struct sbx_rulepaths *res, uint32_t h)
{
	size_t s = (size_t)h & (res->cap - 1);

	while (res->slots[s].made)
		s = (s + 1) & (res->cap - 1);
	return &res->slots[s];
}

static int grow(struct sbx_rulepaths *res)
{
	struct sbx_rulepath_slot *old = res->slots;
	size_t old_cap = res->cap, cap = old_cap ? old_cap * 2 : 64;

	res->slots = calloc(cap, sizeof(*res->slots));
	if (!res->slots) {
		res->slots = old;
		return -ENOMEM;
	}
	res->cap = cap;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].made)
			*slot_free(res, old[i].hash) = old[i];
	free(old);
	return 0;
}

/* The walk, with the soft limit of open files raised once when the descriptors run out. */
static int walk_keep(struct sbx_rulepaths *res, const char *path, struct sbx_pathinfo *in, int *fd)
{
	int r = sbx_fs_walk(path, in, fd);

	if (r == -EMFILE && !res->raised) {
		struct rlimit rl;

		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			res->saved = rl;
			rl.rlim_cur = rl.rlim_max;
			if (setrlimit(RLIMIT_NOFILE, &rl) == 0) {
				res->raised = true;
				r = sbx_fs_walk(path, in, fd);
			}
		}
	}
	return r;
}

static void entry_close(struct sbx_rulepath *e)
{
	if (e && e->fd >= 0)
		close(e->fd);
}

/* Copies s to *at and advances it past the copy's NUL. */
static char *put_str(char **at, const char *s, size_t n)
{
	char *p = *at;

	sbx_copy(p, s, n + 1);
	*at += n + 1;
	return p;
}

/*
 * One piece of the table's arena per entry (no allocation of its own: at 10,000 paths the
 * allocator's header and rounding would be a sixth of the table): the struct, then the path as
 * asked (unless kept: a path of the plan, which outlives the table, is the entry's own), the
 * resolved path (unless it is the same string, the usual case, which the entry then shares) and
 * the links crossed, if any.
 */
static const struct sbx_rulepath *get(struct sbx_rulepaths *res, const char *path, bool kept)
{
	const struct sbx_fshint *hint;
	struct sbx_rulepath_slot *slot;
	struct sbx_rulepath *e;
	struct sbx_pathinfo in;
	size_t plen, rlen = 0, llen = 0;
	uint64_t h;
	bool same = false;
	char *at;
	int fd = -1, r;

	/* At most three quarters full: linear probing stays short. */
	if ((res->n + 1) * 4 > res->cap * 3 && grow(res) < 0)
		return NULL;
	if (res->n >= UINT32_MAX - 1)
		return NULL; /* an index that does not fit a slot */
	/*
	 * The planner asks for a path again through the very string it was made with (a
	 * requirement's kept path, the roots' list it comes from, an entry's resolved path): the
	 * entry asked last, or the one made after it, holding that string is the answer, and the
	 * path's length is not needed.
	 */
	if (res->n && (e = res->made[res->last])->path == path)
		return e;
	if (res->last + 1 < res->n && (e = res->made[res->last + 1])->path == path) {
		res->last++;
		return e;
	}
	hint = sbx_fshints_of(&res->hints, path);
	plen = hint ? hint->len : strlen(path);
	if (res->last + 1 < res->n && plen < UINT16_MAX) {
		e = res->made[res->last + 1];
		if (e->len == plen && sbx_bytes_cmp(e->path, path, plen) == 0) {
			res->last++;
			return e; /* the one after the last asked: looked up before */
		}
	}
	h = hint ? hint->hash : sbx_hash(path, plen);
	slot = slot_of(res, path, plen, (uint32_t)h);
	if (slot->made) {
		e = res->made[slot->made - 1];
		res->last = e->made;
		return e; /* looked up before: the same answer */
	}
	if (res->n == res->made_cap) {
		size_t cap = res->made_cap ? 2 * res->made_cap : 64;
		struct sbx_rulepath **made = realloc(res->made, cap * sizeof(*made));

		if (!made)
			return NULL;
		res->made = made;
		res->made_cap = cap;
	}
	r = walk_keep(res, path, &in, &fd);
	/* The walk's system calls are done: the hinted path's slot, for the look-up to come. */
	if (res->hints.next.path && res->hints.next.path != path)
		__builtin_prefetch(&res->slots[res->hints.next.hash & (res->cap - 1)]);
	if (r == -ENOMEM)
		return NULL;
	if (r == 0 && in.exists) {
		rlen = strlen(in.real);
		same = rlen == plen && sbx_bytes_cmp(in.real, path, plen) == 0;
	}
	if (r == 0 && in.link[0])
		llen = strlen(in.link) + 1;
	e = sbx_arena_alloc(&res->entries,
			    sizeof(*e) + (kept ? 0 : plen + 1) + (rlen && !same ? rlen + 1 : 0) +
				    llen,
			    _Alignof(struct sbx_rulepath));
	if (!e) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	memset(e, 0, sizeof(*e));
	at = (char *)(e + 1);
	e->path = kept ? (char *)path : put_str(&at, path, plen);
	e->err = (short)(r < 0 ? r : 0); /* -errno: above -4096 */
	e->fd = r == 0 ? fd : -1;
	if (r == 0) {
		sbx_pathfacts_keep(&e->facts, &in);
		if (in.exists)
			e->real = same ? e->path : put_str(&at, in.real, rlen);
		/* Last, where sbx_rulepath_link() finds it. */
		if (llen)
			e->has_link = put_str(&at, in.link, llen - 1) != NULL;
	}
	e->len = plen < UINT16_MAX ? (uint16_t)plen : UINT16_MAX;
	e->made = (uint32_t)res->n;
	*slot = (struct sbx_rulepath_slot){(uint32_t)res->n + 1, (uint32_t)h};
	res->made[res->n] = e;
	res->last = res->n++;
	return e;
}

/* The strings after an entry: the path unless kept, the resolved path unless the same, the link. */
const char *sbx_rulepath_link(const struct sbx_rulepath *e)
{
	const char *at = (const char *)(e + 1);

	if (!e->has_link)
		return NULL;
	if (e->path == at)
		at += strlen(at) + 1;
	if (e->real && e->real != e->path && e->real == at)
		at += strlen(at) + 1;
	return at;
}

const struct sbx_rulepath *sbx_rulepath_get(struct sbx_rulepaths *res, const char *path)
{
	return get(res, path, false);
}

/* ---- the resolver as the planner's view ----------------------------------------------- */

/* The entry's facts as the planner reads them, from e (NULL: out of memory). */
static int view_fill(const struct sbx_rulepath *e, struct sbx_pathinfo *out)
{
	const char *link;
	size_t rlen;

	if (!e || e->err) {
		sbx_pathinfo_clear(out);
		return e ? e->err : -ENOMEM;
	}
	link = sbx_rulepath_link(e);
	/* The resolved path is most often the path asked, whose length the entry keeps. */
	if (!e->real)
		rlen = 0;
	else if (e->real == e->path && e->len < UINT16_MAX)
		rlen = e->len;
	else
		rlen = strlen(e->real);
	sbx_pathfacts_give(&e->facts, e->real, rlen, link, link ? strlen(link) : 0, out);
	return 0;
}

static int view_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	return view_fill(get(self, path, false), out);
}

/* A hint: path's length and hash now, its slot prefetched after the next walk (get). */
static void view_ahead(void *self, const char *path)
{
	struct sbx_rulepaths *res = self;

	sbx_fshints_put(&res->hints, path);
}

/* The plans made through the resolver are freed after it (sbx_rulepaths): path outlives it. */
static int view_lookup_kept(void *self, const char *path, struct sbx_pathinfo *out)
{
	return view_fill(get(self, path, true), out);
}

/*
 * A new descriptor for reading the regular file path's look-up kept (through /proc/self/fd,
 * so it is the object that was looked up, not whatever the name holds now), or -errno.
 */
static int open_kept(void *self, const char *path)
{
	const struct sbx_rulepath *e = sbx_rulepath_get(self, path);
	char proc[64];
	int fd;

	if (!e)
		return -ENOMEM;
	if (e->err)
		return e->err;
	if (!e->facts.exists)
		return -ENOENT;
	if (e->facts.type != SBX_FT_REG)
		return -EINVAL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", e->fd);
	/* openat, not open: musl's open sets close-on-exec again with fcntl. */
	fd = openat(AT_FDCWD, proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return fd < 0 ? -errno : fd;
}

/* Reads the file through the kept descriptor, so it is the object that was looked up. */
static int view_read_file(void *self, const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open_kept(self, path), err;

	*len = 0;
	if (fd < 0)
		return fd;
	err = sbx_fd_read(fd, buf, size, len);
	close(fd);
	return err;
}

/* As view_read_file, through the object the look-up kept, in chunks. */
static int view_read_chunks(void *self, const char *path, char *buf, size_t size,
			    sbx_fs_chunk_fn each, void *arg)
{
	int fd = open_kept(self, path), err;

	if (fd < 0)
		return fd;
	err = sbx_fd_read_chunks(fd, buf, size, each, arg);
	close(fd);
	return err;
}

/* Listing (the glob scan) is the host's; what it finds is looked up here in turn. */
static int view_list(void *self, const char *dir, sbx_fs_list_fn each, void *arg)
{
	(void)self;
	return sbx_fsview_host.list(sbx_fsview_host.self, dir, each, arg);
}

/* A link's text, as the listing, is the host's: where it leads is looked up here in turn. */
static int view_readlink(void *self, const char *path, char *buf, size_t size)
{
	(void)self;
	return sbx_fsview_host.readlink(sbx_fsview_host.self, path, buf, size);
}

int sbx_rulepath_sealed(const struct sbx_rulepath *e)
{
	/* The entry is the table's own (sbx_rulepath_get hands it out read-only to callers). */
	struct sbx_rulepath *w = (struct sbx_rulepath *)e;

	int s;

	if (!w->sealed) {
		s = sbx_fd_sealed(e->fd);
		w->sealed = (signed char)(s < 0 ? -1 : s + 1);
	}
	/* An error is told as one (none of its callers says which): not sealed, and masked. */
	return w->sealed < 0 ? -EIO : w->sealed - 1;
}

/* Asked of the directory's kept descriptor: the object the plan and the points see. */
static int view_sealed(void *self, const char *dir)
{
	const struct sbx_rulepath *e = sbx_rulepath_get(self, dir);

	if (!e)
		return -ENOMEM;
	if (e->err)
		return e->err;
	if (!e->facts.exists)
		return -ENOENT;
	return sbx_rulepath_sealed(e);
}

void sbx_rulepaths_init(struct sbx_rulepaths *res)
{
	memset(res, 0, sizeof(*res));
	res->view.lookup = view_lookup;
	res->view.lookup_kept = view_lookup_kept;
	res->view.ahead = view_ahead;
	res->view.read_file = view_read_file;
	res->view.read_chunks = view_read_chunks;
	res->view.list = view_list;
	res->view.readlink = view_readlink;
	res->view.sealed = view_sealed;
	res->view.self = res;
}

int sbx_rulepaths_reserve(struct sbx_rulepaths *res, size_t n)
{
	size_t cap = 64;
	struct sbx_rulepath **made;

	if (res->n || n > SIZE_MAX / 8)
		return 0; /* only before the first look-up; absurd sizes are left to grow() */
	while ((n + 1) * 4 > cap * 3)
		cap *= 2;
	if (cap > res->cap) {
		struct sbx_rulepath_slot *slots = calloc(cap, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		free(res->slots);
		res->slots = slots;
		res->cap = cap;
	}
	if (n > res->made_cap) {
		made = realloc(res->made, n * sizeof(*made));
		if (!made)
			return -ENOMEM;
		res->made = made;
		res->made_cap = n;
	}
	return 0;
}

void sbx_rulepaths_restore_limit(struct sbx_rulepaths *res)
{
	if (res->raised)
		setrlimit(RLIMIT_NOFILE, &res->saved);
	res->raised = false;
}

void sbx_rulepaths_free(struct sbx_rulepaths *res)
{
	/* The entries made, not the table's slots: a third of them are empty. */
	for (size_t i = 0; i < res->n; i++)
		entry_close(res->made[i]);
	free(res->slots);
	free(res->made);
	sbx_arena_free(&res->entries);
	sbx_rulepaths_restore_limit(res);
	memset(res, 0, sizeof(*res));
}

/* ---- in the new mount namespace ------------------------------------------------------- */

struct sbx_open_how_ {
	uint64_t flags, mode, resolve;
};

/*
 * The component walk where openat2 is missing: a link on the way or at the end is ELOOP, a
 * non-directory on the way ENOTDIR, ".." EXDEV, as openat2 says them.
 */
static int open_walk(int base, const char *rel, int flags)
{
	char name[256];
	const char *s = rel;
	struct stat st;
	int cur = base == AT_FDCWD ? open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)
				   : openat(base, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (cur < 0)
		return -errno;
	for (;;) {
		size_t n;
		int next, err;
		bool last;

		while (*s == '/')
			s++;
		n = strcspn(s, "/");
		if (!n)
			return cur;
		if (n >= sizeof(name)) {
			close(cur);
			return -ENAMETOOLONG;
		}
		memcpy(name, s, n);
		name[n] = '\0';
		s += n;
		last = !s[strspn(s, "/")];
		if (!strcmp(name, "..")) {
			close(cur);
			return -EXDEV;
		}
		next = openat(cur, name, (last ? flags : O_PATH) | O_NOFOLLOW | O_CLOEXEC);
		err = errno;
		close(cur);
		if (next < 0)
			return -err;
		/* O_PATH opens a link itself under O_NOFOLLOW: said as openat2 says it. */
		err = fstat(next, &st) < 0	      ? errno
		      : S_ISLNK(st.st_mode)	      ? ELOOP
		      : !last && !S_ISDIR(st.st_mode) ? ENOTDIR
						      : 0;
		if (err) {
			close(next);
			return -err;
		}
		if (last)
			return next;
		cur = next;
	}
}

int sbx_linux_open_nolinks(int base, const char *rel, int flags)
{
	struct sbx_open_how_ how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
		/* RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS, and RESOLVE_BENEATH below a base */
		.resolve = 0x04 | 0x02 | (base == AT_FDCWD ? 0 : 0x08),
	};
	int fd = (int)syscall(SYS_openat2, base, rel, &how, sizeof(how));

	if (fd >= 0)
		return fd;
	if (errno == ENOSYS || errno == EINVAL || errno == E2BIG || errno == EPERM)
		return open_walk(base, rel, flags);
	return -errno;
}

int sbx_linux_reopen(const char *real, unsigned long long dev, unsigned long long ino,
		     struct sbx_diag *d)
{
	struct stat st;
	int fd = sbx_linux_open_nolinks(AT_FDCWD, real, O_PATH), err;

	if (fd == -EMFILE || fd == -ENFILE || fd == -ENOMEM) {
		/* Out of descriptors or memory: nothing changed, the run has too little. */
		sbx_diag_set(d, fd, "cannot open %s again to mount on it: %s", real, strerror(-fd));
		return sbx_diag_hint(
			d, fd, "raise the limit of open files (ulimit -n), or deny fewer paths");
	}
	if (fd < 0) {
		sbx_diag_set(d, fd, "%s changed while the sandbox was being built: %s", real,
			     strerror(-fd));
		return sbx_diag_hint(d, fd, "something renamed or replaced it; run again");
	}
	err = fstat(fd, &st) < 0 ? errno : 0;
	if (err || S_ISLNK(st.st_mode) || (unsigned long long)st.st_dev != dev ||
	    (unsigned long long)st.st_ino != ino) {
		close(fd);
		sbx_diag_set(d, -ESTALE,
			     "%s changed while the sandbox was being built: it is no longer the "
			     "object that was planned%s%s",
			     real, err ? ": " : "", err ? strerror(err) : "");
		return sbx_diag_hint(d, -ESTALE, "something renamed or replaced it; run again");
	}
	return fd;
}
