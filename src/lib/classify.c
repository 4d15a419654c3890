/* SPDX-License-Identifier: MIT */
/*
 * The classifiers of SPEC 8: pure functions over how a run ended.
 *
 * Runner failure is evidence that the runner refused *before* the command
 * ran; denial is the command being blocked by a working sandbox. Stderr is
 * treated as bytes with a length (a command may write NUL bytes) and is never
 * rewritten: a matched line is handed back as it was written, minus the line
 * terminator.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* One stderr line: [start, start + len), its terminator excluded. */
typedef struct line {
	const char *start;
	size_t len;
} line;

/*
 * Steps through `text[0..len)` line by line: lines end at "\n", and a "\r"
 * right before it belongs to the terminator ("\r\n"). What follows the final
 * "\n" is a line only when it is non-empty. Returns false when no line is
 * left; `*pos` is the cursor (start at 0).
 */
static bool next_line(const char *text, size_t len, size_t *pos, line *ret) {
	const char *nl;
	size_t start = *pos, end;
	if (start >= len)
		return false;
	nl = memchr(text + start, '\n', len - start);
	if (nl) {
		end = (size_t)(nl - text);
		*pos = end + 1;
	} else {
		end = len;
		*pos = len;
	}
	ret->start = text + start;
	ret->len = end - start;
	if (nl && ret->len > 0 && ret->start[ret->len - 1] == '\r')
		ret->len--;
	return true;
}

/* Case-insensitive (ASCII) equality of a line with a whole C string. */
static bool line_equals_ci(const line *l, const char *s) {
	size_t n = strlen(s);
	if (n != l->len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)l->start[i]) != tolower((unsigned char)s[i]))
			return false;
	return true;
}

/* A signature that is empty or only whitespace would match every line: it is
 * no evidence, so it is ignored. Other signatures are used exactly as given,
 * spaces included ("bwrap: " must not match "bwrap:x"). */
static bool signature_is_blank(const char *s) {
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

static bool line_is_informational(const line *l, char *const *informational) {
	if (!informational)
		return false;
	for (char *const *p = informational; *p; p++)
		if (line_equals_ci(l, *p))
			return true;
	return false;
}

static bool line_has_signature(const line *l, char *const *signatures) {
	if (!signatures)
		return false;
	for (char *const *p = signatures; *p; p++)
		if (!signature_is_blank(*p) && cf_contains_ci(l->start, l->len, *p, strlen(*p)))
			return true;
	return false;
}

/* A rule without exit codes applies to any non-zero exit. */
static bool rule_admits_exit(const confine_rule *rule, int exit_code) {
	if (!rule->allowed_exit_codes || rule->n_allowed_exit_codes == 0)
		return true;
	for (size_t i = 0; i < rule->n_allowed_exit_codes; i++)
		if (rule->allowed_exit_codes[i] == exit_code)
			return true;
	return false;
}

int confine_classify_runner_failure(int exit_code, bool signaled, const char *stderr_text,
                                    size_t stderr_len, const confine_rule *rules, size_t n_rules,
                                    char **ret_detail) {
	/* A runner that refused exits non-zero by itself; a clean exit or a
	 * signal death says the command (or someone) ran, not the runner. */
	if (signaled || exit_code == 0)
		return 0;
	if (!stderr_text || !rules)
		return 0;

	for (size_t r = 0; r < n_rules; r++) {
		const confine_rule *rule = &rules[r];
		size_t pos = 0;
		line l;
		if (!rule_admits_exit(rule, exit_code))
			continue;
		while (next_line(stderr_text, stderr_len, &pos, &l)) {
			char *detail;
			if (line_is_informational(&l, rule->informational_lines))
				continue;
			if (!line_has_signature(&l, rule->fatal_signatures))
				continue;
			if (ret_detail) {
				detail = malloc(l.len + 1);
				if (!detail)
					return -ENOMEM;
				memcpy(detail, l.start, l.len);
				detail[l.len] = '\0';
				*ret_detail = detail;
			}
			return 1;
		}
	}
	return 0;
}

bool confine_classify_denial(int exit_code, bool signaled, const char *stderr_text,
                             size_t stderr_len, char *const *denial_signatures) {
	if (signaled || exit_code == 0 || !stderr_text || !denial_signatures)
		return false;
	/* Matched against the whole stderr, not per line (SPEC 8). A blank
	 * signature would call every failure a denial: it is ignored. */
	for (char *const *p = denial_signatures; *p; p++)
		if (!signature_is_blank(*p) && cf_contains_ci(stderr_text, stderr_len, *p, strlen(*p)))
			return true;
	return false;
}

bool confine_classify_spawn_rejection(confine_spawn_step step, int error_number,
                                      bool workdir_usable) {
	/* Only an exec of the runner itself that found nothing to run (ENOENT,
	 * also a script whose #! interpreter is missing) or nothing it may run
	 * (EACCES) proves the runner is broken; a workdir problem or any other
	 * errno is an ordinary start failure. */
	if (step != CONFINE_SPAWN_STEP_EXEC || !workdir_usable)
		return false;
	return error_number == ENOENT || error_number == EACCES;
}
