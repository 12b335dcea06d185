/* SPDX-License-Identifier: MIT */
/*
 * darwin.h - force-included by the Darwin compile check (make check-macos) on Linux: what
 * macOS's <stdio.h> declares by default but glibc only with _GNU_SOURCE, which the check
 * leaves undefined so that glibc's other GNU extensions (absent on macOS) stay undeclared.
 */
#ifndef SBX_DARWIN_STUB_H
#define SBX_DARWIN_STUB_H
#include <stdarg.h>
int asprintf(char **ret, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int vasprintf(char **ret, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
#endif
