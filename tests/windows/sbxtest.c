/* SPDX-License-Identifier: MIT */
/*
 * sbxtest.exe - a small Windows program for the smoke tests: it reports what it received and
 * does one observable thing.
 *
 *   sbxtest argv                 prints each argument after the mode, as CommandLineToArgvW
 *                                split this process's real command line: hex of its UTF-8,
 *                                one per line ("-" for an empty argument)
 *   sbxtest exit N               exits with N (decimal, up to 4294967295)
 *   sbxtest sleep FILE SECS      writes "PID PARENT-PID" to FILE, then sleeps
 *   sbxtest spawn-sleep FILE     starts "sbxtest sleep FILE 600" and waits for it
 *   sbxtest alive PID            exits 0 if process PID is running, 1 if it is not
 *   sbxtest kill PID             terminates process PID (as if it were killed), exits 0
 *   sbxtest wait-file FILE SECS  waits until FILE exists and is not empty; 0 found, 1 timeout
 *   sbxtest sddl PATH            prints the DACL of PATH in SDDL
 *   sbxtest create PATH          creates file PATH: 0 on success, else prints the error, 1
 *   sbxtest whoami               prints the path of this program (which copy of it runs)
 *   sbxtest desktop              prints the name of the desktop this process runs on
 *   sbxtest open-desktop NAME    exits 0 if desktop NAME (in this window station) can be
 *                                opened, 1 if it cannot (it does not exist)
 *   sbxtest env NAME...          prints "NAME=hex of the value's UTF-8" for each variable of the
 *                                environment block that is set, "NAME unset" for the others
 */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <sddl.h>
#include <aclapi.h>
#include <shellapi.h>
#include <tlhelp32.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static int usage(void)
{
	fprintf(stderr, "sbxtest: bad usage (see tests/windows/sbxtest.c)\n");
	return 2;
}

static unsigned long parse_ul(const wchar_t *s)
{
	wchar_t *end;
	unsigned long v = wcstoul(s, &end, 10);

	if (!*s || *end) {
		fprintf(stderr, "sbxtest: not a number\n");
		exit(2);
	}
	return v;
}

static void print_hex_utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s = malloc(n > 0 ? (size_t)n : 1);

	if (!s || n <= 0 || WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) != n) {
		printf("?\n");
		free(s);
		return;
	}
	if (!s[0])
		printf("-");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		printf("%02x", *p);
	printf("\n");
	free(s);
}

static DWORD parent_pid(void)
{
	HANDLE snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	PROCESSENTRY32W pe = {.dwSize = sizeof(pe)};
	DWORD self = GetCurrentProcessId(), parent = 0;

	if (snap == INVALID_HANDLE_VALUE)
		return 0;
	for (BOOL ok = Process32FirstW(snap, &pe); ok; ok = Process32NextW(snap, &pe)) {
		if (pe.th32ProcessID == self) {
			parent = pe.th32ParentProcessID;
			break;
		}
	}
	CloseHandle(snap);
	return parent;
}

/* Written to a temporary name and renamed, so a reader never sees half of it. */
static int write_pid(const wchar_t *file)
{
	wchar_t tmp[MAX_PATH + 8];
	FILE *f;

	_snwprintf(tmp, MAX_PATH + 8, L"%ls.tmp", file);
	tmp[MAX_PATH + 7] = L'\0';
	f = _wfopen(tmp, L"wb");
	if (!f)
		return -1;
	fprintf(f, "%lu %lu\n", (unsigned long)GetCurrentProcessId(), (unsigned long)parent_pid());
	fclose(f);
	return MoveFileExW(tmp, file, MOVEFILE_REPLACE_EXISTING) ? 0 : -1;
}

static int spawn_sleep(const wchar_t *file)
{
	wchar_t self[MAX_PATH], line[2 * MAX_PATH + 64];
	STARTUPINFOW si = {.cb = sizeof(si)};
	PROCESS_INFORMATION pi;

	if (!GetModuleFileNameW(NULL, self, MAX_PATH))
		return 1;
	_snwprintf(line, sizeof(line) / sizeof(line[0]), L"\"%ls\" sleep \"%ls\" 600", self, file);
	line[sizeof(line) / sizeof(line[0]) - 1] = L'\0';
	if (!CreateProcessW(NULL, line, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) {
		fprintf(stderr, "sbxtest: CreateProcess failed: %lu\n", GetLastError());
		return 1;
	}
	CloseHandle(pi.hThread);
	WaitForSingleObject(pi.hProcess, INFINITE);
	CloseHandle(pi.hProcess);
	return 0;
}

static int alive(DWORD pid)
{
	HANDLE h = OpenProcess(SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	DWORD code = 0;
	int running;

	if (!h)
		return 1;
	running = WaitForSingleObject(h, 0) == WAIT_TIMEOUT && GetExitCodeProcess(h, &code) &&
		  code == STILL_ACTIVE;
	CloseHandle(h);
	return running ? 0 : 1;
}

static int kill_pid(DWORD pid)
{
	HANDLE h = OpenProcess(PROCESS_TERMINATE | SYNCHRONIZE, FALSE, pid);

	if (!h || !TerminateProcess(h, 9)) {
		fprintf(stderr, "sbxtest: cannot terminate %lu: %lu\n", (unsigned long)pid,
			GetLastError());
		return 1;
	}
	WaitForSingleObject(h, 10000);
	CloseHandle(h);
	return 0;
}

static int wait_file(const wchar_t *file, unsigned long secs)
{
	for (unsigned long i = 0; i < secs * 10; i++) {
		WIN32_FILE_ATTRIBUTE_DATA a;

		if (GetFileAttributesExW(file, GetFileExInfoStandard, &a) &&
		    (a.nFileSizeLow || a.nFileSizeHigh))
			return 0;
		Sleep(100);
	}
	return 1;
}

static int sddl(const wchar_t *path)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	LPWSTR text = NULL;
	DWORD err = GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL,
					  NULL, NULL, NULL, &sd);

	if (err != ERROR_SUCCESS) {
		fprintf(stderr, "sbxtest: GetNamedSecurityInfo: %lu\n", (unsigned long)err);
		return 1;
	}
	if (!ConvertSecurityDescriptorToStringSecurityDescriptorW(
		    sd, SDDL_REVISION_1, DACL_SECURITY_INFORMATION, &text, NULL)) {
		LocalFree(sd);
		return 1;
	}
	print_hex_utf8(text); /* hex keeps the output one plain line whatever it holds */
	LocalFree(text);
	LocalFree(sd);
	return 0;
}

static int create(const wchar_t *path)
{
	HANDLE h = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL,
			       NULL);

	if (h == INVALID_HANDLE_VALUE) {
		fprintf(stderr, "sbxtest: create failed: %lu\n", GetLastError());
		return 1;
	}
	CloseHandle(h);
	return 0;
}

static void print_utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s = malloc(n > 0 ? (size_t)n : 1);

	if (s && n > 0 && WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL) == n)
		printf("%s\n", s);
	else
		printf("?\n");
	free(s);
}

static int whoami(void)
{
	wchar_t self[MAX_PATH];

	if (!GetModuleFileNameW(NULL, self, MAX_PATH))
		return 1;
	print_utf8(self);
	return 0;
}

static int desktop(void)
{
	wchar_t name[256];
	DWORD n = 0;

	if (!GetUserObjectInformationW(GetThreadDesktop(GetCurrentThreadId()), UOI_NAME, name,
				       sizeof(name), &n))
		return 1;
	print_utf8(name);
	return 0;
}

static int open_desktop(const wchar_t *name)
{
	HDESK h = OpenDesktopW(name, 0, FALSE, DESKTOP_READOBJECTS);

	if (!h)
		return 1;
	CloseDesktop(h);
	return 0;
}

static int env(wchar_t **names, int n)
{
	for (int i = 0; i < n; i++) {
		wchar_t value[32768];
		DWORD len = GetEnvironmentVariableW(names[i], value, 32768);

		printf("%ls", names[i]);
		if (len == 0 && GetLastError() == ERROR_ENVVAR_NOT_FOUND) {
			printf(" unset\n");
			continue;
		}
		putchar('=');
		print_hex_utf8(value);
	}
	return 0;
}

int main(void)
{
	int argc = 0;
	wchar_t **argv = CommandLineToArgvW(GetCommandLineW(), &argc);

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!argv || argc < 2)
		return usage();
	if (wcscmp(argv[1], L"argv") == 0) {
		for (int i = 2; i < argc; i++)
			print_hex_utf8(argv[i]);
		return 0;
	}
	if (wcscmp(argv[1], L"exit") == 0 && argc == 3) {
		fflush(NULL);
		ExitProcess((UINT)parse_ul(argv[2]));
	}
	if (wcscmp(argv[1], L"sleep") == 0 && argc == 4) {
		if (write_pid(argv[2]) < 0)
			return 1;
		Sleep((DWORD)parse_ul(argv[3]) * 1000);
		return 0;
	}
	if (wcscmp(argv[1], L"spawn-sleep") == 0 && argc == 3)
		return spawn_sleep(argv[2]);
	if (wcscmp(argv[1], L"alive") == 0 && argc == 3)
		return alive((DWORD)parse_ul(argv[2]));
	if (wcscmp(argv[1], L"kill") == 0 && argc == 3)
		return kill_pid((DWORD)parse_ul(argv[2]));
	if (wcscmp(argv[1], L"wait-file") == 0 && argc == 4)
		return wait_file(argv[2], parse_ul(argv[3]));
	if (wcscmp(argv[1], L"sddl") == 0 && argc == 3)
		return sddl(argv[2]);
	if (wcscmp(argv[1], L"create") == 0 && argc == 3)
		return create(argv[2]);
	if (wcscmp(argv[1], L"whoami") == 0 && argc == 2)
		return whoami();
	if (wcscmp(argv[1], L"desktop") == 0 && argc == 2)
		return desktop();
	if (wcscmp(argv[1], L"open-desktop") == 0 && argc == 3)
		return open_desktop(argv[2]);
	if (wcscmp(argv[1], L"env") == 0)
		return env(argv + 2, argc - 2);
	return usage();
}
