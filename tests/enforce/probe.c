/* SPDX-License-Identifier: MIT */
/*
 * probe.c - performs exactly one operation and prints "OK" or the errno name (EACCES, EPERM,
 * EROFS, ...), so the enforcement tests assert the exact refusal.
 *
 *   probe OP ARG...
 *   probe strerror ENAME   the C library's text for that errno, as sbxrun built beside this
 *                          probe words it in its messages (glibc and musl word some differently)
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

/* The errno values the tests meet by name: strerrorname_np is glibc's alone (2.32). */
static const struct {
	const char *name;
	int value;
} errno_names[] = {
	{"EPERM", EPERM},
	{"ENOENT", ENOENT},
	{"ESRCH", ESRCH},
	{"EINTR", EINTR},
	{"EIO", EIO},
	{"ENXIO", ENXIO},
	{"E2BIG", E2BIG},
	{"ENOEXEC", ENOEXEC},
	{"EBADF", EBADF},
	{"ECHILD", ECHILD},
	{"EAGAIN", EAGAIN},
	{"ENOMEM", ENOMEM},
	{"EACCES", EACCES},
	{"EFAULT", EFAULT},
	{"EBUSY", EBUSY},
	{"EEXIST", EEXIST},
	{"EXDEV", EXDEV},
	{"ENODEV", ENODEV},
	{"ENOTDIR", ENOTDIR},
	{"EISDIR", EISDIR},
	{"EINVAL", EINVAL},
	{"ENFILE", ENFILE},
	{"EMFILE", EMFILE},
	{"ENOTTY", ENOTTY},
	{"ETXTBSY", ETXTBSY},
	{"EFBIG", EFBIG},
	{"ENOSPC", ENOSPC},
	{"ESPIPE", ESPIPE},
	{"EROFS", EROFS},
	{"EMLINK", EMLINK},
	{"EPIPE", EPIPE},
	{"ERANGE", ERANGE},
	{"ENAMETOOLONG", ENAMETOOLONG},
	{"ENOSYS", ENOSYS},
	{"ENOTEMPTY", ENOTEMPTY},
	{"ELOOP", ELOOP},
	{"ENODATA", ENODATA},
	{"EOVERFLOW", EOVERFLOW},
	{"ENOTSOCK", ENOTSOCK},
	{"EMSGSIZE", EMSGSIZE},
	{"EPROTONOSUPPORT", EPROTONOSUPPORT},
	{"EOPNOTSUPP", EOPNOTSUPP},
	{"EAFNOSUPPORT", EAFNOSUPPORT},
	{"EADDRINUSE", EADDRINUSE},
	{"EADDRNOTAVAIL", EADDRNOTAVAIL},
	{"ENETUNREACH", ENETUNREACH},
	{"ECONNRESET", ECONNRESET},
	{"ENOBUFS", ENOBUFS},
	{"ENOTCONN", ENOTCONN},
	{"ETIMEDOUT", ETIMEDOUT},
	{"ECONNREFUSED", ECONNREFUSED},
	{"EHOSTUNREACH", EHOSTUNREACH},
	{"EINPROGRESS", EINPROGRESS},
	{"ESTALE", ESTALE},
	{"ECANCELED", ECANCELED},
	{"EOWNERDEAD", EOWNERDEAD},
};

static const char *errno_name(int e)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	return strerrorname_np(e);
#else
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++)
		if (errno_names[i].value == e)
			return errno_names[i].name;
	return NULL;
#endif
}

static int print_strerror(const char *name)
{
	for (size_t i = 0; i < sizeof(errno_names) / sizeof(errno_names[0]); i++) {
		if (!strcmp(errno_names[i].name, name)) {
			printf("%s\n", strerror(errno_names[i].value));
			return 0;
		}
	}
	fprintf(stderr, "probe: unknown errno name %s\n", name);
	return 2;
}

static int result(int rc)
{
	if (rc < 0) {
		const char *n = errno_name(errno);

		printf("%s\n", n ? n : "E?");
		return 1;
	}
	printf("OK\n");
	return 0;
}

static int open_write(const char *p, int flags)
{
	int fd = open(p, O_WRONLY | O_CLOEXEC | flags, 0644);

	if (fd < 0)
		return -1;
	if (write(fd, "x\n", 2) != 2) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int do_read(const char *p)
{
	char buf[64];
	int fd = open(p, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf)) < 0) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* PORT on the loopback, or (IPv4) ADDR:PORT. */
static int inet_op(int family, int type, const char *port)
{
	const char *colon = family == AF_INET ? strchr(port, ':') : NULL;
	struct sockaddr_in a4 = {.sin_family = AF_INET};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(atoi(port))};
	struct sockaddr *sa = family == AF_INET ? (struct sockaddr *)&a4 : (struct sockaddr *)&a6;
	socklen_t len = family == AF_INET ? sizeof(a4) : sizeof(a6);
	char host[64] = "127.0.0.1";
	int fd;

	if (colon)
		snprintf(host, sizeof(host), "%.*s", (int)(colon - port), port);
	a4.sin_port = htons(atoi(colon ? colon + 1 : port));
	inet_pton(AF_INET, host, &a4.sin_addr);
	inet_pton(AF_INET6, "::1", &a6.sin6_addr);
	fd = socket(family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (type == SOCK_DGRAM) {
		if (sendto(fd, "x", 1, 0, sa, len) < 0)
			return -1;
	} else if (connect(fd, sa, len) < 0) {
		return -1;
	}
	return close(fd);
}

static int unix_op(const char *path, bool abstract)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	socklen_t len;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (abstract) {
		a.sun_path[0] = 0;
		strncpy(a.sun_path + 1, path, sizeof(a.sun_path) - 2);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(path));
	} else {
		strncpy(a.sun_path, path, sizeof(a.sun_path) - 1);
		len = sizeof(a);
	}
	if (connect(fd, (struct sockaddr *)&a, len) < 0)
		return -1;
	return close(fd);
}

/*
 * A datagram sent to the path socket at path from an AF_UNIX socket of the given kind: "dgram"
 * or "raw" (which the kernel makes a datagram socket), alone or one end of a pair ("pair-dgram",
 * "pair-raw"): a datagram names its peer on every send, connected or not.
 */
static int unix_send(const char *kind, const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	bool pair = !strncmp(kind, "pair-", 5);
	int type = !strcmp(kind + (pair ? 5 : 0), "raw") ? SOCK_RAW : SOCK_DGRAM, sv[2], fd;

	if (pair)
		fd = socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) < 0 ? -1 : sv[0];
	else
		fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	strncpy(a.sun_path, path, sizeof(a.sun_path) - 1);
	if (sendto(fd, "probe\n", 6, 0, (struct sockaddr *)&a, sizeof(a)) < 0)
		return -1;
	return 0;
}

/*
 * A connect naming path with an address longer than a struct sockaddr_un (the length of a
 * struct sockaddr_storage), which the kernel refuses with EINVAL before reading the path.
 */
static int unix_long(const char *path)
{
	struct sockaddr_storage ss;
	struct sockaddr_un *a = (struct sockaddr_un *)&ss;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&ss, 0, sizeof(ss));
	a->sun_family = AF_UNIX;
	strncpy(a->sun_path, path, sizeof(a->sun_path) - 1);
	if (connect(fd, (struct sockaddr *)&ss, sizeof(ss)) < 0)
		return -1;
	return close(fd);
}

static int tiocsti(const char *tty)
{
	char c = '#';
	int fd = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	return ioctl(fd, TIOCSTI, &c);
}

/*
 * Opens tty, which must be a pseudo-terminal's slave: the requests tried on it would change a
 * real console's keyboard and screen for everyone when run outside the sandbox.
 */
static int open_pty(const char *tty)
{
	unsigned int dev = 0; /* the terminal's own device, /dev/tty's or not (TIOCGDEV) */
	int fd = open(tty, O_RDWR | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (ioctl(fd, TIOCGDEV, &dev) < 0 || major(dev) < 136 || major(dev) > 143) {
		fprintf(stderr, "probe: %s is not a pseudo-terminal; refusing to try it\n", tty);
		exit(2);
	}
	return fd;
}

/*
 * Every request from first to last on tty, one line each: the request and its errno (or OK).
 * The argument points at zeros, so what a request reads is a harmless value. The request is
 * passed whole, 64 bits, of which the kernel reads the low 32: a filter comparing more misses.
 */
static int tty_sweep(const char *tty, const char *first, const char *last)
{
	static char zeros[4096] __attribute__((aligned(16)));
	unsigned long r = strtoul(first, NULL, 0), end = strtoul(last, NULL, 0);
	int fd = open_pty(tty);

	if (fd < 0)
		return -1;
	for (; r <= end; r++) {
		const char *n;

		memset(zeros, 0, sizeof(zeros));
		if (syscall(SYS_ioctl, fd, r, zeros) == 0) {
			printf("%#06lx OK\n", r);
			continue;
		}
		n = errno_name(errno);
		printf("%#06lx %s\n", r, n ? n : "E?");
	}
	return close(fd);
}

/* TIOCSETD: sets tty's line discipline (0: N_TTY, which it has; 27: N_NULL, which eats input). */
static int tiocsetd(const char *tty, const char *ldisc)
{
	int fd = open_pty(tty), n = atoi(ldisc), rc;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, TIOCSETD, &n);
	close(fd);
	return rc;
}

/* TIOCEXCL (exclusive mode: later opens of tty fail with EBUSY but for root) or TIOCNXCL. */
static int tiocexcl(const char *tty, bool on)
{
	int fd = open_pty(tty), rc;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, on ? TIOCEXCL : TIOCNXCL);
	close(fd);
	return rc;
}

/* FS_IOC_SETFLAGS with the flags the file has: a change of nothing, refused or not. */
static int setflags(const char *p)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC), flags = 0, rc;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
	if (rc == 0)
		rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	close(fd);
	return rc;
}

/* FS_IOC_FSSETXATTR setting the no-atime flag, which the owner may. */
static int fssetxattr(const char *p)
{
	struct fsxattr fa = {.fsx_xflags = FS_XFLAG_NOATIME};
	int fd = open(p, O_RDONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, FS_IOC_FSSETXATTR, &fa);
	close(fd);
	return rc;
}

/* file_setattr (Linux 6.17) with the attributes file_getattr reports. */
static int file_setattr_same(const char *p)
{
	unsigned char attr[24] = {0}; /* struct file_attr, FILE_ATTR_SIZE_VER0 */

	if (syscall(468, AT_FDCWD, p, attr, sizeof(attr), 0) < 0)
		return -1;
	return (int)syscall(469, AT_FDCWD, p, attr, sizeof(attr), 0);
}

/* The terminal calls a shell makes on a pseudo-terminal. */
static int pty_ops(void)
{
	struct termios t;
	struct winsize ws;
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC), s, n;

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		return -1;
	s = open(ptsname(m), O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0 || tcgetattr(s, &t) < 0 || tcsetattr(s, TCSANOW, &t) < 0 ||
	    ioctl(s, TIOCGWINSZ, &ws) < 0 || ioctl(s, TIOCSWINSZ, &ws) < 0 ||
	    ioctl(m, FIONREAD, &n) < 0 || tcflush(s, TCIOFLUSH) < 0)
		return -1;
	close(s);
	return close(m);
}

static int fionread(const char *p)
{
	int fd = open(p, O_RDONLY | O_CLOEXEC), n, rc;

	if (fd < 0)
		return -1;
	rc = ioctl(fd, FIONREAD, &n);
	close(fd);
	return rc;
}

static int watch(const char *p)
{
	int fd = inotify_init1(IN_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = inotify_add_watch(fd, p, IN_ALL_EVENTS);
	close(fd);
	return rc < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";
	const char *a = argc > 2 ? argv[2] : "";
	const char *b = argc > 3 ? argv[3] : "";
	const char *c = argc > 4 ? argv[4] : NULL;

	if (!strcmp(op, "strerror"))
		return print_strerror(a);
	if (!strcmp(op, "write"))
		return result(open_write(a, O_CREAT | O_TRUNC));
	if (!strcmp(op, "append"))
		return result(open_write(a, O_APPEND));
	if (!strcmp(op, "truncate"))
		return result(truncate(a, 0));
	if (!strcmp(op, "read"))
		return result(do_read(a));
	if (!strcmp(op, "list"))
		return result(open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!strcmp(op, "chmod"))
		return result(chmod(a, 0600));
	if (!strcmp(op, "chown"))
		return result(chown(a, getuid(), getgid()));
	if (!strcmp(op, "utimes"))
		return result(utimes(a, NULL));
	if (!strcmp(op, "mkfifo"))
		return result(mkfifo(a, 0600));
	if (!strcmp(op, "mknod"))
		return result(mknod(a, S_IFREG | 0600, 0));
	if (!strcmp(op, "mknod-dev"))
		return result(mknod(a, S_IFCHR | 0600, makedev(1, 3)));
	if (!strcmp(op, "mkdir"))
		return result(mkdir(a, 0755));
	if (!strcmp(op, "rename"))
		return result(rename(a, b));
	if (!strcmp(op, "link"))
		return result(link(a, b));
	if (!strcmp(op, "unlink"))
		return result(unlink(a));
	if (!strcmp(op, "symlink"))
		return result(symlink(a, b));
	if (!strcmp(op, "tcp4"))
		return result(inet_op(AF_INET, SOCK_STREAM, a));
	if (!strcmp(op, "tcp6"))
		return result(inet_op(AF_INET6, SOCK_STREAM, a));
	if (!strcmp(op, "udp4"))
		return result(inet_op(AF_INET, SOCK_DGRAM, a));
	if (!strcmp(op, "unix"))
		return result(unix_op(a, false));
	if (!strcmp(op, "abstract"))
		return result(unix_op(a, true));
	if (!strcmp(op, "unix-send"))
		return result(unix_send(a, b));
	if (!strcmp(op, "unix-long"))
		return result(unix_long(a));
	if (!strcmp(op, "netlink"))
		return result(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
	if (!strcmp(op, "raw"))
		return result(socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP));
	if (!strcmp(op, "socketpair")) {
		int sv[2];

		return result(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
	}
	if (!strcmp(op, "io_uring")) {
		char params[120] = {0};

		return result((int)syscall(__NR_io_uring_setup, 4, params));
	}
	if (!strcmp(op, "tiocsti"))
		return result(tiocsti(a));
	if (!strcmp(op, "tty-sweep"))
		return tty_sweep(a, b, c ? c : b) < 0 ? result(-1) : 0;
	if (!strcmp(op, "tiocsetd"))
		return result(tiocsetd(a, b));
	if (!strcmp(op, "tiocexcl"))
		return result(tiocexcl(a, true));
	if (!strcmp(op, "tiocnxcl"))
		return result(tiocexcl(a, false));
	/* Looked up, not opened: lstat(2) and readlink(2). */
	if (!strcmp(op, "stat")) {
		struct stat st;

		return result(lstat(a, &st));
	}
	if (!strcmp(op, "readlink")) {
		char buf[256];

		return result(readlink(a, buf, sizeof(buf)) < 0 ? -1 : 0);
	}
	/* Opened for writing only, nothing written: a device's open is the check (/dev/kmsg's
	 * open for reading asks for CAP_SYSLOG where dmesg_restrict is set; for writing it asks
	 * nothing, and a write would log a line). */
	if (!strcmp(op, "open-wr")) {
		int fd = open(a, O_WRONLY | O_NOCTTY | O_CLOEXEC);

		return result(fd < 0 ? -1 : close(fd));
	}
	if (!strcmp(op, "open-tty")) {
		int fd = open(a, O_RDWR | O_NOCTTY | O_CLOEXEC);

		return result(fd < 0 ? -1 : close(fd));
	}
	if (!strcmp(op, "ptrace"))
		return result((int)ptrace(PTRACE_SEIZE, atoi(a), 0, 0));
	if (!strcmp(op, "kill"))
		return result(kill(atoi(a), atoi(b)));
	if (!strcmp(op, "setpriority")) /* WHICH WHO: to nice 19 */
		return result(setpriority(atoi(a), (id_t)atoi(b), 19));
	if (!strcmp(op, "ioprio")) /* WHICH WHO: to the idle class */
		return result((int)syscall(SYS_ioprio_set, atoi(a), atoi(b), 3 << 13));
	if (!strcmp(op, "prlimit")) {
		/* Sets the process's core limit to what it is: the permission is the question. */
		struct rlimit r;

		if (syscall(SYS_prlimit64, atoi(a), RLIMIT_CORE, NULL, &r) < 0)
			return result(-1);
		return result((int)syscall(SYS_prlimit64, atoi(a), RLIMIT_CORE, &r, NULL));
	}
	if (!strcmp(op, "sched")) {
		/* HOW PID: to the idle policy, by sched_setscheduler, sched_setattr; or sched_setparam. */
		struct sched_param sp = {0};
		struct {
			uint32_t size, policy;
			uint64_t flags;
			int32_t nice;
			uint32_t priority;
			uint64_t runtime, deadline, period;
		} attr = {.size = sizeof(attr), .policy = SCHED_IDLE};

		/* The system calls: musl's sched_setscheduler and sched_setparam are ENOSYS. */
		if (!strcmp(a, "scheduler"))
			return result(
				(int)syscall(SYS_sched_setscheduler, atoi(b), SCHED_IDLE, &sp));
		if (!strcmp(a, "attr"))
			return result((int)syscall(SYS_sched_setattr, atoi(b), &attr, 0));
		return result((int)syscall(SYS_sched_setparam, atoi(b), &sp));
	}
	if (!strcmp(op, "affinity")) {
		/* PID: sets its CPUs to what they are (the permission is the question). */
		cpu_set_t set;

		if (sched_getaffinity(atoi(a), sizeof(set), &set) < 0)
			return result(-1);
		return result((int)syscall(SYS_sched_setaffinity, atoi(a), sizeof(set), &set));
	}
	if (!strcmp(op, "ptrace-checked")) {
		/*
		 * HOW PID [ADDR]: a call on another process that the kernel lets through
		 * ptrace_may_access() first (Landlock's ptrace rule), changing nothing: vm_readv
		 * reads one byte at ADDR (hex), kcmp compares address spaces, getfd copies its
		 * descriptor 2, move_pages asks where no page is (none given), robust reads its
		 * robust-futex list head.
		 */
		long pid = atol(b);

		if (!strcmp(a, "vm_readv")) {
			char byte;
			struct iovec l = {&byte, 1},
				     r = {(void *)(uintptr_t)strtoull(c ? c : "0", NULL, 16), 1};

			return result((int)syscall(SYS_process_vm_readv, pid, &l, 1, &r, 1, 0));
		}
		if (!strcmp(a, "kcmp"))
			return result(
				(int)syscall(SYS_kcmp, (long)getpid(), pid, 1 /* KCMP_VM */, 0, 0));
		if (!strcmp(a, "move_pages"))
			return result((int)syscall(SYS_move_pages, pid, 0, NULL, NULL, NULL, 0));
		if (!strcmp(a, "robust")) {
			void *head;
			size_t len;

			return result((int)syscall(SYS_get_robust_list, pid, &head, &len));
		}
		if (!strcmp(a, "getfd")) {
			int pidfd = (int)syscall(434 /* pidfd_open */, pid, 0);

			if (pidfd < 0)
				return result(-1);
			return result((int)syscall(438 /* pidfd_getfd */, pidfd, 2, 0));
		}
		errno = EINVAL;
		return result(-1);
	}
	if (!strcmp(op, "unshare-user"))
		return result(unshare(CLONE_NEWUSER));
	if (!strcmp(op, "unshare-ns"))
		return result(unshare(CLONE_NEWNS));
	if (!strcmp(op, "clone-user")) {
		pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return result(pid < 0 ? -1 : 0);
	}
	/* Controls for the two above: the same calls without a namespace flag run. */
	if (!strcmp(op, "unshare-files"))
		return result(unshare(CLONE_FILES));
	if (!strcmp(op, "clone-plain")) {
		pid_t pid = (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return result(pid < 0 ? -1 : 0);
	}
	if (!strcmp(op, "clone3"))
		return result((int)syscall(435, NULL, 0));
	if (!strcmp(op, "personality"))
		return result(personality(ADDR_NO_RANDOMIZE));
	/* Controls: the query (0xffffffff) and the default (0), which the filter lets through. */
	if (!strcmp(op, "personality-query"))
		return result(personality(0xffffffff) == -1 ? -1 : 0);
	if (!strcmp(op, "personality-default"))
		return result(personality(PER_LINUX) == -1 ? -1 : 0);
	if (!strcmp(op, "mount"))
		return result(mount("none", a, "tmpfs", 0, NULL));
	if (!strcmp(op, "bpf"))
		return result((int)syscall(__NR_bpf, 0, NULL, 0));
	if (!strcmp(op, "euid")) {
		printf("%d\n", (int)geteuid());
		return 0;
	}
	if (!strcmp(op, "setuid"))
		return result(setuid(0));
	if (!strcmp(op, "setflags"))
		return result(setflags(a));
	if (!strcmp(op, "fssetxattr"))
		return result(fssetxattr(a));
	if (!strcmp(op, "file_setattr"))
		return result(file_setattr_same(a));
	if (!strcmp(op, "pty"))
		return result(pty_ops());
	if (!strcmp(op, "fionread"))
		return result(fionread(a));
	if (!strcmp(op, "inotify"))
		return result(watch(a));
	if (!strcmp(op, "syscall"))
		return result((int)syscall(atol(a), -1, 0, 0, 0, 0));
	fprintf(stderr, "probe: unknown operation %s\n", op);
	return 2;
}
