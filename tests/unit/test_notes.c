/* SPDX-License-Identifier: MIT */
/* test_notes.c - each reason said once; a missing grant shown as having no effect. */
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"
#include "vec.h"

/* Where s names the path: the span its writer would record, found here by hand. */
static struct sbx_span at(const char *s, const char *lead, const char *path)
{
	return (struct sbx_span){strlen(lead), strncmp(s, lead, strlen(lead)) ? 0 : strlen(path)};
}

TEST(notes_group_rows_that_differ_only_in_their_path)
{
	const char *why[] = {
		"/w/.git does not exist; create it beforehand",
		NULL,
		"/w/.codex does not exist; create it beforehand",
		"no mount namespace: blocked",
		"/t/.git does not exist; create it beforehand",
		"no mount namespace: blocked",
		/* a longer path that starts or ends with the row's path is another path */
		"/x/w/a and /w/a.txt are under /w/a",
		/* the mention recorded is the row's own; another stays as written */
		"/dev/shm lies under /dev, which holds an empty /dev/shm: not found",
		"denying /dev/shm: an empty /dev/shm is mounted",
		/* a reason that names the path without saying so is left whole */
		"/w/.git does not exist; create it beforehand",
		/* a span past the end of its text (a writer's bug) is not followed */
		"/q",
	};
	const struct sbx_span self[] = {
		at(why[0], "", "/w/.git"),
		{0, 0},
		at(why[2], "", "/w/.codex"),
		{0, 0},
		at(why[4], "", "/t/.git"),
		{0, 0},
		{strlen(why[6]) - strlen("/w/a"), strlen("/w/a")},
		at(why[7], "", "/dev/shm"),
		{strlen("denying /dev/shm: an empty "), strlen("/dev/shm")},
		{0, 0},
		{1, 5},
	};
	struct sbx_notes n;

	CHECK_INT(sbx_notes_group(why, self, 11, &n), 0);
	CHECK_INT(n.text.n, 7);
	if (n.text.n == 7) {
		CHECK_STR(n.text.v[0], "this path does not exist; create it beforehand");
		CHECK_STR(n.text.v[1], "no mount namespace: blocked");
		CHECK_STR(n.text.v[2], "/x/w/a and /w/a.txt are under this path");
		CHECK_STR(n.text.v[3],
			  "this path lies under /dev, which holds an empty /dev/shm: not found");
		CHECK_STR(n.text.v[4], "denying /dev/shm: an empty this path is mounted");
		CHECK_STR(n.text.v[5], "/w/.git does not exist; create it beforehand");
		CHECK_STR(n.text.v[6], "/q");
	}
	CHECK_INT(n.of[0], 1);
	CHECK_INT(n.of[1], 0);
	CHECK_INT(n.of[2], 1);
	CHECK_INT(n.of[3], 2);
	CHECK_INT(n.of[4], 1);
	CHECK_INT(n.of[5], 2);
	CHECK_INT(n.of[6], 3);
	CHECK_INT(n.of[7], 4);
	CHECK_INT(n.of[8], 5);
	CHECK_INT(n.of[9], 6);
	CHECK_INT(n.of[10], 7);
	sbx_notes_free(&n);
	/* No spans: every reason as written. */
	CHECK_INT(sbx_notes_group(why, NULL, 3, &n), 0);
	CHECK_INT(n.text.n, 2);
	sbx_notes_free(&n);
	CHECK_INT(sbx_notes_group(why, NULL, 0, &n), 0);
	CHECK_INT(n.text.n, 0);
	sbx_notes_free(&n);
}

/* The writers record the span: the reason of a requirement, and a diagnostic's message. */
TEST(notes_span_recorded_by_the_writer)
{
	struct sbx_req r = {.kind = SBX_REQ_DENY, .path = strdup("/w/a")};
	struct sbx_span s;
	struct sbx_diag d;
	char long_path[900];

	CHECK_INT(sbx_req_set_self(&r, SBX_UNENFORCEABLE, 0, "h", "denying ", " in /w/a: %d", 7),
		  0);
	CHECK_STR(sbx_req_reason(&r), "denying /w/a in /w/a: 7");
	s = sbx_req_self(&r);
	CHECK_INT(s.at, 8);
	CHECK_INT(s.len, 4);
	/* A reason set again without one forgets the old span. */
	CHECK_INT(sbx_req_set(&r, SBX_UNENFORCEABLE, 0, "h", "%s is /w/a", "it"), 0);
	CHECK_INT(sbx_req_self(&r).len, 0);
	sbx_diag_clear(&d);
	sbx_diag_set_about(&d, SBX_E_UNENFORCEABLE, "deny glob `", "/w/*", "`: %s", "bad");
	CHECK_STR(d.msg, "deny glob `/w/*`: bad");
	CHECK_INT(d.about.at, 11);
	CHECK_INT(d.about.len, 4);
	CHECK_INT(sbx_req_set_diag(&r, SBX_UNENFORCEABLE, 0, NULL, &d), 0);
	CHECK_STR(sbx_req_reason(&r), "deny glob `/w/*`: bad");
	CHECK_INT(sbx_req_self(&r).at, 11);
	CHECK_INT(sbx_req_self(&r).len, 4);
	/* The first message is kept, and its span with it. */
	sbx_diag_set_about(&d, SBX_E_UNENFORCEABLE, "x", "/y", "z");
	CHECK_INT(d.about.at, 11);
	/* A message too long keeps its start and its end: the span follows its path or goes. */
	memset(long_path, 'a', sizeof(long_path) - 1);
	long_path[0] = '/';
	long_path[sizeof(long_path) - 1] = 0;
	sbx_diag_clear(&d);
	sbx_diag_set_about(&d, SBX_E_UNENFORCEABLE, "", long_path, " crosses %s", long_path);
	CHECK_INT(d.about.len, 0);
	sbx_diag_clear(&d);
	sbx_diag_set_about(&d, SBX_E_UNENFORCEABLE, "", "/short", " crosses %s", long_path);
	CHECK_INT(d.about.at, 0);
	CHECK_INT(d.about.len, 6);
	sbx_diag_clear(&d);
	sbx_diag_set_about(&d, SBX_E_UNENFORCEABLE, long_path, "/end", ": gone");
	CHECK_INT(d.about.len, 4);
	if (d.about.len == 4)
		CHECK(strncmp(d.msg + d.about.at, "/end: gone", 10) == 0);
	sbx_req_release(&r);
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
