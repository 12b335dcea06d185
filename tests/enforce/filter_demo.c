/* SPDX-License-Identifier: MIT */
/*
 * filter_demo.c - loads the helper's seccomp program (platform/linux/seccomp.c: its head, in front
 * of a program that allows everything in place of libseccomp's) with a chosen highest known
 * system-call number, then execs the command: on a kernel with no system call above the
 * helper's own bound, a lower bound shows the range refused on real calls. Without libseccomp's
 * program, a call of another architecture (x32) is not killed here as in the sandbox.
 *
 *   filter-demo KNOWN_MAX metadata|ipc|pgrp|plain -- CMD...
 *
 * metadata: the ioctl allow-list of a run without a mount namespace; ipc: System V IPC and
 * POSIX message queues refused, as without an IPC namespace; pgrp: kill of pid 0 refused, as for
 * a terminal's job under init without Landlock's signal scope.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/seccomp.h>

#include "linux/linux.h"

int main(int argc, char **argv)
{
	static const struct sock_filter allow[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
	struct sock_filter insns[SBX_SECCOMP_PROG_MAX];
	struct sock_fprog prog = {.filter = insns};

	if (argc < 5 || strcmp(argv[3], "--") != 0) {
		fprintf(stderr,
			"usage: filter-demo KNOWN_MAX metadata|ipc|pgrp|async|plain -- CMD...\n");
		return 2;
	}
	prog.len = sbx_seccomp_program(allow, 1, strcmp(argv[2], "metadata") == 0, false,
				       strcmp(argv[2], "ipc") == 0, strcmp(argv[2], "pgrp") == 0,
				       strcmp(argv[2], "async") == 0, false,
				       (unsigned)atoi(argv[1]), insns);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0) {
		perror("filter-demo: seccomp");
		return 2;
	}
	execvp(argv[4], &argv[4]);
	perror("filter-demo: exec");
	return 127;
}
