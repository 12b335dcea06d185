/* SPDX-License-Identifier: MIT */
/* algebra.c - not written yet. */
#include "sbx.h"
