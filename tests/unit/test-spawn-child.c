/* SPDX-License-Identifier: MIT */
/*
 * The spawned child before its exec. On Linux it shares the caller's memory
 * (clone(CLONE_VM | CLONE_VFORK)) so that spawning from a large caller costs
 * no page-table copy; these tests pin down what that must never cost the
 * caller: its errno, its signal handlers (none may run in the child, where
 * they would act on the caller's memory), its dispositions and its mask.
 *
 * To act inside the child before its exec, deterministically, this file
 * interposes setsid(): the spawn code (linked statically into this test)
 * calls it first thing in the child, while every signal is still blocked.
 * The real one is found with dlsym(RTLD_NEXT) before any child starts (the
 * raw system call would do on Linux, but macOS deprecates syscall(2)).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "confine.h"
#include "spawn-fixtures.h"
#include "spawn-internal.h"

/* Set by the test, read by the interposed setsid in the child. */
static volatile int child_raises;      /* signal the child sends itself, or 0 */
static volatile int child_sets_errno;  /* errno the child leaves behind, or 0 */
/* Written by the interposed setsid in the child: seen here only when the
 * child shares this process's memory. */
static volatile pid_t child_was_here;

static volatile sig_atomic_t handler_runs;
static char marker[PATH_MAX];

/* libc's setsid, resolved in setup(). getpid and kill are plain system
 * call wrappers in every libc this runs on (glibc caches no pid since 2.25),
 * safe in a child that shares our memory. */
static pid_t (*real_setsid)(void);

pid_t setsid(void) {
	pid_t self = getpid();
	child_was_here = self;
	if (child_raises)
		(void)kill(self, child_raises); /* blocked: stays pending */
	if (child_sets_errno)
		errno = child_sets_errno;
	if (!real_setsid) {
		errno = ENOSYS;
		return -1;
	}
	return real_setsid();
}

/* The caller's handler: leaves evidence in memory and on disk (a forked
 * child's memory is its own, its files are not). */
static void on_signal(int sig) {
	int fd;
	(void)sig;
	handler_runs++;
	fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

static int setup(void **state) {
	char tmpl[] = "/tmp/confine-spawn-child-XXXXXX";
	(void)state;
	if (!real_setsid) {
		*(void **)&real_setsid = dlsym(RTLD_NEXT, "setsid");
		if (!real_setsid)
			return -1;
	}
	if (!mkdtemp(tmpl))
		return -1;
	snprintf(marker, sizeof marker, "%s/handler-ran", tmpl);
	child_raises = 0;
	child_sets_errno = 0;
	child_was_here = 0;
	handler_runs = 0;
	return 0;
}

static int teardown(void **state) {
	char *slash;
	(void)state;
	unlink(marker);
	slash = strrchr(marker, '/');
	if (slash) {
		*slash = '\0';
		rmdir(marker);
	}
	return 0;
}

static bool expect_shared_memory(void) {
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
	return false;
#endif
#endif
	/* Only the clone fast path shares memory: not on macOS, and not in a
	 * -Dportable=true build (HAVE_CLONE_VFORK 0). */
#if HAVE_CLONE_VFORK && defined(__linux__) && !defined(__SANITIZE_ADDRESS__) && \
	!defined(__SANITIZE_THREAD__)
	return true;
#else
	return false;
#endif
}

static confine_outcome *run_true(pid_t *ret_pid) {
	/* sh, not true: macOS has no /bin/true (it is /usr/bin/true there). */
	const char *argv[] = { "/bin/sh", "-c", ":", NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_outcome *out = NULL;
	confine_spawn_options_init(&o);
	o.argv = argv;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	*ret_pid = confine_process_pid(p);
	assert_int_equal(confine_process_wait(p, &out, NULL), 0);
	confine_process_free(p);
	return out;
}

/* The reason a large caller spawns as fast as a small one: on Linux the
 * child runs in the caller's address space (no page tables are copied),
 * which the child's write landing in our memory shows. */
static void test_child_shares_the_callers_memory_on_linux(void **state) {
	pid_t pid;
	confine_outcome *out;
	(void)state;
	/* Checked in a fresh copy of this binary: under valgrind (which runs
	 * the suite without following execs) clone(CLONE_VM) becomes a fork. */
	if (fx_ran_in_fresh_copy(__func__))
		return;
	assert_int_equal(cf_spawn_shares_memory(), expect_shared_memory());
	out = run_true(&pid);
	assert_false(out->signaled);
	assert_int_equal(out->exit_code, 0);
	if (cf_spawn_shares_memory())
		assert_int_equal(child_was_here, pid);
	else
		assert_int_equal(child_was_here, 0);
	confine_outcome_free(out);
}

/* The child runs on this thread's TLS, so its errno is ours: whatever it
 * leaves there, and every failing call it makes (a PATH entry without the
 * program, a disposition it cannot reset), must not show after the spawn. */
static void test_callers_errno_survives_the_child(void **state) {
	const char *argv[] = { "true", NULL };
	const char *env[] = { "PATH=/nonexistent-a:/nonexistent-b:/bin:/usr/bin", NULL };
	const char *missing[] = { "/nonexistent/program", NULL };
	confine_spawn_options o;
	confine_process *p = NULL;
	confine_outcome *out = NULL;
	confine_error err;
	(void)state;
	child_sets_errno = EXDEV;

	confine_spawn_options_init(&o);
	o.argv = argv;
	o.envp = env;
	errno = EDOM;
	assert_int_equal(confine_spawn(&o, &p, NULL), 0);
	assert_int_equal(errno, EDOM);
	assert_int_equal(confine_process_wait(p, &out, NULL), 0);
	assert_int_equal(out->exit_code, 0);
	confine_outcome_free(out);
	confine_process_free(p);

	/* A child that fails to exec wrote ENOENT last. */
	o.argv = missing;
	o.envp = NULL;
	p = NULL;
	errno = EDOM;
	assert_int_equal(confine_spawn(&o, &p, &err), -ENOENT);
	assert_int_equal(errno, EDOM);
	assert_null(p);
	assert_int_equal(err.code, CONFINE_E_SPAWN);
}

/* A signal reaching the child before its exec meets the default action,
 * never the caller's handler. The child sends itself SIGUSR1 while every
 * signal is blocked; it must then die of it (proving it was delivered there)
 * without the handler running, in memory or on disk. */
static void check_signal_before_exec(void (*handler)(int)) {
	struct sigaction sa, now;
	sigset_t before, after;
	pid_t pid;
	confine_outcome *out;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	sigprocmask(SIG_SETMASK, NULL, &before);
	child_raises = SIGUSR1;

	out = run_true(&pid);
	assert_true(out->signaled);
	assert_int_equal(out->signal, SIGUSR1);
	assert_int_equal(handler_runs, 0);
	assert_int_equal(access(marker, F_OK), -1);

	/* The child's resets were its own: our disposition and mask stand. */
	assert_int_equal(sigaction(SIGUSR1, NULL, &now), 0);
	assert_ptr_equal((void *)now.sa_handler, (void *)handler);
	sigprocmask(SIG_SETMASK, NULL, &after);
	assert_int_equal(sigismember(&after, SIGUSR1), sigismember(&before, SIGUSR1));
	assert_int_equal(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
	confine_outcome_free(out);

	sa.sa_handler = SIG_DFL;
	sigaction(SIGUSR1, &sa, NULL);
}

static void test_callers_handler_never_runs_in_the_child(void **state) {
	(void)state;
	check_signal_before_exec(on_signal);
}

static void test_an_ignored_signal_is_reset_too(void **state) {
	(void)state;
	/* SIG_IGN is reset to the default as well: the command starts with
	 * every disposition at its default. */
	check_signal_before_exec(SIG_IGN);
}

static void test_handler_works_in_the_caller(void **state) {
	struct sigaction sa;
	(void)state;
	/* Control for the marker: the same handler, raised here, leaves it. */
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, NULL), 0);
	raise(SIGUSR1);
	assert_int_equal(handler_runs, 1);
	assert_int_equal(access(marker, F_OK), 0);
	sa.sa_handler = SIG_DFL;
	sigaction(SIGUSR1, &sa, NULL);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(int argc, char **argv) {
	const struct CMUnitTest tests[] = {
		T(test_child_shares_the_callers_memory_on_linux),
		T(test_callers_errno_survives_the_child),
		T(test_callers_handler_never_runs_in_the_child),
		T(test_an_ignored_signal_is_reset_too),
		T(test_handler_works_in_the_caller),
	};
	return fx_run_tests(tests, sizeof tests / sizeof tests[0], argc, argv);
}
