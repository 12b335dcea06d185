/* SPDX-License-Identifier: MIT */
/*
 * main.c - runs every registered unit test; argv[1] is the vectors directory. argv[2], when
 * given, selects the tests whose name contains it, or with "TEST/CASE" one case of one test.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>

#include "t.h"

#define T_MAX 1024

static struct {
	const char *name;
	t_fn fn;
} tests[T_MAX];
static size_t n_tests;
static int cur_failed;
static size_t passed, failed;
static const char *cur_name, *only_test, *only_case;
const char *t_vectors_dir = "tests/vectors";

void t_register(const char *name, t_fn fn)
{
	if (n_tests < T_MAX)
		tests[n_tests++] = (typeof(tests[0])){ name, fn };
}

void t_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "  %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	cur_failed++;
}

int t_failures(void)
{
	return cur_failed;
}

void t_case(const char *name, void (*fn)(void *arg), void *arg)
{
	int outer = cur_failed;

	if (only_case && strcmp(name, only_case) != 0)
		return;
	cur_failed = 0;
	fn(arg);
	if (cur_failed) {
		fprintf(stderr, "FAIL %s/%s\n", cur_name, name);
		failed++;
	} else {
		passed++;
	}
	/* A failed case is counted once, as a case; the test around it is not failed again. */
	cur_failed = outer;
}

int main(int argc, char **argv)
{
	static char sel[256];
	char *slash;

	if (argc > 1)
		t_vectors_dir = argv[1];
	if (argc > 2) {
		snprintf(sel, sizeof(sel), "%s", argv[2]);
		only_test = sel;
		if ((slash = strchr(sel, '/'))) {
			*slash = '\0';
			only_case = slash + 1;
		}
	}
	for (size_t i = 0; i < n_tests; i++) {
		size_t before = passed + failed;

		if (only_test && !(only_case ? strcmp(tests[i].name, only_test) == 0
					     : strstr(tests[i].name, only_test) != NULL))
			continue;
		cur_name = tests[i].name;
		cur_failed = 0;
		tests[i].fn();
		/* A test made of cases counts through them, and adds a failure of its own only. */
		if (cur_failed) {
			fprintf(stderr, "FAIL %s\n", tests[i].name);
			failed++;
		} else if (passed + failed == before) {
			passed++;
		}
	}
	printf("unit: %zu passed, %zu failed\n", passed, failed);
	return failed ? 1 : 0;
}
