/* SPDX-License-Identifier: MIT */
/* strbuf.c - a growing string for the text lib/ writes (the context block, HTTP heads). */
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
