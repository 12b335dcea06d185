/* SPDX-License-Identifier: MIT */
/*
 * load.h - what the loader's files share (lib/ internal; not part of the public interface).
 *
 * The loader reads JSON text into the model in one of two ways. The canonical wire format (a
 * tagged PermissionProfile) goes through a single-pass parser straight into the model
 * (load_wire.c); everything it does not accept goes through jansson and the schema walkers, which
 * also word every error. The walkers report a semantic error with the JSON pointer of the
 * offending value; load_text.c turns the pointer into a line and column.
 *
 *   load.c           the entry points: which path an input takes, and what an error looks like
 *   load_wire.c      the single-pass parser of the canonical wire format
 *   load_text.c      JSON text: the pre-scan, jansson's errors, pointer to line and column
 *   load_walk.c      what every walker uses: where a value sits, type and key checks, suggestions
 *   load_entries.c   FileSystemSandboxEntry lists and FileSystemPermissions (every shape has them)
 *   load_profile.c   the tagged PermissionProfile (managed, disabled, external)
 *   load_additional.c  the untagged shape: AdditionalPermissionProfile and the older rollout profile
 *   load_legacy.c    the legacy SandboxPolicy
 *   load_managed.c   Codex's ManagedNetworkSandboxContext (--managed-network of the helper)
 *   readfile.c       reading a profile file or stdin, bounded
 */
#ifndef SBX_LOAD_H
#define SBX_LOAD_H

#include <jansson.h>

#include "sbx.h"

/* A path of SBX_MAX_PATH bytes has at most this many components: deeper scans mean nothing. */
#define SBX_MAX_GLOB_DEPTH (SBX_MAX_PATH / 2)
#define SBX_PTR_MAX	   sizeof(((struct sbx_diag *)0)->pointer)

/* The accepted values, as the messages list them. */
#define SBX_KINDS_EXPECTED "root, minimal, project_roots, tmpdir, slash_tmp or unknown"
#define SBX_LEGACY_TYPES_EXPECTED                                                                  \
	"read-only, workspace-write, danger-full-access or external-sandbox"
#define SBX_PROFILE_TYPES_EXPECTED                                                                 \
	"managed, disabled or external, or a legacy " SBX_LEGACY_TYPES_EXPECTED

/*
 * Where a value sits: the input's name, the diagnostic to fill, and the step from the enclosing
 * value (a member name, or an array index). The JSON pointer is rendered from this chain only
 * when an error is reported, so the walk over a large profile formats no pointers at all.
 */
struct sbx_at {
	const char *name;
	struct sbx_diag *d;
	const struct sbx_at *up; /* NULL at the start of the walk */
	const char *key;	 /* the member name; NULL for an array element */
	size_t index;
	const char *base; /* at the start: the pointer of the value the walk began at */
};

/* ---- load_walk.c: what every walker uses --------------------------------------------------- */

void sbx_at_root(struct sbx_at *a, const char *name, const char *base, struct sbx_diag *d);
void sbx_at_key(struct sbx_at *c, const struct sbx_at *p, const char *key);
void sbx_at_index(struct sbx_at *c, const struct sbx_at *p, size_t i);
/* Records an error at a, with its JSON pointer (the first error recorded stays); returns code. */
int sbx_at_fail(const struct sbx_at *a, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int sbx_at_nomem(const struct sbx_at *a);

const char *sbx_json_type_name(const json_t *v); /* "an object", "a string", "null", ... */
int sbx_want_type(const struct sbx_at *a, const json_t *v, json_type t, const char *what);
/*
 * Unknown keys are errors: a misspelt key must never silently widen or narrow a profile. The
 * message says what the object is, the keys it takes (expected), and which of candidates
 * (NULL-terminated; sbx_check_keys: allowed) the unknown key most likely meant.
 */
int sbx_check_keys(const struct sbx_at *a, json_t *obj, const char *const *allowed,
		   const char *what, const char *expected);
int sbx_check_keys_near(const struct sbx_at *a, json_t *obj, const char *const *allowed,
			const char *const *candidates, const char *what, const char *expected);
/*
 * sbx_check_keys() and the lookups after it in one pass: an unknown key is the same error, found
 * in the same order, and the value of allowed[i] lands in vals[i] (left NULL when absent).
 */
int sbx_scan_keys(const struct sbx_at *a, json_t *obj, const char *const *allowed, json_t **vals,
		  const char *what, const char *expected);
/* The value of key, or "missing required key"; member_*: v is what sbx_scan_keys found. */
int sbx_get_required(const struct sbx_at *a, json_t *obj, const char *key, const char *what,
		     json_t **out);
int sbx_member_required(const struct sbx_at *a, json_t *v, const char *key, const char *what,
			json_t **out);
/* Optional keys: absent and null both mean "not given", as for serde's Option. */
json_t *sbx_get_optional(json_t *obj, const char *key);
int sbx_get_string(const struct sbx_at *a, json_t *v, const char **out);
int sbx_get_bool(const struct sbx_at *a, json_t *v, bool *out);
int sbx_key_string(const struct sbx_at *a, json_t *obj, const char *key, const char *what,
		   const char **out);
int sbx_member_string(const struct sbx_at *a, json_t *v, const char *key, const char *what,
		      const char **out);
/*
 * A tagged object without its tag key ("type", "kind"): "missing required key "KEY" in WHAT
 * (expected EXPECTED)", or, when another key of the object is a misspelling of it, that key.
 */
int sbx_missing_tag(const struct sbx_at *a, json_t *obj, const char *key, const char *what,
		    const char *expected);
/*
 * An enumerated value s that is none of names (NULL-terminated): "unknown WHAT "s" (expected
 * EXPECTED)", and "; did you mean "X"?" when one of names is clearly what was meant.
 */
int sbx_unknown_value(const struct sbx_at *a, const char *what, const char *s,
		      const char *const *names, const char *expected);

/* ---- the schema walkers ------------------------------------------------------------------- */

/* load_entries.c */
extern const char *const sbx_access_names_in[]; /* read write deny none: index = enum sbx_access */
extern const char *const sbx_network_modes[];	/* restricted enabled: index = enabled */
struct sbx_kind_name {
	const char *name;
	enum sbx_special sp;
	bool has_subpath;
};
/* The special kinds an entry may name (current_working_directory is project_roots), or NULL. */
const struct sbx_kind_name *sbx_find_kind(const char *s);
int sbx_walk_entries(const struct sbx_at *a, json_t *v, struct sbx_fs *out);
int sbx_walk_fs_permissions(const struct sbx_at *a, json_t *v, struct sbx_fs *out);
/*
 * The members of a restricted file system, "entries" (required) and "glob_scan_max_depth", in
 * an object whose keys are allowed: what names the object in messages, expected its keys.
 */
int sbx_walk_restricted(const struct sbx_at *a, json_t *v, const char *const *allowed,
			const char *what, const char *expected, struct sbx_fs *fs);
int sbx_walk_depth(const struct sbx_at *a, json_t *obj, unsigned *out);
int sbx_walk_network_mode(const struct sbx_at *a, json_t *v, bool *enabled);
/* The checks of a path string before sbx_walk_absolute_path(): empty, too long. */
int sbx_walk_check_length(const struct sbx_at *a, const char *s, const char *what);
/*
 * An absolute path: POSIX paths are normalized lexically; Windows paths are kept as written
 * (they stay symbolic on other hosts and never resolve there).
 */
int sbx_walk_absolute_path(const struct sbx_at *a, const char *s, char **out);
/*
 * The same for an element of a list that takes path strings only, whose refusal of a relative
 * path hints at what that list allows: listed "read" or "write" for a {"read":[...],
 * "write":[...]} list, "" for a legacy policy's writable_roots.
 */
int sbx_walk_listed_path(const struct sbx_at *a, const char *s, const char *listed, char **out);

/* load_profile.c: a root object whose "type" names a PermissionProfile. */
extern const char *const sbx_profile_types[]; /* managed disabled external */
int sbx_walk_tagged(const struct sbx_at *a, json_t *root, const char *type,
		    struct sbx_profile *out);

/* load_additional.c; near: the candidates for a misspelt key (NULL: the allowed keys). */
int sbx_walk_untagged(const struct sbx_at *a, json_t *root, const char *what,
		      const char *const *near, int *network, bool *has_fs, struct sbx_fs *fs);
int sbx_walk_rollout(const struct sbx_at *a, json_t *root, struct sbx_profile *out);

/* load_legacy.c */
extern const char *const sbx_legacy_types[]; /* danger-full-access read-only ... */
int sbx_walk_legacy(const struct sbx_at *a, json_t *root, const char *type, struct sbx_legacy *l);

/*
 * load.c: the frame of a loader entry point that reads one JSON object: a fresh diagnostic, the
 * text parsed (jansson places a syntax error), walk filling out, and a walker's error placed at
 * its line and column. What walk leaves in out on failure is the caller's to free.
 */
int sbx_load_object(const char *buf, size_t len, const char *name, struct sbx_diag *d,
		    int (*walk)(const struct sbx_at *a, json_t *root, void *out), void *out);

/* ---- load_text.c ---------------------------------------------------------------------------- */

/* Parses the text to a JSON object, or fills d with a file:line:col diagnostic. */
int sbx_json_parse_object(const char *buf, size_t len, const char *name, json_t **root,
			  struct sbx_diag *d);
/* Turns a pointer-only diagnostic into "LINE:COL: /pointer: message" (error path only). */
void sbx_json_place_pointer(const char *buf, size_t len, struct sbx_diag *d);

#endif
