/* SPDX-License-Identifier: MIT */
/* The classifiers of SPEC 8: runner failure, denial, spawn rejection. Each
 * table row is one fact of the contract; a changed rule fails a row. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "confine.h"

/* The rule vectors are `char **` in the API; the library never writes them. */
#define S(literal) ((char *)(literal))

#define NOTICE "landlock-run: partial enforcement (older Landlock ABI)"
#define RULESET_ERROR "landlock-run: landlock ruleset error: Invalid argument"
#define BWRAP_PROC "bwrap: Can't mount proc on /newroot/proc: Operation not permitted"

/* ------------------------------------------------------------------------ */
/* The rules of SPEC 6, spelled out here (not taken from the library) so a
 * test pins the contract rather than echoing the implementation. */

static int landlock_exits[] = { 125 };
static char *landlock_fatal[] = { S("landlock-run: "), NULL };
static char *landlock_info[] = { S(NOTICE), NULL };
static char *bwrap_fatal[] = { S("bwrap: "), NULL };
static char *seatbelt_fatal[] = { S("sandbox-exec: "), NULL };

#define LANDLOCK_RULE { landlock_exits, 1, landlock_fatal, landlock_info }
#define BWRAP_RULE { NULL, 0, bwrap_fatal, NULL }
#define SEATBELT_RULE { NULL, 0, seatbelt_fatal, NULL }

static const confine_rule landlock_rules[] = { LANDLOCK_RULE };
static const confine_rule bwrap_rules[] = { BWRAP_RULE };
static const confine_rule seatbelt_rules[] = { SEATBELT_RULE };
static const confine_rule landlock_then_bwrap[] = { LANDLOCK_RULE, BWRAP_RULE };
static const confine_rule bwrap_then_landlock[] = { BWRAP_RULE, LANDLOCK_RULE };

/* Signatures that are empty after trimming are no evidence and are ignored;
 * the rest keep their spaces. */
static char *blank_and_real[] = { S(""), S(" "), S("\t \r\n"), S("sandbox-exec: "), NULL };
static char *only_blank[] = { S(""), S("   "), S("\t"), NULL };
static char *spaced[] = { S(" x "), NULL };
static const confine_rule blank_and_real_rules[] = { { NULL, 0, blank_and_real, NULL } };
static const confine_rule only_blank_rules[] = { { NULL, 0, only_blank, NULL } };
static const confine_rule spaced_rules[] = { { NULL, 0, spaced, NULL } };

/* Informational lines belong to their rule: the second rule has none. */
static char *colon_fatal[] = { S("tool: "), NULL };
static char *colon_info[] = { S("tool: warming up"), NULL };
static const confine_rule info_then_plain[] = {
	{ NULL, 0, colon_fatal, colon_info },
	{ NULL, 0, colon_fatal, NULL },
};
static const confine_rule info_only[] = { { NULL, 0, colon_fatal, colon_info } };

/* Several exit codes; and an exit-code pointer with no codes (no gate). */
static int two_exits[] = { 2, 125 };
static const confine_rule two_exit_rules[] = { { two_exits, 2, bwrap_fatal, NULL } };
static const confine_rule zero_exit_count_rules[] = { { landlock_exits, 0, bwrap_fatal, NULL } };

typedef struct rules_ref {
	const confine_rule *rules;
	size_t n;
} rules_ref;

#define RULES(a) { a, sizeof a / sizeof a[0] }

typedef struct runner_case {
	const char *name;
	rules_ref rules;
	int exit_code;
	bool signaled;
	const char *stderr_text;
	size_t stderr_len; /* 0: strlen(stderr_text) */
	const char *detail; /* NULL: no runner failure */
} runner_case;

/* A stderr literal that may hold NUL bytes, with its exact length. */
#define BYTES(s) s, sizeof s - 1

static const runner_case runner_cases[] = {
	/* The Landlock partial-enforcement notice alone is never a failure. */
	{ "notice alone at exit 1", RULES(landlock_rules), 1, false, NOTICE, 0, NULL },
	{ "notice alone at exit 2", RULES(landlock_rules), 2, false, NOTICE, 0, NULL },
	{ "notice alone at exit 125", RULES(landlock_rules), 125, false, NOTICE, 0, NULL },
	{ "notice and newline at 125", RULES(landlock_rules), 125, false, NOTICE "\n", 0, NULL },
	{ "notice CRLF at 125", RULES(landlock_rules), 125, false, NOTICE "\r\n", 0, NULL },
	{ "notice upper-cased at 125", RULES(landlock_rules), 125, false,
	  "LANDLOCK-RUN: PARTIAL ENFORCEMENT (OLDER LANDLOCK ABI)\n", 0, NULL },
	{ "notice mixed case at 125", RULES(landlock_rules), 125, false,
	  "Landlock-Run: Partial Enforcement (older landlock abi)\n", 0, NULL },
	{ "notice then the command's own stderr at 125", RULES(landlock_rules), 125, false,
	  NOTICE "\nmake: *** [all] Error 125\n", 0, NULL },
	/* Whole-line equality only: anything added to the notice is fatal. */
	{ "notice with text appended at 125", RULES(landlock_rules), 125, false,
	  NOTICE " and more\n", 0, NOTICE " and more" },
	/* A fatal signature counts only where a runner writes it: at column 0. */
	{ "notice with a leading space at 125", RULES(landlock_rules), 125, false,
	  " " NOTICE "\n", 0, NULL },
	{ "notice with a trailing space at 125", RULES(landlock_rules), 125, false,
	  NOTICE " \n", 0, NOTICE " " },
	/* The fatal signature, inside and outside the exit gate. */
	{ "fatal line at 125", RULES(landlock_rules), 125, false, RULESET_ERROR "\n", 0,
	  RULESET_ERROR },
	{ "fatal line at exit 1 (outside [125])", RULES(landlock_rules), 1, false,
	  RULESET_ERROR "\n", 0, NULL },
	{ "fatal line at exit 126", RULES(landlock_rules), 126, false, RULESET_ERROR "\n", 0, NULL },
	{ "fatal line at exit 0", RULES(landlock_rules), 0, false, RULESET_ERROR "\n", 0, NULL },
	{ "fatal line, killed by signal 125", RULES(landlock_rules), 125, true,
	  RULESET_ERROR "\n", 0, NULL },
	{ "fatal line upper-cased at 125", RULES(landlock_rules), 125, false,
	  "LANDLOCK-RUN: EXEC FAILED: NO SUCH FILE OR DIRECTORY\n", 0,
	  "LANDLOCK-RUN: EXEC FAILED: NO SUCH FILE OR DIRECTORY" },
	{ "notice then fatal line at 125", RULES(landlock_rules), 125, false,
	  NOTICE "\n" RULESET_ERROR "\n", 0, RULESET_ERROR },
	{ "first fatal line of two is the detail", RULES(landlock_rules), 125, false,
	  "landlock-run: out of memory\n" RULESET_ERROR "\n", 0, "landlock-run: out of memory" },
	{ "fatal line without a final newline", RULES(landlock_rules), 125, false, RULESET_ERROR,
	  0, RULESET_ERROR },
	{ "signature without its space does not match", RULES(landlock_rules), 125, false,
	  "landlock-run:exec\n", 0, NULL },
	/* Lines: "\n" and "\r\n"; matching is per line, never across lines. */
	{ "CRLF lines: detail without the CR", RULES(landlock_rules), 125, false,
	  "warming up\r\n" RULESET_ERROR "\r\n", 0, RULESET_ERROR },
	{ "a CR not before LF stays in the line", RULES(landlock_rules), 125, false,
	  RULESET_ERROR "\rprogress\n", 0, RULESET_ERROR "\rprogress" },
	{ "after a CR is not column 0", RULES(landlock_rules), 125, false,
	  "progress\r" RULESET_ERROR "\n", 0, NULL },
	{ "a signature split over two lines", RULES(landlock_rules), 125, false,
	  "landlock-\nrun: exec failed\n", 0, NULL },
	{ "exit status alone is no evidence", RULES(landlock_rules), 125, false,
	  "compiler error\n", 0, NULL },
	{ "empty stderr", RULES(landlock_rules), 125, false, "", 0, NULL },
	{ "NUL bytes before the fatal line", RULES(landlock_rules), 125, false,
	  BYTES("bin\0ary\n" RULESET_ERROR "\n"), RULESET_ERROR },
	{ "signature after a NUL in the same line", RULES(bwrap_rules), 1, false,
	  BYTES("x\0y bwrap: no\n"), NULL },
	{ "signature after a NUL at column 0", RULES(bwrap_rules), 1, false,
	  BYTES("x\0y\nbwrap: no\n"), "bwrap: no" },
	{ "signature beyond the given length", RULES(bwrap_rules), 1, false,
	  "ok\nbwrap: beyond", 3, NULL },
	/* bwrap: `bwrap: ` with no exit gate. */
	{ "bwrap mount failure at exit 1", RULES(bwrap_rules), 1, false, BWRAP_PROC "\n", 0,
	  BWRAP_PROC },
	{ "bwrap failure at exit 255", RULES(bwrap_rules), 255, false,
	  "bwrap: execvp bash: No such file or directory\n", 0,
	  "bwrap: execvp bash: No such file or directory" },
	{ "bwrap failure at exit 125", RULES(bwrap_rules), 125, false, BWRAP_PROC, 0, BWRAP_PROC },
	{ "bwrap upper-cased", RULES(bwrap_rules), 1, false, "BWRAP: CAN'T MOUNT\n", 0,
	  "BWRAP: CAN'T MOUNT" },
	{ "bwrap signature inside a line is another program's", RULES(bwrap_rules), 1, false,
	  "error: bwrap: setting up uid map\n", 0, NULL },
	{ "cat of a file named src/bwrap", RULES(bwrap_rules), 1, false,
	  "cat: src/bwrap: No such file or directory\n", 0, NULL },
	{ "bwrap: without the space", RULES(bwrap_rules), 1, false, "bwrap:x\n", 0, NULL },
	{ "bwrap at exit 0", RULES(bwrap_rules), 0, false, BWRAP_PROC "\n", 0, NULL },
	{ "bwrap, signal death", RULES(bwrap_rules), 1, true, BWRAP_PROC "\n", 0, NULL },
	{ "Landlock notice under the bwrap rule", RULES(bwrap_rules), 1, false, NOTICE "\n", 0,
	  NULL },
	{ "seatbelt failure", RULES(seatbelt_rules), 65, false,
	  "sandbox-exec: sandbox_apply: Operation not permitted\n", 0,
	  "sandbox-exec: sandbox_apply: Operation not permitted" },
	/* Several rules: in order, the first rule that matches decides. */
	{ "landlock rule first, at 125", RULES(landlock_then_bwrap), 125, false,
	  "bwrap: first\n" RULESET_ERROR "\n", 0, RULESET_ERROR },
	{ "landlock rule gated out at 1, bwrap decides", RULES(landlock_then_bwrap), 1, false,
	  "bwrap: first\n" RULESET_ERROR "\n", 0, "bwrap: first" },
	{ "bwrap rule first, at 125", RULES(bwrap_then_landlock), 125, false,
	  RULESET_ERROR "\nbwrap: second\n", 0, "bwrap: second" },
	{ "no rule matches", RULES(landlock_then_bwrap), 125, false, "plain failure\n", 0, NULL },
	{ "informational lines are per rule", RULES(info_then_plain), 1, false,
	  "tool: warming up\n", 0, "tool: warming up" },
	{ "informational line alone", RULES(info_only), 1, false, "TOOL: Warming Up\r\n", 0, NULL },
	/* Blank signatures are ignored; others keep their spaces. */
	{ "blank signatures ignored", RULES(blank_and_real_rules), 1, false,
	  "anything at all\n \n", 0, NULL },
	{ "real signature beside blank ones", RULES(blank_and_real_rules), 1, false,
	  "sandbox-exec: denied\n", 0, "sandbox-exec: denied" },
	{ "only blank signatures", RULES(only_blank_rules), 1, false, "a\n\n \t\nb", 0, NULL },
	{ "spaced signature matches with its spaces", RULES(spaced_rules), 1, false,
	  " x b\n", 0, " x b" },
	{ "spaced signature is not trimmed", RULES(spaced_rules), 1, false,
	  "x\nax b\na x\nxb\n", 0, NULL },
	/* Exit gates with several codes; a gate pointer with no codes is no gate. */
	{ "second of two exit codes", RULES(two_exit_rules), 2, false, "bwrap: x\n", 0, "bwrap: x" },
	{ "outside two exit codes", RULES(two_exit_rules), 3, false, "bwrap: x\n", 0, NULL },
	{ "zero exit codes listed: any exit", RULES(zero_exit_count_rules), 7, false, "bwrap: x\n",
	  0, "bwrap: x" },
};

static void test_runner_failure_table(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof runner_cases / sizeof runner_cases[0]; i++) {
		const runner_case *c = &runner_cases[i];
		size_t len = c->stderr_len ? c->stderr_len : strlen(c->stderr_text);
		char *detail = NULL;
		int expected = c->detail ? 1 : 0;
		int r = confine_classify_runner_failure(c->exit_code, c->signaled, c->stderr_text, len,
		                                        c->rules.rules, c->rules.n, &detail);
		if (r != expected)
			fail_msg("\"%s\": returned %d, expected %d", c->name, r, expected);
		if (c->detail && (!detail || strcmp(detail, c->detail) != 0))
			fail_msg("\"%s\": detail \"%s\", expected \"%s\"", c->name,
			         detail ? detail : "(null)", c->detail);
		if (!c->detail && detail)
			fail_msg("\"%s\": detail written without a match", c->name);
		free(detail);
		/* The verdict does not depend on asking for the detail. */
		r = confine_classify_runner_failure(c->exit_code, c->signaled, c->stderr_text, len,
		                                    c->rules.rules, c->rules.n, NULL);
		if (r != expected)
			fail_msg("\"%s\" without detail: returned %d, expected %d", c->name, r, expected);
	}
}

static void test_runner_failure_degenerate_inputs(void **state) {
	(void)state;
	/* No rules, or no stderr: nothing proves a runner failure. */
	assert_int_equal(confine_classify_runner_failure(125, false, RULESET_ERROR,
	                                                 strlen(RULESET_ERROR), NULL, 0, NULL), 0);
	assert_int_equal(confine_classify_runner_failure(125, false, RULESET_ERROR,
	                                                 strlen(RULESET_ERROR), landlock_rules, 0,
	                                                 NULL), 0);
	assert_int_equal(confine_classify_runner_failure(125, false, NULL, 0, landlock_rules, 1, NULL),
	                 0);
}

/* Stderr is read, never rewritten. */
static void test_runner_failure_leaves_stderr_alone(void **state) {
	char text[] = "x\r\n" RULESET_ERROR "\r\n";
	char copy[sizeof text];
	char *detail = NULL;
	(void)state;
	memcpy(copy, text, sizeof text);
	assert_int_equal(confine_classify_runner_failure(125, false, text, sizeof text - 1,
	                                                 landlock_rules, 1, &detail), 1);
	assert_memory_equal(text, copy, sizeof text);
	assert_string_equal(detail, RULESET_ERROR);
	free(detail);
}

/* ------------------------------------------------------------------------ */
/* Denial */

static char *landlock_denial[] = { S("permission denied"), NULL };
static char *bwrap_denial[] = { S("read-only file system"), NULL };
static char *runner_command_denial[] = { S("read-only file system"), S("permission denied"), NULL };
static char *blank_denial[] = { S(""), S("  "), NULL };

typedef struct denial_case {
	const char *name;
	char *const *signatures;
	int exit_code;
	bool signaled;
	const char *stderr_text;
	size_t stderr_len; /* 0: strlen */
	bool denied;
} denial_case;

static const denial_case denial_cases[] = {
	{ "PERMISSION DENIED at exit 1", landlock_denial, 1, false, "PERMISSION DENIED", 0, true },
	/* A refusal on stderr counts however the run ended. */
	{ "PERMISSION DENIED at exit 0", landlock_denial, 0, false, "PERMISSION DENIED", 0, true },
	{ "PERMISSION DENIED, killed by a signal", landlock_denial, 1, true, "PERMISSION DENIED", 0,
	  true },
	/* Only where it reads as a refused file access. */
	{ "ssh's authentication failure", landlock_denial, 255, false,
	  "git@github.com: Permission denied (publickey).\r\n", 0, false },
	{ "bash, a relative redirect", landlock_denial, 1, false,
	  "bash: line 1: out.txt: Permission denied\n", 0, true },
	{ "python", landlock_denial, 1, false,
	  "PermissionError: [Errno 13] Permission denied: 'out.txt'\n", 0, true },
	{ "rust's io error", landlock_denial, 101, false,
	  "Caused by:\n  Permission denied (os error 13)\n", 0, true },
	{ "npm under bwrap", bwrap_denial, 1, false,
	  "npm ERR! rofs EROFS: read-only file system, open '/root/.npm/_cacache/x'\n", 0, true },
	{ "signature mid-sentence, no path", landlock_denial, 1, false,
	  "Permission denied by policy for this user\n", 0, false },
	{ "bash's denial line", landlock_denial, 1, false,
	  "bash: line 1: /etc/x: Permission denied\n", 0, true },
	{ "denial at exit 2 on a later line", landlock_denial, 2, false,
	  "first\nsecond\ntouch: cannot touch 'x': Permission denied\n", 0, true },
	{ "denial at exit 126", landlock_denial, 126, false, "bash: ./x: Permission denied", 0, true },
	{ "no signature", landlock_denial, 1, false, "No such file or directory\n", 0, false },
	{ "empty stderr", landlock_denial, 1, false, "", 0, false },
	{ "another backend's dialect", landlock_denial, 1, false,
	  "touch: cannot touch 'x': Read-only file system\n", 0, false },
	{ "bwrap's dialect", bwrap_denial, 1, false,
	  "touch: cannot touch 'x': Read-only file system\n", 0, true },
	{ "bwrap's dialect upper-cased", bwrap_denial, 1, false, "READ-ONLY FILE SYSTEM", 0, true },
	{ "bwrap does not speak Landlock's dialect", bwrap_denial, 1, false, "Permission denied",
	  0, false },
	{ "runnerCommand's second signature", runner_command_denial, 1, false,
	  "x: Permission denied", 0, true },
	{ "after NUL bytes", landlock_denial, 1, false, BYTES("\0\0bin: Permission denied"), true },
	{ "beyond the given length", landlock_denial, 1, false, "ok Permission denied", 3, false },
	{ "blank signatures are no evidence", blank_denial, 1, false, "anything", 0, false },
	{ "no signatures", NULL, 1, false, "Permission denied", 0, false },
};

static void test_denial_table(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof denial_cases / sizeof denial_cases[0]; i++) {
		const denial_case *c = &denial_cases[i];
		size_t len = c->stderr_len ? c->stderr_len : strlen(c->stderr_text);
		bool denied = confine_classify_denial(c->exit_code, c->signaled, c->stderr_text, len,
		                                      c->signatures);
		if (denied != c->denied)
			fail_msg("\"%s\": denied %d, expected %d", c->name, denied, c->denied);
	}
	assert_false(confine_classify_denial(1, false, NULL, 0, landlock_denial));
}

/* stdout counts too, but only for a failed run: "touch f 2>&1" is a denial,
 * a successful `cat` of a log quoting one is not. */
static void test_denial_on_stdout(void **state) {
	const char *touch = "touch: cannot touch 'newfile': Permission denied\n";
	(void)state;
	assert_true(confine_classify_denial_streams(1, false, touch, strlen(touch), "", 0,
	                                            landlock_denial));
	assert_false(confine_classify_denial_streams(0, false, touch, strlen(touch), "", 0,
	                                             landlock_denial));
	assert_false(confine_classify_denial_streams(1, true, touch, strlen(touch), NULL, 0,
	                                             landlock_denial));
	assert_true(confine_classify_denial_streams(0, false, NULL, 0, touch, strlen(touch),
	                                            landlock_denial));
	assert_false(confine_classify_denial_streams(1, false, NULL, 0, NULL, 0, landlock_denial));
}

/* ------------------------------------------------------------------------ */
/* Spawn rejection: a truth table over (step, errno, workdir usable?). */

typedef struct spawn_case {
	confine_spawn_step step;
	int error_number;
	bool workdir_usable;
	bool runner_failure;
} spawn_case;

static const spawn_case spawn_cases[] = {
	{ CONFINE_SPAWN_STEP_EXEC, ENOENT, true, true },
	{ CONFINE_SPAWN_STEP_EXEC, EACCES, true, true },
	{ CONFINE_SPAWN_STEP_EXEC, ENOENT, false, false },
	{ CONFINE_SPAWN_STEP_EXEC, EACCES, false, false },
	{ CONFINE_SPAWN_STEP_CHDIR, ENOENT, true, false },
	{ CONFINE_SPAWN_STEP_CHDIR, EACCES, true, false },
	{ CONFINE_SPAWN_STEP_CHDIR, ENOENT, false, false },
	{ CONFINE_SPAWN_STEP_SETUP, ENOENT, true, false },
	{ CONFINE_SPAWN_STEP_SETUP, EACCES, true, false },
	{ CONFINE_SPAWN_STEP_NONE, ENOENT, true, false },
	{ CONFINE_SPAWN_STEP_NONE, EACCES, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, 0, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, EPERM, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, ENOEXEC, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, ENOTDIR, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, ENOMEM, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, E2BIG, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, ETXTBSY, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, ELOOP, true, false },
	{ CONFINE_SPAWN_STEP_EXEC, EAGAIN, true, false },
};

static void test_spawn_rejection_truth_table(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof spawn_cases / sizeof spawn_cases[0]; i++) {
		const spawn_case *c = &spawn_cases[i];
		bool runner_failure = confine_classify_spawn_rejection(c->step, c->error_number,
		                                                       c->workdir_usable);
		if (runner_failure != c->runner_failure)
			fail_msg("step %d, errno %s, workdir usable %d: runner failure %d, expected %d",
			         (int)c->step, strerror(c->error_number), c->workdir_usable,
			         runner_failure, c->runner_failure);
	}
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runner_failure_table),
		cmocka_unit_test(test_runner_failure_degenerate_inputs),
		cmocka_unit_test(test_runner_failure_leaves_stderr_alone),
		cmocka_unit_test(test_denial_table),
		cmocka_unit_test(test_denial_on_stdout),
		cmocka_unit_test(test_spawn_rejection_truth_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
