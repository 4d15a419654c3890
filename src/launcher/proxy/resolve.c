/*
 * Names to addresses (proxy-internal.h): the hosts files read at start (a
 * test map first, then /etc/hosts; a name's IPv4 address first, else its
 * IPv6 one), else a DNS A query over UDP to the first IPv4 nameserver of
 * /etc/resolv.conf, and an AAAA one when it has no A record, each within
 * RESOLVE_SECONDS. No search domains (doc/SPEC.md 15, "Limits").
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy-internal.h"

#define MAX_HOSTS 1024

struct host_entry {
	char name[256];
	unsigned char addr[16]; /* IPv4 v4-mapped */
	bool v4;
};

static struct host_entry hosts[MAX_HOSTS];
static size_t n_hosts;
static uint32_t nameserver; /* network order; 0: none */

static void lower(char *s)
{
	for (; *s; s++)
		if (*s >= 'A' && *s <= 'Z')
			*s = (char)(*s - 'A' + 'a');
}

static void v4_mapped(const void *v4, unsigned char *out)
{
	memset(out, 0, 10);
	out[10] = out[11] = 0xff;
	memcpy(out + 12, v4, 4);
}

/* "ADDRESS NAME..." lines, IPv4 or IPv6 (no zone: "fe80::1%eth0" is
 * skipped). */
void proxy_load_hosts(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *save = NULL, *word, *hash = strchr(line, '#');
		unsigned char a[16];
		bool v4;

		if (hash != NULL)
			*hash = '\0';
		word = strtok_r(line, " \t\r\n", &save);
		if (word == NULL)
			continue;
		v4 = inet_pton(AF_INET, word, a + 12) == 1;
		if (v4)
			v4_mapped(a + 12, a);
		else if (inet_pton(AF_INET6, word, a) != 1)
			continue;
		while ((word = strtok_r(NULL, " \t\r\n", &save)) != NULL && n_hosts < MAX_HOSTS) {
			if (strlen(word) >= sizeof(hosts[0].name))
				continue;
			snprintf(hosts[n_hosts].name, sizeof(hosts[0].name), "%s", word);
			lower(hosts[n_hosts].name);
			memcpy(hosts[n_hosts].addr, a, 16);
			hosts[n_hosts++].v4 = v4;
		}
	}
	fclose(f);
}

void proxy_load_resolv_conf(void)
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
bool proxy_lookup_hosts(const char *name, unsigned char *ret)
{
	const struct host_entry *v6 = NULL;
	size_t i;

	for (i = 0; i < n_hosts; i++)
		if (strcmp(hosts[i].name, name) == 0) {
			if (!hosts[i].v4) {
				v6 = v6 != NULL ? v6 : &hosts[i];
				continue;
			}
			memcpy(ret, hosts[i].addr, 16);
			return true;
		}
	if (v6 != NULL)
		memcpy(ret, v6->addr, 16);
	return v6 != NULL;
}

socklen_t proxy_sockaddr(const unsigned char *addr, unsigned port, struct sockaddr_storage *out)
{
	struct sockaddr_in *in = (struct sockaddr_in *)out;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)out;

	memset(out, 0, sizeof(*out));
	if (proxy_address_is_v4_mapped(addr)) {
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
		memcpy(&in->sin_addr, addr + 12, 4);
		return sizeof(*in);
	}
	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons((uint16_t)port);
	memcpy(&in6->sin6_addr, addr, 16);
	return sizeof(*in6);
}

void proxy_address_text(const unsigned char *addr, char *out, size_t size)
{
	if (proxy_address_is_v4_mapped(addr))
		inet_ntop(AF_INET, addr + 12, out, (socklen_t)size);
	else
		inet_ntop(AF_INET6, addr, out, (socklen_t)size);
}

void proxy_dns_query(struct conn *c, unsigned qtype)
{
	unsigned char q[300];
	size_t n = 12;
	const char *label = c->host;
	struct sockaddr_in ns = { .sin_family = AF_INET, .sin_port = htons(53) };
	size_t i = (size_t)(c - proxy_conns);
	char why[600];

	if (getrandom(&c->dns_id, sizeof(c->dns_id), 0) != (ssize_t)sizeof(c->dns_id))
		c->dns_id = (uint16_t)(proxy_now() ^ (time_t)i);
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
	q[n++] = (unsigned char)qtype;
	q[n++] = 0;
	q[n++] = 1; /* IN */
	c->dns_qtype = qtype;
	ns.sin_addr.s_addr = nameserver;
	c->dns = nameserver == 0 ? -1 : socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->dns < 0 || connect(c->dns, (struct sockaddr *)&ns, sizeof(ns)) != 0 ||
	    send(c->dns, q, n, 0) != (ssize_t)n) {
		snprintf(why, sizeof(why), "cannot resolve \"%s\": no nameserver answers", c->host);
		proxy_fail(c, 502, 0x04, why);
		return;
	}
	c->state = ST_RESOLVE;
	c->deadline = proxy_now() + RESOLVE_SECONDS;
	proxy_watch(c->dns, proxy_key(i, 2), EPOLLIN, true);
	proxy_rearm(c);
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

void proxy_dns_answer(struct conn *c)
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
		if ((type == CAPTURE_DNS_TYPE_A && rdlen == 4) ||
		    (type == CAPTURE_DNS_TYPE_AAAA && rdlen == 16 && c->dns_qtype == type)) {
			if (rdlen == 4)
				v4_mapped(m + at, c->addr);
			else
				memcpy(c->addr, m + at, 16);
			close(c->dns);
			c->dns = -1;
			proxy_start_connect(c);
			return;
		}
		at += rdlen;
	}
	close(c->dns);
	c->dns = -1;
	if (c->dns_qtype == CAPTURE_DNS_TYPE_A) {
		proxy_dns_query(c, CAPTURE_DNS_TYPE_AAAA);
		return;
	}
	snprintf(why, sizeof(why), "cannot resolve \"%s\": no IPv4 nor IPv6 address", c->host);
	proxy_fail(c, 502, 0x04, why);
}
