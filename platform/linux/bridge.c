/* SPDX-License-Identifier: MIT */
/*
 * bridge.c - the relay of managed networking with a proxy of the caller's (Codex's
 * --managed-network): each connection the command makes to a listener inside its network
 * namespace is joined to a new connection to the same address and port on the host, where the
 * proxy listens. Bytes only: nothing is parsed, and the only place it connects to is the
 * endpoint of the listener the connection came in on.
 *
 * One thread, poll(2), a fixed buffer per direction; a half-close is passed on (shutdown), so
 * request bodies that end with the client's write side work; an error on either side ends both.
 *
 * A direction whose read fills the buffer carries a large transfer: once its buffer has gone out
 * it moves the rest from socket to socket through a pipe with splice(2), so the bytes are never
 * copied through the bridge. On a machine with fewer cores than processes in the path (command,
 * bridge, proxy, server) the bridge's copies are CPU the download waits for. A direction that
 * cannot have a pipe (out of descriptors) keeps its buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "linux/netns.h"

/* The pipe of a spliced direction: as large as the per-user pipe budget allows. */
#define SPLICE_PIPE_SIZE (256 * 1024)
/* Rounds of reading and writing per wake-up of one direction: enough to keep a transfer
 * streaming between polls, few enough that one busy transfer does not hold up the others. */
#define PUMP_ROUNDS 8

struct pipe_dir {
	char *buf;
	size_t len, off;
	int pipe[2];	   /* -1 until the direction is spliced */
	size_t piped, cap; /* bytes in the pipe, and what it holds */
	bool fast;	   /* a read filled the buffer: splice once the buffer is empty */
	bool pipe_full;	   /* a splice into the pipe found no room (see has_room) */
	bool eof;	   /* the source has ended */
	bool shut;	   /* and that was passed on */
};

struct conn {
	int fd[2];		/* [0] the command's side, [1] the proxy's */
	struct pipe_dir dir[2]; /* dir[0]: fd[0] -> fd[1]; dir[1]: fd[1] -> fd[0] */
	bool connecting;
	short idx[2]; /* where fd[i] sits in the poll set, -1 when not polled */
};

static void conn_free(struct conn *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		if (c->dir[i].pipe[0] >= 0) {
			close(c->dir[i].pipe[0]);
			close(c->dir[i].pipe[1]);
		}
		free(c->dir[i].buf);
	}
	free(c);
}

/* A non-blocking connection to ep on the host, under way. */
static int connect_ep(const struct sbx_loopback_ep *ep)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int s, one = 1;

	len = sbx_loopback_ep_sockaddr(ep, &ss);
	s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(s, (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS) {
		int err = errno;

		close(s);
		return -err;
	}
	return s;
}

static struct conn *conn_new(int client, const struct sbx_loopback_ep *ep)
{
	struct conn *c = calloc(1, sizeof(*c));
	int one = 1;

	if (!c) {
		close(client);
		return NULL;
	}
	c->fd[0] = client;
	c->fd[1] = connect_ep(ep);
	for (int i = 0; i < 2; i++)
		c->dir[i].pipe[0] = c->dir[i].pipe[1] = -1;
	c->connecting = true;
	c->dir[0].buf = malloc(SBX_BRIDGE_BUF);
	c->dir[1].buf = malloc(SBX_BRIDGE_BUF);
	if (c->fd[1] < 0 || !c->dir[0].buf || !c->dir[1].buf) {
		conn_free(c);
		return NULL;
	}
	setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return c;
}

/* Whether direction p moves through its pipe from now on; it gets one when it first can. */
static bool splicing(struct pipe_dir *p)
{
	int sz;

	if (p->pipe[0] >= 0)
		return true;
	if (!p->fast || p->len || p->eof)
		return false;
	if (pipe2(p->pipe, O_NONBLOCK | O_CLOEXEC) < 0) {
		p->pipe[0] = p->pipe[1] = -1;
		p->fast = false;
		return false;
	}
	/* Larger where the per-user pipe budget allows; the default size still works. */
	fcntl(p->pipe[1], F_SETPIPE_SZ, SPLICE_PIPE_SIZE);
	sz = fcntl(p->pipe[1], F_GETPIPE_SZ);
	p->cap = sz > 0 ? (size_t)sz : 4096;
	return true;
}

/*
 * One transfer from src into p (or from p to dst when out): the count, 0 at the end of the
 * source, -1 with errno. *dry: it moved less than it asked for, so the socket is drained (or
 * full) and trying it again before the next poll would only meet EAGAIN.
 */
static ssize_t move(struct pipe_dir *p, int fd, bool out, bool *dry)
{
	size_t ask;
	ssize_t n;

	if (p->pipe[0] >= 0) {
		ask = out ? p->piped : p->cap - p->piped;
		n = out ? splice(p->pipe[0], NULL, fd, NULL, ask, SPLICE_F_MOVE | SPLICE_F_NONBLOCK)
			: splice(fd, NULL, p->pipe[1], NULL, ask,
				 SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0)
			p->piped = out ? p->piped - (size_t)n : p->piped + (size_t)n;
		if (out && n > 0)
			p->pipe_full = false;
		else if (!out && n < 0 && errno == EAGAIN && p->piped)
			p->pipe_full = true;
	} else if (out) {
		ask = p->len - p->off;
		n = send(fd, p->buf + p->off, ask, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			p->off += (size_t)n;
		if (p->off == p->len)
			p->off = p->len = 0;
	} else {
		ask = SBX_BRIDGE_BUF - p->len;
		n = recv(fd, p->buf + p->len, ask, MSG_DONTWAIT);
		if (n > 0) {
			p->len += (size_t)n;
			p->fast |= p->len == SBX_BRIDGE_BUF;
		}
	}
	*dry = n != (ssize_t)ask;
	return n;
}

/*
 * A pipe holds its bytes in a fixed number of slots, one per piece of a socket buffer, so it can
 * be full with fewer bytes than its size: a splice into it that fails with EAGAIN while it holds
 * bytes counts it full until some go out (else poll would wake at once for a readable source,
 * again and again). It may have been the source that was empty; the bytes going out re-arm it.
 */
static bool has_room(const struct pipe_dir *p)
{
	if (p->eof)
		return false;
	if (p->pipe[0] >= 0)
		return p->piped < p->cap && !p->pipe_full;
	return p->len < SBX_BRIDGE_BUF;
}

static bool has_bytes(const struct pipe_dir *p)
{
	return p->piped || p->off < p->len;
}

/*
 * Moves what it can in direction k, for a few rounds at most, and no more system calls than it
 * takes: a source is read until it gives less than asked (drained), a destination written until
 * it takes less than offered (full). A side that was not polled for (no room, nothing to send)
 * is tried once there is room or something to send. Returns false when the connection is over.
 */
static bool pump(struct conn *c, int k, short rev_src, short rev_dst)
{
	struct pipe_dir *p = &c->dir[k];
	int src = c->fd[k], dst = c->fd[1 - k];
	bool dry = has_room(p) && !(rev_src & (POLLIN | POLLHUP | POLLERR));
	bool full = has_bytes(p) && !(rev_dst & (POLLOUT | POLLERR));

	for (int i = 0; i < PUMP_ROUNDS; i++) {
		bool moved = false;
		ssize_t n;

		splicing(p);
		if (!dry && has_room(p)) {
			n = move(p, src, false, &dry);
			if (n == 0)
				p->eof = true;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				return false;
			moved |= n > 0;
		}
		if (!full && has_bytes(p)) {
			n = move(p, dst, true, &full);
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return false;
			moved |= n > 0;
		}
		if (!moved)
			break;
	}
	if (p->eof && !has_bytes(p) && !p->shut) {
		shutdown(dst, SHUT_WR);
		p->shut = true;
	}
	return !(c->dir[0].shut && c->dir[1].shut);
}

static short want(const struct conn *c, int i)
{
	short ev = 0;

	if (c->connecting)
		return i == 1 ? POLLOUT : 0;
	/* fd[i] is the source of dir[i] and the destination of dir[1 - i]. */
	if (has_room(&c->dir[i]))
		ev |= POLLIN;
	if (has_bytes(&c->dir[1 - i]))
		ev |= POLLOUT;
	return ev;
}

int sbx_bridge_run(const int *listen_fds, const struct sbx_loopback_ep *eps, size_t n, int stop_fd,
		   struct sbx_diag *d)
{
	struct conn **conns = calloc(SBX_BRIDGE_MAX_CONNS, sizeof(*conns));
	struct pollfd *pfd = calloc(n + 1 + 2 * SBX_BRIDGE_MAX_CONNS, sizeof(*pfd));
	size_t nconns = 0;
	int rc = 0;

	if (!conns || !pfd) {
		free(conns);
		free(pfd);
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	}
	for (;;) {
		size_t np = 0;

		pfd[np++] = (struct pollfd){.fd = stop_fd, .events = POLLIN};
		for (size_t i = 0; i < n; i++)
			pfd[np++] = (struct pollfd){
				.fd = nconns < SBX_BRIDGE_MAX_CONNS ? listen_fds[i] : -1,
				.events = POLLIN};
		for (size_t k = 0; k < nconns; k++)
			for (int i = 0; i < 2; i++) {
				short ev = want(conns[k], i);

				conns[k]->idx[i] = ev ? (short)np : -1;
				if (ev)
					pfd[np++] = (struct pollfd){.fd = conns[k]->fd[i],
								    .events = ev};
			}
		if (poll(pfd, np, -1) < 0) {
			if (errno == EINTR)
				continue;
			rc = sbx_diag_set(d, -errno, "poll: %s", strerror(errno));
			break;
		}
		if (pfd[0].revents)
			break;
		for (size_t k = 0; k < nconns;) {
			struct conn *c = conns[k];
			short r0 = c->idx[0] >= 0 ? pfd[c->idx[0]].revents : 0;
			short r1 = c->idx[1] >= 0 ? pfd[c->idx[1]].revents : 0;
			bool alive = true;

			if (c->connecting && r1) {
				int err = 0;
				socklen_t el = sizeof(err);

				getsockopt(c->fd[1], SOL_SOCKET, SO_ERROR, &err, &el);
				alive = err == 0;
				c->connecting = false;
			} else if (!c->connecting) {
				alive = pump(c, 0, r0, r1) && pump(c, 1, r1, r0);
			}
			if (alive) {
				k++;
				continue;
			}
			conn_free(c);
			conns[k] = conns[--nconns];
		}
		for (size_t i = 0; i < n; i++) {
			int s;

			if (!(pfd[1 + i].revents & POLLIN))
				continue;
			while (nconns < SBX_BRIDGE_MAX_CONNS &&
			       (s = accept4(listen_fds[i], NULL, NULL,
					    SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
				struct conn *c = conn_new(s, &eps[i]);

				if (c)
					conns[nconns++] = c;
			}
		}
	}
	for (size_t k = 0; k < nconns; k++)
		conn_free(conns[k]);
	free(conns);
	free(pfd);
	return rc;
}
