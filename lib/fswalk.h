/* SPDX-License-Identifier: MIT */
/*
 * fswalk.h - what the host's look-up (fsview.c) and the memo over it (fsmemo.c) share: the
 * facts of a stat(2), inline in both (the memo fills them for each of 10,000 names), and
 * openat2(2) as the kernel defines it, for C libraries whose headers do not have it yet.
 */
#ifndef SBX_FSWALK_H
#define SBX_FSWALK_H

#include <stdint.h>
#include <sys/stat.h>

#include "sbx.h"

static inline enum sbx_ftype ftype_of(mode_t m)
{
	if (S_ISDIR(m))
		return SBX_FT_DIR;
	if (S_ISREG(m))
		return SBX_FT_REG;
	if (S_ISLNK(m))
		return SBX_FT_LINK;
	return SBX_FT_OTHER;
}

/* out as for a path that exists and is what st says (its type, mode, owner and identity). */
static inline void pathinfo_fill(struct sbx_pathinfo *out, const struct stat *st)
{
	out->exists = true;
	out->type = ftype_of(st->st_mode);
	out->mode = (unsigned)st->st_mode;
	out->uid = (unsigned long)st->st_uid;
	out->dev = (unsigned long long)st->st_dev;
	out->ino = (unsigned long long)st->st_ino;
	out->linked = !S_ISDIR(st->st_mode) && st->st_nlink > 1;
}

#if defined(__linux__)
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#define SBX_RESOLVE_NO_MAGICLINKS 0x02
#define SBX_RESOLVE_NO_SYMLINKS	  0x04

struct sbx_open_how {
	uint64_t flags, mode, resolve;
};
#endif

#endif
