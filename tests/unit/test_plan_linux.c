/* SPDX-License-Identifier: MIT */
/*
 * Which Linux mechanism the planner picks for each requirement: the cases of tests/plan/linux
 * (host facts, a file system of facts, a profile, the expected requirements) run by one loop;
 * a new case is a directory of three JSON files. Then the facts assumed off Linux, the names of
 * the mechanisms, and links on a real tree.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakefs.h"
#include "plancase.h"
#include "sbx.h"
#include "t.h"

static const char *status_name(enum sbx_req_status s)
{
	return s == SBX_ENFORCED ? "enforced" : s == SBX_SKIPPED ? "skipped" : "unenforceable";
}

static const struct sbx_req *find_rule(const struct sbx_plan *p, const char *rule)
{
	char buf[SBX_REQ_RULE_MAX];

	for (size_t i = 0; i < p->n_reqs; i++)
		if (strcmp(sbx_req_rule(&p->reqs[i], buf), rule) == 0)
			return &p->reqs[i];
	return NULL;
}

/*
 * An expected message names an errno as {EIO}: the C library's wording of it goes there, as
 * sbxrun's messages carry it (glibc and musl word some differently).
 */
static void expand_errnos(const char *in, char *out, size_t n)
{
	size_t o = 0;

	while (*in && o + 1 < n) {
		const char *end = *in == '{' ? strchr(in, '}') : NULL;
		char name[32];
		int e = 0;

		if (end && (size_t)(end - in - 1) < sizeof(name)) {
			memcpy(name, in + 1, end - in - 1);
			name[end - in - 1] = 0;
			e = fakefs_errno(name);
		}
		if (e) {
			o += snprintf(out + o, n - o, "%s", strerror(e));
			in = end + 1;
		} else {
			out[o++] = *in++;
		}
	}
	out[o < n ? o : n - 1] = 0;
}

/* One requirement as expected.json describes it. */
static void check_req(const char *name, const struct sbx_plan *plan, const json_t *w)
{
	const char *rule = json_string_value(json_object_get(w, "rule"));
	const json_t *mech = json_object_get(w, "mechanism");
	const char *st = json_string_value(json_object_get(w, "status"));
	const char *want_why = json_string_value(json_object_get(w, "why"));
	const struct sbx_req *r = rule ? find_rule(plan, rule) : NULL;
	char got[SBX_MECH_NAME_MAX], why[2048];

	if (!r) {
		t_fail(__FILE__, __LINE__, "%s: no requirement \"%s\"", name, rule ? rule : "?");
		return;
	}
	sbx_mech_name(r->mech, got);
	if (json_is_null(mech) ? r->mech != 0 : !json_is_string(mech) || !r->mech ||
						strcmp(json_string_value(mech), got) != 0)
		t_fail(__FILE__, __LINE__, "%s: %s: mechanism %s, expected %s", name, rule,
		       r->mech ? got : "(none)",
		       json_is_string(mech) ? json_string_value(mech) : "(none)");
	if (!st || strcmp(st, status_name(r->status)) != 0)
		t_fail(__FILE__, __LINE__, "%s: %s: %s, expected %s", name, rule,
		       status_name(r->status), st ? st : "?");
	/* The reason and the hint, as a refusal shows them on its one line. */
	snprintf(why, sizeof(why), "%s%s%s", sbx_req_reason(r) ? sbx_req_reason(r) : "",
		 sbx_req_hint(r) ? "; hint: " : "", sbx_req_hint(r) ? sbx_req_hint(r) : "");
	if (want_why && strcmp(want_why, "-") == 0 && why[0])
		t_fail(__FILE__, __LINE__, "%s: %s: unexpected why: %s", name, rule, why);
	if (want_why && strcmp(want_why, "-") != 0 && !strstr(why, want_why))
		t_fail(__FILE__, __LINE__, "%s: %s: why \"%s\" lacks \"%s\"", name, rule, why,
		       want_why);
}

static void run_case(const char *name)
{
	json_t *facts = plancase_json(name, "facts.json"), *pj = plancase_json(name, "profile.json"),
	       *want = plancase_json(name, "expected.json"), *w;
	struct sbx_ctx ctx = {.platform = SBX_PLATFORM_LINUX};
	struct sbx_linux_facts host;
	struct sbx_profile prof = {0};
	struct sbx_plan plan;
	struct fakefs fs;
	struct sbx_diag d;
	size_t i;
	int rc;

	if (!facts || !pj || !want)
		goto out;
	fakefs_init(&fs, json_object_get(facts, "fs"));
	ctx.cwd = json_string_value(json_object_get(facts, "cwd"));
	ctx.tmpdir = json_string_value(json_object_get(facts, "tmpdir"));
	ctx.allow_git = json_is_true(json_object_get(facts, "allow_git"));
	/* As sbxrun plans for Linux: an empty protected name is a point (planned missing). */
	ctx.points = true;
	ctx.fs = &fs.view;
	plancase_facts(json_object_get(facts, "host"), &host);
	sbx_diag_clear(&d);
	if (plancase_profile(pj, &prof, &d) < 0) {
		t_fail(__FILE__, __LINE__, "%s: profile.json: %s", name, d.msg);
		goto out;
	}
	rc = sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE,
			    json_is_true(json_object_get(facts, "managed_network")),
			    SBX_WIN_DISABLED, &plan, &d);
	if (json_object_get(want, "error")) {
		const char *msg = json_string_value(json_object_get(want, "error"));
		char expect[1024];

		expand_errnos(msg ? msg : "?", expect, sizeof(expect));
		if (rc == 0) {
			t_fail(__FILE__, __LINE__, "%s: planned, expected \"%s\"", name, expect);
			sbx_plan_free(&plan);
		} else if (!msg || strcmp(d.msg, expect) != 0) {
			t_fail(__FILE__, __LINE__, "%s: \"%s\", expected \"%s\"", name, d.msg,
			       expect);
		}
		goto out;
	}
	if (rc != 0) {
		t_fail(__FILE__, __LINE__, "%s: sbx_plan_build: %s", name, d.msg);
		goto out;
	}
	CHECK_INT(sbx_plan_attach_linux(&plan, &host), 0);
	if (sbx_plan_enforceable(&plan) != json_is_true(json_object_get(want, "enforceable")))
		t_fail(__FILE__, __LINE__, "%s: enforceable is %d", name,
		       sbx_plan_enforceable(&plan));
	/* Every requirement gets a decision; an unenforceable one has no mechanism. */
	for (i = 0; i < plan.n_reqs; i++) {
		const struct sbx_req *r = &plan.reqs[i];
		char buf[SBX_REQ_RULE_MAX];

		if (r->status == SBX_UNENFORCEABLE && (r->mech || !sbx_req_reason(r)))
			t_fail(__FILE__, __LINE__,
			       "%s: %s: unenforceable needs a reason and no mechanism", name,
			       sbx_req_rule(r, buf));
		if (r->status != SBX_UNENFORCEABLE && !r->mech)
			t_fail(__FILE__, __LINE__, "%s: %s: no mechanism", name,
			       sbx_req_rule(r, buf));
	}
	json_array_foreach(json_object_get(want, "requirements"), i, w)
		check_req(name, &plan, w);
	sbx_plan_free(&plan);
out:
	sbx_profile_free(&prof);
	json_decref(facts);
	json_decref(pj);
	json_decref(want);
}

TEST(plan_linux_cases)
{
	size_t n = 0;
	char **names = plancase_list(&n);

	for (size_t i = 0; i < n; i++)
		run_case(names[i]);
	CHECK(n >= 30);
	sbx_strv_free(names, n);
}

/* The facts assumed off Linux are those of a current kernel with nothing blocked. */
TEST(plan_linux_assumed_facts)
{
	struct sbx_linux_facts f;

	sbx_linux_facts_assumed(&f);
	CHECK_INT(f.landlock_abi, 7);
	CHECK(f.seccomp && f.mount_namespace && f.no_new_privs && f.user_namespaces);
	CHECK(!f.running_as_root && !f.wsl && !f.userns_blocked_by[0]);
}

/* Mechanism names come from one table: exactly the strings explain --json has always shown. */
TEST(plan_mechanism_names)
{
	static const struct {
		unsigned bits;
		const char *name;
	} names[] = {
		{ 0, "none" },
		{ SBX_MECH_NONE, "none" },
		{ SBX_MECH_LANDLOCK, "landlock" },
		{ SBX_MECH_MOUNT_NS, "mount-namespace" },
		{ SBX_MECH_LANDLOCK | SBX_MECH_MOUNT_NS, "landlock+mount-namespace" },
		{ SBX_MECH_SECCOMP, "seccomp" },
		{ SBX_MECH_SECCOMP | SBX_MECH_LANDLOCK_NET, "seccomp+landlock-net" },
		{ SBX_MECH_SEATBELT, "seatbelt" },
		{ SBX_MECH_RESTRICTED_TOKEN, "restricted-token" },
	};
	char buf[SBX_MECH_NAME_MAX];

	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		CHECK_STR(sbx_mech_name(names[i].bits, buf), names[i].name);
}

/*
 * Links on the way to rule paths: one inside a writable root is refused with Codex's
 * words; a writable root that is itself a link in a directory the command cannot write is
 * followed.
 */
TEST(plan_linux_links_in_writable_roots)
{
	char t[64], p[256], q[256], r[256];
	struct sbx_ctx ctx = { .platform = SBX_PLATFORM_LINUX };
	struct sbx_linux_facts facts;
	struct sbx_profile prof = { .type = SBX_MANAGED };
	struct sbx_plan plan;
	struct sbx_diag d;
	const struct sbx_req *ro = NULL, *deny = NULL, *wr = NULL;

	snprintf(t, sizeof(t), "/tmp/sbx-plan-links.XXXXXX");
	if (!mkdtemp(t))
		return;
	snprintf(p, sizeof(p), "%s/ws", t);
	CHECK_INT(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/ws/gitreal", t);
	CHECK_INT(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/ws/.git", t);
	CHECK_INT(symlink("gitreal", p), 0);
	snprintf(p, sizeof(p), "%s/data", t);
	CHECK_INT(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/proj", t);
	snprintf(q, sizeof(q), "%s/data", t);
	CHECK_INT(symlink(q, p), 0); /* t/proj -> t/data, in t, which is not writable */
	snprintf(p, sizeof(p), "%s/ws/sub", t);
	CHECK_INT(symlink("gitreal", p), 0);

	snprintf(p, sizeof(p), "%s/ws", t);
	ctx.cwd = p;
	sbx_fs_push_special(&prof.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&prof.fs, p, SBX_WRITE, false);
	snprintf(q, sizeof(q), "%s/proj", t);
	sbx_fs_push_path(&prof.fs, q, SBX_WRITE, false);
	snprintf(r, sizeof(r), "%s/ws/sub/secret", t);
	sbx_fs_push_path(&prof.fs, r, SBX_DENY, false);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan, &d),
		  0);
	sbx_linux_facts_assumed(&facts);
	CHECK_INT(sbx_plan_attach_linux(&plan, &facts), 0);
	for (size_t i = 0; i < plan.n_reqs; i++) {
		const struct sbx_req *x = &plan.reqs[i];

		if (x->kind == SBX_REQ_READ_ONLY && strstr(x->path, "/ws/.git"))
			ro = x;
		if (x->kind == SBX_REQ_DENY)
			deny = x;
		if (x->kind == SBX_REQ_WRITE && strcmp(x->path, q) == 0)
			wr = x;
	}
	CHECK(ro && deny && wr);
	if (ro && deny && wr) {
		char want[512];

		CHECK_INT(ro->status, SBX_UNENFORCEABLE);
		snprintf(want, sizeof(want), "cannot enforce sandbox read-only path %s because it "
			 "crosses writable symlink %s", ro->path, ro->path);
		CHECK_STR(sbx_req_reason(ro), want);
		CHECK(sbx_req_hint(ro) && strstr(sbx_req_hint(ro), "/ws/gitreal) instead"));
		CHECK_INT(deny->status, SBX_UNENFORCEABLE);
		CHECK(strstr(sbx_req_reason(deny), "cannot enforce sandbox deny-read path") &&
		      strstr(sbx_req_reason(deny), "/ws/sub"));
		CHECK_INT(wr->status, SBX_ENFORCED); /* the root itself is a link: followed */
	}
	CHECK(!sbx_plan_enforceable(&plan));
	sbx_plan_free(&plan);
	sbx_profile_free(&prof);
	snprintf(p, sizeof(p), "rm -rf '%s'", t);
	CHECK_INT(system(p), 0);
}

/*
 * A denied file with a second name: refused inside a writable root (an earlier run may have
 * made both names), not asked about outside one; worded with the file inside a matched tree.
 */
TEST(plan_linux_nlink_check)
{
	char t[64], p[256], q[256], want[640];
	struct sbx_ctx ctx = { .platform = SBX_PLATFORM_LINUX };
	struct sbx_profile prof = { .type = SBX_MANAGED };
	struct sbx_plan plan;
	struct sbx_diag d;

	snprintf(t, sizeof(t), "/tmp/sbx-plan-nlink.XXXXXX");
	if (!mkdtemp(t))
		return;
	snprintf(p, sizeof(p), "%s/ws", t);
	CHECK_INT(mkdir(p, 0755), 0);
	ctx.cwd = p;
	sbx_fs_push_special(&prof.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&prof.fs, p, SBX_WRITE, false);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan, &d),
		  0);
	snprintf(p, sizeof(p), "%s/ws/x.env", t);
	snprintf(q, sizeof(q), "%s/out/x.env", t);
	CHECK(sbx_linux_in_writable(&plan, p));
	CHECK(!sbx_linux_in_writable(&plan, q));
	CHECK_INT(sbx_linux_nlink_check(&plan, "deny-read path", p, NULL, NULL, false, &d), 0);
	CHECK_INT(sbx_linux_nlink_check(&plan, "deny-read path", q, NULL, NULL, true, &d), 0);
	CHECK_INT(d.msg[0], 0);
	CHECK_INT(sbx_linux_nlink_check(&plan, "deny-read path", p, NULL, NULL, true, &d),
		  SBX_E_UNENFORCEABLE);
	snprintf(want, sizeof(want), "cannot enforce sandbox deny-read path %s because it has "
		 "other names (hard links): the command could read it through one of them", p);
	CHECK_STR(d.msg, want);
	snprintf(want, sizeof(want), "remove its other names, which hold the same content (find "
		 "\"$(stat -c %%m %s)\" -xdev -samefile %s lists them)", p, p);
	CHECK_STR(d.hint, want);
	sbx_diag_clear(&d);
	snprintf(p, sizeof(p), "%s/ws/secrets", t);
	snprintf(q, sizeof(q), "%s/ws/secrets/k", t);
	CHECK_INT(sbx_linux_nlink_check(&plan, "deny-read path", p, NULL, q, true, &d),
		  SBX_E_UNENFORCEABLE);
	CHECK(strstr(d.msg, "secrets because ") && strstr(d.msg, "/ws/secrets/k inside it has other names"));
	/* Every link of a chain is asked: the user's own first, a planted one in a root next. */
	sbx_diag_clear(&d);
	snprintf(p, sizeof(p), "%s/out/p//%s/ws/x", t, t);
	CHECK_INT(sbx_linux_link_check(&plan, "writable root", "/c", p, false, "/c", &d),
		  SBX_E_UNENFORCEABLE);
	snprintf(want, sizeof(want), "cannot enforce sandbox writable root /c because it crosses "
		 "writable symlink %s/ws/x", t);
	CHECK_STR(d.msg, want);
	sbx_diag_clear(&d);
	snprintf(p, sizeof(p), "%s/out/p//%s/out/q", t, t);
	CHECK_INT(sbx_linux_link_check(&plan, "writable root", "/c", p, false, "/c", &d), 0);
	sbx_plan_free(&plan);
	sbx_profile_free(&prof);
	snprintf(p, sizeof(p), "rm -rf '%s'", t);
	CHECK_INT(system(p), 0);
}
