/* SPDX-License-Identifier: MIT */
/*
 * environ.c - the command's environment: made once from sbxrun's own by the --env-* options
 * (lib/env.c), planned with (its TMPDIR is the one the tmpdir special resolves to), shown by
 * explain, and installed as this process's environment just before it becomes the command or
 * its sandbox, so that the Linux helper, sandbox-exec and the spawned Windows command all pass
 * it on as it is. And env_get(), the audited reader of sbxrun's own environment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#ifdef _WIN32
#include "windows/windows.h"
#else
extern char **environ;
#endif

const char *env_get(const char *name)
{
	/* Only these variables influence what sbxrun decides; nothing else is read. */
	static const char *const allowed[] = {"TMPDIR", "SHELL", "TZ",
					      "PATH",	"HOME",	 "SBXRUN_DEBUG"};

	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (strcmp(name, allowed[i]) == 0)
			return getenv(name);
	return NULL;
}

int environ_build(struct invocation *inv, const struct opts *o, const struct sbx_plan *plan)
{
	struct sbx_env_policy pol = {
		.clear = o->env_clear,
		.keep = o->env_keep,
		.n_keep = o->n_env_keep,
		.deny = o->env_deny,
		.n_deny = o->n_env_deny,
		.deny_secrets = o->env_deny_secrets,
		.offline = o->env_offline,
		.set = o->env_set,
		.n_set = o->n_env_set,
		.fold_case = sbx_host_platform() == SBX_PLATFORM_WINDOWS,
	};
	/*
	 * --env-offline applies where sbxrun keeps the network from the command (not through a
	 * managed network's proxies either), which only the plan knows; the first build, which
	 * the plan needs for TMPDIR and the proxy variables, assumes a network.
	 */
	bool network = !plan || !plan->sandbox_requested || plan->network || plan->managed_network;
	struct sbx_strv env = {0};
	int r;

#ifdef _WIN32
	{
		struct sbx_strv own;

		r = sbx_windows_environ(&own);
		if (!r)
			r = sbx_env_build((const char *const *)own.v, &pol, network, &env);
		sbx_strv_clear(&own);
	}
#else
	r = sbx_env_build((const char *const *)environ, &pol, network, &env);
#endif
	if (r)
		return refuse("cannot read the environment: %s", sbx_strerror(r));
	environ_free(inv);
	inv->env = env;
	inv->env_changed = o->env_clear || o->n_env_keep || o->n_env_deny || o->env_deny_secrets ||
			   o->env_offline || o->n_env_set;
	/* Planned with the environment the command will see: its TMPDIR, not sbxrun's. */
	inv->tmpdir = sbx_env_lookup(&inv->env, "TMPDIR", pol.fold_case);
	inv->ctx.tmpdir = inv->tmpdir;
	return 0;
}

int environ_install(struct invocation *inv)
{
	int r = 0;

	if (!inv->env_changed)
		return 0; /* untouched: the process's own, exactly */
#ifdef _WIN32
	r = sbx_windows_environ_install(inv->env.v);
#else
	/* The array lives until exec: the invocation owns it, and is not freed on this path. */
	environ = inv->env.v;
#endif
	return r ? refuse("cannot set the command's environment: %s", sbx_strerror(r)) : 0;
}

void environ_free(struct invocation *inv)
{
#ifndef _WIN32
	/* Installed and then not executed: the process keeps no pointer into freed memory. */
	if (environ == inv->env.v && inv->env.v)
		environ = NULL;
#endif
	sbx_strv_clear(&inv->env);
}

static int environ_sandbox_vars(const struct sbx_plan *p, const char *out[2])
{
	int n = 0;

	/* What the platform adds for the command (platform/linux/enter.c, platform/macos/exec.c). */
	if (!p->sandbox_requested || !sbx_plan_enforceable(p))
		return 0;
	if (p->platform == SBX_PLATFORM_LINUX || p->platform == SBX_PLATFORM_MACOS) {
		out[n++] = "SBXRUN_SANDBOX";
		if (!p->network || (p->platform == SBX_PLATFORM_MACOS && p->managed_network))
			out[n++] = "SBXRUN_NETWORK_DISABLED";
	}
	return n;
}

int environ_seen(const struct invocation *inv, struct sbx_strv *names)
{
	const char *add[2 + 2 * (SBX_PROXY_VARS_N + SBX_NO_PROXY_VARS_N)];
	char lower[SBX_PROXY_VARS_N + SBX_NO_PROXY_VARS_N][32];
	int n = environ_sandbox_vars(&inv->plan, add), r;
	const struct sbx_plan *p = &inv->plan;
	bool local = p->net.allow_local_binding;

	/*
	 * Linux, run --allow-domain: the helper sets every proxy variable to its proxy, and the
	 * no-proxy variables to the loopback with local binding.
	 */
	if (n && p->platform == SBX_PLATFORM_LINUX && p->net.own_proxy)
		for (int i = 0; i < SBX_PROXY_VARS_N + SBX_NO_PROXY_VARS_N; i++) {
			bool no = i >= SBX_PROXY_VARS_N;
			const char *v =
				no ? sbx_no_proxy_vars[i - SBX_PROXY_VARS_N] : sbx_proxy_vars[i];
			size_t k;

			for (k = 0; v[k] && k + 1 < sizeof(lower[i]); k++)
				lower[i][k] = (char)(v[k] >= 'A' && v[k] <= 'Z' ? v[k] - 'A' + 'a'
										: v[k]);
			lower[i][k] = '\0';
			if (no ? !local : !sbx_proxy_var_own(i))
				continue; /* removed instead */
			add[n++] = v;
			add[n++] = lower[i];
		}
	r = sbx_env_names(&inv->env, add, (size_t)n, names);
	/*
	 * run --allow-domain: what sbxrun's own proxy removes (npm's "http-proxy" spelling, and
	 * the no-proxy variables without local binding) the command does not get, even where the
	 * caller set it (Linux: the worker's environment; macOS: --env-deny).
	 */
	if (!r && n && p->net.own_proxy &&
	    (p->platform == SBX_PLATFORM_LINUX || p->platform == SBX_PLATFORM_MACOS)) {
		size_t k = 0;

		for (size_t i = 0; i < names->n; i++) {
			bool removed = false;

			for (int j = 0; j < SBX_PROXY_VARS_N && !removed; j++)
				removed = !sbx_proxy_var_own(j) &&
					  strcasecmp(names->v[i], sbx_proxy_vars[j]) == 0;
			for (int j = 0; j < SBX_NO_PROXY_VARS_N && !removed && !local; j++)
				removed = strcasecmp(names->v[i], sbx_no_proxy_vars[j]) == 0;
			if (removed)
				free(names->v[i]);
			else
				names->v[k++] = names->v[i];
		}
		for (size_t i = k; i < names->n; i++)
			names->v[i] = NULL;
		names->n = k;
	}
	return r;
}
