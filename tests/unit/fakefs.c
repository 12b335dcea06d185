/* SPDX-License-Identifier: MIT */
/* fakefs.c - the planner's file system as listed facts (see fakefs.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakefs.h"

int fakefs_errno(const char *name)
{
	static const struct {
		const char *name;
		int err;
	} names[] = {
		{"EACCES", EACCES}, {"ELOOP", ELOOP},	{"ENAMETOOLONG", ENAMETOOLONG},
		{"EIO", EIO},	    {"EPERM", EPERM},	{"ENOTDIR", ENOTDIR},
		{"ENOENT", ENOENT}, {"ESTALE", ESTALE},
	};

	for (size_t i = 0; name && i < sizeof(names) / sizeof(*names); i++)
		if (strcmp(names[i].name, name) == 0)
			return names[i].err;
	return 0;
}

static const char *str_of(json_t *e, const char *key)
{
	json_t *v = json_is_object(e) ? json_object_get(e, key) : NULL;

	return json_is_string(v) ? json_string_value(v) : NULL;
}

static const char *type_of(json_t *e)
{
	if (json_is_string(e))
		return json_string_value(e);
	return str_of(e, "type") ? str_of(e, "type") : "dir";
}

/* Looks path up: its entry, resolving links listed above it; depth bounds link chains. */
static int find(struct fakefs *f, const char *path, struct sbx_pathinfo *out, int depth)
{
	char buf[SBX_MAX_PATH];
	size_t len = strlen(path);
	json_t *e;

	if (depth > SBX_MAX_LINK_HOPS)
		return -ELOOP;
	if (len >= sizeof(buf))
		return -ENAMETOOLONG;
	/* The directories above, shallow to deep: a failure or a link there decides. */
	for (size_t i = 1; i < len; i++) {
		if (path[i] != '/')
			continue;
		memcpy(buf, path, i);
		buf[i] = '\0';
		e = json_object_get(f->paths, buf);
		if (!e)
			continue;
		if (fakefs_errno(str_of(e, "errno")))
			return -fakefs_errno(str_of(e, "errno"));
		if (strcmp(type_of(e), "file") == 0 || strcmp(type_of(e), "missing") == 0)
			return 0; /* absent below a file (ENOTDIR) or a missing directory */
		if (str_of(e, "real")) {
			char there[SBX_MAX_PATH];
			int r;

			snprintf(there, sizeof(there), "%s%s", str_of(e, "real"), path + i);
			r = find(f, there, out, depth + 1);
			if (r == 0 && !out->link[0]) {
				snprintf(out->link, sizeof(out->link), "%s", str_of(e, "link"));
				out->link_shared = json_is_true(json_object_get(e, "shared"));
			}
			return r;
		}
	}
	e = json_object_get(f->paths, path);
	if (!e)
		return 0;
	if (fakefs_errno(str_of(e, "errno")))
		return -fakefs_errno(str_of(e, "errno"));
	if (str_of(e, "real")) {
		int r = find(f, str_of(e, "real"), out, depth + 1);

		if (r == 0 && !out->link[0]) {
			snprintf(out->link, sizeof(out->link), "%s", str_of(e, "link"));
			out->link_shared = json_is_true(json_object_get(e, "shared"));
		}
		out->is_link = true;
		return r;
	}
	if (strcmp(type_of(e), "missing") == 0)
		return 0;
	out->exists = true;
	out->type = strcmp(type_of(e), "file") == 0 ? SBX_FT_REG : SBX_FT_DIR;
	out->mode = out->type == SBX_FT_DIR ? 040755 : 0100644;
	out->linked = json_is_true(json_object_get(e, "linked"));
	out->dev = 1;
	out->ino = (unsigned long long)(uintptr_t)e;
	snprintf(out->real, sizeof(out->real), "%s", path);
	return 0;
}

static int fake_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	memset(out, 0, sizeof(*out));
	return find(self, path, out, 0);
}

static int fake_read(void *self, const char *path, char *buf, size_t size, size_t *len)
{
	struct fakefs *f = self;
	struct sbx_pathinfo in;
	const char *text;
	int r = fake_lookup(self, path, &in);

	*len = 0;
	if (r < 0)
		return r;
	if (!in.exists)
		return -ENOENT;
	if (in.type != SBX_FT_REG)
		return -EINVAL;
	text = str_of(json_object_get(f->paths, in.real), "content");
	if (text) {
		*len = strlen(text) < size ? strlen(text) : size;
		memcpy(buf, text, *len);
	}
	return 0;
}

/* The content in chunks of at most size bytes, as a file read through. */
static int fake_read_chunks(void *self, const char *path, char *buf, size_t size,
			    sbx_fs_chunk_fn each, void *arg)
{
	struct fakefs *f = self;
	struct sbx_pathinfo in;
	const char *text;
	size_t len;
	int r = fake_lookup(self, path, &in);

	if (r < 0)
		return r;
	if (!in.exists)
		return -ENOENT;
	if (in.type != SBX_FT_REG)
		return -EINVAL;
	text = str_of(json_object_get(f->paths, in.real), "content");
	for (len = text ? strlen(text) : 0; !r && len; len -= size < len ? size : len) {
		size_t n = size < len ? size : len;

		memcpy(buf, text, n);
		text += n;
		r = each(arg, buf, n);
	}
	return r;
}

static int fake_list(void *self, const char *dir, sbx_fs_list_fn each, void *arg)
{
	struct fakefs *f = self;
	struct sbx_pathinfo in;
	size_t dl = strlen(dir);
	const char *key;
	json_t *e;
	int r = fake_lookup(self, dir, &in);

	if (r < 0)
		return r;
	if (!in.exists)
		return -ENOENT;
	if (in.type != SBX_FT_DIR)
		return -ENOTDIR;
	json_object_foreach(f->paths, key, e)
	{
		const char *name = key + dl + (dl > 1);

		if (strncmp(key, dir, dl) != 0 || (dl > 1 && key[dl] != '/') || !*name ||
		    strchr(name, '/') || strcmp(type_of(e), "missing") == 0)
			continue;
		r = each(arg, name,
			 str_of(e, "real")		   ? SBX_FT_LINK
			 : strcmp(type_of(e), "file") == 0 ? SBX_FT_REG
							   : SBX_FT_DIR);
		if (r)
			return r;
	}
	return 0;
}

/*
 * Whether nothing can be created in dir (struct sbx_fsview.sealed): its entry's "sealed", one
 * of "rofs", "access" or "unmaskable"; none, not sealed.
 */
static int fake_sealed(void *self, const char *dir)
{
	struct fakefs *f = self;
	const char *s = str_of(json_object_get(f->paths, dir), "sealed");

	if (!s)
		return SBX_SEALED_NO;
	return !strcmp(s, "rofs")     ? SBX_SEALED_ROFS
	       : !strcmp(s, "access") ? SBX_SEALED_ACCESS
				      : SBX_SEALED_UNMASKABLE;
}

void fakefs_init(struct fakefs *f, json_t *paths)
{
	f->paths = paths;
	f->view.lookup = fake_lookup;
	f->view.read_file = fake_read;
	f->view.read_chunks = fake_read_chunks;
	f->view.list = fake_list;
	f->view.self = f;
	f->view.lookup_kept = NULL; /* it keeps nothing it finds */
	f->view.ahead = NULL;	    /* nor needs hints: its look-ups are no system calls */
	f->view.sealed = fake_sealed;
}
