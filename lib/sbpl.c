/* SPDX-License-Identifier: MIT */
/*
 * sbpl.c - the macOS Seatbelt policy (SBPL) for /usr/bin/sandbox-exec, built from a plan's roots
 * in the shape of Codex's policy; the requirement attacher is plan_macos.c.
 *
 * The policy denies by default. Every root, carve-out, protected ancestor and denied path is
 * passed as a -D parameter and referred to as (param "NAME"): no path is ever spliced into the
 * policy text. The only text derived from user input is regexes (deny globs, protected metadata
 * names under a root), and those go through sbx_sbpl_regex_escape() / the glob translator and a
 * literal that cannot be terminated early (sbpl_regex.c).
 *
 * Seatbelt applies the last rule that matches an operation, and within one rule any matching
 * filter matches. Hence the order of the sections: allowances first, then the denials that must
 * win over every one of them (deny globs, denied paths, protected ancestors, TIOCSTI); and a
 * writable root carries the carve-outs of the writable roots inside it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sbpl.h"
#include "sbx.h"

#define SANDBOX_EXEC "/usr/bin/sandbox-exec"

/* ---- the fixed parts of the policy ----------------------------------------------------------
 *
 * Written from the list of allowances in Codex's base policy: what an ordinary command needs
 * to start, fork, look at itself, use a terminal and ask the system a few harmless questions.
 */
static const char base_policy[] =
	"(version 1)\n"
	"(deny default)\n"
	"; processes: start programs and fork; signals and process inspection stay in this "
	"sandbox\n"
	"(allow process-exec)\n"
	"(allow process-fork)\n"
	"(allow signal (target same-sandbox))\n"
	"(allow process-info* (target same-sandbox))\n"
	"; writing to the null device, and only while it is the character device\n"
	"(allow file-write-data (require-all (literal \"/dev/null\") (vnode-type "
	"CHARACTER-DEVICE)))\n"
	"; machine facts that language runtimes and build tools read at start-up\n"
	"(allow sysctl-read\n"
	"  (sysctl-name \"hw.activecpu\")\n"
	"  (sysctl-name \"hw.byteorder\")\n"
	"  (sysctl-name \"hw.cachelinesize_compat\")\n"
	"  (sysctl-name \"hw.cpufamily\")\n"
	"  (sysctl-name \"hw.cputype\")\n"
	"  (sysctl-name \"hw.cpusubtype\")\n"
	"  (sysctl-name \"hw.l1dcachesize_compat\")\n"
	"  (sysctl-name \"hw.l1icachesize_compat\")\n"
	"  (sysctl-name \"hw.l2cachesize_compat\")\n"
	"  (sysctl-name \"hw.l3cachesize_compat\")\n"
	"  (sysctl-name \"hw.logicalcpu\")\n"
	"  (sysctl-name \"hw.logicalcpu_max\")\n"
	"  (sysctl-name \"hw.machine\")\n"
	"  (sysctl-name \"hw.memsize\")\n"
	"  (sysctl-name \"hw.model\")\n"
	"  (sysctl-name \"hw.ncpu\")\n"
	"  (sysctl-name \"hw.nperflevels\")\n"
	"  (sysctl-name \"hw.pagesize\")\n"
	"  (sysctl-name \"hw.pagesize_compat\")\n"
	"  (sysctl-name \"hw.physicalcpu\")\n"
	"  (sysctl-name \"hw.physicalcpu_max\")\n"
	"  (sysctl-name \"hw.tbfrequency_compat\")\n"
	"  (sysctl-name \"kern.argmax\")\n"
	"  (sysctl-name \"kern.hostname\")\n"
	"  (sysctl-name \"kern.maxfilesperproc\")\n"
	"  (sysctl-name \"kern.maxproc\")\n"
	"  (sysctl-name \"kern.osproductversion\")\n"
	"  (sysctl-name \"kern.osrelease\")\n"
	"  (sysctl-name \"kern.ostype\")\n"
	"  (sysctl-name \"kern.osversion\")\n"
	"  (sysctl-name \"kern.secure_kernel\")\n"
	"  (sysctl-name \"kern.sysv.semmns\")\n"
	"  (sysctl-name \"kern.usrstack64\")\n"
	"  (sysctl-name \"kern.version\")\n"
	"  (sysctl-name \"sysctl.proc_cputype\")\n"
	"  (sysctl-name \"vm.loadavg\")\n"
	"  (sysctl-name-prefix \"hw.optional.\")\n"
	"  (sysctl-name-prefix \"hw.perflevel\")\n"
	"  (sysctl-name-prefix \"kern.proc.pgrp.\")\n"
	"  (sysctl-name-prefix \"kern.proc.pid.\")\n"
	"  (sysctl-name-prefix \"net.routetable.\"))\n"
	"(allow sysctl-write (sysctl-name \"kern.grade_cputype\"))\n"
	"(allow iokit-open (iokit-registry-entry-class \"RootDomainUserClient\"))\n"
	"; user and group lookups, and power assertions\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.system.opendirectoryd.libinfo\")\n"
	"  (global-name \"com.apple.PowerManagement.control\"))\n"
	"(allow ipc-posix-sem)\n"
	"; the registration segments of the OpenMP runtime\n"
	"(allow ipc-posix-shm-read* ipc-posix-shm-write-create ipc-posix-shm-write-unlink\n"
	"  (ipc-posix-name-regex #\"^/__KMP_REGISTERED_LIB_[0-9]+$\"))\n"
	"; pseudo-terminals: new ones through /dev/ptmx, existing ones only when handed over\n"
	"(allow pseudo-tty)\n"
	"(allow file-read* file-write* file-ioctl (literal \"/dev/ptmx\"))\n"
	"(allow file-read* file-write*\n"
	"  (require-all (regex #\"^/dev/ttys[0-9]+$\") (extension \"com.apple.sandbox.pty\")))\n"
	"(allow file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n";

/* Preferences (only with full read access: they are files anyone may read then). */
static const char preferences_policy[] =
	"; user preferences through cfprefsd\n"
	"(allow ipc-posix-shm-read-data ipc-posix-shm-read-metadata\n"
	"  (ipc-posix-name-regex #\"^apple\\.cfprefs\\.\"))\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.cfprefsd.daemon\")\n"
	"  (global-name \"com.apple.cfprefsd.agent\")\n"
	"  (local-name \"com.apple.cfprefsd.agent\"))\n"
	"(allow user-preference-read)\n";

/*
 * The "minimal" readable set. Unlike Codex, the temporary directories are readable only, as on
 * Linux: "minimal" never grants a write.
 */
static const char platform_defaults_policy[] =
	"; platform defaults (\"minimal\"): system libraries, frameworks, tools and devices\n"
	"(allow file-read*\n"
	"  (literal \"/\")\n"
	"  (subpath \"/System/Library\")\n"
	"  (subpath \"/System/Cryptexes\")\n"
	"  (subpath \"/System/Volumes/Preboot/Cryptexes\")\n"
	"  (subpath \"/Library/Apple\")\n"
	"  (subpath \"/Library/Preferences/Logging\")\n"
	"  (subpath \"/usr/lib\")\n"
	"  (subpath \"/usr/share\")\n"
	"  (subpath \"/usr/bin\")\n"
	"  (subpath \"/usr/sbin\")\n"
	"  (subpath \"/usr/libexec\")\n"
	"  (subpath \"/bin\")\n"
	"  (subpath \"/sbin\")\n"
	"  (subpath \"/etc\")\n"
	"  (subpath \"/private/etc\")\n"
	"  (subpath \"/var/db/timezone\")\n"
	"  (subpath \"/private/var/db/timezone\")\n"
	"  (literal \"/tmp\")\n"
	"  (literal \"/var\")\n"
	"  (subpath \"/private/tmp\")\n"
	"  (subpath \"/private/var/tmp\")\n"
	"  (literal \"/dev/null\")\n"
	"  (literal \"/dev/zero\")\n"
	"  (literal \"/dev/random\")\n"
	"  (literal \"/dev/urandom\")\n"
	"  (literal \"/dev/tty\")\n"
	"  (literal \"/dev/dtracehelper\")\n"
	"  (extension \"com.apple.app-sandbox.read\"))\n"
	"(allow file-map-executable\n"
	"  (subpath \"/System/Library/Frameworks\")\n"
	"  (subpath \"/System/Library/PrivateFrameworks\")\n"
	"  (subpath \"/System/Cryptexes\")\n"
	"  (subpath \"/usr/lib\"))\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.system.logger\")\n"
	"  (global-name \"com.apple.system.notification_center\")\n"
	"  (global-name \"com.apple.logd\")\n"
	"  (global-name \"com.apple.system.opendirectoryd.membership\"))\n";

/*
 * The services name resolution and TLS need, wherever the network is reachable at all, as
 * in Codex's policy: with the network enabled, and with the allowances of a restricted or
 * managed network.
 */
static const char network_services_policy[] =
	"; the services name resolution and TLS need\n"
	"(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))\n"
	"(allow mach-lookup\n"
	"  (global-name \"com.apple.bsd.dirhelper\")\n"
	"  (global-name \"com.apple.system.opendirectoryd.membership\")\n"
	"  (global-name \"com.apple.SecurityServer\")\n"
	"  (global-name \"com.apple.networkd\")\n"
	"  (global-name \"com.apple.ocspd\")\n"
	"  (global-name \"com.apple.trustd.agent\")\n"
	"  (global-name \"com.apple.SystemConfiguration.DNSConfiguration\")\n"
	"  (global-name \"com.apple.SystemConfiguration.configd\"))\n"
	"(allow sysctl-read (sysctl-name-prefix \"net.routetable\"))\n";

/* ---- path canonicalization ------------------------------------------------------------------ */

static char *path_join2(const char *dir, const char *rest)
{
	struct sbx_buf b = {0};

	sbx_buf_add(&b, dir);
	if (rest[0] && strcmp(dir, "/") != 0)
		sbx_buf_addc(&b, '/');
	sbx_buf_add(&b, rest);
	return sbx_buf_steal(&b);
}

/*
 * The canonical form of an absolute path: realpath() of its longest existing prefix, followed by
 * the components that do not exist (yet). Read roots and exclusions are matched by Seatbelt
 * against resolved paths, so they must name the resolved location.
 */
static int canon_full(const char *path, char **out)
{
	char *copy, *slash, *real;

	*out = NULL;
	real = realpath(path, NULL);
	if (real) {
		*out = real;
		return 0;
	}
	if (errno == ENOMEM)
		return -ENOMEM;
	copy = strdup(path);
	if (!copy)
		return -ENOMEM;
	/* Walk up until a prefix resolves; "/" always does. */
	for (;;) {
		slash = strrchr(copy, '/');
		if (!slash || slash == copy) {
			real = strdup("/");
			slash = copy;
			if (!real) {
				free(copy);
				return -ENOMEM;
			}
		} else {
			*slash = '\0';
			real = realpath(copy, NULL);
			if (!real && errno == ENOMEM) {
				free(copy);
				return -ENOMEM;
			}
		}
		if (real)
			break;
	}
	*out = path_join2(real, path + (slash - copy) + 1);
	free(real);
	free(copy);
	return *out ? 0 : -ENOMEM;
}

/* See sbpl.h. */
int sbx_sbpl_write_root(const char *path, char **out, char **deeper)
{
	const char *end = strchr(path + 1, '/');
	size_t top_len = end ? (size_t)(end - path) : strlen(path);
	char *top, *real = NULL, *prefix;
	struct stat st;

	*out = NULL;
	if (deeper)
		*deeper = NULL;
	if (strcmp(path, "/") == 0) {
		*out = strdup("/");
		return *out ? 0 : -ENOMEM;
	}
	top = strndup(path, top_len);
	if (!top)
		return -ENOMEM;
	if (lstat(top, &st) == 0 && S_ISLNK(st.st_mode))
		real = realpath(top, NULL);
	free(top);
	/* Look for a symlink in the components below the top level, lexically. */
	for (const char *p = end; deeper && p && *p; p = strchr(p + 1, '/')) {
		const char *next = strchr(p + 1, '/');

		prefix = strndup(path, next ? (size_t)(next - path) : strlen(path));
		if (!prefix) {
			free(real);
			return -ENOMEM;
		}
		if (lstat(prefix, &st) != 0) {
			int err = errno;

			free(prefix);
			/* Missing: nothing below it exists either. Anything else is unknown. */
			if (err == ENOENT || err == ENOTDIR)
				break;
			free(real);
			return -err;
		}
		if (S_ISLNK(st.st_mode)) {
			*deeper = prefix;
			break;
		}
		free(prefix);
	}
	if (real) {
		*out = path_join2(real, end ? end + 1 : "");
		free(real);
	} else {
		*out = strdup(path);
	}
	if (!*out) {
		if (deeper) {
			free(*deeper);
			*deeper = NULL;
		}
		return -ENOMEM;
	}
	return 0;
}

/* ---- the generator ------------------------------------------------------------------------- */

/* One root of an allow block, with what is carved out of it. */
struct root {
	char *path;
	bool literal;		    /* an existing non-directory: the file itself, not a subtree */
	struct sbx_strv excl;	    /* carve-outs: neither the path nor anything below it */
	struct sbx_strv resolved;   /* per carve-out: its canonical target, or "" when the same */
	struct sbx_strv names;	    /* regexes of protected names that must not be created */
	size_t own_excl, own_names; /* how many of each are this root's own (not inherited) */
};

struct gen {
	const struct sbx_plan *p;
	const struct sbx_roots *r;
	const struct sbx_ctx *ctx;
	struct sbx_strv unreadable; /* canonical */
	struct root *read, *write;
	size_t n_read, n_write;
	struct sbx_strv ancestors;
	struct sbx_strv missing; /* git mode's paths not to be created, canonical */
	struct sbx_strv sockets; /* the Unix socket allow-list as the policy names it, sorted */
	struct sbx_strv params;
	struct sbx_buf text;
	struct sbx_diag *d;
};

static void root_clear(struct root *rt)
{
	free(rt->path);
	sbx_strv_clear(&rt->excl);
	sbx_strv_clear(&rt->resolved);
	sbx_strv_clear(&rt->names);
}

static void gen_clear(struct gen *g)
{
	for (size_t i = 0; i < g->n_read; i++)
		root_clear(&g->read[i]);
	for (size_t i = 0; i < g->n_write; i++)
		root_clear(&g->write[i]);
	free(g->read);
	free(g->write);
	sbx_strv_clear(&g->unreadable);
	sbx_strv_clear(&g->ancestors);
	sbx_strv_clear(&g->missing);
	sbx_strv_clear(&g->sockets);
	sbx_strv_clear(&g->params);
	sbx_buf_free(&g->text);
}

static int param(struct gen *g, const char *key, const char *value)
{
	struct sbx_buf b = {0};

	sbx_buf_add(&b, key);
	sbx_buf_addc(&b, '=');
	sbx_buf_add(&b, value);
	return sbx_strv_push_owned(&g->params, sbx_buf_steal(&b));
}

static int need_abs(struct gen *g, const char *what, const char *path)
{
	if (path && path[0] == '/')
		return 0;
	return sbx_diag_set(g->d, SBX_E_INVALID, "%s %s is not an absolute path", what,
			    path ? path : "(null)");
}

static int add_excl(struct root *rt, const char *path, const char *resolved)
{
	int rc;

	if (sbx_strv_has(&rt->excl, path) || strcmp(path, rt->path) == 0)
		return 0;
	rc = sbx_strv_push_owned(&rt->excl, strdup(path));
	if (!rc)
		rc = sbx_strv_push_owned(&rt->resolved, strdup(resolved ? resolved : ""));
	return rc;
}

static int add_unreadable_excl(struct gen *g, struct root *rt)
{
	for (size_t i = 0; i < g->unreadable.n; i++) {
		const char *u = g->unreadable.v[i];
		int rc;

		if (!sbx_path_covers(rt->path, u))
			continue;
		rc = add_excl(rt, u, NULL);
		if (rc)
			return rc;
	}
	return 0;
}

/* The regex of a protected name under root: the name and anything below it, existing or not. */
static int add_name(struct root *rt, const char *root, const char *name)
{
	struct sbx_buf re = {0};

	sbx_buf_addc(&re, '^');
	if (strcmp(root, "/") != 0)
		sbx_sbpl_regex_escape(&re, root);
	sbx_buf_addc(&re, '/');
	sbx_sbpl_regex_escape(&re, name);
	sbx_buf_add(&re, "(/.*)?$");
	if (re.oom) {
		sbx_buf_free(&re);
		return -ENOMEM;
	}
	if (sbx_strv_has(&rt->names, re.s)) {
		sbx_buf_free(&re);
		return 0;
	}
	return sbx_strv_push_owned(&rt->names, sbx_buf_steal(&re));
}

/*
 * A missing path that git mode keeps from being created (sbx_fs_roots): carved out of its root
 * by name, as a protected name is; the directories above it are kept in place with the rest.
 */
static int add_missing(struct gen *g, struct root *rt, const char *path)
{
	char *c = NULL;
	int rc = need_abs(g, "protected path", path);

	if (!rc)
		rc = canon_full(path, &c);
	if (!rc && (!sbx_path_covers(rt->path, c) || strcmp(rt->path, c) == 0))
		rc = sbx_diag_set(g->d, SBX_E_UNENFORCEABLE,
				  "git mode: %s leads out of writable root %s", path, rt->path);
	if (!rc)
		rc = add_name(rt, rt->path, c + strlen(rt->path) + (strcmp(rt->path, "/") != 0));
	if (!rc)
		rc = sbx_strv_add_unique(&g->missing, c);
	free(c);
	return rc;
}

/* Writable roots: the plan's, and "/" when the write side is full-disk but carved. */
static int collect_write(struct gen *g)
{
	const struct sbx_roots *r = g->r;
	bool carved = r->n_unreadable > 0 || r->n_deny_globs > 0;
	int rc;

	for (size_t i = 0; i < r->n_writable; i++)
		if (r->writable[i].n_read_only || r->writable[i].n_protected_missing ||
		    r->writable[i].no_create.n)
			carved = true;
	g->write = calloc(r->n_writable + 1, sizeof(*g->write));
	if (!g->write)
		return -ENOMEM;
	if (r->full_write && carved) {
		struct root *rt = &g->write[g->n_write++];

		rt->path = strdup("/");
		if (!rt->path)
			return -ENOMEM;
		rc = add_unreadable_excl(g, rt);
		if (rc)
			return rc;
	}
	if (r->full_write && !carved)
		return 0;
	for (size_t i = 0; i < r->n_writable; i++) {
		const struct sbx_writable_root *w = &r->writable[i];
		struct root *rt;
		char *deeper = NULL;
		struct stat st;

		rc = need_abs(g, "writable root", w->root);
		if (rc)
			return rc;
		rt = &g->write[g->n_write++];
		rc = sbx_sbpl_write_root(w->root, &rt->path, &deeper);
		if (rc)
			return sbx_diag_set(g->d, rc, "cannot inspect writable root %s: %s",
					    w->root, strerror(-rc));
		if (deeper) {
			rc = sbx_diag_set(
				g->d, SBX_E_UNENFORCEABLE,
				"writable root %s contains symlink component %s; symlinked "
				"writable roots are not supported",
				w->root, deeper);
			sbx_diag_hint(g->d, rc, "name the directory the symlink points to instead");
			free(deeper);
			return rc;
		}
		rt->literal = stat(rt->path, &st) == 0 && !S_ISDIR(st.st_mode);
		for (size_t k = 0; k < w->n_protected_missing; k++) {
			rc = add_name(rt, rt->path, w->protected_missing[k]);
			if (rc)
				return rc;
		}
		for (size_t k = 0; k < w->no_create.n; k++) {
			rc = add_missing(g, rt, w->no_create.v[k]);
			if (rc)
				return rc;
		}
		/*
		 * The cwd's missing .codex is also carved out by name, as Codex does (vector
		 * sb-07); the regex on the name already keeps it from being created.
		 */
		for (size_t k = 0; k < w->n_protected_missing && g->ctx && g->ctx->cwd; k++) {
			char *codex;

			if (strcmp(w->protected_missing[k], ".codex") != 0 ||
			    strcmp(w->root, g->ctx->cwd) != 0)
				continue;
			codex = path_join2(rt->path, ".codex");
			rc = codex ? add_excl(rt, codex, NULL) : -ENOMEM;
			free(codex);
			if (rc)
				return rc;
		}
		for (size_t j = 0; j < w->n_read_only; j++) {
			char *lex = NULL, *real = NULL;

			rc = need_abs(g, "read-only path", w->read_only[j]);
			if (!rc)
				rc = sbx_sbpl_write_root(w->read_only[j], &lex, NULL);
			if (!rc)
				rc = canon_full(lex, &real);
			/* A symlinked carve-out is also carved out where it points. */
			if (!rc)
				rc = add_excl(rt, lex, strcmp(lex, real) ? real : NULL);
			free(lex);
			free(real);
			if (rc)
				return rc;
		}
		rc = add_unreadable_excl(g, rt);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * In one allow block any matching filter allows, so a writable root that holds another one
 * would re-open everything carved out of the inner root: every covering root takes over the
 * carve-outs and protected names of the roots inside it (as Codex's
 * get_writable_roots_with_cwd gives each root the read-only subpaths inside it).
 */
static int inherit_nested(struct gen *g)
{
	for (size_t i = 0; i < g->n_write; i++) {
		g->write[i].own_excl = g->write[i].excl.n;
		g->write[i].own_names = g->write[i].names.n;
	}
	for (size_t i = 0; i < g->n_write; i++) {
		struct root *outer = &g->write[i];

		for (size_t j = 0; j < g->n_write; j++) {
			const struct root *inner = &g->write[j];
			int rc = 0;

			if (i == j || strcmp(outer->path, inner->path) == 0 ||
			    !sbx_path_covers(outer->path, inner->path))
				continue;
			for (size_t k = 0; k < inner->own_excl && !rc; k++)
				rc = add_excl(outer, inner->excl.v[k],
					      inner->resolved.v[k][0] ? inner->resolved.v[k]
								      : NULL);
			for (size_t k = 0; k < inner->own_names && !rc; k++)
				rc = sbx_strv_add_unique(&outer->names, inner->names.v[k]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* True when an earlier read root already grants everything below path. */
static bool read_covered(const struct gen *g, const char *path)
{
	for (size_t i = 0; i < g->n_read; i++) {
		const char *root = g->read[i].path;
		bool cut = false;

		if (!sbx_path_covers(root, path))
			continue;
		for (size_t j = 0; j < g->unreadable.n && !cut; j++)
			cut = sbx_path_covers(root, g->unreadable.v[j]) &&
			      sbx_path_covers(g->unreadable.v[j], path);
		if (!cut)
			return true;
	}
	return false;
}

static int push_read(struct gen *g, const char *canonical)
{
	struct root *rt;

	if (read_covered(g, canonical))
		return 0;
	rt = &g->read[g->n_read++];
	rt->path = strdup(canonical);
	if (!rt->path)
		return -ENOMEM;
	return add_unreadable_excl(g, rt);
}

/*
 * Readable roots: "/" when reads are full-disk but some path is denied, the plan's read roots,
 * and every writable root (file-write* does not imply file-read* in SBPL).
 */
static int collect_read(struct gen *g)
{
	const struct sbx_roots *r = g->r;
	int rc;

	if (r->full_read && g->unreadable.n == 0)
		return 0;
	g->read = calloc(r->n_readable + g->n_write + 1, sizeof(*g->read));
	if (!g->read)
		return -ENOMEM;
	if (r->full_read) {
		rc = push_read(g, "/");
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < r->n_readable; i++) {
		char *c = NULL;

		rc = need_abs(g, "readable root", r->readable[i]);
		if (!rc)
			rc = canon_full(r->readable[i], &c);
		if (!rc)
			rc = push_read(g, c);
		free(c);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < g->n_write; i++) {
		rc = push_read(g, g->write[i].path);
		if (rc)
			return rc;
	}
	return 0;
}

/* True when path is a writable root of this policy. */
static bool is_write_root(const struct gen *g, const char *path)
{
	for (size_t i = 0; i < g->n_write; i++)
		if (strcmp(g->write[i].path, path) == 0)
			return true;
	return false;
}

static bool under_write_root(const struct gen *g, const char *path)
{
	if (g->r->full_write)
		return true;
	for (size_t i = 0; i < g->n_write; i++)
		if (sbx_path_covers(g->write[i].path, path))
			return true;
	return false;
}

/*
 * Every writable directory above path must stay where it is: renaming it would carry path out
 * from under the rules that name it. Writable roots have their own rule in the write section.
 */
static int protect_above(struct gen *g, const char *path)
{
	char *a = strdup(path), *slash;
	int rc = 0;

	if (!a)
		return -ENOMEM;
	while (!rc && (slash = strrchr(a, '/')) && slash != a) {
		*slash = '\0';
		if (is_write_root(g, a) || !under_write_root(g, a) ||
		    sbx_strv_has(&g->ancestors, a))
			continue;
		rc = sbx_strv_add_unique(&g->ancestors, a);
	}
	free(a);
	return rc;
}

/*
 * The directories above every carve-out and every path git mode keeps from being created, and
 * above every writable root that has carve-outs or protected names and lies inside another
 * writable root (moving it would take its protected names out from under the outer root's
 * rules).
 */
static int collect_ancestors(struct gen *g)
{
	for (size_t i = 0; i < g->n_write; i++) {
		const struct root *rt = &g->write[i];
		int rc = 0;

		for (size_t j = 0; j < rt->excl.n && !rc; j++)
			rc = protect_above(g, rt->excl.v[j]);
		if (!rc && (rt->own_excl || rt->own_names))
			rc = protect_above(g, rt->path);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < g->missing.n; i++) {
		int rc = protect_above(g, g->missing.v[i]);

		if (rc)
			return rc;
	}
	return 0;
}

/*
 * Could a match of glob lie where the command may write? Its static prefix (canonical) inside
 * a writable root, or a writable root inside the prefix.
 */
static int glob_meets_write(struct gen *g, const char *glob, bool *meets)
{
	char *prefix = NULL, *canon = NULL;
	int rc;

	*meets = g->r->full_write;
	rc = sbx_glob_static_prefix(glob, &prefix);
	if (!rc && prefix && prefix[0] == '/')
		rc = canon_full(prefix, &canon);
	for (size_t i = 0; !rc && canon && i < g->n_write && !*meets; i++)
		*meets = sbx_path_covers(g->write[i].path, canon) ||
			 sbx_path_covers(canon, g->write[i].path);
	/* No usable prefix: any writable root may hold a match. */
	if (!rc && !canon)
		*meets = *meets || g->n_write > 0;
	free(prefix);
	free(canon);
	return rc;
}

/*
 * Below a "**" the directories that hold matches have no fixed depth and cannot be named by a
 * regex without taking in every directory there: the ones holding a match now are found on the
 * file system (as the Linux backend finds what to mask) and kept in place. A match that appears
 * later, below a "**", is still unreadable, but the directories above it can be moved.
 */
static int protect_matches(struct gen *g, const char *glob)
{
	char **variants = NULL, **m;
	size_t n_variants = 0, n;
	bool meets;
	int rc;

	rc = glob_meets_write(g, glob, &meets);
	if (rc || !meets)
		return rc;
	rc = sbx_sbpl_glob_braces(glob, &variants, &n_variants);
	if (rc == -E2BIG)
		return sbx_diag_set(g->d, SBX_E_TOO_BIG,
				    "deny glob `%s` has more than %d brace alternatives", glob,
				    SBX_SBPL_MAX_BRACE_VARIANTS);
	for (size_t i = 0; !rc && i < n_variants; i++) {
		m = NULL;
		n = 0;
		rc = sbx_glob_expand(variants[i], g->p ? g->p->profile.fs.glob_depth : 0, NULL, &m,
				     &n, g->d);
		for (size_t k = 0; !rc && k < n; k++) {
			char *c = NULL;

			rc = canon_full(m[k], &c);
			if (!rc)
				rc = protect_above(g, c);
			free(c);
		}
		sbx_strv_free(m, n);
	}
	sbx_strv_free(variants, n_variants);
	return rc;
}

int sbx_sbpl_glob_check(const struct sbx_roots *roots, const char *pattern, struct sbx_diag *d)
{
	char *re = NULL, *prefix = NULL;
	bool rooted;
	int rc;

	rc = sbx_sbpl_glob_regex(pattern, SBX_SBPL_GLOB_SUBTREE, &re, d);
	free(re);
	if (!rc)
		rc = sbx_glob_static_prefix(pattern, &prefix);
	if (rc)
		return rc == -ENOMEM ? sbx_diag_set(d, rc, "out of memory") : rc;
	rooted = !prefix || !prefix[0] || strcmp(prefix, "/") == 0;
	free(prefix);
	if (rooted && (roots->full_write || roots->n_writable)) {
		sbx_diag_set_about(
			d, SBX_E_INVALID, "deny glob `", pattern,
			"` has no directory prefix below /: the directories holding its "
			"matches in writable roots cannot be found, and could be renamed "
			"out of its reach");
		return sbx_diag_hint(d, SBX_E_INVALID,
				     "start the pattern with the directory it is about (a relative "
				     "pattern is taken from the cwd)");
	}
	return 0;
}

static int collect_glob_matches(struct gen *g)
{
	int rc = 0;

	for (size_t i = 0; i < g->r->n_deny_globs && !rc; i++) {
		rc = need_abs(g, "deny glob", g->r->deny_globs[i]);
		if (!rc)
			rc = sbx_sbpl_glob_check(g->r, g->r->deny_globs[i], g->d);
		if (!rc)
			rc = protect_matches(g, g->r->deny_globs[i]);
	}
	return rc;
}

/* Readable roots strictly inside a denied path: the profile re-opens them. */
static bool reopened_in(const struct gen *g, size_t i, const char *denied)
{
	return strcmp(g->read[i].path, denied) != 0 && sbx_path_covers(denied, g->read[i].path);
}

static int emit_params(struct gen *g)
{
	char key[96];
	int rc = 0;

	for (size_t i = 0; i < g->n_read && !rc; i++) {
		snprintf(key, sizeof(key), "READABLE_ROOT_%zu", i);
		rc = param(g, key, g->read[i].path);
		for (size_t j = 0; j < g->read[i].excl.n && !rc; j++) {
			snprintf(key, sizeof(key), "READABLE_ROOT_%zu_EXCLUDED_%zu", i, j);
			rc = param(g, key, g->read[i].excl.v[j]);
		}
	}
	for (size_t i = 0; i < g->n_write && !rc; i++) {
		snprintf(key, sizeof(key), "WRITABLE_ROOT_%zu", i);
		rc = param(g, key, g->write[i].path);
		for (size_t j = 0; j < g->write[i].excl.n && !rc; j++) {
			snprintf(key, sizeof(key), "WRITABLE_ROOT_%zu_EXCLUDED_%zu", i, j);
			rc = param(g, key, g->write[i].excl.v[j]);
			if (!rc && g->write[i].resolved.v[j][0]) {
				snprintf(key, sizeof(key),
					 "WRITABLE_ROOT_%zu_EXCLUDED_%zu_RESOLVED", i, j);
				rc = param(g, key, g->write[i].resolved.v[j]);
			}
		}
	}
	for (size_t i = 0; i < g->ancestors.n && !rc; i++) {
		snprintf(key, sizeof(key), "PROTECTED_ANCESTOR_%zu", i);
		rc = param(g, key, g->ancestors.v[i]);
	}
	for (size_t i = 0; i < g->unreadable.n && !rc; i++) {
		snprintf(key, sizeof(key), "DENIED_PATH_%zu", i);
		rc = param(g, key, g->unreadable.v[i]);
	}
	for (size_t i = 0; i < g->sockets.n && !rc; i++) {
		snprintf(key, sizeof(key), "UNIX_SOCKET_PATH_%zu", i);
		rc = param(g, key, g->sockets.v[i]);
	}
	return rc;
}

static void emit_excl(struct sbx_buf *t, const char *key)
{
	sbx_buf_addf(
		t, " (require-not (literal (param \"%s\"))) (require-not (subpath (param \"%s\")))",
		key, key);
}

/* One filter per root: the root, minus its carve-outs and protected names. */
static void emit_root_filter(struct sbx_buf *t, const char *prefix, size_t i, const struct root *rt)
{
	const char *kind = rt->literal ? "literal" : "subpath";
	char key[96];

	if (rt->excl.n == 0 && rt->names.n == 0) {
		sbx_buf_addf(t, "  (%s (param \"%s_%zu\"))\n", kind, prefix, i);
		return;
	}
	sbx_buf_addf(t, "  (require-all (%s (param \"%s_%zu\"))", kind, prefix, i);
	for (size_t j = 0; j < rt->excl.n; j++) {
		snprintf(key, sizeof(key), "%s_%zu_EXCLUDED_%zu", prefix, i, j);
		emit_excl(t, key);
		if (rt->resolved.n > j && rt->resolved.v[j][0]) {
			snprintf(key, sizeof(key), "%s_%zu_EXCLUDED_%zu_RESOLVED", prefix, i, j);
			emit_excl(t, key);
		}
	}
	for (size_t k = 0; k < rt->names.n; k++) {
		sbx_buf_add(t, " (require-not (regex ");
		sbx_sbpl_regex_literal(t, rt->names.v[k]);
		sbx_buf_add(t, "))");
	}
	sbx_buf_add(t, ")\n");
}

static void emit_read(struct gen *g)
{
	struct sbx_buf *t = &g->text;

	if (g->r->full_read && g->unreadable.n == 0) {
		sbx_buf_add(t, "; allow read-only file operations\n(allow file-read*)\n");
		return;
	}
	if (g->n_read == 0) {
		sbx_buf_add(t, "; reads: none beyond the sections below\n");
		return;
	}
	sbx_buf_add(t, "; reads: the readable roots, minus the denied paths inside them\n");
	sbx_buf_add(t, "(allow file-read*\n");
	for (size_t i = 0; i < g->n_read; i++)
		emit_root_filter(t, "READABLE_ROOT", i, &g->read[i]);
	sbx_buf_add(t, ")\n");
}

static void emit_write(struct gen *g)
{
	struct sbx_buf *t = &g->text;

	if (g->r->full_write && g->n_write == 0) {
		sbx_buf_add(t, "; writes: everywhere\n(allow file-write* (regex #\"^/\"))\n");
		return;
	}
	if (g->n_write == 0) {
		sbx_buf_add(t, "; writes: none\n");
		return;
	}
	sbx_buf_add(t, "; writes: the writable roots, minus read-only and protected paths, and\n"
		       "; minus those of the writable roots inside them\n");
	sbx_buf_add(t, "(allow file-write*\n");
	for (size_t i = 0; i < g->n_write; i++)
		emit_root_filter(t, "WRITABLE_ROOT", i, &g->write[i]);
	sbx_buf_add(t, ")\n");
	/* A writable root cannot be renamed or removed: its carve-outs would go with it. */
	for (size_t i = 0; i < g->n_write; i++)
		sbx_buf_addf(t,
			     "(deny file-write-unlink (require-all (literal (param "
			     "\"WRITABLE_ROOT_%zu\")) "
			     "(vnode-type DIRECTORY)))\n",
			     i);
}

/*
 * The pattern again with its static directory prefix resolved ("/tmp/x/" "*.env" becomes
 * "/private/tmp/x/" "*.env" on macOS), or NULL when resolving changes nothing. The prefix ends
 * at the "/" before the first component with a wildcard, a class or a brace; escaped
 * characters (a workspace root joined in by sbx_glob_escape) belong to it, and the resolved
 * prefix is escaped again.
 */
static int glob_canonical_variant(const char *glob, char **out)
{
	struct sbx_buf lit = {0}, b = {0};
	size_t i, last = 0, lit_last = 0;
	char *prefix = NULL, *canon = NULL, *esc = NULL;
	int rc = 0;

	*out = NULL;
	for (i = 0; glob[i]; i++) {
		if (glob[i] == '\\' && glob[i + 1] && glob[i + 1] != '/') {
			sbx_buf_addc(&lit, glob[++i]);
			continue;
		}
		if (strchr("*?[{", glob[i]))
			break;
		if (glob[i] == '/') {
			last = i;
			lit_last = lit.len;
		}
		sbx_buf_addc(&lit, glob[i]);
	}
	if (!glob[i]) {
		last = i;
		lit_last = lit.len;
	}
	if (lit.oom)
		rc = -ENOMEM;
	if (!rc && last > 0) {
		prefix = strndup(lit.s, lit_last);
		rc = prefix ? canon_full(prefix, &canon) : -ENOMEM;
	}
	if (!rc && canon && strcmp(prefix, canon) != 0)
		rc = sbx_glob_escape(canon, &esc);
	if (!rc && esc) {
		sbx_buf_add(&b, esc);
		sbx_buf_add(&b, glob + last);
		*out = sbx_buf_steal(&b);
		if (!*out)
			rc = -ENOMEM;
	}
	sbx_buf_free(&lit);
	free(prefix);
	free(canon);
	free(esc);
	return rc;
}

static int emit_glob(struct gen *g, const char *glob, struct sbx_strv *seen)
{
	struct sbx_buf *t = &g->text;
	char *re = NULL, **anc = NULL;
	size_t n_anc = 0;
	int rc;

	rc = sbx_sbpl_glob_regex(glob, SBX_SBPL_GLOB_SUBTREE, &re, g->d);
	if (!rc)
		rc = sbx_sbpl_glob_ancestors(glob, &anc, &n_anc, g->d);
	if (rc)
		goto out;
	if (!sbx_strv_has(seen, re)) {
		sbx_buf_add(t, "(deny file-read* (regex ");
		sbx_sbpl_regex_literal(t, re);
		sbx_buf_add(t, "))\n(deny file-write* (regex ");
		sbx_sbpl_regex_literal(t, re);
		sbx_buf_add(t, "))\n");
		rc = sbx_strv_push_owned(seen, re);
		re = NULL;
	}
	for (size_t i = 0; i < n_anc && !rc; i++) {
		if (sbx_strv_has(seen, anc[i]))
			continue;
		sbx_buf_add(t,
			    "(deny file-write-unlink (require-all (vnode-type DIRECTORY) (regex ");
		sbx_sbpl_regex_literal(t, anc[i]);
		sbx_buf_add(t, ")))\n");
		rc = sbx_strv_push_owned(seen, anc[i]);
		anc[i] = NULL;
	}
out:
	for (size_t i = 0; i < n_anc; i++)
		free(anc[i]);
	free(anc);
	free(re);
	return rc;
}

static int emit_globs(struct gen *g)
{
	struct sbx_strv seen = {0};
	int rc = 0;

	if (g->r->n_deny_globs)
		sbx_buf_add(&g->text, "; deny globs: neither read nor written; the directories "
				      "their matches lie in at a fixed\n; depth stay in place\n");
	for (size_t i = 0; i < g->r->n_deny_globs && !rc; i++) {
		const char *glob = g->r->deny_globs[i];
		char *variant = NULL;

		rc = emit_glob(g, glob, &seen);
		if (!rc)
			rc = glob_canonical_variant(glob, &variant);
		if (!rc && variant)
			rc = emit_glob(g, variant, &seen);
		free(variant);
	}
	sbx_strv_clear(&seen);
	return rc;
}

/*
 * Denied paths, once more, after every section that could allow them (Seatbelt applies the
 * last matching rule): the platform defaults of "minimal" name /usr/share or /private/etc
 * whole, and the exclusions in the read block do not reach them. A readable (or writable) root
 * inside a denied path is what the profile re-opens, and stays open.
 */
static void emit_denied(struct gen *g)
{
	struct sbx_buf *t = &g->text;

	if (g->unreadable.n)
		sbx_buf_add(t, "; denied paths: neither read nor written, whatever allowed them "
			       "above\n");
	for (size_t k = 0; k < g->unreadable.n; k++) {
		const char *u = g->unreadable.v[k];
		bool reopened = false;

		for (size_t i = 0; i < g->n_read && !reopened; i++)
			reopened = reopened_in(g, i, u);
		if (!reopened) {
			sbx_buf_addf(t,
				     "(deny file-read* file-write* (subpath (param "
				     "\"DENIED_PATH_%zu\")))\n",
				     k);
			continue;
		}
		sbx_buf_addf(t,
			     "(deny file-read* file-write* (require-all (subpath (param "
			     "\"DENIED_PATH_%zu\"))",
			     k);
		for (size_t i = 0; i < g->n_read; i++)
			if (reopened_in(g, i, u))
				sbx_buf_addf(t,
					     " (require-not (subpath (param "
					     "\"READABLE_ROOT_%zu\")))",
					     i);
		sbx_buf_add(t, "))\n");
	}
}

static void emit_ancestors(struct gen *g)
{
	if (g->ancestors.n)
		sbx_buf_add(&g->text, "; directories above protected paths stay in place\n");
	for (size_t i = 0; i < g->ancestors.n; i++)
		sbx_buf_addf(&g->text,
			     "(deny file-write-unlink (require-all (vnode-type DIRECTORY) "
			     "(literal (param \"PROTECTED_ANCESTOR_%zu\"))))\n",
			     i);
}

/* ---- the network ------------------------------------------------------------------------ */

/*
 * The shapes of the network section, in Codex's terms:
 *   - managed networking with a loopback proxy, or a restricted network with an allowance
 *     (Unix sockets, local binding): the local binding rules, the proxies' ports on loopback,
 *     the Unix socket rules, and the services block;
 *   - managed networking without a usable proxy: nothing at all, failing closed (the planner
 *     refuses this case before it gets here; a plan made without it still denies);
 *   - the network enabled: every connection, then the same local binding and Unix socket rules
 *     (binding is not a connection) and the services block;
 *   - the network restricted: nothing.
 */
enum net_shape { NET_DENIED = 0, NET_FAIL_CLOSED, NET_ALLOWANCES, NET_ENABLED };

static enum net_shape net_shape(const struct sbx_plan *p, size_t n_ports)
{
	const struct sbx_netplan *n = &p->net;
	bool sockets = n->allow_all_unix_sockets || n->n_unix_sockets > 0;

	if (p->managed_network)
		return n_ports ? NET_ALLOWANCES : NET_FAIL_CLOSED;
	if (!p->network)
		return sockets || n->allow_local_binding ? NET_ALLOWANCES : NET_DENIED;
	return NET_ENABLED;
}

/*
 * The allow-list as the policy names it: each path with its symlinked top-level component
 * resolved (/tmp is /private/tmp to Seatbelt), sorted and without duplicates, so that the
 * parameters are numbered as Codex numbers them (vector sb-08). A deeper symlink is refused, as
 * the attacher says.
 */
static int collect_sockets(struct gen *g)
{
	const struct sbx_netplan *n = &g->p->net;
	int rc = 0;

	for (size_t i = 0; i < n->n_unix_sockets && !rc; i++) {
		char *path = NULL, *deeper = NULL;

		rc = need_abs(g, "Unix socket", n->unix_sockets[i]);
		if (!rc)
			rc = sbx_sbpl_write_root(n->unix_sockets[i], &path, &deeper);
		if (rc && rc != -ENOMEM)
			rc = sbx_diag_set(g->d, rc, "cannot inspect Unix socket path %s: %s",
					  n->unix_sockets[i], strerror(-rc));
		if (!rc && deeper) {
			rc = sbx_diag_set(g->d, SBX_E_UNENFORCEABLE,
					  "Unix socket path %s goes through symbolic link %s, "
					  "which could lead anywhere",
					  n->unix_sockets[i], deeper);
			sbx_diag_hint(g->d, rc, "name the socket by its real path");
		}
		if (!rc && !sbx_strv_has(&g->sockets, path))
			rc = sbx_strv_push_owned(&g->sockets, path);
		else
			free(path);
		free(deeper);
	}
	if (!rc)
		sbx_strv_sort(&g->sockets);
	return rc;
}

static void emit_unix_sockets(struct gen *g)
{
	struct sbx_buf *t = &g->text;

	if (g->p->net.allow_all_unix_sockets) {
		sbx_buf_add(t, "; Unix sockets: every one\n"
			       "(allow system-socket (socket-domain AF_UNIX))\n"
			       "(allow network-bind (local unix-socket))\n"
			       "(allow network-outbound (remote unix-socket))\n");
		return;
	}
	if (!g->sockets.n)
		return;
	sbx_buf_add(t, "; Unix sockets on the allow-list, and those below an allowed directory\n"
		       "(allow system-socket (socket-domain AF_UNIX))\n");
	for (size_t i = 0; i < g->sockets.n; i++)
		sbx_buf_addf(t,
			     "(allow network-bind (local unix-socket (subpath (param "
			     "\"UNIX_SOCKET_PATH_%zu\"))))\n"
			     "(allow network-outbound (remote unix-socket (subpath (param "
			     "\"UNIX_SOCKET_PATH_%zu\"))))\n",
			     i, i);
}

/*
 * Unlike Codex, local binding does not also open port 53 of every host when there are proxies:
 * that would be a way out to any address, and the proxies resolve the names they are asked for.
 * Seatbelt cannot tell the command's own listeners from the host's, so local binding opens
 * every loopback port, as in Codex.
 */
static void emit_network(struct gen *g, const unsigned *ports, size_t n_ports)
{
	const struct sbx_plan *p = g->p;
	struct sbx_buf *t = &g->text;

	switch (net_shape(p, n_ports)) {
	case NET_DENIED:
		sbx_buf_add(t, "; network: denied\n");
		return;
	case NET_FAIL_CLOSED:
		sbx_buf_add(t, "; network: managed, but no proxy on loopback is known: denied\n");
		return;
	case NET_ENABLED:
		sbx_buf_add(t, "; network: enabled\n(allow network-outbound)\n(allow "
			       "network-inbound)\n");
		break;
	case NET_ALLOWANCES:
		sbx_buf_add(t, p->managed_network ? "; network: managed: only the proxies, on "
						    "loopback\n"
						  : "; network: restricted, but for the allowances "
						    "below\n");
		break;
	}
	/* Binding is its own operation: even an enabled network does not allow it without this. */
	if (p->net.allow_local_binding)
		sbx_buf_add(t, "; local binding: bind, accept on loopback, connect to loopback\n"
			       "(allow network-bind (local ip \"*:*\"))\n"
			       "(allow network-inbound (local ip \"localhost:*\"))\n"
			       "(allow network-outbound (remote ip \"localhost:*\"))\n");
	if (p->managed_network) {
		for (size_t i = 0; i < n_ports; i++)
			sbx_buf_addf(t, "(allow network-outbound (remote ip \"localhost:%u\"))\n",
				     ports[i]);
	}
	emit_unix_sockets(g);
	sbx_buf_add(t, network_services_policy);
}

/*
 * TIOCSTI pushes bytes into a terminal's input queue: on the terminal the command shares with
 * the user's shell they would run as commands once sbxrun exits. The base policy allows the
 * other terminal ioctls (isatty, termios, window size); this request is denied last, after
 * every allowance, as Codex does. Its Darwin value is _IOW('t', 114, char) = 0x80017472.
 */
static const char tiocsti_policy[] =
	"; no typing into the terminal: TIOCSTI would queue input for the shell after exit\n"
	"(deny file-ioctl (ioctl-command TIOCSTI))\n";

int sbx_sbpl_build(const struct sbx_plan *p, const struct sbx_ctx *ctx, struct sbx_sbpl *out,
		   struct sbx_diag *d)
{
	struct gen g = {.p = p, .r = &p->roots, .ctx = ctx, .d = d};
	unsigned ports[2 * SBX_PROXY_VARS_N];
	size_t n_ports = sbx_proxies_ports(&p->net.proxies, ports);
	enum net_shape shape = net_shape(p, n_ports);
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < p->roots.n_unreadable && !rc; i++) {
		char *c = NULL;

		rc = need_abs(&g, "denied path", p->roots.unreadable[i]);
		if (!rc)
			rc = canon_full(p->roots.unreadable[i], &c);
		if (!rc && (strcmp(c, "/") == 0 || sbx_strv_has(&g.unreadable, c)))
			free(c);
		else if (!rc)
			rc = sbx_strv_push_owned(&g.unreadable, c);
	}
	if (!rc)
		rc = collect_write(&g);
	if (!rc)
		rc = inherit_nested(&g);
	if (!rc)
		rc = collect_read(&g);
	if (!rc)
		rc = collect_ancestors(&g);
	if (!rc)
		rc = collect_glob_matches(&g);
	/* Only the shapes that allow sockets name them (every parameter is used). */
	if (!rc && (shape == NET_ALLOWANCES || shape == NET_ENABLED) &&
	    !p->net.allow_all_unix_sockets)
		rc = collect_sockets(&g);
	if (!rc)
		rc = emit_params(&g);
	if (rc)
		goto fail;

	sbx_buf_add(&g.text, base_policy);
	emit_read(&g);
	emit_write(&g);
	emit_network(&g, ports, n_ports);
	if (p->roots.full_read)
		sbx_buf_add(&g.text, preferences_policy);
	if (p->roots.platform_defaults && !p->roots.full_read)
		sbx_buf_add(&g.text, platform_defaults_policy);
	/* From here on only denials: each must beat every allowance above it. */
	rc = emit_globs(&g);
	if (rc)
		goto fail;
	emit_denied(&g);
	emit_ancestors(&g);
	sbx_buf_add(&g.text, tiocsti_policy);

	out->policy = sbx_buf_steal(&g.text);
	if (!out->policy) {
		rc = -ENOMEM;
		goto fail;
	}
	out->params = g.params.v;
	out->n_params = g.params.n;
	memset(&g.params, 0, sizeof(g.params));
	gen_clear(&g);
	return 0;
fail:
	gen_clear(&g);
	sbx_sbpl_free(out);
	if (rc == -ENOMEM)
		sbx_diag_set(d, rc, "out of memory while generating the Seatbelt policy");
	return rc;
}

void sbx_sbpl_free(struct sbx_sbpl *s)
{
	if (!s)
		return;
	free(s->policy);
	for (size_t i = 0; i < s->n_params; i++)
		free(s->params[i]);
	free(s->params);
	memset(s, 0, sizeof(*s));
}

/* ---- argv ----------------------------------------------------------------------------------- */

/*
 * One allocation holds the pointer array and every string, so free(*argv_out) releases all.
 * The command's strings are copied too: the result stays valid whatever the caller frees.
 * An empty command gives the launcher up to its "--": what `explain` shows when it was given
 * none, as it does for Linux's helper; `run` never gets this far without one.
 */
int sbx_macos_argv(const struct sbx_sbpl *s, char *const cmd[], char ***argv_out, size_t *argc_out)
{
	size_t n_cmd = 0, argc, bytes, off;
	char **argv, *str;

	*argv_out = NULL;
	*argc_out = 0;
	if (!s->policy || !cmd)
		return -EINVAL;
	while (cmd[n_cmd])
		n_cmd++;
	argc = 3 + s->n_params + 1 + n_cmd;
	bytes = sizeof(SANDBOX_EXEC) + sizeof("-p") + strlen(s->policy) + 1 + sizeof("--");
	for (size_t i = 0; i < s->n_params; i++)
		bytes += 2 + strlen(s->params[i]) + 1;
	for (size_t i = 0; i < n_cmd; i++)
		bytes += strlen(cmd[i]) + 1;
	argv = malloc((argc + 1) * sizeof(*argv) + bytes);
	if (!argv)
		return -ENOMEM;
	str = (char *)(argv + argc + 1);
	off = 0;
#define PUT(i, prefix, s_)                                                                         \
	do {                                                                                       \
		argv[i] = str + off;                                                               \
		off += (size_t)sprintf(str + off, "%s%s", prefix, s_) + 1;                         \
	} while (0)
	PUT(0, "", SANDBOX_EXEC);
	PUT(1, "", "-p");
	PUT(2, "", s->policy);
	for (size_t i = 0; i < s->n_params; i++)
		PUT(3 + i, "-D", s->params[i]);
	PUT(3 + s->n_params, "", "--");
	for (size_t i = 0; i < n_cmd; i++)
		PUT(4 + s->n_params + i, "", cmd[i]);
#undef PUT
	argv[argc] = NULL;
	*argv_out = argv;
	*argc_out = argc;
	return 0;
}
