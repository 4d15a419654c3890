/*
 * The spawned launcher's keeper: lifeline.h says why. The spawned process
 * (P) forks the keeper (K) before anything else is set up, so P holds
 * nothing of the run: no grant, no mount, no Landlock domain (the command's
 * domain nests in K's, so the command's scoped signals cannot reach P
 * either), only the pipe's write end, its starter's pidfd and the keeper's
 * pid. Nothing between fork and the keeper's return allocates.
 */
#include "lifeline.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "parent.h"

/* Kills and reaps every child left to P (a keeper that died before ending
 * the tree hands the tree to P, a child subreaper), until none is left. */
static void end_orphans(void)
{
	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, __WALL | WNOHANG);

		if (pid > 0)
			continue;
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			return; /* ECHILD: nothing left */
		/* Children remain, none reapable yet: kill them, wait for one. */
		parent_kill_children();
		pid = waitpid(-1, &status, __WALL);
		if (pid < 0 && errno != EINTR)
			return;
	}
}

static void pass_on(pid_t keeper, const struct signalfd_siginfo *info)
{
	int sig = (int)info->ssi_signo;

	if (info->ssi_code == SI_KERNEL) {
		union sigval value = { .sival_int = LIFELINE_FROM_TERMINAL };

		sigqueue(keeper, sig, value);
		return;
	}
	kill(keeper, sig);
}

/* The starter is gone: the keeper is told (its lifeline ends) and ends the
 * tree; the spawned process exits 125 once it and every orphan are gone,
 * so whoever reaps the spawned process finds nothing of the run left. */
static void end_with_the_starter(pid_t keeper, int line) __attribute__((noreturn));

static void end_with_the_starter(pid_t keeper, int line)
{
	int status;

	close(line);
	while (waitpid(keeper, &status, __WALL) < 0 && errno == EINTR)
		continue;
	end_orphans();
	_exit(LAUNCHER_EXIT_FAILURE);
}

static void keep(pid_t keeper, int line, int starter, int signal_fd) __attribute__((noreturn));

static void keep(pid_t keeper, int line, int starter, int signal_fd)
{
	struct pollfd slots[2] = { { signal_fd, POLLIN, 0 }, { starter, POLLIN, 0 } };

	for (;;) {
		struct signalfd_siginfo info;
		int status;
		pid_t pid;

		if (poll(slots, starter >= 0 ? 2 : 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot wait any more: the keeper ends the tree when P goes. */
			_exit(LAUNCHER_EXIT_FAILURE);
		}
		if (starter >= 0 && slots[1].revents != 0)
			end_with_the_starter(keeper, line);
		while (read(signal_fd, &info, sizeof(info)) == (ssize_t)sizeof(info)) {
			if (info.ssi_signo != SIGCHLD) {
				pass_on(keeper, &info);
				continue;
			}
			while ((pid = waitpid(-1, &status, __WALL | WNOHANG)) > 0)
				if (pid == keeper) {
					end_orphans();
					parent_mirror(status);
				}
		}
	}
}

int lifeline_split(int starter, pid_t *command_pgrp)
{
	sigset_t handled, old;
	int line[2];
	int signal_fd;
	pid_t keeper;

	parent_handled_signals(&handled);
	/* P: not dumpable (where no Landlock domain stands between them, a
	 * command of the same uid could otherwise trace it), a child subreaper
	 * (a keeper that dies hands the tree to P), its signals read from a
	 * descriptor, all before the fork so none is lost in between. */
	if (pipe2(line, O_CLOEXEC) != 0) {
		report_failure("cannot supervise the command: %s", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0 ||
	    sigprocmask(SIG_BLOCK, &handled, &old) != 0 ||
	    (signal_fd = signalfd(-1, &handled, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		report_failure("cannot supervise the command: %s", strerror(errno));
		return -1;
	}
	*command_pgrp = getpgrp();
	keeper = fork();
	if (keeper < 0) {
		report_failure("cannot supervise the command: %s", strerror(errno));
		return -1;
	}
	if (keeper > 0) {
		close(line[0]);
		keep(keeper, line[1], starter, signal_fd);
	}
	/* The keeper: only P holds the write end from here on. Its own group,
	 * so the harness's killpg leaves it to end the tree; its terminal
	 * writes (failure lines) must not stop it from a background group. */
	close(line[1]);
	close(signal_fd);
	if (starter >= 0)
		close(starter);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (setpgid(0, 0) != 0) {
		report_failure("cannot supervise the command: %s", strerror(errno));
		_exit(LAUNCHER_EXIT_FAILURE);
	}
	sigemptyset(&handled);
	sigaddset(&handled, SIGTTOU);
	sigaddset(&handled, SIGTTIN);
	sigprocmask(SIG_BLOCK, &handled, NULL);
	/* P died before the keeper's first look: the lifeline already reads
	 * end of file, and the keeper's loop ends the run at its first poll. */
	return line[0];
}
