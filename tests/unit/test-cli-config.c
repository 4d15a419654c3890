/* SPDX-License-Identifier: MIT */
/* The confine command's configuration reader (src/cli/config.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config-file.h"

static char dir[] = "/tmp/confine-test-cli-config.XXXXXX";
static char path[sizeof dir + 32];

static int setup(void **state) {
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof path, "%s/config.json", dir);
	return 0;
}

static int teardown(void **state) {
	(void)state;
	unlink(path);
	return rmdir(dir);
}

static void write_config(const char *text) {
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* Loads `text` expecting failure; the message must start with the file's
 * path and contain `part`. */
static void expect_error(const char *text, const char *part) {
	cli_config config;
	char message[1024];
	write_config(text);
	memset(&config, 0x5a, sizeof config); /* untouched on failure */
	if (cli_config_load(path, &config, message, sizeof message) >= 0)
		fail_msg("accepted: %s", text);
	if (strncmp(message, path, strlen(path)) != 0 || !strstr(message, part))
		fail_msg("for %s: got \"%s\", expected the path and \"%s\"", text, message, part);
	assert_null(strchr(message, '\n'));
}

static void test_errors_name_file_key_and_problem(void **state) {
	static const struct {
		const char *text;
		const char *part;
	} cases[] = {
		{ "{\"mdoe\": \"read-only\"}", ": unknown key \"mdoe\" (expected mode, workspaceRoot, runnerCommand, runnerFailureSignatures, probeTimeoutMs, landlockLauncher)" },
		{ "{\"mode\": 1}", ": key \"mode\" must be a string, not a number" },
		{ "{\"mode\": \"bogus\"}", ": key \"mode\": unknown sandbox mode \"bogus\"" },
		{ "{\"mode\": null}", ": key \"mode\" must be a string, not null" },
		{ "{\"workspaceRoot\": true}", ": key \"workspaceRoot\" must be a string, not a boolean" },
		{ "{\"workspaceRoot\": \"rel/dir\"}", ": key \"workspaceRoot\" must be an absolute path, got \"rel/dir\"" },
		{ "{\"workspaceRoot\": \"\"}", ": key \"workspaceRoot\" must be an absolute path, got \"\"" },
		{ "{\"landlockLauncher\": \"landlock-run\"}", ": key \"landlockLauncher\" must be an absolute path, got \"landlock-run\"" },
		{ "{\"landlockLauncher\": []}", ": key \"landlockLauncher\" must be a string, not an array" },
		{ "{\"runnerCommand\": \"bwrap\"}", ": key \"runnerCommand\" must be an array of strings, not a string" },
		{ "{\"runnerCommand\": [\"bwrap\", 3]}", ": key \"runnerCommand\" must be an array of strings; element 1 is a number" },
		{ "{\"runnerCommand\": [\"\"]}", ": key \"runnerCommand\": element 0 is an empty string" },
		{ "{\"runnerFailureSignatures\": {}}", ": key \"runnerFailureSignatures\" must be an array of strings, not an object" },
		{ "{\"runnerFailureSignatures\": [null]}", ": key \"runnerFailureSignatures\" must be an array of strings; element 0 is null" },
		{ "{\"probeTimeoutMs\": \"5000\"}", ": key \"probeTimeoutMs\" must be a number, not a string" },
		{ "[1, 2]", ": the configuration must be a JSON object, not an array" },
		{ "\"mode\"", ": the configuration must be a JSON object, not a string" },
		{ "42", ": the configuration must be a JSON object, not a number" },
		{ "{\"mode\": }", ":1:" },
		{ "{\n  \"mode\": \"read-only\",\n  \"probeTimeoutMs\": 5000,,\n}", ":3:" },
		{ "{\"mode\": \"read-only\"", ": malformed JSON: " },
		{ "", ": malformed JSON: " },
		{ "{\"mode\": \"read-only\", \"mode\": \"workspace-write\"}", "duplicate" },
		{ "{\"mode\": \"read-only\"} trailing", ": malformed JSON: " },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_error(cases[i].text, cases[i].part);
}

static void test_malformed_json_has_line_and_column(void **state) {
	char message[1024], expected[256];
	cli_config config;
	(void)state;
	write_config("{\n  \"mode\": \"read-only\"\n  \"probeTimeoutMs\": 1\n}\n");
	assert_true(cli_config_load(path, &config, message, sizeof message) < 0);
	snprintf(expected, sizeof expected, "%s:3:", path);
	assert_memory_equal(message, expected, strlen(expected));
	assert_non_null(strstr(message, ": malformed JSON: "));
}

static void test_unreadable_files(void **state) {
	char message[1024], missing[sizeof dir + 32];
	cli_config config;
	(void)state;
	snprintf(missing, sizeof missing, "%s/missing.json", dir);
	assert_int_equal(cli_config_load(missing, &config, message, sizeof message), -ENOENT);
	assert_non_null(strstr(message, missing));
	assert_non_null(strstr(message, "cannot read config file: No such file or directory"));
	assert_int_equal(cli_config_load(dir, &config, message, sizeof message), -EISDIR);
	assert_non_null(strstr(message, "cannot read config file: Is a directory"));
}

static void test_full_configuration(void **state) {
	cli_config config;
	char message[1024];
	(void)state;
	write_config("{\"mode\": \"workspace-write\", \"workspaceRoot\": \"/srv/ws\",\n"
	             " \"runnerCommand\": [\"/opt/runner\", \"--flag\"],\n"
	             " \"runnerFailureSignatures\": [\"runner: \"],\n"
	             " \"probeTimeoutMs\": 2000, \"landlockLauncher\": \"/opt/landlock-run\"}\n");
	assert_int_equal(cli_config_load(path, &config, message, sizeof message), 0);
	assert_string_equal(config.path, path);
	assert_true(config.has_mode);
	assert_int_equal(config.mode, CONFINE_MODE_WORKSPACE_WRITE);
	assert_string_equal(config.workspace_root, "/srv/ws");
	assert_string_equal(config.runner_command[0], "/opt/runner");
	assert_string_equal(config.runner_command[1], "--flag");
	assert_null(config.runner_command[2]);
	assert_string_equal(config.runner_failure_signatures[0], "runner: ");
	assert_null(config.runner_failure_signatures[1]);
	assert_true(config.has_probe_timeout);
	assert_true(config.probe_timeout_ms == 2000.0);
	assert_string_equal(config.landlock_launcher, "/opt/landlock-run");
	cli_config_clear(&config);
	assert_null(config.path);
	cli_config_clear(NULL);
}

static void test_empty_object_sets_nothing(void **state) {
	cli_config config;
	char message[1024];
	(void)state;
	write_config("{}");
	assert_int_equal(cli_config_load(path, &config, message, sizeof message), 0);
	assert_false(config.has_mode);
	assert_null(config.workspace_root);
	assert_null(config.runner_command);
	assert_null(config.runner_failure_signatures);
	assert_false(config.has_probe_timeout);
	assert_null(config.landlock_launcher);
	cli_config_clear(&config);
}

static void test_empty_runner_command_is_not_configured(void **state) {
	cli_config config;
	char message[1024];
	(void)state;
	write_config("{\"runnerCommand\": []}");
	assert_int_equal(cli_config_load(path, &config, message, sizeof message), 0);
	assert_null(config.runner_command);
	cli_config_clear(&config);
}

static void test_probe_timeout_passes_through_unjudged(void **state) {
	static const struct {
		const char *text;
		double value;
	} cases[] = {
		/* The library judges the value (SPEC 4's message); the reader must
		 * pass any JSON number through without overflowing. */
		{ "{\"probeTimeoutMs\": 1e308}", 1e308 },
		{ "{\"probeTimeoutMs\": 123456789012345678901234567890}", 123456789012345678901234567890.0 },
		{ "{\"probeTimeoutMs\": 0}", 0.0 },
		{ "{\"probeTimeoutMs\": -5}", -5.0 },
		{ "{\"probeTimeoutMs\": 2.5}", 2.5 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cli_config config;
		char message[1024];
		write_config(cases[i].text);
		if (cli_config_load(path, &config, message, sizeof message) < 0)
			fail_msg("%s: %s", cases[i].text, message);
		assert_true(config.has_probe_timeout);
		assert_true(config.probe_timeout_ms == cases[i].value);
		cli_config_clear(&config);
	}
}

static void test_pick_path(void **state) {
	(void)state;
	assert_string_equal(cli_config_pick_path("opt.json", "env.json"), "opt.json");
	assert_string_equal(cli_config_pick_path(NULL, "env.json"), "env.json");
	assert_null(cli_config_pick_path(NULL, ""));
	assert_null(cli_config_pick_path(NULL, NULL));
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors_name_file_key_and_problem),
		cmocka_unit_test(test_malformed_json_has_line_and_column),
		cmocka_unit_test(test_unreadable_files),
		cmocka_unit_test(test_full_configuration),
		cmocka_unit_test(test_empty_object_sets_nothing),
		cmocka_unit_test(test_empty_runner_command_is_not_configured),
		cmocka_unit_test(test_probe_timeout_passes_through_unjudged),
		cmocka_unit_test(test_pick_path),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
