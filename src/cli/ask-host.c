/* SPDX-License-Identifier: MIT */
/*
 * `--ask-host COMMAND` (ask-host.h). SIGCHLD is blocked while COMMAND
 * runs: the subreaper's handler (supervise.c) would otherwise reap it
 * first.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ask-host.h"

static long long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

bool cli_ask_host(void *data, const char *host, unsigned port, char *reason, size_t size) {
	const char *command = data;
	char port_text[16], got[1024];
	char *argv[4];
	size_t n = 0;
	sigset_t block, old;
	long long until;
	int out[2], devnull, status = 0;
	bool done = false, ended = false;
	pid_t pid;

	snprintf(port_text, sizeof port_text, "%u", port);
	argv[0] = (char *)command;
	argv[1] = (char *)host;
	argv[2] = port_text;
	argv[3] = NULL;
	if (size)
		reason[0] = '\0';
	devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (devnull < 0 || pipe2(out, O_CLOEXEC) < 0) {
		if (devnull >= 0)
			close(devnull);
		snprintf(reason, size, "the decider cannot be run: %s", strerror(errno));
		return false;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	pid = fork();
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0)
			_exit(127);
		execvp(command, argv);
		_exit(127);
	}
	close(out[1]);
	close(devnull);
	if (pid < 0) {
		close(out[0]);
		sigprocmask(SIG_SETMASK, &old, NULL);
		snprintf(reason, size, "the decider cannot be run: %s", strerror(errno));
		return false;
	}
	/* Its output until it closes it (or the bound), then its end. */
	until = now_ms() + CLI_ASK_HOST_SECONDS * 1000LL;
	while (!done) {
		struct pollfd pfd = { .fd = out[0], .events = POLLIN };
		long long left = until - now_ms();
		char scratch[512];
		ssize_t r;
		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)(left > 1000 ? 1000 : left)) <= 0)
			continue;
		r = read(out[0], scratch, sizeof scratch);
		if (r > 0) {
			size_t k = (size_t)r < sizeof got - 1 - n ? (size_t)r : sizeof got - 1 - n;
			memcpy(got + n, scratch, k);
			n += k;
		} else if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN))
			done = true;
	}
	close(out[0]);
	while (now_ms() < until && !ended) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			ended = true;
		else if (w < 0 && errno != EINTR)
			break;
		else
			usleep(10000);
	}
	if (!ended) {
		kill(pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		sigprocmask(SIG_SETMASK, &old, NULL);
		snprintf(reason, size, "the decider %s did not answer within %d s", command,
		         CLI_ASK_HOST_SECONDS);
		return false;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	got[n] = '\0';
	got[strcspn(got, "\r\n")] = '\0';
	snprintf(reason, size, "%s", got);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127 && !got[0])
		snprintf(reason, size, "the decider %s cannot be run", command);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}
