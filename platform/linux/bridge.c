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
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "linux/netns.h"

struct pipe_dir {
	char *buf;
	size_t len, off;
	bool eof;  /* the source has ended */
	bool shut; /* and that was passed on */
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

/* Moves what it can in direction k; returns false when the connection is over. */
static bool pump(struct conn *c, int k, short rev_src, short rev_dst)
{
	struct pipe_dir *p = &c->dir[k];
	int src = c->fd[k], dst = c->fd[1 - k];
	ssize_t n;

	if ((rev_src & (POLLIN | POLLHUP | POLLERR)) && !p->eof && p->len < SBX_BRIDGE_BUF) {
		n = recv(src, p->buf + p->len, SBX_BRIDGE_BUF - p->len, MSG_DONTWAIT);
		if (n > 0)
			p->len += (size_t)n;
		else if (n == 0)
			p->eof = true;
		else if (errno != EAGAIN && errno != EINTR)
			return false;
	}
	if ((rev_dst & (POLLOUT | POLLERR)) && p->off < p->len) {
		n = send(dst, p->buf + p->off, p->len - p->off, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			p->off += (size_t)n;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			return false;
	}
	if (p->off == p->len)
		p->off = p->len = 0;
	if (p->eof && p->len == 0 && !p->shut) {
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
	if (!c->dir[i].eof && c->dir[i].len < SBX_BRIDGE_BUF)
		ev |= POLLIN;
	if (c->dir[1 - i].len > c->dir[1 - i].off)
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
