/* SPDX-License-Identifier: MIT */
/*
 * enter_demo.c - runs the enter sequence over roots built by hand from the command line, so the
 * mechanisms can be tested without the profile engine:
 *   enter-demo [--net] [--no-mntns] [--abi N] [--metadata] [--full-read] [--read P]...
 *              [--write P [--ro P]...]... [--deny P]... --cwd D -- CMD...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux/linux.h"

int main(int argc, char **argv)
{
	static char *readable[64], *unreadable[64];
	static struct sbx_writable_root writable[64];
	static char *ro[64][64];
	struct sbx_roots r = { 0 };
	struct sbx_linux_enforce e = { 0 };
	struct sbx_rulepaths res;
	struct sbx_diag d;
	int i;

	sbx_diag_clear(&d);
	sbx_rulepaths_init(&res);
	e.res = &res;
	r.readable = readable;
	r.unreadable = unreadable;
	r.writable = writable;
	e.roots = &r;
	e.mount_namespace = true;
	e.landlock_abi = sbx_landlock_abi();
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--net"))
			e.network = true;
		else if (!strcmp(a, "--no-mntns"))
			e.mount_namespace = false;
		else if (!strcmp(a, "--metadata"))
			e.seccomp_metadata = true;
		else if (!strcmp(a, "--full-read"))
			r.full_read = true;
		else if (!strcmp(a, "--abi") && i + 1 < argc)
			e.landlock_abi = atoi(argv[++i]);
		else if (!strcmp(a, "--read") && i + 1 < argc)
			readable[r.n_readable++] = argv[++i];
		else if (!strcmp(a, "--deny") && i + 1 < argc)
			unreadable[r.n_unreadable++] = argv[++i];
		else if (!strcmp(a, "--cwd") && i + 1 < argc)
			e.command_cwd = argv[++i];
		else if (!strcmp(a, "--write") && i + 1 < argc) {
			writable[r.n_writable].root = argv[++i];
			writable[r.n_writable].read_only = ro[r.n_writable];
			r.n_writable++;
		} else if (!strcmp(a, "--ro") && i + 1 < argc && r.n_writable > 0) {
			struct sbx_writable_root *w = &writable[r.n_writable - 1];

			w->read_only[w->n_read_only++] = argv[++i];
		} else {
			fprintf(stderr, "enter-demo: bad argument %s\n", a);
			return 125;
		}
	}
	if (i >= argc || !e.command_cwd)
		return 125;
	e.argv = &argv[i + 1];
	{
		struct sbx_linux_prepared p;

		if (sbx_linux_prepare(&e, &p, &d) == 0)
			sbx_linux_apply_and_exec(&p);
	}
	sbx_diag_print(&d, stderr);
	return 125;
}
