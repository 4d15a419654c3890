/* SPDX-License-Identifier: MIT */
/* Policy resolution (SPEC 3) and the workdir check of SPEC 8, against a real
 * directory tree:
 *
 *   BASE/a/link -> BASE/b/c      (so BASE/a/link/.. is BASE/b, never BASE/a)
 *   BASE/b/c/
 *   BASE/file                    (a regular file)
 *   BASE/tool                    (an executable file: searchable, not a dir)
 *   BASE/dangling -> BASE/nothing
 *   BASE/loop -> BASE/loop       (ELOOP)
 *   BASE/locked/inner/           (locked is mode 0: EACCES below it)
 */
#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"

static char base[PATH_MAX];

static char *path_in_base(const char *suffix) {
	static char buf[4][PATH_MAX + 64];
	static unsigned next;
	char *p = buf[next++ % 4];
	snprintf(p, sizeof buf[0], "%s%s", base, suffix);
	return p;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int tree_setup(void **state) {
	char tmpl[] = "/tmp/confine-test-policy-XXXXXX";
	(void)state;
	if (!mkdtemp(tmpl) || !realpath(tmpl, base))
		return -1;
	/* Searchable by everyone so the unprivileged child below can reach it. */
	if (chmod(base, 0755) < 0 || mkdir(path_in_base("/a"), 0755) < 0 ||
	    mkdir(path_in_base("/b"), 0755) < 0 || mkdir(path_in_base("/b/c"), 0755) < 0 ||
	    symlink(path_in_base("/b/c"), path_in_base("/a/link")) < 0 ||
	    symlink(path_in_base("/nothing"), path_in_base("/dangling")) < 0 ||
	    symlink(path_in_base("/loop"), path_in_base("/loop")) < 0 ||
	    mkdir(path_in_base("/locked"), 0755) < 0 ||
	    mkdir(path_in_base("/locked/inner"), 0755) < 0 || chmod(path_in_base("/locked"), 0) < 0)
		return -1;
	{
		FILE *f = fopen(path_in_base("/file"), "w");
		if (!f)
			return -1;
		fputs("not a directory\n", f);
		fclose(f);
		f = fopen(path_in_base("/tool"), "w");
		if (!f)
			return -1;
		fputs("#!/bin/sh\n", f);
		fclose(f);
		if (chmod(path_in_base("/tool"), 0755) < 0)
			return -1;
	}
	return 0;
}

static int tree_teardown(void **state) {
	(void)state;
	chmod(path_in_base("/locked"), 0755);
	return nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* ------------------------------------------------------------------------ */
/* Canonicalization of roots that exist */

typedef struct root_case {
	const char *input;    /* appended to BASE */
	const char *expected; /* appended to BASE */
} root_case;

static const root_case root_cases[] = {
	{ "", "" },
	{ "/b", "/b" },
	{ "/a/link", "/b/c" },
	/* realpath before lexical normalization: the symlink first, then "..". */
	{ "/a/link/..", "/b" },
	{ "/a/link/../", "/b" },
	{ "/a/link/../c", "/b/c" },
	{ "/a/link/../..", "" },
	{ "/a/../b", "/b" },
	{ "/b/c/../c", "/b/c" },
	/* Repeated and trailing slashes, `.` segments. */
	{ "//b///c", "/b/c" },
	{ "/b/c/", "/b/c" },
	{ "/b/c///", "/b/c" },
	{ "/./b/./c/.", "/b/c" },
	{ "/b/./c/./", "/b/c" },
	{ "/a/./link/./", "/b/c" },
};

static void test_roots_are_canonicalized(void **state) {
	static const confine_mode modes[] = { CONFINE_MODE_READ_ONLY, CONFINE_MODE_WORKSPACE_WRITE,
		                              CONFINE_MODE_DANGER_FULL_ACCESS };
	(void)state;
	for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
		for (size_t i = 0; i < sizeof root_cases / sizeof root_cases[0]; i++) {
			const char *input = path_in_base(root_cases[i].input);
			const char *expected = path_in_base(root_cases[i].expected);
			confine_policy *policy = NULL;
			confine_error err = { 0 };
			int r = confine_policy_new(modes[m], input, &policy, &err);
			if (r != 0)
				fail_msg("%s under %s: %d %s", input, confine_mode_name(modes[m]), r,
				         err.message);
			if (strcmp(policy->workspace_root, expected) != 0)
				fail_msg("%s under %s resolved to %s, expected %s", input,
				         confine_mode_name(modes[m]), policy->workspace_root, expected);
			assert_int_equal(policy->mode, modes[m]);
			confine_policy_free(policy);
		}
}

/* A leading "//" on the base itself (realpath's territory, not the table's). */
static void test_root_with_leading_double_slash(void **state) {
	char input[PATH_MAX + 2];
	confine_policy *policy = NULL;
	(void)state;
	snprintf(input, sizeof input, "/%s/", base);
	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, input, &policy, NULL), 0);
	assert_string_equal(policy->workspace_root, base);
	confine_policy_free(policy);
}

/* ------------------------------------------------------------------------ */
/* Refused roots: each error names the value */

typedef struct error_case {
	const char *input;
	bool in_base;           /* input is appended to BASE */
	confine_mode mode;
	int ret;                /* the negative errno returned */
	int sys_errno;
	const char *says;       /* a phrase the message must contain */
} error_case;

#define RO CONFINE_MODE_READ_ONLY
#define WW CONFINE_MODE_WORKSPACE_WRITE
#define DFA CONFINE_MODE_DANGER_FULL_ACCESS

static const error_case error_cases[] = {
	{ "", false, RO, -EINVAL, 0, "is empty" },
	{ "", false, WW, -EINVAL, 0, "is empty" },
	{ "", false, DFA, -EINVAL, 0, "is empty" },
	{ "relative/path", false, RO, -EINVAL, 0, "is relative" },
	{ "relative/path", false, WW, -EINVAL, 0, "is relative" },
	{ "relative/path", false, DFA, -EINVAL, 0, "is relative" },
	{ ".", false, WW, -EINVAL, 0, "is relative" },
	{ "~/project", false, WW, -EINVAL, 0, "is relative" },
	{ " /tmp", false, RO, -EINVAL, 0, "is relative" },
	{ "/missing", true, RO, -ENOENT, ENOENT, "does not exist" },
	{ "/missing", true, WW, -ENOENT, ENOENT, "does not exist" },
	{ "/missing/deeper/", true, WW, -ENOENT, ENOENT, "does not exist" },
	{ "/dangling", true, WW, -ENOENT, ENOENT, "does not exist" },
	{ "/file", true, RO, -ENOTDIR, ENOTDIR, "is not a directory" },
	{ "/file", true, WW, -ENOTDIR, ENOTDIR, "is not a directory" },
	{ "/tool", true, WW, -ENOTDIR, ENOTDIR, "is not a directory" },
	{ "/file/below", true, WW, -ENOTDIR, ENOTDIR, "is not a directory" },
	{ "/loop", true, WW, -ELOOP, ELOOP, "cannot be resolved" },
	{ "/loop", true, RO, -ELOOP, ELOOP, "cannot be resolved" },
	{ "/", false, WW, -EINVAL, 0, "danger-full-access in disguise" },
	{ "//", false, WW, -EINVAL, 0, "resolves to \"/\"" },
	{ "/.", false, WW, -EINVAL, 0, "danger-full-access in disguise" },
	{ "/a/link/../../../../../../../../../../../../../../../../../../..", true, WW, -EINVAL, 0,
	  "danger-full-access in disguise" },
};

static void test_bad_roots_are_refused_naming_the_value(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
		const error_case *c = &error_cases[i];
		const char *input = c->in_base ? path_in_base(c->input) : c->input;
		char quoted[PATH_MAX + 200];
		confine_policy *sentinel = (confine_policy *)&quoted;
		confine_policy *policy = sentinel;
		confine_error err = { 0 };
		int r = confine_policy_new(c->mode, input, &policy, &err);
		if (r != c->ret)
			fail_msg("\"%s\" under %s: returned %d, expected %d (%s)", input,
			         confine_mode_name(c->mode), r, c->ret, err.message);
		assert_ptr_equal(policy, sentinel); /* ret untouched on failure */
		assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
		assert_string_equal(err.stage, "policy");
		assert_int_equal(err.sys_errno, c->sys_errno);
		snprintf(quoted, sizeof quoted, "\"%s\"", input);
		if (!strstr(err.message, quoted) || !strstr(err.message, c->says))
			fail_msg("\"%s\": message \"%s\" should name it and say \"%s\"", input, err.message,
			         c->says);
		if (c->sys_errno && !strstr(err.message, strerror(c->sys_errno)) &&
		    c->sys_errno != ENOTDIR)
			fail_msg("\"%s\": message \"%s\" lacks strerror", input, err.message);
		/* err may be NULL. */
		assert_int_equal(confine_policy_new(c->mode, input, &policy, NULL), c->ret);
	}
}

static void test_null_root_is_refused(void **state) {
	confine_policy *policy = NULL;
	confine_error err = { 0 };
	(void)state;
	assert_int_equal(confine_policy_new(RO, NULL, &policy, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
	assert_null(policy);
	assert_int_equal(confine_policy_new(RO, "/", NULL, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);
}

/* `/` is refused only where it would grant writes everywhere. */
static void test_slash_is_fine_outside_workspace_write(void **state) {
	static const confine_mode modes[] = { RO, DFA };
	(void)state;
	for (size_t i = 0; i < 2; i++) {
		confine_policy *policy = NULL;
		assert_int_equal(confine_policy_new(modes[i], "/", &policy, NULL), 0);
		assert_string_equal(policy->workspace_root, "/");
		confine_policy_free(policy);
		assert_int_equal(confine_policy_new(modes[i], "//./", &policy, NULL), 0);
		assert_string_equal(policy->workspace_root, "/");
		confine_policy_free(policy);
	}
}

/* An unreadable parent yields EACCES from realpath. Root reads through mode
 * 0, so the check runs in a child that drops to nobody. */
static int resolve_locked_as_unprivileged(void) {
	const char *input = path_in_base("/locked/inner");
	confine_error err = { 0 };
	confine_policy *policy = NULL;
	char quoted[PATH_MAX + 8];
	if (geteuid() == 0 &&
	    (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
		return 10;
	if (confine_policy_new(WW, input, &policy, &err) != -EACCES)
		return 1;
	snprintf(quoted, sizeof quoted, "\"%s\"", input);
	if (err.code != CONFINE_E_INVALID_POLICY || err.sys_errno != EACCES ||
	    !strstr(err.message, quoted) || !strstr(err.message, "cannot be resolved") ||
	    !strstr(err.message, strerror(EACCES)))
		return 2;
	/* danger-full-access only needs the path: it is kept, lexically tidied. */
	if (confine_policy_new(DFA, input, &policy, &err) != 0)
		return 3;
	if (strcmp(policy->workspace_root, input) != 0)
		return 4;
	confine_policy_free(policy);
	return confine_workdir_usable(input) ? 5 : 0;
}

/* Runs `body` in a forked child, which may drop privileges for good, and
 * asserts it exited 0 (its nonzero status names the step that failed). */
static void assert_child_passes(int (*body)(void)) {
	pid_t pid;
	int status;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(body());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_unsearchable_root_is_refused_with_eacces(void **state) {
	(void)state;
	assert_child_passes(resolve_locked_as_unprivileged);
}

/* Modes outside the enum are refused naming the value. */
static void test_unknown_mode_values(void **state) {
	static const int bad[] = { 3, 7, -1, 1000 };
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		confine_policy *policy = NULL;
		confine_error err = { 0 };
		confine_mode mode = (confine_mode)bad[i];
		char quoted[32];
		snprintf(quoted, sizeof quoted, "\"%d\"", bad[i]);
		assert_int_equal(confine_policy_new(mode, base, &policy, &err), -EINVAL);
		assert_null(policy);
		assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
		assert_non_null(strstr(err.message, quoted));
		memset(&err, 0, sizeof err);
		assert_int_equal(confine_policy_resolve(NULL, NULL, &mode, &policy, &err), -EINVAL);
		assert_non_null(strstr(err.message, quoted));
		assert_non_null(strstr(err.message, "approved"));
	}
}

/* ------------------------------------------------------------------------ */
/* danger-full-access: the root is only the default workdir */

static const root_case loose_cases[] = {
	/* Nothing exists below BASE/missing: resolved as far as it exists, then
	 * tidied lexically. */
	{ "/missing", "/missing" },
	{ "/missing//x/./y/../z/", "/missing/x/z" },
	{ "/missing/..", "" },
	/* The existing part keeps filesystem semantics: link/.. is BASE/b. */
	{ "/a/link/../missing", "/b/missing" },
	{ "/a/link/missing/../..", "/b" },
	{ "/dangling/x", "/dangling/x" },
	{ "/file", "/file" },
};

static void test_danger_full_access_root_need_not_exist(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof loose_cases / sizeof loose_cases[0]; i++) {
		const char *input = path_in_base(loose_cases[i].input);
		const char *expected = path_in_base(loose_cases[i].expected);
		confine_policy *policy = NULL;
		confine_error err = { 0 };
		int r = confine_policy_new(DFA, input, &policy, &err);
		if (r != 0)
			fail_msg("%s: %d %s", input, r, err.message);
		if (strcmp(policy->workspace_root, expected) != 0)
			fail_msg("%s resolved to %s, expected %s", input, policy->workspace_root, expected);
		confine_policy_free(policy);
	}
	{
		/* Wholly missing outside BASE too. */
		confine_policy *policy = NULL;
		assert_int_equal(confine_policy_new(DFA, "/no-such-confine-dir//x/../y/", &policy, NULL),
		                 0);
		assert_string_equal(policy->workspace_root, "/no-such-confine-dir/y");
		confine_policy_free(policy);
	}
}

/* ------------------------------------------------------------------------ */
/* Precedence */

typedef struct precedence_case {
	const char *name;
	bool has_deployment;
	confine_mode default_mode;
	bool has_session;
	bool session_has_mode;
	confine_mode session_mode;
	bool has_approved;
	confine_mode approved;
	confine_mode expected;
} precedence_case;

static const precedence_case precedence_cases[] = {
	{ "nothing: read-only", false, RO, false, false, RO, false, RO, RO },
	{ "deployment default", true, WW, false, false, RO, false, RO, WW },
	{ "deployment default, session without a mode", true, DFA, true, false, RO, false, RO, DFA },
	{ "session mode over default", true, RO, true, true, WW, false, RO, WW },
	{ "session may narrow the default", true, WW, true, true, RO, false, RO, RO },
	{ "approved over session and default", true, RO, true, true, WW, true, DFA, DFA },
	{ "approved over default", true, WW, false, false, RO, true, DFA, DFA },
	{ "approved without deployment or session", false, RO, false, false, RO, true, WW, WW },
	{ "approved narrower than session still wins", true, DFA, true, true, WW, true, RO, RO },
};

static void test_mode_precedence(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof precedence_cases / sizeof precedence_cases[0]; i++) {
		const precedence_case *c = &precedence_cases[i];
		confine_deployment deployment = { c->default_mode, base };
		confine_session session = { base, c->session_has_mode, c->session_mode };
		confine_policy *policy = NULL;
		confine_error err = { 0 };
		int r = confine_policy_resolve(c->has_deployment ? &deployment : NULL,
		                               c->has_session ? &session : NULL,
		                               c->has_approved ? &c->approved : NULL, &policy, &err);
		if (r != 0)
			fail_msg("%s: %d %s", c->name, r, err.message);
		if (policy->mode != c->expected)
			fail_msg("%s: got %s, expected %s", c->name, confine_mode_name(policy->mode),
			         confine_mode_name(c->expected));
		confine_policy_free(policy);
	}
}

static void test_root_precedence(void **state) {
	char saved[PATH_MAX];
	confine_deployment deployment = { RO, NULL };
	confine_session session = { NULL, false, RO };
	confine_policy *policy = NULL;
	(void)state;

	/* The session's cwd outranks the deployment fallback. */
	deployment.fallback_root = path_in_base("/b");
	session.cwd = path_in_base("/a/link");
	assert_int_equal(confine_policy_resolve(&deployment, &session, NULL, &policy, NULL), 0);
	assert_string_equal(policy->workspace_root, path_in_base("/b/c"));
	confine_policy_free(policy);

	/* No session cwd: the fallback. */
	session.cwd = NULL;
	assert_int_equal(confine_policy_resolve(&deployment, &session, NULL, &policy, NULL), 0);
	assert_string_equal(policy->workspace_root, path_in_base("/b"));
	confine_policy_free(policy);

	/* Neither: the current directory, canonicalized. */
	assert_non_null(getcwd(saved, sizeof saved));
	assert_int_equal(chdir(path_in_base("/a/link")), 0);
	deployment.fallback_root = NULL;
	assert_int_equal(confine_policy_resolve(&deployment, &session, NULL, &policy, NULL), 0);
	assert_string_equal(policy->workspace_root, path_in_base("/b/c"));
	confine_policy_free(policy);
	assert_int_equal(confine_policy_resolve(NULL, NULL, NULL, &policy, NULL), 0);
	assert_string_equal(policy->workspace_root, path_in_base("/b/c"));
	assert_int_equal(policy->mode, RO);
	confine_policy_free(policy);
	assert_int_equal(chdir(saved), 0);
}

/* An empty or bad value is an error even when a lower source would do; the
 * message says which source it came from. */
static void test_bad_sources_are_named(void **state) {
	confine_deployment deployment = { RO, NULL };
	confine_session session = { "", false, RO };
	confine_policy *policy = NULL;
	confine_error err = { 0 };
	(void)state;

	deployment.fallback_root = base;
	assert_int_equal(confine_policy_resolve(&deployment, &session, NULL, &policy, &err), -EINVAL);
	assert_null(policy);
	assert_non_null(strstr(err.message, "\"\""));
	assert_non_null(strstr(err.message, "session's cwd"));

	session.cwd = NULL;
	deployment.fallback_root = "relative";
	assert_int_equal(confine_policy_resolve(&deployment, &session, NULL, &policy, &err), -EINVAL);
	assert_non_null(strstr(err.message, "\"relative\""));
	assert_non_null(strstr(err.message, "fallback root"));

	deployment.fallback_root = path_in_base("/missing");
	assert_int_equal(confine_policy_resolve(&deployment, NULL, NULL, &policy, &err), -ENOENT);
	assert_non_null(strstr(err.message, path_in_base("/missing")));
	assert_null(policy);
}

/* A current directory that was removed cannot be the root. */
static void test_removed_current_directory(void **state) {
	char saved[PATH_MAX];
	const char *doomed = path_in_base("/doomed");
	confine_policy *policy = NULL;
	confine_error err = { 0 };
	int r;
	(void)state;
	assert_non_null(getcwd(saved, sizeof saved));
	assert_int_equal(mkdir(doomed, 0755), 0);
	assert_int_equal(chdir(doomed), 0);
	assert_int_equal(rmdir(doomed), 0);
	r = confine_policy_resolve(NULL, NULL, NULL, &policy, &err);
	assert_int_equal(chdir(saved), 0);
	assert_int_equal(r, -ENOENT);
	assert_null(policy);
	assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
	assert_int_equal(err.sys_errno, ENOENT);
	assert_non_null(strstr(err.message, "current directory"));
}

/* Success leaves err alone; inputs are copied. */
static void test_success_contract(void **state) {
	confine_error err;
	char cwd[PATH_MAX + 8];
	confine_session session = { cwd, true, WW };
	confine_policy *policy = NULL;
	(void)state;
	memset(&err, 0x5a, sizeof err);
	snprintf(cwd, sizeof cwd, "%s/b", base);
	assert_int_equal(confine_policy_resolve(NULL, &session, NULL, &policy, &err), 0);
	memset(cwd, 0, sizeof cwd);
	assert_string_equal(policy->workspace_root, path_in_base("/b"));
	assert_int_equal(policy->mode, WW);
	for (size_t i = 0; i < sizeof err; i++)
		assert_int_equal(((unsigned char *)&err)[i], 0x5a);
	confine_policy_free(policy);
	confine_policy_free(NULL);
}

/* ------------------------------------------------------------------------ */
/* confine_workdir_usable */

static void test_workdir_usable(void **state) {
	(void)state;
	assert_true(confine_workdir_usable(base));
	assert_true(confine_workdir_usable(path_in_base("/b/c")));
	assert_true(confine_workdir_usable(path_in_base("/a/link"))); /* symlink to a dir */
	assert_true(confine_workdir_usable("/"));
	assert_false(confine_workdir_usable(path_in_base("/file")));
	assert_false(confine_workdir_usable(path_in_base("/tool")));
	assert_false(confine_workdir_usable(path_in_base("/missing")));
	assert_false(confine_workdir_usable(path_in_base("/dangling")));
	assert_false(confine_workdir_usable(path_in_base("/loop")));
	assert_false(confine_workdir_usable(""));
	assert_false(confine_workdir_usable(NULL));
}

static int check_usable_as_unprivileged(void) {
	if (geteuid() == 0 &&
	    (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0))
		return 10;
	if (!confine_workdir_usable(path_in_base("/b")))
		return 1; /* the control: reachable */
	if (confine_workdir_usable(path_in_base("/locked")))
		return 2; /* mode 0: not searchable */
	if (confine_workdir_usable(path_in_base("/locked/inner")))
		return 3; /* not reachable */
	return 0;
}

static void test_workdir_unsearchable(void **state) {
	(void)state;
	assert_child_passes(check_usable_as_unprivileged);
}

/* A root past the path bound is refused in the bound's text before it is
 * resolved, under every mode (red team F6: ENAMETOOLONG's words). */
static void test_root_past_the_bound(void **state) {
	static const confine_mode modes[] = { CONFINE_MODE_READ_ONLY, CONFINE_MODE_WORKSPACE_WRITE,
		                              CONFINE_MODE_DANGER_FULL_ACCESS };
	char root[5002];
	(void)state;
	memset(root, 'x', sizeof root - 1);
	root[0] = '/';
	root[sizeof root - 1] = '\0';
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		confine_policy *policy = NULL;
		confine_error err = { 0 };
		assert_true(confine_policy_new(modes[i], root, &policy, &err) < 0);
		assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
		if (strncmp(err.message, "workspace root \"/xxx", 20) != 0 ||
		    !strstr(err.message, "...\" is 5001 bytes long, more than the 4095 a path may hold"))
			fail_msg("mode %d: \"%s\"", (int)modes[i], err.message);
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_past_the_bound),
		cmocka_unit_test(test_roots_are_canonicalized),
		cmocka_unit_test(test_root_with_leading_double_slash),
		cmocka_unit_test(test_bad_roots_are_refused_naming_the_value),
		cmocka_unit_test(test_null_root_is_refused),
		cmocka_unit_test(test_slash_is_fine_outside_workspace_write),
		cmocka_unit_test(test_unsearchable_root_is_refused_with_eacces),
		cmocka_unit_test(test_unknown_mode_values),
		cmocka_unit_test(test_danger_full_access_root_need_not_exist),
		cmocka_unit_test(test_mode_precedence),
		cmocka_unit_test(test_root_precedence),
		cmocka_unit_test(test_bad_sources_are_named),
		cmocka_unit_test(test_removed_current_directory),
		cmocka_unit_test(test_success_contract),
		cmocka_unit_test(test_workdir_usable),
		cmocka_unit_test(test_workdir_unsearchable),
	};
	return cmocka_run_group_tests(tests, tree_setup, tree_teardown);
}
