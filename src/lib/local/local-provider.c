/* SPDX-License-Identifier: MIT */
/*
 * The local provider (SPEC 4): configuration and its validation, the ladder
 * wired to the runners' probes, and building the confined argv of the
 * chosen runner from its row (runner.h): its program, its profile, its
 * dialect (SPEC 6) and its facts. Portable, and it names no runner: what a
 * runner is lives in its folder, src/lib/rungs/<rung>/, what is OS-specific in the
 * probe-<os>.c file Meson picks.
 */
#include "local/local-provider.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "rungs/landlock/forecast.h"
#include "local/policy-check.h"
#include "rungs/probe.h"
#include "rungs/rung.h"
#include "path.h"
#include "provider-internal.h"
#include "policy-internal.h"

typedef struct local_provider {
	/* The configuration the runners read, pointing into the copies below. */
	cf_runner_env env;
	char **runner_command;        /* NULL: not configured */
	char **signatures;            /* with runner_command */
	char *launcher;               /* landlock-run, absolute */
	char *launcher_real;          /* the same, canonical; NULL when it does not resolve */
	char *path;                   /* searched for runners */
	char *tmpdir;                 /* $TMPDIR when made, or NULL */
	char *platform;               /* whose chain */
	confine_runner pin;
	/* Where each row's runner was found, by its index in cf_runners. */
	cf_runner_program programs[CF_RUNNER_MAX];
	/* The operator's runner when one is configured: it confines every call. */
	const cf_runner_def *operator_runner;
	cf_ladder_hooks hooks;        /* the ladder's, kept for the real ones' ctx */
	cf_ladder ladder;
	bool ladder_ready;
	/* Why a probed runner could not even be executed (written under the
	 * ladder's lock while probing, read after the verdict): "" when none. */
	char runner_failure[CF_RUNNER_FAILURE_MAX];
	/* What each rung said when a run the library spawned failed on it
	 * before its command started, joined by "; " in ladder order. */
	pthread_mutex_t spawn_lock;
	char spawn_failures[CF_RUNNER_FAILURE_MAX * 2];
} local_provider;

static cf_runner_program *program_of(local_provider *lp, const cf_runner_def *def) {
	for (size_t i = 0; cf_runners[i]; i++)
		if (cf_runners[i] == def)
			return &lp->programs[i];
	return NULL;
}

/* ---- the default launcher ---- */

static char default_launcher[PATH_MAX];
static pthread_once_t default_launcher_once = PTHREAD_ONCE_INIT;

static void compute_default_launcher(void) {
	const char *chosen = CONFINE_INSTALLED_LAUNCHER;
	Dl_info info;

	/* A library loaded from its own build tree (tests, a developer's run)
	 * uses the launcher built next to it, not a possibly stale or absent
	 * installed one. */
	{
		/* No answer from dladdr: a statically linked executable (the
		 * confine command, src/cli/meson.build), which is then the object;
		 * so is a relative name (the main executable's argv[0], which the
		 * cwd may no longer resolve). Linux names it exactly. */
		bool named = dladdr((void *)confine_default_landlock_launcher, &info) &&
		             info.dli_fname && info.dli_fname[0];
		char *root = realpath(CONFINE_BUILD_ROOT, NULL);
		char *object = NULL;
		if (!named || info.dli_fname[0] != '/')
			object = realpath("/proc/self/exe", NULL);
		if (!object && named)
			object = realpath(info.dli_fname, NULL);
		if (root && object) {
			size_t n = strlen(root);
			if (strncmp(object, root, n) == 0 && object[n] == '/')
				chosen = CONFINE_BUILD_LAUNCHER;
		}
		free(root);
		free(object);
	}
	snprintf(default_launcher, sizeof default_launcher, "%s", chosen);
}

const char *confine_default_landlock_launcher(void) {
	pthread_once(&default_launcher_once, compute_default_launcher);
	return default_launcher;
}

/* ---- the real ladder hooks ---- */

/* The row of a rung this host can run at all: one whose mechanism cannot
 * exist here (seatbelt pinned on Linux, say) has nothing that could run. */
static const cf_runner_def *host_rung(confine_runner rung) {
	const cf_runner_def *def = cf_runner_find(rung);
	if (!def || !def->platform || strcmp(def->platform, cf_host_platform()) != 0)
		return NULL;
	return def;
}

/* A rung with nothing it may run (a bwrap found only where others could
 * have planted it) says why: the verdict's runner failure, and on the
 * optimistic ladder its place among the rungs' details (doc/SPEC.md 2, 4).
 * Called under the ladder's lock. */
static void note_unrunnable(local_provider *lp, const cf_runner_program *prog) {
	if (!prog || !prog->not_found)
		return;
	snprintf(lp->runner_failure, sizeof lp->runner_failure, "%s", prog->not_found);
	pthread_mutex_lock(&lp->spawn_lock);
	if (!strstr(lp->spawn_failures, prog->not_found)) {
		size_t n = strlen(lp->spawn_failures);
		snprintf(lp->spawn_failures + n, sizeof lp->spawn_failures - n, "%s%s",
		         n ? "; " : "", prog->not_found);
	}
	pthread_mutex_unlock(&lp->spawn_lock);
}

static bool real_select_unprobed(void *ctx, confine_runner rung, confine_enforcement *ret) {
	local_provider *lp = ctx;
	const cf_runner_def *def = host_rung(rung);
	bool selected;
	if (!def || !def->select_unprobed)
		return false;
	selected = def->select_unprobed(program_of(lp, def), ret);
	if (!selected)
		note_unrunnable(lp, program_of(lp, def));
	return selected;
}

static bool real_probe(void *ctx, confine_runner rung, confine_enforcement *ret) {
	local_provider *lp = ctx;
	const cf_runner_def *def = host_rung(rung);
	char failure[CF_RUNNER_FAILURE_MAX] = "";
	bool passed;
	if (!def || !def->probe)
		return false;
	passed = def->probe(program_of(lp, def), &lp->env, ret, failure);
	if (failure[0])
		memcpy(lp->runner_failure, failure, sizeof lp->runner_failure);
	else if (!passed)
		note_unrunnable(lp, program_of(lp, def));
	return passed;
}

/* ---- building the confined argv ---- */

static int set_rule(confine_rule *rule, const int *codes, size_t n_codes,
                    const char *const *fatal, const char *const *informational) {
	if (n_codes) {
		rule->allowed_exit_codes = malloc(n_codes * sizeof *codes);
		if (!rule->allowed_exit_codes)
			return -ENOMEM;
		memcpy(rule->allowed_exit_codes, codes, n_codes * sizeof *codes);
		rule->n_allowed_exit_codes = n_codes;
	}
	rule->fatal_signatures = cf_strv_copy(fatal);
	if (!rule->fatal_signatures)
		return -ENOMEM;
	if (informational) {
		rule->informational_lines = cf_strv_copy(informational);
		if (!rule->informational_lines)
			return -ENOMEM;
	}
	return 0;
}

static int push_all(char ***strv, const char *const *items) {
	for (size_t i = 0; items && items[i]; i++) {
		int r = cf_strv_push(strv, items[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* Every runner run from disk is trusted the same way (doc/SPEC.md 14): it
 * and every directory above it belong to root or the caller, and no one
 * else may write them; otherwise someone else chose what runs. Then it
 * must not lie where the call lets the command write. `real` NULL: not
 * checked (it fails closed at execution). */
static int check_trusted(const cf_runner_def *def, const char *real, const confine_policy *policy,
                         confine_error *err) {
	if (real) {
		char why[PATH_MAX + 64], detail[2 * PATH_MAX + 128];
		if (!cf_path_trusted(real, why, sizeof why)) {
			snprintf(detail, sizeof detail, "runner %s is not trusted: %s; refusing to run it",
			         real, why);
			return confine_error_sandbox_unavailable(err, policy->mode, detail);
		}
	}
	return cf_policy_check_runner_place(def, real, policy, err);
}

/* Refuses a runner that a confined command could have replaced: one the
 * configuration names but that cannot be found, one that is not there, and
 * one inside an area the call's mode lets the command write
 * (policy-check.c). 0 when it may run. */
static int check_runner(const cf_runner_def *def, const cf_runner_program *prog,
                        const confine_policy *policy, confine_error *err) {
	if (prog->not_found)
		return cf_policy_rung_unavailable(def, policy, "cannot run here", prog->not_found, err);
	if (!prog->argv || !prog->argv[0])
		/* Never hand back an argv without its runner. */
		return confine_error_sandbox_unavailable(err, policy->mode, NULL);
	return check_trusted(def, prog->real, policy, err);
}

/* The launcher an argv for others runs inside its runner (the layered
 * bwrap rung) is a runner from disk too: it must be there, trusted, and
 * outside what the call lets the command write. */
static int check_inner_launcher(const local_provider *lp, const cf_runner_def *def,
                                const confine_policy *policy, confine_error *err) {
	if (!def->inner)
		return 0;
	if (!lp->env.launcher_real) {
		char detail[PATH_MAX + 128];
		snprintf(detail, sizeof detail, "launcher %s cannot be found: %s", lp->launcher,
		         strerror(lp->env.launcher_errno));
		return confine_error_sandbox_unavailable(err, policy->mode, detail);
	}
	return check_trusted(def, lp->env.launcher_real, policy, err);
}

/* The facts and dialect of the row, and the policy, into `c`. */
static int describe(const local_provider *lp, const cf_runner_def *def,
                    confine_enforcement enforcement, const confine_policy *policy,
                    confine_argv *c) {
	const char *const *fatal = def->fatal_signatures ? def->fatal_signatures
	                                                 : (const char *const *)lp->signatures;
	c->runner = def->id;
	c->runner_facts = def->facts;
	c->enforcement = enforcement;
	if (cf_policy_copy_into(&c->policy, policy) < 0)
		return -ENOMEM;
	c->denial_signatures = cf_strv_copy(def->denial_signatures);
	/* The row's rule, then the rule of the row run inside it (doc/SPEC.md
	 * 6: either may fail before the command runs). */
	c->rules = calloc(def->inner ? 2 : 1, sizeof *c->rules);
	if (!c->denial_signatures || !c->rules)
		return -ENOMEM;
	c->n_rules = 1;
	if (set_rule(&c->rules[0], def->allowed_exit_codes, def->n_allowed_exit_codes, fatal,
	             def->informational_lines) < 0)
		return -ENOMEM;
	if (def->inner) {
		c->n_rules = 2;
		return set_rule(&c->rules[1], def->inner->allowed_exit_codes,
		                def->inner->n_allowed_exit_codes, def->inner->fatal_signatures,
		                def->inner->informational_lines);
	}
	return 0;
}

static int build(local_provider *lp, const cf_runner_def *def, confine_enforcement enforcement,
                 const char *const *argv, const confine_policy *policy, bool for_spawn,
                 confine_argv **ret, confine_error *err) {
	const cf_runner_program *prog = program_of(lp, def);
	confine_argv *c = NULL;
	char **profile = NULL;
	bool in_memory = for_spawn && def->spawn_profile;
	int r;

	if ((r = cf_policy_check_roots_for_rung(def, policy, err)) < 0 ||
	    (r = cf_policy_check_allowlist_for_rung(def, policy, err)) < 0)
		return r;

	/* A run from the in-memory launcher alone runs nothing on disk. */
	if ((!in_memory || def->spawn_runs_program) && (r = check_runner(def, prog, policy, err)) < 0)
		return r;
	if (in_memory) {
		c = calloc(1, sizeof *c);
		if (!c || describe(lp, def, enforcement, policy, c) < 0)
			goto oom;
		/* the layered argv the library spawns: the launcher inside bwrap,
		 * the spawner's placeholders (doc/SPEC.md 14, 15) */
		/* and the run's own cgroup, on either rung (spawn/cgroup.h) */
		if ((r = cf_policy_apply_unenforced(
			     def, policy,
			     CF_ARGV_OWN_CGROUP | CF_ARGV_SPAWNED_HERE |
			             (def->inner ? CF_ARGV_INNER_LAYER : 0),
			     c, err)) < 0) {
			confine_argv_free(c);
			return r;
		}
		r = def->spawn_profile(policy, &lp->env, prog, c, &profile);
		/* A runner exec'd from disk after all (a launcher the operator
		 * configured) is checked as for others. */
		if (r == 0 && !def->spawn_runs_program && !(c->spawn_flags & CONFINE_SPAWN_EXEC_FD) &&
		    (r = check_runner(def, prog, policy, err)) < 0) {
			confine_strv_free(profile);
			confine_argv_free(c);
			return r;
		}
		if (r == 0) {
			/* the runner's part and its own arguments, "--", the command */
			if (push_all(&c->argv, (const char *const *)profile) < 0 ||
			    cf_strv_push(&c->argv, "--") < 0 || push_all(&c->argv, argv) < 0)
				goto oom;
			c->argc = cf_strv_length((const char *const *)c->argv);
			confine_strv_free(profile);
			if ((r = cf_policy_check_args_max(def, c, err)) < 0) {
				confine_argv_free(c);
				return r;
			}
			*ret = c;
			return 0;
		}
		confine_argv_free(c);
		c = NULL;
		if (r == -ENOMEM)
			goto oom;
		if (r != -ENOSYS)
			return cf_policy_profile_error(def, policy, r, err);
		/* no in-memory launcher on this host: the argv for others */
		if (!def->spawn_runs_program && (r = check_runner(def, prog, policy, err)) < 0)
			return r;
	}
	if ((r = check_inner_launcher(lp, def, policy, err)) < 0)
		return r;
	r = def->profile(policy, &lp->env, &profile);
	if (r < 0)
		return cf_policy_profile_error(def, policy, r, err);
	c = calloc(1, sizeof *c);
	if (!c || describe(lp, def, enforcement, policy, c) < 0)
		goto oom;
	/* What the rung leaves out of the policy (clause by clause), then what
	 * the launcher it runs will apply here: no status channel will say it
	 * (doc/SPEC.md 10, 14, 15). */
	if ((r = cf_policy_apply_unenforced(def, policy,
	                                      def->runs_launcher && def->inner
	                                              ? CF_ARGV_INNER_LAYER
	                                              : 0,
	                                      c, err)) < 0 ||
	    (def->runs_launcher && (r = cf_launcher_forecast_apply(def, policy, c, err)) < 0) ||
	    (r = cf_policy_summary_from_clauses(c, err)) < 0) {
		confine_strv_free(profile);
		confine_argv_free(c);
		return r;
	}
	/* runner program, its profile, "--", then the caller's argv unchanged */
	if (push_all(&c->argv, (const char *const *)prog->argv) < 0 ||
	    push_all(&c->argv, (const char *const *)profile) < 0 || cf_strv_push(&c->argv, "--") < 0 ||
	    push_all(&c->argv, argv) < 0)
		goto oom;
	c->argc = cf_strv_length((const char *const *)c->argv);
	confine_strv_free(profile);
	if ((r = cf_policy_check_args_max(def, c, err)) < 0) {
		confine_argv_free(c);
		return r;
	}
	*ret = c;
	return 0;
oom:
	confine_strv_free(profile);
	confine_argv_free(c);
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
}

/* ---- provider ops ---- */

static int local_confine(void *data, const char *const *argv, const confine_policy *policy,
                         confine_argv **ret, confine_error *err) {
	local_provider *lp = data;
	cf_ladder_choice choice;

	if (lp->operator_runner)
		/* The operator's assertion: ladder and probes are skipped. */
		return build(lp, lp->operator_runner, CONFINE_ENFORCEMENT_FULL, argv, policy, false, ret,
		             err);
	choice = cf_ladder_select(&lp->ladder);
	if (!choice.usable || !cf_runner_find(choice.runner))
		/* A runner that exists but cannot be executed is reported as the
		 * runner failure it is; otherwise nothing here can confine. */
		return cf_policy_rung_unavailable(cf_runner_find(lp->pin), policy, "cannot run here",
		                                  lp->runner_failure[0] ? lp->runner_failure : NULL, err);
	return build(lp, cf_runner_find(choice.runner), choice.enforcement, argv, policy, false, ret,
	             err);
}

/* Runs the library spawns itself: the optimistic ladder (doc/SPEC.md 17),
 * no probe; a rung whose run fails before its command starts is left for
 * the next. */
static int local_confine_for_spawn(void *data, const char *const *argv,
                                   const confine_policy *policy, confine_argv **ret,
                                   confine_error *err) {
	local_provider *lp = data;
	cf_ladder_choice choice;

	if (lp->operator_runner)
		return build(lp, lp->operator_runner, CONFINE_ENFORCEMENT_FULL, argv, policy, true, ret,
		             err);
	choice = cf_ladder_optimistic_excluding(&lp->ladder, cf_spawn_excluded_runners);
	if (!choice.usable || !cf_runner_find(choice.runner)) {
		char detail[sizeof lp->spawn_failures];
		pthread_mutex_lock(&lp->spawn_lock);
		memcpy(detail, lp->spawn_failures, sizeof detail);
		pthread_mutex_unlock(&lp->spawn_lock);
		if (!detail[0] && lp->runner_failure[0])
			snprintf(detail, sizeof detail, "%s", lp->runner_failure);
		return cf_policy_rung_unavailable(cf_runner_find(lp->pin), policy, "cannot run here",
		                                  detail[0] ? detail : NULL, err);
	}
	return build(lp, cf_runner_find(choice.runner), choice.enforcement, argv, policy, true, ret,
	             err);
}

static bool local_runner_failed(void *data, const confine_argv *confined, const char *detail) {
	local_provider *lp = data;
	if (lp->operator_runner || !confined)
		return false;
	if (detail && detail[0]) {
		pthread_mutex_lock(&lp->spawn_lock);
		if (!strstr(lp->spawn_failures, detail)) {
			size_t n = strlen(lp->spawn_failures);
			snprintf(lp->spawn_failures + n, sizeof lp->spawn_failures - n, "%s%s",
			         n ? "; " : "", detail);
		}
		pthread_mutex_unlock(&lp->spawn_lock);
	}
	(void)cf_ladder_fail(&lp->ladder, confined->runner);
	/* another rung this call has not tried yet (through excludes this one) */
	return cf_ladder_has_rung(&lp->ladder, cf_spawn_excluded_runners);
}

static void local_runner_started(void *data, const confine_argv *confined) {
	local_provider *lp = data;
	if (!lp->operator_runner && confined)
		cf_ladder_confirm(&lp->ladder, confined->runner, confined->enforcement);
}

static int local_verdict(void *data, confine_verdict *ret, confine_error *err) {
	local_provider *lp = data;
	const cf_runner_def *def = NULL;
	const cf_runner_program *prog;
	confine_verdict v;
	(void)err;

	memset(&v, 0, sizeof v);
	v.landlock_abi = cf_host_landlock_abi();
	if (lp->operator_runner) {
		def = lp->operator_runner;
		v.usable = true;
		v.runner = def->id;
		v.enforcement = CONFINE_ENFORCEMENT_FULL;
	} else {
		cf_ladder_choice choice = cf_ladder_select(&lp->ladder);
		v.usable = choice.usable;
		v.runner = choice.runner;
		v.enforcement = choice.enforcement;
		if (choice.usable)
			def = cf_runner_find(choice.runner);
	}
	prog = def ? program_of(lp, def) : NULL;
	snprintf(v.runner_path, sizeof v.runner_path, "%s",
	         prog && prog->argv && prog->argv[0] ? prog->argv[0] : "");
	if (!v.usable)
		memcpy(v.runner_failure, lp->runner_failure, sizeof v.runner_failure);
	*ret = v;
	return 0;
}

static void local_destroy(void *data) {
	local_provider *lp = data;
	if (!lp)
		return;
	if (lp->ladder_ready)
		cf_ladder_destroy(&lp->ladder);
	pthread_mutex_destroy(&lp->spawn_lock);
	for (size_t i = 0; i < CF_RUNNER_MAX; i++)
		cf_runner_program_clear(&lp->programs[i]);
	confine_strv_free(lp->runner_command);
	confine_strv_free(lp->signatures);
	free(lp->launcher);
	free(lp->launcher_real);
	free(lp->path);
	free(lp->platform);
	free(lp->tmpdir);
	free(lp);
}

/* ---- configuration ---- */

void confine_local_config_init(confine_local_config *config) {
	if (!config)
		return;
	memset(config, 0, sizeof *config);
	config->probe_timeout_ms = CONFINE_DEFAULT_PROBE_TIMEOUT_MS;
	config->pin = CONFINE_RUNNER_NONE;
}

static bool blank_after_trim(const char *s) {
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r' && *s != '\v' && *s != '\f')
			return false;
	return true;
}

static int config_error(confine_error *err, const char *message) {
	return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0, "%s", message);
}

/* SPEC 4's four validations, in their order, with their exact messages;
 * then the checks of what this C configuration adds. */
static int validate(const confine_local_config *c, confine_error *err) {
	bool has_runner = c->runner_command && c->runner_command[0];
	bool has_signatures = c->runner_failure_signatures && c->runner_failure_signatures[0];

	if (has_signatures && !has_runner)
		return config_error(err, "sandbox-local: runnerFailureSignatures requires runnerCommand");
	if (has_runner && !has_signatures)
		return config_error(err, "sandbox-local: runnerCommand requires at least one "
		                         "runnerFailureSignatures entry");
	for (size_t i = 0; has_signatures && c->runner_failure_signatures[i]; i++) {
		const char *s = c->runner_failure_signatures[i];
		if (blank_after_trim(s) || strchr(s, '\r') || strchr(s, '\n'))
			return config_error(err, "sandbox-local: runnerFailureSignatures entries must be "
			                         "non-empty single-line strings");
	}
	/* A whole number of milliseconds: a fraction would be rounded into a
	 * bound no one asked for (1e308 is whole and is capped where used). */
	if (!(c->probe_timeout_ms > 0) || !isfinite(c->probe_timeout_ms) ||
	    c->probe_timeout_ms != floor(c->probe_timeout_ms))
		return config_error(err, "sandbox-local: probeTimeoutMs must be a positive finite number");

	if (has_runner && !c->runner_command[0][0])
		return config_error(err, "sandbox-local: runnerCommand[0] must be a non-empty program");
	/* A relative path would be looked up from the command's working
	 * directory, the workspace: a confined command could plant the
	 * "runner" there and run unconfined the next time. */
	if (has_runner && c->runner_command[0][0] != '/' && strchr(c->runner_command[0], '/'))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0,
		                    "sandbox-local: runnerCommand[0] must be an absolute path or a "
		                    "program name looked up on PATH (got \"%s\")",
		                    c->runner_command[0]);
	if (has_runner && c->pin != CONFINE_RUNNER_NONE)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0,
		                    "sandbox-local: runnerCommand skips the ladder, so it cannot be "
		                    "combined with a pinned runner (%s)",
		                    confine_runner_name(c->pin) ? confine_runner_name(c->pin) : "?");
	if (c->pin != CONFINE_RUNNER_NONE &&
	    (!cf_runner_find(c->pin) || !cf_runner_find(c->pin)->platform))
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0,
		                    "sandbox-local: pin must be %s (got %d)", cf_runner_pinnable_names(),
		                    (int)c->pin);
	if (c->landlock_launcher && c->landlock_launcher[0] != '/')
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_CONFIG, "config", 0,
		                    "sandbox-local: landlockLauncher must be an absolute path (got \"%s\")",
		                    c->landlock_launcher);
	return 0;
}

/* Copies the configuration and captures what it depends on from the
 * environment ($PATH, $TMPDIR): the provider's behaviour must not change
 * with a later setenv(), and getenv() from many threads at confine time is
 * unsafe. Then finds every runner of the chain, once. 0 or -ENOMEM. */
static int capture(local_provider *lp, const confine_local_config *config) {
	const char *tmpdir = getenv("TMPDIR");
	lp->pin = config->pin;
	if (config->runner_command && config->runner_command[0]) {
		lp->runner_command = cf_strv_copy(config->runner_command);
		lp->signatures = cf_strv_copy(config->runner_failure_signatures);
		if (!lp->runner_command || !lp->signatures)
			return -ENOMEM;
	}
	lp->launcher = strdup(config->landlock_launcher ? config->landlock_launcher
	                                                : confine_default_landlock_launcher());
	lp->platform = strdup(config->platform ? config->platform : cf_host_platform());
	lp->path = strdup(config->path ? config->path : cf_runner_path());
	if (!lp->launcher || !lp->platform || !lp->path)
		return -ENOMEM;
	{
		int saved = errno;
		lp->launcher_real = realpath(lp->launcher, NULL);
		if (!lp->launcher_real && errno == ENOMEM)
			return -ENOMEM;
		lp->env.launcher_errno = lp->launcher_real ? 0 : errno;
		errno = saved;
	}
	if (tmpdir && tmpdir[0] && !(lp->tmpdir = strdup(tmpdir)))
		return -ENOMEM;
	lp->env = (cf_runner_env){
		.path = lp->path,
		.launcher = lp->launcher,
		.launcher_real = lp->launcher_real,
		.launcher_errno = lp->env.launcher_errno,
		.launcher_configured = config->landlock_launcher != NULL,
		.runner_command = lp->runner_command,
		.runner_failure_signatures = lp->signatures,
		.tmpdir = lp->tmpdir,
		.probe_timeout_ms = config->probe_timeout_ms,
	};
	for (size_t i = 0; cf_runners[i] && i < CF_RUNNER_MAX; i++) {
		const cf_runner_def *def = cf_runners[i];
		/* Pinned, the chain is that one rung (validate() refuses a pin
		 * beside runnerCommand); unpinned, a pin-only rung (gVisor) is
		 * never in it: no other row's program is ever run or named, so
		 * its PATH search and trust walk are not paid. */
		if (lp->pin != CONFINE_RUNNER_NONE ? def->id != lp->pin : def->pin_only)
			continue;
		if (def->locate(&lp->env, &lp->programs[i]) < 0)
			return -ENOMEM;
		if (!lp->operator_runner && def->configured && def->configured(&lp->env))
			lp->operator_runner = def;
	}
	return 0;
}

/* The ladder: pinned, a chain of one (selected unprobed like any sole
 * candidate); else the platform's chain. */
static int setup_ladder(local_provider *lp, const cf_ladder_hooks *hooks) {
	confine_runner chain[CF_LADDER_MAX];
	size_t n_chain;
	int r;
	if (lp->pin != CONFINE_RUNNER_NONE) {
		chain[0] = lp->pin;
		n_chain = 1;
	} else {
		n_chain = cf_ladder_chain_for_platform(lp->platform, chain);
	}
	if (hooks) {
		lp->hooks = *hooks;
	} else {
		lp->hooks.probe = real_probe;
		lp->hooks.select_unprobed = real_select_unprobed;
		lp->hooks.ctx = lp;
	}
	r = cf_ladder_init(&lp->ladder, chain, n_chain, &lp->hooks);
	if (r == 0)
		lp->ladder_ready = true;
	return r;
}

int cf_local_provider_new_with_hooks(const confine_local_config *config,
                                     const cf_ladder_hooks *hooks, confine_provider **ret,
                                     confine_error *err) {
	static const confine_provider_ops ops = {
		.confine = local_confine,
		.verdict = local_verdict,
		.confine_for_spawn = local_confine_for_spawn,
		.runner_failed = local_runner_failed,
		.runner_started = local_runner_started,
		.destroy = local_destroy,
	};
	confine_local_config defaults;
	local_provider *lp;
	int r;

	if (!ret)
		return cf_error_set(err, EINVAL, CONFINE_E_INVALID_ARGUMENT, "provider", 0,
		                    "the local provider needs a result pointer");
	if (!config) {
		confine_local_config_init(&defaults);
		config = &defaults;
	}
	if ((r = validate(config, err)) < 0)
		return r;
	lp = calloc(1, sizeof *lp);
	if (lp)
		pthread_mutex_init(&lp->spawn_lock, NULL);
	if (!lp || capture(lp, config) < 0) {
		local_destroy(lp);
		return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "provider", ENOMEM, "out of memory");
	}
	if ((r = setup_ladder(lp, hooks)) < 0) {
		local_destroy(lp);
		return cf_error_set(err, -r, CONFINE_E_SYSTEM, "provider", -r,
		                    "cannot set up the runner ladder: %s", strerror(-r));
	}
	return confine_provider_new(&ops, lp, ret, err);
}

int confine_local_provider_new(const confine_local_config *config, confine_provider **ret,
                               confine_error *err) {
	return cf_local_provider_new_with_hooks(config, NULL, ret, err);
}
