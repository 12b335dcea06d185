/* SPDX-License-Identifier: MIT */
/*
 * trace.c - the denial report's tracer: a thread of the supervising parent that traces the
 * command and every process it starts, and hands each failed call the sandbox may have refused
 * to its caller, which decides (cmd/report.c with lib/report.c). platform/linux/README.md,
 * "The denial report", says why this mechanism and what it cannot see.
 *
 * How the command comes to be traced. Before the sandbox child is made, the supervisor makes a
 * socket pair (SOCK_CLOEXEC; its own end with SO_PASSCRED). The command's process, after the
 * whole sandbox is applied and just before exec, makes itself dumpable again (init is not, and a
 * fork keeps that), sends one byte, and waits. The tracer thread reads the sender's pid from the
 * credentials the kernel attaches (translated into the supervisor's PID namespace, and not
 * forgeable), seizes that process with PTRACE_SEIZE, and answers; the command then loads the
 * report's own seccomp filter (sbx_seccomp_watch) and execs. Every process it starts is traced
 * from its first instruction (PTRACE_O_TRACEFORK, VFORK, CLONE); a child made with
 * CLONE_UNTRACED, which would escape, is refused by that filter.
 *
 * What it sees. Two kinds of seccomp stops (PTRACE_O_TRACESECCOMP):
 *  - data 0, from the report's filter, at a call a rule path can make fail (open, mkdir, unlink,
 *    rename, exec, chmod...): the tracer resumes it with PTRACE_SYSCALL, so the call runs and
 *    stops again on its way out, where its result is read; a failure with an errno a refusal
 *    gives (EACCES, EROFS, EBUSY, ENOENT; EEXIST, EISDIR, ENOTDIR at a point) is handed on
 *    with the path resolved as the kernel did.
 *    Other calls, and every call that succeeds, cost nothing more.
 *  - SBX_TRACE_REFUSED, from the sandbox's own filter when it is built for the report: the
 *    seccomp rule refused the call. The tracer makes the call fail with the errno the rule
 *    names, without running it (the system-call number set to -1, the return value set), and
 *    hands it on. If the tracer cannot, it kills the process: a refused call never runs (and
 *    with no tracer at all the kernel fails it with ENOSYS).
 * The kernel keeps one filter's stop when two filters stop at the same call: the report's
 * filter watches no call the sandbox's may refuse (sbx_seccomp_watch_check, at build time).
 *
 * Everything else is passed through as it came: signals are delivered, group-stops are kept
 * stopped with PTRACE_LISTEN until SIGCONT (so Ctrl-Z and job control work as without the
 * report), new processes are resumed. PTRACE_O_EXITKILL: should the tracer go, so does every
 * process it traced.
 *
 * The tracer waits with __WNOTHREAD for its own tracees only; the supervisor's main thread waits
 * for its own children, with __WNOTHREAD too (supervise.c), so neither takes the other's.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <linux/openat2.h>
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <elf.h>

#include "linux/linux.h"
#include "linux/sandbox.h"

#define OPTIONS                                                                                    \
	(PTRACE_O_TRACESECCOMP | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |                      \
	 PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL)

/* A program's interpreter is named within its first page (cmd/execfail.c reads the same). */
#define HEAD_BYTES 4096

/* One traced thread. */
struct tracee {
	pid_t tid;
	bool in_call;  /* a watched call runs: its exit stop is awaited */
	bool own_code; /* the first process, before its first exec: sbxrun's code, not the command */
	int nr;
	uint64_t args[6];
	struct tracee *next;
};

#define BUCKETS 256

struct sbx_trace {
	struct sbx_trace_config cfg;
	int sock[2]; /* [0] the supervisor's end (SO_PASSCRED), [1] the sandbox's */
	pthread_t thread;
	bool started;
	struct tracee *table[BUCKETS];
};

/* ---- the tracees -------------------------------------------------------------------------- */

static struct tracee **slot(struct sbx_trace *t, pid_t tid)
{
	struct tracee **p = &t->table[(unsigned)tid % BUCKETS];

	while (*p && (*p)->tid != tid)
		p = &(*p)->next;
	return p;
}

/* The state of tid, made on first sight (a new child can stop before its parent reports it). */
static struct tracee *tracee_get(struct sbx_trace *t, pid_t tid)
{
	struct tracee **p = slot(t, tid);

	if (!*p) {
		*p = calloc(1, sizeof(**p));
		if (*p)
			(*p)->tid = tid;
	}
	return *p;
}

static void tracee_forget(struct sbx_trace *t, pid_t tid)
{
	struct tracee **p = slot(t, tid), *x = *p;

	if (x) {
		*p = x->next;
		free(x);
	}
}

static void tracees_free(struct sbx_trace *t)
{
	for (size_t i = 0; i < BUCKETS; i++)
		while (t->table[i]) {
			struct tracee *x = t->table[i];

			t->table[i] = x->next;
			free(x);
		}
}

/* ---- the calls ------------------------------------------------------------------------------ */

/* Where a call's arguments are: -1 for none. */
struct call {
	int nr;
	enum sbx_op op;
	signed char dirfd, path;   /* the name it acts on, from a directory descriptor or the cwd */
	signed char dirfd2, path2; /* rename, link, symlink: the new name */
	signed char fd;	   /* a descriptor it acts on instead (fchmod...), or with path NULL */
	signed char flags; /* open: the flags; openat2: the struct open_how */
	bool openat2;
	bool nofollow; /* the last name is not followed (the call acts on a link itself) */
};

#define AT(d, p) .dirfd = (d), .path = (p)
#define NOPATH	 .dirfd = -1, .path = -1
#define NO2	 .dirfd2 = -1, .path2 = -1

static const struct call calls[] = {
#ifdef __NR_open
	{__NR_open, SBX_OP_READ, AT(-1, 0), NO2, .fd = -1, .flags = 1},
	{__NR_creat, SBX_OP_CREATE, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_mkdir, SBX_OP_CREATE, AT(-1, 0), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_mknod, SBX_OP_CREATE, AT(-1, 0), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_unlink, SBX_OP_DELETE, AT(-1, 0), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_rmdir, SBX_OP_DELETE, AT(-1, 0), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_rename, SBX_OP_RENAME, AT(-1, 0), .dirfd2 = -1, .path2 = 1, .fd = -1, .flags = -1,
	 .nofollow = true},
	{__NR_link, SBX_OP_LINK, AT(-1, 0), .dirfd2 = -1, .path2 = 1, .fd = -1, .flags = -1,
	 .nofollow = true},
	{__NR_symlink, SBX_OP_CREATE, AT(-1, 1), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_chmod, SBX_OP_CHMOD, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_chown, SBX_OP_CHOWN, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_lchown, SBX_OP_CHOWN, AT(-1, 0), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_utime, SBX_OP_UTIMES, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_utimes, SBX_OP_UTIMES, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_futimesat, SBX_OP_UTIMES, AT(0, 1), NO2, .fd = 0, .flags = -1},
#endif
#ifdef __NR_renameat
	{__NR_renameat, SBX_OP_RENAME, AT(0, 1), .dirfd2 = 2, .path2 = 3, .fd = -1, .flags = -1,
	 .nofollow = true},
#endif
	{__NR_openat, SBX_OP_READ, AT(0, 1), NO2, .fd = -1, .flags = 2},
	{437 /* openat2 */, SBX_OP_READ, AT(0, 1), NO2, .fd = -1, .flags = 2, .openat2 = true},
	{__NR_mkdirat, SBX_OP_CREATE, AT(0, 1), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_mknodat, SBX_OP_CREATE, AT(0, 1), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_unlinkat, SBX_OP_DELETE, AT(0, 1), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_renameat2, SBX_OP_RENAME, AT(0, 1), .dirfd2 = 2, .path2 = 3, .fd = -1, .flags = -1,
	 .nofollow = true},
	{__NR_linkat, SBX_OP_LINK, AT(0, 1), .dirfd2 = 2, .path2 = 3, .fd = -1, .flags = -1,
	 .nofollow = true},
	{__NR_symlinkat, SBX_OP_CREATE, AT(1, 2), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_truncate, SBX_OP_WRITE, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_execve, SBX_OP_EXEC, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_execveat, SBX_OP_EXEC, AT(0, 1), NO2, .fd = 0, .flags = -1},
	{__NR_fchmod, SBX_OP_CHMOD, NOPATH, NO2, .fd = 0, .flags = -1},
	{__NR_fchmodat, SBX_OP_CHMOD, AT(0, 1), NO2, .fd = -1, .flags = -1},
	{452 /* fchmodat2 */, SBX_OP_CHMOD, AT(0, 1), NO2, .fd = 0, .flags = -1},
	{__NR_fchown, SBX_OP_CHOWN, NOPATH, NO2, .fd = 0, .flags = -1},
	{__NR_fchownat, SBX_OP_CHOWN, AT(0, 1), NO2, .fd = 0, .flags = -1},
	{__NR_utimensat, SBX_OP_UTIMES, AT(0, 1), NO2, .fd = 0, .flags = -1},
	{__NR_setxattr, SBX_OP_XATTR, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_lsetxattr, SBX_OP_XATTR, AT(-1, 0), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_fsetxattr, SBX_OP_XATTR, NOPATH, NO2, .fd = 0, .flags = -1},
	{463 /* setxattrat */, SBX_OP_XATTR, AT(0, 1), NO2, .fd = 0, .flags = -1},
	{__NR_removexattr, SBX_OP_XATTR, AT(-1, 0), NO2, .fd = -1, .flags = -1},
	{__NR_lremovexattr, SBX_OP_XATTR, AT(-1, 0), NO2, .fd = -1, .flags = -1, .nofollow = true},
	{__NR_fremovexattr, SBX_OP_XATTR, NOPATH, NO2, .fd = 0, .flags = -1},
	{466 /* removexattrat */, SBX_OP_XATTR, AT(0, 1), NO2, .fd = 0, .flags = -1},
	/* Refused by seccomp alone (the network restricted, or metadata calls everywhere). */
	{__NR_socket, SBX_OP_SOCKET, NOPATH, NO2, .fd = -1, .flags = -1},
	{__NR_socketpair, SBX_OP_SOCKET, NOPATH, NO2, .fd = -1, .flags = -1},
	{__NR_connect, SBX_OP_CONNECT, NOPATH, NO2, .fd = -1, .flags = -1},
	{__NR_bind, SBX_OP_BIND, NOPATH, NO2, .fd = -1, .flags = -1},
	{__NR_listen, SBX_OP_LISTEN, NOPATH, NO2, .fd = -1, .flags = -1},
	{__NR_accept, SBX_OP_ACCEPT, NOPATH, NO2, .fd = -1, .flags = -1},
	{__NR_accept4, SBX_OP_ACCEPT, NOPATH, NO2, .fd = -1, .flags = -1},
	{__NR_ioctl, SBX_OP_CALL, NOPATH, NO2, .fd = 0, .flags = -1},
};

static const struct call *call_of(int nr)
{
	for (size_t i = 0; i < sizeof(calls) / sizeof(*calls); i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

/*
 * The errnos a refusal gives (lib/report.c decides which mechanism gives which). EEXIST, EISDIR
 * and ENOTDIR only where masks are mounted: the empty object of a point at a name that must not
 * be created gives them, and lib/report.c takes them at a point's name only.
 */
static bool refusal_errno(int err, bool mount_namespace)
{
	if (err == EEXIST || err == EISDIR || err == ENOTDIR)
		return mount_namespace;
	return err == EACCES || err == EROFS || err == EBUSY || err == ENOENT;
}

/* ---- reading the tracee ------------------------------------------------------------------- */

/*
 * A NUL-terminated string at addr, read a page at a time (process_vm_readv transfers an iovec
 * whole or not at all, and the string may end just before an unmapped page). false when it
 * cannot be read or does not fit.
 */
static bool read_str(pid_t tid, uint64_t addr, char *buf, size_t size)
{
	size_t got = 0;

	if (!addr)
		return false;
	while (got < size) {
		size_t want = 4096 - ((addr + got) & 4095);
		struct iovec local, remote;
		ssize_t n;

		if (want > size - got)
			want = size - got;
		local = (struct iovec){buf + got, want};
		remote = (struct iovec){(void *)(uintptr_t)(addr + got), want};
		n = process_vm_readv(tid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return false;
		if (memchr(buf + got, '\0', (size_t)n))
			return true;
		got += (size_t)n;
	}
	return false;
}

static bool read_mem(pid_t tid, uint64_t addr, void *buf, size_t size)
{
	struct iovec local = {buf, size}, remote = {(void *)(uintptr_t)addr, size};

	return addr && process_vm_readv(tid, &local, 1, &remote, 1, 0) == (ssize_t)size;
}

/* ---- names as the kernel resolved them ---------------------------------------------------- */

/*
 * The link of /proc that names the directory a name is looked up from: the tracee's root for an
 * absolute name, its cwd, or the directory dirfd names. Only read (readlink), never followed:
 * the name is then resolved from the tracee's root (open_in_root).
 */
static void base_link(pid_t tid, int dirfd, const char *name, char *buf, size_t size)
{
	if (name && name[0] == '/')
		snprintf(buf, size, "/proc/%d/root", (int)tid);
	else if (dirfd == AT_FDCWD || dirfd < 0)
		snprintf(buf, size, "/proc/%d/cwd", (int)tid);
	else
		snprintf(buf, size, "/proc/%d/fd/%d", (int)tid, dirfd);
}

/* Where a link of /proc leads, as the mount namespace of its object names it. */
static bool link_target(const char *link, char *out, size_t size)
{
	ssize_t n = readlink(link, out, size - 1);

	if (n <= 0 || (size_t)n >= size - 1)
		return false;
	out[n] = '\0';
	return out[0] == '/';
}

/* The path of an open descriptor of ours. */
static bool fd_path(int fd, char *out, size_t size)
{
	char link[48];

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	return link_target(link, out, size);
}

/*
 * Opens abs (an absolute name as the tracee sees it) in the tracee's root as if chrooted there
 * (RESOLVE_IN_ROOT): a link the command planted, absolute or through "..", leads to what it
 * would lead to inside, never to the supervisor's own files, and no magic link of /proc is
 * followed. O_PATH: nothing is read. -1 when it cannot be opened (or openat2 is missing).
 */
static int open_in_root(pid_t tid, const char *abs, bool follow)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char root[48];
	int rfd, fd;

	snprintf(root, sizeof(root), "/proc/%d/root", (int)tid);
	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -1;
	fd = (int)syscall(SYS_openat2, rfd, abs, &how, sizeof(how));
	close(rfd);
	return fd;
}

/* Where abs leads in the tracee's root, when it can be opened: *out and true. */
static bool open_real(pid_t tid, const char *abs, bool follow, char *out, size_t size)
{
	int fd = open_in_root(tid, abs, follow);
	bool ok;

	if (fd < 0)
		return false;
	ok = fd_path(fd, out, size);
	close(fd);
	return ok;
}

/* A name the command used, as the report shows it and as the kernel resolved it. */
struct name {
	char path[SBX_MAX_PATH]; /* absolute, lexically from the cwd or dirfd; "" unknown */
	char real[SBX_MAX_PATH]; /* where it leads in the sandbox; "" unknown */
	bool exists;		 /* real is the object itself, not its parent and last name */
};

/*
 * Resolves name (from dirfd) as the tracee sees it: made absolute lexically from the directory
 * it is looked up from, then opened in the tracee's root. Where the name itself cannot be found
 * (it does not exist, or a mask hides it), real is where its parent leads, and its last name.
 */
static void resolve_name(pid_t tid, int dirfd, const char *name, bool follow, struct name *n)
{
	char base[64], dir[SBX_MAX_PATH], parent[SBX_MAX_PATH], *joined = NULL, *slash;
	const char *leaf;

	n->path[0] = n->real[0] = '\0';
	n->exists = false;
	base_link(tid, dirfd, name, base, sizeof(base));
	/* As named: lexically, from the directory as the command sees it. */
	if (name[0] == '/')
		sbx_path_normalize(name, &joined);
	else if (link_target(base, dir, sizeof(dir)))
		sbx_path_join(dir, name[0] ? name : ".", &joined);
	if (joined && strlen(joined) < sizeof(n->path))
		memcpy(n->path, joined, strlen(joined) + 1);
	free(joined);
	if (!n->path[0])
		return;

	/* Where it leads: resolved by the kernel, inside the tracee's root. */
	if (open_real(tid, n->path, follow, n->real, sizeof(n->real))) {
		n->exists = true;
		return;
	}
	/* Not there (missing, or hidden): where its parent leads, and its last name. */
	memcpy(parent, n->path, strlen(n->path) + 1);
	slash = strrchr(parent, '/');
	if (!slash || !slash[1])
		return;
	/* The last name, in n->path: parent's copy is cut at its slash. */
	leaf = n->path + (slash - parent) + 1;
	slash[slash == parent ? 1 : 0] = '\0';
	if (!open_real(tid, parent, true, dir, sizeof(dir)) ||
	    (size_t)snprintf(n->real, sizeof(n->real), "%s%s%s", dir, strcmp(dir, "/") ? "/" : "",
			     leaf) >= sizeof(n->real))
		n->real[0] = '\0';
}

/* A descriptor of the tracee, as a name: its path, which is also where it leads. */
static void resolve_fd(pid_t tid, int fd, struct name *n)
{
	char link[64];

	snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)tid, fd);
	n->exists = link_target(link, n->real, sizeof(n->real));
	if (!n->exists)
		n->real[0] = '\0';
	memcpy(n->path, n->real, strlen(n->real) + 1);
}

/* Does path exist outside the sandbox (on the host, where no mask hides it)? */
static bool exists_outside(const char *path)
{
	struct stat st;

	return path[0] == '/' &&
	       fstatat(AT_FDCWD, path, &st, AT_NO_AUTOMOUNT | AT_SYMLINK_NOFOLLOW) == 0;
}

/* The parent directory of an absolute path, in buf. */
static const char *parent_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t n = slash && slash != path ? (size_t)(slash - path) : 1;

	snprintf(buf, size, "%.*s", (int)n, path);
	return buf;
}

/*
 * The interpreter the kernel loads for the program at real, in the tracee's root, when it is a
 * regular file. Opened by descriptor after the check, so that nothing but a regular file is
 * ever opened for reading (a device can act when opened).
 */
static bool interpreter_of(pid_t tid, const char *real, char *out, size_t size)
{
	unsigned char head[HEAD_BYTES];
	char again[64];
	struct stat st;
	size_t got = 0;
	int fd = open_in_root(tid, real, true), rfd;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	snprintf(again, sizeof(again), "/proc/self/fd/%d", fd);
	rfd = open(again, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	close(fd);
	if (rfd < 0)
		return false;
	sbx_fd_read(rfd, (char *)head, sizeof(head), &got);
	close(rfd);
	return sbx_exec_interpreter(head, got, out, size) == 0;
}

/* ---- a failed call, handed on ------------------------------------------------------------ */

/*
 * The n bytes of a socket's name, a path's or an abstract one's (after "unix:" or "unix:@"):
 * each NUL as "@", as ss(8) and /proc/net/unix show one in an abstract name, and a control
 * byte (DEL too), a backslash or any byte above 0x7f as "\xHH": the name is the command's, the line may
 * reach a terminal, and a byte that is not UTF-8 would make the report's JSON line unwritable,
 * hiding the refusal. Cut short (still a C string) when size is short.
 */
static void format_sun_name(const char *p, size_t n, char *out, size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < size; i++) {
		unsigned char c = (unsigned char)p[i];

		if (c == '\0') {
			out[o++] = '@';
		} else if (c < 0x20 || c >= 0x7f || c == '\\') {
			if (o + 5 > size)
				break;
			snprintf(out + o, size - o, "\\x%02x", c);
			o += 4;
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
}

void sbx_format_unix_path(const char *path, char *out, size_t size)
{
	int n = snprintf(out, size, "unix:");

	if (n > 0 && (size_t)n < size)
		format_sun_name(path, strlen(path), out + n, size - (size_t)n);
}

void sbx_format_sockaddr(const void *addr, size_t len, char *out, size_t size)
{
	const unsigned char *sa = addr;
	char ip[INET6_ADDRSTRLEN];
	sa_family_t fam;
	int n;

	out[0] = '\0';
	if (len < sizeof(fam) || size == 0)
		return;
	memcpy(&fam, sa, sizeof(fam));
	if (fam == AF_INET && len >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in in;

		memcpy(&in, sa, sizeof(in));
		inet_ntop(AF_INET, &in.sin_addr, ip, sizeof(ip));
		snprintf(out, size, "%s:%u", ip, ntohs(in.sin_port));
	} else if (fam == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		struct sockaddr_in6 in6;

		memcpy(&in6, sa, sizeof(in6));
		inet_ntop(AF_INET6, &in6.sin6_addr, ip, sizeof(ip));
		snprintf(out, size, "[%s]:%u", ip, ntohs(in6.sin6_port));
	} else if (fam == AF_UNIX) {
		size_t off = offsetof(struct sockaddr_un, sun_path);
		size_t pl = len > off ? len - off : 0;
		const char *p = (const char *)sa + off;
		bool abstract;

		if (pl > sizeof(((struct sockaddr_un *)0)->sun_path))
			pl = sizeof(((struct sockaddr_un *)0)->sun_path);
		/*
		 * Abstract: the name is every byte after the NUL, NULs within it included. A path
		 * ends at its NUL (or its last byte); its bytes are worded by the same rule.
		 */
		abstract = pl && p[0] == '\0';

		n = snprintf(out, size, abstract ? "unix:@" : "unix:");
		if (n > 0 && (size_t)n < size)
			format_sun_name(p + abstract, abstract ? pl - 1 : strnlen(p, pl), out + n,
					size - (size_t)n);
	} else {
		snprintf(out, size, "family %u", (unsigned)fam);
	}
}

/* "AF_INET6 stream": what socket() or socketpair() was asked for. */
static void format_socket(uint64_t family, uint64_t type, char *out, size_t size)
{
	static const struct {
		int v;
		const char *name;
	} fams[] = {{AF_UNIX, "AF_UNIX"},	{AF_INET, "AF_INET"},	  {AF_INET6, "AF_INET6"},
		    {AF_NETLINK, "AF_NETLINK"}, {AF_PACKET, "AF_PACKET"}, {AF_VSOCK, "AF_VSOCK"}};
	static const char *const types[] = {[SOCK_STREAM] = "stream",
					    [SOCK_DGRAM] = "dgram",
					    [SOCK_RAW] = "raw",
					    [SOCK_RDM] = "rdm",
					    [SOCK_SEQPACKET] = "seqpacket"};
	const char *f = NULL, *t = NULL;
	unsigned ty = (unsigned)(type & 0xf);

	for (size_t i = 0; i < sizeof(fams) / sizeof(*fams); i++)
		if ((uint64_t)fams[i].v == family)
			f = fams[i].name;
	if (ty < sizeof(types) / sizeof(*types))
		t = types[ty];
	if (f)
		snprintf(out, size, "%s %s", f, t ? t : "?");
	else
		snprintf(out, size, "family %llu", (unsigned long long)family);
}

/* The open flags of an open, openat or openat2 call (0 when they cannot be read). */
static uint64_t open_flags(pid_t tid, const struct call *c, const uint64_t *args)
{
	uint64_t how_flags = 0;

	if (!c->openat2)
		return c->flags >= 0 ? args[c->flags] : O_CREAT | O_WRONLY | O_TRUNC; /* creat */
	read_mem(tid, args[c->flags], &how_flags, sizeof(how_flags)); /* open_how.flags */
	return how_flags;
}

/* read, write or create: what an open asks for, given whether the name exists. */
static enum sbx_op open_op(uint64_t flags, bool exists)
{
	if ((flags & O_CREAT) && !exists)
		return SBX_OP_CREATE;
	if ((flags & O_PATH) == O_PATH)
		return SBX_OP_READ;
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC))
		return SBX_OP_WRITE;
	return SBX_OP_READ;
}

/* Everything a report needs of one call, read while the tracee is stopped. */
struct seen_buf {
	struct sbx_traced t;
	struct name a, b, interp;
	char comm[32], address[SBX_MAX_PATH + 16], call[32];
	char interp_name[SBX_MAX_PATH];
};

static void hand_on(struct sbx_trace *t, const struct tracee *x, int err,
		    enum sbx_seccomp_group group)
{
	const struct call *c = call_of(x->nr);
	struct seen_buf *b = calloc(1, sizeof(*b));
	struct sbx_op_seen *s;
	char name[SBX_MAX_PATH], up[SBX_MAX_PATH];
	bool have_a = false, have_b = false;

	if (!b)
		return;
	s = &b->t.op;
	s->err = err;
	s->seccomp = group;
	s->op = c ? c->op : SBX_OP_CALL;
	if (!c || c->op == SBX_OP_CALL) {
		char *n = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, x->nr);

		snprintf(b->call, sizeof(b->call), "%s", n ? n : "?");
		free(n);
		s->call = b->call;
	}
	if (c && c->path >= 0 && read_str(x->tid, x->args[c->path], name, sizeof(name)) &&
	    (name[0] || c->fd < 0)) {
		resolve_name(x->tid, c->dirfd >= 0 ? (int)x->args[c->dirfd] : AT_FDCWD, name,
			     !c->nofollow, &b->a);
		have_a = true;
	} else if (c && c->fd >= 0) {
		resolve_fd(x->tid, (int)x->args[c->fd], &b->a);
		have_a = b->a.real[0] != '\0';
	}
	if (c && c->path2 >= 0 && read_str(x->tid, x->args[c->path2], name, sizeof(name))) {
		resolve_name(x->tid, c->dirfd2 >= 0 ? (int)x->args[c->dirfd2] : AT_FDCWD, name,
			     false, &b->b);
		have_b = true;
	}
	if (c && c->flags >= 0 && have_a)
		s->op = open_op(open_flags(x->tid, c, x->args), b->a.exists);
	else if (c && c->nr == __NR_creat && have_a)
		s->op = open_op(O_CREAT | O_WRONLY | O_TRUNC, b->a.exists);
	if (have_a) {
		s->path = b->a.path[0] ? b->a.path : NULL;
		s->real = b->a.real[0] ? b->a.real : NULL;
	}
	if (have_b) {
		s->to = b->b.path[0] ? b->b.path : NULL;
		s->to_real = b->b.real[0] ? b->b.real : NULL;
	}
	/* A name a mask hid: it exists outside (its parent, for a name being made). */
	if (err == ENOENT && (s->real || s->path)) {
		const char *where = s->real ? s->real : s->path;

		if (s->op == SBX_OP_CREATE)
			where = parent_of(where, up, sizeof(up));
		s->hidden = exists_outside(where);
	}
	if (s->op == SBX_OP_EXEC && s->real && b->a.exists &&
	    interpreter_of(x->tid, s->real, b->interp_name, sizeof(b->interp_name))) {
		s->interp = b->interp_name;
		resolve_name(x->tid, AT_FDCWD, b->interp_name, true, &b->interp);
		s->interp_real = b->interp.real[0] ? b->interp.real : NULL;
	}
	if (s->op == SBX_OP_CONNECT || s->op == SBX_OP_BIND) {
		unsigned char sa[sizeof(struct sockaddr_storage)];
		size_t len = x->args[2] < sizeof(sa) ? (size_t)x->args[2] : sizeof(sa);

		if (read_mem(x->tid, x->args[1], sa, len)) {
			sbx_format_sockaddr(sa, len, b->address, sizeof(b->address));
			s->address = b->address[0] ? b->address : NULL;
		}
	} else if (s->op == SBX_OP_SOCKET) {
		format_socket(x->args[0], x->args[1], b->address, sizeof(b->address));
		s->address = b->address;
	}
	if (sbx_proc_read(x->tid, "comm", b->comm, sizeof(b->comm))) {
		b->comm[strcspn(b->comm, "\n")] = '\0';
		b->t.comm = b->comm;
	}
	b->t.pid = sbx_proc_ns_pid(x->tid);
	t->cfg.on_failure(t->cfg.arg, &b->t);
	free(b);
}

/* ---- the stops ---------------------------------------------------------------------------- */

static void resume(pid_t tid, int sig)
{
	ptrace(PTRACE_CONT, tid, 0, (void *)(uintptr_t)sig);
}

/*
 * Makes the call the tracee is stopped at fail with err, without running it: the system-call
 * number -1 (the kernel then skips the call and leaves the return value alone) and the return
 * value -err. 0, or -1 with errno set.
 */
static int skip_call(pid_t tid, int err)
{
#if defined(__x86_64__)
	struct user_regs_struct regs;
	struct iovec iov = {&regs, sizeof(regs)};

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return -1;
	regs.orig_rax = (unsigned long long)-1;
	regs.rax = (unsigned long long)-err;
	return (int)ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &iov);
#elif defined(__aarch64__)
	struct user_pt_regs regs;
	int nr = -1;
	struct iovec iov = {&nr, sizeof(nr)};

	if (ptrace(PTRACE_SETREGSET, tid, (void *)NT_ARM_SYSTEM_CALL, &iov) < 0)
		return -1;
	iov = (struct iovec){&regs, sizeof(regs)};
	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_PRSTATUS, &iov) < 0)
		return -1;
	regs.regs[0] = (unsigned long long)-err;
	return (int)ptrace(PTRACE_SETREGSET, tid, (void *)NT_PRSTATUS, &iov);
#else
#error "the denial report's tracer knows how to skip a call on x86_64 and aarch64 only"
#endif
}

static void on_seccomp(struct sbx_trace *t, struct tracee *x)
{
	struct __ptrace_syscall_info info;
	unsigned long data = 0;
	bool have;

	if (ptrace(PTRACE_GETEVENTMSG, x->tid, 0, &data) < 0) {
		/* Gone, or in a state nothing can be known of: it must not run the call. */
		if (errno != ESRCH)
			kill(x->tid, SIGKILL);
		return;
	}
	have = ptrace(PTRACE_GET_SYSCALL_INFO, x->tid, (void *)sizeof(info), &info) > 0 &&
	       info.op == PTRACE_SYSCALL_INFO_SECCOMP;
	if (have) {
		x->nr = (int)info.seccomp.nr;
		memcpy(x->args, info.seccomp.args, sizeof(x->args));
	}
	if (data & SBX_TRACE_REFUSED_BIT) {
		int err = SBX_TRACE_ERRNO(data);

		if (skip_call(x->tid, err) < 0) {
			if (errno != ESRCH)
				kill(x->tid, SIGKILL);
			return;
		}
		if (have && !x->own_code)
			hand_on(t, x, err, (enum sbx_seccomp_group)SBX_TRACE_GROUP(data));
		resume(x->tid, 0);
		return;
	}
	/* A watched call: let it run, and stop on its way out to read its result. */
	x->in_call = have;
	ptrace(have ? PTRACE_SYSCALL : PTRACE_CONT, x->tid, 0, 0);
}

static void on_call_exit(struct sbx_trace *t, struct tracee *x)
{
	struct __ptrace_syscall_info info;
	int err;

	if (!x->in_call)
		return;
	x->in_call = false;
	if (ptrace(PTRACE_GET_SYSCALL_INFO, x->tid, (void *)sizeof(info), &info) <= 0 ||
	    info.op != PTRACE_SYSCALL_INFO_EXIT || !info.exit.is_error)
		return;
	err = (int)-info.exit.rval;
	if (!refusal_errno(err, t->cfg.mount_namespace))
		return;
	/* Only a mask hides what exists: without a mount namespace ENOENT is only ENOENT. */
	if (err == ENOENT && !t->cfg.mount_namespace)
		return;
	/* Before its first exec the process runs sbxrun's code: only its exec is the command's. */
	if (x->own_code && x->nr != __NR_execve && x->nr != __NR_execveat)
		return;
	hand_on(t, x, err, SBX_SCG_NONE);
}

/* An exec replaced the process: a thread that exec'd takes the leader's id. */
static void on_exec(struct sbx_trace *t, struct tracee *x)
{
	unsigned long former = 0;

	if (ptrace(PTRACE_GETEVENTMSG, x->tid, 0, &former) == 0 && (pid_t)former != x->tid)
		tracee_forget(t, (pid_t)former);
	x->in_call = false;
	x->own_code = false;
}

static void on_stop(struct sbx_trace *t, pid_t tid, int st)
{
	struct tracee *x;
	int sig, ev;

	if (WIFEXITED(st) || WIFSIGNALED(st)) {
		tracee_forget(t, tid);
		return;
	}
	if (!WIFSTOPPED(st))
		return;
	sig = WSTOPSIG(st);
	ev = (int)((unsigned)st >> 16);
	x = tracee_get(t, tid);
	if (!x) {
		/* Out of memory: nothing to remember it by, but a refused call must not run. */
		if (ev == PTRACE_EVENT_SECCOMP)
			kill(tid, SIGKILL);
		else
			resume(tid, ev ? 0 : sig);
		return;
	}
	switch (ev) {
	case PTRACE_EVENT_SECCOMP:
		on_seccomp(t, x);
		return;
	case PTRACE_EVENT_EXEC:
		on_exec(t, x);
		resume(tid, 0);
		return;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		resume(tid, 0);
		return;
	case PTRACE_EVENT_STOP:
		/* A group-stop stays stopped until SIGCONT; the first stop of a new child goes on. */
		if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU)
			ptrace(PTRACE_LISTEN, tid, 0, 0);
		else
			resume(tid, 0);
		return;
	}
	if (sig == (SIGTRAP | 0x80)) {
		on_call_exit(t, x);
		resume(tid, 0);
		return;
	}
	resume(tid, sig); /* a signal for the tracee: delivered as it came */
}

/* ---- the tracer thread -------------------------------------------------------------------- */

/* Reads the command's request, seizes it, answers; its host pid, or -1. */
static pid_t seize_command(struct sbx_trace *t)
{
	char byte, ctl[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = {&byte, 1};
	struct msghdr m = {.msg_iov = &iov,
			   .msg_iovlen = 1,
			   .msg_control = ctl,
			   .msg_controllen = sizeof(ctl)};
	struct ucred cred = {0};
	struct cmsghdr *cm;
	struct tracee *x;
	ssize_t n;
	int err = 0;

	do
		n = recvmsg(t->sock[0], &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		return -1; /* the sandbox ended before its command was started */
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_CREDENTIALS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(cred)))
			memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
	x = cred.pid > 0 ? tracee_get(t, cred.pid) : NULL;
	if (cred.pid <= 0)
		err = ESRCH;
	else if (!x)
		err = ENOMEM;
	else if (ptrace(PTRACE_SEIZE, cred.pid, 0, (void *)(uintptr_t)OPTIONS) < 0)
		err = errno;
	if (x)
		x->own_code = true;
	send(t->sock[0], &err, sizeof(err), MSG_NOSIGNAL);
	return err ? -1 : cred.pid;
}

static void *tracer_main(void *arg)
{
	struct sbx_trace *t = arg;
	pid_t w;
	int st;

	if (seize_command(t) > 0)
		for (;;) {
			w = waitpid(-1, &st, __WALL | __WNOTHREAD);
			if (w > 0)
				on_stop(t, w, st);
			else if (errno != EINTR)
				break; /* ECHILD: every traced process has ended */
		}
	tracees_free(t);
	return NULL;
}

/* ---- the interface ------------------------------------------------------------------------ */

int sbx_trace_new(const struct sbx_trace_config *c, struct sbx_trace **out, struct sbx_diag *d)
{
	struct sbx_trace *t = calloc(1, sizeof(*t));
	int on = 1, err;

	*out = NULL;
	if (!t)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	t->cfg = *c;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, t->sock) < 0 ||
	    setsockopt(t->sock[0], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) < 0) {
		err = errno;
		free(t);
		return sbx_diag_set(d, -err, "--report: socketpair: %s", strerror(err));
	}
	*out = t;
	return 0;
}

int sbx_trace_start(struct sbx_trace *t, struct sbx_diag *d)
{
	int err;

	close(t->sock[1]);
	t->sock[1] = -1;
	err = pthread_create(&t->thread, NULL, tracer_main, t);
	if (err)
		return sbx_diag_set(d, -err, "--report: cannot start the tracer: %s",
				    strerror(err));
	t->started = true;
	return 0;
}

void sbx_trace_child(struct sbx_trace *t)
{
	close(t->sock[0]);
	t->sock[0] = -1;
}

void sbx_trace_close_child(struct sbx_trace *t)
{
	close(t->sock[1]);
	t->sock[1] = -1;
}

int sbx_trace_attach_self(struct sbx_trace *t, struct sbx_diag *d)
{
	int fd = t->sock[1], answer = -1, err;
	ssize_t n;

	/*
	 * Init is not dumpable, and the fork kept that: the tracer could not seize this process.
	 * Dumpable again, it holds nothing of init's that matters (the sandbox is applied, the
	 * descriptors of init are gone) and becomes dumpable at exec anyway.
	 */
	if (prctl(PR_SET_DUMPABLE, 1) < 0 || send(fd, "", 1, MSG_NOSIGNAL) != 1) {
		err = errno;
		return sbx_diag_set(d, -err, "--report: cannot ask to be traced: %s",
				    strerror(err));
	}
	do
		n = recv(fd, &answer, sizeof(answer), 0);
	while (n < 0 && errno == EINTR);
	close(fd);
	t->sock[1] = -1;
	if (n != (ssize_t)sizeof(answer))
		return sbx_diag_set(d, -EPIPE, "--report: the tracer is gone");
	if (answer) {
		sbx_diag_set(d, -answer, "--report: cannot trace the command: ptrace: %s",
			     strerror(answer));
		return sbx_diag_hint(d, -answer,
				     "the report traces the command with ptrace(2), which this "
				     "host refuses (Yama's ptrace_scope 3, or a security module); "
				     "run without --report");
	}
	return sbx_seccomp_watch_apply(t->cfg.network, t->cfg.metadata, d);
}

void sbx_trace_end(struct sbx_trace *t)
{
	if (!t)
		return;
	if (t->started)
		pthread_join(t->thread, NULL);
	if (t->sock[0] >= 0)
		close(t->sock[0]);
	if (t->sock[1] >= 0)
		close(t->sock[1]);
	free(t);
}
