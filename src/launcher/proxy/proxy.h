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

#include "host-pattern.h"
#include "launcher-args.h"

/* The host's own interface addresses the proxy keeps (own.c): a host with
 * more is refused, the proxy does not start (never a list cut short). */
#define PROXY_OWN_MAX 256

struct proxy_config {
	const char *allow[LAUNCHER_PROXY_HOSTS_MAX];
	size_t n_allow;
	const char *deny[LAUNCHER_PROXY_HOSTS_MAX];
	size_t n_deny;
	bool allow_local;       /* loopback, private, link-local, CGNAT allowed */
	const char *hosts_file; /* extra "ADDRESS NAME..." lines (tests), or NULL */
	/* The run's secret (PROXY_TOKEN_LENGTH hex digits): every request
	 * must carry the user PROXY_USER with it as the password (HTTP
	 * Proxy-Authorization: Basic; SOCKS5 RFC 1929), else 407 or the
	 * SOCKS refusal. */
	const char *token;
	/* The network is off: every request is answered 403 "network is
	 * off" (clause network), nothing is resolved or connected. */
	bool off;
	/* A decider answers for names on neither list (doc/SPEC.md 15,
	 * "Ask"): the proxy asks on ask_fd (a socket, ask.h's records) and
	 * holds the request until the answer, at most PROXY_ASK_SECONDS. */
	bool ask;
	/* The status channel (or -1): every refusal and every decision goes
	 * on the record there (launcher-protocol.h). */
	int status_fd;
	int ask_fd;
	/* The host's own addresses (every interface's, read at start by
	 * proxy_own_addresses; 16 bytes each, IPv4 v4-mapped): local, as
	 * loopback is, whatever their range (doc/SPEC.md 15). */
	unsigned char own[PROXY_OWN_MAX][16];
	size_t n_own;
};

#define PROXY_USER "confine"
#define PROXY_TOKEN_LENGTH 32
/* How long a request waits for the decider's answer; then it is refused
 * (clause network.ask) and the name asked again by the next request. */
#define PROXY_ASK_SECONDS 30

/* Fills token (PROXY_TOKEN_LENGTH + 1 bytes) with a fresh secret from
 * getrandom(2). Returns 0 or -errno. */
int proxy_make_token(char *token);

/*
 * Fills config->own with every address of every interface of the host
 * (getifaddrs(3); IPv4 and IPv6, the other families have no address to
 * connect to), once each. Returns 0, -E2BIG past PROXY_OWN_MAX (nothing
 * kept), or -errno.
 */
int proxy_own_addresses(struct proxy_config *config);

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
