/* SPDX-License-Identifier: MIT */
/* Linux: the platform's name and the kernel's Landlock ABI. */
#include "local/probe.h"

#include <linux/seccomp.h>
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

bool confine_supervisor_available(void) {
	/* The supervisor is a seccomp user-notification listener: a kernel
	 * that answers SECCOMP_GET_NOTIF_SIZES has them (Linux 5.0). */
	struct seccomp_notif_sizes sizes;
	return syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) == 0;
}
