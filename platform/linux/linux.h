/* SPDX-License-Identifier: MIT */
/*
 * linux.h - the Linux backend: host probe, helper argv, re-exec, and the enter sequence.
 *
 * Only platform/linux/ and cmd/ include this. Functions return 0 or -errno / SBX_E_* and fill a
 * struct sbx_diag; the one exception is the enter sequence, which after its point of no return
 * calls sbx_linux_die() (provided by cmd/) instead of returning, so a half-applied sandbox never
 * reaches execve.
 */
#ifndef SBX_PLATFORM_LINUX_H
#define SBX_PLATFORM_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sbx.h"

#define SBX_HELPER_NAME "sbxrun-linux-sandbox"
/* Above this many bytes the profile goes through a sealed memfd: argv and envp share ARG_MAX. */
#define SBX_PROFILE_ARG_MAX (64u * 1024u)
/* The largest file the helper accepts through --permission-profile-fd, same as a profile file. */
#define SBX_PROFILE_FD_MAX SBX_MAX_PROFILE_BYTES

/* Fills the facts of this host; never fails (an unknown fact reads as "not available"). */
int sbx_linux_probe(struct sbx_linux_facts *f);

/* The unshare(2) flags the enter sequence uses for its mount namespace on this host. */
int sbx_linux_mntns_flags(bool running_as_root);

/*
 * The argv that `run` executes for a plan:
 *   [self, --sandbox-policy-cwd D, --command-cwd D, --permission-profile JSON
 *    | --permission-profile-fd N, --, cmd...]
 * self is /proc/self/exe's target. When the profile is larger than SBX_PROFILE_ARG_MAX the
 * argv names "--permission-profile-fd" with the placeholder "<memfd>" (explain shows it; exec
 * substitutes the real descriptor). *argv_out is NULL-terminated; free with sbx_strv_free().
 */
int sbx_linux_helper_argv(const struct sbx_plan *p, const char *policy_cwd, const char *command_cwd,
			  char *const cmd[], char ***argv_out, size_t *argc_out,
			  struct sbx_diag *d);

/* Re-executes this binary as the helper for plan p. Returns only on failure. */
int sbx_linux_exec(const struct sbx_plan *p, const char *policy_cwd, const char *command_cwd,
		   char *const cmd[], struct sbx_diag *d);

/* The `sbxrun-linux-sandbox` entry point (cmd/helper.c). */
int sbx_helper_main(int argc, char **argv);

/* ---- the enter sequence (enter.c) and its parts ------------------------------------------- */

/* What the enter sequence applies: roots from the profile, decisions from the plan. */
struct sbx_linux_enforce {
	const struct sbx_roots *roots;
	char **deny_expanded; /* concrete matches of roots->deny_globs, absolute */
	size_t n_deny_expanded;
	/*
	 * Denied paths the plan enforces by Landlock alone (no mount namespace): readable trees
	 * that contain one are granted piecewise around it (sbx_landlock_grant_around).
	 */
	char **ll_deny;
	size_t n_ll_deny;
	bool network;		 /* enabled: no network rules at all */
	bool mount_namespace;	 /* build the private mount namespace */
	int landlock_abi;	 /* the running ABI (>= 1) or 0 for none */
	bool seccomp_metadata;	 /* refuse chmod/chown/utimes/xattr everywhere (no mount ns) */
	const char *command_cwd; /* absolute */
	char *const *argv;	 /* the command */
	/* When the command cannot be executed: see sbx_linux_exec_command() (sandbox.h). */
	int (*exec_failed)(void *arg, int err, struct sbx_diag *d);
	void *exec_failed_arg;
};

/* Applies e and execs the command. Returns (with d filled) only before the point of no return. */
int sbx_linux_enter(const struct sbx_linux_enforce *e, struct sbx_diag *d);

/*
 * Prints d and exits with status (125: sbxrun's own failure; 126/127: the command could not be
 * executed). Provided by cmd/helper.c; used after the point of no return only.
 */
__attribute__((noreturn)) void sbx_linux_die(const struct sbx_diag *d, int status);

/* Landlock (landlock.c). */
int sbx_landlock_abi(void); /* running ABI, 0 when unavailable */
struct sbx_landlock;
int sbx_landlock_create(int abi, bool restrict_net, struct sbx_landlock **out, struct sbx_diag *d);
/* Adds a rule for fd with rights ("read", "write" or "device"), masked for the file type. */
enum sbx_ll_grant { SBX_LL_READ = 0, SBX_LL_WRITE, SBX_LL_DEVICE };
int sbx_landlock_add_fd(struct sbx_landlock *ll, int fd, enum sbx_ll_grant g, const char *what,
			struct sbx_diag *d);
/*
 * Grants g on the tree at path except the denied paths inside it (ARCHITECTURE.md section 3,
 * without a mount namespace): instead of one rule on path, a rule on every entry of each
 * directory on the way down to a denied path, except the entry that leads to it. Directories on
 * the way get only the right to be listed, and not even that above a denied directory (its
 * names would be listed too). Symbolic links get no rule (following one is checked on its
 * target). A directory on the way that this user cannot list gets no rule at all (stricter, never
 * looser). More than SBX_LANDLOCK_DIR_ENTRIES_MAX entries in one directory on the way, or more
 * than SBX_LANDLOCK_CARVE_RULES_MAX rules in all, refuse with SBX_E_UNENFORCEABLE, as does a
 * denied path inside a tree granted anything but SBX_LL_READ.
 */
int sbx_landlock_grant_around(struct sbx_landlock *ll, const char *path, enum sbx_ll_grant g,
			      char *const *denied, size_t n_denied, struct sbx_diag *d);
int sbx_landlock_restrict_self(struct sbx_landlock *ll, struct sbx_diag *d);
void sbx_landlock_free(struct sbx_landlock *ll);

/* seccomp (seccomp.c): builds and loads the filter of ARCHITECTURE.md section 3 step 6. */
int sbx_seccomp_apply(bool network, bool metadata, struct sbx_diag *d);
/* Writes the BPF program of that filter to fd (the build-time generator uses it). */
int sbx_seccomp_export(bool network, bool metadata, int fd, struct sbx_diag *d);

/* Capabilities (caps.c): empties every capability set. */
int sbx_caps_drop_all(struct sbx_diag *d);

/* Mount namespace operations (mountns.c). */
#include <sys/types.h>
int sbx_mnt_map_ids(uid_t uid, gid_t gid, struct sbx_diag *d);
int sbx_mnt_make_private(struct sbx_diag *d);
int sbx_mnt_clone_tree(const char *path, int *fd_out, struct sbx_diag *d);
/* Recursively read-only: path relative to dfd, or "" for dfd itself. */
int sbx_mnt_set_readonly(int dfd, const char *path, struct sbx_diag *d);
int sbx_mnt_attach(int tree, const char *path, struct sbx_diag *d);
int sbx_mnt_mask_dir(const char *path, struct sbx_diag *d);
/*
 * A mask over a denied directory that paths are re-opened inside: sbx_mnt_mask_open returns a
 * detached, still writable, empty tmpfs of mode 0111 (or -errno); sbx_mnt_mask_point makes in
 * it, at rel (path relative to the mask), the directories on the way and the mount point (a
 * directory, or an empty file when !dir) for the re-opened path; sbx_mnt_mask_seal makes it
 * read-only and attaches it at path. Nothing is created on the host.
 */
int sbx_mnt_mask_open(const char *path, struct sbx_diag *d);
int sbx_mnt_mask_point(int mask, const char *rel, bool dir, const char *path, struct sbx_diag *d);
int sbx_mnt_mask_seal(int mask, const char *path, struct sbx_diag *d);
/* *empty_fs starts at -1; the scratch tmpfs it then holds is the caller's to close. */
int sbx_mnt_mask_file(int *empty_fs, const char *path, struct sbx_diag *d);

#endif /* SBX_PLATFORM_LINUX_H */
