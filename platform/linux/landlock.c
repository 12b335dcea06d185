/* SPDX-License-Identifier: MIT */
/*
 * landlock.c - one Landlock ruleset through raw system calls.
 *
 * The ABI constants are carried here: distribution headers lag the kernel (Debian 12's stop at
 * ABI 2), and the values are a stable kernel ABI. The ruleset handles every filesystem right the
 * running ABI knows, so nothing the kernel can restrict is left unrestricted by omission.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule	     445
#define __NR_landlock_restrict_self  446
#endif

/* Rule types and flags (uapi/linux/landlock.h). */
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH	  1
#define LL_RULE_NET_PORT	  2

/* Filesystem rights, with the ABI that introduced them. */
#define LL_FS_EXECUTE	  (1ULL << 0)  /* 1 */
#define LL_FS_WRITE_FILE  (1ULL << 1)  /* 1 */
#define LL_FS_READ_FILE	  (1ULL << 2)  /* 1 */
#define LL_FS_READ_DIR	  (1ULL << 3)  /* 1 */
#define LL_FS_REMOVE_DIR  (1ULL << 4)  /* 1 */
#define LL_FS_REMOVE_FILE (1ULL << 5)  /* 1 */
#define LL_FS_MAKE_CHAR	  (1ULL << 6)  /* 1 */
#define LL_FS_MAKE_DIR	  (1ULL << 7)  /* 1 */
#define LL_FS_MAKE_REG	  (1ULL << 8)  /* 1 */
#define LL_FS_MAKE_SOCK	  (1ULL << 9)  /* 1 */
#define LL_FS_MAKE_FIFO	  (1ULL << 10) /* 1 */
#define LL_FS_MAKE_BLOCK  (1ULL << 11) /* 1 */
#define LL_FS_MAKE_SYM	  (1ULL << 12) /* 1 */
#define LL_FS_REFER	  (1ULL << 13) /* 2 */
#define LL_FS_TRUNCATE	  (1ULL << 14) /* 3 */
#define LL_FS_IOCTL_DEV	  (1ULL << 15) /* 5 */

/* Network rights (ABI 4) and scopes (ABI 6). */
#define LL_NET_BIND_TCP		      (1ULL << 0)
#define LL_NET_CONNECT_TCP	      (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL		      (1ULL << 1)

#define LL_FS_ABI1 ((1ULL << 13) - 1)
#define LL_FS_READ (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)
/* Rights that make sense on a file (the kernel refuses directory rights on a file rule). */
#define LL_FS_FILE_RIGHTS                                                                          \
	(LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

struct sbx_landlock {
	int fd;
	uint64_t handled_fs;
};

int sbx_landlock_abi(void)
{
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

static uint64_t fs_rights_for_abi(int abi)
{
	uint64_t r = LL_FS_ABI1;

	if (abi >= 2)
		r |= LL_FS_REFER;
	if (abi >= 3)
		r |= LL_FS_TRUNCATE;
	if (abi >= 5)
		r |= LL_FS_IOCTL_DEV;
	return r;
}

int sbx_landlock_create(int abi, bool restrict_fs, bool restrict_net, struct sbx_landlock **out,
			struct sbx_diag *d)
{
	struct ll_ruleset_attr attr = {0};
	size_t size = sizeof(attr);
	struct sbx_landlock *ll;
	int fd, err;

	*out = NULL;
	if (abi < 1)
		return sbx_diag_set(d, -ENOSYS, "Landlock is not available on this kernel");
	/*
	 * A handled right with no rule granting it is refused everywhere: with full write there is
	 * nothing to allow-list, so no file-system right is handled at all (otherwise not even the
	 * shell could be executed).
	 */
	if (restrict_fs)
		attr.handled_access_fs = fs_rights_for_abi(abi);
	if (restrict_net && abi >= 4)
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	/* A ruleset attribute the kernel does not know must not be passed: size it per ABI. */
	if (abi >= SBX_LL_ABI_SCOPE)
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
	else if (abi >= 4)
		size = offsetof(struct ll_ruleset_attr, scoped);
	else
		size = offsetof(struct ll_ruleset_attr, handled_access_net);
	/* Nothing to handle (the kernel refuses an empty ruleset with ENOMSG): no ruleset. */
	if (!attr.handled_access_fs && !attr.handled_access_net && !attr.scoped)
		return 0;
	fd = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (fd < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "landlock_create_ruleset (ABI %d): %s", abi,
				    strerror(err));
	}
	ll = calloc(1, sizeof(*ll));
	if (!ll) {
		close(fd);
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	}
	ll->fd = fd;
	ll->handled_fs = attr.handled_access_fs;
	*out = ll;
	return 0;
}

int sbx_landlock_add_fd(struct sbx_landlock *ll, int fd, enum sbx_ll_grant g, const char *what,
			struct sbx_diag *d)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		int err = errno;

		return sbx_diag_set(d, -err, "%s: %s", what, strerror(err));
	}
	return sbx_landlock_add_typed(ll, fd, S_ISDIR(st.st_mode), g, what, d);
}

int sbx_landlock_add_typed(struct sbx_landlock *ll, int fd, bool is_dir, enum sbx_ll_grant g,
			   const char *what, struct sbx_diag *d)
{
	struct ll_path_beneath_attr pb = {0};
	int err;

	switch (g) {
	case SBX_LL_READ:
		pb.allowed_access = LL_FS_READ;
		break;
	case SBX_LL_WRITE:
		pb.allowed_access = ll->handled_fs;
		break;
	case SBX_LL_DEVICE:
		pb.allowed_access =
			LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV | LL_FS_READ_DIR;
		break;
	}
	pb.allowed_access &= ll->handled_fs;
	if (!is_dir)
		pb.allowed_access &= LL_FS_FILE_RIGHTS;
	pb.parent_fd = fd;
	if (syscall(__NR_landlock_add_rule, ll->fd, LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "landlock_add_rule %s: %s", what, strerror(err));
	}
	return 0;
}

/* ---- granting around denied paths (no mount namespace) -------------------------------------- */

struct carve {
	struct sbx_landlock *ll;
	uint64_t rights; /* what each whole entry beside the way gets */
	char **denied;	 /* canonical paths inside the tree */
	bool *denied_dir;
	size_t n;
	size_t rules; /* added so far, against SBX_LANDLOCK_CARVE_RULES_MAX */
	const char *tree;
	struct sbx_diag *d;
};

static bool strictly_covers(const char *outer, const char *inner)
{
	return strcmp(outer, inner) != 0 && sbx_path_covers(outer, inner);
}

static int carve_rule(struct carve *c, int fd, uint64_t rights, const char *what)
{
	struct ll_path_beneath_attr pb = {.allowed_access = rights & c->ll->handled_fs,
					  .parent_fd = fd};
	int err;

	if (++c->rules > SBX_LANDLOCK_CARVE_RULES_MAX) {
		sbx_diag_set(c->d, SBX_E_UNENFORCEABLE,
			     "cannot enforce the denied paths inside %s without a mount namespace: "
			     "Landlock would need more than %u rules",
			     c->tree, SBX_LANDLOCK_CARVE_RULES_MAX);
		return sbx_diag_hint(c->d, SBX_E_UNENFORCEABLE,
				     "deny fewer paths, or allow user namespaces so that a mount "
				     "namespace can mask them");
	}
	if (pb.allowed_access == 0)
		return 0;
	if (syscall(__NR_landlock_add_rule, c->ll->fd, LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
		err = errno;
		return sbx_diag_set(c->d, -err, "landlock_add_rule %s: %s", what, strerror(err));
	}
	return 0;
}

static bool has_denied_beneath(const struct carve *c, const char *path, bool dirs_only)
{
	for (size_t i = 0; i < c->n; i++)
		if ((!dirs_only || c->denied_dir[i]) && strictly_covers(path, c->denied[i]))
			return true;
	return false;
}

static bool is_denied(const struct carve *c, const char *path)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->denied[i], path) == 0)
			return true;
	return false;
}

/*
 * dfd is the directory at path (opened for reading; consumed). It leads to at least one denied
 * path. It may be listed unless a denied directory lies below it; every entry that is neither
 * denied nor on a way to one gets the whole grant; entries on a way are carved in turn.
 */
static int carve_dir(struct carve *c, int dfd, const char *path)
{
	char child[PATH_MAX];
	size_t entries = 0;
	struct dirent *de;
	DIR *dir;
	int rc = 0, err;

	if (!has_denied_beneath(c, path, true)) {
		rc = carve_rule(c, dfd, LL_FS_READ_DIR, path);
		if (rc < 0) {
			close(dfd);
			return rc;
		}
	}
	dir = fdopendir(dfd);
	if (!dir) {
		err = errno;
		close(dfd);
		return sbx_diag_set(c->d, -err, "listing %s: %s", path, strerror(err));
	}
	while (rc == 0) {
		struct stat st;
		int fd;

		errno = 0;
		de = readdir(dir);
		if (!de) {
			if (errno) {
				err = errno;
				rc = sbx_diag_set(c->d, -err, "listing %s: %s", path,
						  strerror(err));
			}
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++entries > SBX_LANDLOCK_DIR_ENTRIES_MAX) {
			sbx_diag_set(c->d, SBX_E_UNENFORCEABLE,
				     "cannot enforce the denied paths inside %s without a mount "
				     "namespace: %s has more than %u entries (each would need its "
				     "own Landlock rule)",
				     c->tree, path, SBX_LANDLOCK_DIR_ENTRIES_MAX);
			rc = sbx_diag_hint(
				c->d, SBX_E_UNENFORCEABLE,
				"allow user namespaces so that a mount namespace can mask "
				"the denied paths, or deny a path in a smaller directory");
			break;
		}
		if ((size_t)snprintf(child, sizeof(child), "%s/%s", strcmp(path, "/") ? path : "",
				     de->d_name) >= sizeof(child)) {
			rc = sbx_diag_set(c->d, -ENAMETOOLONG, "%s/%s: %s", path, de->d_name,
					  strerror(ENAMETOOLONG));
			break;
		}
		if (is_denied(c, child))
			continue;
		if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT)
				continue; /* gone since it was listed */
			err = errno;
			rc = sbx_diag_set(c->d, -err, "%s: %s", child, strerror(err));
			break;
		}
		/* A link is followed by whoever uses it, and the target's own rules apply. */
		if (S_ISLNK(st.st_mode))
			continue;
		if (S_ISDIR(st.st_mode) && has_denied_beneath(c, child, false)) {
			fd = openat(dirfd(dir), de->d_name,
				    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (fd < 0) {
				/* Not listable by this user: nothing below it is granted. */
				if (errno == EACCES || errno == EPERM || errno == ENOENT)
					continue;
				err = errno;
				rc = sbx_diag_set(c->d, -err, "opening %s: %s", child,
						  strerror(err));
				break;
			}
			rc = carve_dir(c, fd, child);
			continue;
		}
		fd = openat(dirfd(dir), de->d_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (errno == ENOENT)
				continue;
			err = errno;
			rc = sbx_diag_set(c->d, -err, "opening %s for a Landlock rule: %s", child,
					  strerror(err));
			break;
		}
		rc = carve_rule(c, fd,
				S_ISDIR(st.st_mode) ? c->rights : c->rights & LL_FS_FILE_RIGHTS,
				child);
		close(fd);
	}
	closedir(dir);
	return rc;
}

int sbx_landlock_grant_around(struct sbx_landlock *ll, struct sbx_rulepaths *res,
			      const struct sbx_rulepath *tree, enum sbx_ll_grant g,
			      char *const *denied, size_t n_denied, char *const *hidden,
			      size_t n_hidden, struct sbx_diag *d)
{
	struct carve c = {.ll = ll, .rights = LL_FS_READ, .tree = tree->real, .d = d};
	const struct sbx_rulepath **found = NULL;
	size_t n_all = n_denied + n_hidden;
	bool covered = false;
	int fd, rc = 0, err;

	c.denied = calloc(n_all ? n_all : 1, sizeof(*c.denied));
	c.denied_dir = calloc(n_all ? n_all : 1, sizeof(*c.denied_dir));
	found = calloc(n_all ? n_all : 1, sizeof(*found));
	if (!c.denied || !c.denied_dir || !found) {
		rc = sbx_diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	/* Rules follow inodes: compare the paths as they resolve, as the kernel will see them. */
	for (size_t i = 0; i < n_all; i++) {
		const char *path = i < n_denied ? denied[i] : hidden[i - n_denied];
		const struct sbx_rulepath *f = sbx_rulepath_get(res, path);

		if (!f) {
			rc = sbx_diag_set(d, -ENOMEM, "out of memory");
			goto out;
		}
		/*
		 * A denied path that does not exist has nothing to be carved around (and cannot be
		 * created outside the writable roots). A failed look-up leaves unknown what it is:
		 * refused, never "missing".
		 */
		if (f->err) {
			rc = sbx_diag_set(d, f->err, "cannot look up %s: %s", path,
					  strerror(-f->err));
			goto out;
		}
		if (!f->facts.exists || !sbx_path_covers(tree->real, f->real))
			continue;
		/* The tree itself denied, or inside a denied path and more specific: as is. */
		if (strcmp(tree->real, f->real) == 0)
			goto out; /* denied as a whole: no rule at all */
		c.denied[c.n] = strdup(f->real);
		if (!c.denied[c.n]) {
			rc = sbx_diag_set(d, -ENOMEM, "out of memory");
			goto out;
		}
		found[c.n] = f;
		/* A hidden directory's name is no secret: its parents stay listable. */
		c.denied_dir[c.n++] = f->facts.type == SBX_FT_DIR && i < n_denied;
		covered = true;
	}
	if (covered && g != SBX_LL_READ) {
		rc = sbx_diag_set(
			d, SBX_E_UNENFORCEABLE,
			"cannot deny %s inside %s with Landlock alone: it is granted more "
			"than reading there",
			c.denied[0], tree->real);
		goto out;
	}
	if (!covered) {
		rc = sbx_landlock_add_fd(ll, tree->fd, g, tree->real, d);
		goto out;
	}
	/* The kept descriptor, opened for listing: the very directory that was looked up. */
	fd = openat(tree->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		/* Not listable by this user: nothing in it is granted (stricter, never looser). */
		if (errno == EACCES || errno == EPERM)
			goto out;
		err = errno;
		rc = sbx_diag_set(d, -err, "opening %s: %s", tree->real, strerror(err));
		goto out;
	}
	rc = carve_dir(&c, fd, tree->real);
	/*
	 * The carving went by name: each denied path must still be the object looked up, or a
	 * rename in between could have moved it out from under the names left without a rule.
	 */
	for (size_t i = 0; rc == 0 && i < c.n; i++) {
		fd = sbx_linux_reopen(found[i]->real, found[i]->facts.dev, found[i]->facts.ino, d);
		if (fd < 0)
			rc = fd;
		else
			close(fd);
	}
out:
	for (size_t i = 0; c.denied && i < c.n; i++)
		free(c.denied[i]);
	free(c.denied);
	free(c.denied_dir);
	free(found);
	return rc;
}

int sbx_landlock_restrict_self(struct sbx_landlock *ll, struct sbx_diag *d)
{
	int err;

	if (syscall(__NR_landlock_restrict_self, ll->fd, 0) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "landlock_restrict_self: %s", strerror(err));
	}
	return 0;
}

void sbx_landlock_free(struct sbx_landlock *ll)
{
	if (!ll)
		return;
	close(ll->fd);
	free(ll);
}
