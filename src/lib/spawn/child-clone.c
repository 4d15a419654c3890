/* SPDX-License-Identifier: MIT */
/*
 * Starting the child on Linux: clone(CLONE_VM | CLONE_VFORK) on a small
 * stack of its own, as glibc's posix_spawn does, not fork(). fork copies the
 * caller's page tables, which costs milliseconds in a large caller (an agent
 * harness holding hundreds of MiB), while a child sharing the caller's
 * memory costs the same whatever the caller's size. Sharing memory puts
 * rules on the child (see cf_child_start below).
 *
 * Meson compiles this file where clone(2) with CLONE_VFORK exists and the
 * build has no AddressSanitizer, ThreadSanitizer or MemorySanitizer (their
 * runtimes do not expect a second process on the same memory), and not in a
 * -Dportable=true build; child-fork.c otherwise.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "spawn/spawn.h"

/* The child's own stack: cf_child_main's deepest frame is the 4 KiB getdents
 * buffer of the /proc walk plus libc's system call wrappers, far below this.
 * Below it sits one inaccessible guard page, so an overflow faults instead
 * of writing into whatever the caller had mapped there. */
#define CHILD_STACK_SIZE (64 * 1024)

static int child_entry(void *arg) {
	cf_child_main(arg); /* execs or _exits */
}

/* Every signal, glibc's internal ones included (its sigfillset and
 * pthread_sigmask leave the cancellation and set*id signals open, and their
 * handlers would run in the child on the caller's thread structures): the
 * raw system call, as glibc's posix_spawn does. `old` receives the mask. */
static void block_all_signals(sigset_t *old) {
	sigset_t all;
	memset(&all, 0xff, sizeof all);
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, old, (size_t)(_NSIG / 8));
}

static void restore_signals(const sigset_t *old) {
	(void)syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, (size_t)(_NSIG / 8));
}

/*
 * Starts the child sharing this process's memory, suspended (CLONE_VFORK)
 * until the child execs or exits, so no page table is copied. The child runs
 * on the thread of the caller, on a stack mapped here for it, and must leave
 * the caller's state as it found it:
 *  - it only reads the plan (which lives on our suspended stack) and makes
 *    system calls through libc wrappers that take no lock and allocate
 *    nothing; it never returns into our frames (exec or _exit);
 *  - its errno is our thread's errno (same TLS): saved here and restored
 *    once it has gone;
 *  - no handler of the caller may run in it, on memory the caller is using:
 *    every signal stays blocked from before the clone until the child has
 *    reset every disposition to SIG_DFL (child_main); its disposition table
 *    is its own copy (no CLONE_SIGHAND), as are its descriptor table and its
 *    working directory (no CLONE_FILES, no CLONE_FS).
 * Returns 0 with *ret_pid, or the errno of the failure.
 */
int cf_child_start(struct cf_child_plan *plan, pid_t *ret_pid) {
	long page_size = sysconf(_SC_PAGESIZE);
	size_t guard = page_size > 0 ? (size_t)page_size : 4096;
	size_t len = CHILD_STACK_SIZE + guard;
	char *map;
	sigset_t old;
	int saved_errno = errno;
	int e = 0;
	pid_t pid;

	map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (map == MAP_FAILED)
		return errno;
	if (mprotect(map, guard, PROT_NONE) < 0) {
		e = errno;
		munmap(map, len);
		return e;
	}
	block_all_signals(&old);
	/* The stack grows down on every architecture Linux runs this on but
	 * PA-RISC, where clone() takes its lowest address. */
#if defined(__hppa__)
	pid = clone(child_entry, map + guard, CLONE_VM | CLONE_VFORK | SIGCHLD, plan);
#else
	pid = clone(child_entry, map + len, CLONE_VM | CLONE_VFORK | SIGCHLD, plan);
#endif
	if (pid < 0)
		e = errno;
	restore_signals(&old);
	/* The child has exec'd (its own memory now) or exited: the stack is free. */
	munmap(map, len);
	errno = saved_errno;
	if (pid < 0)
		return e;
	*ret_pid = pid;
	return 0;
}

bool cf_spawn_shares_memory(void) {
	return true;
}
