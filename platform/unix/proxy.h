/* SPDX-License-Identifier: MIT */
/*
 * proxy.h - the domain-filtering HTTP and CONNECT proxy (POSIX: Linux and macOS).
 *
 * One thread runs an event loop (poll(2)) over every connection; names are resolved by a pool
 * of threads, started as names come and never more than SBX_PROXY_RESOLVERS, so a slow
 * resolver never stalls the loop, and a slow name not the other names. The decisions
 * themselves are lib/domain.c's.
 *
 * Two ways to run it:
 *   - sbx_proxy_run(): the whole loop, until stop_fd becomes readable (a supervising parent
 *     hands over a listening socket and a pipe; a child process can run it the same way);
 *   - sbx_proxy_new() / sbx_proxy_pollfds() / sbx_proxy_dispatch() / sbx_proxy_free(): one
 *     step at a time, inside a caller's own poll loop.
 * Everything runs on the caller's thread but name resolution; callbacks are made from it.
 */
#ifndef SBX_PLATFORM_UNIX_PROXY_H
#define SBX_PLATFORM_UNIX_PROXY_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "net.h"

/*
 * Limits and timeouts, each with its reason. A config field left 0 takes the default.
 *
 * Connections: each holds two descriptors and two buffers of SBX_PROXY_BUF (the largest head
 * must fit in one); the buffer of a download that keeps filling it grows to SBX_PROXY_BUF_MAX,
 * which halves the wake-ups of a fast transfer. So 1024 connections are at most 2048
 * descriptors and 64 MiB of buffers when idle, 320 MiB when all download at full speed; more
 * connections wait in the listen backlog, or take the place of the one that has waited longest
 * for a request head (proxy.c, longest_waiting_head), or else of the exchange idle longest
 * (longest_idle_exchange, SBX_PROXY_EVICT_IDLE_MS).
 */
#define SBX_PROXY_MAX_CONNS 1024
#define SBX_PROXY_BUF	    65536
#define SBX_PROXY_BUF_MAX   262144
/*
 * Resolver threads. A lookup cannot be cut short: a name whose name servers do not answer holds
 * its thread for the resolver's whole time-out (resolv.conf's timeout times attempts, up to
 * minutes). With 4 threads, four such names (a command may ask for as many as a wildcard allows)
 * held every other lookup back for that long; 64 leaves room for the names that do answer. A
 * thread starts while more names wait than threads are idle, and each has the C library's
 * default stack up to 512 KiB (128 KiB with musl: about 140 KiB of address space and under
 * 10 KiB resident per idle thread, measured; glibc's default, the stack limit, is capped).
 */
#define SBX_PROXY_RESOLVERS 64
/*
 * Threads beyond the first SBX_PROXY_RESOLVERS_KEPT that have had no name for this long end,
 * so that a burst of slow names does not leave an idle proxy holding 64 stacks.
 */
#define SBX_PROXY_RESOLVERS_KEPT   4
#define SBX_PROXY_RESOLVER_IDLE_MS 5000
/* A client has this long to send a complete request head (slow senders hold a connection). */
#define SBX_PROXY_HEAD_TIMEOUT_MS 10000
/* An idle kept-alive client connection is closed after this; clients reconnect. */
#define SBX_PROXY_KEEPALIVE_MS 60000
/* A name must resolve within this (the system resolver retries for about as long). */
#define SBX_PROXY_RESOLVE_TIMEOUT_MS 15000
/*
 * A lookup that finds every resolver thread busy waits this long for one, then its request gets
 * 503 at once: the threads are then held by names that do not answer (a lookup that does takes
 * milliseconds), which would otherwise keep it for SBX_PROXY_RESOLVE_TIMEOUT_MS and answer 504,
 * a time-out of a name that was never asked.
 */
#define SBX_PROXY_RESOLVE_QUEUE_MS 2000
/* Each address of the upstream must accept the connection within this. */
#define SBX_PROXY_CONNECT_TIMEOUT_MS 10000
/* A forwarded exchange or a tunnel with no byte moving either way for this long is cut. */
#define SBX_PROXY_IDLE_TIMEOUT_MS 300000
/*
 * With every connection taken and none waiting for a request head, the exchange with no byte
 * moving for longest, this long at least, gives its place to a new client (proxy.c,
 * longest_idle_exchange): as long as a head may take to come, so that a transfer that moves
 * bytes now and then is never cut for another.
 */
#define SBX_PROXY_EVICT_IDLE_MS 10000
/* After a refusal the proxy reads and drops what the client still sends for at most this long
 * before closing, so that the refusal is read rather than lost to a connection reset. */
#define SBX_PROXY_LINGER_MS 2000
/* On stop, exchanges in flight get this long to finish. */
#define SBX_PROXY_DRAIN_MS 5000

/*
 * sbxrun's own proxy for a run (--allow-domain), on Linux and on macOS alike. It stops once the
 * command has ended, when every client is gone already: a short drain. What a pipe's reader is
 * given for the lines still waiting then: half a second more, as sbxrun(1) says (on Linux,
 * within the time the supervisor gives its worker to end, netns.c). The most a run writes to
 * --network-log: the confined command decides how much there is.
 */
#define SBX_OWN_PROXY_DRAIN_MS	 1000
#define SBX_OWN_PROXY_LOG_END_MS 500
#define SBX_OWN_PROXY_LOG_MAX	 (16u << 20)

/*
 * In the process that runs a proxy or a bridge, before it serves: the soft limit of open
 * descriptors raised to the hard limit, for each connection holds two and a soft limit of 1024
 * would stop at about 500 (beyond the limit, clients wait in the backlog). Only this process's
 * limit: a command started beside it is never its child, and keeps the limit its caller gave.
 * Where the hard limit cannot be set (macOS's unlimited), at least what SBX_PROXY_MAX_CONNS
 * needs.
 */
void sbx_proxy_raise_nofile(void);

/*
 * A log file's lines are appended with O_APPEND, one write(2) each, by every run that shares the
 * file; a full file system, a size limit or a kill mid-write leaves its last line torn, and the
 * next line would end it. The files are opened write-only: sbx_log_reader() opens the same file
 * again for reading (Linux, through /proc/self/fd; -1 where it cannot, a file the caller may
 * not read for one, and for standard error, which others' output shares), and
 * sbx_log_ends_torn() reads its last byte through that, so that a line torn by any writer is
 * seen. Without a reader, *own_torn says what this process last left.
 */
int sbx_log_reader(int fd);
bool sbx_log_ends_torn(int fd, int reader, bool own_torn);

struct sbx_proxy_config {
	const struct sbx_domain_policy *policy; /* borrowed; must outlive the proxy */
	/*
	 * Connect to loopback, private, link-local and other non-public addresses of allowed
	 * names. Off, such addresses are refused (an allowed name pointed at 127.0.0.1 must not
	 * reach local services), except a localhost name's loopback addresses and IP literals
	 * that an allow entry names exactly.
	 */
	bool allow_private;
	int log_fd; /* one JSON line per decision (sbx_proxy_log_line); -1 for none */
	/*
	 * At most this many bytes go to log_fd (0: no limit); past it, decisions are not logged
	 * and one line on standard error says so. For a log a confined command fills: it
	 * chooses how many connections it opens and the names in them.
	 */
	size_t log_max;
	/*
	 * When log_fd is a pipe (opened non-blocking): how long, once stopped, the proxy still
	 * waits for its reader to take the lines that wait (0: 5 seconds); and the name the
	 * lines on standard error give the log (NULL: "--network-log").
	 */
	unsigned log_end_ms;
	const char *log_what;
	/* Called once per decision, when its exchange ends (denials at once); may be NULL. */
	void (*on_decision)(void *arg, const struct sbx_proxy_event *ev);
	void *on_decision_arg;
	unsigned max_conns;
	unsigned head_timeout_ms, keepalive_ms, resolve_timeout_ms, connect_timeout_ms,
		idle_timeout_ms, linger_ms, drain_ms;
};

/*
 * Creates the listening socket for a: non-blocking and close-on-exec. bound receives the address
 * as it can be written to a client's proxy setting ("127.0.0.1:40112", "[::1]:40112",
 * "unix:/run/p.sock"), with the port the system chose for port 0. A unix socket path that
 * exists is refused, never replaced.
 */
int sbx_proxy_listen(const struct sbx_listen_addr *a, int *fd, char *bound, size_t bound_len,
		     struct sbx_diag *d);

/*
 * Serves listen_fd (which it does not close) until stop_fd (a pipe or eventfd the caller
 * signals; -1 for none) becomes readable; then stops accepting, lets exchanges in flight finish
 * for up to drain_ms, closes the rest and returns 0. -errno with d filled if the loop fails.
 */
int sbx_proxy_run(const struct sbx_proxy_config *cfg, int listen_fd, int stop_fd,
		  struct sbx_diag *d);

/* The step interface. */
struct sbx_proxy;
int sbx_proxy_new(const struct sbx_proxy_config *cfg, int listen_fd, struct sbx_proxy **out,
		  struct sbx_diag *d);
/*
 * Fills fds (at most cap entries) with the descriptors to poll and *timeout_ms with the time to
 * the next deadline (-1 for none); returns how many entries it needs, which may exceed cap (call
 * again with a larger array). The caller may poll them together with its own.
 */
size_t sbx_proxy_pollfds(struct sbx_proxy *p, struct pollfd *fds, size_t cap, int *timeout_ms);
/* Handles the events of the entries sbx_proxy_pollfds() filled, and any expired deadline. */
void sbx_proxy_dispatch(struct sbx_proxy *p, const struct pollfd *fds, size_t n);
/* Stops accepting and starts draining; sbx_proxy_done() tells when nothing is left. */
void sbx_proxy_stop(struct sbx_proxy *p);
bool sbx_proxy_done(const struct sbx_proxy *p);
/* Closes every connection (logging what was in flight) and frees p; NULL is fine. */
void sbx_proxy_free(struct sbx_proxy *p);

/* ---- the resolver pool (resolver.c) ------------------------------------------------------- */

#define SBX_PROXY_MAX_ADDRS 16 /* addresses of one name that are tried, in the resolver's order */

struct sbx_resolved {
	int n;
	int family[SBX_PROXY_MAX_ADDRS]; /* AF_INET or AF_INET6 */
	unsigned char addr[SBX_PROXY_MAX_ADDRS][16];
	/* Led to this host when the lookup ended (by the kernel's route on Linux, else by the
	 * interfaces' addresses). */
	bool local[SBX_PROXY_MAX_ADDRS];
	int ifaddrs_errno; /* neither could be read: local[] says nothing */
	int gai_error;	   /* 0, or the getaddrinfo() error (EAI_SYSTEM with hosts_errno) */
	int hosts_errno;   /* /etc/hosts could not be read: the name is not looked up elsewhere */
};

struct sbx_resolver;
struct sbx_resolve_job;
/* Threads are started on demand; notify_fd() becomes readable when a job has finished. */
int sbx_resolver_new(struct sbx_resolver **out);
int sbx_resolver_notify_fd(const struct sbx_resolver *r);
/* Queues a lookup of name; NULL when out of memory or no thread could start. The job stays
 * valid until it is taken or cancelled. */
struct sbx_resolve_job *sbx_resolver_submit(struct sbx_resolver *r, const char *name, void *owner);
/* Whether a thread has taken the lookup (it is no longer waiting for one). */
bool sbx_resolver_started(struct sbx_resolver *r, const struct sbx_resolve_job *j);
/* Takes a finished lookup (false when none is left), its owner and result; drains notify_fd. */
bool sbx_resolver_take(struct sbx_resolver *r, void **owner, struct sbx_resolved *res);
/* The owner lost interest: the job is dropped when it finishes. */
void sbx_resolver_cancel(struct sbx_resolver *r, struct sbx_resolve_job *j);
/* Frees the pool, ending and joining the idle threads; threads still inside getaddrinfo() are
 * not waited for: they finish on their own and free nothing shared that is still in use (the
 * pool outlives them through a reference count). */
void sbx_resolver_free(struct sbx_resolver *r);

#endif
