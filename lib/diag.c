/* SPDX-License-Identifier: MIT */
/*
 * diag.c - the one diagnostic type every layer fills and only cmd/ prints. The first error
 * recorded is kept (see struct sbx_diag in sbx.h).
 */
#include <stdarg.h>
#include <string.h>

#include "sbx.h"

void sbx_diag_clear(struct sbx_diag *d)
{
	if (d)
		memset(d, 0, sizeof(*d));
}

/*
 * Shortens full (len bytes) into out (size bytes). One longer than that (a path near PATH_MAX,
 * or two in one message) loses its middle, not its end: the start names the rule, the end says
 * what went wrong ("...: Permission denied"), and a message cut at its end would read as a
 * different error or none. The span about moves with the text it marks, or is emptied when the
 * cut falls into it.
 */
static void shorten(char *out, size_t size, const char *full, size_t len, struct sbx_span *about)
{
	static const char gap[] = " ... ";
	size_t head, tail;

	if (about->at > len || about->len > len - about->at)
		about->len = 0;
	if (len < size) {
		memcpy(out, full, len + 1);
		return;
	}
	/* A quarter for the start, the rest for the end; no UTF-8 sequence is cut in two. */
	head = size / 4;
	while (head > 0 && (full[head] & 0xc0) == 0x80)
		head--;
	tail = len - (size - 1 - head - (sizeof(gap) - 1));
	while (tail < len && (full[tail] & 0xc0) == 0x80)
		tail++;
	snprintf(out, size, "%.*s%s%s", (int)head, full, gap, full + tail);
	if (about->at >= tail)
		about->at = about->at - tail + head + sizeof(gap) - 1;
	else if (about->at + about->len > head)
		about->len = 0;
}

/*
 * Formats lead, path and then fmt's text into out, as shorten() keeps it; about is where path
 * lies. Formatted on the stack, not the heap: init calls this after a fork-like clone of a
 * process that may hold other threads.
 */
static void format_msg(char *out, size_t size, struct sbx_span *about, const char *lead,
		       const char *path, const char *fmt, va_list ap)
{
	char full[16384];
	int n = snprintf(full, sizeof(full), "%s%s", lead, path);

	about->at = strlen(lead);
	about->len = strlen(path);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(full))
		n = sizeof(full) - 1; /* shorten() finds the path cut off */
	if (vsnprintf(full + n, sizeof(full) - (size_t)n, fmt, ap) < 0)
		full[n] = 0;
	shorten(out, size, full, strlen(full), about);
}

/*
 * Records the message unless one is recorded already; returns whether it did. An empty message
 * would read as "nothing recorded", and a later error would replace it: it is given words.
 */
static bool record(struct sbx_diag *d, int code, const char *lead, const char *path,
		   const char *fmt, va_list ap)
{
	if (!d)
		return false;
	if (d->msg[0]) {
		d->dropping = true;
		return false;
	}
	d->dropping = false;
	format_msg(d->msg, sizeof(d->msg), &d->about, lead, path, fmt, ap);
	if (!d->msg[0])
		snprintf(d->msg, sizeof(d->msg), "error %d", code);
	return true;
}

int sbx_diag_vset_at(struct sbx_diag *d, int code, const char *file, int line, int col,
		     const char *pointer, const char *fmt, va_list ap)
{
	if (!record(d, code, "", "", fmt, ap))
		return code;
	snprintf(d->file, sizeof(d->file), "%s", file ? file : "");
	snprintf(d->pointer, sizeof(d->pointer), "%s", pointer ? pointer : "");
	d->line = line;
	d->col = col;
	return code;
}

int sbx_diag_set_at(struct sbx_diag *d, int code, const char *file, int line, int col,
		    const char *pointer, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = sbx_diag_vset_at(d, code, file, line, col, pointer, fmt, ap);
	va_end(ap);
	return code;
}

/* Only the message: where the error lies is left as the caller may have placed it. */
int sbx_diag_set(struct sbx_diag *d, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(d, code, "", "", fmt, ap);
	va_end(ap);
	return code;
}

int sbx_diag_set_about(struct sbx_diag *d, int code, const char *lead, const char *path,
		       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(d, code, lead, path, fmt, ap);
	va_end(ap);
	return code;
}

int sbx_diag_hint(struct sbx_diag *d, int code, const char *fmt, ...)
{
	va_list ap;

	if (!d || d->dropping || d->hint[0])
		return code;
	va_start(ap, fmt);
	vsnprintf(d->hint, sizeof(d->hint), fmt, ap);
	va_end(ap);
	return code;
}

const char *sbx_strerror(int code)
{
	switch (code) {
	case SBX_E_PARSE:
		return "malformed input";
	case SBX_E_INVALID:
		return "invalid input";
	case SBX_E_TOO_BIG:
		return "over a limit of sbxrun-profile(5), LIMITS";
	case SBX_E_NO_LEGACY:
		return "no legacy sandbox policy expresses this profile";
	case SBX_E_UNENFORCEABLE:
		return "cannot be enforced on this host";
	case SBX_E_USAGE:
		return "bad usage";
	}
	return code < 0 && code > -4096 ? strerror(-code) : "internal error";
}

size_t sbx_sanitized_char(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n;

	/*
	 * A backslash before an "x" is shown as \x5c: a name holding the text "\x1b" would
	 * otherwise be shown as the one holding ESC. Read from the left, every "\x" shown then
	 * starts an escape, and any other backslash is itself (a Windows path keeps its own).
	 */
	if (u[0] == '\\' && u[1] == 'x')
		return 0;
	if (*u < 0x80)
		return *u < 0x20 || *u == 0x7f ? 0 : 1;
	/* NUL-terminated: the terminator is no continuation byte, so nothing is read past it. */
	n = sbx_utf8_len(u, SIZE_MAX);
	/* U+0080 to U+009F: a terminal reads U+009B as ESC [ and U+009D as ESC ]. */
	if (n == 2 && u[0] == 0xc2 && u[1] < 0xa0)
		return 0;
	return n;
}

/*
 * Control characters in user-supplied text would let a path forge extra output lines. Each run
 * of characters shown as they are goes out in one write: stderr is unbuffered, and a write per
 * character let another process's line (the helper's and init's, both out of descriptors) come
 * in between the characters of this one.
 */
void sbx_put_sanitized(const char *s, FILE *f)
{
	while (*s) {
		size_t run = 0, n;

		while (s[run] && (n = sbx_sanitized_char(s + run)) > 0)
			run += n;
		if (run) {
			fwrite(s, 1, run, f);
			s += run;
		} else {
			fprintf(f, "\\x%02x", (unsigned char)*s++);
		}
	}
}

size_t sbx_sanitized_len(const char *s)
{
	size_t len = 0;

	while (*s) {
		size_t n = sbx_sanitized_char(s);

		len += n ? n : 4;
		s += n ? n : 1;
	}
	return len;
}

/* A line being put together (sbx_diag_print), large enough for every field shown as \xHH. */
struct diag_line {
	char b[64 +
	       4 * (sizeof(((struct sbx_diag *)0)->file) + sizeof(((struct sbx_diag *)0)->pointer) +
		    sizeof(((struct sbx_diag *)0)->msg) + sizeof(((struct sbx_diag *)0)->hint))];
	size_t n;
};

static void line_add(struct diag_line *l, const char *s, size_t len)
{
	len = len < sizeof(l->b) - l->n ? len : sizeof(l->b) - l->n;
	memcpy(l->b + l->n, s, len);
	l->n += len;
}

static void line_sanitized(struct diag_line *l, const char *s)
{
	char esc[8];

	while (*s) {
		size_t n = sbx_sanitized_char(s);

		if (n) {
			line_add(l, s, n);
			s += n;
		} else {
			int e = snprintf(esc, sizeof(esc), "\\x%02x", (unsigned char)*s++);

			line_add(l, esc, (size_t)e);
		}
	}
}

/*
 * The line is put together first and written at once: a refusal is one line, and two processes
 * that refuse at the same moment (the helper and init, out of descriptors) must not mix theirs.
 */
void sbx_diag_print(const struct sbx_diag *d, FILE *f)
{
	struct diag_line l = {.n = 0};
	char pos[32];

	line_add(&l, "sbxrun: ", 8);
	if (d->file[0]) {
		line_sanitized(&l, d->file);
		if (d->line > 0) {
			int n = snprintf(pos, sizeof(pos), ":%d:%d", d->line,
					 d->col > 0 ? d->col : 1);

			line_add(&l, pos, (size_t)n);
		}
		line_add(&l, ": ", 2);
		if (d->line <= 0 && d->pointer[0]) {
			line_sanitized(&l, d->pointer);
			line_add(&l, ": ", 2);
		}
	}
	line_sanitized(&l, d->msg[0] ? d->msg : "unknown error");
	/* On the same line: a refusal is one line, its fix included (sbxrun(1), DIAGNOSTICS). */
	if (d->hint[0]) {
		line_add(&l, "; hint: ", 8);
		line_sanitized(&l, d->hint);
	}
	line_add(&l, "\n", 1);
	fwrite(l.b, 1, l.n, f);
}
