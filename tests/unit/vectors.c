/* SPDX-License-Identifier: MIT */
/*
 * vectors.c - every vector of tests/vectors/ runs here, through one table and one loop.
 *
 * codex-vectors.json holds the input/expected pairs taken from Codex's model, unchanged.
 * sbxrun-vectors.json holds what sbxrun adds: its own cases (controls beside the Codex cases, and
 * cases of sbxrun's own), machine-readable restatements of the few Codex vectors written as
 * prose (same id, with "why"), and the vectors or areas it does not check (with "skip": why).
 *
 * The table below maps an area and an operation to the check that interprets it. The operation
 * is the vector's "op" (from either file), or else the first row of its area whose key ("?key")
 * the input has. Each vector then runs as a case of its own. A check understands every key of
 * the expected value or fails: nothing a vector says is silently ignored. A vector no row takes
 * fails, so a new vector is either checked or skipped with a reason; a new case is a JSON entry.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbpl.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

struct vcase {
	const char *id;
	json_t *in, *want; /* substituted */
};

/* ---- helpers ---------------------------------------------------------------------------- */

static const char *str(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* Fails the case for every key of want not in known (NULL-terminated). */
static void known_keys(const json_t *want, const char *const *known)
{
	const char *k;
	json_t *x;

	json_object_foreach((json_t *)want, k, x)
	{
		size_t i = 0;

		while (known[i] && strcmp(known[i], k) != 0)
			i++;
		if (!known[i])
			t_fail(__FILE__, __LINE__, "no check understands the expectation \"%s\"",
			       k);
	}
}

static bool load_profile(const json_t *pp, struct sbx_profile *p, enum sbx_input_form *form)
{
	char *text = vec_text(pp);
	struct sbx_diag d;
	int r = sbx_profile_load_buf(text, strlen(text), "vector", p, form, NULL, &d);

	if (r)
		t_fail(__FILE__, __LINE__, "profile %s: %s", text, d.msg);
	free(text);
	return r == 0;
}

static bool load_legacy(const json_t *v, struct sbx_legacy *l)
{
	char *text = vec_text(v);
	struct sbx_diag d;
	int r = sbx_legacy_load_buf(text, strlen(text), "vector", l, &d);

	if (r)
		t_fail(__FILE__, __LINE__, "legacy %s: %s", text, d.msg);
	free(text);
	return r == 0;
}

/* A file_system_policy and a network mode as the profile a runtime would hold. */
static bool profile_of_policy(const json_t *in, struct sbx_profile *p)
{
	memset(p, 0, sizeof(*p));
	if (vec_fs_policy(json_object_get(in, "file_system_policy"), &p->fs))
		return false;
	p->type = p->fs.kind == SBX_FS_EXTERNAL ? SBX_EXTERNAL : SBX_MANAGED;
	p->network = strcmp(str(in, "network") ?: "", "enabled") == 0;
	return true;
}

/* The context an input describes: "cwd" (default $CWD), "workspace_roots", "tmpdir". */
struct vctx {
	struct sbx_ctx ctx;
	const char *roots[8];
};

static void ctx_of(const json_t *in, struct vctx *v)
{
	json_t *roots = json_object_get(in, "workspace_roots"), *r;
	size_t i;

	v->ctx = vec_ctx(str(in, "cwd") ?: vec_cwd());
	v->ctx.tmpdir = str(in, "tmpdir");
	json_array_foreach(roots, i, r) if (v->ctx.n_workspace_roots < 8)
		v->roots[v->ctx.n_workspace_roots++] = json_string_value(r);
	if (v->ctx.n_workspace_roots)
		v->ctx.workspace_roots = v->roots;
}

/* Directories an input asks for ("mkdir": [...]) before the check. */
static void make_dirs(const json_t *in)
{
	json_t *d;
	size_t i;

	json_array_foreach(json_object_get(in, "mkdir"), i, d)
		CHECK_INT(vec_mkdir(json_string_value(d)), 0);
}

static json_t *jv_of(char *s)
{
	json_t *v = s ? json_loads(s, 0, NULL) : NULL;

	free(s);
	return v;
}

static enum sbx_access access_of(const char *s)
{
	if (!s)
		return (enum sbx_access) - 1;
	if (strcmp(s, "read") == 0)
		return SBX_READ;
	if (strcmp(s, "write") == 0)
		return SBX_WRITE;
	return strcmp(s, "deny") == 0 ? SBX_DENY : (enum sbx_access) - 1;
}

/* The argument of "name(ARG)" in an expectation key (placeholders substituted), or NULL. */
static char *key_arg(const char *key, const char *name)
{
	size_t n = strlen(name), len = strlen(key);
	char *raw, *out;

	if (strncmp(key, name, n) != 0 || key[n] != '(' || key[len - 1] != ')')
		return NULL;
	raw = strndup(key + n + 1, len - n - 2);
	/* resolve_access('/') quotes its argument. */
	if (raw && raw[0] == '\'' && strlen(raw) > 1 && raw[strlen(raw) - 1] == '\'') {
		memmove(raw, raw + 1, strlen(raw));
		raw[strlen(raw) - 1] = '\0';
	}
	out = raw ? vec_subst_str(raw) : NULL;
	free(raw);
	return out;
}

/* The rest of key after prefix (placeholders substituted), or NULL. */
static char *key_rest(const char *key, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(key, prefix, n) == 0 ? vec_subst_str(key + n) : NULL;
}

/* "<canonical X>" is X: the placeholder directories are canonical already. */
static char *uncanonical(const char *s)
{
	const char *end = strchr(s, '>');
	char *out = NULL;

	if (strncmp(s, "<canonical ", 11) != 0 || !end)
		return strdup(s);
	if (asprintf(&out, "%.*s%s", (int)(end - s - 11), s + 11, end + 1) < 0)
		return NULL;
	return out;
}

static bool str_in(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

static void check_str_list(const char *what, char **v, size_t n, const json_t *want)
{
	json_t *x;
	size_t i;

	if (n != json_array_size(want))
		t_fail(__FILE__, __LINE__, "%s: %zu paths, expected %zu", what, n,
		       json_array_size(want));
	json_array_foreach((json_t *)want, i, x)
	{
		char *p = uncanonical(json_string_value(x) ?: "");

		if (!p || !str_in(v, n, p))
			t_fail(__FILE__, __LINE__, "%s lack %s", what, p ? p : "?");
		free(p);
	}
}

static const struct sbx_writable_root *root_of(const struct sbx_roots *r, const char *p)
{
	for (size_t i = 0; i < r->n_writable; i++)
		if (strcmp(r->writable[i].root, p) == 0)
			return &r->writable[i];
	return NULL;
}

static bool protects_missing(const struct sbx_writable_root *w, const char *name)
{
	for (size_t i = 0; w && i < w->n_protected_missing; i++)
		if (strcmp(w->protected_missing[i], name) == 0)
			return true;
	return false;
}

/* Do two sets of roots protect the same paths the same way? */
static bool same_roots(const struct sbx_roots *a, const struct sbx_roots *b)
{
	if (a->full_read != b->full_read || a->full_write != b->full_write ||
	    a->n_readable != b->n_readable || a->n_writable != b->n_writable ||
	    a->n_unreadable != b->n_unreadable)
		return false;
	for (size_t i = 0; i < a->n_readable; i++)
		if (!str_in(b->readable, b->n_readable, a->readable[i]))
			return false;
	for (size_t i = 0; i < a->n_unreadable; i++)
		if (!str_in(b->unreadable, b->n_unreadable, a->unreadable[i]))
			return false;
	for (size_t i = 0; i < a->n_writable; i++) {
		const struct sbx_writable_root *x = &a->writable[i], *y = root_of(b, x->root);

		if (!y || x->n_read_only != y->n_read_only)
			return false;
		for (size_t j = 0; j < x->n_read_only; j++)
			if (!str_in(y->read_only, y->n_read_only, x->read_only[j]))
				return false;
	}
	return true;
}

/*
 * needs_direct_runtime_enforcement: the legacy projection cannot express the profile. sbxrun
 * always enforces the profile itself; what the vector says is checked as the projection either
 * failing or, projected back, protecting paths differently (the roots differ).
 */
static bool needs_direct(const struct sbx_profile *p, const struct sbx_ctx *ctx)
{
	struct sbx_legacy l;
	struct sbx_profile back;
	struct sbx_roots a, b;
	struct sbx_diag d;
	bool differ = true;

	sbx_diag_clear(&d);
	if (sbx_profile_to_legacy(p, ctx, &l, &d))
		return true;
	if (sbx_legacy_to_profile(&l, ctx, &back) == 0) {
		if (sbx_fs_roots(&p->fs, ctx, &a, &d) == 0) {
			if (sbx_fs_roots(&back.fs, ctx, &b, &d) == 0) {
				differ = !same_roots(&a, &b);
				sbx_roots_free(&b);
			}
			sbx_roots_free(&a);
		}
		sbx_profile_free(&back);
	}
	sbx_legacy_free(&l);
	return differ;
}

/* ---- should_require_platform_sandbox ---------------------------------------------------- */

static void check_requires_sandbox(const struct vcase *c)
{
	struct sbx_profile p;
	struct vctx v;
	bool managed = json_is_true(json_object_get(c->in, "has_managed_network_requirements"));
	bool want = json_is_true(c->want);

	CHECK(json_is_boolean(c->want));
	if (!profile_of_policy(c->in, &p))
		return;
	ctx_of(c->in, &v);
	CHECK_INT(sbx_should_require_platform_sandbox(&p, managed, &v.ctx), want);
	/* Auto follows the rule; Forbid and Require override it. */
	CHECK_INT(sbx_should_sandbox(&p, SBX_PREF_AUTO, managed, &v.ctx), want);
	CHECK(!sbx_should_sandbox(&p, SBX_PREF_FORBID, managed, &v.ctx));
	CHECK(sbx_should_sandbox(&p, SBX_PREF_REQUIRE, managed, &v.ctx));
	sbx_profile_free(&p);
}

static int pick(const char *s, const char *const *names)
{
	for (int i = 0; s && names[i]; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	t_fail(__FILE__, __LINE__, "unknown value \"%s\"", s ? s : "(null)");
	return 0;
}

/* select_initial: the platform's backend when a sandbox is wanted, else none. */
static enum sbx_sandbox select_initial(const struct sbx_profile *p, enum sbx_pref pref,
				       bool managed, enum sbx_platform pl,
				       enum sbx_windows_level level)
{
	struct sbx_ctx ctx = vec_ctx(vec_cwd());

	ctx.platform = pl;
	if (!sbx_should_sandbox(p, pref, managed, &ctx))
		return SBX_SANDBOX_NONE;
	return sbx_platform_sandbox(pl, level);
}

static void check_sandbox_choice(const struct vcase *c)
{
	static const char *const known[] = {"sandbox_type", "should_sandbox", "sandbox_by_platform",
					    NULL};
	static const char *const prefs[] = {"Auto", "Require", "Forbid", NULL};
	static const char *const platforms[] = {"linux", "macos", "windows", NULL};
	static const char *const levels[] = {"disabled", "restricted-token", "elevated", NULL};
	bool managed = json_is_true(json_object_get(c->in, "has_managed_network_requirements"));
	enum sbx_pref pref = (enum sbx_pref)pick(str(c->in, "pref") ?: "Auto", prefs);
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	struct sbx_profile p;
	json_t *row, *v;
	size_t i;

	known_keys(c->want, known);
	if (!load_profile(json_object_get(c->in, "permission_profile"), &p, NULL))
		return;
	if ((v = json_object_get(c->want, "sandbox_type"))) {
		/* "None": no platform, at any Windows level, picks a backend. */
		CHECK_STR(json_string_value(v), "None");
		for (int pl = SBX_PLATFORM_LINUX; pl <= SBX_PLATFORM_WINDOWS; pl++)
			CHECK_INT(select_initial(&p, pref, managed, pl, SBX_WIN_ELEVATED),
				  SBX_SANDBOX_NONE);
	}
	if ((v = json_object_get(c->want, "should_sandbox")))
		CHECK_INT(sbx_should_sandbox(&p, pref, managed, &ctx), json_is_true(v));
	json_array_foreach(json_object_get(c->want, "sandbox_by_platform"), i, row)
	{
		enum sbx_sandbox s = select_initial(
			&p, pref, managed,
			(enum sbx_platform)pick(json_string_value(json_array_get(row, 0)),
						platforms),
			(enum sbx_windows_level)pick(json_string_value(json_array_get(row, 1)),
						     levels));

		CHECK_STR(sbx_sandbox_name(s), json_string_value(json_array_get(row, 2)));
	}
	sbx_profile_free(&p);
}

/* ---- full_disk_access and precedence: predicates of one policy --------------------------- */

static void check_predicates(const struct vcase *c)
{
	struct sbx_profile p;
	struct sbx_roots r;
	struct sbx_diag d;
	struct vctx v;
	bool have_roots;
	const char *k;
	json_t *x;

	make_dirs(c->in);
	if (!profile_of_policy(c->in, &p))
		return;
	ctx_of(c->in, &v);
	sbx_diag_clear(&d);
	have_roots = sbx_fs_roots(&p.fs, &v.ctx, &r, &d) == 0;
	CHECK(have_roots);
	json_object_foreach(c->want, k, x)
	{
		const struct sbx_writable_root *w = have_roots ? root_of(&r, v.ctx.cwd) : NULL;
		char *arg = NULL;
		long who;

		if (strcmp(k, "has_full_disk_write_access") == 0) {
			CHECK_INT(sbx_fs_full_write(&p.fs, &v.ctx), json_is_true(x));
		} else if (strcmp(k, "has_full_disk_read_access") == 0) {
			CHECK_INT(sbx_fs_full_read(&p.fs, &v.ctx), json_is_true(x));
		} else if ((arg = key_arg(k, "resolve_access"))) {
			CHECK_INT(sbx_fs_resolve_access(&p.fs, &v.ctx, arg, NULL),
				  access_of(json_string_value(x)));
		} else if ((arg = key_arg(k, "decided_by"))) {
			sbx_fs_resolve_access(&p.fs, &v.ctx, arg, &who);
			CHECK_INT(who, json_integer_value(x));
		} else if ((arg = key_arg(k, "can_write"))) {
			CHECK_INT(sbx_fs_can_write(&p.fs, &v.ctx, arg), json_is_true(x));
		} else if (strcmp(k, "to_legacy_sandbox_policy") == 0) {
			struct sbx_legacy l;

			CHECK_STR(json_string_value(x), "Err");
			sbx_diag_clear(&d);
			CHECK_INT(sbx_profile_to_legacy(&p, &v.ctx, &l, &d), SBX_E_NO_LEGACY);
		} else if (strcmp(k, "needs_direct_runtime_enforcement") == 0) {
			CHECK_INT(needs_direct(&p, &v.ctx), json_is_true(x));
		} else if (strcmp(k, "readable_roots") == 0 && have_roots) {
			check_str_list(k, r.readable, r.n_readable, x);
		} else if (strcmp(k, "unreadable_roots") == 0 && have_roots) {
			check_str_list(k, r.unreadable, r.n_unreadable, x);
		} else if (strcmp(k, "writable_roots_count") == 0 && have_roots) {
			CHECK_INT(r.n_writable, json_integer_value(x));
		} else if (strcmp(k, "read_only_subpaths_count") == 0) {
			CHECK_INT(w ? w->n_read_only : 0, json_integer_value(x));
		} else if ((arg = key_rest(k, "protected_metadata_names contains "))) {
			/* The names whose creation is blocked under the cwd's writable root. */
			CHECK_INT(protects_missing(w, arg), json_is_true(x));
		} else if ((arg = key_rest(k, "read_only_subpaths contains "))) {
			CHECK_INT(w && str_in(w->read_only, w->n_read_only, arg), json_is_true(x));
		} else if (strcmp(k, "writable_roots") == 0 && have_roots) {
			json_t *e;
			size_t i;

			/*
			 * Codex's read_only_subpaths are, in sbxrun, the carve-outs that exist and
			 * the protected names that do not (whose creation is blocked).
			 */
			json_array_foreach(x, i, e)
			{
				char *root = uncanonical(str(e, "root") ?: "");
				char *sub =
					uncanonical(str(e, "read_only_subpaths_contains") ?: "");
				const struct sbx_writable_root *wr =
					root ? root_of(&r, root) : NULL;
				const char *slash = sub ? strrchr(sub, '/') : NULL;

				CHECK(wr != NULL);
				CHECK(wr && slash &&
				      (str_in(wr->read_only, wr->n_read_only, sub) ||
				       protects_missing(wr, slash + 1)));
				free(root);
				free(sub);
			}
		} else {
			t_fail(__FILE__, __LINE__, "no check understands the expectation \"%s\"",
			       k);
		}
		free(arg);
	}
	if (have_roots)
		sbx_roots_free(&r);
	sbx_profile_free(&p);
}

static void check_query(const struct vcase *c)
{
	static const char *const known[] = {"access", "decided_by", NULL};
	const json_t *acc = json_is_string(c->want) ? c->want : json_object_get(c->want, "access");
	json_t *who = json_object_get(c->want, "decided_by");
	struct sbx_profile p;
	struct vctx v;
	long idx;

	if (json_is_object(c->want))
		known_keys(c->want, known);
	if (!profile_of_policy(c->in, &p))
		return;
	ctx_of(c->in, &v);
	CHECK_INT(sbx_fs_resolve_access(&p.fs, &v.ctx, str(c->in, "query"), &idx),
		  access_of(json_string_value(acc)));
	if (who)
		CHECK_INT(idx, json_integer_value(who));
	sbx_profile_free(&p);
}

/* "A>B": true means A wins over B at equal depth, whatever order the entries come in. */
static void check_access_order(const struct vcase *c)
{
	struct sbx_ctx ctx = vec_ctx("/repo");
	const char *k;
	json_t *x;

	json_object_foreach(c->want, k, x)
	{
		const char *gt = strchr(k, '>');
		char *a = gt ? strndup(k, (size_t)(gt - k)) : NULL;
		enum sbx_access hi = access_of(a), lo = access_of(gt ? gt + 1 : NULL);

		CHECK(json_is_true(x) && gt && (int)hi >= 0 && (int)lo >= 0);
		CHECK(hi > lo);
		for (int order = 0; order < 2 && gt; order++) {
			struct sbx_fs fs = {0};

			sbx_fs_push_path(&fs, "/a", order ? hi : lo, false);
			sbx_fs_push_path(&fs, "/a", order ? lo : hi, false);
			CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, "/a/b", NULL), hi);
			sbx_fs_clear(&fs);
		}
		free(a);
	}
}

/* ---- serde ---------------------------------------------------------------------------------- */

/* What the helper is given: refused (with a message), or loaded as "loads_as". */
static void check_helper_input(const struct vcase *c)
{
	static const char *const known[] = {"exit_code", "stderr_contains", "loads_as", NULL};
	char *text = vec_text(json_object_get(c->in, "json"));
	json_t *as = json_object_get(c->want, "loads_as");
	struct sbx_profile p;
	struct sbx_diag d;
	int r;

	known_keys(c->want, known);
	/* The helper passes no legacy_out: whatever Codex's helper refuses, it refuses too. */
	r = sbx_profile_load_buf(text, strlen(text), "--permission-profile", &p, NULL, NULL, &d);
	if (as) {
		CHECK_INT(r, 0);
		if (!r) {
			json_t *got = jv_of(sbx_profile_to_json(&p));

			VEC_JSON_EQ(got, as);
			json_decref(got);
		}
	} else {
		/* Codex's exit status and serde wording are its own; sbxrun's are 125 and its own. */
		CHECK(json_integer_value(json_object_get(c->want, "exit_code")) != 0);
		CHECK(r < 0 && d.msg[0] != '\0');
	}
	sbx_profile_free(&p);
	free(text);
}

static void check_typed_json(const struct vcase *c)
{
	static const char *const special[] = {"deserialized", "reserialized", NULL};
	const char *type = str(c->in, "type") ?: "";
	json_t *in = json_object_get(c->in, "json"), *got = NULL;
	enum sbx_input_form form;
	struct sbx_profile p = {.type = SBX_MANAGED};
	struct sbx_diag d;

	if (strcmp(type, "FileSystemSpecialPath") == 0) {
		/*
		 * "deserialized" is Rust's debug text of the value: the model is checked through
		 * its re-emission, which writes the kind and any subpath it holds.
		 */
		json_t *entries = json_pack("[{s:{s:s,s:O},s:s}]", "path", "type", "special",
					    "value", in, "access", "read");

		known_keys(c->want, special);
		CHECK_INT(sbx_entries_load_jv(entries, "vector", "", &p.fs, &d), 0);
		CHECK_INT(p.fs.n, 1);
		if (p.fs.n == 1) {
			json_t *all = jv_of(sbx_profile_to_json(&p));

			got = json_object_get(
				json_object_get(
					json_array_get(
						json_object_get(json_object_get(all, "file_system"),
								"entries"),
						0),
					"path"),
				"value");
			VEC_JSON_EQ(got, json_object_get(c->want, "reserialized"));
			json_decref(all);
		}
		json_decref(entries);
	} else if (strcmp(type, "PermissionProfile") == 0) {
		if (load_profile(in, &p, &form)) {
			CHECK_INT(form, json_object_get(in, "type") ? SBX_FORM_PROFILE
								    : SBX_FORM_ROLLOUT);
			got = jv_of(sbx_profile_to_json(&p));
			VEC_JSON_EQ(got, c->want);
			json_decref(got);
		}
	} else {
		t_fail(__FILE__, __LINE__, "unknown type \"%s\"", type);
	}
	sbx_profile_free(&p);
}

static void check_legacy_serde(const struct vcase *c)
{
	static const char *const known[] = {"permission_profile", "to_legacy", NULL};
	struct sbx_legacy l;
	struct sbx_profile p;
	struct vctx v;
	json_t *got;

	known_keys(c->want, known);
	if (!load_legacy(json_object_get(c->in, "legacy_sandbox_policy"), &l))
		return;
	got = jv_of(sbx_legacy_to_json(&l));
	VEC_JSON_EQ(got, json_object_get(c->want, "to_legacy"));
	json_decref(got);
	ctx_of(c->in, &v);
	CHECK_INT(sbx_legacy_to_profile(&l, &v.ctx, &p), 0);
	got = jv_of(sbx_profile_to_json(&p));
	VEC_JSON_EQ(got, json_object_get(c->want, "permission_profile"));
	json_decref(got);
	sbx_profile_free(&p);
	sbx_legacy_free(&l);
}

/* FileSystemPermissions as the emitter writes it inside an additional profile. */
static void check_fs_permissions_emit(const struct vcase *c)
{
	static const char *const known[] = {"json", "has_keys_read_or_write", NULL};
	struct sbx_additional a = {.network = -1, .has_fs = true};
	json_t *got, *fs, *rw = json_object_get(c->want, "has_keys_read_or_write");

	known_keys(c->want, known);
	if (vec_fs_policy(json_object_get(c->in, "file_system_model"), &a.fs))
		return;
	got = vec_additional_jv(&a);
	fs = json_object_get(got, "file_system");
	VEC_JSON_EQ(fs, json_object_get(c->want, "json"));
	if (rw)
		CHECK_INT(json_object_get(fs, "read") || json_object_get(fs, "write"),
			  json_is_true(rw));
	json_decref(got);
	sbx_additional_free(&a);
}

/* A runtime's permissions with enforcement "disabled" are the disabled profile. */
static void check_runtime_permissions(const struct vcase *c)
{
	json_t *rt = json_object_get(c->in, "from_runtime_permissions_with_enforcement"), *got;
	struct sbx_profile p = {.type = SBX_DISABLED};

	CHECK_STR(str(rt, "enforcement"), "disabled");
	p.fs.kind = SBX_FS_UNRESTRICTED;
	p.network = strcmp(str(rt, "network") ?: "", "enabled") == 0;
	got = jv_of(sbx_profile_to_json(&p));
	VEC_JSON_EQ(got, c->want);
	json_decref(got);
}

/* ---- legacy_to_canonical and canonical_to_legacy ------------------------------------------- */

/* Is want an ordered subsequence of got (both arrays)? */
static bool subsequence(const json_t *got, const json_t *want)
{
	size_t j = 0;

	for (size_t i = 0; i < json_array_size(got) && j < json_array_size(want); i++)
		if (json_equal(json_array_get(got, i), json_array_get(want, j)))
			j++;
	return j == json_array_size(want);
}

static void check_legacy_to_profile(const struct vcase *c)
{
	static const char *const known[] = {
		"kind", "entries", "entries_in_order", "permission_profile", "materialized", NULL};
	json_t *pol = json_object_get(c->in, "sandbox_policy"), *got, *x, *na;
	struct sbx_legacy l;
	struct sbx_profile p, m;
	struct vctx v;

	known_keys(c->want, known);
	make_dirs(c->in);
	if (!load_legacy(pol, &l))
		return;
	ctx_of(c->in, &v);
	CHECK_INT(sbx_legacy_to_profile(&l, &v.ctx, &p), 0);
	CHECK_INT(p.type, l.type == SBX_LEGACY_DANGER_FULL_ACCESS ? SBX_DISABLED
			  : l.type == SBX_LEGACY_EXTERNAL_SANDBOX ? SBX_EXTERNAL
								  : SBX_MANAGED);
	na = json_object_get(pol, "network_access");
	if (json_is_boolean(na))
		CHECK_INT(p.network, json_is_true(na));
	if ((x = json_object_get(c->want, "kind")))
		CHECK_STR(json_string_value(x), "restricted");
	if ((x = json_object_get(c->want, "kind")))
		CHECK_INT(p.fs.kind, SBX_FS_RESTRICTED);
	got = vec_entries_jv(&p.fs);
	if ((x = json_object_get(c->want, "entries")))
		VEC_JSON_EQ(got, x);
	/* A vector showing one step of the projection: its entries, in order, among the rest. */
	if ((x = json_object_get(c->want, "entries_in_order")) && !subsequence(got, x))
		VEC_JSON_EQ(got, x);
	json_decref(got);
	if ((x = json_object_get(c->want, "permission_profile"))) {
		got = jv_of(sbx_profile_to_json(&p));
		VEC_JSON_EQ(got, x);
		json_decref(got);
	}
	if ((x = json_object_get(c->want, "materialized"))) {
		CHECK_INT(sbx_profile_materialize(&p, &v.ctx, &m), 0);
		got = jv_of(sbx_profile_to_json(&m));
		VEC_JSON_EQ(got, x);
		json_decref(got);
		sbx_profile_free(&m);
	}
	sbx_profile_free(&p);
	sbx_legacy_free(&l);
}

static void check_profile_to_legacy(const struct vcase *c)
{
	struct sbx_profile p;
	struct sbx_legacy l;
	struct sbx_diag d;
	struct vctx v;
	json_t *x, *got;

	if (!profile_of_policy(c->in, &p))
		return;
	ctx_of(c->in, &v);
	sbx_diag_clear(&d);
	if (json_object_get(c->want, "error_kind")) {
		static const char *const known[] = {"error_kind", "message", NULL};

		known_keys(c->want, known);
		CHECK_INT(sbx_profile_to_legacy(&p, &v.ctx, &l, &d), SBX_E_NO_LEGACY);
		CHECK_STR(d.msg, str(c->want, "message"));
	} else if (json_object_get(c->want, "type")) {
		CHECK_INT(sbx_profile_to_legacy(&p, &v.ctx, &l, &d), 0);
		got = jv_of(sbx_legacy_to_json(&l));
		VEC_JSON_EQ(got, c->want);
		json_decref(got);
		sbx_legacy_free(&l);
	} else {
		static const char *const known[] = {"needs_direct_runtime_enforcement", "to_legacy",
						    "compat", NULL};

		known_keys(c->want, known);
		if ((x = json_object_get(c->want, "needs_direct_runtime_enforcement")))
			CHECK_INT(needs_direct(&p, &v.ctx), json_is_true(x));
		if ((x = json_object_get(c->want, "to_legacy"))) {
			CHECK_STR(json_string_value(x), "Err");
			CHECK_INT(sbx_profile_to_legacy(&p, &v.ctx, &l, &d), SBX_E_NO_LEGACY);
		}
		if ((x = json_object_get(c->want, "compat"))) {
			CHECK_INT(sbx_profile_compat_legacy(&p, &v.ctx, &l), 0);
			got = jv_of(sbx_legacy_to_json(&l));
			VEC_JSON_EQ(got, x);
			json_decref(got);
			sbx_legacy_free(&l);
		}
	}
	sbx_profile_free(&p);
}

/* ---- merge_intersect ------------------------------------------------------------------------ */

static void check_normalize(const struct vcase *c)
{
	struct sbx_additional a;
	struct sbx_diag d;
	json_t *got, *err = json_object_get(c->want, "error");

	/* What normalize refuses the loader refuses too, in its own words: built raw then. */
	if ((err ? vec_additional_raw : vec_additional)(json_object_get(c->in, "additional"), &a))
		return;
	sbx_diag_clear(&d);
	if (err) {
		CHECK_INT(sbx_additional_normalize(&a, &d), SBX_E_INVALID);
		CHECK_STR(d.msg, json_string_value(err));
	} else {
		CHECK_INT(sbx_additional_normalize(&a, &d), 0);
		got = vec_additional_jv(&a);
		VEC_JSON_EQ(got, c->want);
		json_decref(got);
	}
	sbx_additional_free(&a);
}

static void check_materialize_additional(const struct vcase *c)
{
	struct sbx_additional a, m;
	struct vctx v;
	json_t *got;

	if (vec_additional(json_object_get(c->in, "additional"), &a))
		return;
	ctx_of(c->in, &v);
	CHECK_INT(sbx_additional_materialize(&a, &v.ctx, &m), 0);
	got = vec_additional_jv(&m);
	VEC_JSON_EQ(got, c->want);
	json_decref(got);
	sbx_additional_free(&a);
	sbx_additional_free(&m);
}

static void check_intersect(const struct vcase *c)
{
	json_t *gr = json_object_get(c->in, "granted"), *w, *got;
	struct sbx_additional r, g, out;
	struct vctx v;

	ctx_of(c->in, &v);
	if (vec_additional(json_object_get(c->in, "requested"), &r))
		return;
	/* A string grant is "same as requested". */
	if (vec_additional(json_is_string(gr) ? json_object_get(c->in, "requested") : gr, &g)) {
		sbx_additional_free(&r);
		return;
	}
	CHECK_INT(sbx_additional_intersect(&r, &g, &v.ctx, &out), 0);
	got = vec_additional_jv(&out);
	/*
	 * "then" and "note" are prose; where they state a result, sbxrun-vectors.json has it as
	 * a case of its own (mi-08.then).
	 */
	w = json_deep_copy(c->want);
	json_object_del(w, "then");
	json_object_del(w, "note");
	VEC_JSON_EQ(got, w);
	json_decref(w);
	json_decref(got);
	sbx_additional_free(&r);
	sbx_additional_free(&g);
	sbx_additional_free(&out);
}

static void check_effective_fs(const struct vcase *c)
{
	static const char *const known[] = {"entries_contain", "entries", "kind", NULL};
	struct sbx_profile base = {.type = SBX_MANAGED}, eff;
	struct sbx_additional a, *ap = NULL;
	json_t *add = json_object_get(c->in, "additional"), *got, *e, *x;
	size_t i;

	known_keys(c->want, known);
	if (vec_fs_policy(json_object_get(c->in, "base"), &base.fs))
		return;
	if (!json_is_null(add)) {
		/* The additional value is a FileSystemPermissions object here. */
		json_t *w = json_pack("{s:O}", "file_system", add);

		CHECK_INT(vec_additional(w, &a), 0);
		json_decref(w);
		ap = &a;
	}
	CHECK_INT(sbx_profile_effective(&base, ap, &eff), 0);
	got = vec_entries_jv(&eff.fs);
	if ((x = json_object_get(c->want, "entries")))
		VEC_JSON_EQ(got, x);
	if ((x = json_object_get(c->want, "kind")))
		CHECK(strcmp(json_string_value(x) ?: "", "restricted") == 0 &&
		      eff.fs.kind == SBX_FS_RESTRICTED);
	json_array_foreach(json_object_get(c->want, "entries_contain"), i, e)
	{
		bool found = false;
		size_t j;

		json_array_foreach(got, j, x) found = found || json_equal(x, e);
		if (!found) {
			char *t = vec_text(e);

			t_fail(__FILE__, __LINE__, "effective entries lack %s", t);
			free(t);
		}
	}
	json_decref(got);
	sbx_profile_free(&base);
	sbx_profile_free(&eff);
	if (ap)
		sbx_additional_free(ap);
}

static void check_effective_profile(const struct vcase *c)
{
	struct sbx_profile p, eff;
	struct sbx_additional a;
	json_t *got;

	if (!load_profile(json_object_get(c->in, "permission_profile"), &p, NULL))
		return;
	if (!vec_additional(json_object_get(c->in, "additional"), &a)) {
		CHECK_INT(sbx_profile_effective(&p, &a, &eff), 0);
		got = jv_of(sbx_profile_to_json(&eff));
		VEC_JSON_EQ(got, c->want);
		json_decref(got);
		sbx_profile_free(&eff);
		sbx_additional_free(&a);
	}
	sbx_profile_free(&p);
}

static void check_merge(const struct vcase *c)
{
	struct sbx_additional b, e, out;
	json_t *got, *w;

	if (vec_additional(json_object_get(c->in, "base"), &b))
		return;
	if (!vec_additional(json_object_get(c->in, "permissions"), &e)) {
		CHECK_INT(sbx_additional_merge(&b, &e, &out), 0);
		got = vec_additional_jv(&out);
		/* "network": null is the absent network, which the wire form leaves out. */
		w = json_deep_copy(c->want);
		if (json_is_null(json_object_get(w, "network")))
			json_object_del(w, "network");
		VEC_JSON_EQ(got, w);
		json_decref(w);
		json_decref(got);
		sbx_additional_free(&e);
		sbx_additional_free(&out);
	}
	sbx_additional_free(&b);
}

/*
 * with_managed_mitm_ca_readable_root: sbxrun has no managed proxy; the same result is the
 * effective profile with the CA bundle as an additional read, which is what a caller does.
 */
static void check_ca_root(const struct vcase *c)
{
	static const char *const known[] = {"file_system_policy", NULL};
	struct sbx_additional a = {.network = -1, .has_fs = true};
	json_t *want = json_object_get(c->want, "file_system_policy"), *got;
	struct sbx_profile p, eff;

	known_keys(c->want, known);
	if (!load_profile(json_object_get(c->in, "permission_profile"), &p, NULL))
		return;
	sbx_fs_push_path(&a.fs, str(c->in, "ca_bundle"), SBX_READ, false);
	CHECK_INT(sbx_profile_effective(&p, &a, &eff), 0);
	CHECK_STR(str(want, "kind"), "restricted");
	CHECK_INT(eff.fs.kind, SBX_FS_RESTRICTED);
	got = vec_entries_jv(&eff.fs);
	VEC_JSON_EQ(got, json_object_get(want, "entries"));
	CHECK_INT(eff.network, p.network);
	json_decref(got);
	sbx_profile_free(&p);
	sbx_profile_free(&eff);
	sbx_additional_free(&a);
}

/* ---- glob_and_materialize ------------------------------------------------------------------- */

static void check_materialize(const struct vcase *c)
{
	static const char *const known[] = {"kind", "entries", NULL};
	struct sbx_fs fs, out;
	struct vctx v;
	json_t *got;

	known_keys(c->want, known);
	if (vec_fs_policy(json_object_get(c->in, "policy"), &fs))
		return;
	ctx_of(c->in, &v);
	/* With workspace roots, the first is where the policy is evaluated. */
	if (v.ctx.n_workspace_roots)
		v.ctx.cwd = v.roots[0];
	CHECK_INT(sbx_fs_materialize(&fs, &v.ctx, &out), 0);
	CHECK_STR(str(c->want, "kind"), "restricted");
	CHECK_INT(out.kind, SBX_FS_RESTRICTED);
	got = vec_entries_jv(&out);
	VEC_JSON_EQ(got, json_object_get(c->want, "entries"));
	json_decref(got);
	sbx_fs_clear(&fs);
	sbx_fs_clear(&out);
}

static void check_glob_matcher(const struct vcase *c)
{
	const char *pat = str(c->in, "glob"), *path;
	json_t *x;

	CHECK(json_object_size(c->want) >= 1);
	json_object_foreach(c->want, path, x)
	{
		char *sp = vec_subst_str(path); /* keys are not substituted by vec_subst */

		if (sbx_glob_match(pat, sp) != json_is_true(x))
			t_fail(__FILE__, __LINE__, "glob %s on %s should be %s", pat, sp,
			       json_is_true(x) ? "true" : "false");
		free(sp);
	}
}

/*
 * A deny on a directory also covers a symbolic link to it. sbxrun's checks are lexical; the
 * platforms enforce on the object (Landlock and mounts see the target), which is the canonical
 * path: that path is denied, and, the control, a path beside it is not.
 */
static void check_symlinked_deny(const struct vcase *c)
{
	const char *real = str(c->in, "deny_path"), *query = str(c->in, "query");
	const char *arrow = strstr(str(c->in, "symlink") ?: "", " -> ");
	char *alias =
		arrow ? strndup(str(c->in, "symlink"), (size_t)(arrow - str(c->in, "symlink")))
		      : NULL;
	char *secret = NULL, canon[PATH_MAX];
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	struct sbx_fs fs = {0};

	CHECK(json_is_true(c->want) && real && query && alias);
	if (!real || !query || !alias || asprintf(&secret, "%s/secret.txt", real) < 0)
		goto out;
	CHECK_STR(arrow + 4, real);
	CHECK_INT(vec_mkfile(secret, "s"), 0);
	CHECK_INT(symlink(real, alias), 0);
	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&fs, real, SBX_DENY, false);
	CHECK(realpath(query, canon) != NULL);
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, canon, NULL), SBX_DENY);
	CHECK_INT(sbx_fs_resolve_access(&fs, &ctx, "/etc", NULL), SBX_READ);
	unlink(alias);
	sbx_fs_clear(&fs);
	free(secret);
out:
	free(alias);
}

/* ---- environment_context -------------------------------------------------------------------- */

static void check_context(const struct vcase *c)
{
	static const char *const known[] = {"cwd",
					    "shell",
					    "current_date",
					    "timezone",
					    "filesystem",
					    "network",
					    "permission_profile",
					    "workspace_roots",
					    "no environments",
					    "default_permissions",
					    NULL};
	const char *builtin = str(c->in, "default_permissions"), *cwd = str(c->in, "cwd");
	json_t *pp = json_object_get(c->in, "permission_profile"), *r;
	struct sbx_context_in in = {0};
	struct sbx_profile p = {0};
	const char *roots[8];
	char *got, *mark, *cwd_copy = cwd ? strdup(cwd) : NULL;
	struct sbx_diag d;
	size_t i, n = 0;
	bool have = false;

	known_keys(c->in, known);
	CHECK(json_is_string(c->want));
	/* "(foreign)" marks a cwd of another platform, rendered as written. */
	if (cwd_copy && (mark = strstr(cwd_copy, " (foreign)")))
		*mark = '\0';
	/* "filesystem": null and "network": null are the absent lines; nothing sets them. */
	CHECK(json_is_null(json_object_get(c->in, "filesystem")) ||
	      !json_object_get(c->in, "filesystem"));
	json_array_foreach(json_object_get(c->in, "workspace_roots"), i, r) if (n < 8) roots[n++] =
		json_string_value(r);
	if (builtin) {
		have = sbx_profile_builtin(builtin, &p, &d) == 0;
		CHECK(have);
		roots[n++] = cwd_copy;
	} else if (pp) {
		have = load_profile(pp, &p, NULL);
	}
	if (have && (builtin || !cwd_copy)) {
		/* Only the <filesystem> element: the workspace roots are the cwd or as given. */
		got = sbx_context_filesystem(&p, roots, n);
	} else {
		in.cwd = cwd_copy;
		in.shell = str(c->in, "shell");
		in.current_date = str(c->in, "current_date");
		in.timezone = str(c->in, "timezone");
		in.profile = have ? &p : NULL;
		in.workspace_roots = roots;
		in.n_workspace_roots = n;
		got = sbx_context_render(&in);
	}
	if (!got || strcmp(got, json_string_value(c->want) ?: "") != 0)
		t_fail(__FILE__, __LINE__, "\n    got:  %s\n    want: %s", got ? got : "(null)",
		       json_string_value(c->want) ?: "(null)");
	free(got);
	free(cwd_copy);
	sbx_profile_free(&p);
}

/* ---- seatbelt ------------------------------------------------------------------------------- */

static void check_seatbelt_glob(const struct vcase *c)
{
	const char *match = str(c->in, "match");
	struct sbx_diag d;
	char *re = NULL;

	sbx_diag_clear(&d);
	CHECK_INT(sbx_sbpl_glob_regex(str(c->in, "glob"),
				      match && strcmp(match, "Exact") == 0 ? SBX_SBPL_GLOB_EXACT
									   : SBX_SBPL_GLOB_SUBTREE,
				      &re, &d),
		  0);
	CHECK_STR(re, str(c->want, "regex"));
	free(re);
}

/* ---- managed networking ------------------------------------------------------------------- */

/* The error expectations every managed-network check understands. */
static void check_error(const struct vcase *c, int r, const struct sbx_diag *d)
{
	const char *has = str(c->want, "error_contains"), *lacks = str(c->want, "error_lacks");
	const char *hint = str(c->want, "hint_contains");
	json_t *line = json_object_get(c->want, "line"), *col = json_object_get(c->want, "col");

	if (r >= 0) {
		t_fail(__FILE__, __LINE__, "accepted; expected the error \"%s\"", has ? has : "");
		return;
	}
	if (has && !strstr(d->msg, has))
		t_fail(__FILE__, __LINE__, "error \"%s\" lacks \"%s\"", d->msg, has);
	if (lacks && (strstr(d->msg, lacks) || strstr(d->hint, lacks)))
		t_fail(__FILE__, __LINE__, "error \"%s\" (hint \"%s\") shows \"%s\"", d->msg,
		       d->hint, lacks);
	if (hint && !strstr(d->hint, hint))
		t_fail(__FILE__, __LINE__, "hint \"%s\" lacks \"%s\"", d->hint, hint);
	if (line)
		CHECK_INT(d->line, json_integer_value(line));
	if (col)
		CHECK_INT(d->col, json_integer_value(col));
	if (str(c->want, "pointer"))
		CHECK_STR(d->pointer, str(c->want, "pointer"));
}

static const char *const error_keys[] = {
	"error_contains", "error_lacks", "hint_contains", "line", "col", "pointer", NULL};

/*
 * A case expects an error (checked here) or success with the keys of known: true when it
 * succeeded as expected and the caller goes on to check what it got.
 */
static bool succeeded(const struct vcase *c, const char *const *known, int r,
		      const struct sbx_diag *d)
{
	if (json_object_get(c->want, "error_contains")) {
		known_keys(c->want, error_keys);
		check_error(c, r, d);
		return false;
	}
	known_keys(c->want, known);
	if (r)
		t_fail(__FILE__, __LINE__, "refused: %s", d->msg);
	return r == 0;
}

static json_t *ports_jv(const unsigned *ports, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer(ports[i]));
	return a;
}

/* The proxies of an environment: {"env":["NAME=VALUE",...]}. */
static void check_proxy_env(const struct vcase *c)
{
	static const char *const known[] = {"proxies", "ports", NULL};
	json_t *env = json_object_get(c->in, "env"), *x, *got;
	struct sbx_proxies px;
	struct sbx_diag d;
	unsigned ports[2 * SBX_PROXY_VARS_N];
	char **v = calloc(json_array_size(env) + 1, sizeof(*v));
	size_t i;
	int r;

	json_array_foreach(env, i, x) v[i] = (char *)json_string_value(x);
	sbx_diag_clear(&d);
	r = sbx_proxies_from_env(v, &px, &d);
	free(v);
	if (!succeeded(c, known, r, &d))
		return;
	if (json_object_get(c->want, "proxies")) {
		got = json_array();
		for (i = 0; i < px.n; i++)
			json_array_append_new(
				got, json_pack("{s:s, s:s, s:s, s:i}", "var", px.v[i].var, "scheme",
					       sbx_proxy_scheme_name(px.v[i].scheme), "host",
					       px.v[i].host, "port", (int)px.v[i].port));
		VEC_JSON_EQ(got, json_object_get(c->want, "proxies"));
		json_decref(got);
	}
	if (json_object_get(c->want, "ports")) {
		got = ports_jv(ports, sbx_proxies_ports(&px, ports));
		VEC_JSON_EQ(got, json_object_get(c->want, "ports"));
		json_decref(got);
	}
}

/* Codex's ManagedNetworkSandboxContext: {"context_json":"TEXT"}. */
static void check_managed_ctx(const struct vcase *c)
{
	static const char *const known[] = {"loopback_ports", "allow_local_binding",
					    "allow_all_unix_sockets", NULL};
	const char *text = str(c->in, "context_json");
	struct sbx_managed_ctx m;
	struct sbx_diag d;
	json_t *got;
	int r = sbx_managed_ctx_load_buf(text, strlen(text), "--managed-network", &m, &d);

	if (!succeeded(c, known, r, &d))
		return;
	got = json_pack("{s:o, s:b, s:b}", "loopback_ports", ports_jv(m.ports, m.n_ports),
			"allow_local_binding", m.allow_local_binding, "allow_all_unix_sockets",
			m.allow_all_unix_sockets);
	VEC_JSON_EQ(got, c->want);
	json_decref(got);
}

/* A path of the Unix socket allow-list: the normalized path, or null when it is refused. */
static void check_unix_socket(const struct vcase *c)
{
	const char *fn = str(c->in, "function");
	const char *path = str(c->in, "path") ?: str(c->in, "unix_socket_path");
	struct sbx_diag d;
	char *out = NULL;
	int r;

	if (fn && strcmp(fn, "normalize_path_for_sandbox") != 0) {
		t_fail(__FILE__, __LINE__, "no check for the function %s", fn);
		return;
	}
	sbx_diag_clear(&d);
	r = sbx_unix_socket_normalize(path, &out, &d);
	if (json_is_null(c->want)) {
		CHECK_INT(r, SBX_E_INVALID);
		CHECK(d.msg[0] != '\0');
	} else {
		CHECK_INT(r, 0);
		CHECK_STR(out, json_string_value(c->want));
	}
	free(out);
}

/*
 * The -D parameters of the allow-list in a macOS policy (vector sb-08): the sockets given to
 * the planner, through the attacher and the generator, with the network restricted.
 */
static void check_socket_params(const struct vcase *c)
{
	static const char *const known[] = {"params", NULL};
	json_t *list = json_object_get(c->in, "unix_socket_allowlist"), *x, *got = json_array(),
	       *want;
	const char **paths = calloc(json_array_size(list) + 1, sizeof(*paths));
	struct sbx_ctx ctx = vec_ctx(vec_cwd());
	struct sbx_net_opts o = {.unix_sockets = paths, .n_unix_sockets = json_array_size(list)};
	struct sbx_profile prof = {0};
	struct sbx_plan plan = {0};
	struct sbx_sbpl sb = {0};
	struct sbx_diag d;
	size_t i;

	known_keys(c->want, known);
	json_array_foreach(list, i, x) paths[i] = json_string_value(x);
	ctx.platform = SBX_PLATFORM_MACOS;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_profile_builtin(":read-only", &prof, &d), 0);
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan, &d),
		  0);
	CHECK_INT(sbx_plan_network(&plan, &o, &d), 0);
	CHECK_INT(sbx_plan_attach_macos(&plan, true), 0);
	CHECK(sbx_plan_enforceable(&plan));
	CHECK_INT(sbx_sbpl_build(&plan, &ctx, &sb, &d), 0);
	for (i = 0; i < sb.n_params; i++) {
		const char *eq = strchr(sb.params[i], '=');

		if (strncmp(sb.params[i], "UNIX_SOCKET_PATH_", 17) == 0)
			json_array_append_new(got, json_pack("[s#, s]", sb.params[i],
							     (int)(eq - sb.params[i]), eq + 1));
	}
	/* The expected paths as this host names them: /tmp is /private/tmp on macOS. */
	want = json_deep_copy(json_object_get(c->want, "params"));
	json_array_foreach(want, i, x)
	{
		char *real = NULL;

		if (sbx_sbpl_write_root(json_string_value(json_array_get(x, 1)), &real, NULL) == 0)
			json_array_set_new(x, 1, json_string(real));
		free(real);
	}
	VEC_JSON_EQ(got, want);
	json_decref(got);
	json_decref(want);
	sbx_sbpl_free(&sb);
	sbx_plan_free(&plan);
	sbx_profile_free(&prof);
	free(paths);
}

/* ---- the table and the loop ----------------------------------------------------------------- */

static const struct {
	const char *area;
	/* The vector's operation; "?key": no operation, and the input has that key; "op?key": both. */
	const char *op;
	void (*check)(const struct vcase *c);
} checks[] = {
	{"should_require_platform_sandbox", "?file_system_policy", check_requires_sandbox},
	{"should_require_platform_sandbox", "?permission_profile", check_sandbox_choice},
	{"full_disk_access", "?file_system_policy", check_predicates},
	{"precedence", "?query", check_query},
	{"precedence", "?access_mode_order", check_access_order},
	{"precedence", "?file_system_policy", check_predicates},
	{"serde", "?helper_arg", check_helper_input},
	{"serde", "?type", check_typed_json},
	{"serde", "?legacy_sandbox_policy", check_legacy_serde},
	{"serde", "?file_system_model", check_fs_permissions_emit},
	{"serde", "?from_runtime_permissions_with_enforcement", check_runtime_permissions},
	{"legacy_to_canonical", "?sandbox_policy", check_legacy_to_profile},
	{"canonical_to_legacy", "?file_system_policy", check_profile_to_legacy},
	{"merge_intersect", "normalize_additional_permissions", check_normalize},
	{"merge_intersect", "materialize_additional_permissions", check_materialize_additional},
	{"merge_intersect", "intersect", check_intersect},
	{"merge_intersect", "merge_file_system_policy_with_additional_permissions",
	 check_effective_fs},
	{"merge_intersect", "effective_file_system_sandbox_policy", check_effective_fs},
	{"merge_intersect", "transform(additional_permissions)", check_effective_profile},
	{"merge_intersect", "merge_permission_profiles (union)", check_merge},
	{"merge_intersect", "with_managed_mitm_ca_readable_root", check_ca_root},
	{"glob_and_materialize", "materialize_project_roots_with_workspace_roots",
	 check_materialize},
	{"glob_and_materialize", "materialize_project_roots_with_cwd", check_materialize},
	{"glob_and_materialize", "ReadDenyMatcher?glob", check_glob_matcher},
	{"glob_and_materialize", "ReadDenyMatcher?symlink", check_symlinked_deny},
	{"environment_context", "?", check_context},
	{"seatbelt", "?glob", check_seatbelt_glob},
	{"seatbelt", "?unix_socket_allowlist", check_socket_params},
	{"seatbelt", "?function", check_unix_socket},
	{"managed_network", "?env", check_proxy_env},
	{"managed_network", "?context_json", check_managed_ctx},
	{"managed_network", "?unix_socket_path", check_unix_socket},
};

/* The row of the table that takes vector v, or -1. */
static int row_for(const json_t *v)
{
	const char *area = str(v, "area") ?: "";
	json_t *in = json_object_get(v, "input");
	const char *op = str(v, "op") ?: str(in, "op");

	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const char *want = checks[i].op, *key = strchr(want, '?');
		size_t n = key ? (size_t)(key - want) : strlen(want);

		if (strcmp(checks[i].area, area) != 0)
			continue;
		if (n ? !op || strlen(op) != n || strncmp(op, want, n) != 0 : op != NULL)
			continue;
		if (!key || !key[1] || json_object_get(in, key + 1))
			return (int)i;
	}
	return -1;
}

static void run_case(void *arg)
{
	const json_t *v = arg;
	int row = row_for(v);
	struct vcase c = {.id = str(v, "id")};

	if (row < 0) {
		t_fail(__FILE__, __LINE__, "no check for area \"%s\", operation \"%s\"",
		       str(v, "area") ?: "?",
		       str(v, "op") ?: str(json_object_get(v, "input"), "op") ?: "(none)");
		return;
	}
	/* Each case gets fresh directories for $FRESH and $FRESH2. */
	vec_fresh_reset();
	c.in = vec_subst(json_object_get(v, "input"));
	c.want = vec_subst(json_object_get(v, "expected"));
	checks[row].check(&c);
	json_decref(c.in);
	json_decref(c.want);
}

TEST(vectors)
{
	json_t *all = vec_all_cases(), *v;
	size_t i, checked = 0, skip = 0;

	CHECK(all != NULL);
	json_array_foreach(all, i, v)
	{
		if (str(v, "skip")) {
			skip++;
			continue;
		}
		t_case(str(v, "id") ?: "?", run_case, v);
		checked++;
	}
	/* As many vectors as before they ran from one table: 70 Codex vectors, and sbxrun's. */
	CHECK(checked >= 70);
	printf("vectors: %zu checked, %zu skipped (see sbxrun-vectors.json)\n", checked, skip);
	json_decref(all);
}
