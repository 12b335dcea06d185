/* SPDX-License-Identifier: MIT */
/*
 * pageend.c - t_page_end (t.h): bytes that end where a page no one may touch begins. Not in
 * main.c: the Windows build of the unit tests shares that file, and Windows has no mmap.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "t.h"

char *t_page_end(size_t n)
{
	static char *page;
	static size_t size;

	if (!page) {
		size = (size_t)sysconf(_SC_PAGESIZE);
		page = mmap(NULL, 2 * size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			    0);
		if (page == MAP_FAILED || mprotect(page + size, size, PROT_NONE) != 0) {
			perror("t_page_end");
			exit(2);
		}
	}
	if (n > size) {
		fprintf(stderr, "t_page_end: %zu bytes are more than a page\n", n);
		exit(2);
	}
	return page + size - n;
}
