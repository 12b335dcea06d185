/* SPDX-License-Identifier: MIT */
/*
 * test_scale.c - what a plan holds per profile entry, as a guard that does not depend on time:
 * the allocations planning makes per entry and the heap the plan keeps per entry, at 10,000
 * entries less at 10, for a plan made beside the profile it is made from (sbx_plan_build) and
 * for the one `run` and the helper make from a loaded profile they give up
 * (sbx_plan_build_take). A per-entry copy, reason or table slot added by mistake shows here;
 * instructions per entry are counted by make bench-count (callgrind).
 *
 * Allocations are counted by the unit tests' wrapped allocator (Linux); the heap by glibc's
 * mallinfo2(), which a sanitizer's allocator does not keep: each figure is checked where it
 * is counted, and said to be skipped otherwise.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "failalloc.h"
#include "sbx.h"
#include "t.h"

/*
 * The bounds: today's allocations (a count, the same on every glibc host), and about a third
 * above today's heap (see tests/bench/README.md), for a plan made beside its profile (a copy of
 * each path and a resolved root: 2 allocations and 143 bytes per entry) and for one that takes a
 * loaded profile, as run and the helper do (a requirement of 48 bytes whose rule is written when
 * read, the roots borrowing the profile's paths: no allocation of its own and 56 bytes per
 * entry, so that a copy of each path fails). A change that adds work per entry for a reason
 * raises them here, in the open.
 */
#define MAX_ALLOCS_PER_ENTRY	  2
#define MAX_HEAP_PER_ENTRY	  190
#define MAX_ALLOCS_PER_ENTRY_TAKE 0
#define MAX_HEAP_PER_ENTRY_TAKE	  75

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#endif

/* A host where every path under /big exists as a file, and /big and /ws are directories. */
static int big_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	size_t n = strlen(path);

	(void)self;
	memset(out, 0, sizeof(*out));
	if (strncmp(path, "/big/", 5) != 0 && strcmp(path, "/big") != 0 &&
	    strcmp(path, "/ws") != 0 && strcmp(path, "/") != 0)
		return 0;
	out->exists = true;
	out->type = strncmp(path, "/big/", 5) == 0 ? SBX_FT_REG : SBX_FT_DIR;
	out->ino = n;
	memcpy(out->real, path, n + 1);
	return 0;
}

static int big_read(void *self, const char *path, char *buf, size_t size, size_t *len)
{
	(void)self, (void)path, (void)buf, (void)size;
	*len = 0;
	return -ENOENT;
}

static int big_list(void *self, const char *dir, sbx_fs_list_fn each, void *arg)
{
	(void)self, (void)dir, (void)each, (void)arg;
	return 0;
}

static const struct sbx_fsview big_view = {
	.lookup = big_lookup, .read_file = big_read, .list = big_list};

static long heap_in_use(void)
{
#if defined(__GLIBC__) && !defined(SANITIZED)
	struct mallinfo2 m = mallinfo2();

	return (long)(m.uordblks + m.hblkhd);
#else
	return -1;
#endif
}

static long allocs(void)
{
#ifdef SBX_FAILALLOC
	return fa_calls();
#else
	return -1;
#endif
}

struct cost {
	long allocs, heap;
	size_t reqs;
};

/* Plans n path entries of access a (beside :minimal or :root, and the workspace). */
static struct cost plan_cost(size_t n, enum sbx_access a, bool take)
{
	struct sbx_ctx ctx = {.cwd = "/ws", .platform = SBX_PLATFORM_LINUX, .fs = &big_view};
	struct sbx_profile p = {.type = SBX_MANAGED, .fs.kind = SBX_FS_RESTRICTED};
	struct sbx_linux_facts facts;
	struct sbx_plan plan;
	struct sbx_diag d;
	struct cost c = {0};
	long a0, h0;
	char path[64];

	CHECK_INT(sbx_fs_push_special(&p.fs, a == SBX_DENY ? SBX_SP_ROOT : SBX_SP_MINIMAL, NULL,
				      SBX_READ, false),
		  0);
	CHECK_INT(sbx_fs_push_special(&p.fs, SBX_SP_PROJECT_ROOTS, NULL, SBX_WRITE, false), 0);
	for (size_t i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "/big/f%05zu", i);
		CHECK_INT(sbx_fs_push_path(&p.fs, path, a, false), 0);
	}
	if (take) {
		/* As run and the helper have it: loaded from the canonical text (paths pooled). */
		char *text = sbx_profile_to_json(&p);

		CHECK(text != NULL);
		sbx_profile_free(&p);
		CHECK_INT(sbx_profile_load_buf(text, strlen(text), "t.json", &p, NULL, NULL, &d),
			  0);
		free(text);
	}
	sbx_linux_facts_assumed(&facts);
	a0 = allocs();
	h0 = heap_in_use();
	if (take)
		CHECK_INT(sbx_plan_build_take(&p, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED,
					      &plan, &d),
			  0);
	else
		CHECK_INT(sbx_plan_build(&p, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan,
					 &d),
			  0);
	CHECK_INT(sbx_plan_attach_linux(&plan, &facts), 0);
	CHECK(sbx_plan_enforceable(&plan));
	c.allocs = allocs() - a0;
	/* What the plan holds, with the profile it was made from when that is still there. */
	c.heap = heap_in_use() - h0;
	c.reqs = plan.n_reqs;
	sbx_plan_free(&plan);
	sbx_profile_free(&p);
	return c;
}

/* Holds one figure per entry to its bound; counted is false where it cannot be counted. */
static void check_bound(const char *what, const char *unit, bool counted, long per_entry, long max)
{
	if (!counted)
		printf("  %s: %s not counted here (no allocator that counts them)\n", what, unit);
	else if (per_entry > max)
		t_fail(__FILE__, __LINE__, "%s: %ld %s per entry (at most %ld)", what, per_entry,
		       unit, max);
	else if (getenv("SBX_SCALE_PRINT"))
		printf("  %s: %ld %s per entry\n", what, per_entry, unit);
}

static void check_scale(const char *what, enum sbx_access a, bool take)
{
	struct cost small = plan_cost(10, a, take), big = plan_cost(10010, a, take);

	/* Every entry is a requirement of its own (no entry lies under another's path). */
	CHECK_INT(big.reqs - small.reqs, 10000);
	check_bound(what, "allocations", small.allocs >= 0, (big.allocs - small.allocs) / 10000,
		    take ? MAX_ALLOCS_PER_ENTRY_TAKE : MAX_ALLOCS_PER_ENTRY);
	check_bound(what, "bytes of heap", small.heap >= 0, (big.heap - small.heap) / 10000,
		    take ? MAX_HEAP_PER_ENTRY_TAKE : MAX_HEAP_PER_ENTRY);
}

TEST(scale_plan_per_entry)
{
	check_scale("read entries, a plan beside its profile", SBX_READ, false);
	check_scale("deny entries, a plan beside its profile", SBX_DENY, false);
	check_scale("read entries, run's and the helper's plan", SBX_READ, true);
	check_scale("deny entries, run's and the helper's plan", SBX_DENY, true);
}

/* The arena a plan keeps its own paths in, and the helper its looked-up paths: aligned pieces. */
TEST(scale_arena_pieces)
{
	struct sbx_arena a = {0};
	char big[100000];
	char *s, *t, *l;

	s = sbx_arena_strndup(&a, "abc", 3);
	CHECK_STR(s, "abc");
	for (size_t i = 0; i < 5000; i++) {
		unsigned long long *p = sbx_arena_alloc(&a, sizeof(*p) * (1 + i % 3), 8);

		CHECK(p != NULL);
		CHECK(((uintptr_t)p & 7) == 0);
		*p = i; /* writable, and not overlapping what came before (ASan would say) */
		t = sbx_arena_alloc(&a, 1 + i % 5, 1);
		CHECK(t != NULL);
		memset(t, 'x', 1 + i % 5);
	}
	/* A piece larger than any block gets one of its own. */
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	l = sbx_arena_strndup(&a, big, sizeof(big) - 1);
	CHECK(l && strcmp(l, big) == 0);
	CHECK_STR(s, "abc");
	sbx_arena_free(&a);
	CHECK(a.head == NULL);
}
