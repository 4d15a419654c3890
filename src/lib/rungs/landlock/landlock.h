/* SPDX-License-Identifier: MIT */
/* What the Landlock rung's argv builder (argv.c) shares with its clause
 * table (holds.c) and the unit tests. */
#ifndef CONFINE_RUNGS_LANDLOCK_H
#define CONFINE_RUNGS_LANDLOCK_H

#include <stdbool.h>

#include "profiles/plan.h"

/* Whether `path` lies at or under one of the Landlock rung's --rw grants
 * for this policy (where a denyRead cannot be carved out). argv.c. */
bool cf_landlock_under_write_grant(const confine_policy *policy, const cf_plan *plan,
                                   const char *path) CONFINE_HIDDEN;

/* `--ro P` for everything below `top` (an ancestor of every entry of
 * `deny`, all canonical) except the denied paths, descending along the way
 * to each; sorted by name. argv.c. */
int cf_landlock_read_grants(const char *top, char *const *deny, char ***tokens) CONFINE_HIDDEN;

#endif
