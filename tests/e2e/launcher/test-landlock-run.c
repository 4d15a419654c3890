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
 *   CONFINE_TEST_SYSCALL_PROBE        helper that tries the deny-list, the
 *                                     scopes and the network
 *   CONFINE_TEST_TRACE_SIBLING        helper whose tree holds a
 *                                     ptrace-stopped process
 */
#include <dirent.h>
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
#include <mqueue.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cmocka.h>

#include "launcher-protocol.h"
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
/* Whether this process could own a seccomp listener (the launcher's
 * supervisor then runs and `layers` says `supervisor`). */
static bool supervisor_possible;

/* ---- running a child ---------------------------------------------------- */

struct run_options {
	const char *env_assignment; /* "NAME=VALUE" for the child, or NULL */
	int stdin_fd;               /* -1: /dev/null */
	bool controlling_tty;       /* new session; stdin_fd becomes its tty */
	int landlock_errno;         /* nonzero: Landlock syscalls fail with it */
	int capset_errno;           /* nonzero: capset fails with it */
	bool status_channel;        /* pass --status-fd's pipe as fd 3 */
};

struct run_result {
	int status; /* exit code, or 128 + signal */
	int wait_status;
	char out[OUTPUT_MAX];
	char err[OUTPUT_MAX];
	char records[OUTPUT_MAX]; /* what the status channel carried */
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
		       int out_fd, int err_fd, int status_fd)
{
	int in_fd = options->stdin_fd;

	if (in_fd < 0)
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (options->controlling_tty &&
	    (setsid() < 0 || ioctl(in_fd, TIOCSCTTY, 0) < 0))
		_exit(SKIP_EXIT + 100);
	if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(err_fd, 2) < 0)
		_exit(SKIP_EXIT + 101);
	/* The status channel, when asked for, is fd 3. */
	if (status_fd >= 0 && (status_fd == 3 ? fcntl(3, F_SETFD, 0) : dup2(status_fd, 3)) < 0)
		_exit(SKIP_EXIT + 104);
	/* Only these reach the launcher, so a leak of its own would show. */
	if (syscall(SYS_close_range, status_fd >= 0 ? 4U : 3U, ~0U, 0U) < 0)
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
	int out_pipe[2], err_pipe[2], status_pipe[2] = { -1, -1 }, fds[2];
	int wait_status;
	size_t used = 0;
	ssize_t n;
	pid_t child;

	assert_int_equal(pipe2(out_pipe, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err_pipe, O_CLOEXEC), 0);
	if (options->status_channel)
		assert_int_equal(pipe2(status_pipe, O_CLOEXEC), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0)
		exec_child(argv, options, out_pipe[1], err_pipe[1], status_pipe[1]);
	close(out_pipe[1]);
	close(err_pipe[1]);
	if (status_pipe[1] >= 0)
		close(status_pipe[1]);
	fds[0] = out_pipe[0];
	fds[1] = err_pipe[0];
	drain(fds, result);
	assert_int_equal(waitpid(child, &wait_status, 0), child);
	result->wait_status = wait_status;
	result->status = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status)
						: 128 + WTERMSIG(wait_status);
	/* Records are few and small: all in the pipe by now. */
	while (status_pipe[0] >= 0 &&
	       (n = read(status_pipe[0], result->records + used, OUTPUT_MAX - 1 - used)) > 0)
		used += (size_t)n;
	result->records[used] = '\0';
	if (status_pipe[0] >= 0)
		close(status_pipe[0]);
}

static void run(const char *const argv[], struct run_result *result)
{
	const struct run_options plain = { NULL, -1, false, 0, 0, false };

	run_with(argv, &plain, result);
}

static void run_env(const char *const argv[], const char *env_assignment,
		    struct run_result *result)
{
	const struct run_options options = { env_assignment, -1, false, 0, 0, false };

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
	{ "--rw-shared at the end", { "--rw-shared" },
	  "landlock-run: usage error: --rw-shared requires a path\n" },
	{ "--rw-shared before --", { "--ro", "/", "--rw-shared", "--", "touch", "@MARK" },
	  "landlock-run: usage error: --rw-shared requires a path\n" },
	{ "--ro-try at the end", { "--ro-try" },
	  "landlock-run: usage error: --ro-try requires a path\n" },
	{ "--ro-list at the end", { "--ro-list" },
	  "landlock-run: usage error: --ro-list requires a path\n" },
	{ "--allow-unix-socket at the end", { "--allow-unix-socket" },
	  "landlock-run: usage error: --allow-unix-socket requires a path\n" },
	{ "--allow-unix-socket before --", { "--ro", "/", "--allow-unix-socket", "--", "touch", "@MARK" },
	  "landlock-run: usage error: --allow-unix-socket requires a path\n" },
	{ "--private-shm without --temp-size", { "--ro", "/", "--private-shm", "--", "touch", "@MARK" },
	  "landlock-run: usage error: --private-shm requires --temp-size\n" },
	{ "--private-shm twice", { "--private-shm", "--private-shm", "--", "touch", "@MARK" },
	  "landlock-run: usage error: more than 1 --private-shm values\n" },
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

/* A file without `#!` runs through /bin/sh, as glibc's execvp runs it
 * (exec-command.c: the same whatever libc the launcher is built with), by
 * path and found on PATH; the unconfined control is the shell's own. */
static void test_script_without_interpreter_line_runs_through_sh(void **state)
{
	const struct workdir *dir = *state;
	char script[PATH_MAX + 16], env[PATH_MAX + 16], expected[2 * PATH_MAX];
	const char *by_path[] = { launcher, "--ro", "/", "--", script, "a", "b", NULL };
	const char *by_name[] = { launcher, "--ro", "/", "--", "no-hash-bang", "c", NULL };
	struct run_result result;
	FILE *f;

	format_into(script, sizeof(script), "%s/no-hash-bang", dir->inside);
	format_into(env, sizeof(env), "PATH=%s:/usr/bin:/bin", dir->inside);
	f = fopen(script, "w");
	assert_non_null(f);
	fputs("echo \"ran:$0:$*\"\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(script, 0755), 0);

	format_into(expected, sizeof(expected), "ran:%s:a b\n", script);
	run(by_path, &result);
	assert_int_equal(result.status, 0);
	assert_string_equal(result.out, expected);

	format_into(expected, sizeof(expected), "ran:%s:c\n", script);
	run_env(by_name, env, &result);
	assert_int_equal(result.status, 0);
	assert_string_equal(result.out, expected);

	/* control: the shell runs it the same way unconfined */
	{
		const char *plain[] = { "/bin/sh", script, "a", "b", NULL };

		format_into(expected, sizeof(expected), "ran:%s:a b\n", script);
		run(plain, &result);
		assert_int_equal(result.status, 0);
		assert_string_equal(result.out, expected);
	}
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

/*
 * REFER: a rename or hard link across directories inside a --rw grant
 * works (the command's nested signal-scoped domain once denied it
 * everywhere, EXDEV: pip wheel failed), while one reaching outside the
 * grant is still refused. perl's rename() has no copying fallback, as mv
 * has.
 */
static void test_rename_and_link_across_directories_inside_a_grant(void **state)
{
	struct workdir *dir = *state;
	char script[4 * PATH_MAX + 512];
	const char *argv[] = { launcher, "--ro", "/", "--rw", dir->inside, "--",
			       "sh", "-c", script, NULL };
	char outside_file[PATH_MAX + 16], moved[PATH_MAX + 16];
	struct run_result result;
	FILE *f;

	format_into(outside_file, sizeof(outside_file), "%s/f", dir->outside);
	f = fopen(outside_file, "we");
	assert_non_null(f);
	fclose(f);
	format_into(moved, sizeof(moved), "%s/moved", dir->inside);
	format_into(script, sizeof(script),
		    "cd '%s' && mkdir -p a/b c && echo x > a/b/f && "
		    "perl -e 'rename($ARGV[0], $ARGV[1]) or die \"rename: $!\\n\"' a/b/f c/f && "
		    "ln c/f a/g && perl -e 'rename($ARGV[0], $ARGV[1]) or die \"rename: $!\\n\"' a/b d && "
		    "echo inside-ok; "
		    "ln '%s' outside-link 2>/dev/null && echo LINKED-OUTSIDE; "
		    "perl -e 'rename($ARGV[0], $ARGV[1]) and print \"MOVED-OUTSIDE\\n\"' '%s' moved",
		    dir->inside, outside_file, outside_file);
	run(argv, &result);

	assert_string_equal(result.out, "inside-ok\n");
	assert_true(tl_exists(outside_file));
	assert_false(tl_exists(moved));
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
	const struct run_options options = { NULL, -1, false, error, 0, false };
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
	struct run_options on_pty = { NULL, -1, true, 0, 0, false };
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
	const struct run_options options = { NULL, -1, false, 0, EPERM, false };
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

/* ---- the status channel (DESIGN D1) -------------------------------------- */

static const char *syscall_probe;
static const char *trace_sibling;

static int probe_errno(const char *out, const char *name);

/* Runs argv with the status channel on fd 3 ("--status-fd", "3" must be
 * in argv). */
static void run_with_channel(const char *const argv[], struct run_result *result)
{
	const struct run_options options = { NULL, -1, false, 0, 0, true };

	run_with(argv, &options, result);
}

/* Splits result->records into lines and parses each with the library's
 * parser; fails the test on a malformed record. Returns the count. */
static size_t parse_records(const struct run_result *result,
			    struct launcher_record *records, size_t room)
{
	const char *line = result->records;
	size_t count = 0;

	while (*line != '\0') {
		const char *end = strchr(line, '\n');

		assert_non_null(end); /* every record ends its line */
		assert_true(count < room);
		assert_int_equal(launcher_record_parse(line, (size_t)(end - line + 1),
						       &records[count]), 0);
		count++;
		line = end + 1;
	}
	return count;
}

static unsigned expected_layers(void)
{
	return LAUNCHER_LAYER_SECCOMP |
	       (kernel_abi >= 5 ? LAUNCHER_LAYER_LANDLOCK : LAUNCHER_LAYER_LANDLOCK_PARTIAL) |
	       (supervisor_possible ? LAUNCHER_LAYER_SUPERVISOR : 0);
}

static void test_status_records_a_success(void **state)
{
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--", "sh", "-c",
			       "echo $$; exit 3", NULL };
	struct launcher_record records[4];
	struct run_result result;

	(void)state;
	run_with_channel(argv, &result);

	assert_int_equal(parse_records(&result, records, 4), 4);
	assert_int_equal(records[0].kind, LAUNCHER_RECORD_KIND_LAYERS);
	assert_int_equal(records[0].layers, expected_layers());
	assert_int_equal(records[1].kind, LAUNCHER_RECORD_KIND_STARTED);
	assert_int_equal(records[1].value, atol(result.out)); /* the shell's own pid */
	/* The CPU time of what it reaped, once, just before the outcome
	 * (doc/SPEC.md 7). */
	assert_int_equal(records[2].kind, LAUNCHER_RECORD_KIND_CPU);
	assert_in_range(records[2].cpu_microseconds, 0, 999999);
	assert_int_equal(records[3].kind, LAUNCHER_RECORD_KIND_EXIT);
	assert_int_equal(records[3].value, 3);
	assert_true(WIFEXITED(result.wait_status));
	assert_int_equal(WEXITSTATUS(result.wait_status), 3);
}

static void test_status_records_a_signal_death_and_mirrors_it(void **state)
{
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--", "sh", "-c",
			       "kill -TERM $$", NULL };
	struct launcher_record records[4];
	struct run_result result;

	(void)state;
	run_with_channel(argv, &result);

	assert_int_equal(parse_records(&result, records, 4), 4);
	assert_int_equal(records[1].kind, LAUNCHER_RECORD_KIND_STARTED);
	assert_int_equal(records[2].kind, LAUNCHER_RECORD_KIND_CPU);
	assert_int_equal(records[3].kind, LAUNCHER_RECORD_KIND_SIGNAL);
	assert_int_equal(records[3].value, SIGTERM);
	/* The launcher re-raised it: its parent sees the signal, no core. */
	assert_true(WIFSIGNALED(result.wait_status));
	assert_int_equal(WTERMSIG(result.wait_status), SIGTERM);
	assert_false(WCOREDUMP(result.wait_status));
}

static void test_signal_death_is_mirrored_without_a_channel(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", "sh", "-c", "kill -SEGV $$", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_true(WIFSIGNALED(result.wait_status));
	assert_int_equal(WTERMSIG(result.wait_status), SIGSEGV);
	assert_false(WCOREDUMP(result.wait_status));
	assert_string_equal(result.err, "");
}

static void test_status_records_an_unopenable_grant(void **state)
{
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--ro",
			       "/no/such/path", "--", "true", NULL };
	static const char line[] = "landlock-run: cannot open rule path: /no/such/path: "
				   "No such file or directory";
	struct run_result result;
	char expected[256];

	(void)state;
	run_with_channel(argv, &result);

	format_into(expected, sizeof(expected), "error %s\n", line);
	assert_string_equal(result.records, expected);
	format_into(expected, sizeof(expected), "%s\n", line);
	assert_string_equal(result.err, expected);
	assert_int_equal(result.status, LAUNCHER_FAILURE);
}

static void test_status_records_a_missing_program(void **state)
{
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--",
			       "/no/such/program", NULL };
	struct run_result result;

	(void)state;
	run_with_channel(argv, &result);

	/* the layers that were in place, then the failure (doc/SPEC.md 12) */
	{
		struct launcher_record record;
		const char *second = strchr(result.records, '\n');

		assert_non_null(second);
		assert_int_equal(launcher_record_parse(result.records,
						       (size_t)(second - result.records), &record), 0);
		assert_int_equal(record.kind, LAUNCHER_RECORD_KIND_LAYERS);
		assert_string_equal(second + 1, "exec-failed 2\n");
	}
	/* with a channel the spawner words it: no stderr line */
	assert_string_equal(result.err, "");
	assert_int_equal(result.status, LAUNCHER_FAILURE);
}

static void test_status_records_a_usage_error(void **state)
{
	const char *argv[] = { launcher, "--status-fd", "3", "--bogus", "--", "true", NULL };
	struct run_result result;

	(void)state;
	run_with_channel(argv, &result);

	assert_string_equal(result.records, "error landlock-run: usage error: unknown argument: --bogus\n");
	assert_int_equal(result.status, LAUNCHER_FAILURE);
}

static void test_status_fd_that_is_not_open_is_refused(void **state)
{
	const char *argv[] = { launcher, "--status-fd", "9", "--ro", "/", "--", "true", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_string_equal(result.err,
			    "landlock-run: usage error: --status-fd 9: Bad file descriptor\n");
	assert_int_equal(result.status, LAUNCHER_FAILURE);
}

static void test_command_never_holds_the_status_fd(void **state)
{
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--", "sh", "-c",
			       "ls /proc/$$/fd", NULL };
	struct run_result result;

	(void)state;
	run_with_channel(argv, &result);

	assert_string_equal(result.out, "0\n1\n2\n");
}

static void test_command_gets_a_clean_signal_mask(void **state)
{
	const char *script = "grep -E '^Sig(Blk|Ign)' /proc/self/status";
	const char *unconfined[] = { "/bin/sh", "-c", script, NULL };
	const char *confined[] = { launcher, "--ro", "/", "--", "/bin/sh", "-c", script, NULL };
	struct run_result control, result;

	(void)state;
	run(unconfined, &control);
	run(confined, &result);

	/* The parent blocks what it reads from its signalfd and ignores
	 * SIGPIPE; the command must see neither. */
	assert_non_null(strstr(result.out, "SigBlk:\t0000000000000000\n"));
	assert_string_equal(result.out, control.out);
}

/* --best-effort: a kernel without Landlock (ENOSYS injected) still gets the
 * deny-list, the capability drop and the channel, and says so. */
static void test_best_effort_without_landlock_runs_with_seccomp_only(void **state)
{
#ifdef TEST_AUDIT_ARCH
	char key_text[32];
	const char *argv[] = { launcher, "--status-fd", "3", "--best-effort", "--ro", "/", "--",
			       syscall_probe, "deny-list", key_text, "/confine-best-effort",
			       "confine-best-effort", NULL };
	const struct run_options options = { NULL, -1, false, ENOSYS, 0, true };
	struct launcher_record records[4];
	struct run_result result;

	(void)state;
	format_into(key_text, sizeof(key_text), "%ld", 0x0c0e0000L + (getpid() & 0xfff) * 4);
	run_with(argv, &options, &result);

	assert_string_equal(result.err, "");
	assert_int_equal(result.status, 0);
	assert_int_equal(parse_records(&result, records, 4), 4);
	assert_int_equal(records[0].kind, LAUNCHER_RECORD_KIND_LAYERS);
	assert_int_equal(records[0].layers,
			 LAUNCHER_LAYER_SECCOMP | (supervisor_possible ? LAUNCHER_LAYER_SUPERVISOR : 0));
	assert_int_equal(probe_errno(result.out, "shmget"), EPERM);
	assert_int_equal(probe_errno(result.out, "socket_vsock"), EPERM);
#else
	(void)state;
	skip();
#endif
}

static void test_without_best_effort_no_landlock_still_fails_closed(void **state)
{
#ifdef TEST_AUDIT_ARCH
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--", "true", NULL };
	const struct run_options options = { NULL, -1, false, ENOSYS, 0, true };
	struct run_result result;

	(void)state;
	run_with(argv, &options, &result);

	assert_string_equal(result.records, "error landlock-run: landlock is not enforced by "
					    "this kernel (ABI unsupported or disabled)\n");
	assert_int_equal(result.status, LAUNCHER_FAILURE);
#else
	(void)state;
	skip();
#endif
}

/* ---- the seccomp deny-list (N3, N4) --------------------------------------- */

struct probe_line {
	const char *name;
	int control_errno_ok; /* an errno that makes the control inconclusive, or 0 */
};

/* Each attempt the deny-list must refuse with EPERM. */
static const struct probe_line deny_list_probes[] = {
	{ "shmget", 0 },
	{ "msgget", 0 },
	{ "semget", 0 },
	{ "mq_open", ENOSYS },
	{ "add_key", ENOSYS },
	{ "socket_vsock", EAFNOSUPPORT }, /* no vsock transport: still must be EPERM */
	{ "io_uring_setup", EPERM },      /* io_uring_disabled=2 */
	{ "seccomp_listener", 0 },
};

/* The errno the probe printed for name. */
static int probe_errno(const char *out, const char *name)
{
	char key[64];
	const char *at;

	format_into(key, sizeof(key), "%s ", name);
	at = strstr(out, key);
	if (at == NULL || (at != out && at[-1] != '\n'))
		fail_msg("no \"%s\" line in:\n%s", name, out);
	return atoi(at + strlen(key));
}

/* Runs the deny-list probe, confined or not, optionally as uid 65534; the
 * launcher and the probe are `launcher_path` and `probe_path`. */
static void run_deny_list_probe(const char *launcher_path, const char *probe_path, bool confine,
				bool as_nobody, key_t key, const char *queue,
				const char *description, struct run_result *result)
{
	char key_text[32];
	const char *argv[MAX_ARGS + 8];
	size_t n = 0;

	format_into(key_text, sizeof(key_text), "%ld", (long)key);
	if (as_nobody) {
		argv[n++] = "/usr/bin/setpriv";
		argv[n++] = "--reuid=65534";
		argv[n++] = "--regid=65534";
		argv[n++] = "--clear-groups";
	}
	if (confine) {
		argv[n++] = launcher_path;
		argv[n++] = "--ro";
		argv[n++] = "/";
		argv[n++] = "--";
	}
	argv[n++] = probe_path;
	argv[n++] = "deny-list";
	argv[n++] = key_text;
	argv[n++] = queue;
	argv[n++] = description;
	argv[n] = NULL;
	run(argv, result);
	assert_int_equal(result->status, 0);
}

static void check_deny_list(const char *launcher_path, const char *probe_path, bool as_nobody)
{
	char queue[64], description[64];
	key_t key = (key_t)(0x0c0f0000 + (getpid() & 0xfff) * 4);
	struct run_result control, confined;
	size_t i;

	format_into(queue, sizeof(queue), "/confine-launcher-test-%ld", (long)getpid());
	format_into(description, sizeof(description), "confine-launcher-test-%ld",
		    (long)getpid());
	run_deny_list_probe(launcher_path, probe_path, false, as_nobody, key, queue, description,
			    &control);
	run_deny_list_probe(launcher_path, probe_path, true, as_nobody, key, queue, description,
			    &confined);

	for (i = 0; i < sizeof(deny_list_probes) / sizeof(deny_list_probes[0]); i++) {
		const struct probe_line *probe = &deny_list_probes[i];
		int unconfined_errno = probe_errno(control.out, probe->name);

		/* Control: the attack works here, unconfined. */
		if (unconfined_errno != 0 && unconfined_errno != probe->control_errno_ok)
			fail_msg("control %s failed: %s", probe->name, strerror(unconfined_errno));
		if (unconfined_errno != 0)
			fprintf(stderr, "test: control %s inconclusive here (%s)\n", probe->name,
				strerror(unconfined_errno));
		assert_int_equal(probe_errno(confined.out, probe->name), EPERM);
	}

	/* World effects: nothing was created that outlives the run. */
	assert_int_equal(shmget(key, 0, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(msgget(key + 1, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(semget(key + 2, 0, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(mq_open(queue, O_RDONLY), (mqd_t)-1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(syscall(SYS_keyctl, 10 /* KEYCTL_SEARCH */, -4 /* user keyring */,
				 "user", description, 0), -1);
	assert_int_equal(errno, ENOKEY);
}

static void test_deny_list_refuses_ipc_keys_vsock_listeners(void **state)
{
	(void)state;
	check_deny_list(launcher, syscall_probe, false);
}

/* As uid 65534, from copies it can reach (tl_stage_for_others): the
 * checkout may be closed to it (a clone under /root, mode 0700), and the
 * launcher, running as that user, must be able to execute the probe. */
static void test_deny_list_applies_to_an_unprivileged_caller(void **state)
{
	const char *staged_launcher, *staged_probe;
	struct run_result result;

	(void)state;
	if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0)
		skip();
	staged_launcher = tl_stage_for_others(launcher);
	staged_probe = tl_stage_for_others(syscall_probe);
	if (staged_launcher == NULL || staged_probe == NULL)
		fail_msg("could not copy the launcher and the probe where uid 65534 can run them");
	{
		/* setpriv execs its program still holding root's capabilities;
		 * test(1) then asks as the user, as the launcher's exec will. */
		const char *reach[] = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
					"--clear-groups", "/usr/bin/test", "-x", staged_launcher,
					"-a", "-x", staged_probe, NULL };
		run(reach, &result);
		if (result.status != 0)
			fail_msg("uid 65534 cannot run %s and %s", staged_launcher, staged_probe);
	}
	check_deny_list(staged_launcher, staged_probe, true);
}

/* ---- abstract unix sockets (N2) ------------------------------------------ */

static void test_abstract_unix_socket_outside_is_refused(void **state)
{
	struct sockaddr_un address;
	char name[64];
	const char *unconfined[] = { syscall_probe, "abstract", name, NULL };
	const char *confined[] = { launcher, "--ro", "/", "--", syscall_probe, "abstract", name,
				   NULL };
	struct run_result result;
	int listener, accepted;
	size_t length;

	(void)state;
	if (kernel_abi < 6)
		skip(); /* LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET is ABI 6 */
	format_into(name, sizeof(name), "confine-launcher-test-%ld", (long)getpid());
	length = strlen(name);
	memset(&address, 0, sizeof(address));
	address.sun_family = AF_UNIX;
	memcpy(address.sun_path + 1, name, length);
	listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	assert_true(listener >= 0);
	assert_int_equal(bind(listener, (struct sockaddr *)&address,
			      (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + length)), 0);
	assert_int_equal(listen(listener, 4), 0);

	/* Control: a process outside reaches the listener. */
	run(unconfined, &result);
	assert_string_equal(result.out, "connect 0\n");
	accepted = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
	assert_true(accepted >= 0);
	close(accepted);

	run(confined, &result);
	assert_string_equal(result.out, "connect 1\n"); /* EPERM */
	assert_int_equal(accept4(listener, NULL, NULL, SOCK_CLOEXEC), -1);
	assert_int_equal(errno, EAGAIN);
	close(listener);
}

/* ---- --deny-network ------------------------------------------------------ */

/* A listening TCP socket on 127.0.0.1; returns its port. */
static int start_tcp_listener(int *ret_fd)
{
	struct sockaddr_in address;
	socklen_t length = sizeof(address);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	assert_true(fd >= 0);
	memset(&address, 0, sizeof(address));
	address.sin_family = AF_INET;
	address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&address, sizeof(address)), 0);
	assert_int_equal(listen(fd, 8), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&address, &length), 0);
	*ret_fd = fd;
	return ntohs(address.sin_port);
}

static int accepted_connections(int listener)
{
	int count = 0, fd;

	while ((fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		close(fd);
		count++;
	}
	return count;
}

static void test_deny_network_refuses_tcp(void **state)
{
	char port[16];
	const char *unconfined[] = { syscall_probe, "tcp", port, NULL };
	const char *without[] = { launcher, "--ro", "/", "--", syscall_probe, "tcp", port, NULL };
	const char *denied[] = { launcher, "--deny-network", "--ro", "/", "--", syscall_probe,
				 "tcp", port, NULL };
	struct run_result result;
	int listener;

	(void)state;
	format_into(port, sizeof(port), "%d", start_tcp_listener(&listener));

	/* Controls: unconfined, and confined without --deny-network. */
	run(unconfined, &result);
	assert_string_equal(result.out, "socket 0\nconnect 0\n");
	run(without, &result);
	assert_string_equal(result.out, "socket 0\nconnect 0\n");
	assert_int_equal(accepted_connections(listener), 2);

	run(denied, &result);
	assert_string_equal(result.out, "socket 111\n"); /* ECONNREFUSED, as bwrap's netns */
	assert_int_equal(accepted_connections(listener), 0);
	close(listener);
}

/* An AF_INET socket made outside and handed in: seccomp never sees a
 * socket() call, so Landlock's TCP rights (ABI 4) must refuse the connect. */
static void test_deny_network_refuses_an_inherited_tcp_socket(void **state)
{
	char port[16];
	const char *unconfined[] = { syscall_probe, "tcp-fd0", port, NULL };
	const char *denied[] = { launcher, "--deny-network", "--ro", "/", "--", syscall_probe,
				 "tcp-fd0", port, NULL };
	struct run_options options = { NULL, -1, false, 0, 0, false };
	struct run_result result;
	int listener;

	(void)state;
	if (kernel_abi < 4)
		skip();
	format_into(port, sizeof(port), "%d", start_tcp_listener(&listener));

	options.stdin_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	run_with(unconfined, &options, &result);
	close(options.stdin_fd);
	assert_string_equal(result.out, "connect 0\n");
	assert_int_equal(accepted_connections(listener), 1);

	options.stdin_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	run_with(denied, &options, &result);
	close(options.stdin_fd);
	assert_string_equal(result.out, "connect 13\n");
	assert_int_equal(accepted_connections(listener), 0);
	close(listener);
}

static void test_deny_network_keeps_unix_socketpairs(void **state)
{
	const char *argv[] = { launcher, "--deny-network", "--ro", "/", "--", syscall_probe,
			       "socketpair", NULL };
	struct run_result result;

	(void)state;
	run(argv, &result);

	assert_string_equal(result.out, "socketpair 0\n");
	assert_int_equal(result.status, 0);
}

/* ---- the tree ends with the run (D2, N6, N10) ----------------------------- */

/* Starts argv in the background, stdio on /dev/null, with status_fd (or
 * -1) as fd 3. */
static pid_t spawn_quiet(const char *const argv[], int status_fd)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (dup2(null_fd, 0) < 0 || dup2(null_fd, 1) < 0 || dup2(null_fd, 2) < 0)
			_exit(SKIP_EXIT + 101);
		if (status_fd >= 0 &&
		    (status_fd == 3 ? fcntl(3, F_SETFD, 0) : dup2(status_fd, 3)) < 0)
			_exit(SKIP_EXIT + 104);
		syscall(SYS_close_range, status_fd >= 0 ? 4U : 3U, ~0U, 0U);
		unsetenv(ABI_CAP_VARIABLE);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static void pause_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		continue;
}

/* A generous bound, never a speed assertion: the machine may be slow. */
#define END_BOUND_MS 60000

/* Waits for pid (our child) to end, up to END_BOUND_MS. */
static bool wait_bounded(pid_t pid, int *ret_status)
{
	long waited;

	for (waited = 0; waited < END_BOUND_MS; waited += 20) {
		pid_t r = waitpid(pid, ret_status, WNOHANG);

		if (r == pid)
			return true;
		assert_int_equal(r, 0);
		pause_ms(20);
	}
	return false;
}

/* Reads a decimal from path; -1 when absent or empty. */
static long read_number(const char *path)
{
	char text[64] = "";
	FILE *file = fopen(path, "re");

	if (file == NULL)
		return -1;
	if (fgets(text, sizeof(text), file) == NULL)
		text[0] = '\0';
	fclose(file);
	return text[0] == '\0' ? -1 : atol(text);
}

/* Waits (bounded) until path holds a number >= at_least. */
static long wait_for_number(const char *path, long at_least)
{
	long waited, value = -1;

	for (waited = 0; waited < END_BOUND_MS; waited += 20) {
		value = read_number(path);
		if (value >= at_least)
			return value;
		pause_ms(20);
	}
	fail_msg("%s never reached %ld (last %ld)", path, at_least, value);
	return -1;
}

/* The state letter of /proc/<pid>/stat, or 0. */
static char process_state(pid_t pid)
{
	char path[64], buffer[512];
	const char *paren;
	ssize_t n;
	int fd;

	format_into(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buffer, sizeof(buffer) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buffer[n] = '\0';
	paren = strrchr(buffer, ')');
	return paren != NULL && paren[1] == ' ' ? paren[2] : 0;
}

static void wait_for_state(pid_t pid, char wanted)
{
	long waited;

	for (waited = 0; waited < END_BOUND_MS; waited += 20) {
		if (process_state(pid) == wanted)
			return;
		pause_ms(20);
	}
	fail_msg("process %ld never reached state %c", (long)pid, wanted);
}

static bool process_gone(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

/* SIGKILLs every process whose parent is this one (/proc/<pid>/stat). */
static void kill_children_of_this_process(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *entry;

	if (proc == NULL)
		return;
	while ((entry = readdir(proc)) != NULL) {
		char path[300], buffer[512];
		const char *paren;
		long ppid;
		ssize_t n;
		int fd;

		if (entry->d_name[0] < '0' || entry->d_name[0] > '9')
			continue;
		format_into(path, sizeof(path), "/proc/%s/stat", entry->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, buffer, sizeof(buffer) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buffer[n] = '\0';
		paren = strrchr(buffer, ')');
		if (paren != NULL && sscanf(paren + 1, " %*c %ld", &ppid) == 1 &&
		    ppid == (long)getpid())
			kill((pid_t)atol(entry->d_name), SIGKILL);
	}
	closedir(proc);
}

/* The command a writer loop: every 50 ms it bumps the number in marker. */
static void marker_script(char *script, size_t size, const char *marker)
{
	format_into(script, size,
		    "i=0; while :; do i=$((i+1)); echo $i > '%s.tmp' && mv '%s.tmp' '%s'; "
		    "sleep 0.05; done", marker, marker, marker);
}

/*
 * The starter dies by SIGKILL while the command runs (N6): a holder
 * process starts the launcher (with the status channel's only reader, or
 * as the launcher's parent) and is killed. The command's tree must end.
 * The test is a subreaper, so the launcher comes to it and can be waited;
 * and anything of the tree that outlived the launcher would come to it
 * too (orphans go to the nearest subreaper), so once the launcher is
 * reaped, "no child left" is the proof, read in the process table with no
 * pause: the writer is dead and the marker can never change again.
 */
static void check_lifeline(const char *workdir, bool with_channel)
{
	char marker[PATH_MAX], script[3 * PATH_MAX + 128];
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--rw", workdir, "--",
			       "/bin/sh", "-c", script, NULL };
	const char *const *launcher_argv = with_channel ? argv : argv + 2;
	int report[2], wait_status, survivor_errno;
	pid_t holder, launched, survivor;

	if (!with_channel)
		argv[2] = launcher; /* argv + 2 starts: launcher --ro / ... */
	format_into(marker, sizeof(marker), "%s/marker", workdir);
	marker_script(script, sizeof(script), marker);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	assert_int_equal(pipe2(report, O_CLOEXEC), 0);
	holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		int status_pipe[2] = { -1, -1 };
		pid_t pid;

		if (with_channel && pipe2(status_pipe, O_CLOEXEC) != 0)
			_exit(1);
		pid = spawn_quiet(launcher_argv, status_pipe[1]);
		if (status_pipe[1] >= 0)
			close(status_pipe[1]); /* the holder keeps only the reader */
		if (write(report[1], &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
			_exit(1);
		for (;;)
			pause();
	}
	close(report[1]);
	assert_int_equal(read(report[0], &launched, sizeof(launched)), (ssize_t)sizeof(launched));
	close(report[0]);

	wait_for_number(marker, 2); /* the command runs */
	assert_int_equal(kill(holder, SIGKILL), 0);
	assert_int_equal(waitpid(holder, &wait_status, 0), holder);

	/* The launcher, handed to us, ends and takes the command with it. */
	assert_true(wait_bounded(launched, &wait_status));
	/* Nothing of the tree is left, not even a zombie: a survivor would be
	 * our child now. */
	errno = 0;
	survivor = waitpid(-1, &wait_status, WNOHANG);
	survivor_errno = errno;
	if (survivor >= 0)
		kill_children_of_this_process(); /* a failure leaves nothing behind */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0), 0);
	assert_int_equal(survivor, -1);
	assert_int_equal(survivor_errno, ECHILD);
}

static void test_lifeline_status_reader_killed_ends_the_tree(void **state)
{
	struct workdir *dir = *state;

	check_lifeline(dir->inside, true);
}

static void test_lifeline_starter_killed_ends_the_tree(void **state)
{
	struct workdir *dir = *state;

	check_lifeline(dir->inside, false);
}

/* Starts the launcher on script in the background and waits until the
 * script wrote a pid into pidfile. */
static pid_t start_launcher_on(const char *wrapper, const char *workdir, const char *script,
			       const char *pidfile, pid_t *ret_pid)
{
	const char *argv[] = { wrapper, "--ro", "/", "--rw", workdir, "--", "/bin/sh", "-c",
			       script, NULL };
	pid_t launched = spawn_quiet(argv, -1);

	*ret_pid = (pid_t)wait_for_number(pidfile, 1);
	return launched;
}

static void test_orphans_are_killed_when_the_command_ends(void **state)
{
	struct workdir *dir = *state;
	char pidfile[PATH_MAX], script[PATH_MAX + 64];
	const char *argv[] = { launcher, "--ro", "/", "--rw", dir->inside, "--", "/bin/sh",
			       "-c", script, NULL };
	const char *capped[] = { launcher_abicap, "--ro", "/", "--rw", dir->inside, "--",
				 "/bin/sh", "-c", script, NULL };
	const char *const *variants[] = { argv, capped };
	struct run_options options = { NULL, -1, false, 0, 0, false };
	struct run_result result;
	size_t v;

	format_into(pidfile, sizeof(pidfile), "%s/daemon", dir->inside);
	/* A daemon that outlives its shell; its stdio is not ours to wait on. */
	format_into(script, sizeof(script),
		    "sleep 1000 </dev/null >/dev/null 2>&1 & echo $! > '%s'", pidfile);
	/* Scoped signals (kill(-1) within the domain), then ABI 4: the /proc walk. */
	for (v = 0; v < 2; v++) {
		pid_t daemon;

		unlink(pidfile);
		options.env_assignment = v == 1 ? ABI_CAP_VARIABLE "=4" : NULL;
		run_with(variants[v], &options, &result);
		assert_int_equal(result.status, 0);
		daemon = (pid_t)read_number(pidfile);
		assert_true(daemon > 0);
		assert_true(process_gone(daemon));
	}
}

static void test_stopped_command_ends_when_the_launcher_is_told_to(void **state)
{
	struct workdir *dir = *state;
	char pidfile[PATH_MAX], script[PATH_MAX + 64];
	int wait_status;
	pid_t launched, command;

	format_into(pidfile, sizeof(pidfile), "%s/command", dir->inside);
	format_into(script, sizeof(script), "echo $$ > '%s'; kill -STOP $$; sleep 1000", pidfile);
	launched = start_launcher_on(launcher, dir->inside, script, pidfile, &command);
	wait_for_state(command, 'T');

	assert_int_equal(kill(launched, SIGTERM), 0);
	assert_true(wait_bounded(launched, &wait_status));
	assert_true(WIFSIGNALED(wait_status));
	assert_int_equal(WTERMSIG(wait_status), SIGTERM);
	assert_true(process_gone(command));
}

static void test_stopped_grandchild_is_killed_with_the_tree(void **state)
{
	struct workdir *dir = *state;
	char pidfile[PATH_MAX], script[PATH_MAX + 96];
	int wait_status;
	pid_t launched, stopped;

	format_into(pidfile, sizeof(pidfile), "%s/grandchild", dir->inside);
	format_into(script, sizeof(script),
		    "sh -c 'echo $$ > \"%s\"; kill -STOP $$' & wait", pidfile);
	launched = start_launcher_on(launcher, dir->inside, script, pidfile, &stopped);
	wait_for_state(stopped, 'T');

	assert_int_equal(kill(launched, SIGTERM), 0);
	assert_true(wait_bounded(launched, &wait_status));
	assert_true(WIFSIGNALED(wait_status));
	assert_int_equal(WTERMSIG(wait_status), SIGTERM);
	assert_true(process_gone(stopped));
}

static void test_ptrace_stopped_process_is_killed_with_the_tree(void **state)
{
	struct workdir *dir = *state;
	char pidfile[PATH_MAX];
	const char *argv[] = { launcher, "--ro", "/", "--rw", dir->inside, "--", trace_sibling,
			       pidfile, NULL };
	long target, tracer;
	int wait_status;
	pid_t launched;
	FILE *file;

	format_into(pidfile, sizeof(pidfile), "%s/traced", dir->inside);
	launched = spawn_quiet(argv, -1);
	wait_for_number(pidfile, 1);
	file = fopen(pidfile, "re");
	assert_non_null(file);
	assert_int_equal(fscanf(file, "%ld %ld", &target, &tracer), 2);
	fclose(file);
	/* Control: the sibling really is in tracing stop. */
	assert_int_equal(process_state((pid_t)target), 't');

	assert_int_equal(kill(launched, SIGTERM), 0);
	assert_true(wait_bounded(launched, &wait_status));
	assert_true(WIFSIGNALED(wait_status));
	assert_int_equal(WTERMSIG(wait_status), SIGTERM);
	assert_true(process_gone((pid_t)target));
	assert_true(process_gone((pid_t)tracer));
}

/* ---- the supervisor (SPEC 13, issue 15) ------------------------------------
 * Its escapes and must-work cases run through this launcher in
 * tests/e2e/supervisor (run-supervisor.sh, launcher mode); here: the flags
 * and the records. */

/* A launcher inside a launcher: the outer one's filters refuse a second
 * listener, so the inner one runs without its supervisor, says so on
 * stderr, and its `layers` lacks the word (the outer still mediates). */
static void test_nested_launcher_runs_without_its_supervisor(void **state)
{
	const char *argv[] = { launcher, "--ro", "/", "--", launcher, "--status-fd", "3",
			       "--ro", "/", "--", "true", NULL };
	struct launcher_record records[4];
	struct run_result result;

	(void)state;
	if (!supervisor_possible)
		skip();
	run_with_channel(argv, &result);

	assert_int_equal(result.status, 0);
	assert_non_null(strstr(result.err, "landlock-run: no supervisor (nested-listener)"));
	assert_int_equal(parse_records(&result, records, 4), 4);
	assert_int_equal(records[0].kind, LAUNCHER_RECORD_KIND_LAYERS);
	assert_int_equal(records[0].layers, expected_layers() & ~LAUNCHER_LAYER_SUPERVISOR);
	assert_int_equal(records[2].kind, LAUNCHER_RECORD_KIND_CPU);
	assert_int_equal(records[3].kind, LAUNCHER_RECORD_KIND_EXIT);
}

/* --require-supervisor: its absence is a launcher failure with an `error`
 * record (the library's requireFull), and nothing runs. */
static void test_require_supervisor_fails_closed_without_one(void **state)
{
	struct workdir *dir = *state;
	char mark[PATH_MAX];
	const char *argv[] = { launcher, "--ro", "/", "--rw", NULL, "--", launcher,
			       "--status-fd", "3", "--require-supervisor", "--ro", "/", "--rw",
			       NULL, "--", "touch", mark, NULL };
	struct run_result result;

	if (!supervisor_possible)
		skip();
	argv[4] = dir->inside;
	argv[13] = dir->inside;
	format_into(mark, sizeof(mark), "%s/ran", dir->inside);
	run_with_channel(argv, &result);

	assert_int_equal(result.status, LAUNCHER_FAILURE);
	assert_string_equal(result.records,
			    "error landlock-run: the supervisor cannot run here (nested-listener: "
			    "Operation not permitted) and --require-supervisor was given\n");
	assert_false(tl_exists(mark));
}

/* The supervisor's refusals reach the status channel as `denied` records
 * naming the inode decided on (doc/SPEC.md 12): each once, between
 * `started` and `exit`; a chmod inside the grants is no refusal. */
static void test_status_records_the_supervisors_refusals(void **state)
{
	struct workdir *dir = *state;
	char script[4 * PATH_MAX], want[PATH_MAX + 64];
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--rw", NULL, "--",
			       "/bin/sh", "-c", script, NULL };
	struct launcher_record records[8];
	struct run_result result;
	char object[PATH_MAX];

	if (!supervisor_possible)
		skip();
	argv[6] = dir->inside;
	format_into(script, sizeof(script),
		    "touch '%s/f'; chmod 600 '%s/f'; chmod 600 '%s'; chmod 600 '%s'; exit 0",
		    dir->inside, dir->inside, dir->outside, dir->outside);
	run_with_channel(argv, &result);

	assert_int_equal(result.status, 0);
	assert_int_equal(parse_records(&result, records, 8), 5);
	assert_int_equal(records[1].kind, LAUNCHER_RECORD_KIND_STARTED);
	assert_int_equal(records[2].kind, LAUNCHER_RECORD_KIND_DENIED);
	assert_int_equal(records[3].kind, LAUNCHER_RECORD_KIND_CPU);
	assert_int_equal(records[4].kind, LAUNCHER_RECORD_KIND_EXIT);
	format_into(want, sizeof(want), "denied metadata chmod %s\n", dir->outside);
	assert_non_null(strstr(result.records, want));
	assert_true(launcher_object_decode(records[2].text, records[2].text_length, object,
					   sizeof(object)) > 0);
	assert_string_equal(object, dir->outside);
}

/* At most LAUNCHER_DENIED_MAX `denied` records, however many refusals. */
static void test_status_denied_records_are_bounded(void **state)
{
	struct workdir *dir = *state;
	char script[2 * PATH_MAX];
	const char *argv[] = { launcher, "--status-fd", "3", "--ro", "/", "--", "/bin/sh", "-c",
			       script, NULL };
	struct launcher_record records[LAUNCHER_DENIED_MAX + 8];
	struct run_result result;
	size_t n, denied = 0;

	if (!supervisor_possible)
		skip();
	for (int i = 1; i <= 40; i++) {
		char name[PATH_MAX + 16];
		int fd;

		format_into(name, sizeof(name), "%s/%d", dir->outside, i);
		fd = open(name, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		assert_true(fd >= 0);
		close(fd);
	}
	format_into(script, sizeof(script),
		    "cd '%s' && for i in $(seq 1 40); do chmod 600 $i; done; exit 0",
		    dir->outside);
	run_with_channel(argv, &result);

	assert_int_equal(result.status, 0);
	n = parse_records(&result, records, LAUNCHER_DENIED_MAX + 8);
	for (size_t i = 0; i < n; i++)
		denied += records[i].kind == LAUNCHER_RECORD_KIND_DENIED;
	assert_int_equal(denied, LAUNCHER_DENIED_MAX);
	assert_int_equal(records[n - 1].kind, LAUNCHER_RECORD_KIND_EXIT);
}

static void test_require_supervisor_runs_where_it_can(void **state)
{
	const char *argv[] = { launcher, "--status-fd", "3", "--require-supervisor",
			       "--ro", "/", "--", "true", NULL };
	struct launcher_record records[4];
	struct run_result result;

	(void)state;
	if (!supervisor_possible)
		skip();
	run_with_channel(argv, &result);

	assert_int_equal(result.status, 0);
	assert_string_equal(result.err, "");
	assert_int_equal(parse_records(&result, records, 4), 4);
	assert_true((records[0].layers & LAUNCHER_LAYER_SUPERVISOR) != 0);
}

/* The supervisor decides on the grants it was given: chmod inside a --rw
 * grant lands, outside it is refused (EPERM) and the mode stays. */
static void test_supervisor_mediates_chmod_by_grant(void **state)
{
	struct workdir *dir = *state;
	char inside[PATH_MAX], outside[PATH_MAX], script[3 * PATH_MAX];
	const char *argv[] = { launcher, "--ro", "/", "--rw", NULL, "--", "sh", "-c", script,
			       NULL };
	struct stat st;
	struct run_result result;

	if (!supervisor_possible)
		skip();
	argv[4] = dir->inside;
	format_into(inside, sizeof(inside), "%s/f", dir->inside);
	format_into(outside, sizeof(outside), "%s/f", dir->outside);
	free(tl_write_file(dir->inside, "f", "x", 0644));
	free(tl_write_file(dir->outside, "f", "x", 0644));
	assert_true(tl_exists(inside) && tl_exists(outside));
	/* control: the same chmod unconfined works on the outside file */
	assert_int_equal(chmod(outside, 0600), 0);
	assert_int_equal(chmod(outside, 0644), 0);
	format_into(script, sizeof(script), "chmod 600 '%s'; echo $?; chmod 600 '%s'; echo $?",
		    outside, inside);
	run(argv, &result);

	assert_int_equal(result.status, 0);
	assert_string_equal(result.out, "1\n0\n");
	assert_int_equal(stat(outside, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(stat(inside, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
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
	struct CMUnitTest tests[sizeof(usage_cases) / sizeof(usage_cases[0]) + 1];
	const struct CMUnitTest recorded = cmocka_unit_test(test_status_records_a_usage_error);
	size_t i;

	for (i = 0; i < sizeof(usage_cases) / sizeof(usage_cases[0]); i++) {
		const struct CMUnitTest one = {
			usage_cases[i].name, test_usage_error, NULL, NULL,
			(void *)&usage_cases[i],
		};
		tests[i] = one;
	}
	tests[i] = recorded;
	return cmocka_run_group_tests_name("launcher usage errors", tests, NULL, NULL);
}

/* The launcher's own test (supervise_probe's), without installing
 * anything: user notification exists, and no filter above refuses a
 * listener (asking with no program: EFAULT if allowed, EPERM if refused). */
static bool listener_possible(void)
{
	struct seccomp_notif_sizes sizes;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0)
		return false;
	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
		       NULL) != 0 && errno != EPERM;
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
		cmocka_unit_test_setup_teardown(test_script_without_interpreter_line_runs_through_sh,
						make_workdir, remove_workdir),
		cmocka_unit_test(test_launcher_leaks_no_descriptors),
		cmocka_unit_test_setup_teardown(test_write_outside_grants_is_denied,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_rw_dir_write_lands,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_grandchild_write_outside_is_denied,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_rename_and_link_across_directories_inside_a_grant,
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
		cmocka_unit_test(test_status_records_a_success),
		cmocka_unit_test(test_status_records_a_signal_death_and_mirrors_it),
		cmocka_unit_test(test_signal_death_is_mirrored_without_a_channel),
		cmocka_unit_test(test_status_records_an_unopenable_grant),
		cmocka_unit_test(test_status_records_a_missing_program),
		cmocka_unit_test(test_status_fd_that_is_not_open_is_refused),
		cmocka_unit_test(test_command_never_holds_the_status_fd),
		cmocka_unit_test(test_command_gets_a_clean_signal_mask),
		cmocka_unit_test(test_best_effort_without_landlock_runs_with_seccomp_only),
		cmocka_unit_test(test_without_best_effort_no_landlock_still_fails_closed),
		cmocka_unit_test(test_deny_list_refuses_ipc_keys_vsock_listeners),
		cmocka_unit_test(test_deny_list_applies_to_an_unprivileged_caller),
		cmocka_unit_test(test_abstract_unix_socket_outside_is_refused),
		cmocka_unit_test(test_deny_network_refuses_tcp),
		cmocka_unit_test(test_deny_network_refuses_an_inherited_tcp_socket),
		cmocka_unit_test(test_deny_network_keeps_unix_socketpairs),
		cmocka_unit_test_setup_teardown(test_lifeline_status_reader_killed_ends_the_tree,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_lifeline_starter_killed_ends_the_tree,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_orphans_are_killed_when_the_command_ends,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_stopped_command_ends_when_the_launcher_is_told_to,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_stopped_grandchild_is_killed_with_the_tree,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_ptrace_stopped_process_is_killed_with_the_tree,
						make_workdir, remove_workdir),
		cmocka_unit_test(test_nested_launcher_runs_without_its_supervisor),
		cmocka_unit_test_setup_teardown(test_require_supervisor_fails_closed_without_one,
						make_workdir, remove_workdir),
		cmocka_unit_test(test_require_supervisor_runs_where_it_can),
		cmocka_unit_test_setup_teardown(test_status_records_the_supervisors_refusals,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_status_denied_records_are_bounded,
						make_workdir, remove_workdir),
		cmocka_unit_test_setup_teardown(test_supervisor_mediates_chmod_by_grant,
						make_workdir, remove_workdir),
	};
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_VERSION_QUERY);

	if (abi < 1) {
		char why[128];

		format_into(why, sizeof(why), "Landlock is not available (%s)", strerror(errno));
		return tl_skip_or_fail(why);
	}
	kernel_abi = (int)abi;
	supervisor_possible = listener_possible();
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
	syscall_probe = required_path("CONFINE_TEST_SYSCALL_PROBE");
	trace_sibling = required_path("CONFINE_TEST_TRACE_SIBLING");
	if (argc == 2 && strcmp(argv[1], "enforce") == 0)
		return run_enforcement_tests();
	fprintf(stderr, "usage: %s usage|enforce\n", argv[0]);
	return 1;
}
