/* SPDX-License-Identifier: MIT */
/* Fixtures shared by the spawn and bash-consumer unit tests: temp dirs, fake
 * runner scripts (written with testlib's tl_write_file), hand-built
 * confined argvs with chosen facts, and running one case in a fresh copy of
 * the test binary. Include after <cmocka.h>. */
#ifndef CONFINE_TEST_SPAWN_FIXTURES_H
#define CONFINE_TEST_SPAWN_FIXTURES_H

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "confine.h"
#include "testlib.h"

#define FX_LANDLOCK_NOTICE "landlock-run: partial enforcement (older Landlock ABI)"

/* A runner that behaves like a working one: skips its profile up to "--"
 * and execs the command. */
static const char fx_passthrough_script[] =
	"#!/bin/sh\n"
	"while [ $# -gt 0 ] && [ \"$1\" != \"--\" ]; do shift; done\n"
	"shift\n"
	"exec \"$@\"\n";

/* Landlock on an older ABI: the notice, then the command. */
static const char fx_partial_script[] =
	"#!/bin/sh\n"
	"echo '" FX_LANDLOCK_NOTICE "' >&2\n"
	"while [ $# -gt 0 ] && [ \"$1\" != \"--\" ]; do shift; done\n"
	"shift\n"
	"exec \"$@\"\n";

/* A runner refusing before it runs anything. */
static const char fx_refusing_script[] =
	"#!/bin/sh\n"
	"echo 'fake-runner: ruleset rejected' >&2\n"
	"exit 125\n";

/* Under $HOME/.cache/confine-tests, not /tmp: a runner there is one the
 * library trusts (doc/SPEC.md 14: no directory above it others may write). */
static inline char *fx_tmpdir(void) {
	char dir[1024];
	return tl_make_workdir("spawn", dir, sizeof dir) < 0 ? NULL : strdup(dir);
}

static inline void fx_rmrf(const char *dir) {
	if (!dir || !strstr(dir, "/.cache/confine-tests/spawn-"))
		return;
	tl_remove_tree(dir);
}

static inline char **fx_strv(const char *const *in) {
	size_t n = 0;
	char **out;
	while (in && in[n])
		n++;
	out = calloc(n + 1, sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i] = strdup(in[i]);
	return out;
}

struct fx_facts {
	confine_runner runner;
	unsigned runner_facts;
	confine_enforcement enforcement;
	const char *const *denial_signatures;
	/* one rule; NULL fatal: no rules */
	const int *exit_codes;
	size_t n_exit_codes;
	const char *const *fatal;
	const char *const *informational;
};

static const char *const fx_landlock_denial[] = { "permission denied", NULL };
static const char *const fx_bwrap_denial[] = { "read-only file system", NULL };
static const int fx_landlock_exit[] = { 125 };
static const char *const fx_landlock_fatal[] = { "landlock-run: ", NULL };
static const char *const fx_landlock_info[] = { FX_LANDLOCK_NOTICE, NULL };
static const char *const fx_fake_fatal[] = { "fake-runner: ", NULL };

static const struct fx_facts fx_landlock_facts = {
	CONFINE_RUNNER_LANDLOCK, CONFINE_RUNNER_FACT_HOST_TMP, CONFINE_ENFORCEMENT_PARTIAL,
	fx_landlock_denial,
	fx_landlock_exit, 1, fx_landlock_fatal, fx_landlock_info,
};
static const struct fx_facts fx_bwrap_facts = {
	CONFINE_RUNNER_BWRAP, CONFINE_RUNNER_FACT_SUPERVISES | CONFINE_RUNNER_FACT_PRIVATE_TMP,
	CONFINE_ENFORCEMENT_FULL, fx_bwrap_denial, NULL, 0,
	fx_fake_fatal, NULL,
};
/* A runnerCommand-shaped wrap whose configured dialect is "fake-runner: ". */
static const char *const fx_both_denial[] = { "read-only file system", "permission denied",
	                                      NULL };
static const struct fx_facts fx_fake_facts = {
	CONFINE_RUNNER_RUNNER_COMMAND, CONFINE_RUNNER_FACT_SUPERVISES | CONFINE_RUNNER_FACT_PRIVATE_TMP,
	CONFINE_ENFORCEMENT_FULL, fx_both_denial, NULL, 0,
	fx_fake_fatal, NULL,
};

/* [runner, "--profile", "--", argv...] with `facts`, for `mode` and `root`. */
static inline confine_argv *fx_confined(const char *runner, const struct fx_facts *facts,
                                        confine_mode mode, const char *root,
                                        const char *const *argv) {
	confine_argv *c = calloc(1, sizeof *c);
	size_t n = 0;
	while (argv[n])
		n++;
	c->argv = calloc(n + 4, sizeof *c->argv);
	c->argv[0] = strdup(runner);
	c->argv[1] = strdup("--profile");
	c->argv[2] = strdup("--");
	for (size_t i = 0; i < n; i++)
		c->argv[3 + i] = strdup(argv[i]);
	c->argc = n + 3;
	c->runner = facts->runner;
	c->runner_facts = facts->runner_facts;
	c->enforcement = facts->enforcement;
	c->denial_signatures = fx_strv(facts->denial_signatures);
	if (facts->fatal) {
		c->rules = calloc(1, sizeof *c->rules);
		c->n_rules = 1;
		if (facts->n_exit_codes) {
			c->rules[0].allowed_exit_codes = malloc(facts->n_exit_codes * sizeof(int));
			memcpy(c->rules[0].allowed_exit_codes, facts->exit_codes,
			       facts->n_exit_codes * sizeof(int));
			c->rules[0].n_allowed_exit_codes = facts->n_exit_codes;
		}
		c->rules[0].fatal_signatures = fx_strv(facts->fatal);
		if (facts->informational)
			c->rules[0].informational_lines = fx_strv(facts->informational);
	}
	c->policy.mode = mode;
	c->policy.workspace_root = strdup(root);
	return c;
}

/* ---- one case in a fresh copy of this test binary ----
 *
 * Some cases cannot run inside valgrind, and the unit suite must also pass
 * under valgrind (issue 9), so those cases always run in a fresh copy of the
 * test binary: a program started by execve is not traced
 * (--trace-children=no), so the copy runs natively and its assertions hold
 * at full strength, under valgrind or not; without valgrind, and under ASan,
 * the copy is the same binary and checks the same things. Two kinds:
 *
 * - A runner whose #! line names a missing interpreter is refused by the
 *   kernel's execve with ENOENT, and the library must report that errno.
 *   Under valgrind that execve never returns to the child: valgrind first
 *   checks the file itself (missing, not executable, neither ELF nor #!) and
 *   returns those errors normally, but the interpreter is only looked up by
 *   the real execve, after valgrind has torn down its own state for the new
 *   program; on that failure it prints "EXEC FAILED: I can't recover from
 *   execve() failing, so I'm dying." and exits 101 without running the
 *   child's code (measured with valgrind 3.19). The report pipe then just
 *   closes, as on a successful exec.
 * - A wall-clock bound on the library's own speed. Under valgrind the caller
 *   runs many times slower, and valgrind 3.19 does not know pidfd_open
 *   (syscall 434: ENOSYS), so the library falls back to polling: the bound
 *   would measure valgrind, not the library. */

/* Set in the fresh copy: the case runs here instead of being handed on. */
static bool fx_in_fresh_copy;
/* This binary's absolute path from argv[0], for systems without
 * /proc/self/exe (macOS); meson starts tests by absolute path. */
static char fx_self_path[4096];

/* This binary's absolute path, into out (size bytes). */
static inline void fx_self(char *out, size_t size) {
	/* valgrind answers this readlink with the client's path, not its own. */
	ssize_t n = readlink("/proc/self/exe", out, size - 1);
	if (n >= 0)
		out[n] = '\0';
	else if (fx_self_path[0])
		snprintf(out, size, "%s", fx_self_path);
	else
		fail_msg("cannot read /proc/self/exe (%s) and argv[0] did not resolve",
		         strerror(errno));
}

/* Unless this process is the fresh copy, runs the test case `name` in a
 * fresh copy of this binary (same environment; its output goes to ours),
 * fails unless that copy ran the case and it passed, and returns true: the
 * caller then returns. In the copy it returns false and the case runs. */
static inline bool fx_ran_in_fresh_copy(const char *name) {
	char self[4096];
	pid_t pid;
	int status;
	if (fx_in_fresh_copy)
		return false;
	fx_self(self, sizeof self);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		fail_msg("cannot fork: %s", strerror(errno));
	if (pid == 0) {
		char *const argv[] = { self, (char *)"--fresh-copy", (char *)name, NULL };
		execv(self, argv);
		_exit(126);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			fail_msg("cannot wait for the fresh copy: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("%s failed in a fresh copy of %s (%s %d; its output is above)", name, self,
		         WIFEXITED(status) ? "exit status" : "signal",
		         WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return true;
}

/* main() of a test binary using fx_ran_in_fresh_copy. "--fresh-copy NAME"
 * runs exactly the case NAME (its setup and teardown included) and exits 0
 * only if it was found, ran and passed; no arguments run every case. */
static inline int fx_run_tests(const struct CMUnitTest *tests, size_t count, int argc,
                               char **argv) {
	if (argc > 0 && !realpath(argv[0], fx_self_path))
		fx_self_path[0] = '\0';
	if (argc == 3 && strcmp(argv[1], "--fresh-copy") == 0) {
		fx_in_fresh_copy = true;
		for (size_t i = 0; i < count; i++)
			if (strcmp(tests[i].name, argv[2]) == 0)
				return _cmocka_run_group_tests(argv[2], &tests[i], 1, NULL, NULL) == 0 ? 0 : 1;
		fprintf(stderr, "%s: no test case named \"%s\"\n", argv[0], argv[2]);
		return 2;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: %s [--fresh-copy TEST-NAME]\n", argv[0]);
		return 2;
	}
	return _cmocka_run_group_tests("tests", tests, count, NULL, NULL);
}

#endif
