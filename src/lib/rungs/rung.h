/* SPDX-License-Identifier: MIT */
/*
 * The table of rungs, in the spirit of libseccomp's `struct arch_def`:
 * each rung is one folder, src/lib/rungs/<rung>/, and one row of the table
 * (rungs.c) lists it. A folder holds
 *   rung.c   its row (cf_runner_def): where its program is, its dialect
 *            (denial signatures, the runner-failure rule), its probe;
 *   argv.c   its argv builder (the profile; runner-command reuses bwrap's);
 *   holds.c  its clause table (cf_rung_holds): what it holds of each
 *            clause of doc/SPEC.md 15, by which layer, and why not.
 * Nothing outside the rung folders and the table names a rung (the lint
 * test `no rung named outside its folder` checks it): the provider, the
 * ladder, the clause engine (clauses.c), spawn and the CLI read rows, or
 * the facts a row puts in the confined argv.
 *
 * Adding a rung: a value in confine_runner (confine.h), its folder with a
 * `cf_runner_def` and a `cf_rung_holds`, its row in rungs.c, and its files
 * in rungs/meson.build.
 */
#ifndef CONFINE_RUNGS_RUNG_H
#define CONFINE_RUNGS_RUNG_H

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

/* A clause a rung may leave open: why (a sentence of the report's
 * `reason`), and what on the host would hold it (`needs`; NULL: nothing
 * named). */
typedef struct cf_rung_gap {
	const char *needs;
	const char *why;
} cf_rung_gap;

/* Whether the rung's argv runs the launcher (landlock-run): its Landlock
 * ruleset, seccomp filter, supervisor and rlimits. */
typedef enum cf_rung_launcher {
	CF_RUNG_NO_LAUNCHER,
	CF_RUNG_LAUNCHER_INSIDE, /* inside the rung, when the facts say layered */
	CF_RUNG_IS_LAUNCHER,     /* the rung's program is the launcher */
} cf_rung_launcher;

/* How a rung holds protectedPaths and defaultProtections inside a
 * writable root. */
typedef enum cf_rung_hold {
	CF_RUNG_HOLDS_NOT,   /* left open: the gap says why */
	CF_RUNG_HOLDS_OWN,   /* by its own layer (a profile that says so) */
	CF_RUNG_HOLDS_BINDS, /* by read-only binds over the plan (binds_layer) */
} cf_rung_hold;

/* Where a rung's temp area is. */
typedef enum cf_rung_temp {
	CF_RUNG_TEMP_TMPFS,   /* a private /tmp of its own mount namespace */
	CF_RUNG_TEMP_RUN_DIR, /* the run's own directory (temp_dir), granted */
} cf_rung_temp;

struct cf_plan;
struct cf_clause_facts;

/* A rung's clause table (doc/SPEC.md 15): one const row per rung, in its
 * folder's holds.c; the clause engine (clauses.c) reads its fields and
 * the facts of the run (Landlock ABI, supervisor, cgroup), and names no
 * rung. Layers are CONFINE_LAYER_* bits. */
typedef struct cf_rung_holds {
	/* Its own layer: what holds the mode's file rules. */
	unsigned layer;
	cf_rung_launcher launcher;
	/* A mount namespace of its own (the bwrap profile): read-only binds
	 * over protected paths, masks over denyRead names (a save on the
	 * host detaches either), a private /tmp. The layer named for what the
	 * binds hold; 0: none. */
	unsigned binds_layer;
	/* Its file rules are Landlock's: an ABI below 5 leaves `mode`
	 * partial (mode_gap.needs says what would hold it). */
	bool landlock_files;
	cf_rung_gap mode_gap;
	/* Its own runs (spawned by the library) bind stand-ins for missing
	 * protected paths and compare their identity after the run. */
	bool placeholders;

	/* protectedPaths inside a writable root. */
	cf_rung_hold protect;
	cf_rung_gap protect_gap;
	/* defaultProtections: each repository's git surface, and when the
	 * walk found none (none_gap.why NULL: nothing said). */
	cf_rung_hold defaults;
	cf_rung_gap defaults_gap, defaults_none_gap;
	/* denyRead: whether an existing, canonical entry stays readable (a
	 * rung that cannot take read access away there); NULL: never. */
	bool (*deny_read_open)(const confine_policy *policy, const struct cf_plan *plan,
	                       const char *real);
	cf_rung_gap deny_read_gap;
	/* With binds: the start of the reason of a name-held mask. */
	const char *deny_by_name;

	/* A staged run (doc/SPEC.md 21) where the launcher holds it: how, the
	 * stage clause's reason (NULL: the generic one). */
	const char *stage_how;

	/* network: the allowlist without the launcher (needs), and whether
	 * the network off is the launcher's seccomp filter (and its refusing
	 * proxy) rather than the rung's own layer. */
	const char *allowlist_needs;
	/* An allowlist is refused on this rung (INVALID_POLICY naming it),
	 * not run without its proxy. */
	bool allowlist_refused;
	bool network_off_by_launcher;
	/* The layers that hold unix-sockets with the launcher's supervisor,
	 * beyond it; those that hold it without one (0: nothing does). */
	unsigned unix_with_supervisor, unix_alone;
	cf_rung_gap unix_gap;

	/* privateTemp. */
	cf_rung_temp temp;
	/* No mount namespace: workspace-write grants the host's /dev/shm
	 * (shared), read-only grants none. */
	bool host_dev_shm;
	/* workspace-write shares the host's temp directories (why non-NULL:
	 * then privateTemp is unenforced). */
	cf_rung_gap temp_shared_gap;

	/* The mechanisms: the layers holding metadata alone (0: the
	 * supervisor, else metadata_gap); devices (and the supervisor too);
	 * what the launcher inside would need (setid, limits). */
	unsigned metadata;
	cf_rung_gap metadata_gap;
	unsigned devices;
	bool devices_supervisor;
	const char *launcher_needs;
	/* signals and abstract-unix-sockets: listed at all; the layers that
	 * hold signals alone (0: Landlock's scope, else signals_needs), and
	 * abstract sockets with the network off (a network namespace of its
	 * own, unless the launcher hosts the allowlist). */
	bool scopes;
	unsigned signals;
	const char *signals_needs;
	unsigned abstract_off;
	const char *abstract_needs;
	/* limits.temp: the layer of the launcher's sized tmpfs over the temp
	 * area (0: none on this rung; limit_temp_gap says what would hold
	 * it), and whether that needs the run's own temp directory (an argv
	 * for others has none) and, for a caller without CAP_SYS_ADMIN, a user
	 * namespace (src/launcher/temp-mount.c). */
	cf_rung_gap limit_temp_gap;
	unsigned limit_temp_sized;
	bool limit_temp_own_dir;
	/* The spawner's cgroup does not hold what runs (the rung's runtime
	 * moves the sandbox into a cgroup of its own): the facts'
	 * cgroup_holds do not apply. */
	bool spawner_cgroup_outside;
	/* After the engine, the rung's own words on what it holds otherwise
	 * than the fields say (a rung that applies another's plan by other
	 * means): it may change the status, layers, reason and needs of
	 * clauses[0 .. n). NULL: none. 0 or -ENOMEM. */
	int (*refine)(const confine_policy *policy, const struct cf_clause_facts *facts,
	              confine_clause *clauses, size_t n);
} cf_rung_holds;

#define CF_RUNNER_FAILURE_MAX 512
/* Rows the table may hold. */
#define CF_RUNNER_MAX 8

struct cf_clause_facts;
struct confine_clause;

/* bubblewrap 0.8's bound (MAX_ARGS in bubblewrap.c, parse_args_recurse):
 * more than this many arguments after argv[0] (its options, the command
 * and the command's own arguments, and every token read through --args
 * too) and bwrap exits "Exceeded maximum number of arguments 9000". */
#define CF_BWRAP_ARGS_MAX 9000

typedef struct cf_runner_def {
	confine_runner id;
	const char *title;             /* for messages: "Landlock" */
	/* The platform whose ladder holds this rung ("linux", "darwin"); the
	 * chain is the rows of that platform in table order. NULL: never a
	 * rung (and never pinned). */
	const char *platform;
	/* Pinnable on its platform, never in its natural chain (gVisor:
	 * doc/SPEC.md 22). */
	bool pin_only;
	/* The most arguments after argv[0] the row's program takes (bwrap:
	 * CF_BWRAP_ARGS_MAX); an argv past it is refused before anything runs
	 * (local/policy-check.h). 0: no bound of its own. */
	size_t args_max;
	/* What an argv past args_max is made of and what to do, appended to
	 * its refusal after the count (" (...); unprotect entries ...");
	 * NULL: the count alone. */
	void (*args_tally)(const confine_argv *c, char *buf, size_t size);
	unsigned facts;                /* CONFINE_RUNNER_FACT_*, into every argv */
	/* Every argv of this row runs the project's launcher (landlock-run):
	 * the row's own program, or `inner` inside it. An argv for others
	 * then carries the launcher's `layers` as this host predicts them
	 * (rungs/landlock/forecast.h). */
	bool runs_launcher;
	/* The row run inside this one in its argv for others (the layered
	 * bwrap rung: the launcher from disk, bound at CF_LAUNCHER_INSIDE):
	 * its program (env->launcher_real) is checked as a runner, and its
	 * runner-failure rule follows this row's (doc/SPEC.md 6). NULL: none. */
	const struct cf_runner_def *inner;
	/* Its clause table (holds.c). */
	const cf_rung_holds *holds;

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

/* The rows, in ladder order, NULL-terminated (rungs.c). */
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
/* And, for a policy with network.ask, the ask socket: CF_ASK_FD_AT, the
 * spawner's (spawn/spawn.h; doc/SPEC.md 15). */
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

/* confine_policy_unenforced() for an argv of `runner` made `how`: with
 * CF_ARGV_INNER_LAYER, the row's `inner` runs inside it (bwrap: the
 * launcher, whose Landlock rules follow inodes: a denyRead outside the
 * writable roots then holds when the host saves over the name); with CF_ARGV_SPAWNED_HERE, the
 * library spawns it itself: its spawner makes the placeholders and notices
 * a protected path replaced on the host (doc/SPEC.md 15). 0: an argv for
 * another process, the row alone. policy-unenforced.c. */
#define CF_ARGV_INNER_LAYER (1u << 0)
#define CF_ARGV_SPAWNED_HERE (1u << 1)
/* The library's spawner runs it (either rung): it makes the run's own
 * cgroup where the host lets it (doc/SPEC.md 15, "Limits"). */
#define CF_ARGV_OWN_CGROUP (1u << 2)
int cf_policy_unenforced_for(const confine_policy *policy, confine_runner runner, unsigned how,
                             confine_unenforced *ret) CONFINE_HIDDEN;

#endif
