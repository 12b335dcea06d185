/* SPDX-License-Identifier: MIT */
/* exec.h - execvp(3) as env(1) runs a command, whatever the C library (exec.c). */
#ifndef SBX_UNIX_EXEC_H
#define SBX_UNIX_EXEC_H

#include <stdbool.h>

/*
 * Executes file with argv as execvp(3) does, looking it up on PATH (or /bin:/usr/bin when PATH
 * is unset) when it holds no '/', and runs a file the kernel cannot execute (ENOEXEC) that is
 * not binary with /bin/sh. Returns only on failure: -1 with errno. Safe in a vfork(2) child.
 */
int sbx_execvp(const char *file, char *const argv[]);

/*
 * In the parent of a vfork(2) child that called sbx_execvp, once vfork has returned: unmaps the
 * shell's argument vector the child mapped in their shared memory and left there by executing
 * the shell. Nothing to do otherwise (a child made by fork(2) maps in its own copy).
 */
void sbx_exec_release(void);

/* The shell sbx_execvp hands such a file to. */
#define SBX_EXEC_SHELL "/bin/sh"
/*
 * Whether sbx_execvp hands path to SBX_EXEC_SHELL when the kernel cannot execute it: it can be
 * read and its first line holds no NUL byte. For the words of a failure: when the shell is what
 * the profile refuses, the rule is named, as for a "#!" line's interpreter.
 */
bool sbx_exec_for_shell(const char *path);

#endif
