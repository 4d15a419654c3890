/* SPDX-License-Identifier: MIT */
/*
 * The configuration file's words for a value of the wrong type, the same
 * as every door's (doc/SPEC.md 16, "One text per refusal").
 */
#ifndef CONFINE_CLI_CONFIG_WORDS_H
#define CONFINE_CLI_CONFIG_WORDS_H

#include <jansson.h>
#include <stddef.h>

/* `v` as JSON (JavaScript's Number#toString) writes it. */
void cli_json_number_text(double v, char *out, size_t size);
/* "a string", "a number", "a boolean", "null", "an array", "an object". */
const char *cli_json_type_words(const json_t *value);
/* The value in JSON's words: `a string "5"`, `a number 5`, `a boolean true`. */
void cli_json_described(const json_t *value, char *out, size_t size);
/* What a list key holds, as the packages name it: "an array of paths". */
const char *cli_config_list_words(const char *key);

#endif
