/* SPDX-License-Identifier: MIT */
/*
 * run.c - the Windows backend: a restricted token, ACLs for the writable roots, a private
 * desktop, a job object.
 *
 * sbx_windows_run() is the whole sequence, top to bottom:
 *
 *   1. refuse a plan with any unenforceable requirement (plan_windows.c decided them);
 *   2. find the program (winpath.c): on PATH only, with PATHEXT, never in sbxrun's directory or
 *      the current directory, which CreateProcess would search first; 127 when not found;
 *   3. if Windows would run it through cmd.exe (decided on the file found, its trailing dots
 *      and spaces stripped), refuse any argument cmd.exe would re-parse;
 *   4. build the command line by the CommandLineToArgvW rules (winquote.c), the program named
 *      by the path found;
 *   5. make the restricted token and this run's capability SID (token.c);
 *   6. grant the capability SID write on each writable root and deny it write on each
 *      read-only carve-out, per-run safe, holding each object until step 11 (acl.c);
 *   7. create a private desktop for the command (desktop.c);
 *   8. create a job object with KILL_ON_JOB_CLOSE and, when sandboxed, the UI limits: when
 *      sbxrun's last handle to it closes, for any reason including TerminateProcess, every
 *      process in it dies;
 *   9. create the command suspended with CreateProcessAsUserW on that desktop, the application
 *      name given (no search), so it runs no instruction before it is in the job; assign it;
 *      resume it;
 *  10. wait; Ctrl-C, Ctrl-Break and console close terminate the job (console_handler);
 *  11. terminate what is left of the job (background children), close it, close the desktop,
 *      undo the ACL changes; return the exit code.
 *
 * What a crash (or TerminateProcess of sbxrun between 6 and 11) leaves behind, and why none of
 * it widens access:
 *   - allow ACEs for the capability SID. The SID is random per run (128 bits) and never stored:
 *     no token other than the one made in step 5 will ever carry it, and that token's processes
 *     die with the job. An allow ACE for a SID nobody holds grants nothing;
 *   - deny ACEs for the same SID: deny nobody anything, and could only narrow;
 *   - inherited copies of both on files below the roots: the same two cases;
 *   - empty directories created to carry a deny ACE (a missing protected name such as .codex):
 *     an empty directory grants no access; normal users can remove it.
 * The processes themselves do not outlive sbxrun: the job is killed when its handle closes, and
 * the desktop goes with its last handle.
 *
 * Wine runs all of this but enforces neither restricted tokens, ACLs nor desktop DACLs, so the
 * tests in tests/windows/ check spawning, waiting, exit codes, quoting, program resolution,
 * batch files, the job, the desktop the command lands on and the cleanup; confinement itself
 * has to be checked on Windows.
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <shellapi.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "windows/backend.h"
#include "windows/windows.h"
#include "winpath.h"

/* CreateProcess refuses longer command lines (32767 characters including the NUL). */
#define SBX_WIN_MAX_CMDLINE 32767

struct run_state {
	struct sbx_win_token tok; /* tok.token NULL when no sandbox is requested */
	struct sbx_win_acls acls;
	struct sbx_win_desktop desktop;
	HANDLE process, thread;
};

/* ---- the job, shared with the console control handler ------------------------------------ */

static CRITICAL_SECTION job_lock;
static HANDLE job_handle;   /* guarded by job_lock */
static HANDLE cleanup_done; /* manual-reset event: set once the run is cleaned up */

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

/* ---- the command line and the environment ------------------------------------------------ */

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
		out[i] = sbx_win_utf8(wargv[i]);
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
		s = sbx_win_utf8(w);
	free(w);
	return s;
}

/* ---- steps 2 and 3: the program and its arguments ------------------------------------------- */

static bool is_file(const char *path, void *arg)
{
	wchar_t *w = sbx_win_wide(path);
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
			here = sbx_win_utf8(w);
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
	wchar_t *w = sbx_win_wide(resolved), longname[32768];
	char *l = NULL;
	bool batch = sbx_win_is_batch_file(resolved);
	DWORD n;

	if (!batch && w) {
		n = GetLongPathNameW(w, longname, sizeof(longname) / sizeof(longname[0]));
		if (n > 0 && n < sizeof(longname) / sizeof(longname[0]))
			l = sbx_win_utf8(longname);
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

/* ---- steps 8 to 10: job, spawn, wait --------------------------------------------------------- */

static int make_job(bool sandboxed, struct sbx_diag *d)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION lim;
	JOBOBJECT_BASIC_UI_RESTRICTIONS ui = {SBX_WIN_UI_LIMITS};
	HANDLE job = CreateJobObjectW(NULL, NULL);
	DWORD err;

	if (!job)
		return sbx_win_fail(d, -EIO, GetLastError(), "cannot create a job object");
	memset(&lim, 0, sizeof(lim));
	/* No BREAKAWAY_OK: a process of the command cannot leave the job and outlive sbxrun. */
	lim.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &lim, sizeof(lim))) {
		err = GetLastError();
		CloseHandle(job);
		return sbx_win_fail(d, -EIO, err,
				    "cannot make the job kill its processes on close");
	}
	if (sandboxed &&
	    !SetInformationJobObject(job, JobObjectBasicUIRestrictions, &ui, sizeof(ui))) {
		err = GetLastError();
		CloseHandle(job);
		return sbx_win_fail(d, -EIO, err, "cannot set the job's user-interface limits");
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
	return sbx_win_fail(d, -EIO, err, "cannot start the command");
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
	if (st->desktop.handle)
		si.StartupInfo.lpDesktop = st->desktop.name;
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
			return sbx_win_fail(d, -EIO, err, "cannot set up the inherited handles");
		}
		si.StartupInfo.cb = sizeof(si);
		si.lpAttributeList = attrs;
		flags |= EXTENDED_STARTUPINFO_PRESENT;
	}

	/* The application name given: CreateProcess searches nothing. */
	if (st->tok.token)
		ok = CreateProcessAsUserW(st->tok.token, app, cmdline, NULL, NULL, n_inherit > 0,
					  flags, NULL, cwd, &si.StartupInfo, &pi);
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
		return sbx_win_fail(d, -EIO, err, "cannot put the command in its job object");
	}
	if (ResumeThread(st->thread) == (DWORD)-1) {
		err = GetLastError();
		TerminateProcess(st->process, 1);
		return sbx_win_fail(d, -EIO, err, "cannot start the command's main thread");
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
		char rule[SBX_REQ_RULE_MAX];

		if (r->status == SBX_UNENFORCEABLE) {
			sbx_diag_set(d, SBX_E_UNENFORCEABLE, "cannot enforce \"%s\": %s",
				     sbx_req_rule(r, rule),
				     sbx_req_reason(r) ? sbx_req_reason(r) : "no mechanism");
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

	/* 2, 3. */
	ret = find_program(cmd[0], ctx ? ctx->cwd : NULL, &prog, d);
	if (ret == 0)
		ret = check_batch(prog, cmd, d);
	if (ret < 0)
		goto out;

	/* 4. The program's own path as argv[0]: cmd.exe, for a batch file, searches nothing. */
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
	wline = sbx_win_wide(line);
	wprog = sbx_win_wide(prog);
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
		wcwd = sbx_win_wide(ctx->cwd);
		if (!wcwd) {
			ret = sbx_diag_set(d, SBX_E_USAGE, "%s: not valid UTF-8", ctx->cwd);
			goto out;
		}
	}

	/* 5, 6, 7. */
	if (p->sandbox_requested) {
		ret = sbx_win_token_make(&st.tok, d);
		if (ret == 0)
			ret = sbx_win_acls_apply(&st.acls, p, st.tok.cap_sid, d);
		if (ret == 0)
			ret = sbx_win_desktop_create(&st.desktop, &st.tok, d);
		if (ret < 0)
			goto out;
	}

	/* 8, 9. */
	ret = make_job(p->sandbox_requested, d);
	if (ret < 0)
		goto out;
	ret = spawn(&st, wprog, wline, wcwd, cmd[0], d);
	if (ret < 0)
		goto out;

	/* 10. */
	if (WaitForSingleObject(st.process, INFINITE) != WAIT_OBJECT_0 ||
	    !GetExitCodeProcess(st.process, &code)) {
		ret = sbx_win_fail(d, -EIO, GetLastError(), "cannot wait for the command");
		goto out;
	}
	ret = 0;
out:
	/* 11. */
	close_job();
	if (st.thread)
		CloseHandle(st.thread);
	if (st.process)
		CloseHandle(st.process);
	sbx_win_desktop_close(&st.desktop);
	sbx_win_acls_undo(&st.acls);
	sbx_win_token_free(&st.tok);
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
