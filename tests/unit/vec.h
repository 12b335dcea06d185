/* SPDX-License-Identifier: MIT */
/* vec.h - shared helpers of the loader and emitter tests: the vectors file and placeholders. */
#ifndef SBX_TEST_VEC_H
#define SBX_TEST_VEC_H

#include <jansson.h>
#include <stdbool.h>

/* The parsed vectors file (a new reference each call), or NULL. */
json_t *vec_load_all(void);
/* The vector with this id (borrowed from all). */
json_t *vec_find(json_t *all, const char *id);
/* A real, existing temporary directory standing for $CWD; created once per process. */
const char *vec_cwd(void);
/* v with every "$CWD" string prefix replaced by vec_cwd() (a new reference). */
json_t *vec_subst(const json_t *v);
/* Compact JSON text of v (malloc'd). */
char *vec_text(const json_t *v);

#endif
