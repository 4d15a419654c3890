/* SPDX-License-Identifier: MIT */
/*
 * The bash consumer (SPEC 9): runs ["bash", "-c", COMMAND] through the seam.
 * A confined mode asks the provider on every call (the provider holds no
 * policy; each run keeps its own copy of the wrap's facts), spawns the
 * returned argv directly with the workspace root as the default working
 * directory, and classifies the outcome with that wrap's rules and dialect.
 * danger-full-access runs plain `bash -c` and never touches the provider.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static int invalid(confine_error *err, const char *message) {
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "bash", 0, "%s", message);
}

/* Removes the (still empty, or already removed) temp dir of a run that did
 * not start, and frees the policy that named it. */
static void drop_temp_dir(confine_policy *own) {
	if (own && own->temp_dir)
		(void)rmdir(own->temp_dir);
	confine_policy_free(own);
}

int confine_bash_start(confine_provider *provider, const confine_bash_options *options,
                       confine_process **ret, confine_error *err) {
	const char *argv[4];
	confine_spawn_options spawn;
	const confine_policy *policy = options ? options->policy : NULL;
	confine_policy *own = NULL;
	int r;

	if (!options || !ret)
		return invalid(err, "the bash consumer needs options and a result pointer");
	if (!options->command)
		return invalid(err, "the bash consumer needs a command");
	if (!options->policy)
		return invalid(err, "the bash consumer needs a policy");
	if (!confine_mode_name(options->policy->mode))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "bash", 0,
		                    "unknown sandbox mode %d in the policy",
		                    (int)options->policy->mode);
	if (options->timeout_ms > CONFINE_MAX_TIMEOUT_MS)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "bash", 0,
		                    "timeout %u ms exceeds the maximum of %d ms",
		                    options->timeout_ms, CONFINE_MAX_TIMEOUT_MS);

	argv[0] = "bash";
	argv[1] = "-c";
	argv[2] = options->command;
	argv[3] = NULL;

	confine_spawn_options_init(&spawn);
	spawn.argv = argv;
	if (confine_mode_is_confined(options->policy->mode)) {
		if (!provider)
			return invalid(err, "a confined mode needs a sandbox provider");
		/* The run's private temp area on the rungs without a mount
		 * namespace: made before the argv that grants it (doc/SPEC.md 15);
		 * the spawner removes it after the run. */
		if (policy->private_temp && !policy->temp_dir) {
			if (confine_policy_copy(policy, &own) < 0)
				return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "bash", ENOMEM,
				                    "out of memory");
			if ((r = confine_policy_make_temp_dir(own, options->envp, err)) < 0) {
				confine_policy_free(own);
				return r;
			}
			policy = own;
		}
	}
	spawn.workdir = options->workdir ? options->workdir : options->policy->workspace_root;
	spawn.envp = options->envp;
	/* The model sees no terminal: no stdin, both outputs captured. */
	spawn.stdio[0].kind = CONFINE_STDIO_NULL;
	spawn.stdio[1].kind = CONFINE_STDIO_CAPTURE;
	spawn.stdio[2].kind = CONFINE_STDIO_CAPTURE;
	spawn.capture_limit = options->max_output ? options->max_output
	                                          : CONFINE_DEFAULT_CAPTURE_LIMIT;
	spawn.timeout_ms = options->timeout_ms ? options->timeout_ms : CONFINE_DEFAULT_TIMEOUT_MS;
	spawn.ask_host = options->ask_host;
	spawn.ask_host_data = options->ask_host_data;

	/* A confined mode asks the provider on every call (its answer may
	 * differ per policy; a wrap is never reused across runs), through the
	 * runner's status channel: the process keeps its own copy of the
	 * wrap's facts, and of the temp dir it removes after the run. */
	if (confine_mode_is_confined(policy->mode))
		r = confine_spawn_through(provider, policy, &spawn, ret, err);
	else
		r = confine_spawn(&spawn, ret, err);
	if (r < 0)
		drop_temp_dir(own); /* a spawn refused before it took the dir over */
	else
		confine_policy_free(own);
	return r;
}

int confine_bash_wait(confine_process *process, confine_bash_result **ret, confine_error *err) {
	confine_bash_result *result;
	confine_outcome *outcome = NULL;
	int r;

	if (!process || !ret)
		return invalid(err, "waiting for a bash run needs a process and a result pointer");
	result = calloc(1, sizeof *result);
	if (!result)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "bash", ENOMEM, "out of memory");
	r = confine_process_wait(process, &outcome, err);
	if (r < 0) {
		free(result);
		return r;
	}
	result->outcome = outcome;
	result->timeout_ms = cf_process_timeout_ms(process);
	result->error.code = CONFINE_OK;
	/* A runner failure outranks everything the command printed. */
	(void)confine_outcome_error(outcome, &result->error);
	*ret = result;
	return 0;
}

int confine_bash_run(confine_provider *provider, const confine_bash_options *options,
                     confine_bash_result **ret, confine_error *err) {
	confine_process *process = NULL;
	int r;
	if (!ret)
		return invalid(err, "the bash consumer needs options and a result pointer");
	r = confine_bash_start(provider, options, &process, err);
	if (r < 0)
		return r;
	r = confine_bash_wait(process, ret, err);
	confine_process_free(process);
	return r;
}

void confine_bash_result_free(confine_bash_result *result) {
	if (!result)
		return;
	confine_outcome_free(result->outcome);
	free(result);
}
