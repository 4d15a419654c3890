/*
 * Transparent capture's parsers (doc/SPEC.md 15, "Transparent capture"):
 * pure, no I/O, unit-tested (tests/unit/test-capture-parse.c).
 *
 * A captured connection starts with the supervisor's preamble (the run's
 * secret, the address and port the command connected to), then the
 * command's own first bytes, from which the proxy takes the name it
 * decides by: a TLS ClientHello's server_name (SNI), or a plain HTTP/1
 * request's Host header. Never the address.
 */
#ifndef CONFINE_LAUNCHER_CAPTURE_PARSE_H
#define CONFINE_LAUNCHER_CAPTURE_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* "\0CFC", the token (CAPTURE_TOKEN_LENGTH hex digits), the address as
 * IPv6 (16 bytes; an IPv4 one v4-mapped, ::ffff:a.b.c.d) and the port
 * (network order, 2 bytes). No client of the proxy starts with a NUL byte
 * (HTTP, SOCKS5's 0x05). */
#define CAPTURE_MAGIC "\0CFC"
#define CAPTURE_MAGIC_LENGTH 4
#define CAPTURE_TOKEN_LENGTH 32
#define CAPTURE_PREAMBLE_LENGTH (CAPTURE_MAGIC_LENGTH + CAPTURE_TOKEN_LENGTH + 16 + 2)

enum capture_result {
	CAPTURE_MORE,    /* not enough bytes yet */
	CAPTURE_OK,      /* a preamble, or a name */
	CAPTURE_NO_NAME, /* not TLS nor HTTP, or a ClientHello with no SNI */
	CAPTURE_BAD,     /* malformed, a wrong secret, two Host headers */
};

enum capture_protocol { CAPTURE_UNKNOWN, CAPTURE_TLS, CAPTURE_HTTP };

/* Writes the preamble (CAPTURE_PREAMBLE_LENGTH bytes) into out. addr (16
 * bytes, IPv6 or v4-mapped) and port in network order. */
void capture_write_preamble(unsigned char *out, const char *token, const unsigned char *addr,
			    uint16_t port);

/* Reads a preamble from the first len bytes of buf, checking the token
 * (constant time). CAPTURE_OK with addr (16 bytes) and *port (network
 * order). */
enum capture_result capture_parse_preamble(const unsigned char *buf, size_t len,
					   const char *token, unsigned char *addr, uint16_t *port);

/*
 * The name in the command's first bytes (len of them): TLS (a handshake
 * record holding a ClientHello, its server_name of type host_name) or
 * HTTP/1 (a request line, then one Host header; its port cut off, an
 * IPv6 literal kept in brackets). *protocol says which it looked like
 * (also with CAPTURE_MORE and CAPTURE_BAD). The name, at most
 * name_size - 1 bytes, is copied raw: the caller validates it.
 * A ClientHello cut across TLS records is CAPTURE_NO_NAME.
 */
enum capture_result capture_parse_name(const unsigned char *buf, size_t len,
				       enum capture_protocol *protocol, char *name,
				       size_t name_size);

/*
 * DNS inside the run (doc/SPEC.md 15, "Names inside the run"): one query
 * message (RFC 1035 4.1, without TCP's two length bytes) asking one
 * question. CAPTURE_OK with the name (lower case, no trailing dot),
 * *qtype and *question_end (the offset past the question).
 */
enum capture_result capture_dns_question(const unsigned char *q, size_t len, char *name,
					 size_t name_size, unsigned *qtype, size_t *question_end);

/* The reply to that query (question_end from capture_dns_question): its id
 * and question, rcode (0 NOERROR, 2 SERVFAIL, 5 REFUSED), and one record
 * when addr is not NULL: an A record when addr_len is 4, AAAA when 16
 * (network order). Returns its length (without the TCP length bytes), or
 * 0 when out (out_size bytes) is too small or addr_len is neither. */
size_t capture_dns_reply(const unsigned char *q, size_t question_end, unsigned rcode,
			 const unsigned char *addr, size_t addr_len, unsigned char *out,
			 size_t out_size);

#define CAPTURE_DNS_TYPE_A 1
#define CAPTURE_DNS_TYPE_AAAA 28
#define CAPTURE_DNS_TTL 60

#endif
