/* SPDX-License-Identifier: MIT */
/*
 * run.c - the Windows backend: a restricted token, ACLs for the writable roots, a job object.
 *
 * sbx_windows_run() is the whole sequence, top to bottom:
 *
 *   1. refuse a plan with any unenforceable requirement (plan_windows.c decided them);
 *   2. find the program (winpath.c): on PATH only, with PATHEXT, never in sbxrun's directory or
 *      the current directory, which CreateProcess would search first; 127 when not found; if
 *      Windows would run it through cmd.exe (decided on the file found, its trailing dots and
 *      spaces stripped), refuse any argument cmd.exe would re-parse; build the command line by
 *      the CommandLineToArgvW rules (winquote.c), the program named by the path found;
 *   3. make a capability SID for this run: S-1-5-21 followed by 128 random bits;
 *   4. make the token: CreateRestrictedToken(DISABLE_MAX_PRIVILEGE | LUA_TOKEN |
 *      WRITE_RESTRICTED) from our own, restricting SIDs = capability SID, logon SID, Everyone.
 *      With WRITE_RESTRICTED every write is checked twice: against the user's groups as usual,
 *      and against the restricting SIDs; both must grant it. Reads are the user's own;
 *   5. grant the capability SID write on each writable root (inheritable allow ACE) and deny it
 *      write on each read-only carve-out inside them (inheritable deny ACE), recording every
 *      change so that step 10 can undo it;
 *   6. create a job object with KILL_ON_JOB_CLOSE: when sbxrun's last handle to it closes, for
 *      any reason including TerminateProcess, every process in it dies;
 *   7. create the command suspended with CreateProcessAsUserW, the application name given (no
 *      search), so it runs no instruction before it is in the job; assign it; resume it;
 *   8. wait; Ctrl-C, Ctrl-Break and console close terminate the job (console_handler);
 *   9. terminate what is left of the job (background children), close it;
 *  10. undo the ACL changes; return the exit code.
 *
 * What a crash (or TerminateProcess of sbxrun between 5 and 10) leaves behind, and why none of it
 * widens access:
 *   - allow ACEs for the capability SID. The SID is random per run (128 bits) and never stored:
 *     no token other than the one made in step 4 will ever carry it, and that token's processes
 *     die with the job. An allow ACE for a SID nobody holds grants nothing;
 *   - deny ACEs for the same SID: deny nobody anything, and could only narrow;
 *   - inherited copies of both on files below the roots: the same two cases;
 *   - empty directories created to carry a deny ACE (a missing protected name such as .codex):
 *     an empty directory grants no access; normal users can remove it.
 * The processes themselves do not outlive sbxrun: the job is killed when its handle closes.
 *
 * Wine runs all of this but enforces neither restricted tokens nor ACLs, so the tests in
 * tests/windows/ check spawning, waiting, exit codes, quoting, program lookup, batch files and
 * the job; confinement itself has to be checked on Windows.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <aclapi.h>
#include <bcrypt.h>
#include <sddl.h>
#include <shellapi.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "windows/windows.h"
#include "winpath.h"

/* CreateProcess refuses longer command lines (32767 characters including the NUL). */
#define SBX_WIN_MAX_CMDLINE 32767

/* Write rights granted on writable roots (spec 6.3), and denied on read-only carve-outs. */
#define SBX_ALLOW_MASK (FILE_GENERIC_READ | FILE_GENERIC_WRITE | FILE_GENERIC_EXECUTE | DELETE)
/*
 * Every right that changes an object or its children; no READ_CONTROL or SYNCHRONIZE (which
 * FILE_GENERIC_WRITE carries) so that the deny cannot get in the way of reading.
 */
#define SBX_DENY_MASK                                                                              \
	(FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES | DELETE |     \
	 FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER)

/* One ACL change, to undo. */
struct acl_change {
	wchar_t *path;
	bool created_dir; /* sbxrun created it empty to carry the deny ACE */
};

struct run_state {
	HANDLE token; /* restricted token; NULL when no sandbox is requested */
	PSID cap_sid; /* LocalAlloc'd by AllocateAndInitializeSid: FreeSid */
	struct acl_change *changes;
	size_t n_changes, cap_changes;
	HANDLE process, thread;
};

/* ---- the job, shared with the console control handler ------------------------------------ */

static CRITICAL_SECTION job_lock;
static HANDLE job_handle;   /* guarded by job_lock */
static HANDLE cleanup_done; /* manual-reset event: set once ACLs are undone */

static BOOL WINAPI console_handler(DWORD type)
{
	switch (type) {
	case CTRL_C_EVENT:
	case CTRL_BREAK_EVENT:
	case CTRL_CLOSE_EVENT:
	case CTRL_LOGOFF_EVENT:
	case CTRL_SHUTDOWN_EVENT:
		EnterCriticalSection(&job_lock);
		if (job_handle)
			TerminateJobObject(job_handle, (UINT)STATUS_CONTROL_C_EXIT);
		LeaveCriticalSection(&job_lock);
		/*
		 * For close/logoff/shutdown the process is ended when this returns: give the
		 * main thread (woken by the job's death) time to undo the ACL changes.
		 */
		if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT && cleanup_done)
			WaitForSingleObject(cleanup_done, 4000);
		return TRUE; /* sbxrun itself stays to clean up and report the exit code */
	}
	return FALSE;
}

static BOOL CALLBACK init_console_handler(PINIT_ONCE once, PVOID param, PVOID *ctx)
{
	InitializeCriticalSection(&job_lock);
	cleanup_done = CreateEventW(NULL, TRUE, FALSE, NULL);
	SetConsoleCtrlHandler(console_handler, TRUE);
	return TRUE;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static int win_fail(struct sbx_diag *d, int code, DWORD err, const char *what)
{
	char msg[256] = "";
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
				 err, 0, msg, sizeof(msg), NULL);

	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == '.'))
		msg[--n] = '\0';
	return sbx_diag_set(d, code, "%s: %s (error %lu)", what, n ? msg : "unknown error",
			    (unsigned long)err);
}

static wchar_t *to_wide(const char *s)
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

static char *to_utf8(const wchar_t *w)
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

int sbx_windows_utf8_argv(int *argc, char ***argv)
{
	int n = 0;
	wchar_t **wargv = CommandLineToArgvW(GetCommandLineW(), &n);
	char **out;

	if (!wargv)
		return -ENOMEM;
	out = calloc((size_t)n + 1, sizeof(*out));
	if (!out) {
		LocalFree(wargv);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		out[i] = to_utf8(wargv[i]);
		if (!out[i]) {
			LocalFree(wargv);
			return -EILSEQ; /* the strings stay allocated until exit, like argv */
		}
	}
	LocalFree(wargv);
	*argc = n;
	*argv = out;
	return 0;
}

/* A variable of sbxrun's environment in UTF-8 (malloc'd), or NULL when unset. */
static char *env_utf8(const wchar_t *name)
{
	DWORD n = GetEnvironmentVariableW(name, NULL, 0);
	wchar_t *w;
	char *s = NULL;

	if (n == 0)
		return NULL;
	w = malloc((size_t)n * sizeof(*w));
	if (w && GetEnvironmentVariableW(name, w, n) == n - 1)
		s = to_utf8(w);
	free(w);
	return s;
}

/* ---- step 2: the program and its arguments ------------------------------------------- */

static bool is_file(const char *path, void *arg)
{
	wchar_t *w = to_wide(path);
	DWORD a = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;

	(void)arg;
	free(w);
	return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

static int find_program(const char *prog, const char *cwd, char **out, struct sbx_diag *d)
{
	char *path = env_utf8(L"PATH"), *pathext = env_utf8(L"PATHEXT"), *here = NULL;
	int r;

	if (!cwd) {
		wchar_t w[32768];
		DWORD n = GetCurrentDirectoryW(sizeof(w) / sizeof(w[0]), w);

		if (n > 0 && n < sizeof(w) / sizeof(w[0]))
			here = to_utf8(w);
		cwd = here;
	}
	r = sbx_win_resolve_program(prog, cwd, path, pathext, is_file, NULL, out, d);
	free(path);
	free(pathext);
	free(here);
	return r;
}

/*
 * The same decision on the file's long name: a short 8.3 alias can carry another extension
 * ("T~1.BAT" for "t.batch"), and either name may be the one CreateProcess looks at.
 */
static bool runs_through_cmd(const char *resolved)
{
	wchar_t *w = to_wide(resolved), longname[32768];
	char *l = NULL;
	bool batch = sbx_win_is_batch_file(resolved);
	DWORD n;

	if (!batch && w) {
		n = GetLongPathNameW(w, longname, sizeof(longname) / sizeof(longname[0]));
		if (n > 0 && n < sizeof(longname) / sizeof(longname[0]))
			l = to_utf8(longname);
		batch = l && sbx_win_is_batch_file(l);
	}
	free(w);
	free(l);
	return batch;
}

/*
 * cmd.exe runs a batch file, and re-parses its command line with its own rules (%, ^, &, and !
 * with delayed expansion), even inside quotes for % and !: refuse what it would re-parse.
 */
static int check_batch(const char *resolved, char *const cmd[], struct sbx_diag *d)
{
	if (!runs_through_cmd(resolved))
		return 0;
	if (strpbrk(resolved, "%!")) {
		sbx_diag_set(d, SBX_E_USAGE,
			     "%s: refusing to run a batch file whose path holds %% or !: cmd.exe "
			     "would expand it",
			     resolved);
		return sbx_diag_hint(d, SBX_E_USAGE, "rename or move the batch file");
	}
	for (size_t i = 1; cmd[i]; i++) {
		if (!sbx_win_batch_arg_safe(cmd[i])) {
			sbx_diag_set(d, SBX_E_USAGE,
				     "%s is a batch file: refusing to pass it argument %zu, which "
				     "cmd.exe would re-parse",
				     resolved, i);
			return sbx_diag_hint(
				d, SBX_E_USAGE,
				"run cmd.exe /c yourself with the quoting it needs, or "
				"call the program the script calls");
		}
	}
	return 0;
}

/* ---- step 3: the capability SID ----------------------------------------------------------- */

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
		return win_fail(d, -ENOMEM, GetLastError(), "cannot build the capability SID");
	return 0;
}

/* ---- step 4: the restricted token ---------------------------------------------------------- */

/* Copies the logon SID (S-1-5-5-x-y) of the token's groups into a LocalAlloc'd SID, or NULL. */
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
				DWORD n = GetLengthSid(groups->Groups[i].Sid);

				found = LocalAlloc(LPTR, n);
				if (found && !CopySid(n, found, groups->Groups[i].Sid)) {
					LocalFree(found);
					found = NULL;
				}
				break;
			}
		}
	}
	free(groups);
	return found;
}

/*
 * The default DACL of objects the command creates outside inheriting directories (its process,
 * threads, pipes): the user for the normal check, the logon and capability SIDs for the
 * restricted one. Without it the command could not even open its own handles for writing.
 */
static int set_default_dacl(HANDLE token, HANDLE base, PSID logon, PSID cap, struct sbx_diag *d)
{
	union {
		TOKEN_USER tu;
		BYTE buf[SECURITY_MAX_SID_SIZE + sizeof(TOKEN_USER)];
	} user;
	DWORD len = sizeof(user), acl_len;
	TOKEN_DEFAULT_DACL tdd;
	PSID sids[3];
	size_t n = 0;
	ACL *acl;
	int ret = 0;

	if (!GetTokenInformation(base, TokenUser, &user, sizeof(user), &len))
		return win_fail(d, -EIO, GetLastError(), "cannot read the token's user");
	sids[n++] = user.tu.User.Sid;
	if (logon)
		sids[n++] = logon;
	sids[n++] = cap;
	acl_len = sizeof(ACL);
	for (size_t i = 0; i < n; i++)
		acl_len += sizeof(ACCESS_ALLOWED_ACE) - sizeof(DWORD) + GetLengthSid(sids[i]);
	acl = malloc(acl_len);
	if (!acl)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	if (!InitializeAcl(acl, acl_len, ACL_REVISION)) {
		ret = win_fail(d, -EIO, GetLastError(), "cannot build the default DACL");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (!AddAccessAllowedAce(acl, ACL_REVISION, GENERIC_ALL, sids[i])) {
			ret = win_fail(d, -EIO, GetLastError(), "cannot build the default DACL");
			goto out;
		}
	}
	tdd.DefaultDacl = acl;
	if (!SetTokenInformation(token, TokenDefaultDacl, &tdd, sizeof(tdd)))
		ret = win_fail(d, -EIO, GetLastError(), "cannot set the token's default DACL");
out:
	free(acl);
	return ret;
}

static int make_token(struct run_state *st, struct sbx_diag *d)
{
	SID_IDENTIFIER_AUTHORITY world = {SECURITY_WORLD_SID_AUTHORITY};
	HANDLE base = NULL;
	PSID everyone = NULL, logon = NULL;
	SID_AND_ATTRIBUTES restrict_sids[3];
	DWORD n = 0;
	int ret;

	if (!OpenProcessToken(GetCurrentProcess(),
			      TOKEN_DUPLICATE | TOKEN_QUERY | TOKEN_ASSIGN_PRIMARY |
				      TOKEN_ADJUST_DEFAULT | TOKEN_ADJUST_SESSIONID |
				      TOKEN_ADJUST_PRIVILEGES,
			      &base))
		return win_fail(d, -EIO, GetLastError(), "cannot open sbxrun's own token");
	ret = make_capability_sid(&st->cap_sid, d);
	if (ret < 0)
		goto out;
	if (!AllocateAndInitializeSid(&world, 1, SECURITY_WORLD_RID, 0, 0, 0, 0, 0, 0, 0,
				      &everyone)) {
		ret = win_fail(d, -ENOMEM, GetLastError(), "cannot build the Everyone SID");
		goto out;
	}
	/*
	 * The logon SID is what the desktop and window station grant to the session. A token
	 * without one (a service, some Wine prefixes) just has one restricting SID less, which
	 * can only refuse more writes.
	 */
	logon = find_logon_sid(base);

	restrict_sids[n++] = (SID_AND_ATTRIBUTES){st->cap_sid, 0};
	if (logon)
		restrict_sids[n++] = (SID_AND_ATTRIBUTES){logon, 0};
	restrict_sids[n++] = (SID_AND_ATTRIBUTES){everyone, 0};

	if (!CreateRestrictedToken(base, DISABLE_MAX_PRIVILEGE | LUA_TOKEN | WRITE_RESTRICTED, 0,
				   NULL, 0, NULL, n, restrict_sids, &st->token)) {
		ret = win_fail(d, -EIO, GetLastError(), "cannot create the restricted token");
		st->token = NULL;
		goto out;
	}
	ret = set_default_dacl(st->token, base, logon, st->cap_sid, d);
out:
	if (logon)
		LocalFree(logon);
	if (everyone)
		FreeSid(everyone);
	CloseHandle(base);
	return ret;
}

/* ---- step 5 and 10: ACL changes, recorded and undone --------------------------------------- */

static int record_change(struct run_state *st, const wchar_t *path, bool created)
{
	struct acl_change *c;

	if (st->n_changes == st->cap_changes) {
		size_t cap = st->cap_changes ? 2 * st->cap_changes : 16;
		struct acl_change *grown = realloc(st->changes, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		st->changes = grown;
		st->cap_changes = cap;
	}
	c = &st->changes[st->n_changes];
	c->path = _wcsdup(path);
	if (!c->path)
		return -ENOMEM;
	c->created_dir = created;
	st->n_changes++;
	return 0;
}

/* DACL_SECURITY_INFORMATION plus the flag that keeps the object's inheritance setting as is. */
static SECURITY_INFORMATION dacl_info(PSECURITY_DESCRIPTOR sd)
{
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	DWORD rev;

	if (GetSecurityDescriptorControl(sd, &ctl, &rev) && (ctl & SE_DACL_PROTECTED))
		return DACL_SECURITY_INFORMATION | PROTECTED_DACL_SECURITY_INFORMATION;
	return DACL_SECURITY_INFORMATION | UNPROTECTED_DACL_SECURITY_INFORMATION;
}

/* Adds one inheritable ACE for sid on path. */
static DWORD add_ace(const wchar_t *path, PSID sid, ACCESS_MODE mode, DWORD mask)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	ACL *old_dacl = NULL, *new_dacl = NULL;
	EXPLICIT_ACCESSW ea;
	DWORD err;

	err = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
				    &old_dacl, NULL, &sd);
	if (err != ERROR_SUCCESS)
		return err;
	memset(&ea, 0, sizeof(ea));
	ea.grfAccessPermissions = mask;
	ea.grfAccessMode = mode;
	ea.grfInheritance = SUB_CONTAINERS_AND_OBJECTS_INHERIT;
	ea.Trustee.TrusteeForm = TRUSTEE_IS_SID;
	ea.Trustee.TrusteeType = TRUSTEE_IS_UNKNOWN;
	ea.Trustee.ptstrName = (LPWSTR)sid;
	/* SetEntriesInAcl keeps canonical order: explicit denies before explicit allows. */
	err = SetEntriesInAclW(1, &ea, old_dacl, &new_dacl);
	if (err == ERROR_SUCCESS)
		err = SetNamedSecurityInfoW((LPWSTR)path, SE_FILE_OBJECT, dacl_info(sd), NULL, NULL,
					    new_dacl, NULL);
	if (new_dacl)
		LocalFree(new_dacl);
	LocalFree(sd);
	return err;
}

/* Removes every explicit ACE that names sid from path's DACL. */
static DWORD remove_aces(const wchar_t *path, PSID sid)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	ACL *dacl = NULL, *kept = NULL;
	ACL_SIZE_INFORMATION info;
	bool found = false;
	DWORD err;

	err = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
				    &dacl, NULL, &sd);
	if (err != ERROR_SUCCESS)
		return err;
	if (!dacl || !GetAclInformation(dacl, &info, sizeof(info), AclSizeInformation)) {
		LocalFree(sd);
		return dacl ? GetLastError() : ERROR_SUCCESS;
	}
	kept = malloc(info.AclBytesInUse);
	if (!kept || !InitializeAcl(kept, info.AclBytesInUse, ACL_REVISION)) {
		err = kept ? GetLastError() : ERROR_NOT_ENOUGH_MEMORY;
		goto out;
	}
	for (DWORD i = 0; i < info.AceCount; i++) {
		ACE_HEADER *h;
		PSID ace_sid = NULL;

		if (!GetAce(dacl, i, (void **)&h)) {
			err = GetLastError();
			goto out;
		}
		if (h->AceType == ACCESS_ALLOWED_ACE_TYPE)
			ace_sid = &((ACCESS_ALLOWED_ACE *)h)->SidStart;
		else if (h->AceType == ACCESS_DENIED_ACE_TYPE)
			ace_sid = &((ACCESS_DENIED_ACE *)h)->SidStart;
		if (ace_sid && !(h->AceFlags & INHERITED_ACE) && EqualSid(ace_sid, sid)) {
			found = true;
			continue;
		}
		if (!AddAce(kept, ACL_REVISION, MAXDWORD, h, h->AceSize)) {
			err = GetLastError();
			goto out;
		}
	}
	/* Setting the DACL also re-propagates inheritance, removing the inherited copies. */
	if (found)
		err = SetNamedSecurityInfoW((LPWSTR)path, SE_FILE_OBJECT, dacl_info(sd), NULL, NULL,
					    kept, NULL);
out:
	free(kept);
	LocalFree(sd);
	return err;
}

static void undo_changes(struct run_state *st)
{
	/* Newest first: carve-outs (made after their roots) before the roots. */
	for (size_t i = st->n_changes; i-- > 0;) {
		struct acl_change *c = &st->changes[i];

		remove_aces(c->path, st->cap_sid);
		/* Only if still empty: anything the command left there stays. */
		if (c->created_dir)
			RemoveDirectoryW(c->path);
		free(c->path);
	}
	free(st->changes);
	st->changes = NULL;
	st->n_changes = st->cap_changes = 0;
}

static bool path_exists(const wchar_t *w)
{
	return GetFileAttributesW(w) != INVALID_FILE_ATTRIBUTES;
}

/*
 * Denies the capability SID write on a carve-out. A missing carve-out is created as an empty
 * directory first: otherwise the command could create it under its writable parent and it would
 * inherit the parent's allow ACE.
 */
static int deny_write(struct run_state *st, const char *path, struct sbx_diag *d)
{
	wchar_t *w = to_wide(path);
	bool created = false;
	DWORD err;
	int ret;

	if (!w)
		return sbx_diag_set(d, -EILSEQ, "%s: not valid UTF-8", path);
	if (!path_exists(w)) {
		if (!CreateDirectoryW(w, NULL)) {
			err = GetLastError();
			free(w);
			win_fail(d, -EIO, err,
				 "cannot create the directory that protects a read-only path");
			return sbx_diag_hint(d, -EIO, "create %s, or make its parent exist", path);
		}
		created = true;
	}
	ret = record_change(st, w, created);
	if (ret < 0) {
		if (created)
			RemoveDirectoryW(w);
		free(w);
		return sbx_diag_set(d, ret, "out of memory");
	}
	err = add_ace(w, st->cap_sid, DENY_ACCESS, SBX_DENY_MASK);
	free(w);
	if (err != ERROR_SUCCESS) {
		win_fail(d, -EIO, err, "cannot deny write on a read-only path");
		return sbx_diag_hint(d, -EIO, "check that you may change the permissions of %s",
				     path);
	}
	return 0;
}

static int grant_write(struct run_state *st, const char *path, struct sbx_diag *d)
{
	wchar_t *w = to_wide(path);
	DWORD err;
	int ret;

	if (!w)
		return sbx_diag_set(d, -EILSEQ, "%s: not valid UTF-8", path);
	/* A writable root that does not exist gets no grant: that refuses more, never less. */
	if (!path_exists(w)) {
		free(w);
		return 0;
	}
	ret = record_change(st, w, false);
	if (ret < 0) {
		free(w);
		return sbx_diag_set(d, ret, "out of memory");
	}
	err = add_ace(w, st->cap_sid, GRANT_ACCESS, SBX_ALLOW_MASK);
	free(w);
	if (err != ERROR_SUCCESS) {
		win_fail(d, -EIO, err, "cannot grant write on a writable root");
		return sbx_diag_hint(d, -EIO, "check that you may change the permissions of %s",
				     path);
	}
	return 0;
}

static int apply_acls(struct run_state *st, const struct sbx_plan *p, struct sbx_diag *d)
{
	const struct sbx_roots *r = &p->roots;
	int ret;

	for (size_t i = 0; i < r->n_writable; i++) {
		ret = grant_write(st, r->writable[i].root, d);
		if (ret < 0)
			return ret;
	}
	/* After every grant: a carve-out's own deny ACE then sits below the inherited allow. */
	for (size_t i = 0; i < r->n_writable; i++) {
		const struct sbx_writable_root *w = &r->writable[i];
		wchar_t *wroot = to_wide(w->root);
		bool root_exists = wroot && path_exists(wroot);

		free(wroot);
		if (!root_exists)
			continue; /* nothing was granted there, so nothing needs carving out */
		for (size_t j = 0; j < w->n_read_only; j++) {
			ret = deny_write(st, w->read_only[j], d);
			if (ret < 0)
				return ret;
		}
		for (size_t j = 0; j < w->n_protected_missing; j++) {
			size_t n = strlen(w->root) + strlen(w->protected_missing[j]) + 2;
			char *sub = malloc(n);

			if (!sub)
				return sbx_diag_set(d, -ENOMEM, "out of memory");
			snprintf(sub, n, "%s%s%s", w->root,
				 strchr("\\/", w->root[strlen(w->root) - 1]) ? "" : "\\",
				 w->protected_missing[j]);
			ret = deny_write(st, sub, d);
			free(sub);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

/* ---- steps 6 to 9: job, spawn, wait --------------------------------------------------------- */

static int make_job(struct sbx_diag *d)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	HANDLE job = CreateJobObjectW(NULL, NULL);

	if (!job)
		return win_fail(d, -EIO, GetLastError(), "cannot create a job object");
	memset(&lim, 0, sizeof(lim));
	/* No BREAKAWAY_OK: a process of the command cannot leave the job and outlive sbxrun. */
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim, sizeof(lim))) {
		DWORD err = GetLastError();

		CloseHandle(job);
		return win_fail(d, -EIO, err, "cannot make the job kill its processes on close");
	}
	EnterCriticalSection(&job_lock);
	job_handle = job;
	LeaveCriticalSection(&job_lock);
	return 0;
}

static void close_job(void)
{
	EnterCriticalSection(&job_lock);
	if (job_handle) {
		TerminateJobObject(job_handle, 1);
		CloseHandle(job_handle);
		job_handle = NULL;
	}
	LeaveCriticalSection(&job_lock);
}

static int spawn_error(struct sbx_diag *d, DWORD err, const char *prog)
{
	switch (err) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
		return sbx_diag_set(d, -ENOENT, "%s: command not found", prog);
	case ERROR_ACCESS_DENIED:
		return sbx_diag_set(d, -EACCES, "%s: permission denied", prog);
	case ERROR_BAD_EXE_FORMAT:
	case ERROR_EXE_MACHINE_TYPE_MISMATCH:
		return sbx_diag_set(d, -ENOEXEC, "%s: not an executable this system can run", prog);
	}
	return win_fail(d, -EIO, err, "cannot start the command");
}

/*
 * Only the three standard handles are inherited (an explicit handle list), whatever other
 * inheritable handles sbxrun may have been given.
 */
static int spawn(struct run_state *st, const wchar_t *app, wchar_t *cmdline, const wchar_t *cwd,
		 const char *prog, struct sbx_diag *d)
{
	STARTUPINFOEXW si;
	PROCESS_INFORMATION pi;
	HANDLE inherit[3];
	DWORD n_inherit = 0, flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT;
	SIZE_T attr_len = 0;
	LPPROC_THREAD_ATTRIBUTE_LIST attrs = NULL;
	BOOL ok;
	DWORD err;

	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si.StartupInfo);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	si.StartupInfo.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
	si.StartupInfo.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	{
		HANDLE std[3] = {si.StartupInfo.hStdInput, si.StartupInfo.hStdOutput,
				 si.StartupInfo.hStdError};

		for (int i = 0; i < 3; i++) {
			bool dup = false;

			if (!std[i] || std[i] == INVALID_HANDLE_VALUE)
				continue;
			for (DWORD j = 0; j < n_inherit; j++)
				dup |= inherit[j] == std[i];
			/* The list needs inheritable handles, and no handle twice. */
			if (!dup &&
			    SetHandleInformation(std[i], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT))
				inherit[n_inherit++] = std[i];
		}
	}
	if (n_inherit) {
		InitializeProcThreadAttributeList(NULL, 1, 0, &attr_len);
		attrs = malloc(attr_len);
		if (!attrs)
			return sbx_diag_set(d, -ENOMEM, "out of memory");
		if (!InitializeProcThreadAttributeList(attrs, 1, 0, &attr_len) ||
		    !UpdateProcThreadAttribute(attrs, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, inherit,
					       n_inherit * sizeof(HANDLE), NULL, NULL)) {
			err = GetLastError();
			free(attrs);
			return win_fail(d, -EIO, err, "cannot set up the inherited handles");
		}
		si.StartupInfo.cb = sizeof(si);
		si.lpAttributeList = attrs;
		flags |= EXTENDED_STARTUPINFO_PRESENT;
	}

	/* The application name given: CreateProcess searches nothing. */
	if (st->token)
		ok = CreateProcessAsUserW(st->token, app, cmdline, NULL, NULL, n_inherit > 0, flags,
					  NULL, cwd, &si.StartupInfo, &pi);
	else
		ok = CreateProcessW(app, cmdline, NULL, NULL, n_inherit > 0, flags, NULL, cwd,
				    &si.StartupInfo, &pi);
	err = ok ? 0 : GetLastError();
	if (attrs) {
		DeleteProcThreadAttributeList(attrs);
		free(attrs);
	}
	if (!ok)
		return spawn_error(d, err, prog);
	st->process = pi.hProcess;
	st->thread = pi.hThread;

	EnterCriticalSection(&job_lock);
	ok = job_handle && AssignProcessToJobObject(job_handle, st->process);
	err = ok ? 0 : GetLastError();
	LeaveCriticalSection(&job_lock);
	if (!ok) {
		/* Never let it run outside the job: it has not executed an instruction yet. */
		TerminateProcess(st->process, 1);
		return win_fail(d, -EIO, err, "cannot put the command in its job object");
	}
	if (ResumeThread(st->thread) == (DWORD)-1) {
		err = GetLastError();
		TerminateProcess(st->process, 1);
		return win_fail(d, -EIO, err, "cannot start the command's main thread");
	}
	return 0;
}

/* ---- the sequence ------------------------------------------------------------------------- */

static bool plan_refused(const struct sbx_plan *p, struct sbx_diag *d)
{
	if (!p->sandbox_requested)
		return false;
	if (p->sandbox != SBX_SANDBOX_WINDOWS_RESTRICTED_TOKEN) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "a sandbox is required but this host has no Windows sandbox backend");
		sbx_diag_hint(d, 0, "use --windows-sandbox restricted-token");
		return true;
	}
	for (size_t i = 0; i < p->n_reqs; i++) {
		const struct sbx_req *r = &p->reqs[i];

		if (r->status == SBX_UNENFORCEABLE) {
			sbx_diag_set(d, SBX_E_UNENFORCEABLE, "cannot enforce \"%s\": %s",
				     r->rule ? r->rule : "?", r->why ? r->why : "no mechanism");
			return true;
		}
	}
	return false;
}

/* Wine exports this from its ntdll; Windows does not. */
static bool running_under_wine(void)
{
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");

	return ntdll && GetProcAddress(ntdll, "wine_get_version") != NULL;
}

int sbx_windows_run(const struct sbx_plan *p, const struct sbx_ctx *ctx, char *const cmd[],
		    struct sbx_diag *d)
{
	return sbx_windows_run_flags(p, ctx, cmd, 0, d);
}

int sbx_windows_run_flags(const struct sbx_plan *p, const struct sbx_ctx *ctx, char *const cmd[],
			  unsigned flags, struct sbx_diag *d)
{
	static INIT_ONCE once = INIT_ONCE_STATIC_INIT;
	struct run_state st;
	char *line = NULL, *prog = NULL, **argv = NULL;
	wchar_t *wline = NULL, *wcwd = NULL, *wprog = NULL;
	size_t argc = 0;
	DWORD code = 0;
	int ret;

	memset(&st, 0, sizeof(st));
	if (!p || !cmd || !cmd[0])
		return sbx_diag_set(d, SBX_E_USAGE, "no command to run");
	/* 1. */
	if (plan_refused(p, d))
		return SBX_E_UNENFORCEABLE;
	/*
	 * Wine accepts restricted tokens and ACLs but enforces neither, and maps a DACL onto Unix
	 * mode bits (an allow ACE for the capability SID turns into group or other write on the
	 * host directory). A sandbox there would be a pretence that also widens the host.
	 */
	if (p->sandbox_requested && running_under_wine() && !(flags & SBX_WINDOWS_RUN_ALLOW_WINE)) {
		sbx_diag_set(d, SBX_E_UNENFORCEABLE,
			     "this is Wine, which does not enforce restricted tokens or file ACLs: "
			     "refusing to run the command as if it were sandboxed");
		return sbx_diag_hint(d, SBX_E_UNENFORCEABLE,
				     "run sbxrun.exe on Windows, or sbxrun on the Linux host");
	}

	/* The handler and its lock exist from the first run on (the cleanup below takes the
	 * lock); both live until exit. */
	InitOnceExecuteOnce(&once, init_console_handler, NULL, NULL);

	/* 2. The program's own path as argv[0]: cmd.exe, for a batch file, searches nothing. */
	ret = find_program(cmd[0], ctx ? ctx->cwd : NULL, &prog, d);
	if (ret == 0)
		ret = check_batch(prog, cmd, d);
	if (ret < 0)
		goto out;
	while (cmd[argc])
		argc++;
	argv = calloc(argc + 1, sizeof(*argv));
	if (!argv) {
		ret = sbx_diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	argv[0] = prog;
	for (size_t i = 1; i < argc; i++)
		argv[i] = cmd[i];
	line = sbx_win_cmdline(argv);
	if (!line) {
		ret = sbx_diag_set(d, -ENOMEM, "out of memory");
		goto out;
	}
	wline = to_wide(line);
	wprog = to_wide(prog);
	if (!wline || !wprog) {
		ret = sbx_diag_set(d, SBX_E_USAGE, "the command line is not valid UTF-8");
		goto out;
	}
	if (wcslen(wline) >= SBX_WIN_MAX_CMDLINE) {
		ret = sbx_diag_set(d, -E2BIG,
				   "the command line is longer than Windows allows (%d characters)",
				   SBX_WIN_MAX_CMDLINE - 1);
		goto out;
	}
	if (ctx && ctx->cwd) {
		wcwd = to_wide(ctx->cwd);
		if (!wcwd) {
			ret = sbx_diag_set(d, SBX_E_USAGE, "%s: not valid UTF-8", ctx->cwd);
			goto out;
		}
	}

	/* 3, 4, 5. */
	if (p->sandbox_requested) {
		ret = make_token(&st, d);
		if (ret == 0)
			ret = apply_acls(&st, p, d);
		if (ret < 0)
			goto out;
	}

	/* 6, 7. */
	ret = make_job(d);
	if (ret < 0)
		goto out;
	ret = spawn(&st, wprog, wline, wcwd, cmd[0], d);
	if (ret < 0)
		goto out;

	/* 8. */
	if (WaitForSingleObject(st.process, INFINITE) != WAIT_OBJECT_0 ||
	    !GetExitCodeProcess(st.process, &code)) {
		ret = win_fail(d, -EIO, GetLastError(), "cannot wait for the command");
		goto out;
	}
	ret = 0;
out:
	/* 9, 10. */
	close_job();
	if (st.thread)
		CloseHandle(st.thread);
	if (st.process)
		CloseHandle(st.process);
	undo_changes(&st);
	if (st.token)
		CloseHandle(st.token);
	if (st.cap_sid)
		FreeSid(st.cap_sid);
	free(argv);
	free(prog);
	free(line);
	free(wline);
	free(wprog);
	free(wcwd);
	if (cleanup_done)
		SetEvent(cleanup_done);
	if (ret < 0)
		return ret;
	if (code > INT_MAX) {
		fflush(NULL);
		ExitProcess(code);
	}
	return (int)code;
}
