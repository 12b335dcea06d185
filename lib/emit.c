/* SPDX-License-Identifier: MIT */
/* emit.c - not written yet. */
#include "sbx.h"
