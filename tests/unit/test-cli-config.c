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
#include <sys/stat.h>
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
		{ "{\"mdoe\": \"read-only\"}", ": unknown key \"mdoe\" (expected mode, workspaceRoot, runner, runnerCommand, runnerFailureSignatures, probeTimeoutMs, landlockLauncher, writableRoots, protectedPaths, unprotect, defaultProtections, denyRead, network, allowUnixSockets, env, requireFull, limits)" },
		{ "{\"mode\": 1}", ": mode must be a string, not a number 1" },
		{ "{\"mode\": \"bogus\"}", ": key \"mode\": unknown sandbox mode \"bogus\"" },
		{ "{\"mode\": null}", ": mode must be a string, not null" },
		{ "{\"workspaceRoot\": true}", ": workspaceRoot must be a string, not a boolean true" },
		{ "{\"workspaceRoot\": \"rel/dir\"}", ": key \"workspaceRoot\" must be an absolute path, got \"rel/dir\"" },
		{ "{\"workspaceRoot\": \"\"}", ": key \"workspaceRoot\" must be an absolute path, got \"\"" },
		/* a relative or empty landlockLauncher is the library's to refuse,
		 * in its one text (tests/golden/bad-inputs.json) */
		{ "{\"landlockLauncher\": []}", ": landlockLauncher must be a string, not an array" },
		{ "{\"runnerCommand\": \"bwrap\"}", ": runnerCommand must be an array of argv words, not a string \"bwrap\"" },
		{ "{\"runnerCommand\": [\"bwrap\", 3]}", ": runnerCommand must be a string, not a number 3" },
		{ "{\"runnerCommand\": [\"\"]}", ": key \"runnerCommand\": element 0 is an empty string" },
		{ "{\"runnerFailureSignatures\": {}}", ": runnerFailureSignatures must be an array of signatures, not an object" },
		{ "{\"runnerFailureSignatures\": [null]}", ": runnerFailureSignatures must be a string, not null" },
		{ "{\"probeTimeoutMs\": \"5000\"}", ": probeTimeoutMs must be a number, not a string \"5000\"" },
		{ "[1, 2]", ": the configuration must be a JSON object, not an array" },
		{ "\"mode\"", ": the configuration must be a JSON object, not a string" },
		{ "42", ": the configuration must be a JSON object, not a number" },
		{ "{\"mode\": }", ":1:" },
		{ "{\n  \"mode\": \"read-only\",\n  \"probeTimeoutMs\": 5000,,\n}", ":3:" },
		{ "{\"mode\": \"read-only\"", ": malformed JSON: " },
		{ "", ": malformed JSON: " },
		{ "{\"mode\": \"read-only\", \"mode\": \"workspace-write\"}", "duplicate" },
		{ "{\"mode\": \"read-only\"} trailing", ": malformed JSON: " },
		/* the policy keys (issue 16) */
		{ "{\"writableRoots\": {}}", ": writableRoots must be an array of paths, not an object" },
		{ "{\"protectedPaths\": [1]}", ": protectedPaths must be a string, not a number 1" },
		{ "{\"defaultProtections\": \"yes\"}", ": defaultProtections must be true or false, not a string \"yes\"" },
		{ "{\"requireFull\": 1}", ": requireFull must be true or false, not a number 1" },
		{ "{\"network\": false}", ": network must be \"on\", \"off\" or an object, not a boolean false" },
		{ "{\"network\": {\"allowLocal\": 1}}",
		  ": network.allowLocal must be true or false, not a number 1" },
		{ "{\"network\": {\"hosts\": []}}", ": unknown key \"network.hosts\"" },
		{ "{\"network\": \"offline\"}", ": key \"network\": network \"offline\" is not a network setting (expected on or off)" },
		{ "{\"env\": []}", ": env must be an object, not an array" },
		{ "{\"env\": {\"inherti\": \"all\"}}", ": unknown key \"env.inherti\" (expected inherit, include, exclude, set, defaultExcludes)" },
		{ "{\"env\": {\"inherit\": \"some\"}}", ": key \"env.inherit\": env.inherit \"some\" is not an inherit setting (expected all or none)" },
		{ "{\"env\": {\"inherit\": true}}", ": env.inherit must be \"all\" or \"none\", not a boolean true" },
		{ "{\"env\": {\"exclude\": \"X\"}}", ": env.exclude must be an array of patterns, not a string \"X\"" },
		{ "{\"env\": {\"set\": [\"A=1\"]}}", ": env.set must be an object, not an array" },
		{ "{\"env\": {\"set\": {\"A\": 1}}}", ": env.set must be a string, not a number 1" },
		{ "{\"env\": {\"set\": {\"A B\": \"1\"}}}", ": key \"env.set\": env.set name \"A B\" is malformed" },
		{ "{\"env\": {\"defaultExcludes\": null}}", ": env.defaultExcludes must be true or false, not null" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		expect_error(cases[i].text, cases[i].part);
}

/* One code per kind of mistake (doc/SPEC.md 10, 16): the file's own faults
 * are INVALID_CONFIG; a value of the right type the policy refuses is
 * INVALID_POLICY, as the same value is from a flag. */
static void test_error_codes(void **state) {
	static const struct {
		const char *text;
		confine_error_code code;
	} cases[] = {
		{ "{\"mdoe\": \"read-only\"}", CONFINE_E_INVALID_CONFIG },
		{ "{\"mode\": 1}", CONFINE_E_INVALID_CONFIG },
		{ "{\"mode\": ", CONFINE_E_INVALID_CONFIG },
		{ "{\"network\": {\"hosts\": []}}", CONFINE_E_INVALID_CONFIG },
		{ "{\"mode\": \"bogus\"}", CONFINE_E_INVALID_POLICY },
		{ "{\"network\": \"offline\"}", CONFINE_E_INVALID_POLICY },
		{ "{\"env\": {\"inherit\": \"some\"}}", CONFINE_E_INVALID_POLICY },
		{ "{\"workspaceRoot\": \"rel/dir\"}", CONFINE_E_INVALID_POLICY },
		{ "{\"env\": {\"set\": {\"A B\": \"1\"}}}", CONFINE_E_INVALID_POLICY },
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cli_config config;
		char message[1024];
		int r;
		write_config(cases[i].text);
		r = cli_config_load(path, &config, message, sizeof message);
		assert_true(r < 0);
		if (cli_config_error_code(r) != cases[i].code)
			fail_msg("%s: code %d, want %d (%s)", cases[i].text, (int)cli_config_error_code(r),
			         (int)cases[i].code, message);
	}
}

/* The values the library judges are kept as given: its refusal, with the
 * file and key, is the one every door gives (context.c). */
static void test_policy_values_left_to_the_library(void **state) {
	cli_config config;
	char message[1024];
	(void)state;
	write_config("{\"writableRoots\": [\"rel\"], \"denyRead\": [\".env\", \"*.pem\"],"
	             " \"network\": {\"allow\": [\"http://x.org\"]},"
	             " \"env\": {\"exclude\": [\"[\"]}}");
	assert_int_equal(cli_config_load(path, &config, message, sizeof message), 0);
	assert_string_equal(config.writable_roots[0], "rel");
	assert_string_equal(config.deny_read[0], ".env");
	assert_string_equal(config.deny_read[1], "*.pem");
	assert_string_equal(config.network_allow[0], "http://x.org");
	assert_string_equal(config.env_exclude[0], "[");
	cli_config_clear(&config);
	/* one path for a list of it, as the packages take it (red team F6) */
	write_config("{\"writableRoots\": \"/a\", \"denyRead\": \".env\", \"unprotect\": \"CLAUDE.md\"}");
	assert_int_equal(cli_config_load(path, &config, message, sizeof message), 0);
	assert_string_equal(config.writable_roots[0], "/a");
	assert_null(config.writable_roots[1]);
	assert_string_equal(config.deny_read[0], ".env");
	assert_null(config.deny_read[1]);
	assert_string_equal(config.unprotect[0], "CLAUDE.md");
	cli_config_clear(&config);
	/* a provider setting too: a relative launcher is the library's to
	 * refuse (INVALID_CONFIG, after the file's name) */
	write_config("{\"landlockLauncher\": \"\"}");
	assert_int_equal(cli_config_load(path, &config, message, sizeof message), 0);
	assert_string_equal(config.landlock_launcher, "");
	cli_config_clear(&config);
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
	/* Only a regular file: a directory, and a FIFO with no writer, which
	 * once blocked the open for ever. */
	assert_true(cli_config_load(dir, &config, message, sizeof message) < 0);
	assert_non_null(strstr(message, "cannot read config file: not a regular file"));
	snprintf(missing, sizeof missing, "%s/fifo.json", dir);
	assert_int_equal(mkfifo(missing, 0600), 0);
	assert_true(cli_config_load(missing, &config, message, sizeof message) < 0);
	assert_non_null(strstr(message, "cannot read config file: not a regular file"));
	assert_int_equal(cli_config_error_code(-EBADFD), CONFINE_E_INVALID_CONFIG);
	unlink(missing);
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

static void test_policy_keys(void **state) {
	cli_config config;
	char message[1024];
	(void)state;
	write_config("{\"writableRoots\": [\"/home/u/.npm\", \"/home/u/.cache/pip\"],\n"
	             " \"protectedPaths\": [\".env\", \"/srv/ws/secrets\"],\n"
	             " \"defaultProtections\": false, \"denyRead\": [\"/home/u/.ssh\"],\n"
	             " \"network\": \"off\", \"allowUnixSockets\": [\"/run/user/1/bus\"],\n"
	             " \"env\": {\"inherit\": \"none\", \"include\": [\"PATH\", \"LC_*\"],\n"
	             "         \"exclude\": [\"AWS_*\"], \"set\": {\"CI\": \"1\", \"EMPTY\": \"\"},\n"
	             "         \"defaultExcludes\": false},\n"
	             " \"requireFull\": true}\n");
	if (cli_config_load(path, &config, message, sizeof message) < 0)
		fail_msg("%s", message);
	assert_string_equal(config.writable_roots[0], "/home/u/.npm");
	assert_string_equal(config.writable_roots[1], "/home/u/.cache/pip");
	assert_null(config.writable_roots[2]);
	assert_string_equal(config.protected_paths[0], ".env");
	assert_string_equal(config.protected_paths[1], "/srv/ws/secrets");
	assert_true(config.has_default_protections);
	assert_false(config.default_protections);
	assert_string_equal(config.deny_read[0], "/home/u/.ssh");
	assert_true(config.has_network);
	assert_int_equal(config.network, CONFINE_NETWORK_OFF);
	assert_string_equal(config.allow_unix_sockets[0], "/run/user/1/bus");
	assert_true(config.has_env_inherit);
	assert_int_equal(config.env_inherit, CONFINE_ENV_INHERIT_NONE);
	assert_string_equal(config.env_include[0], "PATH");
	assert_string_equal(config.env_include[1], "LC_*");
	assert_string_equal(config.env_exclude[0], "AWS_*");
	assert_string_equal(config.env_set[0], "CI=1");
	assert_string_equal(config.env_set[1], "EMPTY=");
	assert_null(config.env_set[2]);
	assert_true(config.has_env_default_excludes);
	assert_false(config.env_default_excludes);
	assert_true(config.has_require_full);
	assert_true(config.require_full);
	cli_config_clear(&config);
}

/* `~/` in a path key is under $HOME (doc/SPEC.md 15). */
static void test_home_in_paths(void **state) {
	cli_config config;
	char message[1024];
	char *saved = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	(void)state;
	setenv("HOME", "/home/u", 1);
	write_config("{\"writableRoots\": [\"~/.npm\"], \"denyRead\": [\"~/.ssh\", \"/x/~/y\"]}");
	if (cli_config_load(path, &config, message, sizeof message) < 0)
		fail_msg("%s", message);
	assert_string_equal(config.writable_roots[0], "/home/u/.npm");
	assert_string_equal(config.deny_read[0], "/home/u/.ssh");
	assert_string_equal(config.deny_read[1], "/x/~/y");
	cli_config_clear(&config);
	unsetenv("HOME");
	assert_true(cli_config_load(path, &config, message, sizeof message) < 0);
	assert_non_null(strstr(message, ": key \"writableRoots\": element 0 is \"~/.npm\", but $HOME "
	                                "is not set to an absolute path"));
	if (saved)
		setenv("HOME", saved, 1);
	free(saved);
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
	assert_null(config.writable_roots);
	assert_null(config.protected_paths);
	assert_null(config.deny_read);
	assert_null(config.allow_unix_sockets);
	assert_null(config.env_include);
	assert_null(config.env_exclude);
	assert_null(config.env_set);
	assert_false(config.has_default_protections);
	assert_false(config.has_network);
	assert_false(config.has_env_inherit);
	assert_false(config.has_env_default_excludes);
	assert_false(config.has_require_full);
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

static void test_probe_timeout_numbers_pass_to_the_provider(void **state) {
	static const struct {
		const char *text;
		double value;
	} cases[] = {
		/* Any number passes the reader as it is: its value is the
		 * provider's to judge, after the signatures (SPEC 4's order; the
		 * e2e config test checks the messages). */
		{ "{\"probeTimeoutMs\": 1e308}", 1e308 },
		{ "{\"probeTimeoutMs\": 0.5}", 0.5 },
		{ "{\"probeTimeoutMs\": 0}", 0.0 },
		{ "{\"probeTimeoutMs\": -5}", -5.0 },
		{ "{\"probeTimeoutMs\": 123456789012345678901234567890}", 123456789012345678901234567890.0 },
		{ "{\"probeTimeoutMs\": 1}", 1.0 },
		{ "{\"probeTimeoutMs\": 2.0}", 2.0 },
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
		cmocka_unit_test(test_error_codes),
		cmocka_unit_test(test_policy_values_left_to_the_library),
		cmocka_unit_test(test_malformed_json_has_line_and_column),
		cmocka_unit_test(test_unreadable_files),
		cmocka_unit_test(test_full_configuration),
		cmocka_unit_test(test_policy_keys),
		cmocka_unit_test(test_home_in_paths),
		cmocka_unit_test(test_empty_object_sets_nothing),
		cmocka_unit_test(test_empty_runner_command_is_not_configured),
		cmocka_unit_test(test_probe_timeout_numbers_pass_to_the_provider),
		cmocka_unit_test(test_pick_path),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
