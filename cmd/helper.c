/* SPDX-License-Identifier: MIT */
/* helper.c - the sbxrun-linux-sandbox entry point. */
#include <stdio.h>
#include <unistd.h>

#include "sbx.h"
#include "linux/linux.h"

void sbx_linux_die(const struct sbx_diag *d, int status)
{
	sbx_diag_print(d, stderr);
	fflush(stderr);
	_exit(status);
}
