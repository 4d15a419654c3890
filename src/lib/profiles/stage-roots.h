/* SPDX-License-Identifier: MIT */
/* The roots a staged run stages (doc/SPEC.md 21): one list for the stage's
 * layout, the launcher's --stage-root words and bwrap's lower binds. */
#ifndef CONFINE_PROFILES_STAGE_ROOTS_H
#define CONFINE_PROFILES_STAGE_ROOTS_H

#include "profiles/plan.h"

/* The plan's writable roots, less any inside an earlier one (that
 * overlay covers it), in order: root 0 is the workspace root. Appends
 * copies to *ret. 0 or -ENOMEM. */
int cf_stage_roots(const cf_plan *plan, char ***ret) CONFINE_HIDDEN;

#endif
