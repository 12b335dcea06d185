/* SPDX-License-Identifier: MIT */
/*
 * sbx.h - the profile engine: model, loading, resolution, algebra, intent and plans.
 *
 * Everything here is pure: no printing, no exiting, no sandbox system calls. Functions that can
 * fail return 0 on success or a negative errno / SBX_E_* code and fill a struct sbx_diag.
 * Every object has one owner; *_free() functions accept NULL.
 */
#ifndef SBX_H
#define SBX_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SBX_VERSION "0.1.0"

/* Limits, each with the reason it exists. */
#define SBX_MAX_PROFILE_BYTES	(4u << 20) /* a profile is configuration, not data */
#define SBX_MAX_JSON_DEPTH	64	   /* the deepest valid profile nests 8 levels */
#define SBX_MAX_ENTRIES		100000	   /* 10x the largest profile the benchmarks use */
#define SBX_MAX_PATH		4096	   /* PATH_MAX on Linux */
#define SBX_MAX_GLOB_MATCHES	8192	   /* each match costs a mount; Codex uses the same cap */
#define SBX_MAX_WORKSPACE_ROOTS 256
/* Git mode: git directories of one repository (its own, submodules', worktrees'): each costs
 * a few mounts, and an earlier run could make thousands. */
#define SBX_MAX_GIT_DIRS 256
/* Without a mount namespace a denied path costs a Landlock rule per entry beside its way down. */
#define SBX_LANDLOCK_DIR_ENTRIES_MAX 4096  /* entries of one directory on that way */
#define SBX_LANDLOCK_CARVE_RULES_MAX 65536 /* such rules in all: bounds the start-up work */

/* Project error codes (negative, below any errno). */
enum {
	SBX_E_PARSE = -1000,	     /* the JSON is malformed or does not match the format */
	SBX_E_INVALID = -1001,	     /* well-formed but semantically invalid (pointer in diag) */
	SBX_E_TOO_BIG = -1002,	     /* over a named limit */
	SBX_E_NO_LEGACY = -1003,     /* canonical -> legacy projection impossible */
	SBX_E_UNENFORCEABLE = -1004, /* the plan cannot be enforced on this host */
	SBX_E_USAGE = -1005,
};

/* ---- diagnostics ------------------------------------------------------------------------- */

/*
 * Where a text names a path: len bytes from at. Recorded by the function that writes the text,
 * never searched for afterwards (a path can be part of another, or named twice); len 0 when the
 * text names none.
 */
struct sbx_span {
	size_t at, len;
};

/*
 * One diagnostic. Rendered by cmd/ as
 *   sbxrun: FILE:LINE:COL: MSG          (line > 0)
 *   sbxrun: FILE: POINTER: MSG          (pointer[0] != 0)
 *   sbxrun: MSG
 * followed by "; hint: HINT" on the same line when hint[0] != 0.
 *
 * The first error recorded is the one kept, as in jansson's error record: the failure nearest its
 * cause says what went wrong, and a caller further up that fails because of it records nothing
 * over it. The same holds for the hint, which belongs to its message: a hint is kept only when no
 * hint is there yet and the message it follows was kept. sbx_diag_clear() starts a new record;
 * every lib/ entry point that takes a diagnostic clears it first and fills it on every failure.
 */
struct sbx_diag {
	char file[512];	   /* "-" for stdin, ":workspace" for built-ins, "" when none */
	int line, col;	   /* 1-based; 0 = unknown */
	char pointer[512]; /* RFC 6901 JSON pointer of the offending value, "" when none */
	char msg[1024];
	char hint[512];
	struct sbx_span about; /* the path msg is about, as sbx_diag_set_about() wrote it */
	bool dropping;	       /* a later error is being ignored, and so is its hint (diag.c) */
};

void sbx_diag_clear(struct sbx_diag *d);
/*
 * Records msg (printf-style) unless an error is recorded already; returns code either way, so
 * callers can `return sbx_diag_set(d, -EINVAL, ...)`.
 */
int sbx_diag_set(struct sbx_diag *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same, with where: file (NULL for none), line and col (0 for none), pointer (NULL). */
int sbx_diag_set_at(struct sbx_diag *d, int code, const char *file, int line, int col,
		    const char *pointer, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
int sbx_diag_vset_at(struct sbx_diag *d, int code, const char *file, int line, int col,
		     const char *pointer, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));
/*
 * As sbx_diag_set, for a message about one path: lead, then path, then fmt's text. d->about
 * says where the path lies in the message as kept (len 0 when shortening cut into it).
 */
int sbx_diag_set_about(struct sbx_diag *d, int code, const char *lead, const char *path,
		       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Records a hint for the message just recorded (see above); returns code. */
int sbx_diag_hint(struct sbx_diag *d, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A negative errno or SBX_E_* code in words, for the few functions that fill no diagnostic. */
const char *sbx_strerror(int code);
/*
 * The one of names (NULL-terminated) that s most likely misspells: the same word in another case,
 * or the only one at the smallest edit distance when that distance is at most 2 (a swap of two
 * neighbouring characters counts as one edit) and smaller than the name. NULL when none is. The
 * profile loader's "did you mean", and the command line's for a subcommand.
 */
const char *sbx_suggest(const char *s, const char *const *names);
/* Writes s to f with each control byte as "\xHH": text a command chose (a path, a name) cannot
 * move the cursor, colour the terminal or forge a line. A C1 control (U+0080 to U+009F, which a
 * terminal reads as ESC and a letter) and a byte that is not UTF-8 text are shown so too, and
 * so is a backslash followed by "x" (as \x5c), so that what is shown reads back one way only.
 * Used by cmd/ only. */
void sbx_put_sanitized(const char *s, FILE *f);
/* How many bytes at s sbx_put_sanitized writes as they are (a character); 0 where it writes the
 * byte at s as \xHH. */
size_t sbx_sanitized_char(const char *s);
/* The width sbx_put_sanitized gives s: each byte shown as \xHH takes four columns. */
size_t sbx_sanitized_len(const char *s);
/* Writes the rendered diagnostic, one line with its hint, to f. Used by cmd/ only. */
void sbx_diag_print(const struct sbx_diag *d, FILE *f);

/* ---- the model ----------------------------------------------------------------------------- */

/* Ordered by conflict precedence: on equal specificity the larger value wins. */
enum sbx_access { SBX_READ = 0, SBX_WRITE = 1, SBX_DENY = 2 };

enum sbx_path_kind { SBX_PATH = 0, SBX_GLOB, SBX_SPECIAL };

enum sbx_special {
	SBX_SP_ROOT = 0,
	SBX_SP_MINIMAL,
	SBX_SP_PROJECT_ROOTS, /* optional subpath */
	SBX_SP_TMPDIR,
	SBX_SP_SLASH_TMP,
	SBX_SP_UNKNOWN, /* forward compatibility: token in path, optional subpath; ignored */
};

/*
 * A string arena (strbuf.c): strings copied one after another into a few large blocks, all freed
 * together. A profile of many entries keeps its paths there: one allocation per block of paths
 * instead of one per path, and no allocator header per path. Start from {0}.
 */
struct sbx_arena {
	struct sbx_arena_block *head; /* the block being filled; each links to the one before */
};
/* A NUL-terminated copy of s[0..n) kept until sbx_arena_free(), or NULL (out of memory). */
char *sbx_arena_strndup(struct sbx_arena *a, const char *s, size_t n);
/* n bytes aligned to align (a power of two, at most 8), kept until sbx_arena_free(), or NULL. */
void *sbx_arena_alloc(struct sbx_arena *a, size_t n, size_t align);
/* Does p lie in one of a's blocks? */
bool sbx_arena_owns(const struct sbx_arena *a, const void *p);
void sbx_arena_free(struct sbx_arena *a);

/*
 * Copies n bytes as memcpy does, with the short copies (most of what the canonical text's writer
 * and reader copy: punctuation, keys, paths of a few dozen bytes) done in a few fixed-size moves
 * the compiler inlines. musl's memcpy starts each copy with "rep movsq" and ends it byte by byte,
 * a fixed cost that at 10,000 entries made writing the profile four times slower than with glibc
 * (tests/bench/README.md). Fixed-size copies that overlap write the same bytes twice; the source
 * is never read beyond s[n - 1].
 */
static inline void sbx_copy(void *dst, const void *src, size_t n)
{
	unsigned char *d = dst;
	const unsigned char *s = src;

	if (n > 64) {
		memcpy(d, s, n);
	} else if (n > 32) {
		memcpy(d, s, 16);
		memcpy(d + 16, s + 16, 16);
		memcpy(d + n - 32, s + n - 32, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 16) {
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
	} else if (n >= 8) {
		memcpy(d, s, 8);
		memcpy(d + n - 8, s + n - 8, 8);
	} else if (n >= 4) {
		memcpy(d, s, 4);
		memcpy(d + n - 4, s + n - 4, 4);
	} else if (n) {
		d[0] = s[0];
		d[n / 2] = s[n / 2];
		d[n - 1] = s[n - 1];
	}
}

/*
 * memcmp(a, b, n)'s sign, eight bytes at a time: musl's memcmp and strcmp are byte loops, and the
 * plan compares paths that share long prefixes (a directory of 10,000 denied files) in its sorts
 * and tables. Reads a[0..n) and b[0..n) only.
 */
static inline int sbx_bytes_cmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;
	uint64_t u, v;

	if (n < 8) {
		for (; n; x++, y++, n--)
			if (*x != *y)
				return *x < *y ? -1 : 1;
		return 0;
	}
	for (; n > 8; x += 8, y += 8, n -= 8) {
		memcpy(&u, x, 8);
		memcpy(&v, y, 8);
		if (u != v)
			goto differ;
	}
	/* The last eight bytes, overlapping those already found equal. */
	memcpy(&u, x + n - 8, 8);
	memcpy(&v, y + n - 8, 8);
	if (u == v)
		return 0;
differ:
	/* The first byte that differs decides: in memory order, the integers' high end. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	u = __builtin_bswap64(u);
	v = __builtin_bswap64(v);
#endif
	return u < v ? -1 : 1;
}

/* strcmp's sign for two strings of known lengths (paths: no NUL inside). */
static inline int sbx_path_cmp(const char *a, size_t la, const char *b, size_t lb)
{
	int c = sbx_bytes_cmp(a, b, la < lb ? la : lb);

	return c ? c : (la > lb) - (la < lb);
}

/* strcmp's sign, with each length found first (musl's strlen reads a word at a time). */
static inline int sbx_strcmp(const char *a, const char *b)
{
	return sbx_path_cmp(a, strlen(a), b, strlen(b));
}

/* 24 bytes: a profile may hold 100,000 (each enum in a byte). */
struct sbx_entry {
	/*
	 * SBX_PATH: absolute path, lexically normalized (POSIX "/a/b" or Windows "C:\a", "\\srv\share").
	 * SBX_GLOB: the pattern as written (may be relative or "codex-project-roots://sub").
	 * SBX_SPECIAL + SBX_SP_UNKNOWN: the raw token (e.g. ":future"); otherwise NULL.
	 */
	char *path;
	char *subpath; /* SBX_SP_PROJECT_ROOTS / SBX_SP_UNKNOWN: optional, else NULL */
	enum sbx_path_kind kind : 8;
	enum sbx_special special : 8; /* SBX_SPECIAL only */
	enum sbx_access access : 8;
	bool skip_missing; /* "missing_path_behavior": "skip" */
	bool pooled;	   /* path lies in its sbx_fs's arena: freed with it, never on its own */
};

enum sbx_fs_kind { SBX_FS_RESTRICTED = 0, SBX_FS_UNRESTRICTED, SBX_FS_EXTERNAL };

struct sbx_fs {
	enum sbx_fs_kind kind;
	struct sbx_entry *entries;
	size_t n, cap;
	unsigned glob_depth;	/* glob_scan_max_depth; 0 = absent (unbounded) */
	struct sbx_arena paths; /* the paths of the pooled entries (a loaded profile's) */
};

enum sbx_profile_type { SBX_MANAGED = 0, SBX_DISABLED, SBX_EXTERNAL };

struct sbx_profile {
	enum sbx_profile_type type;
	struct sbx_fs fs; /* MANAGED: as given; DISABLED: UNRESTRICTED; EXTERNAL: EXTERNAL */
	bool network;	  /* true = "enabled"; DISABLED is always true */
};

/* An AdditionalPermissionProfile (sbxrun-profile(5), ADDITIONAL PERMISSIONS). */
struct sbx_additional {
	int network;	  /* -1 absent/null, 0 false, 1 true */
	bool has_fs;	  /* "file_system" present and not null */
	struct sbx_fs fs; /* kind is always RESTRICTED */
};

/* A legacy SandboxPolicy (sbxrun-profile(5), OLDER SHAPES). */
enum sbx_legacy_type {
	SBX_LEGACY_DANGER_FULL_ACCESS = 0,
	SBX_LEGACY_READ_ONLY,
	SBX_LEGACY_EXTERNAL_SANDBOX,
	SBX_LEGACY_WORKSPACE_WRITE,
};
struct sbx_legacy {
	enum sbx_legacy_type type;
	bool network_access;
	char **writable_roots; /* WORKSPACE_WRITE only */
	size_t n_writable_roots;
	bool exclude_tmpdir_env_var, exclude_slash_tmp;
};

/* Entry and model helpers (profile.c). Strings are copied. */
void sbx_entry_clear(struct sbx_entry *e);
int sbx_entry_copy(struct sbx_entry *dst, const struct sbx_entry *src);
bool sbx_entry_equal(const struct sbx_entry *a, const struct sbx_entry *b);
/* Same path (kind, special, path, subpath), whatever the access and skip marker. */
bool sbx_entry_same_path(const struct sbx_entry *a, const struct sbx_entry *b);
int sbx_fs_push(struct sbx_fs *fs, const struct sbx_entry *e); /* copies e */
/* Moves e into fs (its strings change owner, e is left empty); on failure e is cleared. */
int sbx_fs_push_owned(struct sbx_fs *fs, struct sbx_entry *e);
int sbx_fs_push_path(struct sbx_fs *fs, const char *path, enum sbx_access a, bool skip);
int sbx_fs_push_special(struct sbx_fs *fs, enum sbx_special sp, const char *subpath,
			enum sbx_access a, bool skip);
bool sbx_fs_contains(const struct sbx_fs *fs, const struct sbx_entry *e);
/* Room for n entries in all (a copy of known size is not grown by doubling). */
int sbx_fs_reserve(struct sbx_fs *fs, size_t n);
/* Gives back the room the doubling left beyond the last entry (a loaded profile keeps it long). */
void sbx_fs_trim(struct sbx_fs *fs);
int sbx_fs_copy(struct sbx_fs *dst, const struct sbx_fs *src);
void sbx_fs_clear(struct sbx_fs *fs);
void sbx_profile_free(struct sbx_profile *p); /* frees contents; p itself is caller's */
int sbx_profile_copy(struct sbx_profile *dst, const struct sbx_profile *src);
void sbx_additional_free(struct sbx_additional *a);
void sbx_legacy_free(struct sbx_legacy *l);
const char *sbx_profile_type_name(enum sbx_profile_type t); /* "managed" ... */
const char *sbx_access_name(enum sbx_access a);		    /* "read" "write" "deny" */
const char *sbx_special_name(enum sbx_special s); /* "root" "minimal" "project_roots" ... */

/* ---- paths (path.c) ------------------------------------------------------------------------ */

bool sbx_path_is_posix_abs(const char *p);
bool sbx_path_is_windows_abs(const char *p); /* "C:\x", "C:/x", "\\srv\share\x" */
/* Lexical normalization of an absolute POSIX path: collapses "//", ".", "..", trailing "/". */
int sbx_path_normalize(const char *in, char **out);
/* Joins base and rel (rel may be "." or contain ".."), then normalizes. */
int sbx_path_join(const char *base, const char *rel, char **out);
/* Component-wise prefix: "/a" covers "/a" and "/a/b" but not "/ab". "/" covers everything. */
bool sbx_path_covers(const char *prefix, const char *path);
/* Has p (absolute or relative) a ".." component anywhere? Decided from the text alone. */
bool sbx_path_has_dotdot(const char *p);
size_t sbx_path_depth(const char *p);		  /* "/" = 0, "/a" = 1, "/a/b" = 2 */
size_t sbx_path_depth_n(const char *p, size_t n); /* the same, of p's first n bytes */
/*
 * The one walk over a path's ancestors: visit(arg, prefix) for each strict ancestor of the
 * absolute path p, deepest first, "/" last ("/a/b/c": "/a/b", "/a", "/"), until visit returns
 * non-zero, which is returned; -ENAMETOOLONG past SBX_MAX_PATH. prefix (len bytes) lives during
 * the call.
 */
int sbx_path_ancestors(const char *p, int (*visit)(void *arg, const char *prefix, size_t len),
		       void *arg);
/* Is p (when self) or a strict ancestor of p in the strcmp-sorted array? One look-up each. */
bool sbx_path_under_sorted(const char *const *sorted, size_t n, const char *p, bool self);
/* The same for either convention (POSIX, or Windows "C:\x" and "\\srv\share\x"), by the base. */
bool sbx_path_is_sep(char c);		     /* '/' or '\\' */
size_t sbx_path_win_root_len(const char *p); /* "C:\" = 3, "\\srv\share" = its length */
int sbx_path_join_any(const char *base, const char *rel, char **out);
bool sbx_path_covers_any(const char *prefix, const char *path);
size_t sbx_path_depth_any(const char *p);
size_t sbx_path_parent_len(const char *p, size_t len); /* of p[0..len), 0 for a root */
/*
 * A set of path lengths, one bit each (lengths past SBX_MAX_PATH share the last): a table of
 * paths keeps the lengths it holds, and answers a look-up of another length (most ancestors
 * looked up hold nothing) before any hashing. Start from {0}.
 */
struct sbx_lenset {
	uint64_t bits[SBX_MAX_PATH / 64 + 1];
};
void sbx_lenset_add(struct sbx_lenset *s, size_t len);
bool sbx_lenset_has(const struct sbx_lenset *s, size_t len);
/* A hash of n bytes taken eight at a time: for tables whose keys are whole strings. */
uint64_t sbx_hash(const void *data, size_t n);
/*
 * A table built from many keys in order (a profile's 10,000 entries): each key is hashed
 * SBX_HASH_AHEAD keys before it is probed, and its slot prefetched then. The first probe of a
 * key loads a random slot, which at 10,000 keys misses the cache (perf put a third of
 * sbx_fs_roots' samples of a run of 10,000 denied files on it); asked for this early, the slot
 * is there when the probe comes. Start with sbx_ahead_start; sbx_ahead_next gives key i.
 */
#define SBX_HASH_AHEAD 8
struct sbx_ahead_key {
	uint64_t hash;
	size_t len; /* the key's length, for the tables that keep it */
};
/* Key i of keys into *k; false when there is none to probe (nothing is prefetched then). */
typedef bool sbx_ahead_fn(const void *keys, size_t i, struct sbx_ahead_key *k);
/*
 * The keys and the table, beside a ring of SBX_HASH_AHEAD keys hashed. Apart from the ring so
 * that the compiler keeps its fields in registers and calls key directly (the helpers are
 * inline): a function pointer read back from memory is an indirect call per key. Make key
 * static inline too: called out of line, it costs sbx_fs_dedup 7 instructions an entry more
 * than its loop written out by hand (callgrind).
 */
struct sbx_ahead {
	sbx_ahead_fn *key;
	const void *keys;
	size_t n;
	const char *slots; /* the table: mask + 1 (a power of two) slots of slot_size bytes */
	size_t slot_size, mask;
};

static inline void sbx_ahead_load(const struct sbx_ahead *a, struct sbx_ahead_key *ring, size_t i)
{
	struct sbx_ahead_key *k = &ring[i % SBX_HASH_AHEAD];

	if (i < a->n && a->key(a->keys, i, k))
		__builtin_prefetch(a->slots + (size_t)(k->hash & a->mask) * a->slot_size);
}

/* Hashes the first keys into ring. */
static inline void sbx_ahead_start(const struct sbx_ahead *a, struct sbx_ahead_key *ring)
{
	for (size_t i = 0; i < SBX_HASH_AHEAD; i++)
		sbx_ahead_load(a, ring, i);
}

/*
 * Key i (called for i = 0, 1, ... in turn; stale when the key function said there was none);
 * key i + SBX_HASH_AHEAD is hashed now, before key i is probed (or moved).
 */
static inline struct sbx_ahead_key sbx_ahead_next(const struct sbx_ahead *a,
						  struct sbx_ahead_key *ring, size_t i)
{
	struct sbx_ahead_key k = ring[i % SBX_HASH_AHEAD];

	sbx_ahead_load(a, ring, i + SBX_HASH_AHEAD);
	return k;
}
/*
 * Sorts the n pointers of the array at base (of any pointer type) as qsort(base, n,
 * sizeof(void *), cmp) does: a natural merge sort (the runs already in order are merged
 * pairwise), O(n log r) for r runs, so close to linear when the array is in order but for a
 * few items. It needs room for n pointers; when that cannot be had it falls back to qsort,
 * which is not stable, so cmp must break ties wherever the order of equal items matters (every
 * caller's does). A profile's
 * paths usually come sorted, and so do the lists made from them, but for the few items of
 * another depth or kind; musl's sort compares each item about four times then, glibc's about
 * log2(n) / 2 times, each a string compare over paths sharing long prefixes
 * (tests/bench/README.md). Where cmp breaks every tie, the order is qsort's to the item.
 */
void sbx_sort_ptrs(void *base, size_t n, int (*cmp)(const void *, const void *));
/*
 * The n strings of the array at base (char * or const char *) in strcmp's order, as
 * sbx_sort_ptrs with strcmp: an array already in order is found so with each string's length
 * taken once, and compared a word at a time.
 */
void sbx_sort_strs(void *base, size_t n);
/* The bytes that stand for themselves in a JSON string, as jansson writes and reads them. */
extern const bool sbx_json_plain[256];
/* Length of the valid UTF-8 sequence at s (1 for ASCII), 0 if invalid; reads at most n bytes. */
size_t sbx_utf8_len(const unsigned char *s, size_t n);
/* The value of a hexadecimal digit (either case), or -1. */
int sbx_hex_digit(unsigned char c);

/* ---- loading and emitting (load*.c, readfile.c, emit.c, builtin.c) ----------------------- */

/* What the input file was, so explain/convert can say so. */
enum sbx_input_form {
	SBX_FORM_PROFILE = 0, /* tagged PermissionProfile */
	SBX_FORM_ROLLOUT,     /* older rollout shape */
	SBX_FORM_LEGACY,      /* legacy SandboxPolicy (projected for the cwd) */
	SBX_FORM_BUILTIN,
};

/*
 * Loads a profile from JSON text (any input of sbxrun-profile(5) except the built-ins).
 * name is what diagnostics call the input ("p.json", "-", "--permission-profile").
 * A legacy SandboxPolicy is returned in *legacy_out with *form = SBX_FORM_LEGACY and out left
 * empty: the caller projects it with sbx_legacy_to_profile() for its cwd. When legacy_out is
 * NULL, legacy input is an error (the Linux helper accepts only PermissionProfile JSON).
 * form may be NULL.
 */
int sbx_profile_load_buf(const char *buf, size_t len, const char *name, struct sbx_profile *out,
			 enum sbx_input_form *form, struct sbx_legacy *legacy_out,
			 struct sbx_diag *d);
/*
 * sbx_profile_load_buf() tries the single-pass parser of the canonical form first, then these
 * two paths: jansson and the schema walkers alone, which read every shape and word every error;
 * they are public for the tests that hold them side by side.
 */
int sbx_profile_load_tree(const char *buf, size_t len, const char *name, struct sbx_profile *out,
			  enum sbx_input_form *form, struct sbx_legacy *legacy_out,
			  struct sbx_diag *d);
/*
 * The single-pass parser alone (load_wire.c): a tagged PermissionProfile, read without a tree.
 * Returns 0 with out filled, or 1 with out empty when the text is anything else, anything is
 * wrong with it, or memory ran out; it words nothing (sbx_profile_load_tree() does).
 */
int sbx_profile_load_wire(const char *buf, size_t len, struct sbx_profile *out);
/* Reads a file (or stdin for "-") with the size limit, then sbx_profile_load_buf(). */
int sbx_read_file(const char *path, char **buf, size_t *len, struct sbx_diag *d);
/*
 * The same, and the identity of the regular file read (fstat of the descriptor it was read
 * from) in *dev and *ino, that of standard input ("-") too where it is a regular file; both are 0
 * for a pipe, a terminal and a file with no name left, whose text no later run reads.
 */
int sbx_read_file_id(const char *path, char **buf, size_t *len, unsigned long long *dev,
		     unsigned long long *ino, struct sbx_diag *d);
int sbx_profile_builtin(const char *name, struct sbx_profile *out, struct sbx_diag *d);
int sbx_additional_load_buf(const char *buf, size_t len, const char *name,
			    struct sbx_additional *out, struct sbx_diag *d);
int sbx_legacy_load_buf(const char *buf, size_t len, const char *name, struct sbx_legacy *out,
			struct sbx_diag *d);
/*
 * Building blocks of the loader, exposed for tests and the helper: parse a jansson array of
 * FileSystemSandboxEntry values, or a FileSystemPermissions object (canonical {entries,
 * glob_scan_max_depth} or legacy {read,write}), appending to out. pointer is the JSON pointer of
 * v, used in diagnostics.
 */
struct json_t;
int sbx_entries_load_jv(struct json_t *v, const char *name, const char *pointer, struct sbx_fs *out,
			struct sbx_diag *d);
int sbx_fs_permissions_load_jv(struct json_t *v, const char *name, const char *pointer,
			       struct sbx_fs *out, struct sbx_diag *d);

/*
 * Canonical wire JSON, keys in the documented order, compact (no spaces), newline-free.
 * Returned strings are malloc'd; NULL on allocation failure.
 */
char *sbx_profile_to_json(const struct sbx_profile *p);
/*
 * The same text, handed to put in pieces of about chunk bytes as it is written, so that a large
 * profile is never whole in memory. Returns 0, what put returned when negative (it stops there),
 * -ENOMEM, or -EINVAL for a string the text cannot carry (as sbx_profile_to_json's NULL).
 */
int sbx_profile_to_json_stream(const struct sbx_profile *p, size_t chunk,
			       int (*put)(void *arg, const char *s, size_t n), void *arg);
char *sbx_additional_to_json(const struct sbx_additional *a); /* "{}" when empty */
/*
 * 0, or SBX_E_INVALID naming the first path or pattern of p that is not UTF-8 text: a profile
 * is JSON, which cannot carry it, so neither the helper's copy nor explain could hold it.
 */
int sbx_profile_check_text(const struct sbx_profile *p, struct sbx_diag *d);
char *sbx_legacy_to_json(const struct sbx_legacy *l);
/* jansson values for embedding (explain --json); caller owns the reference. */
struct json_t *sbx_profile_to_jv(const struct sbx_profile *p);

/* ---- the file system as the planner sees it (fsview.c) ----------------------------------- */

enum sbx_ftype { SBX_FT_NONE = 0, SBX_FT_DIR, SBX_FT_REG, SBX_FT_LINK, SBX_FT_OTHER };
#define SBX_MAX_LINK_HOPS 40 /* the kernel's own bound on links followed in one look-up */

/* What one look-up found. A failure other than absence is the look-up's return value. */
struct sbx_pathinfo {
	bool exists; /* false: ENOENT, or a component on the way is not a directory */
	enum sbx_ftype type;
	unsigned mode;		     /* st_mode */
	unsigned long uid;	     /* owner */
	unsigned long long dev, ino; /* the object's identity */
	char real[SBX_MAX_PATH];     /* where the path resolves, links followed; "" when absent */
	/*
	 * Every symbolic link crossed (each by its own resolved path), in the order met but for
	 * the first shared one, which leads; "" when none. They are joined by "/": a resolved
	 * path never holds "//", so the list is one string, and sbx_link_len() splits it.
	 */
	char link[SBX_MAX_PATH];
	bool link_shared; /* someone other than root and the caller can replace one of them */
	bool is_link;	  /* the path's own last name is a link (dangling or not) */
	bool linked;	  /* a file (not a directory) with more than one name (hard links) */
};

/*
 * The length of the first link of a list of links (struct sbx_pathinfo.link); the next starts
 * that many bytes and one "/" further on, unless the list ends there:
 *   for (const char *l = links; *l; l += n + !!l[n]) n = sbx_link_len(l);
 */
size_t sbx_link_len(const char *links);

/*
 * What a look-up found but its two strings, as a table of look-ups keeps it (the front end's
 * memo, the helper's resolver): 24 bytes, where struct sbx_pathinfo is 8 KiB. Both tables go
 * through the two functions below, so that a path asked again is answered alike by either.
 */
struct sbx_pathfacts {
	unsigned long long dev, ino;
	uint32_t uid;
	uint16_t mode;	    /* st_mode: the type and permission bits fit 16 */
	unsigned char type; /* enum sbx_ftype */
	bool exists : 1, is_link : 1, link_shared : 1, linked : 1;
};
void sbx_pathfacts_keep(struct sbx_pathfacts *f, const struct sbx_pathinfo *in);
/*
 * out from f and the strings kept beside it: real (real_len bytes) and the list of links
 * (link_len bytes), each NULL for "". A string longer than out's buffer is cut to it (it came
 * from such a buffer: never the case).
 */
void sbx_pathfacts_give(const struct sbx_pathfacts *f, const char *real, size_t real_len,
			const char *link, size_t link_len, struct sbx_pathinfo *out);
/* out as for a path that names nothing (the facts of a failed look-up): field by field. */
void sbx_pathinfo_clear(struct sbx_pathinfo *out);

/* Called for each entry of a listed directory ("." and ".." excluded); non-zero stops. */
typedef int (*sbx_fs_list_fn)(void *arg, const char *name, enum sbx_ftype type);
typedef int (*sbx_fs_chunk_fn)(void *arg, const char *chunk, size_t n);
/* list(): the directory is closed to the caller: not listable, not passable, not its own. */
#define SBX_FS_CLOSED 1

/*
 * Every file-system fact the planner uses comes through one of these: the host's own view,
 * the helper's (which keeps a descriptor of every object it found, platform/linux/resolve.c),
 * or the unit tests' fake. Each returns 0 or -errno; absence is not an error.
 */
struct sbx_fsview {
	int (*lookup)(void *self, const char *path, struct sbx_pathinfo *out);
	/* At most size bytes of a regular file (-EINVAL for anything else). */
	int (*read_file)(void *self, const char *path, char *buf, size_t size, size_t *len);
	/* The entries of a directory, or SBX_FS_CLOSED. */
	int (*list)(void *self, const char *dir, sbx_fs_list_fn each, void *arg);
	void *self;
	/*
	 * Optional (NULL: lookup): lookup of a path the plan being built keeps (a requirement's).
	 * A view that keeps what it finds and is freed before the plan (the helper's) keeps that
	 * path itself rather than a copy.
	 */
	int (*lookup_kept)(void *self, const char *path, struct sbx_pathinfo *out);
	/*
	 * Optional (NULL: none): path is likely the next one asked for, by this very string. A
	 * hint only, which answers nothing: a view whose look-ups are system calls may fetch what
	 * its next look-up reads once the calls of the current one are done (their kernel work
	 * evicts the caches). NULL forgets the hints: the planner gives it before the strings it
	 * named can be freed.
	 */
	void (*ahead)(void *self, const char *path);
	/*
	 * Optional (NULL: read_file, whole): a regular file (-EINVAL for anything else) read
	 * through, opened once, in chunks of at most size bytes read into buf, each handed to
	 * each; one that returns non-zero stops the reading with that. Memory stays at size
	 * whatever the file's (a git index: gitroots.c).
	 */
	int (*read_chunks)(void *self, const char *path, char *buf, size_t size,
			   sbx_fs_chunk_fn each, void *arg);
	/*
	 * Optional (NULL: none, and what would need it is refused): the text of the symbolic
	 * link path names last, NUL-terminated in buf (size bytes); its length, or -errno
	 * (-EINVAL: no link there now, -ENAMETOOLONG: longer than buf holds).
	 */
	int (*readlink)(void *self, const char *path, char *buf, size_t size);
	/*
	 * Optional (NULL: never): can the caller create nothing in the directory dir, for a reason
	 * that none of its processes can undo while a run lasts (enum sbx_sealed)? A name missing
	 * there then needs no mask. -errno when it cannot be told (a mask is then made).
	 */
	int (*sealed)(void *self, const char *dir);
};
extern const struct sbx_fsview sbx_fsview_host;

/*
 * Why nothing can be created in a directory by the caller, or by a command it runs, during a
 * run (struct sbx_fsview.sealed, sbx_fd_sealed): a read-only mount (the sandbox's writable bind
 * is a clone of that mount, and the command makes no mount calls), or a directory of another
 * user's that the caller may not write and has no capability over (it cannot chmod it back).
 * A directory the caller owns is never sealed: a chmod undoes its mode.
 */
enum sbx_sealed {
	SBX_SEALED_NO = 0,
	SBX_SEALED_ROFS = 1,
	SBX_SEALED_ACCESS = 2,
	/*
	 * Not sealed, and no mount point can be made there either: the caller's own directory
	 * (or one it has a capability over) that it may not write, such as one an earlier run
	 * made 0555. The command can chmod it back, so a mask is needed, and cannot be had.
	 */
	SBX_SEALED_UNMASKABLE = 3,
	/*
	 * Not sealed, and no mount point can be made there either: a directory on a read-only
	 * mount whose file system is also mounted writable where the directory is reachable (a
	 * read-only bind of a writable tree), or where that cannot be told.
	 */
	SBX_SEALED_ALIASED = 4,
};
/* The words explain and run use for it: "read-only file system", "not writable by you". */
const char *sbx_sealed_name(int sealed);
/*
 * The question of struct sbx_fsview.sealed, asked of the directory fd holds (O_PATH will do):
 * an enum sbx_sealed, or -errno. Linux only (elsewhere SBX_SEALED_NO): the kernel is asked,
 * through fstatfs(2) and faccessat2(2) with AT_EACCESS (groups and ACLs included).
 */
int sbx_fd_sealed(int fd);

/*
 * What a view keeps of the hints it was given (struct sbx_fsview.ahead): the path hinted last
 * (the next to be asked) and the one before it (most often the one being asked now), each with
 * its length and hash, so that neither is measured or hashed again when asked by that very
 * string. Start from {0}.
 */
struct sbx_fshints {
	struct sbx_fshint {
		const char *path; /* NULL: none */
		size_t len;
		uint64_t hash; /* sbx_hash */
	} next, now;
};
/* Takes path as the next hint (the one hinted before it becomes now); NULL forgets both. */
void sbx_fshints_put(struct sbx_fshints *h, const char *path);
/* The hint given for this very string (a pointer, not a copy), or NULL. */
const struct sbx_fshint *sbx_fshints_of(const struct sbx_fshints *h, const char *path);

/*
 * A view that remembers what another one found: each path is looked up once and the same
 * answer given again, so that for the paths it keeps one plan sees one state of the file system
 * however often it asks (the planner asks for some names three or four times). It keeps the
 * facts, at most SBX_FSMEMO_MAX paths: beyond that, paths are looked up each time, so that its
 * memory stays small whatever the profile's size. A failed look-up is not kept (it refuses the
 * plan anyway). Reads and listings go to base unchanged. On the host's view it keeps one
 * descriptor, of the directory of the last path looked up: a path in that directory is one
 * fstatat(2) where the host's walk makes three system calls (lib/fsmemo.c, memo_host). A name
 * found there may be through a directory moved since it was opened; anything not found, or an
 * error, is the walk's to answer, so that neither reads as missing. The helper never uses it.
 */
#define SBX_FSMEMO_MAX 192
struct sbx_fsmemo_entry;
struct sbx_fsmemo {
	struct sbx_fsview view;	       /* for ctx.fs */
	const struct sbx_fsview *base; /* what is asked; NULL: the host's */
	/*
	 * Open addressing, 1024 slots, made by the first look-up. Each slot keeps its entry's
	 * hash: a probe that meets another path reads the slot alone, not the entry it points to
	 * (which a look-up's system call has most often evicted from the caches).
	 */
	struct sbx_fsmemo_slot {
		uint64_t hash;
		struct sbx_fsmemo_entry *e; /* NULL: empty */
	} * slots;
	size_t n;
	struct sbx_arena arena; /* the entries and their strings */
	char *dir;		/* the last directory asked (malloc'd, dir_cap bytes), or NULL */
	size_t dir_len, dir_cap;
	int dir_fd;	 /* its O_PATH descriptor, or -1 (not opened, or its path crosses a link) */
	bool no_openat2; /* no openat2 here: a directory is opened through the host's walk */
	/* The planner's hints: the next path's slot is prefetched once a look-up's calls are done. */
	struct sbx_fshints hints;
};
void sbx_fsmemo_init(struct sbx_fsmemo *m, const struct sbx_fsview *base);
void sbx_fsmemo_free(struct sbx_fsmemo *m);

/*
 * The walk behind the host's view: resolves an absolute path as the kernel would, reporting
 * every link crossed; with fd_out (Linux), an O_PATH descriptor of what it found (-1 if absent).
 */
int sbx_fs_walk(const char *path, struct sbx_pathinfo *out, int *fd_out);
/*
 * The same walk, from dirfd (lent): a descriptor of path's directory, opened with no link on
 * the way, so that it is the directory the path spells (the caller's own look-up of it, kept).
 * Its last name is opened there and what a link there leads to is walked from there, not from
 * "/". A path not spelled plainly (an empty name, "." or "..") is walked from "/".
 */
int sbx_fs_walk_in(int dirfd, const char *path, struct sbx_pathinfo *out, int *fd_out);
/* Reads up to size bytes from fd (EINTR retried); *len what was read; 0 or -errno. */
int sbx_fd_read(int fd, char *buf, size_t size, size_t *len);
/* fd read through in chunks of at most size bytes into buf, each handed to each (sbx_fsview). */
int sbx_fd_read_chunks(int fd, char *buf, size_t size, sbx_fs_chunk_fn each, void *arg);
/*
 * The canonical form of a directory (relative: against the process's cwd), as the walk resolves
 * it; refused when a link on the way can be replaced by someone other than root and the caller.
 * d.msg says why, without the path. With link, *link is the list of the links crossed (as
 * struct sbx_pathinfo.link has it, for sbx_ctx.cwd_link), or NULL for none.
 */
int sbx_fs_canonical_dir(const char *path, char **out, char **link, struct sbx_diag *d);

/* ---- resolution (resolve.c; the roots: roots.c) ---------------------------------------------------------------- */

enum sbx_platform { SBX_PLATFORM_LINUX = 0, SBX_PLATFORM_MACOS, SBX_PLATFORM_WINDOWS };
const char *sbx_platform_name(enum sbx_platform p); /* "linux" "macos" "windows" */
enum sbx_platform sbx_host_platform(void);

/* Where a requirement comes from, beyond the profile's rules and what a platform adds. */
enum sbx_req_origin {
	SBX_ORIGIN_RULE = 0,
	SBX_ORIGIN_PROFILE_FILE,  /* the --profile file the run read, kept read-only */
	SBX_ORIGIN_ADDITION_FILE, /* an --add-permissions file the run read, kept read-only */
	SBX_ORIGIN_GIT_GLOBAL,	  /* the caller's global git config, or a file it includes */
	SBX_ORIGIN_GIT_SYSTEM,	  /* the caller's system git config */
};
/* "profile-file", "add-permissions-file"; NULL for SBX_ORIGIN_RULE (explain --json). */
const char *sbx_origin_name(enum sbx_req_origin o);
/* Why such a requirement is there, as explain says it; NULL for SBX_ORIGIN_RULE. */
const char *sbx_origin_reason(enum sbx_req_origin o);
/* The rule that keeps such a file read-only, as access words it; NULL for SBX_ORIGIN_RULE. */
const char *sbx_origin_rule(enum sbx_req_origin o);

/*
 * A file sbxrun read this run's permissions from (sbx_ctx.inputs). One inside a writable root
 * is made a read-only carve-out of the run, as if the profile had a read entry for it, so that
 * the command cannot rewrite what a later run reads (sbx_plan_build).
 */
#define SBX_MAX_INPUTS 32 /* a profile and each --add-permissions file */
struct sbx_input {
	const char *path;  /* absolute, lexically normalized: the name that was opened */
	const char *given; /* the name as the option gave it (NULL: path) */
	/*
	 * The first symbolic link a ".." of given follows (absolute), or NULL: there the kernel
	 * went up from the link's target, and path, normalized lexically, names another place.
	 */
	const char *link_up;
	enum sbx_req_origin origin;  /* which option named it */
	unsigned long long dev, ino; /* what was read: fstat of the descriptor it was read from */
	/*
	 * path is the kernel's name for standard input, which the caller's shell may have opened
	 * with rights sbxrun does not have: where sbxrun cannot search its way there, neither can
	 * the command, and the file is not kept.
	 */
	bool by_fd;
};

/* Where a profile is evaluated. All strings borrowed. */
struct sbx_git_configs;
struct sbx_ctx {
	const char *cwd;		    /* absolute, canonical: the sandbox policy cwd */
	const char *const *workspace_roots; /* absolute; NULL/0 = { cwd } */
	size_t n_workspace_roots;
	const char *tmpdir; /* the environment's TMPDIR or NULL; used only when absolute */
	/*
	 * The symbolic links (a list, as struct sbx_pathinfo.link has it) that the cwd and each
	 * workspace root crossed as the caller named them, on the way to their canonical form;
	 * NULL or "" for none (workspace_root_links may be NULL). Every rule path under such a
	 * root crosses them too: one inside a writable root, where an earlier run may have
	 * planted it, refuses the plan as a rule path's own link does (plan_linux.c), wherever
	 * it lies in the chain (the user's own ~/p -> /tmp/x, then /tmp/x planted).
	 */
	const char *cwd_link;
	const char *const *workspace_root_links;
	enum sbx_platform platform;
	const struct sbx_fsview *fs; /* how the file system is looked at; NULL: the host's */
	/*
	 * Git mode (--allow-git): the git directory of each writable root is writable but for
	 * what makes git run code or redirects where it looks (roots.c, sbxrun(1) GIT MODE).
	 */
	bool allow_git;
	/*
	 * The backend keeps a name from being created by a mask on a mount point made there on
	 * the host for the run (Linux: platform/linux/points.c), which concurrent runs share: an
	 * empty object at such a name (a protected name, one git mode keeps) is taken for one of
	 * those points and planned as the name missing (sbx_ctx_is_point). Off, what is there is
	 * the user's, as Codex takes it.
	 */
	bool points;
	/*
	 * The gitlinks of the git indexes (gitroots.c), the checkouts git recurses into, are left
	 * to a later plan that reads them itself and is the one enforced (`run`'s, whose helper
	 * plans again): this plan holds none of what they name and refuses none of their faults.
	 * Off, every plan that is shown, enforced or turned into a policy.
	 */
	bool gitlinks_later;
	/*
	 * The configs of git directories read so far (gitmode.c, sbx_git_config): each is read
	 * once, for both what it names (core.worktree and extensions.objectFormat). NULL: none
	 * kept, each read when asked. Set by the planner for one writable root's git.
	 */
	struct sbx_git_configs *git_configs;
	/*
	 * The files this run's permissions were read from (none for stdin or a built-in), at most
	 * SBX_MAX_INPUTS.
	 */
	const struct sbx_input *inputs;
	size_t n_inputs;
	/*
	 * The caller's home directory (sbxrun's HOME, absolute, or NULL), with which git expands
	 * an include's "~/" when the caller runs it, and the global config files git reads for
	 * the caller (sbx_git_globals): each kept read-only, or from being created, where it lies
	 * in a writable root, and what it includes followed (sbxrun(1), GIT MODE). Never the
	 * command's environment: the git that takes them is the caller's own, run later.
	 */
	const char *home;
	const char *const *git_globals;
	size_t n_git_globals;
	/*
	 * How many of git_globals, the last ones, are system files (GIT_CONFIG_SYSTEM's and
	 * /etc/gitconfig): git dies on one it cannot read, and they are named through other
	 * variables than the global ones.
	 */
	size_t n_git_system;
	/*
	 * The variable those names came from ("GIT_CONFIG_GLOBAL", or "XDG_CONFIG_HOME" or
	 * "HOME") when it is relative, which git joins to whatever directory it runs in, or
	 * holds a ".." (git_globals_dotdot), which the kernel takes after whatever the name
	 * before it then is: no one name is the file git reads, and a writable root refuses the
	 * run. NULL: none.
	 */
	const char *git_globals_unsure;
	bool git_globals_dotdot;
	/*
	 * explain: the missing ~/.config that run makes before it plans (NULL: none), planned as
	 * the empty directory run will find there, so that explain shows the plan run makes.
	 */
	const char *config_home_made;
};
const struct sbx_fsview *sbx_ctx_fs(const struct sbx_ctx *ctx);
/*
 * Words a failed look-up of path (err < 0) into d, with the hint that fits it (out of
 * descriptors, or a path it cannot read, which is never taken for a missing one); returns err.
 */
int sbx_lookup_failed(struct sbx_diag *d, int err, const char *path);
/* One look-up through ctx's view; with d, a failure other than absence is worded there. */
int sbx_ctx_lookup(const struct sbx_ctx *ctx, const char *path, struct sbx_pathinfo *in,
		   struct sbx_diag *d);
/*
 * Is the object in (path's look-up through ctx) what a mount point of the Linux backend is at a
 * name that must not be created (platform/linux/points.c): an empty directory (dir), or a
 * regular file holding exactly holds (NULL: nothing)? Such an object is planned as the missing
 * name it stands for: another run's point, or what a run killed before its clean-up left. A
 * listing or read that fails is an error worded in d (which may be NULL), never "no".
 */
int sbx_ctx_is_point(const struct sbx_ctx *ctx, const char *path, const struct sbx_pathinfo *in,
		     bool dir, const char *holds, bool *yes, struct sbx_diag *d);
/* Is p an absolute path of ctx's platform (one that can resolve there)? */
bool sbx_ctx_native_abs(const char *p, const struct sbx_ctx *ctx);
/*
 * Where an entry points for ctx (a special resolved, a native path as itself); *out NULL when
 * it does not resolve. A failed look-up (slash_tmp) is an error, worded in d when given.
 */
int sbx_entry_resolve(const struct sbx_entry *e, const struct sbx_ctx *ctx, char **out,
		      struct sbx_diag *d);

/*
 * Resolves a special to its absolute path for ctx (root -> "/", tmpdir, slash_tmp,
 * project_roots+subpath -> cwd/subpath). Returns NULL (no error) when it does not resolve.
 */
char *sbx_special_resolve(const struct sbx_entry *e, const struct sbx_ctx *ctx);

/*
 * Materialization: project_roots{sub} entries become one path entry per workspace root;
 * "codex-project-roots://sub" globs and relative globs become absolute globs per root
 * (relative globs: against cwd). Other entries are copied. Duplicates are dropped.
 */
int sbx_fs_materialize(const struct sbx_fs *in, const struct sbx_ctx *ctx, struct sbx_fs *out);
/* Would materialization for ctx change any entry (beyond dropping duplicates)? */
bool sbx_fs_expands(const struct sbx_fs *fs, const struct sbx_ctx *ctx);
int sbx_profile_materialize(const struct sbx_profile *in, const struct sbx_ctx *ctx,
			    struct sbx_profile *out);
/* The same from a profile the caller gives up (left empty whatever the result): moved, not copied. */
int sbx_profile_materialize_take(struct sbx_profile *in, const struct sbx_ctx *ctx,
				 struct sbx_profile *out);
/* Drops exact duplicate entries in place, keeping the first of each (linear expected time). */
int sbx_fs_dedup(struct sbx_fs *fs);

/* Predicates (sbxrun-profile(5), PRECEDENCE). */
bool sbx_fs_full_read(const struct sbx_fs *fs, const struct sbx_ctx *ctx);
bool sbx_fs_full_write(const struct sbx_fs *fs, const struct sbx_ctx *ctx);
bool sbx_fs_include_platform_defaults(const struct sbx_fs *fs, const struct sbx_ctx *ctx);

/* resolve_access (sbxrun-profile(5), PRECEDENCE), and the entry that decided it (index, -1 for none/unrestricted). */
enum sbx_access sbx_fs_resolve_access(const struct sbx_fs *fs, const struct sbx_ctx *ctx,
				      const char *path, long *decided_by);
/* can_write: resolve_access == write and no protected metadata name in the way. */
bool sbx_fs_can_write(const struct sbx_fs *fs, const struct sbx_ctx *ctx, const char *path);

#define SBX_PROTECTED_NAMES_N 3
extern const char *const sbx_protected_names[SBX_PROTECTED_NAMES_N]; /* .git .agents .codex */
/* Is name (len bytes, not terminated) one of sbx_protected_names? */
bool sbx_is_protected_name(const char *name, size_t len);
/*
 * Is the first name of path below root a protected name? Then *end is the length of path up
 * to and including that name.
 */
bool sbx_path_protected_below(const char *root, const char *path, size_t *end);

/* A growable list of owned strings (profile.c); v is NULL-terminated once anything is pushed. */
struct sbx_strv {
	char **v;
	size_t n, cap;
};

/* A writable root with its read-only carve-outs and protected names (PROTECTED METADATA). */
struct sbx_writable_root {
	char *root;
	char **read_only; /* explicit non-write entries inside + existing protected subpaths */
	size_t n_read_only;
	const char *protected_missing[SBX_PROTECTED_NAMES_N]; /* names to block creation of */
	size_t n_protected_missing;
	/* Git mode: missing paths inside the root (absolute) that git would run code from. */
	struct sbx_strv no_create;
};
struct sbx_roots {
	bool full_read, full_write, platform_defaults;
	char **readable;
	size_t n_readable; /* read roots (not under writable roots) */
	struct sbx_writable_root *writable;
	size_t n_writable;
	char **unreadable;
	size_t n_unreadable; /* deny paths that resolve (never "/") */
	char **deny_globs;
	size_t n_deny_globs; /* absolute patterns */
	/* fs's arena, whose paths the lists above may borrow: never freed through the roots */
	struct sbx_arena borrowed;
	/*
	 * The carve-outs and names not to be created above that keep the caller's global git
	 * config (sbx_ctx.git_globals) and what it includes: explain says why each is there.
	 */
	struct sbx_strv git_globals;
	/* Of git_globals, the system files themselves (sbx_ctx.n_git_system), not what they include. */
	struct sbx_strv git_system;
	/* Of git_globals, the missing config files themselves: an empty file whatever the name. */
	struct sbx_strv git_files;
	/*
	 * Pairs: a hook (or hooks/) linked to nothing, and the path where it leads, which lies
	 * outside every writable root (the command cannot make it): explain names each.
	 */
	struct sbx_strv hook_dangling;
};
/*
 * The roots of fs for ctx. They may borrow the paths fs keeps in its arena (a loaded profile's):
 * free the roots before fs, as sbx_plan_free does.
 */
int sbx_fs_roots(const struct sbx_fs *fs, const struct sbx_ctx *ctx, struct sbx_roots *out,
		 struct sbx_diag *d);
void sbx_roots_free(struct sbx_roots *r);
/*
 * sbx_fs_roots() as run enforces them (sbx_plan_build, access): with fs given a read entry for
 * each file of ctx->inputs that a writable root holds (sbxrun(1), --profile), named where it
 * resolves; kept[i] (SBX_MAX_INPUTS of them) is the path of input i's entry, or NULL. A file
 * whose name holds another object than the one read, or has a second name, or is reached through
 * a link inside a writable root, and a profile granting write on it, are refused
 * (SBX_E_UNENFORCEABLE in d). 0, or a negative code worded in d with out empty.
 */
int sbx_fs_roots_inputs(struct sbx_fs *fs, const struct sbx_ctx *ctx, struct sbx_roots *out,
			const char *kept[], struct sbx_diag *d);

/*
 * Protected metadata subpaths of root that exist, including a gitdir: target, looked
 * up through ctx's view. A look-up that fails other than by absence is an error (worded in d,
 * which may be NULL).
 */
int sbx_default_read_only_subpaths(const char *root, bool protect_missing_dot_codex,
				   const struct sbx_ctx *ctx, char ***out, size_t *n,
				   struct sbx_diag *d);

/*
 * The kinds of git's small files that hold one path, each read as git 2.39 reads it (setup.c,
 * worktree.c; sbxrun(1), GIT DIRECTORIES): the path stops at a NUL byte (git takes it as a C
 * string), and an empty one is the directory that holds the file (".").
 *  - SBX_GIT_COMMONDIR, a git directory's commondir: trailing newlines and carriage returns
 *    dropped, nothing else (to git "../.. " ends in a directory named ".. ");
 *  - SBX_GIT_DOTGIT, a ".git" file: two readings, git's (the path after "gitdir: ", trailing
 *    newlines and carriage returns dropped: "gitdir: X \n" is "X ") and the profile
 *    semantics' (blanks trimmed around the line and after "gitdir:"; none with a NUL byte);
 *  - SBX_GIT_GITDIR, a linked worktree's gitdir, which git itself reads two ways: blanks
 *    dropped at the end (worktree list and remove), newlines and carriage returns only
 *    (worktree prune).
 */
enum sbx_git_file { SBX_GIT_DOTGIT, SBX_GIT_COMMONDIR, SBX_GIT_GITDIR };
#define SBX_GIT_READINGS 2
/*
 * Every reading of a small file of git's (of kind, at most max bytes long), distinct, into
 * lines (allocated, the caller frees them): their number, 0 when the file is missing, not a
 * regular file, or holds no path; or a negative code, worded in d with why (what the file
 * names) as the hint's start: SBX_E_TOO_BIG when it is over max bytes (git reads it whole, and
 * what lies past may still name a path), SBX_E_UNENFORCEABLE when a reading holds a line break
 * (git would take that path; sbxrun protects none such), or the read's error.
 */
int sbx_git_read_lines(const struct sbx_ctx *ctx, const char *file, enum sbx_git_file kind,
		       const char *why, size_t max, char *lines[SBX_GIT_READINGS],
		       struct sbx_diag *d);
/*
 * base joined with text, a path read from git's file from (absolute, or relative to base), as
 * git resolves it; one with a ".." after a name is refused (in d): git would go up from wherever
 * that name leads when it runs, which the command could change meanwhile.
 */
int sbx_git_join(const char *from, const char *base, const char *text, char **out,
		 struct sbx_diag *d);
/*
 * The .git of the checkout whose git directory is dir (its config's core.worktree, as git
 * resolves it), or NULL when the config names none; a config that cannot be read, or not whole
 * (over 1 MiB, or a core.worktree longer than a path: SBX_E_TOO_BIG), is an error.
 */
int sbx_git_checkout(const struct sbx_ctx *ctx, const char *dir, char **dotgit, struct sbx_diag *d);
/*
 * What sbxrun takes from a git config's text (sbx_git_config_parse, one pass of git's parsing):
 * worktree 1 with the last core.worktree in tree, 0 with none (or a config git refuses),
 * SBX_E_TOO_BIG when one is longer than SBX_MAX_PATH bytes; hashsz the size of the object names
 * extensions.objectFormat names: 20 (sha1, or none named), 32 (sha256), 0 (another name, or a
 * config git refuses: it reads no index of that repository).
 */
struct sbx_git_config {
	int worktree;
	size_t hashsz;
	char tree[SBX_MAX_PATH + 1];
};
void sbx_git_config_parse(const char *text, size_t len, struct sbx_git_config *out);
/*
 * The merge strategy a sequencer's opts file (sequencer/opts, in git's config format) names: the
 * last options.strategy, as git's cherry-pick --continue and revert --continue take it, copied
 * into out (size bytes). 1 when one is named, 2 when it is longer than out holds (out holds its
 * start), 0 when none, -EINVAL when git would refuse the file (and run nothing with it).
 */
int sbx_git_sequencer_strategy(const char *text, size_t len, char *out, size_t size);
/* The configs kept (sbx_ctx.git_configs): each git directory's, as read once. */
struct sbx_git_configs {
	struct sbx_git_config_kept {
		char *dir;
		int worktree;
		size_t hashsz;
		char *tree; /* when worktree is 1 */
	} * v;
	size_t n, cap;
};
void sbx_git_configs_free(struct sbx_git_configs *c);
/*
 * The size of the object names of the repository whose common directory is dir, as git reads it
 * from dir/config (extensions.objectFormat): 20 (SHA-1, also where none is named) or 32
 * (SHA-256); 0 when git would not read that config or takes no such name. An unreadable config
 * is an error in d.
 */
int sbx_git_object_hash(const struct sbx_ctx *ctx, const char *dir, size_t *hashsz,
			struct sbx_diag *d);
/*
 * Does the directory dir hold nothing (gitmode.c)? One closed to the caller is taken for one
 * that holds something; a listing that fails is an error in d.
 */
int sbx_git_list_empty(const struct sbx_ctx *ctx, const char *dir, bool *empty, struct sbx_diag *d);
/*
 * The .git of the checkout whose git directory is gitdir (sbx_git_checkout), when it names one:
 * added to keep (read-only) when anything but a mount point of the Linux backend
 * (sbx_ctx_is_point) is there; else the checkout directory to keep when it is empty (git takes
 * it for a submodule not checked out); else the .git to missing (not to be created: git would
 * take a directory made there for the submodule's own repository) when the checkout directory
 * is one; else to gone (to be denied: nothing may be made on the way to it).
 */
int sbx_git_keep_checkout(const struct sbx_ctx *ctx, const char *gitdir, struct sbx_strv *keep,
			  struct sbx_strv *missing, struct sbx_strv *gone, struct sbx_diag *d);
/*
 * Is dir a git directory to git (its is_git_directory: a valid HEAD, objects/ and refs/)? Yes
 * where the view cannot tell what git would (a link, a worktree's common directory). A look-up
 * or read that fails other than by absence is an error worded in d.
 */
int sbx_git_is_gitdir(const struct sbx_ctx *ctx, const char *dir, bool *yes, struct sbx_diag *d);
/* Is name one of git's own subdirectories of a git directory (objects, refs, hooks, modules...)? */
bool sbx_git_own_subdir(const char *name);
/*
 * Is the last name of path one that git keeps from being created (hooks, config,
 * config.worktree, commondir; a submodule checkout's .git)? Then *dir and *holds say what a mount
 * point at it is on Linux (platform/linux/points.c): a directory, or a file holding *holds, what
 * git takes for the name missing ("" for a configuration file; ".\n" for commondir, which git
 * refuses empty).
 */
bool sbx_git_point(const char *path, bool *dir, const char **holds);
/*
 * Is path, a name kept from being created (sbx_git_point), a checkout's .git? That one is kept
 * with and without git mode (--allow-git is no way out); the others in git mode only.
 */
bool sbx_git_checkout_point(const char *path);
/*
 * Git reads at most two global config files (config.c, git_global_config) and one system file
 * (git_system_config), each for every repository, with the same power to run programs; and
 * /etc/gitconfig is every other git's system file.
 */
#define SBX_GIT_GLOBALS 4
/*
 * The global config files git 2.39 reads for an environment whose GIT_CONFIG_GLOBAL,
 * XDG_CONFIG_HOME and HOME are given (NULL: unset), as git_global_config() and
 * xdg_config_home() find them: GIT_CONFIG_GLOBAL alone when it is set (empty: none); else
 * $XDG_CONFIG_HOME/git/config (when XDG_CONFIG_HOME is set and not empty; else
 * $HOME/.config/git/config) and $HOME/.gitconfig, each only with HOME set. Then the system
 * file GIT_CONFIG_SYSTEM names when it is set and not empty, and /etc/gitconfig in any case
 * (once), whatever GIT_CONFIG_SYSTEM or GIT_CONFIG_NOSYSTEM say: the caller's next git need not
 * run with them, nor another user's. A relative value is
 * joined to cwd (absolute), where git joins it to its own: the caller's next git most likely
 * runs there. Into out (allocated, normalized), NULL past them, the system files last and
 * counted in *n_system; 0 or -ENOMEM.
 */
int sbx_git_globals(const char *cwd, const char *git_config_global, const char *xdg_config_home,
		    const char *home, const char *git_config_system, char *out[SBX_GIT_GLOBALS],
		    size_t *n_system);
/*
 * The files the git config file names to include (include.path, includeIf.<any>.path: git
 * reads them as part of it), as git joins each (relative to the file's directory,
 * sbx_git_join), appended to out unless there: 0 when the file is missing or no regular file.
 * One that git expands when it runs ("~", "%(prefix)"), a file over 1 MiB or a path longer than
 * SBX_MAX_PATH (SBX_E_TOO_BIG), or a failed read is an error worded in d.
 */
int sbx_git_config_includes(const struct sbx_ctx *ctx, const char *file, struct sbx_strv *out,
			    struct sbx_diag *d);
/*
 * Git mode (gitmode.c): for the git directory gitdir and every one it leads to (its common
 * directory, submodules', worktrees'), the paths git runs code from or is redirected by that
 * exist (appended to keep: to stay read-only) and those missing (to missing: not to be created;
 * to gone: a submodule checkout's .git whose directory is missing, to be denied).
 * A symbolic link among git directories, more than SBX_MAX_GIT_DIRS of them, or a failed
 * look-up is an error worded in d.
 */
int sbx_git_mode_paths(const struct sbx_ctx *ctx, const char *gitdir, struct sbx_strv *keep,
		       struct sbx_strv *missing, struct sbx_strv *gone, struct sbx_diag *d);
/*
 * The same for a writable root that is itself a git directory (*is: HEAD is there as git takes
 * a HEAD: a link, or a file naming a ref or an object; then HEAD is kept too, and the root
 * walked as a git directory whatever else it holds). Nothing is appended where *is is false.
 */
int sbx_git_root_paths(const struct sbx_ctx *ctx, const char *root, struct sbx_strv *keep,
		       struct sbx_strv *missing, struct sbx_strv *gone, bool *is,
		       struct sbx_diag *d);

/* ---- legacy <-> canonical (legacy.c) ------------------------------------------------------- */

int sbx_legacy_to_profile(const struct sbx_legacy *l, const struct sbx_ctx *ctx,
			  struct sbx_profile *out);
/* Fails with SBX_E_NO_LEGACY and the message of sbxrun-profile(5), CONVERSION TO LEGACY. */
int sbx_profile_to_legacy(const struct sbx_profile *p, const struct sbx_ctx *ctx,
			  struct sbx_legacy *out, struct sbx_diag *d);
/* The compatibility fallback (CONVERSION TO LEGACY); never fails except ENOMEM. */
int sbx_profile_compat_legacy(const struct sbx_profile *p, const struct sbx_ctx *ctx,
			      struct sbx_legacy *out);

/* ---- algebra (algebra.c) ------------------------------------------------------------------ */

/* Rejects non-deny globs ("glob file system permissions only support deny-read entries"). */
int sbx_additional_normalize(struct sbx_additional *a, struct sbx_diag *d);
int sbx_additional_materialize(const struct sbx_additional *in, const struct sbx_ctx *ctx,
			       struct sbx_additional *out);
int sbx_additional_merge(const struct sbx_additional *base, const struct sbx_additional *extra,
			 struct sbx_additional *out);
int sbx_additional_intersect(const struct sbx_additional *requested,
			     const struct sbx_additional *granted, const struct sbx_ctx *ctx,
			     struct sbx_additional *out);
/* effective_permission_profile: extra may be NULL. */
int sbx_profile_effective(const struct sbx_profile *base, const struct sbx_additional *extra,
			  struct sbx_profile *out);
/*
 * sbxrun's addition (addition.c): sbx_profile_effective(), except that a deny in extra is never
 * dropped: an unrestricted managed file system becomes "root write but the denies", and a
 * disabled or external profile refuses it (SBX_E_INVALID, with a hint). extra may be NULL.
 */
int sbx_profile_add(const struct sbx_profile *base, const struct sbx_additional *extra,
		    struct sbx_profile *out, struct sbx_diag *d);
/* merge_glob_scan_max_depth (sbxrun-profile(5), ADDITIONAL PERMISSIONS). */
unsigned sbx_merge_glob_depth(const struct sbx_fs *a, const struct sbx_fs *b);

/* ---- globs (glob.c) ----------------------------------------------------------------------- */

/* Git-style match of an absolute pattern against an absolute path. */
bool sbx_glob_match(const char *pattern, const char *path);
/* Does pattern match path or one of its ancestors (what lies inside a match is covered too)? */
bool sbx_glob_covers(const char *pattern, const char *path);
/*
 * The same for a glob expanded depth levels below its static prefix (0: no limit), as a Linux
 * run expands it: a match deeper than that is found by no scan, so covers nothing.
 */
bool sbx_glob_covers_within(const char *pattern, unsigned depth, const char *path);
/*
 * The static prefix: the leading components without an unescaped * ? or [, escapes removed
 * ("/src/p\[1\]/x*" -> "/src/p[1]").
 */
int sbx_glob_static_prefix(const char *pattern, char **out);
/*
 * A literal path made safe to join into a pattern: a backslash before each of \ * ? [ ] { }
 * (the Linux matcher and the SBPL regex translation both read "\c" as c). POSIX paths only:
 * on Windows the backslash separates.
 */
int sbx_glob_escape(const char *literal, char **out);
bool sbx_glob_has_meta(const char *s);
/*
 * Expands pattern on the file system as fs sees it (NULL: the host's), depth levels below the
 * static prefix (0 = no limit), at most SBX_MAX_GLOB_MATCHES results; sorted. Refuses a static
 * prefix of "/" or "", a directory on the way the command could reach into but the scan cannot
 * list, and a match too long to name.
 */
int sbx_glob_expand(const char *pattern, unsigned depth, const struct sbx_fsview *fs, char ***out,
		    size_t *n, struct sbx_diag *d);
void sbx_strv_free(char **v, size_t n);

/* struct sbx_strv (defined with the roots, which hold one) */
/* Takes ownership of str (NULL means an allocation failed: -ENOMEM); frees it on failure. */
int sbx_strv_push_owned(struct sbx_strv *s, char *str);
int sbx_strv_push(struct sbx_strv *s, const char *str); /* copies */
/* Makes s->v[s->n] NULL (room for it made), so s->v can serve as argv or environ. */
int sbx_strv_terminate(struct sbx_strv *s);
/* Gives back the room past the NULL (doubling leaves up to half of it unused); cannot fail. */
void sbx_strv_fit(struct sbx_strv *s);
bool sbx_strv_has(const struct sbx_strv *s, const char *str);
int sbx_strv_add_unique(struct sbx_strv *s, const char *str); /* copies */
void sbx_strv_sort(struct sbx_strv *s);			      /* byte order, as strcmp */
void sbx_strv_clear(struct sbx_strv *s);

/* A growing NUL-terminated string (strbuf.c). A failed allocation sticks: the later puts do
 * nothing and sbx_strbuf_finish() frees what there is and returns NULL. Start from {0}. */
struct sbx_strbuf {
	char *p;
	size_t n, cap;
	bool oom;
};
void sbx_strbuf_put(struct sbx_strbuf *b, const char *s, size_t n);
void sbx_strbuf_puts(struct sbx_strbuf *b, const char *s);
void sbx_strbuf_printf(struct sbx_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The string (malloc'd; *len its length when len is not NULL), or NULL; b is emptied. */
char *sbx_strbuf_finish(struct sbx_strbuf *b, size_t *len);

/* ---- environment_context (context.c) ---------------------------------------------------- */

struct sbx_context_in {
	const char *cwd, *shell, *current_date, *timezone; /* each NULL = line omitted */
	const struct sbx_profile *profile;		   /* NULL = no <filesystem> line */
	const char *const *workspace_roots;
	size_t n_workspace_roots;
};
char *sbx_context_render(const struct sbx_context_in *in);
char *sbx_context_filesystem(const struct sbx_profile *p, const char *const *roots, size_t n);

/* ---- the command's environment (env.c) ---------------------------------------------------- */

/*
 * How the command's environment is made from sbxrun's own (sbxrun(1), THE ENVIRONMENT):
 * 1. start from every variable, or with clear or any keep pattern only those matching a keep
 *    pattern; 2. drop those matching a deny pattern, and with deny_secrets those matching
 *    *KEY*, *SECRET* or *TOKEN*; 3. with offline and the network restricted, assign the
 *    variables that keep package managers off the network; 4. assign each set ("NAME=VALUE"),
 *    in order. Patterns: `*` and `?`, ASCII case ignored. All strings borrowed.
 */
struct sbx_env_policy {
	bool clear;
	const char *const *keep;
	size_t n_keep;
	const char *const *deny;
	size_t n_deny;
	bool deny_secrets;
	bool offline;
	const char *const *set;
	size_t n_set;
	bool fold_case; /* names compare without regard to case (Windows) for set and lookup */
};
/* out is NULL-terminated (out->v[out->n] == NULL); -EINVAL for a set without "NAME=". */
int sbx_env_build(const char *const *environ_in, const struct sbx_env_policy *pol, bool network,
		  struct sbx_strv *out);
bool sbx_env_pattern_match(const char *pattern, const char *name, size_t len);
size_t sbx_env_name_len(const char *var);      /* of "NAME=VALUE" */
int sbx_env_check_assignment(const char *var); /* 0 for "NAME=VALUE", else -EINVAL */
/* The value of name in env, or NULL. */
const char *sbx_env_lookup(const struct sbx_strv *env, const char *name, bool fold_case);
/* The names of env and the n_extra names in extra: sorted (strcmp), each once. */
int sbx_env_names(const struct sbx_strv *env, const char *const *extra, size_t n_extra,
		  struct sbx_strv *names);

/* ---- intent (intent.c) ------------------------------------------------------------------- */

enum sbx_pref { SBX_PREF_AUTO = 0, SBX_PREF_REQUIRE, SBX_PREF_FORBID };
enum sbx_windows_level { SBX_WIN_DISABLED = 0, SBX_WIN_RESTRICTED_TOKEN, SBX_WIN_ELEVATED };
enum sbx_sandbox {
	SBX_SANDBOX_NONE = 0,
	SBX_SANDBOX_LINUX_SECCOMP,
	SBX_SANDBOX_MACOS_SEATBELT,
	SBX_SANDBOX_WINDOWS_RESTRICTED_TOKEN,
};
const char *sbx_sandbox_name(enum sbx_sandbox s); /* "none" "linux-seccomp" ... */

bool sbx_should_require_platform_sandbox(const struct sbx_profile *p, bool managed_network,
					 const struct sbx_ctx *ctx);
bool sbx_should_sandbox(const struct sbx_profile *p, enum sbx_pref pref, bool managed_network,
			const struct sbx_ctx *ctx);
/* get_platform_sandbox: the backend of a platform (Windows: none when level is disabled). */
enum sbx_sandbox sbx_platform_sandbox(enum sbx_platform pl, enum sbx_windows_level level);

/* ---- managed networking: what it is given (proxyenv.c, load_managed.c) ------------------- */

/*
 * The proxy variables Codex reads (its network proxy's list), each also in lower case:
 * under managed networking these name the proxies, the only places the command may connect to.
 */
#define SBX_PROXY_VARS_N 16
extern const char *const sbx_proxy_vars[SBX_PROXY_VARS_N];
/*
 * The variables that name the hosts a client reaches without its proxy (Codex's list, each also
 * in lower case), and the value sbxrun's own proxy gives them with local binding: the loopback,
 * where the command's own servers listen.
 */
#define SBX_NO_PROXY_VARS_N 4
extern const char *const sbx_no_proxy_vars[SBX_NO_PROXY_VARS_N];
#define SBX_NO_PROXY_LOOPBACK "localhost,127.0.0.1,::1"

enum sbx_proxy_scheme { SBX_PROXY_HTTP = 0, SBX_PROXY_HTTPS, SBX_PROXY_SOCKS5, SBX_PROXY_SOCKS5H };
const char *sbx_proxy_scheme_name(enum sbx_proxy_scheme s); /* "http" ... "socks5h" */

/* One proxy, as a proxy variable names it. */
struct sbx_proxy_endpoint {
	char var[32]; /* the variable, spelt as in the environment */
	enum sbx_proxy_scheme scheme;
	/* A name (lower case), a dotted quad, or an IPv6 address without brackets. */
	char host[256];
	bool ipv6;
	unsigned port; /* 1-65535: as written, or the scheme's default (80, 443, 1080) */
	bool loopback; /* localhost, 127.0.0.0/8 or ::1 */
};

/*
 * Parses one proxy URL, [SCHEME://][USER[:PASSWORD]@]HOST[:PORT][/], the way Codex reads proxy
 * variables (no scheme means http) but strictly: the scheme is http, https, socks5 or socks5h;
 * HOST a name, a dotted quad or a bracketed IPv6 address; nothing follows but one "/". var names
 * the variable in messages, which never repeat the value (it may hold a password). Returns 0 or
 * SBX_E_INVALID with d filled.
 */
int sbx_proxy_parse(const char *var, const char *value, struct sbx_proxy_endpoint *out,
		    struct sbx_diag *d);

/* Every proxy variable of an environment, each spelling of each, in the order of the list. */
struct sbx_proxies {
	struct sbx_proxy_endpoint v[2 * SBX_PROXY_VARS_N];
	size_t n;
};

/*
 * The proxies of env ("NAME=VALUE" strings, NULL-terminated) for managed networking: every
 * proxy variable that is set and not blank must parse and name a loopback endpoint, and at least
 * one must be set, so that the command can reach exactly what the caller routed it through.
 * A name set twice counts twice. Returns 0 or SBX_E_INVALID with d filled (and a hint).
 */
int sbx_proxies_from_env(char *const *env, struct sbx_proxies *out, struct sbx_diag *d);
/* The distinct ports of the loopback proxies, ascending, into ports (room for 2 * N); how many. */
size_t sbx_proxies_ports(const struct sbx_proxies *p, unsigned *ports);

/*
 * A loopback endpoint of managed networking: where a proxy listens on the host and, on Linux,
 * where the bridge listens inside the sandbox's network namespace (the same address and port,
 * so a proxy variable keeps meaning the same place; "localhost" is 127.0.0.1).
 */
struct sbx_loopback_ep {
	bool ipv6;
	unsigned char addr[16]; /* IPv4: the first four bytes (127.0.0.0/8); IPv6: ::1 */
	unsigned port;
	/* Named localhost: 127.0.0.1, and on the host [::1] where 127.0.0.1 refuses (bridge.c). */
	bool localhost;
};
/* Enough for every proxy variable in both spellings and every port of a managed context. */
#define SBX_MAX_LOOPBACK_EPS (2 * SBX_PROXY_VARS_N + 256)
/* The endpoint a parsed loopback proxy names; -EINVAL when it is not on loopback. */
int sbx_proxy_endpoint_ep(const struct sbx_proxy_endpoint *p, struct sbx_loopback_ep *out);
/* "127.0.0.1:3128" or "[::1]:3128" (buf of at least 56 bytes). */
void sbx_loopback_ep_format(const struct sbx_loopback_ep *e, char *buf, size_t n);
/*
 * The proxy URL value with its host replaced by host (a numeric address, IPv6 in brackets) and
 * its port by port; the scheme (or its absence), user:password@ and a trailing "/" are kept.
 * value must have passed sbx_proxy_parse(). Returns 0 with *out malloc'd, SBX_E_INVALID or
 * -ENOMEM.
 */
int sbx_proxy_rewrite(const char *value, const char *host, unsigned port, char **out);
/*
 * The command's environment with managed networking on Linux: every proxy variable of env (each
 * spelling) rewritten to the numeric address of the bridge that serves it (sbx_proxy_rewrite),
 * as "NAME=VALUE" assignments in out, only those that change. 0, SBX_E_INVALID or -ENOMEM.
 */
int sbx_proxy_env_rewrite(char *const *env, struct sbx_strv *out);
/*
 * The proxy variables of sbxrun's own proxy (run --allow-domain): every variable of
 * sbx_proxy_vars that sbx_proxy_var_own keeps, in both spellings, set to http://ADDR as
 * "NAME=VALUE" in out; the others as "NAME" alone, to be removed from the command's
 * environment. Then each of sbx_no_proxy_vars in both spellings: set to SBX_NO_PROXY_LOOPBACK
 * with local_binding, else removed. 0 or -ENOMEM.
 */
int sbx_proxy_env_own(const struct sbx_loopback_ep *ep, bool local_binding, struct sbx_strv *out);
/* Whether sbxrun's own proxy sets sbx_proxy_vars[i] (all but NPM_CONFIG_HTTP_PROXY). */
bool sbx_proxy_var_own(int i);

/*
 * Codex's ManagedNetworkSandboxContext: {"loopbackPorts":[PORT,...],"allowLocalBinding":BOOL,
 * "dangerouslyAllowAllUnixSockets":BOOL}, each key optional, also spelt in snake case
 * ("loopback_ports"...); unknown keys, a key given in both spellings, and a port outside 1-65535
 * are errors. What the Linux helper's --managed-network takes.
 */
#define SBX_MAX_LOOPBACK_PORTS 256 /* sixteen proxy variables, with room for extra listeners */
struct sbx_managed_ctx {
	unsigned ports[SBX_MAX_LOOPBACK_PORTS]; /* ascending, distinct */
	size_t n_ports;
	bool allow_local_binding;
	bool allow_all_unix_sockets;
};
int sbx_managed_ctx_load_buf(const char *buf, size_t len, const char *name,
			     struct sbx_managed_ctx *out, struct sbx_diag *d);

/*
 * A Unix socket path of an allow-list (Codex's normalize_path_for_sandbox, lexically): absolute,
 * "." and ".." resolved, at most SBX_MAX_PATH bytes; a Windows path is kept as written. Relative
 * paths are refused: they would be taken from whatever directory the command runs in. Returns
 * 0, SBX_E_INVALID, SBX_E_TOO_BIG or -ENOMEM.
 */
int sbx_unix_socket_normalize(const char *path, char **out, struct sbx_diag *d);

/* ---- plans (plan.c; platform attachers plan_linux.c, sbpl.c, plan_windows.c) ------------- */

enum sbx_req_kind {
	SBX_REQ_READ = 0,	   /* readable root */
	SBX_REQ_WRITE,		   /* writable root */
	SBX_REQ_READ_ONLY,	   /* read-only carve-out inside a writable root */
	SBX_REQ_PROTECT_MISSING,   /* protected name that must not be created */
	SBX_REQ_DENY,		   /* denied path (and glob expansions) */
	SBX_REQ_DENY_GLOB,	   /* a deny glob as a whole */
	SBX_REQ_PLATFORM_DEFAULTS, /* "minimal" readable set */
	SBX_REQ_NETWORK,	   /* network restricted or enabled (see plan.network) */
	SBX_REQ_MANAGED_NETWORK,
	SBX_REQ_METADATA,	/* chmod/chown/utimes outside writable roots */
	SBX_REQ_UNIX_SOCKET,	/* a Unix socket on the allow-list (path NULL: every one) */
	SBX_REQ_LOCAL_BINDING,	/* bind and serve on loopback */
	SBX_REQ_WRITE_CONFINED, /* no write outside the writable roots (even with none) */
	SBX_REQ_NO_CREATE,	/* git mode: a missing path git reads that must not be created */
	/*
	 * The isolation of processes a Linux sandbox adds to the profile's rules (planned for
	 * Linux only: Seatbelt and the Windows job object have their own, not planned here).
	 */
	SBX_REQ_SIGNALS,   /* signals and ptrace reach only the sandbox's processes */
	SBX_REQ_IPC,	   /* System V IPC and POSIX message queues of others unreachable */
	SBX_REQ_DEVICES,   /* no host device node but the allow-list (private /dev) */
	SBX_REQ_PROCESSES, /* no process of the sandbox outlives the run */
	/*
	 * Linux, network enabled, file system restricted: Unix sockets on the file system outside
	 * the writable roots unreachable but the allow-list (a daemon's, such as Docker's).
	 */
	SBX_REQ_PATH_SOCKETS,
	/*
	 * Linux: abstract Unix sockets of outside processes unreachable (they have no file: only
	 * a network namespace, seccomp, the broker or Landlock's scope keep them out of reach).
	 */
	SBX_REQ_ABSTRACT_SOCKETS,
	/*
	 * Linux, every confined run: the system calls no sandbox needs (mounts and new
	 * namespaces, bpf, kernel keys, perf events, module loading, io_uring, faking terminal
	 * input, execution domains) refused. The enter sequence always loads that filter.
	 */
	SBX_REQ_KERNEL_SURFACE,
};
enum sbx_req_status { SBX_ENFORCED = 0, SBX_UNENFORCEABLE, SBX_SKIPPED };

/*
 * The mechanisms that enforce a requirement, as bits: the plan says which, and the platform
 * applies exactly those (the Linux helper reads them, never the rendered name).
 */
enum sbx_mech {
	SBX_MECH_LANDLOCK = 1u << 0,
	SBX_MECH_MOUNT_NS = 1u << 1,
	SBX_MECH_SECCOMP = 1u << 2,
	SBX_MECH_LANDLOCK_NET = 1u << 3,
	SBX_MECH_SEATBELT = 1u << 4,
	SBX_MECH_RESTRICTED_TOKEN = 1u << 5,
	SBX_MECH_NONE = 1u << 6, /* enforced with nothing to restrict (everything is allowed) */
	SBX_MECH_PID_NS = 1u << 7,
	SBX_MECH_IPC_NS = 1u << 8,
	SBX_MECH_SUPERVISOR = 1u << 9,	   /* sbxrun as a child subreaper, outside the sandbox */
	SBX_MECH_NET_NS = 1u << 10,	   /* a network namespace of the sandbox's own: lo only */
	SBX_MECH_UNIX_BROKER = 1u << 11,   /* connect(2) decided and made by the supervisor */
	SBX_MECH_PROCESS_GROUP = 1u << 12, /* the sandbox in a process group of its own */
};
#define SBX_MECH_NAME_MAX 96
/*
 * The name explain shows, from one table: "landlock", "mount-namespace",
 * "landlock+mount-namespace", "seccomp+landlock-net", "seatbelt", "restricted-token"; "none"
 * for SBX_MECH_NONE and for no mechanism at all. Written to buf, which is returned.
 */
const char *sbx_mech_name(unsigned mech, char buf[SBX_MECH_NAME_MAX]);
/* The name of exactly one mechanism bit ("mount-namespace"), from the same table; else NULL. */
const char *sbx_mech_one(unsigned bit);

/*
 * What is rarely said of a requirement, kept apart from it (NULL when none is): a requirement
 * is 48 bytes, and a plan holds one per path.
 */
struct sbx_req_note {
	char *reason;	      /* why unenforceable or skipped, or a note on how it is enforced */
	struct sbx_span self; /* where reason names the requirement's own path (notes.c) */
	char *hint;	      /* a fix the user can apply, or NULL */
	char *link;	      /* the symbolic links crossed on the way to path (a list), or NULL */
};

/* The small members share a word (enums in a byte): a plan holds one of these per path. */
struct sbx_req {
	char *path; /* absolute path or pattern; NULL for network/metadata */
	/*
	 * The rule a user reads: "network restricted", "connect to Unix socket /run/a.sock". NULL
	 * for a requirement of a path the profile names, whose rule is its verb and its path
	 * ("write /home/me/proj", "read-only /p/.git"), written when it is read: sbx_req_rule().
	 */
	char *rule;
	char *real; /* where path resolves when it exists (path itself when equal), else NULL */
	struct sbx_req_note *note; /* its reason, hint and link: sbx_req_reason() and the like */
	unsigned mech;		   /* enum sbx_mech bits; 0 = no mechanism (unenforceable) */
	enum sbx_req_kind kind : 8;
	enum sbx_req_status status : 8;
	enum sbx_ftype type : 8; /* what it is when it exists */
	/* Its own last name is a symbolic link (dangling, when !exists). */
	unsigned is_link : 1;
	/* A missing name to keep uncreated whose directory is sealed (enum sbx_sealed). */
	unsigned sealed : 3;
	/* What it leads to is a device node (character or block), links followed. */
	unsigned device : 1;
	bool exists;	  /* path exists on this host (when path != NULL) */
	bool link_shared; /* someone other than root and the caller can replace one */
	bool path_kept;	  /* path lies in its plan (its roots or paths): never freed alone */
	bool linked;	  /* a file (not a directory) with more than one name (hard links) */
	enum sbx_req_origin origin : 8; /* a file the run read its permissions from, or a rule */
};

/* Frees what r owns (path unless kept, rule, real, its note) and clears it. */
void sbx_req_release(struct sbx_req *r);
/* Why r is unenforceable or skipped, or how it is enforced; NULL when nothing is said. */
const char *sbx_req_reason(const struct sbx_req *r);
/* Where sbx_req_reason(r) names r's own path (len 0 when it does not). */
struct sbx_span sbx_req_self(const struct sbx_req *r);
/* A fix the user can apply, or NULL. */
const char *sbx_req_hint(const struct sbx_req *r);
/* The symbolic links crossed on the way to r's path (a list: sbx_link_len()), or NULL. */
const char *sbx_req_link(const struct sbx_req *r);

/*
 * Room for any rule sbx_req_rule() writes: a verb, a space and a path (a root's path and a
 * protected name past it at most).
 */
#define SBX_REQ_RULE_MAX (SBX_MAX_PATH + 64)
/*
 * The rule of r as a user reads it: r->rule, or for a requirement of a path (r->rule NULL) its
 * verb and its path written into buf, which is returned (denial.c).
 */
const char *sbx_req_rule(const struct sbx_req *r, char buf[SBX_REQ_RULE_MAX]);

/*
 * Records the attacher's decision on r: status, mechanisms, a reason (printf-style, NULL for
 * none) and a hint (copied, NULL for none). Returns 0 or -ENOMEM.
 */
int sbx_req_set(struct sbx_req *r, enum sbx_req_status st, unsigned mech, const char *hint,
		const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/*
 * The same, for a reason that names r's own path: lead, then r->path, then fmt's text. Where
 * the path lies is recorded with it (sbx_req_self()), for explain to say "this path" there.
 */
int sbx_req_set_self(struct sbx_req *r, enum sbx_req_status st, unsigned mech, const char *hint,
		     const char *lead, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/*
 * The same, with d's message as the reason: where it names r's own path is d->about (the
 * checks that fill d are given r->path).
 */
int sbx_req_set_diag(struct sbx_req *r, enum sbx_req_status st, unsigned mech, const char *hint,
		     const struct sbx_diag *d);

/* Managed networking and the network allowances beside it (sbx_plan_network). */
struct sbx_netplan {
	struct sbx_proxies proxies; /* managed networking: every proxy, each on loopback */
	/* Ports of a managed network context (--managed-network): more loopback endpoints. */
	unsigned ports[SBX_MAX_LOOPBACK_PORTS];
	size_t n_ports;
	/* run --allow-domain: sbxrun's own proxy, with these patterns (borrowed). */
	bool own_proxy;
	const char *const *allow_domains, *const *deny_domains;
	size_t n_allow_domains, n_deny_domains;
	bool allow_private;  /* --allow-private-addresses: as sbx_net_opts.allow_private */
	char **unix_sockets; /* the allow-list: absolute, normalized, sorted, distinct */
	size_t n_unix_sockets;
	bool allow_local_binding;
	bool allow_all_unix_sockets;
};

struct sbx_plan {
	enum sbx_platform platform;
	struct sbx_profile profile; /* effective, materialized */
	struct sbx_roots roots;
	bool sandbox_requested;
	enum sbx_sandbox sandbox;
	bool network; /* enabled */
	bool managed_network;
	struct sbx_netplan net; /* see sbx_plan_network() */
	struct sbx_req *reqs;
	size_t n_reqs, cap_reqs;
	struct sbx_arena paths; /* requirements' paths that are not the roots' own (path_kept) */
};

/* Builds the platform-neutral requirement list (no mechanism yet, status ENFORCED). */
int sbx_plan_build(const struct sbx_profile *effective, const struct sbx_ctx *ctx,
		   enum sbx_pref pref, bool managed_network, enum sbx_windows_level wlevel,
		   struct sbx_plan *out, struct sbx_diag *d);
/*
 * The same plan from a profile the caller gives up (left empty, whatever the result): the plan
 * keeps it instead of a copy when materialization would not change it (a profile materialized
 * already, as the Linux helper is handed), so that it is not held twice.
 */
int sbx_plan_build_take(struct sbx_profile *effective, const struct sbx_ctx *ctx,
			enum sbx_pref pref, bool managed_network, enum sbx_windows_level wlevel,
			struct sbx_plan *out, struct sbx_diag *d);
/* Each is a parameter and a few rules of a policy: an allow-list, not a file system. */
#define SBX_MAX_UNIX_SOCKETS 256
/* What the network may do beyond the profile's "network", for sbx_plan_network(). */
struct sbx_net_opts {
	char *const *env; /* managed networking: the command's environment, NULL-terminated */
	const char *const *unix_sockets; /* the Unix socket allow-list, as given */
	size_t n_unix_sockets;
	bool allow_local_binding;
	bool allow_all_unix_sockets;
	const unsigned *ports; /* a managed network context's loopback ports */
	size_t n_ports;
	/*
	 * run --allow-domain: managed networking through sbxrun's own proxy, which the run starts;
	 * the command's proxy variables are then set to it, not read. The patterns are borrowed
	 * by the plan, for explain.
	 */
	bool own_proxy;
	const char *const *allow_domains, *const *deny_domains;
	size_t n_allow_domains, n_deny_domains;
	/*
	 * --allow-private-addresses: the proxy lets an allowed name lead to loopback, private,
	 * link-local and this host's own addresses (sbx_proxy_config.allow_private).
	 */
	bool allow_private;
};
/*
 * Completes a plan built by sbx_plan_build(): the Unix socket allow-list, normalized; and when
 * a sandbox is requested, the proxies of o->env for managed networking (sbx_proxies_from_env:
 * none, or one not on loopback, is an error) and a requirement for each allowance, so that
 * explain shows it and every attacher must decide it. Called once per plan. Returns 0 or a
 * negative code with d filled.
 */
int sbx_plan_network(struct sbx_plan *p, const struct sbx_net_opts *o, struct sbx_diag *d);
void sbx_plan_free(struct sbx_plan *p);
bool sbx_plan_enforceable(const struct sbx_plan *p);
/* First unenforceable requirement, or NULL. */
const struct sbx_req *sbx_plan_first_unenforceable(const struct sbx_plan *p);

/* ---- what explain and -v say about a plan (notes.c) -------------------------------------- */

/*
 * A read or write grant on a path that does not exist here: it has no effect, and is shown
 * "skipped" ("missing: no effect") whatever mechanism the plan names for it, which stays as it
 * is (nothing about enforcement changes).
 */
bool sbx_req_missing_grant(const struct sbx_req *r);
#define SBX_MISSING_NO_EFFECT "missing: no effect"

/* Reasons shared by several rows, said once: text holds each distinct note, in first use. */
struct sbx_notes {
	struct sbx_strv text;
	size_t *of; /* per row: the 1-based number of its note, 0 for none */
};
/*
 * Groups n reasons (NULL: the row has none). self[i] (or self NULL) is where reasons[i] names
 * its row's own path: the note says "this path" there, so that rows differing only in their
 * path share one note.
 */
int sbx_notes_group(const char *const *reasons, const struct sbx_span *self, size_t n,
		    struct sbx_notes *out);
void sbx_notes_free(struct sbx_notes *n);

/* ---- which rule decides an access (denial.c) --------------------------------------------- */

/* What kind of rule decided an access: the words are made from it (sbx_rule_words). */
enum sbx_rule_kind {
	SBX_RULE_DEFAULT = 0,  /* no entry covers the path (default deny) */
	SBX_RULE_UNRESTRICTED, /* no file-system restriction */
	SBX_RULE_EXTERNAL,     /* confined outside sbxrun */
	SBX_RULE_ENTRY,	       /* entries[i] as written: "entries[2]: deny /usr/bin" */
	SBX_RULE_CARVE_OUT, /* a read entry inside a writable one: "entries[5]: read-only /w/doc" */
	SBX_RULE_PROTECTED, /* a protected name: "entries[4]: read-only .git (protected)" */
	SBX_RULE_GIT_KEPT,  /* a name git mode keeps read-only: "read-only .git/hooks (git ..." */
	SBX_RULE_GIT_WRITE, /* the git directory git mode lets be written */
};

/* The effective access of a path and the rule that decided it (sbxrun(1), access). */
struct sbx_access_why {
	enum sbx_access access;
	enum sbx_rule_kind kind;
	/*
	 * The deciding entry's index, -1 for none (default deny, unrestricted). PROTECTED: the
	 * read entry naming it, or the writable entry it lies in; GIT_*: the writable entry.
	 */
	long entry;
	bool protected_name; /* write taken back: protected metadata under a writable entry */
	char *name;	     /* PROTECTED, GIT_*: ".git", ".git/hooks", relative to the root */
	/*
	 * GIT_KEPT: why git mode keeps it ("git runs the programs in it"); PROTECTED: why a
	 * directory that is no protected name is (name is then its absolute path), or NULL.
	 */
	const char *reason;
	bool missing; /* PROTECTED, GIT_KEPT: the name is missing, a point keeps it uncreated */
	char *rule;   /* sbx_rule_words(): "entries[2]: deny /usr/bin", "no entry covers ..." */
};
/* The words of the rule w names, with p's entries as written; malloc'd, NULL out of memory. */
char *sbx_rule_words(const struct sbx_profile *p, const struct sbx_access_why *w);
/* Frees out's rule and name. */
void sbx_access_why_free(struct sbx_access_why *w);
/*
 * p is materialized, roots its roots for ctx (sbx_fs_roots(), as the plan takes them): a path
 * the entries let be written is still read-only, uncreatable or denied where the roots keep it
 * (git's directories); roots NULL: the entries alone. 0 with out filled (sbx_access_why_free),
 * or -ENOMEM.
 */
int sbx_access_rule(const struct sbx_profile *p, const struct sbx_roots *roots,
		    const struct sbx_ctx *ctx, const char *path, struct sbx_access_why *out);
/*
 * The same, deciding with the entries of decide (p's entries, one for one, with other paths:
 * where they lead, for the denial report) and wording with p's own; decide NULL: p's.
 */
int sbx_access_rule_in(const struct sbx_profile *p, const struct sbx_fs *decide,
		       const struct sbx_ctx *ctx, const char *path, struct sbx_access_why *out);
/*
 * The rule that decides whether plan p lets path be read, decided with decide (NULL: the
 * plan's own entries): out->access is SBX_DENY when it does not, after the platform's :minimal
 * set (minimal, NULL-terminated, or NULL), which grants what no entry covers.
 */
int sbx_read_rule(const struct sbx_plan *p, const struct sbx_fs *decide, const struct sbx_ctx *ctx,
		  const char *path, const char *const *minimal, struct sbx_access_why *out);

/* The "minimal" readable set on Linux (sbxrun-profile(5), RESOLUTION), NULL-terminated. */
extern const char *const sbx_linux_minimal_paths[];
/* The nodes of the host's /dev the sandbox's private /dev holds too, NULL-terminated. */
extern const char *const sbx_linux_private_dev_nodes[];
/* A rule of this kind names a path the command must find there (grants, carve-outs, names). */
bool sbx_linux_dev_rule_kind(enum sbx_req_kind kind);
/*
 * Would a rule of this kind on path name nothing the command reaches, the sandbox's /dev being
 * a private one? True for paths under /dev but the nodes above, /dev/shm and what lies in it
 * (and a read of /dev itself).
 */
bool sbx_linux_private_dev_hides(enum sbx_req_kind kind, const char *path);
/* Is path /dev/shm or under it: mounted inside the private /dev, at the same path? */
bool sbx_linux_private_shm(const char *path);

/*
 * The interpreter the kernel loads for an executable that starts with buf[0..len): the program
 * of a "#!" line or an ELF file's PT_INTERP. 0 with out filled; -ENOENT when it has none (a
 * static binary, or not an executable format); -EINVAL when buf cannot tell (too short, bad).
 */
int sbx_exec_interpreter(const unsigned char *buf, size_t len, char *out, size_t size);
/*
 * Why a program cannot be executed under plan p: the first of paths (absolute, or NULL: the
 * program as named, where it leads, the interpreter the kernel loads for it, where that leads)
 * that p does not let be read, and the rule that decides it ("no entry grants read on
 * /usr/bin/sh", "/usr/bin/sh is denied by entries[2]: deny /usr/bin", "its interpreter: ...").
 * minimal is the platform's :minimal set. Returns 1 with *why malloc'd and *refused that path,
 * 0 when p lets all be read (the cause is elsewhere), -ENOMEM.
 */
#define SBX_EXEC_PATHS 4
int sbx_exec_refusal(const struct sbx_plan *p, const struct sbx_ctx *ctx,
		     const char *const paths[SBX_EXEC_PATHS], const char *const *minimal,
		     char **why, const char **refused);

/* ---- the denial report (report.c) --------------------------------------------------------- */

/* What the command tried, as the report names it (sbx_op_name). */
enum sbx_op {
	SBX_OP_READ = 0, /* open for reading, list a directory, look a name up (O_PATH) */
	SBX_OP_WRITE,	 /* open for writing, truncate */
	SBX_OP_CREATE,	 /* a new name: open(O_CREAT), mkdir, mknod, symlink */
	SBX_OP_DELETE,	 /* unlink, rmdir */
	SBX_OP_RENAME,	 /* path to `to` */
	SBX_OP_LINK,	 /* a new name `to` for path */
	SBX_OP_CHMOD,
	SBX_OP_CHOWN,
	SBX_OP_UTIMES,
	SBX_OP_XATTR, /* set or remove an extended attribute */
	SBX_OP_EXEC,
	SBX_OP_SOCKET,
	SBX_OP_CONNECT,
	SBX_OP_BIND,
	SBX_OP_LISTEN,
	SBX_OP_ACCEPT,
	SBX_OP_CALL, /* another system call the seccomp filter refuses: named by the call */
};
const char *sbx_op_name(enum sbx_op op);

/*
 * The groups of seccomp rules, each refusing for one reason (the report's rule). The Linux
 * filter carries the group of the rule that matched, so the report can say which it was.
 */
enum sbx_seccomp_group {
	SBX_SCG_NONE = 0,
	SBX_SCG_KERNEL,	     /* mount, keys, bpf, modules, kexec, perf: in every sandbox */
	SBX_SCG_TTY,	     /* terminal input, console state, discipline, exclusive mode */
	SBX_SCG_NAMESPACE,   /* new namespaces (unshare, clone) */
	SBX_SCG_PERSONALITY, /* execution domains */
	SBX_SCG_METADATA,    /* chmod, chown, utimes, xattr everywhere (no mount namespace) */
	SBX_SCG_IOCTL,	     /* an ioctl outside the allow-list (no mount namespace) */
	SBX_SCG_WATCH,	     /* inotify and fanotify watches (denies by Landlock alone) */
	SBX_SCG_NETWORK,     /* the network restricted */
	SBX_SCG_IPC,	     /* System V IPC and POSIX message queues (no IPC namespace) */
	SBX_SCG_PROCESSES,   /* others' priorities, limits (no PID namespace), kill(0) (tty) */
	SBX_SCG_MAX
};

/*
 * The plan as the report decides with it: its entries as they resolve (a rule path that leads
 * elsewhere through a link is compared where it leads, as the kernel enforces it), and which
 * mechanisms the platform applies.
 */
struct sbx_report_view {
	const struct sbx_plan *plan;
	const struct sbx_ctx *ctx;
	struct sbx_fs real;   /* plan->profile's entries one for one, each path where it leads */
	bool mount_namespace; /* the plan is enforced with a mount namespace */
	bool landlock;	      /* and with a Landlock file-system ruleset */
	const char *const *minimal; /* the platform's :minimal set, or NULL */
};
/* Looks each entry up through ctx's view; 0, or a negative code with d filled. */
int sbx_report_view_init(struct sbx_report_view *v, const struct sbx_plan *plan,
			 const struct sbx_ctx *ctx, const char *const *minimal, struct sbx_diag *d);
void sbx_report_view_free(struct sbx_report_view *v);

/* An operation that failed in the sandbox, as a tracer saw it. Strings are borrowed. */
struct sbx_op_seen {
	enum sbx_op op;
	const char *call; /* the system call ("openat", "connect") */
	const char *path; /* absolute, as the command named it (from its cwd or dirfd), or NULL */
	const char *real; /* where path leads inside the sandbox, or NULL when unknown */
	const char *to, *to_real; /* rename, link: the new name */
	const char *address;	  /* socket calls: "127.0.0.1:80", "unix:/run/a.sock", "AF_INET" */
	int err;		  /* the errno it failed with */
	bool hidden;		  /* ENOENT, yet what it names exists outside the sandbox */
	enum sbx_seccomp_group seccomp; /* the seccomp rule that refused it, or SBX_SCG_NONE */
	/* exec: the interpreter the kernel loads for the program, and where it leads, or NULL */
	const char *interp, *interp_real;
};

/* Why the sandbox refused an operation. */
struct sbx_denial {
	const char *op;	       /* sbx_op_name(), or the call for SBX_OP_CALL */
	const char *mechanism; /* "landlock", "mount-namespace", "seccomp" */
	char *rule;	       /* the words of `sbxrun access`, or of the seccomp rule; malloc'd */
};
/*
 * Did the sandbox refuse s? Only when the plan refuses that operation on that path (decided
 * where it leads) and the errno is what the mechanism that enforces it gives: EACCES (Landlock,
 * or the mode of a mask), EROFS and EBUSY (a read-only mount, a mount point), ENOENT when a mask
 * hid what exists (s->hidden), EPERM from a seccomp rule. 1 with out filled (free out->rule),
 * 0 for an ordinary failure (a missing file, a file mode the profile does not need), -ENOMEM.
 */
int sbx_denial_decide(const struct sbx_report_view *v, const struct sbx_op_seen *s,
		      struct sbx_denial *out);

/* One line of the report. Strings may be NULL (null); pid < 0 and err 0 are null too. */
struct sbx_report_line {
	const char *time; /* RFC 3339 UTC with milliseconds */
	long pid;	  /* as the command sees it */
	const char *comm;
	const char *op;
	const char *path, *to, *address;
	int err;
	const char *rule, *mechanism;
};
/*
 * {"time":..,"pid":..,"comm":..,"op":..,"path":..|"address":..,["to":..,]"errno":"EACCES",
 * "rule":..,"mechanism":..} and a newline (path or address: whichever is set; neither: path
 * null); malloc'd, NULL on allocation failure (text not UTF-8: sbx_json_text).
 */
char *sbx_report_line_json(const struct sbx_report_line *l);
/*
 * One line of a JSON log (netlog.c): o's compact text in its keys' order and a newline,
 * malloc'd. Takes o (may be NULL); NULL when !ok (a field could not be set) or out of memory.
 */
struct json_t;
char *sbx_json_line(struct json_t *o, bool ok);
/*
 * A JSON string of s (null for NULL) for every JSON output: text that is not UTF-8 keeps its
 * valid sequences, each other byte becoming U+FFFD; NULL only when out of memory.
 */
struct json_t *sbx_json_text(const char *s);
/* "EACCES", "EROFS"...: the name of an errno the report can show, or NULL. */
const char *sbx_errno_name(int err);
/* A denial in a few words: "write /w/.git/index.lock: entries[4]: read /w/.git"; malloc'd. */
char *sbx_report_brief(const struct sbx_report_line *l);
/*
 * The line sbxrun prints after a confined command failed: "3 operations were denied (first:
 * BRIEF); see --report" (without "sbxrun: "), first from sbx_report_brief(). malloc'd, NULL when
 * out of memory.
 */
char *sbx_report_summary(size_t n, const char *first);

/* ---- platform attachers: pure, so explain can plan for any platform on any host ----------- */

/* Facts of a Linux host, filled by the probe (platform/linux/probe.c). */
struct sbx_linux_facts {
	char kernel[128];     /* uname release */
	int landlock_abi;     /* 0 = Landlock unavailable */
	bool seccomp;	      /* seccomp filters can be installed */
	bool user_namespaces; /* an unprivileged user namespace can be created */
	char userns_blocked_by
		[160];	      /* "" or what blocks them (AppArmor restriction, sysctl, ...) */
	bool mount_namespace; /* a private mount namespace can be created by this process */
	bool no_new_privs;    /* prctl(PR_SET_NO_NEW_PRIVS) works */
	bool running_as_root;
	bool in_container;
	int wsl; /* 0 = not WSL, else 1 or 2 */
	/*
	 * PID and IPC namespaces can be made along with the mount namespace, by one clone(2)
	 * (platform/linux/sandbox.h): the sandbox then runs under its own init.
	 */
	bool pid_namespace;
	bool ipc_namespace;
	bool net_namespace; /* a network namespace can be made along with them */
	/*
	 * The Unix socket broker's kernel interfaces: seccomp user notification, pidfd_open and
	 * pidfd_getfd (Linux 5.6).
	 */
	bool unix_broker;
	/*
	 * sbxrun has a controlling terminal (or cannot tell): the sandbox stays in the caller's
	 * process group, the terminal's job, so that the terminal's reads, Ctrl-C and Ctrl-Z
	 * behave as without it. Without one the sandbox gets a process group of its own.
	 */
	bool terminal;
};
/* What --platform linux assumes on a host that is not Linux: a current kernel, no restrictions. */
void sbx_linux_facts_assumed(struct sbx_linux_facts *f);
/* Attaches a mechanism (or "unenforceable" with a reason and a hint) to every requirement. */
int sbx_plan_attach_linux(struct sbx_plan *p, const struct sbx_linux_facts *f);
/* Who runs the command, and under what (platform/linux/sandbox.h). */
enum sbx_linux_model {
	SBX_MODEL_IN_PLACE = 0, /* the helper becomes the command: nothing needs a supervisor */
	SBX_MODEL_SUBREAPER,	/* the helper supervises as a child subreaper, no PID namespace */
	SBX_MODEL_INIT, /* the helper supervises init, pid 1 of new PID and IPC namespaces */
};
/*
 * What the Linux enter sequence applies for a plan attached on facts f: read off the mechanisms
 * its enforced requirements name (platform/linux/enforce.c applies exactly this; the planner's
 * property test checks every requirement against it).
 */
struct sbx_linux_apply {
	enum sbx_linux_model model;
	bool mount_namespace;
	int landlock_abi;      /* 0: no Landlock ruleset */
	bool landlock_fs;      /* the ruleset handles file-system rights */
	bool landlock_net;     /* it handles TCP bind and connect */
	bool seccomp_network;  /* the filter refuses sockets but AF_UNIX, and connect... */
	bool seccomp_metadata; /* and chmod, chown, utimes, xattr, ioctl but the allow-list */
	bool seccomp_ipc;      /* and System V IPC, message queues, others' limits (no init) */
	bool seccomp_pgrp;     /* and kill(0): the caller's process group (init, a terminal) */
	bool seccomp_async;    /* and O_ASYNC, F_SETSIG: init without Landlock's signal scope */
	bool own_group;	       /* the sandbox in a process group of its own (no terminal) */
	bool private_dev;      /* a private minimal /dev in the mount namespace */
	bool landlock_dev;     /* no private /dev: Landlock grants devices from an allow-list */
	/*
	 * The network (platform/linux/netns.h): a namespace of its own with lo only, its
	 * listeners leading to the proxies; connect(2) through the supervisor's broker.
	 */
	bool net_namespace;
	bool unix_broker;
};
void sbx_plan_linux_apply(const struct sbx_plan *p, const struct sbx_linux_facts *f,
			  struct sbx_linux_apply *out);
/*
 * Which /dev a run of roots gets on a host with facts f, as the planner decides the devices
 * requirement: the private one of a mount namespace (under init, which also gives the command's
 * own terminal its name there: *init), the host's behind Landlock's allow-list, or neither (no
 * requirement, as with full write, or the run is refused).
 */
enum sbx_linux_devs { SBX_DEVS_NONE = 0, SBX_DEVS_PRIVATE, SBX_DEVS_LANDLOCK };
enum sbx_linux_devs sbx_linux_devs_for(const struct sbx_roots *rt, const struct sbx_linux_facts *f,
				       bool *init);
/*
 * Who runs a Linux plan under the denial report (report.c), on a host with facts f. *model is
 * the plan's own, as sbx_plan_linux_apply() chose it (read here, never chosen again). Only
 * init's supervisor traces, so a plan that would run in place runs under init where the host
 * can make its namespaces: 0 with *model SBX_MODEL_INIT; SBX_E_UNENFORCEABLE worded in d (with
 * a hint) where the host cannot, *model left as it was. run refuses that; explain says so.
 */
int sbx_report_model(const struct sbx_linux_facts *f, enum sbx_linux_model *model,
		     struct sbx_diag *d);
/*
 * Whether a rule path of plan p ("what": "deny-read path", "writable root"...) may be followed
 * through the links it crosses (a list: sbx_link_len()): 0 for system links,
 * SBX_E_UNENFORCEABLE (worded in d as Codex does, naming the link) when one lies inside a
 * writable root or, shared, someone other than root and the caller can replace one. real is
 * where the path leads, or NULL.
 */
int sbx_linux_link_check(const struct sbx_plan *p, const char *what, const char *path,
			 const char *link, bool shared, const char *real, struct sbx_diag *d);

/*
 * Whether a denied path of plan p may be masked by name although its file is linked (has other
 * names): 0 when it is not or lies outside every writable root (path, or real, where it
 * resolves), else SBX_E_UNENFORCEABLE worded in d. inside names the file when it lies in the
 * denied directory path (by its resolved place), else NULL.
 * in_writable: is path inside one of p's writable roots, as named or as they resolve (where an
 * earlier run may have made names)?
 */
bool sbx_linux_in_writable(const struct sbx_plan *p, const char *path);
int sbx_linux_nlink_check(const struct sbx_plan *p, const char *what, const char *path,
			  const char *real, const char *inside, bool linked, struct sbx_diag *d);

/* ---- the Linux mount plan (plan_linux_mounts.c): pure, unit-tested without root ----------- */

/* The kinds of mount, in the order they stack at one depth. */
enum sbx_mount_kind {
	SBX_MNT_WRITE = 0, /* a writable root: a read-write clone of its tree */
	SBX_MNT_PIN,	   /* a directory above a rule in a writable root, bound onto itself */
	SBX_MNT_READ_ONLY, /* a carve-out inside a writable root: a read-only clone */
	SBX_MNT_READ,	   /* a readable root inside a denied directory: re-opened in its mask */
	SBX_MNT_DENY,	   /* a denied path: an empty read-only mask */
	/*
	 * A mount point made on the host for the run (platform/linux/points.c), or an empty
	 * leftover of an earlier run's: an empty read-only directory of mode 01555 (a missing
	 * protected name) or an empty read-only file (the first missing component of a denied
	 * path), so that nothing can be created there.
	 */
	SBX_MNT_POINT,
};

/*
 * One mount of the plan. The caller gives one candidate for each rule path as it resolved
 * (absent paths get no mount, but a point): kind (any but SBX_MNT_PIN), path, is_dir, from_glob,
 * dev and ino; the plan decides the rest. Widest members first: a plan may hold 10,000.
 */
struct sbx_mount_op {
	const char *path; /* where it resolves; borrowed from the caller, or the plan's pins */
	unsigned long long dev, ino; /* the candidate's; 0 for a pin (looked up by the caller) */
	int mask;		     /* re-opened: the index of the mask holding its point, or -1 */
	unsigned short depth;	     /* components of path (at most half its length) */
	unsigned short len; /* strlen(path): the plan compares paths by their lengths first */
	/* enum sbx_mount_kind: as a bit-field it would take a word of its own on Windows */
	unsigned char kind;
	bool is_dir;
	bool from_glob; /* a deny found by expanding a glob */
	bool skip;	/* hidden by a mask above it, or a repeat of the op before it */
	bool sealed;	/* a mask over a path also re-opened: hides all below, re-opens nothing */
	bool holds;	/* a mask that holds mount points for re-opened descendants */
	/*
	 * One byte for the last three, so that the op stays within 40 bytes. in_shm: at or under
	 * /dev/shm (sbx_linux_private_shm), mounted inside the private /dev once it is attached.
	 * shm_point: nothing mounted above it there, so its mount point is made in the private
	 * /dev/shm (the private /dev/shm itself for /dev/shm). alone: the only op at its path (the
	 * plan's index says).
	 */
	bool in_shm : 1, shm_point : 1, alone : 1;
};

struct sbx_mount_plan {
	struct sbx_mount_op *ops; /* in the order they are applied */
	size_t n;
	struct sbx_strv pins; /* the directories bound onto themselves (owned) */
};

/*
 * The mounts of n candidates. ops (malloc'd, room for n) is taken whatever the result: it becomes
 * out->ops, with the candidates that need no mount dropped in place and the pins added, so that
 * a plan of 10,000 paths is never held twice. granted: where the Landlock ruleset grants anything
 * (resolved paths, strcmp-sorted), or NULL when there is no file-system ruleset or it grants
 * everything.
 */
int sbx_mount_plan_build(struct sbx_mount_op *ops, size_t n, const char *const *granted,
			 size_t n_granted, struct sbx_mount_plan *out);
void sbx_mount_plan_free(struct sbx_mount_plan *p);

int sbx_plan_attach_macos(struct sbx_plan *p, bool sandbox_exec_present);
int sbx_plan_attach_windows(struct sbx_plan *p, enum sbx_windows_level level);

/* ---- the Linux helper's command line (handover.c) ---------------------------------------- */

#define SBX_HELPER_NAME "sbxrun-linux-sandbox"
/* Above this many bytes the profile goes through a sealed memfd: argv and envp share ARG_MAX. */
#define SBX_PROFILE_ARG_MAX (64u * 1024u)
/* profile_fd of a memfd not made yet (explain): shown as "<memfd>". */
#define SBX_HANDOVER_FD_PENDING (-2)

#define SBX_HANDOVER_LIST_MAX 256 /* as many as run accepts of each (cmd/cmd.h OPT_LIST_MAX) */
/* Everything `run` hands to the helper, and all the helper accepts. Strings are borrowed. */
struct sbx_handover {
	const char *policy_cwd;	     /* --sandbox-policy-cwd (required) */
	const char *command_cwd;     /* --command-cwd, or NULL for the policy cwd */
	const char *profile;	     /* --permission-profile JSON, or NULL */
	int profile_fd;		     /* --permission-profile-fd N, -1, or SBX_HANDOVER_FD_PENDING */
	bool no_proc;		     /* --no-proc */
	bool allow_git;		     /* --allow-git: git mode (sbx_ctx.allow_git) */
	const char *managed_network; /* --managed-network JSON (ManagedNetworkSandboxContext) */
	char *const *cmd;	     /* after "--": the command, NULL-terminated */
	/*
	 * sbxrun's own (Codex's helper has none of them): the network beyond the profile, as
	 * `run` was given it. Each list holds at most SBX_HANDOVER_LIST_MAX words.
	 */
	const char *unix_sockets[SBX_HANDOVER_LIST_MAX]; /* --allow-unix-socket PATH */
	size_t n_unix_sockets;
	bool allow_local_binding;			  /* --allow-local-binding */
	const char *allow_domains[SBX_HANDOVER_LIST_MAX]; /* --allow-domain D: sbxrun's proxy */
	size_t n_allow_domains;
	const char *deny_domains[SBX_HANDOVER_LIST_MAX]; /* --deny-domain D */
	size_t n_deny_domains;
	const char *network_log;      /* --network-log FILE: the proxy's decisions */
	bool allow_private_addresses; /* --allow-private-addresses: the proxy's */
	/*
	 * --report-fd N: the denial report's file, opened by `run` (which refuses a link, a
	 * directory, anything but a regular file or a pipe) and inherited; -1 for none.
	 */
	int report_fd;
	/*
	 * --report-created FILE: the report's file by name, when `run` made it for this run: the
	 * helper removes it (still empty, still the file report_fd is open on) when the run ends
	 * in 125 before the command started.
	 */
	const char *report_created;
	/*
	 * --git-config FILE, then --git-system-config FILE (at most SBX_GIT_GLOBALS in all, no
	 * global one after a system one) and --home DIR: the caller's global and system git
	 * config files and HOME (sbx_ctx.git_globals, .n_git_system, .home), which the helper
	 * cannot read from its environment (the command's). The helper takes only absolute,
	 * normalized paths; each only adds what is kept read-only, and is looked up again there.
	 */
	const char *git_globals[SBX_GIT_GLOBALS];
	size_t n_git_globals, n_git_system;
	const char *home;
};
/*
 * The hand-over for a materialized profile's JSON: by argument, or by memfd when large. With
 * profile_json NULL, the profile is set later (sbx_linux_exec writes it as it goes).
 */
void sbx_handover_init(struct sbx_handover *h, const char *policy_cwd, const char *command_cwd,
		       const char *profile_json, char *const *cmd);
/* The argv: self, the options, "--", the command. */
int sbx_handover_argv(const struct sbx_handover *h, const char *self, struct sbx_strv *out);
/* Parses the helper's argv (argv[0] its name); a usage error is worded in d. */
int sbx_handover_parse(int argc, char *const *argv, struct sbx_handover *out, struct sbx_diag *d);

/* SBPL policy for /usr/bin/sandbox-exec (sbpl.c). params are "KEY=VALUE" strings. */
struct sbx_sbpl {
	char *policy;
	char **params;
	size_t n_params;
};
int sbx_sbpl_build(const struct sbx_plan *p, const struct sbx_ctx *ctx, struct sbx_sbpl *out,
		   struct sbx_diag *d);
void sbx_sbpl_free(struct sbx_sbpl *s);
/*
 * The sandbox-exec argv: "/usr/bin/sandbox-exec", "-p", policy, "-DKEY=VALUE"..., "--", cmd...,
 * NULL. One allocation: free(*argv_out) releases it all. Pure, so explain can show it anywhere.
 */
int sbx_macos_argv(const struct sbx_sbpl *s, char *const cmd[], char ***argv_out, size_t *argc_out);

/* Windows command lines by the CommandLineToArgvW rules (winquote.c). */
char *sbx_win_quote_arg(const char *arg);
char *sbx_win_cmdline(char *const argv[]);

#endif /* SBX_H */
