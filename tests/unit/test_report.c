/* SPDX-License-Identifier: MIT */
/*
 * test_report.c - the denial report's decisions (lib/report.c): a failure is the sandbox's only
 * when the plan refuses that operation where the path leads and the errno is what the enforcing
 * mechanism gives; its JSON line and the one-line summary.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "net.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

struct fixture {
	char *ws, *entries;
	struct sbx_ctx ctx;
	struct sbx_plan plan;
	struct sbx_report_view view;
};

#define ENTRY_PATH(p, a) "{\"path\":{\"type\":\"path\",\"path\":\"%s" p "\"},\"access\":\"" a "\"}"

/*
 * A workspace with a .git, a secret file denied, and a link to it; the plan: root read, the
 * workspace writable, the secret denied, attached to a host with every Linux feature.
 */
static int fixture_init(struct fixture *f)
{
	struct sbx_linux_facts facts;
	struct sbx_profile prof;
	struct sbx_diag d;
	char *text = NULL, link[512], target[512];
	int r;

	memset(f, 0, sizeof(*f));
	f->ws = vec_fresh_dir();
	if (!f->ws)
		return -1;
	snprintf(target, sizeof(target), "%s/secret.env", f->ws);
	snprintf(link, sizeof(link), "%s/alias.env", f->ws);
	if (vec_mkdir(f->ws) || vec_mkfile(target, "k") || symlink(target, link) ||
	    vec_mkfile(strcat(strcpy(target, f->ws), "/.git/HEAD"), "ref"))
		return -1;
	if (asprintf(&text,
		     "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\",\"entries\":["
		     "{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},"
		     "\"access\":\"read\"}," ENTRY_PATH("", "write") "," ENTRY_PATH(
			     "/secret.env", "deny") "]},\"network\":\"restricted\"}",
		     f->ws, f->ws) < 0)
		return -1;
	f->ctx = vec_ctx(f->ws);
	r = sbx_profile_load_buf(text, strlen(text), "t.json", &prof, NULL, NULL, &d);
	free(text);
	if (r)
		return r;
	r = sbx_plan_build(&prof, &f->ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &f->plan, &d);
	sbx_profile_free(&prof);
	if (r)
		return r;
	sbx_linux_facts_assumed(&facts);
	r = sbx_plan_attach_linux(&f->plan, &facts);
	if (r)
		return r;
	return sbx_report_view_init(&f->view, &f->plan, &f->ctx, sbx_linux_minimal_paths, &d);
}

static void fixture_free(struct fixture *f)
{
	sbx_report_view_free(&f->view);
	sbx_plan_free(&f->plan);
	free(f->ws);
}

/* Decides s: want 1 with that rule and mechanism, or 0 (an ordinary failure). */
static void check_decide(const struct fixture *f, const struct sbx_op_seen *s, int want,
			 const char *rule, const char *mech)
{
	struct sbx_denial out;

	CHECK_INT(sbx_denial_decide(&f->view, s, &out), want);
	if (want == 1) {
		CHECK_STR(out.rule, rule);
		CHECK_STR(out.mechanism, mech);
	} else {
		CHECK(out.rule == NULL);
	}
	free(out.rule);
}

TEST(report_decides_file_refusals)
{
	struct fixture f;
	char p[512], q[2048], rule[1024], git[1024], codex[1024];

	if (fixture_init(&f) != 0) {
		t_fail(__FILE__, __LINE__, "fixture");
		fixture_free(&f);
		return;
	}
	CHECK(f.view.mount_namespace);
	CHECK(f.view.landlock);
	snprintf(rule, sizeof(rule), "entries[2]: deny %s/secret.env", f.ws);
	snprintf(git, sizeof(git), "entries[1]: read-only .git (protected, in write %s)", f.ws);

	/* A read of the denied file: the mask mounted over it (mode 000), by the deny entry. */
	snprintf(p, sizeof(p), "%s/secret.env", f.ws);
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_READ, .path = p, .err = EACCES}, 1,
		     rule, "mount-namespace");
	/* Through a link: decided where it leads, the rule the same. */
	snprintf(q, sizeof(q), "%s/alias.env", f.ws);
	check_decide(&f,
		     &(struct sbx_op_seen){.op = SBX_OP_READ, .path = q, .real = p, .err = EACCES},
		     1, rule, "mount-namespace");
	/* A write in the workspace that fails with EACCES: a file mode, not the sandbox. */
	snprintf(p, sizeof(p), "%s/mode-000.txt", f.ws);
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_WRITE, .path = p, .err = EACCES}, 0,
		     NULL, NULL);
	/* A missing file in a readable place: ENOENT is only ENOENT. */
	check_decide(
		&f, &(struct sbx_op_seen){.op = SBX_OP_READ, .path = "/etc/no-such", .err = ENOENT},
		0, NULL, NULL);
	/* A write outside every writable root: the read-only mount's EROFS, default... root read. */
	check_decide(&f,
		     &(struct sbx_op_seen){.op = SBX_OP_CREATE, .path = "/etc/new", .err = EROFS},
		     1, "entries[0]: read :root", "mount-namespace");
	/* The same refusal with Landlock's errno (a tree the mount leaves writable). */
	check_decide(&f,
		     &(struct sbx_op_seen){.op = SBX_OP_CREATE, .path = "/etc/new", .err = EACCES},
		     1, "entries[0]: read :root", "landlock");
	/* An errno no mechanism gives for it: not a denial. */
	check_decide(&f,
		     &(struct sbx_op_seen){.op = SBX_OP_CREATE, .path = "/etc/new", .err = EPERM},
		     0, NULL, NULL);
	/* A create of a protected name in the writable workspace. */
	snprintf(p, sizeof(p), "%s/.git/index.lock", f.ws);
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_CREATE, .path = p, .err = EROFS}, 1,
		     git, "mount-namespace");
	/*
	 * The point at the missing .codex (an empty read-only directory): making the name fails
	 * with EEXIST, opening it for writing with EISDIR; the same errnos elsewhere are ordinary.
	 */
	snprintf(p, sizeof(p), "%s/.codex", f.ws);
	snprintf(
		codex, sizeof(codex),
		"entries[1]: read-only .codex (protected, in write %s; missing: cannot be created)",
		f.ws);
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_CREATE, .path = p, .err = EEXIST}, 1,
		     codex, "mount-namespace");
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_WRITE, .path = p, .err = EISDIR}, 1,
		     codex, "mount-namespace");
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_READ, .path = p, .err = EISDIR}, 0,
		     NULL, NULL);
	snprintf(p, sizeof(p), "%s/.git", f.ws);
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_CREATE, .path = p, .err = EEXIST}, 0,
		     NULL, NULL);
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_CREATE, .path = "/etc", .err = EEXIST},
		     0, NULL, NULL);
	snprintf(p, sizeof(p), "%s/.codex/x", f.ws);
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_CREATE, .path = p, .err = ENOTDIR}, 0,
		     NULL, NULL);
	/* A rename out of the workspace: the new name decides. */
	snprintf(p, sizeof(p), "%s/a.txt", f.ws);
	check_decide(&f,
		     &(struct sbx_op_seen){
			     .op = SBX_OP_RENAME, .path = p, .to = "/etc/a.txt", .err = EXDEV},
		     0, NULL, NULL);
	check_decide(&f,
		     &(struct sbx_op_seen){
			     .op = SBX_OP_RENAME, .path = p, .to = "/etc/a.txt", .err = EACCES},
		     1, "entries[0]: read :root", "landlock");
	/* An exec of the denied file. */
	snprintf(p, sizeof(p), "%s/secret.env", f.ws);
	check_decide(&f, &(struct sbx_op_seen){.op = SBX_OP_EXEC, .path = p, .err = EACCES}, 1,
		     rule, "mount-namespace");
	/* An exec whose program is fine but whose interpreter is denied. */
	snprintf(q, sizeof(q), "its interpreter %s: %s", p, rule);
	check_decide(&f,
		     &(struct sbx_op_seen){
			     .op = SBX_OP_EXEC, .path = "/bin/sh", .interp = p, .err = EACCES},
		     1, q, "mount-namespace");
	/* An exec of a readable program that fails with EACCES (no x bit): not the sandbox. */
	check_decide(&f,
		     &(struct sbx_op_seen){.op = SBX_OP_EXEC, .path = "/etc/passwd", .err = EACCES},
		     0, NULL, NULL);
	fixture_free(&f);
}

TEST(report_decides_seccomp_refusals)
{
	struct fixture f;
	const char *net = NULL;

	if (fixture_init(&f) != 0) {
		t_fail(__FILE__, __LINE__, "fixture");
		fixture_free(&f);
		return;
	}
	for (size_t i = 0; i < f.plan.n_reqs; i++)
		if (f.plan.reqs[i].kind == SBX_REQ_NETWORK)
			net = f.plan.reqs[i].rule;
	CHECK(net != NULL);
	check_decide(&f,
		     &(struct sbx_op_seen){.op = SBX_OP_SOCKET,
					   .address = "AF_INET stream",
					   .err = EPERM,
					   .seccomp = SBX_SCG_NETWORK},
		     1, net, "seccomp");
	/*
	 * With the network enabled the group refuses only a Unix datagram socket (the broker's
	 * filter): worded for that, never "network enabled" nor "network restricted".
	 */
	f.plan.network = true;
	check_decide(
		&f,
		&(struct sbx_op_seen){.op = SBX_OP_SOCKET,
				      .address = "AF_UNIX dgram",
				      .err = EPERM,
				      .seccomp = SBX_SCG_NETWORK},
		1,
		"Unix datagram sockets: a datagram names its peer where no broker sees it, and "
		"path sockets outside the writable roots stay unreachable",
		"seccomp");
	f.plan.network = false;
	check_decide(&f,
		     &(struct sbx_op_seen){.op = SBX_OP_CALL,
					   .call = "unshare",
					   .err = EPERM,
					   .seccomp = SBX_SCG_NAMESPACE},
		     1, "refused in every sandbox: new namespaces", "seccomp");
	/* A console's state, a discipline, exclusive mode: the terminal group names every kind. */
	check_decide(
		&f,
		&(struct sbx_op_seen){
			.op = SBX_OP_CALL, .call = "ioctl", .err = EPERM, .seccomp = SBX_SCG_TTY},
		1,
		"refused in every sandbox: faking terminal input (TIOCSTI, TIOCLINUX), "
		"changing a Linux console's keyboard, font or VTs (every KD and VT request "
		"but the getters), or a terminal's line discipline or exclusive mode "
		"(TIOCSETD, TIOCEXCL)",
		"seccomp");
	/* A socket call that failed on its own (no seccomp stop): never the sandbox's. */
	check_decide(&f,
		     &(struct sbx_op_seen){
			     .op = SBX_OP_CONNECT, .address = "unix:/run/x", .err = EACCES},
		     0, NULL, NULL);
	{
		struct sbx_denial out;

		CHECK_INT(sbx_denial_decide(&f.view,
					    &(struct sbx_op_seen){.op = SBX_OP_CALL,
								  .call = "unshare",
								  .err = EPERM,
								  .seccomp = SBX_SCG_NAMESPACE},
					    &out),
			  1);
		CHECK_STR(out.op, "unshare");
		free(out.rule);
	}
	fixture_free(&f);
}

TEST(report_line_and_summary)
{
	struct sbx_report_line l = {.time = "2026-11-30T16:00:00.123Z",
				    .pid = 7,
				    .comm = "git",
				    .op = "create",
				    .path = "/w/.git/index.lock",
				    .err = EROFS,
				    .rule = "entries[1]: read /w/.git",
				    .mechanism = "mount-namespace"};
	char *s = sbx_report_line_json(&l), *b;

	CHECK_STR(s, "{\"time\":\"2026-11-30T16:00:00.123Z\",\"pid\":7,\"comm\":\"git\","
		     "\"op\":\"create\",\"path\":\"/w/.git/index.lock\",\"errno\":\"EROFS\","
		     "\"rule\":\"entries[1]: read /w/.git\",\"mechanism\":\"mount-namespace\"}\n");
	free(s);
	b = sbx_report_brief(&l);
	CHECK_STR(b, "create /w/.git/index.lock: entries[1]: read /w/.git");
	s = sbx_report_summary(3, b);
	CHECK_STR(s, "3 operations were denied (first: create /w/.git/index.lock: entries[1]: read "
		     "/w/.git); see --report");
	free(s);
	s = sbx_report_summary(1, b);
	CHECK_STR(s, "1 operation was denied (first: create /w/.git/index.lock: entries[1]: read "
		     "/w/.git); see --report");
	free(s);
	free(b);

	/* A socket: the address instead of the path; unknown fields are null. */
	l = (struct sbx_report_line){.pid = -1,
				     .op = "connect",
				     .address = "127.0.0.1:80",
				     .to = NULL,
				     .err = EPERM,
				     .mechanism = "seccomp"};
	s = sbx_report_line_json(&l);
	CHECK_STR(s, "{\"time\":null,\"pid\":null,\"comm\":null,\"op\":\"connect\","
		     "\"address\":\"127.0.0.1:80\",\"errno\":\"EPERM\",\"rule\":null,"
		     "\"mechanism\":\"seccomp\"}\n");
	free(s);
	/* A rename names both; an errno without a name is E and its number. */
	l = (struct sbx_report_line){
		.pid = 1, .op = "rename", .path = "/a", .to = "/b", .err = 200};
	s = sbx_report_line_json(&l);
	CHECK_STR(s, "{\"time\":null,\"pid\":1,\"comm\":null,\"op\":\"rename\",\"path\":\"/a\","
		     "\"to\":\"/b\",\"errno\":\"E200\",\"rule\":null,\"mechanism\":null}\n");
	free(s);
	/*
	 * A name that is not UTF-8 (a process's name cut inside a character, a path) is written,
	 * each stray byte as U+FFFD, valid sequences kept; quotes, backslashes, control bytes
	 * escaped.
	 */
	l = (struct sbx_report_line){.pid = 1,
				     .comm = "caf\xc3",
				     .op = "create",
				     .path = "/w/\"q\\\n\x01\xff\xc3\xa9",
				     .err = EACCES};
	s = sbx_report_line_json(&l);
	CHECK_STR(s, "{\"time\":null,\"pid\":1,\"comm\":\"caf\xef\xbf\xbd\",\"op\":\"create\","
		     "\"path\":\"/w/\\\"q\\\\\\n\\u0001\xef\xbf\xbd\xc3\xa9\",\"errno\":\"EACCES\","
		     "\"rule\":null,\"mechanism\":null}\n");
	free(s);
	CHECK_STR(sbx_errno_name(EACCES), "EACCES");
	CHECK(sbx_errno_name(200) == NULL);
	CHECK_STR(sbx_op_name(SBX_OP_EXEC), "exec");
}

TEST(report_line_of_a_proxy_denial)
{
	struct sbx_proxy_event ev = {.time = "2026-11-30T16:00:00.000Z",
				     .client = "127.0.0.1:40112",
				     .method = "CONNECT",
				     .host = "evil.example",
				     .port = 443,
				     .decision = "deny",
				     .rule = "not on the allow-list",
				     .status = 403};
	struct sbx_report_line l;
	char buf[300], *s;

	CHECK_INT(sbx_proxy_report_line(&ev, buf, sizeof(buf), &l), 1);
	s = sbx_report_line_json(&l);
	CHECK_STR(s, "{\"time\":\"2026-11-30T16:00:00.000Z\",\"pid\":null,\"comm\":null,"
		     "\"op\":\"connect\",\"address\":\"evil.example:443\",\"errno\":null,"
		     "\"rule\":\"not on the allow-list\",\"mechanism\":\"proxy\"}\n");
	free(s);
	ev.host = "::1";
	CHECK_INT(sbx_proxy_report_line(&ev, buf, sizeof(buf), &l), 1);
	CHECK_STR(l.address, "[::1]:443");
	/* What the proxy let through, or could not parse, is no denial. */
	ev.decision = "allow";
	CHECK_INT(sbx_proxy_report_line(&ev, buf, sizeof(buf), &l), 0);
	ev.decision = "invalid";
	CHECK_INT(sbx_proxy_report_line(&ev, buf, sizeof(buf), &l), 0);
}

/*
 * The model under the report is read off the plan's own (sbx_plan_linux_apply's): init stays
 * init, in place moves under init where the host makes the namespaces; on a host that cannot,
 * the run is refused, worded, and the model left as it was.
 */
TEST(report_model_from_the_plans_own)
{
	static const enum sbx_linux_model refused[] = {SBX_MODEL_IN_PLACE, SBX_MODEL_SUBREAPER};
	struct sbx_linux_facts f, bare;
	enum sbx_linux_model m;
	struct sbx_diag d;

	sbx_linux_facts_assumed(&f);
	bare = f;
	bare.mount_namespace = bare.pid_namespace = bare.ipc_namespace = false;
	snprintf(bare.userns_blocked_by, sizeof(bare.userns_blocked_by), "a test's host");

	m = SBX_MODEL_INIT;
	CHECK_INT(sbx_report_model(&bare, &m, &d), 0); /* made already: nothing more to make */
	CHECK_INT(m, SBX_MODEL_INIT);
	m = SBX_MODEL_IN_PLACE;
	CHECK_INT(sbx_report_model(&f, &m, &d), 0);
	CHECK_INT(m, SBX_MODEL_INIT);
	for (size_t i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		m = refused[i];
		sbx_diag_clear(&d);
		CHECK_INT(sbx_report_model(&bare, &m, &d), SBX_E_UNENFORCEABLE);
		CHECK_INT(m, refused[i]);
		CHECK(strstr(d.msg,
			     "(a PID namespace), which this host cannot make: a test's host"));
		CHECK(d.hint[0] != '\0');
	}
}

/* The report names a mechanism as the plan does, from the plan's one table: one bit, one name. */
TEST(report_mechanism_names_are_the_plans)
{
	char buf[SBX_MECH_NAME_MAX];

	CHECK_STR(sbx_mech_one(SBX_MECH_MOUNT_NS), "mount-namespace");
	CHECK_STR(sbx_mech_one(SBX_MECH_LANDLOCK), "landlock");
	CHECK_STR(sbx_mech_one(SBX_MECH_SECCOMP), "seccomp");
	CHECK_STR(sbx_mech_one(SBX_MECH_MOUNT_NS), sbx_mech_name(SBX_MECH_MOUNT_NS, buf));
	CHECK(!sbx_mech_one(0));
	CHECK(!sbx_mech_one(SBX_MECH_LANDLOCK | SBX_MECH_MOUNT_NS));
}
