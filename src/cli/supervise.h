/* SPDX-License-Identifier: MIT */
/* Supervising the command of `confine run` and `confine bash` (supervise.c). */
#ifndef CONFINE_CLI_SUPERVISE_H
#define CONFINE_CLI_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "confine.h"

/* Supervision brackets a start and a wait: begin before the start (blocks
 * the forwarded signals and installs the handlers, keeping the old mask in
 * `old_mask`), started after it (`process`, or NULL when the start failed),
 * end once the run settled (before the process is freed), release after
 * confine's own cleanup. */
void cli_supervise_begin(sigset_t *old_mask);
void cli_supervise_started(confine_process *process, const sigset_t *old_mask);
void cli_supervise_end(void);
/* Whether a signal that ends the run (SIGTERM, SIGHUP, SIGQUIT) was
 * forwarded to it: async-signal-safe to read. */
bool cli_supervise_ending(void);
/* The decider's child (ask-host.c, on the library's thread for the
 * question) is its own to reap: the orphan reaper leaves a pid kept here
 * alone. False when every slot is taken. */
bool cli_supervise_keep_child(pid_t pid);
void cli_supervise_let_child_go(pid_t pid);
void cli_supervise_release(void);

/* Makes confine a child subreaper (Linux; elsewhere nothing), so the
 * command's orphans become its children. */
void cli_adopt_orphans(void);
/* Kills every process still below confine and reaps its children. */
void cli_end_orphans(void);

/* Spawns `options` under supervision and returns its outcome. */
int cli_spawn_supervised(confine_provider *provider, const confine_policy *policy,
                         const confine_spawn_options *options, confine_outcome **ret,
                         confine_error *err);

/* The shell's convention: the exit code, or 128+N for death by signal N. */
int cli_exit_status(const confine_outcome *outcome);

#endif
