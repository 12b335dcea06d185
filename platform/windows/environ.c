/* SPDX-License-Identifier: MIT */
/*
 * environ.c - the process's environment on Windows, where CreateProcess passes on a block of
 * its own (UTF-16) rather than the C runtime's copy (in the ANSI code page, which loses
 * characters): read it as UTF-8, and replace it by the environment the command is to see.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "windows/backend.h"
#include "windows/windows.h"

int sbx_windows_environ(struct sbx_strv *out)
{
	wchar_t *block = GetEnvironmentStringsW();
	int r = 0;

	memset(out, 0, sizeof(*out));
	if (!block)
		return -ENOMEM;
	for (const wchar_t *p = block; !r && *p; p += wcslen(p) + 1)
		r = sbx_strv_push_owned(out, sbx_win_utf8(p));
	FreeEnvironmentStringsW(block);
	/* NULL-terminated, like environ. */
	if (!r)
		r = sbx_strv_terminate(out);
	if (r)
		sbx_strv_clear(out);
	return r;
}

/* Sets (value non-NULL) or removes one variable of the block; "=C:" and its kind are kept. */
static int set_one(const char *var, size_t len, const char *value)
{
	char *name = strndup(var, len);
	wchar_t *wn = name ? sbx_win_wide(name) : NULL, *wv = value ? sbx_win_wide(value) : NULL;
	int r = 0;

	if (!wn || (value && !wv))
		r = -ENOMEM;
	else if (name[0] != '=' && !SetEnvironmentVariableW(wn, wv))
		r = -EIO;
	free(name);
	free(wn);
	free(wv);
	return r;
}

int sbx_windows_environ_install(char *const env[])
{
	struct sbx_strv now;
	int r = sbx_windows_environ(&now);

	/* "=C:=C:\dir" and the like hold each drive's current directory: not variables. */
	for (size_t i = 0; !r && i < now.n; i++)
		r = set_one(now.v[i], sbx_env_name_len(now.v[i]), NULL);
	for (size_t i = 0; !r && env[i]; i++) {
		size_t len = sbx_env_name_len(env[i]);

		r = set_one(env[i], len, env[i][len] ? env[i] + len + 1 : "");
	}
	sbx_strv_clear(&now);
	return r;
}
