/* SPDX-License-Identifier: MIT */
/*
 * winpath.h - Windows paths, decided as Windows decides them (winpath.c).
 *
 * Pure string functions: no Windows API, so every rule is unit-tested on every host.
 */
#ifndef SBX_WINPATH_H
#define SBX_WINPATH_H

#include <stdbool.h>

#include "sbx.h"

/*
 * The one canonical form of a Windows absolute path, computed once before any check:
 *   "X:\a\b"  (drive letter upper case, backslashes, no trailing separator; the root is "X:\")
 *   "\\server\share\a"  (the root is "\\server\share")
 * Accepted input: either separator and runs of them, "." and ".." (lexical, never above the
 * root, as Win32 resolves them before any file is looked at), trailing dots and spaces of the
 * last component (stripped, as Win32 does), and the device prefixes \\?\X:\, \\.\X:\,
 * \\?\UNC\server\share and \\.\UNC\server\share.
 * Refused, with *why saying which rule (a static string): anything not absolute (relative,
 * "\x" root-relative, "X:x" drive-relative), other device paths (\\.\pipe\x, \\?\Volume{..}),
 * characters Windows forbids in names (< > " | ? * and controls), ':' in a component (an
 * alternate data stream), a reserved device name as a component (NUL, CON, COM1, ...), and a
 * component other than the last that ends in a dot or a space (whose meaning differs between
 * Win32 and the \\?\ form). Under \\?\, where Windows normalizes nothing, "." and ".." and
 * trailing dots and spaces are refused instead of resolved.
 * Returns 0 and a malloc'd *out, -EINVAL (with *why) or -ENOMEM.
 */
int sbx_win_path_normalize(const char *in, char **out, const char **why);

/* A canonical path that names a whole volume: "X:\" or "\\server\share". */
bool sbx_win_path_is_volume_root(const char *canonical);

#endif
