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

#include "ask-host.h"
#include "context.h"
#include "output.h"
#include "policy-json.h"
#include "supervise.h"

/* The run's temp dir when the run did not start (the spawner removes it
 * once it has taken it over; rmdir of a removed one fails harmlessly). */
static void drop_temp_dir(cli_context *ctx) {
	if (ctx->policy->temp_dir)
		(void)rmdir(ctx->policy->temp_dir);
}

/* Whether canonical `path` is `dir` or below it. */
static bool path_inside(const char *path, const char *dir) {
	size_t n = strlen(dir);
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* PROGRAM cannot run (errno `e`: ENOENT not found, else not executable):
 * `confine: PROGRAM: ...` (and in JSON the SPAWN_FAILED object), exit 127 or
 * 126 as env(1). */
static int program_failure(const char *program, int e, bool hidden_in_tmp) {
	char message[CONFINE_ERROR_MESSAGE_MAX];
	snprintf(message, sizeof message, "%s: %s%s", program,
	         e == ENOENT ? "command not found" : "Permission denied",
	         e == ENOENT && hidden_in_tmp ? " (in the sandbox, /tmp is private and empty)" : "");
	return cli_fail(e == ENOENT ? CLI_EXIT_NOT_FOUND : CLI_EXIT_CANNOT_EXECUTE, CONFINE_E_SPAWN,
	                message, NULL);
}

/* Whether the spawn failed at the command's own exec (the library's
 * "cannot execute" text, spawn/start.c and status.c), not while setting
 * the sandbox up: a placeholder that could not be made (ENOENT) is not a
 * missing program. */
static bool exec_failed(const confine_error *err) {
	static const char prefix[] = "cannot execute \"";
	return strncmp(err->message, prefix, sizeof prefix - 1) == 0;
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
	confine_find_options options = { .dir = ctx->workdir ? ctx->workdir
	                                                     : ctx->policy->workspace_root };
	char *found = NULL;
	int r;
	r = confine_find_program(program, &options, &found);
	free(found);
	if (r == 0)
		return 0;
	if (r == -ENOMEM)
		return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	/* Not a failure of confine (125): the command's own, as a shell or
	 * env(1) reports it (126, 127); nothing ran. */
	return program_failure(program, r == -EACCES ? EACCES : ENOENT, false);
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
	const char *const *argv = (const char *const *)args->program_argv;
	bool confined = confine_mode_is_confined(ctx->policy->mode);
	confine_spawn_options options;
	confine_outcome *outcome = NULL;
	confine_error err;
	int status;
	static char decider[PATH_MAX];

	/* The command starts in the workspace: one this user cannot enter is
	 * confine's refusal (125), before PROGRAM is looked up there. */
	if (!confine_workdir_usable(ctx->policy->workspace_root))
		return cli_report(ctx, CONFINE_E_INVALID_POLICY,
		                  "workspace root \"%s\" cannot be entered: %s",
		                  ctx->policy->workspace_root, strerror(errno ? errno : EACCES));
	if (ctx->workdir && !confine_workdir_usable(ctx->workdir))
		return cli_report(ctx, CONFINE_E_SPAWN, "--cwd \"%s\" cannot be entered: %s",
		                  ctx->workdir, strerror(errno ? errno : EACCES));
	/* Before confining: a missing program is not a sandbox problem. */
	if ((status = resolve_program(ctx, argv[0])) != 0)
		return status;
	/* The decider, found once, where the command cannot replace it. */
	if (args->ask_host && (status = cli_ask_host_resolve(ctx, args->ask_host, decider)) != 0)
		return status;
	confine_spawn_options_init(&options);
	options.argv = argv;
	/* The workspace root is the session's cwd (SPEC 10's -w), or --cwd's
	 * directory: commands run there, as the bash consumer's do. */
	options.workdir = ctx->workdir ? ctx->workdir : ctx->policy->workspace_root;
	/* The run's private temp area where the rung has no mount namespace:
	 * made before the argv that grants it; the spawner removes it after the
	 * run (doc/SPEC.md 15). */
	if (confined && confine_policy_make_temp_dir(ctx->policy, NULL, &err) < 0)
		return cli_report_error(ctx, &err);
	/* stdin and stdout are the caller's; stderr goes to the caller live and
	 * is kept (bounded) for the denial marker and a runner's own words. */
	options.stdio[2].kind = CONFINE_STDIO_TEE;
	options.stdio[2].fd = STDERR_FILENO;
	/* --timeout: as bash's (SIGTERM to the tree, SIGKILL 3 s later); none
	 * by default, a terminal program may run as long as it likes. */
	if (args->has_timeout)
		options.timeout_ms = args->timeout_ms;
	if (args->ask_host) {
		options.ask_host = cli_ask_host;
		options.ask_host_data = decider;
		cli_ask_host_deadline(args->has_timeout ? args->timeout_ms : 0);
	}

	if (cli_spawn_supervised(confined ? ctx->provider : NULL, ctx->policy, &options, &outcome,
	                         &err) < 0) {
		/* The runner started but the program is not there in the sandbox
		 * (its status channel said so): the command's failure, not ours. */
		drop_temp_dir(ctx);
		cli_stage_drop(ctx);
		if (confined && err.code == CONFINE_E_SPAWN &&
		    (err.sys_errno == ENOENT || err.sys_errno == EACCES) && exec_failed(&err)) {
			bool in_tmp = argv[0][0] == '/' && path_inside(argv[0], "/tmp") &&
			              !path_inside(argv[0], ctx->policy->workspace_root);
			return program_failure(argv[0], err.sys_errno, in_tmp);
		}
		return cli_report_error(ctx, &err);
	}
	cli_warn_git_hazards("the run", outcome->git_hazards, outcome->n_git_hazards);
	/* With --json the outcome's clauses say it; stderr stays the command's. */
	if (!args->json) {
		char marker[128];
		cli_warn_unenforced(outcome);
		/* The limit that stopped it (doc/SPEC.md 15, "Limits"). */
		if (confine_outcome_limit_marker(outcome, marker, sizeof marker))
			fprintf(stderr, "confine: %s\n", marker);
	}
	if (confine_outcome_error(outcome, &err) < 0) {
		cli_stage_drop(ctx); /* refused before the command started */
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
