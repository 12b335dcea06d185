/* SPDX-License-Identifier: MIT */
/* main.c - argv[0] dispatch. Filled in by the command-line work. */
#include <stdio.h>
#include <string.h>

#include "sbx.h"

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--version") == 0) {
		printf("sbxrun %s\n", SBX_VERSION);
		return 0;
	}
	fprintf(stderr, "sbxrun: not implemented yet\n");
	return 125;
}
