/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "failalloc.h"
#include "sbx.h"
#include "t.h"

static void norm(const char *in, const char *want)
{
	char *out = NULL;

	CHECK_INT(sbx_path_normalize(in, &out), 0);
	CHECK_STR(out, want);
	free(out);
}

TEST(path_normalize)
{
	char *out = NULL;

	norm("/", "/");
	norm("/a/b/..", "/a");
	norm("/a/../..", "/");
	norm("/ws/../ws2", "/ws2"); /* vector ser-14 */
	norm("//a//b/", "/a/b");
	norm("/a/./b/../c", "/a/c");
	norm("/..", "/");
	CHECK(sbx_path_normalize("rel/dir", &out) < 0);
	CHECK(out == NULL);
}

TEST(path_covers)
{
	CHECK(sbx_path_covers("/", "/etc"));
	CHECK(sbx_path_covers("/a", "/a"));
	CHECK(sbx_path_covers("/a", "/a/b"));
	CHECK(!sbx_path_covers("/a", "/ab"));
	CHECK(!sbx_path_covers("/a/b", "/a"));
	CHECK_INT(sbx_path_depth("/"), 0);
	CHECK_INT(sbx_path_depth("/a/b"), 2);
}

/* The depth as a byte loop counts it: each '/' followed by a name. */
static size_t depth_bytewise(const char *p)
{
	size_t d = 0;

	for (; *p; p++)
		if (*p == '/' && p[1] && p[1] != '/')
			d++;
	return d;
}

/* The word-at-a-time count, on every spelling of slashes around each boundary of a word. */
TEST(path_has_dotdot)
{
	CHECK(sbx_path_has_dotdot(".."));
	CHECK(sbx_path_has_dotdot("/a/../b"));
	CHECK(sbx_path_has_dotdot("a//..//"));
	CHECK(sbx_path_has_dotdot("../x"));
	CHECK(!sbx_path_has_dotdot("/a/..b/c"));
	CHECK(!sbx_path_has_dotdot("a/b../c/."));
	CHECK(!sbx_path_has_dotdot("/"));
	CHECK(!sbx_path_has_dotdot(""));
}

TEST(path_depth_words)
{
	static const char *const cases[] = {
		"", "/", "//", "a", "/a", "/a/", "/a//", "//a", "/a/b/c", "/var/tmp/deny5/many/f0000",
		"/1234567/9", "/1234567//9", "/123456//89", "/12345678/", "/1234567/", "/1234567//",
		"////////////////", "/a/b/c/d/e/f/g/h/i/j/k/l/m", "/aaaaaaa/bbbbbbb/ccccccc/ddddddd",
		"/aaaaaaaa//bbbbbbb//cccccc/", "relative/path/x", "/x/../y/./z",
	};
	char buf[80];

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		CHECK_INT(sbx_path_depth(cases[i]), depth_bytewise(cases[i]));
		/* The same bytes at every offset from a word's start. */
		for (size_t off = 1; off < 8; off++) {
			memset(buf, 'x', off);
			strcpy(buf + off, cases[i]);
			CHECK_INT(sbx_path_depth(buf), depth_bytewise(buf));
			CHECK_INT(sbx_path_depth_n(buf + off, strlen(cases[i])),
				  depth_bytewise(cases[i]));
		}
	}
	/* Strings of '/' and 'a' over one to three blocks of sixteen, at every offset. */
	srand(5);
	for (int k = 0; k < 20000; k++) {
		size_t n = 14 + (size_t)(rand() % 36), off = (size_t)(rand() % 16);

		for (size_t j = 0; j < n; j++)
			buf[off + j] = rand() % 3 ? 'a' : '/';
		buf[off + n] = '\0';
		CHECK_INT(sbx_path_depth_n(buf + off, n), depth_bytewise(buf + off));
	}
	/* Every string of up to 12 bytes of '/' and 'a'. */
	for (unsigned bits = 0; bits < (1u << 13); bits++) {
		size_t n = 0;

		for (unsigned b = bits; b > 1; b >>= 1)
			buf[n++] = (b & 1) ? '/' : 'a';
		buf[n] = '\0';
		CHECK_INT(sbx_path_depth(buf), depth_bytewise(buf));
	}
}

/*
 * The sixteen-byte count reads nothing past the path's n bytes: each path here ends where a page
 * that cannot be read begins, at every length up to four blocks.
 */
TEST(path_depth_reads_no_byte_past_the_path)
{
	char copy[72];

	srand(11);
	for (size_t n = 1; n < sizeof(copy); n++)
		for (int k = 0; k < 40; k++) {
			char *p = t_page_end(n);

			for (size_t j = 0; j < n; j++)
				p[j] = rand() % 3 ? 'a' : '/';
			memcpy(copy, p, n);
			copy[n] = '\0';
			CHECK_INT(sbx_path_depth_n(p, n), depth_bytewise(copy));
		}
}

TEST(path_windows)
{
	CHECK(sbx_path_is_windows_abs("C:\\work"));
	CHECK(sbx_path_is_windows_abs("c:/work"));
	CHECK(sbx_path_is_windows_abs("\\\\server\\share"));
	CHECK(!sbx_path_is_windows_abs("/work"));
	CHECK(!sbx_path_is_windows_abs("C:work"));
}

/*
 * sbx_copy copies each length exactly: its short copies are fixed-size moves that overlap, so a
 * wrong offset would show as a byte of the source at the wrong place or a byte written past n.
 * The source sits at every alignment, its bytes all distinct within a copy.
 */
TEST(copy_lengths)
{
	unsigned char src[300], dst[300];

	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 1);
	for (size_t off = 0; off < 8; off++) {
		for (size_t n = 0; n <= 200; n++) {
			bool ok = true;

			memset(dst, 0xee, sizeof(dst));
			sbx_copy(dst + off, src + off, n);
			for (size_t i = 0; i < sizeof(dst); i++) {
				unsigned char want = i >= off && i < off + n ? src[i] : 0xee;

				ok = ok && dst[i] == want;
			}
			CHECK(ok);
		}
	}
}

/* Items of sort_ptrs's tests: a key that ties often, compared alone (the sort keeps ties). */
static int key_cmp(const void *a, const void *b)
{
	int x = **(const int *const *)a, y = **(const int *const *)b;

	return (x > y) - (x < y);
}

/* The same with ties broken by address: the order a stable sort of an array in address order
 * leaves, which qsort gives with this. */
static int key_addr_cmp(const void *a, const void *b)
{
	const int *x = *(const int *const *)a, *y = *(const int *const *)b;
	int c = key_cmp(a, b);

	return c ? c : (x > y) - (x < y);
}

/*
 * sbx_sort_ptrs leaves what qsort leaves with ties broken by address, on arrays in order, in
 * reverse, in order but for a few items, at random, and full of ties, at every length to 70 and
 * at 1,000; and it sorts in place when its room cannot be had.
 */
TEST(sort_ptrs)
{
	static int keys[1000];
	static const int *got[1000], *want[1000];
	static const size_t lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 31, 32, 33, 64, 70, 1000};
	unsigned seed = 1;

	for (size_t li = 0; li < sizeof(lens) / sizeof(*lens); li++) {
		size_t n = lens[li];

		for (int shape = 0; shape < 5; shape++) {
			bool ok = true;

			for (size_t i = 0; i < n; i++) {
				seed = seed * 1103515245u + 12345u;
				switch (shape) {
				case 0:
					keys[i] = (int)i;
					break;
				case 1:
					keys[i] = (int)(n - i);
					break;
				case 2:
					keys[i] = (seed >> 16) % 11 == 0 ? -(int)i : (int)i;
					break;
				case 3:
					keys[i] = (int)((seed >> 8) % 100000);
					break;
				default:
					keys[i] = (int)((seed >> 8) % 3);
					break;
				}
				got[i] = want[i] = &keys[i];
			}
			qsort(want, n, sizeof(*want), key_addr_cmp);
			sbx_sort_ptrs(got, n, key_cmp);
			for (size_t i = 0; i < n; i++)
				ok = ok && got[i] == want[i];
			CHECK(ok);
		}
	}
#ifdef SBX_FAILALLOC
	for (size_t i = 0; i < 100; i++) {
		keys[i] = (int)(100 - i);
		got[i] = &keys[i];
	}
	fa_arm(0);
	sbx_sort_ptrs(got, 100, key_cmp);
	CHECK(fa_fired());
	fa_arm(-1);
	for (size_t i = 1; i < 100; i++)
		CHECK(*got[i - 1] < *got[i]);
#endif
}

static int sign(int c)
{
	return (c > 0) - (c < 0);
}

/*
 * sbx_bytes_cmp has memcmp's sign at every length to 40, every alignment of either side, with
 * the first difference at every place (either way, bytes past 0x7f among them), and reads no
 * byte past n: the bytes after are different and must not count. sbx_path_cmp and sbx_strcmp
 * have strcmp's sign, a prefix before the longer string.
 */
TEST(bytes_cmp)
{
	unsigned char a[64], b[64];
	bool ok = true;

	for (size_t n = 0; n <= 40; n++)
		for (size_t oa = 0; oa < 8; oa++)
			for (size_t ob = 0; ob < 8; ob++) {
				for (size_t i = 0; i < n; i++)
					a[oa + i] = b[ob + i] = (unsigned char)(0x61 + i * 37);
				a[oa + n] = 1;
				b[ob + n] = 2;
				ok = ok && sbx_bytes_cmp(a + oa, b + ob, n) == 0;
				for (size_t d = 0; d < n; d++) {
					unsigned char keep = b[ob + d];

					b[ob + d] = (unsigned char)(keep + 0x90);
					ok = ok &&
					     sign(sbx_bytes_cmp(a + oa, b + ob, n)) ==
						     sign(memcmp(a + oa, b + ob, n)) &&
					     sign(sbx_bytes_cmp(b + ob, a + oa, n)) ==
						     sign(memcmp(b + ob, a + oa, n)) &&
					     sbx_bytes_cmp(a + oa, b + ob, n) != 0;
					b[ob + d] = keep;
				}
			}
	CHECK(ok);
	CHECK(sbx_path_cmp("/a/b", 4, "/a/b", 4) == 0);
	CHECK(sbx_path_cmp("/a", 2, "/a/b", 4) < 0);
	CHECK(sbx_path_cmp("/a/b", 4, "/a", 2) > 0);
	CHECK(sbx_strcmp("/var/tmp/many/f00001", "/var/tmp/many/f00002") < 0);
	CHECK(sbx_strcmp("/var/tmp/many/f00010", "/var/tmp/many/f0001") > 0);
	CHECK(sbx_strcmp("/x\xe9", "/x/") > 0);
	CHECK(sbx_strcmp("", "") == 0);
}

static int strcmp_ptrs(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * sbx_sort_strs leaves strcmp's order, whether its array comes in order (left as it is) or not:
 * prefixes before their extensions, bytes past 0x7f after ASCII, repeats side by side.
 */
TEST(sort_strs)
{
	static const char *const in[] = {"/a/b",
					 "/a",
					 "/ab",
					 "/a/b",
					 "/a\xe9",
					 "/",
					 "/a/b/c",
					 "/a/b/c/d/e/f/g/h/i",
					 "/a/b/c/d/e/f/g/h/j",
					 ""};
	enum { N = sizeof(in) / sizeof(*in) };
	const char *got[N], *want[N];
	bool ok = true;

	for (size_t n = 0; n <= N; n++) {
		for (int pass = 0; pass < 2; pass++) {
			memcpy(got, in, n * sizeof(*got));
			memcpy(want, in, n * sizeof(*want));
			qsort(want, n, sizeof(*want), strcmp_ptrs);
			if (pass) /* the second time, from the order itself */
				memcpy(got, want, n * sizeof(*got));
			sbx_sort_strs(got, n);
			for (size_t i = 0; i < n; i++)
				ok = ok && strcmp(got[i], want[i]) == 0;
		}
	}
	CHECK(ok);
}

/*
 * sbx_hash depends on the bytes alone, whatever their alignment and whatever follows them (its
 * tail is read as the input's last word, or byte by byte when shorter), and a byte changed at
 * any place, the tail's included, changes it.
 */
TEST(hash_bytes)
{
	char a[64], b[80];
	bool ok = true;

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (char)('a' + i % 26);
	for (size_t n = 0; n <= 40; n++) {
		for (size_t off = 1; off < 9; off++) {
			memset(b, 'x', sizeof(b));
			memcpy(b + off, a, n);
			ok = ok && sbx_hash(a, n) == sbx_hash(b + off, n);
		}
		for (size_t at = 0; at < n; at++) {
			memcpy(b, a, n);
			b[at] ^= 1;
			ok = ok && sbx_hash(a, n) != sbx_hash(b, n);
		}
	}
	CHECK(ok);
	CHECK(sbx_hash("/a/b", 4) != sbx_hash("/a/b", 3));
}

/*
 * The planner's hints are matched by the string's address only, the last two given, and all
 * forgotten at NULL (before the strings they name can be freed).
 */
TEST(fshints)
{
	struct sbx_fshints h = {0};
	char p[] = "/var/tmp/x", q[] = "/var/tmp/y", copy[] = "/var/tmp/x";

	CHECK(sbx_fshints_of(&h, p) == NULL);
	sbx_fshints_put(&h, p);
	CHECK(sbx_fshints_of(&h, p) == &h.next);
	CHECK(sbx_fshints_of(&h, copy) == NULL);
	CHECK_INT((int)h.next.len, (int)strlen(p));
	CHECK(h.next.hash == sbx_hash(p, strlen(p)));
	sbx_fshints_put(&h, q);
	CHECK(sbx_fshints_of(&h, p) == &h.now);
	CHECK(sbx_fshints_of(&h, q) == &h.next);
	sbx_fshints_put(&h, NULL);
	CHECK(sbx_fshints_of(&h, p) == NULL);
	CHECK(sbx_fshints_of(&h, q) == NULL);
}
