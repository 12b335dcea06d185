/* SPDX-License-Identifier: MIT */
/*
 * path.c - lexical path handling, POSIX and Windows, and the one walk over a path's ancestors.
 * No file system access: these are pure string operations.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sbx.h"

bool sbx_path_is_posix_abs(const char *p)
{
	return p && p[0] == '/';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool sbx_path_is_windows_abs(const char *p)
{
	if (!p)
		return false;
	if (is_alpha(p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
		return true;
	/* UNC: \\server\share... (also the \\?\ and \\.\ device forms) */
	return p[0] == '\\' && p[1] == '\\' && p[2] && p[2] != '\\';
}

/*
 * Normalizes an absolute POSIX path in a fresh buffer: "." and empty components vanish, ".."
 * removes the previous component and stops at "/". The result never ends in "/" unless it is "/".
 */
int sbx_path_normalize(const char *in, char **out)
{
	size_t len, o = 0;
	const char *s;
	char *buf;

	*out = NULL;
	if (!sbx_path_is_posix_abs(in))
		return -EINVAL;
	len = strlen(in);
	buf = malloc(len + 2);
	if (!buf)
		return -ENOMEM;
	buf[o++] = '/';
	for (s = in; *s;) {
		const char *c;
		size_t n;

		while (*s == '/')
			s++;
		if (!*s)
			break;
		c = s;
		while (*s && *s != '/')
			s++;
		n = (size_t)(s - c);
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (o > 1) {
				o--; /* drop the separator before the last component */
				while (o > 1 && buf[o - 1] != '/')
					o--;
				if (o > 1)
					o--;
				if (o == 0)
					o = 1;
			}
			if (o == 1)
				buf[0] = '/';
			continue;
		}
		if (o > 1)
			buf[o++] = '/';
		memcpy(buf + o, c, n);
		o += n;
	}
	buf[o] = '\0';
	*out = buf;
	return 0;
}

int sbx_path_join(const char *base, const char *rel, char **out)
{
	size_t lb, lr;
	char *tmp;
	int r;

	*out = NULL;
	if (!rel || !rel[0])
		return sbx_path_normalize(base, out);
	if (rel[0] == '/')
		return sbx_path_normalize(rel, out);
	lb = strlen(base);
	lr = strlen(rel);
	tmp = malloc(lb + lr + 2);
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, base, lb);
	tmp[lb] = '/';
	memcpy(tmp + lb + 1, rel, lr + 1);
	r = sbx_path_normalize(tmp, out);
	free(tmp);
	return r;
}

bool sbx_path_covers(const char *prefix, const char *path)
{
	size_t n;

	if (!prefix || !path)
		return false;
	if (strcmp(prefix, "/") == 0)
		return path[0] == '/';
	n = strlen(prefix);
	if (strncmp(prefix, path, n) != 0)
		return false;
	return path[n] == '\0' || path[n] == '/';
}

bool sbx_path_has_dotdot(const char *p)
{
	for (const char *c = p + strspn(p, "/"); *c;) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return true;
		c += n;
		c += strspn(c, "/");
	}
	return false;
}

size_t sbx_path_depth(const char *p)
{
	return p ? sbx_path_depth_n(p, strlen(p)) : 0;
}

#if defined(__SSE2__)
/* The bits set in x (below 2^16): without -mpopcnt, __builtin_popcount is a call to libgcc. */
static inline size_t bits16(unsigned x)
{
	x = x - ((x >> 1) & 0x5555u);
	x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
	x = (x + (x >> 4)) & 0x0f0fu;
	return (x + (x >> 8)) & 0x1fu;
}
#endif

/*
 * Each '/' followed by a name: the slashes, less those followed by another and a last one,
 * counted sixteen bytes at a time with SSE2 and eight without (a byte loop took 200
 * instructions for a 25-byte path, once per mount op of 10,000 denied files).
 */
size_t sbx_path_depth_n(const char *p, size_t n)
{
	const uint64_t ones = 0x0101010101010101ull, high = ones << 7;
	size_t d = 0;

#if defined(__SSE2__)
	/*
	 * Sixteen bytes at a time: bit j of m is byte j a '/', of next the byte after it (past
	 * the block, read on its own; past the path, none: not followed by a name). The last
	 * block overlaps the one before it, less the bytes that one counted.
	 */
	if (n >= 16) {
		for (size_t i = 0;; i += 16) {
			size_t at = i + 16 <= n ? i : n - 16;
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(
				_mm_loadu_si128((const __m128i *)(const void *)(p + at)),
				_mm_set1_epi8('/')));
			unsigned next = m >> 1 | (at + 16 == n || p[at + 16] == '/' ? 0x8000u : 0);

			d += bits16(m & ~next & (0xffffu << (i - at)));
			if (at + 16 == n)
				return d;
		}
	}
#endif

	for (size_t i = 0; i < n; i += 8) {
		uint64_t w = 0, x, m;

		if (n - i >= 8)
			memcpy(&w, p + i, 8);
		else /* the last bytes, shifted in: no copy through memory */
			for (size_t j = n; j > i; j--)
				w = w << 8 | (unsigned char)p[j - 1];
		x = w ^ (ones * '/');
		/* The high bit of each byte that is '/' (exact: no carry crosses a byte)... */
		m = ~(((x & ~high) + ~high) | x) & high;
		/* ...less those followed by a '/' in the word (adjacent bytes in either order). */
		m &= ~(m >> 8);
		d += (size_t)(((m >> 7) * ones) >> 56);
		/* And one followed by a '/' across into the next word. */
		if (i + 8 < n && p[i + 7] == '/' && p[i + 8] == '/')
			d--;
	}
	return n && p[n - 1] == '/' ? d - 1 : d;
}

/* Printable ASCII but '"' and '\\' (never NUL): what the emitter and the loader scan by. */
const bool sbx_json_plain[256] = {
	[0x20 ... 0x21] = true,
	[0x23 ... 0x5b] = true,
	[0x5d ... 0x7f] = true,
};

/*
 * Length of the valid UTF-8 sequence at s (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF), 1 for ASCII, 0 when invalid. At most n bytes are read; a NUL-terminated
 * string may pass SIZE_MAX, since a NUL is never a continuation byte.
 */
size_t sbx_utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

int sbx_path_ancestors(const char *p, int (*visit)(void *arg, const char *prefix, size_t len),
		       void *arg)
{
	char buf[SBX_MAX_PATH + 1];
	size_t len = strlen(p);
	int r;

	if (len > SBX_MAX_PATH)
		return -ENAMETOOLONG;
	sbx_copy(buf, p, len + 1);
	while (len > 1) {
		while (len > 1 && buf[len - 1] != '/')
			len--;
		if (len > 1)
			len--; /* the parent, without its trailing separator */
		buf[len] = '\0';
		r = visit(arg, buf, len);
		if (r)
			return r;
	}
	return 0;
}

static int str_ptr_cmp(const void *a, const void *b)
{
	return sbx_strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct in_sorted {
	const char *const *v;
	size_t n;
};

static int found_in_sorted(void *arg, const char *prefix, size_t len)
{
	const struct in_sorted *s = arg;

	return bsearch(&prefix, s->v, s->n, sizeof(*s->v), str_ptr_cmp) != NULL;
}

bool sbx_path_under_sorted(const char *const *sorted, size_t n, const char *p, bool self)
{
	struct in_sorted s = {sorted, n};

	if (!n)
		return false;
	if (self && found_in_sorted(&s, p, strlen(p)))
		return true;
	return sbx_path_ancestors(p, found_in_sorted, &s) > 0;
}

/* ---- path helpers that know both conventions ------------------------------------------------ */

bool sbx_path_is_sep(char c)
{
	return c == '/' || c == '\\';
}

/* Length of the root prefix of a Windows absolute path: "C:\" = 3, "\\srv\share" = its length. */
size_t sbx_path_win_root_len(const char *p)
{
	size_t i, seps = 0;

	if (p[0] && p[1] == ':')
		return 3;
	for (i = 0; p[i]; i++)
		if (sbx_path_is_sep(p[i]) && ++seps == 4)
			return i;
	return i;
}

/*
 * Joins rel onto the Windows absolute path base, "." and ".." resolved lexically and never above
 * the root prefix. Separators become backslashes.
 */
static int win_join(const char *base, const char *rel, char **out)
{
	size_t lb = strlen(base), lr = rel ? strlen(rel) : 0, rl = sbx_path_win_root_len(base), o;
	char *buf = malloc(lb + lr + 3), *tmp;
	const char *s;

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	tmp = malloc(lb + lr + 3);
	if (!tmp) {
		free(buf);
		return -ENOMEM;
	}
	snprintf(tmp, lb + lr + 3, "%s\\%s", base + rl, rel ? rel : "");
	memcpy(buf, base, rl);
	for (o = 0; o < rl; o++)
		if (buf[o] == '/')
			buf[o] = '\\';
	if (rl == 3)
		o = 3; /* "C:\" keeps its separator */
	for (s = tmp; *s;) {
		const char *c;
		size_t n;

		while (sbx_path_is_sep(*s))
			s++;
		if (!*s)
			break;
		for (c = s; *s && !sbx_path_is_sep(*s); s++)
			;
		n = (size_t)(s - c);
		if (n == 1 && c[0] == '.')
			continue;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			while (o > rl && buf[o - 1] != '\\')
				o--;
			if (o > rl && !(rl == 3 && o == 3))
				o--;
			if (o < rl)
				o = rl;
			continue;
		}
		if (o > 0 && buf[o - 1] != '\\')
			buf[o++] = '\\';
		memcpy(buf + o, c, n);
		o += n;
	}
	buf[o] = '\0';
	free(tmp);
	*out = buf;
	return 0;
}

/* Lexical join for either convention, decided by base. */
int sbx_path_join_any(const char *base, const char *rel, char **out)
{
	if (sbx_path_is_windows_abs(base))
		return win_join(base, rel, out);
	return sbx_path_join(base, rel, out);
}

/* Component-wise prefix test in either convention. */
bool sbx_path_covers_any(const char *prefix, const char *path)
{
	size_t n;

	if (sbx_path_is_posix_abs(prefix))
		return sbx_path_covers(prefix, path);
	n = strlen(prefix);
	if (strncmp(prefix, path, n) != 0)
		return false;
	return path[n] == '\0' || sbx_path_is_sep(path[n]) ||
	       (n > 0 && sbx_path_is_sep(prefix[n - 1]));
}

size_t sbx_path_depth_any(const char *p)
{
	size_t d = 0;
	const char *s;

	if (sbx_path_is_posix_abs(p))
		return sbx_path_depth(p);
	for (s = p + sbx_path_win_root_len(p); *s; s++)
		if (!sbx_path_is_sep(*s) && (s == p || sbx_path_is_sep(s[-1])))
			d++;
	return d;
}

/* Length of the parent of p[0..len), or 0 when p is a root. */
size_t sbx_path_parent_len(const char *p, size_t len)
{
	size_t i, rl;

	if (p[0] == '/') {
		if (len <= 1)
			return 0;
		for (i = len - 1; i > 0 && p[i] != '/'; i--)
			;
		return i == 0 ? 1 : i;
	}
	rl = sbx_path_win_root_len(p);
	if (len <= rl)
		return 0;
	for (i = len - 1; i > rl && !sbx_path_is_sep(p[i]); i--)
		;
	return i <= rl ? rl : i;
}

void sbx_lenset_add(struct sbx_lenset *s, size_t len)
{
	if (len > SBX_MAX_PATH)
		len = SBX_MAX_PATH;
	s->bits[len / 64] |= 1ull << (len % 64);
}

bool sbx_lenset_has(const struct sbx_lenset *s, size_t len)
{
	if (len > SBX_MAX_PATH)
		len = SBX_MAX_PATH;
	return s->bits[len / 64] & 1ull << (len % 64);
}

uint64_t sbx_hash(const void *data, size_t n)
{
	const unsigned char *s = data;
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	bool word = n >= 8;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	/*
	 * The last n bytes into w in a register: the eight that end the input (some of them
	 * mixed in already: equal inputs still hash equal), or byte by byte when it is shorter.
	 * Not written into w's bytes in memory and read back as a word: that load waits for the
	 * stores it cannot take its bytes from (a store-forwarding stall, where perf put most of
	 * this function's samples in a run of 10,000 denied files).
	 */
	w = 0;
	if (n && word)
		memcpy(&w, s + n - 8, 8);
	else
		for (size_t i = n; i > 0; i--)
			w = w << 8 | s[i - 1];
	/*
	 * Every bit of the result from every bit of the input (a full 64-bit finalizer): the
	 * tables index by the low bits, and paths that differ only in their last digits would
	 * otherwise land in the same few runs of slots, where a look-up that misses (an ancestor
	 * that holds nothing, the common case) walks the whole run.
	 */
	h ^= w;
	h = (h ^ h >> 33) * 0xff51afd7ed558ccdull;
	h = (h ^ h >> 33) * 0xc4ceb9fe1a85ec53ull;
	return h ^ h >> 33;
}

/*
 * sbx_sort_ptrs's items are pointers of whatever type the caller's array holds: moved as bytes,
 * in copies of a fixed size the compiler makes a move each, and compared through cmp only.
 * (An enumerator rather than a macro: cppcheck reads a sizeof(void *) macro in memcpy's size
 * as the classic mistake of taking a pointer's size for its data's.)
 */
enum { PTR = sizeof(void *) };

/* Where the run in order that starts at item i of v ends (one past its last item). */
static size_t run_end(const char *v, size_t i, size_t n, int (*cmp)(const void *, const void *))
{
	for (i++; i < n && cmp(v + (i - 1) * PTR, v + i * PTR) <= 0; i++)
		;
	return i;
}

void sbx_sort_ptrs(void *base, size_t n, int (*cmp)(const void *, const void *))
{
	char *from = base, *to, *tmp;
	size_t a;

	if (n < 2 || run_end(from, 0, n, cmp) == n)
		return;
	tmp = malloc(n * PTR);
	if (!tmp) {
		qsort(base, n, PTR, cmp); /* in place, only slower on an array nearly in order */
		return;
	}
	/*
	 * Each pass merges the runs in order two by two, from one buffer into the other; the pass
	 * whose first merge spans the array is the last. A merge takes from the left run on a tie,
	 * so the sort is stable.
	 */
	to = tmp;
	do {
		size_t i = 0;

		a = 0;
		while (i < n) {
			size_t m = run_end(from, i, n, cmp),
			       e = m < n ? run_end(from, m, n, cmp) : n;
			size_t l = i, r = m, o = i;

			if (i == 0)
				a = e;
			while (l < m && r < e) {
				size_t k = cmp(from + r * PTR, from + l * PTR) < 0 ? r++ : l++;

				memcpy(to + o++ * PTR, from + k * PTR, PTR);
			}
			memcpy(to + o * PTR, from + l * PTR, (m - l) * PTR);
			o += m - l;
			memcpy(to + o * PTR, from + r * PTR, (e - r) * PTR);
			i = e;
		}
		tmp = from;
		from = to;
		to = tmp;
	} while (a < n);
	if (from != (char *)base)
		memcpy(base, from, n * PTR);
	free(from == (char *)base ? to : from);
}

void sbx_sort_strs(void *base, size_t n)
{
	const char *prev, *cur;
	size_t prev_len, cur_len;

	if (n < 2)
		return;
	/* In order already (the usual case): each length found once, not once per compare. */
	memcpy(&prev, base, sizeof(prev));
	prev_len = strlen(prev);
	for (size_t i = 1; i < n; i++, prev = cur, prev_len = cur_len) {
		memcpy(&cur, (char *)base + i * sizeof(cur), sizeof(cur));
		cur_len = strlen(cur);
		if (sbx_path_cmp(prev, prev_len, cur, cur_len) > 0) {
			sbx_sort_ptrs(base, n, str_ptr_cmp);
			return;
		}
	}
}

int sbx_hex_digit(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}
