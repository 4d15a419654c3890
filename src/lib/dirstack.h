/* SPDX-License-Identifier: MIT */
/*
 * The directories a walk of a writable root still has to visit, on the
 * heap rather than the call stack (doc/SPEC.md 15): a tree may be as deep
 * as PATH_MAX allows, and neither the stack nor the descriptor table
 * should decide how far a walk gets. Each directory is pushed with the
 * identity its parent's listing gave it (fstatat without following) and
 * popped open with O_NOFOLLOW, its identity checked again: a directory
 * swapped for a symlink or another directory in between is not entered
 * but reported (a walk that did not see it must say so); one simply gone
 * holds nothing to see (a repository made there later is one the run
 * could have made: gitHazards' business).
 */
#ifndef CONFINE_DIRSTACK_H
#define CONFINE_DIRSTACK_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "util.h"

typedef struct cf_dirstack_entry {
	char *path;
	dev_t dev;
	ino_t ino;
} cf_dirstack_entry;

typedef struct cf_dirstack {
	cf_dirstack_entry *items;
	size_t n, cap;
} cf_dirstack;

/* Pushes `dir`/`name` when it is a directory (not followed). 1 pushed,
 * 0 not a directory (or gone), -ENAMETOOLONG, -ENOMEM. */
int cf_dirstack_push_child(cf_dirstack *s, int dirfd, const char *dir, const char *name) CONFINE_HIDDEN;
/* Pushes a walk's root (followed: the root is canonical). 0, -errno. */
int cf_dirstack_push_root(cf_dirstack *s, const char *path) CONFINE_HIDDEN;
/* Pops the next directory into *ret_path (the caller frees it) and opens
 * it: a descriptor, or -errno with *ret_path still set (-ESTALE: it is not
 * what was pushed any more; -ENXIO: it is gone). -ENOENT and *ret_path
 * NULL when empty. */
int cf_dirstack_pop_open(cf_dirstack *s, char **ret_path, dev_t *ret_dev) CONFINE_HIDDEN;
/* The path of the directory next to pop, or NULL: what a walk that stops
 * early did not reach. */
const char *cf_dirstack_peek(const cf_dirstack *s) CONFINE_HIDDEN;
void cf_dirstack_clear(cf_dirstack *s) CONFINE_HIDDEN;

/* One entry a walk read (`st` not followed; `dirfd` its directory, open).
 * 0: go on (a directory is entered), 1: go on but do not enter it, < 0:
 * stop, the walk returns it. */
typedef int (*cf_dirstack_visit)(void *ctx, int dirfd, const char *dir, const char *name,
                                 const struct stat *st);
/* Walks the tree below `root` (canonical) depth-first, every entry but
 * "." and ".." visited; a directory that cannot be opened, or is not what
 * its listing said (-ESTALE), is not entered. 0, or what `visit` stopped
 * with, or -ENOMEM, -ENAMETOOLONG, or the root's -errno. */
int cf_dirstack_walk(const char *root, cf_dirstack_visit visit, void *ctx) CONFINE_HIDDEN;

#endif
