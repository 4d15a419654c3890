/* SPDX-License-Identifier: MIT */
/*
 * Roots that are not places (issue 14, N8): a workspace or writable root on a
 * kernel pseudo-filesystem is refused, because granting write there is not
 * "a directory of files" but a control surface: `-w /proc` made every sysctl
 * (core_pattern included) writable, `-w /dev` the host's /dev/shm.
 * The OS-specific check is chosen by Meson (fs-place-linux.c,
 * fs-place-other.c); the lexical /dev, /proc, /sys rule is in policy.c.
 */
#ifndef CONFINE_FS_PLACE_H
#define CONFINE_FS_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/*
 * Whether the canonical directory `path` is on a pseudo-filesystem or, with
 * `check_below` (a root the command may write), holds a mount of one.
 * Returns 1 and writes a phrase into `why` ("is on procfs", "holds a sysfs
 * mount at "/x/sys"") when it is; 0 when it is not or cannot be told (the
 * check is defence in depth behind the lexical rule); -ENOMEM.
 */
int cf_fs_not_a_place(const char *path, bool check_below, char *why,
                      size_t why_size) CONFINE_HIDDEN;

#endif
