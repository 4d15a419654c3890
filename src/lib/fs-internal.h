/* SPDX-License-Identifier: MIT */
/* The harness's file operations (fs.c): what tests reach inside. */
#ifndef CONFINE_FS_INTERNAL_H
#define CONFINE_FS_INTERNAL_H

#include <stdbool.h>

#include "util.h"

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

#endif
