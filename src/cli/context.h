/* SPDX-License-Identifier: MIT */
/* What every subcommand works from (context.c). */
#ifndef CONFINE_CLI_CONTEXT_H
#define CONFINE_CLI_CONTEXT_H

#include <stdbool.h>

#include "args.h"
#include "commands.h"
#include "config-file.h"
#include "confine.h"

typedef struct cli_context {
	const cli_args *args;
	cli_config config;          /* empty when no file was given */
	confine_provider *provider;
	confine_policy *policy;     /* NULL for probe */
	char *workdir;              /* --cwd DIR made absolute; NULL: the root */
} cli_context;

/* Loads the configuration, makes the provider and (`with_policy`) resolves
 * the policy. 0, or the exit status after reporting the failure. Close the
 * context either way. */
int cli_context_open(cli_context *ctx, const cli_args *args, bool with_policy);
void cli_context_close(cli_context *ctx);

/* Removes the stage made for this run (--stage) when the command never
 * started: a retry with the same DIR then finds it absent. */
void cli_stage_drop(cli_context *ctx);

/* The subcommands (run.c, bash.c, wrap.c, probe.c): each returns confine's
 * exit status. */
int cli_command_run(cli_context *ctx);
int cli_command_bash(cli_context *ctx);
int cli_command_wrap(cli_context *ctx);
int cli_command_probe(cli_context *ctx);
int cli_command_fs(cli_context *ctx);
int cli_command_export(cli_context *ctx); /* export/command.c */

#endif
