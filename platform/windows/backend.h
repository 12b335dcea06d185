/* SPDX-License-Identifier: MIT */
/*
 * backend.h - the parts of the Windows backend, shared between its files (not used outside
 * platform/windows/ except by the backend's own unit tests):
 *
 *   token.c    the capability SID and the restricted token;
 *   acl.c      ACEs on the writable roots and carve-outs, per-run safe, recorded and undone;
 *   desktop.c  the private desktop the command runs on, and the job's UI limits;
 *   run.c      the sequence (windows.h), program resolution and the spawn;
 *   util.c     error text, UTF-8 and UTF-16.
 */
#ifndef SBX_PLATFORM_WINDOWS_BACKEND_H
#define SBX_PLATFORM_WINDOWS_BACKEND_H

#define WIN32_LEAN_AND_MEAN
#include <windows.h>

#include <stdbool.h>

#include "sbx.h"

/* ---- helpers (util.c) ------------------------------------------------------------------------ */

/* Fills d with what, the system's text for err and its number; returns code. */
int sbx_win_fail(struct sbx_diag *d, int code, DWORD err, const char *what);
/* An ACL of one allow ACE with mask for each of the n SIDs (free()d); a Windows error code. */
DWORD sbx_win_allow_acl(PSID const sids[], size_t n, DWORD mask, ACL **out);
/* UTF-8 <-> UTF-16, malloc'd; NULL on invalid input or no memory. */
wchar_t *sbx_win_wide(const char *s);
char *sbx_win_utf8(const wchar_t *w);

/* ---- the restricted token (token.c) --------------------------------------------------------- */

struct sbx_win_token {
	HANDLE token;	/* DISABLE_MAX_PRIVILEGE | LUA_TOKEN | WRITE_RESTRICTED */
	PSID cap_sid;	/* this run's capability SID: S-1-5-21 and 128 random bits (FreeSid) */
	PSID logon_sid; /* the session's logon SID, or NULL when the token has none (LocalFree) */
	PSID user_sid;	/* the user's SID (LocalFree) */
};

/* Makes the token and its SIDs from sbxrun's own token. On failure t holds nothing. */
int sbx_win_token_make(struct sbx_win_token *t, struct sbx_diag *d);
void sbx_win_token_free(struct sbx_win_token *t);

/* ---- ACL changes (acl.c) -------------------------------------------------------------------- */

/* One object whose DACL this run changed, held open from the change to its undoing. */
struct sbx_win_acl_change {
	wchar_t *path;
	HANDLE handle;	   /* the object the check and the change were made on */
	bool created_dir;  /* created empty by this run to carry the deny ACE */
	ACL *created_dacl; /* its DACL then, before any ACE was added (malloc'd; NULL for none) */
};

struct sbx_win_acls {
	PSID sid; /* the capability SID the ACEs name (borrowed) */
	struct sbx_win_acl_change *v;
	size_t n, cap;
	HANDLE lock; /* the cross-run ACL mutex (see acl.c), NULL when not held */
};

/*
 * Grants sid write on each writable root of p and denies it write on each carve-out, under the
 * cross-run lock. Every change is recorded in a even when a later step fails: call
 * sbx_win_acls_undo() in every case.
 */
int sbx_win_acls_apply(struct sbx_win_acls *a, const struct sbx_plan *p, PSID sid,
		       struct sbx_diag *d);
/* Removes this run's ACEs and the directories only this run relies on; frees a. */
void sbx_win_acls_undo(struct sbx_win_acls *a);

/*
 * The decision logic of acl.c, exposed for its unit tests:
 *  - sbx_win_acl_without() copies dacl without the explicit ACEs that name sid (inherited
 *    copies and every other SID's ACEs stay); *found says whether any was dropped. A NULL dacl
 *    gives a NULL copy. Returns ERROR_SUCCESS or a Windows error; the copy is free()d.
 *  - sbx_win_sentinel_removable() says whether a directory may be removed at cleanup, given
 *    its DACL once this run's ACEs are gone (now) and its DACL when this run created it: only
 *    one this run created, and only while it holds no explicit ACE it did not have then (which
 *    would be another run's deny, or the user's, relying on the directory). Inherited ACEs do
 *    not count: they come and go with the parent's.
 */
DWORD sbx_win_acl_without(const ACL *dacl, PSID sid, ACL **out, bool *found);
bool sbx_win_sentinel_removable(const ACL *now, const ACL *at_creation, bool created_by_this_run);

/* ---- the private desktop and UI limits (desktop.c) ------------------------------------------ */

/* What the job forbids a sandboxed command's user-interface calls. */
#define SBX_WIN_UI_LIMITS                                                                          \
	(JOB_OBJECT_UILIMIT_HANDLES | JOB_OBJECT_UILIMIT_READCLIPBOARD |                           \
	 JOB_OBJECT_UILIMIT_WRITECLIPBOARD | JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS |                 \
	 JOB_OBJECT_UILIMIT_DISPLAYSETTINGS | JOB_OBJECT_UILIMIT_GLOBALATOMS |                     \
	 JOB_OBJECT_UILIMIT_DESKTOP | JOB_OBJECT_UILIMIT_EXITWINDOWS)

/*
 * The rights the desktop's one ACE grants: what a program needs to create and use windows on
 * it, and not DESKTOP_SWITCHDESKTOP (making it the visible desktop), the journal hooks, DELETE,
 * WRITE_DAC or WRITE_OWNER.
 */
#define SBX_WIN_DESKTOP_RIGHTS                                                                     \
	(DESKTOP_READOBJECTS | DESKTOP_CREATEWINDOW | DESKTOP_CREATEMENU | DESKTOP_HOOKCONTROL |   \
	 DESKTOP_ENUMERATE | DESKTOP_WRITEOBJECTS | READ_CONTROL)

struct sbx_win_desktop {
	HDESK handle;
	wchar_t name[160]; /* "<window station>\sbxrun-<32 hex digits>", for lpDesktop */
};

/*
 * Creates a desktop with a random name in sbxrun's window station whose DACL has one ACE:
 * SBX_WIN_DESKTOP_RIGHTS for the token's logon SID (which the restricted token carries both as a
 * group and as a restricting SID), or, for a token without one, for its user and capability
 * SIDs. Closed (and so destroyed once the command is gone) by sbx_win_desktop_close().
 */
int sbx_win_desktop_create(struct sbx_win_desktop *dt, const struct sbx_win_token *t,
			   struct sbx_diag *d);
void sbx_win_desktop_close(struct sbx_win_desktop *dt);
/* The DACL sbx_win_desktop_create() gives the desktop (free()d), exposed for its unit tests. */
DWORD sbx_win_desktop_dacl(const struct sbx_win_token *t, ACL **out);

#endif
