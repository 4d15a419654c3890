/*
 * The network allowlist's proxy (proxy.h; doc/SPEC.md 15).
 *
 * One process forked by the launcher before it restricts itself, so it
 * can reach the hosts the command may not; it then takes away its own
 * file access (Landlock with no file rule) and capabilities, and serves
 * one epoll loop until the launcher dies (PR_SET_PDEATHSIG) or kills it.
 *
 * A connection goes: HEAD (the request, at most HEAD_MAX bytes, within
 * HEAD_SECONDS) -> the allowlist check -> RESOLVE (the hosts files read at
 * start, else one DNS A query over UDP to the first IPv4 nameserver of
 * /etc/resolv.conf, within RESOLVE_SECONDS) -> the local-address check ->
 * CONNECT (non-blocking, within CONNECT_SECONDS) -> RELAY (both ways,
 * one bounded buffer each way, half-closes passed on). A refusal is
 * answered at once: HTTP 403 (body naming the host and the clause) or
 * SOCKS5 reply 0x02, and one "landlock-run: network: ..." line on stderr.
 *
 * Bounds: MAX_CONNS connections (more are accepted and closed at once),
 * three descriptors each at most, 2 * BUF_SIZE bytes each (128 KiB), allocated
 * when a connection is accepted.
 *
 * Limits (doc/SPEC.md 15): IPv4 destinations only (A records); no DNS
 * search domains; plain HTTP gets one request per connection
 * ("Connection: close"), so a second request cannot ride an upstream
 * connection made for another host.
 */
#include "proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "capabilities.h"
#include "channel.h"
#include "ruleset.h"

#define MAX_CONNS 256
#define BUF_SIZE (128U * 1024U)
#define HEAD_MAX (8U * 1024U)
#define HEAD_SECONDS 30
#define RESOLVE_SECONDS 5
#define CONNECT_SECONDS 30
#define MAX_HOSTS 1024
#define LISTEN_KEY UINT64_MAX
#define LIFELINE_KEY (UINT64_MAX - 1)

/* ---- pure parts ---------------------------------------------------------- */

enum host_verdict proxy_host_verdict(const struct proxy_config *config, const char *host)
{
	return host_pattern_decide(config->allow, config->n_allow, config->deny, config->n_deny,
				   host);
}

bool proxy_address_is_local(uint32_t addr)
{
	uint32_t a = ntohl(addr);

	return (a >> 24) == 0 || (a >> 24) == 127 || (a >> 24) == 10 ||
	       (a >> 20) == (172U << 4 | 1) || (a >> 16) == (192U << 8 | 168) ||
	       (a >> 16) == (169U << 8 | 254) || (a >> 22) == (100U << 2 | 1) ||
	       (a >> 28) >= 14; /* multicast 224/4, reserved 240/4, broadcast */
}

/* ---- the process's state ------------------------------------------------- */

enum state { ST_HEAD, ST_SOCKS_AUTH, ST_SOCKS_REQUEST, ST_RESOLVE, ST_CONNECT, ST_RELAY,
	     ST_CLOSING };
enum kind { KIND_UNKNOWN, KIND_CONNECT, KIND_HTTP, KIND_SOCKS };

struct conn {
	bool used;
	enum state state;
	enum kind kind;
	int client, upstream, dns;
	char host[256];
	unsigned port;
	uint32_t addr;
	uint16_t dns_id;
	unsigned char *up;   /* client -> upstream */
	size_t up_len;
	unsigned char *down; /* upstream -> client */
	size_t down_len;
	bool client_eof, upstream_eof, up_shut, down_shut;
	uint32_t client_events, upstream_events; /* as last armed: no needless epoll_ctl */
	time_t deadline;     /* 0: none */
};

struct host_entry {
	char name[256];
	uint32_t addr;
};

static const struct proxy_config *cfg;
static struct conn conns[MAX_CONNS];
static struct host_entry hosts[MAX_HOSTS];
static size_t n_hosts;
static uint32_t nameserver; /* network order; 0: none */
static int epfd = -1;
/* The base64 of "confine:<token>": what every HTTP request's
 * Proxy-Authorization: Basic carries. */
static char expected_basic[128];

static time_t now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

/* "ADDRESS NAME..." lines; IPv4 addresses only. */
static void load_hosts(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *save = NULL, *word, *hash = strchr(line, '#');
		struct in_addr a;

		if (hash != NULL)
			*hash = '\0';
		word = strtok_r(line, " \t\r\n", &save);
		if (word == NULL || inet_pton(AF_INET, word, &a) != 1)
			continue;
		while ((word = strtok_r(NULL, " \t\r\n", &save)) != NULL && n_hosts < MAX_HOSTS) {
			if (strlen(word) >= sizeof(hosts[0].name))
				continue;
			snprintf(hosts[n_hosts].name, sizeof(hosts[0].name), "%s", word);
			lower(hosts[n_hosts].name);
			hosts[n_hosts++].addr = a.s_addr;
		}
	}
	fclose(f);
}

static void load_resolv_conf(void)
{
	char line[512];
	FILE *f = fopen("/etc/resolv.conf", "re");

	if (f == NULL)
		return;
	while (nameserver == 0 && fgets(line, sizeof(line), f) != NULL) {
		char word[64], value[128];
		struct in_addr a;

		if (sscanf(line, "%63s %127s", word, value) == 2 &&
		    strcmp(word, "nameserver") == 0 && inet_pton(AF_INET, value, &a) == 1)
			nameserver = a.s_addr;
	}
	fclose(f);
}

/* The test map first (it stands in for names), then /etc/hosts. */
static bool lookup_hosts(const char *name, uint32_t *ret)
{
	size_t i;

	for (i = 0; i < n_hosts; i++)
		if (strcmp(hosts[i].name, name) == 0) {
			*ret = hosts[i].addr;
			return true;
		}
	return false;
}

/* ---- epoll bookkeeping --------------------------------------------------- */

static uint64_t key(size_t index, int which)
{
	return (uint64_t)index << 2 | (uint64_t)which;
}

static void watch(int fd, uint64_t k, uint32_t events, bool add)
{
	struct epoll_event ev = { .events = events, .data.u64 = k };

	if (fd >= 0)
		(void)epoll_ctl(epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

static void close_conn(struct conn *c)
{
	if (c->client >= 0)
		close(c->client);
	if (c->upstream >= 0)
		close(c->upstream);
	if (c->dns >= 0)
		close(c->dns);
	free(c->up);
	free(c->down);
	memset(c, 0, sizeof(*c));
	c->client = c->upstream = c->dns = -1;
}

/* The events each descriptor waits for, from the buffers and the state. */
static void rearm(struct conn *c)
{
	size_t i = (size_t)(c - conns);
	uint32_t ce = 0, ue = 0;

	if ((c->state == ST_HEAD || c->state == ST_SOCKS_AUTH || c->state == ST_SOCKS_REQUEST) &&
	    c->up_len < HEAD_MAX)
		ce |= EPOLLIN;
	if (c->state == ST_RELAY && !c->client_eof && c->up_len < BUF_SIZE)
		ce |= EPOLLIN;
	if (c->down_len > 0)
		ce |= EPOLLOUT;
	if (c->state == ST_CONNECT)
		ue |= EPOLLOUT;
	if (c->state == ST_RELAY) {
		if (!c->upstream_eof && c->down_len < BUF_SIZE)
			ue |= EPOLLIN;
		if (c->up_len > 0)
			ue |= EPOLLOUT;
	}
	if (ce != c->client_events) {
		watch(c->client, key(i, 0), ce, false);
		c->client_events = ce;
	}
	if (c->upstream >= 0 && ue != c->upstream_events) {
		watch(c->upstream, key(i, 1), ue, false);
		c->upstream_events = ue;
	}
}

/* ---- answers --------------------------------------------------------------- */

static void queue_down(struct conn *c, const void *bytes, size_t n)
{
	if (n > BUF_SIZE - c->down_len)
		n = BUF_SIZE - c->down_len;
	memcpy(c->down + c->down_len, bytes, n);
	c->down_len += n;
}

static void note(const char *what, const struct conn *c)
{
	report_line("network: %s %s:%u", what, c->host[0] ? c->host : "(no host)", c->port);
}

/* Ends the connection with an answer: an HTTP status with a body naming
 * the host and the clause, or a SOCKS5 reply code. */
static void refuse(struct conn *c, int http_status, unsigned char socks_code, const char *why)
{
	if (c->kind == KIND_SOCKS) {
		unsigned char reply[10] = { 5, socks_code, 0, 1, 0, 0, 0, 0, 0, 0 };

		queue_down(c, reply, sizeof(reply));
	} else {
		char body[700], head[256];
		int bn = snprintf(body, sizeof(body), "confine: %s\n", why);
		int hn;

		if (bn < 0)
			bn = 0;
		if ((size_t)bn >= sizeof(body))
			bn = (int)sizeof(body) - 1;
		hn = snprintf(head, sizeof(head),
			      "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
			      "Connection: close\r\n%sX-Confine-Clause: %s\r\n\r\n",
			      http_status,
			      http_status == 403 ? "Forbidden" : http_status == 400 ? "Bad Request"
			      : http_status == 407 ? "Proxy Authentication Required"
			      : http_status == 504 ? "Gateway Timeout" : "Bad Gateway", bn,
			      http_status == 407 ? "Proxy-Authenticate: Basic realm=\"confine\"\r\n"
						 : "",
			      strstr(why, "network.allowLocal") != NULL ? "network.allowLocal"
			      : strstr(why, "(clause network)") != NULL ? "network"
			      : strstr(why, "(clause network.deny)") != NULL ? "network.deny"
									    : "network.allow");
		if (hn > 0 && (size_t)hn < sizeof(head))
			queue_down(c, head, (size_t)hn);
		queue_down(c, body, (size_t)bn);
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
	c->deadline = now() + HEAD_SECONDS;
	rearm(c);
}

static void refuse_host(struct conn *c, enum host_verdict verdict)
{
	char why[600];

	if (verdict == HOST_VERDICT_DENIED) {
		snprintf(why, sizeof(why),
			 "host \"%s\" is refused by the network denylist (clause network.deny)",
			 c->host);
		note("refused (on network.deny)", c);
		refuse(c, 403, 0x02, why);
		return;
	}
	snprintf(why, sizeof(why),
		 "host \"%s\" is not on the network allowlist (clause network.allow): ask for it "
		 "to be allowed", c->host);
	note("refused (not on network.allow)", c);
	refuse(c, 403, 0x02, why);
}

/* An IP literal as the target. */
static void refuse_address(struct conn *c)
{
	if (cfg->off) {
		note("refused (network is off)", c);
		refuse(c, 403, 0, "network is off (clause network): no host is reachable from "
				  "this run; ask for the network, or this host, to be allowed");
		return;
	}
	note("refused (an address, not a name)", c);
	refuse(c, 403, 0, "an IP address is refused: the allowlist names hosts "
			  "(clause network.allow)");
}

/* ---- connecting ------------------------------------------------------------ */

static void start_connect(struct conn *c)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	size_t i = (size_t)(c - conns);
	char why[600], text[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &c->addr, text, sizeof(text));
	if (!cfg->allow_local && proxy_address_is_local(c->addr)) {
		snprintf(why, sizeof(why),
			 "host \"%s\" resolves to %s, a loopback, private or link-local address, "
			 "which the allowlist refuses (clause network.allowLocal)", c->host, text);
		note("refused (local address, network.allowLocal)", c);
		refuse(c, 403, 0x02, why);
		return;
	}
	sa.sin_addr.s_addr = c->addr;
	sa.sin_port = htons((uint16_t)c->port);
	c->upstream = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->upstream < 0 ||
	    (connect(c->upstream, (struct sockaddr *)&sa, sizeof(sa)) != 0 && errno != EINPROGRESS)) {
		snprintf(why, sizeof(why), "cannot connect to \"%s\" (%s) port %u: %s", c->host,
			 text, c->port, strerror(errno));
		refuse(c, 502, 0x05, why);
		return;
	}
	c->state = ST_CONNECT;
	c->deadline = now() + CONNECT_SECONDS;
	watch(c->upstream, key(i, 1), EPOLLOUT, true);
	c->upstream_events = EPOLLOUT;
	rearm(c);
}

static void connected(struct conn *c)
{
	int error = 0;
	socklen_t len = sizeof(error);
	char why[600];

	if (getsockopt(c->upstream, SOL_SOCKET, SO_ERROR, &error, &len) != 0)
		error = errno;
	if (error != 0) {
		snprintf(why, sizeof(why), "cannot connect to \"%s\" port %u: %s", c->host, c->port,
			 strerror(error));
		refuse(c, 502, 0x05, why);
		return;
	}
	if (c->kind == KIND_CONNECT) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

		queue_down(c, ok, sizeof(ok) - 1);
	} else if (c->kind == KIND_SOCKS) {
		unsigned char reply[10] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };

		queue_down(c, reply, sizeof(reply));
	}
	c->state = ST_RELAY;
	c->deadline = 0;
	rearm(c);
}

/* ---- resolving ----------------------------------------------------------- */

static void dns_query(struct conn *c)
{
	unsigned char q[300];
	size_t n = 12;
	const char *label = c->host;
	struct sockaddr_in ns = { .sin_family = AF_INET, .sin_port = htons(53) };
	size_t i = (size_t)(c - conns);
	char why[600];

	if (getrandom(&c->dns_id, sizeof(c->dns_id), 0) != (ssize_t)sizeof(c->dns_id))
		c->dns_id = (uint16_t)(now() ^ (time_t)i);
	memset(q, 0, 12);
	q[0] = (unsigned char)(c->dns_id >> 8);
	q[1] = (unsigned char)c->dns_id;
	q[2] = 0x01; /* recursion desired */
	q[5] = 1;    /* one question */
	while (*label != '\0') {
		const char *dot = strchr(label, '.');
		size_t len = dot != NULL ? (size_t)(dot - label) : strlen(label);

		if (len == 0 || len > 63 || n + len + 1 > sizeof(q) - 5)
			break;
		q[n++] = (unsigned char)len;
		memcpy(q + n, label, len);
		n += len;
		label += len + (dot != NULL ? 1 : 0);
	}
	q[n++] = 0;
	q[n++] = 0;
	q[n++] = 1; /* A */
	q[n++] = 0;
	q[n++] = 1; /* IN */
	ns.sin_addr.s_addr = nameserver;
	c->dns = nameserver == 0 ? -1 : socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->dns < 0 || connect(c->dns, (struct sockaddr *)&ns, sizeof(ns)) != 0 ||
	    send(c->dns, q, n, 0) != (ssize_t)n) {
		snprintf(why, sizeof(why), "cannot resolve \"%s\": no nameserver answers", c->host);
		refuse(c, 502, 0x04, why);
		return;
	}
	c->state = ST_RESOLVE;
	c->deadline = now() + RESOLVE_SECONDS;
	watch(c->dns, key(i, 2), EPOLLIN, true);
	rearm(c);
}

/* Skips a (possibly compressed) name; returns the offset after it, or 0. */
static size_t skip_name(const unsigned char *m, size_t n, size_t at)
{
	while (at < n) {
		if (m[at] == 0)
			return at + 1;
		if ((m[at] & 0xc0) == 0xc0)
			return at + 2 <= n ? at + 2 : 0;
		at += (size_t)m[at] + 1;
	}
	return 0;
}

static void dns_answer(struct conn *c)
{
	unsigned char m[1500];
	ssize_t got = recv(c->dns, m, sizeof(m), 0);
	size_t n, at, answers, k;
	char why[600];

	if (got < 12 || (((unsigned)m[0] << 8) | m[1]) != c->dns_id)
		return; /* not ours: keep waiting until the deadline */
	n = (size_t)got;
	answers = ((size_t)m[6] << 8) | m[7];
	at = skip_name(m, n, 12);
	at = at != 0 && at + 4 <= n ? at + 4 : 0;
	for (k = 0; at != 0 && k < answers; k++) {
		size_t rdlen;
		unsigned type;

		at = skip_name(m, n, at);
		if (at == 0 || at + 10 > n)
			break;
		type = ((unsigned)m[at] << 8) | m[at + 1];
		rdlen = ((size_t)m[at + 8] << 8) | m[at + 9];
		at += 10;
		if (at + rdlen > n)
			break;
		if (type == 1 && rdlen == 4) {
			memcpy(&c->addr, m + at, 4);
			close(c->dns);
			c->dns = -1;
			start_connect(c);
			return;
		}
		at += rdlen;
	}
	snprintf(why, sizeof(why), "cannot resolve \"%s\": no IPv4 address", c->host);
	refuse(c, 502, 0x04, why);
}

/* A checked name and port: the allowlist, then the address. */
static void go(struct conn *c)
{
	lower(c->host);
	if (c->host[0] != '\0' && c->host[strlen(c->host) - 1] == '.')
		c->host[strlen(c->host) - 1] = '\0';
	if (c->port == 0 || c->port > 65535) {
		refuse(c, 400, 0x01, "the port must be 1 to 65535");
		return;
	}
	if (cfg->off) {
		note("refused (network is off)", c);
		refuse(c, 403, 0x02, "network is off (clause network): no host is reachable from "
				     "this run; ask for the network, or this host, to be allowed");
		return;
	}
	if (proxy_host_verdict(cfg, c->host) != HOST_VERDICT_ALLOWED) {
		refuse_host(c, proxy_host_verdict(cfg, c->host));
		return;
	}
	if (lookup_hosts(c->host, &c->addr))
		start_connect(c);
	else
		dns_query(c);
}

/* ---- requests ------------------------------------------------------------ */

static bool is_ip_literal(const char *host)
{
	struct in_addr a;

	return host[0] == '[' || strchr(host, ':') != NULL || inet_pton(AF_INET, host, &a) == 1 ||
	       strspn(host, "0123456789.") == strlen(host);
}

int proxy_make_token(char *token)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[PROXY_TOKEN_LENGTH / 2];
	size_t i;

	if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
		return errno != 0 ? -errno : -EIO;
	for (i = 0; i < sizeof(raw); i++) {
		token[2 * i] = hex[raw[i] >> 4];
		token[2 * i + 1] = hex[raw[i] & 15];
	}
	token[PROXY_TOKEN_LENGTH] = '\0';
	return 0;
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
				ok |= proxy_secret_equal(v, vl, expected_basic);
			}
		}
		at += len + 1;
	}
	return ok;
}

/* "host[:port]" into c->host and c->port; false when malformed. */
static bool split_authority(struct conn *c, const char *auth, size_t len, unsigned default_port)
{
	const char *colon = memchr(auth, ':', len);
	size_t host_len = colon != NULL ? (size_t)(colon - auth) : len;

	if (auth[0] == '[') {
		/* an IPv6 literal: kept whole so it is refused as one */
		host_len = len < sizeof(c->host) ? len : sizeof(c->host) - 1;
		memcpy(c->host, auth, host_len);
		c->host[host_len] = '\0';
		c->port = default_port;
		return true;
	}
	if (host_len == 0 || host_len >= sizeof(c->host))
		return false;
	memcpy(c->host, auth, host_len);
	c->host[host_len] = '\0';
	c->port = default_port;
	if (colon != NULL) {
		char digits[8];
		size_t dl = len - host_len - 1;
		char *end;
		unsigned long p;

		if (dl == 0 || dl >= sizeof(digits))
			return false;
		memcpy(digits, colon + 1, dl);
		digits[dl] = '\0';
		if (strspn(digits, "0123456789") != dl)
			return false;
		p = strtoul(digits, &end, 10);
		if (p == 0 || p > 65535)
			return false;
		c->port = (unsigned)p;
	}
	return true;
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
static void http_request(struct conn *c, size_t end)
{
	char line[HEAD_MAX + 1];
	unsigned char *out;
	const char *eol = memchr(c->up, '\n', end);
	size_t line_len, rest = c->up_len - end, o = 0;
	char *method, *target, *version, *save = NULL;
	const char *path;
	size_t at;

	if (eol == NULL) {
		refuse(c, 400, 0, "a request line is needed");
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
		refuse(c, 400, 0, "not an HTTP/1 request");
		return;
	}
	/* Only the run's processes hold the credentials (doc/SPEC.md 15, "A
	 * proxy only the run can use"); nothing else is looked at before. No
	 * launcher line: a client that tries without them first (libcurl's
	 * CURLAUTH_ANY, as git sets it) retries with them on the 407. */
	if (!head_authorized(c, line_len + 1, end)) {
		refuse(c, 407, 0, "this proxy serves one confined run only: the request "
				  "carries no credentials of the run (its proxy variables hold "
				  "them)");
		return;
	}
	if (strcmp(method, "CONNECT") == 0) {
		c->kind = KIND_CONNECT;
		if (!split_authority(c, target, strlen(target), 0) || c->port == 0) {
			refuse(c, 400, 0, "CONNECT needs host:port");
			return;
		}
		if (is_ip_literal(c->host)) {
			refuse_address(c);
			return;
		}
		/* The bytes after the head (a TLS hello, say) go through. */
		memmove(c->up, c->up + end, rest);
		c->up_len = rest;
		go(c);
		return;
	}
	c->kind = KIND_HTTP;
	if (strncasecmp(target, "http://", 7) != 0) {
		refuse(c, 400, 0, "a proxy request needs an absolute http:// URI (https goes through "
				  "CONNECT)");
		return;
	}
	path = strchr(target + 7, '/');
	if (!split_authority(c, target + 7, path != NULL ? (size_t)(path - target - 7)
							 : strlen(target + 7), 80)) {
		refuse(c, 400, 0, "the URI's host is malformed");
		return;
	}
	if (is_ip_literal(c->host)) {
		refuse_address(c);
		return;
	}
	/* The head again, in origin form, without hop-by-hop headers and
	 * with Connection: close (one request per upstream connection). */
	out = malloc(BUF_SIZE);
	if (out == NULL) {
		refuse(c, 502, 0, "out of memory");
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
	go(c);
}

static void socks_step(struct conn *c)
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
			queue_down(c, none, 2);
			c->state = ST_CLOSING;
			rearm(c);
			return;
		}
		queue_down(c, password, 2);
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
		good &= proxy_secret_equal((const char *)b + 3 + ulen, plen, cfg->token);
		if (!good) {
			/* RFC 1929: a failure status, then the connection closes. */
			queue_down(c, failed, 2);
			c->state = ST_CLOSING;
			rearm(c);
			return;
		}
		queue_down(c, ok, 2);
		memmove(b, b + need, c->up_len - need);
		c->up_len -= need;
		c->state = ST_SOCKS_REQUEST;
	}
	if (c->up_len < 5)
		return;
	if (b[0] != 5) {
		refuse(c, 0, 0x01, "not SOCKS5");
		return;
	}
	if (b[1] != 1) {
		/* BIND and UDP ASSOCIATE: a way around the allowlist. */
		snprintf(c->host, sizeof(c->host), "(SOCKS command %u)", b[1]);
		note("refused (only SOCKS CONNECT)", c);
		refuse(c, 0, 0x07, "");
		return;
	}
	if (b[3] != 3) {
		/* An address, not a name. */
		snprintf(c->host, sizeof(c->host), "(an address)");
		note("refused (an address, not a name)", c);
		refuse(c, 0, 0x02, "");
		return;
	}
	{
		size_t name_len = b[4], need = 5 + name_len + 2;

		if (c->up_len < need)
			return;
		if (name_len == 0) {
			refuse(c, 0, 0x01, "");
			return;
		}
		memcpy(c->host, b + 5, name_len);
		c->host[name_len] = '\0';
		if (memchr(c->host, '\0', name_len) != NULL || is_ip_literal(c->host)) {
			note("refused (an address, not a name)", c);
			refuse(c, 0, 0x02, "");
			return;
		}
		c->port = ((unsigned)b[5 + name_len] << 8) | b[6 + name_len];
		memmove(b, b + need, c->up_len - need);
		c->up_len -= need;
		go(c);
	}
}

static void head_step(struct conn *c)
{
	const unsigned char *end;

	if (c->up_len == 0)
		return;
	if (c->kind == KIND_SOCKS || (c->kind == KIND_UNKNOWN && c->up[0] == 5)) {
		c->kind = KIND_SOCKS;
		socks_step(c);
		return;
	}
	end = memmem(c->up, c->up_len, "\r\n\r\n", 4);
	if (end != NULL) {
		http_request(c, (size_t)(end - c->up) + 4);
		return;
	}
	if (c->up_len >= HEAD_MAX)
		refuse(c, 400, 0, "the request head is longer than 8 KiB");
}

/* ---- the loop ------------------------------------------------------------ */

static void accept_one(int listener)
{
	int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	size_t i;

	if (fd < 0)
		return;
	for (i = 0; i < MAX_CONNS && conns[i].used; i++)
		;
	if (i == MAX_CONNS) {
		close(fd); /* bounded: a flood gets closed connections */
		return;
	}
	conns[i].up = malloc(BUF_SIZE);
	conns[i].down = malloc(BUF_SIZE);
	if (conns[i].up == NULL || conns[i].down == NULL) {
		free(conns[i].up);
		free(conns[i].down);
		conns[i].up = conns[i].down = NULL;
		close(fd);
		return;
	}
	conns[i].used = true;
	conns[i].client = fd;
	conns[i].state = ST_HEAD;
	conns[i].deadline = now() + HEAD_SECONDS;
	conns[i].client_events = EPOLLIN;
	watch(fd, key(i, 0), EPOLLIN, true);
}

/* Moves bytes from `from` into buf; returns false on an error. */
static bool fill(int from, unsigned char *buf, size_t *len, size_t cap, bool *eof)
{
	ssize_t n;

	if (*len >= cap)
		return true;
	n = recv(from, buf + *len, cap - *len, 0);
	if (n > 0)
		*len += (size_t)n;
	else if (n == 0)
		*eof = true;
	else if (errno != EAGAIN && errno != EINTR)
		return false;
	return true;
}

static bool drain(int to, unsigned char *buf, size_t *len)
{
	ssize_t n;

	if (*len == 0)
		return true;
	n = send(to, buf, *len, MSG_NOSIGNAL);
	if (n > 0) {
		memmove(buf, buf + n, *len - (size_t)n);
		*len -= (size_t)n;
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		return false;
	}
	return true;
}

static void on_event(struct conn *c, int which, uint32_t events)
{
	bool ok = true;

	if (which == 2) {
		dns_answer(c);
		return;
	}
	if (which == 1 && c->state == ST_CONNECT) {
		connected(c);
		return;
	}
	if (which == 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		if (c->state == ST_HEAD || c->state == ST_SOCKS_AUTH ||
		    c->state == ST_SOCKS_REQUEST) {
			ok = fill(c->client, c->up, &c->up_len, HEAD_MAX, &c->client_eof);
			if (ok && !c->client_eof)
				head_step(c);
			else
				ok = false;
		} else if (c->state == ST_RELAY) {
			ok = fill(c->client, c->up, &c->up_len, BUF_SIZE, &c->client_eof);
		} else if (c->state == ST_CLOSING && (events & (EPOLLHUP | EPOLLERR))) {
			ok = false;
		}
	}
	if (ok && c->used && which == 1 && c->state == ST_RELAY && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		ok = fill(c->upstream, c->down, &c->down_len, BUF_SIZE, &c->upstream_eof);
	if (!ok) {
		close_conn(c);
		return;
	}
	if (!c->used)
		return;
	/* Write what is buffered, whichever side woke. */
	if (c->down_len > 0 && !drain(c->client, c->down, &c->down_len)) {
		close_conn(c);
		return;
	}
	if (c->state == ST_RELAY && c->up_len > 0 && !drain(c->upstream, c->up, &c->up_len)) {
		close_conn(c);
		return;
	}
	if (c->state == ST_CLOSING && c->down_len == 0) {
		close_conn(c);
		return;
	}
	if (c->state == ST_RELAY) {
		if (c->client_eof && c->up_len == 0 && !c->up_shut) {
			shutdown(c->upstream, SHUT_WR);
			c->up_shut = true;
		}
		if (c->upstream_eof && c->down_len == 0 && !c->down_shut) {
			shutdown(c->client, SHUT_WR);
			c->down_shut = true;
		}
		if (c->up_shut && c->down_shut) {
			close_conn(c);
			return;
		}
	}
	rearm(c);
}

static void expire(void)
{
	time_t t = now();
	size_t i;

	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &conns[i];

		if (!c->used || c->deadline == 0 || c->deadline > t)
			continue;
		if (c->state == ST_RESOLVE || c->state == ST_CONNECT) {
			char why[600];

			snprintf(why, sizeof(why), "%s \"%s\" timed out",
				 c->state == ST_RESOLVE ? "resolving" : "connecting to", c->host);
			refuse(c, 504, 0x04, why);
		} else {
			close_conn(c);
		}
	}
}

static void serve(int listener, int lifeline) __attribute__((noreturn));

static void serve(int listener, int lifeline)
{
	struct epoll_event events[64];
	size_t i;

	for (i = 0; i < MAX_CONNS; i++) {
		memset(&conns[i], 0, sizeof(conns[i]));
		conns[i].client = conns[i].upstream = conns[i].dns = -1;
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		_exit(1);
	watch(listener, LISTEN_KEY, EPOLLIN, true);
	/* The launcher closes its end when the run ends (its Landlock domain
	 * scopes signals: it cannot kill this process). */
	watch(lifeline, LIFELINE_KEY, EPOLLIN, true);
	for (;;) {
		int n = epoll_wait(epfd, events, 64, 1000);
		int k;

		for (k = 0; k < n; k++) {
			uint64_t kk = events[k].data.u64;
			struct conn *c;

			if (kk == LIFELINE_KEY)
				_exit(0);
			if (kk == LISTEN_KEY) {
				accept_one(listener);
				continue;
			}
			c = &conns[kk >> 2];
			if (!c->used)
				continue;
			/* an event for a descriptor since replaced: ignore */
			if (((kk & 3) == 1 && c->upstream < 0) || ((kk & 3) == 2 && c->dns < 0))
				continue;
			on_event(c, (int)(kk & 3), events[k].events);
		}
		expire();
	}
}

/* ---- starting ------------------------------------------------------------ */

static void proxy_child(const struct proxy_config *config, int listener, int lifeline,
			pid_t parent) __attribute__((noreturn));

static void proxy_child(const struct proxy_config *config, int listener, int lifeline,
			pid_t parent)
{
	int abi;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent)
		_exit(1);
	/* Only the listener and stderr: never the status channel (its
	 * reader waits for every write end) nor the lifeline. */
	if (dup2(listener, 3) < 0 || dup2(lifeline, 4) < 0)
		_exit(1);
	(void)syscall(SYS_close_range, 5U, ~0U, 0U);
	(void)close(0);
	(void)close(1);
	signal(SIGPIPE, SIG_IGN);
	cfg = config;
	{
		char user_pass[sizeof(PROXY_USER) + PROXY_TOKEN_LENGTH + 1];
		int n = snprintf(user_pass, sizeof(user_pass), PROXY_USER ":%s", config->token);

		if (n <= 0 || (size_t)n >= sizeof(user_pass) ||
		    proxy_base64((const unsigned char *)user_pass, (size_t)n, expected_basic,
				 sizeof(expected_basic)) == 0)
			_exit(1);
	}
	load_hosts("/etc/hosts");
	if (config->hosts_file != NULL)
		load_hosts(config->hosts_file);
	load_resolv_conf();
	/* Nothing of the file system from here on, no capabilities. */
	abi = landlock_abi();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ||
	    (abi > 0 && landlock_deny_all_files(abi) < 0) || drop_capabilities() < 0) {
		report_line("network: the proxy cannot restrict itself: %s", strerror(errno));
		_exit(1);
	}
	serve(3, 4);
}

int proxy_start(const struct proxy_config *config, pid_t *ret_pid, int *ret_lifeline,
		unsigned *ret_port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	pid_t parent = getpid(), pid;
	int fd, life[2];

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 || listen(fd, 128) != 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	if (pipe2(life, O_CLOEXEC) != 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(fd);
		close(life[0]);
		close(life[1]);
		return -e;
	}
	if (pid == 0) {
		close(life[1]);
		proxy_child(config, fd, life[0], parent);
	}
	close(fd);
	close(life[0]);
	*ret_pid = pid;
	*ret_lifeline = life[1];
	*ret_port = ntohs(sa.sin_port);
	return 0;
}
