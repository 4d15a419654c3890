/* SPDX-License-Identifier: MIT */
/* The provider seam: what confine_confine() lets through to a backend, and
 * what it refuses before any backend sees it. */
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
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"

/* A backend that records how often it was reached and returns a fixed wrap. */
typedef struct fake_backend {
	int calls;
	int destroyed;
	confine_mode last_mode;
	char last_root[PATH_MAX];
} fake_backend;

static int fake_confine(void *data, const char *const *argv, const confine_policy *policy,
                        confine_argv **ret, confine_error *err) {
	fake_backend *f = data;
	confine_argv *c = calloc(1, sizeof *c);
	(void)err;
	f->calls++;
	f->last_mode = policy->mode;
	snprintf(f->last_root, sizeof f->last_root, "%s", policy->workspace_root);
	if (!c)
		return -ENOMEM;
	c->argv = calloc(3, sizeof *c->argv);
	c->argv[0] = strdup("/fake/runner");
	c->argv[1] = strdup(argv[0]);
	c->argc = 2;
	c->denial_signatures = calloc(1, sizeof *c->denial_signatures);
	*ret = c;
	return 0;
}

static void fake_destroy(void *data) {
	((fake_backend *)data)->destroyed++;
}

static const confine_provider_ops fake_ops = { .confine = fake_confine,
                                               .destroy = fake_destroy };

static char dir[PATH_MAX];   /* canonical, existing */
static char link_path[PATH_MAX + 16];

static int setup(void **state) {
	char tmpl[] = "/tmp/confine-provider-XXXXXX";
	char *made = mkdtemp(tmpl);
	char *canonical;
	(void)state;
	if (!made)
		return -1;
	canonical = realpath(made, NULL);
	snprintf(dir, sizeof dir, "%s", canonical);
	free(canonical);
	snprintf(link_path, sizeof link_path, "%s/link", dir);
	return symlink(dir, link_path);
}

static int teardown(void **state) {
	(void)state;
	unlink(link_path);
	return rmdir(dir);
}

static const char *const argv_true[] = { "true", NULL };

static void expect_refused(confine_provider *p, fake_backend *f, confine_mode mode,
                           const char *root, confine_error_code code, const char *needle) {
	confine_policy policy = { .mode = mode, .workspace_root = (char *)root };
	confine_argv *out = (confine_argv *)0x1;
	confine_error err = { 0 };
	int calls = f->calls;
	assert_true(confine_confine(p, argv_true, &policy, &out, &err) < 0);
	assert_ptr_equal(out, (confine_argv *)0x1); /* untouched */
	assert_int_equal(err.code, code);
	assert_non_null(strstr(err.message, needle));
	assert_int_equal(f->calls, calls); /* the backend never saw it */
}

static void test_a_canonical_policy_reaches_the_backend(void **state) {
	fake_backend f = { 0 };
	confine_provider *p;
	confine_policy policy = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = dir };
	confine_argv *out = NULL;
	(void)state;
	assert_int_equal(confine_provider_new(&fake_ops, &f, &p, NULL), 0);
	assert_int_equal(confine_confine(p, argv_true, &policy, &out, NULL), 0);
	assert_int_equal(f.calls, 1);
	assert_int_equal(f.last_mode, CONFINE_MODE_WORKSPACE_WRITE);
	assert_string_equal(f.last_root, dir);
	assert_string_equal(out->argv[0], "/fake/runner");
	confine_argv_free(out);
	confine_provider_free(p);
	assert_int_equal(f.destroyed, 1);
}

static void test_danger_full_access_never_reaches_the_backend(void **state) {
	fake_backend f = { 0 };
	confine_provider *p;
	(void)state;
	assert_int_equal(confine_provider_new(&fake_ops, &f, &p, NULL), 0);
	expect_refused(p, &f, CONFINE_MODE_DANGER_FULL_ACCESS, dir, CONFINE_E_INVALID_ARGUMENT,
	               "danger-full-access");
	confine_provider_free(p);
}

static void test_bad_argv_is_refused(void **state) {
	fake_backend f = { 0 };
	confine_provider *p;
	confine_policy policy = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = dir };
	const char *empty[] = { NULL };
	const char *empty_name[] = { "", NULL };
	confine_argv *out = NULL;
	confine_error err;
	(void)state;
	assert_int_equal(confine_provider_new(&fake_ops, &f, &p, NULL), 0);
	assert_int_equal(confine_confine(p, NULL, &policy, &out, &err), -EINVAL);
	assert_int_equal(confine_confine(p, empty, &policy, &out, &err), -EINVAL);
	assert_int_equal(confine_confine(p, empty_name, &policy, &out, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);
	assert_int_equal(f.calls, 0);
	confine_provider_free(p);
}

/* A policy built by hand cannot widen the grant: the root must be the
 * canonical directory, and "/" is refused under workspace-write. */
static void test_hand_built_policies_are_checked(void **state) {
	fake_backend f = { 0 };
	confine_provider *p;
	char dotdot[PATH_MAX + 8], trailing[PATH_MAX + 8], missing[PATH_MAX + 16];
	(void)state;
	snprintf(dotdot, sizeof dotdot, "%s/..", dir);
	snprintf(trailing, sizeof trailing, "%s/", dir);
	snprintf(missing, sizeof missing, "%s/missing", dir);
	assert_int_equal(confine_provider_new(&fake_ops, &f, &p, NULL), 0);
	expect_refused(p, &f, CONFINE_MODE_WORKSPACE_WRITE, "/", CONFINE_E_INVALID_POLICY,
	               "\"/\" is refused under workspace-write");
	expect_refused(p, &f, CONFINE_MODE_WORKSPACE_WRITE, "/tmp/..", CONFINE_E_INVALID_POLICY,
	               "\"/tmp/..\" is not canonical");
	expect_refused(p, &f, CONFINE_MODE_WORKSPACE_WRITE, dotdot, CONFINE_E_INVALID_POLICY,
	               "is not canonical");
	expect_refused(p, &f, CONFINE_MODE_WORKSPACE_WRITE, trailing, CONFINE_E_INVALID_POLICY,
	               "is not canonical");
	expect_refused(p, &f, CONFINE_MODE_WORKSPACE_WRITE, link_path, CONFINE_E_INVALID_POLICY,
	               "is not canonical");
	expect_refused(p, &f, CONFINE_MODE_READ_ONLY, missing, CONFINE_E_INVALID_POLICY,
	               "cannot be resolved");
	expect_refused(p, &f, CONFINE_MODE_READ_ONLY, "relative", CONFINE_E_INVALID_POLICY,
	               "not an absolute path");
	expect_refused(p, &f, CONFINE_MODE_READ_ONLY, "", CONFINE_E_INVALID_POLICY,
	               "not an absolute path");
	/* "/" is a fine root for read-only: nothing is writable either way. */
	{
		confine_policy ro_root = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
		confine_argv *out = NULL;
		assert_int_equal(confine_confine(p, argv_true, &ro_root, &out, NULL), 0);
		confine_argv_free(out);
	}
	confine_provider_free(p);
}

static void test_a_provider_needs_a_confine_operation(void **state) {
	fake_backend f = { 0 };
	confine_provider_ops no_confine = { .destroy = fake_destroy };
	confine_provider *p = (confine_provider *)0x1;
	confine_error err;
	(void)state;
	assert_int_equal(confine_provider_new(&no_confine, &f, &p, &err), -EINVAL);
	assert_ptr_equal(p, (confine_provider *)0x1);
	assert_int_equal(f.destroyed, 1); /* ownership of data was taken: released */
	confine_provider_free(NULL);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_canonical_policy_reaches_the_backend),
		cmocka_unit_test(test_danger_full_access_never_reaches_the_backend),
		cmocka_unit_test(test_bad_argv_is_refused),
		cmocka_unit_test(test_hand_built_policies_are_checked),
		cmocka_unit_test(test_a_provider_needs_a_confine_operation),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
