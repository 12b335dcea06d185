/* SPDX-License-Identifier: MIT */
/*
 * caps.c - empty every capability set with libcap, so that root inside the sandbox is not root.
 *
 * Order matters: the bounding set can only be lowered while CAP_SETPCAP is still effective, so it
 * goes first; the ambient set next (it would otherwise be re-raised on exec); the effective,
 * permitted and inheritable sets last. Without CAP_SETPCAP (an unprivileged caller outside any
 * user namespace) the bounding set cannot be changed and need not be: with no permitted
 * capabilities and no_new_privs, no exec can gain one.
 */
#include <errno.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>

#include "linux/linux.h"

int sbx_caps_drop_all(struct sbx_diag *d)
{
	cap_flag_value_t setpcap = CAP_CLEAR;
	cap_t caps;
	int err;

	caps = cap_get_proc();
	if (!caps) {
		err = errno;
		return sbx_diag_set(d, -err, "cap_get_proc: %s", strerror(err));
	}
	if (cap_get_flag(caps, CAP_SETPCAP, CAP_EFFECTIVE, &setpcap) < 0)
		setpcap = CAP_CLEAR;
	if (setpcap == CAP_SET) {
		for (cap_value_t c = 0; c < (cap_value_t)cap_max_bits(); c++) {
			if (cap_drop_bound(c) < 0) {
				err = errno;
				cap_free(caps);
				return sbx_diag_set(d, -err,
						    "dropping capability %d from the "
						    "bounding set: %s",
						    c, strerror(err));
			}
		}
	}
	/* One call (libcap's cap_reset_ambient() first queries each capability, ~40 calls);
	 * EINVAL: a kernel without ambient capabilities (before 4.3) has none to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL) {
		err = errno;
		cap_free(caps);
		return sbx_diag_set(d, -err, "clearing ambient capabilities: %s", strerror(err));
	}
	if (cap_clear(caps) < 0 || cap_set_proc(caps) < 0) {
		err = errno;
		cap_free(caps);
		return sbx_diag_set(d, -err, "cap_set_proc: %s", strerror(err));
	}
	cap_free(caps);
	return 0;
}
