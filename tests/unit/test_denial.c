/* SPDX-License-Identifier: MIT */
/*
 * test_denial.c - which rule decides an access (the words of `sbxrun access`), the interpreter
 * a program needs, and which rule keeps a program from being executed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

static void check_rule(const struct sbx_profile *p, const struct sbx_ctx *ctx, const char *path,
		       enum sbx_access want, const char *rule)
{
	struct sbx_access_why a;

	CHECK_INT(sbx_access_rule(p, NULL, ctx, path, &a), 0);
	CHECK_INT(a.access, want);
	CHECK_STR(a.rule, rule);
	sbx_access_why_free(&a);
}

TEST(access_rule_words)
{
	struct sbx_profile p = {.type = SBX_MANAGED};
	struct sbx_ctx ctx = vec_ctx("/w");

	sbx_fs_push_special(&p.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&p.fs, "/w", SBX_WRITE, false);
	sbx_fs_push_path(&p.fs, "/usr/bin", SBX_DENY, false);
	vec_push_glob(&p.fs, "/w/**/*.pem", SBX_DENY);
	check_rule(&p, &ctx, "/etc/passwd", SBX_READ, "entries[0]: read :root");
	check_rule(&p, &ctx, "/usr/bin/sh", SBX_DENY, "entries[2]: deny /usr/bin");
	check_rule(&p, &ctx, "/w/src/a.c", SBX_WRITE, "entries[1]: write /w");
	check_rule(&p, &ctx, "/w/k/x.pem", SBX_DENY, "entries[3]: deny glob /w/**/*.pem");
	/* /w does not exist here: each protected name is missing, kept from being created. */
	check_rule(
		&p, &ctx, "/w/.git/config", SBX_READ,
		"entries[1]: read-only .git (protected, in write /w; missing: cannot be created)");
	sbx_fs_push_path(&p.fs, "/w/.codex", SBX_READ, false);
	sbx_fs_push_path(&p.fs, "/w/doc", SBX_READ, false);
	check_rule(&p, &ctx, "/w/.codex/x", SBX_READ,
		   "entries[4]: read-only .codex (protected; missing: cannot be created)");
	check_rule(&p, &ctx, "/w/doc/x", SBX_READ, "entries[5]: read-only /w/doc");
	sbx_profile_free(&p);
	p = (struct sbx_profile){.type = SBX_MANAGED};
	sbx_fs_push_path(&p.fs, "/w", SBX_WRITE, false);
	check_rule(&p, &ctx, "/usr/bin/sh", SBX_DENY, "no entry covers this path (default deny)");
	p.fs.kind = SBX_FS_UNRESTRICTED;
	check_rule(&p, &ctx, "/usr", SBX_WRITE, "unrestricted file system");
	sbx_profile_free(&p);
}

/* A minimal ELF header and one program header (PT_INTERP) in either class and byte order. */
static size_t make_elf(unsigned char *b, bool is64, bool be, const char *interp)
{
	size_t eh = is64 ? 64 : 52, ph = is64 ? 56 : 32, off = eh + ph, n = strlen(interp) + 1;
	unsigned char *p = b + eh;

#define PUT(at, v, w)                                                                              \
	do {                                                                                       \
		for (size_t k_ = 0; k_ < (w); k_++)                                                \
			(at)[be ? (w)-1 - k_ : k_] = (unsigned char)((uint64_t)(v) >> (8 * k_));   \
	} while (0)
	memset(b, 0, off + n);
	memcpy(b, "\177ELF", 4);
	b[4] = is64 ? 2 : 1;
	b[5] = be ? 2 : 1;
	PUT(b + (is64 ? 32 : 28), eh, is64 ? 8 : 4);
	PUT(b + (is64 ? 54 : 42), ph, 2);
	PUT(b + (is64 ? 56 : 44), 1, 2);
	PUT(p, 3, 4);
	PUT(p + (is64 ? 8 : 4), off, is64 ? 8 : 4);
	PUT(p + (is64 ? 32 : 16), n, is64 ? 8 : 4);
#undef PUT
	memcpy(b + off, interp, n);
	return off + n;
}

TEST(exec_interpreter_of_scripts_and_elf)
{
	unsigned char b[512];
	char out[256];
	size_t n;

	CHECK_INT(sbx_exec_interpreter((const unsigned char *)"#!/bin/sh -e\n", 13, out, 256), 0);
	CHECK_STR(out, "/bin/sh");
	CHECK_INT(sbx_exec_interpreter((const unsigned char *)"#! \t/usr/bin/env python3\n", 25,
				       out, 256),
		  0);
	CHECK_STR(out, "/usr/bin/env");
	CHECK_INT(sbx_exec_interpreter((const unsigned char *)"#!\n", 3, out, 256), -EINVAL);
	CHECK_INT(sbx_exec_interpreter((const unsigned char *)"echo hi\n", 8, out, 256), -ENOENT);
	for (int c = 0; c < 4; c++) {
		n = make_elf(b, c & 1, c & 2, "/lib64/ld-linux-x86-64.so.2");
		CHECK_INT(sbx_exec_interpreter(b, n, out, sizeof(out)), 0);
		CHECK_STR(out, "/lib64/ld-linux-x86-64.so.2");
		/* Cut anywhere, it cannot tell (never reads past the buffer; ASan checks). */
		for (size_t cut = 0; cut < n; cut++)
			CHECK(sbx_exec_interpreter(b, cut, out, sizeof(out)) < 0);
		CHECK_INT(sbx_exec_interpreter(b, n, out, 10), -EINVAL);
	}
	/* A static binary has no PT_INTERP. */
	n = make_elf(b, true, false, "x");
	b[64] = 1; /* PT_LOAD */
	CHECK_INT(sbx_exec_interpreter(b, n, out, sizeof(out)), -ENOENT);
}

TEST(exec_interpreter_of_this_system_shell)
{
	unsigned char buf[4096];
	char out[256];
	int fd = open("/bin/sh", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));

	if (fd >= 0)
		close(fd);
	CHECK(n > 64);
	/* Dynamically linked on every system the tests run on: its loader is absolute. */
	CHECK_INT(sbx_exec_interpreter(buf, (size_t)n, out, sizeof(out)), 0);
	CHECK(out[0] == '/');
}

static int plan_for(const char *entries_json, const char *cwd, struct sbx_plan *plan)
{
	char *text = NULL;
	struct sbx_profile p;
	struct sbx_diag d;
	struct sbx_ctx ctx = vec_ctx(cwd);
	int r;

	if (asprintf(&text,
		     "{\"type\":\"managed\",\"file_system\":{\"type\":\"restricted\","
		     "\"entries\":[%s]},\"network\":\"restricted\"}",
		     entries_json) < 0)
		return -1;
	r = sbx_profile_load_buf(text, strlen(text), "t.json", &p, NULL, NULL, &d);
	free(text);
	if (r)
		return r;
	r = sbx_plan_build(&p, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, plan, &d);
	sbx_profile_free(&p);
	return r;
}

static void check_refusal(const char *entries, const char *const paths[SBX_EXEC_PATHS], int want,
			  const char *why, const char *refused)
{
	const char *cwd = vec_cwd(), *got_path = NULL;
	struct sbx_ctx ctx = vec_ctx(cwd);
	struct sbx_plan plan;
	char *got = NULL;

	CHECK_INT(plan_for(entries, cwd, &plan), 0);
	CHECK_INT(sbx_exec_refusal(&plan, &ctx, paths, sbx_linux_minimal_paths, &got, &got_path),
		  want);
	if (want == 1) {
		CHECK_STR(got, why);
		CHECK_STR(got_path, refused);
	} else {
		CHECK(got == NULL);
	}
	free(got);
	sbx_plan_free(&plan);
}

#define ROOT_READ                                                                                  \
	"{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"root\"}},\"access\":\"read\"}"
#define MINIMAL                                                                                    \
	"{\"path\":{\"type\":\"special\",\"value\":{\"kind\":\"minimal\"}},\"access\":\"read\"}"
#define DENY(p) "{\"path\":{\"type\":\"path\",\"path\":\"" p "\"},\"access\":\"deny\"}"

TEST(exec_refusal_names_the_rule)
{
	const char *sh[] = {"/usr/bin/sh", "/usr/bin/dash", "/lib64/ld-linux-x86-64.so.2",
			    "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"};

	/* entries: [] refuses the program itself. */
	check_refusal("", sh, 1, "no entry grants read on /usr/bin/sh", "/usr/bin/sh");
	/* Readable as named, denied where it leads. */
	check_refusal(ROOT_READ "," DENY("/usr/bin/dash"), sh, 1,
		      "/usr/bin/dash is denied by entries[1]: deny /usr/bin/dash", "/usr/bin/dash");
	/* The program is fine, its loader is not. */
	check_refusal(ROOT_READ "," DENY("/usr/lib/x86_64-linux-gnu"), sh, 1,
		      "its interpreter: /usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 is denied "
		      "by entries[1]: deny /usr/lib/x86_64-linux-gnu",
		      "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
	/* :minimal covers /usr and /lib64 on Linux: nothing to say, the cause is elsewhere. */
	check_refusal(MINIMAL, sh, 0, NULL, NULL);
	check_refusal(ROOT_READ, sh, 0, NULL, NULL);
	/* ...but not /opt. */
	{
		const char *opt[] = {"/opt/tool/bin/t", NULL, NULL, NULL};

		check_refusal(MINIMAL, opt, 1, "no entry grants read on /opt/tool/bin/t",
			      "/opt/tool/bin/t");
	}
}
