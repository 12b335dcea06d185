/* SPDX-License-Identifier: MIT */
/* sbpl.c - not written yet. */
#include "sbx.h"
