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

/* XML text and attribute escaping of & < > " '. */
static void sb_esc(struct sbx_strbuf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			sbx_strbuf_puts(b, "&amp;");
			break;
		case '<':
			sbx_strbuf_puts(b, "&lt;");
			break;
		case '>':
			sbx_strbuf_puts(b, "&gt;");
			break;
		case '"':
			sbx_strbuf_puts(b, "&quot;");
			break;
		case '\'':
			sbx_strbuf_puts(b, "&apos;");
			break;
		default:
			sbx_strbuf_put(b, s, 1);
		}
	}
}

static void put_special(struct sbx_strbuf *b, const struct sbx_entry *e)
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
		sbx_strbuf_puts(b, tokens[e->special]);
	if ((e->special == SBX_SP_PROJECT_ROOTS || e->special == SBX_SP_UNKNOWN) && e->subpath) {
		sbx_strbuf_puts(b, "/");
		sb_esc(b, e->subpath);
	}
}

static void put_entry(struct sbx_strbuf *b, const struct sbx_entry *e)
{
	sbx_strbuf_puts(b, "<entry access=\"");
	sbx_strbuf_puts(b, sbx_access_name(e->access));
	sbx_strbuf_puts(b, e->access == SBX_DENY ? "\" escalatable=\"false\">" : "\">");
	switch (e->kind) {
	case SBX_PATH:
		sbx_strbuf_puts(b, "<path>");
		sb_esc(b, e->path);
		sbx_strbuf_puts(b, "</path>");
		break;
	case SBX_GLOB:
		sbx_strbuf_puts(b, "<glob>");
		sb_esc(b, e->path);
		sbx_strbuf_puts(b, "</glob>");
		break;
	case SBX_SPECIAL:
		sbx_strbuf_puts(b, "<special>");
		put_special(b, e);
		sbx_strbuf_puts(b, "</special>");
		break;
	}
	sbx_strbuf_puts(b, "</entry>");
}

static int put_file_system(struct sbx_strbuf *b, const struct sbx_profile *p,
			   const char *const *roots, size_t n)
{
	struct sbx_ctx ctx = {.cwd = n ? roots[0] : NULL,
			      .workspace_roots = roots,
			      .n_workspace_roots = n,
			      .platform = sbx_host_platform()};
	struct sbx_fs m = {0};
	char depth[48];
	int r;

	if (p->type == SBX_DISABLED || p->fs.kind == SBX_FS_UNRESTRICTED) {
		sbx_strbuf_puts(b, "<file_system type=\"unrestricted\" />");
		return 0;
	}
	if (p->type == SBX_EXTERNAL || p->fs.kind == SBX_FS_EXTERNAL) {
		sbx_strbuf_puts(b, "<file_system type=\"external\" />");
		return 0;
	}
	/* Materialized against the workspace roots first; that also drops duplicates. */
	r = sbx_fs_materialize(&p->fs, &ctx, &m);
	if (r)
		return r;
	sbx_strbuf_puts(b, "<file_system type=\"restricted\"");
	if (m.glob_depth) {
		snprintf(depth, sizeof(depth), " glob_scan_max_depth=\"%u\"", m.glob_depth);
		sbx_strbuf_puts(b, depth);
	}
	if (!m.n) {
		sbx_strbuf_puts(b, " />");
	} else {
		sbx_strbuf_puts(b, ">");
		for (size_t i = 0; i < m.n; i++)
			put_entry(b, &m.entries[i]);
		sbx_strbuf_puts(b, "</file_system>");
	}
	sbx_fs_clear(&m);
	return 0;
}

static void put_filesystem(struct sbx_strbuf *b, const struct sbx_profile *p,
			   const char *const *roots, size_t n)
{
	sbx_strbuf_puts(b, "<filesystem><workspace_roots>");
	for (size_t i = 0; i < n; i++) {
		sbx_strbuf_puts(b, "<root>");
		sb_esc(b, roots[i]);
		sbx_strbuf_puts(b, "</root>");
	}
	sbx_strbuf_puts(b, "</workspace_roots><permission_profile type=\"");
	sbx_strbuf_puts(b, sbx_profile_type_name(p->type));
	sbx_strbuf_puts(b, "\">");
	if (put_file_system(b, p, roots, n))
		b->oom = true;
	sbx_strbuf_puts(b, "</permission_profile></filesystem>");
}

char *sbx_context_filesystem(const struct sbx_profile *p, const char *const *roots, size_t n)
{
	struct sbx_strbuf b = {0};

	put_filesystem(&b, p, roots, n);
	return sbx_strbuf_finish(&b, NULL);
}

static void put_line(struct sbx_strbuf *b, const char *tag, const char *text)
{
	if (!text)
		return;
	sbx_strbuf_puts(b, "  <");
	sbx_strbuf_puts(b, tag);
	sbx_strbuf_puts(b, ">");
	sb_esc(b, text);
	sbx_strbuf_puts(b, "</");
	sbx_strbuf_puts(b, tag);
	sbx_strbuf_puts(b, ">\n");
}

char *sbx_context_render(const struct sbx_context_in *in)
{
	struct sbx_strbuf b = {0};

	sbx_strbuf_puts(&b, "<environment_context>\n");
	put_line(&b, "cwd", in->cwd);
	put_line(&b, "shell", in->shell);
	put_line(&b, "current_date", in->current_date);
	put_line(&b, "timezone", in->timezone);
	if (in->profile) {
		sbx_strbuf_puts(&b, "  ");
		put_filesystem(&b, in->profile, in->workspace_roots, in->n_workspace_roots);
		sbx_strbuf_puts(&b, "\n");
	}
	sbx_strbuf_puts(&b, "</environment_context>");
	return sbx_strbuf_finish(&b, NULL);
}
