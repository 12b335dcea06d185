/* SPDX-License-Identifier: MIT */
/* The Linux backend's header: a Darwin source that includes it would not build on a Mac. */
#error "linux/linux.h (the Linux backend) is not part of the Darwin build"
