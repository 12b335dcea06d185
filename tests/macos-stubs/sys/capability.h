/* SPDX-License-Identifier: MIT */
/* Linux only: a Darwin source that includes <sys/capability.h> would not build on a Mac. */
#error "sys/capability.h is Linux-only and not part of the Darwin build"
