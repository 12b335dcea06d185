/* SPDX-License-Identifier: MIT */
/*
 * glob.c - git-style globs (sbxrun-profile(5), FILE SYSTEM ENTRIES): matching, static prefixes
 * and expansion on the real file system.
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
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static int glob_matches_prefix(void *pattern, const char *prefix, size_t len)
{
	return sbx_glob_match(pattern, prefix);
}

bool sbx_glob_covers(const char *pattern, const char *path)
{
	return sbx_glob_match(pattern, path) ||
	       sbx_path_ancestors(path, glob_matches_prefix, (void *)pattern) > 0;
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

/* The characters that mean something in a glob, here or in the SBPL translation (sbpl_regex.c). */
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

struct within {
	const char *pattern;
	size_t base, depth; /* components of the static prefix; the last level scanned */
};

static int within_matches(void *arg, const char *prefix, size_t len)
{
	const struct within *w = arg;
	size_t level = sbx_path_depth(prefix);

	return level > w->base && level - w->base <= w->depth && sbx_glob_match(w->pattern, prefix);
}

bool sbx_glob_covers_within(const char *pattern, unsigned depth, const char *path)
{
	struct within w = {.pattern = pattern, .depth = depth};
	char *prefix = NULL;
	struct gpat g;
	bool covered;
	size_t k;

	if (!depth || !pattern || split(pattern, &g))
		return sbx_glob_covers(pattern, path); /* fails closed: as without a limit */
	k = static_count(&g);
	/* Without a wildcard the scan is a look-up of the path itself, whatever the depth. */
	if (k == g.n || join_prefix(&g, k, &prefix)) {
		free(g.c);
		return sbx_glob_covers(pattern, path);
	}
	free(g.c);
	w.base = sbx_path_depth(prefix);
	free(prefix);
	covered = within_matches(&w, path, strlen(path)) ||
		  sbx_path_ancestors(path, within_matches, &w) > 0;
	return covered;
}

/* ---- expansion ----------------------------------------------------------------------------- */

struct walk {
	const struct gpat *g;
	const struct sbx_fsview *fs;
	unsigned depth; /* 0 = no limit */
	char path[SBX_MAX_PATH + 1];
	struct sbx_strv out; /* the matches */
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
	return sbx_strv_push(&w->out, w->path);
}

/* One directory being listed: where it is in w->path, and the automaton's state there. */
struct level {
	struct walk *w;
	size_t len; /* w->path[0..len) is this directory */
	const unsigned char *set;
	unsigned char *next;
	unsigned level;	      /* 1 for the static prefix's entries */
	struct sbx_strv dirs; /* the directories to walk once the listing has ended */
	/*
	 * An entry's own error stopped the listing: worded where it was found (a name too long,
	 * too many matches), or ENOMEM, which sbx_glob_expand words.
	 */
	bool stopped;
};

static int walk_dir(struct walk *w, size_t len, const unsigned char *set, unsigned level);

/*
 * One entry of a listed directory. Symbolic links are never followed: a link can match, but the
 * walk does not descend through it, so a link cannot lead the scan (and its masks) elsewhere.
 */
static int visit(struct level *lv, const char *name, enum sbx_ftype type)
{
	struct walk *w = lv->w;
	const struct gpat *g = w->g;
	size_t nl = strlen(name);
	int r = 0;

	step(g, lv->set, name, nl, lv->next);
	if (!accepting(g, lv->next) && !live(g, lv->next))
		return 0;
	/*
	 * A path of SBX_MAX_PATH bytes or more cannot be named to the kernel (ENAMETOOLONG): it
	 * could be neither masked nor checked, while the command reaches it relative to a
	 * directory on the way. That is an error, never "missing".
	 */
	if (lv->len + 1 + nl >= SBX_MAX_PATH) {
		sbx_diag_set(w->d, -ENAMETOOLONG,
			     "glob `%s`: a path of %zu bytes cannot be named to the kernel (%s): "
			     "%s/%s",
			     w->pattern, lv->len + 1 + nl, strerror(ENAMETOOLONG), w->path, name);
		return sbx_diag_hint(w->d, -ENAMETOOLONG,
				     "a path that long cannot be masked; shorten the tree, or deny "
				     "a directory above it");
	}
	w->path[lv->len] = '/';
	memcpy(w->path + lv->len + 1, name, nl + 1);
	if (accepting(g, lv->next))
		/* A matched directory covers its subtree: no need to list inside it. */
		r = add_match(w);
	else if (type == SBX_FT_DIR && !(w->depth && lv->level >= w->depth))
		r = sbx_strv_push(&lv->dirs, name);
	w->path[lv->len] = '\0';
	return r;
}

static int on_entry(void *arg, const char *name, enum sbx_ftype type)
{
	struct level *lv = arg;
	int r = visit(lv, name, type);

	if (r)
		lv->stopped = true;
	return r;
}

/*
 * Lists the directory w->path[0..len) at level-1 below the static prefix. A directory that has
 * vanished since it was listed holds nothing. One that cannot be listed is an error when the
 * command could still find what is in it (it can pass through, mode 0711, or it owns the
 * directory and may open it up again): the matches there would go unmasked. Only a directory
 * closed to the caller and not the caller's is left out, as the command cannot reach into it.
 */
static int walk_dir(struct walk *w, size_t len, const unsigned char *set, unsigned level)
{
	struct level lv = {.w = w, .len = len, .set = set, .level = level};
	const char *where = w->path[0] ? w->path : "/";
	int r;

	lv.next = malloc(w->g->n + 2);
	if (!lv.next)
		return -ENOMEM;
	r = w->fs->list(w->fs->self, where, on_entry, &lv);
	if (r == SBX_FS_CLOSED || r == -ENOENT || r == -ENOTDIR)
		r = 0;
	if (r < 0 && r != -ENOMEM && !lv.stopped) {
		sbx_diag_set(w->d, r, "cannot list %s while expanding glob `%s`: %s", where,
			     w->pattern, strerror(-r));
		if (r == -EACCES || r == -EPERM)
			sbx_diag_hint(w->d, r,
				      "the command could still open what is inside it by name, "
				      "unmasked; make it listable, or deny the directory itself");
	}
	/*
	 * Below only once the listing has ended, its descriptor closed and its buffers gone: an
	 * earlier run can make a tree as deep as a path can name (about 2,000 levels), and a walk
	 * that descended from inside each listing held a descriptor and some 10 KiB of stack per
	 * level, and died of it (SIGSEGV) instead of masking. Now a level costs a small frame.
	 */
	for (size_t i = 0; r == 0 && i < lv.dirs.n; i++) {
		const char *name = lv.dirs.v[i];
		size_t nl = strlen(name);

		/* The child's state after this name; lv.next is the child's until it returns. */
		step(w->g, set, name, nl, lv.next);
		w->path[len] = '/';
		memcpy(w->path + len + 1, name, nl + 1);
		r = walk_dir(w, len + 1 + nl, lv.next, level + 1);
		w->path[len] = '\0';
	}
	sbx_strv_free(lv.dirs.v, lv.dirs.n);
	free(lv.next);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sbx_glob_expand(const char *pattern, unsigned depth, const struct sbx_fsview *fs, char ***out,
		    size_t *n, struct sbx_diag *d)
{
	struct gpat g = {0};
	struct walk *w = NULL;
	unsigned char *set = NULL;
	char *prefix = NULL;
	size_t k;
	int r;

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
	w->fs = fs ? fs : &sbx_fsview_host;
	w->depth = depth;
	w->pattern = pattern;
	w->d = d;
	if (strlen(prefix) >= SBX_MAX_PATH) {
		r = sbx_diag_set(d, SBX_E_TOO_BIG, "glob `%s` is too long", pattern);
		goto out;
	}
	strcpy(w->path, prefix);
	if (k == g.n) {
		/* No glob syntax at all: the path itself, when it exists. */
		struct sbx_pathinfo in;

		r = w->fs->lookup(w->fs->self, prefix, &in);
		if (r < 0) {
			if (r != -ENOMEM)
				sbx_diag_set(d, r,
					     "cannot look up %s while expanding glob `%s`: %s",
					     prefix, pattern, strerror(-r));
			goto out;
		}
		if (in.exists)
			r = add_match(w);
		goto done;
	}
	/* The automaton after the static components, which match themselves. */
	set[k] = 1;
	closure(&g, set);
	r = walk_dir(w, strlen(prefix), set, 1);
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
		sbx_strv_clear(&w->out);
	if (r == -ENOMEM)
		sbx_diag_set(d, r, "out of memory while expanding glob `%s`", pattern);
	free(w);
	free(set);
	free(prefix);
	free(g.c);
	return r;
}
