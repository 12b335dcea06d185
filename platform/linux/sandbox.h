/* SPDX-License-Identifier: MIT */
/*
 * sandbox.h - the Linux process model: a supervising parent, a minimal init in new PID and IPC
 * namespaces, and the private /dev and /proc that init builds (supervise.c, devfs.c).
 *
 *   helper = supervisor (host namespaces)
 *     clone(CLONE_NEWPID|CLONE_NEWIPC|CLONE_NEWNS[|CLONE_NEWUSER][|CLONE_NEWNET])
 *       init, pid 1: the caller's apply callback (mounts, /dev, /proc, caps, Landlock,
 *       seccomp), then fork
 *         command, pid 2: execvp
 *
 * Where no PID namespace can be made, sbx_supervise_subreaper() is the fallback: the command is a
 * plain child of a supervisor that is a child subreaper. platform/linux/README.md, "Process
 * model", says what each process can and cannot survive.
 */
#ifndef SBX_PLATFORM_LINUX_SANDBOX_H
#define SBX_PLATFORM_LINUX_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>

#include "sbx.h"

/* ---- supervise.c ----------------------------------------------------------------------------- */

/*
 * The clone(2) flags of the sandbox child on this host: CLONE_NEWPID|CLONE_NEWIPC with the mount
 * namespace flags of sbx_linux_mntns_flags() (CLONE_NEWUSER unless root holds CAP_SYS_ADMIN),
 * and CLONE_NEWNET when new_net. 0 when the facts say a PID, IPC or mount namespace cannot be
 * made: the caller then keeps exec in place, or uses sbx_supervise_subreaper().
 */
unsigned long sbx_linux_sandbox_flags(const struct sbx_linux_facts *f, bool new_net);

/* What the supervisor starts. */
struct sbx_spawn {
	/* sbx_supervise(): from sbx_linux_sandbox_flags(), CLONE_NEWPID required. */
	unsigned long clone_flags;
	/* With CLONE_NEWUSER, uid and gid are mapped to themselves (setgroups denied). */
	uid_t uid;
	gid_t gid;
	/*
	 * Applies the sandbox to the calling process, which then forks the command: init (pid 1)
	 * for sbx_supervise(), the command's own process for sbx_supervise_subreaper(). Returns
	 * 0, or a negative code with d filled: the message is printed and the run ends with exit
	 * status 125 before the command starts. It may also die itself (sbx_linux_die). It must
	 * close every descriptor it opens: the command inherits what is left without O_CLOEXEC.
	 */
	int (*apply)(void *arg, struct sbx_diag *d);
	void *apply_arg;
	char *const *argv; /* the command, run with execvp */
	/* When it cannot be executed: see sbx_linux_exec_command(); NULL for the plain words. */
	int (*exec_failed)(void *arg, int err, struct sbx_diag *d);
	void *exec_failed_arg;
	/* The denial report's tracer (trace.c, below), or NULL: the command is traced from exec. */
	struct sbx_trace *trace;
	/*
	 * sbx_supervise() only, or NULL: run by the supervisor once init has been told to go,
	 * while init does what needs nothing from it. It sends init one message on chan, which
	 * apply reads with sbx_supervise_receive(); what the message says is between the two.
	 */
	void (*meanwhile)(void *arg, int chan);
	void *meanwhile_arg;
	/*
	 * The sandbox in a process group of its own (setpgid by the supervisor before init goes,
	 * or by the command's process before apply); every signal the supervisor is sent is then
	 * forwarded, the kernel's too.
	 */
	bool own_group;
};

/*
 * Starts the sandbox child (init) with s->clone_flags, writes its id maps when it has a user
 * namespace, and supervises it: signals sent to the supervisor by a process (kill(2),
 * sigqueue(3), not the terminal) are forwarded to the command through init; when the command
 * ends, every process of the sandbox is killed (the end of its PID namespace), the on-exit
 * functions run, and the supervisor ends exactly as the command did: exit status N, or death by
 * the same signal.
 * Returns (a negative code, d filled, nothing started) only when the child cannot be made:
 * clone(2) refused, or its id maps could not be written. Otherwise never returns.
 */
int sbx_supervise(const struct sbx_spawn *s, struct sbx_diag *d);

/*
 * In init's apply: reads into buf the one message of s->meanwhile, waiting for it. Returns its
 * length, or -errno; when the supervisor is gone, init ends (status 125) instead.
 */
ssize_t sbx_supervise_receive(void *buf, size_t size);

/*
 * In init's apply: fd (close-on-exec) stays open in init for the rest of the run, which closes
 * every other descriptor it does not use once the command runs. At most
 * SBX_SUPERVISE_INIT_KEEPS; -ENOSPC past them.
 */
#define SBX_SUPERVISE_INIT_KEEPS 4
int sbx_supervise_init_keep(int fd);

/*
 * The same without namespaces (s->clone_flags is ignored): the supervisor becomes a child
 * subreaper (PR_SET_CHILD_SUBREAPER), forks the command (apply runs in that child, which dies
 * with the supervisor through PR_SET_PDEATHSIG), forwards signals to it, and when it ends kills
 * every process left below the supervisor, daemons included, before mirroring its status.
 * Unlike sbx_supervise() it cannot clean up after a SIGKILL of the supervisor: descendants of
 * the command then survive. Returns only when the child cannot be forked, or when s->trace is
 * set (-ENOTSUP: the tracer, a thread of the supervisor, would reap its own child's end).
 */
int sbx_supervise_subreaper(const struct sbx_spawn *s, struct sbx_diag *d);

/*
 * Execs the command with execvp: the one place where the Linux backend becomes the command, and
 * words why it could not. When that fails, dies with exec_failed's words and status (it names
 * the rule of the plan that refused the program, cmd/execfail.c), or without it with today's:
 * "X: command not found" and 127 (ENOENT, ENOTDIR), "X: cannot execute: ..." and 126 otherwise.
 */
__attribute__((noreturn)) void sbx_linux_exec_command(char *const argv[],
						      int (*exec_failed)(void *arg, int err,
									 struct sbx_diag *d),
						      void *exec_failed_arg);

/*
 * Host clean-up, run by the supervisor after every process of the sandbox has ended and before
 * it mirrors the status, in the order registered. *wstatus is the command's wait status (as
 * from waitpid(2)); fn may change it (e.g. to exit status 1 when clean-up found something the
 * command left behind). Returns 0 or -ENOSPC (more than SBX_SUPERVISE_MAX_HOOKS).
 */
#define SBX_SUPERVISE_MAX_HOOKS 8
int sbx_supervise_on_exit(int (*fn)(void *arg, int *wstatus), void *arg);

/*
 * The same, run after every other hook whenever it was registered: for what reports on the
 * others' work (the run's report counts what the proxy's worker, stopped by a hook of its own,
 * decided until it ended).
 */
int sbx_supervise_on_exit_last(int (*fn)(void *arg, int *wstatus), void *arg);

/*
 * The same, for clean-up that needs only the sandbox's processes gone, not its namespaces: run
 * as soon as init reports that the command has ended and init has no process left below it
 * (init then only exits), while the kernel still tears the namespaces down; otherwise when
 * init has ended, first of the exit hooks. The hooks share the slots of sbx_supervise_on_exit.
 */
int sbx_supervise_on_empty(int (*fn)(void *arg, int *wstatus), void *arg);

/*
 * Blocks, before what the run makes on the host ahead of sbx_supervise() or
 * sbx_supervise_subreaper() (the mount points, when they cannot be made meanwhile), the signals
 * the supervisor will read: one sent then stays pending for its signalfd, rather than end this
 * process before the clean-up. The command still starts with the caller's mask. When neither
 * starts the run, sbx_supervise_release() after the clean-up gives the caller's mask back, and
 * what came meanwhile takes effect then.
 */
void sbx_supervise_hold(void);
void sbx_supervise_release(void);

/*
 * A descriptor the supervisor polls while the sandbox runs (a proxy's socket, a denial report):
 * fn(arg, fd) runs in the supervisor whenever fd is readable or hung up; when it returns
 * non-zero the descriptor is no longer polled (it must, at end of file: a hung-up descriptor is
 * ready at once again). A watch function may add a watch (polled from the next round on).
 * Returns 0 or -ENOSPC.
 */
int sbx_supervise_watch(int fd, int (*fn)(void *arg, int fd), void *arg);

/*
 * Reads the short file /proc/PID/FILE (stat, status, comm) into buf, NUL-terminated; false when
 * it cannot be read (the process is gone, or the file is empty).
 */
bool sbx_proc_read(pid_t pid, const char *file, char *buf, size_t size);

/* The process's number in the innermost PID namespace it is in (the last of NStgid); -1 unknown. */
long sbx_proc_ns_pid(pid_t pid);

/* ---- trace.c: the denial report's tracer ---------------------------------------------------- */

/* One failed call the tracer saw, for the caller to decide on (sbx_denial_decide). */
struct sbx_traced {
	long pid;	  /* the process, as the command sees it (its PID namespace); -1 unknown */
	const char *comm; /* its name, or NULL */
	struct sbx_op_seen op;
};

struct sbx_trace_config {
	bool network, metadata; /* the switches of the sandbox's filter (sbx_seccomp_watch) */
	bool mount_namespace;	/* masks may hide what exists: an ENOENT is looked into */
	/*
	 * Called on the tracer's own thread for each failed call worth deciding on: every call a
	 * seccomp rule refused, and each watched call that failed with EACCES, EROFS, EBUSY or
	 * ENOENT, after the command's first exec. The call waits (stopped) until it returns.
	 */
	void (*on_failure)(void *arg, const struct sbx_traced *t);
	void *arg;
};

struct sbx_trace;

/*
 * In the supervisor, before the sandbox child is made: the channel on which the command asks
 * to be traced. The sandbox's seccomp filter must be built for it (sbx_seccomp_apply traced).
 * Given in struct sbx_spawn, the supervisor does the rest: sbx_trace_start() once the child is
 * made, sbx_trace_child() in the child, sbx_trace_close_child() in init once the command is
 * forked, sbx_trace_attach_self() in the command's process just
 * before exec, sbx_trace_end() when every process of the sandbox has ended. A supervisor that
 * returns (it could not start the sandbox) leaves it to the caller to end.
 */
int sbx_trace_new(const struct sbx_trace_config *c, struct sbx_trace **out, struct sbx_diag *d);
/* Starts the tracer thread, which seizes the command when it asks. 0 or -errno, d filled. */
int sbx_trace_start(struct sbx_trace *t, struct sbx_diag *d);
/* In the sandbox child, first: closes the supervisor's end of the channel. */
void sbx_trace_child(struct sbx_trace *t);
/* Closes the sandbox's end of the channel in a process that is not the command (init). */
void sbx_trace_close_child(struct sbx_trace *t);
/*
 * In the command's process, with the sandbox applied, before exec: asks to be traced, waits
 * until it is, and loads the report's seccomp filter. 0, or -errno with d filled (the run must
 * end: a report that cannot be made is not made silently).
 */
int sbx_trace_attach_self(struct sbx_trace *t, struct sbx_diag *d);
/* Waits for the tracer thread (it ends when every traced process has) and frees t; NULL: no-op. */
void sbx_trace_end(struct sbx_trace *t);
/*
 * A socket address as the report words it: "127.0.0.1:80", "[::1]:443", "unix:/run/a.sock",
 * "unix:@name" (an abstract name: every byte of len, a NUL in it as "@"). In either name a
 * control byte (DEL too), a backslash or a byte above 0x7f is "\xHH", so the line is valid UTF-8. The
 * tracer and the Unix socket broker (broker.c) both word one so.
 */
void sbx_format_sockaddr(const void *addr, size_t len, char *out, size_t size);
/* "unix:PATH" for a path socket's path (the broker's, made absolute), worded by the same rule. */
void sbx_format_unix_path(const char *path, char *out, size_t size);

/* ---- devfs.c ------------------------------------------------------------------------------- */

/* The device nodes of the private /dev, in this order in struct sbx_devfs. */
enum sbx_dev_node {
	SBX_DEV_NULL = 0,
	SBX_DEV_ZERO,
	SBX_DEV_FULL,
	SBX_DEV_RANDOM,
	SBX_DEV_URANDOM,
	SBX_DEV_TTY,
	SBX_DEV_N_NODES
};

/*
 * What sbx_devfs_build() made, as descriptors for the caller's Landlock rules (device rights on
 * nodes, pts and ptmx; full write on shm). -1 where there is none (a node the host lacks). The
 * caller closes them with sbx_devfs_close() before the command starts.
 */
struct sbx_devfs {
	int nodes[SBX_DEV_N_NODES]; /* the bind mount of the host's node: the same inode */
	int pts;		    /* the new devpts instance (its root) */
	int ptmx;		    /* O_PATH, pts/ptmx of that instance */
	int shm;		    /* the private tmpfs on shm */
	int top;		    /* SBX_MNT_DETACHED: the whole tree, not attached yet */
	int term;		    /* SBX_MNT_OWN_TERMINAL: the host's node of the command's pty */
	int term_master;	    /* the master holding that index in the new instance */
	unsigned int term_index;    /* N of /dev/pts/N, when term is open */
	bool loose;		    /* the pieces not yet mounted in top (a kernel before 6.15) */
};

/*
 * Attach the top of the tree first, then fill it in place, as on kernels that refuse mounts onto
 * a detached mount (before Linux 6.15, found by itself otherwise): for the tests.
 */
#define SBX_MNT_ATTACH_FIRST 0x1u

/*
 * Build the tree detached and leave it so (in out->top), for sbx_devfs_attach() later: it can
 * then be built before the rest of the file system turns read-only, which does not reach it.
 * A kernel that refuses mounts onto a detached mount (before 6.15; its answer to the first one
 * tells) leaves the pieces made but apart (out->loose), and sbx_devfs_attach() mounts them once
 * the top is attached: the same result, nothing built twice.
 */
#define SBX_MNT_DETACHED 0x2u

/*
 * The command's own terminal (the pseudo-terminal on its standard streams) at its own name in
 * the new devpts instance: the host's node, checked to be the very one the descriptor holds, is
 * bound over /dev/pts/N there, for ttyname(3). The name lives only as long as the instance's
 * pty N is allocated: out->term_master holds it, and the caller keeps it open (close-on-exec)
 * for as long as the sandbox runs, in a process the command cannot reach (init). Without the
 * flag, or for an index of SBX_PTS_NAMED_MAX or more, or a node that is not that descriptor's,
 * the terminal goes without its name, as before: reachable through its descriptors and /dev/tty.
 */
#define SBX_MNT_OWN_TERMINAL 0x8u
#define SBX_PTS_NAMED_MAX    1024u

/*
 * Leave node i (enum sbx_dev_node; SBX_DEV_N_NODES for the ptmx link) out of the tree, as for a
 * node the host lacks: the profile denies that very name, and the command finds none there.
 */
#define SBX_MNT_LEAVE_OUT(i) (0x100u << (i))

/*
 * Mounts a private, minimal /dev at path (normally "/dev"), in a mount namespace of the caller's
 * own, after the rest of the file system was made read-only (a recursive read-only change made
 * afterwards would reach /dev/shm too). It holds: null zero full random urandom tty (the host's
 * nodes, bind-mounted, each checked to be the device its name says), pts (a new devpts
 * instance: none of the host's terminals but, with SBX_MNT_OWN_TERMINAL, the command's own), ptmx -> pts/ptmx, fd, stdin, stdout, stderr (links
 * into /proc/self/fd), shm (a private writable tmpfs, mode 1777). The top directory is a
 * read-only tmpfs: nothing can be added to it. Needs CAP_SYS_ADMIN in the mount namespace's
 * user namespace. flags: 0, SBX_MNT_ATTACH_FIRST or SBX_MNT_DETACHED, with SBX_MNT_OWN_TERMINAL and
 * SBX_MNT_LEAVE_OUT of the nodes denied.
 * Returns 0 with *out filled,
 * or a negative code with d filled (and nothing of *out open).
 */
int sbx_devfs_build(const char *path, unsigned int flags, struct sbx_devfs *out,
		    struct sbx_diag *d);
/*
 * Attaches at path the tree built with SBX_MNT_DETACHED, in one move (then mounts its pieces in
 * place where the kernel refused to assemble it detached). 0 or -errno, d filled.
 */
int sbx_devfs_attach(struct sbx_devfs *dev, const char *path, struct sbx_diag *d);
void sbx_devfs_close(struct sbx_devfs *dev);
/* Marks every descriptor of dev absent (-1), closing none: a struct sbx_devfs not built yet. */
void sbx_devfs_clear(struct sbx_devfs *dev);

/*
 * The fresh /proc read-only as a whole (sbx_proc_mount): no process of the sandbox writes a file
 * of its processes' (oom_score_adj, coredump_filter, clear_refs, comm, ...) by its mode.
 */
#define SBX_MNT_READONLY 0x4u

/* What sbx_proc_mount() left at /proc. */
enum sbx_proc_result {
	SBX_PROC_FRESH = 0, /* a new procfs: the sandbox's processes only */
	SBX_PROC_HOST = 1,  /* the kernel refused one; the host's /proc is still there */
};

/*
 * Mounts a fresh procfs (nosuid, nodev, noexec; read-write unless SBX_MNT_READONLY, with sys,
 * sysrq-trigger, irq and bus bound read-only over themselves) at path, from pid 1 of a new PID namespace, after the rest of
 * the file system was made read-only. When the kernel refuses a new procfs with EPERM (in a user
 * namespace whose /proc has paths masked by over-mounts, as containers do) it returns
 * SBX_PROC_HOST and changes nothing: the caller must say so, since the host's processes then
 * stay listed. flags: 0, SBX_MNT_ATTACH_FIRST, SBX_MNT_READONLY (the whole procfs read-only),
 * or both. Any other failure returns a negative code with d filled.
 */
int sbx_proc_mount(const char *path, unsigned int flags, struct sbx_diag *d);

#endif /* SBX_PLATFORM_LINUX_SANDBOX_H */
