/*
 * SOCKS5 (proxy-internal.h; doc/SPEC.md 15): username/password (RFC 1929)
 * with the run's secret, never "no authentication"; CONNECT by name only
 * (an address, BIND and UDP ASSOCIATE are refused).
 */
#include <stdio.h>
#include <string.h>

#include "proxy-internal.h"

void proxy_socks_step(struct conn *c)
{
	unsigned char *b = c->up;

	if (c->state == ST_HEAD) {
		size_t need;
		static const unsigned char password[2] = { 5, 2 }, none[2] = { 5, 0xff };

		if (c->up_len < 2)
			return;
		need = 2 + (size_t)b[1];
		if (c->up_len < need)
			return;
		/* Username/password (RFC 1929) or nothing: "no authentication"
		 * is never accepted. */
		if (memchr(b + 2, 2, b[1]) == NULL) {
			proxy_queue_down(c, none, 2);
			c->state = ST_CLOSING;
			proxy_rearm(c);
			return;
		}
		proxy_queue_down(c, password, 2);
		memmove(b, b + need, c->up_len - need);
		c->up_len -= need;
		c->state = ST_SOCKS_AUTH;
	}
	if (c->state == ST_SOCKS_AUTH) {
		static const unsigned char ok[2] = { 1, 0 }, failed[2] = { 1, 1 };
		size_t ulen, plen, need;
		bool good;

		if (c->up_len < 2)
			return;
		ulen = b[1];
		if (c->up_len < 2 + ulen + 1)
			return;
		plen = b[2 + ulen];
		need = 3 + ulen + plen;
		if (c->up_len < need)
			return;
		good = b[0] == 1 && ulen == sizeof(PROXY_USER) - 1 &&
		       memcmp(b + 2, PROXY_USER, ulen) == 0;
		good &= proxy_secret_equal((const char *)b + 3 + ulen, plen, proxy_cfg->token);
		if (!good) {
			/* RFC 1929: a failure status, then the connection closes. */
			proxy_queue_down(c, failed, 2);
			c->state = ST_CLOSING;
			proxy_rearm(c);
			return;
		}
		proxy_queue_down(c, ok, 2);
		memmove(b, b + need, c->up_len - need);
		c->up_len -= need;
		c->state = ST_SOCKS_REQUEST;
	}
	if (c->up_len < 5)
		return;
	if (b[0] != 5) {
		proxy_fail(c, 0, 0x01, "not SOCKS5");
		return;
	}
	if (b[1] != 1) {
		/* BIND and UDP ASSOCIATE: a way around the allowlist. */
		snprintf(c->host, sizeof(c->host), "(SOCKS command %u)", b[1]);
		proxy_refuse_socks_command(c);
		return;
	}
	if (b[3] != 3) {
		/* An address, not a name. */
		snprintf(c->host, sizeof(c->host), "(an address)");
		proxy_refuse_literal(c);
		return;
	}
	{
		size_t name_len = b[4], need = 5 + name_len + 2;

		if (c->up_len < need)
			return;
		if (name_len == 0) {
			proxy_fail(c, 0, 0x01, "");
			return;
		}
		memcpy(c->host, b + 5, name_len);
		c->host[name_len] = '\0';
		if (memchr(c->host, '\0', name_len) != NULL) {
			proxy_refuse_bad_name(c, name_len);
			return;
		}
		if (proxy_is_ip_literal(c->host)) {
			proxy_refuse_literal(c);
			return;
		}
		c->port = ((unsigned)b[5 + name_len] << 8) | b[6 + name_len];
		memmove(b, b + need, c->up_len - need);
		c->up_len -= need;
		proxy_go(c);
	}
}
