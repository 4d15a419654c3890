/*
 * End-to-end tests of landlock-run (SPEC 7) on the real kernel.
 *
 *   test-landlock-run usage     grammar errors; needs no Landlock
 *   test-landlock-run enforce   confinement; skips (77) without Landlock
 *                               unless CONFINE_MUST_WORK=1
 *
 * Every test runs the launcher as a forked child: this process is never
 * restricted. World effects are checked on disk, in work directories under
 * $HOME, which no grant below covers (a grant of /tmp would).
 *
 * Paths come from the environment (set by meson):
 *   CONFINE_TEST_LANDLOCK_RUN         the launcher as built for install
 *   CONFINE_TEST_LANDLOCK_RUN_ABICAP  the test-only build with the ABI cap
 *   CONFINE_TEST_TTY_INJECT           helper that tries TIOCSTI/TIOCLINUX
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#if defined(__x86_64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define TEST_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#define LANDLOCK_VERSION_QUERY 1U /* LANDLOCK_CREATE_RULESET_VERSION */

#define SKIP_EXIT 77
#define LAUNCHER_FAILURE 125
#define ABI_CAP_VARIABLE "CONFINE_TEST_LANDLOCK_ABI_CAP"
#define MAX_ARGS 16
#define OUTPUT_MAX 4096

static const char *launcher;
static const char *launcher_abicap;
static const char *tty_inject;
static int kernel_abi;

/* ---- running a child ---------------------------------------------------- */

struct run_options {
	const char *env_assignment; /* "NAME=VALUE" for the child, or NULL */
	int stdin_fd;               /* -1: /dev/null */
	bool controlling_tty;       /* new session; stdin_fd becomes its tty */
	int landlock_errno;         /* nonzero: Landlock syscalls fail with it */
	int capset_errno;           /* nonzero: capset fails with it */
};

struct run_result {
	int status; /* exit code, or 128 + signal */
	char out[OUTPUT_MAX];
	char err[OUTPUT_MAX];
};

#ifdef TEST_AUDIT_ARCH
/* In the child only: make one syscall fail with error, e.g.
 * landlock_create_ruleset as a kernel without Landlock (ENOSYS) or with it
 * disabled (EOPNOTSUPP) would. */
static void fail_syscall(unsigned nr, int error)
{
	const struct sock_filter instructions[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TEST_AUDIT_ARCH, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ((unsigned)error & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	const struct sock_fprog program = {
		sizeof(instructions) / sizeof(instructions[0]),
		(struct sock_filter *)instructions,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0)
		_exit(SKIP_EXIT + 103);
}
#endif

static void exec_child(const char *const argv[], const struct run_options *options,
		       int out_fd, int err_fd)
{
	int in_fd = options->stdin_fd;

	if (in_fd < 0)
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (options->controlling_tty &&
	    (setsid() < 0 || ioctl(in_fd, TIOCSCTTY, 0) < 0))
		_exit(SKIP_EXIT + 100);
	if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		_exit(SKIP_EXIT + 101);
	/* Only 0-2 reach the launcher, so a leak of its own would show. */
	if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
		_exit(SKIP_EXIT + 102);
#ifdef TEST_AUDIT_ARCH
	if (options->landlock_errno != 0)
		fail_syscall(SYS_landlock_create_ruleset, options->landlock_errno);
	if (options->capset_errno != 0)
		fail_syscall(SYS_capset, options->capset_errno);
#endif
	unsetenv(ABI_CAP_VARIABLE);
	if (options->env_assignment != NULL)
		putenv((char *)options->env_assignment);
	execv(argv[0], (char *const *)argv);
	dprintf(2, "test: cannot exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static void drain(int fds[2], struct run_result *result)
{
	char *buffers[2] = { result->out, result->err };
	size_t used[2] = { 0, 0 };
	struct pollfd polled[2];
	int open_count = 2;
	int i;

	for (i = 0; i < 2; i++) {
		polled[i].fd = fds[i];
		polled[i].events = POLLIN;
	}
	while (open_count > 0) {
		if (poll(polled, 2, -1) < 0) {
			assert_int_equal(errno, EINTR);
			continue;
		}
		for (i = 0; i < 2; i++) {
			char scratch[512];
			char *target = buffers[i] + used[i];
			size_t room = OUTPUT_MAX - 1 - used[i];
			ssize_t n;

			if (polled[i].fd < 0 || polled[i].revents == 0)
				continue;
			n = read(polled[i].fd, room > 0 ? target : scratch,
				 room > 0 ? room : sizeof(scratch));
			if (n <= 0) {
				close(polled[i].fd);
				polled[i].fd = -1;
				open_count--;
			} else if (room > 0) {
				used[i] += (size_t)n;
			}
		}
	}
	result->out[used[0]] = '\0';
	result->err[used[1]] = '\0';
}

static void run_with(const char *const argv[], const struct run_options *options,
		     struct run_result *result)
{
	int out_pipe[2], err_pipe[2], fds[2];
	int wait_status;
	pid_t child;

	assert_int_equal(pipe2(out_pipe, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err_pipe, O_CLOEXEC), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		exec_child(argv, options, out_pipe[1], err_pipe[1]);
	close(out_pipe[1]);
	close(err_pipe[1]);
	fds[0] = out_pipe[0];
	fds[1] = err_pipe[0];
	drain(fds, result);
	assert_int_equal(waitpid(child, &wait_status, 0), child);
	result->status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status)
						: 128 + WTERMSIG(wait_status);
}

static void run(const char *const argv[], struct run_result *result)
{
	const struct run_options plain = { NULL, -1, false, 0, 0 };

	run_with(argv, &plain, result);
}

static void run_env(const char *const argv[], const char *env_assignment,
		    struct run_result *result)
{
	const struct run_options options = { env_assignment, -1, false, 0, 0 };

	run_with(argv, &options, result);
}

/* ---- work directories --------------------------------------------------- */

static void format_into(char *buffer, size_t size, const char *format, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf that fails the test instead of truncating a path. */
static void format_into(char *buffer, size_t size, const char *format, ...)
{
	va_list args;
	int n;

	va_start(args, format);
	n = vsnprintf(buffer, size, format, args);
	va_end(args);
	assert_true(n >= 0 && (size_t)n < size);
}

struct workdir {
	char root[PATH_MAX];
	char inside[PATH_MAX];  /* granted --rw in the tests that need it */
	char outside[PATH_MAX]; /* never granted */
};

static int make_workdir(void **state)
{
	static struct workdir dir;

	if (tl_make_workdir("launcher", dir.root, sizeof(dir.root)) != 0)
		return -1;
	format_into(dir.inside, sizeof(dir.inside), "%s/inside", dir.root);
	format_into(dir.outside, sizeof(dir.outside), "%s/outside", dir.root);
	if (mkdir(dir.inside, 0700) != 0 || mkdir(dir.outside, 0700) != 0)
		return -1;
	*state = &dir;
	return 0;
}

static int remove_workdir(void **state)
{
	struct workdir *dir = *state;

	return tl_remove_tree(dir->root);
}

/* ---- usage errors: a table, one case per line of the contract ----------- */

struct usage_case {
	const char *name;
	const char *args[MAX_ARGS]; /* "@MARK" becomes a file the command would create */
	const char *expected_stderr;
};

static const struct usage_case usage_cases[] = {
	{ "probe with a grant", { "--probe", "--ro", "/" },
	  "landlock-run: usage error: --probe takes no other arguments\n" },
	{ "probe after a grant", { "--ro", "/", "--probe" },
	  "landlock-run: usage error: --probe takes no other arguments\n" },
	{ "probe with a command", { "--probe", "--", "touch", "@MARK" },
	  "landlock-run: usage error: --probe takes no other arguments\n" },
	{ "--ro at the end", { "--ro" }, "landlock-run: usage error: --ro requires a path\n" },
	{ "--ro before --", { "--ro", "--", "touch", "@MARK" },
	  "landlock-run: usage error: --ro requires a path\n" },
	{ "--rw at the end", { "--rw" }, "landlock-run: usage error: --rw requires a path\n" },
	{ "--rw before --", { "--ro", "/", "--rw", "--", "touch", "@MARK" },
	  "landlock-run: usage error: --rw requires a path\n" },
	{ "unknown long option", { "--bogus", "--", "touch", "@MARK" },
	  "landlock-run: usage error: unknown argument: --bogus\n" },
	{ "unknown short option", { "--ro", "/", "-x", "--", "touch", "@MARK" },
	  "landlock-run: usage error: unknown argument: -x\n" },
	{ "no arguments", { NULL }, "landlock-run: usage error: missing `-- <argv>...` command\n" },
	{ "grants but no --", { "--ro", "/" }, "landlock-run: usage error: missing `-- <argv>...` command\n" },
	{ "nothing after --", { "--ro", "/", "--" },
	  "landlock-run: usage error: missing `-- <argv>...` command\n" },
};

static void test_usage_error(void **state)
{
	const struct usage_case *usage = *state;
	struct workdir *dir = NULL;
	const char *argv[MAX_ARGS + 2];
	char mark[PATH_MAX];
	struct run_result result;
	size_t i;

	assert_int_equal(make_workdir((void **)&dir), 0);
	format_into(mark, sizeof(mark), "%s/ran", dir->outside);
	argv[0] = launcher;
	for (i = 0; usage->args[i] != NULL; i++)
		argv[i + 1] = strcmp(usage->args[i], "@MARK") == 0 ? mark : usage->args[i];
	argv[i + 1] = NULL;

	run(argv, &result);

	assert_string_equal(result.err, usage->expected_stderr);
	assert_string_equal(result.out, "");
	assert_int_equal(result.status, LAUNCHER_FAILURE);
	assert_false(tl_exists(mark));
	remove_workdir((void **)&dir);
}

/* ---- what runs, and how its status comes back --------------------------- */

static const char *expected_probe_line(void)
{
	return kernel_abi >= 5 ? "landlock: fully enforced\n"
			       : "landlock: partially enforced (older ABI)\n";
}

static void test_probe_prints_exactly_one_line(void **state)
{
	const char *argv[] = { launcher, "--probe", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_string_equal(result.out, expected_probe_line());
	assert_string_equal(result.err, "");
	assert_int_equal(result.status, 0);
}

static void test_ro_root_runs_command(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "sh", "-c", "echo ok", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_string_equal(result.out, "ok\n");
	assert_string_equal(result.err, kernel_abi >= 5 ? "" :
			    "landlock-run: partial enforcement (older Landlock ABI)\n");
	assert_int_equal(result.status, 0);
}

static void test_child_exit_7_passes_through(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "sh", "-c", "exit 7", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_int_equal(result.status, 7);
}

static void test_child_exit_125_passes_through(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "sh", "-c", "exit 125", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_int_equal(result.status, 125);
	assert_null(strstr(result.err, "landlock-run: "));
}

static void test_exec_failure_is_a_launcher_failure(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "/no/such/program", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_non_null(strstr(result.err,
			       "landlock-run: exec failed: No such file or directory\n"));
	assert_int_equal(result.status, LAUNCHER_FAILURE);
}

static void test_command_found_on_path(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "true", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_int_equal(result.status, 0);
}

static void test_launcher_leaks_no_descriptors(void **state)
{
	/* The shell lists its own descriptors; only 0, 1 and 2 may be there. */
	const char *argv[] = { launcher, "--ro", "/", "--", "sh", "-c",
			       "ls /proc/$$/fd", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_string_equal(result.out, "0\n1\n2\n");
	assert_int_equal(result.status, 0);
}

/* ---- the filesystem ----------------------------------------------------- */

static void test_write_outside_grants_is_denied(void **state)
{
	struct workdir *dir = *state;
	char target[PATH_MAX], script[PATH_MAX + 32];
	const char *argv[] = { launcher, "--ro", "/", "--rw", dir->inside, "--",
			       "sh", "-c", script, NULL };
	struct run_result result;

	format_into(target, sizeof(target), "%s/file", dir->outside);
	format_into(script, sizeof(script), "echo x > '%s'", target);
	run(argv, &result);

	assert_non_null(strstr(result.err, "Permission denied"));
	assert_int_not_equal(result.status, 0);
	assert_false(tl_exists(target));
}

static void test_rw_dir_write_lands(void **state)
{
	struct workdir *dir = *state;
	char target[PATH_MAX], script[PATH_MAX + 64], content[64] = "";
	const char *argv[] = { launcher, "--ro", "/", "--rw", dir->inside, "--",
			       "sh", "-c", script, NULL };
	struct run_result result;
	FILE *file;

	format_into(target, sizeof(target), "%s/sub/file", dir->inside);
	format_into(script, sizeof(script), "mkdir '%s/sub' && echo landed > '%s'",
		 dir->inside, target);
	run(argv, &result);

	assert_string_equal(result.err, "");
	assert_int_equal(result.status, 0);
	file = fopen(target, "re");
	assert_non_null(file);
	assert_non_null(fgets(content, sizeof(content), file));
	fclose(file);
	assert_string_equal(content, "landed\n");
}

static void test_grandchild_write_outside_is_denied(void **state)
{
	struct workdir *dir = *state;
	char target[PATH_MAX], script[PATH_MAX + 64];
	const char *argv[] = { launcher, "--ro", "/", "--rw", dir->inside, "--",
			       "sh", "-c", script, NULL };
	struct run_result result;

	format_into(target, sizeof(target), "%s/file", dir->outside);
	/* The trailing command keeps the outer shell from exec'ing the inner
	 * one, so the write really comes from a grandchild of the launcher. */
	format_into(script, sizeof(script), "sh -c \"echo x > '%s'\"; echo status=$?",
		 target);
	run(argv, &result);

	assert_non_null(strstr(result.err, "Permission denied"));
	assert_string_not_equal(result.out, "status=0\n");
	assert_false(tl_exists(target));
}

static void test_dev_shm_not_writable_under_read_only(void **state)
{
	char target[PATH_MAX], script[PATH_MAX + 32];
	const char *argv[] = { launcher, "--ro", "/", "--rw", "/dev/null", "--",
			       "sh", "-c", script, NULL };
	struct run_result result;

	(void)state;
	if (access("/dev/shm", W_OK) != 0)
		skip();
	format_into(target, sizeof(target), "/dev/shm/confine-launcher-test-%ld",
		 (long)getpid());
	format_into(script, sizeof(script), "echo x > '%s'", target);
	run(argv, &result);

	assert_non_null(strstr(result.err, "Permission denied"));
	assert_int_not_equal(result.status, 0);
	if (tl_exists(target))
		unlink(target);
	assert_false(tl_exists(target));
}

static void test_dev_null_writable_under_read_only(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--rw", "/dev/null", "--",
			       "sh", "-c", "echo x > /dev/null && echo ok", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_string_equal(result.err, "");
	assert_string_equal(result.out, "ok\n");
	assert_int_equal(result.status, 0);
}

static void test_missing_rule_path_is_fatal(void **state)
{
	struct workdir *dir = *state;
	char mark[PATH_MAX], script[PATH_MAX + 32];
	/* The command could create its mark if the bad grant were skipped. */
	const char *argv[] = { launcher, "--ro", "/", "--rw", dir->inside,
			       "--ro", "/no/such/path", "--", "sh", "-c", script, NULL };
	struct run_result result;

	format_into(mark, sizeof(mark), "%s/ran", dir->inside);
	format_into(script, sizeof(script), "touch '%s'", mark);
	run(argv, &result);

	assert_string_equal(result.err, "landlock-run: cannot open rule path: "
					"/no/such/path: No such file or directory\n");
	assert_string_equal(result.out, "");
	assert_int_equal(result.status, LAUNCHER_FAILURE);
	assert_false(tl_exists(mark));
}

/* ---- a kernel that cannot enforce --------------------------------------- */

static void expect_not_enforced(int error, const char *const argv[])
{
#ifdef TEST_AUDIT_ARCH
	const struct run_options options = { NULL, -1, false, error, 0 };
	struct run_result result;

	run_with(argv, &options, &result);

	assert_string_equal(result.err, "landlock-run: landlock is not enforced by "
					"this kernel (ABI unsupported or disabled)\n");
	assert_string_equal(result.out, "");
	assert_int_equal(result.status, LAUNCHER_FAILURE);
#else
	(void)error;
	(void)argv;
	skip();
#endif
}

static void test_not_built_in_fails_closed(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "echo", "ran", NULL };

	(void)state;
	expect_not_enforced(ENOSYS, argv);
}

static void test_disabled_fails_closed(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "echo", "ran", NULL };

	(void)state;
	expect_not_enforced(EOPNOTSUPP, argv);
}

static void test_probe_on_disabled_kernel_fails(void **state)
{
	const char *argv[] = { launcher, "--probe", NULL };

	(void)state;
	expect_not_enforced(EOPNOTSUPP, argv);
}

/* ---- the test-only ABI cap ---------------------------------------------- */

static void test_abi_cap_4_prints_notice_before_command(void **state)
{
	const char *argv[] = { launcher_abicap, "--ro", "/", "--", "sh", "-c",
			       "echo ok", NULL };
	struct run_result result;

	(void)state;
	run_env(argv, ABI_CAP_VARIABLE "=4", &result);

	assert_string_equal(result.err,
			    "landlock-run: partial enforcement (older Landlock ABI)\n");
	assert_string_equal(result.out, "ok\n");
	assert_int_equal(result.status, 0);
}

static void test_abi_cap_4_probe_says_partial(void **state)
{
	const char *argv[] = { launcher_abicap, "--probe", NULL };
	struct run_result result;

	(void)state;
	run_env(argv, ABI_CAP_VARIABLE "=4", &result);

	assert_string_equal(result.out, "landlock: partially enforced (older ABI)\n");
	assert_int_equal(result.status, 0);
}

static void test_abi_cap_4_still_denies_writes(void **state)
{
	struct workdir *dir = *state;
	char target[PATH_MAX], script[PATH_MAX + 32];
	const char *argv[] = { launcher_abicap, "--ro", "/", "--", "sh", "-c",
			       script, NULL };
	struct run_result result;

	format_into(target, sizeof(target), "%s/file", dir->outside);
	format_into(script, sizeof(script), "echo x > '%s'", target);
	run_env(argv, ABI_CAP_VARIABLE "=4", &result);

	assert_non_null(strstr(result.err, "Permission denied"));
	assert_false(tl_exists(target));
}

static void test_abi_cap_cannot_raise_the_abi(void **state)
{
	const char *argv[] = { launcher_abicap, "--probe", NULL };
	struct run_result result;

	(void)state;
	run_env(argv, ABI_CAP_VARIABLE "=99", &result);

	assert_string_equal(result.out, expected_probe_line());
	assert_int_equal(result.status, 0);
}

static void test_installed_launcher_ignores_the_cap(void **state)
{
	const char *argv[] = { launcher, "--probe", NULL };
	struct run_result result;

	(void)state;
	run_env(argv, ABI_CAP_VARIABLE "=4", &result);

	assert_string_equal(result.out, expected_probe_line());
	assert_string_equal(result.err, "");
}

/* ---- signals ------------------------------------------------------------ */

struct signal_target {
	pid_t pid;
	int go_fd; /* write a byte: the target reports and exits */
};

/* A child outside any sandbox that holds SIGUSR1 pending until told to
 * report; it exits 1 if the signal arrived, 0 if not. */
static void start_signal_target(struct signal_target *target)
{
	int ready[2], go[2];
	char byte;

	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	target->pid = fork();
	assert_true(target->pid >= 0);
	if (target->pid == 0) {
		sigset_t usr1, pending;

		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
		if (write(ready[1], "r", 1) != 1 || read(go[0], &byte, 1) != 1)
			_exit(2);
		sigpending(&pending);
		_exit(sigismember(&pending, SIGUSR1) ? 1 : 0);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], &byte, 1), 1);
	close(ready[0]);
	target->go_fd = go[1];
}

static int finish_signal_target(struct signal_target *target)
{
	int wait_status;

	assert_int_equal(write(target->go_fd, "g", 1), 1);
	close(target->go_fd);
	assert_int_equal(waitpid(target->pid, &wait_status, 0), target->pid);
	assert_true(WIFEXITED(wait_status));
	return WEXITSTATUS(wait_status);
}

struct kill_outcome {
	struct run_result kill;  /* the shell that ran kill */
	bool target_got_signal;
};

/* Runs `kill -USR1 <outside process>` under wrapper, or unconfined. */
static void kill_usr1(const char *wrapper, struct kill_outcome *outcome)
{
	struct signal_target target;
	char script[64];
	const char *confined[] = { wrapper, "--ro", "/", "--", "sh", "-c", script, NULL };
	const char *unconfined[] = { "/bin/sh", "-c", script, NULL };

	start_signal_target(&target);
	format_into(script, sizeof(script), "kill -USR1 %ld", (long)target.pid);
	run(wrapper != NULL ? confined : unconfined, &outcome->kill);
	outcome->target_got_signal = finish_signal_target(&target) == 1;
}

static void test_unconfined_kill_reaches_outside_process(void **state)
{
	struct kill_outcome outcome;

	(void)state;
	kill_usr1(NULL, &outcome);

	/* Control: proves the target would notice a signal. */
	assert_int_equal(outcome.kill.status, 0);
	assert_true(outcome.target_got_signal);
}

static void test_confined_kill_of_outside_process_fails(void **state)
{
	struct kill_outcome outcome;

	(void)state;
	if (kernel_abi < 6)
		skip(); /* signal scoping needs Landlock ABI 6 */
	kill_usr1(launcher, &outcome);

	assert_non_null(strstr(outcome.kill.err, "Operation not permitted"));
	assert_int_not_equal(outcome.kill.status, 0);
	assert_false(outcome.target_got_signal);
}

static void test_confined_kill_inside_sandbox_works(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "sh", "-c",
			       "sleep 10 & kill -TERM $!; wait $!; echo $?", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_string_equal(result.out, "143\n");
	assert_int_equal(result.status, 0);
}

/* ---- terminal injection ------------------------------------------------- */

struct tty_outcome {
	int sti, sti_high, linux_ioctl, winsize;
	int queued; /* bytes waiting in the terminal's input afterwards */
};

/* Runs argv as a session leader whose controlling terminal is a fresh pty
 * in raw mode, then counts what was pushed into its input queue. */
static void run_on_pty(const char *const argv[], struct tty_outcome *outcome)
{
	struct run_options on_pty = { NULL, -1, true, 0, 0 };
	struct run_result result;
	struct termios raw;
	char name[128];
	int master, terminal;

	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(master >= 0);
	assert_int_equal(grantpt(master), 0);
	assert_int_equal(unlockpt(master), 0);
	assert_int_equal(ptsname_r(master, name, sizeof(name)), 0);
	terminal = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(terminal >= 0);
	/* Raw mode: FIONREAD then counts single bytes, not finished lines. */
	assert_int_equal(tcgetattr(terminal, &raw), 0);
	cfmakeraw(&raw);
	assert_int_equal(tcsetattr(terminal, TCSANOW, &raw), 0);

	on_pty.stdin_fd = terminal;
	run_with(argv, &on_pty, &result);
	assert_int_equal(result.status, 0);
	assert_int_equal(sscanf(result.out, "tiocsti=%d tiocsti_high=%d tioclinux=%d tiocgwinsz=%d",
				&outcome->sti, &outcome->sti_high,
				&outcome->linux_ioctl, &outcome->winsize), 4);
	assert_int_equal(ioctl(terminal, FIONREAD, &outcome->queued), 0);
	close(terminal);
	close(master);
}

static void test_unconfined_tiocsti_injects(void **state)
{
	const char *argv[] = { tty_inject, NULL };
	struct tty_outcome outcome;

	(void)state;
	run_on_pty(argv, &outcome);

	/* Control: shows the attack is live here, so the next test means
	 * something. A kernel that already refuses TIOCSTI has nothing to show. */
	if (outcome.sti == EIO || outcome.sti == EPERM)
		skip();
	assert_int_equal(outcome.sti, 0);
	assert_int_equal(outcome.sti_high, 0);
	assert_int_equal(outcome.queued, 2);
	assert_int_not_equal(outcome.linux_ioctl, EPERM);
}

static void test_confined_tiocsti_fails_with_eperm(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", tty_inject, NULL };
	struct tty_outcome outcome;

	(void)state;
	run_on_pty(argv, &outcome);

	assert_int_equal(outcome.sti, EPERM);
	assert_int_equal(outcome.sti_high, EPERM);
	assert_int_equal(outcome.linux_ioctl, EPERM);
	assert_int_equal(outcome.winsize, 0);
	assert_int_equal(outcome.queued, 0);
}

/* ---- capabilities ------------------------------------------------------- */

/*
 * Landlock does not govern what capabilities allow, so the launcher drops
 * them all. These tests need root (the machine's tests run as root): a
 * non-root caller has nothing to drop. Each effect has an unconfined
 * control showing root really can do it here, so the confined refusal
 * proves something.
 */
static bool require_root(void)
{
	if (geteuid() == 0)
		return true;
	fprintf(stderr, "test: not root: there are no capabilities to drop; skipping\n");
	return false;
}

struct cap_status {
	unsigned long long inh, prm, eff, bnd, amb;
};

static unsigned long long cap_field(const char *status, const char *name)
{
	const char *line = strstr(status, name);
	char *end;
	unsigned long long value;

	assert_non_null(line);
	errno = 0;
	value = strtoull(line + strlen(name), &end, 16);
	assert_int_equal(errno, 0);
	assert_true(*end == '\n');
	return value;
}

/* Runs `grep ^Cap /proc/self/status` through prefix (launcher words, or
 * NULL for none) and parses the five sets. */
static void read_cap_status(const char *const prefix[], struct cap_status *caps)
{
	const char *argv[MAX_ARGS + 4];
	struct run_result result;
	size_t n = 0;

	for (; prefix != NULL && prefix[n] != NULL; n++)
		argv[n] = prefix[n];
	argv[n++] = "/bin/grep";
	argv[n++] = "^Cap";
	argv[n++] = "/proc/self/status";
	argv[n] = NULL;
	run(argv, &result);
	assert_string_equal(result.err, "");
	assert_int_equal(result.status, 0);
	caps->inh = cap_field(result.out, "CapInh:\t");
	caps->prm = cap_field(result.out, "CapPrm:\t");
	caps->eff = cap_field(result.out, "CapEff:\t");
	caps->bnd = cap_field(result.out, "CapBnd:\t");
	caps->amb = cap_field(result.out, "CapAmb:\t");
}

#define CAP_BIT(cap) (1ULL << (cap))

static void test_root_confined_has_no_capabilities(void **state)
{
	const char *const confined[] = { launcher, "--ro", "/", "--", NULL };
	const unsigned long long wanted = CAP_BIT(21) /* CAP_SYS_ADMIN */ |
		CAP_BIT(16) /* CAP_SYS_MODULE */ | CAP_BIT(22) /* CAP_SYS_BOOT */ |
		CAP_BIT(27) /* CAP_MKNOD */ | CAP_BIT(0) /* CAP_CHOWN */ |
		CAP_BIT(3) /* CAP_FOWNER */;
	struct cap_status caps;

	(void)state;
	if (!require_root())
		skip();
	read_cap_status(NULL, &caps);
	/* Control: root here holds them, in every set that matters. */
	assert_true((caps.eff & wanted) == wanted);
	assert_true((caps.prm & wanted) == wanted);
	assert_true((caps.bnd & wanted) == wanted);

	read_cap_status(confined, &caps);
	assert_true(caps.inh == 0);
	assert_true(caps.prm == 0);
	assert_true(caps.eff == 0);
	assert_true(caps.bnd == 0);
	assert_true(caps.amb == 0);
}

static void test_root_confined_securebits_are_locked(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "setpriv", "-d", NULL };
	struct run_result result;

	(void)state;
	if (!require_root())
		skip();
	if (access("/usr/bin/setpriv", X_OK) != 0) {
		fprintf(stderr, "test: setpriv (util-linux) is missing; skipping\n");
		skip();
	}
	run(argv, &result);

	assert_int_equal(result.status, 0);
	assert_non_null(strstr(result.out, "no_new_privs: 1\n"));
	assert_non_null(strstr(result.out, "Securebits: noroot,noroot_locked,"
					   "no_setuid_fixup_locked,keep_caps_locked"));
}

/* A caller without CAP_SETPCAP that holds capabilities (here ambient ones,
 * as a capability-aware service manager can hand out) loses them all and
 * its command still runs; its bounding set it cannot change, and with
 * no_new_privs it cannot matter. */
static void test_unprivileged_caller_loses_ambient_capabilities(void **state)
{
	const char *const unconfined[] = {
		"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		"--inh-caps=+net_raw", "--ambient-caps=+net_raw", NULL };
	const char *const confined[] = {
		"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		"--inh-caps=+net_raw", "--ambient-caps=+net_raw",
		launcher, "--ro", "/", "--", NULL };
	struct cap_status caps;

	(void)state;
	if (!require_root())
		skip();
	if (access("/usr/bin/setpriv", X_OK) != 0) {
		fprintf(stderr, "test: setpriv (util-linux) is missing; skipping\n");
		skip();
	}
	read_cap_status(unconfined, &caps);
	/* Control: uid 65534 with CAP_NET_RAW, and no CAP_SETPCAP (8). */
	assert_true(caps.amb == CAP_BIT(13));
	assert_true(caps.prm == CAP_BIT(13));

	read_cap_status(confined, &caps);
	assert_true(caps.inh == 0);
	assert_true(caps.prm == 0);
	assert_true(caps.eff == 0);
	assert_true(caps.amb == 0);
}

static void test_unprivileged_caller_runs(void **state)
{
	const char *const as_nobody[] = {
		"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
		launcher, "--ro", "/", "--", NULL };
	const char *const as_self[] = { launcher, "--ro", "/", "--", NULL };
	struct cap_status caps;

	(void)state;
	/* Nothing to drop: the launcher must not fail for lack of CAP_SETPCAP. */
	if (geteuid() == 0 && access("/usr/bin/setpriv", X_OK) != 0)
		skip();
	read_cap_status(geteuid() == 0 ? as_nobody : as_self, &caps);
	assert_true(caps.prm == 0);
	assert_true(caps.eff == 0);
	assert_true(caps.amb == 0);
}

static void test_root_confined_chown_is_refused(void **state)
{
	struct workdir *dir = *state;
	char control[PATH_MAX], target[PATH_MAX], script[2 * PATH_MAX + 64];
	const char *unconfined[] = { "/bin/sh", "-c", script, NULL };
	const char *confined[] = { launcher, "--ro", "/", "--rw", dir->inside, "--",
				   "/bin/sh", "-c", script, NULL };
	struct run_result result;
	struct stat st;

	if (!require_root())
		skip();
	/* Control: root may give a file away; Landlock has no right for it. */
	format_into(control, sizeof(control), "%s/control", dir->inside);
	format_into(script, sizeof(script), "touch '%s' && chown 65534:65534 '%s'",
		    control, control);
	run(unconfined, &result);
	assert_int_equal(result.status, 0);
	assert_int_equal(stat(control, &st), 0);
	assert_int_equal(st.st_uid, 65534);

	/* Confined, inside its own writable grant: CAP_CHOWN is gone. */
	format_into(target, sizeof(target), "%s/target", dir->inside);
	format_into(script, sizeof(script), "touch '%s' && chown 65534:65534 '%s'",
		    target, target);
	run(confined, &result);
	assert_non_null(strstr(result.err, "Operation not permitted"));
	assert_int_not_equal(result.status, 0);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);
}

static void test_root_confined_mknod_is_refused(void **state)
{
	struct workdir *dir = *state;
	char control[PATH_MAX], target[PATH_MAX];
	const char *unconfined[] = { "/bin/mknod", control, "c", "1", "3", NULL };
	const char *confined[] = { launcher, "--ro", "/", "--rw", dir->inside, "--",
				   "/bin/mknod", target, "c", "1", "3", NULL };
	struct run_result result;
	struct stat st;

	if (!require_root())
		skip();
	/* Control: root may make a character device here. */
	format_into(control, sizeof(control), "%s/control-null", dir->outside);
	run(unconfined, &result);
	assert_int_equal(result.status, 0);
	assert_int_equal(lstat(control, &st), 0);
	assert_true(S_ISCHR(st.st_mode));

	/* Refused twice over: Landlock's make_char is never granted (its
	 * EACCES comes first) and CAP_MKNOD is gone. */
	format_into(target, sizeof(target), "%s/null", dir->inside);
	run(confined, &result);
	assert_int_not_equal(result.status, 0);
	assert_non_null(strstr(result.err, "mknod: "));
	assert_false(tl_exists(target));
}

/* Runs script under /usr/bin/unshare OPTION, confined or not, so that an
 * effect that should have been refused stays in a private namespace. */
static void run_unshared(const char *option, const char *workdir, bool confine,
			 const char *script, struct run_result *result)
{
	const char *unconfined[] = { "/usr/bin/unshare", option, "--", "/bin/sh", "-c",
				     script, NULL };
	const char *confined[] = { "/usr/bin/unshare", option, "--", launcher, "--ro",
				   "/", "--rw", workdir, "--", "/bin/sh", "-c", script,
				   NULL };

	run(confine ? confined : unconfined, result);
}

static void test_root_confined_mount_is_refused(void **state)
{
	struct workdir *dir = *state;
	char script[2 * PATH_MAX + 128];
	struct run_result result;

	if (!require_root())
		skip();
	if (access("/usr/bin/unshare", X_OK) != 0)
		skip();
	format_into(script, sizeof(script),
		    "mount -t tmpfs none '%s'; echo status=$?; "
		    "mountpoint -q '%s' && echo MOUNTED", dir->inside, dir->inside);
	/* Control, in a private mount namespace: root can mount over it. */
	run_unshared("--mount", dir->inside, false, script, &result);
	assert_string_equal(result.out, "status=0\nMOUNTED\n");

	/* Landlock forbids mount changes outright; without CAP_SYS_ADMIN it
	 * would fail anyway. */
	run_unshared("--mount", dir->inside, true, script, &result);
	assert_non_null(strstr(result.out, "status="));
	assert_null(strstr(result.out, "status=0\n"));
	assert_null(strstr(result.out, "MOUNTED"));
}

static void test_root_confined_sethostname_is_refused(void **state)
{
	struct workdir *dir = *state;
	const char *script = "hostname confine-captest; echo status=$?; hostname";
	char host[256], expected[512];
	struct run_result result;

	if (!require_root())
		skip();
	if (access("/usr/bin/unshare", X_OK) != 0 || access("/bin/hostname", X_OK) != 0)
		skip();
	assert_int_equal(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = '\0';
	/* Control, in a private UTS namespace: root can rename the machine.
	 * Landlock has no say in this; only CAP_SYS_ADMIN does. */
	run_unshared("--uts", dir->inside, false, script, &result);
	assert_string_equal(result.out, "status=0\nconfine-captest\n");

	run_unshared("--uts", dir->inside, true, script, &result);
	format_into(expected, sizeof(expected), "status=1\n%s\n", host);
	assert_string_equal(result.out, expected);
	/* hostname words EPERM its own way ("you must be root ..."). */
	assert_non_null(strstr(result.err, "hostname: "));
}

static void test_capabilities_that_cannot_be_dropped_fail_closed(void **state)
{
	struct workdir *dir = *state;
#ifdef TEST_AUDIT_ARCH
	char mark[PATH_MAX];
	const char *argv[] = { launcher, "--ro", "/", "--rw", dir->inside, "--",
			       "/bin/touch", mark, NULL };
	const struct run_options options = { NULL, -1, false, 0, EPERM };
	struct run_result result;

	if (!require_root())
		skip();
	format_into(mark, sizeof(mark), "%s/ran", dir->inside);
	run_with(argv, &options, &result);

	assert_string_equal(result.err,
			    "landlock-run: landlock ruleset error: Operation not permitted\n");
	assert_string_equal(result.out, "");
	assert_int_equal(result.status, LAUNCHER_FAILURE);
	assert_false(tl_exists(mark));
#else
	(void)dir;
	skip();
#endif
}

/* ---- main --------------------------------------------------------------- */

static const char *required_path(const char *variable)
{
	const char *value = getenv(variable);

	if (value == NULL || access(value, X_OK) != 0) {
		fprintf(stderr, "test: %s must name an executable\n", variable);
		exit(1);
	}
	return value;
}

static int run_usage_tests(void)
{
	struct CMUnitTest tests[sizeof(usage_cases) / sizeof(usage_cases[0])];
	size_t i;

	for (i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++) {
		const struct CMUnitTest one = {
			usage_cases[i].name, test_usage_error, NULL, NULL,
			(void *)&usage_cases[i],
		};
		tests[i] = one;
	}
	return cmocka_run_group_tests_name("launcher usage errors", tests, NULL, NULL);
}

/* Returns the exit status: 0, 1 (failures) or 77 (skip). */
static int run_enforcement_tests(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_prints_exactly_one_line),
		cmocka_unit_test(test_ro_root_runs_command),
		cmocka_unit_test(test_child_exit_7_passes_through),
		cmocka_unit_test(test_child_exit_125_passes_through),
		cmocka_unit_test(test_exec_failure_is_a_launcher_failure),
		cmocka_unit_test(test_command_found_on_path),
		cmocka_unit_test(test_launcher_leaks_no_descriptors),
		cmocka_unit_test_setup_teardown(test_write_outside_grants_is_denied,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_rw_dir_write_lands,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_grandchild_write_outside_is_denied,
						make_workdir, remove_workdir),
		cmocka_unit_test(test_dev_shm_not_writable_under_read_only),
		cmocka_unit_test(test_dev_null_writable_under_read_only),
		cmocka_unit_test_setup_teardown(test_missing_rule_path_is_fatal,
						make_workdir, remove_workdir),
		cmocka_unit_test(test_not_built_in_fails_closed),
		cmocka_unit_test(test_disabled_fails_closed),
		cmocka_unit_test(test_probe_on_disabled_kernel_fails),
		cmocka_unit_test(test_abi_cap_4_prints_notice_before_command),
		cmocka_unit_test(test_abi_cap_4_probe_says_partial),
		cmocka_unit_test_setup_teardown(test_abi_cap_4_still_denies_writes,
						make_workdir, remove_workdir),
		cmocka_unit_test(test_abi_cap_cannot_raise_the_abi),
		cmocka_unit_test(test_installed_launcher_ignores_the_cap),
		cmocka_unit_test(test_unconfined_kill_reaches_outside_process),
		cmocka_unit_test(test_confined_kill_of_outside_process_fails),
		cmocka_unit_test(test_confined_kill_inside_sandbox_works),
		cmocka_unit_test(test_unconfined_tiocsti_injects),
		cmocka_unit_test(test_confined_tiocsti_fails_with_eperm),
		cmocka_unit_test(test_root_confined_has_no_capabilities),
		cmocka_unit_test(test_root_confined_securebits_are_locked),
		cmocka_unit_test(test_unprivileged_caller_loses_ambient_capabilities),
		cmocka_unit_test(test_unprivileged_caller_runs),
		cmocka_unit_test_setup_teardown(test_root_confined_chown_is_refused,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_root_confined_mknod_is_refused,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_root_confined_mount_is_refused,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_root_confined_sethostname_is_refused,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(
			test_capabilities_that_cannot_be_dropped_fail_closed,
			make_workdir, remove_workdir),
	};
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_VERSION_QUERY);

	if (abi < 1) {
		char why[128];

		format_into(why, sizeof(why), "Landlock is not available (%s)", strerror(errno));
		return tl_skip_or_fail(why);
	}
	kernel_abi = (int)abi;
	return cmocka_run_group_tests_name("launcher enforcement", tests, NULL, NULL)
		       == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	/* A killed child must not take the test down through a broken pipe. */
	signal(SIGPIPE, SIG_IGN);
	launcher = required_path("CONFINE_TEST_LANDLOCK_RUN");
	if (argc == 2 && strcmp(argv[1], "usage") == 0)
		return run_usage_tests() == 0 ? 0 : 1;
	launcher_abicap = required_path("CONFINE_TEST_LANDLOCK_RUN_ABICAP");
	tty_inject = required_path("CONFINE_TEST_TTY_INJECT");
	if (argc == 2 && strcmp(argv[1], "enforce") == 0)
		return run_enforcement_tests();
	fprintf(stderr, "usage: %s usage|enforce\n", argv[0]);
	return 1;
}
