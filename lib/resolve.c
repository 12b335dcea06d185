/* SPDX-License-Identifier: MIT */
/* resolve.c - not written yet. */
#include "sbx.h"
