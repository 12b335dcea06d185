/* SPDX-License-Identifier: MIT */
/*
 * test_badinput.c - every fixture of tests/cli/bad goes through the loader the way --profile
 * reads it, and the first rendered diagnostic line must equal NN-name.err with FILE standing for
 * the input's path. A NN-name.gen fixture describes an input too big to commit: its first line
 * is a size in bytes, the rest a JSON text that is padded with spaces to that size.
 */
#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#include "sbx.h"
#include "t.h"

static char *slurp(const char *path, size_t *len)
{
	struct sbx_diag d;
	char *buf = NULL;

	if (sbx_read_file(path, &buf, len, &d))
		return NULL;
	return buf;
}

/* Writes the padded input a .gen file describes; returns its path (malloc'd) or NULL. */
static char *generate(const char *gen)
{
	size_t len, size, head;
	char *spec = slurp(gen, &len), *nl, *path = NULL;
	const char *tmp = getenv("TMPDIR");
	FILE *f;
	int fd;

	if (!spec || !(nl = strchr(spec, '\n')))
		goto out;
	size = strtoul(spec, NULL, 10);
	head = len - (size_t)(nl + 1 - spec);
	if (asprintf(&path, "%s/sbx-badinput-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0) {
		path = NULL;
		goto out;
	}
	fd = mkstemp(path);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		free(path);
		path = NULL;
		goto out;
	}
	fwrite(nl + 1, 1, head, f);
	for (size_t i = head; i < size; i++)
		fputc(' ', f);
	fclose(f);
out:
	free(spec);
	return path;
}

/* The expected line with every "FILE" replaced by path. */
static char *expected_line(const char *err, const char *path)
{
	size_t len;
	char *text = slurp(err, &len), *out = NULL, *nl;
	size_t cap, o = 0;

	if (!text)
		return NULL;
	if ((nl = strchr(text, '\n')))
		*nl = '\0';
	cap = strlen(text) * (strlen(path) + 1) + 1;
	out = malloc(cap);
	for (const char *s = text; out && *s;) {
		if (strncmp(s, "FILE", 4) == 0) {
			o += (size_t)sprintf(out + o, "%s", path);
			s += 4;
		} else {
			out[o++] = *s++;
		}
	}
	if (out)
		out[o] = '\0';
	free(text);
	return out;
}

/* The first line sbx_diag_print writes for loading path as --profile does. */
static char *actual_line(const char *path)
{
	struct sbx_profile p;
	struct sbx_legacy l;
	enum sbx_input_form form;
	struct sbx_diag d;
	char *buf, *out = NULL, *nl;
	size_t len, size;
	FILE *f;
	int r;

	r = sbx_read_file(path, &buf, &len, &d);
	if (!r) {
		r = sbx_profile_load_buf(buf, len, path, &p, &form, &l, &d);
		free(buf);
		sbx_profile_free(&p);
		sbx_legacy_free(&l);
	}
	if (!r)
		return strdup("(loaded without error)");
	f = open_memstream(&out, &size);
	if (!f)
		return NULL;
	sbx_diag_print(&d, f);
	fclose(f);
	if ((nl = strchr(out, '\n')))
		*nl = '\0';
	return out;
}

static void check_case(const char *dir, const char *name, size_t *cases)
{
	char *input = NULL, *err = NULL, *want, *got;
	size_t n = strlen(name);
	bool gen = n > 4 && strcmp(name + n - 4, ".gen") == 0;

	if (asprintf(&err, "%s/%.*s.err", dir, (int)(n - (gen ? 4 : 5)), name) < 0)
		return;
	if (gen) {
		char *spec = NULL;

		if (asprintf(&spec, "%s/%s", dir, name) >= 0)
			input = generate(spec);
		free(spec);
	} else if (asprintf(&input, "%s/%s", dir, name) < 0) {
		input = NULL;
	}
	CHECK(input != NULL);
	want = input ? expected_line(err, input) : NULL;
	got = input ? actual_line(input) : NULL;
	if (!want)
		t_fail(__FILE__, __LINE__, "%s: no expected text (%s)", name, err);
	else if (!got || strcmp(want, got) != 0)
		t_fail(__FILE__, __LINE__, "%s:\n    got:  %s\n    want: %s", name,
		       got ? got : "(null)", want);
	if (gen && input)
		unlink(input);
	(*cases)++;
	free(want);
	free(got);
	free(input);
	free(err);
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static bool is_input(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 5 &&
	       (strcmp(e->d_name + n - 5, ".json") == 0 || strcmp(e->d_name + n - 4, ".gen") == 0);
}

TEST(badinput_corpus)
{
	struct dirent **names;
	size_t cases = 0;
	char *dir = NULL;
	int n;

	if (asprintf(&dir, "%s/../cli/bad", t_vectors_dir) < 0)
		return;
	n = scandir(dir, &names, NULL, by_name);
	CHECK(n > 0);
	for (int i = 0; i < n; i++) {
		if (is_input(names[i]))
			check_case(dir, names[i]->d_name, &cases);
		free(names[i]);
	}
	if (n > 0)
		free(names);
	CHECK(cases >= 45);
	free(dir);
}

/* Every expected-output file belongs to an input, so no case is silently skipped. */
TEST(badinput_every_err_has_input)
{
	struct dirent **names;
	char *dir = NULL;
	int n;

	if (asprintf(&dir, "%s/../cli/bad", t_vectors_dir) < 0)
		return;
	n = scandir(dir, &names, NULL, by_name);
	for (int i = 0; i < n; i++) {
		const char *s = names[i]->d_name;
		size_t len = strlen(s);
		char *json = NULL, *gen = NULL;

		if (len > 4 && strcmp(s + len - 4, ".err") == 0 &&
		    asprintf(&json, "%s/%.*s.json", dir, (int)(len - 4), s) >= 0 &&
		    asprintf(&gen, "%s/%.*s.gen", dir, (int)(len - 4), s) >= 0 &&
		    access(json, F_OK) != 0 && access(gen, F_OK) != 0)
			t_fail(__FILE__, __LINE__, "%s has no input", s);
		free(json);
		free(gen);
		free(names[i]);
	}
	if (n > 0)
		free(names);
	free(dir);
}
