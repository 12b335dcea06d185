/* SPDX-License-Identifier: MIT */
/*
 * resolver.c - name lookups off the event loop: getaddrinfo() blocks for as long as the system
 * resolver takes, so it runs in a pool of threads. Threads start when a lookup finds none
 * idle, up to SBX_PROXY_RESOLVERS, and those beyond SBX_PROXY_RESOLVERS_KEPT end when idle for
 * a while; a finished lookup is queued and announced by one byte on a pipe that the loop
 * polls. The pool and its threads share one reference-counted state, so freeing the pool never
 * waits for a lookup still inside getaddrinfo(); it joins the threads that are idle.
 *
 * Lookups of the same name are merged: a name asked for while a lookup of it is queued or
 * running waits for that one's answer rather than making its own. A burst of connections to one
 * host (a package manager opens dozens at once) is then one resolver call, not one each, and
 * asks the name servers once; a name that does not answer holds one thread, not all of them.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <sys/socket.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#else
#include <ifaddrs.h>
#endif

#include "unix/proxy.h"

enum job_state { JOB_QUEUED = 0, JOB_RUNNING, JOB_DONE };

struct sbx_resolve_job {
	struct sbx_resolve_job *next;
	enum job_state state;
	/*
	 * Cancelled: its owner lost interest, but the lookup goes on while followers wait for it
	 * (they are counted in followers); the job is then freed when it ends.
	 */
	bool cancelled;
	/* A follower: it waits, on the pool's waiting list, for lead's lookup; NULL otherwise. */
	struct sbx_resolve_job *lead;
	unsigned followers;
	void *owner;
	char name[SBX_HOST_MAX + 1];
	struct sbx_resolved res;
};

struct sbx_resolver {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct sbx_resolve_job *queue, *queue_tail, *done;
	struct sbx_resolve_job *waiting; /* the followers (see lead) */
	/*
	 * queued counts the jobs no worker has taken yet. A worker that was signalled still
	 * counts as idle until it wakes, so "no idle worker" alone would miss that several jobs
	 * queued at once are waiting for that one worker: one more starts while queued > idle.
	 */
	unsigned threads, idle, queued, refs;
	bool closing;
	/*
	 * The threads, joinable: a thread that ends on its own (idle too long) detaches itself
	 * and leaves its slot; when the pool closes, sbx_resolver_free() decides for each thread
	 * still there (see there). busy: inside a lookup.
	 */
	struct {
		pthread_t t;
		bool used, busy;
		struct sbx_resolve_job *job; /* the lookup it runs, while busy */
	} slot[SBX_PROXY_RESOLVERS];
	int pipe[2]; /* [0] polled by the loop, [1] written by the threads */
};

static void unref_locked(struct sbx_resolver *r)
{
	if (--r->refs > 0) {
		pthread_mutex_unlock(&r->mu);
		return;
	}
	pthread_mutex_unlock(&r->mu);
	close(r->pipe[0]);
	close(r->pipe[1]);
	pthread_cond_destroy(&r->cv);
	pthread_mutex_destroy(&r->mu);
	free(r);
}

/* Appends an address unless it is there already; the first SBX_PROXY_MAX_ADDRS are kept. */
static void add_addr(struct sbx_resolved *res, int family, const void *addr, size_t len)
{
	unsigned char a[16] = {0};

	if (res->n == SBX_PROXY_MAX_ADDRS)
		return;
	memcpy(a, addr, len);
	for (int k = 0; k < res->n; k++)
		if (res->family[k] == family && memcmp(res->addr[k], a, sizeof(a)) == 0)
			return;
	res->family[res->n] = family;
	memcpy(res->addr[res->n++], a, sizeof(a));
}

/*
 * The addresses /etc/hosts gives name, read as glibc's own lookup reads the file: on each line
 * an address, then its names, up to a '#'; names compare without regard to case. Lines are read
 * whole, however long: cut into pieces (musl reads 511 bytes at a time), a line would end its
 * first piece with part of a name, which could be the name looked for, and would lose the names
 * after the cut. 1 when a line names it, 0 when none does (or there is no file), -1 with errno
 * when the file cannot be read.
 */
static int from_hosts(const char *name, struct sbx_resolved *res)
{
	/* No terminal planted at the name becomes the proxy's controlling one. */
	int fd = open("/etc/hosts", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	char *line = NULL;
	size_t cap = 0;
	int e;

	/*
	 * Only a file that is not there names nothing. The C library also takes a file it cannot
	 * open (EACCES, EIO) or a parent that is not a directory as empty, and then asks the name
	 * servers for a name the file may give another address: where the name leads would be
	 * theirs, not the file's, so the lookup fails instead.
	 */
	if (!f) {
		e = errno;
		if (fd >= 0)
			close(fd);
		errno = e;
		return e == ENOENT ? 0 : -1;
	}
	for (;;) {
		char *save = NULL, *addr, *tok, *hash;
		unsigned char a[16];
		int fam;

		errno = 0;
		if (getline(&line, &cap, f) < 0)
			break;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		addr = strtok_r(line, " \t\r\n", &save);
		if (!addr)
			continue;
		if (inet_pton(AF_INET, addr, a) == 1)
			fam = AF_INET;
		else if (inet_pton(AF_INET6, addr, a) == 1)
			fam = AF_INET6;
		else
			continue;
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			if (strcasecmp(tok, name) == 0) {
				add_addr(res, fam, a, fam == AF_INET ? 4 : 16);
				break;
			}
		}
	}
	/* A read that fails part way (EIO, EISDIR, ENOMEM) is an error, not the end of the list. */
	e = feof(f) ? 0 : errno ? errno : EIO;
	free(line);
	fclose(f);
	if (e) {
		res->n = 0;
		errno = e;
		return -1;
	}
	return res->n > 0;
}

static bool out_of_fds(void)
{
	return errno == EMFILE || errno == ENFILE;
}

#ifdef __linux__
/* A socket for the host's addresses or routes, waiting out a descriptor limit as lookup() does. */
static int open_socket(int domain, int type, int protocol)
{
	int fd;

	for (int tries = 0; (fd = socket(domain, type | SOCK_CLOEXEC, protocol)) < 0; tries++) {
		if (!out_of_fds() || tries == 50)
			return -1;
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
	}
	return fd;
}

/*
 * The type of the route the kernel would take to addr (RTN_LOCAL, RTN_UNICAST, ...), asked on
 * fd with sequence number seq; 0, or -errno. A destination without a route answers
 * -ENETUNREACH or -EHOSTUNREACH. Only the kernel's answer is read: any process of the network
 * namespace may send to this socket.
 */
static int route_type(int fd, unsigned seq, int family, const unsigned char *addr,
		      unsigned char *type)
{
	size_t alen = family == AF_INET ? 4 : 16;
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		struct rtattr dst;
		unsigned char addr[16];
	} req;
	union {
		struct nlmsghdr nh;
		char buf[8192];
	} ans;
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK}, from;

	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt) + RTA_LENGTH(alen));
	req.nh.nlmsg_type = RTM_GETROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST;
	req.nh.nlmsg_seq = seq;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = (unsigned char)(alen * 8);
	req.dst.rta_type = RTA_DST;
	req.dst.rta_len = RTA_LENGTH(alen);
	memcpy(req.addr, addr, alen);
	if (sendto(fd, &req, req.nh.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return -errno;
	for (;;) {
		socklen_t fromlen = sizeof(from);
		ssize_t n = recvfrom(fd, &ans, sizeof(ans), MSG_TRUNC, (struct sockaddr *)&from,
				     &fromlen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if ((size_t)n > sizeof(ans))
			return -EMSGSIZE;
		if (fromlen != sizeof(from) || from.nl_pid != 0)
			continue;
		for (struct nlmsghdr *h = &ans.nh; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EPROTO;
				return e->error < 0 ? e->error : -EPROTO;
			}
			if (h->nlmsg_type == RTM_NEWROUTE &&
			    h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct rtmsg))) {
				*type = ((const struct rtmsg *)NLMSG_DATA(h))->rtm_type;
				return 0;
			}
		}
	}
}

/*
 * Marks the addresses of res that lead to this host, as the kernel routes them just after the
 * lookup: a public address of this host leads to its services as 127.0.0.1 does. The route
 * is what connect() follows, so it also finds what no interface holds (ip route add local
 * 11.22.33.0/24 dev lo makes every address of the block this host's), and it makes the
 * interface list redundant: an address an interface holds has a local route while the
 * interface is up, and none, leading elsewhere or nowhere, when it is down. One request per
 * address, on one socket. Without an answer (ifaddrs_errno set), the caller cannot tell, and
 * refuses.
 */
static void mark_local(struct sbx_resolved *res)
{
	static const unsigned char v4mapped[12] = {[10] = 0xff, [11] = 0xff};
	int fd = open_socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE);

	if (fd < 0) {
		res->ifaddrs_errno = errno ? errno : EIO;
		return;
	}
	for (int k = 0; k < res->n; k++) {
		const unsigned char *a = res->addr[k];
		int fam = res->family[k], e;
		unsigned char type = RTN_UNSPEC;

		/* A socket connects to ::ffff:a.b.c.d by the IPv4 route to a.b.c.d. */
		if (fam == AF_INET6 && memcmp(a, v4mapped, sizeof(v4mapped)) == 0) {
			fam = AF_INET;
			a += sizeof(v4mapped);
		}
		e = route_type(fd, (unsigned)k + 1, fam, a, &type);
		/* No route (or no IPv6 in this kernel): connect() fails, nothing of this host. */
		if (e == -ENETUNREACH || e == -EHOSTUNREACH || e == -EAFNOSUPPORT)
			continue;
		if (e < 0) {
			res->ifaddrs_errno = -e;
			break;
		}
		/* Delivered here: this host's own, its broadcast, its IPv6 anycast addresses. */
		res->local[k] = type == RTN_LOCAL || type == RTN_BROADCAST || type == RTN_ANYCAST;
	}
	close(fd);
}
#else
/*
 * Marks the addresses of res that an interface of this host holds, as the interfaces are just
 * after the lookup: a public address of this host leads to its services as 127.0.0.1 does.
 * Without the list (ifaddrs_errno set), the caller cannot tell, and refuses.
 */
static void mark_local(struct sbx_resolved *res)
{
	struct ifaddrs *ifs = NULL;

	/* Out of descriptors (the list comes through a socket): wait, as lookup() does. */
	for (int tries = 0; getifaddrs(&ifs) < 0; tries++) {
		if (!out_of_fds() || tries == 50) {
			res->ifaddrs_errno = errno ? errno : EIO;
			return;
		}
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
	}
	for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
		const void *a;
		int fam;

		if (!i->ifa_addr)
			continue;
		fam = i->ifa_addr->sa_family;
		if (fam == AF_INET)
			a = &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr;
		else if (fam == AF_INET6)
			a = &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr;
		else
			continue;
		for (int k = 0; k < res->n; k++)
			if (sbx_addr_reaches(res->addr[k], res->family[k] == AF_INET ? 4 : 16, a,
					     fam == AF_INET ? 4 : 16))
				res->local[k] = true;
	}
	freeifaddrs(ifs);
}
#endif

static void lookup(struct sbx_resolve_job *j)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
	struct addrinfo *ai = NULL;
	/*
	 * A name with a dot is looked up as written and nowhere else: /etc/hosts, then the name
	 * servers for "name." (absolute), never with a search domain of resolv.conf appended. The
	 * C library would try nx.example.com as nx.example.com.corp.example when it does not
	 * exist (both libraries first when it has fewer dots than ndots, glibc also after the
	 * name fails), and connect to a host the decision never named: below an allowed wildcard,
	 * any name that does not exist would lead there. The library's "name." skips the search
	 * list but also /etc/hosts, hence the file read here first, as the library reads it
	 * before the name servers (whatever nsswitch.conf says, for a glibc linked dynamically). A
	 * name without a dot is only ever allowed by an entry naming it, which may mean the
	 * search domains: when the file does not name it, it is left to the library whole.
	 */
	bool absolute = strchr(j->name, '.') != NULL;
	char dotted[SBX_HOST_MAX + 2];

	snprintf(dotted, sizeof(dotted), "%s.", j->name);
	/*
	 * No AI_ADDRCONFIG: on a host whose only interface is the loopback it would hide every
	 * address, the loopback ones included.
	 *
	 * A proxy at its descriptor limit: the look-up could not open its files (hosts,
	 * resolv.conf) or a socket. That says nothing of the name: wait for descriptors to come
	 * free, as the connection would in the backlog, for at most about five seconds. (errno
	 * is cleared first: a failure that sets none must not read an earlier call's.)
	 */
	for (int tries = 0;; tries++) {
		int h;

		errno = 0;
		h = from_hosts(j->name, &j->res);
		if (h > 0) {
			j->res.gai_error = 0;
			break;
		}
		if (h == 0) {
			errno = 0;
			j->res.gai_error =
				getaddrinfo(absolute ? dotted : j->name, NULL, &hints, &ai);
		} else {
			j->res.gai_error = EAI_SYSTEM;
			j->res.hosts_errno = errno ? errno : EIO;
		}
		if ((h == 0 && !j->res.gai_error) || !out_of_fds() || tries == 50)
			break;
		j->res.hosts_errno = 0;
		nanosleep(&(struct timespec){.tv_nsec = 100 * 1000 * 1000}, NULL);
	}
	for (struct addrinfo *a = ai; a; a = a->ai_next) {
		if (a->ai_family == AF_INET)
			add_addr(&j->res, AF_INET, &((struct sockaddr_in *)a->ai_addr)->sin_addr,
				 4);
		else if (a->ai_family == AF_INET6)
			add_addr(&j->res, AF_INET6, &((struct sockaddr_in6 *)a->ai_addr)->sin6_addr,
				 16);
	}
	if (ai)
		freeaddrinfo(ai);
	if (j->res.n > 0)
		mark_local(&j->res);
}

/*
 * A lookup has ended: its followers get its answer, and so does its owner unless it was
 * cancelled (then it is freed). Whether anything was added to the finished list. Locked.
 */
static bool deliver(struct sbx_resolver *r, struct sbx_resolve_job *j)
{
	bool any = false;

	for (struct sbx_resolve_job **pp = &r->waiting; *pp;) {
		struct sbx_resolve_job *f = *pp;

		if (f->lead != j) {
			pp = &f->next;
			continue;
		}
		*pp = f->next;
		f->lead = NULL;
		f->res = j->res;
		f->state = JOB_DONE;
		f->next = r->done;
		r->done = f;
		any = true;
	}
	if (j->cancelled) {
		free(j);
		return any;
	}
	j->state = JOB_DONE;
	j->next = r->done;
	r->done = j;
	return true;
}

/* A queued or running lookup of name that a new one may wait for, or NULL. Locked. */
static struct sbx_resolve_job *same_lookup(struct sbx_resolver *r, const char *name)
{
	for (struct sbx_resolve_job *q = r->queue; q; q = q->next)
		if (strcasecmp(q->name, name) == 0)
			return q;
	for (int k = 0; k < SBX_PROXY_RESOLVERS; k++)
		if (r->slot[k].used && r->slot[k].busy && r->slot[k].job &&
		    strcasecmp(r->slot[k].job->name, name) == 0)
			return r->slot[k].job;
	return NULL;
}

static void *worker(void *arg)
{
	struct sbx_resolver *r = arg;
	int me = 0;

	/* spawn_locked() held the lock while pthread_create() stored this thread's id. */
	pthread_mutex_lock(&r->mu);
	while (!(r->slot[me].used && pthread_equal(r->slot[me].t, pthread_self())))
		me++;
	for (;;) {
		struct sbx_resolve_job *j;
		bool expired = false;

		while (!r->queue && !r->closing && !expired) {
			struct timespec until;

			r->idle++;
			if (r->threads <= SBX_PROXY_RESOLVERS_KEPT) {
				pthread_cond_wait(&r->cv, &r->mu);
			} else {
				/*
				 * The real-time clock, as macOS has no other for this wait: a
				 * clock step only ends a spare thread sooner or later. The count
				 * is read and lowered under the lock, so threads whose waits end
				 * together still leave SBX_PROXY_RESOLVERS_KEPT.
				 */
				clock_gettime(CLOCK_REALTIME, &until);
				until.tv_sec += SBX_PROXY_RESOLVER_IDLE_MS / 1000;
				expired = pthread_cond_timedwait(&r->cv, &r->mu, &until) ==
						  ETIMEDOUT &&
					  r->threads > SBX_PROXY_RESOLVERS_KEPT;
			}
			r->idle--;
		}
		/* A name queued meanwhile is taken even by a thread whose wait ran out. */
		if (!r->queue)
			break;
		j = r->queue;
		r->queue = j->next;
		r->queued--;
		if (!r->queue)
			r->queue_tail = NULL;
		j->state = JOB_RUNNING;
		r->slot[me].busy = true;
		r->slot[me].job = j;
		pthread_mutex_unlock(&r->mu);
		lookup(j);
		pthread_mutex_lock(&r->mu);
		r->slot[me].busy = false;
		r->slot[me].job = NULL;
		if (r->closing) { /* sbx_resolver_free() freed the followers */
			free(j);
			continue;
		}
		if (!deliver(r, j))
			continue;
		/* A full pipe already says there is something to take. */
		if (write(r->pipe[1], "", 1) < 0 && errno != EAGAIN)
			break;
	}
	r->threads--;
	/* Closing, sbx_resolver_free() joins or detaches this thread; else nobody would join it. */
	if (!r->closing) {
		r->slot[me].used = false;
		pthread_detach(pthread_self());
	}
	unref_locked(r);
	return NULL;
}

int sbx_resolver_new(struct sbx_resolver **out)
{
	struct sbx_resolver *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -ENOMEM;
	if (pipe(r->pipe) < 0) {
		int e = errno;

		free(r);
		return -e;
	}
	for (int i = 0; i < 2; i++) {
		fcntl(r->pipe[i], F_SETFD, FD_CLOEXEC);
		fcntl(r->pipe[i], F_SETFL, O_NONBLOCK);
	}
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->refs = 1;
	*out = r;
	return 0;
}

int sbx_resolver_notify_fd(const struct sbx_resolver *r)
{
	return r->pipe[0];
}

/* A worker's stack at most (see spawn_locked). */
#define RESOLVER_STACK (512 * 1024)

/* Starts one more worker; called locked. Signals go to the loop's thread, never to a worker. */
static void spawn_locked(struct sbx_resolver *r)
{
	pthread_attr_t attr;
	sigset_t all, old;
	size_t stack;
	int k = 0;

	/* threads < SBX_PROXY_RESOLVERS: a slot is free. */
	while (r->slot[k].used)
		k++;
	if (pthread_attr_init(&attr))
		return;
	/*
	 * glibc's default stack is the stack limit (8 MiB, often): 64 workers would reserve half
	 * a gigabyte. getaddrinfo() and the name service modules it loads fit in far less; musl's
	 * default (128 KiB) is kept.
	 */
	if (pthread_attr_getstacksize(&attr, &stack) == 0 && stack > RESOLVER_STACK)
		pthread_attr_setstacksize(&attr, RESOLVER_STACK);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&r->slot[k].t, &attr, worker, r) == 0) {
		r->slot[k].used = true;
		r->slot[k].busy = false;
		r->threads++;
		r->refs++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

struct sbx_resolve_job *sbx_resolver_submit(struct sbx_resolver *r, const char *name, void *owner)
{
	struct sbx_resolve_job *j = calloc(1, sizeof(*j));

	if (!j || strlen(name) >= sizeof(j->name)) {
		free(j);
		return NULL;
	}
	strcpy(j->name, name);
	j->owner = owner;
	pthread_mutex_lock(&r->mu);
	j->lead = r->closing ? NULL : same_lookup(r, name);
	if (j->lead) {
		j->lead->followers++;
		j->next = r->waiting;
		r->waiting = j;
		pthread_mutex_unlock(&r->mu);
		return j;
	}
	if (r->queue_tail)
		r->queue_tail->next = j;
	else
		r->queue = j;
	r->queue_tail = j;
	r->queued++;
	if (r->queued > r->idle && r->threads < SBX_PROXY_RESOLVERS)
		spawn_locked(r);
	if (r->threads == 0) {
		/* Not even one thread: the lookup would never run. */
		r->queue = r->queue_tail = NULL;
		r->queued = 0;
		pthread_mutex_unlock(&r->mu);
		free(j);
		return NULL;
	}
	pthread_cond_signal(&r->cv);
	pthread_mutex_unlock(&r->mu);
	return j;
}

bool sbx_resolver_started(struct sbx_resolver *r, const struct sbx_resolve_job *j)
{
	bool started;

	pthread_mutex_lock(&r->mu);
	started = (j->lead ? j->lead : j)->state != JOB_QUEUED;
	pthread_mutex_unlock(&r->mu);
	return started;
}

bool sbx_resolver_take(struct sbx_resolver *r, void **owner, struct sbx_resolved *res)
{
	struct sbx_resolve_job *j;
	char drain[64];

	while (read(r->pipe[0], drain, sizeof(drain)) > 0)
		;
	pthread_mutex_lock(&r->mu);
	j = r->done;
	if (j)
		r->done = j->next;
	pthread_mutex_unlock(&r->mu);
	if (!j)
		return false;
	*owner = j->owner;
	*res = j->res;
	free(j);
	return true;
}

static void unlink_job(struct sbx_resolve_job **list, struct sbx_resolve_job *j,
		       struct sbx_resolve_job **tail)
{
	struct sbx_resolve_job *prev = NULL;

	for (struct sbx_resolve_job *x = *list; x; prev = x, x = x->next) {
		if (x != j)
			continue;
		if (prev)
			prev->next = x->next;
		else
			*list = x->next;
		if (tail && *tail == x)
			*tail = prev;
		return;
	}
}

/* A queued lookup leaves the queue and is freed. Locked. */
static void unqueue(struct sbx_resolver *r, struct sbx_resolve_job *j)
{
	unlink_job(&r->queue, j, &r->queue_tail);
	r->queued--;
	free(j);
}

void sbx_resolver_cancel(struct sbx_resolver *r, struct sbx_resolve_job *j)
{
	struct sbx_resolve_job *lead;

	pthread_mutex_lock(&r->mu);
	if (j->lead) {
		/* A follower: the lookup it waited for is not needed any more if none else waits. */
		lead = j->lead;
		unlink_job(&r->waiting, j, NULL);
		free(j);
		if (--lead->followers == 0 && lead->cancelled && lead->state == JOB_QUEUED)
			unqueue(r, lead);
		pthread_mutex_unlock(&r->mu);
		return;
	}
	switch (j->state) {
	case JOB_QUEUED:
		if (j->followers)
			j->cancelled = true; /* still looked up, for them */
		else
			unqueue(r, j);
		break;
	case JOB_DONE:
		unlink_job(&r->done, j, NULL);
		free(j);
		break;
	case JOB_RUNNING:
		j->cancelled = true; /* its worker frees it */
		break;
	}
	pthread_mutex_unlock(&r->mu);
}

/*
 * Ends the idle threads and waits for them: a thread's own state in the C library (glibc's
 * resolver state, for one) is freed as the thread ends, and a detached thread told to end as
 * the process exits may still be ending when the exit's leak check (LeakSanitizer) runs, which
 * reports that state as lost. An idle thread has only to wake and return, so the join is
 * quick. A thread inside getaddrinfo() is detached instead, and finishes on its own: the
 * lookup may wait for a name server for as long as resolv.conf allows (timeout times
 * attempts, 30 seconds and more), and stopping the proxy must not wait for a name nobody
 * needs any more. Such a thread keeps the pool alive through its reference.
 */
void sbx_resolver_free(struct sbx_resolver *r)
{
	pthread_t join[SBX_PROXY_RESOLVERS];
	int n = 0;

	if (!r)
		return;
	pthread_mutex_lock(&r->mu);
	r->closing = true;
	while (r->queue) {
		struct sbx_resolve_job *j = r->queue;

		r->queue = j->next;
		free(j);
	}
	r->queue_tail = NULL;
	r->queued = 0;
	while (r->done) {
		struct sbx_resolve_job *j = r->done;

		r->done = j->next;
		free(j);
	}
	while (r->waiting) {
		struct sbx_resolve_job *j = r->waiting;

		r->waiting = j->next;
		free(j);
	}
	/*
	 * Decided under the lock that sets closing: from here no thread leaves its slot or
	 * detaches itself, and an idle one cannot take a lookup (the queue is empty).
	 */
	for (int k = 0; k < SBX_PROXY_RESOLVERS; k++) {
		if (!r->slot[k].used)
			continue;
		if (r->slot[k].busy)
			pthread_detach(r->slot[k].t);
		else
			join[n++] = r->slot[k].t;
	}
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	for (int k = 0; k < n; k++)
		pthread_join(join[k], NULL);
	pthread_mutex_lock(&r->mu);
	unref_locked(r);
}
