/* SPDX-License-Identifier: MIT */
/* test_env.c - the command's environment: Codex's steps where they overlap, and sbxrun's. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sbx.h"
#include "t.h"

static const char *const vars[] = {
	"PATH=/usr/bin", "HOME=/home/u", "API_KEY=k", "GH_TOKEN=t", "aws_secret=s",
	"AWS_REGION=r",	 "LANG=C.UTF-8", "EMPTY=",    "X=a=b",	    NULL,
};

/* env as "A B C" (names in order), for compact checks. */
static char *names_of(const struct sbx_strv *env)
{
	size_t len = 1;
	char *s;

	for (size_t i = 0; i < env->n; i++)
		len += strlen(env->v[i]) + 1;
	s = calloc(1, len);
	for (size_t i = 0; s && i < env->n; i++) {
		if (i)
			strcat(s, " ");
		strncat(s, env->v[i], sbx_env_name_len(env->v[i]));
	}
	return s;
}

static void check_env(const struct sbx_env_policy *pol, bool network, const char *want)
{
	struct sbx_strv env;
	char *got;

	CHECK_INT(sbx_env_build(vars, pol, network, &env), 0);
	CHECK(env.v && env.v[env.n] == NULL); /* usable as a process's environment */
	got = names_of(&env);
	CHECK_STR(got, want);
	free(got);
	sbx_strv_clear(&env);
}

TEST(env_patterns_are_codex_wildcards_without_case)
{
	CHECK(sbx_env_pattern_match("*KEY*", "API_KEY", 7));
	CHECK(sbx_env_pattern_match("*key*", "API_KEY", 7));
	CHECK(sbx_env_pattern_match("*_TOKEN", "gh_token", 8));
	CHECK(sbx_env_pattern_match("AWS_*", "AWS_", 4));
	CHECK(sbx_env_pattern_match("?", "A", 1));
	CHECK(!sbx_env_pattern_match("?", "AB", 2));
	CHECK(!sbx_env_pattern_match("AWS_*", "XAWS_A", 6));
	CHECK(sbx_env_pattern_match("*", "", 0));
	CHECK(sbx_env_pattern_match("A*B*C", "AxxBxxBxC", 9));
	CHECK(!sbx_env_pattern_match("A*B*C", "AxxBxxBx", 8));
	/* Only the name counts: len stops before "=VALUE". */
	CHECK(!sbx_env_pattern_match("PATH", "PATH=/bin", 5));
	CHECK(sbx_env_pattern_match("PATH", "PATH=/bin", 4));
	/* Many stars backtrack in bounded time. */
	CHECK(!sbx_env_pattern_match("*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 30));
}

TEST(env_name_len)
{
	CHECK_INT(sbx_env_name_len("A=b"), 1);
	CHECK_INT(sbx_env_name_len("X=a=b"), 1);
	CHECK_INT(sbx_env_name_len("=C:=C:\\x"), 3); /* Windows' per-drive directories */
	CHECK_INT(sbx_env_name_len("NOVALUE"), 7);
	CHECK_INT(sbx_env_check_assignment("A=1"), 0);
	CHECK_INT(sbx_env_check_assignment("A="), 0);
	CHECK_INT(sbx_env_check_assignment("=1"), -EINVAL);
	CHECK_INT(sbx_env_check_assignment("A"), -EINVAL);
}

TEST(env_default_passes_everything_through)
{
	struct sbx_env_policy pol = {0};

	check_env(&pol, false, "PATH HOME API_KEY GH_TOKEN aws_secret AWS_REGION LANG EMPTY X");
}

TEST(env_clear_keep_deny_set_in_codex_order)
{
	const char *keep[] = {"path", "*TOKEN*", "X"}, *deny[] = {"gh_*"};
	const char *set[] = {"NEW=1", "PATH=/opt/bin", "GH_TOKEN=mine"};
	struct sbx_env_policy pol = {.clear = true};
	struct sbx_strv env;

	/* Nothing inherited, nothing set: empty, and still NULL-terminated. */
	check_env(&pol, false, "");
	/* keep (case ignored) chooses what is inherited; deny beats keep; set beats deny. */
	pol = (struct sbx_env_policy){.keep = keep, .n_keep = 3, .deny = deny, .n_deny = 1};
	check_env(&pol, false, "PATH X");
	pol.set = set;
	pol.n_set = 3;
	CHECK_INT(sbx_env_build(vars, &pol, false, &env), 0);
	CHECK_STR(sbx_env_lookup(&env, "PATH", false), "/opt/bin");
	CHECK_STR(sbx_env_lookup(&env, "GH_TOKEN", false), "mine");
	CHECK_STR(sbx_env_lookup(&env, "NEW", false), "1");
	CHECK_STR(sbx_env_lookup(&env, "X", false), "a=b");
	CHECK(sbx_env_lookup(&env, "HOME", false) == NULL);
	CHECK(sbx_env_lookup(&env, "path", false) == NULL);
	CHECK_STR(sbx_env_lookup(&env, "path", true), "/opt/bin");
	CHECK_INT(env.n, 4);
	sbx_strv_clear(&env);
}

TEST(env_deny_secrets_are_codex_default_excludes)
{
	const char *deny[] = {"AWS_*"};
	struct sbx_env_policy pol = {.deny_secrets = true};

	check_env(&pol, false, "PATH HOME AWS_REGION LANG EMPTY X");
	pol.deny = deny;
	pol.n_deny = 1;
	check_env(&pol, false, "PATH HOME LANG EMPTY X");
}

TEST(env_offline_only_with_the_network_restricted)
{
	const char *set[] = {"PIP_NO_INDEX=0"};
	struct sbx_env_policy pol = {.clear = true, .offline = true};
	struct sbx_strv env;

	check_env(&pol, false, "npm_config_offline PIP_NO_INDEX CARGO_NET_OFFLINE GOPROXY");
	check_env(&pol, true, "");
	/* An explicit assignment comes last, and wins. */
	pol.set = set;
	pol.n_set = 1;
	CHECK_INT(sbx_env_build(vars, &pol, false, &env), 0);
	CHECK_STR(sbx_env_lookup(&env, "PIP_NO_INDEX", false), "0");
	sbx_strv_clear(&env);
}

TEST(env_set_replaces_by_name_and_case_on_windows)
{
	const char *dup[] = {"Path=C:\\w", "PATH=x", "A=1", NULL};
	const char *set[] = {"PATH=C:\\new"};
	struct sbx_env_policy pol = {.set = set, .n_set = 1, .fold_case = true};
	struct sbx_strv env;

	CHECK_INT(sbx_env_build(dup, &pol, false, &env), 0);
	CHECK_INT(env.n, 2);
	CHECK_STR(env.v[0], "PATH=C:\\new");
	CHECK_STR(env.v[1], "A=1");
	sbx_strv_clear(&env);
	/* A malformed assignment is an error, never half applied. */
	set[0] = "NOEQUALS";
	CHECK_INT(sbx_env_build(dup, &pol, false, &env), -EINVAL);
	CHECK(env.v == NULL && env.n == 0);
}

TEST(env_names_sorted_once)
{
	const char *extra[] = {"SBXRUN_SANDBOX", "A"};
	struct sbx_strv env = {0}, names;

	sbx_strv_push_owned(&env, strdup("B=1"));
	sbx_strv_push_owned(&env, strdup("A=2"));
	sbx_strv_push_owned(&env, strdup("B=3"));
	CHECK_INT(sbx_env_names(&env, extra, 2, &names), 0);
	sbx_strv_clear(&env);
	CHECK_INT(names.n, 3);
	if (names.n == 3) {
		CHECK_STR(names.v[0], "A");
		CHECK_STR(names.v[1], "B");
		CHECK_STR(names.v[2], "SBXRUN_SANDBOX");
	}
	sbx_strv_clear(&names);
}
