/* SPDX-License-Identifier: MIT */
/*
 * What confine prints: JSON objects (one compact line each: on stdout, or
 * for `run --json` the last line of stderr), and for a failure of confine
 * itself one `confine: MESSAGE` line on stderr, with in a JSON mode the
 * error object where the JSON goes (doc/SPEC.md 16).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"
#include "policy-json.h"

/* Length of the well-formed UTF-8 sequence at s[0..n), 0 when it is not one.
 * Strict like jansson's own check (no overlongs, surrogates or code points
 * above U+10FFFF), so whatever passes here jansson accepts. */
static size_t utf8_sequence_length(const unsigned char *s, size_t n) {
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xBF;
	size_t len, i;
	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0;
		else if (c == 0xED)
			hi = 0x9F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90;
		else if (c == 0xF4)
			hi = 0x8F;
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return len;
}

/* A JSON string from bytes that may not be UTF-8 (a command's output): each
 * byte that does not start a well-formed sequence becomes U+FFFD. NUL bytes
 * are kept (jansson writes them as \u0000). */
json_t *cli_json_string_lossy(const char *data, size_t len) {
	const unsigned char *s = (const unsigned char *)data;
	char *clean;
	size_t out = 0, i = 0;
	json_t *value;
	if (!data)
		return json_string("");
	if (len > (SIZE_MAX - 1) / 3)
		return NULL;
	clean = malloc(len * 3 + 1); /* each invalid byte grows to 3 */
	if (!clean)
		return NULL;
	while (i < len) {
		size_t seq = utf8_sequence_length(s + i, len - i);
		if (seq == 0) {
			memcpy(clean + out, "\xEF\xBF\xBD", 3);
			out += 3;
			i++;
		} else {
			memcpy(clean + out, s + i, seq);
			out += seq;
			i += seq;
		}
	}
	value = json_stringn(clean, out);
	free(clean);
	return value;
}

static cli_json_mode output_mode = CLI_JSON_NONE;

cli_json_mode cli_json_mode_of(const cli_args *args) {
	switch (args->command) {
	case CLI_COMMAND_WRAP:
		return CLI_JSON_STDOUT; /* one JSON object on stdout in every case */
	case CLI_COMMAND_BASH:
	case CLI_COMMAND_PROBE:
	case CLI_COMMAND_FS:
	case CLI_COMMAND_EXPORT:
		return args->json ? CLI_JSON_STDOUT : CLI_JSON_NONE;
	case CLI_COMMAND_RUN:
		return args->json ? CLI_JSON_STDERR : CLI_JSON_NONE;
	case CLI_COMMAND_OPTIONS:
		return args->json ? CLI_JSON_STDOUT : CLI_JSON_NONE;
	case CLI_COMMAND_NONE:
		break;
	}
	return CLI_JSON_NONE;
}

void cli_output_configure(const cli_args *args) {
	output_mode = cli_json_mode_of(args);
}

const char *cli_error_code_name(confine_error_code code) {
	if (code == CLI_E_USAGE)
		return "USAGE";
	return confine_error_code_name(code);
}

int cli_error_exit_status(const confine_error *err, bool confined) {
	/* The library's exec failure names the program: "cannot execute "P": E"
	 * (a failed chdir or setup step is confine's own failure, 125). An
	 * unconfined run execs the command itself: any errno is the command's.
	 * Under a runner, ENOENT/EACCES come from the status channel (the
	 * runner's own exec failing so is SANDBOX_UNAVAILABLE); any other errno
	 * may be the runner's (an argv too long once the profile is added):
	 * confine's failure. */
	static const char exec_prefix[] = "cannot execute \"";
	int e = err->sys_errno;
	if (err->code != CONFINE_E_SPAWN ||
	    strncmp(err->message, exec_prefix, sizeof exec_prefix - 1) != 0)
		return CLI_EXIT_FAILURE;
	if (e == ENOENT)
		return CLI_EXIT_NOT_FOUND;
	if (!confined || e == EACCES)
		return CLI_EXIT_CANNOT_EXECUTE;
	return CLI_EXIT_FAILURE;
}

const char *cli_runner_failure_of(confine_error_code code, const char *message) {
	static const char tail[] = " Runner failure: ";
	const char *p;
	if (code != CONFINE_E_SANDBOX_UNAVAILABLE || !message)
		return NULL;
	p = strstr(message, tail);
	return p && p[sizeof tail - 1] ? p + sizeof tail - 1 : NULL;
}

int cli_emit_json_to(FILE *stream, json_t *value, int last_byte) {
	char *text;
	int r = 0;
	if (!value)
		return -ENOMEM;
	text = json_dumps(value, JSON_COMPACT);
	json_decref(value);
	if (!text)
		return -ENOMEM;
	if (last_byte != '\n' && fputc('\n', stream) == EOF)
		r = -EIO;
	if (fputs(text, stream) == EOF || fputc('\n', stream) == EOF)
		r = -EIO;
	free(text);
	if (fflush(stream) == EOF)
		r = -errno;
	return r;
}

/* Prints `value` as one compact line on stdout and releases it. */
int cli_emit_json(json_t *value) {
	return cli_emit_json_to(stdout, value, '\n');
}

json_t *cli_error_object(confine_error_code code, const char *message,
                         const char *runner_failure) {
	json_t *error = json_object();
	if (!error)
		return NULL;
	if (!runner_failure)
		runner_failure = cli_runner_failure_of(code, message);
	json_object_set_new(error, "code", json_string(cli_error_code_name(code)));
	json_object_set_new(error, "message", cli_json_string_lossy(message, strlen(message)));
	if (runner_failure)
		json_object_set_new(error, "runnerFailure",
		                    cli_json_string_lossy(runner_failure, strlen(runner_failure)));
	return error;
}

static json_t *string_array(char *const *strv) {
	json_t *array = json_array();
	for (size_t i = 0; array && strv && strv[i]; i++)
		json_array_append_new(array, cli_json_string_lossy(strv[i], strlen(strv[i])));
	return array;
}

/* The limit that stopped the run (doc/SPEC.md 15, "Limits"), or null. */
static json_t *limit_json(const confine_outcome *o) {
	json_t *limit;
	if (!o->limit_stopped || !confine_limit_name(o->limit) || !(limit = json_object()))
		return json_null();
	json_object_set_new(limit, "name", json_string(confine_limit_name(o->limit)));
	json_object_set_new(limit, "value", json_integer((json_int_t)o->limit_value));
	json_object_set_new(limit, "killed", json_boolean(o->limit_killed));
	return limit;
}

/* What the run used; null where the mechanism cannot tell. */
static json_t *usage_json(const confine_outcome *o) {
	json_t *usage = json_object();
	if (!usage)
		return NULL;
	json_object_set_new(usage, "peakMemory",
	                    o->peak_memory >= 0 ? json_integer((json_int_t)o->peak_memory) : json_null());
	json_object_set_new(usage, "peakProcesses",
	                    o->peak_pids >= 0 ? json_integer((json_int_t)o->peak_pids) : json_null());
	json_object_set_new(usage, "cpuSeconds",
	                    o->cpu_seconds >= 0 ? json_real(o->cpu_seconds) : json_null());
	return usage;
}

json_t *cli_outcome_json(const confine_outcome *o, bool captured, const confine_error *error) {
	json_t *object = json_object(), *sandbox = json_object();
	char name[32];
	if (!object || !sandbox) {
		json_decref(object);
		json_decref(sandbox);
		return NULL;
	}
	if (o->signaled)
		json_object_set_new(object, "signal",
		                    json_string(confine_signal_name(o->signal, name, sizeof name)));
	else
		json_object_set_new(object, "exitCode", json_integer(o->exit_code));
	json_object_set_new(object, "timedOut", json_boolean(o->timed_out));
	if (captured) {
		json_object_set_new(object, "stdout",
		                    cli_json_string_lossy(o->stdout_data, o->stdout_len));
		json_object_set_new(object, "stderr",
		                    cli_json_string_lossy(o->stderr_data, o->stderr_len));
		/* `truncated` stays for the readers that predate the pair. */
		json_object_set_new(object, "truncated",
		                    json_boolean(o->stdout_truncated || o->stderr_truncated));
		json_object_set_new(object, "stdoutTruncated", json_boolean(o->stdout_truncated));
		json_object_set_new(object, "stderrTruncated", json_boolean(o->stderr_truncated));
	}

	json_object_set_new(sandbox, "mode", json_string(confine_mode_name(o->mode)));
	json_object_set_new(sandbox, "denied", json_boolean(o->denied));
	json_object_set_new(sandbox, "networkDenied", json_boolean(o->network_denied));
	json_object_set_new(sandbox, "denials", cli_denials_json(o));
	json_object_set_new(sandbox, "denialsDropped", json_integer((json_int_t)o->denials_dropped));
	json_object_set_new(sandbox, "network", cli_network_json(o));
	if (o->confined) {
		json_object_set_new(sandbox, "enforcement",
		                    json_string(confine_enforcement_name(o->enforcement)));
		json_object_set_new(sandbox, "unenforced", string_array(o->unenforced));
		json_object_set_new(sandbox, "layers", cli_layers_json(o->clauses, o->n_clauses));
		json_object_set_new(sandbox, "clauses", cli_clauses_json(o->clauses, o->n_clauses));
		json_object_set_new(sandbox, "runner", json_string(confine_runner_name(o->runner)));
		json_object_set_new(sandbox, "gitHazards", cli_git_hazards_json(o->git_hazards, o->n_git_hazards));
	}
	json_object_set_new(sandbox, "runnerFailed", json_boolean(o->runner_failed));
	json_object_set_new(sandbox, "limit", limit_json(o));
	json_object_set_new(object, "sandbox", sandbox);
	json_object_set_new(object, "usage", usage_json(o));

	if (error && error->code != CONFINE_OK)
		json_object_set_new(object, "error",
		                    cli_error_object(error->code, error->message,
		                                     o->runner_failure_detail));
	else
		json_object_set_new(object, "error", json_null());
	return object;
}

static int fail_with(int status, confine_error_code code, const char *message,
                     const char *runner_failure, const char *hint) {
	fprintf(stderr, "confine: %s\n", message);
	if (hint)
		fprintf(stderr, "%s\n", hint);
	fflush(stderr);
	if (output_mode != CLI_JSON_NONE) {
		json_t *object = json_object();
		if (object)
			json_object_set_new(object, "error",
			                    cli_error_object(code, message, runner_failure));
		/* On stderr it follows confine's own line: already a line start. */
		(void)cli_emit_json_to(output_mode == CLI_JSON_STDERR ? stderr : stdout, object, '\n');
	}
	return status;
}

int cli_fail(int status, confine_error_code code, const char *message,
             const char *runner_failure) {
	return fail_with(status, code, message, runner_failure, NULL);
}

int cli_fail_usage(int status, const char *message, const char *hint) {
	return fail_with(status, CLI_E_USAGE, message, NULL, hint);
}

int cli_report_failure(bool json, confine_error_code code, const char *message) {
	/* `json` predates cli_output_configure(), which decides. */
	(void)json;
	return cli_fail(CLI_EXIT_FAILURE, code, message, NULL);
}

int cli_report_error(const cli_context *ctx, const confine_error *err) {
	bool confined = !ctx->policy || confine_mode_is_confined(ctx->policy->mode);
	return cli_fail(cli_error_exit_status(err, confined), err->code, err->message, NULL);
}

int cli_report_error_replacing(const cli_context *ctx, const confine_error *err,
                               const char *from, const char *to) {
	const char *at = strstr(err->message, from);
	confine_error copy;
	if (!at)
		return cli_report_error(ctx, err);
	copy = *err;
	snprintf(copy.message, sizeof copy.message, "%.*s%s%s", (int)(at - err->message),
	         err->message, to, at + strlen(from));
	return cli_report_error(ctx, &copy);
}

int cli_report(const cli_context *ctx, confine_error_code code, const char *fmt, ...) {
	char message[CONFINE_ERROR_MESSAGE_MAX];
	va_list ap;
	(void)ctx;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	return cli_fail(CLI_EXIT_FAILURE, code, message, NULL);
}

int cli_report_output_failure(const cli_context *ctx, int r) {
	return cli_report(ctx, CONFINE_E_SYSTEM, "cannot write to standard output: %s", strerror(-r));
}
