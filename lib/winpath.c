/* SPDX-License-Identifier: MIT */
/*
 * winpath.c - Windows paths in one canonical form, and the program Windows would run.
 *
 * Windows names one file in many ways: "C:\Windows\..", "c:/", "C:\\", "\\?\C:\", "C:\x. ",
 * "\\.\UNC\srv\share". Every check sbxrun makes on a Windows path (is it a whole volume? is it
 * inside a read-only carve-out? which entry decides it?) is made on the canonical form computed
 * here, once, so that no spelling can slip a path past a check that its canonical form fails.
 * What cannot be put in that form unambiguously is refused rather than guessed.
 *
 * The rules follow the documented Win32 path normalization ("File path formats on Windows
 * systems"): separators either way, "." and ".." resolved lexically before any file is looked
 * at, trailing dots and spaces of the last component stripped; \\?\ paths are passed to the
 * file system verbatim, so there nothing is resolved and anything that would need resolving is
 * refused.
 *
 * Pure: no Windows API, so every rule is tested on every host.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "winpath.h"

static bool is_sep(char c)
{
	return c == '\\' || c == '/';
}

static bool is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static char upper(char c)
{
	return (c >= 'a' && c <= 'z') ? (char)(c - 'a' + 'A') : c;
}

static bool ieq(const char *a, size_t n, const char *b)
{
	if (strlen(b) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (upper(a[i]) != upper(b[i]))
			return false;
	return true;
}

/*
 * NUL, CON, COM1 and the rest name devices in every directory ("C:\work\nul" is the null
 * device), also with an extension ("nul.txt") or trailing spaces. COM and LPT take a digit or
 * one of the superscripts 1, 2, 3 (U+00B9, U+00B2, U+00B3).
 */
static bool is_device_name(const char *c, size_t n)
{
	static const char *const fixed[] = {"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"};
	size_t base = 0;

	while (base < n && c[base] != '.')
		base++;
	while (base > 0 && c[base - 1] == ' ')
		base--;
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (ieq(c, base, fixed[i]))
			return true;
	if (base >= 4 && (ieq(c, 3, "COM") || ieq(c, 3, "LPT"))) {
		if (base == 4 && c[3] >= '0' && c[3] <= '9')
			return true;
		if (base == 5 && (unsigned char)c[3] == 0xc2 &&
		    ((unsigned char)c[4] == 0xb9 || (unsigned char)c[4] == 0xb2 ||
		     (unsigned char)c[4] == 0xb3))
			return true;
	}
	return false;
}

/* NULL when the component is a usable name, else why not. */
static const char *bad_component(const char *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)c[i];

		if (ch < 0x20 || strchr("<>\"|?*", ch))
			return "it contains a character Windows does not allow in names";
		if (ch == ':')
			return "a ':' after the drive names an alternate data stream";
		if (ch == '/')
			return "a '/' in a \\\\?\\ path is part of a name, which Windows does not "
			       "allow";
	}
	if (is_device_name(c, n))
		return "a component is a reserved device name (such as NUL, CON or COM1)";
	return NULL;
}

static bool ends_in_dot_or_space(const char *c, size_t n)
{
	return n > 0 && (c[n - 1] == '.' || c[n - 1] == ' ');
}

/* A server or share name of a UNC path: one non-empty, plain component. */
static const char *unc_part(const char **s, bool verbatim, const char **start, size_t *n)
{
	const char *p = *s, *why;

	*start = p;
	while (*p && !(verbatim ? *p == '\\' : is_sep(*p)))
		p++;
	*n = (size_t)(p - *start);
	if (*n == 0)
		return "a UNC path needs a server and a share name";
	if (ieq(*start, *n, ".") || ieq(*start, *n, "..") || ends_in_dot_or_space(*start, *n))
		return "a UNC server or share name cannot be or end in a dot or a space";
	why = bad_component(*start, *n);
	if (why)
		return why;
	*s = p;
	return NULL;
}

static int refuse(const char **why, const char *reason)
{
	if (why)
		*why = reason;
	return -EINVAL;
}

int sbx_win_path_normalize(const char *in, char **out, const char **why)
{
	const char *s = in, *start, *bad = NULL;
	bool verbatim = false;
	size_t o = 0, root, n;
	char *buf;

	*out = NULL;
	if (why)
		*why = NULL;
	if (!in)
		return refuse(why, "no path");
	buf = malloc(strlen(in) + 4);
	if (!buf)
		return -ENOMEM;

	/* The root: "X:\" or "\\server\share", from any of the spellings. */
	if (is_sep(s[0]) && is_sep(s[1]) && (s[2] == '?' || s[2] == '.') && is_sep(s[3])) {
		verbatim = s[2] == '?';
		s += 4;
		if (is_alpha(s[0]) && s[1] == ':' && (!s[2] || s[2] == '\\' || is_sep(s[2]))) {
			/* \\.\X: alone is the volume device itself: taken as the volume's root. */
			buf[o++] = upper(s[0]);
			buf[o++] = ':';
			buf[o++] = '\\';
			s += 2;
		} else if (ieq(s, 3, "UNC") && (verbatim ? s[3] == '\\' : is_sep(s[3]))) {
			s += 4;
			goto unc;
		} else {
			free(buf);
			return refuse(why, "a device path other than \\\\?\\X:\\, \\\\.\\X:\\ or "
					   "\\\\?\\UNC\\server\\share");
		}
	} else if (is_sep(s[0]) && is_sep(s[1])) {
		s += 2;
	unc:
		buf[o++] = '\\';
		buf[o++] = '\\';
		bad = unc_part(&s, verbatim, &start, &n);
		if (!bad) {
			memcpy(buf + o, start, n);
			o += n;
			buf[o++] = '\\';
			if (*s)
				s++;
			bad = unc_part(&s, verbatim, &start, &n);
		}
		if (bad) {
			free(buf);
			return refuse(why, bad);
		}
		memcpy(buf + o, start, n);
		o += n;
	} else if (is_alpha(s[0]) && s[1] == ':' && is_sep(s[2])) {
		buf[o++] = upper(s[0]);
		buf[o++] = ':';
		buf[o++] = '\\';
		s += 2;
	} else {
		free(buf);
		if (is_alpha(s[0]) && s[1] == ':')
			return refuse(why,
				      "a drive-relative path (\"X:name\" depends on the drive's "
				      "current directory)");
		if (is_sep(s[0]))
			return refuse(why,
				      "a root-relative path (\"\\name\" depends on the current "
				      "drive)");
		return refuse(why, "not an absolute Windows path");
	}
	root = o;

	/* The components. */
	while (*s) {
		bool last;

		if (verbatim ? *s == '\\' : is_sep(*s)) {
			s++;
			/* Win32 folds runs of separators; a verbatim path has no empty names. */
			if (verbatim && *s == '\\') {
				bad = "an empty name in a \\\\?\\ path";
				break;
			}
			continue;
		}
		start = s;
		while (*s && !(verbatim ? *s == '\\' : is_sep(*s)))
			s++;
		n = (size_t)(s - start);
		last = !*s;
		if ((n == 1 && start[0] == '.') || (n == 2 && start[0] == '.' && start[1] == '.')) {
			if (verbatim) {
				bad = "\".\" or \"..\" in a \\\\?\\ path, which Windows does not "
				      "resolve";
				break;
			}
			if (n == 2) {
				/* Drop the last name and its separator; the root stays. */
				while (o > root && buf[o - 1] != '\\')
					o--;
				if (o > root)
					o--;
			}
			continue;
		}
		if (ends_in_dot_or_space(start, n)) {
			if (verbatim || !last) {
				bad = verbatim ? "a name ending in a dot or a space in a \\\\?\\ "
						 "path"
					       : "a directory name ending in a dot or a space "
						 "(Windows "
						 "resolves it differently by path form)";
				break;
			}
			/* Win32 strips them from the last component; nothing left, no name. */
			while (n > 0 && (start[n - 1] == '.' || start[n - 1] == ' '))
				n--;
			if (n == 0)
				continue;
		}
		bad = bad_component(start, n);
		if (bad)
			break;
		if (buf[o - 1] != '\\')
			buf[o++] = '\\';
		memcpy(buf + o, start, n);
		o += n;
	}
	if (bad) {
		free(buf);
		return refuse(why, bad);
	}
	buf[o] = '\0';
	*out = buf;
	return 0;
}

bool sbx_win_path_is_volume_root(const char *p)
{
	size_t seps = 0;

	if (!p)
		return false;
	if (is_alpha(p[0]) && p[1] == ':')
		return p[2] == '\\' && !p[3];
	if (p[0] != '\\' || p[1] != '\\')
		return false;
	for (const char *s = p + 2; *s; s++)
		seps += *s == '\\';
	return seps == 1;
}

bool sbx_win_is_batch_file(const char *path)
{
	const char *name = path, *dot = NULL;
	size_t n;

	for (const char *s = path; *s; s++)
		if (is_sep(*s))
			name = s + 1;
	/* A stream of the file ("t.bat::$DATA") runs the file itself. */
	if (strchr(name, ':') &&
	    !(name == path && is_alpha(path[0]) && path[1] == ':' && !strchr(path + 2, ':')))
		return true;
	n = strlen(name);
	while (n > 0 && (name[n - 1] == '.' || name[n - 1] == ' '))
		n--;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '.')
			dot = name + i;
	if (!dot)
		return false;
	return ieq(dot, (size_t)(name + n - dot), ".bat") ||
	       ieq(dot, (size_t)(name + n - dot), ".cmd");
}

bool sbx_win_batch_arg_safe(const char *a)
{
	if (!*a)
		return false;
	for (; *a; a++) {
		unsigned char c = (unsigned char)*a;

		if (!(is_alpha((char)c) || (c >= '0' && c <= '9') || strchr("-_.,:/\\=+@#~", c) ||
		      c >= 0x80))
			return false;
	}
	return true;
}

/* ---- program resolution -------------------------------------------------------------------- */

/* The extensions CreateProcess can start, in PATHEXT's order. */
struct exts {
	const char *v[4];
	size_t n;
};

static void parse_pathext(const char *pathext, struct exts *e)
{
	static const char *const runnable[] = {".COM", ".EXE", ".BAT", ".CMD"};
	const char *s = pathext && *pathext ? pathext : ".COM;.EXE;.BAT;.CMD";

	e->n = 0;
	while (*s) {
		const char *item = s;
		size_t n;

		while (*s && *s != ';')
			s++;
		n = (size_t)(s - item);
		while (n > 0 && (item[0] == ' ' || item[0] == '\t')) {
			item++;
			n--;
		}
		while (n > 0 && (item[n - 1] == ' ' || item[n - 1] == '\t'))
			n--;
		for (size_t i = 0; i < 4; i++) {
			bool seen = false;

			if (!ieq(item, n, runnable[i]))
				continue;
			for (size_t j = 0; j < e->n; j++)
				seen |= e->v[j] == runnable[i];
			if (!seen)
				e->v[e->n++] = runnable[i];
		}
		if (*s)
			s++;
	}
}

/* The last component of a canonical path has an extension (a dot after its first character). */
static bool has_extension(const char *canonical)
{
	const char *name = strrchr(canonical, '\\');

	name = name ? name + 1 : canonical;
	return name[0] && strchr(name + 1, '.') != NULL;
}

/*
 * Tries base, canonicalized, with the extensions when it has none, then as it is. Returns 1 and
 * *out when found, 0 when not, -ENOMEM; *why when base cannot be canonicalized.
 */
static int try_base(const char *base, const struct exts *e, sbx_win_is_file_fn is_file, void *arg,
		    char **out, const char **why)
{
	char *n = NULL;
	int r = sbx_win_path_normalize(base, &n, why);

	if (r == -EINVAL)
		return 0;
	if (r)
		return r;
	if (!has_extension(n)) {
		size_t len = strlen(n);
		char *cand = malloc(len + 5);

		if (!cand) {
			free(n);
			return -ENOMEM;
		}
		for (size_t i = 0; i < e->n; i++) {
			memcpy(cand, n, len);
			memcpy(cand + len, e->v[i], 5);
			if (is_file(cand, arg)) {
				free(n);
				*out = cand;
				return 1;
			}
		}
		free(cand);
	}
	if (is_file(n, arg)) {
		*out = n;
		return 1;
	}
	free(n);
	return 0;
}

static char *join(const char *dir, size_t dlen, const char *name)
{
	size_t n = strlen(name);
	char *s = malloc(dlen + n + 2);

	if (!s)
		return NULL;
	memcpy(s, dir, dlen);
	s[dlen] = '\\';
	memcpy(s + dlen + 1, name, n + 1);
	return s;
}

static bool is_windows_abs(const char *p, size_t n)
{
	return (n >= 3 && is_alpha(p[0]) && p[1] == ':' && is_sep(p[2])) ||
	       (n >= 2 && is_sep(p[0]) && is_sep(p[1]));
}

int sbx_win_resolve_program(const char *prog, const char *cwd, const char *path_env,
			    const char *pathext_env, sbx_win_is_file_fn is_file, void *arg,
			    char **out, struct sbx_diag *d)
{
	const char *why = NULL;
	struct exts e;
	int r = 0;

	*out = NULL;
	parse_pathext(pathext_env, &e);
	if (!prog || !*prog)
		return sbx_diag_set(d, -ENOENT, "an empty program name: command not found");
	if (is_alpha(prog[0]) && prog[1] == ':' && !is_sep(prog[2]))
		return sbx_diag_set(d, SBX_E_USAGE,
				    "%s: a drive-relative program name depends on that drive's "
				    "current directory; give the full path",
				    prog);
	if (is_sep(prog[0]) && !is_sep(prog[1]))
		return sbx_diag_set(d, SBX_E_USAGE,
				    "%s: a root-relative program name depends on the current "
				    "drive; give the full path",
				    prog);

	if (strpbrk(prog, "\\/:")) {
		/* A path: taken as given, a relative one against the command's directory. */
		char *base;

		if (is_windows_abs(prog, strlen(prog))) {
			base = strdup(prog);
		} else {
			if (!cwd || !is_windows_abs(cwd, strlen(cwd)))
				return sbx_diag_set(d, SBX_E_USAGE,
						    "%s: a relative program name needs a Windows "
						    "working directory",
						    prog);
			base = join(cwd, strlen(cwd), prog);
		}
		if (!base)
			return sbx_diag_set(d, -ENOMEM, "out of memory");
		r = try_base(base, &e, is_file, arg, out, &why);
		free(base);
	} else {
		/* A bare name: PATH's absolute directories, nothing else. */
		const char *s = path_env ? path_env : "";

		while (*s && r == 0) {
			const char *dir = s;
			size_t n;
			char *base;

			while (*s && *s != ';')
				s++;
			n = (size_t)(s - dir);
			if (*s)
				s++;
			if (n >= 2 && dir[0] == '"' && dir[n - 1] == '"') {
				dir++;
				n -= 2;
			}
			if (!is_windows_abs(dir, n))
				continue; /* empty or relative: the current directory by another name */
			base = join(dir, n, prog);
			if (!base)
				return sbx_diag_set(d, -ENOMEM, "out of memory");
			r = try_base(base, &e, is_file, arg, out, &why);
			free(base);
		}
		why = NULL; /* a bad PATH entry is skipped, not reported */
	}
	if (r < 0)
		return sbx_diag_set(d, r, "out of memory");
	if (r == 0) {
		if (why)
			return sbx_diag_set(d, -ENOENT, "%s: command not found (%s)", prog, why);
		return sbx_diag_set(d, -ENOENT, "%s: command not found", prog);
	}
	return 0;
}
