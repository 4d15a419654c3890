/* SPDX-License-Identifier: MIT */
/*
 * Spawning (SPEC 8 and 9): the child's session and descriptors, capture
 * and tee, start failures reported by step (and which of them are evidence
 * of a broken runner), settlement classification with each run's own facts,
 * and the timeout that ends the whole tree.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#include "config.h"
#include "confine.h"
#include "spawn-fixtures.h"
#include "spawn-internal.h"

#if HAVE_LIBPROC
#include <libproc.h>
#endif

static char *tmp;           /* per-test scratch directory */
static char *passthrough;   /* fake runner that execs the command */

static int setup(void **state) {
	(void)state;
	tmp = fx_tmpdir();
	if (!tmp)
		return -1;
	passthrough = tl_write_file(tmp, "runner", fx_passthrough_script, 0755);
	return passthrough ? 0 : -1;
}

static int teardown(void **state) {
	(void)state;
	fx_rmrf(tmp);
	free(tmp);
	free(passthrough);
	tmp = passthrough = NULL;
	return 0;
}

static void capture_both(confine_spawn_options *o) {
	o->stdio[1].kind = CONFINE_STDIO_CAPTURE;
	o->stdio[2].kind = CONFINE_STDIO_CAPTURE;
}

/* Runs `sh -c script` unconfined with both outputs captured. */
static confine_outcome *run_sh(const char *script, unsigned timeout_ms) {
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_spawn_options o;
	confine_outcome *out = NULL;
	confine_error err = { 0 };
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.stdio[0].kind = CONFINE_STDIO_NULL;
	capture_both(&o);
	o.timeout_ms = timeout_ms;
	if (confine_run(&o, &out, &err) < 0)
		fail_msg("run failed: %s", err.message);
	return out;
}

/* Runs `sh -c script` behind the fake `runner` with `facts`. */
static confine_outcome *run_confined(const char *runner, const struct fx_facts *facts,
                                     const char *script) {
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_argv *c = fx_confined(runner, facts, CONFINE_MODE_READ_ONLY, tmp, argv);
	confine_spawn_options o;
	confine_outcome *out = NULL;
	confine_error err = { 0 };
	confine_spawn_options_init(&o);
	o.confined = c;
	capture_both(&o);
	if (confine_run(&o, &out, &err) < 0)
		fail_msg("confined run failed: %s", err.message);
	confine_argv_free(c);
	return out;
}

/* Starts a confined `true` behind `runner` and expects it not to start. */
static int start_confined_failure(const char *runner, const char *workdir, confine_error *err) {
	const char *argv[] = { "true", NULL };
	confine_argv *c = fx_confined(runner, &fx_fake_facts, CONFINE_MODE_READ_ONLY, tmp, argv);
	confine_spawn_options o;
	confine_process *p = NULL;
	int r;
	confine_spawn_options_init(&o);
	o.confined = c;
	o.workdir = workdir;
	r = confine_spawn(&o, &p, err);
	assert_null(p);
	confine_argv_free(c);
	return r;
}

static bool ends_with(const char *s, const char *suffix) {
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Whether `path` exists within `ms`: the bounds given here only prove that
 * a run got to a step it announces (TL_GONE_BOUND_MS). */
static bool file_appears_within(const char *path, long long ms) {
	long long until = tl_now_ms() + ms;
	while (!tl_exists(path) && tl_now_ms() < until)
		usleep(10000);
	return tl_exists(path);
}

/* ------------------------------------------------------------------------ */

static void test_captures_both_streams_and_the_exit_code(void **state) {
	confine_outcome *o = run_sh("echo out; echo err >&2; exit 3", 0);
	(void)state;
	assert_false(o->signaled);
	assert_int_equal(o->exit_code, 3);
	assert_string_equal(o->stdout_data, "out\n");
	assert_int_equal(o->stdout_len, 4);
	assert_string_equal(o->stderr_data, "err\n");
	assert_false(o->stdout_truncated);
	assert_false(o->confined);
	assert_int_equal(o->mode, CONFINE_MODE_DANGER_FULL_ACCESS);
	assert_false(o->denied);
	assert_false(o->runner_failed);
	confine_outcome_free(o);
}

static void test_uncaptured_streams_are_null(void **state) {
	const char *argv[] = { "true", NULL };
	confine_spawn_options o;
	confine_outcome *out = NULL;
	(void)state;
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.stdio[1].kind = CONFINE_STDIO_NULL;
	o.stdio[2].kind = CONFINE_STDIO_NULL;
	assert_int_equal(confine_run(&o, &out, NULL), 0);
	assert_null(out->stdout_data);
	assert_null(out->stderr_data);
	assert_int_equal(out->exit_code, 0);
	confine_outcome_free(out);
}

static void test_child_is_a_session_leader(void **state) {
	/* Read from outside while the command runs (spawn returns once it has
	 * exec'd, so its setsid is done), with POSIX calls: no /proc needed. */
	const char *argv[] = { "sleep", "10", NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	pid_t pid;
	(void)state;
	confine_spawn_options_init(&o);
	o.argv = argv;
	capture_both(&o);
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	pid = confine_process_pid(p);
	assert_true(pid > 0);
	assert_int_equal(getpgid(pid), pid);
	assert_int_equal(getsid(pid), pid);
	assert_int_not_equal(getsid(0), pid);
	confine_process_free(p);
}

/* The descriptors a running process holds, as "0 1 2 ", read from outside:
 * /proc/PID/fd on Linux, libproc on macOS. */
static void fd_listing(pid_t pid, char *out, size_t size) {
	int fds[64], n = 0;
#if HAVE_LIBPROC
	struct proc_fdinfo info[64];
	int bytes = proc_pidinfo(pid, PROC_PIDLISTFDS, 0, info, (int)sizeof info);
	assert_true(bytes > 0);
	for (int i = 0; i < bytes / (int)sizeof info[0] && n < 64; i++)
		fds[n++] = info[i].proc_fd;
#else
	char path[64];
	DIR *d;
	struct dirent *e;
	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	d = opendir(path);
	assert_non_null(d);
	while ((e = readdir(d)) && n < 64)
		if (e->d_name[0] != '.')
			fds[n++] = atoi(e->d_name);
	closedir(d);
#endif
	/* sort */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (fds[j] < fds[i]) {
				int t = fds[i];
				fds[i] = fds[j];
				fds[j] = t;
			}
	out[0] = '\0';
	for (int i = 0; i < n; i++)
		snprintf(out + strlen(out), size - strlen(out), "%d ", fds[i]);
}

/* `--hold` (see main): this binary as a child that opens nothing of its
 * own once it runs: it says "ready" on stdout, then waits for EOF on stdin. */
static int hold_until_stdin_closes(void) {
	char byte;
	ssize_t n;
	if (write(1, "ready\n", 6) != 6)
		return 1;
	while ((n = read(0, &byte, 1)) != 0)
		if (n < 0 && errno != EINTR)
			return 1;
	return 0;
}

static void test_descriptors_above_2_are_closed_in_the_child(void **state) {
	int plain, high;
	int pfd[2], to_child[2], from_child[2];
	char script[512], listing[256], self[4096], ready[16] = "";
	const char *argv[] = { self, "--hold", NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_outcome *out;
	(void)state;
	/* Checked in a fresh, native copy of this binary: under valgrind a
	 * forked child's exec is emulated, and the descriptor valgrind opens to
	 * read the program can leak into it (seen as a stray fd 3, or fd 0 when
	 * 0 was closed), which says nothing about the library. */
	if (fx_ran_in_fresh_copy(__func__))
		return;
	plain = open("/dev/null", O_RDONLY); /* deliberately not close-on-exec */
	high = dup2(plain, 57);
	assert_true(plain >= 3);
	assert_int_equal(high, 57);
	assert_int_equal(pipe(pfd), 0); /* no O_CLOEXEC either */

	/* From inside: none of them is open in the child. /dev/fd/N is the
	 * shell's own descriptor N on Linux and macOS; "checked" only prints
	 * when it shows an open one (stdout), so the check cannot pass blind. */
	snprintf(script, sizeof script,
	         "for n in %d %d %d %d; do [ -e /dev/fd/$n ] && echo leaked $n; done; "
	         "[ -e /dev/fd/1 ] && echo checked",
	         plain, high, pfd[0], pfd[1]);
	out = run_sh(script, 0);
	assert_string_equal(out->stdout_data, "checked\n");
	confine_outcome_free(out);

	/* From outside: a running child (after exec) holds exactly 0, 1, 2.
	 * Listed once the child says it is ready, never just after its exec: a
	 * starting program opens descriptors of its own (the dynamic loader
	 * reads libc.so.6, setlocale the locale files, each at 3 for a moment),
	 * and a listing taken then showed "0 1 2 3" under load, the 3 being
	 * sleep(1)'s own locale file. The child is this binary (--hold), which
	 * past "ready" opens nothing and only waits for EOF on stdin. */
	fx_self(self, sizeof self);
	assert_int_equal(cf_pipe_cloexec(to_child), 0);
	assert_int_equal(cf_pipe_cloexec(from_child), 0);
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.stdio[0].kind = CONFINE_STDIO_FD;
	o.stdio[0].fd = to_child[0];
	o.stdio[1].kind = CONFINE_STDIO_FD;
	o.stdio[1].fd = from_child[1];
	o.stdio[2].kind = CONFINE_STDIO_CAPTURE;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	close(to_child[0]); /* the child holds its own copies */
	close(from_child[1]);
	/* A rendezvous, no clock: the read returns once the child wrote, or at
	 * EOF if it ended first. */
	assert_int_equal(read(from_child[0], ready, sizeof ready - 1), 6);
	assert_string_equal(ready, "ready\n");
	fd_listing(confine_process_pid(p), listing, sizeof listing);
	assert_string_equal(listing, "0 1 2 ");
	close(to_child[1]); /* EOF on its stdin: it ends */
	assert_int_equal(confine_process_wait(p, &out, NULL), 0);
	assert_false(out->signaled);
	assert_int_equal(out->exit_code, 0);
	confine_outcome_free(out);
	confine_process_free(p);
	close(from_child[0]);

	close(plain);
	close(high);
	close(pfd[0]);
	close(pfd[1]);
}

static void test_signal_mask_and_dispositions_are_reset(void **state) {
	sigset_t block, old;
	struct sigaction ign, old_int;
	confine_outcome *o;
	(void)state;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	/* /proc where it exists; else ps(1)'s sigmask and sigignore, the same
	 * hex bit masks (bit sig-1) on macOS's ps and on procps. */
	o = run_sh("if [ -r /proc/self/status ]; then grep -E '^Sig(Blk|Ign):' /proc/self/status; "
	           "else ps -o sigmask= -o sigignore= -p $$ | "
	           "{ read b i; printf 'SigBlk:\\t%s\\nSigIgn:\\t%s\\n' \"$b\" \"$i\"; }; fi",
	           0);
	sigaction(SIGINT, &old_int, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	{
		/* Only the signals this test changed are checked: the environment
		 * that runs the suite may already ignore glibc's internal real-time
		 * signals (32, 33), which no libc call can reset. */
		unsigned long long blocked = 0, ignored = 0;
		const unsigned long long bit_usr1 = 1ULL << (SIGUSR1 - 1);
		const unsigned long long bit_term = 1ULL << (SIGTERM - 1);
		const unsigned long long bit_int = 1ULL << (SIGINT - 1);
		assert_int_equal(sscanf(o->stdout_data, "SigBlk:\t%llx\nSigIgn:\t%llx", &blocked,
		                        &ignored), 2);
		assert_int_equal(blocked & (bit_usr1 | bit_term), 0);
		assert_int_equal(ignored & bit_int, 0);
	}
	confine_outcome_free(o);
}

static void test_stdin_null_and_fd_redirection(void **state) {
	const char *argv[] = { "sh", "-c", "cat; echo to-file; echo to-err >&2", NULL };
	char *path = NULL;
	int fd;
	char buf[64] = { 0 };
	confine_spawn_options o;
	confine_outcome *out = NULL;
	(void)state;
	assert_true(asprintf(&path, "%s/out.txt", tmp) > 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.stdio[0].kind = CONFINE_STDIO_NULL; /* cat sees EOF at once */
	o.stdio[1].kind = CONFINE_STDIO_FD;
	o.stdio[1].fd = fd;
	o.stdio[2].kind = CONFINE_STDIO_FD; /* stderr onto the same file */
	o.stdio[2].fd = fd;
	assert_int_equal(confine_run(&o, &out, NULL), 0);
	assert_int_equal(out->exit_code, 0);
	close(fd);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(read(fd, buf, sizeof buf - 1) > 0);
	close(fd);
	assert_string_equal(buf, "to-file\nto-err\n");
	confine_outcome_free(out);
	free(path);
}

static void test_swapped_stdout_and_stderr(void **state) {
	/* stdout -> our stderr pipe and stderr -> our stdout pipe: the child's
	 * dup2 order must not clobber a source it still needs. */
	int a[2], b[2];
	const char *argv[] = { "sh", "-c", "echo O; echo E >&2", NULL };
	confine_spawn_options o;
	confine_outcome *out = NULL;
	char buf[16] = { 0 };
	int saved1 = dup(1), saved2 = dup(2);
	(void)state;
	assert_int_equal(cf_pipe_cloexec(a), 0);
	assert_int_equal(cf_pipe_cloexec(b), 0);
	/* make our 1 and 2 the two pipes' write ends for the duration */
	fflush(stdout);
	fflush(stderr);
	dup2(a[1], 1);
	dup2(b[1], 2);
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.stdio[1].kind = CONFINE_STDIO_FD;
	o.stdio[1].fd = 2;
	o.stdio[2].kind = CONFINE_STDIO_FD;
	o.stdio[2].fd = 1;
	assert_int_equal(confine_run(&o, &out, NULL), 0);
	dup2(saved1, 1);
	dup2(saved2, 2);
	close(saved1);
	close(saved2);
	close(a[1]);
	close(b[1]);
	assert_int_equal(read(a[0], buf, sizeof buf - 1), 2);
	assert_string_equal(buf, "E\n");
	memset(buf, 0, sizeof buf);
	assert_int_equal(read(b[0], buf, sizeof buf - 1), 2);
	assert_string_equal(buf, "O\n");
	close(a[0]);
	close(b[0]);
	confine_outcome_free(out);
}

static void test_a_stream_the_caller_closed_stays_closed(void **state) {
	/* In a forked test process (it changes its own descriptors): with fd 0
	 * closed, our own pipes land on 0; the child must not inherit them. */
	pid_t pid;
	int status;
	(void)state;
	/* Checked in a fresh, native copy of this binary: under valgrind a
	 * forked child's exec is emulated, and the descriptor valgrind opens to
	 * read the program can leak into it (seen as a stray fd 3, or fd 0 when
	 * 0 was closed), which says nothing about the library. */
	if (fx_ran_in_fresh_copy(__func__))
		return;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* /dev/fd/1 (the capture pipe) is the control that the listing
		 * works here at all. */
		const char *argv[] = { "sh", "-c",
			               "[ -e /dev/fd/1 ] || echo no-listing; "
			               "[ -e /dev/fd/0 ] && echo open || echo closed",
			               NULL };
		confine_spawn_options o;
		confine_outcome *out = NULL;
		close(0);
		confine_spawn_options_init(&o);
		o.argv = argv; /* stdin inherited: closed */
		capture_both(&o);
		if (confine_run(&o, &out, NULL) < 0)
			_exit(2);
		_exit(strcmp(out->stdout_data, "closed\n") == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_environment_is_the_given_one(void **state) {
	const char *argv[] = { "sh", "-c", "echo \"$FOO|$HOME\"", NULL };
	const char *envp[] = { "FOO=bar", "PATH=/usr/bin:/bin", NULL };
	confine_spawn_options o;
	confine_outcome *out = NULL;
	(void)state;
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.envp = envp;
	capture_both(&o);
	assert_int_equal(confine_run(&o, &out, NULL), 0);
	assert_string_equal(out->stdout_data, "bar|\n");
	confine_outcome_free(out);
}

static void test_capture_is_capped_with_a_truncation_flag(void **state) {
	const char *argv[] = { "sh", "-c",
		               "head -c 100000 /dev/zero | tr '\\0' a; head -c 10 /dev/zero | tr '\\0' b >&2",
		               NULL };
	confine_spawn_options o;
	confine_outcome *out = NULL;
	(void)state;
	confine_spawn_options_init(&o);
	o.argv = argv;
	capture_both(&o);
	o.capture_limit = 1000;
	assert_int_equal(confine_run(&o, &out, NULL), 0);
	/* the child was drained, not blocked on a full pipe */
	assert_int_equal(out->exit_code, 0);
	assert_int_equal(out->stdout_len, 1000);
	assert_int_equal(strlen(out->stdout_data), 1000);
	assert_true(out->stdout_truncated);
	assert_int_equal(out->stderr_len, 10);
	assert_false(out->stderr_truncated);
	confine_outcome_free(out);
}

static void test_default_cap_is_64000_bytes(void **state) {
	confine_outcome *exact = run_sh("head -c 64000 /dev/zero | tr '\\0' x", 0);
	confine_outcome *over = run_sh("head -c 64001 /dev/zero | tr '\\0' x", 0);
	(void)state;
	assert_int_equal(exact->stdout_len, 64000);
	assert_false(exact->stdout_truncated);
	assert_int_equal(over->stdout_len, 64000);
	assert_true(over->stdout_truncated);
	confine_outcome_free(exact);
	confine_outcome_free(over);
}

static void test_tee_copies_live_and_captures(void **state) {
	const char *argv[] = { "sh", "-c", "echo live >&2; exec sleep 30", NULL };
	int pfd[2];
	confine_spawn_options o;
	confine_process *p = NULL;
	char buf[32] = { 0 };
	ssize_t got = 0;
	long long until = tl_now_ms() + TL_GONE_BOUND_MS;
	(void)state;
	assert_int_equal(cf_pipe_cloexec(pfd), 0);
	assert_int_equal(fcntl(pfd[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(fcntl(pfd[1], F_SETFL, O_NONBLOCK), 0);
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.stdio[2].kind = CONFINE_STDIO_TEE;
	o.stdio[2].fd = pfd[1];
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	/* The copy arrives while the child still runs. */
	while (got <= 0 && tl_now_ms() < until) {
		assert_int_equal(confine_process_poll(p, NULL), 0);
		got = read(pfd[0], buf, sizeof buf - 1);
		if (got <= 0)
			usleep(10000);
	}
	assert_int_equal(got, 5);
	assert_string_equal(buf, "live\n");
	assert_int_equal(confine_process_signal(p, SIGKILL), 0);
	{
		confine_outcome *out = NULL;
		assert_int_equal(confine_process_wait(p, &out, NULL), 0);
		assert_string_equal(out->stderr_data, "live\n");
		assert_true(out->signaled);
		assert_int_equal(out->signal, SIGKILL);
		confine_outcome_free(out);
	}
	confine_process_free(p);
	close(pfd[0]);
	close(pfd[1]);
}

static void test_tee_to_a_closed_reader_does_not_kill_the_caller(void **state) {
	int pfd[2];
	const char *argv[] = { "sh", "-c", "echo one >&2; echo two >&2", NULL };
	confine_spawn_options o;
	confine_outcome *out = NULL;
	(void)state;
	assert_int_equal(cf_pipe_cloexec(pfd), 0);
	close(pfd[0]); /* writes now raise SIGPIPE / EPIPE */
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.stdio[2].kind = CONFINE_STDIO_TEE;
	o.stdio[2].fd = pfd[1];
	assert_int_equal(confine_run(&o, &out, NULL), 0);
	assert_string_equal(out->stderr_data, "one\ntwo\n");
	confine_outcome_free(out);
	close(pfd[1]);
}

static void test_missing_workdir_is_a_start_error_naming_it(void **state) {
	const char *argv[] = { "true", NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_error err = { 0 };
	(void)state;
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.workdir = "/nonexistent/confine-x";
	assert_int_equal(confine_spawn(&o, &p, &err), -ENOENT);
	assert_null(p);
	assert_int_equal(err.code, CONFINE_E_SPAWN);
	assert_int_equal(err.sys_errno, ENOENT);
	assert_string_equal(err.message, "cannot change to working directory "
	                                 "\"/nonexistent/confine-x\": No such file or directory");
}

static void test_unknown_program_is_a_start_error_naming_it(void **state) {
	const char *argv[] = { "confine-no-such-program", NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_error err = { 0 };
	(void)state;
	confine_spawn_options_init(&o);
	o.argv = argv;
	assert_int_equal(confine_spawn(&o, &p, &err), -ENOENT);
	assert_int_equal(err.code, CONFINE_E_SPAWN);
	assert_string_equal(err.message,
	                    "cannot execute \"confine-no-such-program\": No such file or directory");
}

static void test_failed_start_leaves_no_child(void **state) {
	const char *argv[] = { "confine-no-such-program", NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	(void)state;
	confine_spawn_options_init(&o);
	o.argv = argv;
	assert_true(confine_spawn(&o, &p, NULL) < 0);
	/* reaped: no zombie child of ours is left */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_missing_runner_is_sandbox_unavailable_naming_it(void **state) {
	confine_error err = { 0 };
	char *runner = NULL;
	char suffix[4200];
	(void)state;
	assert_true(asprintf(&runner, "%s/missing-runner", tmp) > 0);
	assert_int_equal(start_confined_failure(runner, NULL, &err), -EHOSTUNREACH);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_non_null(strstr(err.message, "sandbox mode \"read-only\" is requested"));
	snprintf(suffix, sizeof suffix,
	         " Runner failure: cannot execute %s: No such file or directory", runner);
	assert_true(ends_with(err.message, suffix));
	free(runner);
}

static void test_non_executable_runner_is_sandbox_unavailable(void **state) {
	confine_error err = { 0 };
	char *runner = tl_write_file(tmp, "runner-0644", fx_passthrough_script, 0644);
	char suffix[4200];
	(void)state;
	assert_int_equal(start_confined_failure(runner, NULL, &err), -EHOSTUNREACH);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	snprintf(suffix, sizeof suffix, " Runner failure: cannot execute %s: Permission denied",
	         runner);
	assert_true(ends_with(err.message, suffix));
	free(runner);
}

static void test_runner_with_missing_interpreter_is_sandbox_unavailable(void **state) {
	confine_error err = { 0 };
	char *runner;
	char suffix[4200];
	(void)state;
	/* valgrind cannot survive this execve failure: see spawn-fixtures.h. */
	if (fx_ran_in_fresh_copy(__func__))
		return;
	runner = tl_write_file(tmp, "runner-shebang", "#!/nonexistent/interpreter\nexit 0\n", 0755);
	assert_int_equal(start_confined_failure(runner, NULL, &err), -EHOSTUNREACH);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	snprintf(suffix, sizeof suffix,
	         " Runner failure: cannot execute %s: No such file or directory", runner);
	assert_true(ends_with(err.message, suffix));
	free(runner);
}

static void test_missing_workdir_with_a_broken_runner_is_an_ordinary_start_error(void **state) {
	static const char *const runners[] = { "missing-runner", "runner-0644", "runner-shebang" };
	(void)state;
	free(tl_write_file(tmp, "runner-0644", fx_passthrough_script, 0644));
	free(tl_write_file(tmp, "runner-shebang", "#!/nonexistent/interpreter\n", 0755));
	for (size_t i = 0; i < 3; i++) {
		confine_error err = { 0 };
		char *runner = NULL;
		assert_true(asprintf(&runner, "%s/%s", tmp, runners[i]) > 0);
		assert_int_equal(start_confined_failure(runner, "/nonexistent/confine-wd", &err),
		                 -ENOENT);
		assert_int_equal(err.code, CONFINE_E_SPAWN);
		assert_null(strstr(err.message, "Runner failure"));
		assert_string_equal(err.message, "cannot change to working directory "
		                                 "\"/nonexistent/confine-wd\": No such file or "
		                                 "directory");
		free(runner);
	}
}

static void test_malformed_executable_is_never_sandbox_unavailable(void **state) {
	confine_error err = { 0 };
	char *runner = tl_write_file(tmp, "runner-garbage", "\x7f" "garbage, not an executable\n", 0755);
	(void)state;
	assert_int_equal(start_confined_failure(runner, NULL, &err), -ENOEXEC);
	assert_int_equal(err.code, CONFINE_E_SPAWN);
	assert_null(strstr(err.message, "Runner failure"));
	assert_non_null(strstr(err.message, runner));
	free(runner);
}

static void test_runner_refusal_matching_a_rule_is_a_runner_failure(void **state) {
	char *runner = tl_write_file(tmp, "refusing", fx_refusing_script, 0755);
	confine_outcome *o = run_confined(runner, &fx_fake_facts, "echo ran");
	confine_error err = { 0 };
	(void)state;
	assert_int_equal(o->exit_code, 125);
	assert_true(o->confined);
	assert_true(o->runner_failed);
	assert_false(o->denied);
	assert_string_equal(o->runner_failure_detail, "fake-runner: ruleset rejected");
	assert_string_equal(o->stdout_data, ""); /* the command never ran */
	assert_int_equal(confine_outcome_error(o, &err), -EHOSTUNREACH);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_true(ends_with(err.message, " Runner failure: fake-runner: ruleset rejected"));
	confine_outcome_free(o);
	free(runner);
}

static void test_runner_line_with_permission_denied_is_a_runner_failure_not_a_denial(void **state) {
	char *runner = tl_write_file(tmp, "refusing-eacces",
	                        "#!/bin/sh\n"
	                        "echo 'fake-runner: cannot open rule path: /x: Permission denied' >&2\n"
	                        "exit 125\n",
	                        0755);
	confine_outcome *o = run_confined(runner, &fx_fake_facts, "true");
	(void)state;
	assert_true(o->runner_failed);
	assert_false(o->denied);
	assert_string_equal(o->runner_failure_detail,
	                    "fake-runner: cannot open rule path: /x: Permission denied");
	confine_outcome_free(o);
	free(runner);
}

static void test_partial_notice_with_child_exits_is_ordinary(void **state) {
	static const int exits[] = { 0, 1, 2, 125, 126, 127 };
	char *runner = tl_write_file(tmp, "partial", fx_partial_script, 0755);
	(void)state;
	for (size_t i = 0; i < sizeof exits / sizeof exits[0]; i++) {
		char script[64];
		confine_outcome *o;
		snprintf(script, sizeof script, "echo child-output; exit %d", exits[i]);
		o = run_confined(runner, &fx_landlock_facts, script);
		assert_false(o->signaled);
		assert_int_equal(o->exit_code, exits[i]);
		assert_false(o->runner_failed);
		assert_false(o->denied);
		assert_int_equal(o->runner, CONFINE_RUNNER_LANDLOCK);
		assert_int_equal(o->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
		assert_string_equal(o->stdout_data, "child-output\n");
		assert_string_equal(o->stderr_data, FX_LANDLOCK_NOTICE "\n");
		confine_outcome_free(o);
	}
	free(runner);
}

static void test_partial_notice_with_child_permission_denied_is_denied(void **state) {
	char *runner = tl_write_file(tmp, "partial", fx_partial_script, 0755);
	confine_outcome *o =
		run_confined(runner, &fx_landlock_facts, "echo 'child: Permission denied' >&2; exit 1");
	(void)state;
	assert_int_equal(o->exit_code, 1);
	assert_false(o->runner_failed);
	assert_true(o->denied);
	assert_int_equal(o->mode, CONFINE_MODE_READ_ONLY);
	confine_outcome_free(o);
	free(runner);
}

/* A refusal printed before the run was killed is still a refusal (doc/SPEC.md
 * 8); a signal death is never a runner failure. */
static void test_signal_death_keeps_its_denial_and_is_no_runner_failure(void **state) {
	confine_outcome *o = run_confined(passthrough, &fx_landlock_facts,
	                                  "echo 'x: Permission denied' >&2; kill -TERM $$; sleep 5");
	(void)state;
	assert_true(o->signaled);
	assert_int_equal(o->signal, SIGTERM);
	assert_true(o->denied);
	assert_false(o->runner_failed);
	confine_outcome_free(o);
}

static void test_exit_126_and_127_without_a_rule_match_stay_ordinary(void **state) {
	confine_outcome *o = run_confined(passthrough, &fx_fake_facts, "confine-no-such-cmd");
	(void)state;
	assert_int_equal(o->exit_code, 127);
	assert_false(o->runner_failed);
	assert_false(o->denied);
	confine_outcome_free(o);
}

/* What one spawned run left behind once confine_process_wait returned. */
typedef struct settled {
	confine_outcome *out;
	long long took_ms; /* from spawn to settled */
	bool group_gone;   /* its process group had no live member (within
	                    * TL_GONE_BOUND_MS) before confine_process_free, which
	                    * kills what is left */
} settled;

/* Spawns `sh -c script` unconfined (outputs captured when `capture`, since a
 * background child holding the pipes is part of what is tested) and waits. */
static settled spawn_and_settle(const char *script, bool capture, unsigned timeout_ms) {
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	settled s = { 0 };
	long long start = tl_now_ms();
	pid_t pgid;
	confine_spawn_options_init(&o);
	o.argv = argv;
	if (capture)
		capture_both(&o);
	o.timeout_ms = timeout_ms;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	pgid = confine_process_pid(p);
	assert_int_equal(confine_process_wait(p, &s.out, NULL), 0);
	s.took_ms = tl_now_ms() - start;
	s.group_gone = tl_group_gone_within(pgid, TL_GONE_BOUND_MS);
	confine_process_free(p);
	return s;
}

static void test_timeout_kills_the_whole_tree(void **state) {
	settled s = spawn_and_settle("sleep 1000 & sleep 1000 & sleep 1000; wait", true, 300);
	(void)state;
	assert_true(s.out->timed_out);
	assert_true(s.out->signaled);
	assert_int_equal(s.out->signal, SIGTERM);
	/* only proves the timeout fired (the tree sleeps 1000 s): wide margin */
	assert_true(s.took_ms < 60000);
	assert_true(s.group_gone);
	confine_outcome_free(s.out);
}

static void test_term_ignoring_child_gets_sigkill_after_the_grace(void **state) {
	settled s = spawn_and_settle("trap '' TERM; sleep 1000", false, 200);
	(void)state;
	assert_true(s.out->timed_out);
	assert_true(s.out->signaled);
	assert_int_equal(s.out->signal, SIGKILL);
	assert_true(s.took_ms >= 200 + CONFINE_KILL_GRACE_MS - 50);
	/* the SIGKILL came (the child ignores TERM and sleeps 1000 s): wide margin */
	assert_true(s.took_ms < 60000);
	assert_true(s.group_gone);
	confine_outcome_free(s.out);
}

static void test_background_leftovers_do_not_outlive_the_run(void **state) {
	settled s = spawn_and_settle("sleep 1000 & echo started", true, 0);
	(void)state;
	/* the run did not wait for its background child (it sleeps 1000 s) */
	assert_true(s.took_ms < 60000);
	assert_int_equal(s.out->exit_code, 0);
	assert_false(s.out->timed_out);
	assert_string_equal(s.out->stdout_data, "started\n");
	assert_true(s.group_gone);
	confine_outcome_free(s.out);
}

static void test_poll_reports_running_then_settled(void **state) {
	char go[512], script[700];
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_outcome *out = NULL;
	long long until;
	int r;
	(void)state;
	/* It cannot end before `go` exists (a rendezvous: "running" is no
	 * guess about how long a sleep lasts); its wait for it is bounded by
	 * 1200 polls, 60 s at least. */
	snprintf(go, sizeof go, "%s/go", tmp);
	snprintf(script, sizeof script,
	         "i=0; while [ ! -e '%s' ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i+1)); done; "
	         "exit 4",
	         go);
	confine_spawn_options_init(&o);
	o.argv = argv;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	assert_int_equal(confine_process_poll(p, NULL), 0);
	free(tl_write_file(tmp, "go", "", 0644));
	until = tl_now_ms() + TL_GONE_BOUND_MS;
	while ((r = confine_process_poll(p, NULL)) == 0 && tl_now_ms() < until)
		usleep(5000);
	assert_int_equal(r, 1);
	assert_int_equal(confine_process_wait(p, &out, NULL), 0);
	assert_int_equal(out->exit_code, 4);
	assert_int_equal(confine_process_signal(p, SIGTERM), -ESRCH);
	confine_outcome_free(out);
	confine_process_free(p);
}

static void test_overlapping_runs_keep_their_own_facts(void **state) {
	/* Both print bwrap's denial text. Under the read-only bwrap wrap that is
	 * a denial; under the workspace-write Landlock wrap it is not. */
	const char *argv[] = { "sh", "-c", "pwd; echo 'x: Read-only file system' >&2; sleep 0.3; exit 1",
		               NULL };
	char *dir_a = NULL, *dir_b = NULL, *want_a = NULL, *want_b = NULL;
	confine_argv *a, *b;
	confine_spawn_options oa, ob;
	confine_process *pa = NULL, *pb = NULL;
	confine_outcome *ra = NULL, *rb = NULL;
	(void)state;
	assert_true(asprintf(&dir_a, "%s/a", tmp) > 0 && mkdir(dir_a, 0700) == 0);
	assert_true(asprintf(&dir_b, "%s/b", tmp) > 0 && mkdir(dir_b, 0700) == 0);
	a = fx_confined(passthrough, &fx_bwrap_facts, CONFINE_MODE_READ_ONLY, dir_a, argv);
	b = fx_confined(passthrough, &fx_landlock_facts, CONFINE_MODE_WORKSPACE_WRITE, dir_b, argv);
	confine_spawn_options_init(&oa);
	oa.confined = a;
	capture_both(&oa);
	confine_spawn_options_init(&ob);
	ob.confined = b;
	capture_both(&ob);
	assert_int_equal(confine_spawn(&oa, &pa, NULL), 0);
	assert_int_equal(confine_spawn(&ob, &pb, NULL), 0);
	/* The processes hold copies: the wraps can go. */
	confine_argv_free(a);
	confine_argv_free(b);
	assert_int_equal(confine_process_wait(pb, &rb, NULL), 0);
	assert_int_equal(confine_process_wait(pa, &ra, NULL), 0);

	assert_true(asprintf(&want_a, "%s\n", dir_a) > 0);
	assert_true(asprintf(&want_b, "%s\n", dir_b) > 0);
	assert_string_equal(ra->stdout_data, want_a); /* default workdir: the root */
	assert_string_equal(rb->stdout_data, want_b);
	assert_true(ra->denied);
	assert_int_equal(ra->mode, CONFINE_MODE_READ_ONLY);
	assert_int_equal(ra->runner, CONFINE_RUNNER_BWRAP);
	assert_int_equal(ra->enforcement, CONFINE_ENFORCEMENT_FULL);
	assert_false(rb->denied);
	assert_int_equal(rb->mode, CONFINE_MODE_WORKSPACE_WRITE);
	assert_int_equal(rb->runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(rb->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
	confine_outcome_free(ra);
	confine_outcome_free(rb);
	confine_process_free(pa);
	confine_process_free(pb);
	free(dir_a);
	free(dir_b);
	free(want_a);
	free(want_b);
}

static void test_free_of_a_running_process_kills_its_group(void **state) {
	char ready[512], script[700];
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	pid_t pid;
	(void)state;
	/* `ready` is written once the background sleep is forked: the group
	 * has more than its leader when it is freed (a rendezvous, not a
	 * pause). */
	snprintf(ready, sizeof ready, "%s/ready", tmp);
	snprintf(script, sizeof script, "sleep 1000 & touch '%s'; sleep 1000", ready);
	confine_spawn_options_init(&o);
	o.argv = argv;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	pid = confine_process_pid(p);
	assert_true(file_appears_within(ready, TL_GONE_BOUND_MS));
	confine_process_free(p);
	assert_true(tl_group_gone_within(pid, TL_GONE_BOUND_MS));
}

static void test_invalid_options_name_the_problem(void **state) {
	const char *argv[] = { "true", NULL };
	const char *empty[] = { NULL };
	confine_argv *c = fx_confined(passthrough, &fx_fake_facts, CONFINE_MODE_READ_ONLY, "/", argv);
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_error err = { 0 };
	(void)state;

	confine_spawn_options_init(&o);
	assert_int_equal(confine_spawn(&o, &p, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);

	o.argv = argv;
	o.confined = c;
	assert_int_equal(confine_spawn(&o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.message, "exactly one"));

	o.confined = NULL;
	o.argv = empty;
	assert_int_equal(confine_spawn(&o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.message, "non-empty argv"));

	o.argv = argv;
	o.stdio[0].kind = CONFINE_STDIO_CAPTURE;
	assert_int_equal(confine_spawn(&o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.message, "stdin"));

	o.stdio[0].kind = CONFINE_STDIO_INHERIT;
	o.stdio[1].kind = CONFINE_STDIO_FD;
	o.stdio[1].fd = 987;
	assert_int_equal(confine_spawn(&o, &p, &err), -EBADF);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);
	assert_non_null(strstr(err.message, "stdout descriptor 987"));

	o.stdio[1].kind = CONFINE_STDIO_INHERIT;
	o.stdio[2].kind = CONFINE_STDIO_TEE;
	o.stdio[2].fd = -1;
	assert_int_equal(confine_spawn(&o, &p, &err), -EBADF);
	assert_non_null(strstr(err.message, "stderr descriptor -1"));

	/* a confined argv for danger-full-access is a contradiction */
	o.stdio[2].kind = CONFINE_STDIO_INHERIT;
	o.argv = NULL;
	c->policy.mode = CONFINE_MODE_DANGER_FULL_ACCESS;
	o.confined = c;
	assert_int_equal(confine_spawn(&o, &p, &err), -EINVAL);
	assert_non_null(strstr(err.message, "danger-full-access"));
	assert_null(p);
	confine_argv_free(c);
}

static void test_outcome_error_is_zero_for_ordinary_outcomes(void **state) {
	confine_outcome o;
	confine_error err = { 0 };
	(void)state;
	memset(&o, 0, sizeof o);
	o.exit_code = 1;
	o.denied = true;
	assert_int_equal(confine_outcome_error(&o, &err), 0);
	assert_int_equal(err.code, CONFINE_OK);
	assert_int_equal(confine_outcome_error(NULL, &err), 0);
	confine_outcome_free(NULL);
	confine_process_free(NULL);
}

/* ---- the run's whole tree: signals, timeouts, leftovers ---- */

/* A duration no other process on the machine is sleeping. */
static void unique_duration(char *buf, size_t size, int salt) {
	snprintf(buf, size, "%ld", 800000L + (long)((getpid() * 7 + salt) % 99991));
}

/* Whether `sleep DURATION` has gone within `ms`. */
static bool sleep_gone_within(const char *duration, long long ms) {
	long long until = tl_now_ms() + ms;
	bool alive;
	while ((alive = tl_sleep_running(duration)) && tl_now_ms() < until)
		usleep(10000);
	return !alive;
}

/* A provider that names its runner relatively would have it looked up from
 * the working directory, the workspace: refused before anything runs, even
 * when a file of that name is there to run. */
static void test_confined_relative_runner_is_refused(void **state) {
	char *ran = NULL;
	const char *envp[] = { "PATH=", NULL }; /* an empty entry: the working directory */
	const char *argv[] = { "sh", "-c", "touch ran", NULL };
	confine_argv *c = fx_confined("runner", &fx_bwrap_facts, CONFINE_MODE_WORKSPACE_WRITE, tmp,
	                              argv);
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_error err;
	(void)state;
	assert_int_equal(asprintf(&ran, "%s/ran", tmp) > 0, 1);
	confine_spawn_options_init(&o);
	o.confined = c;
	o.envp = envp;
	assert_int_equal(confine_spawn(&o, &p, &err), -EINVAL);
	assert_null(p);
	assert_int_equal(err.code, CONFINE_E_INVALID_ARGUMENT);
	assert_non_null(strstr(err.message, "\"runner\" is not an absolute path"));
	/* Refused before any child started: none of ours exists, running or
	 * exited (a started one would be our child until reaped, and the
	 * passthrough runner execs the command, which writes before it
	 * exits), so `ran` can never appear. */
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_false(tl_exists(ran));
	free(ran);
	confine_argv_free(c);
}

#if CONFINE_OS_LINUX
/* A bwrap-shaped runner: the command in a session of its own below it, its
 * status passed on; like bwrap, it dies of a signal it does not handle. */
static const char supervising_runner[] =
	"#!/bin/sh\n"
	"while [ $# -gt 0 ] && [ \"$1\" != \"--\" ]; do shift; done\n"
	"shift\n"
	"setsid \"$@\" &\n"
	"wait $!\n";

/* Starts `script` under the supervising runner with bwrap's facts; returns
 * once the script wrote `ready`. */
static confine_process *start_supervised(const char *script, const char *ready,
                                         unsigned timeout_ms, confine_argv **ret_c) {
	char *runner = tl_write_file(tmp, "supervisor", supervising_runner, 0755);
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	assert_non_null(runner);
	*ret_c = fx_confined(runner, &fx_bwrap_facts, CONFINE_MODE_WORKSPACE_WRITE, tmp, argv);
	free(runner);
	confine_spawn_options_init(&o);
	o.confined = *ret_c;
	capture_both(&o);
	o.timeout_ms = timeout_ms;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	assert_true(file_appears_within(ready, TL_GONE_BOUND_MS));
	return p;
}

/* The signal for the command reaches the command, not the runner that
 * supervises it: the command's trap runs and its status comes back. */
static void test_signal_reaches_the_command_below_a_supervising_runner(void **state) {
	char ready[512], marker[512], script[1200];
	confine_argv *c;
	confine_process *p;
	confine_outcome *out = NULL;
	(void)state;
	snprintf(ready, sizeof ready, "%s/ready", tmp);
	snprintf(marker, sizeof marker, "%s/cleaned-up", tmp);
	snprintf(script, sizeof script, "trap 'touch \"%s\"; exit 7' TERM; touch \"%s\"; sleep 30",
	         marker, ready);
	p = start_supervised(script, ready, 0, &c);
	assert_int_equal(confine_process_signal(p, SIGTERM), 0);
	assert_int_equal(confine_process_wait(p, &out, NULL), 0);
	assert_false(out->signaled);
	assert_int_equal(out->exit_code, 7);
	assert_true(tl_exists(marker));
	confine_outcome_free(out);
	confine_process_free(p);
	confine_argv_free(c);
}

/* The same for a timeout's SIGTERM. */
static void test_timeout_reaches_the_command_below_a_supervising_runner(void **state) {
	char ready[512], marker[512], script[1200];
	confine_argv *c;
	confine_process *p;
	confine_outcome *out = NULL;
	(void)state;
	snprintf(ready, sizeof ready, "%s/ready", tmp);
	snprintf(marker, sizeof marker, "%s/cleaned-up", tmp);
	snprintf(script, sizeof script, "trap 'touch \"%s\"; exit 7' TERM; touch \"%s\"; sleep 30",
	         marker, ready);
	p = start_supervised(script, ready, 500, &c);
	assert_int_equal(confine_process_wait(p, &out, NULL), 0);
	assert_true(out->timed_out);
	assert_false(out->signaled);
	assert_int_equal(out->exit_code, 7);
	assert_true(tl_exists(marker));
	confine_outcome_free(out);
	confine_process_free(p);
	confine_argv_free(c);
}

/* Unconfined (and under Landlock) the signal reaches the child's group and
 * every session started below it. */
static void test_signal_reaches_a_descendant_session(void **state) {
	char ready[512], marker[512], script[1500];
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_outcome *out = NULL;
	(void)state;
	snprintf(ready, sizeof ready, "%s/ready", tmp);
	snprintf(marker, sizeof marker, "%s/inner-cleaned-up", tmp);
	/* The outer shell waits for the inner session when it gets the TERM
	 * too: otherwise it ends at once and the end-of-run kill may beat the
	 * inner trap (a flake under load). */
	snprintf(script, sizeof script,
	         "trap wait TERM; setsid sh -c 'trap \"touch %s; exit 0\" TERM; touch %s; sleep 30' "
	         "</dev/null >/dev/null 2>&1 & wait",
	         marker, ready);
	confine_spawn_options_init(&o);
	o.argv = argv;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	assert_true(file_appears_within(ready, TL_GONE_BOUND_MS));
	assert_int_equal(confine_process_signal(p, SIGTERM), 0);
	assert_int_equal(confine_process_wait(p, &out, NULL), 0);
	assert_true(file_appears_within(marker, TL_GONE_BOUND_MS));
	confine_outcome_free(out);
	confine_process_free(p);
}

/* A timeout reaches a descendant that started its own session, and so does
 * the kill of a process freed while running. */
static void test_timeout_and_free_reach_setsid_descendants(void **state) {
	char duration[32], script[256];
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_outcome *out = NULL;
	(void)state;
	unique_duration(duration, sizeof duration, 1);
	snprintf(script, sizeof script,
	         "setsid sleep %s </dev/null >/dev/null 2>&1 & sleep 1000", duration);
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.timeout_ms = 300;
	assert_int_equal(confine_run(&o, &out, NULL), 0);
	assert_true(out->timed_out);
	confine_outcome_free(out);
	assert_true(sleep_gone_within(duration, TL_GONE_BOUND_MS));

	unique_duration(duration, sizeof duration, 2);
	snprintf(script, sizeof script,
	         "setsid sleep %s </dev/null >/dev/null 2>&1 & sleep 1000", duration);
	o.timeout_ms = 0;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	{
		long long until = tl_now_ms() + TL_GONE_BOUND_MS;
		while (!tl_sleep_running(duration) && tl_now_ms() < until)
			usleep(10000);
		assert_true(tl_sleep_running(duration));
	}
	confine_process_free(p);
	assert_true(sleep_gone_within(duration, TL_GONE_BOUND_MS));
}

/* When the leader ends, a member of its group that started a descendant in
 * a session of its own takes it along: the group's members are found, and
 * what is still attached below them is killed. With the children files and
 * with the /proc scan that replaces them where they are absent. */
static void leftover_below_a_group_member(bool force_scan, int salt) {
	char duration[32], script[256];
	const char *argv[] = { "sh", "-c", script, NULL };
	confine_spawn_options o;
	confine_outcome *out = NULL;
	unique_duration(duration, sizeof duration, salt);
	snprintf(script, sizeof script,
	         "(setsid sleep %s </dev/null >/dev/null 2>&1 & wait) & "
	         "while ! pgrep -f '^sleep %s$' >/dev/null; do sleep 0.05; done; exit 0",
	         duration, duration);
	cf_process_tree_force_scan(force_scan);
	confine_spawn_options_init(&o);
	o.argv = argv;
	o.timeout_ms = TL_GONE_BOUND_MS; /* only ends a run that went wrong */
	assert_int_equal(confine_run(&o, &out, NULL), 0);
	cf_process_tree_force_scan(false);
	assert_false(out->timed_out);
	assert_int_equal(out->exit_code, 0);
	confine_outcome_free(out);
	assert_true(sleep_gone_within(duration, TL_GONE_BOUND_MS));
}

static void test_leftover_below_a_group_member_dies_with_the_run(void **state) {
	(void)state;
	leftover_below_a_group_member(false, 3);
}

static void test_leftover_below_a_group_member_dies_with_the_run_scanning(void **state) {
	(void)state;
	leftover_below_a_group_member(true, 4);
}

/* The signal along the tree found by the /proc scan. */
static void test_signal_reaches_a_descendant_session_scanning(void **state) {
	cf_process_tree_force_scan(true);
	test_signal_reaches_a_descendant_session(state);
	cf_process_tree_force_scan(false);
}
#endif

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv) {
	const struct CMUnitTest tests[] = {
		T(test_captures_both_streams_and_the_exit_code),
		T(test_uncaptured_streams_are_null),
		T(test_child_is_a_session_leader),
		T(test_descriptors_above_2_are_closed_in_the_child),
		T(test_signal_mask_and_dispositions_are_reset),
		T(test_stdin_null_and_fd_redirection),
		T(test_swapped_stdout_and_stderr),
		T(test_a_stream_the_caller_closed_stays_closed),
		T(test_environment_is_the_given_one),
		T(test_capture_is_capped_with_a_truncation_flag),
		T(test_default_cap_is_64000_bytes),
		T(test_tee_copies_live_and_captures),
		T(test_tee_to_a_closed_reader_does_not_kill_the_caller),
		T(test_missing_workdir_is_a_start_error_naming_it),
		T(test_unknown_program_is_a_start_error_naming_it),
		T(test_failed_start_leaves_no_child),
		T(test_missing_runner_is_sandbox_unavailable_naming_it),
		T(test_non_executable_runner_is_sandbox_unavailable),
		T(test_runner_with_missing_interpreter_is_sandbox_unavailable),
		T(test_missing_workdir_with_a_broken_runner_is_an_ordinary_start_error),
		T(test_malformed_executable_is_never_sandbox_unavailable),
		T(test_runner_refusal_matching_a_rule_is_a_runner_failure),
		T(test_runner_line_with_permission_denied_is_a_runner_failure_not_a_denial),
		T(test_partial_notice_with_child_exits_is_ordinary),
		T(test_partial_notice_with_child_permission_denied_is_denied),
		T(test_signal_death_keeps_its_denial_and_is_no_runner_failure),
		T(test_exit_126_and_127_without_a_rule_match_stay_ordinary),
		T(test_timeout_kills_the_whole_tree),
		T(test_term_ignoring_child_gets_sigkill_after_the_grace),
		T(test_background_leftovers_do_not_outlive_the_run),
		T(test_poll_reports_running_then_settled),
		T(test_overlapping_runs_keep_their_own_facts),
		T(test_free_of_a_running_process_kills_its_group),
		T(test_invalid_options_name_the_problem),
		T(test_outcome_error_is_zero_for_ordinary_outcomes),
		T(test_confined_relative_runner_is_refused),
#if CONFINE_OS_LINUX
		T(test_signal_reaches_the_command_below_a_supervising_runner),
		T(test_timeout_reaches_the_command_below_a_supervising_runner),
		T(test_signal_reaches_a_descendant_session),
		T(test_signal_reaches_a_descendant_session_scanning),
		T(test_timeout_and_free_reach_setsid_descendants),
		T(test_leftover_below_a_group_member_dies_with_the_run),
		T(test_leftover_below_a_group_member_dies_with_the_run_scanning),
#endif
	};
	if (argc == 2 && strcmp(argv[1], "--hold") == 0)
		return hold_until_stdin_closes(); /* the descriptor check's child */
	return fx_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
