/* SPDX-License-Identifier: MIT */
/*
 * plan.c - the user-space work a profile costs `run` on Linux, in both of its halves, as one
 * program that callgrind can count: instruction counts do not depend on the machine or its
 * load, where times do (tests/bench/count runs it and holds the counts to a bound).
 *
 *   plan sbxrun|helper PROFILE CWD
 *
 * sbxrun: what `run` does before it executes the helper: reads PROFILE, plans for CWD on the
 * host's file system, attaches the Linux mechanisms, and writes the canonical profile it hands
 * over into a memfd as it is made (as platform/linux/exec.c does for a large profile). helper:
 * the same first, then what the helper does with that text: reads it back, loads it, looks every
 * path up through its resolver (which keeps a descriptor of each), plans, attaches, derives what
 * the enter sequence applies and prepares it (the mount plan; not the Landlock ruleset, which is
 * a system call per rule). The mechanisms are attached as on a host with every feature
 * (sbx_linux_facts_assumed), so that the count does not depend on what the kernel (or valgrind,
 * which knows neither Landlock nor openat2) offers. Each half is a function of its own, for
 * --toggle-collect. Prints the heap each half holds at its end (mallinfo2), and the number of
 * requirements planned.
 */
#include <errno.h>
#include <malloc.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linux/linux.h"

/* A host with every feature the Linux backend uses. */
static struct sbx_linux_facts facts;
/* sbxrun's view: the memo over the host's, as `run` has (freed after sbxrun's plan). */
static struct sbx_fsmemo memo;
static char true_cmd[] = "true";
static char *true_argv[] = {true_cmd, NULL};

/*
 * Bytes allocated: from the heap proper, and the large blocks malloc maps on their own. musl
 * keeps no such count: built against it, the program counts instructions only (heap 0), which
 * is how the musl build's per-entry work is counted (tests/bench/README.md).
 */
static size_t heap_in_use(void)
{
#ifdef __GLIBC__
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
#else
	return 0;
#endif
}

/* Plans prof (taken when take) for cwd through view with every Linux feature assumed. */
static int plan_for(struct sbx_profile *prof, bool take, const char *cwd,
		    const struct sbx_fsview *view, struct sbx_plan *plan, struct sbx_diag *d)
{
	struct sbx_ctx ctx = {.cwd = cwd, .platform = SBX_PLATFORM_LINUX, .fs = view};
	char rule[SBX_REQ_RULE_MAX];
	int r;

	r = take ? sbx_plan_build_take(prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, plan,
				       d)
		 : sbx_plan_build(prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, plan, d);
	if (r < 0)
		return r;
	r = sbx_plan_attach_linux(plan, &facts);
	if (r < 0)
		return sbx_diag_set(d, r, "out of memory");
	if (!sbx_plan_enforceable(plan))
		return sbx_diag_set(d, SBX_E_UNENFORCEABLE, "the plan is not enforceable: %s",
				    sbx_req_rule(sbx_plan_first_unenforceable(plan), rule));
	return 0;
}

static int to_memfd(void *fd, const char *s, size_t n)
{
	return write(*(int *)fd, s, n) == (ssize_t)n ? 0 : -EIO;
}

/*
 * sbxrun's half: a memfd holding the canonical text it hands the helper, or -1 with d filled.
 * What it built is left in prof and plan for the caller to free, as `run` executes the helper
 * without freeing.
 */
__attribute__((noinline)) static int half_sbxrun(const char *file, const char *cwd,
						 struct sbx_profile *prof, struct sbx_plan *plan,
						 struct sbx_diag *d)
{
	enum sbx_input_form form;
	char *text = NULL;
	size_t len = 0;
	int r, fd;

	if (sbx_read_file(file, &text, &len, d) < 0)
		return -1;
	/* As `run` does: the text is freed once loaded, and the plan takes the profile. */
	r = sbx_profile_load_buf(text, len, file, prof, &form, NULL, d);
	free(text);
	/* On the memo over the host's view, as `run` plans (cmd/invocation.c). */
	sbx_fsmemo_init(&memo, NULL);
	if (r < 0 || plan_for(prof, true, cwd, &memo.view, plan, d) < 0)
		return -1;
	fd = memfd_create("plan", 0);
	if (fd < 0) {
		sbx_diag_set(d, -errno, "memfd_create: %s", strerror(errno));
		return -1;
	}
	r = sbx_profile_to_json_stream(&plan->profile, 64 * 1024, to_memfd, &fd);
	if (r < 0) {
		sbx_diag_set(d, r, "writing the profile: %s", strerror(-r));
		close(fd);
		return -1;
	}
	return fd;
}

/* The helper's half, on the text sbxrun's half wrote; what it built is left to the caller. */
__attribute__((noinline)) static int half_helper(int fd, const char *cwd, struct sbx_profile *prof,
						 struct sbx_plan *plan, struct sbx_rulepaths *res,
						 struct sbx_linux_enforce *e,
						 struct sbx_linux_prepared *prepared,
						 struct sbx_diag *d)
{
	struct sbx_linux_globs globs = {0};
	enum sbx_input_form form;
	struct stat st;
	char *json;
	int r;

	/* As cmd/helper.c reads its memfd: one buffer of its size, freed once loaded. */
	if (fstat(fd, &st) < 0 || !(json = malloc((size_t)st.st_size + 1)))
		return sbx_diag_set(d, -ENOMEM, "reading the profile back");
	if (pread(fd, json, (size_t)st.st_size, 0) != st.st_size) {
		free(json);
		return sbx_diag_set(d, -EIO, "reading the profile back");
	}
	json[st.st_size] = '\0';
	r = sbx_profile_load_buf(json, (size_t)st.st_size, "--permission-profile-fd", prof, &form,
				 NULL, d);
	free(json);
	/* As cmd/helper.c sizes its resolver. */
	if (r == 0 && sbx_rulepaths_reserve(res, prof->fs.n + 64) < 0)
		r = sbx_diag_set(d, -ENOMEM, "out of memory");
	if (r == 0)
		r = plan_for(prof, true, cwd, &res->view, plan, d);
	if (r == 0)
		r = sbx_linux_scan_globs(plan, res, &globs, d);
	if (r == 0)
		r = sbx_linux_enforce_from_plan(plan, &facts, false, res, &globs, e, d);
	sbx_linux_globs_free(&globs);
	if (r == 0) {
		/* The mount plan; the Landlock ruleset is the kernel's work (a call per rule). */
		e->argv = true_argv;
		e->command_cwd = cwd;
		e->landlock_abi = 0;
		r = sbx_linux_prepare(e, prepared, d);
	}
	return r;
}

int main(int argc, char **argv)
{
	struct sbx_profile prof = {0}, hprof = {0};
	struct sbx_plan plan = {0}, hplan = {0};
	struct sbx_rulepaths res;
	struct sbx_linux_enforce e = {0};
	struct sbx_linux_prepared prepared = {0};
	struct sbx_diag d;
	size_t base;
	int r = 0, fd;

	sbx_diag_clear(&d);
	sbx_linux_facts_assumed(&facts);
	sbx_rulepaths_init(&res);
	if (argc != 4 || (strcmp(argv[1], "sbxrun") != 0 && strcmp(argv[1], "helper") != 0)) {
		fprintf(stderr, "usage: plan sbxrun|helper PROFILE CWD\n");
		return 2;
	}
	base = heap_in_use();
	fd = half_sbxrun(argv[2], argv[3], &prof, &plan, &d);
	if (fd >= 0)
		printf("sbxrun: %zu requirements, %zu bytes of heap held\n", plan.n_reqs,
		       heap_in_use() - base);
	if (fd >= 0 && strcmp(argv[1], "helper") == 0) {
		/* The helper is a new process: it starts with none of sbxrun's heap. */
		sbx_plan_free(&plan);
		sbx_profile_free(&prof);
		sbx_fsmemo_free(&memo);
		base = heap_in_use();
		r = half_helper(fd, argv[3], &hprof, &hplan, &res, &e, &prepared, &d);
		if (r == 0)
			printf("helper: %zu requirements, %zu paths kept, %zu bytes of heap held\n",
			       hplan.n_reqs, res.n, heap_in_use() - base);
	}
	if (r == 0 && prepared.e)
		sbx_linux_prepared_free(&prepared);
	sbx_linux_enforce_free(&e);
	sbx_rulepaths_free(&res);
	sbx_plan_free(&hplan);
	sbx_profile_free(&hprof);
	sbx_plan_free(&plan);
	sbx_profile_free(&prof);
	sbx_fsmemo_free(&memo); /* after the plan, which may hold its answers */
	if (fd >= 0)
		close(fd);
	if (fd < 0 || r < 0) {
		fprintf(stderr, "plan: %s\n", d.msg);
		return 1;
	}
	return 0;
}
