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

int confine_policy_unenforced(const confine_policy *policy, confine_runner runner,
                              confine_unenforced *ret) {
	confine_unenforced u;
	cf_plan plan;
	bool ww;
	int r;

	if (!ret || (runner != CONFINE_RUNNER_BWRAP && runner != CONFINE_RUNNER_LANDLOCK &&
	             runner != CONFINE_RUNNER_SEATBELT && runner != CONFINE_RUNNER_RUNNER_COMMAND))
		return -EINVAL;
	r = cf_plan_make(policy, &plan);
	if (r < 0)
		return r;
	memset(&u, 0, sizeof u);
	ww = policy->mode == CONFINE_MODE_WORKSPACE_WRITE;

	switch (runner) {
	case CONFINE_RUNNER_BWRAP:
	case CONFINE_RUNNER_RUNNER_COMMAND:
		/* A bind covers only what exists: a protected path missing at the
		 * start could be created by the command. */
		if (ww && plan.explicit_missing)
			add(&u, "protectedPaths", true);
		if (ww && plan.defaults_missing)
			add(&u, "defaultProtections", false);
		break;
	case CONFINE_RUNNER_LANDLOCK: {
		bool deny_unenforced = false;
		/* A right on a directory covers its whole tree: no read-only
		 * carve-out inside a writable grant. */
		if (ww && any(policy->protected_paths))
			add(&u, "protectedPaths", true);
		if (ww && plan.defaults_apply)
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
