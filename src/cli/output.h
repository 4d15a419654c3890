/* SPDX-License-Identifier: MIT */
/* The confine command's output: JSON and failure reports (output.c). */
#ifndef CONFINE_CLI_OUTPUT_H
#define CONFINE_CLI_OUTPUT_H

#include <jansson.h>
#include <stddef.h>

#include "context.h"

/* A JSON string from bytes that may not be UTF-8 (a command's output): each
 * byte that does not start a well-formed sequence becomes U+FFFD. NULL data
 * is "". NULL when out of memory. */
json_t *cli_json_string_lossy(const char *data, size_t len);

/* Prints `value` as one compact line on stdout and releases it. 0 or a
 * negative errno (NULL value: -ENOMEM). */
int cli_emit_json(json_t *value);

/* {"code","message"} */
json_t *cli_error_object(confine_error_code code, const char *message);

/* Failures of confine itself, reported for the context's --json: the
 * library's error, a formatted message, a failed write of the output. Each
 * returns CLI_EXIT_FAILURE. */
int cli_report_error(const cli_context *ctx, const confine_error *err);
int cli_report(const cli_context *ctx, confine_error_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int cli_report_output_failure(const cli_context *ctx, int r);

#endif
