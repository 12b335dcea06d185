/* SPDX-License-Identifier: MIT */
/* path.c - lexical path handling. No file system access: these are pure string operations. */
#include <errno.h>
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
