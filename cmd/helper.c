/* SPDX-License-Identifier: MIT */
/*
 * helper.c - `sbxrun-linux-sandbox`, the Linux helper, and a trust boundary: it may be run
 * directly (by a remote executor, say), so it parses and validates everything again, plans again
 * with the functions `run` and `explain` use (sbx_plan_build, then sbx_plan_attach_linux on the
 * facts of this host), refuses a plan it cannot enforce in the words `run` uses, and then hands
 * what the plan says over to the enter sequence (platform/linux/enter.c): this process then
 * becomes the supervisor of the sandbox (or, with nothing to supervise, the command itself).
 *
 *   sbxrun-linux-sandbox --sandbox-policy-cwd DIR [--command-cwd DIR]
 *       (--permission-profile JSON | --permission-profile-fd N) [--no-proc] [--allow-git]
 *       [--report-fd N] -- COMMAND [ARG...]
 *
 * The command line is parsed by sbx_handover_parse (lib/handover.c), the counterpart of the
 * builder `run` and `explain` use. --managed-network takes Codex's ManagedNetworkSandboxContext
 * (its proxies are those the command's proxy variables name); --allow-domain starts sbxrun's
 * own proxy (platform/linux/netns.h).
 * --report-fd N is the denial report's file, which `run` opened (runreport.c).
 * --no-proc keeps the host's /proc (read-only) where init would mount a fresh one; the PID
 * namespace is still made, as Codex's helper does.
 * Every error exits 125 with one `sbxrun: ...` line; the command does not run. Where the plan
 * has a supervisor, this process becomes it and ends as the command did.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "linux/linux.h"
#include "linux/netns.h"

#define EXIT_SBX EXIT_REFUSED

extern char **environ;

/* Reads the whole profile from fd (a sealed memfd from `run`, or any file), then closes it so
 * the command does not inherit it. */
static int read_profile_fd(int fd, char **buf, size_t *len, struct sbx_diag *d)
{
	struct stat st;
	size_t got = 0;
	char *b;
	int err;

	if (fstat(fd, &st) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "--permission-profile-fd %d: %s", fd, strerror(err));
	}
	if (!S_ISREG(st.st_mode) || (size_t)st.st_size > SBX_PROFILE_FD_MAX) {
		close(fd);
		return sbx_diag_set(d, SBX_E_TOO_BIG,
				    "--permission-profile-fd %d: not a regular "
				    "file of at most %u bytes",
				    fd, SBX_PROFILE_FD_MAX);
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		close(fd);
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, b + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			free(b);
			close(fd);
			return sbx_diag_set(d, -err, "reading --permission-profile-fd %d: %s", fd,
					    strerror(err));
		}
		got += (size_t)n;
	}
	close(fd);
	b[got] = 0;
	*buf = b;
	*len = got;
	return 0;
}

/*
 * The network beyond the profile: Codex's --managed-network context, or sbxrun's own proxy
 * (--allow-domain, with --deny-domain, --network-log and --allow-private-addresses), never
 * both. A bad pattern is found when the proxy is set up (sbx_linux_net_from_plan).
 */
static int network_options(const struct sbx_handover *o, struct sbx_managed_ctx *mctx,
			   struct sbx_diag *d)
{
	memset(mctx, 0, sizeof(*mctx));
	if (o->managed_network &&
	    sbx_managed_ctx_load_buf(o->managed_network, strlen(o->managed_network),
				     "--managed-network", mctx, d) < 0)
		return SBX_E_INVALID;
	if (o->n_allow_domains && o->managed_network)
		return sbx_diag_set(d, SBX_E_USAGE,
				    "--allow-domain starts sbxrun's own proxy, --managed-network "
				    "routes through the caller's: give one of them");
	if (!o->n_allow_domains &&
	    (o->n_deny_domains || o->network_log || o->allow_private_addresses))
		return sbx_diag_set(d, SBX_E_USAGE, "--%s: only with --allow-domain",
				    o->n_deny_domains ? "deny-domain"
				    : o->network_log  ? "network-log"
						      : "allow-private-addresses");
	return 0;
}

/*
 * The report file `run` made for this run (--report-created), and the --network-log file made
 * here, by name and descriptor: both go when the run is refused (remove_made_files).
 */
static struct made_file {
	const char *path;
	int fd, dir; /* dir: where it was made (report_created_dir, report_open_fd's made_dir) */
} made_report, made_log;

static void remove_made_files(void *arg)
{
	(void)arg;
	if (made_report.path)
		report_remove_created(made_report.dir, made_report.path, made_report.fd);
	made_report.path = NULL;
	if (made_log.path)
		report_remove_created(made_log.dir, made_log.path, made_log.fd);
	made_log.path = NULL;
}

/*
 * Git mode's end-of-run check (gitcheck.c): each thing found is a line on standard error and,
 * under --report, a line of the report; then a command that succeeded did not, as when a
 * protected name was created on the host (exit status 1).
 */
static void git_found(void *arg, const char *path, const char *msg, const char *hint)
{
	struct run_report *rr = arg;
	struct sbx_diag d;

	sbx_diag_clear(&d);
	sbx_diag_set(&d, 0, "%s", msg);
	sbx_diag_hint(&d, 0, "%s", hint);
	sbx_diag_print(&d, stderr);
	run_report_git_state(rr, path, msg);
}

static int git_check_end(void *arg, int *wstatus)
{
	if (sbx_gitcheck_end(arg) > 0 && WIFEXITED(*wstatus) && WEXITSTATUS(*wstatus) == 0)
		*wstatus = 1 << 8;
	return 0;
}

/*
 * Load, validate, plan with the same function as `run` and `explain` (sbx_plan_build and the
 * Linux attacher on this host's facts), refuse what cannot be enforced, then enter. The plan
 * `explain` shows is therefore, by construction, the one enforced here.
 * Returns 0 after printing a refusal itself, or a negative code with d filled.
 */
/* A path handed over that must be absolute and normalized (sbx_path_normalize's form). */
static int helper_abs(const char *opt, const char *p, struct sbx_diag *d)
{
	char *canon = NULL;
	int rc = sbx_path_normalize(p, &canon);

	if (rc == 0 && strcmp(canon, p) == 0 && strlen(p) < PATH_MAX)
		rc = 1;
	free(canon);
	if (rc == -ENOMEM)
		return sbx_diag_set(d, rc, "out of memory");
	if (rc != 1)
		return sbx_diag_set(d, -EINVAL, "%s %s: not an absolute, normalized path", opt, p);
	return 0;
}

static int helper_run(int argc, char **argv, struct sbx_diag *d)
{
	struct sbx_handover o;
	struct sbx_managed_ctx mctx;
	struct sbx_net_opts net_opts;
	static struct sbx_linux_net net;
	struct sbx_profile prof = {0};
	struct sbx_plan plan = {0};
	struct sbx_linux_facts facts;
	struct sbx_linux_enforce e = {0};
	struct sbx_rulepaths res;
	struct sbx_linux_globs globs = {0};
	struct sbx_linux_prepared prepared;
	struct exec_failure xf;
	struct run_report rr = {0};
	static struct sbx_gitcheck git_check;
	enum sbx_input_form form;
	struct sbx_ctx ctx = {0};
	char policy_cwd[PATH_MAX], command_cwd[PATH_MAX], cwd_link[PATH_MAX] = "";
	char *buf = NULL, *canon = NULL, *link = NULL;
	size_t len = 0;
	bool planned = false, log_created = false;
	int rc, log_fd = -1;

	sbx_rulepaths_init(&res);
	net.proxy.log_fd = -1; /* freed on every way out, read off the plan or not */
	rc = sbx_handover_parse(argc, argv, &o, d);
	if (rc < 0)
		return rc;
	/*
	 * Nothing is made on the host by a run that ends in 125: the report file `run` made goes
	 * when this run is refused, here or once entering (sbx_linux_on_refusal).
	 */
	if (o.report_created && o.report_fd >= 0) {
		made_report.path = o.report_created;
		made_report.fd = o.report_fd;
		made_report.dir = report_created_dir(o.report_created, o.report_fd);
		sbx_linux_on_refusal(remove_made_files, NULL);
	}
	rc = network_options(&o, &mctx, d);
	if (rc < 0)
		return rc;

	/*
	 * The policy cwd must be canonical: project roots and protected names resolve under it.
	 * It is resolved by the planner's own walk, so a link someone else may swap is refused.
	 */
	if (o.policy_cwd[0] != '/')
		return sbx_diag_set(d, -EINVAL, "--sandbox-policy-cwd %s: not an absolute path",
				    o.policy_cwd);
	rc = sbx_fs_canonical_dir(o.policy_cwd, &canon, &link, d);
	if (rc == 0 && strlen(canon) >= sizeof(policy_cwd))
		rc = sbx_diag_set(d, -ENAMETOOLONG, "%s", strerror(ENAMETOOLONG));
	if (rc < 0) {
		char why[sizeof(d->msg)];

		snprintf(why, sizeof(why), "%s", d->msg);
		free(canon);
		free(link);
		sbx_diag_clear(d);
		return sbx_diag_set(d, rc, "--sandbox-policy-cwd %s: %s", o.policy_cwd, why);
	}
	snprintf(policy_cwd, sizeof(policy_cwd), "%s", canon);
	/* A link the policy cwd crossed as named: a rule path under it crosses it too. */
	snprintf(cwd_link, sizeof(cwd_link), "%s", link ? link : "");
	free(canon);
	free(link);
	if (o.command_cwd && o.command_cwd[0] != '/')
		return sbx_diag_set(d, -EINVAL, "--command-cwd %s: not an absolute path",
				    o.command_cwd);
	snprintf(command_cwd, sizeof(command_cwd), "%s",
		 o.command_cwd ? o.command_cwd : policy_cwd);

	if (o.profile_fd >= 0)
		rc = read_profile_fd(o.profile_fd, &buf, &len, d);
	else if (strlen(o.profile) > SBX_MAX_PROFILE_BYTES)
		rc = sbx_diag_set(d, SBX_E_TOO_BIG, "--permission-profile: over %u bytes",
				  SBX_MAX_PROFILE_BYTES);
	if (rc < 0)
		return rc;
	/* Legacy SandboxPolicy JSON is refused here (NULL legacy_out): run sends canonical only. */
	rc = sbx_profile_load_buf(buf ? buf : o.profile, buf ? len : strlen(o.profile),
				  o.profile_fd >= 0 ? "--permission-profile-fd"
						    : "--permission-profile",
				  &prof, &form, NULL, d);
	free(buf);
	if (rc < 0)
		goto out;

	/*
	 * The same plan as `run`: the profile is already materialized for the policy cwd (its
	 * project roots are paths), so that cwd is the only workspace root needed. TMPDIR is read
	 * the way `run` reads it. The helper was asked to sandbox: the preference is "require".
	 */
	ctx.cwd = policy_cwd;
	ctx.cwd_link = cwd_link;
	ctx.tmpdir = env_get("TMPDIR");
	ctx.platform = SBX_PLATFORM_LINUX;
	ctx.allow_git = o.allow_git;
	ctx.points = true;
	/*
	 * The caller's global git config and HOME, as `run` found them: taken only absolute and
	 * normalized (what sbx_git_globals makes), and looked up again here like every path,
	 * through the resolver, whose look-ups refuse what `run` would. A wrong one cannot weaken
	 * the plan: it only keeps more read-only, or refuses.
	 */
	for (size_t i = 0; rc == 0 && i < o.n_git_globals; i++)
		rc = helper_abs(i < o.n_git_globals - o.n_git_system ? "--git-config"
								     : "--git-system-config",
				o.git_globals[i], d);
	if (rc == 0 && o.home)
		rc = helper_abs("--home", o.home, d);
	if (rc < 0)
		goto out;
	ctx.git_globals = o.git_globals;
	ctx.n_git_globals = o.n_git_globals;
	ctx.n_git_system = o.n_git_system;
	ctx.home = o.home;
	/*
	 * Every path is looked up once, through the resolver, which keeps what it found: about
	 * one path an entry, and the platform's few (its table then never grows and rehashes).
	 */
	if (sbx_rulepaths_reserve(&res, prof.fs.n + 64) < 0) {
		rc = sbx_diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	ctx.fs = &res.view;
	/* The plan keeps the profile (materialized already) rather than a copy of it. */
	rc = sbx_plan_build_take(&prof, &ctx, SBX_PREF_REQUIRE,
				 o.managed_network || o.n_allow_domains, SBX_WIN_DISABLED, &plan,
				 d);
	if (rc < 0)
		goto out; /* the plan says why (sbx_plan_build fills d on every failure) */
	planned = true;
	/* The proxies of managed networking are read from the environment the command gets. */
	net_opts = (struct sbx_net_opts){
		.env = o.managed_network ? environ : NULL,
		.unix_sockets = o.unix_sockets,
		.n_unix_sockets = o.n_unix_sockets,
		.allow_local_binding = o.allow_local_binding || mctx.allow_local_binding,
		.allow_all_unix_sockets = mctx.allow_all_unix_sockets,
		.ports = mctx.ports,
		.n_ports = mctx.n_ports,
		.own_proxy = o.n_allow_domains > 0,
		.allow_domains = o.allow_domains,
		.n_allow_domains = o.n_allow_domains,
		.deny_domains = o.deny_domains,
		.n_deny_domains = o.n_deny_domains,
		.allow_private = o.allow_private_addresses,
	};
	rc = sbx_plan_network(&plan, &net_opts, d);
	if (rc < 0)
		goto out;
	sbx_linux_probe(&facts);
	rc = sbx_plan_attach_linux(&plan, &facts);
	if (rc < 0) {
		sbx_diag_set(d, rc, "out of memory");
		goto out;
	}
	/*
	 * The proxy's log, opened as the report is (cmd/report.c) and with the plan: the name was
	 * within the command's reach on every earlier run in this workspace. Opened (made) before
	 * the deny globs are scanned: a log this run makes where a glob matches is masked as the
	 * glob's other matches are, not left to the command to read or rewrite.
	 */
	if (o.network_log && report_open_fd("--network-log", o.network_log, &plan, &log_fd,
					    &log_created, &made_log.dir)) {
		rc = 0; /* refused, in its words */
		goto out;
	}
	/*
	 * Made by this run, it goes as the report does when the run is refused: its own descriptor
	 * (the proxy takes log_fd) tells it from what may be at its name by then.
	 */
	if (log_created && made_log.dir >= 0) {
		made_log.fd = fcntl(log_fd, F_DUPFD_CLOEXEC, 0);
		if (made_log.fd >= 0) {
			made_log.path = o.network_log;
			sbx_linux_on_refusal(remove_made_files, NULL);
		} else {
			close(made_log.dir);
		}
	}

	/*
	 * The deny globs' matches, found once and checked: a glob whose scan refuses is a rule that
	 * cannot be enforced, refused below in the words explain gives it (the same scan).
	 */
	rc = sbx_linux_scan_globs(&plan, &res, &globs, d);
	if (rc < 0)
		goto out;
	/* Fail closed, in the words `run` uses. */
	if (!sbx_plan_enforceable(&plan)) {
		refuse_plan(&plan);
		rc = 0;
		goto out;
	}
	rc = sbx_linux_enforce_from_plan(&plan, &facts, o.report_fd >= 0, &res, &globs, &e, d);
	if (rc == 0) {
		rc = sbx_linux_net_from_plan(&plan, &facts, &res, &o, log_fd, &net, d);
		log_fd = -1; /* net's now */
	}
	if (rc == 0)
		rc = sbx_linux_net_check_inherited(&net, plan.network, d);
	if (rc < 0)
		goto out;
	e.net = &net;
	e.command_cwd = command_cwd;
	e.argv = o.cmd;
	if (o.no_proc)
		e.fresh_proc = false;
	xf = (struct exec_failure){&plan, &ctx, o.cmd, command_cwd};
	e.exec_failed = exec_failure_words;
	e.exec_failed_arg = &xf;
	if (o.report_fd >= 0)
		rc = run_report_start(&rr, o.report_fd, &plan, &ctx, &e, &net, d);
	/*
	 * Git mode: what the command may leave in a repository that runs a program at the
	 * caller's next git, and that no mount can refuse (git writes the same files for a
	 * commit), is looked for after the run, against what was there now, by the supervisor.
	 * Every plan with a restricted file system has one (its processes end with the run); one
	 * that runs in place writes everywhere, and git mode keeps nothing there.
	 */
	if (rc == 0 && ctx.allow_git && e.model != SBX_MODEL_IN_PLACE) {
		git_check.found = git_found;
		git_check.arg = &rr;
		rc = sbx_gitcheck_start(&git_check, &plan.roots, d);
		if (rc == 0 && sbx_supervise_on_empty(git_check_end, &git_check) < 0)
			rc = sbx_diag_set(d, -ENOSPC, "git mode: too many exit hooks");
	}
	if (rc == 0)
		rc = sbx_linux_prepare(&e, &prepared, d);
	if (rc < 0)
		goto out;
	sbx_linux_apply_and_exec(&prepared); /* does not return */
out:
	if (log_fd > STDERR_FILENO)
		close(log_fd);
	run_report_free(&rr);
	sbx_gitcheck_free(&git_check);
	sbx_linux_enforce_free(&e);
	sbx_linux_globs_free(&globs);
	sbx_linux_net_free(&net);
	sbx_rulepaths_free(&res);
	if (planned)
		sbx_plan_free(&plan);
	sbx_profile_free(&prof);
	return rc;
}

int sbx_helper_main(int argc, char **argv)
{
	struct sbx_diag d;

	sbx_diag_clear(&d);
	if (helper_run(argc, argv, &d) < 0)
		sbx_diag_print(&d, stderr);
	/* Returning, the helper refused: the command did not start. */
	sbx_linux_refused();
	return EXIT_SBX;
}
