/* SPDX-License-Identifier: MIT */
/*
 * plan_linux_mounts.c - the mount plan of the Linux enter sequence, as a pure function of the
 * resolved rule paths: which mounts, in which order, which masks hold which mount points, and
 * which directories are bound onto themselves. No system call: the helper resolves the paths
 * (platform/linux/resolve.c) and carries the plan out (platform/linux/enter.c); the unit tests
 * run it on made-up candidates, without root.
 *
 * The rules, shallow to deep:
 *   - A writable root is a read-write clone of its own tree; a read-only carve-out a read-only
 *     clone over it; a denied path an empty read-only mask (a file or a directory).
 *   - A readable root needs a mount only inside a denied directory, to be re-opened in its mask;
 *     anywhere else / read-only and Landlock already give it its access.
 *   - A glob match that nothing grants gets no mask: Landlock refuses it already, and a mask
 *     would only publish its path in /proc/self/mountinfo.
 *   - The directories between a writable root and a denied path, carve-out or writable root
 *     inside it are bound onto themselves (SBX_MNT_PIN): a mount point cannot be renamed. A
 *     nested writable root (a workspace under /tmp) counts: moving the directories above it
 *     would carry its carve-outs and denies away from the names the next run looks up.
 *   - A path denied twice is masked once; a deny inside a mask is already hidden; a writable
 *     root, carve-out or readable root inside a mask is re-opened: its mount point is made in
 *     that mask, which then holds it; a mask over a path that is itself re-opened (a glob match
 *     equal to a writable root) is sealed: it hides everything below it.
 *   - A point (a missing protected name, the first missing component of a denied path) is an
 *     empty read-only mask over a mount point made on the host; nothing lies below it, and the
 *     directories between it and its writable root are pinned like a denied path's.
 *   - The plan is applied with the sandbox's private /dev, which covers the host's. What lies at
 *     or under /dev/shm is mounted inside it once it is attached, at the same paths: a root
 *     there that nothing mounted there holds gets its mount point made in the private /dev/shm
 *     (or, for /dev/shm itself, is mounted over it), a readable root included; a mask or point
 *     there that no root holds would hide nothing the command can reach, and a mask over /dev
 *     or /dev/shm itself is the private /dev's work: neither is mounted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

static int op_path_cmp(const void *a, const void *b)
{
	const struct sbx_mount_op *x = *(const struct sbx_mount_op *const *)a;
	const struct sbx_mount_op *y = *(const struct sbx_mount_op *const *)b;
	int c = sbx_path_cmp(x->path, x->len, y->path, y->len);

	/* Ops at one path keep their order (mounted_at takes the first): qsort is not stable in
	 * every C library (musl's is not), so the order of the array decides a tie. */
	return c ? c : (x > y) - (x < y);
}

/* Application order: shallow before deep, then by kind (how they stack at one depth). */
static int op_order_cmp(const void *a, const void *b)
{
	const struct sbx_mount_op *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return sbx_path_cmp(x->path, x->len, y->path, y->len);
}

static int op_order_ptr_cmp(const void *a, const void *b)
{
	const struct sbx_mount_op *x = *(const struct sbx_mount_op *const *)a;
	const struct sbx_mount_op *y = *(const struct sbx_mount_op *const *)b;
	int c = op_order_cmp(x, y);

	/* A tie keeps the array's order, whichever C library sorts (see op_path_cmp). */
	return c ? c : (x > y) - (x < y);
}

/* Do the two ops lie at one path? */
static bool same_path(const struct sbx_mount_op *x, const struct sbx_mount_op *y)
{
	return x->len == y->len && sbx_bytes_cmp(x->path, y->path, x->len) == 0;
}

/*
 * Sorts the n ops in application order through by (room for n pointers), then moves each op to
 * its place: the C library's sort of 40-byte items takes two pointers of scratch per item, of
 * pointers one (at 10,000 masks 80 KB less at the plan's peak).
 */
static void order_ops(struct sbx_mount_op *ops, struct sbx_mount_op **by, size_t n)
{
	for (size_t i = 0; i < n; i++)
		by[i] = &ops[i];
	sbx_sort_ptrs(by, n, op_order_ptr_cmp);
	/* by[j] is the op that belongs at j: each cycle of the permutation is followed once. */
	for (size_t i = 0; i < n; i++) {
		struct sbx_mount_op first;
		size_t j = i;

		if (by[i] == &ops[i])
			continue;
		first = ops[i];
		for (;;) {
			size_t k = (size_t)(by[j] - ops);

			by[j] = &ops[j];
			if (k == i) {
				ops[j] = first;
				break;
			}
			ops[j] = ops[k];
			j = k;
		}
	}
}

/*
 * The ops sorted by path, and where each distinct path's run of ops begins, found by hash: each
 * op looks up every ancestor of its path, so a profile of 10,000 masks makes 50,000 look-ups,
 * which a binary search would pay with some 15 string comparisons each.
 */
struct by_path {
	struct sbx_mount_op **v;
	size_t n;
	struct bp_slot {
		uint32_t hash;	/* the low half of the path's */
		uint32_t first; /* index in v of the run's first op, plus one; 0 is empty */
	} * slots;
	size_t cap;
	struct sbx_lenset lens; /* of the paths held */
};

/* Sorts the n ops of ops by path and indexes the runs of equal paths. */
static int by_path_build(struct by_path *bp, struct sbx_mount_op *ops, size_t n)
{
	size_t cap = 16;

	free(bp->slots);
	bp->slots = NULL;
	if (n >= INT32_MAX)
		return -ENOMEM; /* an index that does not fit a slot, or an op's mask */
	for (size_t i = 0; i < n; i++)
		bp->v[i] = &ops[i];
	sbx_sort_ptrs(bp->v, n, op_path_cmp);
	bp->n = n;
	while (cap < n + n / 3 + 2)
		cap *= 2;
	bp->slots = calloc(cap, sizeof(*bp->slots));
	if (!bp->slots)
		return -ENOMEM;
	bp->cap = cap;
	memset(&bp->lens, 0, sizeof(bp->lens));
	for (size_t i = 0; i < n; i++) {
		size_t len = bp->v[i]->len, s;
		uint64_t h;

		bp->v[i]->alone = true;
		if (i > 0 && same_path(bp->v[i - 1], bp->v[i])) {
			bp->v[i - 1]->alone = bp->v[i]->alone = false;
			continue;
		}
		sbx_lenset_add(&bp->lens, len);
		h = sbx_hash(bp->v[i]->path, len);
		for (s = (size_t)h & (cap - 1); bp->slots[s].first; s = (s + 1) & (cap - 1))
			;
		bp->slots[s] = (struct bp_slot){(uint32_t)h, (uint32_t)(i + 1)};
	}
	return 0;
}

/*
 * The op mounted at exactly path (one not skipped), or NULL: a mask before a re-opened op, since
 * the mask lies on top of it; with open_only, a re-opened op only.
 */
static struct sbx_mount_op *mounted_at(const struct by_path *bp, const char *path, size_t len,
				       bool open_only)
{
	struct sbx_mount_op *found = NULL, *first;
	size_t s, lo;
	uint64_t h;

	if (!sbx_lenset_has(&bp->lens, len))
		return NULL;
	h = sbx_hash(path, len);

	for (s = (size_t)h & (bp->cap - 1); bp->slots[s].first; s = (s + 1) & (bp->cap - 1)) {
		first = bp->v[bp->slots[s].first - 1];
		if (bp->slots[s].hash == (uint32_t)h && first->len == len &&
		    sbx_bytes_cmp(first->path, path, len) == 0)
			break;
	}
	if (!bp->slots[s].first)
		return NULL;
	first = bp->v[bp->slots[s].first - 1];
	for (lo = bp->slots[s].first - 1; lo < bp->n && same_path(bp->v[lo], first); lo++) {
		struct sbx_mount_op *op = bp->v[lo];

		if (op->skip || (open_only && op->kind == SBX_MNT_DENY))
			continue;
		if (!found || op->kind == SBX_MNT_DENY)
			found = op;
	}
	return found;
}

/* The nearest strict ancestor mounted, found by the one ancestor walk. */
struct above {
	const struct by_path *bp;
	struct sbx_mount_op *found;
	struct sbx_strv *pins; /* ancestors_to_pin: the directories passed on the way up */
};

static int mounted_here(void *arg, const char *prefix, size_t len)
{
	struct above *a = arg;

	a->found = mounted_at(a->bp, prefix, len, false);
	if (a->found)
		return 1;
	return a->pins ? sbx_strv_push(a->pins, prefix) : 0;
}

/*
 * The answer of mounted_above for the directory asked last: the ops are visited in application
 * order, where the files of one directory (10,000 denied files) come one after the other, and
 * all of them share it. It holds while no op above that directory changes, which no caller
 * does between two ops of one depth (the ops above are shallower: decided before).
 */
struct above_memo {
	const char *dir; /* the path it was asked for, of which dir_len bytes are the directory */
	size_t dir_len;
	struct sbx_mount_op *found;
};

/* The length of op's directory ("/" for "/a"), or 0 for "/" itself, which has none. */
static size_t dir_len(const struct sbx_mount_op *op)
{
	size_t n = op->len;

	while (n > 0 && op->path[n - 1] != '/')
		n--;
	return n > 1 ? n - 1 : n;
}

/* Was the last answer of m asked for op's directory? If not, m is set to ask for it. */
static bool memo_hit(struct above_memo *m, const struct sbx_mount_op *op)
{
	size_t n = dir_len(op);

	if (n && m->dir && n == m->dir_len && sbx_bytes_cmp(m->dir, op->path, n) == 0)
		return true;
	m->dir = n ? op->path : NULL;
	m->dir_len = n;
	return false;
}

static struct sbx_mount_op *mounted_above(const struct by_path *bp, const struct sbx_mount_op *op,
					  struct above_memo *m)
{
	struct above a = {bp, NULL, NULL};

	if (m && memo_hit(m, op))
		return m->found;
	sbx_path_ancestors(op->path, mounted_here, &a);
	if (m)
		m->found = a.found;
	return a.found;
}

/*
 * The directories strictly between each denied path, carve-out or writable root and the nearest
 * op above it, when that op is a writable root: those are the ones the command could rename.
 * (Below a mask or a read-only carve-out nothing can be renamed anyway.) Sorted, without repeats.
 */
static int ancestors_to_pin(struct sbx_mount_op *ops, size_t n_ops, const struct by_path *bp,
			    struct sbx_strv *out)
{
	struct above_memo m = {0};
	size_t o = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n_ops; i++) {
		struct above a = {bp, NULL, out};
		struct sbx_mount_op *up;

		if (ops[i].kind != SBX_MNT_DENY && ops[i].kind != SBX_MNT_READ_ONLY &&
		    ops[i].kind != SBX_MNT_POINT && ops[i].kind != SBX_MNT_WRITE)
			continue;
		/* In the directory of the op before: its pins are in already. */
		if (memo_hit(&m, &ops[i]))
			continue;
		/* Not under a writable root (or under a mask): nothing to pin. */
		up = mounted_above(bp, &ops[i], NULL);
		if (!up || up->kind != SBX_MNT_WRITE)
			continue;
		r = sbx_path_ancestors(ops[i].path, mounted_here, &a);
	}
	if (r < 0 || out->n < 2)
		return r < 0 ? r : 0;
	sbx_sort_strs(out->v, out->n);
	for (size_t i = 0; i < out->n; i++) {
		if (o > 0 && sbx_strcmp(out->v[o - 1], out->v[i]) == 0) {
			free(out->v[i]);
			continue;
		}
		out->v[o++] = out->v[i];
	}
	out->n = o;
	out->v[o] = NULL;
	return 0;
}

/* A denied path or glob match that is masked. */
static bool is_mask(const struct sbx_mount_op *c, const char *const *granted, size_t n_granted)
{
	if (c->kind != SBX_MNT_DENY || strcmp(c->path, "/") == 0)
		return false; /* a root deny only removes the baseline: it is no mask */
	/* /dev or /dev/shm: the private /dev replaces it, and holds the roots under /dev/shm. */
	if (c->path[1] == 'd' && (strcmp(c->path, "/dev") == 0 || strcmp(c->path, "/dev/shm") == 0))
		return false;
	return !c->from_glob || !granted ||
	       sbx_path_under_sorted(granted, n_granted, c->path, true);
}

/*
 * Any other candidate that is mounted: a readable root only inside a mask (denied, sorted) or in
 * the private /dev/shm.
 */
static bool is_reopened(const struct sbx_mount_op *c, const char *const *denied, size_t n_denied)
{
	if (c->kind == SBX_MNT_DENY || c->kind == SBX_MNT_PIN)
		return false;
	return c->kind != SBX_MNT_READ || sbx_linux_private_shm(c->path) ||
	       sbx_path_under_sorted(denied, n_denied, c->path, false);
}

_Static_assert(sizeof(struct sbx_mount_op) <= 40, "a mount op grew: a plan may hold 10,000");

/* A candidate (or a pin) as an op the plan has decided nothing about yet. */
_Static_assert(SBX_MAX_PATH <= 0xffff, "a path's length no longer fits a mount op's");

static void op_init(struct sbx_mount_op *op)
{
	op->len = (unsigned short)strlen(op->path); /* a resolved path: at most SBX_MAX_PATH */
	op->depth = (unsigned short)sbx_path_depth_n(op->path, op->len);
	op->mask = -1;
	op->skip = op->sealed = op->holds = op->shm_point = false;
	op->in_shm = sbx_linux_private_shm(op->path);
}

int sbx_mount_plan_build(struct sbx_mount_op *ops, size_t n, const char *const *granted,
			 size_t n_granted, struct sbx_mount_plan *out)
{
	struct by_path bp = {0};
	struct above_memo memo = {0};
	const char **denied = NULL;
	size_t n_ops = 0, n_denied = 0;
	int r = 0;

	memset(out, 0, sizeof(*out));
	/*
	 * Denied paths and glob matches first: they tell which readable roots need a mount. The
	 * candidates that need none are dropped in place: of a profile of 10,000 readable paths
	 * and no deny, none is a mount.
	 */
	for (size_t i = 0; i < n; i++)
		n_denied += is_mask(&ops[i], granted, n_granted);
	denied = calloc(n_denied ? n_denied : 1, sizeof(*denied));
	if (!denied) {
		r = -ENOMEM;
		goto out;
	}
	n_denied = 0;
	for (size_t i = 0; i < n; i++)
		if (is_mask(&ops[i], granted, n_granted))
			denied[n_denied++] = ops[i].path;
	sbx_sort_strs(denied, n_denied);
	for (size_t i = 0; i < n; i++) {
		if (!is_mask(&ops[i], granted, n_granted) &&
		    !is_reopened(&ops[i], denied, n_denied))
			continue;
		ops[n_ops] = ops[i];
		op_init(&ops[n_ops++]);
	}
	free(denied); /* before the index is built: it would only add to the peak */
	denied = NULL;
	/* The candidates' room down to the ops' (in place, mostly), before anything points in. */
	if (n_ops < n) {
		struct sbx_mount_op *fit = realloc(ops, (n_ops ? n_ops : 1) * sizeof(*ops));

		if (fit) /* a shrink that fails leaves the larger room, still valid */
			ops = fit;
	}

	/*
	 * The directories to pin, from the ops in application order and indexed by path; then the
	 * pins join the ops, which are ordered and indexed again (only then: with no pin, as with
	 * masks under a readable root, the first order and index are the final ones).
	 */
	bp.v = calloc(n_ops ? n_ops : 1, sizeof(*bp.v));
	if (!bp.v) {
		r = -ENOMEM;
		goto out;
	}
	order_ops(ops, bp.v, n_ops);
	r = by_path_build(&bp, ops, n_ops);
	if (r == 0)
		r = ancestors_to_pin(ops, n_ops, &bp, &out->pins);
	if (r < 0)
		goto out;
	if (out->pins.n) {
		struct sbx_mount_op *grown = realloc(ops, (n_ops + out->pins.n) * sizeof(*ops));
		struct sbx_mount_op **grown_by;

		if (!grown) {
			r = -ENOMEM;
			goto out;
		}
		ops = grown; /* the index points into the old room: it is built again below */
		grown_by = realloc(bp.v, (n_ops + out->pins.n) * sizeof(*bp.v));
		if (!grown_by) {
			r = -ENOMEM;
			goto out;
		}
		bp.v = grown_by;
		for (size_t i = 0; i < out->pins.n; i++) {
			ops[n_ops] = (struct sbx_mount_op){
				.kind = SBX_MNT_PIN, .path = out->pins.v[i], .is_dir = true};
			op_init(&ops[n_ops++]);
		}
		order_ops(ops, bp.v, n_ops);
		r = by_path_build(&bp, ops, n_ops);
		if (r < 0)
			goto out;
	}

	/* What each op does, decided shallow to deep against the ops above it that are mounted. */
	for (size_t i = 0; i < n_ops; i++) {
		struct sbx_mount_op *op = &ops[i], *up;

		if (i > 0 && ops[i - 1].kind == op->kind && same_path(&ops[i - 1], op)) {
			op->skip = true; /* the same path twice (an entry and a glob match) */
			continue;
		}
		up = mounted_above(&bp, op, &memo);
		if (op->in_shm && !up) {
			/*
			 * Nothing of the host's shows in the private /dev/shm: a mask or point
			 * there would hide nothing; a root is mounted on a point made there.
			 */
			op->skip = op->kind == SBX_MNT_DENY || op->kind == SBX_MNT_POINT ||
				   op->kind == SBX_MNT_PIN;
			op->shm_point = !op->skip;
			continue;
		}
		if (op->in_shm && op->kind == SBX_MNT_READ && up->kind != SBX_MNT_DENY) {
			op->skip = true; /* reached through the root mounted above it */
			continue;
		}
		if (up && up->kind == SBX_MNT_DENY &&
		    (up->sealed || op->kind == SBX_MNT_DENY || op->kind == SBX_MNT_POINT)) {
			op->skip = true; /* hidden by the mask above: nothing can be made there */
			continue;
		}
		if (up && up->kind == SBX_MNT_DENY) {
			op->mask = (int)(up - ops); /* re-opened inside that mask */
			up->holds = true;
		}
		/* Alone at its path, a mask has nothing re-opened there (one look-up less each). */
		if (op->kind == SBX_MNT_DENY && !op->alone &&
		    mounted_at(&bp, op->path, op->len, true))
			op->sealed = true;
	}
	out->ops = ops;
	out->n = n_ops;
	ops = NULL;
out:
	free(ops);
	free(bp.v);
	free(bp.slots);
	free(denied);
	if (r < 0)
		sbx_mount_plan_free(out);
	return r;
}

void sbx_mount_plan_free(struct sbx_mount_plan *p)
{
	free(p->ops);
	sbx_strv_clear(&p->pins);
	memset(p, 0, sizeof(*p));
}
