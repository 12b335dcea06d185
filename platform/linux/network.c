/* SPDX-License-Identifier: MIT */
/*
 * network.c - the network of the enter sequence, read off a finished plan: the namespace and
 * its listeners (netns.c), sbxrun's own proxy, the broker (broker.c) and the network's seccomp
 * filter (seccomp_net.c); and the steps enter.c takes with them, in the supervisor and in init.
 *
 * The filter, from the plan (sbx_plan_linux_apply):
 *   network namespace      routed: inet and inet6 sockets only, AF_UNIX with the allow-list
 *                          (brokered) or with every socket allowed; serve with local binding
 *   restricted, no namespace, broker or every Unix socket allowed
 *                          restricted: AF_UNIX only, connect brokered or allowed
 *   enabled, broker        every family, connect brokered (path sockets outside the writable
 *                          roots unreachable)
 *   otherwise              none: the main filter's network rules (restricted) or nothing
 * AF_UNIX datagram sockets are refused wherever the broker or the namespace confine Unix
 * sockets: each send names its peer where no filter can see it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/netns.h"
#include "net.h"
#include "unix/proxy.h"

/* Does an enforced requirement of kind k name mechanism bit? */
static bool enforced_by(const struct sbx_plan *p, enum sbx_req_kind k, unsigned bit)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].kind == k && p->reqs[i].status == SBX_ENFORCED &&
		    (p->reqs[i].mech & bit))
			return true;
	return false;
}

/* An allowed socket (or directory of them), pinned now: looked up once, no planted link. */
static int pin_allowed(const struct sbx_plan *plan, struct sbx_rulepaths *res, const char *path,
		       struct sbx_broker *b, struct sbx_diag *d)
{
	const struct sbx_rulepath *f = sbx_rulepath_get(res, path);
	int fd = -1, rc;

	if (!f)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	if (f->err)
		return sbx_diag_set(d, f->err, "cannot look up %s: %s", path, strerror(-f->err));
	rc = sbx_linux_link_check(plan, "Unix socket", path, sbx_rulepath_link(f),
				  f->facts.link_shared, f->real, d);
	if (rc < 0)
		return rc;
	/* Missing at start: nothing is reachable there (ENOENT) for this run. */
	if (f->facts.exists) {
		fd = fcntl(f->fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return sbx_diag_set(d, -errno, "pinning %s: %s", path, strerror(errno));
	}
	rc = sbx_broker_add_place(b, path, fd, d);
	if (rc < 0 && fd >= 0)
		close(fd);
	return rc;
}

static int own_proxy(struct sbx_linux_net *n, const struct sbx_plan *plan,
		     const struct sbx_handover *h, struct sbx_diag *d)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < h->n_allow_domains; i++)
		rc = sbx_domain_policy_add(&n->pol, false, h->allow_domains[i], d);
	for (size_t i = 0; rc == 0 && i < h->n_deny_domains; i++)
		rc = sbx_domain_policy_add(&n->pol, true, h->deny_domains[i], d);
	if (rc < 0)
		return rc;
	n->proxy.policy = &n->pol;
	/* --allow-private-addresses, as the plan took it (and explain shows it). */
	n->proxy.allow_private = plan->net.allow_private;
	n->proxy.drain_ms = SBX_OWN_PROXY_DRAIN_MS;
	n->proxy.log_max = SBX_OWN_PROXY_LOG_MAX;
	n->proxy.log_end_ms = SBX_OWN_PROXY_LOG_END_MS;
	n->proxy.log_what = "--network-log";
	n->ns.proxy = &n->proxy;
	n->ns.local_binding = plan->net.allow_local_binding;
	/* One listener, on a port the kernel picks inside the namespace. */
	return sbx_netns_add_ep(&n->ns, &(struct sbx_loopback_ep){.addr = {127, 0, 0, 1}});
}

int sbx_linux_net_from_plan(const struct sbx_plan *plan, const struct sbx_linux_facts *facts,
			    struct sbx_rulepaths *res, const struct sbx_handover *h, int log_fd,
			    struct sbx_linux_net *n, struct sbx_diag *d)
{
	const struct sbx_netplan *np = &plan->net;
	struct sbx_linux_apply a;
	bool allow_all = np->allow_all_unix_sockets;
	int rc = 0;

	memset(n, 0, sizeof(*n));
	n->ns.keep[0] = n->ns.keep[1] = n->ns.keep[2] = -1;
	n->proxy.log_fd = log_fd; /* closed by sbx_linux_net_free, used or not */
	sbx_plan_linux_apply(plan, facts, &a);
	n->netns = a.net_namespace;
	n->broker_on = a.unix_broker;

	if (n->netns) {
		n->sec = (struct sbx_seccomp_net){.routed = true,
						  .unix_sockets = allow_all || n->broker_on,
						  .no_dgram = !allow_all,
						  .serve = np->allow_local_binding,
						  .broker = n->broker_on};
		n->filter = true;
	} else if (!plan->network && (n->broker_on || allow_all)) {
		n->sec = (struct sbx_seccomp_net){
			.restricted = true, .no_dgram = !allow_all, .broker = n->broker_on};
		n->filter = true;
	} else if (plan->network && n->broker_on) {
		n->sec = (struct sbx_seccomp_net){.no_dgram = true, .broker = true};
		n->filter = true;
	}

	if (n->netns && plan->managed_network) {
		if (np->own_proxy) {
			rc = own_proxy(n, plan, h, d);
		} else {
			for (size_t i = 0; rc == 0 && i < np->proxies.n; i++) {
				struct sbx_loopback_ep ep;

				if (sbx_proxy_endpoint_ep(&np->proxies.v[i], &ep) == 0)
					rc = sbx_netns_add_ep(&n->ns, &ep);
			}
			for (size_t i = 0; rc == 0 && i < np->n_ports; i++)
				rc = sbx_netns_add_ep(
					&n->ns, &(struct sbx_loopback_ep){.addr = {127, 0, 0, 1},
									  .port = np->ports[i]});
			if (rc == -ENOSPC)
				rc = sbx_diag_set(d, rc, "too many proxies to bridge");
		}
	}

	if (rc == 0 && n->broker_on) {
		n->broker.other_families = plan->network || n->netns;
		n->broker.no_abstract = !plan->network && !n->netns;
		/* The host's namespace, its names scoped out of reach: none answers otherwise. */
		n->broker.abstract_alike =
			plan->network && !n->netns && a.landlock_abi >= SBX_LL_ABI_SCOPE;
		for (size_t i = 0; rc == 0 && !allow_all && i < np->n_unix_sockets; i++)
			rc = pin_allowed(plan, res, np->unix_sockets[i], &n->broker, d);
		/* An enabled network: the sockets in the writable roots stay the command's own. */
		if (enforced_by(plan, SBX_REQ_PATH_SOCKETS, SBX_MECH_UNIX_BROKER))
			for (size_t i = 0; rc == 0 && i < plan->roots.n_writable; i++)
				rc = sbx_broker_add_place(&n->broker, plan->roots.writable[i].root,
							  SBX_BROKER_OPEN_INSIDE, d);
	}
	/*
	 * The namespace is made by init's clone(2), and the broker is the supervisor's: either
	 * needs the process model of sandbox.h. The plan enforced them only where the facts allow
	 * it; a host that cannot make the namespaces after all is refused here, never run without.
	 */
	if (rc == 0 && (n->netns || n->broker_on)) {
		n->clone_flags = sbx_linux_sandbox_flags(facts, n->netns);
		if (!n->clone_flags)
			rc = sbx_diag_set(
				d, SBX_E_UNENFORCEABLE,
				"the network's rules need a supervisor and a PID, IPC and "
				"mount namespace, which this host cannot make");
	}
	if (rc < 0)
		sbx_linux_net_free(n);
	return rc;
}

static const char *family_words(int family)
{
	switch (family) {
	case AF_UNIX:
		return "a Unix";
	case AF_INET:
		return "an IPv4";
	case AF_INET6:
		return "an IPv6";
	case AF_NETLINK:
		return "a netlink";
	case AF_PACKET:
		return "a packet";
	}
	return "a network";
}

/*
 * Whether the socket fd, which the command would inherit, reaches past the sandbox's network: 0,
 * or -errno with d filled. Only a connected Unix stream or seqpacket socket is kept to its
 * peer: connect(2) on it says EISCONN and an AF_UNSPEC address is EINVAL for Unix sockets. A
 * TCP socket, connected or not, connects again (AF_UNSPEC dissolves a connection); a datagram
 * socket names its peer on every send; an unconnected Unix socket connects to any path socket.
 * unix_only: other families reach an enabled network, which they may.
 */
static int inherited_socket(int fd, bool unix_only, struct sbx_diag *d)
{
	int family = -1, type = -1;
	socklen_t l = sizeof(family);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	const char *what;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &family, &l) < 0)
		family = -1;
	l = sizeof(type);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) < 0)
		type = -1;
	if (family != AF_UNIX && unix_only)
		return 0;
	if (family == AF_UNIX && (type == SOCK_STREAM || type == SOCK_SEQPACKET) &&
	    getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		return 0;
	what = type == SOCK_STREAM	? "stream"
	       : type == SOCK_SEQPACKET ? "seqpacket"
	       : type == SOCK_DGRAM	? "datagram"
	       : type == SOCK_RAW	? "raw"
					: "other";
	sbx_diag_set(d, SBX_E_UNENFORCEABLE,
		     "descriptor %d, inherited by the command, is %s %s socket%s, which %s "
		     "cannot confine",
		     fd, family_words(family), what,
		     family == AF_UNIX && (type == SOCK_STREAM || type == SOCK_SEQPACKET)
			     ? " that is not connected"
			     : "",
		     unix_only ? "the rules on path sockets" : "a restricted network");
	/*
	 * An enabled network lets the other families go, not a Unix socket: the broker keeps
	 * path sockets out of reach wherever the file system is restricted.
	 */
	return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
			     "close it, or mark it close-on-exec, before starting sbxrun%s",
			     family == AF_UNIX ? "" : ", or enable the network");
}

/* close_range(2)'s flag, which older headers lack (Linux 5.11). */
#define SBX_CLOSE_RANGE_CLOEXEC (1u << 2)

/*
 * One descriptor the command would inherit: a socket is checked; -errno with d filled. Only a
 * descriptor that is not open (EBADF) is none: any other error leaves its kind unknown, and a
 * socket taken for a file would reach past the network.
 */
static int inherited_fd(int fd, bool unix_only, struct sbx_diag *d)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFD), err = 0;

	if (fl >= 0 && (fl & FD_CLOEXEC))
		return 0;
	if (fl < 0 || fstat(fd, &st) < 0)
		err = errno;
	if (err == EBADF || (!err && !S_ISSOCK(st.st_mode)))
		return 0;
	if (err) {
		sbx_diag_set(
			d, SBX_E_UNENFORCEABLE,
			"descriptor %d, inherited by the command, cannot be checked for a socket "
			"(%s: %s)",
			fd, fl < 0 ? "fcntl" : "fstat", strerror(err));
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "close it, or mark it close-on-exec, before starting sbxrun");
	}
	/*
	 * An O_PATH descriptor of a socket file, which fstat calls a socket, is none: a new socket
	 * reaches the file through it by a name (/proc/self/fd/N), under the rules on names, so it
	 * is a file, the caller's as CAVEATS says.
	 */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && (fl & O_PATH))
		return 0;
	return inherited_socket(fd, unix_only, d);
}

int sbx_linux_net_check_inherited(const struct sbx_linux_net *n, bool network, struct sbx_diag *d)
{
	bool unix_only = network;
	struct dirent *de;
	struct rlimit rl;
	DIR *dir;
	int rc = 0;

	/* An enabled network without the broker confines no socket: nothing to reach past. */
	if (network && !n->broker_on)
		return 0;
	dir = opendir("/proc/self/fd");
	if (dir) {
		while (rc == 0 && (de = readdir(dir))) {
			char *end;
			long fd = strtol(de->d_name, &end, 10);

			if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && !*end &&
			    fd != dirfd(dir))
				rc = inherited_fd((int)fd, unix_only, d);
		}
		closedir(dir);
		return rc;
	}
	/*
	 * No /proc: each descriptor up to the limit. One above it (opened before the limit was
	 * lowered) is out of the scan's reach: everything from the limit up is made close-on-exec,
	 * so the command inherits nothing that was not checked; a kernel that cannot (before 5.11)
	 * refuses the run.
	 */
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (1u << 20))
		rl.rlim_cur = 1u << 20;
	for (rlim_t fd = 0; rc == 0 && fd < rl.rlim_cur; fd++)
		rc = inherited_fd((int)fd, unix_only, d);
	if (rc == 0 && syscall(__NR_close_range, (unsigned int)rl.rlim_cur, ~0u,
			       SBX_CLOSE_RANGE_CLOEXEC) < 0) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "without /proc, descriptors from %lu up cannot be checked for sockets "
			     "the command would inherit (close_range: %s)",
			     (unsigned long)rl.rlim_cur, strerror(errno));
		rc = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				   "mount /proc, or raise the soft limit on open files (ulimit -n) "
				   "above every descriptor open");
	}
	return rc;
}

int sbx_linux_net_prepare(struct sbx_linux_net *n, struct sbx_diag *d)
{
	int rc = 0;

	if (n->netns && n->ns.n_eps)
		rc = sbx_netns_prepare(&n->ns, d);
	if (rc == 0 && n->broker_on)
		rc = sbx_broker_prepare(&n->broker, d);
	return rc;
}

int sbx_linux_net_enter(struct sbx_linux_net *n, struct sbx_diag *d)
{
	if (!n->netns)
		return 0;
	if (!n->ns.n_eps)
		return sbx_netns_loopback_up(d);
	return sbx_netns_enter(&n->ns, d);
}

int sbx_linux_net_after_landlock(struct sbx_linux_net *n, struct sbx_diag *d)
{
	return n->broker_on ? sbx_broker_start_connector(&n->broker, d) : 0;
}

int sbx_linux_net_seccomp(struct sbx_linux_net *n, struct sbx_diag *d)
{
	int notify = -1, rc;

	if (!n->filter)
		return 0;
	rc = sbx_seccomp_net_apply(&n->sec, &notify, d);
	if (rc == 0 && n->sec.broker)
		rc = sbx_broker_hand_over(&n->broker, notify, d);
	return rc;
}

void sbx_linux_net_free(struct sbx_linux_net *n)
{
	sbx_broker_free(&n->broker);
	sbx_domain_policy_free(&n->pol);
	if (n->proxy.log_fd > STDERR_FILENO) /* "-" is standard error, not ours to close */
		close(n->proxy.log_fd);
	n->proxy.log_fd = -1;
}
