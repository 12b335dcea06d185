/* SPDX-License-Identifier: MIT */
/* tools.c - not written yet. */
#include "sbx.h"
