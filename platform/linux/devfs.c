/* SPDX-License-Identifier: MIT */
/*
 * devfs.c - the private /dev and the fresh /proc that init mounts in the sandbox's own mount
 * namespace.
 *
 * /dev holds only what programs expect to find there. No device node can be made in a user
 * namespace (mknod needs CAP_MKNOD in the initial one), so each node is the host's, bind-mounted
 * over an empty file; since a bind shares the inode, a Landlock rule on the host's node holds on
 * the bind too. Terminals come from a new devpts instance, which holds none of the host's; the
 * command's own terminal stays reachable through the descriptors it inherits and /dev/tty, and
 * (SBX_MNT_OWN_TERMINAL) at its own name too: its host node bound over the same name in the
 * new instance, whose pty of that index is held allocated so that the name exists there.
 *
 * Both trees are assembled detached (fsopen, fsmount, open_tree clones, move_mount between
 * detached mounts: Linux 6.15) and attached in one move, so no path ever shows a half-built
 * tree. Older kernels refuse a mount onto a detached mount with EINVAL; there the top mount is
 * attached first and filled in place, which only this process can see: nothing else runs in the
 * new mount namespace yet.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/mountapi.h"
#include "linux/sandbox.h"

/* No set-user-id, no device, no program: what every mount here has but the ones named. */
#define NO_SUID_DEV_EXEC (SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV | SBX_MOUNT_ATTR_NOEXEC)

/* The host's node behind each name, checked before it is bound: nothing else may come in. */
static const struct {
	const char *name;
	unsigned int major, minor;
} dev_nodes[SBX_DEV_N_NODES] = {
	[SBX_DEV_NULL] = {"null", 1, 3},       [SBX_DEV_ZERO] = {"zero", 1, 5},
	[SBX_DEV_FULL] = {"full", 1, 7},       [SBX_DEV_RANDOM] = {"random", 1, 8},
	[SBX_DEV_URANDOM] = {"urandom", 1, 9}, [SBX_DEV_TTY] = {"tty", 5, 0},
};

static const struct {
	const char *name, *target;
} dev_links[] = {
	{"ptmx", "pts/ptmx"},	       {"fd", "/proc/self/fd"},	      {"stdin", "/proc/self/fd/0"},
	{"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"},
};

/* Directories of procfs that bubblewrap also covers read-only: kernel knobs, not process data. */
static const char *const proc_readonly[] = {"sys", "sysrq-trigger", "irq", "bus"};

#define ARRAY_LEN(a) (sizeof(a) / sizeof(*(a)))

/*
 * A new detached mount of fstype with string options (NULL-terminated key, value pairs).
 * Returns the mount descriptor or -errno; *step says which call failed.
 */
static int new_mount(const char *fstype, const char *const *opts, unsigned int attrs,
		     const char **step)
{
	int fs, mnt, err;

	*step = "fsopen";
	fs = (int)syscall(__NR_fsopen, fstype, SBX_FSOPEN_CLOEXEC);
	if (fs < 0)
		return -errno;
	for (*step = "fsconfig"; opts && opts[0]; opts += 2)
		if (syscall(__NR_fsconfig, fs, SBX_FSCONFIG_SET_STRING, opts[0], opts[1], 0) < 0)
			goto fail;
	if (syscall(__NR_fsconfig, fs, SBX_FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		goto fail;
	*step = "fsmount";
	mnt = (int)syscall(__NR_fsmount, fs, SBX_FSMOUNT_CLOEXEC, attrs);
	if (mnt < 0)
		goto fail;
	close(fs);
	return mnt;
fail:
	err = errno;
	close(fs);
	return -err;
}

/*
 * A tree under construction: top is its root mount, attached at path once complete, or at the
 * first refusal to mount onto it detached (kernels before 6.15) unless it must stay detached.
 */
struct stage {
	int top;
	const char *path;
	bool attached;
	bool put_detached; /* a mount onto the detached top succeeded: the kernel allows it */
};

static int stage_attach(struct stage *st, struct sbx_diag *d)
{
	if (st->attached)
		return 0;
	/* No MOVE_MOUNT_T_SYMLINKS: path itself must not be a symbolic link. */
	if (syscall(__NR_move_mount, st->top, "", AT_FDCWD, st->path, SBX_MOVE_MOUNT_F_EMPTY_PATH) <
	    0)
		return sbx_mnt_fail(d, errno, "mounting over", st->path);
	st->attached = true;
	return 0;
}

/*
 * Mounts tree over name (relative to the top of the stage). A kernel before 6.15 answers the
 * first mount onto the detached top with EINVAL: the stage is then attached and the mount made
 * there, or, with keep_detached, -EOPNOTSUPP is returned (d untouched, nothing changed) for the
 * caller to finish the tree once it may attach it. Once attached, the target is named by its
 * path: the mount namespace is this process's alone, and a path keeps the two forms apart for
 * the fault injector (tests/enforce/failinj.c, "detached").
 */
static int stage_put(struct stage *st, int tree, const char *name, bool keep_detached,
		     struct sbx_diag *d)
{
	char target[64];
	long rc;
	int err;

	/* The piece's name as the sandbox will see it: every message names it. */
	if ((size_t)snprintf(target, sizeof(target), "%s/%s", st->path, name) >= sizeof(target))
		return sbx_mnt_fail(d, ENAMETOOLONG, "mounting in", st->path);
	if (!st->attached) {
		rc = syscall(__NR_move_mount, tree, "", st->top, name, SBX_MOVE_MOUNT_F_EMPTY_PATH);
		if (rc == 0) {
			st->put_detached = true;
			return 0;
		}
		err = errno;
		if (err != EINVAL || st->put_detached)
			return sbx_mnt_fail(d, err, "mounting over", target);
		if (keep_detached)
			return -EOPNOTSUPP;
		if ((rc = stage_attach(st, d)) < 0)
			return (int)rc;
	}
	if (syscall(__NR_move_mount, tree, "", AT_FDCWD, target, SBX_MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return sbx_mnt_fail(d, errno, "mounting over", target);
	return 0;
}

static int set_attrs(int mnt, uint64_t attrs)
{
	struct sbx_mount_attr a = {.attr_set = attrs};

	return (int)syscall(__NR_mount_setattr, mnt, "", AT_EMPTY_PATH, &a, sizeof(a));
}

/*
 * A host node's clone keeps the attributes of the host's /dev mount, which the sandbox's / has
 * made nodev by the time a /dev built in place clones it (enter.c: no node outside the private
 * /dev opens). The allow-list's own nodes are the exception: nodev cleared on their clones.
 */
static int allow_device(int mnt)
{
	struct sbx_mount_attr a = {.attr_clr = SBX_MOUNT_ATTR_NODEV};

	return (int)syscall(__NR_mount_setattr, mnt, "", AT_EMPTY_PATH, &a, sizeof(a));
}

void sbx_devfs_clear(struct sbx_devfs *dev)
{
	memset(dev->nodes, 0xff, sizeof(dev->nodes));
	dev->pts = dev->ptmx = dev->shm = dev->top = dev->term = dev->term_master = -1;
	dev->loose = false;
}

void sbx_devfs_close(struct sbx_devfs *dev)
{
	for (size_t i = 0; i < SBX_DEV_N_NODES; i++)
		if (dev->nodes[i] >= 0)
			close(dev->nodes[i]);
	if (dev->pts >= 0)
		close(dev->pts);
	if (dev->ptmx >= 0)
		close(dev->ptmx);
	if (dev->shm >= 0)
		close(dev->shm);
	if (dev->top >= 0)
		close(dev->top);
	if (dev->term >= 0)
		close(dev->term);
	if (dev->term_master >= 0)
		close(dev->term_master);
	sbx_devfs_clear(dev);
}

/*
 * Clones the host's mount at exactly /dev/<name> (not following a link there) and checks that
 * the clone is the character device major:minor. Returns the clone's descriptor (a detached
 * mount of that one file: the same inode as the host's node), -ENOENT when the host has no such
 * node (the sandbox then has none either: stricter, never looser), or another negative code
 * with d filled.
 */
static int clone_host_node(size_t i, struct sbx_diag *d)
{
	char path[32];
	struct stat st;
	int fd, err;

	snprintf(path, sizeof(path), "/dev/%s", dev_nodes[i].name);
	fd = (int)syscall(__NR_open_tree, AT_FDCWD, path,
			  SBX_OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return err == ENOENT ? -ENOENT : sbx_mnt_fail(d, err, "binding the host's", path);
	}
	if (fstat(fd, &st) < 0) {
		err = errno;
		close(fd);
		return sbx_mnt_fail(d, err, "examining", path);
	}
	if (!S_ISCHR(st.st_mode) || major(st.st_rdev) != dev_nodes[i].major ||
	    minor(st.st_rdev) != dev_nodes[i].minor) {
		close(fd);
		return sbx_diag_set(d, -EINVAL, "%s is not the character device %u:%u", path,
				    dev_nodes[i].major, dev_nodes[i].minor);
	}
	if (allow_device(fd) < 0) {
		err = errno;
		close(fd);
		return sbx_mnt_fail(d, err, "binding the host's", path);
	}
	return fd;
}

/*
 * The major of Unix 98 pty slaves: index N is the device (136, N). The kernel registers all 2^20
 * minors under 136, so pts/256 is (136, 256), not (137, 0): the majors 137 to 143 that the old
 * device list reserves for slaves 256 to 2047 hold no pty.
 */
#define PTS_MAJOR 136u

/*
 * The command's own terminal: the first standard stream on a pty slave, and the host's node of
 * it, cloned from /dev/pts/N (not following a link there) and checked to be the very device
 * and inode that stream holds: an earlier run or another user may have changed what the name
 * is. Returns the clone with *index N, or -1 when there is none to name (no pty, a pty of
 * another devpts instance than the host's /dev/pts, an index of SBX_PTS_NAMED_MAX or more, a
 * failed clone): the terminal then goes without its name, as it always could.
 */
static int clone_own_terminal(unsigned int *index)
{
	struct stat tty, node;
	char path[32];
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (fstat(fd, &tty) == 0 && S_ISCHR(tty.st_mode) && major(tty.st_rdev) == PTS_MAJOR)
			break;
	if (fd > STDERR_FILENO)
		return -1;
	*index = minor(tty.st_rdev);
	if (*index >= SBX_PTS_NAMED_MAX)
		return -1;
	snprintf(path, sizeof(path), "/dev/pts/%u", *index);
	fd = (int)syscall(__NR_open_tree, AT_FDCWD, path,
			  SBX_OPEN_TREE_CLONE | AT_SYMLINK_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &node) < 0 || !S_ISCHR(node.st_mode) || node.st_rdev != tty.st_rdev ||
	    node.st_dev != tty.st_dev || node.st_ino != tty.st_ino || allow_device(fd) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Allocates pty index in the new instance (its root pts), so that the name exists there for the
 * host's node to be bound over: the kernel hands out the lowest free index, so the masters
 * below it are opened, then closed again, which leaves them to the command's own new ptys.
 * Returns the master of index, or -1 (the instance's limit, the process's, a surprise index).
 */
static int hold_index(int pts, unsigned int index)
{
	int *below = malloc((index + 1) * sizeof(*below));
	unsigned int n = 0;
	int held = -1;

	if (!below)
		return -1;
	for (;;) {
		int fd = openat(pts, "ptmx", O_RDWR | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
		unsigned int got;

		if (fd < 0)
			break;
		if (ioctl(fd, TIOCGPTN, &got) < 0 || got > index || (got < index && n == index)) {
			close(fd);
			break;
		}
		if (got == index) {
			held = fd;
			break;
		}
		below[n++] = fd;
	}
	while (n > 0)
		close(below[--n]);
	free(below);
	return held;
}

/* Makes the mount points and links in the still writable top of /dev. */
static int populate(int top, const struct sbx_devfs *dev, const char *path, unsigned int flags,
		    struct sbx_diag *d)
{
	/*
	 * Each node's mount point an empty regular file: mknodat makes one in a call (a regular
	 * file needs no CAP_MKNOD), where openat would need a close beside it.
	 */
	for (size_t i = 0; i < SBX_DEV_N_NODES; i++)
		if (dev->nodes[i] >= 0 && mknodat(top, dev_nodes[i].name, S_IFREG, 0) < 0)
			return sbx_mnt_fail(d, errno, "making a mount point in the private", path);
	if (mkdirat(top, "pts", 0755) < 0 || mkdirat(top, "shm", 0755) < 0)
		return sbx_mnt_fail(d, errno, "making a mount point in the private", path);
	for (size_t i = 0; i < ARRAY_LEN(dev_links); i++)
		if ((strcmp(dev_links[i].name, "ptmx") != 0 ||
		     !(flags & SBX_MNT_LEAVE_OUT(SBX_DEV_N_NODES))) &&
		    symlinkat(dev_links[i].target, top, dev_links[i].name) < 0)
			return sbx_mnt_fail(d, errno, "making a link in the private", path);
	return 0;
}

/*
 * Mounts the pieces in the top: pts, shm, then each node on its empty file. With keep_detached
 * on a kernel that mounts onto attached mounts only, -EOPNOTSUPP before any is mounted.
 */
static int assemble(struct stage *st, const struct sbx_devfs *dev, bool keep_detached,
		    struct sbx_diag *d)
{
	int rc = stage_put(st, dev->pts, "pts", keep_detached, d);
	char name[32];

	if (rc == 0 && dev->term >= 0) {
		snprintf(name, sizeof(name), "pts/%u", dev->term_index);
		rc = stage_put(st, dev->term, name, keep_detached, d);
	}
	if (rc == 0)
		rc = stage_put(st, dev->shm, "shm", keep_detached, d);
	for (size_t i = 0; i < SBX_DEV_N_NODES && rc == 0; i++)
		if (dev->nodes[i] >= 0)
			rc = stage_put(st, dev->nodes[i], dev_nodes[i].name, keep_detached, d);
	return rc;
}

int sbx_devfs_build(const char *path, unsigned int flags, struct sbx_devfs *out, struct sbx_diag *d)
{
	static const char *const top_opts[] = {"mode", "0755", NULL};
	static const char *const pts_opts[] = {"mode", "0620", "ptmxmode", "0666", NULL};
	static const char *const shm_opts[] = {"mode", "1777", NULL};
	bool detached = flags & SBX_MNT_DETACHED;
	struct sbx_devfs dev;
	struct stage st = {.top = -1, .path = path};
	const char *step;
	int rc = 0;

	sbx_devfs_clear(&dev);

	/* The host's nodes, cloned before anything covers the host's /dev. */
	for (size_t i = 0; i < SBX_DEV_N_NODES && rc == 0; i++) {
		/* A node the profile denies by its name is not cloned: never looked at. */
		int fd = flags & SBX_MNT_LEAVE_OUT(i) ? -ENOENT : clone_host_node(i, d);

		if (fd >= 0)
			dev.nodes[i] = fd;
		else if (fd != -ENOENT)
			rc = fd;
	}
	if (rc == 0 && (flags & SBX_MNT_OWN_TERMINAL))
		dev.term = clone_own_terminal(&dev.term_index);
	if (rc < 0)
		goto out;

	/*
	 * The top: an empty tmpfs, writable only until its mount points and links are made. Every
	 * device of /dev is a mount of its own, so the top is nodev too.
	 */
	st.top = new_mount("tmpfs", top_opts, NO_SUID_DEV_EXEC, &step);
	if (st.top < 0) {
		rc = sbx_diag_set(d, st.top, "%s tmpfs for the private %s: %s", step, path,
				  strerror(-st.top));
		goto out;
	}
	rc = populate(st.top, &dev, path, flags, d);
	if (rc == 0 && set_attrs(st.top, SBX_MOUNT_ATTR_RDONLY) < 0)
		rc = sbx_mnt_fail(d, errno, "making read-only the private", path);
	if (rc == 0 && (flags & SBX_MNT_ATTACH_FIRST))
		rc = stage_attach(&st, d);

	/* A new devpts instance (every devpts mount is one since Linux 4.7): no host terminal. */
	if (rc == 0) {
		dev.pts = new_mount("devpts", pts_opts,
				    SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NOEXEC, &step);
		if (dev.pts < 0)
			rc = sbx_diag_set(d, dev.pts, "%s devpts for %s/pts: %s", step, path,
					  strerror(-dev.pts));
	}
	if (rc == 0) {
		dev.ptmx = openat(dev.pts, "ptmx", O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (dev.ptmx < 0)
			rc = sbx_mnt_fail(d, errno, "opening ptmx of the new devpts for", path);
	}
	if (rc == 0 && dev.term >= 0) {
		dev.term_master = hold_index(dev.pts, dev.term_index);
		if (dev.term_master < 0) {
			close(dev.term);
			dev.term = -1;
		}
	}

	/* A private /dev/shm, for POSIX shared memory and semaphores. */
	if (rc == 0) {
		dev.shm = new_mount("tmpfs", shm_opts, SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV,
				    &step);
		if (dev.shm < 0)
			rc = sbx_diag_set(d, dev.shm, "%s tmpfs for %s/shm: %s", step, path,
					  strerror(-dev.shm));
	}

	if (rc == 0)
		rc = assemble(&st, &dev, detached, d);
	if (rc == -EOPNOTSUPP && detached) {
		/*
		 * The kernel mounts onto attached mounts only (before 6.15), as its answer to the
		 * first mount showed: the pieces stay apart, and sbx_devfs_attach() mounts them in
		 * place. Nothing is built twice.
		 */
		dev.loose = true;
		rc = 0;
	}
	if (rc == 0 && detached) {
		dev.top = st.top;
		st.top = -1;
	} else if (rc == 0) {
		rc = stage_attach(&st, d);
	}
out:
	if (st.top >= 0)
		close(st.top);
	if (rc < 0) {
		sbx_devfs_close(&dev);
		return rc;
	}
	*out = dev;
	return 0;
}

int sbx_devfs_attach(struct sbx_devfs *dev, const char *path, struct sbx_diag *d)
{
	struct stage st = {.top = dev->top, .path = path};
	int rc = stage_attach(&st, d);

	if (rc == 0 && dev->loose)
		rc = assemble(&st, dev, false, d);
	close(dev->top);
	dev->top = -1;
	dev->loose = false;
	return rc;
}

int sbx_proc_mount(const char *path, unsigned int flags, struct sbx_diag *d)
{
	struct stage st = {.path = path};
	unsigned int attrs = NO_SUID_DEV_EXEC;
	const char *step;
	int rc = 0;

	/*
	 * The kernel lets a user namespace mount a procfs only where one is already fully
	 * visible: over-mounts on files or non-empty directories of the host's /proc (a
	 * container's masked paths) refuse it with EPERM. Then the host's /proc stays; the
	 * caller says so.
	 */
	if (flags & SBX_MNT_READONLY)
		attrs |= SBX_MOUNT_ATTR_RDONLY;
	st.top = new_mount("proc", NULL, attrs, &step);
	if (st.top == -EPERM && strcmp(step, "fsmount") == 0)
		return SBX_PROC_HOST;
	if (st.top < 0)
		return sbx_diag_set(d, st.top, "%s proc for %s: %s", step, path, strerror(-st.top));
	if ((flags & SBX_MNT_ATTACH_FIRST) && (rc = stage_attach(&st, d)) < 0) {
		close(st.top);
		return rc;
	}

	/*
	 * Kernel knobs read-only, each a bind of itself: as uid 0 without capabilities, sysctl
	 * files owned by root would otherwise still be writable by their mode. A read-only procfs
	 * gets them too: one way of building it, on kernels before 6.15 as after.
	 */
	for (size_t i = 0; i < ARRAY_LEN(proc_readonly) && rc == 0; i++) {
		int tree = (int)syscall(__NR_open_tree, st.top, proc_readonly[i],
					SBX_OPEN_TREE_CLONE | O_CLOEXEC);

		if (tree < 0 && errno == EINVAL && !st.attached) {
			rc = stage_attach(&st, d);
			if (rc < 0)
				break;
			tree = (int)syscall(__NR_open_tree, st.top, proc_readonly[i],
					    SBX_OPEN_TREE_CLONE | O_CLOEXEC);
		}
		if (tree < 0 && errno == ENOENT) /* irq and bus depend on the kernel's options */
			continue;
		if (tree < 0) {
			rc = sbx_mnt_fail(d, errno, "binding in the new proc", proc_readonly[i]);
			break;
		}
		if (set_attrs(tree, SBX_MOUNT_ATTR_RDONLY) < 0)
			rc = sbx_mnt_fail(d, errno, "making read-only in the new proc",
					  proc_readonly[i]);
		else
			rc = stage_put(&st, tree, proc_readonly[i], false, d);
		close(tree);
	}
	if (rc == 0)
		rc = stage_attach(&st, d);
	close(st.top);
	return rc < 0 ? rc : SBX_PROC_FRESH;
}
