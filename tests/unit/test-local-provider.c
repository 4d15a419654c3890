/* SPDX-License-Identifier: MIT */
/* The local provider (SPEC 4, 6) with its real probes, run against fake
 * launcher scripts: bounds, parsing, runnerCommand, validations, PATH. */
#include <errno.h>
#include <limits.h>
#include <math.h>
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
#include <dirent.h>

#include "config.h"
#include "launcher-protocol.h"
#include "rungs/landlock/forecast.h"
#include "rungs/probe.h"
#include "local/local-provider.h"
#include "rungs/probe.h"
#include "testlib.h"

static char workdir[256];

static const char *const read_only_tokens[] = {
	"--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid", "--unshare-ipc",
	"--proc", "/proc", "--ro-bind", "/proc/sys", "/proc/sys",
	"--die-with-parent", "--new-session", "--cap-drop", "ALL", NULL,
};

static const char *const true_argv[] = { "true", NULL };
static const char *const echo_argv[] = { "echo", "a b", "--", NULL };

/* Fake launchers are written to workdir; policies name workspace, a
 * directory beside them (a runner inside the workspace is refused). */
static char workspace[300];

static int setup(void **state) {
	(void)state;
	/* Not under /tmp: a Landlock launcher there is refused under
	 * workspace-write (that run could replace it). */
	if (tl_make_workdir("local-provider", workdir, sizeof workdir) < 0)
		return -1;
	snprintf(workspace, sizeof workspace, "%s/ws", workdir);
	return mkdir(workspace, 0755);
}

static int teardown(void **state) {
	(void)state;
	return tl_remove_tree(workdir);
}

/* Writes an executable shell script <workdir>/<name> running `body`; its
 * path goes to path (size bytes). */
static void write_script(char *path, size_t size, const char *name, const char *body) {
	char *text = NULL, *written;
	assert_true(asprintf(&text, "#!/bin/sh\n%s\n", body) > 0);
	written = tl_write_file(workdir, name, text, 0755);
	free(text);
	assert_non_null(written);
	assert_true(strlen(written) < size);
	memcpy(path, written, strlen(written) + 1);
	free(written);
}

static int count_lines(const char *path) {
	FILE *f = fopen(path, "r");
	int n = 0, c;
	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF)
		if (c == '\n')
			n++;
	fclose(f);
	return n;
}

/* A Linux chain whose bwrap rung cannot be found (an empty PATH dir), so the
 * ladder reaches the landlock rung and its (fake) launcher. */
static confine_provider *linux_provider(const char *launcher, double timeout_ms) {
	confine_local_config config;
	confine_provider *p = NULL;
	confine_error err = { 0 };
	char empty_dir[512];
	snprintf(empty_dir, sizeof empty_dir, "%s/empty", workdir);
	mkdir(empty_dir, 0755);
	confine_local_config_init(&config);
	config.platform = "linux";
	config.path = empty_dir;
	config.landlock_launcher = launcher;
	config.probe_timeout_ms = timeout_ms;
	assert_int_equal(confine_local_provider_new(&config, &p, &err), 0);
	return p;
}

static void assert_unavailable(const confine_error *err, const char *mode) {
	char want[1024];
	snprintf(want, sizeof want, "sandbox mode \"%s%s", mode, TL_UNAVAILABLE_TAIL);
	assert_int_equal(err->code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_string_equal(err->message, want);
}

static void test_config_defaults(void **state) {
	confine_local_config c;
	(void)state;
	memset(&c, 0xff, sizeof c);
	confine_local_config_init(&c);
	assert_true(c.probe_timeout_ms == 5000.0);
	assert_null(c.runner_command);
	assert_null(c.runner_failure_signatures);
	assert_null(c.landlock_launcher);
	assert_null(c.path);
	assert_null(c.platform);
	assert_int_equal(c.pin, CONFINE_RUNNER_NONE);
}

static void test_slow_launcher_full_within_a_generous_bound(void **state) {
	char launcher[PATH_MAX], log[PATH_MAX], body[2 * PATH_MAX];
	confine_provider *p;
	confine_verdict v;
	(void)state;
	snprintf(log, sizeof log, "%s/slow.log", workdir);
	snprintf(body, sizeof body, "echo probe >> '%s'\nsleep 1\necho 'landlock: fully enforced'",
	         log);
	write_script(launcher, sizeof launcher, "slow-launcher", body);
	p = linux_provider(launcher, 15000);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_true(v.usable);
	assert_int_equal(v.runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(v.enforcement, CONFINE_ENFORCEMENT_FULL);
	assert_string_equal(v.runner_path, launcher);
	assert_int_equal(count_lines(log), 1);
	confine_provider_free(p);
}

static void test_slow_launcher_unavailable_past_a_short_bound(void **state) {
	char launcher[PATH_MAX], pidfile[PATH_MAX], body[2 * PATH_MAX];
	confine_provider *p;
	confine_verdict v;
	confine_argv *out = NULL;
	confine_error err = { 0 };
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	long long started;
	long elapsed;
	FILE *f;
	long pid = 0;
	(void)state;
	snprintf(pidfile, sizeof pidfile, "%s/slow.pid", workdir);
	snprintf(body, sizeof body, "echo $$ > '%s'\nsleep 100\necho 'landlock: fully enforced'",
	         pidfile);
	write_script(launcher, sizeof launcher, "slow-launcher-2", body);
	p = linux_provider(launcher, 250);
	started = tl_now_ms();
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	elapsed = (long)(tl_now_ms() - started);
	assert_false(v.usable);
	/* bounded: killed at 250 ms, not waited out for the whole second */
	assert_true(elapsed >= 240);
	/* the probe and its sleeping child were killed and reaped: nothing of
	 * its process group is left */
	f = fopen(pidfile, "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &pid), 1);
	fclose(f);
	assert_true(pid > 1);
	/* the probe itself was reaped before the verdict returned */
	assert_int_equal(kill((pid_t)pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	/* its `sleep 100` was killed with the group (the wide bound only
	 * proves the kill: the sleep would outlive it by far), and the verdict
	 * is unusable: the fully-enforced line after the sleep was never read */
	assert_true(tl_group_gone_within((pid_t)pid, TL_GONE_BOUND_MS));
	/* fails closed with the exact text and no detail */
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), -EHOSTUNREACH);
	assert_unavailable(&err, "read-only");
	confine_provider_free(p);
}

static void test_launcher_exit_125_is_unavailable(void **state) {
	char launcher[PATH_MAX];
	confine_provider *p;
	confine_verdict v;
	(void)state;
	write_script(launcher, sizeof launcher, "refusing-launcher",
	             "echo 'landlock: fully enforced'\n"
	             "echo 'landlock-run: landlock is not enforced by this kernel' >&2\nexit 125");
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_false(v.usable);
	assert_int_equal(v.runner, CONFINE_RUNNER_NONE);
	confine_provider_free(p);
}

static void test_launcher_killed_by_signal_is_unavailable(void **state) {
	char launcher[PATH_MAX];
	confine_provider *p;
	confine_verdict v;
	(void)state;
	write_script(launcher, sizeof launcher, "crashing-launcher",
	             "echo 'landlock: fully enforced'\nkill -SEGV $$");
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_false(v.usable);
	confine_provider_free(p);
}

static void test_missing_launcher_is_unavailable(void **state) {
	char launcher[PATH_MAX];
	confine_provider *p;
	confine_verdict v;
	(void)state;
	snprintf(launcher, sizeof launcher, "%s/no-such-launcher", workdir);
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_false(v.usable);
	confine_provider_free(p);
}

/* The ladder's probe runs the launcher (`--probe`): one the trust rule
 * refuses is never run, and the verdict says why (doc/SPEC.md 4). */
static void test_untrusted_launcher_is_never_probed(void **state) {
	char dir[PATH_MAX], launcher[PATH_MAX], marker[PATH_MAX], body[2 * PATH_MAX];
	confine_provider *p;
	confine_verdict v;
	(void)state;
	snprintf(dir, sizeof dir, "%s/open-probe-dir", workdir);
	snprintf(marker, sizeof marker, "%s/untrusted-launcher-ran", workdir);
	assert_int_equal(mkdir(dir, 0777), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	snprintf(body, sizeof body, "#!/bin/sh\necho ran >> '%s'\necho 'landlock: fully enforced'\n",
	         marker);
	{
		char *written = tl_write_file(dir, "landlock-run", body, 0755);
		assert_non_null(written);
		snprintf(launcher, sizeof launcher, "%s", written);
		free(written);
	}
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_false(v.usable);
	assert_non_null(strstr(v.runner_failure, "is not trusted"));
	assert_int_equal(access(marker, F_OK), -1);
	confine_provider_free(p);
}

/* A missing launcher is no backend: the exact text, no detail. */
static void test_missing_launcher_confine_has_no_detail(void **state) {
	char launcher[PATH_MAX];
	const char *argv[] = { "true", NULL };
	confine_policy policy = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = workspace };
	confine_argv *c = NULL;
	confine_error err;
	confine_provider *p;
	(void)state;
	snprintf(launcher, sizeof launcher, "%s/no-such-launcher", workdir);
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_confine(p, argv, &policy, &c, &err), -EHOSTUNREACH);
	assert_null(c);
	assert_unavailable(&err, "read-only");
	confine_provider_free(p);
}

/* An installed launcher with its execute bit stripped is a broken runner,
 * not a kernel that cannot enforce (SPEC 7): even where the ladder probed it
 * among several rungs, the failure says so and names it. */
static void test_stripped_launcher_is_a_runner_failure(void **state) {
	char launcher[PATH_MAX], want[PATH_MAX + 1024];
	const char *argv[] = { "true", NULL };
	confine_policy policy = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace };
	confine_argv *c = NULL;
	confine_error err;
	confine_provider *p;
	(void)state;
	write_script(launcher, sizeof launcher, "stripped-launcher",
	             "echo 'landlock: fully enforced'");
	assert_int_equal(chmod(launcher, 0644), 0);
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_confine(p, argv, &policy, &c, &err), -EHOSTUNREACH);
	assert_null(c);
	snprintf(want, sizeof want,
	         "sandbox mode \"workspace-write%s Runner failure: cannot execute %s: Permission denied",
	         TL_UNAVAILABLE_TAIL, launcher);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_string_equal(err.message, want);
	confine_provider_free(p);
}

/* A runner inside the workspace could have been replaced by an earlier
 * workspace-write run: it is refused where the call lets the command write
 * (workspace-write: the workspace and every writable root), and the refusal
 * names it; read-only runs it (conformance D1: `-m read-only -w /usr`), and
 * a workspace beside it is fine. */
static void test_runner_inside_the_workspace_is_refused(void **state) {
	char launcher[PATH_MAX], want[2 * PATH_MAX + 512];
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = workdir };
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workdir };
	confine_policy beside = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace };
	confine_argv *out = NULL;
	confine_error err;
	confine_provider *p;
	(void)state;
	write_script(launcher, sizeof launcher, "launcher-in-ws", "echo 'landlock: fully enforced'");
	p = linux_provider(launcher, 5000);
	snprintf(want, sizeof want,
	         " Runner failure: runner %s lies inside the workspace %s, which confined commands "
	         "may write; refusing to run it",
	         launcher, workdir);
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), -EHOSTUNREACH);
	assert_null(out);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_non_null(strstr(err.message, want));
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), 0);
	confine_argv_free(out);
	out = NULL;
	assert_int_equal(confine_confine(p, true_argv, &beside, &out, &err), 0);
	confine_argv_free(out);
	out = NULL;
	/* The same directory as a writable root beside the workspace. */
	{
		char *roots[] = { workdir, NULL };
		beside.writable_roots = roots;
		snprintf(want, sizeof want,
		         " Runner failure: runner %s lies inside the writable root %s, which confined "
		         "commands may write; refusing to run it",
		         launcher, workdir);
		assert_int_equal(confine_confine(p, true_argv, &beside, &out, &err), -EHOSTUNREACH);
		assert_null(out);
		assert_non_null(strstr(err.message, want));
		beside.writable_roots = NULL;
	}
	confine_provider_free(p);
}

static bool listed_in(char *const *list, const char *s) {
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

/* These tests assert what the launcher will enforce, which the library
 * forecasts from the kernel's Landlock ABI and the supervisor's probe, asked
 * in this process. Under valgrind, which does not pass the landlock_*
 * system calls, this process sees no ABI, so what they assert does not
 * apply: they run in the plain and the ASan/UBSan unit legs. */
static void need_host_landlock(void) {
	if (cf_host_landlock_abi() < 0 || cf_host_supervisor_missing()) {
		print_message("# this process sees no Landlock ABI or supervisor (valgrind?): this test runs "
		              "in the other unit legs\n");
		skip();
	}
}

/* The report per clause and its summaries agree (doc/SPEC.md 15): `full`
 * exactly when every clause is enforced, `unenforced` naming each clause
 * that is not; and the mode itself holds. */
static void assert_report_agrees(const confine_argv *out) {
	bool all = true;
	assert_true(out->n_clauses > 0);
	assert_string_equal(out->clauses[0].clause, "mode");
	assert_int_equal(out->clauses[0].status, CONFINE_CLAUSE_ENFORCED);
	for (size_t i = 0; i < out->n_clauses; i++) {
		bool held = out->clauses[i].status == CONFINE_CLAUSE_ENFORCED;
		all = all && held;
		if (!held)
			assert_true(listed_in(out->unenforced, out->clauses[i].clause));
	}
	assert_int_equal(out->enforcement, all ? CONFINE_ENFORCEMENT_FULL : CONFINE_ENFORCEMENT_PARTIAL);
	if (all)
		assert_null(out->unenforced);
}

/* Every call computes what its rung leaves unenforced (doc/SPEC.md 15):
 * Landlock cannot carve protectedPaths out of a writable grant, so the argv
 * lists it and is partial; with requireFull that is SANDBOX_UNAVAILABLE
 * naming the key. The argv carries a whole copy of the policy. */
static void test_unenforced_and_require_full(void **state) {
	char launcher[PATH_MAX];
	char *protect[] = { (char *)"secret.txt", NULL };
	char *include[] = { (char *)"MY_*", NULL };
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace,
		              .protected_paths = protect, .network = CONFINE_NETWORK_OFF,
		              .env = { .include = include } };
	confine_argv *out = NULL;
	confine_error err;
	confine_provider *p;
	(void)state;
	need_host_landlock();
	write_script(launcher, sizeof launcher, "launcher-unenforced",
	             "echo 'landlock: fully enforced'");
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), 0);
	assert_true(listed_in(out->unenforced, "protectedPaths"));
	assert_report_agrees(out);
	assert_int_equal(out->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
	assert_int_equal(out->policy.network, CONFINE_NETWORK_OFF);
	assert_string_equal(out->policy.protected_paths[0], "secret.txt");
	assert_string_equal(out->policy.env.include[0], "MY_*");
	confine_argv_free(out);
	out = NULL;

	/* Nothing asked for, no protectedPaths listed. */
	ww.protected_paths = NULL;
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), 0);
	assert_false(listed_in(out->unenforced, "protectedPaths"));
	assert_report_agrees(out);
	confine_argv_free(out);
	out = NULL;

	ww.protected_paths = protect;
	ww.require_full = true;
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), -EHOSTUNREACH);
	assert_null(out);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	/* requireFull names the clause, never "Install bubblewrap" (issue 28.3). */
	assert_non_null(strstr(err.message, "is requested with requireFull"));
	assert_null(strstr(err.message, "Install bubblewrap"));
	assert_non_null(strstr(err.message, " Runner failure: requireFull: Landlock does not enforce "
	                                    "protectedPaths"));
	confine_provider_free(p);
}

/* runnerCommand[0] must be absolute or a bare name found on PATH: a
 * relative path would be looked up in the workspace. */
/* Under Landlock, workspace-write grants the host's /tmp: a launcher
 * there could be replaced by the very run it confines, so it is refused for
 * workspace-write (read-only cannot write it). */
static void test_launcher_under_tmp_is_never_trusted(void **state) {
	char dir[] = "/tmp/confine-launcher-XXXXXX";
	char launcher[PATH_MAX];
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = workspace };
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace };
	confine_argv *out = NULL;
	confine_error err;
	confine_provider *p;
	char *text;
	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_true(asprintf(&text, "#!/bin/sh\necho 'landlock: fully enforced'\n") > 0);
	{
		char *written = tl_write_file(dir, "landlock-run", text, 0755);
		assert_non_null(written);
		snprintf(launcher, sizeof launcher, "%s", written);
		free(written);
	}
	free(text);
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), -EHOSTUNREACH);
	assert_null(out);
	assert_non_null(strstr(err.message, " Runner failure: runner "));
	/* /tmp is writable by others, sticky or not: nothing below it is a
	 * runner the library trusts, in any mode (doc/SPEC.md 14) */
	assert_non_null(strstr(err.message, "is not trusted: /tmp is writable by group or others"));
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), -EHOSTUNREACH);
	assert_non_null(strstr(err.message, "is not trusted: /tmp is writable by group or others"));
	confine_provider_free(p);
	tl_remove_tree(dir);
}

/* The argv names the runner's resolved path: a symlink swapped after the
 * provider was made changes nothing. */
static void test_runner_symlink_is_resolved_once(void **state) {
	char launcher[PATH_MAX], link[PATH_MAX + 16], evil[PATH_MAX + 16];
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = workspace };
	confine_argv *out = NULL;
	confine_provider *p;
	(void)state;
	write_script(launcher, sizeof launcher, "real-launcher", "echo 'landlock: fully enforced'");
	write_script(evil, sizeof evil, "evil-launcher", "echo 'landlock: fully enforced'");
	snprintf(link, sizeof link, "%s/launcher-link", workdir);
	unlink(link);
	assert_int_equal(symlink(launcher, link), 0);
	p = linux_provider(link, 5000);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, NULL), 0);
	assert_string_equal(out->argv[0], launcher);
	confine_argv_free(out);
	/* swap the link for another program: the next call still names the
	 * resolved launcher */
	assert_int_equal(unlink(link), 0);
	assert_int_equal(symlink(evil, link), 0);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, NULL), 0);
	assert_string_equal(out->argv[0], launcher);
	confine_argv_free(out);
	confine_provider_free(p);
}

static void test_runner_command_program_resolution(void **state) {
	static const char *const relative[] = { "tools/runner", NULL };
	static const char *const bare_missing[] = { "no-such-runner-xyz", NULL };
	static const char *const bare_found[] = { "env", NULL };
	static const char *const signatures[] = { "runner: refused", NULL };
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = workspace };
	confine_local_config config;
	confine_provider *p = NULL;
	confine_argv *out = NULL;
	confine_error err;
	(void)state;
	confine_local_config_init(&config);
	config.runner_failure_signatures = signatures;
	config.path = "relative/bin:/usr/bin:/bin";

	config.runner_command = relative;
	assert_int_equal(confine_local_provider_new(&config, &p, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_CONFIG);
	assert_non_null(strstr(err.message, "\"tools/runner\""));

	config.runner_command = bare_missing;
	assert_int_equal(confine_local_provider_new(&config, &p, &err), 0);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), -EHOSTUNREACH);
	assert_null(out);
	assert_non_null(strstr(err.message, " Runner failure: runnerCommand \"no-such-runner-xyz\" "
	                                    "was not found on PATH"));
	confine_provider_free(p);

	config.runner_command = bare_found;
	assert_int_equal(confine_local_provider_new(&config, &p, &err), 0);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), 0);
	assert_string_equal(out->argv[0], "/usr/bin/env");
	confine_argv_free(out);
	confine_provider_free(p);

	/* runnerCommand skips the ladder: pinning a rung with it is refused */
	config.runner_command = bare_found;
	config.pin = CONFINE_RUNNER_LANDLOCK;
	assert_int_equal(confine_local_provider_new(&config, &p, &err), -EINVAL);
	assert_non_null(strstr(err.message, "pinned runner (landlock)"));
}

static void test_partial_launcher_line(void **state) {
	char launcher[PATH_MAX], log[PATH_MAX], body[2 * PATH_MAX];
	confine_provider *p;
	confine_argv *out = NULL;
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace };
	(void)state;
	snprintf(log, sizeof log, "%s/partial.log", workdir);
	snprintf(body, sizeof body,
	         "echo probe >> '%s'\necho 'landlock: partially enforced (older ABI)'", log);
	write_script(launcher, sizeof launcher, "partial-launcher", body);
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, NULL), 0);
	assert_int_equal(out->runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(out->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
	confine_argv_free(out);
	/* cached across modes: the launcher ran once */
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, NULL), 0);
	assert_int_equal(out->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
	confine_argv_free(out);
	assert_int_equal(count_lines(log), 1);
	confine_provider_free(p);
}

/* Limit 10 (doc/SPEC.md 3): under workspace-write the Landlock rung grants
 * the host's /dev/shm, so a root below it could be swapped for a link by one
 * run and granted to the next: INVALID_POLICY, exact words. A root below
 * /tmp is confined since issue 21 (the run writes its own temp dir, never
 * the host's /tmp). */
static void test_landlock_refuses_roots_in_host_temp_areas(void **state) {
#define L10_TAIL                                                                                  \
	", which such a run may write, so a run could swap it for a link to anywhere before the "  \
	"next call (a rung with a private %s confines it; or choose a root outside /dev/shm)"
	char launcher[PATH_MAX], tmp_ws[] = "/tmp/confine-l10.XXXXXX", shm_ws[64] = "";
	char want[2 * PATH_MAX];
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE };
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY };
	char *writable[] = { NULL, NULL };
	confine_argv *out = NULL;
	confine_error err = { 0 };
	confine_provider *p;
	(void)state;
	write_script(launcher, sizeof launcher, "l10-launcher", "echo 'landlock: fully enforced'");
	p = linux_provider(launcher, 5000);
	assert_non_null(mkdtemp(tmp_ws));

	/* below /tmp: confined in both modes */
	ww.workspace_root = tmp_ws;
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), 0);
	confine_argv_free(out);
	out = NULL;
	ro.workspace_root = tmp_ws;
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), 0);
	confine_argv_free(out);
	out = NULL;

	/* a writable root under /dev/shm, the workspace elsewhere */
	snprintf(shm_ws, sizeof shm_ws, "/dev/shm/confine-l10.XXXXXX");
	if (access("/dev/shm", W_OK) == 0 && mkdtemp(shm_ws)) {
		ww.workspace_root = workspace;
		writable[0] = shm_ws;
		ww.writable_roots = writable;
		assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), -EINVAL);
		assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
		snprintf(want, sizeof want,
		         "writableRoots entry \"%s\" cannot be confined by Landlock under "
		         "workspace-write: it lies under /dev/shm" L10_TAIL,
		         shm_ws, "/dev/shm");
		assert_string_equal(err.message, want);
		/* and as the workspace root */
		ww.workspace_root = shm_ws;
		ww.writable_roots = NULL;
		assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), -EINVAL);
		snprintf(want, sizeof want,
		         "workspace root \"%s\" cannot be confined by Landlock under "
		         "workspace-write: it lies under /dev/shm" L10_TAIL,
		         shm_ws, "/dev/shm");
		assert_string_equal(err.message, want);
		rmdir(shm_ws);
	}
	rmdir(tmp_ws);
	confine_provider_free(p);
#undef L10_TAIL
}

/* The launcher's notices before the command starts, which its rule sets
 * aside (doc/SPEC.md 6): the partial notice, then one no-supervisor line
 * per word supervisor-probe.h can name, in that order. */
static void expect_launcher_notices(const confine_rule *rule) {
	char want[512];
	size_t i = 0;
	assert_non_null(rule->informational_lines);
	assert_string_equal(rule->informational_lines[i++],
	                    "landlock-run: partial enforcement (older Landlock ABI)");
	for (unsigned w = 0; launcher_supervisor_missing_word(w); w++) {
		snprintf(want, sizeof want,
		         "landlock-run: no supervisor (%s): metadata changes and unix socket connects "
		         "outside the grants are not mediated",
		         launcher_supervisor_missing_word(w));
		assert_non_null(rule->informational_lines[i]);
		assert_string_equal(rule->informational_lines[i++], want);
	}
	assert_int_equal(i, 7);
	assert_null(rule->informational_lines[i]);
}

/* c->layers and the forecast's words in c->unenforced are what this host
 * predicts (its Landlock ABI, whether the supervisor can run here). */
static void expect_host_layers(const confine_argv *c, bool inside_bwrap) {
	cf_launcher_forecast f;
	size_t n = 0;
	cf_launcher_forecast_make(cf_host_landlock_abi(), cf_host_supervisor_missing(), inside_bwrap,
	                          c->policy.network == CONFINE_NETWORK_OFF, &f);
	assert_non_null(c->layers);
	for (unsigned i = 0; launcher_layer_word(i); i++)
		if (f.layers & (1U << i))
			assert_string_equal(c->layers[n++], launcher_layer_word(i));
	assert_null(c->layers[n]);
	for (size_t i = 0; f.unenforced[i]; i++) {
		bool found = false;
		for (size_t k = 0; c->unenforced && c->unenforced[k]; k++)
			found = found || strcmp(c->unenforced[k], f.unenforced[i]) == 0;
		assert_true(found);
	}
	if (f.partial)
		assert_int_equal(c->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
}

static void test_landlock_argv_and_dialect(void **state) {
	char launcher[PATH_MAX];
	confine_provider *p;
	confine_argv *out = NULL;
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace };
	static const char *const tail[] = { "--", "echo", "a b", "--", NULL };
	char pid[16];
	struct stat shm;
	/* /dev/shm is granted where it exists (POSIX semaphores), shared: no
	 * socket there is reached. No temp_dir was made: no temp area, and
	 * never the host's /tmp. */
	size_t k = stat("/dev/shm", &shm) == 0 ? 2 : 0;
	(void)state;
	need_host_landlock();
	write_script(launcher, sizeof launcher, "full-launcher", "echo 'landlock: fully enforced'");
	p = linux_provider(launcher, 5000);
	assert_int_equal(confine_confine(p, echo_argv, &ww, &out, NULL), 0);
	/* The argv for others names its spawner, this process (R4-F2). */
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	assert_int_equal(out->argc, 13 + k);
	assert_string_equal(out->argv[0], launcher);
	assert_string_equal(out->argv[1], "--starter");
	assert_string_equal(out->argv[2], pid);
	assert_string_equal(out->argv[3], "--ro");
	assert_string_equal(out->argv[4], "/");
	assert_string_equal(out->argv[5], "--rw");
	assert_string_equal(out->argv[6], "/dev/null");
	if (k) {
		assert_string_equal(out->argv[7], "--rw-shared");
		assert_string_equal(out->argv[8], "/dev/shm");
	}
	assert_string_equal(out->argv[7 + k], "--rw");
	assert_string_equal(out->argv[8 + k], workspace);
	for (size_t i = 0; tail[i]; i++)
		assert_string_equal(out->argv[9 + k + i], tail[i]);
	assert_null(out->argv[13 + k]);
	assert_int_equal(out->runner, CONFINE_RUNNER_LANDLOCK);
	assert_report_agrees(out);
	assert_string_equal(out->denial_signatures[0], "permission denied");
	assert_null(out->denial_signatures[1]);
	assert_int_equal(out->n_rules, 1);
	assert_int_equal(out->rules[0].n_allowed_exit_codes, 1);
	assert_int_equal(out->rules[0].allowed_exit_codes[0], 125);
	assert_string_equal(out->rules[0].fatal_signatures[0], "landlock-run: ");
	assert_null(out->rules[0].fatal_signatures[1]);
	expect_launcher_notices(&out->rules[0]);
	/* what the launcher will apply here, as this host predicts it */
	expect_host_layers(out, false);
	assert_int_equal(out->policy.mode, CONFINE_MODE_WORKSPACE_WRITE);
	assert_string_equal(out->policy.workspace_root, workspace);
	assert_ptr_not_equal(out->policy.workspace_root, workspace);
	confine_argv_free(out);
	confine_provider_free(p);
}

/* A directory with an executable fake "bwrap" in it. */
static void make_fake_bwrap(char *dir, size_t size, const char *name) {
	char path[PATH_MAX];
	FILE *f;
	snprintf(dir, size, "%s/%s", workdir, name);
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/bwrap", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
}

/* The runner lookup: the one PATH search with the runner's hygiene. */
static char *find_runner(const char *path, const char *name) {
	confine_find_options options = {
		.path = path,
		.absolute_entries_only = true,
		.trusted_only = true,
	};
	char *found = NULL;
	return confine_find_program(name, &options, &found) == 0 ? found : NULL;
}

/* A bwrap that someone other than root or the caller could have planted is
 * skipped: one writable by group or others, or in such a directory. */
static void test_bwrap_others_could_plant_is_skipped(void **state) {
	char open_dir[512], gw_dir[512], good_dir[512], path[3 * 512 + 16];
	char gw_bwrap[PATH_MAX], want[PATH_MAX];
	char *found;
	(void)state;
	make_fake_bwrap(open_dir, sizeof open_dir, "world-writable-dir");
	make_fake_bwrap(gw_dir, sizeof gw_dir, "group-writable-file");
	make_fake_bwrap(good_dir, sizeof good_dir, "caller-only");
	assert_int_equal(chmod(open_dir, 0777), 0);
	snprintf(gw_bwrap, sizeof gw_bwrap, "%s/bwrap", gw_dir);
	assert_int_equal(chmod(gw_bwrap, 0775), 0);
	snprintf(path, sizeof path, "%s:%s:%s", open_dir, gw_dir, good_dir);
	snprintf(want, sizeof want, "%s/bwrap", good_dir);
	found = find_runner(path, "bwrap");
	assert_non_null(found);
	assert_string_equal(found, want);
	free(found);
	/* a sticky, world-writable directory (like /tmp) is refused too */
	assert_int_equal(chmod(open_dir, 01777), 0);
	found = find_runner(open_dir, "bwrap");
	assert_null(found);
	assert_int_equal(chmod(open_dir, 0755), 0);
	found = find_runner(open_dir, "bwrap");
	assert_non_null(found);
	free(found);
}

/* A bwrap found only where others could have planted it is named in the
 * runner failure, with why (doc/SPEC.md 4's trust rule): pinned, on the
 * probed ladder and in the verdict. */
static void test_untrusted_bwrap_is_named(void **state) {
	char open_dir[512], detail[PATH_MAX + 256], want[2 * PATH_MAX + 1024];
	confine_local_config config;
	confine_provider *p = NULL;
	confine_argv *out = NULL;
	confine_error err = { 0 };
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	confine_verdict v;
	(void)state;
	make_fake_bwrap(open_dir, sizeof open_dir, "untrusted-dir");
	assert_int_equal(chmod(open_dir, 0777), 0);
	snprintf(detail, sizeof detail,
	         "runner %s/bwrap is not trusted: %s is writable by group or others; refusing to "
	         "run it",
	         open_dir, open_dir);
	snprintf(want, sizeof want, "sandbox mode \"read-only%s Runner failure: %s",
	         TL_UNAVAILABLE_TAIL, detail);

	/* pinned: a chain of one, selected unprobed */
	confine_local_config_init(&config);
	config.pin = CONFINE_RUNNER_BWRAP;
	config.path = open_dir;
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	assert_int_equal(confine_confine(p, echo_argv, &ro, &out, &err), -EHOSTUNREACH);
	assert_null(out);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_string_equal(err.message, want);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_false(v.usable);
	assert_string_equal(v.runner_failure, detail);
	confine_provider_free(p);

	/* the probed ladder (bwrap, then a launcher that is not there) */
	confine_local_config_init(&config);
	config.platform = "linux";
	config.path = open_dir;
	config.landlock_launcher = "/nonexistent/landlock-run";
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_false(v.usable);
	assert_string_equal(v.runner_failure, detail);
	confine_provider_free(p);
	assert_int_equal(chmod(open_dir, 0755), 0);
}

/* The path as given is judged too (doc/SPEC.md 4): a link named bwrap in a
 * directory others may write could point at any trusted program. */
static void test_link_in_untrusted_dir_is_not_trusted(void **state) {
	char good_dir[512], open_dir[512], link[PATH_MAX], target[PATH_MAX];
	char detail[3 * PATH_MAX], *found;
	confine_local_config config;
	confine_provider *p = NULL;
	confine_verdict v;
	(void)state;
	make_fake_bwrap(good_dir, sizeof good_dir, "link-target");
	snprintf(open_dir, sizeof open_dir, "%s/open-links", workdir);
	assert_int_equal(mkdir(open_dir, 0755), 0);
	snprintf(target, sizeof target, "%s/bwrap", good_dir);
	snprintf(link, sizeof link, "%s/bwrap", open_dir);
	assert_int_equal(symlink(target, link), 0);
	found = find_runner(open_dir, "bwrap"); /* a trusted directory: the link is fine */
	assert_non_null(found);
	assert_string_equal(found, target);
	free(found);
	assert_int_equal(chmod(open_dir, 0777), 0);
	assert_null(find_runner(open_dir, "bwrap"));

	snprintf(detail, sizeof detail,
	         "runner %s is not trusted: %s is writable by group or others; refusing to run it",
	         link, open_dir);
	confine_local_config_init(&config);
	config.pin = CONFINE_RUNNER_BWRAP;
	config.path = open_dir;
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_false(v.usable);
	assert_string_equal(v.runner_failure, detail);
	confine_provider_free(p);
	assert_int_equal(chmod(open_dir, 0755), 0);
}

static void test_bwrap_found_on_absolute_path_entries_only(void **state) {
	char rel_dir[512], abs_dir[512], noexec_dir[512], path[4 * 512 + 64];
	char want[PATH_MAX], cwd[PATH_MAX], noexec_bwrap[PATH_MAX], launcher[PATH_MAX];
	char *found;
	confine_local_config config;
	confine_provider *p = NULL;
	confine_argv *out = NULL;
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	confine_verdict v;
	(void)state;
	need_host_landlock();
	make_fake_bwrap(rel_dir, sizeof rel_dir, "rel");
	make_fake_bwrap(abs_dir, sizeof abs_dir, "abs");
	make_fake_bwrap(noexec_dir, sizeof noexec_dir, "noexec");
	snprintf(noexec_bwrap, sizeof noexec_bwrap, "%s/bwrap", noexec_dir);
	chmod(noexec_bwrap, 0644);
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(chdir(workdir), 0);
	/* "rel", "" and "." all name a bwrap through the cwd: skipped. A
	 * non-executable bwrap is skipped too. */
	snprintf(path, sizeof path, "rel::.:%s:%s:/usr/bin", noexec_dir, abs_dir);
	snprintf(want, sizeof want, "%s/bwrap", abs_dir);
	found = find_runner(path, "bwrap");
	assert_non_null(found);
	assert_string_equal(found, want);
	free(found);
	assert_null(find_runner("rel:.:", "bwrap"));
	assert_null(find_runner("", "bwrap"));

	confine_local_config_init(&config);
	config.pin = CONFINE_RUNNER_BWRAP;
	config.path = path;
	write_script(launcher, sizeof launcher, "bwrap-launcher", "exit 0");
	config.landlock_launcher = launcher;
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	assert_int_equal(confine_confine(p, echo_argv, &ro, &out, NULL), 0);
	assert_string_equal(out->argv[0], want);
	assert_int_equal(out->argv[0][0], '/');
	/* bwrap's tokens, then the launcher layered inside (doc/SPEC.md 14) */
	for (size_t i = 0; read_only_tokens[i]; i++)
		assert_string_equal(out->argv[1 + i], read_only_tokens[i]);
	{
		const char *const tail[] = { "--ro-bind", launcher, "/dev/.confine/landlock-run", "--",
		                             "/dev/.confine/landlock-run", "--best-effort", "--ro", "/",
		                             "--rw", "/dev/null", "--", "echo", "a b", "--", NULL };
		size_t i = 0;
		for (; tail[i]; i++)
			assert_string_equal(out->argv[17 + i], tail[i]);
		assert_null(out->argv[17 + i]);
		assert_int_equal(out->argc, 17 + i);
	}
	assert_int_equal(out->runner, CONFINE_RUNNER_BWRAP);
	assert_report_agrees(out);
	assert_string_equal(out->denial_signatures[0], "read-only file system");
	assert_string_equal(out->denial_signatures[1], "permission denied");
	assert_string_equal(out->denial_signatures[2], "operation not permitted");
	assert_null(out->denial_signatures[3]);
	/* no status channel: the argv is judged by stderr, bwrap's rule then
	 * the launcher's (doc/SPEC.md 6) */
	assert_int_equal(out->spawn_flags, 0);
	assert_int_equal(out->n_rules, 2);
	/* bwrap's own failures exit 1 */
	assert_int_equal(out->rules[0].n_allowed_exit_codes, 1);
	assert_int_equal(out->rules[0].allowed_exit_codes[0], 1);
	assert_string_equal(out->rules[0].fatal_signatures[0], "bwrap: ");
	assert_null(out->rules[0].fatal_signatures[1]);
	assert_null(out->rules[0].informational_lines);
	/* the launcher's exit 125, which bwrap returns as its own */
	assert_int_equal(out->rules[1].n_allowed_exit_codes, 1);
	assert_int_equal(out->rules[1].allowed_exit_codes[0], 125);
	assert_string_equal(out->rules[1].fatal_signatures[0], "landlock-run: ");
	assert_null(out->rules[1].fatal_signatures[1]);
	expect_launcher_notices(&out->rules[1]);
	expect_host_layers(out, true);
	confine_argv_free(out);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_true(v.usable);
	assert_string_equal(v.runner_path, want);
	confine_provider_free(p);

	/* Pinned to bwrap with no bwrap on the absolute entries: fails closed
	 * now, rather than hand back a bare "bwrap" to be searched again. */
	config.path = "rel:.";
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	{
		confine_error err = { 0 };
		assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), -EHOSTUNREACH);
		assert_unavailable(&err, "read-only");
	}
	confine_provider_free(p);
	assert_int_equal(chdir(cwd), 0);
}

static void test_pinned_landlock_is_unprobed(void **state) {
	char launcher[PATH_MAX], log[PATH_MAX], body[2 * PATH_MAX];
	confine_local_config config;
	confine_provider *p = NULL;
	confine_argv *out = NULL;
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	(void)state;
	snprintf(log, sizeof log, "%s/pinned.log", workdir);
	snprintf(body, sizeof body, "echo probe >> '%s'\nexit 125", log);
	write_script(launcher, sizeof launcher, "pinned-launcher", body);
	confine_local_config_init(&config);
	config.pin = CONFINE_RUNNER_LANDLOCK;
	config.landlock_launcher = launcher;
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	/* selected without a probe; a broken launcher fails at execution */
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, NULL), 0);
	assert_int_equal(out->runner, CONFINE_RUNNER_LANDLOCK);
	assert_string_equal(out->argv[0], launcher);
	confine_argv_free(out);
	assert_int_equal(count_lines(log), 0);
	confine_provider_free(p);
}

static void test_seatbelt_off_macos_fails_closed(void **state) {
	confine_local_config config;
	confine_provider *p = NULL;
	confine_argv *out = NULL;
	confine_error err = { 0 };
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	(void)state;
	if (CONFINE_OS_DARWIN)
		skip();
	/* pinned, or a pretend darwin: sandbox-exec does not exist here */
	confine_local_config_init(&config);
	config.pin = CONFINE_RUNNER_SEATBELT;
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), -EHOSTUNREACH);
	assert_unavailable(&err, "read-only");
	confine_provider_free(p);
	config.pin = CONFINE_RUNNER_NONE;
	config.platform = "darwin";
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), -EHOSTUNREACH);
	confine_provider_free(p);
}

static void test_runner_command(void **state) {
	static const char *const runner[] = { "/opt/my-runner", "--quiet", NULL };
	static const char *const signatures[] = { "my-runner: refused", "cannot sandbox", NULL };
	char launcher[PATH_MAX], log[PATH_MAX], body[2 * PATH_MAX];
	confine_local_config config;
	confine_provider *p = NULL;
	confine_argv *out = NULL;
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace };
	confine_verdict v;
	(void)state;
	snprintf(log, sizeof log, "%s/runner-command.log", workdir);
	snprintf(body, sizeof body, "echo probe >> '%s'\necho 'landlock: fully enforced'", log);
	write_script(launcher, sizeof launcher, "never-probed", body);
	confine_local_config_init(&config);
	config.runner_command = runner;
	config.runner_failure_signatures = signatures;
	config.platform = "linux";
	config.path = "/nonexistent";
	config.landlock_launcher = launcher;
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	assert_int_equal(confine_confine(p, echo_argv, &ww, &out, NULL), 0);
	/* runner command, the 21 bwrap tokens, "--", the caller's argv */
	assert_string_equal(out->argv[0], "/opt/my-runner");
	assert_string_equal(out->argv[1], "--quiet");
	for (size_t i = 0; read_only_tokens[i]; i++)
		assert_string_equal(out->argv[2 + i], read_only_tokens[i]);
	assert_string_equal(out->argv[18], "--tmpfs");
	assert_string_equal(out->argv[19], "/tmp");
	assert_string_equal(out->argv[20], "--bind");
	assert_string_equal(out->argv[21], workspace);
	assert_string_equal(out->argv[22], workspace);
	assert_string_equal(out->argv[23], "--");
	assert_string_equal(out->argv[24], "echo");
	assert_string_equal(out->argv[25], "a b");
	assert_string_equal(out->argv[26], "--");
	assert_null(out->argv[27]);
	assert_int_equal(out->argc, 27);
	assert_int_equal(out->runner, CONFINE_RUNNER_RUNNER_COMMAND);
	assert_report_agrees(out);
	/* both Linux dialects */
	assert_string_equal(out->denial_signatures[0], "read-only file system");
	assert_string_equal(out->denial_signatures[1], "permission denied");
	assert_null(out->denial_signatures[2]);
	/* one rule: the configured signatures, no exit gate */
	assert_int_equal(out->n_rules, 1);
	assert_int_equal(out->rules[0].n_allowed_exit_codes, 0);
	assert_string_equal(out->rules[0].fatal_signatures[0], "my-runner: refused");
	assert_string_equal(out->rules[0].fatal_signatures[1], "cannot sandbox");
	assert_null(out->rules[0].fatal_signatures[2]);
	assert_null(out->rules[0].informational_lines);
	confine_argv_free(out);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_true(v.usable);
	assert_int_equal(v.runner, CONFINE_RUNNER_RUNNER_COMMAND);
	assert_string_equal(v.runner_path, "/opt/my-runner");
	/* ladder and probes skipped */
	assert_int_equal(count_lines(log), 0);
	confine_provider_free(p);
}

/* A provider pinned to bwrap (a fake one, never run: a pinned rung is
 * selected unprobed) whose on-disk launcher is `launcher`. */
static confine_provider *bwrap_provider(const char *launcher) {
	static char bwrap_dir[512];
	confine_local_config config;
	confine_provider *p = NULL;
	make_fake_bwrap(bwrap_dir, sizeof bwrap_dir, "bwrap-for-others");
	confine_local_config_init(&config);
	config.pin = CONFINE_RUNNER_BWRAP;
	config.platform = "linux";
	config.path = bwrap_dir;
	config.landlock_launcher = launcher;
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	return p;
}

/* The index of the word after bwrap's "--" (the launcher), or 0. */
static size_t launcher_at(const confine_argv *c) {
	for (size_t i = 0; c->argv[i]; i++)
		if (strcmp(c->argv[i], "--") == 0)
			return i + 1;
	return 0;
}

static bool argv_holds(const confine_argv *c, size_t from, const char *a, const char *b) {
	for (size_t i = from; c->argv[i] && c->argv[i + 1]; i++)
		if (strcmp(c->argv[i], a) == 0 && (!b || strcmp(c->argv[i + 1], b) == 0))
			return true;
	return false;
}

/* The layered argv for others under workspace-write and the policy
 * options: bwrap's mounts and network, the launcher's grants, sockets and
 * requireFull (doc/SPEC.md 5, 14, 15). */
static void test_bwrap_layered_argv_for_others(void **state) {
	char launcher[PATH_MAX], secret[PATH_MAX];
	char *sockets[] = { (char *)"/run/some.sock", NULL };
	char *deny[] = { secret, NULL };
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace,
		              .network = CONFINE_NETWORK_OFF, .allow_unix_sockets = sockets,
		              .deny_read = deny };
	confine_argv *out = NULL;
	confine_error err;
	confine_provider *p;
	size_t at, mask = 0;
	(void)state;
	need_host_landlock();
	snprintf(secret, sizeof secret, "%s/layered-secret", workdir);
	assert_int_equal(mkdir(secret, 0755), 0);
	write_script(launcher, sizeof launcher, "layered-launcher", "exit 0");
	p = bwrap_provider(launcher);
	assert_int_equal(confine_confine(p, echo_argv, &ww, &out, &err), 0);
	at = launcher_at(out);
	assert_true(at > 0);
	/* bwrap cuts the network and binds the workspace; the bind of the
	 * launcher comes last, right before "--" */
	assert_true(argv_holds(out, 1, "--unshare-net", NULL));
	assert_true(argv_holds(out, 1, "--bind", workspace));
	assert_string_equal(out->argv[at - 4], "--ro-bind");
	assert_string_equal(out->argv[at - 3], launcher);
	assert_string_equal(out->argv[at - 2], "/dev/.confine/landlock-run");
	assert_string_equal(out->argv[at], "/dev/.confine/landlock-run");
	assert_string_equal(out->argv[at + 1], "--best-effort");
	/* the denyRead mask is bwrap's, before the launcher's bind; inside,
	 * Landlock splits its read grant around it too (no `--ro /`) */
	for (size_t i = 1; i < at; i++)
		if (strcmp(out->argv[i], "--tmpfs") == 0 && strcmp(out->argv[i + 1], secret) == 0)
			mask = i;
	assert_true(mask > 0 && mask < at - 4);
	assert_false(argv_holds(out, at, "--ro", "/"));
	assert_true(argv_holds(out, at, "--ro-try", NULL));
	/* inside: bwrap's private /tmp and the workspace writable, the socket
	 * allowed; the network is bwrap's, so no --deny-network; no channel */
	assert_true(argv_holds(out, at, "--rw", "/tmp"));
	assert_true(argv_holds(out, at, "--rw", workspace));
	assert_true(argv_holds(out, at, "--allow-unix-socket", "/run/some.sock"));
	assert_false(argv_holds(out, at, "--deny-network", NULL));
	assert_false(argv_holds(out, at, "--status-fd", NULL));
	assert_false(argv_holds(out, at, "--require-supervisor", NULL));
	/* the launcher mediates the allowance: not unenforced */
	for (size_t i = 0; out->unenforced && out->unenforced[i]; i++)
		assert_string_not_equal(out->unenforced[i], "allowUnixSockets");
	expect_host_layers(out, true);
	confine_argv_free(out);
	out = NULL;

	/* requireFull: the launcher refuses to run without its supervisor */
	ww.require_full = true;
	if (cf_host_supervisor_missing()) {
		assert_int_equal(confine_confine(p, echo_argv, &ww, &out, &err), -EHOSTUNREACH);
		assert_non_null(strstr(err.message, "Runner failure: requireFull: bubblewrap does not "
		                                    "enforce metadata"));
	} else {
		assert_int_equal(confine_confine(p, echo_argv, &ww, &out, &err), 0);
		assert_true(argv_holds(out, launcher_at(out), "--require-supervisor", NULL));
		confine_argv_free(out);
	}
	confine_provider_free(p);
}

/* The on-disk launcher an argv for others runs inside bwrap is a runner
 * from disk: it must be there, trusted, and outside what the call lets the
 * command write (doc/SPEC.md 4, 14). */
static void test_bwrap_launcher_checked_as_a_runner(void **state) {
	char launcher[PATH_MAX], missing[PATH_MAX], open_dir[PATH_MAX], want[2 * PATH_MAX + 256];
	char other[PATH_MAX];
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = workspace };
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = workspace };
	confine_policy beside = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = other };
	confine_argv *out = NULL;
	confine_error err;
	confine_provider *p;
	(void)state;
	snprintf(other, sizeof other, "%s/other-ws", workdir);
	assert_int_equal(mkdir(other, 0755), 0);
	/* missing: refused, naming it */
	snprintf(missing, sizeof missing, "%s/no-such-launcher", workdir);
	p = bwrap_provider(missing);
	assert_int_equal(confine_confine(p, true_argv, &beside, &out, &err), -EHOSTUNREACH);
	assert_null(out);
	snprintf(want, sizeof want, " Runner failure: launcher %s cannot be found: %s", missing,
	         strerror(ENOENT));
	assert_non_null(strstr(err.message, want));
	confine_provider_free(p);

	/* in a directory others may write: not trusted */
	snprintf(open_dir, sizeof open_dir, "%s/open-launcher-dir", workdir);
	assert_int_equal(mkdir(open_dir, 0777), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	{
		char *written = tl_write_file(open_dir, "landlock-run", "#!/bin/sh\nexit 0\n", 0755);
		assert_non_null(written);
		snprintf(launcher, sizeof launcher, "%s", written);
		free(written);
	}
	p = bwrap_provider(launcher);
	assert_int_equal(confine_confine(p, true_argv, &beside, &out, &err), -EHOSTUNREACH);
	snprintf(want, sizeof want, " Runner failure: runner %s is not trusted: %s is writable by "
	         "group or others; refusing to run it", launcher, open_dir);
	if (!strstr(err.message, want))
		fail_msg("%s", err.message);
	confine_provider_free(p);

	/* inside the workspace (bwrap itself is not): refused under
	 * workspace-write only */
	{
		char *written = tl_write_file(workspace, "landlock-run", "#!/bin/sh\nexit 0\n", 0755);
		assert_non_null(written);
		snprintf(launcher, sizeof launcher, "%s", written);
		free(written);
	}
	p = bwrap_provider(launcher);
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), -EHOSTUNREACH);
	snprintf(want, sizeof want,
	         " Runner failure: runner %s lies inside the workspace %s, which confined commands "
	         "may write; refusing to run it",
	         launcher, workspace);
	if (!strstr(err.message, want))
		fail_msg("%s", err.message);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), 0);
	confine_argv_free(out);
	out = NULL;
	assert_int_equal(confine_confine(p, true_argv, &beside, &out, &err), 0);
	confine_argv_free(out);
	confine_provider_free(p);
	unlink(launcher);
}

/* A spawner with only stderr tells the runners' failures from the
 * command's with the argv's rules (doc/SPEC.md 6, 8). */
static void test_bwrap_rules_tell_runner_from_command(void **state) {
	static const struct {
		int exit_code;
		bool signaled;
		const char *err;
		bool runner_failed;
	} cases[] = {
		/* bwrap's own failure: exit 1 */
		{ 1, false, "bwrap: Can't find source path /gone: No such file or directory\n", true },
		/* the launcher's, returned by bwrap as its exit status */
		{ 125, false, "landlock-run: cannot open rule path: /gone: No such file or directory\n",
		  true },
		{ 125, false,
		  "landlock-run: the supervisor cannot run here (nested-listener: Operation not "
		  "permitted) and --require-supervisor was given\n",
		  true },
		/* the exit gates: a prefix at the other runner's status is the command's */
		{ 1, false, "landlock-run: x\n", false },
		{ 125, false, "bwrap: x\n", false },
		/* the launcher's notices are set aside: the command's own 125 */
		{ 125, false,
		  "landlock-run: no supervisor (nested-listener): metadata changes and unix socket "
		  "connects outside the grants are not mediated\n",
		  false },
		{ 125, false, "landlock-run: partial enforcement (older Landlock ABI)\n", false },
		/* the prefix must start the line */
		{ 125, false, "cat: landlock-run: No such file or directory\n", false },
		/* an exit 0 or a signal is never a runner failure */
		{ 0, false, "landlock-run: x\n", false },
		{ 0, true, "bwrap: x\n", false },
	};
	char launcher[PATH_MAX];
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = workspace };
	confine_argv *out = NULL;
	confine_provider *p;
	(void)state;
	write_script(launcher, sizeof launcher, "rules-launcher", "exit 0");
	p = bwrap_provider(launcher);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, NULL), 0);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *detail = NULL;
		int r = confine_classify_runner_failure(cases[i].exit_code, cases[i].signaled,
		                                        cases[i].err, strlen(cases[i].err), out->rules,
		                                        out->n_rules, &detail);
		if (r != (cases[i].runner_failed ? 1 : 0))
			fail_msg("case %zu (%s): classified %d", i, cases[i].err, r);
		if (r == 1)
			assert_int_equal(strncmp(detail, cases[i].err, strlen(detail)), 0);
		free(detail);
	}
	confine_argv_free(out);
	confine_provider_free(p);
}

/* The forecast (rungs/landlock/forecast.h) over the ABIs, the supervisor, and
 * where the launcher runs. */
static void test_launcher_forecast(void **state) {
	static const struct {
		int abi;
		const char *missing;
		bool inside_bwrap, network_off;
		unsigned layers;
		const char *words; /* space-separated */
		bool partial;
	} cases[] = {
		{ 7, NULL, false, false, LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_SECCOMP |
		  LAUNCHER_LAYER_SUPERVISOR, "", false },
		{ 7, NULL, true, false, LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_SECCOMP |
		  LAUNCHER_LAYER_SUPERVISOR, "", false },
		{ 7, "nested-listener", true, false, LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_SECCOMP,
		  "metadata unix-sockets", true },
		/* Landlock decides pathname sockets itself (RESOLVE_UNIX) */
		{ 9, "nested-listener", false, false, LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_SECCOMP,
		  "metadata", true },
		/* no Landlock: only bwrap can run (--best-effort); its mounts
		 * govern the files, its PID namespace signals, and with the
		 * network off its namespace abstract sockets */
		{ -1, NULL, true, false, LAUNCHER_LAYER_SECCOMP | LAUNCHER_LAYER_SUPERVISOR,
		  "abstract-unix-sockets", false },
		{ -1, NULL, true, true, LAUNCHER_LAYER_SECCOMP | LAUNCHER_LAYER_SUPERVISOR, "", false },
		{ 5, NULL, true, false, LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_SECCOMP |
		  LAUNCHER_LAYER_SUPERVISOR, "abstract-unix-sockets", false },
		{ 4, NULL, true, false, LAUNCHER_LAYER_LANDLOCK_PARTIAL | LAUNCHER_LAYER_SECCOMP |
		  LAUNCHER_LAYER_SUPERVISOR, "abstract-unix-sockets", false },
		/* Landlock alone: each older ABI leaves its rights out */
		{ 6, NULL, false, false, LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_SECCOMP |
		  LAUNCHER_LAYER_SUPERVISOR, "", false },
		{ 5, NULL, false, true, LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_SECCOMP |
		  LAUNCHER_LAYER_SUPERVISOR, "abstract-unix-sockets signals", false },
		{ 4, NULL, false, false, LAUNCHER_LAYER_LANDLOCK_PARTIAL | LAUNCHER_LAYER_SECCOMP |
		  LAUNCHER_LAYER_SUPERVISOR, "ioctl-dev abstract-unix-sockets signals", true },
		{ 2, NULL, false, false, LAUNCHER_LAYER_LANDLOCK_PARTIAL | LAUNCHER_LAYER_SECCOMP |
		  LAUNCHER_LAYER_SUPERVISOR, "ioctl-dev truncate abstract-unix-sockets signals", true },
		{ 1, "proc", false, false, LAUNCHER_LAYER_LANDLOCK_PARTIAL | LAUNCHER_LAYER_SECCOMP,
		  "metadata unix-sockets ioctl-dev truncate refer abstract-unix-sockets signals", true },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cf_launcher_forecast f;
		char got[512] = "";
		cf_launcher_forecast_make(cases[i].abi, cases[i].missing, cases[i].inside_bwrap,
		                          cases[i].network_off, &f);
		for (size_t k = 0; f.unenforced[k]; k++)
			snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", k ? " " : "",
			         f.unenforced[k]);
		if (f.layers != cases[i].layers || strcmp(got, cases[i].words) != 0 ||
		    f.partial != cases[i].partial)
			fail_msg("case %zu: layers %#x words \"%s\" partial %d", i, f.layers, got,
			         f.partial);
	}
}

static const char msg1[] = "sandbox-local: runnerFailureSignatures requires runnerCommand";
static const char msg2[] =
	"sandbox-local: runnerCommand requires at least one runnerFailureSignatures entry";
static const char msg3[] =
	"sandbox-local: runnerFailureSignatures entries must be non-empty single-line strings";
static const char msg4[] = "sandbox-local: probeTimeoutMs must be a positive finite number";

typedef struct config_case {
	const char *const *runner;
	const char *const *signatures;
	double timeout;
	const char *message;
} config_case;

static void test_validations_in_order(void **state) {
	static const char *const runner[] = { "/opt/r", NULL };
	static const char *const no_strings[] = { NULL };
	static const char *const good[] = { "refused", NULL };
	static const char *const blank[] = { "ok", "  \t ", NULL };
	static const char *const empty[] = { "", NULL };
	static const char *const lf[] = { "two\nlines", NULL };
	static const char *const cr[] = { "carriage\r", NULL };
	const config_case cases[] = {
		/* 1 wins over everything after it */
		{ NULL, good, 5000, msg1 },
		{ NULL, good, -1, msg1 },
		{ no_strings, blank, NAN, msg1 },
		/* 2 */
		{ runner, NULL, 5000, msg2 },
		{ runner, no_strings, 0, msg2 },
		/* 3 */
		{ runner, blank, 5000, msg3 },
		{ runner, empty, 5000, msg3 },
		{ runner, lf, 5000, msg3 },
		{ runner, cr, -5, msg3 },
		/* 4 */
		{ NULL, NULL, 0, msg4 },
		{ NULL, NULL, -250, msg4 },
		{ NULL, NULL, NAN, msg4 },
		{ NULL, NULL, INFINITY, msg4 },
		{ runner, good, -INFINITY, msg4 },
		/* a fraction is not rounded into a bound no one asked for */
		{ NULL, NULL, 0.5, msg4 },
		{ NULL, NULL, 2.5, msg4 },
		{ NULL, NULL, 5000.000001, msg4 },
		{ runner, good, 0.25, msg4 },
		/* valid: whole numbers, a huge one included (capped where used) */
		{ NULL, NULL, 1, NULL },
		{ NULL, NULL, 1e308, NULL },
		{ runner, good, 5000, NULL },
		{ no_strings, no_strings, 5000, NULL },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		confine_local_config config;
		confine_provider *p = (confine_provider *)0x1;
		confine_error err = { 0 };
		int r;
		confine_local_config_init(&config);
		config.runner_command = cases[i].runner;
		config.runner_failure_signatures = cases[i].signatures;
		config.probe_timeout_ms = cases[i].timeout;
		r = confine_local_provider_new(&config, &p, &err);
		if (!cases[i].message) {
			assert_int_equal(r, 0);
			confine_provider_free(p);
			continue;
		}
		assert_int_equal(r, -EINVAL);
		assert_ptr_equal(p, (confine_provider *)0x1);
		assert_int_equal(err.code, CONFINE_E_INVALID_CONFIG);
		assert_string_equal(err.message, cases[i].message);
	}
}

static void test_other_config_errors_name_the_value(void **state) {
	confine_local_config config;
	confine_provider *p = NULL;
	confine_error err = { 0 };
	(void)state;
	confine_local_config_init(&config);
	config.landlock_launcher = "bin/landlock-run";
	assert_int_equal(confine_local_provider_new(&config, &p, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_CONFIG);
	assert_non_null(strstr(err.message, "\"bin/landlock-run\""));
	confine_local_config_init(&config);
	config.pin = CONFINE_RUNNER_RUNNER_COMMAND;
	assert_int_equal(confine_local_provider_new(&config, &p, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_CONFIG);
	assert_int_equal(confine_local_provider_new(NULL, NULL, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);
}

static void test_default_launcher_is_the_build_trees(void **state) {
	confine_provider *p = NULL;
	confine_local_config config;
	confine_verdict v;
	(void)state;
	/* This test runs from the build tree, so the library does too. */
	assert_string_equal(confine_default_landlock_launcher(),
	                    CONFINE_TEST_BUILD_ROOT "/src/launcher/landlock-run");
	assert_string_equal(confine_default_landlock_launcher(), CONFINE_BUILD_LAUNCHER);
	confine_local_config_init(&config);
	config.pin = CONFINE_RUNNER_LANDLOCK;
	assert_int_equal(confine_local_provider_new(&config, &p, NULL), 0);
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_string_equal(v.runner_path, CONFINE_BUILD_LAUNCHER);
	confine_provider_free(p);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_defaults),
		cmocka_unit_test(test_slow_launcher_full_within_a_generous_bound),
		cmocka_unit_test(test_slow_launcher_unavailable_past_a_short_bound),
		cmocka_unit_test(test_launcher_exit_125_is_unavailable),
		cmocka_unit_test(test_launcher_killed_by_signal_is_unavailable),
		cmocka_unit_test(test_missing_launcher_is_unavailable),
		cmocka_unit_test(test_missing_launcher_confine_has_no_detail),
		cmocka_unit_test(test_untrusted_launcher_is_never_probed),
		cmocka_unit_test(test_runner_inside_the_workspace_is_refused),
		cmocka_unit_test(test_runner_command_program_resolution),
		cmocka_unit_test(test_launcher_under_tmp_is_never_trusted),
		cmocka_unit_test(test_runner_symlink_is_resolved_once),
		cmocka_unit_test(test_stripped_launcher_is_a_runner_failure),
		cmocka_unit_test(test_partial_launcher_line),
		cmocka_unit_test(test_landlock_refuses_roots_in_host_temp_areas),
		cmocka_unit_test(test_landlock_argv_and_dialect),
		cmocka_unit_test(test_untrusted_bwrap_is_named),
		cmocka_unit_test(test_link_in_untrusted_dir_is_not_trusted),
		cmocka_unit_test(test_bwrap_found_on_absolute_path_entries_only),
		cmocka_unit_test(test_bwrap_others_could_plant_is_skipped),
		cmocka_unit_test(test_bwrap_layered_argv_for_others),
		cmocka_unit_test(test_bwrap_launcher_checked_as_a_runner),
		cmocka_unit_test(test_bwrap_rules_tell_runner_from_command),
		cmocka_unit_test(test_launcher_forecast),
		cmocka_unit_test(test_pinned_landlock_is_unprobed),
		cmocka_unit_test(test_seatbelt_off_macos_fails_closed),
		cmocka_unit_test(test_runner_command),
		cmocka_unit_test(test_validations_in_order),
		cmocka_unit_test(test_other_config_errors_name_the_value),
		cmocka_unit_test(test_default_launcher_is_the_build_trees),
		cmocka_unit_test(test_unenforced_and_require_full),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
