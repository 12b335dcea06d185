/* SPDX-License-Identifier: MIT */
/*
 * fakefs.h - a file system made of facts, for the planner's cases (tests/plan/linux/<case>/):
 * a struct sbx_fsview over a JSON object that maps absolute paths to what a look-up finds there.
 *
 *   "PATH": "dir" | "file"
 *   "PATH": {"type": "dir"|"file"|"missing",      what is there ("dir" when left out)
 *            "errno": "EACCES",                   a look-up (or listing) fails with this errno
 *            "content": "gitdir: ../x\n",         what reading the file gives
 *            "link": "PATH",                      PATH is a symbolic link leading to "real":
 *            "real": "PATH",                        paths below it resolve there
 *            "shared": true,                      someone other than root and us may replace it
 *            "linked": true}                      a file with more than one name (hard links)
 *
 * A path that is not listed is absent, unless a listed directory above it fails (its errno), or
 * a listed link above it leads elsewhere (the rest is looked up there, the link reported).
 * A directory lists the paths just below it.
 */
#ifndef SBX_TEST_FAKEFS_H
#define SBX_TEST_FAKEFS_H

#include <jansson.h>

#include "sbx.h"

struct fakefs {
	json_t *paths; /* borrowed */
	struct sbx_fsview view;
};

void fakefs_init(struct fakefs *f, json_t *paths);
/* "EACCES" -> EACCES; 0 for a name it does not know. */
int fakefs_errno(const char *name);

#endif
