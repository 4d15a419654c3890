/* SPDX-License-Identifier: MIT */
/*
 * Runs the library spawns itself through a provider (doc/SPEC.md 17): the
 * provider builds an argv whose runner reports whether it started the
 * command; when it did not (the runner failed before the command ran, so
 * nothing of the command happened), the provider is told and, where it has
 * another runner, the run is started again on it. No probe runs first.
 */
#include <errno.h>
#include <string.h>

#include "provider-internal.h"
#include "spawn/spawn.h"

/* Enough for every rung of a chain, with room. */
#define THROUGH_MAX_ATTEMPTS 4

/* The detail of a runner failure: what follows "Runner failure: ". */
static const char *failure_detail(const confine_error *e) {
	const char *at = strstr(e->message, " Runner failure: ");
	return at ? at + strlen(" Runner failure: ") : NULL;
}

int confine_spawn_through(confine_provider *provider, const confine_policy *policy,
                          const confine_spawn_options *options, confine_process **ret,
                          confine_error *err) {
	confine_error local;
	confine_error *e = err ? err : &local;

	if (!provider || !policy || !options || !options->argv || options->confined || !ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "spawn", 0,
		                    "spawn through a provider needs a provider, a policy, the "
		                    "command's argv (not a confined one) and a result pointer");
	for (int attempt = 0;; attempt++) {
		confine_spawn_options o = *options;
		confine_argv *confined = NULL;
		bool again;
		int r;

		r = cf_provider_confine_for_spawn(provider, options->argv, policy, &confined, e);
		if (r < 0)
			return r;
		o.argv = NULL;
		o.confined = confined;
		r = confine_spawn(&o, ret, e);
		if (r == 0) {
			cf_provider_runner_started(provider, confined);
			confine_argv_free(confined);
			return 0;
		}
		/* Only a failure before the command started may be retried, and
		 * only a runner's: a start failure of the command is its own. */
		again = e->code == CONFINE_E_SANDBOX_UNAVAILABLE &&
		        attempt + 1 < THROUGH_MAX_ATTEMPTS &&
		        cf_provider_runner_failed(provider, confined, failure_detail(e));
		confine_argv_free(confined);
		if (!again)
			return r;
	}
}
