/* SPDX-License-Identifier: MIT */
/*
 * The table of runners, in the spirit of libseccomp's `struct arch_def`:
 * each runner is described once, in its own file (runner-<name>.c), and
 * one row of the table (runners.c) lists it. Nothing outside a runner's
 * file names the runner: the provider, the ladder, the probes, spawn and
 * the CLI read its row, or the facts its row puts in the confined argv.
 *
 * Adding a runner: a value in confine_runner (confine.h), a
 * runner-<name>.c defining its `cf_runner_def`, its row in runners.c, and
 * the file in meson.build.
 */
#ifndef CONFINE_LOCAL_RUNNER_H
#define CONFINE_LOCAL_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* What a runner's hooks may read: the provider's configuration, captured
 * when the provider was made (never the environment at confine time). */
typedef struct cf_runner_env {
	const char *path;              /* searched for runners, absolute entries only */
	const char *launcher;          /* the project's launcher (landlock-run), absolute */
	/* The same, canonical (realpath when the provider was made); NULL when
	 * it does not resolve, with launcher_errno saying why. What was
	 * checked is what an argv names. */
	const char *launcher_real;
	int launcher_errno;
	bool launcher_configured;      /* named by the configuration, not the default */
	char *const *runner_command;   /* the operator's runner command, or NULL */
	char *const *runner_failure_signatures; /* its configured dialect */
	const char *tmpdir;            /* $TMPDIR, or NULL */
	double probe_timeout_ms;
} cf_runner_env;

/* Where a runner was found, once per provider. */
typedef struct cf_runner_program {
	/* The runner's part of the argv (program, then fixed arguments), [0]
	 * absolute and canonical where it resolves; NULL: nothing to run. */
	char **argv;
	/* Canonical path of argv[0], NULL when it does not resolve (it then
	 * fails closed at execution): a runner inside a writable area is
	 * refused for the calls that may write there. */
	char *real;
	/* Why there is nothing to run, as a runner-failure detail: a runner the
	 * configuration asks for that cannot be found (every confined call
	 * fails with it), or one found only where it cannot be trusted (the
	 * rung is unusable, and the ladder reports it); NULL otherwise. */
	char *not_found;
} cf_runner_program;

#define CF_RUNNER_FAILURE_MAX 512
/* Rows the table may hold. */
#define CF_RUNNER_MAX 8

typedef struct cf_runner_def {
	confine_runner id;
	const char *name;              /* confine_runner_name() */
	const char *title;             /* for messages: "Landlock" */
	/* The platform whose ladder holds this rung ("linux", "darwin"); the
	 * chain is the rows of that platform in table order. NULL: never a
	 * rung (and never pinned). */
	const char *platform;
	unsigned facts;                /* CONFINE_RUNNER_FACT_*, into every argv */
	/* Every argv of this row runs the project's launcher (landlock-run):
	 * the row's own program, or `inner` inside it. An argv for others
	 * then carries the launcher's `layers` as this host predicts them
	 * (launcher-forecast.h). */
	bool runs_launcher;
	/* The row run inside this one in its argv for others (the layered
	 * bwrap rung: the launcher from disk, bound at CF_LAUNCHER_INSIDE):
	 * its program (env->launcher_real) is checked as a runner, and its
	 * runner-failure rule follows this row's (doc/SPEC.md 6). NULL: none. */
	const struct cf_runner_def *inner;

	/* The dialect (SPEC 6): denial signatures and one runner-failure rule. */
	const char *const *denial_signatures;
	const int *allowed_exit_codes;
	size_t n_allowed_exit_codes;
	/* NULL: the operator's configured runner_failure_signatures. */
	const char *const *fatal_signatures;
	const char *const *informational_lines;

	/* Non-NULL for a runner the operator configures: when it says the
	 * configuration has one, that runner confines every call and the
	 * ladder and probes are skipped. */
	bool (*configured)(const cf_runner_env *env);
	/* Finds the program. 0 (ret->argv NULL when there is none) or -ENOMEM. */
	int (*locate)(const cf_runner_env *env, cf_runner_program *ret);
	/* The profile: the tokens between the program and "--" for a confined
	 * policy. The same generator serves the argv, the probe and the bench.
	 * 0, -EINVAL (a policy it cannot express), -ENOMEM. */
	int (*profile)(const confine_policy *policy, const cf_runner_env *env, char ***ret);
	/* For the runs the library spawns itself (doc/SPEC.md 12, 14): the
	 * argv up to and including the launcher's own arguments (the caller's
	 * "--" and command follow), run from the sealed in-memory launcher with
	 * a status channel; it sets the spawn fields of `c`. -ENOSYS: this
	 * host cannot (no in-memory launcher): the argv for others is used,
	 * judged by stderr. NULL: always that argv. */
	int (*spawn_profile)(const confine_policy *policy, const cf_runner_env *env,
	                     const cf_runner_program *program, confine_argv *c, char ***ret);
	/* Whether that argv still runs the located program (then checked as
	 * for others), or only the in-memory launcher (nothing on disk runs). */
	bool spawn_runs_program;
	/* A sole candidate is selected without a probe: whether it can be (a
	 * runner with nothing to run cannot) and with which enforcement. */
	bool (*select_unprobed)(const cf_runner_program *program, confine_enforcement *ret);
	/* The functional probe, bounded by env->probe_timeout_ms: true when it
	 * passes, with the enforcement achieved. A runner that exists but
	 * cannot be executed writes the runner-failure detail to `failure`. */
	bool (*probe)(const cf_runner_program *program, const cf_runner_env *env,
	              confine_enforcement *ret, char failure[CF_RUNNER_FAILURE_MAX]);
} cf_runner_def;

/* The rows, in ladder order, NULL-terminated (runners.c). */
extern const cf_runner_def *const cf_runners[] CONFINE_HIDDEN;

/* The row of `id`; NULL for CONFINE_RUNNER_NONE or a value with no row. */
const cf_runner_def *cf_runner_find(confine_runner id) CONFINE_HIDDEN;

/* "bwrap, landlock or seatbelt": the names of the rows a chain can be
 * pinned to, for messages. Static. */
const char *cf_runner_pinnable_names(void) CONFINE_HIDDEN;

/* Releases what locate() filled; the struct itself is the caller's. */
void cf_runner_program_clear(cf_runner_program *program) CONFINE_HIDDEN;

/* Helpers for the rows. */
/* A program vector of one copied string; NULL when out of memory. */
char **cf_runner_argv1(const char *program) CONFINE_HIDDEN;
/* Where a run the library spawns itself finds its status channel and, under
 * bwrap, its inner launcher (doc/SPEC.md 14). */
#define CF_STATUS_FD_AT 3
#define CF_LAUNCHER_FD_AT 4
/* Where the layered bwrap rung's argv for others binds the on-disk
 * launcher (read-only) and runs it: inside bwrap's own /dev (a tmpfs it
 * makes for every run, so the mount point never touches the host), after
 * every other mount so nothing covers it (doc/SPEC.md 5, 14). */
#define CF_LAUNCHER_INSIDE "/dev/.confine/landlock-run"
/* The launcher's own arguments for a run the library spawns itself:
 * "--status-fd 3", then `extra` (NULL-terminated, may be NULL), then the
 * Landlock grants of `policy`, appended to *strv. 0 or -errno. */
int cf_runner_launcher_args(const confine_policy *policy, const char *const *extra,
                            char ***strv) CONFINE_HIDDEN;
/* Replaces the argv's denial signatures with a copy of `denials` (an
 * in-process argv speaks more than the row's dialect: the Landlock layer,
 * the supervisor). 0 or -ENOMEM. */
int cf_runner_set_denials(confine_argv *c, const char *const *denials) CONFINE_HIDDEN;
/* The policy a probe runs: read-only with root "/". */
extern const confine_policy cf_runner_probe_policy CONFINE_HIDDEN;
/* Runs program->argv, the row's profile for cf_runner_probe_policy, "--",
 * then `command` (NULL-terminated), bounded; true when it exits 0. */
bool cf_runner_probe_profile(const cf_runner_def *def, const cf_runner_program *program,
                             const cf_runner_env *env, const char *const *command) CONFINE_HIDDEN;

#endif
