/* SPDX-License-Identifier: MIT */
/* The model-facing rendering (SPEC 9): exact text for each combination of
 * output and markers, and signal names. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "confine.h"

struct render_case {
	const char *name;
	const char *out;
	const char *err;
	bool denied;
	confine_mode mode;
	bool timed_out;
	unsigned timeout_ms;
	bool signaled;
	int sig;
	int exit_code;
	const char *expected;
};

static const struct render_case cases[] = {
	{ "stdout only, newline", "hello\n", "", false, 0, false, 0, false, 0, 0, "hello\n" },
	{ "stdout only, no newline", "hello", "", false, 0, false, 0, false, 0, 0, "hello" },
	{ "nothing at all", "", "", false, 0, false, 0, false, 0, 0, "(no output)" },
	{ "stdout and stderr", "out\n", "err\n", false, 0, false, 0, false, 0, 0,
	  "out\n[stderr]\nerr\n" },
	{ "stdout without newline, then stderr", "out", "err", false, 0, false, 0, false, 0, 0,
	  "out\n[stderr]\nerr" },
	{ "stderr only", "", "err\n", false, 0, false, 0, false, 0, 0, "[stderr]\nerr\n" },
	{ "no output, exit 1", "", "", false, 0, false, 0, false, 0, 1,
	  "(no output)\n[exit code: 1]" },
	{ "stdout with newline, exit 2", "x\n", "", false, 0, false, 0, false, 0, 2,
	  "x\n[exit code: 2]" },
	{ "stdout without newline, exit 2", "x", "", false, 0, false, 0, false, 0, 2,
	  "x\n[exit code: 2]" },
	{ "exit 127 is ordinary", "", "bash: nope: command not found\n", false, 0, false, 0, false,
	  0, 127, "[stderr]\nbash: nope: command not found\n[exit code: 127]" },
	{ "denied under read-only", "", "touch: cannot touch 'f': Read-only file system\n", true,
	  CONFINE_MODE_READ_ONLY, false, 0, false, 0, 1,
	  "[stderr]\ntouch: cannot touch 'f': Read-only file system\n"
	  "[sandbox: file access denied under read-only mode]\n[exit code: 1]" },
	{ "denied under workspace-write, stderr without newline", "a", "b: Permission denied", true,
	  CONFINE_MODE_WORKSPACE_WRITE, false, 0, false, 0, 1,
	  "a\n[stderr]\nb: Permission denied\n"
	  "[sandbox: file access denied under workspace-write mode]\n[exit code: 1]" },
	{ "timed out, killed by SIGTERM", "", "", false, 0, true, 1000, true, SIGTERM, 0,
	  "(no output)\n[timed out after 1000ms]\n[killed by signal: SIGTERM]" },
	{ "timed out, SIGKILL after the grace", "tick\n", "", false, 0, true, 250, true, SIGKILL,
	  0, "tick\n[timed out after 250ms]\n[killed by signal: SIGKILL]" },
	{ "timed out, trapped TERM and exited", "", "", false, 0, true, 5000, false, 0, 143,
	  "(no output)\n[timed out after 5000ms]\n[exit code: 143]" },
	{ "killed by a signal, no timeout", "partial", "", false, 0, false, 0, true, SIGSEGV, 0,
	  "partial\n[killed by signal: SIGSEGV]" },
	{ "every marker", "o", "e", true, CONFINE_MODE_READ_ONLY, true, 120000, false, 0, 1,
	  "o\n[stderr]\ne\n[sandbox: file access denied under read-only mode]\n"
	  "[timed out after 120000ms]\n[exit code: 1]" },
	{ "exit 0 has no marker", "done\n", "warn\n", false, 0, false, 0, false, 0, 0,
	  "done\n[stderr]\nwarn\n" },
};

static void test_render_table(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct render_case *c = &cases[i];
		confine_outcome o;
		confine_bash_result r;
		char *text;
		memset(&o, 0, sizeof o);
		memset(&r, 0, sizeof r);
		o.stdout_data = (char *)c->out;
		o.stdout_len = strlen(c->out);
		o.stderr_data = (char *)c->err;
		o.stderr_len = strlen(c->err);
		o.denied = c->denied;
		o.confined = true;
		o.mode = c->mode;
		o.timed_out = c->timed_out;
		o.signaled = c->signaled;
		o.signal = c->sig;
		o.exit_code = c->signaled ? -1 : c->exit_code;
		r.outcome = &o;
		r.timeout_ms = c->timeout_ms;
		r.error.code = CONFINE_OK;
		text = confine_bash_render(&r);
		assert_non_null(text);
		if (strcmp(text, c->expected) != 0)
			fail_msg("case \"%s\": got [%s], expected [%s]", c->name, text, c->expected);
		free(text);
	}
}

/* A capped stream says so, in its own marker line, before the others. */
static void test_truncation_is_marked(void **state) {
	static const struct {
		bool out_cut, err_cut;
		const char *expected;
	} t[] = {
		{ true, false, "abc\n[stderr]\nxy\n[stdout truncated at 4 bytes]\n[exit code: 1]" },
		{ false, true, "abc\n[stderr]\nxy\n[stderr truncated at 3 bytes]\n[exit code: 1]" },
		{ true, true,
		  "abc\n[stderr]\nxy\n[stdout truncated at 4 bytes]\n[stderr truncated at 3 bytes]\n"
		  "[exit code: 1]" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		confine_outcome o;
		confine_bash_result r;
		char *text;
		memset(&o, 0, sizeof o);
		memset(&r, 0, sizeof r);
		o.stdout_data = (char *)"abc\n";
		o.stdout_len = 4;
		o.stdout_truncated = t[i].out_cut;
		o.stderr_data = (char *)"xy\n";
		o.stderr_len = 3;
		o.stderr_truncated = t[i].err_cut;
		o.exit_code = 1;
		r.outcome = &o;
		text = confine_bash_render(&r);
		assert_non_null(text);
		assert_string_equal(text, t[i].expected);
		free(text);
	}
}

static void test_uncaptured_streams_render_as_empty(void **state) {
	confine_outcome o;
	confine_bash_result r;
	char *text;
	(void)state;
	memset(&o, 0, sizeof o);
	memset(&r, 0, sizeof r);
	o.exit_code = 3;
	r.outcome = &o;
	text = confine_bash_render(&r);
	assert_string_equal(text, "(no output)\n[exit code: 3]");
	free(text);
}

/* A NUL byte in the output must not cut the rendering short: the markers
 * after it are what the model most needs. */
static void test_nul_bytes_do_not_hide_the_markers(void **state) {
	static const char out[] = { 'a', '\0', 'b', '\n' };
	static const char err[] = { 'x', ':', ' ', 'R', 'e', 'a', 'd', '-', 'o', 'n', 'l', 'y', '\0' };
	confine_outcome o;
	confine_bash_result r;
	char *text;
	(void)state;
	memset(&o, 0, sizeof o);
	memset(&r, 0, sizeof r);
	o.stdout_data = (char *)out;
	o.stdout_len = sizeof out;
	o.stderr_data = (char *)err;
	o.stderr_len = sizeof err;
	o.exit_code = 3;
	o.denied = true;
	o.mode = CONFINE_MODE_READ_ONLY;
	r.outcome = &o;
	text = confine_bash_render(&r);
	assert_string_equal(text, "a\xef\xbf\xbd" "b\n[stderr]\nx: Read-only\xef\xbf\xbd\n"
	                          "[sandbox: file access denied under read-only mode]\n[exit code: 3]");
	free(text);
}

/* Each denial names its object on a line of its own (doc/SPEC.md 9): file
 * denials after the file marker, then the network marker and its
 * addresses, all before the timeout and exit markers; a control byte of an
 * object shows as '?'. */
static void test_denials_render_after_their_marker(void **state) {
	confine_denial denials[] = {
		{ (char *)"write", (char *)"/root/outside.txt", NULL, (char *)"mode", NULL },
		{ (char *)"connect", NULL, (char *)"127.0.0.1:8080", (char *)"network", NULL },
		{ (char *)"read", (char *)"/secret/a\nb", NULL, (char *)"denyRead", NULL },
		{ (char *)"connect", NULL, (char *)"ask.test:443", (char *)"network",
		  (char *)"not in\nthis task" },
	};
	confine_outcome o;
	confine_bash_result r;
	char *text;
	(void)state;
	memset(&o, 0, sizeof o);
	memset(&r, 0, sizeof r);
	o.exit_code = 1;
	o.mode = CONFINE_MODE_WORKSPACE_WRITE;
	o.denied = true;
	o.network_denied = true;
	o.denials = denials;
	o.n_denials = 4;
	o.timed_out = true;
	r.timeout_ms = 5;
	r.outcome = &o;
	text = confine_bash_render(&r);
	assert_string_equal(text, "(no output)\n"
	                          "[sandbox: file access denied under workspace-write mode]\n"
	                          "[denied: write /root/outside.txt (mode)]\n"
	                          "[denied: read /secret/a?b (denyRead)]\n"
	                          "[sandbox: network access denied under workspace-write mode]\n"
	                          "[denied: connect 127.0.0.1:8080 (network)]\n"
	                          "[denied: connect ask.test:443 (network): not in?this task]\n"
	                          "[timed out after 5ms]\n[exit code: 1]");
	free(text);
	/* The network marker alone (a refusal that names no address). */
	o.denied = false;
	o.n_denials = 0;
	o.timed_out = false;
	o.mode = CONFINE_MODE_READ_ONLY;
	text = confine_bash_render(&r);
	assert_string_equal(text, "(no output)\n"
	                          "[sandbox: network access denied under read-only mode]\n"
	                          "[exit code: 1]");
	free(text);
}

static void test_runner_failure_renders_the_error_message(void **state) {
	confine_outcome o;
	confine_bash_result r;
	char *text;
	(void)state;
	memset(&o, 0, sizeof o);
	memset(&r, 0, sizeof r);
	/* The runner's stderr would mislead the model: only the error shows. */
	o.stderr_data = (char *)"fake-runner: ruleset rejected\n";
	o.stderr_len = strlen(o.stderr_data);
	o.exit_code = 125;
	o.runner_failed = true;
	o.runner_failure_detail = (char *)"fake-runner: ruleset rejected";
	r.outcome = &o;
	assert_int_equal(confine_outcome_error(&o, &r.error), -EHOSTUNREACH);
	text = confine_bash_render(&r);
	assert_string_equal(text, r.error.message);
	assert_non_null(strstr(text, "sandbox mode \"read-only\" is requested"));
	assert_non_null(strstr(text, " Runner failure: fake-runner: ruleset rejected"));
	assert_null(strstr(text, "[exit code"));
	free(text);
}

static void test_render_null(void **state) {
	(void)state;
	assert_null(confine_bash_render(NULL));
}

static void test_signal_names(void **state) {
	char buf[16];
	static const struct {
		int sig;
		const char *name;
	} named[] = {
		{ SIGKILL, "SIGKILL" }, { SIGTERM, "SIGTERM" }, { SIGHUP, "SIGHUP" },
		{ SIGSEGV, "SIGSEGV" }, { SIGPIPE, "SIGPIPE" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
		assert_string_equal(confine_signal_name(named[i].sig, buf, sizeof buf), named[i].name);
	/* Static names do not use the buffer. */
	memset(buf, 'x', sizeof buf);
	assert_string_equal(confine_signal_name(SIGINT, buf, sizeof buf), "SIGINT");
	assert_int_equal(buf[0], 'x');
	/* A signal without a name is formatted into the buffer. */
	assert_ptr_equal(confine_signal_name(SIGRTMIN + 3, buf, sizeof buf), buf);
	{
		char expected[16];
		snprintf(expected, sizeof expected, "SIG%d", SIGRTMIN + 3);
		assert_string_equal(buf, expected);
	}
	assert_string_equal(confine_signal_name(0, buf, sizeof buf), "SIG0");
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_render_table),
		cmocka_unit_test(test_truncation_is_marked),
		cmocka_unit_test(test_uncaptured_streams_render_as_empty),
		cmocka_unit_test(test_nul_bytes_do_not_hide_the_markers),
		cmocka_unit_test(test_runner_failure_renders_the_error_message),
		cmocka_unit_test(test_denials_render_after_their_marker),
		cmocka_unit_test(test_render_null),
		cmocka_unit_test(test_signal_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
