/* SPDX-License-Identifier: MIT */
/*
 * context.c - the <environment_context> block a model is shown (sbxrun-profile(5),
 * ENVIRONMENT CONTEXT):
 * two-space indented lines, the file system on one line, text XML-escaped.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

struct sbuf {
	char *p;
	size_t n, cap;
	bool oom;
};

static void sb_putn(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *p;

		while (cap < b->n + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s)
{
	sb_putn(b, s, strlen(s));
}

/* XML text and attribute escaping of & < > " '. */
static void sb_esc(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			sb_puts(b, "&amp;");
			break;
		case '<':
			sb_puts(b, "&lt;");
			break;
		case '>':
			sb_puts(b, "&gt;");
			break;
		case '"':
			sb_puts(b, "&quot;");
			break;
		case '\'':
			sb_puts(b, "&apos;");
			break;
		default:
			sb_putn(b, s, 1);
		}
	}
}

static char *sb_done(struct sbuf *b)
{
	if (b->oom || !b->p) {
		free(b->p);
		return NULL;
	}
	return b->p;
}

static void put_special(struct sbuf *b, const struct sbx_entry *e)
{
	static const char *const tokens[] = {
		[SBX_SP_ROOT] = ":root",
		[SBX_SP_MINIMAL] = ":minimal",
		[SBX_SP_PROJECT_ROOTS] = ":workspace_roots",
		[SBX_SP_TMPDIR] = ":tmpdir",
		[SBX_SP_SLASH_TMP] = ":slash_tmp",
	};

	if (e->special == SBX_SP_UNKNOWN)
		sb_esc(b, e->path ? e->path : "");
	else if ((unsigned)e->special < sizeof(tokens) / sizeof(tokens[0]))
		sb_puts(b, tokens[e->special]);
	if ((e->special == SBX_SP_PROJECT_ROOTS || e->special == SBX_SP_UNKNOWN) && e->subpath) {
		sb_puts(b, "/");
		sb_esc(b, e->subpath);
	}
}

static void put_entry(struct sbuf *b, const struct sbx_entry *e)
{
	sb_puts(b, "<entry access=\"");
	sb_puts(b, sbx_access_name(e->access));
	sb_puts(b, e->access == SBX_DENY ? "\" escalatable=\"false\">" : "\">");
	switch (e->kind) {
	case SBX_PATH:
		sb_puts(b, "<path>");
		sb_esc(b, e->path);
		sb_puts(b, "</path>");
		break;
	case SBX_GLOB:
		sb_puts(b, "<glob>");
		sb_esc(b, e->path);
		sb_puts(b, "</glob>");
		break;
	case SBX_SPECIAL:
		sb_puts(b, "<special>");
		put_special(b, e);
		sb_puts(b, "</special>");
		break;
	}
	sb_puts(b, "</entry>");
}

static int put_file_system(struct sbuf *b, const struct sbx_profile *p, const char *const *roots,
			   size_t n)
{
	struct sbx_ctx ctx = {.cwd = n ? roots[0] : NULL,
			      .workspace_roots = roots,
			      .n_workspace_roots = n,
			      .platform = sbx_host_platform()};
	struct sbx_fs m = {0};
	char depth[48];
	int r;

	if (p->type == SBX_DISABLED || p->fs.kind == SBX_FS_UNRESTRICTED) {
		sb_puts(b, "<file_system type=\"unrestricted\" />");
		return 0;
	}
	if (p->type == SBX_EXTERNAL || p->fs.kind == SBX_FS_EXTERNAL) {
		sb_puts(b, "<file_system type=\"external\" />");
		return 0;
	}
	/* Materialized against the workspace roots first; that also drops duplicates. */
	r = sbx_fs_materialize(&p->fs, &ctx, &m);
	if (r)
		return r;
	sb_puts(b, "<file_system type=\"restricted\"");
	if (m.glob_depth) {
		snprintf(depth, sizeof(depth), " glob_scan_max_depth=\"%u\"", m.glob_depth);
		sb_puts(b, depth);
	}
	if (!m.n) {
		sb_puts(b, " />");
	} else {
		sb_puts(b, ">");
		for (size_t i = 0; i < m.n; i++)
			put_entry(b, &m.entries[i]);
		sb_puts(b, "</file_system>");
	}
	sbx_fs_clear(&m);
	return 0;
}

static void put_filesystem(struct sbuf *b, const struct sbx_profile *p, const char *const *roots,
			   size_t n)
{
	sb_puts(b, "<filesystem><workspace_roots>");
	for (size_t i = 0; i < n; i++) {
		sb_puts(b, "<root>");
		sb_esc(b, roots[i]);
		sb_puts(b, "</root>");
	}
	sb_puts(b, "</workspace_roots><permission_profile type=\"");
	sb_puts(b, sbx_profile_type_name(p->type));
	sb_puts(b, "\">");
	if (put_file_system(b, p, roots, n))
		b->oom = true;
	sb_puts(b, "</permission_profile></filesystem>");
}

char *sbx_context_filesystem(const struct sbx_profile *p, const char *const *roots, size_t n)
{
	struct sbuf b = {0};

	put_filesystem(&b, p, roots, n);
	return sb_done(&b);
}

static void put_line(struct sbuf *b, const char *tag, const char *text)
{
	if (!text)
		return;
	sb_puts(b, "  <");
	sb_puts(b, tag);
	sb_puts(b, ">");
	sb_esc(b, text);
	sb_puts(b, "</");
	sb_puts(b, tag);
	sb_puts(b, ">\n");
}

char *sbx_context_render(const struct sbx_context_in *in)
{
	struct sbuf b = {0};

	sb_puts(&b, "<environment_context>\n");
	put_line(&b, "cwd", in->cwd);
	put_line(&b, "shell", in->shell);
	put_line(&b, "current_date", in->current_date);
	put_line(&b, "timezone", in->timezone);
	if (in->profile) {
		sb_puts(&b, "  ");
		put_filesystem(&b, in->profile, in->workspace_roots, in->n_workspace_roots);
		sb_puts(&b, "\n");
	}
	sb_puts(&b, "</environment_context>");
	return sb_done(&b);
}
