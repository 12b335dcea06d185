/* SPDX-License-Identifier: MIT */
/*
 * A property of the Linux planner, over every combination of host facts (Landlock absent or
 * ABI 1 to 7, a mount namespace or not, root or not, seccomp or not, PID and IPC namespaces or
 * not, the network namespace and the broker of managed networking or not), a few shapes of the
 * network beyond the profile (none, sbxrun's own proxy, a Unix socket and local binding), and
 * every profile there is
 * (the built-ins, each planner case's, and every profile in the vectors): either the plan is
 * unenforceable, or every requirement it calls enforced
 *
 *   - names a mechanism, and only mechanisms these facts provide;
 *   - names one that can enforce its kind at all (a carve-out inside a writable root needs the
 *     mount namespace, a restricted network needs seccomp, ... judged here independently of
 *     the attacher's own reasoning);
 *   - and is applied: what the enter sequence applies for the plan (sbx_plan_linux_apply, which
 *     platform/linux/enforce.c follows) includes each mechanism it names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plancase.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

#define LL     SBX_MECH_LANDLOCK
#define NET    SBX_MECH_LANDLOCK_NET
#define MNT    SBX_MECH_MOUNT_NS
#define SEC    SBX_MECH_SECCOMP
#define PID    SBX_MECH_PID_NS
#define IPC    SBX_MECH_IPC_NS
#define SUP    SBX_MECH_SUPERVISOR
#define NETNS  SBX_MECH_NET_NS
#define BROKER SBX_MECH_UNIX_BROKER
#define PGRP   SBX_MECH_PROCESS_GROUP

struct ctx_of {
	const char *name;
	struct sbx_ctx ctx;
	size_t checked; /* enforceable plans checked */
};

/* Could mechanism set m, on its own, enforce requirement r of plan p on a host with facts f? */
static bool sufficient(const struct sbx_plan *p, const struct sbx_req *r, unsigned m,
		       const struct sbx_linux_facts *f)
{
	const struct sbx_roots *rt = &p->roots;
	bool in_writable = false;

	for (size_t i = 0; r->path && i < rt->n_writable; i++)
		in_writable |= sbx_path_covers(rt->writable[i].root, r->path);
	switch (r->kind) {
	case SBX_REQ_READ:
	case SBX_REQ_PLATFORM_DEFAULTS:
		return (m & LL) || (m == SBX_MECH_NONE && (rt->full_read || rt->full_write)) ||
		       (m & MNT && rt->full_read);
	case SBX_REQ_WRITE:
	case SBX_REQ_WRITE_CONFINED:
		return (m & (LL | MNT)) || (m == SBX_MECH_NONE && rt->full_write);
	case SBX_REQ_READ_ONLY:
		return (m & MNT) != 0;
	case SBX_REQ_DENY:
		/* Missing inside a writable root: only a mask can keep it from being created. */
		if (!r->exists)
			return in_writable ? (m & MNT) != 0 : (m & (LL | MNT)) != 0;
		return (m & MNT) || ((m & LL) && !in_writable && !rt->full_write);
	case SBX_REQ_DENY_GLOB:
		return (m & MNT) || (m & LL);
	case SBX_REQ_NETWORK:
		return p->network ? m == SBX_MECH_NONE : (m & SEC) != 0;
	case SBX_REQ_METADATA:
		return (m & (MNT | SEC)) || (m == SBX_MECH_NONE && rt->full_write);
	case SBX_REQ_PROTECT_MISSING:
		return (m & MNT) != 0;
	case SBX_REQ_SIGNALS:
		/*
		 * Landlock scopes signals from ABI 6 on; seccomp beside it refuses prlimit of
		 * another process, which Landlock has no rule for.
		 */
		/*
		 * Under init, kill(0) reaches the caller's group: its own, or refused; and a
		 * terminal, controlling or inherited, sends SIGIO to its foreground group outside:
		 * seccomp refuses O_ASYNC, or Landlock's scope the signal.
		 */
		if (m & PID)
			return ((m & SEC) || ((m & LL) && f->landlock_abi >= 6)) &&
			       (f->terminal || (m & PGRP));
		return (m & LL) && (m & SEC) && f->landlock_abi >= 6;
	case SBX_REQ_IPC:
		return (m & (IPC | SEC)) != 0;
	case SBX_REQ_DEVICES:
		return (m & (MNT | LL)) != 0;
	case SBX_REQ_PROCESSES:
		return (m & (PID | SUP)) != 0;
	case SBX_REQ_NO_CREATE:
		return (m & MNT) != 0; /* a mask on a point made on the host */
	case SBX_REQ_MANAGED_NETWORK:
		return (m & NETNS) && (m & SEC);
	case SBX_REQ_LOCAL_BINDING:
		return (p->network && !p->managed_network && m == SBX_MECH_NONE) ||
		       ((m & NETNS) && (m & SEC));
	case SBX_REQ_UNIX_SOCKET:
		return (p->network && !p->managed_network && m == SBX_MECH_NONE) ||
		       (!r->path && (m & SEC)) || ((m & BROKER) && (m & SEC));
	case SBX_REQ_PATH_SOCKETS:
		return (m & BROKER) && (m & SEC);
	case SBX_REQ_ABSTRACT_SOCKETS:
		/* Its own network namespace; seccomp or the broker, restricted; Landlock's scope. */
		return ((m & NETNS) && (m & SEC)) || (!p->network && (m & SEC)) ||
		       ((m & LL) && f->landlock_abi >= 6);
	case SBX_REQ_KERNEL_SURFACE:
		return (m & SEC) != 0;
	}
	return false;
}

static void check_plan(const char *name, const struct sbx_plan *p, const struct sbx_linux_facts *f)
{
	struct sbx_linux_apply a;
	bool init = f->mount_namespace && f->pid_namespace && f->ipc_namespace;
	bool ns = init && f->net_namespace;
	unsigned provided = (f->landlock_abi >= 1 ? LL : 0) | (f->landlock_abi >= 4 ? NET : 0) |
			    (f->mount_namespace ? MNT : 0) | (f->seccomp ? SEC : 0) |
			    (init ? PID | IPC : 0) | SUP | PGRP | (ns ? NETNS : 0) |
			    (ns && f->unix_broker ? BROKER : 0) | SBX_MECH_NONE;

	sbx_plan_linux_apply(p, f, &a);
	/*
	 * The enter sequence loads its base filter in every sandbox, whatever the plan names: a
	 * plan called enforceable on a host without seccomp would fail there, naming no rule.
	 */
	if (!f->seccomp || !f->no_new_privs)
		t_fail(__FILE__, __LINE__,
		       "%s (abi %d, mntns %d, root %d, pid %d, ipc %d): enforceable without "
		       "seccomp, which every sandbox loads",
		       name, f->landlock_abi, f->mount_namespace, f->running_as_root,
		       f->pid_namespace, f->ipc_namespace);
	for (size_t i = 0; i < p->n_reqs; i++) {
		const struct sbx_req *r = &p->reqs[i];
		char m[SBX_MECH_NAME_MAX], rule_buf[SBX_REQ_RULE_MAX];
		const char *rule = sbx_req_rule(r, rule_buf);

		if (r->status != SBX_ENFORCED)
			continue;
		sbx_mech_name(r->mech, m);
		if (!r->mech || (r->mech & ~provided))
			t_fail(__FILE__, __LINE__,
			       "%s (abi %d, mntns %d, root %d, seccomp %d, pid %d, ipc %d): %s: %s "
			       "not provided",
			       name, f->landlock_abi, f->mount_namespace, f->running_as_root,
			       f->seccomp, f->pid_namespace, f->ipc_namespace, rule, m);
		else if (!sufficient(p, r, r->mech, f))
			t_fail(__FILE__, __LINE__,
			       "%s (abi %d, mntns %d, root %d, seccomp %d, pid %d, ipc %d): %s: %s "
			       "cannot enforce it",
			       name, f->landlock_abi, f->mount_namespace, f->running_as_root,
			       f->seccomp, f->pid_namespace, f->ipc_namespace, rule, m);
		if (((r->mech & MNT) && !a.mount_namespace) ||
		    ((r->mech & LL) && r->kind != SBX_REQ_NETWORK && r->kind != SBX_REQ_SIGNALS &&
		     r->kind != SBX_REQ_ABSTRACT_SOCKETS && !a.landlock_fs) ||
		    ((r->mech & LL) &&
		     (r->kind == SBX_REQ_SIGNALS || r->kind == SBX_REQ_ABSTRACT_SOCKETS) &&
		     a.landlock_abi < 1) ||
		    ((r->mech & NET) && !a.landlock_net) ||
		    ((r->mech & SEC) && r->kind == SBX_REQ_NETWORK && !a.seccomp_network) ||
		    ((r->mech & SEC) && r->kind == SBX_REQ_METADATA && !a.seccomp_metadata) ||
		    ((r->mech & SEC) && r->kind == SBX_REQ_IPC && !a.seccomp_ipc) ||
		    ((r->mech & SEC) && r->kind == SBX_REQ_SIGNALS &&
		     !(a.model == SBX_MODEL_INIT ? a.seccomp_async : a.seccomp_ipc)) ||
		    ((r->mech & PGRP) && !a.own_group) ||
		    ((r->mech & (PID | IPC | NETNS | BROKER)) && a.model != SBX_MODEL_INIT) ||
		    ((r->mech & SUP) && a.model != SBX_MODEL_SUBREAPER) ||
		    ((r->mech & MNT) && r->kind == SBX_REQ_DEVICES && !a.private_dev) ||
		    ((r->mech & LL) && r->kind == SBX_REQ_DEVICES && !a.private_dev &&
		     !a.landlock_dev) ||
		    ((r->mech & NETNS) && !a.net_namespace) ||
		    ((r->mech & BROKER) && !a.unix_broker))
			t_fail(__FILE__, __LINE__, "%s: %s: %s named but not applied", name, rule,
			       m);
	}
	/* The private /dev hides the host's: nothing granted under it may be called enforced. */
	for (size_t i = 0; a.private_dev && i < p->n_reqs; i++) {
		const struct sbx_req *r = &p->reqs[i];
		char rule_buf[SBX_REQ_RULE_MAX];

		if (r->status == SBX_ENFORCED && sbx_linux_private_dev_hides(r->kind, r->path))
			t_fail(__FILE__, __LINE__,
			       "%s: %s: enforced, but the private /dev hides it", name,
			       sbx_req_rule(r, rule_buf));
	}
	if ((a.mount_namespace && !f->mount_namespace) || (a.landlock_abi > f->landlock_abi) ||
	    (a.model == SBX_MODEL_INIT && !init))
		t_fail(__FILE__, __LINE__, "%s: applies a mechanism the host lacks", name);
}

/* The network beyond the profile, in a few shapes: none, sbxrun's proxy, the allowances. */
static const char *const sockets[] = {"/run/agent.sock"};
static const char *const domains[] = {"example.com"};
static const struct sbx_net_opts net_shapes[] = {
	{0},
	{.own_proxy = true, .allow_domains = domains, .n_allow_domains = 1},
	{.unix_sockets = sockets, .n_unix_sockets = 1, .allow_local_binding = true},
};
#define N_SHAPES (sizeof(net_shapes) / sizeof(net_shapes[0]))

/* Every combination of facts, for one profile in one context. */
static void every_host(struct ctx_of *c, const struct sbx_profile *prof)
{
	for (int abi = 0; abi <= 15; abi++)
		for (int bits = 0; bits < 64 * (int)N_SHAPES; bits++) {
			const struct sbx_net_opts *shape = &net_shapes[bits / 64];
			struct sbx_linux_facts f;
			struct sbx_plan plan;
			struct sbx_diag d;

			memset(&f, 0, sizeof(f));
			snprintf(f.kernel, sizeof(f.kernel), "6.18");
			f.landlock_abi = abi & 7;
			f.terminal = abi & 8; /* the caller's process group kept */
			f.no_new_privs = true;
			f.mount_namespace = f.user_namespaces = bits & 1;
			f.running_as_root = bits & 2;
			f.seccomp = bits & 4;
			/* Without a mount namespace the probe never reports them. */
			f.pid_namespace = f.mount_namespace && (bits & 8);
			f.ipc_namespace = f.mount_namespace && (bits & 16);
			f.net_namespace = f.unix_broker = f.mount_namespace && (bits & 32);
			if (!f.mount_namespace && (bits & 56))
				continue;
			sbx_diag_clear(&d);
			if (sbx_plan_build(prof, &c->ctx, SBX_PREF_REQUIRE, shape->own_proxy,
					   SBX_WIN_DISABLED, &plan, &d) != 0)
				return; /* a plan that fails refuses the run: nothing to check */
			if (sbx_plan_network(&plan, shape, &d) != 0) {
				sbx_plan_free(&plan);
				continue;
			}
			if (sbx_plan_attach_linux(&plan, &f) != 0)
				t_fail(__FILE__, __LINE__, "%s: attach failed", c->name);
			else if (sbx_plan_enforceable(&plan)) {
				check_plan(c->name, &plan, &f);
				c->checked++;
			}
			sbx_plan_free(&plan);
		}
}

static void vector_profile(json_t *pj, void *arg)
{
	struct ctx_of *c = arg;
	struct sbx_profile prof = {0};
	struct sbx_diag d;

	sbx_diag_clear(&d);
	if (plancase_profile(pj, &prof, &d) == 0)
		every_host(c, &prof);
	sbx_profile_free(&prof);
}

TEST(plan_linux_property_every_host_every_profile)
{
	static const char *const builtins[] = {":read-only", ":workspace", ":danger-full-access"};
	struct ctx_of c = {.name = "builtin"};
	size_t n = 0, total = 0;
	char **names = plancase_list(&n);
	json_t *all;

	/* The built-ins, in a real directory of the host. */
	c.ctx.cwd = vec_cwd();
	c.ctx.platform = SBX_PLATFORM_LINUX;
	for (size_t i = 0; i < sizeof(builtins) / sizeof(*builtins); i++) {
		struct sbx_profile prof = {0};
		struct sbx_diag d;

		sbx_diag_clear(&d);
		CHECK_INT(sbx_profile_builtin(builtins[i], &prof, &d), 0);
		c.name = builtins[i];
		every_host(&c, &prof);
		sbx_profile_free(&prof);
	}
	total += c.checked;
	/* Each planner case's profile, on that case's file system. */
	for (size_t i = 0; i < n; i++) {
		json_t *facts = plancase_json(names[i], "facts.json");
		json_t *pj = plancase_json(names[i], "profile.json");
		struct ctx_of cc = {.name = names[i]};
		struct fakefs fs;

		if (facts && pj) {
			fakefs_init(&fs, json_object_get(facts, "fs"));
			cc.ctx.cwd = json_string_value(json_object_get(facts, "cwd"));
			cc.ctx.tmpdir = json_string_value(json_object_get(facts, "tmpdir"));
			cc.ctx.allow_git = json_is_true(json_object_get(facts, "allow_git"));
			cc.ctx.platform = SBX_PLATFORM_LINUX;
			cc.ctx.points = true;
			cc.ctx.fs = &fs.view;
			vector_profile(pj, &cc);
			total += cc.checked;
		}
		json_decref(facts);
		json_decref(pj);
	}
	sbx_strv_free(names, n);
	/* Every profile the vectors hold, in the host's placeholder directories. */
	all = vec_all_cases();
	c.name = "vectors";
	c.checked = 0;
	CHECK(vec_each_profile(all, vector_profile, &c) >= 40);
	total += c.checked;
	json_decref(all);
	/* Enough enforceable plans were seen for the property to mean something. */
	CHECK(total > 2000);
}
