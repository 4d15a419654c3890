/* SPDX-License-Identifier: MIT */
/*
 * realpath(3)'s answer with fewer system calls (canonical.c, issue 33):
 * glibc's realpath makes one readlink(2) per component, and a
 * workspace-write run resolves every protected candidate of its plan, in
 * each plan made for the call. One openat2(2) with RESOLVE_NO_SYMLINKS
 * proves a lexically canonical path canonical, or finds the same missing
 * component realpath would stop at; anything else is realpath's to say.
 */
#ifndef CONFINE_CANONICAL_H
#define CONFINE_CANONICAL_H

#include <stdbool.h>

#include "util.h"

/* Whether `path` is certainly what realpath(3) would return for it:
 * absolute, no empty, "." or ".." component, no trailing slash, and the
 * kernel found no symlink on the way (RESOLVE_NO_SYMLINKS refuses one in
 * any component, the last included). false means "not proved", never "not
 * canonical". */
bool cf_canonical_fast(const char *path) CONFINE_HIDDEN;

/* realpath(path, NULL), the same answer: a malloc'd canonical path, or
 * NULL with errno set. Proved in one openat2(2) where it can be (above);
 * a missing component (ENOENT, ENOTDIR) found before any symlink is the
 * one realpath, resolving left to right, stops at too; every other case
 * asks realpath. */
char *cf_realpath(const char *path) CONFINE_HIDDEN;

#endif
