/* SPDX-License-Identifier: MIT */
/*
 * sbpl_eval.h - an interpreter of the SBPL subset sbxrun generates, for tests: it answers "is
 * operation OP on PATH allowed" the way Seatbelt decides it, so a test can state what a policy
 * must do instead of what its text must look like.
 *
 * Semantics (Apple's sandbox profile language, as sandbox-exec(1) applies it):
 *   - rules are read top to bottom and the last rule that matches decides;
 *   - a rule names one or more operations; "default" matches every operation, and a name ending
 *     in "*" matches every operation it prefixes ("file-write*" matches "file-write-unlink");
 *   - a rule without filters matches every instance of its operations; several filters match
 *     when any of them does; require-all, require-any and require-not combine filters;
 *   - literal is the path itself, subpath the path and everything below it (by components),
 *     regex a POSIX extended regular expression searched in the path; (param "K") is the value
 *     of the -DK=VALUE definition;
 *   - (remote ip "HOST:PORT") and (local ip ...) match an address of the other or this end:
 *     HOST is "*" or "localhost" (127.0.0.0/8 and ::1, the only hosts Seatbelt takes), PORT "*"
 *     or a number; (remote unix-socket F) and (local unix-socket F) match a Unix socket whose
 *     path passes the path filter F (any socket without F); socket-domain and socket-protocol
 *     match what system-socket is asked to create.
 * A filter the query gives no answer to (a path filter on a network query, a mach service
 * name, ...) makes the evaluation fail rather than guess.
 */
#ifndef SBX_SBPL_EVAL_H
#define SBX_SBPL_EVAL_H

#include <stddef.h>

struct sbpl_policy;

struct sbpl_query {
	const char *op;	     /* a concrete operation, e.g. "file-read-data" */
	const char *path;    /* file operations: the path as Seatbelt sees it (resolved) */
	const char *vnode;   /* "REGULAR-FILE", "DIRECTORY", "CHARACTER-DEVICE", ... */
	unsigned long ioctl; /* file-ioctl: the request number */
	const char *const *extensions; /* sandbox extensions the process holds, NULL-terminated */
	/*
	 * Network operations: the far end of a network-outbound, the local end of a network-bind
	 * or network-inbound, each "HOST:PORT" (IPv6 in brackets) or a Unix socket's path.
	 */
	const char *remote, *local;
	const char *socket_domain; /* system-socket: "AF_UNIX", "AF_INET", "AF_SYSTEM", ... */
	int socket_protocol;
};

/* Darwin's request numbers of the ioctls the tests ask about. */
#define SBPL_TIOCSTI	0x80017472ul /* _IOW('t', 114, char) */
#define SBPL_TIOCGWINSZ 0x40087468ul /* _IOR('t', 104, struct winsize) */
#define SBPL_TIOCSETA	0x80487414ul /* _IOW('t', 20, struct termios) */

/* The request number of TIOCSTI, TIOCGWINSZ or TIOCSETA; 0 for any other name. */
unsigned long sbpl_ioctl_request(const char *name);

/*
 * Parses policy with its "KEY=VALUE" parameters. Returns NULL with a message in err when the
 * text does not parse (sbpl_reader.c) or a parameter is malformed.
 */
struct sbpl_policy *sbpl_policy_load(const char *policy, char *const params[], size_t n_params,
				     char *err, size_t errlen);
void sbpl_policy_free(struct sbpl_policy *p);

/*
 * 1 when the policy allows q, 0 when it denies it, -1 when it cannot be decided (err says why).
 * *line, when not NULL, is set to the line of the deciding rule.
 */
int sbpl_allows(const struct sbpl_policy *p, const struct sbpl_query *q, int *line, char *err,
		size_t errlen);

#endif
