/*
 * supervise-driver: runs a command under the supervisor alone (no
 * Landlock), the way the launcher does, for the supervisor's own tests.
 *
 *   supervise-driver [--rw PATH]... [--rw-shared PATH]... [--allow-unix-socket PATH]...
 *                    -- CMD [ARG...]
 *
 * Exits with the command's status (128+N for a signal), 125 for its own
 * failures, 77 when the kernel cannot supervise ("unavailable: <what>").
 * With CONFINE_TEST_SUPERVISE_PARTIAL=1 an unavailable supervisor is
 * reported ("partial: <what>") and the command runs without it, as the
 * launcher does when it records layers without `supervisor`.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "supervise.h"

#define MAX_LIST 64

static int fail(const char *what, int err)
{
	fprintf(stderr, "supervise-driver: %s: %s\n", what, strerror(err));
	return 125;
}

/* With CONFINE_TEST_SUPERVISE_THREAD=1: a thread blocks in the
 * listener's RECV, which lets the kernel hand the CPU straight to it (the
 * synchronous wake-up), instead of a poll loop. */
static void *serve(void *arg)
{
	struct supervise *sv = arg;

	while (supervise_handle(sv) == 0)
		continue;
	return NULL;
}

static int status_of(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + WTERMSIG(status);
}

int main(int argc, char **argv)
{
	const char *rw[MAX_LIST], *sockets[MAX_LIST];
	bool shared[MAX_LIST];
	size_t n_rw = 0, n_sockets = 0;
	struct supervise *sv = NULL;
	const char *missing = NULL;
	const char *partial = getenv("CONFINE_TEST_SUPERVISE_PARTIAL");
	int channel[2];
	int i, r, status;
	pid_t child;
	int pidfd;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (i + 1 >= argc)
			return fail("usage", EINVAL);
		if ((strcmp(argv[i], "--rw") == 0 || strcmp(argv[i], "--rw-shared") == 0) &&
		    n_rw < MAX_LIST) {
			shared[n_rw] = strcmp(argv[i], "--rw-shared") == 0;
			rw[n_rw++] = argv[++i];
		}
		else if (strcmp(argv[i], "--allow-unix-socket") == 0 && n_sockets < MAX_LIST)
			sockets[n_sockets++] = argv[++i];
		else
			return fail("usage", EINVAL);
	}
	if (i + 1 >= argc)
		return fail("usage: missing command", EINVAL);
	argv += i + 1;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return fail("no_new_privs", errno);
	r = supervise_probe(&missing);
	if (r < 0) {
		if (partial != NULL && strcmp(partial, "1") == 0) {
			fprintf(stderr, "supervise-driver: partial: %s\n", missing);
			execvp(argv[0], argv);
			return fail("exec", errno);
		}
		fprintf(stderr, "supervise-driver: unavailable: %s: %s\n", missing,
			strerror(-r));
		return 77;
	}
	r = supervise_new(rw, shared, n_rw, sockets, n_sockets, 0, &sv, NULL);
	if (r < 0)
		return fail("grants", -r);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0)
		return fail("socketpair", errno);
	signal(SIGPIPE, SIG_IGN);
	child = fork();
	if (child < 0)
		return fail("fork", errno);
	if (child == 0) {
		close(channel[0]);
		signal(SIGPIPE, SIG_DFL);
		r = supervise_child_install(sv, channel[1]);
		if (r < 0) {
			fprintf(stderr, "supervise-driver: cannot install the supervisor: %s\n",
				strerror(-r));
			_exit(125);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "supervise-driver: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(channel[1]);
	r = supervise_attach(sv, channel[0], child);
	if (r < 0) {
		waitpid(child, &status, 0);
		return fail("attach", -r);
	}
	if (getenv("CONFINE_TEST_SUPERVISE_THREAD") != NULL) {
		pthread_t thread;

		pthread_create(&thread, NULL, serve, sv);
		waitpid(child, &status, 0);
		return status_of(status);
	}
	pidfd = (int)syscall(SYS_pidfd_open, child, 0);
	if (pidfd < 0)
		return fail("pidfd_open", errno);
	for (;;) {
		struct pollfd fds[2] = {
			{ supervise_listener_fd(sv), POLLIN, 0 },
			{ pidfd, POLLIN, 0 },
		};

		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return fail("poll", errno);
		}
		if (fds[0].revents & POLLIN) {
			r = supervise_handle(sv);
			if (r < 0)
				return fail("supervise", -r);
			continue;
		}
		if (fds[1].revents & POLLIN)
			break;
	}
	waitpid(child, &status, 0);
	supervise_free(sv);
	return status_of(status);
}
