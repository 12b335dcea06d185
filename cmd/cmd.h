/* SPDX-License-Identifier: MIT */
/*
 * cmd.h - the command line: options (options.c), errors (errors.c), the shared load-and-plan step
 * (invocation.c), the host backend (backend.c) and the subcommands. See cmd/README.md.
 */
#ifndef SBX_CMD_H
#define SBX_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sbx.h"

/* Exit statuses of sbxrun's own failures (sbxrun(1), EXIT STATUS). */
#define EXIT_REFUSED	 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND	 127

/* The built-in that is :workspace with --allow-git: a name of the command line, not a profile. */
#define BUILTIN_WORKSPACE_GIT ":workspace-git"

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
	OPT_GRANT = 1 << 12,   /* --read, --write, --deny, --network */
	OPT_ENV = 1 << 13,     /* --env-* */
	OPT_MKDIR = 1 << 14,   /* run, explain */
	OPT_VERBOSE = 1 << 15, /* run */
	OPT_DOMAINS = 1 << 16, /* --allow-domain and its companions: sbxrun's proxy */
	OPT_GIT = 1 << 17,     /* --allow-git: run, explain, access */
	OPT_REPORT = 1 << 18,  /* --report FILE|-: run, explain (which opens nothing) */
};
#define OPTS_SHARED                                                                                \
	(OPT_PROFILE | OPT_CWD | OPT_ROOT | OPT_ADD | OPT_SANDBOX | OPT_MANAGED_NET |              \
	 OPT_WINLEVEL | OPT_GRANT | OPT_ENV)
/* What the network may do beyond the profile: run and explain, which plan the network. */
#define OPTS_NETWORK (OPT_UNIX_SOCKET | OPT_LOCAL_BINDING | OPT_DOMAINS)

/*
 * Each repeatable option of a run takes at most this many values: the command line is not where
 * a profile lives (more grants belong in a file for --add-permissions).
 */
#define OPT_LIST_MAX 256

/* A quick grant: --read, --write or --deny PATH, as written. */
struct grant {
	enum sbx_access access;
	const char *path;
};

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
	/* run --allow-domain: managed networking through sbxrun's own proxy. */
	const char *allow_domains[OPT_LIST_MAX], *deny_domains[OPT_LIST_MAX];
	size_t n_allow_domains, n_deny_domains;
	const char *network_log;      /* --network-log FILE: the proxy's decisions */
	bool allow_private_addresses; /* --allow-private-addresses: as for sbxrun proxy */
	bool platform_set;
	enum sbx_platform platform;
	enum sbx_windows_level wlevel;
	bool json;
	const char *to;			   /* convert --to */
	struct grant grants[OPT_LIST_MAX]; /* in command-line order */
	size_t n_grants;
	bool network;	    /* --network */
	bool mkdir;	    /* --mkdir: --write creates a missing directory */
	bool verbose;	    /* -v, or SBXRUN_DEBUG=1 */
	bool allow_git;	    /* --allow-git (sbxrun(1), GIT MODE) */
	const char *report; /* --report FILE|-: the denial report */
	int report_fd;	    /* run: the descriptor opened for it (report_open_fd), or -1 */
	bool report_made;   /* run: report_open_fd made the file (removed if nothing ran) */
	int report_dir;	    /* run: the directory it made it in (report_open_fd), or -1 */
	/* The command's environment (lib/env.c); env_set holds "NAME=VALUE". */
	const char *env_keep[OPT_LIST_MAX], *env_deny[OPT_LIST_MAX], *env_set[OPT_LIST_MAX];
	size_t n_env_keep, n_env_deny, n_env_set;
	bool env_clear, env_deny_secrets, env_offline;
	char **rest; /* positional arguments: the command, or PATHs, or FILEs */
	int n_rest;
};

/*
 * Parses argv (argv[0] is the subcommand name or "sbxrun") accepting only the options in
 * `allowed`. Prints a one-line error and returns EXIT_REFUSED on bad usage, -1 when --help was
 * printed, 0 otherwise.
 */
int opts_parse(struct opts *o, int argc, char **argv, unsigned allowed, bool stop_at_operand);
/*
 * getopt_long() takes any unambiguous prefix of a long option ("--net" for "--network");
 * sbxrun does not: a prefix that names one option today can name another tomorrow ("--deny"
 * once named the proxy's --deny-domain). After getopt_long() returned lo[idx] (idx -1: a short
 * option) with optind next: the word written when it was such a prefix, else NULL.
 */
struct option;
const char *opt_abbreviated(char *const argv[], int next, const struct option *lo, int idx);
/*
 * Was the word before next a long option of lo that takes no value, given one? 1: named in full
 * ("--verbose=1"); 2: a prefix of its name ("--verb=1"), an unknown option; 0: neither. val is
 * getopt's optopt after its '?'.
 */
int opt_given_a_value(char *const argv[], int argc, int next, const struct option *lo, int val);
void usage_print(const char *subcommand, bool to_stderr);

/* Everything run, explain, access and context compute before they differ (invocation.c). */
struct invocation {
	char *cwd;			      /* canonical */
	bool cwd_given;			      /* by --cwd: not the process's own directory */
	char *roots[SBX_MAX_WORKSPACE_ROOTS]; /* canonical workspace roots */
	/* The links each crossed as named (sbx_ctx.cwd_link: a list), or NULL. */
	char *cwd_link, *root_links[SBX_MAX_WORKSPACE_ROOTS];
	size_t n_roots;
	const char *tmpdir;
	struct sbx_ctx ctx;
	struct sbx_profile profile; /* effective (additions merged), not yet materialized */
	const char *profile_name;   /* for messages */
	struct sbx_plan plan;
	bool planned;
	struct sbx_fsmemo memo; /* the plan's look-ups, each made once (invocation_plan) */
	bool memo_on;
	struct sbx_strv env;  /* the command's environment (environ.c), NULL-terminated */
	bool env_changed;     /* an --env-* option was given: env is installed before exec */
	struct sbx_strv made; /* directories --mkdir created, outermost first (mkdir.c) */
	/*
	 * The plan, built without the gitlinks (sbx_ctx.gitlinks_later), failed: nothing was
	 * printed, and run plans again with them, whose refusal is the one worded (run.c).
	 */
	bool plan_again;
	/*
	 * The profile or an addition was read from a stream (standard input, a pipe): it cannot
	 * be read a second time, so run plans once, with the gitlinks (run.c).
	 */
	bool read_once;
	/*
	 * The files the permissions were read from (sbx_ctx.inputs): the profile and each
	 * --add-permissions file, their names made absolute (input_paths, owned), and the link
	 * a ".." in each name follows (input_links, owned, or NULL).
	 */
	struct sbx_input inputs[1 + 16];
	char *input_paths[1 + 16], *input_links[1 + 16];
	size_t n_inputs;
	/* The caller's global git config files and HOME (sbx_ctx.git_globals, .home), owned. */
	char *git_globals[SBX_GIT_GLOBALS], *home;
};

/* Loads the profile and additions and builds the context; prints errors; 0 or EXIT_REFUSED. */
int invocation_load(struct invocation *inv, const struct opts *o, enum sbx_platform platform);
/* Builds the plan and attaches the platform's mechanisms (host facts for the host platform). */
int invocation_plan(struct invocation *inv, const struct opts *o);
/*
 * One line on stderr when the workspace root, taken from the cwd (no --workspace-root), is the
 * file system's root or holds $HOME and the plan makes it writable: all of it is the command's.
 */
void workspace_warn(const struct invocation *inv, const struct opts *o);
void invocation_free(struct invocation *inv);
/* Reads, loads and normalizes an additional-permission file; fills d on error. */
int additional_load_file(const char *file, struct sbx_additional *a, struct sbx_diag *d);
/* The same, and the identity of the file read (sbx_read_file_id). */
int additional_load_file_id(const char *file, struct sbx_additional *a, unsigned long long *dev,
			    unsigned long long *ino, struct sbx_diag *d);

/* The quick grants, merged after the --add-permissions files (grants.c). */
int grants_apply(struct invocation *inv, const struct opts *o);
/* A grant's path made absolute: ~ and ~/ from $HOME, relative from cwd; prints errors. */
int grant_path(const char *arg, enum sbx_access a, const char *cwd, char **out);
/* --mkdir: creates the missing directories --write names (mkdir.c); mkdir_undo removes them. */
int mkdir_grants(struct invocation *inv, const struct opts *o);
/*
 * Makes ~/.config (mode 0700, left after the run) where git's global config would be planted in
 * it and the command could make it (mkdir.c); with will, makes nothing and names it there.
 */
int config_home_make(struct invocation *inv, const struct opts *o, char **will);
void mkdir_undo(struct invocation *inv);
/* The directories run --mkdir would create, for explain (which creates nothing). */
int mkdir_targets(const struct invocation *inv, const struct opts *o, struct sbx_strv *out);

/*
 * The command's environment (environ.c): built by invocation_load (plan NULL), again once the
 * plan is known when --env-offline depends on it, and installed just before exec.
 */
int environ_build(struct invocation *inv, const struct opts *o, const struct sbx_plan *plan);
int environ_install(struct invocation *inv);
void environ_free(struct invocation *inv);
/* The names of what the command sees, sorted: env and what the platform adds (SBXRUN_*). */
int environ_seen(const struct invocation *inv, struct sbx_strv *names);

/* A requirement as explain and -v show it (planprint.c): a missing grant is "skipped". */
struct plan_row {
	const char *status, *mechanism, *why, *hint;
	struct sbx_span self;	      /* where why names the requirement's own path */
	char mech[SBX_MECH_NAME_MAX]; /* where mechanism is written */
};
/* will_create: the paths run --mkdir would create (explain), or NULL. */
void plan_row_view(const struct sbx_req *r, const struct sbx_strv *will_create, struct plan_row *v);
/* The requirements, one per line after lead, then each distinct reason once as a note. */
int plan_print(FILE *f, const char *lead, const struct sbx_plan *p,
	       const struct sbx_strv *will_create);
/* The block -v and SBXRUN_DEBUG=1 print on standard error before running. */
int plan_summary(FILE *f, const struct invocation *inv);

/*
 * The Linux helper's words when the command cannot be executed (execfail.c): names the rule of
 * plan that refused the program or its interpreter; returns the exit status (126 or 127).
 */
struct exec_failure {
	const struct sbx_plan *plan;
	const struct sbx_ctx *ctx;
	char *const *argv;
	const char *cwd; /* the command's */
};
int exec_failure_words(void *arg, int err, struct sbx_diag *d);
/* For a command not found: the subcommand its name most likely misspells ("--help" for
 * "help"), or NULL (main.c). */
const char *subcommand_meant(const char *name);
#ifndef _WIN32
/*
 * What execvp ran into (run.c): the file a command name leads to from cwd (a name with a slash
 * as it is, else the first on PATH) when it is a regular file; the interpreter the kernel loads
 * for a file ("" when none, or it cannot be read); whether a path does not exist.
 */
bool exec_find_program(const char *prog, const char *cwd, char *out, size_t size);
/* The first file on that way whose look-up is refused (EACCES): one a sandbox may hide. */
bool exec_find_hidden(const char *prog, const char *cwd, char *out, size_t size);
void exec_find_interpreter(const char *file, char *out, size_t size);
bool exec_missing(const char *cwd, const char *path);
/* Why execvp failed with err, in words: strerror's, but "Is a directory" for a directory named
 * with a slash, which the kernel refuses with EACCES, as for a file without execute permission. */
const char *exec_strerror(const char *cwd, const char *prog, int err);
#endif

/* Prints a diagnostic as "sbxrun: ..." and returns EXIT_REFUSED (errors.c). */
int refuse_diag(const struct sbx_diag *d);
int refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Puts prefix ("proxy: --allow-domain: ") before d's message, cutting its end if need be. */
void diag_prefix(struct sbx_diag *d, const char *prefix);

/*
 * The audited place where sbxrun reads its own environment for decisions (environ.c), one
 * variable by name. The proxy variables of managed networking, and the TMPDIR of the plan, are
 * read from the environment made for the command (environ.c), as the command will see them.
 */
const char *env_get(const char *name);

/* The host backend: plan the platform, and execute a sandboxed command (backend.c). */
int backend_attach(struct sbx_plan *plan, const struct opts *o);
int backend_argv(const struct invocation *inv, const struct opts *o, char *const cmd[],
		 struct sbx_strv *out, struct sbx_diag *d);
int backend_exec(struct invocation *inv, const struct opts *o, char *const cmd[]);
/* Executes the command unconfined (no sandbox requested); returns only on failure. */
int exec_direct(char *const cmd[], const char *cwd);
/* Prints why a plan cannot be enforced (the rule, the missing feature, a hint). */
int refuse_plan(const struct sbx_plan *p);
/* --report where the platform has no denial report (all but Linux): one line and a hint, 125. */
int report_refuse_platform(enum sbx_platform p);

int cmd_run(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_access(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_intersect(int argc, char **argv);
int cmd_context(int argc, char **argv);
int cmd_proxy(int argc, char **argv);
#ifdef __APPLE__
/* run --allow-domain on macOS: sbxrun's proxy in a child, the proxy variables set to it. */
int own_proxy_start(struct opts *o);
#endif

/*
 * --report FILE|- (report.c, not on Windows): the denial report's file, appended to (- for standard
 * error). report_open_fd opens it, and every other file sbxrun appends to with the caller's rights
 * (--network-log, proxy --log): beneath its directory as the planner's walk found it, refusing a
 * link on the way inside a writable root of plan (unless NULL); O_NOFOLLOW; a regular file or a
 * pipe that has a reader (never waiting for one); close-on-exec; standard error for -; *created,
 * unless NULL, says whether it made the file, and *made_dir, unless NULL, is then the directory it
 * made it in (an O_PATH descriptor to close; -1 otherwise). It returns 0, or 125 with the refusal printed,
 * named by what ("proxy: --report"); report_open does the same (no plan) and wraps the
 * descriptor, report_from_fd wraps one (0 or -ENOMEM). report_add writes one line and counts it,
 * from any thread; in a process forked after report_relay, it writes the line and sends its brief
 * to the owner, who counts it in report_relay_read (the relay's read end, non-blocking; non-zero
 * once it is at its end); a brief the relay has no room for is counted in memory report_relay
 * shares with the forked process, and the summary adds it. report_relay returns that read end,
 * or -errno; report_fds gives what a forked process writes to (the file, the relay's write
 * end), report_shared the memory it counts in (NULL without a relay), which only that process
 * may inherit. report_on_proxy is the proxy's on_decision. report_print_summary prints "sbxrun: N
 * operations were denied (first: ...); see --report" when there was one and the command
 * failed, and, failed or not, a line for lines that could not be written or were left out
 * (past the limit of what a process writes: 16 MiB from each, the supervisor and the proxy's
 * worker; report_from_fd sets it, report_open, the proxy's, has none; or a pipe's reader that
 * stopped reading). A pipe opened non-blocking is waited on (REPORT_STALL_MS at most each line)
 * by any thread but the one that made the report (the supervisor's loop, the proxy's): its
 * lines wait in memory, and the summary and report_close give the last of them REPORT_STALL_MS
 * in all.
 */
struct report;
struct sbx_proxy_event;
int report_open_fd(const char *what, const char *path, const struct sbx_plan *plan, int *out,
		   bool *created, int *made_dir);
/*
 * Removes path's last name from the directory dir (report_open_fd's *made_dir) when it is still
 * the empty regular file fd is open on: the report file this run created, when the run ends
 * before the command started. Nothing without a directory (dir -1).
 */
void report_remove_created(int dir, const char *path, int fd);
/*
 * The helper's dir for report_remove_created: the directory of path (`run` made the file there),
 * opened by the planner's walk, when its name there is still the file fd is open on; else -1.
 */
int report_created_dir(const char *path, int fd);
int report_from_fd(int fd, struct report **out);
int report_open(const char *what, const char *path, struct report **out);
int report_relay(struct report *r);
int report_relay_read(struct report *r);
void report_fds(const struct report *r, int fds[3]);
void *report_shared(const struct report *r, size_t *len);
void report_add(struct report *r, const struct sbx_report_line *l);
/* A line that is no denial (git mode's end-of-run check): written, never in the summary. */
void report_note(struct report *r, const struct sbx_report_line *l);
void report_on_proxy(void *arg, const struct sbx_proxy_event *ev);
void report_print_summary(struct report *r, bool failed);
void report_close(struct report *r);

#ifdef __linux__
/*
 * run --report in the Linux helper (runreport.c): with the descriptor `run` opened (fd), the
 * report view of the plan, the tracer (given to the supervisor in e), the network's refusals
 * (net's filter, broker and proxy), and the summary after the run. e was read off the plan as
 * traced (sbx_linux_enforce_from_plan): its model is init's. 0, or a negative code with d
 * filled; run_report_free undoes what the run did not take.
 */
struct sbx_linux_enforce;
struct sbx_linux_net;
struct sbx_trace;
struct run_report {
	struct report *r;
	struct sbx_report_view view;
	struct sbx_trace *trace;
};
int run_report_start(struct run_report *rr, int fd, const struct sbx_plan *plan,
		     const struct sbx_ctx *ctx, struct sbx_linux_enforce *e,
		     struct sbx_linux_net *net, struct sbx_diag *d);
void run_report_free(struct run_report *rr);
/* What git mode's end-of-run check found at path (may be NULL), in the report (report_note). */
void run_report_git_state(struct run_report *rr, const char *path, const char *rule);
#endif

#endif
