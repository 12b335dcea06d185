/* SPDX-License-Identifier: MIT */
/*
 * desktop.c - the private desktop a sandboxed command runs on.
 *
 * Windows delivers window messages, keystrokes and hooks within a desktop. A command started on
 * the user's desktop (WinSta0\Default) could find the user's windows and send them input: a
 * terminal would run what it types after sbxrun exits. So a sandboxed command gets a desktop of
 * its own, created for the run with a random name in sbxrun's window station and a DACL of one
 * ACE, and closed (so destroyed, once the command's processes are gone) when the run ends. The
 * job's UI limits (SBX_WIN_UI_LIMITS, set in run.c) add that its processes cannot use other
 * processes' windows or hooks (USER handles), the clipboard, global atoms, display settings,
 * system parameters, desktops or ExitWindows.
 *
 * What this does not stop: the restricted token keeps the logon SID (Codex's order; the window
 * station grants the session through it), and the user's own desktop grants that SID access,
 * so a command that deliberately opens WinSta0\Default by name can attach a thread to it. The
 * UI limits then still keep it from the other processes' windows; injecting input into the
 * foreground window from there (SendInput) is not something these mechanisms forbid. Nor is
 * writing input records into the console sbxrun shares with the command (WriteConsoleInput),
 * which the shell reads after sbxrun exits: that needs a console of the command's own.
 */
#include <aclapi.h>
#include <bcrypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "windows/backend.h"

DWORD sbx_win_desktop_dacl(const struct sbx_win_token *t, ACL **out)
{
	PSID sids[2];
	size_t n = 0;

	/*
	 * The logon SID is both a group of the restricted token (the normal access check) and one
	 * of its restricting SIDs (the second check, for the write rights among these): one ACE
	 * satisfies both. Without it, the user SID satisfies the first and the capability SID the
	 * second.
	 */
	if (t->logon_sid) {
		sids[n++] = t->logon_sid;
	} else {
		sids[n++] = t->user_sid;
		sids[n++] = t->cap_sid;
	}
	return sbx_win_allow_acl(sids, n, SBX_WIN_DESKTOP_RIGHTS, out);
}

int sbx_win_desktop_create(struct sbx_win_desktop *dt, const struct sbx_win_token *t,
			   struct sbx_diag *d)
{
	wchar_t winsta[64], leaf[48];
	SECURITY_DESCRIPTOR sd;
	SECURITY_ATTRIBUTES sa = {sizeof(sa), &sd, FALSE};
	unsigned char r[16];
	DWORD need = 0, err;
	ACL *acl = NULL;
	NTSTATUS st;

	memset(dt, 0, sizeof(*dt));
	/* The name of sbxrun's window station (WinSta0 in an interactive session). */
	if (!GetUserObjectInformationW(GetProcessWindowStation(), UOI_NAME, winsta, sizeof(winsta),
				       &need))
		return sbx_win_fail(d, -EIO, GetLastError(),
				    "cannot read the name of sbxrun's window station");
	st = BCryptGenRandom(NULL, r, sizeof(r), BCRYPT_USE_SYSTEM_PREFERRED_RNG);
	if (st != 0)
		return sbx_diag_set(d, -EIO, "cannot draw a random desktop name (status 0x%08lx)",
				    (unsigned long)st);
	wcscpy(leaf, L"sbxrun-");
	for (size_t i = 0; i < sizeof(r); i++)
		swprintf(leaf + 7 + 2 * i, 3, L"%02x", r[i]);
	swprintf(dt->name, sizeof(dt->name) / sizeof(dt->name[0]), L"%ls\\%ls", winsta, leaf);

	err = sbx_win_desktop_dacl(t, &acl);
	if (err != ERROR_SUCCESS)
		return sbx_win_fail(d, -EIO, err, "cannot build the private desktop's DACL");
	/* The DACL is part of the creation: the desktop never exists without it. */
	if (!InitializeSecurityDescriptor(&sd, SECURITY_DESCRIPTOR_REVISION) ||
	    !SetSecurityDescriptorDacl(&sd, TRUE, acl, FALSE)) {
		err = GetLastError();
		free(acl);
		return sbx_win_fail(d, -EIO, err, "cannot build the private desktop's DACL");
	}
	dt->handle = CreateDesktopW(leaf, NULL, NULL, 0, DESKTOP_READOBJECTS | READ_CONTROL, &sa);
	err = GetLastError();
	free(acl);
	if (!dt->handle) {
		sbx_win_fail(d, -EIO, err, "cannot create a private desktop for the command");
		return sbx_diag_hint(d, -EIO,
				     "run sbxrun in a session with a window station (a service "
				     "or a restricted session may have none)");
	}
	return 0;
}

void sbx_win_desktop_close(struct sbx_win_desktop *dt)
{
	if (dt->handle)
		CloseDesktop(dt->handle);
	dt->handle = NULL;
}
