/* SPDX-License-Identifier: MIT */
/* The confine command's subcommands, over libconfine. */
#ifndef CONFINE_CLI_COMMANDS_H
#define CONFINE_CLI_COMMANDS_H

#include <stdbool.h>

#include "args.h"
#include "confine.h"

/* Exit status of every failure of confine itself (SPEC 10). */
#define CLI_EXIT_FAILURE 125

/* Runs the parsed command (args->action == CLI_ACTION_EXECUTE) and returns
 * the process's exit status. */
int cli_execute(const cli_args *args);

/* Reports a failure of confine itself: `confine: MESSAGE` on stderr and, in
 * the JSON mode set by cli_output_configure() (output.h; `json` is not
 * consulted), {"error":{"code","message"}} where the command's JSON goes.
 * Returns CLI_EXIT_FAILURE. */
int cli_report_failure(bool json, confine_error_code code, const char *message);

#endif
