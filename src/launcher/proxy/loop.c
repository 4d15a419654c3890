/*
 * The proxy's process and loop (proxy-internal.h; doc/SPEC.md 15).
 *
 * One process forked by the launcher before it restricts itself, so it
 * can reach the hosts the command may not; it then takes away its own
 * file access (Landlock with no file rule) and capabilities, and serves
 * one epoll loop until the launcher dies (PR_SET_PDEATHSIG) or closes the
 * lifeline.
 *
 * A connection goes: HEAD (the request, at most HEAD_MAX bytes, within
 * HEAD_SECONDS; http.c, socks.c) -> the decision (decide.c; for a name on
 * neither list with a decider, ASK, ask.c) -> RESOLVE (resolve.c) -> the
 * local-address check -> CONNECT (non-blocking, within CONNECT_SECONDS)
 * -> RELAY (both ways, half-closes passed on: each way its buffer's bytes,
 * then splice(2) through a pipe of its own, relay.c). A refusal is
 * answered at once (answer.c).
 *
 * Bounds: MAX_CONNS connections, fewer when RLIMIT_NOFILE cannot hold
 * three descriptors for each (full: the oldest one not past its head or
 * SOCKS greeting makes room, else the new one is closed at once), three
 * descriptors each at most, and four more for two pipes while the budget
 * left over lasts (relay.c); 2 * BUF_SIZE bytes each (256 KiB), allocated
 * when a connection is accepted, and in the kernel two pipes of PIPE_SIZE
 * at most.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ask.h"
#include "capabilities.h"
#include "channel.h"
#include "proxy-internal.h"
#include "ruleset.h"

#define LISTEN_KEY UINT64_MAX
#define LIFELINE_KEY (UINT64_MAX - 1)
#define ASK_KEY (UINT64_MAX - 2)
/* Where the child keeps what it holds. */
#define FD_LISTENER 3
#define FD_LIFELINE 4
#define FD_STATUS 5
#define FD_ASK 6

const struct proxy_config *proxy_cfg;
struct conn proxy_conns[MAX_CONNS];
char proxy_expected_basic[128];
static int epfd = -1;

time_t proxy_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

uint64_t proxy_key(size_t index, int which)
{
	return (uint64_t)index << 2 | (uint64_t)which;
}

void proxy_watch(int fd, uint64_t k, uint32_t events, bool add)
{
	struct epoll_event ev = { .events = events, .data.u64 = k };

	if (fd >= 0)
		(void)epoll_ctl(epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev);
}

static void reset_conn(struct conn *c)
{
	memset(c, 0, sizeof(*c));
	c->client = c->upstream = c->dns = -1;
	proxy_lane_reset(&c->up_lane);
	proxy_lane_reset(&c->down_lane);
}

static void close_conn(struct conn *c)
{
	proxy_record_allowed(c); /* an allowed name whose address never came */
	if (c->client >= 0)
		close(c->client);
	if (c->upstream >= 0)
		close(c->upstream);
	if (c->dns >= 0)
		close(c->dns);
	proxy_lane_close(&c->up_lane);
	proxy_lane_close(&c->down_lane);
	free(c->up);
	free(c->down);
	reset_conn(c);
}

/* `fd` waits for `want`; `*armed` is what it waits for now, 0 when it is
 * out of the set. A descriptor that waits for nothing leaves the set:
 * epoll reports a hang-up whatever it is asked, so a peer gone while its
 * way is full (nothing to read until the other side takes bytes) would
 * wake the loop at once, every time, until then (a spin). */
static void arm(int fd, uint64_t key, uint32_t want, uint32_t *armed)
{
	struct epoll_event ev = { .events = want, .data.u64 = key };

	if (want == *armed)
		return;
	if (want == 0)
		(void)epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
	else
		(void)epoll_ctl(epfd, *armed ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
	*armed = want;
}

/* The events each descriptor waits for, from the buffers and the state. */
void proxy_rearm(struct conn *c)
{
	size_t i = (size_t)(c - proxy_conns);
	uint32_t ce = 0, ue = 0;

	if ((c->state == ST_HEAD || c->state == ST_SOCKS_AUTH || c->state == ST_SOCKS_REQUEST) &&
	    c->up_len < HEAD_MAX)
		ce |= EPOLLIN;
	if (c->state == ST_RELAY && !c->client_eof && proxy_lane_wants_in(c->up_len, &c->up_lane))
		ce |= EPOLLIN;
	if (c->down_len > 0 || c->down_lane.piped > 0)
		ce |= EPOLLOUT;
	if (c->state == ST_CLOSING && c->down_shut)
		ce |= EPOLLIN;
	if (c->state == ST_CONNECT)
		ue |= EPOLLOUT;
	if (c->state == ST_RELAY) {
		if (!c->upstream_eof && proxy_lane_wants_in(c->down_len, &c->down_lane))
			ue |= EPOLLIN;
		if (c->up_len > 0 || c->up_lane.piped > 0)
			ue |= EPOLLOUT;
	}
	arm(c->client, proxy_key(i, 0), ce, &c->client_events);
	if (c->upstream >= 0)
		arm(c->upstream, proxy_key(i, 1), ue, &c->upstream_events);
}

/* ---- connecting ------------------------------------------------------------ */

void proxy_start_connect(struct conn *c)
{
	struct sockaddr_storage sa;
	socklen_t sa_len = proxy_sockaddr(c->addr, c->port, &sa);
	size_t i = (size_t)(c - proxy_conns);
	struct proxy_refusal r;
	char why[600], text[INET6_ADDRSTRLEN];

	/* The name's allow is not the decision until its address is judged:
	 * a local address refused makes it a deny (by allowLocal). */
	if (!proxy_decide_address(proxy_cfg, c->host, c->addr, &r)) {
		c->allowed_by = NULL;
		proxy_record_decision(c->host, c->port, false, r.by);
		proxy_refuse(c, &r);
		return;
	}
	proxy_record_allowed(c);
	proxy_address_text(c->addr, text, sizeof(text));
	c->upstream = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->upstream < 0 ||
	    (connect(c->upstream, (struct sockaddr *)&sa, sa_len) != 0 && errno != EINPROGRESS)) {
		snprintf(why, sizeof(why), "cannot connect to \"%s\" (%s) port %u: %s", c->host,
			 text, c->port, strerror(errno));
		proxy_fail(c, 502, 0x05, why);
		return;
	}
	c->state = ST_CONNECT;
	c->deadline = proxy_now() + CONNECT_SECONDS;
	proxy_watch(c->upstream, proxy_key(i, 1), EPOLLOUT, true);
	c->upstream_events = EPOLLOUT;
	proxy_rearm(c);
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
		proxy_fail(c, 502, 0x05, why);
		return;
	}
	if (c->kind == KIND_CONNECT) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

		proxy_queue_down(c, ok, sizeof(ok) - 1);
	} else if (c->kind == KIND_SOCKS) {
		unsigned char reply[10] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };

		proxy_queue_down(c, reply, sizeof(reply));
	}
	c->state = ST_RELAY;
	c->deadline = 0;
	proxy_rearm(c);
}

void proxy_resolve_and_connect(struct conn *c)
{
	if (proxy_lookup_hosts(c->host, c->addr))
		proxy_start_connect(c);
	else
		proxy_dns_query(c, CAPTURE_DNS_TYPE_A);
}

void proxy_go(struct conn *c)
{
	struct proxy_refusal r;
	size_t n = strlen(c->host);

	/* Before anything: a name that is not a DNS name is refused, so no
	 * space, newline or leading "-" reaches a question or a line. */
	if (!launcher_host_name_valid(c->host, n)) {
		proxy_refuse_bad_name(c, n);
		return;
	}
	for (n = 0; c->host[n] != '\0'; n++)
		if (c->host[n] >= 'A' && c->host[n] <= 'Z')
			c->host[n] = (char)(c->host[n] - 'A' + 'a');
	if (n > 0 && c->host[n - 1] == '.')
		c->host[n - 1] = '\0';
	if (c->port == 0 || c->port > 65535) {
		proxy_fail(c, 400, 0x01, "the port must be 1 to 65535");
		return;
	}
	switch (proxy_decide_name(proxy_cfg, proxy_ask_answers(), c->host, c->port, &r)) {
	case PROXY_NEXT_RESOLVE:
		c->allowed_by = r.by;
		proxy_resolve_and_connect(c);
		return;
	case PROXY_NEXT_ASK:
		proxy_ask(c);
		return;
	case PROXY_NEXT_REFUSE:
		proxy_record_decision(c->host, c->port, false, r.by);
		proxy_refuse(c, &r);
		return;
	}
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

static void head_step(struct conn *c)
{
	const unsigned char *end;

	if (c->up_len == 0)
		return;
	if (c->kind >= KIND_CAPTURE || (c->kind == KIND_UNKNOWN && c->up[0] == 0)) {
		proxy_capture_step(c);
		return;
	}
	if (c->kind == KIND_SOCKS || (c->kind == KIND_UNKNOWN && c->up[0] == 5)) {
		c->kind = KIND_SOCKS;
		proxy_socks_step(c);
		return;
	}
	end = memmem(c->up, c->up_len, "\r\n\r\n", 4);
	if (end != NULL) {
		proxy_http_request(c, (size_t)(end - c->up) + 4);
		return;
	}
	if (c->up_len >= HEAD_MAX)
		proxy_fail(c, 400, 0, "the request head is longer than 8 KiB");
}

/* ---- the loop ------------------------------------------------------------ */

static void accept_one(int listener)
{
	int fd = accept4(listener, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	size_t i;

	if (fd < 0)
		return;
	for (i = 0; i < proxy_conn_limit && proxy_conns[i].used; i++)
		;
	if (i == proxy_conn_limit) {
		/* Full. A connection that has not shown the run's credentials
		 * yet (the head, or SOCKS's greeting; a capture's preamble
		 * carries them) may be anyone's: another
		 * user holding every slot idle starved the run (red team
		 * R3-F5). The oldest such one makes room, and before it one
		 * whose answer is out and only waits for the client to close;
		 * none: the new one is closed (bounded). */
		size_t oldest = MAX_CONNS;
		for (i = 0; i < proxy_conn_limit; i++) {
			const struct conn *c = &proxy_conns[i];
			if (c->state == ST_CLOSING && c->down_shut) {
				oldest = i;
				break;
			}
			if (((c->state == ST_HEAD && c->kind < KIND_CAPTURE) ||
			     c->state == ST_SOCKS_AUTH) &&
			    (oldest == MAX_CONNS || c->deadline < proxy_conns[oldest].deadline))
				oldest = i;
		}
		if (oldest == MAX_CONNS) {
			close(fd);
			return;
		}
		close_conn(&proxy_conns[oldest]);
		i = oldest;
	}
	proxy_conns[i].up = malloc(BUF_SIZE);
	proxy_conns[i].down = malloc(BUF_SIZE);
	if (proxy_conns[i].up == NULL || proxy_conns[i].down == NULL) {
		free(proxy_conns[i].up);
		free(proxy_conns[i].down);
		proxy_conns[i].up = proxy_conns[i].down = NULL;
		close(fd);
		return;
	}
	proxy_conns[i].used = true;
	proxy_conns[i].client = fd;
	proxy_conns[i].state = ST_HEAD;
	proxy_conns[i].deadline = proxy_now() + HEAD_SECONDS;
	proxy_conns[i].client_events = EPOLLIN;
	proxy_watch(fd, proxy_key(i, 0), EPOLLIN, true);
}

static void on_event(struct conn *c, int which, uint32_t events)
{
	bool ok = true;

	if (which == 2) {
		proxy_dns_answer(c);
		return;
	}
	if (which == 1 && c->state == ST_CONNECT) {
		connected(c);
		return;
	}
	if (which == 0 && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		if (c->state == ST_HEAD || c->state == ST_SOCKS_AUTH ||
		    c->state == ST_SOCKS_REQUEST) {
			ok = proxy_fill(c->client, c->up, &c->up_len, HEAD_MAX, &c->client_eof);
			if (ok && !c->client_eof)
				head_step(c);
			else
				ok = false;
		} else if (c->state == ST_RELAY) {
			ok = proxy_relay_in(c->client, c->up, &c->up_len, &c->client_eof, &c->up_lane);
		} else if (c->state == ST_CLOSING && (events & (EPOLLHUP | EPOLLERR))) {
			ok = false;
		} else if (c->state == ST_CLOSING && c->down_shut) {
			/* The answer is out: what the client still sends is
			 * read and dropped until it closes (or the deadline). */
			c->up_len = 0;
			ok = proxy_fill(c->client, c->up, &c->up_len, BUF_SIZE, &c->client_eof) &&
			     !c->client_eof;
		}
	}
	if (ok && c->used && which == 1 && c->state == ST_RELAY && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		ok = proxy_relay_in(c->upstream, c->down, &c->down_len, &c->upstream_eof,
				    &c->down_lane);
	if (!ok) {
		close_conn(c);
		return;
	}
	if (!c->used)
		return;
	/* Write what is buffered or piped, whichever side woke. */
	if ((c->down_len > 0 || c->down_lane.piped > 0) &&
	    !proxy_relay_out(c->client, c->down, &c->down_len, &c->down_lane)) {
		close_conn(c);
		return;
	}
	if (c->state == ST_RELAY && (c->up_len > 0 || c->up_lane.piped > 0) &&
	    !proxy_relay_out(c->upstream, c->up, &c->up_len, &c->up_lane)) {
		close_conn(c);
		return;
	}
	/* The answer written: a close with the client's bytes unread would
	 * be a reset, which may discard the answer before the client reads
	 * it. So end our side (FIN) and wait for the client's, at most
	 * until the deadline (answer.c set it). */
	if (c->state == ST_CLOSING && c->down_len == 0 && !c->down_shut) {
		if (c->client_eof || shutdown(c->client, SHUT_WR) != 0) {
			close_conn(c);
			return;
		}
		c->down_shut = true;
	}
	if (c->state == ST_RELAY) {
		if (c->client_eof && c->up_len == 0 && c->up_lane.piped == 0 && !c->up_shut) {
			shutdown(c->upstream, SHUT_WR);
			c->up_shut = true;
		}
		if (c->upstream_eof && c->down_len == 0 && c->down_lane.piped == 0 &&
		    !c->down_shut) {
			shutdown(c->client, SHUT_WR);
			c->down_shut = true;
		}
		if (c->up_shut && c->down_shut) {
			close_conn(c);
			return;
		}
	}
	proxy_rearm(c);
}

static void expire(void)
{
	time_t t = proxy_now();
	size_t i;

	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &proxy_conns[i];

		if (!c->used || c->deadline == 0 || c->deadline > t)
			continue;
		if (c->state == ST_ASK) {
			proxy_ask_expired(c);
		} else if (c->state == ST_RESOLVE || c->state == ST_CONNECT) {
			char why[600];

			snprintf(why, sizeof(why), "%s \"%s\" timed out",
				 c->state == ST_RESOLVE ? "resolving" : "connecting to", c->host);
			proxy_fail(c, 504, 0x04, why);
		} else if (c->kind == KIND_CAPTURE && c->state == ST_HEAD) {
			proxy_capture_expired(c);
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

	for (i = 0; i < MAX_CONNS; i++)
		reset_conn(&proxy_conns[i]);
	proxy_relay_init();
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		_exit(1);
	proxy_watch(listener, LISTEN_KEY, EPOLLIN, true);
	/* The launcher closes its end when the run ends (its Landlock domain
	 * scopes signals: it cannot kill this process). */
	proxy_watch(lifeline, LIFELINE_KEY, EPOLLIN, true);
	if (proxy_cfg->ask)
		proxy_watch(FD_ASK, ASK_KEY, EPOLLIN, true);
	for (;;) {
		int n = epoll_wait(epfd, events, 64, 1000);
		int k;

		for (k = 0; k < n; k++) {
			uint64_t kk = events[k].data.u64;
			struct conn *c;

			if (kk == LIFELINE_KEY)
				_exit(0);
			if (kk == ASK_KEY) {
				proxy_ask_readable();
				continue;
			}
			if (kk == LISTEN_KEY) {
				accept_one(listener);
				continue;
			}
			c = &proxy_conns[kk >> 2];
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
	/* The listener, the lifeline's read end, the status channel (its
	 * reader waits for every write end: this process dies with the
	 * launcher, PR_SET_PDEATHSIG) and the ask socket; nothing else. Each
	 * is first moved above the fixed numbers, so none is overwritten. */
	{
		int from[4] = { listener, lifeline, config->status_fd,
				config->ask ? config->ask_fd : -1 };
		int high[4], k;

		for (k = 0; k < 4; k++) {
			high[k] = from[k] < 0 ? -1 : fcntl(from[k], F_DUPFD_CLOEXEC, 16);
			if (from[k] >= 0 && high[k] < 0)
				_exit(1);
		}
		for (k = 0; k < 4; k++)
			if (high[k] >= 0 && dup3(high[k], FD_LISTENER + k, O_CLOEXEC) < 0)
				_exit(1);
		(void)syscall(SYS_close_range, (unsigned)FD_ASK + 1U, ~0U, 0U);
		if (config->status_fd < 0 || channel_open(FD_STATUS) < 0) {
			channel_close();
			(void)close(FD_STATUS);
		}
		if (config->ask)
			proxy_ask_init(FD_ASK);
	}
	(void)close(0);
	(void)close(1);
	signal(SIGPIPE, SIG_IGN);
	proxy_cfg = config;
	{
		char user_pass[sizeof(PROXY_USER) + PROXY_TOKEN_LENGTH + 1];
		int n = snprintf(user_pass, sizeof(user_pass), PROXY_USER ":%s", config->token);

		if (n <= 0 || (size_t)n >= sizeof(user_pass) ||
		    proxy_base64((const unsigned char *)user_pass, (size_t)n, proxy_expected_basic,
				 sizeof(proxy_expected_basic)) == 0)
			_exit(1);
	}
	proxy_load_hosts("/etc/hosts");
	if (config->hosts_file != NULL)
		proxy_load_hosts(config->hosts_file);
	proxy_load_resolv_conf();
	/* Nothing of the file system from here on, no capabilities. */
	abi = landlock_abi();
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0 ||
	    (abi > 0 && landlock_deny_all_files(abi) < 0) || drop_capabilities() < 0) {
		report_line("network: the proxy cannot restrict itself: %s", strerror(errno));
		_exit(1);
	}
	serve(FD_LISTENER, FD_LIFELINE);
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
