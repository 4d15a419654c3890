/* SPDX-License-Identifier: MIT */
/*
 * What a policy means on this filesystem, computed once before any profile
 * is generated: the writable roots, which protected paths exist (a bind can
 * only cover what exists), which denyRead entries exist and whether each is
 * a directory. The generators turn a plan into tokens or text; the
 * unenforced report reads the same plan, so the two never disagree.
 */
#ifndef CONFINE_PROFILES_PLAN_H
#define CONFINE_PROFILES_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

typedef struct cf_plan {
	/* workspace-write: the workspace root, then writableRoots; read-only:
	 * none. Canonical, NULL-terminated. */
	char **writable;
	/* Existing paths to keep read-only inside the writable roots
	 * (protectedPaths, then the default .git/hooks and .git/config),
	 * canonical, de-duplicated, NULL-terminated. */
	char **protect;
	/* The same paths whether they exist or not (Seatbelt can deny a path
	 * before it exists; a bind mount cannot). */
	char **protect_all;
	bool explicit_missing;  /* a protectedPaths entry that does not exist */
	bool defaults_apply;    /* some writable root holds a .git directory */
	bool defaults_missing;  /* ... lacking hooks/ or config */
	/* Existing denyRead entries, canonical, and whether each is a
	 * directory (masked with an empty tmpfs) or not (with /dev/null). */
	char **deny;
	bool *deny_is_dir;
	size_t n_deny;
} cf_plan;

/* 0, -EINVAL (not a confined policy with an absolute root), -ENOMEM. */
int cf_plan_make(const confine_policy *policy, cf_plan *ret) CONFINE_HIDDEN;
void cf_plan_clear(cf_plan *plan) CONFINE_HIDDEN;

/* Whether `path` lies at or under one of the Landlock rung's --rw grants
 * for this policy (where a denyRead cannot be carved out). landlock.c. */
bool cf_landlock_under_write_grant(const confine_policy *policy, const cf_plan *plan,
                                   const char *path) CONFINE_HIDDEN;

/* `--ro P` for everything below `top` (an ancestor of every entry of
 * `deny`, all canonical) except the denied paths, descending along the way
 * to each; sorted by name. landlock.c. */
int cf_landlock_read_grants(const char *top, char *const *deny, char ***tokens) CONFINE_HIDDEN;

#endif
