/* SPDX-License-Identifier: MIT */
/*
 * proxyenv.c - the proxies of managed networking, read from the environment the command gets,
 * and the Unix socket paths of an allow-list.
 *
 * Under managed networking a command may connect only to the proxies its proxy variables name,
 * and only when they are on this machine's loopback interface: a proxy elsewhere would be a hole
 * to the network it sits on. The variables are those Codex reads; each URL is parsed
 * strictly, and a value that does not parse, or names anything but a loopback endpoint, is an
 * error rather than a proxy quietly left out: the caller meant the command to use it.
 *
 * Messages name the variable and, for a host that is not on loopback, the host and port; never
 * the value itself, which may carry a password.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "sbx.h"

const char *const sbx_proxy_vars[SBX_PROXY_VARS_N] = {
	"HTTP_PROXY",
	"HTTPS_PROXY",
	"WS_PROXY",
	"WSS_PROXY",
	"ALL_PROXY",
	"FTP_PROXY",
	"YARN_HTTP_PROXY",
	"YARN_HTTPS_PROXY",
	"NPM_CONFIG_HTTP_PROXY",
	"NPM_CONFIG_HTTPS_PROXY",
	"NPM_CONFIG_PROXY",
	"BUNDLE_HTTP_PROXY",
	"BUNDLE_HTTPS_PROXY",
	"PIP_PROXY",
	"DOCKER_HTTP_PROXY",
	"DOCKER_HTTPS_PROXY",
};

/*
 * A caller's value of these would send the command around sbxrun's own proxy: "*" (or an allowed
 * host) has the client connect directly, where the namespace has no route, and an allowed host
 * would be out of reach. npm reads npm_config_noproxy (it also reads NO_PROXY), yarn
 * YARN_NO_PROXY, bundler BUNDLE_NO_PROXY.
 */
const char *const sbx_no_proxy_vars[SBX_NO_PROXY_VARS_N] = {
	"NO_PROXY",
	"NPM_CONFIG_NOPROXY",
	"YARN_NO_PROXY",
	"BUNDLE_NO_PROXY",
};

static const struct {
	const char *name;
	unsigned default_port;
} schemes[] = {
	[SBX_PROXY_HTTP] = {"http", 80},
	[SBX_PROXY_HTTPS] = {"https", 443},
	[SBX_PROXY_SOCKS5] = {"socks5", 1080},
	[SBX_PROXY_SOCKS5H] = {"socks5h", 1080},
};
#define N_SCHEMES (sizeof(schemes) / sizeof(schemes[0]))

const char *sbx_proxy_scheme_name(enum sbx_proxy_scheme s)
{
	return (size_t)s < N_SCHEMES ? schemes[s].name : "?";
}

static char lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Case-insensitive comparison of s[0..n) with the lower-case word w. */
static bool word_is(const char *s, size_t n, const char *w)
{
	if (strlen(w) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower(s[i]) != w[i])
			return false;
	return true;
}

static int bad(struct sbx_diag *d, const char *var, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(struct sbx_diag *d, const char *var, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return sbx_diag_set(d, SBX_E_INVALID, "%s: %s", var, msg);
}

/* Letters, digits, '-', '_' and '.': what host names are made of. */
static bool name_chars(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = lower(s[i]);

		if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '_' || c == '.'))
			return false;
	}
	return true;
}

/* The host of an authority (brackets already removed for IPv6). */
static int parse_host(const char *var, const char *h, size_t n, bool bracketed,
		      struct sbx_proxy_endpoint *out, struct sbx_diag *d)
{
	unsigned char a[16];
	size_t digits = 0;

	if (n == 0)
		return bad(d, var, "the proxy URL names no host");
	if (n >= sizeof(out->host))
		return bad(d, var, "the proxy's host name is longer than %zu characters",
			   sizeof(out->host) - 1);
	for (size_t i = 0; i < n; i++)
		out->host[i] = lower(h[i]);
	out->host[n] = '\0';
	if (bracketed) {
		if (memchr(h, '%', n))
			return bad(d, var, "an IPv6 proxy address takes no zone (\"%%...\")");
		if (!sbx_ipv6_parse(h, n, a))
			return bad(d, var, "[%s] is not an IPv6 address", out->host);
		out->ipv6 = true;
		/* ::1 only: other spellings of loopback (an IPv4-mapped 127/8) are not Seatbelt's. */
		out->loopback = a[15] == 1;
		for (size_t i = 0; i < 15; i++)
			out->loopback = out->loopback && a[i] == 0;
		return 0;
	}
	if (memchr(h, ':', n))
		return bad(d, var, "an IPv6 proxy address must be written in brackets, as [::1]");
	if (!name_chars(h, n))
		return bad(d, var, "the proxy's host holds a character no host name has");
	while (digits < n && (is_digit(h[digits]) || h[digits] == '.'))
		digits++;
	if (digits == n) {
		if (!sbx_ipv4_parse(h, n, a))
			return bad(d, var,
				   "%s is not an IPv4 address in dotted-quad form (four numbers "
				   "from 0 to 255, without leading zeros)",
				   out->host);
		out->loopback = a[0] == 127;
		return 0;
	}
	out->loopback = strcmp(out->host, "localhost") == 0;
	return 0;
}

int sbx_proxy_parse(const char *var, const char *value, struct sbx_proxy_endpoint *out,
		    struct sbx_diag *d)
{
	const char *b = value, *e = value + strlen(value), *sep, *auth, *end, *at, *host, *hend;
	const char *colon = NULL;
	size_t i;
	int r;

	memset(out, 0, sizeof(*out));
	snprintf(out->var, sizeof(out->var), "%s", var);
	while (b < e && strchr(" \t\r\n", *b))
		b++;
	while (e > b && strchr(" \t\r\n", e[-1]))
		e--;
	if (b == e)
		return bad(d, var, "the proxy URL is empty");

	/* The scheme; none means http, as Codex and curl read a bare HOST:PORT. */
	for (sep = b; sep + 3 <= e && strncmp(sep, "://", 3) != 0; sep++)
		;
	if (sep + 3 > e)
		sep = NULL;
	out->scheme = SBX_PROXY_HTTP;
	if (sep) {
		for (i = 0; i < N_SCHEMES && !word_is(b, (size_t)(sep - b), schemes[i].name); i++)
			;
		if (i == N_SCHEMES) {
			bool printable = sep - b <= 16 && name_chars(b, (size_t)(sep - b));

			r = bad(d, var, "the proxy URL's scheme %s%.*s%s is not one sbxrun reads",
				printable ? "\"" : "", printable ? (int)(sep - b) : 0, b,
				printable ? "\"" : "");
			return sbx_diag_hint(d, r,
					     "write http://, https://, socks5:// or socks5h://");
		}
		out->scheme = (enum sbx_proxy_scheme)i;
		auth = sep + 3;
	} else {
		auth = b;
	}

	/* The authority ends at the path; a proxy URL has none but a single "/". */
	for (end = auth; end < e && !strchr("/?#", *end); end++)
		;
	if (end < e && !(end + 1 == e && *end == '/'))
		return bad(d, var,
			   "a proxy URL is SCHEME://HOST:PORT, with no path, query or "
			   "fragment after it");

	/* user:password@ is the proxy's business: skipped, never shown. */
	host = auth;
	for (at = auth; at < end; at++)
		if (*at == '@')
			host = at + 1;
	hend = end;
	if (host < end && *host == '[') {
		const char *close = memchr(host, ']', (size_t)(end - host));

		if (!close)
			return bad(d, var, "an IPv6 proxy address lacks its closing \"]\"");
		if (close + 1 < end) {
			if (close[1] != ':')
				return bad(d, var, "only \":PORT\" may follow an IPv6 address");
			colon = close + 1;
		}
		r = parse_host(var, host + 1, (size_t)(close - host - 1), true, out, d);
	} else {
		colon = memchr(host, ':', (size_t)(end - host));
		if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
			colon = NULL; /* an unbracketed IPv6 address: parse_host says so */
		else if (colon)
			hend = colon;
		r = parse_host(var, host, (size_t)(hend - host), false, out, d);
	}
	if (r)
		return r;

	out->port = schemes[out->scheme].default_port;
	if (colon) {
		unsigned v = 0;
		const char *p = colon + 1;

		for (i = 0; p + i < end && is_digit(p[i]) && i < 6; i++)
			v = v * 10 + (unsigned)(p[i] - '0');
		if (i == 0 || p + i != end || v < 1 || v > 65535)
			return bad(d, var, "the proxy's port must be a number from 1 to 65535");
		out->port = v;
	}
	return 0;
}

/* The index of name[0..n) in the list, in its upper- or lower-case spelling, or -1. */
static int var_index(const char *name, size_t n, bool *is_lower)
{
	for (int i = 0; i < SBX_PROXY_VARS_N; i++) {
		const char *v = sbx_proxy_vars[i];
		bool up = true, low = true;

		if (strlen(v) != n)
			continue;
		for (size_t k = 0; k < n && (up || low); k++) {
			up = up && name[k] == v[k];
			low = low && name[k] == lower(v[k]);
		}
		if (up || low) {
			*is_lower = !up;
			return i;
		}
	}
	return -1;
}

static bool blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

int sbx_proxies_from_env(char *const *env, struct sbx_proxies *out, struct sbx_diag *d)
{
	int order[2 * SBX_PROXY_VARS_N];
	int r;

	memset(out, 0, sizeof(*out));
	for (char *const *e = env; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		struct sbx_proxy_endpoint p;
		char var[32];
		bool is_lower;
		int idx;
		size_t k;

		if (!eq || (idx = var_index(*e, (size_t)(eq - *e), &is_lower)) < 0 || blank(eq + 1))
			continue;
		snprintf(var, sizeof(var), "%.*s", (int)(eq - *e), *e);
		if (out->n == sizeof(out->v) / sizeof(out->v[0]))
			return sbx_diag_set(d, SBX_E_TOO_BIG,
					    "more than %zu proxy variables are set (%s is set more "
					    "than once)",
					    out->n, var);
		r = sbx_proxy_parse(var, eq + 1, &p, d);
		if (r)
			return r;
		if (!p.loopback) {
			r = sbx_diag_set(
				d, SBX_E_INVALID,
				"%s names the proxy %s%s%s:%u, which is not on this machine's "
				"loopback interface (127.0.0.0/8, ::1 or localhost): managed "
				"networking lets the command reach its proxies and nothing else",
				var, p.ipv6 ? "[" : "", p.host, p.ipv6 ? "]" : "", p.port);
			return sbx_diag_hint(d, r,
					     "run the proxy on this machine and point %s at its "
					     "loopback address, such as http://127.0.0.1:3128",
					     var);
		}
		/* In the order of the list, upper case first; a name set twice, in its order. */
		for (k = out->n; k > 0 && order[k - 1] > 2 * idx + is_lower; k--) {
			out->v[k] = out->v[k - 1];
			order[k] = order[k - 1];
		}
		out->v[k] = p;
		order[k] = 2 * idx + is_lower;
		out->n++;
	}
	if (out->n == 0) {
		r = sbx_diag_set(d, SBX_E_INVALID,
				 "managed networking needs a proxy, and no proxy variable is set "
				 "(HTTP_PROXY, HTTPS_PROXY, ALL_PROXY and the others of sbxrun(1), "
				 "in upper or lower case)");
		return sbx_diag_hint(
			d, r,
			"set HTTPS_PROXY and HTTP_PROXY to the proxy's loopback address, "
			"such as http://127.0.0.1:3128");
	}
	return 0;
}

size_t sbx_proxies_ports(const struct sbx_proxies *p, unsigned *ports)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++) {
		size_t k;

		if (!p->v[i].loopback)
			continue;
		for (k = 0; k < n && ports[k] < p->v[i].port; k++)
			;
		if (k < n && ports[k] == p->v[i].port)
			continue;
		memmove(ports + k + 1, ports + k, (n - k) * sizeof(*ports));
		ports[k] = p->v[i].port;
		n++;
	}
	return n;
}

int sbx_unix_socket_normalize(const char *path, char **out, struct sbx_diag *d)
{
	int r;

	*out = NULL;
	if (!path || !path[0])
		return sbx_diag_set(d, SBX_E_INVALID, "a Unix socket path is empty");
	/* Windows paths stay as written, symbolic on other hosts (as in a profile). */
	if (sbx_path_is_windows_abs(path) && strlen(path) < SBX_MAX_PATH) {
		*out = strdup(path);
		return *out ? 0 : sbx_diag_set(d, -ENOMEM, "out of memory");
	}
	if (path[0] != '/') {
		r = sbx_diag_set(d, SBX_E_INVALID,
				 "Unix socket path \"%s\" is not absolute: it would be taken "
				 "from whatever directory the command runs in",
				 path);
		return sbx_diag_hint(d, r, "write the full path, starting with /");
	}
	if (strlen(path) >= SBX_MAX_PATH)
		return sbx_diag_set(d, SBX_E_TOO_BIG,
				    "Unix socket path is longer than %d bytes: %.64s...",
				    SBX_MAX_PATH - 1, path);
	r = sbx_path_normalize(path, out);
	if (r)
		return sbx_diag_set(d, r, "cannot normalize Unix socket path %s: %s", path,
				    sbx_strerror(r));
	return 0;
}

/* ---- the bridge's side of the variables (Linux) -------------------------------------------- */

int sbx_proxy_endpoint_ep(const struct sbx_proxy_endpoint *p, struct sbx_loopback_ep *out)
{
	memset(out, 0, sizeof(*out));
	out->port = p->port;
	if (!p->loopback)
		return -EINVAL;
	if (p->ipv6) {
		out->ipv6 = true;
		return sbx_ipv6_parse(p->host, strlen(p->host), out->addr) ? 0 : -EINVAL;
	}
	/* localhost names the loopback interface: its IPv4 address, as Codex reads it. */
	if (strcmp(p->host, "localhost") == 0) {
		out->addr[0] = 127;
		out->addr[3] = 1;
		out->localhost = true;
		return 0;
	}
	return sbx_ipv4_parse(p->host, strlen(p->host), out->addr) ? 0 : -EINVAL;
}

void sbx_loopback_ep_format(const struct sbx_loopback_ep *e, char *buf, size_t n)
{
	if (e->ipv6)
		snprintf(buf, n, "[::1]:%u", e->port);
	else
		snprintf(buf, n, "%u.%u.%u.%u:%u", e->addr[0], e->addr[1], e->addr[2], e->addr[3],
			 e->port);
}

int sbx_proxy_rewrite(const char *value, const char *host, unsigned port, char **out)
{
	const char *b = value, *e = value + strlen(value), *auth, *end, *at = NULL;
	char *r;
	int n;

	*out = NULL;
	while (b < e && strchr(" \t\r\n", *b))
		b++;
	while (e > b && strchr(" \t\r\n", e[-1]))
		e--;
	auth = b;
	for (const char *s = b; s + 3 <= e; s++)
		if (strncmp(s, "://", 3) == 0) {
			auth = s + 3;
			break;
		}
	for (end = auth; end < e && !strchr("/?#", *end); end++)
		if (*end == '@')
			at = end;
	if (end == auth || port < 1 || port > 65535)
		return SBX_E_INVALID;
	/* SCHEME:// and USER:PASSWORD@ as written, the new authority, then the rest ("/" or ""). */
	n = asprintf(&r, "%.*s%s:%u%.*s", (int)((at ? at + 1 : auth) - b), b, host, port,
		     (int)(e - end), end);
	if (n < 0)
		return -ENOMEM;
	*out = r;
	return 0;
}

int sbx_proxy_env_rewrite(char *const *env, struct sbx_strv *out)
{
	int r = 0;

	for (char *const *e = env; !r && e && *e; e++) {
		const char *eq = strchr(*e, '=');
		struct sbx_proxy_endpoint p;
		struct sbx_loopback_ep ep;
		struct sbx_diag d;
		char host[48], *val = NULL, *kv = NULL;
		bool is_lower;

		if (!eq || var_index(*e, (size_t)(eq - *e), &is_lower) < 0 || blank(eq + 1))
			continue;
		sbx_diag_clear(&d);
		if (sbx_proxy_parse("proxy", eq + 1, &p, &d) || sbx_proxy_endpoint_ep(&p, &ep))
			return SBX_E_INVALID;
		if (ep.ipv6)
			snprintf(host, sizeof(host), "[::1]");
		else
			snprintf(host, sizeof(host), "%u.%u.%u.%u", ep.addr[0], ep.addr[1],
				 ep.addr[2], ep.addr[3]);
		r = sbx_proxy_rewrite(eq + 1, host, ep.port, &val);
		if (!r && strcmp(val, eq + 1) != 0) {
			if (asprintf(&kv, "%.*s=%s", (int)(eq - *e), *e, val) < 0)
				kv = NULL;
			r = sbx_strv_push_owned(out, kv);
		}
		free(val);
	}
	return r;
}

bool sbx_proxy_var_own(int i)
{
	/*
	 * npm reads npm_config_* as its own settings, and has no "http-proxy" one: its keys are
	 * "proxy" and "https-proxy", which cover every request (and, as fallbacks, what tools
	 * reading npm's settings look at first). npm 11 warns of the unknown key on every command;
	 * the variable is still read, as Codex sets it, when the caller names a proxy with it.
	 */
	return strcmp(sbx_proxy_vars[i], "NPM_CONFIG_HTTP_PROXY") != 0;
}

/* name in upper case (low false) or lower case, as name[n]. */
static void spell(const char *name, bool low, char *out, size_t n)
{
	size_t k;

	for (k = 0; name[k] && k + 1 < n; k++)
		out[k] = low ? lower(name[k]) : name[k];
	out[k] = '\0';
}

int sbx_proxy_env_own(const struct sbx_loopback_ep *ep, bool local_binding, struct sbx_strv *out)
{
	char where[64];
	int r = 0;

	sbx_loopback_ep_format(ep, where, sizeof(where));
	for (int i = 0; !r && i < SBX_PROXY_VARS_N; i++) {
		char *kv = NULL, name[32];

		for (int low = 0; !r && low < 2; low++) {
			spell(sbx_proxy_vars[i], low, name, sizeof(name));
			/* Not set, and unset: a value inherited would name a proxy out of reach. */
			if (!sbx_proxy_var_own(i))
				kv = strdup(name);
			else if (asprintf(&kv, "%s=http://%s", name, where) < 0)
				kv = NULL;
			r = sbx_strv_push_owned(out, kv);
		}
	}
	/*
	 * Every request goes through the proxy, which decides it (and logs it), whatever a
	 * caller's no-proxy variables said. With local binding the loopback is the command's own,
	 * where its test servers listen: a client that sent those requests to the proxy would
	 * have them taken to the host's loopback instead. Codex's proxy leaves the loopback out
	 * too.
	 */
	for (int i = 0; !r && i < SBX_NO_PROXY_VARS_N; i++) {
		for (int low = 0; !r && low < 2; low++) {
			char *kv = NULL, name[32];

			spell(sbx_no_proxy_vars[i], low, name, sizeof(name));
			if (!local_binding)
				kv = strdup(name);
			else if (asprintf(&kv, "%s=%s", name, SBX_NO_PROXY_LOOPBACK) < 0)
				kv = NULL;
			r = sbx_strv_push_owned(out, kv);
		}
	}
	return r;
}
