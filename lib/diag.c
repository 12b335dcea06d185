/* SPDX-License-Identifier: MIT */
/* diag.c - the one diagnostic type every layer fills and only cmd/ prints. */
#include <stdarg.h>
#include <string.h>

#include "sbx.h"

void sbx_diag_clear(struct sbx_diag *d)
{
	if (d)
		memset(d, 0, sizeof(*d));
}

int sbx_diag_set(struct sbx_diag *d, int code, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return code;
	va_start(ap, fmt);
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
	va_end(ap);
	return code;
}

int sbx_diag_hint(struct sbx_diag *d, int code, const char *fmt, ...)
{
	va_list ap;

	if (!d)
		return code;
	va_start(ap, fmt);
	vsnprintf(d->hint, sizeof(d->hint), fmt, ap);
	va_end(ap);
	return code;
}

/* Control characters in user-supplied text would let a path forge extra output lines. */
static void put_sanitized(const char *s, FILE *f)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
}

void sbx_diag_print(const struct sbx_diag *d, FILE *f)
{
	fputs("sbxrun: ", f);
	if (d->file[0]) {
		put_sanitized(d->file, f);
		if (d->line > 0)
			fprintf(f, ":%d:%d", d->line, d->col > 0 ? d->col : 1);
		fputs(": ", f);
		if (d->line <= 0 && d->pointer[0]) {
			put_sanitized(d->pointer, f);
			fputs(": ", f);
		}
	}
	put_sanitized(d->msg[0] ? d->msg : "unknown error", f);
	fputc('\n', f);
	if (d->hint[0]) {
		fputs("hint: ", f);
		put_sanitized(d->hint, f);
		fputc('\n', f);
	}
}
