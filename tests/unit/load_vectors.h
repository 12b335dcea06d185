/* SPDX-License-Identifier: MIT */
/* load_vectors.h - helpers of the loader and emitter tests: the vectors file, placeholders. */
#ifndef SBX_TEST_LOAD_VECTORS_H
#define SBX_TEST_LOAD_VECTORS_H

#include <jansson.h>
#include <stdbool.h>

/* The parsed vectors file (a new reference each call), or NULL. */
json_t *lv_load_all(void);
/* The vector with this id (borrowed from all). */
json_t *lv_find(json_t *all, const char *id);
/* A real, existing temporary directory standing for $CWD; created once per process. */
const char *lv_cwd(void);
/* v with every "$CWD" string prefix replaced by lv_cwd() (a new reference). */
json_t *lv_subst(const json_t *v);
/* Compact JSON text of v (malloc'd). */
char *lv_text(const json_t *v);

#endif
