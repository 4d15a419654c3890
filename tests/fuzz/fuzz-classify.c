/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target for the SPEC 8 classifiers: runner failure and denial,
 * with arbitrary stderr and arbitrary rules. The input is split on 0xFF
 * bytes: the first piece drives the exit status and the rules' shape, the
 * second is the stderr text (NULs and CRs included), the rest become
 * signatures, informational lines and denial signatures.
 *
 * Beyond "no crash, no leak, no overread" (ASan/UBSan), it checks the
 * contract's invariants: exit 0 or a signal death is never a runner failure
 * nor a denial; a reported detail is one line of the stderr, without its
 * line ending, found in the stderr as is, and (for NUL-free stderr)
 * contains one of the fatal signatures case-insensitively.
 *
 * The same text then goes through the scan for denials with their object
 * (denials.c, doc/SPEC.md 8) over a fixed policy and an invented
 * filesystem: the list stays bounded, each entry names one object (an
 * absolute path, or an address only with the network off), each object
 * once, a path clause's object lies under its subject, and the file marker
 * is never set without evidence (a signature the old rule sees, or a path
 * in the list).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "confine.h"
#include "denials.h"
#include "rungs/rung.h"

#define MAX_PIECES 24

static bool contains_ci(const char *haystack, const char *needle)
{
	size_t n = strlen(needle);

	for (const char *p = haystack; *p != '\0'; p++)
		if (strncasecmp(p, needle, n) == 0)
			return true;
	return n == 0;
}

static char *piece_dup(const uint8_t *data, size_t len)
{
	char *s = malloc(len + 1);

	if (s == NULL)
		abort();
	memcpy(s, data, len);
	s[len] = '\0';
	return s;
}

/* An invented host: canonical is the path itself; what exists and what
 * this user may write follow from the path's own bytes. */
static void fake_canonical(void *data, const char *path, char *out, size_t size)
{
	(void)data;
	snprintf(out, size, "%s", path);
}

static bool fake_exists(void *data, const char *path)
{
	(void)data;
	return strlen(path) % 2 == 0;
}

static bool fake_permitted(void *data, const char *path, const char *op)
{
	(void)data;
	(void)op;
	return strchr(path, 'n') == NULL;
}

static bool under(const char *path, const char *root)
{
	size_t n = strlen(root);

	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static void check_denials(const uint8_t *shape, int exit_code, bool signaled,
			  const char *text, size_t len, char **signatures)
{
	static const cf_denial_fs fs = { fake_canonical, fake_exists, fake_permitted, NULL };
	confine_clause clauses[] = {
		{ (char *)"mode", (char *)"workspace-write", CONFINE_CLAUSE_ENFORCED, 1, NULL, NULL },
		{ (char *)"protectedPaths", (char *)"/w/p", CONFINE_CLAUSE_ENFORCED, 1, NULL, NULL },
		{ (char *)"denyRead", (char *)"/s", CONFINE_CLAUSE_ENFORCED, 1, NULL, NULL },
		{ (char *)"network", (char *)"off", CONFINE_CLAUSE_ENFORCED, 1, NULL, NULL },
		{ (char *)"metadata", NULL, CONFINE_CLAUSE_ENFORCED, 8, NULL, NULL },
		{ (char *)"setid", NULL, CONFINE_CLAUSE_ENFORCED, 8, NULL, NULL },
	};
	char *writable[] = { (char *)"/w", (char *)"/tmp", NULL };
	bool network_off = (shape[1] & 0x40) != 0;
	cf_denial_scope scope;
	cf_denials list = { NULL, 0, 0 };
	cf_denial_verdict v;
	bool path_listed = false;

	if (!network_off)
		clauses[3].subject = (char *)"on";
	memset(&scope, 0, sizeof(scope));
	/* the denial dialect of a rung that masks with mounts, or of one on
	 * the host's /tmp: their rows' facts */
	scope.facts = cf_runner_find(shape[1] & 0x20 ? CONFINE_RUNNER_BWRAP
	                                            : CONFINE_RUNNER_LANDLOCK)->facts;
	scope.workdir = shape[1] & 0x80 ? "/w" : NULL;
	scope.signatures = signatures;
	scope.clauses = clauses;
	scope.n_clauses = sizeof(clauses) / sizeof(clauses[0]);
	scope.writable = writable;
	scope.fs = &fs;
	/* the text as stdout too: read only when the run failed */
	if (cf_denials_scan(&scope, exit_code, signaled, text, len, text, len, &list, &v) < 0)
		return; /* out of memory */
	if (list.n > CONFINE_DENIALS_MAX)
		abort();
	for (size_t i = 0; i < list.n; i++) {
		const confine_denial *d = &list.items[i];
		const char *object = d->path ? d->path : d->address;

		if (d->op == NULL || d->op[0] == '\0' || d->clause == NULL || !d->path == !d->address)
			abort(); /* an operation, a clause, and one object */
		if (d->path != NULL) {
			path_listed = true;
			if (d->path[0] != '/')
				abort(); /* absolute */
			if (strcmp(d->clause, "denyRead") == 0 && !under(d->path, "/s"))
				abort();
			if (strcmp(d->clause, "protectedPaths") == 0 && !under(d->path, "/w/p"))
				abort();
		} else if (!network_off || strcmp(d->clause, "network") != 0) {
			abort(); /* an address only with the network off */
		}
		for (size_t j = 0; j < i; j++) {
			const confine_denial *e = &list.items[j];
			const char *other = e->path ? e->path : e->address;

			if (strcmp(e->op, d->op) == 0 && strcmp(object, other) == 0)
				abort(); /* each object once */
		}
	}
	if (v.network && !network_off)
		abort();
	/* the file marker needs evidence: a line the old rule calls a denial
	 * (checked on NUL-free text, as above), or a path in the list */
	if (v.file && !path_listed && list.n < CONFINE_DENIALS_MAX &&
	    memchr(text, '\0', len) == NULL &&
	    !confine_classify_denial_streams(exit_code, signaled, text, len, text, len, signatures))
		abort();
	cf_denials_free(&list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *start[MAX_PIECES];
	size_t length[MAX_PIECES];
	size_t n_pieces = 0, begin = 0;
	char *strings[MAX_PIECES] = {0};
	char *fatal[MAX_PIECES + 1], *info[MAX_PIECES + 1], *denial[MAX_PIECES + 1];
	size_t n_fatal = 0, n_info = 0, n_denial = 0;
	int exit_codes[3];
	confine_rule rules[2];
	size_t n_rules;
	int exit_code;
	bool signaled;
	const char *stderr_text;
	size_t stderr_len;
	char *detail = NULL;
	int matched;
	bool denied;

	for (size_t i = 0; i <= size && n_pieces < MAX_PIECES; i++) {
		if (i == size || data[i] == 0xFF) {
			start[n_pieces] = data + begin;
			length[n_pieces] = i - begin;
			n_pieces++;
			begin = i + 1;
		}
	}
	if (n_pieces < 2 || length[0] < 4)
		return 0;

	/* Shape: exit code, signal flag, rule count, which pieces go where. */
	exit_code = (int)(int8_t)start[0][0];
	signaled = (start[0][1] & 1) != 0;
	n_rules = 1 + (start[0][1] >> 1 & 1);
	exit_codes[0] = (int)(int8_t)start[0][2];
	exit_codes[1] = 125;
	exit_codes[2] = exit_code;

	/* The stderr keeps its exact bytes, embedded NULs included. */
	stderr_text = (const char *)start[1];
	stderr_len = length[1];

	for (size_t i = 2; i < n_pieces; i++) {
		uint8_t role = (uint8_t)(start[0][3] >> ((i - 2) % 4 * 2)) & 3;

		strings[i] = piece_dup(start[i], length[i]);
		if (role == 0 || role == 3)
			fatal[n_fatal++] = strings[i];
		else if (role == 1)
			info[n_info++] = strings[i];
		else
			denial[n_denial++] = strings[i];
	}
	fatal[n_fatal] = NULL;
	info[n_info] = NULL;
	denial[n_denial] = NULL;

	memset(rules, 0, sizeof(rules));
	rules[0].fatal_signatures = fatal;
	rules[0].informational_lines = n_info > 0 ? info : NULL;
	if (start[0][1] & 4) {
		rules[0].allowed_exit_codes = exit_codes;
		rules[0].n_allowed_exit_codes = 1 + (start[0][1] >> 3 & 1) + (start[0][1] >> 4 & 1);
	}
	rules[1].fatal_signatures = denial;
	rules[1].informational_lines = NULL;

	matched = confine_classify_runner_failure(exit_code, signaled, stderr_text, stderr_len,
	                                          rules, n_rules, &detail);
	if (matched < 0 && matched != -ENOMEM)
		abort();
	if ((exit_code == 0 || signaled) && matched != 0)
		abort(); /* exit 0 or a signal death is never a runner failure */
	if (matched == 1) {
		bool found = false;

		if (detail == NULL || strchr(detail, '\n') != NULL)
			abort(); /* the detail is one line */
		if (memmem(stderr_text, stderr_len, detail, strlen(detail)) == NULL)
			abort(); /* taken from the stderr, never rewritten */
		/* It contains a non-blank fatal signature of some rule. A line
		 * with an embedded NUL can match after the NUL while the detail,
		 * a C string, stops at it: only check NUL-free stderr. */
		if (memchr(stderr_text, '\0', stderr_len) != NULL)
			found = true;
		for (size_t r = 0; r < n_rules && !found; r++)
			for (char **s = rules[r].fatal_signatures; *s != NULL && !found; s++)
				if (strspn(*s, " \t\r\n") != strlen(*s) && contains_ci(detail, *s))
					found = true;
		if (!found)
			abort();
	} else if (detail != NULL) {
		abort(); /* ret_detail is written only on a match */
	}
	free(detail);
	/* The same call without a detail pointer must agree. */
	if (matched >= 0 && confine_classify_runner_failure(exit_code, signaled, stderr_text,
	                                                    stderr_len, rules, n_rules, NULL) != matched)
		abort();

	denied = confine_classify_denial(exit_code, signaled, stderr_text, stderr_len, denial);
	/* A denial is evidence in the text (doc/SPEC.md 8): some non-blank
	 * signature occurs in stderr (checked where stderr has no NUL: the
	 * helper reads C strings). The exit status no longer gates it. */
	if (denied && memchr(stderr_text, '\0', stderr_len) == NULL) {
		char *text = strndup(stderr_text, stderr_len); /* the fuzz data has no NUL */
		bool found = false;
		if (text == NULL)
			abort();
		for (char **s = denial; s != NULL && *s != NULL && !found; s++)
			if (strspn(*s, " \t\r\n") != strlen(*s) && contains_ci(text, *s))
				found = true;
		free(text);
		if (!found)
			abort();
	}
	/* The two-stream form with no stdout agrees. */
	if (confine_classify_denial_streams(exit_code, signaled, NULL, 0, stderr_text, stderr_len,
	                                    denial) != denied)
		abort();

	check_denials(start[0], exit_code, signaled, stderr_text, stderr_len, denial);

	for (size_t i = 0; i < MAX_PIECES; i++)
		free(strings[i]);
	return 0;
}
