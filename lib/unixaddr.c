/* SPDX-License-Identifier: MIT */
/*
 * unixaddr.c - the file a Unix socket address names, and the place of the allow-list it lies
 * beneath: the pure part of the broker (platform/linux/broker.c), which reads the address from
 * a hostile command's memory. Kept apart so that it is fuzzed (tests/fuzz/fuzz_unix.c) without
 * a seccomp listener, and portable (no sockaddr_un: its sun_path bytes are passed).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "sbx.h"

/* Does p (not empty) name a directory by its form: a trailing "/" or a last "." component? */
static bool ends_in_dir(const char *p)
{
	size_t n = strlen(p);

	return p[n - 1] == '/' || (p[n - 1] == '.' && (n == 1 || p[n - 2] == '/'));
}

int sbx_unix_address_path(const char *sun_path, size_t n, const char *cwd, char **out)
{
	char raw[SBX_UNIX_PATH_MAX + 1], *joined = NULL;
	int r;

	*out = NULL;
	/* No path: unnamed, longer than the structure (the kernel's EINVAL), or abstract. */
	if (n == 0 || n > SBX_UNIX_PATH_MAX || sun_path[0] == '\0')
		return -EINVAL;
	memcpy(raw, sun_path, n);
	raw[n] = '\0'; /* the kernel reads up to the first NUL too */
	/*
	 * The broker walks a name without following a link, and the kernel climbs a ".." from
	 * where a link before it leads: read lexically, "a/link/../s" would connect a/s, another
	 * socket than the kernel's, and "a/missing/../s" one where the kernel finds none. So ".."
	 * is refused, as any name the broker does not connect (EACCES, the kernel's answer for a
	 * socket its caller may not write), whatever exists there: not ENOENT, which would say
	 * the socket is missing, nor EINVAL, as the kernel takes the address.
	 */
	if (sbx_path_has_dotdot(raw))
		return -EACCES;
	/*
	 * A name ending in "/" or in a "." component must be a directory, which a socket never
	 * is: the kernel connects none (ENOTDIR, for a socket there: "s/." climbs into s).
	 * Answered so for every such name, the answer says nothing of what exists; read
	 * lexically, the slash or the dot was dropped and the socket connected.
	 */
	if (ends_in_dir(raw))
		return -ENOTDIR;
	if (raw[0] == '/') {
		r = sbx_path_normalize(raw, out);
	} else {
		/* A relative name is the command's working directory's; without one, no decision. */
		if (!cwd || cwd[0] != '/' || strlen(cwd) >= SBX_MAX_PATH)
			return -EACCES;
		if (asprintf(&joined, "%s/%s", cwd, raw) < 0)
			return -ENOMEM;
		r = sbx_path_normalize(joined, out);
		free(joined);
	}
	if (r < 0)
		return r;
	/*
	 * What lies beneath a place travels to the connector in SBX_MAX_PATH bytes: a longer path
	 * would arrive cut short, naming another file than the command's.
	 */
	if (strlen(*out) >= SBX_MAX_PATH) {
		free(*out);
		*out = NULL;
		return -ENAMETOOLONG;
	}
	return 0;
}

int sbx_unix_beneath(const char *place, const char *path, char *rel, size_t size)
{
	size_t pl = strlen(place);
	const char *rest;

	if (!sbx_path_covers(place, path))
		return 0;
	/* "" for the place itself; "/" covers all. */
	rest = pl == 1 ? path + 1 : path[pl] == '/' ? path + pl + 1 : path + pl;
	if (strlen(rest) >= size)
		return -ENAMETOOLONG;
	memcpy(rel, rest, strlen(rest) + 1);
	return 1;
}
