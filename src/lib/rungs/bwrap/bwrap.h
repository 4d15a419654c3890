/* SPDX-License-Identifier: MIT */
/* What the bwrap rung (argv.c, identity.c) shares with the gVisor rung,
 * which runs bwrap's profile, and the unit tests. */
#ifndef CONFINE_RUNGS_BWRAP_H
#define CONFINE_RUNGS_BWRAP_H

#include "confine.h"
#include "util.h"

/* confine_profile_bwrap_flags(), library-internal: a protected path that
 * does not exist yet is bound all the same, over a placeholder the spawner
 * makes before bwrap starts and removes after the run (doc/SPEC.md 15).
 * Only for an argv the library spawns itself. */
#define CF_PROFILE_PLACEHOLDERS (1u << 30)
/* confine_profile_bwrap_flags(), library-internal: the project's launcher
 * runs inside (the layered rung), so a sized temp area (limits.temp) is
 * its to mount: bwrap gives it CAP_SYS_ADMIN for the remount of /tmp,
 * which it drops before the command (doc/SPEC.md 15, "Limits"). Never
 * without the launcher: the command itself would hold the capability. */
#define CF_PROFILE_LAUNCHER_INSIDE (1u << 29)
/* confine_profile_bwrap_flags() with, in *ids (when ids is not NULL), the
 * launcher's `--identity DEV:INO:PATH` pairs for every path bwrap binds
 * from the host (rungs/bwrap/identity.c; doc/SPEC.md 14). */
int cf_profile_bwrap_layered(const confine_policy *policy, unsigned flags, char ***ret,
                             char ***ids) CONFINE_HIDDEN;
/* Appends `--identity DEV:INO:PATH` for the canonical `path`, opened with no
 * link followed; nothing when ids is NULL. 0, -errno (-ELOOP: a link on
 * the way now), -E2BIG past LAUNCHER_IDENTITIES_MAX. */
int cf_bwrap_identity_push(char ***ids, const char *path) CONFINE_HIDDEN;

#endif
