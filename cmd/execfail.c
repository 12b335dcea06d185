/* SPDX-License-Identifier: MIT */
/*
 * execfail.c - the words of the Linux helper when the command cannot be executed inside the
 * sandbox. When the profile is the cause (it does not let the program, or the interpreter the
 * kernel loads for it, be read), they name the rule that refused it, in the words of
 * `sbxrun access`, and the grant that would allow it. This runs after the point of no return,
 * inside the sandbox: it looks the program up as execvp did (stat, and its first bytes, which
 * the sandbox may refuse: it then knows less, never more) and decides nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "unix/exec.h"

/*
 * Where path leads. A sandbox may hide the end of the way (a denied directory is an empty
 * mount): then where its parent leads, and the last name, so the rule that hides it is found.
 */
static char *lead(const char *path)
{
	char *r = realpath(path, NULL), *dir, *out = NULL, target[PATH_MAX];
	const char *base;
	ssize_t n;

	if (r)
		return r;
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		char *abs = NULL, *slash;

		target[n] = 0;
		/* A relative link is read from the link's own directory. */
		slash = strrchr(path, '/');
		if (asprintf(&abs, "%.*s/%s", (int)(slash ? slash - path : 0), path, target) < 0)
			return NULL;
		out = target[0] == '/' ? strdup(target) : abs;
		if (out != abs)
			free(abs);
		if (!out)
			return NULL;
		path = out;
	}
	base = strrchr(path, '/');
	dir = base ? strndup(path, (size_t)(base - path)) : NULL;
	r = dir ? realpath(dir[0] ? dir : "/", NULL) : NULL;
	free(dir);
	if (r && base && asprintf(&dir, "%s%s", strcmp(r, "/") ? r : "", base) >= 0) {
		free(r);
		free(out);
		return dir;
	}
	free(r);
	free(out);
	return NULL;
}

int exec_failure_words(void *arg, int err, struct sbx_diag *d)
{
	const struct exec_failure *x = arg;
	const char *name = x->argv[0], *refused = NULL;
	char prog[PATH_MAX], interp[PATH_MAX] = "", *why = NULL;
	char *real = NULL, *interp_real = NULL;
	int status = err == ENOENT || err == ENOTDIR ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC, r = 0;
	struct sbx_access_why a;
	long denied = -1;

	/*
	 * Not found, but execve met EACCES: a deny entry's empty mount may hide the program, or
	 * a directory on its way (a denied PATH directory), from this look-up as from execve.
	 * The first such file on the way execvp took is the one the rule refused.
	 */
	if (exec_find_program(name, x->cwd, prog, sizeof(prog)) ||
	    (err == EACCES && exec_find_hidden(name, x->cwd, prog, sizeof(prog)))) {
		const char *paths[SBX_EXEC_PATHS];

		real = lead(prog);
		exec_find_interpreter(prog, interp, sizeof(interp));
		/* A script without "#!" went to the shell (sbx_execvp): the profile may refuse it. */
		if (!interp[0] && err == ENOEXEC && sbx_exec_for_shell(prog))
			snprintf(interp, sizeof(interp), "%s", SBX_EXEC_SHELL);
		if (interp[0])
			interp_real = lead(interp);
		paths[0] = prog;
		paths[1] = real;
		paths[2] = interp[0] ? interp : NULL;
		paths[3] = interp_real;
		r = sbx_exec_refusal(x->plan, x->ctx, paths, sbx_linux_minimal_paths, &why,
				     &refused);
	}
	if (r == 1 &&
	    sbx_read_rule(x->plan, NULL, x->ctx, refused, sbx_linux_minimal_paths, &a) == 0) {
		denied = a.entry;
		sbx_access_why_free(&a);
	}
	/*
	 * The kernel found no interpreter, and no deny entry's empty mount hides it: what no
	 * entry grants, Landlock alone refuses (EACCES), and a look-up sees through that. It is
	 * not there at all, as in an unconfined run; a grant would not let it run.
	 */
	if (r == 1 && status == EXIT_NOT_FOUND && denied < 0 && interp[0] && refused != prog &&
	    refused != real && exec_missing(x->cwd, interp))
		r = 0;
	if (r == 1) {
		/*
		 * Found, and refused by the profile: it cannot be executed (as a bad interpreter).
		 * A deny entry wins over any read grant of the same or a wider path: the hint
		 * cannot be --read then.
		 */
		sbx_diag_set(d, -err, "%s: cannot execute: %s", name, why);
		if (denied >= 0)
			sbx_diag_hint(d, -err,
				      "a deny wins over a read grant: drop entries[%ld] (or the "
				      "--deny that made it) to let the command read %s",
				      denied, refused);
		else
			sbx_diag_hint(d, -err,
				      "let the command read it: --read %s, or a read entry in the "
				      "profile",
				      refused);
		status = EXIT_CANNOT_EXEC;
	} else if (status == EXIT_NOT_FOUND && interp[0] && exec_missing(x->cwd, interp)) {
		/* The same words and statuses as an unconfined run (cmd/run.c exec_direct). */
		sbx_diag_set(d, -err, "%s: cannot execute: interpreter %s not found", name, interp);
	} else if (status == EXIT_NOT_FOUND) {
		sbx_diag_set(d, -err, "%s: command not found", name);
		if (subcommand_meant(name))
			sbx_diag_hint(d, -err, "did you mean 'sbxrun %s'?", subcommand_meant(name));
	} else {
		sbx_diag_set(d, -err, "%s: cannot execute: %s", name,
			     exec_strerror(x->cwd, name, err));
	}
	free(real);
	free(interp_real);
	free(why);
	return status;
}
