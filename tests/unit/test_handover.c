/* SPDX-License-Identifier: MIT */
/* The helper's command line: what the builder writes, the parser reads back, and nothing else. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"

/* argv words are not const in C; these are never written. */
#define W(s) ((char *)(s))

static char *const cmd[] = {W("git"), W("status"), W("--"), NULL};

/* Does v hold opt followed by val? */
static bool has_pair(const struct sbx_strv *v, const char *opt, const char *val)
{
	for (size_t i = 0; i + 1 < v->n; i++)
		if (!strcmp(v->v[i], opt) && !strcmp(v->v[i + 1], val))
			return true;
	return false;
}

TEST(handover_round_trip)
{
	struct sbx_handover h, back;
	struct sbx_strv v;
	struct sbx_diag d;

	sbx_handover_init(&h, "/ws", "/ws/sub", "{\"type\":\"disabled\"}", cmd);
	h.no_proc = true;
	CHECK_INT(sbx_handover_argv(&h, "/usr/bin/sbxrun", &v), 0);
	CHECK_INT(v.n, 12);
	CHECK(v.v[v.n] == NULL); /* ready for execv */
	CHECK_STR(v.v[0], "/usr/bin/sbxrun");
	CHECK_STR(v.v[1], "--sandbox-policy-cwd");
	CHECK_STR(v.v[3], "--command-cwd");
	CHECK_STR(v.v[5], "--permission-profile");
	CHECK_STR(v.v[7], "--no-proc");
	CHECK_STR(v.v[8], "--");
	sbx_diag_clear(&d);
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	CHECK_STR(back.policy_cwd, "/ws");
	CHECK_STR(back.command_cwd, "/ws/sub");
	CHECK_STR(back.profile, "{\"type\":\"disabled\"}");
	CHECK(back.profile_fd == -1 && back.no_proc && !back.managed_network);
	/* The command's own "--" is the command's. */
	CHECK_STR(back.cmd[0], "git");
	CHECK_STR(back.cmd[2], "--");
	CHECK(back.cmd[3] == NULL);
	sbx_strv_clear(&v);
}

/* Git mode travels beside the profile, which has no place for it; without it, nothing is said. */
TEST(handover_git_mode)
{
	struct sbx_handover h, back;
	struct sbx_strv v;
	struct sbx_diag d;
	bool said = false;

	sbx_handover_init(&h, "/ws", NULL, "{}", cmd);
	CHECK_INT(sbx_handover_argv(&h, "h", &v), 0);
	for (size_t i = 0; i < v.n; i++)
		said |= strcmp(v.v[i], "--allow-git") == 0;
	CHECK(!said);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	CHECK(!back.allow_git);
	sbx_strv_clear(&v);
	h.allow_git = true;
	CHECK_INT(sbx_handover_argv(&h, "h", &v), 0);
	CHECK_STR(v.v[7], "--allow-git");
	CHECK_STR(v.v[8], "--");
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	CHECK(back.allow_git);
	CHECK_STR(back.cmd[0], "git");
	sbx_strv_clear(&v);
}

/* The denial report's descriptor: said only when there is one; a bad or repeated one refused. */
TEST(handover_report_fd)
{
	struct sbx_handover h, back;
	struct sbx_strv v;
	struct sbx_diag d;
	bool said = false;
	char *const bad[] = {W("h"),	W("--sandbox-policy-cwd"),
			     W("/ws"),	W("--permission-profile"),
			     W("{}"),	W("--report-fd"),
			     W("x"),	W("--"),
			     W("true"), NULL};
	char *const twice[] = {W("h"),	  W("--sandbox-policy-cwd"),
			       W("/ws"),  W("--permission-profile"),
			       W("{}"),	  W("--report-fd"),
			       W("3"),	  W("--report-fd"),
			       W("4"),	  W("--"),
			       W("true"), NULL};

	sbx_handover_init(&h, "/ws", NULL, "{}", cmd);
	CHECK_INT(h.report_fd, -1);
	CHECK_INT(sbx_handover_argv(&h, "h", &v), 0);
	for (size_t i = 0; i < v.n; i++)
		said |= strcmp(v.v[i], "--report-fd") == 0;
	CHECK(!said);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	CHECK_INT(back.report_fd, -1);
	sbx_strv_clear(&v);
	h.report_fd = 2;
	CHECK_INT(sbx_handover_argv(&h, "h", &v), 0);
	CHECK_STR(v.v[7], "--report-fd");
	CHECK_STR(v.v[8], "2");
	CHECK_STR(v.v[9], "--");
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	CHECK_INT(back.report_fd, 2);
	sbx_strv_clear(&v);
	CHECK(sbx_handover_parse(9, bad, &back, &d) < 0);
	CHECK_STR(d.msg, "--report-fd: not a file descriptor number");
	sbx_diag_clear(&d);
	CHECK(sbx_handover_parse(11, twice, &back, &d) < 0);
	CHECK_STR(d.msg, "--report-fd given twice");
}

TEST(handover_large_profile_by_fd)
{
	size_t n = SBX_PROFILE_ARG_MAX + 1;
	char *json = malloc(n + 1);
	struct sbx_handover h, back;
	struct sbx_strv v;
	struct sbx_diag d;

	memset(json, ' ', n);
	json[n] = '\0';
	sbx_handover_init(&h, "/ws", NULL, json, cmd);
	CHECK(h.profile == NULL && h.profile_fd == SBX_HANDOVER_FD_PENDING);
	CHECK_STR(h.command_cwd, "/ws");
	CHECK_INT(sbx_handover_argv(&h, "sbxrun-linux-sandbox", &v), 0);
	CHECK_STR(v.v[5], "--permission-profile-fd");
	CHECK_STR(v.v[6], "<memfd>"); /* what explain shows before there is a descriptor */
	sbx_strv_clear(&v);
	h.profile_fd = 9;
	h.managed_network = "{\"loopback_ports\":[]}";
	CHECK_INT(sbx_handover_argv(&h, "sbxrun-linux-sandbox", &v), 0);
	CHECK_STR(v.v[6], "9");
	sbx_diag_clear(&d);
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	CHECK(back.profile_fd == 9 && back.profile == NULL);
	CHECK_STR(back.managed_network, "{\"loopback_ports\":[]}");
	sbx_strv_clear(&v);
	free(json);
}

TEST(handover_network_options)
{
	struct sbx_handover h, back;
	struct sbx_strv v;
	struct sbx_diag d;

	sbx_handover_init(&h, "/ws", NULL, "{}", cmd);
	h.unix_sockets[h.n_unix_sockets++] = "/run/agent.sock";
	h.unix_sockets[h.n_unix_sockets++] = "/run/gpg";
	h.allow_local_binding = true;
	h.allow_domains[h.n_allow_domains++] = "registry.npmjs.org";
	h.deny_domains[h.n_deny_domains++] = "bad.example.com";
	h.network_log = "net.log";
	CHECK_INT(sbx_handover_argv(&h, "sbxrun-linux-sandbox", &v), 0);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	/* Off, the flag is not written: the proxy's default is to refuse private addresses. */
	CHECK(!back.allow_private_addresses);
	sbx_strv_clear(&v);
	h.allow_private_addresses = true;
	CHECK_INT(sbx_handover_argv(&h, "sbxrun-linux-sandbox", &v), 0);
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	CHECK(back.allow_private_addresses);
	CHECK_INT(back.n_unix_sockets, 2);
	CHECK_STR(back.unix_sockets[1], "/run/gpg");
	CHECK(back.allow_local_binding);
	CHECK_INT(back.n_allow_domains, 1);
	CHECK_STR(back.allow_domains[0], "registry.npmjs.org");
	CHECK_INT(back.n_deny_domains, 1);
	CHECK_STR(back.deny_domains[0], "bad.example.com");
	CHECK_STR(back.network_log, "net.log");
	CHECK_STR(back.cmd[0], "git");
	sbx_strv_clear(&v);
}

TEST(handover_usage_errors)
{
	static const struct {
		const char *argv[8];
		const char *msg;
	} bad[] = {
		{{"h", "--permission-profile", "{}", "--", "true"},
		 "--sandbox-policy-cwd is required"},
		{{"h", "--sandbox-policy-cwd", "/", "--", "true"},
		 "--permission-profile or --permission-profile-fd (exactly one) is required"},
		{{"h", "--sandbox-policy-cwd", "/", "--permission-profile", "{}",
		  "--permission-profile-fd", "3", "--"},
		 "--permission-profile or --permission-profile-fd (exactly one) is required"},
		{{"h", "--sandbox-policy-cwd", "/", "--permission-profile", "{}"},
		 "--: no command given"},
		{{"h", "--sandbox-policy-cwd", "/", "--permission-profile-fd", "+3", "--", "x"},
		 "--permission-profile-fd: not a file descriptor number"},
		{{"h", "--sandbox-policy-cwd", "/", "--sandbox-policy-cwd", "/", "--", "x"},
		 "--sandbox-policy-cwd given twice"},
		{{"h", "--bogus", "--", "x"}, "--bogus: unknown option"},
		{{"h", "--command-cwd"}, "--command-cwd needs a value"},
		{{"h", "--allow-domain"}, "--allow-domain needs a value"},
		{{"h", "--network-log", "a", "--network-log", "b", "--", "x"},
		 "--network-log given twice"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct sbx_handover h;
		struct sbx_diag d;
		int argc = 0;

		while (argc < 8 && bad[i].argv[argc])
			argc++;
		sbx_diag_clear(&d);
		CHECK_INT(sbx_handover_parse(argc, (char *const *)bad[i].argv, &h, &d),
			  SBX_E_USAGE);
		CHECK_STR(d.msg, bad[i].msg);
		CHECK(strncmp(d.hint, "usage: sbxrun-linux-sandbox", 27) == 0);
	}
}

/*
 * The caller's global and system git config and HOME travel by name; at most four files (two
 * global, GIT_CONFIG_SYSTEM's, /etc/gitconfig).
 */
TEST(handover_git_globals)
{
	struct sbx_handover h, back;
	struct sbx_strv v;
	struct sbx_diag d;
	char *const five[] = {W("h"),	 W("--sandbox-policy-cwd"),
			      W("/ws"),	 W("--permission-profile"),
			      W("{}"),	 W("--git-config"),
			      W("/a"),	 W("--git-config"),
			      W("/b"),	 W("--git-config"),
			      W("/c"),	 W("--git-config"),
			      W("/d"),	 W("--git-config"),
			      W("/e"),	 W("--"),
			      W("true"), NULL};
	char *const after[] = {W("h"),	  W("--sandbox-policy-cwd"),
			       W("/ws"),  W("--permission-profile"),
			       W("{}"),	  W("--git-system-config"),
			       W("/s"),	  W("--git-config"),
			       W("/g"),	  W("--"),
			       W("true"), NULL};
	char *const twice[] = {W("h"),	  W("--sandbox-policy-cwd"),
			       W("/ws"),  W("--permission-profile"),
			       W("{}"),	  W("--git-config"),
			       W("/s"),	  W("--git-system-config"),
			       W("/s"),	  W("--"),
			       W("true"), NULL};

	sbx_handover_init(&h, "/ws", NULL, "{}", cmd);
	h.git_globals[h.n_git_globals++] = "/h/.config/git/config";
	h.git_globals[h.n_git_globals++] = "/h/.gitconfig";
	h.git_globals[h.n_git_globals++] = "/ci/gitconfig";
	h.git_globals[h.n_git_globals++] = "/etc/gitconfig";
	h.n_git_system = 2;
	h.home = "/h";
	CHECK_INT(sbx_handover_argv(&h, "h", &v), 0);
	/* The kind travels with each: the system files by an option of their own. */
	CHECK(has_pair(&v, "--git-config", "/h/.gitconfig"));
	CHECK(has_pair(&v, "--git-system-config", "/ci/gitconfig"));
	CHECK(has_pair(&v, "--git-system-config", "/etc/gitconfig"));
	sbx_diag_clear(&d);
	CHECK_INT(sbx_handover_parse((int)v.n, v.v, &back, &d), 0);
	CHECK_INT(back.n_git_globals, 4);
	CHECK_INT(back.n_git_system, 2);
	CHECK_STR(back.git_globals[0], "/h/.config/git/config");
	CHECK_STR(back.git_globals[1], "/h/.gitconfig");
	CHECK_STR(back.git_globals[2], "/ci/gitconfig");
	CHECK_STR(back.git_globals[3], "/etc/gitconfig");
	CHECK_STR(back.home, "/h");
	CHECK_STR(back.cmd[0], "git");
	sbx_strv_clear(&v);
	sbx_diag_clear(&d);
	CHECK(sbx_handover_parse(17, five, &back, &d) < 0);
	CHECK(strstr(d.msg, "--git-config") != NULL);
	/* Strict: a global one after a system one, or one file twice, is refused. */
	sbx_diag_clear(&d);
	CHECK(sbx_handover_parse(11, after, &back, &d) < 0);
	CHECK(strstr(d.msg, "--git-config: given after --git-system-config") != NULL);
	sbx_diag_clear(&d);
	CHECK(sbx_handover_parse(11, twice, &back, &d) < 0);
	CHECK(strstr(d.msg, "--git-system-config: the same file given twice") != NULL);
}
