/* SPDX-License-Identifier: MIT */
/* The runner ladder (SPEC 4) with injected probes: chain walking, the sole
 * candidate, the cache, thread safety, and the provider's fail-closed error. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "local/ladder.h"
#include "local/local-provider.h"
#include "testlib.h"

/* A scripted probe: per rung, pass or fail and the enforcement. Counts every
 * call per rung, under a mutex because some tests call from many threads. */
typedef struct fake {
	bool pass[8];
	confine_enforcement enforcement[8];
	unsigned calls[8];
	unsigned unprobed_calls;
	bool unprobed_ok;
	unsigned delay_ms;
	pthread_mutex_t lock;
} fake;

static bool fake_probe(void *ctx, confine_runner rung, confine_enforcement *ret) {
	fake *f = ctx;
	pthread_mutex_lock(&f->lock);
	f->calls[rung]++;
	pthread_mutex_unlock(&f->lock);
	if (f->delay_ms)
		usleep(f->delay_ms * 1000);
	if (!f->pass[rung])
		return false;
	*ret = f->enforcement[rung];
	return true;
}

static bool fake_unprobed(void *ctx, confine_runner rung, confine_enforcement *ret) {
	fake *f = ctx;
	(void)rung;
	f->unprobed_calls++;
	*ret = CONFINE_ENFORCEMENT_FULL;
	return f->unprobed_ok;
}

static void fake_init(fake *f) {
	memset(f, 0, sizeof *f);
	f->unprobed_ok = true;
	pthread_mutex_init(&f->lock, NULL);
}

static unsigned total_calls(const fake *f) {
	unsigned n = 0;
	for (size_t i = 0; i < 8; i++)
		n += f->calls[i];
	return n;
}

static const confine_runner linux_chain[] = { CONFINE_RUNNER_BWRAP, CONFINE_RUNNER_LANDLOCK };

static void test_platform_chains(void **state) {
	confine_runner chain[CF_LADDER_MAX];
	(void)state;
	assert_int_equal(cf_ladder_chain_for_platform("linux", chain), 2);
	assert_int_equal(chain[0], CONFINE_RUNNER_BWRAP);
	assert_int_equal(chain[1], CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(cf_ladder_chain_for_platform("darwin", chain), 1);
	assert_int_equal(chain[0], CONFINE_RUNNER_SEATBELT);
	assert_int_equal(cf_ladder_chain_for_platform("win32", chain), 0);
	assert_int_equal(cf_ladder_chain_for_platform("freebsd", chain), 0);
	assert_int_equal(cf_ladder_chain_for_platform(NULL, chain), 0);
}

static void test_first_passes_second_never_probed(void **state) {
	fake f;
	cf_ladder ladder;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, &f };
	cf_ladder_choice c;
	(void)state;
	fake_init(&f);
	f.pass[CONFINE_RUNNER_BWRAP] = true;
	f.pass[CONFINE_RUNNER_LANDLOCK] = true;
	assert_int_equal(cf_ladder_init(&ladder, linux_chain, 2, &hooks), 0);
	c = cf_ladder_select(&ladder);
	assert_true(c.usable);
	assert_int_equal(c.runner, CONFINE_RUNNER_BWRAP);
	assert_int_equal(c.enforcement, CONFINE_ENFORCEMENT_FULL);
	assert_int_equal(f.calls[CONFINE_RUNNER_BWRAP], 1);
	assert_int_equal(f.calls[CONFINE_RUNNER_LANDLOCK], 0);
	assert_int_equal(cf_ladder_probe_count(&ladder), 1);
	cf_ladder_destroy(&ladder);
}

/* The optimistic ladder (doc/SPEC.md 17): no probe ever; the first rung
 * until a run fails on it, then the next; a confirmed rung is the verdict;
 * every rung failed is unavailable, cached. */
static void test_optimistic_walks_on_failure_without_probing(void **state) {
	fake f;
	cf_ladder ladder;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, &f };
	cf_ladder_choice c;
	(void)state;
	fake_init(&f);
	assert_int_equal(cf_ladder_init(&ladder, linux_chain, 2, &hooks), 0);
	c = cf_ladder_optimistic(&ladder);
	assert_true(c.usable);
	assert_int_equal(c.runner, CONFINE_RUNNER_BWRAP);
	assert_true(cf_ladder_fail(&ladder, CONFINE_RUNNER_BWRAP));
	c = cf_ladder_optimistic(&ladder);
	assert_true(c.usable);
	assert_int_equal(c.runner, CONFINE_RUNNER_LANDLOCK);
	cf_ladder_confirm(&ladder, CONFINE_RUNNER_LANDLOCK, CONFINE_ENFORCEMENT_PARTIAL);
	c = cf_ladder_optimistic(&ladder);
	assert_int_equal(c.runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(c.enforcement, CONFINE_ENFORCEMENT_PARTIAL);
	/* the confirmed rung is the probe verdict too: no probe runs */
	c = cf_ladder_select(&ladder);
	assert_int_equal(c.runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(total_calls(&f), 0);
	/* a confirmed rung that fails later stays (the failure may be that
	 * call's own, an unopenable grant say); the call itself leaves it out */
	assert_true(cf_ladder_fail(&ladder, CONFINE_RUNNER_LANDLOCK));
	assert_int_equal(cf_ladder_optimistic(&ladder).runner, CONFINE_RUNNER_LANDLOCK);
	assert_false(cf_ladder_optimistic_excluding(&ladder, 1u << CONFINE_RUNNER_LANDLOCK).usable);
	assert_false(cf_ladder_has_rung(&ladder, 1u << CONFINE_RUNNER_LANDLOCK));
	assert_true(cf_ladder_has_rung(&ladder, 0));
	assert_int_equal(total_calls(&f), 0);
	cf_ladder_destroy(&ladder);

	/* a rung never confirmed is failed for good; exclusions are per call */
	fake_init(&f);
	assert_int_equal(cf_ladder_init(&ladder, linux_chain, 2, &hooks), 0);
	assert_int_equal(cf_ladder_optimistic_excluding(&ladder, 1u << CONFINE_RUNNER_BWRAP).runner,
	                 CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(cf_ladder_optimistic(&ladder).runner, CONFINE_RUNNER_BWRAP);
	assert_true(cf_ladder_fail(&ladder, CONFINE_RUNNER_BWRAP));
	assert_false(cf_ladder_fail(&ladder, CONFINE_RUNNER_LANDLOCK));
	assert_false(cf_ladder_optimistic(&ladder).usable);
	assert_false(cf_ladder_select(&ladder).usable);
	cf_ladder_destroy(&ladder);
}

static void test_optimistic_skips_what_cannot_exist_and_keeps_a_probed_verdict(void **state) {
	fake f;
	cf_ladder ladder;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, &f };
	(void)state;
	fake_init(&f);
	f.unprobed_ok = false;
	assert_int_equal(cf_ladder_init(&ladder, linux_chain, 2, &hooks), 0);
	assert_false(cf_ladder_optimistic(&ladder).usable);
	cf_ladder_destroy(&ladder);

	fake_init(&f);
	f.pass[CONFINE_RUNNER_LANDLOCK] = true;
	assert_int_equal(cf_ladder_init(&ladder, linux_chain, 2, &hooks), 0);
	assert_int_equal(cf_ladder_select(&ladder).runner, CONFINE_RUNNER_LANDLOCK);
	/* a probed verdict is what the optimistic ladder uses, bwrap untried */
	assert_int_equal(cf_ladder_optimistic(&ladder).runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(cf_ladder_probe_count(&ladder), 2);
	cf_ladder_destroy(&ladder);
}

static void check_falls_to_landlock(confine_enforcement reported) {
	fake f;
	cf_ladder ladder;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, &f };
	cf_ladder_choice c;
	fake_init(&f);
	f.pass[CONFINE_RUNNER_LANDLOCK] = true;
	f.enforcement[CONFINE_RUNNER_LANDLOCK] = reported;
	assert_int_equal(cf_ladder_init(&ladder, linux_chain, 2, &hooks), 0);
	c = cf_ladder_select(&ladder);
	assert_true(c.usable);
	assert_int_equal(c.runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(c.enforcement, reported);
	assert_int_equal(f.calls[CONFINE_RUNNER_BWRAP], 1);
	assert_int_equal(f.calls[CONFINE_RUNNER_LANDLOCK], 1);
	cf_ladder_destroy(&ladder);
}

static void test_first_fails_landlock_full(void **state) {
	(void)state;
	check_falls_to_landlock(CONFINE_ENFORCEMENT_FULL);
}

static void test_first_fails_landlock_partial(void **state) {
	(void)state;
	check_falls_to_landlock(CONFINE_ENFORCEMENT_PARTIAL);
}

static void test_all_fail_unavailable(void **state) {
	fake f;
	cf_ladder ladder;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, &f };
	cf_ladder_choice c;
	(void)state;
	fake_init(&f);
	assert_int_equal(cf_ladder_init(&ladder, linux_chain, 2, &hooks), 0);
	c = cf_ladder_select(&ladder);
	assert_false(c.usable);
	assert_int_equal(c.runner, CONFINE_RUNNER_NONE);
	assert_int_equal(total_calls(&f), 2);
	cf_ladder_destroy(&ladder);
}

static void test_sole_candidate_selected_unprobed(void **state) {
	static const confine_runner chain[] = { CONFINE_RUNNER_SEATBELT };
	fake f;
	cf_ladder ladder;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, &f };
	cf_ladder_choice c;
	(void)state;
	fake_init(&f); /* the probe would fail: it must not be asked */
	assert_int_equal(cf_ladder_init(&ladder, chain, 1, &hooks), 0);
	c = cf_ladder_select(&ladder);
	assert_true(c.usable);
	assert_int_equal(c.runner, CONFINE_RUNNER_SEATBELT);
	assert_int_equal(total_calls(&f), 0);
	assert_int_equal(cf_ladder_probe_count(&ladder), 0);
	cf_ladder_destroy(&ladder);
}

static void test_empty_chain_unavailable_without_probe(void **state) {
	fake f;
	cf_ladder ladder;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, &f };
	(void)state;
	fake_init(&f);
	f.pass[CONFINE_RUNNER_BWRAP] = true;
	assert_int_equal(cf_ladder_init(&ladder, NULL, 0, &hooks), 0);
	assert_false(cf_ladder_select(&ladder).usable);
	assert_int_equal(total_calls(&f), 0);
	assert_int_equal(f.unprobed_calls, 0);
	cf_ladder_destroy(&ladder);
}

static void test_unavailable_is_cached(void **state) {
	fake f;
	cf_ladder ladder;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, &f };
	(void)state;
	fake_init(&f);
	assert_int_equal(cf_ladder_init(&ladder, linux_chain, 2, &hooks), 0);
	assert_false(cf_ladder_select(&ladder).usable);
	/* A runner that starts working later changes nothing for this ladder. */
	f.pass[CONFINE_RUNNER_BWRAP] = true;
	assert_false(cf_ladder_select(&ladder).usable);
	assert_int_equal(total_calls(&f), 2);
	cf_ladder_destroy(&ladder);
}

/* ---- through the provider ---- */

static void assert_unavailable(const confine_error *err, const char *mode) {
	char want[1024];
	snprintf(want, sizeof want, "sandbox mode \"%s%s", mode, TL_UNAVAILABLE_TAIL);
	assert_int_equal(err->code, CONFINE_E_SANDBOX_UNAVAILABLE);
	/* the exact text, no " Runner failure:" detail */
	assert_string_equal(err->message, want);
}

static confine_provider *make_provider(const char *platform, fake *f) {
	confine_local_config config;
	cf_ladder_hooks hooks = { fake_probe, fake_unprobed, f };
	confine_provider *p = NULL;
	confine_local_config_init(&config);
	config.platform = platform;
	config.path = "/usr/bin:/bin";
	config.landlock_launcher = "/opt/confine/landlock-run";
	assert_int_equal(cf_local_provider_new_with_hooks(&config, &hooks, &p, NULL), 0);
	return p;
}

static const char *const true_argv[] = { "true", NULL };

static void test_provider_both_fail_exact_text(void **state) {
	fake f;
	confine_provider *p;
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = (char *)"/home" };
	confine_argv *out = (confine_argv *)0x1;
	confine_error err = { 0 };
	confine_verdict v;
	(void)state;
	fake_init(&f);
	p = make_provider("linux", &f);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), -EHOSTUNREACH);
	assert_unavailable(&err, "read-only");
	assert_ptr_equal(out, (confine_argv *)0x1);
	memset(&err, 0, sizeof err);
	assert_int_equal(confine_confine(p, true_argv, &ww, &out, &err), -EHOSTUNREACH);
	assert_unavailable(&err, "workspace-write");
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_false(v.usable);
	assert_string_equal(v.runner_path, "");
	/* the unavailable verdict is cached: two probes, once */
	assert_int_equal(total_calls(&f), 2);
	confine_provider_free(p);
}

static void test_provider_empty_chain_no_probe(void **state) {
	fake f;
	confine_provider *p;
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	confine_argv *out = NULL;
	confine_error err = { 0 };
	(void)state;
	fake_init(&f);
	f.pass[CONFINE_RUNNER_BWRAP] = f.pass[CONFINE_RUNNER_LANDLOCK] = true;
	p = make_provider("win32", &f);
	assert_int_equal(confine_confine(p, true_argv, &ro, &out, &err), -EHOSTUNREACH);
	assert_unavailable(&err, "read-only");
	assert_int_equal(total_calls(&f), 0);
	assert_int_equal(f.unprobed_calls, 0);
	confine_provider_free(p);
}

static void test_provider_verdict_cached_across_modes(void **state) {
	fake f;
	confine_provider *p;
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	confine_policy ww = { .mode = CONFINE_MODE_WORKSPACE_WRITE, .workspace_root = (char *)"/home" };
	confine_argv *out = NULL;
	confine_verdict v;
	(void)state;
	fake_init(&f);
	f.pass[CONFINE_RUNNER_LANDLOCK] = true;
	f.enforcement[CONFINE_RUNNER_LANDLOCK] = CONFINE_ENFORCEMENT_PARTIAL;
	p = make_provider("linux", &f);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(confine_confine(p, true_argv, i % 2 ? &ww : &ro, &out, NULL), 0);
		assert_int_equal(out->runner, CONFINE_RUNNER_LANDLOCK);
		assert_int_equal(out->enforcement, CONFINE_ENFORCEMENT_PARTIAL);
		assert_string_equal(out->argv[0], "/opt/confine/landlock-run");
		assert_int_equal(out->policy.mode, i % 2 ? CONFINE_MODE_WORKSPACE_WRITE
		                                         : CONFINE_MODE_READ_ONLY);
		confine_argv_free(out);
	}
	assert_int_equal(confine_provider_verdict(p, &v, NULL), 0);
	assert_true(v.usable);
	assert_int_equal(v.runner, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(v.enforcement, CONFINE_ENFORCEMENT_PARTIAL);
	assert_string_equal(v.runner_path, "/opt/confine/landlock-run");
	/* bwrap probed once and failed, landlock probed once and passed */
	assert_int_equal(f.calls[CONFINE_RUNNER_BWRAP], 1);
	assert_int_equal(f.calls[CONFINE_RUNNER_LANDLOCK], 1);
	confine_provider_free(p);
}

typedef struct racer {
	confine_provider *provider;
	pthread_barrier_t *barrier;
	int result;
	confine_runner runner;
} racer;

static void *race(void *arg) {
	racer *r = arg;
	confine_policy ro = { .mode = CONFINE_MODE_READ_ONLY, .workspace_root = (char *)"/" };
	confine_argv *out = NULL;
	pthread_barrier_wait(r->barrier);
	r->result = confine_confine(r->provider, true_argv, &ro, &out, NULL);
	if (r->result == 0) {
		r->runner = out->runner;
		confine_argv_free(out);
	}
	return NULL;
}

static void test_concurrent_first_calls_probe_once(void **state) {
	enum { N = 8 };
	fake f;
	confine_provider *p;
	pthread_t threads[N];
	racer racers[N];
	pthread_barrier_t barrier;
	(void)state;
	fake_init(&f);
	f.pass[CONFINE_RUNNER_LANDLOCK] = true;
	f.delay_ms = 50; /* a slow probe, so the racers overlap it */
	p = make_provider("linux", &f);
	pthread_barrier_init(&barrier, NULL, N);
	for (int i = 0; i < N; i++) {
		racers[i] = (racer){ p, &barrier, -1, CONFINE_RUNNER_NONE };
		assert_int_equal(pthread_create(&threads[i], NULL, race, &racers[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		pthread_join(threads[i], NULL);
		assert_int_equal(racers[i].result, 0);
		assert_int_equal(racers[i].runner, CONFINE_RUNNER_LANDLOCK);
	}
	assert_int_equal(f.calls[CONFINE_RUNNER_BWRAP], 1);
	assert_int_equal(f.calls[CONFINE_RUNNER_LANDLOCK], 1);
	pthread_barrier_destroy(&barrier);
	confine_provider_free(p);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_platform_chains),
		cmocka_unit_test(test_optimistic_walks_on_failure_without_probing),
		cmocka_unit_test(test_optimistic_skips_what_cannot_exist_and_keeps_a_probed_verdict),
		cmocka_unit_test(test_first_passes_second_never_probed),
		cmocka_unit_test(test_first_fails_landlock_full),
		cmocka_unit_test(test_first_fails_landlock_partial),
		cmocka_unit_test(test_all_fail_unavailable),
		cmocka_unit_test(test_sole_candidate_selected_unprobed),
		cmocka_unit_test(test_empty_chain_unavailable_without_probe),
		cmocka_unit_test(test_unavailable_is_cached),
		cmocka_unit_test(test_provider_both_fail_exact_text),
		cmocka_unit_test(test_provider_empty_chain_no_probe),
		cmocka_unit_test(test_provider_verdict_cached_across_modes),
		cmocka_unit_test(test_concurrent_first_calls_probe_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
