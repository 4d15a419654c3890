/* SPDX-License-Identifier: MIT */
/*
 * Limits (issue 30, doc/SPEC.md 15 "Limits"): the table's names and flags,
 * the one parser every door uses (a table of texts: what each becomes, or
 * that it is refused naming the limit), the setters, the default, the
 * formatting the markers use, validation, and the launcher's rlimit words
 * in the Landlock profile.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "confine.h"

static void names_and_flags_come_from_one_table(void **state) {
	static const char *const keys[] = { "pids", "memory", "cpuSeconds", "fileSize", "temp",
		                             "openFiles" };
	static const char *const flags[] = { "--max-pids", "--max-memory", "--max-cpu",
		                              "--max-file-size", "--max-temp", "--max-open-files" };
	(void)state;
	for (unsigned i = 0; i < CONFINE_LIMIT_COUNT; i++) {
		confine_limit by_key, by_flag;
		assert_string_equal(confine_limit_name((confine_limit)i), keys[i]);
		assert_string_equal(confine_limit_flag((confine_limit)i), flags[i]);
		assert_int_equal(confine_limit_from_name(keys[i], &by_key, NULL), 0);
		assert_int_equal(confine_limit_from_name(flags[i], &by_flag, NULL), 0);
		assert_int_equal(by_key, i);
		assert_int_equal(by_flag, i);
	}
	assert_null(confine_limit_name(CONFINE_LIMIT_COUNT));
}

static const struct {
	confine_limit limit;
	const char *text;
	uint64_t value;    /* when accepted */
	const char *words; /* when refused: in the message */
} parse_cases[] = {
	{ CONFINE_LIMIT_PIDS, "256", 256, NULL },
	{ CONFINE_LIMIT_PIDS, "unlimited", 0, NULL },
	{ CONFINE_LIMIT_PIDS, "0", 0, "limits.pids \"0\" is zero" },
	{ CONFINE_LIMIT_PIDS, "-1", 0, "limits.pids \"-1\" is negative" },
	{ CONFINE_LIMIT_PIDS, "+5", 0, "is not a number" },
	{ CONFINE_LIMIT_PIDS, "", 0, "is not a number" },
	{ CONFINE_LIMIT_PIDS, " 5", 0, "is not a number" },
	{ CONFINE_LIMIT_PIDS, "5 ", 0, "after the number" },
	{ CONFINE_LIMIT_PIDS, "64K", 0, "after the number" }, /* a count takes no suffix */
	{ CONFINE_LIMIT_PIDS, "4194305", 0, "past the largest limit" },
	{ CONFINE_LIMIT_PIDS, "18446744073709551617", 0, "past the largest limit" }, /* no wrap */
	{ CONFINE_LIMIT_MEMORY, "2G", 2ull << 30, NULL },
	{ CONFINE_LIMIT_MEMORY, "256m", 256ull << 20, NULL },
	{ CONFINE_LIMIT_MEMORY, "1T", 1ull << 40, NULL },
	{ CONFINE_LIMIT_MEMORY, "1048576", 1ull << 20, NULL },
	{ CONFINE_LIMIT_MEMORY, "1.5G", 0, "after the number" },
	{ CONFINE_LIMIT_MEMORY, "2GB", 0, "after the number" },
	{ CONFINE_LIMIT_MEMORY, "2X", 0, "after the number" },
	{ CONFINE_LIMIT_MEMORY, "100K", 0, "below the smallest limit" },
	{ CONFINE_LIMIT_MEMORY, "99999999T", 0, "past the largest limit" },
	{ CONFINE_LIMIT_MEMORY, "17179869184T", 0, "past the largest limit" }, /* 2^64 overflow */
	{ CONFINE_LIMIT_CPU_SECONDS, "600", 600, NULL },
	{ CONFINE_LIMIT_CPU_SECONDS, "10m", 0, "after the number" }, /* seconds only */
	{ CONFINE_LIMIT_FILE_SIZE, "1", 1, NULL },
	{ CONFINE_LIMIT_FILE_SIZE, "1e9", 0, "after the number" },
	{ CONFINE_LIMIT_OPEN_FILES, "1024", 1024, NULL },
	{ CONFINE_LIMIT_OPEN_FILES, "many", 0, "is not a number" },
	{ CONFINE_LIMIT_TEMP, "10M", 10ull << 20, NULL },
};

static void every_door_parses_alike(void **state) {
	(void)state;
	for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++) {
		confine_error err;
		uint64_t value = 12345;
		int r = confine_limit_parse(parse_cases[i].limit, parse_cases[i].text, &value, &err);
		if (!parse_cases[i].words) {
			if (r != 0)
				fail_msg("%s: refused: %s", parse_cases[i].text, err.message);
			assert_int_equal(value, parse_cases[i].value);
			continue;
		}
		if (r != -EINVAL)
			fail_msg("%s: accepted as %llu", parse_cases[i].text, (unsigned long long)value);
		assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
		assert_int_equal(value, 12345); /* ret written only on success */
		if (!strstr(err.message, parse_cases[i].words))
			fail_msg("%s: \"%s\" lacks \"%s\"", parse_cases[i].text, err.message,
			         parse_cases[i].words);
	}
}

static void setters_refuse_zero_and_leave_the_policy_unchanged(void **state) {
	confine_policy *p = NULL;
	confine_error err;
	char cwd[4096];
	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, cwd, &p, &err), 0);
	/* the default: pids only, not the caller's */
	assert_int_equal(p->limits[CONFINE_LIMIT_PIDS], CONFINE_DEFAULT_MAX_PIDS);
	assert_int_equal(p->limits_given, 0);
	for (unsigned i = 1; i < CONFINE_LIMIT_COUNT; i++)
		assert_int_equal(p->limits[i], 0);
	assert_int_equal(confine_policy_set_limit(p, CONFINE_LIMIT_MEMORY, 0, &err), -EINVAL);
	assert_int_equal(err.code, CONFINE_E_INVALID_POLICY);
	assert_int_equal(p->limits[CONFINE_LIMIT_MEMORY], 0);
	assert_int_equal(confine_policy_set_limit(p, CONFINE_LIMIT_PIDS, 5000000, &err), -EINVAL);
	assert_int_equal(p->limits[CONFINE_LIMIT_PIDS], CONFINE_DEFAULT_MAX_PIDS);
	assert_int_equal(confine_policy_set_limit_text(p, "memory", "2G", &err), 0);
	assert_int_equal(p->limits[CONFINE_LIMIT_MEMORY], 2ull << 30);
	assert_true(p->limits_given & (1u << CONFINE_LIMIT_MEMORY));
	assert_int_equal(confine_policy_set_limit_text(p, "--max-pids", "unlimited", &err), 0);
	assert_int_equal(p->limits[CONFINE_LIMIT_PIDS], 0);
	assert_int_equal(confine_policy_set_limit_text(p, "forks", "5", &err), -EINVAL);
	assert_non_null(strstr(err.message, "limits.forks is not a limit"));
	assert_int_equal(confine_policy_validate(p, &err), 0);
	/* a bad value written directly is caught by validation */
	p->limits[CONFINE_LIMIT_OPEN_FILES] = 1ull << 40;
	assert_int_equal(confine_policy_validate(p, &err), -EINVAL);
	assert_non_null(strstr(err.message, "limits.openFiles"));
	confine_policy_free(p);
}

static void danger_full_access_refuses_a_limit_it_was_given(void **state) {
	confine_policy *p = NULL;
	confine_error err;
	char cwd[4096];
	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(confine_policy_new(CONFINE_MODE_DANGER_FULL_ACCESS, cwd, &p, &err), 0);
	assert_int_equal(confine_policy_validate(p, &err), 0); /* the default is fine */
	assert_int_equal(confine_policy_set_limit(p, CONFINE_LIMIT_PIDS, 64, &err), 0);
	assert_int_equal(confine_policy_validate(p, &err), -EINVAL);
	assert_non_null(strstr(err.message, "limits.pids cannot hold under danger-full-access"));
	confine_policy_free(p);
}

static void values_read_as_a_person_reads_them(void **state) {
	char buf[64];
	(void)state;
	confine_limit_format(CONFINE_LIMIT_MEMORY, 2ull << 30, buf, sizeof buf);
	assert_string_equal(buf, "2 GiB");
	confine_limit_format(CONFINE_LIMIT_MEMORY, 256ull << 20, buf, sizeof buf);
	assert_string_equal(buf, "256 MiB");
	confine_limit_format(CONFINE_LIMIT_FILE_SIZE, 1000, buf, sizeof buf);
	assert_string_equal(buf, "1000 bytes");
	confine_limit_format(CONFINE_LIMIT_CPU_SECONDS, 2, buf, sizeof buf);
	assert_string_equal(buf, "2 s");
	confine_limit_format(CONFINE_LIMIT_PIDS, 256, buf, sizeof buf);
	assert_string_equal(buf, "256");
}

static void markers_name_the_limit(void **state) {
	confine_outcome o;
	char buf[128];
	(void)state;
	memset(&o, 0, sizeof o);
	assert_false(confine_outcome_limit_marker(&o, buf, sizeof buf));
	assert_string_equal(buf, "");
	o.limit_stopped = true;
	o.limit = CONFINE_LIMIT_PIDS;
	o.limit_value = 256;
	assert_true(confine_outcome_limit_marker(&o, buf, sizeof buf));
	assert_string_equal(buf, "[sandbox: limit reached: pids (256)]");
	o.limit = CONFINE_LIMIT_MEMORY;
	o.limit_value = 2ull << 30;
	o.limit_killed = true;
	assert_true(confine_outcome_limit_marker(&o, buf, sizeof buf));
	assert_string_equal(buf, "[sandbox: killed: memory limit (2 GiB)]");
	o.limit = CONFINE_LIMIT_CPU_SECONDS;
	o.limit_value = 2;
	assert_true(confine_outcome_limit_marker(&o, buf, sizeof buf));
	assert_string_equal(buf, "[sandbox: killed: cpu limit (2 s)]");
}

/* The argv for others carries the launcher's rlimit words; the default
 * process limit is not one (RLIMIT_NPROC counts the user's others). */
static void the_landlock_profile_carries_the_rlimits(void **state) {
	confine_policy *p = NULL;
	confine_error err;
	char cwd[4096], **tokens = NULL, joined[8192] = "";
	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, cwd, &p, &err), 0);
	assert_int_equal(confine_profile_landlock(p, &tokens), 0);
	for (size_t i = 0; tokens[i]; i++)
		assert_null(strstr(tokens[i], "nproc"));
	confine_strv_free(tokens);
	assert_int_equal(confine_policy_set_limit_text(p, "pids", "64", &err), 0);
	assert_int_equal(confine_policy_set_limit_text(p, "memory", "256M", &err), 0);
	assert_int_equal(confine_policy_set_limit_text(p, "cpuSeconds", "2", &err), 0);
	assert_int_equal(confine_policy_set_limit_text(p, "fileSize", "1M", &err), 0);
	assert_int_equal(confine_policy_set_limit_text(p, "openFiles", "100", &err), 0);
	assert_int_equal(confine_policy_set_limit_text(p, "temp", "10M", &err), 0);
	assert_int_equal(confine_profile_landlock(p, &tokens), 0);
	for (size_t i = 0; tokens[i]; i++) {
		strncat(joined, tokens[i], sizeof joined - strlen(joined) - 2);
		strcat(joined, " ");
	}
	assert_non_null(strstr(joined, "--rlimit nproc=64 --rlimit as=268435456 --rlimit cpu=2 "
	                                "--rlimit fsize=1048576 --rlimit nofile=100 "));
	assert_null(strstr(joined, "temp")); /* no rlimit holds it */
	confine_strv_free(tokens);
	confine_policy_free(p);
}

int main(void) {
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_flags_come_from_one_table),
		cmocka_unit_test(every_door_parses_alike),
		cmocka_unit_test(setters_refuse_zero_and_leave_the_policy_unchanged),
		cmocka_unit_test(danger_full_access_refuses_a_limit_it_was_given),
		cmocka_unit_test(values_read_as_a_person_reads_them),
		cmocka_unit_test(markers_name_the_limit),
		cmocka_unit_test(the_landlock_profile_carries_the_rlimits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
