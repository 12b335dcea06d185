/* SPDX-License-Identifier: MIT */
/* fuzz_profile.c - libFuzzer target for the profile loader. */
#include <stdint.h>
#include <stddef.h>

#include "sbx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	(void)data;
	(void)size;
	return 0;
}
