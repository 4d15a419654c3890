/*
 * The relay's byte pipe (proxy-internal.h; doc/SPEC.md 15; issue 29): once
 * a connection is past its head (CONNECT, SOCKS, a capture, plain HTTP
 * with its head forwarded), each way moves socket -> pipe -> socket with
 * splice(2), so the bytes are never copied through this process.
 *
 * A way (struct lane) first sends what its buffer holds (the rewritten
 * head, the tunnel's "200", bytes read with the head), then what its pipe
 * holds: the pipe's bytes are always the younger, so order is kept.
 *
 * Its pipe is made when the way first has bytes to move (O_CLOEXEC,
 * O_NONBLOCK, the default size), grown to PIPE_SIZE the first time it
 * fills, where the kernel allows it (the pages of a pipe's size count
 * against fs.pipe-user-pages-soft, so a way that carries a request only
 * keeps the small pipe; past that limit the grow fails, which only moves
 * less per call), and closed with the connection. No pipe (the descriptor budget
 * spent, pipe2 failed) or splice failing with EINVAL or ENOSYS: the way
 * copies through its buffer, recv and send, as before splice; what its
 * pipe still held is read out first.
 *
 * Descriptors: at start the soft RLIMIT_NOFILE is raised toward the hard
 * one to what MAX_CONNS connections need (three each, four more for two
 * pipes). The connections' own descriptors come first: proxy_conn_limit is
 * how many connections the limit holds at three each (MAX_CONNS when it
 * holds them all; accept_one makes room or closes a new one past it), and
 * pipes are made only from what is left, so a pipe never takes a
 * descriptor a connection needs, and a way with none copies.
 *
 * Nothing to allow: the proxy runs under no seccomp filter (the deny-list
 * is installed in the command's child only, parent.c), and its Landlock
 * domain (no file rule) governs no anonymous pipe, so pipe2, splice and
 * F_SETPIPE_SZ need no rule; only fs.pipe-max-size (1 MiB by default)
 * and fs.pipe-user-pages-soft bound the grow, with no capability left.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy-internal.h"

/* The descriptors the process holds besides connections: 0-2 (stderr is
 * kept), the listener, the lifeline, the status channel, the ask socket,
 * the epoll instance, and slack. */
#define FIXED_FDS 16

size_t proxy_conn_limit = MAX_CONNS;
static size_t pipe_fds_budget, pipe_fds_open;

void proxy_relay_init(void)
{
	struct rlimit rl;
	rlim_t need = FIXED_FDS + (rlim_t)MAX_CONNS * (3 + 4), have;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		rl.rlim_cur = rl.rlim_max = 1024;
	if (rl.rlim_cur < need && rl.rlim_max > rl.rlim_cur) {
		struct rlimit raised = { .rlim_cur = rl.rlim_max < need ? rl.rlim_max : need,
					 .rlim_max = rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &raised) == 0)
			rl.rlim_cur = raised.rlim_cur;
	}
	have = rl.rlim_cur > FIXED_FDS ? rl.rlim_cur - FIXED_FDS : 0;
	if (have >= (rlim_t)MAX_CONNS * 3) {
		proxy_conn_limit = MAX_CONNS;
		have -= (rlim_t)MAX_CONNS * 3;
		pipe_fds_budget = have > (rlim_t)MAX_CONNS * 4 ? (size_t)MAX_CONNS * 4 : (size_t)have;
	} else {
		proxy_conn_limit = have / 3 > 0 ? (size_t)(have / 3) : 1;
		pipe_fds_budget = 0;
	}
	pipe_fds_open = 0;
}

void proxy_lane_reset(struct lane *l)
{
	l->pipe[0] = l->pipe[1] = -1;
	l->piped = l->cap = 0;
	l->copy = l->full = l->grown = false;
}

void proxy_lane_close(struct lane *l)
{
	if (l->pipe[0] >= 0) {
		close(l->pipe[0]);
		close(l->pipe[1]);
		pipe_fds_open -= 2;
	}
	proxy_lane_reset(l);
}

/* The way's pipe, made at its first bytes; false: it copies. */
static bool lane_open(struct lane *l)
{
	int size;

	if (l->copy)
		return false;
	if (l->pipe[0] >= 0)
		return true;
	if (pipe_fds_open + 2 > pipe_fds_budget || pipe2(l->pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
		l->pipe[0] = l->pipe[1] = -1;
		l->copy = true;
		return false;
	}
	pipe_fds_open += 2;
	size = fcntl(l->pipe[1], F_GETPIPE_SZ);
	l->cap = size > 0 ? (size_t)size : 4096;
	return true;
}

/* The pipe filled: a bulk way. PIPE_SIZE, once, if the kernel gives it. */
static void lane_grow(struct lane *l)
{
	int size;

	if (l->grown)
		return;
	l->grown = true;
	size = fcntl(l->pipe[1], F_SETPIPE_SZ, PIPE_SIZE);
	if (size > 0 && (size_t)size > l->cap) {
		l->cap = (size_t)size;
		l->full = false;
	}
}

/* Moves bytes from `from` into buf; returns false on an error. */
bool proxy_fill(int from, unsigned char *buf, size_t *len, size_t cap, bool *eof)
{
	ssize_t n;

	if (*len >= cap)
		return true;
	n = recv(from, buf + *len, cap - *len, 0);
	if (n > 0)
		*len += (size_t)n;
	else if (n == 0)
		*eof = true;
	else if (errno != EAGAIN && errno != EINTR)
		return false;
	return true;
}

bool proxy_drain(int to, unsigned char *buf, size_t *len)
{
	ssize_t n;

	if (*len == 0)
		return true;
	n = send(to, buf, *len, MSG_NOSIGNAL);
	if (n > 0) {
		memmove(buf, buf + n, *len - (size_t)n);
		*len -= (size_t)n;
	} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
		return false;
	}
	return true;
}

bool proxy_lane_wants_in(size_t len, const struct lane *l)
{
	if (l->copy) /* what the pipe still holds goes out first */
		return l->piped == 0 && len < BUF_SIZE;
	/* no pipe yet (made at the first read), or room in it */
	return l->pipe[0] < 0 || (l->piped < l->cap && !l->full);
}

bool proxy_relay_in(int from, unsigned char *buf, size_t *len, bool *eof, struct lane *l)
{
	ssize_t n;

	if (!lane_open(l))
		/* copying; bytes still in the pipe are read out first (out) */
		return l->piped > 0 ? true : proxy_fill(from, buf, len, BUF_SIZE, eof);
	if (l->piped >= l->cap || l->full)
		return true;
	n = splice(from, NULL, l->pipe[1], NULL, l->cap - l->piped,
		   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n > 0) {
		l->piped += (size_t)n;
		if (l->piped >= l->cap)
			lane_grow(l);
	} else if (n == 0) {
		*eof = true;
	} else if (errno == EAGAIN) {
		/* The socket is empty, or the pipe has no slot left (a slot
		 * holds a page or less, so a pipe fills before cap bytes):
		 * with bytes in it, the way waits for them to go out. */
		if (l->piped > 0) {
			l->full = true;
			lane_grow(l);
		}
	} else if (errno == EINVAL || errno == ENOSYS) {
		l->copy = true;
		return l->piped > 0 ? true : proxy_fill(from, buf, len, BUF_SIZE, eof);
	} else if (errno != EINTR) {
		return false;
	}
	return true;
}

bool proxy_relay_out(int to, unsigned char *buf, size_t *len, struct lane *l)
{
	ssize_t n;

	if (!proxy_drain(to, buf, len))
		return false;
	if (*len > 0 || l->piped == 0)
		return true;
	if (!l->copy) {
		n = splice(l->pipe[0], NULL, to, NULL, l->piped, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n > 0) {
			l->piped -= (size_t)n;
			l->full = false;
			return true;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return true;
		if (n == 0 || (errno != EINVAL && errno != ENOSYS))
			return false;
		l->copy = true;
	}
	/* Copying: what the pipe holds goes through the buffer. */
	while (l->piped > 0 && *len == 0) {
		n = read(l->pipe[0], buf, l->piped < BUF_SIZE ? l->piped : BUF_SIZE);
		if (n <= 0)
			return n < 0 && errno == EINTR;
		l->piped -= (size_t)n;
		*len = (size_t)n;
		if (!proxy_drain(to, buf, len))
			return false;
	}
	return true;
}
