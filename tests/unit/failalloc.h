/* SPDX-License-Identifier: MIT */
/*
 * failalloc.h - allocation failure injection for the unit tests. The test binary is linked with
 * the allocation functions wrapped (GNU ld --wrap, so only on Linux; SBX_FAILALLOC is defined
 * then): every allocation made by lib/ or the tests goes through a counter that can be told to
 * fail one call. jansson's allocations go through the same counter while fa_jansson(true) holds.
 */
#ifndef SBX_TEST_FAILALLOC_H
#define SBX_TEST_FAILALLOC_H

#include <stdbool.h>

/* Fail the n-th allocation from now (0 is the next one); -1 fails none. */
void fa_arm(long n);
/* Has the armed allocation failed since fa_arm()? */
bool fa_fired(void);
/* Allocation calls made through the counter so far (failed ones included). */
long fa_calls(void);
/* Route jansson's allocations through the counter too (true), or back to malloc (false). */
void fa_jansson(bool on);

#endif
