/* SPDX-License-Identifier: MIT */
/* builtin.c - not written yet. */
#include "sbx.h"
