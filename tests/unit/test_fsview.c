/* SPDX-License-Identifier: MIT */
/*
 * The one look-up: the walk on a real tree (links followed and reported, absence told apart from
 * every other failure), and the planner's handling of failed look-ups through a fake view.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <seccomp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#endif

#include "sbx.h"
#include "t.h"
#include "vec.h"

static char *cat(const char *a, const char *b)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s", a, b) < 0)
		return NULL;
	return s;
}

TEST(fsview_walk_real_tree)
{
	char *t = vec_fresh_dir(), *p, *q, real_t[SBX_MAX_PATH];
	struct sbx_pathinfo in;
	int fd = -1;

	CHECK(realpath(t, real_t) != NULL);
	p = cat(t, "/dir/file");
	vec_mkfile(p, "x");
	free(p);
	p = cat(t, "/link");
	CHECK_INT(symlink("dir", p), 0);
	free(p);
	p = cat(t, "/abs");
	q = cat(real_t, "/link");
	CHECK_INT(symlink(q, p), 0); /* a chain: abs -> .../link -> dir */
	free(p);
	free(q);
	p = cat(t, "/loop1");
	CHECK_INT(symlink("loop2", p), 0);
	free(p);
	p = cat(t, "/loop2");
	CHECK_INT(symlink("loop1", p), 0);
	free(p);
	p = cat(t, "/dangling");
	CHECK_INT(symlink("nowhere", p), 0);
	free(p);

	/* A plain path: no link, its own real path, a descriptor of it. */
	p = cat(real_t, "/dir/file");
	CHECK_INT(sbx_fs_walk(p, &in, &fd), 0);
	CHECK(in.exists && in.type == SBX_FT_REG && !in.link[0] && !in.is_link);
	CHECK_STR(in.real, p);
	CHECK(fd >= 0);
	if (fd >= 0) {
		struct stat st;

		CHECK(fstat(fd, &st) == 0 && (unsigned long long)st.st_ino == in.ino);
		close(fd);
	}
	free(p);
	/* Through a link: followed, the link reported by its own path, the real path given. */
	p = cat(real_t, "/link/file");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
	q = cat(real_t, "/link");
	CHECK(in.exists && in.type == SBX_FT_REG && !in.is_link);
	CHECK_STR(in.link, q);
	free(q);
	q = cat(real_t, "/dir/file");
	CHECK_STR(in.real, q);
	free(q);
	free(p);
	/* A chain through an absolute link: every link crossed is named, in order. */
	p = cat(real_t, "/abs/file");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
	q = cat(real_t, "/abs");
	CHECK(in.exists && sbx_link_len(in.link) == strlen(q));
	CHECK(!strncmp(in.link, q, strlen(q)));
	free(q);
	q = cat(real_t, "/link");
	CHECK_STR(in.link + sbx_link_len(in.link) + 1, q);
	free(q);
	free(p);
	/* The last name itself a link. */
	p = cat(real_t, "/link");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
	CHECK(in.exists && in.type == SBX_FT_DIR && in.is_link);
	free(p);
	/* Absent: ENOENT, a file in the way (ENOTDIR), a dangling link (reported). */
	p = cat(real_t, "/none/x");
	CHECK_INT(sbx_fs_walk(p, &in, &fd), 0);
	CHECK(!in.exists && fd == -1 && !in.real[0]);
	free(p);
	p = cat(real_t, "/dir/file/x");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
	CHECK(!in.exists);
	free(p);
	p = cat(real_t, "/dangling");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
	CHECK(!in.exists && in.is_link && in.link[0]);
	free(p);
	/* Errors: a loop, a name too long, a relative path. */
	p = cat(real_t, "/loop1/x");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), -ELOOP);
	free(p);
	{
		char longp[SBX_MAX_PATH + 8];

		memset(longp, 'a', sizeof(longp) - 1);
		longp[0] = '/';
		longp[sizeof(longp) - 1] = '\0';
		CHECK_INT(sbx_fs_walk(longp, &in, NULL), -ENAMETOOLONG);
	}
	CHECK_INT(sbx_fs_walk("relative", &in, NULL), -EINVAL);
	CHECK_INT(sbx_fs_walk("/", &in, NULL), 0);
	CHECK(in.exists && in.type == SBX_FT_DIR);
	free(t);
}

/*
 * The memo over the host's view asks a name in the directory of the last path with fstatat on
 * that directory's descriptor: every answer as the walk gives it, for names in the directory it
 * keeps, in a directory reached through a link, links as last names, absences and errors, the
 * directory changing back and forth, a name turned into a link after its directory was kept,
 * and the kept directory moved away and made again with the name in it. With no_openat2, as on a
 * kernel without openat2: the directory is opened through the component walk instead.
 */
static void memo_answers_as_the_walk(bool no_openat2)
{
	static const char *const names[] = {
		"/dir/file",  "/dir/none",  "/dir",	   "/dir/sub",	       "/dir/file/x",
		"/dir/lnk",   "/link/file", "/link",	   "/dir/file",	       "/dangling",
		"/none/x",    "/loop1/x",   "/dir/./file", "/dir/../dir/file", "/dir/sub/..",
		"/dir/sub/.", "/dir/late",  "/dir/sub/f",  "/dir/f2",	       "/dir/file",
		"/dir/moved",
	};
	char *t = vec_fresh_dir(), *p, real_t[SBX_MAX_PATH];
	struct sbx_fsmemo m;

	CHECK(realpath(t, real_t) != NULL);
	p = cat(real_t, "/dir/file");
	vec_mkfile(p, "x");
	free(p);
	p = cat(real_t, "/dir/sub/f");
	vec_mkfile(p, "y");
	free(p);
	p = cat(real_t, "/dir/f2");
	vec_mkfile(p, "z");
	free(p);
	p = cat(real_t, "/dir/lnk");
	CHECK_INT(symlink("file", p), 0);
	free(p);
	p = cat(real_t, "/link");
	CHECK_INT(symlink("dir", p), 0);
	free(p);
	p = cat(real_t, "/loop1");
	CHECK_INT(symlink("loop1", p), 0);
	free(p);
	p = cat(real_t, "/dangling");
	CHECK_INT(symlink("nowhere", p), 0);
	free(p);
	sbx_fsmemo_init(&m, NULL);
	m.no_openat2 = no_openat2;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		struct sbx_pathinfo a, b;
		int ra, rb;

		if (strcmp(names[i], "/dir/f2") == 0) {
			/* Replaced by a link once its directory is the memo's. */
			char *q = cat(real_t, "/dir/f2");

			CHECK_INT(unlink(q), 0);
			CHECK_INT(symlink("sub", q), 0);
			free(q);
		}
		if (strcmp(names[i], "/dir/moved") == 0) {
			/*
			 * The directory the memo holds moved away and another made at its path (a run
			 * still going): a name missing from the old one is the walk's to answer.
			 */
			char *q = cat(real_t, "/dir"), *o = cat(real_t, "/old"),
			     *f = cat(real_t, "/dir/moved");

			CHECK_INT(rename(q, o), 0);
			CHECK_INT(mkdir(q, 0755), 0);
			vec_mkfile(f, "");
			free(q);
			free(o);
			free(f);
		}
		if (strcmp(names[i], "/dir/late") == 0) {
			char *q = cat(real_t, "/dir/late");

			vec_mkfile(q, "");
			free(q);
		}
		p = cat(real_t, names[i]);
		memset(&a, 0x5a, sizeof(a));
		memset(&b, 0xa5, sizeof(b));
		rb = m.view.lookup(m.view.self, p, &b);
		ra = sbx_fs_walk(p, &a, NULL);
		CHECK_INT(rb, ra);
		if (ra == 0) {
			CHECK_INT(b.exists, a.exists);
			CHECK_INT(b.type, a.type);
			CHECK_INT(b.mode, a.mode);
			CHECK_INT(b.uid, a.uid);
			CHECK_INT(b.dev, a.dev);
			CHECK_INT(b.ino, a.ino);
			CHECK_INT(b.is_link, a.is_link);
			CHECK_INT(b.link_shared, a.link_shared);
			CHECK_STR(b.real, a.real);
			CHECK_STR(b.link, a.link);
		}
		free(p);
	}
	/* It kept a directory's descriptor (by openat2 or by the walk), and lets it go. */
	CHECK(m.dir != NULL);
	CHECK_INT(m.no_openat2 || !no_openat2, 1);
	sbx_fsmemo_free(&m);
	CHECK_INT(m.dir_fd, -1);
	free(t);
}

TEST(fsmemo_host_answers_as_the_walk)
{
	memo_answers_as_the_walk(false);
}

TEST(fsmemo_host_without_openat2_answers_as_the_walk)
{
	memo_answers_as_the_walk(true);
}

/*
 * The same where the kernel has no openat2 (before Linux 5.6): in a child whose openat2 fails
 * with ENOSYS, so that the memo and the host's look-up both take the component walk. Above,
 * openat2 still opens the walk's way for the memo, and answers "." and ".." as spelled.
 */
TEST(fsmemo_host_on_a_kernel_without_openat2_answers_as_the_walk)
{
#if defined(__linux__)
	int status = -1;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);

		/* openat2 is 437 in every table; older libseccomp may not know its name. */
		if (!f || seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), 437, 0) != 0 ||
		    seccomp_load(f) != 0 || syscall(437, AT_FDCWD, "/", NULL, 0) != -1 ||
		    errno != ENOSYS)
			_exit(2);
		memo_answers_as_the_walk(true);
		fflush(NULL);
		_exit(t_failures() ? 1 : 0);
	}
	CHECK(pid > 0);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK_INT(status, 0);
#endif
}

/*
 * The walk past a link: what a link leads to is opened with one openat2 beneath the directory
 * reached (a hook linked to ../../scripts/NAME), and a link that is the last name is walked from
 * its directory, or from a directory the caller kept (sbx_fs_walk_in); the host's view reads and
 * lists a path with no link on it through one openat2. Every answer must be the component
 * walk's, which a child without openat2 (ENOSYS, as before Linux 5.6) takes for every name:
 * links on the way after the first, "." and "..", trailing slashes, absolute and dangling
 * targets, a file in the way, a climb past "/", a file listed and a directory read.
 */
#if defined(__linux__)
static const char *const past_links[] = {
	"/repo/.git/hooks/h1",
	"/repo/.git/hooks/h2",
	"/repo/.git/hooks/h3",
	"/repo/.git/hooks/h4",
	"/repo/.git/hooks/h5",
	"/repo/.git/hooks/h6",
	"/repo/.git/hooks/h7",
	"/repo/.git/hooks/h8",
	"/repo/.git/hooks/h9",
	"/repo/.git/hooks/h10",
	"/repo/.git/hooks/h11",
	"/repo/.git/hooks/h12",
	"/repo/.git/hooks/h1/x",
	"/repo/lnk/s1",
	"/repo/lnk/none",
	"/repo/lnk/s1/x",
	"/repo/.git/hooks/none",
	"/repo/.git/hooks/h4/s1",
	"/repo/scripts/s1",
	"/repo/scripts",
	"/repo/scripts/s1/x",
	"/repo/.git/hooks",
	"/repo/lnk",
};
#define N_PAST (sizeof(past_links) / sizeof(*past_links))

struct walked {
	int r;
	struct sbx_pathinfo in;
	int read_r, list_r, listed; /* the host's view: the file read, the directory listed */
	size_t read_len;
};

static int count_entry(void *arg, const char *name, enum sbx_ftype type)
{
	(void)name;
	(void)type;
	++*(int *)arg;
	return 0;
}

static void walk_past_links(const char *real_t, struct walked *w, bool in_dir)
{
	char *hooks = cat(real_t, "/repo/.git/hooks");
	int dfd = open(hooks, O_PATH | O_DIRECTORY | O_CLOEXEC);

	CHECK(dfd >= 0);
	for (size_t i = 0; i < N_PAST; i++) {
		char *p = cat(real_t, past_links[i]);
		bool hook = !strncmp(past_links[i], "/repo/.git/hooks/", 17) &&
			    !strchr(past_links[i] + 17, '/');
		int fd = -1;

		memset(&w[i].in, 0x5a, sizeof(w[i].in));
		w[i].r = in_dir && hook ? sbx_fs_walk_in(dfd, p, &w[i].in, &fd)
					: sbx_fs_walk(p, &w[i].in, &fd);
		/* The descriptor handed back is the object the answer describes. */
		if (w[i].r == 0 && w[i].in.exists) {
			struct stat st;

			CHECK(fd >= 0 && fstat(fd, &st) == 0);
			CHECK(fd >= 0 && (unsigned long long)st.st_ino == w[i].in.ino);
		} else {
			CHECK_INT(fd, -1);
		}
		if (fd >= 0)
			close(fd);
		{
			char buf[64];

			w[i].listed = 0;
			w[i].read_r = sbx_fsview_host.read_file(NULL, p, buf, sizeof(buf),
								&w[i].read_len);
			w[i].list_r = sbx_fsview_host.list(NULL, p, count_entry, &w[i].listed);
		}
		free(p);
	}
	if (dfd >= 0)
		close(dfd);
	free(hooks);
}

static void same_walks(const struct walked *a, const struct walked *b)
{
	for (size_t i = 0; i < N_PAST; i++) {
		if (a[i].r != b[i].r)
			fprintf(stderr, "  %s: %d against %d\n", past_links[i], a[i].r, b[i].r);
		CHECK_INT(a[i].r, b[i].r);
		CHECK_INT(a[i].read_r, b[i].read_r);
		CHECK_INT(a[i].read_len, b[i].read_len);
		CHECK_INT(a[i].list_r, b[i].list_r);
		CHECK_INT(a[i].listed, b[i].listed);
		if (a[i].r || b[i].r)
			continue;
		if (strcmp(a[i].in.real, b[i].in.real))
			fprintf(stderr, "  %s: %s against %s\n", past_links[i], a[i].in.real,
				b[i].in.real);
		CHECK_INT(a[i].in.exists, b[i].in.exists);
		CHECK_INT(a[i].in.type, b[i].in.type);
		CHECK_INT(a[i].in.mode, b[i].in.mode);
		CHECK_INT(a[i].in.dev, b[i].in.dev);
		CHECK_INT(a[i].in.ino, b[i].in.ino);
		CHECK_INT(a[i].in.is_link, b[i].in.is_link);
		CHECK_INT(a[i].in.link_shared, b[i].in.link_shared);
		CHECK_STR(a[i].in.real, b[i].in.real);
		CHECK_STR(a[i].in.link, b[i].in.link);
	}
}
#endif

TEST(fsview_walk_past_links_as_the_component_walk)
{
#if defined(__linux__)
	static const char *const links[][2] = {
		{"h1", "../../scripts/s1"},
		{"h2", "../../scripts/none"},
		{"h3", "../../scripts/s1/x"},
		{"h4", "../../scripts/"},
		{"h5", "../../scripts/s1/"},
		{"h6", "../../lnk/s1"},
		{"h7", "h1"},
		{"h9", "./../../scripts/./s1"},
		{"h10", "../../../../../../../../../../../../../../../.."},
		{"h11", "../../scripts/s1/../s1"},
		{"h12", "..//..//scripts//s1"},
	};
	char *t = vec_fresh_dir(), *p, *q, real_t[SBX_MAX_PATH];
	struct walked with[N_PAST], in_dir[N_PAST];
	int status = -1;
	pid_t pid;

	CHECK(realpath(t, real_t) != NULL);
	p = cat(real_t, "/repo/scripts/s1");
	vec_mkfile(p, "#!/bin/sh\n");
	free(p);
	p = cat(real_t, "/repo/.git/hooks");
	CHECK_INT(vec_mkdir(p), 0);
	free(p);
	p = cat(real_t, "/repo/lnk");
	CHECK_INT(symlink("scripts", p), 0);
	free(p);
	for (size_t i = 0; i < sizeof(links) / sizeof(*links); i++) {
		char *h = cat("/repo/.git/hooks/", links[i][0]);

		p = cat(real_t, h);
		CHECK_INT(symlink(links[i][1], p), 0);
		free(p);
		free(h);
	}
	p = cat(real_t, "/repo/.git/hooks/h8");
	q = cat(real_t, "/repo/scripts/s1");
	CHECK_INT(symlink(q, p), 0); /* absolute */
	free(q);
	free(p);

	walk_past_links(real_t, with, false);
	walk_past_links(real_t, in_dir, true);
	same_walks(with, in_dir);
	/* What is asked is answered: a hook found, through its link, at the script. */
	q = cat(real_t, "/repo/scripts/s1");
	CHECK(with[0].r == 0 && with[0].in.exists && with[0].in.is_link);
	CHECK_STR(with[0].in.real, q);
	free(q);
	CHECK(with[1].r == 0 && !with[1].in.exists && with[1].in.is_link);
	CHECK(with[9].r == 0 && with[9].in.exists && !strcmp(with[9].in.real, "/"));
	/*
	 * What is left after a link may be longer than the kernel takes in one path (PATH_MAX),
	 * each name short: the component walk's answer, not ENAMETOOLONG.
	 */
	{
		char target[2700] = "scripts", *longp;
		struct sbx_pathinfo in;
		size_t n = strlen(target);

		while (n + 2 < 2650) {
			memcpy(target + n, "/.", 3);
			n += 2;
		}
		p = cat(real_t, "/repo/dots");
		CHECK_INT(symlink(target, p), 0);
		longp = malloc(strlen(p) + 1600);
		CHECK(longp != NULL);
		if (longp) {
			n = (size_t)sprintf(longp, "%s", p);
			while (n < 1500) {
				memcpy(longp + n, "/.", 3);
				n += 2;
			}
			strcpy(longp + n, "/s1");
			CHECK_INT(sbx_fs_walk(longp, &in, NULL), 0);
			q = cat(real_t, "/repo/scripts/s1");
			CHECK(in.exists && in.type == SBX_FT_REG);
			CHECK_STR(in.real, q);
			free(q);
			free(longp);
		}
		free(p);
	}

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
		struct walked without[N_PAST];

		if (!f || seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), 437, 0) != 0 ||
		    seccomp_load(f) != 0 || syscall(437, AT_FDCWD, "/", NULL, 0) != -1 ||
		    errno != ENOSYS)
			_exit(2);
		walk_past_links(real_t, without, false);
		same_walks(with, without);
		walk_past_links(real_t, without, true);
		same_walks(in_dir, without);
		fflush(NULL);
		_exit(t_failures() ? 1 : 0);
	}
	CHECK(pid > 0);
	CHECK_INT(waitpid(pid, &status, 0), pid);
	CHECK_INT(status, 0);
	free(t);
#endif
}

/* A link that someone other than root and the caller can replace is reported as shared. */
TEST(fsview_walk_shared_links)
{
	char *t = vec_fresh_dir(), *p, real_t[SBX_MAX_PATH];
	struct sbx_pathinfo in;

	CHECK(realpath(t, real_t) != NULL);
	p = cat(real_t, "/open");
	CHECK_INT(mkdir(p, 0777), 0);
	CHECK_INT(chmod(p, 0777), 0); /* world-writable, not sticky */
	free(p);
	p = cat(real_t, "/sticky");
	CHECK_INT(mkdir(p, 0777), 0);
	CHECK_INT(chmod(p, 01777), 0); /* as /tmp: only the link's owner may replace it */
	free(p);
	p = cat(real_t, "/open/l");
	CHECK_INT(symlink("/", p), 0);
	free(p);
	p = cat(real_t, "/sticky/l");
	CHECK_INT(symlink("/", p), 0);
	free(p);
	p = cat(real_t, "/mine");
	CHECK_INT(symlink("/", p), 0);
	free(p);
	p = cat(real_t, "/open/l/etc");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
	CHECK(in.link[0] && in.link_shared);
	free(p);
	p = cat(real_t, "/sticky/l/etc");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
	CHECK(in.link[0] && !in.link_shared);
	free(p);
	p = cat(real_t, "/mine/etc");
	CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
	CHECK(in.link[0] && !in.link_shared);
	free(p);
	/* A chain: the caller's own link, then a shared one, which leads the list. */
	{
		char *own = cat(real_t, "/chain"), *to = cat(real_t, "/open/l"), *q;

		CHECK_INT(symlink(to, own), 0);
		p = cat(real_t, "/chain/etc");
		CHECK_INT(sbx_fs_walk(p, &in, NULL), 0);
		CHECK(in.link_shared && sbx_link_len(in.link) == strlen(to));
		CHECK(!strncmp(in.link, to, strlen(to)));
		q = in.link + sbx_link_len(in.link);
		CHECK(q[0] == '/');
		CHECK_STR(q + 1, own);
		free(p);
		free(to);
		free(own);
	}
	free(t);
}

/* ---- a fake view: a few paths fail with a given errno, the rest as on the host ------------ */

struct fake {
	const char *fail_path; /* look-ups, reads and listings of it fail with fail_err */
	const char *fail_read; /* only reads of it fail */
	int fail_err;
	const char *closed_dir; /* list() says SBX_FS_CLOSED */
};

static int fake_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	struct fake *f = self;

	if (f->fail_path && strcmp(path, f->fail_path) == 0)
		return -f->fail_err;
	return sbx_fsview_host.lookup(NULL, path, out);
}

static int fake_read(void *self, const char *path, char *buf, size_t size, size_t *len)
{
	struct fake *f = self;

	if ((f->fail_path && strcmp(path, f->fail_path) == 0) ||
	    (f->fail_read && strcmp(path, f->fail_read) == 0))
		return -f->fail_err;
	return sbx_fsview_host.read_file(NULL, path, buf, size, len);
}

static int fake_list(void *self, const char *dir, sbx_fs_list_fn each, void *arg)
{
	struct fake *f = self;

	if (f->closed_dir && strcmp(dir, f->closed_dir) == 0)
		return SBX_FS_CLOSED;
	if (f->fail_path && strcmp(dir, f->fail_path) == 0)
		return -f->fail_err;
	return sbx_fsview_host.list(NULL, dir, each, arg);
}

static int plan_with(struct fake *f, const char *ws, struct sbx_fs *fs, struct sbx_diag *d)
{
	struct sbx_fsview v = {
		.lookup = fake_lookup, .read_file = fake_read, .list = fake_list, .self = f};
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_profile prof = {.type = SBX_MANAGED};
	struct sbx_plan plan;
	int r;

	ctx.fs = &v;
	prof.fs = *fs;
	sbx_diag_clear(d);
	r = sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan, d);
	if (r == 0)
		sbx_plan_free(&plan);
	return r;
}

TEST(fsview_failed_lookups_fail_the_plan)
{
	char *ws = vec_fresh_dir(), *git = cat(ws, "/.git"), *deny = cat(ws, "/sub/secret"),
	     *msg = NULL;
	struct sbx_fs fs = {0};
	struct fake f = {0};
	struct sbx_diag d;
	static const int errs[] = {EACCES, ELOOP, ENAMETOOLONG, EIO};

	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&fs, ws, SBX_WRITE, false);
	sbx_fs_push_path(&fs, deny, SBX_DENY, false);
	/* Control: the same profile plans. */
	CHECK_INT(plan_with(&f, ws, &fs, &d), 0);
	for (size_t i = 0; i < sizeof(errs) / sizeof(*errs); i++) {
		/* A protected name, and a denied path, that cannot be looked up. */
		const char *paths[] = {git, deny};

		for (size_t j = 0; j < 2; j++) {
			f.fail_path = paths[j];
			f.fail_err = errs[i];
			CHECK_INT(plan_with(&f, ws, &fs, &d), -errs[i]);
			free(msg);
			msg = NULL;
			CHECK(asprintf(&msg, "cannot look up %s: %s", paths[j], strerror(errs[i])) >
			      0);
			CHECK_STR(d.msg, msg);
			/* Too long a name (or chain of links) is no unreadable path. */
			CHECK(strstr(d.hint, errs[i] == ENAMETOOLONG
						     ? "exceeds PATH_MAX: name the path where its "
						       "links lead"
						     : "never takes an unreadable path for a "
						       "missing one") != NULL);
		}
	}
	/* A .git pointer file that exists but cannot be read. */
	vec_mkfile(git, "gitdir: elsewhere\n");
	f.fail_path = NULL;
	CHECK_INT(plan_with(&f, ws, &fs, &d), 0);
	f.fail_read = git;
	f.fail_err = EACCES;
	CHECK_INT(plan_with(&f, ws, &fs, &d), -EACCES);
	free(msg);
	msg = NULL;
	CHECK(asprintf(&msg, "cannot read %s: %s", git, strerror(EACCES)) > 0);
	CHECK_STR(d.msg, msg);
	free(msg);
	free(git);
	free(deny);
	sbx_fs_clear(&fs);
	free(ws);
}

TEST(fsview_glob_scan_errors)
{
	char *t = vec_fresh_dir(), *p = cat(t, "/a/x.env"), *sub = cat(t, "/a"),
	     *pat = cat(t, "/**/*.env"), **v = NULL, *msg = NULL;
	struct fake f = {0};
	struct sbx_fsview view = {
		.lookup = fake_lookup, .read_file = fake_read, .list = fake_list, .self = &f};
	struct sbx_diag d;
	size_t n = 0;

	vec_mkfile(p, "x");
	sbx_diag_clear(&d);
	CHECK_INT(sbx_glob_expand(pat, 0, &view, &v, &n, &d), 0);
	CHECK(n == 1 && strcmp(v[0], p) == 0);
	sbx_strv_free(v, n);
	/* A directory the command could reach but the scan cannot list: refused. */
	f.fail_path = sub;
	f.fail_err = EACCES;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_glob_expand(pat, 0, &view, &v, &n, &d), -EACCES);
	CHECK(strstr(d.msg, "cannot list") && strstr(d.msg, "Permission denied"));
	CHECK(strstr(d.hint, "could still open what is inside it by name") != NULL);
	f.fail_err = EIO;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_glob_expand(pat, 0, &view, &v, &n, &d), -EIO);
	/*
	 * Worded once, by the level that could not list: the levels above it pass the error on
	 * without trying words of their own (which the first error would drop, hint and all).
	 */
	free(msg);
	CHECK(asprintf(&msg, "cannot list %s while expanding glob `%s`: %s", sub, pat,
		       strerror(EIO)) > 0);
	CHECK_STR(d.msg, msg);
	CHECK(!d.dropping);
	/* One wholly closed to the caller: nothing the command could reach either. */
	f.fail_path = NULL;
	f.closed_dir = sub;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_glob_expand(pat, 0, &view, &v, &n, &d), 0);
	CHECK_INT(n, 0);
	sbx_strv_free(v, n);
	free(p);
	free(sub);
	free(msg);
	free(pat);
	free(t);
}

/* A match exactly SBX_MAX_PATH bytes long cannot be named: refused; one byte less is a match. */
/* Removes a chain of single directories ending in one file, through descriptors (the paths
 * are too long for nftw). */
static void rm_chain(const char *top)
{
	int fds[64], n = 0;
	struct dirent *de;

	fds[n] = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	while (fds[n] >= 0 && n < 63) {
		DIR *d = fdopendir(dup(fds[n]));
		int next = -1;

		if (d)
			rewinddir(d); /* the duplicate shares its offset */
		while (d && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			if (de->d_type == DT_DIR)
				next = openat(fds[n], de->d_name,
					      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			else
				unlinkat(fds[n], de->d_name, 0);
		}
		if (d)
			closedir(d);
		if (next < 0)
			break;
		fds[++n] = next;
	}
	for (; n > 0; n--) {
		close(fds[n]);
		DIR *d = fdopendir(dup(fds[n - 1]));

		if (d)
			rewinddir(d);
		while (d && (de = readdir(d)))
			if (de->d_name[0] != '.')
				unlinkat(fds[n - 1], de->d_name, AT_REMOVEDIR);
		if (d)
			closedir(d);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	rmdir(top);
}

TEST(fsview_glob_match_at_path_max)
{
	char *t = vec_fresh_dir(), path[SBX_MAX_PATH + 256], *pat, **v = NULL;
	size_t len, n = 0;
	struct sbx_diag d;
	int dfd;

	for (int want = SBX_MAX_PATH - 1; want <= SBX_MAX_PATH; want++) {
		const char *top = want < SBX_MAX_PATH ? "/deepa" : "/deepb";
		char name[256];

		snprintf(path, sizeof(path), "%s%s", t, top);
		CHECK_INT(mkdir(path, 0755), 0);
		dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		CHECK(dfd >= 0);
		len = strlen(path);
		while ((size_t)want - len > 250) {
			int next;

			memset(name, 'd', 200);
			name[200] = '\0';
			CHECK_INT(mkdirat(dfd, name, 0755), 0);
			next = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			close(dfd);
			dfd = next;
			len += 201;
		}
		memset(name, 'f', (size_t)want - len - 1 - 4);
		strcpy(name + ((size_t)want - len - 1 - 4), ".env");
		close(openat(dfd, name, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
		close(dfd);
		pat = cat(path, "/**/*.env");
		sbx_diag_clear(&d);
		if (want < SBX_MAX_PATH) {
			CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), 0);
			CHECK(n == 1 && strlen(v[0]) == (size_t)want);
			sbx_strv_free(v, n);
		} else {
			CHECK_INT(sbx_glob_expand(pat, 0, NULL, &v, &n, &d), -ENAMETOOLONG);
			CHECK(strstr(d.msg, "a path of 4096 bytes cannot be named") != NULL);
		}
		rm_chain(path);
		free(pat);
	}
	free(t);
}

/* A worktree's commondir file that cannot be read fails the plan, naming it. */
TEST(fsview_unreadable_commondir_fails_the_plan)
{
	char *top = vec_fresh_dir(), *ws = cat(top, "/ws"), *gd = cat(top, "/ws/gd"),
	     *dotgit = cat(ws, "/.git"), *cd = cat(gd, "/commondir"), *text = NULL, *msg = NULL;
	struct sbx_fs fs = {0};
	struct fake f = {0};
	struct sbx_diag d;

	vec_mkdir(gd);
	vec_mkfile(cd, "..\n");
	CHECK(asprintf(&text, "gitdir: %s\n", gd) > 0);
	vec_mkfile(dotgit, text);
	sbx_fs_push_special(&fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&fs, ws, SBX_WRITE, false);
	CHECK_INT(plan_with(&f, ws, &fs, &d), 0);
	f.fail_read = cd;
	f.fail_err = EIO;
	CHECK_INT(plan_with(&f, ws, &fs, &d), -EIO);
	CHECK(asprintf(&msg, "cannot read %s: %s", cd, strerror(EIO)) > 0);
	CHECK_STR(d.msg, msg);
	sbx_fs_clear(&fs);
	free(msg);
	free(text);
	free(top);
	free(ws);
	free(gd);
	free(dotgit);
	free(cd);
}

/* A base view that counts what it is asked; "/denied" fails with EACCES, "/l" crosses a link. */
struct counting_view {
	int lookups, reads, lists;
};

static int counting_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	struct counting_view *c = self;

	c->lookups++;
	memset(out, 0, sizeof(*out));
	if (strcmp(path, "/denied") == 0)
		return -EACCES;
	out->exists = true;
	out->type = SBX_FT_DIR;
	out->mode = 040755;
	out->dev = 7;
	out->ino = (unsigned long long)c->lookups;
	snprintf(out->real, sizeof(out->real), "%s", strcmp(path, "/l") == 0 ? "/target" : path);
	if (strcmp(path, "/l") == 0) {
		snprintf(out->link, sizeof(out->link), "/l");
		out->is_link = out->link_shared = true;
	}
	return 0;
}

static int counting_read(void *self, const char *path, char *buf, size_t size, size_t *len)
{
	((struct counting_view *)self)->reads++;
	*len = 0;
	return -EINVAL;
}

static int counting_list(void *self, const char *dir, sbx_fs_list_fn each, void *arg)
{
	((struct counting_view *)self)->lists++;
	return 0;
}

TEST(fsmemo_one_lookup_per_path)
{
	struct counting_view c = {0};
	const struct sbx_fsview base = {.lookup = counting_lookup,
					.read_file = counting_read,
					.list = counting_list,
					.self = &c};
	struct sbx_fsmemo m;
	struct sbx_pathinfo a, b;
	char p[32], buf[4];
	size_t len;

	sbx_fsmemo_init(&m, &base);
	/* The same answer twice, from one look-up: identity, real path and link included. */
	CHECK_INT(m.view.lookup(m.view.self, "/l", &a), 0);
	CHECK_INT(m.view.lookup(m.view.self, "/l", &b), 0);
	CHECK_INT(c.lookups, 1);
	CHECK(b.exists && b.type == SBX_FT_DIR && b.mode == 040755 && b.is_link && b.link_shared);
	CHECK_INT(b.ino, a.ino);
	CHECK_STR(b.real, "/target");
	CHECK_STR(b.link, "/l");
	/* A path without a link: no link left over from the one before. */
	CHECK_INT(m.view.lookup(m.view.self, "/x", &b), 0);
	CHECK_INT(m.view.lookup(m.view.self, "/x", &b), 0);
	CHECK_INT(c.lookups, 2);
	CHECK(!b.is_link && !b.link[0]);
	CHECK_STR(b.real, "/x");
	/* A failure is not kept: asked again, failing again. */
	CHECK_INT(m.view.lookup(m.view.self, "/denied", &b), -EACCES);
	CHECK_INT(m.view.lookup(m.view.self, "/denied", &b), -EACCES);
	CHECK_INT(c.lookups, 4);
	/* Reads and listings are the base's, every time. */
	CHECK_INT(m.view.read_file(m.view.self, "/x", buf, sizeof(buf), &len), -EINVAL);
	CHECK_INT(m.view.list(m.view.self, "/x", NULL, NULL), 0);
	CHECK_INT(c.reads, 1);
	CHECK_INT(c.lists, 1);
	/* Bounded: past SBX_FSMEMO_MAX paths, a new one is looked up each time it is asked. */
	for (int i = 0; i < SBX_FSMEMO_MAX; i++) {
		snprintf(p, sizeof(p), "/many/%d", i);
		CHECK_INT(m.view.lookup(m.view.self, p, &b), 0);
	}
	CHECK_INT(m.n, SBX_FSMEMO_MAX);
	c.lookups = 0;
	CHECK_INT(m.view.lookup(m.view.self, "/late", &b), 0);
	CHECK_INT(m.view.lookup(m.view.self, "/late", &b), 0);
	CHECK_INT(c.lookups, 2);
	/* What was kept before stays kept. */
	CHECK_INT(m.view.lookup(m.view.self, "/many/0", &b), 0);
	CHECK_INT(m.view.lookup(m.view.self, "/l", &b), 0);
	CHECK_INT(c.lookups, 2);
	sbx_fsmemo_free(&m);
}

/*
 * A view that keeps the paths the plan asks it to keep, as the helper's does
 * (platform/linux/resolve.c): the pointer itself, which must be the plan's own string and live
 * as long as the plan, not a copy made for the call.
 */
struct keeping_view {
	const char *kept[32];
	char *copy[32]; /* what each said when it was given */
	size_t n_kept, n_plain;
};

static int keeping_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	((struct keeping_view *)self)->n_plain++;
	return sbx_fsview_host.lookup(sbx_fsview_host.self, path, out);
}

static int keeping_lookup_kept(void *self, const char *path, struct sbx_pathinfo *out)
{
	struct keeping_view *k = self;

	if (k->n_kept < sizeof(k->kept) / sizeof(*k->kept)) {
		k->kept[k->n_kept] = path;
		k->copy[k->n_kept++] = strdup(path);
	}
	return sbx_fsview_host.lookup(sbx_fsview_host.self, path, out);
}

TEST(fsview_lookup_kept_is_the_plans_own_path)
{
	char *ws = vec_fresh_dir(), *deny = cat(ws, "/sub/secret"), *ro = cat(ws, "/sub/ro");
	struct keeping_view k = {0};
	struct sbx_fsview v = {.lookup = keeping_lookup,
			       .read_file = sbx_fsview_host.read_file,
			       .list = sbx_fsview_host.list,
			       .self = &k,
			       .lookup_kept = keeping_lookup_kept};
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_profile prof = {.type = SBX_MANAGED};
	struct sbx_plan plan;
	struct sbx_diag d;
	size_t paths = 0;

	vec_mkfile(deny, "x");
	sbx_fs_push_special(&prof.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&prof.fs, ws, SBX_WRITE, false);
	sbx_fs_push_path(&prof.fs, ro, SBX_READ, false);
	sbx_fs_push_path(&prof.fs, deny, SBX_DENY, false);
	ctx.fs = &v;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan, &d),
		  0);
	/* Every requirement of a path was looked up as kept, with its own path's pointer. */
	for (size_t i = 0; i < plan.n_reqs; i++) {
		const struct sbx_req *r = &plan.reqs[i];
		bool asked = false;

		if (!r->path || r->path[0] != '/' || r->kind == SBX_REQ_DENY_GLOB)
			continue;
		paths++;
		for (size_t j = 0; j < k.n_kept && !asked; j++)
			asked = k.kept[j] == r->path;
		if (!asked || !r->path_kept)
			t_fail(__FILE__, __LINE__, "%s: %s", r->path,
			       asked ? "a copy, not kept" : "not looked up as kept");
	}
	CHECK(paths >= 6); /* /, the workspace, its protected names, the readable and denied path */
	CHECK_INT(k.n_kept, paths);
	/* Each kept path says, as long as the plan lives, what it said when it was kept. */
	for (size_t j = 0; j < k.n_kept; j++) {
		CHECK_STR(k.kept[j], k.copy[j]);
		free(k.copy[j]);
	}
	sbx_plan_free(&plan);
	sbx_fs_clear(&prof.fs);
	free(ro);
	free(deny);
	free(ws);
}

/* A view that records the planner's hints (struct sbx_fsview.ahead) as they are given. */
struct hinted_view {
	const char *hint[32];
	char *copy[32]; /* what each said when it was hinted */
	size_t n, forgets;
	bool last_forgets; /* the last hint given was NULL */
};

static void hinted_ahead(void *self, const char *path)
{
	struct hinted_view *h = self;

	h->last_forgets = !path;
	if (!path)
		h->forgets++;
	else if (h->n < sizeof(h->hint) / sizeof(*h->hint)) {
		h->hint[h->n] = path;
		h->copy[h->n++] = strdup(path);
	}
}

static int hinted_lookup(void *self, const char *path, struct sbx_pathinfo *out)
{
	return sbx_fsview_host.lookup(sbx_fsview_host.self, path, out);
}

/*
 * A hint is matched by its address alone, so the planner may only name strings that outlive
 * the hints: the plan's own paths, unchanged, and it forgets them (a NULL hint) before the plan
 * can be freed. A view that outlives the plan (the memo) then holds no hint at all.
 */
TEST(fsview_hints_name_the_plans_paths_and_are_forgotten)
{
	char *ws = vec_fresh_dir(), *ro1 = cat(ws, "/ro1"), *ro2 = cat(ws, "/ro2"),
	     *d1 = cat(ws, "/d1"), *d2 = cat(ws, "/d2"), *d3 = cat(ws, "/d3");
	struct hinted_view h = {0};
	struct sbx_fsview v = {.lookup = hinted_lookup,
			       .read_file = sbx_fsview_host.read_file,
			       .list = sbx_fsview_host.list,
			       .self = &h,
			       .ahead = hinted_ahead};
	struct sbx_ctx ctx = vec_ctx(ws);
	struct sbx_profile prof = {.type = SBX_MANAGED};
	struct sbx_fsmemo m;
	struct sbx_plan plan;
	struct sbx_diag d;

	vec_mkfile(d1, "x");
	vec_mkfile(d2, "x");
	sbx_fs_push_special(&prof.fs, SBX_SP_ROOT, NULL, SBX_READ, false);
	sbx_fs_push_path(&prof.fs, ws, SBX_WRITE, false);
	sbx_fs_push_path(&prof.fs, ro1, SBX_READ, false);
	sbx_fs_push_path(&prof.fs, ro2, SBX_READ, false);
	sbx_fs_push_path(&prof.fs, d1, SBX_DENY, false);
	sbx_fs_push_path(&prof.fs, d2, SBX_DENY, false);
	sbx_fs_push_path(&prof.fs, d3, SBX_DENY, false);
	ctx.fs = &v;
	sbx_diag_clear(&d);
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan, &d),
		  0);
	CHECK(h.n >= 2); /* the second of each list (read-only, denied) at least */
	CHECK(h.forgets >= 1 && h.last_forgets);
	for (size_t j = 0; j < h.n; j++) {
		bool planned = false;

		for (size_t i = 0; i < plan.n_reqs && !planned; i++)
			planned = plan.reqs[i].path == h.hint[j] && plan.reqs[i].path_kept;
		if (!planned)
			t_fail(__FILE__, __LINE__, "%s: hinted, not a path the plan keeps",
			       h.copy[j]);
		CHECK_STR(h.hint[j], h.copy[j]);
		free(h.copy[j]);
	}
	sbx_plan_free(&plan);

	/* Through the memo, as run plans: its hints are gone with the plan's strings. */
	sbx_fsmemo_init(&m, NULL);
	ctx.fs = &m.view;
	CHECK_INT(sbx_plan_build(&prof, &ctx, SBX_PREF_REQUIRE, false, SBX_WIN_DISABLED, &plan, &d),
		  0);
	CHECK(!m.hints.next.path && !m.hints.now.path);
	sbx_plan_free(&plan);
	sbx_fsmemo_free(&m);
	sbx_fs_clear(&prof.fs);
	free(ro1);
	free(ro2);
	free(d1);
	free(d2);
	free(d3);
	free(ws);
}

struct chunks {
	size_t calls, bytes;
};

static int count_chunk(void *arg, const char *chunk, size_t n)
{
	struct chunks *c = arg;

	(void)chunk;
	c->calls++;
	c->bytes += n;
	return 0;
}

/* The host view reads a regular file, whole or in chunks, and nothing else, whatever the way. */
TEST(fsview_host_reads_regular_files_only)
{
	char *t = vec_fresh_dir(), *file = cat(t, "/file"), *fifo = cat(t, "/fifo"),
	     *missing = cat(t, "/missing"), buf[8];
	const char *not_files[] = {t, fifo};
	struct chunks c = {0};
	size_t len = 99;

	CHECK_INT(vec_mkfile(file, "0123456789"), 0);
	CHECK_INT(mkfifo(fifo, 0600), 0);
	/* Positive control: the file, up to the buffer whole, then in chunks of 4. */
	CHECK_INT(sbx_fsview_host.read_file(NULL, file, buf, sizeof(buf), &len), 0);
	CHECK_INT(len, sizeof(buf));
	CHECK(memcmp(buf, "01234567", sizeof(buf)) == 0);
	CHECK_INT(sbx_fsview_host.read_chunks(NULL, file, buf, 4, count_chunk, &c), 0);
	CHECK_INT(c.calls, 3);
	CHECK_INT(c.bytes, 10);
	/* A directory and a FIFO (opened without waiting for a writer) are no file to read. */
	for (size_t i = 0; i < sizeof(not_files) / sizeof(*not_files); i++) {
		len = 99;
		CHECK_INT(sbx_fsview_host.read_file(NULL, not_files[i], buf, sizeof(buf), &len),
			  -EINVAL);
		CHECK_INT(len, 0);
		CHECK_INT(sbx_fsview_host.read_chunks(NULL, not_files[i], buf, 4, count_chunk, &c),
			  -EINVAL);
	}
	/* Missing: said as such, by both. */
	CHECK_INT(sbx_fsview_host.read_file(NULL, missing, buf, sizeof(buf), &len), -ENOENT);
	CHECK_INT(sbx_fsview_host.read_chunks(NULL, missing, buf, 4, count_chunk, &c), -ENOENT);
	CHECK_INT(c.calls, 3);
	free(file);
	free(fifo);
	free(missing);
	free(t);
}
