/* SPDX-License-Identifier: MIT */
/*
 * backend.c - joins the plan to the platforms: which attacher decides the mechanisms, which argv
 * `run` would execute, and the execution itself on this host.
 */
#include <errno.h>
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

/* Marks every requirement unenforceable: intent without a backend (CLI.md section 4). */
static int attach_none(struct sbx_plan *p, const char *why)
{
	for (size_t i = 0; i < p->n_reqs; i++) {
		struct sbx_req *r = &p->reqs[i];

		r->mechanism = "none";
		r->status = SBX_UNENFORCEABLE;
		free(r->why);
		r->why = strdup(why);
		if (!r->why)
			return -ENOMEM;
	}
	return 0;
}

int backend_attach(struct sbx_plan *p, const struct opts *o)
{
	bool host = p->platform == sbx_host_platform();

	if (!p->sandbox_requested)
		return 0;
	if (p->sandbox == SBX_SANDBOX_NONE) {
		if (p->platform == SBX_PLATFORM_WINDOWS && o->wlevel == SBX_WIN_DISABLED)
			return attach_none(p, "the Windows sandbox is disabled "
					      "(--windows-sandbox disabled); use restricted-token");
		return attach_none(p, "this platform has no sandbox backend");
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

static int strv_dup(char *const in[], size_t n, char ***out, size_t *outn)
{
	char **v = calloc(n + 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = strdup(in[i]);
		if (!v[i]) {
			sbx_strv_free(v, i);
			return -ENOMEM;
		}
	}
	*out = v;
	*outn = n;
	return 0;
}

static size_t strv_len(char *const v[])
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

/*
 * The argv `run` would execute: the command itself when no sandbox is requested, the platform's
 * wrapper otherwise. Returns 1 (and no argv) when run would refuse.
 */
int backend_argv(const struct invocation *inv, const struct opts *o, char *const cmd[],
		 char ***argv, size_t *argc)
{
	const struct sbx_plan *p = &inv->plan;
	struct sbx_diag d;
	int r;

	*argv = NULL;
	*argc = 0;
	if (!p->sandbox_requested)
		return strv_dup(cmd, strv_len(cmd), argv, argc);
	if (!sbx_plan_enforceable(p))
		return 1;
	sbx_diag_clear(&d);
	switch (p->platform) {
	case SBX_PLATFORM_LINUX:
#if defined(__linux__)
		if (p->platform == sbx_host_platform())
			return sbx_linux_helper_argv(p, inv->cwd, inv->cwd, cmd, argv, argc, &d);
#endif
		{
			/* Off Linux, show the helper argv without a host to resolve the binary. */
			char *json = sbx_profile_to_json(&p->profile);
			size_t n = strv_len(cmd);
			char **v = calloc(n + 9, sizeof(*v));
			size_t k = 0;

			if (!json || !v) {
				free(json);
				free(v);
				return -ENOMEM;
			}
			v[k++] = strdup("sbxrun-linux-sandbox");
			v[k++] = strdup("--sandbox-policy-cwd");
			v[k++] = strdup(inv->cwd);
			v[k++] = strdup("--command-cwd");
			v[k++] = strdup(inv->cwd);
			v[k++] = strdup("--permission-profile");
			v[k++] = json;
			v[k++] = strdup("--");
			for (size_t i = 0; i < n; i++)
				v[k++] = strdup(cmd[i]);
			for (size_t i = 0; i < k; i++)
				if (!v[i]) {
					sbx_strv_free(v, k);
					return -ENOMEM;
				}
			*argv = v;
			*argc = k;
			return 0;
		}
	case SBX_PLATFORM_MACOS: {
		struct sbx_sbpl s = {0};

		r = sbx_sbpl_build(p, &inv->ctx, &s, &d);
		if (r)
			return r;
		{
			char **block = NULL;
			size_t n = 0;

			/* sbx_macos_argv returns one allocation; callers here own a plain strv. */
			r = sbx_macos_argv(&s, cmd, &block, &n);
			if (!r)
				r = strv_dup(block, n, argv, argc);
			free(block);
		}
		sbx_sbpl_free(&s);
		return r;
	}
	case SBX_PLATFORM_WINDOWS:
		/* The command is spawned as is, under the restricted token. */
		return strv_dup(cmd, strv_len(cmd), argv, argc);
	}
	(void)o;
	return -EINVAL;
}

int backend_exec(struct invocation *inv, char *const cmd[])
{
	struct sbx_diag d;
	int r = -ENOSYS;

	sbx_diag_clear(&d);
#if defined(__linux__)
	r = sbx_linux_exec(&inv->plan, inv->cwd, inv->cwd, cmd, &d);
#elif defined(__APPLE__)
	r = sbx_macos_exec(&inv->plan, &inv->ctx, cmd, &d);
#elif defined(_WIN32)
	r = sbx_windows_run(&inv->plan, &inv->ctx, cmd, &d);
	if (r >= 0)
		return r;
	if (r == -ENOENT || r == -EACCES || r == -ENOEXEC) {
		/* env(1) conventions, as exec_direct(). */
		refuse_diag(&d);
		return r == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	}
#endif
	if (!d.msg[0])
		sbx_diag_set(&d, r, "cannot start the sandbox: %s", strerror(-r));
	return refuse_diag(&d);
}
