/* SPDX-License-Identifier: MIT */
/* Version: the header's compile-time macros, meson's project version (from
 * config.h) and confine_version() at run time must all agree, so a release
 * that bumps meson.build but forgets include/confine.h fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "confine.h"
#include "config.h"

static void test_header_string_is_the_project_version(void **state) {
	(void)state;
	assert_string_equal(CONFINE_VERSION_STRING, CONFINE_VERSION);
}

static void test_header_numbers_spell_the_header_string(void **state) {
	char spelled[64];
	(void)state;
	snprintf(spelled, sizeof spelled, "%d.%d.%d", CONFINE_VERSION_MAJOR, CONFINE_VERSION_MINOR,
	         CONFINE_VERSION_MICRO);
	assert_string_equal(spelled, CONFINE_VERSION_STRING);
}

static void test_run_time_version_is_the_project_version(void **state) {
	(void)state;
	assert_non_null(confine_version());
	assert_string_equal(confine_version(), CONFINE_VERSION);
	/* Static: the same pointer every time, nothing to free. */
	assert_ptr_equal(confine_version(), confine_version());
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_string_is_the_project_version),
		cmocka_unit_test(test_header_numbers_spell_the_header_string),
		cmocka_unit_test(test_run_time_version_is_the_project_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
