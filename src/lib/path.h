/* SPDX-License-Identifier: MIT */
/*
 * The one PATH search (path.c): every program confine looks up (the
 * spawn's exec candidates, the runners, the confine command's early
 * "command not found") walks PATH here, with one default when PATH is unset
 * (CONFINE_DEFAULT_PATH) and execvp(3)'s rule that an empty entry means the
 * current directory.
 */
#ifndef CONFINE_PATH_H
#define CONFINE_PATH_H

#include <stdbool.h>

#include "util.h"

/* The PATH a child started with `envp` searches: envp's "PATH=" entry, else
 * this process's $PATH, else CONFINE_DEFAULT_PATH. Points into envp, the
 * environment, or static storage. */
const char *cf_path_of(const char *const *envp) CONFINE_HIDDEN;
/* Where runners (bwrap, runsc, a bare runnerCommand) are searched when the
 * provider names no path (doc/SPEC.md 4, red team R4-F9): the caller's
 * $CONFINE_RUNNER_PATH, else CONFINE_DEFAULT_PATH; never $PATH, on which
 * a writable root of an earlier run (.venv/bin, node_modules/.bin) may
 * lie. */
/* path-mounts.c: whether `path` is a file `root` reaches through this
 * namespace's mounts (a bind of a directory below `root`, a mount inside
 * it, an overlay whose upper directory it holds): confine_path_within's
 * last step. No allocation. */
bool cf_path_within_by_mounts(const char *path, const char *root) CONFINE_HIDDEN;
/* path-mounts.c: whether canonical `real` (a denyRead entry) is also
 * reachable at another path through this namespace's mounts (its
 * filesystem's place, or a part of it, mounted a second time: a bind
 * alias), not counting a path at or below `real` or one of `deny`: 1
 * with that path in `alias`, 0 when not (or nothing to tell by: no
 * mountinfo, a kernel before 5.8), -1 when it cannot be told (a mount
 * line too long: the caller fails closed). No allocation. */
int cf_path_mount_alias(const char *real, const char *const *deny, size_t n_deny, char *alias,
                        size_t alias_size) CONFINE_HIDDEN;

const char *cf_runner_path(void) CONFINE_HIDDEN;

/* The exec candidates for `program`, in the order execvp(3) tries them:
 * `program` itself when it contains a slash; else each entry of the PATH
 * of `envp` (see cf_path_of) joined with it, "." for an empty entry.
 * NULL-terminated, malloc'd (confine_strv_free); NULL when out of memory. */
char **cf_exec_candidates(const char *program, const char *const *envp) CONFINE_HIDDEN;

/* Whether canonical `path` and every directory above it are owned by root
 * or the caller and not writable by group or others (doc/SPEC.md 14: how
 * every on-disk runner is trusted). When not, `why` (may be NULL) says
 * which one and why. */
bool cf_path_trusted(const char *path, char *why, size_t why_size) CONFINE_HIDDEN;

#endif
