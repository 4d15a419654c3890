/* SPDX-License-Identifier: MIT */
/*
 * Test helpers that drive the local provider through the public API: a
 * provider pinned to one rung, and whether that rung works on this host.
 * Link with libconfine (testlib_confine_dep in meson).
 */
#ifndef CONFINE_TESTLIB_CONFINE_H
#define CONFINE_TESTLIB_CONFINE_H

#include "confine.h"
#include "testlib.h"

/* A local provider pinned to `rung` (`launcher`: the landlock-run to use,
 * or NULL for the default); NULL, with the error printed, when it cannot be
 * made. */
confine_provider *tl_pinned(confine_runner rung, const char *launcher);

/* Whether the Linux rung `rung` (bwrap or Landlock through `launcher`) works
 * here, by the ladder's own functional probe with the other rung kept out
 * of its way. Returns 0 with its verdict in *v; else the exit status for
 * the test: TL_SKIP or (under CONFINE_MUST_WORK=1) 1 for an absent rung, 1
 * when the provider could not be asked. */
int tl_require_rung(confine_runner rung, const char *launcher, confine_verdict *v);

#endif
