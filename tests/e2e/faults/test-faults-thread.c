/* SPDX-License-Identifier: MIT */
/*
 * The PDEATHSIG trap (issue 14, doc/SPEC.md 14): a library caller that
 * starts a confined run from a short-lived worker thread, which then exits,
 * and waits for it from the main thread. PR_SET_PDEATHSIG (bwrap's
 * --die-with-parent) fires when the *thread* that forked exits, so a run
 * started that way would be killed when its thread returned; the launcher's
 * lifeline follows the process instead. Proves, on one rung:
 *
 *   test-faults-thread bwrap|landlock
 *
 * that `sh -c 'sleep 1; touch MARKER; echo x > OUTSIDE'`, started by
 * confine_spawn_through() and by confine_bash_start() from a thread that
 * has exited (joined) before the command's sleep is over, completes: the
 * marker inside the workspace appears, the command is not killed by a
 * signal, and OUTSIDE stays absent (its write there was refused: it ran
 * confined).
 *
 * Exit 0, 1, or 77 (the rung is absent; a failure under CONFINE_MUST_WORK=1).
 * Environment: CONFINE_TEST_LAUNCHER, the build tree's landlock-run (only to
 * learn whether the Landlock rung works here; the runs use the library's
 * sealed in-memory launcher).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib-confine.h"

static char base[512];
static char workspace[600];
static char outside[600];

struct job {
	confine_provider *provider;
	confine_policy *policy;
	const char *command;
	bool through_bash;
	confine_process *process; /* out */
	confine_error err;        /* out */
	int rc;                   /* out */
};

static void *start_and_leave(void *data) {
	struct job *job = data;
	if (job->through_bash) {
		confine_bash_options o = { 0 };
		o.command = job->command;
		o.policy = job->policy;
		o.timeout_ms = 60000;
		job->rc = confine_bash_start(job->provider, &o, &job->process, &job->err);
	} else {
		const char *argv[] = { "sh", "-c", job->command, NULL };
		confine_spawn_options o;
		confine_spawn_options_init(&o);
		o.argv = argv;
		o.stdio[2].kind = CONFINE_STDIO_CAPTURE;
		/* a bound that only proves the run ended; the command takes ~1 s */
		o.timeout_ms = 60000;
		job->rc = confine_spawn_through(job->provider, job->policy, &o, &job->process,
		                                &job->err);
	}
	/* Linger a moment so that anything armed with PR_SET_PDEATHSIG during
	 * the start is in place when this thread ends (it is not a bound). */
	usleep(300 * 1000);
	return NULL; /* the thread that started the run ends here */
}

static void one(confine_provider *p, confine_runner rung, bool through_bash) {
	const char *how = through_bash ? "confine_bash_start" : "confine_spawn_through";
	char marker[700], command[2000];
	struct job job = { 0 };
	pthread_t t;
	confine_error err = { 0 };
	bool marker_at_join;

	snprintf(marker, sizeof marker, "%s/marker-%s", workspace, how);
	snprintf(command, sizeof command, "sleep 1; touch '%s'; echo x > '%s'", marker, outside);
	if (confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, workspace, &job.policy, &err) < 0) {
		tl_check(false, "%s: policy: %s", how, err.message);
		return;
	}
	job.provider = p;
	job.command = command;
	job.through_bash = through_bash;
	if (pthread_create(&t, NULL, start_and_leave, &job) != 0) {
		tl_check(false, "%s: pthread_create", how);
		confine_policy_free(job.policy);
		return;
	}
	pthread_join(t, NULL);
	/* The thread is gone; the command is still in its `sleep 1`. */
	marker_at_join = tl_exists(marker);
	tl_check(job.rc == 0, "%s from a thread that then exited started the run (%s)", how,
	         job.rc == 0 ? "ok" : job.err.message);
	if (job.rc != 0) {
		confine_policy_free(job.policy);
		return;
	}
	tl_check(!marker_at_join, "%s: the thread had exited before the command finished", how);
	if (through_bash) {
		confine_bash_result *r = NULL;
		int rc = confine_bash_wait(job.process, &r, &err);
		tl_check(rc == 0 && r, "%s: the main thread waited for it", how);
		if (rc == 0 && r) {
			char *text = confine_bash_render(r);
			for (char *c = text; c && *c; c++)
				if (*c == '\n')
					*c = '|';
			printf("# rendered: %s\n", text ? text : "(null)");
			tl_check(!r->outcome->signaled, "%s: the command was not killed (signal %d)", how,
			         r->outcome->signaled ? r->outcome->signal : 0);
			tl_check(r->error.code == CONFINE_OK && !r->outcome->runner_failed,
			         "%s: no runner failure", how);
			tl_check(r->outcome->runner == rung, "%s: ran on the pinned rung", how);
			free(text);
			confine_bash_result_free(r);
		}
	} else {
		confine_outcome *o = NULL;
		int rc = confine_process_wait(job.process, &o, &err);
		tl_check(rc == 0 && o, "%s: the main thread waited for it", how);
		if (rc == 0 && o) {
			for (char *c = o->stderr_data; c && *c; c++)
				if (*c == '\n')
					*c = '|';
			printf("# outcome: signaled=%d signal=%d exit=%d stderr=%s\n", o->signaled,
			       o->signal, o->exit_code, o->stderr_data ? o->stderr_data : "");
			tl_check(!o->signaled, "%s: the command was not killed (signal %d)", how,
			         o->signaled ? o->signal : 0);
			tl_check(!o->runner_failed, "%s: no runner failure", how);
			tl_check(o->runner == rung, "%s: ran on the pinned rung", how);
			confine_outcome_free(o);
		}
	}
	confine_process_free(job.process);
	tl_check(tl_exists(marker), "%s: the command completed: its marker is there", how);
	tl_check(!tl_exists(outside), "%s: it ran confined: nothing written outside the workspace",
	         how);
	confine_policy_free(job.policy);
}

/* The control, bwrap only: the argv `wrap` hands to others keeps
 * --die-with-parent (PR_SET_PDEATHSIG). Spawned with plain confine_spawn()
 * from a thread that then exits, bwrap and its command are killed: the trap
 * is real, and the checks above would see it. */
struct raw_job {
	const confine_argv *confined;
	confine_process *process;
	int rc;
};

static void *spawn_raw_and_leave(void *data) {
	struct raw_job *job = data;
	confine_spawn_options o;
	confine_error err = { 0 };
	confine_spawn_options_init(&o);
	o.confined = job->confined;
	o.timeout_ms = 60000;
	job->rc = confine_spawn(&o, &job->process, &err);
	usleep(300 * 1000); /* bwrap arms PR_SET_PDEATHSIG once running */
	return NULL;
}

static void control_die_with_parent(void) {
	const char *launcher = tl_launcher();
	confine_provider *p;
	confine_policy *policy = NULL;
	confine_argv *confined = NULL;
	confine_error err = { 0 };
	struct raw_job job = { 0 };
	confine_outcome *o = NULL;
	char marker[700], command[1000];
	const char *argv[] = { "sh", "-c", command, NULL };
	pthread_t t;

	snprintf(marker, sizeof marker, "%s/marker-control", workspace);
	snprintf(command, sizeof command, "sleep 2; touch '%s'", marker);
	if (!launcher || !(p = tl_pinned(CONFINE_RUNNER_BWRAP, launcher))) {
		printf("# control skipped: no on-disk launcher\n");
		return;
	}
	if (confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, workspace, &policy, &err) < 0 ||
	    confine_confine(p, argv, policy, &confined, &err) < 0) {
		printf("# control skipped: %s\n", err.message);
		confine_policy_free(policy);
		confine_provider_free(p);
		return;
	}
	job.confined = confined;
	if (pthread_create(&t, NULL, spawn_raw_and_leave, &job) == 0) {
		pthread_join(t, NULL);
		if (job.rc == 0 && confine_process_wait(job.process, &o, &err) == 0) {
			printf("# control: signaled=%d signal=%d exit=%d\n", o->signaled, o->signal,
			       o->exit_code);
			tl_check(!tl_exists(marker),
			         "control: the wrap argv (--die-with-parent) from an exited thread is "
			         "killed with it (the trap the in-process path avoids)");
			confine_outcome_free(o);
		}
		confine_process_free(job.process);
	}
	confine_argv_free(confined);
	confine_policy_free(policy);
	confine_provider_free(p);
}

int main(int argc, char **argv) {
	confine_runner rung;
	confine_verdict v;
	confine_provider *p;
	const char *launcher = getenv("CONFINE_TEST_LAUNCHER");
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2 || (strcmp(argv[1], "bwrap") != 0 && strcmp(argv[1], "landlock") != 0)) {
		fprintf(stderr, "usage: test-faults-thread bwrap|landlock\n");
		return 2;
	}
	rung = strcmp(argv[1], "bwrap") == 0 ? CONFINE_RUNNER_BWRAP : CONFINE_RUNNER_LANDLOCK;
	if ((rc = tl_require_rung(rung, launcher, &v)) != 0)
		return rc;
	if (tl_make_workdir("faults-thread", base, sizeof base) < 0)
		return 1;
	snprintf(workspace, sizeof workspace, "%s/ws", base);
	snprintf(outside, sizeof outside, "%s/outside", base);
	if (mkdir(workspace, 0755) < 0) {
		tl_remove_tree(base);
		return 1;
	}
	/* The library's own launcher (the sealed in-memory copy): NULL. */
	p = tl_pinned(rung, NULL);
	if (!p) {
		tl_remove_tree(base);
		return 1;
	}
	tl_check_label(argv[1]);
	one(p, rung, false);
	one(p, rung, true);
	if (rung == CONFINE_RUNNER_BWRAP)
		control_die_with_parent();
	confine_provider_free(p);
	tl_remove_tree(base);
	return tl_checks_done();
}
