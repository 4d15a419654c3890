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

#include "denials.h"
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

/* Case-insensitive (ASCII) prefix test: whether line `l` starts with `s`. */
static bool line_starts_with_ci(const line *l, const char *s) {
	size_t n = strlen(s);
	if (n > l->len)
		return false;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)l->start[i]) != tolower((unsigned char)s[i]))
			return false;
	return true;
}

/* A runner writes its own refusal at the start of a line ("bwrap: ...");
 * anywhere else the text is some other program's ("cat: src/bwrap: ..."),
 * so a fatal signature counts only at column 0 (doc/SPEC.md 8). */
static bool line_has_signature(const line *l, char *const *signatures) {
	if (!signatures)
		return false;
	for (char *const *p = signatures; *p; p++)
		if (!signature_is_blank(*p) && line_starts_with_ci(l, *p))
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

/* Whether the line names what was refused: a path ('/') or a quoted name. */
static bool line_names_a_path(const line *l) {
	for (size_t i = 0; i < l->len; i++)
		if (l->start[i] == '/' || l->start[i] == '\'' || l->start[i] == '"' ||
		    l->start[i] == '`')
			return true;
	/* U+2018 / U+2019, the quotes of coreutils in a UTF-8 locale */
	return cf_contains_ci(l->start, l->len, "\xe2\x80\x98", 3) ||
	       cf_contains_ci(l->start, l->len, "\xe2\x80\x99", 3);
}

/*
 * Whether the signature at `at` (inside line `l`) reads as a file access
 * refused: the line names a path or a quoted name, or the signature ends
 * the error ("bash: line 1: out.txt: Permission denied", at the end of the
 * line or before ':', ',', ';', '.', or Rust's " (os error N)"). That leaves
 * out "git@host: Permission denied (publickey)." (ssh's authentication).
 */
static bool denial_at(const line *l, const char *at, size_t sig_len) {
	const char *rest = at + sig_len;
	size_t rest_len = (size_t)(l->start + l->len - rest);
	if (line_names_a_path(l) || rest_len == 0)
		return true;
	if (strchr(":,;.", rest[0]))
		return true;
	return rest_len >= 10 && cf_contains_ci(rest, 10, " (os error", 10);
}

static bool line_shows_denial(const line *l, const char *sig) {
	size_t n = strlen(sig);
	for (size_t i = 0; i + n <= l->len; i++)
		if (cf_contains_ci(l->start + i, n, sig, n) && denial_at(l, l->start + i, n))
			return true;
	return false;
}

bool cf_line_shows_denial(const char *text, size_t len, char *const *signatures) {
	line l = { text, len };
	if (!text || !signatures)
		return false;
	for (char *const *p = signatures; *p; p++)
		if (!signature_is_blank(*p) && line_shows_denial(&l, *p))
			return true;
	return false;
}

static bool text_shows_denial(const char *text, size_t len, char *const *signatures) {
	size_t pos = 0;
	line l;
	if (!text || !signatures)
		return false;
	while (next_line(text, len, &pos, &l))
		for (char *const *p = signatures; *p; p++)
			/* a blank signature would call every line a denial */
			if (!signature_is_blank(*p) && line_shows_denial(&l, *p))
				return true;
	return false;
}

bool confine_classify_denial(int exit_code, bool signaled, const char *stderr_text,
                             size_t stderr_len, char *const *denial_signatures) {
	return confine_classify_denial_streams(exit_code, signaled, NULL, 0, stderr_text,
	                                       stderr_len, denial_signatures);
}

bool confine_classify_denial_streams(int exit_code, bool signaled, const char *stdout_text,
                                     size_t stdout_len, const char *stderr_text,
                                     size_t stderr_len, char *const *denial_signatures) {
	/* A refusal on stderr counts however the run ended: a later command
	 * that exits 0 does not undo it. */
	if (text_shows_denial(stderr_text, stderr_len, denial_signatures))
		return true;
	/* stdout only when the run failed ("touch f 2>&1"): a successful
	 * `cat` of a log that quotes a denial is not one. */
	if (signaled || exit_code == 0)
		return false;
	return text_shows_denial(stdout_text, stdout_len, denial_signatures);
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
