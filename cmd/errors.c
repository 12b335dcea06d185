/* SPDX-License-Identifier: MIT */
/*
 * errors.c - the one place cmd/ words its own failures: "sbxrun: MESSAGE" (or a diagnostic from
 * lib/ or platform/, with its place and hint) on standard error, and exit status 125.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

int refuse_diag(const struct sbx_diag *d)
{
	sbx_diag_print(d, stderr);
	return EXIT_REFUSED;
}

int refuse(const char *fmt, ...)
{
	struct sbx_diag d;
	va_list ap;

	sbx_diag_clear(&d);
	va_start(ap, fmt);
	vsnprintf(d.msg, sizeof(d.msg), fmt, ap);
	va_end(ap);
	return refuse_diag(&d);
}

void diag_prefix(struct sbx_diag *d, const char *prefix)
{
	size_t pl = strlen(prefix), ml;

	if (pl >= sizeof(d->msg))
		return;
	ml = strnlen(d->msg, sizeof(d->msg) - pl - 1);
	memmove(d->msg + pl, d->msg, ml);
	memcpy(d->msg, prefix, pl);
	d->msg[pl + ml] = '\0';
	/* The path the message names moved with it, or was cut off. */
	d->about.at += pl;
	if (d->about.at + d->about.len > pl + ml)
		d->about.len = 0;
}
