/* SPDX-License-Identifier: MIT */
/*
 * A report per clause (doc/SPEC.md 15): every clause of a resolved policy,
 * whether the rung holds it, by which layer, and when not, why and what on
 * the host would. Pure: it reads the same plan as the generators, and the
 * facts the local provider knows about the rung, so the report and the
 * profile agree.
 */
#ifndef CONFINE_PROFILES_CLAUSES_H
#define CONFINE_PROFILES_CLAUSES_H

#include <stdbool.h>
#include <stddef.h>

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

/* Takes `layers` away from every clause (a layer the run did not apply);
 * a clause left with none becomes unenforced with `reason`. -ENOMEM. */
int cf_clauses_drop_layers(confine_clause *clauses, size_t n, unsigned layers,
                           const char *reason) CONFINE_HIDDEN;

/* The summary: each clause name not enforced, once, in clause order
 * (NULL when all hold). 0 or -ENOMEM. */
int cf_clauses_unenforced(const confine_clause *clauses, size_t n, char ***ret) CONFINE_HIDDEN;

/* The clauses not enforced, each name once with its subjects, or the
 * reason of one without a subject: "denyRead (/ws/.env),
 * defaultProtections (the walk's budget of ... ran out in /ws/x: ...)";
 * "" when all hold. Cut to fit `size`. */
void cf_clauses_describe_unenforced(const confine_clause *clauses, size_t n, char *out,
                                    size_t size) CONFINE_HIDDEN;

/* Whether every clause is enforced. */
bool cf_clauses_all_enforced(const confine_clause *clauses, size_t n) CONFINE_HIDDEN;

/* A deep copy. 0 or -ENOMEM. */
int cf_clauses_copy(const confine_clause *clauses, size_t n, confine_clause **ret) CONFINE_HIDDEN;

void cf_clauses_free(confine_clause *clauses, size_t n) CONFINE_HIDDEN;

#endif
