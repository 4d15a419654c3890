/* SPDX-License-Identifier: MIT */
/* macOS: the Seatbelt rung, run through sandbox-exec. */
#include "local/probe.h"

#include <stdlib.h>

const char *cf_host_platform(void) {
	return "darwin";
}

bool cf_host_has_runner(confine_runner rung) {
	switch (rung) {
	case CONFINE_RUNNER_SEATBELT:
		return true;
	case CONFINE_RUNNER_BWRAP:           /* Linux namespaces */
	case CONFINE_RUNNER_LANDLOCK:        /* a Linux LSM */
	case CONFINE_RUNNER_RUNNER_COMMAND:
	case CONFINE_RUNNER_NONE:
		return false;
	}
	return false;
}

bool cf_host_probe(confine_runner rung, cf_probe_target *target,
                   confine_enforcement *ret_enforcement) {
	confine_policy read_only = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	cf_probe_result result;
	char *profile = NULL;
	bool passed;

	if (rung != CONFINE_RUNNER_SEATBELT)
		return false;
	/* Apple marks sandbox-exec deprecated but ships it; this functional probe
	 * is what fails closed if that ever changes. */
	if (confine_profile_seatbelt(&read_only, NULL, &profile) < 0)
		return false;
	{
		const char *argv[] = { CF_SANDBOX_EXEC, "-p", profile, "--", "/usr/bin/true", NULL };
		passed = cf_probe_run(argv, target->timeout_ms, &result) == 0 && result.started &&
		         !result.timed_out && result.exited && result.exit_code == 0;
	}
	free(profile);
	if (passed)
		*ret_enforcement = CONFINE_ENFORCEMENT_FULL;
	return passed;
}

int cf_host_landlock_abi(void) {
	return -1;
}
