/* SPDX-License-Identifier: MIT */
/* test_load.c - the strict profile loader. */
#include <jansson.h>
#include <stdlib.h>

#include "sbx.h"
#include "t.h"

static int entries_from(const char *text, struct sbx_fs *fs, struct sbx_diag *d)
{
	json_t *v = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
	int r;

	sbx_diag_clear(d);
	memset(fs, 0, sizeof(*fs));
	r = v ? sbx_entries_load_jv(v, "t.json", "/entries", fs, d) : -1;
	json_decref(v);
	return r;
}

TEST(load_entries_jv)
{
	struct sbx_diag d;
	struct sbx_fs fs;

	CHECK_INT(entries_from("[{\"path\":{\"type\":\"path\",\"path\":\"/ws/../ws2\"},"
			       "\"access\":\"none\",\"missing_path_behavior\":\"skip\"},"
			       "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":"
			       "\"current_working_directory\",\"subpath\":\".git\"}},"
			       "\"access\":\"read\"}]",
			       &fs, &d),
		  0);
	CHECK_INT(fs.n, 2);
	CHECK_STR(fs.entries[0].path, "/ws2");
	CHECK_INT(fs.entries[0].access, SBX_DENY);
	CHECK(fs.entries[0].skip_missing);
	CHECK_INT(fs.entries[1].special, SBX_SP_PROJECT_ROOTS);
	CHECK_STR(fs.entries[1].subpath, ".git");
	sbx_fs_clear(&fs);

	CHECK_INT(entries_from("[{\"path\":{\"type\":\"path\",\"path\":\"x/y\"},\"access\":\"read\"}]",
			       &fs, &d),
		  SBX_E_INVALID);
	CHECK_STR(d.pointer, "/entries/0/path/path");
	CHECK_STR(d.msg, "relative path \"x/y\" (paths must be absolute)");
	sbx_fs_clear(&fs);
}
