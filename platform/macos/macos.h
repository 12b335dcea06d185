/* SPDX-License-Identifier: MIT */
/* macos.h - the macOS backend: run a plan under /usr/bin/sandbox-exec. */
#ifndef SBX_MACOS_H
#define SBX_MACOS_H

#include "sbx.h"

/*
 * Declared in sbx.h because it is pure and links on every OS (explain --platform macos):
 * int sbx_macos_argv(const struct sbx_sbpl *s, char *const cmd[], char ***argv_out,
 *		      size_t *argc_out);
 */

/* The only sandbox-exec that is ever run: PATH is never searched. */
#define SBX_MACOS_SANDBOX_EXEC "/usr/bin/sandbox-exec"

/*
 * Runs cmd (argv, NULL-terminated, looked up by sandbox-exec through PATH as usual) confined by
 * the plan, in ctx->cwd. Returns only on failure: SBX_E_UNENFORCEABLE when the plan has an
 * unenforceable requirement or sandbox-exec is missing, else a negative errno; d says why.
 */
int sbx_macos_exec(const struct sbx_plan *p, const struct sbx_ctx *ctx, char *const cmd[],
		   struct sbx_diag *d);

#endif /* SBX_MACOS_H */
