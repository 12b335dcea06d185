/* SPDX-License-Identifier: MIT */
/* util.c - helpers of the Windows backend: error text, UTF-8 and UTF-16. */
#include <errno.h>
#include <stdlib.h>

#include "windows/backend.h"

int sbx_win_fail(struct sbx_diag *d, int code, DWORD err, const char *what)
{
	char msg[256] = "";
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
				 err, 0, msg, sizeof(msg), NULL);

	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	return sbx_diag_set(d, code, "%s: %s (error %lu)", what, n ? msg : "unknown error",
			    (unsigned long)err);
}

DWORD sbx_win_allow_acl(PSID const sids[], size_t n, DWORD mask, ACL **out)
{
	DWORD len = sizeof(ACL);
	ACL *acl;

	*out = NULL;
	for (size_t i = 0; i < n; i++)
		len += sizeof(ACCESS_ALLOWED_ACE) - sizeof(DWORD) + GetLengthSid(sids[i]);
	acl = malloc(len);
	if (!acl)
		return ERROR_NOT_ENOUGH_MEMORY;
	if (!InitializeAcl(acl, len, ACL_REVISION))
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (!AddAccessAllowedAce(acl, ACL_REVISION, mask, sids[i]))
			goto fail;
	*out = acl;
	return ERROR_SUCCESS;
fail:
	free(acl);
	return GetLastError();
}

wchar_t *sbx_win_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return NULL;
	w = malloc((size_t)n * sizeof(*w));
	if (w && MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}

char *sbx_win_utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0)
		return NULL;
	s = malloc((size_t)n);
	if (s && WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) != n) {
		free(s);
		return NULL;
	}
	return s;
}
