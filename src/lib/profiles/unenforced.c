/* SPDX-License-Identifier: MIT */
/*
 * Which parts of a policy a rung does not enforce (issue 16, SPEC 12.7),
 * named exactly by their config keys, and whether that makes the run
 * `partial`: a part the caller asked for explicitly and the rung leaves
 * unenforced. Best-effort parts (the default protections) and allowances
 * (allowUnixSockets: an exception to a restriction no rung applies yet) are
 * listed but never make a run partial. Reads the same plan as the
 * generators, so the report and the profile agree.
 */
#include <errno.h>
#include <string.h>

#include "policy-internal.h"
#include "profiles/plan.h"
#include "util.h"

static void add(confine_unenforced *u, const char *key, bool makes_partial) {
	if (u->n_keys < CONFINE_UNENFORCED_MAX)
		u->keys[u->n_keys++] = key;
	u->keys[u->n_keys] = NULL;
	if (makes_partial)
		u->partial = true;
}

static bool any(char *const *list) {
	return list && list[0];
}

/*
 * Whether some denyRead mask bwrap makes holds only as long as nobody
 * outside replaces the name: a mount sits on a dentry, and a rename over
 * that name on the host (what editors and dotenv tools do to save) puts a
 * new file there that the mask does not cover (issue 21.4, verified). Only
 * the launcher's Landlock layer, whose rules follow inodes, keeps the new
 * file unreadable, and it can do so only outside its write grants. So: an
 * entry inside a writable root, or any entry of an argv without the layer.
 */
static bool deny_held_by_name_only(const cf_plan *plan, bool landlock_layer) {
	for (size_t i = 0; i < plan->n_deny; i++) {
		bool in_writable = false;
		for (size_t k = 0; plan->writable[k] && !in_writable; k++)
			in_writable = cf_path_at_or_under(plan->deny[i], plan->writable[k]);
		/* bwrap's private /tmp hides the host's: nothing there to mask */
		if (!in_writable && cf_path_at_or_under(plan->deny[i], "/tmp"))
			continue;
		if (in_writable || !landlock_layer)
			return true;
	}
	return false;
}

/* A protectedPaths entry is bound: in an argv others spawn, its mount
 * holds only while nobody outside replaces the name (a save on the host
 * detaches it, as for denyRead above), and no spawner of ours is there to
 * notice: held by name only. The library's own runs compare each protected
 * path's identity before and after the run instead and report a
 * replacement in the outcome (spawn/placeholders.c). */
static bool explicit_bound(const cf_plan *plan) {
	for (size_t i = 0; i < plan->n_protected; i++)
		if (plan->protected_paths[i].explicit_entry)
			return true;
	return false;
}

int cf_policy_unenforced_for(const confine_policy *policy, confine_runner runner, unsigned how,
                             confine_unenforced *ret) {
	confine_unenforced u;
	cf_plan plan;
	unsigned flags = 0;
	bool ww;
	int r;

	if (!ret || (runner != CONFINE_RUNNER_BWRAP && runner != CONFINE_RUNNER_LANDLOCK &&
	             runner != CONFINE_RUNNER_SEATBELT && runner != CONFINE_RUNNER_RUNNER_COMMAND))
		return -EINVAL;
	/* The same plan the rung's profile is made from. */
	if (runner == CONFINE_RUNNER_BWRAP || runner == CONFINE_RUNNER_RUNNER_COMMAND)
		flags = CF_PLAN_BWRAP | (runner == CONFINE_RUNNER_BWRAP && (how & CF_ARGV_SPAWNED_HERE)
		                                 ? CF_PLAN_PLACEHOLDERS
		                                 : 0);
	r = cf_plan_make(policy, flags, &plan);
	if (r < 0)
		return r;
	memset(&u, 0, sizeof u);
	ww = policy->mode == CONFINE_MODE_WORKSPACE_WRITE;

	switch (runner) {
	case CONFINE_RUNNER_BWRAP:
	case CONFINE_RUNNER_RUNNER_COMMAND:
		/* A protected path left open: missing with nothing to stand in for
		 * it (an argv others spawn: no placeholders), a symlink on its way
		 * the command could re-point, a bound reached; or held by its name
		 * only (explicit_bound). */
		if (ww && (plan.explicit_unprotected ||
		           (!(runner == CONFINE_RUNNER_BWRAP && (how & CF_ARGV_SPAWNED_HERE)) &&
		            explicit_bound(&plan))))
			add(&u, "protectedPaths", true);
		if (ww && plan.defaults_unprotected)
			add(&u, "defaultProtections", false);
		if (deny_held_by_name_only(&plan, runner == CONFINE_RUNNER_BWRAP &&
		                                          (how & CF_ARGV_LANDLOCK_LAYER)))
			add(&u, "denyRead", true);
		break;
	case CONFINE_RUNNER_LANDLOCK: {
		bool deny_unenforced = false;
		/* A right on a directory covers its whole tree: no read-only
		 * carve-out inside a writable grant. */
		if (ww && any(policy->protected_paths))
			add(&u, "protectedPaths", true);
		/* never enforced here, whatever repositories there are (nested
		 * ones, or one the run makes): gitHazards reports instead */
		if (ww && policy->default_protections)
			add(&u, "defaultProtections", false);
		for (size_t i = 0; i < plan.n_deny && !deny_unenforced; i++)
			deny_unenforced = strcmp(plan.deny[i], "/") == 0 ||
			                  cf_landlock_under_write_grant(policy, &plan, plan.deny[i]);
		if (deny_unenforced)
			add(&u, "denyRead", true);
		break;
	}
	case CONFINE_RUNNER_SEATBELT:
	case CONFINE_RUNNER_NONE:
		break;
	}
	/* The private temp area, on a rung without a mount namespace, is the
	 * temp_dir whoever spawns makes: an argv built without one (for
	 * another process to spawn, `wrap`) grants no temp area (Landlock in
	 * both modes; Seatbelt's workspace-write still grants /tmp and
	 * $TMPDIR). A default: listed, never partial. */
	if (policy->private_temp && !policy->temp_dir &&
	    (runner == CONFINE_RUNNER_LANDLOCK ||
	     (runner == CONFINE_RUNNER_SEATBELT && policy->mode == CONFINE_MODE_READ_ONLY)))
		add(&u, "privateTemp", false);
	/* Pathname-socket mediation is the supervisor's, in the launcher: the
	 * Landlock rung has it (a run where it could not start says so in its
	 * outcome), bwrap's argv for others does not (the layered in-process
	 * run drops the word). Seatbelt's (deny network*) carries the
	 * allowances itself. */
	if (runner != CONFINE_RUNNER_SEATBELT && runner != CONFINE_RUNNER_LANDLOCK &&
	    any(policy->allow_unix_sockets))
		add(&u, "allowUnixSockets", false);
	cf_plan_clear(&plan);
	*ret = u;
	return 0;
}

/* For an argv another process spawns: no placeholders, no inner layer. */
int confine_policy_unenforced(const confine_policy *policy, confine_runner runner,
                              confine_unenforced *ret) {
	return cf_policy_unenforced_for(policy, runner, 0, ret);
}
