/* SPDX-License-Identifier: MIT */
/*
 * load_text.c - the loader's view of the JSON text itself: a pre-scan for what jansson would
 * report without a position to trust, jansson's errors reworded with the offending token's line
 * and column, and a second, minimal scanner that finds where the value a JSON pointer names
 * starts, so a semantic error found on the tree is placed in the text. None of it runs on the
 * way to a loaded profile except the pre-scan and jansson itself.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"

/* Line and column (1-based, in characters as jansson counts them) of byte offset off. */
static void position_of(const char *buf, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (c == '\n') {
			(*line)++;
			*col = 1;
		} else if ((c & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

__attribute__((format(printf, 5, 6))) static int
fail_at(struct sbx_diag *d, const char *name, const char *buf, size_t off, const char *fmt, ...)
{
	int line, col;
	va_list ap;

	position_of(buf, off, &line, &col);
	va_start(ap, fmt);
	sbx_diag_vset_at(d, SBX_E_PARSE, name, line, col, NULL, fmt, ap);
	va_end(ap);
	return SBX_E_PARSE;
}

/*
 * What jansson would report without a position we can trust, found first: NUL bytes, invalid
 * UTF-8 (at the offending byte, not at the start of its string) and nesting deeper than
 * SBX_MAX_JSON_DEPTH (so a hostile file cannot make any later recursive walk deep).
 */
static int prescan(const char *buf, size_t len, const char *name, struct sbx_diag *d)
{
	const unsigned char *s = (const unsigned char *)buf;
	bool in_string = false, escaped = false;
	unsigned depth = 0;

	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		return fail_at(d, name, buf, 0,
			       "byte order mark at the start of the input (JSON text must not have "
			       "one)");

	for (size_t i = 0; i < len;) {
		size_t n;

		/* Most of a large profile is path text: plain ASCII in a string changes no state. */
		if (in_string && !escaped) {
			while (i < len && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' &&
			       s[i] != '\\')
				i++;
			if (i == len)
				break;
		}
		n = sbx_utf8_len(s + i, len - i);
		if (s[i] == 0)
			return fail_at(d, name, buf, i,
				       "NUL byte in the input (expected JSON text)");
		if (n == 0)
			return fail_at(d, name, buf, i,
				       "invalid UTF-8 byte 0x%02x (JSON text must "
				       "be UTF-8)",
				       s[i]);
		if (in_string) {
			if (escaped)
				escaped = false;
			else if (s[i] == '\\')
				escaped = true;
			else if (s[i] == '"')
				in_string = false;
		} else if (s[i] == '"') {
			in_string = true;
		} else if (s[i] == '[' || s[i] == '{') {
			if (++depth > SBX_MAX_JSON_DEPTH)
				return fail_at(d, name, buf, i,
					       "nesting deeper than %d levels (a profile nests at "
					       "most 8)",
					       SBX_MAX_JSON_DEPTH);
		} else if ((s[i] == ']' || s[i] == '}') && depth > 0) {
			depth--;
		}
		i += n;
	}
	return 0;
}

/* jansson's error text ends in " near '<token>'"; the token tells where the error starts. */
static const char *near_token(const json_error_t *e, size_t *n)
{
	const char *t = strstr(e->text, " near '");
	size_t len;

	if (!t)
		return NULL;
	t += strlen(" near '");
	len = strlen(t);
	if (len == 0 || t[len - 1] != '\'')
		return NULL;
	*n = len - 1;
	return t;
}

static void strip_near(char *dst, size_t size, const char *text)
{
	const char *t = strstr(text, " near ");
	int n = t ? (int)(t - text) : (int)strlen(text);

	snprintf(dst, size, "%.*s", n, text);
}

static int jansson_error(const json_error_t *e, const char *buf, size_t len, const char *name,
			 struct sbx_diag *d)
{
	size_t tn = 0, off = (size_t)e->position;
	const char *tok = near_token(e, &tn);
	char what[JSON_ERROR_TEXT_LENGTH];
	int r;

	/*
	 * jansson words every error it finds but an allocation that failed: the text is left
	 * empty and the code (its last byte) never set. Out of memory, not invalid JSON.
	 */
	if (!e->text[0])
		return sbx_diag_set_at(d, -ENOMEM, name, 0, 0, NULL,
				       "out of memory while reading the JSON");
	/* Point at the start of the offending token when the text confirms where it is. */
	if (tok && tn <= off && off <= len && memcmp(buf + off - tn, tok, tn) == 0)
		off -= tn;
	else if (off > 0)
		off--;
	strip_near(what, sizeof(what), e->text);
	switch (json_error_code(e)) {
	case json_error_duplicate_key:
		return fail_at(d, name, buf, off, "invalid JSON: duplicate key %.*s", (int)tn, tok);
	case json_error_null_character:
	case json_error_null_byte_in_key:
		return fail_at(d, name, buf, off,
			       "a string holds a NUL character (\\u0000), which no path or key "
			       "may contain");
	case json_error_premature_end_of_input:
		return fail_at(d, name, buf, len, "invalid JSON: unexpected end of input (%s)",
			       what);
	case json_error_end_of_input_expected:
		return fail_at(
			d, name, buf, off,
			"invalid JSON: unexpected text after the end of the top-level object");
	case json_error_invalid_syntax:
		if (strstr(what, "unexpected newline"))
			return fail_at(d, name, buf, off,
				       "invalid JSON: a newline inside a string (write it as \\n)");
		break;
	case json_error_numeric_overflow:
		return fail_at(d, name, buf, off, "invalid JSON: number out of range");
	default:
		break;
	}
	if (tok)
		r = fail_at(d, name, buf, off, "invalid JSON: %s near '%.*s'", what, (int)tn, tok);
	else
		r = fail_at(d, name, buf, off, "invalid JSON: %s", what);
	if (tok && (tok[0] == '}' || tok[0] == ']'))
		return sbx_diag_hint(d, r, "JSON allows no comma after the last element");
	if (strstr(what, "string or '}' expected"))
		return sbx_diag_hint(d, r, "JSON object keys are double-quoted strings");
	return r;
}

static size_t skip_ws(const char *buf, size_t len, size_t i)
{
	while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
		i++;
	return i;
}

int sbx_json_parse_object(const char *buf, size_t len, const char *name, json_t **root,
			  struct sbx_diag *d)
{
	json_error_t e;
	size_t start;
	int r;

	*root = NULL;
	start = skip_ws(buf, len, 0);
	if (start == len)
		return fail_at(d, name, buf, start, "empty input (expected a JSON object)");
	r = prescan(buf, len, name, d);
	if (r)
		return r;
	*root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
	if (!*root)
		return jansson_error(&e, buf, len, name, d);
	if (json_is_object(*root))
		return 0;
	r = fail_at(d, name, buf, start, "expected a JSON object at the top level, got %s",
		    sbx_json_type_name(*root));
	json_decref(*root);
	*root = NULL;
	return r;
}

/* ---- JSON pointer to position (used only to place an error) ----------------------------- */

static size_t skip_string(const char *buf, size_t len, size_t i)
{
	for (i++; i < len && buf[i] != '"'; i++)
		if (buf[i] == '\\')
			i++;
	return i < len ? i + 1 : len;
}

static size_t skip_value(const char *buf, size_t len, size_t i)
{
	unsigned depth = 0;

	if (i < len && buf[i] == '"')
		return skip_string(buf, len, i);
	for (; i < len; i++) {
		char c = buf[i];

		if (c == '"') {
			i = skip_string(buf, len, i) - 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth == 0)
				return i;
			if (--depth == 0)
				return i + 1;
		} else if (depth == 0 &&
			   (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
			return i;
		}
	}
	return len;
}

static unsigned hex4(const char *s)
{
	unsigned v = 0;

	for (int k = 0; k < 4; k++) {
		char c = s[k];

		v = v * 16 + (unsigned)(c >= 'a'   ? c - 'a' + 10
					: c >= 'A' ? c - 'A' + 10
						   : c - '0');
	}
	return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80)
		return (size_t)(o[0] = (char)cp, 1);
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Decodes the (valid, already parsed) JSON string at buf[i] into out (at least its raw size). */
static size_t decode_string(const char *buf, size_t len, size_t i, char *out)
{
	static const char esc_in[] = "\"\\/bfnrt", esc_out[] = "\"\\/\b\f\n\r\t";
	size_t o = 0;

	for (i++; i < len && buf[i] != '"'; i++) {
		unsigned cp;

		if (buf[i] != '\\') {
			out[o++] = buf[i];
			continue;
		}
		i++;
		if (i < len && buf[i] != 'u') {
			const char *p = strchr(esc_in, buf[i]);

			out[o++] = p ? esc_out[p - esc_in] : buf[i];
			continue;
		}
		if (i + 4 >= len)
			break;
		cp = hex4(buf + i + 1);
		i += 4;
		if (cp >= 0xd800 && cp < 0xdc00 && i + 6 < len && buf[i + 1] == '\\') {
			cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(buf + i + 3) - 0xdc00);
			i += 6;
		}
		o += put_utf8(out + o, cp);
	}
	out[o] = '\0';
	return o;
}

/* The next reference token of pointer p, unescaped (~1 is "/", ~0 is "~"), into tok. */
static const char *next_token(const char *p, char *tok, size_t size)
{
	size_t o = 0;

	for (p++; *p && *p != '/'; p++) {
		char c = *p;

		if (c == '~' && (p[1] == '0' || p[1] == '1'))
			c = *++p == '0' ? '~' : '/';
		if (o + 1 < size)
			tok[o++] = c;
	}
	tok[o] = '\0';
	return p;
}

static bool member_find(const char *buf, size_t len, size_t *i, const char *key, char *scratch)
{
	size_t j = skip_ws(buf, len, *i + 1);

	while (j < len && buf[j] == '"') {
		size_t k = skip_string(buf, len, j);
		bool match = decode_string(buf, len, j, scratch) == strlen(key) &&
			     strcmp(scratch, key) == 0;

		j = skip_ws(buf, len, k);
		if (j >= len || buf[j] != ':')
			return false;
		j = skip_ws(buf, len, j + 1);
		if (match) {
			*i = j;
			return true;
		}
		j = skip_ws(buf, len, skip_value(buf, len, j));
		if (j >= len || buf[j] != ',')
			return false;
		j = skip_ws(buf, len, j + 1);
	}
	return false;
}

static bool element_find(const char *buf, size_t len, size_t *i, const char *index)
{
	char *end;
	unsigned long n = strtoul(index, &end, 10);
	size_t j = skip_ws(buf, len, *i + 1);

	if (*end || !*index)
		return false;
	for (; n > 0; n--) {
		j = skip_ws(buf, len, skip_value(buf, len, j));
		if (j >= len || buf[j] != ',')
			return false;
		j = skip_ws(buf, len, j + 1);
	}
	if (j >= len || buf[j] == ']')
		return false;
	*i = j;
	return true;
}

/* Byte offset where the value named by pointer starts in the text, or -1. */
static long locate(const char *buf, size_t len, const char *pointer)
{
	char tok[SBX_PTR_MAX];
	char *scratch = malloc(len + 1);
	size_t i = skip_ws(buf, len, 0);
	bool ok = scratch != NULL;

	while (ok && *pointer == '/') {
		pointer = next_token(pointer, tok, sizeof(tok));
		if (i < len && buf[i] == '{')
			ok = member_find(buf, len, &i, tok, scratch);
		else if (i < len && buf[i] == '[')
			ok = element_find(buf, len, &i, tok);
		else
			ok = false;
	}
	free(scratch);
	return ok ? (long)i : -1;
}

void sbx_json_place_pointer(const char *buf, size_t len, struct sbx_diag *d)
{
	char msg[sizeof(d->pointer) + sizeof(d->msg) + 2];
	long off;

	if (!d || !d->file[0] || d->line > 0)
		return;
	off = locate(buf, len, d->pointer);
	if (off < 0)
		return;
	position_of(buf, (size_t)off, &d->line, &d->col);
	if (!d->pointer[0])
		return;
	snprintf(msg, sizeof(msg), "%s: %s", d->pointer, d->msg);
	memcpy(d->msg, msg, sizeof(d->msg) - 1);
	d->msg[sizeof(d->msg) - 1] = '\0';
	/* The path the message names moved with it, or was cut off. */
	d->about.at += strlen(d->pointer) + 2;
	if (d->about.at + d->about.len > strlen(d->msg))
		d->about.len = 0;
}
