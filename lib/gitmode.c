/* SPDX-License-Identifier: MIT */
/*
 * gitmode.c - git's own pointer files, and git mode (--allow-git, sbxrun(1) GIT MODE): which
 * files of a repository's git directories stay read-only, or must not be created, while the
 * rest of them is writable to the command.
 *
 * What stays out of the command's reach is what makes git run code or look somewhere else:
 *  - in a common directory (a git directory without a commondir file: a repository's own, a
 *    submodule's): hooks/ (git runs them), config and config.worktree (they name programs:
 *    core.fsmonitor, core.hooksPath, alias.*, filter and diff drivers, include.path);
 *  - in every git directory: commondir, which makes git take hooks, config, objects and refs
 *    from the directory it names (planted in a repository's own git directory it redirects
 *    all of them);
 *  - in a linked worktree's (one with a commondir file): config.worktree, and gitdir, which
 *    names the worktree's .git file (git worktree remove deletes the directory that holds it;
 *    a missing one is not kept from being made: git worktree prune removes such a worktree);
 *  - the .git file of each worktree and submodule checkout, which names its git directory.
 * A file git reads there that is missing must not be created either: those are returned apart.
 *
 * Git keeps a git directory per submodule under modules/ and per linked worktree under
 * worktrees/, and they nest: the walk finds every one from the git directory of a writable
 * root, as the file system holds them at start (a directory the command makes during the run
 * is its own, and protected from the next run on). A symbolic link among them is refused: git
 * would follow it to a directory the command could swap. A directory that is no git directory
 * to git (sbx_git_is_gitdir) is kept whole: the command could make it one where a .git file
 * already points. One under modules/ is searched for submodules' git directories, and so is a
 * submodule's git directory (but for git's own subdirectories): the command could have made the
 * directory around a nested one a git directory too.
 *
 * The file system is read through the context's view only; a look-up that fails other than by
 * absence is an error, never "missing".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

#define HEX "0123456789abcdefABCDEF"

/* git's isspace(): no vertical tab or form feed. */
static bool git_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Bytes of s[0..n) left once trailing newlines and carriage returns are dropped. */
static size_t strip_newlines(const char *s, size_t n)
{
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return n;
}

/*
 * Adds s[0..n) to lines as one reading, up to its first NUL (git takes the path as a C
 * string): an empty one is the directory that holds the file to git ("." to sbx_git_join).
 */
static int add_reading(char *lines[SBX_GIT_READINGS], int *n, const char *s, size_t len)
{
	char *v;

	len = strnlen(s, len);
	v = len ? strndup(s, len) : strdup(".");
	if (!v)
		return -ENOMEM;
	for (int i = 0; i < *n; i++)
		if (strcmp(lines[i], v) == 0) {
			free(v);
			return 0;
		}
	lines[(*n)++] = v;
	return 0;
}

/*
 * The readings of a file's text t (got bytes, NUL-terminated past them) of kind, as git 2.39
 * reads each (setup.c, worktree.c) and, for a .git file, as the profile semantics do.
 */
static int readings(enum sbx_git_file kind, const char *t, size_t got,
		    char *lines[SBX_GIT_READINGS], int *n, int *by_git)
{
	size_t len = strip_newlines(t, got), a = 0, b;
	int r = 0;

	*by_git = SBX_GIT_READINGS; /* every reading is git's but for a .git file's */
	switch (kind) {
	case SBX_GIT_COMMONDIR:
		/* An empty file git cannot read (it stops); "\n" is its own directory. */
		return got ? add_reading(lines, n, t, len) : 0;
	case SBX_GIT_DOTGIT:
		/* git: "gitdir: " exactly, then the rest up to the newlines at the end. */
		if (strnlen(t, 8) == 8 && memcmp(t, "gitdir: ", 8) == 0 && len > 8)
			r = add_reading(lines, n, t + 8, len - 8);
		*by_git = *n; /* the profile semantics' reading, when another, comes after */
		/* The profile semantics: blanks trimmed around the line and after the colon. */
		if (r || memchr(t, '\0', got))
			return r;
		while (a < got && git_space(t[a]))
			a++;
		for (b = got; b > a && git_space(t[b - 1]); b--)
			;
		if (b - a < 7 || memcmp(t + a, "gitdir:", 7) != 0)
			return 0;
		for (a += 7; a < b && (t[a] == ' ' || t[a] == '\t'); a++)
			;
		return a < b ? add_reading(lines, n, t + a, b - a) : 0;
	case SBX_GIT_GITDIR:
		/* worktree list and remove: trailing blanks dropped; prune: newlines only. */
		for (b = got; b && git_space(t[b - 1]); b--)
			;
		if (b)
			r = add_reading(lines, n, t, b);
		return r || !len ? r : add_reading(lines, n, t, len);
	}
	return 0;
}

int sbx_git_read_lines(const struct sbx_ctx *ctx, const char *file, enum sbx_git_file kind,
		       const char *why, size_t max, char *lines[SBX_GIT_READINGS],
		       struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	size_t got = 0;
	char *buf;
	int r, n = 0, by_git = 0;

	for (int i = 0; i < SBX_GIT_READINGS; i++)
		lines[i] = NULL;
	if (!(buf = malloc(max + 2)))
		return -ENOMEM;
	r = v->read_file(v->self, file, buf, max + 1, &got);
	if (r == -ENOENT || r == -EINVAL) {
		free(buf);
		return 0; /* missing, or not a regular file: it points nowhere */
	}
	if (r == 0 && got > max) {
		/*
		 * Not read whole: git reads all of it, so what lies past the buffer may still
		 * name a path. Never taken for nothing there.
		 */
		if (d) {
			sbx_diag_set(d, SBX_E_TOO_BIG,
				     "%s is over %zu bytes, the most sbxrun reads of a file git "
				     "keeps one path in: it cannot tell what the file names",
				     file, max);
			sbx_diag_hint(d, SBX_E_TOO_BIG,
				      "%s; write there the one line git writes, or remove it", why);
		}
		r = SBX_E_TOO_BIG;
	} else if (r < 0 && d && r != -ENOMEM) {
		sbx_diag_set(d, r, "cannot read %s: %s", file, strerror(-r));
		sbx_diag_hint(d, r, "%s; restore access to it", why);
	}
	if (!r) {
		buf[got] = '\0';
		r = readings(kind, buf, got, lines, &n, &by_git);
	}
	free(buf);
	/*
	 * A line break left in a path is none git writes, and no name sbxrun takes to protect:
	 * the file is refused rather than read as pointing nowhere (git would take that path).
	 * A .git file git rejects ("gitdir:" without the blank) names a path to the profile
	 * semantics only, which hold no such name either: refused all the same, so worded.
	 */
	for (int i = 0; !r && i < n; i++)
		if (strpbrk(lines[i], "\n\r")) {
			if (i < by_git)
				sbx_diag_set(
					d, SBX_E_UNENFORCEABLE,
					"%s: the path git reads there holds a line break (a "
					"newline or carriage return before its end), which git "
					"never writes",
					file);
			else
				sbx_diag_set(
					d, SBX_E_UNENFORCEABLE,
					"%s: the path it names (read as a profile reads a .git "
					"file, blanks trimmed: git takes it for no .git file) "
					"holds a line break, which git never writes",
					file);
			r = sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
					  "%s; write there the one line git writes (the path, then "
					  "a newline), or remove it",
					  why);
		}
	if (r < 0) {
		for (int i = 0; i < n; i++) {
			free(lines[i]);
			lines[i] = NULL;
		}
		return r;
	}
	return n;
}

/*
 * Git resolves the paths in its files (gitdir:, commondir, core.worktree) through the kernel,
 * each time it runs: a ".." goes up from wherever the path so far leads then. Leading ".."s
 * take back the directory that holds the file and its parents, which is where the file was
 * read. A ".." after a name of the text goes up from whatever that name is when git runs, later
 * and outside: the command could make it a symbolic link meanwhile, which no look-up now can
 * foresee, and git would take another directory than the one protected. Such a path is
 * refused without looking at the file system (git writes none); the rest joins lexically,
 * which is then exact.
 */
int sbx_git_join(const char *from, const char *base, const char *text, char **out,
		 struct sbx_diag *d)
{
	const char *seps = sbx_path_is_posix_abs(base) ? "/" : "/\\";
	bool named = false;

	*out = NULL;
	for (const char *c = text; *c;) {
		size_t n = strcspn(c, seps);

		if (n == 2 && c[0] == '.' && c[1] == '.' && named) {
			sbx_diag_set(
				d, SBX_E_UNENFORCEABLE,
				"%s names %s, whose \"..\" follows a name: git would go up "
				"from wherever that name leads when it runs, which the command "
				"could change",
				from, text);
			return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
					     "write the path there without \"..\" after a name, as "
					     "git writes it");
		}
		if (n && !(n == 1 && c[0] == '.') && !(n == 2 && c[0] == '.' && c[1] == '.'))
			named = true;
		c += n;
		c += strspn(c, seps);
	}
	return sbx_path_join_any(base, text, out);
}

/* ---- core.worktree of a submodule's config ------------------------------------------------ */

/*
 * The most of a git config file read. Git writes a few hundred bytes, but a repository's own
 * config grows by a section per remote and per tracked branch, and the workspace's is read on
 * every start: 64 KiB would refuse real clones. Past this it is refused all the same (git would
 * read it whole). Read into the heap only past the first 4 KiB, and a block this size is a map
 * whose pages are touched only as far as the file goes.
 */
#define GIT_CONFIG_MAX (1024 * 1024)

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static bool is_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '-';
}

static bool same_word(const char *s, size_t n, const char *word)
{
	if (strlen(word) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((s[i] | 0x20) != word[i])
			return false;
	return true;
}

/* Git skips a UTF-8 byte order mark at the start of a config file (config.c). */
static const char *skip_bom(const char *s, size_t *len)
{
	if (*len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
		*len -= 3;
		return s + 3;
	}
	return s;
}

/*
 * One value of a config line at s, as git reads it (quotes, the escapes \" \\ \n \t \b, a
 * backslash continuing the line, a comment after # or ;, spaces around it dropped), into out;
 * *end is where the line ends. 1 when read, 0 when git itself would refuse it, -1 when git would
 * take it but it is longer than size - 1 bytes (out holds its start).
 */
static int config_value(const char *s, const char *lim, const char **end, char *out, size_t size)
{
	size_t n = 0, spaces = 0;
	bool quoted = false, ok = true, cut = false;

	while (s < lim && is_space(*s))
		s++;
	for (; s < lim; s++) {
		char c = *s;

		if (c == '\n' && !quoted)
			break;
		if (c == '\n' || (!quoted && (c == '#' || c == ';'))) {
			ok = ok && !quoted;
			while (s < lim && *s != '\n')
				s++;
			break;
		}
		/* Git drops blanks until the value holds something: "" x is "x". */
		if (is_space(c) && !quoted) {
			spaces += n > 0;
			continue;
		}
		if (c == '"') {
			quoted = !quoted;
			continue;
		}
		if (c == '\\') {
			/*
			 * Git reads a carriage return and newline as a newline, and the end of the
			 * file as one: either after a backslash continues the line.
			 */
			if (++s + 1 < lim && s[0] == '\r' && s[1] == '\n')
				s++;
			if (s >= lim)
				break;
			c = *s;
			if (c == '\n')
				continue;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'b' ? '\b' : c;
			ok = ok && strchr("\n\t\b\"\\", c) && c;
		}
		for (; n + 1 < size && spaces; spaces--)
			out[n++] = ' ';
		if (n + 1 < size)
			out[n++] = c;
		else
			cut = true;
	}
	out[n] = '\0';
	*end = s;
	if (!ok || quoted)
		return 0;
	return cut ? -1 : 1;
}

/* One key = value line of a config file, with the section it is in (config_each). */
struct config_line {
	const char *section; /* the section's name up to a subsection or "]" */
	size_t section_n;
	bool bare; /* "]" right after the name: no subsection, no ".x" */
	const char *key;
	size_t key_n;
	const char *val; /* as git reads it (config_value), cut to the caller's buffer */
	int got;	 /* 1 read whole, -1 longer than the buffer */
};

/* git would read nothing of the file from the line config_each stopped at. */
#define CONFIG_REFUSED 1

/*
 * Calls each(arg, line) for every key = value line of a config file's text, in order, as git
 * parses them: a byte order mark skipped, comments, section headers (a quoted subsection may hold
 * "]", \" and \\), a boolean key without "=" left out. Values are read into val (size bytes).
 * Returns the first nonzero each returns, CONFIG_REFUSED at a line git refuses (each has seen
 * every line before it), or 0. The one walker of both readers below, so that git's parsing is
 * followed in one place.
 */
static int config_each(const char *s, size_t len, char *val, size_t size,
		       int (*each)(void *, const struct config_line *), void *arg)
{
	struct config_line l = {0};
	const char *lim;

	s = skip_bom(s, &len);
	lim = s + len;
	while (s < lim) {
		int r;

		if (is_space(*s) || *s == '\n') {
			s++;
			continue;
		}
		if (*s == '#' || *s == ';') {
			while (s < lim && *s != '\n')
				s++;
			continue;
		}
		if (*s == '[') {
			for (l.section = ++s; s < lim && is_key_char(*s); s++)
				;
			l.section_n = (size_t)(s - l.section);
			l.bare = s < lim && *s == ']';
			/* A quoted subsection may hold "]" (and \" and \\): up to the one after it. */
			for (bool q = false; s < lim && *s != '\n' && (q || *s != ']'); s++) {
				if (q && *s == '\\' && s + 1 < lim && s[1] != '\n')
					s++;
				else if (*s == '"')
					q = !q;
			}
			if (s < lim && *s == ']')
				s++;
			continue;
		}
		for (l.key = s; s < lim && is_key_char(*s); s++)
			;
		l.key_n = (size_t)(s - l.key);
		while (s < lim && is_space(*s))
			s++;
		if (!l.key_n || s >= lim || *s != '=') {
			while (s < lim && *s != '\n') /* a boolean, or not a key: no path */
				s++;
			continue;
		}
		l.got = config_value(s + 1, lim, &s, val, size);
		if (!l.got)
			return CONFIG_REFUSED;
		l.val = val;
		if ((r = each(arg, &l)))
			return r;
	}
	return 0;
}

/* ---- what a config includes ----------------------------------------------------------------- */

struct include_key {
	int (*each)(void *, const char *);
	void *arg;
};

/*
 * [include] path, and [includeIf "..."] path in any case; the older [includeif.x] too, which
 * git takes for includeif.x: a name of this kind is never anything else.
 */
static int on_include_key(void *arg, const struct config_line *l)
{
	const struct include_key *k = arg;
	bool in_include = (l->bare && same_word(l->section, l->section_n, "include")) ||
			  (!l->bare && same_word(l->section, l->section_n, "includeif"));

	if (!in_include || !same_word(l->key, l->key_n, "path"))
		return 0;
	if (l->got < 0)
		return SBX_E_TOO_BIG;
	return l->val[0] ? k->each(k->arg, l->val) : 0;
}

/*
 * Calls each(arg, value) for every include.path and includeIf.<condition>.path of a config
 * file's text, in order, as git reads them (config_value). Every condition counts: which holds
 * when git runs (the branch checked out, a remote's URL) the command may decide. Stops at the
 * first error each returns; SBX_E_TOO_BIG for a value longer than SBX_MAX_PATH bytes; nothing
 * more at a line git refuses (git then runs nothing with the file: what came before is kept all
 * the same, which is no less).
 */
static int config_includes(const char *s, size_t len, int (*each)(void *, const char *), void *arg)
{
	char val[SBX_MAX_PATH + 1];
	struct include_key k = {.each = each, .arg = arg};
	int r = config_each(s, len, val, sizeof(val), on_include_key, &k);

	return r == CONFIG_REFUSED ? 0 : r;
}

struct includes {
	const char *file, *home;
	size_t dir; /* bytes of file that name its directory */
	struct sbx_strv *out;
	struct sbx_diag *d;
};

/* One include path of in->file, as git expands and joins it, appended to in->out. */
static int add_include(void *arg, const char *val)
{
	struct includes *in = arg;
	char *dir, *p = NULL;
	int r;

	/*
	 * Git expands "~/" with the HOME of whoever runs it, later and outside (config.c,
	 * interpolate_path): the caller's, when sbxrun was told it (sbx_ctx.home). "~user" and
	 * "%(prefix)" (where that git is installed) are not known here.
	 */
	if (in->home && (!strcmp(val, "~") || !strncmp(val, "~/", 2)))
		r = sbx_path_join(in->home, val[1] ? val + 2 : "", &p);
	else if (val[0] == '~' || strncmp(val, "%(prefix)/", 10) == 0) {
		sbx_diag_set(
			in->d, SBX_E_UNENFORCEABLE,
			"%s includes %s (include.path or includeIf), which git expands when it "
			"runs: sbxrun cannot tell which file that is, to keep it read-only",
			in->file, val);
		return sbx_diag_hint(in->d, SBX_E_UNENFORCEABLE,
				     "write the file's full path there (git config include.path "
				     "/path/to/file)");
	} else if (!(dir = strndup(in->file, in->dir))) {
		return -ENOMEM;
	} else {
		r = sbx_git_join(in->file, dir, val, &p, in->d);
		free(dir);
	}
	if (!r)
		r = sbx_strv_add_unique(in->out, p);
	free(p);
	return r;
}

int sbx_git_config_includes(const struct sbx_ctx *ctx, const char *file, struct sbx_strv *out,
			    struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	/* Only an absolute HOME: git would join a relative one to wherever it runs. */
	struct includes in = {.file = file,
			      .home = ctx->home && sbx_path_is_posix_abs(ctx->home) ? ctx->home
										    : NULL,
			      .out = out,
			      .d = d};
	char small[4096], *text = small, *big = NULL;
	size_t got = 0;
	int r = v->read_file(v->self, file, small, sizeof(small), &got);

	if (!r && got == sizeof(small)) {
		text = big = malloc(GIT_CONFIG_MAX + 1);
		r = big ? v->read_file(v->self, file, big, GIT_CONFIG_MAX + 1, &got) : -ENOMEM;
	}
	in.dir = sbx_path_parent_len(file, strlen(file));
	if (r == -ENOENT || r == -EINVAL || r == -ENOTDIR)
		r = 0; /* no config there (a directory git cannot read): it includes nothing */
	else if (r && r != -ENOMEM)
		r = sbx_diag_set(d, r, "cannot read %s: %s", file, strerror(-r));
	else if (!r && got > GIT_CONFIG_MAX)
		r = SBX_E_TOO_BIG;
	else if (!r && !in.dir)
		r = 0;
	else if (!r)
		r = config_includes(text, got, add_include, &in);
	if (r == SBX_E_TOO_BIG) {
		sbx_diag_set(
			d, r,
			"%s: it is over %d bytes, or a path it includes over %d, the most sbxrun "
			"reads, so it cannot tell which files it includes (include.path)",
			file, GIT_CONFIG_MAX, SBX_MAX_PATH);
		sbx_diag_hint(d, r,
			      "what a git config sbxrun keeps (a protected git directory's, "
			      "the caller's global one) includes must be kept read-only: "
			      "shorten the file");
	}
	free(big);
	return r;
}

/* ---- the walk ------------------------------------------------------------------------------- */

struct gitwalk {
	const struct sbx_ctx *ctx;
	struct sbx_strv dirs;	 /* git directories found: a queue, and what was seen */
	struct sbx_strv modules; /* those found under a modules/ directory */
	struct sbx_strv *keep, *missing, *gone;
	struct sbx_diag *d;
	const char *root; /* walked as a git directory whatever it holds (sbx_git_root_paths) */
};

/* A failed read or listing ("read", "list"), worded in d. */
static int walk_error(struct gitwalk *w, int r, const char *what, const char *path)
{
	if (r == -ENOMEM)
		return sbx_diag_set(w->d, r, "out of memory");
	return sbx_diag_set(w->d, r, "cannot %s %s: %s", what, path, strerror(-r));
}

/*
 * The names git mode keeps from being created, and what git takes for each one missing: a mount
 * point of that shape at it changes nothing to git. A missing commondir is the git directory
 * itself to git, as is one naming "."; an empty one git refuses.
 */
static const struct {
	const char *name;
	bool dir;
	const char *holds;
} git_points[] = {
	{"hooks", true, ""},
	{"config", false, ""},
	{"config.worktree", false, ""},
	{"commondir", false, ".\n"},
	/* A submodule checkout's: an empty directory is no repository. */
	{".git", true, ""},
	/*
	 * The caller's global config (sbx_git_globals_keep): ~/.gitconfig, and the directory of
	 * ~/.config/git/config, which git reads nothing from empty.
	 */
	{".gitconfig", false, ""},
	{"git", true, ""},
	/*
	 * And the system one, /etc/gitconfig: git dies on a system config it cannot read
	 * (config.c, access_or_die without ACCESS_EACCES_OK), so a mask there would stop every
	 * git the command runs.
	 */
	{"gitconfig", false, ""},
};

bool sbx_git_point(const char *path, bool *dir, const char **holds)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;

	for (size_t i = 0; i < sizeof(git_points) / sizeof(git_points[0]); i++)
		if (strcmp(name, git_points[i].name) == 0) {
			*dir = git_points[i].dir;
			*holds = git_points[i].holds;
			return true;
		}
	return false;
}

bool sbx_git_checkout_point(const char *path)
{
	size_t n = strlen(path);

	return n >= 5 && strcmp(path + n - 4, ".git") == 0 &&
	       (path[n - 5] == '/' || path[n - 5] == '\\');
}

/*
 * Git's test (is_git_directory): HEAD a symbolic link to refs/..., or a file starting "ref:",
 * blanks and "refs/", or an object id in hex; objects/ and refs/ in the common directory.
 * Where git would look past what the view shows (HEAD a link or no regular file, the objects and
 * refs of a worktree's common directory, an access() of one that is there), the answer is yes:
 * a git directory is walked, its checkout and what it holds kept, which protects no less.
 */
/* The HEAD half of git's test, of the file at file (sbx_git_is_gitdir). */
static int head_valid(const struct sbx_ctx *ctx, const char *file, bool *yes, struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	struct sbx_pathinfo in;
	char head[256]; /* git reads no more of HEAD for this test either */
	size_t got = 0, i = 0;
	int r = sbx_ctx_lookup(ctx, file, &in, d);

	*yes = false;
	if (!r && in.exists && !in.is_link && in.type == SBX_FT_REG) {
		r = v->read_file(v->self, file, head, sizeof(head) - 1, &got);
		if (r == -ENOENT || r == -EINVAL)
			r = got = 0;
		else if (r && r != -ENOMEM)
			r = sbx_diag_set(d, r, "cannot read %s: %s", file, strerror(-r));
		head[got] = '\0';
		if (!r && got >= 4 && memcmp(head, "ref:", 4) == 0)
			i = 4 + strspn(head + 4, " \t\n\r");
		*yes = (i && strncmp(head + i, "refs/", 5) == 0) || strspn(head, HEX) >= 40;
	} else if (!r) {
		*yes = in.exists || in.is_link;
	}
	return r;
}

int sbx_git_is_gitdir(const struct sbx_ctx *ctx, const char *dir, bool *yes, struct sbx_diag *d)
{
	static const char *const need[] = {"commondir", "objects", "refs"};
	struct sbx_pathinfo in;
	char *file = NULL;
	int r = sbx_path_join_any(dir, "HEAD", &file);

	*yes = false;
	if (!r)
		r = head_valid(ctx, file, yes, d);
	/* commondir names where the rest lies: taken as there. */
	for (size_t k = 0; !r && *yes && k < 3; k++) {
		free(file);
		file = NULL;
		r = sbx_path_join_any(dir, need[k], &file);
		if (!r)
			r = sbx_ctx_lookup(ctx, file, &in, d);
		if (!r && (in.exists || in.is_link) && k == 0)
			break;
		if (!r && k > 0)
			*yes = in.exists || in.is_link;
	}
	free(file);
	return r;
}

bool sbx_git_own_subdir(const char *name)
{
	/*
	 * What git, and the tools that keep their data in a git directory, make there. A name
	 * missing here costs a walk (and, in git mode, that directory kept whole); one too many
	 * would hide a submodule of that name's git directory nested there.
	 */
	static const char *const own[] = {
		"annex",   "branches", "hooks",	       "info",	       "lfs",	    "logs",
		"modules", "objects",  "rebase-apply", "rebase-merge", "refs",	    "reftable",
		"remotes", "rr-cache", "sequencer",    "svn",	       "worktrees",
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcmp(name, own[i]) == 0)
			return true;
	return false;
}

/*
 * dir/name, which git reads: kept read-only when there is anything at it (a dangling link too),
 * and else, unless creatable, not to be created. With points (sbx_ctx.points), what a mount
 * point at that name is (another run's, or one a killed run left) stands for the missing name:
 * planned as missing, it is taken or made again by the points protocol, never held as a file of
 * the user's that may be gone by the time the sandbox is built. Returns whether it exists (1, 0)
 * or a negative code.
 */
static int protect(struct gitwalk *w, const char *dir, const char *name, bool creatable)
{
	struct sbx_pathinfo in;
	const char *holds;
	bool point = false, pdir;
	char *p = NULL;
	int r = sbx_path_join_any(dir, name, &p);

	/* Each step returns 0 or a negative code; in is read only once the look-up filled it. */
	if (r < 0)
		goto out;
	r = sbx_ctx_lookup(w->ctx, p, &in, w->d);
	if (r < 0)
		goto out;
	/*
	 * Kept read-only, a link there still leads where the command writes (the directory it
	 * lies in is the command's too, in git mode): git would follow it.
	 */
	if (in.is_link && w->root) {
		sbx_diag_set(w->d, SBX_E_UNENFORCEABLE,
			     "%s is a symbolic link, which git follows: in a writable root that is "
			     "a git directory (a bare repository), the command could repoint it",
			     p);
		r = sbx_diag_hint(w->d, SBX_E_UNENFORCEABLE,
				  "put what it leads to there instead of the link, or name the "
				  "repository read-only");
		goto out;
	}
	if (in.is_link) {
		sbx_diag_set(w->d, SBX_E_UNENFORCEABLE,
			     "git mode: %s is a symbolic link, which git follows: in a git "
			     "directory the command may write, it could repoint it",
			     p);
		r = sbx_diag_hint(w->d, SBX_E_UNENFORCEABLE,
				  "put what it leads to there instead of the link, or run without "
				  "--allow-git");
		goto out;
	}
	if (!creatable && w->ctx->points && sbx_git_point(p, &pdir, &holds))
		r = sbx_ctx_is_point(w->ctx, p, &in, pdir, holds, &point, w->d);
	if (r < 0)
		goto out;
	if ((in.exists || in.is_link) && !point)
		r = sbx_strv_add_unique(w->keep, p) ? -ENOMEM : 1;
	else if (!creatable)
		r = sbx_strv_add_unique(w->missing, p) ? -ENOMEM : 0;
out:
	free(p);
	return r;
}

/*
 * The .git of a checkout, named by path in the file from (absolute or relative to dir): read-only
 * if there.
 */
static int protect_checkout(struct gitwalk *w, const char *from, const char *dir, const char *path,
			    const char *git)
{
	struct sbx_pathinfo in;
	char *p = NULL, *q = NULL;
	int r = sbx_git_join(from, dir, path, &p, w->d);

	if (!r && git)
		r = sbx_path_join_any(p, git, &q);
	if (!r)
		r = sbx_ctx_lookup(w->ctx, q ? q : p, &in, w->d);
	if (!r && (in.exists || in.is_link))
		r = sbx_strv_add_unique(w->keep, q ? q : p);
	free(p);
	free(q);
	return r;
}

static int enqueue(struct gitwalk *w, const char *dir, bool module)
{
	int r;

	if (sbx_strv_has(&w->dirs, dir))
		return 0;
	if (w->dirs.n >= SBX_MAX_GIT_DIRS) {
		/* Named with where it lies: one run can fill modules/, refusing every later one. */
		int len = (int)sbx_path_parent_len(dir, strlen(dir));

		sbx_diag_set(w->d, SBX_E_TOO_BIG,
			     "git mode: more than %d git directories (submodules and worktrees): "
			     "%s is one too many",
			     SBX_MAX_GIT_DIRS, dir);
		return sbx_diag_hint(
			w->d, SBX_E_TOO_BIG,
			"remove the ones no longer used from %.*s (git submodule deinit, "
			"git worktree prune, then the directory), or run without "
			"--allow-git",
			len, dir);
	}
	r = sbx_strv_push(&w->dirs, dir);
	if (!r && module)
		r = sbx_strv_push(&w->modules, dir);
	return r;
}

struct listing {
	struct gitwalk *w;
	const char *parent;
	bool module, skip_own; /* skip_own: git's own subdirectories (sbx_git_own_subdir) */
	int err;
};

static int list_one(void *arg, const char *name, enum sbx_ftype type)
{
	struct listing *l = arg;
	char *p = NULL;
	int r;

	if ((type != SBX_FT_DIR && type != SBX_FT_LINK) ||
	    (l->skip_own && sbx_git_own_subdir(name)))
		return 0;
	r = sbx_path_join_any(l->parent, name, &p);
	if (!r && type == SBX_FT_LINK) {
		sbx_diag_set(l->w->d, SBX_E_UNENFORCEABLE,
			     "git mode: %s is a symbolic link: git would follow it to a git "
			     "directory the command could swap",
			     p);
		r = sbx_diag_hint(l->w->d, SBX_E_UNENFORCEABLE,
				  "put the directory there instead of the link, or run without "
				  "--allow-git");
	} else if (!r) {
		r = enqueue(l->w, p, l->module);
	}
	free(p);
	l->err = r;
	return r ? 1 : 0;
}

/*
 * The git directories in dir/sub (modules or worktrees), or in dir itself when sub is NULL (but
 * for git's own subdirectories with skip_own).
 */
static int list_gitdirs(struct gitwalk *w, const char *dir, const char *sub, bool module,
			bool skip_own)
{
	const struct sbx_fsview *v = sbx_ctx_fs(w->ctx);
	struct listing l = {.w = w, .module = module, .skip_own = skip_own};
	char *p = NULL;
	int r = sub ? sbx_path_join_any(dir, sub, &p) : (p = strdup(dir)) ? 0 : -ENOMEM;

	if (r)
		return r;
	l.parent = p;
	r = v->list(v->self, p, list_one, &l);
	if (l.err)
		r = l.err;
	else if (r == -ENOENT || r == -ENOTDIR)
		r = 0;
	else if (r)
		r = walk_error(w, r < 0 ? r : -EACCES, "list", p);
	free(p);
	return r;
}

/*
 * A config git would read that sbxrun cannot read whole: it may name a checkout past what was
 * read, so it is never taken for one that names none: refused, in d, with what broke which
 * limit.
 */
static int too_big(struct sbx_diag *d, const char *file, const char *what, int limit,
		   const char *which)
{
	sbx_diag_set(d, SBX_E_TOO_BIG,
		     "%s: %s over %d bytes, %s, so sbxrun cannot tell which checkout it names "
		     "(core.worktree)",
		     file, what, limit, which);
	return sbx_diag_hint(d, SBX_E_TOO_BIG,
			     "the .git of that checkout must be protected: shorten the file (a "
			     "remote or branch no longer used is a section git config "
			     "--remove-section drops), or remove the whole git directory if it is "
			     "no repository of yours");
}

/* core.worktree and extensions.objectFormat, both in one pass (sbx_git_config_parse). */
static int on_config_key(void *arg, const struct config_line *l)
{
	struct sbx_git_config *c = arg;

	if (!l->bare)
		return 0;
	if (same_word(l->section, l->section_n, "core") &&
	    same_word(l->key, l->key_n, "worktree")) {
		if (l->got < 0)
			c->worktree = SBX_E_TOO_BIG; /* unless git refuses the file further on */
		else if (l->val[0]) {
			memcpy(c->tree, l->val, strlen(l->val) + 1);
			c->worktree = 1;
		}
	} else if (same_word(l->section, l->section_n, "extensions") &&
		   same_word(l->key, l->key_n, "objectformat")) {
		/* Git takes these two names exactly (hash_algo_by_name); any other, it refuses. */
		c->hashsz = l->got > 0 && !strcmp(l->val, "sha256") ? 32
			    : l->got > 0 && !strcmp(l->val, "sha1") ? 20
								    : 0;
	}
	return 0;
}

void sbx_git_config_parse(const char *text, size_t len, struct sbx_git_config *out)
{
	char val[SBX_MAX_PATH + 1]; /* on the stack: under musl a heap block this size is a map */

	out->worktree = 0;
	out->hashsz = 20; /* git's own, where the config names none */
	out->tree[0] = '\0';
	if (config_each(text, len, val, sizeof(val), on_config_key, out) == CONFIG_REFUSED) {
		out->worktree = 0; /* a config git refuses names no checkout */
		out->hashsz = 0;   /* and git reads no index of this repository */
		out->tree[0] = '\0';
	}
}

/* options.strategy of a sequencer's opts file (sbx_git_sequencer_strategy). */
struct opts_strategy {
	char *out;
	size_t size;
	int got;
};

static int on_opts_key(void *arg, const struct config_line *l)
{
	struct opts_strategy *o = arg;
	size_t n;

	if (!l->bare || !same_word(l->section, l->section_n, "options") ||
	    !same_word(l->key, l->key_n, "strategy"))
		return 0;
	/*
	 * The last one named is git's: cut, it is no name of git's own whatever it starts with,
	 * and its start is what out holds (not an earlier line's name).
	 */
	n = (size_t)snprintf(o->out, o->size, "%s", l->val);
	o->got = l->got < 0 || n >= o->size ? 2 : 1;
	return 0;
}

int sbx_git_sequencer_strategy(const char *text, size_t len, char *out, size_t size)
{
	char val[1024];
	struct opts_strategy o = {.out = out, .size = size};

	out[0] = '\0';
	if (config_each(text, len, val, sizeof(val), on_opts_key, &o) == CONFIG_REFUSED)
		return -EINVAL;
	return o.got;
}

void sbx_git_configs_free(struct sbx_git_configs *c)
{
	for (size_t i = 0; c && i < c->n; i++) {
		free(c->v[i].dir);
		free(c->v[i].tree);
	}
	if (c)
		free(c->v);
}

/* Keeps what dir's config names in ctx's configs (when it keeps any): read no more. */
static int config_keep(const struct sbx_ctx *ctx, const char *dir, const struct sbx_git_config *c)
{
	struct sbx_git_configs *k = ctx->git_configs;
	struct sbx_git_config_kept e = {.worktree = c->worktree, .hashsz = c->hashsz};

	if (!k)
		return 0;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 4;
		void *v = realloc(k->v, cap * sizeof(*k->v));

		if (!v)
			return -ENOMEM;
		k->v = v;
		k->cap = cap;
	}
	e.dir = strdup(dir);
	e.tree = c->worktree == 1 ? strdup(c->tree) : NULL;
	if (!e.dir || (c->worktree == 1 && !e.tree)) {
		free(e.dir);
		free(e.tree);
		return -ENOMEM;
	}
	k->v[k->n++] = e;
	return 0;
}

/*
 * What the git directory dir's config names (sbx_git_config_parse), read once a plan where ctx
 * keeps the configs: one no-follow read, one size limit, one set of errors for both readers.
 * No config, or none git would read (a directory), names nothing; one that cannot be read, or
 * is over GIT_CONFIG_MAX, is an error in d.
 */
static int git_config(const struct sbx_ctx *ctx, const char *dir, struct sbx_git_config *c,
		      struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	const struct sbx_git_configs *k = ctx->git_configs;
	/*
	 * The config git writes is a few hundred bytes: it is read on the stack, and only a longer
	 * one again into a heap block that holds the largest taken. Under musl a block of
	 * GIT_CONFIG_MAX is a map and an unmap.
	 */
	char small[4096], *file = NULL, *text = small, *big = NULL;
	size_t got = 0;
	int r;

	for (size_t i = 0; k && i < k->n; i++) {
		if (strcmp(k->v[i].dir, dir))
			continue;
		c->worktree = k->v[i].worktree;
		c->hashsz = k->v[i].hashsz;
		snprintf(c->tree, sizeof(c->tree), "%s", k->v[i].tree ? k->v[i].tree : "");
		return 0;
	}
	r = sbx_path_join_any(dir, "config", &file);
	if (!r)
		r = v->read_file(v->self, file, small, sizeof(small), &got);
	if (!r && got == sizeof(small)) {
		text = big = malloc(GIT_CONFIG_MAX + 1);
		r = big ? v->read_file(v->self, file, big, GIT_CONFIG_MAX + 1, &got) : -ENOMEM;
	}
	if (r == -ENOENT || r == -EINVAL) {
		got = 0; /* no config git would read: it names nothing */
		r = 0;
	} else if (r && r != -ENOMEM) {
		r = sbx_diag_set(d, r, "cannot read %s: %s", file, strerror(-r));
	} else if (!r && got > GIT_CONFIG_MAX) {
		r = too_big(d, file, "it is", GIT_CONFIG_MAX,
			    "the most sbxrun reads of a git config");
	}
	if (!r)
		sbx_git_config_parse(text, got, c);
	if (!r)
		r = config_keep(ctx, dir, c);
	free(file);
	free(big);
	return r;
}

int sbx_git_checkout(const struct sbx_ctx *ctx, const char *dir, char **dotgit, struct sbx_diag *d)
{
	struct sbx_git_config c;
	char *file = NULL, *at = NULL;
	int r = git_config(ctx, dir, &c, d);

	*dotgit = NULL;
	if (r || !c.worktree)
		return r;
	r = sbx_path_join_any(dir, "config", &file);
	if (!r && c.worktree < 0)
		r = too_big(d, file, "its core.worktree is", SBX_MAX_PATH,
			    "the longest path sbxrun takes");
	else if (!r && !(r = sbx_git_join(file, dir, c.tree, &at, d)))
		r = sbx_path_join_any(at, ".git", dotgit);
	/* r is 0 here when the config names no checkout, negative when it could not be read. */
	free(file);
	free(at);
	return r;
}

int sbx_git_object_hash(const struct sbx_ctx *ctx, const char *dir, size_t *hashsz,
			struct sbx_diag *d)
{
	struct sbx_git_config c;
	int r = git_config(ctx, dir, &c, d);

	*hashsz = r ? 20 : c.hashsz;
	return r;
}

static int stop_at_one(void *arg, const char *name, enum sbx_ftype type)
{
	(void)name;
	(void)type;
	*(bool *)arg = false;
	return 1;
}

/*
 * Does the directory dir hold nothing? A directory closed to the caller is taken for one that
 * holds something (nothing is known of it); a listing that fails is an error in d.
 */
int sbx_git_list_empty(const struct sbx_ctx *ctx, const char *dir, bool *empty, struct sbx_diag *d)
{
	const struct sbx_fsview *v = sbx_ctx_fs(ctx);
	int r;

	*empty = true;
	r = v->list(v->self, dir, stop_at_one, empty);
	/* An entry, or closed to the caller (SBX_FS_CLOSED): the command's as little. */
	if (r == 1) {
		*empty = false;
		return 0;
	}
	if (r && r != -ENOMEM) {
		*empty = false;
		sbx_diag_set(d, r < 0 ? r : -EACCES, "cannot list %s: %s", dir,
			     strerror(r < 0 ? -r : EACCES));
		return r < 0 ? r : -EACCES;
	}
	return r;
}

int sbx_git_keep_checkout(const struct sbx_ctx *ctx, const char *gitdir, struct sbx_strv *keep,
			  struct sbx_strv *missing, struct sbx_strv *gone, struct sbx_diag *d)
{
	struct sbx_pathinfo in, up;
	const char *holds;
	bool point = false, pdir, empty = false;
	char *dotgit = NULL, *parent = NULL;
	size_t len;
	int r = sbx_git_checkout(ctx, gitdir, &dotgit, d);

	if (r || !dotgit)
		return r;
	r = sbx_ctx_lookup(ctx, dotgit, &in, d);
	/*
	 * What a mount point is there (another run's, held by the points protocol only while
	 * that run lasts) stands for the name missing, as in protect(): kept read-only as the
	 * user's, it would vanish with that run, and the command could make the name.
	 */
	if (!r && ctx->points && sbx_git_point(dotgit, &pdir, &holds))
		r = sbx_ctx_is_point(ctx, dotgit, &in, pdir, holds, &point, d);
	if (r)
		goto out;
	if ((in.exists || in.is_link) && !point) {
		r = sbx_strv_add_unique(keep, dotgit) ? -ENOMEM : 0;
		goto out;
	}
	len = sbx_path_parent_len(dotgit, strlen(dotgit));
	if (!len)
		goto out;
	if (!(parent = strndup(dotgit, len))) {
		r = -ENOMEM;
		goto out;
	}
	r = sbx_ctx_lookup(ctx, parent, &up, d);
	if (r)
		goto out;
	/*
	 * An empty checkout directory (a clone without its submodules, one deinitialised) is
	 * kept read-only whole: git takes it for a submodule not checked out, where it dies on an
	 * empty directory mounted at the .git ("not recognized as a git repository"), so that git
	 * status would fail inside. One holding files keeps its .git from being made by a point
	 * there. One that is missing, or no directory, the command could make: the .git is denied
	 * instead, whose mask at the first missing name keeps the checkout directory itself from
	 * being made.
	 */
	if (up.exists && !up.is_link && up.type == SBX_FT_DIR)
		r = sbx_git_list_empty(ctx, parent, &empty, d);
	if (!r && empty)
		r = sbx_strv_add_unique(keep, parent) ? -ENOMEM : 0;
	else if (!r && up.exists && !up.is_link && up.type == SBX_FT_DIR)
		r = sbx_strv_add_unique(missing, dotgit) ? -ENOMEM : 0;
	else if (!r)
		r = sbx_strv_add_unique(gone, dotgit) ? -ENOMEM : 0;
out:
	free(dotgit);
	free(parent);
	return r;
}

/*
 * The worktree's .git file that dir/gitdir names (none when it is missing) is kept, as each of
 * git's readings of that file names it.
 */
static int keep_worktree_checkout(struct gitwalk *w, const char *dir)
{
	char *lines[SBX_GIT_READINGS], *file = NULL;
	int r = sbx_path_join_any(dir, "gitdir", &file), n = 0;

	if (!r)
		r = n = sbx_git_read_lines(
			w->ctx, file, SBX_GIT_GITDIR,
			"it names the .git file of a worktree, which must be protected",
			SBX_MAX_PATH, lines, w->d);
	for (int i = 0; r >= 0 && i < n; i++)
		r = protect_checkout(w, file, dir, lines[i], NULL);
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(file);
	return r < 0 ? r : 0;
}

static int walk_one(struct gitwalk *w, const char *dir, bool module)
{
	char *lines[SBX_GIT_READINGS] = {NULL}, *file = NULL, *common = NULL;
	struct sbx_pathinfo in;
	bool gitdir;
	int r, has_common;

	/*
	 * A directory git takes for no git directory (sbx_git_is_gitdir) the command could make
	 * one (a HEAD, a config of its own) where a .git file already points: kept whole, and so
	 * is the checkout it names. Under modules/ it may hold git directories of submodules
	 * whose names have a slash (git names one by its path: modules/lib/a for lib/a), whose
	 * checkouts are looked for too.
	 */
	r = sbx_git_is_gitdir(w->ctx, dir, &gitdir, w->d);
	if (r)
		return r;
	/* A writable root kept whole would be no writable root: its names are kept instead. */
	if (!gitdir && w->root && strcmp(dir, w->root) == 0)
		gitdir = true;
	if (!gitdir) {
		r = sbx_strv_add_unique(w->keep, dir) ? -ENOMEM : 0;
		if (!r && module)
			r = sbx_git_keep_checkout(w->ctx, dir, w->keep, w->missing, w->gone, w->d);
		if (!r && module)
			r = list_gitdirs(w, dir, NULL, true, false);
		/*
		 * One an earlier run spoilt (a HEAD of junk, refs/ removed) still names what git
		 * used it for: its submodules' and worktrees' git directories, and the .git file
		 * a worktree's gitdir names, are looked for as in one that passes.
		 */
		if (!r && !module)
			r = list_gitdirs(w, dir, "modules", true, false);
		if (!r)
			r = list_gitdirs(w, dir, "worktrees", false, false);
		return r ? r : keep_worktree_checkout(w, dir);
	}
	has_common = protect(w, dir, "commondir", false);
	if (has_common < 0)
		return has_common;
	r = sbx_path_join_any(dir, "commondir", &file);
	if (!r && has_common)
		r = sbx_git_read_lines(w->ctx, file, SBX_GIT_COMMONDIR,
				       "it names the git directory whose hooks and "
				       "config must be protected",
				       SBX_MAX_PATH, lines, w->d);
	if (r == 1)
		r = sbx_git_join(file, dir, lines[0], &common, w->d);
	free(lines[0]);
	/* One naming its own directory (".") changes nothing to git: dir is a common one still. */
	if (!r && common && strcmp(common, dir) == 0)
		has_common = 0;
	if (!r && common)
		r = sbx_ctx_lookup(w->ctx, common, &in, w->d);
	if (!r && common && in.exists && in.type == SBX_FT_DIR)
		r = enqueue(w, common, false);
	free(file);
	free(common);
	if (r)
		return r;
	if (!has_common) {
		if ((r = protect(w, dir, "hooks", false)) < 0 ||
		    (r = protect(w, dir, "config", false)) < 0 ||
		    (r = protect(w, dir, "config.worktree", false)) < 0)
			return r;
	} else {
		/*
		 * A worktree without gitdir is one git worktree prune removes: it names nothing
		 * to protect, and one made now would only name a .git file of the command's.
		 */
		if ((r = protect(w, dir, "config.worktree", false)) < 0 ||
		    (r = protect(w, dir, "gitdir", true)) < 0)
			return r;
		if (r == 1 && (r = keep_worktree_checkout(w, dir)) < 0)
			return r;
	}
	if (module && (r = sbx_git_keep_checkout(w->ctx, dir, w->keep, w->missing, w->gone, w->d)))
		return r;
	if ((r = list_gitdirs(w, dir, "modules", true, false)))
		return r;
	/*
	 * Git will not put a submodule's git directory in another's, but the command may make
	 * the one around it a git directory to git: the nested one is git's still.
	 */
	if (module && (r = list_gitdirs(w, dir, NULL, true, true)))
		return r;
	return list_gitdirs(w, dir, "worktrees", false, false);
}

static int walk_all(struct gitwalk *w, const char *gitdir)
{
	int r = enqueue(w, gitdir, false);

	for (size_t i = 0; !r && i < w->dirs.n; i++)
		r = walk_one(w, w->dirs.v[i], sbx_strv_has(&w->modules, w->dirs.v[i]));
	sbx_strv_clear(&w->dirs);
	sbx_strv_clear(&w->modules);
	if (r == -ENOMEM)
		sbx_diag_set(w->d, r, "out of memory");
	return r;
}

int sbx_git_mode_paths(const struct sbx_ctx *ctx, const char *gitdir, struct sbx_strv *keep,
		       struct sbx_strv *missing, struct sbx_strv *gone, struct sbx_diag *d)
{
	struct gitwalk w = {.ctx = ctx, .keep = keep, .missing = missing, .gone = gone, .d = d};

	return walk_all(&w, gitdir);
}

/*
 * A writable root that is itself a git directory (a bare repository, a workspace opened in a
 * .git) has no .git to keep: git reads its hooks and config from the root itself. It is one
 * when its HEAD passes git's test of a HEAD (a link, or a file naming a ref or an object; a
 * file named HEAD holding anything else is the user's, and git never takes the directory for a
 * repository): git's whole test (sbx_git_is_gitdir) also wants objects/ and refs/, which the
 * command may remove in one run and make again in the next once nothing is kept. HEAD is kept
 * read-only with the rest, so that no run can stop the next from seeing it.
 */
int sbx_git_root_paths(const struct sbx_ctx *ctx, const char *root, struct sbx_strv *keep,
		       struct sbx_strv *missing, struct sbx_strv *gone, bool *is,
		       struct sbx_diag *d)
{
	struct gitwalk w = {
		.ctx = ctx, .keep = keep, .missing = missing, .gone = gone, .d = d, .root = root};
	struct sbx_pathinfo in;
	char *head = NULL;
	int r = sbx_path_join_any(root, "HEAD", &head);

	*is = in.is_link = false;
	if (!r)
		r = head_valid(ctx, head, is, d);
	if (!r && *is)
		r = sbx_ctx_lookup(ctx, head, &in, d);
	/* A link (as git made HEAD once) cannot be kept: the command could repoint it. */
	if (!r && *is && in.is_link) {
		sbx_diag_set(
			d, SBX_E_UNENFORCEABLE,
			"%s is a symbolic link, which git follows: in a writable root that is a "
			"git directory (a bare repository), the command could repoint it",
			head);
		r = sbx_diag_hint(
			d, SBX_E_UNENFORCEABLE,
			"make it a file (git symbolic-ref HEAD refs/heads/BRANCH, with "
			"core.preferSymlinkRefs unset), or name the repository read-only");
	}
	if (!r && *is)
		r = sbx_strv_add_unique(keep, head) ? -ENOMEM : walk_all(&w, root);
	if (r == -ENOMEM)
		sbx_diag_set(d, r, "out of memory");
	free(head);
	return r;
}
