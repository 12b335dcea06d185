/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

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
