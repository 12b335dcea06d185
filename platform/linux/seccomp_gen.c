/* SPDX-License-Identifier: MIT */
/*
 * seccomp_gen.c - run at build time: compiles the eight seccomp filters (network restricted or
 * not, metadata refused or not, refusals traced for the denial report or not) with libseccomp
 * for this architecture and prints them as a C header, so the helper loads a finished program
 * instead of building one on every start.
 *
 * Before it prints anything it checks that the program the helper loads (sbx_seccomp_program:
 * a head, then libseccomp's filter) decides every system call exactly as the two filters it
 * replaced decided together, in all 128 combinations of the switches: libseccomp's with the
 * reference rules, then the second, which is sbx_seccomp_second (the numbers above the highest
 * known, the ioctl allow-list) and, said here in C apart from the head's BPF, the rules on
 * processes (process_rules_said). The BPF is run by a small interpreter for every system-call
 * number up to 1023 and the ends of the range, four architecture tokens, and, for the calls
 * whose decision reads an argument, a set of argument values around every constant the rules
 * compare with. A call whose decision reads an argument and is not one sbx_seccomp_reads_args
 * names fails the check (its arguments would not have been tried).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/kd.h>
#include <linux/seccomp.h>
#include <linux/vt.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "linux/linux.h"

/* ---- a BPF interpreter, for the programs seccomp takes -------------------------------------- */

struct run {
	uint32_t ret;
	bool read_args; /* the decision read an argument or the instruction pointer */
	bool bad;	/* an instruction seccomp would refuse, or a fall off the end */
};

static struct run bpf_run(const struct sock_filter *p, size_t len, const struct seccomp_data *sd)
{
	struct run r = {0};
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = {0};
	size_t pc = 0;

	for (size_t steps = 0; pc < len && steps <= len; steps++) {
		const struct sock_filter *f = &p[pc++];
		uint32_t k = f->k, off;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			if (k % 4 || k + 4 > sizeof(*sd)) {
				r.bad = true;
				return r;
			}
			if (k >= offsetof(struct seccomp_data, instruction_pointer))
				r.read_args = true;
			memcpy(&a, (const char *)sd + k, 4);
			break;
		case BPF_LD | BPF_IMM:
			a = k;
			break;
		case BPF_LDX | BPF_IMM:
			x = k;
			break;
		case BPF_LD | BPF_MEM:
		case BPF_LDX | BPF_MEM:
			if (k >= BPF_MEMWORDS) {
				r.bad = true;
				return r;
			}
			*(BPF_CLASS(f->code) == BPF_LD ? &a : &x) = mem[k];
			break;
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS) {
				r.bad = true;
				return r;
			}
			mem[k] = f->code == BPF_ST ? a : x;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= k;
			break;
		case BPF_ALU | BPF_OR | BPF_K:
			a |= k;
			break;
		case BPF_MISC | BPF_TAX:
			x = a;
			break;
		case BPF_MISC | BPF_TXA:
			a = x;
			break;
		case BPF_JMP | BPF_JA:
			pc += k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
		case BPF_JMP | BPF_JGT | BPF_K:
		case BPF_JMP | BPF_JGE | BPF_K:
		case BPF_JMP | BPF_JSET | BPF_K: {
			bool t = BPF_OP(f->code) == BPF_JEQ   ? a == k
				 : BPF_OP(f->code) == BPF_JGT ? a > k
				 : BPF_OP(f->code) == BPF_JGE ? a >= k
							      : (a & k) != 0;

			off = t ? f->jt : f->jf;
			pc += off;
			break;
		}
		case BPF_RET | BPF_K:
			r.ret = k;
			return r;
		case BPF_RET | BPF_A:
			r.ret = a;
			return r;
		default:
			r.bad = true;
			return r;
		}
	}
	r.bad = true;
	return r;
}

/* The kernel's rule for stacked filters: the action of higher precedence; on a tie, the later. */
static uint32_t stacked(uint32_t first, uint32_t later)
{
	int32_t f = (int32_t)(first & SECCOMP_RET_ACTION_FULL);
	int32_t l = (int32_t)(later & SECCOMP_RET_ACTION_FULL);

	return f < l ? first : later;
}

/* ---- the check ------------------------------------------------------------------------------- */

/* The values arg_values() tries besides the bits, and all it returns. */
#define N_LO	 (44 + 16 + 2 * 23)
#define N_VALUES (4 * (N_LO + 3 * 32))

static size_t arg_values(uint64_t *v)
{
	static const uint32_t hi[] = {0, 1, 0x80000000u, 0xffffffffu};
	/*
	 * Each argument value the rules compare with, and its neighbours: families and types of
	 * socket (with SOCK_CLOEXEC, SOCK_NONBLOCK), terminal and file-attribute requests
	 * (FS_IOC_SETFLAGS, FS_IOC_FSSETXATTR, either side of TCGETS), the namespace flags one by
	 * one, a clone without any and one with all of them, and fcntl's F_SETFL and F_SETSIG,
	 * the O_ASYNC flag and the FIOASYNC request.
	 */
	static const uint32_t lo[] = {
		0,	    0xffffffffu, 0xfffffffeu,	 0x7fffffffu, 0x80000000u, AF_UNIX,
		AF_INET,    AF_INET6,	 AF_NETLINK,	 AF_PACKET,   SOCK_STREAM, SOCK_DGRAM,
		SOCK_RAW,   SOCK_RDM,	 SOCK_SEQPACKET, SOCK_PACKET, 0x80001,	   0x802,
		TIOCSTI,    TIOCLINUX,	 TIOCGWINSZ,	 TCGETS,      FIONREAD,	   FIOCLEX,
		0x40086602, 0x401c5820,	 0x5400,	 0x5402,      0x80,	   0x20000,
		0x10000000, 0x20000000,	 0x40000000,	 0x4000000,   0x8000000,   0x2000000,
		0x100,	    0x11,	 0x00100011,	 0x7e020000,  F_SETFL,	   F_SETSIG,
		O_ASYNC,    FIOASYNC};
	/*
	 * The console's: either end of its two classes and past them, the line discipline's and
	 * exclusive mode's requests, the two refused whole; each getter and the request after it
	 * (VT_GETCONSIZECSRPOS, 0x80085610, is outside the class, and 0x5610 no getter).
	 */
	static const uint32_t console[] = {TIOCSETD, TIOCGETD, TIOCEXCL, TIOCNXCL,   0x4aff, 0x4b00,
					   0x4bff,   0x4c00,   0x55ff,	 0x5600,     0x561f, 0x5620,
					   KDFONTOP, KDKBDREP, 0x5610,	 0x80085610u};
	static const uint32_t getters[] = {
		KDGETLED,      KDGKBTYPE,	 KDGETMODE,   GIO_SCRNMAP,    KDGKBMODE,
		KDGKBENT,      KDGKBSENT,	 KDGKBDIACR,  KDGETKEYCODE,   GIO_FONT,
		KDGKBMETA,     KDGKBLED,	 GIO_UNIMAP,  GIO_UNISCRNMAP, GIO_FONTX,
		GIO_CMAP,      KDGKBDIACRUC,	 VT_OPENQRY,  VT_GETMODE,     VT_GETSTATE,
		VT_WAITACTIVE, VT_GETHIFONTMASK, VT_WAITEVENT};
	size_t n = 0;

	_Static_assert(sizeof(lo) / sizeof(*lo) + sizeof(console) / sizeof(*console) +
				       2 * sizeof(getters) / sizeof(*getters) ==
			       N_LO,
		       "N_LO counts the values tried besides the bits");
	for (size_t h = 0; h < sizeof(hi) / sizeof(*hi); h++) {
		for (size_t l = 0; l < sizeof(lo) / sizeof(*lo); l++)
			v[n++] = (uint64_t)hi[h] << 32 | lo[l];
		for (size_t l = 0; l < sizeof(console) / sizeof(*console); l++)
			v[n++] = (uint64_t)hi[h] << 32 | console[l];
		for (size_t l = 0; l < sizeof(getters) / sizeof(*getters); l++) {
			v[n++] = (uint64_t)hi[h] << 32 | getters[l];
			v[n++] = (uint64_t)hi[h] << 32 | (getters[l] + 1);
		}
		/* One bit set and one bit clear, and each pair of neighbouring bits. */
		for (unsigned b = 0; b < 32; b++) {
			v[n++] = (uint64_t)hi[h] << 32 | 1u << b;
			v[n++] = (uint64_t)hi[h] << 32 | ~(1u << b);
			v[n++] = (uint64_t)hi[h] << 32 | (3u << b | (b == 31 ? 1u : 0));
		}
	}
	return n;
}

/* The switches of one combination the check runs. */
struct mode {
	bool network, metadata, traced, no_watch, no_ipc, no_pgrp, no_async;
};

static uint32_t refused(const struct mode *m, enum sbx_seccomp_group g)
{
	return m->traced ? SECCOMP_RET_TRACE | SBX_TRACE_REFUSED(g, EPERM)
			 : SECCOMP_RET_ERRNO | EPERM;
}

/*
 * The rules on processes, said here apart from the program's head that states them
 * (process_rules): what the second filter said of them, which libseccomp cannot say (a call
 * allowed for one value of an argument, a 32-bit int and all others refused). The kernel reads
 * each of these arguments as an int: the low 32 bits.
 */
static uint32_t process_rules_said(const struct mode *m, const struct seccomp_data *sd)
{
	uint32_t a0 = (uint32_t)sd->args[0], a1 = (uint32_t)sd->args[1], a2 = (uint32_t)sd->args[2];
	int nr = sd->nr;

	if (sd->arch != SBX_AUDIT_ARCH)
		return SECCOMP_RET_ALLOW; /* libseccomp's program kills it */
	if (m->no_watch && sbx_seccomp_in_table(SBX_SC_WATCH, nr))
		return refused(m, SBX_SCG_WATCH);
	if (m->no_ipc && sbx_seccomp_in_table(SBX_SC_PID, nr) && a0 != 0)
		return refused(m, SBX_SCG_PROCESSES);
	if (m->no_ipc && nr == __NR_setpriority && !(a0 == PRIO_PROCESS && a1 == 0))
		return refused(m, SBX_SCG_PROCESSES);
	if (m->no_ipc && nr == __NR_ioprio_set && !(a0 == 1 /* IOPRIO_WHO_PROCESS */ && a1 == 0))
		return refused(m, SBX_SCG_PROCESSES);
	if (m->no_ipc && sbx_seccomp_in_table(SBX_SC_IPC, nr))
		return refused(m, SBX_SCG_IPC);
	if (m->no_pgrp && nr == __NR_kill && a0 == 0)
		return refused(m, SBX_SCG_PROCESSES);
	if (m->no_async && nr == __NR_fcntl &&
	    (a1 == F_SETSIG || (a1 == F_SETFL && (a2 & O_ASYNC))))
		return refused(m, SBX_SCG_PROCESSES);
	/* With metadata, the ioctl allow-list (the second filter) leaves FIOASYNC out instead. */
	if (m->no_async && !m->metadata && nr == __NR_ioctl && a1 == FIOASYNC)
		return refused(m, SBX_SCG_PROCESSES);
	return SECCOMP_RET_ALLOW;
}

/* Runs both sides for one call; returns false (and says why) when they differ. */
static bool same(const struct sock_filter *ref, size_t ref_len, const struct sock_filter *snd,
		 size_t snd_len, const struct sock_filter *prog, size_t len,
		 const struct seccomp_data *sd, const struct mode *m, unsigned mode,
		 bool *read_args)
{
	struct run r = bpf_run(ref, ref_len, sd), s = bpf_run(snd, snd_len, sd),
		   p = bpf_run(prog, len, sd);
	uint32_t old = stacked(stacked(r.ret, s.ret), process_rules_said(m, sd));

	*read_args = r.read_args || s.read_args || p.read_args;
	if (r.bad || s.bad || p.bad || old != p.ret) {
		fprintf(stderr,
			"seccomp-gen: the program decides otherwise than the two filters it "
			"replaces: switches %u, arch %#x, call %d, args %#llx %#llx: %#x against "
			"%#x%s\n",
			mode, sd->arch, sd->nr, (unsigned long long)sd->args[0],
			(unsigned long long)sd->args[1], p.ret, old,
			r.bad || s.bad || p.bad ? " (an instruction not understood)" : "");
		return false;
	}
	return true;
}

static int check_mode(unsigned mode, const uint64_t *values, size_t n_values)
{
	const struct mode m = {.network = mode & 1,
			       .metadata = mode & 2,
			       .traced = mode & 4,
			       .no_watch = mode & 8,
			       .no_ipc = mode & 16,
			       .no_pgrp = mode & 32,
			       .no_async = mode & 64};
	bool network = m.network, metadata = m.metadata, traced = m.traced, no_watch = m.no_watch,
	     no_ipc = m.no_ipc, no_pgrp = m.no_pgrp, no_async = m.no_async;
	static struct sock_filter ref[SBX_SECCOMP_PROG_MAX], main[SBX_SECCOMP_PROG_MAX],
		prog[SBX_SECCOMP_PROG_MAX];
	struct sock_filter snd[SBX_SECCOMP_SECOND_MAX];
	static const uint32_t arches[] = {SBX_AUDIT_ARCH, AUDIT_ARCH_I386, 0, 0xdeadbeefu};
	static const uint64_t paired[] = {0, 1, F_SETFL, O_ASYNC};
	size_t ref_len, main_len, snd_len, len, nrs = 0;
	struct sbx_diag d;

	sbx_diag_clear(&d);
	if (sbx_seccomp_main(network, metadata, traced, true, ref, &ref_len, &d) < 0 ||
	    sbx_seccomp_main(network, metadata, traced, false, main, &main_len, &d) < 0) {
		fprintf(stderr, "seccomp-gen: %s\n", d.msg);
		return -1;
	}
	snd_len = sbx_seccomp_second(metadata, no_async, traced, SBX_SYSCALL_KNOWN_MAX, snd);
	len = sbx_seccomp_program(main, main_len, metadata, no_watch, no_ipc, no_pgrp, no_async,
				  traced, SBX_SYSCALL_KNOWN_MAX, prog);
	if (!len) {
		fprintf(stderr, "seccomp-gen: sbx_seccomp_program cannot take libseccomp's "
				"program over\n");
		return -1;
	}
	/* The room the helper leaves the head (its buffer holds SBX_SECCOMP_PROG_MAX in all). */
	if (len - main_len > SBX_SECCOMP_HEAD_MAX) {
		fprintf(stderr,
			"seccomp-gen: the program's head is %zu instructions, its room %d\n",
			len - main_len, SBX_SECCOMP_HEAD_MAX);
		return -1;
	}
	for (size_t a = 0; a < sizeof(arches) / sizeof(*arches); a++) {
		for (uint64_t i = 0; i < 1024 + 2 * 640 + 4; i++) {
			/* 0-1023, then around the x32 bit, then the top of the range. */
			uint32_t nr = i < 1024		? (uint32_t)i
				      : i < 1024 + 640	? 0x40000000u - 64 + (uint32_t)(i - 1024)
				      : i < 1024 + 1280 ? 0x7fffff00u + (uint32_t)(i - 1664)
							: 0xfffffffcu + (uint32_t)(i - 2304);
			struct seccomp_data sd = {.nr = (int)nr, .arch = arches[a]};
			bool read_args;

			if (!same(ref, ref_len, snd, snd_len, prog, len, &sd, &m, mode, &read_args))
				return -1;
			nrs++;
			/* No argument read, nor one the rules said here read: any decides alike. */
			if (!read_args &&
			    !(arches[a] == SBX_AUDIT_ARCH && sbx_seccomp_reads_args((int)nr)))
				continue;
			if (arches[a] != SBX_AUDIT_ARCH || !sbx_seccomp_reads_args((int)nr)) {
				fprintf(stderr,
					"seccomp-gen: call %d (arch %#x) is decided by its "
					"arguments; add it to the list the check tries them for\n",
					(int)nr, arches[a]);
				return -1;
			}
			for (size_t v = 0; v < n_values; v++)
				for (size_t w = 0; w < n_values; w += 17) {
					sd.args[0] = values[v];
					sd.args[1] = values[(v + w) % n_values];
					sd.args[2] = values[w];
					sd.instruction_pointer = values[(w + 3) % n_values];
					if (!same(ref, ref_len, snd, snd_len, prog, len, &sd, &m,
						  mode, &read_args))
						return -1;
				}
			/*
			 * Each value in each argument beside the values a rule pairs with another
			 * (who 0 of PRIO_PROCESS or IOPRIO_WHO_PROCESS, F_SETFL's O_ASYNC), which
			 * the sweep above may not bring together.
			 */
			for (size_t v = 0; v < n_values; v++)
				for (size_t c = 0; c < sizeof(paired) / sizeof(*paired); c++)
					for (int at = 0; at < 3; at++) {
						for (int j = 0; j < 3; j++)
							sd.args[j] =
								j == at ? values[v] : paired[c];
						sd.instruction_pointer = 0;
						if (!same(ref, ref_len, snd, snd_len, prog, len,
							  &sd, &m, mode, &read_args))
							return -1;
					}
		}
	}
	return nrs > 0 ? 0 : -1;
}

int main(void)
{
	static uint64_t values[N_VALUES];
	size_t n_values = arg_values(values);
	struct sbx_diag check;

	sbx_diag_clear(&check);
	if (sbx_seccomp_watch_check(&check) < 0) {
		fprintf(stderr, "seccomp-gen: %s\n", check.msg);
		return 1;
	}
	for (unsigned mode = 0; mode < 128; mode++)
		if (check_mode(mode, values, n_values) < 0)
			return 1;
	puts("/* Generated at build time by seccomp-gen from platform/linux/seccomp.c. */");
	puts("struct sbx_bpf_blob {\n\tconst unsigned char *insns;\n\tsize_t size;\n};");
	for (int i = 0; i < 8; i++) {
		bool traced = i & 4, network = i & 2, metadata = i & 1;
		static struct sock_filter prog[SBX_SECCOMP_PROG_MAX];
		const unsigned char *buf = (const unsigned char *)prog;
		struct sbx_diag d;
		size_t len;

		sbx_diag_clear(&d);
		if (sbx_seccomp_main(network, metadata, traced, false, prog, &len, &d) < 0) {
			fprintf(stderr, "seccomp-gen: %s\n", d.msg);
			return 1;
		}
		printf("static const unsigned char sbx_bpf_%d[] __attribute__((aligned(8))) = {",
		       i);
		for (size_t k = 0; k < len * sizeof(*prog); k++)
			printf("%s0x%02x,", k % 12 ? " " : "\n\t", buf[k]);
		printf("\n};\n");
	}
	puts("static const struct sbx_bpf_blob sbx_seccomp_filters[8] = {");
	for (int i = 0; i < 8; i++)
		printf("\t{sbx_bpf_%d, sizeof(sbx_bpf_%d)},\n", i, i);
	puts("};");
	return 0;
}
