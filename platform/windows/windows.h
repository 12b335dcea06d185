/* SPDX-License-Identifier: MIT */
/*
 * windows.h - the Windows backend: runs a finished plan under a restricted token in a job object.
 * (Included as "windows/windows.h"; it does not replace the system's <windows.h>.)
 */
#ifndef SBX_PLATFORM_WINDOWS_H
#define SBX_PLATFORM_WINDOWS_H

#include "sbx.h"

/*
 * Runs cmd (UTF-8, cmd[0] the program) as planned by p in ctx->cwd. When p->sandbox_requested,
 * under a restricted token (DISABLE_MAX_PRIVILEGE | LUA_TOKEN | WRITE_RESTRICTED) whose
 * capability SID is granted write on the writable roots and denied it on the read-only
 * carve-outs; always inside a job object that is killed when sbxrun ends. ACL changes are undone
 * before returning. Refuses (SBX_E_UNENFORCEABLE) a plan with an unenforceable requirement.
 *
 * Returns the command's exit code (>= 0), or a negative error with d filled: -ENOENT when the
 * program was not found, -EACCES / -ENOEXEC when it could not be executed, SBX_E_* otherwise.
 * An exit code above INT_MAX (an NTSTATUS such as STATUS_CONTROL_C_EXIT or an access violation)
 * cannot be returned as an int: sbxrun then exits with that code itself after cleaning up, the
 * Windows counterpart of dying of the same signal.
 */
int sbx_windows_run(const struct sbx_plan *p, const struct sbx_ctx *ctx, char *const cmd[],
		    struct sbx_diag *d);

/*
 * The same with flags. SBX_WINDOWS_RUN_ALLOW_WINE runs the sandbox sequence under Wine, which
 * sbx_windows_run() refuses because Wine enforces none of it; only the test driver of
 * tests/windows/ sets it, to exercise the sequence.
 */
#define SBX_WINDOWS_RUN_ALLOW_WINE 1u
int sbx_windows_run_flags(const struct sbx_plan *p, const struct sbx_ctx *ctx, char *const cmd[],
			  unsigned flags, struct sbx_diag *d);

/*
 * Replaces *argv with the process's command line split by CommandLineToArgvW and converted to
 * UTF-8 (the C runtime's argv uses the ANSI code page and loses characters). The array lives
 * until exit. Returns 0 or -errno.
 */
int sbx_windows_utf8_argv(int *argc, char ***argv);

/*
 * The process's environment block in UTF-8, NULL-terminated (out->v[out->n] == NULL); and its
 * replacement by env ("NAME=VALUE" strings), which CreateProcess then passes on. 0 or -errno.
 */
int sbx_windows_environ(struct sbx_strv *out);
int sbx_windows_environ_install(char *const env[]);

#endif
