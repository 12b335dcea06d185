/* SPDX-License-Identifier: MIT */
/*
 * gitindex.c - the gitlinks of a git index (mode 0160000: the checkouts git status recurses
 * into, a submodule's), read from the index file's bytes as they come (git's
 * Documentation/gitformat-index).
 *
 * The index, not .gitmodules, says where git recurses: .gitmodules is a file of the checkout,
 * which the command may edit, and an embedded repository added without it is a gitlink all the
 * same. Versions 2, 3 and 4 (path prefix compression) are read, with object names of the size
 * the caller gives (SHA-1 or SHA-256: the index does not say which). A sparse index's directory
 * entries (mode 040000, "sdir") are trees git has not checked out and does not look into: no
 * gitlink of theirs is listed, as none is populated. A split index ("link") keeps most entries
 * in a shared file: it is refused (-ENOTSUP), as are a malformed index (-EINVAL) and one with
 * more gitlinks than the caller takes (-E2BIG), rather than read as one with no gitlinks. The
 * trailing checksum is not verified: a torn index is one git refuses too, and every entry is
 * bounds-checked against the bytes read.
 *
 * The bytes come in chunks (the whole file is never held: a start reads the workspace's index
 * twice, once per planning process, and a fresh block of its size costs a page fault for each
 * page); only an entry split between two chunks is copied, into a carry of its size.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitroots.h"

#define INDEX_HEADER  12
#define ENTRY_STAT    40       /* ctime, mtime, dev, ino, mode, uid, gid, size: 10 words */
#define MODE_TYPE     0170000u /* the type bits of an entry's mode */
#define MODE_GITLINK  0160000u
#define FLAG_EXTENDED 0x4000u
#define NAME_MASK     0x0fffu
/* The least a chunk of the carry takes at a time, and the longest entry taken (its path). */
#define CARRY_STEP 256
#define ENTRY_MAX  (1u << 20)

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A gitlink's path is relative and plain: no empty, "." or ".." component, none named .git. */
static bool plain_path(const char *s, size_t n)
{
	size_t i = 0;

	if (!n)
		return false;
	while (i <= n) {
		size_t c = strcspn(s + i, "/");

		if (c > n - i)
			c = n - i;
		if (!c || (c == 1 && s[i] == '.') || (c == 2 && !memcmp(s + i, "..", 2)) ||
		    (c == 4 && !memcmp(s + i, ".git", 4)))
			return false;
		i += c + 1;
	}
	return true;
}

/*
 * git's varint.c decode_varint: 7 bits a byte, high bit "more", each continuation adding one
 * so that no value has two encodings. 0 when the bytes end first, -1 on overflow, else the
 * bytes it took.
 */
static int varint(const unsigned char *p, size_t n, size_t *out)
{
	size_t v, i = 0;

	if (!n)
		return 0;
	v = p[0] & 127;
	while (p[i++] & 128) {
		if (i >= n)
			return 0;
		if (v > (SIZE_MAX >> 7) - 1 || i > 9)
			return -1;
		v = ((v + 1) << 7) | (p[i] & 127);
	}
	*out = v;
	return (int)i;
}

static int bad(struct sbx_gitindex *x, const char *why)
{
	x->why = why;
	return -EINVAL;
}

/* v4: the path before, cut by strip bytes, then suffix; v2 and v3: suffix. In x->name. */
static int set_name(struct sbx_gitindex *x, size_t strip, const unsigned char *s, size_t n)
{
	size_t keep = x->version == 4 ? x->nlen - strip : 0;

	if (keep + n + 1 > x->cap) {
		size_t want = (keep + n + 1) * 2;
		char *more = realloc(x->name, want);

		if (!more)
			return -ENOMEM;
		x->name = more;
		x->cap = want;
	}
	memcpy(x->name + keep, s, n);
	x->nlen = keep + n;
	x->name[x->nlen] = '\0';
	return 0;
}

/*
 * One step at b[0..n) (the header, an entry, an extension's head): the bytes it took, 0 when
 * it needs more than n, or an error.
 */
static long step(struct sbx_gitindex *x, const unsigned char *b, size_t n)
{
	size_t fixed = ENTRY_STAT + x->hashsz + 2, strip = 0, slen, size, keep, avail;
	const unsigned char *s, *nul;
	unsigned flags;
	uint32_t mode;
	int r, took = 0;

	if (x->skip) {
		size = x->skip < n ? (size_t)x->skip : n;
		x->skip -= size;
		return (long)size;
	}
	if (!x->seen_header) {
		if (n < INDEX_HEADER)
			return 0;
		if (memcmp(b, "DIRC", 4))
			return bad(x, "no index signature");
		x->version = be32(b + 4);
		x->entries = be32(b + 8);
		if (x->version < 2 || x->version > 4)
			return bad(x, "an index version other than 2, 3 or 4");
		x->seen_header = true;
		return INDEX_HEADER;
	}
	if (!x->entries) {
		/* The checksum is the last hashsz bytes: anything before it is an extension. */
		if (n <= x->hashsz)
			return 0;
		size = be32(b + 4);
		if (!memcmp(b, "link", 4)) {
			x->why = "a split index (the link extension)";
			return -ENOTSUP;
		}
		x->skip = size;
		return 8;
	}
	if (n < fixed)
		return 0;
	mode = be32(b + 24);
	flags = (unsigned)b[ENTRY_STAT + x->hashsz] << 8 | b[ENTRY_STAT + x->hashsz + 1];
	if (flags & FLAG_EXTENDED) {
		if (x->version < 3)
			return bad(x, "extended flags in a version 2 index");
		fixed += 2;
	}
	if (n < fixed)
		return 0;
	s = b + fixed;
	if (x->version == 4) {
		took = varint(s, n - fixed, &strip);
		if (took < 0)
			return bad(x, "a path's prefix length past any path");
		if (!took)
			return n - fixed > 16 ? bad(x, "a path's prefix length past any path") : 0;
		s += took;
		if (strip > x->nlen)
			return bad(x, "a path that strips more than the one before it has");
	}
	/*
	 * As git reads it (read-cache.c, create_from_disk): the path's length is the flags' when
	 * under 0xfff bytes (the whole path's in version 4 too, the suffix being what the strip
	 * leaves), else up to its NUL. Its NUL is checked where the length says; one inside a
	 * gitlink's path refuses it below.
	 */
	keep = x->version == 4 ? x->nlen - strip : 0;
	avail = n - (size_t)(s - b);
	if ((flags & NAME_MASK) < NAME_MASK) {
		if ((flags & NAME_MASK) < keep)
			return bad(x, "an entry whose path length is not its flags'");
		slen = (flags & NAME_MASK) - keep;
		if (avail <= slen)
			return 0;
		if (s[slen])
			return bad(x, "an entry whose path length is not its flags'");
	} else {
		nul = memchr(s, '\0', avail);
		if (!nul)
			return n > ENTRY_MAX ? bad(x, "an entry's path over 1 MiB") : 0;
		slen = (size_t)(nul - s);
		if (keep + slen < NAME_MASK)
			return bad(x, "an entry whose path length is not its flags'");
	}
	/* 1 to 8 NULs pad a version 2 or 3 entry to a multiple of 8 bytes. */
	size = x->version == 4 ? (size_t)(s - b) + slen + 1 : (fixed + slen + 8) & ~(size_t)7;
	if (n < size)
		return 0;
	x->entries--;
	/* Version 4 builds each path on the one before; 2 and 3 hold it whole. */
	if (x->version < 4 && (mode & MODE_TYPE) != MODE_GITLINK)
		return (long)size;
	if ((r = set_name(x, strip, s, slen)))
		return r;
	if ((mode & MODE_TYPE) != MODE_GITLINK || sbx_strv_has(x->out, x->name))
		return (long)size; /* no gitlink, or one per stage of a conflict */
	if (memchr(x->name, '\0', x->nlen) || !plain_path(x->name, x->nlen))
		return bad(x, "a gitlink whose path is not a plain relative one");
	if (x->out->n >= x->max)
		return -E2BIG;
	return (r = sbx_strv_push(x->out, x->name)) ? r : (long)size;
}

/*
 * The plain entries at b[0..n) passed without step's work: the bytes they took. A large
 * checkout's index is 100,000s of them, read at every start by both planning processes, and
 * only gitlinks matter. An entry that is not plain (a gitlink, extended flags, a path of 0xfff
 * bytes or more, no NUL where its length says, a version 4 prefix length of more than a byte,
 * cut by the chunk) is left to step, which reads it as before, errors included.
 */
static size_t plain_entries(struct sbx_gitindex *x, const unsigned char *b, size_t n)
{
	const size_t fixed = ENTRY_STAT + x->hashsz + 2;
	size_t used = 0;
	uint32_t left = x->entries;

	if (x->skip || !x->seen_header)
		return 0;
	if (x->version == 4 && x->cap < NAME_MASK + 8) {
		/* Room for any path under 0xfff bytes and a word, so that the loop never grows it. */
		char *more = realloc(x->name, NAME_MASK + 8);

		if (!more)
			return 0; /* step reports it */
		x->name = more;
		x->cap = NAME_MASK + 8;
	}
	if (x->version < 4) {
		while (left && n - used > fixed) {
			const unsigned char *e = b + used;
			unsigned flags = (unsigned)e[fixed - 2] << 8 | e[fixed - 1];
			size_t len = flags & NAME_MASK, size = (fixed + len + 8) & ~(size_t)7;

			/* The mode's type bits: its third byte's high half (be32(e + 24)). */
			if ((flags & (FLAG_EXTENDED | NAME_MASK)) >= NAME_MASK ||
			    (e[26] & 0xf0) == 0xe0 || n - used < size || e[fixed + len])
				break;
			left--;
			used += size;
		}
	} else {
		/* In locals: the copies below would otherwise make the compiler read x again. */
		char *name = x->name;
		size_t nlen = x->nlen;

		while (left && n - used > fixed) {
			const unsigned char *e = b + used, *suffix = e + fixed + 1;
			unsigned flags = (unsigned)e[fixed - 2] << 8 | e[fixed - 1];
			size_t len = flags & NAME_MASK, keep = nlen - e[fixed], slen = len - keep,
			       size = fixed + 1 + slen + 1;

			/* A prefix length of one byte (the path before, cut by it), as above. */
			if ((flags & (FLAG_EXTENDED | NAME_MASK)) >= NAME_MASK ||
			    (e[26] & 0xf0) == 0xe0 || e[fixed] & 128 || e[fixed] > nlen ||
			    len < keep || n - used < size || suffix[slen])
				break;
			if (n - used - (fixed + 1) >= ((slen + 7) & ~(size_t)7))
				/* Whole words, past the suffix at most into the bytes b holds. */
				for (size_t i = 0; i < slen; i += 8)
					memcpy(name + keep + i, suffix + i, 8);
			else
				memcpy(name + keep, suffix, slen);
			name[len] = '\0';
			nlen = len;
			left--;
			used += size;
		}
		x->nlen = nlen;
	}
	x->entries = left;
	return used;
}

/* The steps b[0..n) holds whole: the bytes they took, or an error. */
static long steps(struct sbx_gitindex *x, const unsigned char *b, size_t n)
{
	size_t used = 0;

	while (used < n) {
		long t;

		used += plain_entries(x, b + used, n - used);
		if (used == n)
			break;
		t = step(x, b + used, n - used);

		if (t <= 0)
			return t < 0 ? t : (long)used;
		used += (size_t)t;
	}
	return (long)used;
}

void sbx_gitindex_init(struct sbx_gitindex *x, size_t hashsz, size_t max, struct sbx_strv *out)
{
	memset(x, 0, sizeof(*x));
	x->hashsz = hashsz;
	x->max = max;
	x->out = out;
	x->why = "";
}

int sbx_gitindex_feed(struct sbx_gitindex *x, const char *chunk, size_t n)
{
	const unsigned char *c = (const unsigned char *)chunk;
	long t;

	if (x->err)
		return x->err;
	/* An entry left over from the chunk before: completed a step of bytes at a time. */
	while (x->clen && n) {
		/*
		 * As much again as the carry holds (at least a step): a long entry's bytes are
		 * looked through a bounded number of times, not once per step of them.
		 */
		size_t old = x->clen, grow = old > CARRY_STEP ? old : CARRY_STEP,
		       take = n < grow ? n : grow;

		if (old + take > x->ccap) {
			size_t want = (old + take) * 2;
			unsigned char *more = realloc(x->carry, want);

			if (!more)
				return x->err = -ENOMEM;
			x->carry = more;
			x->ccap = want;
		}
		memcpy(x->carry + old, c, take);
		x->clen += take;
		if ((t = steps(x, x->carry, x->clen)) < 0)
			return x->err = (int)t;
		if ((size_t)t >= old) {
			/* Past the carry: the rest is the chunk's own, read in place. */
			c += (size_t)t - old;
			n -= (size_t)t - old;
			x->clen = 0;
			break;
		}
		memmove(x->carry, x->carry + t, x->clen - (size_t)t);
		x->clen -= (size_t)t;
		c += take;
		n -= take;
	}
	if (!n || x->clen)
		return 0;
	if ((t = steps(x, c, n)) < 0)
		return x->err = (int)t;
	if ((size_t)t < n) {
		size_t left = n - (size_t)t;

		if (left > x->ccap) {
			unsigned char *more = realloc(x->carry, left * 2);

			if (!more)
				return x->err = -ENOMEM;
			x->carry = more;
			x->ccap = left * 2;
		}
		memcpy(x->carry, c + t, left);
		x->clen = left;
	}
	return 0;
}

int sbx_gitindex_end(struct sbx_gitindex *x)
{
	int r = x->err;

	/* Whole: the header, every entry, the extensions, and the checksum's bytes exactly. */
	if (!r && (!x->seen_header || x->entries || x->skip || x->clen != x->hashsz))
		r = bad(x, x->seen_header ? "fewer bytes than its entries and extensions take"
					  : "no index signature");
	free(x->carry);
	free(x->name);
	x->carry = NULL;
	x->name = NULL;
	return x->err = r;
}

int sbx_git_index_gitlinks(const unsigned char *buf, size_t len, size_t chunk, size_t max,
			   struct sbx_strv *out, const char **why)
{
	static const size_t hashsz[] = {20, 32}; /* SHA-1, SHA-256 */
	int r = -EINVAL;

	for (int i = 0; r == -EINVAL && i < 2; i++) {
		struct sbx_gitindex x;
		size_t n0 = out->n;

		sbx_gitindex_init(&x, hashsz[i], max, out);
		for (size_t at = 0; !x.err && at < len; at += chunk)
			sbx_gitindex_feed(&x, (const char *)buf + at,
					  len - at < chunk ? len - at : chunk);
		r = sbx_gitindex_end(&x);
		if (!i || r != -EINVAL)
			*why = x.why;
		while (r && out->n > n0)
			free(out->v[--out->n]);
	}
	return r;
}
