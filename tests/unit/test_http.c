/* SPDX-License-Identifier: MIT */
/* test_http.c - request and response heads, framing, chunked bodies, the rewritten heads. */
#include <stdlib.h>

#include "net.h"
#include "t.h"

/* Scans (one byte at a time when bytewise) and parses a request; the status, 0 when valid. */
static int request(const char *text, size_t len, bool bytewise, struct sbx_http_req *r,
		   size_t *head_len)
{
	struct sbx_http_scan s = {0};
	struct sbx_http_err e = {0};
	int rc = 0;

	for (size_t n = bytewise ? 1 : len; n <= len; n++) {
		rc = sbx_http_scan(&s, text, n, true, head_len, &e);
		if (rc != 0)
			break;
	}
	if (rc < 0)
		return e.status;
	if (rc == 0)
		return -1; /* incomplete */
	if (sbx_http_parse_request(text, *head_len, 0, r, &e) < 0)
		return e.status;
	return 0;
}

#define REQ(s) s, sizeof(s) - 1

TEST(http_request_valid)
{
	static const struct {
		const char *text;
		size_t len;
		const char *method, *host;
		unsigned port;
		int body;
		uint64_t length;
		const char *path;
	} cases[] = {
		{REQ("GET http://example.com/a?b HTTP/1.1\r\nHost: example.com\r\n\r\n"), "GET",
		 "example.com", 80, SBX_BODY_NONE, 0, "/a?b"},
		{REQ("GET http://Example.COM:8080 HTTP/1.1\r\nHost: x\r\n\r\n"), "GET",
		 "example.com", 8080, SBX_BODY_NONE, 0, ""},
		{REQ("GET HTTP://example.com?q HTTP/1.0\r\n\r\n"), "GET", "example.com", 80,
		 SBX_BODY_NONE, 0, "?q"},
		{REQ("POST http://[::1]:81/p HTTP/1.1\r\nHost: [::1]:81\r\nContent-Length: "
		     "5\r\n\r\n"),
		 "POST", "::1", 81, SBX_BODY_LENGTH, 5, "/p"},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n"),
		 "POST", "h", 80, SBX_BODY_CHUNKED, 0, "/"},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"), "POST",
		 "h", 80, SBX_BODY_NONE, 0, "/"},
		{REQ("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
		 "CONNECT", "example.com", 443, SBX_BODY_NONE, 0, NULL},
		{REQ("CONNECT example.com:443 HTTP/1.0\r\n\r\n"), "CONNECT", "example.com", 443,
		 SBX_BODY_NONE, 0, NULL},
		{REQ("\r\n\r\nGET http://h/ HTTP/1.1\r\nHost: h\r\nX-Empty:\r\n\r\n"), "GET", "h",
		 80, SBX_BODY_NONE, 0, "/"},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nX-A: \t v \t\r\n\r\n"), "GET", "h", 80,
		 SBX_BODY_NONE, 0, "/"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int bytewise = 0; bytewise < 2; bytewise++) {
			struct sbx_http_req r;
			size_t hl = 0;
			int st = request(cases[i].text, cases[i].len, bytewise, &r, &hl);

			if (st != 0) {
				t_fail(__FILE__, __LINE__, "case %zu (%s): status %d", i,
				       bytewise ? "bytewise" : "whole", st);
				continue;
			}
			CHECK_INT(hl, cases[i].len);
			CHECK_STR(r.method, cases[i].method);
			CHECK_STR(r.host.name, cases[i].host);
			CHECK_INT(r.port, cases[i].port);
			CHECK_INT(r.body, cases[i].body);
			CHECK_INT(r.length, cases[i].length);
			if (cases[i].path) {
				CHECK_INT(r.path_len, strlen(cases[i].path));
				CHECK(strncmp(cases[i].text + r.path, cases[i].path, r.path_len) ==
				      0);
			}
		}
	}
}

TEST(http_request_refused)
{
	static const struct {
		const char *text;
		size_t len;
		int status; /* -1: incomplete */
	} cases[] = {
		/* Incomplete. */
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\n"), -1},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\n\r"), -1},
		/* Line ends and folding. */
		{REQ("GET http://h/ HTTP/1.1\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\n\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\rHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\n\tX: a\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost : h\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nX: a\x01b\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nX: a\0b\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nX: a\x7f\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\n: v\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nNoColon\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nX(y): v\r\n\r\n"), 400},
		{REQ("\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nGET http://h/ HTTP/1.1\r\nHost: "
		     "h\r\n\r\n"),
		 400},
		/* Request line. */
		{REQ("GET  http://h/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/  HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1 \r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/\tx HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("G@T http://h/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/2.0\r\nHost: h\r\n\r\n"), 505},
		{REQ("GET http://h/ HTTP/1.2\r\nHost: h\r\n\r\n"), 505},
		{REQ("GET http://h/ http/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1x\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/\x80 HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		/* Targets. */
		{REQ("GET /path HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET https://h/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET ftp://h/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://user@evil.example/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://allowed.example@evil.example/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/#frag HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http:///p HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h:/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h:0/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h:99999/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://127.1/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h%2eexample/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h\\@x/ HTTP/1.1\r\nHost: h\r\n\r\n"), 400},
		{REQ("CONNECT example.com HTTP/1.1\r\nHost: example.com\r\n\r\n"), 400},
		{REQ("CONNECT http://example.com:443/ HTTP/1.1\r\nHost: x\r\n\r\n"), 400},
		{REQ("CONNECT example.com:443 HTTP/1.1\r\nContent-Length: 3\r\n\r\n"), 400},
		{REQ("CONNECT example.com:443 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
		 400},
		/* Host. */
		{REQ("GET http://h/ HTTP/1.1\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nHost: h\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h h\r\n\r\n"), 400},
		/* Framing. */
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: "
		     "5\r\n\r\n"),
		 400},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 5\r\n\r\n"), 400},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n"), 400},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n"), 400},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nContent-Length: 0x10\r\n\r\n"), 400},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nContent-Length: "
		     "9999999999999999999\r\n\r\n"),
		 400},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nContent-Length: "
		     "3\r\nTransfer-Encoding: chunked\r\n\r\n"),
		 400},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, "
		     "chunked\r\n\r\n"),
		 501},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, "
		     "gzip\r\n\r\n"),
		 501},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\n\r\n"),
		 501},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: "
		     "chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
		 501},
		{REQ("POST http://h/ HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n"),
		 501},
		{REQ("POST http://h/ HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n"), 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nConnection: close, "
		     "Content-Length\r\n\r\n"),
		 400},
		{REQ("GET http://h/ HTTP/1.1\r\nHost: h\r\nConnection: transfer-encoding\r\n\r\n"),
		 400},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int bytewise = 0; bytewise < 2; bytewise++) {
			struct sbx_http_req r;
			size_t hl = 0;
			int st = request(cases[i].text, cases[i].len, bytewise, &r, &hl);

			if (st != cases[i].status)
				t_fail(__FILE__, __LINE__, "case %zu (%s): status %d, expected %d",
				       i, bytewise ? "bytewise" : "whole", st, cases[i].status);
		}
	}
}

TEST(http_request_limits)
{
	size_t n = 2 * SBX_HTTP_MAX_HEAD, hl;
	char *big = malloc(n + 1);
	struct sbx_http_req r;
	int len;

	/* A request line over 8 KiB: 414. */
	len = snprintf(big, n, "GET http://h/%0*d HTTP/1.1\r\nHost: h\r\n\r\n", SBX_HTTP_MAX_LINE,
		       0);
	CHECK_INT(request(big, (size_t)len, false, &r, &hl), 414);
	/* A field line over 8 KiB: 431. */
	len = snprintf(big, n, "GET http://h/ HTTP/1.1\r\nHost: h\r\nX: %0*d\r\n\r\n",
		       SBX_HTTP_MAX_LINE, 0);
	CHECK_INT(request(big, (size_t)len, false, &r, &hl), 431);
	/* 101 fields: 431. */
	len = snprintf(big, n, "GET http://h/ HTTP/1.1\r\nHost: h\r\n");
	for (int i = 0; i < SBX_HTTP_MAX_FIELDS; i++)
		len += snprintf(big + len, n - (size_t)len, "X%d: v\r\n", i);
	len += snprintf(big + len, n - (size_t)len, "\r\n");
	CHECK_INT(request(big, (size_t)len, false, &r, &hl), 431);
	/* 100 fields (Host and 99 more) are fine. */
	len = snprintf(big, n, "GET http://h/ HTTP/1.1\r\nHost: h\r\n");
	for (int i = 0; i < SBX_HTTP_MAX_FIELDS - 1; i++)
		len += snprintf(big + len, n - (size_t)len, "X%d: v\r\n", i);
	len += snprintf(big + len, n - (size_t)len, "\r\n");
	CHECK_INT(request(big, (size_t)len, false, &r, &hl), 0);
	CHECK_INT(r.n_fields, SBX_HTTP_MAX_FIELDS);
	/* A head over 64 KiB made of lines that are each fine: 431. */
	len = snprintf(big, n, "GET http://h/ HTTP/1.1\r\nHost: h\r\n");
	for (int i = 0; i < 9; i++)
		len += snprintf(big + len, n - (size_t)len, "X%d: %0*d\r\n", i, 8000, 0);
	len += snprintf(big + len, n - (size_t)len, "\r\n");
	CHECK(len > SBX_HTTP_MAX_HEAD);
	CHECK_INT(request(big, (size_t)len, false, &r, &hl), 431);
	free(big);
}

TEST(http_pipelined_requests)
{
	static const char two[] =
		"POST http://a.example/x HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n"
		"\r\nbodyGET http://b.example/ HTTP/1.1\r\nHost: b\r\n\r\n";
	struct sbx_http_scan s = {0};
	struct sbx_http_err e;
	struct sbx_http_req r;
	size_t hl, off;

	CHECK_INT(sbx_http_scan(&s, two, sizeof(two) - 1, true, &hl, &e), 1);
	CHECK_INT(sbx_http_parse_request(two, hl, 0, &r, &e), 0);
	CHECK_STR(r.host.name, "a.example");
	CHECK_INT(r.length, 4);
	off = hl + r.length;
	memset(&s, 0, sizeof(s));
	CHECK_INT(sbx_http_scan(&s, two + off, sizeof(two) - 1 - off, true, &hl, &e), 1);
	CHECK_INT(sbx_http_parse_request(two + off, hl, 0, &r, &e), 0);
	CHECK_STR(r.host.name, "b.example");
	CHECK_INT(off + hl, sizeof(two) - 1);
}

static char *upstream_head(const char *text)
{
	struct sbx_http_scan s = {0};
	struct sbx_http_err e;
	struct sbx_http_req r;
	size_t hl, n;

	if (sbx_http_scan(&s, text, strlen(text), true, &hl, &e) != 1 ||
	    sbx_http_parse_request(text, hl, 0, &r, &e) < 0)
		return NULL;
	return sbx_http_upstream_head(text, &r, &n);
}

TEST(http_upstream_head)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{"GET http://Example.com/a?b HTTP/1.1\r\nHost: evil.example\r\nAccept: */*\r\n"
		 "Proxy-Connection: keep-alive\r\nProxy-Authorization: Basic eA==\r\n\r\n",
		 "GET /a?b HTTP/1.1\r\nAccept: */*\r\nHost: example.com\r\n\r\n"},
		{"GET http://h:8080?q HTTP/1.0\r\nConnection: close, X-Secret\r\nX-Secret: 1\r\n"
		 "Keep-Alive: 5\r\nTE: trailers\r\nUpgrade: websocket\r\nX-Kept:  v \r\n\r\n",
		 "GET /?q HTTP/1.0\r\nX-Kept: v\r\nHost: h:8080\r\n\r\n"},
		{"POST http://[::1]:81 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n",
		 "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nHost: [::1]:81\r\n\r\n"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *h = upstream_head(cases[i].in);
		struct sbx_http_scan s = {0};
		struct sbx_http_err e;
		struct sbx_http_req r;
		size_t hl;

		CHECK_STR(h, cases[i].out);
		/* What goes upstream parses again as an origin-form request, framed alike. */
		if (h) {
			CHECK_INT(sbx_http_scan(&s, h, strlen(h), true, &hl, &e), 1);
			CHECK_INT(sbx_http_parse_request(h, hl, SBX_HTTP_ORIGIN_OK, &r, &e), 0);
			CHECK_INT(r.form, SBX_HTTP_ORIGIN);
		}
		free(h);
	}
}

static int response(const char *text, bool head_req, struct sbx_http_resp *r, char **client)
{
	struct sbx_http_scan s = {0};
	struct sbx_http_err e;
	size_t hl, n;
	int rc = sbx_http_scan(&s, text, strlen(text), false, &hl, &e);

	if (rc <= 0)
		return rc < 0 ? e.status : -1;
	if (sbx_http_parse_response(text, hl, head_req, r, &e) < 0)
		return e.status;
	if (client)
		*client = sbx_http_client_head(text, r, r->body == SBX_BODY_CLOSE, &n);
	return 0;
}

TEST(http_response_table)
{
	static const struct {
		const char *text;
		bool head_req;
		int code, body;
		const char *client; /* the head passed on; NULL: not checked */
	} cases[] = {
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: keep-alive\r\n\r\n", false,
		 200, SBX_BODY_LENGTH, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n"},
		{"HTTP/1.0 200 OK\r\nServer: x\r\n\r\n", false, 200, SBX_BODY_CLOSE,
		 "HTTP/1.1 200 OK\r\nServer: x\r\nConnection: close\r\n\r\n"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 9\r\n\r\n",
		 false, 200, SBX_BODY_CHUNKED,
		 "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 9\r\n\r\n", false,
		 200, SBX_BODY_CLOSE,
		 "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nConnection: close\r\n\r\n"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", true, 200, SBX_BODY_NONE, NULL},
		{"HTTP/1.1 204 No Content\r\n\r\n", false, 204, SBX_BODY_NONE, NULL},
		{"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", false, 304,
		 SBX_BODY_NONE, NULL},
		{"HTTP/1.1 100 Continue\r\n\r\n", false, 100, SBX_BODY_NONE,
		 "HTTP/1.1 100 Continue\r\n\r\n"},
		{"HTTP/1.1 404\r\nContent-Length: 0\r\n\r\n", false, 404, SBX_BODY_NONE,
		 "HTTP/1.1 404 \r\nContent-Length: 0\r\n\r\n"},
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n", false, 200,
		 SBX_BODY_LENGTH, NULL},
	};
	static const char *const refused[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n",
		"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
		"HTTP/2 200 OK\r\n\r\n",
		"HTTP/1.1 20 OK\r\n\r\n",
		"HTTP/1.1 600 OK\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n",
		"\r\nHTTP/1.1 200 OK\r\n\r\n",
		"HTTP/1.1 200 O\x01K\r\n\r\n",
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_http_resp r;
		char *client = NULL;
		int st = response(cases[i].text, cases[i].head_req, &r, &client);

		if (st != 0) {
			t_fail(__FILE__, __LINE__, "case %zu: status %d", i, st);
			free(client);
			continue;
		}
		CHECK_INT(r.status, cases[i].code);
		CHECK_INT(r.body, cases[i].body);
		if (cases[i].client)
			CHECK_STR(client, cases[i].client);
		free(client);
	}
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		struct sbx_http_resp r;

		if (response(refused[i], false, &r, NULL) != 502)
			t_fail(__FILE__, __LINE__, "refused case %zu: not refused with 502", i);
	}
}

/* Feeds text in pieces of `step` bytes; returns the bytes of the body, or -status. */
static long chunked(const char *text, size_t len, size_t step)
{
	struct sbx_http_chunked c = {0};
	struct sbx_http_err e;
	size_t off = 0, used;

	while (off < len) {
		size_t n = len - off < step ? len - off : step;
		int r = sbx_http_chunked_feed(&c, text + off, n, &used, &e);

		if (r < 0)
			return -e.status;
		off += used;
		if (r == 1)
			return (long)off;
	}
	return -1; /* not finished */
}

#define CH(s) s, sizeof(s) - 1

TEST(http_chunked_table)
{
	static const struct {
		const char *text;
		size_t len;
		long want; /* body length; -1 incomplete; -400 malformed */
	} cases[] = {
		{CH("0\r\n\r\n"), 5},
		{CH("5\r\nhello\r\n0\r\n\r\nGET"), 15},
		{CH("A\r\n0123456789\r\n0\r\n\r\n"), 20},
		{CH("a;name=value;x=\"q\"\r\n0123456789\r\n0\r\n\r\n"), 37},
		{CH("5 ;ext\r\nhello\r\n0\r\n\r\n"), 20},
		{CH("0\r\nTrailer-A: 1\r\nTrailer-B:x\r\n\r\n"), 32},
		{CH("000000000000000000000005\r\nhello\r\n0\r\n\r\n"), -400},
		{CH("5\r\nhello\r\n0\r\n"), -1},
		{CH("5\r\nhello"), -1},
		{CH("\r\n"), -400},
		{CH("x\r\n"), -400},
		{CH("-1\r\n"), -400},
		{CH("5\nhello\r\n0\r\n\r\n"), -400},
		{CH("5\r\nhelloX\r\n0\r\n\r\n"), -400},
		{CH("5\r\nhello\n0\r\n\r\n"), -400},
		{CH("5 \r\nhello\r\n0\r\n\r\n"), -400},
		{CH("5;a\x01\r\nhello\r\n0\r\n\r\n"), -400},
		{CH("0\r\n Folded: x\r\n\r\n"), -400},
		{CH("0\r\nNoColon\r\n\r\n"), -400},
		{CH("0\r\nX: a\nb\r\n\r\n"), -400},
		{CH("0\r\n\r\r"), -400},
		{CH("FFFFFFFFFFFFFFFF\r\n"), -1},
		{CH("10000000000000000\r\n"), -400},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (size_t step = 1; step <= cases[i].len; step = step * 3 + 1) {
			long got = chunked(cases[i].text, cases[i].len, step);

			if (got != cases[i].want)
				t_fail(__FILE__, __LINE__,
				       "case %zu in steps of %zu: %ld, expected %ld", i, step, got,
				       cases[i].want);
		}
		if (chunked(cases[i].text, cases[i].len, cases[i].len) != cases[i].want)
			t_fail(__FILE__, __LINE__, "case %zu whole: expected %ld", i,
			       cases[i].want);
	}
}

TEST(http_chunked_limits)
{
	char *line = malloc(SBX_HTTP_MAX_CHUNK_LINE + 16);
	char *tr = malloc(SBX_HTTP_MAX_TRAILERS + 64);
	size_t n;

	/* A size line over the limit, however long its extension is allowed to grow. */
	n = (size_t)sprintf(line, "1;");
	memset(line + n, 'x', SBX_HTTP_MAX_CHUNK_LINE);
	n += SBX_HTTP_MAX_CHUNK_LINE;
	CHECK_INT(chunked(line, n, 4096), -400);
	/* Trailers over the limit. */
	n = (size_t)sprintf(tr, "0\r\n");
	while (n < SBX_HTTP_MAX_TRAILERS + 32)
		n += (size_t)sprintf(tr + n, "T: xxxxxxxxxxxxxxxx\r\n");
	CHECK_INT(chunked(tr, n, 1000), -400);
	free(line);
	free(tr);
}

TEST(http_log_line)
{
	struct sbx_proxy_event ev = {
		.time = "2026-01-02T03:04:05.678Z",
		.client = "127.0.0.1:40000",
		.method = "CONNECT",
		.host = "example.com",
		.port = 443,
		.decision = "allow",
		.rule = "allow *.example.com",
		.status = 200,
		.bytes = 12345,
	};
	char *line = sbx_proxy_log_line(&ev);

	CHECK_STR(line,
		  "{\"time\":\"2026-01-02T03:04:05.678Z\",\"client\":\"127.0.0.1:40000\","
		  "\"method\":\"CONNECT\",\"host\":\"example.com\",\"port\":443,\"decision\":"
		  "\"allow\",\"rule\":\"allow *.example.com\",\"status\":200,\"bytes\":12345}\n");
	free(line);
	ev.method = ev.host = NULL;
	ev.port = 0;
	ev.status = 0;
	ev.decision = "invalid";
	ev.rule = "bare LF \"quoted\"";
	ev.bytes = 0;
	line = sbx_proxy_log_line(&ev);
	CHECK_STR(line, "{\"time\":\"2026-01-02T03:04:05.678Z\",\"client\":\"127.0.0.1:40000\","
			"\"method\":null,\"host\":null,\"port\":null,\"decision\":\"invalid\","
			"\"rule\":\"bare LF \\\"quoted\\\"\",\"status\":null,\"bytes\":0}\n");
	free(line);
	/* An exchange cut short says so after its bytes; a whole one has no such field. */
	ev.method = "GET";
	ev.host = "example.com";
	ev.port = 80;
	ev.decision = "allow";
	ev.rule = "allow example.com";
	ev.status = 200;
	ev.bytes = 65536;
	ev.cut = "upstream";
	line = sbx_proxy_log_line(&ev);
	CHECK_STR(line, "{\"time\":\"2026-01-02T03:04:05.678Z\",\"client\":\"127.0.0.1:40000\","
			"\"method\":\"GET\",\"host\":\"example.com\",\"port\":80,\"decision\":"
			"\"allow\",\"rule\":\"allow example.com\",\"status\":200,\"bytes\":65536,"
			"\"cut\":\"upstream\"}\n");
	free(line);
}
