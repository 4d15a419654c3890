/* SPDX-License-Identifier: MIT */
/* Linux: the platform's name, the kernel's Landlock ABI and whether the
 * launcher's supervisor can run here. */
#include "rungs/probe.h"

#include <linux/seccomp.h>

#include "supervisor-probe.h"

#include <sys/syscall.h>
#include <unistd.h>

/* Debian 12's kernel headers are 6.1: define what older headers may lack. */
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

const char *cf_host_platform(void) {
	return "linux";
}

int cf_host_landlock_abi(void) {
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	/* ENOSYS: not built in; EOPNOTSUPP: built in but disabled at boot. */
	return abi > 0 && abi < 1000 ? (int)abi : -1;
}

/* Asked each time: a seccomp filter installed since (a nested run) changes
 * the answer. A few syscalls, no allocation. */
const char *cf_host_supervisor_missing(void) {
	const char *missing = NULL;
	if (launcher_supervisor_probe(&missing) < 0 && !missing)
		missing = "unknown";
	return missing;
}

bool confine_supervisor_available(void) {
	/* The launcher's own check: a seccomp user-notification listener can
	 * be made here (and no filter installed since forbids it). */
	return cf_host_supervisor_missing() == NULL;
}
