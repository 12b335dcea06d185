/* SPDX-License-Identifier: MIT */
/*
 * t.h - a minimal unit test harness. TEST(name) registers itself at start-up, so a new test
 * file needs no list to be edited. CHECK* record a failure and go on; the runner prints
 * "N passed, N failed" and exits non-zero on any failure.
 *
 * A test that runs cases from data (a vector, a fixture directory) reports each through
 * t_case(), so that every case counts, passes or fails, and is named on its own.
 */
#ifndef SBX_T_H
#define SBX_T_H

#include <stdio.h>
#include <string.h>

typedef void (*t_fn)(void);
void t_register(const char *name, t_fn fn);
void t_fail(const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The failures recorded so far by the test (or case) running: what a forked child reports. */
int t_failures(void);
/* Runs fn(arg) as the case "TEST/name": counted and reported apart from the enclosing test. */
void t_case(const char *name, void (*fn)(void *arg), void *arg);
/* Directory holding the vector files, from argv[1]. */
extern const char *t_vectors_dir;
/*
 * The last n bytes (below a page) before a page that can be neither read nor written: a read
 * past them faults, where a sanitizer may not see one made by a vector load. The same two pages
 * each call, kept for the run.
 */
char *t_page_end(size_t n);

#define TEST(name)                                                            \
	static void test_##name(void);                                        \
	__attribute__((constructor)) static void reg_##name(void)             \
	{                                                                     \
		t_register(#name, test_##name);                               \
	}                                                                     \
	static void test_##name(void)

#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c))                                                     \
			t_fail(__FILE__, __LINE__, "CHECK(%s)", #c);          \
	} while (0)
#define CHECK_INT(a, b)                                                       \
	do {                                                                  \
		long long a_ = (long long)(a), b_ = (long long)(b);           \
		if (a_ != b_)                                                 \
			t_fail(__FILE__, __LINE__, "%s == %lld, expected %lld", #a, a_, b_); \
	} while (0)
#define CHECK_STR(a, b)                                                       \
	do {                                                                  \
		const char *a_ = (a), *b_ = (b);                              \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                        \
			t_fail(__FILE__, __LINE__, "%s == \"%s\", expected \"%s\"", #a, \
			       a_ ? a_ : "(null)", b_ ? b_ : "(null)");       \
	} while (0)

#endif
