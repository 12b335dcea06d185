/* SPDX-License-Identifier: MIT */
/* glob.c - not written yet. */
#include "sbx.h"
