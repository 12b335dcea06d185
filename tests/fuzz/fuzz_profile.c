/* SPDX-License-Identifier: MIT */
/*
 * fuzz_profile.c - libFuzzer target for the loaders. Every input goes through the three
 * loaders; whatever loads must emit JSON that loads again and emits the same text. The
 * single-pass parser of the canonical form and the jansson path are held side by side: what one
 * accepts as a tagged PermissionProfile the other accepts too, into the same model, and an input
 * either refuses gets the same diagnostic from both entry points.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void must(bool ok, const char *what, const char *text)
{
	if (ok)
		return;
	fprintf(stderr, "fuzz_profile: %s: %s\n", what, text ? text : "(null)");
	abort();
}

static void profile_round_trip(const char *buf, size_t size, bool legacy_ok)
{
	struct sbx_profile p, q;
	struct sbx_legacy l;
	enum sbx_input_form form;
	struct sbx_diag d;
	char *a, *b;

	if (sbx_profile_load_buf(buf, size, "fuzz", &p, &form, legacy_ok ? &l : NULL, &d)) {
		must(d.msg[0] != '\0', "error without a message", NULL);
		return;
	}
	if (form == SBX_FORM_LEGACY) {
		a = sbx_legacy_to_json(&l);
		must(a != NULL, "legacy emit", NULL);
		sbx_legacy_free(&l);
		free(a);
		return; /* the legacy round trip is legacy_round_trip's */
	}
	a = sbx_profile_to_json(&p);
	must(a != NULL, "emit", NULL);
	must(sbx_profile_load_buf(a, strlen(a), "re", &q, &form, NULL, &d) == 0, d.msg, a);
	b = sbx_profile_to_json(&q);
	must(b && strcmp(a, b) == 0, "emit after reload differs", b);
	free(a);
	free(b);
	sbx_profile_free(&p);
	sbx_profile_free(&q);
}

static bool same_diag(const struct sbx_diag *a, const struct sbx_diag *b)
{
	return strcmp(a->file, b->file) == 0 && a->line == b->line && a->col == b->col &&
	       strcmp(a->pointer, b->pointer) == 0 && strcmp(a->msg, b->msg) == 0 &&
	       strcmp(a->hint, b->hint) == 0;
}

static void wire_matches_tree(const char *buf, size_t size)
{
	struct sbx_profile w, t, b;
	enum sbx_input_form form = SBX_FORM_PROFILE;
	struct sbx_diag dt, db;
	int rw, rt, rb;
	char *a, *c;

	rw = sbx_profile_load_wire(buf, size, &w);
	rt = sbx_profile_load_tree(buf, size, "fuzz", &t, &form, NULL, &dt);
	rb = sbx_profile_load_buf(buf, size, "fuzz", &b, NULL, NULL, &db);
	must(rw == 0 || rw == 1, "wire: unexpected return", NULL);
	must(rw != 0 || rt == 0, "wire accepted what jansson refuses", dt.msg);
	must(rt != 0 || form != SBX_FORM_PROFILE || rw == 0,
	     "wire refused a tagged profile jansson accepts", NULL);
	must((rb == 0) == (rt == 0) && (rb == 0 || (rb == rt && same_diag(&db, &dt))),
	     "the two entry points differ", db.msg);
	if (rw == 0) {
		a = sbx_profile_to_json(&w);
		c = sbx_profile_to_json(&t);
		must(a && c && strcmp(a, c) == 0, "wire and jansson load different models", a);
		free(a);
		free(c);
	}
	sbx_profile_free(&w);
	sbx_profile_free(&t);
	sbx_profile_free(&b);
}

static void additional_round_trip(const char *buf, size_t size)
{
	struct sbx_additional x, y;
	struct sbx_diag d;
	char *a, *b;

	if (sbx_additional_load_buf(buf, size, "fuzz", &x, &d)) {
		must(d.msg[0] != '\0', "error without a message", NULL);
		return;
	}
	a = sbx_additional_to_json(&x);
	must(a != NULL, "emit", NULL);
	must(sbx_additional_load_buf(a, strlen(a), "re", &y, &d) == 0, d.msg, a);
	b = sbx_additional_to_json(&y);
	must(b && strcmp(a, b) == 0, "emit after reload differs", b);
	free(a);
	free(b);
	sbx_additional_free(&x);
	sbx_additional_free(&y);
}

static void legacy_round_trip(const char *buf, size_t size)
{
	struct sbx_legacy x, y;
	struct sbx_diag d;
	char *a, *b;

	if (sbx_legacy_load_buf(buf, size, "fuzz", &x, &d)) {
		must(d.msg[0] != '\0', "error without a message", NULL);
		return;
	}
	a = sbx_legacy_to_json(&x);
	must(a != NULL, "emit", NULL);
	must(sbx_legacy_load_buf(a, strlen(a), "re", &y, &d) == 0, d.msg, a);
	b = sbx_legacy_to_json(&y);
	must(b && strcmp(a, b) == 0, "emit after reload differs", b);
	free(a);
	free(b);
	sbx_legacy_free(&x);
	sbx_legacy_free(&y);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;

	profile_round_trip(buf, size, true);
	profile_round_trip(buf, size, false);
	wire_matches_tree(buf, size);
	additional_round_trip(buf, size);
	legacy_round_trip(buf, size);
	return 0;
}
