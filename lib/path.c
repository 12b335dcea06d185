/* SPDX-License-Identifier: MIT */
/* path.c - lexical path handling. No file system access: these are pure string operations. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

bool sbx_path_is_posix_abs(const char *p)
{
	return p && p[0] == '/';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool sbx_path_is_windows_abs(const char *p)
{
	if (!p)
		return false;
	if (is_alpha(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
		return true;
	/* UNC: \\server\share... (also the \\?\ and \\.\ device forms) */
	return p[0] == '\\' && p[1] == '\\' && p[2] && p[2] != '\\';
}

/*
 * Normalizes an absolute POSIX path in a fresh buffer: "." and empty components vanish, ".."
 * removes the previous component and stops at "/". The result never ends in "/" unless it is "/".
 */
int sbx_path_normalize(const char *in, char **out)
{
	size_t len, o = 0;
	const char *s;
	char *buf;

	*out = NULL;
	if (!sbx_path_is_posix_abs(in))
		return -EINVAL;
	len = strlen(in);
	buf = malloc(len + 2);
	if (!buf)
		return -ENOMEM;
	buf[o++] = '/';
	for (s = in; *s;) {
		const char *c;
		size_t n;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		c = s;
		while (*s && *s != '/')
			s++;
		n = (size_t)(s - c);
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (o > 1) {
				o--; /* drop the separator before the last component */
				while (o > 1 && buf[o - 1] != '/')
					o--;
				if (o > 1)
					o--;
				if (o == 0)
					o = 1;
			}
			if (o == 1)
				buf[0] = '/';
			continue;
		}
		if (o > 1)
			buf[o++] = '/';
		memcpy(buf + o, c, n);
		o += n;
	}
	buf[o] = '\0';
	*out = buf;
	return 0;
}

int sbx_path_join(const char *base, const char *rel, char **out)
{
	size_t lb, lr;
	char *tmp;
	int r;

	*out = NULL;
	if (!rel || !rel[0])
		return sbx_path_normalize(base, out);
	if (rel[0] == '/')
		return sbx_path_normalize(rel, out);
	lb = strlen(base);
	lr = strlen(rel);
	tmp = malloc(lb + lr + 2);
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, base, lb);
	tmp[lb] = '/';
	memcpy(tmp + lb + 1, rel, lr + 1);
	r = sbx_path_normalize(tmp, out);
	free(tmp);
	return r;
}

bool sbx_path_covers(const char *prefix, const char *path)
{
	size_t n;

	if (!prefix || !path)
		return false;
	if (strcmp(prefix, "/") == 0)
		return path[0] == '/';
	n = strlen(prefix);
	if (strncmp(prefix, path, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

size_t sbx_path_depth(const char *p)
{
	size_t d = 0;

	if (!p)
		return 0;
	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

/*
 * Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF), 1 for ASCII, 0 when invalid. At most n bytes are read; a NUL-terminated
 * string may pass SIZE_MAX, since a NUL is never a continuation byte.
 */
size_t sbx_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int sbx_hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
