/* SPDX-License-Identifier: MIT */
/*
 * What the Windows restricted-token backend enforces and what it refuses. Plans are built by
 * hand here, so these tests check the attacher's rules alone, whatever plan.c produces.
 */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "winpath_cases.h"

/* A writable root with up to two read-only carve-outs. */
struct wroot {
	const char *root, *ro[2];
};

struct plan_spec {
	enum sbx_profile_type type;
	enum sbx_fs_kind fs_kind;
	bool full_read, full_write, network, requested;
	struct wroot writable[2];
};

static void add_req(struct sbx_plan *p, enum sbx_req_kind kind, const char *path, const char *rule)
{
	struct sbx_req *r;

	if (p->n_reqs == p->cap_reqs) {
		p->cap_reqs = p->cap_reqs ? 2 * p->cap_reqs : 4;
		p->reqs = realloc(p->reqs, p->cap_reqs * sizeof(*p->reqs));
	}
	r = &p->reqs[p->n_reqs++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->path = path ? strdup(path) : NULL;
	r->rule = strdup(rule);
}

static void mk_plan(struct sbx_plan *p, const struct plan_spec *s)
{
	size_t nw = 0;

	memset(p, 0, sizeof(*p));
	p->platform = SBX_PLATFORM_WINDOWS;
	p->profile.type = s->type;
	p->profile.fs.kind = s->fs_kind;
	p->profile.network = s->network;
	p->network = s->network;
	p->sandbox_requested = s->requested;
	p->sandbox = SBX_SANDBOX_WINDOWS_RESTRICTED_TOKEN;
	p->roots.full_read = s->full_read;
	p->roots.full_write = s->full_write;
	while (nw < 2 && s->writable[nw].root)
		nw++;
	p->roots.writable = calloc(nw ? nw : 1, sizeof(*p->roots.writable));
	p->roots.n_writable = nw;
	for (size_t i = 0; i < nw; i++) {
		struct sbx_writable_root *w = &p->roots.writable[i];

		w->root = strdup(s->writable[i].root);
		w->read_only = calloc(2, sizeof(char *));
		for (size_t j = 0; j < 2 && s->writable[i].ro[j]; j++)
			w->read_only[w->n_read_only++] = strdup(s->writable[i].ro[j]);
	}
}

static void plan_done(struct sbx_plan *p)
{
	for (size_t i = 0; i < p->n_reqs; i++) {
		sbx_req_release(&p->reqs[i]);
	}
	free(p->reqs);
	for (size_t i = 0; i < p->roots.n_writable; i++) {
		for (size_t j = 0; j < p->roots.writable[i].n_read_only; j++)
			free(p->roots.writable[i].read_only[j]);
		free(p->roots.writable[i].read_only);
		free(p->roots.writable[i].root);
	}
	free(p->roots.writable);
}

static const struct sbx_req *find(const struct sbx_plan *p, const char *rule)
{
	char buf[SBX_REQ_RULE_MAX];

	for (size_t i = 0; i < p->n_reqs; i++)
		if (strcmp(sbx_req_rule(&p->reqs[i], buf), rule) == 0)
			return &p->reqs[i];
	return NULL;
}

static size_t count_unenforceable(const struct sbx_plan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n_reqs; i++)
		n += p->reqs[i].status == SBX_UNENFORCEABLE;
	return n;
}

#define CHECK_CONTAINS(hay, needle)                                                                \
	do {                                                                                       \
		const char *h_ = (hay);                                                            \
		if (!h_ || !strstr(h_, (needle)))                                                  \
			t_fail(__FILE__, __LINE__, "\"%s\" does not contain \"%s\"",               \
			       h_ ? h_ : "(null)", (needle));                                      \
	} while (0)

static const struct plan_spec workspace = {
	.type = SBX_MANAGED,
	.fs_kind = SBX_FS_RESTRICTED,
	.full_read = true,
	.requested = true,
	.writable = {{"C:\\work", {"C:\\work\\.git"}}},
};

static void add_workspace_reqs(struct sbx_plan *p)
{
	add_req(p, SBX_REQ_READ, "C:\\", "read C:\\");
	add_req(p, SBX_REQ_WRITE, "C:\\work", "write C:\\work");
	add_req(p, SBX_REQ_READ_ONLY, "C:\\work\\.git", "read-only C:\\work\\.git");
	add_req(p, SBX_REQ_PROTECT_MISSING, "C:\\work\\.codex", "protect C:\\work\\.codex");
	add_req(p, SBX_REQ_METADATA, NULL, "metadata");
	add_req(p, SBX_REQ_NETWORK, NULL, p->network ? "network enabled" : "network restricted");
}

TEST(plan_windows_workspace_network_enabled)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;

	s.network = true;
	mk_plan(&p, &s);
	add_workspace_reqs(&p);
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	CHECK_INT(p.n_reqs, 6);
	CHECK_INT(count_unenforceable(&p), 0);
	for (size_t i = 0; i < p.n_reqs; i++) {
		CHECK(p.reqs[i].mech == SBX_MECH_RESTRICTED_TOKEN);
		CHECK_INT(p.reqs[i].status, SBX_ENFORCED);
		CHECK(sbx_req_reason(&p.reqs[i]) == NULL && sbx_req_hint(&p.reqs[i]) == NULL);
	}
	plan_done(&p);
}

TEST(plan_windows_network_restricted_refused)
{
	struct sbx_plan p;
	const struct sbx_req *r;

	mk_plan(&p, &workspace);
	add_workspace_reqs(&p);
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	CHECK_INT(count_unenforceable(&p), 1);
	r = find(&p, "network restricted");
	CHECK(r != NULL);
	if (r) {
		CHECK_INT(r->status, SBX_UNENFORCEABLE);
		CHECK_CONTAINS(sbx_req_reason(r), "cannot block the network");
		CHECK_CONTAINS(sbx_req_reason(r), "proxy variables");
		CHECK(sbx_req_hint(r) != NULL);
	}
	r = find(&p, "write C:\\work");
	CHECK(r && r->status == SBX_ENFORCED);
	plan_done(&p);
}

/*
 * Git mode: a file git reads that exists is kept by a deny ACE like any carve-out; a missing one
 * has nothing for an ACE to sit on, and an empty one made there is not always harmless to git
 * (an empty commondir stops it): refused, in words.
 */
TEST(plan_windows_git_mode)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;
	const struct sbx_req *r;

	s.network = true;
	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_READ, "C:\\", "read C:\\");
	add_req(&p, SBX_REQ_WRITE, "C:\\work", "write C:\\work");
	add_req(&p, SBX_REQ_READ_ONLY, "C:\\work\\.git\\hooks", "read-only C:\\work\\.git\\hooks");
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	CHECK_INT(count_unenforceable(&p), 0);
	plan_done(&p);

	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_WRITE, "C:\\work", "write C:\\work");
	add_req(&p, SBX_REQ_NO_CREATE, "C:\\work\\.git\\commondir",
		"no-create C:\\work\\.git\\commondir");
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	r = find(&p, "no-create C:\\work\\.git\\commondir");
	CHECK(r && r->status == SBX_UNENFORCEABLE && !r->mech);
	CHECK_CONTAINS(r ? sbx_req_reason(r) : NULL, "needs an object to sit on");
	CHECK_CONTAINS(r ? sbx_req_hint(r) : NULL, "run without --allow-git");
	CHECK_INT(count_unenforceable(&p), 1);
	plan_done(&p);

	/* A submodule checkout's .git is kept outside git mode too: that is no way out. */
	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_WRITE, "C:\\work", "write C:\\work");
	add_req(&p, SBX_REQ_NO_CREATE, "C:\\work\\sub\\.git", "no-create C:\\work\\sub\\.git");
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	r = find(&p, "no-create C:\\work\\sub\\.git");
	CHECK(r && r->status == SBX_UNENFORCEABLE && !r->mech);
	CHECK_CONTAINS(r ? sbx_req_hint(r) : NULL, "git submodule update");
	CHECK(r && !strstr(sbx_req_hint(r), "--allow-git"));
	plan_done(&p);
}

TEST(plan_windows_deny_read_refused)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;
	const struct sbx_req *r;

	s.network = true;
	s.full_read = false; /* any deny entry takes full read away */
	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_READ, "C:\\", "read C:\\");
	add_req(&p, SBX_REQ_WRITE, "C:\\work", "write C:\\work");
	add_req(&p, SBX_REQ_DENY, "C:\\work\\secret", "deny C:\\work\\secret");
	add_req(&p, SBX_REQ_DENY_GLOB, "C:\\work\\**\\*.pem", "deny C:\\work\\**\\*.pem");
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	r = find(&p, "deny C:\\work\\secret");
	CHECK(r && r->status == SBX_UNENFORCEABLE);
	CHECK_CONTAINS(r ? sbx_req_reason(r) : NULL, "cannot deny reads");
	r = find(&p, "deny C:\\work\\**\\*.pem");
	CHECK(r && r->status == SBX_UNENFORCEABLE);
	r = find(&p, "write C:\\work");
	CHECK(r && r->status == SBX_ENFORCED);
	/* Reading the root is what the token does; only the denies are refused; nothing added. */
	r = find(&p, "read C:\\");
	CHECK(r && r->status == SBX_ENFORCED);
	CHECK_INT(p.n_reqs, 5);
	CHECK_INT(count_unenforceable(&p), 2);
	plan_done(&p);
}

TEST(plan_windows_split_read_refused)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;
	const struct sbx_req *r;

	s.network = true;
	s.full_read = false;
	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_READ, "C:\\tools", "read C:\\tools");
	add_req(&p, SBX_REQ_PLATFORM_DEFAULTS, NULL, "platform defaults");
	add_req(&p, SBX_REQ_WRITE, "C:\\work", "write C:\\work");
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	r = find(&p, "read C:\\tools");
	CHECK(r && r->status == SBX_UNENFORCEABLE);
	CHECK_CONTAINS(r ? sbx_req_reason(r) : NULL, "cannot narrow reads");
	r = find(&p, "platform defaults");
	CHECK(r && r->status == SBX_UNENFORCEABLE);
	CHECK_INT(count_unenforceable(&p), 2);
	plan_done(&p);
}

/* Only writes listed, so reads are narrower than everything: a requirement is added to say so. */
TEST(plan_windows_read_restriction_without_read_req)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;
	const struct sbx_req *r;

	s.network = true;
	s.full_read = false;
	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_WRITE, "C:\\work", "write C:\\work");
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	CHECK_INT(p.n_reqs, 3);
	r = find(&p, "read only the listed roots");
	CHECK(r && r->status == SBX_UNENFORCEABLE && r->kind == SBX_REQ_READ && !r->path);
	CHECK_INT(count_unenforceable(&p), 1);
	plan_done(&p);
}

TEST(plan_windows_nested_writable_under_read_only)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;
	const struct sbx_req *r;

	s.network = true;
	s.writable[0] = (struct wroot){"C:\\work", {"C:\\work\\vendor"}};
	s.writable[1] = (struct wroot){"c:\\WORK\\Vendor\\tmp", {NULL}};
	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_READ, "C:\\", "read C:\\");
	add_req(&p, SBX_REQ_WRITE, "C:\\work", "write C:\\work");
	add_req(&p, SBX_REQ_READ_ONLY, "C:\\work\\vendor", "read-only C:\\work\\vendor");
	add_req(&p, SBX_REQ_WRITE, "c:\\WORK\\Vendor\\tmp", "write c:\\WORK\\Vendor\\tmp");
	/* A sibling whose name only starts like the carve-out is not inside it. */
	add_req(&p, SBX_REQ_WRITE, "C:\\work\\vendor2", "write C:\\work\\vendor2");
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	r = find(&p, "write c:\\WORK\\Vendor\\tmp");
	CHECK(r && r->status == SBX_UNENFORCEABLE);
	CHECK_CONTAINS(r ? sbx_req_reason(r) : NULL, "inside a read-only carve-out");
	r = find(&p, "write C:\\work\\vendor2");
	CHECK(r && r->status == SBX_ENFORCED);
	r = find(&p, "write C:\\work");
	CHECK(r && r->status == SBX_ENFORCED);
	CHECK_INT(count_unenforceable(&p), 1);
	plan_done(&p);
}

/*
 * Every spelling of a whole volume in the path table is refused, whatever the plan's producer
 * did to it; every other canonical path is granted; a path with no canonical form is refused.
 * The share directory beside each stays granted (the positive control).
 */
TEST(plan_windows_volume_root_write_refused)
{
	json_t *t = winpath_cases("normalize"), *c;
	struct plan_spec s = workspace;
	size_t i, n_roots = 0;

	s.network = true;
	json_array_foreach(t, i, c)
	{
		const char *in = json_string_value(json_object_get(c, "in"));
		bool ok = json_object_get(c, "out") != NULL;
		bool root = json_is_true(json_object_get(c, "volume_root"));
		struct sbx_plan p;

		mk_plan(&p, &s);
		add_req(&p, SBX_REQ_WRITE, in, "write it");
		add_req(&p, SBX_REQ_WRITE, "\\\\srv\\share\\proj", "write share dir");
		CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
		if (ok && !root) {
			if (p.reqs[0].status != SBX_ENFORCED)
				t_fail(__FILE__, __LINE__, "write \"%s\" refused: %s", in,
				       sbx_req_reason(&p.reqs[0]));
		} else if (p.reqs[0].status != SBX_UNENFORCEABLE) {
			t_fail(__FILE__, __LINE__, "write \"%s\" not refused", in);
		} else if (root) {
			n_roots++;
			CHECK_CONTAINS(sbx_req_reason(&p.reqs[0]), "whole volume");
		}
		CHECK_INT(p.reqs[1].status, SBX_ENFORCED);
		plan_done(&p);
	}
	CHECK(n_roots >= 25);

	/* The unrestricted profiles' "write /" is a whole volume too. */
	{
		struct sbx_plan p;

		mk_plan(&p, &s);
		add_req(&p, SBX_REQ_WRITE, "/", "write /");
		CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
		CHECK_INT(p.reqs[0].status, SBX_UNENFORCEABLE);
		CHECK_CONTAINS(sbx_req_reason(&p.reqs[0]), "whole volume");
		plan_done(&p);
	}
}

TEST(plan_windows_managed_network_refused)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;
	const struct sbx_req *r;

	s.network = true;
	mk_plan(&p, &s);
	add_workspace_reqs(&p);
	add_req(&p, SBX_REQ_MANAGED_NETWORK, NULL, "managed network");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	r = find(&p, "managed network");
	CHECK(r && r->status == SBX_UNENFORCEABLE);
	CHECK_CONTAINS(r ? sbx_req_reason(r) : NULL, "elevated Windows sandbox");
	CHECK_INT(count_unenforceable(&p), 1);
	plan_done(&p);
}

TEST(plan_windows_levels)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;

	s.network = true;
	mk_plan(&p, &s);
	add_workspace_reqs(&p);
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_DISABLED), 0);
	CHECK_INT(count_unenforceable(&p), p.n_reqs);
	CHECK_CONTAINS(sbx_req_reason(&p.reqs[0]), "--windows-sandbox disabled");
	CHECK(p.reqs[0].mech == 0);
	plan_done(&p);

	mk_plan(&p, &s);
	add_workspace_reqs(&p);
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_ELEVATED), 0);
	CHECK_INT(count_unenforceable(&p), p.n_reqs);
	CHECK_CONTAINS(sbx_req_reason(&p.reqs[1]), "not implemented");
	plan_done(&p);

	/* A plan with no requirement at all still says why it is refused. */
	mk_plan(&p, &s);
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_DISABLED), 0);
	CHECK_INT(p.n_reqs, 1);
	CHECK_INT(count_unenforceable(&p), 1);
	plan_done(&p);

	mk_plan(&p, &s);
	add_workspace_reqs(&p);
	CHECK(sbx_plan_attach_windows(&p, (enum sbx_windows_level)7) < 0);
	plan_done(&p);
}

TEST(plan_windows_not_requested_skips)
{
	struct plan_spec s = workspace;
	struct sbx_plan p;

	s.requested = false;
	mk_plan(&p, &s);
	add_workspace_reqs(&p);
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_DISABLED), 0);
	CHECK_INT(count_unenforceable(&p), 0);
	for (size_t i = 0; i < p.n_reqs; i++)
		CHECK_INT(p.reqs[i].status, SBX_SKIPPED);
	plan_done(&p);
}

/* A sandbox required for a profile with nothing to restrict (as Codex does): refused as a whole. */
TEST(plan_windows_unrestricted_profiles_refused)
{
	struct plan_spec s = {
		.type = SBX_DISABLED,
		.fs_kind = SBX_FS_UNRESTRICTED,
		.network = true,
		.requested = true,
		.full_read = true,
		.full_write = true,
	};
	struct sbx_plan p;

	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	CHECK_INT(count_unenforceable(&p), 1);
	CHECK_CONTAINS(sbx_req_reason(&p.reqs[0]), "file_system=unrestricted, network=enabled, "
						   "permission_profile=disabled");
	plan_done(&p);

	s.type = SBX_MANAGED;
	s.fs_kind = SBX_FS_RESTRICTED;
	mk_plan(&p, &s);
	add_req(&p, SBX_REQ_WRITE, "C:\\", "write C:\\");
	add_req(&p, SBX_REQ_NETWORK, NULL, "network enabled");
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	CHECK_INT(count_unenforceable(&p), 2);
	CHECK_CONTAINS(sbx_req_reason(&p.reqs[1]), "file_system=full-disk-write");
	plan_done(&p);

	s.type = SBX_EXTERNAL;
	s.fs_kind = SBX_FS_EXTERNAL;
	s.network = false;
	mk_plan(&p, &s);
	CHECK_INT(sbx_plan_attach_windows(&p, SBX_WIN_RESTRICTED_TOKEN), 0);
	CHECK_INT(p.n_reqs, 1);
	CHECK_STR(p.reqs[0].rule, "network restricted");
	CHECK_CONTAINS(sbx_req_reason(&p.reqs[0]), "file_system=external, network=restricted, "
						   "permission_profile=external");
	plan_done(&p);
}
