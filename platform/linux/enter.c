/* SPDX-License-Identifier: MIT */
/*
 * enter.c - the Linux enter sequence: from a finished plan to execvp, in one function.
 *
 * Read sbx_linux_enter() top to bottom; every step says why it comes where it does. The point of
 * no return is the unshare(2) of the mount namespace (or, without one, dropping capabilities):
 * before it a failure returns a diagnostic and nothing has changed; after it any failure dies
 * (exit 125) and the command never runs, so a half-applied sandbox never reaches execve.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "linux/linux.h"

/* PROFILE.md section 2: the "minimal" readable set on Linux. */
static const char *const minimal_paths[] = {
	"/bin",	     "/sbin",	   "/usr",	   "/etc",
	"/lib",	     "/lib64",	   "/nix/store",   "/run/current-system/sw",
	"/dev/null", "/dev/zero",  "/dev/urandom", "/dev/random",
	"/dev/tty",  "/proc/self",
};

/*
 * Device nodes every program expects to open for writing (and ioctl, for terminals). Writing
 * them changes no file; Landlock would otherwise refuse them because /dev is not a writable
 * root. TIOCSTI/TIOCLINUX stay refused by seccomp.
 */
static const char *const device_paths[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/pts",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof(*(a)))

/*
 * The kinds of mount, in the order they stack at one depth. MNT_READ is a readable root that lies
 * inside a denied directory: it is the only kind of readable root that needs a mount (elsewhere
 * Landlock alone grants it), to re-open it inside the mask.
 */
/*
 * MNT_ANCESTOR is a directory between a writable root and a denied path or carve-out inside it,
 * bound onto itself: a mount point cannot be renamed (EBUSY), so the command cannot move the
 * deny or carve-out away from the name the next run will look for.
 */
enum mnt_kind { MNT_WRITE = 0, MNT_ANCESTOR, MNT_READ_ONLY, MNT_READ, MNT_DENY };

struct mnt_op {
	enum mnt_kind kind;
	const char *path;
	size_t depth;
	bool is_dir;
	bool skip;    /* hidden by a mask above it, or a repeat of the op before it */
	bool sealed;  /* MNT_DENY over a path also re-opened: hides all below, re-opens nothing */
	bool holds;   /* MNT_DENY whose mask must hold mount points for re-opened descendants */
	ssize_t mask; /* re-opened op: the MNT_DENY whose mask holds its mount point, or -1 */
	int tree;     /* the clone taken before / became read-only (all but MNT_DENY); else -1 */
	/* The object found before the namespace (checked again in it), and the mount target:
	 * the same, or the mount point made for it in a mask. */
	unsigned long long dev, ino, tdev, tino;
};

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The ops sorted by path, for ancestor lookups; each entry points into the ops array. */
static int op_ptr_path_cmp(const void *a, const void *b)
{
	const struct mnt_op *x = *(const struct mnt_op *const *)a;
	const struct mnt_op *y = *(const struct mnt_op *const *)b;

	return strcmp(x->path, y->path);
}

/*
 * The op mounted at exactly path (one not skipped), or NULL: a mask before a re-opened op, since
 * the mask lies on top of it; with open_only, a re-opened op only.
 */
static struct mnt_op *mounted_at(struct mnt_op **by_path, size_t n, const char *path,
				 bool open_only)
{
	struct mnt_op key = {.path = path}, *kp = &key, *found = NULL;
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (op_ptr_path_cmp(&by_path[mid], &kp) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && strcmp(by_path[lo]->path, path) == 0; lo++) {
		struct mnt_op *op = by_path[lo];

		if (op->skip || (open_only && op->kind == MNT_DENY))
			continue;
		if (!found || op->kind == MNT_DENY)
			found = op;
	}
	return found;
}

struct above {
	struct mnt_op **by_path;
	size_t n;
	struct mnt_op *found;
};

static int mounted_here(void *arg, const char *prefix)
{
	struct above *a = arg;

	a->found = mounted_at(a->by_path, a->n, prefix, false);
	return a->found != NULL;
}

/* The nearest strict ancestor of p that is mounted, or NULL. One lookup per component. */
static struct mnt_op *mounted_above(struct mnt_op **by_path, size_t n, const char *p)
{
	struct above a = {by_path, n, NULL};

	sbx_path_ancestors(p, mounted_here, &a);
	return a.found;
}

/*
 * Fills op for path from its one look-up (the resolver keeps the object it found): 1 when added,
 * 0 when path does not exist (it gets no mount), or -errno (worded in d) when it cannot be
 * looked up: an error is never taken for "missing". The op names the path as it resolves.
 */
static int op_init(struct mnt_op *op, enum mnt_kind kind, const char *path,
		   struct sbx_resolver *res, struct sbx_diag *d)
{
	const struct sbx_resolved *f = sbx_resolve(res, path);

	if (!f)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	if (f->err)
		return sbx_diag_set(d, f->err, "cannot look up %s: %s", path, strerror(-f->err));
	if (!f->exists)
		return 0;
	*op = (struct mnt_op){.kind = kind,
			      .path = f->real,
			      .depth = sbx_path_depth(f->real),
			      .is_dir = f->type == SBX_FT_DIR,
			      .mask = -1,
			      .tree = -1,
			      .dev = f->dev,
			      .ino = f->ino,
			      .tdev = f->dev,
			      .tino = f->ino};
	return 1;
}

static int mnt_op_cmp(const void *a, const void *b)
{
	const struct mnt_op *x = a, *y = b;

	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	if (x->kind != y->kind)
		return (int)x->kind - (int)y->kind;
	return strcmp(x->path, y->path);
}

/*
 * Adds the rule for one granted tree, on the descriptor its look-up kept. A tree holding paths
 * the plan denies by Landlock alone (no mount namespace) is granted around them, entry by entry;
 * a missing path grants nothing.
 */
static int ll_grant(struct sbx_landlock *ll, const struct sbx_linux_enforce *e, const char *path,
		    enum sbx_ll_grant g, struct sbx_diag *d)
{
	const struct sbx_resolved *f = sbx_resolve(e->res, path);

	if (!f)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	if (f->err)
		return sbx_diag_set(d, f->err, "cannot look up %s for a Landlock rule: %s", path,
				    strerror(-f->err));
	if (!f->exists)
		return 0;
	if (e->ll_deny.n > 0)
		return sbx_landlock_grant_around(ll, e->res, f, g, e->ll_deny.v, e->ll_deny.n, d);
	return sbx_landlock_add_fd(ll, f->fd, g, path, d);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Where the Landlock ruleset grants anything, as the paths resolve, sorted: left empty (v NULL)
 * when there is no file-system ruleset or it grants everything (full read).
 */
static int granted_paths(const struct sbx_linux_enforce *e, struct sbx_strv *out)
{
	const struct sbx_roots *r = e->roots;
	int rc = 0;

	if (e->landlock_abi <= 0 || r->full_read || r->full_write)
		return 0;
	for (size_t i = 0; rc == 0 && i < r->n_readable + r->n_writable + ARRAY_LEN(minimal_paths) +
						      ARRAY_LEN(device_paths);
	     i++) {
		const char *p;
		const struct sbx_resolved *f;
		size_t k = i;

		if (k < r->n_readable) {
			p = r->readable[k];
		} else if ((k -= r->n_readable) < r->n_writable) {
			p = r->writable[k].root;
		} else if ((k -= r->n_writable) < ARRAY_LEN(minimal_paths)) {
			if (!r->platform_defaults)
				continue;
			p = minimal_paths[k];
		} else {
			p = device_paths[k - ARRAY_LEN(minimal_paths)];
		}
		f = sbx_resolve(e->res, p);
		if (!f)
			rc = -ENOMEM;
		else if (f->exists)
			rc = sbx_strv_push(out, f->real);
	}
	if (rc == 0 && !out->v)
		rc = sbx_strv_push(out, "\n"); /* nothing granted: a list that holds no path */
	if (rc == 0)
		qsort(out->v, out->n, sizeof(*out->v), str_cmp);
	return rc;
}

struct pin {
	struct mnt_op **by_path;
	size_t n;
	struct mnt_op *up; /* the nearest op above, once found */
	struct sbx_strv *out;
};

static int pin_ancestor(void *arg, const char *prefix)
{
	struct pin *p = arg;

	p->up = mounted_at(p->by_path, p->n, prefix, false);
	if (p->up)
		return 1;
	return sbx_strv_push(p->out, prefix);
}

/*
 * The directories strictly between each denied path or carve-out and the nearest op above it,
 * when that op is a writable root: those are the ones the command could rename. (Below a mask
 * or a read-only carve-out nothing can be renamed anyway.) Sorted, without repeats.
 */
static int ancestors_to_pin(struct mnt_op *ops, size_t n_ops, struct mnt_op **by_path,
			    struct sbx_strv *out)
{
	size_t o = 0;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < n_ops; i++) {
		struct pin p = {by_path, n_ops, NULL, out};
		size_t mark = out->n;

		if (ops[i].kind != MNT_DENY && ops[i].kind != MNT_READ_ONLY)
			continue;
		r = sbx_path_ancestors(ops[i].path, pin_ancestor, &p);
		if (r >= 0 && (!p.up || p.up->kind != MNT_WRITE)) {
			/* Not under a writable root (or under a mask): nothing to pin. */
			while (out->n > mark)
				free(out->v[--out->n]);
			if (out->v)
				out->v[out->n] = NULL;
		}
	}
	if (r < 0 || out->n < 2)
		return r < 0 ? r : 0;
	qsort(out->v, out->n, sizeof(*out->v), str_cmp);
	for (size_t i = 0; i < out->n; i++) {
		if (o > 0 && strcmp(out->v[o - 1], out->v[i]) == 0) {
			free(out->v[i]);
			continue;
		}
		out->v[o++] = out->v[i];
	}
	out->n = o;
	out->v[o] = NULL;
	return 0;
}

int sbx_linux_enter(const struct sbx_linux_enforce *e, struct sbx_diag *d)
{
	const struct sbx_roots *r = e->roots;
	struct sbx_landlock *ll = NULL;
	struct mnt_op *ops = NULL;
	size_t n_ops = 0, cap_ops;
	struct mnt_op **by_path = NULL; /* the ops sorted by path, for ancestor lookups */
	const char **denied = NULL;	/* the MNT_DENY paths, sorted, for ancestor lookups */
	size_t n_denied = 0;
	struct sbx_strv pinned = {0};  /* the directories bound onto themselves */
	struct sbx_strv granted = {0}; /* what the Landlock ruleset grants, sorted; none: all */
	int empty_fs = -1, rc = 0, err;
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (!e->argv || !e->argv[0])
		return sbx_diag_set(d, SBX_E_USAGE, "no command to run");

	/*
	 * 1. The command's environment says where it runs. Done first because it can fail (memory)
	 *    and nothing irreversible has happened yet.
	 */
	if (setenv("SBXRUN_SANDBOX", "linux-seccomp", 1) < 0 ||
	    (!e->network && setenv("SBXRUN_NETWORK_DISABLED", "1", 1) < 0))
		return sbx_diag_set(d, -ENOMEM, "out of memory setting the environment");

	/*
	 * 2. The Landlock ruleset, built from O_PATH descriptors of every rule path, now: paths are
	 *    resolved once, in the host's view, before anything is masked or restricted, and a
	 *    kernel that refuses the ruleset is found before the point of no return. It is only
	 *    enforced in step 7. Landlock rules follow inodes, so they hold in the new mount
	 *    namespace too. With full write there is nothing to allow-list on the file system; the
	 *    ruleset then only restricts the network and scopes (an empty fs-handled set). Without
	 *    a mount namespace to mask them, denied paths inside readable trees are carved out
	 *    here: such a tree is granted entry by entry around them.
	 */
	if (e->landlock_abi > 0) {
		bool fs = !r->full_write;

		rc = sbx_landlock_create(e->landlock_abi, fs, !e->network, &ll, d);
		if (rc < 0)
			goto out;
		if (fs && r->full_read)
			rc = ll_grant(ll, e, "/", SBX_LL_READ, d);
		for (size_t i = 0; fs && !r->full_read && rc == 0 && i < r->n_readable; i++)
			rc = ll_grant(ll, e, r->readable[i], SBX_LL_READ, d);
		for (size_t i = 0; fs && !r->full_read && r->platform_defaults && rc == 0 &&
				   i < ARRAY_LEN(minimal_paths);
		     i++)
			rc = ll_grant(ll, e, minimal_paths[i], SBX_LL_READ, d);
		for (size_t i = 0; fs && rc == 0 && i < r->n_writable; i++)
			rc = ll_grant(ll, e, r->writable[i].root, SBX_LL_WRITE, d);
		for (size_t i = 0; fs && rc == 0 && i < ARRAY_LEN(device_paths); i++)
			rc = ll_grant(ll, e, device_paths[i], SBX_LL_DEVICE, d);
		if (rc < 0)
			goto out;
	}

	/*
	 * 3. The list of mounts, in the order they must stack: shallow before deep, so a
	 *    read-only carve-out lands on top of its writable root, a mask on top of both, and a
	 *    path re-opened inside a denied directory on top of that directory's mask. Paths that
	 *    do not exist are left out (the plan said so: a mount point would have to be created
	 *    on the host). Everything is decided here, before the point of no return, down to
	 *    which mask holds which mount point, so the mounts below only carry it out.
	 */
	if (e->mount_namespace && !r->full_write) {
		size_t n_deny = r->n_unreadable + e->deny_expanded.n;

		cap_ops = r->n_writable + r->n_readable + n_deny;
		for (size_t i = 0; i < r->n_writable; i++)
			cap_ops += r->writable[i].n_read_only;
		ops = calloc(cap_ops ? cap_ops : 1, sizeof(*ops));
		by_path = calloc(cap_ops ? cap_ops : 1, sizeof(*by_path));
		denied = calloc(n_deny ? n_deny : 1, sizeof(*denied));
		if (!ops || !by_path || !denied) {
			rc = sbx_diag_set(d, -ENOMEM, "out of memory");
			goto out;
		}
		rc = granted_paths(e, &granted);
		if (rc < 0)
			goto out;
		/* Denied paths and glob matches first: they tell which readable roots need one. */
		for (size_t i = 0; i < n_deny; i++) {
			const char *p = i < r->n_unreadable
						? r->unreadable[i]
						: e->deny_expanded.v[i - r->n_unreadable];

			if (strcmp(p, "/") == 0)
				continue;
			rc = op_init(&ops[n_ops], MNT_DENY, p, e->res, d);
			if (rc < 0)
				goto out;
			/*
			 * A glob match that nothing grants is refused by Landlock already; a mask
			 * there would only publish its path in /proc/self/mountinfo.
			 */
			if (rc > 0 && i >= r->n_unreadable && granted.v &&
			    !sbx_path_under_sorted((const char *const *)granted.v, granted.n,
						   ops[n_ops].path, true))
				continue;
			if (rc > 0)
				denied[n_denied++] = ops[n_ops++].path;
		}
		rc = 0;
		qsort(denied, n_denied, sizeof(*denied), str_ptr_cmp);
		for (size_t i = 0; i < r->n_writable; i++) {
			const struct sbx_writable_root *w = &r->writable[i];

			rc = op_init(&ops[n_ops], MNT_WRITE, w->root, e->res, d);
			for (size_t j = 0; rc >= 0 && j < w->n_read_only; j++) {
				n_ops += rc;
				rc = op_init(&ops[n_ops], MNT_READ_ONLY, w->read_only[j], e->res,
					     d);
			}
			if (rc < 0)
				goto out;
			n_ops += rc;
		}
		/*
		 * A readable root needs a mount only inside a denied directory, to be re-opened
		 * in its mask; anywhere else / read-only and Landlock already give it its access.
		 */
		for (size_t i = 0; i < r->n_readable; i++) {
			rc = op_init(&ops[n_ops], MNT_READ, r->readable[i], e->res, d);
			if (rc < 0)
				goto out;
			if (rc > 0 &&
			    sbx_path_under_sorted(denied, n_denied, ops[n_ops].path, false))
				n_ops++;
		}
		rc = 0;
		for (size_t i = 0; i < n_ops; i++)
			by_path[i] = &ops[i];
		qsort(by_path, n_ops, sizeof(*by_path), op_ptr_path_cmp);
		/*
		 * The directories on the way from a writable root down to a denied path or a
		 * carve-out in it are bound onto themselves, so that the command cannot rename them
		 * and leave the next run's rule naming nothing.
		 */
		rc = ancestors_to_pin(ops, n_ops, by_path, &pinned);
		if (rc == 0 && pinned.n) {
			struct mnt_op *grown = realloc(ops, (n_ops + pinned.n) * sizeof(*ops));
			struct mnt_op **grown_by =
				realloc(by_path, (n_ops + pinned.n) * sizeof(*by_path));

			if (grown)
				ops = grown;
			if (grown_by)
				by_path = grown_by;
			rc = grown && grown_by ? 0 : -ENOMEM;
			for (size_t i = 0; rc >= 0 && i < pinned.n; i++) {
				rc = op_init(&ops[n_ops], MNT_ANCESTOR, pinned.v[i], e->res, d);
				n_ops += rc > 0;
			}
		}
		if (rc < 0) {
			if (rc == -ENOMEM)
				sbx_diag_set(d, rc, "out of memory");
			goto out;
		}
		rc = 0;
		qsort(ops, n_ops, sizeof(*ops), mnt_op_cmp);
		for (size_t i = 0; i < n_ops; i++)
			by_path[i] = &ops[i];
		qsort(by_path, n_ops, sizeof(*by_path), op_ptr_path_cmp);

		/*
		 * What each op does, decided shallow to deep against the ops above it that are
		 * mounted. A path denied twice (an entry and a glob match) is masked once. A deny
		 * inside a mask is already hidden. A writable root, carve-out or readable root
		 * inside a mask is re-opened: its mount point is made inside that mask (the
		 * profile named it more precisely than the deny; the resolver only makes such
		 * roots of paths named below a deny). A mask over a path that is itself
		 * re-opened (a glob match equal to a writable root) is sealed: it hides
		 * everything below it, re-opened or not.
		 */
		for (size_t i = 0; i < n_ops; i++) {
			struct mnt_op *op = &ops[i], *up;

			if (i > 0 && ops[i - 1].kind == op->kind &&
			    strcmp(ops[i - 1].path, op->path) == 0) {
				op->skip = true;
				continue;
			}
			up = mounted_above(by_path, n_ops, op->path);
			if (up && up->kind == MNT_DENY && (up->sealed || op->kind == MNT_DENY)) {
				op->skip = true;
				continue;
			}
			if (up && up->kind == MNT_DENY) {
				op->mask = up - ops;
				up->holds = true;
			}
			if (op->kind == MNT_DENY && mounted_at(by_path, n_ops, op->path, true))
				op->sealed = true;
		}
	}

	/*
	 * 4. The private mount namespace. This is the point of no return: from here on a failure
	 *    dies instead of returning. As root, CLONE_NEWNS alone; otherwise a user namespace in
	 *    which this uid and gid map to themselves, so file ownership looks the same inside.
	 */
	if (e->mount_namespace && !r->full_write) {
		int flags = sbx_linux_mntns_flags(uid == 0);

		if (unshare(flags) < 0) {
			err = errno;
			rc = sbx_diag_set(d, -err, "unshare(%s): %s",
					  flags & CLONE_NEWUSER ? "CLONE_NEWUSER|CLONE_NEWNS"
								: "CLONE_NEWNS",
					  strerror(err));
			sbx_diag_hint(d, rc,
				      "the probe found a mount namespace available; "
				      "run `sbxrun probe` to see what changed");
			goto out;
		}
		if ((flags & CLONE_NEWUSER) && sbx_mnt_map_ids(uid, gid, d) < 0)
			sbx_linux_die(d, 125);

		/* 4a. Nothing done below may propagate back to the host's mount table. */
		if (sbx_mnt_make_private(d) < 0)
			sbx_linux_die(d, 125);

		/*
		 * 4b. Clone the mount tree of every path to be re-attached (writable roots,
		 *     carve-outs, readable roots inside a denied directory) before / turns
		 *     read-only and before any mask hides it: the detached clone keeps every
		 *     mount's own flags, so a read-only host mount inside a writable root stays
		 *     read-only, and nothing is made writable that was not. The clones of
		 *     carve-outs and readable roots are made read-only whole, submounts included.
		 */
		for (size_t i = 0; i < n_ops; i++) {
			struct mnt_op *op = &ops[i];
			int fd;

			if (op->skip || op->kind == MNT_DENY)
				continue;
			/*
			 * A descriptor from before the namespace names a mount of the old one,
			 * which cannot be cloned here: the path is walked again, no link
			 * followed, and must be the very object that was planned.
			 */
			fd = sbx_linux_reopen(op->path, op->dev, op->ino, d);
			if (fd < 0)
				sbx_linux_die(d, 125);
			rc = sbx_mnt_clone_tree(fd, &op->tree, op->path, d);
			close(fd);
			if (rc < 0 || (op->kind != MNT_WRITE && op->kind != MNT_ANCESTOR &&
				       sbx_mnt_set_readonly(op->tree, "", d) < 0))
				sbx_linux_die(d, 125);
		}

		/*
		 * 4c. The whole file system read-only, submounts included: this is what refuses
		 *     chmod, chown, utimes, truncate, mknod, rename and link outside the writable
		 *     roots, which Landlock alone cannot.
		 */
		if (sbx_mnt_set_readonly(AT_FDCWD, "/", d) < 0)
			sbx_linux_die(d, 125);

		/*
		 * 4d. Shallow to deep, as decided in step 3: writable roots back on top, read-only
		 *     carve-outs over them (protected metadata, explicit read entries), empty
		 *     read-only masks over denied paths and the matches of deny globs, and the
		 *     paths re-opened inside a mask over the mount points made for them in it.
		 *     Each target is walked again once the mounts above it are in place (a
		 *     descriptor taken earlier would name what they now cover), no link followed,
		 *     and must be the object planned (or the point made for it in its mask); the
		 *     mount is then made onto that descriptor, with no look-up by name after the
		 *     check.
		 */
		for (size_t i = 0; i < n_ops; i++) {
			struct mnt_op *op = &ops[i];
			int mask, target;

			if (op->skip)
				continue;
			target = sbx_linux_reopen(op->path, op->tdev, op->tino, d);
			if (target < 0)
				sbx_linux_die(d, 125);
			switch (op->kind) {
			case MNT_WRITE:
			case MNT_ANCESTOR:
			case MNT_READ_ONLY:
			case MNT_READ:
				rc = sbx_mnt_attach(op->tree, target, op->path, d);
				break;
			case MNT_DENY:
				if (!op->is_dir) {
					rc = sbx_mnt_mask_file(&empty_fs, target, op->path, d);
					break;
				}
				if (!op->holds || op->sealed) {
					rc = sbx_mnt_mask_dir(target, op->path, d);
					break;
				}
				/*
				 * A mask that paths are re-opened inside: mode 0111, traversable
				 * but not listable, so the names of the other entries stay hidden.
				 * The directories leading to each re-opened path and its mount
				 * point (a directory, or an empty file for a file) are made in the
				 * mask itself, never on the host, before it turns read-only and is
				 * attached. The clones land on those points in their turn: they
				 * are deeper, so they come later in this loop.
				 */
				mask = sbx_mnt_mask_open(op->path, d);
				rc = mask < 0 ? mask : 0;
				for (size_t j = i + 1; rc == 0 && j < n_ops; j++)
					if (!ops[j].skip && ops[j].mask == (ssize_t)i)
						rc = sbx_mnt_mask_point(
							mask, ops[j].path + strlen(op->path) + 1,
							ops[j].is_dir, ops[j].path, &ops[j].tdev,
							&ops[j].tino, d);
				if (rc == 0)
					rc = sbx_mnt_mask_seal(mask, target, op->path, d);
				if (mask >= 0)
					close(mask);
				break;
			}
			close(target);
			if (rc < 0)
				sbx_linux_die(d, 125);
		}
		if (empty_fs >= 0)
			close(empty_fs);
		for (size_t i = 0; i < n_ops; i++)
			if (ops[i].tree >= 0)
				close(ops[i].tree);
	}

	/*
	 * 5. Into the command's directory, after the mounts: a cwd taken before them would still
	 *    point at the read-only mount underneath the writable bind.
	 */
	if (chdir(e->command_cwd) < 0) {
		err = errno;
		sbx_diag_set(d, -err, "cannot enter the command directory %s: %s", e->command_cwd,
			     strerror(err));
		sbx_linux_die(d, 125);
	}

	/*
	 * 6. Drop every capability, after the mounts that needed CAP_SYS_ADMIN and before the
	 *    command can use any: root inside the sandbox is then an ordinary uid 0, held back by
	 *    file permissions like anyone. Then no_new_privs, which Landlock requires of an
	 *    unprivileged caller and which keeps setuid binaries and file capabilities from giving
	 *    any of it back across execve.
	 */
	if (sbx_caps_drop_all(d) < 0)
		sbx_linux_die(d, 125);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		err = errno;
		sbx_diag_set(d, -err, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(err));
		sbx_linux_die(d, 125);
	}

	/*
	 * 7. Landlock: the file-system allow-list (and TCP, and abstract-socket and signal
	 *    scoping) enforced for this process and everything it starts. Before seccomp, whose
	 *    filter does not need to allow the Landlock calls then.
	 */
	if (ll && sbx_landlock_restrict_self(ll, d) < 0)
		sbx_linux_die(d, 125);

	/*
	 * 8. The seccomp filter, last: it refuses mount, unshare and the other calls the steps
	 *    above needed, and everything after it (only execve) runs through it.
	 */
	if (sbx_seccomp_apply(e->network, e->seccomp_metadata, e->seccomp_no_watch, d) < 0)
		sbx_linux_die(d, 125);

	/*
	 * 9. Become the command: same process, so its exit status, signals, standard streams and
	 *    place in the process tree are its own. The look-ups' descriptors close on exec; the
	 *    limit of open files raised to hold them is the command's own again.
	 */
	sbx_resolver_restore_limit(e->res);
	execvp(e->argv[0], e->argv);
	err = errno;
	/* The same words and statuses as an unconfined run (cmd/run.c exec_direct). */
	if (err == ENOENT || err == ENOTDIR) {
		sbx_diag_set(d, -err, "%s: command not found", e->argv[0]);
		sbx_linux_die(d, 127);
	}
	sbx_diag_set(d, -err, "%s: cannot execute: %s", e->argv[0], strerror(err));
	sbx_linux_die(d, 126);

out:
	sbx_strv_clear(&pinned);
	sbx_strv_clear(&granted);
	sbx_landlock_free(ll);
	free(ops);
	free(by_path);
	free(denied);
	return rc;
}
