/* SPDX-License-Identifier: MIT */
/* failalloc.c - see failalloc.h. */
#ifdef SBX_FAILALLOC
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failalloc.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
int __real_vasprintf(char **out, const char *fmt, va_list ap);

void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);
int __wrap_vasprintf(char **out, const char *fmt, va_list ap);
int __wrap_asprintf(char **out, const char *fmt, ...);

static long countdown = -1, calls;
static bool fired;

long fa_calls(void)
{
	return calls;
}

void fa_arm(long n)
{
	countdown = n;
	fired = false;
}

bool fa_fired(void)
{
	return fired;
}

/* Is this the allocation to fail? */
static bool fail_now(void)
{
	calls++;
	if (countdown < 0)
		return false;
	if (countdown-- > 0)
		return false;
	fired = true;
	return true;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return fail_now() ? NULL : __real_strdup(s);
}

char *__wrap_strndup(const char *s, size_t n)
{
	return fail_now() ? NULL : __real_strndup(s, n);
}

int __wrap_vasprintf(char **out, const char *fmt, va_list ap)
{
	if (fail_now())
		return -1;
	return __real_vasprintf(out, fmt, ap);
}

int __wrap_asprintf(char **out, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = __wrap_vasprintf(out, fmt, ap);
	va_end(ap);
	return r;
}

/* glibc's _FORTIFY_SOURCE turns asprintf into these; musl has no fortified functions. */
#ifdef __GLIBC__
int __real___vasprintf_chk(char **out, int flag, const char *fmt, va_list ap);
int __wrap___vasprintf_chk(char **out, int flag, const char *fmt, va_list ap);
int __wrap___asprintf_chk(char **out, int flag, const char *fmt, ...);

int __wrap___vasprintf_chk(char **out, int flag, const char *fmt, va_list ap)
{
	if (fail_now())
		return -1;
	return __real___vasprintf_chk(out, flag, fmt, ap);
}

int __wrap___asprintf_chk(char **out, int flag, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = __wrap___vasprintf_chk(out, flag, fmt, ap);
	va_end(ap);
	return r;
}
#endif

static void *json_alloc(size_t n)
{
	return __wrap_malloc(n);
}

void fa_jansson(bool on)
{
	json_set_alloc_funcs(on ? json_alloc : malloc, free);
}
#endif
