/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the command line: options (options.c), errors (errors.c), the shared load-and-plan step
 * (invocation.c), the host backend (backend.c) and the subcommands. See cmd/README.md.
 */
#ifndef SBX_CMD_H
#define SBX_CMD_H

#include <stdbool.h>
#include <stddef.h>

#include "sbx.h"

/* Exit statuses of sbxrun's own failures (sbxrun(1), EXIT STATUS). */
#define EXIT_REFUSED	 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND	 127

/* Which options a subcommand accepts (a bit set). */
enum {
	OPT_PROFILE = 1 << 0,
	OPT_CWD = 1 << 1,
	OPT_ROOT = 1 << 2,
	OPT_ADD = 1 << 3,
	OPT_SANDBOX = 1 << 4,
	OPT_MANAGED_NET = 1 << 5,
	OPT_PLATFORM = 1 << 6,
	OPT_WINLEVEL = 1 << 7,
	OPT_JSON = 1 << 8,
	OPT_TO = 1 << 9,
	OPT_UNIX_SOCKET = 1 << 10,
	OPT_LOCAL_BINDING = 1 << 11,
};
#define OPTS_SHARED                                                                                \
	(OPT_PROFILE | OPT_CWD | OPT_ROOT | OPT_ADD | OPT_SANDBOX | OPT_MANAGED_NET | OPT_WINLEVEL)
/* What the network may do beyond the profile: run and explain, which plan the network. */
#define OPTS_NETWORK (OPT_UNIX_SOCKET | OPT_LOCAL_BINDING)

struct opts {
	const char *subcommand;
	const char *profile; /* FILE, :NAME or - */
	const char *cwd;
	const char *roots[SBX_MAX_WORKSPACE_ROOTS];
	size_t n_roots;
	const char *add[16];
	size_t n_add;
	enum sbx_pref pref;
	bool managed_network;
	const char *unix_sockets[SBX_MAX_UNIX_SOCKETS]; /* --allow-unix-socket */
	size_t n_unix_sockets;
	bool allow_local_binding;
	bool platform_set;
	enum sbx_platform platform;
	enum sbx_windows_level wlevel;
	bool json;
	const char *to; /* convert --to */
	char **rest;	/* positional arguments: the command, or PATHs, or FILEs */
	int n_rest;
};

/*
 * Parses argv (argv[0] is the subcommand name or "sbxrun") accepting only the options in
 * `allowed`. Prints a one-line error and returns EXIT_REFUSED on bad usage, -1 when --help was
 * printed, 0 otherwise.
 */
int opts_parse(struct opts *o, int argc, char **argv, unsigned allowed, bool stop_at_operand);
void usage_print(const char *subcommand, bool to_stderr);

/* Everything run, explain, access and context compute before they differ (invocation.c). */
struct invocation {
	char *cwd;			      /* canonical */
	char *roots[SBX_MAX_WORKSPACE_ROOTS]; /* canonical workspace roots */
	size_t n_roots;
	const char *tmpdir;
	struct sbx_ctx ctx;
	struct sbx_profile profile; /* effective (additions merged), not yet materialized */
	const char *profile_name;   /* for messages */
	struct sbx_plan plan;
	bool planned;
};

/* Loads the profile and additions and builds the context; prints errors; 0 or EXIT_REFUSED. */
int invocation_load(struct invocation *inv, const struct opts *o, enum sbx_platform platform);
/* Builds the plan and attaches the platform's mechanisms (host facts for the host platform). */
int invocation_plan(struct invocation *inv, const struct opts *o);
void invocation_free(struct invocation *inv);
/* Reads, loads and normalizes an additional-permission file; fills d on error. */
int additional_load_file(const char *file, struct sbx_additional *a, struct sbx_diag *d);

/* Prints a diagnostic as "sbxrun: ..." and returns EXIT_REFUSED (errors.c). */
int refuse_diag(const struct sbx_diag *d);
int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The audited places where sbxrun reads its environment for decisions (invocation.c): one
 * variable by name, and the whole environment for the proxy variables of managed networking.
 */
const char *env_get(const char *name);
char *const *env_proxies(void);

/* The host backend: plan the platform, and execute a sandboxed command (backend.c). */
int backend_attach(struct sbx_plan *plan, const struct opts *o);
int backend_argv(const struct invocation *inv, const struct opts *o, char *const cmd[],
		 char ***argv, size_t *argc);
int backend_exec(struct invocation *inv, char *const cmd[]);
/* Executes the command unconfined (no sandbox requested); returns only on failure. */
int exec_direct(char *const cmd[], const char *cwd);
/* Prints why a plan cannot be enforced (the rule, the missing feature, a hint). */
int refuse_plan(const struct sbx_plan *p);

int cmd_run(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_access(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_intersect(int argc, char **argv);
int cmd_context(int argc, char **argv);
int cmd_proxy(int argc, char **argv);

#endif
