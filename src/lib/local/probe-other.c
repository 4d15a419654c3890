/* SPDX-License-Identifier: MIT */
/* Every other platform (Windows included): no rung can run, so the ladder
 * fails closed with SANDBOX_UNAVAILABLE. */
#include "local/probe.h"

const char *cf_host_platform(void) {
	return "other";
}

bool cf_host_has_runner(confine_runner rung) {
	(void)rung;
	return false;
}

bool cf_host_probe(confine_runner rung, cf_probe_target *target,
                   confine_enforcement *ret_enforcement) {
	(void)rung;
	(void)target;
	(void)ret_enforcement;
	return false;
}

int cf_host_landlock_abi(void) {
	return -1;
}
