/* SPDX-License-Identifier: MIT */
/*
 * Runs the library spawns itself through a provider (doc/SPEC.md 17): the
 * provider builds an argv whose runner reports whether it started the
 * command; when it did not (the runner failed before the command ran, so
 * nothing of the command happened), the provider is told and, where it has
 * another runner, the run is started again on it. No probe runs first.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "call-scope.h"
#include "provider-internal.h"
#include "spawn/spawn.h"

_Thread_local unsigned cf_spawn_excluded_runners;

/* Enough for every rung of a chain, with room. */
#define THROUGH_MAX_ATTEMPTS 4

/* The detail of a runner failure: what follows "Runner failure: ". */
static const char *failure_detail(const confine_error *e) {
	const char *at = strstr(e->message, " Runner failure: ");
	return at ? at + strlen(" Runner failure: ") : NULL;
}

static int spawn_through(confine_provider *provider, const confine_policy *policy,
                         const confine_spawn_options *options, confine_process **ret,
                         confine_error *err) {
	confine_error local;
	confine_error *e = err ? err : &local;
	confine_policy *own = NULL; /* a copy with a fresh temp dir, after a retry */
	unsigned saved_excluded = cf_spawn_excluded_runners;

	if (!provider || !policy || !options || !options->argv || options->confined || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn through a provider needs a provider, a policy, the "
		                    "command's argv (not a confined one) and a result pointer");
	cf_spawn_excluded_runners = 0;
	for (int attempt = 0;; attempt++) {
		confine_spawn_options o = *options;
		confine_argv *confined = NULL;
		bool again;
		int r;

		/* The failed attempt's spawner removed the run's temp dir with it:
		 * the next rung gets a fresh one (doc/SPEC.md 15). */
		if (attempt > 0 && policy->temp_dir && access(policy->temp_dir, F_OK) != 0) {
			confine_policy_free(own);
			own = NULL;
			if (confine_policy_copy(policy, &own) < 0)
				return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "spawn", ENOMEM,
				                    "out of memory");
			free(own->temp_dir);
			own->temp_dir = NULL;
			if ((r = confine_policy_make_temp_dir(own, options->envp, e)) < 0) {
				confine_policy_free(own);
				return r;
			}
			policy = own;
		}
		r = cf_provider_confine_for_spawn(provider, options->argv, policy, &confined, e);
		if (r < 0) {
			if (own && own->temp_dir)
				(void)rmdir(own->temp_dir);
			confine_policy_free(own);
			cf_spawn_excluded_runners = saved_excluded;
			return r;
		}
		o.argv = NULL;
		o.confined = confined;
		r = confine_spawn(&o, ret, e);
		if (r == 0) {
			cf_provider_runner_started(provider, confined);
			confine_argv_free(confined);
			confine_policy_free(own);
			cf_spawn_excluded_runners = saved_excluded;
			return 0;
		}
		if ((unsigned)confined->runner < 32)
			cf_spawn_excluded_runners |= 1u << (unsigned)confined->runner;
		/* Only a failure before the command started may be retried, and
		 * only a runner's: a start failure of the command is its own. */
		again = e->code == CONFINE_E_SANDBOX_UNAVAILABLE &&
		        attempt + 1 < THROUGH_MAX_ATTEMPTS &&
		        cf_provider_runner_failed(provider, confined, failure_detail(e));
		confine_argv_free(confined);
		if (!again) {
			if (own && own->temp_dir)
				(void)rmdir(own->temp_dir);
			confine_policy_free(own);
			cf_spawn_excluded_runners = saved_excluded;
			return r;
		}
	}
}

int confine_spawn_through(confine_provider *provider, const confine_policy *policy,
                          const confine_spawn_options *options, confine_process **ret,
                          confine_error *err) {
	/* The argv's plan is the one the spawner makes placeholders from: one
	 * look at the filesystem for the run (profiles/plan-memo.c). */
	int r;
	cf_call_open();
	r = spawn_through(provider, policy, options, ret, err);
	cf_call_close();
	return r;
}
