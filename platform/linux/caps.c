/* SPDX-License-Identifier: MIT */
/*
 * caps.c - empty every capability set, so that root inside the sandbox is not root.
 *
 * Order matters: the bounding set can only be lowered while CAP_SETPCAP is still effective, so it
 * goes first; the ambient set next (it would otherwise be re-raised on exec); the effective,
 * permitted and inheritable sets last. Without CAP_SETPCAP (an unprivileged caller outside any
 * user namespace) the bounding set cannot be changed and need not be: with no permitted
 * capabilities and no_new_privs, no exec can gain one.
 *
 * The system calls are made directly rather than through libcap: linking libcap brings a
 * constructor that probes the number of capabilities with PR_CAPBSET_READ at every start of
 * the program (six calls in sbxrun, six more in its helper), for a drop that needs no table.
 */
#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"

/*
 * Capabilities 0 to CAP_SETFCAP (31) exist on every kernel sbxrun can run on; past them, the
 * kernel answers EINVAL for the first number it does not know, which ends the bounding set.
 * An EINVAL before that is an error, never the end: nothing is left in the set unsaid.
 */
#define CAPS_ALWAYS (CAP_SETFCAP + 1)
#define CAPS_MAX    (32 * _LINUX_CAPABILITY_U32S_3)

static int drop_bounding_set(struct sbx_diag *d)
{
	int err;

	for (int c = 0; c < CAPS_MAX; c++) {
		if (prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) == 0)
			continue;
		if (errno == EINVAL && c >= CAPS_ALWAYS)
			return 0;
		err = errno;
		return sbx_diag_set(d, -err, "dropping capability %d from the bounding set: %s", c,
				    strerror(err));
	}
	return 0;
}

int sbx_caps_drop_all(struct sbx_diag *d)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int err, rc;

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &h, data) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "capget: %s", strerror(err));
	}
	if ((data[CAP_SETPCAP / 32].effective & (1u << (CAP_SETPCAP % 32))) &&
	    (rc = drop_bounding_set(d)) < 0)
		return rc;
	/* EINVAL: a kernel without ambient capabilities (before 4.3) has none to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		err = errno;
		return sbx_diag_set(d, -err, "clearing ambient capabilities: %s", strerror(err));
	}
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &h, data) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "capset: %s", strerror(err));
	}
	return 0;
}
