/* SPDX-License-Identifier: MIT */
/*
 * What the local provider checks and records about a policy on one rung
 * (doc/SPEC.md 15), kept apart from the provider's assembly of the argv:
 * whether the runner lies where the call lets the command write, what the
 * rung leaves unenforced (and requireFull's refusal), and the cause of a
 * profile that could not be built.
 */
#ifndef CONFINE_LOCAL_POLICY_CHECK_H
#define CONFINE_LOCAL_POLICY_CHECK_H

#include "rungs/rung.h"

/* Refuses (SANDBOX_UNAVAILABLE) a runner at `real` (canonical; NULL: not
 * checked) that lies in an area the call's mode lets the command write:
 * under workspace-write the workspace root, every writable root and, for a
 * rung that grants the host's /dev/shm (CONFINE_RUNNER_FACT_HOST_TMP),
 * /dev/shm. read-only writes nowhere a runner can live: nothing
 * is refused (conformance D1: `-m read-only -w /usr` runs). 0 when it may
 * run. */
int cf_policy_check_runner_place(const cf_runner_def *def, const char *real,
                                 const confine_policy *policy, confine_error *err) CONFINE_HIDDEN;

/* SANDBOX_UNAVAILABLE for `def`'s rung that cannot run the call, with the
 * runner failure `detail`: the contract's text for the ladder's rungs
 * (doc/SPEC.md 2); for a rung only a pin runs (pin_only), one naming it
 * and `what` it cannot do ("cannot run here"). Returns the negative errno. */
int cf_policy_rung_unavailable(const cf_runner_def *def, const confine_policy *policy,
                               const char *what, const char *detail,
                               confine_error *err) CONFINE_HIDDEN;

/* INVALID_POLICY for a network allowlist on a rung that refuses one
 * (holds->allowlist_refused), naming the clause and the rung; 0 otherwise. */
int cf_policy_check_allowlist_for_rung(const cf_runner_def *def, const confine_policy *policy,
                                       confine_error *err) CONFINE_HIDDEN;

/* INVALID_POLICY when the assembled argv `c` (argv[0] the rung's program)
 * passes `def`'s args_max (bwrap: CF_BWRAP_ARGS_MAX), naming
 * the bound and the count (doc/SPEC.md 14), so the run is refused here
 * rather than failing inside bwrap and leaving the rung; 0 otherwise. */
int cf_policy_check_args_max(const cf_runner_def *def, const confine_argv *c,
                               confine_error *err) CONFINE_HIDDEN;

/* The error for a profile generator's failure `r` (< 0): -EINVAL is a
 * policy the rung cannot express; -EACCES, -E2BIG, -ENAMETOOLONG (the
 * Landlock expansion of denyRead) and any other errno are reported with
 * their cause; -ENOMEM is SYSTEM_ERROR. Returns r. */
int cf_policy_profile_error(const cf_runner_def *def, const confine_policy *policy, int r,
                            confine_error *err) CONFINE_HIDDEN;

/* Builds the report per clause of `policy` on `def`'s rung into
 * c->clauses, its summary into c->unenforced, lowers c->enforcement to
 * partial unless every clause is enforced, and with require_full refuses a
 * partial result: SANDBOX_UNAVAILABLE with the detail "requireFull:
 * <title> does not enforce <clause> (<subject>, ...), ..." (doc/SPEC.md
 * 15). `how`: CF_ARGV_* bits of policy-internal.h (0: an argv for another
 * process). 0, or the negative errno. */
int cf_policy_apply_unenforced(const cf_runner_def *def, const confine_policy *policy,
                               unsigned how, confine_argv *c, confine_error *err) CONFINE_HIDDEN;

/* Limit 10: a rung that grants the host's /dev/shm refuses, under
 * workspace-write, a workspace root or writable root below it. 0, or
 * INVALID_POLICY naming the root and the area (doc/SPEC.md 3). */
int cf_policy_check_roots_for_rung(const cf_runner_def *def, const confine_policy *policy,
                                   confine_error *err) CONFINE_HIDDEN;

/* The summary (`unenforced`, `enforcement`) made again from c->clauses,
 * after another step (the launcher's forecast) wrote words of its own:
 * the clauses are the report (doc/SPEC.md 15). 0 or -ENOMEM. */
int cf_policy_summary_from_clauses(confine_argv *c, confine_error *err) CONFINE_HIDDEN;

#endif
