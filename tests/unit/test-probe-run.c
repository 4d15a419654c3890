/* SPDX-License-Identifier: MIT */
/*
 * The bounded probe runner (probe-run.c, on top of the spawn API): stdout
 * captured within its bound, stdin and stderr on /dev/null, no stray
 * descriptors, its own process group killed at the bound even when it
 * ignores SIGTERM, leftovers killed after an ordinary exit, always reaped,
 * and exec failure a failed probe rather than a system error.
 */
#include <errno.h>
#include <fcntl.h>
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rungs/probe.h"

static long long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int probe_sh(const char *script, double timeout_ms, cf_probe_result *r) {
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	return cf_probe_run(argv, timeout_ms, r);
}

/* Whether `pid` is gone or a zombie (an orphan waits for init to reap it).
 * Without /proc (macOS) only "gone" can be seen: kill(2) succeeds on a
 * zombie, but there launchd reaps an orphan at once. Polled for up to 60 s,
 * a bound that only proves the kill fired (the processes checked would
 * sleep 100 s), never a speed assertion. */
static bool dead(pid_t pid) {
	bool have_proc = access("/proc/self/stat", F_OK) == 0;
	for (int i = 0; i < 6000; i++) {
		char path[64], buf[512];
		FILE *f;
		const char *close_paren;
		if (!have_proc) {
			if (kill(pid, 0) < 0 && errno == ESRCH)
				return true;
			usleep(10000);
			continue;
		}
		snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
		f = fopen(path, "r");
		if (!f)
			return true;
		buf[0] = '\0';
		if (!fgets(buf, sizeof buf, f))
			buf[0] = '\0';
		fclose(f);
		close_paren = strrchr(buf, ')');
		if (close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

static void no_child_left(void) {
	int status;
	errno = 0;
	assert_int_equal(waitpid(-1, &status, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_captures_stdout_and_the_exit_code(void **state) {
	cf_probe_result r;
	(void)state;
	assert_int_equal(probe_sh("echo hello; echo noise >&2; exit 3", 5000, &r), 0);
	assert_true(r.started);
	assert_true(r.exited);
	assert_false(r.signaled);
	assert_false(r.timed_out);
	assert_int_equal(r.exit_code, 3);
	assert_string_equal(r.out, "hello\n");
	assert_int_equal(r.out_len, 6);
	no_child_left();
}

static void test_stdout_is_bounded(void **state) {
	cf_probe_result r;
	(void)state;
	assert_int_equal(probe_sh("i=0; while [ $i -lt 300 ]; do echo 0123456789abcdef0123456789abcde; "
	                          "i=$((i+1)); done",
	                          5000, &r),
	                 0);
	assert_true(r.exited);
	assert_int_equal(r.exit_code, 0);
	assert_int_equal(r.out_len, CF_PROBE_STDOUT_MAX);
	assert_int_equal(strlen(r.out), CF_PROBE_STDOUT_MAX);
	assert_memory_equal(r.out, "0123456789abcdef0123456789abcde\n", 32);
}

static void test_stdin_and_stderr_are_dev_null(void **state) {
	cf_probe_result r;
	(void)state;
	/* /dev/fd/N is the shell's own descriptor N on Linux and macOS alike;
	 * stdout, the capture pipe, is the control that the check can fail. */
	assert_int_equal(probe_sh("for n in 0 1 2; do [ /dev/fd/$n -ef /dev/null ] && echo $n null || "
	                          "echo $n other; done",
	                          5000, &r),
	                 0);
	assert_true(r.exited);
	assert_string_equal(r.out, "0 null\n1 other\n2 null\n");
}

static void test_no_other_descriptor_reaches_the_probe(void **state) {
	int plain = open("/dev/null", O_RDONLY); /* deliberately not close-on-exec */
	char script[256];
	cf_probe_result r;
	(void)state;
	assert_true(plain >= 0);
	assert_int_equal(dup2(plain, 57), 57);
	snprintf(script, sizeof script,
	         "for n in %d 57; do [ -e /dev/fd/$n ] && echo leaked $n; done; "
	         "[ -e /dev/fd/1 ] && echo checked",
	         plain);
	assert_int_equal(probe_sh(script, 5000, &r), 0);
	/* "checked" only when /dev/fd shows an open descriptor (stdout). */
	assert_string_equal(r.out, "checked\n");
	close(plain);
	close(57);
}

static void test_runs_in_its_own_process_group(void **state) {
	cf_probe_result r;
	int pid = 0, pgrp = 0;
	(void)state;
	/* /proc where it exists; ps(1) elsewhere (macOS). */
	assert_int_equal(probe_sh("if [ -r /proc/$$/stat ]; then "
	                          "read -r pid comm st ppid pgrp rest < /proc/$$/stat; "
	                          "else pid=$$; pgrp=$(ps -o pgid= -p $$); fi; "
	                          "echo \"$pid $pgrp\"",
	                          5000, &r),
	                 0);
	assert_int_equal(sscanf(r.out, "%d %d", &pid, &pgrp), 2);
	assert_true(pid > 0);
	assert_int_equal(pid, pgrp);
	assert_int_not_equal(pgrp, (int)getpgrp());
}

static void test_exec_failure_is_a_failed_probe_not_an_error(void **state) {
	const char *missing[] = { "/nonexistent/confine-probe", NULL };
	const char *not_exec[] = { "/etc/hostname", NULL };
	cf_probe_result r;
	(void)state;
	memset(&r, 0xa5, sizeof r);
	assert_int_equal(cf_probe_run(missing, 5000, &r), 0);
	assert_false(r.started);
	assert_false(r.exited);
	assert_false(r.timed_out);
	assert_int_equal(r.out_len, 0);
	assert_int_equal(cf_probe_run(not_exec, 5000, &r), 0);
	assert_false(r.started);
	no_child_left();
}

static void test_bound_kills_the_group_even_when_term_is_ignored(void **state) {
	cf_probe_result r;
	long long start, took;
	int bg = 0;
	(void)state;
	start = now_ms();
	/* The shell ignores SIGTERM and so does its background child; the
	 * spawn API's default timeout would give them 3 s more. */
	assert_int_equal(probe_sh("trap '' TERM; sleep 100 >/dev/null & echo $!; wait; wait", 300, &r),
	                 0);
	took = now_ms() - start;
	assert_true(r.started);
	assert_true(r.timed_out);
	assert_true(r.signaled);
	assert_false(r.exited);
	/* What it wrote before the bound is kept. */
	assert_int_equal(sscanf(r.out, "%d", &bg), 1);
	assert_true(bg > 0);
	assert_true(dead(bg));
	/* The bound fired (the tree would sleep 100 s); how soon after it is
	 * the bench's business, not a test's. */
	assert_true(took >= 300);
	assert_true(took < 60000);
	no_child_left();
}

static void test_leftovers_are_killed_after_an_ordinary_exit(void **state) {
	cf_probe_result r;
	int bg = 0;
	(void)state;
	assert_int_equal(probe_sh("sleep 100 >/dev/null 2>&1 & echo $!", 5000, &r), 0);
	assert_true(r.exited);
	assert_int_equal(r.exit_code, 0);
	assert_false(r.timed_out);
	assert_int_equal(sscanf(r.out, "%d", &bg), 1);
	assert_true(dead(bg));
	no_child_left();
}

static void test_fractional_bound_still_bounds(void **state) {
	cf_probe_result r;
	(void)state;
	assert_int_equal(probe_sh("exec sleep 100", 0.5, &r), 0);
	assert_true(r.timed_out);
	assert_true(r.signaled);
	no_child_left();
}

static void test_bad_arguments_are_refused(void **state) {
	const char *relative[] = { "sh", "-c", "true", NULL };
	const char *empty[] = { NULL };
	const char *ok[] = { "/bin/sh", "-c", ":", NULL }; /* macOS has no /bin/true */
	cf_probe_result r;
	(void)state;
	assert_int_equal(cf_probe_run(NULL, 100, &r), -EINVAL);
	assert_int_equal(cf_probe_run(empty, 100, &r), -EINVAL);
	assert_int_equal(cf_probe_run(relative, 100, &r), -EINVAL);
	assert_int_equal(cf_probe_run(ok, 100, NULL), -EINVAL);
	assert_int_equal(cf_probe_run(ok, 0, &r), -EINVAL);
	assert_int_equal(cf_probe_run(ok, -1, &r), -EINVAL);
	assert_int_equal(cf_probe_run(ok, INFINITY, &r), -EINVAL);
	assert_int_equal(cf_probe_run(ok, NAN, &r), -EINVAL);
	/* A huge but finite bound is a bound, not an error. */
	assert_int_equal(cf_probe_run(ok, 1e300, &r), 0);
	assert_true(r.exited);
	assert_int_equal(r.exit_code, 0);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captures_stdout_and_the_exit_code),
		cmocka_unit_test(test_stdout_is_bounded),
		cmocka_unit_test(test_stdin_and_stderr_are_dev_null),
		cmocka_unit_test(test_no_other_descriptor_reaches_the_probe),
		cmocka_unit_test(test_runs_in_its_own_process_group),
		cmocka_unit_test(test_exec_failure_is_a_failed_probe_not_an_error),
		cmocka_unit_test(test_bound_kills_the_group_even_when_term_is_ignored),
		cmocka_unit_test(test_leftovers_are_killed_after_an_ordinary_exit),
		cmocka_unit_test(test_fractional_bound_still_bounds),
		cmocka_unit_test(test_bad_arguments_are_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
