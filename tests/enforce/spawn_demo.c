/* SPDX-License-Identifier: MIT */
/*
 * spawn_demo.c - runs a command under the process model of sandbox.h with a small sandbox of its
 * own, so the supervisor, init, /dev and /proc can be tested without the profile engine:
 *
 *   spawn-demo [--subreaper] [--userns] [--net] [--no-dev] [--no-proc] [--attach-first]
 *              [--landlock] [--fail] [--on-exit MARKER] [--watch] [--report] -- CMD...
 *
 * The sandbox, applied in init: a private mount namespace with / read-only, the private /dev,
 * a fresh /proc (SBX_DEMO_PROC=fresh, or =host when the kernel kept the host's), optionally a
 * Landlock ruleset (read everywhere; device rights on the nodes, pts and ptmx of the new /dev;
 * write on its shm only), then no capabilities and no_new_privs. With --subreaper, no
 * namespace: only the capabilities and no_new_privs, in the command's own process.
 * --userns makes a user namespace even as root; --fail makes the sandbox fail to apply. --on-exit prints, once the sandbox has ended,
 * "on-exit: N left" (processes whose command line holds MARKER) and the command's wait status.
 * --watch gives the command a pipe on descriptor 3 whose lines the supervisor prints to stderr as
 * "watch: LINE".
 * --report traces the command with the denial report's tracer (trace.c) under the sandbox's
 * seccomp filter built for it (network restricted), and prints each failed call it hands on as
 * "report: pid=N comm=C call=op path=P real=R to=T address=A errno=E seccomp=G hidden=0|1".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "linux/linux.h"
#include "linux/sandbox.h"

struct demo {
	bool dev, proc, landlock, attach_first, fail, report;
};

static int no_privileges(struct sbx_diag *d)
{
	if (sbx_caps_drop_all(d) < 0)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return sbx_diag_set(d, -errno, "PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
	return 0;
}

static int landlock_devfs(const struct sbx_devfs *dev, struct sbx_diag *d)
{
	struct sbx_landlock *ll = NULL;
	int root, rc;

	rc = sbx_landlock_create(sbx_landlock_abi(), true, false, &ll, d);
	if (rc < 0)
		return rc;
	root = open("/", O_PATH | O_CLOEXEC);
	rc = root < 0 ? sbx_diag_set(d, -errno, "opening /") : 0;
	if (rc == 0)
		rc = sbx_landlock_add_fd(ll, root, SBX_LL_READ, "/", d);
	for (size_t i = 0; rc == 0 && i < SBX_DEV_N_NODES; i++)
		if (dev->nodes[i] >= 0)
			rc = sbx_landlock_add_fd(ll, dev->nodes[i], SBX_LL_DEVICE, "a node", d);
	if (rc == 0)
		rc = sbx_landlock_add_fd(ll, dev->pts, SBX_LL_DEVICE, "/dev/pts", d);
	if (rc == 0)
		rc = sbx_landlock_add_fd(ll, dev->ptmx, SBX_LL_DEVICE, "/dev/ptmx", d);
	if (rc == 0)
		rc = sbx_landlock_add_fd(ll, dev->shm, SBX_LL_WRITE, "/dev/shm", d);
	if (root >= 0)
		close(root);
	/* Landlock needs no_new_privs from an unprivileged caller: the privileges go first. */
	if (rc == 0)
		rc = no_privileges(d);
	if (rc == 0)
		rc = sbx_landlock_restrict_self(ll, d);
	sbx_landlock_free(ll);
	return rc;
}

static int apply_ns(void *arg, struct sbx_diag *d)
{
	const struct demo *o = arg;
	struct sbx_devfs dev;
	int rc;

	if (o->fail)
		return sbx_diag_set(d, -EPERM, "the sandbox could not be applied (--fail)");
	if (sbx_mnt_make_private(d) < 0 || sbx_mnt_set_readonly(AT_FDCWD, "/", d) < 0)
		return -1;
	if (o->dev &&
	    sbx_devfs_build("/dev",
			    SBX_MNT_OWN_TERMINAL | (o->attach_first ? SBX_MNT_ATTACH_FIRST : 0),
			    &dev, d) < 0)
		return -1;
	if (o->proc) {
		rc = sbx_proc_mount("/proc", o->attach_first ? SBX_MNT_ATTACH_FIRST : 0, d);
		if (rc < 0)
			return rc;
		setenv("SBX_DEMO_PROC", rc == SBX_PROC_HOST ? "host" : "fresh", 1);
	}
	if (o->landlock && o->dev)
		rc = landlock_devfs(&dev, d);
	else
		rc = no_privileges(d);
	/* Init holds the terminal's name (close-on-exec, not dumpable) while the sandbox runs. */
	if (o->dev) {
		if (rc == 0 && dev.term_master >= 0)
			rc = sbx_supervise_init_keep(dev.term_master);
		if (rc < 0)
			sbx_diag_set(d, rc, "init: too many descriptors to keep");
		dev.term_master = -1;
		sbx_devfs_close(&dev);
	}
	if (rc == 0 && o->report)
		rc = sbx_seccomp_apply(false, false, false, false, false, false, true, d);
	return rc;
}

static int apply_plain(void *arg, struct sbx_diag *d)
{
	const struct demo *o = arg;

	if (o->fail)
		return sbx_diag_set(d, -EPERM, "the sandbox could not be applied (--fail)");
	if (no_privileges(d) < 0)
		return -1;
	return o->report ? sbx_seccomp_apply(false, false, false, false, false, false, true, d) : 0;
}

/* One line per failed call the tracer hands on, on stderr (a single write: lines stay whole). */
static void on_failure(void *arg, const struct sbx_traced *t)
{
	const struct sbx_op_seen *s = &t->op;
	char line[3 * 4096];

	(void)arg;
	snprintf(line, sizeof(line),
		 "report: pid=%ld comm=%s op=%s%s%s path=%s real=%s to=%s address=%s errno=%s "
		 "seccomp=%d hidden=%d\n",
		 t->pid, t->comm ? t->comm : "-", sbx_op_name(s->op), s->call ? ":" : "",
		 s->call ? s->call : "", s->path ? s->path : "-", s->real ? s->real : "-",
		 s->to ? s->to : "-", s->address ? s->address : "-",
		 sbx_errno_name(s->err) ? sbx_errno_name(s->err) : "?", (int)s->seccomp,
		 (int)s->hidden);
	if (write(STDERR_FILENO, line, strlen(line)) < 0) {
		/* nowhere else to say it */
	}
}

static const char *marker;

/* Counts the processes whose command line holds the marker, now that the sandbox has ended. */
static int on_exit_report(void *arg, int *ws)
{
	struct dirent *e;
	int left = 0;
	DIR *proc = opendir("/proc");

	while (proc && (e = readdir(proc))) {
		char path[64], buf[4096];
		ssize_t n;
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%.16s/cmdline", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		for (ssize_t i = 0; i < n; i++)
			if (!buf[i])
				buf[i] = ' ';
		buf[n > 0 ? n : 0] = '\0';
		if (strstr(buf, marker) && !strstr(buf, "spawn-demo"))
			left++;
	}
	if (proc)
		closedir(proc);
	fprintf(stderr, "on-exit: %d left, wait status %#x\n", left, (unsigned int)*ws);
	return 0;
}

static int on_watch(void *arg, int fd)
{
	char buf[256];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);

	if (n <= 0)
		return 1;
	buf[n] = '\0';
	fprintf(stderr, "watch: %s", buf);
	return 0;
}

int main(int argc, char **argv)
{
	struct demo o = {.dev = true, .proc = true};
	struct sbx_linux_facts facts;
	struct sbx_spawn s = {0};
	struct sbx_diag d;
	bool subreaper = false, userns = false, net = false, watch = false;
	int i;

	sbx_diag_clear(&d);
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--subreaper"))
			subreaper = true;
		else if (!strcmp(a, "--userns"))
			userns = true;
		else if (!strcmp(a, "--net"))
			net = true;
		else if (!strcmp(a, "--no-dev"))
			o.dev = false;
		else if (!strcmp(a, "--no-proc"))
			o.proc = false;
		else if (!strcmp(a, "--attach-first"))
			o.attach_first = true;
		else if (!strcmp(a, "--landlock"))
			o.landlock = true;
		else if (!strcmp(a, "--fail"))
			o.fail = true;
		else if (!strcmp(a, "--watch"))
			watch = true;
		else if (!strcmp(a, "--report"))
			o.report = true;
		else if (!strcmp(a, "--on-exit") && i + 1 < argc)
			marker = argv[++i];
		else {
			fprintf(stderr, "spawn-demo: bad argument %s\n", a);
			return 125;
		}
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "spawn-demo: no command\n");
		return 125;
	}
	s.argv = &argv[i + 1];
	s.uid = geteuid();
	s.gid = getegid();
	if (marker)
		sbx_supervise_on_exit(on_exit_report, NULL);
	if (watch) {
		int p[2];

		if (pipe(p) < 0 || dup2(p[1], 3) < 0) {
			perror("spawn-demo: pipe");
			return 125;
		}
		if (p[1] != 3)
			close(p[1]);
		fcntl(p[0], F_SETFD, FD_CLOEXEC);
		sbx_supervise_watch(p[0], on_watch, NULL);
	}
	if (o.report) {
		struct sbx_trace_config tc = {.mount_namespace = !subreaper,
					      .on_failure = on_failure};

		if (sbx_trace_new(&tc, &s.trace, &d) < 0) {
			sbx_diag_print(&d, stderr);
			return 125;
		}
	}
	if (subreaper) {
		s.apply = apply_plain;
		s.apply_arg = &o;
		sbx_supervise_subreaper(&s, &d);
	} else {
		sbx_linux_probe(&facts);
		s.clone_flags = sbx_linux_sandbox_flags(&facts, net);
		if (!s.clone_flags) {
			fprintf(stderr, "spawn-demo: no PID namespace on this host (%s)\n",
				facts.userns_blocked_by);
			return 125;
		}
		if (userns)
			s.clone_flags |= CLONE_NEWUSER;
		s.apply = apply_ns;
		s.apply_arg = &o;
		sbx_supervise(&s, &d);
	}
	sbx_trace_end(s.trace); /* a supervisor that returns has not taken it */
	sbx_diag_print(&d, stderr);
	return 125;
}
