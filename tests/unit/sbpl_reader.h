/* SPDX-License-Identifier: MIT */
/*
 * sbpl_reader.h - a small reader of the SBPL subset sbxrun generates, for tests: it parses the
 * policy into a tree and checks that it is well-formed and that its parameters line up.
 */
#ifndef SBX_SBPL_READER_H
#define SBX_SBPL_READER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

enum sbpl_type { SBPL_LIST = 0, SBPL_SYMBOL, SBPL_NUMBER, SBPL_STRING, SBPL_REGEX };

struct sbpl_node {
	enum sbpl_type type;
	char *text; /* symbol or number as written; string/regex literal as decoded */
	struct sbpl_node *kids;
	size_t n;
	int line;
};

/*
 * Parses text into root (a list of the top-level forms). Strings: "..." with \\ and \" as the
 * only escapes; regex literals: #"..." read verbatim, no control characters; comments: ";" to
 * the end of the line. Returns 0, or -1 with a message in err.
 */
int sbpl_parse(const char *text, struct sbpl_node *root, char *err, size_t errlen);
void sbpl_node_free(struct sbpl_node *n);

/*
 * Everything a generated policy must satisfy: it parses; the first form is (version 1); every
 * top-level form is (version ...), (allow OP... FILTER...) or (deny OP... FILTER...) with known
 * operations and filters; every regex compiles as a POSIX extended regex; every (param "K")
 * names exactly one "K=VALUE" of params, and every parameter is used. Returns 0 or -1 + err.
 */
int sbpl_check(const char *policy, char *const params[], size_t n_params, char *err, size_t errlen);

/*
 * The policy's shape: the tree printed back with the argument of every regex filter replaced by
 * "#R". Two
 * policies that differ only in the paths behind their regexes have the same shape. malloc'd.
 */
char *sbpl_shape(const char *policy);

/* The regex literals of the policy, decoded, in order; *n set. Free with sbpl_strv_free. */
char **sbpl_regexes(const char *policy, size_t *n);
void sbpl_strv_free(char **v, size_t n);

/* The value of parameter key in params ("KEY=VALUE" strings), or NULL. */
const char *sbpl_param(char *const params[], size_t n_params, const char *key);

/* True when n is a list whose first element is the symbol name. */
bool sbpl_is_head(const struct sbpl_node *n, const char *name);

/* Writes "line LINE: " and the message to err; returns -1. */
int sbpl_verror(char *err, size_t errlen, int line, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/* 1 when the POSIX extended regex re matches the whole of s, 0 when not, -1 when re is bad. */
int sbpl_regex_matches(const char *re, const char *s);

#endif
