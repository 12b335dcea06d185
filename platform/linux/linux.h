/* SPDX-License-Identifier: MIT */
/*
 * linux.h - the Linux backend: host probe, helper argv, re-exec, and the enter sequence.
 *
 * Only platform/linux/ and cmd/ include this. Functions return 0 or -errno / SBX_E_* and fill a
 * struct sbx_diag; the one exception is sbx_linux_apply_and_exec(), which dies (sbx_linux_die,
 * here in platform/linux/) instead of returning, so a half-applied sandbox never reaches execve.
 */
#ifndef SBX_PLATFORM_LINUX_H
#define SBX_PLATFORM_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linux/sandbox.h"
#include "sbx.h"

/* The largest file the helper accepts through --permission-profile-fd, same as a profile file. */
#define SBX_PROFILE_FD_MAX SBX_MAX_PROFILE_BYTES

/*
 * Fills the facts of this host, probed once per process; never fails (an unknown fact reads as
 * "not available").
 */
int sbx_linux_probe(struct sbx_linux_facts *f);

/* The unshare(2) flags the enter sequence uses for its mount namespace on this host. */
int sbx_linux_mntns_flags(bool running_as_root);

/* Where this binary is (the target of /proc/self/exe), for the helper argv explain shows. */
void sbx_linux_self(char *buf, size_t size);

/*
 * Re-executes this binary as the helper with h and profile, whose canonical text it writes
 * into h: an argument when small, else a sealed memfd written as the text is made.
 */
int sbx_linux_exec(struct sbx_handover *h, const struct sbx_profile *profile, struct sbx_diag *d);

/* The `sbxrun-linux-sandbox` entry point (cmd/helper.c). */
int sbx_helper_main(int argc, char **argv);

/* ---- every rule path resolved once (resolve.c) -------------------------------------------- */

#include <sys/resource.h>
#include <sys/types.h>

/*
 * What one look-up found, and the O_PATH descriptor it keeps of it. 56 bytes beside its strings,
 * widest members first: the helper may keep 10,000 of these. The links crossed (a list, as
 * struct sbx_pathinfo.link has it), rarely there, are the last of its strings:
 * sbx_rulepath_link().
 */
struct sbx_rulepath {
	char *path;		    /* as asked: a copy, or the plan's own path (lookup_kept) */
	char *real;		    /* where it resolves, NULL when absent */
	struct sbx_pathfacts facts; /* as the planner's view gives them (sbx_pathfacts_give) */
	int fd;			    /* O_PATH, close-on-exec; -1 when absent */
	short err; /* a failed look-up (-errno), reported again at every ask; 0 otherwise */
	bool has_link;
	/* sbx_fd_sealed's answer for fd plus one, -1 an error, 0 not asked (sbx_rulepath_sealed) */
	signed char sealed;
	uint16_t len;  /* strlen(path), or UINT16_MAX for a longer one */
	uint32_t made; /* its index in the order the entries were made */
};
/* The links crossed on the way to e's path (a list: sbx_link_len()), or NULL. */
const char *sbx_rulepath_link(const struct sbx_rulepath *e);
/*
 * sbx_fd_sealed of e's object (an existing directory), asked once: the helper's plan
 * (sbx_fsview.sealed) and its points (points.c) read the same answer of the same object.
 */
int sbx_rulepath_sealed(const struct sbx_rulepath *e);

/*
 * The helper's view of the file system: every path looked up once, its object kept. A plan made
 * through it is freed after it, and it is asked nothing more once such a plan failed: it keeps
 * the paths of the plan's requirements themselves, not copies (lookup_kept).
 */
struct sbx_rulepaths {
	struct sbx_fsview view; /* for ctx.fs: the planner looks up through this */
	/*
	 * Each entry (its index in made, plus one; 0 is empty) beside its path's hash (the low
	 * half): a probe that meets another path reads the slot alone, not the entry it points
	 * to, which at 10,000 paths is a cache miss each. Eight bytes a slot: at 10,000 paths the
	 * table is 128 KiB, and each path's first probe, in a random slot, misses the cache less.
	 */
	struct sbx_rulepath_slot {
		uint32_t made;
		uint32_t hash;
	} * slots;
	size_t cap, n;
	/*
	 * The entries in the order they were made, and the index of the one asked last: each pass
	 * over the plan asks for its paths in the order the first one made them, so the next path
	 * asked is most often the next one made, found without a probe of the table.
	 */
	struct sbx_rulepath **made;
	size_t made_cap, last;
	/* The planner's hints: the next path's slot is prefetched once a walk is done. */
	struct sbx_fshints hints;
	struct sbx_arena entries; /* each entry and its strings */
	bool raised; /* the soft limit of open files was raised, saved holds the original */
	struct rlimit saved;
};
void sbx_rulepaths_init(struct sbx_rulepaths *res);
/*
 * Room for n paths before the first look-up (a profile's entries, known once it is loaded):
 * the table is allocated once instead of doubling (and rehashing) from 64 slots; more paths
 * still fit, the table grows then. -ENOMEM, or 0.
 */
int sbx_rulepaths_reserve(struct sbx_rulepaths *res, size_t n);
/* The entry of path, looked up now if it was not yet; NULL only when out of memory. */
const struct sbx_rulepath *sbx_rulepath_get(struct sbx_rulepaths *res, const char *path);
/* Puts back the soft limit of open files, for the command (before exec). */
void sbx_rulepaths_restore_limit(struct sbx_rulepaths *res);
void sbx_rulepaths_free(struct sbx_rulepaths *res);
/*
 * In the new mount namespace: an O_PATH descriptor of real, walked with no link followed at
 * all, that must be the object (dev, ino) found before; otherwise -errno with d saying it
 * changed while the sandbox was being built.
 */
/*
 * rel below base (an absolute path with AT_FDCWD), no symbolic link on the way or at its end,
 * never above base: a descriptor (close-on-exec) or -errno (ELOOP for a link, ENOENT or ENOTDIR
 * for nothing). openat2 where the kernel has it, a component walk saying the same otherwise.
 */
int sbx_linux_open_nolinks(int base, const char *rel, int flags);
int sbx_linux_reopen(const char *real, unsigned long long dev, unsigned long long ino,
		     struct sbx_diag *d);

/* ---- mount points made on the host for the run (points.c) --------------------------------- */

/*
 * A name inside a writable root that must not be created while the sandbox runs: a missing
 * protected name (a directory is made there), a name git mode keeps from being created (a
 * directory, or a file holding what git takes for the name missing), or the first missing
 * component of a denied path (a file holding MARKER). That same object found there (another
 * run's point, or what a run killed before its clean-up left) is taken as it is. It is a mount
 * point for a read-only mask in the sandbox, and the supervisor removes it after the run.
 */
struct sbx_point {
	char *path;			   /* resolved, absolute */
	const char *name;		   /* its last component, within path */
	const struct sbx_rulepath *parent; /* the directory it lies in: its one look-up */
	bool dir;			   /* a directory, or a file */
	bool protect;			   /* a protected or git name (else a denied path's) */
	const char *holds;		   /* a file point's bytes: "", ".\n", or MARKER */
	bool leftover;			   /* an empty object was found there when planning */
	bool foreign;			   /* not this run's to remove (point_ours): left */
	bool keep_created;	     /* what appears there is left (the caller's git config) */
	bool system;		     /* and that config is the system one (the report says so) */
	unsigned long long dev, ino; /* the object: planned (a leftover), then locked */
	int fd;			     /* open and share-locked while the run lasts, or -1 */
	long op;		     /* its op in the mount plan; -1: none (under a mask) */
};
struct sbx_points {
	struct sbx_point *v;
	size_t n, cap;
	struct sbx_strv pins; /* non-directories on the way to a denied path: bound read-only */
};

/*
 * The points of a plan: each missing protected name and each name git mode keeps from being
 * created that the plan enforces by a mask, and the first missing component of each denied path
 * in deny_missing that lies inside a writable root. Only looks up (through res); 0 or -errno
 * with d filled.
 */
struct sbx_linux_enforce;
int sbx_points_find(const struct sbx_linux_enforce *e, struct sbx_points *out, struct sbx_diag *d);
/*
 * Makes each point with an op on the host, through its parent's descriptor (mkdirat, or
 * openat with O_CREAT|O_EXCL: never by path after a check), opens it and takes a shared lock on
 * it (flock), and checks that the name still holds that same, empty object. A concurrent run's
 * point is shared the same way. Fills dev and ino. 0 or -errno with d filled (the points made
 * so far are for sbx_points_clean).
 */
int sbx_points_make(struct sbx_points *pts, struct sbx_diag *d);
/*
 * After the run, once no process of the sandbox is left: removes each point that no other run
 * holds, and whatever was created at its name on the host meanwhile (by anyone), which is
 * reported through report(arg, path) before it is removed; at a point of the caller's global
 * git config (keep_created), and one that is another user's, it is reported and left. Returns
 * how many names held something created during the run.
 */
size_t sbx_points_clean(struct sbx_points *pts, void (*report)(void *arg, const char *msg),
			void *arg);
void sbx_points_free(struct sbx_points *pts);

/*
 * Git mode's end-of-run check (gitcheck.c; sbxrun(1), GIT MODE): what the command left in the
 * repository of a writable root that would run a program at the caller's next git outside (a
 * populated gitlink, a directory under modules/, an exec step of a rebase in progress) and that
 * was not there when the run started. sbx_gitcheck_start, in the helper before the command
 * starts, takes a descriptor of each repository's checkout, git directory and common directory
 * and records what is there (0, or -ENOMEM with d filled); sbx_gitcheck_end, in the supervisor
 * once the sandbox's processes have ended, walks the same way and calls found (path, which may
 * be NULL, the one-line message and its hint) for each new thing, or for what it cannot read;
 * it returns how many it found. Free with sbx_gitcheck_free.
 */
struct sbx_gitcheck_repo {
	int root, gitdir, common; /* O_PATH descriptors */
	char *root_path, *gitdir_path, *common_path;
};
/* An index as the start found it ("dev:ino:size:mtime:ctime"), and the gitlinks it names. */
struct sbx_gitcheck_index {
	char *id;
	struct sbx_strv links;
};
struct sbx_gitcheck {
	struct sbx_gitcheck_repo *v;
	size_t n;
	struct sbx_gitcheck_index *idx;
	size_t n_idx;
	struct sbx_strv start; /* what the walk found at the start, sorted */
	struct sbx_strv said;  /* what the end's said, each once */
	size_t n_found;
	void (*found)(void *arg, const char *path, const char *msg, const char *hint);
	void *arg;
};
int sbx_gitcheck_start(struct sbx_gitcheck *g, const struct sbx_roots *roots, struct sbx_diag *d);
size_t sbx_gitcheck_end(struct sbx_gitcheck *g);
void sbx_gitcheck_free(struct sbx_gitcheck *g);

/* ---- the enter sequence (enter.c) and its parts ------------------------------------------- */

struct sbx_linux_net;

/* What the enter sequence applies: roots from the profile, decisions from the plan. */
struct sbx_linux_enforce {
	const struct sbx_roots *roots;
	struct sbx_strv deny_expanded; /* concrete matches of roots->deny_globs, absolute */
	/*
	 * Denied paths the plan enforces by Landlock alone (no mount namespace): readable trees
	 * that contain one are granted piecewise around it (sbx_landlock_grant_around).
	 */
	struct sbx_strv ll_deny;
	/*
	 * Paths that Landlock alone keeps out of reach while their names stay listable: /dev,
	 * when no private /dev replaces it (its nodes are granted from an allow-list).
	 */
	struct sbx_strv ll_hidden;
	/* Denied paths that do not exist inside a writable root: masked at their first missing
	 * component. */
	struct sbx_strv deny_missing;
	/* Missing protected names the plan masks. */
	struct sbx_strv protect_missing;
	/* Missing names git mode keeps from being created (sbx_git_point), masked the same way. */
	struct sbx_strv no_create;
	/*
	 * Of no_create, the caller's global git config (SBX_ORIGIN_GIT_GLOBAL): what appears at
	 * such a name on the host during the run is the caller's own git config, and is left.
	 */
	struct sbx_strv no_create_kept;
	/* Of no_create_kept, the caller's system git config (SBX_ORIGIN_GIT_SYSTEM). */
	struct sbx_strv no_create_system;
	/* Of no_create_kept, the missing config files themselves: an empty file whatever the name. */
	struct sbx_strv no_create_file;
	struct sbx_rulepaths *res;  /* every path's one look-up, and the object it kept */
	enum sbx_linux_model model; /* in place, under a subreaper, or under init */
	unsigned long clone_flags;  /* SBX_MODEL_INIT: the supervisor's clone(2) flags */
	bool network;		    /* enabled: no network rules at all */
	bool landlock_net;	    /* Landlock handles TCP (restricted, no namespace of its own) */
	bool mount_namespace;	    /* build the private mount namespace */
	bool private_dev;	    /* a private minimal /dev in it */
	bool fresh_proc;	    /* a fresh /proc (init only, unless --no-proc) */
	int landlock_abi;	    /* the running ABI (>= 1) or 0 for none */
	bool seccomp_metadata;	    /* refuse chmod/chown/utimes/xattr everywhere (no mount ns) */
	bool seccomp_no_watch;	    /* refuse inotify/fanotify watches (denies by Landlock alone) */
	bool seccomp_ipc;	    /* refuse System V IPC, mqueues, others' limits (no init) */
	bool seccomp_pgrp;	    /* refuse kill(0): the caller's group (a terminal's job) */
	bool seccomp_async;	    /* refuse O_ASYNC, FIOASYNC, F_SETSIG (init, no signal scope) */
	bool own_group;		    /* the sandbox in a process group of its own */
	/* The denial report traces the command: seccomp refusals stop for its tracer (trace.c). */
	bool traced;
	struct sbx_trace *trace; /* that tracer (sandbox.h), given to the supervisor; or NULL */
	const char *command_cwd; /* absolute */
	char *const *argv;	 /* the command */
	/* When the command cannot be executed: see sbx_linux_exec_command() (sandbox.h). */
	int (*exec_failed)(void *arg, int err, struct sbx_diag *d);
	void *exec_failed_arg;
	/*
	 * The network beyond the profile's (netns.h), or NULL: its namespace and broker need init,
	 * with the clone(2) flags it says (CLONE_NEWNET where it has a namespace).
	 */
	struct sbx_linux_net *net;
};

/*
 * The matches of a plan's deny globs on this host, found once (enforce.c): one list per
 * requirement of the plan, empty but for the deny globs it enforces.
 */
struct sbx_linux_globs {
	struct sbx_strv *matches;
	size_t n; /* the plan's requirements when it was scanned */
};
/*
 * Scans each deny glob the plan (attached for this host's facts) enforces, and checks each match
 * as a rule path (looked up once through res, no link an earlier run could plant, no other
 * name). A glob whose scan refuses becomes unenforceable with the scan's words and hint, so that
 * explain says what run refuses, in the same words (sbxrun(1), explain); one that holds gets a
 * note with the count. The one scan both explain and the helper run. 0, or -ENOMEM with d
 * filled; free g with sbx_linux_globs_free().
 */
int sbx_linux_scan_globs(struct sbx_plan *plan, struct sbx_rulepaths *res,
			 struct sbx_linux_globs *g, struct sbx_diag *d);
void sbx_linux_globs_free(struct sbx_linux_globs *g);

/*
 * Reads off a plan (built and attached for this host's facts) what the enter sequence applies:
 * the mechanisms its requirements name, its roots, the matches of its deny globs (globs, from
 * sbx_linux_scan_globs on this plan, whose matches it takes), and the process model: init's where the command is traced (--report), as
 * sbx_report_model() says, or SBX_E_UNENFORCEABLE with d filled. e borrows plan's roots and
 * owns the lists; free with sbx_linux_enforce_free().
 */
int sbx_linux_enforce_from_plan(const struct sbx_plan *plan, const struct sbx_linux_facts *facts,
				bool traced, struct sbx_rulepaths *res,
				struct sbx_linux_globs *globs, struct sbx_linux_enforce *e,
				struct sbx_diag *d);
void sbx_linux_enforce_free(struct sbx_linux_enforce *e);

/* What sbx_linux_prepare built, for sbx_linux_apply_and_exec to carry out. */
struct sbx_linux_prepared {
	const struct sbx_linux_enforce *e;
	struct sbx_landlock *ll; /* the ruleset, or NULL */
	bool mount_namespace;	 /* the plan has a private mount namespace */
	/*
	 * Its mounts, in order. In the new namespace each op's dev and ino become its target's:
	 * the object's, or those of its point in a mask, once the point is made.
	 */
	struct sbx_mount_plan mounts;
	int *tree;     /* per mount: the clone taken in the new namespace, or -1 */
	int empty_fs;  /* the scratch tmpfs of the file masks, or -1 */
	int empty_dir; /* the empty directory of the points, or -1 */
	int unshare_flags;
	bool in_namespace; /* the supervisor's clone(2) made the namespaces (under init) */
	uid_t uid;
	gid_t gid;
	struct sbx_points points; /* the mount points made on the host for the run */
	bool points_meanwhile;	  /* made by the supervisor while init starts (enter.c) */
	bool shm_ops;		  /* mounts in /dev/shm: made once the private /dev is attached */
	struct sbx_devfs dev;	  /* the private /dev, once built (in the sandbox) */
	struct sbx_diag d;	  /* where apply_and_exec words a failure before dying */
};

/*
 * Everything that can fail and be reported: the Landlock ruleset on the descriptors of every
 * rule path's one look-up, and the mount plan. Changes nothing; 0 or -errno with d filled.
 * Free with sbx_linux_prepared_free() unless apply_and_exec follows.
 */
int sbx_linux_prepare(const struct sbx_linux_enforce *e, struct sbx_linux_prepared *p,
		      struct sbx_diag *d);
void sbx_linux_prepared_free(struct sbx_linux_prepared *p);
/*
 * Runs the command under p: in place, or with this process as the supervisor of a sandbox
 * child (the plan's process model: sandbox.h), which applies p one step at a time (mount
 * namespace, /dev, /proc, cwd, capabilities, no_new_privs, Landlock, seccomp) and execs the
 * command. Never returns: a failed step dies with 125 (126/127 when the command cannot be
 * executed), printing why; under a supervisor, the run ends as the command did.
 */
__attribute__((noreturn)) void sbx_linux_apply_and_exec(struct sbx_linux_prepared *p);

/* Prints d and exits with status. Used after the point of no return only (enter.c). */
__attribute__((noreturn)) void sbx_linux_die(const struct sbx_diag *d, int status);
/*
 * fn(arg), once, when this process (the one that registers it, never a child of it) ends in
 * 125 before the command started: sbx_linux_die(d, 125) here, or the supervisor mirroring an
 * init that failed without reporting a command's status. sbx_linux_refused() runs it now.
 */
void sbx_linux_on_refusal(void (*fn)(void *arg), void *arg);
void sbx_linux_refused(void);

/* Landlock (landlock.c). */
int sbx_landlock_abi(void); /* running ABI, 0 when unavailable */
/* The ABI from which Landlock scopes abstract Unix sockets and signals (Linux 6.12). */
#define SBX_LL_ABI_SCOPE 6
struct sbx_landlock;
/*
 * restrict_fs false: no file-system right is handled (full write); the network and scopes only.
 * *out stays NULL when nothing at all is left to handle (no ruleset is needed then).
 */
int sbx_landlock_create(int abi, bool restrict_fs, bool restrict_net, struct sbx_landlock **out,
			struct sbx_diag *d);
/* Adds a rule for fd with rights ("read", "write" or "device"), masked for the file type. */
enum sbx_ll_grant { SBX_LL_READ = 0, SBX_LL_WRITE, SBX_LL_DEVICE };
int sbx_landlock_add_fd(struct sbx_landlock *ll, int fd, enum sbx_ll_grant g, const char *what,
			struct sbx_diag *d);
/* The same for a descriptor whose file type is known already (its look-up's fstat). */
int sbx_landlock_add_typed(struct sbx_landlock *ll, int fd, bool is_dir, enum sbx_ll_grant g,
			   const char *what, struct sbx_diag *d);
/*
 * Grants g on the tree at path except the denied paths inside it (Landlock alone, without a mount
 * namespace): instead of one rule on path, a rule on every entry of each
 * directory on the way down to a denied path, except the entry that leads to it. Directories on
 * the way get only the right to be listed, and not even that above a denied directory (its
 * names would be listed too). Symbolic links get no rule (following one is checked on its
 * target). A directory on the way that this user cannot list gets no rule at all (stricter, never
 * looser). More than SBX_LANDLOCK_DIR_ENTRIES_MAX entries in one directory on the way, or more
 * than SBX_LANDLOCK_CARVE_RULES_MAX rules in all, refuse with SBX_E_UNENFORCEABLE, as does a
 * denied path inside a tree granted anything but SBX_LL_READ. hidden are carved around the same
 * way, but their names are no secret: the directories above them stay listable (/dev).
 */
int sbx_landlock_grant_around(struct sbx_landlock *ll, struct sbx_rulepaths *res,
			      const struct sbx_rulepath *tree, enum sbx_ll_grant g,
			      char *const *denied, size_t n_denied, char *const *hidden,
			      size_t n_hidden, struct sbx_diag *d);
int sbx_landlock_restrict_self(struct sbx_landlock *ll, struct sbx_diag *d);
void sbx_landlock_free(struct sbx_landlock *ll);

/*
 * seccomp (seccomp.c): loads the filter that sbx_linux_apply_and_exec loads last: libseccomp's
 * program (compiled at build time) behind a head that says what libseccomp cannot
 * (system calls newer than this build: ENOSYS; with metadata, ioctl as an allow-list; with
 * no_watch, no inotify or fanotify watches; with no_ipc, no System V IPC or POSIX message queues
 * and no prlimit or sched_set* of another process (no IPC and PID namespace); with no_pgrp, no
 * kill of pid 0 (the caller's process group, a terminal's job under init); with no_async, no
 * signal-driven I/O (F_SETFL with O_ASYNC, FIOASYNC, F_SETSIG: init without Landlock's signal
 * scope, where a terminal would send SIGIO to its foreground group outside); no namespace flags;
 * no execution domains), one filter. With traced (the denial report is on), every EPERM refusal
 * is instead a stop for the tracer, which fails the call with that errno and records it
 * (platform/linux/trace.c).
 */
int sbx_seccomp_apply(bool network, bool metadata, bool no_watch, bool no_ipc, bool no_pgrp,
		      bool no_async, bool traced, struct sbx_diag *d);
/*
 * The data of a traced refusal: SBX_TRACE_REFUSED_BIT, the rule's group (enum
 * sbx_seccomp_group, lib/sbx.h) and the errno the call fails with. The denial report's own
 * filter (sbx_seccomp_watch) stops with data 0.
 */
#define SBX_TRACE_REFUSED_BIT 0x8000u
#define SBX_TRACE_REFUSED(group, err)                                                              \
	(SBX_TRACE_REFUSED_BIT | ((unsigned)(group) << 8) | ((unsigned)(err)&0xffu))
#define SBX_TRACE_GROUP(data) (((data) >> 8) & 0x7fu)
#define SBX_TRACE_ERRNO(data) ((int)((data)&0xffu))

#include <sys/socket.h>
/*
 * The Unix socket types a restricted network keeps, stream and seqpacket, are an allow-list
 * tested on bits, not values (seccomp.c, seccomp_net.c): of the type's four bits, bit 0 set and
 * bits 1 and 3 clear. That holds for 1 and 5 alone among the values the kernel knows, and only
 * while the flags sharing the argument lie above those four bits: pinned here, so that a C
 * library or architecture numbering them otherwise fails the build rather than the filter.
 */
#define SBX_SOCK_TYPE_SET   0x1u /* must be set */
#define SBX_SOCK_TYPE_CLEAR 0xau /* must be clear (bits 1 and 3) */
#define SBX_SOCK_TYPE_KEPT(t)                                                                      \
	(((unsigned)(t) & (SBX_SOCK_TYPE_SET | SBX_SOCK_TYPE_CLEAR)) == SBX_SOCK_TYPE_SET)
_Static_assert(SOCK_STREAM == 1 && SOCK_SEQPACKET == 5, "stream and seqpacket are 1 and 5");
_Static_assert(SBX_SOCK_TYPE_KEPT(SOCK_STREAM) && SBX_SOCK_TYPE_KEPT(SOCK_SEQPACKET),
	       "the bit test keeps stream and seqpacket");
_Static_assert(!SBX_SOCK_TYPE_KEPT(SOCK_DGRAM) && !SBX_SOCK_TYPE_KEPT(SOCK_RAW) &&
		       !SBX_SOCK_TYPE_KEPT(SOCK_RDM) && !SBX_SOCK_TYPE_KEPT(SOCK_DCCP) &&
		       !SBX_SOCK_TYPE_KEPT(SOCK_PACKET) && !SBX_SOCK_TYPE_KEPT(0),
	       "the bit test refuses every other type");
_Static_assert(((SOCK_NONBLOCK | SOCK_CLOEXEC) & 0xf) == 0,
	       "the socket flags lie above the type's four bits (SOCK_TYPE_MASK)");
#include <linux/filter.h>
/*
 * The program loaded: a head, then main (libseccomp's program for the same switches, from
 * sbx_seccomp_main without the reference rules); the highest known system-call number is a
 * parameter (the helper passes its own; a test passes a lower one to see the range refused on
 * this kernel). Returns its length, or 0 when it would not fit; prog has room for
 * SBX_SECCOMP_PROG_MAX instructions.
 */
#define SBX_SECCOMP_PROG_MAX 1024
#define SBX_SECCOMP_HEAD_MAX 192 /* the head's length at most, with every switch on */
unsigned short sbx_seccomp_program(const struct sock_filter *main, size_t main_len, bool metadata,
				   bool no_watch, bool no_ipc, bool no_pgrp, bool no_async,
				   bool traced, unsigned known_max, struct sock_filter *prog);
/*
 * Part of the reference the program is checked against at build time (seccomp-gen): what
 * neither libseccomp's rules nor seccomp-gen's own statement of the rules on processes says
 * (numbers above the highest known, the ioctl allow-list), as the second filter the program's
 * head replaced said it. prog has room for SBX_SECCOMP_SECOND_MAX instructions.
 */
#define SBX_SECCOMP_SECOND_MAX 128
unsigned short sbx_seccomp_second(bool metadata, bool no_async, bool traced, unsigned known_max,
				  struct sock_filter *prog);
/* The tables of system calls the rules on processes name, for seccomp-gen's statement of them. */
enum sbx_seccomp_table {
	SBX_SC_WATCH, /* no_watch: refused */
	SBX_SC_PID,   /* no_ipc: refused but for the caller (argument 0 is 0) */
	SBX_SC_IPC,   /* no_ipc: refused */
};
bool sbx_seccomp_in_table(enum sbx_seccomp_table t, int nr);
/*
 * libseccomp's program for one combination of the switches, written to fd or into prog (room
 * for SBX_SECCOMP_PROG_MAX instructions): with reference, the rules the program's head enforces
 * itself (namespace flags, execution domains) are libseccomp rules too.
 */
int sbx_seccomp_export(bool network, bool metadata, bool traced, bool reference, int fd,
		       struct sbx_diag *d);
int sbx_seccomp_main(bool network, bool metadata, bool traced, bool reference,
		     struct sock_filter *prog, size_t *len, struct sbx_diag *d);
#define SBX_SYSCALL_KNOWN_MAX 469 /* file_setattr, Linux 6.17 */
/* The architecture token of this build's system calls (<linux/audit.h>). */
#if defined(__x86_64__)
#define SBX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SBX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
/*
 * The denial report's filter, loaded by the command's own process once it is traced: a stop
 * for the tracer (data 0) at every call that a rule path can make fail (open, create, delete,
 * rename, link, truncate, exec and, unless the filter above refuses them (metadata), chmod,
 * chown, utimes and extended attributes), and never at a call the filters above may refuse:
 * the kernel keeps one filter's stop when two match, and only the tracer knows which means
 * "refused". clone with CLONE_UNTRACED (a child the tracer could not follow) is EPERM. Returns
 * the program's length; prog has room for SBX_SECCOMP_WATCH_MAX instructions.
 */
#define SBX_SECCOMP_WATCH_MAX 160
unsigned short sbx_seccomp_watch(bool network, bool metadata, struct sock_filter *prog);
/* Loads that program. 0, or -errno with d filled. */
int sbx_seccomp_watch_apply(bool network, bool metadata, struct sbx_diag *d);
/*
 * Fails (-EINVAL, d filled) when a watched call is also one the sandbox's filter may refuse,
 * in any combination of the switches: the build-time generator runs it, so no build has both.
 */
int sbx_seccomp_watch_check(struct sbx_diag *d);
/*
 * Whether the sandbox's filter decides the call nr by an argument, in some mode: seccomp-gen
 * tries argument values for each such call (and fails the build on one that reads an argument
 * and is not said here), and the denial report watches none of them.
 */
bool sbx_seccomp_reads_args(int nr);

/* The network's own filter (seccomp_net.c): see there for what each switch does. */
struct sbx_seccomp_net {
	bool routed;	   /* socket only AF_INET, AF_INET6 (a network namespace of its own) */
	bool restricted;   /* socket only AF_UNIX */
	bool unix_sockets; /* routed: AF_UNIX sockets too */
	bool no_dgram;	   /* no AF_UNIX datagram sockets or socket pairs */
	bool serve;	   /* bind, listen, accept allowed (routed, restricted) */
	bool broker;	   /* connect goes to the supervisor (user notification) */
	bool traced;	   /* refusals stop for the denial report's tracer (sbx_seccomp_apply) */
};
#define SBX_SECCOMP_NET_MAX 64
unsigned short sbx_seccomp_net_prog(const struct sbx_seccomp_net *m, struct sock_filter *prog);
/* Loads it; with broker, *notify_fd gets the listener of its notifications. */
int sbx_seccomp_net_apply(const struct sbx_seccomp_net *m, int *notify_fd, struct sbx_diag *d);

/* Capabilities (caps.c): empties every capability set. */
int sbx_caps_drop_all(struct sbx_diag *d);

/* Mount namespace operations (mountns.c). */
#include <sys/types.h>
/*
 * Descriptors to close later, in few system calls: the masks of 10,000 denied files open
 * 20,000 descriptors, each closed on its own a system call. The run holds at most
 * SBX_FDRUN_MAX (then closes them), so that it never keeps many descriptors more than closing
 * each at once would; closing, it sorts them and closes each stretch of consecutive numbers
 * with one close_range(2). Start it zeroed; sbx_fdrun_close() closes what it holds.
 */
#define SBX_FDRUN_MAX 64
struct sbx_fdrun {
	int fd[SBX_FDRUN_MAX];
	int n;
};
void sbx_fdrun_add(struct sbx_fdrun *r, int fd);
void sbx_fdrun_close(struct sbx_fdrun *r);
/* Records "WHAT PATH: strerror(err)" in d and returns -err: how a failed mount step is worded. */
int sbx_mnt_fail(struct sbx_diag *d, int err, const char *what, const char *path);
int sbx_mnt_map_ids(uid_t uid, gid_t gid, struct sbx_diag *d);
int sbx_mnt_make_private(struct sbx_diag *d);
/*
 * Every mount is made by descriptor: the tree cloned from an O_PATH descriptor of the object, and
 * attached onto an O_PATH descriptor of the target, so no name is looked up in between (what
 * names the path in diagnostics).
 */
int sbx_mnt_clone_tree(int fd, int *tree_out, const char *what, struct sbx_diag *d);
/* Recursively read-only: path relative to dfd, or "" for dfd itself. */
int sbx_mnt_set_readonly(int dfd, const char *path, struct sbx_diag *d);
/* Recursively nodev (path relative to dfd, or "" for dfd itself): no device node opens there. */
int sbx_mnt_set_nodev(int dfd, const char *path, const char *what, struct sbx_diag *d);
int sbx_mnt_attach(int tree, int target, const char *what, struct sbx_diag *d);
int sbx_mnt_mask_dir(int target, const char *what, struct sbx_diag *d);
/*
 * A mask over a denied directory that paths are re-opened inside: sbx_mnt_mask_open returns a
 * detached, still writable, empty tmpfs of mode 0111 (or -errno); sbx_mnt_mask_point makes in
 * it, at rel (path relative to the mask), the directories on the way and the mount point (a
 * directory, or an empty file when !dir) for the re-opened path, and gives the point's identity;
 * sbx_mnt_mask_seal makes it read-only and attaches it onto target. Nothing is created on the
 * host. (enter.c makes with sbx_mnt_mask_point the mount points of the roots in the private
 * /dev/shm too: mask is then that tmpfs.)
 */
int sbx_mnt_mask_open(const char *what, struct sbx_diag *d);
int sbx_mnt_mask_point(int mask, const char *rel, bool dir, const char *what,
		       unsigned long long *dev, unsigned long long *ino, struct sbx_diag *d);
int sbx_mnt_mask_seal(int mask, int target, const char *what, struct sbx_diag *d);
/*
 * An empty read-only directory of mode 0555 onto target (a point: as if the name were missing).
 * *empty_dir starts at -1; the tmpfs it then holds is the caller's to close.
 */
int sbx_mnt_mask_empty_dir(int *empty_dir, int target, const char *what, struct sbx_diag *d);
/*
 * A read-only file onto target: empty and of mode 000 when holds is NULL, else of mode 0644 and
 * holding holds (at most a line: what git takes for a missing name). *empty_fs starts at -1;
 * the scratch tmpfs it then holds is the caller's to close. The clone's descriptor goes to
 * later (closed then), or is closed at once when later is NULL.
 */
int sbx_mnt_mask_file(int *empty_fs, int target, const char *holds, const char *what,
		      struct sbx_fdrun *later, struct sbx_diag *d);

#endif /* SBX_PLATFORM_LINUX_H */
