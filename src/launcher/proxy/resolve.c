/*
 * Names to addresses (proxy-internal.h): the hosts files read at start (a
 * test map first, then /etc/hosts), else one DNS A query over UDP to the
 * first IPv4 nameserver of /etc/resolv.conf, within RESOLVE_SECONDS. No
 * search domains; IPv4 only (doc/SPEC.md 15, "Limits").
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
	uint32_t addr;
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

/* "ADDRESS NAME..." lines; IPv4 addresses only. */
void proxy_load_hosts(const char *path)
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
bool proxy_lookup_hosts(const char *name, uint32_t *ret)
{
	size_t i;

	for (i = 0; i < n_hosts; i++)
		if (strcmp(hosts[i].name, name) == 0) {
			*ret = hosts[i].addr;
			return true;
		}
	return false;
}

void proxy_dns_query(struct conn *c)
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
	q[n++] = 1; /* A */
	q[n++] = 0;
	q[n++] = 1; /* IN */
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
		if (type == 1 && rdlen == 4) {
			memcpy(&c->addr, m + at, 4);
			close(c->dns);
			c->dns = -1;
			proxy_start_connect(c);
			return;
		}
		at += rdlen;
	}
	snprintf(why, sizeof(why), "cannot resolve \"%s\": no IPv4 address", c->host);
	proxy_fail(c, 502, 0x04, why);
}
