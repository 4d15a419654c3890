/* SPDX-License-Identifier: MIT */
/*
 * Repositories made or changed during a run (doc/SPEC.md 15): after a
 * workspace-write run the library spawned, a bounded walk of every
 * writable root finds git hooks and executable git settings that appeared
 * or changed during the run, so a harness can warn before a person runs
 * git there unconfined.
 */
#ifndef CONFINE_GIT_HAZARDS_H
#define CONFINE_GIT_HAZARDS_H

#include <stddef.h>
#include <time.h>

#include "util.h"

/* Bounds of one scan: directories deeper than this below a root are not
 * visited, and the walk stops after this many directory entries in all.
 * Either bound reached adds a {"", "incomplete"} hazard. */
#define CF_GIT_SCAN_MAX_DEPTH 6
#define CF_GIT_SCAN_MAX_ENTRIES 20000

/* The run's start on the clock file timestamps are taken from (the coarse
 * real-time clock on Linux), so a change made after it has a ctime at or
 * after it. */
struct timespec cf_git_scan_clock(void) CONFINE_HIDDEN;

/* Walks each root of `roots` (NULL-terminated canonical directories; mount
 * points below them are not entered, symlinks not followed) and appends to
 * *hazards / *n every hook file (in `hooks/` of a git directory: a `.git`
 * directory, the gitdir a `.git` file names, or a bare repository; `.sample`
 * files aside) whose status changed at or after `since`, and every
 * executable setting (core.hooksPath, core.fsmonitor other than a boolean,
 * core.sshCommand, filter.<d>.clean|smudge|process, diff.<d>.textconv|command,
 * merge.<d>.driver, include.path, includeIf.<c>.path) in a git config file
 * (`config`, `config.worktree`) that changed at or after `since`.
 * 0 or -ENOMEM (then *hazards holds what was found so far). */
int cf_git_hazards_scan(char *const *roots, struct timespec since, confine_git_hazard **hazards,
                        size_t *n) CONFINE_HIDDEN;

/* Frees an array of n hazards. */
void cf_git_hazards_free(confine_git_hazard *hazards, size_t n) CONFINE_HIDDEN;

#endif
