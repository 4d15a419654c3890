/* SPDX-License-Identifier: MIT */
/* The local provider's policy checks on one rung (policy-check.h). */
#include "local/policy-check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy-internal.h"

/* Whether canonical `path` is `dir` or lies below it; a `dir` of "/" never
 * counts (workspace-write refuses it as a root). */
static bool inside(const char *path, const char *dir) {
	if (!dir || (dir[0] == '/' && dir[1] == '\0'))
		return false;
	return cf_path_at_or_under(path, dir);
}

static int refuse_place(confine_error *err, const confine_policy *policy, const char *real,
                        const char *what, const char *area) {
	char detail[PATH_MAX * 2 + 160];
	snprintf(detail, sizeof detail,
	         "runner %s lies inside %s %s, which confined commands may write; refusing to run it",
	         real, what, area);
	return confine_error_sandbox_unavailable(err, policy->mode, detail);
}

int cf_policy_check_runner_place(const cf_runner_def *def, const char *real,
                                 const confine_policy *policy, confine_error *err) {
	if (!real || policy->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return 0;
	/* A runner inside a writable area could have been replaced by an
	 * earlier workspace-write run: running it would run that command's
	 * choice unconfined. */
	if (inside(real, policy->workspace_root))
		return refuse_place(err, policy, real, "the workspace", policy->workspace_root);
	for (size_t i = 0; policy->writable_roots && policy->writable_roots[i]; i++)
		if (inside(real, policy->writable_roots[i]))
			return refuse_place(err, policy, real, "the writable root",
			                    policy->writable_roots[i]);
	/* A rung that grants the host's /dev/shm could have its runner
	 * replaced by this very run. */
	if (def->facts & CONFINE_RUNNER_FACT_HOST_TMP) {
		static const char *const host_tmp[] = { "/dev/shm", NULL };
		for (size_t i = 0; host_tmp[i]; i++)
			if (inside(real, host_tmp[i])) {
				char detail[PATH_MAX + 160];
				snprintf(detail, sizeof detail,
				         "runner %s lies under %s, which a workspace-write run under %s may "
				         "write; refusing to run it",
				         real, host_tmp[i], def->title);
				return confine_error_sandbox_unavailable(err, policy->mode, detail);
			}
	}
	return 0;
}

int cf_policy_profile_error(const cf_runner_def *def, const confine_policy *policy, int r,
                            confine_error *err) {
	const char *cause;
	if (r == -ENOMEM)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
	if (r == -EINVAL)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "confine", 0,
		                    "cannot build the %s profile for mode \"%s\" and workspace root "
		                    "\"%s\"",
		                    def->name, confine_mode_name(policy->mode),
		                    policy->workspace_root ? policy->workspace_root : "");
	switch (-r) {
	case E2BIG:
		cause = "denyRead would need more than 8192 read grants";
		break;
	case EACCES:
		cause = "a directory on the way to a denyRead entry cannot be listed";
		break;
	case ENAMETOOLONG:
		cause = "a path on the way to a denyRead entry is too long";
		break;
	default:
		cause = "the filesystem could not be read";
		break;
	}
	/* Never a wider profile instead: the call fails, naming why. */
	return cf_error_set(err, -r, CONFINE_E_INVALID_POLICY, "confine", -r,
	                    "cannot build the %s profile for mode \"%s\": %s (%s)", def->name,
	                    confine_mode_name(policy->mode), cause, strerror(-r));
}

/* Listed, but never a reason for `partial` (confine_unenforced's rule). */
static bool best_effort(const char *key) {
	return strcmp(key, "defaultProtections") == 0 || strcmp(key, "allowUnixSockets") == 0 ||
	       strcmp(key, "privateTemp") == 0;
}

int cf_policy_apply_unenforced(const cf_runner_def *def, const confine_policy *policy,
                               confine_argv *c, confine_error *err) {
	confine_unenforced u;
	int r = confine_policy_unenforced(policy, def->id, &u);
	if (r == -ENOMEM)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
	if (r < 0)
		return cf_policy_profile_error(def, policy, r, err);
	if (u.partial)
		c->enforcement = CONFINE_ENFORCEMENT_PARTIAL;
	if (policy->require_full && c->enforcement == CONFINE_ENFORCEMENT_PARTIAL) {
		char detail[512];
		size_t n = 0;
		if (u.partial) {
			n = (size_t)snprintf(detail, sizeof detail, "requireFull: %s does not enforce ",
			                     def->title);
			for (size_t i = 0, k = 0; i < u.n_keys && n < sizeof detail; i++) {
				if (best_effort(u.keys[i]))
					continue;
				n += (size_t)snprintf(detail + n, sizeof detail - n, "%s%s", k++ ? ", " : "",
				                      u.keys[i]);
			}
		} else {
			snprintf(detail, sizeof detail,
			         "requireFull: %s enforces this mode only partially on this kernel",
			         def->title);
		}
		return confine_error_sandbox_unavailable(err, policy->mode, detail);
	}
	for (size_t i = 0; i < u.n_keys; i++)
		if (cf_strv_push(&c->unenforced, u.keys[i]) < 0)
			return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM,
			                    "out of memory");
	return 0;
}

/*
 * Limit 10 (doc/SPEC.md 15, SECURITY.md): a rung that grants the host's
 * /dev/shm under workspace-write lets the command rename a workspace that
 * lies below it and leave a symlink in its place, which the next call would
 * resolve and grant. Such a root is refused on that rung; bwrap's /dev is
 * private and has no such hole. (The host's /tmp is no longer granted: the
 * run has a temp directory of its own, so a root under /tmp is confined.)
 */
int cf_policy_check_roots_for_rung(const cf_runner_def *def, const confine_policy *policy,
                                    confine_error *err) {
	static const char *const shared[] = { "/dev/shm", NULL };
	if (!(def->facts & CONFINE_RUNNER_FACT_HOST_TMP) ||
	    policy->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return 0;
	for (size_t i = 0; shared[i]; i++) {
		const char *root = NULL;
		if (policy->workspace_root && inside(policy->workspace_root, shared[i]) &&
		    strcmp(policy->workspace_root, shared[i]) != 0)
			root = policy->workspace_root;
		for (size_t w = 0; !root && policy->writable_roots && policy->writable_roots[w]; w++)
			if (inside(policy->writable_roots[w], shared[i]) &&
			    strcmp(policy->writable_roots[w], shared[i]) != 0)
				root = policy->writable_roots[w];
		if (root) {
			char detail[PATH_MAX + 256];
			snprintf(detail, sizeof detail,
			         "%s cannot confine the writable root %s: it lies under %s, which a "
			         "workspace-write run under %s may write, so a run could swap it for a "
			         "link to anywhere before the next call",
			         def->title, root, shared[i], def->title);
			return confine_error_sandbox_unavailable(err, policy->mode, detail);
		}
	}
	return 0;
}
