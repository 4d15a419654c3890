/* SPDX-License-Identifier: MIT */
/* The runner ladder: chains, probe arbitration, the cached verdict. */
#include "local/ladder.h"

#include <errno.h>
#include <string.h>

#include "rungs/rung.h"

size_t cf_ladder_chain_for_platform(const char *platform, confine_runner chain[CF_LADDER_MAX]) {
	size_t n = 0;
	/* The platform's rows in table order (rungs/rungs.c: on Linux bwrap first,
	 * whose PID namespace and private /tmp go further than Landlock, which
	 * needs no user namespaces or mount privileges). Every other platform
	 * (Windows included) has an empty chain: it fails closed rather than
	 * run anything unconfined. */
	for (size_t i = 0; platform && cf_runners[i] && n < CF_LADDER_MAX; i++)
		if (cf_runners[i]->platform && !cf_runners[i]->pin_only &&
		    strcmp(cf_runners[i]->platform, platform) == 0)
			chain[n++] = cf_runners[i]->id;
	return n;
}

int cf_ladder_init(cf_ladder *ladder, const confine_runner *chain, size_t n,
                   const cf_ladder_hooks *hooks) {
	int r;
	if (!ladder || n > CF_LADDER_MAX || (n && !chain) || !hooks || (n > 1 && !hooks->probe))
		return -EINVAL;
	memset(ladder, 0, sizeof *ladder);
	if (n)
		memcpy(ladder->chain, chain, n * sizeof *chain);
	ladder->n_chain = n;
	ladder->hooks = *hooks;
	r = pthread_mutex_init(&ladder->lock, NULL);
	if (r != 0)
		return -r;
	return 0;
}

void cf_ladder_destroy(cf_ladder *ladder) {
	if (ladder)
		pthread_mutex_destroy(&ladder->lock);
}

static cf_ladder_choice decide(cf_ladder *ladder) {
	cf_ladder_choice choice = { .usable = false, .runner = CONFINE_RUNNER_NONE,
	                            .enforcement = CONFINE_ENFORCEMENT_FULL };
	confine_enforcement enforcement = CONFINE_ENFORCEMENT_FULL;

	if (ladder->n_chain == 0)
		return choice;
	if (ladder->n_chain == 1) {
		/* Nothing to arbitrate: a sole candidate is selected without a probe,
		 * and an unusable one fails closed at execution. */
		confine_runner rung = ladder->chain[0];
		if (ladder->hooks.select_unprobed &&
		    !ladder->hooks.select_unprobed(ladder->hooks.ctx, rung, &enforcement))
			return choice;
		choice.usable = true;
		choice.runner = rung;
		choice.enforcement = enforcement;
		return choice;
	}
	for (size_t i = 0; i < ladder->n_chain; i++) {
		confine_runner rung = ladder->chain[i];
		bool passed;
		enforcement = CONFINE_ENFORCEMENT_FULL;
		ladder->probes_run++;
		passed = ladder->hooks.probe(ladder->hooks.ctx, rung, &enforcement);
		if (passed) {
			choice.usable = true;
			choice.runner = rung;
			choice.enforcement = enforcement;
			return choice;
		}
	}
	return choice;
}

cf_ladder_choice cf_ladder_select(cf_ladder *ladder) {
	cf_ladder_choice choice;
	pthread_mutex_lock(&ladder->lock);
	if (!ladder->decided) {
		ladder->choice = decide(ladder);
		ladder->decided = true;
	}
	choice = ladder->choice;
	pthread_mutex_unlock(&ladder->lock);
	return choice;
}

static cf_ladder_choice unusable(void) {
	cf_ladder_choice c = { .usable = false, .runner = CONFINE_RUNNER_NONE,
	                       .enforcement = CONFINE_ENFORCEMENT_FULL };
	return c;
}

static bool excluded_rung(unsigned excluded, confine_runner rung) {
	return (unsigned)rung < 32 && (excluded & (1u << (unsigned)rung));
}

cf_ladder_choice cf_ladder_optimistic_excluding(cf_ladder *ladder, unsigned excluded) {
	cf_ladder_choice choice = unusable();
	pthread_mutex_lock(&ladder->lock);
	if (ladder->decided && (!ladder->choice.usable ||
	                        !excluded_rung(excluded, ladder->choice.runner))) {
		choice = ladder->choice;
		pthread_mutex_unlock(&ladder->lock);
		return choice;
	}
	for (size_t i = 0; i < ladder->n_chain; i++) {
		confine_enforcement enforcement = CONFINE_ENFORCEMENT_FULL;
		if (ladder->failed[i] || excluded_rung(excluded, ladder->chain[i]))
			continue;
		if (ladder->hooks.select_unprobed &&
		    !ladder->hooks.select_unprobed(ladder->hooks.ctx, ladder->chain[i], &enforcement)) {
			ladder->failed[i] = true; /* nothing that could run here */
			continue;
		}
		choice.usable = true;
		choice.runner = ladder->chain[i];
		choice.enforcement = enforcement;
		break;
	}
	if (!choice.usable && !excluded) {
		/* every rung failed: that is the verdict, cached like a probed one */
		ladder->choice = choice;
		ladder->decided = true;
	}
	pthread_mutex_unlock(&ladder->lock);
	return choice;
}

cf_ladder_choice cf_ladder_optimistic(cf_ladder *ladder) {
	return cf_ladder_optimistic_excluding(ladder, 0);
}

bool cf_ladder_has_rung(cf_ladder *ladder, unsigned excluded) {
	bool left = false;
	pthread_mutex_lock(&ladder->lock);
	for (size_t i = 0; i < ladder->n_chain; i++)
		if (!ladder->failed[i] && !excluded_rung(excluded, ladder->chain[i]))
			left = true;
	pthread_mutex_unlock(&ladder->lock);
	return left;
}

void cf_ladder_confirm(cf_ladder *ladder, confine_runner rung, confine_enforcement enforcement) {
	pthread_mutex_lock(&ladder->lock);
	for (size_t i = 0; i < ladder->n_chain; i++)
		if (ladder->chain[i] == rung)
			ladder->confirmed[i] = true;
	if (!ladder->decided) {
		ladder->choice.usable = true;
		ladder->choice.runner = rung;
		ladder->choice.enforcement = enforcement;
		ladder->decided = true;
	}
	pthread_mutex_unlock(&ladder->lock);
}

bool cf_ladder_fail(cf_ladder *ladder, confine_runner rung) {
	bool left = false;
	pthread_mutex_lock(&ladder->lock);
	for (size_t i = 0; i < ladder->n_chain; i++)
		if (ladder->chain[i] == rung && !ladder->confirmed[i]) {
			ladder->failed[i] = true;
			if (ladder->decided && ladder->choice.runner == rung)
				ladder->decided = false;
		}
	for (size_t i = 0; i < ladder->n_chain; i++)
		if (!ladder->failed[i])
			left = true;
	if (!left) {
		ladder->choice = unusable();
		ladder->decided = true;
	}
	pthread_mutex_unlock(&ladder->lock);
	return left;
}

unsigned cf_ladder_probe_count(cf_ladder *ladder) {
	unsigned n;
	pthread_mutex_lock(&ladder->lock);
	n = ladder->probes_run;
	pthread_mutex_unlock(&ladder->lock);
	return n;
}
