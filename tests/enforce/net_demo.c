/* SPDX-License-Identifier: MIT */
/*
 * net_demo.c - runs a command under the network pieces of platform/linux/netns.h with a small
 * sandbox of its own (no profile engine), so that the namespace, the bridge, sbxrun's proxy,
 * the network filter and the Unix socket broker can be tested on their own:
 *
 *   net-demo [--enabled] [--proxy-allow D]... [--bridge-env] [--port P]... [--local-binding]
 *            [--unix PATH]... [--confine ROOT]... [--all-unix] [--log FILE] -- CMD...
 *
 * Without --enabled the command gets a network namespace of its own (lo only) and the routed
 * filter; --proxy-allow serves its listener with sbxrun's proxy (the proxy variables set to it),
 * --bridge-env bridges the proxies of the proxy variables, --port a loopback port more;
 * --unix allows a socket (or a directory of them) through the broker; --enabled keeps the host's
 * network with the broker, path sockets reachable beneath --confine ROOTs only. The sandbox
 * applied in init: capabilities dropped, no_new_privs, a Landlock ruleset (its scopes only),
 * the filters.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/netns.h"
#include "linux/sandbox.h"

extern char **environ;

struct demo {
	struct sbx_linux_net net;
};

static int apply(void *arg, struct sbx_diag *d)
{
	struct demo *o = arg;
	struct sbx_landlock *ll = NULL;
	int abi = sbx_landlock_abi(), rc;

	rc = sbx_landlock_create(abi, false, false, &ll, d);
	if (rc == 0)
		rc = sbx_linux_net_enter(&o->net, d);
	if (rc == 0)
		rc = sbx_caps_drop_all(d);
	if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		rc = sbx_diag_set(d, -errno, "PR_SET_NO_NEW_PRIVS");
	if (rc == 0 && ll)
		rc = sbx_landlock_restrict_self(ll, d);
	sbx_landlock_free(ll);
	if (rc == 0)
		rc = sbx_linux_net_after_landlock(&o->net, d);
	if (rc == 0)
		rc = sbx_seccomp_apply(true, false, false, false, false, false, false, d);
	if (rc == 0)
		rc = sbx_linux_net_seccomp(&o->net, d);
	return rc;
}

int main(int argc, char **argv)
{
	static struct demo o;
	struct sbx_linux_net *n = &o.net;
	struct sbx_linux_facts facts;
	struct sbx_spawn s = {0};
	struct sbx_diag d;
	bool enabled = false, bridge_env = false, local = false, all_unix = false;
	const char *log = NULL;
	int i, rc = 0;

	sbx_diag_clear(&d);
	n->proxy.log_fd = -1;
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--enabled"))
			enabled = true;
		else if (!strcmp(a, "--bridge-env"))
			bridge_env = true;
		else if (!strcmp(a, "--local-binding"))
			local = true;
		else if (!strcmp(a, "--all-unix"))
			all_unix = true;
		else if (!strcmp(a, "--proxy-allow") && v && ++i)
			rc = sbx_domain_policy_add(&n->pol, false, v, &d);
		else if (!strcmp(a, "--log") && v && ++i)
			log = v;
		else if (!strcmp(a, "--port") && v && ++i)
			rc = sbx_netns_add_ep(&n->ns,
					      &(struct sbx_loopback_ep){.addr = {127, 0, 0, 1},
									.port = (unsigned)atoi(v)});
		else if (!strcmp(a, "--unix") && v && ++i)
			rc = sbx_broker_add_place(&n->broker, v, open(v, O_PATH | O_CLOEXEC), &d);
		else if (!strcmp(a, "--confine") && v && ++i)
			rc = sbx_broker_add_place(&n->broker, v, SBX_BROKER_OPEN_INSIDE, &d);
		else {
			fprintf(stderr, "net-demo: bad argument %s\n", a);
			return 125;
		}
		if (rc < 0) {
			sbx_diag_print(&d, stderr);
			return 125;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "net-demo: no command\n");
		return 125;
	}
	n->netns = !enabled;
	n->broker_on = n->broker.n_places > 0 || enabled;
	n->broker.other_families = true;
	if (n->netns) {
		n->sec = (struct sbx_seccomp_net){.routed = true,
						  .unix_sockets = all_unix || n->broker_on,
						  .no_dgram = !all_unix,
						  .serve = local,
						  .broker = n->broker_on};
	} else {
		n->sec = (struct sbx_seccomp_net){.no_dgram = true, .broker = true};
	}
	n->filter = true;
	if (n->pol.n_allow) {
		n->proxy.policy = &n->pol;
		n->proxy.drain_ms = 1000;
		n->proxy.log_fd =
			log ? open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
		n->ns.proxy = &n->proxy;
		sbx_netns_add_ep(&n->ns, &(struct sbx_loopback_ep){.addr = {127, 0, 0, 1}});
	} else if (bridge_env) {
		struct sbx_proxies px;

		if (sbx_proxies_from_env(environ, &px, &d) < 0) {
			sbx_diag_print(&d, stderr);
			return 125;
		}
		for (size_t k = 0; k < px.n; k++) {
			struct sbx_loopback_ep ep;

			if (sbx_proxy_endpoint_ep(&px.v[k], &ep) == 0)
				sbx_netns_add_ep(&n->ns, &ep);
		}
	}
	if (sbx_linux_net_prepare(n, &d) < 0) {
		sbx_diag_print(&d, stderr);
		return 125;
	}
	sbx_linux_probe(&facts);
	s.clone_flags = sbx_linux_sandbox_flags(&facts, n->netns);
	if (!s.clone_flags) {
		fprintf(stderr, "net-demo: no PID namespace on this host\n");
		return 125;
	}
	s.argv = &argv[i + 1];
	s.uid = geteuid();
	s.gid = getegid();
	s.apply = apply;
	s.apply_arg = &o;
	sbx_supervise(&s, &d);
	sbx_diag_print(&d, stderr);
	return 125;
}
