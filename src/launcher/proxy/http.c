/*
 * HTTP requests (proxy-internal.h; doc/SPEC.md 15): CONNECT host:port
 * (tunnelled, never intercepted) and plain HTTP with an absolute http://
 * URI, rewritten to origin form with one request per upstream connection
 * ("Connection: close"), so a second request cannot ride an upstream
 * connection made for another host. Every request carries the run's
 * credentials (Proxy-Authorization: Basic), else 407.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "proxy-internal.h"

/* Whether the request head (the header lines from `at` to `end`) carries
 * the run's credentials: "Proxy-Authorization: Basic <base64 of
 * confine:token>", the scheme name in any case. */
static bool head_authorized(const struct conn *c, size_t at, size_t end)
{
	static const char name[] = "proxy-authorization:";
	bool ok = false;

	while (at < end) {
		const unsigned char *nl = memchr(c->up + at, '\n', end - at);
		size_t len = nl != NULL ? (size_t)(nl - (c->up + at)) : end - at;
		const char *v = (const char *)c->up + at;
		size_t vl = len > 0 && v[len - 1] == '\r' ? len - 1 : len;

		if (vl >= sizeof(name) - 1 && strncasecmp(v, name, sizeof(name) - 1) == 0) {
			v += sizeof(name) - 1;
			vl -= sizeof(name) - 1;
			while (vl > 0 && (*v == ' ' || *v == '\t')) {
				v++;
				vl--;
			}
			while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
				vl--;
			if (vl > 6 && strncasecmp(v, "basic ", 6) == 0) {
				v += 6;
				vl -= 6;
				while (vl > 0 && *v == ' ') {
					v++;
					vl--;
				}
				/* one matching header suffices; the others are not
				 * looked at for their own sake */
				ok |= proxy_secret_equal(v, vl, proxy_expected_basic);
			}
		}
		at += len + 1;
	}
	return ok;
}


/* Whether a header line (without CRLF) is one the proxy drops. */
static bool hop_by_hop(const char *line, size_t len)
{
	static const char *const names[] = { "connection:", "proxy-connection:", "keep-alive:",
					     "proxy-authorization:" };
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t nl = strlen(names[i]);

		if (len >= nl && strncasecmp(line, names[i], nl) == 0)
			return true;
	}
	return false;
}

/* An HTTP request head is complete in c->up (end = after "\r\n\r\n"). */
void proxy_http_request(struct conn *c, size_t end)
{
	char line[HEAD_MAX + 1];
	unsigned char *out;
	const char *eol = memchr(c->up, '\n', end);
	size_t line_len, rest = c->up_len - end, o = 0;
	char *method, *target, *version, *save = NULL;
	const char *path;
	size_t at;

	if (eol == NULL) {
		proxy_fail(c, 400, 0, "a request line is needed");
		return;
	}
	line_len = (size_t)(eol - (const char *)c->up);
	memcpy(line, c->up, line_len);
	line[line_len] = '\0';
	if (line_len > 0 && line[line_len - 1] == '\r')
		line[line_len - 1] = '\0';
	method = strtok_r(line, " ", &save);
	target = strtok_r(NULL, " ", &save);
	version = strtok_r(NULL, " ", &save);
	if (method == NULL || target == NULL || version == NULL ||
	    strncmp(version, "HTTP/1.", 7) != 0) {
		proxy_fail(c, 400, 0, "not an HTTP/1 request");
		return;
	}
	/* Only the run's processes hold the credentials (doc/SPEC.md 15, "A
	 * proxy only the run can use"); nothing else is looked at before. No
	 * launcher line: a client that tries without them first (libcurl's
	 * CURLAUTH_ANY, as git sets it) retries with them on the 407. */
	if (!head_authorized(c, line_len + 1, end)) {
		proxy_fail(c, 407, 0, "this proxy serves one confined run only: the request "
				  "carries no credentials of the run (its proxy variables hold "
				  "them)");
		return;
	}
	if (strcmp(method, "CONNECT") == 0) {
		c->kind = KIND_CONNECT;
		if (!proxy_split_authority(target, strlen(target), 0, c->host,
				   sizeof(c->host), &c->port) || c->port == 0) {
			proxy_fail(c, 400, 0, "CONNECT needs host:port");
			return;
		}
		if (proxy_is_ip_literal(c->host)) {
			proxy_refuse_literal(c);
			return;
		}
		/* The bytes after the head (a TLS hello, say) go through. */
		memmove(c->up, c->up + end, rest);
		c->up_len = rest;
		proxy_go(c);
		return;
	}
	c->kind = KIND_HTTP;
	if (strncasecmp(target, "http://", 7) != 0) {
		proxy_fail(c, 400, 0, "a proxy request needs an absolute http:// URI (https goes through "
				  "CONNECT)");
		return;
	}
	path = strchr(target + 7, '/');
	if (!proxy_split_authority(target + 7, path != NULL ? (size_t)(path - target - 7)
							 : strlen(target + 7), 80, c->host,
				   sizeof(c->host), &c->port)) {
		proxy_fail(c, 400, 0, "the URI's host is malformed");
		return;
	}
	if (proxy_is_ip_literal(c->host)) {
		proxy_refuse_literal(c);
		return;
	}
	/* The head again, in origin form, without hop-by-hop headers and
	 * with Connection: close (one request per upstream connection). */
	out = malloc(BUF_SIZE);
	if (out == NULL) {
		proxy_fail(c, 502, 0, "out of memory");
		return;
	}
	{
		int w = snprintf((char *)out, HEAD_MAX, "%s %s %s\r\n", method,
				 path != NULL ? path : "/", version);

		o = w < 0 ? 0 : (size_t)w < HEAD_MAX ? (size_t)w : HEAD_MAX - 1;
	}
	at = line_len + 1;
	while (at < end) {
		const unsigned char *nl = memchr(c->up + at, '\n', end - at);
		size_t len = nl != NULL ? (size_t)(nl - (c->up + at)) : end - at;
		size_t bare = len > 0 && c->up[at + len - 1] == '\r' ? len - 1 : len;

		if (bare == 0)
			break; /* the blank line */
		if (!hop_by_hop((const char *)c->up + at, bare) && o + bare + 2 < HEAD_MAX + 64) {
			memcpy(out + o, c->up + at, bare);
			o += bare;
			out[o++] = '\r';
			out[o++] = '\n';
		}
		at += len + 1;
	}
	memcpy(out + o, "Connection: close\r\n\r\n", 21);
	o += 21;
	if (rest > BUF_SIZE - o)
		rest = BUF_SIZE - o; /* cannot happen: the head ended within HEAD_MAX */
	memcpy(out + o, c->up + end, rest);
	free(c->up);
	c->up = out;
	c->up_len = o + rest;
	proxy_go(c);
}
