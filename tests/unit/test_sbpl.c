/* SPDX-License-Identifier: MIT */
/*
 * test_sbpl.c - the macOS Seatbelt policy generator: glob translation (the vectors sb-01..sb-05
 * run in vectors.c), escaping, the policy built from hand-made roots (sb-07), parameters,
 * hostile paths, symlinks, the sandbox-exec argv and the requirement attacher. Every generated policy goes through the
 * SBPL reader (sbpl_reader.c) before anything else is asserted about it.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sbpl.h"
#include "sbpl_eval.h"
#include "sbpl_reader.h"
#include "sbpl_test.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

/* ---- helpers ------------------------------------------------------------------------------- */

static char *glob_re(const char *glob, enum sbx_sbpl_glob_mode mode)
{
	char *re = NULL;

	CHECK_INT(sbx_sbpl_glob_regex(glob, mode, &re, NULL), 0);
	return re;
}

static void check_glob(const char *glob, enum sbx_sbpl_glob_mode mode, const char *want)
{
	char *re = glob_re(glob, mode);

	CHECK_STR(re, want);
	free(re);
}

/* Builds, then requires the policy to pass the reader's checks. */
static int build(const struct sbx_plan *p, struct sbx_sbpl *s, struct sbx_diag *d)
{
	struct sbx_ctx ctx = {.cwd = "/", .platform = SBX_PLATFORM_MACOS};
	char err[512];
	int rc;

	sbx_diag_clear(d);
	rc = sbx_sbpl_build(p, &ctx, s, d);
	if (rc == 0 && sbpl_check(s->policy, s->params, s->n_params, err, sizeof(err)) != 0)
		t_fail(__FILE__, __LINE__, "policy rejected by the reader: %s", err);
	return rc;
}

static const char *const all_names[] = {".git", ".agents", ".codex"};

/* ---- glob translation, as Codex translates globs for Seatbelt ------------------------------- */

TEST(sbpl_glob_table)
{
	check_glob("/a/*", SBX_SBPL_GLOB_SUBTREE, "^/a/[^/]*$");
	check_glob("/a/?", SBX_SBPL_GLOB_SUBTREE, "^/a/[^/]$");
	check_glob("/a/**/b", SBX_SBPL_GLOB_SUBTREE, "^/a/(.*/)?b$");
	check_glob("/a/**", SBX_SBPL_GLOB_SUBTREE, "^/a/.*$");
	/* "**" inside a component is two single-component stars. */
	check_glob("/a/x**", SBX_SBPL_GLOB_SUBTREE, "^/a/x[^/]*[^/]*$");
	check_glob("/a/[x", SBX_SBPL_GLOB_SUBTREE, "^/a/\\[x(/.*)?$");
	check_glob("/a/{b,c.d}", SBX_SBPL_GLOB_SUBTREE, "^/a/(b|c\\.d)$");
	check_glob("/a/{b,{c,d}}e", SBX_SBPL_GLOB_SUBTREE, "^/a/(b|(c|d))e$");
	check_glob("/a/b}", SBX_SBPL_GLOB_SUBTREE, "^/a/b\\}(/.*)?$");
	check_glob("/a/b,c", SBX_SBPL_GLOB_SUBTREE, "^/a/b,c(/.*)?$");
	check_glob("/a/\\*", SBX_SBPL_GLOB_SUBTREE, "^/a/\\*(/.*)?$");
	check_glob("/a/end\\", SBX_SBPL_GLOB_SUBTREE, "^/a/end\\\\(/.*)?$");
	/* A literal pattern is the path and everything below it, unless exact. */
	check_glob("/a/b.c", SBX_SBPL_GLOB_SUBTREE, "^/a/b\\.c(/.*)?$");
	check_glob("/a/b.c", SBX_SBPL_GLOB_EXACT, "^/a/b\\.c$");
	check_glob("/a+b/(x)|$^", SBX_SBPL_GLOB_SUBTREE, "^/a\\+b/\\(x\\)\\|\\$\\^(/.*)?$");
	/* A backslash before '/' is itself, as in the matcher. */
	check_glob("/a\\/b", SBX_SBPL_GLOB_SUBTREE, "^/a\\\\/b(/.*)?$");
}

/*
 * Character classes are rebuilt from the bytes they match, never copied: ']' first, ranges of
 * plain characters, '/' on its own, a backslash doubled, '[' and '^' late, '-' last; a single
 * byte is an escaped character; a negated class never matches '/'.
 */
TEST(sbpl_glob_classes)
{
	static const struct {
		const char *glob, *re;
	} cases[] = {
		{"/a/[!0-9]x", "^/a/[^0-9/]x$"},
		{"/a/[^0-9]x", "^/a/[^0-9/]x$"},
		{"/a/[]x]", "^/a/[]x]$"},
		{"/a/[!]]", "^/a/[^]/]$"},
		{"/a/[a-c]", "^/a/[a-c]$"},
		{"/a/[a-b]", "^/a/[ab]$"},
		{"/a/[cba]", "^/a/[a-c]$"},
		{"/a/[.]", "^/a/\\.$"},
		{"/a/[-]", "^/a/-$"},
		{"/a/[x-]", "^/a/[x-]$"},
		{"/a/[]-]", "^/a/[]-]$"},
		{"/a/[-^]", "^/a/[-^]$"},
		{"/a/[^^]", "^/a/[^/^]$"},
		{"/a/[!-]", "^/a/[^/-]$"},
		{"/a/[[]", "^/a/\\[$"},
		{"/a/[.[]", "^/a/[.[]$"},
		{"/a/[\\]]", "^/a/\\]$"},
		{"/a/[\\\\]", "^/a/\\\\$"},
		{"/a/[a\\\\]", "^/a/[a\\\\]$"},
		{"/a/[\\-a]", "^/a/[a-]$"},
		{"/a/[+--]", "^/a/[+,-]$"},
		{"/a/[*?]", "^/a/[*?]$"},
		{"/a/[!a-z0-9]", "^/a/[^0-9a-z/]$"},
		/* A class never crosses '/': "[x" is an unclosed, literal '['. */
		{"/a/[x/y]", "^/a/\\[x/y\\](/.*)?$"},
	};
	static const char *const refused[] = {
		"/a/[[:digit:]]", "/a/[[.a.]]", "/a/[[=a=]]", "/a/x[a[:alpha:]]",
		"/a/[\xc3\xa9]",  "/a/[!\xc3]", "/a/[b-a]",
	};
	struct sbx_diag d;
	char *re;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_glob(cases[i].glob, SBX_SBPL_GLOB_SUBTREE, cases[i].re);
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		re = NULL;
		sbx_diag_clear(&d);
		CHECK_INT(sbx_sbpl_glob_regex(refused[i], SBX_SBPL_GLOB_SUBTREE, &re, &d),
			  SBX_E_INVALID);
		CHECK(re == NULL);
		CHECK(strstr(d.msg, refused[i]) != NULL);
		CHECK(!strchr(d.msg, '\n'));
		free(re);
	}
	sbx_diag_clear(&d);
	sbx_sbpl_glob_regex("/a/[[:digit:]]", SBX_SBPL_GLOB_SUBTREE, &re, &d);
	CHECK_STR(d.msg, "deny glob `/a/[[:digit:]]`: `[:` in a character class is POSIX class "
			 "syntax, which globs do not have");
	CHECK(strstr(d.hint, "[0-9]") != NULL);
	/* An unclosed "[" followed by what looks like POSIX syntax is just literal text. */
	check_glob("/a/x[[:", SBX_SBPL_GLOB_SUBTREE, "^/a/x\\[\\[:(/.*)?$");
}

/*
 * The regexes match exactly what the glob matcher (lib/glob.c) matches, on a corpus of
 * patterns and names built to probe classes, escapes and stars. Literal patterns also cover
 * the subtree below them (sbxrun-profile(5), PRECEDENCE: a denied path denies its contents),
 * and brace alternatives are macOS syntax only, so neither is in the corpus.
 */
TEST(sbpl_glob_agrees_with_matcher)
{
	static const char *const globs[] = {
		"/r/*.env",   "/r/[!a-c]y", "/r/[]-]z",	 "/r/a[\\]]b", "/r/[.[]x",    "/r/c[^^]d",
		"/r/k[0-9]?", "/r/\\*x*",   "/r/[x-]*",	 "/r/[!.]*",   "/r/**/*.env", "/r/*/k/*",
		"/r/[a\\-z]", "/r/[+--]",   "/r/x[!/]y", "/r/[\\\\]",
	};
	static const char *const names[] = {
		"a.env", "x/a.env", "x/y/a.env", "by",	"dy", "]z",  "-z",  "az",    "a]b",
		"a\\]b", "a\\b",    ".x",	 "[x",	"ax", "c.d", "c^d", "k7",    "k7z",
		"kz",	 "*xa",	    "ax",	 "x-q", "-",  ".a",  "b",   "x/k/q", "x/y/k/q",
		"a",	 "z",	    "\\",	 "+",	",",  "x/y", "xy",  "x.y",
	};

	for (size_t i = 0; i < sizeof(globs) / sizeof(globs[0]); i++) {
		char *re = glob_re(globs[i], SBX_SBPL_GLOB_SUBTREE);

		for (size_t k = 0; re && k < sizeof(names) / sizeof(names[0]); k++) {
			char *path = st_join("/r", names[k]);
			int want = sbx_glob_match(globs[i], path);

			if (sbpl_regex_matches(re, path) != want)
				t_fail(__FILE__, __LINE__, "%s (%s) on %s: the matcher says %d",
				       globs[i], re, path, want);
			free(path);
		}
		free(re);
	}
}

/* The regexes must mean, to a POSIX regex engine, what the glob means. */
TEST(sbpl_glob_semantics)
{
	static const struct {
		const char *glob, *path;
		int hit;
	} cases[] = {
		{"/r/**/*.env", "/r/a.env", 1},
		{"/r/**/*.env", "/r/x/y/a.env", 1},
		{"/r/**/*.env", "/r/x/a.envx", 0},
		{"/r/**/*.env", "/ra.env", 0},
		{"/r/*.env", "/r/x/a.env", 0},
		{"/r/?", "/r/ab", 0},
		{"/r/?", "/r/a", 1},
		{"/r/{a,b}", "/r/b", 1},
		{"/r/{a,b}", "/r/c", 0},
		{"/r/secret", "/r/secret", 1},
		{"/r/secret", "/r/secret/x", 1},
		{"/r/secret", "/r/secretx", 0},
		{"/r/a.b", "/r/aXb", 0},
		{"/r/[x", "/r/[x", 1},
		{"/r/\\?", "/r/?", 1},
		{"/r/\\?", "/r/a", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *re = glob_re(cases[i].glob, SBX_SBPL_GLOB_SUBTREE);

		if (sbpl_regex_matches(re, cases[i].path) != cases[i].hit)
			t_fail(__FILE__, __LINE__, "%s (%s) on %s: expected %d", cases[i].glob, re,
			       cases[i].path, cases[i].hit);
		free(re);
	}
}

TEST(sbpl_glob_ancestors)
{
	char **a = NULL;
	size_t n = 0;

	CHECK_INT(sbx_sbpl_glob_ancestors("/tmp/repo/**/*.env", &a, &n, NULL), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(a[0], "^/tmp$");
		CHECK_STR(a[1], "^/tmp/repo$");
	}
	sbpl_strv_free(a, n);
	/* sb-04: a prefix cut inside braces closes them. */
	CHECK_INT(sbx_sbpl_glob_ancestors("/tmp/repo/{private/x,y}/z", &a, &n, NULL), 0);
	CHECK_INT(n, 4);
	if (n == 4) {
		CHECK_STR(a[2], "^/tmp/repo/(private)$");
		CHECK_STR(a[3], "^/tmp/repo/(private/x|y)$");
	}
	sbpl_strv_free(a, n);
	CHECK_INT(sbx_sbpl_glob_ancestors("/x", &a, &n, NULL), 0);
	CHECK_INT(n, 0);
	sbpl_strv_free(a, n);
	/* Past single-level wildcards, up to a "**". */
	CHECK_INT(sbx_sbpl_glob_ancestors("/a/b[0-9]/c/d", &a, &n, NULL), 0);
	CHECK_INT(n, 3);
	if (n == 3)
		CHECK_STR(a[2], "^/a/b[0-9]/c$");
	sbpl_strv_free(a, n);
	CHECK_INT(sbx_sbpl_glob_ancestors("/w/*/k/**/x", &a, &n, NULL), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(a[1], "^/w/[^/]*$");
		CHECK_STR(a[2], "^/w/[^/]*/k$");
	}
	sbpl_strv_free(a, n);
	/* A class is one component: no prefix ends inside it. */
	CHECK_INT(sbx_sbpl_glob_ancestors("/w/[x/]y/z", &a, &n, NULL), 0);
	CHECK_INT(n, 3);
	if (n == 3)
		CHECK_STR(a[1], "^/w/\\[x$");
	sbpl_strv_free(a, n);
	CHECK_INT(sbx_sbpl_glob_ancestors("/w/[[:alpha:]]/z", &a, &n, NULL), SBX_E_INVALID);
}

TEST(sbpl_glob_braces)
{
	char **v = NULL;
	size_t n = 0;

	CHECK_INT(sbx_sbpl_glob_braces("/a/{b,c{d,e}}/x", &v, &n), 0);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_STR(v[0], "/a/b/x");
		CHECK_STR(v[1], "/a/cd/x");
		CHECK_STR(v[2], "/a/ce/x");
	}
	sbpl_strv_free(v, n);
	/* Escaped braces and commas, and braces inside a class, are not alternatives. */
	CHECK_INT(sbx_sbpl_glob_braces("/a/\\{b,c}/[{]", &v, &n), 0);
	CHECK_INT(n, 1);
	sbpl_strv_free(v, n);
	CHECK_INT(sbx_sbpl_glob_braces("/a/{b\\,c,d}", &v, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2)
		CHECK_STR(v[0], "/a/b\\,c");
	sbpl_strv_free(v, n);
	/* An unclosed "{" runs to the end, as in the translation. */
	CHECK_INT(sbx_sbpl_glob_braces("/a/{b,c", &v, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2)
		CHECK_STR(v[1], "/a/c");
	sbpl_strv_free(v, n);
	/* 3^6 = 729 alternatives is more than the limit. */
	CHECK_INT(sbx_sbpl_glob_braces("/{a,b,c}{a,b,c}{a,b,c}{a,b,c}{a,b,c}{a,b,c}", &v, &n),
		  -E2BIG);
}

/* ---- literals and escaping --------------------------------------------------------------- */

static char *literal(const char *re)
{
	struct sbx_buf b = {0};

	sbx_sbpl_regex_literal(&b, re);
	return sbx_buf_steal(&b);
}

TEST(sbpl_regex_escape_and_literals)
{
	struct sbx_buf b = {0};
	char *s, *lit, *pol;
	struct sbpl_node root;
	char err[256];
	const char *meta = ".^$*+?()[]{}|\\";

	sbx_sbpl_regex_escape(&b, meta);
	s = sbx_buf_steal(&b);
	CHECK_STR(s, "\\.\\^\\$\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\\\");
	CHECK_INT(sbpl_regex_matches(s, meta), 1);
	free(s);

	lit = literal("^/a\\.b$");
	CHECK_STR(lit, "#\"^/a\\.b$\"");
	free(lit);
	/* A double quote or a control character switches to a string with escapes. */
	lit = literal("^/a\"b\\.c$");
	CHECK_STR(lit, "\"^/a\\\"b\\\\.c$\"");
	pol = malloc(strlen(lit) + 16);
	sprintf(pol, "(regex %s)", lit);
	CHECK_INT(sbpl_parse(pol, &root, err, sizeof(err)), 0);
	if (root.n == 1 && root.kids[0].n == 2)
		CHECK_STR(root.kids[0].kids[1].text, "^/a\"b\\.c$");
	sbpl_node_free(&root);
	free(pol);
	free(lit);
	lit = literal("^/a\nb$");
	CHECK_STR(lit, "\"^/a\nb$\"");
	free(lit);
}

/* The reader itself must reject what it is there to catch. */
TEST(sbpl_reader_rejects)
{
	static const char *const bad[] = {
		"(version 1)\n(allow file-read*",
		"(version 1))",
		"(version 1)\n(allow file-read* (subpath \"/x))",
		"(version 1)\n(allow file-read* (regex #\"^/x))",
		"(version 1)\n(allow file-read* (subpath \"a\\nb\"))",
		"(version 1)\n(frobnicate)",
		"(allow file-read*)",
		"(version 1)\n(allow file-reed*)",
		"(version 1)\n(allow file-read* (subpaht \"/\"))",
		"(version 1)\n(allow file-read* (subpath (param \"MISSING\")))",
		"(version 1)\n(allow file-read* (regex #\"^/x[\"))",
		"(version 1)\n(allow file-read* (regex #\"^/x\ny\"))",
		/* addresses: Seatbelt takes * or localhost for a host, * or 1-65535 for a port */
		"(version 1)\n(allow network-outbound (remote ip \"10.0.0.1:80\"))",
		"(version 1)\n(allow network-outbound (remote ip \"localhost:0\"))",
		"(version 1)\n(allow network-outbound (remote ip \"localhost:65536\"))",
		"(version 1)\n(allow network-outbound (remote ip \"localhost\"))",
		"(version 1)\n(allow network-outbound (remote ip))",
		"(version 1)\n(allow network-outbound (remote tcp \"*:80\"))",
		"(version 1)\n(allow network-outbound (remote unix-socket (global-name \"x\")))",
		"(version 1)\n(allow network-bind (local unix-socket (subpath \"/a\") (subpath "
		"\"/b\")))",
		"(version 1)\n(allow network-connect (remote ip \"*:*\"))",
	};
	char *const params[] = {(char *)"USED=/u"};
	char *const unused[] = {(char *)"USED=/u", (char *)"EXTRA=/e"};
	char *const twice[] = {(char *)"USED=/u", (char *)"USED=/v"};
	const char *ok = "(version 1)\n; c (\n(allow file-read* (subpath (param \"USED\")))\n";
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sbpl_check(bad[i], params, 0, err, sizeof(err)) == 0)
			t_fail(__FILE__, __LINE__, "accepted: %s", bad[i]);
	CHECK_INT(sbpl_check(ok, params, 1, err, sizeof(err)), 0);
	/* The controls of the address cases: the forms the generator writes. */
	CHECK_INT(
		sbpl_check("(version 1)\n(allow network-outbound (remote ip \"localhost:3128\"))\n"
			   "(allow network-bind (local ip \"*:*\"))\n"
			   "(allow network-outbound (remote unix-socket))\n"
			   "(allow network-bind (local unix-socket (subpath (param \"USED\"))))\n",
			   params, 1, err, sizeof(err)),
		0);
	CHECK_INT(sbpl_check(ok, unused, 2, err, sizeof(err)), -1);
	CHECK(strstr(err, "EXTRA") != NULL);
	CHECK_INT(sbpl_check(ok, twice, 2, err, sizeof(err)), -1);
	CHECK(strstr(err, "twice") != NULL);
}

/* ---- the evaluator itself ------------------------------------------------------------------ */

static int ask(const struct sbpl_policy *pol, const char *op, const char *path, const char *vnode,
	       unsigned long ioctl)
{
	struct sbpl_query q = {.op = op, .path = path, .vnode = vnode, .ioctl = ioctl};
	char err[256];

	return sbpl_allows(pol, &q, NULL, err, sizeof(err));
}

/* Seatbelt's rules of decision, on a policy written by hand. */
TEST(sbpl_eval_semantics)
{
	static const char policy[] =
		"(version 1)\n"
		"(deny default)\n"
		"(allow file-read* (subpath \"/a\"))\n"
		"(deny file-read* (subpath \"/a/x\"))\n"
		"(allow file-read-data (require-all (subpath (param \"P\")) (require-not (regex "
		"#\"\\.env$\"))))\n"
		"(allow file-write* (literal \"/w/1\") (regex #\"^/w/2$\"))\n"
		"(deny file-write-unlink (require-all (vnode-type DIRECTORY) (subpath \"/w\")))\n"
		"(allow file-ioctl (regex #\"^/dev/ttys[0-9]+$\"))\n"
		"(deny file-ioctl (ioctl-command TIOCSTI))\n"
		"(allow network-outbound)\n"
		"(allow mach-lookup (global-name \"x\"))\n";
	char *params[] = {(char *)"P=/a/x"}, err[256];
	struct sbpl_policy *pol = sbpl_policy_load(policy, params, 1, err, sizeof(err));
	struct sbpl_query q = {.op = "file-read-data"};
	int line = 0;

	CHECK(pol != NULL);
	if (!pol)
		return;
	CHECK_INT(ask(pol, "file-read-data", "/a/y", "REGULAR-FILE", 0), 1);
	CHECK_INT(ask(pol, "file-read-data", "/ab", "REGULAR-FILE", 0), 0); /* by components */
	CHECK_INT(ask(pol, "file-read-data", "/a/x", "DIRECTORY", 0), 1);   /* the last rule */
	CHECK_INT(ask(pol, "file-read-data", "/a/x/k.txt", "REGULAR-FILE", 0), 1);
	CHECK_INT(ask(pol, "file-read-data", "/a/x/k.env", "REGULAR-FILE", 0), 0); /* require-not */
	CHECK_INT(ask(pol, "file-read-metadata", "/a/x/k.txt", "REGULAR-FILE", 0), 0);
	CHECK_INT(ask(pol, "file-write-data", "/w/1", "REGULAR-FILE", 0), 1); /* filters: any */
	CHECK_INT(ask(pol, "file-write-data", "/w/2", "REGULAR-FILE", 0), 1);
	CHECK_INT(ask(pol, "file-write-data", "/w/3", "REGULAR-FILE", 0), 0);
	CHECK_INT(ask(pol, "file-write-unlink", "/w/1", "DIRECTORY", 0), 0);
	CHECK_INT(ask(pol, "file-write-unlink", "/w/1", "REGULAR-FILE", 0), 1);
	CHECK_INT(ask(pol, "file-ioctl", "/dev/ttys001", "CHARACTER-DEVICE", SBPL_TIOCSTI), 0);
	CHECK_INT(ask(pol, "file-ioctl", "/dev/ttys001", "CHARACTER-DEVICE", SBPL_TIOCGWINSZ), 1);
	CHECK_INT(ask(pol, "file-ioctl", "/dev/ttysx", "CHARACTER-DEVICE", SBPL_TIOCGWINSZ), 0);
	CHECK_INT(ask(pol, "network-outbound", NULL, NULL, 0), 1);
	CHECK_INT(ask(pol, "network-inbound", NULL, NULL, 0), 0);
	/* What the query cannot answer is an error, never a guess. */
	CHECK_INT(ask(pol, "mach-lookup", NULL, NULL, 0), -1);
	CHECK_INT(ask(pol, "file-read-data", NULL, NULL, 0), -1);
	CHECK_INT(ask(pol, "file-write-unlink", "/w/1", NULL, 0), -1);
	q.path = "/a/x/k.txt";
	q.vnode = "REGULAR-FILE";
	CHECK_INT(sbpl_allows(pol, &q, &line, err, sizeof(err)), 1);
	CHECK_INT(line, 5);
	sbpl_policy_free(pol);
	/* An undefined parameter, and a policy where no rule decides. */
	pol = sbpl_policy_load(policy, NULL, 0, err, sizeof(err));
	CHECK_INT(ask(pol, "file-read-data", "/a/x/k.txt", "REGULAR-FILE", 0), -1);
	sbpl_policy_free(pol);
	pol = sbpl_policy_load("(version 1)\n(allow file-read* (subpath \"/a\"))\n", NULL, 0, err,
			       sizeof(err));
	CHECK_INT(ask(pol, "file-read-data", "/b", "REGULAR-FILE", 0), -1);
	sbpl_policy_free(pol);
}

/* The network filters, on a policy written by hand. */
TEST(sbpl_eval_network)
{
	static const char policy[] =
		"(version 1)\n"
		"(deny default)\n"
		"(allow network-outbound (remote ip \"localhost:3128\"))\n"
		"(allow network-bind (local ip \"*:*\"))\n"
		"(allow network-inbound (local ip \"localhost:*\"))\n"
		"(allow network-outbound (remote unix-socket (subpath (param \"S\"))))\n"
		"(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol "
		"2)))\n";
	char *params[] = {(char *)"S=/run/ok"}, err[256];
	struct sbpl_policy *pol = sbpl_policy_load(policy, params, 1, err, sizeof(err));
	struct sbpl_query q = {.op = "network-outbound"};

	CHECK(pol != NULL);
	if (!pol)
		return;
#define ASK(...)                                                                                   \
	(q = (struct sbpl_query){__VA_ARGS__}, sbpl_allows(pol, &q, NULL, err, sizeof(err)))
	CHECK_INT(ASK(.op = "network-outbound", .remote = "127.0.0.1:3128"), 1);
	CHECK_INT(ASK(.op = "network-outbound", .remote = "127.9.9.9:3128"), 1);
	CHECK_INT(ASK(.op = "network-outbound", .remote = "[::1]:3128"), 1);
	CHECK_INT(ASK(.op = "network-outbound", .remote = "localhost:3128"), 1);
	CHECK_INT(ASK(.op = "network-outbound", .remote = "127.0.0.1:3129"), 0);
	CHECK_INT(ASK(.op = "network-outbound", .remote = "10.0.0.1:3128"), 0);
	CHECK_INT(ASK(.op = "network-outbound", .remote = "[::2]:3128"), 0);
	CHECK_INT(ASK(.op = "network-bind", .local = "0.0.0.0:80"), 1);
	CHECK_INT(ASK(.op = "network-inbound", .local = "127.0.0.1:80"), 1);
	CHECK_INT(ASK(.op = "network-inbound", .local = "10.0.0.1:80"), 0);
	/* Unix sockets: by path, through the nested path filter; an ip filter never matches one. */
	CHECK_INT(ASK(.op = "network-outbound", .remote = "/run/ok"), 1);
	CHECK_INT(ASK(.op = "network-outbound", .remote = "/run/ok/x.sock"), 1);
	CHECK_INT(ASK(.op = "network-outbound", .remote = "/run/ok2"), 0);
	CHECK_INT(ASK(.op = "network-bind", .local = "/run/ok/x.sock"), 0); /* not (local ip *:*) */
	CHECK_INT(ASK(.op = "system-socket", .socket_domain = "AF_SYSTEM", .socket_protocol = 2),
		  1);
	CHECK_INT(ASK(.op = "system-socket", .socket_domain = "AF_SYSTEM", .socket_protocol = 1),
		  0);
	CHECK_INT(ASK(.op = "system-socket", .socket_domain = "AF_UNIX"), 0);
	/* What the query cannot answer is an error: an address filter with no address. */
	CHECK_INT(ASK(.op = "network-outbound"), -1);
	CHECK_INT(ASK(.op = "network-bind"), -1);
	CHECK_INT(ASK(.op = "system-socket"), -1);
#undef ASK
	sbpl_policy_free(pol);
}

/* ---- policies from hand-made roots ----------------------------------------------------------- */

TEST(sbpl_base_policy)
{
	struct sbx_plan p = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;

	/* Nothing granted: the base policy, no file access, no network, no parameters. */
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK(strncmp(s.policy, "(version 1)\n(deny default)\n", 27) == 0);
	CHECK(st_has(s.policy, "(allow process-exec)"));
	CHECK(st_has(s.policy, "(allow signal (target same-sandbox))"));
	CHECK(st_has(s.policy, "(allow process-info* (target same-sandbox))"));
	CHECK(st_has(s.policy, "(literal \"/dev/null\") (vnode-type CHARACTER-DEVICE)"));
	CHECK(st_has(s.policy, "(sysctl-name-prefix \"kern.proc.pid.\")"));
	CHECK(st_has(s.policy, "(allow pseudo-tty)"));
	CHECK(!strstr(s.policy, "(allow file-read*\n"));
	CHECK(!strstr(s.policy, "(allow file-write*\n"));
	CHECK(!strstr(s.policy, "network-outbound"));
	CHECK_INT(s.n_params, 0);
	sbx_sbpl_free(&s);
}

TEST(sbpl_full_access_and_network)
{
	struct sbx_plan p = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;

	p.roots.full_read = p.roots.full_write = true;
	p.network = true;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK(st_has(s.policy, "; allow read-only file operations\n(allow file-read*)\n"));
	CHECK(st_has(s.policy, "(allow file-write* (regex #\"^/\"))"));
	CHECK(st_has(s.policy, "(allow network-outbound)\n(allow network-inbound)\n"));
	CHECK(st_has(s.policy, "(global-name \"com.apple.SystemConfiguration.DNSConfiguration\")"));
	CHECK(st_has(s.policy, "(allow user-preference-read)"));
	CHECK_INT(s.n_params, 0);
	sbx_sbpl_free(&s);

	/* Restricted network, or managed network without proxy endpoints: no network rule at all. */
	p.network = false;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK(!strstr(s.policy, "network-"));
	CHECK(!strstr(s.policy, "system-socket"));
	sbx_sbpl_free(&s);
	p.network = true;
	p.managed_network = true;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK(!strstr(s.policy, "network-"));
	sbx_sbpl_free(&s);
}

/* Vector sb-07: [root:write, /tmp/codex-unreadable:deny] with cwd "/". */
TEST(sbpl_sb07_hand_made_roots)
{
	json_t *v = vec_get("sb-07"), *exp, *item;
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *ro[] = {(char *)"/.codex"}, *deny[] = {(char *)"/tmp/codex-unreadable"};
	char *tmp = realpath("/tmp", NULL), *canon = st_join(tmp, "codex-unreadable");
	size_t i;

	w.root = (char *)"/";
	w.read_only = ro;
	w.n_read_only = 1;
	memcpy(w.protected_missing, all_names, sizeof(all_names));
	w.n_protected_missing = 3;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	p.roots.unreadable = deny;
	p.roots.n_unreadable = 1;
	CHECK_INT(build(&p, &s, &d), 0);
	if (!v || !s.policy)
		goto out;
	exp = json_object_get(v, "expected");
	json_array_foreach(json_object_get(exp, "policy_contains"), i, item)
		CHECK(st_has(s.policy, json_string_value(item)));
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0"), "/");
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_0"), "/.codex");
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_1"), canon);
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0"), "/");
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0_EXCLUDED_0"), canon);
	/* Parameter order: readable roots, writable roots, protected ancestors. */
	CHECK_STR(s.params[0], "READABLE_ROOT_0=/");
	CHECK(strncmp(s.params[2], "WRITABLE_ROOT_0=", 16) == 0);
	/* /tmp holds a denied path and is writable: it must stay where it is. */
	CHECK_STR(sbpl_param(s.params, s.n_params, "PROTECTED_ANCESTOR_0"), tmp);
	CHECK(st_has(s.policy, "(deny file-write-unlink (require-all (vnode-type DIRECTORY) "
			       "(literal (param \"PROTECTED_ANCESTOR_0\"))))"));
	CHECK(st_has(s.policy, "(deny file-write-unlink (require-all (literal (param "
			       "\"WRITABLE_ROOT_0\")) (vnode-type DIRECTORY)))"));
	/* Not full read: no preferences section. */
	CHECK(!strstr(s.policy, "user-preference-read"));
out:
	sbx_sbpl_free(&s);
	free(tmp);
	free(canon);
}

/* Full write with a denied path becomes a carved "/" on both sides. */
TEST(sbpl_full_write_with_deny)
{
	struct sbx_plan p = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *dir = st_tempdir(), *secret = st_join(dir, "secret");
	char *deny[] = {secret};

	p.roots.full_read = p.roots.full_write = true;
	p.roots.unreadable = deny;
	p.roots.n_unreadable = 1;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0"), "/");
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0_EXCLUDED_0"), secret);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0"), "/");
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_0"), secret);
	CHECK(!strstr(s.policy, "(allow file-read*)\n"));
	CHECK(!strstr(s.policy, "(regex #\"^/\")"));
	/* The temp dir and /tmp above the secret cannot be renamed away. */
	CHECK_STR(sbpl_param(s.params, s.n_params, "PROTECTED_ANCESTOR_0"), dir);
	sbx_sbpl_free(&s);
	st_rmdir(dir);
	free(secret);
	free(dir);
}

/* A workspace: read everywhere, write the workspace minus its metadata and a carve-out. */
TEST(sbpl_workspace_roots)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *ws = st_tempdir(), *git = st_join(ws, ".git"), *docs = st_join(ws, "docs");
	char *deep = st_join(docs, "ro"), *secret = st_join(ws, "secret");
	char *ro[] = {git, deep}, *deny[] = {secret}, *globs[2];
	char key[64], *re;

	CHECK_INT(mkdir(git, 0700), 0);
	w.root = ws;
	w.read_only = ro;
	w.n_read_only = 2;
	memcpy(w.protected_missing, all_names, sizeof(all_names));
	w.n_protected_missing = 3;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	p.roots.unreadable = deny;
	p.roots.n_unreadable = 1;
	p.roots.full_read = true;
	globs[0] = st_join(ws, "**/*.env");
	globs[1] = st_join(ws, "id_rsa");
	p.roots.deny_globs = globs;
	p.roots.n_deny_globs = 2;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0"), ws);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_0"), git);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_1"), deep);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_2"), secret);
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0_EXCLUDED_0"), secret);
	/* docs/ lies between the root and a carve-out: it is a protected ancestor. */
	CHECK_STR(sbpl_param(s.params, s.n_params, "PROTECTED_ANCESTOR_0"), docs);
	CHECK(sbpl_param(s.params, s.n_params, "PROTECTED_ANCESTOR_1") == NULL);
	/* Metadata names are regexes built from the escaped root. */
	snprintf(key, sizeof(key), "%s/.agents/x", ws);
	re = malloc(strlen(ws) * 2 + 32);
	strcpy(re, "^");
	{
		struct sbx_buf b = {0};

		sbx_sbpl_regex_escape(&b, ws);
		strcat(re, b.s);
		sbx_buf_free(&b);
	}
	strcat(re, "/\\.agents(/.*)?$");
	CHECK(st_has(s.policy, re));
	CHECK_INT(sbpl_regex_matches(re, key), 1);
	free(re);
	/* Deny globs: read and write denied, and the directories above them kept in place. */
	CHECK(st_has(s.policy, "/(.*/)?[^/]*\\.env$\"))\n"));
	CHECK(st_has(s.policy, "/id_rsa(/.*)?$\"))\n"));
	CHECK(st_has(s.policy, "(deny file-write-unlink (require-all (vnode-type DIRECTORY) (regex "
			       "#\"^/tmp$\")))"));
	sbx_sbpl_free(&s);
	st_rmdir(ws);
	free(globs[0]);
	free(globs[1]);
	free(git);
	free(docs);
	free(deep);
	free(secret);
	free(ws);
}

/* Restricted read: listed roots only; a writable root is readable too; platform defaults. */
TEST(sbpl_restricted_read_minimal)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *dir = st_tempdir(), *ws = st_join(dir, "ws"), *lib = st_join(dir, "lib");
	char *readable[] = {lib};

	CHECK_INT(mkdir(ws, 0700), 0);
	CHECK_INT(mkdir(lib, 0700), 0);
	w.root = ws;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	p.roots.readable = readable;
	p.roots.n_readable = 1;
	p.roots.platform_defaults = true;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0"), lib);
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_1"), ws);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0"), ws);
	CHECK_INT(s.n_params, 3);
	CHECK(st_has(s.policy, "(allow file-read*\n  (subpath (param \"READABLE_ROOT_0\"))\n"
			       "  (subpath (param \"READABLE_ROOT_1\"))\n)\n"));
	CHECK(st_has(s.policy, "(subpath \"/usr/lib\")"));
	CHECK(st_has(s.policy, "(allow file-map-executable"));
	CHECK(!strstr(s.policy, "user-preference-read"));
	sbx_sbpl_free(&s);

	/* A readable root covering the writable one makes a second read grant unnecessary. */
	readable[0] = dir;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0"), dir);
	CHECK(sbpl_param(s.params, s.n_params, "READABLE_ROOT_1") == NULL);
	sbx_sbpl_free(&s);
	st_rmdir(dir);
	free(ws);
	free(lib);
	free(dir);
}

/* deny /d, write /d/w: the writable root is readable again although its parent is denied. */
TEST(sbpl_writable_root_inside_denied_tree)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *dir = st_tempdir(), *denied = st_join(dir, "d"), *ws = st_join(denied, "w");
	char *readable[] = {(char *)"/"}, *deny[] = {denied};

	CHECK_INT(mkdir(denied, 0700), 0);
	CHECK_INT(mkdir(ws, 0700), 0);
	w.root = ws;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	p.roots.readable = readable;
	p.roots.n_readable = 1;
	p.roots.unreadable = deny;
	p.roots.n_unreadable = 1;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0"), "/");
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_0_EXCLUDED_0"), denied);
	CHECK_STR(sbpl_param(s.params, s.n_params, "READABLE_ROOT_1"), ws);
	CHECK(sbpl_param(s.params, s.n_params, "READABLE_ROOT_1_EXCLUDED_0") == NULL);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0"), ws);
	CHECK(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_0") == NULL);
	sbx_sbpl_free(&s);
	st_rmdir(dir);
	free(denied);
	free(ws);
	free(dir);
}

/* A writable file (not a directory) is granted as a literal. */
TEST(sbpl_writable_file_literal)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *dir = st_tempdir(), *file = st_join(dir, "f");
	FILE *f = fopen(file, "w");

	if (f)
		fclose(f);
	w.root = file;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK(st_has(s.policy, "(allow file-write*\n  (literal (param \"WRITABLE_ROOT_0\"))\n)"));
	sbx_sbpl_free(&s);
	st_rmdir(dir);
	free(file);
	free(dir);
}

/* ---- symlinks ------------------------------------------------------------------------------- */

TEST(sbpl_writable_root_deeper_symlink_refused)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	struct sbx_req req = {0};
	char *dir = st_tempdir(), *real = st_join(dir, "real"), *link = st_join(dir, "link");
	char *root = st_join(link, "sub"), want[2048];

	CHECK_INT(mkdir(real, 0700), 0);
	CHECK_INT(symlink(real, link), 0);
	w.root = root;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	CHECK_INT(build(&p, &s, &d), SBX_E_UNENFORCEABLE);
	snprintf(want, sizeof(want),
		 "writable root %s contains symlink component %s; symlinked writable roots are "
		 "not supported",
		 root, link);
	CHECK_STR(d.msg, want);
	CHECK(s.policy == NULL && s.params == NULL);

	/* The attacher says the same about the requirement, and nothing else is touched. */
	req.kind = SBX_REQ_WRITE;
	req.path = root;
	req.path_kept = true; /* the test's: the release below frees only what the plan added */
	p.reqs = &req;
	p.n_reqs = 1;
	CHECK_INT(sbx_plan_attach_macos(&p, true), 0);
	CHECK_INT(req.status, SBX_UNENFORCEABLE);
	CHECK(req.mech == SBX_MECH_SEATBELT);
	CHECK(sbx_req_reason(&req) && strncmp(sbx_req_reason(&req), want, strlen(want)) == 0);
	sbx_req_release(&req);
	req.kind = SBX_REQ_WRITE;
	req.path = real;
	req.path_kept = true;
	CHECK_INT(sbx_plan_attach_macos(&p, true), 0);
	CHECK_INT(req.status, SBX_ENFORCED);
	CHECK(sbx_req_reason(&req) == NULL);
	sbx_req_release(&req);

	st_rmdir(dir);
	free(real);
	free(link);
	free(root);
	free(dir);
}

/*
 * A symlinked top-level component is resolved (macOS: /tmp -> /private/tmp). Debian's merged
 * /usr has /bin -> usr/bin; the expected value is computed, not assumed.
 */
TEST(sbpl_top_level_symlink_resolved)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *bin = realpath("/bin", NULL), *want = bin ? st_join(bin, "sbx-missing-dir") : NULL;

	w.root = (char *)"/bin/sbx-missing-dir";
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0"), want);
	sbx_sbpl_free(&s);
	free(bin);
	free(want);
}

TEST(sbpl_symlinked_carve_out_resolved)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *ws = st_tempdir(), *target = st_join(ws, "gitdir"), *git = st_join(ws, ".git");
	char *ro[] = {git};

	CHECK_INT(mkdir(target, 0700), 0);
	CHECK_INT(symlink(target, git), 0);
	w.root = ws;
	w.read_only = ro;
	w.n_read_only = 1;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_0"), git);
	CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0_EXCLUDED_0_RESOLVED"), target);
	CHECK(st_has(s.policy,
		     "(require-not (subpath (param \"WRITABLE_ROOT_0_EXCLUDED_0_RESOLVED\")))"));
	sbx_sbpl_free(&s);
	st_rmdir(ws);
	free(target);
	free(git);
	free(ws);
}

/*
 * A deny glob under a symbolic link is also denied where the link leads (Seatbelt sees resolved
 * paths), with the resolved directory's glob characters escaped: link -> real[1] gives the
 * pattern real\[1\]/ *.env, whose regex matches real[1]/a.env and not real1/a.env. The link's
 * own name may hold glob characters too, escaped in the pattern as sbx_glob_escape writes a
 * workspace root.
 */
TEST(sbpl_glob_canonical_variant)
{
	static const char *const links[] = {"link", "l[2]{a,b}"};
	char *dir = st_tempdir(), *real = st_join(dir, "real[1]"), *hit = st_join(real, "a.env");
	char *miss = st_join(dir, "real1/a.env");

	CHECK_INT(mkdir(real, 0700), 0);
	for (size_t k = 0; k < sizeof(links) / sizeof(links[0]); k++) {
		struct sbx_plan p = {0};
		struct sbx_sbpl s = {0};
		struct sbx_diag d;
		char *link = st_join(dir, links[k]), *esc = NULL, *glob, *globs[1], **res;
		size_t n = 0, hits = 0, misses = 0;

		CHECK_INT(symlink(real, link), 0);
		CHECK_INT(sbx_glob_escape(link, &esc), 0);
		glob = st_join(esc, "*.env");
		globs[0] = glob;
		p.roots.full_read = true;
		p.roots.deny_globs = globs;
		p.roots.n_deny_globs = 1;
		CHECK_INT(build(&p, &s, &d), 0);
		res = s.policy ? sbpl_regexes(s.policy, &n) : NULL;
		for (size_t i = 0; i < n; i++) {
			hits += sbpl_regex_matches(res[i], hit) == 1;
			misses += sbpl_regex_matches(res[i], miss) == 1;
		}
		if (hits != 2 || misses != 0)
			t_fail(__FILE__, __LINE__, "%s: %zu rules match %s (want 2), %zu %s", glob,
			       hits, hit, misses, miss);
		sbpl_strv_free(res, n);
		sbx_sbpl_free(&s);
		free(link);
		free(esc);
		free(glob);
	}
	st_rmdir(dir);
	free(real);
	free(hit);
	free(miss);
	free(dir);
}

/* ---- hostile paths ------------------------------------------------------------------------- */

/*
 * Builds a workspace policy for root name `name` under a fresh temp dir, with a carve-out, a
 * denied path, a literal deny glob and a wildcard deny glob inside it.
 */
static void hostile_policy(const char *name, struct sbx_sbpl *s, char **ws_out, char **dir_out)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_diag d;
	char *dir = st_tempdir(), *ws = st_join(dir, name), *ro, *secret, *globs[2];
	char *ros[1], *deny[1];
	char *esc = NULL;

	CHECK_INT(mkdir(ws, 0700), 0);
	ro = st_join(ws, "ro");
	secret = st_join(ws, "secret");
	ros[0] = ro;
	deny[0] = secret;
	/* The root as a glob: every glob metacharacter of the name escaped. */
	CHECK_INT(sbx_glob_escape(ws, &esc), 0);
	globs[0] = st_join(esc, "key");
	globs[1] = st_join(esc, "*.env");
	free(esc);
	w.root = ws;
	w.read_only = ros;
	w.n_read_only = 1;
	memcpy(w.protected_missing, all_names, sizeof(all_names));
	w.n_protected_missing = 3;
	p.roots.full_read = true;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	p.roots.unreadable = deny;
	p.roots.n_unreadable = 1;
	p.roots.deny_globs = globs;
	p.roots.n_deny_globs = 2;
	CHECK_INT(build(&p, s, &d), 0);
	free(ro);
	free(secret);
	free(globs[0]);
	free(globs[1]);
	*ws_out = ws;
	*dir_out = dir;
}

TEST(sbpl_hostile_paths)
{
	static const char *const names[] = {
		"quote\"d",
		"par(en)s",
		"back\\slash",
		"sp ace",
		"new\nline",
		"caf\xc3\xa9",
		"semi;colon",
		"#\"hash",
		"all\")) (allow file-write* (subpath \"\\\"",
		"meta.*+?[x]{1}|^$",
		"eq=uals",
		"-Dflag",
		"--",
	};
	struct sbx_sbpl plain = {0};
	char *plain_ws, *plain_dir, *plain_shape;

	hostile_policy("plain", &plain, &plain_ws, &plain_dir);
	plain_shape = plain.policy ? sbpl_shape(plain.policy) : NULL;
	CHECK(plain_shape != NULL);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct sbx_sbpl s = {0};
		char *ws, *dir, *shape, **res, *path;
		size_t n_res = 0, hits;

		hostile_policy(names[i], &s, &ws, &dir);
		if (!s.policy) {
			t_fail(__FILE__, __LINE__, "no policy for %s", names[i]);
			continue;
		}
		/* Same rules, same parameters, whatever the name: the name changed no meaning. */
		shape = sbpl_shape(s.policy);
		CHECK_STR(shape, plain_shape);
		CHECK_INT(s.n_params, plain.n_params);
		CHECK_STR(sbpl_param(s.params, s.n_params, "WRITABLE_ROOT_0"), ws);
		/* Outside regex literals the name never appears in the text. */
		CHECK(strstr(shape, names[i]) == NULL);
		/* Each regex matches exactly its intended paths in the hostile directory. */
		res = sbpl_regexes(s.policy, &n_res);
		hits = 0;
		path = st_join(ws, ".git/hooks/pre-commit");
		for (size_t k = 0; k < n_res; k++)
			hits += sbpl_regex_matches(res[k], path) == 1;
		CHECK_INT(hits, 1);
		free(path);
		path = st_join(ws, "key");
		hits = 0;
		for (size_t k = 0; k < n_res; k++)
			hits += sbpl_regex_matches(res[k], path) == 1;
		CHECK_INT(hits, 2); /* the literal deny glob: its read and its write rule */
		free(path);
		path = st_join(ws, "a.env");
		hits = 0;
		for (size_t k = 0; k < n_res; k++)
			hits += sbpl_regex_matches(res[k], path) == 1;
		CHECK_INT(hits, 2); /* the wildcard deny glob */
		free(path);
		/* Nothing of another workspace is matched. */
		path = st_join(plain_ws, ".git");
		for (size_t k = 0; k < n_res; k++)
			if (sbpl_regex_matches(res[k], path) == 1)
				t_fail(__FILE__, __LINE__, "%s matches %s", res[k], path);
		free(path);
		/* A sibling of the same length: an unescaped metacharacter would match it. */
		{
			char *sib = strdup(names[i]), *sibws, *sibkey;

			memset(sib, 'x', strlen(sib));
			sibws = st_join(dir, sib);
			sibkey = st_join(sibws, "key");
			for (size_t k = 0; k < n_res; k++)
				if (sbpl_regex_matches(res[k], sibkey) == 1)
					t_fail(__FILE__, __LINE__, "%s matches %s", res[k], sibkey);
			free(sib);
			free(sibws);
			free(sibkey);
		}
		sbpl_strv_free(res, n_res);
		free(shape);
		sbx_sbpl_free(&s);
		st_rmdir(dir);
		free(ws);
		free(dir);
	}
	free(plain_shape);
	sbx_sbpl_free(&plain);
	st_rmdir(plain_dir);
	free(plain_ws);
	free(plain_dir);
}

TEST(sbpl_relative_paths_rejected)
{
	struct sbx_plan p = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *deny[] = {(char *)"relative.sock"};

	p.roots.unreadable = deny;
	p.roots.n_unreadable = 1;
	CHECK_INT(build(&p, &s, &d), SBX_E_INVALID);
	CHECK(strstr(d.msg, "relative.sock") != NULL);
	CHECK(s.policy == NULL);
}

/* ---- argv and attacher ------------------------------------------------------------------- */

TEST(sbpl_macos_argv)
{
	char *params[] = {(char *)"READABLE_ROOT_0=/a b", (char *)"WRITABLE_ROOT_0=/w"};
	struct sbx_sbpl s = {
		.policy = (char *)"(version 1)\n(deny default)\n", .params = params, .n_params = 2};
	char *const cmd[] = {(char *)"ls", (char *)"-l", (char *)"--", NULL};
	char **argv = NULL;
	size_t argc = 0;

	CHECK_INT(sbx_macos_argv(&s, cmd, &argv, &argc), 0);
	CHECK_INT(argc, 9);
	if (argc == 9) {
		CHECK_STR(argv[0], "/usr/bin/sandbox-exec");
		CHECK_STR(argv[1], "-p");
		CHECK_STR(argv[2], s.policy);
		CHECK_STR(argv[3], "-DREADABLE_ROOT_0=/a b");
		CHECK_STR(argv[4], "-DWRITABLE_ROOT_0=/w");
		CHECK_STR(argv[5], "--");
		CHECK_STR(argv[6], "ls");
		CHECK_STR(argv[8], "--");
		CHECK(argv[9] == NULL);
	}
	free(argv);
	CHECK_INT(sbx_macos_argv(&s, (char *const[]){NULL}, &argv, &argc), 0);
	CHECK_INT(argc, 6);
	if (argc == 6) {
		CHECK_STR(argv[5], "--");
		CHECK(argv[6] == NULL);
	}
	free(argv);
	CHECK_INT(sbx_macos_argv(&s, NULL, &argv, &argc), -EINVAL);
	CHECK(argv == NULL);
	s.policy = NULL;
	CHECK_INT(sbx_macos_argv(&s, cmd, &argv, &argc), -EINVAL);
	CHECK(argv == NULL);
}

TEST(sbpl_attach_without_sandbox_exec)
{
	struct sbx_req reqs[3] = {{.kind = SBX_REQ_READ, .path = (char *)"/"},
				  {.kind = SBX_REQ_NETWORK},
				  {.kind = SBX_REQ_DENY_GLOB, .path = (char *)"/x/*.env"}};
	struct sbx_plan p = {.reqs = reqs, .n_reqs = 3};

	CHECK_INT(sbx_plan_attach_macos(&p, false), 0);
	for (size_t i = 0; i < 3; i++) {
		CHECK_INT(reqs[i].status, SBX_UNENFORCEABLE);
		CHECK(reqs[i].mech == SBX_MECH_SEATBELT);
		CHECK(sbx_req_reason(&reqs[i]) &&
		      strstr(sbx_req_reason(&reqs[i]), "/usr/bin/sandbox-exec is missing"));
	}
	CHECK_INT(sbx_plan_attach_macos(&p, true), 0);
	for (size_t i = 0; i < 3; i++) {
		CHECK_INT(reqs[i].status, SBX_ENFORCED);
		CHECK(sbx_req_reason(&reqs[i]) == NULL);
	}
}

/*
 * A deny glob the policy cannot express is refused at plan time, with the reason and a hint: a
 * POSIX class, or a pattern under "/" alone whose matches could be moved within a writable root.
 */
TEST(sbpl_attach_deny_globs)
{
	static const struct {
		const char *glob;
		bool writable, enforced;
		const char *why;
	} cases[] = {
		{"/ws/[[:digit:]].key", false, false, "POSIX class syntax"},
		{"/ws/x[\xc3\xa9]", false, false, "non-ASCII"},
		{"/**/*.env", true, false, "no directory prefix below /"},
		{"/*/secret", true, false, "no directory prefix below /"},
		{"/**/*.env", false, true, NULL},
		{"/ws/**/*.env", true, true, NULL},
		{"/ws/[0-9].key", true, true, NULL},
	};
	struct sbx_writable_root w = {.root = (char *)"/ws"};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sbx_req req = {.kind = SBX_REQ_DENY_GLOB,
				      .path = (char *)cases[i].glob,
				      .path_kept = true};
		char *globs[] = {(char *)cases[i].glob};
		struct sbx_plan p = {.reqs = &req, .n_reqs = 1};
		struct sbx_sbpl s = {0};
		struct sbx_diag d;

		p.roots.full_read = true;
		p.roots.deny_globs = globs;
		p.roots.n_deny_globs = 1;
		if (cases[i].writable) {
			p.roots.writable = &w;
			p.roots.n_writable = 1;
		}
		CHECK_INT(sbx_plan_attach_macos(&p, true), 0);
		CHECK_INT(req.status, cases[i].enforced ? SBX_ENFORCED : SBX_UNENFORCEABLE);
		if (cases[i].why) {
			CHECK(sbx_req_reason(&req) && strstr(sbx_req_reason(&req), cases[i].why));
			CHECK(sbx_req_hint(&req) != NULL);
			CHECK(sbx_req_reason(&req) && !strchr(sbx_req_reason(&req), '\n'));
			/* The generator refuses the same pattern with the same words. */
			sbx_diag_clear(&d);
			CHECK_INT(sbx_sbpl_build(&p, NULL, &s, &d), SBX_E_INVALID);
			CHECK(strstr(d.msg, cases[i].why) != NULL);
			CHECK(s.policy == NULL);
		} else {
			CHECK(sbx_req_reason(&req) == NULL);
		}
		sbx_req_release(&req);
		sbx_sbpl_free(&s);
	}
}

/* ---- the real thing, where it exists ------------------------------------------------------- */

#ifdef __APPLE__
/*
 * Runs a perl one-liner under the policy; perl exits with the errno of the operation (0 when it
 * worked), so each denial is asserted with its exact errno next to a positive control.
 */
static int sandboxed_errno(const struct sbx_sbpl *s, const char *script, const char *arg)
{
	char *const cmd[] = {(char *)"/usr/bin/perl", (char *)"-e", (char *)script, (char *)arg,
			     NULL};
	char **argv = NULL;
	size_t argc = 0;
	pid_t pid;
	int st;

	if (sbx_macos_argv(s, cmd, &argv, &argc))
		return -1;
	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	free(argv);
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#define WRITE_PL "open(my $f, '>', $ARGV[0]) or exit($!+0); exit 0"
#define READ_PL	 "open(my $f, '<', $ARGV[0]) or exit($!+0); exit 0"
#define MKDIR_PL "mkdir($ARGV[0]) or exit($!+0); exit 0"
#define CONNECT_PL                                                                                 \
	"use Socket; socket(my $s, PF_INET, SOCK_STREAM, 0) or exit($!+0); "                       \
	"connect($s, pack_sockaddr_in(1, inet_aton('127.0.0.1'))) or exit($!+0); exit 0"

TEST(sbpl_macos_live)
{
	struct sbx_plan p = {0};
	struct sbx_writable_root w = {0};
	struct sbx_sbpl s = {0};
	struct sbx_diag d;
	char *dir = st_tempdir(), *ws = st_join(dir, "ws"), *git = st_join(ws, ".git");
	char *secret = st_join(ws, "secret"), *env = st_join(ws, "a.env"), *globs[1];
	char *ro[] = {git}, *deny[] = {secret}, *path;
	FILE *f;

	CHECK_INT(mkdir(ws, 0700), 0);
	CHECK_INT(mkdir(git, 0700), 0);
	f = fopen(secret, "w");
	if (f)
		fclose(f);
	f = fopen(env, "w");
	if (f)
		fclose(f);
	globs[0] = st_join(ws, "*.env");
	w.root = ws;
	w.read_only = ro;
	w.n_read_only = 1;
	memcpy(w.protected_missing, all_names, sizeof(all_names));
	w.n_protected_missing = 3;
	p.roots.full_read = true;
	p.roots.writable = &w;
	p.roots.n_writable = 1;
	p.roots.unreadable = deny;
	p.roots.n_unreadable = 1;
	p.roots.deny_globs = globs;
	p.roots.n_deny_globs = 1;
	CHECK_INT(build(&p, &s, &d), 0);

	path = st_join(ws, "ok");
	CHECK_INT(sandboxed_errno(&s, WRITE_PL, path), 0); /* positive control */
	free(path);
	path = st_join(git, "hook");
	CHECK_INT(sandboxed_errno(&s, WRITE_PL, path), EPERM); /* read-only carve-out */
	free(path);
	path = st_join(ws, ".agents");
	CHECK_INT(sandboxed_errno(&s, MKDIR_PL, path), EPERM); /* protected name, missing */
	free(path);
	path = st_join(dir, "outside");
	CHECK_INT(sandboxed_errno(&s, WRITE_PL, path), EPERM); /* outside the writable root */
	free(path);
	path = st_join(ws, "ok");
	CHECK_INT(sandboxed_errno(&s, READ_PL, path), 0); /* positive control */
	free(path);
	CHECK_INT(sandboxed_errno(&s, READ_PL, secret), EPERM); /* denied path */
	CHECK_INT(sandboxed_errno(&s, READ_PL, env), EPERM);	/* deny glob */
	/* Restricted network: even loopback is refused by the sandbox, not by the port. */
	CHECK_INT(sandboxed_errno(&s, CONNECT_PL, ""), EPERM);
	sbx_sbpl_free(&s);
	p.network = true;
	CHECK_INT(build(&p, &s, &d), 0);
	CHECK_INT(sandboxed_errno(&s, CONNECT_PL, ""), ECONNREFUSED);
	sbx_sbpl_free(&s);

	st_rmdir(dir);
	free(globs[0]);
	free(ws);
	free(git);
	free(secret);
	free(env);
	free(dir);
}
#endif
