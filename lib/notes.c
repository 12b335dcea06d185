/* SPDX-License-Identifier: MIT */
/*
 * notes.c - what explain and -v say about each requirement, each reason said once.
 *
 * A reason often repeats on many rows: the same missing host feature for every rule, or the
 * same "does not exist" for each protected name of each writable root. The rows then share one
 * numbered note. A reason that names its own row's path ("/w/.git does not exist; ...") says
 * "this path" instead, so that rows differing only in their path share the note; the row says
 * which path. Only the first mention is the row's: a later one is a fact about that path as any
 * other ("/dev/shm lies under /dev, ... an empty /dev/shm"), and "this path" there would be
 * nonsense.
 */
#include <ctype.h>
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

/* Is the occurrence of a path at p, pl bytes long, a whole path rather than part of one? */
static bool whole(const char *reason, const char *p, size_t pl)
{
	unsigned char before = p > reason ? (unsigned char)p[-1] : ' ';

	if (isalnum(before) || strchr("/._-~", before))
		return false;
	return !p[pl] || strchr(" ;,:)'\"`", p[pl]);
}

/* reason with the first whole occurrence of path replaced by what (NULL path: a copy). */
static char *abstract_path(const char *reason, const char *path, const char *what)
{
	size_t pl = path ? strlen(path) : 0, wl = strlen(what), rl = strlen(reason);
	const char *p = reason;
	char *out;

	if (!pl)
		return strdup(reason);
	/* A longer path that starts or ends with this one ("/w/a.txt", "/x/w/a") is another. */
	while ((p = strstr(p, path)) && !whole(reason, p, pl))
		p += pl;
	if (!p)
		return strdup(reason);
	out = malloc(rl - pl + wl + 1);
	if (!out)
		return NULL;
	memcpy(out, reason, (size_t)(p - reason));
	memcpy(out + (p - reason), what, wl);
	strcpy(out + (p - reason) + wl, p + pl);
	return out;
}

int sbx_notes_group(const char *const *reasons, const char *const *paths, size_t n,
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
		text = abstract_path(reasons[i], paths ? paths[i] : NULL, "this path");
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
