/* SPDX-License-Identifier: MIT */
/* winpath_cases.h - the Windows path table tests/windows/paths.json, shared by its tests. */
#ifndef SBX_TEST_WINPATH_CASES_H
#define SBX_TEST_WINPATH_CASES_H

#include <jansson.h>

/* One section of the table (borrowed; loaded once), or NULL after recording a failure. */
json_t *winpath_cases(const char *section);

#endif
