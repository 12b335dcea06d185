/* SPDX-License-Identifier: MIT */
/* sbpl_reader.c - see sbpl_reader.h. Test code: simple over fast, strict over lenient. */
#include <regex.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl_reader.h"

struct rd {
	const char *s;
	size_t i;
	int line;
	char *err;
	size_t errlen;
};

int sbpl_verror(char *err, size_t errlen, int line, const char *fmt, va_list ap)
{
	int n = snprintf(err, errlen, "line %d: ", line);

	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	return -1;
}

static int fail(struct rd *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbpl_verror(r->err, r->errlen, r->line, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_space(struct rd *r)
{
	for (;;) {
		char c = r->s[r->i];

		if (c == '\n') {
			r->line++;
			r->i++;
		} else if (c == ' ' || c == '\t' || c == '\r') {
			r->i++;
		} else if (c == ';') {
			while (r->s[r->i] && r->s[r->i] != '\n')
				r->i++;
		} else {
			return;
		}
	}
}

static int add_kid(struct sbpl_node *list, struct sbpl_node *kid)
{
	struct sbpl_node *k = realloc(list->kids, (list->n + 1) * sizeof(*k));

	if (!k)
		return -1;
	list->kids = k;
	list->kids[list->n++] = *kid;
	return 0;
}

static int read_literal(struct rd *r, struct sbpl_node *out, bool regex)
{
	size_t cap = 64, n = 0;
	char *t = malloc(cap);

	if (!t)
		return fail(r, "out of memory");
	for (;;) {
		char c = r->s[r->i];

		if (!c) {
			free(t);
			return fail(r, "unterminated %s literal", regex ? "regex" : "string");
		}
		r->i++;
		if (c == '"')
			break;
		if (regex && ((unsigned char)c < 0x20 || c == 0x7f)) {
			free(t);
			return fail(r, "control character 0x%02x in a #\"\" literal", c);
		}
		if (!regex && c == '\\') {
			c = r->s[r->i];
			if (c != '\\' && c != '"') {
				free(t);
				return fail(r, "unexpected escape \\%c in a string", c ? c : '0');
			}
			r->i++;
		}
		if (c == '\n')
			r->line++;
		if (n + 2 > cap) {
			char *nt = realloc(t, cap *= 2);

			if (!nt) {
				free(t);
				return fail(r, "out of memory");
			}
			t = nt;
		}
		t[n++] = c;
	}
	t[n] = '\0';
	out->type = regex ? SBPL_REGEX : SBPL_STRING;
	out->text = t;
	return 0;
}

static bool sym_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("*-_.+", c) != NULL);
}

static int read_form(struct rd *r, struct sbpl_node *out, unsigned depth)
{
	char c;

	memset(out, 0, sizeof(*out));
	skip_space(r);
	out->line = r->line;
	c = r->s[r->i];
	if (depth > 64)
		return fail(r, "nested too deeply");
	if (c == '(') {
		r->i++;
		out->type = SBPL_LIST;
		for (;;) {
			struct sbpl_node kid;

			skip_space(r);
			if (r->s[r->i] == ')') {
				r->i++;
				return 0;
			}
			if (!r->s[r->i])
				return fail(r, "unbalanced parentheses: a list is not closed");
			if (read_form(r, &kid, depth + 1) || add_kid(out, &kid)) {
				sbpl_node_free(&kid);
				return -1;
			}
		}
	}
	if (c == ')')
		return fail(r, "unbalanced parentheses: unexpected )");
	if (c == '"') {
		r->i++;
		return read_literal(r, out, false);
	}
	if (c == '#' && r->s[r->i + 1] == '"') {
		r->i += 2;
		return read_literal(r, out, true);
	}
	if (sym_char(c)) {
		size_t start = r->i;
		bool digits = true;

		while (sym_char(r->s[r->i])) {
			if (r->s[r->i] < '0' || r->s[r->i] > '9')
				digits = false;
			r->i++;
		}
		out->type = digits ? SBPL_NUMBER : SBPL_SYMBOL;
		out->text = strndup(r->s + start, r->i - start);
		return out->text ? 0 : fail(r, "out of memory");
	}
	return fail(r, "unexpected character 0x%02x", (unsigned char)c);
}

int sbpl_parse(const char *text, struct sbpl_node *root, char *err, size_t errlen)
{
	struct rd r = {.s = text, .line = 1, .err = err, .errlen = errlen};

	memset(root, 0, sizeof(*root));
	root->type = SBPL_LIST;
	for (;;) {
		struct sbpl_node kid;

		skip_space(&r);
		if (!text[r.i])
			return 0;
		if (read_form(&r, &kid, 0) || add_kid(root, &kid)) {
			sbpl_node_free(&kid);
			sbpl_node_free(root);
			return -1;
		}
	}
}

void sbpl_node_free(struct sbpl_node *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		sbpl_node_free(&n->kids[i]);
	free(n->kids);
	free(n->text);
	memset(n, 0, sizeof(*n));
}

/* ---- checking ---------------------------------------------------------------------------- */

static const char *const known_ops[] = {
	"default",
	"process-exec",
	"process-fork",
	"signal",
	"process-info*",
	"file-read*",
	"file-write*",
	"file-write-data",
	"file-write-unlink",
	"file-ioctl",
	"file-map-executable",
	"sysctl-read",
	"sysctl-write",
	"iokit-open",
	"mach-lookup",
	"ipc-posix-sem",
	"ipc-posix-shm-read*",
	"ipc-posix-shm-read-data",
	"ipc-posix-shm-read-metadata",
	"ipc-posix-shm-write-create",
	"ipc-posix-shm-write-unlink",
	"pseudo-tty",
	"network-outbound",
	"network-inbound",
	"network-bind",
	"system-socket",
	"user-preference-read",
	NULL,
};

/* Filters, with the kind of arguments they take. */
static const struct {
	const char *name;
	char args; /* 'f' filters, 's' one string, 'r' one regex, 'p' string or (param), 'y' symbol,
		      'n' number, 'c' symbol or number, 'a' an address (ip or unix-socket) */
} known_filters[] = {
	{"require-all", 'f'},
	{"require-any", 'f'},
	{"require-not", 'f'},
	{"literal", 'p'},
	{"subpath", 'p'},
	{"regex", 'r'},
	{"param", 's'},
	{"vnode-type", 'y'},
	{"target", 'y'},
	{"sysctl-name", 's'},
	{"sysctl-name-prefix", 's'},
	{"global-name", 's'},
	{"local-name", 's'},
	{"iokit-registry-entry-class", 's'},
	{"ipc-posix-name-regex", 'r'},
	{"extension", 's'},
	{"socket-domain", 'y'},
	{"socket-protocol", 'n'},
	{"ioctl-command", 'c'},
	{"remote", 'a'},
	{"local", 'a'},
	{NULL, 0},
};

struct chk {
	char *const *params;
	size_t n_params;
	unsigned *uses;
	char *err;
	size_t errlen;
};

static int cfail(struct chk *c, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int cfail(struct chk *c, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sbpl_verror(c->err, c->errlen, line, fmt, ap);
	va_end(ap);
	return -1;
}

bool sbpl_is_head(const struct sbpl_node *n, const char *name)
{
	return n->type == SBPL_LIST && n->n > 0 && n->kids[0].type == SBPL_SYMBOL &&
	       strcmp(n->kids[0].text, name) == 0;
}

static int use_param(struct chk *c, const struct sbpl_node *n)
{
	const char *key;
	size_t klen;

	if (n->n != 2 || n->kids[1].type != SBPL_STRING)
		return cfail(c, n->line, "(param) takes one string");
	key = n->kids[1].text;
	klen = strlen(key);
	for (size_t i = 0; i < c->n_params; i++) {
		if (strncmp(c->params[i], key, klen) == 0 && c->params[i][klen] == '=') {
			c->uses[i]++;
			return 0;
		}
	}
	return cfail(c, n->line, "(param \"%s\") has no -D definition", key);
}

static int check_regex(struct chk *c, const struct sbpl_node *n)
{
	regex_t re;

	if (n->type != SBPL_REGEX && n->type != SBPL_STRING)
		return cfail(c, n->line, "a regex filter takes a regex literal");
	if (regcomp(&re, n->text, REG_EXTENDED | REG_NOSUB) != 0)
		return cfail(c, n->line, "regex does not compile: %s", n->text);
	regfree(&re);
	return 0;
}

static int check_filter(struct chk *c, const struct sbpl_node *n);

/*
 * (remote|local ip "HOST:PORT"), HOST * or localhost and PORT * or 1-65535, as Seatbelt reads
 * them; (remote|local unix-socket [PATH-FILTER]).
 */
static int check_address(struct chk *c, const struct sbpl_node *n)
{
	const char *name = n->kids[0].text, *spec, *colon;
	char *end;
	long port;

	if (n->n < 2 || n->kids[1].type != SBPL_SYMBOL)
		return cfail(c, n->line, "(%s) takes ip or unix-socket", name);
	if (strcmp(n->kids[1].text, "unix-socket") == 0) {
		const struct sbpl_node *f = n->n == 3 ? &n->kids[2] : NULL;

		if (n->n > 3)
			return cfail(c, n->line, "(%s unix-socket) takes one path filter", name);
		if (f && !sbpl_is_head(f, "literal") && !sbpl_is_head(f, "subpath") &&
		    !sbpl_is_head(f, "regex"))
			return cfail(c, n->line, "(%s unix-socket) takes a path filter", name);
		return f ? check_filter(c, f) : 0;
	}
	if (strcmp(n->kids[1].text, "ip") != 0)
		return cfail(c, n->line, "(%s %s) is no address filter", name, n->kids[1].text);
	if (n->n != 3 || n->kids[2].type != SBPL_STRING)
		return cfail(c, n->line, "(%s ip) takes one string", name);
	spec = n->kids[2].text;
	colon = strchr(spec, ':');
	if (!colon || (strncmp(spec, "*:", 2) != 0 && strncmp(spec, "localhost:", 10) != 0))
		return cfail(c, n->line, "(%s ip \"%s\"): the host must be * or localhost", name,
			     spec);
	if (strcmp(colon + 1, "*") == 0)
		return 0;
	port = strtol(colon + 1, &end, 10);
	if (*end || colon[1] == '0' || port < 1 || port > 65535)
		return cfail(c, n->line, "(%s ip \"%s\"): the port must be * or 1-65535", name,
			     spec);
	return 0;
}

static int check_filter(struct chk *c, const struct sbpl_node *n)
{
	const char *name;
	size_t i;

	if (n->type != SBPL_LIST || n->n == 0 || n->kids[0].type != SBPL_SYMBOL)
		return cfail(c, n->line, "a filter must be a list headed by a name");
	name = n->kids[0].text;
	for (i = 0; known_filters[i].name; i++)
		if (strcmp(known_filters[i].name, name) == 0)
			break;
	if (!known_filters[i].name)
		return cfail(c, n->line, "unknown filter %s", name);
	switch (known_filters[i].args) {
	case 'f':
		if (n->n < 2)
			return cfail(c, n->line, "(%s) needs filters", name);
		for (size_t k = 1; k < n->n; k++)
			if (check_filter(c, &n->kids[k]))
				return -1;
		if (strcmp(name, "require-not") == 0 && n->n != 2)
			return cfail(c, n->line, "(require-not) takes one filter");
		return 0;
	case 'p':
		if (n->n != 2)
			return cfail(c, n->line, "(%s) takes one argument", name);
		if (sbpl_is_head(&n->kids[1], "param"))
			return use_param(c, &n->kids[1]);
		if (n->kids[1].type != SBPL_STRING)
			return cfail(c, n->line, "(%s) takes a string or a (param)", name);
		return 0;
	case 's':
		if (strcmp(name, "param") == 0)
			return use_param(c, n);
		if (n->n != 2 || n->kids[1].type != SBPL_STRING)
			return cfail(c, n->line, "(%s) takes one string", name);
		return 0;
	case 'r':
		if (n->n != 2)
			return cfail(c, n->line, "(%s) takes one regex", name);
		return check_regex(c, &n->kids[1]);
	case 'y':
		if (n->n != 2 || n->kids[1].type != SBPL_SYMBOL)
			return cfail(c, n->line, "(%s) takes one symbol", name);
		return 0;
	case 'c':
		if (n->n != 2 || (n->kids[1].type != SBPL_SYMBOL && n->kids[1].type != SBPL_NUMBER))
			return cfail(c, n->line, "(%s) takes one symbol or number", name);
		return 0;
	case 'a':
		return check_address(c, n);
	default:
		if (n->n != 2 || n->kids[1].type != SBPL_NUMBER)
			return cfail(c, n->line, "(%s) takes one number", name);
		return 0;
	}
}

static int check_rule(struct chk *c, const struct sbpl_node *n)
{
	size_t k = 1;

	for (; k < n->n && n->kids[k].type == SBPL_SYMBOL; k++) {
		size_t i;

		for (i = 0; known_ops[i]; i++)
			if (strcmp(known_ops[i], n->kids[k].text) == 0)
				break;
		if (!known_ops[i])
			return cfail(c, n->line, "unknown operation %s", n->kids[k].text);
	}
	if (k == 1)
		return cfail(c, n->line, "a rule needs an operation");
	for (; k < n->n; k++)
		if (check_filter(c, &n->kids[k]))
			return -1;
	return 0;
}

int sbpl_check(const char *policy, char *const params[], size_t n_params, char *err, size_t errlen)
{
	struct sbpl_node root;
	struct chk c = {params, n_params, NULL, err, errlen};
	int rc = -1;

	if (sbpl_parse(policy, &root, err, errlen))
		return -1;
	c.uses = calloc(n_params + 1, sizeof(*c.uses));
	if (!c.uses)
		goto out;
	for (size_t i = 0; i < n_params; i++) {
		const char *eq = strchr(params[i], '=');

		if (!eq || eq == params[i]) {
			cfail(&c, 0, "parameter \"%s\" is not KEY=VALUE", params[i]);
			goto out;
		}
		for (const char *k = params[i]; k < eq; k++) {
			if (!((*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_')) {
				cfail(&c, 0, "parameter name in \"%s\" is not [A-Z0-9_]",
				      params[i]);
				goto out;
			}
		}
		for (size_t j = 0; j < i; j++) {
			if (strncmp(params[j], params[i], (size_t)(eq - params[i]) + 1) == 0) {
				cfail(&c, 0, "parameter %.*s defined twice", (int)(eq - params[i]),
				      params[i]);
				goto out;
			}
		}
	}
	if (root.n == 0 || !sbpl_is_head(&root.kids[0], "version") || root.kids[0].n != 2 ||
	    root.kids[0].kids[1].type != SBPL_NUMBER || strcmp(root.kids[0].kids[1].text, "1")) {
		cfail(&c, 1, "the policy must start with (version 1)");
		goto out;
	}
	for (size_t i = 1; i < root.n; i++) {
		const struct sbpl_node *n = &root.kids[i];

		if (sbpl_is_head(n, "allow") || sbpl_is_head(n, "deny")) {
			if (check_rule(&c, n))
				goto out;
		} else {
			cfail(&c, n->line, "unknown top-level form");
			goto out;
		}
	}
	for (size_t i = 0; i < n_params; i++) {
		if (!c.uses[i]) {
			cfail(&c, 0, "parameter \"%s\" is never used", params[i]);
			goto out;
		}
	}
	rc = 0;
out:
	free(c.uses);
	sbpl_node_free(&root);
	return rc;
}

/* ---- views ------------------------------------------------------------------------------- */

struct sbuf {
	char *s;
	size_t n, cap;
};

static void sput(struct sbuf *b, const char *s)
{
	size_t l = strlen(s);

	if (b->n + l + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap : 256);
		char *ns;

		while (cap < b->n + l + 1)
			cap *= 2;
		ns = realloc(b->s, cap);
		if (!ns)
			abort();
		b->s = ns;
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, l + 1);
	b->n += l;
}

static void shape(struct sbuf *b, const struct sbpl_node *n)
{
	switch (n->type) {
	case SBPL_LIST:
		if (sbpl_is_head(n, "regex") || sbpl_is_head(n, "ipc-posix-name-regex")) {
			sput(b, "(");
			sput(b, n->kids[0].text);
			sput(b, " #R)");
			break;
		}
		sput(b, "(");
		for (size_t i = 0; i < n->n; i++) {
			if (i)
				sput(b, " ");
			shape(b, &n->kids[i]);
		}
		sput(b, ")");
		break;
	case SBPL_STRING:
		sput(b, "\"");
		sput(b, n->text);
		sput(b, "\"");
		break;
	default:
		sput(b, n->text);
		break;
	}
}

char *sbpl_shape(const char *policy)
{
	struct sbpl_node root;
	struct sbuf b = {0};
	char err[256];

	if (sbpl_parse(policy, &root, err, sizeof(err)))
		return NULL;
	for (size_t i = 0; i < root.n; i++) {
		shape(&b, &root.kids[i]);
		sput(&b, "\n");
	}
	sbpl_node_free(&root);
	return b.s;
}

static void collect(const struct sbpl_node *n, char ***v, size_t *cnt)
{
	if (n->type == SBPL_LIST) {
		/* The argument of (regex ...) is a regex whichever literal form carries it. */
		if (sbpl_is_head(n, "regex") && n->n == 2 && n->kids[1].type != SBPL_LIST) {
			char **nv = realloc(*v, (*cnt + 1) * sizeof(*nv));

			if (!nv)
				abort();
			*v = nv;
			(*v)[(*cnt)++] = strdup(n->kids[1].text);
			return;
		}
		for (size_t i = 0; i < n->n; i++)
			collect(&n->kids[i], v, cnt);
	}
}

char **sbpl_regexes(const char *policy, size_t *n)
{
	struct sbpl_node root;
	char err[256], **v = NULL;

	*n = 0;
	if (sbpl_parse(policy, &root, err, sizeof(err)))
		return NULL;
	collect(&root, &v, n);
	sbpl_node_free(&root);
	return v;
}

void sbpl_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

const char *sbpl_param(char *const params[], size_t n_params, const char *key)
{
	size_t klen = strlen(key);

	for (size_t i = 0; i < n_params; i++)
		if (strncmp(params[i], key, klen) == 0 && params[i][klen] == '=')
			return params[i] + klen + 1;
	return NULL;
}

int sbpl_regex_matches(const char *re, const char *s)
{
	regex_t r;
	regmatch_t m;
	int hit;

	if (regcomp(&r, re, REG_EXTENDED) != 0)
		return -1;
	hit = regexec(&r, s, 1, &m, 0) == 0 && m.rm_so == 0 && (size_t)m.rm_eo == strlen(s);
	regfree(&r);
	return hit;
}
