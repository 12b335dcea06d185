/* SPDX-License-Identifier: MIT */
/*
 * test_managed_net.c - the network beyond the profile in a plan (sbx_plan_network): the
 * requirements each allowance adds and what every platform decides about them, and the Unix
 * socket allow-list on macOS against links planted on its way. The parsers themselves (proxy
 * variables, Codex's ManagedNetworkSandboxContext, socket paths) run as vectors (area
 * "managed_network" of sbxrun-vectors.json).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbpl.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

/* An environment as the C runtime hands it over: writable strings. */
static char env_path[] = "PATH=/usr/bin", env_upper[] = "HTTPS_PROXY=http://127.0.0.1:3128",
	    env_lower[] = "https_proxy=http://127.0.0.1:3128";
static char *env_proxy[] = {env_path, env_upper, env_lower, NULL};

/*
 * Plans profile (a built-in's name, or a profile's JSON text) for platform with the network
 * options o; false (and a failure) when it fails.
 */
static bool plan_for(const char *profile, enum sbx_platform platform, bool managed,
		     const struct sbx_net_opts *o, struct sbx_plan *p)
{
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	struct sbx_profile prof = {0};
	enum sbx_input_form form;
	struct sbx_diag d;
	bool ok;

	ctx.platform = platform;
	sbx_diag_clear(&d);
	ok = (profile[0] == '{' ? sbx_profile_load_buf(profile, strlen(profile), "profile", &prof,
						       &form, NULL, &d)
				: sbx_profile_builtin(profile, &prof, &d)) == 0 &&
	     sbx_plan_build(&prof, &ctx, SBX_PREF_AUTO, managed, SBX_WIN_RESTRICTED_TOKEN, p, &d) ==
		     0 &&
	     sbx_plan_network(p, o, &d) == 0;
	if (!ok)
		t_fail(__FILE__, __LINE__, "%s: %s", profile, d.msg);
	sbx_profile_free(&prof);
	return ok;
}

static const struct sbx_req *find(const struct sbx_plan *p, enum sbx_req_kind kind, size_t nth)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].kind == kind && nth-- == 0)
			return &p->reqs[i];
	return NULL;
}

static size_t count(const struct sbx_plan *p, enum sbx_req_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_reqs; i++)
		n += p->reqs[i].kind == kind;
	return n;
}

TEST(plan_network_requirements)
{
	const char *socks[] = {"/run/b.sock", "/run/x/../a.sock", "/run/a.sock/"};
	struct sbx_net_opts o = {.env = env_proxy,
				 .unix_sockets = socks,
				 .n_unix_sockets = 3,
				 .allow_local_binding = true};
	struct sbx_plan p = {0};
	const struct sbx_req *r;

	if (!plan_for(":workspace", SBX_PLATFORM_MACOS, true, &o, &p))
		return;
	/* The allow-list normalized, sorted and without duplicates; one requirement each. */
	CHECK_INT(p.net.n_unix_sockets, 2);
	CHECK_STR(p.net.unix_sockets[0], "/run/a.sock");
	CHECK_STR(p.net.unix_sockets[1], "/run/b.sock");
	CHECK_INT(count(&p, SBX_REQ_UNIX_SOCKET), 2);
	r = find(&p, SBX_REQ_UNIX_SOCKET, 0);
	CHECK(r && strcmp(r->rule, "connect to Unix socket /run/a.sock") == 0);
	CHECK(r && r->path && strcmp(r->path, "/run/a.sock") == 0);
	r = find(&p, SBX_REQ_LOCAL_BINDING, 0);
	CHECK(r && strcmp(r->rule, "bind and serve on loopback") == 0);
	/* The managed network names its proxies, once per endpoint. */
	CHECK_INT(p.net.proxies.n, 2);
	r = find(&p, SBX_REQ_MANAGED_NETWORK, 0);
	CHECK(r && strcmp(r->rule,
			  "managed network: connect only to the proxies at 127.0.0.1:3128") == 0);
	/* macOS enforces them all. */
	CHECK_INT(sbx_plan_attach_macos(&p, true), 0);
	CHECK(sbx_plan_enforceable(&p));
	sbx_plan_free(&p);
}

TEST(plan_network_linux_and_windows_refuse)
{
	const char *socks[] = {"/run/agent.sock"};
	struct sbx_net_opts o = {.env = env_proxy,
				 .unix_sockets = socks,
				 .n_unix_sockets = 1,
				 .allow_local_binding = true};
	struct sbx_linux_facts f;
	struct sbx_plan p = {0};
	const struct sbx_req *r;

	/*
	 * Linux, a host that has every mechanism: the socket through the supervisor's broker,
	 * loopback in a network namespace of the sandbox's own.
	 */
	sbx_linux_facts_assumed(&f);
	if (plan_for(":workspace", SBX_PLATFORM_LINUX, false, &o, &p)) {
		char m[SBX_MECH_NAME_MAX];

		CHECK_INT(sbx_plan_attach_linux(&p, &f), 0);
		CHECK(sbx_plan_enforceable(&p));
		r = find(&p, SBX_REQ_UNIX_SOCKET, 0);
		CHECK(r && r->status == SBX_ENFORCED &&
		      strcmp(sbx_mech_name(r->mech, m), "seccomp+unix-broker") == 0);
		r = find(&p, SBX_REQ_LOCAL_BINDING, 0);
		CHECK(r && r->status == SBX_ENFORCED &&
		      strcmp(sbx_mech_name(r->mech, m), "seccomp+network-namespace") == 0);
		/* Ports a local server takes cannot be known: Landlock handles no TCP then. */
		r = find(&p, SBX_REQ_NETWORK, 0);
		CHECK(r && r->status == SBX_ENFORCED &&
		      strcmp(sbx_mech_name(r->mech, m), "seccomp") == 0);
	}
	sbx_plan_free(&p);

	/* Without the broker's kernel interfaces or a network namespace: refused, saying why. */
	f.unix_broker = false;
	f.net_namespace = false;
	if (plan_for(":workspace", SBX_PLATFORM_LINUX, false, &o, &p)) {
		CHECK_INT(sbx_plan_attach_linux(&p, &f), 0);
		CHECK(!sbx_plan_enforceable(&p));
		r = find(&p, SBX_REQ_UNIX_SOCKET, 0);
		CHECK(r && r->status == SBX_UNENFORCEABLE && sbx_req_reason(r) &&
		      strstr(sbx_req_reason(r), "needs the supervisor's broker"));
		r = find(&p, SBX_REQ_LOCAL_BINDING, 0);
		CHECK(r && r->status == SBX_UNENFORCEABLE && sbx_req_reason(r) &&
		      strstr(sbx_req_reason(r), "network namespace of the sandbox's own"));
		r = find(&p, SBX_REQ_NETWORK, 0);
		CHECK(r && r->status == SBX_ENFORCED);
	}
	sbx_plan_free(&p);

	/* Windows, unelevated: refused, managed networking in Codex's words. */
	if (plan_for(":workspace", SBX_PLATFORM_WINDOWS, true, &o, &p)) {
		CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
		r = find(&p, SBX_REQ_MANAGED_NETWORK, 0);
		CHECK(r && r->status == SBX_UNENFORCEABLE && sbx_req_reason(r) &&
		      strstr(sbx_req_reason(r),
			     "managed networking requires the elevated Windows sandbox "
			     "backend"));
		r = find(&p, SBX_REQ_UNIX_SOCKET, 0);
		CHECK(r && r->status == SBX_UNENFORCEABLE);
		r = find(&p, SBX_REQ_LOCAL_BINDING, 0);
		CHECK(r && r->status == SBX_UNENFORCEABLE);
	}
	sbx_plan_free(&p);

	/* A profile with nothing for the token to restrict: still refused for the managed network. */
	if (plan_for(":danger-full-access", SBX_PLATFORM_WINDOWS, true, &o, &p)) {
		CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
		CHECK(!sbx_plan_enforceable(&p));
		CHECK(p.n_reqs > 0 && sbx_req_reason(&p.reqs[0]) &&
		      strstr(sbx_req_reason(&p.reqs[0]),
			     "managed networking requires the elevated Windows "
			     "sandbox backend"));
	}
	sbx_plan_free(&p);
}

TEST(plan_network_no_sandbox_no_requirements)
{
	const char *socks[] = {"/run/agent.sock"};
	struct sbx_net_opts o = {.unix_sockets = socks, .n_unix_sockets = 1};
	struct sbx_plan p = {0};

	/* Nothing is confined: the socket is reachable anyway, and no requirement says otherwise. */
	if (plan_for(":danger-full-access", SBX_PLATFORM_MACOS, false, &o, &p)) {
		CHECK(!p.sandbox_requested);
		CHECK_INT(p.n_reqs, 0);
		CHECK_INT(p.net.n_unix_sockets, 1);
	}
	sbx_plan_free(&p);
}

TEST(plan_network_errors)
{
	const char *rel[] = {"agent.sock"};
	char *no_proxy[] = {env_path, NULL};
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	struct sbx_net_opts o = {.unix_sockets = rel, .n_unix_sockets = 1};
	struct sbx_profile prof = {0};
	struct sbx_plan p = {0};
	struct sbx_diag d;

	ctx.platform = SBX_PLATFORM_MACOS;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_builtin(":workspace", &prof, &d), 0);
	/* A relative socket path: refused, whatever the cwd. */
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_AUTO, false, SBX_WIN_DISABLED, &p, &d), 0);
	CHECK_INT(sbx_plan_network(&p, &o, &d), SBX_E_INVALID);
	CHECK(strstr(d.msg, "Unix socket path \"agent.sock\" is not absolute") != NULL);
	sbx_plan_free(&p);
	/* Managed networking with no proxy in the environment: refused, with a hint. */
	sbx_diag_clear(&d);
	o = (struct sbx_net_opts){.env = no_proxy};
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_AUTO, true, SBX_WIN_DISABLED, &p, &d), 0);
	CHECK_INT(sbx_plan_network(&p, &o, &d), SBX_E_INVALID);
	CHECK(strstr(d.msg, "managed networking needs a proxy") != NULL);
	CHECK(d.hint[0] != '\0');
	sbx_plan_free(&p);
	/* The control: the same plan with a loopback proxy is made. */
	sbx_diag_clear(&d);
	o = (struct sbx_net_opts){.env = env_proxy};
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_AUTO, true, SBX_WIN_DISABLED, &p, &d), 0);
	CHECK_INT(sbx_plan_network(&p, &o, &d), 0);
	sbx_plan_free(&p);
	sbx_profile_free(&prof);
}

/*
 * An earlier run, which could write the workspace, replaced the agent's socket with a link to a
 * daemon's socket: allowing the link's target would open the daemon. Refused, by the attacher
 * (explain and run say why) and by the generator alike; the real path is accepted.
 */
TEST(plan_network_socket_through_link_refused)
{
	char *dir = vec_fresh_dir(), *daemon = NULL, *link = NULL, *inside = NULL;
	const char *socks[1];
	struct sbx_net_opts o = {.unix_sockets = socks, .n_unix_sockets = 1};
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	struct sbx_sbpl sb = {0};
	struct sbx_plan p = {0};
	struct sbx_diag d;
	const struct sbx_req *r;

	if (asprintf(&daemon, "%s/daemon", dir) < 0 || asprintf(&link, "%s/ws", dir) < 0 ||
	    asprintf(&inside, "%s/ws/docker.sock", dir) < 0 || vec_mkdir(daemon) != 0 ||
	    symlink(daemon, link) != 0) {
		t_fail(__FILE__, __LINE__, "cannot make the fixture");
		goto out;
	}
	ctx.platform = SBX_PLATFORM_MACOS;
	socks[0] = inside;
	if (!plan_for(":read-only", SBX_PLATFORM_MACOS, false, &o, &p))
		goto out;
	CHECK_INT(sbx_plan_attach_macos(&p, true), 0);
	r = find(&p, SBX_REQ_UNIX_SOCKET, 0);
	CHECK(r && r->status == SBX_UNENFORCEABLE && sbx_req_reason(r) &&
	      strstr(sbx_req_reason(r), "goes through symbolic link") && sbx_req_hint(r));
	sbx_diag_clear(&d);
	CHECK_INT(sbx_sbpl_build(&p, &ctx, &sb, &d), SBX_E_UNENFORCEABLE);
	CHECK(strstr(d.msg, "goes through symbolic link") != NULL);
	sbx_sbpl_free(&sb);
	sbx_plan_free(&p);

	/* The control: the socket named by its real path is allowed. */
	free(inside);
	inside = NULL;
	if (asprintf(&inside, "%s/docker.sock", daemon) < 0)
		goto out;
	socks[0] = inside;
	if (!plan_for(":read-only", SBX_PLATFORM_MACOS, false, &o, &p))
		goto out;
	CHECK_INT(sbx_plan_attach_macos(&p, true), 0);
	CHECK(sbx_plan_enforceable(&p));
	sbx_diag_clear(&d);
	CHECK_INT(sbx_sbpl_build(&p, &ctx, &sb, &d), 0);
out:
	sbx_sbpl_free(&sb);
	sbx_plan_free(&p);
	free(daemon);
	free(link);
	free(inside);
	free(dir);
}

/* Without sbx_plan_network, a plan with managed networking has no proxy: the policy denies. */
TEST(plan_network_unplanned_managed_fails_closed)
{
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	struct sbx_profile prof = {0};
	struct sbx_plan p = {0};
	struct sbx_sbpl sb = {0};
	struct sbx_diag d;

	ctx.platform = SBX_PLATFORM_MACOS;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_builtin(":danger-full-access", &prof, &d), 0);
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_AUTO, true, SBX_WIN_DISABLED, &p, &d), 0);
	CHECK_INT(sbx_plan_attach_macos(&p, true), 0);
	CHECK_INT(sbx_sbpl_build(&p, &ctx, &sb, &d), 0);
	CHECK(sb.policy && strstr(sb.policy, "; network: managed, but no proxy on loopback is "
					     "known: denied\n"));
	CHECK(sb.policy && !strstr(sb.policy, "(allow network-outbound"));
	/* The control: with a proxy, its port is allowed. */
	sbx_sbpl_free(&sb);
	p.net.proxies.n = 1;
	p.net.proxies.v[0] = (struct sbx_proxy_endpoint){.port = 3128, .loopback = true};
	CHECK_INT(sbx_sbpl_build(&p, &ctx, &sb, &d), 0);
	CHECK(sb.policy && strstr(sb.policy, "(allow network-outbound (remote ip "
					     "\"localhost:3128\"))"));
	sbx_sbpl_free(&sb);
	sbx_plan_free(&p);
	sbx_profile_free(&prof);
}

/* The Linux bridge's side of the variables: endpoints, rewritten values, sbxrun's own proxy. */
TEST(proxy_rewrite_for_the_bridge)
{
	static const struct {
		const char *value, *host;
		unsigned port;
		const char *want;
	} cases[] = {
		{"http://localhost:3128", "127.0.0.1", 3128, "http://127.0.0.1:3128"},
		{"http://127.0.0.1:3128/", "127.0.0.1", 3128, "http://127.0.0.1:3128/"},
		{"localhost:8080", "127.0.0.1", 8080, "127.0.0.1:8080"},
		{"socks5h://user:p@ss@localhost:1080", "127.0.0.1", 1080,
		 "socks5h://user:p@ss@127.0.0.1:1080"},
		{"https://[::1]", "[::1]", 443, "https://[::1]:443"},
		{"  http://localhost:3128  ", "127.0.0.1", 9, "http://127.0.0.1:9"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *out = NULL;

		CHECK_INT(sbx_proxy_rewrite(cases[i].value, cases[i].host, cases[i].port, &out), 0);
		CHECK_STR(out, cases[i].want);
		free(out);
	}
	{
		char *out = NULL;

		CHECK_INT(sbx_proxy_rewrite("http://", "127.0.0.1", 1, &out), SBX_E_INVALID);
		CHECK_INT(sbx_proxy_rewrite("http://h:1", "127.0.0.1", 0, &out), SBX_E_INVALID);
		CHECK(out == NULL);
	}
}

TEST(proxy_endpoints_and_environment)
{
	static char v1[] = "http_proxy=http://localhost:3128",
		    v2[] = "HTTPS_PROXY=http://[::1]:8443", v3[] = "ALL_PROXY=socks5://127.0.0.2",
		    v4[] = "PATH=/bin", v5[] = "no_proxy=x";
	char *env[] = {v1, v2, v3, v4, v5, NULL};
	struct sbx_proxies px;
	struct sbx_loopback_ep ep;
	struct sbx_strv out = {0};
	struct sbx_diag d;
	char buf[64];

	sbx_diag_clear(&d);
	CHECK_INT(sbx_proxies_from_env(env, &px, &d), 0);
	CHECK_INT(px.n, 3);
	for (size_t i = 0; i < px.n; i++) {
		CHECK_INT(sbx_proxy_endpoint_ep(&px.v[i], &ep), 0);
		sbx_loopback_ep_format(&ep, buf, sizeof(buf));
		/* localhost is marked: the bridge tries [::1] on the host where 127.0.0.1 refuses. */
		CHECK(ep.localhost == (strcmp(px.v[i].host, "localhost") == 0));
		if (strcmp(px.v[i].var, "http_proxy") == 0)
			CHECK_STR(buf, "127.0.0.1:3128");
		else if (strcmp(px.v[i].var, "HTTPS_PROXY") == 0)
			CHECK_STR(buf, "[::1]:8443");
		else
			CHECK_STR(buf, "127.0.0.2:1080");
	}
	/* Only what changes is set again: localhost becomes a number, a number stays. */
	CHECK_INT(sbx_proxy_env_rewrite(env, &out), 0);
	CHECK_INT(out.n, 2);
	CHECK_STR(out.v[0], "http_proxy=http://127.0.0.1:3128");
	CHECK_STR(out.v[1], "ALL_PROXY=socks5://127.0.0.2:1080");
	sbx_strv_clear(&out);
	/* A proxy that is not on loopback has no endpoint. */
	px.v[0].loopback = false;
	CHECK(sbx_proxy_endpoint_ep(&px.v[0], &ep) == -EINVAL);
	/* sbxrun's own proxy: every variable, in both spellings, but npm's "http-proxy", which
	 * npm has no setting for (it warns), removed instead. */
	ep = (struct sbx_loopback_ep){.addr = {127, 0, 0, 1}, .port = 40112};
	CHECK_INT(sbx_proxy_env_own(&ep, false, &out), 0);
	CHECK_INT(out.n, 2 * (SBX_PROXY_VARS_N + SBX_NO_PROXY_VARS_N));
	CHECK_STR(out.v[0], "HTTP_PROXY=http://127.0.0.1:40112");
	CHECK_STR(out.v[1], "http_proxy=http://127.0.0.1:40112");
	CHECK_STR(out.v[2 * SBX_PROXY_VARS_N - 1], "docker_https_proxy=http://127.0.0.1:40112");
	/* A caller's no-proxy variables would send requests around the proxy: removed. */
	CHECK_STR(out.v[2 * SBX_PROXY_VARS_N], "NO_PROXY");
	CHECK_STR(out.v[2 * SBX_PROXY_VARS_N + 1], "no_proxy");
	CHECK_STR(out.v[2 * SBX_PROXY_VARS_N + 3], "npm_config_noproxy");
	CHECK_STR(out.v[out.n - 1], "bundle_no_proxy");
	for (size_t i = 0; i < 2 * SBX_PROXY_VARS_N; i++) {
		if (strncasecmp(out.v[i], "npm_config_http_proxy", 21) == 0)
			CHECK(out.v[i][21] == '\0');
		else
			CHECK(strstr(out.v[i], "=http://127.0.0.1:40112") != NULL);
	}
	CHECK_STR(out.v[16], "NPM_CONFIG_HTTP_PROXY");
	CHECK_STR(out.v[17], "npm_config_http_proxy");
	CHECK_STR(out.v[18], "NPM_CONFIG_HTTPS_PROXY=http://127.0.0.1:40112");
	CHECK_STR(out.v[20], "NPM_CONFIG_PROXY=http://127.0.0.1:40112");
	sbx_strv_clear(&out);
	/* With local binding they name the loopback, where the command's own servers are. */
	CHECK_INT(sbx_proxy_env_own(&ep, true, &out), 0);
	CHECK_INT(out.n, 2 * (SBX_PROXY_VARS_N + SBX_NO_PROXY_VARS_N));
	CHECK_STR(out.v[2 * SBX_PROXY_VARS_N], "NO_PROXY=localhost,127.0.0.1,::1");
	CHECK_STR(out.v[2 * SBX_PROXY_VARS_N + 5], "yarn_no_proxy=localhost,127.0.0.1,::1");
	CHECK_STR(out.v[out.n - 1], "bundle_no_proxy=localhost,127.0.0.1,::1");
	sbx_strv_clear(&out);
}

TEST(plan_network_own_proxy)
{
	const char *allow[] = {"registry.npmjs.org", "*.github.com"}, *deny[] = {"bad.github.com"};
	struct sbx_net_opts o = {.own_proxy = true,
				 .allow_domains = allow,
				 .n_allow_domains = 2,
				 .deny_domains = deny,
				 .n_deny_domains = 1};
	struct sbx_plan p = {0};
	const struct sbx_req *r;

	/* No proxy variable is needed: the run sets them. */
	if (plan_for(":workspace", SBX_PLATFORM_LINUX, true, &o, &p)) {
		CHECK_INT(p.net.proxies.n, 0);
		r = find(&p, SBX_REQ_MANAGED_NETWORK, 0);
		CHECK(r && strcmp(r->rule, "managed network: only through sbxrun's proxy, to "
					   "registry.npmjs.org, *.github.com but not "
					   "bad.github.com") == 0);
		CHECK(!p.net.allow_private);
	}
	sbx_plan_free(&p);
	/* --allow-private-addresses: the plan keeps it for the proxy, and its rule says it. */
	o.allow_private = true;
	if (plan_for(":workspace", SBX_PLATFORM_LINUX, true, &o, &p)) {
		CHECK(p.net.allow_private);
		r = find(&p, SBX_REQ_MANAGED_NETWORK, 0);
		CHECK(r && strcmp(r->rule, "managed network: only through sbxrun's proxy, to "
					   "registry.npmjs.org, *.github.com but not "
					   "bad.github.com; allowed names may lead to private "
					   "addresses") == 0);
	}
	sbx_plan_free(&p);
	/* A managed context's ports are endpoints too. */
	{
		const unsigned ports[] = {3128, 8080};
		struct sbx_net_opts c = {.env = env_proxy, .ports = ports, .n_ports = 2};

		if (plan_for(":workspace", SBX_PLATFORM_LINUX, true, &c, &p)) {
			r = find(&p, SBX_REQ_MANAGED_NETWORK, 0);
			CHECK(r &&
			      strcmp(r->rule, "managed network: connect only to the proxies at "
					      "127.0.0.1:3128, 127.0.0.1:3128, "
					      "127.0.0.1:8080") == 0);
		}
		sbx_plan_free(&p);
	}
}

/*
 * Abstract Unix sockets on Linux: one requirement, whose mechanism depends on how the network is
 * confined and on what the host has (none on the other platforms, which have no such sockets).
 */
static const struct sbx_req *abstract_req(const char *profile, bool managed,
					  const struct sbx_net_opts *o,
					  const struct sbx_linux_facts *f, struct sbx_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (!plan_for(profile, SBX_PLATFORM_LINUX, managed, o, p))
		return NULL;
	CHECK_INT(sbx_plan_attach_linux(p, f), 0);
	CHECK_INT(count(p, SBX_REQ_ABSTRACT_SOCKETS), 1);
	return find(p, SBX_REQ_ABSTRACT_SOCKETS, 0);
}

/* r is in status st, enforced by the mechanisms named m, its reason holding why. */
static void check_abstract(const struct sbx_req *r, enum sbx_req_status st, const char *m,
			   const char *why)
{
	char name[SBX_MECH_NAME_MAX];

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_INT(r->status, st);
	CHECK_STR(sbx_mech_name(r->mech, name), m);
	CHECK(sbx_req_reason(r) && strstr(sbx_req_reason(r), why));
	if (!sbx_req_reason(r) || !strstr(sbx_req_reason(r), why))
		t_fail(__FILE__, __LINE__, "reason: %s",
		       sbx_req_reason(r) ? sbx_req_reason(r) : "-");
}

TEST(plan_abstract_sockets_linux)
{
	static const char enabled[] =
		"{\"type\":\"managed\",\"network\":\"enabled\",\"file_system\":{\"type\":"
		"\"restricted\",\"entries\":[{\"path\":{\"type\":\"special\",\"value\":{"
		"\"kind\":\"root\"}},\"access\":\"read\"}]}}";
	const char *socks[] = {"/run/agent.sock"};
	struct sbx_net_opts none = {0}, allow = {.unix_sockets = socks, .n_unix_sockets = 1},
			    all = {.allow_all_unix_sockets = true}, managed = {.env = env_proxy};
	struct sbx_linux_facts f, nouserns, old;
	struct sbx_plan p;

	sbx_linux_facts_assumed(&f);
	/* No user namespace: no mount, PID, IPC or network namespace, no broker. */
	nouserns = f;
	nouserns.user_namespaces = nouserns.mount_namespace = nouserns.pid_namespace = false;
	nouserns.ipc_namespace = nouserns.net_namespace = false;
	/* Landlock without the abstract-socket scope (ABI 5, before Linux 6.12). */
	old = f;
	old.landlock_abi = 5;

	/* Restricted, the host's namespace: seccomp refuses every connect. */
	check_abstract(abstract_req(":workspace", false, &none, &f, &p), SBX_ENFORCED, "seccomp",
		       "seccomp refuses connect");
	sbx_plan_free(&p);
	check_abstract(abstract_req(":workspace", false, &none, &nouserns, &p), SBX_ENFORCED,
		       "seccomp", "seccomp refuses connect");
	sbx_plan_free(&p);
	/* Restricted with an allowed socket: the broker refuses every abstract address. */
	check_abstract(abstract_req(":workspace", false, &allow, &f, &p), SBX_ENFORCED,
		       "seccomp+unix-broker", "the supervisor refuses every abstract address");
	sbx_plan_free(&p);
	/* Managed: the sandbox's own network namespace. */
	check_abstract(abstract_req(":workspace", true, &managed, &f, &p), SBX_ENFORCED,
		       "seccomp+network-namespace", "own network namespace");
	sbx_plan_free(&p);
	/* Enabled, the host's namespace: Landlock's scope, the broker's one answer. */
	check_abstract(abstract_req(enabled, false, &none, &f, &p), SBX_ENFORCED, "landlock",
		       "so connect does not tell which names the host has");
	sbx_plan_free(&p);
	/* Without a user namespace no broker: the scope holds, and connect tells names apart. */
	check_abstract(abstract_req(enabled, false, &none, &nouserns, &p), SBX_ENFORCED, "landlock",
		       "connect tells a name the host has (EPERM) from one it has not");
	sbx_plan_free(&p);
	/* Without the scope: said, not refused, as path sockets are. */
	check_abstract(abstract_req(enabled, false, &none, &old, &p), SBX_SKIPPED, "none",
		       "can connect to any abstract socket there");
	CHECK(sbx_plan_enforceable(&p));
	sbx_plan_free(&p);
	/* Every Unix socket allowed (Codex's dangerously_allow_all_unix_sockets): no requirement. */
	memset(&p, 0, sizeof(p));
	if (plan_for(":workspace", SBX_PLATFORM_LINUX, false, &all, &p))
		CHECK_INT(count(&p, SBX_REQ_ABSTRACT_SOCKETS), 0);
	sbx_plan_free(&p);
	/* Not planned for macOS. */
	memset(&p, 0, sizeof(p));
	if (plan_for(":workspace", SBX_PLATFORM_MACOS, false, &none, &p))
		CHECK_INT(count(&p, SBX_REQ_ABSTRACT_SOCKETS), 0);
	sbx_plan_free(&p);
}
