/* SPDX-License-Identifier: MIT */
/* The launcher's status records (src/common/launcher-protocol.h): the
 * parser the library uses on `--status-fd`, as a table of lines and what
 * each must read as. The launcher writes these lines; e2e tests
 * (tests/e2e/launcher) check that it does. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "launcher-protocol.h"

#define INVALID (-1)

struct record_case {
	const char *line;
	int kind;       /* enum launcher_record_kind, or INVALID */
	long value;
	unsigned layers;
	const char *text; /* error: the expected line */
};

static const struct record_case cases[] = {
	/* what the launcher writes */
	{ "started 4242\n", LAUNCHER_RECORD_KIND_STARTED, 4242, 0, NULL },
	{ "exit 0\n", LAUNCHER_RECORD_KIND_EXIT, 0, 0, NULL },
	{ "exit 3\n", LAUNCHER_RECORD_KIND_EXIT, 3, 0, NULL },
	{ "exit 255\n", LAUNCHER_RECORD_KIND_EXIT, 255, 0, NULL },
	{ "signal 15\n", LAUNCHER_RECORD_KIND_SIGNAL, 15, 0, NULL },
	{ "exec-failed 2\n", LAUNCHER_RECORD_KIND_EXEC_FAILED, 2, 0, NULL },
	{ "layers landlock seccomp\n", LAUNCHER_RECORD_KIND_LAYERS, 0,
	  LAUNCHER_LAYER_LANDLOCK | LAUNCHER_LAYER_SECCOMP, NULL },
	{ "layers landlock-partial seccomp supervisor\n", LAUNCHER_RECORD_KIND_LAYERS, 0,
	  LAUNCHER_LAYER_LANDLOCK_PARTIAL | LAUNCHER_LAYER_SECCOMP | LAUNCHER_LAYER_SUPERVISOR,
	  NULL },
	{ "layers seccomp\n", LAUNCHER_RECORD_KIND_LAYERS, 0, LAUNCHER_LAYER_SECCOMP, NULL },
	{ "error landlock-run: cannot open rule path: /x: No such file or directory\n",
	  LAUNCHER_RECORD_KIND_ERROR, 0, 0,
	  "landlock-run: cannot open rule path: /x: No such file or directory" },
	/* the newline is optional */
	{ "exit 7", LAUNCHER_RECORD_KIND_EXIT, 7, 0, NULL },
	/* malformed: never guessed at */
	{ "", INVALID, 0, 0, NULL },
	{ "\n", INVALID, 0, 0, NULL },
	{ "exit\n", INVALID, 0, 0, NULL },
	{ "exit \n", INVALID, 0, 0, NULL },
	{ "exit 256\n", INVALID, 0, 0, NULL },
	{ "exit -1\n", INVALID, 0, 0, NULL },
	{ "exit 03\n", INVALID, 0, 0, NULL },
	{ "exit 3 \n", INVALID, 0, 0, NULL },
	{ "exit  3\n", INVALID, 0, 0, NULL },
	{ "exit 3\n\n", INVALID, 0, 0, NULL },
	{ "exited 3\n", INVALID, 0, 0, NULL },
	{ "started 0\n", INVALID, 0, 0, NULL },
	{ "started 99999999999\n", INVALID, 0, 0, NULL },
	{ "signal 0\n", INVALID, 0, 0, NULL },
	{ "signal 128\n", INVALID, 0, 0, NULL },
	{ "exec-failed 0\n", INVALID, 0, 0, NULL },
	{ "exec-failed 4096\n", INVALID, 0, 0, NULL },
	{ "layers\n", INVALID, 0, 0, NULL },
	{ "layers \n", INVALID, 0, 0, NULL },
	{ "layers landlock  seccomp\n", INVALID, 0, 0, NULL },
	{ "layers seccomp seccomp\n", INVALID, 0, 0, NULL },
	{ "layers bwrap\n", INVALID, 0, 0, NULL },
	/* an error line is the launcher's own line, nothing else */
	{ "error bwrap: this is just my script talking\n", INVALID, 0, 0, NULL },
	{ "error landlock-run: \n", INVALID, 0, 0, NULL },
	{ "error landlock-run: a\tb\n", INVALID, 0, 0, NULL },
	{ "error\n", INVALID, 0, 0, NULL },
	{ "STARTED 1\n", INVALID, 0, 0, NULL },
	/* denied <clause> <op> <object>: the supervisor's refusals */
	{ "denied metadata chmod /etc/passwd\n", LAUNCHER_RECORD_KIND_DENIED, 0, 0, "/etc/passwd" },
	{ "denied unix-sockets connect /run/a b.sock\n", LAUNCHER_RECORD_KIND_DENIED, 0, 0,
	  "/run/a b.sock" },
	{ "denied setid chmod /ws/x\\x0ay", LAUNCHER_RECORD_KIND_DENIED, 0, 0, "/ws/x\\x0ay" },
	{ "denied metadata chmod\n", INVALID, 0, 0, NULL },
	{ "denied metadata chmod \n", INVALID, 0, 0, NULL },
	{ "denied metadata chmod etc/passwd\n", INVALID, 0, 0, NULL },   /* not absolute */
	{ "denied metadata frob /etc/passwd\n", INVALID, 0, 0, NULL },   /* no such op */
	{ "denied network connect /x\n", INVALID, 0, 0, NULL },         /* no such clause */
	{ "denied metadata  chmod /x\n", INVALID, 0, 0, NULL },
	{ "denied metadata chmod /x\ty\n", INVALID, 0, 0, NULL },       /* a raw control byte */
	{ "denied metadata chmod /x\\y\n", INVALID, 0, 0, NULL },      /* a bare backslash */
	{ "denied metadata chmod /x\\x0\n", INVALID, 0, 0, NULL },     /* a short escape */
	{ "denied metadata chmod /x\\x0A\n", INVALID, 0, 0, NULL },    /* uppercase hex */
	{ "denied metadata chmod /x\\x00\n", INVALID, 0, 0, NULL },    /* an escaped NUL */
	{ "denied\n", INVALID, 0, 0, NULL },
	{ "dropped 1 2\n", INVALID, 0, 0, NULL },         /* three counts */
	{ "dropped 1 2 3 4\n", INVALID, 0, 0, NULL },
	{ "dropped 01 0 0\n", INVALID, 0, 0, NULL },
	{ "dropped -1 0 0\n", INVALID, 0, 0, NULL },
	{ "dropped 1 2 3 \n", INVALID, 0, 0, NULL },
	{ "dropped\n", INVALID, 0, 0, NULL },
	{ "cpu 1\n", INVALID, 0, 0, NULL },              /* seconds and microseconds */
	{ "cpu 1 2 3\n", INVALID, 0, 0, NULL },
	{ "cpu 1 1000000\n", INVALID, 0, 0, NULL },      /* past a second */
	{ "cpu -1 0\n", INVALID, 0, 0, NULL },
	{ "cpu 01 0\n", INVALID, 0, 0, NULL },
	{ "cpu 1 2 \n", INVALID, 0, 0, NULL },
	{ "cpu\n", INVALID, 0, 0, NULL },
};

static void test_record(void **state)
{
	const struct record_case *c = *state;
	struct launcher_record record;
	int r;

	memset(&record, 0x5a, sizeof(record));
	r = launcher_record_parse(c->line, strlen(c->line), &record);
	if (c->kind == INVALID) {
		assert_int_equal(r, -EINVAL);
		/* Untouched on failure. */
		assert_int_equal(record.value, (long)0x5a5a5a5a5a5a5a5aLL);
		return;
	}
	assert_int_equal(r, 0);
	assert_int_equal(record.kind, c->kind);
	assert_int_equal(record.value, c->value);
	assert_int_equal(record.layers, c->layers);
	if (c->text != NULL) {
		assert_int_equal(record.text_length, strlen(c->text));
		assert_memory_equal(record.text, c->text, record.text_length);
	} else {
		assert_null(record.text);
	}
}

static void test_denied_names_its_clause_and_op(void **state)
{
	static const char line[] = "denied unix-sockets send /run/x.sock\n";
	struct launcher_record record;

	(void)state;
	assert_int_equal(launcher_record_parse(line, strlen(line), &record), 0);
	assert_int_equal(record.kind, LAUNCHER_RECORD_KIND_DENIED);
	assert_int_equal(record.clause_length, strlen("unix-sockets"));
	assert_memory_equal(record.clause, "unix-sockets", record.clause_length);
	assert_int_equal(record.op_length, strlen("send"));
	assert_memory_equal(record.op, "send", record.op_length);
}

/* `dropped <denied> <refused> <decision>`: the records the launcher did
 * not write (doc/SPEC.md 12; issue 29). */
static void test_dropped_counts_each_kind(void **state)
{
	static const char line[] = "dropped 8 0 4\n";
	struct launcher_record record;

	(void)state;
	assert_int_equal(launcher_record_parse(line, strlen(line), &record), 0);
	assert_int_equal(record.kind, LAUNCHER_RECORD_KIND_DROPPED);
	assert_int_equal(record.dropped[0], 8);
	assert_int_equal(record.dropped[1], 0);
	assert_int_equal(record.dropped[2], 4);
}

/* `cpu <seconds> <microseconds>`: what the launcher reaped used
 * (doc/SPEC.md 12; issue 30). */
static void test_cpu_record(void **state)
{
	static const char line[] = "cpu 1 460012\n";
	struct launcher_record record;

	(void)state;
	assert_int_equal(launcher_record_parse(line, strlen(line), &record), 0);
	assert_int_equal(record.kind, LAUNCHER_RECORD_KIND_CPU);
	assert_int_equal(record.cpu_seconds, 1);
	assert_int_equal(record.cpu_microseconds, 460012);
	assert_int_equal(launcher_record_parse("cpu 0 0", 7, &record), 0);
	assert_int_equal(record.cpu_seconds, 0);
}

/* Every byte a path may hold survives the trip; the record stays one
 * printable ASCII line. */
static void test_object_encoding_round_trips(void **state)
{
	char path[258], encoded[LAUNCHER_RECORD_MAX], decoded[LAUNCHER_RECORD_MAX];
	size_t n;
	int i;

	(void)state;
	path[0] = '/';
	for (i = 1; i < 256; i++)
		path[i] = (char)i;
	path[256] = '\0';
	n = launcher_object_encode(path, encoded, sizeof(encoded));
	assert_true(n > 0);
	assert_int_equal(strlen(encoded), n);
	for (size_t k = 0; k < n; k++)
		assert_true(encoded[k] >= 0x20 && encoded[k] <= 0x7e);
	assert_int_equal(launcher_object_decode(encoded, n, decoded, sizeof(decoded)), 256);
	assert_memory_equal(decoded, path, 257);
	/* "\\" itself is escaped, so a literal "\\x41" cannot pass for "A" */
	assert_int_equal(launcher_object_encode("/a\\x41", encoded, sizeof(encoded)),
			 strlen("/a\\x5cx41"));
	assert_string_equal(encoded, "/a\\x5cx41");
	/* no room, or not absolute: nothing */
	assert_int_equal(launcher_object_encode("/abc", encoded, 4), 0);
	assert_int_equal(launcher_object_encode("abc", encoded, sizeof(encoded)), 0);
	assert_int_equal(launcher_object_decode("/abc", 4, decoded, 4), -EINVAL);
	assert_int_equal(launcher_object_decode("/abc", 4, decoded, 5), 4);
}

static void test_line_is_not_read_past_its_length(void **state)
{
	struct launcher_record record;

	(void)state;
	/* "exit 12" cut at 6 bytes is "exit 1". */
	assert_int_equal(launcher_record_parse("exit 12", 6, &record), 0);
	assert_int_equal(record.value, 1);
}

static void test_record_too_long_for_one_pipe_write_is_invalid(void **state)
{
	static char line[LAUNCHER_RECORD_MAX + 8];
	struct launcher_record record;
	size_t prefix = strlen("error " LAUNCHER_PREFIX);

	(void)state;
	memcpy(line, "error " LAUNCHER_PREFIX, prefix);
	memset(line + prefix, 'x', sizeof(line) - prefix);
	assert_int_equal(launcher_record_parse(line, sizeof(line), &record), -EINVAL);
	assert_int_equal(launcher_record_parse(line, LAUNCHER_RECORD_MAX - 1, &record), 0);
}

static void test_null_arguments_are_invalid(void **state)
{
	struct launcher_record record;

	(void)state;
	assert_int_equal(launcher_record_parse(NULL, 0, &record), -EINVAL);
	assert_int_equal(launcher_record_parse("exit 1", 6, NULL), -EINVAL);
}

static void test_every_layer_has_a_distinct_word(void **state)
{
	unsigned i, j;

	(void)state;
	for (i = 0; i < LAUNCHER_LAYER_COUNT; i++) {
		assert_non_null(launcher_layer_word(i));
		for (j = 0; j < i; j++)
			assert_string_not_equal(launcher_layer_word(i), launcher_layer_word(j));
	}
	assert_null(launcher_layer_word(LAUNCHER_LAYER_COUNT));
}

static void test_texts_are_the_contract(void **state)
{
	(void)state;
	/* SPEC 7's exact texts. */
	assert_string_equal(LAUNCHER_PREFIX, "landlock-run: ");
	assert_int_equal(LAUNCHER_EXIT_FAILURE, 125);
	assert_string_equal(LAUNCHER_PARTIAL_NOTICE,
			    "landlock-run: partial enforcement (older Landlock ABI)");
	assert_string_equal(LAUNCHER_PROBE_FULL, "landlock: fully enforced");
	assert_string_equal(LAUNCHER_PROBE_PARTIAL, "landlock: partially enforced (older ABI)");
}

int main(void)
{
	struct CMUnitTest tests[sizeof(cases) / sizeof(cases[0]) + 16];
	size_t i, n = 0;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct CMUnitTest one = { cases[i].line, test_record, NULL, NULL,
						(void *)&cases[i] };
		tests[n++] = one;
	}
	{
		const struct CMUnitTest more[] = {
			cmocka_unit_test(test_line_is_not_read_past_its_length),
			cmocka_unit_test(test_record_too_long_for_one_pipe_write_is_invalid),
			cmocka_unit_test(test_null_arguments_are_invalid),
			cmocka_unit_test(test_every_layer_has_a_distinct_word),
			cmocka_unit_test(test_texts_are_the_contract),
			cmocka_unit_test(test_denied_names_its_clause_and_op),
			cmocka_unit_test(test_object_encoding_round_trips),
			cmocka_unit_test(test_dropped_counts_each_kind),
			cmocka_unit_test(test_cpu_record),
		};
		for (i = 0; i < sizeof(more) / sizeof(more[0]); i++)
			tests[n++] = more[i];
	}
	/* n, not the array's size: its tail is room, not tests. */
	return _cmocka_run_group_tests("launcher protocol", tests, n, NULL, NULL);
}
