/* SPDX-License-Identifier: MIT */
/* The golden cases of SPEC 8's stderr classifiers (tests/golden/
 * classifiers.json), through the library's public calls. The Python and
 * Node suites read the same file, so no door can answer differently. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "confine.h"

static json_t *golden;

/* A NULL-terminated vector of the array's strings (pointers into the JSON). */
static char **strings_of(const json_t *array) {
	size_t n = json_array_size(array);
	char **v = calloc(n + 1, sizeof *v);
	assert_non_null(v);
	for (size_t i = 0; i < n; i++) {
		const json_t *item = json_array_get(array, i);
		assert_true(json_is_string(item));
		v[i] = (char *)json_string_value(item);
	}
	return v;
}

/* The named rule set as confine_rule values; freed with free_rules(). */
static confine_rule *rules_of(const char *name, size_t *ret_n) {
	const json_t *set = json_object_get(json_object_get(golden, "rules"), name);
	size_t n = json_array_size(set);
	confine_rule *rules = calloc(n ? n : 1, sizeof *rules);
	assert_non_null(set);
	assert_non_null(rules);
	for (size_t i = 0; i < n; i++) {
		const json_t *rule = json_array_get(set, i);
		const json_t *codes = json_object_get(rule, "allowedExitCodes");
		size_t nc = json_array_size(codes);
		int *exits = calloc(nc ? nc : 1, sizeof *exits);
		assert_non_null(exits);
		for (size_t j = 0; j < nc; j++)
			exits[j] = (int)json_integer_value(json_array_get(codes, j));
		rules[i].allowed_exit_codes = exits;
		rules[i].n_allowed_exit_codes = nc;
		rules[i].fatal_signatures = strings_of(json_object_get(rule, "fatalSignatures"));
		rules[i].informational_lines = strings_of(json_object_get(rule, "informationalLines"));
	}
	*ret_n = n;
	return rules;
}

static void free_rules(confine_rule *rules, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(rules[i].allowed_exit_codes);
		free(rules[i].fatal_signatures);
		free(rules[i].informational_lines);
	}
	free(rules);
}

static void check_case(const json_t *c) {
	const char *name = json_string_value(json_object_get(c, "name"));
	const json_t *text = json_object_get(c, "stderr");
	const char *stderr_text = json_string_value(text);
	size_t stderr_len = json_string_length(text);
	int exit_code = (int)json_integer_value(json_object_get(c, "exit"));
	bool signaled = json_is_true(json_object_get(c, "signal"));
	const json_t *want_failure = json_object_get(c, "runnerFailure");
	bool want_denied = json_is_true(json_object_get(c, "denied"));
	char **dialect = strings_of(json_object_get(
	        json_object_get(golden, "dialects"),
	        json_string_value(json_object_get(c, "dialect"))));
	size_t n_rules;
	confine_rule *rules = rules_of(json_string_value(json_object_get(c, "rules")), &n_rules);
	char *detail = NULL;
	int r = confine_classify_runner_failure(exit_code, signaled, stderr_text, stderr_len, rules,
	                                        n_rules, &detail);
	bool denied = confine_classify_denial(exit_code, signaled, stderr_text, stderr_len, dialect);

	assert_true(r >= 0);
	if (json_is_null(want_failure)) {
		if (r != 0)
			fail_msg("%s: a runner failure \"%s\", expected none", name, detail);
	} else {
		if (r != 1)
			fail_msg("%s: no runner failure, expected \"%s\"", name,
			         json_string_value(want_failure));
		if (strcmp(detail, json_string_value(want_failure)) != 0)
			fail_msg("%s: detail \"%s\", expected \"%s\"", name, detail,
			         json_string_value(want_failure));
	}
	if (denied != want_denied)
		fail_msg("%s: denied %s, expected %s", name, denied ? "true" : "false",
		         want_denied ? "true" : "false");
	free(detail);
	free_rules(rules, n_rules);
	free(dialect);
}

static void the_golden_cases_hold(void **state) {
	const json_t *cases = json_object_get(golden, "cases");
	size_t i;
	const json_t *c;
	(void)state;
	assert_true(json_array_size(cases) >= 30);
	json_array_foreach(cases, i, c) {
		print_message("# %s\n", json_string_value(json_object_get(c, "name")));
		check_case(c);
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_golden_cases_hold),
	};
	json_error_t error;
	int r;
	golden = json_load_file(CONFINE_TEST_SOURCE_ROOT "/tests/golden/classifiers.json",
	                        JSON_ALLOW_NUL, &error);
	if (!golden) {
		fprintf(stderr, "tests/golden/classifiers.json: %s (line %d)\n", error.text,
		        error.line);
		return 1;
	}
	r = cmocka_run_group_tests(tests, NULL, NULL);
	json_decref(golden);
	return r;
}
