/* SPDX-License-Identifier: MIT */
/*
 * invocation.c - the load step run, explain, access and context share: the cwd and workspace
 * roots, the profile and its additions, the context, and the plan for a platform.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "net.h"

/*
 * Canonical absolute directory, or a printed error. Resolved by the planner's own walk, so a
 * link someone other than root and the caller may swap is refused rather than followed.
 */
static int canonical_dir(const char *what, const char *in, char **out, char **link)
{
	struct sbx_diag d;
	int r;

	sbx_diag_clear(&d);
	r = sbx_fs_canonical_dir(in, out, link, &d);
	if (r == -ENOTDIR)
		return refuse("%s '%s': not a directory", what, in);
	if (r)
		return refuse("%s '%s': %s", what, in, d.msg);
	return 0;
}

/*
 * The links the shell crossed to reach cwd (*link, a list, or NULL), or a printed refusal. getcwd()
 * gives the directory itself: after `cd /tmp/x`, where an earlier run planted /tmp/x ->
 * ~/secrets, nothing would show the link, and that directory would be the writable project
 * root. A shell keeps the name it was given in $PWD. When that name leads to this very directory
 * (the same device and inode), it is taken as --cwd would be: the same walk, which refuses a
 * link others may swap, and the links it crossed are the cwd's. A $PWD that names another
 * directory or none (stale, relative, unset) tells nothing: cwd is what the run uses.
 */
static int pwd_link(const char *cwd, char **link)
{
#if defined(_WIN32)
	/* No inode numbers there to tell one directory from another, and no such shell. */
	(void)cwd;
	*link = NULL;
	return 0;
#else
	const char *pwd = getenv("PWD");
	struct stat here, there;
	char *canon = NULL;
	int r;

	*link = NULL;
	if (!pwd || pwd[0] != '/' || strcmp(pwd, cwd) == 0 || stat(".", &here) < 0 ||
	    stat(pwd, &there) < 0 || here.st_dev != there.st_dev || here.st_ino != there.st_ino)
		return 0;
	r = canonical_dir("the current directory, $PWD", pwd, &canon, link);
	if (r == 0 && strcmp(canon, cwd) != 0)
		r = refuse("the current directory, $PWD '%s', changed while it was looked up", pwd);
	free(canon);
	return r;
#endif
}

/* input_note counts on room for the profile and every --add-permissions file, and the plan too. */
_Static_assert(sizeof(((struct invocation *)0)->inputs) / sizeof(struct sbx_input) ==
			       1 + sizeof(((struct opts *)0)->add) / sizeof(const char *) &&
		       sizeof(((struct invocation *)0)->inputs) / sizeof(struct sbx_input) <=
			       SBX_MAX_INPUTS,
	       "the inputs no longer match --add-permissions' limit");

#if defined(__linux__)
/*
 * The name of the regular file standard input was redirected from, as the kernel gives it
 * (/proc/self/fd/0), in *name, or NULL where it has none: not a path. Where the name now leads
 * to another file or none (removed since: the kernel adds " (deleted)"), the planner refuses the
 * run as for a file named; where sbxrun cannot search its way there, it is not kept
 * (sbx_input.by_fd).
 */
static int stdin_name(char **name, struct sbx_diag *d)
{
	char buf[PATH_MAX + 1];
	ssize_t n;

	*name = NULL;
	n = readlink("/proc/self/fd/0", buf, sizeof(buf));
	if (n < 0)
		return sbx_diag_set(d, -errno, "-: cannot find the name of standard input: %s",
				    strerror(errno));
	if ((size_t)n >= sizeof(buf))
		return sbx_diag_set(d, -ENAMETOOLONG,
				    "-: cannot find the name of standard input: %s",
				    strerror(ENAMETOOLONG));
	buf[n] = '\0';
	/* A removed file (a memfd too) has no link left, and was not taken (sbx_read_file_id). */
	if (buf[0] != '/')
		return 0;
	*name = strdup(buf);
	return *name ? 0 : sbx_diag_set(d, -ENOMEM, "-: %s", strerror(ENOMEM));
}
#endif

#if !defined(_WIN32)
/*
 * The first symbolic link that a ".." of file (relative to base) goes up from, absolute, into
 * *link (NULL when none): the kernel went up from where the link leads, and the name made
 * absolute lexically is another place. Before that ".." every one follows a directory, where
 * going up lexically is exact.
 */
static int link_before_dotdot(const char *base, const char *file, char **link)
{
	char p[PATH_MAX];
	size_t n = 0;
	struct stat st;

	*link = NULL;
	if (file[0] != '/') {
		n = strlen(base);
		if (n >= sizeof(p))
			return 0;
		memcpy(p, base, n);
	}
	while (n > 1 && p[n - 1] == '/')
		n--;
	for (const char *c = file; *c;) {
		size_t k = strcspn(c, "/");

		if (k == 2 && c[0] == '.' && c[1] == '.') {
			p[n] = '\0';
			if (n && lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
				*link = strdup(p);
				return *link ? 0 : -ENOMEM;
			}
			while (n && p[n - 1] != '/')
				n--;
			if (n > 1)
				n--;
		} else if (k && !(k == 1 && c[0] == '.')) {
			if (n + 1 + k >= sizeof(p))
				return 0; /* too long to be opened: the read failed first */
			if (!n || p[n - 1] != '/')
				p[n++] = '/';
			memcpy(p + n, c, k);
			n += k;
		}
		c += k;
		c += strspn(c, "/");
	}
	return 0;
}
#endif

/*
 * Records file, read as the object dev/ino, as an input of the run (sbx_ctx.inputs): the planner
 * keeps it read-only where a writable root holds it, so that the command cannot rewrite what its
 * next run reads. Its name is made absolute from the directory open() took it from, the process's
 * own (not --cwd). A pipe (dev and ino 0) holds nothing a later run reads; standard input
 * redirected from a file is kept at the name the kernel has for it (stdin_name), on Linux only:
 * elsewhere no name is looked for, and the file is not kept.
 */
static int input_note(struct invocation *inv, const char *file, enum sbx_req_origin origin,
		      unsigned long long dev, unsigned long long ino, struct sbx_diag *d)
{
#if defined(_WIN32)
	/* No inode numbers there to tell the file read from another at its name. */
	(void)inv, (void)file, (void)origin, (void)dev, (void)ino, (void)d;
	return 0;
#else
	struct sbx_input *in = &inv->inputs[inv->n_inputs];
	char *here = NULL, *named = NULL, **abs = &inv->input_paths[inv->n_inputs];
	bool by_fd = false;
	int r;

	if (dev == 0 && ino == 0)
		return 0;
	if (strcmp(file, "-") == 0) {
#if defined(__linux__)
		r = stdin_name(&named, d);
		if (r || !named)
			return r;
		file = named;
		by_fd = true;
#else
		return 0;
#endif
	}
	if (file[0] == '/') {
		r = sbx_path_normalize(file, abs);
	} else {
		/* Without --cwd, inv->cwd is getcwd()'s. */
		if (inv->cwd_given && !(here = getcwd(NULL, 0)))
			return sbx_diag_set(d, -errno,
					    "%s: cannot determine the current directory: %s", file,
					    strerror(errno));
		r = sbx_path_join(here ? here : inv->cwd, file, abs);
	}
	if (!r && !by_fd)
		r = link_before_dotdot(here ? here : inv->cwd, file,
				       &inv->input_links[inv->n_inputs]);
	free(here);
	if (r) {
		sbx_diag_set(d, r, "%s: %s", file, sbx_strerror(r));
		free(*abs);
		*abs = NULL;
	}
	free(named);
	if (r)
		return r;
	in->path = *abs;
	in->given = by_fd ? NULL : file;
	in->link_up = inv->input_links[inv->n_inputs];
	in->origin = origin;
	in->by_fd = by_fd;
	in->dev = dev;
	in->ino = ino;
	inv->n_inputs++;
	return 0;
#endif
}

static int load_profile_file(struct invocation *inv, const char *file, struct sbx_diag *d)
{
	struct sbx_legacy legacy = {0};
	enum sbx_input_form form;
	unsigned long long dev, ino;
	char *buf = NULL;
	size_t len = 0;
	int r;

	r = sbx_read_file_id(file, &buf, &len, &dev, &ino, d);
	/* Standard input, or no regular file (dev and ino 0): read once, never again. */
	inv->read_once = inv->read_once || strcmp(file, "-") == 0 || (dev == 0 && ino == 0);
	if (!r)
		r = input_note(inv, file, SBX_ORIGIN_PROFILE_FILE, dev, ino, d);
	if (r) {
		free(buf);
		return r;
	}
	r = sbx_profile_load_buf(buf, len, file, &inv->profile, &form, &legacy, d);
	free(buf);
	if (r)
		return r;
	if (form == SBX_FORM_LEGACY) {
		r = sbx_legacy_to_profile(&legacy, &inv->ctx, &inv->profile);
		sbx_legacy_free(&legacy);
		if (r)
			return sbx_diag_set(d, r, "%s: cannot project the legacy policy: %s", file,
					    strerror(-r));
	}
	return 0;
}

int additional_load_file(const char *file, struct sbx_additional *a, struct sbx_diag *d)
{
	unsigned long long dev, ino;

	return additional_load_file_id(file, a, &dev, &ino, d);
}

int additional_load_file_id(const char *file, struct sbx_additional *a, unsigned long long *dev,
			    unsigned long long *ino, struct sbx_diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	a->network = -1;
	r = sbx_read_file_id(file, &buf, &len, dev, ino, d);
	if (r)
		return r;
	r = sbx_additional_load_buf(buf, len, file, a, d);
	free(buf);
	if (!r) {
		r = sbx_additional_normalize(a, d);
		if (r && !d->file[0])
			snprintf(d->file, sizeof(d->file), "%s", file);
	}
	return r;
}

/*
 * --sandbox forbid runs the command unconfined: an additional profile that denies something asks
 * for a restriction only a sandbox can keep, as --deny does (options.c), and is refused the same
 * way, naming the file and what it denies, rather than dropped without a word. Its grants only
 * widen what an unconfined command has anyway.
 */
static int forbid_addition(const struct sbx_additional *a, const char *file, struct sbx_diag *d)
{
	for (size_t i = 0; i < a->fs.n; i++) {
		const struct sbx_entry *e = &a->fs.entries[i];
		const char *what = e->kind == SBX_SPECIAL && e->special != SBX_SP_UNKNOWN
					   ? sbx_special_name(e->special)
					   : e->path;

		if (e->access != SBX_DENY)
			continue;
		sbx_diag_set(
			d, SBX_E_USAGE,
			"%s: --sandbox forbid runs the command unconfined, and this additional "
			"profile denies %s%s, a restriction that only a sandbox can keep",
			file, what == e->path ? "" : ":", what ? what : "?");
		return sbx_diag_hint(d, SBX_E_USAGE,
				     "drop --sandbox forbid to have it enforced, or drop "
				     "--add-permissions %s to run unconfined",
				     file);
	}
	return 0;
}

static int add_permissions(struct invocation *inv, const char *file, bool forbid,
			   struct sbx_diag *d)
{
	struct sbx_additional a = {.network = -1}, m = {.network = -1};
	struct sbx_profile eff = {0};
	unsigned long long dev, ino;
	int r;

	r = additional_load_file_id(file, &a, &dev, &ino, d);
	inv->read_once = inv->read_once || strcmp(file, "-") == 0 || (dev == 0 && ino == 0);
	if (!r && forbid)
		r = forbid_addition(&a, file, d);
	if (r) {
		sbx_additional_free(&a);
		return r;
	}
	r = input_note(inv, file, SBX_ORIGIN_ADDITION_FILE, dev, ino, d);
	if (r) {
		sbx_additional_free(&a);
		return r;
	}
	/* Materializing fails only for want of memory or over a limit; the addition words why. */
	r = sbx_additional_materialize(&a, &inv->ctx, &m);
	if (r)
		sbx_diag_set(d, r, "%s: %s", file, sbx_strerror(r));
	else if ((r = sbx_profile_add(&inv->profile, &m, &eff, d)) && !d->file[0])
		snprintf(d->file, sizeof(d->file), "%s", file);
	sbx_additional_free(&a);
	sbx_additional_free(&m);
	if (r)
		return r;
	sbx_profile_free(&inv->profile);
	inv->profile = eff;
	return 0;
}

/* Does path hold a ".." component? */
static bool has_dotdot(const char *path)
{
	for (const char *s = path; *s;) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.')
			return true;
		s += n;
		s += strspn(s, "/");
	}
	return false;
}

/* Records var (value v) as naming the global config unsurely: relative, or through "..". */
static bool unsure(struct invocation *inv, const char *var, const char *v)
{
	if (!v || !v[0] || (v[0] == '/' && !has_dotdot(v)))
		return false;
	inv->ctx.git_globals_unsure = var;
	inv->ctx.git_globals_dotdot = v[0] == '/';
	return true;
}

/*
 * The global git config files git reads for the caller (sbx_git_globals), and the caller's HOME
 * for the "~/" of what they include: from sbxrun's own environment. A relative HOME names no
 * home git would agree on (it joins it to wherever it runs), nor does one with a ".." (taken
 * after whatever the name before it is when git runs): "~/" then stays refused.
 */
static int caller_git(struct invocation *inv)
{
	const char *home = getenv("HOME"), *global = getenv("GIT_CONFIG_GLOBAL"),
		   *xdg = getenv("XDG_CONFIG_HOME"), *sys = getenv("GIT_CONFIG_SYSTEM");
	size_t n = 0;

	/*
	 * The variables git 2.39 names them from (sbx_git_globals) are joined and normalized here
	 * once; the caller's git joins a relative one to its own directory, and the kernel takes
	 * a ".." after whatever is there when git runs: a writable root refuses (roots.c).
	 */
	if (global)
		(void)unsure(inv, "GIT_CONFIG_GLOBAL", global);
	else if (!unsure(inv, "XDG_CONFIG_HOME", xdg))
		(void)unsure(inv, "HOME", home);
	if (!inv->ctx.git_globals_unsure)
		(void)unsure(inv, "GIT_CONFIG_SYSTEM", sys);
	if (sbx_git_globals(inv->cwd, global, xdg, home, sys, inv->git_globals,
			    &inv->ctx.n_git_system))
		return refuse("out of memory");
	while (n < SBX_GIT_GLOBALS && inv->git_globals[n])
		n++;
	if (home && home[0] == '/' && !has_dotdot(home) && sbx_path_normalize(home, &inv->home))
		return refuse("out of memory");
	inv->ctx.git_globals = (const char *const *)inv->git_globals;
	inv->ctx.n_git_globals = n;
	inv->ctx.home = inv->home;
	return 0;
}

int invocation_load(struct invocation *inv, const struct opts *o, enum sbx_platform platform)
{
	struct sbx_diag d;
	const char *name = o->profile ? o->profile : ":workspace";
	int r;

	memset(inv, 0, sizeof(*inv));
	sbx_diag_clear(&d);
	if (o->cwd) {
		inv->cwd_given = true;
		if (canonical_dir("--cwd", o->cwd, &inv->cwd, &inv->cwd_link))
			return EXIT_REFUSED;
	} else {
		inv->cwd = getcwd(NULL, 0);
		if (!inv->cwd)
			return refuse(
				"cannot determine the current directory: %s; hint: run sbxrun "
				"from a directory that exists (this one may have been "
				"removed), or name one with --cwd",
				strerror(errno));
		if (pwd_link(inv->cwd, &inv->cwd_link))
			return EXIT_REFUSED;
	}
	for (size_t i = 0; i < o->n_roots; i++) {
		if (canonical_dir("--workspace-root", o->roots[i], &inv->roots[i],
				  &inv->root_links[i]))
			return EXIT_REFUSED;
		inv->n_roots++;
	}
	inv->ctx.cwd = inv->cwd;
	inv->ctx.workspace_roots = (const char *const *)inv->roots;
	inv->ctx.n_workspace_roots = inv->n_roots;
	inv->ctx.cwd_link = inv->cwd_link;
	inv->ctx.workspace_root_links = (const char *const *)inv->root_links;
	inv->ctx.platform = platform;
	inv->ctx.allow_git = o->allow_git;
	/*
	 * :workspace-git is :workspace in git mode. Git mode belongs to the run, not the profile
	 * (sbxrun(1), GIT MODE), so the name is resolved here, where the run's context is made,
	 * and never reaches lib/ as a profile of its own.
	 */
	if (strcmp(name, BUILTIN_WORKSPACE_GIT) == 0)
		inv->ctx.allow_git = true;
	/*
	 * The git that takes the caller's global config is the caller's own, run later with this
	 * environment: sbxrun's, never the command's (--env-set HOME changes nothing here).
	 */
	if (caller_git(inv))
		return EXIT_REFUSED;
	/* Linux's points are on this host's file system: only a plan for it meets them. */
	inv->ctx.points =
		platform == SBX_PLATFORM_LINUX && sbx_host_platform() == SBX_PLATFORM_LINUX;
	inv->profile_name = name;

	if (strcmp(name, BUILTIN_WORKSPACE_GIT) == 0)
		r = sbx_profile_builtin(":workspace", &inv->profile, &d);
	else if (name[0] == ':')
		r = sbx_profile_builtin(name, &inv->profile, &d);
	else
		r = load_profile_file(inv, name, &d);
	for (size_t i = 0; !r && i < o->n_add; i++)
		r = add_permissions(inv, o->add[i], o->pref == SBX_PREF_FORBID, &d);
	if (r)
		return refuse_diag(&d);
	/* Only a plan for this host meets the files this host read. */
	if (platform == sbx_host_platform()) {
		inv->ctx.inputs = inv->inputs;
		inv->ctx.n_inputs = inv->n_inputs;
	}
	/* The quick grants come after every --add-permissions file (sbxrun(1), QUICK GRANTS). */
	r = grants_apply(inv, o);
	return r ? r : environ_build(inv, o, NULL);
}

/*
 * run --allow-domain: sbxrun's own proxy. Its patterns are checked now, so that a bad one is
 * refused before anything runs; the proxy itself is made by the backend.
 */
static int domains_check(const struct opts *o)
{
	struct sbx_domain_policy pol = {0};
	struct sbx_diag d;
	int r = 0;

	sbx_diag_clear(&d);
	if (!o->n_allow_domains &&
	    (o->n_deny_domains || o->network_log || o->allow_private_addresses)) {
		sbx_diag_set(&d, 0, "--%s: only with --allow-domain (sbxrun's own proxy)",
			     o->n_deny_domains ? "deny-domain"
			     : o->network_log  ? "network-log"
					       : "allow-private-addresses");
		sbx_diag_hint(&d, 0, "name the hosts the command may reach with --allow-domain");
		return refuse_diag(&d);
	}
	if (o->n_allow_domains && o->managed_network) {
		sbx_diag_set(&d, 0,
			     "--allow-domain starts sbxrun's own proxy, --managed-network routes "
			     "through the caller's: give one of them");
		return refuse_diag(&d);
	}
	for (size_t i = 0; !r && i < o->n_allow_domains + o->n_deny_domains; i++) {
		bool deny = i >= o->n_allow_domains;
		const char *pat =
			deny ? o->deny_domains[i - o->n_allow_domains] : o->allow_domains[i];

		if (sbx_domain_policy_add(&pol, deny, pat, &d) < 0) {
			diag_prefix(&d, deny ? "--deny-domain: " : "--allow-domain: ");
			r = refuse_diag(&d);
		}
	}
	sbx_domain_policy_free(&pol);
	return r;
}

void workspace_warn(const struct invocation *inv, const struct opts *o)
{
	const struct sbx_roots *rt = &inv->plan.roots;
	const char *w = inv->cwd;
	char *home_real = NULL;
	bool writable = false, home = false;

	/* A root named with --workspace-root is a choice; the directory one happens to be in is not. */
	if (o->n_roots || !inv->plan.sandbox_requested || rt->full_write)
		return;
	for (size_t i = 0; i < rt->n_writable && !writable; i++)
		writable = sbx_path_covers_any(rt->writable[i].root, w);
	if (!writable)
		return;
	if (inv->ctx.home) {
		home_real = realpath(inv->ctx.home, NULL);
		home = sbx_path_covers_any(w, inv->ctx.home) ||
		       (home_real && sbx_path_covers_any(w, home_real));
	}
	free(home_real);
	if (sbx_path_depth_any(w) == 0)
		fprintf(stderr,
			"sbxrun: warning: the workspace root is %s, the whole file system: the "
			"command may write every file you can; hint: run from the project's "
			"directory, or name it with -C DIR or -w DIR\n",
			w);
	else if (home)
		fprintf(stderr,
			"sbxrun: warning: the workspace root %s holds your home directory: the "
			"command may write all of it (the shell's start-up files, .ssh); hint: run "
			"from the project's directory, or name it with -C DIR or -w DIR\n",
			w);
}

int invocation_plan(struct invocation *inv, const struct opts *o)
{
	struct sbx_diag d;
	bool managed = o->managed_network || o->n_allow_domains > 0;
	int r;

	sbx_diag_clear(&d);
	r = domains_check(o);
	if (r)
		return r;
	/*
	 * The plan looks some names up three or four times: each once, the answer kept, for run
	 * and explain alike (the helper plans again on look-ups of its own: it trusts nothing it
	 * is given).
	 */
	sbx_fsmemo_init(&inv->memo, inv->ctx.fs);
	inv->ctx.fs = &inv->memo.view;
	inv->memo_on = true;
	struct sbx_net_opts net = {
		/*
		 * Managed networking lets the command reach the proxies its environment names: the
		 * planner reads the proxy variables from the environment the command gets, whole
		 * (lib/ looks only at the names of sbx_proxy_vars, in upper and lower case).
		 */
		.env = o->managed_network || (o->n_allow_domains &&
					      inv->ctx.platform == SBX_PLATFORM_MACOS &&
					      inv->ctx.platform == sbx_host_platform())
			       ? inv->env.v
			       : NULL,
		.unix_sockets = o->unix_sockets,
		.n_unix_sockets = o->n_unix_sockets,
		.allow_local_binding = o->allow_local_binding,
		.own_proxy = o->n_allow_domains > 0,
		.allow_domains = o->allow_domains,
		.n_allow_domains = o->n_allow_domains,
		.deny_domains = o->deny_domains,
		.n_deny_domains = o->n_deny_domains,
		.allow_private = o->allow_private_addresses,
	};

	/*
	 * The plan takes the profile (nothing reads inv->profile after planning): a profile of
	 * many entries is then held once, in the plan, not beside it.
	 */
	r = sbx_plan_build_take(&inv->profile, &inv->ctx, o->pref, managed, o->wlevel, &inv->plan,
				&d);
	if (!r) {
		inv->planned = true;
		r = sbx_plan_network(&inv->plan, &net, &d);
	}
	/*
	 * A gitlink's fault would have come first, in other words: run plans again (run.c). The
	 * network's faults too: the whole plan's fails before it gets to them.
	 */
	if (r && inv->ctx.gitlinks_later) {
		inv->plan_again = true;
		return EXIT_REFUSED;
	}
	if (r)
		return refuse_diag(&d);
	r = backend_attach(&inv->plan, o);
	if (r)
		return refuse("cannot plan the sandbox: %s", strerror(-r));
	/* Now that the plan says whether the network is kept from the command. */
	return o->env_offline ? environ_build(inv, o, &inv->plan) : 0;
}

void invocation_free(struct invocation *inv)
{
	for (size_t i = 0; i < SBX_GIT_GLOBALS; i++)
		free(inv->git_globals[i]);
	free(inv->home);
	free(inv->cwd);
	free(inv->cwd_link);
	for (size_t i = 0; i < inv->n_roots; i++) {
		free(inv->roots[i]);
		free(inv->root_links[i]);
	}
	sbx_profile_free(&inv->profile);
	if (inv->planned)
		sbx_plan_free(&inv->plan);
	if (inv->memo_on)
		sbx_fsmemo_free(&inv->memo); /* after the plan, which may hold its answers */
	environ_free(inv);
	sbx_strv_clear(&inv->made);
	for (size_t i = 0; i < inv->n_inputs; i++) {
		free(inv->input_paths[i]);
		free(inv->input_links[i]);
	}
	memset(inv, 0, sizeof(*inv));
}
