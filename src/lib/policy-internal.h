/* SPDX-License-Identifier: MIT */
/* Shared by the policy modules (policy.c, policy-options.c, env.c) and the
 * profile generators. */
#ifndef CONFINE_POLICY_INTERNAL_H
#define CONFINE_POLICY_INTERNAL_H

#include <stdbool.h>

#include "util.h"

/* Lexical normalization of an absolute path (safe only after realpath). */
char *cf_normalize_lexically(const char *path) CONFINE_HIDDEN;
/* realpath(3) of the deepest existing ancestor, the rest appended and the
 * whole normalized; NULL only when out of memory. */
char *cf_canonicalize_loosely(const char *path) CONFINE_HIDDEN;
/* The workspace-root check (SPEC 3, 12.6) with the value named by `label`. */
int cf_canonicalize_root(confine_mode mode, const char *label, const char *root,
                         const char *origin, bool refuse_slash, char **ret,
                         confine_error *err) CONFINE_HIDDEN;

/* Fills the defaults of a fresh policy (default protections and default env
 * excludes on); lists stay NULL. */
void cf_policy_set_defaults(confine_policy *policy) CONFINE_HIDDEN;
/* Frees what `policy` owns (not the struct) and zeroes it. */
void cf_policy_clear(confine_policy *policy) CONFINE_HIDDEN;
/* Deep copy of `src` into `*dst` (zeroed first); -ENOMEM leaves *dst clear. */
int cf_policy_copy_into(confine_policy *dst, const confine_policy *src) CONFINE_HIDDEN;

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

/* confine_policy_unenforced() for an argv of `runner` made `how`: with
 * CF_ARGV_LANDLOCK_LAYER, bwrap runs the launcher inside, whose Landlock
 * rules follow inodes (a denyRead outside the writable roots then holds
 * when the host saves over the name); with CF_ARGV_SPAWNED_HERE, the
 * library spawns it itself: its spawner makes the placeholders and notices
 * a protected path replaced on the host (doc/SPEC.md 15). 0: an argv for
 * another process, plain bwrap. */
#define CF_ARGV_LANDLOCK_LAYER (1u << 0)
#define CF_ARGV_SPAWNED_HERE (1u << 1)
/* The library's spawner runs it (either rung): it makes the run's own
 * cgroup where the host lets it (doc/SPEC.md 15, "Limits"). */
#define CF_ARGV_OWN_CGROUP (1u << 2)
int cf_policy_unenforced_for(const confine_policy *policy, confine_runner runner, unsigned how,
                             confine_unenforced *ret) CONFINE_HIDDEN;

/* The bounds of doc/SPEC.md 15 (policy-bounds.c): 0, or INVALID_POLICY
 * naming the key, the bound and the value. */
int cf_policy_check_bounds(const confine_policy *policy, confine_error *err) CONFINE_HIDDEN;
/* The bound of one path (the table row `key`'s length), checked before it
 * is resolved: a path past it is refused in the bound's text, not in the
 * ENAMETOOLONG of resolving it (red team F6). `label` names it. */
int cf_policy_check_path_length(const char *key, const char *label, const char *value,
                                confine_error *err) CONFINE_HIDDEN;

/* A relative denyRead pattern (`key` names it in the message): no `..`,
 * no leading `~` (policy-options.c). */
int cf_check_relative_pattern(const char *key, const char *pattern,
                              confine_error *err) CONFINE_HIDDEN;
/* A relative protectedPaths entry: no `..` (policy-options.c). */
int cf_check_relative_protected(const char *path, confine_error *err) CONFINE_HIDDEN;

/* `inner` is `outer` or lies below it, path-component-wise. */
bool cf_path_at_or_under(const char *inner, const char *outer) CONFINE_HIDDEN;
/* Whether a workspace-write run with limits.temp and its own temp
 * directory gets /dev/shm as a second sized tmpfs of its own (the
 * launcher's --private-shm, doc/SPEC.md 15 "Limits"): /dev/shm exists and
 * no path of the policy lies at or under it (the fresh tmpfs would hide
 * it). The rungs that grant the host's /dev/shm ask this. */
bool cf_policy_private_shm(const confine_policy *policy) CONFINE_HIDDEN;

/* Env patterns (env.c). `what` names the key in the message ("env.include"). */
int cf_env_check_pattern(const char *what, const char *pattern, bool allow_wildcards,
                         confine_error *err) CONFINE_HIDDEN;
int cf_env_check_assignment(const char *assignment, confine_error *err) CONFINE_HIDDEN;
/* Case-insensitive glob (`*`, `?`) over a whole name of `name_len` bytes. */
bool cf_env_pattern_match(const char *pattern, const char *name, size_t name_len) CONFINE_HIDDEN;
bool cf_env_value_has_credentials(const char *value) CONFINE_HIDDEN;
/* Whether a value holds a secret whatever its name (env-values.c,
 * doc/SPEC.md 15 "Environment"): a URL with credentials, a leading
 * `user:pass@host`, a secret query key, an ADO `Password=`, a Java `-D`
 * secret property, a PEM private key, a service-account JSON. */
bool cf_env_value_has_secret(const char *value) CONFINE_HIDDEN;

#endif
