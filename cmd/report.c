/* SPDX-License-Identifier: MIT */
/*
 * report.c - `--report FILE|-`: the denial report's file, one JSON line per refused operation
 * (lib/report.c words it), fed from any thread (the tracer's, the proxy's), counted, and the
 * one-line summary sbxrun prints when a confined command failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifndef _WIN32
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "unix/proxy.h"
#endif

#include "cmd.h"
#include "net.h"

#ifndef _WIN32

/*
 * The most a writer puts in the report file. The command chooses how many refusals it meets and
 * the names in them, and the file lies wherever the caller put it, written with the caller's
 * rights: unbounded, a :read-only command could fill the file system that holds it (some 2.5
 * MB/s from one process). Lines past it are counted, not written, and the summary says so.
 */
#define REPORT_MAX_BYTES (16u << 20)

/*
 * A pipe is written without blocking (report_open_fd), since a confined command may hold it open
 * and never read. A reader that reads is waited for, by the tracer's thread only (it then holds
 * the traced command, as a full pipe holds any writer), REPORT_STALL_MS at most for each line:
 * the supervisor's own loop and the proxy's never wait, their lines wait in memory instead, and
 * the tracer's waits for them too, so a reader that takes a page now and then would otherwise
 * hold the command, and the signals sent to it, for as long as all of them take. One that takes
 * nothing, or not all that waits, within REPORT_STALL_MS is taken to have stopped: what waits is
 * dropped, counted, and so is every line the pipe has no room for, until it takes one again. A
 * line is written whole or not at all: the rest of one the pipe took in part is kept and written
 * before any other.
 */
#define REPORT_STALL_MS	 5000
#define REPORT_QUEUE_MAX (1u << 20) /* bytes of lines waiting for a pipe */

/*
 * The briefs a forked writer (the proxy's worker) could not put in the relay, a pipe the owner
 * reads from its loop when it is given the processor: on a loaded machine a worker that makes
 * decisions faster than that fills it (64 KiB by default: a few hundred briefs), and it cannot
 * wait for room. It counts them here instead, in memory shared with the owner (mapped before
 * the fork), by mark as report_relay_read would; the owner adds them to its own counts before
 * its summary. first: the first brief lost, for a summary that has none of its own (first_set
 * 0, 1 while written, 2). begun: the lines the writer began, each of whose brief then goes to
 * the relay or is counted in n. A writer killed before either (SIGKILL, when the proxy's worker
 * does not end in time) leaves begun ahead of the briefs the owner read and took from n, and the
 * owner counts the difference, each a decision whose line may be in the file but whose brief
 * never came. Not a count of briefs ended beside it: the writer killed after its brief went out
 * and before that count, the brief was counted twice, as read and as never ended.
 */
struct relay_lost {
	size_t n, dropped, no_room, failed, begun;
	int err;
	int first_set;
	char first[512];
};

struct report {
	int fd;
	pthread_mutex_t lock;
	size_t n;
	char *first;  /* the first denial in a few words (sbx_report_brief), or NULL */
	size_t limit; /* REPORT_MAX_BYTES for each process writing a run's report; 0: none */
	/*
	 * Written by this process (a forked one counts its own). Lines dropped or failed count
	 * nothing: they are not in the file the limit keeps, and a pipe's reader that took none
	 * for a while would otherwise leave the rest of the run unreported.
	 */
	size_t bytes;
	size_t dropped; /* lines not written: past REPORT_MAX_BYTES */
	/*
	 * A pipe opened non-blocking: q[qhead, qlen) holds the lines waiting for it, whole, qoff
	 * bytes of the first written. since: when it last took bytes, or when q filled from empty
	 * (CLOCK_MONOTONIC, ms). loop: the thread that never waits (the one that made r).
	 */
	bool fifo;
	int reader;   /* the file opened for reading (sbx_log_reader), or -1 */
	bool torn;    /* without a reader: this process left the last line torn */
	bool stalled; /* its reader took nothing for REPORT_STALL_MS: nothing is waited for */
	/*
	 * Lines not written, by cause, each said apart in the summary: its reader stopped
	 * (stopped), REPORT_QUEUE_MAX waited (full), it had not taken them REPORT_STALL_MS after
	 * the command ended (late), a forked writer found it full (no_room), or write(2) failed
	 * (failed, with err the first such error: EPIPE, ENOSPC).
	 */
	size_t stopped, full, late, no_room_lines, failed;
	int err;
	char *q;
	size_t qhead, qoff, qlen, qcap;
	int64_t since;
	bool no_room; /* the first waits for room for all of it: the pipe polls writable before */
	pthread_t loop;
	/*
	 * A process forked from the owner (a proxy worker) cannot count in the owner's memory:
	 * it writes its lines to fd itself and each brief to relay[1], which the owner reads
	 * (report_relay_read). Both -1 without a relay.
	 */
	pid_t owner;
	int relay[2];
	/*
	 * The start of a brief the last read took in part (a read takes what the pipe holds, not
	 * whole writes): at most all of one but its newline (relay_add: 512 bytes at most).
	 */
	char part[512];
	size_t part_len;
	struct relay_lost *lost; /* shared with the forked writer; NULL without a relay */
	/*
	 * The briefs read from the relay, those taken from lost->n, and those counted as begun
	 * and never come (relay_lost_take): each brief is one of the three, once.
	 */
	size_t relayed, lost_taken, never_came;
};

#ifdef __linux__
/*
 * The walk open_parent makes, quiet: 0 with *dfd (to close), *name and info; 1 for a path with no
 * file's name at its end; or -errno (*name NULL when the current directory could not be had).
 */
static int parent_walk(const char *path, char abs[SBX_MAX_PATH], int *dfd, const char **name,
		       struct sbx_pathinfo *info)
{
	char here[SBX_MAX_PATH];
	char *cut;
	int n, rc;

	*dfd = -1;
	*name = NULL;
	if (path[0] == '/')
		n = snprintf(abs, SBX_MAX_PATH, "%s", path);
	else if (getcwd(here, sizeof(here)))
		n = snprintf(abs, SBX_MAX_PATH, "%s/%s", here, path);
	else
		return -errno;
	if (n < 0 || n >= SBX_MAX_PATH)
		return -ENAMETOOLONG;
	cut = strrchr(abs, '/');
	*name = cut + 1;
	if (!**name || !strcmp(*name, ".") || !strcmp(*name, ".."))
		return 1;
	/* The directory: "/" for a file at the top, else all before the last "/". */
	*cut = '\0';
	rc = sbx_fs_walk(cut == abs ? "/" : abs, info, dfd);
	*cut = '/';
	if (rc == 0 && !info->exists)
		rc = -ENOENT;
	else if (rc == 0 && info->type != SBX_FT_DIR)
		rc = -ENOTDIR;
	if (rc < 0 && *dfd >= 0)
		close(*dfd);
	if (rc < 0)
		*dfd = -1;
	return rc;
}

/*
 * The directory that holds path's file, opened by the planner's own walk (O_PATH), and the
 * file's name in it: the file is then opened beneath that descriptor, so the directory checked
 * is the one written in. With a plan, a link on the way that lies inside one of its writable
 * roots is refused in the words rule paths get (sbx_linux_link_check): an earlier confined run
 * may have put it there, to have sbxrun, which is not confined, make its file wherever it
 * chose. 0 with *dfd (to close) and *name, or 125 with the refusal printed.
 */
static int open_parent(const char *what, const char *path, const struct sbx_plan *plan,
		       char abs[SBX_MAX_PATH], int *dfd, const char **name)
{
	struct sbx_pathinfo info;
	struct sbx_diag d;
	int rc;

	rc = parent_walk(path, abs, dfd, name, &info);
	if (rc == 1)
		return refuse("%s %s: not a regular file or a pipe", what, path);
	if (rc < 0 && !*name && rc != -ENAMETOOLONG)
		return refuse("%s %s: the current directory: %s", what, path, strerror(-rc));
	if (rc < 0)
		return refuse("%s %s: %s", what, path, strerror(-rc));
	if (!plan)
		return 0;
	sbx_diag_clear(&d);
	/* No "where it leads" for the hint: an earlier confined run may have chosen that. */
	if (sbx_linux_link_check(plan, what, path, info.link, info.link_shared, NULL, &d) < 0) {
		close(*dfd);
		*dfd = -1;
		return refuse_diag(&d);
	}
	return 0;
}
#endif

int report_open_fd(const char *what, const char *path, const struct sbx_plan *plan, int *out,
		   bool *created, int *made_dir)
{
	/*
	 * Not blocking: a pipe nothing reads from would hold the open (and the run) forever, and
	 * an earlier confined run may have made one where the file goes. A regular file is
	 * written blocking once open; a pipe stays non-blocking, since a confined command running
	 * meanwhile may hold it open and never read: a line that does not fit is lost (and the
	 * summary says so) rather than the supervisor stalled, signals and all.
	 */
	int flags = O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK;
	const char *name = path;
	struct stat st;
	int fd, err, dfd = AT_FDCWD;
#ifdef __linux__
	char abs[SBX_MAX_PATH];
#endif

	*out = -1;
	if (created)
		*created = false;
	if (made_dir)
		*made_dir = -1;
	if (strcmp(path, "-") == 0) {
		*out = STDERR_FILENO;
		return 0;
	}
#ifdef __linux__
	err = open_parent(what, path, plan, abs, &dfd, &name);
	if (err)
		return err;
#else
	(void)plan;
#endif
	/*
	 * Appended, as a log is: several runs may share one file, each line whole. Not through a
	 * link: an earlier confined run may have put one where the file goes, to make sbxrun,
	 * which is not confined, append to a file of its choosing. A file made here is made with
	 * O_EXCL, so that *created says for certain that this run made it (and may remove it).
	 */
	for (int tries = 0;; tries++) {
		fd = openat(dfd, name, flags);
		if (fd >= 0 || errno != ENOENT || tries == 8)
			break;
		fd = openat(dfd, name, flags | O_CREAT | O_EXCL, 0644);
		if (fd >= 0 && created)
			*created = true;
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	err = fd < 0 ? errno : 0;
	/* ENXIO is also a Unix socket's (or a device's) answer: only a FIFO is "a pipe". */
	if (err == ENXIO &&
	    !(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISFIFO(st.st_mode)))
		err = EINVAL;
	if (fd >= 0 && fstat(fd, &st) == 0 && (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) &&
	    fcntl(fd, F_SETFL, O_APPEND | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0)) == 0) {
		*out = fd;
		/* The directory it was made in, for its removal (report_remove_created). */
		if (made_dir && created && *created && dfd != AT_FDCWD)
			*made_dir = dfd;
		else if (dfd != AT_FDCWD)
			close(dfd);
		return 0;
	}
	if (dfd != AT_FDCWD)
		close(dfd);
	if (fd >= 0) {
		err = EINVAL;
		close(fd);
	}
	if (err == ELOOP) {
		struct sbx_diag d;

		/* Not "name where it leads": an earlier confined run may have chosen that. */
		sbx_diag_clear(&d);
		sbx_diag_set(&d, 0,
			     "%s %s: is a symbolic link, which sbxrun does not write through", what,
			     path);
		sbx_diag_hint(&d, 0,
			      "remove the link (an earlier confined run may have made it), "
			      "or name another file");
		return refuse_diag(&d);
	}
	if (err == EINVAL)
		return refuse("%s %s: not a regular file or a pipe", what, path);
	if (err == ENXIO) {
		struct sbx_diag d;

		sbx_diag_clear(&d);
		sbx_diag_set(&d, 0, "%s %s: a pipe that nothing reads from", what, path);
		sbx_diag_hint(&d, 0, "start its reader first, or name a regular file");
		return refuse_diag(&d);
	}
	return refuse("%s %s: %s", what, path, strerror(err));
}

/* The last name of path, the one report_open_fd opened beneath its directory. */
static const char *last_name(const char *path)
{
	const char *cut = strrchr(path, '/');

	return cut ? cut + 1 : path;
}

#ifdef __linux__
int report_created_dir(const char *path, int fd)
{
	struct stat at, st;
	const char *name;
	char abs[SBX_MAX_PATH];
	int dfd;

	/* Quiet: a refusal here would be a second line for a run that is refused anyway. */
	struct sbx_pathinfo info;

	if (parent_walk(path, abs, &dfd, &name, &info) != 0)
		return -1;
	if (fstat(fd, &st) == 0 && fstatat(dfd, name, &at, AT_SYMLINK_NOFOLLOW) == 0 &&
	    at.st_dev == st.st_dev && at.st_ino == st.st_ino)
		return dfd;
	close(dfd);
	return -1;
}
#endif

void report_remove_created(int dir, const char *path, int fd)
{
	const char *name = last_name(path);
	struct stat at, st;

	/*
	 * Only the file this run made, still there under its name and still empty; found and
	 * removed beneath the directory it was made in, which a swap of its parent on the way
	 * cannot change.
	 */
	if (dir >= 0 && fstat(fd, &st) == 0 && fstatat(dir, name, &at, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(at.st_mode) && at.st_dev == st.st_dev && at.st_ino == st.st_ino &&
	    at.st_size == 0)
		unlinkat(dir, name, 0);
}

int report_from_fd(int fd, struct report **out)
{
	struct report *r = calloc(1, sizeof(*r));
	struct stat st;
	int fl;

	*out = NULL;
	if (!r)
		return -ENOMEM;
	r->fd = fd;
	r->limit = REPORT_MAX_BYTES;
	r->owner = getpid();
	r->relay[0] = r->relay[1] = -1;
	/* Non-blocking only as report_open_fd opened it: standard error is the caller's. */
	r->fifo = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && (fl = fcntl(fd, F_GETFL)) >= 0 &&
		  (fl & O_NONBLOCK);
	r->reader = sbx_log_reader(fd);
	r->loop = pthread_self();
	pthread_mutex_init(&r->lock, NULL);
	*out = r;
	return 0;
}

int report_open(const char *what, const char *path, struct report **out)
{
	int fd, r = report_open_fd(what, path, NULL, &fd, NULL, NULL);

	*out = NULL;
	if (r)
		return r;
	if (report_from_fd(fd, out) < 0) {
		if (fd > STDERR_FILENO)
			close(fd);
		return refuse("%s: out of memory", what);
	}
	/* A proxy serves for as long as it runs: its report is the caller's to rotate. */
	(*out)->limit = 0;
	return 0;
}

int report_relay(struct report *r)
{
	int err;
	void *m = mmap(NULL, sizeof(*r->lost), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);

	if (m == MAP_FAILED)
		return -errno;
	r->lost = m;
	if (pipe(r->relay) < 0) {
		r->relay[0] = r->relay[1] = -1;
		return -errno;
	}
	for (int i = 0; i < 2; i++)
		if (fcntl(r->relay[i], F_SETFD, FD_CLOEXEC) < 0 ||
		    fcntl(r->relay[i], F_SETFL, O_NONBLOCK) < 0) {
			err = errno;
			close(r->relay[0]);
			close(r->relay[1]);
			r->relay[0] = r->relay[1] = -1;
			return -err;
		}
	return r->relay[0];
}

/*
 * Whether a line of len bytes still fits under REPORT_MAX_BYTES, with what was written and what
 * waits for a pipe (written later, or dropped and then never counted). Counted once written.
 */
static bool fits(const struct report *r, size_t len)
{
	return !r->limit || len <= r->limit - r->bytes - (r->qlen - r->qhead - r->qoff);
}

/* What write(2) returned: the bytes it put in the file count toward the limit. */
static void wrote(struct report *r, ssize_t w)
{
	if (w > 0)
		r->bytes += (size_t)w;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void failed(struct report *r, size_t lines, int err)
{
	r->failed += lines;
	if (!r->err)
		r->err = err;
}

/* The waiting lines after the one begun (kept: never a torn line), dropped and counted. */
static void drop_waiting(struct report *r, size_t *count)
{
	size_t cut = r->qhead;

	if (r->qoff)
		cut += (size_t)((char *)memchr(r->q + r->qhead, '\n', r->qlen - r->qhead) -
				(r->q + r->qhead)) +
		       1;
	for (size_t i = cut; i < r->qlen; i++)
		*count += r->q[i] == '\n';
	r->qlen = cut;
}

/*
 * Whether the pipe has room for all of a line longer than PIPE_BUF, of which it would take
 * what fits: not begun before then, a reader that stops for good never sees a part of it.
 * The pipe holds pages, the first read in part and the last written in part: what is free in
 * bytes may be up to two pages more than what a line can use. Where the pipe's size cannot be
 * had, the line is begun, and its rest kept for later.
 */
static bool room(int fd, size_t len)
{
#if defined(F_GETPIPE_SZ) && defined(FIONREAD)
	int size = fcntl(fd, F_GETPIPE_SZ), queued = 0;

	if (size > 0 && ioctl(fd, FIONREAD, &queued) == 0 && queued >= 0)
		return (size_t)size - (size_t)queued >= len + 2 * PIPE_BUF;
#else
	(void)fd;
	(void)len;
#endif
	return true;
}

/*
 * write(2) to the pipe, which raises SIGPIPE when its reader has closed its end: a reader an
 * earlier confined run may hold and close at will, and the signal's default action would end
 * the supervisor, and the command with it. Not ignored process-wide: init and the command would
 * inherit that. Blocked in this thread for the write, and the one it raised taken back.
 */
static ssize_t write_nosigpipe(int fd, const void *buf, size_t len)
{
	sigset_t one, old, pending;
	ssize_t w;
	int err;

	sigemptyset(&one);
	sigaddset(&one, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &one, &old);
	sigpending(&pending); /* one already pending was not this write's: left as it is */
	w = write(fd, buf, len);
	err = errno;
	if (w < 0 && err == EPIPE && !sigismember(&pending, SIGPIPE))
		while (sigtimedwait(&one, NULL, &(struct timespec){0}) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = err;
	return w;
}

/*
 * Writes the waiting lines the pipe takes now, one write(2) each: a line of another writer to
 * the pipe (a concurrent run, the proxy's worker) falls between two, never inside one, as long
 * as each is at most PIPE_BUF bytes. Locked.
 */
static void flush(struct report *r)
{
	while (r->qhead < r->qlen) {
		const char *line = r->q + r->qhead;
		size_t len = (size_t)((char *)memchr(line, '\n', r->qlen - r->qhead) - line) + 1;
		ssize_t w;

		if (!r->qoff && len > PIPE_BUF && !room(r->fd, len)) {
			r->no_room = true;
			break;
		}
		r->no_room = false;
		w = write_nosigpipe(r->fd, line + r->qoff, len - r->qoff);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w <= 0) {
			/* Its reader is gone (EPIPE), or worse: nothing more gets through. */
			size_t lines = 0;

			for (size_t i = r->qhead; i < r->qlen; i++)
				lines += r->q[i] == '\n';
			failed(r, lines, w < 0 ? errno : EIO);
			r->qhead = r->qoff = r->qlen = 0;
			break;
		}
		r->since = now_ms();
		r->stalled = false;
		wrote(r, w);
		r->qoff += (size_t)w;
		if (r->qoff == len) {
			r->qhead += len;
			r->qoff = 0;
		}
	}
	if (r->qhead == r->qlen)
		r->qhead = r->qlen = 0;
	if (r->stalled)
		drop_waiting(r, &r->stopped);
}

/* Puts a line (newline-ended) behind the waiting ones, or counts it lost. Locked. */
static void enqueue(struct report *r, const char *line, size_t len)
{
	if (len > REPORT_QUEUE_MAX - (r->qlen - r->qhead)) {
		r->full++;
		return;
	}
	if (r->qhead && r->qlen + len > r->qcap) {
		memmove(r->q, r->q + r->qhead, r->qlen - r->qhead);
		r->qlen -= r->qhead;
		r->qhead = 0;
	}
	if (r->qlen + len > r->qcap) {
		size_t cap = r->qcap ? r->qcap : 16384;
		char *q;

		while (cap < r->qlen + len)
			cap *= 2;
		q = realloc(r->q, cap);
		if (!q) {
			failed(r, 1, ENOMEM);
			return;
		}
		r->q = q;
		r->qcap = cap;
	}
	if (r->qlen == r->qhead)
		r->since = now_ms();
	memcpy(r->q + r->qlen, line, len);
	r->qlen += len;
}

/*
 * Waits for the pipe to take every waiting line, for as long as its reader takes some within
 * REPORT_STALL_MS, and no later than end (CLOCK_MONOTONIC, ms); past either, the lines not begun
 * are dropped. Locked; the lock is let go while waiting, so that the other threads' lines wait
 * in q meanwhile.
 */
static void drain(struct report *r, int64_t end)
{
	while (r->qhead < r->qlen && !r->stalled) {
		struct pollfd pfd = {.fd = r->fd, .events = POLLOUT};
		int64_t now = now_ms(), left = r->since + REPORT_STALL_MS - now;
		bool no_room = r->no_room; /* read locked: another thread's flush sets it */

		if (end - now < left) {
			left = end - now;
			if (left <= 0) {
				/* Still reading, but the command has ended: no later than end. */
				size_t lines = 0;

				r->stalled = true; /* nothing more is waited for */
				drop_waiting(r, &lines);
				r->late += lines;
				break;
			}
		}
		if (left <= 0) {
			r->stalled = true;
			drop_waiting(r, &r->stopped);
			break;
		}
		pthread_mutex_unlock(&r->lock);
		/* Room for a long line: no event says when, the reader's pace is looked at. */
		if (no_room)
			poll(NULL, 0, left < 10 ? (int)left : 10);
		else
			poll(&pfd, 1, (int)left);
		pthread_mutex_lock(&r->lock);
		flush(r);
	}
}

/*
 * A regular file takes part of a line only when its file system fills up (or a size limit,
 * which sbxrun sets none of): the error of a write that took less than all.
 */
static int short_write_err(ssize_t w)
{
	return w < 0 ? errno : ENOSPC;
}

/*
 * Whether the file ends inside a line (sbx_log_ends_torn): one a full file system, a size limit
 * or a kill left torn, in this run or in an earlier one appending to the same file, or by the
 * forked proxy worker, whose counts are its own. The next line then begins with a newline, in
 * the same write(2), so that it stays a line of its own and the torn one is closed.
 */
static bool ends_torn(const struct report *r)
{
	return !r->fifo && sbx_log_ends_torn(r->fd, r->reader, r->torn);
}

/*
 * One line to the file in one write(2), after a newline that closes a torn line; true when
 * all of it went. A part that went is counted toward the limit.
 */
static bool write_line(struct report *r, const char *line, size_t len, int *err)
{
	char *nl = ends_torn(r) ? malloc(len + 1) : NULL;
	const char *s = line;
	size_t n = len;
	ssize_t w;

	if (nl) {
		nl[0] = '\n';
		memcpy(nl + 1, line, len);
		s = nl;
		n = len + 1;
	}
	w = write(r->fd, s, n);
	*err = short_write_err(w);
	free(nl);
	wrote(r, w);
	if (w > 0)
		r->torn = w < (ssize_t)n;
	return w == (ssize_t)n;
}

/* At the end: a line left torn is closed, if the file takes a byte again. Locked. */
static void close_torn(struct report *r)
{
	if (ends_torn(r) && write(r->fd, "\n", 1) == 1) {
		wrote(r, 1);
		r->torn = false;
	}
}

/*
 * A brief (buf, len bytes, newline-ended) the relay did not take, counted in r->lost as the
 * owner counts one it reads. Atomic: the proxy's threads may each lose one at once.
 */
static void relay_lost_add(struct relay_lost *lost, char *buf, size_t len)
{
	int unset = 0;

	__atomic_fetch_add(&lost->n, 1, __ATOMIC_RELAXED);
	if (buf[0] == '-')
		__atomic_fetch_add(&lost->dropped, 1, __ATOMIC_RELAXED);
	if (buf[0] == '!')
		__atomic_fetch_add(&lost->no_room, 1, __ATOMIC_RELAXED);
	if (buf[0] == 'E' && len > 4) {
		char num[4] = {buf[1], buf[2], buf[3], '\0'};

		__atomic_fetch_add(&lost->failed, 1, __ATOMIC_RELAXED);
		__atomic_compare_exchange_n(&lost->err, &unset, atoi(num), false, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED);
	}
	unset = 0;
	if (__atomic_compare_exchange_n(&lost->first_set, &unset, 1, false, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED)) {
		size_t skip = buf[0] == 'E' ? 4 : 1;

		buf[len - 1] = '\0';
		snprintf(lost->first, sizeof(lost->first), "%s", buf + skip);
		__atomic_store_n(&lost->first_set, 2, __ATOMIC_RELEASE);
	}
}

/*
 * The briefs the forked writer counted in r->lost, added to the owner's counts, once each.
 * Locked.
 */
static void relay_lost_take(struct report *r)
{
	struct relay_lost *lost = r->lost;
	size_t n, failed_n, begun, came;
	int err;

	if (!lost)
		return;
	n = __atomic_exchange_n(&lost->n, 0, __ATOMIC_RELAXED);
	r->dropped += __atomic_exchange_n(&lost->dropped, 0, __ATOMIC_RELAXED);
	r->no_room_lines += __atomic_exchange_n(&lost->no_room, 0, __ATOMIC_RELAXED);
	failed_n = __atomic_exchange_n(&lost->failed, 0, __ATOMIC_RELAXED);
	err = __atomic_load_n(&lost->err, __ATOMIC_RELAXED);
	if (failed_n)
		failed(r, failed_n, err ? err : EIO);
	/*
	 * Briefs begun that neither came through the relay nor were counted lost: their writer
	 * was killed first. Taken once the writer has ended (the summary, after the proxy's own
	 * exit hook stopped it, and after the relay was read to its end), so that none is still on
	 * its way; the counts are kept whole, so a second take adds only what is new.
	 */
	r->lost_taken += n;
	begun = __atomic_load_n(&lost->begun, __ATOMIC_ACQUIRE);
	came = r->relayed + r->lost_taken + r->never_came;
	if (begun > came) {
		n += begun - came;
		r->never_came += begun - came;
	}
	if (n && !r->first && __atomic_load_n(&lost->first_set, __ATOMIC_ACQUIRE) == 2)
		r->first = strndup(lost->first, sizeof(lost->first) - 1);
	r->n += n;
}

/*
 * In a forked process: the line to the file, the brief to the owner (one write each), marked
 * '+' when the line was written, '-' when it was over the limit, '!' when a pipe had no room
 * for it and 'E' with the error's number in three digits when write(2) failed, for the owner's
 * summary. It cannot wait (the proxy's loop) nor keep the rest of a
 * line for later: a line longer than PIPE_BUF, which a pipe could take in part, is not written
 * to one (a proxy's line is far shorter).
 */
static void relay_add(struct report *r, const char *line, const struct sbx_report_line *l)
{
	char *brief = sbx_report_brief(l);
	bool kept = line && fits(r, strlen(line));
	char buf[512], mark[8] = {kept || !line ? '+' : '-'};
	size_t len;
	ssize_t w;
	int unset = 0;

	/*
	 * Begun: counted by the owner even if this process is killed before its brief is out.
	 * The first one's words go to the shared memory too, for a summary with no brief at all.
	 */
	__atomic_fetch_add(&r->lost->begun, 1, __ATOMIC_RELEASE);
	if (brief && __atomic_compare_exchange_n(&r->lost->first_set, &unset, 1, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		snprintf(r->lost->first, sizeof(r->lost->first), "%s", brief);
		__atomic_store_n(&r->lost->first_set, 2, __ATOMIC_RELEASE);
	}

	if (kept && r->fifo && strlen(line) > PIPE_BUF)
		mark[0] = '!';
	else if (kept && r->fifo) {
		w = write(r->fd, line, strlen(line));
		wrote(r, w);
		if (w != (ssize_t)strlen(line)) {
			int err = short_write_err(w);

			if (err == EAGAIN)
				mark[0] = '!';
			else
				snprintf(mark, sizeof(mark), "E%03d",
					 err > 0 && err < 1000 ? err : EIO);
		}
	} else if (kept) {
		int err;

		if (!write_line(r, line, strlen(line), &err))
			snprintf(mark, sizeof(mark), "E%03d", err > 0 && err < 1000 ? err : EIO);
	}
	/* At most PIPE_BUF bytes: the pipe keeps the line whole; a newline in a name is none. */
	len = (size_t)snprintf(buf, sizeof(buf), "%s%s", mark, brief ? brief : "?");
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == '\n')
			buf[i] = ' ';
	buf[len++] = '\n';
	/* Non-blocking: a full pipe never stalls the proxy; the brief is counted apart. */
	if (write(r->relay[1], buf, len) != (ssize_t)len)
		relay_lost_add(r->lost, buf, len);
	free(brief);
}

int report_relay_read(struct report *r)
{
	char buf[4096 + sizeof(r->part)];
	ssize_t n;

	memcpy(buf, r->part, r->part_len);
	while ((n = read(r->relay[0], buf + r->part_len, sizeof(buf) - 1 - r->part_len)) > 0) {
		char *p = buf, *nl;

		buf[r->part_len + (size_t)n] = '\0';
		pthread_mutex_lock(&r->lock);
		for (; (nl = strchr(p, '\n')); p = nl + 1) {
			size_t skip = *p != '\0';

			*nl = '\0';
			if (*p == '-')
				r->dropped++;
			if (*p == '!')
				r->no_room_lines++;
			if (*p == 'E' && nl - p >= 4) {
				char num[4] = {p[1], p[2], p[3], '\0'};

				failed(r, 1, atoi(num));
				skip = 4;
			}
			r->relayed++;
			if (r->n++ == 0)
				r->first = strdup(p + skip);
		}
		pthread_mutex_unlock(&r->lock);
		/* The rest waits for the next read; one longer than any brief is not one. */
		r->part_len = strlen(p) < sizeof(r->part) ? strlen(p) : 0;
		memmove(buf, p, r->part_len);
	}
	memcpy(r->part, buf, r->part_len);
	return n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR);
}

void report_fds(const struct report *r, int fds[3])
{
	fds[0] = r->fd;
	fds[1] = r->relay[1];
	fds[2] = r->reader;
}

void *report_shared(const struct report *r, size_t *len)
{
	*len = sizeof(*r->lost);
	return r->lost;
}

/* One line; a denial (counted) is what the summary names. */
static void add_line(struct report *r, const struct sbx_report_line *l, bool denial)
{
	char *line = sbx_report_line_json(l);
	size_t len = line ? strlen(line) : 0;

	/*
	 * A forked process takes no lock: another thread of the owner may have held it at the
	 * fork, and the copy would stay locked for ever.
	 */
	if (r->relay[1] >= 0 && getpid() != r->owner) {
		relay_add(r, line, l);
		free(line);
		return;
	}
	pthread_mutex_lock(&r->lock);
	/* One write per line, on a descriptor opened O_APPEND: lines of concurrent runs stay whole. */
	if (line && !fits(r, len))
		r->dropped++;
	else if (line && r->fifo) {
		flush(r);
		if (r->stalled && r->qhead < r->qlen)
			r->stopped++; /* the begun line is still not out: no room for one more */
		else
			enqueue(r, line, len);
		flush(r);
		if (!pthread_equal(pthread_self(), r->loop))
			drain(r, now_ms() + REPORT_STALL_MS);
	} else if (!line) {
		failed(r, 1, ENOMEM);
	} else {
		int err;

		if (!write_line(r, line, len, &err))
			failed(r, 1, err);
	}
	if (denial && r->n++ == 0)
		r->first = sbx_report_brief(l);
	pthread_mutex_unlock(&r->lock);
	free(line);
}

void report_add(struct report *r, const struct sbx_report_line *l)
{
	add_line(r, l, true);
}

void report_note(struct report *r, const struct sbx_report_line *l)
{
	add_line(r, l, false);
}

void report_on_proxy(void *arg, const struct sbx_proxy_event *ev)
{
	struct sbx_report_line l;
	char addr[SBX_MAX_PATH + 16];

	if (sbx_proxy_report_line(ev, addr, sizeof(addr), &l) == 1)
		report_add(arg, &l);
}

void report_print_summary(struct report *r, bool failed)
{
	char *s;

	pthread_mutex_lock(&r->lock);
	/*
	 * The command has ended: what waits for a pipe gets REPORT_STALL_MS in all, not for each
	 * line the reader takes. The supervisor reads no signal meanwhile, and a reader taking a
	 * page now and then (one an earlier run holds) would keep it deaf to SIGTERM for as long
	 * as up to REPORT_QUEUE_MAX takes it.
	 */
	flush(r);
	drain(r, now_ms() + REPORT_STALL_MS);
	close_torn(r);
	relay_lost_take(r);
	s = failed && r->n ? sbx_report_summary(r->n, r->first) : NULL;
	if (s) {
		/* It names the command's own paths: never raw on a terminal. */
		fputs("sbxrun: ", stderr);
		sbx_put_sanitized(s, stderr);
		fputc('\n', stderr);
	}
	if (r->stopped)
		fprintf(stderr,
			"sbxrun: --report: %zu of %zu lines were not written: the pipe's reader "
			"stopped reading\n",
			r->stopped, r->n);
	if (r->full)
		fprintf(stderr,
			"sbxrun: --report: %zu of %zu lines were not written: more than %u MiB of "
			"lines waited for the pipe's reader\n",
			r->full, r->n, REPORT_QUEUE_MAX >> 20);
	if (r->late)
		fprintf(stderr,
			"sbxrun: --report: %zu of %zu lines were not written: the pipe's reader "
			"had "
			"not taken them %d seconds after the command ended\n",
			r->late, r->n, REPORT_STALL_MS / 1000);
	if (r->no_room_lines)
		fprintf(stderr,
			"sbxrun: --report: %zu of %zu lines were not written: the pipe was full "
			"when "
			"the proxy wrote them\n",
			r->no_room_lines, r->n);
	if (r->failed)
		fprintf(stderr, "sbxrun: --report: %zu of %zu lines were not written: %s\n",
			r->failed, r->n,
			r->err == EPIPE ? "the pipe's reader closed it" : strerror(r->err));
	if (r->dropped)
		fprintf(stderr,
			"sbxrun: --report: %zu of %zu lines were not written: past the limit of "
			"%u MiB\n",
			r->dropped, r->n, REPORT_MAX_BYTES >> 20);
	pthread_mutex_unlock(&r->lock);
	free(s);
}

void report_close(struct report *r)
{
	if (!r)
		return;
	/*
	 * A proxy's (report_open), which prints no summary: its last lines, as above. Not in a
	 * forked process: the lines waiting in its copy are the owner's to write.
	 */
	if (getpid() == r->owner) {
		pthread_mutex_lock(&r->lock);
		flush(r);
		drain(r, now_ms() + REPORT_STALL_MS);
		close_torn(r);
		pthread_mutex_unlock(&r->lock);
	}
	if (r->fd > STDERR_FILENO)
		close(r->fd);
	if (r->reader >= 0)
		close(r->reader);
	free(r->q);
	for (int i = 0; i < 2; i++)
		if (r->relay[i] >= 0)
			close(r->relay[i]);
	if (r->lost)
		munmap(r->lost, sizeof(*r->lost));
	pthread_mutex_destroy(&r->lock);
	free(r->first);
	free(r);
}

#endif /* _WIN32 */
