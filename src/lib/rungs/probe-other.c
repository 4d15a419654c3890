/* SPDX-License-Identifier: MIT */
/* Every other platform (Windows included): no rung can run, so the ladder
 * fails closed with SANDBOX_UNAVAILABLE. */
#include "rungs/probe.h"

const char *cf_host_platform(void) {
	return "other";
}

int cf_host_landlock_abi(void) {
	return -1;
}

const char *cf_host_supervisor_missing(void) {
	return "user-notification"; /* no seccomp user notification here */
}

bool confine_supervisor_available(void) {
	return false; /* the launcher and its supervisor are Linux's */
}
