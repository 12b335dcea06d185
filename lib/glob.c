/* SPDX-License-Identifier: MIT */
/*
 * glob.c - git-style globs (spec 2.4, PROFILE.md 2): matching, static prefixes and expansion on
 * the real file system.
 *
 * Syntax, component by component ('/' always separates; nothing matches across it):
 *   *        any run of characters (also empty, also a leading '.')
 *   ?        one character
 *   [...]    one character of a class: ranges "a-z", negation by a leading '!' or '^', a ']'
 *            right after the opening bracket (or its negation) is a member; a '[' with no
 *            closing ']' in its component is a literal '['
 *   \c       the character c, literally (sbx_glob_escape() writes a literal path this way, so a
 *            workspace root such as "/src/p[1]" can be joined into a pattern)
 *   **       as a whole component: zero or more directories (a, **, b matches "a/b" and
 *            "a/x/y/b"); as the last component, everything below (a, ** matches "a/b/c", not
 *            "a"). Elsewhere ("a**b") it is two single stars.
 *
 * A pattern is matched as a small automaton over path components, so matching costs at most
 * (components x pattern components) component matches, with no exponential backtracking
 * across '/'. Expansion walks the tree with that automaton and descends only into directories
 * that can still lead to a match.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx.h"

struct gcomp {
	const char *s;
	size_t len;
	bool dstar; /* the component is exactly "**" */
};

struct gpat {
	bool abs;
	struct gcomp *c;
	size_t n;
};

/* Splits on '/', dropping empty components (so "a//b" is "a/b"). Components borrow from p. */
static int split(const char *p, struct gpat *g)
{
	size_t max = 1;

	memset(g, 0, sizeof(*g));
	g->abs = p[0] == '/';
	for (const char *s = p; *s; s++)
		if (*s == '/')
			max++;
	g->c = calloc(max, sizeof(*g->c));
	if (!g->c)
		return -ENOMEM;
	for (const char *s = p; *s;) {
		const char *b;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		for (b = s; *s && *s != '/'; s++)
			;
		g->c[g->n].s = b;
		g->c[g->n].len = (size_t)(s - b);
		g->c[g->n].dstar = g->c[g->n].len == 2 && b[0] == '*' && b[1] == '*';
		g->n++;
	}
	return 0;
}

/* One class member character at p[*j], honouring a backslash escape; advances *j. */
static unsigned char class_char(const char *p, size_t pl, size_t *j)
{
	if (p[*j] == '\\' && *j + 1 < pl)
		(*j)++;
	return (unsigned char)p[(*j)++];
}

/*
 * Does the atom at p[pi] match c? *adv is the atom's length in the pattern (set on a match).
 */
static bool atom_match(const char *p, size_t pl, size_t pi, unsigned char c, size_t *adv)
{
	size_t j;
	bool neg = false, hit = false, first = true;

	switch (p[pi]) {
	case '?':
		*adv = 1;
		return true;
	case '\\':
		if (pi + 1 < pl) {
			*adv = 2;
			return (unsigned char)p[pi + 1] == c;
		}
		*adv = 1;
		return c == '\\';
	case '[':
		j = pi + 1;
		if (j < pl && (p[j] == '!' || p[j] == '^')) {
			neg = true;
			j++;
		}
		for (;;) {
			unsigned char lo, hi;

			if (j >= pl) { /* unclosed: a literal '[' */
				*adv = 1;
				return c == '[';
			}
			if (p[j] == ']' && !first)
				break;
			first = false;
			lo = hi = class_char(p, pl, &j);
			if (j + 1 < pl && p[j] == '-' && p[j + 1] != ']') {
				j++;
				hi = class_char(p, pl, &j);
			}
			if (c >= lo && c <= hi)
				hit = true;
		}
		*adv = j + 1 - pi;
		return hit != neg;
	default:
		*adv = 1;
		return (unsigned char)p[pi] == c;
	}
}

/*
 * One component against one name. '*' keeps a single backtracking point: every other atom
 * consumes exactly one character, so resuming after the last star is enough (linear in
 * practice, O(pattern x name) at worst).
 */
static bool comp_match(const char *p, size_t pl, const char *s, size_t sl)
{
	size_t pi = 0, si = 0, star_p = SIZE_MAX, star_s = 0, adv;

	while (si < sl) {
		if (pi < pl && p[pi] == '*') {
			while (pi < pl && p[pi] == '*')
				pi++;
			star_p = pi;
			star_s = si;
			continue;
		}
		if (pi < pl && atom_match(p, pl, pi, (unsigned char)s[si], &adv)) {
			pi += adv;
			si++;
			continue;
		}
		if (star_p == SIZE_MAX)
			return false;
		pi = star_p;
		si = ++star_s;
	}
	while (pi < pl && p[pi] == '*')
		pi++;
	return pi == pl;
}

/*
 * State sets have n + 2 slots: j < n "the next name must match component j", n "all matched",
 * n + 1 "matched by a trailing **, and so is everything below".
 */
static void closure(const struct gpat *g, unsigned char *set)
{
	for (size_t j = 0; j + 1 < g->n; j++)
		if (set[j] && g->c[j].dstar)
			set[j + 1] = 1; /* "**" + "/" also matches zero directories */
}

static void step(const struct gpat *g, const unsigned char *set, const char *name, size_t len,
		 unsigned char *next)
{
	size_t n = g->n;

	memset(next, 0, n + 2);
	if (set[n + 1])
		next[n + 1] = 1;
	for (size_t j = 0; j < n; j++) {
		if (!set[j])
			continue;
		if (g->c[j].dstar) {
			if (j + 1 == n)
				next[n + 1] = 1;
			else
				next[j] = 1;
		} else if (comp_match(g->c[j].s, g->c[j].len, name, len)) {
			next[j + 1] = 1;
		}
	}
	closure(g, next);
}

static bool accepting(const struct gpat *g, const unsigned char *set)
{
	return set[g->n] || set[g->n + 1];
}

static bool live(const struct gpat *g, const unsigned char *set)
{
	for (size_t j = 0; j < g->n; j++)
		if (set[j])
			return true;
	return false;
}

bool sbx_glob_match(const char *pattern, const char *path)
{
	struct gpat g;
	unsigned char *base, *a, *b, *t;
	bool ok = false;

	if (!pattern || !path || split(pattern, &g))
		return false;
	if (g.abs != (path[0] == '/')) {
		free(g.c);
		return false;
	}
	base = a = calloc(2 * (g.n + 2), 1);
	if (!a) {
		free(g.c);
		return false;
	}
	b = a + g.n + 2;
	a[0] = 1;
	closure(&g, a);
	for (const char *s = path; *s;) {
		const char *nm;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		for (nm = s; *s && *s != '/'; s++)
			;
		step(&g, a, nm, (size_t)(s - nm), b);
		t = a;
		a = b;
		b = t;
	}
	ok = accepting(&g, a);
	free(base);
	free(g.c);
	return ok;
}

static bool comp_has_meta(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] == '*' || s[i] == '?' || s[i] == '[' || s[i] == '\\')
			return true;
	return false;
}

bool sbx_glob_has_meta(const char *s)
{
	return s && comp_has_meta(s, strlen(s));
}

/*
 * A component that matches exactly one name: no unescaped '*', '?' or '['. Escapes are allowed
 * (an escaped workspace root such as "p\[1\]" is static); a lone trailing backslash is itself.
 */
static bool comp_is_static(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == '*' || s[i] == '?' || s[i] == '[')
			return false;
	}
	return true;
}

/* Number of leading static components. */
static size_t static_count(const struct gpat *g)
{
	size_t k = 0;

	while (k < g->n && comp_is_static(g->c[k].s, g->c[k].len))
		k++;
	return k;
}

/* The first k components as a path, escapes removed (they are static, so each names itself). */
static int join_prefix(const struct gpat *g, size_t k, char **out)
{
	size_t len = 2, o = 0;
	char *p;

	for (size_t i = 0; i < k; i++)
		len += g->c[i].len + 1;
	p = malloc(len);
	if (!p)
		return -ENOMEM;
	if (g->abs)
		p[o++] = '/';
	for (size_t i = 0; i < k; i++) {
		const char *c = g->c[i].s;
		size_t n = g->c[i].len;

		if (i > 0)
			p[o++] = '/';
		for (size_t j = 0; j < n; j++) {
			if (c[j] == '\\' && j + 1 < n)
				j++;
			p[o++] = c[j];
		}
	}
	p[o] = '\0';
	*out = p;
	return 0;
}

/* The characters that mean something in a glob, here or in the SBPL translation (spec 5.4). */
static bool glob_special(char c)
{
	return c == '\\' || c == '*' || c == '?' || c == '[' || c == ']' || c == '{' || c == '}';
}

int sbx_glob_escape(const char *literal, char **out)
{
	size_t n = 0, o = 0;
	char *p;

	*out = NULL;
	if (!literal)
		return -EINVAL;
	for (const char *s = literal; *s; s++)
		n += glob_special(*s) ? 2 : 1;
	p = malloc(n + 1);
	if (!p)
		return -ENOMEM;
	for (const char *s = literal; *s; s++) {
		if (glob_special(*s))
			p[o++] = '\\';
		p[o++] = *s;
	}
	p[o] = '\0';
	*out = p;
	return 0;
}

int sbx_glob_static_prefix(const char *pattern, char **out)
{
	struct gpat g;
	int r;

	*out = NULL;
	if (!pattern)
		return -EINVAL;
	r = split(pattern, &g);
	if (r)
		return r;
	r = join_prefix(&g, static_count(&g), out);
	free(g.c);
	return r;
}

/* ---- expansion ----------------------------------------------------------------------------- */

struct walk {
	const struct gpat *g;
	unsigned depth; /* 0 = no limit */
	char path[SBX_MAX_PATH + 1];
	struct {
		char **v;
		size_t n, cap;
	} out;
	const char *pattern;
	struct sbx_diag *d;
};

static int add_match(struct walk *w)
{
	if (w->out.n >= SBX_MAX_GLOB_MATCHES) {
		int r = sbx_diag_set(w->d, SBX_E_TOO_BIG, "glob `%s` matches more than %u paths",
				     w->pattern, SBX_MAX_GLOB_MATCHES);

		return sbx_diag_hint(w->d, r,
				     "narrow the pattern, or set glob_scan_max_depth to limit the "
				     "scan");
	}
	if (w->out.n == w->out.cap) {
		size_t cap = w->out.cap ? w->out.cap * 2 : 16;
		char **v = realloc(w->out.v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		w->out.v = v;
		w->out.cap = cap;
	}
	w->out.v[w->out.n] = strdup(w->path);
	if (!w->out.v[w->out.n])
		return -ENOMEM;
	w->out.n++;
	return 0;
}

/*
 * Lists the directory dfd (whose path is w->path[0..len)) at level-1 below the static prefix.
 * Takes ownership of dfd. Symbolic links are never followed: a link can match, but the walk
 * does not descend through it, so a link cannot lead the scan (and its masks) elsewhere.
 * A directory that cannot be listed (EACCES) is skipped: the command inside the sandbox runs
 * with no more privilege than this scan, so it cannot read there either.
 */
static int walk_dir(struct walk *w, int dfd, size_t len, const unsigned char *set, unsigned level)
{
	const struct gpat *g = w->g;
	unsigned char *next;
	struct dirent *de;
	DIR *dir;
	int r = 0;

	dir = fdopendir(dfd);
	if (!dir) {
		r = -errno;
		close(dfd);
		return r;
	}
	next = malloc(g->n + 2);
	if (!next) {
		closedir(dir);
		return -ENOMEM;
	}
	for (;;) {
		size_t nl;
		bool is_dir;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno)
				r = sbx_diag_set(w->d, -errno,
						 "cannot list %s while expanding glob `%s`",
						 w->path[0] ? w->path : "/", w->pattern);
			break;
		}
		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		nl = strlen(de->d_name);
		step(g, set, de->d_name, nl, next);
		if (!accepting(g, next) && !live(g, next))
			continue;
		if (len + 1 + nl > SBX_MAX_PATH) {
			r = sbx_diag_set(w->d, -ENAMETOOLONG,
					 "a path below %s is too long while expanding glob `%s`",
					 w->path, w->pattern);
			break;
		}
		w->path[len] = '/';
		memcpy(w->path + len + 1, de->d_name, nl + 1);
		if (accepting(g, next)) {
			/* A matched directory covers its subtree: no need to list inside it. */
			r = add_match(w);
			w->path[len] = '\0';
			if (r)
				break;
			continue;
		}
		if (w->depth && level >= w->depth) {
			w->path[len] = '\0';
			continue;
		}
		is_dir = de->d_type == DT_DIR;
		if (de->d_type == DT_UNKNOWN) {
			struct stat st;

			is_dir = fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
				 S_ISDIR(st.st_mode);
		}
		if (is_dir) {
			int cfd = openat(dirfd(dir), de->d_name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			if (cfd >= 0) {
				r = walk_dir(w, cfd, len + 1 + nl, next, level + 1);
			} else if (errno != EACCES && errno != ENOENT && errno != ELOOP &&
				   errno != ENOTDIR) {
				r = sbx_diag_set(w->d, -errno,
						 "cannot open %s while expanding glob `%s`",
						 w->path, w->pattern);
			}
		}
		w->path[len] = '\0';
		if (r)
			break;
	}
	free(next);
	closedir(dir);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sbx_glob_expand(const char *pattern, unsigned depth, char ***out, size_t *n, struct sbx_diag *d)
{
	struct gpat g = {0};
	struct walk *w = NULL;
	unsigned char *set = NULL;
	char *prefix = NULL;
	size_t k;
	int r, fd;

	*out = NULL;
	*n = 0;
	if (!pattern)
		return -EINVAL;
	r = split(pattern, &g);
	if (r)
		goto out;
	k = static_count(&g);
	if (!g.abs || k == 0) {
		r = sbx_diag_set(
			d, SBX_E_INVALID,
			"unreadable glob `%s` cannot be safely expanded; use a pattern with "
			"a non-root directory prefix",
			pattern);
		goto out;
	}
	r = join_prefix(&g, k, &prefix);
	if (r)
		goto out;
	w = calloc(1, sizeof(*w));
	set = calloc(g.n + 2, 1);
	if (!w || !set) {
		r = -ENOMEM;
		goto out;
	}
	w->g = &g;
	w->depth = depth;
	w->pattern = pattern;
	w->d = d;
	if (strlen(prefix) > SBX_MAX_PATH) {
		r = sbx_diag_set(d, SBX_E_TOO_BIG, "glob `%s` is too long", pattern);
		goto out;
	}
	strcpy(w->path, prefix);
	if (k == g.n) {
		/* No glob syntax at all: the path itself, when it exists. */
		struct stat st;

		if (lstat(prefix, &st) == 0)
			r = add_match(w);
		goto done;
	}
	/* The automaton after the static components, which match themselves. */
	set[k] = 1;
	closure(&g, set);
	fd = open(prefix, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR || errno == EACCES)
			goto done; /* nothing there to match (see walk_dir on EACCES) */
		r = sbx_diag_set(d, -errno, "cannot open %s while expanding glob `%s`", prefix,
				 pattern);
		goto out;
	}
	r = walk_dir(w, fd, strlen(prefix), set, 1);
done:
	if (!r && w->out.n)
		qsort(w->out.v, w->out.n, sizeof(*w->out.v), cmp_str);
	if (!r) {
		*out = w->out.v;
		*n = w->out.n;
		w->out.v = NULL;
		w->out.n = 0;
	}
out:
	if (w)
		sbx_strv_free(w->out.v, w->out.n);
	if (r == -ENOMEM && d && !d->msg[0])
		sbx_diag_set(d, r, "out of memory while expanding glob `%s`", pattern);
	free(w);
	free(set);
	free(prefix);
	free(g.c);
	return r;
}
