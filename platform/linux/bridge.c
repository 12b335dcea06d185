/* SPDX-License-Identifier: MIT */
/*
 * bridge.c - the relay of managed networking with a proxy of the caller's (Codex's
 * --managed-network): each connection the command makes to a listener inside its network
 * namespace is joined to a new connection to the same address and port on the host, where the
 * proxy listens. Bytes only: nothing is parsed, and the only place it connects to is the
 * endpoint of the listener the connection came in on (for a variable's localhost, 127.0.0.1,
 * or [::1] where 127.0.0.1 refuses: see retry_v6).
 *
 * One thread, poll(2), a buffer per direction (grown once for a download, as the proxy's); a
 * half-close is passed on (shutdown), so request bodies that end with the client's write side
 * work; an error on either side ends both, the other with a reset (a cut never reaches the far
 * side as a clean end), and so does a failed connection to the proxy. Once the command's side
 * has failed on a write toward it, only what the command had sent goes on (conn_orphan).
 *
 * Asked to stop (the command has ended), it accepts no more and gives the connections in flight
 * SBX_BRIDGE_DRAIN_MS to finish: a command that sends, half-closes and exits without waiting for
 * the answer has its bytes in the bridge's buffers and socket queues still, and they go on to the
 * proxy. One whose command's side has ended and whose bytes the proxy's kernel all has ends at
 * once (delivered): the run does not wait on an answer no one will read. Those not done by then
 * are cut, with a reset both ways.
 * Bytes are copied through the buffer: measured on loopback, that costs the path less CPU per
 * byte than moving them socket to pipe to socket with splice(2) (tests/bench/README.md).
 *
 * With all SBX_BRIDGE_MAX_CONNS taken, a new client takes the place of the connection in which no
 * byte has moved either way for longest, if that is SBX_BRIDGE_EVICT_IDLE_MS or more (the
 * proxy's rule, SBX_PROXY_EVICT_IDLE_MS): 1024 idle connections would otherwise keep every new
 * one in the backlog for as long as they last; one that moves bytes keeps its place.
 *
 * Out of descriptors, the listeners rest for a moment rather than being polled again at once:
 * a connection that cannot be accepted keeps them readable, and poll(2) would return at once,
 * again and again, for as long as the limit holds. The connections wait in the backlog: the
 * socket to the host is made before a client is accepted, so none is accepted only to be
 * closed for want of it.
 */
#include <errno.h>
#include <netinet/in.h>
#include <linux/sockios.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "linux/netns.h"

/* Rounds of reading and writing per wake-up of one direction: enough to keep a transfer
 * streaming between polls, few enough that one busy transfer does not hold up the others. */
#define PUMP_ROUNDS 8
/* How long the listeners rest after accept(2) or socket(2) ran out of descriptors or memory. */
#define ACCEPT_PAUSE_MS 100
/* With every place taken, a connection silent this long gives its place to a new client. */
#define SBX_BRIDGE_EVICT_IDLE_MS 10000
/* While draining, how often a connection whose bytes are all sent is asked whether they came. */
#define DRAIN_POLL_MS 5

struct dir {
	char *buf;
	size_t cap;	 /* SBX_BRIDGE_BUF, or SBX_BRIDGE_BUF_MAX once a read filled it */
	size_t max;	 /* how far cap may grow: downloads only (dir[1]) */
	size_t len, off; /* the bytes still to go are buf[off, len) */
	bool eof;	 /* the source has ended */
	bool shut;	 /* and that was passed on */
};

struct conn {
	int fd[2];	   /* [0] the command's side, [1] the proxy's */
	int64_t moved;	   /* when a byte last moved either way, or the connection was made */
	struct dir dir[2]; /* dir[0]: fd[0] -> fd[1]; dir[1]: fd[1] -> fd[0] */
	bool connecting;
	short idx[2];			  /* where fd[i] sits in the poll set, -1 when not polled */
	const struct sbx_loopback_ep *ep; /* where fd[1] connects */
	bool on_v6;			  /* ep is localhost, and fd[1] now tries [::1] */
	bool unwritable;		  /* the write toward the command failed (conn_orphan) */
	int64_t until;			  /* and what it sent has until then to be delivered */
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void conn_free(struct conn *c)
{
	for (int i = 0; i < 2; i++) {
		if (c->fd[i] >= 0)
			close(c->fd[i]);
		free(c->dir[i].buf);
	}
	free(c);
}

/*
 * Ends c with a reset on both sides (SO_LINGER of zero): the far side of a stream that was cut
 * sees ECONNRESET, never the end of a stream that ended there.
 */
static void conn_abort(struct conn *c)
{
	const struct linger now = {.l_onoff = 1, .l_linger = 0};

	for (int i = 0; i < 2; i++)
		if (c->fd[i] >= 0)
			setsockopt(c->fd[i], SOL_SOCKET, SO_LINGER, &now, sizeof(now));
	conn_free(c);
}

/* A non-blocking socket for a connection to ep on the host, or -errno. */
static int socket_for(const struct sbx_loopback_ep *ep)
{
	struct sockaddr_storage ss;
	int s, one = 1;

	sbx_loopback_ep_sockaddr(ep, &ss);
	s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return s;
}

/*
 * A connection with its buffers, made before a client is accepted: out of memory, the client
 * waits in the backlog and no connection gives its place for it. NULL when memory is short.
 */
static struct conn *conn_reserve(void)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->fd[0] = c->fd[1] = -1;
	c->dir[0].buf = malloc(SBX_BRIDGE_BUF);
	c->dir[1].buf = malloc(SBX_BRIDGE_BUF);
	c->dir[0].cap = c->dir[1].cap = SBX_BRIDGE_BUF;
	/*
	 * Only what the proxy sends grows: the command's side stays at SBX_BRIDGE_BUF, so 1024
	 * connections that upload without end into an upstream that reads nothing hold 64 MiB
	 * there, not 256 (the proxy grows its download buffer alone too).
	 */
	c->dir[0].max = SBX_BRIDGE_BUF;
	c->dir[1].max = SBX_BRIDGE_BUF_MAX;
	if (!c->dir[0].buf || !c->dir[1].buf) {
		conn_free(c);
		return NULL;
	}
	return c;
}

/* Begins the connection of c->fd[1] to ep: 0, or -errno when it fails at once. */
static int conn_connect(struct conn *c, const struct sbx_loopback_ep *ep)
{
	struct sockaddr_storage ss;
	socklen_t len = sbx_loopback_ep_sockaddr(ep, &ss);

	c->connecting = true;
	if (connect(c->fd[1], (struct sockaddr *)&ss, len) < 0 && errno != EINPROGRESS)
		return -errno;
	return 0;
}

/*
 * A variable's localhost is 127.0.0.1 inside, where it is rewritten to that number, but on the
 * host it is whichever loopback the proxy listens on: one bound to "localhost" may have [::1]
 * alone (Node's, since 17), where a client that resolved the name itself would have reached
 * it. Refused on 127.0.0.1, the connection is made again to [::1], once: 0 when begun, or
 * -errno (err itself when there is nothing to try).
 */
static int retry_v6(struct conn *c, int err)
{
	struct sbx_loopback_ep v6;
	int up;

	if (err != ECONNREFUSED || !c->ep->localhost || c->ep->ipv6 || c->on_v6)
		return -err;
	v6 = (struct sbx_loopback_ep){.ipv6 = true, .addr = {[15] = 1}, .port = c->ep->port};
	up = socket_for(&v6);
	if (up < 0)
		return up;
	close(c->fd[1]);
	c->fd[1] = up;
	c->on_v6 = true;
	return conn_connect(c, &v6);
}

/*
 * c joins an accepted client to up, a socket_for(ep), which it connects: 0, or -errno when
 * that fails at once (c then holds both, for conn_free).
 */
static int conn_start(struct conn *c, int client, int up, const struct sbx_loopback_ep *ep)
{
	int one = 1, rc;

	c->fd[0] = client;
	c->fd[1] = up;
	c->ep = ep;
	c->moved = now_ms();
	rc = conn_connect(c, ep);
	if (rc < 0)
		rc = retry_v6(c, -rc);
	if (rc < 0)
		return rc;
	setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

/*
 * One transfer from fd into p (or from p to fd when out): the count, 0 at the end of the
 * source, -1 with errno. *dry: it moved less than it asked for, so the socket is drained (or
 * full) and trying it again before the next poll would only meet EAGAIN.
 */
static ssize_t move(struct dir *p, int fd, bool out, bool *dry)
{
	size_t ask;
	ssize_t n;

	if (out) {
		ask = p->len - p->off;
		n = send(fd, p->buf + p->off, ask, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0)
			p->off += (size_t)n;
		if (p->off == p->len)
			p->off = p->len = 0;
	} else {
		ask = p->cap - p->len;
		n = recv(fd, p->buf + p->len, ask, MSG_DONTWAIT);
		if (n > 0)
			p->len += (size_t)n;
		/* A read that fills the buffer shows a large transfer: the buffer grows, once. */
		if (n == (ssize_t)ask && p->cap < p->max) {
			char *nb = realloc(p->buf, p->max);

			if (nb) {
				p->buf = nb;
				p->cap = p->max;
			}
		}
	}
	*dry = n != (ssize_t)ask;
	return n;
}

static bool has_room(const struct dir *p)
{
	return !p->eof && p->len < p->cap;
}

static bool has_bytes(const struct dir *p)
{
	return p->off < p->len;
}

/*
 * Moves what it can in direction k, for a few rounds at most, and no more system calls than it
 * takes: a source is read until it gives less than asked (drained), a destination written until
 * it takes less than offered (full). A side that was not polled for (no room, nothing to send)
 * is tried once there is room or something to send. Returns 1 while the connection goes on, 0
 * when both directions have ended, -1 when a side failed; -2 when that was a write toward the
 * command after its end had come (conn_orphan).
 */
static int pump(struct conn *c, int k, short rev_src, short rev_dst)
{
	struct dir *p = &c->dir[k];
	int src = c->fd[k], dst = c->fd[1 - k];
	bool dry = has_room(p) && !(rev_src & (POLLIN | POLLHUP | POLLERR));
	bool full = has_bytes(p) && !(rev_dst & (POLLOUT | POLLERR));

	for (int i = 0; i < PUMP_ROUNDS; i++) {
		bool moved = false;
		ssize_t n;

		if (!dry && has_room(p)) {
			n = move(p, src, false, &dry);
			if (n == 0)
				p->eof = true;
			else if (n < 0 && errno != EAGAIN && errno != EINTR)
				return -1;
			moved |= n > 0;
		}
		if (!full && has_bytes(p)) {
			n = move(p, dst, true, &full);
			/*
			 * Toward the command, EPIPE: its reset came after its end (CLOSE_WAIT),
			 * every byte of it is here. ECONNRESET: before it, and the reads would
			 * now give an end it never sent: a cut.
			 */
			if (n < 0 && errno != EAGAIN && errno != EINTR)
				return k == 1 && errno == EPIPE ? -2 : -1;
			moved |= n > 0;
		}
		if (!moved)
			break;
		c->moved = now_ms();
	}
	if (p->eof && !has_bytes(p) && !p->shut) {
		shutdown(dst, SHUT_WR);
		p->shut = true;
	}
	return !(c->dir[0].shut && c->dir[1].shut);
}

/*
 * Draining: whether c has nothing left to deliver to the proxy: the command's side ended (the
 * command is gone), every byte of it was sent on with the end, and the proxy's kernel has
 * acknowledged all of them (SIOCOUTQ: the sequence numbers not acknowledged, the FIN one of
 * them). A reset then discards none: the proxy reads them, and the end, before it. The FIN
 * alone may be left: a kernel acknowledges it late (a delayed ACK, 40 ms) when it has nothing
 * to send, and it came with or after the last byte. What the proxy sends has no one to go to.
 */
static bool delivered(const struct conn *c)
{
	int q = 2;

	if (c->connecting || !c->dir[0].shut)
		return false;
	return ioctl(c->fd[1], SIOCOUTQ, &q) == 0 && q <= 1;
}

/*
 * A write toward the command failed: its kernel reset the connection, the far side having sent
 * after the command had ended. What the command sent, and its end, may still be on their way
 * to the proxy, some of it in this side's receive queue: those are read and passed on as
 * before, nothing more goes toward the command, and c stays until it is all delivered
 * (delivered: then a reset that discards nothing), for up to SBX_BRIDGE_DRAIN_MS. A read that
 * fails before the command's end, or what is not delivered by then, is cut (a reset).
 */
static void conn_orphan(struct conn *c, int64_t now)
{
	c->unwritable = true;
	c->dir[1].eof = c->dir[1].shut = true;
	c->dir[1].off = c->dir[1].len = 0;
	c->until = now + SBX_BRIDGE_DRAIN_MS;
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

/* Whether err is a shortage that passes (descriptors, memory) rather than a failure. */
static bool short_of(int err)
{
	return err == -EMFILE || err == -ENFILE || err == -ENOBUFS || err == -ENOMEM;
}

/* The connection in which no byte has moved for longest (k: its index); NULL for none. */
static struct conn *idlest(struct conn **conns, size_t n, size_t *k)
{
	struct conn *v = NULL;

	for (size_t i = 0; i < n; i++)
		if (!v || conns[i]->moved < v->moved) {
			v = conns[i];
			*k = i;
		}
	return v;
}

int sbx_bridge_run(const int *listen_fds, const struct sbx_loopback_ep *eps, size_t n, int stop_fd,
		   struct sbx_diag *d)
{
	struct conn **conns = calloc(SBX_BRIDGE_MAX_CONNS, sizeof(*conns));
	struct pollfd *pfd = calloc(n + 1 + 2 * SBX_BRIDGE_MAX_CONNS, sizeof(*pfd));
	size_t nconns = 0;
	struct conn *reserved = NULL; /* made for a client that was not there (conn_reserve) */
	int64_t resume = 0;	      /* the listeners rest until then */
	int64_t drain = -1;	      /* once asked to stop: when what is in flight is cut */
	int rc = 0;

	if (!conns || !pfd) {
		free(conns);
		free(pfd);
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	}
	for (;;) {
		int64_t now = now_ms(), wake = resume;
		size_t np = 0, vk = 0;
		struct conn *v = nconns < SBX_BRIDGE_MAX_CONNS ? NULL : idlest(conns, nconns, &vk);
		/* Full: listen only once the idlest connection may give its place. */
		bool room = !v || now - v->moved >= SBX_BRIDGE_EVICT_IDLE_MS;
		bool listening = room && now >= resume && drain < 0;

		if (drain >= 0) {
			if (nconns == 0 || now >= drain)
				break;
			/* Bytes on their way, not yet acknowledged: asked again soon (delivered). */
			wake = now + DRAIN_POLL_MS < drain ? now + DRAIN_POLL_MS : drain;
		} else if (!room) {
			wake = v->moved + SBX_BRIDGE_EVICT_IDLE_MS;
		}
		/* A command's side gone, its bytes on their way: asked again soon (delivered). */
		for (size_t k = 0; k < nconns; k++)
			if (conns[k]->unwritable && (wake <= now || wake > now + DRAIN_POLL_MS))
				wake = now + DRAIN_POLL_MS;

		pfd[np++] = (struct pollfd){.fd = drain < 0 ? stop_fd : -1, .events = POLLIN};
		for (size_t i = 0; i < n; i++)
			pfd[np++] = (struct pollfd){.fd = listening ? listen_fds[i] : -1,
						    .events = POLLIN};
		for (size_t k = 0; k < nconns; k++)
			for (int i = 0; i < 2; i++) {
				short ev = want(conns[k], i);

				conns[k]->idx[i] = ev ? (short)np : -1;
				if (ev)
					pfd[np++] = (struct pollfd){.fd = conns[k]->fd[i],
								    .events = ev};
			}
		if (poll(pfd, np, now < wake ? (int)(wake - now) : -1) < 0) {
			if (errno == EINTR)
				continue;
			rc = sbx_diag_set(d, -errno, "poll: %s", strerror(errno));
			break;
		}
		/*
		 * Asked to stop: no new client, and the connections in flight have until the drain's
		 * end (see above). The round's events are still handled.
		 */
		if (pfd[0].revents)
			drain = now_ms() + SBX_BRIDGE_DRAIN_MS;
		for (size_t k = 0; k < nconns;) {
			struct conn *c = conns[k];
			short r0 = c->idx[0] >= 0 ? pfd[c->idx[0]].revents : 0;
			short r1 = c->idx[1] >= 0 ? pfd[c->idx[1]].revents : 0;
			int alive = 1;

			if (c->connecting && r1) {
				int err = 0;
				socklen_t el = sizeof(err);

				getsockopt(c->fd[1], SOL_SOCKET, SO_ERROR, &err, &el);
				c->connecting = false;
				/* Not connected: a reset, the client must not see a clean end. */
				alive = err == 0 || retry_v6(c, err) == 0 ? 1 : -1;
			} else if (c->unwritable) {
				/* What the command sent goes on, and only that (conn_orphan). */
				alive = pump(c, 0, r0, r1) < 0 || now_ms() >= c->until ? -1 : 1;
			} else if (!c->connecting) {
				alive = pump(c, 0, r0, r1);
				if (alive > 0)
					alive = pump(c, 1, r1, r0);
				if (alive == -2) {
					conn_orphan(c, now_ms());
					alive = 1;
				}
			}
			/*
			 * The run has ended, or nothing can go toward the command any more: a
			 * connection with nothing left to deliver ends now.
			 */
			if (alive > 0 && (drain >= 0 || c->unwritable) && delivered(c))
				alive = -1;
			if (alive > 0) {
				k++;
				continue;
			}
			if (alive < 0)
				conn_abort(c);
			else
				conn_free(c);
			conns[k] = conns[--nconns];
		}
		for (size_t i = 0; i < n && listening; i++) {
			if (!(pfd[1 + i].revents & POLLIN))
				continue;
			while (now >= resume) {
				int up, s = -1, err;
				struct conn *c;

				/* Full: a place only from one silent long enough (see above). */
				v = nconns < SBX_BRIDGE_MAX_CONNS ? NULL
								  : idlest(conns, nconns, &vk);
				if (v && now_ms() - v->moved < SBX_BRIDGE_EVICT_IDLE_MS)
					break;
				/*
				 * The connection and the socket to the host first: a client accepted
				 * without them would have to be closed, where it can as well wait in
				 * the backlog, and the idlest would have given its place for nothing.
				 * Its connection to the host ends before the new one is begun: a proxy
				 * there as full as this table (sbxrun's holds 1024 too) then has the
				 * place back, rather than give another client's for it.
				 */
				c = reserved ? reserved : conn_reserve();
				reserved = NULL;
				up = c ? socket_for(&eps[i]) : -ENOMEM;
				err = up;
				if (up >= 0) {
					s = accept4(listen_fds[i], NULL, NULL,
						    SOCK_NONBLOCK | SOCK_CLOEXEC);
					err = -errno;
				}
				if (s < 0) {
					if (up >= 0)
						close(up);
					reserved = c; /* kept for the next client, not made again */
					if (short_of(err))
						resume = now_ms() + ACCEPT_PAUSE_MS;
					if (err == -ECONNABORTED || err == -EINTR)
						continue;
					break;
				}
				if (v) {
					conn_free(v);
					conns[vk] = conns[--nconns];
				}
				if (conn_start(c, s, up, &eps[i]) < 0) {
					/* The host refused at once: the client too, a reset. */
					conn_abort(c);
					continue;
				}
				conns[nconns++] = c;
			}
		}
	}
	/* What the drain did not finish was cut: a reset, not an end. */
	for (size_t k = 0; k < nconns; k++)
		conn_abort(conns[k]);
	if (reserved)
		conn_free(reserved);
	free(conns);
	free(pfd);
	return rc;
}
