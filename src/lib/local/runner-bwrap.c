/* SPDX-License-Identifier: MIT */
/*
 * bubblewrap (SPEC 4-6): found on PATH, runs the bwrap profile, and
 * supervises the command from a session of its own (its --new-session and
 * PID namespace): a signal for the command goes below it. Under
 * workspace-write /tmp is its private tmpfs.
 */
#include <errno.h>
#include <stdlib.h>

#include "local/runner.h"

extern const cf_runner_def cf_runner_bwrap;

static const char *const denials[] = { "read-only file system", NULL };
static const char *const fatal[] = { "bwrap: ", NULL };

/* On PATH, absolute entries only, and only a bwrap that no one but root or
 * the caller could have planted; placed in argv as an absolute path: a
 * bare "bwrap" would be looked up again by whoever spawns it, relative
 * entries included. */
static int locate(const cf_runner_env *env, cf_runner_program *ret) {
	confine_find_options options = {
		.path = env->path,
		.absolute_entries_only = true,
		.trusted_only = true,
	};
	char *found = NULL;
	int r = confine_find_program("bwrap", &options, &found);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return 0; /* not found: this rung cannot run */
	ret->argv = cf_runner_argv1(found);
	ret->real = found; /* canonical already */
	return ret->argv ? 0 : -ENOMEM;
}

static int profile(const confine_policy *policy, const cf_runner_env *env, char ***ret) {
	(void)env;
	return confine_profile_bwrap(policy, ret);
}

static bool select_unprobed(const cf_runner_program *program, confine_enforcement *ret) {
	if (!program->argv)
		return false; /* not on PATH: fail closed now */
	*ret = CONFINE_ENFORCEMENT_FULL;
	return true;
}

/* The real read-only profile around `true`: it passes only where bwrap can
 * make every namespace and mount the profile needs. */
static bool probe(const cf_runner_program *program, const cf_runner_env *env,
                  confine_enforcement *ret, char failure[CF_RUNNER_FAILURE_MAX]) {
	static const char *const command[] = { "true", NULL };
	(void)failure;
	if (!program->argv || !cf_runner_probe_profile(&cf_runner_bwrap, program, env, command))
		return false;
	*ret = CONFINE_ENFORCEMENT_FULL;
	return true;
}

const cf_runner_def cf_runner_bwrap = {
	.id = CONFINE_RUNNER_BWRAP,
	.name = "bwrap",
	.title = "bubblewrap",
	.platform = "linux",
	.facts = CONFINE_RUNNER_FACT_SUPERVISES | CONFINE_RUNNER_FACT_PRIVATE_TMP,
	.denial_signatures = denials,
	.fatal_signatures = fatal,
	.locate = locate,
	.profile = profile,
	.select_unprobed = select_unprobed,
	.probe = probe,
};
