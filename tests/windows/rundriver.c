/* SPDX-License-Identifier: MIT */
/*
 * rundriver.exe - drives sbx_windows_run() with a plan built by hand, so the backend's own
 * sequence (token, ACLs recorded and undone, job, spawn, wait) is exercised without the profile
 * engine or the command line in between.
 *
 *   rundriver [--sandbox] [--write DIR]... [--read-only DIR]... [--protect NAME]...
 *             [--cwd DIR] [--unenforceable] [--allow-wine] -- PROGRAM [ARG...]
 *
 * --read-only and --protect apply to the last --write. --unenforceable adds a requirement
 * marked unenforceable, which must make the backend refuse. --allow-wine runs the sandbox
 * sequence under Wine (which the backend otherwise refuses: Wine enforces none of it). Exit status:
 * the command's, or 125 / 126 / 127 as sbxrun maps the backend's errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "windows/windows.h"

#define MAX_ROOTS 8
#define MAX_SUB	  8

int main(int argc, char **argv)
{
	static struct sbx_writable_root roots[MAX_ROOTS];
	static char *ro[MAX_ROOTS][MAX_SUB];
	static struct sbx_req_note bad_note = {.reason = (char *)"test: marked unenforceable"};
	static struct sbx_req bad = {.kind = SBX_REQ_NETWORK, .status = SBX_UNENFORCEABLE};
	struct sbx_plan plan;
	struct sbx_ctx ctx;
	struct sbx_diag d;
	unsigned flags = 0;
	int i, ret;

	if (sbx_windows_utf8_argv(&argc, &argv) < 0) {
		fprintf(stderr, "rundriver: cannot read the command line\n");
		return 125;
	}
	memset(&plan, 0, sizeof(plan));
	memset(&ctx, 0, sizeof(ctx));
	sbx_diag_clear(&d);
	plan.platform = SBX_PLATFORM_WINDOWS;
	plan.sandbox = SBX_SANDBOX_WINDOWS_RESTRICTED_TOKEN;
	plan.roots.writable = roots;
	ctx.platform = SBX_PLATFORM_WINDOWS;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		struct sbx_writable_root *last =
			plan.roots.n_writable ? &roots[plan.roots.n_writable - 1] : NULL;

		if (strcmp(argv[i], "--sandbox") == 0) {
			plan.sandbox_requested = true;
		} else if (strcmp(argv[i], "--allow-wine") == 0) {
			flags |= SBX_WINDOWS_RUN_ALLOW_WINE;
		} else if (strcmp(argv[i], "--unenforceable") == 0) {
			bad.rule = (char *)"network restricted";
			bad.note = &bad_note;
			plan.reqs = &bad;
			plan.n_reqs = 1;
		} else if (i + 1 < argc && strcmp(argv[i], "--write") == 0 &&
			   plan.roots.n_writable < MAX_ROOTS) {
			roots[plan.roots.n_writable].root = argv[++i];
			roots[plan.roots.n_writable].read_only = ro[plan.roots.n_writable];
			plan.roots.n_writable++;
		} else if (i + 1 < argc && strcmp(argv[i], "--read-only") == 0 && last &&
			   last->n_read_only < MAX_SUB) {
			last->read_only[last->n_read_only++] = argv[++i];
		} else if (i + 1 < argc && strcmp(argv[i], "--protect") == 0 && last &&
			   last->n_protected_missing < SBX_PROTECTED_NAMES_N) {
			last->protected_missing[last->n_protected_missing++] = argv[++i];
		} else if (i + 1 < argc && strcmp(argv[i], "--cwd") == 0) {
			ctx.cwd = argv[++i];
		} else {
			fprintf(stderr, "rundriver: bad option %s\n", argv[i]);
			return 125;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "rundriver: no command\n");
		return 125;
	}
	ret = sbx_windows_run_flags(&plan, &ctx, argv + i + 1, flags, &d);
	if (ret >= 0)
		return ret;
	sbx_diag_print(&d, stderr);
	if (ret == -ENOENT)
		return 127;
	if (ret == -EACCES || ret == -ENOEXEC)
		return 126;
	return 125;
}
