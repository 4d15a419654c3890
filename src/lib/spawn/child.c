/* SPDX-License-Identifier: MIT */
/*
 * The child, from its start to its exec. Everything it needs (argv, envp,
 * exec candidates, workdir, descriptors) was computed before it started:
 * until its exec it only makes async-signal-safe system calls and allocates
 * nothing, and it reports the step that failed and its errno over a
 * close-on-exec pipe, so an ENOENT from a missing workdir is never mistaken
 * for a missing runner. The same code runs whether the child was forked or
 * shares the caller's memory (child-clone.c states the rules that puts on
 * it).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "config.h"
#include "spawn/spawn.h"

__attribute__((noreturn)) static void child_fail(int report_fd, confine_spawn_step step,
                                                  int error_number, int what) {
	struct cf_child_report rep = { (int)step, error_number, what };
	ssize_t n;
	do
		n = write(report_fd, &rep, sizeof rep);
	while (n < 0 && errno == EINTR);
	_exit(127);
}

/* F_DUPFD answers EINVAL when its floor (CF_CHILD_LOW_FD) is at or above
 * RLIMIT_NOFILE: for the caller that is too few descriptors, EMFILE. */
static int dup_errno(int e) {
	return e == EINVAL ? EMFILE : e;
}

/* ---- the descriptor sweep: three ways, best first ---- */

#if HAVE_SYS_CLOSE_RANGE
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
/* Linux 5.11 and later: one system call. */
static bool cloexec_by_close_range(void) {
	return syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) == 0;
}
#else
static bool cloexec_by_close_range(void) {
	return false;
}
#endif

#if HAVE_SYS_GETDENTS64
static void mark_cloexec(pid_t fd, void *data) {
	(void)data;
	if (fd > 2)
		(void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
}

/* Older kernels: walk /proc/self/fd with raw getdents64 (opendir would
 * allocate). The directory's own descriptor gets the flag too: it has it. */
static bool cloexec_by_proc_walk(void) {
	return cf_for_each_number("/proc/self/fd", mark_cloexec, NULL);
}
#else
static bool cloexec_by_proc_walk(void) {
	return false;
}
#endif

/* Everywhere else (macOS: no close_range, and /dev/fd cannot be read
 * without opendir's allocation): every number below the descriptor limit.
 * sysconf(_SC_OPEN_MAX) is the soft RLIMIT_NOFILE, above which open(2)
 * hands out no descriptor; one opened before the caller lowered its limit
 * is missed, a case close_range alone covers. The cap only tames an
 * "unlimited" answer: 2^20 fcntl calls take tens to hundreds of
 * milliseconds, paid only by a caller that raised its limit that far. */
static void cloexec_by_limit(void) {
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > (1L << 20))
		max = 1L << 20;
	for (int fd = 3; fd < max; fd++)
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
}

/* Marks every descriptor from 3 up close-on-exec. Marking rather than
 * closing keeps the report pipe open until exec succeeds. */
static int child_cloexec_from_3(void) {
	if (!cloexec_by_close_range() && !cloexec_by_proc_walk())
		cloexec_by_limit();
	return 0;
}

/* ---- the child ---- */

static bool is_internal_fd(const struct cf_child_plan *plan, int fd) {
	for (size_t i = 0; i < plan->n_internal; i++)
		if (plan->internal_fds[i] == fd)
			return true;
	return false;
}

__attribute__((noreturn)) static void child_exec_candidates(const struct cf_child_plan *plan, int report_fd) {
	bool saw_eacces = false;
	int last = ENOENT;
	for (char *const *c = plan->candidates; *c; c++) {
		execve(*c, plan->argv, plan->envp);
		last = errno;
		/* execvp(3)'s rules: keep searching past entries that do not hold
		 * the program; remember a permission failure; stop on anything else
		 * (the program was found but cannot run). */
		if (last == EACCES) {
			saw_eacces = true;
			continue;
		}
		if (last == ENOENT || last == ENOTDIR || last == ESTALE || last == ENODEV ||
		    last == ETIMEDOUT)
			continue;
		child_fail(report_fd, CONFINE_SPAWN_STEP_EXEC, last, CF_WHAT_NONE);
	}
	child_fail(report_fd, CONFINE_SPAWN_STEP_EXEC, saw_eacces ? EACCES : last, CF_WHAT_NONE);
}

/* Long on purpose: the child's steps in the one order that is safe between
 * fork and exec (descriptors, session, sweep, placements, signals, workdir,
 * exec), none of which may allocate; read top to bottom. */
void cf_child_main(const struct cf_child_plan *plan) {
	int report_fd = plan->report_fd;
	int moved[3] = { -1, -1, -1 };
	struct sigaction dfl;
	sigset_t empty;

	int placed[3] = { -1, -1, -1 };
	int exec_fd = plan->exec_fd;

	/* Into the run's own cgroup first (doc/SPEC.md 15, "Limits"): the
	 * runner and all it starts are counted from their first fork. */
	for (size_t j = 0; j < plan->n_cgroup; j++) {
		ssize_t n;
		do
			n = write(plan->cgroup_fd[j], "0", 1);
		while (n < 0 && errno == EINTR);
		if (n != 1)
			child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, n < 0 ? errno : EIO,
			           CF_WHAT_CGROUP);
	}
	/* Our descriptors may sit on 0..2 if the caller had closed them, or on
	 * the numbers descriptors are placed at: move the report pipe and every
	 * source above both before any dup2. */
	if (report_fd < CF_CHILD_LOW_FD) {
		int r = fcntl(report_fd, F_DUPFD_CLOEXEC, CF_CHILD_LOW_FD);
		/* Nothing was moved yet: the pipe where it is still carries the
		 * report. Silence here would read as a runner that ran and exited
		 * 127 (issue 14, "faults fail closed": RLIMIT_NOFILE at 10). */
		if (r < 0)
			child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, dup_errno(errno),
			           CF_WHAT_DUP);
		report_fd = r;
	}
	for (size_t j = 0; j < plan->n_place; j++) {
		placed[j] = fcntl(plan->place_src[j], F_DUPFD_CLOEXEC, CF_CHILD_LOW_FD);
		if (placed[j] < 0)
			child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, dup_errno(errno), CF_WHAT_DUP);
	}
	if (exec_fd >= 0 && exec_fd < CF_CHILD_LOW_FD) {
		exec_fd = fcntl(exec_fd, F_DUPFD_CLOEXEC, CF_CHILD_LOW_FD);
		if (exec_fd < 0)
			child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, dup_errno(errno), CF_WHAT_DUP);
	}
	/* Its own session: its own process group (one group to signal on
	 * timeout) and no controlling terminal to push keystrokes into. */
	if (setsid() < 0)
		child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, CF_WHAT_SETSID);
	for (int i = 0; i < 3; i++) {
		if (plan->source_fd[i] < 0)
			continue;
		moved[i] = fcntl(plan->source_fd[i], F_DUPFD_CLOEXEC, CF_CHILD_LOW_FD);
		if (moved[i] < 0)
			child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, dup_errno(errno), CF_WHAT_DUP);
	}
	for (int i = 0; i < 3; i++) {
		if (moved[i] >= 0) {
			/* moved[i] > 2 >= i, so dup2 always makes a fresh descriptor
			 * without close-on-exec. */
			if (dup2(moved[i], i) < 0)
				child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, CF_WHAT_DUP);
		} else if (is_internal_fd(plan, i)) {
			/* The caller had this stream closed; keep it closed. */
			close(i);
		} else {
			/* Inherit what the caller has, even if it is close-on-exec. */
			int flags = fcntl(i, F_GETFD);
			if (flags >= 0 && (flags & FD_CLOEXEC))
				(void)fcntl(i, F_SETFD, flags & ~FD_CLOEXEC);
		}
	}
	/* A leaked writable descriptor is a write channel no profile can stop. */
	if (child_cloexec_from_3() < 0)
		child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, CF_WHAT_CLOEXEC);
	/* What the runner is meant to inherit, at its fixed number (dup2 makes
	 * it without close-on-exec). */
	for (size_t j = 0; j < plan->n_place; j++)
		if (dup2(placed[j], plan->place_at[j]) < 0)
			child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, CF_WHAT_DUP);

	/* The caller may ignore or handle signals; the command starts with the
	 * defaults and nothing blocked. The parent blocked everything before
	 * starting this child, so no caller handler has run here; every
	 * disposition is SIG_DFL before anything is unblocked, so none can (a
	 * child sharing the caller's memory must never run its handlers). */
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)sigaction(sig, &dfl, NULL);
	sigemptyset(&empty);
	if (sigprocmask(SIG_SETMASK, &empty, NULL) < 0)
		child_fail(report_fd, CONFINE_SPAWN_STEP_SETUP, errno, CF_WHAT_SIGNALS);

	if (plan->workdir && chdir(plan->workdir) < 0)
		child_fail(report_fd, CONFINE_SPAWN_STEP_CHDIR, errno, CF_WHAT_NONE);

	if (exec_fd >= 0) {
		/* The sealed in-memory launcher: nothing looked up on disk. */
#ifdef SYS_execveat
		syscall(SYS_execveat, exec_fd, "", plan->argv, plan->envp, AT_EMPTY_PATH);
#else
		errno = ENOSYS; /* no in-memory launcher is made where this is missing */
#endif
		child_fail(report_fd, CONFINE_SPAWN_STEP_EXEC, errno, CF_WHAT_NONE);
	}
	child_exec_candidates(plan, report_fd);
}

