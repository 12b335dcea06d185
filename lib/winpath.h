/* SPDX-License-Identifier: MIT */
/*
 * winpath.h - Windows paths and program names, decided as Windows decides them (winpath.c).
 *
 * Pure string functions: no Windows API, so every rule is unit-tested on every host. The one
 * question that needs the file system (does this candidate exist?) is asked through a callback.
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

/*
 * Whether Windows would run this file through cmd.exe: its last component, with trailing dots
 * and spaces stripped as Windows strips them, ends in ".bat" or ".cmd" in any case. A name with
 * a stream suffix (':' after the drive) counts as a batch file too (refusing is the safe side).
 */
bool sbx_win_is_batch_file(const char *path);

/*
 * An argument cmd.exe passes through unchanged to a batch file: letters, digits, non-ASCII and
 * - _ . , : / \ = + @ # ~; nothing cmd.exe would expand or split (% ! ^ & | < > ( ) " space).
 */
bool sbx_win_batch_arg_safe(const char *arg);

/* Whether the file at path (canonical) exists and is not a directory. */
typedef bool (*sbx_win_is_file_fn)(const char *path, void *arg);

/*
 * The file Windows would run for prog, found explicitly (CreateProcess, given no application
 * name, would first look in sbxrun's own directory and in the current directory):
 *   - a name with a separator or a drive is taken as a path, relative ones against cwd;
 *     drive-relative ("C:x") and root-relative ("\x") names are refused (SBX_E_USAGE);
 *   - a bare name is looked for in the directories of path_env (';'-separated, quotes
 *     stripped) only: never in the current or sbxrun's directory; relative and empty entries
 *     are skipped, since they would make the current directory a search directory;
 *   - a name without an extension is tried with each extension of pathext_env that
 *     CreateProcess can start (.com .exe .bat .cmd; ".COM;.EXE;.BAT;.CMD" when unset or
 *     empty) in that order, then as it is; a name with an extension only as it is.
 * Returns 0 with the canonical path in *out (malloc'd), -ENOENT when nothing was found, or
 * SBX_E_USAGE / -ENOMEM, with d filled in every case but success.
 */
int sbx_win_resolve_program(const char *prog, const char *cwd, const char *path_env,
			    const char *pathext_env, sbx_win_is_file_fn is_file, void *arg,
			    char **out, struct sbx_diag *d);

#endif
