/* SPDX-License-Identifier: MIT */
/*
 * helper.c - `sbxrun-linux-sandbox`, the Linux helper, and a trust boundary: it may be run
 * directly (by a remote executor, say), so it parses and validates everything again, plans again
 * with the functions `run` and `explain` use (sbx_plan_build, then sbx_plan_attach_linux on the
 * facts of this host), refuses a plan it cannot enforce in the words `run` uses, and then hands
 * what the plan says over to the enter sequence (platform/linux/enter.c), which execs the command
 * in place.
 *
 *   sbxrun-linux-sandbox --sandbox-policy-cwd DIR [--command-cwd DIR]
 *       (--permission-profile JSON | --permission-profile-fd N) [--no-proc] -- COMMAND [ARG...]
 *
 * --no-proc is accepted for compatibility: this helper never mounts a /proc (there is no PID
 * namespace); the host's /proc stays visible, read-only inside the mount namespace.
 * Every error exits 125 with one `sbxrun: ...` line; the command does not run.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "linux/linux.h"

#define EXIT_SBX EXIT_REFUSED

void sbx_linux_die(const struct sbx_diag *d, int status)
{
	sbx_diag_print(d, stderr);
	fflush(stderr);
	_exit(status);
}

struct helper_opts {
	const char *policy_cwd, *command_cwd, *profile_arg;
	int profile_fd;
	bool no_proc;
	char **cmd;
};

static int usage(struct sbx_diag *d, const char *what, const char *arg)
{
	sbx_diag_set(d, SBX_E_USAGE, "%s%s", arg, what);
	return sbx_diag_hint(d, SBX_E_USAGE,
			     "usage: " SBX_HELPER_NAME
			     " --sandbox-policy-cwd DIR [--command-cwd DIR] "
			     "(--permission-profile JSON | --permission-profile-fd N) [--no-proc] "
			     "-- COMMAND [ARG...]");
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

static int parse_args(int argc, char **argv, struct helper_opts *o, struct sbx_diag *d)
{
	int i;

	o->profile_fd = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char **slot = NULL;

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strcmp(a, "--no-proc") == 0) {
			o->no_proc = true;
			continue;
		}
		if (strcmp(a, "--sandbox-policy-cwd") == 0)
			slot = &o->policy_cwd;
		else if (strcmp(a, "--command-cwd") == 0)
			slot = &o->command_cwd;
		else if (strcmp(a, "--permission-profile") == 0)
			slot = &o->profile_arg;
		else if (strcmp(a, "--permission-profile-fd") == 0) {
			if (i + 1 >= argc)
				return usage(d, " needs a value", a);
			if (o->profile_fd >= 0)
				return usage(d, " given twice", a);
			if (parse_fd(argv[++i], &o->profile_fd) < 0)
				return usage(d, ": not a file descriptor number",
					     "--permission-profile-fd");
			continue;
		} else
			return usage(d, ": unknown option", a);
		if (i + 1 >= argc)
			return usage(d, " needs a value", a);
		if (*slot)
			return usage(d, " given twice", a);
		*slot = argv[++i];
	}
	if (!o->policy_cwd)
		return usage(d, " is required", "--sandbox-policy-cwd");
	if (!o->profile_arg == (o->profile_fd < 0))
		return usage(d, " (exactly one) is required",
			     "--permission-profile or --permission-profile-fd");
	if (i >= argc)
		return usage(d, ": no command given", "--");
	o->cmd = &argv[i];
	return 0;
}

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

/* Does any requirement of the plan name this mechanism (alone or in a "a+b" pair)? */
static bool plan_uses(const struct sbx_plan *p, const char *mech)
{
	size_t n = strlen(mech);

	for (size_t i = 0; i < p->n_reqs; i++) {
		const char *m = p->reqs[i].mechanism;

		for (; m && (m = strstr(m, mech)); m += n)
			if ((m == p->reqs[i].mechanism || m[-1] == '+') &&
			    (m[n] == 0 || m[n] == '+' || m[n] == '-'))
				return true;
	}
	return false;
}

static int strv_append(char ***v, size_t *n, char **add, size_t n_add)
{
	char **nv = realloc(*v, (*n + n_add + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	memcpy(nv + *n, add, n_add * sizeof(*add));
	*n += n_add;
	nv[*n] = NULL;
	*v = nv;
	return 0;
}

/*
 * What the enter sequence applies, read off the plan: the mechanisms the planner chose, the
 * roots it planned from, the matches of its deny globs. Nothing here decides anew.
 */
static int derive_enforcement(const struct sbx_plan *plan, const struct sbx_linux_facts *facts,
			      struct sbx_linux_enforce *e, char ***deny_expanded, size_t *n_deny,
			      char ***ll_deny, size_t *n_ll_deny, struct sbx_diag *d)
{
	int rc = 0;

	e->roots = &plan->roots;
	e->network = plan->network;
	e->mount_namespace = plan_uses(plan, "mount-namespace");
	e->landlock_abi = plan_uses(plan, "landlock") ? facts->landlock_abi : 0;
	for (size_t i = 0; i < plan->n_reqs && rc == 0; i++) {
		const struct sbx_req *r = &plan->reqs[i];
		bool by_landlock = r->mechanism && strcmp(r->mechanism, "landlock") == 0;
		char **m = NULL;
		size_t n = 0;

		switch (r->kind) {
		case SBX_REQ_METADATA:
			/* Without a mount namespace seccomp refuses metadata calls everywhere. */
			e->seccomp_metadata = r->mechanism && strcmp(r->mechanism, "seccomp") == 0;
			break;
		case SBX_REQ_DENY:
			/* Landlock alone: the readable trees around it are granted piecewise. */
			if (by_landlock && r->exists) {
				char *p = strdup(r->path);

				if (!p)
					return sbx_diag_set(d, -ENOMEM, "out of memory");
				rc = strv_append(ll_deny, n_ll_deny, &p, 1);
				if (rc < 0)
					free(p);
			}
			break;
		case SBX_REQ_DENY_GLOB:
			/* Expanded once, now: files created later are not covered. */
			rc = sbx_glob_expand(r->path, plan->profile.fs.glob_depth, &m, &n, d);
			if (rc < 0)
				return rc;
			for (size_t j = 0; by_landlock && rc == 0 && j < n; j++) {
				char *p = strdup(m[j]);

				rc = p ? strv_append(ll_deny, n_ll_deny, &p, 1) : -ENOMEM;
				if (rc < 0)
					free(p);
			}
			if (rc == 0)
				rc = strv_append(deny_expanded, n_deny, m, n);
			if (rc < 0)
				sbx_strv_free(m, n);
			else
				free(m);
			break;
		default:
			break;
		}
	}
	if (rc < 0)
		return sbx_diag_set(d, rc, "out of memory");
	e->deny_expanded = *deny_expanded;
	e->n_deny_expanded = *n_deny;
	e->ll_deny = *ll_deny;
	e->n_ll_deny = *n_ll_deny;
	return 0;
}

/*
 * Load, validate, plan with the same function as `run` and `explain` (sbx_plan_build and the
 * Linux attacher on this host's facts), refuse what cannot be enforced, then enter. The plan
 * `explain` shows is therefore, by construction, the one enforced here.
 * Returns 0 after printing a refusal itself, or a negative code with d filled.
 */
static int helper_run(int argc, char **argv, struct sbx_diag *d)
{
	struct helper_opts o = {0};
	struct sbx_profile prof = {0};
	struct sbx_plan plan = {0};
	struct sbx_linux_facts facts;
	struct sbx_linux_enforce e = {0};
	struct exec_failure xf;
	enum sbx_input_form form;
	struct sbx_ctx ctx = {0};
	char policy_cwd[PATH_MAX], command_cwd[PATH_MAX];
	char *buf = NULL, **expanded = NULL, **ll_deny = NULL;
	size_t len = 0, n_expanded = 0, n_ll_deny = 0;
	bool planned = false;
	int rc;

	rc = parse_args(argc, argv, &o, d);
	if (rc < 0)
		return rc;

	/* The policy cwd must be canonical: project roots and protected names resolve under it. */
	if (o.policy_cwd[0] != '/' || !realpath(o.policy_cwd, policy_cwd))
		return sbx_diag_set(d, -EINVAL, "--sandbox-policy-cwd %s: %s", o.policy_cwd,
				    o.policy_cwd[0] != '/' ? "not an absolute path"
							   : strerror(errno));
	if (o.command_cwd && o.command_cwd[0] != '/')
		return sbx_diag_set(d, -EINVAL, "--command-cwd %s: not an absolute path",
				    o.command_cwd);
	snprintf(command_cwd, sizeof(command_cwd), "%s",
		 o.command_cwd ? o.command_cwd : policy_cwd);

	if (o.profile_fd >= 0)
		rc = read_profile_fd(o.profile_fd, &buf, &len, d);
	else if (strlen(o.profile_arg) > SBX_MAX_PROFILE_BYTES)
		rc = sbx_diag_set(d, SBX_E_TOO_BIG, "--permission-profile: over %u bytes",
				  SBX_MAX_PROFILE_BYTES);
	if (rc < 0)
		return rc;
	/* Legacy SandboxPolicy JSON is refused here (NULL legacy_out): run sends canonical only. */
	rc = sbx_profile_load_buf(buf ? buf : o.profile_arg, buf ? len : strlen(o.profile_arg),
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
	ctx.tmpdir = env_get("TMPDIR");
	ctx.platform = SBX_PLATFORM_LINUX;
	rc = sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan, d);
	if (rc < 0) {
		if (!d->msg[0])
			sbx_diag_set(d, rc, "cannot plan the sandbox: %s",
				     rc > -4096 ? strerror(-rc) : "internal error");
		goto out;
	}
	planned = true;
	sbx_linux_probe(&facts);
	rc = sbx_plan_attach_linux(&plan, &facts);
	if (rc < 0) {
		sbx_diag_set(d, rc, "out of memory");
		goto out;
	}
	/* Fail closed, in the words `run` uses. */
	if (!sbx_plan_enforceable(&plan)) {
		refuse_plan(&plan);
		rc = 0;
		goto out;
	}

	rc = derive_enforcement(&plan, &facts, &e, &expanded, &n_expanded, &ll_deny, &n_ll_deny, d);
	if (rc < 0)
		goto out;
	e.command_cwd = command_cwd;
	e.argv = o.cmd;
	xf = (struct exec_failure){&plan, &ctx, o.cmd, command_cwd};
	e.exec_failed = exec_failure_words;
	e.exec_failed_arg = &xf;
	rc = sbx_linux_enter(&e, d); /* returns only on failure */
	if (rc >= 0)
		rc = sbx_diag_set(d, -EIO, "the enter sequence returned");
out:
	sbx_strv_free(expanded, n_expanded);
	sbx_strv_free(ll_deny, n_ll_deny);
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
	return EXIT_SBX;
}
