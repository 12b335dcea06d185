/* SPDX-License-Identifier: MIT */
/* explain.c - print the decision and the launch plan, for this host or another platform. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#if defined(__linux__)
#include "linux/linux.h"
#endif
#ifndef _WIN32
#include "unix/exec.h"
#endif

static json_t *strv_json(char **v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, sbx_json_text(v[i]));
	return a;
}

/*
 * Who runs the command on Linux, read off the plan's mechanisms (as the helper reads them):
 * sbxrun stays outside as the supervisor of an init in new namespaces, or as a subreaper, or
 * becomes the command. *name is the short form the JSON gives. With the report, init runs it
 * (model: sbx_report_model()'s).
 */
static const char *linux_process(const struct sbx_plan *p, const enum sbx_linux_model *model,
				 const char **name)
{
	struct sbx_linux_facts f;
	struct sbx_linux_apply a;

	sbx_linux_facts_assumed(&f); /* the model depends on the requirements alone */
	sbx_plan_linux_apply(p, &f, &a);
	if (model)
		a.model = *model;
	switch (a.model) {
	case SBX_MODEL_INIT:
		*name = "init";
		return "sbxrun supervises; the command runs under its own init (pid 1) in new PID, "
		       "IPC and mount namespaces";
	case SBX_MODEL_SUBREAPER:
		*name = a.mount_namespace ? "subreaper+mount-namespace" : "subreaper";
		return a.mount_namespace
			       ? "sbxrun supervises as a child subreaper; the command runs "
				 "in a new mount namespace, without a PID namespace"
			       : "sbxrun supervises as a child subreaper; no namespace";
	case SBX_MODEL_IN_PLACE:
		break;
	}
	*name = "in-place";
	return "sbxrun becomes the command (no supervisor)";
}

/* What --report makes of the run (explain shows it; nothing is opened). */
struct report_plan {
	bool on;
	bool moved; /* a plan that runs in place runs under init instead */
	enum sbx_linux_model model;
	const char *note; /* what explain says of it */
};

/* The facts a Linux plan was attached with (as backend.c attaches it). */
static void linux_facts(struct sbx_linux_facts *f)
{
#if defined(__linux__)
	if (sbx_host_platform() == SBX_PLATFORM_LINUX) {
		sbx_linux_probe(f);
		return;
	}
#endif
	sbx_linux_facts_assumed(f);
}

/*
 * --report as run decides it: refused off Linux and where no PID namespace can be made (the
 * same words and 125), a plan in place moved under init, nothing confined nothing reported.
 */
static int report_plan(const struct invocation *inv, const struct opts *o, bool refused,
		       struct report_plan *rp)
{
	const struct sbx_plan *p = &inv->plan;
	struct sbx_linux_facts f;
	struct sbx_linux_apply a;
	struct sbx_diag d;

	memset(rp, 0, sizeof(*rp));
	if (!o->report)
		return 0;
	rp->on = true;
	if (p->platform != SBX_PLATFORM_LINUX)
		return report_refuse_platform(p->platform);
	if (!p->sandbox_requested) {
		rp->note = "nothing is confined: nothing is refused, the report stays empty";
		return 0;
	}
	if (refused)
		return 0;
	sbx_diag_clear(&d);
	linux_facts(&f);
	sbx_plan_linux_apply(p, &f, &a);
	rp->model = a.model;
	if (sbx_report_model(&f, &rp->model, &d) < 0)
		return refuse_diag(&d);
	rp->moved = a.model != rp->model;
	rp->note = rp->moved ? "each refused operation, traced from the supervisor; the command "
			       "runs under its own init (in place without --report)"
			     : "each refused operation, traced from the supervisor";
	return 0;
}

/*
 * The deny globs' scan the helper runs before it judges the plan, run here through the same
 * function, so that explain's verdict is run's on this host (a tree the scan refuses makes the
 * glob unenforceable, in run's words), and the matches it would mask are shown. Only for a plan
 * for this host: another platform's would not scan this one's files (macOS's policy builder
 * does, as it always has, since it writes the matches into the policy). *matches is one list
 * per requirement, or NULL when nothing was scanned.
 */
static int scan_globs(struct invocation *inv, struct sbx_strv **matches, size_t *n)
{
	*matches = NULL;
	*n = 0;
#if defined(__linux__)
	struct sbx_rulepaths res;
	struct sbx_linux_globs g;
	struct sbx_diag d;
	int r;

	if (!inv->ctx.points || !inv->plan.sandbox_requested)
		return 0;
	sbx_diag_clear(&d);
	sbx_rulepaths_init(&res);
	r = sbx_linux_scan_globs(&inv->plan, &res, &g, &d);
	sbx_rulepaths_free(&res);
	if (r < 0)
		return refuse_diag(&d);
	*matches = g.matches;
	*n = g.n;
#else
	(void)inv;
#endif
	return 0;
}

static void matches_free(struct sbx_strv *matches, size_t n)
{
	for (size_t i = 0; matches && i < n; i++)
		sbx_strv_clear(&matches[i]);
	free(matches);
}

/* Is there a process model to show: a Linux sandbox that run would start? */
static bool shows_process(const struct sbx_plan *p, bool refused)
{
	return p->platform == SBX_PLATFORM_LINUX && p->sandbox_requested && !refused;
}

/*
 * Does the caller's HOME lie in a writable root of the plan? Then only git's global config is
 * kept there: the shell's start-up files and every other program's configuration are the
 * command's to write (sbxrun(1), CAVEATS), and explain says so rather than stay silent.
 */
static bool home_writable(const struct invocation *inv)
{
	const struct sbx_roots *rt = &inv->plan.roots;

	if (!inv->ctx.home || rt->full_write)
		return inv->ctx.home && rt->full_write && inv->plan.sandbox_requested;
	for (size_t i = 0; i < rt->n_writable; i++)
		if (sbx_path_covers_any(rt->writable[i].root, inv->ctx.home))
			return true;
	return false;
}

/* Why run could not execute the command: its exit status then, the message and a hint. */
struct cmd_check {
	int status; /* 0: nothing found against it */
	char *message, *hint;
};

#ifndef _WIN32
/*
 * abs, when it is a regular file the caller may execute: 1; what execve(2) refuses with EACCES
 * (no execute permission, a directory, a FIFO, a device, a directory on the way it may not
 * search): 0, as sbx_execvp then goes on and ends with EACCES; not there: -1; another error
 * (ELOOP, ENAMETOOLONG), at which sbx_execvp stops the search: -errno. Only stat: the
 * kernel opens nothing but a regular file, and neither may this (a FIFO, a device).
 */
static int runnable(const char *abs)
{
	struct stat st;

	if (stat(abs, &st) != 0)
		return errno == EACCES ? 0 : errno == ENOENT || errno == ENOTDIR ? -1 : -errno;
	if (!S_ISREG(st.st_mode))
		return 0;
	return faccessat(AT_FDCWD, abs, X_OK, AT_EACCESS) == 0;
}

/*
 * Whether the plan lets prog (and interp, unless "") be read, with where each leads (Linux):
 * the rule and the hint run gives (execfail.c) when it does not.
 */
static int profile_refusal(const struct invocation *inv, const char *name, const char *prog,
			   const char *interp, struct cmd_check *c)
{
	char *real, *interp_real = NULL, *why = NULL;
	const char *paths[SBX_EXEC_PATHS] = {prog, NULL, interp[0] ? interp : NULL, NULL},
		   *refused = NULL;
	struct sbx_access_why a;
	long entry = -1;
	int r;

	if (inv->plan.platform != SBX_PLATFORM_LINUX || !inv->plan.sandbox_requested)
		return 0;
	paths[1] = real = realpath(prog, NULL);
	if (interp[0])
		paths[3] = interp_real = realpath(interp, NULL);
	r = sbx_exec_refusal(&inv->plan, &inv->ctx, paths, sbx_linux_minimal_paths, &why, &refused);
	if (r == 1) {
		/* A deny wins over any read grant: the hint cannot be --read then. */
		if (sbx_read_rule(&inv->plan, NULL, &inv->ctx, refused, sbx_linux_minimal_paths,
				  &a) == 0) {
			entry = a.entry;
			sbx_access_why_free(&a);
		}
		c->status = EXIT_CANNOT_EXEC;
		if (asprintf(&c->message, "%s: cannot execute: %s", name, why) < 0)
			r = -ENOMEM;
		else if (entry >= 0)
			r = asprintf(&c->hint,
				     "a deny wins over a read grant: drop entries[%ld] (or the "
				     "--deny that made it) to let the command read %s",
				     entry, refused);
		else
			r = asprintf(&c->hint,
				     "let the command read it: --read %s, or a read entry in the "
				     "profile",
				     refused);
	}
	free(why);
	free(real);
	free(interp_real);
	return r < 0 ? -ENOMEM : 0;
}

/*
 * Looks the command up as the execution would (sbx_execvp: from the command's cwd, on the PATH
 * of the environment made for it, an executable regular file first), on this host, and asks the
 * plan whether it lets the program and its interpreter be read (Linux). Nothing runs: a file
 * that changes before the run changes the answer, and the run says what it meets then.
 */
static int command_check(const struct invocation *inv, const char *name, struct cmd_check *c)
{
	const char *path = sbx_env_lookup(&inv->env, "PATH", false);
	char prog[PATH_MAX] = "", interp[PATH_MAX] = "", *abs = NULL;
	bool denied = false, shell = false;
	int r = 0, stop = 0;

	if (strchr(name, '/')) {
		struct stat st;
		int err = 0;

		if (sbx_path_join(inv->cwd, name, &abs) < 0)
			return -ENOMEM;
		if (stat(abs, &st) != 0)
			err = errno;
		else if (S_ISDIR(st.st_mode))
			err = EISDIR; /* the kernel's EACCES, in the words run uses */
		else if (runnable(abs) == 0)
			err = EACCES;
		else if (strlen(abs) < sizeof(prog))
			snprintf(prog, sizeof(prog), "%s", abs);
		free(abs);
		abs = NULL;
		if (err == ENOENT || err == ENOTDIR) {
			c->status = EXIT_NOT_FOUND;
			r = asprintf(&c->message, "%s: command not found", name);
		} else if (err) {
			c->status = EXIT_CANNOT_EXEC;
			r = asprintf(&c->message, "%s: cannot execute: %s", name, strerror(err));
		}
		if (r < 0)
			return -ENOMEM;
		if (err)
			return 0;
	}
	/* A name longer than a file name can be is refused before any look-up, as sbx_execvp does. */
	if (!strchr(name, '/') && strlen(name) > NAME_MAX)
		stop = ENAMETOOLONG;
	for (const char *s = path ? path : "/bin:/usr/bin";
	     !stop && !prog[0] && !strchr(name, '/');) {
		size_t n = strcspn(s, ":");
		char *cand = NULL;
		int k = -1;

		/*
		 * An empty element is the cwd; a relative one is taken from it, as execvp does. One
		 * too long to name with the command's name is passed over, as sbx_execvp does.
		 */
		if (n + 1 + strlen(name) < PATH_MAX) {
			if (asprintf(&cand, "%.*s%s%s", (int)n, s, n ? "/" : "", name) < 0)
				return -ENOMEM;
			r = sbx_path_join(inv->cwd, cand, &abs);
			free(cand);
			if (r < 0)
				return -ENOMEM;
			k = runnable(abs);
		}
		if (k == 1 && strlen(abs) < sizeof(prog))
			snprintf(prog, sizeof(prog), "%s", abs);
		denied |= k == 0;
		/* ELOOP, ENAMETOOLONG: execve's error ends the search there, and is run's. */
		if (k < -1)
			stop = -k;
		free(abs);
		abs = NULL;
		if (prog[0] || !s[n])
			break;
		s += n + 1;
	}
	if (!prog[0] && (denied || stop)) {
		c->status = EXIT_CANNOT_EXEC;
		return asprintf(&c->message, "%s: cannot execute: %s", name,
				strerror(stop ? stop : EACCES)) < 0
			       ? -ENOMEM
			       : 0;
	}
	if (!prog[0]) {
		c->status = EXIT_NOT_FOUND;
		if (asprintf(&c->message, "%s: command not found", name) < 0)
			return -ENOMEM;
		if (subcommand_meant(name) &&
		    asprintf(&c->hint, "did you mean 'sbxrun %s'?", subcommand_meant(name)) < 0)
			return -ENOMEM;
		return 0;
	}
	exec_find_interpreter(prog, interp, sizeof(interp));
	/* A script without "#!" goes to the shell (sbx_execvp): the profile may refuse it. */
	if (!interp[0] && sbx_exec_for_shell(prog)) {
		snprintf(interp, sizeof(interp), "%s", SBX_EXEC_SHELL);
		shell = true;
	}
	/*
	 * The program first, as the kernel opens it first; then a missing interpreter (127), as
	 * in an unconfined run; then the interpreter the profile may refuse; then a shell that
	 * cannot be executed, in run's words (exec_strerror), after the profile as run says it.
	 */
	for (int stage = 0; stage < 4 && r == 0 && !c->status; stage++) {
		if (stage == 1 && !shell && interp[0] && exec_missing(inv->cwd, interp)) {
			c->status = EXIT_NOT_FOUND;
			r = asprintf(&c->message, "%s: cannot execute: interpreter %s not found",
				     name, interp);
		} else if (stage == 3 && shell && access(SBX_EXEC_SHELL, X_OK) != 0) {
			c->status = EXIT_CANNOT_EXEC;
			r = asprintf(&c->message, "%s: cannot execute: %s", name,
				     exec_strerror(inv->cwd, prog, ENOEXEC));
		} else if (stage == 0 || stage == 2) {
			r = profile_refusal(inv, name, prog, stage ? interp : "", c);
		}
	}
	return r < 0 ? -ENOMEM : 0;
}
#endif

static void cmd_check_free(struct cmd_check *c)
{
	free(c->message);
	free(c->hint);
	memset(c, 0, sizeof(*c));
}

static int explain_json(const struct invocation *inv, char **argv, size_t argc, bool refused,
			const struct sbx_strv *will_create, const struct sbx_strv *env,
			const struct report_plan *rp, const struct sbx_strv *matches,
			const struct cmd_check *cc)
{
	const struct sbx_plan *p = &inv->plan;
	json_t *o = json_object(), *reqs = json_array(), *skipped = json_array();
	char *text;

	if (!o || !reqs || !skipped) {
		json_decref(o);
		json_decref(reqs);
		json_decref(skipped);
		return -ENOMEM;
	}
	json_object_set_new(o, "version", sbx_json_text("sbxrun " SBX_VERSION));
	json_object_set_new(o, "platform", sbx_json_text(sbx_platform_name(p->platform)));
	json_object_set_new(o, "profile", sbx_profile_to_jv(&p->profile));
	json_object_set_new(o, "sandbox_requested", json_boolean(p->sandbox_requested));
	json_object_set_new(o, "sandbox", sbx_json_text(sbx_sandbox_name(p->sandbox)));
	json_object_set_new(o, "enforceable", json_boolean(sbx_plan_enforceable(p)));
	json_object_set_new(o, "allow_git", json_boolean(inv->ctx.allow_git));
	/* The ~/.config run makes before it plans (config_home_make): left after the run. */
	if (inv->ctx.config_home_made)
		json_object_set_new(o, "creates", sbx_json_text(inv->ctx.config_home_made));
	/* Hooks linked to nothing the command can make (the human form's "hook link:"). */
	if (p->roots.hook_dangling.n > 1) {
		json_t *a = json_array();

		for (size_t i = 0; a && i + 1 < p->roots.hook_dangling.n; i += 2) {
			json_t *h = json_object();

			json_object_set_new(h, "link", sbx_json_text(p->roots.hook_dangling.v[i]));
			json_object_set_new(h, "leads_to",
					    sbx_json_text(p->roots.hook_dangling.v[i + 1]));
			json_array_append_new(a, h);
		}
		json_object_set_new(o, "hook_links", a);
	}
	if (shows_process(p, refused)) {
		const char *name;

		linux_process(p, rp->on ? &rp->model : NULL, &name);
		json_object_set_new(o, "process", sbx_json_text(name));
	}
	/* Only with --report: the output without it stays as it was. */
	if (rp->on) {
		json_t *r = json_object();

		json_object_set_new(r, "traced", json_boolean(p->sandbox_requested && !refused));
		json_object_set_new(r, "moved_under_init", json_boolean(rp->moved));
		json_object_set_new(r, "note", rp->note ? sbx_json_text(rp->note) : json_null());
		json_object_set_new(o, "report", r);
	}
	for (size_t i = 0; i < p->n_reqs; i++) {
		const struct sbx_req *r = &p->reqs[i];
		json_t *j = json_object();
		struct plan_row v;
		char rule[SBX_REQ_RULE_MAX];

		/* Each row keeps its own reason: a reader of one row needs no other. */
		plan_row_view(r, will_create, &v);
		json_object_set_new(j, "rule", sbx_json_text(sbx_req_rule(r, rule)));
		/*
		 * A status is enforced or unenforceable (sbxrun(1), explain): a rule that has
		 * nothing to do here, such as a grant on a missing path, is neither, and goes to
		 * "skipped" with its reason instead. A path run --mkdir creates first is granted
		 * as any other.
		 */
		if (sbx_req_missing_grant(r) && will_create && sbx_strv_has(will_create, r->path)) {
			v.status = "enforced";
			v.mechanism = sbx_mech_name(r->mech, v.mech);
		} else if (r->status == SBX_SKIPPED || sbx_req_missing_grant(r)) {
			json_object_set_new(j, "why", sbx_json_text(v.why ? v.why : ""));
			json_array_append_new(skipped, j);
			continue;
		}
		json_object_set_new(j, "mechanism", sbx_json_text(v.mechanism));
		json_object_set_new(j, "status", sbx_json_text(v.status));
		if (v.why)
			json_object_set_new(j, "why", sbx_json_text(v.why));
		if (v.hint)
			json_object_set_new(j, "hint", sbx_json_text(v.hint));
		/* A deny glob scanned on this host: what it matches now, as run would mask. */
		if (matches && r->kind == SBX_REQ_DENY_GLOB && r->status == SBX_ENFORCED)
			json_object_set_new(j, "matches", strv_json(matches[i].v, matches[i].n));
		/* Only a requirement that is not one of the profile's rules names where it comes from. */
		if (sbx_origin_name(r->origin))
			json_object_set_new(j, "origin", sbx_json_text(sbx_origin_name(r->origin)));
		json_array_append_new(reqs, j);
	}
	json_object_set_new(o, "requirements", reqs);
	/* Only when there is one: the output without it stays as it was. */
	if (json_array_size(skipped))
		json_object_set_new(o, "skipped", skipped);
	else
		json_decref(skipped);
	json_object_set_new(o, "argv", refused ? json_null() : strv_json(argv, argc));
	/* Only when run could not execute the command: the output without it stays as it was. */
	if (cc->status) {
		json_t *c = json_object();

		json_object_set_new(c, "exit", json_integer(cc->status));
		json_object_set_new(c, "why", sbx_json_text(cc->message));
		if (cc->hint)
			json_object_set_new(c, "hint", sbx_json_text(cc->hint));
		json_object_set_new(o, "command", c);
	}
	json_object_set_new(o, "cwd", sbx_json_text(inv->cwd));
	json_object_set_new(o, "environment", strv_json(env->v, env->n));
	text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text)
		return -ENOMEM;
	puts(text);
	free(text);
	return 0;
}

/*
 * Quotes an argument for display the way a POSIX shell would read it back. A byte that
 * sbx_put_sanitized shows as \xHH (a control character, a byte that is not UTF-8 text) is
 * written $'\xHH', outside the single quotes: raw, it would act on the terminal it is shown on
 * (a name an earlier run made may hold any), and this is still what bash reads back.
 */
static void put_shell_word(const char *s, FILE *f)
{
	if (*s && !s[strcspn(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!")] &&
	    sbx_sanitized_len(s) == strlen(s)) {
		fputs(s, f);
		return;
	}
	fputc('\'', f);
	while (*s) {
		size_t n = sbx_sanitized_char(s);

		if (*s == '\'') {
			fputs("'\\''", f);
			s++;
		} else if (!n) {
			fprintf(f, "'$'\\x%02x''", (unsigned char)*s++);
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
	fputc('\'', f);
}

/*
 * Text of several lines (the macOS policy), each shown as sbx_put_sanitized shows it: the
 * policy quotes the paths of the profile, which an earlier run may have named.
 */
static void put_lines(const char *s, FILE *f)
{
	while (*s) {
		size_t n = sbx_sanitized_char(s);

		if (*s == '\n') {
			fputc('\n', f);
			s++;
		} else if (!n) {
			fprintf(f, "\\x%02x", (unsigned char)*s++);
		} else {
			fwrite(s, 1, n, f);
			s += n;
		}
	}
}

/*
 * One line of the human form, its control characters shown as \xHH: the paths in it may have
 * been named by an earlier run (a .git file's gitdir, the directory the caller is in), and one
 * holding a newline or a terminal's escape sequence would forge or hide lines of the plan.
 */
__attribute__((format(printf, 1, 2))) static void put_line(const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	if (n < 0) {
		/* No memory for the line: its words are still worth more than nothing. */
		fputs("?\n", stdout);
		return;
	}
	sbx_put_sanitized(text, stdout);
	putchar('\n');
	free(text);
}

static int explain_human(const struct invocation *inv, char **argv, size_t argc, bool refused,
			 const struct sbx_strv *will_create, const struct sbx_strv *env,
			 const struct report_plan *rp, const struct cmd_check *cc)
{
	const struct sbx_plan *p = &inv->plan;
	char *profile = sbx_profile_to_json(&p->profile);

	put_line("platform:          %s", sbx_platform_name(p->platform));
	put_line("profile:           %s", inv->profile_name);
	put_line("effective profile: %s", profile ? profile : "?");
	free(profile);
	put_line("cwd:               %s", inv->cwd);
	put_line("sandbox requested: %s", p->sandbox_requested ? "yes" : "no");
	put_line("sandbox:           %s", sbx_sandbox_name(p->sandbox));
	put_line("enforceable:       %s", sbx_plan_enforceable(p) ? "yes" : "no");
	/*
	 * sbxrun does not read core.hooksPath (sbxrun(1), GIT MODE): said here, since the words
	 * before it would promise that directory too.
	 */
	if (inv->ctx.allow_git)
		put_line("git mode:          on (the git directories writable but for what runs "
			 "code; not a hooks directory that core.hooksPath names inside one: "
			 "sbxrun(1), "
			 "GIT MODE)");
	/* An unrestricted file system keeps nothing read-only: git's global config neither. */
	if (home_writable(inv) && p->roots.full_write)
		put_line("home:              %s lies in a writable root, the whole file system: "
			 "git's global config, the shell's start-up files (.bashrc, .profile), "
			 ".ssh/config and other programs' configuration are the command's to write "
			 "(sbxrun(1), CAVEATS)",
			 inv->ctx.home);
	else if (home_writable(inv))
		put_line("home:              %s lies in a writable root: git's global config is "
			 "kept read-only, but the shell's start-up files (.bashrc, .profile), "
			 ".ssh/config and other programs' configuration are the command's to "
			 "write (sbxrun(1), CAVEATS)",
			 inv->ctx.home);
	if (inv->ctx.config_home_made)
		put_line("creates:           %s (mode 0700, left after the run): the directory "
			 "of git's global config, which the command could otherwise make in a "
			 "writable root",
			 inv->ctx.config_home_made);
	/* Refused where the command could make it; here it cannot, and git runs nothing. */
	for (size_t i = 0; i + 1 < p->roots.hook_dangling.n; i += 2)
		put_line("hook link:         %s leads to %s, which does not exist and lies outside "
			 "every writable root: the command cannot make it, so git runs nothing "
			 "there",
			 p->roots.hook_dangling.v[i], p->roots.hook_dangling.v[i + 1]);
	if (shows_process(p, refused)) {
		const char *name;

		put_line("process:           %s",
			 linux_process(p, rp->on ? &rp->model : NULL, &name));
	}
	if (rp->on && rp->note)
		put_line("report:            %s", rp->note);
	if (p->n_reqs)
		printf("requirements:\n");
	if (p->n_reqs && plan_print(stdout, "  ", p, will_create))
		return -ENOMEM;
	/* Names only: a value may be a secret. */
	put_line("environment:       %zu variable%s", env->n, env->n == 1 ? "" : "s");
	for (size_t i = 0; i < env->n; i++) {
		fputs(i ? " " : "  ", stdout);
		sbx_put_sanitized(env->v[i], stdout);
	}
	if (env->n)
		putchar('\n');
	if (refused) {
		put_line("run would refuse (exit 125): the plan cannot be enforced on %s",
			 sbx_platform_name(p->platform));
		return 0;
	}
	if (cc->status)
		put_line("command:           %s: run would exit %d%s%s", cc->message, cc->status,
			 cc->hint ? "; hint: " : "", cc->hint ? cc->hint : "");
	if (!p->sandbox_requested)
		printf("run would execute the command directly, unconfined:\n");
	else
		printf("run would execute:\n");
	/* The macOS policy text is long: show it as text, then the argv without it. */
	for (size_t i = 0; i < argc; i++) {
		if (p->platform == SBX_PLATFORM_MACOS && p->sandbox_requested && i == 2) {
			printf("  <policy below>\n");
			continue;
		}
		fputs("  ", stdout);
		put_shell_word(argv[i], stdout);
		fputc('\n', stdout);
	}
	if (p->platform == SBX_PLATFORM_MACOS && p->sandbox_requested && argc > 2) {
		fputs("policy:\n", stdout);
		put_lines(argv[2], stdout);
		fputc('\n', stdout);
	}
	return 0;
}

int cmd_explain(int argc, char **argv)
{
	struct opts o = {.subcommand = "explain"};
	struct sbx_strv will_create = {0}, env = {0};
	char *config_home = NULL;
	struct invocation inv;
	struct sbx_strv run_argv = {0};
	struct report_plan rp;
	struct sbx_strv *matches = NULL;
	size_t n_matches = 0;
	struct cmd_check cc = {0};
	struct sbx_diag d;
	bool refused;
	int r;

	r = opts_parse(&o, argc, argv,
		       OPTS_SHARED | OPTS_NETWORK | OPT_PLATFORM | OPT_JSON | OPT_MKDIR | OPT_GIT |
			       OPT_REPORT,
		       true);
	if (r)
		return r < 0 ? 0 : r;
	r = invocation_load(&inv, &o, o.platform);
	/* What run would make first, planned as made (nothing is made here). */
	if (!r)
		r = config_home_make(&inv, &o, &config_home);
	inv.ctx.config_home_made = config_home;
	if (!r)
		r = invocation_plan(&inv, &o);
	if (!r)
		r = scan_globs(&inv, &matches, &n_matches);
	if (r)
		goto out;
	sbx_diag_clear(&d);
	r = backend_argv(&inv, &o, o.rest, &run_argv, &d);
	if (r < 0) {
		r = refuse_diag(&d);
		goto out;
	}
	refused = r == 1;
	r = report_plan(&inv, &o, refused, &rp);
	if (r)
		goto out;
	/* What run --mkdir would create (nothing is made here), and what the command would see. */
	r = mkdir_targets(&inv, &o, &will_create);
	if (r)
		goto out;
	/* The warning run gives, on this host's files only. */
	if (!refused && inv.plan.platform == sbx_host_platform())
		workspace_warn(&inv, &o);
#ifndef _WIN32
	/* The command as run would meet it: on this host's files only, and for a plan run keeps. */
	if (!refused && o.n_rest > 0 && inv.plan.platform == sbx_host_platform())
		r = command_check(&inv, o.rest[0], &cc);
	if (r)
		goto out;
#endif
	if (environ_seen(&inv, &env))
		r = -ENOMEM;
	else if (o.json)
		r = explain_json(&inv, run_argv.v, run_argv.n, refused, &will_create, &env, &rp,
				 matches, &cc);
	else
		r = explain_human(&inv, run_argv.v, run_argv.n, refused, &will_create, &env, &rp,
				  &cc);
	if (r)
		r = refuse("out of memory");
out:
	cmd_check_free(&cc);
	matches_free(matches, n_matches);
	sbx_strv_clear(&will_create);
	sbx_strv_clear(&env);
	sbx_strv_clear(&run_argv);
	invocation_free(&inv);
	free(config_home);
	return r;
}
