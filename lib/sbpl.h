/* SPDX-License-Identifier: MIT */
/*
 * sbpl.h - internals of the SBPL generator shared by sbpl.c, sbpl_regex.c and the unit tests:
 * a growable text buffer, regex escaping, glob to regex translation and regex literals.
 */
#ifndef SBX_SBPL_H
#define SBX_SBPL_H

#include <stdbool.h>
#include <stddef.h>

/* A growable string. On allocation failure oom is set and later appends do nothing. */
struct sbx_buf {
	char *s;
	size_t len, cap;
	bool oom;
};

void sbx_buf_add(struct sbx_buf *b, const char *s);
void sbx_buf_addn(struct sbx_buf *b, const char *s, size_t n);
void sbx_buf_addc(struct sbx_buf *b, char c);
void sbx_buf_addf(struct sbx_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns the string (owned by the caller) or NULL after an allocation failure; resets b. */
char *sbx_buf_steal(struct sbx_buf *b);
void sbx_buf_free(struct sbx_buf *b);

/* Appends s with every regex metacharacter escaped, so that the result matches s literally. */
void sbx_sbpl_regex_escape(struct sbx_buf *b, const char *s);

enum sbx_sbpl_glob_mode {
	/* A deny glob: a pattern without wildcards also matches everything below it. */
	SBX_SBPL_GLOB_SUBTREE = 0,
	/* Exactly the named path (ancestors of a deny glob). */
	SBX_SBPL_GLOB_EXACT,
};

/*
 * Translates a git-style glob into an anchored regex (spec 5.4): "*" -> "[^/]*", "?" -> "[^/]",
 * "**" + "/" -> "(.*" + "/)?", a final "**" -> ".*", "[...]" kept as a class with "!" -> "^",
 * an unclosed "[" is literal, "{a,b}" -> "(a|b)" (an unclosed "{" is closed at the end), "\x"
 * is the literal x, everything else is matched literally. Returns 0 or -ENOMEM.
 */
int sbx_sbpl_glob_regex(const char *glob, enum sbx_sbpl_glob_mode mode, char **out);

/*
 * The directories a deny glob depends on: each "/"-terminated prefix of the pattern up to the
 * first component holding a wildcard ("*", "?" or a closed "[...]"), as exact anchored regexes.
 * A directory on this list that is renamed would carry matching files out of the pattern.
 */
int sbx_sbpl_glob_ancestors(const char *glob, char ***out, size_t *n);

/*
 * Appends an SBPL regex literal for regex: #"..." (no escapes are read inside it) when regex
 * holds no double quote and no control character, else an ordinary string literal "..." in
 * which backslash and double quote are escaped. Either way the regex engine receives regex.
 */
void sbx_sbpl_regex_literal(struct sbx_buf *b, const char *regex);

/*
 * A writable root (or carve-out) as the policy names it: its lexical path except for a
 * symlinked top-level component (/tmp -> /private/tmp, /var -> /private/var on macOS; /bin ->
 * usr/bin on merged-/usr Linux), which is resolved. A deeper symlink is reported in *deeper
 * (the path up to and including it; deeper may be NULL): granting write through it would grant
 * write to wherever it points, which may change under us. A component that cannot be examined
 * (other than a missing one) is an error: -errno. Returns 0, -errno or -ENOMEM.
 */
int sbx_sbpl_write_root(const char *path, char **out, char **deeper);

#endif /* SBX_SBPL_H */
