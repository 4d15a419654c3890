/* SPDX-License-Identifier: MIT */
/* The model-facing rendering (doc/SPEC.md 9) against tests/golden/render.json,
 * the cases the Node suite also runs through its run()'s render(): the
 * library's text is the one both must give. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "confine.h"

static char *text_of(json_t *value, size_t *len) {
	*len = json_string_length(value);
	return (char *)json_string_value(value);
}

static bool flag(json_t *row, const char *key) {
	return json_is_true(json_object_get(row, key));
}

static char *maybe(json_t *value) {
	return json_is_string(value) ? (char *)json_string_value(value) : NULL;
}

static confine_clause_status status_of(const char *s) {
	if (strcmp(s, "partial") == 0)
		return CONFINE_CLAUSE_PARTIAL;
	return strcmp(s, "unenforced") == 0 ? CONFINE_CLAUSE_UNENFORCED : CONFINE_CLAUSE_ENFORCED;
}

static void render_row(json_t *row) {
	confine_outcome o;
	confine_bash_result r;
	confine_denial denials[CONFINE_DENIALS_MAX];
	confine_clause clauses[16];
	json_t *list, *item, *limit, *truncated;
	const char *signal_name = maybe(json_object_get(row, "signal"));
	size_t i;
	char *text;

	memset(&o, 0, sizeof o);
	memset(&r, 0, sizeof r);
	o.stdout_data = text_of(json_object_get(row, "stdout"), &o.stdout_len);
	o.stderr_data = text_of(json_object_get(row, "stderr"), &o.stderr_len);
	o.confined = true;
	if (maybe(json_object_get(row, "mode")))
		assert_int_equal(confine_mode_parse(maybe(json_object_get(row, "mode")), &o.mode, NULL), 0);
	o.denied = flag(row, "denied");
	o.network_denied = flag(row, "networkDenied");
	o.timed_out = flag(row, "timedOut");
	o.signaled = signal_name != NULL;
	o.signal = !signal_name ? 0 : strcmp(signal_name, "SIGKILL") == 0 ? SIGKILL : SIGTERM;
	o.exit_code = o.signaled ? -1 : (int)json_integer_value(json_object_get(row, "exitCode"));
	list = json_object_get(row, "denials");
	json_array_foreach(list, i, item) {
		memset(&denials[i], 0, sizeof denials[i]);
		denials[i].op = maybe(json_object_get(item, "op"));
		denials[i].path = maybe(json_object_get(item, "path"));
		denials[i].address = maybe(json_object_get(item, "address"));
		denials[i].clause = maybe(json_object_get(item, "clause"));
		o.n_denials = i + 1;
	}
	o.denials = o.n_denials ? denials : NULL;
	list = json_object_get(row, "clauses");
	json_array_foreach(list, i, item) {
		memset(&clauses[i], 0, sizeof clauses[i]);
		clauses[i].clause = maybe(json_object_get(item, "clause"));
		clauses[i].subject = maybe(json_object_get(item, "subject"));
		clauses[i].status = status_of(maybe(json_object_get(item, "status")));
		o.n_clauses = i + 1;
	}
	o.clauses = o.n_clauses ? clauses : NULL;
	if ((limit = json_object_get(row, "limit"))) {
		o.limit_stopped = true;
		o.limit_killed = flag(limit, "killed");
		assert_int_equal(confine_limit_from_name(maybe(json_object_get(limit, "name")), &o.limit,
		                                         NULL), 0);
		o.limit_value = (uint64_t)json_integer_value(json_object_get(limit, "value"));
	}
	if ((truncated = json_object_get(row, "truncated"))) {
		o.stdout_truncated = flag(truncated, "stdout");
		o.stderr_truncated = flag(truncated, "stderr");
	}
	r.outcome = &o;
	r.timeout_ms = (unsigned)json_integer_value(json_object_get(row, "timeoutMs"));
	r.error.code = CONFINE_OK;
	text = confine_bash_render(&r);
	assert_non_null(text);
	if (strcmp(text, json_string_value(json_object_get(row, "expected"))) != 0)
		fail_msg("case \"%s\": got [%s], expected [%s]",
		         json_string_value(json_object_get(row, "name")), text,
		         json_string_value(json_object_get(row, "expected")));
	free(text);
}

static void test_golden_renderings(void **state) {
	json_error_t jerr;
	json_t *root = json_load_file(CONFINE_TEST_SOURCE_ROOT "/tests/golden/render.json",
	                              JSON_ALLOW_NUL, &jerr);
	json_t *row;
	size_t i;
	(void)state;
	if (!root)
		fail_msg("render.json: %s", jerr.text);
	json_array_foreach(json_object_get(root, "rows"), i, row)
		render_row(row);
	assert_true(i > 10);
	json_decref(root);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_golden_renderings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
