/* SPDX-License-Identifier: MIT */
/* load.c - not written yet. */
#include "sbx.h"
