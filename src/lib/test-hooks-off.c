/* SPDX-License-Identifier: MIT */
/* The installed build's test hooks (test-hooks.h): all off, no input. */
#include <stddef.h>

#include "test-hooks.h"

const char *cf_test_proxy_hosts(void) {
	return NULL;
}
