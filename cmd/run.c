/* SPDX-License-Identifier: MIT */
/* run.c - not written yet. */
#include "sbx.h"
