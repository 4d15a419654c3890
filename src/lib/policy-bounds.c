/* SPDX-License-Identifier: MIT */
/*
 * The policy's bounds (doc/SPEC.md 15, "Bounds"): every list and length
 * the launcher or the library caps, one row each. A policy past one is
 * refused (INVALID_POLICY naming the key, the bound and the value) by
 * confine_policy_validate() and again before every run, whichever door
 * built it; no part of it is ever kept and the rest dropped. The numbers
 * are the table of options' rows; this file says only where each list
 * lies in the policy and what holds it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "host-pattern.h"
#include "launcher-args.h"
#include "policy-internal.h"
#include "util.h"

/* The bounds themselves are the table of options' (src/common/options.def:
 * a row's max, the number of entries, and length, the bytes of one entry;
 * doc/SPEC.md 15, "The table of options"): written once, there. */
static const struct table_bound {
	const char *key;
	uint64_t max, length;
} table_bounds[] = {
#define CONFINE_OPTION(id, key, short_name, flag, value, python, node, type, choices, min, max, \
                       length, ...)                                                             \
	{ key, max, length },
#define CONFINE_LIMIT(...)
#include "options.def"
#undef CONFINE_LIMIT
#undef CONFINE_OPTION
};

/* The row of `key`; a key with no row (a typo below) bounds to nothing,
 * so every entry is refused: closed, and the bounds tests fail loudly. */
static const struct table_bound *bound_of(const char *key)
{
	static const struct table_bound none = { NULL, 0, 0 };
	for (size_t i = 0; i < sizeof table_bounds / sizeof table_bounds[0]; i++)
		if (table_bounds[i].key && strcmp(table_bounds[i].key, key) == 0)
			return &table_bounds[i];
	return &none;
}

/* The lists whose number of entries is bounded (the row's max), and what
 * holds them. */
struct list_bound {
	const char *key;
	size_t offset; /* of the char ** in confine_policy */
	const char *holder; /* what holds at most max */
};

static const struct list_bound list_bounds[] = {
	{ "network.allow", offsetof(confine_policy, network_allow), "the launcher's proxy holds" },
	{ "network.deny", offsetof(confine_policy, network_deny), "the launcher's proxy holds" },
	{ "allowUnixSockets", offsetof(confine_policy, allow_unix_sockets),
	  "the launcher's supervisor holds" },
	{ "writableRoots", offsetof(confine_policy, writable_roots),
	  "the launcher's supervisor holds beside the workspace root, /dev/null, the temp area "
	  "and /dev/shm" },
};

/* The path lists whose every entry is bounded in length (the row's length). */
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

/* `label` names the value as the refusal does ("workspace root",
 * "writableRoots entry"). */
static int too_long(confine_error *err, const char *label, const char *value, uint64_t length)
{
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "policy", 0,
	                    "%s \"%.64s...\" is %zu bytes long, more than the %llu a path may "
	                    "hold",
	                    label, value, strlen(value), (unsigned long long)length);
}

int cf_policy_check_path_length(const char *key, const char *label, const char *value,
                                confine_error *err)
{
	uint64_t length = bound_of(key)->length;
	return value && strlen(value) > length ? too_long(err, label, value, length) : 0;
}

int cf_policy_check_bounds(const confine_policy *policy, confine_error *err)
{
	uint64_t root_length = bound_of("workspaceRoot")->length;
	for (size_t b = 0; b < sizeof list_bounds / sizeof list_bounds[0]; b++) {
		char *const *list = list_at(policy, list_bounds[b].offset);
		size_t max = (size_t)bound_of(list_bounds[b].key)->max;
		size_t n = 0;
		while (list && list[n])
			n++;
		if (n > max)
			return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "policy", 0,
			                    "%s has %zu entries, more than the %zu %s (entry %zu is "
			                    "\"%s\"): none is dropped, so the policy is refused",
			                    list_bounds[b].key, n, max, list_bounds[b].holder, max + 1,
			                    list[max]);
	}
	if (policy->workspace_root && strlen(policy->workspace_root) > root_length)
		return too_long(err, "workspace root", policy->workspace_root, root_length);
	/* each list's entries, named as the setters name them */
	for (size_t l = 0; l < sizeof path_lists / sizeof path_lists[0]; l++) {
		char *const *list = list_at(policy, path_lists[l].offset);
		uint64_t length = bound_of(path_lists[l].key)->length;
		for (size_t i = 0; list && list[i]; i++)
			if (strlen(list[i]) > length) {
				char label[64];
				snprintf(label, sizeof label, "%s entry", path_lists[l].key);
				return too_long(err, label, list[i], length);
			}
	}
	return 0;
}
