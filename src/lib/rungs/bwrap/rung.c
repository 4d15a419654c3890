/* SPDX-License-Identifier: MIT */
/*
 * bubblewrap (SPEC 4-6): found on PATH, runs the bwrap profile, and
 * supervises the command from a session of its own (its --new-session and
 * PID namespace): a signal for the command goes below it. Its /tmp is a
 * private tmpfs (workspace-write, and read-only's private temp area).
 * Layered (doc/SPEC.md 14): the project's launcher runs inside it on every
 * argv, the sealed in-memory copy for runs the library spawns itself, the
 * trusted on-disk one (bound read-only at CF_LAUNCHER_INSIDE) for an argv
 * others spawn.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "launcher-args.h"
#include "rungs/launcher-image.h"
#include "rungs/probe.h"
#include "rungs/rung.h"
#include "path.h"
#include "policy-internal.h"
#include "rungs/bwrap/bwrap.h"

extern const cf_runner_def cf_runner_bwrap;
extern const cf_runner_def cf_runner_landlock;

/* A write outside the binds meets a read-only mount (EROFS); inside, the
 * launcher's Landlock refuses what the mounts let through (a mount that
 * appeared later, /proc/sys, a reopen through /proc/self/fd: EACCES) and
 * its supervisor refuses metadata changes (EPERM). */
static const char *const denials[] = { "read-only file system", "permission denied",
                                       "operation not permitted", NULL };
static const char *const fatal[] = { "bwrap: ", NULL };
/* bwrap's own failures all exit 1 (die(), die_with_error(), usage(); a
 * command's death by signal N is 128+N), so for an argv others spawn a
 * "bwrap: " line counts only at exit 1 (doc/SPEC.md 6). */
static const int exit_codes[] = { 1 };

/* The first bwrap on PATH's absolute entries, when none is trusted: the
 * runner-failure detail naming it and why (doc/SPEC.md 4), judged as the
 * lookup judges it: the path as given, then the file it resolves to. */
static bool untrusted_detail(const char *path, char *detail, size_t size) {
	const char *p = path ? path : "";
	while (*p) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char candidate[PATH_MAX], why[PATH_MAX + 64];
		struct stat st;
		if (n > 0 && p[0] == '/' && n + sizeof "/bwrap" <= sizeof candidate) {
			snprintf(candidate, sizeof candidate, "%.*s/bwrap", (int)n, p);
			if (stat(candidate, &st) == 0 && S_ISREG(st.st_mode) &&
			    access(candidate, X_OK) == 0) {
				char *real = realpath(candidate, NULL);
				const char *named = candidate;
				if (cf_path_trusted(candidate, why, sizeof why)) {
					if (real && !cf_path_trusted(real, why, sizeof why))
						named = real;
					else
						snprintf(why, sizeof why, "it changed while it was looked up");
				}
				snprintf(detail, size, "runner %s is not trusted: %s; refusing to run it",
				         named, why);
				free(real);
				return true;
			}
		}
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

/* On PATH, absolute entries only, and only a bwrap that no one but root or
 * the caller could have planted; placed in argv as an absolute path: a
 * bare "bwrap" would be looked up again by whoever spawns it, relative
 * entries included. */
static int locate(const cf_runner_env *env, cf_runner_program *ret) {
	confine_find_options options = {
		.path = env->path,
		.absolute_entries_only = true,
		.trusted_only = true,
	};
	char *found = NULL;
	int r = confine_find_program("bwrap", &options, &found);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		/* None to trust. One that is there but untrusted is named, with
		 * why, in the runner failure (doc/SPEC.md 4); the rung still
		 * cannot run. */
		char detail[2 * PATH_MAX + 192];
		if (!untrusted_detail(env->path, detail, sizeof detail))
			return 0; /* not found: this rung cannot run */
		ret->not_found = strdup(detail);
		return ret->not_found ? 0 : -ENOMEM;
	}
	ret->argv = cf_runner_argv1(found);
	ret->real = found; /* canonical already */
	return ret->argv ? 0 : -ENOMEM;
}

/* The policy the launcher inside applies: the same grants, with bwrap's
 * private /tmp as the temp area, and the network left to bwrap
 * (--unshare-net): the launcher keeps the sandbox's own loopback. The
 * network allowlist (doc/SPEC.md 15) is the launcher's instead: it hosts
 * the proxy with the Landlock rung's one way out (its port rule, the
 * supervisor's address check, seccomp's families), and bwrap keeps the
 * host's network namespace (outer_policy). */
/* The network off (no allowlist): bwrap's namespace cuts it, and the
 * launcher inside runs its refusing proxy there, so tools that honour the
 * proxy variables fail at once (doc/SPEC.md 15, "Off fails fast"). */
static bool off_fails_fast(const confine_policy *policy) {
	return policy->network == CONFINE_NETWORK_OFF && !confine_policy_network_allowlist(policy);
}

static int inner_policy(const confine_policy *policy, confine_policy *inner) {
	int r;
	memset(inner, 0, sizeof *inner);
	if ((r = cf_policy_copy_into(inner, policy)) < 0)
		return r;
	if (!confine_policy_network_allowlist(policy))
		inner->network = CONFINE_NETWORK_ON;
	/* The temp area inside is bwrap's private /tmp, in both modes (its
	 * --tmpfs /tmp: workspace-write, or read-only with private_temp). */
	if (inner->mode == CONFINE_MODE_WORKSPACE_WRITE || inner->private_temp) {
		inner->private_temp = true;
		free(inner->temp_dir);
		inner->temp_dir = strdup("/tmp");
		if (!inner->temp_dir)
			r = -ENOMEM;
	}
	return r;
}

/* The policy bwrap's own tokens are made from: the policy, or, for the
 * network allowlist, the same with the network on (no --unshare-net: the
 * launcher inside holds the network). *use points at the one to use. */
static int outer_policy(const confine_policy *policy, confine_policy *outer,
                        const confine_policy **use) {
	int r;
	memset(outer, 0, sizeof *outer);
	*use = policy;
	if (!confine_policy_network_allowlist(policy))
		return 0;
	if ((r = cf_policy_copy_into(outer, policy)) < 0)
		return r;
	outer->network = CONFINE_NETWORK_ON;
	confine_strv_free(outer->network_allow);
	confine_strv_free(outer->network_deny);
	outer->network_allow = outer->network_deny = NULL;
	outer->network_allow_local = false;
	*use = outer;
	return 0;
}

/*
 * The argv for others (`wrap`, `confine_confine`) and the probe: bwrap's
 * tokens (with --die-with-parent: the harness that spawns it is not ours),
 * then the on-disk launcher bound read-only at a fixed path in bwrap's own
 * /dev, after every other mount, and run there with the Landlock rung's
 * grants and --best-effort (where the kernel has no Landlock, bwrap alone
 * confines the files and the launcher applies the rest). No status channel:
 * the spawner has no descriptor for it, so the launcher speaks its stderr
 * dialect (doc/SPEC.md 6), and the argv's `layers` say what it will apply.
 * What was checked (the provider's trust rule on env->launcher_real) is
 * what is bound: bwrap opens the source path when it starts.
 */
static int profile(const confine_policy *policy, const cf_runner_env *env, char ***ret) {
	confine_policy inner, outer;
	const confine_policy *bwrap_policy = policy;
	char **tokens = NULL, **grants = NULL, **ids = NULL;
	int r;
	if (!env->launcher_real)
		return -ENOENT; /* the provider refuses before asking (local-provider.c) */
	memset(&outer, 0, sizeof outer);
	if ((r = inner_policy(policy, &inner)) == 0 &&
	    (r = outer_policy(policy, &outer, &bwrap_policy)) == 0 &&
	    (r = cf_profile_bwrap_layered(bwrap_policy, CF_PROFILE_LAUNCHER_INSIDE, &tokens,
	                                  &ids)) == 0 &&
	    (r = confine_profile_landlock(&inner, &grants)) == 0) {
		const char *const tail[] = { "--ro-bind", env->launcher_real, CF_LAUNCHER_INSIDE,
		                             "--", CF_LAUNCHER_INSIDE, LAUNCHER_ARG_BEST_EFFORT, NULL };
		for (size_t i = 0; r == 0 && tail[i]; i++)
			r = cf_strv_push(&tokens, tail[i]);
		/* what each bind must still be when the argv is spawned */
		for (size_t i = 0; r == 0 && ids[i]; i++)
			r = cf_strv_push(&tokens, ids[i]);
		if (r == 0 && off_fails_fast(policy))
			r = cf_strv_push(&tokens, LAUNCHER_ARG_PROXY_OFF);
		/* read-only: bwrap's own /dev/shm too (as in-process runs) */
		if (r == 0 && inner.mode == CONFINE_MODE_READ_ONLY && inner.private_temp &&
		    (r = cf_strv_push(&tokens, LAUNCHER_ARG_RW)) == 0)
			r = cf_strv_push(&tokens, "/dev/shm");
		for (size_t i = 0; r == 0 && grants[i]; i++)
			r = cf_strv_push(&tokens, grants[i]);
	}
	confine_strv_free(grants);
	confine_strv_free(ids);
	cf_policy_clear(&inner);
	cf_policy_clear(&outer);
	if (r < 0) {
		confine_strv_free(tokens);
		return r;
	}
	*ret = tokens;
	return 0;
}

/*
 * The layered rung (doc/SPEC.md 14): bwrap, then inside it the launcher the
 * library carries (inherited at descriptor 4, run as /proc/self/fd/4 in
 * bwrap's own /proc) with the Landlock rung's grants, its seccomp lists and
 * the status channel. --best-effort: where the kernel has no Landlock, bwrap
 * alone confines. No --die-with-parent: PR_SET_PDEATHSIG follows the thread
 * that spawned bwrap; the launcher's lifeline (the status channel) ends the
 * run when the library's process dies. Inside, /tmp is bwrap's private
 * tmpfs (granted), and the network is bwrap's to cut (--unshare-net): the
 * launcher keeps the sandbox's own loopback.
 */
static int spawn_profile(const confine_policy *policy, const cf_runner_env *env,
                         const cf_runner_program *program, confine_argv *c, char ***ret) {
	/* read-only: bwrap's /dev/shm is a tmpfs of its own (--dev), gone with
	 * the run, so the launcher inside grants it too: POSIX semaphores
	 * (Python multiprocessing, compilers' jobservers) work read-only. */
	const char *extra[5] = { LAUNCHER_ARG_BEST_EFFORT, NULL };
	size_t n_extra = 1;
	int fd = cf_launcher_image_fd();
	confine_policy inner, outer;
	const confine_policy *bwrap_policy = policy;
	char **argv = NULL, **tokens = NULL, **ids = NULL;
	char self[PATH_MAX];
	int r;
	if (!program->argv || !program->argv[0])
		return -ENOENT;
	if (fd >= 0) {
		snprintf(self, sizeof self, "/proc/self/fd/%d", CF_LAUNCHER_FD_AT);
	} else {
		/* No in-memory copy (vm.memfd_noexec, a portable build): the
		 * launcher on disk, if trusted and visible inside (bwrap's /tmp is
		 * its own tmpfs); else the argv for others. */
		char *real = env->launcher ? realpath(env->launcher, NULL) : NULL;
		bool usable = real && cf_path_trusted(real, NULL, 0) &&
		              strncmp(real, "/tmp/", 5) != 0 && strlen(real) < sizeof self;
		if (usable)
			snprintf(self, sizeof self, "%s", real);
		free(real);
		if (!usable)
			return -ENOSYS;
	}
	memset(&outer, 0, sizeof outer);
	if ((r = inner_policy(policy, &inner)) == 0 &&
	    (r = outer_policy(policy, &outer, &bwrap_policy)) == 0)
		/* placeholders: the library's spawner makes them (spawn/placeholders.c) */
		r = cf_profile_bwrap_layered(
			bwrap_policy,
			CONFINE_PROFILE_NO_DIE_WITH_PARENT | CF_PROFILE_PLACEHOLDERS | CF_PROFILE_LAUNCHER_INSIDE,
			&tokens, &ids);
	if (r == 0)
		r = cf_strv_push(&argv, program->argv[0]);
	for (size_t i = 0; r == 0 && tokens[i]; i++)
		r = cf_strv_push(&argv, tokens[i]);
	if (r == 0 && (r = cf_strv_push(&argv, "--")) == 0 && (r = cf_strv_push(&argv, self)) == 0)
	{
		for (size_t i = 0; r == 0 && ids[i]; i++)
			r = cf_strv_push(&argv, ids[i]);
		if (inner.mode == CONFINE_MODE_READ_ONLY && inner.private_temp) {
			extra[n_extra++] = LAUNCHER_ARG_RW;
			extra[n_extra++] = "/dev/shm";
		}
		if (off_fails_fast(policy))
			extra[n_extra++] = LAUNCHER_ARG_PROXY_OFF;
		r = cf_runner_launcher_args(&inner, extra, &argv);
	}
	confine_strv_free(tokens);
	confine_strv_free(ids);
	cf_policy_clear(&inner);
	cf_policy_clear(&outer);
	if (r < 0) {
		confine_strv_free(argv);
		return r;
	}
	/* with the stand-ins its plan binds (CF_PROFILE_PLACEHOLDERS) */
	c->spawn_flags = CONFINE_SPAWN_STATUS_CHANNEL | CONFINE_SPAWN_PLACEHOLDERS;
	if (fd >= 0) {
		c->spawn_flags |= CONFINE_SPAWN_INHERIT_FD;
		c->inherit_fd = fd;
		c->inherit_fd_at = CF_LAUNCHER_FD_AT;
	}
	c->status_fd_at = CF_STATUS_FD_AT;
	*ret = argv;
	return 0;
}

static bool select_unprobed(const cf_runner_program *program, confine_enforcement *ret) {
	if (!program->argv)
		return false; /* not on PATH: fail closed now */
	*ret = CONFINE_ENFORCEMENT_FULL;
	return true;
}

/* bwrap alone, for the read-only policy with root "/", around `true`: the
 * probe where the on-disk launcher cannot run (see probe()). */
static bool probe_bwrap_alone(const cf_runner_program *program, const cf_runner_env *env) {
	char **argv = cf_strv_copy((const char *const *)program->argv), **tokens = NULL;
	cf_probe_result result;
	bool passed = false;
	if (!argv || confine_profile_bwrap(&cf_runner_probe_policy, &tokens) < 0)
		goto out;
	for (size_t i = 0; tokens[i]; i++)
		if (cf_strv_push(&argv, tokens[i]) < 0)
			goto out;
	if (cf_strv_push(&argv, "--") < 0 || cf_strv_push(&argv, "true") < 0)
		goto out;
	passed = cf_probe_run((const char *const *)argv, env->probe_timeout_ms, &result) == 0 &&
	         result.started && !result.timed_out && result.exited && result.exit_code == 0;
out:
	confine_strv_free(tokens);
	confine_strv_free(argv);
	return passed;
}

/* The argv for others, for the read-only policy with root "/", around
 * `true`: it passes where bwrap can make every namespace and mount the
 * profile needs and the on-disk launcher runs inside it. A launcher that
 * is missing or that the trust rule refuses is never run: then bwrap alone
 * is probed, since runs the library spawns carry the sealed in-memory
 * launcher and need no launcher on disk (a build tree under /tmp); an argv
 * for others is refused when it is built, naming the launcher. */
static bool probe(const cf_runner_program *program, const cf_runner_env *env,
                  confine_enforcement *ret, char failure[CF_RUNNER_FAILURE_MAX]) {
	static const char *const command[] = { "true", NULL };
	char why[CF_RUNNER_FAILURE_MAX];
	(void)failure;
	if (!program->argv)
		return false;
	if (!env->launcher_real || !cf_path_trusted(env->launcher_real, why, sizeof why)) {
		if (!probe_bwrap_alone(program, env))
			return false;
	} else if (!cf_runner_probe_profile(&cf_runner_bwrap, program, env, command)) {
		return false;
	}
	*ret = CONFINE_ENFORCEMENT_FULL;
	return true;
}

/* An argv past CF_BWRAP_ARGS_MAX, counted by what makes it long, and the
 * way out: fewer binds, or the launcher alone, which has no such bound. */
static void args_tally(const confine_argv *c, char *buf, size_t size) {
	size_t ro = 0, rw = 0, ids = 0;
	for (size_t i = 1; c->argv[i]; i++) {
		ro += strcmp(c->argv[i], "--ro-bind") == 0;
		rw += strcmp(c->argv[i], "--bind") == 0;
		ids += strcmp(c->argv[i], LAUNCHER_ARG_IDENTITY) == 0;
	}
	snprintf(buf, size,
	         " (%zu read-only binds of protected paths and placeholders, %zu writable binds "
	         "and pins, %zu identity checks); unprotect entries (--unprotect), narrow the "
	         "workspace, or pin --runner %s",
	         ro, rw, ids, confine_runner_name(cf_runner_landlock.id));
}

/* Its clause table (holds.c). */
extern const cf_rung_holds cf_bwrap_holds CONFINE_HIDDEN;

const cf_runner_def cf_runner_bwrap = {
	.holds = &cf_bwrap_holds,
	.id = CONFINE_RUNNER_BWRAP,
	.title = "bubblewrap",
	.platform = "linux",
	.args_max = CF_BWRAP_ARGS_MAX, /* doc/SPEC.md 14, "bwrap's argument bound" */
	.args_tally = args_tally,
	.facts = CONFINE_RUNNER_FACT_SUPERVISES | CONFINE_RUNNER_FACT_PRIVATE_TMP |
	         CONFINE_RUNNER_FACT_MOUNT_MASKS,
	.runs_launcher = true,
	.inner = &cf_runner_landlock,
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
};
