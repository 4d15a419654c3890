/* SPDX-License-Identifier: MIT */
/* macOS: the platform's name; no Landlock. */
#include "rungs/probe.h"

const char *cf_host_platform(void) {
	return "darwin";
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
