/*
 * connect, sendto (with an address), sendmsg and sendmmsg done on the
 * command's behalf. Whether the call is mediated at all depends on the
 * address and on the socket, both of which the command can change between
 * our look and the kernel's (memory, or dup2 onto the descriptor number),
 * so every notified call is performed here, on a pidfd_getfd duplicate of
 * the command's socket (the same open file description) with the address
 * and data we copied once.
 *
 * Mediated: a pathname address on an AF_UNIX socket. The target is
 * resolved as the command would (its cwd), pinned O_PATH, allowed when it
 * lies inside a writable grant that is not shared (the workspace, writable
 * roots, the run's private temp area; never the host's /dev/shm, where
 * other programs' sockets live) or is an allowed socket, and then reached
 * through /proc/self/fd/<pinned> so a socket swapped in meanwhile is not
 * the one connected. Anything else: EACCES.
 * Not mediated (done on behalf as given): other families, abstract and
 * unnamed unix addresses (Landlock's abstract scope and bwrap's network
 * namespace govern those), sends without an address. socketpair is never
 * notified.
 *
 * Never blocking (issue 21): a send is made with MSG_DONTWAIT added (a flag
 * of this one call; the open file description the command shares is left
 * as it is). When it would block and the command's call would have waited
 * (a blocking socket, no MSG_DONTWAIT of its own), the call goes to a
 * waiter (supervise-wait.c) that makes it blocking, from where it stopped:
 * nothing, or the rest of a stream send. A connect on a blocking stream
 * socket always goes to a waiter (no per-call flag exists for connect).
 * The command sees what it would have seen: it waits until the call can
 * complete, or gets EAGAIN if its socket is non-blocking.
 *
 * Limits: the peer's SO_PEERCRED shows the supervisor's pid (or a waiter's;
 * same uid and gid); a stream send copies at most SEND_COPY_LIMIT bytes and
 * reports a short write, as a stream socket may; a sendmmsg whose later
 * message would block returns the count sent so far, as sendmmsg may.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <unistd.h>

#include "capture-parse.h"
#include "launcher-protocol.h"
#include "supervise-internal.h"
#include "supervise-report.h"

#define SEND_COPY_LIMIT (256U * 1024U)
#define CONTROL_LIMIT (64U * 1024U)
#define IOV_LIMIT 1024U /* UIO_MAXIOV */

/* The command's struct msghdr as the kernel reads it (its user_msghdr):
 * size_t lengths, whatever the C library the launcher is built with says
 * (musl's own struct has int msg_iovlen and socklen_t msg_controllen beside
 * padding), so the message we copy is the one the kernel would have sent. */
struct remote_msghdr {
	void *msg_name;
	socklen_t msg_namelen;
	struct iovec *msg_iov;
	size_t msg_iovlen;
	void *msg_control;
	size_t msg_controllen;
	unsigned int msg_flags;
};

ssize_t sv_sendmsg(int sock, const struct msghdr *msg, int flags)
{
	return (ssize_t)syscall(SYS_sendmsg, sock, msg, flags);
}

bool sv_is_network_call(long nr)
{
	return nr == SYS_connect || nr == SYS_sendto || nr == SYS_sendmsg ||
	       nr == SYS_sendmmsg || nr == SYS_listen;
}

static int socket_option(int sock, int option)
{
	int value = -1;
	socklen_t len = sizeof(value);

	if (getsockopt(sock, SOL_SOCKET, option, &value, &len) != 0)
		return -errno;
	return value;
}

/* Whether the command's call on `sock` waits where ours would not: the
 * shared description is not O_NONBLOCK and the call has no MSG_DONTWAIT. */
static bool command_waits(int sock, int flags)
{
	int status = fcntl(sock, F_GETFL);

	return (flags & MSG_DONTWAIT) == 0 && status >= 0 && (status & O_NONBLOCK) == 0;
}

/* Whether a connect on `sock` may wait: a blocking socket of a connected
 * type (a stream's handshake or a unix listener's full queue). Datagram
 * and raw connects only set the peer. */
static bool connect_may_wait(int sock)
{
	int type;

	if (!command_waits(sock, 0))
		return false;
	type = socket_option(sock, SO_TYPE);
	return type != SOCK_DGRAM && type != SOCK_RAW;
}

void supervise_set_proxy(struct supervise *sv, uint32_t addr, uint16_t port, int refusal,
			 const char *capture_token)
{
	sv->capture_token[0] = '\0';
	if (capture_token != NULL && strlen(capture_token) == CAPTURE_TOKEN_LENGTH)
		memcpy(sv->capture_token, capture_token, CAPTURE_TOKEN_LENGTH + 1);
	sv->proxy = true;
	sv->proxy_refusal = refusal;
	sv->proxy_addr = addr;
	sv->proxy_port = port;
}

/* An IP address as 16 bytes (IPv4 v4-mapped) and its port (network
 * order); false for another family or a short address. */
static bool ip_address(const struct sockaddr_storage *addr, socklen_t len, unsigned char *out,
		       uint16_t *port)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;

	if (len >= sizeof(*in) && addr->ss_family == AF_INET) {
		memset(out, 0, 10);
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &in->sin_addr, 4);
		*port = in->sin_port;
		return true;
	}
	if (len >= sizeof(*in6) && addr->ss_family == AF_INET6) {
		memcpy(out, &in6->sin6_addr, 16);
		*port = in6->sin6_port;
		return true;
	}
	return false;
}

/* Whether 16 bytes and a port are the proxy's ::ffff:127.0.0.1:<port>. */
static bool is_proxy(const struct supervise *sv, const unsigned char *addr, uint16_t port)
{
	static const unsigned char mapped[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(addr, mapped, 12) == 0 && memcmp(addr + 12, &sv->proxy_addr, 4) == 0 &&
	       port == sv->proxy_port;
}

/* With the allowlist's proxy: an IP address is the proxy's or refused,
 * IPv4 or IPv6 (v4-mapped: an AF_INET6 socket reaches the proxy so).
 * (Landlock's TCP rule allows the proxy's port on every address, and the
 * deny-list lets only TCP sockets be made: this decides the address.) */
static int check_ip_address(const struct supervise *sv, const struct sockaddr_storage *addr,
			    socklen_t len)
{
	unsigned char ip[16];
	uint16_t port;

	if (!sv->proxy || len < sizeof(sa_family_t))
		return 0;
	if (addr->ss_family != AF_INET && addr->ss_family != AF_INET6)
		return 0;
	if (!ip_address(addr, len, ip, &port) || !is_proxy(sv, ip, port))
		return -sv->proxy_refusal;
	return 0;
}

/*
 * Decides a copied address for `sock`. Returns 0 when it is not mediated
 * (left as is), 1 when it was allowed and rewritten to reach the pinned
 * socket (`pinned` then holds it until the call is made), or -errno.
 */
static int check_address(struct sv_call *call, int sock, struct sockaddr_storage *addr,
			 socklen_t *len, struct sv_target *pinned)
{
	struct sockaddr_un *un = (struct sockaddr_un *)addr;
	char path[sizeof(un->sun_path) + 1];
	size_t path_len;
	int r;

	r = check_ip_address(call->sv, addr, *len);
	if (r < 0)
		return r;
	if (*len <= offsetof(struct sockaddr_un, sun_path) || addr->ss_family != AF_UNIX)
		return 0;
	if (socket_option(sock, SO_DOMAIN) != AF_UNIX)
		return 0; /* the kernel refuses the address itself */
	if (un->sun_path[0] == '\0')
		return 0; /* abstract */
	path_len = *len - offsetof(struct sockaddr_un, sun_path);
	if (path_len > sizeof(un->sun_path))
		path_len = sizeof(un->sun_path);
	memcpy(path, un->sun_path, path_len);
	path[path_len] = '\0';
	r = sv_resolve(call, AT_FDCWD, path, true, false, pinned);
	if (r < 0)
		return r;
	if (!sv_call_valid(call))
		return -ENOENT;
	if (!sv_socket_inside_grants(call->sv, pinned) && !sv_allowed_socket(call->sv, pinned))
		return sv_refuse("unix-sockets", call->req->data.nr == SYS_connect ? "connect" : "send",
				 pinned, -EACCES);
	memset(un->sun_path, 0, sizeof(un->sun_path));
	snprintf(un->sun_path, sizeof(un->sun_path), "/proc/self/fd/%d", pinned->fd);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(un->sun_path) + 1);
	return 1;
}

/*
 * Transparent capture (doc/SPEC.md 15): a TCP connect to an IPv4 or IPv6
 * address that is not the proxy's is made to the proxy instead, by a
 * waiter (even for a non-blocking socket: the preamble follows the
 * handshake), which then sends the preamble naming the address and port
 * the command asked for. The proxy decides by the name the command's
 * first bytes carry. An AF_INET6 socket reaches the proxy at
 * ::ffff:127.0.0.1 with IPV6_V6ONLY cleared (the socket is not bound yet:
 * its connect binds it). Returns 1 with *ret set (the call's result or
 * pending), or 0 when the connect is not captured.
 */
static int capture_connect(struct sv_call *call, int sock, const struct sockaddr_storage *addr,
			   socklen_t len, int64_t *ret)
{
	static unsigned char preamble[CAPTURE_PREAMBLE_LENGTH];
	struct sockaddr_in proxy = { .sin_family = AF_INET };
	struct sockaddr_in6 proxy6 = { .sin6_family = AF_INET6 };
	struct sv_blocking_op op = { .sock = sock, .connect = true,
		.addr = (struct sockaddr *)&proxy, .addrlen = sizeof(proxy),
		.preamble = preamble, .preamble_len = sizeof(preamble) };
	const struct supervise *sv = call->sv;
	unsigned char ip[16];
	uint16_t port;
	int off = 0;

	if (!sv->proxy || sv->capture_token[0] == '\0' || !ip_address(addr, len, ip, &port) ||
	    socket_option(sock, SO_TYPE) != SOCK_STREAM || is_proxy(sv, ip, port) ||
	    socket_option(sock, SO_DOMAIN) != addr->ss_family)
		return 0; /* another family's address: the kernel's answer, or EACCES */
	proxy.sin_addr.s_addr = sv->proxy_addr;
	proxy.sin_port = sv->proxy_port;
	if (addr->ss_family == AF_INET6) {
		proxy6.sin6_addr.s6_addr[10] = proxy6.sin6_addr.s6_addr[11] = 0xff;
		memcpy(&proxy6.sin6_addr.s6_addr[12], &sv->proxy_addr, 4);
		proxy6.sin6_port = sv->proxy_port;
		op.addr = (struct sockaddr *)&proxy6;
		op.addrlen = sizeof(proxy6);
		if (setsockopt(sock, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) != 0) {
			*ret = -ENETUNREACH;
			return 1;
		}
	}
	/* The waiter is forked from here, so it reads this copy as it is now. */
	capture_write_preamble(preamble, sv->capture_token, ip, port);
	*ret = sv_call_valid(call) ? sv_wait_start(call, &op) : -ENOENT;
	return 1;
}

static int64_t do_connect(struct sv_call *call)
{
	const __u64 *args = call->req->data.args;
	struct sockaddr_storage addr;
	socklen_t len = (socklen_t)(unsigned int)args[2];
	struct sv_target pinned;
	int64_t result;
	int sock;
	int r;

	if ((int)len < 0 || len > sizeof(addr))
		return -EINVAL;
	memset(&addr, 0, sizeof(addr));
	r = sv_read_memory(call, args[1], &addr, len);
	if (r < 0)
		return r;
	sock = sv_command_fd(call, (int)args[0]);
	if (sock < 0)
		return sock;
	if (capture_connect(call, sock, &addr, len, &result) == 1) {
		close(sock);
		return result;
	}
	sv_target_init(&pinned);
	r = check_address(call, sock, &addr, &len, &pinned);
	if (r < 0) {
		result = r;
	} else if (!sv_call_valid(call)) {
		result = -ENOENT;
	} else if (connect_may_wait(sock)) {
		struct sv_blocking_op op = { .sock = sock, .connect = true,
			.addr = (struct sockaddr *)&addr, .addrlen = len };

		result = sv_wait_start(call, &op);
	} else {
		result = connect(sock, (struct sockaddr *)&addr, len) == 0 ? 0 : -errno;
	}
	sv_target_close(&pinned);
	close(sock);
	return result;
}

/* A message copied out of the command, ready for our sendmsg. */
struct message {
	struct msghdr hdr;
	struct sockaddr_storage name;
	struct iovec iov;
	char *data;
	char *control;
	int dups[64];
	size_t n_dups;
};

static void message_free(struct message *m)
{
	size_t i;

	for (i = 0; i < m->n_dups; i++)
		close(m->dups[i]);
	free(m->data);
	free(m->control);
	memset(m, 0, sizeof(*m));
}

/* Descriptors passed with SCM_RIGHTS are the command's numbers: replace
 * each with our duplicate. Credentials name the sender: ours now. */
static int translate_control(struct sv_call *call, struct message *m)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(&m->hdr); c != NULL; c = CMSG_NXTHDR(&m->hdr, c)) {
		if (c->cmsg_level != SOL_SOCKET)
			continue;
		if (c->cmsg_type == SCM_RIGHTS) {
			size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int *fds = (int *)CMSG_DATA(c);
			size_t i;

			for (i = 0; i < n; i++) {
				int dup_fd;

				if (m->n_dups >= sizeof(m->dups) / sizeof(m->dups[0]))
					return -ETOOMANYREFS;
				dup_fd = sv_command_fd(call, fds[i]);
				if (dup_fd < 0)
					return -EBADF;
				m->dups[m->n_dups++] = dup_fd;
				fds[i] = dup_fd;
			}
		} else if (c->cmsg_type == SCM_CREDENTIALS &&
			   c->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred cred;

			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			cred.pid = getpid();
			memcpy(CMSG_DATA(c), &cred, sizeof(cred));
		}
	}
	return 0;
}

static int read_message(struct sv_call *call, int sock, uint64_t at, struct message *m)
{
	struct remote_msghdr remote;
	struct iovec *iovs;
	size_t total = 0, want, done = 0;
	bool stream;
	size_t i;
	int r;

	memset(m, 0, sizeof(*m));
	r = sv_read_memory(call, at, &remote, sizeof(remote));
	if (r < 0)
		return r;
	if (remote.msg_name != NULL && remote.msg_namelen > 0) {
		if (remote.msg_namelen > sizeof(m->name))
			return -EINVAL;
		r = sv_read_memory(call, (uintptr_t)remote.msg_name, &m->name,
				   remote.msg_namelen);
		if (r < 0)
			return r;
		m->hdr.msg_name = &m->name;
		m->hdr.msg_namelen = remote.msg_namelen;
	}
	if (remote.msg_iovlen > IOV_LIMIT)
		return -EMSGSIZE;
	iovs = calloc(remote.msg_iovlen + 1, sizeof(*iovs));
	if (iovs == NULL)
		return -ENOMEM;
	r = sv_read_memory(call, (uintptr_t)remote.msg_iov, iovs,
			   remote.msg_iovlen * sizeof(*iovs));
	for (i = 0; r == 0 && i < remote.msg_iovlen; i++) {
		if (iovs[i].iov_len > SSIZE_MAX - total)
			r = -EINVAL;
		else
			total += iovs[i].iov_len;
	}
	stream = socket_option(sock, SO_TYPE) == SOCK_STREAM;
	if (r == 0 && total > SEND_COPY_LIMIT && !stream)
		r = -EMSGSIZE;
	want = total > SEND_COPY_LIMIT ? SEND_COPY_LIMIT : total;
	if (r == 0 && (m->data = malloc(want + 1)) == NULL)
		r = -ENOMEM;
	for (i = 0; r == 0 && i < remote.msg_iovlen && done < want; i++) {
		size_t n = iovs[i].iov_len < want - done ? iovs[i].iov_len : want - done;

		r = sv_read_memory(call, (uintptr_t)iovs[i].iov_base, m->data + done, n);
		done += n;
	}
	free(iovs);
	if (r < 0)
		return r;
	m->iov.iov_base = m->data;
	m->iov.iov_len = want;
	m->hdr.msg_iov = &m->iov;
	m->hdr.msg_iovlen = 1;
	if (remote.msg_control != NULL && remote.msg_controllen > 0) {
		if (remote.msg_controllen > CONTROL_LIMIT)
			return -ENOBUFS;
		m->control = malloc(remote.msg_controllen);
		if (m->control == NULL)
			return -ENOMEM;
		r = sv_read_memory(call, (uintptr_t)remote.msg_control, m->control,
				   remote.msg_controllen);
		if (r < 0)
			return r;
		m->hdr.msg_control = m->control;
		m->hdr.msg_controllen = remote.msg_controllen;
		r = translate_control(call, m);
	}
	return r;
}

/* Where a sendmmsg's message stands, for a send that has to wait. */
struct mmsg_place {
	unsigned int index;
	uint64_t msglen_addr;
};

/*
 * Sends without waiting; a send the command would have waited for goes to
 * a waiter: all of it (nothing was sent), or the rest of a stream send
 * (the control messages went with its head). Returns the result,
 * SV_RESULT_PENDING, or -errno. A sendmmsg's later message that would wait
 * is not waited for (the caller returns the count so far).
 */
static int64_t send_now_or_wait(struct sv_call *call, int sock, struct message *m, int flags,
				const struct mmsg_place *place)
{
	struct sv_blocking_op op = { .sock = sock, .flags = flags, .msg = &m->hdr };
	struct msghdr rest;
	struct iovec rest_iov;
	ssize_t n;

	/* A TCP Fast Open send connects first: tried without waiting it would
	 * start the handshake and answer EINPROGRESS, which a blocking socket
	 * never gives. The waiter makes it whole. */
	if ((flags & MSG_FASTOPEN) != 0 && command_waits(sock, flags) &&
	    (place == NULL || place->index == 0)) {
		if (place != NULL) {
			op.is_mmsg = true;
			op.msglen_addr = place->msglen_addr;
		}
		return sv_wait_start(call, &op);
	}
	n = sv_sendmsg(sock, &m->hdr, flags | MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n >= 0 && ((size_t)n >= m->iov.iov_len ||
		       socket_option(sock, SO_TYPE) != SOCK_STREAM))
		return n;
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		return -errno;
	if (!command_waits(sock, flags))
		return n >= 0 ? n : -EAGAIN;
	if (n < 0 && place != NULL && place->index > 0)
		return -EAGAIN;
	if (n > 0) {
		memset(&rest, 0, sizeof(rest));
		rest_iov.iov_base = (char *)m->iov.iov_base + n;
		rest_iov.iov_len = m->iov.iov_len - (size_t)n;
		rest.msg_iov = &rest_iov;
		rest.msg_iovlen = 1;
		op.msg = &rest;
		op.done = n;
	}
	if (place != NULL) {
		op.is_mmsg = true;
		op.mmsg_index = place->index;
		op.msglen_addr = place->msglen_addr;
	}
	return sv_wait_start(call, &op);
}

/* Sends one copied message; raises SIGPIPE on the command's thread where
 * the kernel would have raised it on the command. */
static int64_t send_message(struct sv_call *call, int sock, struct message *m, int flags,
			    const struct mmsg_place *place)
{
	struct sv_target pinned;
	socklen_t len = m->hdr.msg_namelen;
	int64_t result;
	int r = 0;

	sv_target_init(&pinned);
	if (m->hdr.msg_name != NULL) {
		r = check_address(call, sock, &m->name, &len, &pinned);
		m->hdr.msg_namelen = len;
	}
	if (r < 0)
		result = r;
	else if (!sv_call_valid(call))
		result = -ENOENT;
	else
		result = send_now_or_wait(call, sock, m, flags, place);
	sv_target_close(&pinned);
	if (result == -EPIPE && !(flags & MSG_NOSIGNAL) && call->pidfd >= 0)
		(void)syscall(SYS_pidfd_send_signal, call->pidfd, SIGPIPE, NULL, 0);
	return result;
}

static int64_t do_sendto(struct sv_call *call)
{
	const __u64 *args = call->req->data.args;
	socklen_t len = (socklen_t)(unsigned int)args[5];
	size_t size = (size_t)args[2];
	struct message m;
	int64_t result;
	int sock;
	int r;

	memset(&m, 0, sizeof(m));
	if ((int)len < 0 || len > sizeof(m.name))
		return -EINVAL;
	sock = sv_command_fd(call, (int)args[0]);
	if (sock < 0)
		return sock;
	if (size > SEND_COPY_LIMIT)
		size = socket_option(sock, SO_TYPE) == SOCK_STREAM ? SEND_COPY_LIMIT : 0;
	r = size == 0 && args[2] != 0 ? -EMSGSIZE : 0;
	if (r == 0 && (m.data = malloc(size + 1)) == NULL)
		r = -ENOMEM;
	if (r == 0)
		r = sv_read_memory(call, args[1], m.data, size);
	if (r == 0)
		r = sv_read_memory(call, args[4], &m.name, len);
	if (r == 0) {
		m.iov.iov_base = m.data;
		m.iov.iov_len = size;
		m.hdr.msg_iov = &m.iov;
		m.hdr.msg_iovlen = 1;
		m.hdr.msg_name = &m.name;
		m.hdr.msg_namelen = len;
		result = send_message(call, sock, &m, (int)args[3], NULL);
	} else {
		result = r;
	}
	message_free(&m);
	close(sock);
	return result;
}

static int64_t do_sendmsg(struct sv_call *call)
{
	const __u64 *args = call->req->data.args;
	struct message m;
	int64_t result;
	int sock = sv_command_fd(call, (int)args[0]);
	int r;

	if (sock < 0)
		return sock;
	r = read_message(call, sock, args[1], &m);
	result = r < 0 ? r : send_message(call, sock, &m, (int)args[2], NULL);
	message_free(&m);
	close(sock);
	return result;
}

static int64_t do_sendmmsg(struct sv_call *call)
{
	const __u64 *args = call->req->data.args;
	unsigned int vlen = (unsigned int)args[2];
	unsigned int sent = 0;
	int64_t result = 0;
	int sock = sv_command_fd(call, (int)args[0]);

	if (sock < 0)
		return sock;
	if (vlen > IOV_LIMIT)
		vlen = IOV_LIMIT;
	for (; sent < vlen; sent++) {
		uint64_t at = args[1] + (uint64_t)sent * sizeof(struct mmsghdr);
		struct mmsg_place place = { sent, at + offsetof(struct mmsghdr, msg_len) };
		struct message m;
		unsigned int count;
		int r = read_message(call, sock, at, &m);

		result = r < 0 ? r : send_message(call, sock, &m, (int)args[3], &place);
		message_free(&m);
		if (result == SV_RESULT_PENDING) {
			close(sock);
			return result; /* the waiter's answer counts this one */
		}
		if (result < 0)
			break;
		count = (unsigned int)result;
		(void)sv_write_memory(call, at + offsetof(struct mmsghdr, msg_len), &count,
				      sizeof(count));
	}
	close(sock);
	return sent > 0 ? (int64_t)sent : result;
}

/*
 * listen, notified only with the proxy (doc/SPEC.md 15,
 * "Nothing comes in"): an IP socket the command listens on would be
 * reachable from the host's network (bind is Landlock's to refuse, but an
 * unbound socket autobinds on 0.0.0.0 at listen). Refused for AF_INET and
 * AF_INET6, and for a unix socket bound to an abstract name; any other is
 * listened on here, on our duplicate (the
 * same open file description), so a socket put at the number after our
 * look is not the one that listens.
 */
/* Whether the unix socket `sock` is bound to an abstract name (an autobind,
 * a bind to an empty path, makes one too; an unbound one cannot listen,
 * EINVAL, as the kernel says it on our listen). Abstract names have no
 * permissions and live in the network namespace, which the run shares
 * with the host under the allowlist: any local user could connect (red
 * team, issue 29). A socket's name, once bound, does not change, so the
 * look holds for the listen we make on the same description. */
static bool abstract_listener(int sock)
{
	struct sockaddr_un addr;
	socklen_t len = sizeof(addr);

	if (getsockname(sock, (struct sockaddr *)&addr, &len) != 0)
		return true; /* not known: refused, as an abstract one */
	return len > offsetof(struct sockaddr_un, sun_path) && addr.sun_path[0] == '\0';
}

static int64_t do_listen(struct sv_call *call)
{
	static bool told_ip, told_abstract;
	const __u64 *args = call->req->data.args;
	int sock = sv_command_fd(call, (int)args[0]);
	int64_t result;
	int domain;

	if (sock < 0)
		return sock;
	domain = socket_option(sock, SO_DOMAIN);
	if (domain == AF_INET || domain == AF_INET6) {
		if (!told_ip)
			sv_tell(LAUNCHER_NETWORK_REFUSED "listen) an IP listener: nothing comes in "
				"from outside the run (clause network)");
		told_ip = true;
		result = -EACCES;
	} else if (domain == AF_UNIX && abstract_listener(sock)) {
		if (!told_abstract)
			sv_tell(LAUNCHER_NETWORK_REFUSED "listen) an abstract unix listener: nothing "
				"comes in from outside the run (clause network; a pathname "
				"socket in the temp area or a writable root works)");
		told_abstract = true;
		result = -EACCES;
	} else if (domain < 0) {
		result = domain; /* ENOTSOCK, as listen would say */
	} else {
		result = listen(sock, (int)args[1]) == 0 ? 0 : -errno;
	}
	close(sock);
	return result;
}

int64_t sv_handle_network(struct sv_call *call)
{
	switch (call->req->data.nr) {
	case SYS_listen:
		return do_listen(call);
	case SYS_connect:
		return do_connect(call);
	case SYS_sendto:
		return do_sendto(call);
	case SYS_sendmsg:
		return do_sendmsg(call);
	case SYS_sendmmsg:
		return do_sendmmsg(call);
	default:
		return -ENOSYS;
	}
}
