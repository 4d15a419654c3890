/* SPDX-License-Identifier: MIT */
/*
 * What confine prints: JSON objects on stdout (one compact line each), and
 * for a failure of confine itself one `confine: MESSAGE` line on stderr
 * (and with --json the error object too).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

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

/* Prints `value` as one compact line on stdout and releases it. */
int cli_emit_json(json_t *value) {
	char *text;
	int r = 0;
	if (!value)
		return -ENOMEM;
	text = json_dumps(value, JSON_COMPACT);
	json_decref(value);
	if (!text)
		return -ENOMEM;
	if (fputs(text, stdout) == EOF || fputc('\n', stdout) == EOF)
		r = -EIO;
	free(text);
	if (fflush(stdout) == EOF)
		r = -errno;
	return r;
}

json_t *cli_error_object(confine_error_code code, const char *message) {
	json_t *error = json_object();
	if (!error)
		return NULL;
	json_object_set_new(error, "code", json_string(confine_error_code_name(code)));
	json_object_set_new(error, "message", cli_json_string_lossy(message, strlen(message)));
	return error;
}

int cli_report_failure(bool json, confine_error_code code, const char *message) {
	fprintf(stderr, "confine: %s\n", message);
	fflush(stderr);
	if (json) {
		json_t *object = json_object();
		if (object)
			json_object_set_new(object, "error", cli_error_object(code, message));
		(void)cli_emit_json(object);
	}
	return CLI_EXIT_FAILURE;
}

int cli_report_error(const cli_context *ctx, const confine_error *err) {
	return cli_report_failure(ctx->args->json, err->code, err->message);
}

int cli_report(const cli_context *ctx, confine_error_code code, const char *fmt, ...) {
	char message[CONFINE_ERROR_MESSAGE_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(message, sizeof message, fmt, ap);
	va_end(ap);
	return cli_report_failure(ctx->args->json, code, message);
}

int cli_report_output_failure(const cli_context *ctx, int r) {
	return cli_report(ctx, CONFINE_E_SYSTEM, "cannot write to standard output: %s", strerror(-r));
}
