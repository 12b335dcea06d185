/* SPDX-License-Identifier: MIT */
/* explain.c - not written yet. */
#include "sbx.h"
