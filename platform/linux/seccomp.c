/* SPDX-License-Identifier: MIT */
/*
 * seccomp.c - the system-call filter loaded last, just before exec.
 *
 * Default allow; every rule returns an errno (never kills), so a program sees a refusal it can
 * report. The filter is built for the native architecture only: libseccomp makes a system call
 * of any other ABI (i386 through int 0x80, x32) fail the architecture check and kill the thread,
 * since those numbers would otherwise slip past rules written for the native table.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <asm/termbits.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/kd.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <linux/vt.h>
#include <seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"

/*
 * System calls newer than the libseccomp release a distribution ships are named with their
 * number: since Linux 5.1 new calls share one number on every architecture.
 */
struct sc_name {
	const char *name;
	int fallback; /* -1: the library must know it */
};

static int sc_resolve(const struct sc_name *s)
{
	int nr = seccomp_syscall_resolve_name(s->name);

	if (nr == __NR_SCMP_ERROR)
		nr = s->fallback;
	return nr;
}

/* Refused always: kernel attack surface and ways around the other layers. */
static const struct sc_name always_eperm[] = {
	/* Mounts would undo the read-only view; the namespace is ours but caps are gone anyway. */
	{"mount", -1},
	{"umount2", -1},
	{"pivot_root", -1},
	{"chroot", -1},
	{"open_tree", 428},
	{"move_mount", 429},
	{"fsopen", 430},
	{"fsconfig", 431},
	{"fsmount", 432},
	{"fspick", 433},
	{"mount_setattr", 442},
	{"open_tree_attr", 467},
	{"setns", -1},
	/* eBPF, the kernel keyring and perf events: large attack surface, no use in a sandbox. */
	{"bpf", -1},
	{"add_key", -1},
	{"request_key", -1},
	{"keyctl", -1},
	{"perf_event_open", -1},
	/* Kernel code loading. */
	{"init_module", -1},
	{"finit_module", -1},
	{"delete_module", -1},
	{"kexec_load", -1},
	{"kexec_file_load", -1},
};

/* io_uring performs operations outside seccomp's view; ENOSYS makes programs fall back. */
static const struct sc_name always_enosys[] = {
	{"io_uring_setup", 425},
	{"io_uring_enter", 426},
	{"io_uring_register", 427},
	/* clone3 passes its flags in memory seccomp cannot read: ENOSYS makes libc use clone. */
	{"clone3", 435},
};

/* Refused when no mount namespace makes the file system read-only (Landlock cannot). */
static const struct sc_name metadata_eperm[] = {
	{"chmod", -1},
	{"fchmod", -1},
	{"fchmodat", -1},
	{"fchmodat2", 452},
	{"chown", -1},
	{"fchown", -1},
	{"lchown", -1},
	{"fchownat", -1},
	{"utime", -1},
	{"utimes", -1},
	{"futimesat", -1},
	{"utimensat", -1},
	{"setxattr", -1},
	{"lsetxattr", -1},
	{"fsetxattr", -1},
	{"setxattrat", 463},
	{"removexattr", -1},
	{"lremovexattr", -1},
	{"fremovexattr", -1},
	{"removexattrat", 466},
	/* Linux 6.17: FS_IOC_FSSETXATTR by path (flags, project id, extent size). */
	{"file_setattr", 469},
};

/* Refused when the network is restricted (seccomp cannot see a socket address). */
static const struct sc_name net_eperm[] = {
	{"connect", -1}, {"bind", -1}, {"listen", -1}, {"accept", -1}, {"accept4", -1},
};

/* <linux/ioprio.h>'s "who" kinds, which not every C library's headers carry. */
#define SBX_IOPRIO_WHO_PROCESS 1
#define SBX_IOPRIO_WHO_PGRP    2

#define NS_FLAGS_N 8
static const unsigned long ns_flags[NS_FLAGS_N] = {
	CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,    CLONE_NEWNET,
	CLONE_NEWUTS,  CLONE_NEWIPC, CLONE_NEWCGROUP, 0x00000080 /* CLONE_NEWTIME */,
};

/*
 * The action of a refusal: EPERM, or, when the denial report traces the sandbox, a stop for the
 * tracer that names the group of the rule and the errno; the tracer records it and fails the
 * call with that errno, never letting it run (platform/linux/trace.c). Without a tracer the
 * kernel fails such a call with ENOSYS: it never runs either way.
 */
static uint32_t refusal(bool traced, enum sbx_seccomp_group g)
{
	return traced ? SCMP_ACT_TRACE(SBX_TRACE_REFUSED(g, EPERM)) : SCMP_ACT_ERRNO(EPERM);
}

static int add_list(scmp_filter_ctx ctx, const struct sc_name *l, size_t n, uint32_t action,
		    struct sbx_diag *d)
{
	for (size_t i = 0; i < n; i++) {
		int nr = sc_resolve(&l[i]);
		int rc;

		if (nr < 0) /* not a system call on this architecture (e.g. chmod on arm64) */
			continue;
		rc = seccomp_rule_add(ctx, action, nr, 0);
		if (rc < 0)
			return sbx_diag_set(d, rc, "seccomp rule for %s: %s", l[i].name,
					    strerror(-rc));
	}
	return 0;
}

#define RULE(ctx, act, nr, n, ...)                                                                 \
	do {                                                                                       \
		int rc_ = seccomp_rule_add(ctx, act, nr, n, __VA_ARGS__);                          \
		if (rc_ < 0) {                                                                     \
			rc = sbx_diag_set(d, rc_, "seccomp rule %s: %s", #nr, strerror(-rc_));     \
			goto out;                                                                  \
		}                                                                                  \
	} while (0)

/*
 * A Linux virtual console's state outlives the run and reaches every user of the machine: the
 * keyboard map, function-key strings (KDSKBSENT: a key pressed after the run types a command
 * into the shell), accents and scan codes are global to every VT; raw keyboard mode, the font,
 * the screen and colour maps, a tone (KIOCSOUND sounds until stopped), VT switching and its
 * process mode stay set when the command is gone. The kernel lets the owner of the controlling
 * terminal make those changes (drivers/tty/vt/vt_ioctl.c: current->signal->tty == tty); recent
 * kernels ask a capability as well for a few (KDSKBENT, KDSKBSENT), older ones did not, so a
 * command run at a console could. The console's requests are two
 * classes of numbers without size bits, 'K' (linux/kd.h, all of 0x4b00-0x4bff) and 'V'
 * (linux/vt.h, 0x5600-0x561f): every one is refused but the getters, which is how programs tell a
 * console from a pseudo-terminal (KDGKBTYPE) and which change nothing. A class, not a list of
 * setters: a request added to it later is refused too. KDFONTOP and KDKBDREP are refused
 * whole: whether they read or write lies in memory a filter cannot read. Waiting for a VT to
 * become active (VT_WAITACTIVE, VT_WAITEVENT) changes nothing either. VT_GETCONSIZECSRPOS
 * (Linux 6.16) is not of the class: it is _IOR('V', 0x10, ...), with size and direction bits,
 * and 0x5610 is no request at all.
 *
 * TIOCSETD and TIOCEXCL too, on any terminal: a line discipline stays on the terminal after the
 * command exits, and the null one (N_NULL, any user may set it) leaves the caller's shell
 * reading nothing typed into it; exclusive mode stays too, and every later open of the
 * terminal by the user (/dev/tty: less, sudo, ssh asking a password) fails with EBUSY. The
 * programs that set a discipline (pppd, slattach, ldattach) need privileges a sandbox never
 * has, and those that take a serial line for themselves find none in its /dev; TIOCGETD and
 * TIOCNXCL (which ends exclusive mode) still work.
 */
#define SBX_KD_FIRST 0x4b00u
#define SBX_KD_END   0x4c00u
#define SBX_VT_FIRST 0x5600u
#define SBX_VT_END   0x5620u
static const uint32_t kd_getters[] = {
	KDGETLED,   KDGKBTYPE,	    KDGETMODE,	  GIO_SCRNMAP, KDGKBMODE,    KDGKBENT,
	KDGKBSENT,  KDGKBDIACR,	    KDGETKEYCODE, GIO_FONT,    KDGKBMETA,    KDGKBLED,
	GIO_UNIMAP, GIO_UNISCRNMAP, GIO_FONTX,	  GIO_CMAP,    KDGKBDIACRUC,
};
static const uint32_t vt_getters[] = {
	VT_OPENQRY, VT_GETMODE, VT_GETSTATE, VT_WAITACTIVE, VT_GETHIFONTMASK, VT_WAITEVENT,
};
#define N_KD_GETTERS (sizeof(kd_getters) / sizeof(*kd_getters))
#define N_VT_GETTERS (sizeof(vt_getters) / sizeof(*vt_getters))

static bool console_getter(uint32_t v)
{
	for (size_t i = 0; i < N_KD_GETTERS; i++)
		if (kd_getters[i] == v)
			return true;
	for (size_t i = 0; i < N_VT_GETTERS; i++)
		if (vt_getters[i] == v)
			return true;
	return false;
}

/*
 * The rules the program's head enforces, as libseccomp rules: the statement seccomp-gen checks
 * the head against. A new user namespace hands back every capability (inside it), and with it
 * mount and the other namespace-creating calls: any namespace flag to unshare and clone is
 * refused. Execution domains change the kernel's behaviour (READ_IMPLIES_EXEC,
 * ADDR_NO_RANDOMIZE): only the default (0) and the query (0xffffffff) are allowed. A rule
 * cannot compare one argument twice, so this is written one pair of neighbouring bits at a time,
 * around the 32-bit circle: a value other than all zeros or all ones has somewhere a set bit
 * followed by a clear one, and each rule refuses one such place.
 */
static int reference_rules(scmp_filter_ctx ctx, bool traced, struct sbx_diag *d)
{
	uint32_t eperm = refusal(traced, SBX_SCG_NAMESPACE);
	int rc = 0;

	for (size_t i = 0; i < NS_FLAGS_N; i++) {
		RULE(ctx, eperm, SCMP_SYS(unshare), 1,
		     SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
		RULE(ctx, eperm, SCMP_SYS(clone), 1,
		     SCMP_A0(SCMP_CMP_MASKED_EQ, ns_flags[i], ns_flags[i]));
	}
	eperm = refusal(traced, SBX_SCG_PERSONALITY);
	for (unsigned int bit = 0; bit < 32; bit++) {
		unsigned long b = 1UL << bit, next = 1UL << ((bit + 1) % 32);

		RULE(ctx, eperm, SCMP_SYS(personality), 1,
		     SCMP_A0(SCMP_CMP_MASKED_EQ, b | next, b));
	}
	/*
	 * The console's classes but their getters, TIOCSETD and TIOCEXCL. A rule compares one argument
	 * once, so each class is said as the aligned blocks of requests that hold no getter, each
	 * the largest that fits where it starts; the request is 32 bits.
	 */
	eperm = refusal(traced, SBX_SCG_TTY);
	RULE(ctx, eperm, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCSETD));
	RULE(ctx, eperm, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCEXCL));
	for (int c = 0; c < 2; c++) {
		uint32_t v = c ? SBX_VT_FIRST : SBX_KD_FIRST, end = c ? SBX_VT_END : SBX_KD_END;

		while (v < end) {
			uint32_t size = 1;

			if (console_getter(v)) {
				v++;
				continue;
			}
			for (;;) {
				uint32_t next = size * 2;
				bool clear = v % next == 0 && v + next <= end;

				for (uint32_t w = v + size; clear && w < v + next; w++)
					clear = !console_getter(w);
				if (!clear)
					break;
				size = next;
			}
			RULE(ctx, eperm, SCMP_SYS(ioctl), 1,
			     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL & ~(unsigned long)(size - 1),
				     v));
			v += size;
		}
	}
out:
	return rc;
}

/* Builds the filter for one combination of the three switches. */
static int build_filter(bool network, bool metadata, bool traced, bool reference,
			scmp_filter_ctx *out, struct sbx_diag *d)
{
	scmp_filter_ctx ctx;
	uint32_t eperm;
	int rc;

	*out = NULL;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx)
		return sbx_diag_set(d, -ENOMEM, "seccomp_init failed");
	/* The caller sets no_new_privs itself, before Landlock; do not let the library hide it. */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (rc < 0) {
		sbx_diag_set(d, rc, "seccomp attribute: %s", strerror(-rc));
		goto out;
	}
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
	/*
	 * The system calls sorted into a binary tree instead of one long chain of comparisons:
	 * the same rules, a few comparisons a call instead of up to a hundred, for every call the
	 * command makes and for the kernel, which runs the filter once per system call number when
	 * it is loaded (its cache of always-allowed calls): 25 us less per start on the bench
	 * machine. An older libseccomp builds the chain.
	 */
	rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	if (rc < 0) {
		sbx_diag_set(d, rc, "seccomp attribute: %s", strerror(-rc));
		goto out;
	}
#endif

	rc = add_list(ctx, always_eperm, sizeof(always_eperm) / sizeof(*always_eperm),
		      refusal(traced, SBX_SCG_KERNEL), d);
	if (rc < 0)
		goto out;
	rc = add_list(ctx, always_enosys, sizeof(always_enosys) / sizeof(*always_enosys),
		      SCMP_ACT_ERRNO(ENOSYS), d);
	if (rc < 0)
		goto out;

	/* Faking terminal input runs commands in the caller's shell; the request is 32 bits. */
	eperm = refusal(traced, SBX_SCG_TTY);
	RULE(ctx, eperm, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCSTI));
	RULE(ctx, eperm, SCMP_SYS(ioctl), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffUL, TIOCLINUX));

	/*
	 * No priority of a process group (which PRIO_PGRP or IOPRIO_WHO_PGRP). The command shares
	 * the caller's process group, whose other members are outside the sandbox even under init
	 * (a PID namespace leaves process groups as they are): Landlock has no rule for lowering
	 * their CPU or I/O priority. A user (PRIO_USER) and a pid name only the processes of the
	 * sandbox's PID namespace (the kernel skips those without a pid in it); without one, the
	 * program's head refuses them too. The argument is 32 bits.
	 */
	eperm = refusal(traced, SBX_SCG_PROCESSES);
	RULE(ctx, eperm, SCMP_SYS(setpriority), 1,
	     SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, PRIO_PGRP));
	RULE(ctx, eperm, SCMP_SYS(ioprio_set), 1,
	     SCMP_A0(SCMP_CMP_MASKED_EQ, 0xffffffffUL, SBX_IOPRIO_WHO_PGRP));

	/*
	 * New namespaces (any namespace flag to unshare or clone) and execution domains other than
	 * the default and the query are refused by the program's head (sbx_seccomp_program), in
	 * a few instructions; said through libseccomp they took 130 of its 208 (a rule compares one
	 * argument once), which the kernel compiles on every start. The reference filter states
	 * them here as rules, and seccomp-gen checks that both decide alike.
	 */
	if (reference) {
		rc = reference_rules(ctx, traced, d);
		if (rc < 0)
			goto out;
	}

	if (metadata) {
		rc = add_list(ctx, metadata_eperm, sizeof(metadata_eperm) / sizeof(*metadata_eperm),
			      refusal(traced, SBX_SCG_METADATA), d);
		if (rc < 0)
			goto out;
	}

	if (!network) {
		/*
		 * Only AF_UNIX stream and seqpacket sockets and pairs: those cannot address anyone
		 * without connect, which is refused with bind, listen and accept. A datagram socket
		 * names its peer on every sendto(), a path socket outside the sandbox as well, and
		 * one end of a pair as much as a socket of its own, so it is refused too, as is
		 * every other family (inet, inet6, netlink, packet, vsock...). The types are an
		 * allow-list, since the kernel makes an AF_UNIX SOCK_RAW a datagram socket: of the
		 * type's four bits (SOCK_TYPE_MASK), 1 (stream) and 5 (seqpacket) alone have bit 0
		 * set and bits 1 and 3 clear, so one rule a bit refuses every other type.
		 */
		eperm = refusal(traced, SBX_SCG_NETWORK);
		RULE(ctx, eperm, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
		RULE(ctx, eperm, SCMP_SYS(socketpair), 1, SCMP_A0(SCMP_CMP_NE, AF_UNIX));
		/* The bits of SBX_SOCK_TYPE_KEPT (linux.h): bit 0 must be set, bits 1 and 3 clear. */
		enum { TYPE_BIT0 = SBX_SOCK_TYPE_SET, TYPE_BIT1 = 0x2, TYPE_BIT3 = 0x8 };
		_Static_assert((TYPE_BIT1 | TYPE_BIT3) == SBX_SOCK_TYPE_CLEAR,
			       "one rule a bit of SBX_SOCK_TYPE_KEPT (linux.h)");
		RULE(ctx, eperm, SCMP_SYS(socket), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_BIT0, 0));
		RULE(ctx, eperm, SCMP_SYS(socket), 1,
		     SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_BIT1, TYPE_BIT1));
		RULE(ctx, eperm, SCMP_SYS(socket), 1,
		     SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_BIT3, TYPE_BIT3));
		RULE(ctx, eperm, SCMP_SYS(socketpair), 1,
		     SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_BIT0, 0));
		RULE(ctx, eperm, SCMP_SYS(socketpair), 1,
		     SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_BIT1, TYPE_BIT1));
		RULE(ctx, eperm, SCMP_SYS(socketpair), 1,
		     SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_BIT3, TYPE_BIT3));
		rc = add_list(ctx, net_eperm, sizeof(net_eperm) / sizeof(*net_eperm), eperm, d);
		if (rc < 0)
			goto out;
	}

	*out = ctx;
	return 0;
out:
	seccomp_release(ctx);
	return rc < 0 ? rc : -EINVAL;
}

int sbx_seccomp_export(bool network, bool metadata, bool traced, bool reference, int fd,
		       struct sbx_diag *d)
{
	scmp_filter_ctx ctx;
	int rc = build_filter(network, metadata, traced, reference, &ctx, d);

	if (rc < 0)
		return rc;
	rc = seccomp_export_bpf(ctx, fd);
	if (rc < 0)
		sbx_diag_set(d, rc, "seccomp_export_bpf: %s", strerror(-rc));
	seccomp_release(ctx);
	return rc < 0 ? rc : 0;
}

int sbx_seccomp_main(bool network, bool metadata, bool traced, bool reference,
		     struct sock_filter *prog, size_t *len, struct sbx_diag *d)
{
	size_t room = SBX_SECCOMP_PROG_MAX * sizeof(*prog);
	int fd = memfd_create("seccomp", MFD_CLOEXEC), rc;
	ssize_t n;

	*len = 0;
	if (fd < 0)
		return sbx_diag_set(d, -errno, "seccomp: memfd_create: %s", strerror(errno));
	rc = sbx_seccomp_export(network, metadata, traced, reference, fd, d);
	if (rc == 0) {
		n = pread(fd, prog, room, 0);
		if (n < 0)
			rc = sbx_diag_set(d, -errno, "seccomp: reading the exported filter: %s",
					  strerror(errno));
		else if ((size_t)n == room || n % (ssize_t)sizeof(*prog))
			rc = sbx_diag_set(d, -EFBIG,
					  "seccomp: libseccomp's program does not fit "
					  "in %d instructions",
					  SBX_SECCOMP_PROG_MAX);
		else
			*len = (size_t)n / sizeof(*prog);
	}
	close(fd);
	return rc;
}

/* ---- the second filter: what libseccomp cannot say (the reference) ------------------------ */

/*
 * libseccomp cannot express "every request but these" (a rule with the filter's default action is
 * refused, and one argument is compared once per rule), nor a range of system-call numbers. A
 * second, small filter did, loaded after libseccomp's; the kernel ran both and the refusal won.
 * The program loaded now (sbx_seccomp_program) says all of it in its head. What of it the
 * reference still says in BPF is the range and the ioctl allow-list (sbx_seccomp_second); the
 * rules on processes (the last four items) seccomp-gen says apart, in C.
 *
 *  - A system-call number above the highest this build knows (a newer kernel's calls, which no
 *    rule above could name) is ENOSYS in every mode. The x32 numbers of x86_64 are above it too,
 *    but libseccomp's filter kills those (the x32 ABI shares the architecture token, and a
 *    filter built for x86_64 alone refuses its numbers so), and a kill wins over ENOSYS.
 *  - Without a mount namespace, ioctl is an allow-list: terminal and file-descriptor requests
 *    only. The file-attribute requests (FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR...) and every other,
 *    present or future, are EPERM: none of them may change a file outside the writable roots.
 *  - Where a denied path is enforced by Landlock alone, inotify_add_watch and fanotify_mark are
 *    EPERM: a watch on a denied directory would report the names inside it.
 *  - Without an IPC namespace, System V IPC and POSIX message queues are EPERM (ipc_calls).
 *    The sandbox has an IPC namespace exactly where it has a PID namespace (init makes both):
 *    without them, prlimit64 and the sched_set* calls (sched_setaffinity too) of another
 *    process than the caller (pid 0) are EPERM too (pid_calls), and so are setpriority and ioprio_set of a user or
 *    of a pid but 0 (the process group is refused in every mode, by the first filter). Landlock keeps signals and ptrace inside the sandbox,
 *    but has no rule for another process's resource limits or scheduling, which the user's
 *    other processes (same uid) let the command change: a limit on CPU time below what a
 *    process has used kills it with SIGKILL, a limit of open files or of a file's size breaks
 *    it, the idle policy starves it. Under init they have no pid in the sandbox.
 *  - A terminal's job under init without Landlock's signal scope (no_pgrp): kill of pid 0, the
 *    caller's process group, is EPERM. A PID namespace leaves process groups as they are, and
 *    the group's members outside it (the caller's shell script, an agent, pipeline partners)
 *    would get the signal. No other name of that group is valid inside: its id is a pid of
 *    the host's namespace, and F_SETOWN, setpgid and tcsetpgrp look it up in the caller's.
 *  - Under init without Landlock's signal scope (no_async), terminal or not: turning on
 *    signal-driven I/O (fcntl F_SETFL with O_ASYNC, the FIOASYNC ioctl) and choosing its signal
 *    (F_SETSIG) are EPERM. A terminal names the owner itself: its foreground process group,
 *    outside the sandbox (the caller's, or, for a terminal inherited without being the
 *    controlling one, whoever is in front there). The open file is the caller's too, so the
 *    flag outlives the run: every key typed afterwards would send SIGIO (which kills), or the
 *    signal F_SETSIG chose (SIGKILL), to that group. No identifier is needed, so the PID
 *    namespace does not help; Landlock's scope checks the sender when the signal goes.
 */
/* musl's <sys/ioctl.h> lists the classic terminal requests only; the termios2 ones are the
 * kernel's (asm-generic/ioctls.h, which glibc includes and musl does not). */
#ifndef TCGETS2
#define TCGETS2	 _IOR('T', 0x2A, struct termios2)
#define TCSETS2	 _IOW('T', 0x2B, struct termios2)
#define TCSETSW2 _IOW('T', 0x2C, struct termios2)
#define TCSETSF2 _IOW('T', 0x2D, struct termios2)
#endif

/* The ioctl requests allowed without a mount namespace: terminals, ptys, descriptor flags. */
static const uint32_t ioctl_allowed[] = {
	FIONREAD,  FIONBIO,	FIOCLEX,    FIONCLEX,  FIOASYNC,  TCGETS,     TCSETS,	  TCSETSW,
	TCSETSF,   TCGETA,	TCSETA,	    TCSETAW,   TCSETAF,	  TCSBRK,     TCSBRKP,	  TCXONC,
	TCFLSH,	   TIOCEXCL,	TIOCNXCL,   TIOCSCTTY, TIOCNOTTY, TIOCGPGRP,  TIOCSPGRP,  TIOCGSID,
	TIOCOUTQ,  TIOCGWINSZ,	TIOCSWINSZ, TIOCMGET,  TIOCMBIS,  TIOCMBIC,   TIOCMSET,	  TIOCPKT,
	TIOCSBRK,  TIOCCBRK,	TIOCGETD,   TIOCSETD,  TIOCGPTN,  TIOCSPTLCK, TIOCGPTLCK, TIOCGPKT,
	TIOCGEXCL, TIOCGPTPEER, TIOCGDEV,   TCGETS2,   TCSETS2,	  TCSETSW2,   TCSETSF2,
};

#define ARG0_LOW                                                                                   \
	(offsetof(struct seccomp_data, args[0]) + (__BYTE_ORDER == __LITTLE_ENDIAN ? 0 : 4))

#define ARG1_LOW                                                                                   \
	(offsetof(struct seccomp_data, args[1]) + (__BYTE_ORDER == __LITTLE_ENDIAN ? 0 : 4))

#define ARG2_LOW                                                                                   \
	(offsetof(struct seccomp_data, args[2]) + (__BYTE_ORDER == __LITTLE_ENDIAN ? 0 : 4))

/* refusal() for a hand-written program. */
static uint32_t ret_refusal(bool traced, enum sbx_seccomp_group g)
{
	return traced ? SECCOMP_RET_TRACE | SBX_TRACE_REFUSED(g, EPERM) : SECCOMP_RET_ERRNO | EPERM;
}

/*
 * Without an IPC namespace, the objects of System V IPC and POSIX message queues are the host's:
 * every call that names one (an identifier can be guessed: no get call is needed to attach a
 * segment) is EPERM. ipc(2), the multiplexer of older architectures, is not on the native ABIs
 * built for here.
 */
static const int ipc_calls[] = {
	__NR_shmget,	      __NR_shmat,     __NR_shmdt,	  __NR_shmctl,	  __NR_msgget,
	__NR_msgsnd,	      __NR_msgrcv,    __NR_msgctl,	  __NR_semget,	  __NR_semop,
	__NR_semtimedop,      __NR_semctl,    __NR_mq_open,	  __NR_mq_unlink, __NR_mq_timedsend,
	__NR_mq_timedreceive, __NR_mq_notify, __NR_mq_getsetattr,
};

/*
 * Without a PID namespace, the calls that change another process named by its pid (argument 0,
 * a pid_t: 32 bits) and that Landlock has no rule for: its resource limits (a CPU-time limit
 * kills), its scheduling policy and priority (SCHED_IDLE; a nice value through
 * sched_setattr), as setpriority() is refused in every sandbox, and the CPUs it may run on (one
 * pins it there). All pass the kernel's task_setscheduler or task_prlimit hook, which Landlock
 * does not implement; the calls that act on another process through the ptrace check
 * (process_vm_*, kcmp, pidfd_getfd, move_pages...) Landlock refuses. Each is allowed for the
 * caller (0) only: a thread naming itself by its thread id is refused too.
 */
static const int pid_calls[] = {
	__NR_prlimit64,	    __NR_sched_setscheduler, __NR_sched_setparam,
	__NR_sched_setattr, __NR_sched_setaffinity,
};

/* Refused by number where a denied path is enforced by Landlock alone (no_watch). */
static const int watch_calls[] = {__NR_inotify_add_watch, __NR_fanotify_mark};

/*
 * The calls the sandbox's filter decides by an argument, in some mode, besides pid_calls: a
 * request, flags, an execution domain, a family, a "which" and a pid.
 */
static const int arg_calls[] = {
	__NR_personality, __NR_clone,	    __NR_unshare,    __NR_socket, __NR_socketpair,
	__NR_ioctl,	  __NR_setpriority, __NR_ioprio_set, __NR_kill,	  __NR_fcntl,
};

static bool in_table(const int *t, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (t[i] == nr)
			return true;
	return false;
}

bool sbx_seccomp_in_table(enum sbx_seccomp_table t, int nr)
{
	switch (t) {
	case SBX_SC_WATCH:
		return in_table(watch_calls, sizeof(watch_calls) / sizeof(*watch_calls), nr);
	case SBX_SC_PID:
		return in_table(pid_calls, sizeof(pid_calls) / sizeof(*pid_calls), nr);
	case SBX_SC_IPC:
		return in_table(ipc_calls, sizeof(ipc_calls) / sizeof(*ipc_calls), nr);
	}
	return false;
}

bool sbx_seccomp_reads_args(int nr)
{
	return in_table(arg_calls, sizeof(arg_calls) / sizeof(*arg_calls), nr) ||
	       sbx_seccomp_in_table(SBX_SC_PID, nr);
}

/*
 * A hand-written program as it is written, and its jumps that go on past the head's rules
 * ("pass": to libseccomp's program behind it), each set by pass_to once its target is known.
 */
#define PASS_MAX 96
struct bpf_out {
	struct sock_filter *prog;
	unsigned short n;
	unsigned short pass_t[PASS_MAX], pass_f[PASS_MAX];
	size_t n_pass_t, n_pass_f;
};

#define EMIT(x)		 (o->prog[o->n++] = (struct sock_filter)x)
#define PASS_IF_TRUE(x)	 (o->pass_t[o->n_pass_t++] = o->n, o->prog[o->n++] = (struct sock_filter)x)
#define PASS_IF_FALSE(x) (o->pass_f[o->n_pass_f++] = o->n, o->prog[o->n++] = (struct sock_filter)x)

/* Sets every pass jump written so far to go to the instruction at target. */
static void pass_to(struct bpf_out *o, unsigned short target)
{
	for (size_t i = 0; i < o->n_pass_t; i++)
		o->prog[o->pass_t[i]].jt = (unsigned char)(target - o->pass_t[i] - 1);
	for (size_t i = 0; i < o->n_pass_f; i++)
		o->prog[o->pass_f[i]].jf = (unsigned char)(target - o->pass_f[i] - 1);
	o->n_pass_t = o->n_pass_f = 0;
}

/*
 * The switches' rules on processes, with the system-call number loaded: watches (no_watch);
 * another process's limits and scheduling, and IPC (no_ipc); kill of the process group
 * (no_pgrp); signal-driven I/O but its ioctl (no_async). A call they do not refuse passes.
 */
static void process_rules(struct bpf_out *o, bool no_watch, bool no_ipc, bool no_pgrp,
			  bool no_async, bool traced)
{
	const size_t n_ipc = sizeof(ipc_calls) / sizeof(*ipc_calls);
	const size_t n_pid = sizeof(pid_calls) / sizeof(*pid_calls);

	if (no_watch) {
		_Static_assert(sizeof(watch_calls) / sizeof(*watch_calls) == 2, "two compares");
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)watch_calls[0], 1, 0));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)watch_calls[1], 0, 1));
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_WATCH)));
	}
	if (no_ipc) {
		/* pid_calls: the caller's own (pid 0) only; a match jumps to the load. */
		for (size_t i = 0; i < n_pid; i++)
			EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)pid_calls[i],
				      (unsigned char)(n_pid - 1 - i), i == n_pid - 1 ? 3 : 0));
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
		PASS_IF_TRUE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_PROCESSES)));
		/* setpriority and ioprio_set: of the caller (PRIO_PROCESS, IOPRIO_WHO_PROCESS, 0). */
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_setpriority, 0, 2));
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PRIO_PROCESS, 3, 5));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioprio_set, 0, 5));
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SBX_IOPRIO_WHO_PROCESS, 0, 2));
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LOW));
		PASS_IF_TRUE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_PROCESSES)));
		/* Each match jumps to the EPERM after the last compare; the last one's miss, over it. */
		for (size_t i = 0; i < n_ipc; i++)
			EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ipc_calls[i],
				      (unsigned char)(n_ipc - 1 - i), i == n_ipc - 1 ? 1 : 0));
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_IPC)));
	}
	if (no_pgrp) {
		/* kill of pid 0: the caller's process group (a terminal's job under init). */
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_kill, 0, 3));
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
		PASS_IF_FALSE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_PROCESSES)));
	}
	if (no_async) {
		/* fcntl F_SETSIG, and F_SETFL with O_ASYNC (the kernel reads both as ints). */
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fcntl, 0, 6));
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LOW));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETSIG, 3, 0));
		PASS_IF_FALSE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, F_SETFL, 0, 0));
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG2_LOW));
		PASS_IF_FALSE(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_ASYNC, 0, 0));
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_PROCESSES)));
	}
}

unsigned short sbx_seccomp_second(bool metadata, bool no_async, bool traced, unsigned known_max,
				  struct sock_filter *prog)
{
	const size_t n_ioctl = sizeof(ioctl_allowed) / sizeof(*ioctl_allowed);
	struct bpf_out out = {.prog = prog}, *o = &out;
	unsigned short ioctl_at;

	/* Another architecture: the first filter already refuses it. */
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SBX_AUDIT_ARCH, 1, 0));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, known_max, 0, 1));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS)); /* x32's are above it too */
	/* Jumps forward to the ioctl check, which follows ALLOW. */
	ioctl_at = o->n;
	if (metadata)
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 0)); /* jt set below */
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	if (metadata) {
		prog[ioctl_at].jt = (unsigned char)(o->n - ioctl_at - 1);
		EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LOW));
		/*
		 * The console's classes go on to the first filter, whose reference rules decide
		 * them in every mode (refused but the getters); then the list (the index of the
		 * ALLOW at its end is that of the first compare, plus the list and its refusal).
		 */
		EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_VT_END, 3, 0));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_VT_FIRST, (unsigned char)(n_ioctl + 3),
			      0));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_KD_END, 1, 0));
		EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_KD_FIRST, (unsigned char)(n_ioctl + 1),
			      0));
		/* A match jumps over the refusal after the list; FIOASYNC under no_async, to it. */
		for (size_t i = 0; i < n_ioctl; i++)
			EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ioctl_allowed[i],
				      (unsigned char)(n_ioctl - i -
						      (no_async && ioctl_allowed[i] == FIOASYNC)),
				      0));
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_IOCTL)));
		EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	}
	return o->n;
}

/* ---- the program loaded: a head, then libseccomp's filter ------------------------------- */

/* Every namespace flag: one jset refuses them all (the reference states one rule per flag). */
static uint32_t ns_mask(void)
{
	uint32_t m = 0;

	for (size_t i = 0; i < NS_FLAGS_N; i++)
		m |= (uint32_t)ns_flags[i];
	return m;
}

/*
 * One program instead of the two filters above (libseccomp's and the second): the kernel runs
 * each filter on every call, and when it loads one it compiles it and runs it once per system-call
 * number (its cache of calls always allowed). The kernel's rule for two filters is that the
 * refusal of higher precedence wins, the later filter's on a tie; this program decides every call
 * as that pair did (checked at build time by seccomp-gen, against the reference filter,
 * sbx_seccomp_second and its own statement of the rules on processes, for every system-call
 * number and all the switches). A head, then
 * libseccomp's program unchanged:
 *
 *  - Another architecture goes to libseccomp's program, which kills it.
 *  - A number above the highest known is ENOSYS, as the second filter had it, but for the x32
 *    numbers of x86_64, which libseccomp's program kills (a kill wins over an errno): they go on
 *    to it.
 *  - The calls the second filter refused (ioctl outside the allow-list, watches, IPC) are refused
 *    here: the same action as libseccomp's refusal where it had one, and then the later filter's
 *    won. Likewise the namespace flags and execution domains, which libseccomp says in 130
 *    instructions (one argument compared once per rule) and this in ten.
 *  - Whatever the head lets pass, libseccomp's program decides.
 *
 * main is libseccomp's program for the same switches, without the reference rules. Returns the
 * length, or 0 when the whole would not fit in SBX_SECCOMP_PROG_MAX.
 */
unsigned short sbx_seccomp_program(const struct sock_filter *main, size_t main_len, bool metadata,
				   bool no_watch, bool no_ipc, bool no_pgrp, bool no_async,
				   bool traced, unsigned known_max, struct sock_filter *prog)
{
	const size_t n_ioctl = sizeof(ioctl_allowed) / sizeof(*ioctl_allowed);
	struct bpf_out out = {.prog = prog}, *o = &out;
	/* The console check's jumps past it, set once its end is known. */
	unsigned short after[2], after_f, vt_at;
	size_t n_after = 0;
	unsigned short head;

	/*
	 * The head's longest (every switch on), within its room and the reach of a jump (255): the
	 * numbers 7 (x86_64's), personality 5, namespaces 5, watches 3, one a call of pid_calls and
	 * 3, priorities 9, IPC one a call and its refusal, kill 4, signal-driven I/O 7, ioctl its
	 * compare and the load, TIOCSETD and TIOCEXCL 3, the console's ranges 4, one a getter and
	 * a refusal a class, then the allow-list's requests but FIOASYNC and the refusal (without
	 * it, FIOASYNC's 2 instead, fewer). seccomp-gen checks the length it builds against the
	 * room too.
	 */
	_Static_assert(7 + 5 + 5 + 3 + sizeof(pid_calls) / sizeof(*pid_calls) + 3 + 9 +
				       sizeof(ipc_calls) / sizeof(*ipc_calls) + 1 + 4 + 7 + 2 + 3 +
				       4 + N_KD_GETTERS + 1 + N_VT_GETTERS + 1 +
				       sizeof(ioctl_allowed) / sizeof(*ioctl_allowed) - 1 + 1 <=
			       SBX_SECCOMP_HEAD_MAX,
		       "the head of the seccomp program outgrows its room");
	_Static_assert(SBX_SECCOMP_HEAD_MAX <= 255, "a jump of the head would not reach its end");
	_Static_assert(sizeof(ioctl_allowed) / sizeof(*ioctl_allowed) + N_KD_GETTERS +
				       N_VT_GETTERS + 5 <=
			       PASS_MAX,
		       "the head's jumps on to libseccomp's program outnumber their room");
	if (main_len > SBX_SECCOMP_PROG_MAX - SBX_SECCOMP_HEAD_MAX)
		return 0;
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
	PASS_IF_FALSE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SBX_AUDIT_ARCH, 0, 0));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#if defined(__x86_64__)
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, known_max, 0, 3));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 1, 0)); /* -1: no call at all */
	PASS_IF_TRUE(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u /* x32 */, 0, 0));
#else
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, known_max, 0, 1));
#endif
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS));

	/* personality: 0 (the default) and 0xffffffff (the query) only; a 32-bit argument. */
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_personality, 0, 4));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
	PASS_IF_TRUE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 0));
	PASS_IF_TRUE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffu, 0, 0));
	EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_PERSONALITY)));

	/* unshare and clone: no namespace flag (all of them in the low 32 bits). */
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_unshare, 0, 3));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
	PASS_IF_FALSE(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, ns_mask(), 0, 0));
	EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_NAMESPACE)));

	process_rules(o, no_watch, no_ipc, no_pgrp, no_async, traced);

	/* Last, ioctl: the accumulator is the request from here on. */
	PASS_IF_FALSE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 0));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG1_LOW));
	/* FIOASYNC under no_async: with metadata, the allow-list below leaves it out instead. */
	if (no_async && !metadata) {
		EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FIOASYNC, 0, 1));
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_PROCESSES)));
	}
	/*
	 * TIOCSETD, TIOCEXCL and the console's two classes but their getters, in every mode; a
	 * request outside them goes on (to the allow-list with metadata, else to libseccomp's
	 * program).
	 */
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCSETD, 1, 0));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TIOCEXCL, 0, 1));
	EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_TTY)));
	after[n_after++] = o->n;
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_VT_END, 0, 0));   /* jt: after */
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_VT_FIRST, 0, 0)); /* jt: the VT getters */
	vt_at = (unsigned short)(o->n - 1);
	after[n_after++] = o->n;
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_KD_END, 0, 0)); /* jt: after */
	after_f = o->n;
	EMIT(BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, SBX_KD_FIRST, 0, 0)); /* jf: after */
	for (size_t i = 0; i < N_KD_GETTERS; i++)
		PASS_IF_TRUE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, kd_getters[i], 0, 0));
	EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_TTY)));
	prog[vt_at].jt = (unsigned char)(o->n - vt_at - 1);
	for (size_t i = 0; i < N_VT_GETTERS; i++)
		PASS_IF_TRUE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, vt_getters[i], 0, 0));
	EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_TTY)));
	for (size_t i = 0; i < n_after; i++)
		prog[after[i]].jt = (unsigned char)(o->n - after[i] - 1);
	prog[after_f].jf = (unsigned char)(o->n - after_f - 1);
	if (metadata) {
		for (size_t i = 0; i < n_ioctl; i++) {
			/* Under no_async FIOASYNC goes on to the refusal after the list. */
			if (no_async && ioctl_allowed[i] == FIOASYNC)
				continue;
			PASS_IF_TRUE(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ioctl_allowed[i], 0, 0));
		}
		EMIT(BPF_STMT(BPF_RET | BPF_K, ret_refusal(traced, SBX_SCG_IOCTL)));
	}
	head = o->n;
	pass_to(o, head);
	memcpy(prog + head, main, main_len * sizeof(*main));
	return (unsigned short)(head + main_len);
}
#undef EMIT
#undef PASS_IF_TRUE
#undef PASS_IF_FALSE

/* ---- the third filter: what the denial report watches ------------------------------------- */

/*
 * The calls a rule path can make fail: the path is refused by Landlock, a read-only mount or a
 * mask. metadata: refused by the first filter itself where it refuses metadata calls (no mount
 * namespace): then the refusal is traced there, and must not be watched here too.
 */
static const struct {
	int nr;
	bool metadata;
} watched[] = {
#ifdef __NR_open
	{__NR_open, false},
	{__NR_creat, false},
	{__NR_mkdir, false},
	{__NR_mknod, false},
	{__NR_unlink, false},
	{__NR_rmdir, false},
	{__NR_rename, false},
	{__NR_link, false},
	{__NR_symlink, false},
	{__NR_chmod, true},
	{__NR_chown, true},
	{__NR_lchown, true},
	{__NR_utime, true},
	{__NR_utimes, true},
	{__NR_futimesat, true},
#endif
#ifdef __NR_renameat
	{__NR_renameat, false},
#endif
	{__NR_openat, false},
	{437 /* openat2 */, false},
	{__NR_mkdirat, false},
	{__NR_mknodat, false},
	{__NR_unlinkat, false},
	{__NR_renameat2, false},
	{__NR_linkat, false},
	{__NR_symlinkat, false},
	{__NR_truncate, false},
	{__NR_execve, false},
	{__NR_execveat, false},
	{__NR_fchmod, true},
	{__NR_fchmodat, true},
	{452 /* fchmodat2 */, true},
	{__NR_fchown, true},
	{__NR_fchownat, true},
	{__NR_utimensat, true},
	{__NR_setxattr, true},
	{__NR_lsetxattr, true},
	{__NR_fsetxattr, true},
	{463 /* setxattrat */, true},
	{__NR_removexattr, true},
	{__NR_lremovexattr, true},
	{__NR_fremovexattr, true},
	{466 /* removexattrat */, true},
};
#define N_WATCHED (sizeof(watched) / sizeof(*watched))

static bool in_list(const struct sc_name *l, size_t n, int nr)
{
	for (size_t i = 0; i < n; i++)
		if (sc_resolve(&l[i]) == nr)
			return true;
	return false;
}

int sbx_seccomp_watch_check(struct sbx_diag *d)
{
	for (int m = 0; m < 4; m++) {
		bool network = m & 2, metadata = m & 1;

		for (size_t i = 0; i < N_WATCHED; i++) {
			int nr = watched[i].nr;
			bool clash = false;

			if (metadata && watched[i].metadata)
				continue;
			clash = in_list(always_eperm, sizeof(always_eperm) / sizeof(*always_eperm),
					nr) ||
				in_list(always_enosys,
					sizeof(always_enosys) / sizeof(*always_enosys), nr) ||
				(metadata &&
				 in_list(metadata_eperm,
					 sizeof(metadata_eperm) / sizeof(*metadata_eperm), nr)) ||
				(!network &&
				 in_list(net_eperm, sizeof(net_eperm) / sizeof(*net_eperm), nr));
			clash = clash || sbx_seccomp_reads_args(nr);
			clash = clash || sbx_seccomp_in_table(SBX_SC_IPC, nr) ||
				sbx_seccomp_in_table(SBX_SC_WATCH, nr);
			if (clash)
				return sbx_diag_set(d, -EINVAL,
						    "system call %d is both watched by the denial "
						    "report and refused by the filter",
						    nr);
		}
	}
	return 0;
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The length of emit_search()'s program for k numbers. */
static unsigned short search_len(size_t k)
{
	return k <= 4 ? (unsigned short)(2 * k + 1)
		      : (unsigned short)(1 + search_len(k / 2) + search_len(k - k / 2));
}

/*
 * A binary search of the sorted v[0..k) for the loaded system-call number: `hit` on a match,
 * SECCOMP_RET_ALLOW otherwise. Every jump is forward, as BPF wants.
 */
static unsigned short emit_search(struct sock_filter *prog, unsigned short n, const int *v,
				  size_t k, uint32_t hit)
{
	size_t h = k / 2;

	if (k <= 4) {
		for (size_t i = 0; i < k; i++) {
			prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K,
								 (uint32_t)v[i], 0, 1);
			prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, hit);
		}
		prog[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
		return n;
	}
	prog[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, (uint32_t)v[h],
						 (unsigned char)search_len(h), 0);
	n = emit_search(prog, n, v, h, hit);
	return emit_search(prog, n, v + h, k - h, hit);
}

unsigned short sbx_seccomp_watch(bool network, bool metadata, struct sock_filter *prog)
{
	int nrs[N_WATCHED] = {0}; /* the first k are the calls watched */
	size_t k = 0;
	unsigned short n = 0;

	(void)network; /* no call of the network is watched: seccomp alone refuses them */
	for (size_t i = 0; i < N_WATCHED; i++)
		if (!(metadata && watched[i].metadata))
			nrs[k++] = watched[i].nr;
	qsort(nrs, k, sizeof(*nrs), int_cmp);
#define EMIT(x) (prog[n++] = (struct sock_filter)x)
	/* Another architecture: the first filter refuses it already. */
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SBX_AUDIT_ARCH, 1, 0));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
	/* A child made with CLONE_UNTRACED would not be followed: refused. */
	EMIT(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 4));
	EMIT(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW));
	EMIT(BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_UNTRACED, 0, 1));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM));
	EMIT(BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
#undef EMIT
	return emit_search(prog, n, nrs, k, SECCOMP_RET_TRACE);
}

/* Loads a finished program: no flags, prctl where the seccomp call itself is missing. */
static int load_prog(struct sock_fprog *prog, const char *what, struct sbx_diag *d)
{
	int err;

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) == 0)
		return 0;
	err = errno;
	if (err == ENOSYS && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, prog, 0, 0) == 0)
		return 0;
	if (err == ENOSYS)
		err = errno;
	return sbx_diag_set(d, -err, "%s: %s", what, strerror(err));
}

int sbx_seccomp_watch_apply(bool network, bool metadata, struct sbx_diag *d)
{
	struct sock_filter insns[SBX_SECCOMP_WATCH_MAX];
	struct sock_fprog prog = {.filter = insns};

	prog.len = sbx_seccomp_watch(network, metadata, insns);
	return load_prog(&prog, "loading the denial report's seccomp filter", d);
}

/* Loads libseccomp's program for these switches behind its head, as one filter. */
static int load_main(const struct sock_filter *main, size_t main_len, bool metadata, bool no_watch,
		     bool no_ipc, bool no_pgrp, bool no_async, bool traced, struct sbx_diag *d)
{
	struct sock_filter insns[SBX_SECCOMP_PROG_MAX];
	struct sock_fprog prog = {.filter = insns};

	prog.len = sbx_seccomp_program(main, main_len, metadata, no_watch, no_ipc, no_pgrp,
				       no_async, traced, SBX_SYSCALL_KNOWN_MAX, insns);
	if (!prog.len)
		return sbx_diag_set(d, -EFBIG,
				    "seccomp: libseccomp's program (%zu instructions) "
				    "does not fit in %d",
				    main_len, SBX_SECCOMP_PROG_MAX);
	return load_prog(&prog, "seccomp_load", d);
}

#ifdef SBX_SECCOMP_PREBUILT
/*
 * The eight filters, compiled at build time by libseccomp itself (build/seccomp-gen), for the
 * architecture this binary is built for: building one costs over a million instructions on
 * every start, loading a finished program costs one system call.
 */
#include "seccomp_filters.h"

int sbx_seccomp_apply(bool network, bool metadata, bool no_watch, bool no_ipc, bool no_pgrp,
		      bool no_async, bool traced, struct sbx_diag *d)
{
	const struct sbx_bpf_blob *b =
		&sbx_seccomp_filters[(traced ? 4 : 0) + (network ? 2 : 0) + (metadata ? 1 : 0)];

	return load_main((const struct sock_filter *)b->insns, b->size / sizeof(struct sock_filter),
			 metadata, no_watch, no_ipc, no_pgrp, no_async, traced, d);
}
#else
int sbx_seccomp_apply(bool network, bool metadata, bool no_watch, bool no_ipc, bool no_pgrp,
		      bool no_async, bool traced, struct sbx_diag *d)
{
	struct sock_filter insns[SBX_SECCOMP_PROG_MAX];
	size_t len;
	int rc = sbx_seccomp_main(network, metadata, traced, false, insns, &len, d);

	return rc < 0 ? rc
		      : load_main(insns, len, metadata, no_watch, no_ipc, no_pgrp, no_async, traced,
				  d);
}
#endif
