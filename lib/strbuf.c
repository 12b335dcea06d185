/* SPDX-License-Identifier: MIT */
/*
 * strbuf.c - a growing string for the text lib/ writes (the context block, HTTP heads), and the
 * string arena a large profile keeps its paths in.
 */
#include <stdarg.h>
#include <stdint.h>
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
	sbx_copy(b->p + b->n, s, n);
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

/* ---- the string arena ----------------------------------------------------------------------- */

struct sbx_arena_block {
	struct sbx_arena_block *prev;
	size_t used, cap;
	/* After three words: aligned as malloc aligns, to 8 at least (sbx_arena_alloc). */
	char data[];
};

/*
 * Blocks double from 1 KiB to 64 KiB: a small profile costs one small block, and 10,000 paths
 * some ten blocks, where they cost 10,000 allocations. A string longer than a block gets a
 * block of its own.
 */
#define ARENA_FIRST 1024
#define ARENA_MAX   65536

void *sbx_arena_alloc(struct sbx_arena *a, size_t n, size_t align)
{
	struct sbx_arena_block *b = a->head;
	size_t at = b ? (b->used + align - 1) / align * align : 0;
	void *p;

	if (!b || at > b->cap || b->cap - at < n) {
		size_t cap = b ? b->cap * 2 : ARENA_FIRST;

		if (cap > ARENA_MAX)
			cap = ARENA_MAX;
		if (cap < n)
			cap = n;
		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->prev = a->head;
		b->used = 0;
		b->cap = cap;
		a->head = b;
		at = 0;
	}
	p = b->data + at;
	b->used = at + n;
	return p;
}

char *sbx_arena_strndup(struct sbx_arena *a, const char *s, size_t n)
{
	char *p = sbx_arena_alloc(a, n + 1, 1);

	if (!p)
		return NULL;
	sbx_copy(p, s, n);
	p[n] = '\0';
	return p;
}

bool sbx_arena_owns(const struct sbx_arena *a, const void *p)
{
	/* Compared as integers: the blocks are distinct objects. */
	uintptr_t at = (uintptr_t)p;

	for (const struct sbx_arena_block *b = a->head; b; b = b->prev)
		if (at >= (uintptr_t)b->data && at < (uintptr_t)b->data + b->used)
			return true;
	return false;
}

void sbx_arena_free(struct sbx_arena *a)
{
	while (a->head) {
		struct sbx_arena_block *b = a->head;

		a->head = b->prev;
		free(b);
	}
}
