/* SPDX-License-Identifier: MIT */
/*
 * failinj.c - fault injection for the fail-closed tests: installs a seccomp filter that makes
 * kernel features look absent, then execs the given command (sbxrun) under it.
 *
 *   failinj FAULT[,FAULT...] -- CMD...
 *     landlock   landlock_create_ruleset returns ENOSYS (an old kernel)
 *     unshare    no namespace can be made, as under a container's seccomp profile: unshare
 *                and clone with a namespace flag return EPERM, clone3 ENOSYS
 *     clone      clone with a namespace flag returns EPERM and clone3 ENOSYS, but unshare
 *                works: a mount namespace without the supervisor's PID and IPC namespaces
 *     seccomp    prctl(PR_GET_SECCOMP) and seccomp() return EINVAL/ENOSYS
 *     openat2    openat2 returns ENOSYS (a kernel before 5.6: the per-component walk is used)
 *     newnet     clone with CLONE_NEWNET returns EPERM (the probe cannot see it: a namespace
 *                refused only when the sandbox is started)
 *     getfd      pidfd_getfd returns ENOSYS (a kernel before 5.6: no Unix socket broker)
 *     detached   move_mount onto a name under a mount descriptor returns EINVAL: what a kernel
 *                before 6.15 answers when that mount is detached (devfs.c mounts onto a
 *                detached top in this form only; onto an attached one it names the path, and
 *                the mount plan mounts onto descriptors with MOVE_MOUNT_T_EMPTY_PATH)
 *     netlink    socket(AF_NETLINK) returns EACCES, as under a seccomp profile that allows only
 *                inet and unix sockets: getifaddrs() cannot list the interfaces
 *     hostsfd    an open for reading with O_NOCTTY and no O_NONBLOCK (the proxy's resolver
 *                opens /etc/hosts so, and nothing else of the proxy does) returns EMFILE, as at
 *                the process's descriptor limit
 *     briefkill  a write(2) of exactly 50 bytes to a descriptor above stderr kills the process
 *                (SIGSYS): the proxy's worker as it puts the brief of its refusal of
 *                denied.invalid:80 ("+connect denied.invalid:80: not in the allow list\n") in
 *                the report's relay, its line written to the report already, as a SIGKILL
 *                between the two would
 *     closerange close_range without flags returns ENOSYS, as before Linux 5.9: init's close of
 *                what it does not use. The CLOEXEC form, with which the inherited-socket check
 *                marks what lies past its scan where /proc cannot be listed, is left alone
 *     procfd     an opendir(3) by path (open, or openat of AT_FDCWD: read-only, O_DIRECTORY
 *                and close-on-exec, none of O_NOFOLLOW, O_PATH, O_CREAT) returns EACCES: a
 *                /proc/self/fd that cannot be listed; sbxrun opens its own directories
 *                otherwise
 *     briefwrote a write(2) of exactly 50 bytes to a descriptor above stderr (the proxy's worker
 *                putting a refusal's brief in the report's relay, as briefkill) is done for the
 *                process, which is then killed (SIGKILL) before the call returns to it: the brief
 *                is out, and nothing the process does after it happens. failinj forks for it: the
 *                command runs in the child, under a filter whose notifications (seccomp's user
 *                notification) the parent answers, reading the bytes with process_vm_readv and
 *                writing them to the process's own descriptor, taken with pidfd_getfd (both need
 *                the right to trace it: root's, or that of a user namespace it runs in)
 *     fstat250   fstat of descriptor 250 (fstat, newfstatat or statx on it) returns EIO: a
 *                descriptor whose kind cannot be read
 *     nofile     getrlimit(2) of RLIMIT_NOFILE (prlimit64 with no new limit, or getrlimit) by
 *                sbxrun's init (comm sbxrun-init) returns EPERM: a limit that cannot be read,
 *                which init's close of what it does not use takes for the largest, as a hard
 *                limit of 2^30 would be. Asked through seccomp's user notification as
 *                briefwrote is; any other process's call goes on (the address sanitizer's
 *                runtime reads the limit before main, and dies where it cannot)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The flag of <linux/mount.h>, which glibc's <sys/mount.h> would clash with. */
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x4
#endif

/* clone(2) with any namespace flag EPERM; clone3, whose flags seccomp cannot read, ENOSYS. */
static int refuse_clone_ns(scmp_filter_ctx ctx)
{
	static const unsigned long ns[] = {CLONE_NEWNS,	 CLONE_NEWCGROUP, CLONE_NEWUTS,
					   CLONE_NEWIPC, CLONE_NEWUSER,	  CLONE_NEWPID,
					   CLONE_NEWNET};
	int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 435, 0);

	for (size_t i = 0; !rc && i < sizeof(ns) / sizeof(*ns); i++)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
				      SCMP_A0(SCMP_CMP_MASKED_EQ, ns[i], ns[i]));
	return rc;
}

/* briefwrote or nofile asked: the filter notifies, and main forks to answer. */
static int notify_brief, notify_nofile;

#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

static int add_fault(scmp_filter_ctx ctx, const char *f)
{
	int rc;

	if (!strcmp(f, "landlock")) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 444, 0);
		rc = rc ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 445, 0);
		return rc ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 446, 0);
	}
	if (!strcmp(f, "unshare")) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(unshare), 0);
		return rc ?: refuse_clone_ns(ctx);
	}
	if (!strcmp(f, "clone"))
		return refuse_clone_ns(ctx);
	if (!strcmp(f, "seccomp")) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
				      SCMP_A0(SCMP_CMP_EQ, PR_GET_SECCOMP));
		rc = rc ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(seccomp), 0);
		return rc
			       ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(prctl), 1,
						   SCMP_A0(SCMP_CMP_EQ, PR_SET_SECCOMP));
	}
	if (!strcmp(f, "openat2"))
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 437, 0);
	if (!strcmp(f, "newnet"))
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
					SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWNET, CLONE_NEWNET));
	if (!strcmp(f, "detached"))
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), 429, 2,
					SCMP_A2_32(SCMP_CMP_NE, (uint32_t)AT_FDCWD),
					SCMP_A4(SCMP_CMP_EQ, MOVE_MOUNT_F_EMPTY_PATH));
	if (!strcmp(f, "getfd"))
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 438, 0);
	if (!strcmp(f, "netlink"))
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 1,
					SCMP_A0(SCMP_CMP_EQ, AF_NETLINK));
	if (!strcmp(f, "hostsfd")) {
		/* O_LARGEFILE, which the C libraries add or not, is left out of the comparison. */
		const uint32_t mask = O_ACCMODE | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_CREAT |
				      O_DIRECTORY | O_NOFOLLOW | O_PATH | O_TRUNC | O_APPEND;
		const uint32_t want = O_RDONLY | O_CLOEXEC | O_NOCTTY;

		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EMFILE), SCMP_SYS(openat), 1,
				      SCMP_A2_32(SCMP_CMP_MASKED_EQ, mask, want));
#ifdef __NR_open
		if (!rc)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EMFILE), SCMP_SYS(open), 1,
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, mask, want));
#endif
		return rc;
	}
	if (!strcmp(f, "closerange"))
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), 436, 1,
					SCMP_A2_32(SCMP_CMP_EQ, 0));
	if (!strcmp(f, "procfd")) {
		const uint32_t mask =
			O_ACCMODE | O_CLOEXEC | O_DIRECTORY | O_NOFOLLOW | O_PATH | O_CREAT;

		rc = seccomp_rule_add(
			ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 2,
			SCMP_A0_32(SCMP_CMP_EQ, (uint32_t)AT_FDCWD),
			SCMP_A2_32(SCMP_CMP_MASKED_EQ, mask, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
#ifdef __NR_open
		/* musl's opendir calls open(2). */
		if (!rc)
			rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 1,
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, mask,
							 O_RDONLY | O_DIRECTORY | O_CLOEXEC));
#endif
		return rc;
	}
	if (!strcmp(f, "fstat250")) {
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EIO), SCMP_SYS(fstat), 1,
				      SCMP_A0_32(SCMP_CMP_EQ, 250));
		rc = rc
			     ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EIO), SCMP_SYS(newfstatat), 1,
						 SCMP_A0_32(SCMP_CMP_EQ, 250));
		return rc
			       ?: seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EIO), SCMP_SYS(statx), 1,
						   SCMP_A0_32(SCMP_CMP_EQ, 250));
	}
	if (!strcmp(f, "nofile")) {
		notify_nofile = 1;
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(prlimit64), 2,
				      SCMP_A1_32(SCMP_CMP_EQ, RLIMIT_NOFILE),
				      SCMP_A2(SCMP_CMP_EQ, 0));
#ifdef __NR_getrlimit
		if (!rc)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(getrlimit), 1,
					      SCMP_A0_32(SCMP_CMP_EQ, RLIMIT_NOFILE));
#endif
		return rc;
	}
	if (!strcmp(f, "briefwrote")) {
		notify_brief = 1;
		return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(write), 2,
					SCMP_A0(SCMP_CMP_GT, STDERR_FILENO),
					SCMP_A2(SCMP_CMP_EQ, 50));
	}
	if (!strcmp(f, "briefkill"))
		return seccomp_rule_add(ctx, SCMP_ACT_KILL_PROCESS, SCMP_SYS(write), 2,
					SCMP_A0(SCMP_CMP_GT, STDERR_FILENO), SCMP_A2(SCMP_CMP_EQ, 50));
	fprintf(stderr, "failinj: unknown fault %s\n", f);
	return -EINVAL;
}

/* Sends fd over the socket sock (SCM_RIGHTS); 0 or -1. */
static int send_fd(int sock, int fd)
{
	char c = 0, cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = cbuf,
			   .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(int));
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fd(int sock)
{
	char c, cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = cbuf,
			   .msg_controllen = sizeof(cbuf)};
	struct cmsghdr *h;
	int fd;

	if (recvmsg(sock, &m, 0) != 1 || !(h = CMSG_FIRSTHDR(&m)) || h->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(h), sizeof(int));
	return fd;
}

/* The process of the thread tid (/proc/TID/status), or tid itself when it cannot be read. */
static pid_t tgid_of(pid_t tid)
{
	char path[64], line[256];
	pid_t tgid = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	if (!(f = fopen(path, "re")))
		return tid;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/*
 * One notification of briefwrote: the write done for the process (its bytes, to its own
 * descriptor), then the process killed before it sees the call return; 1 when so. A
 * notification that cannot be served so is answered EIO, said on stderr.
 */
static int serve_brief(int nfd, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	char buf[64];
	int pidfd = -1, fd = -1, ok = 0;

	{
		struct iovec local = {.iov_base = buf, .iov_len = 50};
		struct iovec remote = {.iov_base = (void *)(uintptr_t)req->data.args[1],
				       .iov_len = 50};

		/* The thread that wrote may be any of its process's: the pidfd is the process's. */
		pidfd = (int)syscall(SYS_pidfd_open, tgid_of((pid_t)req->pid), 0);
		if (pidfd >= 0)
			fd = (int)syscall(SYS_pidfd_getfd, pidfd, (int)req->data.args[0], 0);
		if (fd >= 0 && process_vm_readv(req->pid, &local, 1, &remote, 1, 0) == 50 &&
		    seccomp_notify_id_valid(nfd, req->id) == 0)
			ok = write(fd, buf, 50) == 50;
	}
	if (ok) {
		syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
	} else {
		fprintf(stderr, "failinj: briefwrote: cannot write for process %d: %s\n",
			(int)req->pid, strerror(errno));
		resp->id = req->id;
		resp->error = -EIO;
		seccomp_notify_respond(nfd, resp);
	}
	if (fd >= 0)
		close(fd);
	if (pidfd >= 0)
		close(pidfd);
	return ok;
}

/*
 * One notification of nofile: EPERM for sbxrun's init (its name, /proc/PID/comm), the call
 * going on for any other process; 1 when init's was failed.
 */
static int serve_nofile(int nfd, struct seccomp_notif *req, struct seccomp_notif_resp *resp)
{
	char path[64], comm[32] = "";
	FILE *f;
	int init;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)req->pid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	init = !strcmp(comm, "sbxrun-init\n");
	resp->id = req->id;
	resp->val = 0;
	resp->error = init ? -EPERM : 0;
	resp->flags = init ? 0 : SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	seccomp_notify_respond(nfd, resp);
	return init;
}

/* One notification, of either fault: *brief or *nofile counts it when it was served. */
static void serve(int nfd, int *brief, int *nofile)
{
	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;

	if (seccomp_notify_alloc(&req, &resp) || seccomp_notify_receive(nfd, req)) {
		seccomp_notify_free(req, resp);
		return;
	}
	if (req->data.nr == SCMP_SYS(write))
		*brief += serve_brief(nfd, req, resp);
	else
		*nofile += serve_nofile(nfd, req, resp);
	seccomp_notify_free(req, resp);
}

/*
 * briefwrote, nofile: the command runs in a child under ctx, whose notifications this process
 * answers until the child has ended; its status is failinj's. A fault that never fired (no
 * such write was made: the brief's length changed, say; init read no limit) is said, and
 * failinj's status is 2: a test under it would otherwise pass without having tested anything.
 */
static int run_notified(scmp_filter_ctx ctx, char **argv)
{
	int sv[2], nfd, ws, brief = 0, nofile = 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return 2;
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		close(sv[0]);
		if (seccomp_load(ctx) || (nfd = seccomp_notify_fd(ctx)) < 0 ||
		    send_fd(sv[1], nfd)) {
			fprintf(stderr, "failinj: cannot install the filter\n");
			_exit(2);
		}
		close(nfd);
		close(sv[1]);
		seccomp_release(ctx);
		execvp(argv[0], argv);
		fprintf(stderr, "failinj: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(sv[1]);
	nfd = recv_fd(sv[0]);
	close(sv[0]);
	seccomp_release(ctx);
	for (;;) {
		struct pollfd p = {.fd = nfd, .events = POLLIN};
		pid_t w = waitpid(pid, &ws, WNOHANG);

		if (w == pid)
			break;
		if (nfd >= 0 && poll(&p, 1, 50) > 0 && (p.revents & POLLIN))
			serve(nfd, &brief, &nofile);
		else if (nfd < 0 || (p.revents & (POLLHUP | POLLERR)))
			nanosleep(&(struct timespec){.tv_nsec = 50 * 1000 * 1000}, NULL);
	}
	if (notify_brief && !brief)
		fprintf(stderr, "failinj: briefwrote: no write of 50 bytes was made\n");
	if (notify_nofile && !nofile)
		fprintf(stderr, "failinj: nofile: init read no limit on open files\n");
	if ((notify_brief && !brief) || (notify_nofile && !nofile))
		return 2;
	if (WIFSIGNALED(ws)) {
		signal(WTERMSIG(ws), SIG_DFL);
		raise(WTERMSIG(ws));
		return 128 + WTERMSIG(ws);
	}
	return WEXITSTATUS(ws);
}

int main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	char *faults, *f, *save = NULL;
	int rc = 0;

	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: failinj "
				"landlock|unshare|clone|seccomp|openat2|newnet|getfd|detached|"
				"netlink|hostsfd|briefkill|briefwrote|closerange|procfd|"
				"fstat250|nofile[,...]"
				" -- CMD...\n");
		return 2;
	}
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	faults = strdup(argv[1]);
	if (!ctx || !faults)
		return 2;
	for (f = strtok_r(faults, ",", &save); f && !rc; f = strtok_r(NULL, ",", &save))
		rc = add_fault(ctx, f);
	free(faults);
	if (rc == -EINVAL) {
		seccomp_release(ctx);
		return 2;
	}
	if (!rc && (notify_brief || notify_nofile))
		return run_notified(ctx, &argv[3]);
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
