/* SPDX-License-Identifier: MIT */
/*
 * plan_windows.c - what the Windows backend can enforce, decided for every requirement.
 *
 * The backend (platform/windows/) runs the command under a restricted token made from the
 * caller's own token with WRITE_RESTRICTED: a write succeeds only when the object's ACL grants
 * it both to the user and to one of the token's restricting SIDs (a capability SID made for the
 * run, the logon SID, Everyone). sbxrun adds an inheritable allow ACE for the capability SID on
 * each writable root, and a deny ACE on each read-only carve-out inside one.
 *
 * That mechanism constrains writes only. What it cannot do is refused here, before anything
 * runs, never approximated:
 *   - reads: a write-restricted token reads with the user's full rights, so any profile whose
 *     reads are narrower than "everything" (split read roots, deny-read paths and globs) fails;
 *   - network: an unelevated token has no network filter (Windows Firewall rules scoped to a
 *     user need a separate account, which is the elevated design); proxy variables in the
 *     environment are advice a program may ignore, so a restricted network is refused;
 *   - managed network: needs the elevated design too;
 *   - a writable root inside a read-only carve-out: the carve-out's inherited deny ACE would
 *     have to be overridden below it, which this backend does not attempt;
 *   - a profile that is not a managed, write-restricting one (disabled, external, full-disk
 *     write) has nothing a restricted token would restrict, so with a sandbox required it fails.
 * Unlike Codex, sbxrun needs no "writable roots equal the legacy projection" rule: every writable
 * root gets its own ACE, so any set of roots is expressed exactly.
 *
 * Pure: plans for Windows are made and explained on any host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "winpath.h"

/* Marks r unenforceable (with the mechanisms mech, usually none), saying why and the fix. */
static int refuse_as(struct sbx_req *r, unsigned mech, const char *why, const char *hint)
{
	return sbx_req_set(r, SBX_UNENFORCEABLE, mech, hint, "%s", why);
}

/* No mechanism enforces an unenforceable requirement. */
static int refuse(struct sbx_req *r, const char *why, const char *hint)
{
	return refuse_as(r, 0, why, hint);
}

static void enforce(struct sbx_req *r)
{
	sbx_req_set(r, SBX_ENFORCED, SBX_MECH_RESTRICTED_TOKEN, NULL, NULL); /* copies nothing */
}

/* Appends a requirement with no path, for refusals no existing requirement can carry. */
static struct sbx_req *push_req(struct sbx_plan *p, enum sbx_req_kind kind, const char *rule)
{
	struct sbx_req *r;

	if (p->n_reqs == p->cap_reqs) {
		size_t cap = p->cap_reqs ? 2 * p->cap_reqs : 8;
		struct sbx_req *grown = realloc(p->reqs, cap * sizeof(*grown));

		if (!grown)
			return NULL;
		p->reqs = grown;
		p->cap_reqs = cap;
	}
	r = &p->reqs[p->n_reqs];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	r->rule = strdup(rule);
	if (!r->rule)
		return NULL;
	p->n_reqs++;
	return r;
}

static bool is_sep(char c)
{
	return c == '\\' || c == '/';
}

static char fold(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

/*
 * Component-wise prefix for Windows paths: either separator, ASCII case folded (NTFS names are
 * case-insensitive; folding only ASCII can miss a non-ASCII alias, which here can only make a
 * nested root look separate, and the ACL order then still denies below the carve-out).
 */
static bool win_covers(const char *prefix, const char *path)
{
	size_t n = strlen(prefix);

	while (n > 1 && is_sep(prefix[n - 1]) && !(n == 3 && prefix[1] == ':'))
		n--;
	for (size_t i = 0; i < n; i++) {
		if (is_sep(prefix[i]) && is_sep(path[i]))
			continue;
		if (!path[i] || fold(prefix[i]) != fold(path[i]))
			return false;
	}
	return !path[n] || is_sep(path[n]) || is_sep(prefix[n - 1]);
}

/*
 * 1 when path names a whole volume ("X:\", "\\server\share" in any spelling, or the "/" of the
 * unrestricted profiles), where an ACL change would rewrite every file; 0 when it does not; -1
 * when it has no canonical Windows form (*why says why). The plan's paths are canonical already
 * (resolve.c); deciding on the canonical form again here keeps the refusal independent of
 * whoever built the plan.
 */
static int volume_root(const char *path, const char **why)
{
	char *canon = NULL;
	int root;

	if (strcmp(path, "/") == 0)
		return 1;
	if (sbx_win_path_normalize(path, &canon, why) != 0)
		return -1;
	root = sbx_win_path_is_volume_root(canon);
	free(canon);
	return root;
}

/* True when path lies inside a read-only carve-out of any writable root. */
static bool under_read_only(const struct sbx_plan *p, const char *path)
{
	for (size_t i = 0; i < p->roots.n_writable; i++) {
		const struct sbx_writable_root *w = &p->roots.writable[i];

		for (size_t j = 0; j < w->n_read_only; j++)
			if (win_covers(w->read_only[j], path))
				return true;
	}
	return false;
}

static const char *fs_kind_name(const struct sbx_profile *pr)
{
	switch (pr->fs.kind) {
	case SBX_FS_RESTRICTED:
		return "restricted";
	case SBX_FS_UNRESTRICTED:
		return "unrestricted";
	case SBX_FS_EXTERNAL:
		return "external";
	}
	return "unknown";
}

/* Every requirement gets the same refusal (the backend as a whole cannot run the profile). */
static int refuse_all(struct sbx_plan *p, unsigned mech, const char *why, const char *hint)
{
	if (p->n_reqs == 0 &&
	    !push_req(p, SBX_REQ_NETWORK, p->network ? "network enabled" : "network restricted"))
		return -ENOMEM;
	for (size_t i = 0; i < p->n_reqs; i++)
		if (refuse_as(&p->reqs[i], mech, why, hint) < 0)
			return -ENOMEM;
	return 0;
}

static const char why_reads[] =
	"a write-restricted token cannot narrow reads: the command could read everything the user "
	"can";
static const char hint_reads[] =
	"give the profile read access to the root (a \"root\" entry with \"read\") and no deny "
	"entries, or run it on Linux or macOS";

/* A readable volume root: reads are then narrowed by deny entries only, if at all. */
static bool reads_root(const struct sbx_plan *p)
{
	for (size_t i = 0; i < p->n_reqs; i++)
		if (p->reqs[i].kind == SBX_REQ_READ && p->reqs[i].path &&
		    volume_root(p->reqs[i].path, NULL) == 1)
			return true;
	return false;
}

/* Codex's words (its Windows refusals), and what sbxrun lacks for them. */
static const char why_managed[] = "managed networking requires the elevated Windows sandbox "
				  "backend, which sbxrun does not implement";
static const char hint_managed[] =
	"run the command on Linux or macOS, or without --managed-network";

static int attach_restricted_token(struct sbx_plan *p)
{
	bool read_refused = false, all_readable = p->roots.full_read || reads_root(p);
	char why[256];

	if (p->profile.type != SBX_MANAGED || p->profile.fs.kind != SBX_FS_RESTRICTED ||
	    p->roots.full_write) {
		snprintf(why, sizeof(why),
			 "the Windows restricted-token sandbox has nothing to restrict for "
			 "file_system=%s, network=%s, permission_profile=%s",
			 p->roots.full_write && p->profile.fs.kind == SBX_FS_RESTRICTED
				 ? "full-disk-write"
				 : fs_kind_name(&p->profile),
			 p->network ? "enabled" : "restricted",
			 sbx_profile_type_name(p->profile.type));
		/* A managed network is what makes the sandbox wanted: say why it cannot be. */
		if (p->managed_network)
			return refuse_all(p, 0, why_managed, hint_managed);
		return refuse_all(p, 0, why,
				  "drop --sandbox require, or use a profile that limits writes");
	}

	for (size_t i = 0; i < p->n_reqs; i++) {
		struct sbx_req *r = &p->reqs[i];
		const char *bad = NULL;
		int ret = 0, root;

		switch (r->kind) {
		case SBX_REQ_READ:
		case SBX_REQ_PLATFORM_DEFAULTS:
			/* With the root readable, what narrows reads is a deny: refused below. */
			if (all_readable) {
				enforce(r);
			} else {
				ret = refuse(r, why_reads, hint_reads);
				read_refused = true;
			}
			break;
		case SBX_REQ_DENY:
		case SBX_REQ_DENY_GLOB:
			/* WRITE_RESTRICTED consults the restricting SIDs for writes only. */
			ret = refuse(r,
				     "the Windows restricted-token sandbox cannot deny reads: a "
				     "write-restricted token reads with the user's own rights",
				     "remove the deny entry, or run the command on Linux or macOS");
			read_refused = true;
			break;
		case SBX_REQ_WRITE:
			root = r->path ? volume_root(r->path, &bad) : 0;
			if (root < 0)
				ret = refuse(r, bad ? bad : "not a Windows path",
					     "name the directory by its full path, such as "
					     "C:\\work\\dir");
			else if (root)
				ret = refuse(
					r,
					"granting write on a whole volume would rewrite the ACL of "
					"every file on it",
					"grant write on the directories the command needs");
			else if (r->path && under_read_only(p, r->path))
				ret = refuse(
					r,
					"the Windows restricted-token sandbox cannot reopen a "
					"writable root inside a read-only carve-out",
					"make the carve-out writable, or drop the nested root");
			else
				enforce(r);
			break;
		case SBX_REQ_READ_ONLY:
		case SBX_REQ_PROTECT_MISSING:
			/* A deny-write ACE for the capability SID (a missing path is created
			 * empty first, so the ACE has an object to sit on). */
		case SBX_REQ_WRITE_CONFINED:
			/* The restricting SIDs make every write outside the granted roots fail. */
		case SBX_REQ_METADATA:
			/* WRITE_DAC, WRITE_OWNER and FILE_WRITE_ATTRIBUTES are write accesses:
			 * checked against the restricting SIDs like any write. */
			enforce(r);
			break;
		case SBX_REQ_NO_CREATE:
			ret = refuse(
				r,
				"the Windows restricted-token sandbox refuses writes by an "
				"access control entry, which needs an object to sit on: this "
				"file of git's does not exist, and an empty one is not "
				"always harmless to git",
				sbx_git_checkout_point(r->path)
					? "check the submodule out (git submodule update), so "
					  "that its .git exists and stays read-only, or run on "
					  "Linux or macOS"
					: "run without --allow-git (the git directory stays "
					  "read-only), or on Linux or macOS");
			break;
		case SBX_REQ_NETWORK:
			if (p->network)
				enforce(r);
			else
				ret = refuse(
					r,
					"the Windows restricted-token sandbox cannot block the "
					"network (an unelevated token has no network filter, and "
					"sbxrun does not fake one with proxy variables)",
					"allow the network in the profile (\"network\": "
					"\"enabled\"), "
					"or run the command on Linux or macOS");
			break;
		case SBX_REQ_MANAGED_NETWORK:
			ret = refuse(r, why_managed, hint_managed);
			break;
		case SBX_REQ_UNIX_SOCKET:
			ret = refuse(r,
				     "an unelevated restricted token has no network filter, so it "
				     "cannot keep Unix sockets to an allow-list",
				     "run the command on Linux or macOS, or without "
				     "--allow-unix-socket");
			break;
		case SBX_REQ_SIGNALS:
		case SBX_REQ_IPC:
		case SBX_REQ_DEVICES:
		case SBX_REQ_PROCESSES:
			/* Planned for Linux only (plan.c): never in a Windows plan. */
			ret = refuse(r, "not a requirement of the Windows sandbox", NULL);
			break;
		case SBX_REQ_LOCAL_BINDING:
			ret = refuse(r,
				     "local binding is an allowance of managed networking, which "
				     "requires the elevated Windows sandbox backend",
				     "run the command on Linux or macOS, or without "
				     "--allow-local-binding");
			break;
		case SBX_REQ_PATH_SOCKETS:     /* planned for Linux only */
		case SBX_REQ_ABSTRACT_SOCKETS: /* planned for Linux only */
		case SBX_REQ_KERNEL_SURFACE:   /* planned for Linux only */
			break;
		}
		if (ret < 0)
			return ret;
	}

	/* Reads narrower than everything, with no requirement that says so: say it here. */
	if (!p->roots.full_read && !read_refused) {
		struct sbx_req *r = push_req(p, SBX_REQ_READ, "read only the listed roots");

		if (!r || refuse(r, why_reads, hint_reads) < 0)
			return -ENOMEM;
	}
	return 0;
}

int sbx_plan_attach_windows(struct sbx_plan *p, enum sbx_windows_level level)
{
	if (!p)
		return -EINVAL;

	if (!p->sandbox_requested) {
		/* Nothing is confined: the command runs as the user (still inside a job). */
		for (size_t i = 0; i < p->n_reqs; i++) {
			struct sbx_req *r = &p->reqs[i];

			if (sbx_req_set(r, SBX_SKIPPED, SBX_MECH_NONE, NULL,
					"no sandbox is requested, so nothing is enforced"))
				return -ENOMEM;
		}
		return 0;
	}

	switch (level) {
	case SBX_WIN_DISABLED:
		return refuse_all(p, 0,
				  "the Windows sandbox is disabled (--windows-sandbox disabled)",
				  "use --windows-sandbox restricted-token");
	case SBX_WIN_ELEVATED:
		return refuse_all(p, 0,
				  "the elevated Windows sandbox (dedicated sandbox accounts and "
				  "firewall rules) is not implemented by sbxrun",
				  "use --windows-sandbox restricted-token");
	case SBX_WIN_RESTRICTED_TOKEN:
		return attach_restricted_token(p);
	}
	return -EINVAL;
}
