/* SPDX-License-Identifier: MIT */
/*
 * confine run: the command with the caller's standard streams, its stderr
 * also kept (bounded) so a runner's pre-exec failure is recognised; exit
 * status the command's (128+N for signal N).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "output.h"
#include "supervise.h"

/* The conventions of env(1) and timeout(1) for a program that cannot run. */
#define CLI_EXIT_CANNOT_EXECUTE 126
#define CLI_EXIT_NOT_FOUND 127

/* Whether canonical `path` is `dir` or below it. */
static bool path_inside(const char *path, const char *dir) {
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/*
 * Resolves PROGRAM the way the sandbox's exec will (execvp(3): a name with
 * a slash is a path, relative ones from the workspace root where the
 * command starts; a bare name is searched on $PATH, or CONFINE_DEFAULT_PATH
 * as the child's exec would, an empty entry meaning that directory too)
 * before anything is confined. Otherwise a missing program reaches the
 * runner, and bwrap's "bwrap: execvp ...: No such file or directory" is
 * indistinguishable from bwrap itself failing: the user would be told to
 * install bubblewrap. Returns 0 when it resolves, else the exit status
 * after printing `confine: PROGRAM: ...`.
 */
static int resolve_program(const cli_context *ctx, const char *program) {
	confine_find_options options = { .dir = ctx->policy->workspace_root };
	char *found = NULL;
	int r;
	r = confine_find_program(program, &options, &found);
	free(found);
	if (r == 0)
		return 0;
	if (r == -ENOMEM)
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	/* Not a failure of confine (125): the command's own, as a shell or
	 * env(1) reports it; nothing ran. */
	fprintf(stderr, "confine: %s: %s\n", program,
	        r == -EACCES ? "Permission denied" : "command not found");
	fflush(stderr);
	return r == -EACCES ? CLI_EXIT_CANNOT_EXECUTE : CLI_EXIT_NOT_FOUND;
}

int cli_command_run(cli_context *ctx) {
	const cli_args *args = ctx->args;
	const char *const *argv = (const char *const *)args->program_argv;
	bool confined = confine_mode_is_confined(ctx->policy->mode);
	confine_spawn_options options;
	confine_outcome *outcome = NULL;
	confine_error err;
	int status;

	/* Before confining: a missing program is not a sandbox problem. */
	if ((status = resolve_program(ctx, argv[0])) != 0)
		return status;
	confine_spawn_options_init(&options);
	options.argv = argv;
	/* The workspace root is the session's cwd (SPEC 10's -w): commands run
	 * there, as the bash consumer's do. */
	options.workdir = ctx->policy->workspace_root;
	/* stdin and stdout are the caller's; stderr goes to the caller live and
	 * is kept (bounded) for the denial marker and a runner's own words. */
	options.stdio[2].kind = CONFINE_STDIO_TEE;
	options.stdio[2].fd = STDERR_FILENO;

	if (cli_spawn_supervised(confined ? ctx->provider : NULL, ctx->policy, &options, &outcome,
	                         &err) < 0) {
		/* The runner started but the program is not there in the sandbox
		 * (its status channel said so): the command's failure, not ours. */
		if (confined && err.code == CONFINE_E_SPAWN &&
		    (err.sys_errno == ENOENT || err.sys_errno == EACCES)) {
			bool in_tmp = argv[0][0] == '/' && path_inside(argv[0], "/tmp") &&
			              !path_inside(argv[0], ctx->policy->workspace_root);
			fprintf(stderr, "confine: %s: %s%s\n", argv[0],
			        err.sys_errno == EACCES ? "Permission denied" : "command not found",
			        err.sys_errno == ENOENT && in_tmp
			                ? " (in the sandbox, /tmp is private and empty)"
			                : "");
			fflush(stderr);
			return err.sys_errno == EACCES ? CLI_EXIT_CANNOT_EXECUTE : CLI_EXIT_NOT_FOUND;
		}
		return cli_report_error(ctx, &err);
	}
	if (confine_outcome_error(outcome, &err) < 0) {
		confine_outcome_free(outcome);
		return cli_report_error(ctx, &err);
	}
	status = cli_exit_status(outcome);
	confine_outcome_free(outcome);
	return status;
}
