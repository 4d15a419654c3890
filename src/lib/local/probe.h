/* SPDX-License-Identifier: MIT */
/*
 * Functional probes: running a rung for real, bounded in time. The bounded
 * runner (probe-run.c) is POSIX; which rungs a host can run, and how, is in
 * the one probe-<os>.c file Meson picks for the host.
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

/* Parses landlock-run --probe: "partially enforced" anywhere in stdout is
 * partial, else full. */
confine_enforcement cf_probe_landlock_enforcement(const char *out) CONFINE_HIDDEN;

/* What a probe needs to know. */
typedef struct cf_probe_target {
	const char *bwrap_path;      /* absolute, or NULL: not found on PATH */
	const char *launcher_path;   /* landlock-run */
	double timeout_ms;
	/* Filled by a probe whose runner exists but cannot be executed
	 * (EACCES: a stripped mode bit); "" otherwise. */
	char unexecutable_detail[512];
} cf_probe_target;

/* ---- per OS (probe-linux.c, probe-darwin.c, probe-other.c) ---- */

/* "linux", "darwin" or another name for this host. Static. */
const char *cf_host_platform(void) CONFINE_HIDDEN;
/* Whether the rung's mechanism can exist on this host at all. */
bool cf_host_has_runner(confine_runner rung) CONFINE_HIDDEN;
/* Runs the rung's functional probe: true when it passes. */
bool cf_host_probe(confine_runner rung, cf_probe_target *target,
                   confine_enforcement *ret_enforcement) CONFINE_HIDDEN;
/* The kernel's Landlock ABI version, or -1 (not Linux, not built in, or
 * disabled). */
int cf_host_landlock_abi(void) CONFINE_HIDDEN;

/* Where sandbox-exec lives on macOS. */
#define CF_SANDBOX_EXEC "/usr/bin/sandbox-exec"

#endif
