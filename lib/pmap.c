/* SPDX-License-Identifier: MIT */
/*
 * pmap.c - where a path lies among a profile's paths (struct pmap, pmap.h): the entry at exactly
 * a path, the nearest one above it, the nearest writable root or deny above it. roots.c builds
 * the map; it and gitroots.c ask it.
 */
#include <string.h>

#include "pmap.h"

/* A length the map holds no path of is not hashed. */
struct pslot *sbx_pmap_find(const struct pmap *m, const char *p, size_t len)
{
	size_t s;

	if (!m->cap || !sbx_lenset_has(&m->lens, len))
		return NULL;
	for (s = (size_t)sbx_hash(p, len) & (m->cap - 1); m->slots[s].p; s = (s + 1) & (m->cap - 1))
		if (m->slots[s].len == len && sbx_bytes_cmp(m->slots[s].p, p, len) == 0)
			return &m->slots[s];
	return NULL;
}

/*
 * The nearest strict ancestor of p in the map for which stop() holds, or NULL. Each ancestor is
 * hashed on its own (a word at a time), and only at a length the map holds: the callers ask
 * once per directory (roots.c's nearest_entry_of) or for a few paths, while the map's own
 * paths, one hash each, are what a large profile has many of.
 */
static struct pslot *nearest(const struct pmap *m, const char *p,
			     bool (*stop)(const struct pslot *s))
{
	size_t len = strlen(p);
	struct pslot *s;

	while ((len = sbx_path_parent_len(p, len)) > 0) {
		s = sbx_pmap_find(m, p, len);
		if (s && stop(s))
			return s;
	}
	return NULL;
}

static bool is_decider(const struct pslot *s)
{
	return s->access == SBX_DENY || s->wr >= 0;
}

static bool is_any(const struct pslot *s)
{
	(void)s;
	return true;
}

struct pslot *sbx_pmap_decider(const struct pmap *m, const char *p)
{
	return nearest(m, p, is_decider);
}

struct pslot *sbx_pmap_entry(const struct pmap *m, const char *p)
{
	return nearest(m, p, is_any);
}
