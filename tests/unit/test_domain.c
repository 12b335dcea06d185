/* SPDX-License-Identifier: MIT */
/* test_domain.c - hosts, domain patterns, the allow/deny decision, address classes, --listen. */
#include <stdlib.h>

#include "net.h"
#include "t.h"

TEST(domain_host_parse)
{
	static const struct {
		const char *in;
		int kind; /* -1: refused */
		const char *name;
	} cases[] = {
		{"example.com", SBX_HOST_NAME, "example.com"},
		{"Example.COM", SBX_HOST_NAME, "example.com"},
		{"example.com.", SBX_HOST_NAME, "example.com"},
		{"a-b_c.x1.example", SBX_HOST_NAME, "a-b_c.x1.example"},
		{"localhost", SBX_HOST_NAME, "localhost"},
		{"xn--bcher-kva.example", SBX_HOST_NAME, "xn--bcher-kva.example"},
		{"1password.com", SBX_HOST_NAME, "1password.com"},
		{"127.0.0.1", SBX_HOST_IPV4, "127.0.0.1"},
		{"255.255.255.255", SBX_HOST_IPV4, "255.255.255.255"},
		{"[::1]", SBX_HOST_IPV6, "::1"},
		{"[0:0:0:0:0:0:0:1]", SBX_HOST_IPV6, "::1"},
		{"[2001:DB8::A]", SBX_HOST_IPV6, "2001:db8::a"},
		{"[::ffff:127.0.0.1]", SBX_HOST_IPV6, "::ffff:127.0.0.1"},
		{"[2001:db8:0:0:1:0:0:1]", SBX_HOST_IPV6, "2001:db8::1:0:0:1"},
		{"[1:2:3:4:5:6:7:8]", SBX_HOST_IPV6, "1:2:3:4:5:6:7:8"},
		{"[1::]", SBX_HOST_IPV6, "1::"},
		{"", -1, NULL},
		{".", -1, NULL},
		{"example..com", -1, NULL},
		{".example.com", -1, NULL},
		{"example.com..", -1, NULL},
		{"-a.example", -1, NULL},
		{"a-.example", -1, NULL},
		{"ex ample.com", -1, NULL},
		{"ex%41mple.com", -1, NULL},
		{"b\xc3\xbc"
		 "cher.example",
		 -1, NULL},
		{"127.1", -1, NULL},
		{"127.0.0.01", -1, NULL},
		{"0x7f.0.0.1", -1, NULL},
		{"2130706433", -1, NULL},
		{"1.2.3.4.5", -1, NULL},
		{"256.0.0.1", -1, NULL},
		{"example.123", -1, NULL},
		{"::1", -1, NULL},
		{"[::1", -1, NULL},
		{"[fe80::1%25eth0]", -1, NULL},
		{"[1:2:3:4:5:6:7:8:9]", -1, NULL},
		{"[1::2::3]", -1, NULL},
		{"[12345::]", -1, NULL},
		{"[1:2:3:4:5:6:7::8]", -1, NULL},
		{"[:1]", -1, NULL},
		{"[1:]", -1, NULL},
		{"[]", -1, NULL},
		{"user@example.com", -1, NULL},
		{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example", -1,
		 NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_host h;
		const char *why = NULL;
		int r = sbx_host_parse(cases[i].in, strlen(cases[i].in), &h, &why);

		if (cases[i].kind < 0) {
			if (r == 0)
				t_fail(__FILE__, __LINE__, "host '%s' accepted", cases[i].in);
			else
				CHECK(why != NULL);
			continue;
		}
		if (r != 0) {
			t_fail(__FILE__, __LINE__, "host '%s' refused: %s", cases[i].in, why);
			continue;
		}
		CHECK_INT(h.kind, cases[i].kind);
		CHECK_STR(h.name, cases[i].name);
	}
}

TEST(domain_host_length_limits)
{
	char name[300];
	struct sbx_host h;
	const char *why;

	/* 63 characters per label, 253 in all. */
	memset(name, 'a', 63);
	strcpy(name + 63, ".example");
	CHECK_INT(sbx_host_parse(name, strlen(name), &h, &why), 0);
	for (int i = 0; i < 4; i++)
		memcpy(name + i * 64,
		       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.", 64);
	name[253] = '\0';
	CHECK_INT(sbx_host_parse(name, 253, &h, &why), 0);
	name[253] = 'a';
	name[254] = '\0';
	CHECK(sbx_host_parse(name, 254, &h, &why) < 0);
}

static bool matches(const char *pattern, const char *host, unsigned port)
{
	struct sbx_domain_pattern p;
	struct sbx_host h;
	struct sbx_diag d;
	const char *why;

	sbx_diag_clear(&d);
	if (sbx_domain_pattern_parse(pattern, &p, &d) < 0 ||
	    sbx_host_parse(host, strlen(host), &h, &why) < 0) {
		t_fail(__FILE__, __LINE__, "cannot parse '%s' or '%s': %s", pattern, host, d.msg);
		return false;
	}
	return sbx_domain_pattern_match(&p, &h, port);
}

TEST(domain_pattern_match)
{
	static const struct {
		const char *pattern, *host;
		unsigned port;
		bool match;
	} cases[] = {
		{"example.com", "example.com", 443, true},
		{"example.com", "EXAMPLE.com.", 80, true},
		{"example.com", "www.example.com", 443, false},
		{"example.com", "example.com.evil", 443, false},
		{"example.com", "notexample.com", 443, false},
		{"Example.Com.", "example.com", 443, true},
		/* *.D: the names below D at any depth, never D itself (as Codex's proxy). */
		{"*.example.com", "www.example.com", 443, true},
		{"*.example.com", "a.b.example.com", 443, true},
		{"*.example.com", "example.com", 443, false},
		{"*.example.com", "wwwexample.com", 443, false},
		{"*.example.com", "example.com.evil.net", 443, false},
		/* **.D: D and the names below it. */
		{"**.example.com", "example.com", 443, true},
		{"**.example.com", "x.example.com", 443, true},
		{"**.example.com", "xexample.com", 443, false},
		/* Ports. */
		{"example.com:443", "example.com", 443, true},
		{"example.com:443", "example.com", 80, false},
		{"*.example.com:8080", "a.example.com", 8080, true},
		{"*.example.com:8080", "a.example.com", 80, false},
		/* IP literals: exact only, by address. */
		{"127.0.0.1", "127.0.0.1", 80, true},
		{"127.0.0.1", "127.0.0.2", 80, false},
		{"[::1]", "[0::1]", 80, true},
		{"[::1]:8080", "[::1]", 8080, true},
		{"[::1]", "127.0.0.1", 80, false},
		{"[::ffff:127.0.0.1]", "127.0.0.1", 80, false},
		{"*.localhost", "a.localhost", 80, true},
		{"localhost", "localhost.", 80, true},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (matches(cases[i].pattern, cases[i].host, cases[i].port) != cases[i].match)
			t_fail(__FILE__, __LINE__, "'%s' against %s:%u: expected %s",
			       cases[i].pattern, cases[i].host, cases[i].port,
			       cases[i].match ? "a match" : "none");
}

TEST(domain_pattern_parse)
{
	static const struct {
		const char *in, *text; /* text NULL: refused */
	} cases[] = {
		{"Example.COM.", "example.com"},
		{"*.Example.com", "*.example.com"},
		{"**.example.com:443", "**.example.com:443"},
		{"[0:0::1]:8080", "[::1]:8080"},
		{"10.0.0.1:22", "10.0.0.1:22"},
		{"*", NULL},
		{"**", NULL},
		{"*.", NULL},
		{"*example.com", NULL},
		{"foo.*.com", NULL},
		{"a*.example.com", NULL},
		{"***.example.com", NULL},
		{"*.127.0.0.1", NULL},
		{"*.[::1]", NULL},
		{"example.com:", NULL},
		{"example.com:0", NULL},
		{"example.com:65536", NULL},
		{"example.com:080", NULL},
		{"example.com:+80", NULL},
		{"example.com:80:80", NULL},
		{"::1", NULL},
		{"[::1]x", NULL},
		{"http://example.com", NULL},
		{"example.com/path", NULL},
		{"", NULL},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_domain_pattern p;
		struct sbx_diag d;
		int r;

		sbx_diag_clear(&d);
		r = sbx_domain_pattern_parse(cases[i].in, &p, &d);
		if (!cases[i].text) {
			if (r == 0)
				t_fail(__FILE__, __LINE__, "pattern '%s' accepted", cases[i].in);
			else
				CHECK(d.msg[0] != '\0');
			continue;
		}
		if (r != 0) {
			t_fail(__FILE__, __LINE__, "pattern '%s' refused: %s", cases[i].in, d.msg);
			continue;
		}
		CHECK_STR(p.text, cases[i].text);
	}
}

TEST(domain_policy_deny_wins)
{
	struct sbx_domain_policy pol = {0};
	struct sbx_net_decision dec;
	struct sbx_diag d;
	struct sbx_host h;
	const char *why;

	sbx_diag_clear(&d);
	CHECK_INT(sbx_domain_policy_add(&pol, false, "*.example.com", &d), 0);
	CHECK_INT(sbx_domain_policy_add(&pol, false, "registry.npmjs.org", &d), 0);
	CHECK_INT(sbx_domain_policy_add(&pol, true, "evil.example.com", &d), 0);
	CHECK(sbx_domain_policy_add(&pol, true, "*", &d) < 0);

	sbx_host_parse("www.example.com", 15, &h, &why);
	sbx_domain_policy_decide(&pol, &h, 443, &dec);
	CHECK_INT(dec.verdict, SBX_NET_ALLOW);
	CHECK_STR(dec.rule->text, "*.example.com");

	sbx_host_parse("evil.example.com", 16, &h, &why);
	sbx_domain_policy_decide(&pol, &h, 443, &dec);
	CHECK_INT(dec.verdict, SBX_NET_DENY_LISTED);
	CHECK_STR(dec.rule->text, "evil.example.com");

	sbx_host_parse("example.com", 11, &h, &why);
	sbx_domain_policy_decide(&pol, &h, 443, &dec);
	CHECK_INT(dec.verdict, SBX_NET_NOT_ALLOWED);
	CHECK(dec.rule == NULL);

	sbx_domain_policy_free(&pol);
	/* An empty allow list refuses everything. */
	sbx_host_parse("example.com", 11, &h, &why);
	sbx_domain_policy_decide(&pol, &h, 443, &dec);
	CHECK_INT(dec.verdict, SBX_NET_NOT_ALLOWED);
}

static const char *class_of(const char *literal)
{
	struct sbx_host h;
	const char *why;

	if (sbx_host_parse(literal, strlen(literal), &h, &why) < 0) {
		t_fail(__FILE__, __LINE__, "cannot parse '%s'", literal);
		return "?";
	}
	return sbx_addr_class(h.addr, h.kind == SBX_HOST_IPV4 ? 4 : 16);
}

TEST(domain_addr_class)
{
	static const struct {
		const char *addr, *cls; /* cls NULL: public */
	} cases[] = {
		{"127.0.0.1", "loopback"},
		{"127.255.255.254", "loopback"},
		{"10.1.2.3", "private"},
		{"172.16.0.1", "private"},
		{"172.31.255.255", "private"},
		{"172.32.0.1", NULL},
		{"192.168.1.1", "private"},
		{"169.254.169.254", "link-local"},
		{"100.64.0.1", "shared (CGNAT)"},
		{"100.128.0.1", NULL},
		{"0.0.0.0", "unspecified"},
		{"224.0.0.1", "multicast"},
		{"255.255.255.255", "reserved"},
		{"192.0.2.1", "documentation"},
		{"198.18.0.1", "benchmarking"},
		{"8.8.8.8", NULL},
		{"151.101.1.1", NULL},
		{"[::1]", "loopback"},
		{"[::]", "unspecified"},
		{"[::ffff:127.0.0.1]", "loopback"},
		{"[::ffff:10.0.0.1]", "private"},
		{"[::ffff:8.8.8.8]", NULL},
		{"[64:ff9b::127.0.0.1]", "loopback"},
		{"[64:ff9b::8.8.8.8]", NULL},
		{"[2002:7f00:1::]", "loopback"},
		{"[2002:808:808::]", NULL},
		{"[::127.0.0.1]", "reserved"},
		{"[fc00::1]", "unique-local"},
		{"[fd12:3456::1]", "unique-local"},
		{"[fe80::1]", "link-local"},
		{"[febf::1]", "link-local"},
		{"[fec0::1]", "site-local"},
		{"[ff02::1]", "multicast"},
		{"[2001:db8::1]", "documentation"},
		{"[2606:4700::1111]", NULL},
		{"[2a00:1450:4001::200e]", NULL},
		/* the metadata service and the unspecified address, in every IPv6 wrapping */
		{"169.254.0.0", "link-local"},
		{"169.254.255.255", "link-local"},
		{"169.255.0.1", NULL},
		{"0.1.2.3", "unspecified"},
		{"[::ffff:169.254.169.254]", "link-local"},
		{"[::ffff:0.0.0.0]", "unspecified"},
		{"[64:ff9b::169.254.169.254]", "link-local"},
		{"[2002:a9fe:a9fe::]", "link-local"},
		{"[::ffff:127.1.2.3]", "loopback"},
		{"[fe80::a:b:c:d]", "link-local"},
		{"[fec0::1]", "site-local"},
		{"[ff00::]", "multicast"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = class_of(cases[i].addr);

		if (!got != !cases[i].cls || (got && strcmp(got, cases[i].cls) != 0))
			t_fail(__FILE__, __LINE__, "%s: class %s, expected %s", cases[i].addr,
			       got ? got : "public", cases[i].cls ? cases[i].cls : "public");
	}
}

static bool reaches(const char *dest, const char *ifaddr)
{
	struct sbx_host d, i;
	const char *why;

	if (sbx_host_parse(dest, strlen(dest), &d, &why) < 0 ||
	    sbx_host_parse(ifaddr, strlen(ifaddr), &i, &why) < 0) {
		t_fail(__FILE__, __LINE__, "cannot parse '%s' or '%s'", dest, ifaddr);
		return false;
	}
	return sbx_addr_reaches(d.addr, d.kind == SBX_HOST_IPV4 ? 4 : 16, i.addr,
				i.kind == SBX_HOST_IPV4 ? 4 : 16);
}

/* An address of an interface of this host, as a destination: itself, and its mapped form. */
TEST(domain_addr_reaches)
{
	CHECK(reaches("11.22.33.44", "11.22.33.44"));
	CHECK(reaches("[::ffff:11.22.33.44]", "11.22.33.44"));
	CHECK(reaches("[2001:4860::8888]", "[2001:4860::8888]"));
	CHECK(!reaches("11.22.33.45", "11.22.33.44"));
	CHECK(!reaches("[::ffff:11.22.33.45]", "11.22.33.44"));
	/* not the mapped prefix: an IPv6 address of its own, which no IPv4 interface holds */
	CHECK(!reaches("[::11.22.33.44]", "11.22.33.44"));
	CHECK(!reaches("[64:ff9b::11.22.33.44]", "11.22.33.44"));
	CHECK(!reaches("11.22.33.44", "[::ffff:11.22.33.44]"));
	CHECK(!reaches("[2001:4860::8888]", "[2001:4860::8889]"));
}

/* The deny entry a connection to dest on port would meet, as its text; "" for none. */
static const char *denied_by(const struct sbx_domain_policy *pol, const char *dest, unsigned port)
{
	const struct sbx_domain_pattern *p;
	struct sbx_host d;
	const char *why;

	if (sbx_host_parse(dest, strlen(dest), &d, &why) < 0) {
		t_fail(__FILE__, __LINE__, "cannot parse '%s'", dest);
		return "?";
	}
	p = sbx_domain_policy_denies_addr(pol, d.addr, d.kind == SBX_HOST_IPV4 ? 4 : 16, port);
	return p ? p->text : "";
}

/* A denied address is denied however a connection reaches it: the name's answer, mapped, NAT64. */
TEST(domain_policy_denies_addr)
{
	struct sbx_domain_policy pol = {0};
	struct sbx_diag d = {0};

	CHECK_INT(sbx_domain_policy_add(&pol, true, "169.254.169.254", &d), 0);
	CHECK_INT(sbx_domain_policy_add(&pol, true, "10.0.0.5:6379", &d), 0);
	CHECK_INT(sbx_domain_policy_add(&pol, true, "[::ffff:10.0.0.9]", &d), 0);
	CHECK_INT(sbx_domain_policy_add(&pol, true, "[2001:db8::1]", &d), 0);
	CHECK_INT(sbx_domain_policy_add(&pol, true, "metadata.example", &d), 0);
	CHECK_INT(sbx_domain_policy_add(&pol, false, "*.example.com", &d), 0);
	CHECK_STR(denied_by(&pol, "169.254.169.254", 80), "169.254.169.254");
	CHECK_STR(denied_by(&pol, "[::ffff:169.254.169.254]", 80), "169.254.169.254");
	CHECK_STR(denied_by(&pol, "[64:ff9b::169.254.169.254]", 80), "169.254.169.254");
	CHECK_STR(denied_by(&pol, "[2002:a9fe:a9fe::1]", 80), "169.254.169.254");
	CHECK_STR(denied_by(&pol, "169.254.169.253", 80), "");
	/* A port-restricted deny entry: that port only. */
	CHECK_STR(denied_by(&pol, "10.0.0.5", 6379), "10.0.0.5:6379");
	CHECK_STR(denied_by(&pol, "10.0.0.5", 80), "");
	/* A pattern written mapped denies the IPv4 address too. */
	CHECK_STR(denied_by(&pol, "10.0.0.9", 443), "[::ffff:10.0.0.9]");
	CHECK_STR(denied_by(&pol, "[2001:db8::1]", 443), "[2001:db8::1]");
	CHECK_STR(denied_by(&pol, "[2001:db8::2]", 443), "");
	/* Not an IPv4 address inside: the IPv4-compatible form is an IPv6 address of its own. */
	CHECK_STR(denied_by(&pol, "[::169.254.169.254]", 80), "");
	sbx_domain_policy_free(&pol);
}

TEST(domain_addr_format)
{
	static const struct {
		unsigned char a[16];
		const char *text;
	} cases[] = {
		{{0}, "::"},
		{{[15] = 1}, "::1"},
		{{0x20, 0x01, 0x0d, 0xb8, [15] = 1}, "2001:db8::1"},
		{{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1}, "2001:db8:0:1::1"},
		{{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1}, "2001:db8::1:0:0:1"},
		{{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0},
		 "2001:db8:1:1:1:1:1:0"},
		{{0x20, 0x01, 0x0d, 0xb8, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1},
		 "2001:db8:1:0:1:1:1:1"},
		{{0xfe, 0x80, [14] = 0xab, [15] = 0xcd}, "fe80::abcd"},
		{{[10] = 0xff, [11] = 0xff, 10, 0, 0, 1}, "::ffff:10.0.0.1"},
	};
	char buf[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sbx_addr_format(cases[i].a, 16, buf, sizeof(buf));
		CHECK_STR(buf, cases[i].text);
	}
	sbx_addr_format((const unsigned char *)"\x7f\0\0\x01", 4, buf, sizeof(buf));
	CHECK_STR(buf, "127.0.0.1");
}

TEST(domain_listen_addr)
{
	static const struct {
		const char *in;
		int kind; /* -1: refused */
		unsigned port;
	} cases[] = {
		{"127.0.0.1:0", SBX_LISTEN_TCP4, 0},
		{"127.0.0.2:3128", SBX_LISTEN_TCP4, 3128},
		{"localhost:8080", SBX_LISTEN_TCP4, 8080},
		{"[::1]:3128", SBX_LISTEN_TCP6, 3128},
		{"unix:/run/proxy.sock", SBX_LISTEN_UNIX, 0},
		{"0.0.0.0:3128", -1, 0},
		{"10.0.0.1:3128", -1, 0},
		{"[::]:3128", -1, 0},
		{"[fe80::1]:3128", -1, 0},
		{"example.com:3128", -1, 0},
		{"127.0.0.1", -1, 0},
		{"127.0.0.1:", -1, 0},
		{"127.0.0.1:65536", -1, 0},
		{"127.0.0.1:x", -1, 0},
		{"[::1]", -1, 0},
		{"unix:", -1, 0},
		{"", -1, 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_listen_addr a;
		struct sbx_diag d;
		int r;

		sbx_diag_clear(&d);
		r = sbx_listen_addr_parse(cases[i].in, &a, &d);
		if (cases[i].kind < 0) {
			if (r == 0)
				t_fail(__FILE__, __LINE__, "--listen '%s' accepted", cases[i].in);
			continue;
		}
		if (r != 0) {
			t_fail(__FILE__, __LINE__, "--listen '%s' refused: %s", cases[i].in, d.msg);
			continue;
		}
		CHECK_INT(a.kind, cases[i].kind);
		CHECK_INT(a.port, cases[i].port);
	}
}
