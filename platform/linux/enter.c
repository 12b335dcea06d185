/* SPDX-License-Identifier: MIT */
/*
 * enter.c - the Linux enter sequence: from a finished plan to execvp, in two functions.
 *
 * sbx_linux_prepare() does everything that can fail and be reported: it builds the Landlock
 * ruleset on the descriptors every rule path's one look-up kept, and the mount plan
 * (lib/plan_linux_mounts.c, a pure function of the resolved paths). Nothing on the host or in
 * this process has changed when it returns an error.
 *
 * sbx_linux_apply_and_exec() carries that out, one step and one reason at a time, and becomes
 * the command. It never returns: a failure after its first step dies here (exit 125, or
 * 126/127 when the command cannot be executed), so a half-applied sandbox never reaches
 * execve. Read it top to bottom; every step says why it comes where it does.
 *
 * The two are kept apart so that a supervising parent can sit between them: prepare works in
 * the process that plans, and the descriptors it holds are inherited by a child cloned into new
 * namespaces (sandbox.h), where sandbox_apply() then runs. sbx_linux_apply_and_exec() is the
 * order of the whole run, and sandbox_apply() the order of the sandbox, each in one function.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/netns.h"
#include "linux/sandbox.h"

/*
 * The device allow-list: nodes every program expects to open for writing (and ioctl, for
 * terminals). Writing them changes no file; Landlock would otherwise refuse them because /dev
 * is not a writable root. Never all of /dev/pts: the user's other terminals are there. The
 * command's own terminal is added from its standard streams (own_terminals), and a private
 * /dev adds its new pts instance. TIOCSTI/TIOCLINUX stay refused by seccomp.
 */
static const char *const device_paths[] = {
	"/dev/null",	"/dev/zero", "/dev/full", "/dev/random",
	"/dev/urandom", "/dev/tty",  "/dev/ptmx",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof(*(a)))

static struct {
	void (*fn)(void *arg);
	void *arg;
	pid_t pid;
} on_refusal;

void sbx_linux_on_refusal(void (*fn)(void *arg), void *arg)
{
	on_refusal.fn = fn;
	on_refusal.arg = arg;
	on_refusal.pid = getpid();
}

void sbx_linux_refused(void)
{
	void (*fn)(void *arg) = on_refusal.fn;

	/* A child (init, the command's process) shares the hook but not what it undoes. */
	if (!fn || getpid() != on_refusal.pid)
		return;
	on_refusal.fn = NULL;
	fn(on_refusal.arg);
}

/*
 * Whether a refusal of this run has been said: a word in a page the helper shares with every
 * process it starts (init, the command's process), which each takes before it prints one. Two
 * of them may fail at once for the same cause (out of descriptors: the supervisor making the
 * points while init builds /dev), and the run then says one line, the first, not one each.
 * Made just before init is started, so that the proxy's worker, started before, has none; init
 * lets go of it once the points are made (refusal_gate_drop). NULL (the page could not be had,
 * or let go of) says every one, as before.
 */
static int *refusal_said;

static void refusal_gate(void)
{
	void *m = mmap(NULL, sizeof(*refusal_said), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	refusal_said = m == MAP_FAILED ? NULL : m;
}

/*
 * Init lets go of the page once the points are made: no process of the sandbox shares memory
 * with the supervisor (the command would otherwise inherit it until it executes).
 */
static void refusal_gate_drop(void)
{
	if (refusal_said)
		munmap(refusal_said, sizeof(*refusal_said));
	refusal_said = NULL;
}

/* Prints the refusal in d, unless a process of this run has said one already. */
static void say_refusal(const struct sbx_diag *d)
{
	if (refusal_said && __atomic_exchange_n(refusal_said, 1, __ATOMIC_ACQ_REL))
		return;
	sbx_diag_print(d, stderr);
	fflush(stderr);
}

void sbx_linux_die(const struct sbx_diag *d, int status)
{
	if (status == 125) {
		sbx_linux_refused();
		say_refusal(d);
	} else {
		sbx_diag_print(d, stderr);
		fflush(stderr);
	}
	_exit(status);
}

/* The one look-up of path, or -errno worded in d (a failure is never taken for "missing"). */
static int looked_up(struct sbx_rulepaths *res, const char *path, const struct sbx_rulepath **f,
		     struct sbx_diag *d)
{
	*f = sbx_rulepath_get(res, path);
	if (!*f)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	if ((*f)->err)
		return sbx_diag_set(d, (*f)->err, "cannot look up %s: %s", path,
				    strerror(-(*f)->err));
	return 0;
}

/*
 * Adds the rule for one granted tree, on the descriptor its look-up kept. A tree holding paths
 * the plan denies by Landlock alone (no mount namespace) is granted around them, entry by entry;
 * a missing path grants nothing.
 */
static int ll_grant(struct sbx_landlock *ll, const struct sbx_linux_enforce *e, const char *path,
		    enum sbx_ll_grant g, struct sbx_diag *d)
{
	const struct sbx_rulepath *f;
	int rc = looked_up(e->res, path, &f, d);

	if (rc < 0 || !f->facts.exists)
		return rc;
	if (e->ll_deny.n > 0 || e->ll_hidden.n > 0)
		return sbx_landlock_grant_around(ll, e->res, f, g, e->ll_deny.v, e->ll_deny.n,
						 e->ll_hidden.v, e->ll_hidden.n, d);
	/* The type its look-up found on that very descriptor: no fstat of its own (one a rule). */
	return sbx_landlock_add_typed(ll, f->fd, f->facts.type == SBX_FT_DIR, g, path, d);
}

/*
 * The command's own terminal, from its standard streams: device rights on that one node, so
 * that it can open it again by name (/dev/tty, /proc/self/fd/N, ttyname's path where it
 * resolves), and on no other terminal of the user.
 */
static int own_terminals(struct sbx_landlock *ll, struct sbx_diag *d)
{
	int rc = 0;

	for (int fd = STDIN_FILENO; rc == 0 && fd <= STDERR_FILENO; fd++) {
		char self[32];
		int node;

		if (!isatty(fd))
			continue;
		snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
		node = open(self, O_PATH | O_CLOEXEC);
		if (node < 0)
			continue; /* a terminal that cannot be named: its descriptor is all it has */
		rc = sbx_landlock_add_fd(ll, node, SBX_LL_DEVICE, "the command's terminal", d);
		close(node);
	}
	return rc;
}

/* The Landlock ruleset: every grant of the plan, on the objects its paths resolved to. */
static int build_ruleset(const struct sbx_linux_enforce *e, struct sbx_landlock **out,
			 struct sbx_diag *d)
{
	const struct sbx_roots *r = e->roots;
	bool fs = !r->full_write;
	int rc;

	/* With full write there is nothing to allow-list: the network and the scopes only. */
	rc = sbx_landlock_create(e->landlock_abi, fs, e->landlock_net, out, d);
	if (rc < 0 || !fs)
		return rc;
	if (r->full_read)
		rc = ll_grant(*out, e, "/", SBX_LL_READ, d);
	for (size_t i = 0; !r->full_read && rc == 0 && i < r->n_readable; i++)
		rc = ll_grant(*out, e, r->readable[i], SBX_LL_READ, d);
	for (size_t i = 0;
	     !r->full_read && r->platform_defaults && rc == 0 && sbx_linux_minimal_paths[i]; i++)
		rc = ll_grant(*out, e, sbx_linux_minimal_paths[i], SBX_LL_READ, d);
	for (size_t i = 0; rc == 0 && i < r->n_writable; i++)
		rc = ll_grant(*out, e, r->writable[i].root, SBX_LL_WRITE, d);
	for (size_t i = 0; rc == 0 && i < ARRAY_LEN(device_paths); i++)
		rc = ll_grant(*out, e, device_paths[i], SBX_LL_DEVICE, d);
	if (rc == 0)
		rc = own_terminals(*out, d);
	return rc;
}

/*
 * Where the Landlock ruleset grants anything, as the paths resolve, sorted: left empty (v NULL)
 * when there is no file-system ruleset or it grants everything (full read).
 */
static int granted_paths(const struct sbx_linux_enforce *e, struct sbx_strv *out,
			 struct sbx_diag *d)
{
	const struct sbx_roots *r = e->roots;
	size_t n_minimal = 0, n;
	int rc = 0;

	while (sbx_linux_minimal_paths[n_minimal])
		n_minimal++;
	n = r->n_readable + r->n_writable + n_minimal + ARRAY_LEN(device_paths);

	if (e->landlock_abi <= 0 || r->full_read || r->full_write)
		return 0;
	for (size_t i = 0; rc == 0 && i < n; i++) {
		const struct sbx_rulepath *f;
		const char *p;
		size_t k = i;

		if (k < r->n_readable) {
			p = r->readable[k];
		} else if ((k -= r->n_readable) < r->n_writable) {
			p = r->writable[k].root;
		} else if ((k -= r->n_writable) < n_minimal) {
			if (!r->platform_defaults)
				continue;
			p = sbx_linux_minimal_paths[k];
		} else {
			p = device_paths[k - n_minimal];
		}
		rc = looked_up(e->res, p, &f, d);
		if (rc == 0 && f->facts.exists)
			rc = sbx_strv_push(out, f->real);
	}
	if (rc == 0 && !out->v)
		rc = sbx_strv_push(out, "\n"); /* nothing granted: a list that holds no path */
	if (rc == 0)
		sbx_sort_strs(out->v, out->n); /* in order already, mostly: the profile's */
	return rc == -ENOMEM ? sbx_diag_set(d, rc, "out of memory") : rc;
}

/* Appends the candidate mount of one rule path, when it exists. */
static int add_candidate(struct sbx_mount_op *ops, size_t *n, enum sbx_mount_kind kind,
			 const char *path, bool from_glob, struct sbx_rulepaths *res,
			 struct sbx_diag *d)
{
	const struct sbx_rulepath *f;
	int rc = looked_up(res, path, &f, d);

	if (rc < 0 || !f->facts.exists)
		return rc;
	ops[(*n)++] = (struct sbx_mount_op){.kind = kind,
					    .path = f->real,
					    .is_dir = f->facts.type == SBX_FT_DIR,
					    .from_glob = from_glob,
					    .dev = f->facts.dev,
					    .ino = f->facts.ino};
	return 0;
}

/*
 * Whether some denied path (one the profile names, or a glob's match) exists and is not "/":
 * only then can a readable root lie in a mask, and need a mount. The first that exists answers.
 */
static int some_mask(const struct sbx_linux_enforce *e, bool *yes, struct sbx_diag *d)
{
	const struct sbx_roots *r = e->roots;
	size_t n = r->n_unreadable + e->deny_expanded.n;
	int rc = 0;

	*yes = false;
	for (size_t i = 0; rc == 0 && !*yes && i < n; i++) {
		const char *path = i < r->n_unreadable ? r->unreadable[i]
						       : e->deny_expanded.v[i - r->n_unreadable];
		const struct sbx_rulepath *f;

		rc = looked_up(e->res, path, &f, d);
		*yes = rc == 0 && f->facts.exists && strcmp(f->real, "/") != 0;
	}
	return rc;
}

/*
 * Does readable root path resolve into /dev/shm, where it is mounted in the private /dev
 * whether a mask lies above it or not? A failed look-up is said by the caller's.
 */
static bool read_in_shm(const struct sbx_linux_enforce *e, const char *path)
{
	const struct sbx_rulepath *f = sbx_rulepath_get(e->res, path);

	return f && !f->err && f->facts.exists && sbx_linux_private_shm(f->real);
}

/*
 * The mount plan, from a candidate for every rule path (the one look-up each), counted first so
 * that their room is allocated once; the plan keeps that room as its ops.
 */
static int build_mounts(const struct sbx_linux_enforce *e, struct sbx_linux_prepared *p,
			struct sbx_diag *d)
{
	const struct sbx_roots *r = e->roots;
	struct sbx_mount_op *ops;
	struct sbx_strv granted = {0};
	size_t n = 0, cap = r->n_unreadable + e->deny_expanded.n + r->n_writable + p->points.n +
			    p->points.pins.n;
	size_t n_shm = 0; /* readable roots in /dev/shm where no mask lies (plus one), or 0 */
	bool masked;
	int rc = some_mask(e, &masked, d);

	if (rc == 0)
		rc = granted_paths(e, &granted, d);
	if (rc < 0) {
		sbx_strv_clear(&granted);
		return rc;
	}
	/*
	 * A readable root is mounted only inside a mask or in /dev/shm (sbx_mount_plan_build):
	 * with no denied path on the host, 10,000 readable paths would be 10,000 candidates for
	 * nothing. One in /dev/shm is granted there (it is refused without Landlock) or lies
	 * beside full read, whose readable roots are only those it does not reach (in /dev/shm:
	 * shm_apart in lib/roots.c keeps them apart from read /), few: the readable roots are
	 * looked at only then.
	 */
	if (masked)
		cap += r->n_readable;
	else if (r->full_read && !r->full_write)
		n_shm = 1;
	for (size_t i = 0; !masked && i < granted.n && !n_shm; i++)
		n_shm = sbx_linux_private_shm(granted.v[i]);
	for (size_t i = 0; !masked && n_shm && i < r->n_readable; i++)
		n_shm += read_in_shm(e, r->readable[i]);
	cap += n_shm;
	for (size_t i = 0; i < r->n_writable; i++)
		cap += r->writable[i].n_read_only;
	ops = calloc(cap ? cap : 1, sizeof(*ops));
	if (!ops) {
		sbx_strv_clear(&granted);
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; rc == 0 && i < r->n_unreadable; i++)
		rc = add_candidate(ops, &n, SBX_MNT_DENY, r->unreadable[i], false, e->res, d);
	for (size_t i = 0; rc == 0 && i < e->deny_expanded.n; i++)
		rc = add_candidate(ops, &n, SBX_MNT_DENY, e->deny_expanded.v[i], true, e->res, d);
	for (size_t i = 0; rc == 0 && i < r->n_writable; i++) {
		const struct sbx_writable_root *w = &r->writable[i];

		rc = add_candidate(ops, &n, SBX_MNT_WRITE, w->root, false, e->res, d);
		for (size_t j = 0; rc == 0 && j < w->n_read_only; j++)
			rc = add_candidate(ops, &n, SBX_MNT_READ_ONLY, w->read_only[j], false,
					   e->res, d);
	}
	for (size_t i = 0; rc == 0 && (masked || n_shm) && i < r->n_readable; i++)
		if (masked || read_in_shm(e, r->readable[i]))
			rc = add_candidate(ops, &n, SBX_MNT_READ, r->readable[i], false, e->res, d);
	/* Files on the way to a denied path that does not exist: bound read-only. */
	for (size_t i = 0; rc == 0 && i < p->points.pins.n; i++)
		rc = add_candidate(ops, &n, SBX_MNT_READ_ONLY, p->points.pins.v[i], false, e->res,
				   d);
	/* The points, made on the host later (sbx_points_make): their identity comes then. */
	for (size_t i = 0; rc == 0 && i < p->points.n; i++) {
		const struct sbx_point *pt = &p->points.v[i];

		ops[n++] = (struct sbx_mount_op){.kind = SBX_MNT_POINT,
						 .path = pt->path,
						 .is_dir = pt->dir,
						 .dev = pt->dev,
						 .ino = pt->ino};
	}
	if (rc == 0) {
		rc = sbx_mount_plan_build(ops, n, (const char *const *)granted.v, granted.n,
					  &p->mounts);
		if (rc < 0)
			sbx_diag_set(d, rc, "out of memory");
	} else {
		free(ops);
	}
	/* A pinned directory's identity, for the check in the new namespace. */
	for (size_t i = 0; rc == 0 && i < p->mounts.n; i++) {
		struct sbx_mount_op *op = &p->mounts.ops[i];
		const struct sbx_rulepath *f;

		/* Which point each mount is: one hidden by a mask above it is never made. */
		for (size_t k = 0; op->kind == SBX_MNT_POINT && !op->skip && k < p->points.n; k++)
			if (strcmp(p->points.v[k].path, op->path) == 0)
				p->points.v[k].op = (long)i;
		if (op->kind != SBX_MNT_PIN)
			continue;
		rc = looked_up(e->res, op->path, &f, d);
		if (rc == 0 && !f->facts.exists)
			rc = sbx_diag_set(d, -ENOENT,
					  "%s vanished while the sandbox was being built",
					  op->path);
		if (rc == 0) {
			op->dev = f->facts.dev;
			op->ino = f->facts.ino;
		}
	}
	sbx_strv_clear(&granted);
	return rc;
}

int sbx_linux_prepare(const struct sbx_linux_enforce *e, struct sbx_linux_prepared *p,
		      struct sbx_diag *d)
{
	int rc = 0;

	memset(p, 0, sizeof(*p));
	p->e = e;
	p->empty_fs = p->empty_dir = -1;
	sbx_devfs_clear(&p->dev);
	if (!e->argv || !e->argv[0])
		return sbx_diag_set(d, SBX_E_USAGE, "no command to run");
	/* The network's namespace and broker are init's (netns.h): never in place, never without. */
	if (e->net && e->net->clone_flags && e->model != SBX_MODEL_INIT)
		return sbx_diag_set(
			d, SBX_E_UNENFORCEABLE,
			"the network's rules need the sandbox to run under its own init, "
			"which this plan does not have");
	/* The denial report's tracer is a thread of init's supervisor (sandbox.h). */
	if (e->trace && e->model != SBX_MODEL_INIT)
		return sbx_diag_set(d, SBX_E_UNENFORCEABLE,
				    "--report needs the sandbox to run under its own init");
	/* A point is removed after the run: only a supervisor outlives the command. */
	if (e->model == SBX_MODEL_IN_PLACE &&
	    (e->protect_missing.n || e->no_create.n || e->deny_missing.n))
		return sbx_diag_set(d, -EINVAL, "masks over missing names need a supervisor");
	/*
	 * The Landlock ruleset is built now, on the descriptors the look-ups kept: before
	 * anything is masked or restricted, and a kernel that refuses it is found while nothing
	 * has changed. It is enforced last but one. Landlock rules follow inodes, so they hold in
	 * the new mount namespace too.
	 */
	if (e->landlock_abi > 0)
		rc = build_ruleset(e, &p->ll, d);
	/*
	 * The mount plan, decided whole before anything is mounted, down to which mask holds which
	 * mount point, so that applying it only carries it out.
	 */
	if (rc == 0 && e->mount_namespace && !e->roots->full_write) {
		p->mount_namespace = true;
		/* Where a name must not be created, a point; found now, made by the supervisor. */
		rc = sbx_points_find(e, &p->points, d);
		if (rc == 0)
			rc = build_mounts(e, p, d);
		if (rc == 0) {
			p->tree = calloc(p->mounts.n ? p->mounts.n : 1, sizeof(*p->tree));
			if (!p->tree)
				rc = sbx_diag_set(d, -ENOMEM, "out of memory");
		}
		for (size_t i = 0; rc == 0 && i < p->mounts.n; i++) {
			p->tree[i] = -1;
			p->shm_ops |= p->mounts.ops[i].in_shm && !p->mounts.ops[i].skip;
		}
		/* Never the case (a mount namespace brings the private /dev): said, not assumed. */
		if (rc == 0 && p->shm_ops && !e->private_dev)
			rc = sbx_diag_set(
				d, SBX_E_UNENFORCEABLE,
				"the roots under /dev/shm are mounted in the private /dev, "
				"which this plan does not have");
	}
	p->uid = geteuid();
	p->gid = getegid();
	p->unshare_flags = sbx_linux_mntns_flags(p->uid == 0);
	/* Under init, clone(2) made the namespaces and the supervisor wrote the id maps. */
	p->in_namespace = e->model == SBX_MODEL_INIT;
	if (rc < 0)
		sbx_linux_prepared_free(p);
	return rc;
}

void sbx_linux_prepared_free(struct sbx_linux_prepared *p)
{
	sbx_landlock_free(p->ll);
	for (size_t i = 0; p->tree && i < p->mounts.n; i++)
		if (p->tree[i] >= 0)
			close(p->tree[i]);
	free(p->tree);
	if (p->empty_fs >= 0)
		close(p->empty_fs);
	if (p->empty_dir >= 0)
		close(p->empty_dir);
	sbx_mount_plan_free(&p->mounts);
	sbx_points_free(&p->points);
	sbx_devfs_close(&p->dev);
	memset(p, 0, sizeof(*p));
	p->empty_fs = p->empty_dir = -1;
	sbx_devfs_clear(&p->dev);
}

/*
 * The nodes of the private /dev that the plan denies by their very names (an entry or a glob's
 * match, resolved): left out of it, as the host's are masked. A deny of /dev itself is no mask
 * (the private /dev replaces it), and keeps them.
 */
_Static_assert(ARRAY_LEN(device_paths) == SBX_DEV_N_NODES + 1,
	       "device_paths: the nodes of enum sbx_dev_node in its order, then ptmx");

static unsigned int dev_left_out(const struct sbx_linux_prepared *p)
{
	unsigned int flags = 0;

	for (size_t i = 0; p->mount_namespace && i < p->mounts.n; i++) {
		const struct sbx_mount_op *op = &p->mounts.ops[i];

		if (op->kind != SBX_MNT_DENY || !sbx_path_covers("/dev", op->path))
			continue;
		for (size_t k = 0; k < ARRAY_LEN(device_paths); k++)
			if (strcmp(device_paths[k], op->path) == 0)
				flags |= SBX_MNT_LEAVE_OUT(k);
	}
	return flags;
}

/* Dies on a failed step: the diagnostic is already worded. */
static void must(int rc, struct sbx_diag *d)
{
	if (rc < 0)
		sbx_linux_die(d, 125);
}

/*
 * What the mask of file point i holds: a protected or git name's stays readable and holds what
 * git takes for the name missing; a denied path's is empty and unreadable (NULL).
 */
static const char *point_holds(const struct sbx_linux_prepared *p, size_t i)
{
	for (size_t k = 0; k < p->points.n; k++)
		if (p->points.v[k].op == (long)i)
			return p->points.v[k].protect ? p->points.v[k].holds : NULL;
	return NULL;
}

/* The private mount namespace, as planned: first the clones of what is re-attached. */
static void apply_mount_clones(struct sbx_linux_prepared *p, struct sbx_diag *d)
{
	struct sbx_mount_op *ops = p->mounts.ops;
	size_t n = p->mounts.n;
	int flags = p->unshare_flags, err;

	/*
	 * As root, CLONE_NEWNS alone; otherwise a user namespace in which this uid and gid map to
	 * themselves, so file ownership looks the same inside. Under init, the supervisor's
	 * clone(2) made them already, and wrote the id maps from outside.
	 */
	if (!p->in_namespace && unshare(flags) < 0) {
		err = errno;
		sbx_diag_set(d, -err, "unshare(%s): %s",
			     flags & CLONE_NEWUSER ? "CLONE_NEWUSER|CLONE_NEWNS" : "CLONE_NEWNS",
			     strerror(err));
		sbx_diag_hint(d, -err,
			      "the probe found a mount namespace available; run `sbxrun probe` to "
			      "see what changed");
		sbx_linux_die(d, 125);
	}
	if (!p->in_namespace && (flags & CLONE_NEWUSER))
		must(sbx_mnt_map_ids(p->uid, p->gid, d), d);

	/* Nothing done below may propagate back to the host's mount table. */
	must(sbx_mnt_make_private(d), d);

	/*
	 * Clone the mount tree of every path to be re-attached (writable roots, pinned
	 * directories, carve-outs, readable roots inside a denied directory) before / turns
	 * read-only and before any mask hides it: the detached clone keeps every mount's own
	 * flags, so a read-only host mount inside a writable root stays read-only, and nothing is
	 * made writable that was not. Carve-outs and readable roots are made read-only whole. A
	 * descriptor from before the namespace names a mount of the old one, which cannot be cloned
	 * here: the path is walked again, no link followed, and must be the very object planned.
	 */
	for (size_t i = 0; i < n; i++) {
		const struct sbx_mount_op *op = &ops[i];
		int fd, rc;

		if (op->skip || op->kind == SBX_MNT_DENY || op->kind == SBX_MNT_POINT)
			continue;
		fd = sbx_linux_reopen(op->path, op->dev, op->ino, d);
		must(fd, d);
		rc = sbx_mnt_clone_tree(fd, &p->tree[i], op->path, d);
		close(fd);
		must(rc, d);
		if (op->kind == SBX_MNT_READ_ONLY || op->kind == SBX_MNT_READ)
			must(sbx_mnt_set_readonly(p->tree[i], "", d), d);
		/*
		 * With the private /dev, its nodes are the only devices: a node elsewhere (the dev/
		 * of an image or chroot tree that root built in a workspace) would open the host's
		 * device whatever the read-only mount says, since a read-only file system refuses
		 * writes to files, not to devices. nodev refuses opening any node in the tree; a
		 * readable root in /dev/shm, below the private /dev/shm that Landlock grants
		 * writing, needs it most.
		 */
		if (p->e->private_dev)
			must(sbx_mnt_set_nodev(p->tree[i], "", op->path, d), d);
	}
}

/*
 * The target of a root under /dev/shm that nothing mounted there holds: a mount point made in
 * the private /dev/shm (attached by now), with the directories on the way, or the private
 * /dev/shm itself for /dev/shm; walked again by its path, as every target, and checked to be it.
 */
static int shm_target(const struct sbx_linux_prepared *p, const struct sbx_mount_op *op,
		      struct sbx_diag *d)
{
	const char *rel = op->path + strlen("/dev/shm");
	unsigned long long dev, ino;
	struct stat st;
	int rc;

	if (*rel == '\0') {
		if (fstat(p->dev.shm, &st) < 0)
			return sbx_mnt_fail(d, errno, "looking at the private", op->path);
		dev = (unsigned long long)st.st_dev;
		ino = (unsigned long long)st.st_ino;
	} else {
		rc = sbx_mnt_mask_point(p->dev.shm, rel + 1, op->is_dir, op->path, &dev, &ino, d);
		if (rc < 0)
			return rc;
	}
	return sbx_linux_reopen(op->path, dev, ino, d);
}

/*
 * The target of op walked again (sbx_linux_reopen). Short of descriptors, those waiting to be
 * closed are closed and the walk made once more: they are what the run holds beyond the
 * descriptors closed one at a time would.
 */
static int reopen_target(const struct sbx_mount_op *op, struct sbx_fdrun *later, struct sbx_diag *d)
{
	int fd = sbx_linux_reopen(op->path, op->dev, op->ino, d);

	if (fd == -EMFILE && later->n) {
		sbx_diag_clear(d);
		sbx_fdrun_close(later);
		fd = sbx_linux_reopen(op->path, op->dev, op->ino, d);
	}
	return fd;
}

/*
 * Does op open descriptors beside its target that a lack of them would refuse? Only the target
 * (reopen_target) and a file mask's clone (sbx_mnt_mask_file) close what waits in the run and
 * try again; a directory mask's tmpfs, a clone of the empty directory, the first file mask's
 * scratch tmpfs and a point made in the private /dev/shm do not. Before such an op the run is
 * closed, so that it never holds more than closing each descriptor at once would.
 */
static bool opens_more(const struct sbx_linux_prepared *p, const struct sbx_mount_op *op)
{
	if (op->shm_point)
		return true;
	if (op->kind != SBX_MNT_DENY && op->kind != SBX_MNT_POINT)
		return false; /* a clone attached: it was taken before */
	return op->is_dir || p->empty_fs < 0;
}

/*
 * The mount plan proper, once the clones are taken and the points' identities known: first all
 * but what lies in /dev/shm, then (shm, once the private /dev is attached) what does.
 */
static void apply_mount_plan(struct sbx_linux_prepared *p, bool shm, struct sbx_diag *d)
{
	struct sbx_mount_op *ops = p->mounts.ops;
	size_t n = p->mounts.n;
	struct sbx_fdrun later = {0};

	/*
	 * The whole file system read-only, submounts included: this is what refuses chmod, chown,
	 * utimes, truncate, mknod, rename and link outside the writable roots, which Landlock alone
	 * cannot.
	 */
	if (!shm)
		must(sbx_mnt_set_readonly(AT_FDCWD, "/", d), d);
	/* And no device node in it opens: the private /dev, attached later, holds the allowed. */
	if (!shm && p->e->private_dev)
		must(sbx_mnt_set_nodev(AT_FDCWD, "/", "/", d), d);

	/*
	 * Shallow to deep, as planned. Each target is walked again once the mounts above it are in
	 * place (a descriptor taken earlier would name what they now cover), no link followed, and
	 * must be the object planned (or the point made for it in its mask); the mount is made onto
	 * that descriptor, with no look-up by name after the check. The targets and the file
	 * masks' clones are closed a run at a time (struct sbx_fdrun): two system calls fewer a
	 * denied file.
	 */
	for (size_t i = 0; i < n; i++) {
		const struct sbx_mount_op *op = &ops[i];
		int target, mask, rc = 0;

		if (op->skip || op->in_shm != shm)
			continue;
		if (later.n && opens_more(p, op))
			sbx_fdrun_close(&later);
		if (op->shm_point)
			target = shm_target(p, op, d);
		else
			target = reopen_target(op, &later, d);
		must(target, d);
		if (op->kind == SBX_MNT_POINT && op->is_dir) {
			/* Mode 0555: an empty directory, as if the name were missing. */
			rc = sbx_mnt_mask_empty_dir(&p->empty_dir, target, op->path, d);
		} else if (op->kind != SBX_MNT_DENY && op->kind != SBX_MNT_POINT) {
			rc = sbx_mnt_attach(p->tree[i], target, op->path, d);
		} else if (!op->is_dir) {
			rc = sbx_mnt_mask_file(&p->empty_fs, target, point_holds(p, i), op->path,
					       &later, d);
		} else if (!op->holds || op->sealed) {
			rc = sbx_mnt_mask_dir(target, op->path, d);
		} else {
			/*
			 * A mask that paths are re-opened inside: mode 0111, traversable but not
			 * listable, so the names of the other entries stay hidden. The directories
			 * leading to each re-opened path and its mount point are made in the mask
			 * itself, never on the host, before it turns read-only and is attached; the
			 * clones land on those points in their turn (they are deeper, so later).
			 */
			mask = sbx_mnt_mask_open(op->path, d);
			rc = mask < 0 ? mask : 0;
			for (size_t j = i + 1; rc == 0 && j < n; j++)
				if (!ops[j].skip && ops[j].mask == (long)i)
					rc = sbx_mnt_mask_point(mask,
								ops[j].path + strlen(op->path) + 1,
								ops[j].is_dir, ops[j].path,
								&ops[j].dev, &ops[j].ino, d);
			if (rc == 0)
				rc = sbx_mnt_mask_seal(mask, target, op->path, d);
			if (mask >= 0)
				close(mask);
		}
		sbx_fdrun_add(&later, target);
		must(rc, d);
	}
	sbx_fdrun_close(&later);
}

/*
 * Does the profile grant anything in /proc without granting all of / (the minimal set's
 * /proc/self, a readable or writable root there)? The rules were added on the host's procfs,
 * which the fresh one replaces.
 */
static bool proc_granted(const struct sbx_roots *r)
{
	if (r->full_read || r->full_write)
		return false;
	if (r->platform_defaults)
		return true;
	for (size_t i = 0; i < r->n_readable; i++)
		if (sbx_path_covers("/proc", r->readable[i]))
			return true;
	for (size_t i = 0; i < r->n_writable; i++)
		if (sbx_path_covers("/proc", r->writable[i].root))
			return true;
	return false;
}

/*
 * A grant in /proc is a grant of the fresh /proc, read only: it shows the sandbox's processes
 * alone, and a rule cannot name the pid directory of a command not forked yet (as Codex's
 * sandbox shows its whole fresh /proc).
 */
static int grant_fresh_proc(struct sbx_landlock *ll, struct sbx_diag *d)
{
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), rc, err;

	if (fd < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "opening the fresh /proc: %s", strerror(err));
	}
	rc = sbx_landlock_add_fd(ll, fd, SBX_LL_READ, "/proc", d);
	close(fd);
	return rc;
}

/* What the supervisor sends init about the points it made meanwhile (make_points_meanwhile). */
struct points_msg {
	int ok; /* 0: it could not make them, and said why */
	unsigned int n;
	struct {
		unsigned long long dev, ino;
	} id[];
};

/* The length of that message for n points. */
static size_t points_msg_len(size_t n)
{
	return sizeof(struct points_msg) + n * sizeof(((struct points_msg *)NULL)->id[0]);
}

/* In the supervisor, while init starts: the points, then their identities for init's masks. */
static void make_points_meanwhile(void *arg, int chan)
{
	struct sbx_linux_prepared *p = arg;
	size_t n = p->points.n, len = points_msg_len(n);
	struct points_msg *m = calloc(1, len), fail = {0};
	struct sbx_diag d;

	sbx_diag_clear(&d);
	if (!m)
		sbx_diag_set(&d, -ENOMEM, "out of memory");
	if (!m || sbx_points_make(&p->points, &d) < 0) {
		/*
		 * Init ends on this without a word (125); the supervisor mirrors that. Init may
		 * have refused on its own meanwhile (out of descriptors too): one line is said.
		 */
		say_refusal(&d);
		send(chan, &fail, sizeof(fail), MSG_NOSIGNAL);
		free(m);
		return;
	}
	m->ok = 1;
	m->n = (unsigned int)n;
	for (size_t i = 0; i < n; i++) {
		m->id[i].dev = p->points.v[i].dev;
		m->id[i].ino = p->points.v[i].ino;
	}
	/* A failed send means init is gone already: the supervisor's loop finds its end. */
	send(chan, m, len, MSG_NOSIGNAL);
	free(m);
}

/* The mask over point i (if the plan has one) mounts onto the object dev/ino, and no other. */
static void point_target(struct sbx_linux_prepared *p, size_t i, unsigned long long dev,
			 unsigned long long ino)
{
	if (p->points.v[i].op >= 0) {
		p->mounts.ops[p->points.v[i].op].dev = dev;
		p->mounts.ops[p->points.v[i].op].ino = ino;
	}
}

/* In init: waits for the points' identities and gives each mask over a point its target. */
static void receive_points(struct sbx_linux_prepared *p, struct sbx_diag *d)
{
	size_t n = p->points.n, len = points_msg_len(n);
	struct points_msg *m = calloc(1, len);
	ssize_t got;

	if (!m) {
		sbx_diag_set(d, -ENOMEM, "out of memory");
		sbx_linux_die(d, 125);
	}
	got = sbx_supervise_receive(m, len);
	if (got >= (ssize_t)sizeof(*m) && !m->ok)
		_exit(125); /* the supervisor said why */
	if (got != (ssize_t)len || m->n != n) {
		sbx_diag_set(d, got < 0 ? (int)got : -EPROTO,
			     "reading the mount points' identities from the supervisor: %s",
			     strerror(got < 0 ? (int)-got : EPROTO));
		sbx_linux_die(d, 125);
	}
	for (size_t i = 0; i < n; i++)
		point_target(p, i, m->id[i].dev, m->id[i].ino);
	free(m);
}

/*
 * The sandbox, applied to the calling process, in this order: init under a supervisor (the
 * command is its child), the command's own process under a subreaper, or this process itself
 * when it becomes the command in place. Dies on a failed step (125).
 */
static int sandbox_apply(void *arg, struct sbx_diag *d)
{
	struct sbx_linux_prepared *p = arg;
	const struct sbx_linux_enforce *e = p->e;
	/*
	 * The command's terminal at its own name: only init outlives the command's execve to hold
	 * the pty that keeps the name; in the command's own process the name would go with it.
	 */
	unsigned int dev_flags =
		(e->model == SBX_MODEL_INIT ? SBX_MNT_OWN_TERMINAL : 0) | dev_left_out(p);
	int err, rc;

	/*
	 * 1. The private mount namespace, when the plan has one: the clones first. Without one
	 *    (a file system writable everywhere), init's /proc and /dev are still mounted in the
	 *    namespace its clone made, and nothing may propagate from there to the host's: on a
	 *    host whose / is shared (systemd's default) the host's /proc would be covered by the
	 *    sandbox's.
	 */
	if (p->mount_namespace)
		apply_mount_clones(p, d);
	else if (e->fresh_proc || e->private_dev)
		must(sbx_mnt_make_private(d), d);

	/*
	 * While the supervisor makes the points on the host, the private /dev is built detached
	 * (before Linux 6.15 its pieces apart, mounted once attached), then the masks wait for the
	 * points' identities.
	 */
	if (p->points_meanwhile) {
		if (e->private_dev)
			must(sbx_devfs_build("/dev", SBX_MNT_DETACHED | dev_flags, &p->dev, d), d);
		receive_points(p, d);
	}
	refusal_gate_drop();
	if (p->mount_namespace)
		apply_mount_plan(p, false, d);

	/*
	 * 2. The private /dev, attached once / is read-only (a recursive change made later would
	 *    reach its writable /dev/shm too): the allow-list of nodes and a pts instance of its
	 *    own. Then the roots under the host's /dev/shm, whose clones were taken with the
	 *    rest, are mounted in it at their paths, and what the plan keeps in them.
	 */
	if (e->private_dev && p->dev.top >= 0)
		must(sbx_devfs_attach(&p->dev, "/dev", d), d);
	else if (e->private_dev)
		must(sbx_devfs_build("/dev", dev_flags, &p->dev, d), d);
	if (p->mount_namespace && p->shm_ops)
		apply_mount_plan(p, true, d);

	/*
	 * 3. A fresh /proc, from pid 1 of the new PID namespace: it lists the sandbox's processes
	 *    only. Where the kernel refuses one (a container's masked paths), the host's stays,
	 *    read-only; what it shows of the processes outside beyond their command lines
	 *    (memory, environment, descriptors) is then closed by Landlock's ptrace rule, and
	 *    without Landlock nothing would close it: refused.
	 */
	if (e->fresh_proc) {
		/*
		 * Read-only unless the profile writes everywhere: Landlock grants /proc no more
		 * (grant_fresh_proc), and without Landlock the sandbox's uid 0 would write its
		 * processes' files by their mode (init's oom_score_adj, coredump_filter,
		 * clear_refs). Magic links (/proc/self/fd/N, cwd, root) lead to the file's own mount.
		 */
		rc = sbx_proc_mount("/proc", e->roots->full_write ? 0 : SBX_MNT_READONLY, d);
		must(rc, d);
		if (rc == SBX_PROC_FRESH && p->ll && proc_granted(e->roots))
			must(grant_fresh_proc(p->ll, d), d);
		if (rc == SBX_PROC_HOST && !p->ll) {
			sbx_diag_set(
				d, SBX_E_UNENFORCEABLE,
				"cannot enforce \"signals and ptrace only inside the sandbox\": "
				"the kernel refused a fresh /proc here (a container's masked "
				"paths), and without Landlock the host's processes would be "
				"readable in the host's");
			sbx_diag_hint(
				d, SBX_E_UNENFORCEABLE,
				"Linux 5.13 or later with Landlock in the lsm= boot parameter");
			sbx_linux_die(d, 125);
		}
	}

	/*
	 * 4. Into the command's directory, after the mounts: a cwd taken before them would still
	 *    point at the read-only mount underneath the writable bind.
	 */
	if (chdir(e->command_cwd) < 0) {
		err = errno;
		sbx_diag_set(d, -err, "cannot enter the command directory %s: %s", e->command_cwd,
			     strerror(err));
		sbx_linux_die(d, 125);
	}

	/* The network namespace's lo and listeners, while init holds its capabilities there. */
	if (e->net)
		must(sbx_linux_net_enter(e->net, d), d);

	/*
	 * 5. Drop every capability, after the mounts that needed CAP_SYS_ADMIN and before the
	 *    command can use any: root inside the sandbox is then an ordinary uid 0, held back by
	 *    file permissions like anyone. Then no_new_privs, which Landlock requires of an
	 *    unprivileged caller and which keeps setuid binaries and file capabilities from giving
	 *    any of it back across execve.
	 */
	must(sbx_caps_drop_all(d), d);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		err = errno;
		sbx_diag_set(d, -err, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(err));
		sbx_linux_die(d, 125);
	}

	/*
	 * 6. Landlock: the file-system allow-list (and TCP, and abstract-socket and signal
	 *    scoping) enforced for this process and everything it starts; with a private /dev,
	 *    device rights on its pts instance and write on its shm too. Before seccomp, whose
	 *    filter does not need to allow the Landlock calls then. The broker's connector is
	 *    forked after it (it connects in the sandbox's view) and before seccomp (which would
	 *    send its own connect to the broker).
	 */
	if (p->ll && e->private_dev) {
		must(sbx_landlock_add_fd(p->ll, p->dev.pts, SBX_LL_DEVICE, "/dev/pts", d), d);
		must(sbx_landlock_add_fd(p->ll, p->dev.ptmx, SBX_LL_DEVICE, "/dev/ptmx", d), d);
		must(sbx_landlock_add_fd(p->ll, p->dev.shm, SBX_LL_WRITE, "/dev/shm", d), d);
	}
	/*
	 * Init keeps the master that holds the terminal's name for the rest of its life: it is
	 * close-on-exec, and init is not dumpable, so nothing in the sandbox reaches it. (Under a
	 * subreaper the command's own process applies, and its execve closes it.)
	 */
	if (p->dev.term_master >= 0 && sbx_supervise_init_keep(p->dev.term_master) < 0) {
		sbx_diag_set(d, -ENOSPC, "init: too many descriptors to keep");
		sbx_linux_die(d, 125);
	}
	p->dev.term_master = -1;
	sbx_devfs_close(&p->dev);
	if (p->ll)
		must(sbx_landlock_restrict_self(p->ll, d), d);
	if (e->net)
		must(sbx_linux_net_after_landlock(e->net, d), d);

	/*
	 * 7. The seccomp filters, last: they refuse mount, unshare and the other calls the steps
	 *    above needed, and everything after them runs through them. Where the network has a
	 *    filter of its own (netns.h), that one holds its rules and the main one none.
	 */
	must(sbx_seccomp_apply(e->network || (e->net && e->net->filter), e->seccomp_metadata,
			       e->seccomp_no_watch, e->seccomp_ipc, e->seccomp_pgrp,
			       e->seccomp_async, e->traced, d),
	     d);
	if (e->net)
		must(sbx_linux_net_seccomp(e->net, d), d);

	/* The limit of open files raised to hold the look-ups' descriptors is the command's again. */
	sbx_rulepaths_restore_limit(e->res);
	return 0;
}

/* The supervisor's report of a name created on the host during the run. */
static void report_point(void *arg, const char *msg)
{
	struct sbx_diag d;

	(void)arg;
	sbx_diag_clear(&d);
	sbx_diag_set(&d, 0, "%s", msg);
	sbx_diag_print(&d, stderr);
}

/*
 * After the run, in the supervisor: the points go, and with them whatever was created there on
 * the host meanwhile; then a command that succeeded did not (Codex: exit status 1).
 */
static int clean_points(void *arg, int *wstatus)
{
	struct sbx_linux_prepared *p = arg;

	if (sbx_points_clean(&p->points, report_point, NULL) > 0 && WIFEXITED(*wstatus) &&
	    WEXITSTATUS(*wstatus) == 0)
		*wstatus = 1 << 8;
	return 0;
}

void sbx_linux_apply_and_exec(struct sbx_linux_prepared *p)
{
	const struct sbx_linux_enforce *e = p->e;
	struct sbx_diag *d = &p->d;
	struct sbx_spawn s = {.clone_flags = e->clone_flags,
			      .uid = p->uid,
			      .gid = p->gid,
			      .apply = sandbox_apply,
			      .apply_arg = p,
			      .argv = e->argv,
			      .exec_failed = e->exec_failed,
			      .exec_failed_arg = e->exec_failed_arg,
			      .trace = e->trace,
			      .own_group = e->own_group};
	int rc;

	sbx_diag_clear(d);
	/* 1. The command's environment says where it runs. */
	if (setenv("SBXRUN_SANDBOX", "linux-seccomp", 1) < 0 ||
	    (!e->network && setenv("SBXRUN_NETWORK_DISABLED", "1", 1) < 0)) {
		sbx_diag_set(d, -ENOMEM, "out of memory setting the environment");
		sbx_linux_die(d, 125);
	}

	/*
	 * The network's namespace and broker are made by init's clone(2), with the flags the
	 * network says (CLONE_NEWNET where it has a namespace); sbx_linux_prepare() refused any
	 * other model for them.
	 */
	if (e->net && e->net->clone_flags)
		s.clone_flags = e->net->clone_flags;

	/* 2. Nothing needs a supervisor: this process becomes the command, sandboxed. */
	if (e->model == SBX_MODEL_IN_PLACE) {
		sandbox_apply(p, d);
		sbx_linux_exec_command(e->argv, e->exec_failed, e->exec_failed_arg);
	}

	/*
	 * 3. The mount points for masks over names that must not be created, made on the host
	 *    now (the sandbox mounts onto them) and removed by the supervisor when the run ends,
	 *    whatever ends it but a SIGKILL of the supervisor (the next run then finds the empty
	 *    leftover, masks it, and removes it).
	 *    Under init with a mount namespace, the supervisor makes them once init is started,
	 *    while init takes its clones and builds /dev: init waits for them only then.
	 */
	rc = p->points.n ? sbx_supervise_on_empty(clean_points, p) : 0;
	p->points_meanwhile =
		rc == 0 && p->points.n && e->model == SBX_MODEL_INIT && p->mount_namespace;
	if (p->points_meanwhile) {
		s.meanwhile = make_points_meanwhile;
		s.meanwhile_arg = p;
	} else if (rc == 0) {
		/* A signal sent from now on is read by the supervisor, which removes them. */
		if (p->points.n)
			sbx_supervise_hold();
		rc = sbx_points_make(&p->points, d);
		for (size_t i = 0; rc == 0 && p->mount_namespace && i < p->points.n; i++)
			point_target(p, i, p->points.v[i].dev, p->points.v[i].ino);
	}

	/*
	 * 4. This process stays outside as the supervisor, and the sandbox is applied in its child:
	 *    init (pid 1 of new PID, IPC and mount namespaces, made by one clone) that forks the
	 *    command, or without those the command's own process, below a child subreaper. Either
	 *    returns only when nothing could be started. The supervisor takes the command's name
	 *    (what ps and pgrep show), as the process the caller started was the command itself
	 *    when it ran in place; a signal sent to it by that name still reaches the command.
	 */
	prctl(PR_SET_NAME,
	      (unsigned long)(strrchr(e->argv[0], '/') ? strrchr(e->argv[0], '/') + 1 : e->argv[0]),
	      0, 0, 0);
	/* The network's listeners, worker and broker are the supervisor's: set up before clone. */
	if (rc == 0 && e->model == SBX_MODEL_INIT && e->net)
		rc = sbx_linux_net_prepare(e->net, d);
	if (rc == 0)
		refusal_gate();
	if (rc == 0 && e->model == SBX_MODEL_INIT)
		rc = sbx_supervise(&s, d);
	else if (rc == 0)
		rc = sbx_supervise_subreaper(&s, d);
	sbx_points_clean(&p->points, report_point, NULL);
	/* What was sent meanwhile takes effect now, the points gone. */
	sbx_supervise_release();
	sbx_linux_die(d, 125);
}
