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
