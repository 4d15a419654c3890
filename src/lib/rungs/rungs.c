/* SPDX-License-Identifier: MIT */
/* The table of rungs (rung.h): one row per rung, in ladder order, and the
 * runners a chain can be pinned to (their names are the vocabulary's:
 * confine_runner_name in vocabulary.c). */
#include "launcher-args.h"
#include "rungs/rung.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rungs/probe.h"
#include "policy-internal.h"
#include "spawn/cgroup.h"
#include "spawn/spawn.h"

extern const cf_runner_def cf_runner_bwrap CONFINE_HIDDEN;
extern const cf_runner_def cf_runner_landlock CONFINE_HIDDEN;
extern const cf_runner_def cf_runner_seatbelt CONFINE_HIDDEN;
extern const cf_runner_def cf_runner_command CONFINE_HIDDEN;
extern const cf_runner_def cf_runner_gvisor CONFINE_HIDDEN;

const cf_runner_def *const cf_runners[] = {
	&cf_runner_bwrap,    /* bwrap/ */
	&cf_runner_landlock, /* landlock/ */
	&cf_runner_seatbelt, /* seatbelt/ */
	&cf_runner_command,  /* runner-command/ */
	&cf_runner_gvisor,   /* gvisor/ */
	NULL,
};

int confine_runner_parse(const char *text, confine_runner *ret, confine_error *err) {
	/* The rungs a chain can be pinned to: the rows of some platform. */
	for (size_t i = 0; text && cf_runners[i]; i++)
		if (cf_runners[i]->platform && strcmp(text, confine_runner_name(cf_runners[i]->id)) == 0) {
			*ret = cf_runners[i]->id;
			return 0;
		}
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "runner", 0,
	                    "unknown runner \"%s\" (expected %s)", text ? text : "(null)",
	                    cf_runner_pinnable_names());
}

const cf_runner_def *cf_runner_find(confine_runner id) {
	for (size_t i = 0; cf_runners[i]; i++)
		if (cf_runners[i]->id == id)
			return cf_runners[i];
	return NULL;
}

static char pinnable_names[256];

/* Computed once per process; the table is constant, so racing first calls
 * write the same bytes. */
const char *cf_runner_pinnable_names(void) {
	if (!pinnable_names[0]) {
		char buf[sizeof pinnable_names] = "";
		size_t n = 0, total = 0;
		for (size_t i = 0; cf_runners[i]; i++)
			total += cf_runners[i]->platform != NULL;
		for (size_t i = 0; cf_runners[i]; i++) {
			if (!cf_runners[i]->platform)
				continue;
			if (n > 0)
				strncat(buf, n + 1 == total ? " or " : ", ", sizeof buf - strlen(buf) - 1);
			strncat(buf, confine_runner_name(cf_runners[i]->id), sizeof buf - strlen(buf) - 1);
			n++;
		}
		memcpy(pinnable_names, buf, sizeof buf);
	}
	return pinnable_names;
}

void cf_runner_program_clear(cf_runner_program *program) {
	if (!program)
		return;
	confine_strv_free(program->argv);
	free(program->real);
	free(program->not_found);
	memset(program, 0, sizeof *program);
}

char **cf_runner_argv1(const char *program) {
	const char *one[] = { program, NULL };
	return cf_strv_copy(one);
}

const confine_policy cf_runner_probe_policy = {
	.mode = CONFINE_MODE_READ_ONLY,
	.workspace_root = (char *)"/",
};

bool cf_runner_probe_profile(const cf_runner_def *def, const cf_runner_program *program,
                             const cf_runner_env *env, const char *const *command) {
	char **argv = cf_strv_copy((const char *const *)program->argv);
	char **profile = NULL;
	cf_probe_result result;
	bool passed = false;
	if (!argv || def->profile(&cf_runner_probe_policy, env, &profile) < 0)
		goto out;
	for (size_t i = 0; profile[i]; i++)
		if (cf_strv_push(&argv, profile[i]) < 0)
			goto out;
	if (cf_strv_push(&argv, "--") < 0)
		goto out;
	for (size_t i = 0; command[i]; i++)
		if (cf_strv_push(&argv, command[i]) < 0)
			goto out;
	passed = cf_probe_run((const char *const *)argv, env->probe_timeout_ms, &result) == 0 &&
	         result.started && !result.timed_out && result.exited && result.exit_code == 0;
out:
	confine_strv_free(profile);
	confine_strv_free(argv);
	return passed;
}

int cf_runner_launcher_args(const confine_policy *policy, const char *const *extra,
                            char ***strv) {
	char **grants = NULL;
	char fd[16];
	int r;
	snprintf(fd, sizeof fd, "%d", CF_STATUS_FD_AT);
	if ((r = cf_strv_push(strv, LAUNCHER_ARG_STATUS_FD)) < 0 || (r = cf_strv_push(strv, fd)) < 0)
		return r;
	for (size_t i = 0; extra && extra[i]; i++)
		if ((r = cf_strv_push(strv, extra[i])) < 0)
			return r;
	/* The run's decider answers on the ask socket (doc/SPEC.md 15). */
	if (policy->network_ask && policy->network == CONFINE_NETWORK_OFF) {
		snprintf(fd, sizeof fd, "%d", CF_ASK_FD_AT);
		if ((r = cf_strv_push(strv, LAUNCHER_ARG_ASK_FD)) < 0 ||
		    (r = cf_strv_push(strv, fd)) < 0)
			return r;
	}
	{
		/* A run the library spawns: the limits its own cgroup holds
		 * (spawn/cgroup.h) are not the launcher's rlimits too. */
		confine_policy own;
		unsigned holds = cf_cgroup_holds();
		if ((r = cf_policy_copy_into(&own, policy)) < 0)
			return r;
		for (unsigned i = 0; i < CONFINE_LIMIT_COUNT; i++)
			if (holds & (1u << i))
				own.limits[i] = 0;
		r = confine_profile_landlock(&own, &grants);
		cf_policy_clear(&own);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; grants[i] && r == 0; i++)
		r = cf_strv_push(strv, grants[i]);
	confine_strv_free(grants);
	return r;
}

int cf_runner_set_denials(confine_argv *c, const char *const *denials) {
	char **d = cf_strv_copy(denials);
	if (!d)
		return -ENOMEM;
	confine_strv_free(c->denial_signatures);
	c->denial_signatures = d;
	return 0;
}
