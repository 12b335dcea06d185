/* SPDX-License-Identifier: MIT */
/* test_notes.c - each reason said once; a missing grant shown as having no effect. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

TEST(notes_group_rows_that_differ_only_in_their_path)
{
	const char *why[] = {
		"/w/.git does not exist; create it beforehand",
		NULL,
		"/w/.codex does not exist; create it beforehand",
		"no mount namespace: blocked",
		"/t/.git does not exist; create it beforehand",
		"no mount namespace: blocked",
		/* a longer path that starts with the row's path is another path */
		"/x/w/a and /w/a.txt are under /w/a",
		/* only the first mention is the row's own; a later one stays as written */
		"/dev/shm lies under /dev, which holds an empty /dev/shm: not found",
	};
	const char *paths[] = {"/w/.git", NULL, "/w/.codex", "/x",
			       "/t/.git", NULL, "/w/a",	     "/dev/shm"};
	struct sbx_notes n;

	CHECK_INT(sbx_notes_group(why, paths, 8, &n), 0);
	CHECK_INT(n.text.n, 4);
	if (n.text.n == 4) {
		CHECK_STR(n.text.v[0], "this path does not exist; create it beforehand");
		CHECK_STR(n.text.v[1], "no mount namespace: blocked");
		CHECK_STR(n.text.v[2], "/x/w/a and /w/a.txt are under this path");
		CHECK_STR(n.text.v[3],
			  "this path lies under /dev, which holds an empty /dev/shm: not found");
	}
	CHECK_INT(n.of[0], 1);
	CHECK_INT(n.of[1], 0);
	CHECK_INT(n.of[2], 1);
	CHECK_INT(n.of[3], 2);
	CHECK_INT(n.of[4], 1);
	CHECK_INT(n.of[5], 2);
	CHECK_INT(n.of[6], 3);
	CHECK_INT(n.of[7], 4);
	sbx_notes_free(&n);
	CHECK_INT(sbx_notes_group(why, NULL, 0, &n), 0);
	CHECK_INT(n.text.n, 0);
	sbx_notes_free(&n);
}

TEST(notes_many_rows_one_note)
{
	enum { N = 20000 };
	const char **why = calloc(N, sizeof(*why));
	struct sbx_notes n;

	for (size_t i = 0; why && i < N; i++)
		why[i] = i % 2 ? "Landlock is unavailable" : "seccomp is unavailable";
	CHECK_INT(sbx_notes_group(why, NULL, N, &n), 0);
	CHECK_INT(n.text.n, 2);
	CHECK_INT(n.of[N - 1], 2);
	CHECK_INT(n.of[N - 2], 1);
	sbx_notes_free(&n);
	free(why);
}

TEST(notes_missing_grant)
{
	struct sbx_req r = {.kind = SBX_REQ_WRITE, .path = (char *)"/nope", .status = SBX_ENFORCED};

	CHECK(sbx_req_missing_grant(&r));
	r.exists = true;
	CHECK(!sbx_req_missing_grant(&r));
	r.exists = false;
	r.kind = SBX_REQ_READ;
	CHECK(sbx_req_missing_grant(&r));
	/* Only what would have been enforced: an unenforceable grant stays unenforceable. */
	r.status = SBX_UNENFORCEABLE;
	CHECK(!sbx_req_missing_grant(&r));
	r.status = SBX_ENFORCED;
	/* Other kinds have their own words (a deny, a carve-out, a protected name). */
	r.kind = SBX_REQ_DENY;
	CHECK(!sbx_req_missing_grant(&r));
	r.kind = SBX_REQ_READ_ONLY;
	CHECK(!sbx_req_missing_grant(&r));
	/* A Windows path cannot be looked up on this host: it stays as planned. */
	r.kind = SBX_REQ_WRITE;
	r.path = (char *)"C:\\nope";
	CHECK(!sbx_req_missing_grant(&r));
}
