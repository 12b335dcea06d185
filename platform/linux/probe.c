/* SPDX-License-Identifier: MIT */
/* probe.c - not written yet. */
#include "sbx.h"
