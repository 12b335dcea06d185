/* SPDX-License-Identifier: MIT */
/*
 * emit.c - model to canonical wire JSON: compact, keys in the documented order, aliases written
 * in their canonical spelling ("none" as "deny", current_working_directory as project_roots).
 */
#include <jansson.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "sbx.h"

/*
 * jansson's setters steal the value and fail on NULL, so a failed allocation anywhere below
 * surfaces as a failed set, which every builder turns into NULL.
 */
static bool set(json_t *obj, const char *key, json_t *v)
{
	return json_object_set_new(obj, key, v) == 0;
}

static json_t *finish(json_t *obj, bool ok)
{
	if (ok)
		return obj;
	json_decref(obj);
	return NULL;
}

static json_t *special_jv(const struct sbx_entry *e)
{
	json_t *v = json_object();
	bool ok = v && set(v, "kind", json_string(sbx_special_name(e->special)));

	if (ok && e->special == SBX_SP_UNKNOWN)
		ok = set(v, "path", json_string(e->path ? e->path : ""));
	if (ok && e->subpath)
		ok = set(v, "subpath", json_string(e->subpath));
	return finish(v, ok);
}

static json_t *fs_path_jv(const struct sbx_entry *e)
{
	json_t *v = json_object();
	bool ok = v != NULL;

	switch (e->kind) {
	case SBX_PATH:
		ok = ok && set(v, "type", json_string("path")) &&
		     set(v, "path", json_string(e->path));
		break;
	case SBX_GLOB:
		ok = ok && set(v, "type", json_string("glob_pattern")) &&
		     set(v, "pattern", json_string(e->path));
		break;
	default:
		ok = ok && set(v, "type", json_string("special")) && set(v, "value", special_jv(e));
		break;
	}
	return finish(v, ok);
}

static json_t *entry_jv(const struct sbx_entry *e)
{
	json_t *v = json_object();
	bool ok = v && set(v, "path", fs_path_jv(e)) &&
		  set(v, "access", json_string(sbx_access_name(e->access)));

	if (ok && e->skip_missing)
		ok = set(v, "missing_path_behavior", json_string("skip"));
	return finish(v, ok);
}

static json_t *entries_jv(const struct sbx_fs *fs)
{
	json_t *a = json_array();
	bool ok = a != NULL;

	for (size_t i = 0; ok && i < fs->n; i++)
		ok = json_array_append_new(a, entry_jv(&fs->entries[i])) == 0;
	return finish(a, ok);
}

/* Appends "entries" and, when bounded, "glob_scan_max_depth" to obj. */
static bool put_entries(json_t *obj, const struct sbx_fs *fs)
{
	if (!set(obj, "entries", entries_jv(fs)))
		return false;
	return !fs->glob_depth || set(obj, "glob_scan_max_depth", json_integer(fs->glob_depth));
}

static json_t *managed_fs_jv(const struct sbx_fs *fs)
{
	json_t *v = json_object();
	bool ok = v != NULL;

	if (ok && fs->kind == SBX_FS_UNRESTRICTED)
		ok = set(v, "type", json_string("unrestricted"));
	else if (ok)
		ok = set(v, "type", json_string("restricted")) && put_entries(v, fs);
	return finish(v, ok);
}

static const char *network_name(bool enabled)
{
	return enabled ? "enabled" : "restricted";
}

json_t *sbx_profile_to_jv(const struct sbx_profile *p)
{
	json_t *v = json_object();
	bool ok = v != NULL;

	/* A managed profile cannot carry an external file system: the wire form is External. */
	if (p->type == SBX_EXTERNAL || (p->type == SBX_MANAGED && p->fs.kind == SBX_FS_EXTERNAL))
		ok = ok && set(v, "type", json_string("external")) &&
		     set(v, "network", json_string(network_name(p->network)));
	else if (p->type == SBX_DISABLED)
		ok = ok && set(v, "type", json_string("disabled"));
	else
		ok = ok && set(v, "type", json_string("managed")) &&
		     set(v, "file_system", managed_fs_jv(&p->fs)) &&
		     set(v, "network", json_string(network_name(p->network)));
	return finish(v, ok);
}

/* ---- canonical text ----------------------------------------------------------------------- */

/*
 * The canonical text is written straight into one growing buffer: a profile of many entries
 * would otherwise cost a jansson tree (several allocations per entry) built only to be dumped
 * and freed. The bytes are those of json_dumps(JSON_COMPACT | JSON_PRESERVE_ORDER) of the tree
 * sbx_profile_to_jv() builds; the unit tests hold the two side by side.
 */
struct sb {
	char *buf;
	size_t len, cap;
	bool failed; /* allocation failure, or a string jansson would refuse (invalid UTF-8, NULL) */
	/* When set, what the buffer holds is handed here whenever it is full, and it starts over. */
	int (*put)(void *arg, const char *s, size_t n);
	void *arg;
	int err; /* put's error */
	/*
	 * With put: buf is the caller's stack until the first time it is full, then a heap block of
	 * chunk bytes. Under musl a block of a few KiB is a map and an unmap of its own, and most
	 * texts (a start's profile) never fill the first buffer.
	 */
	bool borrowed;
	size_t chunk;
};

/* Hands what b holds to its sink and empties it. */
static bool sb_flush(struct sb *b)
{
	int r = b->len ? b->put(b->arg, b->buf, b->len) : 0;

	b->len = 0;
	if (r < 0) {
		b->err = r;
		b->failed = true;
	}
	return r >= 0;
}

static bool sb_reserve(struct sb *b, size_t more)
{
	size_t cap;
	char *nb;

	if (b->failed)
		return false;
	if (more < b->cap - b->len)
		return true;
	if (b->put) {
		if (!sb_flush(b))
			return false;
		/* A text longer than the first buffer: pieces of chunk bytes from here on. */
		if (b->borrowed && b->cap < b->chunk && (nb = malloc(b->chunk))) {
			b->buf = nb;
			b->cap = b->chunk;
			b->borrowed = false;
		}
		if (more < b->cap)
			return true;
	}
	cap = b->cap ? b->cap : 256;
	while (more >= cap - b->len) {
		if (cap > SIZE_MAX / 2) {
			b->failed = true;
			return false;
		}
		cap *= 2;
	}
	nb = realloc(b->borrowed ? NULL : b->buf, cap);
	if (!nb) {
		b->failed = true;
		return false;
	}
	if (b->borrowed)
		memcpy(nb, b->buf, b->len);
	b->buf = nb;
	b->cap = cap;
	b->borrowed = false;
	return true;
}

static void sb_put(struct sb *b, const char *s, size_t n)
{
	if (!sb_reserve(b, n))
		return;
	sbx_copy(b->buf + b->len, s, n);
	b->len += n;
}

/* Literal JSON text: punctuation, keys and fixed values. */
static void sb_raw(struct sb *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

/* The same for a string literal, whose length the compiler knows (written per entry). */
#define SB_LIT(b, lit) sb_put((b), "" lit, sizeof(lit) - 1)

/*
 * A JSON string as jansson writes it: '"' and '\' escaped, \b \f \n \r \t short, other control
 * characters as \u00XX in upper case; DEL, '/' and non-ASCII characters as they are.
 */
static void sb_string(struct sb *b, const char *str)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = (const unsigned char *)str, *run;

	if (!str) {
		b->failed = true;
		return;
	}
	/*
	 * The usual string needs no escape: its quotes and bytes in one reserve (three copies of
	 * their own would be two more checks of the room, and a path and an access are written
	 * per entry).
	 */
	while (sbx_json_plain[*s])
		s++;
	if (!*s) {
		size_t n = (size_t)(s - (const unsigned char *)str);
		char *d;

		if (!sb_reserve(b, n + 2))
			return;
		d = b->buf + b->len;
		d[0] = '"';
		sbx_copy(d + 1, str, n);
		d[n + 1] = '"';
		b->len += n + 2;
		return;
	}
	s = (const unsigned char *)str;
	sb_put(b, "\"", 1);
	for (run = s;;) {
		char esc[6] = {'\\', 0, '0', '0', 0, 0};
		size_t n = 2;

		while (sbx_json_plain[*s])
			s++;
		if (!*s)
			break;
		if (*s >= 0x80) {
			size_t u = sbx_utf8_len(s, SIZE_MAX);

			if (!u) {
				b->failed = true;
				return;
			}
			s += u;
			continue;
		}
		sb_put(b, (const char *)run, (size_t)(s - run));
		switch (*s) {
		case '"':
		case '\\':
			esc[1] = (char)*s;
			break;
		case '\b':
			esc[1] = 'b';
			break;
		case '\f':
			esc[1] = 'f';
			break;
		case '\n':
			esc[1] = 'n';
			break;
		case '\r':
			esc[1] = 'r';
			break;
		case '\t':
			esc[1] = 't';
			break;
		default:
			esc[1] = 'u';
			esc[4] = hex[*s >> 4];
			esc[5] = hex[*s & 0xf];
			n = 6;
			break;
		}
		sb_put(b, esc, n);
		run = ++s;
	}
	sb_put(b, (const char *)run, (size_t)(s - run));
	sb_put(b, "\"", 1);
}

/* The finished text, or NULL (and nothing leaked) when anything failed. */
static char *sb_finish(struct sb *b)
{
	sb_put(b, "", 1);
	if (b->failed) {
		free(b->buf);
		return NULL;
	}
	return b->buf;
}

static void put_special(struct sb *b, const struct sbx_entry *e)
{
	SB_LIT(b, "{\"kind\":");
	sb_string(b, sbx_special_name(e->special));
	if (e->special == SBX_SP_UNKNOWN) {
		SB_LIT(b, ",\"path\":");
		sb_string(b, e->path ? e->path : "");
	}
	if (e->subpath) {
		SB_LIT(b, ",\"subpath\":");
		sb_string(b, e->subpath);
	}
	SB_LIT(b, "}");
}

/*
 * Can s[0..n) be written as it stands: no byte below 0x20, '"', '\\', or 0x80 and above (which
 * sb_string checks as UTF-8)? Sixteen bytes at a time with SSE2, the last block overlapping
 * the one before it; a short string byte by byte.
 */
static bool plain_ascii(const unsigned char *s, size_t n)
{
#if defined(__SSE2__)
	if (n >= 16) {
		const __m128i ctl = _mm_set1_epi8(0x20), quote = _mm_set1_epi8('"'),
			      bs = _mm_set1_epi8('\\');
		size_t i = 0;

		for (;;) {
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));

			/* Signed: 0x80 and above are below 0x20 too. */
			if (_mm_movemask_epi8(_mm_or_si128(
				    _mm_cmplt_epi8(v, ctl),
				    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bs)))))
				return false;
			if (i + 16 == n)
				return true;
			i = i + 32 <= n ? i + 16 : n - 16;
		}
	}
#endif
	for (size_t i = 0; i < n; i++)
		if (!sbx_json_plain[s[i]])
			return false;
	return true;
}

/*
 * The usual entry, a plain path, in one reserve: {"path":{"type":"path","path":P},"access":A}
 * with the comma before it when not first. false (nothing written) for a path to escape.
 * The access names are the model's own lowercase words.
 */
static bool put_path_entry(struct sb *b, const struct sbx_entry *e, bool comma)
{
	/* Fixed sizes: the compiler copies them inline. */
	static const char head[] = "{\"path\":{\"type\":\"path\",\"path\":\"",
			  mid[] = "\"},\"access\":\"";
	const char *a = sbx_access_name(e->access);
	size_t n = strlen(e->path), an = strlen(a);
	char *d;

	if (!plain_ascii((const unsigned char *)e->path, n))
		return false;
	if (!sb_reserve(b, comma + sizeof(head) - 1 + n + sizeof(mid) - 1 + an + 2))
		return true; /* failed: b says so */
	d = b->buf + b->len;
	if (comma)
		*d++ = ',';
	memcpy(d, head, sizeof(head) - 1);
	d += sizeof(head) - 1;
	sbx_copy(d, e->path, n);
	d += n;
	memcpy(d, mid, sizeof(mid) - 1);
	d += sizeof(mid) - 1;
	sbx_copy(d, a, an);
	d += an;
	*d++ = '"';
	*d++ = '}';
	b->len = (size_t)(d - b->buf);
	return true;
}

static void put_entry(struct sb *b, const struct sbx_entry *e)
{
	switch (e->kind) {
	case SBX_PATH:
		SB_LIT(b, "{\"path\":{\"type\":\"path\",\"path\":");
		sb_string(b, e->path);
		break;
	case SBX_GLOB:
		SB_LIT(b, "{\"path\":{\"type\":\"glob_pattern\",\"pattern\":");
		sb_string(b, e->path);
		break;
	default:
		SB_LIT(b, "{\"path\":{\"type\":\"special\",\"value\":");
		put_special(b, e);
		break;
	}
	SB_LIT(b, "},\"access\":");
	sb_string(b, sbx_access_name(e->access));
	if (e->skip_missing)
		SB_LIT(b, ",\"missing_path_behavior\":\"skip\"");
	SB_LIT(b, "}");
}

/* "entries":[...] and, when bounded, ,"glob_scan_max_depth":N (no braces). */
static void put_entries_text(struct sb *b, const struct sbx_fs *fs)
{
	char num[24];

	SB_LIT(b, "\"entries\":[");
	for (size_t i = 0; i < fs->n && !b->failed; i++) {
		const struct sbx_entry *e = &fs->entries[i];

		if (e->kind == SBX_PATH && e->path && !e->skip_missing && put_path_entry(b, e, i))
			continue;
		if (i)
			SB_LIT(b, ",");
		put_entry(b, e);
	}
	SB_LIT(b, "]");
	if (fs->glob_depth) {
		snprintf(num, sizeof(num), "%u", fs->glob_depth);
		SB_LIT(b, ",\"glob_scan_max_depth\":");
		sb_raw(b, num);
	}
}

/*
 * The path strings dominate: one allocation of about the right size up front (a path entry is 52
 * bytes of JSON beside its path) saves the doublings, and the copy and the unused half that the
 * last doubling leaves, which at 10,000 entries is a megabyte. An escape or a long special grows
 * the buffer as usual.
 */
static void reserve_for(struct sb *b, const struct sbx_fs *fs)
{
	size_t n = 256;

	for (size_t i = 0; i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];

		n += 64 + (e->path ? strlen(e->path) : 0) + (e->subpath ? strlen(e->subpath) : 0) +
		     (e->skip_missing ? 32 : 0);
	}
	b->buf = malloc(n);
	if (!b->buf) {
		b->failed = true;
		return;
	}
	b->cap = n;
}

static void put_profile(struct sb *b, const struct sbx_profile *p)
{
	/* A managed profile cannot carry an external file system: the wire form is External. */
	if (p->type == SBX_EXTERNAL || (p->type == SBX_MANAGED && p->fs.kind == SBX_FS_EXTERNAL)) {
		SB_LIT(b, "{\"type\":\"external\",\"network\":");
		sb_string(b, network_name(p->network));
	} else if (p->type == SBX_DISABLED) {
		SB_LIT(b, "{\"type\":\"disabled\"");
	} else {
		SB_LIT(b, "{\"type\":\"managed\",\"file_system\":");
		if (p->fs.kind == SBX_FS_UNRESTRICTED) {
			SB_LIT(b, "{\"type\":\"unrestricted\"}");
		} else {
			SB_LIT(b, "{\"type\":\"restricted\",");
			put_entries_text(b, &p->fs);
			SB_LIT(b, "}");
		}
		SB_LIT(b, ",\"network\":");
		sb_string(b, network_name(p->network));
	}
	SB_LIT(b, "}");
}

char *sbx_profile_to_json(const struct sbx_profile *p)
{
	struct sb b = {0};

	reserve_for(&b, &p->fs);
	put_profile(&b, p);
	return sb_finish(&b);
}

int sbx_profile_to_json_stream(const struct sbx_profile *p, size_t chunk,
			       int (*put)(void *arg, const char *s, size_t n), void *arg)
{
	char first[2048];
	struct sb b = {.buf = first, .put = put, .arg = arg, .borrowed = true};

	b.chunk = chunk ? chunk : 1;
	b.cap = b.chunk < sizeof(first) ? b.chunk : sizeof(first);
	put_profile(&b, p);
	if (!b.failed)
		sb_flush(&b);
	if (!b.borrowed)
		free(b.buf);
	if (b.err)
		return b.err;
	return b.failed ? -EINVAL : 0;
}

/* The legacy {"read":[..],"write":[..]} form fits plain read/write paths without a depth. */
static bool fits_read_write(const struct sbx_fs *fs)
{
	if (fs->glob_depth)
		return false;
	for (size_t i = 0; i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];

		if (e->kind != SBX_PATH || e->access == SBX_DENY || e->skip_missing)
			return false;
	}
	return true;
}

/* "key":[paths with access acc], after a comma when *first is false; nothing for none. */
static void put_path_list(struct sb *b, const char *key, const struct sbx_fs *fs,
			  enum sbx_access acc, bool *first)
{
	bool any = false;

	for (size_t i = 0; i < fs->n; i++) {
		if (fs->entries[i].access != acc)
			continue;
		if (!any) {
			sb_raw(b, *first ? "\"" : ",\"");
			sb_raw(b, key);
			SB_LIT(b, "\":[");
			*first = false;
		} else {
			SB_LIT(b, ",");
		}
		sb_string(b, fs->entries[i].path);
		any = true;
	}
	if (any)
		SB_LIT(b, "]");
}

static void put_fs_permissions(struct sb *b, const struct sbx_fs *fs)
{
	bool first = true;

	SB_LIT(b, "{");
	if (fits_read_write(fs)) {
		put_path_list(b, "read", fs, SBX_READ, &first);
		put_path_list(b, "write", fs, SBX_WRITE, &first);
	} else {
		put_entries_text(b, fs);
	}
	SB_LIT(b, "}");
}

char *sbx_additional_to_json(const struct sbx_additional *a)
{
	struct sb b = {0};

	if (a->has_fs)
		reserve_for(&b, &a->fs);
	SB_LIT(&b, "{");
	/* As in Codex: only an enabled network survives; false and null both serialize away. */
	if (a->network == 1)
		SB_LIT(&b, "\"network\":{\"enabled\":true}");
	if (a->has_fs) {
		sb_raw(&b, a->network == 1 ? ",\"file_system\":" : "\"file_system\":");
		put_fs_permissions(&b, &a->fs);
	}
	SB_LIT(&b, "}");
	return sb_finish(&b);
}

static const char *bool_text(bool v)
{
	return v ? "true" : "false";
}

char *sbx_legacy_to_json(const struct sbx_legacy *l)
{
	struct sb b = {0};

	switch (l->type) {
	case SBX_LEGACY_DANGER_FULL_ACCESS:
		SB_LIT(&b, "{\"type\":\"danger-full-access\"");
		break;
	case SBX_LEGACY_READ_ONLY:
		SB_LIT(&b, "{\"type\":\"read-only\"");
		if (l->network_access)
			SB_LIT(&b, ",\"network_access\":true");
		break;
	case SBX_LEGACY_EXTERNAL_SANDBOX:
		SB_LIT(&b, "{\"type\":\"external-sandbox\",\"network_access\":");
		sb_string(&b, network_name(l->network_access));
		break;
	case SBX_LEGACY_WORKSPACE_WRITE:
		SB_LIT(&b, "{\"type\":\"workspace-write\"");
		if (l->n_writable_roots) {
			SB_LIT(&b, ",\"writable_roots\":[");
			for (size_t i = 0; i < l->n_writable_roots; i++) {
				if (i)
					SB_LIT(&b, ",");
				sb_string(&b, l->writable_roots[i]);
			}
			SB_LIT(&b, "]");
		}
		SB_LIT(&b, ",\"network_access\":");
		sb_raw(&b, bool_text(l->network_access));
		SB_LIT(&b, ",\"exclude_tmpdir_env_var\":");
		sb_raw(&b, bool_text(l->exclude_tmpdir_env_var));
		SB_LIT(&b, ",\"exclude_slash_tmp\":");
		sb_raw(&b, bool_text(l->exclude_slash_tmp));
		break;
	default:
		SB_LIT(&b, "{");
		break;
	}
	SB_LIT(&b, "}");
	return sb_finish(&b);
}

static bool utf8_text(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		size_t n = *u < 0x80 ? 1 : sbx_utf8_len(u, SIZE_MAX);

		if (!n)
			return false;
		u += n;
	}
	return true;
}

int sbx_profile_check_text(const struct sbx_profile *p, struct sbx_diag *d)
{
	const struct sbx_fs *fs = &p->fs;

	for (size_t i = 0; i < fs->n; i++) {
		const struct sbx_entry *e = &fs->entries[i];
		const char *bad = NULL;

		if (e->path && !utf8_text(e->path))
			bad = e->path;
		else if (e->subpath && !utf8_text(e->subpath))
			bad = e->subpath;
		if (!bad)
			continue;
		/*
		 * The bytes as they are: the line that shows the refusal (sbx_diag_print) writes
		 * each one that is not text as \xHH, and a backslash that could be taken for one
		 * as \x5c, which an escape made here would have been shown as.
		 */
		sbx_diag_set(d, SBX_E_INVALID,
			     "the %s %s is not UTF-8 text, which a profile (JSON) cannot carry",
			     e->kind == SBX_GLOB ? "pattern" : "path", bad);
		return sbx_diag_hint(d, SBX_E_INVALID,
				     "run from, and name, directories whose names are UTF-8");
	}
	return 0;
}
