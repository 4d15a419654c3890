/* SPDX-License-Identifier: MIT */
/*
 * A report per clause (doc/SPEC.md 15): every clause of a resolved policy,
 * whether the rung holds it, by which layer, and when not, why and what on
 * the host would. One engine for every rung: what a rung holds of each
 * clause is its row's clause table (cf_rung_holds, rung.h), read here;
 * nothing in the engine names a rung. Pure but for the paths it resolves:
 * it reads the same plan as the generators, and the facts the local
 * provider knows about the run, so the report and the profile agree.
 */
#ifndef CONFINE_RUNGS_CLAUSES_H
#define CONFINE_RUNGS_CLAUSES_H

#include <stdbool.h>
#include <stddef.h>

#include "clause-list.h"
#include "util.h"

/* What the rung will apply, beyond its own profile. */
typedef struct cf_clause_facts {
	confine_runner runner;
	/* bwrap with the launcher inside it (doc/SPEC.md 14). */
	bool layered;
	/* An argv the library spawns itself (its stand-ins for missing
	 * protected paths, its before-and-after check of protected files). */
	bool spawned_here;
	/* The kernel's Landlock ABI, 0 or less when none. */
	int landlock_abi;
	/* The launcher will run its supervisor (seccomp user notification). */
	bool supervisor;
	/* The limits the run's own cgroup holds (bits 1u << confine_limit;
	 * runs the library spawns only, spawn/cgroup.h), and its kind
	 * ("cgroup v1"); the caller is root (RLIMIT_NPROC does not bind it). */
	unsigned cgroup_holds;
	const char *cgroup_kind;
	bool root;
} cf_clause_facts;

/* Every clause of `policy` (a confined, resolved policy) on the rung of
 * `facts`, in a fixed order (mode, writable roots, protected paths,
 * default protections, denyRead, network, unix sockets, env, temp area,
 * metadata, set-ID, devices, signals, abstract sockets, limits). 0 and *ret / *n
 * (free with cf_clauses_free), -EINVAL, -ENOMEM. */
int cf_clauses_make(const confine_policy *policy, const cf_clause_facts *facts,
                    confine_clause **ret, size_t *n) CONFINE_HIDDEN;

#endif
