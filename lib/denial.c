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

static char *entry_desc(const struct sbx_entry *e)
{
	char *s = NULL;
	int n = -1;

	switch (e->kind) {
	case SBX_PATH:
		n = asprintf(&s, "%s %s", sbx_access_name(e->access), e->path);
		break;
	case SBX_GLOB:
		n = asprintf(&s, "%s glob %s", sbx_access_name(e->access), e->path);
		break;
	case SBX_SPECIAL:
		n = asprintf(&s, "%s :%s%s%s", sbx_access_name(e->access),
			     e->special == SBX_SP_PROJECT_ROOTS ? "workspace_roots"
								: sbx_special_name(e->special),
			     e->subpath ? "/" : "", e->subpath ? e->subpath : "");
		break;
	}
	return n < 0 ? NULL : s;
}

/* The deny glob that covers path (matches it or one of its ancestors), or -1. */
static long deny_glob_for(const struct sbx_fs *fs, const char *path)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];

		if (e->kind == SBX_GLOB && e->access == SBX_DENY && e->path && e->path[0] == '/' &&
		    sbx_glob_covers(e->path, path))
			return (long)i;
	}
	return -1;
}

/*
 * What git mode keeps in a git directory, by the path below it (rest: "" or starting with a
 * separator), as gitmode.c does on the file system: a name and why, or NULL. Lexical: the
 * directories under modules/ are taken for common directories, those under worktrees/ for
 * linked worktrees' (the layout git makes).
 */
static const char *git_kept(const char *rest)
{
	bool worktree = false;
	const char *s = rest;

	for (;;) {
		size_t n;

		while (sbx_path_is_sep(*s))
			s++;
		n = strcspn(s, "/\\");
#define IS(w) (n == sizeof(w) - 1 && strncmp(s, w, n) == 0)
		if (IS("commondir"))
			return "commondir (it sends git to another git directory)";
		if (IS("config.worktree"))
			return "config.worktree (it can name programs git runs)";
		if (!worktree && IS("config"))
			return "config (it can name programs git runs)";
		if (!worktree && IS("hooks"))
			return "hooks (git runs the programs in it)";
		if (worktree && IS("gitdir"))
			return "gitdir (it names the worktree's .git file)";
		if (!(IS("modules") || (!worktree && IS("worktrees"))) || !s[n] || !s[n + 1])
			return NULL;
		worktree = IS("worktrees");
#undef IS
		s += n + 1;
		s += strcspn(s, "/\\"); /* the submodule's or worktree's name */
	}
}

/*
 * Git mode as `access` sees it: from the profile alone (sbx_fs_roots() also follows a .git
 * file and commondir on the file system). Inside the .git of a writable entry's path, decided
 * there either by the write entry (whose protected name .git is) or by a read entry naming
 * that .git (as :workspace has), everything is writable but what git_kept() names; the entry is
 * worded as words has it (fs's entries one for one). Returns 1
 * when it decided out, 0 when git mode has no say, -ENOMEM.
 */
static int git_mode_rule(const struct sbx_fs *fs, const struct sbx_fs *words,
			 const struct sbx_ctx *ctx, const char *path, struct sbx_access_why *out)
{
	const struct sbx_entry *e = &fs->entries[out->entry];
	long writer = -1;
	char *t = NULL, *git = NULL, *desc = NULL;
	const char *kept;
	int n = 0;

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
	kept = git_kept(path + strlen(git));
	free(git);
	desc = entry_desc(&words->entries[writer]);
	if (!desc)
		return -ENOMEM;
	out->access = kept ? SBX_READ : SBX_WRITE;
	out->protected_name = kept != NULL;
	if (kept)
		n = asprintf(&out->rule,
			     "git mode keeps %s read-only, in .git under entries[%ld]: %s", kept,
			     writer, desc);
	else
		n = asprintf(&out->rule, "git mode: .git under entries[%ld]: %s", writer, desc);
	free(desc);
	if (n < 0)
		out->rule = NULL;
	return out->rule ? 1 : -ENOMEM;
}

int sbx_access_rule_in(const struct sbx_profile *p, const struct sbx_fs *decide,
		       const struct sbx_ctx *ctx, const char *path, struct sbx_access_why *out)
{
	const struct sbx_fs *fs = decide ? decide : &p->fs;
	char *desc = NULL;
	long g;

	memset(out, 0, sizeof(*out));
	out->access = SBX_WRITE;
	out->entry = -1;
	if (p->type == SBX_DISABLED || p->fs.kind == SBX_FS_UNRESTRICTED) {
		out->rule = strdup("unrestricted file system");
		return out->rule ? 0 : -ENOMEM;
	}
	if (p->fs.kind == SBX_FS_EXTERNAL) {
		out->rule = strdup("external sandbox: the file system is confined outside sbxrun");
		return out->rule ? 0 : -ENOMEM;
	}
	g = deny_glob_for(fs, path);
	if (g >= 0) {
		out->access = SBX_DENY;
		out->entry = g;
	} else {
		out->access = sbx_fs_resolve_access(fs, ctx, path, &out->entry);
	}
	/* The entries of decide stand for p's one for one: an index outside p's is none. */
	if (out->entry < 0 || (size_t)out->entry >= p->fs.n) {
		out->entry = -1;
		out->rule = strdup("no entry covers this path (default deny)");
		return out->rule ? 0 : -ENOMEM;
	}
	if (ctx->allow_git && g < 0) {
		int r = git_mode_rule(fs, &p->fs, ctx, path, out);

		if (r)
			return r < 0 ? r : 0;
	}
	desc = entry_desc(&p->fs.entries[out->entry]);
	if (!desc)
		return -ENOMEM;
	if (out->access == SBX_WRITE && g < 0 && !sbx_fs_can_write(fs, ctx, path)) {
		out->access = SBX_READ;
		out->protected_name = true;
		if (asprintf(&out->rule,
			     "protected metadata (.git, .agents, .codex) under entries[%ld]: %s",
			     out->entry, desc) < 0)
			out->rule = NULL;
	} else if (asprintf(&out->rule, "entries[%ld]: %s", out->entry, desc) < 0) {
		out->rule = NULL;
	}
	free(desc);
	return out->rule ? 0 : -ENOMEM;
}

int sbx_access_rule(const struct sbx_profile *p, const struct sbx_ctx *ctx, const char *path,
		    struct sbx_access_why *out)
{
	return sbx_access_rule_in(p, NULL, ctx, path, out);
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
		free(a.rule);
		return 0;
	}
	if (a.entry < 0)
		r = asprintf(why, "no entry grants read on %s", path);
	else
		r = asprintf(why, "%s is denied by %s", path, a.rule);
	free(a.rule);
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
