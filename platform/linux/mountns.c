/* SPDX-License-Identifier: MIT */
/*
 * mountns.c - the mount operations of the private mount namespace, through the new mount API
 * (Linux 5.12+: open_tree, move_mount, mount_setattr, fsopen, fsmount), by raw system call
 * (mountapi.h: libc headers lag and <sys/mount.h> clashes with <linux/mount.h>).
 *
 * Why the new API: a detached clone of a subtree keeps each mount's own flags (a host read-only
 * mount inside a writable root stays read-only), and mount_setattr(AT_RECURSIVE) makes a whole
 * tree read-only in one call, submounts included, which MS_REMOUNT cannot do. An empty tmpfs
 * made with fsopen/fsmount never has a mount point on the host, so nothing is created there.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/mountapi.h"

#define MASK_ATTRS                                                                                 \
	(SBX_MOUNT_ATTR_RDONLY | SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV |                    \
	 SBX_MOUNT_ATTR_NOEXEC)

int sbx_mnt_fail(struct sbx_diag *d, int err, const char *what, const char *path)
{
	return sbx_diag_set(d, -err, "%s %s: %s", what, path, strerror(err));
}

int sbx_mnt_map_ids(uid_t uid, gid_t gid, struct sbx_diag *d)
{
	/* setgroups must be denied before an unprivileged process may write gid_map. */
	static const struct {
		const char *file;
		int id_is_gid; /* -1: the setgroups file */
	} maps[] = {
		{"/proc/self/setgroups", -1}, {"/proc/self/uid_map", 0}, {"/proc/self/gid_map", 1}};
	char buf[64];

	for (size_t i = 0; i < sizeof(maps) / sizeof(*maps); i++) {
		unsigned long id = maps[i].id_is_gid ? gid : uid;
		ssize_t len, n;
		int fd, err;

		if (maps[i].id_is_gid < 0)
			len = snprintf(buf, sizeof(buf), "deny");
		else
			len = snprintf(buf, sizeof(buf), "%lu %lu 1\n", id, id);
		fd = open(maps[i].file, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return sbx_mnt_fail(d, errno, "opening", maps[i].file);
		n = write(fd, buf, (size_t)len);
		err = errno;
		close(fd);
		if (n != len)
			return sbx_mnt_fail(d, n < 0 ? err : EIO, "writing", maps[i].file);
	}
	return 0;
}

int sbx_mnt_make_private(struct sbx_diag *d)
{
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return sbx_mnt_fail(d, errno, "making private", "/");
	return 0;
}

int sbx_mnt_clone_tree(int fd, int *tree_out, const char *what, struct sbx_diag *d)
{
	int tree = (int)syscall(__NR_open_tree, fd, "",
				SBX_OPEN_TREE_CLONE | O_CLOEXEC | SBX_AT_RECURSIVE | AT_EMPTY_PATH);

	if (tree < 0)
		return sbx_mnt_fail(d, errno, "cloning the mount tree of", what);
	*tree_out = tree;
	return 0;
}

int sbx_mnt_set_readonly(int dfd, const char *path, struct sbx_diag *d)
{
	struct sbx_mount_attr attr = {.attr_set = SBX_MOUNT_ATTR_RDONLY};
	unsigned int flags = SBX_AT_RECURSIVE | (path[0] ? 0 : AT_EMPTY_PATH);

	if (syscall(__NR_mount_setattr, dfd, path, flags, &attr, sizeof(attr)) < 0)
		return sbx_mnt_fail(d, errno, "making read-only", path[0] ? path : "a mount tree");
	return 0;
}

int sbx_mnt_set_nodev(int dfd, const char *path, const char *what, struct sbx_diag *d)
{
	struct sbx_mount_attr attr = {.attr_set = SBX_MOUNT_ATTR_NODEV};
	unsigned int flags = SBX_AT_RECURSIVE | (path[0] ? 0 : AT_EMPTY_PATH);

	if (syscall(__NR_mount_setattr, dfd, path, flags, &attr, sizeof(attr)) < 0)
		return sbx_mnt_fail(d, errno, "making nodev", what);
	return 0;
}

int sbx_mnt_attach(int tree, int target, const char *what, struct sbx_diag *d)
{
	/* Onto the object the descriptor holds: no name is looked up here. */
	if (syscall(__NR_move_mount, tree, "", target, "",
		    SBX_MOVE_MOUNT_F_EMPTY_PATH | SBX_MOVE_MOUNT_T_EMPTY_PATH) < 0)
		return sbx_mnt_fail(d, errno, "mounting over", what);
	return 0;
}

/* A fresh detached tmpfs with the root directory mode given; returns the mount fd. */
static int new_tmpfs(const char *mode, unsigned int attrs, const char *path, struct sbx_diag *d)
{
	int fs, mnt, err;

	fs = (int)syscall(__NR_fsopen, "tmpfs", SBX_FSOPEN_CLOEXEC);
	if (fs < 0)
		return sbx_mnt_fail(d, errno, "fsopen tmpfs for", path);
	if (syscall(__NR_fsconfig, fs, SBX_FSCONFIG_SET_STRING, "mode", mode, 0) < 0 ||
	    syscall(__NR_fsconfig, fs, SBX_FSCONFIG_SET_STRING, "size", "4k", 0) < 0 ||
	    syscall(__NR_fsconfig, fs, SBX_FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0) {
		err = errno;
		close(fs);
		return sbx_mnt_fail(d, err, "configuring tmpfs for", path);
	}
	mnt = (int)syscall(__NR_fsmount, fs, SBX_FSMOUNT_CLOEXEC, attrs);
	err = errno;
	close(fs);
	if (mnt < 0)
		return sbx_mnt_fail(d, err, "fsmount tmpfs for", path);
	return mnt;
}

int sbx_mnt_mask_dir(int target, const char *path, struct sbx_diag *d)
{
	/* Mode 000 and read-only: nothing can be listed, read or created under it. */
	int mnt = new_tmpfs("000", MASK_ATTRS, path, d);
	int rc;

	if (mnt < 0)
		return mnt;
	rc = sbx_mnt_attach(mnt, target, path, d);
	close(mnt);
	return rc;
}

int sbx_mnt_mask_empty_dir(int *empty_dir, int target, const char *path, struct sbx_diag *d)
{
	int tree, rc;

	/*
	 * One read-only tmpfs of mode 0555, made once and cloned for every point: a clone costs
	 * two system calls, a new superblock six. The first point gets that tmpfs itself, and
	 * the others clones of it there: no detached mount is left behind in init, whose last
	 * close (at init's exit) would unmount it and wait for an RCU grace period of its own on
	 * the way to the run's end (some 50 us on an idle machine, milliseconds on a busy one).
	 * The namespace's end takes it down with the rest, in the one grace period that costs.
	 */
	if (*empty_dir < 0) {
		int mnt = new_tmpfs("0555", MASK_ATTRS, path, d);

		if (mnt < 0)
			return mnt;
		rc = sbx_mnt_attach(mnt, target, path, d);
		if (rc < 0) {
			close(mnt);
			return rc;
		}
		*empty_dir = mnt;
		return 0;
	}
	tree = (int)syscall(__NR_open_tree, *empty_dir, "",
			    SBX_OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH);
	if (tree < 0)
		return sbx_mnt_fail(d, errno, "cloning an empty directory over", path);
	rc = sbx_mnt_attach(tree, target, path, d);
	close(tree);
	return rc;
}

/* The files every file mask is a clone of: a denied path's, a protected name's, commondir's. */
static const struct {
	const char *name;
	mode_t mode;
	const char *holds;
} scratch_files[] = {
	{"empty", 0, NULL},
	{"empty-0644", 0644, ""},
	{"holds-dot", 0644, ".\n"},
};

/*
 * The scratch tmpfs the file masks are cloned from: mode 0700, the three files made in it, then
 * made read-only, nosuid, nodev and noexec once. A clone keeps the attributes of the mount it is
 * cloned from, so each mask is one open_tree and one move_mount (10,000s of denied files: no
 * mount_setattr each). Returns the mount descriptor or -errno.
 */
static int scratch_fs(const char *path, struct sbx_diag *d)
{
	struct sbx_mount_attr attr = {.attr_set = MASK_ATTRS};
	int mnt = new_tmpfs("0700", 0, path, d), fd, rc = 0;

	if (mnt < 0)
		return mnt;
	for (size_t i = 0; !rc && i < sizeof(scratch_files) / sizeof(*scratch_files); i++) {
		const char *holds = scratch_files[i].holds;
		size_t len = holds ? strlen(holds) : 0;

		fd = openat(mnt, scratch_files[i].name, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC,
			    scratch_files[i].mode);
		if (fd < 0)
			rc = sbx_mnt_fail(d, errno, "creating the empty file for", path);
		else if (len && write(fd, holds, len) != (ssize_t)len)
			rc = sbx_mnt_fail(d, errno ? errno : EIO, "writing the file for", path);
		if (fd >= 0)
			close(fd);
	}
	if (!rc && syscall(__NR_mount_setattr, mnt, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		rc = sbx_mnt_fail(d, errno, "making read-only the mask of", path);
	if (rc) {
		close(mnt);
		return rc;
	}
	return mnt;
}

int sbx_mnt_mask_file(int *empty_fs, int target, const char *holds, const char *path,
		      struct sbx_fdrun *later, struct sbx_diag *d)
{
	/* One file per content (scratch_files): a content it was not named for is refused. */
	const char *name = !holds ? "empty" : !*holds ? "empty-0644" : "holds-dot";
	int tree, rc;

	if (holds && *holds && strcmp(holds, ".\n") != 0)
		return sbx_diag_set(d, -EINVAL, "masking %s: no scratch file holds that content",
				    path);
	if (*empty_fs < 0) {
		int mnt = scratch_fs(path, d);

		if (mnt < 0)
			return mnt;
		*empty_fs = mnt;
	}
	tree = (int)syscall(__NR_open_tree, *empty_fs, name, SBX_OPEN_TREE_CLONE | O_CLOEXEC);
	if (tree < 0 && errno == EMFILE && later && later->n) {
		sbx_fdrun_close(
			later); /* the descriptors waiting to be closed were the last ones */
		tree = (int)syscall(__NR_open_tree, *empty_fs, name,
				    SBX_OPEN_TREE_CLONE | O_CLOEXEC);
	}
	if (tree < 0)
		return sbx_mnt_fail(d, errno, "binding an empty file over", path);
	rc = sbx_mnt_attach(tree, target, path, d);
	if (later)
		sbx_fdrun_add(later, tree);
	else
		close(tree);
	return rc;
}

void sbx_fdrun_add(struct sbx_fdrun *r, int fd)
{
	if (fd < 0)
		return;
	if (r->n == SBX_FDRUN_MAX)
		sbx_fdrun_close(r);
	r->fd[r->n++] = fd;
}

void sbx_fdrun_close(struct sbx_fdrun *r)
{
	/* In order (they come nearly so: the lowest numbers free are handed out first). */
	for (int i = 1; i < r->n; i++) {
		int fd = r->fd[i], j = i;

		for (; j > 0 && r->fd[j - 1] > fd; j--)
			r->fd[j] = r->fd[j - 1];
		r->fd[j] = fd;
	}
	/*
	 * Each stretch of consecutive numbers holds only descriptors given to the run: one
	 * close_range each, or one close each without it (before Linux 5.9, or refused).
	 */
	for (int i = 0, k; i < r->n; i = k) {
		for (k = i + 1; k < r->n && r->fd[k] == r->fd[k - 1] + 1;)
			k++;
		if (k - i > 1 && syscall(__NR_close_range, (unsigned int)r->fd[i],
					 (unsigned int)r->fd[k - 1], 0) == 0)
			continue;
		for (int j = i; j < k; j++)
			close(r->fd[j]);
	}
	r->n = 0;
}

int sbx_mnt_mask_open(const char *path, struct sbx_diag *d)
{
	/*
	 * Mode 0111: every name can be looked up, none listed. Writable for now (nothing is
	 * mounted on it yet and it is attached nowhere) so that mount points can be made in it;
	 * sbx_mnt_mask_seal turns it read-only.
	 */
	return new_tmpfs("0111",
			 SBX_MOUNT_ATTR_NOSUID | SBX_MOUNT_ATTR_NODEV | SBX_MOUNT_ATTR_NOEXEC, path,
			 d);
}

int sbx_mnt_mask_point(int mask, const char *rel, bool dir, const char *path,
		       unsigned long long *dev, unsigned long long *ino, struct sbx_diag *d)
{
	char buf[SBX_MAX_PATH + 1];
	char *name = buf, *slash;
	int at = mask, next, rc = 0;

	if (strlen(rel) > SBX_MAX_PATH)
		return sbx_diag_set(d, -ENAMETOOLONG, "mount point for %s: path too long", path);
	strcpy(buf, rel);
	/*
	 * The directories on the way, mode 0111 like the mask's root: they show only the next
	 * name, which the profile names anyway. Made through the process's capabilities in the
	 * namespace (CAP_DAC_OVERRIDE), as the directories themselves refuse writing.
	 */
	while ((slash = strchr(name, '/'))) {
		*slash = '\0';
		if (mkdirat(at, name, 0111) < 0 && errno != EEXIST) {
			rc = sbx_mnt_fail(d, errno, "making in its mask the directories leading to",
					  path);
			break;
		}
		next = openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			rc = sbx_mnt_fail(d, errno,
					  "opening in its mask the directories leading to", path);
			break;
		}
		if (at != mask)
			close(at);
		at = next;
		name = slash + 1;
	}
	/* The mount point itself: a directory, or an empty file when a file is re-opened. */
	if (rc == 0 && dir && mkdirat(at, name, 0111) < 0 && errno != EEXIST)
		rc = sbx_mnt_fail(d, errno, "making in its mask the mount point of", path);
	if (rc == 0 && !dir) {
		next = openat(at, name, O_CREAT | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, 0);
		if (next < 0)
			rc = sbx_mnt_fail(d, errno, "making in its mask the mount point of", path);
		else
			close(next);
	}
	/* Its identity: what the re-opened path must resolve to once the mask is attached. */
	if (rc == 0) {
		struct stat st;

		if (fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = sbx_mnt_fail(d, errno, "looking at the mount point in its mask of",
					  path);
		} else {
			*dev = (unsigned long long)st.st_dev;
			*ino = (unsigned long long)st.st_ino;
		}
	}
	if (at != mask)
		close(at);
	return rc;
}

int sbx_mnt_mask_seal(int mask, int target, const char *path, struct sbx_diag *d)
{
	/* Not recursive: only the mask itself; nothing is mounted on it yet anyway. */
	struct sbx_mount_attr attr = {.attr_set = SBX_MOUNT_ATTR_RDONLY};

	if (syscall(__NR_mount_setattr, mask, "", AT_EMPTY_PATH, &attr, sizeof(attr)) < 0)
		return sbx_mnt_fail(d, errno, "making read-only the mask of", path);
	return sbx_mnt_attach(mask, target, path, d);
}
