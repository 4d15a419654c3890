/* SPDX-License-Identifier: MIT */
/* Linux: the bwrap and Landlock rungs, and the kernel's Landlock ABI. */
#include "local/probe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
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

bool cf_host_has_runner(confine_runner rung) {
	switch (rung) {
	case CONFINE_RUNNER_BWRAP:
	case CONFINE_RUNNER_LANDLOCK:
		return true;
	case CONFINE_RUNNER_SEATBELT:        /* sandbox-exec is macOS only */
	case CONFINE_RUNNER_RUNNER_COMMAND:  /* never a rung */
	case CONFINE_RUNNER_NONE:
		return false;
	}
	return false;
}

static bool probe_bwrap(const cf_probe_target *target) {
	/* The real read-only profile around `true`: it passes only where bwrap
	 * can make every namespace and mount the profile needs. */
	const char *argv[] = {
		target->bwrap_path, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-pid",
		"--proc", "/proc", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
		"--", "true", NULL,
	};
	cf_probe_result result;
	if (!target->bwrap_path)
		return false; /* not found on PATH: this rung cannot run */
	if (cf_probe_run(argv, target->timeout_ms, &result) < 0)
		return false;
	return result.started && !result.timed_out && result.exited && result.exit_code == 0;
}

static bool probe_landlock(cf_probe_target *target, confine_enforcement *ret) {
	const char *argv[] = { target->launcher_path, "--probe", NULL };
	cf_probe_result result;
	if (!target->launcher_path || target->launcher_path[0] != '/')
		return false;
	if (cf_probe_run(argv, target->timeout_ms, &result) < 0)
		return false;
	/* An installed launcher that cannot be executed (a stripped mode bit)
	 * is a broken runner, not a kernel that cannot enforce (SPEC 7): say
	 * so, so the unavailable verdict carries it as a runner failure. A
	 * missing launcher (ENOENT) is simply no backend. */
	if (!result.started && result.exec_errno == EACCES)
		snprintf(target->unexecutable_detail, sizeof target->unexecutable_detail,
		         "cannot execute %s: %s", target->launcher_path, strerror(EACCES));
	if (!result.started || result.timed_out || !result.exited || result.exit_code != 0)
		return false;
	*ret = cf_probe_landlock_enforcement(result.out);
	return true;
}

bool cf_host_probe(confine_runner rung, cf_probe_target *target,
                   confine_enforcement *ret_enforcement) {
	switch (rung) {
	case CONFINE_RUNNER_BWRAP:
		if (!probe_bwrap(target))
			return false;
		*ret_enforcement = CONFINE_ENFORCEMENT_FULL;
		return true;
	case CONFINE_RUNNER_LANDLOCK:
		return probe_landlock(target, ret_enforcement);
	case CONFINE_RUNNER_SEATBELT:
	case CONFINE_RUNNER_RUNNER_COMMAND:
	case CONFINE_RUNNER_NONE:
		return false;
	}
	return false;
}

int cf_host_landlock_abi(void) {
	long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	/* ENOSYS: not built in; EOPNOTSUPP: built in but disabled at boot. */
	return abi > 0 && abi < 1000 ? (int)abi : -1;
}
