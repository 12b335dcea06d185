/* SPDX-License-Identifier: MIT */
/*
 * supervise.c - the supervising parent and the minimal init of the sandbox.
 *
 * The supervisor stays in the host's namespaces: it clones init into new PID, IPC and mount
 * namespaces (and a user namespace unless root), writes init's id maps, forwards the signals
 * that processes send it, and when init ends, ends the same way as the command did. Init, pid 1
 * of the new PID namespace, applies the sandbox to itself through the caller's callback, vforks
 * the command (vfork_command), reaps whatever reparents to it, relays the forwarded signals, and
 * reports the command's wait status; when it exits, the kernel kills every process left in the
 * namespace.
 *
 * No thread, no exec besides the command's: one clone and one vfork per run. The two talk over
 * one SOCK_SEQPACKET pair, made before the clone with SOCK_CLOEXEC so the command never holds
 * it: supervisor to init, the message of s->meanwhile if any and then signal numbers to relay,
 * one int per message; init to supervisor, one report (struct report): the command's wait status,
 * and whether init was then alone in the sandbox. If it was, the supervisor runs the clean-up
 * registered with sbx_supervise_on_empty() at once, while the kernel still tears the
 * namespaces down after init's exit (about 0.2 ms), rather than after it. Before all of it,
 * "the id maps are written, go" comes on an eventfd (run_init says why).
 *
 * Signals. The terminal sends SIGINT, SIGQUIT, SIGTSTP, SIGWINCH ... to its whole foreground
 * process group, which holds the supervisor, init and the command alike: those reached the
 * command already and are not forwarded (si_code SI_KERNEL). What a process sent (si_code <= 0:
 * kill(2), sigqueue(3), tgkill(2)) is, to init, which relays it to the command unless the
 * sandbox received that signal directly within RELAY_MERGE_MS: then it was sent to the whole
 * process group (by `kill -- -PGID`, timeout(1), a shell's SIGHUP, the command's own kill(0)),
 * or to every process one by one (systemd), and the command has its own copy. That is at a
 * terminal only: without one the sandbox has a process group of its own (own_group), which a
 * signal to the caller's group does not reach, and the supervisor forwards every signal. Init, in the
 * sandbox, can tell: the supervisor cannot, as a sender in the sandbox's PID namespace is named
 * by its pid there. Two instances of a standard signal that close together may merge in the
 * kernel anyway. Job control is left to the kernel: SIGTSTP, SIGTTIN and SIGTTOU keep their
 * default actions in the supervisor, so Ctrl-Z stops the supervisor and the command together,
 * and `fg` continues both (SIGCONT continues a process that blocks it too; the supervisor reads
 * it only to forward it to a command that stopped itself). Init blocks every signal it relays:
 * pid 1 of a PID namespace ignores any signal it has no handler for, so it reads them from the
 * socket instead.
 *
 * Clone is the raw system call (fork-like, no new stack): glibc's clone() wants a stack and a
 * function. The child then carries glibc's cached thread id of the parent, so init must not use
 * raise(3), pthread functions or anything that relies on them; the command's process, made by
 * vfork(2) or fork(2), is whole again once it executes the command.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/mountapi.h"
#include "linux/sandbox.h"
#include "unix/exec.h"

/*
 * What a user or a program sends to stop or poke a command. Of the others, those that would end
 * the supervisor (ending, below) end the run: the sandbox is killed, the run cleaned up, and the
 * supervisor dies of that signal, so the caller still sees death by it. SIGCONT continues the
 * supervisor, blocked or not, and is forwarded too: without a terminal a command that stopped
 * itself (SIGSTOP) is in a group of its own, which the caller does not know, and `kill -CONT`
 * of sbxrun (timeout(1) sends one after its SIGTERM) is how it is continued, as it would be run
 * in place.
 */
static const int forwarded[] = {SIGHUP,	 SIGINT,   SIGQUIT, SIGTERM, SIGUSR1,
				SIGUSR2, SIGWINCH, SIGALRM, SIGCONT};

/*
 * The other signals whose default action ends a process. Left to their default action, sent by
 * another process, they would end the supervisor before its clean-up, and the points it made on
 * the host would stay (as after a SIGKILL). Read from the signalfd instead: the sandbox is killed,
 * the clean-up runs, and the supervisor then dies of that signal, as it would have. The faults'
 * signals too (a watchdog's SIGABRT, a `kill -SEGV`): a fault of the supervisor's own still ends
 * it at once, as the kernel unblocks the signal it forces, and so does abort(3), which unblocks
 * SIGABRT first. The real-time ones are added from SIGRTMIN on (the C library keeps those below
 * for itself).
 */
static const int ending[] = {SIGPIPE, SIGXCPU, SIGXFSZ,	  SIGVTALRM, SIGPROF,
			     SIGIO,   SIGPWR,  SIGSTKFLT, SIGABRT,   SIGSEGV,
			     SIGBUS,  SIGILL,  SIGFPE,	  SIGTRAP,   SIGSYS};

/* The ending signal the supervisor read, or 0: it dies of it once the run is cleaned up. */
static int ended_by;

#define ARRAY_LEN(a) (sizeof(a) / sizeof(*(a)))

/* Beyond this many ancestors a signal's sender counts as outside (it is only forwarded). */
#define SENDER_DEPTH_MAX 64

/* A relayed signal the sandbox received directly this recently already reached the command. */
#define RELAY_MERGE_MS 250

/*
 * SIGCHLD was ignored when the supervisor started: children were then reaped by the kernel, and
 * no end could be waited for. The supervisor and init take the default; the command gets the
 * caller's disposition back, as an ignored signal stays ignored across execve.
 */
static bool chld_ignored;

static struct {
	int (*fn)(void *arg, int *wstatus);
	void *arg;
	bool on_empty; /* may run as soon as nothing but init is left */
	bool last;     /* runs once every other hook has */
	bool done;
} exit_hooks[SBX_SUPERVISE_MAX_HOOKS];
static size_t n_exit_hooks;

/* Init's end of the socket to the supervisor, for sbx_supervise_receive(); -1 elsewhere. */
static int init_chan = -1;

/* What init's apply asked it to keep open (sbx_supervise_init_keep). */
static int init_kept[SBX_SUPERVISE_INIT_KEEPS];
static int n_init_kept;

int sbx_supervise_init_keep(int fd)
{
	if (n_init_kept == SBX_SUPERVISE_INIT_KEEPS)
		return -ENOSPC;
	init_kept[n_init_kept++] = fd;
	return 0;
}

static struct {
	int fd;
	int (*fn)(void *arg, int fd);
	void *arg;
	bool done; /* fn returned non-zero: no longer polled */
} watches[SBX_SUPERVISE_MAX_HOOKS];
static size_t n_watches;

/* The supervisor's state while the sandbox runs. */
struct sup {
	int sfd;       /* signalfd: the forwarded signals and SIGCHLD */
	sigset_t set;  /* those signals */
	int chan;      /* the socket to init; -1 in the subreaper variant */
	int reported;  /* eventfd: init's report is on chan; -1 in the subreaper variant */
	pid_t child;   /* init, or the command in the subreaper variant */
	sigset_t orig; /* the signal mask the command must start with */
	bool subreaper;
	bool own_group;		 /* the sandbox is in a process group of its own */
	struct sbx_trace *trace; /* the denial report's tracer, or NULL */
};

/* Init to supervisor, once the command has ended. */
struct report {
	int ws;	   /* the command's wait status */
	int alone; /* init had no child left: no process of the sandbox but init */
};

static int add_exit_hook(int (*fn)(void *arg, int *wstatus), void *arg, bool on_empty, bool last)
{
	if (n_exit_hooks >= SBX_SUPERVISE_MAX_HOOKS)
		return -ENOSPC;
	exit_hooks[n_exit_hooks].fn = fn;
	exit_hooks[n_exit_hooks].arg = arg;
	exit_hooks[n_exit_hooks].last = last;
	exit_hooks[n_exit_hooks++].on_empty = on_empty;
	return 0;
}

int sbx_supervise_on_exit(int (*fn)(void *arg, int *wstatus), void *arg)
{
	return add_exit_hook(fn, arg, false, false);
}

int sbx_supervise_on_exit_last(int (*fn)(void *arg, int *wstatus), void *arg)
{
	return add_exit_hook(fn, arg, false, true);
}

int sbx_supervise_on_empty(int (*fn)(void *arg, int *wstatus), void *arg)
{
	return add_exit_hook(fn, arg, true, false);
}

/*
 * Runs, in the order registered, the hooks not run yet (or only those for an empty sandbox),
 * those registered as last after all the others.
 */
static void run_exit_hooks(bool on_empty_only, int *ws)
{
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; i < n_exit_hooks; i++)
			if (!exit_hooks[i].done && exit_hooks[i].last == (bool)last &&
			    (exit_hooks[i].on_empty || !on_empty_only)) {
				exit_hooks[i].done = true;
				exit_hooks[i].fn(exit_hooks[i].arg, ws);
			}
}

int sbx_supervise_watch(int fd, int (*fn)(void *arg, int fd), void *arg)
{
	if (n_watches >= SBX_SUPERVISE_MAX_HOOKS)
		return -ENOSPC;
	watches[n_watches].fd = fd;
	watches[n_watches].fn = fn;
	watches[n_watches++].arg = arg;
	return 0;
}

unsigned long sbx_linux_sandbox_flags(const struct sbx_linux_facts *f, bool new_net)
{
	unsigned long flags;

	if (!f->mount_namespace || !f->pid_namespace || !f->ipc_namespace)
		return 0;
	flags = (unsigned long)sbx_linux_mntns_flags(f->running_as_root) | CLONE_NEWPID |
		CLONE_NEWIPC;
	return new_net ? flags | CLONE_NEWNET : flags;
}

/* Words why argv[0] could not be executed (err) into d; returns the exit status to end with. */
static int exec_failure(char *const argv[], int err,
			int (*exec_failed)(void *arg, int err, struct sbx_diag *d),
			void *exec_failed_arg, struct sbx_diag *d)
{
	if (exec_failed)
		return exec_failed(exec_failed_arg, err, d);
	/* The same words and statuses as an unconfined run (cmd/run.c exec_direct). */
	if (err == ENOENT || err == ENOTDIR) {
		sbx_diag_set(d, -err, "%s: command not found", argv[0]);
		return 127;
	}
	sbx_diag_set(d, -err, "%s: cannot execute: %s", argv[0], strerror(err));
	return 126;
}

void sbx_linux_exec_command(char *const argv[],
			    int (*exec_failed)(void *arg, int err, struct sbx_diag *d),
			    void *exec_failed_arg)
{
	struct sbx_diag d;
	int err, status;

	sbx_diag_clear(&d);
	sbx_execvp(argv[0], argv);
	err = errno;
	status = exec_failure(argv, err, exec_failed, exec_failed_arg, &d);
	sbx_linux_die(&d, status);
}

static __attribute__((noreturn)) void die_errno(const char *what, int err)
{
	struct sbx_diag d;

	sbx_diag_clear(&d);
	sbx_diag_set(&d, -err, "%s: %s", what, strerror(err));
	sbx_linux_die(&d, 125);
}

/*
 * Moves fd above the standard streams (closing the original), or returns it as it is. Started
 * with one of them closed, the supervisor would otherwise get its own descriptors there, and
 * the /dev/null it puts over stdin and stdout would replace them.
 */
static int above_stdio(int fd)
{
	int moved, err;

	if (fd < 0 || fd > STDERR_FILENO)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
	err = errno;
	close(fd);
	errno = err;
	return moved;
}

/* ---- init ------------------------------------------------------------------------------------ */

/* The command's process: traced when the report asks, the signal mask it was started with. */
static __attribute__((noreturn)) void run_command(const struct sbx_spawn *s, const sigset_t *orig)
{
	struct sbx_diag d;

	sbx_diag_clear(&d);
	if (s->trace && sbx_trace_attach_self(s->trace, &d) < 0)
		sbx_linux_die(&d, 125);
	if (chld_ignored)
		signal(SIGCHLD, SIG_IGN);
	sigprocmask(SIG_SETMASK, orig, NULL);
	sbx_linux_exec_command(s->argv, s->exec_failed, s->exec_failed_arg);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * Reads the signals that came to init directly (its signalfd does not block), noting when each
 * came; returns true when one was SIGCHLD.
 */
static bool drain_direct(int sfd, long long direct[NSIG])
{
	struct signalfd_siginfo si[8];
	bool chld = false;
	ssize_t n;

	while ((n = read(sfd, si, sizeof(si))) > 0)
		for (ssize_t i = 0; i < n / (ssize_t)sizeof(*si); i++) {
			if (si[i].ssi_signo == SIGCHLD)
				chld = true;
			else if (si[i].ssi_signo < NSIG)
				direct[si[i].ssi_signo] = now_ms();
		}
	return chld;
}

/*
 * Reaps every child that has ended; returns true when one was the command (status in *ws).
 * __WNOTHREAD: only this thread's children, never the stops of what the denial report's tracer
 * thread traces.
 */
static bool reap(pid_t cmd, int *ws)
{
	bool done = false;
	pid_t pid;
	int st;

	while ((pid = waitpid(-1, &st, WNOHANG | __WNOTHREAD)) > 0)
		if (pid == cmd) {
			*ws = st;
			done = true;
		}
	return done;
}

/*
 * Init's loop: relays the supervisor's signals to the command and reaps every child, until the
 * command has ended; returns its wait status.
 */
static int relay_until_end(int sfd, int chan, pid_t cmd, long long direct[NSIG])
{
	struct pollfd pfd[2] = {{.fd = sfd, .events = POLLIN}, {.fd = chan, .events = POLLIN}};
	int msg, ws = 0;

	if (reap(cmd, &ws))
		return ws;
	for (;;) {
		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot poll: stop relaying, still report the command's end. */
			while (waitpid(cmd, &ws, 0) < 0 && errno == EINTR)
				;
			return ws;
		}
		if ((pfd[0].revents & POLLIN) && drain_direct(sfd, direct) && reap(cmd, &ws))
			return ws;
		if (pfd[1].revents & POLLIN) {
			ssize_t n = recv(chan, &msg, sizeof(msg), MSG_DONTWAIT);

			if (n == 0)
				_exit(125); /* the supervisor is gone; PR_SET_PDEATHSIG follows */
			if (n != (ssize_t)sizeof(msg) || msg <= 0 || msg >= NSIG)
				continue;
			/* A direct copy may have come since poll returned: read it first. */
			if (drain_direct(sfd, direct) && reap(cmd, &ws))
				return ws;
			if (now_ms() - direct[msg] >= RELAY_MERGE_MS)
				kill(cmd, msg);
		} else if (pfd[1].revents & (POLLHUP | POLLERR)) {
			_exit(125);
		}
	}
}

/* Would SIGPIPE end the command (its default action, not blocked in the mask it gets)? */
static bool pipe_kills(const sigset_t *orig)
{
	struct sigaction sa;

	return sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL &&
	       !sigismember(orig, SIGPIPE);
}

/*
 * Whether vfork(2) shares the parent's memory, which vfork_command relies on: glibc's vfork is
 * the system call everywhere, musl's only where it has it in assembly (x86_64, i386, arm among
 * the architectures sbxrun builds for); elsewhere musl's vfork is fork, the error word would be
 * written in the child's copy, and the command is made by fork instead.
 */
#if defined(__GLIBC__) || defined(__x86_64__) || defined(__i386__) || defined(__arm__)
#define VFORK_SHARES_MEMORY 1
#else
#define VFORK_SHARES_MEMORY 0
#endif

/*
 * The command's process made by vfork(2) where nothing between the fork and the exec needs a
 * process of its own: no tracer to attach to (--report) and no SIGCHLD disposition to restore.
 * fork(2) copies init's page tables and vfork(2) does not (about 30 us of a start). The child
 * shares init's memory until it executes the command or exits, and writes nothing of it but
 * its own stack below init's, errno, the two words that record the shell's argument vector it
 * maps for a script without "#!" (init unmaps it: sbx_exec_release), and *exec_err on failure:
 * init reads that word after the child has ended, reaps it, and words the failure itself, as
 * the child would have (run_init). sbx_execvp searches PATH on the stack and allocates
 * nothing, as musl's and glibc's own posix_spawnp do in their CLONE_VM child. Init installs no
 * signal handler, so no code of init's can run in the child either; every signal is blocked
 * across the vfork and the command's mask set just before sbx_execvp. Returns the pid, or -1
 * with errno when vfork failed.
 */
static pid_t vfork_command(const struct sbx_spawn *s, const sigset_t *orig, volatile int *exec_err)
{
	sigset_t all, before;
	pid_t pid;
	int err;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &before);
	pid = vfork();
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, orig, NULL);
		sbx_execvp(s->argv[0], s->argv);
		*exec_err = errno;
		_exit(127);
	}
	err = errno;
	/* A script without "#!": what the child mapped for the shell is ours to unmap. */
	sbx_exec_release();
	sigprocmask(SIG_SETMASK, &before, NULL);
	errno = err;
	return pid;
}

/*
 * Closes every descriptor from from on but the n in keep (ascending) without close_range(2):
 * those /proc/self/fd lists, or where init cannot list it (a /proc hidden or not mounted), each
 * number up to the hard limit on open files, past which the kernel opens none (sbxrun raises
 * only the soft limit, for a while, platform/linux/resolve.c), and below CLOSE_EACH_MAX.
 * poll(2) would find the open ones faster but takes an O_PATH descriptor, a rule path's, for
 * none. Before Linux 5.9 only.
 */
/*
 * The numbers close_each tries at most, as the inherited-socket check scans (network.c): the
 * kernel's default ceiling on the hard limit (fs.nr_open). A hard limit of 2^30, what a
 * container's "unlimited" often is, was a billion close(2)s, minutes in which init neither
 * reaped the command nor relayed its end. Above it lies no descriptor sbxrun opened (the
 * kernel gives the lowest free number: it would need 2^20 open at once), only one it
 * inherited open across its execve, which the command inherits too.
 */
#define CLOSE_EACH_MAX (1ul << 20)

static void close_each(const int *keep, int n, unsigned int from)
{
	struct rlimit rl;
	unsigned long top;
	struct dirent *de;
	DIR *dir;
	int k = 0;

	if ((dir = opendir("/proc/self/fd"))) {
		while ((de = readdir(dir))) {
			int fd = atoi(de->d_name), i = 0;

			while (i < n && keep[i] != fd)
				i++;
			if (fd >= 0 && (unsigned int)fd >= from && i == n && fd != dirfd(dir))
				close(fd);
		}
		closedir(dir);
		return;
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_max > CLOSE_EACH_MAX)
		rl.rlim_max = CLOSE_EACH_MAX;
	top = (unsigned long)rl.rlim_max;
	for (unsigned long fd = from; fd < top; fd++) {
		while (k < n && keep[k] >= 0 && (unsigned long)keep[k] < fd)
			k++;
		if (k < n && keep[k] >= 0 && (unsigned long)keep[k] == fd)
			continue;
		close((int)fd);
	}
}

/*
 * Closes every descriptor of init's but the n in keep (ascending, above stderr's too): once the
 * command runs, init needs its socket, its signalfd, the eventfd, stderr and what its apply
 * asked it to keep (sbx_supervise_init_keep: the master holding the terminal's name). The rest (the
 * rule paths' O_PATH descriptors, the report file, the ends of the report's relay pipe) is
 * close-on-exec, so the command never had it, but pid 1 of the sandbox would hold it for the
 * whole run: closed, nothing of it is left to reach should init ever be reached. One
 * close_range(2) between each kept one; without it (before Linux 5.9), close_each from the first
 * range close_range did not close.
 */
static void close_all_but(const int *keep, int n)
{
	unsigned int from = STDERR_FILENO + 1;

	for (int i = 0; i <= n; i++) {
		unsigned int to = i < n ? (unsigned int)keep[i] - 1 : ~0u;

		if (i < n && (keep[i] < 0 || (unsigned int)keep[i] < from))
			continue; /* closed past already, or none */
		if (to >= from && syscall(__NR_close_range, from, to, 0) < 0) {
			close_each(keep, n, from);
			return;
		}
		if (i < n)
			from = (unsigned int)keep[i] + 1;
	}
}

static __attribute__((noreturn)) void run_init(const struct sbx_spawn *s, int chan, int go_fd,
					       int reported_fd, const sigset_t *orig,
					       const sigset_t *relayed)
{
	struct pollfd hup = {.fd = chan, .events = POLLRDHUP};
	struct pollfd wait_go[2] = {{.fd = go_fd, .events = POLLIN},
				    {.fd = chan, .events = POLLRDHUP}};
	uint64_t go;
	long long direct[NSIG] = {0}; /* when each signal last came to init directly, in ms */
	struct report rep;
	struct sbx_diag d;
	volatile int exec_err = 0; /* written by the command's vfork child only */
	pid_t cmd, pid;
	int sfd;

	sbx_diag_clear(&d);
	/*
	 * Die with the supervisor. Armed before anything else; the supervisor may have died
	 * before it was, so a hung-up socket means it is gone: stop here.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		die_errno("prctl(PR_SET_PDEATHSIG)", errno);
	/*
	 * "Go" comes on an eventfd, not on the socket: the socket's wake-up is a synchronous one,
	 * on which the scheduler moves init to the supervisor's processor, behind it, while the
	 * supervisor goes on making the points (s->meanwhile). Waited for beside the socket's
	 * end, which a supervisor that died before PR_SET_PDEATHSIG was armed leaves.
	 */
	while (poll(wait_go, 2, -1) < 0)
		if (errno != EINTR)
			_exit(125);
	if (read(go_fd, &go, sizeof(go)) != (ssize_t)sizeof(go))
		_exit(125);
	close(go_fd);
	init_chan = chan;
	if (poll(&hup, 1, 0) != 0)
		_exit(125);
	/* Nothing in the sandbox may read init's memory or descriptors through /proc/1. */
	if (prctl(PR_SET_DUMPABLE, 0) < 0)
		die_errno("prctl(PR_SET_DUMPABLE)", errno);
	/* What ps shows of pid 1, inside and out (the supervisor may go by the command's name). */
	prctl(PR_SET_NAME, (unsigned long)"sbxrun-init", 0, 0, 0);
	sfd = above_stdio(signalfd(-1, relayed, SFD_CLOEXEC | SFD_NONBLOCK));
	if (sfd < 0)
		die_errno("signalfd in init", errno);

	/* The sandbox, applied to init itself: the command inherits all of it. */
	if (s->apply(s->apply_arg, &d) < 0)
		sbx_linux_die(&d, 125);

	if (s->trace || chld_ignored || !VFORK_SHARES_MEMORY) {
		cmd = fork();
		if (cmd == 0)
			run_command(s, orig);
	} else {
		cmd = vfork_command(s, orig, &exec_err);
	}
	if (cmd < 0)
		die_errno("fork of the command", errno);
	if (s->trace)
		sbx_trace_close_child(s->trace);
	/* The command holds the standard streams; init keeps none open for it. */
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	/*
	 * What came directly before the command existed did not reach it: forget it, so that
	 * the supervisor's relay of it goes through. (A signal sent to the process group during
	 * fork(2) reaches the new child too.)
	 */
	drain_direct(sfd, direct);
	memset(direct, 0, sizeof(direct));

	if (exec_err) {
		int ws = 0;

		/* The child has ended (vfork returned after it): its words, now said by init. */
		while (waitpid(cmd, &ws, 0) < 0 && errno == EINTR)
			;
		if (WIFEXITED(ws)) {
			sbx_diag_clear(&d);
			ws = (exec_failure(s->argv, exec_err, s->exec_failed, s->exec_failed_arg,
					   &d) &
			      0xff)
			     << 8;
			clearerr(stderr);
			sbx_diag_print(&d, stderr);
			/* The child writing them to a closed pipe would have died of SIGPIPE. */
			if ((fflush(stderr) == EOF || ferror(stderr)) && errno == EPIPE &&
			    pipe_kills(orig))
				ws = SIGPIPE;
		}
		rep.ws = ws;
	} else {
		int keep[3 + SBX_SUPERVISE_INIT_KEEPS] = {chan, sfd, reported_fd}, n = 3;

		for (int i = 0; i < n_init_kept; i++)
			keep[n++] = init_kept[i];
		/* In order, for close_all_but. */
		for (int i = 1; i < n; i++)
			for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
				int t = keep[j];

				keep[j] = keep[j - 1];
				keep[j - 1] = t;
			}
		close_all_but(keep, n);
		rep.ws = relay_until_end(sfd, chan, cmd, direct);
	}
	/*
	 * Is init alone now? Every process of the sandbox descends from init, which inherits the
	 * orphans: with no child left (the ended ones reaped; __WALL for those whose parent is
	 * signalled otherwise than by SIGCHLD), there is none. Nothing is killed to get there:
	 * what is left is killed by the kernel when init exits, and the supervisor waits for that.
	 */
	while ((pid = waitpid(-1, NULL, __WALL | WNOHANG)) > 0)
		;
	rep.alone = pid < 0 && errno == ECHILD;
	/*
	 * Exiting ends the PID namespace: the kernel kills and reaps whatever is left. The
	 * supervisor is woken by the eventfd, not by the socket, whose synchronous wake-up would
	 * queue it on this processor behind that teardown instead of running the clean-up beside
	 * it.
	 */
	send(chan, &rep, sizeof(rep), MSG_NOSIGNAL);
	if (write(reported_fd, &(uint64_t){1}, sizeof(uint64_t)) < 0)
		_exit(125);
	_exit(0);
}

ssize_t sbx_supervise_receive(void *buf, size_t size)
{
	ssize_t n;

	if (init_chan < 0)
		return -EBADF;
	while ((n = recv(init_chan, buf, size, MSG_TRUNC)) < 0 && errno == EINTR)
		;
	if (n == 0)
		_exit(125); /* the supervisor is gone; PR_SET_PDEATHSIG follows */
	if (n < 0)
		return -errno;
	return n > (ssize_t)size ? -EMSGSIZE : n;
}

/* ---- the supervisor -------------------------------------------------------------------------- */

bool sbx_proc_read(pid_t pid, const char *file, char *buf, size_t size)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

long sbx_proc_ns_pid(pid_t pid)
{
	char buf[2048], *line, *last = NULL, *save = NULL;

	if (!sbx_proc_read(pid, "status", buf, sizeof(buf)))
		return -1;
	line = strstr(buf, "\nNStgid:");
	if (!line)
		return -1;
	/* strtok_r: the tracer's thread and the supervisor's both ask. */
	for (char *tok = strtok_r(line + 8, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (*tok < '0' || *tok > '9')
			break;
		last = tok;
	}
	return last ? strtol(last, NULL, 10) : -1;
}

/* The parent of pid, read from /proc/PID/stat; -1 when it cannot be read. */
static pid_t parent_pid(pid_t pid)
{
	char buf[256], *p;

	if (!sbx_proc_read(pid, "stat", buf, sizeof(buf)))
		return -1;
	/* "PID (COMM) S PPID ...": COMM may hold anything, so look from its last ')'. */
	p = strrchr(buf, ')');
	if (!p || strlen(p) < 5)
		return -1;
	return (pid_t)strtol(p + 4, NULL, 10);
}

/* Does pid run below this process (inside the sandbox)? */
static bool is_descendant(pid_t pid)
{
	pid_t self = getpid();

	for (int i = 0; i < SENDER_DEPTH_MAX && pid > 1; i++) {
		pid = parent_pid(pid);
		if (pid == self)
			return true;
	}
	return false;
}

/*
 * Is this signal to be forwarded? Sent by the kernel (the terminal, to its whole foreground
 * group), it reached the command already, unless the sandbox has a group of its own (then
 * there is no terminal, and the kernel's is a signal to the caller's group, an orphaned one's
 * SIGHUP). Without init to sort the rest out, a signal from a process below the supervisor was
 * sent to its own process group, the command included.
 */
static bool to_forward(const struct sup *sup, const struct signalfd_siginfo *si)
{
	if (si->ssi_code > 0 && !sup->own_group)
		return false;
	return !sup->subreaper || !is_descendant((pid_t)si->ssi_pid);
}

/* Is pid stopped (state T in /proc/PID/stat)? */
static bool is_stopped(pid_t pid)
{
	char buf[256], *p;

	if (!sbx_proc_read(pid, "stat", buf, sizeof(buf)))
		return false;
	/* "PID (COMM) S ...": COMM may hold anything, so look from its last ')'. */
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'T';
}

static void forward(const struct sup *sup, int sig)
{
	if (sup->chan >= 0)
		send(sup->chan, &sig, sizeof(sig), MSG_NOSIGNAL | MSG_DONTWAIT);
	/*
	 * Without init the command shares the caller's process group, and a SIGCONT to the group
	 * (a shell's fg or bg, timeout(1)) looks to the supervisor like one sent to it alone. The
	 * kernel signals the group's newer members first: the command is continued by then, and a
	 * second SIGCONT would run its handler twice (a full-screen program redraws). Only a
	 * command still stopped is sent one.
	 */
	else if (sig != SIGCONT || is_stopped(sup->child))
		kill(sup->child, sig);
}

/*
 * Handles the signals read from the signalfd; returns true when the child ended (*ws set). In
 * the subreaper variant every child is reaped (orphans come to the supervisor); otherwise only
 * init, so a caller's own children keep their status.
 */
static bool on_signals(const struct sup *sup, int *ws)
{
	struct signalfd_siginfo si[8];
	bool chld = false;
	ssize_t n;

	n = read(sup->sfd, si, sizeof(si));
	for (ssize_t i = 0; i < n / (ssize_t)sizeof(*si); i++) {
		if (si[i].ssi_signo == SIGCHLD) {
			chld = true;
		} else if (!sigismember(&sup->set, (int)si[i].ssi_signo)) {
			/* An ending signal: the sandbox ends now, and the supervisor after it. */
			if (!ended_by)
				ended_by = (int)si[i].ssi_signo;
			kill(sup->child, SIGKILL);
		} else if (to_forward(sup, &si[i])) {
			forward(sup, (int)si[i].ssi_signo);
		}
	}
	if (!chld)
		return false;
	if (sup->subreaper)
		return reap(sup->child, ws);
	return waitpid(sup->child, ws, WNOHANG | __WNOTHREAD) == sup->child;
}

/* Sends SIGKILL to every process below pid, deepest last; returns how many were found. */
static size_t kill_tree(pid_t pid, int depth)
{
	char path[64];
	struct dirent *e;
	size_t n = 0;
	DIR *tasks;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	tasks = opendir(path);
	if (!tasks)
		return 0;
	while ((e = readdir(tasks))) {
		char buf[4096], *p, *end;
		ssize_t len;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/children", (int)pid, e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		for (p = buf;; p = end) {
			long child = strtol(p, &end, 10);

			if (end == p)
				break;
			/* The children first: killed, they would move to the subreaper. */
			if (depth < SENDER_DEPTH_MAX)
				n += kill_tree((pid_t)child, depth + 1);
			kill((pid_t)child, SIGKILL);
			n++;
		}
	}
	closedir(tasks);
	return n;
}

/*
 * Kills every process below the supervisor and reaps them. A process forked while the tree was
 * walked, or whose parent was killed first, is the supervisor's child by then (it is the child
 * subreaper): the walk repeats until the supervisor has no child at all.
 */
static void kill_descendants(void)
{
	for (;;) {
		kill_tree(getpid(), 0);
		if (waitpid(-1, NULL, __WNOTHREAD) < 0 && errno == ECHILD)
			break;
		while (waitpid(-1, NULL, WNOHANG | __WNOTHREAD) > 0)
			;
	}
}

/*
 * The caller's descriptors to poll, after the signalfd in pfd: made again on every round, as a
 * watch function may add a watch (a descriptor that only exists once the sandbox has started).
 */
static size_t watch_fds(struct pollfd *pfd)
{
	for (size_t i = 0; i < n_watches; i++)
		pfd[i] = (struct pollfd){.fd = watches[i].done ? -1 : watches[i].fd,
					 .events = POLLIN};
	return n_watches;
}

/*
 * The terminal's modes as the command found them, put back when it dies by a signal, as an
 * interactive shell does for a job killed in front of it: a full-screen program killed, or a
 * `stty raw -echo` whose command was interrupted, would otherwise leave the caller's terminal
 * unusable (a caller that is a script does not restore it). A command that exits keeps what it
 * changed: changing the caller's terminal is what `stty` is for. Only a command that holds the
 * terminal, its standard input and output both the caller's controlling terminal, in the
 * foreground: one that writes into a pipe has a partner that may own the modes (a pager, which
 * sets its own at once and puts them back when it quits: the writer's SIGPIPE then comes after,
 * and the modes saved may be the pager's), and a job started with `&` by a script reads
 * /dev/null. term_fd is the descriptor the supervisor keeps of it.
 */
static int term_fd = -1;
static bool term_saved;
static struct termios term_modes;

/* Before the command can start: the modes it starts with. */
static void term_save(void)
{
	struct stat in, out;

	term_saved = fstat(STDIN_FILENO, &in) == 0 && fstat(STDOUT_FILENO, &out) == 0 &&
		     S_ISCHR(in.st_mode) && S_ISCHR(out.st_mode) && in.st_rdev == out.st_rdev &&
		     tcgetpgrp(STDIN_FILENO) == getpgrp() &&
		     tcgetattr(STDIN_FILENO, &term_modes) == 0;
}

/* Once the supervisor gives up its standard input and output: a descriptor of its own. */
static void term_keep(void)
{
	if (term_saved)
		term_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
}

/*
 * Only while the terminal's foreground group is still this process's: a group in front since
 * (the shell, another job) has modes of its own, and a change from behind would stop this
 * process with SIGTTOU. TCSANOW: the output the command left is not waited for (a terminal
 * stopped by ^S would hold the supervisor).
 */
static void term_restore(void)
{
	if (term_fd >= 0 && tcgetpgrp(term_fd) == getpgrp())
		tcsetattr(term_fd, TCSANOW, &term_modes);
}

/* Ends this process as the command ended: exit status N, or death by the same signal. */
static __attribute__((noreturn)) void mirror(int ws)
{
	if (WIFSIGNALED(ws)) {
		int sig = WTERMSIG(ws);
		struct rlimit no_core = {0, 0};
		sigset_t one;

		term_restore();
		/* The command's core, if any, was dumped; the supervisor's is of no use. */
		setrlimit(RLIMIT_CORE, &no_core);
		signal(sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		kill(getpid(), sig);
		_exit(128 + sig); /* only if the signal's default action is not to end */
	}
	_exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : 125);
}

static __attribute__((noreturn)) void supervise(struct sup *sup)
{
	struct pollfd pfd[2 + SBX_SUPERVISE_MAX_HOOKS];
	struct report rep;
	bool reported = false, chan_done = sup->chan < 0;
	size_t n;
	int ws = 0, fd;

	/*
	 * The command holds the standard streams; a reader waiting for their end must not wait
	 * for the supervisor too. Stderr stays, for the supervisor's own messages.
	 */
	term_keep();
	fd = openat(AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC); /* openat: see probe.c */
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	/* Nothing in the sandbox may read the supervisor through /proc either. */
	prctl(PR_SET_DUMPABLE, 0);

	pfd[0] = (struct pollfd){.fd = sup->sfd, .events = POLLIN};
	for (;;) {
		n = 1 + watch_fds(pfd + 1);
		/* Init's report, read as soon as it comes: it may say init is alone. */
		pfd[n++] = (struct pollfd){.fd = chan_done ? -1 : sup->reported, .events = POLLIN};
		if (poll(pfd, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot poll: stop forwarding, still wait for the end. */
			while (waitpid(sup->child, &ws, __WNOTHREAD) < 0 && errno == EINTR)
				;
			break;
		}
		for (size_t i = 1; i < n - 1; i++)
			if (pfd[i].revents && watches[i - 1].fn(watches[i - 1].arg, pfd[i].fd))
				watches[i - 1].done = true;
		if (pfd[n - 1].revents) {
			ssize_t got = recv(sup->chan, &rep, sizeof(rep), MSG_DONTWAIT);

			reported = got == (ssize_t)sizeof(rep);
			/*
			 * Read once: the report is on the socket before the eventfd is written (or,
			 * behind relay requests init left unread, it is read again below).
			 */
			chan_done = true;
			if (reported && rep.alone)
				run_exit_hooks(true, &rep.ws);
		}
		if ((pfd[0].revents & POLLIN) && on_signals(sup, &ws))
			break;
	}
	if (sup->subreaper)
		kill_descendants();
	/*
	 * Init's report is the command's status; without one, init itself failed. Init may have
	 * ended with relay requests unread: the socket then reports ECONNRESET once, before the
	 * report queued behind it.
	 */
	if (sup->chan >= 0 && !reported) {
		ssize_t got = recv(sup->chan, &rep, sizeof(rep), MSG_DONTWAIT);

		if (got < 0 && errno == ECONNRESET)
			got = recv(sup->chan, &rep, sizeof(rep), MSG_DONTWAIT);
		reported = got == (ssize_t)sizeof(rep);
	}
	if (reported)
		ws = rep.ws;
	else if (sup->chan >= 0 && WIFEXITED(ws) && WEXITSTATUS(ws) == 125)
		sbx_linux_refused(); /* init refused: no command's status, no command */
	/* Every traced process has ended: the tracer has handed on all it saw. */
	sbx_trace_end(sup->trace);
	/* Killed for an ending signal: the clean-up sees, and the caller gets, death by it. */
	if (ended_by)
		ws = ended_by;
	run_exit_hooks(false, &ws);
	mirror(ws);
}

/*
 * Adds sig to set when it would end the supervisor: left at its default action and not blocked
 * in orig, the caller's mask. One the caller ignores stays ignored; blocked, the kernel would
 * queue it for the signalfd instead of dropping it (a write of the supervisor's to a closed pipe
 * would then end the run). One the caller blocked stays pending, as it would in the command run
 * in place: read from the signalfd it would end the run.
 */
static void ending_add(sigset_t *set, int sig, const sigset_t *orig)
{
	struct sigaction sa;

	if (!sigismember(orig, sig) && sigaction(sig, NULL, &sa) == 0 &&
	    !(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_DFL)
		sigaddset(set, sig);
}

/*
 * The forwarded signals and SIGCHLD in set (init relays those), and with them the ending ones in
 * all, for the caller's mask orig.
 */
static void sup_sets(sigset_t *set, sigset_t *all, const sigset_t *orig)
{
	sigemptyset(set);
	for (size_t i = 0; i < ARRAY_LEN(forwarded); i++)
		sigaddset(set, forwarded[i]);
	sigaddset(set, SIGCHLD);
	*all = *set;
	for (size_t i = 0; i < ARRAY_LEN(ending); i++)
		ending_add(all, ending[i], orig);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		ending_add(all, sig, orig);
}

/* The caller's mask while sbx_supervise_hold() holds the signals; held says it does. */
static bool held;
static sigset_t held_orig;

void sbx_supervise_hold(void)
{
	sigset_t set, all;

	if (held || sigprocmask(SIG_BLOCK, NULL, &held_orig) < 0)
		return;
	sup_sets(&set, &all, &held_orig);
	held = sigprocmask(SIG_BLOCK, &all, NULL) == 0;
}

void sbx_supervise_release(void)
{
	if (held)
		sigprocmask(SIG_SETMASK, &held_orig, NULL);
	held = false;
}

/*
 * Blocks the forwarded signals, SIGCHLD and the ending ones, and opens the signalfd that reads
 * them. sup->set holds the first two only: init relays those.
 */
static int sup_signals(struct sup *sup, struct sbx_diag *d)
{
	struct sigaction chld;
	sigset_t all;
	int err;

	if (held)
		sup->orig = held_orig;
	else if (sigprocmask(SIG_BLOCK, NULL, &sup->orig) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "sigprocmask: %s", strerror(err));
	}
	sup_sets(&sup->set, &all, &sup->orig);
	if (sigprocmask(SIG_BLOCK, &all, NULL) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "sigprocmask: %s", strerror(err));
	}
	sup->sfd = above_stdio(signalfd(-1, &all, SFD_CLOEXEC));
	if (sup->sfd < 0) {
		err = errno;
		if (!held)
			sigprocmask(SIG_SETMASK, &sup->orig, NULL);
		return sbx_diag_set(d, -err, "signalfd: %s", strerror(err));
	}
	if (sigaction(SIGCHLD, NULL, &chld) == 0 && chld.sa_handler == SIG_IGN) {
		chld_ignored = true;
		signal(SIGCHLD, SIG_DFL);
	}
	return 0;
}

/* Held signals stay blocked: the caller releases them once it has cleaned up. */
static void sup_undo(struct sup *sup)
{
	close(sup->sfd);
	if (!held)
		sigprocmask(SIG_SETMASK, &sup->orig, NULL);
	if (chld_ignored)
		signal(SIGCHLD, SIG_IGN);
}

/* Writes text to /proc/PID/file (an id map of the child). */
static int write_child_file(pid_t pid, const char *file, const char *text, struct sbx_diag *d)
{
	char path[64];
	size_t len = strlen(text);
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "opening %s of the sandbox: %s", file, strerror(err));
	}
	n = write(fd, text, len);
	err = n < 0 ? errno : EIO;
	close(fd);
	if (n != (ssize_t)len)
		return sbx_diag_set(d, -err, "writing %s of the sandbox: %s", file, strerror(err));
	return 0;
}

/*
 * The child's uid and gid map to the caller's own, so files look owned as on the host. Written
 * from the parent, which is still in the user namespace that owns them; setgroups must be
 * denied before an unprivileged process may write gid_map.
 */
static int map_ids(pid_t pid, uid_t uid, gid_t gid, struct sbx_diag *d)
{
	char uid_map[48], gid_map[48];
	int rc;

	snprintf(uid_map, sizeof(uid_map), "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
	snprintf(gid_map, sizeof(gid_map), "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
	rc = write_child_file(pid, "setgroups", "deny", d);
	if (rc == 0)
		rc = write_child_file(pid, "uid_map", uid_map, d);
	if (rc == 0)
		rc = write_child_file(pid, "gid_map", gid_map, d);
	return rc;
}

/* "CLONE_NEWUSER|CLONE_NEWNS|..." for a message. */
static const char *clone_flag_names(unsigned long flags, char *buf, size_t size)
{
	static const struct {
		unsigned long flag;
		const char *name;
	} names[] = {{CLONE_NEWUSER, "CLONE_NEWUSER"},
		     {CLONE_NEWNS, "CLONE_NEWNS"},
		     {CLONE_NEWPID, "CLONE_NEWPID"},
		     {CLONE_NEWIPC, "CLONE_NEWIPC"},
		     {CLONE_NEWNET, "CLONE_NEWNET"}};
	size_t len = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_LEN(names); i++)
		if ((flags & names[i].flag) && len < size)
			len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "|" : "",
						names[i].name);
	return buf;
}

static int check_spawn(const struct sbx_spawn *s, struct sbx_diag *d)
{
	if (!s->argv || !s->argv[0])
		return sbx_diag_set(d, SBX_E_USAGE, "no command to run");
	if (!s->apply)
		return sbx_diag_set(d, -EINVAL, "no sandbox to apply");
	return 0;
}

/*
 * Puts the sandbox's first process (init, or the command's before its apply) in a process group
 * of its own: kill(0) in the sandbox then reaches the sandbox alone, not the caller's group,
 * whose members a PID namespace does not hide (the caller's script, an agent, pipeline
 * partners). Only where sbxrun has no controlling terminal: a terminal's job must stay the
 * terminal's foreground group.
 */
static int own_group(pid_t pid, struct sbx_diag *d)
{
	int err;

	if (setpgid(pid, pid) == 0)
		return 0;
	err = errno;
	return sbx_diag_set(d, -err, "setpgid (the sandbox's own process group): %s",
			    strerror(err));
}

int sbx_supervise(const struct sbx_spawn *s, struct sbx_diag *d)
{
	struct sup sup = {.chan = -1, .reported = -1};
	char names[96];
	int sv[2], go_fd = -1, rc, err;
	pid_t pid;

	rc = check_spawn(s, d);
	if (rc < 0)
		return rc;
	term_save();
	if (!(s->clone_flags & CLONE_NEWPID))
		return sbx_diag_set(d, -EINVAL, "the sandbox child needs CLONE_NEWPID");
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "socketpair: %s", strerror(err));
	}
	sv[0] = above_stdio(sv[0]);
	sv[1] = above_stdio(sv[1]);
	if (sv[0] < 0 || sv[1] < 0) {
		rc = sbx_diag_set(d, -EMFILE, "socketpair: %s", strerror(EMFILE));
		goto fail_sock;
	}
	rc = sup_signals(&sup, d);
	if (rc < 0)
		goto fail_sock;
	go_fd = above_stdio(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	sup.reported = above_stdio(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
	if (go_fd < 0 || sup.reported < 0) {
		err = errno;
		rc = sbx_diag_set(d, -err, "eventfd: %s", strerror(err));
		goto fail_sig;
	}

	pid = (pid_t)syscall(SYS_clone, s->clone_flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (pid < 0) {
		err = errno;
		rc = sbx_diag_set(d, -err, "clone(%s): %s",
				  clone_flag_names(s->clone_flags, names, sizeof(names)),
				  strerror(err));
		sbx_diag_hint(d, rc,
			      "the probe found these namespaces available; "
			      "run `sbxrun probe` to see what changed");
		goto fail_sig;
	}
	if (pid == 0) {
		close(sv[0]);
		close(sup.sfd);
		if (s->trace)
			sbx_trace_child(s->trace);
		run_init(s, sv[1], go_fd, sup.reported, &sup.orig, &sup.set);
	}
	close(sv[1]);
	sup.chan = sv[0];
	sup.child = pid;
	sup.trace = s->trace;
	sup.own_group = s->own_group;

	/*
	 * The group is made here, before init is told to go, rather than by init: a signal to the
	 * caller's group then never reaches init, which would take it for the command's own copy
	 * of the one the supervisor relays.
	 */
	if ((s->own_group && (rc = own_group(pid, d)) < 0) ||
	    ((s->clone_flags & CLONE_NEWUSER) && (rc = map_ids(pid, s->uid, s->gid, d)) < 0) ||
	    (s->trace && (rc = sbx_trace_start(s->trace, d)) < 0)) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close(sv[0]);
		close(go_fd);
		close(sup.reported);
		sup_undo(&sup);
		return rc;
	}
	/* Cannot fail on an eventfd at 0; if it did, init would never start: its end is seen. */
	if (write(go_fd, &(uint64_t){1}, sizeof(uint64_t)) != (ssize_t)sizeof(uint64_t))
		kill(pid, SIGKILL);
	close(go_fd);
	if (s->meanwhile)
		s->meanwhile(s->meanwhile_arg, sup.chan);
	supervise(&sup);

fail_sig:
	if (go_fd >= 0)
		close(go_fd);
	if (sup.reported >= 0)
		close(sup.reported);
	sup_undo(&sup);
fail_sock:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	return rc;
}

int sbx_supervise_subreaper(const struct sbx_spawn *s, struct sbx_diag *d)
{
	struct sup sup = {.chan = -1, .reported = -1, .subreaper = true};
	struct sbx_diag cd;
	pid_t pid, parent = getpid();
	int rc, err;

	rc = check_spawn(s, d);
	if (rc < 0)
		return rc;
	/*
	 * The tracer is a thread of this process: tracing a child of its own process it would reap
	 * the command's end itself, and the supervisor would never see the status it must mirror.
	 */
	if (s->trace)
		return sbx_diag_set(d, -ENOTSUP,
				    "--report needs the sandbox's own PID namespace, which this "
				    "host cannot make");
	/* Orphans of the command come to the supervisor instead of the host's init. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(err));
	}
	rc = sup_signals(&sup, d);
	if (rc < 0)
		return rc;
	term_save();
	pid = fork();
	if (pid < 0) {
		err = errno;
		sup_undo(&sup);
		return sbx_diag_set(d, -err, "fork: %s", strerror(err));
	}
	if (pid == 0) {
		/* Die with the supervisor; it may be gone already (then the parent is another). */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
			die_errno("prctl(PR_SET_PDEATHSIG)", errno);
		if (getppid() != parent)
			_exit(125);
		close(sup.sfd);
		sbx_diag_clear(&cd);
		if (s->own_group && own_group(0, &cd) < 0)
			sbx_linux_die(&cd, 125);
		if (s->apply(s->apply_arg, &cd) < 0)
			sbx_linux_die(&cd, 125);
		run_command(s, &sup.orig);
	}
	sup.child = pid;
	sup.own_group = s->own_group;
	supervise(&sup);
}
