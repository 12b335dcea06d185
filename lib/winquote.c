/* SPDX-License-Identifier: MIT */
/* winquote.c - not written yet. */
#include "sbx.h"
