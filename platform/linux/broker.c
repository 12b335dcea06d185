/* SPDX-License-Identifier: MIT */
/*
 * broker.c - connect(2) decided by the supervisor: the Unix socket allow-list, and path sockets
 * outside the writable roots kept unreachable (netns.h, "the broker").
 *
 * Neither seccomp nor this kernel's Landlock (ABI 7) can tell which socket a connect names:
 * seccomp cannot read the address, and Landlock refuses connecting to a path socket only from a
 * later ABI on (LANDLOCK_ACCESS_FS_RESOLVE_UNIX). So the command's connect(2) is a user
 * notification (seccomp_net.c), and:
 *
 *   supervisor (host)                             connector (inside: forked by init after
 *     reads the address once from the command's   Landlock, before seccomp; no capability,
 *     memory, checks the request is still alive,  not dumpable, no seccomp filter)
 *     takes the command's socket (pidfd_getfd),
 *     decides by the allow-list and the writable
 *     roots, and hands socket and decision ---->  forks a worker per request, which connects
 *     to the connector                            that very socket: to a pinned place by
 *                                                 /proc/self/fd, beneath it with openat2
 *     answers the notification with the   <----   (no link followed), or to the address as
 *     worker's result                             it was read (other families, abstract)
 *
 * The kernel's own check never sees the command's memory again: the connect is made on a copy
 * of the address, never by SECCOMP_USER_NOTIF_FLAG_CONTINUE (the memory can change after the
 * check). It is made inside the sandbox's namespaces and Landlock domain, so what the domain
 * refuses (abstract sockets of others, TCP ports) stays refused, and a path is walked in the
 * sandbox's view of the file system. The command's own socket is connected, so its options,
 * flags and descriptor number stay what they were.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/netns.h"
#include "linux/sandbox.h"
#include "net.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

/* Connections under way at once in the connector; more are refused with EAGAIN. */
#define CONNECTOR_WORKERS_MAX 64

enum req_op {
	OP_ADDRESS = 0, /* connect to the address as the command gave it */
	OP_PLACE,	/* connect to a place, or beneath it (rel) */
};

/* The supervisor's request to the connector; the command's socket travels with it. */
struct req {
	uint64_t id;
	int32_t pid; /* the command's, as the supervisor sees it: for the report */
	uint32_t op;
	uint32_t place;
	uint32_t addrlen;
	union {
		struct sockaddr_storage addr;
		char rel[SBX_MAX_PATH];
	} u;
};

struct reply {
	uint64_t id;
	int32_t err; /* 0 or an errno */
	/*
	 * A refusal of the sandbox the connector met (enum sbx_broker_why), or 0: a link or
	 * another mount on the way beneath the place (EACCES), or a link at the end (ECONNREFUSED,
	 * as for a file that is no socket), which it does not follow; an abstract socket its
	 * Landlock domain keeps out of reach (EPERM). The request rides along, for the report.
	 */
	int32_t why;
	struct req rq;
};

int sbx_broker_add_place(struct sbx_broker *b, const char *path, int fd, struct sbx_diag *d)
{
	char *copy;

	if (b->n_places >= SBX_BROKER_PLACES_MAX)
		return sbx_diag_set(d, -E2BIG, "more than %d places for the Unix socket broker",
				    SBX_BROKER_PLACES_MAX);
	copy = strdup(path);
	if (!copy)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	b->places[b->n_places].path = copy;
	b->places[b->n_places++].fd = fd;
	return 0;
}

void sbx_broker_free(struct sbx_broker *b)
{
	for (size_t i = 0; i < b->n_places; i++) {
		free(b->places[i].path);
		if (b->places[i].fd >= 0)
			close(b->places[i].fd);
	}
	b->n_places = 0;
}

/* ---- the connector, inside ------------------------------------------------------------------- */

/* "/proc/self/fd/N" as a socket address: the object the descriptor holds, however it is named. */
static socklen_t fd_address(int fd, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	snprintf(sun->sun_path, sizeof(sun->sun_path), "/proc/self/fd/%d", fd);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(sun->sun_path) + 1);
}

/*
 * An abstract address (a NUL first, a name after it): no file, only Landlock's scope decides.
 * The name may be empty: the NUL alone (three bytes) is one the kernel binds and connects too.
 */
static bool abstract_address(const struct req *rq)
{
	const struct sockaddr_un *sun = (const struct sockaddr_un *)&rq->u.addr;

	return sun->sun_family == AF_UNIX && rq->addrlen > offsetof(struct sockaddr_un, sun_path) &&
	       rq->addrlen <= sizeof(*sun) && sun->sun_path[0] == '\0';
}

/*
 * Connects sock as the request says; returns 0 or an errno, with *why set when the refusal is
 * the sandbox's (struct reply).
 */
static int connect_request(const struct sbx_broker *b, int sock, const struct req *rq, int32_t *why)
{
	struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
			       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
					  RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV};
	struct sockaddr_un sun;
	struct stat st;
	socklen_t len;
	int target, rc, err;

	if (rq->op == OP_ADDRESS) {
		rc = connect(sock, (const struct sockaddr *)&rq->u.addr, rq->addrlen);
		err = rc < 0 ? errno : 0;
		/*
		 * No socket listens at that name for the sandbox: one nobody bound is refused as
		 * one an outside process bound (struct sbx_broker, abstract_alike).
		 */
		if (err == ECONNREFUSED && b->abstract_alike && abstract_address(rq))
			err = EPERM;
		/* Nothing else refuses an abstract socket with EPERM (landlock.c scopes them). */
		if (err == EPERM && abstract_address(rq))
			*why = SBX_BROKER_SCOPED;
		return err;
	}
	if (rq->place >= b->n_places || b->places[rq->place].fd < 0)
		return ENOENT;
	/*
	 * Beneath the place, without following any link and without crossing into another
	 * mount: the very object the name has in the sandbox's view, which must be a socket.
	 */
	if (rq->u.rel[0]) {
		target = (int)syscall(SYS_openat2, b->places[rq->place].fd, rq->u.rel, &how,
				      sizeof(how));
		if (target < 0 && (errno == EXDEV || errno == ELOOP)) {
			*why = SBX_BROKER_NOT_FOLLOWED;
			return EACCES;
		}
		if (target < 0)
			return errno;
	} else {
		target = dup(b->places[rq->place].fd);
		if (target < 0)
			return errno;
	}
	if (fstat(target, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		/* A link at the end is the link itself (O_NOFOLLOW): not followed, as above. */
		if (S_ISLNK(st.st_mode))
			*why = SBX_BROKER_NOT_FOLLOWED;
		close(target);
		return ECONNREFUSED; /* what connecting to a file that is no socket gives */
	}
	len = fd_address(target, &sun);
	rc = connect(sock, (const struct sockaddr *)&sun, len);
	err = rc < 0 ? errno : 0;
	close(target);
	return err;
}

/* The connector's loop: one worker per request, a bounded number at once. */
static __attribute__((noreturn)) void connector_main(struct sbx_broker *b)
{
	size_t workers = 0;
	struct sigaction dfl = {.sa_handler = SIG_DFL};

	sigaction(SIGCHLD, &dfl, NULL);
	for (;;) {
		struct req rq;
		struct reply rp;
		size_t n = 0;
		int sock = -1, rc;
		pid_t pid;

		while (workers > 0 && waitpid(-1, NULL, WNOHANG) > 0)
			workers--;
		memset(&rq, 0, sizeof(rq));
		rc = sbx_fds_recv(b->chan[1], &sock, 1, &n, &rq, sizeof(rq), 0);
		if (rc == -EPIPE)
			_exit(0); /* the supervisor is gone */
		if (rc < 0 || n != 1)
			continue;
		memset(&rp, 0, sizeof(rp));
		rp.id = rq.id;
		if (workers >= CONNECTOR_WORKERS_MAX) {
			/* Reap one if it has ended since; otherwise refuse rather than pile up. */
			if (waitpid(-1, NULL, WNOHANG) > 0) {
				workers--;
			} else {
				rp.err = EAGAIN;
				send(b->chan[1], &rp, sizeof(rp), MSG_NOSIGNAL);
				close(sock);
				continue;
			}
		}
		/* A blocking connect must not hold up the next request: each in its own process. */
		pid = fork();
		if (pid == 0) {
			rp.err = connect_request(b, sock, &rq, &rp.why);
			if (rp.why)
				rp.rq = rq;
			send(b->chan[1], &rp, sizeof(rp), MSG_NOSIGNAL);
			_exit(0);
		}
		if (pid < 0) {
			rp.err = EAGAIN;
			send(b->chan[1], &rp, sizeof(rp), MSG_NOSIGNAL);
		} else {
			workers++;
		}
		close(sock);
	}
}

int sbx_broker_start_connector(struct sbx_broker *b, struct sbx_diag *d)
{
	pid_t pid;
	int err;

	/* The writable roots as the sandbox sees them (masks included), by their real names. */
	for (size_t i = 0; i < b->n_places; i++) {
		struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				       .resolve = RESOLVE_NO_SYMLINKS};

		if (b->places[i].fd != SBX_BROKER_OPEN_INSIDE)
			continue;
		b->places[i].fd =
			(int)syscall(SYS_openat2, AT_FDCWD, b->places[i].path, &how, sizeof(how));
		if (b->places[i].fd < 0 && errno != ENOENT) {
			err = errno;
			return sbx_diag_set(d, -err, "the Unix socket broker cannot open %s: %s",
					    b->places[i].path, strerror(err));
		}
	}
	pid = fork();
	if (pid < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "cannot start the Unix socket broker: %s",
				    strerror(err));
	}
	if (pid == 0) {
		/* Nothing in the sandbox may read its memory or descriptors. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || prctl(PR_SET_DUMPABLE, 0) < 0)
			_exit(125);
		prctl(PR_SET_NAME, (unsigned long)"sbxrun-connect", 0, 0, 0);
		close(b->chan[0]);
		close(b->notify_chan[0]);
		close(b->notify_chan[1]);
		connector_main(b);
	}
	close(b->chan[1]);
	b->chan[1] = -1;
	/* Init keeps none of the places: only the connector uses them. */
	for (size_t i = 0; i < b->n_places; i++)
		if (b->places[i].fd >= 0) {
			close(b->places[i].fd);
			b->places[i].fd = -1;
		}
	return 0;
}

int sbx_broker_hand_over(struct sbx_broker *b, int notify_fd, struct sbx_diag *d)
{
	char one = 1;
	int rc = sbx_fds_send(b->notify_chan[1], &notify_fd, 1, &one, sizeof(one), 0);

	close(notify_fd);
	close(b->notify_chan[1]);
	b->notify_chan[1] = -1;
	if (rc < 0)
		return sbx_diag_set(d, rc, "handing the broker its requests: %s", strerror(-rc));
	return 0;
}

/* ---- the supervisor, outside ----------------------------------------------------------------- */

static void answer(int notify_fd, uint64_t id, int err)
{
	struct seccomp_notif_resp resp = {.id = id, .error = err ? -err : 0};

	/* ENOENT: the command's thread is gone or was interrupted; nothing waits for it. */
	ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* The thread group of tid, from /proc/TID/status; -1 when it cannot be read. */
static pid_t tgid_of(pid_t tid)
{
	char buf[1024], *p;

	if (!sbx_proc_read(tid, "status", buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\nTgid:");
	return p ? (pid_t)strtol(p + 6, NULL, 10) : -1;
}

static bool still_valid(int notify_fd, uint64_t id)
{
	return ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* The absolute, normalized path of a socket address, relative ones from the command's cwd. */
static int socket_path(pid_t pid, const struct sockaddr_un *sun, socklen_t len, char **out)
{
	size_t n = len - offsetof(struct sockaddr_un, sun_path);
	char raw[sizeof(sun->sun_path) + 1], cwd[SBX_MAX_PATH], link[48];
	ssize_t c;
	int r;

	if (n > sizeof(sun->sun_path))
		return -EINVAL; /* decide() refuses it first: never past raw */
	memcpy(raw, sun->sun_path, n);
	raw[n] = '\0'; /* the kernel reads up to the first NUL too */
	if (raw[0] != '/') {
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
		c = readlink(link, cwd, sizeof(cwd));
		/* Filling the buffer may have cut it short: no name of the directory then. */
		if (c <= 0 || c >= (ssize_t)sizeof(cwd))
			return -EACCES;
		cwd[c] = '\0';
	}
	/* The pure part (lib/unixaddr.c, fuzzed). */
	r = sbx_unix_address_path(raw, n, raw[0] == '/' ? NULL : cwd, out);
	return r;
}

/* The broker's own refusal, to the denial report when there is one. */
static void refused(const struct sbx_broker *b, pid_t pid, const char *what, int err,
		    enum sbx_broker_why why)
{
	/* "unix:" and the longest path, each byte of it "\xHH" at worst, or a formatted address. */
	char address[4 * SBX_MAX_PATH + 8];

	if (!b->on_refused)
		return;
	if (what[0] == '/')
		sbx_format_unix_path(what, address, sizeof(address));
	else
		snprintf(address, sizeof(address), "%s", what);
	b->on_refused(b->on_refused_arg, pid, address, err, why);
}

/*
 * Decides one request. Returns 0 with *rq filled for the connector, or an errno to answer
 * with now.
 */
static int decide(struct sbx_broker *b, const struct seccomp_notif *n, int sock, struct req *rq)
{
	const uint64_t len = n->data.args[2];
	struct sockaddr_storage ss;
	struct iovec local = {&ss, 0}, remote = {(void *)(uintptr_t)n->data.args[1], 0};
	char *path = NULL;
	int domain, rc;
	socklen_t ol = sizeof(domain);

	if (getsockopt(sock, SOL_SOCKET, SO_DOMAIN, &domain, &ol) < 0)
		return errno;
	if (len > sizeof(ss) || len < sizeof(sa_family_t))
		return EINVAL;
	/* The address, read once; the connect is made on this copy. */
	memset(&ss, 0, sizeof(ss));
	local.iov_len = remote.iov_len = (size_t)len;
	if (process_vm_readv((pid_t)n->pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return EFAULT;
	rq->id = n->id;
	rq->pid = (int32_t)n->pid;
	rq->addrlen = (uint32_t)len;
	rq->op = OP_ADDRESS;
	if (domain != AF_UNIX) {
		/* Inside a network namespace, or with the network enabled: its own rules hold. */
		if (!b->other_families) {
			refused(b, (pid_t)n->pid,
				domain == AF_INET6  ? "AF_INET6"
				: domain == AF_INET ? "AF_INET"
						    : "?",
				EPERM, SBX_BROKER_FAMILY);
			return EPERM;
		}
		rq->u.addr = ss;
		return 0;
	}
	/*
	 * As the kernel reads a Unix address (unix_validate_addr): one longer than its struct is
	 * EINVAL before any path is looked at, and nothing here reads past its struct either.
	 */
	if (len > sizeof(struct sockaddr_un))
		return EINVAL;
	rq->u.addr = ss;
	if (abstract_address(rq) && b->no_abstract) {
		char address[SBX_MAX_PATH + 16];

		sbx_format_sockaddr(&ss, (size_t)len, address, sizeof(address));
		refused(b, (pid_t)n->pid, address, EPERM, SBX_BROKER_HOST_ABSTRACT);
		return EPERM;
	}
	/* Abstract and unnamed addresses are no file: the connector's Landlock domain decides. */
	if (ss.ss_family != AF_UNIX || len <= offsetof(struct sockaddr_un, sun_path) ||
	    ((struct sockaddr_un *)&ss)->sun_path[0] == '\0')
		return 0;
	rc = socket_path((pid_t)n->pid, (struct sockaddr_un *)&ss, (socklen_t)len, &path);
	if (rc < 0)
		return -rc;
	rc = EACCES;
	for (size_t i = 0; i < b->n_places; i++) {
		/* What follows the place, whole or refused (never cut short to another name). */
		int k = sbx_unix_beneath(b->places[i].path, path, rq->u.rel, sizeof(rq->u.rel));

		if (k == 0)
			continue;
		rq->op = OP_PLACE;
		rq->place = (uint32_t)i;
		rc = k < 0 ? -k : 0;
		break;
	}
	if (rc == EACCES)
		refused(b, (pid_t)n->pid, path, EACCES, SBX_BROKER_NOT_ALLOWED);
	free(path);
	return rc;
}

/* The supervisor's watch on the notification listener: one request at a time, never waiting. */
static int on_request(void *arg, int fd)
{
	struct sbx_broker *b = arg;
	struct seccomp_notif n;
	struct req rq;
	pid_t tgid;
	int pidfd = -1, sock = -1, err;

	memset(&n, 0, sizeof(n));
	if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &n) < 0)
		return errno == EINTR || errno == ENOENT ? 0 : 1;
	memset(&rq, 0, sizeof(rq));
	/* The descriptor table is the thread group's: pidfd_open wants its leader. */
	tgid = tgid_of((pid_t)n.pid);
	if (tgid > 0)
		pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	/* A pid reused after the request ended would name another process: check it is alive. */
	if (pidfd < 0 || !still_valid(fd, n.id)) {
		err = ESRCH;
		goto done;
	}
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, (int)n.data.args[0], 0);
	if (sock < 0) {
		err = errno == EBADF ? EBADF : EPERM;
		goto done;
	}
	err = decide(b, &n, sock, &rq);
	if (!err && !still_valid(fd, n.id))
		err = ESRCH;
	if (!err) {
		int rc = sbx_fds_send(b->chan[0], &sock, 1, &rq, sizeof(rq), MSG_DONTWAIT);

		if (rc == 0) {
			close(sock);
			close(pidfd);
			return 0; /* the connector answers */
		}
		err = ECONNREFUSED; /* the connector is gone: refused, never let through */
	}
done:
	if (sock >= 0)
		close(sock);
	if (pidfd >= 0)
		close(pidfd);
	answer(fd, n.id, err);
	return 0;
}

/* The connector's answers. */
static int on_reply(void *arg, int fd)
{
	struct sbx_broker *b = arg;
	struct reply rp;
	ssize_t got = recv(fd, &rp, sizeof(rp), MSG_DONTWAIT);

	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
		return 1;
	if (got != (ssize_t)sizeof(rp))
		return 0;
	if (rp.why == SBX_BROKER_NOT_FOLLOWED && rp.rq.op == OP_PLACE &&
	    rp.rq.place < b->n_places) {
		const char *place = b->places[rp.rq.place].path;
		char *path = NULL;

		rp.rq.u.rel[sizeof(rp.rq.u.rel) - 1] = '\0';
		if (asprintf(&path, "%s%s%s", place, strcmp(place, "/") ? "/" : "", rp.rq.u.rel) >=
		    0)
			refused(b, rp.rq.pid, path, rp.err, SBX_BROKER_NOT_FOLLOWED);
		free(path);
	} else if (rp.why == SBX_BROKER_SCOPED && rp.rq.op == OP_ADDRESS &&
		   abstract_address(&rp.rq)) {
		char address[SBX_MAX_PATH + 16];

		sbx_format_sockaddr(&rp.rq.u.addr, rp.rq.addrlen, address, sizeof(address));
		refused(b, rp.rq.pid, address, rp.err, SBX_BROKER_SCOPED);
	}
	if (b->notify_fd >= 0)
		answer(b->notify_fd, rp.id, rp.err);
	return 0;
}

/* The listener comes from init once its filter is loaded: watch it from then on. */
static int on_listener(void *arg, int fd)
{
	struct sbx_broker *b = arg;
	size_t n = 0;
	char one;
	int nfd = -1;

	/* The ends init and the connector hold are theirs alone from now on. */
	if (b->chan[1] >= 0)
		close(b->chan[1]);
	if (b->notify_chan[1] >= 0)
		close(b->notify_chan[1]);
	b->chan[1] = b->notify_chan[1] = -1;
	if (sbx_fds_recv(fd, &nfd, 1, &n, &one, sizeof(one), MSG_DONTWAIT) == 0 && n == 1) {
		b->notify_fd = nfd;
		if (sbx_supervise_watch(nfd, on_request, b) < 0)
			close(nfd), b->notify_fd = -1;
	}
	close(fd);
	return 1;
}

int sbx_broker_prepare(struct sbx_broker *b, struct sbx_diag *d)
{
	int err, rc;

	b->notify_fd = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, b->chan) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, b->notify_chan) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "the Unix socket broker's channels: %s",
				    strerror(err));
	}
	rc = sbx_supervise_watch(b->notify_chan[0], on_listener, b);
	if (rc == 0)
		rc = sbx_supervise_watch(b->chan[0], on_reply, b);
	if (rc < 0)
		return sbx_diag_set(d, rc, "the Unix socket broker: too many supervisor hooks");
	return 0;
}
