/*
 * What the proxy decides (decide.h; doc/SPEC.md 15). Pure.
 */
#include "decide.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

enum host_verdict proxy_host_verdict(const struct proxy_config *config, const char *host)
{
	return host_pattern_decide(config->allow, config->n_allow, config->deny, config->n_deny,
				   host);
}

static void set(struct proxy_refusal *r, int status, unsigned char socks, const char *clause,
		const char *note)
{
	r->http_status = status;
	r->socks_code = socks;
	r->clause = clause;
	r->note = note;
}

static const char off_why[] = "network is off (clause network): no host is reachable from "
			      "this run; ask for the network, or this host, to be allowed";

enum proxy_next proxy_decide_name(const struct proxy_config *config,
				  const struct proxy_answers *answers, const char *host,
				  unsigned port, struct proxy_refusal *refusal)
{
	enum host_verdict verdict;
	const struct proxy_answer *kept;

	memset(refusal, 0, sizeof(*refusal));
	if (config->off) {
		set(refusal, 403, 0x02, "network", "network is off");
		refusal->by = "off";
		snprintf(refusal->why, sizeof(refusal->why), "%s", off_why);
		return PROXY_NEXT_REFUSE;
	}
	verdict = proxy_host_verdict(config, host);
	refusal->by = verdict == HOST_VERDICT_DENIED ? "denylist" : "allowlist";
	if (verdict == HOST_VERDICT_ALLOWED)
		return PROXY_NEXT_RESOLVE;
	if (verdict == HOST_VERDICT_DENIED) {
		set(refusal, 403, 0x02, "network.deny", "on network.deny");
		snprintf(refusal->why, sizeof(refusal->why),
			 "host \"%s\" is refused by the network denylist (clause network.deny)",
			 host);
		return PROXY_NEXT_REFUSE;
	}
	/* On neither list: the decider's, when there is one. */
	kept = config->ask ? proxy_answers_find(answers, host, port) : NULL;
	if (config->ask)
		refusal->by = "decider";
	if (kept != NULL && kept->allow)
		return PROXY_NEXT_RESOLVE;
	if (kept != NULL) {
		proxy_decide_refused_by_decider(host, port, kept->reason, refusal);
		return PROXY_NEXT_REFUSE;
	}
	if (config->ask)
		return PROXY_NEXT_ASK;
	set(refusal, 403, 0x02, "network.allow", "not on network.allow");
	snprintf(refusal->why, sizeof(refusal->why),
		 "host \"%s\" is not on the network allowlist (clause network.allow): ask for it "
		 "to be allowed", host);
	return PROXY_NEXT_REFUSE;
}

void proxy_decide_literal(const struct proxy_config *config, struct proxy_refusal *refusal)
{
	memset(refusal, 0, sizeof(*refusal));
	if (config->off) {
		set(refusal, 403, 0x02, "network", "network is off");
		snprintf(refusal->why, sizeof(refusal->why), "%s", off_why);
		return;
	}
	set(refusal, 403, 0x02, "network.allow", "an address, not a name");
	snprintf(refusal->why, sizeof(refusal->why),
		 "an IP address is refused: the allowlist names hosts (clause network.allow)");
}

void proxy_decide_bad_name(const struct proxy_config *config, struct proxy_refusal *refusal)
{
	memset(refusal, 0, sizeof(*refusal));
	if (config->off) {
		set(refusal, 403, 0x02, "network", "network is off");
		snprintf(refusal->why, sizeof(refusal->why), "%s", off_why);
		return;
	}
	set(refusal, 400, 0x01, "network.allow", "not a host name");
	snprintf(refusal->why, sizeof(refusal->why),
		 "the host is not a DNS name (letters, digits and hyphens in dot-separated "
		 "labels, punycode for an international name) nor an IP address "
		 "(clause network.allow)");
}

void proxy_escape_host(const char *raw, size_t length, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (size < 8) {
		if (size > 0)
			out[0] = '\0';
		return;
	}
	out[o++] = '"';
	for (i = 0; i < length; i++) {
		unsigned char ch = (unsigned char)raw[i];

		if (o + 4 + 5 > size) {
			memcpy(out + o, "...", 3);
			o += 3;
			break;
		}
		if (ch > 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
			out[o++] = (char)ch;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[ch >> 4];
			out[o++] = hex[ch & 15];
		}
	}
	out[o++] = '"';
	out[o] = '\0';
}

bool proxy_decide_address(const struct proxy_config *config, const char *host,
			  const unsigned char *addr, struct proxy_refusal *refusal)
{
	char text[INET6_ADDRSTRLEN];
	bool range, own = false;
	size_t i;

	if (config->allow_local)
		return true;
	range = proxy_address6_is_local(addr);
	for (i = 0; i < config->n_own && !range && !own; i++)
		own = memcmp(config->own[i], addr, 16) == 0;
	if (!range && !own)
		return true;
	if (proxy_address_is_v4_mapped(addr))
		inet_ntop(AF_INET, addr + 12, text, sizeof(text));
	else
		inet_ntop(AF_INET6, addr, text, sizeof(text));
	memset(refusal, 0, sizeof(*refusal));
	set(refusal, 403, 0x02, "network.allowLocal", "local address, network.allowLocal");
	refusal->by = "allowLocal";
	snprintf(refusal->why, sizeof(refusal->why),
		 "host \"%s\" resolves to %s, %s, which the allowlist refuses (clause "
		 "network.allowLocal)", host, text,
		 range ? "a loopback, private or link-local address"
		       : "an address of this host's own interfaces");
	return false;
}

void proxy_decide_refused_by_decider(const char *host, unsigned port, const char *reason,
				     struct proxy_refusal *refusal)
{
	memset(refusal, 0, sizeof(*refusal));
	set(refusal, 403, 0x02, "network.ask", "by the decider");
	refusal->by = "decider";
	if (reason != NULL)
		snprintf(refusal->reason, sizeof(refusal->reason), "%s", reason);
	else
		snprintf(refusal->reason, sizeof(refusal->reason), "no answer within %d s",
			 PROXY_ASK_SECONDS);
	if (reason == NULL)
		snprintf(refusal->why, sizeof(refusal->why),
			 "host \"%s\" port %u is not on the network allowlist and the run's "
			 "decider did not answer within %d s (clause network.ask)", host, port,
			 PROXY_ASK_SECONDS);
	else
		snprintf(refusal->why, sizeof(refusal->why),
			 "host \"%s\" port %u was refused by the run's decider (clause "
			 "network.ask)%s%s", host, port, reason[0] != '\0' ? ": " : "", reason);
}

const struct proxy_answer *proxy_answers_find(const struct proxy_answers *answers,
					      const char *host, unsigned port)
{
	size_t i;

	for (i = 0; answers != NULL && i < answers->n; i++)
		if (answers->items[i].port == port && strcmp(answers->items[i].host, host) == 0)
			return &answers->items[i];
	return NULL;
}

bool proxy_answers_put(struct proxy_answers *answers, const char *host, unsigned port,
		       bool allow, const char *reason)
{
	struct proxy_answer *a;

	if (proxy_answers_find(answers, host, port) != NULL)
		return true;
	if (answers->n >= PROXY_ANSWERS_MAX || strlen(host) >= sizeof(a->host))
		return false;
	a = &answers->items[answers->n++];
	snprintf(a->host, sizeof(a->host), "%s", host);
	a->port = port;
	a->allow = allow;
	snprintf(a->reason, sizeof(a->reason), "%s", reason != NULL ? reason : "");
	return true;
}

bool proxy_address_is_local(uint32_t addr)
{
	uint32_t a = ntohl(addr);

	return (a >> 24) == 0 || (a >> 24) == 127 || (a >> 24) == 10 ||
	       (a >> 20) == (172U << 4 | 1) || (a >> 16) == (192U << 8 | 168) ||
	       (a >> 16) == (169U << 8 | 254) || (a >> 22) == (100U << 2 | 1) ||
	       (a >> 28) >= 14; /* multicast 224/4, reserved 240/4, broadcast */
	/* Not documentation (RFC 5737) nor benchmarking (198.18/15): networks
	 * use them as real addresses (this CI host's resolver answers
	 * 203.0.113.x for public names, its eth0 is 192.0.2.2), and refusing
	 * them refused every allowed host there (doc/SPEC.md 15). */
}

bool proxy_address_is_v4_mapped(const unsigned char *addr)
{
	static const unsigned char prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(addr, prefix, sizeof(prefix)) == 0;
}

static bool prefix_is(const unsigned char *addr, const unsigned char *prefix, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;

	return memcmp(addr, prefix, whole) == 0 &&
	       (rest == 0 || ((addr[whole] ^ prefix[whole]) & (0xff00U >> rest) & 0xff) == 0);
}

bool proxy_address6_is_local(const unsigned char *addr)
{
	static const unsigned char zero[16], nat64[12] = { 0, 0x64, 0xff, 0x9b },
				   nat64_local[12] = { 0, 0x64, 0xff, 0x9b, 0, 0x01 },
				   siit[12] = { [8] = 0xff, [9] = 0xff };
	static const struct {
		unsigned char prefix[16];
		unsigned bits;
	} local[] = {
		{ { 0xfc }, 7 },                   /* unique local */
		{ { 0xfe, 0x80 }, 10 },            /* link-local */
		{ { 0xfe, 0xc0 }, 10 },            /* site-local */
		{ { 0xff }, 8 },                   /* multicast */
		{ { 0x20, 0x01, 0x0d, 0xb8 }, 32 }, /* documentation */
		{ { 0x20, 0x01, 0x00, 0x02 }, 48 }, /* benchmarking: the placeholders */
		{ { 0x20, 0x01 }, 32 },            /* Teredo */
		{ { 0x01 }, 64 },                  /* discard */
	};
	uint32_t v4;
	size_t i;

	/* 64:ff9b:1::/48 (RFC 8215, local-use NAT64) is judged as
	 * 64:ff9b::/96 is when it is 64:ff9b:1::/96; any other prefix in it
	 * places the IPv4 address where this cannot know, so it is local. */
	if (prefix_is(addr, nat64_local, 48) && !prefix_is(addr, nat64_local, 96))
		return true;
	if (proxy_address_is_v4_mapped(addr) || prefix_is(addr, zero, 96) ||
	    prefix_is(addr, nat64, 96) || prefix_is(addr, nat64_local, 96) ||
	    prefix_is(addr, siit, 96)) {
		memcpy(&v4, addr + 12, 4);
		/* ::/96 holds :: and ::1 too: 0.0.0.0 and 0.0.0.1 are local */
		return proxy_address_is_local(v4);
	}
	if (addr[0] == 0x20 && addr[1] == 0x02) {
		memcpy(&v4, addr + 2, 4);
		return proxy_address_is_local(v4);
	}
	for (i = 0; i < sizeof(local) / sizeof(local[0]); i++)
		if (prefix_is(addr, local[i].prefix, local[i].bits))
			return true;
	return false;
}

bool proxy_is_ip_literal(const char *host)
{
	struct in_addr a;

	return host[0] == '[' || strchr(host, ':') != NULL || inet_pton(AF_INET, host, &a) == 1 ||
	       strspn(host, "0123456789.") == strlen(host) || host_is_ipv4_literal(host);
}

/* ":digits" (len bytes, after the host) into *port; false when malformed. */
static bool parse_port(const char *colon, size_t len, unsigned *port)
{
	unsigned long p = 0;
	size_t i;

	if (len < 2 || len > 6 || colon[0] != ':')
		return false;
	for (i = 1; i < len; i++) {
		if (colon[i] < '0' || colon[i] > '9')
			return false;
		p = p * 10 + (unsigned long)(colon[i] - '0');
	}
	if (p == 0 || p > 65535)
		return false;
	*port = (unsigned)p;
	return true;
}

bool proxy_split_authority(const char *auth, size_t len, unsigned default_port, char *host,
			   size_t host_size, unsigned *port)
{
	const char *colon = memchr(auth, ':', len);
	size_t host_len = colon != NULL ? (size_t)(colon - auth) : len;

	*port = default_port;
	if (len > 0 && auth[0] == '[') {
		/* "[v6]" or "[v6]:port": the literal whole, with its brackets
		 * (refused as one); unclosed, the whole of it */
		const char *close = memchr(auth, ']', len);

		host_len = close != NULL ? (size_t)(close - auth) + 1 : len;
		if (host_len < len && !parse_port(auth + host_len, len - host_len, port))
			return false;
		if (host_len >= host_size)
			host_len = host_size - 1;
		memcpy(host, auth, host_len);
		host[host_len] = '\0';
		return true;
	}
	if (host_len == 0 || host_len >= host_size)
		return false;
	memcpy(host, auth, host_len);
	host[host_len] = '\0';
	return colon == NULL || parse_port(colon, len - host_len, port);
}

bool proxy_secret_equal(const char *given, size_t given_len, const char *secret)
{
	size_t n = strlen(secret), i;
	unsigned char diff = given_len != n;

	/* Every byte of the secret is looked at, whatever differs first. */
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(secret[i] ^ (i < given_len ? given[i] : 0));
	return diff == 0;
}

size_t proxy_base64(const unsigned char *in, size_t in_len, char *out, size_t size)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t need = (in_len + 2) / 3 * 4, o = 0, i;

	if (need + 1 > size)
		return 0;
	for (i = 0; i < in_len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < in_len)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < in_len)
			v |= in[i + 2];
		out[o++] = alphabet[(v >> 18) & 63];
		out[o++] = alphabet[(v >> 12) & 63];
		out[o++] = i + 1 < in_len ? alphabet[(v >> 6) & 63] : '=';
		out[o++] = i + 2 < in_len ? alphabet[v & 63] : '=';
	}
	out[o] = '\0';
	return o;
}

const char *proxy_status_text(int http_status)
{
	switch (http_status) {
	case 403:
		return "Forbidden";
	case 400:
		return "Bad Request";
	case 407:
		return "Proxy Authentication Required";
	case 504:
		return "Gateway Timeout";
	default:
		return "Bad Gateway";
	}
}
