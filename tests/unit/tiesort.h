/* SPDX-License-Identifier: MIT */
/*
 * tiesort.h - the unit tests' qsort(3). C libraries differ in how qsort orders items its
 * comparator calls equal: glibc's sorts small arrays stably, musl's smoothsort does not. Code
 * that must give one answer under any of them may not depend on either. The test binary is
 * linked with qsort and the library's sbx_sort_ptrs wrapped (GNU ld --wrap, as for failalloc.h;
 * SBX_FAILALLOC is defined then), so a test can sort as a stable sort does, or with every run
 * of equal items reversed, and compare the two answers. Calls within lib/path.c itself are not
 * wrapped (the linker wraps references between objects only).
 */
#ifndef SBX_TEST_TIESORT_H
#define SBX_TEST_TIESORT_H

enum ts_mode {
	TS_LIBC = 0, /* the C library's qsort (the default) */
	TS_STABLE,   /* equal items keep their order in the array */
	TS_REVERSED, /* equal items end in the reverse of their order in the array */
};
void ts_mode(enum ts_mode m);

#endif
