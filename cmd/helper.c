/* SPDX-License-Identifier: MIT */
/* helper.c - not written yet. */
#include "sbx.h"
