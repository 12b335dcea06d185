/* SPDX-License-Identifier: MIT */
/*
 * env.c - the environment the command sees (sbxrun(1), THE ENVIRONMENT): sbxrun's own,
 * narrowed by --env-clear, --env-keep, --env-deny and --env-deny-secrets, then assigned to by
 * --env-offline and --env-set.
 *
 * The steps and the patterns are those of Codex's shell_environment_policy where the two
 * overlap: a pattern is a name with `*` (any run of characters, none included) and `?` (one
 * character), matched without regard to ASCII case; excludes come before assignments, so an
 * assignment always reaches the command. One difference: Codex applies include_only last, after
 * its assignments, which can then be dropped again; here --env-keep chooses what is inherited,
 * before anything is assigned, so every --env-set reaches the command.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"

/* Codex's default excludes (ignore_default_excludes = false): secrets by their usual names. */
static const char *const secret_patterns[] = {"*KEY*", "*SECRET*", "*TOKEN*"};

/*
 * What package managers read to stay off the network, each measured against its own retries
 * under a restricted network: npm ci waits 71 s (EAI_AGAIN retried with back-off), pip 8 s,
 * cargo 12 s; with these each fails, or works from its cache, at once.
 */
static const char *const offline_vars[] = {
	"npm_config_offline=true", /* npm: the cache only ("only-if-cached") */
	"PIP_NO_INDEX=1",	   /* pip: no package index, only --find-links */
	"CARGO_NET_OFFLINE=true",  /* cargo: as --offline */
	"GOPROXY=off",		   /* go: no module download from anywhere */
};

static char fold(char c, bool on)
{
	return on && c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/*
 * Iterative wildcard match with one back-track point (the last `*`): linear in practice and
 * never worse than quadratic, whatever the pattern.
 */
static bool match(const char *pat, const char *name, size_t len, bool fold_case)
{
	const char *star = NULL;
	size_t i = 0, star_i = 0;

	while (i < len) {
		if (*pat == '*') {
			star = pat++;
			star_i = i;
		} else if (*pat &&
			   (*pat == '?' || fold(*pat, fold_case) == fold(name[i], fold_case))) {
			pat++;
			i++;
		} else if (star) {
			pat = star + 1;
			i = ++star_i;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return !*pat;
}

bool sbx_env_pattern_match(const char *pattern, const char *name, size_t len)
{
	return match(pattern, name, len, true);
}

/* The length of the name in "NAME=VALUE"; a leading '=' belongs to the name (Windows "=C:"). */
size_t sbx_env_name_len(const char *var)
{
	const char *eq = strchr(var[0] == '=' ? var + 1 : var, '=');

	return eq ? (size_t)(eq - var) : strlen(var);
}

static bool any_match(const char *const *pats, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (sbx_env_pattern_match(pats[i], name, len))
			return true;
	return false;
}

static bool same_name(const char *a, size_t la, const char *b, size_t lb, bool fold_case)
{
	if (la != lb)
		return false;
	for (size_t i = 0; i < la; i++)
		if (fold(a[i], fold_case) != fold(b[i], fold_case))
			return false;
	return true;
}

/* Sets "NAME=VALUE" in env, replacing a variable of the same name (and its duplicates). */
static int assign(struct sbx_strv *env, const char *var, bool fold_case)
{
	size_t len = sbx_env_name_len(var), k = 0;
	char *copy = strdup(var);
	bool placed = false;

	if (!copy)
		return -ENOMEM;
	for (size_t i = 0; i < env->n; i++) {
		if (!same_name(env->v[i], sbx_env_name_len(env->v[i]), var, len, fold_case)) {
			env->v[k++] = env->v[i];
		} else if (!placed) {
			free(env->v[i]);
			env->v[k++] = copy;
			placed = true;
		} else {
			free(env->v[i]);
		}
	}
	env->n = k;
	if (placed)
		return 0;
	return sbx_strv_push_owned(env, copy);
}

int sbx_env_check_assignment(const char *var)
{
	size_t len = sbx_env_name_len(var);

	return len > 0 && var[len] == '=' ? 0 : -EINVAL;
}

int sbx_env_build(const char *const *environ_in, const struct sbx_env_policy *pol, bool network,
		  struct sbx_strv *out)
{
	bool filter = pol->clear || pol->n_keep;
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; !r && environ_in && environ_in[i]; i++) {
		const char *v = environ_in[i];
		size_t len = sbx_env_name_len(v);

		if (filter && !any_match(pol->keep, pol->n_keep, v, len))
			continue;
		if (any_match(pol->deny, pol->n_deny, v, len))
			continue;
		if (pol->deny_secrets &&
		    any_match(secret_patterns, sizeof(secret_patterns) / sizeof(secret_patterns[0]),
			      v, len))
			continue;
		r = sbx_strv_push_owned(out, strdup(v));
	}
	for (size_t i = 0;
	     !r && pol->offline && !network && i < sizeof(offline_vars) / sizeof(offline_vars[0]);
	     i++)
		r = assign(out, offline_vars[i], pol->fold_case);
	for (size_t i = 0; !r && i < pol->n_set; i++)
		r = sbx_env_check_assignment(pol->set[i])
			    ? -EINVAL
			    : assign(out, pol->set[i], pol->fold_case);
	/* NULL-terminated, so that it can become a process's environment as it is. */
	if (!r)
		r = sbx_strv_terminate(out);
	if (r)
		sbx_strv_clear(out);
	return r;
}

const char *sbx_env_lookup(const struct sbx_strv *env, const char *name, bool fold_case)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (same_name(env->v[i], sbx_env_name_len(env->v[i]), name, len, fold_case))
			return env->v[i][len] == '=' ? env->v[i] + len + 1 : "";
	return NULL;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sbx_env_names(const struct sbx_strv *env, const char *const *extra, size_t n_extra,
		  struct sbx_strv *names)
{
	size_t k = 0;
	int r = 0;

	memset(names, 0, sizeof(*names));
	for (size_t i = 0; !r && i < env->n; i++)
		r = sbx_strv_push_owned(names, strndup(env->v[i], sbx_env_name_len(env->v[i])));
	for (size_t i = 0; !r && i < n_extra; i++)
		r = sbx_strv_push_owned(names, strdup(extra[i]));
	if (r) {
		sbx_strv_clear(names);
		return r;
	}
	if (!names->n)
		return 0;
	qsort(names->v, names->n, sizeof(*names->v), name_cmp);
	for (size_t i = 0; i < names->n; i++) {
		if (k && strcmp(names->v[k - 1], names->v[i]) == 0)
			free(names->v[i]);
		else
			names->v[k++] = names->v[i];
	}
	names->n = k;
	return 0;
}
