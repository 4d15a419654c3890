/* SPDX-License-Identifier: MIT */
/*
 * The whole-policy validation (confine_policy_validate, doc/SPEC.md 15):
 * the checks across options, in the order confine.h documents, each
 * naming the config key and the value. The options one by one are
 * policy-options.c's appenders; the bounds policy-bounds.c's; the limits
 * policy-limits.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git-dir.h"
#include "later.h"
#include "policy-limits.h"
#include "policy-internal.h"
#include "util.h"

#define STAGE "policy"

static int invalid(confine_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int invalid(confine_error *err, const char *fmt, ...) {
	char message[CONFINE_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, STAGE, 0, "%s", message);
}


/* A root given canonical must come back unchanged from the root check. */
static int check_canonical_root(confine_mode mode, const char *label, const char *root,
                                bool refuse_slash, confine_error *err) {
	char *canonical = NULL;
	int r = cf_canonicalize_root(mode, label, root, "", refuse_slash, &canonical, err);
	if (r < 0)
		return r;
	if (strcmp(canonical, root) != 0) {
		r = invalid(err, "%s \"%s\" is not canonical: it resolves to \"%s\"", label, root,
		            canonical);
	}
	free(canonical);
	return r;
}

static int check_absolute_list(const char *key, char *const *list, confine_error *err) {
	for (size_t i = 0; list && list[i]; i++)
		if (list[i][0] != '/')
			return invalid(err, "%s entry \"%s\" is relative: it must be an absolute path",
			               key, list[i]);
	return 0;
}

/* Long on purpose: the checks in the documented order (confine.h), each
 * a few lines naming the key and the value. */
int confine_policy_validate(const confine_policy *policy, confine_error *err) {
	bool confined;
	int r;

	if (!policy)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, STAGE, 0,
		                    "confine_policy_validate: the policy is NULL");
	if (!confine_mode_name(policy->mode))
		return invalid(err,
		               "unknown sandbox mode value \"%d\" (expected read-only, workspace-write "
		               "or danger-full-access)",
		               (int)policy->mode);
	confined = confine_mode_is_confined(policy->mode);
	if ((r = cf_policy_check_bounds(policy, err)) < 0)
		return r;
	/* A restriction the mode cannot honour is refused, not dropped: under
	 * danger-full-access nothing confines the command (doc/SPEC.md 15,
	 * "Contradictions"). A writable root there (or under read-only) only
	 * adds a grant the mode already gives or refuses, so it is accepted
	 * and the report per clause says it is not granted. */
	if (policy->mode == CONFINE_MODE_DANGER_FULL_ACCESS) {
		static const char tail[] = "cannot hold under danger-full-access, which confines "
		                           "nothing: drop it, or use read-only or workspace-write";
		if (policy->network == CONFINE_NETWORK_OFF)
			return invalid(err, "network \"off\" %s", tail);
		if (policy->deny_read && policy->deny_read[0])
			return invalid(err, "denyRead entry \"%s\" %s", policy->deny_read[0], tail);
		if (policy->protected_paths && policy->protected_paths[0])
			return invalid(err, "protectedPaths entry \"%s\" %s", policy->protected_paths[0],
			               tail);
		if (policy->require_full)
			return invalid(err, "requireFull %s", tail);
	}
	if (confined) {
		r = check_canonical_root(policy->mode, "workspace root", policy->workspace_root, false,
		                         err);
		if (r < 0)
			return r;
	}
	for (size_t i = 0; policy->writable_roots && policy->writable_roots[i]; i++) {
		char git_dir[PATH_MAX];
		r = check_canonical_root(CONFINE_MODE_WORKSPACE_WRITE, "writableRoots entry",
		                         policy->writable_roots[i], true, err);
		if (r < 0)
			return r;
		/* A root that resolves into a git directory would be a grant the
		 * default protections exist to withhold (issue 28.7). */
		if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE && policy->default_protections &&
		    cf_git_dir_at_or_above(policy->writable_roots[i], git_dir, sizeof git_dir))
			return invalid(err,
			               "writableRoots entry \"%s\" lies in the git directory \"%s\", "
			               "which defaultProtections keep read-only: grant the work tree "
			               "instead (or turn defaultProtections off)",
			               policy->writable_roots[i], git_dir);
	}
	for (size_t i = 0; policy->deny_read && policy->deny_read[i]; i++) {
		const char *deny = policy->deny_read[i];
		/* Relative: a pattern under the roots (never the roots themselves). */
		if (deny[0] != '/') {
			if ((r = cf_check_relative_pattern("denyRead", deny, err)) < 0)
				return r;
			continue;
		}
		if (confined && policy->workspace_root &&
		    cf_path_at_or_under(policy->workspace_root, deny))
			return invalid(err,
			               "denyRead entry \"%s\" covers the workspace root \"%s\": the "
			               "command could not read its own workspace",
			               deny, policy->workspace_root);
		for (size_t j = 0; policy->writable_roots && policy->writable_roots[j]; j++)
			if (cf_path_at_or_under(policy->writable_roots[j], deny))
				return invalid(err,
				               "writableRoots entry \"%s\" lies under denyRead entry \"%s\": "
				               "a root cannot be both writable and unreadable",
				               policy->writable_roots[j], deny);
	}
	for (size_t i = 0; policy->unprotect && policy->unprotect[i]; i++)
		if ((r = cf_later_check_unprotect(policy->unprotect[i], err)) < 0)
			return r;
	for (size_t i = 0; policy->protected_paths && policy->protected_paths[i]; i++) {
		const char *p = policy->protected_paths[i];
		bool inside = false;
		if (!p[0])
			return invalid(err, "protectedPaths entry \"\" is empty");
		if (p[0] != '/') {
			r = cf_check_relative_protected(p, err);
			if (r < 0)
				return r;
			continue;
		}
		if (policy->workspace_root && cf_path_at_or_under(p, policy->workspace_root))
			inside = true;
		for (size_t j = 0; !inside && policy->writable_roots && policy->writable_roots[j]; j++)
			inside = cf_path_at_or_under(p, policy->writable_roots[j]);
		if (!inside)
			return invalid(err,
			               "protectedPaths entry \"%s\" lies outside every writable root (the "
			               "workspace root \"%s\" and writableRoots): it would protect nothing",
			               p, policy->workspace_root ? policy->workspace_root : "");
	}
	r = check_absolute_list("allowUnixSockets", policy->allow_unix_sockets, err);
	if (r < 0)
		return r;
	for (size_t i = 0; policy->env.include && policy->env.include[i]; i++)
		if ((r = cf_env_check_pattern("env.include", policy->env.include[i], true, err)) < 0)
			return r;
	for (size_t i = 0; policy->env.exclude && policy->env.exclude[i]; i++)
		if ((r = cf_env_check_pattern("env.exclude", policy->env.exclude[i], true, err)) < 0)
			return r;
	for (size_t i = 0; policy->env.set && policy->env.set[i]; i++)
		if ((r = cf_env_check_assignment(policy->env.set[i], err)) < 0)
			return r;
	if (!confine_env_inherit_name(policy->env.inherit))
		return invalid(err, "env.inherit value \"%d\" is not all or none",
		               (int)policy->env.inherit);
	if (!confine_network_name(policy->network))
		return invalid(err, "network value \"%d\" is not on or off", (int)policy->network);
	for (size_t i = 0; policy->network_allow && policy->network_allow[i]; i++) {
		if ((r = confine_host_pattern_check("network.allow", policy->network_allow[i], err)) < 0)
			return r;
		if (policy->network != CONFINE_NETWORK_OFF)
			return invalid(err,
			               "network.allow entry \"%s\" needs the network off around it: the "
			               "allowlist is network \"off\" plus the proxy (drop network \"on\")",
			               policy->network_allow[i]);
	}
	if (policy->network_ask && policy->network != CONFINE_NETWORK_OFF)
		return invalid(err, "network.ask needs the network off around it: a decider answers "
		               "for the hosts an allowlist does not name (drop network \"on\")");
	for (size_t i = 0; policy->network_deny && policy->network_deny[i]; i++) {
		if ((r = confine_host_pattern_check("network.deny", policy->network_deny[i], err)) < 0)
			return r;
		/* A refusal nothing would hold is refused, never dropped. */
		if (policy->network != CONFINE_NETWORK_OFF)
			return invalid(err,
			               "network.deny entry \"%s\" cannot hold with the network on: it "
			               "narrows an allowlist (give network.allow entries, or drop it)",
			               policy->network_deny[i]);
	}
	if (policy->temp_dir && policy->temp_dir[0] != '/')
		return invalid(err, "temp_dir \"%s\" is relative: it must be an absolute path",
		               policy->temp_dir);
	if (policy->stage_dir && policy->stage_dir[0] != '/')
		return invalid(err, "stage \"%s\" is relative: it must be an absolute path",
		               policy->stage_dir);
	if (policy->stage_dir && policy->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return invalid(err, "stage \"%s\" needs workspace-write (the mode writes nowhere else)",
		               policy->stage_dir);
	return cf_limits_validate(policy, err);
}
