/* SPDX-License-Identifier: MIT */
/*
 * Every command first builds the same context, in an order where each step
 * can fail before anything runs: the configuration file, the local provider
 * (which validates the SPEC 4 settings), then the policy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "context.h"
#include "output.h"

/* ------------------------------------------------------------------------ */
/* Context: configuration, provider, policy                                 */

static int load_config(cli_context *ctx) {
	const char *path = cli_config_pick_path(ctx->args->config, getenv("CONFINE_CONFIG"));
	char message[CONFINE_ERROR_MESSAGE_MAX];
	if (!path)
		return 0;
	if (cli_config_load(path, &ctx->config, message, sizeof message) < 0)
		return cli_report_failure(ctx->args->json, CONFINE_E_INVALID_CONFIG, message);
	return 0;
}

/* Made for every command, danger-full-access included, so an invalid
 * configuration is refused the same way whatever the mode. Probing waits for
 * the first confined call. */
static int make_provider(cli_context *ctx) {
	confine_local_config local;
	confine_error err;
	confine_local_config_init(&local);
	local.runner_command = (const char *const *)ctx->config.runner_command;
	local.runner_failure_signatures = (const char *const *)ctx->config.runner_failure_signatures;
	if (ctx->config.has_probe_timeout)
		local.probe_timeout_ms = ctx->config.probe_timeout_ms;
	local.landlock_launcher = ctx->config.landlock_launcher;
	if (ctx->args->has_runner)
		local.pin = ctx->args->runner;
	if (confine_local_provider_new(&local, &ctx->provider, &err) < 0) {
		/* Only the file can hold what the provider refuses: name it. */
		if (ctx->config.path && err.code == CONFINE_E_INVALID_CONFIG)
			return cli_report(ctx, err.code, "%s: %s", ctx->config.path, err.message);
		return cli_report_error(ctx, &err);
	}
	return 0;
}

/* Mode: -m (the explicitly approved mode), else the configuration's mode
 * (the deployment default), else read-only. Root: -w (the session's cwd),
 * else the configuration's workspaceRoot (the deployment fallback), else
 * the current directory. */
static int resolve_policy(cli_context *ctx) {
	const cli_args *args = ctx->args;
	confine_deployment deployment = {
		.default_mode = ctx->config.has_mode ? ctx->config.mode : CONFINE_MODE_READ_ONLY,
		.fallback_root = ctx->config.workspace_root,
	};
	confine_session session = {0};
	confine_error err;
	char *joined = NULL;
	int r;

	if (args->workspace && args->workspace[0] != '/' && args->workspace[0] != '\0') {
		/* The library refuses a relative root; a user means the directory
		 * relative to where they typed the command. */
		char *cwd = getcwd(NULL, 0);
		if (!cwd)
			return cli_report(ctx, CONFINE_E_INVALID_POLICY,
			              "cannot resolve the relative workspace \"%s\": the current "
			              "directory is unavailable: %s",
			              args->workspace, strerror(errno));
		if (asprintf(&joined, "%s/%s", cwd, args->workspace) < 0)
			joined = NULL;
		free(cwd);
		if (!joined)
			return cli_report(ctx, CONFINE_E_SYSTEM, "out of memory");
	}
	session.cwd = joined ? joined : args->workspace;

	r = confine_policy_resolve(&deployment, &session, args->has_mode ? &args->mode : NULL,
	                           &ctx->policy, &err);
	free(joined);
	if (r < 0) {
		if (!args->workspace && ctx->config.workspace_root && ctx->config.path)
			return cli_report(ctx, err.code, "%s: key \"workspaceRoot\": %s", ctx->config.path,
			              err.message);
		/* -w is the session's cwd: name the flag the user typed. */
		return cli_report_error_replacing(ctx, &err, " (the session's cwd)", " (given with -w)");
	}
	return 0;
}

int cli_context_open(cli_context *ctx, const cli_args *args, bool with_policy) {
	int status;
	memset(ctx, 0, sizeof *ctx);
	ctx->args = args;
	if ((status = load_config(ctx)) != 0)
		return status;
	if ((status = make_provider(ctx)) != 0)
		return status;
	if (with_policy && (status = resolve_policy(ctx)) != 0)
		return status;
	return 0;
}

void cli_context_close(cli_context *ctx) {
	confine_policy_free(ctx->policy);
	confine_provider_free(ctx->provider);
	cli_config_clear(&ctx->config);
}
