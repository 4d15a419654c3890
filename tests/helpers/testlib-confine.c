/* SPDX-License-Identifier: MIT */
/* Provider helpers shared by the e2e world tests; see testlib-confine.h. */
#include "testlib-confine.h"

#include <stdio.h>
#include <unistd.h>

confine_provider *tl_pinned(confine_runner rung, const char *launcher) {
	confine_local_config config;
	confine_provider *p = NULL;
	confine_error err = { 0 };
	confine_local_config_init(&config);
	config.pin = rung;
	config.landlock_launcher = launcher;
	if (confine_local_provider_new(&config, &p, &err) < 0) {
		printf("# provider: %s\n", err.message);
		return NULL;
	}
	return p;
}

int tl_require_rung(confine_runner rung, const char *launcher, confine_verdict *v) {
	confine_local_config config;
	confine_provider *probe = NULL;
	confine_error err = { 0 };
	int rc;
	confine_local_config_init(&config);
	if (rung == CONFINE_RUNNER_LANDLOCK) {
		if (!launcher || access(launcher, X_OK) != 0)
			return tl_skip_or_fail("landlock-run is not built (CONFINE_TEST_LAUNCHER)");
		/* bwrap kept off PATH, so the ladder reaches the launcher's probe */
		config.platform = "linux";
		config.path = "/nonexistent";
		config.landlock_launcher = launcher;
	}
	/* bwrap: the default ladder picks it when its functional probe passes */
	rc = confine_local_provider_new(&config, &probe, &err);
	if (rc == 0)
		rc = confine_provider_verdict(probe, v, &err);
	confine_provider_free(probe);
	if (rc < 0) {
		printf("# verdict: %s\n", err.message);
		return 1;
	}
	if (!v->usable || v->runner != rung)
		return tl_skip_or_fail(rung == CONFINE_RUNNER_BWRAP
		                               ? "bwrap is absent or its probe fails here"
		                               : "this kernel does not enforce Landlock");
	return 0;
}
