/* SPDX-License-Identifier: MIT */
/* enter.c - not written yet. */
#include "sbx.h"
