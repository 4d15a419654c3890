/* SPDX-License-Identifier: MIT */
/* The table of options (src/common/options.def, doc/SPEC.md 15, "The table
 * of options") against what reads it or restates it: the CLI's flags and
 * help texts, the config file's keys, the library's limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "args.h"
#include "confine.h"
#include "config-file.h"
#include "option-rows.h"
#include "policy-limits.h"

typedef struct row {
	const char *id, *key, *flag, *value, *type, *choices, *dflt;
	char short_name;
	uint64_t min, max;
	unsigned commands;
} row;

static const row rows[] = {
#define CONFINE_OPTION(id, key, short_name, flag, value, python, node, type, choices, min, max, \
                       length, dflt, spec, commands)                                            \
	{ #id, key, flag, value, type, choices, dflt, short_name, min, max, commands },
#include "options.def"
#undef CONFINE_OPTION
};
#define N_ROWS (sizeof rows / sizeof rows[0])

static const cli_command commands[] = { CLI_COMMAND_RUN, CLI_COMMAND_BASH, CLI_COMMAND_WRAP,
	                                CLI_COMMAND_PROBE, CLI_COMMAND_FS, CLI_COMMAND_EXPORT };

/* Every flag is in the help of each command that takes it, with its value
 * name; a policy row's config key stands beside it in brackets. */
static void test_help_names_every_flag(void **state) {
	(void)state;
	for (size_t i = 0; i < N_ROWS; i++) {
		char line[128];
		if (!rows[i].flag)
			continue;
		snprintf(line, sizeof line, "%s%s%s", rows[i].flag, rows[i].value ? " " : "",
		         rows[i].value ? rows[i].value : "");
		for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
			const char *help = cli_help_text(commands[c]);
			if (!(rows[i].commands & (1u << commands[c])))
				continue;
			if (!strstr(help, line))
				fail_msg("confine %s --help lacks \"%s\"", cli_command_name(commands[c]), line);
			if (rows[i].key && strncmp(rows[i].key, "limits.", 7) != 0 &&
			    strcmp(rows[i].key, "mode") != 0 && strcmp(rows[i].key, "workspaceRoot") != 0) {
				char bracketed[64];
				snprintf(bracketed, sizeof bracketed, "[%s]", rows[i].key);
				if (!strstr(help, bracketed))
					fail_msg("confine %s --help lacks \"%s\" beside %s",
					         cli_command_name(commands[c]), bracketed, rows[i].flag);
			}
		}
	}
}

/* Each flag parses where the table says, and is unknown elsewhere. */
static void test_flags_parse_where_the_table_says(void **state) {
	(void)state;
	for (size_t i = 0; i < N_ROWS; i++) {
		if (!rows[i].flag)
			continue;
		for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
			char *argv[12];
			int argc = 0;
			cli_args args;
			char unknown[96];
			argv[argc++] = (char *)"confine";
			argv[argc++] = (char *)cli_command_name(commands[c]);
			if (commands[c] == CLI_COMMAND_EXPORT)
				argv[argc++] = (char *)"oci";
			argv[argc++] = (char *)rows[i].flag;
			if (rows[i].value)
				argv[argc++] = (char *)"x";
			argv[argc] = NULL;
			cli_args_parse(argc, argv, &args);
			snprintf(unknown, sizeof unknown, "unknown option '%s'", rows[i].flag);
			if (rows[i].commands & (1u << commands[c])) {
				if (strstr(args.error, unknown))
					fail_msg("%s refused by %s: %s", rows[i].flag, argv[1], args.error);
			} else if (!strstr(args.error, unknown)) {
				fail_msg("%s taken by %s, which the table does not give it: %s", rows[i].flag,
				         argv[1], args.error);
			}
			cli_args_clear(&args);
		}
	}
}

/* Every config key of the table is a key the reader knows: it never says
 * "unknown key" for it. */
static void test_config_knows_every_key(void **state) {
	char dir[] = "/tmp/confine-test-options-table.XXXXXX";
	char path[sizeof dir + 16];
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/c.json", dir);
	for (size_t i = 0; i < N_ROWS; i++) {
		char text[256], err[1024];
		cli_config config;
		const char *dot;
		FILE *f;
		if (!rows[i].key)
			continue;
		dot = strchr(rows[i].key, '.');
		/* A value of the wrong type: refused, but as a known key's. */
		if (dot)
			snprintf(text, sizeof text, "{\"%.*s\": {\"%s\": [{}]}}",
			         (int)(dot - rows[i].key), rows[i].key, dot + 1);
		else
			snprintf(text, sizeof text, "{\"%s\": [{}]}", rows[i].key);
		f = fopen(path, "w");
		assert_non_null(f);
		fputs(text, f);
		fclose(f);
		err[0] = '\0';
		if (cli_config_load(path, &config, err, sizeof err) == 0)
			cli_config_clear(&config);
		if (strstr(err, "unknown key"))
			fail_msg("config key %s: %s", rows[i].key, err);
	}
	unlink(path);
	rmdir(dir);
}

/* The runner row's words are the rungs a chain can be pinned to, in the
 * rung table's order (the library's own "unknown runner" message lists
 * them), and every command that takes --runner lists them in its help:
 * a rung added to the table and not to the row (gvisor) fails here. */
static void test_runner_words_are_the_rungs(void **state) {
	confine_runner pin;
	confine_error err;
	char words[256] = "", *start, *end;
	const char *choices = NULL;
	size_t n = 0, total = 1;
	(void)state;
	for (size_t i = 0; i < N_ROWS; i++)
		if (strcmp(rows[i].id, "RUNNER") == 0)
			choices = rows[i].choices;
	assert_non_null(choices);
	for (const char *c = choices; *c; c++)
		total += *c == '|';
	/* "bwrap|landlock|seatbelt|gvisor" as "bwrap, landlock, seatbelt or gvisor" */
	for (const char *c = choices; *c; n++) {
		size_t len = strcspn(c, "|");
		if (n > 0)
			strcat(words, n + 1 == total ? " or " : ", ");
		strncat(words, c, len);
		c += len + (c[len] == '|');
	}
	memset(&err, 0, sizeof err);
	assert_true(confine_runner_parse("docker", &pin, &err) < 0);
	start = strstr(err.message, "(expected ");
	assert_non_null(start);
	start += strlen("(expected ");
	end = strrchr(start, ')');
	assert_non_null(end);
	*end = '\0';
	assert_string_equal(words, start);
	for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
		const char *help = cli_help_text(commands[c]);
		char flat[8192];
		size_t k = 0;
		if (commands[c] != CLI_COMMAND_RUN && commands[c] != CLI_COMMAND_BASH &&
		    commands[c] != CLI_COMMAND_WRAP && commands[c] != CLI_COMMAND_PROBE)
			continue;
		/* the help's lines joined, its indentation one space */
		for (const char *h = help; *h && k + 1 < sizeof flat; h++) {
			char ch = *h == '\n' ? ' ' : *h;
			if (ch == ' ' && k && flat[k - 1] == ' ')
				continue;
			flat[k++] = ch;
		}
		flat[k] = '\0';
		if (!strstr(flat, words))
			fail_msg("confine %s --help does not list the runners \"%s\"",
			         cli_command_name(commands[c]), words);
	}
}

/* The library's limits are the LIMIT rows: key, flag, bounds, default. */
static void test_limits_are_the_rows(void **state) {
	size_t limits = 0;
	(void)state;
	for (size_t i = 0; i < N_ROWS; i++) {
		confine_limit limit;
		const cf_limit_def *d;
		if (!rows[i].key || strncmp(rows[i].key, "limits.", 7) != 0)
			continue;
		limits++;
		assert_int_equal(confine_limit_from_name(rows[i].key + 7, &limit, NULL), 0);
		d = cf_limit_def_of(limit);
		assert_string_equal(d->flag, rows[i].flag);
		assert_true(d->min == rows[i].min && d->max == rows[i].max);
		assert_int_equal(strcmp(rows[i].type, "size") == 0, d->kind == CF_LIMIT_SIZE);
		if (limit == CONFINE_LIMIT_PIDS)
			assert_int_equal(strtoull(rows[i].dflt, NULL, 10), CONFINE_DEFAULT_MAX_PIDS);
		else
			assert_string_equal(rows[i].dflt, "null");
	}
	assert_int_equal(limits, CONFINE_LIMIT_COUNT);
}

/* The bounds the table states are the ones the code holds. */
static void test_bounds_are_the_code_s(void **state) {
	(void)state;
	for (size_t i = 0; i < N_ROWS; i++) {
		if (strcmp(rows[i].id, "TIMEOUT") == 0)
			assert_true(rows[i].max == CONFINE_MAX_TIMEOUT_MS);
		if (strcmp(rows[i].id, "MAX_OUTPUT") == 0)
			assert_true(strtoull(rows[i].dflt, NULL, 10) == CONFINE_DEFAULT_CAPTURE_LIMIT);
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_names_every_flag),
		cmocka_unit_test(test_flags_parse_where_the_table_says),
		cmocka_unit_test(test_config_knows_every_key),
		cmocka_unit_test(test_limits_are_the_rows),
		cmocka_unit_test(test_runner_words_are_the_rungs),
		cmocka_unit_test(test_bounds_are_the_code_s),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
