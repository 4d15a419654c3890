/* SPDX-License-Identifier: MIT */
/*
 * The Landlock launcher, landlock-run (SPEC 4-7): the project's own
 * launcher at its installed (or configured) path, given --ro / --rw grants.
 * Its enforcement follows the kernel's Landlock ABI. The temp area is a
 * directory made for the run; under workspace-write the command may also
 * write the host's /dev/shm (--rw-shared: no socket there is reached).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher-args.h"
#include "launcher-protocol.h"
#include "rungs/launcher-image.h"
#include "rungs/probe.h"
#include "rungs/rung.h"
#include "path.h"

static const char *const denials[] = { "permission denied", NULL };
static const int exit_codes[] = { 125 };
static const char *const fatal[] = { "landlock-run: ", NULL };
/* The launcher's notices before the command starts, never its failure: a
 * command that then exits 125 after one of them is the command's 125
 * (doc/SPEC.md 6). One line per word supervisor-probe.h can name. */
static const char *const informational[] = {
	LAUNCHER_PARTIAL_NOTICE,
	LAUNCHER_NO_SUPERVISOR_NOTICE("user-notification"),
	LAUNCHER_NO_SUPERVISOR_NOTICE("pidfd_open"),
	LAUNCHER_NO_SUPERVISOR_NOTICE("pidfd_getfd"),
	LAUNCHER_NO_SUPERVISOR_NOTICE("process_vm_readv"),
	LAUNCHER_NO_SUPERVISOR_NOTICE("proc"),
	LAUNCHER_NO_SUPERVISOR_NOTICE("nested-listener"),
	NULL,
};

/* The argv names the resolved launcher: what was checked is what runs,
 * whatever happens later to a symlink on the way. One that does not
 * resolve is named as given, and fails closed at execution. */
static int locate(const cf_runner_env *env, cf_runner_program *ret) {
	ret->real = realpath(env->launcher, NULL);
	ret->argv = cf_runner_argv1(ret->real ? ret->real : env->launcher);
	return ret->argv ? 0 : -ENOMEM;
}

/* The argv another process spawns (wrap, confine_confine): its lifeline
 * is its parent, named here as the calling process (--starter), so a
 * launcher whose harness died before the spawn runs nothing (doc/SPEC.md
 * 13, "The wrap argv's lifeline"; R4-F2). `confine wrap` names its own
 * parent instead. */
static int profile(const confine_policy *policy, const cf_runner_env *env, char ***ret) {
	char pid[16];
	char **tokens = NULL, **grants = NULL;
	int r;
	(void)env;
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	if ((r = cf_strv_push(&tokens, LAUNCHER_ARG_STARTER)) < 0 ||
	    (r = cf_strv_push(&tokens, pid)) < 0 || (r = confine_profile_landlock(policy, &grants)) < 0)
		goto out;
	for (size_t i = 0; grants && grants[i]; i++)
		if ((r = cf_strv_push(&tokens, grants[i])) < 0)
			goto out;
	*ret = tokens;
	tokens = NULL;
out:
	confine_strv_free(grants);
	confine_strv_free(tokens);
	return r < 0 ? r : 0;
}

/* The sealed in-memory launcher the library carries, exec'd by descriptor:
 * nothing on disk to trust, wherever the library lies (doc/SPEC.md 14). */
static int spawn_profile(const confine_policy *policy, const cf_runner_env *env,
                         const cf_runner_program *program, confine_argv *c, char ***ret) {
	/* A launcher the operator configured is the one that runs, from disk
	 * (checked as for others), still with its status channel. */
	int fd = env->launcher_configured ? -1 : cf_launcher_image_fd();
	const char *name = fd >= 0 ? "landlock-run" : program->argv ? program->argv[0] : NULL;
	char **argv = NULL;
	int r;
	/* Without the in-memory copy (vm.memfd_noexec, a portable build) the
	 * launcher on disk runs, checked as for others, still with its channel. */
	if (!name)
		return -ENOSYS;
	if ((r = cf_strv_push(&argv, name)) < 0 ||
	    (r = cf_runner_launcher_args(policy, NULL, &argv)) < 0) {
		confine_strv_free(argv);
		return r;
	}
	/* The supervisor refuses metadata changes with EPERM. */
	{
		static const char *const supervised_denials[] = { "permission denied",
		                                                  "operation not permitted", NULL };
		if (cf_runner_set_denials(c, supervised_denials) < 0) {
			confine_strv_free(argv);
			return -ENOMEM;
		}
	}
	c->spawn_flags = CONFINE_SPAWN_STATUS_CHANNEL;
	if (fd >= 0) {
		c->spawn_flags |= CONFINE_SPAWN_EXEC_FD;
		c->exec_fd = fd;
	}
	c->status_fd_at = CF_STATUS_FD_AT;
	*ret = argv;
	return 0;
}

/* Unprobed, the kernel's ABI says what the launcher will enforce: ABI < 5
 * does not govern device ioctls (SPEC 7). A kernel without Landlock makes
 * the launcher refuse at execution (exit 125). */
static bool select_unprobed(const cf_runner_program *program, confine_enforcement *ret) {
	(void)program;
	*ret = cf_host_landlock_abi() >= 5 ? CONFINE_ENFORCEMENT_FULL : CONFINE_ENFORCEMENT_PARTIAL;
	return true;
}

/* landlock-run --probe: exit 0 and "partially enforced" in its report for
 * an older ABI. */
static bool probe(const cf_runner_program *program, const cf_runner_env *env,
                  confine_enforcement *ret, char failure[CF_RUNNER_FAILURE_MAX]) {
	const char *launcher = program->argv ? program->argv[0] : NULL;
	const char *argv[] = { launcher, LAUNCHER_ARG_PROBE, NULL };
	cf_probe_result result;
	char why[CF_RUNNER_FAILURE_MAX];
	if (!launcher || launcher[0] != '/')
		return false;
	/* The probe runs it: a launcher the trust rule refuses (doc/SPEC.md 4)
	 * is never run, not even with --probe (as root that would run another
	 * user's program); the verdict says why. */
	if (program->real && !cf_path_trusted(program->real, why, sizeof why)) {
		int n = snprintf(failure, CF_RUNNER_FAILURE_MAX, "runner %s is not trusted: ",
		                 program->real);
		if (n > 0 && n < CF_RUNNER_FAILURE_MAX)
			snprintf(failure + n, (size_t)(CF_RUNNER_FAILURE_MAX - n), "%.*s; refusing to run it",
			         CF_RUNNER_FAILURE_MAX / 2, why);
		return false;
	}
	if (cf_probe_run(argv, env->probe_timeout_ms, &result) < 0)
		return false;
	/* An installed launcher that cannot be executed (a stripped mode bit)
	 * is a broken runner, not a kernel that cannot enforce (SPEC 7): say
	 * so, so the unavailable verdict carries it as a runner failure. A
	 * missing launcher (ENOENT) is simply no backend. */
	if (!result.started && result.exec_errno == EACCES)
		snprintf(failure, CF_RUNNER_FAILURE_MAX, "cannot execute %s: %s", launcher,
		         strerror(EACCES));
	if (!result.started || result.timed_out || !result.exited || result.exit_code != 0)
		return false;
	*ret = strstr(result.out, "partially enforced") ? CONFINE_ENFORCEMENT_PARTIAL
	                                                : CONFINE_ENFORCEMENT_FULL;
	return true;
}

/* Its clause table (holds.c). */
extern const cf_rung_holds cf_landlock_holds CONFINE_HIDDEN;

const cf_runner_def cf_runner_landlock = {
	.holds = &cf_landlock_holds,
	.id = CONFINE_RUNNER_LANDLOCK,
	.title = "Landlock",
	.platform = "linux",
	.facts = CONFINE_RUNNER_FACT_HOST_TMP,
	.runs_launcher = true,
	.denial_signatures = denials,
	.allowed_exit_codes = exit_codes,
	.n_allowed_exit_codes = 1,
	.fatal_signatures = fatal,
	.informational_lines = informational,
	.locate = locate,
	.profile = profile,
	.spawn_profile = spawn_profile,
	.select_unprobed = select_unprobed,
	.probe = probe,
};
