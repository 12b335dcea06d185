/* SPDX-License-Identifier: MIT */
/* run.c - the main job: plan, refuse what cannot be enforced, execute (the helper on Linux). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#ifndef _WIN32
#include "unix/exec.h"
#endif

#ifndef _WIN32
/* glibc's execvp searches this when PATH is unset. */
#define DEFAULT_PATH "/bin:/usr/bin"
/* The kernel reads no more than this of a "#!" line (BINPRM_BUF_SIZE); an ELF interpreter's
 * name sits after the program headers, within the first page of any ordinary binary. */
#define HEAD_BYTES 4096

/*
 * dir/prog, from cwd, when it is a regular file (an empty dir is the current directory); or,
 * hidden, when a look-up of it is refused (EACCES): what a sandbox hides, a denied directory
 * on the way being a mount no one may search.
 */
static bool try_path(const char *cwd, const char *dir, size_t n, const char *prog, bool hidden,
		     char *out, size_t size)
{
	char *cand = NULL, *abs = NULL;
	struct stat st;
	bool ok = false;

	if (asprintf(&cand, "%.*s%s%s", (int)n, dir, n ? "/" : "", prog) < 0)
		return false;
	if (sbx_path_join(cwd, cand, &abs) == 0 && strlen(abs) < size) {
		if (stat(abs, &st) == 0)
			ok = !hidden && S_ISREG(st.st_mode);
		else
			ok = hidden && errno == EACCES;
	}
	if (ok)
		snprintf(out, size, "%s", abs);
	free(cand);
	free(abs);
	return ok;
}

static bool find_program(const char *prog, const char *cwd, bool hidden, char *out, size_t size)
{
	const char *path = env_get("PATH");

	if (strchr(prog, '/'))
		return try_path(cwd, "", 0, prog, hidden, out, size);
	for (const char *s = path ? path : DEFAULT_PATH;; s++) {
		size_t n = strcspn(s, ":");

		if (try_path(cwd, s, n, prog, hidden, out, size))
			return true;
		s += n;
		if (!*s)
			return false;
	}
}

bool exec_find_program(const char *prog, const char *cwd, char *out, size_t size)
{
	return find_program(prog, cwd, false, out, size);
}

bool exec_find_hidden(const char *prog, const char *cwd, char *out, size_t size)
{
	return find_program(prog, cwd, true, out, size);
}

void exec_find_interpreter(const char *file, char *out, size_t size)
{
	unsigned char buf[HEAD_BYTES];
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	if (n <= 0 || sbx_exec_interpreter(buf, (size_t)n, out, size) < 0)
		out[0] = 0;
}

bool exec_missing(const char *cwd, const char *path)
{
	char *abs = NULL;
	struct stat st;
	bool missing = false;

	/* A relative interpreter is taken from the cwd, as the kernel takes it. */
	if (sbx_path_join(cwd, path, &abs) == 0)
		missing = stat(abs, &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
	free(abs);
	return missing;
}

const char *exec_strerror(const char *cwd, const char *prog, int err)
{
	/* One message a process, printed before it exits: a static buffer is enough. */
	static char words[128];
	char *abs = NULL, found[PATH_MAX];
	struct stat st;
	bool dir = false;

	if (err == EACCES && strchr(prog, '/') && sbx_path_join(cwd, prog, &abs) == 0)
		dir = stat(abs, &st) == 0 && S_ISDIR(st.st_mode);
	free(abs);
	/*
	 * A script without "#!" goes to the shell (sbx_execvp), which gives back ENOEXEC when the
	 * shell itself cannot be executed: "Exec format error" would blame the script. Say why
	 * the shell cannot run (missing, no execute permission, a mount without exec).
	 */
	if (err == ENOEXEC && exec_find_program(prog, cwd, found, sizeof(found)) &&
	    sbx_exec_for_shell(found)) {
		int why = access(SBX_EXEC_SHELL, X_OK) == 0 ? ENOEXEC : errno;

		snprintf(words, sizeof(words),
			 "no \"#!\" line, and %s, which runs such a file, cannot be executed: %s",
			 SBX_EXEC_SHELL, strerror(why));
		return words;
	}
	return dir ? strerror(EISDIR) : strerror(err);
}
#endif

int exec_direct(char *const cmd[], const char *cwd)
{
	int err;

	if (cwd && chdir(cwd) != 0)
		return refuse("cannot change directory to '%s': %s", cwd, strerror(errno));
#ifndef _WIN32
	sbx_execvp(cmd[0], cmd);
#else
	execvp(cmd[0], cmd);
#endif
	err = errno;
	/* env(1) conventions: 127 when the command does not exist, 126 when it cannot run. */
	if (err == ENOENT || err == ENOTDIR) {
#ifndef _WIN32
		char here[PATH_MAX], prog[PATH_MAX], interp[PATH_MAX] = "";
		const char *dir = cwd ? cwd : getcwd(here, sizeof(here));

		/* Found, but what the kernel loads for it is not (a "#!" line, an ELF loader). */
		if (dir && exec_find_program(cmd[0], dir, prog, sizeof(prog)))
			exec_find_interpreter(prog, interp, sizeof(interp));
		if (interp[0] && exec_missing(dir, interp)) {
			refuse("%s: cannot execute: interpreter %s not found", cmd[0], interp);
			return EXIT_NOT_FOUND;
		}
#endif
		if (subcommand_meant(cmd[0]))
			refuse("%s: command not found; hint: did you mean 'sbxrun %s'?", cmd[0],
			       subcommand_meant(cmd[0]));
		else
			refuse("%s: command not found", cmd[0]);
		return EXIT_NOT_FOUND;
	}
#ifndef _WIN32
	{
		char here[PATH_MAX];
		const char *dir = cwd ? cwd : getcwd(here, sizeof(here));

		refuse("%s: cannot execute: %s", cmd[0],
		       dir ? exec_strerror(dir, cmd[0], err) : strerror(err));
	}
#else
	refuse("%s: cannot execute: %s", cmd[0], strerror(err));
#endif
	return EXIT_CANNOT_EXEC;
}

int refuse_plan(const struct sbx_plan *p)
{
	const struct sbx_req *r = sbx_plan_first_unenforceable(p);
	const char *platform = sbx_platform_name(p->platform);
	char rule[SBX_REQ_RULE_MAX];
	struct sbx_diag d;

	sbx_diag_clear(&d);
	if (!r) {
		sbx_diag_set(&d, 0, "the profile needs a sandbox and %s has no sandbox backend",
			     platform);
		return refuse_diag(&d);
	}
	sbx_diag_set(&d, 0, "cannot enforce \"%s\" on %s: %s", sbx_req_rule(r, rule), platform,
		     sbx_req_reason(r) ? sbx_req_reason(r) : "unenforceable");
	if (sbx_req_hint(r))
		sbx_diag_hint(&d, 0, "%s", sbx_req_hint(r));
	return refuse_diag(&d);
}

/*
 * --report: opened last, once nothing but the execution is left, so that a run sbxrun refuses
 * for any other reason creates no report file (nothing is made on the host when it exits 125);
 * a bad name (a link, a directory, a missing parent) is still refused before anything runs.
 * Only the Linux backend can make the report (its tracer, platform/linux/trace.c); elsewhere
 * the option is refused first, rather than leave a report that stays empty whatever is denied.
 */
int report_refuse_platform(enum sbx_platform p)
{
	struct sbx_diag d;

	sbx_diag_clear(&d);
	sbx_diag_set(&d, 0, "--report: the denial report is made on Linux only; %s has none",
		     sbx_platform_name(p));
	if (p == SBX_PLATFORM_MACOS)
		sbx_diag_hint(&d, 0,
			      "run without --report; the system log has the sandbox's refusals "
			      "(log stream --predicate 'sender == \"Sandbox\"')");
	else
		sbx_diag_hint(&d, 0, "run without --report");
	return refuse_diag(&d);
}

static int report_start(struct opts *o, const struct sbx_plan *plan)
{
	o->report_fd = -1;
	if (!o->report)
		return 0;
#if defined(__linux__)
	return report_open_fd("--report", o->report, plan, &o->report_fd, &o->report_made,
			      &o->report_dir);
#else
	(void)plan;
	return report_refuse_platform(sbx_host_platform());
#endif
}

/*
 * Load, make what --mkdir and the global git config need, and plan. With later, where the
 * helper plans again on this host (a Linux plan, nothing shown, no --mkdir directory made that
 * a refusal of the helper's would leave), the plan is built without the gitlinks: the helper's
 * plan, the one enforced, reads every index itself, and each is read through once a start
 * (tests/bench/README.md). Every refusal the gitlinks make is the helper's then, in the same
 * words, before anything is applied; the points their missing .git need were always its own.
 * Not when the profile or an addition came from a stream (invocation.read_once): the plan
 * made again after a refusal reads them again, and a stream gives nothing the second time.
 * Not with --report or --network-log: their names are checked against a plan (here, and in the
 * helper before it asks whether its plan is enforceable), and a requirement of the gitlinks
 * that cannot be enforced would come after their faults, in their words.
 */
static int plan_run(struct invocation *inv, const struct opts *o, bool later)
{
	int r = invocation_load(inv, o, sbx_host_platform());

	/* Before planning, so that the plan sees the directories; undone if the run is refused. */
	if (!r)
		r = mkdir_grants(inv, o);
	/* A missing ~/.config is made, never masked (kept, whatever the run's end). */
	if (!r)
		r = config_home_make(inv, o, NULL);
	if (!r)
		inv->ctx.gitlinks_later = later && inv->ctx.points && !o->verbose && !inv->made.n &&
					  !o->report && !o->network_log && !inv->read_once;
	return r ? r : invocation_plan(inv, o);
}

int cmd_run(int argc, char **argv)
{
	struct opts o = {.subcommand = NULL};
	struct invocation inv;
	const char *debug;
	int r;

	if (argc > 0 && strcmp(argv[0], "run") == 0)
		o.subcommand = "run";
	r = opts_parse(&o, argc, argv,
		       OPTS_SHARED | OPTS_NETWORK | OPT_MKDIR | OPT_VERBOSE | OPT_GIT | OPT_REPORT,
		       true);
	if (r)
		return r < 0 ? 0 : r;
	debug = env_get("SBXRUN_DEBUG");
	o.verbose = o.verbose || (debug && debug[0] && strcmp(debug, "0") != 0);
	if (o.n_rest < 1) {
		struct sbx_diag d;

		sbx_diag_clear(&d);
		sbx_diag_set(&d, 0, "no command given");
		sbx_diag_hint(&d, 0, "sbxrun [OPTIONS] [--] COMMAND [ARG...]; see 'sbxrun --help'");
		return refuse_diag(&d);
	}
#if !defined(__linux__)
	r = report_start(&o, NULL);
	if (r)
		return r;
#endif
#ifdef __APPLE__
	/* Its port goes into the command's environment, which the plan reads. */
	if (o.n_allow_domains && !o.managed_network) {
		r = own_proxy_start(&o);
		if (r)
			return r;
	}
#endif
	r = plan_run(&inv, &o, true);
	/*
	 * Refused without the gitlinks: planned again with them, so that the refusal is the one
	 * the whole plan words (a gitlink's fault comes before what follows it). Nothing was made
	 * for the run yet (plan_run: no --mkdir directory), nor printed.
	 */
	if (inv.ctx.gitlinks_later && (inv.plan_again || (!r && inv.plan.sandbox_requested &&
							  !sbx_plan_enforceable(&inv.plan)))) {
		invocation_free(&inv);
		r = plan_run(&inv, &o, false);
	}
	if (!r && o.verbose)
		plan_summary(stderr, &inv);
	if (!r && (!inv.plan.sandbox_requested || sbx_plan_enforceable(&inv.plan)))
		workspace_warn(&inv, &o);
	if (!r)
		r = environ_install(&inv);
	/* Fail closed: intent that this host cannot enforce never runs. */
	if (!r && inv.plan.sandbox_requested && !sbx_plan_enforceable(&inv.plan))
		r = refuse_plan(&inv.plan);
#if defined(__linux__)
	/* With the plan: a link on the way to the file inside a writable root is refused. */
	if (!r)
		r = report_start(&o, inv.plan.sandbox_requested ? &inv.plan : NULL);
#endif
	if (r)
		goto out;
	if (!inv.plan.sandbox_requested) {
		/* Nothing to confine: run the command as env(1) would. */
#ifdef _WIN32
		/* Windows has no exec: sbxrun spawns the command (unconfined, in a job) and waits. */
		r = backend_exec(&inv, &o, o.rest);
#else
		r = exec_direct(o.rest, inv.cwd);
#endif
		goto out;
	}
	r = backend_exec(&inv, &o, o.rest);
out:
	/* Returning means the command did not run (exec failed, or it was refused). */
	if (r)
		mkdir_undo(&inv);
	invocation_free(&inv);
	/* Refused before the command started: a report file this run made goes (the helper's too). */
#ifndef _WIN32
	if (r == EXIT_REFUSED && o.report_made)
		report_remove_created(o.report_dir, o.report, o.report_fd);
	if (o.report_made && o.report_dir >= 0)
		close(o.report_dir);
#endif
	if (o.report_fd > STDERR_FILENO)
		close(o.report_fd);
	return r;
}
