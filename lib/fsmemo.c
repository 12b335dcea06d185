/* SPDX-License-Identifier: MIT */
/*
 * fsmemo.c - the memo (struct sbx_fsmemo): a view over another that remembers what a path's
 * look-up found, so that a path many rules and checks ask about is looked up once (up to
 * SBX_FSMEMO_MAX paths a plan). Only what was found is kept: a failure refuses the plan. Over
 * the host's view on Linux it also answers a name in the directory of the last path from a
 * descriptor of that directory kept open (memo_host): one fstatat(2) a name, not three calls,
 * and a link in it walked from there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "fswalk.h"
#include "sbx.h"

/*
 * A power of two, and SBX_FSMEMO_MAX at most a fifth of it: once the memo is full, every other
 * path of a large profile is a miss, which probes until an empty slot (about 8 probes at three
 * quarters full, 1.3 at a fifth: 16 KiB of slots).
 */
#define MEMO_SLOTS 1024
_Static_assert(SBX_FSMEMO_MAX * 5 <= MEMO_SLOTS, "the memo's misses would probe far");

struct sbx_fsmemo_entry {
	const char *path, *real, *link; /* real and link: NULL for "" */
	struct sbx_pathfacts facts;
	uint16_t real_len, link_len; /* below SBX_MAX_PATH: walked into such buffers */
};

static const struct sbx_fsview *memo_base(const struct sbx_fsmemo *m)
{
	return m->base ? m->base : &sbx_fsview_host;
}

/* The arena's copy of s, or NULL for "" (*ok false when out of memory); *len its length. */
static const char *memo_str(struct sbx_fsmemo *m, const char *s, uint16_t *len, bool *ok)
{
	size_t n = strlen(s);
	const char *c;

	*len = (uint16_t)(n < SBX_MAX_PATH ? n : SBX_MAX_PATH - 1);
	if (!n)
		return NULL;
	c = sbx_arena_strndup(&m->arena, s, n);
	*ok = *ok && c;
	return c;
}

/* Remembers what path (len bytes) found; out of memory, it is simply not remembered. */
static void memo_keep(struct sbx_fsmemo *m, struct sbx_fsmemo_slot *slot, const char *path,
		      size_t len, uint64_t h, const struct sbx_pathinfo *in)
{
	struct sbx_fsmemo_entry *e =
		sbx_arena_alloc(&m->arena, sizeof(*e), _Alignof(struct sbx_fsmemo_entry));
	bool ok = e != NULL;

	if (!ok)
		return;
	memset(e, 0, sizeof(*e));
	e->path = sbx_arena_strndup(&m->arena, path, len);
	ok = e->path != NULL;
	sbx_pathfacts_keep(&e->facts, in);
	e->real = memo_str(m, in->real, &e->real_len, &ok);
	e->link = memo_str(m, in->link, &e->link_len, &ok);
	if (ok) {
		*slot = (struct sbx_fsmemo_slot){h, e};
		m->n++;
	}
}

#if defined(__linux__)
/*
 * dir's descriptor opened by the component walk, or -1 when the walk crossed a link, found no
 * directory, found it under another spelling (a "." or ".." in it, which the walk's answer for
 * a name in it leaves out) or failed. The walk then answers for each name in it, and words what
 * it meets.
 */
static int memo_walk_dir(const char *dir)
{
	struct sbx_pathinfo info;
	int fd = -1;

	if (sbx_fs_walk(dir, &info, &fd) < 0)
		return -1;
	if (fd >= 0 && (info.type != SBX_FT_DIR || info.link[0] || strcmp(info.real, dir) != 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The host's look-up of path through the directory of the last one, when path is a name in the
 * same directory. The walk (sbx_fs_walk) opens the whole path with openat2(RESOLVE_NO_SYMLINKS),
 * asks fstat and closes: three system calls, for each of 10,000 files of one directory. Here
 * the directory is opened that way once and kept, and each name in it asked with fstatat(2)
 * without following it: the same facts, since a path without a link on the way is its
 * directory without one and then its name; a link is walked from the directory's descriptor.
 * Anything but an object found (an error, ENOENT included, a link to nothing) goes to the walk
 * by name, which words it. Returns 1 when the walk is to be asked.
 */
static int memo_host(struct sbx_fsmemo *m, const char *path, size_t len, struct sbx_pathinfo *out)
{
	struct sbx_open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = SBX_RESOLVE_NO_SYMLINKS | SBX_RESOLVE_NO_MAGICLINKS,
	};
	const char *name = path + len;
	size_t dlen;
	struct stat st;

	if (path[0] != '/' || len >= SBX_MAX_PATH)
		return 1;
	while (name[-1] != '/') /* the last name (musl's strrchr runs from the start) */
		name--;
	if (!name[0] || (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))))
		return 1;
	dlen = name - path > 1 ? (size_t)(name - path) - 1 : 1; /* "/" for a name in "/" */
	if (!m->dir || m->dir_len != dlen || sbx_bytes_cmp(m->dir, path, dlen) != 0) {
		if (dlen + 1 > m->dir_cap) {
			char *dir = realloc(m->dir, dlen + 1);

			if (!dir)
				return 1;
			m->dir = dir;
			m->dir_cap = dlen + 1;
		}
		memcpy(m->dir, path, dlen);
		m->dir[dlen] = '\0';
		m->dir_len = dlen;
		if (m->dir_fd >= 0)
			close(m->dir_fd);
		/* Failed (a link on the way, no such directory): the walk answers for it. */
		m->dir_fd = m->no_openat2 ? -1
					  : (int)syscall(SYS_openat2, AT_FDCWD, m->dir, &how,
							 sizeof(how));
		/*
		 * No openat2 (before Linux 5.6, or refused): the component walk opens the directory
		 * instead, once for all its names as above, and is kept only when it crossed no
		 * link and found a directory (what RESOLVE_NO_SYMLINKS and O_DIRECTORY ask). Asking
		 * the walk for every path instead costs three system calls per component of each.
		 */
		if (m->dir_fd < 0 && (m->no_openat2 || (errno != ELOOP && errno != ENOENT &&
							errno != ENOTDIR && errno != EACCES))) {
			m->no_openat2 = true;
			m->dir_fd = memo_walk_dir(m->dir);
		}
	}
	if (m->dir_fd < 0)
		return 1;
	/*
	 * Only a name found, and no link, is answered here. The descriptor was opened for an
	 * earlier path and may name a directory moved, replaced or made unreadable since (by a
	 * run still going in the same workspace): "missing" or an error from it could be a
	 * directory that is not at that path any more, so every failure, ENOENT included, goes to
	 * the walk, which says what is there now. A name found through a directory moved since is
	 * the one answer that can be out of date; only this front end's plan (explain, and its
	 * refusals) reads it, while the helper looks everything up again itself.
	 */
	if (fstatat(m->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT) < 0)
		return 1;
	/*
	 * A link (a hook linked to a script of the work tree) is walked from the same descriptor,
	 * not from "/" (about six calls less a name), with the same caveat; only what it leads to
	 * found is answered here, as above.
	 */
	if (S_ISLNK(st.st_mode))
		return sbx_fs_walk_in(m->dir_fd, path, out, NULL) == 0 && out->exists ? 0 : 1;
	sbx_pathinfo_clear(out);
	pathinfo_fill(out, &st);
	sbx_copy(out->real, path, len + 1);
	return 0;
}
#endif

static int memo_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	struct sbx_fsmemo *m = self;
	const struct sbx_fsview *base = memo_base(m);
	struct sbx_fsmemo_slot *slot = NULL;
	struct sbx_fsmemo_entry *e;
	const struct sbx_fshint *hint = sbx_fshints_of(&m->hints, path);
	size_t len = hint ? hint->len : strlen(path), s;
	uint64_t h = hint ? hint->hash : sbx_hash(path, len);
	int r;

	if (!m->slots)
		m->slots = calloc(MEMO_SLOTS, sizeof(*m->slots));
	if (m->slots) {
		for (s = (size_t)h & (MEMO_SLOTS - 1); m->slots[s].e;
		     s = (s + 1) & (MEMO_SLOTS - 1))
			if (m->slots[s].hash == h && strcmp(m->slots[s].e->path, path) == 0)
				break;
		slot = &m->slots[s];
	}
	e = slot ? slot->e : NULL;
	if (!e) {
		r = 1;
#if defined(__linux__)
		if (base == &sbx_fsview_host)
			r = memo_host(m, path, len, out);
#endif
		if (r == 1)
			r = base->lookup(base->self, path, out);
		/* The look-up's system calls are done: the hinted path's slot, for the next. */
		if (m->slots && m->hints.next.path && m->hints.next.path != path)
			__builtin_prefetch(&m->slots[m->hints.next.hash & (MEMO_SLOTS - 1)]);
		/* A failure refuses the plan: only what was found is worth keeping. */
		if (slot && r == 0 && m->n < SBX_FSMEMO_MAX)
			memo_keep(m, slot, path, len, h, out);
		return r;
	}
	sbx_pathfacts_give(&e->facts, e->real, e->real_len, e->link, e->link_len, out);
	return 0;
}

static void memo_ahead(void *self, const char *path)
{
	struct sbx_fsmemo *m = self;

	sbx_fshints_put(&m->hints, path);
}

static int memo_read_file(void *self, const char *path, char *buf, size_t size, size_t *len)
{
	const struct sbx_fsview *base = memo_base(self);

	return base->read_file(base->self, path, buf, size, len);
}

static int memo_read_chunks(void *self, const char *path, char *buf, size_t size,
			    sbx_fs_chunk_fn each, void *arg)
{
	const struct sbx_fsview *base = memo_base(self);

	return base->read_chunks(base->self, path, buf, size, each, arg);
}

static int memo_list(void *self, const char *dir, sbx_fs_list_fn each, void *arg)
{
	const struct sbx_fsview *base = memo_base(self);

	return base->list(base->self, dir, each, arg);
}

static int memo_readlink(void *self, const char *path, char *buf, size_t size)
{
	const struct sbx_fsview *base = memo_base(self);

	return base->readlink(base->self, path, buf, size);
}

static int memo_sealed(void *self, const char *dir)
{
	const struct sbx_fsmemo *m = self;
	const struct sbx_fsview *base = memo_base(m);

#if defined(__linux__)
	/*
	 * The directory the last look-up was made in (the missing name's, most often), kept open
	 * with no link on its way (memo_host): asked through it, not walked again. The caveat of
	 * memo_host holds (moved since, it answers for where it is now): only this front end's
	 * plan reads it, and the helper asks of the directory it holds.
	 */
	if (m->dir_fd >= 0 && m->dir && strcmp(m->dir, dir) == 0)
		return sbx_fd_sealed(m->dir_fd);
#endif
	return base->sealed(base->self, dir);
}

void sbx_fsmemo_init(struct sbx_fsmemo *m, const struct sbx_fsview *base)
{
	memset(m, 0, sizeof(*m));
	m->dir_fd = -1;
	m->base = base;
	m->view.lookup = memo_lookup;
	m->view.read_file = memo_read_file;
	/* Only where the base reads so (memo_base: NULL is the host's). */
	m->view.read_chunks = !base || base->read_chunks ? memo_read_chunks : NULL;
	m->view.list = memo_list;
	m->view.readlink = memo_base(m)->readlink ? memo_readlink : NULL;
	m->view.sealed = memo_base(m)->sealed ? memo_sealed : NULL;
	m->view.ahead = memo_ahead;
	m->view.self = m;
}

void sbx_fsmemo_free(struct sbx_fsmemo *m)
{
	free(m->slots);
	sbx_arena_free(&m->arena);
	m->slots = NULL;
	m->n = 0;
	if (m->dir_fd >= 0)
		close(m->dir_fd);
	m->dir_fd = -1;
	free(m->dir);
	m->dir = NULL;
	m->dir_len = m->dir_cap = 0;
}
