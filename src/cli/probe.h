/* SPDX-License-Identifier: MIT */
/* The functional probe of a pinned runner (probe.c), shared by `probe
 * --runner` and `wrap --runner`. */
#ifndef CONFINE_CLI_PROBE_H
#define CONFINE_CLI_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "context.h"

#define CLI_PROBE_REASON_MAX 1024

typedef struct cli_probe_result {
	confine_verdict verdict;   /* usable, runner, enforcement, ABI, path */
	/* When unusable: why, one line; and whether it is a runner failure:
	 * the runner was there but failed, or the probe under it did not exit
	 * 0 (then `reason` is the Runner failure detail, the runner's own line
	 * where it gave one). */
	char reason[CLI_PROBE_REASON_MAX];
	bool runner_failed;
	/* When usable: the report per clause of the probe's argv (read-only
	 * on /, as `wrap` hands it out), or of the probe's run when pinned;
	 * owned, freed by cli_probe_result_clear(). */
	confine_clause *clauses;
	size_t n_clauses;
	/* What the launcher in that argv will apply, as predicted (its
	 * confine_argv `layers`); owned, NULL when none. */
	char **layers;
} cli_probe_result;

void cli_probe_result_clear(cli_probe_result *result);

/*
 * Probes the context's pinned runner (args->has_runner) for real: the
 * provider's unprobed selection, then `true` confined under read-only with
 * root `/` and run to completion, bounded by the configuration's
 * probeTimeoutMs. Exit 0 is usable; a missing or non-executable runner, a
 * runner failure, another exit, a signal or the timeout is unusable, with
 * the reason. 0, or the exit status after reporting a failure of confine
 * itself (out of memory, a spawn that could not be attempted).
 */
int cli_probe_pinned(cli_context *ctx, cli_probe_result *ret);

#endif
