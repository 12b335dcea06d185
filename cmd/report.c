/* SPDX-License-Identifier: MIT */
/*
 * report.c - `--report FILE|-`: the denial report's file, one JSON line per refused operation
 * (lib/report.c words it), fed from any thread (the tracer's, the proxy's), counted, and the
 * one-line summary sbxrun prints when a confined command failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "net.h"

#ifndef _WIN32

struct report {
	int fd;
	pthread_mutex_t lock;
	size_t n;
	char *first;	/* the first denial in a few words (sbx_report_brief), or NULL */
	bool write_err; /* a line could not be written (the summary says so) */
};

int report_open(const char *what, const char *path, struct report **out)
{
	struct report *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return refuse("%s: out of memory", what);
	if (strcmp(path, "-") == 0) {
		r->fd = STDERR_FILENO;
	} else {
		struct stat st;

		/*
		 * Appended, as a log is: several runs may share one file, each line whole. Not
		 * through a link: an earlier confined run may have put one where the report goes,
		 * to make sbxrun, which is not confined, append to a file of its choosing.
		 */
		r->fd = open(path,
			     O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW,
			     0644);
		if (r->fd < 0 || fstat(r->fd, &st) < 0 ||
		    !(S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode))) {
			int err = r->fd < 0 ? errno : EINVAL;

			if (r->fd >= 0)
				close(r->fd);
			free(r);
			if (err == ELOOP)
				return refuse(
					"%s %s: is a symbolic link (give the file it leads to)",
					what, path);
			if (err == EINVAL)
				return refuse("%s %s: not a regular file or a pipe", what, path);
			return refuse("%s %s: %s", what, path, strerror(err));
		}
	}
	pthread_mutex_init(&r->lock, NULL);
	*out = r;
	return 0;
}

void report_add(struct report *r, const struct sbx_report_line *l)
{
	char *line = sbx_report_line_json(l);
	size_t len = line ? strlen(line) : 0;

	pthread_mutex_lock(&r->lock);
	/* One write per line, on a descriptor opened O_APPEND: lines of concurrent runs stay whole. */
	if (!line || write(r->fd, line, len) != (ssize_t)len)
		r->write_err = true;
	if (r->n++ == 0)
		r->first = sbx_report_brief(l);
	pthread_mutex_unlock(&r->lock);
	free(line);
}

void report_on_proxy(void *arg, const struct sbx_proxy_event *ev)
{
	struct sbx_report_line l;
	char addr[SBX_MAX_PATH + 16];

	if (sbx_proxy_report_line(ev, addr, sizeof(addr), &l) == 1)
		report_add(arg, &l);
}

void report_print_summary(struct report *r)
{
	char *s;

	pthread_mutex_lock(&r->lock);
	s = r->n ? sbx_report_summary(r->n, r->first) : NULL;
	if (s)
		fprintf(stderr, "sbxrun: %s\n", s);
	if (r->write_err)
		fprintf(stderr, "sbxrun: --report: some lines could not be written\n");
	pthread_mutex_unlock(&r->lock);
	free(s);
}

void report_close(struct report *r)
{
	if (!r)
		return;
	if (r->fd > STDERR_FILENO)
		close(r->fd);
	pthread_mutex_destroy(&r->lock);
	free(r->first);
	free(r);
}

#endif /* _WIN32 */
