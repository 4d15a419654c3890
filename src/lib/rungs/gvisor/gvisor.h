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
#include "rungs/rung.h"
#include "util.h"

/* Its clause table (holds.c): bwrap's mount plan as gVisor's kernel
 * applies it, without the launcher (no Landlock, no supervisor, no
 * launcher rlimits). */
extern const cf_rung_holds cf_gvisor_holds CONFINE_HIDDEN;

#endif
