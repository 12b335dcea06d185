/* SPDX-License-Identifier: MIT */
/*
 * proxy.c - the proxy's event loop: one thread, poll(2), every connection a small state machine.
 *
 *   HEAD -> (decide) -> RESOLVE -> CONNECT -> FORWARD -> HEAD (kept alive), or LINGER
 *                                          \-> TUNNEL (CONNECT) -> closed
 *   any of them -> REPLY (the proxy's own 4xx or 5xx) -> LINGER -> closed
 *
 * A request is decided once, on the host and port of its target, before anything is resolved or
 * connected; the upstream connection is to exactly the addresses that decision allowed. Bodies
 * are relayed only as far as their framing says they go (lib/http.c), so a request that follows
 * one in the same stream is parsed and decided on its own. Each exchange gets a fresh upstream
 * connection (a kept-alive one could be reused for a host the next request is not allowed); the
 * client's connection is kept alive between exchanges when both sides frame their messages.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "unix/proxy.h"

#ifdef MSG_NOSIGNAL
#define SEND_FLAGS MSG_NOSIGNAL /* a vanished peer is an error to handle, not a SIGPIPE */
#else
#define SEND_FLAGS 0 /* macOS: SO_NOSIGPIPE on each socket instead */
#endif

/* Out of descriptors, the listener rests this long instead of spinning (see accept_clients). */
#define ACCEPT_PAUSE_MS 100
/* Connections accepted per wake-up, so that a flood of them cannot starve the others. */
#define ACCEPT_BATCH 64
/* Rounds of relay() per wake-up of one connection: enough to keep a transfer streaming, few
 * enough that one busy transfer does not hold up the other connections. */
#define RELAY_ROUNDS 8

/*
 * A pipe as the log (report_open_fd opens one non-blocking): a confined command may hold it open
 * and never read, and the loop never waits on it. Lines wait in memory for it, LOG_QUEUE_MAX
 * bytes at most, written as it takes them; one that takes nothing for LOG_STALL_MS is taken to
 * have stopped: what waits is dropped, and so is every line it has no room for, until it takes
 * one again. A line is never torn: the rest of one the pipe took in part is written before any
 * other. What was not written is counted, by cause, and said once when the proxy stops.
 */
#define LOG_STALL_MS  5000
#define LOG_QUEUE_MAX (1u << 20)

static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

/* ---- buffers -------------------------------------------------------------------------------- */

struct buf {
	char *p;
	size_t off, len, cap; /* the data is p[off, len) */
};

static size_t used(const struct buf *b)
{
	return b->len - b->off;
}

static char *data(const struct buf *b)
{
	return b->p + b->off;
}

static void consume(struct buf *b, size_t n)
{
	b->off += n;
	if (b->off == b->len)
		b->off = b->len = 0;
}

/* Makes room at the end by moving the data to the front; false when the buffer is full. */
static bool room(struct buf *b)
{
	if (b->len < b->cap)
		return true;
	if (b->off == 0)
		return false;
	memmove(b->p, b->p + b->off, b->len - b->off);
	b->len -= b->off;
	b->off = 0;
	return true;
}

static int buf_alloc(struct buf *b, size_t cap)
{
	b->p = malloc(cap);
	b->off = b->len = 0;
	b->cap = b->p ? cap : 0;
	return b->p ? 0 : -ENOMEM;
}

/* Appends to a buffer that grows (the heads and replies the proxy writes). */
static int append(struct buf *b, const char *s, size_t n)
{
	if (b->cap - b->len < n) {
		char *np;

		if (b->off) {
			memmove(b->p, b->p + b->off, b->len - b->off);
			b->len -= b->off;
			b->off = 0;
		}
		if (b->cap - b->len < n) {
			np = realloc(b->p, b->len + n);
			if (!np)
				return -ENOMEM;
			b->p = np;
			b->cap = b->len + n;
		}
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	return 0;
}

static void buf_reset(struct buf *b)
{
	b->off = b->len = 0;
}

static void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

/* ---- connections ---------------------------------------------------------------------------- */

enum state { ST_HEAD, ST_RESOLVE, ST_CONNECT, ST_FORWARD, ST_TUNNEL, ST_REPLY, ST_LINGER, ST_DEAD };

struct conn {
	struct sbx_proxy *px;
	int cfd, ufd;
	int spare; /* a descriptor kept for the upstream socket while there is none; -1 */
	enum state st;
	char client[64];
	struct buf in;	 /* from the client: the request head, then body bytes or tunnel bytes */
	struct buf uin;	 /* from the upstream */
	struct buf out;	 /* to the client before uin's bytes: response heads, the proxy's replies */
	struct buf uout; /* to the upstream before in's bytes: the rewritten request head */
	size_t in_fwd;	 /* bytes at the front of in that may go upstream */
	size_t uin_fwd;	 /* bytes at the front of uin that may go to the client */
	struct sbx_http_scan scan, rscan;
	struct sbx_http_req req;
	struct sbx_http_resp resp;
	struct sbx_http_chunked qch, rch;
	uint64_t qleft, rleft;
	bool served;	   /* an exchange was completed: the connection is kept alive */
	bool head_started; /* a byte of the next request has arrived */
	bool parsed;	   /* req holds the request being served */
	bool req_done, resp_head, resp_done;
	bool relayed; /* bytes of the upstream's response went out: no reply of our own now */
	bool close_after, client_eof, client_shut, up_eof, up_shut;
	bool pending;	 /* an allowed decision to log when its exchange ends */
	bool cdry, udry; /* the last read of that side got less than it asked: drained */
	const char *decision;
	const char *cut; /* why the exchange ended before its end (sbx_proxy_event), or NULL */
	char rule[SBX_AUTHORITY_MAX + 96];
	int status;
	uint64_t bytes;
	struct sbx_resolved addrs;
	int next_addr, last_err;
	int64_t fd_wait_end; /* while out of descriptors: when waiting for one ends; 0 if not */
	int64_t head_since;  /* in ST_HEAD: since when it has waited for a request head */
	int64_t moved;	     /* in ST_FORWARD and ST_TUNNEL: when a byte last moved either way */
	int64_t resolve_end; /* in ST_RESOLVE: when the lookup times out */
	struct sbx_resolve_job *job;
	unsigned ugen;	  /* counts upstream sockets: a poll result is for the one it was for */
	int64_t deadline; /* monotonic milliseconds; 0 for none */
};

enum slot_kind { SLOT_LISTEN, SLOT_RESOLVER, SLOT_CLIENT, SLOT_UPSTREAM, SLOT_LOG };

/* The log's lines, and those a pipe has not taken (see LOG_STALL_MS). */
struct logq {
	bool pipe;
	int reader; /* the file opened for reading (sbx_log_reader), or -1 */
	char *q;    /* q[head, len): whole lines waiting, off bytes of the first written */
	size_t head, off, len, cap;
	int64_t since; /* when the pipe last took bytes, or when q filled from empty */
	bool stalled;  /* its reader took nothing for LOG_STALL_MS */
	size_t lines;  /* lines meant for the log */
	/* Lines not written: its reader stopped, too many waited, the proxy stopped first, or
	 * write(2) failed (with err, the first such error). */
	size_t stopped, full, late, failed;
	int err;
	/*
	 * Lines a file took only the start of (its file system full, a size limit): with
	 * torn_err, the first such error. torn_nl: the last one has no end yet, and the next
	 * line written begins with a newline, so that it stays a line of its own.
	 */
	size_t torn;
	int torn_err;
	bool torn_nl;
};

struct slot {
	enum slot_kind kind;
	struct conn *c;
	unsigned ugen;
};

struct sbx_proxy {
	struct sbx_proxy_config cfg;
	int lfd;
	bool stopping;
	int64_t drain_deadline, accept_resume;
	struct conn **conns;
	size_t n, cap;
	struct conn *reserved; /* made for a client that was not there after all (conn_reserve) */
	struct sbx_resolver *res;
	struct slot *slots;
	size_t cap_slots;
	/*
	 * Written to cfg.log_fd. Lines dropped or failed count nothing: they are not on the
	 * disk the limit keeps, and a reader that took none for a while would otherwise leave
	 * the rest of the run unlogged.
	 */
	size_t log_bytes;
	bool log_full; /* past cfg.log_max: said once, nothing more written */
	struct logq log;
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void setup_socket(int fd, bool tcp)
{
	int one = 1;

	fcntl(fd, F_SETFD, FD_CLOEXEC);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
#ifdef SO_NOSIGPIPE
	setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof(one));
#endif
	/* Heads and short replies go out at once rather than waiting for more to coalesce. */
	if (tcp)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static void log_failed(struct logq *l, size_t lines, int err)
{
	l->failed += lines;
	if (!l->err)
		l->err = err;
}

/* The lines in q[from, len), dropped and counted in *count. */
static void log_drop(struct logq *l, size_t from, size_t *count)
{
	for (size_t i = from; i < l->len; i++)
		*count += l->q[i] == '\n';
	l->len = from;
	if (l->head == l->len)
		l->head = l->len = l->off = 0;
}

/* The waiting lines but the one begun, which a reader that comes back still reads whole. */
static void log_drop_waiting(struct logq *l, size_t *count)
{
	size_t cut = l->head;

	if (l->off)
		cut += (size_t)((char *)memchr(l->q + l->head, '\n', l->len - l->head) -
				(l->q + l->head)) +
		       1;
	log_drop(l, cut, count);
}

/* Bytes that wait for the pipe, written or dropped later. */
static size_t log_waiting(const struct logq *l)
{
	return l->len - l->head - l->off;
}

/* Writes what the pipe takes now, a line at a time. */
static void log_flush(struct sbx_proxy *px)
{
	struct logq *l = &px->log;

	while (l->head < l->len) {
		const char *line = l->q + l->head;
		size_t len = (size_t)((char *)memchr(line, '\n', l->len - l->head) - line) + 1;
		ssize_t w = write(px->cfg.log_fd, line + l->off, len - l->off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w <= 0) {
			/* Its reader closed it (EPIPE: SIGPIPE is ignored), or worse: none gets through. */
			int err = w < 0 ? errno : EIO;
			size_t lost = 0;

			log_drop(l, l->head, &lost);
			log_failed(l, lost, err);
			break;
		}
		l->since = now_ms();
		l->stalled = false;
		px->log_bytes += (size_t)w;
		l->off += (size_t)w;
		if (l->off == len) {
			l->head += len;
			l->off = 0;
		}
	}
	if (l->head == l->len)
		l->head = l->len = l->off = 0;
	if (l->stalled)
		log_drop_waiting(l, &l->stopped);
}

/*
 * Why a write(2) to a file took less than it was given (it says no error): the process's size
 * limit where the file has reached it, else a full file system.
 */
static int short_write_err(int fd)
{
	struct rlimit rl;
	struct stat st;

	if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    fstat(fd, &st) == 0 && (rlim_t)st.st_size >= rl.rlim_cur)
		return EFBIG;
	return ENOSPC;
}

int sbx_log_reader(int fd)
{
#ifdef __linux__
	struct stat st, rt;
	char path[64];
	int r;

	/*
	 * Standard error (a "-" path) is the caller's, shared with the command's output and its
	 * own: a last byte that is no newline there is no torn line of ours, and ending it would
	 * add a byte to their output. Only what this process left torn is ended there.
	 */
	if (fd <= STDERR_FILENO || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	r = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	/* The same file, or none: /proc may not be the process file system it should be. */
	if (r >= 0 && (fstat(r, &rt) < 0 || rt.st_dev != st.st_dev || rt.st_ino != st.st_ino)) {
		close(r);
		r = -1;
	}
	return r;
#else
	(void)fd;
	return -1;
#endif
}

bool sbx_log_ends_torn(int fd, int reader, bool own_torn)
{
	struct stat st;
	char last;

	if (reader < 0)
		return own_torn;
	return fstat(fd, &st) == 0 && st.st_size > 0 &&
	       pread(reader, &last, 1, st.st_size - 1) == 1 && last != '\n';
}

/*
 * A file, or standard error as the caller gave it: each line written as it comes, in one
 * write(2), on a descriptor opened O_APPEND, so that the lines of runs sharing the file stay
 * whole; a line is never finished by a second write, which another run's line could precede.
 * A file whose file system fills up (or a size limit) takes the start of a line and fails the
 * rest: that line is counted apart, and the next line this proxy writes ends it first.
 */
static void log_put_file(struct sbx_proxy *px, const char *line, size_t len)
{
	struct logq *l = &px->log;
	const char *s = line;
	char *nl = NULL;
	size_t n = len;
	ssize_t w;

	l->torn_nl = sbx_log_ends_torn(px->cfg.log_fd, l->reader, l->torn_nl);
	if (l->torn_nl && (nl = malloc(len + 1))) {
		nl[0] = '\n';
		memcpy(nl + 1, line, len);
		s = nl;
		n = len + 1;
	}
	do
		w = write(px->cfg.log_fd, s, n);
	while (w < 0 && errno == EINTR);
	free(nl);
	if (w > 0)
		px->log_bytes += (size_t)w;
	if (w == (ssize_t)n) {
		l->torn_nl = l->torn_nl && !nl;
		return;
	}
	if (w <= 0) {
		log_failed(l, 1, w < 0 ? errno : EIO);
		return;
	}
	l->torn_nl = true;
	if (nl && w == 1) {
		/* Only the newline that ends the torn line went: this one was not written. */
		l->torn_nl = false;
		log_failed(l, 1, short_write_err(px->cfg.log_fd));
		return;
	}
	l->torn++;
	if (!l->torn_err)
		l->torn_err = short_write_err(px->cfg.log_fd);
}

/* One line (newline-ended) to the log: appended to a file, queued for a pipe. */
static void log_put(struct sbx_proxy *px, const char *line, size_t len)
{
	struct logq *l = &px->log;

	l->lines++;
	if (!l->pipe) {
		log_put_file(px, line, len);
		return;
	}
	log_flush(px);
	if (l->stalled && l->head < l->len) {
		l->stopped++; /* the begun line is still not out: no room for one more */
		return;
	}
	if (len > LOG_QUEUE_MAX - (l->len - l->head)) {
		l->full++;
		return;
	}
	if (l->head && l->len + len > l->cap) {
		memmove(l->q, l->q + l->head, l->len - l->head);
		l->len -= l->head;
		l->head = 0;
	}
	if (l->len + len > l->cap) {
		size_t cap = l->cap ? l->cap : 16384;
		char *q;

		while (cap < l->len + len)
			cap *= 2;
		q = realloc(l->q, cap);
		if (!q) {
			log_failed(l, 1, ENOMEM);
			return;
		}
		l->q = q;
		l->cap = cap;
	}
	if (l->len == l->head)
		l->since = now_ms();
	memcpy(l->q + l->len, line, len);
	l->len += len;
	log_flush(px);
}

/* A pipe that has taken nothing for LOG_STALL_MS: its reader has stopped. */
static void log_check(struct sbx_proxy *px, int64_t now)
{
	struct logq *l = &px->log;

	if (l->head < l->len && !l->stalled && now - l->since >= LOG_STALL_MS) {
		l->stalled = true;
		log_drop_waiting(l, &l->stopped);
	}
}

/*
 * The proxy has stopped: what waits for the pipe gets cfg.log_end_ms more at most, as long as
 * its reader takes some within LOG_STALL_MS; what is left then is dropped. Then what was not
 * written, one line for each cause.
 */
static void log_finish(struct sbx_proxy *px)
{
	struct logq *l = &px->log;
	int64_t end = now_ms() + px->cfg.log_end_ms;
	const char *what = px->cfg.log_what;
	size_t n = l->lines;

	while (l->pipe && l->head < l->len) {
		struct pollfd pfd = {.fd = px->cfg.log_fd, .events = POLLOUT};
		int64_t now = now_ms(), left = l->since + LOG_STALL_MS - now;

		if (l->stalled || left <= 0) {
			log_drop(l, l->head, &l->stopped);
			break;
		}
		if (end - now <= 0) {
			log_drop(l, l->head, &l->late);
			break;
		}
		if (end - now < left)
			left = end - now;
		if (poll(&pfd, 1, (int)left) < 0 && errno != EINTR) {
			log_drop(l, l->head, &l->late);
			break;
		}
		log_flush(px);
	}
	if (l->stopped)
		fprintf(stderr,
			"sbxrun: %s: %zu of %zu lines were not written: the pipe's reader stopped "
			"reading\n",
			what, l->stopped, n);
	if (l->full)
		fprintf(stderr,
			"sbxrun: %s: %zu of %zu lines were not written: more than %u MiB of lines "
			"waited for the pipe's reader\n",
			what, l->full, n, LOG_QUEUE_MAX >> 20);
	if (l->late)
		fprintf(stderr,
			"sbxrun: %s: %zu of %zu lines were not written: the pipe's reader had not "
			"taken them when the proxy stopped\n",
			what, l->late, n);
	if (l->failed)
		fprintf(stderr, "sbxrun: %s: %zu of %zu lines were not written: %s\n", what,
			l->failed, n,
			l->err == EPIPE ? "the pipe's reader closed it" : strerror(l->err));
	/* A torn last line is closed, if the file takes a byte again (room was made). */
	if (!l->pipe && px->cfg.log_fd >= 0 &&
	    sbx_log_ends_torn(px->cfg.log_fd, l->reader, l->torn_nl) &&
	    write(px->cfg.log_fd, "\n", 1) == 1)
		l->torn_nl = false;
	if (l->reader >= 0)
		close(l->reader);
	if (l->torn)
		fprintf(stderr,
			"sbxrun: %s: %zu of %zu lines were written only in part, the file taking "
			"no "
			"more: %s\n",
			what, l->torn, n, strerror(l->torn_err));
	free(l->q);
	memset(l, 0, sizeof(*l));
	l->reader = -1;
}

static void log_decision(struct conn *c)
{
	struct sbx_proxy *px = c->px;
	struct sbx_proxy_event ev = {0};
	struct timespec ts;
	struct tm tm;
	char t[48], ms[16];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(ms, sizeof(ms), ".%03dZ", (int)(ts.tv_nsec / 1000000 % 1000));
	strcat(t, ms);
	ev.time = t;
	ev.client = c->client;
	if (c->parsed) {
		ev.method = c->req.method;
		ev.host = c->req.host.name;
		ev.port = c->req.port;
	}
	ev.decision = c->decision;
	ev.rule = c->rule;
	ev.status = c->status;
	ev.bytes = c->bytes;
	ev.cut = c->cut;
	if (px->cfg.log_fd >= 0) {
		char *line = sbx_proxy_log_line(&ev);

		size_t len = line ? strlen(line) : 0;

		/* What waits for a pipe will be written, or dropped and then not counted. */
		if (line && px->cfg.log_max && !px->log_full &&
		    len > px->cfg.log_max - px->log_bytes - log_waiting(&px->log)) {
			px->log_full = true;
			fprintf(stderr,
				"sbxrun: %s: past the limit of %zu MiB; later decisions are not "
				"logged\n",
				px->cfg.log_what, px->cfg.log_max >> 20);
		}
		if (line && !px->log_full)
			log_put(px, line, len);
		free(line);
	}
	if (px->cfg.on_decision)
		px->cfg.on_decision(px->cfg.on_decision_arg, &ev);
	c->pending = false;
	c->bytes = 0;
	c->cut = NULL;
}

/*
 * A descriptor held in reserve, or -1 when none is left: a duplicate of the resolver's pipe,
 * which the proxy holds anyway; only its place in the table matters. (Not of the listener: a
 * duplicate would keep it listening after its owner closed it.)
 */
static int spare(struct sbx_proxy *px)
{
	if (!px->res && sbx_resolver_new(&px->res) < 0)
		return -1;
	return fcntl(sbx_resolver_notify_fd(px->res), F_DUPFD_CLOEXEC, 0);
}

static void drop_upstream(struct conn *c)
{
	if (c->job) {
		sbx_resolver_cancel(c->px->res, c->job);
		c->job = NULL;
	}
	if (c->ufd >= 0) {
		close(c->ufd);
		c->ufd = -1;
		/* Kept again for the next exchange's upstream (see accept_clients). */
		if (c->st != ST_DEAD)
			c->spare = spare(c->px);
	}
	buf_reset(&c->uin);
	buf_reset(&c->uout);
	c->uin_fwd = 0;
	c->up_eof = c->up_shut = false;
}

static void close_conn(struct conn *c)
{
	if (c->st == ST_DEAD)
		return;
	if (c->pending)
		log_decision(c);
	c->st = ST_DEAD; /* first: drop_upstream keeps no spare for a connection that ends */
	drop_upstream(c);
	if (c->cfd >= 0)
		close(c->cfd);
	c->cfd = -1;
	if (c->spare >= 0)
		close(c->spare);
	c->spare = -1;
}

/*
 * The connection ends before its exchange did: why goes to the log line ("upstream", "client",
 * "timeout", "stopped"), so that a body that was cut is never logged as one that was whole. The
 * client sees the cut too: the connection closes before the framing's end (or the tunnel's).
 */
static void cut_conn(struct conn *c, const char *why)
{
	if (c->st != ST_DEAD && !c->cut)
		c->cut = why;
	close_conn(c);
}

/* Shuts our side, then reads and drops what the client still sends: see SBX_PROXY_LINGER_MS. */
static void linger(struct conn *c)
{
	drop_upstream(c);
	if (c->client_eof) {
		close_conn(c);
		return;
	}
	shutdown(c->cfd, SHUT_WR);
	buf_reset(&c->in);
	c->in_fwd = 0;
	c->st = ST_LINGER;
	c->deadline = now_ms() + c->px->cfg.linger_ms;
}

/*
 * The proxy's own response: a status and a one-line body, then the connection closes. decision
 * and rule are those of the log line (NULL keeps the allowed decision, for upstream failures).
 */
__attribute__((format(printf, 5, 6))) static void
reply(struct conn *c, int status, const char *decision, const char *rule, const char *fmt, ...)
{
	char body[512], head[256];
	va_list ap;
	int n, h;

	drop_upstream(c);
	buf_reset(&c->out);
	va_start(ap, fmt);
	n = vsnprintf(body, sizeof(body) - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n > sizeof(body) - 2)
		n = sizeof(body) - 2;
	body[n++] = '\n';
	body[n] = '\0';
	h = snprintf(head, sizeof(head),
		     "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\n"
		     "Content-Length: %d\r\nConnection: close\r\n\r\n",
		     status, sbx_http_reason(status), n);
	if (decision)
		c->decision = decision;
	if (rule)
		snprintf(c->rule, sizeof(c->rule), "%s", rule);
	if (append(&c->out, head, (size_t)h) < 0 ||
	    (!(c->parsed && c->req.is_head) && append(&c->out, body, (size_t)n) < 0)) {
		/*
		 * No memory for the answer: the decision is logged and counted all the same, the
		 * client getting none (status null) and the connection closed, cut "memory".
		 */
		c->status = 0;
		c->cut = "memory";
		log_decision(c);
		close_conn(c);
		return;
	}
	c->status = status;
	log_decision(c);
	c->st = ST_REPLY;
	c->deadline = now_ms() + c->px->cfg.head_timeout_ms;
}

static void authority(const struct conn *c, char *buf, size_t n)
{
	sbx_host_authority(&c->req.host, buf, n);
}

/* ---- connecting ----------------------------------------------------------------------------- */

static void connected(struct conn *c)
{
	if (!c->uin.p && buf_alloc(&c->uin, SBX_PROXY_BUF) < 0) {
		close_conn(c);
		return;
	}
	if (c->req.is_connect) {
		if (append(&c->out, established, sizeof(established) - 1) < 0) {
			close_conn(c);
			return;
		}
		c->status = 200;
		c->st = ST_TUNNEL;
	} else {
		c->st = ST_FORWARD;
	}
	c->moved = now_ms();
	c->deadline = c->moved + c->px->cfg.idle_timeout_ms;
}

/*
 * Out of descriptors for the upstream socket: the reserve kept at accept time can be taken by
 * the resolver's threads, whose look-ups open files of their own. The connection waits in
 * ST_CONNECT without a socket and tries again every ACCEPT_PAUSE_MS, for at most the connect
 * time-out, as a client waits in the backlog; false once that time is over.
 */
static bool fd_wait(struct conn *c)
{
	int64_t now = now_ms();

	if (!c->fd_wait_end)
		c->fd_wait_end = now + c->px->cfg.connect_timeout_ms;
	if (now >= c->fd_wait_end)
		return false;
	c->st = ST_CONNECT;
	c->ufd = -1;
	c->deadline = now + ACCEPT_PAUSE_MS;
	return true;
}

/* Tries the next allowed address; replies 502 (504 on time-outs) when none is left. */
static void try_connect(struct conn *c)
{
	char auth[SBX_AUTHORITY_MAX];

	while (c->next_addr < c->addrs.n) {
		int i = c->next_addr++, fam = c->addrs.family[i], fd;
		struct sockaddr_storage ss = {0};
		socklen_t sl;

		if (fam == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t)c->req.port);
			memcpy(&s4->sin_addr, c->addrs.addr[i], 4);
			sl = sizeof(*s4);
		} else {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((uint16_t)c->req.port);
			memcpy(&s6->sin6_addr, c->addrs.addr[i], 16);
			sl = sizeof(*s6);
		}
		if (c->spare >= 0) {
			close(c->spare); /* its place is the socket's */
			c->spare = -1;
		}
		fd = socket(fam, SOCK_STREAM, 0);
		if (fd < 0 && (errno == EMFILE || errno == ENFILE) && fd_wait(c)) {
			c->next_addr--; /* the same address again, once a descriptor is free */
			return;
		}
		if (fd < 0) {
			c->last_err = errno;
			continue;
		}
		c->fd_wait_end = 0;
		setup_socket(fd, true);
		c->ugen++;
		if (connect(fd, (struct sockaddr *)&ss, sl) == 0) {
			c->ufd = fd;
			connected(c);
			return;
		}
		if (errno == EINPROGRESS) {
			c->ufd = fd;
			c->st = ST_CONNECT;
			c->deadline = now_ms() + c->px->cfg.connect_timeout_ms;
			return;
		}
		c->last_err = errno;
		close(fd);
	}
	authority(c, auth, sizeof(auth));
	reply(c, c->last_err == ETIMEDOUT ? 504 : 502, NULL, NULL,
	      "sbxrun: cannot connect to %s port %u: %s", auth, c->req.port,
	      strerror(c->last_err ? c->last_err : EHOSTUNREACH));
}

static void connect_done(struct conn *c)
{
	int err = 0;
	socklen_t l = sizeof(err);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &l) < 0)
		err = errno;
	if (err == 0) {
		connected(c);
		return;
	}
	c->last_err = err;
	close(c->ufd);
	c->ufd = -1;
	try_connect(c);
}

/* An error of this host's (its limits, its memory), not of the file or directory named. */
static bool host_failure(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM || err == ENOBUFS || err == EAGAIN ||
	       err == EINTR;
}

/*
 * Keeps the addresses an allowed name may lead to: public ones that no interface of this host
 * holds; a localhost name's loopback ones; any with allow_private. Without that check, an
 * allowed name that resolves to 127.0.0.1, to 169.254.169.254 or to this host's own public
 * address (by design or by DNS rebinding) would open the services of the host or its network.
 * The addresses kept are the ones connected to: nothing is resolved again.
 */
static void resolved(struct conn *c, const struct sbx_resolved *res)
{
	char auth[SBX_AUTHORITY_MAX], refused[64] = "", denied[64] = "";
	const char *refused_class = NULL;
	const struct sbx_domain_pattern *deny = NULL;

	authority(c, auth, sizeof(auth));
	/*
	 * Out of descriptors or memory says nothing of the file, nor of the name: this host
	 * failed the request, which may be made again, and the rule that allowed it stands.
	 * "Read", not "open": memory may run out part way through the file, after the open.
	 */
	if (host_failure(res->hosts_errno)) {
		reply(c, 503, NULL, NULL,
		      "sbxrun: cannot look up host %s: this host cannot read /etc/hosts now (%s); "
		      "try again later",
		      auth, strerror(res->hosts_errno));
		return;
	}
	if (res->hosts_errno) {
		char rule[96];

		snprintf(rule, sizeof(rule), "cannot read /etc/hosts (%s)",
			 strerror(res->hosts_errno));
		reply(c, 403, "deny", rule,
		      "sbxrun: host %s is refused: /etc/hosts, which may name it, cannot be read "
		      "(%s)",
		      auth, strerror(res->hosts_errno));
		return;
	}
	if (res->gai_error) {
		reply(c, 502, NULL, NULL, "sbxrun: cannot resolve host %s: %s", auth,
		      gai_strerror(res->gai_error));
		return;
	}
	memset(&c->addrs, 0, sizeof(c->addrs));
	for (int i = 0; i < res->n; i++) {
		size_t len = res->family[i] == AF_INET ? 4 : 16;
		const char *cls = sbx_addr_class(res->addr[i], len);
		const struct sbx_domain_pattern *d = sbx_domain_policy_denies_addr(
			c->px->cfg.policy, res->addr[i], len, c->req.port);

		/* Deny wins over the name too: a denied address is never connected to. */
		if (d) {
			if (!deny) {
				deny = d;
				sbx_addr_format(res->addr[i], len, denied, sizeof(denied));
			}
			continue;
		}
		if (!cls && res->local[i])
			cls = "an address of this host";
		/* A public address that may be this host's: nothing to connect to is known. */
		if (!cls && res->ifaddrs_errno && !c->px->cfg.allow_private) {
			reply(c, 503, NULL, NULL,
			      "sbxrun: cannot list this host's addresses, to tell whether host %s "
			      "leads to one: %s",
			      auth, strerror(res->ifaddrs_errno));
			return;
		}
		if (cls && !c->px->cfg.allow_private &&
		    !(strcmp(cls, "loopback") == 0 && sbx_host_is_localhost(&c->req.host))) {
			if (!refused_class) {
				refused_class = cls;
				sbx_addr_format(res->addr[i], len, refused, sizeof(refused));
			}
			continue;
		}
		c->addrs.family[c->addrs.n] = res->family[i];
		memcpy(c->addrs.addr[c->addrs.n++], res->addr[i], 16);
	}
	if (c->addrs.n == 0 && deny) {
		char rule[sizeof(c->rule)];

		snprintf(rule, sizeof(rule), "deny %s", deny->text);
		/* Both kinds: private addresses allowed, the others would be connected to. */
		if (refused_class)
			reply(c, 403, "deny", rule,
			      "sbxrun: host %s resolves only to denied and non-public addresses "
			      "(%s is denied by --deny-domain %s, %s is %s); the non-public ones "
			      "are refused unless private addresses are allowed",
			      auth, denied, deny->text, refused, refused_class);
		else
			reply(c, 403, "deny", rule,
			      "sbxrun: host %s resolves only to denied addresses (%s is denied by "
			      "--deny-domain %s)",
			      auth, denied, deny->text);
		return;
	}
	if (c->addrs.n == 0 && refused_class) {
		char rule[128];

		snprintf(rule, sizeof(rule), "non-public address %s (%s)", refused, refused_class);
		reply(c, 403, "deny", rule,
		      "sbxrun: host %s resolves only to non-public addresses (%s is %s); they are "
		      "refused unless private addresses are allowed",
		      auth, refused, refused_class);
		return;
	}
	c->next_addr = 0;
	c->last_err = 0;
	try_connect(c);
}

/* ---- the decision --------------------------------------------------------------------------- */

/* Whether an allow entry names this host for another port (for a clearer refusal). */
static bool allowed_on_other_port(const struct sbx_domain_policy *pol, const struct sbx_host *h)
{
	for (size_t i = 0; i < pol->n_allow; i++) {
		struct sbx_domain_pattern p = pol->allow[i];

		p.port = 0;
		if (sbx_domain_pattern_match(&p, h, 0))
			return true;
	}
	return false;
}

static void decide(struct conn *c)
{
	const struct sbx_domain_policy *pol = c->px->cfg.policy;
	struct sbx_net_decision dec;
	char auth[SBX_AUTHORITY_MAX], rule[sizeof(c->rule)];

	authority(c, auth, sizeof(auth));
	sbx_domain_policy_decide(pol, &c->req.host, c->req.port, &dec);
	/* An address allowed in one spelling is denied in another ([::ffff:10.0.0.5], 10.0.0.5). */
	if (dec.verdict == SBX_NET_ALLOW && c->req.host.kind != SBX_HOST_NAME) {
		const struct sbx_domain_pattern *d = sbx_domain_policy_denies_addr(
			pol, c->req.host.addr, c->req.host.kind == SBX_HOST_IPV4 ? 4 : 16,
			c->req.port);

		if (d) {
			dec.verdict = SBX_NET_DENY_LISTED;
			dec.rule = d;
		}
	}
	if (dec.verdict == SBX_NET_DENY_LISTED) {
		snprintf(rule, sizeof(rule), "deny %s", dec.rule->text);
		reply(c, 403, "deny", rule, "sbxrun: host %s is denied by --deny-domain %s", auth,
		      dec.rule->text);
		return;
	}
	if (dec.verdict == SBX_NET_NOT_ALLOWED) {
		if (allowed_on_other_port(pol, &c->req.host))
			reply(c, 403, "deny", "not in the allow list",
			      "sbxrun: port %u of host %s is not in the allow list", c->req.port,
			      auth);
		else
			reply(c, 403, "deny", "not in the allow list",
			      "sbxrun: host %s is not in the allow list", auth);
		return;
	}
	c->decision = "allow";
	snprintf(c->rule, sizeof(c->rule), "allow %s", dec.rule->text);
	c->pending = true;
	/* An IP literal is only allowed by an entry naming it exactly: nothing to resolve. */
	if (c->req.host.kind != SBX_HOST_NAME) {
		memset(&c->addrs, 0, sizeof(c->addrs));
		c->addrs.n = 1;
		c->addrs.family[0] = c->req.host.kind == SBX_HOST_IPV4 ? AF_INET : AF_INET6;
		memcpy(c->addrs.addr[0], c->req.host.addr, 16);
		c->next_addr = c->last_err = 0;
		try_connect(c);
		return;
	}
	if (!c->px->res && sbx_resolver_new(&c->px->res) < 0) {
		reply(c, 503, NULL, NULL, "sbxrun: cannot start a name resolver");
		return;
	}
	/* The lookup opens files of its own (hosts, resolv.conf) and a socket for a name
	 * server: the spare's place is its until the upstream socket takes one. */
	if (c->spare >= 0) {
		close(c->spare);
		c->spare = -1;
	}
	c->job = sbx_resolver_submit(c->px->res, c->req.host.name, c);
	if (!c->job) {
		reply(c, 503, NULL, NULL, "sbxrun: cannot start a name resolver");
		return;
	}
	c->st = ST_RESOLVE;
	c->resolve_end = now_ms() + c->px->cfg.resolve_timeout_ms;
	c->deadline = now_ms() + SBX_PROXY_RESOLVE_QUEUE_MS;
	if (c->deadline > c->resolve_end)
		c->deadline = c->resolve_end;
}

/* ---- the states ----------------------------------------------------------------------------- */

static void begin_exchange(struct conn *c)
{
	c->req_done = c->req.body == SBX_BODY_NONE;
	c->qleft = c->req.length;
	memset(&c->qch, 0, sizeof(c->qch));
	memset(&c->rch, 0, sizeof(c->rch));
	memset(&c->rscan, 0, sizeof(c->rscan));
	c->resp_head = c->resp_done = c->relayed = false;
	c->close_after = c->req.close || c->px->stopping;
	c->status = 0;
	c->bytes = 0;
}

/* Reads and decides one request head; true when the state changed. */
static bool step_head(struct conn *c)
{
	struct sbx_http_err e;
	size_t hl, n;
	char *head;
	int r;

	if (!used(&c->in)) {
		if (c->client_eof)
			close_conn(c);
		return false;
	}
	if (!c->head_started) {
		c->head_started = true;
		if (c->served)
			c->deadline = now_ms() + c->px->cfg.head_timeout_ms;
	}
	r = sbx_http_scan(&c->scan, data(&c->in), used(&c->in), true, &hl, &e);
	if (r == 0 && used(&c->in) == c->in.cap) {
		r = -1;
		e = (struct sbx_http_err){431, "message head larger than 65536 bytes"};
	}
	if (r == 0 && c->client_eof) {
		r = -1;
		e = (struct sbx_http_err){400, "incomplete request head"};
	}
	if (r == 0)
		return false;
	if (r == 1 && sbx_http_parse_request(data(&c->in), hl, 0, &c->req, &e) < 0)
		r = -1;
	if (r < 0) {
		reply(c, e.status, "invalid", e.msg, "sbxrun: %s", e.msg);
		return true;
	}
	c->parsed = true;
	begin_exchange(c);
	buf_reset(&c->uout);
	if (!c->req.is_connect) {
		/* Built now: the head's bytes in `in` are overwritten once it is consumed. */
		head = sbx_http_upstream_head(data(&c->in), &c->req, &n);
		if (!head || append(&c->uout, head, n) < 0) {
			free(head);
			close_conn(c);
			return true;
		}
		free(head);
	}
	consume(&c->in, hl);
	memset(&c->scan, 0, sizeof(c->scan));
	decide(c);
	return true;
}

/* The exchange is over: log it, and wait for the next request or close. */
static void exchange_done(struct conn *c)
{
	consume(&c->in, c->in_fwd); /* body bytes the upstream no longer wants */
	c->in_fwd = 0;
	log_decision(c);
	drop_upstream(c);
	/* A client that half-closed after pipelining more requests still gets their responses. */
	if (c->close_after || (c->client_eof && !used(&c->in)) || !c->req_done) {
		linger(c);
		return;
	}
	c->st = ST_HEAD;
	c->served = true;
	c->head_started = c->parsed = false;
	c->head_since = now_ms();
	c->deadline = c->head_since + c->px->cfg.keepalive_ms;
}

/* A failure of the upstream side: a reply if the client has seen nothing yet, else a cut. */
static void upstream_failed(struct conn *c, const char *what)
{
	if (c->st == ST_FORWARD && !c->relayed)
		reply(c, 502, NULL, NULL, "sbxrun: %s", what);
	else
		cut_conn(c, "upstream");
}

static bool step_forward(struct conn *c)
{
	struct sbx_http_err e;
	size_t hl, u, n, avail;
	char *head;
	int r;

	/* The request body, as far as its framing goes; what follows is the next request. */
	avail = used(&c->in) - c->in_fwd;
	if (!c->req_done && avail) {
		if (c->req.body == SBX_BODY_LENGTH) {
			u = c->qleft < avail ? (size_t)c->qleft : avail;
			c->qleft -= u;
			r = c->qleft == 0;
		} else {
			r = sbx_http_chunked_feed(&c->qch, data(&c->in) + c->in_fwd, avail, &u, &e);
			if (r < 0) {
				if (c->relayed)
					cut_conn(c, "client");
				else
					reply(c, 400, "invalid", e.msg, "sbxrun: %s", e.msg);
				return false;
			}
		}
		c->in_fwd += u;
		c->req_done = r == 1;
	}
	if (!c->req_done && c->client_eof && used(&c->in) == c->in_fwd) {
		cut_conn(c, "client"); /* the client left in the middle of its body */
		return false;
	}
	/*
	 * Response heads: 1xx ones are passed on and another head follows. The next head is
	 * read only once the client has taken the last one: an upstream that sends 1xx heads
	 * without end to a client that does not read would otherwise grow `out` without bound,
	 * where now `uin` fills and the upstream is no longer read.
	 */
	while (!c->resp_head && !used(&c->out)) {
		r = sbx_http_scan(&c->rscan, data(&c->uin), used(&c->uin), false, &hl, &e);
		if (r == 0 && used(&c->uin) == c->uin.cap) {
			r = -1;
			e.msg = "response head larger than 65536 bytes";
		}
		if (r == 0 && c->up_eof) {
			r = -1;
			e.msg = "the upstream server closed the connection without a response";
		}
		if (r == 0)
			break;
		if (r == 1 &&
		    sbx_http_parse_response(data(&c->uin), hl, c->req.is_head, &c->resp, &e) < 0)
			r = -1;
		if (r == 1 && c->resp.status == 101) {
			r = -1; /* Upgrade is never passed on, so this was not asked for */
			e.msg = "the upstream server switched protocols unasked";
		}
		if (r < 0) {
			upstream_failed(c, e.msg);
			return false;
		}
		if (c->resp.status >= 200) {
			/*
			 * The client's connection survives only when both messages are framed
			 * and the upstream did not answer before the request body ended.
			 */
			if (!c->req_done || c->resp.body == SBX_BODY_CLOSE || c->px->stopping)
				c->close_after = true;
			c->status = c->resp.status;
		}
		head = sbx_http_client_head(data(&c->uin), &c->resp,
					    c->resp.status >= 200 && c->close_after, &n);
		if (!head || append(&c->out, head, n) < 0) {
			free(head);
			close_conn(c);
			return false;
		}
		free(head);
		consume(&c->uin, hl);
		memset(&c->rscan, 0, sizeof(c->rscan));
		c->relayed = true;
		if (c->resp.status >= 200) {
			c->resp_head = true;
			c->rleft = c->resp.length;
			c->resp_done = c->resp.body == SBX_BODY_NONE;
		}
	}
	/* The response body. */
	avail = used(&c->uin) - c->uin_fwd;
	if (c->resp_head && !c->resp_done) {
		switch (c->resp.body) {
		case SBX_BODY_LENGTH:
			u = c->rleft < avail ? (size_t)c->rleft : avail;
			c->rleft -= u;
			c->uin_fwd += u;
			c->resp_done = c->rleft == 0;
			break;
		case SBX_BODY_CHUNKED:
			r = sbx_http_chunked_feed(&c->rch, data(&c->uin) + c->uin_fwd, avail, &u,
						  &e);
			if (r < 0) {
				cut_conn(c, "upstream");
				return false;
			}
			c->uin_fwd += u;
			c->resp_done = r == 1;
			break;
		default:
			c->uin_fwd += avail;
			c->resp_done = c->up_eof;
			break;
		}
		/*
		 * The upstream ended before its body did: every byte it sent goes to the client
		 * first, then the connection closes before the framing's end, so the client sees
		 * the cut at the very byte where the upstream's came.
		 */
		if (!c->resp_done && c->up_eof && !c->uin_fwd && !used(&c->out)) {
			cut_conn(c, "upstream");
			return false;
		}
	}
	if (c->resp_done && !used(&c->out) && !c->uin_fwd) {
		exchange_done(c);
		return true;
	}
	return false;
}

static bool step_tunnel(struct conn *c)
{
	c->in_fwd = used(&c->in);
	c->uin_fwd = used(&c->uin);
	/* Each direction ends on its own (half-close), the tunnel when both have. */
	if (c->client_eof && !c->in_fwd && !c->up_shut) {
		shutdown(c->ufd, SHUT_WR);
		c->up_shut = true;
	}
	if (c->up_eof && !c->uin_fwd && !used(&c->out) && !c->client_shut) {
		shutdown(c->cfd, SHUT_WR);
		c->client_shut = true;
	}
	if (c->up_shut && c->client_shut)
		close_conn(c);
	return false;
}

static void advance(struct conn *c)
{
	bool again = true;

	while (again && c->st != ST_DEAD) {
		switch (c->st) {
		case ST_HEAD:
			again = step_head(c);
			break;
		case ST_FORWARD:
			again = step_forward(c);
			break;
		case ST_TUNNEL:
			again = step_tunnel(c);
			break;
		case ST_REPLY:
			if (!used(&c->out))
				linger(c);
			again = false;
			break;
		case ST_LINGER:
			if (c->client_eof)
				close_conn(c);
			again = false;
			break;
		default:
			again = false;
			break;
		}
	}
}

/* ---- I/O ------------------------------------------------------------------------------------ */

static int conn_events(const struct conn *c, bool upstream);

static bool transient(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK || e == EINTR;
}

static void progress(struct conn *c);

/* What a read from the upstream came to: bytes (true), its end, or a failure. */
static bool upstream_got(struct conn *c, ssize_t n)
{
	if (n > 0) {
		progress(c);
		return true;
	}
	if (n == 0)
		c->up_eof = true;
	else if (!transient(errno))
		upstream_failed(c, strerror(errno));
	return false;
}

static void progress(struct conn *c)
{
	if (c->st == ST_FORWARD || c->st == ST_TUNNEL) {
		c->moved = now_ms();
		c->deadline = c->moved + c->px->cfg.idle_timeout_ms;
	}
}

/*
 * Reads into the room at the end of b: the count, 0 at the end of the stream, or -1 with errno
 * (EAGAIN also when b is full).
 */
static ssize_t pull(int fd, struct buf *b)
{
	ssize_t n;

	if (!room(b)) {
		errno = EAGAIN;
		return -1;
	}
	n = recv(fd, b->p + b->len, b->cap - b->len, 0);
	if (n > 0)
		b->len += (size_t)n;
	return n;
}

/*
 * Sends what goes first (a head or the proxy's own reply), then the bytes of relay that may go
 * (*fwd): the count, or -1 with errno (EAGAIN also when nothing is to go). *relayed: the bytes
 * came from relay.
 */
static ssize_t push(int fd, struct buf *first, struct buf *relay, size_t *fwd, bool *relayed)
{
	size_t len;
	ssize_t n;

	*relayed = !used(first);
	len = *relayed ? *fwd : used(first);
	if (!len) {
		errno = EAGAIN;
		return -1;
	}
	n = send(fd, *relayed ? data(relay) : data(first), len, SEND_FLAGS);
	if (n <= 0)
		return -1;
	if (*relayed) {
		consume(relay, (size_t)n);
		*fwd -= (size_t)n;
	} else {
		consume(first, (size_t)n);
	}
	return n;
}

/* The four transfers below return whether they moved any byte. */
static bool client_readable(struct conn *c)
{
	size_t asked = c->in.cap - used(&c->in);
	ssize_t n = pull(c->cfd, &c->in);

	c->cdry = n < (ssize_t)asked;
	if (n > 0) {
		if (c->st == ST_LINGER)
			buf_reset(&c->in);
		progress(c);
		return true;
	}
	if (n == 0)
		c->client_eof = true;
	else if (!transient(errno))
		cut_conn(c, "client");
	return false;
}

static bool client_writable(struct conn *c)
{
	bool relayed;
	ssize_t n;

	n = push(c->cfd, &c->out, &c->uin, &c->uin_fwd, &relayed);
	if (n < 0) {
		if (!transient(errno))
			cut_conn(c, "client");
		return false;
	}
	/* Relayed bytes count; the proxy's own replies and "200 Connection established" do not. */
	if (relayed || c->st == ST_FORWARD)
		c->bytes += (uint64_t)n;
	progress(c);
	return true;
}

static bool upstream_readable(struct conn *c)
{
	size_t asked;
	ssize_t n;

	asked = c->uin.cap - used(&c->uin);
	n = pull(c->ufd, &c->uin);
	c->udry = n < (ssize_t)asked;
	/*
	 * A read that fills the buffer shows a large transfer: the buffer grows once, so that each
	 * system call moves more. The bytes are copied through it rather than spliced (splice(2)
	 * through a pipe): the copy lands in a buffer that stays in the cache and lets the kernel
	 * reuse its socket pages, where a splice holds on to the sender's pages; measured, the copy
	 * costs the whole path less CPU per byte (tests/bench/README.md).
	 */
	if (n > 0 && c->uin.len == c->uin.cap) {
		char *np = c->uin.cap < SBX_PROXY_BUF_MAX ? realloc(c->uin.p, SBX_PROXY_BUF_MAX)
							  : NULL;

		if (np) {
			c->uin.p = np;
			c->uin.cap = SBX_PROXY_BUF_MAX;
		}
	}
	return upstream_got(c, n);
}

static bool upstream_writable(struct conn *c)
{
	bool relayed;
	ssize_t n;

	if (c->st == ST_CONNECT) {
		connect_done(c);
		return false;
	}
	n = push(c->ufd, &c->uout, &c->in, &c->in_fwd, &relayed);
	if (n < 0) {
		if (!transient(errno))
			upstream_failed(c, strerror(errno));
		return false;
	}
	c->bytes += (uint64_t)n;
	progress(c);
	return true;
}

/*
 * Bytes that just arrived go on at once, and the room that sending made is filled again from a
 * side that is not drained, for a few rounds while both sides keep up: a transfer then costs
 * about one poll(2) per round rather than two per buffer, and no read is tried on a socket
 * whose last read came up short.
 */
static void relay(struct conn *c)
{
	for (int i = 0; i < RELAY_ROUNDS; i++) {
		bool moved = false;

		if (c->st != ST_FORWARD && c->st != ST_TUNNEL)
			return;
		moved |= client_writable(c);
		if (c->st != ST_DEAD && c->ufd >= 0)
			moved |= upstream_writable(c);
		if (c->st != ST_DEAD && c->ufd >= 0 && !c->udry && (conn_events(c, true) & POLLIN))
			moved |= upstream_readable(c);
		if (c->st != ST_DEAD && !c->cdry && (conn_events(c, false) & POLLIN))
			moved |= client_readable(c);
		if (!moved || c->st == ST_DEAD)
			return;
		advance(c);
	}
}

static void deadline_passed(struct conn *c)
{
	char auth[SBX_AUTHORITY_MAX];

	c->deadline = 0;
	switch (c->st) {
	case ST_HEAD:
		/* A kept-alive connection that stays silent is simply closed. */
		if (used(&c->in) || !c->served) {
			char why[64];

			snprintf(why, sizeof(why), "no complete request head within %u s",
				 c->px->cfg.head_timeout_ms / 1000);
			reply(c, 408, "invalid", why, "sbxrun: %s", why);
		} else {
			close_conn(c);
		}
		break;
	case ST_RESOLVE:
		authority(c, auth, sizeof(auth));
		if (c->job && !sbx_resolver_started(c->px->res, c->job)) {
			reply(c, 503, NULL, NULL,
			      "sbxrun: cannot look up host %s now: all %d resolver threads wait "
			      "for "
			      "names that have not answered; try again later",
			      auth, SBX_PROXY_RESOLVERS);
			break;
		}
		if (now_ms() < c->resolve_end) {
			c->deadline = c->resolve_end;
			break;
		}
		reply(c, 504, NULL, NULL, "sbxrun: resolving host %s timed out after %u s", auth,
		      c->px->cfg.resolve_timeout_ms / 1000);
		break;
	case ST_CONNECT:
		if (c->ufd < 0) { /* waiting for a descriptor (fd_wait) */
			try_connect(c);
			break;
		}
		close(c->ufd);
		c->ufd = -1;
		c->last_err = ETIMEDOUT;
		try_connect(c);
		break;
	case ST_FORWARD:
		if (!c->relayed) {
			reply(c, 504, NULL, NULL,
			      "sbxrun: the upstream server did not respond within %u s",
			      c->px->cfg.idle_timeout_ms / 1000);
			break;
		}
		cut_conn(c, "timeout");
		break;
	default:
		cut_conn(c, "timeout");
		break;
	}
}

/* ---- the loop ------------------------------------------------------------------------------- */

static void format_client(const struct sockaddr_storage *ss, char *buf, size_t n)
{
	char a[48]; /* the longest IPv6 text is 45 characters */

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s4 = (const struct sockaddr_in *)ss;

		sbx_addr_format((const unsigned char *)&s4->sin_addr, 4, a, sizeof(a));
		snprintf(buf, n, "%s:%u", a, ntohs(s4->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		sbx_addr_format((const unsigned char *)&s6->sin6_addr, 16, a, sizeof(a));
		snprintf(buf, n, "[%s]:%u", a, ntohs(s6->sin6_port));
	} else {
		snprintf(buf, n, "unix");
	}
}

void sbx_proxy_raise_nofile(void)
{
	const rlim_t need = 2 * SBX_PROXY_MAX_CONNS + 64;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return;
	if (rl.rlim_cur != rl.rlim_max) {
		struct rlimit up = {rl.rlim_max, rl.rlim_max};

		if (setrlimit(RLIMIT_NOFILE, &up) < 0 && rl.rlim_cur < need) {
			/* RLIM_INFINITY is refused where the kernel has a ceiling of its own. */
			up.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need
					      ? need
					      : rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &up);
		}
	}
}

static bool short_of(int e)
{
	return e == EMFILE || e == ENFILE || e == ENOBUFS || e == ENOMEM;
}

/*
 * With every connection taken, a client in the backlog takes the place of the one that has
 * waited longest for a request head: a kept-alive client that sends nothing (clients reconnect),
 * or one whose head comes slowly. Without it one client that opens every connection and sends a
 * byte now and then (slowloris) holds all of them for the head's time-out, each time it opens
 * them again, and every other client waits in the backlog; with it, a client that sends its head
 * at once is served, for the slow ones would have to open SBX_PROXY_MAX_CONNS connections in the
 * time that head takes to come. Connections in an exchange (resolving, connecting, relaying) are
 * never taken: at those the clients wait in the backlog. NULL when none waits for a head.
 */
static struct conn *longest_waiting_head(struct sbx_proxy *px)
{
	struct conn *v = NULL;

	for (size_t i = 0; i < px->n; i++) {
		struct conn *c = px->conns[i];

		if (c->st == ST_HEAD && (!v || c->head_since < v->head_since))
			v = c;
	}
	return v;
}

/* The exchange in which no byte has moved for longest, however long; NULL when none is in one. */
static struct conn *idlest_exchange(struct sbx_proxy *px)
{
	struct conn *v = NULL;

	for (size_t i = 0; i < px->n; i++) {
		struct conn *c = px->conns[i];

		if ((c->st == ST_FORWARD || c->st == ST_TUNNEL) && (!v || c->moved < v->moved))
			v = c;
	}
	return v;
}

/*
 * With every connection taken and none waiting for a head, a client in the backlog takes the
 * place of the exchange (a tunnel, or a request relayed or waiting for its response) in which
 * no byte has moved either way for longest, SBX_PROXY_EVICT_IDLE_MS at least. Without it, 1024
 * idle tunnels (a client's pool of kept connections, or one that opens them on purpose) keep
 * every other client in the backlog for up to the idle time-out, 5 minutes; with it a transfer
 * that moves bytes keeps its place, and one that has been silent for a while gives it up, as a
 * server closes an idle kept-alive connection. Resolving and connecting keep theirs: each ends
 * within its own time-out. NULL when none has been idle for that long.
 */
static struct conn *longest_idle_exchange(struct sbx_proxy *px, int64_t now)
{
	struct conn *v = idlest_exchange(px);

	return v && now - v->moved >= SBX_PROXY_EVICT_IDLE_MS ? v : NULL;
}

/*
 * Its place goes to a client in the backlog: an idle exchange (longest_idle_exchange) is cut,
 * its log line saying so ("full"), and a request whose response has not begun gets 503 first
 * (sent if the socket takes it now). A part of a head gets 408 (sent if the socket takes
 * it now: the place is needed at once, not after a linger), a kept-alive client that sent
 * nothing is closed as on its time-out.
 */
static void make_room(struct conn *c)
{
	if (c->st == ST_FORWARD || c->st == ST_TUNNEL) {
		int64_t idle = now_ms() - c->moved;

		if (c->st == ST_FORWARD && !c->relayed) {
			/* Its line says why it ended, as a tunnel's does: not a 503 of its own. */
			c->cut = "full";
			reply(c, 503, NULL, NULL,
			      "sbxrun: no byte moved for %lld s, while every connection was taken: "
			      "closed for another client",
			      (long long)(idle / 1000));
			if (c->st == ST_REPLY &&
			    send(c->cfd, data(&c->out), used(&c->out), SEND_FLAGS) < 0) {
				/* the client may not read: the place is needed all the same */
			}
			close_conn(c);
			return;
		}
		cut_conn(c, "full");
		return;
	}
	if (used(&c->in) || !c->served) {
		char why[96];

		snprintf(why, sizeof(why),
			 "no complete request head after %lld ms, while every connection was taken",
			 (long long)(now_ms() - c->head_since));
		reply(c, 408, "invalid", why, "sbxrun: %s", why);
		if (c->st == ST_REPLY &&
		    send(c->cfd, data(&c->out), used(&c->out), SEND_FLAGS) < 0) {
			/* the client may not read: the place is needed all the same */
		}
	}
	close_conn(c);
}

/*
 * Room in the table and a connection with its buffer, before a client is accepted and before
 * any other gives its place for it: out of memory, the client waits in the backlog, as for want
 * of a descriptor, and every connection keeps its own (a place taken first, then found to be of
 * no use, would cut one and drop the other, neither logged as the reason). NULL, the listener
 * resting (ACCEPT_PAUSE_MS), when memory is short. One made for a client that was not there
 * (accept_clients ends on EAGAIN) is kept for the next, not made again at every wake-up.
 */
static struct conn *conn_reserve(struct sbx_proxy *px)
{
	struct conn *c = px->reserved;

	if (px->n == px->cap) {
		size_t cap = px->cap ? px->cap * 2 : 64;
		struct conn **nc = realloc(px->conns, cap * sizeof(*nc));

		if (!nc)
			goto short_of_memory;
		px->conns = nc;
		px->cap = cap;
	}
	if (c) {
		px->reserved = NULL;
		return c;
	}
	c = calloc(1, sizeof(*c));
	if (c && buf_alloc(&c->in, SBX_PROXY_BUF) == 0)
		return c;
	free(c);
short_of_memory:
	px->accept_resume = now_ms() + ACCEPT_PAUSE_MS;
	return NULL;
}

/*
 * A client is accepted only with a descriptor kept for its upstream socket: out of descriptors,
 * the clients wait in the backlog, where accepting them would answer them 502 for want of a
 * socket. While that lasts, the listener rests (ACCEPT_PAUSE_MS) rather than being polled again
 * at once: it stays readable, and poll(2) would return at once for as long as the limit holds.
 * The same out of memory (conn_reserve). With every connection taken, a client is accepted in
 * the place of one that waits for a head (longest_waiting_head), or not at all; that one is
 * made room of only once the new client has all it needs.
 */
static void accept_clients(struct sbx_proxy *px)
{
	size_t live = 0; /* the table holds the connections that ended this round until freed */

	for (size_t i = 0; i < px->n; i++)
		live += px->conns[i]->st != ST_DEAD;
	for (int k = 0; k < ACCEPT_BATCH; k++) {
		struct sockaddr_storage ss = {0};
		socklen_t sl = sizeof(ss);
		struct conn *c, *victim = NULL;
		int keep, fd = -1, e;

		if (live >= px->cfg.max_conns && !(victim = longest_waiting_head(px)) &&
		    !(victim = longest_idle_exchange(px, now_ms())))
			return;
		c = conn_reserve(px);
		if (!c)
			return;
		keep = spare(px);
		if (keep >= 0)
			fd = accept(px->lfd, (struct sockaddr *)&ss, &sl);
		if (fd < 0) {
			e = errno;
			if (keep >= 0)
				close(keep);
			px->reserved = c;
			if (short_of(e))
				px->accept_resume = now_ms() + ACCEPT_PAUSE_MS;
			if (e == ECONNABORTED || e == EINTR)
				continue;
			return;
		}
		if (victim)
			make_room(victim);
		else
			live++;
		setup_socket(fd, ss.ss_family == AF_INET || ss.ss_family == AF_INET6);
		c->px = px;
		c->cfd = fd;
		c->ufd = -1;
		c->spare = keep;
		c->st = ST_HEAD;
		format_client(&ss, c->client, sizeof(c->client));
		c->head_since = now_ms();
		c->deadline = c->head_since + px->cfg.head_timeout_ms;
		px->conns[px->n++] = c;
	}
}

static void free_conn(struct conn *c)
{
	close_conn(c);
	buf_free(&c->in);
	buf_free(&c->uin);
	buf_free(&c->out);
	buf_free(&c->uout);
	free(c);
}

int sbx_proxy_new(const struct sbx_proxy_config *cfg, int listen_fd, struct sbx_proxy **out,
		  struct sbx_diag *d)
{
	struct sbx_proxy *px = calloc(1, sizeof(*px));

	*out = NULL;
	if (!px)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	px->cfg = *cfg;
	px->lfd = listen_fd;
#define DEFAULT(f, v)                                                                              \
	if (!px->cfg.f)                                                                            \
	px->cfg.f = (v)
	DEFAULT(max_conns, SBX_PROXY_MAX_CONNS);
	DEFAULT(head_timeout_ms, SBX_PROXY_HEAD_TIMEOUT_MS);
	DEFAULT(keepalive_ms, SBX_PROXY_KEEPALIVE_MS);
	DEFAULT(resolve_timeout_ms, SBX_PROXY_RESOLVE_TIMEOUT_MS);
	DEFAULT(connect_timeout_ms, SBX_PROXY_CONNECT_TIMEOUT_MS);
	DEFAULT(idle_timeout_ms, SBX_PROXY_IDLE_TIMEOUT_MS);
	DEFAULT(linger_ms, SBX_PROXY_LINGER_MS);
	DEFAULT(drain_ms, SBX_PROXY_DRAIN_MS);
	DEFAULT(log_end_ms, LOG_STALL_MS);
	DEFAULT(log_what, "--network-log");
#undef DEFAULT
	{
		struct stat st;
		int fl;

		/* Non-blocking only as report_open_fd opened it: standard error is the caller's. */
		px->log.pipe = px->cfg.log_fd >= 0 && fstat(px->cfg.log_fd, &st) == 0 &&
			       S_ISFIFO(st.st_mode) && (fl = fcntl(px->cfg.log_fd, F_GETFL)) >= 0 &&
			       (fl & O_NONBLOCK);
		px->log.reader = px->cfg.log_fd >= 0 ? sbx_log_reader(px->cfg.log_fd) : -1;
	}
	/* The resolver's pipe now (its threads come with the first name): made later, out of
	 * descriptors, it would fail every name while the shortage lasts. Failing here, it is
	 * tried again then. */
	sbx_resolver_new(&px->res);
	*out = px;
	return 0;
}

static int conn_events(const struct conn *c, bool upstream)
{
	int ev = 0;

	if (!upstream) {
		bool reading = c->st != ST_REPLY && !c->client_eof && used(&c->in) < c->in.cap;

		if (reading)
			ev |= POLLIN;
		if (used(&c->out) || c->uin_fwd)
			ev |= POLLOUT;
		return ev;
	}
	if (c->st == ST_CONNECT)
		return POLLOUT;
	if ((c->st == ST_FORWARD || c->st == ST_TUNNEL) && !c->up_eof && !c->resp_done &&
	    used(&c->uin) < c->uin.cap)
		ev |= POLLIN;
	if (used(&c->uout) || c->in_fwd)
		ev |= POLLOUT;
	return ev;
}

size_t sbx_proxy_pollfds(struct sbx_proxy *px, struct pollfd *fds, size_t cap, int *timeout_ms)
{
	int64_t now = now_ms(), next = -1;
	size_t n = 0, need = 3 + 2 * px->n;
	bool full = false;

	if (px->cap_slots < need) {
		struct slot *ns = realloc(px->slots, need * sizeof(*ns));

		if (!ns) {
			*timeout_ms = ACCEPT_PAUSE_MS;
			return 0; /* nothing polled this round; the caller comes back */
		}
		px->slots = ns;
		px->cap_slots = need;
	}
#define ADD(fd_, ev_, kind_, c_, gen_)                                                             \
	do {                                                                                       \
		if (n < cap)                                                                       \
			fds[n] = (struct pollfd){.fd = (fd_), .events = (short)(ev_)};             \
		px->slots[n++] = (struct slot){(kind_), (c_), (gen_)};                             \
	} while (0)
	/* Full: the listener waits until a place can be taken (accept_clients), if ever. */
	if (!px->stopping && px->n >= px->cfg.max_conns && !longest_waiting_head(px)) {
		struct conn *v = idlest_exchange(px);

		if (!v)
			full = true;
		else if (now - v->moved < SBX_PROXY_EVICT_IDLE_MS) {
			full = true;
			next = v->moved + SBX_PROXY_EVICT_IDLE_MS;
		}
	}
	if (!px->stopping && !full) {
		if (now >= px->accept_resume)
			ADD(px->lfd, POLLIN, SLOT_LISTEN, NULL, 0);
		else
			next = px->accept_resume;
	}
	if (px->res)
		ADD(sbx_resolver_notify_fd(px->res), POLLIN, SLOT_RESOLVER, NULL, 0);
	if (px->log.head < px->log.len && !px->log.stalled) {
		ADD(px->cfg.log_fd, POLLOUT, SLOT_LOG, NULL, 0);
		if (next < 0 || px->log.since + LOG_STALL_MS < next)
			next = px->log.since + LOG_STALL_MS;
	}
	for (size_t i = 0; i < px->n; i++) {
		struct conn *c = px->conns[i];
		int cev = conn_events(c, false), uev = c->ufd >= 0 ? conn_events(c, true) : 0;

		/*
		 * A side with nothing to wait for is left out (a negative descriptor): poll(2)
		 * reports a hang-up even when no event was asked for, and a socket whose peer
		 * ended its side after ours still holds bytes that are read once there is room.
		 */
		ADD(cev ? c->cfd : -1, cev, SLOT_CLIENT, c, 0);
		if (c->ufd >= 0)
			ADD(uev ? c->ufd : -1, uev, SLOT_UPSTREAM, c, c->ugen);
		if (c->deadline && (next < 0 || c->deadline < next))
			next = c->deadline;
	}
#undef ADD
	if (px->stopping && (next < 0 || px->drain_deadline < next))
		next = px->drain_deadline;
	*timeout_ms = next < 0 ? -1 : next <= now ? 0 : (int)(next - now);
	return n;
}

void sbx_proxy_dispatch(struct sbx_proxy *px, const struct pollfd *fds, size_t n)
{
	int64_t now;
	size_t k = 0;
	bool accepting = false; /* the listener has clients waiting */

	for (size_t i = 0; i < n && i < px->cap_slots; i++) {
		struct slot s = px->slots[i];
		struct conn *c = s.c;
		short rev = fds[i].revents;

		if (!rev)
			continue;
		if (s.kind == SLOT_LISTEN) {
			accepting = true;
			continue;
		}
		if (s.kind == SLOT_LOG) {
			log_flush(px);
			continue;
		}
		if (s.kind == SLOT_RESOLVER) {
			struct sbx_resolved res;
			void *owner;

			while (sbx_resolver_take(px->res, &owner, &res)) {
				c = owner;
				c->job = NULL;
				resolved(c, &res);
				advance(c);
			}
			continue;
		}
		if (c->st == ST_DEAD)
			continue;
		if (s.kind == SLOT_CLIENT) {
			c->cdry = false;
			if (rev & POLLIN)
				client_readable(c);
			if (c->st != ST_DEAD && (rev & POLLOUT))
				client_writable(c);
			if (c->st != ST_DEAD && (rev & (POLLERR | POLLHUP | POLLNVAL)) &&
			    !(rev & POLLIN))
				cut_conn(c, "client"); /* reset, or gone both ways */
		} else if (c->ufd >= 0 && c->ugen == s.ugen) {
			if (c->st == ST_CONNECT && (rev & (POLLOUT | POLLERR | POLLHUP))) {
				connect_done(c);
			} else {
				c->udry = false;
				if (rev & POLLIN)
					upstream_readable(c);
				if (c->st != ST_DEAD && c->ufd >= 0 && (rev & POLLOUT))
					upstream_writable(c);
				if (c->st != ST_DEAD && c->ufd >= 0 &&
				    (rev & (POLLERR | POLLHUP)) && !(rev & POLLIN))
					c->up_eof = true;
			}
		}
		advance(c);
		relay(c);
	}
	now = now_ms();
	log_check(px, now);
	for (size_t i = 0; i < px->n; i++) {
		struct conn *c = px->conns[i];

		if (c->st != ST_DEAD && c->deadline && now >= c->deadline) {
			deadline_passed(c);
			advance(c);
		}
		if (c->st != ST_DEAD && px->stopping && now >= px->drain_deadline)
			cut_conn(c, "stopped");
	}
	/*
	 * New clients last, once this round's events are handled: a connection whose client
	 * closed has given its place back, and one whose head came has left ST_HEAD, so that
	 * neither is taken for a new client (longest_waiting_head) while its event waits.
	 */
	if (accepting)
		accept_clients(px);
	for (size_t i = 0; i < px->n; i++) {
		if (px->conns[i]->st == ST_DEAD)
			free_conn(px->conns[i]);
		else
			px->conns[k++] = px->conns[i];
	}
	px->n = k;
}

void sbx_proxy_stop(struct sbx_proxy *px)
{
	if (px->stopping)
		return;
	px->stopping = true;
	px->drain_deadline = now_ms() + px->cfg.drain_ms;
	for (size_t i = 0; i < px->n; i++) {
		struct conn *c = px->conns[i];

		/* Idle connections go at once; exchanges in flight end with Connection: close. */
		if (c->st == ST_HEAD && !used(&c->in))
			close_conn(c);
		c->close_after = true;
	}
}

bool sbx_proxy_done(const struct sbx_proxy *px)
{
	for (size_t i = 0; i < px->n; i++)
		if (px->conns[i]->st != ST_DEAD)
			return false;
	return px->stopping;
}

void sbx_proxy_free(struct sbx_proxy *px)
{
	if (!px)
		return;
	for (size_t i = 0; i < px->n; i++)
		free_conn(px->conns[i]);
	if (px->reserved) {
		buf_free(&px->reserved->in);
		free(px->reserved);
	}
	log_finish(px);
	free(px->conns);
	free(px->slots);
	sbx_resolver_free(px->res);
	free(px);
}

int sbx_proxy_run(const struct sbx_proxy_config *cfg, int listen_fd, int stop_fd,
		  struct sbx_diag *d)
{
	struct sbx_proxy *px;
	struct pollfd *fds = NULL;
	size_t cap = 0;
	int r = sbx_proxy_new(cfg, listen_fd, &px, d);

	if (r < 0)
		return r;
	while (!sbx_proxy_done(px)) {
		int timeout;
		size_t n = sbx_proxy_pollfds(px, cap ? fds + 1 : NULL, cap ? cap - 1 : 0, &timeout);
		bool watch_stop = stop_fd >= 0 && !px->stopping;

		if (n + 1 > cap) {
			struct pollfd *nf = realloc(fds, (n + 1) * 2 * sizeof(*nf));

			if (!nf) {
				r = sbx_diag_set(d, -ENOMEM, "out of memory");
				break;
			}
			fds = nf;
			cap = (n + 1) * 2;
			continue; /* fill again, now that it fits */
		}
		fds[0] = (struct pollfd){.fd = watch_stop ? stop_fd : -1, .events = POLLIN};
		if (poll(fds, n + 1, timeout) < 0) {
			if (errno == EINTR)
				continue;
			r = sbx_diag_set(d, -errno, "poll: %s", strerror(errno));
			break;
		}
		/*
		 * The round's events first: a request that came whole before the stop is read and
		 * decided (logged, counted), not closed with its connection as an idle one.
		 */
		sbx_proxy_dispatch(px, fds + 1, n);
		if (watch_stop && fds[0].revents)
			sbx_proxy_stop(px);
	}
	free(fds);
	sbx_proxy_free(px);
	return r;
}

/* ---- the listening socket ------------------------------------------------------------------- */

int sbx_proxy_listen(const struct sbx_listen_addr *a, int *fdp, char *bound, size_t bound_len,
		     struct sbx_diag *d)
{
	struct sockaddr_storage ss = {0};
	socklen_t sl;
	int fd, one = 1, fam;

	*fdp = -1;
	if (a->kind == SBX_LISTEN_UNIX) {
		struct sockaddr_un *su = (struct sockaddr_un *)&ss;

		if (strlen(a->path) >= sizeof(su->sun_path))
			return sbx_diag_set(d, -ENAMETOOLONG,
					    "--listen unix:%s: path longer than %zu bytes", a->path,
					    sizeof(su->sun_path) - 1);
		su->sun_family = AF_UNIX;
		strcpy(su->sun_path, a->path);
		sl = sizeof(*su);
		fam = AF_UNIX;
	} else if (a->kind == SBX_LISTEN_TCP4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)a->port);
		memcpy(&s4->sin_addr, a->addr, 4);
		sl = sizeof(*s4);
		fam = AF_INET;
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)a->port);
		memcpy(&s6->sin6_addr, a->addr, 16);
		sl = sizeof(*s6);
		fam = AF_INET6;
	}
	fd = socket(fam, SOCK_STREAM, 0);
	if (fd < 0)
		return sbx_diag_set(d, -errno, "cannot create a socket: %s", strerror(errno));
	setup_socket(fd, false);
	if (fam != AF_UNIX)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (fam == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, SOMAXCONN) < 0) {
		int e = errno;

		close(fd);
		if (fam == AF_UNIX && e == EADDRINUSE) {
			sbx_diag_set(d, -e, "--listen unix:%s: the path exists", a->path);
			return sbx_diag_hint(d, -e, "remove it first if it is a stale socket");
		}
		return sbx_diag_set(d, -e, "cannot listen on the proxy address: %s", strerror(e));
	}
	if (fam == AF_UNIX) {
		snprintf(bound, bound_len, "unix:%s", a->path);
	} else {
		sl = sizeof(ss);
		if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0) {
			int e = errno;

			close(fd);
			return sbx_diag_set(d, -e, "getsockname: %s", strerror(e));
		}
		if (fam == AF_INET)
			snprintf(bound, bound_len, "%u.%u.%u.%u:%u", a->addr[0], a->addr[1],
				 a->addr[2], a->addr[3],
				 ntohs(((struct sockaddr_in *)&ss)->sin_port));
		else
			snprintf(bound, bound_len, "[::1]:%u",
				 ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	}
	*fdp = fd;
	return 0;
}
