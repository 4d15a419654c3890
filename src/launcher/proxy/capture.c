/*
 * Transparent capture, the proxy's side (proxy-internal.h; doc/SPEC.md 15,
 * "Transparent capture").
 *
 * A command's direct TCP connect to an IPv4 or IPv6 address is made to this
 * proxy by the supervisor, which sends the preamble first (the run's
 * secret, the address and port the command asked for: capture-parse.h).
 * The command's own first bytes then name the host: a TLS ClientHello's
 * SNI, an HTTP/1 request's Host. That name goes the way every request's
 * does (proxy_go: the lists, the decider, the proxy's own resolution, the
 * local-address check) to the port the command asked for; the address it
 * asked for is never connected to (only the name's, as resolved here).
 * Once connected the bytes already read go on unchanged: TLS is never
 * intercepted, an HTTP request is not rewritten.
 *
 * Names inside the run: a captured connect to port 53 (any address: the
 * run's resolv.conf names the host's nameserver, and RES_OPTIONS=use-vc
 * makes glibc ask over TCP) is answered here, never forwarded: an A
 * question gets a placeholder address from 198.18.0.0/15 (RFC 2544's
 * benchmark range, routed nowhere) kept for that name for the run, an
 * AAAA question the same index in 2001:2::/48 (RFC 5180's benchmark
 * range), every other type no record. A captured connect to a
 * placeholder is then decided by its name at once (any protocol, server
 * first too); one no name was given is refused.
 *
 * Refused: no name (another protocol, a ClientHello without SNI, nothing
 * sent within HEAD_SECONDS), an IP literal as the name, a malformed head;
 * a refused TLS connection (its ClientHello read) gets a fatal alert,
 * access_denied, an HTTP one is answered 403 as a proxy request is, and
 * one of neither (or decided by its placeholder before any byte) is
 * closed with no byte: nothing it would read is known.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "capture-parse.h"
#include "launcher-protocol.h"
#include "proxy-internal.h"

#define PLACEHOLDER_BASE 0xc6120000U /* 198.18.0.0 */
#define PLACEHOLDER_MASK 0xfffe0000U /* /15 */
#define PLACEHOLDERS_MAX 1024
/* 2001:2::/48, the index in the last 32 bits, the bits between zero */
static const unsigned char placeholder6_prefix[12] = { 0x20, 0x01, 0x00, 0x02 };

static char placeholders[PLACEHOLDERS_MAX][254];
static size_t n_placeholders;

/* The placeholder index of name (from 1), given the first time it is
 * asked for; false when PLACEHOLDERS_MAX names have one. */
static bool placeholder_for(const char *name, uint32_t *index)
{
	size_t i;

	for (i = 0; i < n_placeholders && strcmp(placeholders[i], name) != 0; i++)
		;
	if (i == n_placeholders) {
		if (i == PLACEHOLDERS_MAX || strlen(name) >= sizeof(placeholders[i]))
			return false;
		memcpy(placeholders[i], name, strlen(name) + 1);
		n_placeholders++;
	}
	*index = 1U + (uint32_t)i;
	return true;
}

/* The offset of addr (16 bytes) in its placeholder range, or false when
 * it is in neither (198.18.0.0/15 v4-mapped, 2001:2::/48). */
static bool placeholder_offset(const unsigned char *addr, uint32_t *offset)
{
	uint32_t h;

	memcpy(&h, addr + 12, 4);
	h = ntohl(h);
	if (proxy_address_is_v4_mapped(addr)) {
		*offset = h - PLACEHOLDER_BASE;
		return (h & PLACEHOLDER_MASK) == PLACEHOLDER_BASE;
	}
	*offset = h;
	return memcmp(addr, placeholder6_prefix, 6) == 0;
}

static bool is_placeholder(const unsigned char *addr)
{
	uint32_t offset;

	return placeholder_offset(addr, &offset);
}

/* The name a placeholder stands for, or NULL (the 2001:2::/48 bits
 * between the prefix and the index must be zero). */
static const char *placeholder_name(const unsigned char *addr)
{
	uint32_t offset;

	if (!placeholder_offset(addr, &offset) || offset == 0 || offset - 1U >= n_placeholders ||
	    (!proxy_address_is_v4_mapped(addr) &&
	     memcmp(addr, placeholder6_prefix, sizeof(placeholder6_prefix)) != 0))
		return NULL;
	return placeholders[offset - 1U];
}

/* The record for a placeholder index: 4 bytes for A, 16 for AAAA. */
static size_t placeholder_record(unsigned qtype, uint32_t index, unsigned char *out)
{
	uint32_t v4 = htonl(PLACEHOLDER_BASE + index), low = htonl(index);

	if (qtype == CAPTURE_DNS_TYPE_A) {
		memcpy(out, &v4, 4);
		return 4;
	}
	memcpy(out, placeholder6_prefix, sizeof(placeholder6_prefix));
	memcpy(out + 12, &low, 4);
	return 16;
}

/* Answers every whole query in c->up (TCP: two length bytes each), while
 * the answer has room. A malformed one ends the connection. */
static void dns_step(struct conn *c)
{
	unsigned char reply[2 + 512];

	while (c->up_len >= 2 && BUF_SIZE - c->down_len >= sizeof(reply)) {
		size_t len = (size_t)c->up[0] << 8 | c->up[1], qend, n;
		char name[256];
		unsigned qtype, rcode = 0;
		unsigned char addr[16];
		uint32_t index;
		size_t addr_len = 0;
		bool answer = false;

		if (c->up_len < 2 + len) {
			c->kind = KIND_CAPTURE; /* a failure closes it with no byte */
			if (2 + len > HEAD_MAX)
				proxy_fail(c, 400, 0, "a DNS query longer than 8 KiB");
			else
				c->kind = KIND_CAPTURE_DNS;
			return;
		}
		if (capture_dns_question(c->up + 2, len, name, sizeof(name), &qtype, &qend) !=
		    CAPTURE_OK) {
			c->kind = KIND_CAPTURE;
			proxy_fail(c, 400, 0, "not a DNS query");
			return;
		}
		if (!launcher_host_name_valid(name, strlen(name)))
			rcode = 5; /* REFUSED */
		else if ((qtype == CAPTURE_DNS_TYPE_A || qtype == CAPTURE_DNS_TYPE_AAAA) &&
			 !(answer = placeholder_for(name, &index)))
			rcode = 2; /* SERVFAIL: no placeholder left */
		if (answer)
			addr_len = placeholder_record(qtype, index, addr);
		n = capture_dns_reply(c->up + 2, qend, rcode, answer ? addr : NULL, addr_len,
				      reply + 2, sizeof(reply) - 2);
		reply[0] = (unsigned char)(n >> 8);
		reply[1] = (unsigned char)n;
		proxy_queue_down(c, reply, n + 2);
		c->up_len -= 2 + len;
		memmove(c->up, c->up + 2 + len, c->up_len);
		c->deadline = proxy_now() + HEAD_SECONDS;
	}
}

/* No name to decide by: refused as an address is, naming the address the
 * command asked for. */
static void refuse_unnamed(struct conn *c, const char *what)
{
	struct proxy_refusal r = { .http_status = 403, .socks_code = 0x02,
				   .clause = "network.allow", .note = "a direct connect with no name",
				   .by = "allowlist" };

	proxy_address_text(c->addr, c->host, sizeof(c->host));
	snprintf(r.why, sizeof(r.why),
		 "a direct connect to %s port %u %s: the allowlist names hosts, and a "
		 "connection is decided by the name it sends (TLS SNI, HTTP Host) "
		 "(clause network.allow)",
		 c->host, c->port, what);
	proxy_refuse(c, &r);
}

void proxy_capture_step(struct conn *c)
{
	enum capture_protocol protocol;
	char name[sizeof(c->host)];
	uint16_t port;
	const char *known;

	if (c->kind == KIND_CAPTURE_DNS) {
		dns_step(c);
		return;
	}
	if (c->kind == KIND_UNKNOWN) {
		enum capture_result r =
		    capture_parse_preamble(c->up, c->up_len, proxy_cfg->token, c->addr, &port);

		if (r == CAPTURE_MORE)
			return;
		c->kind = KIND_CAPTURE;
		if (r != CAPTURE_OK) {
			/* Not the supervisor's: no answer, no record. */
			proxy_fail(c, 400, 0, "not a capture of the run");
			return;
		}
		c->port = ntohs(port);
		c->up_len -= CAPTURE_PREAMBLE_LENGTH;
		memmove(c->up, c->up + CAPTURE_PREAMBLE_LENGTH, c->up_len);
		if (c->port == 53) {
			c->kind = KIND_CAPTURE_DNS;
			dns_step(c);
			return;
		}
		if ((known = placeholder_name(c->addr)) != NULL) {
			memcpy(c->host, known, strlen(known) + 1);
			proxy_go(c);
			return;
		}
		if (is_placeholder(c->addr)) {
			refuse_unnamed(c, "is a placeholder no name was resolved to");
			return;
		}
		if (c->up_len == 0)
			return;
	}
	switch (capture_parse_name(c->up, c->up_len, &protocol, name, sizeof(name))) {
	case CAPTURE_MORE:
		if (c->up_len < HEAD_MAX)
			return;
		refuse_unnamed(c, "sent no name in its first 8 KiB");
		return;
	case CAPTURE_NO_NAME:
		if (protocol == CAPTURE_HTTP)
			c->kind = KIND_CAPTURE_HTTP;
		else if (protocol == CAPTURE_TLS)
			c->kind = KIND_CAPTURE_TLS;
		refuse_unnamed(c, protocol == CAPTURE_TLS    ? "sent a TLS ClientHello with no SNI"
				  : protocol == CAPTURE_HTTP ? "sent an HTTP request with no Host"
							     : "is neither TLS nor HTTP");
		return;
	case CAPTURE_BAD:
		if (protocol == CAPTURE_HTTP)
			c->kind = KIND_CAPTURE_HTTP;
		proxy_fail(c, 400, 0, "a malformed TLS ClientHello or HTTP head (or two Host headers)");
		return;
	case CAPTURE_OK:
		break;
	}
	if (protocol == CAPTURE_HTTP)
		c->kind = KIND_CAPTURE_HTTP;
	else if (protocol == CAPTURE_TLS)
		c->kind = KIND_CAPTURE_TLS;
	memcpy(c->host, name, sizeof(c->host));
	if (proxy_is_ip_literal(c->host)) {
		proxy_refuse_literal(c);
		return;
	}
	proxy_go(c);
}

void proxy_capture_expired(struct conn *c)
{
	refuse_unnamed(c, "sent nothing within 30 s");
}
