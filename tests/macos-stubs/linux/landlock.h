/* SPDX-License-Identifier: MIT */
/* Linux only: a Darwin source that includes <linux/landlock.h> would not build on a Mac. */
#error "linux/landlock.h is Linux-only and not part of the Darwin build"
