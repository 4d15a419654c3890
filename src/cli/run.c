/* SPDX-License-Identifier: MIT */
/*
 * confine run: the command with the caller's standard streams, its stderr
 * also kept (bounded) so a runner's pre-exec failure is recognised; exit
 * status the command's (128+N for signal N). With --json the outcome
 * object (bash's without the captured output) is the last line of stderr,
 * so stdout stays the command's alone (doc/SPEC.md 10).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "output.h"
#include "supervise.h"

/* Confines `argv` under the context's policy, or (danger-full-access) takes
 * it as it is. `*ret_confined` is NULL for an unconfined run. */
static int prepare(cli_context *ctx, const char *const *argv, confine_spawn_options *options,
                   confine_argv **ret_confined) {
	confine_error err;
	*ret_confined = NULL;
	confine_spawn_options_init(options);
	if (confine_mode_is_confined(ctx->policy->mode)) {
		if (confine_confine(ctx->provider, argv, ctx->policy, ret_confined, &err) < 0)
			return cli_report_error(ctx, &err);
		options->confined = *ret_confined;
	} else {
		options->argv = argv;
	}
	/* The workspace root is the session's cwd (SPEC 10's -w): commands run
	 * there, as the bash consumer's do. */
	options->workdir = ctx->policy->workspace_root;
	return 0;
}


/* Whether canonical `path` is `dir` or below it. */
static bool path_inside(const char *path, const char *dir) {
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

struct sandbox_view {
	const char *root;
	bool hidden_by_private_tmp;
};

/* A runner with a private /tmp (CONFINE_RUNNER_FACT_PRIVATE_TMP) mounts an
 * empty one under workspace-write: a file under the host's /tmp, outside
 * the workspace, is not there. */
static bool visible_in_sandbox(const char *path, void *data) {
	struct sandbox_view *view = data;
	if (path_inside(path, "/tmp") && !path_inside(path, view->root)) {
		view->hidden_by_private_tmp = true;
		return false;
	}
	return true;
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
static int resolve_program(const cli_context *ctx, const confine_argv *confined,
                           const char *program) {
	struct sandbox_view view = { ctx->policy->workspace_root, false };
	confine_find_options options = { .dir = ctx->policy->workspace_root };
	char *found = NULL;
	int r;
	if (confined && confined->policy.mode == CONFINE_MODE_WORKSPACE_WRITE &&
	    (confined->runner_facts & CONFINE_RUNNER_FACT_PRIVATE_TMP)) {
		options.accept = visible_in_sandbox;
		options.accept_data = &view;
	}
	r = confine_find_program(program, &options, &found);
	free(found);
	if (r == 0)
		return 0;
	if (r == -ENOMEM)
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	/* Not a failure of confine (125): the command's own, as a shell or
	 * env(1) reports it (126, 127); nothing ran. */
	{
		char message[CONFINE_ERROR_MESSAGE_MAX];
		snprintf(message, sizeof message, "%s: %s%s", program,
		         r == -EACCES ? "Permission denied" : "command not found",
		         r != -EACCES && view.hidden_by_private_tmp
		                 ? " (in the sandbox, /tmp is private and empty)"
		                 : "");
		return cli_fail(r == -EACCES ? CLI_EXIT_CANNOT_EXECUTE : CLI_EXIT_NOT_FOUND,
		                CONFINE_E_SPAWN, message, NULL);
	}
}

/* run --json: the outcome object as the last line of stderr, on a line of
 * its own (the command's stderr went there first, live). */
static int emit_outcome(const confine_outcome *outcome, const confine_error *error) {
	int last = '\n';
	if (outcome->stderr_truncated)
		last = -1; /* more was written than kept: its last byte is unknown */
	else if (outcome->stderr_data && outcome->stderr_len > 0)
		last = (unsigned char)outcome->stderr_data[outcome->stderr_len - 1];
	if (error && error->code != CONFINE_OK)
		last = '\n'; /* after confine's own line */
	return cli_emit_json_to(stderr, cli_outcome_json(outcome, false, error), last);
}

int cli_command_run(cli_context *ctx) {
	const cli_args *args = ctx->args;
	confine_spawn_options options;
	confine_argv *confined = NULL;
	confine_outcome *outcome = NULL;
	confine_error err;
	int status;

	/* Before confining: a missing program is not a sandbox problem. Once
	 * the runner is known, again where its view differs (bwrap's /tmp). */
	if ((status = resolve_program(ctx, NULL, args->program_argv[0])) != 0)
		return status;
	if ((status = prepare(ctx, (const char *const *)args->program_argv, &options, &confined)) != 0)
		return status;
	if (confined && (status = resolve_program(ctx, confined, args->program_argv[0])) != 0) {
		confine_argv_free(confined);
		return status;
	}
	/* stdin and stdout are the caller's; stderr goes to the caller live and
	 * is kept (bounded) so a runner's pre-exec failure is recognised. */
	options.stdio[2].kind = CONFINE_STDIO_TEE;
	options.stdio[2].fd = STDERR_FILENO;

	if (cli_spawn_supervised(&options, &outcome, &err) < 0) {
		confine_argv_free(confined);
		return cli_report_error(ctx, &err);
	}
	confine_argv_free(confined);
	if (confine_outcome_error(outcome, &err) < 0) {
		if (args->json) {
			/* The command's start was refused by its runner: the line
			 * every failure gets, then the outcome with its error. */
			fprintf(stderr, "confine: %s\n", err.message);
			(void)emit_outcome(outcome, &err);
			status = CLI_EXIT_FAILURE;
		} else {
			status = cli_report_error(ctx, &err);
		}
		confine_outcome_free(outcome);
		return status;
	}
	status = cli_exit_status(outcome);
	if (args->json && emit_outcome(outcome, NULL) < 0)
		status = CLI_EXIT_FAILURE; /* stderr is gone: nothing left to tell */
	confine_outcome_free(outcome);
	return status;
}
