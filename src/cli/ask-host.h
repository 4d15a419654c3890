/* SPDX-License-Identifier: MIT */
/* `--ask-host COMMAND`: the run's decider (doc/SPEC.md 15, "Ask"). */
#ifndef CONFINE_CLI_ASK_HOST_H
#define CONFINE_CLI_ASK_HOST_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "context.h"

/* How long COMMAND may take; then it is killed and the host refused (the
 * proxy's own bound, 30 s, is longer, so the reason reaches the model). */
#define CLI_ASK_HOST_SECONDS 25

/* confine_spawn_options.ask_host for `data` = COMMAND: runs COMMAND HOST
 * PORT (found on PATH, unconfined: it is the caller's program), its stdin
 * /dev/null, its stderr confine's; exit 0 allows, the first line it
 * prints is the reason. The answer is taken when it exits (a child left
 * holding its stdout is not waited for); its process group is killed
 * then. */
bool cli_ask_host(void *data, const char *host, unsigned port, char *reason, size_t size);

/* The run's timeout (ms from now; 0: none), set before the run starts: a
 * question still open when it is due is refused at once. */
void cli_ask_host_deadline(long long timeout_ms);

/* COMMAND found once, before the run (execvp's PATH rule), as `resolved`
 * (canonical): refused, INVALID_CONFIG naming it (exit 125, nothing runs),
 * when it is not found, lies inside a writable root of the run's policy
 * (the confined command could plant its own: red team R3-F6), or it or a
 * directory above it is owned by another user or writable by group or
 * others. 0, or the exit status cli_report() gave. */
int cli_ask_host_resolve(const cli_context *ctx, const char *command, char resolved[PATH_MAX]);

#endif
