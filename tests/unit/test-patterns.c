/* SPDX-License-Identifier: MIT */
/* denyRead and protectedPaths patterns (doc/SPEC.md 15): gitignore's
 * matching rules as a table, and the expansion into literal paths on a
 * real tree, bounded and never covering a root. */
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
#include "patterns.h"
#include "policy-internal.h"
#include "testlib.h"

static const struct {
	const char *pattern, *path;
	bool is_dir, want;
} match_cases[] = {
	/* No slash: any depth. */
	{ ".env", ".env", false, true },
	{ ".env", "a/b/.env", false, true },
	{ ".env", "a/.envrc", false, false },
	{ "*.pem", "key.pem", false, true },
	{ "*.pem", "deep/er/key.pem", false, true },
	{ "*.pem", "key.pem.bak", false, false },
	/* `**` spans directories, zero or more. */
	{ "**/.env", ".env", false, true },
	{ "**/.env", "x/y/z/.env", false, true },
	{ "a/**/b", "a/b", false, true },
	{ "a/**/b", "a/x/y/b", false, true },
	{ "a/**/b", "c/a/x/b", false, false },
	/* A slash inside anchors at the root. */
	{ "secrets/*.txt", "secrets/a.txt", false, true },
	{ "secrets/*.txt", "x/secrets/a.txt", false, false },
	{ "/top.key", "top.key", false, true },
	{ "/top.key", "sub/top.key", false, false },
	/* `*` and `?` never cross a slash. */
	{ "a*b", "a/b", false, false },
	{ "a?b", "a/b", false, false },
	{ "a?b", "axb", false, true },
	{ "[ab].txt", "b.txt", false, true },
	/* A trailing slash: directories only. */
	{ "cache/", "cache", true, true },
	{ "cache/", "cache", false, false },
	{ "cache/", "x/cache", true, true },
	/* Dot files are matched by `*`, as in gitignore. */
	{ "*", ".hidden", false, true },
};

static void test_matching_follows_gitignore(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof match_cases / sizeof match_cases[0]; i++)
		if (cf_pattern_match(match_cases[i].pattern, match_cases[i].path,
		                     match_cases[i].is_dir) != match_cases[i].want)
			fail_msg("pattern \"%s\" on \"%s\"%s: want %s", match_cases[i].pattern,
			         match_cases[i].path, match_cases[i].is_dir ? " (dir)" : "",
			         match_cases[i].want ? "a match" : "no match");
}

static void test_what_is_a_pattern(void **state) {
	(void)state;
	assert_true(cf_entry_is_pattern("denyRead", "**/.env"));
	assert_true(cf_entry_is_pattern("denyRead", ".env")); /* relative: every root */
	assert_false(cf_entry_is_pattern("denyRead", "/ws/.env"));
	assert_true(cf_entry_is_pattern("denyRead", "/ws/*.pem"));
	assert_false(cf_entry_is_pattern("protectedPaths", ".git/config")); /* keeps its meaning */
	assert_true(cf_entry_is_pattern("protectedPaths", "conf/*.yaml"));
}

static char root[2048], other[2048];

static void touch(const char *base, const char *rel) {
	char path[4096], *slash;
	snprintf(path, sizeof path, "%s/%s", base, rel);
	for (slash = path + strlen(base) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		(void)mkdir(path, 0755);
		*slash = '/';
	}
	free(tl_write_file(base, rel, "x", 0600));
}

static bool holds(char *const *list, const char *base, const char *rel) {
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", base, rel);
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], path) == 0)
			return true;
	return false;
}

static void test_expansion_on_a_tree(void **state) {
	char *deny[] = { (char *)"**/.env", (char *)"*.pem", NULL, NULL };
	char *roots[] = { other, NULL };
	char literal[4096];
	confine_policy policy = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = root,
		                  .writable_roots = roots, .deny_read = deny };
	confine_policy *out = NULL;
	cf_pattern_report *reports = NULL;
	size_t n = 0;
	(void)state;
	assert_int_equal(tl_make_workdir("patterns", root, sizeof root), 0);
	assert_int_equal(tl_make_workdir("patterns-other", other, sizeof other), 0);
	touch(root, ".env");
	touch(root, "a/b/c/.env");
	touch(root, "a/.envrc");
	touch(root, "keys/x.pem");
	touch(other, "cache/.env");
	snprintf(literal, sizeof literal, "%s/a/.envrc", root);
	deny[2] = literal; /* a literal stays as it is */
	assert_int_equal(cf_patterns_expand(&policy, &out, &reports, &n), 0);
	assert_non_null(out);
	assert_int_equal(n, 2);
	assert_string_equal(reports[0].pattern, "**/.env");
	assert_int_equal(reports[0].matches, 3); /* two under the workspace, one under the root */
	assert_false(reports[0].incomplete);
	assert_int_equal(reports[1].matches, 1);
	assert_true(holds(out->deny_read, root, ".env"));
	assert_true(holds(out->deny_read, root, "a/b/c/.env"));
	assert_true(holds(out->deny_read, other, "cache/.env"));
	assert_true(holds(out->deny_read, root, "keys/x.pem"));
	assert_true(holds(out->deny_read, root, "a/.envrc"));
	assert_int_equal(cf_strv_length((const char *const *)out->deny_read), 5);
	cf_pattern_reports_free(reports, n);
	cf_policy_clear(out);
	free(out);

	/* A pattern never takes a root: `*` under the workspace would match the
	 * writable root if it lay inside it. */
	{
		char inner[4096];
		char *wide[] = { (char *)"*", NULL };
		char *inner_roots[] = { inner, NULL };
		confine_policy p2 = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = root,
			              .writable_roots = inner_roots, .deny_read = wide };
		snprintf(inner, sizeof inner, "%s/a", root);
		assert_int_equal(cf_patterns_expand(&p2, &out, &reports, &n), 0);
		assert_false(holds(out->deny_read, root, "a"));
		assert_true(holds(out->deny_read, root, "keys"));
		cf_pattern_reports_free(reports, n);
		cf_policy_clear(out);
		free(out);
	}
	/* No pattern: nothing to do. */
	{
		char *none[] = { literal, NULL };
		confine_policy p3 = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = root,
			              .deny_read = none };
		assert_int_equal(cf_patterns_expand(&p3, &out, &reports, &n), 0);
		assert_null(out);
		assert_int_equal(n, 0);
	}
	tl_remove_tree(root);
	tl_remove_tree(other);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matching_follows_gitignore),
		cmocka_unit_test(test_what_is_a_pattern),
		cmocka_unit_test(test_expansion_on_a_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
