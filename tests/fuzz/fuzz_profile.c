/* SPDX-License-Identifier: MIT */
/*
 * fuzz_profile.c - libFuzzer target for the loaders. Every input goes through the three
 * loaders; whatever loads must emit JSON that loads again and emits the same text.
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
	additional_round_trip(buf, size);
	legacy_round_trip(buf, size);
	return 0;
}
