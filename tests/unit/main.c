/* SPDX-License-Identifier: MIT */
/* main.c - runs every registered unit test; argv[1] is the vectors directory. */
#include <stdarg.h>
#include <stdlib.h>

#include "t.h"

#define T_MAX 1024

static struct {
	const char *name;
	t_fn fn;
} tests[T_MAX];
static size_t n_tests;
static int cur_failed;
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

int main(int argc, char **argv)
{
	size_t passed = 0, failed = 0;
	const char *only = argc > 2 ? argv[2] : NULL;

	if (argc > 1)
		t_vectors_dir = argv[1];
	for (size_t i = 0; i < n_tests; i++) {
		if (only && !strstr(tests[i].name, only))
			continue;
		cur_failed = 0;
		tests[i].fn();
		if (cur_failed) {
			fprintf(stderr, "FAIL %s\n", tests[i].name);
			failed++;
		} else {
			passed++;
		}
	}
	printf("unit: %zu passed, %zu failed\n", passed, failed);
	return failed ? 1 : 0;
}
