/* SPDX-License-Identifier: MIT */
/* The filesystem facts behind a policy's profiles (see plan.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "later.h"
#include "patterns.h"
#include "policy-internal.h"
#include "profiles/plan.h"

static bool listed(char *const *list, const char *s) {
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], s) == 0)
			return true;
	return false;
}

static int push_unique(char ***list, const char *s) {
	return listed(*list, s) ? 0 : cf_strv_push(list, s);
}

static bool is_directory(const char *path) {
	struct stat st;
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* `path` (absolute, maybe not existing) for Seatbelt, which denies by path. */
static int protect_by_path(cf_plan *plan, const char *path) {
	return push_unique(&plan->protect_all, path);
}

static int join(char *out, size_t size, const char *root, const char *rel) {
	int n = snprintf(out, size, "%s%s%s", root, strcmp(root, "/") == 0 ? "" : "/", rel);
	return (n < 0 || (size_t)n >= size) ? -ENAMETOOLONG : 0;
}

static int later_by_path(void *ctx, const char *root, const char *path,
                         const cf_later_entry *entry) {
	(void)root;
	(void)entry;
	return protect_by_path(ctx, path);
}

/* Seatbelt's list (and whether defaults apply): protectedPaths under each
 * root, then `.git/hooks` and `.git/config` of each root whose `.git` is a
 * directory. bwrap's much fuller list is protect.c's. */
static int plan_protections(const confine_policy *policy, cf_plan *plan) {
	char path[PATH_MAX];
	int r;
	for (size_t i = 0; policy->protected_paths && policy->protected_paths[i]; i++) {
		const char *p = policy->protected_paths[i];
		if (p[0] == '/') {
			if ((r = protect_by_path(plan, p)) < 0)
				return r;
			continue;
		}
		for (size_t k = 0; plan->writable[k]; k++) {
			if (join(path, sizeof path, plan->writable[k], p) < 0)
				continue;
			if ((r = protect_by_path(plan, path)) < 0)
				return r;
		}
	}
	if (!policy->default_protections)
		return 0;
	/* What runs later (later.c), under every root and at the home a root
	 * holds, existing or not. */
	if ((r = cf_later_each(policy, plan->writable, later_by_path, plan)) < 0)
		return r;
	for (size_t k = 0; plan->writable[k]; k++) {
		static const char *const targets[] = { ".git/hooks", ".git/config" };
		if (join(path, sizeof path, plan->writable[k], ".git") < 0 || !is_directory(path))
			continue;
		plan->defaults_apply = true;
		for (size_t t = 0; t < 2; t++) {
			if (join(path, sizeof path, plan->writable[k], targets[t]) < 0)
				continue;
			if ((r = protect_by_path(plan, path)) < 0)
				return r;
		}
	}
	return 0;
}

static int plan_deny(const confine_policy *policy, cf_plan *plan) {
	size_t n = cf_strv_length((const char *const *)policy->deny_read);
	plan->deny = calloc(n + 1, sizeof *plan->deny);
	plan->deny_is_dir = calloc(n + 1, sizeof *plan->deny_is_dir);
	if (!plan->deny || !plan->deny_is_dir)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char *real = realpath(policy->deny_read[i], NULL);
		if (!real) {
			if (errno == ENOMEM)
				return -ENOMEM;
			continue; /* absent: nothing to hide (it can only appear in a
			           * writable root, made by the command itself) */
		}
		if (listed(plan->deny, real) || stat(real, &st) < 0) {
			free(real);
			continue;
		}
		plan->deny_is_dir[plan->n_deny] = S_ISDIR(st.st_mode);
		plan->deny[plan->n_deny++] = real;
	}
	return 0;
}

static int plan_make_literal(const confine_policy *policy, unsigned flags, cf_plan *ret);

int cf_plan_make_fresh(const confine_policy *policy, unsigned flags, cf_plan *ret) {
	confine_policy *expanded = NULL;
	cf_pattern_report *reports = NULL;
	size_t n = 0;
	int r;
	if (!policy || !confine_mode_is_confined(policy->mode))
		return -EINVAL;
	/* Patterns become the paths they match now (doc/SPEC.md 15). */
	if ((r = cf_patterns_expand(policy, &expanded, &reports, &n)) < 0)
		return r;
	r = plan_make_literal(expanded ? expanded : policy, flags, ret);
	cf_pattern_reports_free(reports, n);
	if (expanded) {
		cf_policy_clear(expanded);
		free(expanded);
	}
	return r;
}

static int plan_make_literal(const confine_policy *policy, unsigned flags, cf_plan *ret) {
	cf_plan plan;
	int r = 0;
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE &&
	    (!policy->workspace_root || policy->workspace_root[0] != '/'))
		return -EINVAL;
	memset(&plan, 0, sizeof plan);
	plan.writable = cf_strv_copy(NULL);
	if (!plan.writable)
		return -ENOMEM;
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE) {
		r = push_unique(&plan.writable, policy->workspace_root);
		for (size_t i = 0; r == 0 && policy->writable_roots && policy->writable_roots[i]; i++)
			r = push_unique(&plan.writable, policy->writable_roots[i]);
		if (r == 0)
			r = plan_protections(policy, &plan);
		if (r == 0 && (flags & CF_PLAN_BWRAP))
			r = cf_plan_bwrap_protections(policy, flags, &plan);
	}
	if (r == 0)
		r = plan_deny(policy, &plan);
	if (r < 0) {
		cf_plan_clear(&plan);
		return r;
	}
	*ret = plan;
	return 0;
}

void cf_plan_clear(cf_plan *plan) {
	if (!plan)
		return;
	confine_strv_free(plan->writable);
	confine_strv_free(plan->protect_all);
	for (size_t i = 0; i < plan->n_protected; i++) {
		free(plan->protected_paths[i].path);
		free(plan->protected_paths[i].link_of);
	}
	free(plan->protected_paths);
	confine_strv_free(plan->pins);
	confine_strv_free(plan->deny);
	free(plan->deny_is_dir);
	free(plan->defaults_reason);
	memset(plan, 0, sizeof *plan);
}
