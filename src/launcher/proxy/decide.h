/*
 * What the proxy decides (doc/SPEC.md 15, "Network allowlist", "Ask"):
 * pure functions of the configuration, the name, the port, the address
 * and the decider's answers so far. No I/O, no allocation; the unit tests
 * call them directly (tests/unit/test-proxy-decide.c).
 */
#ifndef CONFINE_LAUNCHER_PROXY_DECIDE_H
#define CONFINE_LAUNCHER_PROXY_DECIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proxy.h"

/* The decider's answers this run keeps (one per host and port): past it
 * a new name is asked again each time, never answered from a guess. */
#define PROXY_ANSWERS_MAX 256
/* A decider's reason, kept and passed on, at most this many bytes. */
#define PROXY_REASON_MAX 200

/* A refusal by a clause (or a failure, clause NULL): what the client is
 * answered and what goes on the record. */
struct proxy_refusal {
	int http_status;          /* 403, 400, 407, 502, 504 */
	unsigned char socks_code; /* the SOCKS5 reply code */
	const char *clause;       /* "network", "network.allow", "network.deny",
				     "network.allowLocal", "network.ask"; NULL: a failure */
	const char *note;         /* the stderr line's "refused (...)" words */
	const char *by;           /* who decided: "allowlist", "denylist", "decider",
				     "off" (every answer of proxy_decide_name sets it),
				     "allowLocal" (proxy_decide_address's refusal) */
	char why[700];            /* the answer's body: names the host and the clause */
	char reason[PROXY_REASON_MAX + 1]; /* network.ask: the decider's own words */
};

struct proxy_answer {
	char host[256];
	unsigned port;
	bool allow;
	char reason[PROXY_REASON_MAX + 1];
};

struct proxy_answers {
	struct proxy_answer items[PROXY_ANSWERS_MAX];
	size_t n;
};

enum proxy_next {
	PROXY_NEXT_RESOLVE, /* allowed: resolve and connect */
	PROXY_NEXT_ASK,     /* on neither list, a decider: ask it */
	PROXY_NEXT_REFUSE,  /* refused: *refusal says how */
};

/* The allowlist's verdict on `host` (host-pattern.h decides). */
enum host_verdict proxy_host_verdict(const struct proxy_config *config, const char *host);

/* What a request for `host` (lower case, no trailing dot) and `port`
 * gets: off, the denylist, the allowlist, the decider's kept answer, the
 * decider. Fills *refusal for PROXY_NEXT_REFUSE. */
enum proxy_next proxy_decide_name(const struct proxy_config *config,
				  const struct proxy_answers *answers, const char *host,
				  unsigned port, struct proxy_refusal *refusal);

/* An IP literal as the target: always refused (off, or the allowlist
 * names hosts). */
void proxy_decide_literal(const struct proxy_config *config, struct proxy_refusal *refusal);

/* A host that is not a DNS name nor an IP literal
 * (launcher_host_name_valid): refused before anything (doc/SPEC.md 15,
 * "Host names"). */
void proxy_decide_bad_name(const struct proxy_config *config, struct proxy_refusal *refusal);

/* The raw host bytes as one quoted, printable word for a log line or a
 * record: bytes outside 0x21..0x7e, '"' and '\\' as \xHH; cut with "..."
 * to fit `size` (at least 8). */
void proxy_escape_host(const char *raw, size_t length, char *out, size_t size);

/* Whether `host`'s address `addr` (16 bytes, network order: IPv6, or an
 * IPv4 address v4-mapped) may be reached: not without allowLocal when it
 * is local (proxy_address6_is_local) or one of config->own, the host's
 * own interface addresses; false fills *refusal (clause
 * network.allowLocal). */
bool proxy_decide_address(const struct proxy_config *config, const char *host,
			  const unsigned char *addr, struct proxy_refusal *refusal);

/* The decider's answer: a refusal naming the host and its reason, or
 * (reason NULL) the bound passed with no answer. */
void proxy_decide_refused_by_decider(const char *host, unsigned port, const char *reason,
				     struct proxy_refusal *refusal);

/* The kept answer for host and port, or NULL. */
const struct proxy_answer *proxy_answers_find(const struct proxy_answers *answers,
					      const char *host, unsigned port);
/* Keeps an answer (a second one for the same host and port is ignored);
 * false when full. The reason is cut at PROXY_REASON_MAX bytes. */
bool proxy_answers_put(struct proxy_answers *answers, const char *host, unsigned port,
		       bool allow, const char *reason);

/* Whether an IPv4 address (network order) is loopback, private,
 * link-local, CGNAT, "this network", multicast, reserved, documentation
 * (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24) or benchmarking
 * (198.18.0.0/15, the run's own placeholders). */
bool proxy_address_is_local(uint32_t addr);

/* The same for 16 bytes: an IPv4 address v4-mapped (::ffff:0:0/96),
 * v4-compatible (::/96), NAT64 (64:ff9b::/96, and 64:ff9b:1::/96 of the
 * local-use 64:ff9b:1::/48, the rest of which is local), SIIT
 * (::ffff:0:0:0/96) or 6to4 (2002::/16) is judged by the IPv4 address it
 * carries; loopback ::1, unique local
 * fc00::/7, link-local fe80::/10, site-local fec0::/10, multicast ff00::/8,
 * documentation 2001:db8::/32, benchmarking 2001:2::/48 (the run's own
 * placeholders), discard 100::/64 and Teredo 2001::/32 are local. */
bool proxy_address6_is_local(const unsigned char *addr);

/* Whether 16 bytes are an IPv4 address v4-mapped (::ffff:a.b.c.d). */
bool proxy_address_is_v4_mapped(const unsigned char *addr);

/* Whether a request's host is an address, not a name: "[v6]", anything
 * with a colon, a dotted quad, all digits and dots. */
bool proxy_is_ip_literal(const char *host);

/* "host[:port]" (len bytes) into host (host_size bytes) and *port
 * (default_port without one); false when malformed. An IPv6 literal is
 * kept whole (cut to fit) so it is refused as one. */
bool proxy_split_authority(const char *auth, size_t len, unsigned default_port, char *host,
			   size_t host_size, unsigned *port);

/* Whether `given` (given_len bytes) equals `secret`, in time that does not
 * depend on where they differ. */
bool proxy_secret_equal(const char *given, size_t given_len, const char *secret);

/* The standard base64 of `in` (in_len bytes) into out (NUL-terminated).
 * Returns the length written, or 0 when out (size bytes) is too small. */
size_t proxy_base64(const unsigned char *in, size_t in_len, char *out, size_t size);

/* The reason phrase of an HTTP status the proxy answers. */
const char *proxy_status_text(int http_status);

#endif
