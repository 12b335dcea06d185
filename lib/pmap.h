/* SPDX-License-Identifier: MIT */
/*
 * pmap.h - a profile's path map (lib/ internal; not part of the public interface): roots.c
 * builds it from the resolved entries, and asks it, as gitroots.c does, where a path lies
 * (pmap.c): which entry names it, which writable root or deny decides it.
 */
#ifndef SBX_PMAP_H
#define SBX_PMAP_H

#include <stdint.h>

#include "sbx.h"

/* Distinct resolved paths of a profile, each with the strongest access of the entries there. */
struct pmap {
	struct pslot {
		const char *p; /* borrowed from paths.v */
		/* access: the largest of the entries at exactly this path (enum sbx_access) */
		uint32_t len : 30, access : 2;
		int32_t wr; /* index into the writable roots, or -1 */
	} * slots; /* 16 bytes a slot: 256 KiB at 10,000 paths, where 32 missed the cache more */
	size_t cap;
	struct sbx_strv paths;	/* distinct paths in first-seen order (owned) */
	size_t *at;		/* the slot of each of paths.v */
	struct sbx_lenset lens; /* of the paths held: most ancestors looked up hold nothing */
};

/* The slot of p[0..len), or NULL. */
struct pslot *sbx_pmap_find(const struct pmap *m, const char *p, size_t len);

/*
 * The nearest strict ancestor of p that is in the map with an access other than read (a
 * writable root or a deny), or NULL. Read entries in between do not stop the walk.
 */
struct pslot *sbx_pmap_decider(const struct pmap *m, const char *p);

/* The nearest strict ancestor of p that an entry names, whatever its access, or NULL. */
struct pslot *sbx_pmap_entry(const struct pmap *m, const char *p);

#endif
