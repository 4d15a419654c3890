/* SPDX-License-Identifier: MIT */
/*
 * What the policy beyond mode and root asks of the spawner (doc/SPEC.md
 * 15), for a confined argv: the command's environment (confine_env_filter
 * and the temp area's TMPDIR), computed before the child is planned; the
 * removal of the run's private temp directory; and, around a
 * workspace-write run, the snapshot of what git reads there before it and
 * the diff after it (git hooks and settings it left).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "git-hazards.h"
#include "later.h"
#include "spawn/cgroup.h"
#include "spawn/spawn.h"

struct cf_policy_run {
	char *temp_dir;          /* the run's private temp dir, removed after it */
	struct cf_placeholders *placeholders; /* layered bwrap: made before, removed after */
	char **scan_roots;       /* workspace-write: the writable roots; else NULL */
	cf_git_snapshot *before; /* what git would read there, before the run */
	cf_later_snapshot *later_before; /* what runs later there (later.c), before it */
	struct cf_cgroup *cgroup; /* the run's own (limits), removed after it */
};

/* The limits the argv's report says the run's cgroup holds (the clause
 * report decided it, rungs/clauses-run.c): the spawner makes it so. */
static unsigned cgroup_limits(const confine_argv *c) {
	static const char prefix[] = "limits.";
	unsigned holds = 0;
	for (size_t i = 0; i < c->n_clauses; i++) {
		const confine_clause *clause = &c->clauses[i];
		confine_limit limit;
		if (!(clause->layers & CONFINE_LAYER_CGROUP) ||
		    strncmp(clause->clause, prefix, sizeof prefix - 1) != 0 ||
		    confine_limit_from_name(clause->clause + sizeof prefix - 1, &limit, NULL) < 0)
			continue;
		holds |= 1u << limit;
	}
	return holds;
}

static bool env_sets(const confine_policy *policy, const char *name) {
	size_t n = strlen(name);
	for (size_t i = 0; policy->env.set && policy->env.set[i]; i++)
		if (strncmp(policy->env.set[i], name, n) == 0 && policy->env.set[i][n] == '=')
			return true;
	return false;
}

/* NAME=VALUE replacing NAME in *env, or appended. */
static int env_put(char ***env, const char *name, const char *value) {
	size_t n = strlen(name);
	char *entry;
	if (asprintf(&entry, "%s=%s", name, value) < 0)
		return -ENOMEM;
	for (size_t i = 0; (*env)[i]; i++)
		if (strncmp((*env)[i], name, n) == 0 && (*env)[i][n] == '=') {
			free((*env)[i]);
			(*env)[i] = entry;
			return 0;
		}
	{
		int r = cf_strv_push(env, entry);
		free(entry);
		return r;
	}
}

/* What runs later under the roots, with the work trees and sub-projects
 * `walk` found; after the run, also those the walk before it found
 * (`before`), so an entry removed with its directory's mark still shows. */
static int take_later(const confine_policy *policy, char *const *roots,
                      const cf_git_snapshot *walk, const cf_git_snapshot *before,
                      cf_later_snapshot **ret) {
	char *const *marks[3] = { cf_git_snapshot_marks(walk), cf_git_snapshot_marks(before), NULL };
	if (!marks[0]) {
		marks[0] = marks[1];
		marks[1] = NULL;
	}
	return cf_later_snapshot_take(policy, roots, cf_git_snapshot_worktrees(walk), marks, ret);
}

int cf_policy_run_prepare(confine_process *p, const char *const *envp, char ***ret_envp,
                          confine_error *err) {
	confine_argv *c = p->confined;
	const confine_policy *policy;
	struct cf_policy_run *run;
	char **env = NULL;
	int r;

	*ret_envp = NULL;
	if (!c)
		return 0; /* danger-full-access: the environment unchanged */
	policy = &c->policy;
	if (!(run = calloc(1, sizeof *run)))
		goto oom;
	p->policy_run = run;
	if ((r = confine_env_filter(envp, &policy->env, policy->mode, &env)) < 0)
		goto oom;

	{
		/* The run's private temp area (doc/SPEC.md 15): a mount
		 * namespace's own /tmp (bwrap: workspace-write, or read-only with
		 * private_temp), else the temp_dir made for this run. TMPDIR names
		 * it, unless the caller set TMPDIR; the dir is removed after. */
		bool private_tmp = c->runner_facts & CONFINE_RUNNER_FACT_PRIVATE_TMP;
		const char *area = private_tmp && (policy->private_temp ||
		                                   policy->mode == CONFINE_MODE_WORKSPACE_WRITE)
		                       ? "/tmp"
		                   : policy->private_temp ? policy->temp_dir : NULL;
		if (policy->temp_dir && cf_temp_dir_is_ours(policy->temp_dir) &&
		    !(run->temp_dir = strdup(policy->temp_dir)))
			goto oom;
		if (area && !env_sets(policy, "TMPDIR") && env_put(&env, "TMPDIR", area) < 0)
			goto oom;
	}
	/* The run's own cgroup: made (and dead runs' swept) before the child
	 * exists; a limit the report says it holds is never run without it. */
	{
		unsigned holds = cgroup_limits(c);
		/* A dead run's cgroup goes with the next run, whether or not
		 * that run makes one (issue 30: a next run with the pids limit
		 * lifted left it). */
		if (!holds)
			cf_cgroup_sweep();
		if (holds && (r = cf_cgroup_make(policy, holds, &run->cgroup)) < 0) {
			confine_strv_free(env);
			return cf_error_set(err, -r, CONFINE_E_SYSTEM, "spawn", -r,
			                    "cannot make the run's cgroup (%s) for its limits: %s",
			                    cf_cgroup_kind() ? cf_cgroup_kind() : "none", strerror(-r));
		}
	}
	/* An argv that binds placeholders for protected paths that do not
	 * exist yet (the layered bwrap rung's): they are made before the
	 * snapshot below, so both walks see them alike. */
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE &&
	    (c->spawn_flags & CONFINE_SPAWN_PLACEHOLDERS)) {
		if ((r = cf_placeholders_make(c, &run->placeholders, err)) < 0) {
			confine_strv_free(env);
			return r;
		}
	}
	if (policy->mode == CONFINE_MODE_WORKSPACE_WRITE && policy->workspace_root) {
		if (cf_strv_push(&run->scan_roots, policy->workspace_root) < 0)
			goto oom;
		for (size_t i = 0; policy->writable_roots && policy->writable_roots[i]; i++)
			if (cf_strv_push(&run->scan_roots, policy->writable_roots[i]) < 0)
				goto oom;
		/* Taken before the command exists, so everything it does is
		 * after it; compared with a second walk once its tree is gone. */
		if ((r = cf_git_snapshot_take(run->scan_roots, &run->before)) < 0 ||
		    (r = take_later(policy, run->scan_roots, run->before, NULL,
		                    &run->later_before)) < 0)
			goto oom;
	}
	*ret_envp = env;
	return 0;
oom:
	confine_strv_free(env);
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "spawn", ENOMEM, "out of memory");
}

static void remove_temp(struct cf_policy_run *run) {
	if (run->temp_dir) {
		cf_temp_dir_remove(run->temp_dir);
		free(run->temp_dir);
		run->temp_dir = NULL;
	}
}

static int add_unenforced(confine_outcome *o, const char *key) {
	for (size_t i = 0; o->unenforced && o->unenforced[i]; i++)
		if (strcmp(o->unenforced[i], key) == 0)
			return 0;
	return cf_strv_push(&o->unenforced, key);
}

void cf_policy_run_plan(const confine_process *p, struct cf_child_plan *plan) {
	const struct cf_policy_run *run = p->policy_run;
	if (!run || !run->cgroup)
		return;
	plan->n_cgroup = cf_cgroup_join_fds(run->cgroup, plan->cgroup_fd);
	/* ours: never taken for a closed standard stream of the caller's */
	for (size_t i = 0; i < plan->n_cgroup; i++)
		plan->internal_fds[plan->n_internal++] = plan->cgroup_fd[i];
}

bool cf_policy_run_kill_rest(const confine_process *p) {
	const struct cf_policy_run *run = p->policy_run;
	/* Only a confined command cannot leave its cgroup (doc/SPEC.md 15):
	 * cgroupfs is read-only inside bwrap and never granted by Landlock. */
	return run && run->cgroup && p->confined &&
	       confine_mode_is_confined(p->confined->policy.mode) &&
	       cf_cgroup_kill_members_now(run->cgroup);
}

/* The CPU limit's end (RLIMIT_CPU, the launcher): SIGXCPU at the bound, or
 * SIGKILL at the hard bound a second later with the time spent. */
static void note_cpu_limit(const confine_policy *policy, confine_outcome *o) {
	uint64_t bound = policy->limits[CONFINE_LIMIT_CPU_SECONDS];
	if (!bound || o->limit_stopped || !o->signaled)
		return;
	if (o->signal == SIGXCPU || (o->signal == SIGKILL && o->cpu_seconds >= (double)bound)) {
		o->limit_stopped = true;
		o->limit_killed = true;
		o->limit = CONFINE_LIMIT_CPU_SECONDS;
		o->limit_value = bound;
	}
}

int cf_policy_run_finish(confine_process *p, confine_outcome *o) {
	struct cf_policy_run *run = p->policy_run;
	int r = 0;
	if (!run)
		return 0;
	/* The tree is gone: the cgroup's figures are the run's whole. */
	if (run->cgroup) {
		cf_cgroup_finish(run->cgroup, o);
		cf_cgroup_free(run->cgroup);
		run->cgroup = NULL;
	}
	if (p->confined)
		note_cpu_limit(&p->confined->policy, o);
	/* The run's tree is gone (the leader's end killed what was left), so
	 * nothing writes behind the scan. */
	if (run->scan_roots) {
		cf_git_snapshot *after = NULL;
		cf_later_snapshot *later_after = NULL;
		r = cf_git_snapshot_take(run->scan_roots, &after);
		if (r == 0)
			r = cf_git_snapshot_diff(run->before, after, &o->git_hazards, &o->n_git_hazards);
		/* What runs later, changed where the rung could not hold it
		 * (Landlock), or behind bwrap's mounts: "planted". */
		if (r == 0 && p->confined &&
		    (r = take_later(&p->confined->policy, run->scan_roots, after, run->before,
		                    &later_after)) == 0)
			r = cf_later_snapshot_diff(run->later_before, later_after, &o->git_hazards,
			                           &o->n_git_hazards);
		cf_later_snapshot_free(later_after);
		cf_later_snapshot_free(run->later_before);
		run->later_before = NULL;
		cf_git_snapshot_free(after);
		cf_git_snapshot_free(run->before);
		run->before = NULL;
		confine_strv_free(run->scan_roots);
		run->scan_roots = NULL;
	}
	if (run->placeholders && r == 0) {
		bool explicit_replaced, default_replaced;
		cf_placeholders_replaced(run->placeholders, &explicit_replaced, &default_replaced);
		/* Replaced on the host during the run: its mount was gone from
		 * then on (doc/SPEC.md 15). */
		if (explicit_replaced && (r = add_unenforced(o, "protectedPaths")) == 0)
			o->enforcement = CONFINE_ENFORCEMENT_PARTIAL;
		if (r == 0 && default_replaced)
			r = add_unenforced(o, "defaultProtections");
	}
	cf_placeholders_release(run->placeholders);
	run->placeholders = NULL;
	remove_temp(run);
	return r;
}

void cf_policy_run_release(confine_process *p) {
	struct cf_policy_run *run = p->policy_run;
	if (!run)
		return;
	remove_temp(run);
	cf_cgroup_free(run->cgroup);
	cf_placeholders_release(run->placeholders);
	confine_strv_free(run->scan_roots);
	cf_git_snapshot_free(run->before);
	cf_later_snapshot_free(run->later_before);
	free(run);
	p->policy_run = NULL;
}
