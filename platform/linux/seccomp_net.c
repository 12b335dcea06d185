/* SPDX-License-Identifier: MIT */
/*
 * seccomp_net.c - the network's own seccomp filter, for what the main filter (seccomp.c) does not
 * decide: the sandbox in a network namespace of its own (managed networking, local binding), and
 * connect(2) handed to the supervisor (the Unix socket broker).
 *
 * The main filter is then built as for an enabled network, and this one says everything about
 * sockets: the kernel runs every filter and the strictest answer wins, with ERRNO above
 * USER_NOTIF, so a connect the broker must see cannot also be refused by the other filter.
 *
 *   routed      socket only AF_INET and AF_INET6 (and AF_UNIX with unix), as Codex's
 *               ProxyRouted: inside a namespace whose only interface is lo, these reach the
 *               bridge's listeners and nothing else; socketpair only AF_UNIX.
 *   restricted  socket only AF_UNIX (the sandbox shares the host's network; used with the
 *               broker: connect is then the only way a Unix socket reaches anyone).
 *   (neither)   every family (an enabled network, with the broker).
 *   no_dgram    AF_UNIX sockets and socket pairs of stream and seqpacket types only: a datagram
 *               socket (SOCK_DGRAM, and SOCK_RAW, which the kernel makes one) names its peer on
 *               every send, where no broker can see it (sendmsg's address is in memory).
 *   serve       bind, listen, accept and accept4 allowed; refused otherwise (routed, restricted).
 *   broker      connect is SECCOMP_RET_USER_NOTIF: the supervisor decides and connects.
 *
 * Refusals are EPERM, as in the main filter and in Codex's.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"

#if defined(__x86_64__)
#define NET_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define NET_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#define ARG_LOW(i)                                                                                 \
	(offsetof(struct seccomp_data, args[i]) + (__BYTE_ORDER == __LITTLE_ENDIAN ? 0 : 4))

/* A few labels, resolved when the program is finished; each lies after every jump to it. */
enum label { L_NONE = 0, L_ALLOW, L_EPERM, L_NOTIF, L_SOCKET, L_SOCKETPAIR, L_SERVE, L_N };

struct asm_ {
	struct sock_filter *prog;
	unsigned char jt[SBX_SECCOMP_NET_MAX], jf[SBX_SECCOMP_NET_MAX]; /* enum label, or 0 */
	unsigned short at[L_N];
	unsigned short n;
};

static void op(struct asm_ *a, struct sock_filter f, enum label jt, enum label jf)
{
	a->jt[a->n] = (unsigned char)jt;
	a->jf[a->n] = (unsigned char)jf;
	a->prog[a->n++] = f;
}

static void ret(struct asm_ *a, uint32_t v)
{
	op(a, (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, v), L_NONE, L_NONE);
}

static void here(struct asm_ *a, enum label l)
{
	a->at[l] = a->n;
}

/* Jump to l when the accumulator equals k (else fall through). */
static void jeq(struct asm_ *a, uint32_t k, enum label l)
{
	op(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0, 0), l, L_NONE);
}

static void load(struct asm_ *a, uint32_t off)
{
	op(a, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, off), L_NONE, L_NONE);
}

/*
 * Refuses every AF_UNIX type but stream and seqpacket (the accumulator holds arg 1, the type
 * with its flags): an allow-list, since the kernel makes SOCK_RAW a datagram socket too. The
 * type is its low four bits (SOCK_TYPE_MASK); of those, 1 (stream) and 5 (seqpacket) alone have
 * bit 0 set and bits 1 and 3 clear.
 */
static void only_stream_types(struct asm_ *a)
{
	/* The bits and the value are SBX_SOCK_TYPE_KEPT's (linux.h), which pins them. */
	op(a,
	   (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
					SBX_SOCK_TYPE_SET | SBX_SOCK_TYPE_CLEAR),
	   L_NONE, L_NONE);
	op(a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SBX_SOCK_TYPE_SET, 0, 0),
	   L_NONE, L_EPERM);
}

unsigned short sbx_seccomp_net_prog(const struct sbx_seccomp_net *m, struct sock_filter *prog)
{
	struct asm_ a = {.prog = prog};
	/* As the main filter's refusals: a stop naming the network's rule when traced. */
	const uint32_t eperm =
		m->traced ? SECCOMP_RET_TRACE | SBX_TRACE_REFUSED(SBX_SCG_NETWORK, EPERM)
			  : SECCOMP_RET_ERRNO | EPERM;

	/* Another architecture: the main filter kills it already. */
	load(&a, offsetof(struct seccomp_data, arch));
	op(&a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NET_AUDIT_ARCH, 1, 0),
	   L_NONE, L_NONE);
	ret(&a, SECCOMP_RET_ALLOW);

	load(&a, offsetof(struct seccomp_data, nr));
	jeq(&a, __NR_socket, L_SOCKET);
	jeq(&a, __NR_socketpair, L_SOCKETPAIR);
	if (m->broker)
		jeq(&a, __NR_connect, L_NOTIF);
	if (!m->serve && (m->routed || m->restricted)) {
		jeq(&a, __NR_bind, L_EPERM);
		jeq(&a, __NR_listen, L_EPERM);
		jeq(&a, __NR_accept, L_EPERM);
		jeq(&a, __NR_accept4, L_EPERM);
	}
	ret(&a, SECCOMP_RET_ALLOW);

	/* socket(domain, type, protocol) */
	here(&a, L_SOCKET);
	load(&a, ARG_LOW(0));
	if (m->routed) {
		jeq(&a, AF_INET, L_ALLOW);
		jeq(&a, AF_INET6, L_ALLOW);
		if (m->unix_sockets)
			jeq(&a, AF_UNIX, L_SOCKETPAIR); /* the same check of the type follows */
		ret(&a, eperm);
	} else if (m->restricted) {
		jeq(&a, AF_UNIX, L_SOCKETPAIR);
		ret(&a, eperm);
	} else {
		jeq(&a, AF_UNIX, L_SOCKETPAIR);
		ret(&a, SECCOMP_RET_ALLOW);
	}

	/* socketpair(domain, type, ...), and an AF_UNIX socket's type */
	here(&a, L_SOCKETPAIR);
	load(&a, ARG_LOW(0));
	op(&a, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 0), L_NONE,
	   L_EPERM);
	if (m->no_dgram) {
		load(&a, ARG_LOW(1));
		only_stream_types(&a);
	}
	ret(&a, SECCOMP_RET_ALLOW);

	/* The answers, last: every jump in BPF goes forward. */
	here(&a, L_ALLOW);
	ret(&a, SECCOMP_RET_ALLOW);
	here(&a, L_EPERM);
	ret(&a, eperm);
	/* The kernel refuses a filter that can notify unless it is loaded with a listener. */
	if (m->broker) {
		here(&a, L_NOTIF);
		ret(&a, SECCOMP_RET_USER_NOTIF);
	}

	for (unsigned short i = 0; i < a.n; i++) {
		if (a.jt[i])
			prog[i].jt = (unsigned char)(a.at[a.jt[i]] - i - 1);
		if (a.jf[i])
			prog[i].jf = (unsigned char)(a.at[a.jf[i]] - i - 1);
	}
	return a.n;
}

int sbx_seccomp_net_apply(const struct sbx_seccomp_net *m, int *notify_fd, struct sbx_diag *d)
{
	struct sock_filter insns[SBX_SECCOMP_NET_MAX];
	struct sock_fprog prog = {.filter = insns};
	unsigned long flags = 0;
	long rc;
	int err;

	if (notify_fd)
		*notify_fd = -1;
	prog.len = sbx_seccomp_net_prog(m, insns);
	if (m->broker) {
		/*
		 * Once the supervisor has read a request, only a fatal signal ends the wait
		 * (Linux 5.19): a signal that would restart connect would otherwise have it asked
		 * and performed twice. Older kernels lack the flag: the request is then asked again.
		 */
		flags = SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV;
		rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
		if (rc < 0 && errno == EINVAL) {
			flags = SECCOMP_FILTER_FLAG_NEW_LISTENER;
			rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
		}
		if (rc >= 0 && notify_fd)
			*notify_fd = (int)rc;
	} else {
		rc = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0UL, &prog);
	}
	if (rc < 0) {
		err = errno;
		return sbx_diag_set(d, -err, "loading the network's seccomp filter: %s",
				    strerror(err));
	}
	return 0;
}
