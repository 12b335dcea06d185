/* SPDX-License-Identifier: MIT */
/*
 * The Windows backend's own decisions, which need the Windows API: run in the Windows unit-test
 * binary under Wine (tests/windows/run). Wine builds and reads ACLs as Windows does; it does not
 * enforce them, which these tests do not need.
 */
#include "windows/backend.h"

#include <stdlib.h>
#include <string.h>

#include "../unit/t.h"

/* S-1-5-21-n-n-n-n: a capability SID as token.c makes them, with a chosen number. */
static PSID sid_n(DWORD n)
{
	SID_IDENTIFIER_AUTHORITY nt = {SECURITY_NT_AUTHORITY};
	PSID s = NULL;

	AllocateAndInitializeSid(&nt, 5, SECURITY_NT_NON_UNIQUE, n, n, n, n, 0, 0, 0, &s);
	return s;
}

/* An ACL of (sid, deny?, inherited?) entries, in order. */
struct ace_spec {
	PSID sid;
	bool deny, inherited;
};

static ACL *mk_acl(const struct ace_spec *v, size_t n)
{
	DWORD len = sizeof(ACL);
	ACL *acl;

	for (size_t i = 0; i < n; i++)
		len += sizeof(ACCESS_DENIED_ACE) + GetLengthSid(v[i].sid);
	acl = malloc(len);
	if (!acl || !InitializeAcl(acl, len, ACL_REVISION))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		DWORD fl = v[i].inherited ? INHERITED_ACE : 0;
		BOOL ok = v[i].deny ? AddAccessDeniedAceEx(acl, ACL_REVISION, fl, FILE_WRITE_DATA,
							   v[i].sid)
				    : AddAccessAllowedAceEx(acl, ACL_REVISION, fl, FILE_WRITE_DATA,
							    v[i].sid);
		if (!ok) {
			free(acl);
			return NULL;
		}
	}
	return acl;
}

static DWORD ace_count(const ACL *acl)
{
	ACL_SIZE_INFORMATION info;

	if (!acl || !GetAclInformation((ACL *)acl, &info, sizeof(info), AclSizeInformation))
		return (DWORD)-1;
	return info.AceCount;
}

static PSID ace_sid(const ACL *acl, DWORD i, BYTE *type, BYTE *flags, DWORD *mask)
{
	ACE_HEADER *h;

	*type = *flags = 0;
	*mask = 0;
	if (!GetAce((ACL *)acl, i, (void **)&h))
		return NULL;
	*type = h->AceType;
	*flags = h->AceFlags;
	*mask = ((ACCESS_ALLOWED_ACE *)h)->Mask;
	return &((ACCESS_ALLOWED_ACE *)h)->SidStart;
}

/* A run's cleanup takes out its own explicit ACEs and nothing else. */
TEST(win_acl_without_own_only)
{
	PSID a = sid_n(1), b = sid_n(2), user = sid_n(3);
	const struct ace_spec v[] = {
		{a, true, false}, /* run A's deny on the sentinel */
		{b, true, false}, /* run B's deny on the same sentinel */
		{a, false, true}, /* A's allow, inherited from the workspace */
		{b, false, true}, /* B's allow, inherited */
		{user, false, true},
	};
	ACL *acl = mk_acl(v, 5), *kept = NULL;
	bool found = false;
	BYTE type = 0, flags = 0;
	DWORD mask = 0;

	CHECK(acl != NULL);
	CHECK_INT(sbx_win_acl_without(acl, a, &kept, &found), ERROR_SUCCESS);
	CHECK(found);
	CHECK_INT(ace_count(kept), 4);
	/* B's explicit deny is still there, first. */
	CHECK(EqualSid(ace_sid(kept, 0, &type, &flags, &mask), b));
	CHECK_INT(type, ACCESS_DENIED_ACE_TYPE);
	CHECK_INT(flags & INHERITED_ACE, 0);
	/* A's inherited copy stays: re-propagation from the parent removes it, not this edit. */
	CHECK(EqualSid(ace_sid(kept, 1, &type, &flags, &mask), a));
	CHECK(flags & INHERITED_ACE);
	/* The sentinel still has another run's explicit ACE: it stays. */
	CHECK(!sbx_win_sentinel_removable(kept, NULL, true));
	free(kept);

	/* A SID with no explicit ACE: nothing found, nothing changed. */
	CHECK_INT(sbx_win_acl_without(acl, user, &kept, &found), ERROR_SUCCESS);
	CHECK(!found);
	CHECK_INT(ace_count(kept), 5);
	free(kept);

	CHECK_INT(sbx_win_acl_without(NULL, a, &kept, &found), ERROR_SUCCESS);
	CHECK(kept == NULL && !found);
	free(acl);
	FreeSid(a);
	FreeSid(b);
	FreeSid(user);
}

TEST(win_sentinel_removal_decision)
{
	PSID a = sid_n(1), b = sid_n(2), user = sid_n(3);
	/* Two shapes of a new directory: ACEs inherited from its parent, or (a parent with
	 * nothing inheritable) the creator's default DACL, which is explicit. */
	const struct ace_spec inherited[] = {{user, false, true}};
	const struct ace_spec default_dacl[] = {{user, false, false}};
	const struct ace_spec inherited_plus_b[] = {{b, true, false}, {user, false, true}};
	const struct ace_spec default_plus_b[] = {{b, true, false}, {user, false, false}};
	const struct ace_spec inherited_plus_a[] = {{user, false, true}, {a, false, true}};
	ACL *x = mk_acl(inherited, 1), *y = mk_acl(default_dacl, 1);
	ACL *xb = mk_acl(inherited_plus_b, 2), *yb = mk_acl(default_plus_b, 2);
	ACL *xa = mk_acl(inherited_plus_a, 2);

	/* Created by this run and as it was then: it goes. */
	CHECK(sbx_win_sentinel_removable(x, x, true));
	CHECK(sbx_win_sentinel_removable(y, y, true));
	/* Inherited ACEs come and go with the parent's (another run's allow): they do not count. */
	CHECK(sbx_win_sentinel_removable(xa, x, true));
	/* Not created by this run (it existed, or another run made it): it stays. */
	CHECK(!sbx_win_sentinel_removable(x, x, false));
	/* Another run's deny, added after the creation, relies on it: it stays. */
	CHECK(!sbx_win_sentinel_removable(xb, x, true));
	CHECK(!sbx_win_sentinel_removable(yb, y, true));
	/* An explicit ACE the creation did not show (no DACL then): it stays. */
	CHECK(!sbx_win_sentinel_removable(y, NULL, true));
	/* No DACL now: nothing explicit, it goes, if created. */
	CHECK(sbx_win_sentinel_removable(NULL, x, true));
	CHECK(!sbx_win_sentinel_removable(NULL, NULL, false));

	/* Two overlapping runs. A created the sentinel (DACL x), then both added a deny. */
	{
		const struct ace_spec both[] = {
			{a, true, false}, {b, true, false}, {user, false, true}};
		ACL *acl = mk_acl(both, 3), *after = NULL, *after_b = NULL;
		bool found;

		/* A finishes first: B's deny is left, so A keeps the directory. */
		CHECK_INT(sbx_win_acl_without(acl, a, &after, &found), ERROR_SUCCESS);
		CHECK(!sbx_win_sentinel_removable(after, x, true));
		/* Then B finishes: B did not create it, so B keeps it too (an empty leftover). */
		CHECK_INT(sbx_win_acl_without(after, b, &after_b, &found), ERROR_SUCCESS);
		CHECK(!sbx_win_sentinel_removable(after_b, NULL, false));
		free(after);
		free(after_b);
		/* B finishes first: then A, the creator, finds it as created and removes it. */
		CHECK_INT(sbx_win_acl_without(acl, b, &after, &found), ERROR_SUCCESS);
		CHECK_INT(sbx_win_acl_without(after, a, &after_b, &found), ERROR_SUCCESS);
		CHECK(sbx_win_sentinel_removable(after_b, x, true));
		free(after);
		free(after_b);
		free(acl);
	}
	free(x);
	free(y);
	free(xb);
	free(yb);
	free(xa);
	FreeSid(a);
	FreeSid(b);
	FreeSid(user);
}

/* One ACE, for the logon SID, without the rights that reach beyond the desktop itself. */
TEST(win_desktop_dacl)
{
	struct sbx_win_token t = {0};
	ACL *acl = NULL;
	BYTE type = 0, flags = 0;
	DWORD mask = 0;

	t.logon_sid = sid_n(5);
	t.user_sid = sid_n(6);
	t.cap_sid = sid_n(7);
	CHECK_INT(sbx_win_desktop_dacl(&t, &acl), ERROR_SUCCESS);
	CHECK_INT(ace_count(acl), 1);
	CHECK(EqualSid(ace_sid(acl, 0, &type, &flags, &mask), t.logon_sid));
	CHECK_INT(type, ACCESS_ALLOWED_ACE_TYPE);
	CHECK_INT(mask, SBX_WIN_DESKTOP_RIGHTS);
	CHECK(mask & DESKTOP_CREATEWINDOW);
	CHECK(mask & DESKTOP_READOBJECTS);
	CHECK_INT(mask & (DESKTOP_SWITCHDESKTOP | DESKTOP_JOURNALRECORD | DESKTOP_JOURNALPLAYBACK |
			  DELETE | WRITE_DAC | WRITE_OWNER),
		  0);
	free(acl);

	/* No logon SID: the user (normal check) and the capability SID (restricted check). */
	FreeSid(t.logon_sid);
	t.logon_sid = NULL;
	CHECK_INT(sbx_win_desktop_dacl(&t, &acl), ERROR_SUCCESS);
	CHECK_INT(ace_count(acl), 2);
	CHECK(EqualSid(ace_sid(acl, 0, &type, &flags, &mask), t.user_sid));
	CHECK(EqualSid(ace_sid(acl, 1, &type, &flags, &mask), t.cap_sid));
	free(acl);
	FreeSid(t.user_sid);
	FreeSid(t.cap_sid);
}

/* Every limit issue 13 names is in the set the job gets. */
TEST(win_ui_limits)
{
	static const DWORD want[] = {
		JOB_OBJECT_UILIMIT_HANDLES,	   JOB_OBJECT_UILIMIT_READCLIPBOARD,
		JOB_OBJECT_UILIMIT_WRITECLIPBOARD, JOB_OBJECT_UILIMIT_GLOBALATOMS,
		JOB_OBJECT_UILIMIT_DESKTOP,	   JOB_OBJECT_UILIMIT_DISPLAYSETTINGS,
		JOB_OBJECT_UILIMIT_EXITWINDOWS,	   JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS,
	};

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_INT(SBX_WIN_UI_LIMITS & want[i], want[i]);
}
