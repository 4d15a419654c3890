/* SPDX-License-Identifier: MIT */
/* The confine command's output: JSON, failure reports, exit statuses
 * (output.c; doc/SPEC.md 10 and 16). */
#ifndef CONFINE_CLI_OUTPUT_H
#define CONFINE_CLI_OUTPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "context.h"

/* USAGE: a bad command line (doc/SPEC.md 16). The CLI's own code: the
 * library has none, and its CONFINE_E_INVALID_ARGUMENT (a caller's bug) is
 * never what the CLI reports for one. */
#define CLI_E_USAGE ((confine_error_code)0x40)

/* The exit statuses of env(1) and timeout(1) for a program that cannot run. */
#define CLI_EXIT_CANNOT_EXECUTE 126
#define CLI_EXIT_NOT_FOUND 127

/* Where a command's JSON goes: wrap always prints JSON on stdout; bash and
 * probe with --json on stdout; run --json on stderr (stdout is the
 * command's), as its last line. */
typedef enum cli_json_mode {
	CLI_JSON_NONE = 0,
	CLI_JSON_STDOUT,
	CLI_JSON_STDERR,
} cli_json_mode;

cli_json_mode cli_json_mode_of(const cli_args *args);

/* Sets, once the command line is parsed (even when it is a usage error),
 * where every later failure report puts its JSON: cli_json_mode_of(args).
 * Until then: no JSON. */
void cli_output_configure(const cli_args *args);

/* The code's name in the error object: "USAGE" for CLI_E_USAGE, else the
 * library's (confine_error_code_name). */
const char *cli_error_code_name(confine_error_code code);

/* The exit status for a failure of confine (doc/SPEC.md 16): 125, except
 * SPAWN_FAILED at exec of the command: 127 for ENOENT, 126 for EACCES
 * (and, in an unconfined run, any other errno; under a runner another
 * errno may be the runner's own exec: 125). */
int cli_error_exit_status(const confine_error *err, bool confined);

/* The runner's own line from a SANDBOX_UNAVAILABLE message (what follows
 * " Runner failure: "), or NULL. Points into `message`. */
const char *cli_runner_failure_of(confine_error_code code, const char *message);

/* A JSON string from bytes that may not be UTF-8 (a command's output): each
 * byte that does not start a well-formed sequence becomes U+FFFD. NULL data
 * is "". NULL when out of memory. */
json_t *cli_json_string_lossy(const char *data, size_t len);

/* Prints `value` as one compact line on stdout and releases it. 0 or a
 * negative errno (NULL value: -ENOMEM). */
int cli_emit_json(json_t *value);
/* The same on `stream`, on a line of its own: a newline goes first unless
 * `last_byte`, the last byte written there before (-1: unknown, '\n': none
 * or a newline), says one is not needed. */
int cli_emit_json_to(FILE *stream, json_t *value, int last_byte);

/* {"code","message"[,"runnerFailure"]}: `runner_failure` NULL takes the
 * detail from a SANDBOX_UNAVAILABLE message. */
json_t *cli_error_object(confine_error_code code, const char *message,
                         const char *runner_failure);

/* The outcome object of `bash --json` and `run --json` (doc/SPEC.md 10):
 * exitCode or signal (a name), timedOut, then with `captured` stdout,
 * stderr, truncated, stdoutTruncated, stderrTruncated; sandbox; error
 * (null, or the error object of `error`). */
json_t *cli_outcome_json(const confine_outcome *outcome, bool captured,
                         const confine_error *error);

/* Reports a failure of confine itself with exit status `status`: the
 * `confine: MESSAGE` line on stderr and, in a JSON mode (see
 * cli_output_configure), {"error":{...}} where the command prints its
 * JSON. Returns `status`. */
int cli_fail(int status, confine_error_code code, const char *message,
             const char *runner_failure);

/* A usage error: as cli_fail(), with `hint` (the help pointer) on its own
 * stderr line right after the `confine:` line, so that with `run --json`
 * the error object is still the last line of stderr (doc/SPEC.md 10). */
int cli_fail_usage(int status, const char *message, const char *hint);

/* Failures of confine itself, reported for the context's arguments: the
 * library's error (its exit status as cli_error_exit_status says), a
 * formatted message, a failed write of the output (125). */
int cli_report_error(const cli_context *ctx, const confine_error *err);
int cli_report(const cli_context *ctx, confine_error_code code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* cli_report_error() with the first `from` in the message read as `to`
 * (the library's words for a value, the CLI's for the flag that gave it). */
int cli_report_error_replacing(const cli_context *ctx, const confine_error *err,
                               const char *from, const char *to);
int cli_report_output_failure(const cli_context *ctx, int r);

#endif
