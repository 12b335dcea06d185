/* SPDX-License-Identifier: MIT */
/* context.c - not written yet. */
#include "sbx.h"
