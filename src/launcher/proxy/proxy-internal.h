/*
 * The proxy's rooms (proxy.h says what it is; doc/SPEC.md 15):
 *
 *   loop.c     the process: start, restrict, the epoll loop, connections,
 *              connecting and relaying
 *   answer.c   answers: a refusal (HTTP 403, a SOCKS5 reply), a failure
 *   http.c     HTTP requests: CONNECT and absolute-URI plain HTTP, the
 *              run's credentials (Proxy-Authorization: Basic)
 *   socks.c    SOCKS5: RFC 1929 username/password, CONNECT by name
 *   resolve.c  the hosts files and one DNS A query over UDP
 *   decide.c   pure: what a name, a port, an address get (decide.h)
 *   own.c      the host's own interface addresses, read at start
 *   ask.c      the decider for names not on the list (ask.h)
 *   capture.c  transparent capture: a direct connect the supervisor carried
 *              here, decided by its SNI or Host (capture-parse.c, pure)
 *   relay.c    the relay's byte pipe: splice(2) socket -> pipe -> socket,
 *              the buffer copy where splice cannot; the descriptor budget
 *
 * One process, one thread: this state is the loop's, shared by the rooms.
 */
#ifndef CONFINE_LAUNCHER_PROXY_INTERNAL_H
#define CONFINE_LAUNCHER_PROXY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include "capture-parse.h"
#include "decide.h"
#include "proxy.h"

#define MAX_CONNS 256
#define BUF_SIZE (128U * 1024U)
/* What a way's pipe is grown to once it fills (F_SETPIPE_SZ; relay.c). */
#define PIPE_SIZE (1024 * 1024)
#define HEAD_MAX (8U * 1024U)
#define HEAD_SECONDS 30
#define RESOLVE_SECONDS 5
#define CONNECT_SECONDS 30

enum state { ST_HEAD, ST_SOCKS_AUTH, ST_SOCKS_REQUEST, ST_ASK, ST_RESOLVE, ST_CONNECT, ST_RELAY,
	     ST_CLOSING };
/* KIND_CAPTURE*: a connect the supervisor carried here (capture.c); a
 * refused one is closed with no byte, an HTTP one answered 403, a TLS one
 * (its ClientHello read) sent the alert access_denied. */
enum kind { KIND_UNKNOWN, KIND_CONNECT, KIND_HTTP, KIND_SOCKS, KIND_CAPTURE,
	    KIND_CAPTURE_HTTP, KIND_CAPTURE_DNS, KIND_CAPTURE_TLS };

/* One way of the relay (relay.c): its pipe (-1: none yet, or none to be
 * had), the bytes in it, how many it holds; copy: the buffer copy (no
 * pipe, or splice failed with EINVAL or ENOSYS); full: the pipe refused
 * more with bytes in it, so its reader waits until some go out; grown:
 * PIPE_SIZE was asked for (once). */
struct lane {
	int pipe[2];
	size_t piped, cap;
	bool copy, full, grown;
};

struct conn {
	bool used;
	enum state state;
	enum kind kind;
	int client, upstream, dns;
	char host[256];
	unsigned port;
	unsigned char addr[16]; /* IPv6, or IPv4 v4-mapped (network order) */
	uint16_t dns_id;
	unsigned dns_qtype;     /* ST_RESOLVE: A, then AAAA when no A */
	unsigned ask_id;     /* ST_ASK: the question this connection waits on */
	const char *allowed_by; /* the name allowed by ("allowlist", "decider"): its
				   decision is recorded once the address is judged */
	unsigned char *up;   /* client -> upstream */
	size_t up_len;
	unsigned char *down; /* upstream -> client */
	size_t down_len;
	struct lane up_lane, down_lane; /* ST_RELAY: after up, down */
	bool client_eof, upstream_eof, up_shut, down_shut;
	uint32_t client_events, upstream_events; /* as last armed (0: out of the set) */
	time_t deadline;     /* 0: none */
};

/* The loop's state (loop.c). */
extern const struct proxy_config *proxy_cfg;
extern struct conn proxy_conns[MAX_CONNS];
/* The base64 of "confine:<token>": what every HTTP request's
 * Proxy-Authorization: Basic carries. */
extern char proxy_expected_basic[128];

/* loop.c: the connection's bookkeeping; answer.c: the answers. */
time_t proxy_now(void);
void proxy_watch(int fd, uint64_t key, uint32_t events, bool add);
uint64_t proxy_key(size_t index, int which);
void proxy_rearm(struct conn *c);
void proxy_queue_down(struct conn *c, const void *bytes, size_t n);
/* Ends the connection with an answer: an HTTP status with a body naming
 * the host and the clause, or a SOCKS5 reply code; a refusal by a clause
 * also goes on the record (the stderr line, the status channel). */
void proxy_refuse(struct conn *c, const struct proxy_refusal *refusal);
/* An address as the target; a SOCKS command other than CONNECT. */
void proxy_refuse_literal(struct conn *c);
void proxy_refuse_socks_command(struct conn *c);
/* A host that is not a name (its first `length` bytes in c->host). */
void proxy_refuse_bad_name(struct conn *c, size_t length);
/* A plain failure (400, 502, 504): no clause. */
void proxy_fail(struct conn *c, int http_status, unsigned char socks_code, const char *why);
/* A checked name and port: the allowlist, the decider, then the address. */
void proxy_go(struct conn *c);
/* A resolved address: the local-address check, then connect. */
void proxy_start_connect(struct conn *c);
/* The name is allowed (by the list or the decider): resolve it. */
void proxy_resolve_and_connect(struct conn *c);

/* http.c, socks.c: a request head in c->up. */
void proxy_http_request(struct conn *c, size_t end);
void proxy_socks_step(struct conn *c);

/* capture.c: a head that starts with the supervisor's preamble; a
 * captured connection that sent nothing by its deadline. */
void proxy_capture_step(struct conn *c);
void proxy_capture_expired(struct conn *c);

/* relay.c: at start, the descriptor budget (the soft RLIMIT_NOFILE
 * raised toward the hard one); the connections it holds (MAX_CONNS or
 * fewer), pipes only from what is left. */
extern size_t proxy_conn_limit;
void proxy_relay_init(void);
void proxy_lane_reset(struct lane *l);
void proxy_lane_close(struct lane *l);
/* recv into buf up to cap, send from buf; false on an error. */
bool proxy_fill(int from, unsigned char *buf, size_t *len, size_t cap, bool *eof);
bool proxy_drain(int to, unsigned char *buf, size_t *len);
/* A relay way: whether its source is to be read; the source woke (false:
 * an error); the destination may take bytes, buf's first (false: an
 * error). Pending while len + l->piped > 0. */
bool proxy_lane_wants_in(size_t len, const struct lane *l);
bool proxy_relay_in(int from, unsigned char *buf, size_t *len, bool *eof, struct lane *l);
bool proxy_relay_out(int to, unsigned char *buf, size_t *len, struct lane *l);

/* resolve.c */
void proxy_load_hosts(const char *path);
void proxy_load_resolv_conf(void);
/* The name's first IPv4 address in the hosts files, else its first IPv6
 * one, into ret (16 bytes, IPv4 v4-mapped). */
bool proxy_lookup_hosts(const char *name, unsigned char *ret);
/* One question of qtype (CAPTURE_DNS_TYPE_A or _AAAA) for c->host. */
void proxy_dns_query(struct conn *c, unsigned qtype);
void proxy_dns_answer(struct conn *c);
/* addr (16 bytes) and port as a sockaddr (AF_INET when v4-mapped, else
 * AF_INET6); returns its length. */
socklen_t proxy_sockaddr(const unsigned char *addr, unsigned port, struct sockaddr_storage *out);
/* addr as text: dotted for v4-mapped, else IPv6. */
void proxy_address_text(const unsigned char *addr, char *out, size_t size);

#endif
