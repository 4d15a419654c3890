/* SPDX-License-Identifier: MIT */
/* The provider seam's side for runs the library spawns itself
 * (confine_spawn_through, doc/SPEC.md 17). */
#ifndef CONFINE_PROVIDER_INTERNAL_H
#define CONFINE_PROVIDER_INTERNAL_H

#include <stdbool.h>

#include "util.h"

/* The runners (bit 1 << runner) this thread's confine_spawn_through call
 * saw fail before its command started: a backend does not offer them again
 * within that call. 0 outside one. */
extern _Thread_local unsigned cf_spawn_excluded_runners CONFINE_HIDDEN;

/* confine_confine()'s checks, then the backend's confine_for_spawn (or its
 * confine where it has none). */
int cf_provider_confine_for_spawn(confine_provider *provider, const char *const *argv,
                                  const confine_policy *policy, confine_argv **ret,
                                  confine_error *err) CONFINE_HIDDEN;
/* A run of `confined` failed before its command started: whether another
 * runner may be tried. */
bool cf_provider_runner_failed(confine_provider *provider, const confine_argv *confined,
                               const char *detail) CONFINE_HIDDEN;
/* A run of `confined` started its command. */
void cf_provider_runner_started(confine_provider *provider, const confine_argv *confined) CONFINE_HIDDEN;

#endif
