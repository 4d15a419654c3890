/* SPDX-License-Identifier: MIT */
/*
 * denyRead and protectedPaths patterns (doc/SPEC.md 15): gitignore-style
 * entries (".env" at any depth, "*.pem", everything under "secrets/")
 * expanded at run start into the paths they match, with a bounded walk;
 * every rung then sees literal paths, and the report per clause says what
 * a pattern covered and what it cannot (a match made during the run).
 */
#ifndef CONFINE_PATTERNS_H
#define CONFINE_PATTERNS_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Bounds of one expansion (all patterns of a policy together): at most this
 * many directory entries read, directories at most this deep below where a
 * pattern starts. A bound reached marks the pattern's report incomplete. */
#define CF_PATTERN_MAX_ENTRIES 50000
#define CF_PATTERN_MAX_DEPTH 32

/* What one pattern matched. */
typedef struct cf_pattern_report {
	const char *key;      /* "denyRead" or "protectedPaths" (static) */
	char *pattern;        /* as the policy gives it */
	size_t matches;
	bool incomplete;      /* the walk reached a bound */
} cf_pattern_report;

/* Whether a policy entry is a pattern: it holds `*`, `?` or `[`. A
 * relative denyRead entry is one too (gitignore: `.env` means every .env
 * under each root). */
bool cf_entry_is_pattern(const char *key, const char *entry) CONFINE_HIDDEN;

/* Whether `relpath` (relative, '/'-separated, no leading slash) matches
 * `pattern` by gitignore's rules: a pattern without a slash (but a
 * trailing one) matches at any depth, one with a slash is anchored at the
 * start (a leading '/' only anchors), `**` spans any number of directories,
 * `*`, `?` and `[...]` never match '/', a trailing '/' matches only
 * directories (`is_dir`). */
bool cf_pattern_match(const char *pattern, const char *relpath, bool is_dir) CONFINE_HIDDEN;

/* A copy of `policy` with each pattern entry of denyRead and protectedPaths
 * replaced by the canonical absolute paths it matches now (relative
 * patterns under the workspace root and each writable root; absolute ones
 * from their literal leading directories), and a report per pattern.
 * Policies without patterns: *ret NULL and *n 0 (use the policy as is).
 * 0, -ENOMEM. */
int cf_patterns_expand(const confine_policy *policy, confine_policy **ret,
                       cf_pattern_report **reports, size_t *n) CONFINE_HIDDEN;

void cf_pattern_reports_free(cf_pattern_report *reports, size_t n) CONFINE_HIDDEN;

#endif
