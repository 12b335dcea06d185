/* SPDX-License-Identifier: MIT */
/*
 * denial.c - which rule of a profile decides an access, in the words `sbxrun access` prints
 * ("entries[2]: deny /usr/bin", "no entry covers this path (default deny)"), and, when a program
 * cannot be executed, which rule refused it or its interpreter.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

/* The "minimal" readable set on Linux, where each one exists (sbxrun-profile(5), RESOLUTION). */
const char *const sbx_linux_minimal_paths[] = {
	"/bin",	     "/sbin",	   "/usr",	   "/etc",
	"/lib",	     "/lib64",	   "/nix/store",   "/run/current-system/sw",
	"/dev/null", "/dev/zero",  "/dev/urandom", "/dev/random",
	"/dev/tty",  "/proc/self", NULL,
};

/*
 * The host's nodes the sandbox's private /dev gives the command (platform/linux/devfs.c makes
 * them, ptmx as the new devpts's), NULL-terminated: a rule that names one of them reaches the
 * same node inside.
 */
const char *const sbx_linux_private_dev_nodes[] = {
	"/dev/null",	"/dev/zero", "/dev/full", "/dev/random",
	"/dev/urandom", "/dev/tty",  "/dev/ptmx", NULL,
};

/* Why a file the run read is kept read-only, the end of each such reason. */
#define KEPT_READ_ONLY                                                                             \
	" inside a writable root: kept read-only, so that the command cannot rewrite what its "    \
	"next run reads"

/*
 * One row per origin of a requirement, indexed by enum sbx_req_origin: its name in
 * explain --json, the rule access words for it and the reason explain gives. A rule's own
 * requirement (SBX_ORIGIN_RULE) has none of them.
 */
static const struct origin_row {
	const char *name, *rule, *reason;
} origins[] = {
	[SBX_ORIGIN_RULE] = {NULL, NULL, NULL},
	[SBX_ORIGIN_PROFILE_FILE] = {"profile-file", "read-only: the --profile file this run read",
				     "the profile file (--profile) this run read its permissions "
				     "from," KEPT_READ_ONLY},
	[SBX_ORIGIN_ADDITION_FILE] = {"add-permissions-file",
				      "read-only: an --add-permissions file this run read",
				      "an --add-permissions file this run read its permissions "
				      "from," KEPT_READ_ONLY},
	[SBX_ORIGIN_GIT_GLOBAL] = {"git-global-config", "read-only: the caller's global git config",
				   "the caller's global git config (or a file it includes), whose "
				   "commands git runs outside any sandbox, inside a writable root: "
				   "kept read-only, and from being created"},
	[SBX_ORIGIN_GIT_SYSTEM] =
		{"git-system-config", "read-only: the caller's system git config",
		 "the caller's system git config, whose commands every git of "
		 "the caller runs outside any sandbox, inside a writable root: kept "
		 "read-only, and from being created (an empty file while missing)"},
};

static const struct origin_row *origin_row(enum sbx_req_origin o)
{
	return (size_t)o < sizeof(origins) / sizeof(origins[0]) ? &origins[o] : &origins[0];
}

const char *sbx_origin_name(enum sbx_req_origin o)
{
	return origin_row(o)->name;
}

const char *sbx_origin_rule(enum sbx_req_origin o)
{
	return origin_row(o)->rule;
}

const char *sbx_origin_reason(enum sbx_req_origin o)
{
	return origin_row(o)->reason;
}

/*
 * Is path at or under /dev/shm, where a root is bound into the sandbox's private /dev (its shm
 * the host's tmpfs where the root is /dev/shm itself, else a private one holding the roots)?
 */
bool sbx_linux_private_shm(const char *path)
{
	/*
	 * sbx_path_covers("/dev/shm", path), asked of every mount op: most paths differ in their
	 * second byte, which is read only after the first is '/'.
	 */
	return path && path[0] == '/' && path[1] == 'd' && strncmp(path, "/dev/shm", 8) == 0 &&
	       (path[8] == '\0' || path[8] == '/');
}

/*
 * Does the private /dev hide the path a rule of this kind names? It holds the nodes of
 * sbx_linux_private_dev_nodes and the roots under /dev/shm, bound at the same paths.
 */
bool sbx_linux_dev_rule_kind(enum sbx_req_kind kind)
{
	switch (kind) {
	case SBX_REQ_READ:
	case SBX_REQ_WRITE:
	case SBX_REQ_READ_ONLY:
	case SBX_REQ_PROTECT_MISSING:
	case SBX_REQ_NO_CREATE:
		return true;
	default:
		return false;
	}
}

bool sbx_linux_private_dev_hides(enum sbx_req_kind kind, const char *path)
{
	if (!sbx_linux_dev_rule_kind(kind))
		return false;
	if (!path || !sbx_path_covers("/dev", path))
		return false;
	/* /dev itself read: what the command reads there is the private /dev, fewer nodes. */
	if (kind == SBX_REQ_READ && strcmp(path, "/dev") == 0)
		return false;
	if (sbx_linux_private_shm(path))
		return false;
	/* One of the nodes inside, or a name below one (a protected name of a node granted as a
	 * root), which nothing can create under a device either way. */
	for (size_t i = 0; sbx_linux_private_dev_nodes[i]; i++)
		if (sbx_path_covers(sbx_linux_private_dev_nodes[i], path))
			return false;
	return true;
}

/*
 * The deny glob that covers path (matches it or one of its ancestors), or -1. Linux expands
 * globs depth levels below their static prefix (0: no limit); macOS matches them at every
 * access, whatever the depth (Windows refuses deny globs).
 */
static long deny_glob_for(const struct sbx_fs *fs, unsigned depth, const char *path)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];

		if (e->kind == SBX_GLOB && e->access == SBX_DENY && e->path && e->path[0] == '/' &&
		    sbx_glob_covers_within(e->path, depth, path))
			return (long)i;
	}
	return -1;
}

/*
 * What git mode keeps in a git directory, by the path below it (rest: "" or starting with a
 * separator), as gitmode.c does on the file system: why, with *end the length of rest up to the
 * kept name's end, or NULL. Lexical: the directories under modules/ are taken for common
 * directories, those under worktrees/ for linked worktrees' (the layout git makes).
 */
static const char *git_kept(const char *rest, size_t *end)
{
	bool worktree = false;
	const char *s = rest;

	for (;;) {
		const char *why = NULL;
		size_t n;

		while (sbx_path_is_sep(*s))
			s++;
		n = strcspn(s, "/\\");
#define IS(w) (n == sizeof(w) - 1 && strncmp(s, w, n) == 0)
		if (IS("commondir"))
			why = "it sends git to another git directory";
		else if (IS("config.worktree"))
			why = "it can name programs git runs";
		else if (!worktree && IS("config"))
			why = "it can name programs git runs";
		else if (!worktree && IS("hooks"))
			why = "git runs the programs in it";
		else if (worktree && IS("gitdir"))
			why = "it names the worktree's .git file";
		if (why) {
			*end = (size_t)(s - rest) + n;
			return why;
		}
		if (!(IS("modules") || (!worktree && IS("worktrees"))) || !s[n] || !s[n + 1])
			return NULL;
		worktree = IS("worktrees");
#undef IS
		s += n + 1;
		s += strcspn(s, "/\\"); /* the submodule's or worktree's name */
	}
}

/*
 * Is the protected name, or the name git mode keeps, at path missing: kept from being created
 * by the backend (a point, sbx_ctx.points), whose empty object there stands for the name
 * missing? A look-up that fails says nothing: the words then do not claim it missing.
 */
static bool missing_name(const struct sbx_ctx *ctx, const char *path, bool git)
{
	struct sbx_pathinfo in;
	const char *holds = NULL;
	bool dir, yes = false;

	if (sbx_ctx_lookup(ctx, path, &in, NULL))
		return false;
	if (!in.exists && !in.is_link)
		return true;
	dir = in.type == SBX_FT_DIR;
	if (!ctx->points || (git && !sbx_git_point(path, &dir, &holds)))
		return false;
	return sbx_ctx_is_point(ctx, path, &in, dir, holds, &yes, NULL) == 0 && yes;
}

/*
 * Git mode as the entries alone have it (what sbx_fs_roots() finds by following a .git file and
 * commondir on the file system, sbx_access_rule() adds). Inside the .git of a writable entry's
 * path, decided there either by the write entry (whose protected name .git is) or by a read entry
 * naming that .git (as :workspace has), everything is writable but what git_kept() names. Returns 1
 * when it decided out, 0 when git mode has no say, -ENOMEM.
 */
static int git_mode_rule(const struct sbx_fs *fs, const struct sbx_ctx *ctx, const char *path,
			 struct sbx_access_why *out)
{
	const struct sbx_entry *e = &fs->entries[out->entry];
	long writer = -1;
	char *t = NULL, *git = NULL, *at = NULL;
	const char *kept;
	size_t end = 0, glen;

	if (sbx_entry_resolve(e, ctx, &t, NULL) || !t)
		return 0;
	if (e->access == SBX_WRITE && !sbx_fs_can_write(fs, ctx, path)) {
		writer = out->entry;
		if (sbx_path_join_any(t, ".git", &git))
			git = NULL;
	} else if (e->access == SBX_READ) {
		size_t len = sbx_path_parent_len(t, strlen(t));
		char *parent = len ? strndup(t, len) : NULL;
		const char *base = t + len + (len && !sbx_path_is_sep(t[len - 1]));

		if (parent && strcmp(base, ".git") == 0 && sbx_fs_can_write(fs, ctx, parent)) {
			sbx_fs_resolve_access(fs, ctx, parent, &writer);
			git = strdup(t);
		}
		free(parent);
	}
	free(t);
	if (!git || writer < 0 || !sbx_path_covers_any(git, path)) {
		free(git);
		return 0;
	}
	glen = strlen(git);
	kept = git_kept(path + glen, &end);
	out->entry = writer;
	/* git ends in ".git": the name is worded from there ("hooks": ".git/hooks"). */
	out->name = strndup(path + glen - 4, 4 + (kept ? end : 0));
	if (kept) {
		out->kind = SBX_RULE_GIT_KEPT;
		out->access = SBX_READ;
		out->protected_name = true;
		out->reason = kept;
		at = strndup(path, glen + end);
		out->missing = at && missing_name(ctx, at, true);
	} else {
		out->kind = SBX_RULE_GIT_WRITE;
		out->access = SBX_WRITE;
	}
	free(at);
	free(git);
	return out->name ? 1 : -ENOMEM;
}

/*
 * The protected name (sbx_protected_names) that path is or lies in, as the first name below a
 * writable entry: that entry's index with *at the name's path (malloc'd), or -1.
 */
static long protected_under(const struct sbx_fs *fs, const struct sbx_ctx *ctx, const char *path,
			    char **at)
{
	long found = -1;

	*at = NULL;
	for (size_t i = 0; i < fs->n && found < 0; i++) {
		char *t = NULL;
		size_t end;

		if (fs->entries[i].access != SBX_WRITE ||
		    sbx_entry_resolve(&fs->entries[i], ctx, &t, NULL) || !t)
			continue;
		if (sbx_path_protected_below(t, path, &end)) {
			*at = strndup(path, end);
			found = *at ? (long)i : -1;
		}
		free(t);
	}
	return found;
}

/*
 * A read entry that decided path, looked at where it lies: a protected name of a writable
 * entry (".git" of :workspace), a carve-out inside one, or neither (a readable root).
 */
static int read_entry_rule(const struct sbx_fs *fs, const struct sbx_ctx *ctx,
			   struct sbx_access_why *out)
{
	size_t len;
	char *t = NULL, *parent = NULL;
	const char *base;

	if (sbx_entry_resolve(&fs->entries[out->entry], ctx, &t, NULL) || !t)
		return 0;
	len = sbx_path_parent_len(t, strlen(t));
	parent = len ? strndup(t, len) : NULL;
	base = t + len + (len && !sbx_path_is_sep(t[len - 1]));
	if (parent && sbx_fs_resolve_access(fs, ctx, parent, NULL) == SBX_WRITE) {
		out->kind = SBX_RULE_CARVE_OUT;
		if (sbx_is_protected_name(base, strlen(base))) {
			out->kind = SBX_RULE_PROTECTED;
			out->protected_name = true;
			out->name = strdup(base);
			if (!out->name) {
				free(parent);
				free(t);
				return -ENOMEM;
			}
			out->missing = missing_name(ctx, t, false);
		}
	}
	free(parent);
	free(t);
	return 0;
}

/* What an entry names, as written: "/usr/bin", "glob PATTERN", ":workspace_roots/src". */
static char *entry_target(const struct sbx_entry *e)
{
	char *s = NULL;
	int n = -1;

	switch (e->kind) {
	case SBX_PATH:
		n = asprintf(&s, "%s", e->path);
		break;
	case SBX_GLOB:
		n = asprintf(&s, "glob %s", e->path);
		break;
	case SBX_SPECIAL:
		n = asprintf(&s, ":%s%s%s",
			     e->special == SBX_SP_PROJECT_ROOTS ? "workspace_roots"
								: sbx_special_name(e->special),
			     e->subpath ? "/" : "", e->subpath ? e->subpath : "");
		break;
	}
	return n < 0 ? NULL : s;
}

char *sbx_rule_words(const struct sbx_profile *p, const struct sbx_access_why *w)
{
	const struct sbx_entry *e;
	const char *missing = w->missing ? "; missing: cannot be created" : "";
	char *target, *s = NULL;
	int n = -1;

	switch (w->kind) {
	case SBX_RULE_UNRESTRICTED:
		return strdup("unrestricted file system");
	case SBX_RULE_EXTERNAL:
		return strdup("external sandbox: the file system is confined outside sbxrun");
	case SBX_RULE_DEFAULT:
		return strdup("no entry covers this path (default deny)");
	default:
		break;
	}
	if (w->entry < 0 || (size_t)w->entry >= p->fs.n)
		return strdup("no entry covers this path (default deny)");
	e = &p->fs.entries[w->entry];
	target = entry_target(e);
	if (!target)
		return NULL;
	switch (w->kind) {
	case SBX_RULE_CARVE_OUT:
		n = asprintf(&s, "entries[%ld]: read-only %s", w->entry, target);
		break;
	case SBX_RULE_PROTECTED:
		if (w->reason) /* a directory protected for what names it, not by its name */
			n = asprintf(&s, "entries[%ld]: %s %s (protected: %s, in write %s%s)",
				     w->entry, w->access == SBX_DENY ? "deny" : "read-only",
				     w->name, w->reason, target, missing);
		else if (e->access == SBX_WRITE) /* the name lies in this writable entry */
			n = asprintf(&s, "entries[%ld]: read-only %s (protected, in write %s%s)",
				     w->entry, w->name ? w->name : "metadata", target, missing);
		else
			n = asprintf(&s, "entries[%ld]: read-only %s (protected%s)", w->entry,
				     w->name ? w->name : target, missing);
		break;
	case SBX_RULE_GIT_KEPT:
		n = asprintf(&s, "entries[%ld]: read-only %s (git mode: %s%s)", w->entry, w->name,
			     w->reason, missing);
		break;
	case SBX_RULE_GIT_WRITE:
		n = asprintf(&s, "entries[%ld]: write %s (git mode, in write %s)", w->entry,
			     w->name, target);
		break;
	default:
		n = asprintf(&s, "entries[%ld]: %s %s", w->entry, sbx_access_name(e->access),
			     target);
		break;
	}
	free(target);
	return n < 0 ? NULL : s;
}

/* The verb of each requirement of a path, in the words of `explain` and of a refusal. */
static const char *req_verb(enum sbx_req_kind k)
{
	switch (k) {
	case SBX_REQ_READ:
		return "read";
	case SBX_REQ_WRITE:
		return "write";
	case SBX_REQ_READ_ONLY:
		return "read-only";
	case SBX_REQ_PROTECT_MISSING:
	case SBX_REQ_NO_CREATE:
		return "no-create";
	case SBX_REQ_DENY:
		return "deny";
	case SBX_REQ_DENY_GLOB:
		return "deny glob";
	default:
		return NULL;
	}
}

/*
 * A plan of 10,000 paths would hold each path twice if it kept "VERB PATH" beside the path: the
 * rule of a path's requirement is written only when it is read, which is once, if ever.
 */
const char *sbx_req_rule(const struct sbx_req *r, char buf[SBX_REQ_RULE_MAX])
{
	const char *verb = req_verb(r->kind);

	if (r->rule || !verb || !r->path)
		return r->rule ? r->rule : "(rule)";
	snprintf(buf, SBX_REQ_RULE_MAX, "%s %s", verb, r->path);
	return buf;
}

void sbx_access_why_free(struct sbx_access_why *w)
{
	free(w->rule);
	free(w->name);
	w->rule = w->name = NULL;
}

int sbx_access_rule_in(const struct sbx_profile *p, const struct sbx_fs *decide,
		       const struct sbx_ctx *ctx, const char *path, struct sbx_access_why *out)
{
	const struct sbx_fs *fs = decide ? decide : &p->fs;
	int r = 0;
	long g;

	memset(out, 0, sizeof(*out));
	out->access = SBX_WRITE;
	out->entry = -1;
	out->kind = SBX_RULE_DEFAULT;
	if (p->type == SBX_DISABLED || p->fs.kind == SBX_FS_UNRESTRICTED) {
		out->kind = SBX_RULE_UNRESTRICTED;
		goto words;
	}
	if (p->fs.kind == SBX_FS_EXTERNAL) {
		out->kind = SBX_RULE_EXTERNAL;
		goto words;
	}
	g = deny_glob_for(fs, ctx && ctx->platform == SBX_PLATFORM_MACOS ? 0 : p->fs.glob_depth,
			  path);
	if (g >= 0) {
		out->access = SBX_DENY;
		out->entry = g;
	} else {
		out->access = sbx_fs_resolve_access(fs, ctx, path, &out->entry);
	}
	/* The entries of decide stand for p's one for one: an index outside p's is none. */
	if (out->entry < 0 || (size_t)out->entry >= p->fs.n) {
		out->entry = -1;
		goto words;
	}
	out->kind = SBX_RULE_ENTRY;
	if (ctx->allow_git && g < 0) {
		r = git_mode_rule(fs, ctx, path, out);
		if (r)
			goto words;
	}
	if (out->access == SBX_WRITE && g < 0 && !sbx_fs_can_write(fs, ctx, path)) {
		char *at = NULL;
		long w = protected_under(fs, ctx, path, &at);

		out->access = SBX_READ;
		out->kind = SBX_RULE_PROTECTED;
		out->protected_name = true;
		if (w >= 0) {
			const char *b = at + strlen(at);

			while (b > at && !sbx_path_is_sep(b[-1]))
				b--;
			out->entry = w;
			out->name = strdup(b);
			r = out->name ? 0 : -ENOMEM;
			out->missing = missing_name(ctx, at, false);
		}
		free(at);
	} else if (out->access == SBX_READ && g < 0) {
		r = read_entry_rule(fs, ctx, out);
	}
words:
	if (r >= 0)
		out->rule = sbx_rule_words(p, out);
	if (r < 0 || !out->rule) {
		sbx_access_why_free(out);
		return -ENOMEM;
	}
	return 0;
}

/*
 * What the plan's roots (sbx_fs_roots(), which run enforces) keep of a path the entries alone
 * let be written: the carve-outs git's own directories add (the git directory a .git file
 * names, a worktree's common directory, submodules', the names git mode keeps), the names that
 * must not be created, the paths denied. Of the roots, carve-outs, denied and uncreatable paths
 * that cover path, the deepest decides, as with the mounts of the Linux backend (a deeper
 * writable root re-opens a carve-out of a shallower one). NULL when the roots let path be
 * written; else what keeps it, with *how its access and *missing set.
 */
struct kept {
	const char *at; /* the deepest of the paths below that covers path */
	size_t len;
	enum sbx_access how;
	bool missing;
};

static void take_deepest(struct kept *k, char *const *list, size_t n, const char *path,
			 enum sbx_access how, bool missing)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(list[i]);

		/* At one path a carve-out is taken over the root it is of. */
		if ((!k->at || l >= k->len) && sbx_path_covers_any(list[i], path))
			*k = (struct kept){list[i], l, how, missing};
	}
}

static const char *roots_keep(const struct sbx_roots *roots, const char *path, enum sbx_access *how,
			      bool *missing)
{
	struct kept k = {.how = SBX_WRITE};

	for (size_t i = 0; i < roots->n_writable; i++)
		take_deepest(&k, &roots->writable[i].root, 1, path, SBX_WRITE, false);
	for (size_t i = 0; i < roots->n_writable; i++) {
		const struct sbx_writable_root *w = &roots->writable[i];

		take_deepest(&k, w->read_only, w->n_read_only, path, SBX_READ, false);
		take_deepest(&k, w->no_create.v, w->no_create.n, path, SBX_READ, true);
	}
	take_deepest(&k, roots->unreadable, roots->n_unreadable, path, SBX_DENY, false);
	*how = k.how;
	*missing = k.missing;
	return k.how == SBX_WRITE ? NULL : k.at;
}

/* Why the roots keep at (roots_keep()), a path that is no protected name of a writable root. */
static const char *kept_reason(const struct sbx_ctx *ctx, const char *at, enum sbx_access how)
{
	size_t len = strlen(at), pl = sbx_path_parent_len(at, len), end;
	const char *base = at + pl + (pl && !sbx_path_is_sep(at[pl - 1]));
	char rest[64];

	if (how == SBX_DENY)
		return "git would take a git directory made there";
	if (ctx->allow_git) {
		const char *why;

		/* gitmode.c keeps names of a git directory: worded by the name, as git_kept(). */
		if (strcmp(base, "gitdir") == 0)
			return "it names the worktree's .git file";
		snprintf(rest, sizeof(rest), "/%s", base);
		why = git_kept(rest, &end);
		if (why)
			return why;
	}
	/* A git directory (a .git file's, a common one, a submodule's) or a checkout's .git. */
	return "git takes hooks and config from there";
}

int sbx_access_rule(const struct sbx_profile *p, const struct sbx_roots *roots,
		    const struct sbx_ctx *ctx, const char *path, struct sbx_access_why *out)
{
	int r = sbx_access_rule_in(p, NULL, ctx, path, out);
	enum sbx_access how;
	const char *at, *base;
	size_t len, pl;
	bool missing, name;

	if (r || !roots || out->access != SBX_WRITE ||
	    (out->kind != SBX_RULE_ENTRY && out->kind != SBX_RULE_GIT_WRITE))
		return r;
	at = roots_keep(roots, path, &how, &missing);
	if (!at)
		return 0;
	len = strlen(at);
	pl = sbx_path_parent_len(at, len);
	base = at + pl + (pl && !sbx_path_is_sep(at[pl - 1]));
	/* A protected name of a writable root (a .git file, in git mode) is worded as one. */
	name = false;
	for (size_t i = 0; i < roots->n_writable && !name; i++)
		name = strlen(roots->writable[i].root) == pl &&
		       strncmp(roots->writable[i].root, at, pl) == 0 &&
		       sbx_is_protected_name(base, strlen(base)) && how == SBX_READ;
	free(out->rule);
	free(out->name);
	out->rule = NULL;
	out->access = how;
	out->kind = SBX_RULE_PROTECTED;
	out->protected_name = true;
	out->name = strdup(name ? base : at);
	out->reason = name ? NULL : kept_reason(ctx, at, how);
	out->missing = missing;
	out->rule = out->name ? sbx_rule_words(p, out) : NULL;
	if (!out->rule) {
		sbx_access_why_free(out);
		return -ENOMEM;
	}
	return 0;
}

int sbx_read_rule(const struct sbx_plan *p, const struct sbx_fs *decide, const struct sbx_ctx *ctx,
		  const char *path, const char *const *minimal, struct sbx_access_why *out)
{
	int r = sbx_access_rule_in(&p->profile, decide, ctx, path, out);

	if (r == 0 && out->access == SBX_DENY && out->entry < 0 && p->roots.platform_defaults)
		for (size_t i = 0; minimal && minimal[i]; i++)
			if (sbx_path_covers(minimal[i], path))
				out->access = SBX_READ; /* the :minimal set grants it */
	return r;
}

/* ---- programs that cannot be executed ------------------------------------------------------ */

static uint64_t get_uint(const unsigned char *b, size_t n, bool big_endian)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)b[big_endian ? n - 1 - i : i] << (8 * i);
	return v;
}

/* An ELF file's PT_INTERP, when its program headers and the string lie within buf. */
static int elf_interp(const unsigned char *buf, size_t len, char *out, size_t size)
{
	bool is64 = buf[4] == 2, be = buf[5] == 2;
	uint64_t phoff, phentsize, phnum;

	if ((buf[4] != 1 && buf[4] != 2) || (buf[5] != 1 && buf[5] != 2) ||
	    len < (is64 ? 64u : 52u))
		return -EINVAL;
	phoff = get_uint(buf + (is64 ? 32 : 28), is64 ? 8 : 4, be);
	phentsize = get_uint(buf + (is64 ? 54 : 42), 2, be);
	phnum = get_uint(buf + (is64 ? 56 : 44), 2, be);
	if (phentsize < (is64 ? 56u : 32u))
		return phnum ? -EINVAL : -ENOENT;
	for (uint64_t i = 0; i < phnum; i++) {
		uint64_t at = phoff + i * phentsize, off, n;

		if (phoff > len || i * phentsize > len || at + phentsize > len)
			return -EINVAL;
		if (get_uint(buf + at, 4, be) != 3 /* PT_INTERP */)
			continue;
		off = get_uint(buf + at + (is64 ? 8 : 4), is64 ? 8 : 4, be);
		n = get_uint(buf + at + (is64 ? 32 : 16), is64 ? 8 : 4, be);
		if (off > len || n > len - off || n == 0 || n > size || buf[off + n - 1] != 0)
			return -EINVAL;
		memcpy(out, buf + off, n);
		return out[0] ? 0 : -EINVAL;
	}
	return -ENOENT; /* statically linked */
}

int sbx_exec_interpreter(const unsigned char *buf, size_t len, char *out, size_t size)
{
	if (!size)
		return -EINVAL;
	out[0] = 0;
	if (len >= 2 && buf[0] == '#' && buf[1] == '!') {
		size_t i = 2, n = 0;

		/* The kernel's reading: blanks, then the interpreter up to a blank or the line's end. */
		while (i < len && (buf[i] == ' ' || buf[i] == '\t'))
			i++;
		while (i + n < len && buf[i + n] && !strchr(" \t\n", buf[i + n]))
			n++;
		if (!n || n >= size)
			return -EINVAL;
		memcpy(out, buf + i, n);
		out[n] = 0;
		return 0;
	}
	if (len >= 6 && memcmp(buf, "\177ELF", 4) == 0)
		return elf_interp(buf, len, out, size);
	return -ENOENT;
}

/* Is path readable under the plan? The rule that refuses it in why, else why NULL. */
static int readable(const struct sbx_plan *p, const struct sbx_ctx *ctx, const char *path,
		    const char *const *minimal, char **why)
{
	struct sbx_access_why a;
	int r = sbx_read_rule(p, NULL, ctx, path, minimal, &a);

	*why = NULL;
	if (r)
		return r;
	if (a.access != SBX_DENY) {
		sbx_access_why_free(&a);
		return 0;
	}
	if (a.entry < 0)
		r = asprintf(why, "no entry grants read on %s", path);
	else
		r = asprintf(why, "%s is denied by %s", path, a.rule);
	sbx_access_why_free(&a);
	if (r < 0) {
		*why = NULL;
		return -ENOMEM;
	}
	return 0;
}

int sbx_exec_refusal(const struct sbx_plan *p, const struct sbx_ctx *ctx,
		     const char *const paths[SBX_EXEC_PATHS], const char *const *minimal,
		     char **why, const char **refused)
{
	*why = NULL;
	*refused = NULL;
	if (!p->sandbox_requested)
		return 0;
	for (size_t i = 0; i < SBX_EXEC_PATHS; i++) {
		char *w = NULL;
		int r;

		if (!paths[i] || paths[i][0] != '/')
			continue;
		r = readable(p, ctx, paths[i], minimal, &w);
		if (r)
			return r;
		if (!w)
			continue;
		if (i >= 2) {
			if (asprintf(why, "its interpreter: %s", w) < 0)
				*why = NULL;
			free(w);
			if (!*why)
				return -ENOMEM;
		} else {
			*why = w;
		}
		*refused = paths[i];
		return 1;
	}
	return 0;
}
