/* SPDX-License-Identifier: MIT */
/* `confine options [--json]`: the table of options (src/common/options.def,
 * doc/SPEC.md 15, "The table of options") as the bindings read it. Their
 * copies (bindings/python/confine/options.json, bindings/node/options.json)
 * must equal this output: the test `options table` compares them. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "option-rows.h"
#include "output.h"

typedef struct option_row {
	const char *key, *flag, *value, *python, *node, *type, *choices, *dflt, *spec;
	char short_name;
	uint64_t min, max, length;
	unsigned commands;
} option_row;

static const option_row rows[] = {
#define CONFINE_OPTION(id, key, short_name, flag, value, python, node, type, choices, min, max, \
                       length, dflt, spec, commands)                                            \
	{ key, flag, value, python, node, type, choices, dflt, spec, short_name, min, max, length,  \
	  commands },
#include "options.def"
#undef CONFINE_OPTION
};

static json_t *string_or_null(const char *s) {
	return s ? json_string(s) : json_null();
}

static json_t *choices_of(const char *choices) {
	json_t *list;
	if (!choices)
		return json_null();
	list = json_array();
	for (const char *p = choices; list && *p;) {
		size_t n = strcspn(p, "|");
		json_array_append_new(list, json_stringn(p, n));
		p += n + (p[n] == '|');
	}
	return list;
}

static json_t *commands_of(unsigned commands) {
	json_t *list = json_array();
	for (unsigned c = 0; list && c < 32; c++)
		if ((commands & (1u << c)) && cli_command_name((cli_command)c))
			json_array_append_new(list, json_string(cli_command_name((cli_command)c)));
	return list;
}

static json_t *bound(uint64_t value) {
	return value ? json_integer((json_int_t)value) : json_null();
}

static json_t *row_json(const option_row *r) {
	char short_flag[3] = { '-', r->short_name, '\0' };
	json_t *dflt = json_loads(r->dflt, JSON_DECODE_ANY, NULL);
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o, s:s, s:o}",
	                 "key", string_or_null(r->key), "flag", string_or_null(r->flag), "short",
	                 r->short_name ? json_string(short_flag) : json_null(), "value",
	                 string_or_null(r->value), "python", string_or_null(r->python), "node",
	                 string_or_null(r->node), "type", r->type, "choices", choices_of(r->choices),
	                 "min", bound(r->min), "max", bound(r->max), "length", bound(r->length),
	                 "default", dflt ? dflt : json_null(), "spec", r->spec, "commands",
	                 commands_of(r->commands));
}

int cli_options_print(bool json) {
	size_t n = sizeof rows / sizeof rows[0];
	if (!json) {
		for (size_t i = 0; i < n; i++)
			printf("%-26s %-26s %-10s %s\n", rows[i].key ? rows[i].key : "-",
			       rows[i].flag ? rows[i].flag : "-", rows[i].type, rows[i].dflt);
	} else {
		json_t *list = json_array(), *root;
		for (size_t i = 0; list && i < n; i++)
			if (json_array_append_new(list, row_json(&rows[i])) < 0)
				break;
		root = json_pack("{s:o}", "options", list);
		if (!root || json_dumpf(root, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER) < 0) {
			json_decref(root);
			return cli_fail(125, CONFINE_E_SYSTEM, "out of memory", NULL);
		}
		json_decref(root);
		putchar('\n');
	}
	return fflush(stdout) == 0 ? 0 : 125;
}
