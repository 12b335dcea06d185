/* SPDX-License-Identifier: MIT */
/* tiesort.c - see tiesort.h. */
#ifdef SBX_FAILALLOC
#include <stdlib.h>
#include <string.h>

#include "tiesort.h"

typedef int (*cmp_fn)(const void *, const void *);

void __real_qsort(void *base, size_t n, size_t size, cmp_fn cmp);
void __wrap_qsort(void *base, size_t n, size_t size, cmp_fn cmp);
void __real_sbx_sort_ptrs(void *base, size_t n, cmp_fn cmp);
void __wrap_sbx_sort_ptrs(void *base, size_t n, cmp_fn cmp);

static enum ts_mode mode;

void ts_mode(enum ts_mode m)
{
	mode = m;
}

static void swap(unsigned char *a, unsigned char *b, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		unsigned char t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/*
 * An insertion sort, stable: the tests that choose a mode sort a few dozen items. Reversing the
 * array first leaves equal items in the reverse of their order, and is still a correct sort.
 */
static void tie_sort(void *base, size_t n, size_t size, cmp_fn cmp)
{
	unsigned char *b = base, item[64];

	/* A test that chose a mode and sorts larger items would compare nothing: it stops. */
	if (size > sizeof(item))
		abort();
	if (n < 2)
		return;
	if (mode == TS_REVERSED)
		for (size_t i = 0, j = n - 1; i < j; i++, j--)
			swap(b + i * size, b + j * size, size);
	for (size_t i = 1; i < n; i++) {
		size_t j = i;

		memcpy(item, b + i * size, size);
		for (; j > 0 && cmp(b + (j - 1) * size, item) > 0; j--)
			memcpy(b + j * size, b + (j - 1) * size, size);
		memcpy(b + j * size, item, size);
	}
}

void __wrap_qsort(void *base, size_t n, size_t size, cmp_fn cmp)
{
	if (mode == TS_LIBC)
		__real_qsort(base, n, size, cmp);
	else
		tie_sort(base, n, size, cmp);
}

/* The library's own sort of pointer arrays (lib/path.c), where the mount plan sorts. */
void __wrap_sbx_sort_ptrs(void *base, size_t n, cmp_fn cmp)
{
	if (mode == TS_LIBC)
		__real_sbx_sort_ptrs(base, n, cmp);
	else
		tie_sort(base, n, sizeof(void *), cmp);
}
#endif
