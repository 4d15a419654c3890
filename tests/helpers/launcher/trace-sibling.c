/*
 * trace-sibling: a command whose tree holds a ptrace-stopped process.
 *
 *   trace-sibling FILE
 *
 * Forks a target T (sleeps) and a tracer S; S attaches to its sibling T
 * with PTRACE_SEIZE, stops it with PTRACE_INTERRUPT, waits until T is in
 * tracing stop, writes "T S\n" to FILE, and sleeps. This process waits for
 * both: it is what the launcher runs, and what a signal reaches first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t target, tracer;
	int ready[2];
	char byte;

	if (argc != 2 || pipe(ready) != 0)
		return 2;
	target = fork();
	if (target == 0) {
		close(ready[0]);
		/* Yama (where present) lets any process of ours trace it. */
		prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
		if (write(ready[1], "r", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (target < 0 || read(ready[0], &byte, 1) != 1)
		return 3;
	tracer = fork();
	if (tracer == 0) {
		int status;
		FILE *file;

		if (ptrace(PTRACE_SEIZE, target, 0, 0) != 0 ||
		    ptrace(PTRACE_INTERRUPT, target, 0, 0) != 0 ||
		    waitpid(target, &status, __WALL) != target || !WIFSTOPPED(status)) {
			perror("trace-sibling: ptrace");
			_exit(4);
		}
		file = fopen(argv[1], "we");
		if (file == NULL || fprintf(file, "%ld %ld\n", (long)target, (long)getpid()) < 0 ||
		    fclose(file) != 0)
			_exit(5);
		for (;;)
			pause();
	}
	while (wait(NULL) > 0 || errno == EINTR)
		continue;
	return 0;
}
