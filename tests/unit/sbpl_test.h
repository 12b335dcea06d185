/* SPDX-License-Identifier: MIT */
/*
 * sbpl_test.h - helpers shared by the Seatbelt tests (test_sbpl.c, test_sbpl_golden.c):
 * temporary directories, path joining, files and string replacement.
 */
#ifndef SBX_SBPL_TEST_H
#define SBX_SBPL_TEST_H

#include <stdbool.h>

/* A fresh directory under /tmp, canonical (realpath), or NULL. Remove it with st_rmdir(). */
char *st_tempdir(void);
/* Removes a directory made by st_tempdir() and everything in it (refuses any other path). */
void st_rmdir(const char *dir);
/* a + "/" + b, malloc'd. */
char *st_join(const char *a, const char *b);
/* Creates an empty file (and reports a test failure when it cannot). */
void st_touch(const char *path);
/* True when needle is in hay; prints the missing needle otherwise. */
bool st_has(const char *hay, const char *needle);
/* The whole file, NUL-terminated (malloc'd), or NULL. */
char *st_read_text(const char *path);
/* s with every occurrence of from replaced by to; s is freed. NULL on allocation failure. */
char *st_replace_all(char *s, const char *from, const char *to);

#endif
