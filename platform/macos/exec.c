/* SPDX-License-Identifier: MIT */
/*
 * exec.c - from a plan to /usr/bin/sandbox-exec, in one function read top to bottom.
 *
 * Seatbelt does the confinement: this file only checks that the plan can be enforced, builds
 * the policy (lib/sbpl.c), sets the environment the command is told about, and replaces this
 * process with sandbox-exec, so that the exit status and signals are the command's own.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macos/macos.h"

int sbx_macos_exec(const struct sbx_plan *p, const struct sbx_ctx *ctx, char *const cmd[],
		   struct sbx_diag *d)
{
	const struct sbx_req *bad;
	char rule[SBX_REQ_RULE_MAX];
	struct sbx_sbpl policy = {0};
	char **argv = NULL;
	size_t argc = 0;
	int rc, err;

	if (!cmd || !cmd[0])
		return sbx_diag_set(d, SBX_E_USAGE, "no command to run");

	/* 1. Fail closed: every requirement must have a mechanism before anything runs. */
	bad = sbx_plan_first_unenforceable(p);
	if (bad) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE, "cannot enforce \"%s\" on macOS: %s",
			     sbx_req_rule(bad, rule),
			     sbx_req_reason(bad) ? sbx_req_reason(bad) : "no mechanism");
		return SBX_E_UNENFORCEABLE;
	}

	/*
	 * 2. The sandbox tool, by absolute path only. It is deprecated by Apple but still shipped;
	 *    when it is gone there is no other way to apply SBPL from outside the process.
	 */
	if (access(SBX_MACOS_SANDBOX_EXEC, X_OK) != 0) {
		err = errno;
		rc = sbx_diag_set(d, SBX_E_UNENFORCEABLE, "%s is not usable: %s",
				  SBX_MACOS_SANDBOX_EXEC, strerror(err));
		return sbx_diag_hint(d, rc,
				     "it ships with macOS; without it sbxrun cannot confine "
				     "a command here");
	}

	/* 3. The policy text and its parameters; paths only ever travel as parameters. */
	rc = sbx_sbpl_build(p, ctx, &policy, d);
	if (rc)
		return rc;
	rc = sbx_macos_argv(&policy, cmd, &argv, &argc);
	sbx_sbpl_free(&policy);
	if (rc)
		return sbx_diag_set(d, rc, "cannot build the sandbox-exec command line: %s",
				    strerror(-rc));

	/*
	 * 4. What the command may learn about its confinement. The network is off when it is
	 *    restricted and also under managed networking, where only the proxies are reachable.
	 */
	if (setenv("SBXRUN_SANDBOX", "macos-seatbelt", 1) != 0 ||
	    (!p->network || p->managed_network ? setenv("SBXRUN_NETWORK_DISABLED", "1", 1)
					       : unsetenv("SBXRUN_NETWORK_DISABLED")) != 0) {
		err = errno;
		free(argv);
		return sbx_diag_set(d, -err, "cannot set the sandbox environment: %s",
				    strerror(err));
	}

	/* 5. The command runs in the policy's cwd. */
	if (ctx && ctx->cwd && chdir(ctx->cwd) != 0) {
		err = errno;
		free(argv);
		return sbx_diag_set(d, -err, "cannot change directory to %s: %s", ctx->cwd,
				    strerror(err));
	}

	/* 6. Point of no return: sandbox-exec applies the policy, then executes the command. */
	execv(SBX_MACOS_SANDBOX_EXEC, argv);
	err = errno;
	free(argv);
	if (err == E2BIG) {
		rc = sbx_diag_set(d, -err,
				  "the Seatbelt policy and its parameters are larger than "
				  "the system's argument size limit");
		return sbx_diag_hint(d, rc, "use fewer or shorter paths in the profile");
	}
	return sbx_diag_set(d, -err, "cannot execute %s: %s", SBX_MACOS_SANDBOX_EXEC,
			    strerror(err));
}
