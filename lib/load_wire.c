/* SPDX-License-Identifier: MIT */
/*
 * load_wire.c - the tagged PermissionProfile in one pass, straight into the model.
 *
 * sbxrun hands its helper the canonical profile, and the helper, a trust boundary, must load it
 * again: with a jansson tree that costs several allocations and about a kilobyte per entry, most
 * of the start-up of a large profile. This parser reads the same text in one pass without a tree:
 * the paths copied into the profile's arena (a few blocks), a scratch buffer for the string being
 * decoded, nothing else.
 *
 * It is strict in the same way as the jansson path (see load.c): RFC 8259 syntax, UTF-8 checked
 * with the same function as the pre-scan, no NUL (raw or \u0000), no duplicate keys, no unknown
 * keys, every type, limit and path rule of the schema walkers. It accepts any key order,
 * whitespace and escapes, so it is not tied to the emitter's spelling. What it does not accept it
 * does not word: it gives up (returns 1) and the caller reads the text again through jansson,
 * which either accepts it (the older shapes, which this parser does not read) or words the error
 * with its position. So the two paths agree by construction on every error, and the fuzz target
 * and the unit tests check that whatever this parser accepts, the jansson path accepts too and
 * loads into the same model.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "load.h"

struct wire {
	const unsigned char *p, *end;
	char *str; /* the string decoded last, NUL-terminated */
	size_t len, cap;
	struct sbx_arena *pool; /* the entries' arena, where a plain path is copied */
};

/* ---- syntax --------------------------------------------------------------------------------- */

static void skip_ws(struct wire *w)
{
	while (w->p < w->end && (*w->p == ' ' || *w->p == '\n' || *w->p == '\t' || *w->p == '\r'))
		w->p++;
}

static bool eat(struct wire *w, char c)
{
	/* The canonical text has no whitespace: the common case is the very next byte. */
	if (w->p < w->end && *w->p == (unsigned char)c) {
		w->p++;
		return true;
	}
	skip_ws(w);
	if (w->p == w->end || *w->p != (unsigned char)c)
		return false;
	w->p++;
	return true;
}

static bool reserve(struct wire *w, size_t more)
{
	size_t cap;
	char *n;

	if (w->len + more < w->cap)
		return true;
	cap = w->cap ? w->cap : 256;
	while (cap <= w->len + more)
		cap *= 2;
	n = realloc(w->str, cap);
	if (!n)
		return false;
	w->str = n;
	w->cap = cap;
	return true;
}

/* The four hex digits after "\u" at w->p (which points at the 'u'), or -1. */
static long hex4(struct wire *w)
{
	long v = 0;

	if (w->end - w->p < 5 || *w->p != 'u')
		return -1;
	for (int i = 1; i <= 4; i++) {
		int d = sbx_hex_digit((unsigned char)w->p[i]);

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	w->p += 5;
	return v;
}

static void put_utf8(struct wire *w, uint32_t cp)
{
	char *o = w->str + w->len;

	if (cp < 0x80) {
		o[0] = (char)cp;
		w->len += 1;
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		w->len += 2;
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		w->len += 3;
	} else {
		o[0] = (char)(0xf0 | cp >> 18);
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		w->len += 4;
	}
}

/* One escape sequence (w->p just past the backslash) into w->str. */
static bool escape(struct wire *w)
{
	static const char in[] = "\"\\/bfnrt", out[] = "\"\\/\b\f\n\r\t";
	const char *k;
	long cp, lo;

	if (w->p == w->end || !reserve(w, 4))
		return false;
	if (*w->p != 'u') {
		k = *w->p ? strchr(in, *w->p) : NULL;
		if (!k)
			return false;
		w->str[w->len++] = out[k - in];
		w->p++;
		return true;
	}
	cp = hex4(w);
	/* No NUL in any string; surrogates only as a high-low pair (jansson refuses the rest). */
	if (cp <= 0 || (cp >= 0xdc00 && cp <= 0xdfff))
		return false;
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (w->end - w->p < 2 || w->p[0] != '\\')
			return false;
		w->p++;
		lo = hex4(w);
		if (lo < 0xdc00 || lo > 0xdfff)
			return false;
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
	}
	put_utf8(w, (uint32_t)cp);
	return true;
}

/* A JSON string, decoded into w->str (w->len bytes). */
static bool string(struct wire *w)
{
	if (!eat(w, '"'))
		return false;
	w->len = 0;
	for (;;) {
		const unsigned char *run = w->p;
		size_t n;

		/* Most of a profile is path text: plain ASCII, copied a run at a time. */
		while (w->p < w->end && sbx_json_plain[*w->p])
			w->p++;
		if (w->p > run) {
			if (!reserve(w, (size_t)(w->p - run)))
				return false;
			sbx_copy(w->str + w->len, run, (size_t)(w->p - run));
			w->len += (size_t)(w->p - run);
		}
		if (w->p == w->end || *w->p < 0x20)
			return false;
		if (*w->p == '"')
			break;
		if (*w->p == '\\') {
			w->p++;
			if (!escape(w))
				return false;
			continue;
		}
		n = sbx_utf8_len(w->p, (size_t)(w->end - w->p));
		if (!n || !reserve(w, n))
			return false;
		memcpy(w->str + w->len, w->p, n);
		w->len += n;
		w->p += n;
	}
	w->p++;
	if (!reserve(w, 1))
		return false;
	w->str[w->len] = '\0';
	return true;
}

/* The n bytes of lit, exactly as they stand in the text (and w->p past them), or false. */
static bool spelled(struct wire *w, const char *lit, size_t n)
{
	if ((size_t)(w->end - w->p) < n || sbx_bytes_cmp(w->p, lit, n) != 0)
		return false;
	w->p += n;
	return true;
}

/*
 * The n bytes of lit (JSON punctuation and whole strings without escapes) as the text spells
 * them, with whitespace wherever JSON allows it: before each byte outside a string. False, with
 * w->p anywhere, where the text differs.
 */
static bool literal(struct wire *w, const char *lit, size_t n)
{
	bool in_string = false;

	for (size_t i = 0; i < n; i++) {
		if (w->p == w->end || *w->p != (unsigned char)lit[i]) {
			if (in_string)
				return false;
			skip_ws(w);
			if (w->p == w->end || *w->p != (unsigned char)lit[i])
				return false;
		}
		w->p++;
		in_string ^= lit[i] == '"';
	}
	return true;
}

static bool null(struct wire *w)
{
	skip_ws(w);
	if (w->end - w->p < 4 || memcmp(w->p, "null", 4) != 0)
		return false;
	w->p += 4;
	return true;
}

/*
 * The index of the n bytes at s in names (NULL-terminated), or -1. Compared here rather than by
 * strncmp: the names are a few bytes long, and musl's strncmp, a call and a byte loop with three
 * tests per byte, was a fifth of the loader's instructions.
 */
static int name_index(const char *s, size_t n, const char *const *names)
{
	for (int i = 0; names[i]; i++) {
		const char *k = names[i];
		size_t j = 0;

		while (j < n && k[j] == s[j])
			j++;
		if (j == n && !k[n])
			return i;
	}
	return -1;
}

/*
 * A string that must be one of names: its index, or -1. Keys and enumerated values are short
 * and plain, so they are compared where they lie in the text, without decoding (w->str is not
 * set); anything else (an escape) is decoded first.
 */
static int string_in(struct wire *w, const char *const *names)
{
	const unsigned char *s;

	if (!eat(w, '"'))
		return -1;
	for (s = w->p; s < w->end && sbx_json_plain[*s]; s++)
		;
	if (s < w->end && *s == '"' && s > w->p) {
		int i = name_index((const char *)w->p, (size_t)(s - w->p), names);

		w->p = s + 1;
		return i;
	}
	w->p--; /* back to the opening quote */
	return string(w) ? name_index(w->str, w->len, names) : -1;
}

/*
 * The next member of an object whose "{" has been read: 1 with the key's index in names (a bit
 * in *seen; a key seen twice, or not in names, ends the walk), 0 at the closing "}", -1 on
 * anything else.
 */
static int member(struct wire *w, const char *const *names, unsigned *seen, int *key)
{
	if (eat(w, '}'))
		return 0;
	if (*seen && !eat(w, ','))
		return -1;
	*key = string_in(w, names);
	if (*key < 0 || (*seen & 1u << *key) || !eat(w, ':'))
		return -1;
	*seen |= 1u << *key;
	return 1;
}

/* ---- the schema --------------------------------------------------------------------------- */

static bool check_length(const struct wire *w)
{
	return w->len > 0 && w->len <= SBX_MAX_PATH;
}

/* Is the component a[0..n) one that sbx_path_normalize() keeps: not empty, ".", or ".."? */
static bool kept_component(const unsigned char *a, size_t n)
{
	return n && !(a[0] == '.' && (n == 1 || (n == 2 && a[1] == '.')));
}

/*
 * The length of the string text at p (up to its closing quote, before end) when it is a plain
 * absolute POSIX path as sbx_path_normalize() would write it, at most SBX_MAX_PATH bytes: the
 * usual path, which is taken as it stands. 0 for anything else (decoded and normalized then). One
 * pass: the bytes are checked and the components cut as they go by.
 */
static size_t plain_path(const unsigned char *p, const unsigned char *end)
{
	const unsigned char *s = p, *comp, *stop;

	if (s == end || *s != '/')
		return 0;
	for (comp = ++s;;) {
#if defined(__SSE2__)
		/*
		 * Sixteen bytes at a time, up to the first byte below '-' (the closing quote, a
		 * control, and as a signed byte anything at 0x80 or above) or '\\': none of these
		 * is to be decoded. A component begun after a '/' of the block is bad only when
		 * empty (a '/' after a '/') or "." or ".." (a '.' after a '/': such a block is read
		 * byte by byte below); the one begun at comp, before the block or at its start,
		 * is checked whole where the block's first '/' ends it (or at the closing quote).
		 * Bit i of each mask is byte i.
		 */
		while (end - s >= 16) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
			unsigned other, keep = 0xffff, slash, dot, n = 16;

			other = (unsigned)_mm_movemask_epi8(
				_mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8('-')),
					     _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
			if (other) {
				n = (unsigned)__builtin_ctz(other);
				if (!n)
					break;
				keep = (1u << n) - 1;
			}
			slash = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('/'))) &
				keep;
			dot = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.'))) &
			      keep;
			if (dot & (slash << 1))
				break;
			if (slash) {
				if ((slash & (slash << 1)) ||
				    !kept_component(comp,
						    (size_t)(s + __builtin_ctz(slash) - comp)))
					return 0;
				comp = s + (31 - __builtin_clz(slash)) + 1;
			}
			s += n;
			if (n < 16)
				break;
		}
#endif
		/* The next block, at most, byte by byte: then blocks again. */
		for (stop = end - s > 16 ? s + 16 : end; s < stop && sbx_json_plain[*s]; s++) {
			if (*s != '/')
				continue;
			if (!kept_component(comp, (size_t)(s - comp)))
				return 0;
			comp = s + 1;
		}
		if (s < stop || s == end)
			break;
	}
	if (s == end || *s != '"' || (size_t)(s - p) > SBX_MAX_PATH)
		return 0;
	/* "/" alone is normal; a final "/", "." or ".." is not. */
	if (s - p > 1 && !kept_component(comp, (size_t)(s - comp)))
		return 0;
	return (size_t)(s - p);
}

/* e as the plain path of n bytes at p, copied into the entries' arena. */
static bool take_plain_path(struct wire *w, struct sbx_entry *e, const unsigned char *p, size_t n)
{
	e->kind = SBX_PATH;
	e->pooled = w->pool != NULL;
	e->path = w->pool ? sbx_arena_strndup(w->pool, (const char *)p, n)
			  : strndup((const char *)p, n);
	return e->path != NULL;
}

/* The value of "path" of a {"type":"path"} object, as sbx_walk_absolute_path takes it. */
static bool path_value(struct wire *w, struct sbx_entry *e)
{
	size_t n;

	/*
	 * The usual path, plain and normal already (the canonical form is written normalized),
	 * is copied straight from the text; anything else is decoded and normalized.
	 */
	if (eat(w, '"')) {
		n = plain_path(w->p, w->end);
		if (n) {
			w->p += n + 1;
			return take_plain_path(w, e, w->p - n - 1, n);
		}
		w->p--; /* back to the opening quote */
	}
	if (!string(w) || !check_length(w))
		return false;
	e->kind = SBX_PATH;
	if (sbx_path_is_windows_abs(w->str))
		e->path = strdup(w->str);
	else if (!sbx_path_is_posix_abs(w->str) || sbx_path_normalize(w->str, &e->path) < 0)
		return false;
	return e->path != NULL;
}

static bool pattern_value(struct wire *w, struct sbx_entry *e)
{
	if (!string(w) || !check_length(w))
		return false;
	e->kind = SBX_GLOB;
	e->path = strdup(w->str);
	return e->path != NULL;
}

/* FileSystemSpecialPath: {"kind":K} with "subpath" for project_roots, "path" for unknown. */
static bool special(struct wire *w, struct sbx_entry *e)
{
	static const char *const keys[] = {"kind", "path", "subpath", NULL};
	enum { KIND = 1, PATH = 2, SUBPATH = 4 };
	const struct sbx_kind_name *k = NULL;
	unsigned seen = 0;
	int key, r;

	if (!eat(w, '{'))
		return false;
	while ((r = member(w, keys, &seen, &key)) == 1) {
		if (key == 0) {
			if (!string(w) || !(k = sbx_find_kind(w->str)))
				return false;
		} else if (key == 1) {
			if (!string(w) || !(e->path = strdup(w->str)))
				return false;
		} else if (!null(w)) {
			if (!string(w) || w->len > SBX_MAX_PATH || sbx_path_is_posix_abs(w->str) ||
			    sbx_path_is_windows_abs(w->str) || !(e->subpath = strdup(w->str)))
				return false;
		}
	}
	if (r < 0 || !k)
		return false;
	if (k->sp == SBX_SP_UNKNOWN ? !(seen & PATH)
				    : (seen & PATH) || (!k->has_subpath && (seen & SUBPATH)))
		return false;
	e->kind = SBX_SPECIAL;
	e->special = k->sp;
	return true;
}

/*
 * FileSystemPath: {"type":"path","path":P}, {"type":"glob_pattern","pattern":G} or
 * {"type":"special","value":{...}}. The emitter writes "type" first; when it comes later, the
 * string before it is read again once the type is known.
 */
static bool fs_path(struct wire *w, struct sbx_entry *e)
{
	static const char *const keys[] = {"type", "path", "pattern", "value", NULL};
	static const char *const types[] = {"path", "glob_pattern", "special", NULL};
	const unsigned char *later = NULL, *resume;
	unsigned seen = 0;
	int type = -1, key, r;
	bool ok;

	if (!eat(w, '{'))
		return false;
	while ((r = member(w, keys, &seen, &key)) == 1) {
		if (key == 0) {
			if ((type = string_in(w, types)) < 0)
				return false;
			continue;
		}
		/* A second value key is refused for every type; only its own is kept. */
		if ((seen & ~1u) != (1u << key))
			return false;
		if (type >= 0 && type != key - 1)
			return false;
		if (key == 3) {
			if (!special(w, e))
				return false;
		} else if (type < 0) {
			skip_ws(w);
			later = w->p;
			if (!string(w))
				return false;
		} else if (!(key == 1 ? path_value(w, e) : pattern_value(w, e))) {
			return false;
		}
	}
	if (r < 0 || type < 0 || seen != (1u | 1u << (type + 1)))
		return false;
	if (!later)
		return true;
	resume = w->p;
	w->p = later;
	ok = type == 0 ? path_value(w, e) : pattern_value(w, e);
	w->p = resume;
	return ok;
}

/* FileSystemSandboxEntry: {"path":{...},"access":A,"missing_path_behavior":"skip"|null}. */
static bool entry(struct wire *w, struct sbx_entry *e)
{
	static const char *const keys[] = {"path", "access", "missing_path_behavior", NULL};
	static const char *const skip[] = {"skip", NULL};
	unsigned seen = 0;
	int key, r, a;

	if (!eat(w, '{'))
		return false;
	while ((r = member(w, keys, &seen, &key)) == 1) {
		if (key == 0) {
			if (!fs_path(w, e))
				return false;
		} else if (key == 1) {
			if ((a = string_in(w, sbx_access_names_in)) < 0)
				return false;
			e->access = a > SBX_DENY ? SBX_DENY : (enum sbx_access)a;
		} else if (!null(w)) {
			if (string_in(w, skip) != 0)
				return false;
			e->skip_missing = true;
		}
	}
	if (r < 0 || (seen & 3) != 3)
		return false;
	return e->kind != SBX_GLOB || e->access == SBX_DENY;
}

/*
 * An entry of a plain path in the order the emitter writes it (whitespace anywhere JSON allows),
 * {"path":{"type":"path","path":P},"access":A} with P as plain_path() takes it: most of a large
 * profile, read here without the key tables and bookkeeping of entry(), which reads the same
 * text to the same entry. Anything else (another key, order or form, an escape) is entry()'s:
 * false, with w and e as they were.
 */
static bool path_entry(struct wire *w, struct sbx_entry *e)
{
	/* As the emitter writes it, and as JSON writers space it by default (", " and ": "). */
	static const char head[] = "{\"path\":{\"type\":\"path\",\"path\":";
	static const char head_spaced[] = "{\"path\": {\"type\": \"path\", \"path\": ";
	static const char tail[] = "},\"access\":", tail_spaced[] = "}, \"access\": ";
	const unsigned char *start = w->p, *path;
	size_t n;
	int a;

	skip_ws(w);
	if (!(spelled(w, head, sizeof(head) - 1) ||
	      spelled(w, head_spaced, sizeof(head_spaced) - 1) ||
	      literal(w, head, sizeof(head) - 1)) ||
	    !eat(w, '"'))
		goto other;
	path = w->p;
	n = plain_path(path, w->end);
	if (!n)
		goto other;
	w->p += n + 1;
	if (!(spelled(w, tail, sizeof(tail) - 1) ||
	      spelled(w, tail_spaced, sizeof(tail_spaced) - 1) ||
	      literal(w, tail, sizeof(tail) - 1)) ||
	    (a = string_in(w, sbx_access_names_in)) < 0 || !eat(w, '}'))
		goto other;
	e->access = a > SBX_DENY ? SBX_DENY : (enum sbx_access)a;
	if (take_plain_path(w, e, path, n))
		return true;
other: /* out of memory too: entry() reads it again and meets the same */
	*e = (struct sbx_entry){0};
	w->p = start;
	return false;
}

static bool entries(struct wire *w, struct sbx_fs *fs)
{
	bool first = true;

	if (!eat(w, '['))
		return false;
	w->pool = &fs->paths;
	for (;;) {
		struct sbx_entry e = {0};

		if (first && eat(w, ']'))
			return true;
		if (!first && !eat(w, ','))
			return eat(w, ']');
		first = false;
		if (!path_entry(w, &e) && !entry(w, &e)) {
			sbx_entry_clear(&e);
			return false;
		}
		if (sbx_fs_push_owned(fs, &e) < 0) {
			sbx_entry_clear(&e);
			return false;
		}
	}
}

/* glob_scan_max_depth: an integer from 1 to SBX_MAX_GLOB_DEPTH as jansson reads one, or null. */
static bool depth(struct wire *w, unsigned *out)
{
	unsigned long v = 0;
	int digits = 0;

	if (null(w))
		return true;
	if (w->p == w->end || *w->p < '1' || *w->p > '9')
		return false;
	while (w->p < w->end && *w->p >= '0' && *w->p <= '9' && digits++ < 6)
		v = v * 10 + (unsigned long)(*w->p++ - '0');
	/* A fraction or an exponent makes a real, which is no depth. */
	if (w->p < w->end &&
	    (*w->p == '.' || *w->p == 'e' || *w->p == 'E' || (*w->p >= '0' && *w->p <= '9')))
		return false;
	if (v > SBX_MAX_GLOB_DEPTH)
		return false;
	*out = (unsigned)v;
	return true;
}

/* ManagedFileSystemPermissions: {"type":"restricted","entries":[...]} or {"type":"unrestricted"}. */
static bool managed_fs(struct wire *w, struct sbx_fs *fs)
{
	static const char *const keys[] = {"type", "entries", "glob_scan_max_depth", NULL};
	static const char *const types[] = {"restricted", "unrestricted", NULL};
	unsigned seen = 0;
	int type = -1, key, r;
	bool ok;

	if (!eat(w, '{'))
		return false;
	while ((r = member(w, keys, &seen, &key)) == 1) {
		if (key == 0)
			ok = (type = string_in(w, types)) >= 0;
		else if (key == 1)
			ok = entries(w, fs);
		else
			ok = depth(w, &fs->glob_depth);
		if (!ok)
			return false;
	}
	if (r < 0 || type < 0)
		return false;
	if (type == 1) {
		fs->kind = SBX_FS_UNRESTRICTED;
		return seen == 1;
	}
	fs->kind = SBX_FS_RESTRICTED;
	return (seen & 3) == 3;
}

static bool profile(struct wire *w, struct sbx_profile *out)
{
	static const char *const keys[] = {"type", "file_system", "network", NULL};
	enum { TYPE = 1, FS = 2, NETWORK = 4 };
	unsigned seen = 0;
	int type = -1, net = 0, key, r;
	bool ok;

	if (!eat(w, '{'))
		return false;
	while ((r = member(w, keys, &seen, &key)) == 1) {
		if (key == 0)
			ok = (type = string_in(w, sbx_profile_types)) >= 0;
		else if (key == 1)
			ok = managed_fs(w, &out->fs);
		else
			ok = (net = string_in(w, sbx_network_modes)) >= 0;
		if (!ok)
			return false;
	}
	if (r < 0)
		return false;
	switch (type) {
	case 0:
		out->type = SBX_MANAGED;
		out->network = net == 1;
		return seen == (TYPE | FS | NETWORK);
	case 1:
		out->type = SBX_DISABLED;
		out->fs.kind = SBX_FS_UNRESTRICTED;
		out->network = true;
		return seen == TYPE;
	case 2:
		out->type = SBX_EXTERNAL;
		out->fs.kind = SBX_FS_EXTERNAL;
		out->network = net == 1;
		return seen == (TYPE | NETWORK);
	}
	return false;
}

int sbx_profile_load_wire(const char *buf, size_t len, struct sbx_profile *out)
{
	struct wire w = {.p = (const unsigned char *)buf, .end = (const unsigned char *)buf + len};
	bool ok;

	memset(out, 0, sizeof(*out));
	ok = profile(&w, out);
	skip_ws(&w);
	ok = ok && w.p == w.end;
	free(w.str);
	if (ok)
		return 0;
	sbx_profile_free(out);
	return 1;
}
