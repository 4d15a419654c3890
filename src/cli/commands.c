/* SPDX-License-Identifier: MIT */
/*
 * The confine command's subcommands: run, bash, wrap, probe (SPEC 10), one
 * file each over the context (context.c), the output (output.c) and, for
 * the commands that run something, the supervision (supervise.c). A
 * failure of confine itself is one `confine: MESSAGE` line on stderr (and
 * in JSON the error object) and exit 125, or 126/127 when the command
 * could not be started (doc/SPEC.md 16); a confined mode never runs its
 * command unconfined. The CLI uses
 * only the library's public API (confine.h).
 */
#include "context.h"
#include "output.h"
#include "supervise.h"

int cli_execute(const cli_args *args) {
	cli_context ctx;
	int status;
	bool with_policy = args->command != CLI_COMMAND_PROBE;

	status = cli_context_open(&ctx, args, with_policy);
	if (status == 0) {
		switch (args->command) {
		case CLI_COMMAND_RUN:
			cli_adopt_orphans();
			status = cli_command_run(&ctx);
			cli_end_orphans();
			cli_supervise_release();
			break;
		case CLI_COMMAND_BASH:
			cli_adopt_orphans();
			status = cli_command_bash(&ctx);
			cli_end_orphans();
			cli_supervise_release();
			break;
		case CLI_COMMAND_WRAP: status = cli_command_wrap(&ctx); break;
		case CLI_COMMAND_PROBE: status = cli_command_probe(&ctx); break;
		case CLI_COMMAND_FS: status = cli_command_fs(&ctx); break;
		case CLI_COMMAND_EXPORT: status = cli_command_export(&ctx); break;
		case CLI_COMMAND_OPTIONS: /* main.c's, before any context */
		case CLI_COMMAND_NONE:
			status = cli_fail(CLI_EXIT_FAILURE, CLI_E_USAGE, "missing command", NULL);
			break;
		}
	}
	cli_context_close(&ctx);
	return status;
}
