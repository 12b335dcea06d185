/* SPDX-License-Identifier: MIT */
/*
 * runreport.c - `run --report` in the Linux helper: the plan's report view, the tracer
 * (platform/linux/trace.c) given to the supervisor, and the refusals of the network beyond the
 * profile (sbxrun's proxy in its worker process, the Unix-socket broker in the supervisor), all
 * appended to the one report that `run` opened (report.c); after the run, the one-line summary.
 *
 * Only the init model can trace (sandbox.h): a plan that runs in place is put under init where
 * this host can make its namespaces; a host that can make no PID namespace refuses the run,
 * rather than run it with a report that could not see anything.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "linux/linux.h"
#include "linux/netns.h"

/* "2026-11-30T19:45:01.123Z" */
static void now_utc(char *buf, size_t size)
{
	struct timespec ts;
	struct tm tm;
	char s[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, size, "%s.%03ldZ", s, ts.tv_nsec / 1000000 % 1000);
}

/* The tracer's thread: a failure is a line only when the plan refuses it (lib/report.c). */
static void on_traced(void *arg, const struct sbx_traced *t)
{
	struct run_report *rr = arg;
	struct sbx_denial den;
	char time[40];

	if (sbx_denial_decide(&rr->view, &t->op, &den) != 1)
		return;
	now_utc(time, sizeof(time));
	report_add(rr->r, &(struct sbx_report_line){.time = time,
						    .pid = t->pid,
						    .comm = t->comm,
						    .op = den.op,
						    .path = t->op.path,
						    .to = t->op.to,
						    .address = t->op.address,
						    .err = t->op.err,
						    .rule = den.rule,
						    .mechanism = den.mechanism});
	free(den.rule);
}

/* The broker (supervisor): its refusals never reach the tracer, which sees a call it answered. */
static void on_broker(void *arg, pid_t pid, const char *address, int err, enum sbx_broker_why why)
{
	struct run_report *rr = arg;
	const char *rule = "network restricted", *mechanism = "seccomp-notify";
	char time[40], comm[64];
	bool has_comm = sbx_proc_read(pid, "comm", comm, sizeof(comm));

	if (has_comm)
		comm[strcspn(comm, "\n")] = '\0';
	switch (why) {
	case SBX_BROKER_NOT_ALLOWED:
		rule = "Unix sockets: neither an allowed socket nor below an allowed directory";
		break;
	case SBX_BROKER_NOT_FOLLOWED:
		rule = "Unix sockets: a symbolic link or another mount on the way, which the "
		       "broker "
		       "does not follow";
		break;
	case SBX_BROKER_SCOPED:
		rule = "abstract Unix sockets: only those made inside the sandbox";
		mechanism = sbx_mech_one(SBX_MECH_LANDLOCK);
		break;
	case SBX_BROKER_HOST_ABSTRACT:
		rule = "abstract Unix sockets: the host's network namespace, the network "
		       "restricted";
		break;
	case SBX_BROKER_FAMILY:
		break;
	}
	now_utc(time, sizeof(time));
	report_add(rr->r, &(struct sbx_report_line){.time = time,
						    .pid = sbx_proc_ns_pid(pid),
						    .comm = has_comm ? comm : NULL,
						    .op = "connect",
						    .address = address,
						    .err = err,
						    .rule = rule,
						    .mechanism = mechanism});
}

/* The proxy's worker sends a brief of each refusal it wrote: counted here. */
static int on_relay(void *arg, int fd)
{
	(void)fd;
	return report_relay_read(((struct run_report *)arg)->r);
}

/*
 * After the run: a command that failed, and the report recorded something: one line (and one
 * more, failed or not, when lines were lost or left out). The last of the exit hooks: the
 * proxy's worker goes on deciding after the command has ended (requests still in flight, or
 * sent by what the command left behind until the namespace's end), until its own hook has
 * stopped it; every brief it wrote by then is in the relay or counted in the memory shared
 * with it, and this reads them all.
 */
static int summary(void *arg, int *wstatus)
{
	struct run_report *rr = arg;

	report_relay_read(rr->r);
	report_print_summary(rr->r, !(WIFEXITED(*wstatus) && WEXITSTATUS(*wstatus) == 0));
	return 0;
}

/* The descriptor `run` handed over: open for writing; the command never inherits it. */
static int take_fd(int fd, struct sbx_diag *d)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY)
		return sbx_diag_set(d, SBX_E_USAGE, "--report-fd %d: %s", fd,
				    fl < 0 ? strerror(errno) : "not open for writing");
	if (fd > STDERR_FILENO && fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
		return sbx_diag_set(d, -errno, "--report-fd %d: %s", fd, strerror(errno));
	return 0;
}

int run_report_start(struct run_report *rr, int fd, const struct sbx_plan *plan,
		     const struct sbx_ctx *ctx, struct sbx_linux_enforce *e,
		     struct sbx_linux_net *net, struct sbx_diag *d)
{
	struct sbx_trace_config tc = {0};
	int rc;

	memset(rr, 0, sizeof(*rr));
	rc = take_fd(fd, d);
	if (rc < 0)
		return rc;
	if (report_from_fd(fd, &rr->r) < 0)
		return sbx_diag_set(d, -ENOMEM, "out of memory");
	rc = sbx_report_view_init(&rr->view, plan, ctx, sbx_linux_minimal_paths, d);
	if (rc < 0)
		return rc;
	/* The switches of the main filter, which the report's own must not overlap (seccomp.c). */
	tc.network = e->network || net->filter;
	tc.metadata = e->seccomp_metadata;
	tc.mount_namespace = e->mount_namespace;
	tc.on_failure = on_traced;
	tc.arg = rr;
	rc = sbx_trace_new(&tc, &rr->trace, d);
	if (rc < 0)
		return rc;
	e->trace = rr->trace;
	e->traced = true;
	if (sbx_supervise_on_exit_last(summary, rr) < 0)
		return sbx_diag_set(d, -ENOSPC, "--report: too many exit hooks");
	net->sec.traced = true;
	if (net->broker_on) {
		net->broker.on_refused = on_broker;
		net->broker.on_refused_arg = rr;
	}
	/* sbxrun's proxy runs in a worker the supervisor forks: it relays what it wrote. */
	if (net->proxy.policy) {
		int relay = report_relay(rr->r);

		if (relay < 0 || sbx_supervise_watch(relay, on_relay, rr) < 0)
			return sbx_diag_set(d, relay < 0 ? relay : -ENOSPC,
					    "--report: cannot relay the proxy's refusals");
		net->proxy.on_decision = report_on_proxy;
		net->proxy.on_decision_arg = rr->r;
		report_fds(rr->r, net->ns.keep);
		net->ns.shared = report_shared(rr->r, &net->ns.shared_len);
	}
	return 0;
}

void run_report_git_state(struct run_report *rr, const char *path, const char *rule)
{
	char time[40];

	if (!rr->r)
		return;
	now_utc(time, sizeof(time));
	report_note(rr->r, &(struct sbx_report_line){.time = time,
						     .pid = -1,
						     .op = "git-state",
						     .path = path,
						     .rule = rule,
						     .mechanism = "git mode's end-of-run check"});
}

void run_report_free(struct run_report *rr)
{
	sbx_trace_end(rr->trace);	 /* a supervisor that started ended it */
	sbx_report_view_free(&rr->view); /* a view never made is empty: nothing to free */
	report_close(rr->r);
	memset(rr, 0, sizeof(*rr));
}
