/* SPDX-License-Identifier: MIT */
/*
 * acl.c - the ACEs that confine a run's writes, safe against other runs at the same time.
 *
 * For each writable root: an inheritable allow ACE for the run's capability SID. For each
 * read-only carve-out inside one: an inheritable deny ACE, after the allows, so that it sits
 * below the inherited allow. A missing carve-out (a protected name such as .codex) is first
 * created as an empty directory, a "sentinel": otherwise the command could create it under its
 * writable parent, and it would inherit the parent's allow.
 *
 * Several runs at once, in one workspace or not (agents do this), each with its own SID and so
 * its own ACEs. Three rules keep one run from undoing what another relies on:
 *   1. every change is a read-modify-write of a DACL, made while holding one mutex shared by the
 *      runs of the logon session (Local\sbxrun-acl): no run writes back a DACL it read before
 *      another run's change, which would drop that change;
 *   2. each carve-out is held open for the whole run without FILE_SHARE_DELETE: while a run
 *      relies on it, nobody can delete or rename it, neither another run's cleanup nor another
 *      run's command (which may have write access on the same parent);
 *   3. at cleanup a run removes only the explicit ACEs that name its own SID, and removes a
 *      sentinel only if it created it, no explicit ACE is on it that was not there when it was
 *      created (another run's deny, or the user's), and the removal succeeds (the directory is
 *      empty and nobody holds it open).
 * A sentinel that another run still used when its creator finished stays behind, empty, as do
 * the ACEs of a run that could not take the lock at cleanup: an empty directory grants nothing,
 * and an ACE for a SID no token will ever carry again allows or denies nobody anything.
 *
 * Every object is opened once, without following a link at its end, checked to be what its name
 * says (not a link or junction, and its final path, with every link, junction and substituted
 * or mapped drive on the way resolved, equal to the planned path with its 8.3 names expanded),
 * and changed and restored through that handle: a junction an earlier run planted cannot move an ACE somewhere else.
 */
#include <aclapi.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "windows/backend.h"
#include "winpath.h"

/* Write rights granted on writable roots (as Codex's). No FILE_DELETE_CHILD: a child that denies
 * DELETE (a carve-out) cannot be removed through its parent. */
#define SBX_ALLOW_MASK (FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE | DELETE)
/*
 * Every right that changes an object or its children; no READ_CONTROL or SYNCHRONIZE (which
 * FILE_GENERIC_WRITE carries) so that the deny cannot get in the way of reading.
 */
#define SBX_DENY_MASK                                                                              \
	(FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES | DELETE |     \
	 FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER)

#define ACL_LOCK_NAME L"Local\\sbxrun-acl"
/* Long enough for any other run's changes (a deep tree re-inherits for seconds); a run that
 * holds it longer is refused rather than waited for. */
#define ACL_LOCK_WAIT_MS 30000

/* ---- the cross-run lock ------------------------------------------------------------------- */

static int lock(struct sbx_win_acls *a, struct sbx_diag *d)
{
	HANDLE m = CreateMutexW(NULL, FALSE, ACL_LOCK_NAME);
	DWORD w, err;

	if (!m)
		return sbx_win_fail(d, -EIO, GetLastError(),
				    "cannot open the ACL lock shared by sbxrun runs");
	w = WaitForSingleObject(m, ACL_LOCK_WAIT_MS);
	/* WAIT_ABANDONED: a run died between two DACL writes; each write is whole, and this run
	 * reads every DACL afresh, so the lock is simply taken over. */
	if (w == WAIT_OBJECT_0 || w == WAIT_ABANDONED) {
		a->lock = m;
		return 0;
	}
	err = GetLastError();
	CloseHandle(m);
	if (w == WAIT_TIMEOUT) {
		sbx_diag_set(d, -EBUSY,
			     "another sbxrun run has been changing file ACLs for %d seconds: not "
			     "waiting longer",
			     ACL_LOCK_WAIT_MS / 1000);
		return sbx_diag_hint(d, -EBUSY, "retry when the other runs have started");
	}
	return sbx_win_fail(d, -EIO, err, "cannot take the ACL lock shared by sbxrun runs");
}

static void unlock(struct sbx_win_acls *a)
{
	if (a->lock) {
		ReleaseMutex(a->lock);
		CloseHandle(a->lock);
		a->lock = NULL;
	}
}

/* ---- DACL edits through a handle ----------------------------------------------------------- */

/* DACL_SECURITY_INFORMATION plus the flag that keeps the object's inheritance setting as is. */
static SECURITY_INFORMATION dacl_info(PSECURITY_DESCRIPTOR sd)
{
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	DWORD rev;

	if (GetSecurityDescriptorControl(sd, &ctl, &rev) && (ctl & SE_DACL_PROTECTED))
		return DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION;
	return DACL_SECURITY_INFORMATION | UNPROTECTED_DACL_SECURITY_INFORMATION;
}

/* Adds one inheritable ACE for sid. SetEntriesInAcl keeps the canonical order (explicit denies
 * before explicit allows); SetSecurityInfo propagates it to existing children. */
static DWORD add_ace(HANDLE h, PSID sid, ACCESS_MODE mode, DWORD mask)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	ACL *old_dacl = NULL, *new_dacl = NULL;
	EXPLICIT_ACCESSW ea;
	DWORD err;

	err = GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &old_dacl,
			      NULL, &sd);
	if (err != ERROR_SUCCESS)
		return err;
	memset(&ea, 0, sizeof(ea));
	ea.grfAccessPermissions = mask;
	ea.grfAccessMode = mode;
	ea.grfInheritance = SUB_CONTAINERS_AND_OBJECTS_INHERIT;
	ea.Trustee.TrusteeForm = TRUSTEE_IS_SID;
	ea.Trustee.TrusteeType = TRUSTEE_IS_UNKNOWN;
	ea.Trustee.ptstrName = (LPWSTR)sid;
	err = SetEntriesInAclW(1, &ea, old_dacl, &new_dacl);
	if (err == ERROR_SUCCESS)
		err = SetSecurityInfo(h, SE_FILE_OBJECT, dacl_info(sd), NULL, NULL, new_dacl, NULL);
	if (new_dacl)
		LocalFree(new_dacl);
	LocalFree(sd);
	return err;
}

DWORD sbx_win_acl_without(const ACL *dacl, PSID sid, ACL **out, bool *found)
{
	ACL_SIZE_INFORMATION info;
	ACL *kept;

	*out = NULL;
	*found = false;
	if (!dacl)
		return ERROR_SUCCESS;
	if (!GetAclInformation((ACL *)dacl, &info, sizeof(info), AclSizeInformation))
		return GetLastError();
	kept = malloc(info.AclBytesInUse);
	if (!kept)
		return ERROR_NOT_ENOUGH_MEMORY;
	if (!InitializeAcl(kept, info.AclBytesInUse, ACL_REVISION))
		goto fail;
	for (DWORD i = 0; i < info.AceCount; i++) {
		ACE_HEADER *h;
		PSID ace_sid = NULL;

		if (!GetAce((ACL *)dacl, i, (void **)&h))
			goto fail;
		if (h->AceType == ACCESS_ALLOWED_ACE_TYPE)
			ace_sid = &((ACCESS_ALLOWED_ACE *)h)->SidStart;
		else if (h->AceType == ACCESS_DENIED_ACE_TYPE)
			ace_sid = &((ACCESS_DENIED_ACE *)h)->SidStart;
		if (ace_sid && !(h->AceFlags & INHERITED_ACE) && EqualSid(ace_sid, sid)) {
			*found = true;
			continue;
		}
		if (!AddAce(kept, ACL_REVISION, MAXDWORD, h, h->AceSize))
			goto fail;
	}
	*out = kept;
	return ERROR_SUCCESS;
fail:
	free(kept);
	return GetLastError();
}

/* Whether acl holds an explicit ACE byte for byte equal to ace. */
static bool has_explicit(const ACL *acl, const ACE_HEADER *ace)
{
	ACL_SIZE_INFORMATION info;

	if (!acl || !GetAclInformation((ACL *)acl, &info, sizeof(info), AclSizeInformation))
		return false;
	for (DWORD i = 0; i < info.AceCount; i++) {
		ACE_HEADER *h;

		if (GetAce((ACL *)acl, i, (void **)&h) && !(h->AceFlags & INHERITED_ACE) &&
		    h->AceSize == ace->AceSize && memcmp(h, ace, ace->AceSize) == 0)
			return true;
	}
	return false;
}

bool sbx_win_sentinel_removable(const ACL *now, const ACL *at_creation, bool created_by_this_run)
{
	ACL_SIZE_INFORMATION info;

	if (!created_by_this_run)
		return false;
	if (!now)
		return true;
	if (!GetAclInformation((ACL *)now, &info, sizeof(info), AclSizeInformation))
		return false;
	for (DWORD i = 0; i < info.AceCount; i++) {
		ACE_HEADER *h;

		if (!GetAce((ACL *)now, i, (void **)&h))
			return false;
		if (!(h->AceFlags & INHERITED_ACE) && !has_explicit(at_creation, h))
			return false;
	}
	return true;
}

/* A malloc'd copy of the object's DACL (NULL for none). */
static DWORD copy_dacl(HANDLE h, ACL **out)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	ACL *dacl = NULL;
	DWORD err;

	*out = NULL;
	err = GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl, NULL,
			      &sd);
	if (err != ERROR_SUCCESS)
		return err;
	if (dacl) {
		*out = malloc(dacl->AclSize);
		if (*out)
			memcpy(*out, dacl, dacl->AclSize);
		else
			err = ERROR_NOT_ENOUGH_MEMORY;
	}
	LocalFree(sd);
	return err;
}

/* Removes every explicit ACE that names sid; setting the DACL re-propagates inheritance, which
 * removes the inherited copies below. */
static DWORD remove_aces(HANDLE h, PSID sid)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	ACL *dacl = NULL, *kept = NULL;
	bool found;
	DWORD err;

	err = GetSecurityInfo(h, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &dacl, NULL,
			      &sd);
	if (err != ERROR_SUCCESS)
		return err;
	err = sbx_win_acl_without(dacl, sid, &kept, &found);
	if (err == ERROR_SUCCESS && found)
		err = SetSecurityInfo(h, SE_FILE_OBJECT, dacl_info(sd), NULL, NULL, kept, NULL);
	free(kept);
	LocalFree(sd);
	return err;
}

/* Whether the directory this run created may go: no explicit ACE it did not have then. */
static bool may_remove(const struct sbx_win_acl_change *c)
{
	ACL *now = NULL;
	bool ok;

	if (!c->created_dir || copy_dacl(c->handle, &now) != ERROR_SUCCESS)
		return false;
	ok = sbx_win_sentinel_removable(now, c->created_dacl, true);
	free(now);
	return ok;
}

/* ---- opening each object once --------------------------------------------------------------- */

/*
 * Whether final_w (a final path, \\?\ form) is the planned path; *where gets it readably
 * (malloc'd). The planned path's 8.3 names are expanded first (a working directory under
 * %TEMP% often holds one, "RUNNER~1"), since the final path never has them; links, junctions
 * and substituted or mapped drives on the way still make the two differ.
 */
static bool same_path(const char *planned, const wchar_t *final_w, char **where)
{
	char *final = sbx_win_utf8(final_w), *canon = NULL;
	wchar_t *a = sbx_win_wide(planned), *b = NULL, longname[32768];
	DWORD n;
	bool same = false;

	if (a) {
		n = GetLongPathNameW(a, longname, sizeof(longname) / sizeof(longname[0]));
		if (n > 0 && n < sizeof(longname) / sizeof(longname[0])) {
			free(a);
			a = _wcsdup(longname);
		}
	}
	if (a && final && sbx_win_path_normalize(final, &canon, NULL) == 0) {
		b = sbx_win_wide(canon);
		/* NTFS compares names by upper-casing them: so does CompareStringOrdinal. */
		same = b && CompareStringOrdinal(a, -1, b, -1, TRUE) == CSTR_EQUAL;
	}
	*where = canon ? canon : final;
	if (canon)
		free(final);
	free(a);
	free(b);
	return same;
}

/*
 * Opens path (canonical) for the run. Returns 0 with *h, 1 when it does not exist, or an error
 * with d filled: the object is a link or junction, or leads somewhere else.
 */
static int open_checked(const char *path, const wchar_t *w, DWORD share, HANDLE *h,
			struct sbx_diag *d)
{
	BY_HANDLE_FILE_INFORMATION info;
	wchar_t final[32768];
	char *where;
	DWORD err, n;

	*h = CreateFileW(w, READ_CONTROL | WRITE_DAC | FILE_READ_DATA | FILE_READ_ATTRIBUTES, share,
			 NULL, OPEN_EXISTING,
			 FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	if (*h == INVALID_HANDLE_VALUE) {
		*h = NULL;
		err = GetLastError();
		if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
			return 1;
		sbx_win_fail(d, -EIO, err, "cannot open a path whose ACL the sandbox changes");
		return sbx_diag_hint(d, -EIO, "check %s", path);
	}
	if (!GetFileInformationByHandle(*h, &info)) {
		err = GetLastError();
		goto fail;
	}
	if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) {
		CloseHandle(*h);
		*h = NULL;
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "%s is a symbolic link or junction: sbxrun changes the ACL of the "
			     "directory itself, never of what a link leads to",
			     path);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE, "name the directory it leads to");
	}
	n = GetFinalPathNameByHandleW(*h, final, sizeof(final) / sizeof(final[0]),
				      FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	if (n == 0 || n >= sizeof(final) / sizeof(final[0])) {
		err = n ? ERROR_BUFFER_OVERFLOW : GetLastError();
		goto fail;
	}
	where = NULL;
	if (!same_path(path, final, &where)) {
		CloseHandle(*h);
		*h = NULL;
		sbx_diag_set(
			d, SBX_E_UNENFORCEABLE,
			"%s leads to %s (a link, a junction, or a substituted or mapped drive on "
			"the way): sbxrun changes ACLs only where the plan says",
			path, where ? where : "another place");
		free(where);
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "name the real directory in the profile");
	}
	free(where);
	return 0;
fail:
	CloseHandle(*h);
	*h = NULL;
	sbx_win_fail(d, -EIO, err, "cannot check where a path leads");
	return sbx_diag_hint(d, -EIO, "check %s", path);
}

static int record(struct sbx_win_acls *a, const wchar_t *w, HANDLE h, bool created)
{
	ACL *snapshot = NULL;

	struct sbx_win_acl_change *c;

	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 16;
		struct sbx_win_acl_change *grown = realloc(a->v, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		a->v = grown;
		a->cap = cap;
	}
	/* What a directory this run created looks like before anyone's ACE is on it. */
	if (created && copy_dacl(h, &snapshot) != ERROR_SUCCESS)
		created = false; /* unknown: kept at cleanup, which is the safe side */
	c = &a->v[a->n];
	c->path = _wcsdup(w);
	if (!c->path) {
		free(snapshot);
		return -ENOMEM;
	}
	c->handle = h;
	c->created_dir = created;
	c->created_dacl = snapshot;
	a->n++;
	return 0;
}

/* ---- grants and denies --------------------------------------------------------------------- */

/* Canonical path and its UTF-16 form, or an error that names it. */
static int canonical(const char *path, char **canon, wchar_t **w, struct sbx_diag *d)
{
	const char *why = NULL;
	int r = sbx_win_path_normalize(path, canon, &why);

	*w = NULL;
	if (r == -ENOMEM)
		return sbx_diag_set(d, r, "out of memory");
	if (r)
		return sbx_diag_set(d, SBX_E_UNENFORCEABLE, "%s: not a usable Windows path: %s",
				    path, why);
	*w = sbx_win_wide(*canon);
	if (!*w) {
		free(*canon);
		*canon = NULL;
		return sbx_diag_set(d, SBX_E_USAGE, "%s: not valid UTF-8", path);
	}
	return 0;
}

/*
 * Records the object h (opened for path w, created by this run or not) for the cleanup, then
 * puts this run's allow (GRANT_ACCESS) or deny ACE on it.
 */
static int record_and_change(struct sbx_win_acls *a, const wchar_t *w, HANDLE h, bool created,
			     ACCESS_MODE mode, const char *canon, struct sbx_diag *d)
{
	int ret = record(a, w, h, created);
	DWORD err;

	if (ret < 0) {
		CloseHandle(h);
		if (created)
			RemoveDirectoryW(w);
		return sbx_diag_set(d, ret, "out of memory");
	}
	err = add_ace(h, a->sid, mode, mode == GRANT_ACCESS ? SBX_ALLOW_MASK : SBX_DENY_MASK);
	if (err != ERROR_SUCCESS) {
		sbx_win_fail(d, -EIO, err,
			     mode == GRANT_ACCESS ? "cannot grant write on a writable root"
						  : "cannot deny write on a read-only path");
		return sbx_diag_hint(d, -EIO, "check that you may change the permissions of %s",
				     canon);
	}
	return 0;
}

/* Grants write on a root. Returns 1 when the root does not exist: nothing is granted there,
 * which refuses more, never less. */
static int grant_write(struct sbx_win_acls *a, const char *path, struct sbx_diag *d)
{
	char *canon;
	wchar_t *w;
	HANDLE h;
	int ret = canonical(path, &canon, &w, d);

	if (ret)
		return ret;
	/* Not held against deletion: the workspace itself stays the user's to rename. */
	ret = open_checked(canon, w, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, &h, d);
	if (ret == 0)
		ret = record_and_change(a, w, h, false, GRANT_ACCESS, canon, d);
	free(canon);
	free(w);
	return ret;
}

/*
 * Denies write on a carve-out, holding it open without FILE_SHARE_DELETE until the run ends. A
 * missing one is created empty first. Between creating and opening it another run's cleanup
 * may remove it: it is then created again, a few times at most.
 */
static int deny_write(struct sbx_win_acls *a, const char *path, struct sbx_diag *d)
{
	char *canon;
	wchar_t *w;
	HANDLE h = NULL;
	bool created = false;
	DWORD err;
	int ret = canonical(path, &canon, &w, d);

	for (int tries = 0; ret == 0; tries++) {
		ret = open_checked(canon, w, FILE_SHARE_READ | FILE_SHARE_WRITE, &h, d);
		if (ret != 1 || tries == 3)
			break;
		ret = 0;
		created = CreateDirectoryW(w, NULL);
		if (!created && (err = GetLastError()) != ERROR_ALREADY_EXISTS) {
			sbx_win_fail(d, -EIO, err,
				     "cannot create the directory that protects a read-only path");
			ret = sbx_diag_hint(d, -EIO, "create %s, or make its parent exist", canon);
		}
	}
	if (ret == 1)
		ret = sbx_diag_set(d, -EIO, "%s keeps disappearing while sbxrun protects it",
				   canon);
	if (ret == 0)
		ret = record_and_change(a, w, h, created, DENY_ACCESS, canon, d);
	free(canon);
	free(w);
	return ret;
}

static int apply_locked(struct sbx_win_acls *a, const struct sbx_plan *p, struct sbx_diag *d)
{
	const struct sbx_roots *r = &p->roots;
	bool *granted = calloc(r->n_writable ? r->n_writable : 1, sizeof(*granted));
	int ret = 0;

	if (!granted)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	for (size_t i = 0; i < r->n_writable && ret == 0; i++) {
		ret = grant_write(a, r->writable[i].root, d);
		granted[i] = ret == 0;
		if (ret == 1)
			ret = 0;
	}
	/* After every grant: a carve-out's own deny ACE then sits below the inherited allow. */
	for (size_t i = 0; i < r->n_writable && ret == 0; i++) {
		const struct sbx_writable_root *w = &r->writable[i];

		if (!granted[i])
			continue; /* nothing was granted there, so nothing needs carving out */
		for (size_t j = 0; j < w->n_read_only && ret == 0; j++)
			ret = deny_write(a, w->read_only[j], d);
		for (size_t j = 0; j < w->n_protected_missing && ret == 0; j++) {
			size_t n = strlen(w->root) + strlen(w->protected_missing[j]) + 2;
			char *sub = malloc(n);

			if (!sub) {
				ret = sbx_diag_set(d, -ENOMEM, "out of memory");
				break;
			}
			snprintf(sub, n, "%s\\%s", w->root, w->protected_missing[j]);
			ret = deny_write(a, sub, d);
			free(sub);
		}
	}
	free(granted);
	return ret;
}

int sbx_win_acls_apply(struct sbx_win_acls *a, const struct sbx_plan *p, PSID sid,
		       struct sbx_diag *d)
{
	int ret;

	a->sid = sid;
	if (p->roots.n_writable == 0)
		return 0;
	ret = lock(a, d);
	if (ret)
		return ret;
	ret = apply_locked(a, p, d);
	unlock(a);
	return ret;
}

void sbx_win_acls_undo(struct sbx_win_acls *a)
{
	struct sbx_diag ignored;
	bool locked;

	sbx_diag_clear(&ignored);
	locked = a->n > 0 && lock(a, &ignored) == 0;

	/* Newest first: carve-outs (made after their roots) before the roots. */
	for (size_t i = a->n; i-- > 0;) {
		struct sbx_win_acl_change *c = &a->v[i];
		bool removable = false;

		if (locked) {
			remove_aces(c->handle, a->sid);
			removable = may_remove(c);
		}
		CloseHandle(c->handle);
		/* Fails, and so keeps it, when it is not empty or another run holds it open. */
		if (removable)
			RemoveDirectoryW(c->path);
		free(c->path);
		free(c->created_dacl);
	}
	unlock(a);
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}
