/* SPDX-License-Identifier: MIT */
/*
 * One call, one look (profiles/plan-memo.c, call-scope.h): inside a call's
 * scope a repeated plan request is the first answer; a request that differs
 * in any policy field a plan reads, or comes outside the scope, looks at the
 * filesystem anew. The look is observed through a file made between two
 * requests: a fresh plan sees `.envrc` exist, a kept one does not.
 */
#include <errno.h>
#include <fcntl.h>
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

#include "call-scope.h"
#include "confine.h"
#include "later.h"
#include "policy-internal.h"
#include "profiles/plan.h"
#include "testlib.h"

static char base[256];

static const char *at(const char *suffix) {
	static char buf[8][PATH_MAX];
	static unsigned next;
	char *p = buf[next++ % 8];
	snprintf(p, sizeof buf[0], "%s/%s", base, suffix);
	return p;
}

static char *saved_home;

static int fresh(void **state) {
	(void)state;
	if (tl_make_workdir("plan-memo", base, sizeof base) < 0)
		return -1;
	/* a home of its own outside the roots, so only the root's entries count */
	free(saved_home);
	saved_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	if (mkdir(at("home"), 0755) < 0)
		return -1;
	setenv("HOME", at("home"), 1);
	unsetenv("XDG_CONFIG_HOME");
	return mkdir(at("ws"), 0755) == 0 && mkdir(at("ws/.git"), 0755) == 0 &&
	                       mkdir(at("ws/.git/hooks"), 0755) == 0 && mkdir(at("other"), 0755) == 0
	               ? 0
	               : -1;
}

static int cleanup(void **state) {
	(void)state;
	if (saved_home)
		setenv("HOME", saved_home, 1);
	else
		unsetenv("HOME");
	return tl_remove_tree(base);
}

static void touch(const char *path) {
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
}

/* -1: `.envrc` is not in the plan; 0: held as missing (a placeholder);
 * 1: held, existing. */
static int envrc_state(const cf_plan *plan) {
	for (size_t i = 0; i < plan->n_protected; i++)
		if (strcmp(plan->protected_paths[i].path, at("ws/.envrc")) == 0)
			return plan->protected_paths[i].exists ? 1 : 0;
	return -1;
}

static confine_policy *ws_policy(void) {
	confine_policy *p = NULL;
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, at("ws"), &p, NULL), 0);
	return p;
}

static int plan_state(const confine_policy *p, unsigned flags) {
	cf_plan plan;
	int state;
	assert_int_equal(cf_plan_make(p, flags, &plan), 0);
	state = envrc_state(&plan);
	cf_plan_clear(&plan);
	return state;
}

static void test_outside_a_scope_every_plan_looks(void **state) {
	confine_policy *p = ws_policy();
	(void)state;
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 0);
	touch(at("ws/.envrc"));
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 1);
	confine_policy_free(p);
}

static void test_one_call_one_look(void **state) {
	confine_policy *p = ws_policy();
	(void)state;
	cf_call_open();
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 0);
	touch(at("ws/.envrc"));
	/* the same request in the same call: the first answer */
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 0);
	/* nested scopes are the outer one */
	cf_call_open();
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 0);
	cf_call_close();
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 0);
	/* other flags: another look */
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP), 1);
	cf_call_close();
	/* the call is over: nothing kept */
	assert_false(cf_call_is_open());
	assert_int_equal(unlink(at("ws/.envrc")), 0);
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 0);
	confine_policy_free(p);
}

/* Each field a plan reads, changed: a request the kept answer cannot
 * serve. */
typedef void (*change_fn)(confine_policy *p);

static void change_mode(confine_policy *p) {
	p->mode = CONFINE_MODE_READ_ONLY;
}
static void change_root(confine_policy *p) {
	free(p->workspace_root);
	assert_non_null((p->workspace_root = realpath(at("other"), NULL)));
	assert_int_equal(confine_policy_add_writable_root(p, at("ws"), NULL), 0);
}
static void change_writable(confine_policy *p) {
	assert_int_equal(confine_policy_add_writable_root(p, at("other"), NULL), 0);
}
static void change_protected(confine_policy *p) {
	assert_int_equal(confine_policy_add_protected_path(p, "src", NULL), 0);
}
static void change_deny(confine_policy *p) {
	assert_int_equal(confine_policy_add_deny_read(p, at("other"), NULL), 0);
}
static void change_unprotect(confine_policy *p) {
	assert_int_equal(confine_policy_add_unprotect(p, ".bashrc", NULL), 0);
}
static void change_defaults(confine_policy *p) {
	p->default_protections = false;
}
static void change_stage(confine_policy *p) {
	free(p->stage_dir);
	assert_non_null((p->stage_dir = strdup(at("stage"))));
}

static void test_every_field_is_in_the_key(void **state) {
	static const struct {
		const char *what;
		change_fn change;
		int expect; /* what a fresh look answers */
	} changes[] = {
		{ "mode", change_mode, -1 },
		{ "workspace root", change_root, 1 },
		{ "writable roots", change_writable, 1 },
		{ "protected paths", change_protected, 1 },
		{ "deny read", change_deny, 1 },
		{ "unprotect", change_unprotect, 1 },
		{ "default protections", change_defaults, -1 },
		{ "stage", change_stage, 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
		confine_policy *p = ws_policy();
		(void)unlink(at("ws/.envrc"));
		cf_call_open();
		assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 0);
		touch(at("ws/.envrc"));
		changes[i].change(p);
		if (plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS) != changes[i].expect)
			fail_msg("a changed %s got the kept plan", changes[i].what);
		cf_call_close();
		confine_policy_free(p);
	}
}

static bool same_strv(char *const *a, char *const *b) {
	size_t n = cf_strv_length((const char *const *)a);
	if (n != cf_strv_length((const char *const *)b))
		return false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(a[i], b[i]) != 0)
			return false;
	return true;
}

/* A plan without flags, served from one made with CF_PLAN_BWRAP, is what a
 * fresh plan without flags is. */
static void test_plain_from_a_bwrap_plan(void **state) {
	confine_policy *p = ws_policy();
	cf_plan kept, fresh_plan;
	(void)state;
	touch(at("ws/.envrc"));
	assert_int_equal(confine_policy_add_deny_read(p, at("other"), NULL), 0);
	assert_int_equal(confine_policy_add_protected_path(p, "src", NULL), 0);
	cf_call_open();
	assert_int_equal(plan_state(p, CF_PLAN_BWRAP | CF_PLAN_PLACEHOLDERS), 1);
	assert_int_equal(cf_plan_make(p, 0, &kept), 0);
	cf_call_close();
	assert_int_equal(cf_plan_make(p, 0, &fresh_plan), 0);
	assert_true(same_strv(kept.writable, fresh_plan.writable));
	assert_true(same_strv(kept.protect_all, fresh_plan.protect_all));
	assert_true(same_strv(kept.deny, fresh_plan.deny));
	assert_int_equal(kept.n_deny, fresh_plan.n_deny);
	for (size_t i = 0; i < kept.n_deny; i++)
		assert_int_equal(kept.deny_is_dir[i], fresh_plan.deny_is_dir[i]);
	assert_int_equal(kept.defaults_apply, fresh_plan.defaults_apply);
	assert_int_equal(kept.n_protected, 0);
	assert_null(kept.protected_paths);
	assert_null(kept.pins);
	assert_null(kept.defaults_reason);
	assert_int_equal(kept.defaults_unprotected, fresh_plan.defaults_unprotected);
	assert_int_equal(kept.explicit_unprotected, fresh_plan.explicit_unprotected);
	cf_plan_clear(&kept);
	cf_plan_clear(&fresh_plan);
	confine_policy_free(p);
}

/* A home entry's resolution is kept for the call too (later-home.c): a
 * link made in the call is seen by the next call. */
static void test_resolutions_last_one_call(void **state) {
	char out[PATH_MAX];
	(void)state;
	cf_call_open();
	assert_true(cf_later_resolve(at("ws/.bashrc"), out, sizeof out));
	assert_string_equal(out, at("ws/.bashrc"));
	assert_int_equal(symlink(at("other/bashrc"), at("ws/.bashrc")), 0);
	assert_true(cf_later_resolve(at("ws/.bashrc"), out, sizeof out));
	assert_string_equal(out, at("ws/.bashrc"));
	cf_call_close();
	assert_true(cf_later_resolve(at("ws/.bashrc"), out, sizeof out));
	assert_string_equal(out, at("other/bashrc"));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_outside_a_scope_every_plan_looks, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_one_call_one_look, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_every_field_is_in_the_key, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_plain_from_a_bwrap_plan, fresh, cleanup),
		cmocka_unit_test_setup_teardown(test_resolutions_last_one_call, fresh, cleanup),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	free(saved_home);
	return r;
}
