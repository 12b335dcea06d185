/* SPDX-License-Identifier: MIT */
/*
 * notes.c - what explain and -v say about each requirement, each reason said once.
 *
 * A reason often repeats on many rows: the same missing host feature for every rule, or the
 * same "does not exist" for each protected name of each writable root. The rows then share one
 * numbered note. A reason that names its own row's path ("/w/.git does not exist; ...") says
 * "this path" instead, so that rows differing only in their path share the note; the row says
 * which path. Where the reason names it was recorded when the reason was written
 * (sbx_req_set_self(), sbx_diag_set_about()): the text is not searched, so another mention of
 * the same path ("/dev/shm lies under /dev, which holds an empty /dev/shm") or a longer path
 * holding it stays as written.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

bool sbx_req_missing_grant(const struct sbx_req *r)
{
	/* Only a path of this host's kind can be looked up here; others stay symbolic. */
	return (r->kind == SBX_REQ_READ || r->kind == SBX_REQ_WRITE) && r->path &&
	       r->path[0] == '/' && !r->exists && r->status == SBX_ENFORCED;
}

/* reason with the span self replaced by what (an empty or impossible span: a copy). */
static char *abstract_path(const char *reason, struct sbx_span self, const char *what)
{
	size_t wl = strlen(what), rl = strlen(reason);
	char *out;

	if (!self.len || self.at > rl || self.len > rl - self.at)
		return strdup(reason);
	out = malloc(rl - self.len + wl + 1);
	if (!out)
		return NULL;
	memcpy(out, reason, self.at);
	memcpy(out + self.at, what, wl);
	strcpy(out + self.at + wl, reason + self.at + self.len);
	return out;
}

int sbx_notes_group(const char *const *reasons, const struct sbx_span *self, size_t n,
		    struct sbx_notes *out)
{
	size_t cap = 16, *slots = NULL;
	int r = 0;

	memset(out, 0, sizeof(*out));
	out->of = calloc(n ? n : 1, sizeof(*out->of));
	while (cap < n * 2)
		cap *= 2;
	slots = calloc(cap, sizeof(*slots)); /* note index + 1; 0 = empty */
	if (!out->of || !slots) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		char *text;
		size_t s;

		if (!reasons[i])
			continue;
		text = abstract_path(reasons[i], self ? self[i] : (struct sbx_span){0, 0},
				     "this path");
		if (!text) {
			r = -ENOMEM;
			goto out;
		}
		for (s = sbx_hash(text, strlen(text)) & (cap - 1); slots[s];
		     s = (s + 1) & (cap - 1))
			if (strcmp(out->text.v[slots[s] - 1], text) == 0)
				break;
		if (slots[s]) {
			free(text);
		} else {
			r = sbx_strv_push_owned(&out->text, text);
			if (r)
				goto out;
			slots[s] = out->text.n;
		}
		out->of[i] = slots[s];
	}
out:
	free(slots);
	if (r)
		sbx_notes_free(out);
	return r;
}

void sbx_notes_free(struct sbx_notes *n)
{
	if (!n)
		return;
	sbx_strv_clear(&n->text);
	free(n->of);
	memset(n, 0, sizeof(*n));
}
