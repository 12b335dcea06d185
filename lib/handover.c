/* SPDX-License-Identifier: MIT */
/*
 * handover.c - the Linux helper's command line: one struct (struct sbx_handover), one builder
 * (struct -> argv: what `run` executes and what `explain` shows, for every platform) and one
 * parser (argv -> struct: what the helper accepts). The contract is sbxrun(1)'s "The Linux
 * helper" and the command line of Codex's own Linux helper:
 *
 *   sbxrun-linux-sandbox --sandbox-policy-cwd DIR [--command-cwd DIR]
 *       (--permission-profile JSON | --permission-profile-fd N) [--no-proc]
 *       [--managed-network JSON] -- COMMAND [ARG...]
 *
 * and sbxrun's own: git mode (no part of a profile, so it travels beside it) and the network
 * beyond the profile as `run` was given it:
 *   [--allow-git] [--allow-unix-socket PATH]... [--allow-local-binding]
 *   [--allow-domain D]... [--deny-domain D]... [--network-log FILE]
 *   [--allow-private-addresses]
 * and the denial report's descriptor, opened by `run`, with its name when `run` made the file:
 *   [--report-fd N] [--report-created FILE]
 * and the caller's global git config files and HOME, which git outside takes later (the
 * helper's environment is the command's, which may say otherwise):
 *   [--git-config FILE]... [--git-system-config FILE]... [--home DIR]
 *
 * Pure: the helper's own checks of what it was given (absolute cwds, the profile itself) come
 * after parsing, in the helper, which trusts nothing it is handed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

void sbx_handover_init(struct sbx_handover *h, const char *policy_cwd, const char *command_cwd,
		       const char *profile_json, char *const *cmd)
{
	memset(h, 0, sizeof(*h));
	h->policy_cwd = policy_cwd;
	h->command_cwd = command_cwd ? command_cwd : policy_cwd;
	h->cmd = cmd;
	/* argv and the environment share ARG_MAX, and one argument is capped at 128 KiB. */
	if (profile_json && strlen(profile_json) > SBX_PROFILE_ARG_MAX) {
		h->profile_fd = SBX_HANDOVER_FD_PENDING;
	} else {
		h->profile = profile_json;
		h->profile_fd = -1;
	}
	h->report_fd = -1;
}

static int push_opt(struct sbx_strv *v, const char *opt, const char *val)
{
	int r = sbx_strv_push(v, opt);

	return r ? r : sbx_strv_push(v, val);
}

int sbx_handover_argv(const struct sbx_handover *h, const char *self, struct sbx_strv *out)
{
	char fd[16], report_fd[16];
	int r;

	memset(out, 0, sizeof(*out));
	if (h->profile_fd == SBX_HANDOVER_FD_PENDING)
		snprintf(fd, sizeof(fd), "<memfd>");
	else
		snprintf(fd, sizeof(fd), "%d", h->profile_fd);
	r = sbx_strv_push(out, self);
	if (!r)
		r = push_opt(out, "--sandbox-policy-cwd", h->policy_cwd);
	if (!r && h->command_cwd)
		r = push_opt(out, "--command-cwd", h->command_cwd);
	if (!r && h->profile)
		r = push_opt(out, "--permission-profile", h->profile);
	else if (!r)
		r = push_opt(out, "--permission-profile-fd", fd);
	if (!r && h->no_proc)
		r = sbx_strv_push(out, "--no-proc");
	if (!r && h->managed_network)
		r = push_opt(out, "--managed-network", h->managed_network);
	for (size_t i = 0; !r && i < h->n_unix_sockets; i++)
		r = push_opt(out, "--allow-unix-socket", h->unix_sockets[i]);
	if (!r && h->allow_local_binding)
		r = sbx_strv_push(out, "--allow-local-binding");
	for (size_t i = 0; !r && i < h->n_allow_domains; i++)
		r = push_opt(out, "--allow-domain", h->allow_domains[i]);
	for (size_t i = 0; !r && i < h->n_deny_domains; i++)
		r = push_opt(out, "--deny-domain", h->deny_domains[i]);
	if (!r && h->network_log)
		r = push_opt(out, "--network-log", h->network_log);
	if (!r && h->allow_private_addresses)
		r = sbx_strv_push(out, "--allow-private-addresses");
	for (size_t i = 0; !r && i < h->n_git_globals; i++)
		r = push_opt(out,
			     i < h->n_git_globals - h->n_git_system ? "--git-config"
								    : "--git-system-config",
			     h->git_globals[i]);
	if (!r && h->home)
		r = push_opt(out, "--home", h->home);
	if (!r && h->allow_git)
		r = sbx_strv_push(out, "--allow-git");
	snprintf(report_fd, sizeof(report_fd), "%d", h->report_fd);
	if (!r && h->report_fd >= 0)
		r = push_opt(out, "--report-fd", report_fd);
	if (!r && h->report_fd >= 0 && h->report_created)
		r = push_opt(out, "--report-created", h->report_created);
	if (!r)
		r = sbx_strv_push(out, "--");
	for (size_t i = 0; !r && h->cmd && h->cmd[i]; i++)
		r = sbx_strv_push(out, h->cmd[i]);
	if (r)
		sbx_strv_clear(out);
	return r;
}

static int usage(struct sbx_diag *d, const char *what, const char *arg)
{
	sbx_diag_set(d, SBX_E_USAGE, "%s%s", arg, what);
	return sbx_diag_hint(d, SBX_E_USAGE,
			     "usage: " SBX_HELPER_NAME
			     " --sandbox-policy-cwd DIR [--command-cwd DIR] "
			     "(--permission-profile JSON | --permission-profile-fd N) [--no-proc] "
			     "[--managed-network JSON] [--allow-git] [--allow-unix-socket PATH]... "
			     "[--allow-local-binding] [--allow-domain D]... [--deny-domain D]... "
			     "[--network-log FILE] [--allow-private-addresses] [--report-fd N] "
			     "[--report-created FILE] "
			     "[--git-config FILE]... [--git-system-config FILE]... [--home DIR] -- "
			     "COMMAND [ARG...]");
}

/* The one integer parser: a decimal fd number, nothing else. */
static int parse_fd(const char *s, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX || s[0] == '+' || s[0] == ' ')
		return -EINVAL;
	*out = (int)v;
	return 0;
}

int sbx_handover_parse(int argc, char *const *argv, struct sbx_handover *out, struct sbx_diag *d)
{
	int i;

	memset(out, 0, sizeof(*out));
	out->profile_fd = -1;
	out->report_fd = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL, **list = NULL;
		size_t *n = NULL;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--no-proc") == 0) {
			out->no_proc = true;
			continue;
		}
		if (strcmp(a, "--allow-git") == 0) {
			out->allow_git = true;
			continue;
		}
		if (strcmp(a, "--allow-local-binding") == 0) {
			out->allow_local_binding = true;
			continue;
		}
		if (strcmp(a, "--allow-private-addresses") == 0) {
			out->allow_private_addresses = true;
			continue;
		}
		if (strcmp(a, "--git-config") == 0 || strcmp(a, "--git-system-config") == 0) {
			bool sys = a[6] == 's';

			if (i + 1 >= argc)
				return usage(d, " needs a value", a);
			if (out->n_git_globals == SBX_GIT_GLOBALS)
				return usage(d, ": given too many times", a);
			/* The kind is by place: the system files come last (sbx_ctx.n_git_system). */
			if (!sys && out->n_git_system)
				return usage(d, ": given after --git-system-config", a);
			for (size_t k = 0; k < out->n_git_globals; k++)
				if (strcmp(out->git_globals[k], argv[i + 1]) == 0)
					return usage(d, ": the same file given twice", a);
			out->n_git_system += sys;
			out->git_globals[out->n_git_globals++] = argv[++i];
			continue;
		}
		if (strcmp(a, "--allow-unix-socket") == 0)
			list = out->unix_sockets, n = &out->n_unix_sockets;
		else if (strcmp(a, "--allow-domain") == 0)
			list = out->allow_domains, n = &out->n_allow_domains;
		else if (strcmp(a, "--deny-domain") == 0)
			list = out->deny_domains, n = &out->n_deny_domains;
		if (list) {
			if (i + 1 >= argc)
				return usage(d, " needs a value", a);
			if (*n == SBX_HANDOVER_LIST_MAX)
				return usage(d, ": given too many times", a);
			list[(*n)++] = argv[++i];
			continue;
		}
		if (strcmp(a, "--sandbox-policy-cwd") == 0)
			slot = &out->policy_cwd;
		else if (strcmp(a, "--command-cwd") == 0)
			slot = &out->command_cwd;
		else if (strcmp(a, "--home") == 0)
			slot = &out->home;
		else if (strcmp(a, "--permission-profile") == 0)
			slot = &out->profile;
		else if (strcmp(a, "--managed-network") == 0)
			slot = &out->managed_network;
		else if (strcmp(a, "--network-log") == 0)
			slot = &out->network_log;
		else if (strcmp(a, "--report-created") == 0)
			slot = &out->report_created;
		else if (strcmp(a, "--permission-profile-fd") == 0 ||
			 strcmp(a, "--report-fd") == 0) {
			int *fd = a[2] == 'p' ? &out->profile_fd : &out->report_fd;

			if (i + 1 >= argc)
				return usage(d, " needs a value", a);
			if (*fd >= 0)
				return usage(d, " given twice", a);
			if (parse_fd(argv[++i], fd) < 0)
				return usage(d, ": not a file descriptor number", a);
			continue;
		} else
			return usage(d, ": unknown option", a);
		if (i + 1 >= argc)
			return usage(d, " needs a value", a);
		if (*slot)
			return usage(d, " given twice", a);
		*slot = argv[++i];
	}
	if (!out->policy_cwd)
		return usage(d, " is required", "--sandbox-policy-cwd");
	if (!out->profile == (out->profile_fd < 0))
		return usage(d, " (exactly one) is required",
			     "--permission-profile or --permission-profile-fd");
	if (i >= argc)
		return usage(d, ": no command given", "--");
	out->cmd = &argv[i];
	return 0;
}
