/* SPDX-License-Identifier: MIT */
/*
 * The bash consumer (SPEC 9) over a fake provider: what it hands the
 * provider, where it runs, how a runner failure, a denial and a timeout come
 * out, and its limits. The fake provider wraps the command in fake runner
 * scripts whose facts each test chooses.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"
#include "spawn-fixtures.h"

struct fake {
	pthread_mutex_t lock;
	char *runner;                        /* argv[0] of every wrap */
	const struct fx_facts *facts[2];     /* by confined mode */
	bool refuse;                         /* confine() fails closed */
	int calls;
	char **last_argv;
	confine_mode last_mode;
	char *last_root;
};

static int fake_confine(void *data, const char *const *argv, const confine_policy *policy,
                        confine_argv **ret, confine_error *err) {
	struct fake *f = data;
	pthread_mutex_lock(&f->lock);
	f->calls++;
	for (char **p = f->last_argv; p && *p; p++)
		free(*p);
	free(f->last_argv);
	f->last_argv = fx_strv(argv);
	f->last_mode = policy->mode;
	free(f->last_root);
	f->last_root = strdup(policy->workspace_root);
	pthread_mutex_unlock(&f->lock);
	if (f->refuse)
		return confine_error_sandbox_unavailable(err, policy->mode, NULL);
	*ret = fx_confined(f->runner, f->facts[policy->mode], policy->mode, policy->workspace_root,
	                   argv);
	/* A real provider copies the whole policy: the spawner removes the
	 * run's temp dir (made by the consumer in both confined modes) from
	 * the copy's temp_dir, so the fake carries it too. */
	(*ret)->policy.private_temp = policy->private_temp;
	if (policy->temp_dir)
		(*ret)->policy.temp_dir = strdup(policy->temp_dir);
	return 0;
}

static void fake_destroy(void *data) {
	(void)data; /* owned by the test */
}

static char *tmp;
static char *root;         /* canonical workspace root inside tmp */
static struct fake fake;
static confine_provider *provider;

static void use_runner(const char *name, const char *script, mode_t mode) {
	free(fake.runner);
	if (script)
		fake.runner = tl_write_file(tmp, name, script, mode);
	else if (asprintf(&fake.runner, "%s/%s", tmp, name) < 0)
		fake.runner = NULL;
	assert_non_null(fake.runner);
}

static int setup(void **state) {
	static const confine_provider_ops ops = { .confine = fake_confine, .destroy = fake_destroy };
	char *dir;
	(void)state;
	tmp = fx_tmpdir();
	if (!tmp || asprintf(&dir, "%s/work", tmp) < 0 || mkdir(dir, 0700) < 0)
		return -1;
	root = realpath(dir, NULL);
	free(dir);
	memset(&fake, 0, sizeof fake);
	pthread_mutex_init(&fake.lock, NULL);
	fake.facts[CONFINE_MODE_READ_ONLY] = &fx_fake_facts;
	fake.facts[CONFINE_MODE_WORKSPACE_WRITE] = &fx_fake_facts;
	fake.runner = tl_write_file(tmp, "runner", fx_passthrough_script, 0755);
	return confine_provider_new(&ops, &fake, &provider, NULL);
}

static int teardown(void **state) {
	(void)state;
	confine_provider_free(provider);
	provider = NULL;
	for (char **p = fake.last_argv; p && *p; p++)
		free(*p);
	free(fake.last_argv);
	free(fake.last_root);
	free(fake.runner);
	pthread_mutex_destroy(&fake.lock);
	fx_rmrf(tmp);
	free(tmp);
	free(root);
	return 0;
}

static confine_policy *policy_for(confine_mode mode) {
	confine_policy *p = NULL;
	confine_error err = { 0 };
	if (confine_policy_new(mode, root, &p, &err) < 0)
		fail_msg("policy: %s", err.message);
	return p;
}

/* Runs COMMAND under `mode` and expects it to start. */
static confine_bash_result *bash(confine_mode mode, const char *command) {
	confine_policy *policy = policy_for(mode);
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	confine_error err = { 0 };
	o.command = command;
	o.policy = policy;
	if (confine_bash_run(provider, &o, &r, &err) < 0)
		fail_msg("bash run failed: %s", err.message);
	confine_policy_free(policy);
	return r;
}

/* Runs COMMAND under read-only and expects it not to start. */
static int bash_fails(const char *command, const char *workdir, confine_error *err) {
	confine_policy *policy = policy_for(CONFINE_MODE_READ_ONLY);
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	int ret;
	o.command = command;
	o.policy = policy;
	o.workdir = workdir;
	ret = confine_bash_run(provider, &o, &r, err);
	assert_null(r);
	confine_policy_free(policy);
	return ret;
}

static char *render(const confine_bash_result *r) {
	char *text = confine_bash_render(r);
	assert_non_null(text);
	return text;
}

static bool ends_with(const char *s, const char *suffix) {
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* ------------------------------------------------------------------------ */

static void test_provider_receives_exactly_bash_c_command_and_the_policy(void **state) {
	confine_bash_result *r = bash(CONFINE_MODE_WORKSPACE_WRITE, "echo hi; echo 'a b' >&2");
	char *text;
	(void)state;
	assert_int_equal(fake.calls, 1);
	assert_non_null(fake.last_argv);
	assert_string_equal(fake.last_argv[0], "bash");
	assert_string_equal(fake.last_argv[1], "-c");
	assert_string_equal(fake.last_argv[2], "echo hi; echo 'a b' >&2");
	assert_null(fake.last_argv[3]);
	assert_int_equal(fake.last_mode, CONFINE_MODE_WORKSPACE_WRITE);
	assert_string_equal(fake.last_root, root);

	assert_int_equal(r->error.code, CONFINE_OK);
	assert_true(r->outcome->confined);
	assert_int_equal(r->outcome->mode, CONFINE_MODE_WORKSPACE_WRITE);
	assert_int_equal(r->outcome->runner, CONFINE_RUNNER_RUNNER_COMMAND);
	assert_int_equal(r->outcome->exit_code, 0);
	text = render(r);
	assert_string_equal(text, "hi\n[stderr]\na b\n");
	free(text);
	confine_bash_result_free(r);
}

static void test_default_workdir_is_the_workspace_root(void **state) {
	confine_bash_result *r = bash(CONFINE_MODE_READ_ONLY, "pwd");
	char *want = NULL;
	(void)state;
	assert_true(asprintf(&want, "%s\n", root) > 0);
	assert_string_equal(r->outcome->stdout_data, want);
	confine_bash_result_free(r);
	free(want);
}

static void test_explicit_workdir_is_used(void **state) {
	confine_policy *policy = policy_for(CONFINE_MODE_READ_ONLY);
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	char *want = NULL;
	(void)state;
	o.command = "pwd";
	o.policy = policy;
	o.workdir = tmp;
	assert_int_equal(confine_bash_run(provider, &o, &r, NULL), 0);
	assert_true(asprintf(&want, "%s\n", tmp) > 0);
	assert_string_equal(r->outcome->stdout_data, want);
	confine_bash_result_free(r);
	confine_policy_free(policy);
	free(want);
}

static void test_provider_is_consulted_on_every_call(void **state) {
	(void)state;
	for (int i = 1; i <= 3; i++) {
		confine_bash_result *r = bash(CONFINE_MODE_READ_ONLY, "true");
		assert_int_equal(fake.calls, i);
		confine_bash_result_free(r);
	}
}

static void test_danger_full_access_never_touches_the_provider(void **state) {
	confine_policy *policy = policy_for(CONFINE_MODE_DANGER_FULL_ACCESS);
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	char *want = NULL;
	(void)state;
	o.command = "echo \"$0\"; pwd";
	o.policy = policy;
	/* no provider at all */
	assert_int_equal(confine_bash_run(NULL, &o, &r, NULL), 0);
	assert_true(asprintf(&want, "bash\n%s\n", root) > 0);
	assert_string_equal(r->outcome->stdout_data, want);
	assert_false(r->outcome->confined);
	assert_int_equal(r->outcome->mode, CONFINE_MODE_DANGER_FULL_ACCESS);
	confine_bash_result_free(r);
	/* with a provider: still never called */
	assert_int_equal(confine_bash_run(provider, &o, &r, NULL), 0);
	assert_int_equal(fake.calls, 0);
	confine_bash_result_free(r);
	confine_policy_free(policy);
	free(want);
}

static void test_timeout_bounds(void **state) {
	confine_policy *policy = policy_for(CONFINE_MODE_READ_ONLY);
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	confine_error err = { 0 };
	(void)state;
	o.command = "true";
	o.policy = policy;
	o.timeout_ms = CONFINE_MAX_TIMEOUT_MS + 1;
	assert_int_equal(confine_bash_run(provider, &o, &r, &err), -EINVAL);
	assert_null(r);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);
	assert_non_null(strstr(err.message, "600001"));
	assert_int_equal(fake.calls, 0);

	o.timeout_ms = CONFINE_MAX_TIMEOUT_MS;
	assert_int_equal(confine_bash_run(provider, &o, &r, NULL), 0);
	assert_int_equal(r->timeout_ms, 600000);
	confine_bash_result_free(r);

	o.timeout_ms = 0;
	assert_int_equal(confine_bash_run(provider, &o, &r, NULL), 0);
	assert_int_equal(r->timeout_ms, CONFINE_DEFAULT_TIMEOUT_MS);
	assert_false(r->outcome->timed_out);
	confine_bash_result_free(r);
	confine_policy_free(policy);
}

static void test_output_is_capped_per_stream(void **state) {
	confine_policy *policy = policy_for(CONFINE_MODE_READ_ONLY);
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	(void)state;
	o.command = "head -c 70000 /dev/zero | tr '\\0' o; head -c 70000 /dev/zero | tr '\\0' e >&2";
	o.policy = policy;
	assert_int_equal(confine_bash_run(provider, &o, &r, NULL), 0);
	assert_int_equal(r->outcome->stdout_len, 64000);
	assert_true(r->outcome->stdout_truncated);
	assert_int_equal(r->outcome->stderr_len, 64000);
	assert_true(r->outcome->stderr_truncated);
	confine_bash_result_free(r);

	o.max_output = 10;
	o.command = "echo 0123456789abcdef";
	assert_int_equal(confine_bash_run(provider, &o, &r, NULL), 0);
	assert_string_equal(r->outcome->stdout_data, "0123456789");
	assert_true(r->outcome->stdout_truncated);
	confine_bash_result_free(r);
	confine_policy_free(policy);
}

static void test_runner_refusal_is_sandbox_unavailable_with_the_line(void **state) {
	confine_bash_result *r;
	char *text;
	(void)state;
	use_runner("refusing", fx_refusing_script, 0755);
	r = bash(CONFINE_MODE_READ_ONLY, "echo ran");
	assert_int_equal(r->error.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_non_null(strstr(r->error.message, "sandbox mode \"read-only\" is requested"));
	assert_true(ends_with(r->error.message, " Runner failure: fake-runner: ruleset rejected"));
	assert_true(r->outcome->runner_failed);
	assert_false(r->outcome->denied);
	text = render(r);
	assert_string_equal(text, r->error.message);
	free(text);
	confine_bash_result_free(r);
}

static void test_runner_permission_denied_line_is_a_runner_failure_not_a_denial(void **state) {
	confine_bash_result *r;
	(void)state;
	use_runner("refusing-eacces",
	           "#!/bin/sh\necho 'fake-runner: cannot open /etc/x: Permission denied' >&2\nexit 1\n",
	           0755);
	r = bash(CONFINE_MODE_READ_ONLY, "true");
	assert_int_equal(r->error.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_true(ends_with(r->error.message,
	                      " Runner failure: fake-runner: cannot open /etc/x: Permission denied"));
	assert_true(r->outcome->runner_failed);
	assert_false(r->outcome->denied);
	confine_bash_result_free(r);
}

static void expect_unavailable_naming_runner(void) {
	confine_error err = { 0 };
	char suffix[4300];
	const char *why;
	assert_int_equal(bash_fails("true", NULL, &err), -EHOSTUNREACH);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	why = err.sys_errno == EACCES ? "Permission denied" : "No such file or directory";
	snprintf(suffix, sizeof suffix, " Runner failure: cannot execute %s: %s", fake.runner, why);
	if (!ends_with(err.message, suffix))
		fail_msg("got: %s", err.message);
}

static void test_missing_runner_is_sandbox_unavailable_naming_it(void **state) {
	(void)state;
	use_runner("missing-runner", NULL, 0);
	expect_unavailable_naming_runner();
}

static void test_runner_mode_0644_is_sandbox_unavailable_naming_it(void **state) {
	(void)state;
	use_runner("runner-0644", fx_passthrough_script, 0644);
	expect_unavailable_naming_runner();
}

static void test_runner_with_missing_interpreter_is_sandbox_unavailable(void **state) {
	(void)state;
	/* valgrind cannot survive this execve failure: see spawn-fixtures.h. */
	if (fx_ran_in_fresh_copy(__func__))
		return;
	use_runner("runner-shebang", "#!/nonexistent/sh\nexec \"$@\"\n", 0755);
	expect_unavailable_naming_runner();
}

/* The same evidence through the real local provider with a configured
 * runnerCommand (the operator's runner, skipped probes). */
static confine_provider *configured(const char *runner) {
	const char *command[] = { runner, NULL };
	const char *signatures[] = { "fake-runner: ", NULL };
	confine_local_config config;
	confine_provider *p = NULL;
	confine_error err = { 0 };
	confine_local_config_init(&config);
	config.runner_command = command;
	config.runner_failure_signatures = signatures;
	if (confine_local_provider_new(&config, &p, &err) < 0)
		fail_msg("local provider: %s", err.message);
	return p;
}

struct configured_case {
	const char *name;
	const char *script; /* NULL: missing */
	mode_t mode;
	const char *detail; /* NULL: "cannot execute <path>: <why>" */
	const char *why;
};

static void check_configured_runners(const struct configured_case *cases, size_t count) {
	confine_policy *policy = policy_for(CONFINE_MODE_READ_ONLY);
	for (size_t i = 0; i < count; i++) {
		confine_bash_options o = { 0 };
		confine_bash_result *r = NULL;
		confine_error err = { 0 };
		confine_provider *p;
		char *path = NULL, suffix[4300];
		const char *message;
		int rc;
		if (cases[i].script)
			path = tl_write_file(tmp, cases[i].name, cases[i].script, cases[i].mode);
		else
			assert_true(asprintf(&path, "%s/%s", tmp, cases[i].name) > 0);
		p = configured(path);
		o.command = "echo ran";
		o.policy = policy;
		rc = confine_bash_run(p, &o, &r, &err);
		if (cases[i].detail) {
			/* it started: the refusal is in the result */
			assert_int_equal(rc, 0);
			message = r->error.message;
			assert_int_equal(r->error.code, CONFINE_E_SANDBOX_UNAVAILABLE);
			assert_true(r->outcome->runner_failed);
			snprintf(suffix, sizeof suffix, " Runner failure: %s", cases[i].detail);
		} else {
			assert_int_equal(rc, -EHOSTUNREACH);
			assert_null(r);
			message = err.message;
			assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
			snprintf(suffix, sizeof suffix, " Runner failure: cannot execute %s: %s", path,
			         cases[i].why);
		}
		if (!ends_with(message, suffix))
			fail_msg("case %s: got %s", cases[i].name, message);
		confine_bash_result_free(r);
		confine_provider_free(p);
		free(path);
	}
	confine_policy_free(policy);
}

static void test_configured_runner_command_evidence(void **state) {
	static const struct configured_case cases[] = {
		{ "refusing", fx_refusing_script, 0755, "fake-runner: ruleset rejected", NULL },
		{ "missing-runner", NULL, 0, NULL, "No such file or directory" },
		{ "runner-0644", fx_passthrough_script, 0644, NULL, "Permission denied" },
	};
	(void)state;
	check_configured_runners(cases, sizeof cases / sizeof cases[0]);
}

static void test_configured_runner_with_missing_interpreter(void **state) {
	static const struct configured_case shebang = {
		"runner-shebang", "#!/nonexistent/sh\n", 0755, NULL, "No such file or directory"
	};
	(void)state;
	/* valgrind cannot survive this execve failure: see spawn-fixtures.h. */
	if (fx_ran_in_fresh_copy(__func__))
		return;
	check_configured_runners(&shebang, 1);
}

static void test_missing_workdir_is_an_ordinary_start_error(void **state) {
	static const char *const runners[] = { NULL, "missing-runner" };
	(void)state;
	for (size_t i = 0; i < 2; i++) {
		confine_error err = { 0 };
		if (runners[i])
			use_runner(runners[i], NULL, 0);
		assert_int_equal(bash_fails("true", "/nonexistent/confine-wd", &err), -ENOENT);
		assert_int_equal(err.code, CONFINE_E_SPAWN);
		assert_string_equal(err.message, "cannot change to working directory "
		                                 "\"/nonexistent/confine-wd\": No such file or "
		                                 "directory");
	}
}

static void test_malformed_runner_is_never_sandbox_unavailable(void **state) {
	confine_error err = { 0 };
	(void)state;
	use_runner("runner-garbage", "garbage without an interpreter line\n", 0755);
	assert_int_equal(bash_fails("true", NULL, &err), -ENOEXEC);
	assert_int_equal(err.code, CONFINE_E_SPAWN);
	assert_null(strstr(err.message, "Runner failure"));
}

static void test_provider_refusal_runs_nothing(void **state) {
	confine_error err = { 0 };
	char *marker = NULL, *command = NULL;
	(void)state;
	fake.refuse = true;
	assert_true(asprintf(&marker, "%s/ran", tmp) > 0);
	assert_true(asprintf(&command, "touch %s", marker) > 0);
	assert_int_equal(bash_fails(command, NULL, &err), -EHOSTUNREACH);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_int_equal(access(marker, F_OK), -1);
	free(marker);
	free(command);
}

static void test_partial_notice_with_ordinary_exits(void **state) {
	static const int exits[] = { 0, 1, 2, 125, 126, 127 };
	(void)state;
	fake.facts[CONFINE_MODE_READ_ONLY] = &fx_landlock_facts;
	use_runner("partial", fx_partial_script, 0755);
	for (size_t i = 0; i < sizeof exits / sizeof exits[0]; i++) {
		char command[32], want[256];
		confine_bash_result *r;
		char *text;
		snprintf(command, sizeof command, "exit %d", exits[i]);
		r = bash(CONFINE_MODE_READ_ONLY, command);
		assert_int_equal(r->error.code, CONFINE_OK);
		assert_false(r->outcome->runner_failed);
		assert_false(r->outcome->denied);
		assert_int_equal(r->outcome->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
		assert_int_equal(r->outcome->exit_code, exits[i]);
		/* stderr is never rewritten: the notice stays visible */
		if (exits[i])
			snprintf(want, sizeof want, "[stderr]\n" FX_LANDLOCK_NOTICE "\n[exit code: %d]",
			         exits[i]);
		else
			snprintf(want, sizeof want, "[stderr]\n" FX_LANDLOCK_NOTICE "\n");
		text = render(r);
		assert_string_equal(text, want);
		free(text);
		confine_bash_result_free(r);
	}
}

static void test_partial_notice_with_child_permission_denied_is_denied(void **state) {
	confine_bash_result *r;
	char *text;
	(void)state;
	fake.facts[CONFINE_MODE_READ_ONLY] = &fx_landlock_facts;
	use_runner("partial", fx_partial_script, 0755);
	r = bash(CONFINE_MODE_READ_ONLY, "echo 'child: Permission denied' >&2; exit 1");
	assert_int_equal(r->error.code, CONFINE_OK);
	assert_true(r->outcome->denied);
	text = render(r);
	assert_string_equal(text, "[stderr]\n" FX_LANDLOCK_NOTICE "\nchild: Permission denied\n"
	                          "[sandbox: file access denied under read-only mode]\n"
	                          "[exit code: 1]");
	free(text);
	confine_bash_result_free(r);
}

static void test_timeout_kills_the_tree(void **state) {
	confine_policy *policy = policy_for(CONFINE_MODE_READ_ONLY);
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	long long start = tl_now_ms();
	char *text;
	pid_t pgid;
	(void)state;
	/* The passthrough runner execs: bash is the group leader. The bound
	 * below only proves the timeout fired (the tree sleeps 1000 s): its
	 * margin is wide on purpose. */
	o.command = "echo $$; sleep 1000 & sleep 1000";
	o.policy = policy;
	o.timeout_ms = 300;
	assert_int_equal(confine_bash_run(provider, &o, &r, NULL), 0);
	assert_true(tl_now_ms() - start < 60000);
	assert_true(r->outcome->timed_out);
	pgid = (pid_t)atoi(r->outcome->stdout_data);
	assert_true(pgid > 1);
	assert_true(tl_group_gone_within(pgid, TL_GONE_BOUND_MS));
	text = render(r);
	{
		char want[128];
		snprintf(want, sizeof want, "%d\n[timed out after 300ms]\n[killed by signal: SIGTERM]",
		         (int)pgid);
		assert_string_equal(text, want);
	}
	free(text);
	confine_bash_result_free(r);
	confine_policy_free(policy);
}

static void test_stdin_is_empty(void **state) {
	confine_bash_result *r = bash(CONFINE_MODE_READ_ONLY, "cat; echo done");
	(void)state;
	assert_string_equal(r->outcome->stdout_data, "done\n");
	confine_bash_result_free(r);
}

static void test_environment_is_passed(void **state) {
	confine_policy *policy = policy_for(CONFINE_MODE_READ_ONLY);
	const char *envp[] = { "GREETING=hello", "PATH=/usr/local/bin:/usr/bin:/bin", NULL };
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	(void)state;
	o.command = "echo $GREETING";
	o.policy = policy;
	o.envp = envp;
	assert_int_equal(confine_bash_run(provider, &o, &r, NULL), 0);
	assert_string_equal(r->outcome->stdout_data, "hello\n");
	confine_bash_result_free(r);
	confine_policy_free(policy);
}

struct overlap_arg {
	confine_mode mode;
	confine_bash_result *result;
};

static void *overlap_thread(void *data) {
	struct overlap_arg *a = data;
	confine_policy *policy = NULL;
	confine_bash_options o = { 0 };
	if (confine_policy_new(a->mode, root, &policy, NULL) < 0)
		return NULL;
	/* Both print bwrap's denial text, then meet: each leaves its mark and
	 * waits (bounded) for the other's, so "met" proves they overlapped
	 * without timing them. */
	{
		static char command[2][1024];
		int me = a->mode == CONFINE_MODE_READ_ONLY ? 0 : 1;
		snprintf(command[me], sizeof command[me],
		         "echo 'x: Read-only file system' >&2; : > '%s/mark-%d'; i=0; "
		         "while [ ! -e '%s/mark-%d' ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done; "
		         "[ -e '%s/mark-%d' ] && echo met; exit 1",
		         root, me, root, 1 - me, root, 1 - me);
		o.command = command[me];
	}
	o.policy = policy;
	if (confine_bash_run(provider, &o, &a->result, NULL) < 0)
		a->result = NULL;
	confine_policy_free(policy);
	return NULL;
}

static void test_overlapping_runs_under_different_modes_keep_their_facts(void **state) {
	struct overlap_arg ro = { CONFINE_MODE_READ_ONLY, NULL };
	struct overlap_arg ww = { CONFINE_MODE_WORKSPACE_WRITE, NULL };
	pthread_t a, b;
	(void)state;
	fake.facts[CONFINE_MODE_READ_ONLY] = &fx_bwrap_facts;
	fake.facts[CONFINE_MODE_WORKSPACE_WRITE] = &fx_landlock_facts;
	assert_int_equal(pthread_create(&a, NULL, overlap_thread, &ro), 0);
	assert_int_equal(pthread_create(&b, NULL, overlap_thread, &ww), 0);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	assert_non_null(ro.result);
	assert_non_null(ww.result);
	/* they overlapped: each saw the other's mark while it ran */
	assert_string_equal(ro.result->outcome->stdout_data, "met\n");
	assert_string_equal(ww.result->outcome->stdout_data, "met\n");
	assert_int_equal(fake.calls, 2);
	assert_true(ro.result->outcome->denied);
	assert_int_equal(ro.result->outcome->mode, CONFINE_MODE_READ_ONLY);
	assert_int_equal(ro.result->outcome->runner, CONFINE_RUNNER_BWRAP);
	assert_false(ww.result->outcome->denied);
	assert_int_equal(ww.result->outcome->mode, CONFINE_MODE_WORKSPACE_WRITE);
	assert_int_equal(ww.result->outcome->runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(ww.result->outcome->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
	confine_bash_result_free(ro.result);
	confine_bash_result_free(ww.result);
}

static void test_invalid_input_names_the_problem(void **state) {
	confine_policy *policy = policy_for(CONFINE_MODE_READ_ONLY);
	confine_bash_options o = { 0 };
	confine_bash_result *r = NULL;
	confine_error err = { 0 };
	(void)state;
	assert_int_equal(confine_bash_run(provider, NULL, &r, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);
	o.policy = policy;
	assert_int_equal(confine_bash_run(provider, &o, &r, &err), -EINVAL);
	assert_non_null(strstr(err.message, "command"));
	o.command = "true";
	o.policy = NULL;
	assert_int_equal(confine_bash_run(provider, &o, &r, &err), -EINVAL);
	assert_non_null(strstr(err.message, "policy"));
	o.policy = policy;
	assert_int_equal(confine_bash_run(NULL, &o, &r, &err), -EINVAL);
	assert_non_null(strstr(err.message, "provider"));
	assert_null(r);
	assert_int_equal(fake.calls, 0);
	confine_bash_result_free(NULL);
	confine_policy_free(policy);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv) {
	const struct CMUnitTest tests[] = {
		T(test_provider_receives_exactly_bash_c_command_and_the_policy),
		T(test_default_workdir_is_the_workspace_root),
		T(test_explicit_workdir_is_used),
		T(test_provider_is_consulted_on_every_call),
		T(test_danger_full_access_never_touches_the_provider),
		T(test_timeout_bounds),
		T(test_output_is_capped_per_stream),
		T(test_runner_refusal_is_sandbox_unavailable_with_the_line),
		T(test_runner_permission_denied_line_is_a_runner_failure_not_a_denial),
		T(test_missing_runner_is_sandbox_unavailable_naming_it),
		T(test_runner_mode_0644_is_sandbox_unavailable_naming_it),
		T(test_runner_with_missing_interpreter_is_sandbox_unavailable),
		T(test_configured_runner_command_evidence),
		T(test_configured_runner_with_missing_interpreter),
		T(test_missing_workdir_is_an_ordinary_start_error),
		T(test_malformed_runner_is_never_sandbox_unavailable),
		T(test_provider_refusal_runs_nothing),
		T(test_partial_notice_with_ordinary_exits),
		T(test_partial_notice_with_child_permission_denied_is_denied),
		T(test_timeout_kills_the_tree),
		T(test_stdin_is_empty),
		T(test_environment_is_passed),
		T(test_overlapping_runs_under_different_modes_keep_their_facts),
		T(test_invalid_input_names_the_problem),
	};
	return fx_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
