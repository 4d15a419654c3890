/*
 * Transparent capture, the proxy's side (proxy-internal.h; doc/SPEC.md 15,
 * "Transparent capture").
 *
 * A command's direct TCP connect to an IPv4 address is made to this
 * proxy by the supervisor, which sends the preamble first (the run's
 * secret, the address and port the command asked for: capture-parse.h).
 * The command's own first bytes then name the host: a TLS ClientHello's
 * SNI, an HTTP/1 request's Host. That name goes the way every request's
 * does (proxy_go: the lists, the decider, the proxy's own resolution, the
 * local-address check) to the port the command asked for; the address it
 * asked for is never connected to (only the name's, as resolved here).
 * Once connected the bytes already read go on unchanged: TLS is never
 * intercepted, an HTTP request is not rewritten.
 * Refused: no name (another protocol, a ClientHello without SNI, nothing
 * sent within HEAD_SECONDS), an IP literal as the name, a malformed head;
 * a refused TLS or unknown connection is closed with no byte (a 403 would
 * be noise to it), an HTTP one answered 403 as a proxy request is.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "capture-parse.h"
#include "proxy-internal.h"

/* No name to decide by: refused as an address is, naming the address the
 * command asked for. */
static void refuse_unnamed(struct conn *c, const char *what)
{
	struct proxy_refusal r = { .http_status = 403, .socks_code = 0x02,
				   .clause = "network.allow", .note = "a direct connect with no name",
				   .by = "allowlist" };

	inet_ntop(AF_INET, &c->addr, c->host, sizeof(c->host));
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

	if (c->kind == KIND_UNKNOWN) {
		enum capture_result r =
		    capture_parse_preamble(c->up, c->up_len, proxy_cfg->token, &c->addr, &port);

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
