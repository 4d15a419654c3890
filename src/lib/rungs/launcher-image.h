/* SPDX-License-Identifier: MIT */
/* The launcher the library carries (SPEC 14). */
#ifndef CONFINE_LAUNCHER_IMAGE_H
#define CONFINE_LAUNCHER_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether this build carries a launcher image (Linux builds do). */
bool cf_launcher_image_available(void);

/*
 * A sealed, close-on-exec, read-only in-memory copy of the launcher, made
 * once per process and shared by every run (never closed). Nothing the
 * confined command can reach names it on disk, so no earlier run can have
 * replaced or planted it, wherever the library lies (a checkout under /tmp
 * included). Exec it with fexecve()/execveat(AT_EMPTY_PATH), or, inside
 * bwrap, as /proc/self/fd/N after dup2() to a descriptor bwrap inherits.
 * Returns the descriptor, or a negative errno (cached: a failure is not
 * retried): -ENOSYS without an image or memfd_create, the errno of
 * memfd_create/write/fcntl otherwise (e.g. -EACCES where the kernel forbids
 * executable memfds, vm.memfd_noexec = 2). Thread-safe.
 */
int cf_launcher_image_fd(void);

#endif
