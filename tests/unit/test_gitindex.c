/* SPDX-License-Identifier: MIT */
/*
 * test_gitindex.c - the gitlinks of a git index (gitindex.c), on indexes made byte by byte as
 * git lays them out (versions 2, 3 and 4, SHA-1 and SHA-256), malformed ones, and the roots a
 * workspace whose index names an embedded repository makes (gitroots.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gitroots.h"
#include "sbx.h"
#include "t.h"
#include "vec.h"

#define GITLINK	   0160000u
#define REGULAR	   0100644u
#define SPARSE_DIR 0040000u

struct ix {
	unsigned char b[8192];
	size_t n;
	unsigned version, hashsz, entries;
	char prev[256];
};

static void put32(unsigned char *p, unsigned v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static void ix_start(struct ix *x, unsigned version, unsigned hashsz)
{
	memset(x, 0, sizeof(*x));
	x->version = version;
	x->hashsz = hashsz;
	memcpy(x->b, "DIRC", 4);
	put32(x->b + 4, version);
	x->n = 12;
}

/* One entry; extended sets the extended flag (version 3 and up). */
static void ix_add(struct ix *x, unsigned mode, const char *name, bool extended)
{
	size_t len = strlen(name), start = x->n, keep = 0;
	unsigned flags = (unsigned)(len < 0xfff ? len : 0xfff) | (extended ? 0x4000u : 0);

	memset(x->b + x->n, 0xa5, 40); /* times, dev, ino: anything */
	put32(x->b + x->n + 24, mode);
	x->n += 40;
	memset(x->b + x->n, 0x11, x->hashsz);
	x->n += x->hashsz;
	x->b[x->n++] = (unsigned char)(flags >> 8);
	x->b[x->n++] = (unsigned char)flags;
	if (extended) {
		x->b[x->n++] = 0;
		x->b[x->n++] = 0;
	}
	if (x->version == 4) {
		size_t plen = strlen(x->prev);

		while (keep < plen && keep < len && x->prev[keep] == name[keep])
			keep++;
		/* Our strips stay under 128: one byte of varint. */
		x->b[x->n++] = (unsigned char)(plen - keep);
		memcpy(x->b + x->n, name + keep, len - keep + 1);
		x->n += len - keep + 1;
		snprintf(x->prev, sizeof(x->prev), "%s", name);
	} else {
		size_t size = (x->n - start + len + 8) & ~(size_t)7;

		memset(x->b + x->n, 0, size - (x->n - start));
		memcpy(x->b + x->n, name, len);
		x->n = start + size;
	}
	put32(x->b + 8, ++x->entries);
}

static void ix_ext(struct ix *x, const char *sig, size_t size)
{
	memcpy(x->b + x->n, sig, 4);
	put32(x->b + x->n + 4, (unsigned)size);
	memset(x->b + x->n + 8, 0x22, size);
	x->n += 8 + size;
}

static void ix_end(struct ix *x)
{
	memset(x->b + x->n, 0x33, x->hashsz);
	x->n += x->hashsz;
}

/*
 * The gitlinks of x, its bytes fed in chunks of every size below (an entry cut anywhere): each
 * reading must agree with the one fed whole.
 */
static int links_of(const struct ix *x, size_t max, struct sbx_strv *out)
{
	static const size_t chunks[] = {1, 2, 3, 5, 8, 13, 64, 100, 1u << 20};
	const char *why = NULL;
	size_t n = 0;
	int r = 0;

	for (size_t i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
		int ri;

		sbx_strv_clear(out);
		ri = sbx_git_index_gitlinks(x->b, x->n, chunks[i], max, out, &why);
		CHECK(why != NULL);
		if (i && (ri != r || out->n != n))
			fprintf(stderr, "  chunk %zu: %d (%zu) where whole: %d (%zu)\n", chunks[i],
				ri, out->n, r, n);
		CHECK(!i || (ri == r && out->n == n));
		r = ri;
		n = out->n;
	}
	return r;
}

TEST(gitindex_versions_and_hashes)
{
	static const unsigned versions[] = {2, 3, 4}, hashes[] = {20, 32};
	struct sbx_strv out = {0};
	struct ix x;

	for (size_t v = 0; v < 3; v++)
		for (size_t h = 0; h < 2; h++) {
			ix_start(&x, versions[v], hashes[h]);
			ix_add(&x, REGULAR, ".gitmodules", false);
			ix_add(&x, REGULAR, "lib/a.c", versions[v] > 2);
			ix_add(&x, GITLINK, "lib/vend", false);
			ix_add(&x, REGULAR, "lib/vend.c", false);
			ix_add(&x, GITLINK, "third/party/x", versions[v] > 2);
			ix_add(&x, 0120000u, "link", false);
			ix_ext(&x, "TREE", 25);
			ix_ext(&x, "REUC", 0);
			ix_end(&x);
			CHECK_INT(links_of(&x, 8, &out), 0);
			CHECK_INT(out.n, 2);
			CHECK(sbx_strv_has(&out, "lib/vend"));
			CHECK(sbx_strv_has(&out, "third/party/x"));
		}
	/* No gitlink, no entry: none. */
	ix_start(&x, 2, 20);
	ix_end(&x);
	CHECK_INT(links_of(&x, 8, &out), 0);
	CHECK_INT(out.n, 0);
	sbx_strv_clear(&out);
}

/* A conflict's stages name one gitlink; a path of 0xfff bytes and more ends at its NUL. */
TEST(gitindex_stages_and_long_paths)
{
	struct sbx_strv out = {0};
	char longname[5000];
	struct ix *x = malloc(sizeof(*x));

	CHECK(x != NULL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ix_start(x, 2, 20);
	ix_add(x, GITLINK, "vend", false);
	ix_add(x, GITLINK, "vend", false);
	ix_end(x);
	CHECK_INT(links_of(x, 8, &out), 0);
	CHECK_INT(out.n, 1);
	{
		/* Built by hand: the builder's buffer holds no 5000-byte name twice. */
		size_t len = strlen(longname), n = 12 + 62 + len + 8 + 20;
		unsigned char *b = calloc(1, n);
		const char *why = NULL;
		size_t e = (62 + len + 8) & ~(size_t)7;

		CHECK(b != NULL);
		memcpy(b, "DIRC", 4);
		put32(b + 4, 2);
		put32(b + 8, 1);
		put32(b + 12 + 24, GITLINK);
		b[12 + 60] = 0x0f;
		b[12 + 61] = 0xff;
		memcpy(b + 12 + 62, longname, len);
		sbx_strv_clear(&out);
		CHECK_INT(sbx_git_index_gitlinks(b, 12 + e + 20, 7, 8, &out, &why), 0);
		CHECK_INT(out.n, 1);
		CHECK(out.n == 1 && strlen(out.v[0]) == len);
		free(b);
	}
	sbx_strv_clear(&out);
	free(x);
}

/* A sparse index's directories are no gitlinks; a split index refuses. */
TEST(gitindex_sparse_and_split)
{
	struct sbx_strv out = {0};
	struct ix x;

	ix_start(&x, 3, 20);
	ix_add(&x, SPARSE_DIR, "out/", true);
	ix_add(&x, GITLINK, "vend", false);
	ix_ext(&x, "sdir", 0);
	ix_end(&x);
	CHECK_INT(links_of(&x, 8, &out), 0);
	CHECK_INT(out.n, 1);
	CHECK(sbx_strv_has(&out, "vend"));
	ix_start(&x, 2, 20);
	ix_add(&x, GITLINK, "vend", false);
	ix_ext(&x, "link", 20);
	ix_end(&x);
	CHECK_INT(links_of(&x, 8, &out), -ENOTSUP);
	sbx_strv_clear(&out);
}

TEST(gitindex_refuses_what_it_cannot_read)
{
	static const char *const bad[] = {"../x", "/abs", "a//b", "a/./b", "a/..", "x/.git", ""};
	struct sbx_strv out = {0};
	struct ix x;

	/* Too many. */
	ix_start(&x, 2, 20);
	ix_add(&x, GITLINK, "a", false);
	ix_add(&x, GITLINK, "b", false);
	ix_end(&x);
	CHECK_INT(links_of(&x, 1, &out), -E2BIG);
	CHECK_INT(links_of(&x, 2, &out), 0);
	/* A gitlink that is no plain relative path. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ix_start(&x, 2, 20);
		ix_add(&x, GITLINK, bad[i], false);
		ix_end(&x);
		CHECK_INT(links_of(&x, 8, &out), -EINVAL);
	}
	/* Signature, version, extended flags in version 2. */
	ix_start(&x, 2, 20);
	ix_add(&x, GITLINK, "vend", false);
	ix_end(&x);
	x.b[0] = 'X';
	CHECK_INT(links_of(&x, 8, &out), -EINVAL);
	x.b[0] = 'D';
	put32(x.b + 4, 5);
	CHECK_INT(links_of(&x, 8, &out), -EINVAL);
	ix_start(&x, 2, 20);
	ix_add(&x, GITLINK, "vend", true);
	ix_end(&x);
	CHECK_INT(links_of(&x, 8, &out), -EINVAL);
	/* A path length other than the flags'. */
	ix_start(&x, 2, 20);
	ix_add(&x, GITLINK, "vend", false);
	ix_end(&x);
	x.b[12 + 61] = 3;
	CHECK_INT(links_of(&x, 8, &out), -EINVAL);
	/* Version 4: a strip longer than the path before it. */
	ix_start(&x, 4, 20);
	ix_add(&x, GITLINK, "vend", false);
	ix_end(&x);
	x.b[12 + 62] = 1;
	CHECK_INT(links_of(&x, 8, &out), -EINVAL);
	/* More entries than there are. */
	ix_start(&x, 2, 20);
	ix_add(&x, GITLINK, "vend", false);
	ix_end(&x);
	put32(x.b + 8, 2);
	CHECK_INT(links_of(&x, 8, &out), -EINVAL);
	sbx_strv_clear(&out);
}

/*
 * Cut short anywhere, an index with a gitlink never reads as one without: an error, or the
 * gitlink. Each byte changed, it is read within its bounds (the sanitizers' part) and still
 * never loses the gitlink without an error.
 */
TEST(gitindex_truncated_and_flipped)
{
	struct sbx_strv out = {0};
	const char *why;
	struct ix x;

	for (unsigned v = 2; v <= 4; v++) {
		ix_start(&x, v, 20);
		ix_add(&x, REGULAR, "a", v == 3);
		ix_add(&x, GITLINK, "vend", false);
		ix_add(&x, REGULAR, "zz/top", false);
		ix_ext(&x, "TREE", 6);
		ix_end(&x);
		for (size_t n = 0; n < x.n; n++) {
			int r;

			sbx_strv_clear(&out);
			r = sbx_git_index_gitlinks(x.b, n, 5, 8, &out, &why);
			CHECK(r < 0 || sbx_strv_has(&out, "vend"));
		}
		for (size_t i = 12; i < x.n; i++)
			for (unsigned bit = 0; bit < 8; bit++) {
				int r;

				x.b[i] ^= (unsigned char)(1u << bit);
				sbx_strv_clear(&out);
				r = sbx_git_index_gitlinks(x.b, x.n, 9, 8, &out, &why);
				x.b[i] ^= (unsigned char)(1u << bit);
				CHECK(r <= 0);
			}
	}
	sbx_strv_clear(&out);
}

static char *at(const char *base, const char *rel)
{
	char *s = NULL;

	if (asprintf(&s, "%s/%s", base, rel) < 0)
		return NULL;
	return s;
}

static void git_init(const char *gitdir)
{
	char *p;
	static const char *const dirs[] = {"hooks", "objects/info", "refs/heads"};

	for (size_t i = 0; i < 3; i++) {
		p = at(gitdir, dirs[i]);
		CHECK_INT(vec_mkdir(p), 0);
		free(p);
	}
	p = at(gitdir, "HEAD");
	CHECK_INT(vec_mkfile(p, "ref: refs/heads/main\n"), 0);
	free(p);
}

static void write_index(const char *gitdir, const struct ix *x)
{
	char *p = at(gitdir, "index");
	FILE *f = p ? fopen(p, "wb") : NULL;

	CHECK(f != NULL);
	if (f) {
		CHECK_INT((int)fwrite(x->b, 1, x->n, f), (int)x->n);
		CHECK_INT(fclose(f), 0);
	}
	free(p);
}

static bool has_in(char **v, size_t n, const char *p)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], p) == 0)
			return true;
	return false;
}

static const struct sbx_writable_root *root_of(const struct sbx_roots *r, const char *p)
{
	for (size_t i = 0; i < r->n_writable; i++)
		if (strcmp(r->writable[i].root, p) == 0)
			return &r->writable[i];
	return NULL;
}

/*
 * A workspace whose index names the gitlinks vend (an embedded repository: its git directory
 * in the checkout), ptr (a .git file pointing at a git directory outside modules/) and gone (not
 * checked out: its directory empty, then holding a file, then missing), and inside vend the
 * gitlink deep (nested, embedded too).
 */
TEST(gitindex_roots_keep_every_gitlink)
{
	char *top = vec_fresh_dir(), *ws = at(top, "ws"), *g = at(ws, ".git"),
	     *vend = at(ws, "vend/.git"), *deep = at(ws, "vend/deep/.git"),
	     *ptr = at(ws, "ptr/.git"), *elsewhere = at(top, "gitdirs/ptr"),
	     *gone = at(ws, "gone/.git"), *gonedir = at(ws, "gone"), *text = NULL;
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_fs fs = {0};
	struct sbx_roots r;
	struct sbx_diag d;
	const struct sbx_writable_root *w;
	struct ix x;

	git_init(g);
	git_init(vend);
	git_init(deep);
	git_init(elsewhere);
	CHECK(asprintf(&text, "gitdir: %s\n", elsewhere) > 0);
	CHECK_INT(vec_mkfile(ptr, text), 0);
	CHECK_INT(vec_mkdir(gonedir), 0);
	ix_start(&x, 4, 20);
	ix_add(&x, GITLINK, "gone", false);
	ix_add(&x, GITLINK, "ptr", false);
	ix_add(&x, REGULAR, "src/main.c", false);
	ix_add(&x, GITLINK, "vend", false);
	ix_end(&x);
	write_index(g, &x);
	ix_start(&x, 2, 20);
	ix_add(&x, GITLINK, "deep", false);
	ix_end(&x);
	write_index(vend, &x);
	sbx_fs_push_path(&fs, ws, SBX_WRITE, false);
	sbx_fs_push_path(&fs, top, SBX_WRITE, false);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w != NULL);
	if (w) {
		CHECK(has_in(w->read_only, w->n_read_only, vend));
		CHECK(has_in(w->read_only, w->n_read_only, deep));
		CHECK(has_in(w->read_only, w->n_read_only, ptr));
		CHECK(has_in(w->read_only, w->n_read_only, gonedir));
	}
	w = root_of(&r, top);
	CHECK(w && has_in(w->read_only, w->n_read_only, elsewhere));
	sbx_roots_free(&r);
	/* Git mode keeps the embedded one's hooks and config. */
	ctx.allow_git = true;
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w != NULL);
	if (w) {
		char *hooks = at(vend, "hooks"), *config = at(deep, "config");

		CHECK(has_in(w->read_only, w->n_read_only, hooks));
		CHECK(has_in(w->no_create.v, w->no_create.n, config));
		CHECK(has_in(w->read_only, w->n_read_only, ptr));
		free(hooks);
		free(config);
	}
	sbx_roots_free(&r);
	ctx.allow_git = false;
	/* A checkout directory holding files, no .git: the .git kept from being made. */
	{
		char *file = at(gonedir, "file");

		CHECK_INT(vec_mkfile(file, "x"), 0);
		CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
		w = root_of(&r, ws);
		CHECK(w && has_in(w->no_create.v, w->no_create.n, gone));
		CHECK(w && !has_in(w->read_only, w->n_read_only, gonedir));
		sbx_roots_free(&r);
		CHECK_INT(unlink(file), 0);
		free(file);
	}
	/* Not checked out, not even its directory: the .git is denied. */
	CHECK_INT(rmdir(gonedir), 0);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	CHECK(has_in(r.unreadable, r.n_unreadable, gone));
	sbx_roots_free(&r);
	/* A malformed index refuses, never protects nothing; so does one that is no file. */
	x.b[0] = 'X';
	write_index(g, &x);
	sbx_diag_clear(&d);
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
	CHECK(strstr(d.msg, "no index signature") != NULL);
	{
		char *index = at(g, "index");

		CHECK_INT(unlink(index), 0);
		CHECK_INT(vec_mkdir(index), 0);
		sbx_diag_clear(&d);
		CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
		CHECK(strstr(d.msg, "no regular file") != NULL);
		CHECK_INT(rmdir(index), 0);
		free(index);
	}
	/*
	 * The size of the object names is the config's, as git reads it, never guessed: an index
	 * that reads only with SHA-256 names is one git refuses in a SHA-1 repository (the
	 * default), and is refused; one whose config names SHA-256 is read so.
	 */
	{
		char *config = at(g, "config"), *index = at(g, "index");

		ix_start(&x, 2, 32);
		ix_add(&x, GITLINK, "vend", false);
		ix_end(&x);
		write_index(g, &x);
		sbx_diag_clear(&d);
		CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
		CHECK_INT(vec_mkfile(config, "[core]\n\trepositoryformatversion = 1\n"
					     "[extensions]\n\tobjectFormat = sha256\n"),
			  0);
		sbx_diag_clear(&d);
		CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
		w = root_of(&r, ws);
		CHECK(w && has_in(w->read_only, w->n_read_only, vend));
		sbx_roots_free(&r);
		/* And a SHA-1 index in that repository is refused in turn. */
		ix_start(&x, 2, 20);
		ix_add(&x, GITLINK, "vend", false);
		ix_end(&x);
		write_index(g, &x);
		CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), SBX_E_UNENFORCEABLE);
		CHECK_INT(unlink(config), 0);
		CHECK_INT(unlink(index), 0);
		free(config);
		free(index);
	}
	/* No index at all (nothing added yet): no gitlinks. */
	CHECK_INT(sbx_fs_roots(&fs, &ctx, &r, &d), 0);
	w = root_of(&r, ws);
	CHECK(w && !has_in(w->read_only, w->n_read_only, vend));
	sbx_roots_free(&r);
	sbx_fs_clear(&fs);
	free(top);
	free(ws);
	free(g);
	free(vend);
	free(deep);
	free(ptr);
	free(elsewhere);
	free(gone);
	free(gonedir);
	free(text);
}
