/* SPDX-License-Identifier: MIT */
/*
 * The limits' table (policy-limits.c, doc/SPEC.md 15, "Limits"): one row per
 * limit, read by the parser, the setters, validation, the CLI, the config
 * file and the clause report.
 */
#ifndef CONFINE_POLICY_LIMITS_H
#define CONFINE_POLICY_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

typedef enum cf_limit_kind {
	CF_LIMIT_COUNT,   /* a whole number */
	CF_LIMIT_SIZE,    /* bytes, K/M/G/T suffixes */
	CF_LIMIT_SECONDS, /* seconds */
} cf_limit_kind;

typedef struct cf_limit_def {
	const char *key;  /* the config key, and the clause "limits.<key>" */
	const char *flag; /* the CLI flag */
	cf_limit_kind kind;
	uint64_t min, max;
} cf_limit_def;

/* The row of `limit`; NULL outside the enum. */
const cf_limit_def *cf_limit_def_of(confine_limit limit) CONFINE_HIDDEN;
/* A value in [min, max]; else INVALID_POLICY naming it. */
int cf_limit_check(confine_limit limit, uint64_t value, confine_error *err) CONFINE_HIDDEN;
/* Every limit of a policy (confine_policy_validate's part). */
int cf_limits_validate(const confine_policy *policy, confine_error *err) CONFINE_HIDDEN;
/* Set, and set by the caller (not a default). */
bool cf_limit_requested(const confine_policy *policy, confine_limit limit) CONFINE_HIDDEN;

#endif
