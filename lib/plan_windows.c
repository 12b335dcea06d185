/* SPDX-License-Identifier: MIT */
/* plan_windows.c - not written yet. */
#include "sbx.h"
