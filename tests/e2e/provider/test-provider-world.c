/* SPDX-License-Identifier: MIT */
/*
 * World-effect tests of the local provider on the real kernel, one rung at a
 * time (SPEC 11). Each confined command is a forked child running the argv
 * confine() returned; this process is never restricted. Effects are checked
 * on disk, in work directories under $HOME, outside every temp area.
 *
 *   test-provider-world bwrap      the bwrap rung, pinned
 *   test-provider-world landlock   the Landlock rung, pinned
 *   test-provider-world seatbelt   the Seatbelt rung (macOS only)
 *   test-provider-world ladder     the Linux ladder's fall-back and failure
 *
 * Exit 0 (pass), 1 (a check failed) or 77 (the rung is absent here). With
 * CONFINE_MUST_WORK=1 an absent Linux rung is a failure, not a skip.
 *
 * Environment: CONFINE_TEST_LAUNCHER, the build tree's landlock-run;
 * CONFINE_TEST_TTY_INJECT, the helper that tries TIOCSTI on its stdin.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "testlib-confine.h"

#define OUT_MAX 65536
#define RUN_TIMEOUT_MS 30000

static char base[512];      /* $HOME/.cache/confine-tests/provider-XXXXXX, canonical */
static char workspace[600]; /* base/ws */
static char sibling[600];   /* base/sibling: outside the workspace */
static char unique[64];     /* for names in shared places (/tmp, /dev/shm) */

/* pipe2(O_CLOEXEC) where macOS has none: this program has one thread, so
 * setting the flag just after leaves no window for a fork elsewhere. */
static int pipe_cloexec(int fds[2]) {
	if (pipe(fds) < 0)
		return -1;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		errno = e;
		return -1;
	}
	return 0;
}

static bool contains_ci(const char *hay, const char *needle) {
	size_t n = strlen(needle);
	for (const char *p = hay; *p; p++)
		if (strncasecmp(p, needle, n) == 0)
			return true;
	return false;
}

/* ---- running a confined command ---- */

typedef struct run {
	pid_t pid;
	int out_fd, err_fd;
	int status;
	bool timed_out;
	char out[OUT_MAX + 1];
	size_t out_len;
	char err[OUT_MAX + 1];
	size_t err_len;
	confine_argv *confined;
} run;

static int start(confine_provider *provider, confine_mode mode, const char *script, run *r) {
	const char *argv[] = { "/bin/sh", "-c", script, NULL };
	confine_policy policy = { .mode = mode, .workspace_root = workspace };
	confine_error err = { 0 };
	int out[2], errp[2];
	int rc;

	memset(r, 0, sizeof *r);
	rc = confine_confine(provider, argv, &policy, &r->confined, &err);
	if (rc < 0) {
		printf("# confine failed: %s\n", err.message);
		return rc;
	}
	if (pipe_cloexec(out) < 0 || pipe_cloexec(errp) < 0)
		return -errno;
	r->pid = fork();
	if (r->pid < 0)
		return -errno;
	if (r->pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		setpgid(0, 0);
		if (chdir(workspace) < 0)
			_exit(126);
		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(errp[1], 2);
		execv(r->confined->argv[0], r->confined->argv);
		_exit(127);
	}
	close(out[1]);
	close(errp[1]);
	r->out_fd = out[0];
	r->err_fd = errp[0];
	return 0;
}

static void pump(int *fd, char *buf, size_t *len) {
	char chunk[4096];
	ssize_t n = read(*fd, chunk, sizeof chunk);
	if (n > 0) {
		size_t take = (size_t)n;
		if (take > OUT_MAX - *len)
			take = OUT_MAX - *len;
		memcpy(buf + *len, chunk, take);
		*len += take;
		buf[*len] = '\0';
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(*fd);
		*fd = -1;
	}
}

static void finish(run *r) {
	long long deadline = tl_now_ms() + RUN_TIMEOUT_MS;
	while (r->out_fd >= 0 || r->err_fd >= 0) {
		struct pollfd p[2] = { { r->out_fd, POLLIN, 0 }, { r->err_fd, POLLIN, 0 } };
		long long left = deadline - tl_now_ms();
		if (left <= 0) {
			r->timed_out = true;
			kill(-r->pid, SIGKILL);
			break;
		}
		if (poll(p, 2, (int)left) <= 0)
			continue;
		if (r->out_fd >= 0 && p[0].revents)
			pump(&r->out_fd, r->out, &r->out_len);
		if (r->err_fd >= 0 && p[1].revents)
			pump(&r->err_fd, r->err, &r->err_len);
	}
	if (r->out_fd >= 0)
		close(r->out_fd);
	if (r->err_fd >= 0)
		close(r->err_fd);
	waitpid(r->pid, &r->status, 0);
	confine_argv_free(r->confined);
	r->confined = NULL;
}

static bool exited_ok(const run *r) {
	return !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0;
}

static bool exited_failed(const run *r) {
	return !r->timed_out && WIFEXITED(r->status) && WEXITSTATUS(r->status) != 0;
}

/* Runs `script` confined under `mode` to completion. */
static bool sh(confine_provider *p, confine_mode mode, run *r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static bool sh(confine_provider *p, confine_mode mode, run *r, const char *fmt, ...) {
	char script[4 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(script, sizeof script, fmt, ap);
	va_end(ap);
	if (start(p, mode, script, r) < 0) {
		r->status = -1;
		return false;
	}
	finish(r);
	if (r->err_len)
		printf("# stderr of `%s`: %s", script, r->err);
	return true;
}

/* ---- setup ---- */

static int make_dirs(void) {
	if (tl_make_workdir("provider", base, sizeof base) < 0)
		return -1;
	snprintf(workspace, sizeof workspace, "%s/ws", base);
	mkdir(workspace, 0755);
	snprintf(sibling, sizeof sibling, "%s/sibling", base);
	mkdir(sibling, 0755);
	snprintf(unique, sizeof unique, "confine-e2e-%ld-%lld", (long)getpid(), tl_now_ms());
	return 0;
}

/* ---- checks shared by every rung ---- */

static void common_checks(confine_provider *p, const char *rung, const char *dialect) {
	char path[PATH_MAX + 64];
	run r;

	/* read-only: a write is denied, in this rung's dialect, and absent */
	snprintf(path, sizeof path, "%s/ro-denied.txt", workspace);
	sh(p, CONFINE_MODE_READ_ONLY, &r, "printf x > '%s'", path);
	tl_check(exited_failed(&r), "%s read-only: write into the workspace fails", rung);
	tl_check(contains_ci(r.err, dialect), "%s read-only: stderr speaks the dialect \"%s\"", rung,
	      dialect);
	tl_check(!tl_exists(path), "%s read-only: the denied file is absent", rung);

	sh(p, CONFINE_MODE_READ_ONLY, &r, "ls / > /dev/null && echo ok");
	tl_check(exited_ok(&r) && strcmp(r.out, "ok\n") == 0, "%s read-only: `ls / > /dev/null && echo ok`",
	      rung);

	sh(p, CONFINE_MODE_READ_ONLY, &r, "printf x > /dev/null && echo ok");
	tl_check(exited_ok(&r) && strcmp(r.out, "ok\n") == 0, "%s read-only: /dev/null is writable", rung);

	/* nested: a child of a child is confined too */
	snprintf(path, sizeof path, "%s/nested.txt", workspace);
	sh(p, CONFINE_MODE_READ_ONLY, &r, "/bin/sh -c \"/bin/sh -c 'printf x > %s'\"", path);
	tl_check(exited_failed(&r) && !tl_exists(path), "%s read-only: a nested child's write is denied",
	      rung);

	/* workspace-write: inside lands with its content, a sibling is denied */
	snprintf(path, sizeof path, "%s/inside.txt", workspace);
	sh(p, CONFINE_MODE_WORKSPACE_WRITE, &r, "printf hello > '%s'", path);
	tl_check(exited_ok(&r) && tl_file_holds(path, "hello"),
	      "%s workspace-write: a write inside the workspace lands with its content", rung);
	snprintf(path, sizeof path, "%s/outside.txt", sibling);
	sh(p, CONFINE_MODE_WORKSPACE_WRITE, &r, "printf x > '%s'", path);
	tl_check(exited_failed(&r) && contains_ci(r.err, dialect),
	      "%s workspace-write: a write to a sibling directory is denied", rung);
	tl_check(!tl_exists(path), "%s workspace-write: the sibling file is absent", rung);

	snprintf(path, sizeof path, "%s/nested-outside.txt", sibling);
	sh(p, CONFINE_MODE_WORKSPACE_WRITE, &r,
	   "/bin/sh -c \"/bin/sh -c 'printf x > %s'\" ; /bin/sh -c 'printf y > %s/nested-inside.txt'",
	   path, workspace);
	tl_check(!tl_exists(path), "%s workspace-write: a nested child cannot write outside", rung);
	snprintf(path, sizeof path, "%s/nested-inside.txt", workspace);
	tl_check(tl_file_holds(path, "y"), "%s workspace-write: a nested child writes inside", rung);
}

/* ---- bwrap ---- */

/* Runs argv (the confined one, or plain) with a pty as its controlling
 * terminal and stdin, as an interactive caller's terminal would be; returns
 * tty-inject's TIOCSTI errno, or -1 when it could not be read. */
static int tiocsti_errno(char *const *argv) {
	int master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	int out[2];
	char line[256] = "";
	size_t len = 0;
	int status, e = -1;
	pid_t pid;
	const char *slave;
	char *field;
	if (master < 0 || grantpt(master) < 0 || unlockpt(master) < 0 || !(slave = ptsname(master)))
		return -1;
	if (pipe_cloexec(out) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int fd;
		setsid();
		fd = open(slave, O_RDWR); /* becomes the controlling terminal */
		if (fd < 0)
			_exit(126);
		dup2(fd, 0);
		dup2(out[1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out[1]);
	for (;;) {
		ssize_t n = read(out[0], line + len, sizeof line - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	line[len] = '\0';
	close(out[0]);
	waitpid(pid, &status, 0);
	close(master);
	field = strstr(line, "tiocsti=");
	if (field)
		e = atoi(field + strlen("tiocsti="));
	return e;
}

static void bwrap_tiocsti_check(confine_provider *p) {
	const char *helper = getenv("CONFINE_TEST_TTY_INJECT");
	const char *argv[] = { helper, NULL };
	confine_policy policy = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = workspace };
	confine_argv *c = NULL;
	int host, confined;
	if (!helper || access(helper, X_OK) != 0) {
		printf("# skip TIOCSTI check: no tty-inject helper\n");
		return;
	}
	host = tiocsti_errno((char *const *)argv);
	if (host != 0) {
		/* The kernel refuses TIOCSTI anyway (dev.tty.legacy_tiocsti=0):
		 * nothing to show. */
		printf("# skip TIOCSTI check: the host refuses it unconfined (%d)\n", host);
		return;
	}
	if (confine_confine(p, argv, &policy, &c, NULL) < 0) {
		tl_check(false, "bwrap: confine for the TIOCSTI check");
		return;
	}
	confined = tiocsti_errno(c->argv);
	confine_argv_free(c);
	tl_check(confined > 0, "bwrap: --new-session stops TIOCSTI into the caller's terminal "
	                    "(unconfined 0, confined errno %d)", confined);
}

static void bwrap_checks(confine_provider *p) {
	char path[PATH_MAX + 64], host_ns[256] = "";
	run r;
	ssize_t n;

	/* /dev/shm: under bwrap, /dev is a private tmpfs (--dev), so whatever
	 * lands in its /dev/shm never reaches the host's. */
	snprintf(path, sizeof path, "/dev/shm/%s", unique);
	sh(p, CONFINE_MODE_READ_ONLY, &r, "printf x > '%s'", path);
	tl_check(!tl_exists(path), "bwrap read-only: nothing lands in the host's /dev/shm");
	unlink(path);

	/* a private PID namespace */
	n = readlink("/proc/self/ns/pid", host_ns, sizeof host_ns - 1);
	if (n > 0)
		host_ns[n] = '\0';
	sh(p, CONFINE_MODE_READ_ONLY, &r, "readlink /proc/self/ns/pid");
	tl_check(exited_ok(&r) && n > 0 && r.out_len > 0 && strncmp(r.out, host_ns, strlen(host_ns)) != 0,
	      "bwrap: the PID namespace differs from the host's (%s vs %.*s)", host_ns,
	      (int)(r.out_len ? r.out_len - 1 : 0), r.out);

	/* /proc/1/root is no way out */
	for (int m = 0; m < 2; m++) {
		confine_mode mode = m ? CONFINE_MODE_WORKSPACE_WRITE : CONFINE_MODE_READ_ONLY;
		snprintf(path, sizeof path, "%s/proc-root-%d.txt", sibling, m);
		sh(p, mode, &r, "printf x > /proc/1/root%s", path);
		tl_check(exited_failed(&r) && !tl_exists(path),
		      "bwrap %s: `printf x > /proc/1/root<outside>` fails and the file is absent",
		      confine_mode_name(mode));
	}

	/* /tmp is private and ephemeral */
	snprintf(path, sizeof path, "/tmp/%s", unique);
	sh(p, CONFINE_MODE_WORKSPACE_WRITE, &r, "printf t > '%s' && cat '%s'", path, path);
	tl_check(exited_ok(&r) && strcmp(r.out, "t") == 0, "bwrap workspace-write: /tmp is writable inside");
	tl_check(!tl_exists(path), "bwrap workspace-write: the /tmp write vanished after the run");
	unlink(path);

	/* the remount escape --cap-drop ALL stops (meaningful as root) */
	if (geteuid() == 0) {
		snprintf(path, sizeof path, "%s/remount.txt", sibling);
		sh(p, CONFINE_MODE_READ_ONLY, &r, "mount -o remount,rw / ; printf x > '%s'", path);
		tl_check(exited_failed(&r) && !tl_exists(path),
		      "bwrap read-only as root: `mount -o remount,rw /` does not make a write land");
	} else {
		printf("# skip remount check: not root\n");
	}

	/* a backgrounded child dies with the runner (--die-with-parent and the
	 * PID namespace): killing the bwrap process alone takes it down */
	{
		char marker[64];
		long long deadline;
		bool seen = false, gone = false;
		snprintf(marker, sizeof marker, "%d.%03d", 300 + (int)(getpid() % 500),
		         (int)(tl_now_ms() % 1000));
		{
			char script[256];
			snprintf(script, sizeof script, "sleep %s & echo started; wait", marker);
			if (start(p, CONFINE_MODE_READ_ONLY, script, &r) == 0) {
				/* both bounds only prove the event came: the start, and
				 * the kill (the sleep would run for minutes) */
				deadline = tl_now_ms() + TL_GONE_BOUND_MS;
				while (tl_now_ms() < deadline && !(seen = tl_sleep_running(marker)))
					usleep(20000);
				kill(r.pid, SIGKILL);
				deadline = tl_now_ms() + TL_GONE_BOUND_MS;
				while (tl_now_ms() < deadline && !(gone = !tl_sleep_running(marker)))
					usleep(20000);
				finish(&r);
			}
		}
		tl_check(seen && gone, "bwrap: a backgrounded child is killed with the runner");
		if (!gone) {
			char cmd[128];
			snprintf(cmd, sizeof cmd, "pkill -KILL -f -x 'sleep %s'", marker);
			(void)!system(cmd);
		}
	}
}

/* ---- landlock ---- */

static void landlock_checks(confine_provider *p) {
	char path[PATH_MAX + 64];
	run r;

	snprintf(path, sizeof path, "/dev/shm/%s", unique);
	sh(p, CONFINE_MODE_READ_ONLY, &r, "printf x > '%s'", path);
	tl_check(exited_failed(&r) && contains_ci(r.err, "permission denied") && !tl_exists(path),
	      "landlock read-only: /dev/shm is not writable");
	unlink(path);

	/* The host's /tmp is never the temp area (other programs' sockets
	 * live there): a run gets a directory of its own, which an argv built
	 * without one (this one, as for wrap) does not have. */
	snprintf(path, sizeof path, "/tmp/%s", unique);
	sh(p, CONFINE_MODE_WORKSPACE_WRITE, &r, "printf t > '%s'", path);
	tl_check(exited_failed(&r) && !tl_exists(path),
	      "landlock workspace-write: the host's /tmp is not writable");
	unlink(path);
	/* The host's /dev/shm is (POSIX semaphores), where the host has it. */
	if (tl_exists("/dev/shm")) {
		snprintf(path, sizeof path, "/dev/shm/%s", unique);
		sh(p, CONFINE_MODE_WORKSPACE_WRITE, &r, "printf t > '%s'", path);
		tl_check(exited_ok(&r) && tl_file_holds(path, "t"),
		         "landlock workspace-write: the host's /dev/shm is writable");
		unlink(path);
	}
	sh(p, CONFINE_MODE_READ_ONLY, &r, "printf t > '%s'", path);
	tl_check(exited_failed(&r) && !tl_exists(path), "landlock read-only: /tmp is not writable");
	unlink(path);
}

/* ---- the rungs ---- */

static int verdict_of(confine_provider *p, confine_verdict *v) {
	confine_error err = { 0 };
	int r = confine_provider_verdict(p, v, &err);
	if (r < 0)
		printf("# verdict: %s\n", err.message);
	return r;
}

static int test_bwrap(void) {
	confine_provider *p;
	confine_verdict v;
	/* The wrap argv layers the on-disk launcher in bwrap (doc/SPEC.md 14):
	 * the test's copy, outside a /tmp build tree that is not trusted. */
	int rc = tl_require_rung(CONFINE_RUNNER_BWRAP, tl_launcher(), &v);
	if (rc != 0)
		return rc;
	printf("# bwrap at %s\n", v.runner_path);
	p = tl_pinned(CONFINE_RUNNER_BWRAP, tl_launcher());
	if (!p)
		return 1;
	common_checks(p, "bwrap", "read-only file system");
	bwrap_checks(p);
	bwrap_tiocsti_check(p);
	confine_provider_free(p);
	return 0;
}

static int test_landlock(const char *launcher) {
	confine_provider *p;
	confine_verdict v;
	int rc = tl_require_rung(CONFINE_RUNNER_LANDLOCK, launcher, &v);
	if (rc != 0)
		return rc;
	printf("# landlock ABI %d, enforcement %s\n", v.landlock_abi,
	       confine_enforcement_name(v.enforcement));
	p = tl_pinned(CONFINE_RUNNER_LANDLOCK, launcher);
	if (!p)
		return 1;
	common_checks(p, "landlock", "permission denied");
	landlock_checks(p);
	confine_provider_free(p);
	return 0;
}

static int test_seatbelt(void) {
	confine_provider *p;
	confine_verdict v;
	char path[PATH_MAX + 64];
	run r;
#if !defined(__APPLE__)
	/* Not a Linux rung: nothing to prove here, even with CONFINE_MUST_WORK. */
	printf("# SKIP seatbelt runs on macOS only\n");
	return TL_SKIP;
#endif
	p = tl_pinned(CONFINE_RUNNER_SEATBELT, NULL);
	if (!p || verdict_of(p, &v) < 0)
		return 1;
	if (access("/usr/bin/sandbox-exec", X_OK) != 0) {
		confine_provider_free(p);
		return tl_skip_or_fail("sandbox-exec is absent");
	}
	common_checks(p, "seatbelt", "operation not permitted");
	/* the per-user temp dir ($TMPDIR) is writable under workspace-write */
	if (getenv("TMPDIR")) {
		snprintf(path, sizeof path, "%s/%s", getenv("TMPDIR"), unique);
		sh(p, CONFINE_MODE_WORKSPACE_WRITE, &r, "printf t > '%s'", path);
		tl_check(exited_ok(&r) && tl_file_holds(path, "t"), "seatbelt workspace-write: $TMPDIR is writable");
		unlink(path);
	}
	confine_provider_free(p);
	return 0;
}

static void assert_fails_closed(confine_provider *p, const char *what) {
	for (int m = 0; m < 2; m++) {
		confine_mode mode = m ? CONFINE_MODE_WORKSPACE_WRITE : CONFINE_MODE_READ_ONLY;
		const char *argv[] = { "/bin/sh", "-c", "true", NULL };
		confine_policy policy = { .mode = mode, .workspace_root = workspace };
		confine_argv *out = NULL;
		confine_error err = { 0 };
		char want[1024];
		int rc = confine_confine(p, argv, &policy, &out, &err);
		snprintf(want, sizeof want, "sandbox mode \"%s%s", confine_mode_name(mode),
		         TL_UNAVAILABLE_TAIL);
		tl_check(rc == -EHOSTUNREACH && out == NULL && err.code == CONFINE_E_SANDBOX_UNAVAILABLE &&
		              strcmp(err.message, want) == 0,
		      "%s: %s fails closed with the exact message", what, confine_mode_name(mode));
		confine_argv_free(out);
	}
}

static int test_ladder(const char *launcher) {
	confine_local_config config;
	confine_provider *p = NULL;
	confine_verdict v;
	char path[PATH_MAX + 64];
	run r;
	if (!launcher || access(launcher, X_OK) != 0)
		return tl_skip_or_fail("landlock-run is not built (CONFINE_TEST_LAUNCHER)");

	/* bwrap removed from PATH: the ladder falls to Landlock */
	confine_local_config_init(&config);
	config.platform = "linux";
	config.path = "/nonexistent:relative/bin";
	config.landlock_launcher = launcher;
	if (confine_local_provider_new(&config, &p, NULL) < 0 || verdict_of(p, &v) < 0)
		return 1;
	if (!v.usable)
		return tl_skip_or_fail("this kernel does not enforce Landlock");
	tl_check(v.runner == CONFINE_RUNNER_LANDLOCK, "ladder without bwrap on PATH: landlock selected");
	tl_check(strcmp(v.runner_path, launcher) == 0, "ladder: the launcher path is the configured one");
	tl_check(v.landlock_abi >= 1, "ladder: the kernel's Landlock ABI is reported (%d)", v.landlock_abi);
	tl_check(v.enforcement == (v.landlock_abi >= 5 ? CONFINE_ENFORCEMENT_FULL
	                                            : CONFINE_ENFORCEMENT_PARTIAL),
	      "ladder: enforcement %s matches ABI %d", confine_enforcement_name(v.enforcement),
	      v.landlock_abi);
	snprintf(path, sizeof path, "%s/ladder.txt", sibling);
	sh(p, CONFINE_MODE_WORKSPACE_WRITE, &r, "printf x > '%s'", path);
	tl_check(exited_failed(&r) && !tl_exists(path), "ladder (landlock): a sibling write is denied");
	confine_provider_free(p);

	/* both unusable: no bwrap, a launcher that does not exist */
	snprintf(path, sizeof path, "%s/no-such-landlock-run", base);
	config.landlock_launcher = path;
	if (confine_local_provider_new(&config, &p, NULL) < 0 || verdict_of(p, &v) < 0)
		return 1;
	tl_check(!v.usable && v.runner == CONFINE_RUNNER_NONE, "ladder with both rungs unusable: unavailable");
	assert_fails_closed(p, "ladder with both rungs unusable");
	assert_fails_closed(p, "ladder with both rungs unusable (cached)");
	confine_provider_free(p);

	/* a host without a chain fails closed too */
	confine_local_config_init(&config);
	config.platform = "win32";
	if (confine_local_provider_new(&config, &p, NULL) < 0)
		return 1;
	assert_fails_closed(p, "win32 (empty chain)");
	confine_provider_free(p);
	return 0;
}

int main(int argc, char **argv) {
	const char *launcher = tl_launcher();
	int rc;
	if (argc != 2) {
		fprintf(stderr, "usage: %s bwrap|landlock|seatbelt|ladder\n", argv[0]);
		return 2;
	}
	if (strcmp(argv[1], "seatbelt") == 0) {
#if !defined(__APPLE__)
		printf("# SKIP seatbelt runs on macOS only\n");
		return TL_SKIP;
#endif
	}
	if (make_dirs() < 0)
		return 1;
	if (strcmp(argv[1], "bwrap") == 0)
		rc = test_bwrap();
	else if (strcmp(argv[1], "landlock") == 0)
		rc = test_landlock(launcher);
	else if (strcmp(argv[1], "seatbelt") == 0)
		rc = test_seatbelt();
	else if (strcmp(argv[1], "ladder") == 0)
		rc = test_ladder(launcher);
	else
		rc = 2;
	tl_remove_tree(base);
	if (rc != 0)
		return rc;
	return tl_checks_done();
}
