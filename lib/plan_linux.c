/* SPDX-License-Identifier: MIT */
/* plan_linux.c - not written yet. */
#include "sbx.h"
