/* SPDX-License-Identifier: MIT */
/* The local provider's policy checks on one rung (policy-check.h). */
#include "local/policy-check.h"

#include <errno.h>
#include <unistd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher-args.h"
#include "rungs/probe.h"
#include "policy-internal.h"
#include "rungs/clauses.h"
#include "spawn/cgroup.h"

/* Whether canonical `path` is `dir` or lies below it, by name or by
 * identity (confine_path_within: a launcher reached through a bind mount
 * of the workspace is inside it, red team round 5); a `dir` of "/" never
 * counts (workspace-write refuses it as a root). */
static bool inside(const char *path, const char *dir) {
	if (!dir || (dir[0] == '/' && dir[1] == '\0'))
		return false;
	return confine_path_within(path, dir);
}

static int refuse_place(confine_error *err, const confine_policy *policy, const char *real,
                        const char *what, const char *area) {
	char detail[PATH_MAX * 2 + 160];
	snprintf(detail, sizeof detail,
	         "runner %s lies inside %s %s, which confined commands may write; refusing to run it",
	         real, what, area);
	return confine_error_sandbox_unavailable(err, policy->mode, detail);
}

/* The writable area on device `dev`, or NULL. */
static const char *writable_on_device(const confine_policy *policy, dev_t dev) {
	struct stat st;
	if (policy->workspace_root && stat(policy->workspace_root, &st) == 0 && st.st_dev == dev)
		return policy->workspace_root;
	for (size_t i = 0; policy->writable_roots && policy->writable_roots[i]; i++)
		if (stat(policy->writable_roots[i], &st) == 0 && st.st_dev == dev)
			return policy->writable_roots[i];
	if (policy->temp_dir && stat(policy->temp_dir, &st) == 0 && st.st_dev == dev)
		return policy->temp_dir;
	return NULL;
}

static int refuse_linked(const confine_policy *policy, const char *real, confine_error *err) {
	char detail[PATH_MAX * 2 + 240];
	const char *area;
	struct stat st;
	if (stat(real, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink <= 1 ||
	    !(area = writable_on_device(policy, st.st_dev)))
		return 0;
	snprintf(detail, sizeof detail,
	         "runner %s has %lu hard links, and the run may write %s on the same filesystem: "
	         "a link there would let the confined command rewrite the runner (use a copy with "
	         "one link); refusing to run it",
	         real, (unsigned long)st.st_nlink, area);
	return confine_error_sandbox_unavailable(err, policy->mode, detail);
}

int cf_policy_check_runner_place(const cf_runner_def *def, const char *real,
                                 const confine_policy *policy, confine_error *err) {
	int r;
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
	/* The run's own temp area is the command's to write as well. */
	if (policy->temp_dir && inside(real, policy->temp_dir))
		return refuse_place(err, policy, real, "the temp area", policy->temp_dir);
	/* A second name of the runner may lie where the run writes: the run
	 * would rewrite the runner through it (red team round 5, F1). A hard
	 * link shares the file's filesystem, so only a writable area there
	 * can hold one (the configuration's and the decider's rule). */
	if ((r = refuse_linked(policy, real, err)) != 0)
		return r;
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

int cf_policy_rung_unavailable(const cf_runner_def *def, const confine_policy *policy,
                               const char *what, const char *detail, confine_error *err) {
	const char *mode = confine_mode_name(policy->mode);
	/* The ladder's rungs keep the contract's text (doc/SPEC.md 2); a rung
	 * only a pin runs is not in it, and "Install bubblewrap" would send
	 * the caller after what it did not ask for. */
	if (!def || !def->pin_only || !detail)
		return confine_error_sandbox_unavailable(err, policy->mode, detail);
	return cf_error_set(err, EHOSTUNREACH, CONFINE_E_SANDBOX_UNAVAILABLE, "runner", 0,
	                    "sandbox mode \"%s\" is requested on the pinned %s rung (\"%s\"), which %s; "
	                    "refusing to run the command unconfined or on another rung. Runner "
	                    "failure: %s",
	                    mode ? mode : "?", def->title, confine_runner_name(def->id), what, detail);
}

int confine_error_pinned_unavailable(confine_error *err, confine_runner pin, confine_mode mode,
                                     const char *runner_failure_detail) {
	confine_policy policy;
	memset(&policy, 0, sizeof policy);
	policy.mode = mode;
	return cf_policy_rung_unavailable(cf_runner_find(pin), &policy, "cannot run here",
	                                  runner_failure_detail, err);
}

int cf_policy_check_allowlist_for_rung(const cf_runner_def *def, const confine_policy *policy,
                                       confine_error *err) {
	if (!def->holds || !def->holds->allowlist_refused || !confine_policy_network_allowlist(policy))
		return 0;
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "confine", 0,
	                    "the network allowlist (--allow-host, config \"network\") cannot be held "
	                    "on the %s rung (\"%s\"): confine's proxy does not run inside its "
	                    "sandbox; it needs %s (nothing was run)",
	                    def->title, confine_runner_name(def->id),
	                    def->holds->allowlist_needs ? def->holds->allowlist_needs
	                                                : "another rung");
}

int cf_policy_check_args_max(const cf_runner_def *def, const confine_argv *c,
                               confine_error *err) {
	size_t n = c->argc > 0 ? (size_t)c->argc - 1 : 0;
	char tally[320] = "";
	if (!def->args_max || n <= def->args_max)
		return 0;
	if (def->args_tally)
		def->args_tally(c, tally, sizeof tally);
	return cf_error_set(err, E2BIG, CONFINE_E_INVALID_POLICY, "confine", 0,
	                    "the policy cannot be held on the %s rung (\"%s\"): %s refuses "
	                    "more than %zu arguments and this run needs %zu%s (nothing was run)",
	                    def->title, confine_runner_name(def->id), def->title, def->args_max, n,
	                    tally);
}

int cf_policy_profile_error(const cf_runner_def *def, const confine_policy *policy, int r,
                            confine_error *err) {
	const char *cause;
	char bound[96];
	if (r == -ENOMEM)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
	if (r == -EINVAL)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "confine", 0,
		                    "cannot build the %s profile for mode \"%s\" and workspace root "
		                    "\"%s\"",
		                    confine_runner_name(def->id), confine_mode_name(policy->mode),
		                    policy->workspace_root ? policy->workspace_root : "");
	switch (-r) {
	case E2BIG:
		snprintf(bound, sizeof bound,
		         "denyRead would need more than %d read grants (the launcher's bound)",
		         LAUNCHER_READ_GRANTS_MAX);
		cause = bound;
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
	                    "cannot build the %s profile for mode \"%s\": %s (%s)", confine_runner_name(def->id),
	                    confine_mode_name(policy->mode), cause, strerror(-r));
}

int cf_policy_apply_unenforced(const cf_runner_def *def, const confine_policy *policy,
                               unsigned how, confine_argv *c, confine_error *err) {
	cf_clause_facts facts = {
		.runner = def->id,
		.layered = (how & CF_ARGV_INNER_LAYER) != 0,
		.spawned_here = (how & CF_ARGV_SPAWNED_HERE) != 0,
		.landlock_abi = cf_host_landlock_abi(),
		/* The launcher starts its supervisor wherever it runs; a run where
		 * it could not says so on the status channel, and its outcome
		 * drops the layer (doc/SPEC.md 15). */
		.supervisor = cf_host_supervisor_missing() == NULL,
		/* The spawner makes the run's cgroup (spawn/cgroup.h); an argv
		 * for others has none. */
		.cgroup_holds = (how & CF_ARGV_OWN_CGROUP) ? cf_cgroup_holds() : 0,
		.cgroup_kind = (how & CF_ARGV_OWN_CGROUP) ? cf_cgroup_kind() : NULL,
		.root = geteuid() == 0,
	};
	confine_clause *clauses = NULL;
	size_t n = 0;
	int r = cf_clauses_make(policy, &facts, &clauses, &n);
	if (r == -ENOMEM)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
	if (r < 0)
		return cf_policy_profile_error(def, policy, r, err);
	/* A stage nothing holds is refused whatever requireFull says: the
	 * writes would reach the real tree (doc/SPEC.md 21). */
	for (size_t i = 0; i < n; i++)
		if (strcmp(clauses[i].clause, "stage") == 0 &&
		    clauses[i].status != CONFINE_CLAUSE_ENFORCED) {
			char detail[4096];
			snprintf(detail, sizeof detail, "stage: %s cannot stage the run (%s; it needs %s)",
			         def->title, clauses[i].reason ? clauses[i].reason : "not held",
			         clauses[i].needs ? clauses[i].needs : "a Linux rung with the launcher");
			cf_clauses_free(clauses, n);
			return cf_policy_rung_unavailable(def, policy, "cannot stage the run", detail, err);
		}
	/* `full` only when every clause holds (doc/SPEC.md 15). */
	if (!cf_clauses_all_enforced(clauses, n))
		c->enforcement = CONFINE_ENFORCEMENT_PARTIAL;
	if (policy->require_full && c->enforcement == CONFINE_ENFORCEMENT_PARTIAL) {
		char detail[4096];
		const char *missing = cf_host_supervisor_missing();
		int len = snprintf(detail, sizeof detail, "requireFull: %s does not enforce ", def->title);
		cf_clauses_describe_unenforced(clauses, n, detail + len, sizeof detail - (size_t)len);
		/* Why the supervisor's clauses do not hold, in the launcher's word. */
		if (missing && strlen(detail) + 64 < sizeof detail)
			snprintf(detail + strlen(detail), sizeof detail - strlen(detail),
			         " (the supervisor cannot run here: %s)", missing);
		cf_clauses_free(clauses, n);
		return confine_error_sandbox_unavailable(err, policy->mode, detail);
	}
	confine_strv_free(c->unenforced);
	c->unenforced = NULL;
	cf_clauses_free(c->clauses, c->n_clauses);
	c->clauses = clauses;
	c->n_clauses = n;
	if (cf_clauses_unenforced(clauses, n, &c->unenforced) < 0)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
	return 0;
}

/*
 * Limit 10 (doc/SPEC.md 3, SECURITY.md): a rung that grants a shared host
 * temp area under workspace-write lets the command rename a root that lies
 * below it and leave a symlink in its place, which the next call would
 * resolve and grant. Such a root is a policy this rung cannot confine:
 * INVALID_POLICY, naming the root, the area and what to do. bwrap's /tmp
 * and /dev are private and have no such hole. The areas are the ones the
 * rung grants (rungs/landlock/argv.c): since issue 21 the run writes a temp
 * dir of its own, never the host's /tmp, so only /dev/shm is left.
 */
static const char *const host_areas[] = { "/dev/shm", NULL };

int cf_policy_check_roots_for_rung(const cf_runner_def *def, const confine_policy *policy,
                                    confine_error *err) {
	if (!(def->facts & CONFINE_RUNNER_FACT_HOST_TMP) ||
	    policy->mode != CONFINE_MODE_WORKSPACE_WRITE)
		return 0;
	for (size_t i = 0; host_areas[i]; i++) {
		const char *root = NULL, *label = "workspace root";
		char areas[64] = "";
		if (policy->workspace_root && inside(policy->workspace_root, host_areas[i]) &&
		    strcmp(policy->workspace_root, host_areas[i]) != 0)
			root = policy->workspace_root;
		for (size_t w = 0; !root && policy->writable_roots && policy->writable_roots[w]; w++)
			if (inside(policy->writable_roots[w], host_areas[i]) &&
			    strcmp(policy->writable_roots[w], host_areas[i]) != 0) {
				root = policy->writable_roots[w];
				label = "writableRoots entry";
			}
		if (!root)
			continue;
		for (size_t k = 0; host_areas[k]; k++) {
			size_t n = strlen(areas);
			snprintf(areas + n, sizeof areas - n, "%s%s",
			         k == 0 ? "" : host_areas[k + 1] ? ", " : " and ", host_areas[k]);
		}
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_POLICY, "confine", 0,
		                    "%s \"%s\" cannot be confined by %s under workspace-write: it lies "
		                    "under %s, which such a run may write, so a run could swap it for a "
		                    "link to anywhere before the next call (a rung with a private %s "
		                    "confines it; or choose a root outside %s)",
		                    label, root, def->title, host_areas[i], host_areas[i], areas);
	}
	return 0;
}

int cf_policy_summary_from_clauses(confine_argv *c, confine_error *err) {
	char **summary = NULL;
	if (!c->n_clauses)
		return 0;
	if (cf_clauses_unenforced(c->clauses, c->n_clauses, &summary) < 0)
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
	confine_strv_free(c->unenforced);
	c->unenforced = summary;
	c->enforcement = cf_clauses_all_enforced(c->clauses, c->n_clauses) ? c->enforcement
	                                                                  : CONFINE_ENFORCEMENT_PARTIAL;
	return 0;
}
