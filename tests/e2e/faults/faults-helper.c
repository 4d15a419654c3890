/* SPDX-License-Identifier: MIT */
/*
 * faults-helper: what the faults suite (faults.sh) needs inside a confined
 * command and the shell cannot say.
 *
 *   ptrace-stop PID READY SECONDS
 *       PTRACE_SEIZE and PTRACE_INTERRUPT process PID, wait until it is in a
 *       ptrace stop, write "stopped PID STATE" to the file READY (STATE the
 *       letter /proc shows, 't'), then ignore SIGTERM and sleep SECONDS
 *       while holding it stopped: a tracer that only SIGKILL ends, over a
 *       tracee that only SIGKILL (or its tracer's end) frees.
 *       Exit 3 when the kernel refused the attach (printed), 2 on usage.
 *
 * The unique marker the suite looks for in /proc is in the caller's argv
 * (SECONDS is chosen to be one).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef PTRACE_SEIZE
#define PTRACE_SEIZE 0x4206
#endif
#ifndef PTRACE_INTERRUPT
#define PTRACE_INTERRUPT 0x4207
#endif

static char proc_state(pid_t pid) {
	char path[64], buf[512];
	FILE *f;
	char *p;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if (!(f = fopen(path, "r")))
		return '?';
	if (!fgets(buf, sizeof buf, f)) {
		fclose(f);
		return '?';
	}
	fclose(f);
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

static int ptrace_stop(const char *pid_text, const char *ready, const char *seconds) {
	pid_t pid = (pid_t)atoi(pid_text);
	struct timespec ts;
	double secs = atof(seconds);
	FILE *f;
	int status;

	if (pid <= 0)
		return 2;
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0) {
		printf("seize %d refused: %s\n", (int)pid, strerror(errno));
		fflush(stdout);
		return 3;
	}
	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL) < 0) {
		printf("interrupt %d refused: %s\n", (int)pid, strerror(errno));
		fflush(stdout);
		return 3;
	}
	/* The tracee reports its ptrace stop to its tracer, child or not. */
	while (waitpid(pid, &status, __WALL) < 0 && errno == EINTR)
		;
	signal(SIGTERM, SIG_IGN);
	f = fopen(ready, "w");
	if (f) {
		fprintf(f, "stopped %d %c\n", (int)pid, proc_state(pid));
		fclose(f);
	}
	printf("holding %d in a ptrace stop (%c)\n", (int)pid, proc_state(pid));
	fflush(stdout);
	ts.tv_sec = (time_t)secs;
	ts.tv_nsec = 0;
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return 0;
}

int main(int argc, char **argv) {
	if (argc == 5 && strcmp(argv[1], "ptrace-stop") == 0)
		return ptrace_stop(argv[2], argv[3], argv[4]);
	fprintf(stderr, "faults-helper: usage: see the comment at the top of faults-helper.c\n");
	return 2;
}
