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
#include "denials.h"

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
/* Denials with their object (doc/SPEC.md 8): the scan of a run's output
 * against the run's clauses, over a filesystem the table describes. */

/* The host as the scan sees it: what exists, what this user may write. */
static const char *const fake_existing[] = {
	"/secret", "/secret/sub", "/secret/sub/key", "/ws", "/ws/f", "/ws/pf", "/ws/.git/config",
	"/etc/passwd", "/root", NULL,
};

static bool listed_path(const char *const *list, const char *path) {
	for (; *list; list++)
		if (strcmp(*list, path) == 0)
			return true;
	return false;
}

static void fake_canonical(void *data, const char *path, char *out, size_t size) {
	(void)data;
	/* /ws/link is a symlink to /etc */
	if (strncmp(path, "/ws/link/", 9) == 0)
		snprintf(out, size, "/etc/%s", path + 9);
	else
		snprintf(out, size, "%s", path);
}

static bool fake_exists(void *data, const char *path) {
	(void)data;
	return listed_path(fake_existing, path);
}

/* Everything is this user's but what lies under /nope. */
static bool fake_permitted(void *data, const char *path, const char *op) {
	(void)data;
	(void)op;
	return strncmp(path, "/nope", 5) != 0;
}

static const cf_denial_fs fake_fs = { fake_canonical, fake_exists, fake_permitted, NULL };

#define HELD(name, subject, layer) { S(name), S(subject), CONFINE_CLAUSE_ENFORCED, layer, NULL, NULL }

static const confine_clause run_clauses[] = {
	HELD("mode", "workspace-write", CONFINE_LAYER_BWRAP),
	HELD("protectedPaths", "/ws/conf", CONFINE_LAYER_BWRAP),
	HELD("defaultProtections", "/ws/.git/config", CONFINE_LAYER_BWRAP),
	HELD("denyRead", "/secret", CONFINE_LAYER_BWRAP),
	/* absent at the start: held by nothing, covers nothing */
	{ S("denyRead"), S("/gone"), CONFINE_CLAUSE_ENFORCED, 0, S("it does not exist"), NULL },
	{ S("denyRead"), S("/ws/unheld"), CONFINE_CLAUSE_UNENFORCED, 0, NULL, S("bubblewrap") },
	HELD("network", "off", CONFINE_LAYER_BWRAP),
	{ S("metadata"), NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SUPERVISOR, NULL, NULL },
	{ S("setid"), NULL, CONFINE_CLAUSE_ENFORCED, CONFINE_LAYER_SUPERVISOR, NULL, NULL },
};
static const confine_clause network_on[] = {
	HELD("mode", "workspace-write", CONFINE_LAYER_BWRAP),
	HELD("network", "on", 0),
};

static char *run_writable[] = { S("/ws"), S("/tmp"), S("/dev/shm"), S("/dev/null"), NULL };
static char *layered_dialect[] = { S("read-only file system"), S("permission denied"),
	                           S("operation not permitted"), NULL };
static char *landlock_dialect[] = { S("permission denied"), S("operation not permitted"), NULL };

typedef struct object_case {
	const char *name;
	confine_runner runner;
	const char *text;       /* stderr */
	bool file, network;     /* the markers */
	const char *denials;    /* "op object clause; ..." */
	const confine_clause *clauses;
	size_t n_clauses;
} object_case;

#define BW CONFINE_RUNNER_BWRAP
#define LL CONFINE_RUNNER_LANDLOCK
#define RUN run_clauses, sizeof run_clauses / sizeof run_clauses[0]
#define NET_ON network_on, sizeof network_on / sizeof network_on[0]

static const object_case object_cases[] = {
	/* a write outside the writable areas, in each tool's words */
	{ "bash redirect, EROFS", BW, "bash: line 1: /root/outside.txt: Read-only file system\n", true,
	  false, "write /root/outside.txt mode", RUN },
	{ "bash redirect, EACCES", LL, "bash: line 1: /root/outside.txt: Permission denied\n", true,
	  false, "write /root/outside.txt mode", RUN },
	{ "touch", BW, "touch: cannot touch '/root/o2': Read-only file system\n", true, false,
	  "write /root/o2 mode", RUN },
	{ "mkdir, UTF-8 quotes", LL,
	  "mkdir: cannot create directory \xe2\x80\x98/root/o4\xe2\x80\x99: Permission denied\n", true,
	  false, "write /root/o4 mode", RUN },
	{ "dash", LL, "sh: 1: cannot create /root/o3: Permission denied\n", true, false,
	  "write /root/o3 mode", RUN },
	{ "python, EACCES", LL, "PermissionError: [Errno 13] Permission denied: '/root/o5'\n", true,
	  false, "write /root/o5 mode", RUN },
	{ "python, EROFS", BW, "OSError: [Errno 30] Read-only file system: '/root/o5'\n", true, false,
	  "write /root/o5 mode", RUN },
	{ "node, EACCES", LL, "Error: EACCES: permission denied, open '/root/o6'\n", true, false,
	  "write /root/o6 mode", RUN },
	{ "node, EROFS, mkdir", BW, "Error: EROFS: read-only file system, mkdir '/root/d'\n", true,
	  false, "write /root/d mode", RUN },
	{ "node, below denyRead", LL,
	  "Error: EACCES: permission denied, scandir '/secret/sub'\n", true, false,
	  "read /secret/sub denyRead", RUN },
	{ "sed -i's temporary file", BW,
	  "sed: couldn't open temporary file /root/sedX1: Read-only file system\n", true, false,
	  "write /root/sedX1 mode", RUN },
	{ "mv names the target", BW, "mv: cannot move 'a' to '/root/b': Read-only file system\n",
	  true, false, "write /root/b mode", RUN },
	{ "a relative path, from the working directory", BW,
	  "bash: line 1: ../root/x: Read-only file system\n", true, false, "write /root/x mode", RUN },
	{ "a link out of the workspace", BW, "touch: cannot touch 'link/x': Read-only file system\n",
	  true, false, "write /etc/x mode", RUN },
	{ "read-only mode: the workspace itself", BW,
	  "bash: line 1: out.txt: Read-only file system\n", true, false, "write /ws/out.txt mode",
	  RUN },
	/* ...but the user's own permissions would have refused it: no object */
	{ "outside, not this user's to write", LL, "bash: line 1: /nope/x: Permission denied\n", true,
	  false, "", RUN },
	{ "a read outside denyRead is not the sandbox's", LL,
	  "cat: /root/secret: Permission denied\n", true, false, "", RUN },
	/* protected paths */
	{ "git config on a protected .git/config (EBUSY)", BW,
	  "error: could not lock config file .git/config: Device or resource busy\n", true, false,
	  "write /ws/.git/config defaultProtections", RUN },
	{ "a protected directory", BW, "bash: line 1: /ws/conf/a: Read-only file system\n", true,
	  false, "write /ws/conf/a protectedPaths", RUN },
	{ "Landlock speaks no EBUSY", LL,
	  "error: could not lock config file .git/config: Device or resource busy\n", false, false,
	  "", RUN },
	{ "EBUSY where nothing is protected", BW,
	  "rm: cannot remove '/ws/mnt': Device or resource busy\n", false, false, "", RUN },
	/* denyRead */
	{ "bwrap's mask: ENOENT below a denied directory", BW,
	  "cat: /secret/sub/key: No such file or directory\n", true, false,
	  "read /secret/sub/key denyRead", RUN },
	{ "bwrap's mask, a relative path", BW,
	  "cat: ../secret/sub/key: No such file or directory\n", true, false,
	  "read /secret/sub/key denyRead", RUN },
	{ "bwrap's mask: a name not on the host either", BW,
	  "cat: /secret/sub/nokey: No such file or directory\n", false, false, "", RUN },
	{ "a missing file is no denial", BW, "cat: missing-file: No such file or directory\n", false,
	  false, "", RUN },
	{ "a missing file is no denial (Landlock)", LL,
	  "cat: missing-file: No such file or directory\n", false, false, "", RUN },
	{ "Landlock: EACCES below denyRead", LL, "cat: /secret/sub/key: Permission denied\n", true,
	  false, "read /secret/sub/key denyRead", RUN },
	{ "denyRead: a name made there is a write", LL,
	  "bash: line 1: /secret/new: Permission denied\n", true, false, "write /secret/new denyRead",
	  RUN },
	{ "ls of the denied directory", LL,
	  "ls: cannot open directory '/secret': Permission denied\n", true, false,
	  "read /secret denyRead", RUN },
	{ "a denyRead that did not hold covers nothing", LL, "cat: /ws/unheld/k: Permission denied\n",
	  false, false, "", RUN },
	{ "a denyRead absent at the start covers nothing", BW,
	  "cat: /gone/k: No such file or directory\n", false, false, "", RUN },
	/* metadata and set-ID */
	{ "chmod outside the grants", LL,
	  "chmod: changing permissions of '/etc/passwd': Operation not permitted\n", true, false,
	  "chmod /etc/passwd metadata", RUN },
	{ "chmod outside, bwrap's read-only bind", BW,
	  "chmod: changing permissions of '/etc/passwd': Read-only file system\n", true, false,
	  "chmod /etc/passwd metadata", RUN },
	{ "set-ID bit on the command's own file", LL,
	  "chmod: changing permissions of 'f': Operation not permitted\n", true, false,
	  "chmod /ws/f setid", RUN },
	/* ordinary errors */
	{ "ssh's authentication failure", LL, "git@github.com: Permission denied (publickey).\n",
	  false, false, "", RUN },
	{ "a file the command made and locked itself", LL,
	  "PermissionError: [Errno 13] Permission denied: 'pf'\n", false, false, "", RUN },
	{ "ping's socket", LL, "ping: socket: Operation not permitted\n", false, false, "", RUN },
	{ "a word that is not a file", LL,
	  "docker: dial unix /var/run/docker.sock: connect: permission denied.\n", true, false, "",
	  RUN },
	/* the network, off */
	{ "curl, loopback", BW,
	  "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server\n",
	  false, true, "connect 127.0.0.1:8080 network", RUN },
	{ "bash's /dev/tcp", LL,
	  "bash: socket: Connection refused\nbash: line 1: /dev/tcp/127.0.0.1/8080: Connection refused\n",
	  false, true, "connect 127.0.0.1:8080 network", RUN },
	{ "ssh", BW, "ssh: connect to host example.com port 22: Network is unreachable\n", false, true,
	  "connect example.com:22 network", RUN },
	{ "ssh, IPv6", BW, "ssh: connect to host ::1 port 22: Connection refused\n", false, true,
	  "connect [::1]:22 network", RUN },
	{ "nc", LL, "nc: connect to 10.0.0.1 port 81 (tcp) failed: Connection refused\n", false, true,
	  "connect 10.0.0.1:81 network", RUN },
	{ "wget", LL, "Connecting to 127.0.0.1:8080... failed: Connection refused.\n", false, true,
	  "connect 127.0.0.1:8080 network", RUN },
	{ "curl, an unresolved host", LL, "curl: (6) Could not resolve host: example.com\n", false,
	  true, "resolve example.com network", RUN },
	{ "python names no address", LL, "ConnectionRefusedError: [Errno 111] Connection refused\n",
	  false, true, "", RUN },
	{ "a pathname socket is not the network", LL,
	  "socat: connect(5, AF=1 \"/run/x.sock\", 13): Connection refused\n", false, false, "",
	  RUN },
	{ "network on: a refused connect is the command's", LL,
	  "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server\n",
	  false, false, "", NET_ON },
	/* each object once */
	{ "the same refusal twice", BW,
	  "touch: cannot touch '/root/o2': Read-only file system\n"
	  "touch: cannot touch '/root/o2': Read-only file system\n", true, false, "write /root/o2 mode",
	  RUN },
};

static void describe(const cf_denials *d, char *out, size_t size) {
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < d->n && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s %s %s", i ? "; " : "",
		                         d->items[i].op,
		                         d->items[i].path ? d->items[i].path : d->items[i].address,
		                         d->items[i].clause);
}

static cf_denial_scope scope_of(confine_runner runner, const confine_clause *clauses, size_t n) {
	cf_denial_scope s;
	memset(&s, 0, sizeof s);
	s.facts = runner == BW   ? CONFINE_RUNNER_FACT_SUPERVISES | CONFINE_RUNNER_FACT_PRIVATE_TMP |
	                               CONFINE_RUNNER_FACT_MOUNT_MASKS
	          : runner == CONFINE_RUNNER_SEATBELT ? CONFINE_RUNNER_FACT_EPERM_FILES
	                         : CONFINE_RUNNER_FACT_HOST_TMP;
	s.workdir = "/ws";
	s.signatures = runner == BW ? layered_dialect : landlock_dialect;
	s.clauses = clauses;
	s.n_clauses = n;
	s.writable = run_writable;
	s.fs = &fake_fs;
	return s;
}

static void test_denials_with_their_object(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof object_cases / sizeof object_cases[0]; i++) {
		const object_case *c = &object_cases[i];
		cf_denial_scope scope = scope_of(c->runner, c->clauses, c->n_clauses);
		cf_denials list = { NULL, 0, 0 };
		cf_denial_verdict v;
		char got[2048];
		/* read-only: the workspace is not writable */
		static char *read_only[] = { S("/tmp"), S("/dev/null"), NULL };
		if (strncmp(c->name, "read-only mode", 14) == 0)
			scope.writable = read_only;
		assert_int_equal(cf_denials_scan(&scope, 1, false, NULL, 0, c->text, strlen(c->text),
		                                 &list, &v), 0);
		describe(&list, got, sizeof got);
		if (strcmp(got, c->denials) != 0)
			fail_msg("\"%s\": denials \"%s\", expected \"%s\"", c->name, got, c->denials);
		if (v.file != c->file || v.network != c->network)
			fail_msg("\"%s\": markers file %d network %d, expected %d %d", c->name, v.file,
			         v.network, c->file, c->network);
		cf_denials_free(&list);
	}
}

/* stdout counts when the run failed, as for the marker; the list is bounded. */
static void test_denials_streams_and_bound(void **state) {
	cf_denial_scope scope = scope_of(BW, run_clauses, sizeof run_clauses / sizeof run_clauses[0]);
	const char *line = "touch: cannot touch '/root/o2': Read-only file system\n";
	cf_denials list = { NULL, 0, 0 };
	cf_denial_verdict v;
	char text[64 * 80];
	size_t used = 0;
	(void)state;
	assert_int_equal(cf_denials_scan(&scope, 0, false, line, strlen(line), NULL, 0, &list, &v), 0);
	assert_int_equal(list.n, 0);
	assert_false(v.file);
	assert_int_equal(cf_denials_scan(&scope, 1, false, line, strlen(line), NULL, 0, &list, &v), 0);
	assert_int_equal(list.n, 1);
	assert_true(v.file);
	cf_denials_free(&list);
	for (int i = 0; i < 40; i++)
		used += (size_t)snprintf(text + used, sizeof text - used,
		                         "touch: cannot touch '/root/%d': Read-only file system\n", i);
	assert_int_equal(cf_denials_scan(&scope, 1, false, NULL, 0, text, used, &list, &v), 0);
	assert_int_equal(list.n, CONFINE_DENIALS_MAX);
	assert_string_equal(list.items[0].path, "/root/0");
	/* the rest is counted, not lost (doc/SPEC.md 9) */
	assert_int_equal(list.dropped, 40 - CONFINE_DENIALS_MAX);
	cf_denials_free(&list);
	assert_int_equal(list.dropped, 0);
	/* one object each: a path or an address */
	assert_int_equal(cf_denials_add(&list, "write", NULL, NULL, "mode"), -EINVAL);
	assert_int_equal(cf_denials_add(&list, "write", "/x", "h:1", "mode"), -EINVAL);
	assert_int_equal(cf_denials_add(&list, "write", "/x", NULL, "mode"), 1);
	assert_int_equal(cf_denials_add(&list, "write", "/x", NULL, "denyRead"), 0);
	cf_denials_free(&list);
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
		cmocka_unit_test(test_denials_with_their_object),
		cmocka_unit_test(test_denials_streams_and_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
