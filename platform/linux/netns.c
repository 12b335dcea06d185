/* SPDX-License-Identifier: MIT */
/*
 * netns.c - the sandbox's network namespace and the worker that serves its listeners (netns.h).
 *
 * Why the listening sockets are made inside and served from outside, rather than Codex's chain
 * (a TCP listener inside that connects through a Unix socket on the file system to a bridge on
 * the host): a socket belongs to the network namespace it was made in, whoever holds it. So one
 * listening socket made by init in the new namespace, bound to the address and port the proxy
 * has on the host, is all the sandbox needs; the worker accepts on it from the host's namespaces.
 * Nothing runs inside the sandbox on the network's behalf, no socket file is made on the host
 * (nothing to clean up after a SIGKILL, nothing a hostile run could plant or swap), the command
 * needs no Unix socket (seccomp refuses them), and with sbxrun's own proxy the proxy accepts the
 * command's connections directly: no byte is copied twice.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/netns.h"
#include "linux/sandbox.h"
#include "unix/proxy.h"

/* How long the worker has to finish what is in flight once the run has ended. */
#define WORKER_STOP_MS 2000

extern char **environ;

int sbx_netns_add_ep(struct sbx_netns *n, const struct sbx_loopback_ep *ep)
{
	for (size_t i = 0; i < n->n_eps; i++)
		if (n->eps[i].ipv6 == ep->ipv6 && n->eps[i].port == ep->port &&
		    memcmp(n->eps[i].addr, ep->addr, sizeof(ep->addr)) == 0) {
			/* One listener inside: localhost in any variable gives it the fallback. */
			n->eps[i].localhost = n->eps[i].localhost || ep->localhost;
			return 0;
		}
	if (n->n_eps >= SBX_MAX_LOOPBACK_EPS)
		return -ENOSPC;
	n->eps[n->n_eps++] = *ep;
	return 0;
}

/* ---- descriptors over a socket --------------------------------------------------------------- */

int sbx_fds_send(int sock, const int *fds, size_t n, const void *data, size_t len, int flags)
{
	union {
		char buf[CMSG_SPACE(SBX_NETNS_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = (void *)data, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
	struct cmsghdr *c;

	if (n > SBX_NETNS_FDS_MAX || len == 0)
		return -EINVAL;
	if (n > 0) {
		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(n * sizeof(int));
		memcpy(CMSG_DATA(c), fds, n * sizeof(int));
	}
	while (sendmsg(sock, &msg, MSG_NOSIGNAL | flags) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int sbx_fds_recv(int sock, int *fds, size_t cap, size_t *n, void *data, size_t len, int flags)
{
	union {
		char buf[CMSG_SPACE(SBX_NETNS_FDS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {.iov_base = data, .iov_len = len};
	struct msghdr msg = {.msg_iov = &iov,
			     .msg_iovlen = 1,
			     .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf)};
	ssize_t got;

	*n = 0;
	while ((got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | flags)) < 0)
		if (errno != EINTR)
			return -errno;
	if (got == 0)
		return -EPIPE;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
			if (*n < cap)
				fds[(*n)++] = fd;
			else
				close(fd);
		}
	}
	/* A cut message (control or data) is not what was sent: drop it whole. */
	if ((msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) || (size_t)got != len) {
		for (size_t i = 0; i < *n; i++)
			close(fds[i]);
		*n = 0;
		return -EBADMSG;
	}
	return 0;
}

/* ---- inside: the namespace ------------------------------------------------------------------- */

int sbx_netns_loopback_up(struct sbx_diag *d)
{
	struct ifreq ifr = {0};
	int fd, err = 0;

	/* A new network namespace has lo, down; up, it gets 127.0.0.1/8 and ::1 by itself. */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "socket for the loopback interface: %s",
				    strerror(err));
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		err = errno;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	if (!err && ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		err = errno;
	close(fd);
	if (err)
		return sbx_diag_set(d, -err, "bringing up the loopback interface: %s",
				    strerror(err));
	return 0;
}

socklen_t sbx_loopback_ep_sockaddr(const struct sbx_loopback_ep *ep, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (ep->ipv6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)ep->port);
		memcpy(&a->sin6_addr, ep->addr, 16);
		return sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)ep->port);
		memcpy(&a->sin_addr, ep->addr, 4);
		return sizeof(*a);
	}
}

int sbx_netns_listen(const struct sbx_loopback_ep *ep, int *fd, unsigned *port, struct sbx_diag *d)
{
	struct sockaddr_storage ss;
	socklen_t len;
	char where[64];
	int s, err;

	*fd = -1;
	sbx_loopback_ep_format(ep, where, sizeof(where));
	len = sbx_loopback_ep_sockaddr(ep, &ss);
	s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "socket for the bridge at %s: %s", where,
				    strerror(err));
	}
	/* The backlog holds the connections the worker has not accepted yet: many at once. */
	if (bind(s, (struct sockaddr *)&ss, len) < 0 || listen(s, SOMAXCONN) < 0 ||
	    getsockname(s, (struct sockaddr *)&ss, &len) < 0) {
		err = errno;
		close(s);
		return sbx_diag_set(d, -err,
				    "the bridge cannot listen at %s inside the sandbox: %s", where,
				    strerror(err));
	}
	*port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					       : ((struct sockaddr_in *)&ss)->sin_port);
	*fd = s;
	return 0;
}

/* Sets each "NAME=VALUE" of v in this process's environment (the command inherits it). */
static int put_env(const struct sbx_strv *v, struct sbx_diag *d)
{
	for (size_t i = 0; i < v->n; i++) {
		char *eq = strchr(v->v[i], '='), name[64];

		if (!eq) {
			unsetenv(v->v[i]); /* a name alone is one to remove */
			continue;
		}
		if ((size_t)(eq - v->v[i]) >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - v->v[i]), v->v[i]);
		if (setenv(name, eq + 1, 1) < 0)
			return sbx_diag_set(d, -ENOMEM, "out of memory setting %s", name);
	}
	return 0;
}

int sbx_netns_enter(struct sbx_netns *n, struct sbx_diag *d)
{
	int fds[SBX_MAX_LOOPBACK_EPS];
	struct sbx_strv env = {0};
	size_t made = 0;
	unsigned port = 0;
	int rc;

	close(n->stop[0]);
	close(n->stop[1]);
	rc = sbx_netns_loopback_up(d);
	for (size_t i = 0; rc == 0 && i < n->n_eps; i++) {
		rc = sbx_netns_listen(&n->eps[i], &fds[i], &port, d);
		if (rc == 0) {
			made++;
			n->eps[i].port = port; /* the one the kernel chose, for a port of 0 */
		}
	}
	if (rc == 0 && made > SBX_NETNS_FDS_MAX)
		rc = sbx_diag_set(d, -E2BIG, "more than %d endpoints to bridge", SBX_NETNS_FDS_MAX);
	if (rc == 0) {
		rc = sbx_fds_send(n->chan[1], fds, made, &made, sizeof(made), 0);
		if (rc < 0)
			sbx_diag_set(d, rc, "handing the bridge's sockets over: %s", strerror(-rc));
	}
	for (size_t i = 0; i < made; i++)
		close(fds[i]);
	close(n->chan[1]);
	if (rc < 0)
		return rc;
	/* What the command connects to: the listeners, by number. */
	if (n->proxy)
		rc = sbx_proxy_env_own(&n->eps[0], n->local_binding, &env);
	else
		rc = sbx_proxy_env_rewrite(environ, &env);
	if (rc < 0)
		rc = sbx_diag_set(d, rc, "cannot set the proxy variables: %s", sbx_strerror(rc));
	else
		rc = put_env(&env, d);
	sbx_strv_clear(&env);
	return rc;
}

/* ---- outside: the worker --------------------------------------------------------------------- */

/*
 * Closes every descriptor above the standard streams but those in keep: the worker inherits the
 * supervisor's (its channel to init, the look-ups' descriptors, the signalfd) and needs none.
 */
static void close_others(const int *keep, size_t n)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	int self = dir ? dirfd(dir) : -1;

	while (dir && (e = readdir(dir))) {
		int fd = atoi(e->d_name);
		bool kept = fd <= STDERR_FILENO || fd == self || e->d_name[0] == '.';

		for (size_t i = 0; !kept && i < n; i++)
			kept = keep[i] == fd;
		if (!kept)
			close(fd);
	}
	if (dir)
		closedir(dir);
}

/*
 * A Landlock domain of its own for the worker: the whole file system readable (the resolver
 * reads /etc), nothing writable (its log is open already), no TCP rule (it connects out).
 */
static int worker_landlock(struct sbx_diag *d)
{
	struct sbx_landlock *ll = NULL;
	int abi = sbx_landlock_abi(), root, rc;

	if (abi < 1)
		return 0;
	rc = sbx_landlock_create(abi, true, false, &ll, d);
	root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rc == 0 && root < 0)
		rc = sbx_diag_set(d, -errno, "opening /");
	if (rc == 0)
		rc = sbx_landlock_add_fd(ll, root, SBX_LL_READ, "/", d);
	if (rc == 0)
		rc = sbx_landlock_restrict_self(ll, d);
	if (root >= 0)
		close(root);
	sbx_landlock_free(ll);
	return rc;
}

/*
 * Waits for init's listeners on chan, or for the end of the run on stop (init failed before it
 * sent them, and said why). The number of listeners, or 0 when there is nothing to serve.
 */
static size_t worker_listeners(const struct sbx_netns *n, int chan, int *fds)
{
	struct pollfd pfd[2] = {{.fd = chan, .events = POLLIN},
				{.fd = n->stop[0], .events = POLLIN}};
	size_t nfds = 0, count = 0;

	while (poll(pfd, 2, -1) < 0)
		if (errno != EINTR)
			return 0;
	if (pfd[1].revents || !(pfd[0].revents & POLLIN))
		return 0;
	if (sbx_fds_recv(chan, fds, SBX_NETNS_FDS_MAX, &nfds, &count, sizeof(count), 0) < 0 ||
	    count != nfds || nfds != n->n_eps) {
		for (size_t i = 0; i < nfds; i++)
			close(fds[i]);
		return 0;
	}
	return nfds;
}

/*
 * The signals that end a run are the supervisor's to act on, never the worker's: it stops the
 * worker when the run ends (stop_worker). A terminal's Ctrl-C, Ctrl-\ or hangup reaches the
 * whole process group, the worker too; killed by it, the worker took the proxy from a command
 * that lived on (one that ignores SIGINT, as a build that cleans up may), and the line of each
 * transfer in flight from the log.
 *
 * The supervisor gone (a SIGKILL of sbxrun: PR_SET_PDEATHSIG sends SIGCONT, the worker already
 * given to another parent), the worker is given what the run's normal end gives it,
 * WORKER_STOP_MS, and no more: SIGALRM, given back its default action, then ends it. Meanwhile the
 * last holder of the stop pipe's write end is gone, so the proxy stops as at the end of a run,
 * and the transfers in flight (whose clients died with the sandbox's PID namespace) are each
 * written to the log, as cut, before it ends.
 */
static volatile pid_t supervisor;

static void on_end_signal(int sig)
{
	static volatile sig_atomic_t armed;

	(void)sig;
	/* Once: another signal (the caller's uid may send one) does not put the end off. */
	if (getppid() == supervisor || armed)
		return;
	armed = 1;
	/* SIGALRM was caught (a caller's to the group); from now on it ends the worker. */
	signal(SIGALRM, SIG_DFL);
	alarm((WORKER_STOP_MS + 999) / 1000);
}

/*
 * The worker. It is forked before the sandbox's child is cloned, while the supervisor is still
 * one thread: a process forked from a threaded one keeps every lock another thread held at that
 * moment, held for ever, and the supervisor of a reported run has its tracer's thread (sandbox.h),
 * which allocates as it traces. A worker forked then waited for good in its first malloc() when
 * the tracer's held an allocator's lock (AddressSanitizer's has no fork handler): the command's
 * connections were never accepted.
 */
static __attribute__((noreturn)) void worker_main(struct sbx_netns *n, pid_t parent)
{
	int fds[SBX_NETNS_FDS_MAX], chan = n->chan[0];
	struct sbx_diag d;
	sigset_t none;
	size_t nfds;
	int rc;

	sbx_diag_clear(&d);
	/*
	 * Never outlive the run for long: the supervisor's death ends the worker
	 * (on_end_signal). The handlers are in place before the death signal is armed. They
	 * cover every signal the supervisor forwards (supervise.c) whose default action would
	 * end the worker: `kill -USR1 %1` reaches the whole job, the worker too. SIGALRM among
	 * them: on_end_signal gives it back its default action when it arms the alarm.
	 */
	supervisor = parent;
	{
		const int ends[] = {SIGCONT, SIGTERM, SIGINT,  SIGQUIT,
				    SIGHUP,  SIGUSR1, SIGUSR2, SIGALRM};
		struct sigaction sa = {.sa_handler = on_end_signal, .sa_flags = SA_RESTART};

		sigemptyset(&sa.sa_mask);
		for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++)
			if (sigaction(ends[i], &sa, NULL) < 0)
				_exit(125);
	}
	/*
	 * SIGCONT: the one signal besides SIGKILL that a stopped worker acts on. A job stopped
	 * by Ctrl-Z stops the worker with it; a SIGKILL of sbxrun then (an OOM kill, a CI's
	 * timeout) left it stopped, the death signal pending, for as long as nothing continued
	 * the job. A `fg` sends it too, and the handler tells the two apart by getppid().
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGCONT) < 0 || getppid() != parent)
		_exit(125);
	/* Its own name in ps, not the command's that the supervisor goes by. */
	prctl(PR_SET_NAME, (unsigned long)(n->proxy ? "sbxrun-proxy" : "sbxrun-bridge"), 0, 0, 0);
	{
		int keep[] = {chan,	  n->stop[0], n->proxy ? n->proxy->log_fd : -1,
			      n->keep[0], n->keep[1], n->keep[2]};

		close_others(keep, sizeof(keep) / sizeof(*keep));
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Its log's writes fail and are counted rather than end it (a closed pipe, a size limit). */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	/*
	 * It parses what the command sends: no capability (root's included), no way to gain one,
	 * and no file it may write. It needs none of them to accept, to connect out and to write
	 * its log.
	 */
	if (sbx_caps_drop_all(&d) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    worker_landlock(&d) < 0) {
		fprintf(stderr, "sbxrun: the network bridge cannot start: %s\n", d.msg);
		_exit(125);
	}
	/* Two descriptors a connection; the command is not this process's child (its own limit). */
	sbx_proxy_raise_nofile();
	nfds = worker_listeners(n, chan, fds);
	close(chan);
	if (nfds == 0)
		_exit(0);
	if (n->proxy)
		rc = sbx_proxy_run(n->proxy, fds[0], n->stop[0], &d);
	else
		rc = sbx_bridge_run(fds, n->eps, nfds, n->stop[0], &d);
	if (rc < 0) {
		fprintf(stderr, "sbxrun: the network bridge stopped: %s\n", d.msg);
		_exit(125);
	}
	_exit(0);
}

/* The exit hook: the run has ended; the worker finishes what is in flight, or is killed. */
static int stop_worker(void *arg, int *wstatus)
{
	struct sbx_netns *n = arg;
	/* Short: a worker with nothing in flight ends at once, and every run waits for it. */
	struct timespec tick = {0, 1000 * 1000};

	(void)wstatus;
	if (n->worker <= 0)
		return 0;
	if (write(n->stop[1], "", 1) < 0) {
		/* the worker is gone already: waitpid below finds it */
	}
	for (int t = 0; t < WORKER_STOP_MS; t++) {
		if (waitpid(n->worker, NULL, WNOHANG) != 0)
			return 0;
		nanosleep(&tick, NULL);
	}
	kill(n->worker, SIGKILL);
	while (waitpid(n->worker, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}

int sbx_netns_prepare(struct sbx_netns *n, struct sbx_diag *d)
{
	pid_t parent = getpid();
	int err, rc;

	n->worker = -1;
	n->chan[0] = n->chan[1] = n->stop[0] = n->stop[1] = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, n->chan) < 0 ||
	    pipe2(n->stop, O_CLOEXEC) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "the network bridge's channel: %s", strerror(err));
	}
	rc = sbx_supervise_on_exit(stop_worker, n);
	if (rc < 0)
		return sbx_diag_set(d, rc, "the network bridge: too many supervisor hooks");
	n->worker = fork();
	if (n->worker < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "cannot start the network bridge: %s", strerror(err));
	}
	if (n->worker == 0)
		worker_main(n, parent);
	/*
	 * The worker has its copy of the shared memory; init, cloned next, must not: it and
	 * whatever it forks (the command before its execve, the broker's connector) would hold a
	 * writable view of the counts the report gives. Refused rather than run with it shared.
	 */
	if (n->shared && madvise(n->shared, n->shared_len, MADV_DONTFORK) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "the network bridge's shared memory: madvise: %s",
				    strerror(err));
	}
	/* The worker's end: init (cloned next) and the command never hold it. */
	close(n->chan[0]);
	n->chan[0] = -1;
	return 0;
}
