/* SPDX-License-Identifier: MIT */
/*
 * The runner ladder (SPEC 4): per-platform chains, probe arbitration and the
 * cached verdict. Pure apart from a mutex: probes are injected, so the chain
 * logic is unit-tested without running anything.
 */
#ifndef CONFINE_LOCAL_LADDER_H
#define CONFINE_LOCAL_LADDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define CF_LADDER_MAX 3

typedef struct cf_ladder_hooks {
	/* Functional probe of one rung of a chain of several: true when it
	 * passes, with the enforcement it achieves in *ret_enforcement. */
	bool (*probe)(void *ctx, confine_runner rung, confine_enforcement *ret_enforcement);
	/* A sole candidate is selected without a probe. This hook says whether
	 * the rung can exist on this host at all (false: unavailable now, since
	 * there is nothing that could run) and with which enforcement. NULL:
	 * always selectable, enforcement full. Never counted as a probe. */
	bool (*select_unprobed)(void *ctx, confine_runner rung, confine_enforcement *ret_enforcement);
	void *ctx;
} cf_ladder_hooks;

typedef struct cf_ladder_choice {
	bool usable;
	confine_runner runner;           /* CONFINE_RUNNER_NONE when unusable */
	confine_enforcement enforcement;
} cf_ladder_choice;

typedef struct cf_ladder {
	confine_runner chain[CF_LADDER_MAX];
	size_t n_chain;
	cf_ladder_hooks hooks;
	/* One mutex per ladder, not pthread_once: hooks are per provider, and
	 * concurrent first calls must wait for the one probing call. */
	pthread_mutex_t lock;
	bool decided;
	cf_ladder_choice choice;
	unsigned probes_run;
	/* The optimistic ladder of runs the library spawns itself (doc/SPEC.md
	 * 17): rungs a run proved unable to start its command. */
	bool failed[CF_LADDER_MAX];
	/* rungs a run started its command on: one later failure (a policy's
	 * grant that cannot be opened, say) does not condemn them */
	bool confirmed[CF_LADDER_MAX];
} cf_ladder;

/* The chain of a platform name: "linux" bwrap then landlock; "darwin"
 * seatbelt; anything else (NULL included) empty. Returns its length. */
size_t cf_ladder_chain_for_platform(const char *platform, confine_runner chain[CF_LADDER_MAX]) CONFINE_HIDDEN;

/* Copies `chain` (n <= CF_LADDER_MAX) and `hooks`. 0, -EINVAL or -errno. */
int cf_ladder_init(cf_ladder *ladder, const confine_runner *chain, size_t n,
                   const cf_ladder_hooks *hooks) CONFINE_HIDDEN;
void cf_ladder_destroy(cf_ladder *ladder) CONFINE_HIDDEN;

/* The verdict: decided on the first call (probing a chain of several in
 * order, first pass wins, later rungs never probed), cached after, an
 * unavailable verdict too. Thread-safe. */
cf_ladder_choice cf_ladder_select(cf_ladder *ladder) CONFINE_HIDDEN;

/*
 * The optimistic ladder (doc/SPEC.md 17), for runs whose runner reports
 * whether it started the command: no probe. The choice is the verdict when
 * one is decided (probed, or confirmed by a run), else the first rung no
 * run has failed on, with the enforcement select_unprobed gives it (a rung
 * that cannot exist on this host is skipped). Unusable when every rung
 * failed. Thread-safe.
 */
cf_ladder_choice cf_ladder_optimistic(cf_ladder *ladder) CONFINE_HIDDEN;
/* The same, leaving out the rungs whose bit (1 << runner) is set in
 * `excluded`: those this call already saw fail. */
cf_ladder_choice cf_ladder_optimistic_excluding(cf_ladder *ladder, unsigned excluded) CONFINE_HIDDEN;
/* Whether a rung is left that has not failed and is not in `excluded`. */
bool cf_ladder_has_rung(cf_ladder *ladder, unsigned excluded) CONFINE_HIDDEN;
/* A run on `rung` started its command: that rung is the verdict from now
 * on (unless a verdict was already decided). */
void cf_ladder_confirm(cf_ladder *ladder, confine_runner rung, confine_enforcement enforcement) CONFINE_HIDDEN;
/* A run on `rung` failed before its command started. A rung no run has
 * started on is failed for good (and a probed verdict on it dropped); a
 * confirmed one stays (the failure may be that call's own). Returns true
 * when a rung that has not failed is left; when none is, the verdict is
 * unavailable. */
bool cf_ladder_fail(cf_ladder *ladder, confine_runner rung) CONFINE_HIDDEN;

/* How many functional probes ran so far. */
unsigned cf_ladder_probe_count(cf_ladder *ladder) CONFINE_HIDDEN;

#endif
