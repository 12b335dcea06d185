/* SPDX-License-Identifier: MIT */
/* sbpl_eval.c - see sbpl_eval.h. Test code: simple over fast, strict over lenient. */
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_eval.h"
#include "sbpl_reader.h"

struct sbpl_policy {
	struct sbpl_node root;
	char **params;
	size_t n_params;
};

struct ev {
	const struct sbpl_policy *p;
	const struct sbpl_query *q;
	char *err;
	size_t errlen;
};

static int efail(struct ev *e, const struct sbpl_node *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int efail(struct ev *e, const struct sbpl_node *n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbpl_verror(e->err, e->errlen, n->line, fmt, ap);
	va_end(ap);
	return -1;
}

struct sbpl_policy *sbpl_policy_load(const char *policy, char *const params[], size_t n_params,
				     char *err, size_t errlen)
{
	struct sbpl_policy *p = calloc(1, sizeof(*p));

	if (!p || sbpl_parse(policy, &p->root, err, errlen) != 0) {
		free(p);
		return NULL;
	}
	p->params = calloc(n_params + 1, sizeof(*p->params));
	for (size_t i = 0; p->params && i < n_params; i++) {
		if (!strchr(params[i], '=')) {
			snprintf(err, errlen, "parameter \"%s\" is not KEY=VALUE", params[i]);
			p->n_params = i;
			sbpl_policy_free(p);
			return NULL;
		}
		p->params[i] = strdup(params[i]);
		p->n_params = i + 1;
	}
	return p;
}

void sbpl_policy_free(struct sbpl_policy *p)
{
	if (!p)
		return;
	sbpl_node_free(&p->root);
	for (size_t i = 0; i < p->n_params; i++)
		free(p->params[i]);
	free(p->params);
	free(p);
}

/* The string an argument stands for: a string literal, or (param "K") looked up. */
static const char *arg_value(struct ev *e, const struct sbpl_node *n)
{
	const char *key;
	size_t klen;

	if (n->type == SBPL_STRING || n->type == SBPL_REGEX)
		return n->text;
	if (!sbpl_is_head(n, "param") || n->n != 2 || n->kids[1].type != SBPL_STRING) {
		efail(e, n, "expected a string or (param \"KEY\")");
		return NULL;
	}
	key = n->kids[1].text;
	klen = strlen(key);
	for (size_t i = 0; i < e->p->n_params; i++)
		if (strncmp(e->p->params[i], key, klen) == 0 && e->p->params[i][klen] == '=')
			return e->p->params[i] + klen + 1;
	efail(e, n, "(param \"%s\") is not defined", key);
	return NULL;
}

/* Seatbelt's subpath: the path itself or below it, by whole components. */
static bool subpath_covers(const char *root, const char *path)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return path[0] == '/';
	return strncmp(root, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int regex_search(struct ev *e, const struct sbpl_node *n, const char *re, const char *s)
{
	regex_t r;
	int hit;

	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB) != 0)
		return efail(e, n, "regex does not compile: %s", re);
	hit = regexec(&r, s, 0, NULL, 0) == 0;
	regfree(&r);
	return hit;
}

/* Request numbers of the ioctl names a policy may use (Darwin's <sys/ttycom.h>). */
static const struct {
	const char *name;
	unsigned long value;
} ioctl_names[] = {
	{"TIOCSTI", SBPL_TIOCSTI},
	{"TIOCGWINSZ", SBPL_TIOCGWINSZ},
	{"TIOCSETA", SBPL_TIOCSETA},
};

unsigned long sbpl_ioctl_request(const char *name)
{
	for (size_t i = 0; i < sizeof(ioctl_names) / sizeof(ioctl_names[0]); i++)
		if (strcmp(ioctl_names[i].name, name) == 0)
			return ioctl_names[i].value;
	return 0;
}

static int ioctl_matches(struct ev *e, const struct sbpl_node *n)
{
	const struct sbpl_node *a = &n->kids[1];
	char *end;

	if (strcmp(e->q->op, "file-ioctl") != 0 || !e->q->ioctl)
		return efail(e, n, "(ioctl-command) needs a file-ioctl query with a request");
	if (a->type == SBPL_NUMBER) {
		unsigned long v = strtoul(a->text, &end, 10);

		return !*end && v == e->q->ioctl;
	}
	if (!sbpl_ioctl_request(a->text))
		return efail(e, n, "unknown ioctl name %s", a->text);
	return sbpl_ioctl_request(a->text) == e->q->ioctl;
}

static int filter(struct ev *e, const struct sbpl_node *n);

/* "localhost" as Seatbelt reads it in an ip filter: the loopback addresses. */
static bool is_loopback(const char *host, size_t n)
{
	return (n == 9 && strncmp(host, "localhost", 9) == 0) ||
	       (n >= 4 && strncmp(host, "127.", 4) == 0) ||
	       (n == 5 && strncmp(host, "[::1]", 5) == 0);
}

/* (remote ip "HOST:PORT"): spec's HOST is * or localhost, its PORT * or a number. */
static int ip_matches(struct ev *e, const struct sbpl_node *n, const char *spec, const char *addr)
{
	const char *sc = strrchr(spec, ':'), *ac = strrchr(addr, ':');
	size_t hn = sc ? (size_t)(sc - spec) : 0;

	if (!sc || !((hn == 1 && spec[0] == '*') || (hn == 9 && !strncmp(spec, "localhost", 9))))
		return efail(e, n, "ip filter \"%s\": the host must be * or localhost", spec);
	if (!ac)
		return efail(e, n, "the query's address %s has no port", addr);
	if (spec[0] != '*' && !is_loopback(addr, (size_t)(ac - addr)))
		return 0;
	return strcmp(sc + 1, "*") == 0 || strcmp(sc + 1, ac + 1) == 0;
}

/* (remote ...) and (local ...): the address of that end of the query. */
static int address_matches(struct ev *e, const struct sbpl_node *n)
{
	bool remote = strcmp(n->kids[0].text, "remote") == 0;
	const char *addr = remote ? e->q->remote : e->q->local, *kind;

	if (n->n < 2 || n->kids[1].type != SBPL_SYMBOL)
		return efail(e, n, "(%s) takes ip or unix-socket", n->kids[0].text);
	kind = n->kids[1].text;
	if (!addr)
		return efail(e, n, "(%s %s) needs the query's %s address", n->kids[0].text, kind,
			     remote ? "remote" : "local");
	if (strcmp(kind, "ip") == 0) {
		if (n->n != 3 || n->kids[2].type != SBPL_STRING)
			return efail(e, n, "(%s ip) takes one string", n->kids[0].text);
		return addr[0] == '/' ? 0 : ip_matches(e, n, n->kids[2].text, addr);
	}
	if (strcmp(kind, "unix-socket") == 0) {
		struct sbpl_query sub = *e->q;
		struct ev inner = *e;

		if (addr[0] != '/')
			return 0;
		if (n->n == 2)
			return 1;
		if (n->n != 3)
			return efail(e, n, "(%s unix-socket) takes one path filter",
				     n->kids[0].text);
		sub.path = addr;
		inner.q = &sub;
		return filter(&inner, &n->kids[2]);
	}
	return efail(e, n, "(%s %s) is not an address filter", n->kids[0].text, kind);
}

static int filter(struct ev *e, const struct sbpl_node *n)
{
	const char *name, *v;
	int r;

	if (n->type != SBPL_LIST || n->n < 2 || n->kids[0].type != SBPL_SYMBOL)
		return efail(e, n, "a filter must be a list headed by a name, with arguments");
	name = n->kids[0].text;
	if (strcmp(name, "require-all") == 0 || strcmp(name, "require-any") == 0) {
		bool all = strcmp(name, "require-all") == 0;

		for (size_t i = 1; i < n->n; i++) {
			r = filter(e, &n->kids[i]);
			if (r < 0)
				return r;
			if (all && !r)
				return 0;
			if (!all && r)
				return 1;
		}
		return all;
	}
	if (strcmp(name, "require-not") == 0) {
		if (n->n != 2)
			return efail(e, n, "(require-not) takes one filter");
		r = filter(e, &n->kids[1]);
		return r < 0 ? r : !r;
	}
	if (strcmp(name, "remote") == 0 || strcmp(name, "local") == 0)
		return address_matches(e, n);
	if (n->n != 2)
		return efail(e, n, "(%s) takes one argument", name);
	if (strcmp(name, "literal") == 0 || strcmp(name, "subpath") == 0 ||
	    strcmp(name, "regex") == 0) {
		if (!e->q->path)
			return efail(e, n, "(%s) needs a path and the query has none", name);
		v = arg_value(e, &n->kids[1]);
		if (!v)
			return -1;
		if (name[0] == 'l')
			return strcmp(v, e->q->path) == 0;
		if (name[0] == 's')
			return subpath_covers(v, e->q->path);
		return regex_search(e, n, v, e->q->path);
	}
	if (strcmp(name, "vnode-type") == 0) {
		if (!e->q->vnode)
			return efail(e, n, "(vnode-type) needs the query's vnode type");
		return strcmp(n->kids[1].text, e->q->vnode) == 0;
	}
	if (strcmp(name, "extension") == 0) {
		for (const char *const *x = e->q->extensions; x && *x; x++)
			if (strcmp(*x, n->kids[1].text) == 0)
				return 1;
		return 0;
	}
	if (strcmp(name, "ioctl-command") == 0)
		return ioctl_matches(e, n);
	if (strcmp(name, "socket-domain") == 0 || strcmp(name, "socket-protocol") == 0) {
		char num[16];

		if (!e->q->socket_domain)
			return efail(e, n, "(%s) needs the socket the query creates", name);
		if (name[7] == 'd')
			return strcmp(n->kids[1].text, e->q->socket_domain) == 0;
		snprintf(num, sizeof(num), "%d", e->q->socket_protocol);
		return strcmp(n->kids[1].text, num) == 0;
	}
	return efail(e, n, "filter (%s) cannot be evaluated for %s", name, e->q->op);
}

static bool op_matches(const char *rule_op, const char *op)
{
	size_t n = strlen(rule_op);

	if (strcmp(rule_op, "default") == 0 || strcmp(rule_op, op) == 0)
		return true;
	return n > 1 && rule_op[n - 1] == '*' && strncmp(rule_op, op, n - 1) == 0;
}

/* 1 when the rule applies to the query, 0 when not, -1 on error. */
static int rule_matches(struct ev *e, const struct sbpl_node *rule)
{
	size_t k = 1;
	bool op = false;
	int r;

	for (; k < rule->n && rule->kids[k].type == SBPL_SYMBOL; k++)
		op = op || op_matches(rule->kids[k].text, e->q->op);
	if (!op)
		return 0;
	if (k == rule->n)
		return 1;
	for (; k < rule->n; k++) {
		r = filter(e, &rule->kids[k]);
		if (r != 0)
			return r;
	}
	return 0;
}

int sbpl_allows(const struct sbpl_policy *p, const struct sbpl_query *q, int *line, char *err,
		size_t errlen)
{
	struct ev e = {p, q, err, errlen};
	int decision = -1, r;

	if (line)
		*line = 0;
	for (size_t i = 0; i < p->root.n; i++) {
		const struct sbpl_node *rule = &p->root.kids[i];
		bool allow = sbpl_is_head(rule, "allow");

		if (!allow && !sbpl_is_head(rule, "deny"))
			continue;
		r = rule_matches(&e, rule);
		if (r < 0)
			return -1;
		if (r) {
			decision = allow;
			if (line)
				*line = rule->line;
		}
	}
	if (decision < 0)
		snprintf(err, errlen, "no rule decides %s %s", q->op, q->path ? q->path : "");
	return decision;
}
