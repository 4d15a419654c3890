/* SPDX-License-Identifier: MIT */
/*
 * confine-gvisor's reaper (doc/SPEC.md 22). `runsc run` makes the sandbox
 * (runsc-sandbox, runsc-gofer) in a session of its own: when the helper or
 * `runsc run` is killed, nothing ends it, and the command went on writing
 * the workspace for minutes after confine was killed with SIGKILL (an
 * outside red team). The helper dies with its parent (PR_SET_PDEATHSIG);
 * before it starts runsc it forks this reaper into a session of its own
 * (a harness's kill of the process group leaves it), holding the read end
 * of a pipe whose only writer is the helper. A byte on it: the helper
 * ended runsc and cleaned up, the reaper leaves. End of file without it:
 * the helper is gone; the reaper kills every process of the sandbox, has
 * runsc delete the container, and removes the run directory. The command
 * inside gVisor cannot reach the reaper (no host process is visible
 * there).
 */
#include "helper-reaper.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* runsc_base, then `verb` words, run to the end, its output discarded. */
static void runsc_run(char *const *runsc_base, char *const *verb) {
	char *argv[32];
	size_t n = 0;
	pid_t pid;
	for (size_t i = 0; runsc_base[i] && n < 20; i++)
		argv[n++] = runsc_base[i];
	for (size_t i = 0; verb[i] && n < 30; i++)
		argv[n++] = verb[i];
	argv[n] = NULL;
	if ((pid = fork()) == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
}

void gv_reap(char *const *runsc_base, const char *id, const char *run_dir) {
	char *kill_all[] = { (char *)"kill", (char *)"--all", (char *)id, (char *)"KILL", NULL };
	char *delete_force[] = { (char *)"delete", (char *)"--force", (char *)id, NULL };
	runsc_run(runsc_base, kill_all);
	runsc_run(runsc_base, delete_force);
	(void)gv_remove_tree(run_dir);
	gv_remove_cgroups(id);
}

int gv_reaper_start(char *const *runsc_base, const char *id, const char *run_dir) {
	int life[2];
	pid_t pid;
	if (pipe2(life, O_CLOEXEC) < 0)
		return -errno;
	if ((pid = fork()) < 0) {
		int e = errno;
		close(life[0]);
		close(life[1]);
		return -e;
	}
	if (pid == 0) {
		char byte;
		ssize_t r;
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		struct sigaction dfl = { 0 };
		/* Nothing of the caller's held open: not its streams (a
		 * harness reading them to the end), not the status channel. */
		if (null >= 0) {
			(void)dup2(null, 0);
			(void)dup2(null, 1);
			(void)dup2(null, 2);
		}
		if (dup2(life[0], 3) < 0)
			_exit(1);
		(void)fcntl(3, F_SETFD, FD_CLOEXEC);
		(void)syscall(SYS_close_range, 4U, ~0U, 0U);
		(void)setsid();
		dfl.sa_handler = SIG_IGN;
		for (int sig = 1; sig < 32; sig++)
			if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
				(void)sigaction(sig, &dfl, NULL);
		do
			r = read(3, &byte, 1);
		while (r < 0 && errno == EINTR);
		if (r == 1)
			_exit(0);
		gv_reap(runsc_base, id, run_dir);
		_exit(0);
	}
	close(life[0]);
	return life[1];
}

void gv_reaper_done(int fd) {
	if (fd < 0)
		return;
	while (write(fd, "d", 1) < 0 && errno == EINTR)
		;
	close(fd);
}
