/* SPDX-License-Identifier: MIT */
/*
 * test_wire.c - the single-pass parser of the canonical form (load_wire.c) against the jansson
 * path, side by side: what the parser accepts, the jansson path accepts too and loads into the
 * same model (the same canonical re-emission); every tagged profile the jansson path accepts,
 * the parser accepts too; and an input refused gets the same diagnostic from sbx_profile_load_buf
 * as from the jansson path alone. The inputs are the bad-input corpus, the fuzz corpus, every
 * profile in the vectors, and rewritings of them that change nothing a profile means (key order,
 * whitespace, escapes) or break them (duplicates, truncation, a wrong type).
 */
#include <dirent.h>
#include <stdlib.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

static size_t accepted, refused;

static bool same_diag(const struct sbx_diag *a, const struct sbx_diag *b)
{
	return strcmp(a->file, b->file) == 0 && a->line == b->line && a->col == b->col &&
	       strcmp(a->pointer, b->pointer) == 0 && strcmp(a->msg, b->msg) == 0 &&
	       strcmp(a->hint, b->hint) == 0;
}

/* Holds the two paths side by side on text; returns whether the parser accepted it. */
static bool differ(const char *what, const char *text, size_t len)
{
	struct sbx_profile w, t, b;
	enum sbx_input_form form = SBX_FORM_PROFILE;
	struct sbx_diag dt, db;
	int rw, rt, rb;

	rw = sbx_profile_load_wire(text, len, &w);
	rt = sbx_profile_load_tree(text, len, "t.json", &t, &form, NULL, &dt);
	rb = sbx_profile_load_buf(text, len, "t.json", &b, NULL, NULL, &db);
	if (rw != 0 && rw != 1)
		t_fail(__FILE__, __LINE__, "%s: the parser returned %d", what, rw);
	if (rw == 0 && rt != 0)
		t_fail(__FILE__, __LINE__, "%s: the parser accepts what jansson refuses (%s)", what,
		       dt.msg);
	if (rt == 0 && form == SBX_FORM_PROFILE && rw != 0)
		t_fail(__FILE__, __LINE__, "%s: the parser refuses a profile jansson accepts",
		       what);
	if (rb != rt || (rb && !same_diag(&db, &dt)))
		t_fail(__FILE__, __LINE__, "%s: the entry points differ: \"%s\" and \"%s\"", what,
		       db.msg, dt.msg);
	if (rw == 0 && rt == 0) {
		char *a = sbx_profile_to_json(&w), *c = sbx_profile_to_json(&t);

		if (!a || !c || strcmp(a, c) != 0)
			t_fail(__FILE__, __LINE__, "%s: different models:\n    %s\n    %s", what,
			       a ? a : "(null)", c ? c : "(null)");
		free(a);
		free(c);
	}
	sbx_profile_free(&w);
	sbx_profile_free(&t);
	sbx_profile_free(&b);
	if (rw == 0)
		accepted++;
	else
		refused++;
	return rw == 0;
}

static void differ_file(const char *path)
{
	struct sbx_diag d;
	char *buf;
	size_t len;

	if (sbx_read_file(path, &buf, &len, &d) == 0) {
		differ(path, buf, len);
		free(buf);
	}
}

static void differ_dir(const char *dir, const char *file)
{
	struct dirent *e;
	char path[4096];
	DIR *dh = opendir(dir);

	CHECK(dh != NULL);
	while (dh && (e = readdir(dh))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s%s%s", dir, e->d_name, file ? "/" : "",
			 file ? file : "");
		differ_file(path);
	}
	if (dh)
		closedir(dh);
}

TEST(wire_matches_tree_on_the_corpora)
{
	char dir[4096];

	accepted = refused = 0;
	snprintf(dir, sizeof(dir), "%s/../cli/bad", t_vectors_dir);
	differ_dir(dir, "input");
	/* Every bad input is refused, and by the jansson path with its words. */
	CHECK_INT(accepted, 0);
	CHECK(refused >= 80);
	snprintf(dir, sizeof(dir), "%s/../fuzz/corpus", t_vectors_dir);
	differ_dir(dir, NULL);
	CHECK(accepted >= 5);
}

/* ---- rewritings ----------------------------------------------------------------------------- */

static char *dump(const json_t *v, size_t flags)
{
	return json_dumps(v, flags | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
}

/* Every occurrence of from in s replaced by to (malloc'd). */
static char *replace_all(const char *s, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from), tl = strlen(to);
	char *out, *o;

	for (const char *p = s; (p = strstr(p, from)); p += fl)
		n++;
	out = malloc(strlen(s) + n * (tl > fl ? tl - fl : 0) + 1);
	if (!out)
		return NULL;
	for (o = out; *s;) {
		if (strncmp(s, from, fl) == 0) {
			memcpy(o, to, tl);
			o += tl;
			s += fl;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
	return out;
}

/* v with the members of every object in reverse order (a new reference). */
static json_t *reversed(const json_t *v)
{
	const char *keys[16];
	json_t *out, *x;
	size_t i, n = 0;

	if (json_is_array(v)) {
		out = json_array();
		json_array_foreach((json_t *)v, i, x) json_array_append_new(out, reversed(x));
		return out;
	}
	if (!json_is_object(v))
		return json_deep_copy(v);
	out = json_object();
	for (void *it = json_object_iter((json_t *)v); it && n < 16;
	     it = json_object_iter_next((json_t *)v, it))
		keys[n++] = json_object_iter_key(it);
	while (n-- > 0)
		json_object_set_new(out, keys[n], reversed(json_object_get(v, keys[n])));
	return out;
}

/* The same profile, written differently: the parser must accept each and load the same. */
static void same_meaning(const char *what, const json_t *v)
{
	char *compact = dump(v, JSON_COMPACT), *variants[6] = {0}, *tmp;
	json_t *rev = reversed(v);
	size_t n = 0;

	variants[n++] = dump(v, JSON_INDENT(3));
	variants[n++] = dump(rev, JSON_COMPACT);
	variants[n++] = dump(rev, JSON_INDENT(1));
	/* Escapes that decode to the same text: \/ in paths, \u0074 in the tag key. */
	variants[n++] = compact ? replace_all(compact, "/", "\\/") : NULL;
	variants[n++] = compact ? replace_all(compact, "\"type\"", "\"\\u0074ype\"") : NULL;
	/* JSON text has newlines only between tokens: CR LF and a tab there too. */
	tmp = dump(v, JSON_INDENT(2));
	variants[n++] = tmp ? replace_all(tmp, "\n", "\r\n\t") : NULL;
	free(tmp);
	for (size_t i = 0; i < n; i++) {
		if (!variants[i]) {
			t_fail(__FILE__, __LINE__, "out of memory");
			continue;
		}
		if (!differ(what, variants[i], strlen(variants[i])))
			t_fail(__FILE__, __LINE__, "%s: variant %zu refused: %s", what, i,
			       variants[i]);
		free(variants[i]);
	}
	json_decref(rev);
	free(compact);
}

/* The same profile, broken: refused, with the same words from both entry points. */
static void broken(const char *what, const json_t *v)
{
	char *t = dump(v, JSON_COMPACT), *b;
	size_t len = t ? strlen(t) : 0;

	if (!t)
		return;
	/* Every prefix is incomplete; every other cut point is checked once. */
	for (size_t cut = 0; cut < len; cut += cut < 64 ? 1 : 7)
		if (differ(what, t, cut))
			t_fail(__FILE__, __LINE__, "%s: the prefix of %zu bytes was accepted", what,
			       cut);
	b = replace_all(t, "{\"type\":", "{\"type\":\"x\",\"type\":");
	if (b && differ(what, b, strlen(b)))
		t_fail(__FILE__, __LINE__, "%s: a duplicate key was accepted", what);
	free(b);
	b = replace_all(t, "\"access\":\"", "\"access\":\"\\u0000");
	if (b && strcmp(b, t) && differ(what, b, strlen(b)))
		t_fail(__FILE__, __LINE__, "%s: a NUL was accepted", what);
	free(b);
	b = replace_all(t, "\"}", "\",\"x\":null}");
	if (b && strcmp(b, t) && differ(what, b, strlen(b)))
		t_fail(__FILE__, __LINE__, "%s: an unknown key was accepted", what);
	free(b);
	free(t);
}

static void rewrite_one(json_t *s, void *arg)
{
	char *text = vec_text(s);
	size_t *n = arg;

	/* Profiles with Codex's placeholders in paths are refused: rewritten, still refused. */
	if (text && differ(text, text, strlen(text))) {
		same_meaning(text, s);
		broken(text, s);
		(*n)++;
	}
	free(text);
}

TEST(wire_rewritings_of_every_profile)
{
	static const char *const builtins[] = {":read-only", ":workspace", ":danger-full-access"};
	json_t *all = vec_all_cases(), *v;
	size_t i, n = 0;

	accepted = refused = 0;
	json_array_foreach(all, i, v) vec_each_profile(v, rewrite_one, &n);
	for (size_t b = 0; b < 3; b++) {
		struct sbx_profile p;
		struct sbx_diag d;
		char *text;
		json_t *jv;

		CHECK_INT(sbx_profile_builtin(builtins[b], &p, &d), 0);
		text = sbx_profile_to_json(&p);
		jv = text ? json_loads(text, 0, NULL) : NULL;
		if (jv) {
			same_meaning(builtins[b], jv);
			broken(builtins[b], jv);
			n++;
		}
		json_decref(jv);
		free(text);
		sbx_profile_free(&p);
	}
	CHECK(n >= 10);
	CHECK(accepted >= 6 * n);
	json_decref(all);
}

/* Strings the emitter writes with escapes, and code points beyond the BMP as surrogate pairs. */
TEST(wire_strings)
{
	static const char *const ok[] = {
		"/caf\\u00e9/\\ud834\\udd1e",
		"/a\\tb\\\"c\\\\d\\/e\\u001f",
		"/\xf0\x9d\x84\x9e/\xc3\xa9/\x7f",
	};
	static const char *const bad[] = {
		"/a\\ud834", "/a\\udd1e", "/a\\ud834\\u0041", "/a\\u00",    "/a\\x41",
		"/a\x01",    "/a\xc3",	  "/a\xed\xa0\x80",   "/a\\u0000b", "/a\xf4\x90\x80\x80",
	};
	size_t n_ok = sizeof(ok) / sizeof(ok[0]), n_bad = sizeof(bad) / sizeof(bad[0]);
	char text[512];

	for (size_t i = 0; i < n_ok + n_bad; i++) {
		const char *path = i < n_ok ? ok[i] : bad[i - n_ok];

		snprintf(text, sizeof(text),
			 "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
			 "\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"%s\"},"
			 "\"access\":\"read\"}]},\"network\":\"restricted\"}",
			 path);
		if (differ(path, text, strlen(text)) != (i < n_ok))
			t_fail(__FILE__, __LINE__, "path %s: %s", path,
			       i < n_ok ? "refused" : "accepted");
	}
}

/* glob_scan_max_depth: an integer from 1 to 2048 as jansson reads one, null, or refused. */
TEST(wire_depth)
{
	static const char *const ok[] = {"1", "2048", "null", " 7 "};
	static const char *const bad[] = {
		"0", "2049", "-1", "01", "1.0", "1e1", "\"3\"", "true", "99999999999999999999"};
	char text[256];

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]) + sizeof(bad) / sizeof(bad[0]); i++) {
		bool good = i < sizeof(ok) / sizeof(ok[0]);
		const char *v = good ? ok[i] : bad[i - sizeof(ok) / sizeof(ok[0])];

		snprintf(text, sizeof(text),
			 "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
			 "\"entries\":"
			 "[],\"glob_scan_max_depth\":%s},\"network\":\"restricted\"}",
			 v);
		if (differ(v, text, strlen(text)) != good)
			t_fail(__FILE__, __LINE__, "depth %s: %s", v,
			       good ? "refused" : "accepted");
	}
}

/*
 * Paths as written, normal or not: the parser copies a plain normal path straight from the text
 * and normalizes any other, and either way loads what the jansson path loads.
 */
TEST(wire_paths_normal_or_not)
{
	static const char *const paths[] = {
		"/",	   "/a",     "/a/b",	     "/a//b", "/a/./b",
		"/a/../b", "/a/",    "/.",	     "/..",   "/a/.b",
		"/a/..b",  "/a/b/.", "/a/b/..",	     "//",    "/a/b/c/../../..",
		"/.a/.",   "/a\\/b", "/a/\\u002e/b",
	};
	char text[512];

	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++) {
		int n = snprintf(text, sizeof(text),
				 "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
				 "\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"%s\"},"
				 "\"access\":\"read\"}]},\"network\":\"restricted\"}",
				 paths[i]);

		CHECK(differ(paths[i], text, (size_t)n));
	}
	/*
	 * The plain path is checked sixteen bytes at a time: each of these at every offset from a
	 * block's start, and ending the path or followed by more of it.
	 */
	static const char *const parts[] = {
		"//",	   "/./",      "/../", "/.",	 "/..",	 "/",	  "\\\\",
		"\\\"",	   "\xc3\xa9", "/a.b", "/.a",	 "/..a", "/~z/",  "/a//",
		"\\u002f", "/a-b.c/",  "/.-",  "x./../", "-/.",	 "/x/..",
	};
	static const char fill[] = "/abcdefghijklmnopq";

	for (size_t i = 0; i < sizeof(parts) / sizeof(*parts); i++)
		for (int k = 0; k < 17; k++)
			for (int tail = 0; tail < 2; tail++) {
				int n = snprintf(
					text, sizeof(text),
					"{\"type\":\"managed\",\"file_system\":{\"type\":"
					"\"restricted\",\"entries\":[{\"path\":{\"type\":\"path\","
					"\"path\":\"%.*s%s%s\"},\"access\":\"read\"}]},\"network\":"
					"\"restricted\"}",
					k ? k : 1, fill, parts[i], tail ? "/xyzuvw0123456789" : "");

				differ(parts[i], text, (size_t)n);
			}
	/*
	 * The check reads nothing past the text: a path up to four blocks long, the text cut at
	 * every byte from its first to past its closing quote, each cut ending where a page that
	 * cannot be read begins.
	 */
	for (size_t len = 1; len < 72; len++) {
		static const char head[] =
			"{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
			"\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"";
		char path[72];
		int n;

		memset(path, 'a', len);
		for (size_t j = 0; j < len; j += 5)
			path[j] = '/';
		path[len] = '\0';
		n = snprintf(text, sizeof(text),
			     "%s%s\"},\"access\":\"read\"}]},\"network\":\"restricted\"}", head,
			     path);
		for (size_t cut = sizeof(head) - 1; cut <= sizeof(head) + len + 1; cut++)
			differ(path, memcpy(t_page_end(cut), text, cut), cut);
		CHECK(differ(path, memcpy(t_page_end((size_t)n), text, (size_t)n), (size_t)n));
	}
	/* And paths drawn from the bytes that make components: each read as jansson reads it. */
	srand(7);
	for (int i = 0; i < 20000; i++) {
		static const char alphabet[] = "/./.a-~";
		char path[48];
		int len = 1 + rand() % 40, n;

		path[0] = '/';
		for (int j = 1; j < len; j++)
			path[j] = alphabet[rand() % (int)(sizeof(alphabet) - 1)];
		path[len] = '\0';
		n = snprintf(text, sizeof(text),
			     "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
			     "\"entries\":[{\"path\":{\"type\":\"path\",\"path\":\"%s\"},"
			     "\"access\":\"read\"}]},\"network\":\"restricted\"}",
			     path);
		differ(path, text, (size_t)n);
	}
}

/*
 * An entry of a plain path in the emitter's order is read without the key tables (path_entry);
 * every variation of it (whitespace, another key order or key, an escape, a value of another
 * type, a repeat, text cut short) is read by the general walk or refused, and either way the
 * two paths agree with jansson's.
 */
TEST(wire_entry_forms)
{
	static const struct {
		const char *entry;
		bool ok;
	} forms[] = {
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"deny\"}", true},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"none\"}", true},
		{" {\"path\": {\"type\": \"path\", \"path\": \"/a/b\"}, \"access\": \"read\"}",
		 true},
		{"{\"path\": {\"type\": \"path\", \"path\": \"/a/b\"}, \"access\": \"read\", "
		 "\"missing_path_behavior\": null}",
		 true},
		{"{\"path\": {\"type\": \"path\", \"path\": \"/a//b\"}, \"access\": \"deny\"}",
		 true},
		{"{\"path\": {\"type\": \"path\", \"path\":\"/a/b\"},\"access\" :\"read\"}", true},
		{"{ \"path\" : { \"type\" : \"path\" , \"path\" : \"/a/b\" } , \"access\" : "
		 "\"read\" }",
		 true},
		{"{\n\t\"path\":\r\n{\"type\":\"path\",\"path\":\"/\"},\"access\":\"write\"\n}",
		 true},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"read\","
		 "\"missing_path_behavior\":\"skip\"}",
		 true},
		{"{\"access\":\"read\",\"path\":{\"type\":\"path\",\"path\":\"/a/b\"}}", true},
		{"{\"path\":{\"path\":\"/a/b\",\"type\":\"path\"},\"access\":\"read\"}", true},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/../b\"},\"access\":\"read\"}", true},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/\\u0062\"},\"access\":\"read\"}",
		 true},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"r\\u0065ad\"}",
		 true},
		{"{\"pa\\u0074h\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"read\"}",
		 true},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"read\",\"access\":"
		 "\"deny\"}",
		 false},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\",\"path\":\"/"
		 "c\"},\"access\":\"read\"}",
		 false},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"all\"}", false},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":1}", false},
		{"{\"path\":{\"type\":\"path\",\"path\":\"a/b\"},\"access\":\"read\"}", false},
		{"{\"path\":{\"type\":\"path\",\"path\":\"\"},\"access\":\"read\"}", false},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"},\"access\":\"read\"", false},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b\"}", false},
		{"{\"path\":{\"type\":\"path\",\"path\":\"/a/b", false},
	};
	char text[512], *at;
	int n;

	for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
		n = snprintf(text, sizeof(text),
			     "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
			     "\"entries\":[%s, %s]},\"network\":\"restricted\"}",
			     forms[i].entry, forms[i].entry);
		CHECK(differ(forms[i].entry, text, (size_t)n) == forms[i].ok);
	}
	/* The longest path taken as it stands, and one byte more (refused either way). */
	for (size_t len = SBX_MAX_PATH; len <= SBX_MAX_PATH + 1; len++) {
		char *big = malloc(len + 200);

		CHECK(big != NULL);
		if (!big)
			continue;
		at = big + sprintf(big, "{\"type\":\"managed\",\"file_system\":{\"type\":"
					"\"restricted\",\"entries\":[{\"path\":{\"type\":\"path\","
					"\"path\":\"");
		for (size_t k = 0; k < len; k++)
			*at++ = k % 8 ? 'x' : '/';
		at += sprintf(at, "\"},\"access\":\"read\"}]},\"network\":\"restricted\"}");
		CHECK(differ("a long path", big, (size_t)(at - big)) == (len <= SBX_MAX_PATH));
		free(big);
	}
}

/*
 * The paths of a loaded profile lie in its arena: many short ones across several blocks, a long
 * one in a block of its own, each read back whole. Planning takes the profile (its arena moves
 * with the entries) and materializing copies it (the copies are the plan's own): freeing each
 * leaves nothing behind and frees nothing twice, which the sanitizer build checks.
 */
TEST(wire_paths_in_the_arena)
{
	struct sbx_strbuf b = {0};
	struct sbx_profile p, copy;
	struct sbx_ctx ctx = {.cwd = "/ws", .platform = SBX_PLATFORM_LINUX};
	char path[3000];
	size_t n = 0;
	char *text;

	memset(path, 'x', sizeof(path));
	path[0] = '/';
	path[sizeof(path) - 1] = '\0';
	sbx_strbuf_puts(&b, "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
			    "\"entries\":[{\"path\":{\"type\":\"special\",\"value\":"
			    "{\"kind\":\"project_roots\"}},\"access\":\"write\"}");
	for (int i = 0; i < 2000; i++)
		sbx_strbuf_printf(&b,
				  ",{\"path\":{\"type\":\"path\",\"path\":\"/d/f%05d\"},"
				  "\"access\":\"read\"}",
				  i);
	sbx_strbuf_printf(&b, ",{\"path\":{\"type\":\"path\",\"path\":\"%s\"},\"access\":\"deny\"}",
			  path);
	sbx_strbuf_puts(&b, "]},\"network\":\"restricted\"}");
	text = sbx_strbuf_finish(&b, &n);
	CHECK(text != NULL);
	CHECK_INT(sbx_profile_load_wire(text, n, &p), 0);
	free(text);
	CHECK_INT(p.fs.n, 2002);
	for (int i = 0; i < 2000; i++) {
		char want[16];

		snprintf(want, sizeof(want), "/d/f%05d", i);
		CHECK(p.fs.entries[i + 1].pooled);
		CHECK_STR(p.fs.entries[i + 1].path, want);
	}
	CHECK(p.fs.entries[2001].pooled);
	CHECK_STR(p.fs.entries[2001].path, path);
	CHECK(!p.fs.entries[0].pooled);
	CHECK(p.fs.paths.head != NULL);

	/* A copy owns its paths: freeing the original first leaves it whole. */
	CHECK_INT(sbx_profile_materialize(&p, &ctx, &copy), 0);
	CHECK(!copy.fs.entries[1].pooled && copy.fs.paths.head == NULL);

	/* Taken: the entries move, their paths with them; the profile given up is left empty. */
	{
		struct sbx_profile planned;

		CHECK_INT(sbx_profile_materialize_take(&p, &ctx, &planned), 0);
		CHECK(p.fs.n == 0 && p.fs.paths.head == NULL);
		CHECK_INT(planned.fs.n, 2002);
		CHECK_STR(planned.fs.entries[0].path, "/ws");
		CHECK(planned.fs.entries[1].pooled);
		CHECK_STR(planned.fs.entries[2001].path, path);
		sbx_profile_free(&planned);
	}
	CHECK_STR(copy.fs.entries[2001].path, path);
	sbx_profile_free(&copy);
}
