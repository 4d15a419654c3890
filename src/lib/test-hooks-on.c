/* SPDX-License-Identifier: MIT */
/* The test build's hooks (test-hooks.h), linked into confine-test-hooks
 * only: never into libconfine or the installed confine. */
#include <stdlib.h>

#include "test-hooks.h"

const char *cf_test_proxy_hosts(void) {
	const char *hosts = getenv("CONFINE_TEST_PROXY_HOSTS");
	return hosts && hosts[0] == '/' ? hosts : NULL;
}
