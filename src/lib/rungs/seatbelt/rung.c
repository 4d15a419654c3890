/* SPDX-License-Identifier: MIT */
/*
 * Seatbelt through sandbox-exec (SPEC 4-6, macOS): `sandbox-exec -p
 * PROFILE -- argv`. Apple marks sandbox-exec deprecated but ships it; the
 * functional probe is what fails closed if that ever changes.
 */
#include <errno.h>
#include <stdlib.h>

#include "rungs/rung.h"

extern const cf_runner_def cf_runner_seatbelt;

/* Where sandbox-exec lives on macOS: on the sealed system volume, which no
 * workspace can hold, so it is not checked against the workspace. */
#define SANDBOX_EXEC "/usr/bin/sandbox-exec"

static const char *const denials[] = { "operation not permitted", NULL };
static const char *const fatal[] = { "sandbox-exec: ", NULL };

static int locate(const cf_runner_env *env, cf_runner_program *ret) {
	(void)env;
	ret->argv = cf_runner_argv1(SANDBOX_EXEC);
	return ret->argv ? 0 : -ENOMEM;
}

/* "-p" and the SBPL text. */
static int profile(const confine_policy *policy, const cf_runner_env *env, char ***ret) {
	char *text = NULL;
	char **tokens = NULL;
	int r = confine_profile_seatbelt(policy, env->tmpdir, &text);
	if (r < 0)
		return r;
	r = cf_strv_push(&tokens, "-p");
	if (r == 0)
		r = cf_strv_push(&tokens, text);
	free(text);
	if (r < 0) {
		confine_strv_free(tokens);
		return r;
	}
	*ret = tokens;
	return 0;
}

static bool select_unprobed(const cf_runner_program *program, confine_enforcement *ret) {
	(void)program;
	*ret = CONFINE_ENFORCEMENT_FULL;
	return true;
}

/* The read-only profile around /usr/bin/true. */
static bool probe(const cf_runner_program *program, const cf_runner_env *env,
                  confine_enforcement *ret, char failure[CF_RUNNER_FAILURE_MAX]) {
	static const char *const command[] = { "/usr/bin/true", NULL };
	(void)failure;
	if (!program->argv || !cf_runner_probe_profile(&cf_runner_seatbelt, program, env, command))
		return false;
	*ret = CONFINE_ENFORCEMENT_FULL;
	return true;
}

/* Its clause table (holds.c). */
extern const cf_rung_holds cf_seatbelt_holds CONFINE_HIDDEN;

const cf_runner_def cf_runner_seatbelt = {
	.holds = &cf_seatbelt_holds,
	.id = CONFINE_RUNNER_SEATBELT,
	.title = "Seatbelt",
	.platform = "darwin",
	.facts = CONFINE_RUNNER_FACT_EPERM_FILES,
	.denial_signatures = denials,
	.fatal_signatures = fatal,
	.locate = locate,
	.profile = profile,
	.select_unprobed = select_unprobed,
	.probe = probe,
};
