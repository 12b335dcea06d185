/* SPDX-License-Identifier: MIT */
/*
 * vec.h - shared helpers of the vector-driven tests: the vectors file, placeholder directories
 * and their substitution, and conversions between vector JSON and the model.
 */
#ifndef SBX_TEST_VEC_H
#define SBX_TEST_VEC_H

#include <jansson.h>
#include <stdbool.h>

#include "sbx.h"

/* The parsed vectors file (a new reference each call), or NULL. */
json_t *vec_load_all(void);
/* The vector with this id (borrowed from all). */
json_t *vec_find(json_t *all, const char *id);
/*
 * The vector with this id from a process-wide copy of the file (borrowed), or NULL after
 * recording a test failure: a vector a test names must exist.
 */
json_t *vec_get(const char *id);

/*
 * Placeholder directories: real, existing, canonical directories under one temporary base,
 * created once per process and removed at exit. name is "$CWD", "$T", "$WS", "$REQ_CWD",
 * "$LATER_CWD", "$TMP", "$EXTRA", "$D", "$FRESH" or "$FRESH2"; NULL for anything else.
 */
const char *vec_dir(const char *name);
/* The directory standing for $CWD. */
const char *vec_cwd(void);
/* s with every placeholder replaced (malloc'd). A placeholder ends at a non [A-Z_] character. */
char *vec_subst_str(const char *s);
/* v with every placeholder in every string replaced (a new reference). */
json_t *vec_subst(const json_t *v);
/* A vector's input and expected value, substituted; false when the vector is missing. */
bool vec_io(const char *id, json_t **in, json_t **want);
void vec_done(json_t *in, json_t *want);
/* Compact JSON text of v (malloc'd). */
char *vec_text(const json_t *v);

/*
 * A raw file_system_policy {"kind":"restricted"|"unrestricted"|"external-sandbox",
 * "entries":[...],"glob_scan_max_depth":N} into fs (placeholders already substituted).
 */
int vec_fs_policy(const json_t *raw, struct sbx_fs *fs);
/* An additional permission profile object (placeholders already substituted). */
int vec_additional(const json_t *v, struct sbx_additional *out);
/* The entries of fs as wire JSON (a new reference), through the canonical emitter. */
json_t *vec_entries_jv(const struct sbx_fs *fs);
/* An additional profile as wire JSON (a new reference), through the canonical emitter. */
json_t *vec_additional_jv(const struct sbx_additional *a);
/* json_equal, reporting both sides as a test failure when they differ. */
bool vec_json_check(const char *file, int line, const json_t *got, const json_t *want);
#define VEC_JSON_EQ(got, want) vec_json_check(__FILE__, __LINE__, (got), (want))

/*
 * Every vector: those of codex-vectors.json, with what sbxrun-vectors.json restates or skips
 * (an entry of the same id, whose keys replace the vector's; an "area" with "skip"), and the
 * cases of sbxrun-vectors.json itself. A new reference; NULL after recording a failure.
 */
json_t *vec_all_cases(void);
/* New empty directories for $FRESH and $FRESH2. */
void vec_fresh_reset(void);
/* An additional profile's path and glob entries into the model without the loader's checks. */
int vec_additional_raw(const json_t *v, struct sbx_additional *out);
/*
 * Calls fn on every tagged PermissionProfile found anywhere in v, with the placeholders
 * substituted (a reference valid during the call); returns how many there were.
 */
size_t vec_each_profile(const json_t *v, void (*fn)(json_t *profile, void *arg), void *arg);
/* A fresh empty canonical directory under the placeholder base (malloc'd). */
char *vec_fresh_dir(void);
/* Creates a file (with text, may be NULL) or directory, parents included; 0 on success. */
int vec_mkfile(const char *path, const char *text);
int vec_mkdir(const char *path);

/* Appends a glob entry (the model has no push helper for globs). */
int vec_push_glob(struct sbx_fs *fs, const char *pattern, enum sbx_access a);

/* A context for cwd with the host platform, no TMPDIR and no extra workspace roots. */
struct sbx_ctx vec_ctx(const char *cwd);

#endif
