/* SPDX-License-Identifier: MIT */
/*
 * What a run left for git to run later (doc/SPEC.md 15): before a
 * workspace-write run the library spawned, a bounded walk of every
 * writable root records what git would read there (hooks, config files and
 * the settings in them that run programs, commondir links) with an identity
 * and content fingerprint; after the run the same walk is compared with it,
 * and every hook or executable setting that is new or differs is reported,
 * so a harness can warn before a person runs git there unconfined. No clock
 * takes part in the decision: a file counts as changed when its
 * fingerprint differs, never by its timestamps against a clock.
 */
#ifndef CONFINE_GIT_HAZARDS_H
#define CONFINE_GIT_HAZARDS_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* The budget of one walk: it visits every directory below a root at any
 * depth and stops after this many directory entries in all (a bound on the
 * work, not the depth: a node_modules 12 levels deep is walked whole). The
 * budget spent (before or after the run) adds a {dir, "incomplete"} hazard
 * naming the directory where it ran out; a directory that changed while it
 * was walked, one naming it. protect.c's walk has the same budget. */
#define CF_GIT_SCAN_MAX_ENTRIES 100000
/* The budget in force: CF_GIT_SCAN_MAX_ENTRIES, lowered by tests. */
extern size_t cf_git_scan_budget CONFINE_HIDDEN;
/* Files up to this size are hashed (and config files parsed) whole; a
 * bigger one is fingerprinted by its status and its first this-many bytes. */
#define CF_GIT_READ_MAX (256 * 1024)
/* A config file is read up to this much for its settings (git reads it
 * whole); a bigger one adds an "incomplete" setting of its own. */
#define CF_GIT_CONFIG_MAX (8 * 1024 * 1024)

/* What one walk saw. Opaque outside git-hazards.c. */
typedef struct cf_git_snapshot cf_git_snapshot;

/* Walks each root of `roots` (NULL-terminated canonical directories; mount
 * points below them are not entered, symlinks not followed) and records
 * every git directory's `config`, `config.worktree`, `commondir` and
 * the files in `hooks/` (`.sample` files aside), the directory `core.hooksPath` names,
 * the files `include.path` / `includeIf.<c>.path` name, and the git
 * directories a `.git` file or a `commondir` points at. Git directories
 * are `.git` directories, the gitdir a `.git` file names, every directory
 * holding `HEAD`, `objects` and `config` (bare repositories) and each
 * `worktrees/<name>/` in them. 0 and *ret, or -ENOMEM. */
int cf_git_snapshot_take(char *const *roots, cf_git_snapshot **ret) CONFINE_HIDDEN;

/* Appends to *hazards / *n what differs between `before` and `after`:
 * each hook file that is new or whose fingerprint (device, inode, mode,
 * size, mtime and ctime to the nanosecond, content hash) differs, as
 * {path, "hook"}; each executable setting (cf_git_executable_setting) whose
 * key and value were not in the same config file before, as {config path,
 * key as git spells it}; each commondir that is new or changed and names
 * anything but the repository it sits in, as {path, "commondir"}; and
 * {"", "incomplete"} when either walk reached a bound. 0 or -ENOMEM (then
 * *hazards holds what was found so far). */
int cf_git_snapshot_diff(const cf_git_snapshot *before, const cf_git_snapshot *after,
                         confine_git_hazard **hazards, size_t *n) CONFINE_HIDDEN;

/* The top of each work tree the walk found (a directory holding `.git`),
 * NULL-terminated, or NULL: owned by the snapshot. */
char *const *cf_git_snapshot_worktrees(const cf_git_snapshot *snapshot) CONFINE_HIDDEN;

/* Each `<dir>/<name>` the walk read whose name is the first component of
 * a project entry of what runs later (cf_later_marks: `.claude`,
 * `CLAUDE.md`, `.envrc`, ...), NULL-terminated, or NULL: owned by the
 * snapshot. */
char *const *cf_git_snapshot_marks(const cf_git_snapshot *snapshot) CONFINE_HIDDEN;

void cf_git_snapshot_free(cf_git_snapshot *snapshot) CONFINE_HIDDEN;

/* Whether a setting runs a program (or points git at code or places
 * outside: core.worktree, include paths): `section` and `key` lowercased,
 * `subsection` as written or NULL, `value` without its quotes. Writes
 * git's spelling of the key ("core.hooksPath", "alias.<name>", ...) to
 * `spelled`. The list is derived from git-config(1) of Debian 12's git
 * (doc/SPEC.md 15 gives it). */
bool cf_git_executable_setting(const char *section, const char *subsection, const char *key,
                               const char *value, char *spelled, size_t spelled_size) CONFINE_HIDDEN;

/* Frees an array of n hazards. */
void cf_git_hazards_free(confine_git_hazard *hazards, size_t n) CONFINE_HIDDEN;

#endif
