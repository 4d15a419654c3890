/* SPDX-License-Identifier: MIT */
/* What the launcher will apply in an argv for others (forecast.h). */
#include "rungs/landlock/forecast.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "launcher-protocol.h"
#include "rungs/probe.h"
#include "policy-internal.h"

/* The launcher's ABI thresholds (src/launcher/ruleset.c, doc/SPEC.md 7). */
enum {
	ABI_REFER = 2,
	ABI_TRUNCATE = 3,
	ABI_FULL = 5, /* IOCTL_DEV: every file right SPEC 7 names */
	ABI_SCOPES = 6,
	ABI_RESOLVE_UNIX = 9, /* Landlock decides pathname sockets itself */
};

static void word(cf_launcher_forecast *f, size_t *n, const char *w, bool partial) {
	if (*n < CF_FORECAST_WORDS_MAX)
		f->unenforced[(*n)++] = w;
	f->unenforced[*n] = NULL;
	if (partial)
		f->partial = true;
}

void cf_launcher_forecast_make(int abi, const char *supervisor_missing, bool inside_outer,
                               bool network_off, cf_launcher_forecast *ret) {
	cf_launcher_forecast f;
	size_t n = 0;

	memset(&f, 0, sizeof f);
	if (abi >= ABI_FULL)
		f.layers |= LAUNCHER_LAYER_LANDLOCK;
	else if (abi >= 1)
		f.layers |= LAUNCHER_LAYER_LANDLOCK_PARTIAL;
	f.layers |= LAUNCHER_LAYER_SECCOMP;
	if (!supervisor_missing)
		f.layers |= LAUNCHER_LAYER_SUPERVISOR;

	/* In the order of doc/SPEC.md 15's list. */
	if (supervisor_missing)
		word(&f, &n, "metadata", true);
	if (supervisor_missing && abi < ABI_RESOLVE_UNIX)
		word(&f, &n, "unix-sockets", true);
	if (!inside_outer && abi < ABI_FULL)
		word(&f, &n, "ioctl-dev", true);
	if (!inside_outer && abi < ABI_TRUNCATE)
		word(&f, &n, "truncate", true);
	if (!inside_outer && abi < ABI_REFER)
		word(&f, &n, "refer", true);
	if (abi < ABI_SCOPES && !(inside_outer && network_off))
		word(&f, &n, "abstract-unix-sockets", false);
	if (!inside_outer && abi < ABI_SCOPES)
		word(&f, &n, "signals", false);
	*ret = f;
}

static bool listed(char *const *strv, const char *item) {
	for (size_t i = 0; strv && strv[i]; i++)
		if (strcmp(strv[i], item) == 0)
			return true;
	return false;
}

static int oom(confine_error *err) {
	return cf_error_set(err, ENOMEM, CONFINE_E_SYSTEM, "confine", ENOMEM, "out of memory");
}

int cf_launcher_forecast_apply(const cf_runner_def *def, const confine_policy *policy,
                               confine_argv *c, confine_error *err) {
	const char *missing = cf_host_supervisor_missing();
	cf_launcher_forecast f;

	cf_launcher_forecast_make(cf_host_landlock_abi(), missing, def->inner != NULL,
	                          policy->network == CONFINE_NETWORK_OFF, &f);
	if (f.partial && policy->require_full) {
		char detail[512];
		size_t used = (size_t)snprintf(detail, sizeof detail, "requireFull: %s does not enforce ",
		                               def->title);
		bool first = true;
		for (size_t i = 0; f.unenforced[i] && used < sizeof detail; i++) {
			/* the words that make it partial (the others are listed only) */
			if (strcmp(f.unenforced[i], "abstract-unix-sockets") == 0 ||
			    strcmp(f.unenforced[i], "signals") == 0)
				continue;
			used += (size_t)snprintf(detail + used, sizeof detail - used, "%s%s",
			                         first ? "" : ", ", f.unenforced[i]);
			first = false;
		}
		if (missing && used < sizeof detail)
			snprintf(detail + used, sizeof detail - used,
			         " (the supervisor cannot run here: %s)", missing);
		return confine_error_sandbox_unavailable(err, policy->mode, detail);
	}
	for (unsigned i = 0; launcher_layer_word(i); i++)
		if ((f.layers & (1U << i)) && cf_strv_push(&c->layers, launcher_layer_word(i)) < 0)
			return oom(err);
	/* The launcher mediates pathname sockets (its supervisor, or Landlock's
	 * RESOLVE_UNIX): the allowance is enforced; without either,
	 * "unix-sockets" says that nothing is. */
	cf_strv_remove(c->unenforced, "allowUnixSockets");
	for (size_t i = 0; f.unenforced[i]; i++)
		if (!listed(c->unenforced, f.unenforced[i]) &&
		    cf_strv_push(&c->unenforced, f.unenforced[i]) < 0)
			return oom(err);
	if (f.partial)
		c->enforcement = CONFINE_ENFORCEMENT_PARTIAL;
	return 0;
}
