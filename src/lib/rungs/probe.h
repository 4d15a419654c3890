/* SPDX-License-Identifier: MIT */
/*
 * Functional probes: running a rung for real, bounded in time. The bounded
 * runner (probe-run.c) is POSIX; how each runner is probed is in its row
 * (rungs/<rung>/rung.c); what the host is, in the one probe-<os>.c file Meson
 * picks for it.
 */
#ifndef CONFINE_LOCAL_PROBE_H
#define CONFINE_LOCAL_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Bound on the stdout kept from a probe; a probe's report is one line. */
#define CF_PROBE_STDOUT_MAX 4096

typedef struct cf_probe_result {
	bool started;        /* fork and exec succeeded */
	int exec_errno;      /* when !started: errno of the failed step, or 0 */
	bool exited;         /* exited normally (exit_code valid) */
	int exit_code;
	bool signaled;       /* died from a signal (including our kill) */
	bool timed_out;      /* killed at the bound */
	char out[CF_PROBE_STDOUT_MAX + 1]; /* stdout, NUL-terminated, truncated */
	size_t out_len;
} cf_probe_result;

/*
 * Runs argv (argv[0] an absolute path, execve'd with this environment) in a
 * new process group, stdin and stderr /dev/null, stdout captured, every other
 * descriptor closed. Waits at most `timeout_ms`; past it the whole group is
 * killed. The child is always reaped. Returns 0 (see *ret for how it went)
 * or a negative errno when nothing could be started for a system reason
 * (pipe, fork); exec failure is ret->started == false with 0.
 */
int cf_probe_run(const char *const *argv, double timeout_ms, cf_probe_result *ret) CONFINE_HIDDEN;

/* ---- per OS (probe-linux.c, probe-darwin.c, probe-other.c) ---- */

/* "linux", "darwin" or another name for this host. Static. */
const char *cf_host_platform(void) CONFINE_HIDDEN;
/* The kernel's Landlock ABI version, or -1 (not Linux, not built in, or
 * disabled). */
int cf_host_landlock_abi(void) CONFINE_HIDDEN;
/* What keeps the launcher's supervisor from running in this process
 * (src/common/supervisor-probe.h: "nested-listener", "pidfd_getfd", ...),
 * or NULL when it can run. Static. Off Linux: "user-notification". */
const char *cf_host_supervisor_missing(void) CONFINE_HIDDEN;

#endif
