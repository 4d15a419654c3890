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
 * that a command started by confine_spawn_through() and by
 * confine_bash_start() from a thread that has exited (joined, and its exit
 * processed: the parent-death signals of its children are sent by then)
 * completes: it waits for a GO file the main thread creates only after
 * that, then writes MARKER inside the workspace and tries OUTSIDE. The
 * marker appears, the command is not killed by a signal, and OUTSIDE stays
 * absent (its write there was refused: it ran confined). No pause orders
 * anything: the command cannot finish before GO exists.
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
#include <sys/syscall.h>
#include <unistd.h>

#include "testlib-confine.h"

extern char **environ;

static char base[512];
static char workspace[600];
static char outside[600];

/* The command: says it started, waits for GO (bounded by 1200 polls, 60 s
 * at least, which only keeps a broken run from hanging), then writes
 * MARKER only if GO came, and tries OUTSIDE. */
static void command_for(char *out, size_t size, const char *started, const char *go,
                        const char *marker) {
	snprintf(out, size,
	         "touch '%s'; i=0; while [ ! -e '%s' ] && [ $i -lt 1200 ]; do sleep 0.05; "
	         "i=$((i+1)); done; [ -e '%s' ] && touch '%s'; echo x > '%s'",
	         started, go, go, marker, outside);
}

/* Waits (bounded: it only proves the run started) until `path` exists. */
static bool appears(const char *path) {
	for (long long until = tl_now_ms() + TL_GONE_BOUND_MS; tl_now_ms() < until;) {
		if (tl_exists(path))
			return true;
		usleep(10000);
	}
	return tl_exists(path);
}

/* Once the thread `tid` of this process is gone from /proc/self/task, its
 * exit has been processed: its children were handed on and sent their
 * parent-death signals (exit_notify comes before the task is released,
 * while pthread_join may return as soon as the thread's tid is cleared). */
static bool thread_gone(pid_t tid) {
	char path[64];
	snprintf(path, sizeof path, "/proc/self/task/%d", (int)tid);
	for (long long until = tl_now_ms() + TL_GONE_BOUND_MS; tl_now_ms() < until;) {
		if (!tl_exists(path))
			return true;
		usleep(10000);
	}
	return !tl_exists(path);
}

static void touch(const char *path) {
	FILE *f = fopen(path, "we");
	if (f)
		fclose(f);
}

struct job {
	confine_provider *provider;
	confine_policy *policy;
	const char *command;
	const char *started;      /* the command writes it first */
	bool through_bash;
	confine_process *process; /* out */
	confine_error err;        /* out */
	int rc;                   /* out */
	pid_t tid;                /* out: the thread that started the run */
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
	job->tid = (pid_t)syscall(SYS_gettid);
	/* Until the command runs: anything armed with PR_SET_PDEATHSIG during
	 * the start is in place when this thread ends. */
	if (job->rc == 0)
		(void)appears(job->started);
	return NULL; /* the thread that started the run ends here */
}

static void one(confine_provider *p, confine_runner rung, bool through_bash) {
	const char *how = through_bash ? "confine_bash_start" : "confine_spawn_through";
	char marker[700], started[700], go[700], command[4000];
	struct job job = { 0 };
	pthread_t t;
	confine_error err = { 0 };

	snprintf(marker, sizeof marker, "%s/marker-%s", workspace, how);
	snprintf(started, sizeof started, "%s/started-%s", workspace, how);
	snprintf(go, sizeof go, "%s/go-%s", workspace, how);
	command_for(command, sizeof command, started, go, marker);
	if (confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, workspace, &job.policy, &err) < 0) {
		tl_check(false, "%s: policy: %s", how, err.message);
		return;
	}
	job.provider = p;
	job.command = command;
	job.started = started;
	job.through_bash = through_bash;
	if (pthread_create(&t, NULL, start_and_leave, &job) != 0) {
		tl_check(false, "%s: pthread_create", how);
		confine_policy_free(job.policy);
		return;
	}
	pthread_join(t, NULL);
	tl_check(job.rc == 0, "%s from a thread that then exited started the run (%s)", how,
	         job.rc == 0 ? "ok" : job.err.message);
	if (job.rc != 0) {
		confine_policy_free(job.policy);
		return;
	}
	tl_check(tl_exists(started) && thread_gone(job.tid),
	         "%s: the command runs, and the thread that started it is gone", how);
	/* Only now may the command finish. */
	touch(go);
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
	const char *const *envp;
	const char *started;
	const char *mark;
	confine_process *process;
	int rc;
	pid_t tid;
	bool seen;
};

static void *spawn_raw_and_leave(void *data) {
	struct raw_job *job = data;
	confine_spawn_options o;
	confine_error err = { 0 };
	confine_spawn_options_init(&o);
	o.confined = job->confined;
	o.envp = job->envp;
	o.timeout_ms = 60000;
	job->rc = confine_spawn(&o, &job->process, &err);
	job->tid = (pid_t)syscall(SYS_gettid);
	/* Until the command runs: bwrap has armed PR_SET_PDEATHSIG by then.
	 * Seen in the process table while this thread lives (the control that
	 * the scan below can see the tree at all). */
	if (job->rc == 0)
		job->seen = appears(job->started) && tl_marked_count(job->mark) > 0;
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
	char marker[700], started[700], go[700], command[4000], mark[96];
	const char *argv[] = { "sh", "-c", command, NULL };
	const char **envp;
	size_t n = 0;
	pthread_t t;

	snprintf(marker, sizeof marker, "%s/marker-control", workspace);
	snprintf(started, sizeof started, "%s/started-control", workspace);
	snprintf(go, sizeof go, "%s/go-control", workspace);
	command_for(command, sizeof command, started, go, marker);
	/* Every process of the run carries the mark: the tree is found in the
	 * process table. */
	snprintf(mark, sizeof mark, "CONFINE_TEST_TREE=faults-thread-control-%d", (int)getpid());
	while (environ[n])
		n++;
	envp = calloc(n + 2, sizeof *envp);
	if (!envp) {
		printf("# control skipped: out of memory\n");
		return;
	}
	for (size_t i = 0; i < n; i++)
		envp[i] = environ[i];
	envp[n] = mark;
	if (!launcher || !(p = tl_pinned(CONFINE_RUNNER_BWRAP, launcher))) {
		printf("# control skipped: no on-disk launcher\n");
		free(envp);
		return;
	}
	if (confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, workspace, &policy, &err) < 0 ||
	    confine_confine(p, argv, policy, &confined, &err) < 0) {
		printf("# control skipped: %s\n", err.message);
		confine_policy_free(policy);
		confine_provider_free(p);
		free(envp);
		return;
	}
	job.confined = confined;
	job.envp = envp;
	job.started = started;
	job.mark = mark;
	if (pthread_create(&t, NULL, spawn_raw_and_leave, &job) == 0) {
		pthread_join(t, NULL);
		if (job.rc == 0) {
			bool gone;
			tl_check(job.seen && thread_gone(job.tid),
			         "control: the command ran (seen in the process table), and the thread "
			         "that started it is gone");
			/* The trap fires: the whole tree ends before GO exists (the
			 * bound only proves it; without the trap it would wait for GO). */
			gone = tl_marked_gone_within(mark, TL_GONE_BOUND_MS);
			touch(go);
			if (confine_process_wait(job.process, &o, &err) == 0) {
				printf("# control: signaled=%d signal=%d exit=%d\n", o->signaled,
				       o->signal, o->exit_code);
				confine_outcome_free(o);
			}
			tl_check(gone && !tl_exists(marker),
			         "control: the wrap argv (--die-with-parent) from an exited thread is "
			         "killed with it (the trap the in-process path avoids)");
		}
		confine_process_free(job.process);
	}
	free(envp);
	confine_argv_free(confined);
	confine_policy_free(policy);
	confine_provider_free(p);
}

int main(int argc, char **argv) {
	confine_runner rung;
	confine_verdict v;
	confine_provider *p;
	/* the probe's launcher: the test's copy outside a /tmp build tree, which
	 * the trust rule refuses (doc/SPEC.md 14) */
	const char *launcher = tl_launcher();
	int rc;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2 || (strcmp(argv[1], "bwrap") != 0 && strcmp(argv[1], "landlock") != 0)) {
		fprintf(stderr, "usage: test-faults-thread bwrap|landlock\n");
		return 2;
	}
	rung = strcmp(argv[1], "bwrap") == 0 ? CONFINE_RUNNER_BWRAP : CONFINE_RUNNER_LANDLOCK;
	if ((rc = tl_require_rung(rung, launcher, &v)) != 0)
		return tl_exit(rc);
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
