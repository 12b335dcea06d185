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
