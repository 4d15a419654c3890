/* SPDX-License-Identifier: MIT */
/*
 * The bounded probe runner. A probe must never hang the first confined call:
 * a deadline loop polls the stdout pipe and checks for exit; past the bound
 * the probe's whole process group is killed and reaped.
 */
#include "local/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

extern char **environ;

/* The longest single poll() sleep: exit is noticed within this. */
#define POLL_SLICE_MS 10

static int pipe_cloexec(int fds[2]) {
#if defined(__APPLE__)
	/* No pipe2(): a thread forking in between could inherit these two
	 * descriptors until its exec; harmless here as completion is judged by
	 * waitpid, not by EOF. */
	if (pipe(fds) < 0)
		return -errno;
	if (fcntl(fds[0], F_SETFD, FD_CLOEXEC) < 0 || fcntl(fds[1], F_SETFD, FD_CLOEXEC) < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return -e;
	}
	return 0;
#else
	return pipe2(fds, O_CLOEXEC) < 0 ? -errno : 0;
#endif
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void close_from_4(int max_fd) {
#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, 4U, ~0U, 0U) == 0)
		return;
#endif
	for (int fd = 4; fd < max_fd; fd++)
		close(fd);
}

static void drain(int fd, cf_probe_result *ret, bool *open_) {
	char chunk[1024];
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n > 0) {
			size_t room = CF_PROBE_STDOUT_MAX - ret->out_len;
			size_t take = (size_t)n < room ? (size_t)n : room;
			memcpy(ret->out + ret->out_len, chunk, take);
			ret->out_len += take;
			ret->out[ret->out_len] = '\0';
			continue; /* read what is there now, keeping only the bound */
		}
		if (n == 0)
			*open_ = false;
		else if (errno == EINTR)
			continue;
		else if (errno != EAGAIN && errno != EWOULDBLOCK)
			*open_ = false;
		return;
	}
}

int cf_probe_run(const char *const *argv, double timeout_ms, cf_probe_result *ret) {
	int out[2];
	int exec_err[2];
	int devnull;
	int child_errno = 0;
	int max_fd;
	long open_max;
	sigset_t empty;
	pid_t pid;
	int status = 0;
	bool pipe_open = true;
	long long deadline;
	int r;

	if (!argv || !argv[0] || argv[0][0] != '/' || !ret || !(timeout_ms > 0) || isinf(timeout_ms))
		return -EINVAL;
	memset(ret, 0, sizeof *ret);

	/* Everything the child needs is made before fork. */
	open_max = sysconf(_SC_OPEN_MAX);
	max_fd = open_max > 0 && open_max < 65536 ? (int)open_max : 65536;
	sigemptyset(&empty);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull < 0)
		return -errno;
	r = pipe_cloexec(out);
	if (r < 0) {
		close(devnull);
		return r;
	}
	/* The child reports a failed exec's errno here; a successful exec closes
	 * it (close-on-exec), which reads as EOF. */
	r = pipe_cloexec(exec_err);
	if (r < 0) {
		close(devnull);
		close(out[0]);
		close(out[1]);
		return r;
	}

	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(devnull);
		close(out[0]);
		close(out[1]);
		close(exec_err[0]);
		close(exec_err[1]);
		return r;
	}
	if (pid == 0) {
		int e, in_fd, out_fd, err_fd;
		/* A new process group, so a hanging probe and whatever it started are
		 * killed together. */
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		/* Lift the three descriptors clear of 0..3 first: if the caller runs
		 * with 0, 1 or 2 closed, the pipe may have landed there. */
		in_fd = fcntl(devnull, F_DUPFD, 10);
		out_fd = fcntl(out[1], F_DUPFD, 10);
		err_fd = fcntl(exec_err[1], F_DUPFD, 10);
		if (in_fd < 0 || out_fd < 0 || err_fd < 0)
			_exit(127);
		if (dup2(err_fd, 3) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0)
			_exit(127);
		if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(in_fd, 2) < 0) {
			e = errno;
			(void)!write(3, &e, sizeof e);
			_exit(127);
		}
		/* Everything else goes: only the exec-error pipe (3, close-on-exec)
		 * stays past this point. */
		close_from_4(max_fd);
		execve(argv[0], (char *const *)argv, environ);
		e = errno;
		(void)!write(3, &e, sizeof e);
		_exit(127);
	}
	/* Also set from this side, so killpg() below cannot race the child's
	 * own setpgid(). EACCES (it already exec'd) is fine. */
	setpgid(pid, pid);
	close(devnull);
	close(out[1]);
	close(exec_err[1]);
	{
		ssize_t n;
		do
			n = read(exec_err[0], &child_errno, sizeof child_errno);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof child_errno)
			child_errno = 0;
	}
	close(exec_err[0]);
	fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);

	if (timeout_ms > 1e12)
		timeout_ms = 1e12;
	/* Round a fractional bound up: 0.5 ms still waits, never zero. */
	deadline = cf_now_ms() + (long long)timeout_ms + (timeout_ms > (double)(long long)timeout_ms);
	for (;;) {
		siginfo_t info;
		long long now;
		int slice;

		/* WNOWAIT: see the exit but leave the zombie, so its process group id
		 * stays reserved while stragglers in the group are killed below. */
		memset(&info, 0, sizeof info);
		if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    info.si_pid == pid)
			break;
		now = cf_now_ms();
		if (now >= deadline) {
			ret->timed_out = true;
			break;
		}
		slice = deadline - now < POLL_SLICE_MS ? (int)(deadline - now) : POLL_SLICE_MS;
		if (pipe_open) {
			struct pollfd p = { .fd = out[0], .events = POLLIN };
			if (poll(&p, 1, slice) > 0)
				drain(out[0], ret, &pipe_open);
		} else {
			poll(NULL, 0, slice);
		}
	}
	/* Kill the group: on a timeout that is the bound; after an exit it takes
	 * any background child the probe left behind. */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (pipe_open)
		drain(out[0], ret, &pipe_open);
	close(out[0]);

	if (child_errno != 0) {
		ret->started = false; /* spawn failure: a failed probe */
	} else if (WIFEXITED(status)) {
		ret->exited = true;
		ret->exit_code = WEXITSTATUS(status);
		ret->started = true;
	} else if (WIFSIGNALED(status)) {
		ret->started = true;
		ret->signaled = true;
	}
	if (ret->timed_out && ret->started) {
		ret->exited = false;
		ret->signaled = true;
	}
	return 0;
}

confine_enforcement cf_probe_landlock_enforcement(const char *text) {
	if (text && strstr(text, "partially enforced"))
		return CONFINE_ENFORCEMENT_PARTIAL;
	return CONFINE_ENFORCEMENT_FULL;
}
