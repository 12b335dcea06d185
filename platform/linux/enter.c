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
#include "linux/sandbox.h"

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
enum mnt_kind { MNT_WRITE = 0, MNT_READ_ONLY, MNT_READ, MNT_DENY };

struct mnt_op {
	enum mnt_kind kind;
	const char *path;
	size_t depth;
	bool is_dir;
	bool skip;    /* hidden by a mask above it, or a repeat of the op before it */
	bool sealed;  /* MNT_DENY over a path also re-opened: hides all below, re-opens nothing */
	bool holds;   /* MNT_DENY whose mask must hold mount points for re-opened descendants */
	ssize_t mask; /* re-opened op: the MNT_DENY whose mask holds its mount point, or -1 */
	int tree;     /* re-opened op: the clone taken before / became read-only; else -1 */
};

static int str_ptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Is a strict ancestor of p in the sorted list of denied paths? One lookup per component. */
static bool under_denied(const char **denied, size_t n, const char *p)
{
	char buf[SBX_MAX_PATH + 1];
	size_t len = strlen(p);

	if (!n || len > SBX_MAX_PATH)
		return false;
	memcpy(buf, p, len + 1);
	while (len > 1) {
		const char *key = buf;

		while (len > 1 && buf[len - 1] != '/')
			len--;
		if (len > 1)
			len--; /* drop the separator */
		buf[len] = '\0';
		if (len > 1 && bsearch(&key, denied, n, sizeof(*denied), str_ptr_cmp))
			return true;
	}
	return false;
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

/* The nearest strict ancestor of p that is mounted, or NULL. One lookup per component. */
static struct mnt_op *mounted_above(struct mnt_op **by_path, size_t n, const char *p)
{
	char buf[SBX_MAX_PATH + 1];
	size_t len = strlen(p);
	struct mnt_op *found;

	if (len > SBX_MAX_PATH)
		return NULL;
	memcpy(buf, p, len + 1);
	while (len > 1) {
		while (len > 1 && buf[len - 1] != '/')
			len--;
		if (len > 1)
			len--; /* drop the separator */
		buf[len] = '\0';
		if (len > 1 && (found = mounted_at(by_path, n, buf, false)))
			return found;
	}
	return NULL;
}

/* Fills op for path, or returns false when path does not exist (it gets no mount). */
static bool op_init(struct mnt_op *op, enum mnt_kind kind, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return false;
	*op = (struct mnt_op){.kind = kind,
			      .path = path,
			      .depth = sbx_path_depth(path),
			      .is_dir = S_ISDIR(st.st_mode),
			      .mask = -1,
			      .tree = -1};
	return true;
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
 * Adds the rule for one granted tree. A tree holding paths the plan denies by Landlock alone
 * (no mount namespace) is granted around them, entry by entry; a missing path grants nothing.
 */
static int ll_grant(struct sbx_landlock *ll, const struct sbx_linux_enforce *e, const char *path,
		    enum sbx_ll_grant g, struct sbx_diag *d)
{
	int fd, rc, err;

	if (e->n_ll_deny > 0)
		return sbx_landlock_grant_around(ll, path, g, e->ll_deny, e->n_ll_deny, d);
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (err == ENOENT || err == ENOTDIR)
			return 0;
		return sbx_diag_set(d, -err, "opening %s for a Landlock rule: %s", path,
				    strerror(err));
	}
	rc = sbx_landlock_add_fd(ll, fd, g, path, d);
	close(fd);
	return rc;
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

		rc = sbx_landlock_create(e->landlock_abi, !e->network, &ll, d);
		if (rc < 0)
			goto out;
		if (fs && r->full_read)
			rc = ll_grant(ll, e, "/", SBX_LL_READ, d);
		for (size_t i = 0; fs && !r->full_read && rc == 0 && i < r->n_readable; i++)
			rc = ll_grant(ll, e, r->readable[i], SBX_LL_READ, d);
		for (size_t i = 0; fs && !r->full_read && r->platform_defaults && rc == 0 &&
				   sbx_linux_minimal_paths[i];
		     i++)
			rc = ll_grant(ll, e, sbx_linux_minimal_paths[i], SBX_LL_READ, d);
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
		size_t n_deny = r->n_unreadable + e->n_deny_expanded;

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
		/* Denied paths and glob matches first: they tell which readable roots need one. */
		for (size_t i = 0; i < n_deny; i++) {
			const char *p = i < r->n_unreadable ? r->unreadable[i]
							    : e->deny_expanded[i - r->n_unreadable];

			if (strcmp(p, "/") != 0 && op_init(&ops[n_ops], MNT_DENY, p))
				denied[n_denied++] = ops[n_ops++].path;
		}
		qsort(denied, n_denied, sizeof(*denied), str_ptr_cmp);
		for (size_t i = 0; i < r->n_writable; i++) {
			const struct sbx_writable_root *w = &r->writable[i];

			n_ops += op_init(&ops[n_ops], MNT_WRITE, w->root);
			for (size_t j = 0; j < w->n_read_only; j++)
				n_ops += op_init(&ops[n_ops], MNT_READ_ONLY, w->read_only[j]);
		}
		/*
		 * A readable root needs a mount only inside a denied directory, to be re-opened
		 * in its mask; anywhere else / read-only and Landlock already give it its access.
		 */
		for (size_t i = 0; i < r->n_readable; i++)
			if (under_denied(denied, n_denied, r->readable[i]))
				n_ops += op_init(&ops[n_ops], MNT_READ, r->readable[i]);
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

			if (op->skip || op->kind == MNT_DENY)
				continue;
			if (sbx_mnt_clone_tree(op->path, &op->tree, d) < 0 ||
			    (op->kind != MNT_WRITE && sbx_mnt_set_readonly(op->tree, "", d) < 0))
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
		 */
		for (size_t i = 0; i < n_ops; i++) {
			struct mnt_op *op = &ops[i];
			int mask;

			if (op->skip)
				continue;
			switch (op->kind) {
			case MNT_WRITE:
			case MNT_READ_ONLY:
			case MNT_READ:
				rc = sbx_mnt_attach(op->tree, op->path, d);
				break;
			case MNT_DENY:
				if (!op->is_dir) {
					rc = sbx_mnt_mask_file(&empty_fs, op->path, d);
					break;
				}
				if (!op->holds || op->sealed) {
					rc = sbx_mnt_mask_dir(op->path, d);
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
							ops[j].is_dir, ops[j].path, d);
				if (rc == 0)
					rc = sbx_mnt_mask_seal(mask, op->path, d);
				if (mask >= 0)
					close(mask);
				break;
			}
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
	if (sbx_seccomp_apply(e->network, e->seccomp_metadata, d) < 0)
		sbx_linux_die(d, 125);

	/*
	 * 9. Become the command: same process, so its exit status, signals, standard streams and
	 *    place in the process tree are its own.
	 */
	sbx_linux_exec_command(e->argv, e->exec_failed, e->exec_failed_arg);

out:
	sbx_landlock_free(ll);
	free(ops);
	free(by_path);
	free(denied);
	return rc;
}
