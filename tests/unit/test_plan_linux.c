/* SPDX-License-Identifier: MIT */
/*
 * Which Linux mechanism the planner picks for each requirement, over host facts: everything
 * there, no Landlock, each Landlock ABI, no seccomp, user namespaces blocked by AppArmor, root
 * with and without CAP_SYS_ADMIN, no no_new_privs, WSL1 and WSL2. Plans come from
 * sbx_plan_build over a small real tree (so "exists" is real), then sbx_plan_attach_linux.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sbx.h"
#include "t.h"

enum prof_id {
	P_WS,	   /* read /, write ws (which holds .git), network restricted */
	P_DENY,	   /* P_WS plus denied paths and deny globs, inside and outside ws */
	P_RO_DENY, /* read /, one denied file, no writable root, network enabled */
	P_PARTIAL, /* read :minimal, write ws, network enabled */
	P_FULL,	   /* unrestricted file system, network restricted */
	P_REOPEN,  /* P_WS, out/secrets denied with out/secrets/pub read, ws/sec denied with
		    * ws/sec/pub write */
	P_RO,	   /* read /, nothing writable, network restricted (:read-only) */
};

/* The host facts of a case, as departures from a current kernel with nothing blocked. */
struct fspec {
	int abi; /* Landlock ABI, 0 = none */
	bool no_seccomp, no_mntns, apparmor, no_nnp, root;
	int wsl;
};

#define ALL { .abi = 7 }
#define ABI(n) { .abi = (n) }
#define APPARMOR { .abi = 7, .no_mntns = true, .apparmor = true }

static void to_facts(const struct fspec *s, struct sbx_linux_facts *f)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->kernel, sizeof(f->kernel), "6.18");
	f->landlock_abi = s->abi;
	f->seccomp = !s->no_seccomp;
	f->user_namespaces = !s->no_mntns;
	f->mount_namespace = !s->no_mntns;
	f->no_new_privs = !s->no_nnp;
	f->running_as_root = s->root;
	f->wsl = s->wsl;
	if (s->apparmor)
		snprintf(f->userns_blocked_by, sizeof(f->userns_blocked_by),
			 "AppArmor (kernel.apparmor_restrict_unprivileged_userns=1)");
}

/* One expected requirement: why NULL = not checked, "-" = none, else a substring. */
struct want {
	enum sbx_req_kind kind;
	const char *path; /* relative to the test tree, "/" for the root, NULL for none */
	const char *mech; /* NULL = no mechanism */
	enum sbx_req_status st;
	const char *why;
};

#define WANT_MAX 14
struct pcase {
	const char *name;
	struct fspec facts;
	enum prof_id prof;
	bool managed_network;
	bool enforceable;
	struct want w[WANT_MAX];
};

#define E SBX_ENFORCED
#define U SBX_UNENFORCEABLE
#define S SBX_SKIPPED

#define AROUND "Landlock grants the readable tree around it"
#define IN_WRITABLE "inside a writable root needs a mount namespace"
#define MISSING_SKIP "refusing its creation would need a mount point"

static const struct pcase cases[] = {
	{ "everything there: every rule twice where it can be", ALL, P_DENY, false, true, {
		{ SBX_REQ_READ, "/", "landlock", E, "-" },
		{ SBX_REQ_WRITE, "ws", "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_READ_ONLY, "ws/.git", "mount-namespace", E, "-" },
		{ SBX_REQ_PROTECT_MISSING, "ws/.agents", "none", S, MISSING_SKIP },
		{ SBX_REQ_DENY, "out/secret.txt", "mount-namespace", E, "-" },
		{ SBX_REQ_DENY, "out/secrets", "mount-namespace", E, "-" },
		{ SBX_REQ_DENY, "ws/.env", "mount-namespace", E, "-" },
		{ SBX_REQ_DENY, "out/missing", "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_DENY, "ws/missing", "none", S, "stays readable" },
		{ SBX_REQ_DENY_GLOB, "out/**/*.key", "mount-namespace", E, "-" },
		{ SBX_REQ_DENY_GLOB, "ws/**/*.pem", "mount-namespace", E, "-" },
		{ SBX_REQ_METADATA, NULL, "mount-namespace", E, "-" },
		{ SBX_REQ_WRITE_CONFINED, NULL, "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
	{ "read-only, neither Landlock nor a mount namespace: writes cannot be confined",
	  { .abi = 0, .no_mntns = true }, P_RO, false, false, {
		{ SBX_REQ_READ, "/", "none", E, "-" },
		{ SBX_REQ_WRITE_CONFINED, NULL, NULL, U,
		  "confining writes needs Landlock or a mount namespace" },
		{ SBX_REQ_METADATA, NULL, "seccomp", E, NULL },
		{ SBX_REQ_NETWORK, NULL, "seccomp", E, "-" } } },
	{ "read-only, Landlock alone confines writes", { .abi = 3, .no_mntns = true }, P_RO, false,
	  true, {
		{ SBX_REQ_WRITE_CONFINED, NULL, "landlock", E, "-" } } },
	{ "read-only, a mount namespace alone confines writes", ABI(0), P_RO, false, true, {
		{ SBX_REQ_WRITE_CONFINED, NULL, "mount-namespace", E, "-" } } },
	{ "paths re-opened inside denied directories: mounted again inside the mask", ALL,
	  P_REOPEN, false, true, {
		{ SBX_REQ_READ, "out/secrets/pub", "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_WRITE, "ws/sec/pub", "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_DENY, "out/secrets", "mount-namespace", E, "-" },
		{ SBX_REQ_DENY, "ws/sec", "mount-namespace", E, "-" } } },
	{ "re-opened paths without a mount namespace: a read by Landlock, the deny in ws fails",
	  APPARMOR, P_REOPEN, false, false, {
		{ SBX_REQ_READ, "out/secrets/pub", "landlock", E, "-" },
		{ SBX_REQ_WRITE, "ws/sec/pub", "landlock", E, "-" },
		{ SBX_REQ_DENY, "out/secrets", "landlock", E, AROUND },
		{ SBX_REQ_DENY, "ws/sec", NULL, U, IN_WRITABLE } } },
	{ "no Landlock: full read needs nothing, writes by the mount namespace", ABI(0),
	  P_WS, false, true, {
		{ SBX_REQ_READ, "/", "none", E, "-" },
		{ SBX_REQ_WRITE, "ws", "mount-namespace", E, "-" },
		{ SBX_REQ_READ_ONLY, "ws/.git", "mount-namespace", E, "-" },
		{ SBX_REQ_METADATA, NULL, "mount-namespace", E, "-" },
		{ SBX_REQ_NETWORK, NULL, "seccomp", E, "-" } } },
	{ "no Landlock: reading only some paths is unenforceable", ABI(0), P_PARTIAL, false,
	  false, {
		{ SBX_REQ_PLATFORM_DEFAULTS, NULL, NULL, U,
		  "reading only some paths needs Landlock: Landlock is unavailable (kernel 6.18); "
		  "hint: Linux 5.13 or later" },
		{ SBX_REQ_WRITE, "ws", "mount-namespace", E, "-" },
		{ SBX_REQ_NETWORK, NULL, "none", E, "-" } } },
	{ "Landlock ABI 1", ABI(1), P_WS, false, true, {
		{ SBX_REQ_READ, "/", "landlock", E, "-" },
		{ SBX_REQ_WRITE, "ws", "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_NETWORK, NULL, "seccomp", E, "-" } } },
	{ "Landlock ABI 2", ABI(2), P_WS, false, true, {
		{ SBX_REQ_NETWORK, NULL, "seccomp", E, "-" } } },
	{ "Landlock ABI 3: no network rules yet", ABI(3), P_WS, false, true, {
		{ SBX_REQ_WRITE, "ws", "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_NETWORK, NULL, "seccomp", E, "-" } } },
	{ "Landlock ABI 4: TCP rules", ABI(4), P_WS, false, true, {
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
	{ "Landlock ABI 5", ABI(5), P_WS, false, true, {
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
	{ "Landlock ABI 6", ABI(6), P_WS, false, true, {
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
	{ "Landlock ABI 7", ABI(7), P_WS, false, true, {
		{ SBX_REQ_READ, "/", "landlock", E, "-" },
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
	{ "AppArmor blocks user namespaces: carve-outs in writable roots unenforceable",
	  APPARMOR, P_DENY, false, false, {
		{ SBX_REQ_READ, "/", "landlock", E, "-" },
		{ SBX_REQ_WRITE, "ws", "landlock", E, "-" },
		{ SBX_REQ_READ_ONLY, "ws/.git", NULL, U,
		  "needs a mount namespace (Landlock cannot take back rights granted on a parent): "
		  "no mount namespace can be made: user namespaces are blocked by AppArmor "
		  "(kernel.apparmor_restrict_unprivileged_userns=1); hint: allow unprivileged user "
		  "namespaces" },
		{ SBX_REQ_PROTECT_MISSING, "ws/.codex", "none", S, MISSING_SKIP },
		{ SBX_REQ_DENY, "out/secret.txt", "landlock", E, AROUND },
		{ SBX_REQ_DENY, "out/secrets", "landlock", E, "more than 4096 entries" },
		{ SBX_REQ_DENY, "ws/.env", NULL, U, IN_WRITABLE },
		{ SBX_REQ_DENY, "out/missing", "landlock", E, "-" },
		{ SBX_REQ_DENY, "ws/missing", "none", S, "stays readable" },
		{ SBX_REQ_DENY_GLOB, "out/**/*.key", "landlock", E, "the matches are found once" },
		{ SBX_REQ_DENY_GLOB, "ws/**/*.pem", NULL, U, IN_WRITABLE },
		{ SBX_REQ_METADATA, NULL, "seccomp", E, "refused everywhere, inside the writable" },
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
	{ "AppArmor blocks user namespaces: a deny in a readable tree is Landlock's alone",
	  APPARMOR, P_RO_DENY, false, true, {
		{ SBX_REQ_READ, "/", "landlock", E, "-" },
		{ SBX_REQ_DENY, "out/secret.txt", "landlock", E, AROUND },
		{ SBX_REQ_METADATA, NULL, "seccomp", E, NULL },
		{ SBX_REQ_NETWORK, NULL, "none", E, "-" } } },
	{ "AppArmor, a deny glob whose prefix holds a writable root", APPARMOR, P_DENY, false,
	  false, {
		{ SBX_REQ_DENY_GLOB, "ws/**/*.pem", NULL, U, "masking the matches of" } } },
	{ "no seccomp: a restricted network is unenforceable", { .abi = 7, .no_seccomp = true }, P_WS, false,
	  false, {
		{ SBX_REQ_WRITE, "ws", "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_METADATA, NULL, "mount-namespace", E, "-" },
		{ SBX_REQ_NETWORK, NULL, NULL, U,
		  "a restricted network needs seccomp: seccomp filters are unavailable (kernel "
		  "6.18); hint: a kernel built with CONFIG_SECCOMP_FILTER" } } },
	{ "no seccomp and no mount namespace: metadata unenforceable", { .abi = 7, .no_seccomp = true, .no_mntns = true, .apparmor = true },
	  P_RO_DENY, false, false, {
		{ SBX_REQ_DENY, "out/secret.txt", "landlock", E, AROUND },
		{ SBX_REQ_METADATA, NULL, NULL, U, "needs a mount namespace or seccomp" },
		{ SBX_REQ_NETWORK, NULL, "none", E, "-" } } },
	{ "no seccomp: an unrestricted file system with a restricted network", { .abi = 7, .no_seccomp = true },
	  P_FULL, false, false, {
		{ SBX_REQ_WRITE, "/", "none", E, "-" },
		{ SBX_REQ_NETWORK, NULL, NULL, U, "needs seccomp" } } },
	{ "root with CAP_SYS_ADMIN: as everything there", { .abi = 7, .root = true }, P_DENY, false, true, {
		{ SBX_REQ_READ_ONLY, "ws/.git", "mount-namespace", E, "-" },
		{ SBX_REQ_DENY, "ws/.env", "mount-namespace", E, "-" } } },
	{ "root without CAP_SYS_ADMIN: no mount namespace", { .abi = 7, .root = true, .no_mntns = true }, P_WS, false, false, {
		{ SBX_REQ_WRITE, "ws", "landlock", E, "-" },
		{ SBX_REQ_READ_ONLY, "ws/.git", NULL, U,
		  "no mount namespace can be made (root without CAP_SYS_ADMIN); hint: run with "
		  "CAP_SYS_ADMIN" },
		{ SBX_REQ_METADATA, NULL, "seccomp", E, NULL } } },
	{ "no no_new_privs: neither Landlock nor seccomp", { .abi = 7, .no_nnp = true }, P_WS, false, false, {
		{ SBX_REQ_READ, "/", "none", E, "-" },
		{ SBX_REQ_WRITE, "ws", "mount-namespace", E, "-" },
		{ SBX_REQ_READ_ONLY, "ws/.git", "mount-namespace", E, "-" },
		{ SBX_REQ_NETWORK, NULL, NULL, U, "needs seccomp" } } },
	{ "no no_new_privs: partial reads name the missing prctl", { .abi = 7, .no_nnp = true }, P_PARTIAL, false,
	  false, {
		{ SBX_REQ_PLATFORM_DEFAULTS, NULL, NULL, U, "prctl(PR_SET_NO_NEW_PRIVS) is unavailable" } } },
	{ "WSL1: nothing can be confined", { .no_seccomp = true, .no_mntns = true, .wsl = 1 }, P_WS, false, false, {
		{ SBX_REQ_READ, "/", "none", E, "-" },
		{ SBX_REQ_WRITE, "ws", NULL, U, "WSL1 translates system calls" },
		{ SBX_REQ_READ_ONLY, "ws/.git", NULL, U, "hint: run under WSL2" },
		{ SBX_REQ_METADATA, NULL, NULL, U, "WSL1" },
		{ SBX_REQ_NETWORK, NULL, NULL, U, "WSL1" } } },
	{ "WSL1 with real facts claimed: still nothing", { .abi = 7, .wsl = 1 }, P_DENY, false,
	  false, {
		{ SBX_REQ_WRITE, "ws", NULL, U, "hint: run under WSL2" },
		{ SBX_REQ_DENY, "out/secret.txt", NULL, U, "WSL1" } } },
	{ "WSL2: a real kernel", { .abi = 7, .wsl = 2 }, P_DENY, false, true, {
		{ SBX_REQ_WRITE, "ws", "landlock+mount-namespace", E, "-" },
		{ SBX_REQ_DENY, "ws/.env", "mount-namespace", E, "-" },
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
	{ "managed network: never on Linux", ALL, P_WS, true, false, {
		{ SBX_REQ_MANAGED_NETWORK, NULL, NULL, U, "not implemented by the Linux backend" },
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
	{ "unrestricted file system: only the network", ALL, P_FULL, false, true, {
		{ SBX_REQ_WRITE, "/", "none", E, "-" },
		{ SBX_REQ_NETWORK, NULL, "seccomp+landlock-net", E, "-" } } },
};

/* ---- the test tree and its profiles --------------------------------------------------------- */

static char base[64];

static void put(const char *rel, bool dir)
{
	char p[256];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", base, rel);
	if (dir) {
		CHECK(mkdir(p, 0755) == 0);
		return;
	}
	fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static bool make_tree(void)
{
	snprintf(base, sizeof(base), "/tmp/sbx-plan-linux.XXXXXX");
	if (!mkdtemp(base))
		return false;
	put("ws", true);
	put("ws/.git", true);
	put("ws/.env", false);
	put("out", true);
	put("out/secret.txt", false);
	put("out/secrets", true);
	put("out/secrets/pub", true);
	put("ws/sec", true);
	put("ws/sec/pub", true);
	return true;
}

static void remove_tree(void)
{
	static const char *const order[] = { "ws/.env", "ws/.git", "ws/sec/pub", "ws/sec", "ws",
					     "out/secret.txt", "out/secrets/pub", "out/secrets",
					     "out", "" };
	char p[256];

	for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++) {
		snprintf(p, sizeof(p), "%s/%s", base, order[i]);
		CHECK(remove(p) == 0);
	}
}

static char *at(const char *rel)
{
	static char buf[8][256];
	static int k;
	char *b = buf[k++ % 8];

	if (strcmp(rel, "/") == 0)
		return strcpy(b, "/");
	snprintf(b, 256, "%s/%s", base, rel);
	return b;
}

static void push_glob(struct sbx_fs *fs, const char *rel)
{
	struct sbx_entry e = { .kind = SBX_GLOB, .access = SBX_DENY };

	e.path = at(rel);
	CHECK_INT(sbx_fs_push(fs, &e), 0);
}

static void make_profile(enum prof_id id, struct sbx_profile *p)
{
	struct sbx_fs *fs = &p->fs;

	memset(p, 0, sizeof(*p));
	p->type = SBX_MANAGED;
	fs->kind = id == P_FULL ? SBX_FS_UNRESTRICTED : SBX_FS_RESTRICTED;
	p->network = id == P_RO_DENY || id == P_PARTIAL;
	if (id == P_FULL)
		return;
	if (id == P_PARTIAL)
		CHECK_INT(sbx_fs_push_special(fs, SBX_SP_MINIMAL, NULL, SBX_READ, false), 0);
	else
		CHECK_INT(sbx_fs_push_special(fs, SBX_SP_ROOT, NULL, SBX_READ, false), 0);
	if (id == P_RO)
		return;
	if (id != P_RO_DENY)
		CHECK_INT(sbx_fs_push_path(fs, at("ws"), SBX_WRITE, false), 0);
	if (id == P_RO_DENY)
		CHECK_INT(sbx_fs_push_path(fs, at("out/secret.txt"), SBX_DENY, false), 0);
	if (id == P_REOPEN) {
		CHECK_INT(sbx_fs_push_path(fs, at("out/secrets"), SBX_DENY, false), 0);
		CHECK_INT(sbx_fs_push_path(fs, at("out/secrets/pub"), SBX_READ, false), 0);
		CHECK_INT(sbx_fs_push_path(fs, at("ws/sec"), SBX_DENY, false), 0);
		CHECK_INT(sbx_fs_push_path(fs, at("ws/sec/pub"), SBX_WRITE, false), 0);
		return;
	}
	if (id != P_DENY)
		return;
	CHECK_INT(sbx_fs_push_path(fs, at("out/secret.txt"), SBX_DENY, false), 0);
	CHECK_INT(sbx_fs_push_path(fs, at("out/secrets"), SBX_DENY, false), 0);
	CHECK_INT(sbx_fs_push_path(fs, at("ws/.env"), SBX_DENY, false), 0);
	CHECK_INT(sbx_fs_push_path(fs, at("out/missing"), SBX_DENY, false), 0);
	CHECK_INT(sbx_fs_push_path(fs, at("ws/missing"), SBX_DENY, false), 0);
	push_glob(fs, "out/**/*.key");
	push_glob(fs, "ws/**/*.pem");
}

static const struct sbx_req *find(const struct sbx_plan *p, const struct want *w)
{
	const char *path = w->path ? at(w->path) : NULL;

	for (size_t i = 0; i < p->n_reqs; i++) {
		const struct sbx_req *r = &p->reqs[i];

		if (r->kind != w->kind)
			continue;
		if (!path || (r->path && strcmp(r->path, path) == 0))
			return r;
	}
	return NULL;
}

static const char *status_name(enum sbx_req_status s)
{
	return s == SBX_ENFORCED ? "enforced" : s == SBX_SKIPPED ? "skipped" : "unenforceable";
}

static void run_case(const struct pcase *c)
{
	struct sbx_ctx ctx = { .cwd = at("ws"), .platform = SBX_PLATFORM_LINUX };
	struct sbx_linux_facts facts;
	struct sbx_profile prof;
	struct sbx_plan plan;
	struct sbx_diag d;

	sbx_diag_clear(&d);
	make_profile(c->prof, &prof);
	if (sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, c->managed_network, SBX_WIN_DISABLED,
			   &plan, &d) != 0) {
		t_fail(__FILE__, __LINE__, "%s: sbx_plan_build: %s", c->name, d.msg);
		sbx_profile_free(&prof);
		return;
	}
	to_facts(&c->facts, &facts);
	CHECK_INT(sbx_plan_attach_linux(&plan, &facts), 0);
	if (sbx_plan_enforceable(&plan) != c->enforceable)
		t_fail(__FILE__, __LINE__, "%s: enforceable is %d", c->name, !c->enforceable);
	/* Every requirement gets a decision; an unenforceable one has no mechanism. */
	for (size_t i = 0; i < plan.n_reqs; i++) {
		const struct sbx_req *r = &plan.reqs[i];

		if (r->status == SBX_UNENFORCEABLE && (r->mech || !r->reason))
			t_fail(__FILE__, __LINE__, "%s: %s: unenforceable needs a reason and no "
			       "mechanism", c->name, r->rule);
		if (r->status != SBX_UNENFORCEABLE && !r->mech)
			t_fail(__FILE__, __LINE__, "%s: %s: no mechanism", c->name, r->rule);
	}
	for (size_t i = 0; i < WANT_MAX && (c->w[i].mech || c->w[i].why); i++) {
		const struct want *w = &c->w[i];
		const struct sbx_req *r = find(&plan, w);
		char mech[SBX_MECH_NAME_MAX], why[2048];

		if (!r) {
			t_fail(__FILE__, __LINE__, "%s: no requirement of kind %d for %s", c->name,
			       (int)w->kind, w->path ? w->path : "-");
			continue;
		}
		/* The reason and the hint, as a refusal shows them on two lines. */
		snprintf(why, sizeof(why), "%s%s%s", r->reason ? r->reason : "",
			 r->hint ? "; hint: " : "", r->hint ? r->hint : "");
		sbx_mech_name(r->mech, mech);
		if ((w->mech == NULL) != (r->mech == 0) || (w->mech && strcmp(w->mech, mech) != 0))
			t_fail(__FILE__, __LINE__, "%s: %s: mechanism %s, expected %s", c->name,
			       r->rule, r->mech ? mech : "(none)", w->mech ? w->mech : "(none)");
		if (r->status != w->st)
			t_fail(__FILE__, __LINE__, "%s: %s: %s, expected %s", c->name, r->rule,
			       status_name(r->status), status_name(w->st));
		if (w->why && strcmp(w->why, "-") == 0 && why[0])
			t_fail(__FILE__, __LINE__, "%s: %s: unexpected why: %s", c->name, r->rule,
			       why);
		if (w->why && strcmp(w->why, "-") != 0 && !strstr(why, w->why))
			t_fail(__FILE__, __LINE__, "%s: %s: why \"%s\" lacks \"%s\"", c->name,
			       r->rule, why, w->why);
	}
	sbx_plan_free(&plan);
	sbx_profile_free(&prof);
}

TEST(plan_linux_facts_table)
{
	if (!make_tree()) {
		t_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
		return;
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++)
		run_case(&cases[i]);
	remove_tree();
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
 * Links on the way to rule paths (spec 4.3): one inside a writable root is refused with Codex's
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
		CHECK_STR(ro->reason, want);
		CHECK(ro->hint && strstr(ro->hint, "/ws/gitreal) instead"));
		CHECK_INT(deny->status, SBX_UNENFORCEABLE);
		CHECK(strstr(deny->reason, "cannot enforce sandbox deny-read path") &&
		      strstr(deny->reason, "/ws/sub"));
		CHECK_INT(wr->status, SBX_ENFORCED); /* the root itself is a link: followed */
	}
	CHECK(!sbx_plan_enforceable(&plan));
	sbx_plan_free(&plan);
	sbx_profile_free(&prof);
	snprintf(p, sizeof(p), "rm -rf '%s'", t);
	CHECK_INT(system(p), 0);
}
