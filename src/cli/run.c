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
#include "policy-json.h"
#include "supervise.h"

/* The conventions of env(1) and timeout(1) for a program that cannot run. */
#define CLI_EXIT_CANNOT_EXECUTE 126
#define CLI_EXIT_NOT_FOUND 127

/* The run's temp dir when the run did not start (the spawner removes it
 * once it has taken it over; rmdir of a removed one fails harmlessly). */
static void drop_temp_dir(cli_context *ctx) {
	if (ctx->policy->temp_dir)
		(void)rmdir(ctx->policy->temp_dir);
}

/* Confines `argv` under the context's policy, or (danger-full-access) takes
 * it as it is. `*ret_confined` is NULL for an unconfined run. */
static int prepare(cli_context *ctx, const char *const *argv, confine_spawn_options *options,
                   confine_argv **ret_confined) {
	confine_error err;
	*ret_confined = NULL;
	confine_spawn_options_init(options);
	if (confine_mode_is_confined(ctx->policy->mode)) {
		/* read-only's private temp area where the rung has no mount
		 * namespace: made before the argv that grants it; the spawner
		 * removes it after the run (doc/SPEC.md 15). */
		if (confine_policy_make_temp_dir(ctx->policy, NULL, &err) < 0)
			return cli_report_error(ctx, &err);
		if (confine_confine(ctx->provider, argv, ctx->policy, ret_confined, &err) < 0) {
			drop_temp_dir(ctx);
			return cli_report_error(ctx, &err);
		}
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
	/* The private /tmp: workspace-write's, and read-only's private temp. */
	if (confined &&
	    (confined->policy.mode == CONFINE_MODE_WORKSPACE_WRITE || confined->policy.private_temp) &&
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
	 * env(1) reports it; nothing ran. */
	fprintf(stderr, "confine: %s: %s%s\n", program,
	        r == -EACCES ? "Permission denied" : "command not found",
	        r != -EACCES && view.hidden_by_private_tmp
	                ? " (in the sandbox, /tmp is private and empty)"
	                : "");
	fflush(stderr);
	return r == -EACCES ? CLI_EXIT_CANNOT_EXECUTE : CLI_EXIT_NOT_FOUND;
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
		drop_temp_dir(ctx);
		return status;
	}
	/* stdin and stdout are the caller's; stderr goes to the caller live and
	 * is kept (bounded) so a runner's pre-exec failure is recognised. */
	options.stdio[2].kind = CONFINE_STDIO_TEE;
	options.stdio[2].fd = STDERR_FILENO;

	if (cli_spawn_supervised(&options, &outcome, &err) < 0) {
		confine_argv_free(confined);
		drop_temp_dir(ctx);
		return cli_report_error(ctx, &err);
	}
	confine_argv_free(confined);
	cli_warn_git_hazards(outcome);
	if (confine_outcome_error(outcome, &err) < 0) {
		confine_outcome_free(outcome);
		return cli_report_error(ctx, &err);
	}
	status = cli_exit_status(outcome);
	confine_outcome_free(outcome);
	return status;
}
