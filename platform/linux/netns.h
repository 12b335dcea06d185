/* SPDX-License-Identifier: MIT */
/*
 * netns.h - managed networking on Linux: the sandbox's network namespace, the listeners inside it
 * that lead to the proxies on the host, and the process that serves them (netns.c, bridge.c).
 *
 *   supervisor (host namespaces)          init (new network namespace, still privileged in it)
 *     sbx_netns_prepare(), before the       sbx_netns_enter(): lo up; one listening TCP socket
 *     clone and while it is one thread:       per endpoint, bound to the very loopback address
 *       a socket pair, a stop pipe;           and port the proxy has on the host; sent to the
 *       fork the worker (host namespaces, <-- worker (SCM_RIGHTS) and closed here; the
 *       no capabilities, dies with the        proxy variables rewritten to those addresses
 *       supervisor), which waits for the
 *       listeners and accepts on them:
 *       - the proxy itself (run --allow-domain): the listener is its listening socket;
 *       - otherwise the relay (bridge.c): each connection joined to the proxy on the host.
 *     at the end of the run: stop the worker (drain, then SIGKILL), reap it.
 *
 * A socket keeps the network namespace it was made in, whoever holds it: the worker accepts, in
 * the host's namespaces, connections made inside the sandbox's. Nothing inside the sandbox runs
 * on its behalf, and the command never holds a descriptor of any of it.
 */
#ifndef SBX_PLATFORM_LINUX_NETNS_H
#define SBX_PLATFORM_LINUX_NETNS_H

#include <stdbool.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "linux/linux.h"
#include "linux/sandbox.h"
#include "net.h"
#include "sbx.h"
#include "unix/proxy.h"

struct sbx_netns {
	/* The endpoints: a listener inside, and (the relay) where it leads on the host. */
	struct sbx_loopback_ep eps[SBX_MAX_LOOPBACK_EPS];
	size_t n_eps;
	/*
	 * run --allow-domain: one listener, 127.0.0.1 with a port the kernel picks inside, served
	 * by the proxy with this configuration; every proxy variable is set to it.
	 */
	const struct sbx_proxy_config *proxy;
	/* With proxy: local binding is allowed, and the no-proxy variables name the loopback. */
	bool local_binding;
	/*
	 * Descriptors the proxy's on_decision writes to or reads (the denial report's: the file,
	 * the relay, the file opened for reading), kept in the worker; -1 for none.
	 */
	int keep[3];
	/*
	 * Memory the worker shares with the supervisor, writable by both (the report's count of
	 * the briefs the relay had no room for), or NULL: kept from every process forked after
	 * the worker (init, and through it the command's tree), which could otherwise forge or
	 * hide what the report counts.
	 */
	void *shared;
	size_t shared_len;
	/* Internal. */
	int chan[2]; /* SOCK_SEQPACKET: [1] in init sends the listeners to [0] in the worker */
	int stop[2]; /* the worker stops when stop[0] is readable */
	pid_t worker;
};

/* Adds an endpoint (a repeat is ignored); -ENOSPC beyond SBX_MAX_LOOPBACK_EPS. */
int sbx_netns_add_ep(struct sbx_netns *n, const struct sbx_loopback_ep *ep);

/*
 * In the supervisor, before the sandbox child is cloned with CLONE_NEWNET and before any thread
 * of its own starts (the denial report's tracer): the socket pair and the stop pipe
 * (close-on-exec), the worker, forked now to wait for the listeners, and the supervisor's exit
 * hook (sandbox.h) that stops it. 0 or -errno with d filled.
 */
int sbx_netns_prepare(struct sbx_netns *n, struct sbx_diag *d);

/*
 * In init, in the new network namespace, while it still holds its capabilities there (before
 * they are dropped): brings up lo, makes the listeners, hands them to the supervisor, and sets
 * the command's proxy variables. 0 or -errno with d.
 */
int sbx_netns_enter(struct sbx_netns *n, struct sbx_diag *d);

/* Brings up the loopback interface of the calling process's network namespace. */
int sbx_netns_loopback_up(struct sbx_diag *d);

/* ep as a socket address in *ss; returns its length. */
socklen_t sbx_loopback_ep_sockaddr(const struct sbx_loopback_ep *ep, struct sockaddr_storage *ss);

/* A listening TCP socket on ep (non-blocking, close-on-exec); *port gets the port bound. */
int sbx_netns_listen(const struct sbx_loopback_ep *ep, int *fd, unsigned *port, struct sbx_diag *d);

/*
 * Descriptors over a socket (SCM_RIGHTS), at most SBX_NETNS_FDS_MAX in one message with a
 * small payload; received ones are close-on-exec. Both return 0 or -errno.
 */
#define SBX_NETNS_FDS_MAX 250
int sbx_fds_send(int sock, const int *fds, size_t n, const void *data, size_t len, int flags);
/* flags: MSG_DONTWAIT or 0. A message not exactly len bytes long is dropped (-EBADMSG). */
int sbx_fds_recv(int sock, int *fds, size_t cap, size_t *n, void *data, size_t len, int flags);

/* ---- bridge.c: the relay ------------------------------------------------------------------ */

/*
 * Accepts connections on listen_fds[i] and joins each to a new connection to eps[i] on the
 * host, copying bytes both ways (half-closes passed on), until stop_fd is readable; then accepts
 * no more, gives the connections in flight SBX_BRIDGE_DRAIN_MS to finish, cuts the others (a
 * reset) and returns 0. At most SBX_BRIDGE_MAX_CONNS at once; more wait in the backlog. -errno
 * with d when the loop itself fails.
 */
#define SBX_BRIDGE_MAX_CONNS 1024
/* Within the supervisor's two seconds for the worker (netns.c, WORKER_STOP_MS). */
#define SBX_BRIDGE_DRAIN_MS 1500
/*
 * Each direction's buffer; one a read fills (a download) grows to SBX_BRIDGE_BUF_MAX, as the
 * proxy's does: a read or write then moves up to four times as much, and the relay wakes a
 * quarter as often (tests/bench/README.md).
 */
#define SBX_BRIDGE_BUF	   65536
#define SBX_BRIDGE_BUF_MAX 262144
int sbx_bridge_run(const int *listen_fds, const struct sbx_loopback_ep *eps, size_t n, int stop_fd,
		   struct sbx_diag *d);

/* ---- broker.c: connect(2) decided by the supervisor ------------------------------------- */

/*
 * A place connect may reach: an allowed socket (or a directory of them), pinned when the helper
 * looked it up; or a writable root (SBX_BROKER_OPEN_INSIDE), opened by the connector in the
 * sandbox's view of the file system. Sockets beneath a place are reached with no link followed.
 */
#define SBX_BROKER_PLACES_MAX  (SBX_MAX_UNIX_SOCKETS + SBX_MAX_WORKSPACE_ROOTS + 16)
#define SBX_BROKER_OPEN_INSIDE (-2)
struct sbx_broker_place {
	char *path; /* absolute, normalized */
	int fd;	    /* O_PATH, close-on-exec; -1: absent; SBX_BROKER_OPEN_INSIDE */
};

/* Why the broker refused a connect (sbx_broker.on_refused). */
enum sbx_broker_why {
	SBX_BROKER_NOT_ALLOWED = 1, /* a path neither allowed nor below an allowed directory */
	SBX_BROKER_FAMILY,	    /* another family, the network restricted (EPERM) */
	SBX_BROKER_NOT_FOLLOWED,    /* a link or another mount on the way beneath a place */
	SBX_BROKER_SCOPED,	    /* an abstract socket out of the Landlock domain's scope */
	SBX_BROKER_HOST_ABSTRACT,   /* an abstract socket of the host's, the network restricted */
};

struct sbx_broker {
	struct sbx_broker_place places[SBX_BROKER_PLACES_MAX];
	size_t n_places;
	/* Sockets of other families are connected as asked (a namespace or Landlock decide). */
	bool other_families;
	/*
	 * Abstract addresses are refused (EPERM): the sandbox is in the host's network namespace
	 * with the network restricted, where every abstract socket is an outside process's (the
	 * command can bind none), whether or not Landlock scopes them (ABI 6).
	 */
	bool no_abstract;
	/*
	 * Abstract addresses the connector does not reach all answer EPERM: the sandbox is in the
	 * host's network namespace with the network enabled, and Landlock scopes abstract sockets.
	 * The kernel looks a name up before it asks Landlock, so a name an outside process bound
	 * gives EPERM and one nobody bound ECONNREFUSED: without this the command could learn,
	 * name by name, which abstract sockets the host has. A name the sandbox bound itself and
	 * listens on still connects.
	 */
	bool abstract_alike;
	/*
	 * The denial report: called in the supervisor for each connect the broker refuses by its
	 * rules, or its connector meets a refusal of the sandbox (why), with the process (its
	 * number on the host), the address ("unix:/run/x.sock", "unix:@name", "AF_INET") and the
	 * errno. NULL: none.
	 */
	void (*on_refused)(void *arg, pid_t pid, const char *address, int err,
			   enum sbx_broker_why why);
	void *on_refused_arg;
	/* Internal. */
	int chan[2];	    /* SOCK_SEQPACKET: supervisor [0] <-> connector [1] */
	int notify_chan[2]; /* init [1] hands the notification listener to the supervisor [0] */
	int notify_fd;	    /* the listener, in the supervisor */
};

/* Adds a place (path copied; fd owned by b). 0 or -errno with d filled. */
int sbx_broker_add_place(struct sbx_broker *b, const char *path, int fd, struct sbx_diag *d);
/* In the supervisor, before the clone: the channels and the watches. */
int sbx_broker_prepare(struct sbx_broker *b, struct sbx_diag *d);
/*
 * In init, after Landlock is enforced and before seccomp: opens the places to be opened inside
 * and forks the connector (no capability left, not dumpable, no seccomp filter).
 */
int sbx_broker_start_connector(struct sbx_broker *b, struct sbx_diag *d);
/* In init, once the filter with the broker's notifications is loaded: hands its listener over. */
int sbx_broker_hand_over(struct sbx_broker *b, int notify_fd, struct sbx_diag *d);
void sbx_broker_free(struct sbx_broker *b);

/* ---- network.c: the network of the enter sequence, from the plan ------------------------ */

struct sbx_linux_net {
	bool netns; /* the sandbox child gets CLONE_NEWNET */
	struct sbx_netns ns;
	bool broker_on;
	struct sbx_broker broker;
	bool filter; /* the network's own filter (the main one is then built as for "enabled") */
	struct sbx_seccomp_net sec;
	/* run --allow-domain: sbxrun's own proxy, served by the worker */
	struct sbx_domain_policy pol;
	struct sbx_proxy_config proxy;
	/*
	 * Any of the above needs a supervisor and init (sandbox.h): the clone(2) flags of the
	 * sandbox child, from the facts; 0 when nothing here needs one.
	 */
	unsigned long clone_flags;
};

/*
 * Reads the network off a plan attached for facts: which filter, the endpoints to bridge (the
 * proxies the plan names, or sbxrun's own proxy with h's patterns and log_fd, the file of h's
 * --network-log as the caller opened it, or -1), the broker's places (each allowed socket looked
 * up once through res and pinned; with an enabled network, the writable roots). 0 or -errno
 * with d filled. log_fd is n's from the call on, whatever it returns: free with
 * sbx_linux_net_free().
 */
int sbx_linux_net_from_plan(const struct sbx_plan *plan, const struct sbx_linux_facts *facts,
			    struct sbx_rulepaths *res, const struct sbx_handover *h, int log_fd,
			    struct sbx_linux_net *n, struct sbx_diag *d);
/*
 * Refuses (SBX_E_UNENFORCEABLE, d filled) a socket the command would inherit (a descriptor
 * without close-on-exec) that reaches past the network's rules: with the network restricted,
 * any but a connected Unix stream or seqpacket socket; with it enabled and path sockets
 * brokered (n from sbx_linux_net_from_plan), any other Unix socket. The filters and the
 * namespace judge the sockets the command makes; one made outside keeps its network.
 */
int sbx_linux_net_check_inherited(const struct sbx_linux_net *n, bool network, struct sbx_diag *d);
/*
 * The steps of the enter sequence (enter.c) under init, which the network needs (clone_flags):
 * in the supervisor before the clone, its watch, exit hook and broker channels.
 */
int sbx_linux_net_prepare(struct sbx_linux_net *n, struct sbx_diag *d);
/* Init, in its new namespaces, before capabilities are dropped. */
int sbx_linux_net_enter(struct sbx_linux_net *n, struct sbx_diag *d);
/* Init, once Landlock is enforced, before seccomp: the broker's connector. */
int sbx_linux_net_after_landlock(struct sbx_linux_net *n, struct sbx_diag *d);
/* Init, after the main seccomp filter: the network's own, and the broker's listener handed out. */
int sbx_linux_net_seccomp(struct sbx_linux_net *n, struct sbx_diag *d);
void sbx_linux_net_free(struct sbx_linux_net *n);

#endif /* SBX_PLATFORM_LINUX_NETNS_H */
