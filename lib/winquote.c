/* SPDX-License-Identifier: MIT */
/*
 * winquote.c - Windows command lines from an argv.
 *
 * A Windows process receives one string, and the program splits it again (CommandLineToArgvW,
 * or the C runtime's equivalent, which follows the same documented rules):
 *
 *   - arguments are separated by spaces and tabs outside double quotes;
 *   - a double quote toggles "quoted" mode and is not part of the argument;
 *   - 2n backslashes followed by a double quote give n backslashes, and the quote toggles;
 *   - 2n+1 backslashes followed by a double quote give n backslashes and a literal quote;
 *   - backslashes not followed by a double quote are literal.
 *
 * The first argument, the program name, is split by simpler rules: if it starts with a double
 * quote it runs to the next double quote, otherwise to the first space or tab; backslashes are
 * never escapes there. A program name therefore cannot contain a double quote (no Windows file
 * name can), and it is quoted without escaping.
 *
 * Pure string functions: no Windows API, so they are unit-tested on every host.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

/* Characters that end an unquoted argument, or that the splitter may treat as such. */
static bool needs_quotes(const char *arg)
{
	if (!*arg)
		return true; /* an empty argument must be written as "" or it vanishes */
	return strpbrk(arg, " \t\n\v\"") != NULL;
}

/* Worst case: every character a quote needing a backslash, plus the two quotes and NUL. */
static char *alloc_quoted(size_t len)
{
	if (len > (SIZE_MAX - 3) / 2)
		return NULL;
	return malloc(2 * len + 3);
}

char *sbx_win_quote_arg(const char *arg)
{
	size_t len, o = 0;
	const char *s;
	char *out;

	if (!arg) {
		errno = EINVAL;
		return NULL;
	}
	len = strlen(arg);
	out = alloc_quoted(len);
	if (!out)
		return NULL;
	if (!needs_quotes(arg)) {
		memcpy(out, arg, len + 1);
		return out;
	}
	out[o++] = '"';
	for (s = arg;;) {
		size_t backslashes = 0;

		while (*s == '\\') {
			backslashes++;
			s++;
		}
		if (!*s) {
			/* Doubled, so that the closing quote is not escaped by them. */
			memset(out + o, '\\', 2 * backslashes);
			o += 2 * backslashes;
			break;
		}
		if (*s == '"') {
			/* Doubled, plus one that makes the quote literal. */
			memset(out + o, '\\', 2 * backslashes + 1);
			o += 2 * backslashes + 1;
		} else {
			memset(out + o, '\\', backslashes);
			o += backslashes;
		}
		out[o++] = *s++;
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

/* The program name: quoted verbatim when needed; a double quote cannot be represented. */
static char *quote_program(const char *arg)
{
	size_t len = strlen(arg);
	char *out;

	if (strchr(arg, '"')) {
		errno = EINVAL;
		return NULL;
	}
	out = alloc_quoted(len);
	if (!out)
		return NULL;
	if (!needs_quotes(arg)) {
		memcpy(out, arg, len + 1);
		return out;
	}
	out[0] = '"';
	memcpy(out + 1, arg, len);
	out[len + 1] = '"';
	out[len + 2] = '\0';
	return out;
}

char *sbx_win_cmdline(char *const argv[])
{
	char *line = NULL;
	size_t used = 0;

	if (!argv || !argv[0]) {
		errno = EINVAL;
		return NULL;
	}
	for (size_t i = 0; argv[i]; i++) {
		char *q = i == 0 ? quote_program(argv[i]) : sbx_win_quote_arg(argv[i]);
		size_t qlen;
		char *grown;

		if (!q) {
			free(line);
			return NULL;
		}
		qlen = strlen(q);
		if (qlen > SIZE_MAX - used - 2) {
			free(q);
			free(line);
			errno = E2BIG;
			return NULL;
		}
		grown = realloc(line, used + qlen + 2);
		if (!grown) {
			free(q);
			free(line);
			return NULL;
		}
		line = grown;
		if (i > 0)
			line[used++] = ' ';
		memcpy(line + used, q, qlen + 1);
		used += qlen;
		free(q);
	}
	return line;
}
