/* SPDX-License-Identifier: MIT */
/*
 * The policy's bounds (doc/SPEC.md 15, "Bounds"): every list and length
 * the launcher or the library caps, one row each. A policy past one is
 * refused (INVALID_POLICY naming the key, the bound and the value) by
 * confine_policy_validate() and again before every run, whichever door
 * built it; no part of it is ever kept and the rest dropped.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "launcher-args.h"
#include "policy-internal.h"
#include "util.h"

struct list_bound {
	const char *key;
	size_t offset; /* of the char ** in confine_policy */
	size_t max;
	const char *holder; /* what holds at most max */
};

static const struct list_bound list_bounds[] = {
	{ "network.allow", offsetof(confine_policy, network_allow), LAUNCHER_PROXY_HOSTS_MAX,
	  "the launcher's proxy holds" },
	{ "network.deny", offsetof(confine_policy, network_deny), LAUNCHER_PROXY_HOSTS_MAX,
	  "the launcher's proxy holds" },
	{ "allowUnixSockets", offsetof(confine_policy, allow_unix_sockets),
	  LAUNCHER_UNIX_SOCKETS_MAX, "the launcher's supervisor holds" },
	{ "writableRoots", offsetof(confine_policy, writable_roots), LAUNCHER_WRITABLE_ROOTS_MAX,
	  "the launcher's supervisor holds beside the workspace root, /dev/null, the temp area "
	  "and /dev/shm" },
};

/* The path lists whose every entry is bounded in length. */
static const struct {
	const char *key;
	size_t offset;
} path_lists[] = {
	{ "writableRoots", offsetof(confine_policy, writable_roots) },
	{ "protectedPaths", offsetof(confine_policy, protected_paths) },
	{ "denyRead", offsetof(confine_policy, deny_read) },
	{ "allowUnixSockets", offsetof(confine_policy, allow_unix_sockets) },
};

static char *const *list_at(const confine_policy *policy, size_t offset)
{
	return *(char **const *)(const void *)((const char *)policy + offset);
}

static int too_long(confine_error *err, const char *key, const char *value)
{
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "policy", 0,
	                    "%s entry \"%.64s...\" is %zu bytes long, more than the %d a path may "
	                    "hold",
	                    key, value, strlen(value), LAUNCHER_PATH_LENGTH_MAX);
}

int cf_policy_check_bounds(const confine_policy *policy, confine_error *err)
{
	for (size_t b = 0; b < sizeof list_bounds / sizeof list_bounds[0]; b++) {
		char *const *list = list_at(policy, list_bounds[b].offset);
		size_t n = 0;
		while (list && list[n])
			n++;
		if (n > list_bounds[b].max)
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "policy", 0,
			                    "%s has %zu entries, more than the %zu %s (entry %zu is "
			                    "\"%s\"): none is dropped, so the policy is refused",
			                    list_bounds[b].key, n, list_bounds[b].max,
			                    list_bounds[b].holder, list_bounds[b].max + 1,
			                    list[list_bounds[b].max]);
	}
	if (policy->workspace_root && strlen(policy->workspace_root) > LAUNCHER_PATH_LENGTH_MAX)
		return too_long(err, "workspace root", policy->workspace_root);
	for (size_t l = 0; l < sizeof path_lists / sizeof path_lists[0]; l++) {
		char *const *list = list_at(policy, path_lists[l].offset);
		for (size_t i = 0; list && list[i]; i++)
			if (strlen(list[i]) > LAUNCHER_PATH_LENGTH_MAX)
				return too_long(err, path_lists[l].key, list[i]);
	}
	return 0;
}
