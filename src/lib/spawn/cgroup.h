/* SPDX-License-Identifier: MIT */
/*
 * The run's own cgroup (doc/SPEC.md 15, "Limits"), for runs the library
 * spawns: found (cgroup v2 with a delegated subtree, else cgroup v1's pids
 * and memory hierarchies where they are writable), made before the child
 * starts, joined by the child before its exec (a write of "0" to
 * cgroup.procs: no allocation), read and removed after the run. Each is
 * named confine-run.<pid>.<n> and locked (flock) by its owner for the
 * run's life, so a later run removes only those whose owner is gone.
 * cgroup-linux.c; cgroup-other.c holds none.
 */
#ifndef CONFINE_SPAWN_CGROUP_H
#define CONFINE_SPAWN_CGROUP_H

#include <stdbool.h>

#include "util.h"

/* The basename prefix of a run's cgroup. */
#define CF_CGROUP_PREFIX "confine-run."

/* Which limits a cgroup of the run's own holds on this host: bits
 * (1u << CONFINE_LIMIT_PIDS, CONFINE_LIMIT_MEMORY); 0 where none can be
 * made. Looked up once per process. */
unsigned cf_cgroup_holds(void) CONFINE_HIDDEN;

/* "cgroup v2" or "cgroup v1" for the report; NULL where none. */
const char *cf_cgroup_kind(void) CONFINE_HIDDEN;

struct cf_cgroup;

/* Removes the cgroups of runs whose owner is gone (their lock is free,
 * flock), in every hierarchy where this host lets the library make one;
 * a live run's is never touched. Every run the library spawns calls it,
 * one that makes no cgroup of its own too. */
void cf_cgroup_sweep(void) CONFINE_HIDDEN;

/* Sweeps (cf_cgroup_sweep), then makes this run's with the policy's pids
 * and memory limits (the bits of `holds`); on cgroup v1 a memory cgroup
 * without a bound too when memory is not among them, for the peak. 0 and
 * *ret, or -errno. */
int cf_cgroup_make(const confine_policy *policy, unsigned holds, struct cf_cgroup **ret) CONFINE_HIDDEN;

/* The descriptors the child writes "0" to (cgroup.procs of each
 * hierarchy), close-on-exec. Returns how many (at most 2). */
size_t cf_cgroup_join_fds(const struct cf_cgroup *cgroup, int fds[2]) CONFINE_HIDDEN;

/* Kills every process the cgroup lists now, once (the run's leader has
 * ended: what is left of it). false where the list cannot be read whole. */
bool cf_cgroup_kill_members_now(const struct cf_cgroup *cgroup) CONFINE_HIDDEN;

/* After the run: what it used and whether a limit stopped it, into `o`;
 * kills what is left in it and removes it. */
void cf_cgroup_finish(struct cf_cgroup *cgroup, confine_outcome *o) CONFINE_HIDDEN;

/* Kills what is left, removes it (if not already) and frees. Accepts NULL. */
void cf_cgroup_free(struct cf_cgroup *cgroup) CONFINE_HIDDEN;

#endif
