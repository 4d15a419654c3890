/* SPDX-License-Identifier: MIT */
/* confine: run commands confined (SPEC 10). main() only parses, prints help
 * or the version, and hands the command to commands.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "args.h"
#include "commands.h"
#include "option-rows.h"
#include "output.h"
#include "stage.h"

/* CONFINE_DIE_WITH_PARENT=<pid> (the Node package sets it, doc/SPEC.md 15
 * "Nothing left behind"): confine gets SIGTERM when that parent dies, even
 * by SIGKILL, and ends the run as a harness's timeout would (the command's
 * tree, then its cgroup and temp directory), instead of running on as an
 * orphan nobody reads. Linux only (PR_SET_PDEATHSIG; it follows the thread
 * that spawned confine, which is why it is the caller's to ask for). The
 * variable is taken out of the environment the command inherits. */
static void die_with_parent(void) {
	const char *value = getenv("CONFINE_DIE_WITH_PARENT");
	long parent = 0;
	char *end = NULL;
	if (!value)
		return;
	parent = strtol(value, &end, 10);
	(void)unsetenv("CONFINE_DIE_WITH_PARENT");
	if (!end || *end || parent <= 1)
		return;
#ifdef __linux__
	(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
	/* Gone before the prctl: nothing would signal us. */
	if ((long)getppid() != parent)
		(void)raise(SIGTERM);
#endif
}

int main(int argc, char **argv) {
	cli_args args;
	int status = CLI_EXIT_FAILURE;

	/* An ignored SIGCHLD is inherited across exec; with it the kernel reaps
	 * children itself and no exit status (of a probe, of the command) could
	 * ever be collected. confine needs the default. */
	signal(SIGCHLD, SIG_DFL);
	die_with_parent();

	/* `confine stage ...` takes none of the run options: its own parser. */
	if (argc > 1 && strcmp(argv[1], "stage") == 0)
		return cli_stage_main(argc - 2, argv + 2);

	if (cli_args_parse(argc, argv, &args) < 0) {
		/* Name the problem and point at the help, without dumping it; in
		 * JSON (wrap, or --json anywhere among the options) also as the
		 * USAGE error object, after the pointer (run --json: stderr's
		 * last line). */
		cli_output_configure(&args);
		if (args.error_is_policy || args.error_is_config)
			status = cli_fail(CLI_EXIT_FAILURE,
			                  args.error_is_policy ? CONFINE_E_INVALID_POLICY
			                                       : CONFINE_E_INVALID_CONFIG,
			                  args.error, NULL);
		else
			status = cli_fail_usage(CLI_EXIT_FAILURE, args.error, cli_help_hint(args.command));
		cli_args_clear(&args);
		return status;
	}
	switch (args.action) {
	case CLI_ACTION_HELP:
		fputs(cli_help_text(args.command), stdout);
		status = fflush(stdout) == 0 ? 0 : CLI_EXIT_FAILURE;
		break;
	case CLI_ACTION_VERSION:
		printf("confine %s\n", confine_version());
		status = fflush(stdout) == 0 ? 0 : CLI_EXIT_FAILURE;
		break;
	case CLI_ACTION_USAGE_ERROR: /* handled above */
	case CLI_ACTION_EXECUTE:
		cli_output_configure(&args);
		/* The table needs no configuration, no policy, no provider. */
		status = args.command == CLI_COMMAND_OPTIONS ? cli_options_print(args.json)
		                                             : cli_execute(&args);
		break;
	}
	cli_args_clear(&args);
	return status;
}
