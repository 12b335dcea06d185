/* SPDX-License-Identifier: MIT */
/*
 * mountapi.h - the new mount API (Linux 5.12+: open_tree, move_mount, fsopen, fsconfig, fsmount,
 * mount_setattr) by system call number and constant: libc headers lag behind it (glibc has it
 * from 2.36 only), and <sys/mount.h> clashes with <linux/mount.h>. Since Linux 5.1 new system
 * calls share one number on every architecture.
 */
#ifndef SBX_PLATFORM_LINUX_MOUNTAPI_H
#define SBX_PLATFORM_LINUX_MOUNTAPI_H

#include <stdint.h>
#include <sys/syscall.h>

#ifndef __NR_open_tree
#define __NR_open_tree	428
#define __NR_move_mount 429
#define __NR_fsopen	430
#define __NR_fsconfig	431
#define __NR_fsmount	432
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif

#define SBX_OPEN_TREE_CLONE	    1
#define SBX_AT_RECURSIVE	    0x8000
#define SBX_MOVE_MOUNT_F_EMPTY_PATH 0x04
#define SBX_MOVE_MOUNT_T_SYMLINKS   0x10
#define SBX_MOVE_MOUNT_T_EMPTY_PATH 0x40
#define SBX_MOUNT_ATTR_RDONLY	    0x01
#define SBX_MOUNT_ATTR_NOSUID	    0x02
#define SBX_MOUNT_ATTR_NODEV	    0x04
#define SBX_MOUNT_ATTR_NOEXEC	    0x08
#define SBX_FSOPEN_CLOEXEC	    0x01
#define SBX_FSMOUNT_CLOEXEC	    0x01
#define SBX_FSCONFIG_SET_STRING	    1
#define SBX_FSCONFIG_CMD_CREATE	    6

struct sbx_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

#endif /* SBX_PLATFORM_LINUX_MOUNTAPI_H */
