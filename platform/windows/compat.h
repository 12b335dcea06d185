/* SPDX-License-Identifier: MIT */
/*
 * compat.h - POSIX names the portable lib/ code uses, for the MinGW-w64 build only (the Windows
 * build force-includes this header; no other build sees it).
 *
 * Two kinds of definitions:
 *   - equivalents: strndup, realpath (GetFullPathName semantics: lexical, no symlinks resolved),
 *     lstat (no symlinks on this path: stat), O_CLOEXEC (_O_NOINHERIT), localtime_r
 *     (localtime_s);
 *   - readlink reports EINVAL ("not a symbolic link"), which is what POSIX callers handle;
 *   - refusals: directory-fd walking (openat, fdopendir, fstatat) fails with ENOSYS. Only glob
 *     expansion walks directories that way, and on Windows deny globs are refused before that
 *     matters (plan_windows.c: the restricted token cannot deny reads). The d_type member and
 *     DT_* values exist only so that code compiles; it never runs.
 */
#ifndef SBX_WINDOWS_COMPAT_H
#define SBX_WINDOWS_COMPAT_H

#ifdef _WIN32

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <dirent.h>
#include <time.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC _O_NOINHERIT
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0 /* no controlling terminals on Windows */
#endif
#ifndef O_NONBLOCK
#define O_NONBLOCK 0 /* only used for regular files, which never block */
#endif
#ifndef O_DIRECTORY
#define O_DIRECTORY 0
#endif
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef AT_SYMLINK_NOFOLLOW
#define AT_SYMLINK_NOFOLLOW 0x100
#endif
#ifndef S_ISLNK
#define S_ISLNK(m) 0
#endif
#ifndef DT_UNKNOWN
#define DT_UNKNOWN 0
#define DT_DIR	   4
#endif
/* MinGW's struct dirent has no d_type; d_reclen is always zero there, so it reads DT_UNKNOWN. */
#define d_type d_reclen

static inline char *sbx_compat_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = malloc(len + 1);

	if (d) {
		memcpy(d, s, len);
		d[len] = '\0';
	}
	return d;
}
#define strndup sbx_compat_strndup

/* realpath(path, NULL): the full path of an existing file; symlinks are not resolved. */
static inline char *sbx_compat_realpath(const char *path, char *resolved)
{
	struct stat st;
	char *full;

	if (resolved) {
		errno = EINVAL;
		return NULL;
	}
	if (stat(path, &st) != 0)
		return NULL;
	full = _fullpath(NULL, path, 0);
	if (!full)
		errno = ENOMEM;
	return full;
}
#define realpath sbx_compat_realpath

static inline int sbx_compat_lstat(const char *path, struct stat *st)
{
	return stat(path, st);
}
#define lstat sbx_compat_lstat

static inline int sbx_compat_openat(int dfd, const char *name, int flags, ...)
{
	(void)dfd, (void)name, (void)flags;
	errno = ENOSYS;
	return -1;
}
#define openat sbx_compat_openat

static inline DIR *sbx_compat_fdopendir(int fd)
{
	(void)fd;
	errno = ENOSYS;
	return NULL;
}
#define fdopendir sbx_compat_fdopendir

static inline int sbx_compat_fstatat(int dfd, const char *name, struct stat *st, int flags)
{
	(void)dfd, (void)name, (void)st, (void)flags;
	errno = ENOSYS;
	return -1;
}
#define fstatat sbx_compat_fstatat

static inline int sbx_compat_dirfd(DIR *d)
{
	(void)d;
	errno = ENOSYS;
	return -1;
}
#define dirfd sbx_compat_dirfd

static inline struct tm *sbx_compat_localtime_r(const time_t *t, struct tm *out)
{
	return localtime_s(out, t) == 0 ? out : NULL;
}
#define localtime_r sbx_compat_localtime_r

static inline long sbx_compat_readlink(const char *path, char *buf, size_t size)
{
	(void)path, (void)buf, (void)size;
	errno = EINVAL;
	return -1;
}
#define readlink sbx_compat_readlink

#endif /* _WIN32 */
#endif
