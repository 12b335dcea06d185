/* SPDX-License-Identifier: MIT */
/* netlog.c - the proxy's decision log: one compact JSON object per line, keys in a fixed order. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

/*
 * Text from outside need not be UTF-8, which a JSON string must be: a process's name (the command
 * sets it, and the kernel cuts it at 15 bytes, maybe inside a character), a path, a request's
 * host. json_string() refuses such text, and the field, or the whole line, would be lost; here
 * each byte that begins no valid sequence stands as U+FFFD instead. Quotes, backslashes and
 * control bytes are jansson's to escape, for every JSON output alike.
 */
json_t *sbx_json_text(const char *s)
{
	size_t n, i = 0;
	char *t, *d;
	json_t *j;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	n = strlen(s);
	t = n < SIZE_MAX / 4 ? malloc(3 * n + 1) : NULL;
	if (!t)
		return NULL;
	for (d = t; i < n;) {
		size_t k = sbx_utf8_len((const unsigned char *)s + i, n - i);

		if (k) {
			memcpy(d, s + i, k);
			d += k;
			i += k;
		} else {
			memcpy(d, "\xef\xbf\xbd", 3);
			d += 3;
			i++;
		}
	}
	*d = '\0';
	j = json_string(t);
	free(t);
	return j;
}

static json_t *str_or_null(const char *s)
{
	return sbx_json_text(s);
}

char *sbx_json_line(struct json_t *o, bool ok)
{
	char *text = NULL, *line;
	size_t n;

	if (ok)
		text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(o);
	if (!text)
		return NULL;
	n = strlen(text);
	line = realloc(text, n + 2);
	if (!line) {
		free(text);
		return NULL;
	}
	line[n] = '\n';
	line[n + 1] = '\0';
	return line;
}

char *sbx_proxy_log_line(const struct sbx_proxy_event *ev)
{
	json_t *o = json_object();
	bool ok = o != NULL;

	/* json_object_set_new steals the value and fails on NULL (a failed allocation). */
	ok = ok && !json_object_set_new(o, "time", str_or_null(ev->time));
	ok = ok && !json_object_set_new(o, "client", str_or_null(ev->client));
	ok = ok && !json_object_set_new(o, "method", str_or_null(ev->method));
	ok = ok && !json_object_set_new(o, "host", str_or_null(ev->host));
	ok = ok && !json_object_set_new(o, "port", ev->port ? json_integer(ev->port) : json_null());
	ok = ok && !json_object_set_new(o, "decision", str_or_null(ev->decision));
	ok = ok && !json_object_set_new(o, "rule", str_or_null(ev->rule));
	ok = ok &&
	     !json_object_set_new(o, "status", ev->status ? json_integer(ev->status) : json_null());
	ok = ok && !json_object_set_new(o, "bytes", json_integer((json_int_t)ev->bytes));
	if (ev->cut)
		ok = ok && !json_object_set_new(o, "cut", sbx_json_text(ev->cut));
	return sbx_json_line(o, ok);
}

int sbx_proxy_report_line(const struct sbx_proxy_event *ev, char *buf, size_t n,
			  struct sbx_report_line *out)
{
	bool v6 = ev->host && strchr(ev->host, ':');

	memset(out, 0, sizeof(*out));
	if (!ev->decision || strcmp(ev->decision, "deny") != 0)
		return 0;
	if (ev->host && ev->port)
		snprintf(buf, n, v6 ? "[%s]:%u" : "%s:%u", ev->host, ev->port);
	else
		snprintf(buf, n, "%s", ev->host ? ev->host : "?");
	out->time = ev->time;
	out->pid = -1;
	out->op = "connect";
	out->address = buf;
	out->rule = ev->rule;
	out->mechanism = "proxy";
	return 1;
}
