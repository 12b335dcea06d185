/* SPDX-License-Identifier: MIT */
/*
 * helper.c - `sbxrun-linux-sandbox`, the Linux helper, and a trust boundary: it may be run
 * directly (by a remote executor, say), so it parses and validates everything again, plans again
 * on the facts of this host, refuses a plan it cannot enforce, and then hands over to the enter
 * sequence (platform/linux/enter.c), which execs the command in place.
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

#include "sbx.h"
#include "linux/linux.h"

#define EXIT_SBX 125

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
			     "usage: " SBX_HELPER_NAME " --sandbox-policy-cwd DIR [--command-cwd DIR] "
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
		return sbx_diag_set(d, SBX_E_TOO_BIG, "--permission-profile-fd %d: not a regular "
				    "file of at most %u bytes", fd, SBX_PROFILE_FD_MAX);
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
 * The requirements the helper checks before entering, one per thing the enter sequence will
 * enforce, each given its mechanism by the same planner that `explain` shows.
 */
static int push_req(struct sbx_plan *p, enum sbx_req_kind k, const char *path)
{
	struct sbx_req *r;

	if (p->n_reqs == p->cap_reqs) {
		size_t cap = p->cap_reqs ? p->cap_reqs * 2 : 16;
		struct sbx_req *v = realloc(p->reqs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->reqs = v;
		p->cap_reqs = cap;
	}
	r = &p->reqs[p->n_reqs];
	memset(r, 0, sizeof(*r));
	r->kind = k;
	if (path) {
		struct stat st;

		r->path = strdup(path);
		if (!r->path)
			return -ENOMEM;
		r->exists = lstat(path, &st) == 0;
	}
	p->n_reqs++;
	return 0;
}

static int helper_reqs(struct sbx_plan *p)
{
	const struct sbx_roots *rt = &p->roots;
	int rc = 0;

	for (size_t i = 0; !rc && i < rt->n_readable; i++)
		rc = push_req(p, SBX_REQ_READ, rt->readable[i]);
	if (!rc && rt->platform_defaults)
		rc = push_req(p, SBX_REQ_PLATFORM_DEFAULTS, NULL);
	for (size_t i = 0; !rc && i < rt->n_writable; i++) {
		const struct sbx_writable_root *w = &rt->writable[i];
		char *pm = NULL;

		rc = push_req(p, SBX_REQ_WRITE, w->root);
		for (size_t j = 0; !rc && j < w->n_read_only; j++)
			rc = push_req(p, SBX_REQ_READ_ONLY, w->read_only[j]);
		for (size_t j = 0; !rc && j < w->n_protected_missing; j++) {
			rc = sbx_path_join(w->root, w->protected_missing[j], &pm);
			if (!rc)
				rc = push_req(p, SBX_REQ_PROTECT_MISSING, pm);
			free(pm);
			pm = NULL;
		}
	}
	for (size_t i = 0; !rc && i < rt->n_unreadable; i++)
		rc = push_req(p, SBX_REQ_DENY, rt->unreadable[i]);
	for (size_t i = 0; !rc && i < rt->n_deny_globs; i++)
		rc = push_req(p, SBX_REQ_DENY_GLOB, rt->deny_globs[i]);
	if (!rc)
		rc = push_req(p, SBX_REQ_NETWORK, NULL);
	if (!rc && !rt->full_write)
		rc = push_req(p, SBX_REQ_METADATA, NULL);
	return rc;
}

static void helper_plan_free(struct sbx_plan *p)
{
	for (size_t i = 0; i < p->n_reqs; i++) {
		free(p->reqs[i].path);
		free(p->reqs[i].rule);
		free(p->reqs[i].why);
	}
	free(p->reqs);
	sbx_roots_free(&p->roots);
	sbx_profile_free(&p->profile);
}

static int helper_run(int argc, char **argv, struct sbx_diag *d)
{
	struct helper_opts o = { 0 };
	struct sbx_profile prof = { 0 };
	struct sbx_plan plan = { 0 };
	struct sbx_linux_facts facts;
	struct sbx_linux_enforce e = { 0 };
	enum sbx_input_form form;
	struct sbx_ctx ctx = { 0 };
	char policy_cwd[PATH_MAX], command_cwd[PATH_MAX];
	char *buf = NULL, **expanded = NULL;
	const char *tmpdir;
	size_t len = 0, n_expanded = 0;
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
	snprintf(command_cwd, sizeof(command_cwd), "%s", o.command_cwd ? o.command_cwd
									 : policy_cwd);

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

	tmpdir = getenv("TMPDIR"); /* informational path input, as in `run`; not a decision */
	ctx.cwd = policy_cwd;
	ctx.tmpdir = tmpdir;
	ctx.platform = SBX_PLATFORM_LINUX;
	plan.platform = SBX_PLATFORM_LINUX;
	plan.sandbox = SBX_SANDBOX_LINUX_SECCOMP;
	plan.sandbox_requested = true;
	rc = sbx_profile_materialize(&prof, &ctx, &plan.profile);
	if (rc < 0) {
		sbx_diag_set(d, rc, "materializing the profile: %s", strerror(-rc));
		goto out;
	}
	plan.network = plan.profile.network;
	rc = sbx_fs_roots(&plan.profile.fs, &ctx, &plan.roots, d);
	if (rc < 0)
		goto out;
	rc = helper_reqs(&plan);
	if (rc < 0) {
		sbx_diag_set(d, rc, "out of memory");
		goto out;
	}
	sbx_linux_probe(&facts);
	rc = sbx_plan_attach_linux(&plan, &facts);
	if (rc < 0) {
		sbx_diag_set(d, rc, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < plan.n_reqs; i++) {
		const struct sbx_req *r = &plan.reqs[i];

		if (r->status == SBX_UNENFORCEABLE) {
			rc = sbx_diag_set(d, SBX_E_UNENFORCEABLE, "cannot be enforced here: %s",
					  r->why ? r->why : "no mechanism");
			goto out;
		}
	}

	/* Deny globs are expanded once, now; files created later are not covered. */
	for (size_t i = 0; i < plan.roots.n_deny_globs; i++) {
		char **m = NULL, **v;
		size_t n = 0;

		rc = sbx_glob_expand(plan.roots.deny_globs[i], plan.profile.fs.glob_depth, &m, &n,
				     d);
		if (rc < 0)
			goto out;
		v = realloc(expanded, (n_expanded + n + 1) * sizeof(*v));
		if (!v) {
			sbx_strv_free(m, n);
			rc = sbx_diag_set(d, -ENOMEM, "out of memory");
			goto out;
		}
		expanded = v;
		memcpy(expanded + n_expanded, m, n * sizeof(*m));
		n_expanded += n;
		free(m);
	}

	e.roots = &plan.roots;
	e.deny_expanded = expanded;
	e.n_deny_expanded = n_expanded;
	e.network = plan.network;
	e.mount_namespace = facts.mount_namespace && !plan.roots.full_write;
	e.landlock_abi = facts.no_new_privs ? facts.landlock_abi : 0;
	e.seccomp_metadata = !e.mount_namespace && !plan.roots.full_write;
	e.command_cwd = command_cwd;
	e.argv = o.cmd;
	rc = sbx_linux_enter(&e, d); /* returns only on failure */
out:
	sbx_strv_free(expanded, n_expanded);
	helper_plan_free(&plan);
	sbx_profile_free(&prof);
	return rc < 0 ? rc : -EIO;
}

int sbx_helper_main(int argc, char **argv)
{
	struct sbx_diag d;

	sbx_diag_clear(&d);
	helper_run(argc, argv, &d);
	sbx_diag_print(&d, stderr);
	return EXIT_SBX;
}
