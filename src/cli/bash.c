/* SPDX-License-Identifier: MIT */
/* confine bash: the library's bash consumer (SPEC 9), rendered or as JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ask-host.h"
#include "context.h"
#include "output.h"
#include "policy-json.h"
#include "supervise.h"

/*
 * Runs COMMAND through the library's bash consumer (SPEC 9), in its two-step
 * form so that an interrupted `confine bash` passes the signal on to its
 * command instead of leaving it running unsupervised.
 */
int cli_command_bash(cli_context *ctx) {
	const cli_args *args = ctx->args;
	confine_bash_options options;
	confine_process *process = NULL;
	confine_bash_result *result = NULL;
	confine_error err;
	sigset_t old_mask;
	int status, r;
	static char decider[PATH_MAX];

	memset(&options, 0, sizeof options);
	options.command = args->bash_command;
	options.policy = ctx->policy;
	options.workdir = ctx->workdir; /* --cwd; NULL: the workspace root */
	options.timeout_ms = args->has_timeout ? args->timeout_ms : CONFINE_DEFAULT_TIMEOUT_MS;
	options.max_output = CONFINE_DEFAULT_CAPTURE_LIMIT;
	if (args->ask_host) {
		/* The decider, found once, where the command cannot replace it. */
		if ((status = cli_ask_host_resolve(ctx, args->ask_host, decider)) != 0)
			return status;
		options.ask_host = cli_ask_host;
		options.ask_host_data = decider;
		cli_ask_host_deadline(options.timeout_ms);
	}

	cli_supervise_begin(&old_mask);
	r = confine_bash_start(ctx->provider, &options, &process, &err);
	cli_supervise_started(r == 0 ? process : NULL, &old_mask);
	if (r < 0) {
		cli_stage_drop(ctx);
		return cli_report_error(ctx, &err);
	}
	r = confine_bash_wait(process, &result, &err);
	cli_supervise_end();
	confine_process_free(process);
	if (r < 0)
		return cli_report_error(ctx, &err);

	if (!args->json)
		cli_warn_git_hazards("the run", result->outcome->git_hazards, result->outcome->n_git_hazards);
	if (args->json) {
		/* With the library's rendering (SPEC 9), so a binding shows its
		 * model what `confine bash` would print, not a copy's. */
		json_t *object = cli_outcome_json(result->outcome, true, &result->error);
		char *text = confine_bash_render(result);
		if (object && text)
			json_object_set_new(object, "rendering", cli_json_string_lossy(text, strlen(text)));
		free(text);
		r = cli_emit_json(object);
	} else {
		char *text = confine_bash_render(result);
		if (!text) {
			r = -ENOMEM;
		} else {
			size_t len = strlen(text);
			r = 0;
			if (fputs(text, stdout) == EOF ||
			    ((len == 0 || text[len - 1] != '\n') && fputc('\n', stdout) == EOF))
				r = -EIO;
			if (fflush(stdout) == EOF)
				r = -errno;
			free(text);
		}
	}

	if (result->error.code != CONFINE_OK) {
		/* The object (or rendering) already carries the error; stderr gets
		 * the one line every failure of confine gets. */
		fprintf(stderr, "confine: %s\n", result->error.message);
		status = CLI_EXIT_FAILURE;
	} else if (r < 0) {
		status = cli_report(ctx, CONFINE_E_SYSTEM, "cannot write the result: %s", strerror(-r));
	} else {
		status = cli_exit_status(result->outcome);
	}
	confine_bash_result_free(result);
	return status;
}
