/*
 * Host patterns of the network allowlist (doc/SPEC.md 15, "Network
 * allowlist"): what a pattern may be, whether a host matches one, and the
 * verdict of an allow and a deny list on a host. One copy, for the
 * library's validation (src/lib/policy-options.c) and the launcher's proxy
 * (src/launcher/proxy.c). Pure: no OS calls, no allocation.
 *
 * A pattern is a host name ("example.org") or "*." and one ("*.example.org":
 * any name strictly under it, not example.org itself); case does not count.
 */
#ifndef CONFINE_HOST_PATTERN_H
#define CONFINE_HOST_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

/* A host name's bounds (RFC 1035): the whole name, and one label. */
#define HOST_NAME_LENGTH_MAX 253
#define HOST_LABEL_LENGTH_MAX 63

/* Why a pattern is not one; the library words each (policy-options.c). */
enum host_pattern_fault {
	HOST_PATTERN_OK,
	HOST_PATTERN_EMPTY,
	HOST_PATTERN_SCHEME,      /* "https://example.org" */
	HOST_PATTERN_PATH,        /* "10.0.0.0/8", "example.org/x" */
	HOST_PATTERN_IPV6,        /* "::1", "[::1]" */
	HOST_PATTERN_PORT,        /* "example.org:443" */
	HOST_PATTERN_NOT_A_NAME,  /* "*." alone, or longer than HOST_NAME_LENGTH_MAX */
	HOST_PATTERN_ADDRESS,     /* "1.2.3.4": the proxy allows names only */
	HOST_PATTERN_EMPTY_LABEL, /* "a..b", ".a" */
	HOST_PATTERN_WILDCARD,    /* a "*" anywhere but a leading "*." */
	HOST_PATTERN_BAD_CHAR,    /* a byte no host name has */
	HOST_PATTERN_LONG_LABEL,  /* a label longer than HOST_LABEL_LENGTH_MAX */
	HOST_PATTERN_TRAILING_DOT,
	HOST_PATTERN_HYPHEN_EDGE, /* a label that begins or ends with '-': "-a.test", "a-.test" */
};

/* Checks `pattern` (not NULL). On HOST_PATTERN_BAD_CHAR, *ret_bad (when not
 * NULL) is the offending byte. */
enum host_pattern_fault host_pattern_check(const char *pattern, char *ret_bad);

/* Whether `host` reads as an IPv4 address in any form a resolver takes
 * (inet_aton(3): one to four parts, each decimal, octal or 0x hex;
 * "0x7f000001", "127.1", "0177.0.0.1"), told as the WHATWG URL standard
 * does: its last label is a number (digits, or 0x and hex digits). No
 * top-level domain is one. The doors refuse such a pattern and the proxy
 * such a host: one decision (doc/SPEC.md 15). */
bool host_is_ipv4_literal(const char *host);

/* Whether `host` matches `pattern`; false when either is NULL. */
bool host_pattern_match(const char *pattern, const char *host);

enum host_verdict {
	HOST_VERDICT_ALLOWED,     /* an allow entry matches, no deny entry does */
	HOST_VERDICT_DENIED,      /* a deny entry matches (clause network.deny) */
	HOST_VERDICT_NOT_ALLOWED, /* no allow entry matches (clause network.allow) */
};

/* The lists' verdict on `host`: a deny entry wins over any allow entry. */
enum host_verdict host_pattern_decide(const char *const *allow, size_t n_allow,
				      const char *const *deny, size_t n_deny, const char *host);

#endif
