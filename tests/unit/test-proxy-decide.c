/* SPDX-License-Identifier: MIT */
/* What the network proxy decides (src/launcher/proxy/decide.h) and the
 * lines of the ask socket and the proxy's records
 * (src/common/launcher-protocol.h): pure functions, called directly. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "decide.h"
#include "launcher-protocol.h"

static struct proxy_config config(bool ask)
{
	struct proxy_config c;

	memset(&c, 0, sizeof(c));
	c.allow[c.n_allow++] = "listed.test";
	c.allow[c.n_allow++] = "*.example.org";
	c.deny[c.n_deny++] = "bad.example.org";
	c.ask = ask;
	c.status_fd = c.ask_fd = -1;
	return c;
}

static void test_lists_decide_before_the_decider(void **state)
{
	struct proxy_config c = config(true);
	struct proxy_answers answers = { .n = 0 };
	struct proxy_refusal r;

	(void)state;
	assert_int_equal(proxy_decide_name(&c, &answers, "listed.test", 443, &r),
			 PROXY_NEXT_RESOLVE);
	assert_string_equal(r.by, "allowlist");
	assert_int_equal(proxy_decide_name(&c, &answers, "a.example.org", 80, &r),
			 PROXY_NEXT_RESOLVE);
	/* deny wins, and the decider is never asked about it */
	assert_int_equal(proxy_decide_name(&c, &answers, "bad.example.org", 443, &r),
			 PROXY_NEXT_REFUSE);
	assert_string_equal(r.clause, "network.deny");
	assert_string_equal(r.by, "denylist");
	assert_non_null(strstr(r.why, "\"bad.example.org\""));
	/* on neither list: asked */
	assert_int_equal(proxy_decide_name(&c, &answers, "other.test", 443, &r), PROXY_NEXT_ASK);
	/* the suffix itself is not under it */
	assert_int_equal(proxy_decide_name(&c, &answers, "example.org", 443, &r), PROXY_NEXT_ASK);
}

static void test_without_a_decider_the_list_refuses(void **state)
{
	struct proxy_config c = config(false);
	struct proxy_refusal r;

	(void)state;
	assert_int_equal(proxy_decide_name(&c, NULL, "other.test", 443, &r), PROXY_NEXT_REFUSE);
	assert_string_equal(r.clause, "network.allow");
	assert_string_equal(r.by, "allowlist");
	assert_int_equal(r.http_status, 403);
	assert_non_null(strstr(r.why, "\"other.test\" is not on the network allowlist"));
}

static void test_off_refuses_everything(void **state)
{
	struct proxy_config c = config(true);
	struct proxy_refusal r;

	(void)state;
	c.off = true;
	assert_int_equal(proxy_decide_name(&c, NULL, "listed.test", 443, &r), PROXY_NEXT_REFUSE);
	assert_string_equal(r.clause, "network");
	assert_string_equal(r.by, "off");
	assert_non_null(strstr(r.why, "network is off"));
	proxy_decide_literal(&c, &r);
	assert_string_equal(r.clause, "network");
	assert_int_equal(r.socks_code, 0x02);
}

static void test_answers_are_kept_per_host_and_port(void **state)
{
	struct proxy_config c = config(true);
	static struct proxy_answers answers;
	struct proxy_refusal r;
	char host[16];
	size_t i;

	(void)state;
	memset(&answers, 0, sizeof(answers));
	assert_true(proxy_answers_put(&answers, "yes.test", 443, true, "fine"));
	assert_true(proxy_answers_put(&answers, "no.test", 443, false, "not for this task"));
	/* a second answer for the same host and port changes nothing */
	assert_true(proxy_answers_put(&answers, "yes.test", 443, false, "changed"));
	assert_int_equal(answers.n, 2);
	assert_int_equal(proxy_decide_name(&c, &answers, "yes.test", 443, &r), PROXY_NEXT_RESOLVE);
	assert_string_equal(r.by, "decider");
	/* another port is another question */
	assert_int_equal(proxy_decide_name(&c, &answers, "yes.test", 8443, &r), PROXY_NEXT_ASK);
	assert_int_equal(proxy_decide_name(&c, &answers, "no.test", 443, &r), PROXY_NEXT_REFUSE);
	assert_string_equal(r.clause, "network.ask");
	assert_string_equal(r.reason, "not for this task");
	assert_non_null(strstr(r.why, "refused by the run's decider (clause network.ask): "
				      "not for this task"));
	/* bounded: past PROXY_ANSWERS_MAX nothing more is kept */
	for (i = answers.n; i < PROXY_ANSWERS_MAX; i++) {
		snprintf(host, sizeof(host), "h%zu.test", i);
		assert_true(proxy_answers_put(&answers, host, 1, true, NULL));
	}
	assert_false(proxy_answers_put(&answers, "late.test", 1, true, NULL));
	assert_null(proxy_answers_find(&answers, "late.test", 1));
}

static void test_the_bound_passed_says_so(void **state)
{
	struct proxy_refusal r;

	(void)state;
	proxy_decide_refused_by_decider("slow.test", 443, NULL, &r);
	assert_string_equal(r.clause, "network.ask");
	assert_non_null(strstr(r.why, "did not answer within 30 s"));
	assert_string_equal(r.reason, "no answer within 30 s");
}

/* 16 bytes from text: IPv6, or IPv4 v4-mapped. */
static void address(const char *text, unsigned char *out)
{
	struct in_addr a;

	memset(out, 0, 16);
	if (inet_pton(AF_INET, text, &a) == 1) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &a, 4);
		return;
	}
	assert_int_equal(inet_pton(AF_INET6, text, out), 1);
}

static void test_local_addresses(void **state)
{
	struct proxy_config c = config(false);
	struct proxy_refusal r;
	static const char *const local[] = { "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1",
					     "169.254.1.1", "100.64.0.1", "0.0.0.0",
					     "224.0.0.1", "255.255.255.255",
					     "::1", "::", "::127.0.0.1", "64:ff9b::a00:1",
					     "2002:7f00:1::1", "fd00::1", "fc12::1", "fe80::1",
					     "fec0::1", "ff02::1", "2001:db8::1", "2001:2::1",
					     "2001:0:1::1", "100::1",
					     /* R5-F5, carried: SIIT, local-use NAT64 */
					     "::ffff:0:7f00:1", "64:ff9b:1::7f00:1",
					     "64:ff9b:1::a00:1", "64:ff9b:1:1::5db8:d822",
					     "64:ff9b:1:5db8:d8:2200::" };
	static const char *const public[] = { "93.184.216.34", "2606:2800:220:1::1",
					      "2a00:1450::1", "64:ff9b::5db8:d822",
					      "2002:5db8:d822::1", "2001:4860::8888",
					      /* documentation and benchmarking addresses are
					       * real ones on some networks (this CI host's) */
					      "192.0.2.2", "198.51.100.7", "203.0.113.1",
					      "198.18.0.1", "198.19.255.254", "::ffff:0:c000:202",
					      "64:ff9b:1::c000:202",
					      "192.0.3.1", "192.0.1.255", "198.51.101.1",
					      "203.0.112.255", "198.17.255.255", "198.20.0.1",
					      "::ffff:0:5db8:d822", "64:ff9b:1::5db8:d822",
					      "64:ff9b:2::1:1" };
	unsigned char a[16];
	struct in_addr v4;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(local) / sizeof(local[0]); i++) {
		address(local[i], a);
		assert_true(proxy_address6_is_local(a));
		assert_false(proxy_decide_address(&c, "x.test", a, &r));
		assert_string_equal(r.clause, "network.allowLocal");
		/* the decision record's <by>: the name's allow is overruled */
		assert_string_equal(r.by, "allowLocal");
	}
	address("::1", a);
	assert_false(proxy_decide_address(&c, "x.test", a, &r));
	assert_non_null(strstr(r.why, "resolves to ::1,"));
	address("127.0.0.1", a);
	assert_true(proxy_address_is_v4_mapped(a));
	assert_false(proxy_decide_address(&c, "x.test", a, &r));
	assert_non_null(strstr(r.why, "resolves to 127.0.0.1,"));
	for (i = 0; i < sizeof(public) / sizeof(public[0]); i++) {
		address(public[i], a);
		assert_false(proxy_address6_is_local(a));
		assert_true(proxy_decide_address(&c, "x.test", a, &r));
	}
	inet_pton(AF_INET, "93.184.216.34", &v4);
	assert_false(proxy_address_is_local(v4.s_addr));
	inet_pton(AF_INET, "127.0.0.1", &v4);
	assert_true(proxy_address_is_local(v4.s_addr));
	c.allow_local = true;
	address("127.0.0.1", a);
	assert_true(proxy_decide_address(&c, "x.test", a, &r));
	address("::1", a);
	assert_true(proxy_decide_address(&c, "x.test", a, &r));
	/* with allowLocal, an address of any kind is reached */
	address("192.0.2.2", a);
	assert_true(proxy_decide_address(&c, "x.test", a, &r));
	address("64:ff9b:1::c000:202", a);
	assert_true(proxy_decide_address(&c, "x.test", a, &r));
}

/* The host's own interface addresses (own.c reads them at start) are
 * local whatever their range: an allowed name mapped to eth0's public
 * address reached what listens on 0.0.0.0 (red team R5-F5). */
static void test_own_addresses(void **state)
{
	struct proxy_config c = config(false);
	struct proxy_refusal r;
	unsigned char a[16];

	(void)state;
	address("192.0.2.2", a);
	assert_true(proxy_decide_address(&c, "x.test", a, &r)); /* not the host's: public */
	memcpy(c.own[c.n_own++], a, 16);
	address("2606:2800:220:1::1", a);
	memcpy(c.own[c.n_own++], a, 16);
	address("192.0.2.2", a);
	assert_false(proxy_decide_address(&c, "x.test", a, &r));
	assert_string_equal(r.clause, "network.allowLocal");
	assert_string_equal(r.why, "host \"x.test\" resolves to 192.0.2.2, an address of this "
			    "host's own interfaces, which the allowlist refuses (clause "
			    "network.allowLocal)");
	address("2606:2800:220:1::1", a);
	assert_false(proxy_decide_address(&c, "x.test", a, &r));
	assert_non_null(strstr(r.why, "resolves to 2606:2800:220:1::1, an address of this host"));
	/* the neighbours stay public; allowLocal reaches the host's own */
	address("192.0.2.3", a);
	assert_true(proxy_decide_address(&c, "x.test", a, &r));
	address("2606:2800:220:1::2", a);
	assert_true(proxy_decide_address(&c, "x.test", a, &r));
	c.allow_local = true;
	address("192.0.2.2", a);
	assert_true(proxy_decide_address(&c, "x.test", a, &r));
}

static void test_literals_and_authorities(void **state)
{
	char host[256];
	unsigned port = 0;

	(void)state;
	assert_true(proxy_is_ip_literal("127.0.0.1"));
	assert_true(proxy_is_ip_literal("[::1]"));
	assert_true(proxy_is_ip_literal("2130706433"));
	assert_true(proxy_is_ip_literal("0x7f000001"));
	assert_true(proxy_is_ip_literal("0x7f.0.0.1"));
	assert_true(proxy_is_ip_literal("0177.0.0.1"));
	assert_true(proxy_is_ip_literal("127.1"));
	assert_true(proxy_is_ip_literal("127.0.0.1."));
	assert_false(proxy_is_ip_literal("0xdead.example"));
	assert_false(proxy_is_ip_literal("a.b9"));
	assert_false(proxy_is_ip_literal("x0.example.org"));
	assert_true(proxy_is_ip_literal("::ffff:127.0.0.1"));
	assert_false(proxy_is_ip_literal("a1.test"));
	assert_true(proxy_split_authority("x.test:8080", 11, 80, host, sizeof(host), &port));
	assert_string_equal(host, "x.test");
	assert_int_equal(port, 8080);
	assert_true(proxy_split_authority("x.test", 6, 80, host, sizeof(host), &port));
	assert_int_equal(port, 80);
	assert_false(proxy_split_authority("x.test:0", 8, 80, host, sizeof(host), &port));
	assert_false(proxy_split_authority("x.test:65536", 12, 80, host, sizeof(host), &port));
	assert_false(proxy_split_authority("x.test:+1", 9, 80, host, sizeof(host), &port));
	assert_false(proxy_split_authority(":80", 3, 80, host, sizeof(host), &port));
	/* an IPv6 literal: kept whole with its brackets, its port after them */
	assert_true(proxy_split_authority("[::1]:8080", 10, 80, host, sizeof(host), &port));
	assert_string_equal(host, "[::1]");
	assert_int_equal(port, 8080);
	assert_true(proxy_is_ip_literal(host));
	assert_true(proxy_split_authority("[::1]", 5, 80, host, sizeof(host), &port));
	assert_string_equal(host, "[::1]");
	assert_int_equal(port, 80);
	assert_true(proxy_split_authority("[::1", 4, 80, host, sizeof(host), &port));
	assert_string_equal(host, "[::1");
	assert_false(proxy_split_authority("[::1]x", 6, 80, host, sizeof(host), &port));
	assert_false(proxy_split_authority("[::1]:0", 7, 80, host, sizeof(host), &port));
}

static void test_secret_and_base64(void **state)
{
	char out[16];

	(void)state;
	assert_true(proxy_secret_equal("abc", 3, "abc"));
	assert_false(proxy_secret_equal("abd", 3, "abc"));
	assert_false(proxy_secret_equal("ab", 2, "abc"));
	assert_false(proxy_secret_equal("abcd", 4, "abc"));
	assert_int_equal(proxy_base64((const unsigned char *)"confine:x", 9, out, sizeof(out)), 12);
	assert_string_equal(out, "Y29uZmluZTp4");
	assert_int_equal(proxy_base64((const unsigned char *)"ab", 2, out, 4), 0);
}

static void test_ask_lines(void **state)
{
	struct launcher_question q;
	struct launcher_answer a;
	static const char question[] = "ask 7 registry.npmjs.org 443\n";

	(void)state;
	assert_int_equal(launcher_question_parse(question, sizeof(question) - 1, &q), 0);
	assert_int_equal(q.id, 7);
	assert_int_equal(q.port, 443);
	assert_int_equal(q.host_length, strlen("registry.npmjs.org"));
	assert_memory_equal(q.host, "registry.npmjs.org", q.host_length);
	assert_int_equal(launcher_question_parse("ask 7 a.test 0\n", 15, &q), -EINVAL);
	assert_int_equal(launcher_question_parse("ask 7 A.test 1\n", 15, &q), -EINVAL);
	assert_int_equal(launcher_question_parse("ask 7 a.test 1 x\n", 17, &q), -EINVAL);
	assert_int_equal(launcher_question_parse("ask 07 a.test 1\n", 16, &q), -EINVAL);
	assert_int_equal(launcher_answer_parse("answer 7 allow\n", 15, &a), 0);
	assert_true(a.allow);
	assert_int_equal(a.reason_length, 0);
	assert_int_equal(launcher_answer_parse("answer 7 deny not for this task\n", 32, &a), 0);
	assert_false(a.allow);
	assert_int_equal(a.reason_length, 17);
	assert_memory_equal(a.reason, "not for this task", 17);
	assert_int_equal(launcher_answer_parse("answer 7 maybe\n", 15, &a), -EINVAL);
	assert_int_equal(launcher_answer_parse("answer 7 deny a\tb\n", 18, &a), -EINVAL);
	assert_int_equal(launcher_answer_parse("answer x deny\n", 14, &a), -EINVAL);
}

/* R3-F1: one validator for every door's host (doc/SPEC.md 15, "Host
 * names"); a name that could forge an ask line or pass as an option is
 * not a name. */
static void test_host_names(void **state)
{
	static const char *const good[] = { "a", "vm", "registry.npmjs.org", "A.Test",
					    "x-y.example", "xn--bcher-kva.example", "a.test.",
					    "1a.2b", "0.0.0.0" };
	static const char *const bad[] = { "", ".", "-", "--version", "-x.test", "x-.test",
					   "a..b", ".a", "a b", "slow.test 1\nask 2 vm", "a\rb",
					   "a\tb", "a_b.test", "a:1", "[::1]", ("b\xc3\xbc" "cher.test"),
					   "a/b", "a\"b", "a..", "a.test.." };
	char label[70], name[300];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(launcher_host_name_valid(good[i], strlen(good[i])));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(launcher_host_name_valid(bad[i], strlen(bad[i])));
	/* a NUL inside the length is not a name */
	assert_false(launcher_host_name_valid("a\0b", 3));
	assert_false(launcher_host_name_valid(NULL, 0));
	/* bounds: a label of 63, not 64; a name of 253, not 254 (plus the dot) */
	memset(label, 'a', 64);
	assert_true(launcher_host_name_valid(label, 63));
	assert_false(launcher_host_name_valid(label, 64));
	for (i = 0; i < 253; i++)
		name[i] = i % 2 ? '.' : 'a';
	assert_true(launcher_host_name_valid(name, 253));
	name[253] = '.';
	assert_true(launcher_host_name_valid(name, 254));
	name[253] = 'a';
	name[252] = 'a';
	name[254] = '\0';
	assert_false(launcher_host_name_valid(name, 254));
}

static void test_ask_line_cannot_be_forged(void **state)
{
	static const char forged[] = "ask 1 slow.test 1\nask 2 vm 80\n";
	struct launcher_question q;

	(void)state;
	/* as one line: more than one line is no question */
	assert_int_equal(launcher_question_parse(forged, sizeof(forged) - 1, &q), -EINVAL);
	assert_int_equal(launcher_question_parse("ask 3 -x 1\n", 11, &q), -EINVAL);
	assert_int_equal(launcher_question_parse("ask 3 --version 1\n", 18, &q), -EINVAL);
	assert_int_equal(launcher_question_parse("ask 3 - 1\n", 10, &q), -EINVAL);
	assert_int_equal(launcher_question_parse("ask 3 a_b 1\n", 12, &q), -EINVAL);
}

static void test_bad_name_is_escaped(void **state)
{
	struct proxy_config c = config(true);
	struct proxy_refusal r;
	char out[256];
	static const char raw[] = "slow.test 1\nask 2 vm";

	(void)state;
	proxy_escape_host(raw, sizeof(raw) - 1, out, sizeof(out));
	assert_string_equal(out, "\"slow.test\\x201\\x0aask\\x202\\x20vm\"");
	assert_null(strchr(out, '\n'));
	proxy_escape_host("a\0\"\\", 4, out, sizeof(out));
	assert_string_equal(out, "\"a\\x00\\x22\\x5c\"");
	/* cut to fit, still one quoted word */
	{
		char longname[600], small[40];

		memset(longname, '\n', sizeof(longname));
		proxy_escape_host(longname, sizeof(longname), out, sizeof(out));
		assert_true(strlen(out) < sizeof(out));
		assert_null(strchr(out, '\n'));
		assert_int_equal(out[strlen(out) - 1], '"');
		proxy_escape_host(longname, sizeof(longname), small, sizeof(small));
		assert_true(strlen(small) < sizeof(small));
		assert_non_null(strstr(small, "...\""));
	}
	proxy_decide_bad_name(&c, &r);
	assert_string_equal(r.clause, "network.allow");
	assert_int_equal(r.socks_code, 0x01);
	assert_non_null(strstr(r.why, "not a DNS name"));
}

static void test_refused_and_decision_records(void **state)
{
	static const char refused[] = "refused network.ask ask.test 443 not needed\n";
	static const char bare[] = "refused network.allow other.test 80 \n";
	static const char decision[] = "decision ask.test 443 allow decider\n";
	struct launcher_record rec;

	(void)state;
	assert_int_equal(launcher_record_parse(refused, sizeof(refused) - 1, &rec), 0);
	assert_int_equal(rec.kind, LAUNCHER_RECORD_KIND_REFUSED);
	assert_int_equal(rec.value, 443);
	assert_memory_equal(rec.clause, "network.ask", rec.clause_length);
	assert_int_equal(rec.text_length, 10);
	assert_memory_equal(rec.text, "not needed", 10);
	assert_int_equal(launcher_record_parse(bare, sizeof(bare) - 1, &rec), 0);
	assert_int_equal(rec.text_length, 0);
	assert_int_equal(launcher_record_parse(decision, sizeof(decision) - 1, &rec), 0);
	assert_int_equal(rec.kind, LAUNCHER_RECORD_KIND_DECISION);
	assert_true(rec.allow);
	assert_memory_equal(rec.op, "decider", rec.op_length);
	assert_int_equal(launcher_record_parse("refused mode a.test 1 x\n", 24, &rec), -EINVAL);
	assert_int_equal(launcher_record_parse("decision a.test 1 allow me\n", 27, &rec), -EINVAL);
	assert_int_equal(launcher_record_parse("decision a.test 1 yes off\n", 26, &rec), -EINVAL);
	assert_int_equal(launcher_record_parse("decision a.test 1 deny off x\n", 29, &rec),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lists_decide_before_the_decider),
		cmocka_unit_test(test_without_a_decider_the_list_refuses),
		cmocka_unit_test(test_off_refuses_everything),
		cmocka_unit_test(test_answers_are_kept_per_host_and_port),
		cmocka_unit_test(test_the_bound_passed_says_so),
		cmocka_unit_test(test_local_addresses),
		cmocka_unit_test(test_own_addresses),
		cmocka_unit_test(test_literals_and_authorities),
		cmocka_unit_test(test_secret_and_base64),
		cmocka_unit_test(test_ask_lines),
		cmocka_unit_test(test_refused_and_decision_records),
		cmocka_unit_test(test_host_names),
		cmocka_unit_test(test_ask_line_cannot_be_forged),
		cmocka_unit_test(test_bad_name_is_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
