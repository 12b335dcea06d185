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

struct sbx_diag;

/*
 * Translates a git-style glob into an anchored regex (as Codex does) that means what the glob
 * matcher (lib/glob.c) makes of the pattern: "*" -> "[^/]*", "?" -> "[^/]", "**" + "/" ->
 * "(.*" + "/)?", a final "**" -> ".*", "{a,b}" -> "(a|b)" (an unclosed "{" is closed at the
 * end), "\x" is the literal x (a backslash before "/" or at the end is itself), a "[...]"
 * class closed within its component becomes a bracket expression built from the set of bytes it
 * matches (never copied: every regex dialect reads it the same), an unclosed "[" is literal,
 * everything else is matched literally. A class written with POSIX syntax ("[[:digit:]]"),
 * holding a non-ASCII byte, or matching nothing is refused: SBX_E_INVALID with d filled.
 * Returns 0, SBX_E_INVALID or -ENOMEM.
 */
int sbx_sbpl_glob_regex(const char *glob, enum sbx_sbpl_glob_mode mode, char **out,
			struct sbx_diag *d);

/*
 * The directories a deny glob's matches lie in at a fixed depth: each "/"-terminated prefix of
 * the pattern up to the first "**" component, as exact anchored regexes (for /w/?/k/x: "^/w$",
 * "^/w/[^/]$" and "^/w/[^/]/k$"). Renaming one of them would carry matches, present or future,
 * out of the pattern's reach. Errors as sbx_sbpl_glob_regex.
 */
int sbx_sbpl_glob_ancestors(const char *glob, char ***out, size_t *n, struct sbx_diag *d);

/* More brace alternatives than this in one pattern are refused (-E2BIG). */
#define SBX_SBPL_MAX_BRACE_VARIANTS 256

/*
 * The pattern with its brace alternatives expanded, as plain globs for the matcher, which has
 * no braces (/a/{b,c}/x.? gives /a/b/x.? and /a/c/x.?); a pattern without braces is itself.
 * Returns 0, -E2BIG or -ENOMEM.
 */
int sbx_sbpl_glob_braces(const char *glob, char ***out, size_t *n);

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

/*
 * Whether the deny glob pattern can be enforced by a policy for roots: it translates (see
 * sbx_sbpl_glob_regex), and, when its matches could lie where the command may write, it has a
 * static prefix below "/", so that the directories holding matches can be found. Returns 0 or
 * SBX_E_INVALID (d filled, with a hint). Used by the attacher and the generator alike.
 */
struct sbx_roots;
int sbx_sbpl_glob_check(const struct sbx_roots *roots, const char *pattern, struct sbx_diag *d);

#endif /* SBX_SBPL_H */
