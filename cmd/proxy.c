/* SPDX-License-Identifier: MIT */
/*
 * proxy.c - `sbxrun proxy`: the domain-filtering HTTP and CONNECT proxy on its own. Parses the
 * options, opens the listening socket and the log, prints the bound address, and serves until
 * SIGTERM or SIGINT (platform/unix/proxy.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "net.h"

#ifdef _WIN32

int cmd_proxy(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return refuse("proxy: not available on Windows");
}

#else

#include "unix/proxy.h"

static const char usage_proxy[] =
	"usage: sbxrun proxy --listen ADDR [--allow-domain D]... [--deny-domain D]...\n"
	"                    [--allow-private-addresses] [--log FILE|-] [--report FILE|-]\n"
	"Serve an HTTP forward and CONNECT proxy that lets through only requests for allowed "
	"hosts.\n"
	"\n"
	"  --listen ADDR              127.0.0.1:PORT, [::1]:PORT or unix:PATH (port 0 picks a "
	"free\n"
	"                             one); the bound address is printed on standard output\n"
	"  --allow-domain D           allow host D: example.com (that host), *.example.com (the\n"
	"                             names below it), **.example.com (both), with :PORT to allow\n"
	"                             one port only (every port without it); repeatable\n"
	"  --deny-domain D            refuse host D even if allowed (same forms); repeatable\n"
	"  --allow-private-addresses  let allowed names lead to loopback, private and link-local\n"
	"                             addresses, and to this host's own (refused by default)\n"
	"  --log FILE|-               one JSON line per decision, appended to FILE (- for stderr)\n"
	"  --report FILE|-            one line per refused request, as sbxrun --report words it\n"
	"  -h, --help                 this help\n"
	"\n"
	"Refused requests get 403 and a one-line reason; nothing is resolved or connected for "
	"them.\n"
	"SIGTERM or SIGINT stops the proxy. See sbxrun(1).\n";

enum { LO_LISTEN = 256, LO_ALLOW, LO_DENY, LO_PRIVATE, LO_LOG, LO_REPORT };

static const struct option proxy_opts[] = {
	{"listen", required_argument, NULL, LO_LISTEN},
	{"allow-domain", required_argument, NULL, LO_ALLOW},
	{"deny-domain", required_argument, NULL, LO_DENY},
	{"allow-private-addresses", no_argument, NULL, LO_PRIVATE},
	{"log", required_argument, NULL, LO_LOG},
	{"report", required_argument, NULL, LO_REPORT},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

/* The write end of the pipe that stops the loop: async-signal-safe, unlike everything else. */
static int stop_pipe_w = -1;

static void on_stop_signal(int sig)
{
	int saved = errno;

	(void)sig;
	if (write(stop_pipe_w, "", 1) < 0) {
		/* a full pipe already holds a stop request */
	}
	errno = saved;
}

/*
 * As the report is (- for standard error): an earlier confined run may have put a link there.
 * what names the option in the words of a failure.
 */
static int open_log(const char *what, const char *path, int *fd)
{
	return report_open_fd(what, path, NULL, fd, NULL, NULL);
}

/* Removes the socket this run created, and only that (not a file put there since). */
static void remove_socket(const char *path, const struct stat *made)
{
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISSOCK(st.st_mode) && st.st_dev == made->st_dev &&
	    st.st_ino == made->st_ino)
		unlink(path);
}

#ifdef __APPLE__
/*
 * run --allow-domain on macOS: sbxrun's own proxy in a child of sbxrun, on 127.0.0.1 with a port
 * the system picks, and the command's proxy variables set to it (as --env-set does), so that the
 * managed-network policy lets the command reach that port and nothing else. sbxrun then becomes
 * sandbox-exec and the command in place; the child stops when the last holder of its stop pipe
 * (the command, which inherits the write end) has ended. Untested on a Mac: compile-checked.
 */
int own_proxy_start(struct opts *o)
{
	static struct sbx_domain_policy pol;
	static struct sbx_proxy_config cfg;
	static char vars[2 * (SBX_PROXY_VARS_N + SBX_NO_PROXY_VARS_N)][96];
	struct sbx_listen_addr la;
	struct sbx_loopback_ep ep = {.addr = {127, 0, 0, 1}};
	struct sbx_strv env = {0};
	struct sbx_diag d;
	char bound[SBX_MAX_PATH + 16];
	int lfd = -1, stop[2], r = 0;
	pid_t pid;

	sbx_diag_clear(&d);
	/* A run's values, as on Linux (platform/linux/network.c), not those of sbxrun proxy. */
	cfg = (struct sbx_proxy_config){.policy = &pol,
					.log_fd = -1,
					.allow_private = o->allow_private_addresses,
					.drain_ms = SBX_OWN_PROXY_DRAIN_MS,
					.log_max = SBX_OWN_PROXY_LOG_MAX,
					.log_end_ms = SBX_OWN_PROXY_LOG_END_MS,
					.log_what = "--network-log"};
	for (size_t i = 0; !r && i < o->n_allow_domains + o->n_deny_domains; i++) {
		bool deny = i >= o->n_allow_domains;

		if (sbx_domain_policy_add(&pol, deny,
					  deny ? o->deny_domains[i - o->n_allow_domains]
					       : o->allow_domains[i],
					  &d) < 0) {
			diag_prefix(&d, deny ? "--deny-domain: " : "--allow-domain: ");
			return refuse_diag(&d);
		}
	}
	if (o->network_log && open_log("--network-log", o->network_log, &cfg.log_fd))
		return EXIT_REFUSED;
	if (sbx_listen_addr_parse("127.0.0.1:0", &la, &d) < 0 ||
	    sbx_proxy_listen(&la, &lfd, bound, sizeof(bound), &d) < 0)
		return refuse_diag(&d);
	if (pipe(stop) < 0)
		return refuse("cannot start the proxy: %s", strerror(errno));
	fcntl(stop[0], F_SETFD, FD_CLOEXEC);
	pid = fork();
	if (pid < 0)
		return refuse("cannot start the proxy: %s", strerror(errno));
	if (pid == 0) {
		close(stop[1]);
		signal(SIGPIPE, SIG_IGN);
		signal(SIGXFSZ, SIG_IGN);
		sbx_proxy_raise_nofile();
		_exit(sbx_proxy_run(&cfg, lfd, stop[0], &d) < 0 ? EXIT_REFUSED : 0);
	}
	close(stop[0]);
	close(lfd);
	ep.port = (unsigned)atoi(strrchr(bound, ':') + 1);
	r = sbx_proxy_env_own(&ep, o->allow_local_binding, &env);
	for (size_t i = 0; !r && i < env.n && i < sizeof(vars) / sizeof(vars[0]); i++) {
		bool unset = !strchr(env.v[i], '='); /* a name alone: removed, as --env-deny does */

		snprintf(vars[i], sizeof(vars[i]), "%s", env.v[i]);
		if ((unset ? o->n_env_deny : o->n_env_set) == OPT_LIST_MAX)
			r = -E2BIG;
		else if (unset)
			o->env_deny[o->n_env_deny++] = vars[i];
		else
			o->env_set[o->n_env_set++] = vars[i];
	}
	sbx_strv_clear(&env);
	return r ? refuse("cannot set the proxy variables: %s", sbx_strerror(r)) : 0;
}
#endif

int cmd_proxy(int argc, char **argv)
{
	struct sbx_domain_policy pol = {0};
	struct sbx_proxy_config cfg = {.policy = &pol, .log_fd = -1, .log_what = "proxy: --log"};
	struct sbx_listen_addr la;
	struct sigaction sa = {0};
	struct stat made = {0};
	struct sbx_diag d;
	const char *listen_s = NULL, *log_s = NULL, *report_s = NULL;
	struct report *report = NULL;
	char bound[SBX_MAX_PATH + 16];
	int c, r = 0, lfd = -1, stop[2] = {-1, -1}, idx = -1, given;

	sbx_diag_clear(&d);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", proxy_opts, &idx)) != -1) {
		const char *abbr = opt_abbreviated(argv, optind, proxy_opts, idx);

		idx = -1;
		if (abbr && c != '?' && c != ':')
			c = '?'; /* spelled short of its name: unknown, as in the main parser */
		switch (c) {
		case 'h':
			fputs(usage_proxy, stdout);
			sbx_domain_policy_free(&pol);
			return 0;
		case LO_LISTEN:
			listen_s = optarg;
			break;
		case LO_ALLOW:
		case LO_DENY:
			if (sbx_domain_policy_add(&pol, c == LO_DENY, optarg, &d) < 0) {
				diag_prefix(&d, c == LO_DENY ? "proxy: --deny-domain: "
							     : "proxy: --allow-domain: ");
				r = refuse_diag(&d);
				goto out;
			}
			break;
		case LO_PRIVATE:
			cfg.allow_private = true;
			break;
		case LO_LOG:
			log_s = optarg;
			break;
		case LO_REPORT:
			report_s = optarg;
			break;
		case ':':
			r = refuse("proxy: option '%s' needs a value", argv[optind - 1]);
			goto out;
		default:
			given = abbr ? 0
				     : opt_given_a_value(argv, argc, optind, proxy_opts, optopt);
			if (given == 1) {
				r = refuse("proxy: option '%.*s' takes no value",
					   (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
				goto out;
			}
			sbx_diag_set(&d, 0, "proxy: unknown option '%s'",
				     abbr ? abbr : argv[optind - 1]);
			if (abbr || given == 2)
				snprintf(d.hint, sizeof(d.hint),
					 "options are spelled out in full; see 'sbxrun proxy "
					 "--help'");
			else
				snprintf(d.hint, sizeof(d.hint), "see 'sbxrun proxy --help'");
			r = refuse_diag(&d);
			goto out;
		}
	}
	if (optind < argc) {
		r = refuse("proxy: unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (!listen_s) {
		sbx_diag_set(&d, 0, "proxy: --listen ADDR is required");
		snprintf(d.hint, sizeof(d.hint),
			 "for example: sbxrun proxy --listen 127.0.0.1:0 "
			 "--allow-domain example.com");
		r = refuse_diag(&d);
		goto out;
	}
	if (sbx_listen_addr_parse(listen_s, &la, &d) < 0) {
		r = refuse_diag(&d);
		goto out;
	}
	if (log_s && open_log("proxy: --log", log_s, &cfg.log_fd)) {
		r = EXIT_REFUSED;
		goto out;
	}
	if (report_s) {
		r = report_open("proxy: --report", report_s, &report);
		if (r)
			goto out;
		cfg.on_decision = report_on_proxy;
		cfg.on_decision_arg = report;
	}
	if (pipe(stop) < 0) {
		r = refuse("proxy: pipe: %s", strerror(errno));
		goto out;
	}
	fcntl(stop[0], F_SETFD, FD_CLOEXEC);
	fcntl(stop[1], F_SETFD, FD_CLOEXEC);
	fcntl(stop[1], F_SETFL, O_NONBLOCK);
	stop_pipe_w = stop[1];
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/*
	 * A log on a closed pipe, or one past the caller's file size limit, must not kill the
	 * proxy (the write fails instead, and the loss is counted); its sockets never raise
	 * SIGPIPE.
	 */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	sbx_proxy_raise_nofile();
	if (sbx_proxy_listen(&la, &lfd, bound, sizeof(bound), &d) < 0) {
		r = refuse_diag(&d);
		goto out;
	}
	if (la.kind == SBX_LISTEN_UNIX)
		lstat(la.path, &made);
	/* One line a script can read (and then use as its proxy), before anything else. */
	printf("%s\n", bound);
	fflush(stdout);
	if (sbx_proxy_run(&cfg, lfd, stop[0], &d) < 0)
		r = refuse_diag(&d);
out:
	if (lfd >= 0) {
		close(lfd);
		if (la.kind == SBX_LISTEN_UNIX)
			remove_socket(la.path, &made);
	}
	if (stop[0] >= 0) {
		close(stop[0]);
		close(stop[1]);
	}
	if (cfg.log_fd > STDERR_FILENO)
		close(cfg.log_fd);
	report_close(report);
	sbx_domain_policy_free(&pol);
	return r;
}

#endif
