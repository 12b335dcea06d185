/* SPDX-License-Identifier: MIT */
/*
 * http.c - HTTP/1.1 message heads and body framing as the proxy needs them (RFC 9110, 9112).
 *
 * A proxy sits between two parsers, the client's and the upstream server's, and every place where
 * it reads a message differently from one of them is a way to smuggle a request past its
 * decision. So where the RFCs allow leniency this parser refuses instead: bare CR or LF line
 * ends, folded header lines, whitespace before a field's colon, control characters in values,
 * Content-Length beside Transfer-Encoding, repeated or listed lengths, codings it cannot frame.
 * The proxy decides on one request at a time and forwards exactly the bytes it framed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "net.h"

static int http_error(struct sbx_http_err *e, int status, const char *msg)
{
	e->status = status;
	e->msg = msg;
	return -1;
}

static bool is_tchar(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* HTAB, SP, visible ASCII and obs-text: what a field value, a reason phrase or an extension holds. */
static bool is_field_char(unsigned char c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

static bool ieq(const char *a, size_t n, const char *b)
{
	return strlen(b) == n && strncasecmp(a, b, n) == 0;
}

int sbx_http_scan(struct sbx_http_scan *s, const char *buf, size_t len, bool request,
		  size_t *head_len, struct sbx_http_err *e)
{
	int bad = request ? 400 : 502;

	for (; s->pos < len; s->pos++) {
		char c = buf[s->pos];

		if (c == '\r') {
			if (s->pos + 1 >= len)
				return 0; /* look at this CR again once its successor is here */
			if (buf[s->pos + 1] != '\n')
				return http_error(e, bad, "bare CR in the message head");
			continue;
		}
		if (c == '\n') {
			if (s->pos == 0 || buf[s->pos - 1] != '\r')
				return http_error(
					e, bad, "bare LF in the message head (lines end in CRLF)");
			if (s->pos - 1 == s->line_start) {
				if (s->lines > 0) {
					*head_len = ++s->pos;
					return 1;
				}
				/* An empty line before the request line, as after a body's CRLF. */
				if (!request || ++s->lead > SBX_HTTP_MAX_LEAD_CRLF)
					return http_error(e, bad, "empty lines before the message");
			} else if (++s->lines > SBX_HTTP_MAX_FIELDS + 1) {
				return http_error(e, request ? 431 : 502,
						  "more than 100 header fields");
			}
			s->line_start = s->pos + 1;
			continue;
		}
		if (s->pos - s->line_start >= SBX_HTTP_MAX_LINE) {
			if (s->lines == 0)
				return http_error(e, request ? 414 : 502,
						  "request line longer than 8192 bytes");
			return http_error(e, request ? 431 : 502,
					  "header field line longer than 8192 bytes");
		}
		if (s->pos >= SBX_HTTP_MAX_HEAD)
			return http_error(e, request ? 431 : 502,
					  "message head larger than 65536 bytes");
	}
	return 0;
}

/* ---- header fields, shared by requests and responses ---------------------------------------- */

/* What a request and a response have in common: the fields that frame the body. */
struct framing {
	int content_lengths, transfer_encodings, hosts;
	uint64_t length;
	bool chunked; /* the last coding is chunked */
	bool conn_close, conn_keep_alive;
	size_t host, host_len; /* the Host field's value */
};

/* Calls fn(token, len, arg) for each element of a comma-separated list; stops at a non-zero. */
static int each_token(const char *v, size_t n, int (*fn)(const char *, size_t, void *), void *arg)
{
	size_t i = 0;

	while (i <= n) {
		size_t start, end;
		int r;

		while (i < n && (v[i] == ' ' || v[i] == '\t'))
			i++;
		start = i;
		while (i < n && v[i] != ',')
			i++;
		end = i;
		while (end > start && (v[end - 1] == ' ' || v[end - 1] == '\t'))
			end--;
		if (end > start && (r = fn(v + start, end - start, arg)))
			return r;
		i++;
	}
	return 0;
}

static int connection_token(const char *t, size_t n, void *arg)
{
	struct framing *f = arg;

	if (ieq(t, n, "close"))
		f->conn_close = true;
	else if (ieq(t, n, "keep-alive"))
		f->conn_keep_alive = true;
	/* Naming a framing field as hop-by-hop would make a proxy drop it and desynchronize. */
	else if (ieq(t, n, "content-length") || ieq(t, n, "transfer-encoding") || ieq(t, n, "host"))
		return 1;
	return 0;
}

struct te_state {
	bool chunked, after_chunked;
	unsigned count;
};

static int te_token(const char *t, size_t n, void *arg)
{
	struct te_state *s = arg;

	s->count++;
	if (s->chunked)
		s->after_chunked = true;
	if (ieq(t, n, "chunked"))
		s->chunked = true;
	return 0;
}

static bool parse_length(const char *v, size_t n, uint64_t *out)
{
	uint64_t x = 0;

	/* 18 digits keep every value below 2^63: no overflow to check. */
	if (n == 0 || n > 18)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return false;
		x = x * 10 + (uint64_t)(v[i] - '0');
	}
	*out = x;
	return true;
}

/*
 * Parses the field lines from p to the end of the head, filling fields and f. For requests, a
 * Transfer-Encoding other than exactly "chunked" is refused (501); for responses any list whose
 * last coding is chunked is framed as chunked, and any other list as close-delimited.
 */
static int parse_fields(const char *buf, size_t p, size_t head_len, bool request,
			struct sbx_http_field *fields, size_t *n_fields, struct framing *f,
			struct sbx_http_err *e)
{
	int bad = request ? 400 : 502;
	struct te_state te = {0};

	memset(f, 0, sizeof(*f));
	*n_fields = 0;
	while (p + 2 < head_len) {
		const char *line = buf + p, *eol = memchr(line, '\r', head_len - p);
		size_t n, name_len = 0, v, vend;
		struct sbx_http_field *fl;

		if (!eol)
			return http_error(e, bad, "incomplete message head");
		n = (size_t)(eol - line);
		if (line[0] == ' ' || line[0] == '\t')
			return http_error(e, bad, "folded header line (obs-fold)");
		while (name_len < n && is_tchar((unsigned char)line[name_len]))
			name_len++;
		if (name_len == n || line[name_len] != ':') {
			if (name_len < n && (line[name_len] == ' ' || line[name_len] == '\t'))
				return http_error(e, bad,
						  "whitespace between a field name and its colon");
			return http_error(e, bad, "malformed header field");
		}
		if (name_len == 0)
			return http_error(e, bad, "empty header field name");
		v = name_len + 1;
		while (v < n && (line[v] == ' ' || line[v] == '\t'))
			v++;
		vend = n;
		while (vend > v && (line[vend - 1] == ' ' || line[vend - 1] == '\t'))
			vend--;
		for (size_t i = v; i < vend; i++)
			if (!is_field_char((unsigned char)line[i]))
				return http_error(e, bad,
						  "control character in a header field value");
		if (*n_fields == SBX_HTTP_MAX_FIELDS)
			return http_error(e, request ? 431 : 502, "more than 100 header fields");
		fl = &fields[(*n_fields)++];
		fl->name = (uint32_t)p;
		fl->name_len = (uint32_t)name_len;
		fl->value = (uint32_t)(p + v);
		fl->value_len = (uint32_t)(vend - v);

		if (ieq(line, name_len, "content-length")) {
			uint64_t len;

			if (!parse_length(line + v, vend - v, &len))
				return http_error(e, bad, "invalid Content-Length");
			if (f->content_lengths++ && len != f->length)
				return http_error(e, bad, "conflicting Content-Length fields");
			if (request && f->content_lengths > 1)
				return http_error(e, bad, "more than one Content-Length field");
			f->length = len;
		} else if (ieq(line, name_len, "transfer-encoding")) {
			f->transfer_encodings++;
			each_token(line + v, vend - v, te_token, &te);
			if (request && (f->transfer_encodings > 1 || te.count != 1 || !te.chunked))
				return http_error(e, 501,
						  "only Transfer-Encoding: chunked is supported");
		} else if (ieq(line, name_len, "connection")) {
			if (each_token(line + v, vend - v, connection_token, f))
				return http_error(
					e, bad, "Connection names a field that frames the message");
		} else if (ieq(line, name_len, "host")) {
			f->hosts++;
			f->host = p + v;
			f->host_len = vend - v;
		}
		p += n + 2;
	}
	if (f->transfer_encodings) {
		if (te.count == 0 || te.after_chunked)
			return http_error(e, bad, "chunked is not the last transfer coding");
		f->chunked = te.chunked;
	}
	if (f->transfer_encodings && f->content_lengths && request)
		return http_error(e, bad, "both Content-Length and Transfer-Encoding");
	return 0;
}

/* ---- requests ------------------------------------------------------------------------------- */

/* Splits host[:port] and parses both; port 0 when absent. */
static int parse_authority(const char *s, size_t n, struct sbx_host *h, unsigned *port,
			   bool port_required)
{
	const char *why;
	size_t host_len = n;
	unsigned v = 0;

	*port = 0;
	if (n && s[0] == '[') {
		const char *end = memchr(s, ']', n);

		if (!end)
			return -1;
		host_len = (size_t)(end - s) + 1;
	} else {
		const char *colon = memchr(s, ':', n);

		if (colon)
			host_len = (size_t)(colon - s);
	}
	if (host_len < n) {
		size_t i = host_len + 1;

		if (s[host_len] != ':' || i == n || n - i > 5 || (s[i] == '0' && n - i > 1))
			return -1;
		for (; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return -1;
			v = v * 10 + (unsigned)(s[i] - '0');
		}
		if (v == 0 || v > 65535)
			return -1;
		*port = v;
	} else if (port_required) {
		return -1;
	}
	return sbx_host_parse(s, host_len, h, &why) < 0 ? -1 : 0;
}

static int parse_target(const char *t, size_t n, unsigned flags, struct sbx_http_req *r,
			const char *buf, struct sbx_http_err *e)
{
	size_t i, auth_end;

	if (memchr(t, '#', n))
		return http_error(e, 400, "fragment in the request target");
	if (r->is_connect) {
		r->form = SBX_HTTP_AUTHORITY;
		if (parse_authority(t, n, &r->host, &r->port, true) < 0)
			return http_error(e, 400,
					  "CONNECT needs host:port with a valid host and port");
		return 0;
	}
	if (t[0] == '/' && (flags & SBX_HTTP_ORIGIN_OK)) {
		r->form = SBX_HTTP_ORIGIN;
		r->path = (size_t)(t - buf);
		r->path_len = n;
		return 0;
	}
	for (i = 0; i < n && t[i] != ':' && t[i] != '/'; i++)
		;
	if (i + 3 > n || t[i] != ':' || t[i + 1] != '/' || t[i + 2] != '/')
		return http_error(
			e, 400,
			"not a proxy request: the target must be an absolute http:// URI, or "
			"CONNECT host:port");
	if (ieq(t, i, "https"))
		return http_error(e, 400,
				  "https:// targets are not proxied: clients tunnel them with "
				  "CONNECT");
	if (!ieq(t, i, "http"))
		return http_error(e, 400, "unsupported URI scheme (only http://, and CONNECT)");
	t += i + 3;
	n -= i + 3;
	for (auth_end = 0; auth_end < n && t[auth_end] != '/' && t[auth_end] != '?'; auth_end++)
		;
	if (memchr(t, '@', auth_end))
		return http_error(e, 400, "user information in the request target is refused");
	if (parse_authority(t, auth_end, &r->host, &r->port, false) < 0)
		return http_error(e, 400, "invalid host or port in the request target");
	if (!r->port)
		r->port = 80;
	r->form = SBX_HTTP_ABSOLUTE;
	r->path = (size_t)(t + auth_end - buf);
	r->path_len = n - auth_end;
	return 0;
}

int sbx_http_parse_request(const char *buf, size_t head_len, unsigned flags, struct sbx_http_req *r,
			   struct sbx_http_err *e)
{
	const char *line, *eol, *sp1, *sp2, *ver;
	size_t p = 0, mlen, tlen;
	struct framing f;
	struct sbx_host hh;
	unsigned hport;

	memset(r, 0, sizeof(*r));
	r->head_len = head_len;
	while (p + 1 < head_len && buf[p] == '\r' && buf[p + 1] == '\n')
		p += 2;
	r->line = p;
	line = buf + p;
	eol = memchr(line, '\r', head_len - p);
	if (!eol)
		return http_error(e, 400, "incomplete request head");
	sp1 = memchr(line, ' ', (size_t)(eol - line));
	if (!sp1)
		return http_error(e, 400, "malformed request line");
	mlen = (size_t)(sp1 - line);
	if (mlen == 0 || mlen > SBX_HTTP_MAX_METHOD)
		return http_error(e, 400, "malformed request line");
	for (size_t i = 0; i < mlen; i++)
		if (!is_tchar((unsigned char)line[i]))
			return http_error(e, 400, "invalid method");
	memcpy(r->method, line, mlen);
	r->method[mlen] = '\0';
	r->is_connect = strcmp(r->method, "CONNECT") == 0;
	r->is_head = strcmp(r->method, "HEAD") == 0;
	sp2 = memchr(sp1 + 1, ' ', (size_t)(eol - sp1 - 1));
	if (!sp2 || sp2 == sp1 + 1)
		return http_error(e, 400, "malformed request line");
	tlen = (size_t)(sp2 - sp1 - 1);
	for (size_t i = 0; i < tlen; i++)
		if ((unsigned char)sp1[1 + i] <= 0x20 || (unsigned char)sp1[1 + i] >= 0x7f)
			return http_error(e, 400, "invalid character in the request target");
	ver = sp2 + 1;
	if (eol - ver != 8 || strncmp(ver, "HTTP/", 5) != 0 || ver[6] != '.' || ver[5] < '0' ||
	    ver[5] > '9' || ver[7] < '0' || ver[7] > '9')
		return http_error(e, 400, "malformed request line");
	if (ver[5] != '1' || ver[7] > '1')
		return http_error(e, 505, "HTTP version not supported (HTTP/1.0 and HTTP/1.1 are)");
	r->minor = ver[7] - '0';
	if (parse_target(sp1 + 1, tlen, flags, r, buf, e) < 0)
		return -1;
	if (parse_fields(buf, (size_t)(eol - buf) + 2, head_len, true, r->fields, &r->n_fields, &f,
			 e) < 0)
		return -1;
	if (f.hosts > 1)
		return http_error(e, 400, "more than one Host field");
	if (f.hosts == 1 && parse_authority(buf + f.host, f.host_len, &hh, &hport, false) < 0)
		return http_error(e, 400, "invalid Host field");
	/*
	 * RFC 9112 3.2: an HTTP/1.1 request names its Host. CONNECT is let off: some clients
	 * (Python's http.client before 3.12) send a bare CONNECT, whose target says it all.
	 */
	if (r->minor == 1 && f.hosts == 0 && !r->is_connect)
		return http_error(e, 400, "HTTP/1.1 request without a Host field");
	if (f.transfer_encodings && r->minor == 0)
		return http_error(e, 400, "Transfer-Encoding in an HTTP/1.0 request");
	if (r->is_connect && (f.transfer_encodings || f.length > 0))
		return http_error(e, 400, "a CONNECT request has no body");
	if (f.chunked) {
		r->body = SBX_BODY_CHUNKED;
	} else if (f.content_lengths && f.length > 0) {
		r->body = SBX_BODY_LENGTH;
		r->length = f.length;
	}
	r->close = r->minor == 0 || f.conn_close;
	return 0;
}

/* ---- responses ------------------------------------------------------------------------------ */

int sbx_http_parse_response(const char *buf, size_t head_len, bool req_method_head,
			    struct sbx_http_resp *r, struct sbx_http_err *e)
{
	const char *eol = memchr(buf, '\r', head_len);
	struct framing f;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->head_len = head_len;
	if (!eol)
		return http_error(e, 502, "incomplete response head");
	n = (size_t)(eol - buf);
	if (n < 12 || strncmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ' || buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' ||
	    buf[11] < '0' || buf[11] > '9' || (n > 12 && buf[12] != ' '))
		return http_error(e, 502, "malformed status line from the upstream server");
	r->minor = buf[7] - '0';
	r->status = (buf[9] - '0') * 100 + (buf[10] - '0') * 10 + (buf[11] - '0');
	r->reason = n > 12 ? 13 : 12;
	r->reason_len = n - r->reason;
	for (size_t i = 0; i < r->reason_len; i++)
		if (!is_field_char((unsigned char)buf[r->reason + i]))
			return http_error(e, 502, "control character in the status line");
	if (parse_fields(buf, n + 2, head_len, false, r->fields, &r->n_fields, &f, e) < 0)
		return -1;
	if (f.transfer_encodings && r->minor == 0)
		return http_error(e, 502, "Transfer-Encoding in an HTTP/1.0 response");
	r->close = f.conn_close || (r->minor == 0 && !f.conn_keep_alive);
	/* RFC 9112 6.3, in its order. */
	if (req_method_head || r->status < 200 || r->status == 204 || r->status == 304) {
		r->body = SBX_BODY_NONE;
	} else if (f.transfer_encodings) {
		r->body = f.chunked ? SBX_BODY_CHUNKED : SBX_BODY_CLOSE;
	} else if (f.content_lengths) {
		r->body = f.length ? SBX_BODY_LENGTH : SBX_BODY_NONE;
		r->length = f.length;
	} else {
		r->body = SBX_BODY_CLOSE;
	}
	return 0;
}

/* ---- the heads the proxy writes ------------------------------------------------------------- */

struct named {
	const char *name;
	size_t len;
	bool found;
};

static int names_token(const char *t, size_t n, void *arg)
{
	struct named *x = arg;

	if (n == x->len && strncasecmp(t, x->name, n) == 0)
		x->found = true;
	return x->found;
}

/* Whether a field must not pass the proxy: hop-by-hop by name, or named by a Connection field. */
static bool hop_by_hop(const char *buf, const struct sbx_http_field *fields, size_t n_fields,
		       const struct sbx_http_field *fl)
{
	static const char *const fixed[] = {"connection",	   "keep-alive", "proxy-connection",
					    "proxy-authorization", "te",	 "upgrade"};
	const char *name = buf + fl->name;
	struct named x = {name, fl->name_len, false};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (ieq(name, fl->name_len, fixed[i]))
			return true;
	for (size_t i = 0; i < n_fields && !x.found; i++)
		if (ieq(buf + fields[i].name, fields[i].name_len, "connection"))
			each_token(buf + fields[i].value, fields[i].value_len, names_token, &x);
	return x.found;
}

static void put_field(struct sbx_strbuf *o, const char *buf, const struct sbx_http_field *fl)
{
	sbx_strbuf_put(o, buf + fl->name, fl->name_len);
	sbx_strbuf_put(o, ": ", 2);
	sbx_strbuf_put(o, buf + fl->value, fl->value_len);
	sbx_strbuf_put(o, "\r\n", 2);
}

char *sbx_http_upstream_head(const char *buf, const struct sbx_http_req *r, size_t *len)
{
	struct sbx_strbuf o = {0};
	char auth[SBX_AUTHORITY_MAX], port[8];
	const char *path = buf + r->path;

	sbx_strbuf_puts(&o, r->method);
	sbx_strbuf_put(&o, " ", 1);
	if (r->path_len == 0 || path[0] == '?')
		sbx_strbuf_put(&o, "/", 1);
	sbx_strbuf_put(&o, path, r->path_len);
	sbx_strbuf_puts(&o, r->minor ? " HTTP/1.1\r\n" : " HTTP/1.0\r\n");
	for (size_t i = 0; i < r->n_fields; i++) {
		const struct sbx_http_field *fl = &r->fields[i];

		if (ieq(buf + fl->name, fl->name_len, "host") ||
		    hop_by_hop(buf, r->fields, r->n_fields, fl))
			continue;
		put_field(&o, buf, fl);
	}
	sbx_host_authority(&r->host, auth, sizeof(auth));
	sbx_strbuf_puts(&o, "Host: ");
	sbx_strbuf_puts(&o, auth);
	if (r->port != 80) {
		snprintf(port, sizeof(port), ":%u", r->port);
		sbx_strbuf_puts(&o, port);
	}
	sbx_strbuf_puts(&o, "\r\n\r\n");
	return sbx_strbuf_finish(&o, len);
}

char *sbx_http_client_head(const char *buf, const struct sbx_http_resp *r, bool close, size_t *len)
{
	struct sbx_strbuf o = {0};
	char line[32];

	snprintf(line, sizeof(line), "HTTP/1.1 %03d ", r->status);
	sbx_strbuf_puts(&o, line);
	if (r->reason_len)
		sbx_strbuf_put(&o, buf + r->reason, r->reason_len);
	else
		sbx_strbuf_puts(&o, sbx_http_reason(r->status));
	sbx_strbuf_put(&o, "\r\n", 2);
	for (size_t i = 0; i < r->n_fields; i++) {
		const struct sbx_http_field *fl = &r->fields[i];

		if (hop_by_hop(buf, r->fields, r->n_fields, fl))
			continue;
		/*
		 * RFC 9112 6.3: beside Transfer-Encoding a length means nothing and must not be
		 * passed on (a chunked or close-delimited body with a length is only that).
		 */
		if ((r->body == SBX_BODY_CHUNKED || r->body == SBX_BODY_CLOSE) &&
		    ieq(buf + fl->name, fl->name_len, "content-length"))
			continue;
		put_field(&o, buf, fl);
	}
	if (close)
		sbx_strbuf_puts(&o, "Connection: close\r\n");
	sbx_strbuf_put(&o, "\r\n", 2);
	return sbx_strbuf_finish(&o, len);
}

const char *sbx_http_reason(int status)
{
	switch (status) {
	case 100:
		return "Continue";
	case 200:
		return "OK";
	case 400:
		return "Bad Request";
	case 403:
		return "Forbidden";
	case 408:
		return "Request Timeout";
	case 414:
		return "URI Too Long";
	case 431:
		return "Request Header Fields Too Large";
	case 501:
		return "Not Implemented";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	case 505:
		return "HTTP Version Not Supported";
	}
	return "";
}

/* ---- chunked bodies ------------------------------------------------------------------------- */

enum {
	CH_SIZE = 0,  /* the first hex digit of a chunk size */
	CH_SIZE_MORE, /* more digits, or the end of the size */
	CH_SIZE_WS,   /* whitespace after the size: only before an extension (BWS ";") */
	CH_EXT,	      /* chunk extensions, up to CR */
	CH_SIZE_LF,   /* LF after the size line */
	CH_DATA,      /* chunk data */
	CH_DATA_CR,   /* CRLF after the data */
	CH_DATA_LF,
	CH_TRAILER, /* the start of a trailer line, or the final CRLF */
	CH_TRAILER_NAME,
	CH_TRAILER_VALUE,
	CH_TRAILER_LF,
	CH_END_LF,
};

int sbx_http_chunked_feed(struct sbx_http_chunked *c, const char *buf, size_t len, size_t *used,
			  struct sbx_http_err *e)
{
	size_t i = 0;

	while (i < len) {
		unsigned char ch = (unsigned char)buf[i];
		int h;

		if (c->state == CH_DATA) {
			size_t take = c->left < len - i ? (size_t)c->left : len - i;

			i += take;
			c->left -= take;
			if (!c->left)
				c->state = CH_DATA_CR;
			continue;
		}
		i++;
		if (c->state <= CH_EXT && ++c->line > SBX_HTTP_MAX_CHUNK_LINE)
			return http_error(e, 400, "chunk size line too long");
		if (c->state >= CH_TRAILER && c->state <= CH_TRAILER_LF &&
		    ++c->trailers > SBX_HTTP_MAX_TRAILERS)
			return http_error(e, 400, "chunked trailers too large");
		switch (c->state) {
		case CH_SIZE:
		case CH_SIZE_MORE:
			h = sbx_hex_digit(ch);
			if (h >= 0) {
				if (++c->digits > 16)
					return http_error(e, 400, "chunk size too large");
				c->left = c->left * 16 + (uint64_t)h;
				c->state = CH_SIZE_MORE;
			} else if (c->state == CH_SIZE) {
				return http_error(e, 400, "malformed chunk size");
			} else if (ch == ';') {
				c->state = CH_EXT;
			} else if (ch == ' ' || ch == '\t') {
				c->state = CH_SIZE_WS;
			} else if (ch == '\r') {
				c->state = CH_SIZE_LF;
			} else {
				return http_error(e, 400, "malformed chunk size");
			}
			break;
		case CH_SIZE_WS:
			if (ch == ';')
				c->state = CH_EXT;
			else if (ch != ' ' && ch != '\t')
				return http_error(e, 400, "malformed chunk size");
			break;
		case CH_EXT:
			if (ch == '\r')
				c->state = CH_SIZE_LF;
			else if (!is_field_char(ch))
				return http_error(e, 400, "control character in a chunk extension");
			break;
		case CH_SIZE_LF:
			if (ch != '\n')
				return http_error(e, 400, "bare CR in a chunk size line");
			c->line = 0;
			c->digits = 0;
			c->state = c->left ? CH_DATA : CH_TRAILER;
			break;
		case CH_DATA_CR:
			if (ch != '\r')
				return http_error(e, 400, "chunk data longer than its size");
			c->state = CH_DATA_LF;
			break;
		case CH_DATA_LF:
			if (ch != '\n')
				return http_error(e, 400, "bare CR after chunk data");
			c->state = CH_SIZE;
			break;
		case CH_TRAILER:
			if (ch == '\r')
				c->state = CH_END_LF;
			else if (is_tchar(ch))
				c->state = CH_TRAILER_NAME;
			else
				return http_error(e, 400, "malformed trailer field");
			break;
		case CH_TRAILER_NAME:
			if (ch == ':')
				c->state = CH_TRAILER_VALUE;
			else if (!is_tchar(ch))
				return http_error(e, 400, "malformed trailer field");
			break;
		case CH_TRAILER_VALUE:
			if (ch == '\r')
				c->state = CH_TRAILER_LF;
			else if (!is_field_char(ch))
				return http_error(e, 400, "control character in a trailer field");
			break;
		case CH_TRAILER_LF:
			if (ch != '\n')
				return http_error(e, 400, "bare CR in a trailer field");
			c->state = CH_TRAILER;
			break;
		case CH_END_LF:
			if (ch != '\n')
				return http_error(e, 400, "bare CR at the end of a chunked body");
			*used = i;
			return 1;
		}
	}
	*used = len;
	return 0;
}
