/* SPDX-License-Identifier: MIT */
/*
 * Windows paths, batch files and program resolution (lib/winpath.c), run from the table in
 * tests/windows/paths.json: a new case is a new line there. Runs natively and, in the Windows
 * build, under Wine (tests/windows/run).
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "t.h"
#include "winpath.h"
#include "winpath_cases.h"

json_t *winpath_cases(const char *section)
{
	static json_t *all;
	char path[4096];
	json_error_t err;

	if (!all) {
		/* tests/windows/ beside the vectors directory tests/vectors/. */
		snprintf(path, sizeof(path), "%s/../windows/paths.json", t_vectors_dir);
		all = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
		if (!all) {
			t_fail(__FILE__, __LINE__, "%s:%d: %s", path, err.line, err.text);
			return NULL;
		}
	}
	if (!json_is_array(json_object_get(all, section)))
		t_fail(__FILE__, __LINE__, "paths.json has no \"%s\" table", section);
	return json_object_get(all, section);
}

static const char *str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

TEST(winpath_normalize_table)
{
	json_t *t = winpath_cases("normalize"), *c;
	size_t i, n_ok = 0, n_err = 0;

	json_array_foreach(t, i, c)
	{
		const char *in = str(c, "in"), *want = str(c, "out"), *want_err = str(c, "error");
		const char *why = NULL;
		char *out = NULL, *again = NULL;
		int r = sbx_win_path_normalize(in, &out, &why);

		if (want) {
			n_ok++;
			if (r != 0 || !out || strcmp(out, want) != 0) {
				t_fail(__FILE__, __LINE__,
				       "normalize \"%s\": got %d \"%s\" (%s), want \"%s\"", in, r,
				       out ? out : "", why ? why : "", want);
			} else {
				/* Canonical means a fixed point, and the volume test agrees. */
				if (sbx_win_path_normalize(out, &again, &why) != 0 ||
				    strcmp(again, out) != 0)
					t_fail(__FILE__, __LINE__, "normalize \"%s\" is not stable",
					       out);
				if (sbx_win_path_is_volume_root(out) !=
				    json_is_true(json_object_get(c, "volume_root")))
					t_fail(__FILE__, __LINE__, "volume root of \"%s\": got %d",
					       out, sbx_win_path_is_volume_root(out));
			}
		} else {
			n_err++;
			if (r != -EINVAL || out || !why || !want_err || !strstr(why, want_err))
				t_fail(__FILE__, __LINE__,
				       "normalize \"%s\": got %d \"%s\" (%s), want error with "
				       "\"%s\"",
				       in, r, out ? out : "", why ? why : "",
				       want_err ? want_err : "?");
		}
		free(out);
		free(again);
	}
	/* The table itself: both kinds of case, and the forms issue 13 names. */
	CHECK(n_ok >= 40);
	CHECK(n_err >= 30);
}

TEST(winpath_normalize_null)
{
	char *out = (char *)"x";
	const char *why = NULL;

	CHECK_INT(sbx_win_path_normalize(NULL, &out, &why), -EINVAL);
	CHECK(out == NULL);
	CHECK(why != NULL);
	CHECK(!sbx_win_path_is_volume_root(NULL));
	CHECK(!sbx_win_path_is_volume_root("C:\\x"));
	CHECK(!sbx_win_path_is_volume_root("\\\\srv\\share\\x"));
}

TEST(winpath_batch_table)
{
	json_t *t = winpath_cases("batch"), *c;
	size_t i;

	CHECK(json_array_size(t) >= 15);
	json_array_foreach(t, i, c)
	{
		const char *name = str(c, "name");
		bool want = json_is_true(json_object_get(c, "batch"));

		if (sbx_win_is_batch_file(name) != want)
			t_fail(__FILE__, __LINE__, "batch \"%s\": got %d, want %d", name, !want,
			       want);
	}
}

TEST(winpath_batch_args)
{
	static const char *const safe[] = {"x",	  "status",	 "--opt=1", "C:\\a\\b",
					   "a/b", "caf\xc3\xa9", "a.b,c:d", "@file",
					   "#1",  "~x",		 "+y"};
	static const char *const unsafe[] = {
		"",	"a b", "a&b",  "a|b", "a<b",  "a>b",  "a^b",
		"a%b%", "!x!", "a\"b", "(x)", "a\tb", "a\nb", "x\"&echo INJECTED&\"",
		"a;b",	"a'b", "*",    "?"};

	for (size_t i = 0; i < sizeof(safe) / sizeof(safe[0]); i++)
		if (!sbx_win_batch_arg_safe(safe[i]))
			t_fail(__FILE__, __LINE__, "\"%s\" should be safe", safe[i]);
	for (size_t i = 0; i < sizeof(unsafe) / sizeof(unsafe[0]); i++)
		if (sbx_win_batch_arg_safe(unsafe[i]))
			t_fail(__FILE__, __LINE__, "\"%s\" should not be safe", unsafe[i]);
}

/* A file system of a few names, matched without regard to ASCII case as NTFS does. */
struct fake_fs {
	const json_t *files, *dirs;
	size_t asked;
};

static bool name_in(const json_t *list, const char *path)
{
	size_t i;
	json_t *v;

	json_array_foreach(list, i, v)
	{
		const char *s = json_string_value(v);

		if (s && strlen(s) == strlen(path) && strncasecmp(s, path, strlen(path)) == 0)
			return true;
	}
	return false;
}

static bool fake_is_file(const char *path, void *arg)
{
	struct fake_fs *fs = arg;

	fs->asked++;
	return name_in(fs->files, path) && !name_in(fs->dirs, path);
}

TEST(winpath_resolve_table)
{
	json_t *t = winpath_cases("resolve"), *c;
	size_t i;

	CHECK(json_array_size(t) >= 15);
	json_array_foreach(t, i, c)
	{
		struct fake_fs fs = {json_object_get(c, "files"), json_object_get(c, "dirs"), 0};
		const char *prog = str(c, "prog"), *want = str(c, "out"),
			   *want_err = str(c, "error");
		struct sbx_diag d;
		char *out = NULL;
		int r;

		sbx_diag_clear(&d);
		r = sbx_win_resolve_program(prog, str(c, "cwd"), str(c, "path"), str(c, "pathext"),
					    fake_is_file, &fs, &out, &d);
		if (want) {
			if (r != 0 || !out || strcmp(out, want) != 0)
				t_fail(__FILE__, __LINE__,
				       "resolve \"%s\": got %d \"%s\" (%s), want \"%s\"", prog, r,
				       out ? out : "", d.msg, want);
		} else {
			int code =
				json_is_true(json_object_get(c, "usage")) ? SBX_E_USAGE : -ENOENT;

			if (r != code || out || !want_err || !strstr(d.msg, want_err))
				t_fail(__FILE__, __LINE__,
				       "resolve \"%s\": got %d \"%s\", want %d with \"%s\"", prog,
				       r, d.msg, code, want_err ? want_err : "?");
		}
		free(out);
	}
}

/* Only PATH's directories are asked about: the working directory never. */
TEST(winpath_resolve_never_asks_cwd)
{
	json_t *files = json_pack("[s]", "C:\\ws\\git.exe");
	struct fake_fs fs = {files, NULL, 0};
	struct sbx_diag d;
	char *out = NULL;

	sbx_diag_clear(&d);
	CHECK_INT(sbx_win_resolve_program("git", "C:\\ws", NULL, NULL, fake_is_file, &fs, &out, &d),
		  -ENOENT);
	CHECK_INT(fs.asked, 0);
	CHECK(out == NULL);
	json_decref(files);
}

/*
 * The roots a Windows plan enforces are computed on canonical paths: a carve-out spelled
 * differently from its writable root still belongs to it, and a path that is not a Windows
 * path in a Windows working directory is refused rather than dropped.
 */
TEST(winpath_roots_canonical)
{
	struct sbx_ctx ctx = {.cwd = "C:\\work", .platform = SBX_PLATFORM_WINDOWS};
	struct sbx_fs fs = {.kind = SBX_FS_RESTRICTED};
	struct sbx_roots r;
	struct sbx_diag d;

	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false), 0);
	CHECK_INT(sbx_fs_push_path(&fs, "c:/work/", SBX_WRITE, false), 0);
	CHECK_INT(sbx_fs_push_path(&fs, "C:\\work\\.\\src.", SBX_READ, false), 0);
	CHECK_INT(sbx_fs_push_path(&fs, "\\\\?\\C:\\work\\out", SBX_WRITE, false), 0);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	CHECK_INT(r.n_writable, 2);
	if (r.n_writable == 2) {
		CHECK_STR(r.writable[0].root, "C:\\work");
		CHECK_INT(r.writable[0].n_read_only, 1);
		if (r.writable[0].n_read_only == 1)
			CHECK_STR(r.writable[0].read_only[0], "C:\\work\\src");
		CHECK_STR(r.writable[1].root, "C:\\work\\out");
	}
	CHECK_INT(r.n_readable, 1);
	if (r.n_readable == 1)
		CHECK_STR(r.readable[0], "C:\\");
	sbx_roots_free(&r);

	/* "/work/src" in a Windows working directory means C:\work\src: refused, not dropped. */
	CHECK_INT(sbx_fs_push_path(&fs, "/work/src", SBX_READ, false), 0);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), SBX_E_INVALID);
	CHECK(strstr(d.msg, "\"/work/src\" cannot be used on Windows") != NULL);
	CHECK(strstr(d.msg, "root-relative") != NULL);
	sbx_fs_clear(&fs);
}
