/* SPDX-License-Identifier: MIT */
/* legacy.c - not written yet. */
#include "sbx.h"
