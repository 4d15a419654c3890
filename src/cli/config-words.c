/* SPDX-License-Identifier: MIT */
/*
 * The words of the configuration file's type errors, the same as every
 * door's (doc/SPEC.md 16, "One text per refusal"): a value described in
 * JSON's words (`a string "5"`, `a number 5`, `a boolean true`, `null`,
 * `an array`, `an object`), a number as JSON writes it, and what each list
 * key holds (`an array of paths`, `an array of host names`, ...), as the
 * Python and Node packages say it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-words.h"

/* A number as JSON (JavaScript's Number#toString) writes it: the shortest
 * digits that read back as the same double, `1e+30`, `0.000001`,
 * `18446744073709552000`; the text Python and Node hand over for the same
 * number (doc/SPEC.md 15, "Limits"). */
void cli_json_number_text(double v, char *out, size_t size) {
	char buf[40], digits[20], zeros[24];
	int k = 0, n, precision;
	const char *sign = v < 0 ? "-" : "";
	if (v == 0 || !isfinite(v)) {
		snprintf(out, size, v == 0 ? "0" : isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
		return;
	}
	for (precision = 1; precision < 17; precision++) {
		snprintf(buf, sizeof buf, "%.*e", precision - 1, fabs(v));
		if (strtod(buf, NULL) == fabs(v))
			break;
	}
	snprintf(buf, sizeof buf, "%.*e", precision - 1, fabs(v));
	for (const char *c = buf; *c && *c != 'e'; c++)
		if (*c >= '0' && *c <= '9' && k < (int)sizeof digits - 1)
			digits[k++] = *c;
	while (k > 1 && digits[k - 1] == '0')
		k--;
	digits[k] = '\0';
	n = atoi(strchr(buf, 'e') + 1) + 1; /* where the decimal point goes */
	memset(zeros, '0', sizeof zeros - 1);
	zeros[sizeof zeros - 1] = '\0';
	if (k <= n && n <= 21)
		snprintf(out, size, "%s%s%.*s", sign, digits, n - k, zeros);
	else if (0 < n && n <= 21)
		snprintf(out, size, "%s%.*s.%s", sign, n, digits, digits + n);
	else if (-6 < n && n <= 0)
		snprintf(out, size, "%s0.%.*s%s", sign, -n, zeros, digits);
	else
		snprintf(out, size, "%s%c%s%se%c%d", sign, digits[0], k > 1 ? "." : "", digits + 1,
		         n - 1 >= 0 ? '+' : '-', abs(n - 1));
}

const char *cli_json_type_words(const json_t *value) {
	switch (json_typeof(value)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	case JSON_NULL: return "null";
	}
	return "a value of unknown type";
}

void cli_json_described(const json_t *value, char *out, size_t size) {
	char number[64];
	char *quoted;
	switch (json_typeof(value)) {
	case JSON_STRING:
		/* as JSON quotes it, bounded to 200 characters as the packages' */
		quoted = json_dumps(value, JSON_ENCODE_ANY);
		if (!quoted) {
			snprintf(out, size, "a string");
			return;
		}
		if (strlen(quoted) > 200)
			snprintf(out, size, "a string %.197s...", quoted);
		else
			snprintf(out, size, "a string %s", quoted);
		free(quoted);
		return;
	case JSON_INTEGER:
		snprintf(out, size, "a number %lld", (long long)json_integer_value(value));
		return;
	case JSON_REAL:
		cli_json_number_text(json_real_value(value), number, sizeof number);
		snprintf(out, size, "a number %s", number);
		return;
	case JSON_TRUE:
	case JSON_FALSE:
		snprintf(out, size, "a boolean %s", json_is_true(value) ? "true" : "false");
		return;
	case JSON_OBJECT:
	case JSON_ARRAY:
	case JSON_NULL:
		break;
	}
	snprintf(out, size, "%s", cli_json_type_words(value));
}

const char *cli_config_list_words(const char *key) {
	static const struct {
		const char *key, *words;
	} lists[] = {
		{ "network.allow", "an array of host names" },
		{ "network.deny", "an array of host names" },
		{ "env.include", "an array of patterns" },
		{ "env.exclude", "an array of patterns" },
		{ "runnerCommand", "an array of argv words" },
		{ "runnerFailureSignatures", "an array of signatures" },
	};
	for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
		if (strcmp(lists[i].key, key) == 0)
			return lists[i].words;
	return "an array of paths"; /* the path lists, unprotect's names too */
}
