/*
 * The host's own addresses (proxy.h; doc/SPEC.md 15, "Network allowlist").
 *
 * A name allowed by the list that resolves to an address of one of the
 * host's interfaces (eth0's public IPv4, a global IPv6 address) reaches
 * what listens on 0.0.0.0 or :: there: the host's own services, as
 * loopback would. The ranges in decide.c cannot know those addresses, so
 * the launcher reads them once, before the proxy starts, and decide.c
 * treats each as local (red team R5-F5).
 */
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "proxy.h"

int proxy_own_addresses(struct proxy_config *config)
{
	struct ifaddrs *list = NULL, *it;
	size_t n = 0, k;
	int r = 0;

	if (getifaddrs(&list) != 0)
		return errno != 0 ? -errno : -EIO;
	for (it = list; it != NULL; it = it->ifa_next) {
		unsigned char addr[16] = { 0 };

		if (it->ifa_addr == NULL)
			continue;
		if (it->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *in = (const struct sockaddr_in *)it->ifa_addr;

			addr[10] = addr[11] = 0xff;
			memcpy(addr + 12, &in->sin_addr, 4);
		} else if (it->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)it->ifa_addr;

			memcpy(addr, &in6->sin6_addr, 16);
		} else {
			continue; /* AF_PACKET and the like: no address to connect to */
		}
		for (k = 0; k < n && memcmp(config->own[k], addr, 16) != 0; k++)
			;
		if (k < n)
			continue;
		if (n == PROXY_OWN_MAX) {
			r = -E2BIG;
			break;
		}
		memcpy(config->own[n++], addr, 16);
	}
	freeifaddrs(list);
	config->n_own = r == 0 ? n : 0;
	return r;
}
