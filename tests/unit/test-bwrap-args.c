/* SPDX-License-Identifier: MIT */
/*
 * bubblewrap's argument bound (doc/SPEC.md 14, "bwrap's argument bound"):
 * what each nested repository costs in the argv the library spawns on the
 * bwrap rung (so a regression in token cost fails here), and the refusal
 * past bwrap's 9000 arguments, exact, instead of bwrap's own exit and a
 * silent move to another rung.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "confine.h"
#include "local/policy-check.h"
#include "policy-internal.h"
#include "rungs/rung.h"
#include "testlib.h"
#include "rungs/bwrap/bwrap.h"

/* Measured 2026-12-03 (127; 130 after home28c): a nested repository with
 * .git/{config,hooks,info}
 * costs 6 pin tokens, 9 for its three read-only binds, 10 for their
 * identities and 3 per placeholder for what runs later (its entries at a
 * repository's root that do not exist yet, and git's missing files). */
#define TOKENS_PER_REPO_MAX 130

static char base[256];

static int setup(void **state) {
	(void)state;
	return tl_make_workdir("bwrap-args", base, sizeof base);
}

static int teardown(void **state) {
	(void)state;
	return tl_remove_tree(base);
}

static void make_repo(const char *dir) {
	char p[PATH_MAX];
	const char *const sub[] = { "", "/.git", "/.git/hooks", "/.git/info" };
	for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
		snprintf(p, sizeof p, "%s%s", dir, sub[i]);
		assert_int_equal(mkdir(p, 0755), 0);
	}
	snprintf(p, sizeof p, "%s/.git/config", dir);
	free(tl_write_file("/", p + 1, "[core]\n", 0644));
	snprintf(p, sizeof p, "%s/.git/HEAD", dir);
	free(tl_write_file("/", p + 1, "ref: refs/heads/main\n", 0644));
}

/* bwrap's tokens and the launcher's identity pairs, as the spawner builds
 * them (placeholders for what does not exist yet). */
static size_t tokens_for(const char *ws) {
	confine_policy *p = NULL;
	char **tokens = NULL, **ids = NULL;
	size_t n;
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, ws, &p, NULL), 0);
	assert_int_equal(cf_profile_bwrap_layered(p, CF_PROFILE_PLACEHOLDERS, &tokens, &ids), 0);
	n = cf_strv_length((const char *const *)tokens) + cf_strv_length((const char *const *)ids);
	confine_strv_free(tokens);
	confine_strv_free(ids);
	confine_policy_free(p);
	return n;
}

static void test_tokens_per_nested_repo(void **state) {
	char ws[PATH_MAX / 2], sub[PATH_MAX];
	size_t one, two, three;
	(void)state;
	snprintf(ws, sizeof ws, "%s/ws", base);
	make_repo(ws);
	snprintf(sub, sizeof sub, "%s/a", ws);
	make_repo(sub);
	one = tokens_for(ws);
	snprintf(sub, sizeof sub, "%s/b", ws);
	make_repo(sub);
	two = tokens_for(ws);
	snprintf(sub, sizeof sub, "%s/c", ws);
	make_repo(sub);
	three = tokens_for(ws);
	print_message("tokens: %zu, %zu, %zu (per nested repository: %zu)\n", one, two, three,
	              two - one);
	/* each repository costs the same, and no more than measured */
	assert_int_equal(three - two, two - one);
	assert_true(two - one <= TOKENS_PER_REPO_MAX);
	assert_true(two - one > 0);
}

static confine_argv *argv_of(size_t after_argv0) {
	confine_argv *c = calloc(1, sizeof *c);
	assert_non_null(c);
	assert_int_equal(cf_strv_push(&c->argv, "/usr/bin/bwrap"), 0);
	for (size_t i = 0; i + 2 < after_argv0; i += 3) {
		assert_int_equal(cf_strv_push(&c->argv, "--ro-bind"), 0);
		assert_int_equal(cf_strv_push(&c->argv, "/x"), 0);
		assert_int_equal(cf_strv_push(&c->argv, "/x"), 0);
	}
	while (cf_strv_length((const char *const *)c->argv) < after_argv0 + 1)
		assert_int_equal(cf_strv_push(&c->argv, "true"), 0);
	c->argc = cf_strv_length((const char *const *)c->argv);
	return c;
}

static void test_bound_refused_exactly(void **state) {
	const cf_runner_def *bwrap = cf_runner_find(CONFINE_RUNNER_BWRAP);
	const cf_runner_def *landlock = cf_runner_find(CONFINE_RUNNER_LANDLOCK);
	confine_argv *at = argv_of(CF_BWRAP_ARGS_MAX), *past = argv_of(CF_BWRAP_ARGS_MAX + 1);
	confine_error err;
	(void)state;
	assert_non_null(bwrap);
	memset(&err, 0, sizeof err);
	assert_int_equal(cf_policy_check_args_max(bwrap, at, &err), 0);
	/* another rung has no such bound */
	assert_int_equal(cf_policy_check_args_max(landlock, past, &err), 0);
	assert_int_equal(cf_policy_check_args_max(bwrap, past, &err), -E2BIG);
	assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
	assert_string_equal(
		err.message,
		"the policy cannot be held on the bubblewrap rung (\"bwrap\"): bubblewrap refuses "
		"more than 9000 arguments and this run needs 9001 (3000 read-only binds of protected "
		"paths and placeholders, 0 writable binds and pins, 0 identity checks); unprotect "
		"entries (--unprotect), narrow the workspace, or pin --runner landlock (nothing was "
		"run)");
	confine_argv_free(at);
	confine_argv_free(past);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tokens_per_nested_repo, setup, teardown),
		cmocka_unit_test(test_bound_refused_exactly),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
