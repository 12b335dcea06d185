/* SPDX-License-Identifier: MIT */
/*
 * sbpl_regex.c - the text pieces of SBPL generation that must be exact: regex escaping, glob to
 * regex translation (with the glob matcher's meaning), the directories a glob depends
 * on, brace expansion and regex literals. Paths and patterns only ever reach the policy text
 * through these functions; every other path travels as a -D parameter.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl.h"
#include "sbx.h"

/* ---- buffer ----------------------------------------------------------------------------- */

static bool buf_reserve(struct sbx_buf *b, size_t more)
{
	size_t cap;
	char *s;

	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1) {
		if (cap > ((size_t)-1) / 2) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void sbx_buf_addn(struct sbx_buf *b, const char *s, size_t n)
{
	if (!buf_reserve(b, n))
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbx_buf_add(struct sbx_buf *b, const char *s)
{
	sbx_buf_addn(b, s, strlen(s));
}

void sbx_buf_addc(struct sbx_buf *b, char c)
{
	sbx_buf_addn(b, &c, 1);
}

void sbx_buf_addf(struct sbx_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if (!buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *sbx_buf_steal(struct sbx_buf *b)
{
	char *s = NULL;

	if (!b->oom) {
		s = b->s ? b->s : strdup("");
		b->s = NULL;
	}
	sbx_buf_free(b);
	return s;
}

void sbx_buf_free(struct sbx_buf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* ---- regex escaping ---------------------------------------------------------------------- */

static bool regex_meta(char c)
{
	return c && strchr(".^$*+?()[]{}|\\", c) != NULL;
}

static void escape_char(struct sbx_buf *b, char c)
{
	if (regex_meta(c))
		sbx_buf_addc(b, '\\');
	sbx_buf_addc(b, c);
}

void sbx_sbpl_regex_escape(struct sbx_buf *b, const char *s)
{
	for (; *s; s++)
		escape_char(b, *s);
}

/* ---- glob translation -------------------------------------------------------------------- */

/*
 * The glob syntax is the matcher's (lib/glob.c), so that a pattern means the same on every
 * platform: '/' ends a component and nothing crosses it, not even a character class; "\c" is
 * the character c, also inside a class, except before a '/' or at the end of a component,
 * where the backslash is itself; a class is a set of bytes. Brace alternatives ({a,b}) are the
 * one addition, as in Codex's translation.
 */

static size_t component_end(const char *g, size_t len, size_t i)
{
	while (i < len && g[i] != '/')
		i++;
	return i;
}

/* One class member at g[*j] (a backslash escapes the next character); advances *j. */
static unsigned char class_char(const char *g, size_t end, size_t *j)
{
	if (g[*j] == '\\' && *j + 1 < end)
		(*j)++;
	return (unsigned char)g[(*j)++];
}

struct glob_class {
	bool set[256]; /* the bytes the class matches */
	size_t end;    /* index of the closing ']' */
	bool negated;
};

/*
 * Parses the class opening at g[i]. Returns 1 and fills c for a class, 0 when the '[' is not
 * closed within its component (it is then a literal '['), or SBX_E_INVALID with d filled for
 * a class that cannot be translated exactly.
 */
static int parse_class(const char *glob, const char *g, size_t len, size_t i, struct glob_class *c,
		       struct sbx_diag *d)
{
	size_t end = component_end(g, len, i), j = i + 1, n = 0;
	const char *posix = NULL;
	bool first = true, wide = false;

	memset(c, 0, sizeof(*c));
	if (j < end && (g[j] == '!' || g[j] == '^')) {
		c->negated = true;
		j++;
	}
	for (;;) {
		unsigned lo, hi;

		if (j >= end)
			return 0;
		if (g[j] == ']' && !first)
			break;
		first = false;
		if (g[j] == '[' && j + 1 < end && strchr(":.=", g[j + 1]) && !posix)
			posix = g + j;
		lo = hi = class_char(g, end, &j);
		if (j + 1 < end && g[j] == '-' && g[j + 1] != ']') {
			j++;
			hi = class_char(g, end, &j);
		}
		wide = wide || lo >= 0x80 || hi >= 0x80;
		for (unsigned b = lo; b <= hi && b < 256; b++)
			c->set[b] = true;
	}
	c->end = j;
	if (posix) {
		sbx_diag_set_about(d, SBX_E_INVALID, "deny glob `", glob,
				   "`: `%.2s` in a character class is POSIX class syntax, which "
				   "globs do not have",
				   posix);
		return sbx_diag_hint(d, SBX_E_INVALID,
				     "list the characters or a range, as in [0-9]; a `[` meant "
				     "literally goes last in the class, as in [.[]");
	}
	if (wide) {
		sbx_diag_set_about(d, SBX_E_INVALID, "deny glob `", glob,
				   "`: a character class holds a non-ASCII character, and classes "
				   "match single bytes");
		return sbx_diag_hint(d, SBX_E_INVALID,
				     "spell such names out, or use `?` or `*` for the character");
	}
	/* A component never holds '/' (nor NUL): no class can match them. */
	c->set[0] = c->set['/'] = false;
	if (c->negated)
		for (unsigned b = 1; b < 256; b++)
			c->set[b] = b != '/' && !c->set[b];
	for (unsigned b = 0; b < 256; b++)
		n += c->set[b];
	if (n == 0)
		return sbx_diag_set_about(d, SBX_E_INVALID, "deny glob `", glob,
					  "`: a character class matches no character");
	return 1;
}

/*
 * Characters with a meaning of their own inside a bracket expression in some regex dialect.
 * They are placed where every dialect reads them literally: ']' first, a backslash doubled
 * (one backslash to POSIX, which has no escapes there, listed twice; one escaped backslash to
 * the others), '[' late so that it never starts "[:", "[." or "[=", '^' never first, '-' last.
 */
static bool bracket_special(unsigned b)
{
	return b == ']' || b == '\\' || b == '[' || b == '^' || b == '-';
}

/* Listed on its own, never inside a range, so that a reader sees it excluded: "[^0-9/]". */
static bool bracket_alone(unsigned b)
{
	return bracket_special(b) || b == '/';
}

/* Appends the bracket expression listing the ASCII bytes of list (negated: "[^...]"). */
static void emit_bracket(struct sbx_buf *b, const bool *list, bool negated)
{
	bool body = false;

	sbx_buf_add(b, negated ? "[^" : "[");
	if (list[']']) {
		sbx_buf_addc(b, ']');
		body = true;
	}
	for (unsigned c = 1; c < 128; c++) {
		unsigned run = c;

		if (!list[c] || bracket_alone(c))
			continue;
		while (run + 1 < 128 && list[run + 1] && !bracket_alone(run + 1))
			run++;
		sbx_buf_addc(b, (char)c);
		if (run - c >= 2)
			sbx_buf_addc(b, '-');
		if (run > c)
			sbx_buf_addc(b, (char)run);
		body = true;
		c = run;
	}
	if (list['/']) {
		sbx_buf_addc(b, '/');
		body = true;
	}
	if (list['\\']) {
		sbx_buf_add(b, "\\\\");
		body = true;
	}
	if (list['[']) {
		sbx_buf_addc(b, '[');
		body = true;
	}
	/* Only {'^', '-'} could put '^' first: "[-^]" then. */
	if (list['^'] && !body && !negated) {
		sbx_buf_add(b, "-^]");
		return;
	}
	if (list['^'])
		sbx_buf_addc(b, '^');
	if (list['-'])
		sbx_buf_addc(b, '-');
	sbx_buf_addc(b, ']');
}

static void emit_class(struct sbx_buf *b, const struct glob_class *c)
{
	bool list[256] = {false};
	size_t n = 0;
	unsigned only = 0;

	if (c->negated) {
		/* The bytes it does not match: what the pattern listed, and '/'. */
		for (unsigned v = 1; v < 128; v++)
			list[v] = !c->set[v];
		emit_bracket(b, list, true);
		return;
	}
	for (unsigned v = 1; v < 128; v++) {
		list[v] = c->set[v];
		if (list[v]) {
			n++;
			only = v;
		}
	}
	if (n == 1)
		escape_char(b, (char)only);
	else
		emit_bracket(b, list, false);
}

/* A "**" that spans directories: a whole component, followed by '/' or the end. */
static bool recursive_star(const char *g, size_t len, size_t i)
{
	return g[i] == '*' && i + 1 < len && g[i + 1] == '*' && (i == 0 || g[i - 1] == '/') &&
	       (i + 2 == len || g[i + 2] == '/');
}

static int translate(struct sbx_buf *b, const char *glob, size_t len, enum sbx_sbpl_glob_mode mode,
		     struct sbx_diag *d)
{
	const char *g = glob;
	bool wild = false;
	unsigned braces = 0;
	size_t i = 0;

	sbx_buf_addc(b, '^');
	while (i < len) {
		struct glob_class cls;
		char c = g[i];
		int r;

		switch (c) {
		case '\\':
			/* Before '/' or at the end the backslash is itself, as in the matcher. */
			if (i + 1 < len && g[i + 1] != '/') {
				escape_char(b, g[i + 1]);
				i += 2;
			} else {
				escape_char(b, '\\');
				i++;
			}
			continue;
		case '*':
			wild = true;
			if (recursive_star(g, len, i)) {
				sbx_buf_add(b, i + 2 < len ? "(.*/)?" : ".*");
				i += i + 2 < len ? 3 : 2;
				continue;
			}
			sbx_buf_add(b, "[^/]*");
			break;
		case '?':
			wild = true;
			sbx_buf_add(b, "[^/]");
			break;
		case '[':
			r = parse_class(glob, g, len, i, &cls, d);
			if (r < 0)
				return r;
			if (r == 0) {
				sbx_buf_add(b, "\\[");
				break;
			}
			wild = true;
			emit_class(b, &cls);
			i = cls.end;
			break;
		case '{':
			wild = true;
			braces++;
			sbx_buf_addc(b, '(');
			break;
		case ',':
			sbx_buf_addc(b, braces ? '|' : ',');
			break;
		case '}':
			if (braces) {
				braces--;
				sbx_buf_addc(b, ')');
			} else {
				sbx_buf_add(b, "\\}");
			}
			break;
		default:
			escape_char(b, c);
			break;
		}
		i++;
	}
	/* An alternative left open by the pattern (or cut by an ancestor prefix) ends here. */
	while (braces--)
		sbx_buf_addc(b, ')');
	if (!wild && mode == SBX_SBPL_GLOB_SUBTREE)
		sbx_buf_add(b, "(/.*)?");
	sbx_buf_addc(b, '$');
	return 0;
}

int sbx_sbpl_glob_regex(const char *glob, enum sbx_sbpl_glob_mode mode, char **out,
			struct sbx_diag *d)
{
	struct sbx_buf b = {0};
	int r;

	*out = NULL;
	r = translate(&b, glob, strlen(glob), mode, d);
	if (r) {
		sbx_buf_free(&b);
		return r;
	}
	*out = sbx_buf_steal(&b);
	return *out ? 0 : -ENOMEM;
}

int sbx_sbpl_glob_ancestors(const char *glob, char ***out, size_t *n, struct sbx_diag *d)
{
	size_t len = strlen(glob), i, nv = 0;
	char **v;
	int r = 0;

	*out = NULL;
	*n = 0;
	/* At most one ancestor per "/". */
	v = calloc(len + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < len && !r; i++) {
		struct glob_class cls;
		struct sbx_buf b = {0};

		if (glob[i] == '\\' && i + 1 < len && glob[i + 1] != '/') {
			i++;
			continue;
		}
		if (glob[i] == '[') {
			r = parse_class(glob, glob, len, i, &cls, d);
			if (r > 0)
				i = cls.end;
			r = r < 0 ? r : 0;
			continue;
		}
		/* Below a "**" any directory can hold a match: no fixed list of them. */
		if (recursive_star(glob, len, i))
			break;
		if (glob[i] != '/' || i == 0)
			continue;
		r = translate(&b, glob, i, SBX_SBPL_GLOB_EXACT, d);
		v[nv] = r ? NULL : sbx_buf_steal(&b);
		sbx_buf_free(&b);
		if (!r && !v[nv])
			r = -ENOMEM;
		if (!r)
			nv++;
	}
	if (r) {
		while (nv--)
			free(v[nv]);
		free(v);
		return r;
	}
	*out = v;
	*n = nv;
	return 0;
}

/*
 * Brace alternatives expanded into plain globs: "/a/{b,c{d,e}}" gives "/a/b", "/a/cd",
 * "/a/ce". An unclosed '{' runs to the end of the pattern, as in the translation.
 */
static int braces_into(const char *glob, struct sbx_strv *out)
{
	size_t open = 0, close = 0, depth = 0, i;
	bool found = false;
	int r = 0;

	for (i = 0; glob[i]; i++) {
		if (glob[i] == '\\' && glob[i + 1] && glob[i + 1] != '/') {
			i++;
			continue;
		}
		if (glob[i] == '[') {
			struct glob_class cls;

			if (parse_class(glob, glob, strlen(glob), i, &cls, NULL) > 0)
				i = cls.end;
			continue;
		}
		if (glob[i] == '{' && depth++ == 0) {
			open = i;
			found = true;
		} else if (glob[i] == '}' && depth && --depth == 0) {
			close = i;
			break;
		}
	}
	if (!found) {
		if (out->n >= SBX_SBPL_MAX_BRACE_VARIANTS)
			return -E2BIG;
		return sbx_strv_add_unique(out, glob);
	}
	if (!glob[i])
		close = i;
	/* Each alternative between open and close, split at top-level commas. */
	for (size_t start = open + 1, k = open + 1, level = 0; !r && k <= close; k++) {
		struct sbx_buf b = {0};
		char *variant;

		if (k < close && glob[k] == '\\' && glob[k + 1] && glob[k + 1] != '/') {
			k++;
			continue;
		}
		if (k < close && glob[k] == '{')
			level++;
		else if (k < close && glob[k] == '}' && level)
			level--;
		if (k < close && (glob[k] != ',' || level))
			continue;
		sbx_buf_addn(&b, glob, open);
		sbx_buf_addn(&b, glob + start, k - start);
		sbx_buf_add(&b, glob[close] ? glob + close + 1 : "");
		variant = sbx_buf_steal(&b);
		r = variant ? braces_into(variant, out) : -ENOMEM;
		free(variant);
		start = k + 1;
	}
	return r;
}

int sbx_sbpl_glob_braces(const char *glob, char ***out, size_t *n)
{
	struct sbx_strv v = {0};
	int r = braces_into(glob, &v);

	if (r) {
		sbx_strv_clear(&v);
		return r;
	}
	*out = v.v;
	*n = v.n;
	return 0;
}

/* ---- literals ------------------------------------------------------------------------------ */

void sbx_sbpl_regex_literal(struct sbx_buf *b, const char *regex)
{
	const char *s;
	bool plain = true;

	for (s = regex; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c < 0x20 || c == 0x7f)
			plain = false;
	}
	if (plain) {
		sbx_buf_add(b, "#\"");
		sbx_buf_add(b, regex);
		sbx_buf_addc(b, '"');
		return;
	}
	sbx_buf_addc(b, '"');
	for (s = regex; *s; s++) {
		if (*s == '\\' || *s == '"')
			sbx_buf_addc(b, '\\');
		sbx_buf_addc(b, *s);
	}
	sbx_buf_addc(b, '"');
}
