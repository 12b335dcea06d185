/* SPDX-License-Identifier: MIT */
/*
 * failinj.c - fault injection for the fail-closed tests: installs a seccomp filter that makes
 * one kernel feature look absent, then execs the given command (sbxrun) under it.
 *
 *   failinj landlock -- CMD...   landlock_create_ruleset returns ENOSYS (an old kernel)
 *   failinj unshare -- CMD...    unshare returns EPERM (user namespaces blocked)
 *   failinj seccomp -- CMD...    prctl(PR_GET_SECCOMP) and seccomp() return EINVAL/ENOSYS
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int rc = 0;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: failinj landlock|unshare|seccomp -- CMD...\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return 2;
	if (!strcmp(argv[1], "landlock")) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 444, 0);
		rc = rc ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 445, 0);
		rc = rc ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 446, 0);
	} else if (!strcmp(argv[1], "unshare")) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
	} else if (!strcmp(argv[1], "seccomp")) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
				      SCMP_A0(SCMP_CMP_EQ, PR_GET_SECCOMP));
		rc = rc ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(seccomp), 0);
		rc = rc ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
					    SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP));
	} else {
		fprintf(stderr, "failinj: unknown fault %s\n", argv[1]);
		seccomp_release(ctx);
		return 2;
	}
	if (rc || seccomp_load(ctx)) {
		fprintf(stderr, "failinj: cannot install the filter\n");
		seccomp_release(ctx);
		return 2;
	}
	seccomp_release(ctx);
	execvp(argv[3], &argv[3]);
	fprintf(stderr, "failinj: %s: %s\n", argv[3], strerror(errno));
	return 127;
}
