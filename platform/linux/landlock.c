/* SPDX-License-Identifier: MIT */
/*
 * landlock.c - one Landlock ruleset through raw system calls.
 *
 * The ABI constants are carried here: distribution headers lag the kernel (Debian 12's stop at
 * ABI 2), and the values are a stable kernel ABI. The ruleset handles every filesystem right the
 * running ABI knows, so nothing the kernel can restrict is left unrestricted by omission.
 */
#include <errno.h>
#include <fcntl.h>
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
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* Rule types and flags (uapi/linux/landlock.h). */
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2

/* Filesystem rights, with the ABI that introduced them. */
#define LL_FS_EXECUTE (1ULL << 0)     /* 1 */
#define LL_FS_WRITE_FILE (1ULL << 1)  /* 1 */
#define LL_FS_READ_FILE (1ULL << 2)   /* 1 */
#define LL_FS_READ_DIR (1ULL << 3)    /* 1 */
#define LL_FS_REMOVE_DIR (1ULL << 4)  /* 1 */
#define LL_FS_REMOVE_FILE (1ULL << 5) /* 1 */
#define LL_FS_MAKE_CHAR (1ULL << 6)   /* 1 */
#define LL_FS_MAKE_DIR (1ULL << 7)    /* 1 */
#define LL_FS_MAKE_REG (1ULL << 8)    /* 1 */
#define LL_FS_MAKE_SOCK (1ULL << 9)   /* 1 */
#define LL_FS_MAKE_FIFO (1ULL << 10)  /* 1 */
#define LL_FS_MAKE_BLOCK (1ULL << 11) /* 1 */
#define LL_FS_MAKE_SYM (1ULL << 12)   /* 1 */
#define LL_FS_REFER (1ULL << 13)      /* 2 */
#define LL_FS_TRUNCATE (1ULL << 14)   /* 3 */
#define LL_FS_IOCTL_DEV (1ULL << 15)  /* 5 */

/* Network rights (ABI 4) and scopes (ABI 6). */
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

#define LL_FS_ABI1 ((1ULL << 13) - 1)
#define LL_FS_READ (LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR)
/* Rights that make sense on a file (the kernel refuses directory rights on a file rule). */
#define LL_FS_FILE_RIGHTS \
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

int sbx_landlock_create(int abi, bool restrict_net, struct sbx_landlock **out, struct sbx_diag *d)
{
	struct ll_ruleset_attr attr = { 0 };
	size_t size = sizeof(attr);
	struct sbx_landlock *ll;
	int fd, err;

	*out = NULL;
	if (abi < 1)
		return sbx_diag_set(d, -ENOSYS, "Landlock is not available on this kernel");
	attr.handled_access_fs = fs_rights_for_abi(abi);
	if (restrict_net && abi >= 4)
		attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	/* A ruleset attribute the kernel does not know must not be passed: size it per ABI. */
	if (abi >= 6)
		attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
	else if (abi >= 4)
		size = offsetof(struct ll_ruleset_attr, scoped);
	else
		size = offsetof(struct ll_ruleset_attr, handled_access_net);
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
	struct ll_path_beneath_attr pb = { 0 };
	struct stat st;
	int err;

	if (fstat(fd, &st) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "%s: %s", what, strerror(err));
	}
	switch (g) {
	case SBX_LL_READ:
		pb.allowed_access = LL_FS_READ;
		break;
	case SBX_LL_WRITE:
		pb.allowed_access = ll->handled_fs;
		break;
	case SBX_LL_DEVICE:
		pb.allowed_access = LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV |
				    LL_FS_READ_DIR;
		break;
	}
	pb.allowed_access &= ll->handled_fs;
	if (!S_ISDIR(st.st_mode))
		pb.allowed_access &= LL_FS_FILE_RIGHTS;
	pb.parent_fd = fd;
	if (syscall(__NR_landlock_add_rule, ll->fd, LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "landlock_add_rule %s: %s", what, strerror(err));
	}
	return 0;
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
