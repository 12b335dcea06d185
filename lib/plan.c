/* SPDX-License-Identifier: MIT */
/* plan.c - not written yet. */
#include "sbx.h"
