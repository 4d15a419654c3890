/* SPDX-License-Identifier: MIT */
/*
 * The bounded probe runner. A probe must never hang the first confined call:
 * it is the library's own spawn (spawn/) with a timeout whose end is
 * SIGKILL to the probe's whole process group at once, stdin and stderr on
 * /dev/null, stdout captured up to a bound, and the child always reaped. The
 * wait blocks on a pidfd and the pipe together, so a probe that ends is
 * noticed when it ends, with no sleep slices.
 */
#include "rungs/probe.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <string.h>

#include "spawn-internal.h"

int cf_probe_run(const char *const *argv, double timeout_ms, cf_probe_result *ret) {
	confine_spawn_options o;
	confine_process *process = NULL;
	confine_outcome *outcome = NULL;
	confine_error err;
	double bound;
	int r;

	if (!argv || !argv[0] || argv[0][0] != '/' || !ret || !(timeout_ms > 0) || isinf(timeout_ms))
		return -EINVAL;
	memset(ret, 0, sizeof *ret);

	/* Round a fractional bound up (0.5 ms still waits, never zero, which
	 * would mean no bound); a bound past what the spawn API counts (49
	 * days) is as good as none but still one. */
	bound = ceil(timeout_ms);
	confine_spawn_options_init(&o);
	o.argv = argv; /* absolute: no PATH search; this process's environment */
	o.stdio[0].kind = CONFINE_STDIO_NULL;
	o.stdio[1].kind = CONFINE_STDIO_CAPTURE;
	o.stdio[2].kind = CONFINE_STDIO_NULL;
	o.capture_limit = CF_PROBE_STDOUT_MAX;
	o.timeout_ms = bound >= (double)UINT_MAX ? UINT_MAX : (unsigned)bound;

	r = confine_spawn(&o, &process, &err);
	if (r < 0) {
		/* The child reported a failed step (exec, setup): the probe ran
		 * nothing, which is a failed probe, not a system error. */
		if (err.code == CONFINE_E_SPAWN) {
			ret->exec_errno = err.sys_errno;
			return 0;
		}
		return r;
	}
	/* The bound holds whatever the probe does with SIGTERM. */
	cf_process_set_kill_grace_ms(process, 0);
	r = confine_process_wait(process, &outcome, &err);
	/* Reaps the leader if the wait could not, and kills what is left of the
	 * group either way. */
	confine_process_free(process);
	if (r < 0)
		return r;

	ret->started = true;
	ret->timed_out = outcome->timed_out;
	if (outcome->timed_out || outcome->signaled) {
		ret->signaled = true;
	} else {
		ret->exited = true;
		ret->exit_code = outcome->exit_code;
	}
	ret->out_len = outcome->stdout_len;
	if (outcome->stdout_len)
		memcpy(ret->out, outcome->stdout_data, outcome->stdout_len);
	ret->out[ret->out_len] = '\0';
	confine_outcome_free(outcome);
	return 0;
}
