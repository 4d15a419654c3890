/* SPDX-License-Identifier: MIT */
/*
 * runnerCommand (SPEC 4): an operator's assertion of a bwrap-shaped runner
 * that fully enforces the bwrap profile. When configured it confines every
 * call: the ladder and its probes are skipped. Its mechanism is unknown,
 * so its denials are both Linux dialects, and its failures are the
 * operator's configured signatures, with no exit gate. Bwrap-shaped: it
 * supervises the command, and /tmp is private under workspace-write.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rungs/rung.h"

static const char *const denials[] = { "read-only file system", "permission denied", NULL };

static bool configured(const cf_runner_env *env) {
	return env->runner_command && env->runner_command[0];
}

/* A bare name is found like bwrap: on absolute PATH entries only, and
 * placed in argv as an absolute path; one that is not found makes every
 * confined call fail closed naming it. The argv then names the resolved
 * runner: what was checked is what runs. */
static int locate(const cf_runner_env *env, cf_runner_program *ret) {
	if (!configured(env))
		return 0;
	ret->argv = cf_strv_copy((const char *const *)env->runner_command);
	if (!ret->argv)
		return -ENOMEM;
	if (!strchr(ret->argv[0], '/')) {
		confine_find_options options = {
			.path = env->path,
			.absolute_entries_only = true,
			.trusted_only = true,
		};
		char *found = NULL;
		int r = confine_find_program(ret->argv[0], &options, &found);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			char detail[PATH_MAX + 128];
			snprintf(detail, sizeof detail,
			         "runnerCommand \"%s\" was not found on PATH (absolute entries only)",
			         ret->argv[0]);
			ret->not_found = strdup(detail);
			return ret->not_found ? 0 : -ENOMEM;
		}
		free(ret->argv[0]);
		ret->argv[0] = found;
	}
	ret->real = realpath(ret->argv[0], NULL);
	if (ret->real) {
		char *real = strdup(ret->real);
		if (!real)
			return -ENOMEM;
		free(ret->argv[0]);
		ret->argv[0] = real;
	}
	return 0;
}

static int profile(const confine_policy *policy, const cf_runner_env *env, char ***ret) {
	(void)env;
	return confine_profile_bwrap(policy, ret);
}

/* Its clause table (holds.c). */
extern const cf_rung_holds cf_runner_command_holds CONFINE_HIDDEN;

const cf_runner_def cf_runner_command = {
	.holds = &cf_runner_command_holds,
	.id = CONFINE_RUNNER_RUNNER_COMMAND,
	.title = "the runner command",
	.platform = NULL, /* never a rung */
	.facts = CONFINE_RUNNER_FACT_SUPERVISES | CONFINE_RUNNER_FACT_PRIVATE_TMP |
	         CONFINE_RUNNER_FACT_MOUNT_MASKS,
	.denial_signatures = denials,
	.fatal_signatures = NULL, /* the configured runner_failure_signatures */
	.configured = configured,
	.locate = locate,
	.profile = profile,
	.select_unprobed = NULL,
	.probe = NULL,
};
