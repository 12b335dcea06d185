/* SPDX-License-Identifier: MIT */
/*
 * Windows command-line quoting: a table of expected quotings, and a round trip through an
 * independent parser written from the documented CommandLineToArgvW / C runtime rules.
 * (Under Wine, tests/windows/ repeats the round trip through the real CreateProcess and
 * CommandLineToArgvW.)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"

/* ---- a test-only parser of Windows command lines ----------------------------------------- */

#define PARSE_MAX_ARGS 64

struct parsed {
	char *argv[PARSE_MAX_ARGS + 1];
	size_t argc;
};

static void parsed_free(struct parsed *p)
{
	for (size_t i = 0; i < p->argc; i++)
		free(p->argv[i]);
	p->argc = 0;
}

/*
 * Splits line as CommandLineToArgvW documents it. The program name is special: up to the next
 * double quote when it starts with one, else up to a space or tab; no escapes. The other
 * arguments follow the backslash/quote rules; inside quotes, "" is a literal quote (the
 * documented behaviour of the current runtime).
 */
static int parse_cmdline(const char *line, struct parsed *out)
{
	const char *s = line;
	size_t len = strlen(line);
	char *cur;
	size_t o = 0;

	out->argc = 0;
	cur = malloc(len + 1);
	if (!cur)
		return -ENOMEM;
	if (*s == '"') {
		s++;
		while (*s && *s != '"')
			cur[o++] = *s++;
		if (*s == '"')
			s++;
	} else {
		while (*s && *s != ' ' && *s != '\t')
			cur[o++] = *s++;
	}
	cur[o] = '\0';
	out->argv[out->argc++] = strdup(cur);
	for (;;) {
		bool quoted = false;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		o = 0;
		while (*s) {
			size_t n = 0;

			if (!quoted && (*s == ' ' || *s == '\t'))
				break;
			if (*s == '\\') {
				while (*s == '\\') {
					n++;
					s++;
				}
				if (*s == '"') {
					/* 2n: n backslashes, the quote toggles (next turn); 2n+1:
					 * literal. */
					memset(cur + o, '\\', n / 2);
					o += n / 2;
					if (n % 2) {
						cur[o++] = '"';
						s++;
					}
				} else {
					memset(cur + o, '\\', n);
					o += n;
				}
				continue;
			}
			if (*s == '"') {
				if (quoted && s[1] == '"') {
					cur[o++] = '"';
					s += 2;
				} else {
					quoted = !quoted;
					s++;
				}
				continue;
			}
			cur[o++] = *s++;
		}
		cur[o] = '\0';
		if (out->argc == PARSE_MAX_ARGS) {
			free(cur);
			parsed_free(out);
			return -E2BIG;
		}
		out->argv[out->argc++] = strdup(cur);
	}
	free(cur);
	out->argv[out->argc] = NULL;
	return 0;
}

/* The parser itself, against the examples of the documentation. */
TEST(winquote_parser_basics)
{
	struct parsed p;

	CHECK_INT(parse_cmdline("prog a b", &p), 0);
	CHECK_INT(p.argc, 3);
	CHECK_STR(p.argv[1], "a");
	CHECK_STR(p.argv[2], "b");
	parsed_free(&p);

	CHECK_INT(parse_cmdline("\"C:\\Program Files\\x.exe\" \"a b\" c\\\\d", &p), 0);
	CHECK_INT(p.argc, 3);
	CHECK_STR(p.argv[0], "C:\\Program Files\\x.exe");
	CHECK_STR(p.argv[1], "a b");
	CHECK_STR(p.argv[2], "c\\\\d");
	parsed_free(&p);

	/* The documented examples: a\\\b, "a\\\"b", a\\\\"b c" d */
	CHECK_INT(parse_cmdline("p a\\\\\\b \"a\\\\\\\"b\" a\\\\\\\\\"b c\" d", &p), 0);
	CHECK_INT(p.argc, 5);
	CHECK_STR(p.argv[1], "a\\\\\\b");
	CHECK_STR(p.argv[2], "a\\\"b");
	CHECK_STR(p.argv[3], "a\\\\b c");
	CHECK_STR(p.argv[4], "d");
	parsed_free(&p);

	CHECK_INT(parse_cmdline("p \"ab\"\"c\" \"\" x\"y z\"w", &p), 0);
	CHECK_INT(p.argc, 4);
	CHECK_STR(p.argv[1], "ab\"c");
	CHECK_STR(p.argv[2], "");
	CHECK_STR(p.argv[3], "xy zw");
	parsed_free(&p);
}

/* ---- the table ----------------------------------------------------------------------------- */

struct qcase {
	const char *arg, *want;
};

static const struct qcase quote_cases[] = {
    {"plain", "plain"},
    {"", "\"\""},
    {"a b", "\"a b\""},
    {" ", "\" \""},
    {"\t", "\"\t\""},
    {"a\tb", "\"a\tb\""},
    {"a\nb", "\"a\nb\""},
    {"a\vb", "\"a\vb\""},
    {"\"", "\"\\\"\""},
    {"\"\"", "\"\\\"\\\"\""},
    {"a\"b", "\"a\\\"b\""},
    {"\"quoted\"", "\"\\\"quoted\\\"\""},
    {"\\", "\\"},
    {"\\\\", "\\\\"},
    {"a\\b", "a\\b"},
    {"a\\\\b", "a\\\\b"},
    {"C:\\Program Files\\x", "\"C:\\Program Files\\x\""},
    {"C:\\dir\\", "C:\\dir\\"},
    {"C:\\my dir\\", "\"C:\\my dir\\\\\""},
    {"a b\\\\", "\"a b\\\\\\\\\""},
    {"a\\\"b", "\"a\\\\\\\"b\""},
    {"a\\\\\"b", "\"a\\\\\\\\\\\"b\""},
    {"\\\"", "\"\\\\\\\"\""},
    {"\\ \"", "\"\\ \\\"\""},
    {"end\\", "end\\"},
    {"sp end\\", "\"sp end\\\\\""},
    {"%PATH%", "%PATH%"},
    {"a&b|c<d>e^f", "a&b|c<d>e^f"},
    {"--opt=\"x y\"", "\"--opt=\\\"x y\\\"\""},
    {"caf\xc3\xa9", "caf\xc3\xa9"},
    {"caf\xc3\xa9 cr\xc3\xa8me", "\"caf\xc3\xa9 cr\xc3\xa8me\""},
    {"'single'", "'single'"},
    {"*?[]", "*?[]"},
    {"\\\\server\\share", "\\\\server\\share"},
    {"x\"", "\"x\\\"\""},
    {"\"\\", "\"\\\"\\\\\""},
};

TEST(winquote_table)
{
	size_t n = sizeof(quote_cases) / sizeof(quote_cases[0]);

	CHECK(n >= 30);
	for (size_t i = 0; i < n; i++) {
		char *q = sbx_win_quote_arg(quote_cases[i].arg);

		CHECK_STR(q, quote_cases[i].want);
		free(q);
	}
}

/* Every table entry, as an argument after a program name, must parse back to itself. */
TEST(winquote_table_round_trip)
{
	size_t n = sizeof(quote_cases) / sizeof(quote_cases[0]);

	for (size_t i = 0; i < n; i++) {
		char *argv[] = {(char *)"prog.exe", (char *)quote_cases[i].arg, (char *)"tail",
				NULL};
		char *line = sbx_win_cmdline(argv);
		struct parsed p;

		CHECK(line != NULL);
		if (!line)
			continue;
		CHECK_INT(parse_cmdline(line, &p), 0);
		CHECK_INT(p.argc, 3);
		if (p.argc == 3) {
			CHECK_STR(p.argv[1], quote_cases[i].arg);
			CHECK_STR(p.argv[2], "tail");
		}
		parsed_free(&p);
		free(line);
	}
}

TEST(winquote_cmdline)
{
	static char git[] = "C:\\Program Files\\Git\\bin\\git.exe", status[] = "status",
		    empty[] = "", ab[] = "a b", dir[] = "C:\\dir with space\\", x[] = "x",
		    bad[] = "bad\"name.exe";
	char *a1[] = {git, status, empty, ab, NULL};
	char *a2[] = {dir, x, NULL};
	char *a3[] = {bad, NULL};
	char *a4[] = {empty, x, NULL};
	char *a5[] = {NULL};
	char *line;

	line = sbx_win_cmdline(a1);
	CHECK_STR(line, "\"C:\\Program Files\\Git\\bin\\git.exe\" status \"\" \"a b\"");
	free(line);

	/* The program name is never escaped: a trailing backslash stays single. */
	line = sbx_win_cmdline(a2);
	CHECK_STR(line, "\"C:\\dir with space\\\" x");
	free(line);

	errno = 0;
	line = sbx_win_cmdline(a3);
	CHECK(line == NULL);
	CHECK_INT(errno, EINVAL);

	line = sbx_win_cmdline(a4);
	CHECK_STR(line, "\"\" x");
	free(line);

	errno = 0;
	CHECK(sbx_win_cmdline(a5) == NULL);
	CHECK_INT(errno, EINVAL);
	errno = 0;
	CHECK(sbx_win_quote_arg(NULL) == NULL);
	CHECK_INT(errno, EINVAL);
}

/* Program names with spaces and backslashes survive the program-name rule. */
TEST(winquote_program_round_trip)
{
	static const char *const names[] = {
	    "git", "C:\\Program Files\\x.exe", "C:\\a b\\", "\\\\srv\\share\\t.exe", "a\tb",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *argv[] = {(char *)names[i], (char *)"arg", NULL};
		char *line = sbx_win_cmdline(argv);
		struct parsed p;

		CHECK(line != NULL);
		if (!line)
			continue;
		CHECK_INT(parse_cmdline(line, &p), 0);
		CHECK_INT(p.argc, 2);
		CHECK_STR(p.argv[0], names[i]);
		CHECK_STR(p.argv[1], "arg");
		parsed_free(&p);
		free(line);
	}
}

/* Pseudo-random arguments over the characters that matter, with a fixed seed: reproducible. */
TEST(winquote_random_round_trip)
{
	static const char alphabet[] = {'a', ' ', '\t', '"', '\\', '\\', '"', 'b'};
	unsigned long long seed = 0x9e3779b97f4a7c15ull;
	size_t failures = 0;

	for (int round = 0; round < 20000; round++) {
		char args[4][16];
		char *argv[6];
		char *line;
		struct parsed p;

		argv[0] = (char *)"p.exe";
		for (int a = 0; a < 4; a++) {
			size_t len;

			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			len = (size_t)(seed >> 60) % sizeof(args[a]);
			for (size_t k = 0; k < len; k++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				args[a][k] = alphabet[(seed >> 58) % sizeof(alphabet)];
			}
			args[a][len] = '\0';
			argv[a + 1] = args[a];
		}
		argv[5] = NULL;
		line = sbx_win_cmdline(argv);
		if (!line || parse_cmdline(line, &p) != 0) {
			failures++;
			free(line);
			continue;
		}
		if (p.argc != 5) {
			failures++;
		} else {
			for (int a = 0; a < 4; a++)
				if (strcmp(p.argv[a + 1], args[a]) != 0)
					failures++;
		}
		parsed_free(&p);
		free(line);
	}
	CHECK_INT(failures, 0);
}
