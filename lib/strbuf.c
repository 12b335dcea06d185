/* SPDX-License-Identifier: MIT */
/* strbuf.c - a growing string for the text lib/ writes (the context block, HTTP heads). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

void sbx_strbuf_put(struct sbx_strbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->n + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

void sbx_strbuf_puts(struct sbx_strbuf *b, const char *s)
{
	sbx_strbuf_put(b, s, strlen(s));
}

void sbx_strbuf_printf(struct sbx_strbuf *b, const char *fmt, ...)
{
	char small[256], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		sbx_strbuf_put(b, small, (size_t)n);
		return;
	}
	va_start(ap, fmt);
	n = vasprintf(&big, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	sbx_strbuf_put(b, big, (size_t)n);
	free(big);
}

char *sbx_strbuf_finish(struct sbx_strbuf *b, size_t *len)
{
	char *p = b->p;

	if (b->oom) {
		free(p);
		p = NULL;
	} else if (!p) {
		p = calloc(1, 1);
	}
	if (p && len)
		*len = b->n;
	memset(b, 0, sizeof(*b));
	return p;
}
