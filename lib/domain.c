/* SPDX-License-Identifier: MIT */
/*
 * domain.c - hosts, domain patterns and the allow/deny decision of the proxy; the classes of IP
 * addresses (which ones a name may not lead to); the proxy's listen address.
 *
 * Everything is compared in one normalized form: names in lower case without their trailing
 * dot, IP literals by their bytes. Whatever does not fit that form is refused rather than
 * guessed at, because the resolver and the upstream server must see the very host the policy
 * decided on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

bool sbx_ipv4_parse(const char *s, size_t n, unsigned char out[4])
{
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		unsigned v = 0;
		size_t start = i;

		if (part > 0) {
			if (i >= n || s[i] != '.')
				return false;
			start = ++i;
		}
		while (i < n && is_digit(s[i]) && i - start < 3)
			v = v * 10 + (unsigned)(s[i++] - '0');
		if (i == start || v > 255 || (s[start] == '0' && i - start > 1))
			return false;
		out[part] = (unsigned char)v;
	}
	return i == n;
}

bool sbx_ipv6_parse(const char *s, size_t n, unsigned char out[16])
{
	unsigned words[8] = {0};
	int nw = 0, gap = -1;
	size_t i = 0;

	if (n == 0)
		return false;
	if (s[0] == ':') {
		if (n < 2 || s[1] != ':')
			return false;
		gap = 0;
		i = 2;
	}
	while (i < n) {
		size_t j = i;
		unsigned v = 0;

		if (nw == 8)
			return false;
		while (j < n && j - i < 5 && sbx_hex_digit((unsigned char)s[j]) >= 0)
			v = v * 16 + (unsigned)sbx_hex_digit((unsigned char)s[j++]);
		if (j < n && s[j] == '.') {
			unsigned char q[4];

			if (nw > 6 || !sbx_ipv4_parse(s + i, n - i, q))
				return false;
			words[nw++] = (unsigned)q[0] << 8 | q[1];
			words[nw++] = (unsigned)q[2] << 8 | q[3];
			i = n;
			break;
		}
		if (j == i || j - i > 4)
			return false;
		words[nw++] = v;
		i = j;
		if (i == n)
			break;
		if (s[i] != ':')
			return false;
		i++;
		if (i < n && s[i] == ':') {
			if (gap >= 0)
				return false;
			gap = nw;
			i++;
		} else if (i == n) {
			return false; /* a single trailing colon */
		}
	}
	if (gap >= 0) {
		int tail = nw - gap;

		if (nw == 8)
			return false; /* "::" stands for at least one group */
		memmove(&words[8 - tail], &words[gap], (size_t)tail * sizeof(words[0]));
		for (int k = gap; k < 8 - tail; k++)
			words[k] = 0;
	} else if (nw != 8) {
		return false;
	}
	for (int k = 0; k < 8; k++) {
		out[2 * k] = (unsigned char)(words[k] >> 8);
		out[2 * k + 1] = (unsigned char)(words[k] & 0xff);
	}
	return true;
}

void sbx_addr_format(const unsigned char *a, size_t len, char *buf, size_t n)
{
	int best = -1, best_len = 0, run = -1;
	size_t off = 0;

	if (len == 4) {
		snprintf(buf, n, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
		return;
	}
	/* IPv4-mapped addresses read best with their IPv4 part, as inet_ntop writes them. */
	if (!memcmp(a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12)) {
		snprintf(buf, n, "::ffff:%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
		return;
	}
	/* RFC 5952: the longest run of two or more zero groups (the first on a tie) becomes "::". */
	for (int k = 0; k <= 8; k++) {
		bool zero = k < 8 && a[2 * k] == 0 && a[2 * k + 1] == 0;

		if (zero && run < 0)
			run = k;
		if (!zero && run >= 0) {
			if (k - run > best_len && k - run >= 2) {
				best = run;
				best_len = k - run;
			}
			run = -1;
		}
	}
	buf[0] = '\0';
	for (int k = 0; k < 8 && off < n; k++) {
		int w;

		if (k == best) {
			w = snprintf(buf + off, n - off, "::");
			k += best_len - 1;
		} else {
			w = snprintf(buf + off, n - off, "%s%x",
				     k > 0 && k != best + best_len ? ":" : "",
				     (unsigned)a[2 * k] << 8 | a[2 * k + 1]);
		}
		if (w < 0)
			return;
		off += (size_t)w;
	}
}

int sbx_host_parse(const char *s, size_t len, struct sbx_host *h, const char **why)
{
	size_t label = 0, last_label = 0;

	memset(h, 0, sizeof(*h));
	*why = NULL;
	if (len == 0) {
		*why = "empty host";
		return -EINVAL;
	}
	if (s[0] == '[') {
		if (len < 2 || s[len - 1] != ']') {
			*why = "unterminated IPv6 literal";
			return -EINVAL;
		}
		if (memchr(s, '%', len)) {
			*why = "IPv6 zone identifiers are not accepted";
			return -EINVAL;
		}
		if (!sbx_ipv6_parse(s + 1, len - 2, h->addr)) {
			*why = "invalid IPv6 address";
			return -EINVAL;
		}
		h->kind = SBX_HOST_IPV6;
		sbx_addr_format(h->addr, 16, h->name, sizeof(h->name));
		return 0;
	}
	if (s[len - 1] == '.')
		len--; /* the root of the DNS: "example.com." is "example.com" */
	if (len == 0) {
		*why = "empty host";
		return -EINVAL;
	}
	if (len > SBX_HOST_MAX) {
		*why = "host name longer than 253 characters";
		return -EINVAL;
	}
	for (size_t i = 0; i <= len; i++) {
		char c = i < len ? s[i] : '.';

		if (c == '.') {
			if (i < len)
				h->name[i] = '.';
			if (i == label) {
				*why = "empty label in host name";
				return -EINVAL;
			}
			if (i - label > SBX_LABEL_MAX) {
				*why = "label longer than 63 characters in host name";
				return -EINVAL;
			}
			if (s[label] == '-' || s[i - 1] == '-') {
				*why = "label starting or ending with '-' in host name";
				return -EINVAL;
			}
			last_label = label;
			label = i + 1;
			continue;
		}
		if ((unsigned char)c >= 0x80) {
			*why = "non-ASCII host name (write an internationalized name in its xn-- "
			       "form)";
			return -EINVAL;
		}
		if (c == '%') {
			*why = "percent-encoded host name";
			return -EINVAL;
		}
		if (c == ':') {
			*why = "unexpected ':' in host (IPv6 addresses go in brackets)";
			return -EINVAL;
		}
		if (!is_digit(c) && !(lower(c) >= 'a' && lower(c) <= 'z') && c != '-' && c != '_') {
			*why = "invalid character in host name";
			return -EINVAL;
		}
		h->name[i] = lower(c);
	}
	h->name[len] = '\0';
	/*
	 * No top-level domain starts with a digit, so such a name is an IPv4 address, and only its
	 * canonical spelling is taken: the resolver reads 127.1 or 0x7f000001 as 127.0.0.1 too.
	 */
	if (is_digit(s[last_label])) {
		if (!sbx_ipv4_parse(s, len, h->addr)) {
			*why = "numeric host that is not a dotted-quad IPv4 address";
			return -EINVAL;
		}
		h->kind = SBX_HOST_IPV4;
	}
	return 0;
}

void sbx_host_authority(const struct sbx_host *h, char *buf, size_t n)
{
	snprintf(buf, n, h->kind == SBX_HOST_IPV6 ? "[%s]" : "%s", h->name);
}

/* Whether name is dom itself (apex) or a name below it (sub). */
static bool name_under(const char *name, const char *dom, bool apex)
{
	size_t nl = strlen(name), dl = strlen(dom);

	if (nl == dl)
		return apex && strcmp(name, dom) == 0;
	return nl > dl + 1 && name[nl - dl - 1] == '.' && strcmp(name + nl - dl, dom) == 0;
}

bool sbx_host_is_localhost(const struct sbx_host *h)
{
	return h->kind == SBX_HOST_NAME && name_under(h->name, "localhost", true);
}

/* A port as written in an authority: 1 to 65535 (0 when zero_ok), decimal, no leading zero. */
static bool parse_port(const char *s, size_t n, bool zero_ok, unsigned *port)
{
	unsigned v = 0;

	if (n == 0 || n > 5 || (s[0] == '0' && n > 1))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(s[i]))
			return false;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > 65535 || (v == 0 && !zero_ok))
		return false;
	*port = v;
	return true;
}

/* Splits "host", "host:port", "[v6]" or "[v6]:port"; *port_len 0 when there is no port. */
static int split_authority(const char *s, size_t n, size_t *host_len, const char **port,
			   size_t *port_len)
{
	const char *colon;

	*port = NULL;
	*port_len = 0;
	if (n > 0 && s[0] == '[') {
		const char *end = memchr(s, ']', n);

		if (!end)
			return -EINVAL;
		*host_len = (size_t)(end - s) + 1;
		if (*host_len == n)
			return 0;
		if (s[*host_len] != ':')
			return -EINVAL;
		*port = s + *host_len + 1;
		*port_len = n - *host_len - 1;
		return *port_len ? 0 : -EINVAL;
	}
	colon = memchr(s, ':', n);
	if (!colon) {
		*host_len = n;
		return 0;
	}
	if (memchr(colon + 1, ':', n - (size_t)(colon - s) - 1))
		return -EINVAL; /* two colons: an IPv6 address without its brackets */
	*host_len = (size_t)(colon - s);
	*port = colon + 1;
	*port_len = n - *host_len - 1;
	return *port_len ? 0 : -EINVAL;
}

int sbx_domain_pattern_parse(const char *s, struct sbx_domain_pattern *p, struct sbx_diag *d)
{
	const char *host = s, *port, *why;
	size_t host_len, port_len, n = strlen(s);
	char auth[SBX_AUTHORITY_MAX];

	memset(p, 0, sizeof(*p));
	if (strcmp(s, "*") == 0 || strcmp(s, "**") == 0) {
		sbx_diag_set(d, 0, "domain pattern '%s' would allow every host", s);
		return sbx_diag_hint(d, -EINVAL,
				     "name the domains (*.example.com for the names below "
				     "example.com), or enable the network instead of a proxy");
	}
	if (strncmp(s, "**.", 3) == 0) {
		p->kind = SBX_DOMAIN_APEX_AND_SUBS;
		host += 3;
	} else if (strncmp(s, "*.", 2) == 0) {
		p->kind = SBX_DOMAIN_SUBDOMAINS;
		host += 2;
	}
	n -= (size_t)(host - s);
	if (memchr(host, '*', n))
		return sbx_diag_set(d, -EINVAL,
				    "domain pattern '%s': a wildcard must be the whole leftmost "
				    "label (*.example.com or **.example.com)",
				    s);
	if (split_authority(host, n, &host_len, &port, &port_len) < 0)
		return sbx_diag_set(d, -EINVAL,
				    "domain pattern '%s': expected HOST or HOST:PORT (IPv6 "
				    "addresses in brackets: [::1]:443)",
				    s);
	if (port && !parse_port(port, port_len, false, &p->port))
		return sbx_diag_set(d, -EINVAL, "domain pattern '%s': invalid port (1-65535)", s);
	if (sbx_host_parse(host, host_len, &p->host, &why) < 0)
		return sbx_diag_set(d, -EINVAL, "domain pattern '%s': %s", s, why);
	if (p->kind != SBX_DOMAIN_EXACT && p->host.kind != SBX_HOST_NAME)
		return sbx_diag_set(
			d, -EINVAL,
			"domain pattern '%s': a wildcard covers names, not IP addresses", s);
	sbx_host_authority(&p->host, auth, sizeof(auth));
	snprintf(p->text, sizeof(p->text), "%s%s",
		 p->kind == SBX_DOMAIN_SUBDOMAINS      ? "*."
		 : p->kind == SBX_DOMAIN_APEX_AND_SUBS ? "**."
						       : "",
		 auth);
	if (p->port)
		snprintf(p->text + strlen(p->text), sizeof(p->text) - strlen(p->text), ":%u",
			 p->port);
	return 0;
}

bool sbx_domain_pattern_match(const struct sbx_domain_pattern *p, const struct sbx_host *h,
			      unsigned port)
{
	if (p->port && p->port != port)
		return false;
	switch (p->kind) {
	case SBX_DOMAIN_EXACT:
		if (h->kind != p->host.kind)
			return false;
		if (h->kind == SBX_HOST_NAME)
			return strcmp(h->name, p->host.name) == 0;
		return memcmp(h->addr, p->host.addr, h->kind == SBX_HOST_IPV4 ? 4 : 16) == 0;
	case SBX_DOMAIN_SUBDOMAINS:
		return h->kind == SBX_HOST_NAME && name_under(h->name, p->host.name, false);
	case SBX_DOMAIN_APEX_AND_SUBS:
		return h->kind == SBX_HOST_NAME && name_under(h->name, p->host.name, true);
	}
	return false;
}

int sbx_domain_policy_add(struct sbx_domain_policy *pol, bool deny, const char *pattern,
			  struct sbx_diag *d)
{
	struct sbx_domain_pattern p, **list = deny ? &pol->deny : &pol->allow, *nl;
	size_t *n = deny ? &pol->n_deny : &pol->n_allow;
	int r = sbx_domain_pattern_parse(pattern, &p, d);

	if (r < 0)
		return r;
	nl = realloc(*list, (*n + 1) * sizeof(**list));
	if (!nl)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	nl[(*n)++] = p;
	*list = nl;
	return 0;
}

void sbx_domain_policy_free(struct sbx_domain_policy *pol)
{
	if (!pol)
		return;
	free(pol->allow);
	free(pol->deny);
	memset(pol, 0, sizeof(*pol));
}

void sbx_domain_policy_decide(const struct sbx_domain_policy *pol, const struct sbx_host *h,
			      unsigned port, struct sbx_net_decision *out)
{
	for (size_t i = 0; i < pol->n_deny; i++) {
		if (sbx_domain_pattern_match(&pol->deny[i], h, port)) {
			out->verdict = SBX_NET_DENY_LISTED;
			out->rule = &pol->deny[i];
			return;
		}
	}
	for (size_t i = 0; i < pol->n_allow; i++) {
		if (sbx_domain_pattern_match(&pol->allow[i], h, port)) {
			out->verdict = SBX_NET_ALLOW;
			out->rule = &pol->allow[i];
			return;
		}
	}
	out->verdict = SBX_NET_NOT_ALLOWED;
	out->rule = NULL;
}

/* ---- address classes ------------------------------------------------------------------------ */

struct net_block {
	unsigned char base[16];
	unsigned prefix;
	const char *cls;
};

/* IPv4 blocks that are not globally reachable (RFC 6890 and its updates). */
static const struct net_block v4_blocks[] = {
	{{0, 0, 0, 0}, 8, "unspecified"},	 {{10, 0, 0, 0}, 8, "private"},
	{{100, 64, 0, 0}, 10, "shared (CGNAT)"}, {{127, 0, 0, 0}, 8, "loopback"},
	{{169, 254, 0, 0}, 16, "link-local"},	 {{172, 16, 0, 0}, 12, "private"},
	{{192, 0, 0, 0}, 24, "reserved"},	 {{192, 0, 2, 0}, 24, "documentation"},
	{{192, 88, 99, 0}, 24, "reserved"},	 {{192, 168, 0, 0}, 16, "private"},
	{{198, 18, 0, 0}, 15, "benchmarking"},	 {{198, 51, 100, 0}, 24, "documentation"},
	{{203, 0, 113, 0}, 24, "documentation"}, {{224, 0, 0, 0}, 4, "multicast"},
	{{240, 0, 0, 0}, 4, "reserved"}, /* and 255.255.255.255, the broadcast address */
};

/* IPv6 blocks with the IPv4 address inside at byte 12 (mapped, NAT64) or 2 (6to4): prefix 0. */
static const struct net_block v6_blocks[] = {
	{{0}, 128, "unspecified"},
	{{[15] = 1}, 128, "loopback"},
	{{[10] = 0xff, [11] = 0xff}, 96, NULL},	      /* ::ffff:a.b.c.d, IPv4-mapped */
	{{0, 0x64, 0xff, 0x9b}, 96, NULL},	      /* 64:ff9b::a.b.c.d, NAT64 */
	{{0, 0x64, 0xff, 0x9b, 0, 1}, 48, "private"}, /* local-use NAT64 */
	{{0}, 96, "reserved"},			      /* ::a.b.c.d, IPv4-compatible */
	{{1, 0}, 64, "reserved"},		      /* discard */
	{{0x20, 0x01, 0x0d, 0xb8}, 32, "documentation"},
	{{0x20, 0x01}, 23, "reserved"}, /* IETF protocol assignments */
	{{0x20, 0x02}, 16, NULL},	/* 2002:aabb:ccdd::, 6to4 */
	{{0xfc}, 7, "unique-local"},
	{{0xfe, 0x80}, 10, "link-local"},
	{{0xfe, 0xc0}, 10, "site-local"},
	{{0xff}, 8, "multicast"},
};

static bool in_block(const unsigned char *a, const struct net_block *b)
{
	unsigned full = b->prefix / 8, rest = b->prefix % 8;

	if (memcmp(a, b->base, full) != 0)
		return false;
	return rest == 0 || ((a[full] ^ b->base[full]) & (0xff00u >> rest) & 0xff) == 0;
}

const char *sbx_addr_class(const unsigned char *a, size_t len)
{
	if (len == 4) {
		for (size_t i = 0; i < sizeof(v4_blocks) / sizeof(v4_blocks[0]); i++)
			if (in_block(a, &v4_blocks[i]))
				return v4_blocks[i].cls;
		return NULL;
	}
	for (size_t i = 0; i < sizeof(v6_blocks) / sizeof(v6_blocks[0]); i++) {
		if (!in_block(a, &v6_blocks[i]))
			continue;
		if (v6_blocks[i].cls)
			return v6_blocks[i].cls;
		/* The IPv4 address inside decides: ::ffff:127.0.0.1 is the loopback. */
		return sbx_addr_class(a + (a[0] == 0x20 ? 2 : 12), 4);
	}
	return NULL;
}

/* The IPv4 address a connection to a reaches: a itself, the one inside an IPv6 address that
 * sbx_addr_class judges by it (mapped, NAT64, 6to4), or NULL for another IPv6 address. */
static const unsigned char *ipv4_inside(const unsigned char *a, size_t len)
{
	if (len == 4)
		return a;
	for (size_t i = 0; i < sizeof(v6_blocks) / sizeof(v6_blocks[0]); i++)
		if (in_block(a, &v6_blocks[i]))
			return v6_blocks[i].cls ? NULL : a + (a[0] == 0x20 ? 2 : 12);
	return NULL;
}

const struct sbx_domain_pattern *sbx_domain_policy_denies_addr(const struct sbx_domain_policy *pol,
							       const unsigned char *addr,
							       size_t len, unsigned port)
{
	const unsigned char *v4 = ipv4_inside(addr, len);

	for (size_t i = 0; i < pol->n_deny; i++) {
		const struct sbx_domain_pattern *p = &pol->deny[i];
		const unsigned char *pv4;

		if (p->host.kind == SBX_HOST_NAME || (p->port && p->port != port))
			continue;
		pv4 = ipv4_inside(p->host.addr, p->host.kind == SBX_HOST_IPV4 ? 4 : 16);
		if (v4 ? pv4 && memcmp(v4, pv4, 4) == 0
		       : !pv4 && len == 16 && memcmp(addr, p->host.addr, 16) == 0)
			return p;
	}
	return NULL;
}

bool sbx_addr_reaches(const unsigned char *a, size_t len, const unsigned char *ifa, size_t iflen)
{
	static const unsigned char v4mapped[12] = {[10] = 0xff, [11] = 0xff};

	if (len == 16 && iflen == 4 && memcmp(a, v4mapped, sizeof(v4mapped)) == 0)
		return memcmp(a + sizeof(v4mapped), ifa, 4) == 0;
	return len == iflen && memcmp(a, ifa, len) == 0;
}

/* ---- the listen address --------------------------------------------------------------------- */

int sbx_listen_addr_parse(const char *s, struct sbx_listen_addr *a, struct sbx_diag *d)
{
	const char *port, *why;
	size_t host_len, port_len;
	struct sbx_host h;

	memset(a, 0, sizeof(*a));
	if (strncmp(s, "unix:", 5) == 0) {
		if (!s[5])
			return sbx_diag_set(d, -EINVAL, "--listen: unix: needs a socket path");
		if (strlen(s + 5) >= sizeof(a->path))
			return sbx_diag_set(d, -ENAMETOOLONG, "--listen: socket path too long");
		a->kind = SBX_LISTEN_UNIX;
		strcpy(a->path, s + 5);
		return 0;
	}
	if (split_authority(s, strlen(s), &host_len, &port, &port_len) < 0 || !port ||
	    !parse_port(port, port_len, true, &a->port)) {
		sbx_diag_set(d, -EINVAL, "--listen: invalid address '%s'", s);
		return sbx_diag_hint(d, -EINVAL,
				     "expected 127.0.0.1:PORT, [::1]:PORT or unix:PATH (port 0 "
				     "picks a free one)");
	}
	if (host_len == 9 && strncmp(s, "localhost", 9) == 0) {
		memcpy(a->addr, "\x7f\0\0\x01", 4);
		a->kind = SBX_LISTEN_TCP4;
		return 0;
	}
	if (sbx_host_parse(s, host_len, &h, &why) < 0 || h.kind == SBX_HOST_NAME) {
		sbx_diag_set(d, -EINVAL, "--listen: '%.*s' is not an IP address", (int)host_len, s);
		return sbx_diag_hint(d, -EINVAL,
				     "expected 127.0.0.1:PORT, [::1]:PORT or unix:PATH");
	}
	a->kind = h.kind == SBX_HOST_IPV4 ? SBX_LISTEN_TCP4 : SBX_LISTEN_TCP6;
	memcpy(a->addr, h.addr, sizeof(a->addr));
	if ((a->kind == SBX_LISTEN_TCP4 && a->addr[0] != 127) ||
	    (a->kind == SBX_LISTEN_TCP6 &&
	     memcmp(a->addr, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16) != 0)) {
		sbx_diag_set(d, -EINVAL, "--listen: %s is not a loopback address", h.name);
		return sbx_diag_hint(d, -EINVAL,
				     "the proxy listens on the loopback or a unix socket only: "
				     "anyone who can reach it can use its allow list");
	}
	return 0;
}
