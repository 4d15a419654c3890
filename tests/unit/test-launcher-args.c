/* SPDX-License-Identifier: MIT */
/* One contract with the launcher (src/common/launcher-args.h): every flag
 * word the library writes is one the launcher's parser accepts, every
 * flag of the table is written by the library (the test hooks and --probe
 * aside), and a bound is refused, never truncated, on both sides. The
 * parser is the launcher's own (src/launcher/args.c), linked here. */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "args.h"
#include "confine.h"
#include "launcher-args.h"
#include "policy-internal.h"
#include "rungs/rung.h"
#include "rungs/bwrap/bwrap.h"

static char workspace[PATH_MAX];

static int make_workspace(void **state)
{
	(void)state;
	snprintf(workspace, sizeof workspace, "/tmp/confine-launcher-args-XXXXXX");
	return mkdtemp(workspace) ? 0 : -1;
}

static int remove_workspace(void **state)
{
	(void)state;
	return rmdir(workspace);
}

static void test_table_words_are_distinct_and_found(void **state)
{
	(void)state;
	for (int i = 0; i < LAUNCHER_FLAG_COUNT; i++) {
		const struct launcher_flag_def *def = launcher_flag_def((enum launcher_flag)i);

		assert_non_null(def);
		assert_non_null(def->word);
		assert_int_equal(launcher_flag_lookup(def->word), i);
	}
	assert_null(launcher_flag_def(LAUNCHER_FLAG_COUNT));
	assert_int_equal(launcher_flag_lookup("--ro-bind"), LAUNCHER_FLAG_UNKNOWN);
	assert_int_equal(launcher_flag_lookup(LAUNCHER_ARG_END), LAUNCHER_FLAG_UNKNOWN);
}

/* A policy that makes the library write every flag it has. */
static confine_policy *policy_with_every_flag(void)
{
	confine_policy *p = NULL;

	assert_int_equal(confine_policy_new(CONFINE_MODE_WORKSPACE_WRITE, workspace, &p, NULL), 0);
	/* outside the writable grants: read grants around it (--ro-try) */
	assert_int_equal(confine_policy_add_deny_read(p, "/etc/shadow", NULL), 0);
	p->network = CONFINE_NETWORK_OFF;
	assert_int_equal(confine_policy_add_allow_host(p, "*.test", NULL), 0);
	assert_int_equal(confine_policy_add_deny_host(p, "bad.test", NULL), 0);
	p->network_allow_local = true;
	p->network_ask = true; /* --ask-fd: a decider (doc/SPEC.md 15) */
	assert_int_equal(confine_policy_add_unix_socket(p, "/run/agent.sock", NULL), 0);
	p->require_full = true;
	/* --rlimit: a limit the launcher applies to the command (SPEC 15) */
	assert_int_equal(confine_policy_set_limit(p, CONFINE_LIMIT_FILE_SIZE, 1 << 20, NULL), 0);
	/* --temp-size: the temp area sized by the launcher (SPEC 15) */
	assert_int_equal(confine_policy_set_limit(p, CONFINE_LIMIT_TEMP, 10 << 20, NULL), 0);
	p->private_temp = true;
	free(p->temp_dir);
	p->temp_dir = strdup("/tmp/confine-tmp.unit:x");
	assert_non_null(p->temp_dir);
	assert_int_equal(confine_policy_validate(p, NULL), 0);
	return p;
}

/* The library builds the argv, the launcher's parser reads it back. */
static void test_library_argv_parses(void **state)
{
	static const char *const extra[] = { LAUNCHER_ARG_BEST_EFFORT, NULL };
	confine_policy *p = policy_with_every_flag();
	bool seen[LAUNCHER_FLAG_COUNT] = { false };
	char **tokens = NULL, **argv;
	struct invocation invocation;
	const char *bad = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(cf_runner_launcher_args(p, extra, &tokens), 0);
	while (tokens[n])
		n++;
	argv = calloc(n + 4, sizeof *argv);
	assert_non_null(argv);
	argv[0] = (char *)"landlock-run";
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = tokens[i];
	/* flag, value, flag...: each flag one the table knows */
	for (size_t i = 0; i < n;) {
		enum launcher_flag flag = launcher_flag_lookup(tokens[i]);

		if (flag == LAUNCHER_FLAG_UNKNOWN) {
			fail_msg("the library wrote \"%s\", which the launcher does not know",
				 tokens[i]);
			return;
		}
		seen[flag] = true;
		i += launcher_flag_def(flag)->takes_value ? 2 : 1;
	}
	argv[n + 1] = (char *)LAUNCHER_ARG_END;
	argv[n + 2] = (char *)"true";
	assert_int_equal(parse_arguments((int)n + 3, argv, &invocation, &bad), USAGE_OK);
	assert_true(invocation.best_effort);
	assert_true(invocation.deny_network);
	assert_true(invocation.proxy);
	assert_true(invocation.proxy_allow_local);
	assert_true(invocation.require_supervisor);
	assert_int_equal(invocation.status_fd >= 3, true);
	assert_int_equal(invocation.ask_fd >= 3, true);
	assert_string_equal(invocation.command[0], "true");
	assert_true(invocation.temp_size == 10 << 20);
	assert_non_null(invocation.temp_path);
	assert_string_equal(invocation.temp_path, "/tmp/confine-tmp.unit:x");
	/* Every flag the table has is one the library writes, but the probe
	 * (its own argv) and the tests' resolver map; --ro and --proxy-off
	 * belong to other policies (no denyRead outside the grants; the
	 * network off with no allowlist), checked below. */
	for (int i = 0; i < LAUNCHER_FLAG_COUNT; i++) {
		if (i == LAUNCHER_FLAG_PROBE || i == LAUNCHER_FLAG_PROXY_HOSTS ||
		    i == LAUNCHER_FLAG_RO || i == LAUNCHER_FLAG_PROXY_OFF ||
		    i == LAUNCHER_FLAG_STAGE || i == LAUNCHER_FLAG_STAGE_ROOT ||
		    i == LAUNCHER_FLAG_IDENTITY || i == LAUNCHER_FLAG_STARTER)
			continue; /* the stage: a staged run's policy (SPEC 21);
				   * --identity: the bwrap rung's, test_identity_values;
				   * --starter: the argv for others (test_starter) */
		if (!seen[i])
			fail_msg("the library never writes %s",
				 launcher_flag_def((enum launcher_flag)i)->word);
	}
	free(argv);
	confine_strv_free(tokens);
	confine_policy_free(p);
}

/* The library as installed reads no test hook: CONFINE_TEST_PROXY_HOSTS
 * in its environment adds nothing (only confine-test-hooks reads it). */
static void test_installed_library_reads_no_test_hook(void **state)
{
	confine_policy *p = policy_with_every_flag();
	char **tokens = NULL;

	(void)state;
	setenv("CONFINE_TEST_PROXY_HOSTS", "/etc/hosts", 1);
	assert_int_equal(cf_runner_launcher_args(p, NULL, &tokens), 0);
	unsetenv("CONFINE_TEST_PROXY_HOSTS");
	for (size_t i = 0; tokens[i]; i++)
		if (strcmp(tokens[i], LAUNCHER_ARG_PROXY_HOSTS) == 0)
			fail_msg("the library read CONFINE_TEST_PROXY_HOSTS");
	confine_strv_free(tokens);
	confine_policy_free(p);
}

/* The network off with no allowlist: --ro and --proxy-off, parsed back. */
static void test_off_argv_parses(void **state)
{
	confine_policy *p = NULL;
	char **tokens = NULL, **argv;
	struct invocation invocation;
	const char *bad = NULL;
	bool ro = false, off = false;
	size_t n = 0;

	(void)state;
	assert_int_equal(confine_policy_new(CONFINE_MODE_READ_ONLY, workspace, &p, NULL), 0);
	p->network = CONFINE_NETWORK_OFF;
	assert_int_equal(cf_runner_launcher_args(p, NULL, &tokens), 0);
	while (tokens[n]) {
		ro = ro || strcmp(tokens[n], LAUNCHER_ARG_RO) == 0;
		off = off || strcmp(tokens[n], LAUNCHER_ARG_PROXY_OFF) == 0;
		n++;
	}
	assert_true(ro);
	assert_true(off);
	argv = calloc(n + 4, sizeof *argv);
	assert_non_null(argv);
	argv[0] = (char *)"landlock-run";
	for (size_t i = 0; i < n; i++)
		argv[i + 1] = tokens[i];
	argv[n + 1] = (char *)LAUNCHER_ARG_END;
	argv[n + 2] = (char *)"true";
	assert_int_equal(parse_arguments((int)n + 3, argv, &invocation, &bad), USAGE_OK);
	assert_true(invocation.proxy_off);
	assert_true(invocation.deny_network);
	free(argv);
	confine_strv_free(tokens);
	confine_policy_free(p);
}

static void test_probe_argv_parses(void **state)
{
	char *argv[] = { (char *)"landlock-run", (char *)LAUNCHER_ARG_PROBE, NULL };
	struct invocation invocation;
	const char *bad = NULL;

	(void)state;
	assert_int_equal(parse_arguments(2, argv, &invocation, &bad), USAGE_OK);
	assert_true(invocation.probe);
}

/* An argv of `count` times `flag VALUE`, then "-- true". */
static enum usage_error parse_repeated(const char *flag, const char *value, size_t count,
				       const char **bad)
{
	char **argv = calloc(2 * count + 5, sizeof *argv);
	struct invocation invocation;
	enum usage_error e;
	size_t at = 0;

	assert_non_null(argv);
	argv[at++] = (char *)"landlock-run";
	argv[at++] = (char *)LAUNCHER_ARG_DENY_NETWORK;
	for (size_t i = 0; i < count; i++) {
		argv[at++] = (char *)flag;
		argv[at++] = (char *)value;
	}
	argv[at++] = (char *)LAUNCHER_ARG_END;
	argv[at++] = (char *)"true";
	e = parse_arguments((int)at, argv, &invocation, bad);
	free(argv);
	return e;
}

/* The launcher refuses past a bound where it once kept the first 256
 * --proxy-deny values and dropped the rest. */
static void test_parser_refuses_past_a_bound(void **state)
{
	static const struct {
		const char *flag;
		const char *value;
		size_t max;
	} bounds[] = {
		{ LAUNCHER_ARG_PROXY_DENY, "bad.test", LAUNCHER_PROXY_HOSTS_MAX },
		{ LAUNCHER_ARG_PROXY_ALLOW, "good.test", LAUNCHER_PROXY_HOSTS_MAX },
		{ LAUNCHER_ARG_ALLOW_UNIX_SOCKET, "/run/a.sock", LAUNCHER_UNIX_SOCKETS_MAX },
		{ LAUNCHER_ARG_RW, "/tmp", LAUNCHER_WRITABLE_MAX },
		{ LAUNCHER_ARG_RW_SHARED, "/dev/shm", LAUNCHER_WRITABLE_MAX },
		{ LAUNCHER_ARG_IDENTITY, "1:2:/tmp", LAUNCHER_IDENTITIES_MAX },
	};
	const char *bad = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
		assert_int_equal(parse_repeated(bounds[i].flag, bounds[i].value, bounds[i].max, &bad),
				 USAGE_OK);
		bad = NULL;
		assert_int_equal(parse_repeated(bounds[i].flag, bounds[i].value, bounds[i].max + 1,
						&bad),
				 USAGE_TOO_MANY);
		assert_string_equal(bad, bounds[i].flag);
	}
}

/* --temp-size BYTES:PATH: bytes within the bounds, an absolute path;
 * anything else a usage error naming the value, never truncated. */
static void test_temp_size_values(void **state)
{
	static const char *const bad_values[] = {
		"0:/tmp", "1048575:/tmp", "1125899906842625:/tmp", "99999999999999999999999:/tmp",
		"10M:/tmp", "10485760", "10485760:", "10485760:tmp", ":/tmp", "-1:/tmp",
	};
	char *argv[] = { (char *)"landlock-run", (char *)LAUNCHER_ARG_TEMP_SIZE, NULL,
			 (char *)LAUNCHER_ARG_END, (char *)"true", NULL };
	struct invocation invocation;
	const char *bad = NULL;

	(void)state;
	argv[2] = (char *)"10485760:/tmp/a:b";
	assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_OK);
	assert_true(invocation.temp_size == 10485760ULL);
	assert_string_equal(invocation.temp_path, "/tmp/a:b");
	argv[2] = (char *)"1125899906842624:/tmp";
	assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_OK);
	for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
		argv[2] = (char *)bad_values[i];
		bad = NULL;
		assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_BAD_TEMP_SIZE);
		assert_string_equal(bad, bad_values[i]);
	}
}

/* --identity DEV:INO:PATH (red team F3): what the library writes for a
 * path parses back to that path's inode; a link on the way is refused when
 * the argv is made; a malformed value is a usage error naming it. */
static void test_identity_values(void **state)
{
	static const char *const bad_values[] = {
		"", "1:2", "1:2:", "1:2:rel", ":2:/x", "1::/x", "a:2:/x", "1:2/x",
		"18446744073709551616:2:/x", "-1:2:/x",
	};
	char *argv[] = { (char *)"landlock-run", (char *)LAUNCHER_ARG_IDENTITY, NULL,
			 (char *)LAUNCHER_ARG_END, (char *)"true", NULL };
	char **ids = NULL, link[PATH_MAX + 8];
	unsigned long long dev, ino;
	struct invocation invocation;
	const char *bad = NULL, *path;
	size_t cursor = 0;
	struct stat st;

	(void)state;
	assert_int_equal(cf_bwrap_identity_push(&ids, workspace), 0);
	assert_string_equal(ids[0], LAUNCHER_ARG_IDENTITY);
	argv[2] = ids[1];
	assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_OK);
	assert_true(next_identity(&invocation, &cursor, &path, &dev, &ino));
	assert_int_equal(stat(workspace, &st), 0);
	assert_string_equal(path, workspace);
	assert_true(dev == (unsigned long long)st.st_dev && ino == (unsigned long long)st.st_ino);
	assert_false(next_identity(&invocation, &cursor, &path, &dev, &ino));
	argv[2] = (char *)"18446744073709551615:0:/a:b";
	assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_OK);
	/* a link on the way: refused when the argv is made, never followed */
	snprintf(link, sizeof link, "%s/l", workspace);
	assert_int_equal(symlink(".", link), 0);
	assert_int_equal(cf_bwrap_identity_push(&ids, link), -ELOOP);
	snprintf(link + strlen(workspace), sizeof link - strlen(workspace), "/l/l");
	assert_int_equal(cf_bwrap_identity_push(&ids, link), -ELOOP);
	link[strlen(workspace) + 2] = '\0';
	assert_int_equal(unlink(link), 0);
	for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
		argv[2] = (char *)bad_values[i];
		bad = NULL;
		assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_BAD_IDENTITY);
		assert_string_equal(bad, bad_values[i]);
	}
	confine_strv_free(ids);
}

/* --starter PID (R4-F2): a positive decimal pid, once; anything else is
 * its usage error naming the value. */
static void test_starter(void **state)
{
	static const char *const bad_values[] = { "", "0", "-1", "1x", "2147483648", "12345678901" };
	char *argv[] = { (char *)"landlock-run", (char *)LAUNCHER_ARG_STARTER, NULL,
			 (char *)LAUNCHER_ARG_END, (char *)"true", NULL };
	struct invocation invocation;
	const char *bad = NULL;

	(void)state;
	argv[2] = (char *)"4242";
	assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_OK);
	assert_int_equal(invocation.starter, 4242);
	argv[2] = (char *)"2147483647";
	assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_OK);
	assert_int_equal(invocation.starter, 2147483647);
	for (size_t i = 0; i < sizeof bad_values / sizeof bad_values[0]; i++) {
		argv[2] = (char *)bad_values[i];
		bad = NULL;
		assert_int_equal(parse_arguments(5, argv, &invocation, &bad), USAGE_BAD_STARTER);
		assert_string_equal(bad, bad_values[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_words_are_distinct_and_found),
		cmocka_unit_test(test_library_argv_parses),
		cmocka_unit_test(test_identity_values),
		cmocka_unit_test(test_starter),
		cmocka_unit_test(test_installed_library_reads_no_test_hook),
		cmocka_unit_test(test_off_argv_parses),
		cmocka_unit_test(test_probe_argv_parses),
		cmocka_unit_test(test_parser_refuses_past_a_bound),
		cmocka_unit_test(test_temp_size_values),
	};

	return cmocka_run_group_tests(tests, make_workspace, remove_workspace);
}
