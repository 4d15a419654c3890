/* SPDX-License-Identifier: MIT */
/*
 * Starting the child with fork(): everywhere clone(CLONE_VM | CLONE_VFORK)
 * is not used (macOS and other systems, sanitizer builds, -Dportable=true;
 * see child-clone.c). The child's code is the same either way (child.c).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "spawn/spawn.h"

/* A forked child has its own copy of everything; blocking every signal
 * around fork keeps a caller's handler from running in it before it resets
 * the dispositions. */
int cf_child_start(struct cf_child_plan *plan, pid_t *ret_pid) {
	sigset_t all, old;
	pid_t pid;
	int e;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		cf_child_main(plan); /* does not return */
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0)
		return e;
	*ret_pid = pid;
	return 0;
}

bool cf_spawn_shares_memory(void) {
	return false;
}
