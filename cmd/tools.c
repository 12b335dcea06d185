/* SPDX-License-Identifier: MIT */
/* tools.c - the profile tools: access, convert, merge, intersect, context. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#if defined(__linux__)
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "linux/linux.h"
#endif

static int print_owned(char *text)
{
	if (!text)
		return refuse("out of memory");
	puts(text);
	free(text);
	return 0;
}

/* ---- access ------------------------------------------------------------------------------- */

/*
 * The entries of p past the profile's own (n_own) keep the files the run read its permissions from
 * (kept, one per input): a rule such an entry decides is said to be that file's, not entries[i]
 * of a profile that has none.
 */
struct kept_inputs {
	size_t n_own;
	const char *kept[SBX_MAX_INPUTS];
};

/*
 * Beside the entries, run lets the command read the platform's :minimal set where no entry
 * covers a path (sbxrun-profile(5), RESOLUTION): a default deny there is a read, the rule the
 * :minimal entry. Linux's set, as run on this host enforces it.
 */
static int minimal_read(const struct sbx_profile *p, const struct sbx_roots *roots,
			const char *path, struct sbx_access_why *a)
{
	char *words;
	long m = -1;

	if (a->access != SBX_DENY || a->entry >= 0 || !roots->platform_defaults ||
	    sbx_host_platform() != SBX_PLATFORM_LINUX)
		return 0;
	for (size_t i = 0; m < 0 && i < p->fs.n; i++)
		if (p->fs.entries[i].kind == SBX_SPECIAL &&
		    p->fs.entries[i].special == SBX_SP_MINIMAL &&
		    p->fs.entries[i].access != SBX_DENY)
			m = (long)i;
	for (size_t i = 0; m >= 0 && sbx_linux_minimal_paths[i]; i++) {
		if (!sbx_path_covers(sbx_linux_minimal_paths[i], path))
			continue;
		if (asprintf(&words, "entries[%ld]: read :minimal (%s)", m,
			     sbx_linux_minimal_paths[i]) < 0)
			return -ENOMEM;
		free(a->rule);
		a->rule = words;
		a->access = SBX_READ;
		a->kind = SBX_RULE_ENTRY;
		a->entry = m;
		break;
	}
	return 0;
}

/*
 * What run finds under /dev is not the host's /dev the entries name (sbxrun(1), access): with a
 * mount namespace a private one (the allowed device nodes, read and write; a /dev/shm of the
 * run's own, writable; a pts instance of its own, where of the host's terminals only the
 * command's own is), nothing else of the host's; without one, the host's behind Landlock, which
 * grants the allowed nodes and the command's own terminal and nothing else there. A root the
 * run grants inside (under /dev/shm; without a mount namespace anywhere in /dev) is the
 * entries' to decide.
 */
struct dev_view {
	enum sbx_linux_devs devs;
	bool init; /* the private /dev names the command's own terminal */
};

#if defined(__linux__)
/* As platform/linux/devfs.c names the terminal: a pty of the host's instance, index below. */
#define PTS_MAJOR     136u
#define PTS_NAMED_MAX 1024u

static const char *const allowed_devices[] = {
	"/dev/null",	"/dev/zero", "/dev/full", "/dev/random",
	"/dev/urandom", "/dev/tty",  "/dev/ptmx", NULL,
};

static const char *const fd_links[] = {
	"/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr", NULL,
};

static void dev_view_init(const struct sbx_roots *roots, struct dev_view *v)
{
	v->devs = SBX_DEVS_NONE;
	v->init = false;
	if (sbx_host_platform() == SBX_PLATFORM_LINUX) {
		struct sbx_linux_facts f;

		sbx_linux_probe(&f);
		v->devs = sbx_linux_devs_for(roots, &f, &v->init);
	}
}

/*
 * Is path the command's own terminal, the node a standard stream holds? Landlock grants it on
 * any of the three (named: false); init names in the private /dev only the first stream on a
 * pty slave, at /dev/pts/N of an index below the bound it holds names to (named: true).
 */
static bool own_terminal(const char *path, bool named)
{
	struct stat ps, fs;

	if (lstat(path, &ps) < 0 || !S_ISCHR(ps.st_mode))
		return false;
	for (int fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++) {
		char name[32];

		if (fstat(fd, &fs) < 0 || !S_ISCHR(fs.st_mode))
			continue;
		if (!named) {
			if (isatty(fd) && fs.st_dev == ps.st_dev && fs.st_ino == ps.st_ino)
				return true;
			continue;
		}
		if (major(fs.st_rdev) != PTS_MAJOR)
			continue;
		if (minor(fs.st_rdev) >= PTS_NAMED_MAX)
			return false;
		snprintf(name, sizeof(name), "/dev/pts/%u", minor(fs.st_rdev));
		return strcmp(name, path) == 0 && fs.st_dev == ps.st_dev && fs.st_ino == ps.st_ino;
	}
	return false;
}

/* Sets *a to access acc for the reason why; -ENOMEM. */
static int dev_answer(struct sbx_access_why *a, enum sbx_access acc, const char *why)
{
	char *words = strdup(why);

	if (!words)
		return -ENOMEM;
	free(a->rule);
	a->rule = words;
	a->access = acc;
	a->kind = SBX_RULE_ENTRY;
	a->entry = -1;
	return 0;
}

/*
 * Does a root the run grants lie in under (strictly) and hold path? Such a root is mounted or
 * granted at its path, and the entries decide what lies in it.
 */
static bool root_holds(const struct sbx_roots *rt, const char *under, const char *path)
{
	for (size_t i = 0; i < rt->n_readable + rt->n_writable; i++) {
		const char *root = i < rt->n_readable ? rt->readable[i]
						      : rt->writable[i - rt->n_readable].root;

		if (strcmp(root, under) != 0 && sbx_path_covers(under, root) &&
		    sbx_path_covers(root, path))
			return true;
	}
	return false;
}

static int dev_rule(const struct dev_view *v, const struct sbx_profile *p,
		    const struct sbx_roots *rt, const char *path, struct sbx_access_why *a)
{
	const char *named = NULL;
	struct stat st;

	if (v->devs == SBX_DEVS_NONE || !sbx_path_covers("/dev", path))
		return 0;
	/* Links into /proc/self/fd: the descriptor's file, which the entries decide. */
	for (size_t i = 0; fd_links[i]; i++)
		if (sbx_path_covers(fd_links[i], path))
			return 0;
	if (a->entry >= 0 && a->entry < (long)p->fs.n) {
		const struct sbx_entry *e = &p->fs.entries[a->entry];

		/* A deny glob names the node where it matches that very path (not /dev above). */
		if (e->kind == SBX_PATH)
			named = e->path;
		else if (e->kind == SBX_GLOB && e->path && sbx_glob_match(e->path, path))
			named = path;
	}
	for (size_t i = 0; allowed_devices[i]; i++) {
		if (strcmp(allowed_devices[i], path) != 0)
			continue;
		/* Denied by name: Landlock grants it nothing, the private /dev leaves it out. */
		if (a->access == SBX_DENY && named && strcmp(named, path) == 0)
			return 0;
		return dev_answer(a, SBX_WRITE,
				  v->devs == SBX_DEVS_PRIVATE
					  ? "the private /dev: an allowed device"
					  : "no mount namespace: Landlock grants this "
					    "allowed device");
	}
	if (v->devs == SBX_DEVS_LANDLOCK) {
		/* A root inside is granted as named; the rest of the host's /dev is not. */
		if (root_holds(rt, "/dev", path))
			return 0;
		if (own_terminal(path, false))
			return dev_answer(a, SBX_WRITE,
					  "no mount namespace: Landlock grants the command's own "
					  "terminal");
		/* The readable trees around /dev: its directories are listed, nothing opened. */
		if (a->access != SBX_DENY && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
			return dev_answer(
				a, SBX_READ,
				"no mount namespace: Landlock lets a directory in /dev be "
				"listed, as the entries let read it");
		return dev_answer(a, SBX_DENY,
				  "no mount namespace: Landlock keeps the host's /dev out of reach "
				  "but for the allowed devices and the command's own terminal");
	}
	if (strcmp(path, "/dev") == 0) {
		/* A read-only tmpfs: read where the entries let read it. */
		if (a->access == SBX_WRITE)
			return dev_answer(a, SBX_READ, "the private /dev: a read-only tmpfs");
		return 0;
	}
	if (sbx_linux_private_shm(path)) {
		/* A root there is mounted at its path; a deny or mask that none holds is not. */
		if (root_holds(rt, "/dev/shm", path))
			return 0;
		return dev_answer(a, SBX_WRITE,
				  "the private /dev: /dev/shm, a writable tmpfs of the run's own");
	}
	if (strcmp(path, "/dev/pts") == 0)
		return dev_answer(a, SBX_READ, "the private /dev: a pts instance of the run's own");
	/* That instance's own ptmx (mode 0666), which /dev/ptmx links to: new terminals. */
	if (strcmp(path, "/dev/pts/ptmx") == 0)
		return dev_answer(a, SBX_WRITE,
				  "the private /dev: the ptmx of the run's own pts instance");
	if (v->init && sbx_path_covers("/dev/pts", path) && own_terminal(path, true))
		return dev_answer(
			a, SBX_WRITE,
			"the private /dev: the command's own terminal, bound at its name");
	return dev_answer(a, SBX_DENY,
			  "the private /dev: not there (only the allowed devices, a pts instance "
			  "of the run's own and /dev/shm)");
}

/*
 * Under init the command gets a fresh /proc of its PID namespace, read-only unless the run
 * writes everywhere (then there is no init): a host's process there is absent (its number, if
 * the sandbox has one, is another process), the rest at most read. /proc/self and
 * /proc/thread-self lead to the command's own: the entries decide them.
 */
static int proc_rule(const struct dev_view *v, const char *path, struct sbx_access_why *a)
{
	const char *rest = path + 5;
	size_t n;

	if (!v->init || !sbx_path_covers("/proc", path))
		return 0;
	while (*rest == '/')
		rest++;
	n = strspn(rest, "0123456789");
	if (n > 0 && (rest[n] == '\0' || rest[n] == '/'))
		return dev_answer(
			a, SBX_DENY,
			"the fresh /proc of the run's PID namespace: the host's processes "
			"are not in it");
	if (a->access == SBX_WRITE)
		return dev_answer(a, SBX_READ,
				  "the fresh /proc of the run's PID namespace: read-only");
	return 0;
}
#else
static int proc_rule(const struct dev_view *v, const char *path, struct sbx_access_why *a)
{
	return 0;
}

static void dev_view_init(const struct sbx_roots *roots, struct dev_view *v)
{
	v->devs = SBX_DEVS_NONE;
	v->init = false;
}

static int dev_rule(const struct dev_view *v, const struct sbx_profile *p,
		    const struct sbx_roots *rt, const char *path, struct sbx_access_why *a)
{
	return 0;
}
#endif

/*
 * Whether a run on this host has the private mount namespace, every mount of which but its /dev
 * is nodev (plan_linux.c: none on WSL 1).
 */
static bool host_nodev(void)
{
#if defined(__linux__)
	struct sbx_linux_facts f;

	sbx_linux_probe(&f);
	return f.mount_namespace && f.wsl != 1;
#else
	return false;
#endif
}

/*
 * On Linux a sandboxed run opens no device node but those of its own /dev: every other mount is
 * nodev, and a grant naming one refuses the run (plan_linux.c). A node elsewhere under a granted
 * tree is said to be denied, as the command finds it; a look-up that fails says nothing more.
 * Without a mount namespace the node opens as its mode allows (Landlock has no right for
 * opening a device), and the rule's access stands.
 */
static int device_denied(const struct invocation *inv, const struct sbx_roots *roots,
			 const char *path, struct sbx_access_why *a)
{
	const struct sbx_fsview *v = sbx_ctx_fs(&inv->ctx);
	struct sbx_pathinfo in;
	char *words;

	if (a->access == SBX_DENY || roots->full_write ||
	    sbx_host_platform() != SBX_PLATFORM_LINUX || v->lookup(v->self, path, &in) < 0 ||
	    !in.exists || ((in.mode & 0170000) != 0020000 && (in.mode & 0170000) != 0060000) ||
	    sbx_path_covers("/dev", in.real) || !host_nodev())
		return 0;
	words = strdup("a device node outside /dev: the sandbox opens none but those of its "
		       "own /dev");
	if (!words)
		return -ENOMEM;
	free(a->rule);
	a->rule = words;
	a->access = SBX_DENY;
	a->kind = SBX_RULE_DEFAULT;
	a->entry = -1;
	return 0;
}

static int access_one(const struct invocation *inv, const struct sbx_profile *p,
		      const struct sbx_roots *roots, const struct kept_inputs *ki,
		      const struct dev_view *dv, const char *arg, json_t *out_json)
{
	struct sbx_access_why a;
	char *path = NULL;
	int r;

	r = sbx_path_join(inv->cwd, arg, &path);
	if (r)
		return refuse("access: '%s': not a usable path", arg);
	r = sbx_access_rule(p, roots, &inv->ctx, path, &a);
	if (r) {
		free(path);
		return refuse("out of memory");
	}
	if (minimal_read(p, roots, path, &a) || device_denied(inv, roots, path, &a) ||
	    dev_rule(dv, p, roots, path, &a) || proc_rule(dv, path, &a)) {
		free(path);
		sbx_access_why_free(&a);
		return refuse("out of memory");
	}
	for (size_t i = 0; a.kind == SBX_RULE_CARVE_OUT && a.entry >= (long)ki->n_own &&
			   a.entry < (long)p->fs.n && i < inv->ctx.n_inputs;
	     i++)
		if (ki->kept[i] && strcmp(ki->kept[i], p->fs.entries[a.entry].path) == 0) {
			char *words = strdup(sbx_origin_rule(inv->ctx.inputs[i].origin));

			if (!words) {
				free(path);
				sbx_access_why_free(&a);
				return refuse("out of memory");
			}
			free(a.rule);
			a.rule = words;
			break;
		}
	if (out_json) {
		json_t *j = json_object();

		json_object_set_new(j, "path", sbx_json_text(path));
		json_object_set_new(j, "access", sbx_json_text(sbx_access_name(a.access)));
		json_object_set_new(j, "rule", sbx_json_text(a.rule));
		json_array_append_new(out_json, j);
	} else {
		/* The path and the rule's may hold a name an earlier run made: shown as \xHH. */
		printf("%-5s  ", sbx_access_name(a.access));
		sbx_put_sanitized(path, stdout);
		fputs("  (", stdout);
		sbx_put_sanitized(a.rule, stdout);
		fputs(")\n", stdout);
	}
	free(path);
	sbx_access_why_free(&a);
	return 0;
}

/* access and context look at the profile as the host would materialize it, without a plan. */
static int load_materialized(struct invocation *inv, const struct opts *o, struct sbx_profile *mat)
{
	int r = invocation_load(inv, o, sbx_host_platform());

	if (!r && sbx_profile_materialize(&inv->profile, &inv->ctx, mat))
		r = refuse("out of memory");
	return r;
}

int cmd_access(int argc, char **argv)
{
	struct opts o = {.subcommand = "access"};
	struct sbx_profile mat = {0};
	struct sbx_roots roots = {0};
	struct kept_inputs ki = {0};
	struct dev_view dv;
	struct invocation inv;
	struct sbx_diag d;
	json_t *arr = NULL;
	int r;

	r = opts_parse(&o, argc, argv, OPTS_SHARED | OPT_JSON | OPT_GIT, false);
	if (r)
		return r < 0 ? 0 : r;
	if (o.n_rest < 1)
		return refuse("access: no PATH given");
	r = load_materialized(&inv, &o, &mat);
	if (r)
		goto out;
	/*
	 * The roots run enforces (git's own directories that the entries do not name among them):
	 * a look-up run would refuse for refuses here too.
	 */
	sbx_diag_clear(&d);
	ki.n_own = mat.fs.n;
	if (mat.fs.kind == SBX_FS_RESTRICTED
		    ? sbx_fs_roots_inputs(&mat.fs, &inv.ctx, &roots, ki.kept, &d)
		    : sbx_fs_roots(&mat.fs, &inv.ctx, &roots, &d)) {
		r = refuse_diag(&d);
		goto out;
	}
	dev_view_init(&roots, &dv);
	if (o.json)
		arr = json_array();
	for (int i = 0; !r && i < o.n_rest; i++)
		r = access_one(&inv, &mat, &roots, &ki, &dv, o.rest[i], arr);
	if (!r && arr)
		r = print_owned(json_dumps(arr, JSON_INDENT(2) | JSON_PRESERVE_ORDER));
out:
	json_decref(arr);
	sbx_roots_free(&roots);
	sbx_profile_free(&mat);
	invocation_free(&inv);
	return r;
}

/* ---- convert ------------------------------------------------------------------------------ */

/* This host's context at --cwd (or the current directory), for convert and intersect. */
static int host_ctx(const struct opts *o, char **cwd, struct sbx_ctx *ctx)
{
	*cwd = o->cwd ? realpath(o->cwd, NULL) : getcwd(NULL, 0);
	if (!*cwd)
		return refuse("--cwd '%s': %s", o->cwd ? o->cwd : ".", strerror(errno));
	memset(ctx, 0, sizeof(*ctx));
	ctx->cwd = *cwd;
	ctx->tmpdir = env_get("TMPDIR");
	ctx->platform = sbx_host_platform();
	return 0;
}

int cmd_convert(int argc, char **argv)
{
	struct opts o = {.subcommand = "convert"};
	struct sbx_legacy legacy = {0};
	struct sbx_profile prof = {0};
	enum sbx_input_form form = SBX_FORM_PROFILE;
	struct sbx_ctx ctx;
	struct sbx_diag d;
	const char *file;
	char *cwd = NULL, *buf = NULL;
	size_t len;
	int r;

	r = opts_parse(&o, argc, argv, OPT_TO | OPT_CWD, false);
	if (r)
		return r < 0 ? 0 : r;
	if (!o.to)
		return refuse("convert: --to profile|legacy is required");
	if (o.n_rest > 1)
		return refuse("convert: unexpected argument '%s'", o.rest[1]);
	file = o.n_rest ? o.rest[0] : "-";
	if (host_ctx(&o, &cwd, &ctx))
		return EXIT_REFUSED;
	sbx_diag_clear(&d);
	if (strcmp(file, BUILTIN_WORKSPACE_GIT) == 0) {
		/* Printing :workspace would drop the git mode without a word. */
		sbx_diag_set(&d, SBX_E_USAGE,
			     "convert: %s is :workspace in git mode, which a profile cannot hold",
			     file);
		r = sbx_diag_hint(&d, SBX_E_USAGE,
				  "convert :workspace, and run the profile with --allow-git");
	} else if (file[0] == ':') {
		r = sbx_profile_builtin(file, &prof, &d);
		form = SBX_FORM_BUILTIN;
	} else {
		r = sbx_read_file(file, &buf, &len, &d);
		if (!r)
			r = sbx_profile_load_buf(buf, len, file, &prof, &form, &legacy, &d);
	}
	if (r) {
		r = refuse_diag(&d);
		goto out;
	}
	if (strcmp(o.to, "profile") == 0) {
		if (form == SBX_FORM_LEGACY && (r = sbx_legacy_to_profile(&legacy, &ctx, &prof))) {
			r = refuse("convert: %s", strerror(-r));
			goto out;
		}
		r = print_owned(sbx_profile_to_json(&prof));
	} else if (form == SBX_FORM_LEGACY) {
		r = print_owned(sbx_legacy_to_json(&legacy));
	} else {
		struct sbx_legacy out = {0};

		sbx_diag_clear(&d);
		r = sbx_profile_to_legacy(&prof, &ctx, &out, &d);
		if (r)
			r = refuse_diag(&d);
		else
			r = print_owned(sbx_legacy_to_json(&out));
		sbx_legacy_free(&out);
	}
out:
	free(buf);
	free(cwd);
	sbx_profile_free(&prof);
	sbx_legacy_free(&legacy);
	return r;
}

/* ---- merge and intersect ------------------------------------------------------------------ */

static int load_additional(const char *file, struct sbx_additional *a)
{
	struct sbx_diag d;

	sbx_diag_clear(&d);
	return additional_load_file(file, a, &d) ? refuse_diag(&d) : 0;
}

int cmd_merge(int argc, char **argv)
{
	struct opts o = {.subcommand = "merge"};
	struct sbx_additional a = {.network = -1}, b = {.network = -1}, m = {.network = -1};
	int r;

	r = opts_parse(&o, argc, argv, 0, false);
	if (r)
		return r < 0 ? 0 : r;
	if (o.n_rest != 2)
		return refuse("merge: expected BASE.json EXTRA.json");
	r = load_additional(o.rest[0], &a);
	if (!r)
		r = load_additional(o.rest[1], &b);
	if (!r && sbx_additional_merge(&a, &b, &m))
		r = refuse("out of memory");
	if (!r)
		r = print_owned(sbx_additional_to_json(&m));
	sbx_additional_free(&a);
	sbx_additional_free(&b);
	sbx_additional_free(&m);
	return r;
}

int cmd_intersect(int argc, char **argv)
{
	struct opts o = {.subcommand = "intersect"};
	struct sbx_additional a = {.network = -1}, b = {.network = -1}, m = {.network = -1};
	struct sbx_ctx ctx;
	char *cwd = NULL;
	int r;

	r = opts_parse(&o, argc, argv, OPT_CWD, false);
	if (r)
		return r < 0 ? 0 : r;
	if (o.n_rest != 2)
		return refuse("intersect: expected REQUESTED.json GRANTED.json");
	if (host_ctx(&o, &cwd, &ctx))
		return EXIT_REFUSED;
	r = load_additional(o.rest[0], &a);
	if (!r)
		r = load_additional(o.rest[1], &b);
	if (!r && sbx_additional_intersect(&a, &b, &ctx, &m))
		r = refuse("out of memory");
	if (!r)
		r = print_owned(sbx_additional_to_json(&m));
	sbx_additional_free(&a);
	sbx_additional_free(&b);
	sbx_additional_free(&m);
	free(cwd);
	return r;
}

/* ---- context ------------------------------------------------------------------------------ */

/* The IANA name of the local time zone: $TZ, else the /etc/localtime link, else UTC. */
static void timezone_name(char *buf, size_t size)
{
	const char *tz = env_get("TZ");
#ifndef _WIN32
	char link[PATH_MAX];
	ssize_t n;
#endif

	if (tz && tz[0]) {
		snprintf(buf, size, "%s", tz[0] == ':' ? tz + 1 : tz);
		return;
	}
#ifndef _WIN32
	n = readlink("/etc/localtime", link, sizeof(link) - 1);
	if (n > 0) {
		const char *z;

		link[n] = '\0';
		z = strstr(link, "zoneinfo/");
		if (z) {
			snprintf(buf, size, "%s", z + strlen("zoneinfo/"));
			return;
		}
	}
#endif
	snprintf(buf, size, "Etc/UTC");
}

int cmd_context(int argc, char **argv)
{
	struct opts o = {.subcommand = "context"};
	struct sbx_profile mat = {0};
	struct sbx_context_in in = {0};
	struct sbx_roots kept_roots = {0};
	const char *kept[SBX_MAX_INPUTS];
	struct invocation inv;
	struct sbx_diag d;
	char date[32] = "", tz[128];
	const char *shell, *slash;
	const char *const *roots;
	time_t now = time(NULL);
	struct tm tm;
	int r;

	r = opts_parse(&o, argc, argv, OPTS_SHARED, false);
	if (r)
		return r < 0 ? 0 : r;
	if (o.n_rest)
		return refuse("context: unexpected argument '%s'", o.rest[0]);
	r = load_materialized(&inv, &o, &mat);
	if (r)
		goto out;
	/*
	 * The profile run enforces: with the read entry that keeps a --profile or
	 * --add-permissions file inside a writable root read-only (explain shows it), or refused
	 * where run would refuse it.
	 */
	sbx_diag_clear(&d);
	if (mat.fs.kind == SBX_FS_RESTRICTED &&
	    sbx_fs_roots_inputs(&mat.fs, &inv.ctx, &kept_roots, kept, &d)) {
		r = refuse_diag(&d);
		goto out;
	}
#ifdef _WIN32
	if (localtime_s(&tm, &now) == 0)
#else
	if (localtime_r(&now, &tm))
#endif
		strftime(date, sizeof(date), "%Y-%m-%d", &tm);
	timezone_name(tz, sizeof(tz));
	shell = env_get("SHELL");
	if (shell && (slash = strrchr(shell, '/')))
		shell = slash + 1;
	roots = inv.n_roots ? (const char *const *)inv.roots : (const char *const *)&inv.cwd;
	in.cwd = inv.cwd;
	in.shell = shell && shell[0] ? shell : "sh";
	in.current_date = date;
	in.timezone = tz;
	in.profile = &mat;
	in.workspace_roots = roots;
	in.n_workspace_roots = inv.n_roots ? inv.n_roots : 1;
	r = print_owned(sbx_context_render(&in));
out:
	sbx_roots_free(&kept_roots);
	sbx_profile_free(&mat);
	invocation_free(&inv);
	return r;
}
