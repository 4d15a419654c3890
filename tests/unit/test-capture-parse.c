/* SPDX-License-Identifier: MIT */
/* Transparent capture's parsers (src/launcher/proxy/capture-parse.h,
 * doc/SPEC.md 15 "Transparent capture"): the supervisor's preamble, a TLS
 * ClientHello's SNI, an HTTP request's Host. Pure functions, called
 * directly. */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "capture-parse.h"

static const char token[] = "0123456789abcdef0123456789abcdef";

static void test_preamble_round_trip(void **state)
{
	unsigned char buf[CAPTURE_PREAMBLE_LENGTH + 3];
	/* an IPv4 address travels v4-mapped: ::ffff:93.184.216.34 */
	static const unsigned char mapped[16] = { [10] = 0xff, [11] = 0xff, 0x5d, 0xb8, 0xd8, 0x22 };
	static const unsigned char v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	unsigned char addr[16] = { 0 };
	uint16_t port = 0;

	(void)state;
	capture_write_preamble(buf, token, mapped, htons(443));
	memcpy(buf + CAPTURE_PREAMBLE_LENGTH, "GET", 3);
	assert_int_equal(capture_parse_preamble(buf, sizeof(buf), token, addr, &port), CAPTURE_OK);
	assert_memory_equal(addr, mapped, 16);
	assert_int_equal(ntohs(port), 443);
	capture_write_preamble(buf, token, v6, htons(80));
	assert_int_equal(capture_parse_preamble(buf, sizeof(buf), token, addr, &port), CAPTURE_OK);
	assert_memory_equal(addr, v6, 16);
	assert_int_equal(ntohs(port), 80);
	/* a head cut short waits; a prefix that is not the magic does not */
	assert_int_equal(capture_parse_preamble(buf, 10, token, addr, &port), CAPTURE_MORE);
	assert_int_equal(capture_parse_preamble(buf, CAPTURE_PREAMBLE_LENGTH - 1, token, addr, &port),
			 CAPTURE_MORE);
	assert_int_equal(capture_parse_preamble(buf, 2, token, addr, &port), CAPTURE_MORE);
	assert_int_equal(capture_parse_preamble((const unsigned char *)"\0CFX", 4, token, addr,
						&port), CAPTURE_BAD);
	assert_int_equal(capture_parse_preamble((const unsigned char *)"GET / HTTP/1.1", 14, token,
						addr, &port), CAPTURE_BAD);
}

static void test_preamble_wrong_secret(void **state)
{
	unsigned char buf[CAPTURE_PREAMBLE_LENGTH];
	unsigned char addr[16] = { 0 };
	uint16_t port;

	(void)state;
	capture_write_preamble(buf, "0123456789abcdef0123456789abcdee", addr, 2);
	assert_int_equal(capture_parse_preamble(buf, sizeof(buf), token, addr, &port),
			 CAPTURE_BAD);
}

/* A ClientHello in one record: version, random, session id, one cipher
 * suite, null compression, then the extensions given. */
static size_t client_hello(unsigned char *out, const unsigned char *ext, size_t ext_len)
{
	size_t n = 0, hello_at, record_at, i;

	out[n++] = 22;
	out[n++] = 3;
	out[n++] = 1;
	record_at = n;
	n += 2;
	out[n++] = 1;
	hello_at = n;
	n += 3;
	out[n++] = 3;
	out[n++] = 3;
	for (i = 0; i < 32; i++)
		out[n++] = (unsigned char)i;
	out[n++] = 0;                 /* session id */
	out[n++] = 0, out[n++] = 2;   /* cipher suites */
	out[n++] = 0x13, out[n++] = 1;
	out[n++] = 1, out[n++] = 0;   /* compression */
	if (ext != NULL) {
		out[n++] = (unsigned char)(ext_len >> 8);
		out[n++] = (unsigned char)ext_len;
		memcpy(out + n, ext, ext_len);
		n += ext_len;
	}
	out[record_at] = (unsigned char)((n - 5) >> 8);
	out[record_at + 1] = (unsigned char)(n - 5);
	out[hello_at] = 0;
	out[hello_at + 1] = (unsigned char)((n - 9) >> 8);
	out[hello_at + 2] = (unsigned char)(n - 9);
	return n;
}

static size_t sni_extension(unsigned char *out, const char *name)
{
	size_t len = strlen(name), n = 0;

	/* another extension first (supported_versions), then server_name */
	out[n++] = 0, out[n++] = 43, out[n++] = 0, out[n++] = 3, out[n++] = 2;
	out[n++] = 3, out[n++] = 4;
	out[n++] = 0, out[n++] = 0;
	out[n++] = (unsigned char)((len + 5) >> 8), out[n++] = (unsigned char)(len + 5);
	out[n++] = (unsigned char)((len + 3) >> 8), out[n++] = (unsigned char)(len + 3);
	out[n++] = 0;
	out[n++] = (unsigned char)(len >> 8), out[n++] = (unsigned char)len;
	memcpy(out + n, name, len);
	return n + len;
}

static void test_tls_sni(void **state)
{
	unsigned char ext[300], hello[600];
	char name[256];
	enum capture_protocol p;
	size_t n = client_hello(hello, ext, sni_extension(ext, "Registry.NPMjs.org"));
	size_t cut;

	(void)state;
	assert_int_equal(capture_parse_name(hello, n, &p, name, sizeof(name)), CAPTURE_OK);
	assert_int_equal(p, CAPTURE_TLS);
	assert_string_equal(name, "Registry.NPMjs.org");
	/* every shorter prefix waits for more */
	for (cut = 1; cut < n; cut++)
		assert_int_equal(capture_parse_name(hello, cut, &p, name, sizeof(name)),
				 CAPTURE_MORE);
	/* a name longer than the room is refused, never cut */
	assert_int_equal(capture_parse_name(hello, n, &p, name, 8), CAPTURE_BAD);
}

static void test_tls_without_sni(void **state)
{
	unsigned char ext[8] = { 0, 43, 0, 3, 2, 3, 4 }, hello[300];
	char name[256];
	enum capture_protocol p;
	size_t n = client_hello(hello, ext, 7);

	(void)state;
	assert_int_equal(capture_parse_name(hello, n, &p, name, sizeof(name)), CAPTURE_NO_NAME);
	n = client_hello(hello, NULL, 0);
	assert_int_equal(capture_parse_name(hello, n, &p, name, sizeof(name)), CAPTURE_NO_NAME);
}

static void test_tls_lengths_lie(void **state)
{
	unsigned char ext[300], hello[600];
	char name[256];
	enum capture_protocol p;
	size_t n = client_hello(hello, ext, sni_extension(ext, "a.test"));

	(void)state;
	/* the SNI entry claims more bytes than its extension holds */
	hello[n - 7] = 0x7f;
	assert_int_equal(capture_parse_name(hello, n, &p, name, sizeof(name)), CAPTURE_BAD);
	/* the handshake claims more than its record: cut across records */
	n = client_hello(hello, ext, sni_extension(ext, "a.test"));
	hello[7] = 0x7f;
	assert_int_equal(capture_parse_name(hello, n, &p, name, sizeof(name)), CAPTURE_NO_NAME);
	/* not a ClientHello (type 2, ServerHello) */
	n = client_hello(hello, ext, sni_extension(ext, "a.test"));
	hello[5] = 2;
	assert_int_equal(capture_parse_name(hello, n, &p, name, sizeof(name)), CAPTURE_NO_NAME);
}

static enum capture_result http(const char *text, char *name)
{
	enum capture_protocol p = CAPTURE_UNKNOWN;
	enum capture_result r = capture_parse_name((const unsigned char *)text, strlen(text), &p,
						   name, 256);

	if (r == CAPTURE_OK)
		assert_int_equal(p, CAPTURE_HTTP);
	return r;
}

static void test_http_host(void **state)
{
	char name[256];

	(void)state;
	assert_int_equal(http("GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", name), CAPTURE_OK);
	assert_string_equal(name, "allowed.test");
	assert_int_equal(http("POST /x HTTP/1.1\r\nUser-Agent: a\r\nhOsT:\t a.test:8080 \r\n"
			      "Accept: */*\r\n\r\nbody",
			      name),
			 CAPTURE_OK);
	assert_string_equal(name, "a.test");
	assert_int_equal(http("GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", name), CAPTURE_OK);
	assert_string_equal(name, "[::1]");
	assert_int_equal(http("GET / HTTP/1.1\r\nHost: 10.0.0.1\r\n\r\n", name), CAPTURE_OK);
	assert_string_equal(name, "10.0.0.1");
}

static void test_http_without_one_host(void **state)
{
	char name[256];

	(void)state;
	assert_int_equal(http("GET / HTTP/1.1\r\nHost: a.test\r\n", name), CAPTURE_MORE);
	assert_int_equal(http("GE", name), CAPTURE_MORE);
	assert_int_equal(http("GET / HTTP/1.0\r\n\r\n", name), CAPTURE_NO_NAME);
	assert_int_equal(http("GET / HTTP/1.1\r\nX-Host: a.test\r\n\r\n", name), CAPTURE_NO_NAME);
	assert_int_equal(http("GET / HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n", name),
			 CAPTURE_BAD);
	assert_int_equal(http("GET / HTTP/1.1\r\nHost: \r\n\r\n", name), CAPTURE_BAD);
	assert_int_equal(http("GET / HTTP/1.1\r\nHost: [::1\r\n\r\n", name), CAPTURE_BAD);
}

static void test_other_protocols_have_no_name(void **state)
{
	char name[256];
	enum capture_protocol p;

	(void)state;
	assert_int_equal(http("SSH-2.0-OpenSSH_9.2\r\n", name), CAPTURE_NO_NAME);
	assert_int_equal(http("get / HTTP/1.1\r\nHost: a\r\n\r\n", name), CAPTURE_NO_NAME);
	assert_int_equal(capture_parse_name((const unsigned char *)"", 0, &p, name, sizeof(name)),
			 CAPTURE_MORE);
	assert_int_equal(capture_parse_name((const unsigned char *)"\x16\x02\x01\x00\x00", 5, &p,
					    name, sizeof(name)),
			 CAPTURE_NO_NAME);
}

/* "allowed.test" A, id 0xabcd, RD */
static const unsigned char query_a[] = { 0xab, 0xcd, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0,
					 7, 'A', 'l', 'l', 'o', 'w', 'e', 'd', 4, 't', 'e', 's',
					 't', 0, 0, 1, 0, 1 };

static void test_dns_question_and_reply(void **state)
{
	unsigned char out[128];
	char name[256];
	unsigned qtype = 0;
	size_t end = 0, n;
	static const unsigned char addr[4] = { 0xc6, 0x12, 0x00, 0x01 };
	static const unsigned char addr6[16] = { 0x20, 0x01, 0x00, 0x02, [15] = 1 };

	(void)state;
	assert_int_equal(capture_dns_question(query_a, sizeof(query_a), name, sizeof(name), &qtype,
					      &end), CAPTURE_OK);
	assert_string_equal(name, "allowed.test");
	assert_int_equal(qtype, 1);
	assert_int_equal(end, sizeof(query_a));
	n = capture_dns_reply(query_a, end, 0, addr, 4, out, sizeof(out));
	assert_int_equal(n, sizeof(query_a) + 16);
	assert_int_equal(out[0], 0xab);
	assert_int_equal(out[1], 0xcd);
	assert_int_equal(out[2], 0x85); /* QR, AA, RD */
	assert_int_equal(out[3], 0x80); /* RA, NOERROR */
	assert_int_equal(out[5], 1);    /* one question */
	assert_int_equal(out[7], 1);    /* one answer */
	assert_memory_equal(out + sizeof(query_a), "\xc0\x0c\x00\x01\x00\x01", 6);
	assert_memory_equal(out + n - 4, "\xc6\x12\x00\x01", 4);
	/* an AAAA record: type 28, 16 bytes of address */
	n = capture_dns_reply(query_a, end, 0, addr6, 16, out, sizeof(out));
	assert_int_equal(n, sizeof(query_a) + 12 + 16);
	assert_memory_equal(out + sizeof(query_a), "\xc0\x0c\x00\x1c\x00\x01", 6);
	assert_int_equal(out[sizeof(query_a) + 11], 16);
	assert_memory_equal(out + n - 16, addr6, 16);
	/* an address of another length is no record */
	assert_int_equal(capture_dns_reply(query_a, end, 0, addr, 8, out, sizeof(out)), 0);
	/* no record, REFUSED */
	n = capture_dns_reply(query_a, end, 5, NULL, 0, out, sizeof(out));
	assert_int_equal(n, sizeof(query_a));
	assert_int_equal(out[3], 0x85);
	assert_int_equal(out[7], 0);
	assert_int_equal(capture_dns_reply(query_a, end, 0, addr, 4, out, 20), 0);
}

static void test_dns_question_refused_shapes(void **state)
{
	unsigned char q[sizeof(query_a)];
	char name[256];
	unsigned qtype;
	size_t end;

	(void)state;
	memcpy(q, query_a, sizeof(q));
	q[2] = 0x80; /* a response, not a query */
	assert_int_equal(capture_dns_question(q, sizeof(q), name, sizeof(name), &qtype, &end),
			 CAPTURE_BAD);
	memcpy(q, query_a, sizeof(q));
	q[5] = 2; /* two questions */
	assert_int_equal(capture_dns_question(q, sizeof(q), name, sizeof(name), &qtype, &end),
			 CAPTURE_BAD);
	memcpy(q, query_a, sizeof(q));
	q[12] = 0xc0; /* a compression pointer */
	assert_int_equal(capture_dns_question(q, sizeof(q), name, sizeof(name), &qtype, &end),
			 CAPTURE_BAD);
	/* cut short, and a name longer than the room */
	assert_int_equal(capture_dns_question(query_a, sizeof(query_a) - 1, name, sizeof(name),
					      &qtype, &end), CAPTURE_BAD);
	assert_int_equal(capture_dns_question(query_a, sizeof(query_a), name, 8, &qtype, &end),
			 CAPTURE_BAD);
	/* a NUL or a dot inside a label: the text form would read another
	 * name (red team, round 5) */
	memcpy(q, query_a, sizeof(q));
	q[15] = '\0';
	assert_int_equal(capture_dns_question(q, sizeof(q), name, sizeof(name), &qtype, &end),
			 CAPTURE_BAD);
	q[15] = '.';
	assert_int_equal(capture_dns_question(q, sizeof(q), name, sizeof(name), &qtype, &end),
			 CAPTURE_BAD);
}

/* A NUL inside a Host: the name is not what the origin reads. */
static void test_http_host_with_a_nul(void **state)
{
	static const char text[] = "GET / HTTP/1.1\r\nHost: allowed.test\0other.test\r\n\r\n";
	enum capture_protocol p = CAPTURE_UNKNOWN;
	char name[256];

	(void)state;
	assert_int_equal(capture_parse_name((const unsigned char *)text, sizeof(text) - 1, &p, name,
					    sizeof(name)),
			 CAPTURE_BAD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_preamble_round_trip),
		cmocka_unit_test(test_preamble_wrong_secret),
		cmocka_unit_test(test_tls_sni),
		cmocka_unit_test(test_tls_without_sni),
		cmocka_unit_test(test_tls_lengths_lie),
		cmocka_unit_test(test_http_host),
		cmocka_unit_test(test_http_without_one_host),
		cmocka_unit_test(test_other_protocols_have_no_name),
		cmocka_unit_test(test_dns_question_and_reply),
		cmocka_unit_test(test_dns_question_refused_shapes),
		cmocka_unit_test(test_http_host_with_a_nul),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
