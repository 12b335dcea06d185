/* SPDX-License-Identifier: MIT */
/* Linux only: a Darwin source that includes <sys/prctl.h> would not build on a Mac. */
#error "sys/prctl.h is Linux-only and not part of the Darwin build"
