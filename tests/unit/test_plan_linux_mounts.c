/* SPDX-License-Identifier: MIT */
/*
 * The Linux mount plan as a pure function: made-up candidates in, the ordered mounts out (which
 * masks hold which mount points, which directories are pinned), without root or a real tree.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "tiesort.h"

#define FACT(k, p, dir) { .kind = (k), .path = (p), .is_dir = (dir), .dev = 1, .ino = __LINE__ }
#define GLOB(p, dir)                                                                           \
	{ .kind = SBX_MNT_DENY, .path = (p), .is_dir = (dir), .from_glob = true, .dev = 1,    \
	  .ino = __LINE__ }

/* The plan of these candidates, given a copy of them (the plan takes its ops' room). */
static int build(const struct sbx_mount_op *cands, size_t n, const char *const *granted,
		 size_t n_granted, struct sbx_mount_plan *p)
{
	struct sbx_mount_op *ops = malloc(n * sizeof(*ops));

	if (!ops)
		return -ENOMEM;
	memcpy(ops, cands, n * sizeof(*ops));
	return sbx_mount_plan_build(ops, n, granted, n_granted, p);
}

static const struct sbx_mount_op *op_at(const struct sbx_mount_plan *p, const char *path,
					enum sbx_mount_kind k)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->ops[i].kind == k && strcmp(p->ops[i].path, path) == 0)
			return &p->ops[i];
	return NULL;
}

static void check_order(const struct sbx_mount_plan *p, const char *const *want, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < p->n; i++) {
		if (p->ops[i].skip)
			continue;
		if (k >= n || strcmp(p->ops[i].path, want[k]) != 0)
			t_fail(__FILE__, __LINE__, "mount %zu is %s, expected %s", k, p->ops[i].path,
			       k < n ? want[k] : "(none)");
		k++;
	}
	CHECK_INT(k, n);
}

TEST(mount_plan_order_masks_and_pins)
{
	const struct sbx_mount_op cands[] = {
		FACT(SBX_MNT_WRITE, "/ws", true),
		FACT(SBX_MNT_READ_ONLY, "/ws/.git", true),
		FACT(SBX_MNT_DENY, "/ws/a/b/secret", false),
		FACT(SBX_MNT_DENY, "/out/secrets", true),
		FACT(SBX_MNT_READ, "/out/secrets/pub", true), /* re-opened in the mask */
		FACT(SBX_MNT_READ, "/etc", true),		/* no deny above: no mount */
		GLOB("/out/x.key", false),			/* nothing grants it: no mask */
		GLOB("/ws/y.key", false),
		FACT(SBX_MNT_DENY, "/", true), /* a root deny is no mask */
	};
	static const char *const granted[] = { "/etc", "/out/secrets/pub", "/ws" };
	static const char *const order[] = {
		/* by depth, then kind: write, pin, read-only, read, deny */
		"/ws", "/ws/a", "/ws/.git", "/out/secrets", "/ws/y.key", "/ws/a/b",
		"/out/secrets/pub", "/ws/a/b/secret",
	};
	struct sbx_mount_plan p;
	const struct sbx_mount_op *mask, *pub;

	CHECK_INT(build(cands, sizeof(cands) / sizeof(*cands), granted, 3, &p), 0);
	check_order(&p, order, sizeof(order) / sizeof(*order));
	CHECK(!op_at(&p, "/etc", SBX_MNT_READ));
	CHECK(!op_at(&p, "/out/x.key", SBX_MNT_DENY));
	CHECK(!op_at(&p, "/", SBX_MNT_DENY));
	/* The pins: the directories between the writable root and the deny inside it. */
	CHECK_INT(p.pins.n, 2);
	CHECK(op_at(&p, "/ws/a", SBX_MNT_PIN) && op_at(&p, "/ws/a/b", SBX_MNT_PIN));
	CHECK(op_at(&p, "/ws/a", SBX_MNT_PIN)->dev == 0); /* identity: the caller's to look up */
	/* The mask over /out/secrets holds the re-opened readable root's mount point. */
	mask = op_at(&p, "/out/secrets", SBX_MNT_DENY);
	pub = op_at(&p, "/out/secrets/pub", SBX_MNT_READ);
	CHECK(mask && pub && mask->holds && !mask->sealed);
	CHECK(mask && pub && pub->mask == (long)(mask - p.ops));
	CHECK(op_at(&p, "/ws/a/b/secret", SBX_MNT_DENY)->mask == -1);
	sbx_mount_plan_free(&p);

	/* Without a restricting ruleset every glob match is masked. */
	CHECK_INT(build(cands, sizeof(cands) / sizeof(*cands), NULL, 0, &p), 0);
	CHECK(op_at(&p, "/out/x.key", SBX_MNT_DENY) != NULL);
	sbx_mount_plan_free(&p);
}

TEST(mount_plan_repeats_nested_and_sealed_masks)
{
	const struct sbx_mount_op cands[] = {
		FACT(SBX_MNT_WRITE, "/ws", true),
		FACT(SBX_MNT_DENY, "/ws/sec", true),
		FACT(SBX_MNT_WRITE, "/ws/sec/pub", true), /* re-opened writable */
		FACT(SBX_MNT_DENY, "/ws/sec/other", false), /* inside a mask: hidden already */
		FACT(SBX_MNT_DENY, "/out/t", false),
		GLOB("/out/t", false), /* the same path twice: masked once */
		FACT(SBX_MNT_WRITE, "/ws/build", true),
		GLOB("/ws/build", true), /* a match equal to a writable root: sealed */
		FACT(SBX_MNT_READ_ONLY, "/ws/build/ro", true),
	};
	struct sbx_mount_plan p;
	const struct sbx_mount_op *o;
	size_t masks_at_t = 0;

	CHECK_INT(build(cands, sizeof(cands) / sizeof(*cands), NULL, 0, &p), 0);
	o = op_at(&p, "/ws/sec/pub", SBX_MNT_WRITE);
	CHECK(o && o->mask >= 0 && strcmp(p.ops[o->mask].path, "/ws/sec") == 0);
	CHECK(p.ops[o->mask].holds);
	CHECK(op_at(&p, "/ws/sec/other", SBX_MNT_DENY)->skip);
	for (size_t i = 0; i < p.n; i++)
		masks_at_t += strcmp(p.ops[i].path, "/out/t") == 0 && !p.ops[i].skip;
	CHECK_INT(masks_at_t, 1);
	o = op_at(&p, "/ws/build", SBX_MNT_DENY);
	CHECK(o && o->sealed && !o->skip);
	/* The writable root is attached first, the sealing mask on top, nothing below. */
	CHECK(op_at(&p, "/ws/build", SBX_MNT_WRITE) < o);
	CHECK(op_at(&p, "/ws/build/ro", SBX_MNT_READ_ONLY)->skip);
	/* Nothing to pin: every deny and carve-out sits right below its writable root. */
	CHECK_INT(p.pins.n, 0);
	sbx_mount_plan_free(&p);
}

TEST(mount_plan_pins_only_under_writable_roots)
{
	const struct sbx_mount_op cands[] = {
		FACT(SBX_MNT_DENY, "/out/x/y/z", false),     /* no writable root above */
		FACT(SBX_MNT_WRITE, "/ws", true),
		FACT(SBX_MNT_READ_ONLY, "/ws/r", true),
		FACT(SBX_MNT_DENY, "/ws/r/deep/er/x", false), /* below a carve-out: read-only */
		FACT(SBX_MNT_DENY, "/ws/p/q/x", false),
		FACT(SBX_MNT_READ_ONLY, "/ws/p/c", true), /* shares /ws/p with the deny */
	};
	struct sbx_mount_plan p;

	CHECK_INT(build(cands, sizeof(cands) / sizeof(*cands), NULL, 0, &p), 0);
	CHECK_INT(p.pins.n, 2);
	CHECK_STR(p.pins.n > 0 ? p.pins.v[0] : NULL, "/ws/p");
	CHECK_STR(p.pins.n > 1 ? p.pins.v[1] : NULL, "/ws/p/q");
	sbx_mount_plan_free(&p);
}

/*
 * The plan remembers what it found above the last directory asked (lib/plan_linux_mounts.c,
 * above_memo): the answer is only ever reused for that same directory. Directories of the same
 * length are the case a memo keyed wrongly would confuse: a denied file in a writable root taken
 * for one under a mask would lose its own mask, and pins would be made or missed.
 */
TEST(mount_plan_memo_answers_for_its_own_directory)
{
	const struct sbx_mount_op masks[] = {
		FACT(SBX_MNT_DENY, "/a", true),
		FACT(SBX_MNT_WRITE, "/b", true),
		FACT(SBX_MNT_DENY, "/a/x", false), /* hidden by the mask of /a already */
		FACT(SBX_MNT_DENY, "/b/y", false), /* in a writable root: a mask of its own */
	};
	const struct sbx_mount_op pins[] = {
		FACT(SBX_MNT_WRITE, "/w1", true),
		FACT(SBX_MNT_DENY, "/w1/d/f", false),
		FACT(SBX_MNT_DENY, "/w2", true),
		FACT(SBX_MNT_DENY, "/w2/e/g", false),
		FACT(SBX_MNT_WRITE, "/w3", true),
		FACT(SBX_MNT_DENY, "/w3/h/i", false),
	};
	struct sbx_mount_plan p;

	CHECK_INT(build(masks, sizeof(masks) / sizeof(*masks), NULL, 0, &p), 0);
	CHECK(op_at(&p, "/a/x", SBX_MNT_DENY) && op_at(&p, "/a/x", SBX_MNT_DENY)->skip);
	CHECK(op_at(&p, "/b/y", SBX_MNT_DENY) && !op_at(&p, "/b/y", SBX_MNT_DENY)->skip);
	sbx_mount_plan_free(&p);

	CHECK_INT(build(pins, sizeof(pins) / sizeof(*pins), NULL, 0, &p), 0);
	CHECK(op_at(&p, "/w2/e/g", SBX_MNT_DENY) && op_at(&p, "/w2/e/g", SBX_MNT_DENY)->skip);
	CHECK(op_at(&p, "/w3/h/i", SBX_MNT_DENY) && !op_at(&p, "/w3/h/i", SBX_MNT_DENY)->skip);
	CHECK_INT(p.pins.n, 2);
	CHECK_STR(p.pins.n > 0 ? p.pins.v[0] : NULL, "/w1/d");
	CHECK_STR(p.pins.n > 1 ? p.pins.v[1] : NULL, "/w3/h");
	sbx_mount_plan_free(&p);
}

/*
 * A writable root inside another (a workspace under /tmp): the directories between the two are
 * pinned, as the way to a carve-out is; one right below its outer root, or re-opened in a mask,
 * has nothing between to pin.
 */
TEST(mount_plan_pins_above_nested_writable_roots)
{
	const struct sbx_mount_op cands[] = {
		FACT(SBX_MNT_WRITE, "/tmp", true),
		FACT(SBX_MNT_WRITE, "/tmp/a/b/proj", true),
		FACT(SBX_MNT_READ_ONLY, "/tmp/a/b/proj/.git", true),
		FACT(SBX_MNT_WRITE, "/tmp/direct", true),
		FACT(SBX_MNT_DENY, "/tmp/sec", true),
		FACT(SBX_MNT_WRITE, "/tmp/sec/x/pub", true), /* in a mask: nothing to rename */
	};
	static const char *const order[] = {
		"/tmp", "/tmp/direct", "/tmp/a", "/tmp/sec", "/tmp/a/b", "/tmp/a/b/proj",
		"/tmp/sec/x/pub", "/tmp/a/b/proj/.git",
	};
	struct sbx_mount_plan p;

	CHECK_INT(build(cands, sizeof(cands) / sizeof(*cands), NULL, 0, &p), 0);
	check_order(&p, order, sizeof(order) / sizeof(*order));
	CHECK_INT(p.pins.n, 2);
	CHECK(op_at(&p, "/tmp/a", SBX_MNT_PIN) && op_at(&p, "/tmp/a/b", SBX_MNT_PIN));
	sbx_mount_plan_free(&p);
}

/*
 * Points (mount points made on the host for a run): an empty read-only mask each, the
 * directories between one and its writable root pinned; one below a denied directory is hidden
 * by that mask already, and never made.
 */
TEST(mount_plan_points)
{
	const struct sbx_mount_op cands[] = {
		FACT(SBX_MNT_WRITE, "/ws", true),
		FACT(SBX_MNT_POINT, "/ws/.codex", true),     /* a missing protected name */
		FACT(SBX_MNT_POINT, "/ws/d/e/first", false), /* a denied path's first missing part */
		FACT(SBX_MNT_DENY, "/ws/hidden", true),
		FACT(SBX_MNT_POINT, "/ws/hidden/x", false), /* under the mask: nothing to make */
	};
	static const char *const order[] = {
		"/ws", "/ws/d", "/ws/hidden", "/ws/.codex", "/ws/d/e", "/ws/d/e/first",
	};
	struct sbx_mount_plan p;

	CHECK_INT(build(cands, sizeof(cands) / sizeof(*cands), NULL, 0, &p), 0);
	check_order(&p, order, sizeof(order) / sizeof(*order));
	CHECK(op_at(&p, "/ws/d", SBX_MNT_PIN) && op_at(&p, "/ws/d/e", SBX_MNT_PIN));
	CHECK(op_at(&p, "/ws/hidden/x", SBX_MNT_POINT)->skip);
	CHECK(!op_at(&p, "/ws/.codex", SBX_MNT_POINT)->skip);
	CHECK(op_at(&p, "/ws/d/e/first", SBX_MNT_POINT)->mask == -1);
	sbx_mount_plan_free(&p);
}

/*
 * What lies in /dev/shm is mounted in the private /dev once it is attached: a root there that no
 * root there holds gets its point made in the private /dev/shm; a mask or point no root there
 * holds hides nothing the command reaches, nor does a mask over /dev or /dev/shm.
 */
TEST(mount_plan_roots_in_the_private_shm)
{
	const struct sbx_mount_op cands[] = {
		FACT(SBX_MNT_WRITE, "/dev/shm/ws", true),
		FACT(SBX_MNT_POINT, "/dev/shm/ws/.git", true),
		FACT(SBX_MNT_DENY, "/dev/shm/ws/a/secret", false),
		FACT(SBX_MNT_READ, "/dev/shm/ws/r", true), /* reached through the root */
		FACT(SBX_MNT_READ, "/dev/shm/pub", true),   /* no mask above: mounted all the same */
		FACT(SBX_MNT_DENY, "/dev/shm/other", false), /* no root above: nothing to mask */
		FACT(SBX_MNT_DENY, "/dev/shm/d", true),
		FACT(SBX_MNT_READ, "/dev/shm/d/in", true), /* its mask is not made: a point of its own */
		FACT(SBX_MNT_DENY, "/dev", true),
		FACT(SBX_MNT_WRITE, "/ws", true),
		FACT(SBX_MNT_DENY, "/ws/s", false),
		FACT(SBX_MNT_READ, "/shm", true), /* not in /dev/shm, no mask above: no mount */
	};
	static const char *const order[] = {
		"/ws", "/ws/s", "/dev/shm/ws", "/dev/shm/pub", "/dev/shm/ws/a", "/dev/shm/d/in",
		"/dev/shm/ws/.git", "/dev/shm/ws/a/secret",
	};
	struct sbx_mount_plan p;

	CHECK_INT(build(cands, sizeof(cands) / sizeof(*cands), NULL, 0, &p), 0);
	check_order(&p, order, sizeof(order) / sizeof(*order));
	CHECK(!op_at(&p, "/dev", SBX_MNT_DENY));
	CHECK(!op_at(&p, "/shm", SBX_MNT_READ));
	CHECK(op_at(&p, "/dev/shm/ws/r", SBX_MNT_READ)->skip);
	CHECK(op_at(&p, "/dev/shm/other", SBX_MNT_DENY)->skip);
	CHECK(op_at(&p, "/dev/shm/d", SBX_MNT_DENY)->skip);
	for (size_t i = 0; i < p.n; i++) {
		const struct sbx_mount_op *o = &p.ops[i];
		bool top = !strcmp(o->path, "/dev/shm/ws") || !strcmp(o->path, "/dev/shm/pub") ||
			   !strcmp(o->path, "/dev/shm/d/in");

		CHECK_INT(o->in_shm, strncmp(o->path, "/dev/shm/", 9) == 0);
		if (o->shm_point != top)
			t_fail(__FILE__, __LINE__, "%s: its point %s made in the private /dev/shm",
			       o->path, top ? "not" : "wrongly");
		CHECK(o->mask == -1);
	}
	sbx_mount_plan_free(&p);

	/* /dev/shm itself: mounted over the private one; what lies in it is reached through it. */
	{
		const struct sbx_mount_op shm[] = {
			FACT(SBX_MNT_WRITE, "/dev/shm", true),
			FACT(SBX_MNT_DENY, "/dev/shm", true), /* the private /dev's work */
			FACT(SBX_MNT_READ_ONLY, "/dev/shm/ro", true),
			FACT(SBX_MNT_POINT, "/dev/shm/.codex", true),
		};
		static const char *const shm_order[] = {"/dev/shm", "/dev/shm/ro",
							"/dev/shm/.codex"};

		CHECK_INT(build(shm, sizeof(shm) / sizeof(*shm), NULL, 0, &p), 0);
		check_order(&p, shm_order, sizeof(shm_order) / sizeof(*shm_order));
		CHECK(op_at(&p, "/dev/shm", SBX_MNT_WRITE)->shm_point);
		CHECK(!op_at(&p, "/dev/shm/ro", SBX_MNT_READ_ONLY)->shm_point);
		CHECK(!op_at(&p, "/dev/shm/.codex", SBX_MNT_POINT)->shm_point);
		sbx_mount_plan_free(&p);
	}
}

#ifdef SBX_FAILALLOC
/* The plans of n candidates with the ties of every sort kept (st) and reversed (rev): equal. */
static void build_both_ways(const struct sbx_mount_op *cands, size_t n, struct sbx_mount_plan *st,
			    struct sbx_mount_plan *rev)
{
	ts_mode(TS_STABLE);
	CHECK_INT(build(cands, n, NULL, 0, st), 0);
	ts_mode(TS_REVERSED);
	CHECK_INT(build(cands, n, NULL, 0, rev), 0);
	ts_mode(TS_LIBC);
	CHECK_INT(rev->n, st->n);
	for (size_t i = 0; i < st->n && i < rev->n; i++) {
		const struct sbx_mount_op *a = &st->ops[i], *b = &rev->ops[i];

		if (strcmp(a->path, b->path) || a->kind != b->kind || a->ino != b->ino ||
		    a->from_glob != b->from_glob || a->skip != b->skip || a->mask != b->mask ||
		    a->sealed != b->sealed || a->holds != b->holds)
			t_fail(__FILE__, __LINE__,
			       "op %zu: %s (kind %u, ino %llu%s) against %s (kind %u, ino %llu%s) "
			       "with the ties reversed",
			       i, a->path, a->kind, a->ino, a->skip ? ", skipped" : "", b->path,
			       b->kind, b->ino, b->skip ? ", skipped" : "");
	}
	CHECK_INT(rev->pins.n, st->pins.n);
	for (size_t i = 0; i < st->pins.n && i < rev->pins.n; i++)
		CHECK_STR(rev->pins.v[i], st->pins.v[i]);
}

/*
 * The C library's qsort may order equal items either way (musl's is not stable): the plan is
 * the same whichever way it does, and it is the one of the candidates' own order.
 */
TEST(mount_plan_ties_keep_the_candidates_order)
{
	/* A tie in application order: an entry and the glob match at its path. The entry is the
	 * one mounted, the match its repeat. (No pin: the ops are ordered once.) */
	const struct sbx_mount_op twice[] = {
		FACT(SBX_MNT_WRITE, "/ws", true),
		FACT(SBX_MNT_DENY, "/ws/t", false),
		GLOB("/ws/t", false),
	};
	/* A tie in the index by path: a writable root and a carve-out at one path. The writable
	 * root, applied first, is the op found above the deny below them, whose directories are
	 * then pinned. */
	const struct sbx_mount_op one_path[] = {
		FACT(SBX_MNT_WRITE, "/ws", true),
		FACT(SBX_MNT_WRITE, "/ws/x", true),
		FACT(SBX_MNT_READ_ONLY, "/ws/x", true),
		FACT(SBX_MNT_DENY, "/ws/x/a/b", false),
	};
	struct sbx_mount_plan st, rev;
	const struct sbx_mount_op *t = NULL;

	build_both_ways(twice, sizeof(twice) / sizeof(*twice), &st, &rev);
	for (size_t i = 0; i < st.n; i++)
		if (strcmp(st.ops[i].path, "/ws/t") == 0 && !st.ops[i].skip)
			t = t ? NULL : &st.ops[i]; /* one, not two */
	CHECK(t && !t->from_glob && t->ino == twice[1].ino);
	sbx_mount_plan_free(&st);
	sbx_mount_plan_free(&rev);

	build_both_ways(one_path, sizeof(one_path) / sizeof(*one_path), &st, &rev);
	CHECK_INT(st.pins.n, 1);
	CHECK_STR(st.pins.n ? st.pins.v[0] : NULL, "/ws/x/a");
	sbx_mount_plan_free(&st);
	sbx_mount_plan_free(&rev);
}
#endif
