/* SPDX-License-Identifier: MIT */
/*
 * Test hooks of the library: inputs only a test build reads. The installed
 * library and command link test-hooks-off.c, where every hook is off; the
 * test-only command `confine-test-hooks` (src/cli/meson.build, never
 * installed) links test-hooks-on.c instead, as the launcher's own hooks
 * live only in its test build (tests/e2e/launcher/meson.build).
 */
#ifndef CONFINE_TEST_HOOKS_H
#define CONFINE_TEST_HOOKS_H

#include "util.h"

/* CONFINE_TEST_PROXY_HOSTS (doc/SPEC.md 15, "Test-only resolver map"): an
 * absolute hosts-format file the launcher's proxy reads as it reads
 * /etc/hosts, or NULL. Always NULL in an installed build. */
const char *cf_test_proxy_hosts(void) CONFINE_HIDDEN;

#endif
