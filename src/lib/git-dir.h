/* SPDX-License-Identifier: MIT */
/*
 * Whether a path lies in a git directory (git-dir.c): what a writable root
 * must not be, since default protections keep a repository's git files
 * read-only (doc/SPEC.md 15, issue 28.7).
 */
#ifndef CONFINE_GIT_DIR_H
#define CONFINE_GIT_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Whether canonical, absolute `path` is a git directory or lies inside one:
 * a component named `.git`, or a directory at or above it that holds a
 * `HEAD` file beside `objects/` and `refs/` (a bare repository, a linked
 * worktree's or a submodule's gitdir). The git directory goes to `out`. */
bool cf_git_dir_at_or_above(const char *path, char *out, size_t size) CONFINE_HIDDEN;

/* Whether the config file at `path` mentions extensions.worktreeConfig
 * (then git reads config.worktree): any mention counts. */
bool cf_git_mentions_worktree_config(const char *path) CONFINE_HIDDEN;

/* The first line of a small file under `dirfd_` (commondir, a `.git`
 * file; not followed), without its newline, or false. */
bool cf_git_read_line(int dirfd_, const char *name, char *out, size_t size) CONFINE_HIDDEN;

#endif
