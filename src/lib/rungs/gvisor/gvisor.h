/* SPDX-License-Identifier: MIT */
/*
 * The gVisor rung (doc/SPEC.md 22): rung.c is its row of the rung table
 * and its argv, holds.c its per-clause report, helper.c the runner program
 * its argv runs (confine-gvisor: the bundle, runsc, the status channel).
 */
#ifndef CONFINE_RUNGS_GVISOR_H
#define CONFINE_RUNGS_GVISOR_H

#include <stddef.h>

#include "rungs/clauses.h"
#include "util.h"

/* Every clause of `policy` as this rung holds it: bwrap's mount plan as
 * gVisor's kernel applies it, without the launcher (no Landlock, no
 * supervisor, no launcher rlimits). 0, -EINVAL, -ENOMEM. */
int cf_gvisor_clauses(const confine_policy *policy, const cf_clause_facts *facts,
                      confine_clause **ret, size_t *n) CONFINE_HIDDEN;

#endif
