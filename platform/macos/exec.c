/* SPDX-License-Identifier: MIT */
/* exec.c - not written yet. */
#include "sbx.h"
