/* SPDX-License-Identifier: MIT */
/*
 * probe.c - what this Linux host can enforce, found cheaply (a run should start in about a
 * millisecond): one landlock_create_ruleset version query, two prctl queries, a few small
 * /proc/sys files, and one fork+unshare that tries exactly the namespace flags the enter
 * sequence will use, so the plan never promises a mount namespace the host then refuses.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/linux.h"

/* Reads a small /proc or /sys integer; returns def when it cannot be read. */
static long read_long_file(const char *path, long def)
{
	char buf[32];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return def;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return def;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static bool has_effective_cap(cap_value_t c)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t caps = cap_get_proc();

	if (!caps)
		return false;
	if (cap_get_flag(caps, c, CAP_EFFECTIVE, &v) < 0)
		v = CAP_CLEAR;
	cap_free(caps);
	return v == CAP_SET;
}

int sbx_linux_mntns_flags(bool running_as_root)
{
	/*
	 * Root with CAP_SYS_ADMIN needs only a mount namespace. Anyone else needs a user namespace
	 * first to hold CAP_SYS_ADMIN over the new mount namespace.
	 */
	if (running_as_root && has_effective_cap(CAP_SYS_ADMIN))
		return CLONE_NEWNS;
	return CLONE_NEWUSER | CLONE_NEWNS;
}

/* Forks a child that tries unshare(flags); returns 0 or the child's errno. */
static int try_unshare(int flags)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(unshare(flags) == 0 ? 0 : (errno & 0x7f));
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EAGAIN;
	if (!WIFEXITED(status))
		return EAGAIN;
	return WEXITSTATUS(status);
}

static void userns_blocker(struct sbx_linux_facts *f, int err)
{
	if (read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", 0) == 1)
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by),
			 "AppArmor (kernel.apparmor_restrict_unprivileged_userns=1)");
	else if (read_long_file("/proc/sys/kernel/unprivileged_userns_clone", 1) == 0)
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by),
			 "sysctl kernel.unprivileged_userns_clone=0");
	else if (read_long_file("/proc/sys/user/max_user_namespaces", 1) == 0)
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by),
			 "sysctl user.max_user_namespaces=0");
	else if (f->in_container)
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by),
			 "the container's seccomp profile or capabilities (unshare: %s)",
			 strerror(err));
	else
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by), "unshare: %s",
			 strerror(err));
}

int sbx_linux_probe(struct sbx_linux_facts *f)
{
	struct utsname u;
	int err, flags;

	memset(f, 0, sizeof(*f));
	if (uname(&u) == 0) {
		snprintf(f->kernel, sizeof(f->kernel), "%s", u.release);
		/* WSL1 is a syscall translation layer: none of the mechanisms below exist there. */
		if (strstr(u.release, "Microsoft"))
			f->wsl = 1;
		else if (strstr(u.release, "microsoft"))
			f->wsl = 2;
	}
	f->running_as_root = geteuid() == 0;
	f->in_container = access("/.dockerenv", F_OK) == 0 ||
			  access("/run/.containerenv", F_OK) == 0 ||
			  access("/run/systemd/container", F_OK) == 0;
	f->landlock_abi = sbx_landlock_abi();
	/* PR_GET_SECCOMP fails with EINVAL when the kernel lacks seccomp; 2 means "already filtered"
	 * (filters stack, so that is fine). */
	f->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
	f->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0;

	flags = sbx_linux_mntns_flags(f->running_as_root);
	err = try_unshare(flags);
	f->mount_namespace = err == 0;
	if (flags & CLONE_NEWUSER) {
		f->user_namespaces = err == 0;
	} else {
		/* Root does not need one; still say whether one could be made. */
		f->user_namespaces = try_unshare(CLONE_NEWUSER) == 0;
	}
	if (!f->user_namespaces || !f->mount_namespace)
		userns_blocker(f, err ? err : EPERM);
	return 0;
}
