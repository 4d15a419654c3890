/* SPDX-License-Identifier: MIT */
/* The network allowlist's host patterns (src/common/host-pattern.h): the
 * one matcher the library's validation and the launcher's proxy both use,
 * tested where it decides, as tables of cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "host-pattern.h"

struct check_case {
	const char *pattern;
	enum host_pattern_fault fault;
};

static const struct check_case check_cases[] = {
	{ "example.org", HOST_PATTERN_OK },
	{ "*.example.org", HOST_PATTERN_OK },
	{ "Registry.NPMJS.org", HOST_PATTERN_OK },
	{ "a_b-c.test", HOST_PATTERN_OK },
	{ "0x7f.example.org", HOST_PATTERN_OK },
	{ "123.example.org", HOST_PATTERN_OK },
	{ "a.b9", HOST_PATTERN_OK },
	{ "", HOST_PATTERN_EMPTY },
	{ "https://example.org", HOST_PATTERN_SCHEME },
	{ "10.0.0.0/8", HOST_PATTERN_PATH },
	{ "example.org/x", HOST_PATTERN_PATH },
	{ "::1", HOST_PATTERN_IPV6 },
	{ "[::1]", HOST_PATTERN_IPV6 },
	{ "example.org:443", HOST_PATTERN_PORT },
	{ "*.", HOST_PATTERN_NOT_A_NAME },
	{ "1.2.3.4", HOST_PATTERN_ADDRESS },
	{ "*.10.0.0.1", HOST_PATTERN_ADDRESS },
	{ "0x7f000001", HOST_PATTERN_ADDRESS },
	{ "0x7f.0.0.1", HOST_PATTERN_ADDRESS },
	{ "0X7F.1", HOST_PATTERN_ADDRESS },
	{ "*.0x0a", HOST_PATTERN_ADDRESS },
	{ "example.0x1", HOST_PATTERN_ADDRESS },
	{ "example.123", HOST_PATTERN_ADDRESS },
	{ "a..b", HOST_PATTERN_EMPTY_LABEL },
	{ ".a", HOST_PATTERN_EMPTY_LABEL },
	{ "*", HOST_PATTERN_WILDCARD },
	{ "a.*.org", HOST_PATTERN_WILDCARD },
	{ "**.org", HOST_PATTERN_WILDCARD },
	{ "exa mple.org", HOST_PATTERN_BAD_CHAR },
	{ "ex\xc3\xa4mple.org", HOST_PATTERN_BAD_CHAR },
	{ "example.org.", HOST_PATTERN_TRAILING_DOT },
	/* a label neither begins nor ends with '-' (red team F6) */
	{ "-a.test", HOST_PATTERN_HYPHEN_EDGE },
	{ "a-.test", HOST_PATTERN_HYPHEN_EDGE },
	{ "a.-b.test", HOST_PATTERN_HYPHEN_EDGE },
	{ "a.test-", HOST_PATTERN_HYPHEN_EDGE },
	{ "*.-a.test", HOST_PATTERN_HYPHEN_EDGE },
	{ "-", HOST_PATTERN_HYPHEN_EDGE },
	{ "xn--bcher-kva.test", HOST_PATTERN_OK },
	{ "a-b.test", HOST_PATTERN_OK },
};

static void test_check_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(check_cases) / sizeof(check_cases[0]); i++) {
		enum host_pattern_fault got = host_pattern_check(check_cases[i].pattern, NULL);

		if (got != check_cases[i].fault)
			fail_msg("\"%s\": fault %d, want %d", check_cases[i].pattern, (int)got,
				 (int)check_cases[i].fault);
	}
}

/* The bounds of RFC 1035: a name of 253 bytes, a label of 63. */
static void test_check_bounds(void **state)
{
	char name[HOST_NAME_LENGTH_MAX + 2];
	char label[HOST_LABEL_LENGTH_MAX + 6];
	char bad = 0;

	(void)state;
	for (size_t i = 0; i < HOST_NAME_LENGTH_MAX; i++)
		name[i] = i % 2 ? '.' : 'a';
	name[HOST_NAME_LENGTH_MAX] = '\0';
	assert_int_equal(host_pattern_check(name, NULL), HOST_PATTERN_OK);
	name[HOST_NAME_LENGTH_MAX] = 'a';
	name[HOST_NAME_LENGTH_MAX - 1] = 'a';
	name[HOST_NAME_LENGTH_MAX + 1] = '\0';
	assert_int_equal(host_pattern_check(name, NULL), HOST_PATTERN_NOT_A_NAME);
	memset(label, 'a', HOST_LABEL_LENGTH_MAX);
	strcpy(label + HOST_LABEL_LENGTH_MAX, ".org");
	assert_int_equal(host_pattern_check(label, NULL), HOST_PATTERN_OK);
	memset(label, 'a', HOST_LABEL_LENGTH_MAX + 1);
	strcpy(label + HOST_LABEL_LENGTH_MAX + 1, ".org");
	assert_int_equal(host_pattern_check(label, NULL), HOST_PATTERN_LONG_LABEL);
	assert_int_equal(host_pattern_check("a!b.org", &bad), HOST_PATTERN_BAD_CHAR);
	assert_int_equal(bad, '!');
}

struct match_case {
	const char *pattern;
	const char *host;
	bool match;
};

static const struct match_case match_cases[] = {
	{ "*.pypi.org", "files.PYPI.org", true },
	{ "*.pypi.org", "a.b.pypi.org", true },
	{ "*.pypi.org", "pypi.org", false },       /* strictly under */
	{ "*.pypi.org", "notpypi.org", false },    /* a label, not a suffix of bytes */
	{ "registry.npmjs.org", "REGISTRY.npmjs.org", true },
	{ "registry.npmjs.org", "registry.npmjs.org.evil", false },
	{ "registry.npmjs.org", "npmjs.org", false },
	{ "a.test", "", false },
	{ NULL, "a.test", false },
	{ "a.test", NULL, false },
};

static void test_match_table(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(match_cases) / sizeof(match_cases[0]); i++)
		if (host_pattern_match(match_cases[i].pattern, match_cases[i].host) !=
		    match_cases[i].match)
			fail_msg("\"%s\" on \"%s\": want %s", match_cases[i].pattern ? match_cases[i].pattern : "(null)",
				 match_cases[i].host ? match_cases[i].host : "(null)",
				 match_cases[i].match ? "a match" : "no match");
}

/* A deny entry wins over any allow entry, and says it was the deny list:
 * the proxy names the clause from this (doc/SPEC.md 15). */
static void test_decide(void **state)
{
	static const char *const allow[] = { "*.test", "registry.npmjs.org" };
	static const char *const deny[] = { "bad.test", "*.evil.test" };

	(void)state;
	assert_int_equal(host_pattern_decide(allow, 2, deny, 2, "good.test"), HOST_VERDICT_ALLOWED);
	assert_int_equal(host_pattern_decide(allow, 2, deny, 2, "bad.test"), HOST_VERDICT_DENIED);
	assert_int_equal(host_pattern_decide(allow, 2, deny, 2, "BAD.test"), HOST_VERDICT_DENIED);
	assert_int_equal(host_pattern_decide(allow, 2, deny, 2, "x.evil.test"), HOST_VERDICT_DENIED);
	assert_int_equal(host_pattern_decide(allow, 2, deny, 2, "example.org"),
			 HOST_VERDICT_NOT_ALLOWED);
	assert_int_equal(host_pattern_decide(allow, 2, NULL, 0, "bad.test"), HOST_VERDICT_ALLOWED);
	assert_int_equal(host_pattern_decide(NULL, 0, deny, 2, "good.test"),
			 HOST_VERDICT_NOT_ALLOWED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_table),
		cmocka_unit_test(test_check_bounds),
		cmocka_unit_test(test_match_table),
		cmocka_unit_test(test_decide),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
