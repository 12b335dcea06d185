/* SPDX-License-Identifier: MIT */
/*
 * seccomp_gen.c - run at build time: compiles the eight seccomp filters (network restricted or
 * not, metadata refused or not, refusals traced for the denial report or not) with libseccomp
 * for this architecture and prints them as a C header, so the helper loads a finished program
 * instead of building one on every start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux/linux.h"

int main(void)
{
	struct sbx_diag check;

	sbx_diag_clear(&check);
	if (sbx_seccomp_watch_check(&check) < 0) {
		fprintf(stderr, "seccomp-gen: %s\n", check.msg);
		return 1;
	}
	puts("/* Generated at build time by seccomp-gen from platform/linux/seccomp.c. */");
	puts("struct sbx_bpf_blob {\n\tconst unsigned char *insns;\n\tsize_t size;\n};");
	for (int i = 0; i < 8; i++) {
		bool traced = i & 4, network = i & 2, metadata = i & 1;
		struct sbx_diag d;
		unsigned char buf[1 << 16];
		ssize_t n;
		int fd = memfd_create("bpf", MFD_CLOEXEC);

		sbx_diag_clear(&d);
		if (fd < 0 || sbx_seccomp_export(network, metadata, traced, fd, &d) < 0) {
			fprintf(stderr, "seccomp-gen: %s\n",
				d.msg[0] ? d.msg : "memfd_create failed");
			return 1;
		}
		n = pread(fd, buf, sizeof(buf), 0);
		if (n <= 0 || n == (ssize_t)sizeof(buf)) {
			fprintf(stderr, "seccomp-gen: cannot read the exported filter\n");
			return 1;
		}
		printf("static const unsigned char sbx_bpf_%d[] __attribute__((aligned(8))) = {",
		       i);
		for (ssize_t k = 0; k < n; k++)
			printf("%s0x%02x,", k % 12 ? " " : "\n\t", buf[k]);
		printf("\n};\n");
		close(fd);
	}
	puts("static const struct sbx_bpf_blob sbx_seccomp_filters[8] = {");
	for (int i = 0; i < 8; i++)
		printf("\t{sbx_bpf_%d, sizeof(sbx_bpf_%d)},\n", i, i);
	puts("};");
	return 0;
}
