/* SPDX-License-Identifier: MIT */
/*
 * probe.c - what this Linux host can enforce, found cheaply: every `run` probes twice (once to
 * plan, once more in the helper, which trusts nothing it is given), so the probe must cost
 * microseconds. It makes no process: one landlock_create_ruleset version query, two prctl
 * queries, one capget, and a few small /proc/sys files.
 *
 * Whether a mount namespace can be made is read from the settings that decide it (the sysctls
 * that refuse user namespaces, the AppArmor restriction, the namespace limits, the capability
 * that lets root skip the user namespace). Only when this process already runs under a seccomp
 * filter, or under an AppArmor profile whose rules the kernel does not show, can those settings
 * not answer; then one child tries exactly what the sandbox will use: the supervisor's clone(2)
 * into new PID, IPC and mount namespaces, and failing that the unshare(2) of a mount namespace
 * alone. A forked
 * child that unshares costs a millisecond or more (the namespaces are torn down before the
 * parent's wait returns), which is why it is the exception here.
 *
 * What no setting shows (a chroot, an SELinux rule on user namespaces, a per-user namespace count
 * already reached) is found by the helper's own unshare(2), before its point of no return: the
 * helper then refuses with exit 125 and the command does not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/linux.h"

/* Reads a small /proc file into buf (NUL-terminated, trailing newline removed); -1 if absent. */
static int read_small_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	/* openat, not open: musl's open follows an O_CLOEXEC open with an fcntl setting the flag
	 * again (for kernels before 2.6.23, which ignored it), one more system call per file. */
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	return 0;
}

/* Reads a small /proc or /sys integer; returns def when it cannot be read. */
static long read_long_file(const char *path, long def)
{
	char buf[32], *end;
	long v;

	if (read_small_file(path, buf, sizeof(buf)) < 0)
		return def;
	v = strtol(buf, &end, 10);
	return end == buf ? def : v;
}

static bool has_effective_cap(int cap)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (cap < 0 || cap >= 32 * _LINUX_CAPABILITY_U32S_3)
		return false;
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &h, data) < 0)
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
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

/* The child's exit status when clone(2) made the PID and IPC namespaces too. */
#define TRIED_ALL 0x80

/*
 * Forks a child that tries what the sandbox will: first the supervisor's one clone(2) into new
 * PID, IPC and mount namespaces (a grandchild that exits at once), then, if that is refused,
 * unshare(flags) alone. Returns 0 (and *all when the clone worked) or the unshare's errno.
 */
static int try_namespaces(int flags, bool *all)
{
	int status;
	pid_t pid = fork();

	*all = false;
	if (pid < 0)
		return errno;
	if (pid == 0) {
		long child = syscall(SYS_clone,
				     (unsigned long)flags | CLONE_NEWPID | CLONE_NEWIPC | SIGCHLD,
				     NULL, NULL, NULL, NULL);

		if (child == 0)
			_exit(0);
		if (child > 0 && waitpid((pid_t)child, &status, 0) == child && WIFEXITED(status) &&
		    WEXITSTATUS(status) == 0)
			_exit(TRIED_ALL);
		_exit(unshare(flags) == 0 ? 0 : (errno & 0x7f));
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return EAGAIN;
	if (!WIFEXITED(status))
		return EAGAIN;
	if (WEXITSTATUS(status) == TRIED_ALL) {
		*all = true;
		return 0;
	}
	return WEXITSTATUS(status);
}

/* The verdict of the settings on one kind of namespace. */
enum ns_verdict { NS_YES, NS_NO, NS_UNKNOWN };

/* Is this process confined by an AppArmor profile (not "unconfined", not without AppArmor)? */
static bool apparmor_confined(void)
{
	char label[256];

	if (read_small_file("/proc/self/attr/apparmor/current", label, sizeof(label)) < 0 &&
	    read_small_file("/proc/self/attr/current", label, sizeof(label)) < 0)
		return false;
	return label[0] && strcmp(label, "unconfined") != 0;
}

/*
 * The sbxrun package installs an AppArmor profile that grants /usr/bin/sbxrun the userns rule
 * (platform/linux/apparmor/sbxrun). Where AppArmor restricts user namespaces and this process
 * runs unconfined all the same, appends to why what is missing and what fixes it: the profile is
 * not installed, not loaded, or names another copy of sbxrun. Read on that refusal path only,
 * for its wording.
 */
static void apparmor_profile_state(char *why, size_t size)
{
	static const char profile[] = "/etc/apparmor.d/sbxrun", binary[] = "/usr/bin/sbxrun";
	size_t used = strnlen(why, size);
	char exe[sizeof(binary) + 1];
	ssize_t n;

	why += used;
	size -= used;
	if (access(profile, F_OK) != 0) {
		snprintf(why, size, "; no sbxrun AppArmor profile (install the sbxrun package)");
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe));
	if (n != (ssize_t)strlen(binary) || memcmp(exe, binary, (size_t)n) != 0)
		snprintf(why, size, "; the sbxrun AppArmor profile covers %s only", binary);
	else
		snprintf(why, size, "; %s is not loaded (apparmor_parser -r %s)", profile, profile);
}

/* Can this process create a user namespace? why is filled when it cannot. */
static enum ns_verdict userns_verdict(bool cap_sys_admin, bool filtered, char *why, size_t size)
{
	if (read_long_file("/proc/sys/user/max_user_namespaces", 1) == 0) {
		snprintf(why, size, "sysctl user.max_user_namespaces=0");
		return NS_NO;
	}
	/* Debian's and older Ubuntu kernels: only CAP_SYS_ADMIN may when this is 0. */
	if (!cap_sys_admin &&
	    read_long_file("/proc/sys/kernel/unprivileged_userns_clone", 1) == 0) {
		snprintf(why, size, "sysctl kernel.unprivileged_userns_clone=0");
		return NS_NO;
	}
	/*
	 * Ubuntu 23.10 and later: an unconfined process may still call unshare(2), but the new
	 * namespace is stripped of every capability, so no mount can be made in it. A process
	 * under its own AppArmor profile is allowed or not by that profile's userns rule.
	 */
	if (!cap_sys_admin &&
	    read_long_file("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", 0) == 1) {
		snprintf(why, size, "AppArmor (kernel.apparmor_restrict_unprivileged_userns=1)");
		if (!apparmor_confined()) {
			apparmor_profile_state(why, size);
			return NS_NO;
		}
		return NS_UNKNOWN;
	}
	return filtered ? NS_UNKNOWN : NS_YES;
}

/* Can this process create a mount namespace with the flags the enter sequence uses? */
static enum ns_verdict mntns_verdict(int flags, enum ns_verdict userns, bool filtered, char *why,
				     size_t size)
{
	if (read_long_file("/proc/sys/user/max_mnt_namespaces", 1) == 0) {
		snprintf(why, size, "sysctl user.max_mnt_namespaces=0");
		return NS_NO;
	}
	if (flags & CLONE_NEWUSER)
		return userns;
	return filtered ? NS_UNKNOWN : NS_YES;
}

static void blocked_by(struct sbx_linux_facts *f, int err)
{
	if (f->in_container)
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by),
			 "the container's seccomp profile or capabilities (unshare: %s)",
			 strerror(err));
	else
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by), "unshare: %s",
			 strerror(err));
}

/*
 * The Unix socket broker's system calls, asked without effect: the sizes of seccomp's
 * notification structures (user notification, Linux 5.0), and pidfd_getfd on no descriptor
 * (Linux 5.6), which answers EBADF where it exists.
 */
static bool probe_unix_broker(void)
{
	struct seccomp_notif_sizes sizes;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return false;
	return syscall(SYS_pidfd_getfd, -1, 0, 0) < 0 && errno == EBADF;
}

/*
 * Has this process a controlling terminal? ENXIO alone says it has none; any other failure
 * (a terminal hung up, a sandbox around sbxrun refusing /dev/tty) keeps the terminal's job as
 * it is, the choice that changes nothing for a terminal.
 */
static bool has_terminal(void)
{
	int fd = open("/dev/tty", O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return errno != ENXIO;
	close(fd);
	return true;
}

static void probe_host(struct sbx_linux_facts *f)
{
	struct utsname u;
	enum ns_verdict uv, mv;
	bool admin, filtered, tried = false, all = false;
	int flags, err, sec;
	char why_user[sizeof(f->userns_blocked_by)] = "", why_mnt[sizeof(why_user)] = "";

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
	 * (filters stack, so that is fine, but the filter may refuse unshare). */
	sec = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	f->seccomp = sec >= 0;
	filtered = sec == 2;
	f->no_new_privs = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) >= 0;

	admin = has_effective_cap(CAP_SYS_ADMIN);
	flags = sbx_linux_mntns_flags(f->running_as_root);
	uv = userns_verdict(admin, filtered, why_user, sizeof(why_user));
	mv = mntns_verdict(flags, uv, filtered, why_mnt, sizeof(why_mnt));

	/* Only what the settings cannot answer is tried, and only what the plan depends on. */
	if (mv == NS_UNKNOWN) {
		err = try_namespaces(flags, &all);
		tried = true;
		mv = err ? NS_NO : NS_YES;
		if (err && !why_mnt[0] && !((flags & CLONE_NEWUSER) && why_user[0]))
			blocked_by(f, err);
		if (flags & CLONE_NEWUSER)
			uv = mv;
	}
	f->mount_namespace = mv == NS_YES;
	/*
	 * PID and IPC namespaces need what the mount namespace needs (a user namespace, or
	 * CAP_SYS_ADMIN); then only their own limits refuse them, or a seccomp filter that refuses
	 * clone(2) with namespace flags but lets unshare(2) through: under a filter the child
	 * above tried the clone itself. What no setting shows, the supervisor's clone(2) finds,
	 * before anything has started.
	 */
	if (f->mount_namespace && (!tried || all)) {
		f->pid_namespace = read_long_file("/proc/sys/user/max_pid_namespaces", 1) != 0;
		f->ipc_namespace = read_long_file("/proc/sys/user/max_ipc_namespaces", 1) != 0;
	}
	f->net_namespace =
		f->mount_namespace && read_long_file("/proc/sys/user/max_net_namespaces", 1) != 0;
	f->unix_broker = probe_unix_broker();
	f->terminal = has_terminal();
	/* Root does not need a user namespace; whether one could be made is said, not tried. */
	f->user_namespaces = uv != NS_NO;
	if (!f->userns_blocked_by[0] && (!f->user_namespaces || !f->mount_namespace))
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by), "%s",
			 why_mnt[0]    ? why_mnt
			 : why_user[0] ? why_user
				       : "the host");
}

/*
 * The facts do not change within one process: `run`'s plan and the helper it then calls in
 * the same process read the same ones, and a host where a namespace has to be tried out in a
 * child pays for that once.
 */
int sbx_linux_probe(struct sbx_linux_facts *f)
{
	static struct sbx_linux_facts once;
	static bool probed;

	if (!probed) {
		probe_host(&once);
		probed = true;
	}
	*f = once;
	return 0;
}
