/* SPDX-License-Identifier: MIT */
/*
 * fuzz_unix.c - libFuzzer target for the broker's reading of a Unix socket address
 * (lib/unixaddr.c), which a confined command fills as it likes. An input is one byte, the
 * address's length as the command gives it (up to 255, past sun_path too), the address's bytes
 * (as many as there are), then lines: the working directory the supervisor read, and the
 * places of the allow-list. The answer must hold up:
 *   - an address is read only within its length and up to its first NUL, as the kernel reads
 *     it, and names no file when empty, abstract or longer than sun_path;
 *   - a name with a ".." component is refused (EACCES), one ending in "/" or in a "."
 *     component is ENOTDIR;
 *   - the path named is the lexical join of the working directory and the address, normalized,
 *     absolute, shorter than SBX_MAX_PATH;
 *   - a place is chosen exactly when it covers the path, and the place joined to what lies
 *     beneath it is the path again, with no "." or ".." and no empty component left to walk.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define PLACES_MAX 8

static void must(bool ok, const char *what)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_unix: %s\n", what);
	abort();
}

/*
 * What the kernel would name, computed the simple way; NULL when it names no file, *err then
 * the refusal a ".." component, a trailing "/" or a last "." must get (0 for the others).
 */
static char *expected(const char *addr, size_t n, const char *cwd, int *err)
{
	char *raw, *joined, *out = NULL;
	size_t len = strnlen(addr, n);

	*err = 0;
	if (n == 0 || n > SBX_UNIX_PATH_MAX || len == 0)
		return NULL;
	raw = strndup(addr, len);
	must(raw != NULL, "out of memory");
	for (char *c = raw; *c && !*err; c++)
		if (c[0] == '.' && c[1] == '.' && (c == raw || c[-1] == '/') &&
		    (c[2] == '/' || c[2] == '\0'))
			*err = -EACCES;
	if (!*err &&
	    (raw[len - 1] == '/' || (raw[len - 1] == '.' && (len == 1 || raw[len - 2] == '/'))))
		*err = -ENOTDIR;
	if (*err) {
		free(raw);
		return NULL;
	}
	if (raw[0] == '/') {
		if (sbx_path_normalize(raw, &out) < 0)
			out = NULL;
	} else if (cwd && cwd[0] == '/' && strlen(cwd) < SBX_MAX_PATH) {
		must(asprintf(&joined, "%s/%s", cwd, raw) >= 0, "out of memory");
		if (sbx_path_normalize(joined, &out) < 0)
			out = NULL;
		free(joined);
	}
	free(raw);
	if (out && strlen(out) >= SBX_MAX_PATH) {
		free(out);
		out = NULL;
	}
	return out;
}

static void check_rel(const char *place, const char *path, const char *rel)
{
	char *again = NULL;
	const char *s;

	must(rel[0] != '/', "what lies beneath starts with a slash");
	if (!rel[0]) {
		must(strcmp(place, path) == 0, "nothing beneath, yet not the place");
		return;
	}
	must(asprintf(&again, "%s%s%s", place, strcmp(place, "/") ? "/" : "", rel) >= 0,
	     "out of memory");
	must(strcmp(again, path) == 0, "place and what lies beneath are not the path");
	free(again);
	for (s = rel;;) {
		size_t c = strcspn(s, "/");

		must(c > 0, "an empty component beneath the place");
		must(!(c == 1 && s[0] == '.'), "a \".\" beneath the place");
		must(!(c == 2 && s[0] == '.' && s[1] == '.'), "a \"..\" beneath the place");
		if (!s[c])
			break;
		s += c + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *addr, *text, *line, *save = NULL, *path = NULL, *want, *cwd = NULL;
	char *places[PLACES_MAX];
	size_t n, avail, n_places = 0;
	int r, err;

	if (size < 1)
		return 0;
	n = data[0];
	avail = size - 1 < n ? size - 1 : n;
	/* The address in a buffer of exactly its length: ASan sees a read past it. */
	addr = malloc(n ? n : 1);
	must(addr != NULL, "out of memory");
	memset(addr, 0, n ? n : 1);
	memcpy(addr, data + 1, avail);
	text = strndup((const char *)data + 1 + avail, size - 1 - avail);
	must(text != NULL, "out of memory");
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!cwd) {
			cwd = line;
			continue;
		}
		if (n_places < PLACES_MAX && sbx_path_normalize(line, &places[n_places]) == 0)
			n_places++;
	}
	/* A cwd past SBX_MAX_PATH is what readlink(2) never gives: kept, it must be refused. */
	r = sbx_unix_address_path(addr, n, cwd, &path);
	want = expected(addr, n, cwd, &err);
	must(!err || r == err, "a \"..\" or a trailing \"/\" not refused as it must be");
	if (r < 0) {
		must(path == NULL, "a path with an error");
		must(r == -EINVAL || r == -EACCES || r == -ENAMETOOLONG || r == -ENOTDIR,
		     "an unexpected error");
		must(want == NULL, "an address that names a file refused");
	} else {
		must(r == 0, "an unexpected answer");
		must(want != NULL, "an address that names no file read as a path");
		must(strcmp(path, want) == 0, "another path than the address names");
		must(strlen(path) < SBX_MAX_PATH, "a path too long for the connector");
		for (size_t i = 0; i < n_places; i++) {
			char rel[SBX_MAX_PATH];
			int k = sbx_unix_beneath(places[i], path, rel, sizeof(rel));

			must(k == (sbx_path_covers(places[i], path) ? 1 : 0),
			     "a place chosen other than by covering");
			if (k == 1)
				check_rel(places[i], path, rel);
			/* A small room: refused whole, never cut short. */
			k = sbx_unix_beneath(places[i], path, rel, 8);
			if (k == 1)
				check_rel(places[i], path, rel);
			else
				must(k == 0 || k == -ENAMETOOLONG,
				     "an unexpected answer in a small room");
		}
	}
	free(want);
	free(path);
	for (size_t i = 0; i < n_places; i++)
		free(places[i]);
	free(text);
	free(addr);
	return 0;
}
