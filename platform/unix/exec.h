/* SPDX-License-Identifier: MIT */
/* exec.h - execvp(3) as env(1) runs a command, whatever the C library (exec.c). */
#ifndef SBX_UNIX_EXEC_H
#define SBX_UNIX_EXEC_H

/*
 * Executes file with argv as execvp(3) does, looking it up on PATH (or /bin:/usr/bin when PATH
 * is unset) when it holds no '/', and runs a file the kernel cannot execute (ENOEXEC) that is
 * not binary with /bin/sh. Returns only on failure: -1 with errno. Safe in a vfork(2) child.
 */
int sbx_execvp(const char *file, char *const argv[]);

#endif
