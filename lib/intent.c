/* SPDX-License-Identifier: MIT */
/* intent.c - not written yet. */
#include "sbx.h"
