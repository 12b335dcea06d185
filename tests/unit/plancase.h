/* SPDX-License-Identifier: MIT */
/*
 * plancase.h - the Linux planner's cases as data: tests/plan/linux/<case>/ holds
 *
 *   facts.json     {"host": {...struct sbx_linux_facts, pid_namespace and ipc_namespace too...},
 *                   "cwd": "/abs", "tmpdir": "/abs"?, "managed_network": bool?,
 *                   "allow_git": bool? (--allow-git), "fs": {...see fakefs.h...}}
 *   profile.json   the PermissionProfile the case plans
 *   expected.json  {"enforceable": bool, "requirements": [{"rule", "mechanism", "status",
 *                   "why"?}]} or {"error": "the message the plan fails with"}
 *
 * "mechanism" is the name explain shows, or null for none at all; "why" a part of the reason
 * and hint as a refusal prints them ("REASON; hint: HINT"), or "-" for neither. In "error",
 * {EIO} (any errno name fakefs.h knows) stands for the C library's wording of that errno.
 */
#ifndef SBX_TEST_PLANCASE_H
#define SBX_TEST_PLANCASE_H

#include <jansson.h>

#include "fakefs.h"
#include "sbx.h"

/* The directory of the cases, beside the vectors' ("tests/plan/linux"). */
const char *plancase_dir(void);
/* The names of the cases, sorted (NULL-terminated, malloc'd); *n how many. */
char **plancase_list(size_t *n);
/* A case's JSON file (a new reference), or NULL after recording a test failure. */
json_t *plancase_json(const char *name, const char *file);
/* Host facts from the "host" object. */
void plancase_facts(const json_t *host, struct sbx_linux_facts *f);
/* A profile from JSON through the loader. */
int plancase_profile(const json_t *v, struct sbx_profile *out, struct sbx_diag *d);

#endif
