/* SPDX-License-Identifier: MIT */
/* options.c - not written yet. */
#include "sbx.h"
