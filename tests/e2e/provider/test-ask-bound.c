/* SPDX-License-Identifier: MIT */
/*
 * A C decider that never answers does not hold the run (red team R3-F2;
 * doc/SPEC.md 15, "Ask"): the library calls confine_spawn_options.ask_host
 * on a thread of its own and waits for the answer only as long as the
 * run's timeout, an ending signal and CONFINE_ASK_HOST_SECONDS allow.
 *
 *   test-ask-bound bwrap|landlock
 *
 * One rung, pinned, on the real kernel; curl inside asks the run's proxy
 * for a name on neither list (it is never resolved: the decider is asked
 * first). Cases:
 *   - control: a decider that answers at once refuses with its reason,
 *     which reaches the command (the 403 body), so the question does reach
 *     the callback;
 *   - a decider that blocks (until this test lets it go, 120 s at most)
 *     and a 3 s --timeout: the run ends timed out, well before the
 *     decider's bound (the old code, which called it on the waiting
 *     thread, ended only when the decider returned);
 *   - the same decider and SIGTERM through confine_process_signal(): the
 *     run ends by the signal, likewise.
 * The bound checked is semantic (below CONFINE_ASK_HOST_SECONDS and the
 * blocking decider's 120 s), not a measure of speed. Then the blocked
 * deciders are let go: their late answers are dropped.
 *
 * Exit 0, 1 (a check failed) or 77 (the rung is absent here, or curl).
 * Environment: CONFINE_TEST_LAUNCHER, the build tree's landlock-run.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testlib-confine.h"

#define BLOCK_SECONDS 120
/* The run must end before this: its 3 s timeout and 3 s grace, far below
 * the decider's bound (CONFINE_ASK_HOST_SECONDS) and its 120 s. */
#define ENDS_WITHIN_MS 20000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t let_go = PTHREAD_COND_INITIALIZER;
static bool released;
static atomic_int asked, returned;

static bool blocking_decider(void *data, const char *host, unsigned port, char *reason,
                             size_t size) {
	struct timespec until;
	(void)data;
	(void)port;
	if (strcmp(host, "slow.invalid") == 0)
		atomic_fetch_add(&asked, 1);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += BLOCK_SECONDS;
	pthread_mutex_lock(&lock);
	while (!released)
		if (pthread_cond_timedwait(&let_go, &lock, &until) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&lock);
	snprintf(reason, size, "a late answer");
	atomic_fetch_add(&returned, 1);
	return true;
}

static bool quick_decider(void *data, const char *host, unsigned port, char *reason,
                          size_t size) {
	(void)data;
	(void)port;
	snprintf(reason, size, "not today: %s", host);
	return false;
}

static const char *const quick_script[] = {
	"/bin/sh", "-c", "curl -sS -m 30 http://slow.invalid/", NULL
};
static const char *const slow_script[] = {
	"/bin/sh", "-c", "curl -sS -m 100 http://slow.invalid/; sleep 100", NULL
};

/* Spawns `script` through the provider (a status channel and the ask
 * socket: doc/SPEC.md 12, 15) under a policy with a decider. */
static int spawn(confine_provider *p, char *ws, const confine_spawn_options *o,
                 confine_process **proc, confine_error *err) {
	confine_policy policy = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = ws,
		                  .network = CONFINE_NETWORK_OFF, .network_ask = true };
	return confine_spawn_through(p, &policy, o, proc, err);
}

/* Spawn and wait. */
static int run_through(confine_provider *p, char *ws, const confine_spawn_options *o,
                       confine_outcome **out, confine_error *err) {
	confine_process *proc = NULL;
	int r = spawn(p, ws, o, &proc, err);
	if (r < 0)
		return r;
	r = confine_process_wait(proc, out, err);
	confine_process_free(proc);
	return r;
}

static void options_for(confine_spawn_options *o, const char *const *argv, const char *ws,
                        bool (*decider)(void *, const char *, unsigned, char *, size_t)) {
	confine_spawn_options_init(o);
	o->argv = argv;
	o->workdir = ws;
	o->stdio[0].kind = CONFINE_STDIO_NULL;
	o->stdio[1].kind = CONFINE_STDIO_CAPTURE;
	o->stdio[2].kind = CONFINE_STDIO_CAPTURE;
	o->ask_host = decider;
}

static void checks(confine_provider *p, char *ws) {
	confine_spawn_options o;
	confine_outcome *out = NULL;
	confine_process *proc = NULL;
	confine_error err = { 0 };
	long long t0, took;

	/* control: the question reaches the callback, its answer the command */
	options_for(&o, quick_script, ws, quick_decider);
	o.timeout_ms = 60000;
	if (run_through(p, ws, &o, &out, &err) == 0) {
		tl_check(out->stdout_data && strstr(out->stdout_data, "(clause network.ask): not today: "
		                                                      "slow.invalid"),
		         "control: a decider's quick refusal reaches the command (%s%s)",
		         out->stdout_data ? out->stdout_data : "(none)",
		         out->stderr_data ? out->stderr_data : "");
		confine_outcome_free(out);
		out = NULL;
	} else {
		tl_check(false, "control run: %s", err.message);
	}

	/* the run's timeout comes first */
	options_for(&o, slow_script, ws, blocking_decider);
	o.timeout_ms = 3000;
	t0 = tl_now_ms();
	if (run_through(p, ws, &o, &out, &err) == 0) {
		took = tl_now_ms() - t0;
		tl_check(out->timed_out && atomic_load(&asked) == 1 && took < ENDS_WITHIN_MS,
		         "R3-F2: a blocking C decider does not hold the run past its timeout "
		         "(timed out %d, asked %d, %lld ms)",
		         out->timed_out, atomic_load(&asked), took);
		confine_outcome_free(out);
		out = NULL;
	} else {
		tl_check(false, "timeout run: %s", err.message);
	}

	/* a signal that ends the run comes first */
	options_for(&o, slow_script, ws, blocking_decider);
	if (spawn(p, ws, &o, &proc, &err) == 0) {
		for (int i = 0; i < 300 && atomic_load(&asked) < 2; i++)
			usleep(100 * 1000);
		t0 = tl_now_ms();
		(void)confine_process_signal(proc, SIGTERM);
		if (confine_process_wait(proc, &out, &err) == 0) {
			took = tl_now_ms() - t0;
			tl_check(atomic_load(&asked) == 2 && out->signaled && out->signal == SIGTERM &&
			                 took < ENDS_WITHIN_MS,
			         "R3-F2: a blocking C decider does not hold the run past SIGTERM "
			         "(asked %d, signal %d, %lld ms)",
			         atomic_load(&asked), out->signaled ? out->signal : 0, took);
			confine_outcome_free(out);
		} else {
			tl_check(false, "signal run: %s", err.message);
		}
		confine_process_free(proc);
	} else {
		tl_check(false, "signal run: %s", err.message);
	}

	/* let the blocked deciders go: their answers are dropped */
	pthread_mutex_lock(&lock);
	released = true;
	pthread_cond_broadcast(&let_go);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 100 && atomic_load(&returned) < atomic_load(&asked); i++)
		usleep(50 * 1000);
	tl_check(atomic_load(&returned) == atomic_load(&asked),
	         "the abandoned deciders returned once let go (%d of %d)", atomic_load(&returned),
	         atomic_load(&asked));
}

int main(int argc, char **argv) {
	confine_runner rung;
	confine_verdict v;
	confine_provider *p;
	char ws[] = "/var/tmp/confine-ask-bound-XXXXXX";
	int rc;

	if (argc != 2 || (strcmp(argv[1], "bwrap") != 0 && strcmp(argv[1], "landlock") != 0)) {
		fprintf(stderr, "usage: test-ask-bound bwrap|landlock\n");
		return 2;
	}
	if (access("/usr/bin/curl", X_OK) != 0)
		return tl_skip_or_fail("curl is not installed");
	rung = strcmp(argv[1], "bwrap") == 0 ? CONFINE_RUNNER_BWRAP : CONFINE_RUNNER_LANDLOCK;
	rc = tl_require_rung(rung, tl_launcher(), &v);
	if (rc != 0)
		return rc;
	p = tl_pinned(rung, tl_launcher());
	if (!p || !mkdtemp(ws))
		return 1;
	checks(p, ws);
	confine_provider_free(p);
	rmdir(ws);
	return tl_checks_done();
}
