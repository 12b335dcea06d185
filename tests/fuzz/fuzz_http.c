/* SPDX-License-Identifier: MIT */
/*
 * fuzz_http.c - libFuzzer target for the proxy's parsers. Every input is read as a request
 * head, a response head, a chunked body, a domain pattern and a host, and the results must
 * hold up:
 *   - the head scanner gives the same answer fed in pieces as fed at once;
 *   - a valid request yields a head for the upstream that parses again as the same request
 *     (method, host, port, framing), so nothing the proxy forwards reads differently upstream;
 *   - a valid response yields a head for the client that parses again alike;
 *   - the chunked decoder ends at the same byte whatever the pieces;
 *   - a pattern's normalized text parses to itself, and a host's name to itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_http: %s\n", what);
	abort();
}

/* Scans buf in pieces of step bytes (0: at once); returns the scanner's final answer. */
static int scan(const char *buf, size_t len, bool request, size_t step, size_t *hl, int *status)
{
	struct sbx_http_scan s = {0};
	struct sbx_http_err e = {0};
	size_t n = step ? 0 : len;
	int r;

	*status = 0;
	for (;;) {
		if (step)
			n = n + step < len ? n + step : len;
		r = sbx_http_scan(&s, buf, n, request, hl, &e);
		if (r != 0 || n == len)
			break;
	}
	if (r < 0)
		*status = e.status;
	return r;
}

static void check_request(const char *buf, size_t hl)
{
	struct sbx_http_req r, again;
	struct sbx_http_err e;
	struct sbx_host h;
	const char *why;
	size_t n, hl2;
	int st;
	char *up;

	if (sbx_http_parse_request(buf, hl, 0, &r, &e) < 0) {
		must(e.msg && e.status >= 400 && e.status < 600, "error without a status");
		return;
	}
	must(r.form != SBX_HTTP_ORIGIN, "origin form accepted from a client");
	must(r.port >= 1 && r.port <= 65535, "port out of range");
	must(r.path + r.path_len <= hl, "path outside the head");
	must(sbx_host_parse(r.host.name, strlen(r.host.name), &h, &why) == 0 ||
		     r.host.kind == SBX_HOST_IPV6,
	     "host name does not parse again");
	if (r.host.kind == SBX_HOST_NAME)
		must(strcmp(h.name, r.host.name) == 0, "host name not normalized");
	if (r.is_connect)
		return;
	up = sbx_http_upstream_head(buf, &r, &n);
	must(up != NULL, "no upstream head");
	/* The added Host field may push a head at the limits over them; nothing else may fail. */
	if (scan(up, n, true, 0, &hl2, &st) != 1) {
		must(st == 431 &&
			     (n > SBX_HTTP_MAX_HEAD - 300 || r.n_fields >= SBX_HTTP_MAX_FIELDS),
		     "upstream head does not scan");
		free(up);
		return;
	}
	must(hl2 == n, "upstream head scans short");
	must(sbx_http_parse_request(up, n, SBX_HTTP_ORIGIN_OK, &again, &e) == 0,
	     "upstream head does not parse");
	must(strcmp(again.method, r.method) == 0, "method changed");
	must(again.body == r.body && again.length == r.length, "framing changed upstream");
	free(up);
}

static void check_response(const char *buf, size_t hl, bool head_req)
{
	struct sbx_http_resp r, again;
	struct sbx_http_err e;
	size_t n, hl2;
	int st;
	char *down;

	if (sbx_http_parse_response(buf, hl, head_req, &r, &e) < 0) {
		must(e.status == 502, "response error is not 502");
		return;
	}
	down = sbx_http_client_head(buf, &r, r.body == SBX_BODY_CLOSE, &n);
	must(down != NULL, "no client head");
	if (scan(down, n, false, 0, &hl2, &st) != 1) {
		must(n > SBX_HTTP_MAX_HEAD - 300 || r.n_fields >= SBX_HTTP_MAX_FIELDS,
		     "client head does not scan");
		free(down);
		return;
	}
	must(hl2 == n, "client head scans short");
	must(sbx_http_parse_response(down, n, head_req, &again, &e) == 0,
	     "client head does not parse");
	must(again.status == r.status && again.body == r.body, "framing changed for the client");
	must(r.body != SBX_BODY_LENGTH || again.length == r.length, "length changed");
	free(down);
}

static void check_chunked(const char *buf, size_t len, size_t step)
{
	struct sbx_http_chunked a = {0}, b = {0};
	struct sbx_http_err e;
	size_t used_a = 0, off = 0, used;
	int ra = sbx_http_chunked_feed(&a, buf, len, &used_a, &e), rb = 0;

	while (off < len) {
		size_t n = len - off < step ? len - off : step;

		rb = sbx_http_chunked_feed(&b, buf + off, n, &used, &e);
		if (rb != 0)
			break;
		off += used;
	}
	must(ra == rb, "chunked outcome depends on the pieces");
	if (ra == 1)
		must(off + used == used_a && used_a <= len, "chunked end depends on the pieces");
}

static void check_pattern(const char *s)
{
	struct sbx_domain_pattern p, q;
	struct sbx_diag d;

	if (sbx_domain_pattern_parse(s, &p, &d) < 0)
		return;
	must(sbx_domain_pattern_parse(p.text, &q, &d) == 0, "normalized pattern refused");
	must(strcmp(p.text, q.text) == 0, "pattern normalization not stable");
	must(sbx_domain_pattern_match(&p, &p.host, p.port ? p.port : 1) ==
		     (p.kind != SBX_DOMAIN_SUBDOMAINS),
	     "pattern and its own host disagree");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	size_t step = size ? (size_t)data[0] % 7 + 1 : 1, hl = 0, hl2 = 0;
	int r, r2, st, st2;
	char *str;

	/* Requests. */
	r = scan(buf, size, true, 0, &hl, &st);
	r2 = scan(buf, size, true, step, &hl2, &st2);
	must(r == r2 && (r != 1 || hl == hl2) && st == st2, "scan depends on the pieces");
	if (r == 1)
		check_request(buf, hl);
	/* Responses. */
	r = scan(buf, size, false, 0, &hl, &st);
	r2 = scan(buf, size, false, step, &hl2, &st2);
	must(r == r2 && (r != 1 || hl == hl2), "response scan depends on the pieces");
	if (r == 1) {
		check_response(buf, hl, false);
		check_response(buf, hl, true);
	}
	check_chunked(buf, size, step);
	/* Patterns, hosts and listen addresses are C strings. */
	str = malloc(size + 1);
	if (!str)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	check_pattern(str);
	{
		struct sbx_host h, h2;
		struct sbx_listen_addr la;
		struct sbx_diag d;
		const char *why;

		if (sbx_host_parse(str, strlen(str), &h, &why) == 0 && h.kind == SBX_HOST_NAME)
			must(sbx_host_parse(h.name, strlen(h.name), &h2, &why) == 0 &&
				     strcmp(h.name, h2.name) == 0,
			     "host normalization not stable");
		sbx_listen_addr_parse(str, &la, &d);
	}
	free(str);
	return 0;
}
