/* SPDX-License-Identifier: MIT */
/* Linux only: a Darwin source that includes <linux/seccomp.h> would not build on a Mac. */
#error "linux/seccomp.h is Linux-only and not part of the Darwin build"
