/* SPDX-License-Identifier: MIT */
/*
 * confine_policy_unenforced() (confine.h, SPEC 12.7): a view on the report
 * per clause (clauses.h), not an engine of its own. It names the config
 * keys of five clauses when their report says the rung leaves them open,
 * for an argv of that rung with the launcher's layers as they would apply
 * on a kernel that has them all (the rung's own enforcement, its Landlock
 * ABI, is apart):
 *   protectedPaths, denyRead  not enforced (a denyRead entry missing at
 *                              the start is the report's alone: nothing
 *                              to hide yet); these make the run partial;
 *   defaultProtections,
 *   allowUnixSockets          not enforced; listed, never partial;
 *   privateTemp               requested, but no temp area granted (an
 *                              argv without a temp_dir on a rung with no
 *                              mount namespace); listed, never partial.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "policy-internal.h"
#include "rungs/clauses.h"
#include "rungs/rung.h"
#include "util.h"

static bool counts(const confine_policy *policy, const char *key, const confine_clause *c) {
	if (strcmp(key, "privateTemp") == 0)
		return policy->private_temp && !c->subject;
	if (c->status == CONFINE_CLAUSE_ENFORCED)
		return false;
	if (strcmp(key, "denyRead") == 0)
		return c->status == CONFINE_CLAUSE_UNENFORCED || c->layers != 0;
	return true;
}

int cf_policy_unenforced_for(const confine_policy *policy, confine_runner runner, unsigned how,
                             confine_unenforced *ret) {
	static const struct {
		const char *key;
		bool makes_partial;
	} keys[] = {
		{ "protectedPaths", true },    { "defaultProtections", false }, { "denyRead", true },
		{ "privateTemp", false },      { "allowUnixSockets", false },
	};
	cf_clause_facts facts = {
		.runner = runner,
		.layered = (how & CF_ARGV_INNER_LAYER) != 0,
		.spawned_here = (how & CF_ARGV_SPAWNED_HERE) != 0,
		.landlock_abi = INT_MAX,
		.supervisor = true,
	};
	confine_clause *clauses = NULL;
	confine_unenforced u;
	size_t n = 0;
	int r;
	if (!ret || !policy)
		return -EINVAL;
	if ((r = cf_clauses_make(policy, &facts, &clauses, &n)) < 0)
		return r;
	memset(&u, 0, sizeof u);
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		bool found = false;
		for (size_t i = 0; i < n && !found; i++)
			found = strcmp(clauses[i].clause, keys[k].key) == 0 &&
			        counts(policy, keys[k].key, &clauses[i]);
		if (!found || u.n_keys >= CONFINE_UNENFORCED_MAX)
			continue;
		u.keys[u.n_keys++] = keys[k].key;
		u.partial = u.partial || keys[k].makes_partial;
	}
	u.keys[u.n_keys] = NULL;
	cf_clauses_free(clauses, n);
	*ret = u;
	return 0;
}

/* For an argv another process spawns: no placeholders, no inner layer. */
int confine_policy_unenforced(const confine_policy *policy, confine_runner runner,
                              confine_unenforced *ret) {
	return cf_policy_unenforced_for(policy, runner, 0, ret);
}
