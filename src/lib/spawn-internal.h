/* SPDX-License-Identifier: MIT */
/* Internal knobs of spawning (src/lib/spawn/) for the library's own callers
 * and the tests. */
#ifndef CONFINE_SPAWN_INTERNAL_H
#define CONFINE_SPAWN_INTERNAL_H

#include <stdbool.h>
#include <sys/types.h>

#include "util.h"

/* Whether this build starts children sharing the caller's memory until
 * their exec (clone(CLONE_VM | CLONE_VFORK)) rather than with fork(): true
 * on Linux outside AddressSanitizer/ThreadSanitizer builds, and false in a
 * -Dportable=true build. */
bool cf_spawn_shares_memory(void) CONFINE_HIDDEN;

/* How long a timed-out process has between SIGTERM and SIGKILL (default
 * CONFINE_KILL_GRACE_MS); 0 sends SIGKILL at the deadline itself, for a
 * bound that must hold whatever the child does with SIGTERM (the probes). */
void cf_process_set_kill_grace_ms(struct confine_process *process, unsigned grace_ms) CONFINE_HIDDEN;

/* pipe(2) with both ends close-on-exec: pipe2 where it exists, else pipe and
 * fcntl (see spawn/start.c for the window that leaves). -1 with errno on failure. */
int cf_pipe_cloexec(int fds[2]) CONFINE_HIDDEN;

/* For the tests: find descendants by scanning /proc/<pid>/stat parent links
 * even where /proc/<pid>/task/<tid>/children exists (the fallback for
 * kernels without CONFIG_PROC_CHILDREN). */
void cf_process_tree_force_scan(bool on) CONFINE_HIDDEN;

#endif
