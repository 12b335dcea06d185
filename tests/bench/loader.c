/* SPDX-License-Identifier: MIT */
/*
 * loader.c - micro-benchmark of the profile hand-over: what sbxrun spends emitting the canonical
 * profile for its helper, and what the helper spends loading it again.
 *
 *   loader N [ITERATIONS]
 *
 * Builds a managed profile of N path entries (plus the two specials every scale profile of
 * tests/bench/run starts with), then times ITERATIONS rounds of sbx_profile_to_json() and of
 * sbx_profile_load_buf() on the result (as the helper calls it: no legacy input), with user CPU
 * time from getrusage(). Prints one line per phase: N, phase, ns per round, ns per entry. The
 * peak resident set of the process is printed last.
 *
 * For counts that do not depend on the machine's load, run one iteration under callgrind and
 * collect only the phase of interest:
 *   valgrind --tool=callgrind --toggle-collect=sbx_profile_load_buf build/bench/loader 10000 1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "sbx.h"

static double user_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec * 1e9 + (double)ru.ru_utime.tv_usec * 1e3;
}

static int build(size_t n, struct sbx_profile *p)
{
	char path[128];
	int r;

	memset(p, 0, sizeof(*p));
	p->type = SBX_MANAGED;
	p->fs.kind = SBX_FS_RESTRICTED;
	r = sbx_fs_push_special(&p->fs, SBX_SP_MINIMAL, NULL, SBX_READ, false);
	if (!r)
		r = sbx_fs_push_special(&p->fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false);
	for (size_t i = 0; !r && i < n; i++) {
		snprintf(path, sizeof(path), "/var/tmp/sbx-bench.Xa1b2c/many/f%05zu", i);
		r = sbx_fs_push_path(&p->fs, path, SBX_READ, false);
	}
	return r;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000;
	long iters = argc > 2 ? strtol(argv[2], NULL, 10) : 100;
	struct sbx_profile p, q;
	struct sbx_diag d;
	struct rusage ru;
	double t0, t_emit, t_load;
	char *text = NULL;

	if (iters < 1 || build(n, &p)) {
		fprintf(stderr, "usage: loader N [ITERATIONS]\n");
		return 2;
	}
	t0 = user_ns();
	for (long i = 0; i < iters; i++) {
		free(text);
		text = sbx_profile_to_json(&p);
		if (!text) {
			fprintf(stderr, "loader: out of memory\n");
			return 1;
		}
	}
	t_emit = (user_ns() - t0) / (double)iters;
	t0 = user_ns();
	for (long i = 0; i < iters; i++) {
		if (sbx_profile_load_buf(text, strlen(text), "--permission-profile", &q, NULL, NULL,
					 &d)) {
			fprintf(stderr, "loader: %s\n", d.msg);
			return 1;
		}
		sbx_profile_free(&q);
	}
	t_load = (user_ns() - t0) / (double)iters;
	printf("%zu entries, emit: %.0f ns, %.1f ns per entry\n", n, t_emit,
	       t_emit / (double)(n + 2));
	printf("%zu entries, load: %.0f ns, %.1f ns per entry\n", n, t_load,
	       t_load / (double)(n + 2));
	getrusage(RUSAGE_SELF, &ru);
	printf("%zu entries, peak RSS: %ld KiB (%zu bytes of JSON)\n", n, ru.ru_maxrss,
	       strlen(text));
	free(text);
	sbx_profile_free(&p);
	return 0;
}
