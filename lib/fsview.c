/* SPDX-License-Identifier: MIT */
/*
 * fsview.c - the one way the planner looks at the file system (struct sbx_fsview), and the walk
 * behind the host's view.
 *
 * Everything sbxrun reads from the file system before confinement may have been prepared by an
 * earlier confined run: a symlink, a parent chmod-ed to 000, a renamed directory, a planted name.
 * So a look-up here never turns an error into "missing": only ENOENT, and ENOTDIR from a
 * component that is not a directory, mean absent; anything else (EACCES, ELOOP, ENAMETOOLONG,
 * EIO) is returned, and the planner refuses the run naming the path and the error.
 *
 * The walk resolves a path the way the kernel would, but one component at a time through
 * O_PATH descriptors, so that it can say which symbolic links it crossed (every one: the first
 * may be the user's own, and a later one planted by an earlier run; and whether one sits in a
 * directory someone else can write) and hand back a descriptor of the very object it found.
 * A path with no symbolic link at all costs one openat2(RESOLVE_NO_SYMLINKS) call; the component
 * walk runs only when that call meets a link or is unavailable (before Linux 5.6).
 * Links are followed at most SBX_MAX_LINK_HOPS times, as the kernel does.
 *
 * Off Linux (the macOS and Windows builds plan too) a look-up is one stat(2): links are
 * followed by the kernel and not reported; those backends do not need to know.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <linux/capability.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#ifndef SYS_faccessat2
#define SYS_faccessat2 439 /* Linux 5.8, one number on every architecture */
#endif
#ifndef ST_RDONLY
#define ST_RDONLY 1
#endif
#endif

#include "fswalk.h"
#include "sbx.h"

#ifndef ESTALE
#define ESTALE EIO /* MinGW: a file that changed between the look-up and the open */
#endif

void sbx_pathinfo_clear(struct sbx_pathinfo *out)
{
	out->exists = false;
	out->linked = false;
	out->type = SBX_FT_NONE;
	out->mode = 0;
	out->uid = 0;
	out->dev = out->ino = 0;
	out->real[0] = '\0';
	out->link[0] = '\0';
	out->link_shared = false;
	out->is_link = false;
}

void sbx_pathfacts_keep(struct sbx_pathfacts *f, const struct sbx_pathinfo *in)
{
	f->dev = in->dev;
	f->ino = in->ino;
	f->uid = (uint32_t)in->uid;
	f->mode = (uint16_t)in->mode;
	f->type = (unsigned char)in->type;
	f->exists = in->exists;
	f->is_link = in->is_link;
	f->link_shared = in->link_shared;
	f->linked = in->linked;
}

/* s of n bytes (NULL: "") into buf, a struct sbx_pathinfo buffer, cut to it. */
static void give_str(char *buf, const char *s, size_t n)
{
	if (n >= SBX_MAX_PATH)
		n = SBX_MAX_PATH - 1;
	if (s)
		sbx_copy(buf, s, n);
	buf[s ? n : 0] = '\0';
}

/*
 * Field by field, not a memset of the whole struct and then the facts: its two buffers are
 * 8 KiB, which 10,000 look-ups would clear 10,000 times.
 */
void sbx_pathfacts_give(const struct sbx_pathfacts *f, const char *real, size_t real_len,
			const char *link, size_t link_len, struct sbx_pathinfo *out)
{
	out->exists = f->exists;
	out->is_link = f->is_link;
	out->link_shared = f->link_shared;
	out->linked = f->linked;
	out->type = (enum sbx_ftype)f->type;
	out->mode = f->mode;
	out->uid = f->uid;
	out->dev = f->dev;
	out->ino = f->ino;
	give_str(out->real, real, real_len);
	give_str(out->link, link, link_len);
}

void sbx_fshints_put(struct sbx_fshints *h, const char *path)
{
	if (!path) {
		memset(h, 0, sizeof(*h));
		return;
	}
	h->now = h->next;
	h->next.path = path;
	h->next.len = strlen(path);
	h->next.hash = sbx_hash(path, h->next.len);
}

const struct sbx_fshint *sbx_fshints_of(const struct sbx_fshints *h, const char *path)
{
	if (path == h->now.path)
		return &h->now;
	return path == h->next.path ? &h->next : NULL;
}

size_t sbx_link_len(const char *links)
{
	const char *end = strstr(links, "//");

	return end ? (size_t)(end - links) : strlen(links);
}

#if defined(__linux__)

/*
 * Can someone other than root and the caller replace the link st that sits in the directory
 * dfd? Its owner can, as can anyone who may write the directory, except that in a sticky
 * directory only the link's own owner (or the directory's) may remove it.
 */
static bool link_shared(int dfd, const struct stat *link)
{
	uid_t me = geteuid();
	struct stat dir;
	bool others_write;

	if (fstat(dfd, &dir) < 0)
		return true; /* cannot tell: assume the worst */
	if (dir.st_uid != 0 && dir.st_uid != me)
		return true;
	others_write = (dir.st_mode & S_IWOTH) ||
		       ((dir.st_mode & S_IWGRP) && dir.st_gid != 0 && dir.st_gid != getegid());
	if (!others_write)
		return false;
	return !(dir.st_mode & S_ISVTX) || (link->st_uid != 0 && link->st_uid != me);
}

/* Appends "/name" to the resolved path real (of length *len); ENAMETOOLONG past the limit. */
static int real_push(char *real, size_t *len, const char *name, size_t n)
{
	size_t sep = *len > 1;

	if (*len + sep + n >= SBX_MAX_PATH)
		return -ENAMETOOLONG;
	if (sep)
		real[(*len)++] = '/';
	memcpy(real + *len, name, n);
	*len += n;
	real[*len] = '\0';
	return 0;
}

static void real_pop(char *real, size_t *len)
{
	while (*len > 1 && real[*len - 1] != '/')
		(*len)--;
	if (*len > 1)
		(*len)--;
	real[*len] = '\0';
}

/*
 * Adds the link at the resolved path l (of length n) to the walk's list: last, or first when it
 * is the first shared one (the refusal names it). A list longer than a path is refused: it
 * cannot be told whole.
 */
static int link_note(struct sbx_pathinfo *out, const char *l, size_t n, bool shared)
{
	size_t have = strlen(out->link), sep = have > 0;

	if (have + sep + n >= sizeof(out->link))
		return -ENAMETOOLONG;
	if (shared && !out->link_shared) {
		memmove(out->link + n + sep, out->link, have + 1);
		memcpy(out->link, l, n);
		if (sep)
			out->link[n] = '/';
	} else {
		if (sep)
			out->link[have] = '/';
		memcpy(out->link + have + sep, l, n + 1);
	}
	out->link_shared = out->link_shared || shared;
	return 0;
}

/* openat2 is missing or refused here (before Linux 5.6, a seccomp filter): err is its answer. */
static bool no_openat2(int err)
{
	return err == ENOSYS || err == EINVAL || err == E2BIG || err == EPERM || err == EAGAIN;
}

/*
 * What is left of a walk after a link (todo from pos), opened beneath cur with one openat2 that
 * follows no link: a link most often leads to a path with none on it (a hook's
 * ../../scripts/pre-commit), which the component walk would open name by name, three system
 * calls each. The answer is the component walk's: a link met (ELOOP, or one as the last name)
 * leaves the rest to it, and the resolved path is spelled as it spells it ("." passed over,
 * ".." going up a name). Returns 0 with *next and *st the object found and real (*rlen) its
 * path, 1 when the walk is to go on name by name, 2 when the path is missing, or -errno.
 */
static int rest_at(int cur, char *todo, size_t pos, char *real, size_t *rlen, int *next,
		   struct stat *st)
{
	struct sbx_open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = SBX_RESOLVE_NO_SYMLINKS | SBX_RESOLVE_NO_MAGICLINKS,
	};
	size_t end, n;
	char save;
	int fd, err;

	while (todo[pos] == '/')
		pos++;
	end = pos + strlen(todo + pos);
	/* Trailing slashes, which the component walk passes over as it does any other. */
	while (end > pos && todo[end - 1] == '/')
		end--;
	if (end == pos)
		return 1;
	save = todo[end];
	todo[end] = '\0';
	fd = (int)syscall(SYS_openat2, cur, todo + pos, &how, sizeof(how));
	err = errno;
	todo[end] = save;
	if (fd < 0) {
		/* No link lies before a missing component: it would have been ELOOP. */
		if (err == ENOENT || err == ENOTDIR)
			return 2;
		/*
		 * ENAMETOOLONG may be the kernel's bound on a whole path (what is left can be
		 * longer than one), not a name's: the component walk, name by name, says which.
		 */
		return err == ELOOP || err == ENAMETOOLONG || no_openat2(err) ? 1 : -err;
	}
	if (fstat(fd, st) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	if (S_ISLNK(st->st_mode)) {
		close(fd);
		return 1;
	}
	for (size_t i = pos; i < end; i += n) {
		while (todo[i] == '/')
			i++;
		n = (size_t)(strchrnul(todo + i, '/') - (todo + i));
		if (n > end - i)
			n = end - i;
		if (n == 2 && todo[i] == '.' && todo[i + 1] == '.')
			real_pop(real, rlen);
		else if ((n != 1 || todo[i] != '.') && real_push(real, rlen, todo + i, n) < 0) {
			close(fd);
			return -ENAMETOOLONG;
		}
	}
	*next = fd;
	return 0;
}

/* Closes fd unless it is own, a descriptor lent to the walk. */
static void drop(int fd, int own)
{
	if (fd >= 0 && fd != own)
		close(fd);
}

/*
 * The component walk: each component opened O_PATH|O_NOFOLLOW beneath the directory reached so
 * far, a link read through its own descriptor and spliced in front of what is left. Nothing is
 * looked up twice by name, so what is reported is what was found. It starts at "/", or, when
 * base is a descriptor, in that directory, whose path is path's first from bytes (spelled with
 * no link, "." or ".." in it); base is taken, or only lent when lent is true (the caller's to
 * close). After each link what is left is tried with openat2 first (rest_at) unless openat2 is
 * missing (has_openat2 false).
 */
static int walk_components(const char *path, size_t tlen, int base, size_t from, bool lent,
			   bool has_openat2, struct sbx_pathinfo *out, int *fd_out)
{
	const int own = lent ? base : -1; /* never closed here */
	char todo[2 * SBX_MAX_PATH + 2], target[SBX_MAX_PATH + 1];
	size_t rlen = 1, pos = 0;
	int cur, next = -1, hops = 0, err = 0;
	struct stat st;
	bool have_st = false; /* st is cur's: its last component's, fstat-ed when it was opened */

	if (tlen >= SBX_MAX_PATH) {
		drop(base, own);
		return -ENAMETOOLONG;
	}
	memcpy(todo, path, tlen + 1);
	strcpy(out->real, "/");
	if (base >= 0) {
		cur = base;
		pos = from;
		for (rlen = from; rlen > 1 && path[rlen - 1] == '/';)
			rlen--;
		memcpy(out->real, path, rlen);
		out->real[rlen] = '\0';
	} else {
		cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cur < 0)
			return -errno;
	}
	for (;;) {
		char *name, sep;
		size_t n;

		while (todo[pos] == '/')
			pos++;
		if (!todo[pos])
			break;
		/*
		 * The name is cut in place (todo is the walk's own copy): its separator is put back
		 * once it has been opened, before anything reads on in todo.
		 */
		name = todo + pos;
		n = (size_t)(strchrnul(name, '/') - name);
		if (n > NAME_MAX) {
			err = ENAMETOOLONG;
			goto fail;
		}
		pos += n;
		if (name[0] == '.' && (n == 1 || (n == 2 && name[1] == '.'))) {
			if (n == 1)
				continue;
			next = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
			if (next < 0) {
				err = errno;
				goto fail;
			}
			drop(cur, own);
			cur = next;
			have_st = false;
			real_pop(out->real, &rlen);
			continue;
		}
		sep = todo[pos];
		todo[pos] = '\0';
		next = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		todo[pos] = sep;
		if (next < 0) {
			err = errno;
			if (err == ENOENT || err == ENOTDIR)
				goto missing;
			goto fail;
		}
		if (fstat(next, &st) < 0) {
			err = errno;
			goto fail;
		}
		if (S_ISLNK(st.st_mode)) {
			ssize_t tl;
			size_t rest = strlen(todo + pos);

			have_st = false;

			if (++hops > SBX_MAX_LINK_HOPS) {
				err = ELOOP;
				goto fail;
			}
			{
				char save[SBX_MAX_PATH];
				size_t k = pos, l = rlen;

				/* The first link, before any splice: is it the path's last name? */
				while (todo[k] == '/')
					k++;
				if (!out->link[0])
					out->is_link = !todo[k];
				memcpy(save, out->real, rlen + 1);
				if (real_push(save, &l, name, n) < 0 ||
				    link_note(out, save, l, link_shared(cur, &st)) < 0) {
					err = ENAMETOOLONG;
					goto fail;
				}
			}
			tl = readlinkat(next, "", target, sizeof(target));
			if (tl < 0) {
				err = errno;
				goto fail;
			}
			if ((size_t)tl >= sizeof(target) || (size_t)tl + 1 + rest >= sizeof(todo)) {
				err = ENAMETOOLONG;
				goto fail;
			}
			close(next);
			next = -1;
			/* The link's target, then what was left after the link. */
			memmove(todo + tl + 1, todo + pos, rest + 1);
			memcpy(todo, target, (size_t)tl);
			todo[tl] = '/';
			pos = 0;
			if (target[0] == '/') {
				drop(cur, own);
				cur = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
				if (cur < 0)
					return -errno;
				rlen = 1;
				strcpy(out->real, "/");
			}
			if (has_openat2) {
				int r = rest_at(cur, todo, pos, out->real, &rlen, &next, &st);

				if (r == 2)
					goto missing;
				if (r < 0) {
					err = -r;
					goto fail;
				}
				if (r == 0) {
					drop(cur, own);
					cur = next;
					next = -1;
					have_st = true;
					break;
				}
			}
			continue;
		}
		if (real_push(out->real, &rlen, name, n) < 0) {
			err = ENAMETOOLONG;
			goto fail;
		}
		drop(cur, own);
		cur = next;
		next = -1;
		have_st = true;
		if (!S_ISDIR(st.st_mode)) {
			/* A file with components after it: the path cannot exist (ENOTDIR). */
			size_t k = pos;

			while (todo[k] == '/')
				k++;
			if (todo[k])
				goto missing;
		}
	}
	/* The object's facts were asked when it was opened; "/" or ".." last are asked here. */
	if (!have_st && fstat(cur, &st) < 0) {
		err = errno;
		goto fail;
	}
	pathinfo_fill(out, &st);
	/* The lent directory itself ("." as a link's target): a descriptor of its own. */
	if (fd_out && cur == own && (cur = fcntl(own, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	if (fd_out)
		*fd_out = cur;
	else
		drop(cur, own);
	return 0;
missing:
	if (next >= 0)
		close(next);
	drop(cur, own);
	out->exists = false;
	out->type = SBX_FT_NONE;
	out->real[0] = '\0';
	return 0;
fail:
	if (next >= 0)
		close(next);
	drop(cur, own);
	return -err;
}

/*
 * Is the absolute path (len bytes) spelled plainly, no empty name, "." or ".." in it (so that
 * its spelling is its resolved path when no link lies on it)? *name is where its last name
 * starts.
 */
static bool plain_path(const char *path, size_t len, size_t *name)
{
	size_t n;

	if (len < 2 || path[0] != '/')
		return false;
	for (size_t i = 1; i < len; i += n + 1) {
		n = (size_t)(strchrnul(path + i, '/') - (path + i));
		if (!n || (path[i] == '.' && (n == 1 || (n == 2 && path[i + 1] == '.'))))
			return false;
		*name = i;
	}
	return path[len - 1] != '/';
}

/*
 * The directory of path's last name (of a path of len bytes) opened O_PATH without following a
 * link, when path is spelled plainly (plain_path); *from is where the last name starts. -1
 * otherwise, or when it cannot be opened so (a link put on the way since): the walk then
 * starts at "/".
 */
static int open_parent(const char *path, size_t len, size_t *from)
{
	struct sbx_open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = SBX_RESOLVE_NO_SYMLINKS | SBX_RESOLVE_NO_MAGICLINKS,
	};
	char dir[SBX_MAX_PATH];
	size_t name = 0;

	if (!plain_path(path, len, &name))
		return -1;
	*from = name;
	if (name == 1)
		return open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	memcpy(dir, path, name - 1);
	dir[name - 1] = '\0';
	return (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
}

int sbx_fs_walk(const char *path, struct sbx_pathinfo *out, int *fd_out)
{
	struct sbx_open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = SBX_RESOLVE_NO_SYMLINKS | SBX_RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	size_t len, from = 0;
	int fd, err, base;

	sbx_pathinfo_clear(out);
	if (fd_out)
		*fd_out = -1;
	/* A Windows path (a Windows plan made here, explain --platform windows) names nothing. */
	if (sbx_path_is_windows_abs(path))
		return 0;
	if (!sbx_path_is_posix_abs(path))
		return -EINVAL;
	len = strlen(path);
	if (len >= SBX_MAX_PATH)
		return -ENAMETOOLONG;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd >= 0) {
		if (fstat(fd, &st) < 0) {
			err = errno;
			close(fd);
			return -err;
		}
		if (!S_ISLNK(st.st_mode)) {
			pathinfo_fill(out, &st);
			sbx_copy(out->real, path, len + 1);
			if (fd_out)
				*fd_out = fd;
			else
				close(fd);
			return 0;
		}
		close(fd);
		/*
		 * The last component is a link, and none lies before it (that would have been
		 * ELOOP): the walk starts in its directory, opened the same way, rather than at "/"
		 * (a hook linked to a script of the work tree, ten hooks in a repository).
		 */
		base = open_parent(path, len, &from);
		return walk_components(path, len, base, base >= 0 ? from : 0, false, true, out,
				       fd_out);
	}
	err = errno;
	/* No link can lie before the component that is missing: it would have been ELOOP. */
	if (err == ENOENT || err == ENOTDIR)
		return 0;
	/* ELOOP: a link on the way; the others: no openat2 (old kernel, seccomp). */
	if (err != ELOOP && !no_openat2(err))
		return -err;
	return walk_components(path, len, -1, 0, false, err == ELOOP, out, fd_out);
}

int sbx_fs_walk_in(int dirfd, const char *path, struct sbx_pathinfo *out, int *fd_out)
{
	size_t len = strlen(path), name = 0;

	if (dirfd < 0 || len >= SBX_MAX_PATH || !plain_path(path, len, &name))
		return sbx_fs_walk(path, out, fd_out);
	sbx_pathinfo_clear(out);
	if (fd_out)
		*fd_out = -1;
	return walk_components(path, len, dirfd, name, true, true, out, fd_out);
}

#else /* !__linux__ */

int sbx_fs_walk_in(int dirfd, const char *path, struct sbx_pathinfo *out, int *fd_out)
{
	(void)dirfd;
	return sbx_fs_walk(path, out, fd_out);
}

int sbx_fs_walk(const char *path, struct sbx_pathinfo *out, int *fd_out)
{
	struct stat st;
	size_t len = strlen(path);

	sbx_pathinfo_clear(out);
	if (fd_out)
		*fd_out = -1;
	if (len >= SBX_MAX_PATH)
		return -ENAMETOOLONG;
	if (stat(path, &st) < 0)
		return errno == ENOENT || errno == ENOTDIR ? 0 : -errno;
	pathinfo_fill(out, &st);
	memcpy(out->real, path, len + 1);
	return 0;
}

#endif

/* ---- the host's view --------------------------------------------------------------------- */

static int host_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	(void)self;
	return sbx_fs_walk(path, out, NULL);
}

#if defined(__linux__)
/*
 * path opened as flags ask with one openat2(2) that follows no link, and info what the
 * descriptor holds: a path with no link on it (the git configs, .git and hooks/ listed) is one
 * look-up, not the walk's openat2, fstat and close, then open (and musl's fcntl) and fstat by
 * name. Returns the descriptor, -ENOENT when it is missing (no link can lie before the missing
 * name: that would have been ELOOP), or 1 when the walk is to answer: a link on the way, no
 * openat2, any other failure (the walk's facts word it), a non-directory asked as one.
 */
static int open_plain(const char *path, int flags, struct sbx_pathinfo *info)
{
	struct sbx_open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK),
		.resolve = SBX_RESOLVE_NO_SYMLINKS | SBX_RESOLVE_NO_MAGICLINKS,
	};
	size_t len = strlen(path);
	struct stat st;
	int fd;

	if (!sbx_path_is_posix_abs(path) || len >= SBX_MAX_PATH)
		return 1;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd < 0) {
		if (errno == ENOENT || (errno == ENOTDIR && !(flags & O_DIRECTORY))) {
			sbx_pathinfo_clear(info);
			return -ENOENT;
		}
		return 1;
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return 1;
	}
	sbx_pathinfo_clear(info);
	pathinfo_fill(info, &st);
	sbx_copy(info->real, path, len + 1);
	return fd;
}
#endif

/*
 * Opens what the walk found at path, by its resolved path without following a link, and checks
 * it is still the same object (info: what the walk found).
 */
static int open_found(const char *path, int flags, struct sbx_pathinfo *info)
{
	struct stat st;
	int r, fd, err;

#if defined(__linux__)
	if ((fd = open_plain(path, flags, info)) != 1)
		return fd;
#endif
	r = sbx_fs_walk(path, info, NULL);
	if (r < 0)
		return r;
	if (!info->exists)
		return -ENOENT;
#if defined(__linux__)
	/* openat, not open: musl's open sets close-on-exec again with fcntl. */
	fd = openat(AT_FDCWD, info->real, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
#else
	fd = open(info->real, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
#endif
	if (fd < 0)
		return errno == ENOENT ? -ESTALE : -errno;
	if (fstat(fd, &st) < 0 || (unsigned long long)st.st_dev != info->dev ||
	    (unsigned long long)st.st_ino != info->ino) {
		err = errno;
		close(fd);
		return -(err ? err : ESTALE);
	}
	return fd;
}

int sbx_fd_read(int fd, char *buf, size_t size, size_t *len)
{
	size_t got = 0;
	int err = 0;

	while (got < size) {
		ssize_t n = read(fd, buf + got, size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			err = errno;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	*len = got;
	return -err;
}

int sbx_fd_read_chunks(int fd, char *buf, size_t size, sbx_fs_chunk_fn each, void *arg)
{
	size_t got;
	int r;

	do {
		r = sbx_fd_read(fd, buf, size, &got);
		if (!r && got)
			r = each(arg, buf, got);
	} while (!r && got == size);
	return r;
}

/* Opens the regular file at path for reading, as the walk found it: fd, or -errno. */
static int open_regular(const char *path)
{
	struct sbx_pathinfo info;
	int fd = open_found(path, O_RDONLY, &info);

	if (fd >= 0 && info.type != SBX_FT_REG) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

static int host_read_chunks(void *self, const char *path, char *buf, size_t size,
			    sbx_fs_chunk_fn each, void *arg)
{
	int fd = open_regular(path), err;

	(void)self;
	if (fd < 0)
		return fd;
	err = sbx_fd_read_chunks(fd, buf, size, each, arg);
	close(fd);
	return err;
}

static int host_read_file(void *self, const char *path, char *buf, size_t size, size_t *len)
{
	int fd = open_regular(path), err;

	(void)self;
	*len = 0;
	if (fd < 0)
		return fd;
	err = sbx_fd_read(fd, buf, size, len);
	close(fd);
	return err;
}

/* One entry of a listing handed to each: 0 to go on, else what stops the listing. */
static int list_entry(int dfd, const char *name, unsigned char dtype, sbx_fs_list_fn each,
		      void *arg)
{
	enum sbx_ftype t;

	if (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2])))
		return 0;
	switch (dtype) {
	case DT_DIR:
		t = SBX_FT_DIR;
		break;
#if defined(DT_LNK)
	case DT_LNK:
		t = SBX_FT_LINK;
		break;
#endif
#if defined(DT_REG)
	case DT_REG:
		t = SBX_FT_REG;
		break;
#endif
	case DT_UNKNOWN: {
		struct stat st;

		if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return errno == ENOENT ? 0 : -errno; /* ENOENT: gone since it was listed */
		t = ftype_of(st.st_mode);
		break;
	}
	default:
		t = SBX_FT_OTHER;
		break;
	}
	return each(arg, name, t);
}

#if defined(__linux__)
/* A record of getdents64(2), as the kernel lays it out (struct linux_dirent64). */
struct kdirent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/*
 * The entries of the directory fd (closed here), listed by getdents64(2) into the stack: each
 * half of a start lists four directories, and musl's fdopendir adds an fstat, two fcntl calls
 * and a heap block of 2 KiB, which its allocator maps and unmaps, to each. A directory removed
 * meanwhile ends its listing, as readdir(3) takes that ENOENT for the end.
 */
static int list_fd(int fd, sbx_fs_list_fn each, void *arg)
{
	char buf[2048] __attribute__((aligned(8)));
	long n;
	int r = 0;

	while (!r && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			r = errno == ENOENT ? 0 : -errno;
			break;
		}
		for (long off = 0; off < n && !r;) {
			const struct kdirent64 *de = (const struct kdirent64 *)(buf + off);

			off += de->reclen;
			r = list_entry(fd, de->name, de->type, each, arg);
		}
	}
	close(fd);
	return r;
}
#else
static int list_fd(int fd, sbx_fs_list_fn each, void *arg)
{
	struct dirent *de;
	DIR *d = fdopendir(fd);
	int r = 0, err;

	if (!d) {
		err = errno;
		close(fd);
		return -err;
	}
	while (!r) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			r = -errno;
			break;
		}
		r = list_entry(dirfd(d), de->d_name, de->d_type, each, arg);
	}
	closedir(d);
	return r;
}
#endif

static int host_list(void *self, const char *dir, sbx_fs_list_fn each, void *arg)
{
	struct sbx_pathinfo info;
	int fd;

	(void)self;
	fd = open_found(dir, O_RDONLY | O_DIRECTORY, &info);
	if (fd == -EACCES || fd == -EPERM) {
		/*
		 * Not listable. If the caller can still pass through it (mode 0711) its entries
		 * open by name, and if it owns it the command may chmod it back: either way what
		 * is inside cannot be known and would not be covered. Only a directory closed to
		 * the caller and not the caller's stays closed to the command as well.
		 */
		if (!info.exists)
			return fd;
#if !defined(_WIN32)
		if (info.uid == (unsigned long)geteuid() ||
		    faccessat(AT_FDCWD, info.real, X_OK, AT_EACCESS) == 0)
			return fd;
		return SBX_FS_CLOSED;
#else
		return fd;
#endif
	}
	if (fd < 0)
		return fd;
	return list_fd(fd, each, arg);
}

#if !defined(_WIN32)
/*
 * The link path names last, read in its directory as the walk resolves it (links on the way
 * followed, as the kernel follows them), so that the text is the link's there, not another's
 * met by name on a second way down.
 */
static int host_readlink(void *self, const char *path, char *buf, size_t size)
{
	struct sbx_pathinfo info;
	size_t plen = strlen(path), dlen = sbx_path_parent_len(path, plen), at = dlen;
	char dir[SBX_MAX_PATH];
	ssize_t n;
	int fd, err;

	(void)self;
	if (!size || !sbx_path_is_posix_abs(path) || !dlen || dlen >= plen || plen >= sizeof(dir))
		return -EINVAL;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	while (path[at] == '/')
		at++;
#if defined(O_PATH)
	fd = open_found(dir, O_PATH | O_DIRECTORY, &info);
#else
	fd = open_found(dir, O_RDONLY | O_DIRECTORY, &info); /* macOS: no O_PATH */
#endif
	if (fd < 0)
		return fd;
	n = readlinkat(fd, path + at, buf, size);
	err = errno;
	close(fd);
	if (n < 0)
		return -(err == ENOENT ? EINVAL : err);
	if ((size_t)n >= size)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return (int)n;
}
#endif

const char *sbx_sealed_name(int sealed)
{
	return sealed == SBX_SEALED_ROFS      ? "read-only file system"
	       : sealed == SBX_SEALED_ACCESS  ? "not writable by you"
	       : sealed == SBX_SEALED_ALIASED ? "a read-only mount of a file system written "
						"elsewhere"
					      : "";
}

#if defined(__linux__)
/*
 * May the caller override a directory's mode or permissions (CAP_FOWNER: chmod it back;
 * CAP_DAC_OVERRIDE: write it anyway)? Asked of the capabilities it holds, without the owner's
 * mapping into its user namespace, which would narrow them: a "yes" only keeps a mask.
 */
static bool may_override(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &h, data) < 0)
		return true;
	return data[0].effective & ((1u << CAP_FOWNER) | (1u << CAP_DAC_OVERRIDE));
}

/*
 * Undoes the octal escapes of a field of /proc/self/mountinfo (space, tab, newline, backslash),
 * in place.
 */
static void mountinfo_unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

/* Is the path a, component by component, the path b or one of its parents? */
static bool path_within(const char *a, const char *b)
{
	size_t n = strlen(a);

	if (strcmp(a, "/") == 0)
		return true;
	return strncmp(a, b, n) == 0 && (b[n] == '\0' || b[n] == '/');
}

struct mount_line {
	long id;
	char *dev, *root, *point, *opts, *type, *source, *super;
};

/*
 * Splits one line of mountinfo into its fields (escapes undone); false if it is not one. The
 * fields before " - " are the kernel's own, escaped; after it the type, the source (which may
 * be empty: two spaces) and the super block's options, the rest of the line.
 */
static bool mount_line_parse(char *line, struct mount_line *m)
{
	char *f[6], *save = NULL, *t, *sep, *src;
	int n = 0;

	line[strcspn(line, "\n")] = '\0';
	sep = strstr(line, " - ");
	if (!sep)
		return false;
	*sep = '\0';
	for (t = strtok_r(line, " ", &save); t && n < 6; t = strtok_r(NULL, " ", &save))
		f[n++] = t;
	if (n < 6)
		return false;
	m->id = strtol(f[0], NULL, 10);
	m->dev = f[2];
	m->root = f[3];
	m->point = f[4];
	m->opts = f[5];
	m->type = sep + 3;
	if (!(src = strchr(m->type, ' ')) || !(m->super = strchr(src + 1, ' ')))
		return false;
	*src = '\0';
	m->source = src + 1;
	*m->super++ = '\0';
	mountinfo_unescape(m->root);
	mountinfo_unescape(m->point);
	return true;
}

/*
 * File systems whose files no mount of another device reaches: a read-only super block, or no
 * writable mount of the same device, keeps a name from being created. Not so an overlay (its
 * layers), FUSE, or a network file system (another super block of the same export): any other
 * type is taken as writable elsewhere. Nor an image on a loop device: its backing file may be
 * writable where it lies, and an entry written into it shows once the cache lets go.
 */
static bool own_device(const char *type, const char *source)
{
	if (strncmp(source, "/dev/loop", 9) == 0)
		return false;
	static const char *const types[] = {
		"tmpfs",   "ramfs",    "ext2",	"ext3",	  "ext4",  "xfs",      "btrfs",
		"f2fs",	   "jfs",      "vfat",	"msdos",  "exfat", "ntfs3",    "udf",
		"iso9660", "squashfs", "erofs", "cramfs", "romfs", "bcachefs",
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	return false;
}

/* Does a comma-separated option list hold the word w? */
static bool has_option(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, w, n) == 0 && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * The directory fd lies on a mount that is read-only by its own flag: is the same directory
 * reachable through a writable mount of the same file system (a read-only bind of a writable
 * tree: the command may create the name through the other one)? 0 no (or the file system
 * itself is read-only, which no mount can undo), 1 yes, -errno when it cannot be told, which
 * the caller takes as yes. Read from /proc: the mount the descriptor is on (fdinfo's mnt_id),
 * where the directory lies in its file system (that mount's root and the path below its mount
 * point), and every other mount of the same device whose root is that place or above it. A
 * file system of a type whose files other mounts may reach (own_device) counts as yes.
 */
static int writable_alias(int fd)
{
	char name[64], path[PATH_MAX], fspath[2 * PATH_MAX], *line = NULL;
	struct mount_line m, own = {.id = -1};
	char *own_line = NULL;
	long mnt_id = -1;
	size_t cap = 0;
	ssize_t n;
	FILE *f;
	int rc = -ENOENT;

	snprintf(name, sizeof(name), "/proc/self/fdinfo/%d", fd);
	if (!(f = fopen(name, "re")))
		return -errno;
	while (getline(&line, &cap, f) > 0)
		if (strncmp(line, "mnt_id:", 7) == 0)
			mnt_id = strtol(line + 7, NULL, 10);
	fclose(f);
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd);
	n = readlink(name, path, sizeof(path) - 1);
	if (mnt_id < 0 || n <= 0 || n >= (ssize_t)sizeof(path) - 1 || path[0] != '/') {
		free(line);
		return n < 0 ? -errno : -EINVAL;
	}
	path[n] = '\0';
	if (!(f = fopen("/proc/self/mountinfo", "re"))) {
		rc = -errno;
		free(line);
		return rc;
	}
	/* First the descriptor's own mount. */
	while (getline(&line, &cap, f) > 0) {
		if (!mount_line_parse(line, &m) || m.id != mnt_id)
			continue;
		if (!path_within(m.point, path))
			break;
		if (!own_device(m.type, m.source)) {
			rc = -EXDEV;
			break;
		}
		if (has_option(m.super, "ro")) {
			rc = 0;
			break;
		}
		snprintf(fspath, sizeof(fspath), "%s%s", strcmp(m.root, "/") == 0 ? "" : m.root,
			 path + (strcmp(m.point, "/") == 0 ? 0 : strlen(m.point)));
		if (fspath[0] == '\0')
			strcpy(fspath, "/");
		own_line = strdup(m.dev);
		own = m;
		rc = own_line ? 1 : -ENOMEM;
		break;
	}
	if (rc == 1) {
		/* Then any other mount of that device, writable, whose root holds the directory. */
		rc = 0;
		rewind(f);
		while (rc == 0 && getline(&line, &cap, f) > 0)
			if (!mount_line_parse(line, &m))
				rc = -EINVAL; /* a line not understood may be that mount */
			else if (m.id != own.id && strcmp(m.dev, own_line) == 0 &&
				 has_option(m.opts, "rw") && path_within(m.root, fspath))
				rc = 1;
		if (rc == 0 && ferror(f))
			rc = -EIO; /* not read to its end */
	}
	fclose(f);
	free(own_line);
	free(line);
	return rc;
}

int sbx_fd_sealed(int fd)
{
	struct statfs fs;
	struct stat st;

	if (fstat(fd, &st) < 0 || fstatfs(fd, &fs) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	/*
	 * The mount's flag: the sandbox clones the mount, and the command cannot remount it. But
	 * a read-only bind of a writable tree leaves the tree writable where it is mounted
	 * writable: there the command may create the name, and the mask's mount point cannot be
	 * made on the read-only mount.
	 */
	if (fs.f_flags & ST_RDONLY)
		return writable_alias(fd) == 0 ? SBX_SEALED_ROFS : SBX_SEALED_ALIASED;
	/*
	 * The kernel's own check with the effective ids, groups and ACLs (access(2) alone takes the
	 * real ids). Write and search: creating a name takes both.
	 */
	if (syscall(SYS_faccessat2, fd, "", W_OK | X_OK, AT_EACCESS | AT_EMPTY_PATH) == 0)
		return SBX_SEALED_NO;
	/*
	 * Its owner, or a capability over it, can chmod it writable again: never sealed, and the
	 * mount point its mask needs cannot be made there.
	 */
	if (errno == EACCES && (st.st_uid == geteuid() || may_override()))
		return SBX_SEALED_UNMASKABLE;
	if (errno == EACCES)
		return SBX_SEALED_ACCESS;
	if (errno == EROFS)
		return writable_alias(fd) == 0 ? SBX_SEALED_ROFS : SBX_SEALED_ALIASED;
	return -errno; /* ENOSYS (before Linux 5.8): not known, so masked */
}

/* The directory looked up once, and asked through the descriptor of that look-up. */
static int host_sealed(void *self, const char *dir)
{
	struct sbx_pathinfo info;
	int fd, rc;

	(void)self;
	rc = sbx_fs_walk(dir, &info, &fd);
	if (rc < 0)
		return rc;
	if (fd < 0)
		return -ENOENT;
	rc = sbx_fd_sealed(fd);
	close(fd);
	return rc;
}
#else
int sbx_fd_sealed(int fd)
{
	(void)fd;
	return SBX_SEALED_NO;
}
#endif

const struct sbx_fsview sbx_fsview_host = {
	.lookup = host_lookup,
	.read_file = host_read_file,
	.read_chunks = host_read_chunks,
	.list = host_list,
	.self = NULL,
#if !defined(_WIN32)
	.readlink = host_readlink,
#endif
#if defined(__linux__)
	.sealed = host_sealed,
#endif
};

const struct sbx_fsview *sbx_ctx_fs(const struct sbx_ctx *ctx)
{
	return ctx && ctx->fs ? ctx->fs : &sbx_fsview_host;
}

int sbx_fs_canonical_dir(const char *path, char **out, char **link, struct sbx_diag *d)
{
	struct sbx_pathinfo in;
	char *abs = NULL;
	int r;

	*out = NULL;
	if (link)
		*link = NULL;
#if defined(_WIN32)
	/* Drive and UNC paths, no links to follow: the full path of an existing directory. */
	{
		struct stat st;

		abs = realpath(path, NULL);
		if (!abs)
			return sbx_diag_set(d, -errno, "%s", strerror(errno));
		if (stat(abs, &st) || !S_ISDIR(st.st_mode)) {
			free(abs);
			return sbx_diag_set(d, -ENOTDIR, "%s", strerror(ENOTDIR));
		}
		*out = abs;
		return 0;
	}
#endif
	if (!sbx_path_is_posix_abs(path)) {
		char *cwd = getcwd(NULL, 0);

		if (!cwd)
			return sbx_diag_set(d, -errno, "%s", strerror(errno));
		r = sbx_path_join(cwd, path, &abs);
		free(cwd);
	} else {
		r = sbx_path_normalize(path, &abs);
	}
	if (r)
		return sbx_diag_set(d, r, "%s", strerror(-r));
	r = sbx_fs_walk(abs, &in, NULL);
	if (r == 0 && !in.exists)
		r = -ENOENT;
	if (r == 0 && in.type != SBX_FT_DIR)
		r = -ENOTDIR;
	free(abs);
	if (r)
		return sbx_diag_set(d, r, "%s", strerror(-r));
	/* Whoever may replace a link on the way decides where the directory is: refused. */
	if (in.link[0] && in.link_shared)
		return sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				    "it crosses symlink %.*s, which users other than root and the "
				    "caller can replace",
				    (int)sbx_link_len(in.link), in.link);
	if (link && in.link[0] && !(*link = strdup(in.link)))
		return sbx_diag_set(d, -ENOMEM, "%s", strerror(ENOMEM));
	*out = strdup(in.real);
	if (!*out && link) {
		free(*link);
		*link = NULL;
	}
	return *out ? 0 : sbx_diag_set(d, -ENOMEM, "%s", strerror(ENOMEM));
}

int sbx_lookup_failed(struct sbx_diag *d, int err, const char *path)
{
	sbx_diag_set(d, err, "cannot look up %s: %s", path, strerror(-err));
	if (err == -ENAMETOOLONG)
		return sbx_diag_hint(
			d, err,
			"the path, or the links it crosses together (each kept whole), "
			"exceeds PATH_MAX: name the path where its links lead");
	if (err == -EMFILE || err == -ENFILE)
		return sbx_diag_hint(
			d, err,
			"raise the limit of open files (ulimit -n): the sandbox holds a "
			"descriptor for each path of the profile while it is built");
	return sbx_diag_hint(d, err,
			     "sbxrun never takes an unreadable path for a missing one; restore "
			     "access to it, or drop the rule that names it");
}

/*
 * One look-up through the context's view. With d, a failure other than absence is worded
 * there, naming the path: an earlier run may have prepared it (a parent chmod-ed to 000, a link
 * loop), so what it holds is unknown and the rule that names it cannot be planned.
 */
int sbx_ctx_lookup(const struct sbx_ctx *ctx, const char *path, struct sbx_pathinfo *in,
		   struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	int r = v->lookup(v->self, path, in);

	if (r < 0 && r != -ENOMEM && d)
		sbx_lookup_failed(d, r, path);
	return r;
}

static int count_one(void *arg, const char *name, enum sbx_ftype type)
{
	(void)name;
	(void)type;
	*(bool *)arg = true;
	return 1; /* one entry is enough */
}

int sbx_ctx_is_point(const struct sbx_ctx *ctx, const char *path, const struct sbx_pathinfo *in,
		     bool dir, const char *holds, bool *yes, struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	size_t want = holds ? strlen(holds) : 0, got = 0;
	bool entry = false;
	char buf[8];
	int r;

	*yes = false;
	if (!in->exists || in->is_link)
		return 0;
	if (dir) {
		if (in->type != SBX_FT_DIR)
			return 0;
		r = v->list(v->self, path, count_one, &entry);
		/* A directory that cannot be listed is not known to be empty: it is no point. */
		if (r == SBX_FS_CLOSED)
			return 0;
	} else {
		if (in->type != SBX_FT_REG || want >= sizeof(buf))
			return 0;
		r = v->read_file(v->self, path, buf, want + 1, &got);
	}
	/*
	 * Gone since its look-up (ENOENT; ESTALE from the descriptor of a removed directory): the
	 * name is missing now, which the points protocol takes as it takes a point, checking
	 * again whatever is there when it makes one.
	 */
	if (r == -ENOENT || r == -ESTALE) {
		*yes = true;
		return 0;
	}
	if (r < 0) {
		if (r != -ENOMEM && d) {
			sbx_diag_set(d, r, "cannot %s %s: %s", dir ? "list" : "read", path,
				     strerror(-r));
			sbx_diag_hint(d, r,
				      "sbxrun never takes an unreadable path for a missing one; "
				      "restore access to it");
		}
		return r;
	}
	*yes = dir ? !entry : got == want && memcmp(buf, holds ? holds : "", want) == 0;
	return 0;
}
