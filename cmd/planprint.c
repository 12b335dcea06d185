/* SPDX-License-Identifier: MIT */
/*
 * planprint.c - a plan as people read it: each requirement with its mechanism and status, each
 * reason said once as a numbered note (explain), and the compact block -v prints on standard
 * error before running.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static const char *status_name(enum sbx_req_status s)
{
	switch (s) {
	case SBX_ENFORCED:
		return "enforced";
	case SBX_UNENFORCEABLE:
		return "unenforceable";
	case SBX_SKIPPED:
		return "skipped";
	}
	return "?";
}

void plan_row_view(const struct sbx_req *r, const struct sbx_strv *will_create, struct plan_row *v)
{
	v->status = status_name(r->status);
	v->mechanism = sbx_mech_name(r->mech, v->mech);
	v->why = sbx_req_reason(r);
	v->self = sbx_req_self(r);
	v->hint = sbx_req_hint(r);
	/* Enforced as any carve-out, it says why it is there. */
	if (!v->why)
		v->why = sbx_origin_reason(r->origin);
	if (sbx_req_missing_grant(r)) {
		/* Enforcement is unchanged; what the grant does is nothing, and it says so. */
		v->status = status_name(SBX_SKIPPED);
		v->mechanism = "none";
		v->why = will_create && sbx_strv_has(will_create, r->path)
				 ? "missing: created when run (--mkdir)"
				 : SBX_MISSING_NO_EFFECT;
		v->self = (struct sbx_span){0, 0};
		v->hint = NULL;
	}
}

/*
 * s as sbx_put_sanitized prints it, padded to w columns: a rule holds paths, which an earlier
 * run may have named (a .git file's gitdir, a directory it made), and a control character in
 * one would move the cursor over the table or end a row early.
 */
static void put_cell(FILE *f, const char *s, size_t w)
{
	sbx_put_sanitized(s, f);
	for (size_t n = sbx_sanitized_len(s); n < w; n++)
		fputc(' ', f);
}

int plan_print(FILE *f, const char *lead, const struct sbx_plan *p,
	       const struct sbx_strv *will_create)
{
	const char **why = calloc(p->n_reqs + 1, sizeof(*why));
	struct sbx_span *self = calloc(p->n_reqs + 1, sizeof(*self)); /* in why[i] */
	char **own = calloc(p->n_reqs + 1, sizeof(*own)); /* a reason joined with its hint */
	struct sbx_notes notes = {0};
	size_t w = 0;
	int r = -ENOMEM;

	if (!why || !self || !own)
		goto out;
	for (size_t i = 0; i < p->n_reqs; i++) {
		struct plan_row v;
		char rule[SBX_REQ_RULE_MAX];
		size_t l = sbx_sanitized_len(sbx_req_rule(&p->reqs[i], rule));

		plan_row_view(&p->reqs[i], will_create, &v);
		why[i] = v.why;
		/* A reason leads its hint: the span holds in the joined text too. */
		self[i] = v.self;
		if (v.hint) {
			if (asprintf(&own[i], "%s; hint: %s", v.why ? v.why : "", v.hint) < 0) {
				own[i] = NULL;
				goto out;
			}
			why[i] = own[i];
		}
		if (l > w)
			w = l;
	}
	r = sbx_notes_group(why, self, p->n_reqs, &notes);
	if (r)
		goto out;
	if (w > 60)
		w = 60;
	for (size_t i = 0; i < p->n_reqs; i++) {
		struct plan_row v;
		char rule[SBX_REQ_RULE_MAX];

		plan_row_view(&p->reqs[i], will_create, &v);
		fputs(lead, f);
		put_cell(f, sbx_req_rule(&p->reqs[i], rule), w);
		fprintf(f, "  %-28s %s", v.mechanism, v.status);
		if (notes.of[i])
			fprintf(f, " [%zu]", notes.of[i]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < notes.text.n; i++) {
		fprintf(f, "%s[%zu] ", lead, i + 1);
		sbx_put_sanitized(notes.text.v[i], f);
		fputc('\n', f);
	}
out:
	sbx_notes_free(&notes);
	for (size_t i = 0; own && i < p->n_reqs; i++)
		free(own[i]);
	free(own);
	free(why);
	free(self);
	return r;
}

/* Names of env, sorted, on one line (a long line: it is there to be searched, not read). */
static int print_names(FILE *f, const struct sbx_strv *env)
{
	struct sbx_strv names;

	if (sbx_env_names(env, NULL, 0, &names))
		return -ENOMEM;
	for (size_t i = 0; i < names.n; i++) {
		fputc(' ', f);
		sbx_put_sanitized(names.v[i], f);
	}
	sbx_strv_clear(&names);
	return 0;
}

int plan_summary(FILE *f, const struct invocation *inv)
{
	const struct sbx_plan *p = &inv->plan;
	static const char lead[] = "sbxrun:   ";
	int r = 0;

	fputs("sbxrun: profile ", f);
	sbx_put_sanitized(inv->profile_name, f);
	fprintf(f, " (%s, network %s), cwd ", sbx_profile_type_name(p->profile.type),
		p->network ? "enabled" : "restricted");
	sbx_put_sanitized(inv->cwd, f);
	fputc('\n', f);
	if (!p->sandbox_requested)
		fprintf(f, "sbxrun: sandbox none (not requested): the command runs unconfined\n");
	else
		fprintf(f, "sbxrun: sandbox %s, %s\n", sbx_sandbox_name(p->sandbox),
			sbx_plan_enforceable(p) ? "enforceable" : "not enforceable (refused)");
	if (p->n_reqs)
		r = plan_print(f, lead, p, NULL);
	if (!r && inv->env_changed) {
		fprintf(f, "sbxrun: environment (%zu):", inv->env.n);
		r = print_names(f, &inv->env);
		fputc('\n', f);
	}
	fflush(f);
	return r;
}
