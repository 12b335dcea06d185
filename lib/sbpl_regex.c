/* SPDX-License-Identifier: MIT */
/*
 * sbpl_regex.c - the text pieces of SBPL generation that must be exact: regex escaping, glob to
 * regex translation (spec 5.4) and regex literals. Paths and patterns only ever reach the policy
 * text through these functions; every other path travels as a -D parameter.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl.h"

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
 * If pattern[i] == '[' opens a class that is closed, returns the index of its ']', else 0.
 * A ']' right after "[", "[!" or "[^" belongs to the class.
 */
static size_t class_end(const char *pattern, size_t i)
{
	size_t j = i + 1;

	if (pattern[j] == '!' || pattern[j] == '^')
		j++;
	if (pattern[j] == ']')
		j++;
	while (pattern[j] && pattern[j] != ']')
		j++;
	return pattern[j] == ']' ? j : 0;
}

static void translate(struct sbx_buf *b, const char *g, size_t len, enum sbx_sbpl_glob_mode mode)
{
	bool wild = false;
	unsigned braces = 0;
	size_t i = 0, end;

	sbx_buf_addc(b, '^');
	while (i < len) {
		char c = g[i];
		bool at_start = i == 0 || g[i - 1] == '/';

		switch (c) {
		case '\\':
			/* An escape makes the next character literal; a trailing one is itself. */
			escape_char(b, i + 1 < len ? g[i + 1] : '\\');
			i += i + 1 < len ? 2 : 1;
			continue;
		case '*':
			wild = true;
			if (i + 1 < len && g[i + 1] == '*' && at_start) {
				if (i + 2 < len && g[i + 2] == '/') {
					sbx_buf_add(b, "(.*/)?");
					i += 3;
					continue;
				}
				if (i + 2 == len) {
					sbx_buf_add(b, ".*");
					i += 2;
					continue;
				}
			}
			sbx_buf_add(b, "[^/]*");
			break;
		case '?':
			wild = true;
			sbx_buf_add(b, "[^/]");
			break;
		case '[':
			end = class_end(g, i);
			if (!end || end >= len) {
				sbx_buf_add(b, "\\[");
				break;
			}
			wild = true;
			sbx_buf_addc(b, '[');
			i++;
			if (g[i] == '!' || g[i] == '^') {
				sbx_buf_addc(b, '^');
				i++;
			}
			for (; i < end; i++) {
				/* A backslash is literal inside a glob class; keep it literal here. */
				if (g[i] == '\\')
					sbx_buf_addc(b, '\\');
				sbx_buf_addc(b, g[i]);
			}
			sbx_buf_addc(b, ']');
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
}

int sbx_sbpl_glob_regex(const char *glob, enum sbx_sbpl_glob_mode mode, char **out)
{
	struct sbx_buf b = {0};

	translate(&b, glob, strlen(glob), mode);
	*out = sbx_buf_steal(&b);
	return *out ? 0 : -ENOMEM;
}

int sbx_sbpl_glob_ancestors(const char *glob, char ***out, size_t *n)
{
	size_t len = strlen(glob), i, end, nv = 0;
	bool wild = false;
	char **v;

	*out = NULL;
	*n = 0;
	/* At most one ancestor per "/". */
	v = calloc(len + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		struct sbx_buf b = {0};

		switch (glob[i]) {
		case '\\':
			i++;
			continue;
		case '*':
		case '?':
			wild = true;
			continue;
		case '[':
			end = class_end(glob, i);
			if (end) {
				wild = true;
				i = end;
			}
			continue;
		case '/':
			break;
		default:
			continue;
		}
		if (wild)
			break;
		if (i == 0)
			continue;
		translate(&b, glob, i, SBX_SBPL_GLOB_EXACT);
		v[nv] = sbx_buf_steal(&b);
		if (!v[nv]) {
			while (nv--)
				free(v[nv]);
			free(v);
			return -ENOMEM;
		}
		nv++;
	}
	*out = v;
	*n = nv;
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
