/* SPDX-License-Identifier: MIT */
/* The harness's file operations (fs.c): what tests reach inside. */
#ifndef CONFINE_FS_INTERNAL_H
#define CONFINE_FS_INTERNAL_H

#include <stdbool.h>

#include "util.h"

/* Tests set it to take the path a kernel without openat2 takes: component
 * by component, no symlink followed at all. */
extern bool cf_fs_force_fallback CONFINE_HIDDEN;

#endif
