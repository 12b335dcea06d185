/* SPDX-License-Identifier: MIT */
/*
 * main.c - multi-call dispatch. basename(argv[0]) picks the program (sbxrun, or the Linux helper
 * sbxrun-linux-sandbox); for sbxrun a first argument that is exactly a subcommand name picks the
 * subcommand, and anything else is `run` (so `sbxrun -- explain` runs a program called explain).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#ifdef __linux__
#include "linux/linux.h"
#endif
#ifdef _WIN32
#include "windows/windows.h"
#endif

static int main_sbxrun(int argc, char **argv);

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} programs[] = {
	{"sbxrun", main_sbxrun},
#ifdef __linux__
	{"sbxrun-linux-sandbox", sbx_helper_main},
#endif
};

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} subcommands[] = {
	{"run", cmd_run},
	{"explain", cmd_explain},
	{"probe", cmd_probe},
	{"access", cmd_access},
	{"convert", cmd_convert},
	{"merge", cmd_merge},
	{"intersect", cmd_intersect},
	{"context", cmd_context},
	{"proxy", cmd_proxy},
};

const char *subcommand_meant(const char *name)
{
	const char *names[sizeof(subcommands) / sizeof(subcommands[0]) + 1];
	const char *m;
	size_t n = 0;

	if (strcmp(name, "help") == 0)
		return "--help";
	for (; n < sizeof(subcommands) / sizeof(subcommands[0]); n++)
		names[n] = subcommands[n].name;
	names[n] = NULL;
	/* Exactly a subcommand's name: it was run as a command on purpose (sbxrun -- explain). */
	m = sbx_suggest(name, names);
	return m && strcmp(m, name) != 0 ? m : NULL;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
#ifdef _WIN32
	const char *b = strrchr(p, '\\');

	if (b && (!s || b > s))
		s = b;
#endif
	return s ? s + 1 : p;
}

/*
 * What sbxrun printed is its answer (a plan, a conversion, the help): written to a full disk or
 * a closed standard output it is lost, and a script that saved it must not take it as given.
 * As coreutils and git do, a failed write is said and fails the subcommand (125). A run that
 * reaches here printed nothing there (the command's output is its own), so its status stays.
 */
static int stdout_checked(int rc)
{
	if (fflush(stdout) != 0) {
		fprintf(stderr, "sbxrun: cannot write standard output: %s\n", strerror(errno));
		return EXIT_REFUSED;
	}
	/* An earlier write failed, whose errno may be another call's by now. */
	if (ferror(stdout)) {
		fputs("sbxrun: cannot write standard output\n", stderr);
		return EXIT_REFUSED;
	}
	return rc;
}

static int main_sbxrun(int argc, char **argv)
{
	if (argc > 1) {
		if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
			printf("sbxrun %s\n", SBX_VERSION);
			return stdout_checked(0);
		}
		for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
			if (strcmp(argv[1], subcommands[i].name) == 0)
				return stdout_checked(subcommands[i].fn(argc - 1, argv + 1));
	}
	return stdout_checked(cmd_run(argc, argv));
}

int main(int argc, char **argv)
{
	const char *name;

#ifdef _WIN32
	/* The C runtime's argv is in the ANSI code page: take the UTF-16 command line instead. */
	if (sbx_windows_utf8_argv(&argc, &argv) < 0) {
		fputs("sbxrun: cannot read the command line as Unicode\n", stderr);
		return EXIT_REFUSED;
	}
#endif
	/* argc can be 0 when a caller execs us with an empty argv: behave as plain sbxrun. */
	if (argc < 1 || !argv[0]) {
		static char *fallback[] = {(char *)"sbxrun", NULL};

		return main_sbxrun(1, fallback);
	}
	name = base_name(argv[0]);
#ifdef _WIN32
	/* sbxrun.exe */
	if (strncmp(name, "sbxrun", 6) == 0 && (name[6] == '.' || !name[6]))
		return main_sbxrun(argc, argv);
#endif
	for (size_t i = 0; i < sizeof(programs) / sizeof(programs[0]); i++)
		if (strcmp(name, programs[i].name) == 0)
			return programs[i].fn(argc, argv);
	/* Any other name (a renamed or versioned copy) is sbxrun itself. */
	return main_sbxrun(argc, argv);
}
