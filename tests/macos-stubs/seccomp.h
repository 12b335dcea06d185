/* SPDX-License-Identifier: MIT */
/* Linux only: a Darwin source that includes <seccomp.h> would not build on a Mac. */
#error "seccomp.h is Linux-only and not part of the Darwin build"
