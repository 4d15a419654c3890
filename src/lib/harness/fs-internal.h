/* SPDX-License-Identifier: MIT */
/* The harness's file operations (fs.c): what tests reach inside. */
#ifndef CONFINE_FS_INTERNAL_H
#define CONFINE_FS_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "confine.h"
#include "git-hazards.h"
#include "profiles/plan.h"
#include "util.h"

struct root {
	char *path; /* canonical */
	int fd;     /* O_PATH directory */
	bool writable;
};

struct confine_fs {
	confine_mode mode;
	char *workspace;
	struct root *roots;
	size_t n_roots;
	int slash_fd;
	bool have_plan;
	cf_plan plan;
	/* What git would read under the writable roots before the first write
	 * since the last confine_fs_git_hazards() (NULL: none taken yet). */
	cf_git_snapshot *git_before;
	bool git_snapshot_failed;
	bool git_names; /* default protections on: git's names refused, existing or not */
	/* What runs later (later.c): defaultProtections and unprotect. */
	confine_policy later;
};

/* The parent of a path to write, opened beneath its writable root, with
 * the last component in `name` and the canonical full path in `canon`. */
struct target {
	int dirfd;
	char name[NAME_MAX + 1];
	char canon[PATH_MAX];
	char given[PATH_MAX];
};

/* The errors (fs.c): DENIED naming the clause, FS_ERROR with strerror,
 * out of memory. Each returns the negative errno. */
int cf_fs_denied(confine_error *err, const char *op, const char *path, const char *clause,
                 const char *fmt, ...) __attribute__((format(printf, 5, 6))) CONFINE_HIDDEN;
int cf_fs_error(confine_error *err, const char *op, const char *path, int e) CONFINE_HIDDEN;
int cf_fs_oom(confine_error *err) CONFINE_HIDDEN;
/* A path to write resolved and checked against the policy (fs.c). */
int cf_fs_resolve(confine_fs *fs, const char *op, const char *path, bool holds,
                  struct target *t, confine_error *err) CONFINE_HIDDEN;
/* A path to read opened and checked against denyRead (fs.c). */
int cf_fs_open_for_read(confine_fs *fs, const char *op, const char *path, int flags, int *ret_fd,
                        char *canon, size_t canon_size, confine_error *err) CONFINE_HIDDEN;
/* The denyRead entry `path` lies at or under, or NULL (fs.c). */
const char *cf_fs_deny_clause(const confine_fs *fs, const char *path,
                              const char **ret_what) CONFINE_HIDDEN;

/* Tests set it to take the path a kernel without openat2 takes: component
 * by component, no symlink followed at all. */
extern bool cf_fs_force_fallback CONFINE_HIDDEN;

/* The parent directory of `path` opened beneath its writable root and
 * checked against the policy as confine_fs_write checks it (with `holds`,
 * as remove and rename do), its last component in `name`. 0 with
 * *ret_dirfd (the caller closes it), or a negative errno with `err` set
 * (CONFINE_E_DENIED naming the clause, CONFINE_E_FS). stage-apply.c. */
int cf_fs_resolve_for_write(confine_fs *fs, const char *op, const char *path, bool holds,
                            int *ret_dirfd, char *name, size_t name_size,
                            confine_error *err) CONFINE_HIDDEN;

/* The O_PATH directory fd the handle opened for the root at canonical
 * `path` exactly (not one above it), or -1 (stage/apply.c). */
int cf_fs_root_fd(const confine_fs *fs, const char *path) CONFINE_HIDDEN;

#endif
