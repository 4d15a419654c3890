/* SPDX-License-Identifier: MIT */
/*
 * gVisor (doc/SPEC.md 22): `--runner gvisor` runs the run's policy as an
 * OCI bundle under runsc, a user-space kernel between the command and the
 * host's. The argv is the rung's helper (confine-gvisor, helper.c), given
 * runsc's path and the library's bwrap profile (the mount plan `confine
 * export` reads), then "--" and the command: the helper writes the bundle
 * into a private directory, runs `runsc run`, and removes it. Pinned only:
 * never in the natural ladder (a sandbox start costs a sandbox boot).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "rungs/rung.h"
#include "path.h"
#include "policy-internal.h"
#include "policy-limits.h"
#include "rungs/gvisor/gvisor.h"
#include "rungs/bwrap/bwrap.h"

extern const cf_runner_def cf_runner_gvisor;

/* Inside the sandbox gVisor's own kernel refuses: a write to a read-only
 * bind (EROFS), a path the mounts keep from it (EACCES, EPERM). */
static const char *const denials[] = { "read-only file system", "permission denied",
                                       "operation not permitted", NULL };
/* The helper's own failures, and runsc's before the sandbox exists: one
 * "confine-gvisor: " line, exit 125 (helper.c). */
static const char *const fatal[] = { "confine-gvisor: ", NULL };
static const int exit_codes[] = { 125 };

/* The helper: next to the launcher the provider runs (the build tree's
 * beside the build tree's, the installed beside the installed). */
static int helper_path(const cf_runner_env *env, char *out, size_t size) {
	const char *launcher = env->launcher_real ? env->launcher_real : env->launcher;
	const char *slash = launcher ? strrchr(launcher, '/') : NULL;
	if (launcher && strcmp(launcher, CONFINE_BUILD_LAUNCHER) == 0)
		return snprintf(out, size, "%s", CONFINE_BUILD_GVISOR) < (int)size ? 0 : -ENAMETOOLONG;
	if (!slash)
		return snprintf(out, size, "%s", CONFINE_INSTALLED_GVISOR) < (int)size ? 0
		                                                                         : -ENAMETOOLONG;
	return snprintf(out, size, "%.*s/confine-gvisor", (int)(slash - launcher), launcher) <
	               (int)size
	               ? 0
	               : -ENAMETOOLONG;
}

static int locate(const cf_runner_env *env, cf_runner_program *ret) {
	confine_find_options options = {
		.path = env->path,
		.absolute_entries_only = true,
		.trusted_only = true,
	};
	char helper[PATH_MAX], why[PATH_MAX + 64], detail[2 * PATH_MAX + 128];
	char *runsc = NULL, *real;
	int r = confine_find_program("runsc", &options, &runsc);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		ret->not_found = strdup("runsc (gVisor) is not installed: no trusted runsc on the runner path");
		return ret->not_found ? 0 : -ENOMEM;
	}
	if (helper_path(env, helper, sizeof helper) < 0 || !(real = realpath(helper, NULL))) {
		snprintf(detail, sizeof detail, "the gVisor helper %s cannot be found: %s", helper,
		         strerror(errno));
		free(runsc);
		ret->not_found = strdup(detail);
		return ret->not_found ? 0 : -ENOMEM;
	}
	if (!cf_path_trusted(real, why, sizeof why)) {
		snprintf(detail, sizeof detail, "runner %s is not trusted: %s; refusing to run it", real,
		         why);
		free(runsc);
		free(real);
		ret->not_found = strdup(detail);
		return ret->not_found ? 0 : -ENOMEM;
	}
	ret->argv = cf_runner_argv1(real);
	if (!ret->argv || cf_strv_push(&ret->argv, "--runsc") < 0 ||
	    cf_strv_push(&ret->argv, runsc) < 0) {
		free(runsc);
		free(real);
		return -ENOMEM;
	}
	free(runsc);
	ret->real = real;
	return 0;
}

/* The limits the bundle carries (doc/SPEC.md 22): rlimits gVisor's kernel
 * applies to the command's tasks (RLIMIT_NPROC counts every task of the
 * sandbox, whose one user is the command's), and memory as the sandbox's
 * cgroup limit (runsc's own cgroup as root). */
static const struct {
	confine_limit limit;
	const char *option;
} bundle_limits[] = {
	{ CONFINE_LIMIT_PIDS, "RLIMIT_NPROC" },
	{ CONFINE_LIMIT_CPU_SECONDS, "RLIMIT_CPU" },
	{ CONFINE_LIMIT_FILE_SIZE, "RLIMIT_FSIZE" },
	{ CONFINE_LIMIT_OPEN_FILES, "RLIMIT_NOFILE" },
	{ CONFINE_LIMIT_MEMORY, "memory" },
};

static int limit_tokens(const confine_policy *policy, char ***tokens) {
	for (size_t i = 0; i < sizeof bundle_limits / sizeof bundle_limits[0]; i++) {
		confine_limit limit = bundle_limits[i].limit;
		char word[96];
		int r;
		/* The default process bound is the spawner's cgroup's, which
		 * runsc leaves (as root it makes its own): only a requested
		 * bound is carried. */
		if (!policy->limits[limit] || !cf_limit_requested(policy, limit))
			continue;
		snprintf(word, sizeof word, "%s=%llu", bundle_limits[i].option,
		         (unsigned long long)policy->limits[limit]);
		if ((r = cf_strv_push(tokens, "--limit")) < 0 || (r = cf_strv_push(tokens, word)) < 0)
			return r;
	}
	return 0;
}

/* "--mode MODE", the limits, then the bwrap profile: the plan the helper
 * reads. `flags` CF_PROFILE_PLACEHOLDERS: a run the library spawns, whose
 * spawner makes a stand-in on the host for each protected path missing at
 * the start (spawn/placeholders.c), which the bundle binds read-only. A
 * bind of a missing path would not do: runsc makes the mount point itself,
 * through the writable root, and leaves it on the host after the run. */
static int profile_flags(const confine_policy *policy, unsigned flags, char ***ret) {
	char **tokens = NULL, **bwrap = NULL;
	int r;
	if (!confine_mode_is_confined(policy->mode))
		return -EINVAL;
	/* An allowlist needs the proxy inside the sandbox, which this rung
	 * does not run (doc/SPEC.md 22): refused, not widened. */
	if (confine_policy_network_allowlist(policy))
		return -EINVAL;
	if ((r = cf_profile_bwrap_layered(policy, flags, &bwrap, NULL)) < 0)
		return r;
	if ((r = cf_strv_push(&tokens, "--mode")) < 0 ||
	    (r = cf_strv_push(&tokens, confine_mode_name(policy->mode))) < 0 ||
	    (r = limit_tokens(policy, &tokens)) < 0)
		goto out;
	for (size_t i = 0; bwrap[i]; i++)
		if ((r = cf_strv_push(&tokens, bwrap[i])) < 0)
			goto out;
	*ret = tokens;
	tokens = NULL;
out:
	confine_strv_free(bwrap);
	confine_strv_free(tokens);
	return r;
}

/* An argv for others (`wrap`): no stand-ins (nobody would remove them). */
static int profile(const confine_policy *policy, const cf_runner_env *env, char ***ret) {
	(void)env;
	return profile_flags(policy, 0, ret);
}

/* A run the library spawns: the same argv, with the helper's status
 * channel at CF_STATUS_FD_AT (it says when runsc made the sandbox, and a
 * runsc failure before that as the runner's). */
static int spawn_profile(const confine_policy *policy, const cf_runner_env *env,
                         const cf_runner_program *program, confine_argv *c, char ***ret) {
	char **argv = NULL, **tokens = NULL;
	char fd[16];
	int r;
	if (!program->argv)
		return -ENOSYS;
	(void)env;
	if ((r = profile_flags(policy, CF_PROFILE_PLACEHOLDERS, &tokens)) < 0)
		return r;
	snprintf(fd, sizeof fd, "%d", CF_STATUS_FD_AT);
	for (size_t i = 0; program->argv[i] && r == 0; i++)
		r = cf_strv_push(&argv, program->argv[i]);
	if (r == 0 && (r = cf_strv_push(&argv, "--status-fd")) == 0)
		r = cf_strv_push(&argv, fd);
	for (size_t i = 0; r == 0 && tokens[i]; i++)
		r = cf_strv_push(&argv, tokens[i]);
	confine_strv_free(tokens);
	if (r < 0) {
		confine_strv_free(argv);
		return r;
	}
	c->spawn_flags |= CONFINE_SPAWN_STATUS_CHANNEL | CONFINE_SPAWN_PLACEHOLDERS;
	c->status_fd_at = CF_STATUS_FD_AT;
	*ret = argv;
	return 0;
}

static bool select_unprobed(const cf_runner_program *program, confine_enforcement *ret) {
	*ret = CONFINE_ENFORCEMENT_FULL; /* the run's clauses say what does not hold */
	return program->argv != NULL;
}

/* `confine probe --runner gvisor`: the read-only profile around `true`,
 * through the helper and runsc (a sandbox boot), bounded by the probe
 * timeout. A pinned rung's runs are selected unprobed. */
static bool probe(const cf_runner_program *program, const cf_runner_env *env,
                  confine_enforcement *ret, char failure[CF_RUNNER_FAILURE_MAX]) {
	static const char *const command[] = { "true", NULL };
	if (!program->argv)
		return false;
	if (!cf_runner_probe_profile(&cf_runner_gvisor, program, env, command)) {
		snprintf(failure, CF_RUNNER_FAILURE_MAX,
		         "%.400s did not run `true` under runsc within the probe timeout",
		         program->argv[0]);
		return false;
	}
	*ret = CONFINE_ENFORCEMENT_FULL;
	return true;
}

const cf_runner_def cf_runner_gvisor = {
	.id = CONFINE_RUNNER_GVISOR,
	.title = "gVisor",
	.platform = "linux",
	.pin_only = true,
	.facts = CONFINE_RUNNER_FACT_PRIVATE_TMP | CONFINE_RUNNER_FACT_MOUNT_MASKS,
	.denial_signatures = denials,
	.allowed_exit_codes = exit_codes,
	.n_allowed_exit_codes = 1,
	.fatal_signatures = fatal,
	.locate = locate,
	.profile = profile,
	.spawn_profile = spawn_profile,
	.spawn_runs_program = true,
	.select_unprobed = select_unprobed,
	.probe = probe,
	.holds = &cf_gvisor_holds,
};
