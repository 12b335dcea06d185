/* SPDX-License-Identifier: MIT */
/* sbpl_test.c - see sbpl_test.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbpl.h"
#include "sbpl_test.h"
#include "t.h"

char *st_tempdir(void)
{
	char tmpl[] = "/tmp/sbx-sbpl-XXXXXX";

	if (!mkdtemp(tmpl))
		return NULL;
	return realpath(tmpl, NULL);
}

void st_rmdir(const char *dir)
{
	struct sbx_buf cmd = {0};
	char *s;

	if (!dir || !strstr(dir, "/tmp/sbx-sbpl-"))
		return;
	/* Single-quoted for the shell, whatever the directory name holds. */
	sbx_buf_add(&cmd, "rm -rf -- '");
	for (const char *c = dir; *c; c++) {
		if (*c == '\'')
			sbx_buf_add(&cmd, "'\\''");
		else
			sbx_buf_addc(&cmd, *c);
	}
	sbx_buf_addc(&cmd, '\'');
	s = sbx_buf_steal(&cmd);
	CHECK(s && system(s) == 0);
	free(s);
}

char *st_join(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 2);

	if (s)
		sprintf(s, "%s/%s", a, b);
	return s;
}

void st_touch(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		t_fail(__FILE__, __LINE__, "cannot create %s", path);
		return;
	}
	fclose(f);
}

bool st_has(const char *hay, const char *needle)
{
	bool found = hay && strstr(hay, needle);

	if (!found)
		fprintf(stderr, "  missing: %s\n", needle);
	return found;
}

char *st_read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

char *st_replace_all(char *s, const char *from, const char *to)
{
	struct sbx_buf b = {0};
	const char *p = s, *hit;
	size_t fl = strlen(from);

	if (!s)
		return NULL;
	while (fl && (hit = strstr(p, from))) {
		sbx_buf_addn(&b, p, (size_t)(hit - p));
		sbx_buf_add(&b, to);
		p = hit + fl;
	}
	sbx_buf_add(&b, p);
	free(s);
	return sbx_buf_steal(&b);
}
