/*
 * The network allowlist's proxy (doc/SPEC.md 15, "Network allowlist"):
 * HTTP CONNECT (tunnelled, never intercepted), plain HTTP with an absolute
 * URI, and SOCKS5 CONNECT with a host name, for names on the allowlist
 * only. One process, one epoll loop, no thread per connection; bounded
 * connections, descriptors and buffers.
 */
#ifndef CONFINE_LAUNCHER_PROXY_H
#define CONFINE_LAUNCHER_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct proxy_config {
	const char *allow[256];
	size_t n_allow;
	const char *deny[256];
	size_t n_deny;
	bool allow_local;       /* loopback, private, link-local, CGNAT allowed */
	const char *hosts_file; /* extra "ADDRESS NAME..." lines (tests), or NULL */
};

/* Whether `host` matches `pattern` ("name" exactly, "*.suffix" any name
 * under the suffix), case-insensitively. Pure. */
bool proxy_pattern_match(const char *pattern, const char *host);

/* Whether the allowlist lets `host` through (an allow entry matches and no
 * deny entry does). Pure. */
bool proxy_host_allowed(const struct proxy_config *config, const char *host);

/* Whether an IPv4 address (network order) is loopback, private,
 * link-local, CGNAT, "this network", multicast or reserved. Pure. */
bool proxy_address_is_local(uint32_t addr);

/*
 * Listens on 127.0.0.1 (a port the kernel picks) and forks the proxy
 * process, which reads its resolver files, restricts itself (no file
 * access, no capabilities) and serves until its parent dies or closes
 * *ret_lifeline (a pipe's write end, close-on-exec). Call before the
 * launcher restricts itself. Returns 0 with the process, the lifeline and
 * the port (host order), or -errno.
 */
int proxy_start(const struct proxy_config *config, pid_t *ret_pid, int *ret_lifeline,
		unsigned *ret_port);

#endif
