/* SPDX-License-Identifier: MIT */
/*
 * net.h - the pure parts of the domain-filtering proxy: host names and domain patterns, the
 * allow/deny decision, address classes, HTTP/1.1 message heads and body framing, the listen
 * address and the decision log line.
 *
 * As everywhere in lib/: no I/O, no printing, no exiting. The event loop and the sockets live in
 * platform/unix/proxy.c.
 */
#ifndef SBX_NET_H
#define SBX_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx.h"

/* ---- hosts and domain patterns (domain.c) ------------------------------------------------ */

/* RFC 1035: a name is at most 253 characters without its trailing dot, a label at most 63. */
#define SBX_HOST_MAX  253
#define SBX_LABEL_MAX 63
/* Enough for the longest host, brackets, a colon and a port, and the NUL. */
#define SBX_AUTHORITY_MAX (SBX_HOST_MAX + 2 + 6 + 1)

enum sbx_host_kind { SBX_HOST_NAME = 0, SBX_HOST_IPV4, SBX_HOST_IPV6 };

/*
 * A host as the proxy compares and reports it. Names are lower case, without a trailing dot;
 * IP literals keep their text (IPv6 without brackets) and carry their address, which is what
 * two literals are compared by.
 */
struct sbx_host {
	enum sbx_host_kind kind;
	char name[SBX_HOST_MAX + 1];
	unsigned char addr[16]; /* IPV4: the first 4 bytes; IPV6: all 16 */
};

/*
 * Parses the host of a request or a pattern: a DNS name (letters, digits, '-' and '_' in labels
 * of 1 to 63 characters, at most one trailing dot, any case), a dotted-quad IPv4 address in its
 * one canonical spelling, or a bracketed IPv6 address without a zone. Refused, each with the
 * reason in *why: non-ASCII (IDNA names must arrive as their xn-- form), percent-encoding,
 * empty labels, and a last label starting with a digit that is not a canonical IPv4 address
 * (127.1, 0x7f.0.0.1 or 2130706433 would reach an address the pattern never named, because the
 * resolver reads them as numbers). len is the length of s (no NUL needed).
 */
int sbx_host_parse(const char *s, size_t len, struct sbx_host *h, const char **why);
/* "name", "1.2.3.4" or "[::1]": the host as it appears in an authority. */
void sbx_host_authority(const struct sbx_host *h, char *buf, size_t n);
/* localhost or a name under .localhost (RFC 6761): names that must mean the loopback. */
bool sbx_host_is_localhost(const struct sbx_host *h);

enum sbx_domain_kind {
	SBX_DOMAIN_EXACT = 0,	  /* example.com: that host only */
	SBX_DOMAIN_SUBDOMAINS,	  /* *.example.com: names below it, not example.com itself */
	SBX_DOMAIN_APEX_AND_SUBS, /* **.example.com: example.com and every name below it */
};

struct sbx_domain_pattern {
	enum sbx_domain_kind kind;
	struct sbx_host host; /* the exact host, or the domain below the wildcard */
	unsigned port;	      /* 0: any port */
	char text[SBX_AUTHORITY_MAX +
		  3]; /* normalized, as messages quote it: "*.example.com:443" */
};

/*
 * Parses a pattern: HOST, *.DOMAIN or **.DOMAIN, each optionally followed by :PORT (1-65535,
 * no leading zero). A wildcard is a whole leftmost label and covers names only, never IP
 * literals; "*" alone is refused (allowing every host is what an enabled network is for).
 */
int sbx_domain_pattern_parse(const char *s, struct sbx_domain_pattern *p, struct sbx_diag *d);
bool sbx_domain_pattern_match(const struct sbx_domain_pattern *p, const struct sbx_host *h,
			      unsigned port);

/* The allow and deny lists of one proxy. */
struct sbx_domain_policy {
	struct sbx_domain_pattern *allow, *deny;
	size_t n_allow, n_deny;
};

/* Parses pattern and appends it to the allow or the deny list. */
int sbx_domain_policy_add(struct sbx_domain_policy *pol, bool deny, const char *pattern,
			  struct sbx_diag *d);
void sbx_domain_policy_free(struct sbx_domain_policy *pol);

enum sbx_net_verdict {
	SBX_NET_ALLOW = 0,   /* an allow entry matches and no deny entry does */
	SBX_NET_DENY_LISTED, /* a deny entry matches (deny wins over allow) */
	SBX_NET_NOT_ALLOWED, /* no allow entry matches */
};

struct sbx_net_decision {
	enum sbx_net_verdict verdict;
	const struct sbx_domain_pattern *rule; /* the deciding entry; NULL for NOT_ALLOWED */
};

void sbx_domain_policy_decide(const struct sbx_domain_policy *pol, const struct sbx_host *h,
			      unsigned port, struct sbx_net_decision *out);
/*
 * The deny entry naming an address (an IP pattern, of that port or of every port) that a
 * connection to addr (len 4 or 16) on port would reach, or NULL. Deny wins over the name that
 * led there too: an allowed name whose answer is a denied address, or an IPv6 literal with a
 * denied IPv4 address inside, is that address. Both sides are compared by the IPv4 address
 * inside an IPv4-mapped, NAT64 or 6to4 one, as sbx_addr_class judges them.
 */
const struct sbx_domain_pattern *sbx_domain_policy_denies_addr(const struct sbx_domain_policy *pol,
							       const unsigned char *addr,
							       size_t len, unsigned port);

/*
 * NULL for an address anyone may reach, or the name of its class: "loopback", "private",
 * "link-local", "unspecified", "multicast", "shared (CGNAT)", "reserved", "documentation",
 * "unique-local", "benchmarking"... IPv4-mapped, NAT64 and 6to4 IPv6 addresses are classed by
 * the IPv4 address inside. len is 4 or 16.
 */
const char *sbx_addr_class(const unsigned char *addr, size_t len);
/*
 * Whether a connection to addr (len 4 or 16) reaches the interface address ifaddr (iflen 4 or
 * 16): the same address, or an IPv4-mapped one (::ffff:a.b.c.d, which an IPv6 socket connects
 * to as a.b.c.d) of an IPv4 interface address.
 */
bool sbx_addr_reaches(const unsigned char *addr, size_t len, const unsigned char *ifaddr,
		      size_t iflen);
/*
 * An address's text, n bytes of s (no brackets), into out; false for anything else. IPv4: a
 * dotted quad in its one canonical spelling, four decimal numbers 0-255 without leading zeros
 * (127.1 and 0177.0.0.1 are refused: resolvers read them as other addresses than they seem to
 * name). IPv6: RFC 4291 2.2 text, one "::" at most, an optional dotted-quad tail, no zone.
 */
bool sbx_ipv4_parse(const char *s, size_t n, unsigned char out[4]);
bool sbx_ipv6_parse(const char *s, size_t n, unsigned char out[16]);
/* Text of an address (no brackets); buf of at least 46 bytes. */
void sbx_addr_format(const unsigned char *addr, size_t len, char *buf, size_t n);

/* ---- the listen address (domain.c) ------------------------------------------------------- */

enum sbx_listen_kind { SBX_LISTEN_TCP4 = 0, SBX_LISTEN_TCP6, SBX_LISTEN_UNIX };

struct sbx_listen_addr {
	enum sbx_listen_kind kind;
	unsigned char addr[16];
	unsigned port; /* 0: the system picks one */
	char path[SBX_MAX_PATH];
};

/*
 * 127.0.0.1:PORT (any 127/8 address), localhost:PORT, [::1]:PORT or unix:PATH. Other addresses
 * are refused: a proxy reachable from the network would lend the allow list to anyone there.
 */
int sbx_listen_addr_parse(const char *s, struct sbx_listen_addr *a, struct sbx_diag *d);

/* ---- HTTP/1.1 message heads and framing (http.c) ----------------------------------------- */

/*
 * Limits, each with its reason. Common servers and proxies accept 8 KiB lines and 64 KiB heads,
 * and clients stay well below: a larger head is an attack or a bug, and the head must fit in the
 * connection's buffer to be parsed at once.
 */
#define SBX_HTTP_MAX_HEAD	65536
#define SBX_HTTP_MAX_LINE	8192
#define SBX_HTTP_MAX_FIELDS	100
#define SBX_HTTP_MAX_METHOD	32    /* the longest registered method is 17 characters */
#define SBX_HTTP_MAX_LEAD_CRLF	8     /* empty lines tolerated before a request (RFC 9112 2.2) */
#define SBX_HTTP_MAX_CHUNK_LINE 4096  /* a chunk-size line with its extensions */
#define SBX_HTTP_MAX_TRAILERS	16384 /* all trailer fields of a chunked body */

/* What went wrong, for the proxy's own response: the status and a one-line reason. */
struct sbx_http_err {
	int status;	 /* 400, 408, 414, 431, 501, 505 for requests; 502 for responses */
	const char *msg; /* static text */
};

/*
 * Finds the end of a message head, resuming where the last call stopped (buf may only grow
 * between calls, and must keep its earlier bytes): each byte is looked at once however the head
 * arrives. Rejects bare CR and bare LF line ends, over-long lines, too many fields and heads over
 * SBX_HTTP_MAX_HEAD as soon as they show. Returns 1 with *head_len when the head is complete, 0
 * when more bytes are needed, -1 with *e filled otherwise.
 */
struct sbx_http_scan {
	size_t pos, line_start;
	unsigned lines, lead;
};
int sbx_http_scan(struct sbx_http_scan *s, const char *buf, size_t len, bool request,
		  size_t *head_len, struct sbx_http_err *e);

/* One header field: offsets and lengths into the head (value without surrounding spaces). */
struct sbx_http_field {
	uint32_t name, name_len, value, value_len;
};

enum sbx_http_form {
	SBX_HTTP_ABSOLUTE = 0, /* GET http://host/path HTTP/1.1 */
	SBX_HTTP_AUTHORITY,    /* CONNECT host:port HTTP/1.1 */
	SBX_HTTP_ORIGIN,       /* GET /path HTTP/1.1 (only with SBX_HTTP_ORIGIN_OK) */
};

enum sbx_http_body {
	SBX_BODY_NONE = 0,
	SBX_BODY_LENGTH,  /* Content-Length */
	SBX_BODY_CHUNKED, /* Transfer-Encoding: chunked */
	SBX_BODY_CLOSE,	  /* responses only: the body ends when the connection does */
};

/* Only for checking the heads the proxy itself writes: accept origin-form requests. */
#define SBX_HTTP_ORIGIN_OK 1u

struct sbx_http_req {
	size_t head_len; /* bytes of the head: leading empty lines, request line, fields, CRLF */
	size_t line;	 /* offset of the request line */
	char method[SBX_HTTP_MAX_METHOD + 1];
	bool is_connect, is_head;
	enum sbx_http_form form;
	struct sbx_host host;
	unsigned port;
	size_t path, path_len; /* the origin-form target inside the head ("" means "/") */
	int minor;	       /* HTTP/1.minor: 0 or 1 */
	struct sbx_http_field fields[SBX_HTTP_MAX_FIELDS];
	size_t n_fields;
	enum sbx_http_body body;
	uint64_t length; /* SBX_BODY_LENGTH */
	bool close;	 /* the client closes after this exchange */
};

/*
 * Parses a complete request head (head_len from sbx_http_scan). A proxy request has an
 * absolute http:// target, or is CONNECT with an authority (host:port); anything else is a clear
 * error. Framing follows RFC 9112 6 and is strict where a lenient reading lets two parsers
 * disagree on where a request ends: Content-Length with Transfer-Encoding, repeated or
 * comma-listed lengths, codings other than one "chunked", and a Connection header naming a
 * framing field are refused.
 */
int sbx_http_parse_request(const char *buf, size_t head_len, unsigned flags, struct sbx_http_req *r,
			   struct sbx_http_err *e);

struct sbx_http_resp {
	size_t head_len;
	int status;
	int minor;
	size_t reason, reason_len;
	struct sbx_http_field fields[SBX_HTTP_MAX_FIELDS];
	size_t n_fields;
	enum sbx_http_body body;
	uint64_t length;
	bool close; /* the upstream closes after this response */
};

/* Parses a complete response head; req_method_head: the request was HEAD (no body follows). */
int sbx_http_parse_response(const char *buf, size_t head_len, bool req_method_head,
			    struct sbx_http_resp *r, struct sbx_http_err *e);

/*
 * The request head sent upstream: the origin-form request line with the client's version, the
 * client's fields without the hop-by-hop ones (Connection and what it names, Keep-Alive,
 * Proxy-Connection, Proxy-Authorization, TE, Upgrade) and without Host, then the target's Host.
 * Malloc'd, *len bytes (also NUL-terminated); NULL on allocation failure.
 */
char *sbx_http_upstream_head(const char *buf, const struct sbx_http_req *r, size_t *len);
/*
 * The response head sent to the client: "HTTP/1.1 STATUS REASON", the fields without the
 * hop-by-hop ones (a Content-Length beside Transfer-Encoding is dropped too), and
 * "Connection: close" when close is set.
 */
char *sbx_http_client_head(const char *buf, const struct sbx_http_resp *r, bool close, size_t *len);

/* A chunked body as it goes by (RFC 9112 7.1): sizes, extensions, data, trailers. */
struct sbx_http_chunked {
	int state;
	uint64_t left;	 /* data bytes left in the current chunk */
	size_t line;	 /* bytes of the current size or trailer line */
	size_t trailers; /* bytes of trailers so far */
	unsigned digits;
};
/*
 * Consumes bytes of the body: returns 1 when it ended (*used: its bytes in buf), 0 when all of
 * buf belongs to it and more is needed (*used = len), -1 with *e when it is malformed.
 */
int sbx_http_chunked_feed(struct sbx_http_chunked *c, const char *buf, size_t len, size_t *used,
			  struct sbx_http_err *e);

/* The standard reason phrase of a status the proxy sends itself. */
const char *sbx_http_reason(int status);

/* ---- the decision log (netlog.c) --------------------------------------------------------- */

/* One decision, as the log line and the denial report see it. Strings may be NULL (null). */
struct sbx_proxy_event {
	const char *time;     /* RFC 3339 UTC with milliseconds */
	const char *client;   /* "127.0.0.1:40112", "[::1]:40112" or "unix" */
	const char *method;   /* "GET", "CONNECT"; NULL when the request line did not parse */
	const char *host;     /* NULL when no host was read */
	unsigned port;	      /* 0: null */
	const char *decision; /* "allow", "deny" or "invalid" */
	const char *rule;     /* the deciding entry or the reason */
	int status;	      /* the status the client got; 0: null (it got none) */
	uint64_t bytes;	      /* bytes relayed: sent upstream plus relayed back to the client */
	/*
	 * NULL when the exchange ended as its framing says (or was refused); else why it ended
	 * before that: "upstream" (its server closed, reset or sent a malformed body), "client"
	 * (it left or reset first), "timeout" (nothing moved for the idle timeout), "stopped"
	 * (the proxy's drain time ran out).
	 */
	const char *cut;
};

/*
 * {"time":..,"client":..,"method":..,"host":..,"port":..,"decision":..,"rule":..,"status":..,
 * "bytes":..} and a newline, with "cut":.. after bytes only when ev->cut is set; malloc'd, NULL
 * on allocation failure (text not UTF-8: sbx_json_text).
 */
char *sbx_proxy_log_line(const struct sbx_proxy_event *ev);
/*
 * A denial of the proxy as a line of the denial report (sbx_report_line_json): op "connect", the
 * host and port as the address (formatted into buf), the rule, mechanism "proxy"; the client's
 * pid is not known. 1 when ev is a denial (out filled, its strings borrowed from ev and buf),
 * 0 for any other decision.
 */
int sbx_proxy_report_line(const struct sbx_proxy_event *ev, char *buf, size_t n,
			  struct sbx_report_line *out);

/* ---- Unix socket addresses (unixaddr.c) ------------------------------------------------------ */

/* Bytes of sun_path in Linux's struct sockaddr_un. */
#define SBX_UNIX_PATH_MAX 108

/*
 * The file a Unix socket address names, read as the kernel reads it: the first n bytes of
 * sun_path up to a NUL, relative to cwd (the command's working directory, absolute) unless it
 * starts with "/", normalized lexically. 0 with *out allocated; -EINVAL for an address that
 * names no file (n 0 or past sun_path, abstract: a NUL first), -EACCES for a name with a ".."
 * component (which the kernel climbs from where a link leads: not read lexically) or a
 * relative name without an absolute cwd, -ENOTDIR for a name ending in "/" or in a "."
 * component (no socket is a directory), -ENAMETOOLONG for a path of SBX_MAX_PATH bytes or more, -ENOMEM.
 */
int sbx_unix_address_path(const char *sun_path, size_t n, const char *cwd, char **out);
/*
 * What lies beneath place on path (both normalized): 1 with rel (size bytes) set to it, "" for
 * the place itself; 0 when place does not cover path; -ENAMETOOLONG when it does not fit.
 */
int sbx_unix_beneath(const char *place, const char *path, char *rel, size_t size);

#endif
