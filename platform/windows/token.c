/* SPDX-License-Identifier: MIT */
/*
 * token.c - the restricted token a sandboxed command runs with.
 *
 * CreateRestrictedToken(DISABLE_MAX_PRIVILEGE | LUA_TOKEN | WRITE_RESTRICTED) from sbxrun's own
 * token, with the restricting SIDs (Codex's order): this run's capability SID, the logon SID,
 * Everyone. With WRITE_RESTRICTED every write is checked twice: against the user's groups as
 * usual, and against the restricting SIDs; both must grant it. Reads are the user's own.
 *
 * The capability SID is S-1-5-21 followed by 128 random bits, drawn for this run and never
 * stored: no other token will ever carry it, so an ACE naming it that a crash leaves behind
 * grants or denies nobody anything.
 */
#include <aclapi.h>
#include <bcrypt.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "windows/backend.h"

static int make_capability_sid(PSID *out, struct sbx_diag *d)
{
	SID_IDENTIFIER_AUTHORITY nt = {SECURITY_NT_AUTHORITY};
	DWORD r[4];
	NTSTATUS st = BCryptGenRandom(NULL, (PUCHAR)r, sizeof(r), BCRYPT_USE_SYSTEM_PREFERRED_RNG);

	if (st != 0)
		return sbx_diag_set(d, -EIO, "cannot draw a random capability SID (status 0x%08lx)",
				    (unsigned long)st);
	/* S-1-5-21-a-b-c-d: the shape of a domain SID, as Codex's capability SIDs. */
	if (!AllocateAndInitializeSid(&nt, 5, SECURITY_NT_NON_UNIQUE, r[0], r[1], r[2], r[3], 0, 0,
				      0, out))
		return sbx_win_fail(d, -ENOMEM, GetLastError(), "cannot build the capability SID");
	return 0;
}

static PSID copy_sid(PSID sid)
{
	DWORD n = GetLengthSid(sid);
	PSID c = LocalAlloc(LPTR, n);

	if (c && !CopySid(n, c, sid)) {
		LocalFree(c);
		c = NULL;
	}
	return c;
}

/* A LocalAlloc'd copy of the logon SID (S-1-5-5-x-y) among the token's groups, or NULL. */
static PSID find_logon_sid(HANDLE token)
{
	DWORD len = 0;
	TOKEN_GROUPS *groups;
	PSID found = NULL;

	GetTokenInformation(token, TokenGroups, NULL, 0, &len);
	if (!len)
		return NULL;
	groups = malloc(len);
	if (!groups)
		return NULL;
	if (GetTokenInformation(token, TokenGroups, groups, len, &len)) {
		for (DWORD i = 0; i < groups->GroupCount; i++) {
			if ((groups->Groups[i].Attributes & SE_GROUP_LOGON_ID) ==
			    SE_GROUP_LOGON_ID) {
				found = copy_sid(groups->Groups[i].Sid);
				break;
			}
		}
	}
	free(groups);
	return found;
}

static PSID find_user_sid(HANDLE token)
{
	union {
		TOKEN_USER tu;
		BYTE buf[SECURITY_MAX_SID_SIZE + sizeof(TOKEN_USER)];
	} user;
	DWORD len = sizeof(user);

	if (!GetTokenInformation(token, TokenUser, &user, sizeof(user), &len))
		return NULL;
	return copy_sid(user.tu.User.Sid);
}

/*
 * The default DACL of objects the command creates outside inheriting directories (its process,
 * threads, pipes): the user for the normal check, the logon and capability SIDs for the
 * restricted one. Without it the command could not even open its own handles for writing.
 */
static int set_default_dacl(const struct sbx_win_token *t, struct sbx_diag *d)
{
	TOKEN_DEFAULT_DACL tdd;
	PSID sids[3];
	size_t n = 0;
	ACL *acl;
	DWORD err;

	sids[n++] = t->user_sid;
	if (t->logon_sid)
		sids[n++] = t->logon_sid;
	sids[n++] = t->cap_sid;
	err = sbx_win_allow_acl(sids, n, GENERIC_ALL, &acl);
	if (err != ERROR_SUCCESS)
		return sbx_win_fail(d, err == ERROR_NOT_ENOUGH_MEMORY ? -ENOMEM : -EIO, err,
				    "cannot build the default DACL");
	tdd.DefaultDacl = acl;
	err = SetTokenInformation(t->token, TokenDefaultDacl, &tdd, sizeof(tdd)) ? 0
										 : GetLastError();
	free(acl);
	if (err)
		return sbx_win_fail(d, -EIO, err, "cannot set the token's default DACL");
	return 0;
}

int sbx_win_token_make(struct sbx_win_token *t, struct sbx_diag *d)
{
	SID_IDENTIFIER_AUTHORITY world = {SECURITY_WORLD_SID_AUTHORITY};
	HANDLE base = NULL;
	PSID everyone = NULL;
	SID_AND_ATTRIBUTES restrict_sids[3];
	DWORD n = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY |
				      TOKEN_ADJUST_DEFAULT | TOKEN_ADJUST_SESSIONID |
				      TOKEN_ADJUST_PRIVILEGES,
			      &base))
		return sbx_win_fail(d, -EIO, GetLastError(), "cannot open sbxrun's own token");
	ret = make_capability_sid(&t->cap_sid, d);
	if (ret < 0)
		goto out;
	t->user_sid = find_user_sid(base);
	if (!t->user_sid) {
		ret = sbx_win_fail(d, -EIO, GetLastError(), "cannot read the token's user");
		goto out;
	}
	if (!AllocateAndInitializeSid(&world, 1, SECURITY_WORLD_RID, 0, 0, 0, 0, 0, 0, 0,
				      &everyone)) {
		ret = sbx_win_fail(d, -ENOMEM, GetLastError(), "cannot build the Everyone SID");
		goto out;
	}
	/*
	 * The logon SID is what the window station grants the session. A token without one (a
	 * service, some Wine prefixes) just has one restricting SID less, which can only refuse
	 * more writes.
	 */
	t->logon_sid = find_logon_sid(base);

	restrict_sids[n++] = (SID_AND_ATTRIBUTES){t->cap_sid, 0};
	if (t->logon_sid)
		restrict_sids[n++] = (SID_AND_ATTRIBUTES){t->logon_sid, 0};
	restrict_sids[n++] = (SID_AND_ATTRIBUTES){everyone, 0};

	if (!CreateRestrictedToken(base, DISABLE_MAX_PRIVILEGE | LUA_TOKEN | WRITE_RESTRICTED, 0,
				   NULL, 0, NULL, n, restrict_sids, &t->token)) {
		ret = sbx_win_fail(d, -EIO, GetLastError(), "cannot create the restricted token");
		t->token = NULL;
		goto out;
	}
	ret = set_default_dacl(t, d);
out:
	if (everyone)
		FreeSid(everyone);
	CloseHandle(base);
	if (ret < 0)
		sbx_win_token_free(t);
	return ret;
}

void sbx_win_token_free(struct sbx_win_token *t)
{
	if (t->token)
		CloseHandle(t->token);
	if (t->cap_sid)
		FreeSid(t->cap_sid);
	if (t->logon_sid)
		LocalFree(t->logon_sid);
	if (t->user_sid)
		LocalFree(t->user_sid);
	memset(t, 0, sizeof(*t));
}
