/* SPDX-License-Identifier: MIT */
/* test_load.c - the strict profile loader: the serde vectors, forms, aliases, every error class. */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

/* Loads text as --profile does (legacy accepted); returns the code and fills p, l, form, d. */
static int load(const char *text, struct sbx_profile *p, struct sbx_legacy *l,
		enum sbx_input_form *form, struct sbx_diag *d)
{
	return sbx_profile_load_buf(text, strlen(text), "t.json", p, form, l, d);
}

/* Loads text, expecting failure with code; returns the rendered line without its hint (which
 * the tests read in d.hint), static. */
static const char *load_error(const char *text, int code)
{
	static char line[2048];
	struct sbx_profile p;
	struct sbx_legacy l;
	enum sbx_input_form form;
	struct sbx_diag d;
	char *out = NULL;
	size_t size;
	FILE *f;

	CHECK_INT(load(text, &p, &l, &form, &d), code);
	d.hint[0] = '\0';
	f = open_memstream(&out, &size);
	sbx_diag_print(&d, f);
	fclose(f);
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(out, "\n"), out);
	free(out);
	return line;
}

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

/* Loads a profile from a jansson value, emits it, and compares with want (jansson equality). */
static void check_round_trip(const json_t *in, const json_t *want, const char *what)
{
	struct sbx_profile p;
	enum sbx_input_form form;
	struct sbx_diag d;
	char *text = vec_text(in), *got_text;
	json_t *got;

	if (sbx_profile_load_buf(text, strlen(text), what, &p, &form, NULL, &d)) {
		t_fail(__FILE__, __LINE__, "%s: %s", what, d.msg);
		free(text);
		return;
	}
	got = sbx_profile_to_jv(&p);
	if (!json_equal(got, want)) {
		got_text = vec_text(got);
		t_fail(__FILE__, __LINE__, "%s: emitted %s", what, got_text);
		free(got_text);
	}
	json_decref(got);
	sbx_profile_free(&p);
	free(text);
}

/* ---- the serde vectors -------------------------------------------------------------------- */

/*
 * Every PermissionProfile among the expected values of the vectors loads and
 * emits back to itself once the $CWD placeholder stands for a real directory.
 */
static void round_trip_one(json_t *s, void *arg)
{
	char *text = vec_text(s);
	size_t *n = arg;

	/* Codex's placeholders left in a path ("$CODEX_HOME/...") make no profile sbxrun reads. */
	if (text && !strchr(text, '$')) {
		check_round_trip(s, s, text);
		(*n)++;
	}
	free(text);
}

TEST(load_every_profile_in_vectors)
{
	json_t *all = vec_load_all(), *v;
	size_t i, n = 0;

	json_array_foreach(all, i, v)
		vec_each_profile(json_object_get(v, "expected"), round_trip_one, &n);
	CHECK(n >= 7);
	json_decref(all);
}

/* ---- forms and aliases --------------------------------------------------------------------- */

TEST(load_forms)
{
	struct sbx_profile p;
	struct sbx_legacy l;
	enum sbx_input_form form;
	struct sbx_diag d;

	CHECK_INT(load("{\"type\":\"disabled\"}", &p, &l, &form, &d), 0);
	CHECK_INT(form, SBX_FORM_PROFILE);
	CHECK_INT(p.type, SBX_DISABLED);
	CHECK_INT(p.fs.kind, SBX_FS_UNRESTRICTED);
	CHECK(p.network);
	sbx_profile_free(&p);

	CHECK_INT(load("{\"type\":\"external\",\"network\":\"restricted\"}", &p, &l, &form, &d), 0);
	CHECK_INT(p.type, SBX_EXTERNAL);
	CHECK_INT(p.fs.kind, SBX_FS_EXTERNAL);
	CHECK(!p.network);
	sbx_profile_free(&p);

	CHECK_INT(load("{}", &p, &l, &form, &d), 0);
	CHECK_INT(form, SBX_FORM_ROLLOUT);
	CHECK_INT(p.type, SBX_MANAGED);
	CHECK_INT(p.fs.n, 0);
	CHECK(!p.network);
	sbx_profile_free(&p);

	CHECK_INT(load("{\"network\":{\"enabled\":null},\"file_system\":{\"read\":[\"/a\"],"
		       "\"write\":[\"/b/./c\"]}}",
		       &p, &l, &form, &d),
		  0);
	CHECK_INT(p.fs.n, 2);
	CHECK_STR(p.fs.entries[1].path, "/b/c");
	CHECK_INT(p.fs.entries[1].access, SBX_WRITE);
	sbx_profile_free(&p);

	CHECK_INT(load("{\"type\":\"workspace-write\",\"writable_roots\":[\"/x/../y\"],"
		       "\"network_access\":true,\"exclude_slash_tmp\":true}",
		       &p, &l, &form, &d),
		  0);
	CHECK_INT(form, SBX_FORM_LEGACY);
	CHECK_INT(l.type, SBX_LEGACY_WORKSPACE_WRITE);
	CHECK_INT(l.n_writable_roots, 1);
	CHECK_STR(l.writable_roots[0], "/y");
	CHECK(l.network_access && l.exclude_slash_tmp && !l.exclude_tmpdir_env_var);
	CHECK_INT(p.fs.n, 0);
	sbx_legacy_free(&l);
}

TEST(load_entry_details)
{
	struct sbx_diag d;
	struct sbx_fs fs;

	CHECK_INT(entries_from("[{\"path\":{\"type\":\"path\",\"path\":\"/ws/../ws2\"},"
			       "\"access\":\"none\",\"missing_path_behavior\":\"skip\"},"
			       "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":"
			       "\"current_working_directory\",\"subpath\":\".git\"}},"
			       "\"access\":\"read\"},"
			       "{\"path\":{\"type\":\"path\",\"path\":\"C:\\\\Users\\\\..\\\\x\"},"
			       "\"access\":\"write\"},"
			       "{\"path\":{\"type\":\"glob_pattern\",\"pattern\":\"**/*.env\"},"
			       "\"access\":\"deny\"},"
			       "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"unknown\","
			       "\"path\":\":future\",\"subpath\":\"s\"}},\"access\":\"read\"},"
			       "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"minimal\"}},"
			       "\"access\":\"read\",\"missing_path_behavior\":null}]",
			       &fs, &d),
		  0);
	CHECK_INT(fs.n, 6);
	CHECK_STR(fs.entries[0].path, "/ws2");
	CHECK_INT(fs.entries[0].access, SBX_DENY);
	CHECK(fs.entries[0].skip_missing);
	CHECK_INT(fs.entries[1].special, SBX_SP_PROJECT_ROOTS);
	CHECK_STR(fs.entries[1].subpath, ".git");
	CHECK_STR(fs.entries[2].path, "C:\\Users\\..\\x"); /* Windows paths stay as written */
	CHECK_INT(fs.entries[3].kind, SBX_GLOB);
	CHECK_STR(fs.entries[3].path, "**/*.env");
	CHECK_INT(fs.entries[4].special, SBX_SP_UNKNOWN);
	CHECK_STR(fs.entries[4].path, ":future");
	CHECK_STR(fs.entries[4].subpath, "s");
	CHECK_INT(fs.entries[5].special, SBX_SP_MINIMAL);
	CHECK(!fs.entries[5].skip_missing);
	sbx_fs_clear(&fs);

	/* Without the text, the diagnostic carries the pointer and no position. */
	CHECK_INT(
	    entries_from("[{\"path\":{\"type\":\"path\",\"path\":\"x/y\"},\"access\":\"read\"}]",
			 &fs, &d),
	    SBX_E_INVALID);
	CHECK_STR(d.pointer, "/entries/0/path/path");
	CHECK_INT(d.line, 0);
	CHECK_STR(d.msg, "relative path \"x/y\" (paths must be absolute)");
	sbx_fs_clear(&fs);
}

/* Pointers are rendered only on error, from the chain of steps; the bytes are as they were. */
TEST(load_error_pointers)
{
	const char *bad = "{\"path\":{\"type\":\"path\",\"path\":\"rel\"},\"access\":\"read\"}";
	char base[601], want[512], text[256];
	struct sbx_fs fs = {0};
	struct sbx_diag d;
	json_t *v, *e;

	/* Deep in an array, and a key that needs ~0 and ~1. */
	CHECK_INT(entries_from("[{\"path\":{\"type\":\"path\",\"path\":\"/a\"},\"access\":\"read\"},"
			       "{\"path\":{\"type\":\"path\",\"path\":\"/b\"},\"access\":\"read\","
			       "\"a/b~c\":1}]",
			       &fs, &d),
		  SBX_E_PARSE);
	CHECK_STR(d.pointer, "/entries/1/a~1b~0c");
	CHECK_INT(fs.n, 1);
	sbx_fs_clear(&fs);

	/* A caller's pointer longer than the field is cut, and so is what follows it. */
	snprintf(text, sizeof(text), "[%s,%s,%s,%s]", "{\"path\":{\"type\":\"path\",\"path\":"
		 "\"/a\"},\"access\":\"read\"}", "{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
		 "\"access\":\"read\"}", "{\"path\":{\"type\":\"path\",\"path\":\"/c\"},"
		 "\"access\":\"read\"}", bad);
	v = json_loads(text, 0, NULL);
	memset(base, 'x', sizeof(base) - 1);
	base[0] = '/';
	base[600] = '\0';
	CHECK_INT(sbx_entries_load_jv(v, "t", base, &fs, &d), SBX_E_INVALID);
	CHECK_INT(strlen(d.pointer), 511);
	CHECK(strncmp(d.pointer, base, 511) == 0);
	sbx_fs_clear(&fs);
	base[505] = '\0';
	/* 505 bytes and the suffix fit; the compiler cannot see that base was cut. */
	memcpy(want, base, 505);
	memcpy(want + 505, "/3/pa/", sizeof("/3/pa/"));
	CHECK_INT(sbx_entries_load_jv(v, "t", base, &fs, &d), SBX_E_INVALID);
	CHECK_STR(d.pointer, want);
	sbx_fs_clear(&fs);
	json_decref(v);

	/* A key holding a NUL (only a caller can build one) is not the key "path". */
	v = json_array();
	e = json_object();
	json_object_setn_new(e, "path\0x", 6, json_string("/p"));
	json_object_set_new(e, "access", json_string("read"));
	json_array_append_new(v, e);
	CHECK_INT(sbx_entries_load_jv(v, "t", "", &fs, &d), SBX_E_PARSE);
	CHECK_STR(d.msg, "missing required key \"path\" in an entry");
	CHECK_STR(d.pointer, "/0");
	sbx_fs_clear(&fs);
	json_decref(v);
}

TEST(load_fs_permissions_jv)
{
	json_t *v = json_loads("{\"entries\":[{\"path\":{\"type\":\"glob_pattern\",\"pattern\":"
			       "\"/a/*\"},\"access\":\"deny\"}],\"glob_scan_max_depth\":3}",
			       0, NULL);
	struct sbx_fs fs = {0};
	struct sbx_diag d;

	CHECK_INT(sbx_fs_permissions_load_jv(v, "v", "/file_system", &fs, &d), 0);
	CHECK_INT(fs.n, 1);
	CHECK_INT(fs.glob_depth, 3);
	CHECK_INT(fs.kind, SBX_FS_RESTRICTED);
	sbx_fs_clear(&fs);
	json_decref(v);

	v = json_loads("{\"glob_scan_max_depth\":3}", 0, NULL);
	CHECK_INT(sbx_fs_permissions_load_jv(v, "v", "/file_system", &fs, &d), SBX_E_PARSE);
	CHECK_STR(d.msg, "missing required key \"entries\" in file_system permissions");
	CHECK_STR(d.pointer, "/file_system");
	sbx_fs_clear(&fs);
	json_decref(v);
}

TEST(load_additional)
{
	const char *text = "{\"network\":{\"enabled\":false},\"file_system\":{\"write\":[\"/w\"]}}";
	struct sbx_additional a;
	struct sbx_diag d;

	CHECK_INT(sbx_additional_load_buf(text, strlen(text), "a.json", &a, &d), 0);
	CHECK_INT(a.network, 0);
	CHECK(a.has_fs);
	CHECK_INT(a.fs.n, 1);
	sbx_additional_free(&a);

	CHECK_INT(sbx_additional_load_buf("{}", 2, "a.json", &a, &d), 0);
	CHECK_INT(a.network, -1);
	CHECK(!a.has_fs);
	sbx_additional_free(&a);

	text = "{\"type\":\"disabled\"}";
	CHECK_INT(sbx_additional_load_buf(text, strlen(text), "a.json", &a, &d), SBX_E_PARSE);
	CHECK_INT(d.line, 1);
	CHECK_INT(d.col, 9);
	CHECK(strstr(d.hint, "PermissionProfile") != NULL);
}

/* ---- errors ---------------------------------------------------------------------------------- */

TEST(load_legacy_needs_legacy_out)
{
	struct sbx_profile p;
	enum sbx_input_form form;
	struct sbx_diag d;
	const char *text = "{\"type\":\"read-only\"}";

	CHECK_INT(sbx_profile_load_buf(text, strlen(text), "h", &p, &form, NULL, &d),
		  SBX_E_INVALID);
	CHECK_STR(d.msg, "/type: \"read-only\" is a legacy SandboxPolicy, not a PermissionProfile");
	CHECK_INT(d.col, 9);
}

TEST(load_error_positions)
{
	/* Escaped and non-ASCII keys are matched decoded; columns count characters. */
	CHECK_STR(
	    load_error("{\"n\\u00e9\":1}", SBX_E_PARSE),
	    "sbxrun: t.json:1:12: /n\u00e9: unknown key \"n\u00e9\" in a profile of the older "
	    "rollout shape (no \"type\") (expected \"network\" and \"file_system\")");
	CHECK_STR(load_error("{\"a/b~\":1}", SBX_E_PARSE),
		  "sbxrun: t.json:1:9: /a~1b~0: unknown key \"a/b~\" in a profile of the older "
		  "rollout shape (no \"type\") (expected \"network\" and \"file_system\")");
	CHECK_STR(load_error("{\"file_system\":{\"read\":[\"/a\",\n \"/b\",\n   \"rel\"]}}",
			     SBX_E_INVALID),
		  "sbxrun: t.json:3:4: /file_system/read/2: relative path \"rel\" (paths must be "
		  "absolute)");
	CHECK_STR(load_error("{\"type\":\"managed\",\"network\":\"enabled\"}", SBX_E_PARSE),
		  "sbxrun: t.json:1:1: missing required key \"file_system\" in a managed profile");
	CHECK_STR(load_error("{\"network\":{\"enabled\":true,\"x\":[{\"y\":1}]}}", SBX_E_PARSE),
		  "sbxrun: t.json:1:32: /network/x: unknown key \"x\" in network (expected only "
		  "\"enabled\")");
}

static char *many_paths(size_t n)
{
	size_t len = 32 + 4 * n;
	char *s = malloc(len), *o = s;

	o += sprintf(o, "{\"file_system\":{\"read\":[");
	for (size_t i = 0; i < n; i++)
		o += sprintf(o, "%s\"/\"", i ? "," : "");
	sprintf(o, "]}}");
	return s;
}

TEST(load_limits)
{
	char *text = many_paths(SBX_MAX_ENTRIES + 1);
	char deep[2 * SBX_MAX_JSON_DEPTH + 16];
	struct sbx_profile p;
	struct sbx_legacy l;
	enum sbx_input_form form;
	struct sbx_diag d;
	size_t o = 0;

	CHECK_INT(load(text, &p, &l, &form, &d), SBX_E_TOO_BIG);
	CHECK_STR(d.msg, "/file_system/read: 100001 paths (limit 100000)");
	free(text);
	text = many_paths(SBX_MAX_ENTRIES);
	CHECK_INT(load(text, &p, &l, &form, &d), 0);
	CHECK_INT(p.fs.n, SBX_MAX_ENTRIES);
	sbx_profile_free(&p);
	free(text);

	/* Exactly SBX_MAX_JSON_DEPTH levels parse (and fail later on the key); one more does not.
	 */
	o += (size_t)sprintf(deep, "{\"x\":");
	for (int i = 1; i < SBX_MAX_JSON_DEPTH; i++)
		deep[o++] = '[';
	for (int i = 1; i < SBX_MAX_JSON_DEPTH; i++)
		deep[o++] = ']';
	strcpy(deep + o, "}");
	CHECK_INT(load(deep, &p, &l, &form, &d), SBX_E_PARSE);
	CHECK(strstr(d.msg, "unknown key \"x\"") != NULL);
	memmove(deep + 6, deep + 5, strlen(deep + 5) + 1);
	deep[5] = '[';
	memmove(deep + o + 2, deep + o + 1, strlen(deep + o + 1) + 1);
	deep[o + 1] = ']';
	CHECK_INT(load(deep, &p, &l, &form, &d), SBX_E_PARSE);
	CHECK_STR(d.msg, "nesting deeper than 64 levels (a profile nests at most 8)");
	CHECK_INT(d.col, 5 + SBX_MAX_JSON_DEPTH);
}

TEST(load_read_file)
{
	char dir[] = "/tmp/sbx-load-XXXXXX", path[64];
	struct sbx_diag d;
	char *buf;
	size_t len;
	int fd;

	CHECK(mkdtemp(dir) != NULL);
	CHECK_INT(sbx_read_file(dir, &buf, &len, &d), -EISDIR);
	CHECK_STR(d.msg, "cannot read: Is a directory");
	CHECK_STR(d.file, dir);
	snprintf(path, sizeof(path), "%s/p.json", dir);
	CHECK_INT(sbx_read_file(path, &buf, &len, &d), -ENOENT);
	CHECK_STR(d.msg, "cannot open: No such file or directory");

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(write(fd, "{}", 2) == 2);
	CHECK_INT(sbx_read_file(path, &buf, &len, &d), 0);
	CHECK_INT(len, 2);
	CHECK_STR(buf, "{}");
	free(buf);
	CHECK(ftruncate(fd, SBX_MAX_PROFILE_BYTES) == 0);
	CHECK_INT(sbx_read_file(path, &buf, &len, &d), 0); /* exactly the limit is accepted */
	CHECK_INT(len, SBX_MAX_PROFILE_BYTES);
	free(buf);
	CHECK(ftruncate(fd, SBX_MAX_PROFILE_BYTES + 1) == 0);
	CHECK_INT(sbx_read_file(path, &buf, &len, &d), SBX_E_TOO_BIG);
	CHECK_STR(d.msg, "larger than 4 MiB, the limit for a profile");
	close(fd);
	unlink(path);
	rmdir(dir);
}

TEST(load_builtins)
{
	struct sbx_profile p;
	struct sbx_diag d;

	CHECK_INT(sbx_profile_builtin(":read-only", &p, &d), 0);
	CHECK_INT(p.fs.n, 1);
	CHECK_INT(p.fs.entries[0].special, SBX_SP_ROOT);
	sbx_profile_free(&p);
	CHECK_INT(sbx_profile_builtin(":danger-full-access", &p, &d), 0);
	CHECK_INT(p.type, SBX_DISABLED);
	sbx_profile_free(&p);
	CHECK_INT(sbx_profile_builtin(":x", &p, &d), SBX_E_USAGE);
	CHECK_STR(d.msg, "unknown built-in profile `:x`");
	CHECK_STR(d.hint, "the built-in profiles are :read-only, :workspace, :workspace-git and "
			  ":danger-full-access");
}
