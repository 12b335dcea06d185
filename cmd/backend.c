/* SPDX-License-Identifier: MIT */
/*
 * backend.c - joins the plan to the platforms: which attacher decides the mechanisms, which argv
 * `run` would execute, and the execution itself on this host.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#if defined(__linux__)
#include "linux/linux.h"
#elif defined(__APPLE__)
#include "macos/macos.h"
#elif defined(_WIN32)
#include "windows/windows.h"
#endif

/* Marks every requirement unenforceable: intent without a backend (sbxrun(1), explain). */
static int attach_none(struct sbx_plan *p, const char *why, const char *hint)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (sbx_req_set(&p->reqs[i], SBX_UNENFORCEABLE, 0, hint, "%s", why))
			return -ENOMEM;
	return 0;
}

int backend_attach(struct sbx_plan *p, const struct opts *o)
{
	bool host = p->platform == sbx_host_platform();

	if (!p->sandbox_requested)
		return 0;
	if (p->sandbox == SBX_SANDBOX_NONE) {
		if (p->platform == SBX_PLATFORM_WINDOWS && o->wlevel == SBX_WIN_DISABLED)
			return attach_none(
				p, "the Windows sandbox is disabled (--windows-sandbox disabled)",
				"use --windows-sandbox restricted-token");
		return attach_none(p, "this platform has no sandbox backend", NULL);
	}
	switch (p->platform) {
	case SBX_PLATFORM_LINUX: {
		struct sbx_linux_facts f;

#if defined(__linux__)
		if (host)
			sbx_linux_probe(&f);
		else
#endif
			sbx_linux_facts_assumed(&f);
		return sbx_plan_attach_linux(p, &f);
	}
	case SBX_PLATFORM_MACOS:
		/* Off a Mac, plan as a Mac with its stock /usr/bin/sandbox-exec would. */
		return sbx_plan_attach_macos(p, host ? access("/usr/bin/sandbox-exec", X_OK) == 0
						     : true);
	case SBX_PLATFORM_WINDOWS:
		return sbx_plan_attach_windows(p, o->wlevel);
	}
	return -EINVAL;
}

/* A copy of a NULL-terminated word list. */
static int strv_copy(char *const in[], struct sbx_strv *out)
{
	int r = 0;

	for (size_t i = 0; !r && in[i]; i++)
		r = sbx_strv_push(out, in[i]);
	return r;
}

/*
 * The network beyond the profile, as the helper takes it: managed networking through the
 * caller's proxies (an empty context: the helper reads the proxies from the environment it
 * gives the command), sbxrun's own proxy, the Unix socket allow-list, local binding.
 */
/*
 * The caller's global git config files and HOME: the helper's environment is the command's,
 * so they travel on its command line (sbx_handover.git_globals).
 */
static void handover_git_globals(struct sbx_handover *h, const struct invocation *inv)
{
	for (size_t i = 0; i < inv->ctx.n_git_globals; i++)
		h->git_globals[h->n_git_globals++] = inv->ctx.git_globals[i];
	h->n_git_system = inv->ctx.n_git_system;
	h->home = inv->ctx.home;
}

static void handover_network(struct sbx_handover *h, const struct opts *o)
{
	if (o->managed_network)
		h->managed_network = "{}";
	for (size_t i = 0; i < o->n_unix_sockets && i < SBX_HANDOVER_LIST_MAX; i++)
		h->unix_sockets[h->n_unix_sockets++] = o->unix_sockets[i];
	h->allow_local_binding = o->allow_local_binding;
	for (size_t i = 0; i < o->n_allow_domains && i < SBX_HANDOVER_LIST_MAX; i++)
		h->allow_domains[h->n_allow_domains++] = o->allow_domains[i];
	for (size_t i = 0; i < o->n_deny_domains && i < SBX_HANDOVER_LIST_MAX; i++)
		h->deny_domains[h->n_deny_domains++] = o->deny_domains[i];
	h->network_log = o->network_log;
	h->allow_private_addresses = o->allow_private_addresses;
}

/* The helper invocation for this plan: the same for run (exec.c) and explain. */
static int linux_argv(const struct invocation *inv, const struct opts *o, char *const cmd[],
		      struct sbx_strv *out)
{
	char *json = sbx_profile_to_json(&inv->plan.profile);
	char self[4096] = SBX_HELPER_NAME;
	struct sbx_handover h;
	int r;

	if (!json)
		return -ENOMEM;
#if defined(__linux__)
	/* On Linux the binary itself is shown; elsewhere there is no host to resolve it. */
	if (inv->plan.platform == sbx_host_platform())
		sbx_linux_self(self, sizeof(self));
#endif
	sbx_handover_init(&h, inv->cwd, inv->cwd, json, cmd);
	handover_network(&h, o);
	h.allow_git = inv->ctx.allow_git;
	handover_git_globals(&h, inv);
	r = sbx_handover_argv(&h, self, out);
	free(json);
	return r;
}

/*
 * The argv `run` would execute: the command itself when no sandbox is requested, the platform's
 * wrapper otherwise. Returns 1 (and no argv) when run would refuse; a negative error with d
 * saying why (the policy builder's own words where it failed).
 */
int backend_argv(const struct invocation *inv, const struct opts *o, char *const cmd[],
		 struct sbx_strv *out, struct sbx_diag *d)
{
	const struct sbx_plan *p = &inv->plan;
	int r = -EINVAL;

	memset(out, 0, sizeof(*out));
	if (!p->sandbox_requested)
		r = strv_copy(cmd, out);
	else if (!sbx_plan_enforceable(p))
		return 1;
	else if (p->platform == SBX_PLATFORM_LINUX)
		r = linux_argv(inv, o, cmd, out);
	else if (p->platform == SBX_PLATFORM_MACOS) {
		struct sbx_sbpl s = {0};
		char **block = NULL;
		size_t n = 0;

		r = sbx_sbpl_build(p, &inv->ctx, &s, d);
		/* sbx_macos_argv returns one allocation; callers here own a plain strv. */
		if (!r)
			r = sbx_macos_argv(&s, cmd, &block, &n);
		if (!r)
			r = strv_copy(block, out);
		free(block);
		sbx_sbpl_free(&s);
	} else if (p->platform == SBX_PLATFORM_WINDOWS)
		r = strv_copy(cmd, out); /* spawned as is, under the restricted token */
	/* Kept only when the builder did not word it first. */
	if (r < 0)
		sbx_diag_set(d, r, "cannot build the launch argv: %s", strerror(-r));
	return r;
}

int backend_exec(struct invocation *inv, const struct opts *o, char *const cmd[])
{
	struct sbx_diag d;

	/*
	 * A backend returns only when the command could not be started, and words every such
	 * error in d; its code adds nothing to the refusal but on Windows.
	 */
	sbx_diag_clear(&d);
#if defined(__linux__)
	{
		struct sbx_handover h;

		/* The profile's text is written by sbx_linux_exec, into a memfd when large. */
		sbx_handover_init(&h, inv->cwd, inv->cwd, NULL, cmd);
		handover_network(&h, o);
		h.allow_git = inv->ctx.allow_git;
		handover_git_globals(&h, inv);
		/* The report's descriptor is the helper's to inherit (it marks it close-on-exec). */
		h.report_fd = o->report_fd;
		h.report_created = o->report_made ? o->report : NULL;
		if (h.report_fd >= 0 && fcntl(h.report_fd, F_SETFD, 0) < 0)
			sbx_diag_set(&d, -errno, "--report: %s", strerror(errno));
		else
			sbx_linux_exec(&h, &inv->plan.profile, &d);
	}
#elif defined(__APPLE__)
	sbx_macos_exec(&inv->plan, &inv->ctx, cmd, &d);
#elif defined(_WIN32)
	int r = sbx_windows_run(&inv->plan, &inv->ctx, cmd, &d);

	if (r >= 0)
		return r;
	if (r == -ENOENT || r == -EACCES || r == -ENOEXEC) {
		/* env(1) conventions, as exec_direct(). */
		refuse_diag(&d);
		return r == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	}
#else
	sbx_diag_set(&d, -ENOSYS, "cannot start the sandbox: %s", strerror(ENOSYS));
#endif
	return refuse_diag(&d);
}
