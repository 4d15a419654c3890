/*
 * The proxy's answers (proxy-internal.h; doc/SPEC.md 15, "Network
 * allowlist"): a refusal is answered at once, HTTP 403 (the body naming
 * the host and the clause, X-Confine-Clause naming the clause), a SOCKS5
 * reply, or a captured TLS connection's alert access_denied, with one "landlock-run: network: ..." line on stderr and a
 * `refused` record on the status channel; then the connection closes once
 * the answer is written.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ask.h"
#include "channel.h"
#include "proxy-internal.h"

void proxy_queue_down(struct conn *c, const void *bytes, size_t n)
{
	if (n > BUF_SIZE - c->down_len)
		n = BUF_SIZE - c->down_len;
	memcpy(c->down + c->down_len, bytes, n);
	c->down_len += n;
}

/* The answer, the connection then closes once it is written. */
static void answer_and_close(struct conn *c, int http_status, unsigned char socks_code,
			     const char *clause, const char *why)
{
	if (c->kind == KIND_SOCKS) {
		unsigned char reply[10] = { 5, socks_code, 0, 1, 0, 0, 0, 0, 0, 0 };

		proxy_queue_down(c, reply, sizeof(reply));
	} else if (c->kind == KIND_CAPTURE_TLS) {
		/* A TLS client refused by a clause reads a fatal alert,
		 * access_denied (RFC 8446 6.2), where a reset said nothing. */
		static const unsigned char alert[7] = { 0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 49 };

		if (clause != NULL)
			proxy_queue_down(c, alert, sizeof(alert));
	} else if (c->kind != KIND_CAPTURE) {
		char body[800], head[320];
		int bn = snprintf(body, sizeof(body), "confine: %s\n", why);
		int hn;

		if (bn < 0)
			bn = 0;
		if ((size_t)bn >= sizeof(body))
			bn = (int)sizeof(body) - 1;
		hn = snprintf(head, sizeof(head),
			      "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
			      "Connection: close\r\n%s%s%s%s\r\n",
			      http_status, proxy_status_text(http_status), bn,
			      http_status == 407 ? "Proxy-Authenticate: Basic realm=\"confine\"\r\n"
						 : "",
			      clause != NULL ? "X-Confine-Clause: " : "", clause != NULL ? clause : "",
			      clause != NULL ? "\r\n" : "");
		if (hn > 0 && (size_t)hn < sizeof(head))
			proxy_queue_down(c, head, (size_t)hn);
		proxy_queue_down(c, body, (size_t)bn);
	}
	if (c->upstream >= 0) {
		close(c->upstream);
		c->upstream = -1;
	}
	if (c->dns >= 0) {
		close(c->dns);
		c->dns = -1;
	}
	c->state = ST_CLOSING;
	c->deadline = proxy_now() + HEAD_SECONDS;
	proxy_rearm(c);
}

void proxy_refuse(struct conn *c, const struct proxy_refusal *refusal)
{
	const char *host = c->host[0] ? c->host : "(no host)";

	report_line(LAUNCHER_NETWORK_REFUSED "%s) %s:%u", refusal->note, host, c->port);
	if (refusal->clause != NULL)
		record_refused(refusal->clause, host, c->port, refusal->reason);
	answer_and_close(c, refusal->http_status, refusal->socks_code, refusal->clause,
			 refusal->why);
}

void proxy_fail(struct conn *c, int http_status, unsigned char socks_code, const char *why)
{
	proxy_record_allowed(c); /* allowed, then not resolved or not reached */
	answer_and_close(c, http_status, socks_code, NULL, why);
}

void proxy_refuse_literal(struct conn *c)
{
	struct proxy_refusal r;

	proxy_decide_literal(proxy_cfg, &r);
	proxy_refuse(c, &r);
}

void proxy_refuse_bad_name(struct conn *c, size_t length)
{
	struct proxy_refusal r;
	char word[sizeof(c->host)], brief[PROXY_REASON_MAX - 40];

	/* The raw bytes never reach a line: the escaped word stands for them. */
	proxy_escape_host(c->host, length, word, sizeof(word));
	proxy_escape_host(c->host, length, brief, sizeof(brief));
	memcpy(c->host, word, sizeof(word));
	proxy_decide_bad_name(proxy_cfg, &r);
	snprintf(r.reason, sizeof(r.reason), "%s is not a DNS name nor an IP address", brief);
	proxy_refuse(c, &r);
}

void proxy_refuse_socks_command(struct conn *c)
{
	struct proxy_refusal r = { .http_status = 403, .socks_code = 0x07,
				   .clause = "network.allow", .note = "only SOCKS CONNECT" };

	snprintf(r.why, sizeof(r.why), "only SOCKS CONNECT is served (clause network.allow)");
	proxy_refuse(c, &r);
}
