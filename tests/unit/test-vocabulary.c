/* SPDX-License-Identifier: MIT */
/* Vocabulary: modes, enforcement, runners, error codes, the exact
 * SANDBOX_UNAVAILABLE message. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "confine.h"

static const char unavailable_prefix[] = "sandbox mode \"";
static const char unavailable_suffix[] =
	"\" is requested but no sandbox backend is usable on this host; refusing to run the "
	"command unconfined. Install bubblewrap or run a Landlock-enforcing kernel (Linux), "
	"ensure sandbox-exec is usable (macOS) \xe2\x80\x94 Windows has no confinement backend "
	"yet \xe2\x80\x94 or switch the consumer to danger-full-access.";

static void test_mode_spellings_round_trip(void **state) {
	static const char *const names[] = { "read-only", "workspace-write", "danger-full-access" };
	(void)state;
	for (size_t i = 0; i < 3; i++) {
		confine_mode m;
		assert_int_equal(confine_mode_parse(names[i], &m, NULL), 0);
		assert_int_equal(m, (confine_mode)i);
		assert_string_equal(confine_mode_name(m), names[i]);
	}
}

static void test_unknown_mode_is_an_error_naming_the_value(void **state) {
	static const char *const bad[] = { "Read-Only", "readonly", "", "workspace-write ", "full" };
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		confine_error err = { 0 };
		confine_mode m = CONFINE_MODE_WORKSPACE_WRITE;
		char quoted[64];
		assert_int_equal(confine_mode_parse(bad[i], &m, &err), -EINVAL);
		assert_int_equal(m, CONFINE_MODE_WORKSPACE_WRITE); /* untouched */
		assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
		snprintf(quoted, sizeof quoted, "\"%s\"", bad[i]);
		assert_non_null(strstr(err.message, quoted));
	}
	assert_int_equal(confine_mode_parse(NULL, &(confine_mode){ 0 }, NULL), -EINVAL);
}

static void test_width_order(void **state) {
	(void)state;
	assert_true(confine_mode_is_wider(CONFINE_MODE_WORKSPACE_WRITE, CONFINE_MODE_READ_ONLY));
	assert_true(confine_mode_is_wider(CONFINE_MODE_DANGER_FULL_ACCESS, CONFINE_MODE_WORKSPACE_WRITE));
	assert_true(confine_mode_is_wider(CONFINE_MODE_DANGER_FULL_ACCESS, CONFINE_MODE_READ_ONLY));
	assert_false(confine_mode_is_wider(CONFINE_MODE_READ_ONLY, CONFINE_MODE_READ_ONLY));
	assert_false(confine_mode_is_wider(CONFINE_MODE_READ_ONLY, CONFINE_MODE_WORKSPACE_WRITE));
	assert_true(confine_mode_is_confined(CONFINE_MODE_READ_ONLY));
	assert_true(confine_mode_is_confined(CONFINE_MODE_WORKSPACE_WRITE));
	assert_false(confine_mode_is_confined(CONFINE_MODE_DANGER_FULL_ACCESS));
}

static void test_enforcement_and_runner_names(void **state) {
	confine_runner r;
	confine_error err;
	(void)state;
	assert_string_equal(confine_enforcement_name(CONFINE_ENFORCEMENT_FULL), "full");
	assert_string_equal(confine_enforcement_name(CONFINE_ENFORCEMENT_PARTIAL), "partial");
	assert_string_equal(confine_runner_name(CONFINE_RUNNER_BWRAP), "bwrap");
	assert_string_equal(confine_runner_name(CONFINE_RUNNER_LANDLOCK), "landlock");
	assert_string_equal(confine_runner_name(CONFINE_RUNNER_SEATBELT), "seatbelt");
	assert_string_equal(confine_runner_name(CONFINE_RUNNER_RUNNER_COMMAND), "runnerCommand");
	assert_int_equal(confine_runner_parse("landlock", &r, NULL), 0);
	assert_int_equal(r, CONFINE_RUNNER_LANDLOCK);
	assert_int_equal(confine_runner_parse("docker", &r, &err), -EINVAL);
	assert_non_null(strstr(err.message, "\"docker\""));
}

static void check_unavailable(confine_mode mode, const char *detail) {
	confine_error err = { 0 };
	char expected[2048];
	int n = snprintf(expected, sizeof expected, "%s%s%s", unavailable_prefix,
	                 confine_mode_name(mode), unavailable_suffix);
	if (detail)
		snprintf(expected + n, sizeof expected - (size_t)n, " Runner failure: %s", detail);
	assert_int_equal(confine_error_sandbox_unavailable(&err, mode, detail), -EHOSTUNREACH);
	assert_int_equal(err.code, CONFINE_E_SANDBOX_UNAVAILABLE);
	assert_string_equal(err.message, expected);
	assert_string_equal(confine_error_code_name(err.code), "SANDBOX_UNAVAILABLE");
}

static void test_sandbox_unavailable_exact_text(void **state) {
	(void)state;
	check_unavailable(CONFINE_MODE_READ_ONLY, NULL);
	check_unavailable(CONFINE_MODE_WORKSPACE_WRITE, NULL);
	check_unavailable(CONFINE_MODE_READ_ONLY,
	                  "landlock-run: landlock ruleset error: Invalid argument");
	check_unavailable(CONFINE_MODE_WORKSPACE_WRITE, "fake-runner: ruleset rejected");
}

static void test_sandbox_unavailable_literal(void **state) {
	/* The contract's sentence spelled out once in full, byte for byte. */
	confine_error err;
	(void)state;
	confine_error_sandbox_unavailable(&err, CONFINE_MODE_READ_ONLY,
	                                  "landlock-run: landlock ruleset error: Invalid argument");
	assert_string_equal(
		err.message,
		"sandbox mode \"read-only\" is requested but no sandbox backend is usable on this host; "
		"refusing to run the command unconfined. Install bubblewrap or run a Landlock-enforcing "
		"kernel (Linux), ensure sandbox-exec is usable (macOS) — Windows has no confinement "
		"backend yet — or switch the consumer to danger-full-access. Runner failure: "
		"landlock-run: landlock ruleset error: Invalid argument");
}

static void test_version(void **state) {
	(void)state;
	assert_string_equal(confine_version(), CONFINE_VERSION_STRING);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mode_spellings_round_trip),
		cmocka_unit_test(test_unknown_mode_is_an_error_naming_the_value),
		cmocka_unit_test(test_width_order),
		cmocka_unit_test(test_enforcement_and_runner_names),
		cmocka_unit_test(test_sandbox_unavailable_exact_text),
		cmocka_unit_test(test_sandbox_unavailable_literal),
		cmocka_unit_test(test_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
