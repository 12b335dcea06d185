/* SPDX-License-Identifier: MIT */
/* test_emit.c - canonical wire JSON: key order, omissions, aliases, the serde vectors. */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

/* Loads text as a profile and returns its canonical JSON (malloc'd), or NULL. */
static char *canonical(const char *text)
{
	struct sbx_profile p;
	enum sbx_input_form form;
	struct sbx_diag d;
	char *out;

	if (sbx_profile_load_buf(text, strlen(text), "t", &p, &form, NULL, &d)) {
		t_fail(__FILE__, __LINE__, "%s", d.msg);
		return NULL;
	}
	out = sbx_profile_to_json(&p);
	sbx_profile_free(&p);
	return out;
}

static char *additional_canonical(const char *text)
{
	struct sbx_additional a;
	struct sbx_diag d;
	char *out;

	if (sbx_additional_load_buf(text, strlen(text), "t", &a, &d)) {
		t_fail(__FILE__, __LINE__, "%s", d.msg);
		return NULL;
	}
	out = sbx_additional_to_json(&a);
	sbx_additional_free(&a);
	return out;
}

#define CHECK_CANONICAL(fn, in, want)                                                              \
	do {                                                                                       \
		char *got_ = fn(in);                                                               \
		CHECK_STR(got_, want);                                                             \
		free(got_);                                                                        \
	} while (0)

TEST(emit_key_order_and_aliases)
{
	/* Keys written out of order, aliases, a null optional: all come back canonical. */
	CHECK_CANONICAL(
	    canonical,
	    "{\"network\":\"enabled\",\"file_system\":{\"glob_scan_max_depth\":2,"
	    "\"entries\":[{\"access\":\"none\",\"missing_path_behavior\":\"skip\","
	    "\"path\":{\"path\":\"/a/./b/\",\"type\":\"path\"}},"
	    "{\"access\":\"read\",\"path\":{\"value\":{\"subpath\":\"s\",\"kind\":"
	    "\"current_working_directory\"},\"type\":\"special\"}},"
	    "{\"access\":\"deny\",\"path\":{\"pattern\":\"*.pem\",\"type\":"
	    "\"glob_pattern\"}},"
	    "{\"access\":\"write\",\"path\":{\"type\":\"special\",\"value\":{\"subpath\":"
	    "\"x\",\"path\":\":t\",\"kind\":\"unknown\"}},\"missing_path_behavior\":null}"
	    "],\"type\":\"restricted\"},\"type\":\"managed\"}",
	    "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
	    "{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"deny\","
	    "\"missing_path_behavior\":\"skip\"},"
	    "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\","
	    "\"subpath\":\"s\"}},\"access\":\"read\"},"
	    "{\"path\":{\"type\":\"glob_pattern\",\"pattern\":\"*.pem\"},\"access\":"
	    "\"deny\"},"
	    "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"unknown\",\"path\":"
	    "\":t\",\"subpath\":\"x\"}},\"access\":\"write\"}],"
	    "\"glob_scan_max_depth\":2},\"network\":\"enabled\"}");
	CHECK_CANONICAL(canonical, "{\"type\":\"disabled\"}", "{\"type\":\"disabled\"}");
	CHECK_CANONICAL(canonical, "{\"network\":\"enabled\",\"type\":\"external\"}",
			"{\"type\":\"external\",\"network\":\"enabled\"}");
	CHECK_CANONICAL(canonical,
			"{\"type\":\"managed\",\"network\":\"restricted\",\"file_system\":"
			"{\"type\":\"unrestricted\"}}",
			"{\"type\":\"managed\",\"file_system\":{\"type\":\"unrestricted\"},"
			"\"network\":\"restricted\"}");
	/* The older rollout shape is written as the tagged form. */
	CHECK_CANONICAL(
	    canonical, "{\"file_system\":{\"write\":[\"/w\"]}}",
	    "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
	    "{\"path\":{\"type\":\"path\",\"path\":\"/w\"},\"access\":\"write\"}]},"
	    "\"network\":\"restricted\"}");
}

TEST(emit_managed_external_file_system_is_external)
{
	struct sbx_profile p = {.type = SBX_MANAGED, .fs = {.kind = SBX_FS_EXTERNAL}};
	char *s = sbx_profile_to_json(&p);

	CHECK_STR(s, "{\"type\":\"external\",\"network\":\"restricted\"}");
	free(s);
}

TEST(emit_builtins)
{
	struct sbx_profile p;
	struct sbx_diag d;
	char *s;

	CHECK_INT(sbx_profile_builtin(":workspace", &p, &d), 0);
	s = sbx_profile_to_json(&p);
	CHECK_STR(s,
		  "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},\"access\":"
		  "\"read\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\"}},"
		  "\"access\":\"write\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"slash_tmp\"}},"
		  "\"access\":\"write\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"tmpdir\"}},"
		  "\"access\":\"write\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\","
		  "\"subpath\":\".git\"}},\"access\":\"read\",\"missing_path_behavior\":\"skip\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\","
		  "\"subpath\":\".agents\"}},\"access\":\"read\",\"missing_path_behavior\":"
		  "\"skip\"},"
		  "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"project_roots\","
		  "\"subpath\":\".codex\"}},\"access\":\"read\",\"missing_path_behavior\":"
		  "\"skip\"}]},\"network\":\"restricted\"}");
	free(s);
	sbx_profile_free(&p);

	CHECK_INT(sbx_profile_builtin(":read-only", &p, &d), 0);
	s = sbx_profile_to_json(&p);
	CHECK_STR(s, "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
		     "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},\"access\":"
		     "\"read\"}]},\"network\":\"restricted\"}");
	free(s);
	sbx_profile_free(&p);

	CHECK_INT(sbx_profile_builtin(":danger-full-access", &p, &d), 0);
	s = sbx_profile_to_json(&p);
	CHECK_STR(s, "{\"type\":\"disabled\"}");
	free(s);
	sbx_profile_free(&p);
}

TEST(emit_additional)
{
	CHECK_CANONICAL(additional_canonical, "{}", "{}");
	CHECK_CANONICAL(additional_canonical, "{\"network\":{\"enabled\":false}}", "{}");
	CHECK_CANONICAL(additional_canonical,
			"{\"network\":{\"enabled\":null},\"file_system\":null}", "{}");
	CHECK_CANONICAL(additional_canonical, "{\"network\":{\"enabled\":true}}",
			"{\"network\":{\"enabled\":true}}");
	CHECK_CANONICAL(additional_canonical,
			"{\"file_system\":{\"write\":[\"/w\"],\"read\":[\"/r\"]},\"network\":{"
			"\"enabled\":true}}",
			"{\"network\":{\"enabled\":true},\"file_system\":{\"read\":[\"/r\"],"
			"\"write\":[\"/w\"]}}");
	/* Canonical entries that fit the read/write form are written in it... */
	CHECK_CANONICAL(
	    additional_canonical,
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"write\"}]}}",
	    "{\"file_system\":{\"write\":[\"/b\"]}}");
	/* ...and those that do not (a deny, a special, skip, a depth) stay canonical. */
	CHECK_CANONICAL(
	    additional_canonical,
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"deny\"}]}}",
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"deny\"}]}}");
	CHECK_CANONICAL(
	    additional_canonical,
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"read\",\"missing_path_behavior\":\"skip\"}]}}",
	    "{\"file_system\":{\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"/b\"},"
	    "\"access\":\"read\",\"missing_path_behavior\":\"skip\"}]}}");
	CHECK_CANONICAL(additional_canonical,
			"{\"file_system\":{\"entries\":[],\"glob_scan_max_depth\":1}}",
			"{\"file_system\":{\"entries\":[],\"glob_scan_max_depth\":1}}");
}

static void check_legacy(const char *in, const char *want)
{
	struct sbx_legacy l;
	struct sbx_diag d;
	char *s;

	CHECK_INT(sbx_legacy_load_buf(in, strlen(in), "t", &l, &d), 0);
	s = sbx_legacy_to_json(&l);
	CHECK_STR(s, want);
	free(s);
	sbx_legacy_free(&l);
}

TEST(emit_legacy)
{
	check_legacy("{\"type\":\"danger-full-access\"}", "{\"type\":\"danger-full-access\"}");
	check_legacy("{\"type\":\"read-only\",\"network_access\":false}",
		     "{\"type\":\"read-only\"}");
	check_legacy("{\"network_access\":true,\"type\":\"read-only\"}",
		     "{\"type\":\"read-only\",\"network_access\":true}");
	check_legacy("{\"type\":\"external-sandbox\"}",
		     "{\"type\":\"external-sandbox\",\"network_access\":\"restricted\"}");
	check_legacy("{\"type\":\"workspace-write\"}",
		     "{\"type\":\"workspace-write\",\"network_access\":false,"
		     "\"exclude_tmpdir_env_var\":false,\"exclude_slash_tmp\":false}");
	check_legacy("{\"exclude_slash_tmp\":true,\"writable_roots\":[\"/a\",\"/b/\"],"
		     "\"type\":\"workspace-write\",\"network_access\":true}",
		     "{\"type\":\"workspace-write\",\"writable_roots\":[\"/a\",\"/b\"],"
		     "\"network_access\":true,\"exclude_tmpdir_env_var\":false,"
		     "\"exclude_slash_tmp\":true}");
}

/* ---- the serde vectors about emitting --------------------------------------------------- */

/* mi-05: an empty read list serializes away; the rest survives a load and emit unchanged. */
TEST(emit_merge_intersect_vectors)
{
	json_t *all = vec_load_all(), *v = vec_find(all, "mi-05");
	json_t *in = vec_subst(json_object_get(json_object_get(v, "input"), "requested"));
	json_t *want = vec_subst(json_object_get(v, "expected"));
	char *text = vec_text(in), *w = vec_text(want), *got = additional_canonical(text);

	CHECK_STR(got, w);
	free(got);
	free(text);
	free(w);
	json_decref(in);
	json_decref(want);

	/* mi-04: the canonical input (specials, skip, a relative glob, a depth) round-trips. */
	v = vec_find(all, "mi-04");
	in = vec_subst(json_object_get(json_object_get(v, "input"), "additional"));
	text = vec_text(in);
	got = additional_canonical(text);
	CHECK_STR(got, text);
	free(got);
	free(text);
	json_decref(in);
	json_decref(all);
}

/* ---- the direct emitter against jansson's rendering of the same values ------------------- */

/* xorshift32 with a fixed seed: a failure replays the same way every run. */
static uint32_t rnd_state = 0x2545f491u;

static uint32_t rnd(uint32_t n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state % n;
}

/*
 * What a hostile string is made of: JSON's own specials, '/', DEL, UTF-8 of every length at the
 * edges of its ranges (and U+2028, which JavaScript treats as a newline), and, rarely, byte
 * sequences that are not UTF-8, which jansson refuses to hold (so both sides must fail).
 */
static const char *const valid_pieces[] = {
	"\"", "\\", "/", "a", "Z", "~", " ", "\x7f", "\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80",
	"\xed\x9f\xbf", "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf",
	"\xc3\xa9", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xe2\x80\xa8", "\\u0000", "%s",
};
static const char *const invalid_pieces[] = {
	"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xc2", "\xe0\x80\x80", "\xe0\x9f\xbf",
	"\xed\xa0\x80", "\xed\xbf\xbf", "\xf0\x80\x80\x80", "\xf0\x8f\xbf\xbf", "\xf4\x90\x80\x80",
	"\xf5\x80\x80\x80", "\xf8\x88\x80\x80\x80", "\xfe", "\xff", "\xe2\x82", "\xc3(",
	"\xf0\x9f\x98",
};
#define N_VALID	  (sizeof(valid_pieces) / sizeof(valid_pieces[0]))
#define N_INVALID (sizeof(invalid_pieces) / sizeof(invalid_pieces[0]))

static char *hostile_string(const char *prefix)
{
	char buf[256];
	size_t o = strlen(prefix), n = rnd(12);

	memcpy(buf, prefix, o);
	for (size_t i = 0; i < n; i++) {
		uint32_t k = rnd(100);
		const char *piece;
		char ctl[2] = {0, 0};

		if (k < 30) {
			ctl[0] = (char)(1 + rnd(0x1f)); /* every control byte but NUL */
			piece = ctl;
		} else if (k >= 97) {
			piece = invalid_pieces[rnd(N_INVALID)];
		} else {
			piece = valid_pieces[rnd(N_VALID)];
		}
		memcpy(buf + o, piece, strlen(piece));
		o += strlen(piece);
	}
	buf[o] = '\0';
	return strdup(buf);
}

static void random_entry(struct sbx_entry *e)
{
	static const enum sbx_special sp[] = {SBX_SP_ROOT,	SBX_SP_MINIMAL,	  SBX_SP_PROJECT_ROOTS,
					      SBX_SP_TMPDIR,	SBX_SP_SLASH_TMP, SBX_SP_UNKNOWN};

	memset(e, 0, sizeof(*e));
	e->kind = (enum sbx_path_kind)rnd(3);
	e->access = (enum sbx_access)rnd(3);
	e->skip_missing = rnd(3) == 0;
	if (e->kind != SBX_SPECIAL) {
		e->path = hostile_string(e->kind == SBX_PATH ? "/" : "");
		return;
	}
	e->special = sp[rnd(6)];
	if (e->special == SBX_SP_UNKNOWN && rnd(4))
		e->path = hostile_string(":");
	if ((e->special == SBX_SP_PROJECT_ROOTS || e->special == SBX_SP_UNKNOWN) && rnd(2))
		e->subpath = hostile_string("");
}

static void random_fs(struct sbx_fs *fs, bool read_write_only)
{
	size_t n = rnd(7);

	fs->entries = calloc(n ? n : 1, sizeof(*fs->entries));
	fs->cap = n ? n : 1;
	for (size_t i = 0; i < n; i++) {
		random_entry(&fs->entries[i]);
		if (read_write_only) {
			struct sbx_entry *e = &fs->entries[i];

			sbx_entry_clear(e);
			e->kind = SBX_PATH;
			e->access = (enum sbx_access)rnd(2);
			e->path = hostile_string("/");
		}
		fs->n++;
	}
	fs->glob_depth = rnd(3) ? 0 : 1 + rnd(4096);
}

static char *jansson_text(json_t *v)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(v);
	return s;
}

/* Both NULL (a string jansson refuses), or the same bytes; frees both and counts each. */
static void compare_text(const char *what, char *got, char *want, size_t *same, size_t *refused)
{
	if (got && want ? strcmp(got, want) != 0 : got != want)
		t_fail(__FILE__, __LINE__, "%s: got %s, jansson %s", what, got ? got : "NULL",
		       want ? want : "NULL");
	*(got ? same : refused) += 1;
	free(got);
	free(want);
}

/* The additional profile as jansson writes it: the entries form comes from sbx_profile_to_jv. */
static json_t *additional_jv(const struct sbx_additional *a)
{
	json_t *v = json_object();
	bool rw = a->fs.glob_depth == 0;

	if (a->network == 1)
		json_object_set_new(v, "network", json_pack("{s:b}", "enabled", 1));
	if (!a->has_fs)
		return v;
	for (size_t i = 0; i < a->fs.n; i++) {
		const struct sbx_entry *e = &a->fs.entries[i];

		rw = rw && e->kind == SBX_PATH && e->access != SBX_DENY && !e->skip_missing;
	}
	if (rw) {
		json_t *fs = json_object(), *r = json_array(), *w = json_array();

		for (size_t i = 0; i < a->fs.n; i++) {
			json_t *s = json_string(a->fs.entries[i].path);

			if (!s) {
				json_decref(r), json_decref(w), json_decref(fs), json_decref(v);
				return NULL;
			}
			json_array_append_new(a->fs.entries[i].access == SBX_READ ? r : w, s);
		}
		if (json_array_size(r))
			json_object_set(fs, "read", r);
		if (json_array_size(w))
			json_object_set(fs, "write", w);
		json_decref(r);
		json_decref(w);
		json_object_set_new(v, "file_system", fs);
	} else {
		struct sbx_profile p = {.type = SBX_MANAGED, .fs = a->fs};
		json_t *pj = sbx_profile_to_jv(&p), *fs;

		if (!pj) {
			json_decref(v);
			return NULL;
		}
		fs = json_deep_copy(json_object_get(pj, "file_system"));
		json_object_del(fs, "type");
		json_object_set_new(v, "file_system", fs);
		json_decref(pj);
	}
	return v;
}

static json_t *legacy_jv(const struct sbx_legacy *l)
{
	json_t *roots = json_array();

	for (size_t i = 0; i < l->n_writable_roots; i++) {
		json_t *s = json_string(l->writable_roots[i]);

		if (!s) {
			json_decref(roots);
			return NULL;
		}
		json_array_append_new(roots, s);
	}
	if (!json_array_size(roots))
		return (json_decref(roots),
			json_pack("{s:s,s:b,s:b,s:b}", "type", "workspace-write", "network_access",
				  l->network_access, "exclude_tmpdir_env_var",
				  l->exclude_tmpdir_env_var, "exclude_slash_tmp",
				  l->exclude_slash_tmp));
	return json_pack("{s:s,s:o,s:b,s:b,s:b}", "type", "workspace-write", "writable_roots", roots,
			 "network_access", l->network_access, "exclude_tmpdir_env_var",
			 l->exclude_tmpdir_env_var, "exclude_slash_tmp", l->exclude_slash_tmp);
}

TEST(emit_direct_text_matches_jansson)
{
	size_t same = 0, refused = 0;

	for (int round = 0; round < 3000; round++) {
		struct sbx_profile p = {.type = (enum sbx_profile_type)rnd(3), .network = rnd(2)};
		struct sbx_additional a = {.network = (int)rnd(3) - 1, .has_fs = rnd(4) != 0};
		struct sbx_legacy l = {.type = SBX_LEGACY_WORKSPACE_WRITE,
				       .network_access = rnd(2),
				       .exclude_tmpdir_env_var = rnd(2),
				       .exclude_slash_tmp = rnd(2)};

		p.fs.kind = (enum sbx_fs_kind)rnd(3);
		random_fs(&p.fs, false);
		compare_text("profile", sbx_profile_to_json(&p), jansson_text(sbx_profile_to_jv(&p)),
			     &same, &refused);

		random_fs(&a.fs, rnd(2));
		compare_text("additional", sbx_additional_to_json(&a),
			     jansson_text(additional_jv(&a)), &same, &refused);

		l.n_writable_roots = rnd(4);
		l.writable_roots = calloc(l.n_writable_roots + 1, sizeof(char *));
		for (size_t i = 0; i < l.n_writable_roots; i++)
			l.writable_roots[i] = hostile_string("/");
		compare_text("legacy", sbx_legacy_to_json(&l), jansson_text(legacy_jv(&l)), &same,
			     &refused);

		sbx_profile_free(&p);
		sbx_additional_free(&a);
		sbx_legacy_free(&l);
	}
	/* Both outcomes must have been exercised, or the comparison proved little. */
	CHECK(same > 3000);
	CHECK(refused > 300);
}

/*
 * A path entry that needs no escape is written in one piece, its bytes checked sixteen at a
 * time: each byte to escape or to check as UTF-8 (and DEL, which is not), at every offset of
 * paths of every length up to three blocks, first or not, as jansson writes them.
 */
TEST(emit_plain_paths_at_every_offset)
{
	static const char *const odd[] = {"\x01", "\x1f", "\"", "\\", "\x7f", "\xc3\xa9", "\xff"};
	struct sbx_entry e[2] = {{.kind = SBX_PATH, .access = SBX_DENY},
				 {.kind = SBX_PATH, .access = SBX_WRITE}};
	struct sbx_profile p = {.type = SBX_MANAGED, .fs = {.entries = e, .n = 2, .cap = 2}};
	size_t same = 0, refused = 0;
	char a[64], b[64];

	for (size_t len = 1; len < 50; len++)
		for (size_t at = 0; at <= len; at++)
			for (size_t k = 0; k < sizeof(odd) / sizeof(*odd); k++) {
				memset(a, 'x', len);
				a[0] = '/';
				a[len] = '\0';
				snprintf(b, sizeof(b), "%s", a);
				if (at < len && at) /* at == len: the path as it is */
					snprintf(b + at, sizeof(b) - at, "%s%s", odd[k],
						 a + at + 1);
				e[0].path = a;
				e[1].path = b;
				compare_text(b, sbx_profile_to_json(&p),
					     jansson_text(sbx_profile_to_jv(&p)), &same, &refused);
			}
	CHECK(same > 1000);
	CHECK(refused > 10);
}

/*
 * A plain path's check reads nothing past its NUL: each path here ends where a page that cannot
 * be read begins, at every length up to four blocks, plain or with a byte to escape last.
 */
TEST(emit_plain_path_reads_no_byte_past_the_string)
{
	struct sbx_entry e = {.kind = SBX_PATH, .access = SBX_READ};
	struct sbx_profile p = {.type = SBX_MANAGED, .fs = {.entries = &e, .n = 1, .cap = 1}};
	size_t same = 0, refused = 0;

	for (size_t len = 1; len < 72; len++)
		for (int odd = 0; odd < 2; odd++) {
			char *s = t_page_end(len + 1);

			memset(s, 'x', len);
			s[0] = '/';
			if (odd)
				s[len - 1] = '"';
			s[len] = '\0';
			e.path = s;
			compare_text(s, sbx_profile_to_json(&p),
				     jansson_text(sbx_profile_to_jv(&p)), &same, &refused);
		}
	CHECK_INT(same, 2 * 71);
}

TEST(emit_direct_text_refuses_what_jansson_refuses)
{
	struct sbx_entry e = {.kind = SBX_PATH, .path = NULL, .access = SBX_READ};
	struct sbx_profile p = {.type = SBX_MANAGED, .fs = {.entries = &e, .n = 1, .cap = 1}};
	char *s = sbx_profile_to_json(&p);

	CHECK(s == NULL);
	CHECK(sbx_profile_to_jv(&p) == NULL);
	e.path = (char *)"/caf\xc3\xa9\x7f\t\x01\"\\";
	s = sbx_profile_to_json(&p);
	CHECK_STR(s, "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
		     "{\"path\":{\"type\":\"path\",\"path\":\"/caf\xc3\xa9\x7f\\t\\u0001\\\"\\\\\"},"
		     "\"access\":\"read\"}]},\"network\":\"restricted\"}");
	free(s);
	e.path = (char *)"/caf\xe9";
	CHECK(sbx_profile_to_json(&p) == NULL);
}

/* Collects the pieces sbx_profile_to_json_stream hands over; fails once limit bytes are in. */
struct pieces {
	struct sbx_strbuf text;
	size_t limit, calls, largest;
};

static int collect(void *arg, const char *s, size_t n)
{
	struct pieces *c = arg;

	if (c->text.n + n > c->limit)
		return -EIO;
	c->calls++;
	if (n > c->largest)
		c->largest = n;
	sbx_strbuf_put(&c->text, s, n);
	return 0;
}

TEST(emit_stream_is_the_same_text_in_pieces)
{
	static const size_t chunks[] = {1, 7, 64, 4096, 65536};
	size_t compared = 0, refused = 0;

	for (int round = 0; round < 1200; round++) {
		struct sbx_profile p = {.type = (enum sbx_profile_type)rnd(3), .network = rnd(2)};
		size_t chunk = chunks[round % 5];
		struct pieces c = {.limit = SIZE_MAX};
		char *whole, *streamed;
		int r;

		p.fs.kind = (enum sbx_fs_kind)rnd(3);
		random_fs(&p.fs, false);
		whole = sbx_profile_to_json(&p);
		r = sbx_profile_to_json_stream(&p, chunk, collect, &c);
		streamed = sbx_strbuf_finish(&c.text, NULL);
		if (!whole) {
			/* What the text cannot carry is refused the same way, whatever went out. */
			CHECK_INT(r, -EINVAL);
			refused++;
		} else {
			CHECK_INT(r, 0);
			CHECK_STR(streamed ? streamed : "", whole);
			/* A piece is larger than the chunk only for one string longer than it. */
			CHECK(c.largest <= chunk || chunk < 4096);
			compared++;
		}
		free(whole);
		free(streamed);
		sbx_profile_free(&p);
	}
	/* Both outcomes must have been exercised, or the comparison proved little. */
	if (compared < 600 || refused < 10)
		t_fail(__FILE__, __LINE__, "%zu compared, %zu refused", compared, refused);
}

/*
 * The first piece comes from the stack (2 KiB) and the rest from a heap block of the chunk: a short
 * text is one piece, a long one the same text in pieces no longer than the chunk.
 */
TEST(emit_stream_short_text_in_one_piece_long_in_chunks)
{
	static const int counts[] = {1, 20, 200, 5000};

	for (size_t k = 0; k < sizeof(counts) / sizeof(*counts); k++) {
		struct sbx_profile p = {.type = SBX_MANAGED, .network = 0};
		struct pieces c = {.limit = SIZE_MAX};
		char path[64], *whole, *streamed;

		p.fs.kind = SBX_FS_RESTRICTED;
		for (int i = 0; i < counts[k]; i++) {
			snprintf(path, sizeof(path), "/some/where/f%04d", i);
			CHECK_INT(sbx_fs_push_path(&p.fs, path, SBX_READ, false), 0);
		}
		whole = sbx_profile_to_json(&p);
		CHECK(whole != NULL);
		CHECK_INT(sbx_profile_to_json_stream(&p, 64 * 1024, collect, &c), 0);
		streamed = sbx_strbuf_finish(&c.text, NULL);
		CHECK_STR(streamed ? streamed : "", whole);
		if (strlen(whole) <= 2048)
			CHECK_INT(c.calls, 1);
		else
			CHECK(c.calls > 1 && c.largest <= 64 * 1024);
		if (strlen(whole) > 3 * 64 * 1024)
			CHECK(c.calls <= 1 + strlen(whole) / (60 * 1024) + 1);
		free(whole);
		free(streamed);
		sbx_profile_free(&p);
	}
}

TEST(emit_stream_stops_at_the_first_failed_piece)
{
	struct sbx_profile p = {.type = SBX_MANAGED, .network = 0};
	struct pieces c = {.limit = 100};
	char path[64], *whole;

	p.fs.kind = SBX_FS_RESTRICTED;
	for (int i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "/some/where/f%02d", i);
		CHECK_INT(sbx_fs_push_path(&p.fs, path, SBX_READ, false), 0);
	}
	whole = sbx_profile_to_json(&p);
	CHECK(whole && strlen(whole) > 1000);
	CHECK_INT(sbx_profile_to_json_stream(&p, 16, collect, &c), -EIO);
	/* Nothing is handed over after the failure: what went out is a prefix of the text. */
	CHECK(c.text.n <= 100);
	CHECK(c.text.n == 0 || strncmp(c.text.p, whole, c.text.n) == 0);
	free(sbx_strbuf_finish(&c.text, NULL));
	free(whole);
	sbx_profile_free(&p);
}
