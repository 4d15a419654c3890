/* SPDX-License-Identifier: MIT */
/*
 * The run's output streams: what the child writes to a CAPTURE or TEE
 * stream is read here, kept up to the capture limit (beyond it the stream
 * is marked truncated) and, for TEE, copied live to the caller's
 * descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "spawn/spawn.h"

/* Per pump, per stream: bound one pass so a flooding child cannot starve the
 * timeout checks. */
#define CF_PUMP_MAX_BYTES (1024 * 1024)

/* ---- SIGPIPE: a closed tee reader must not kill the library's host ---- */

#if HAVE_F_SETNOSIGPIPE
/* macOS raises a write's SIGPIPE on the process, not on the writing thread,
 * so a signal mask cannot keep another thread of the caller (one with
 * SIGPIPE unblocked) from taking it and dying. Suppress it on the descriptor
 * for these writes and put the caller's setting back after; until then
 * other writers sharing this open file get EPIPE instead of SIGPIPE.
 * Returns what to restore: 0 when it was off and is now on, else -1. */
static int nosigpipe_begin(int fd) {
	int was = fcntl(fd, F_GETNOSIGPIPE);
	if (was == 0 && fcntl(fd, F_SETNOSIGPIPE, 1) < 0)
		was = -1;
	return was;
}

static void nosigpipe_end(int fd, int saved) {
	if (saved == 0)
		(void)fcntl(fd, F_SETNOSIGPIPE, 0);
}
#else
static int nosigpipe_begin(int fd) {
	(void)fd;
	return -1;
}

static void nosigpipe_end(int fd, int saved) {
	(void)fd;
	(void)saved;
}
#endif

#if HAVE_SIGTIMEDWAIT
/* Takes the SIGPIPE our write raised (blocked on this thread) off the
 * pending set without waiting. */
static void consume_sigpipe(const sigset_t *pipe_set) {
	struct timespec zero = { 0, 0 };
	while (sigtimedwait(pipe_set, NULL, &zero) < 0 && errno == EINTR)
		;
}
#else
/* No sigtimedwait: sigwait blocks, so only call it when the SIGPIPE is
 * known to be pending. Where a write's SIGPIPE goes to the writing thread
 * (Linux, the BSDs), it is blocked there, so no other thread can take it
 * between the check and the sigwait. On macOS, where it goes to the
 * process, F_SETNOSIGPIPE keeps it from being raised at all. A SIGPIPE the
 * system discarded (ignored when raised) is simply not pending. */
static void consume_sigpipe(const sigset_t *pipe_set) {
	sigset_t pending;
	int sig;
	sigpending(&pending);
	if (sigismember(&pending, SIGPIPE))
		(void)sigwait(pipe_set, &sig);
}
#endif

/* Writes all of `data` to the tee target without letting a closed reader
 * raise SIGPIPE in the caller (the library must not kill its host). */
static void tee_write(struct cf_stream *s, const char *data, size_t len) {
	sigset_t pipe_set, old, pending;
	bool was_pending;
	bool got_epipe = false;
	int nosigpipe;

	if (s->tee_fd < 0 || s->tee_broken)
		return;
	nosigpipe = nosigpipe_begin(s->tee_fd);
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	while (len > 0) {
		ssize_t n = write(s->tee_fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				struct pollfd pfd = { .fd = s->tee_fd, .events = POLLOUT };
				(void)poll(&pfd, 1, 100);
				continue;
			}
			if (errno == EPIPE)
				got_epipe = true;
			s->tee_broken = true;
			break;
		}
		data += n;
		len -= (size_t)n;
	}
	if (got_epipe && !was_pending)
		consume_sigpipe(&pipe_set);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	nosigpipe_end(s->tee_fd, nosigpipe);
}

/* ---- capture ---- */

/* Reads what is available on one stream. */
static void pump_stream(confine_process *p, struct cf_stream *s) {
	char chunk[16384];
	size_t pumped = 0;
	while (s->fd >= 0 && pumped < CF_PUMP_MAX_BYTES) {
		ssize_t n = read(s->fd, chunk, sizeof chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			cf_close_fd(&s->fd);
			return;
		}
		if (n == 0) {
			cf_close_fd(&s->fd);
			return;
		}
		pumped += (size_t)n;
		tee_write(s, chunk, (size_t)n);
		if (s->buf.len < p->capture_limit) {
			size_t room = p->capture_limit - s->buf.len;
			size_t keep = (size_t)n < room ? (size_t)n : room;
			if (cf_buf_append(&s->buf, chunk, keep) < 0)
				s->truncated = true; /* out of memory: keep what we have */
			else if (keep < (size_t)n)
				s->truncated = true;
		} else {
			s->truncated = true;
		}
	}
}

void cf_streams_pump(confine_process *p) {
	for (int i = 1; i < 3; i++)
		pump_stream(p, &p->streams[i]);
}

bool cf_streams_open(const confine_process *p) {
	return p->streams[1].fd >= 0 || p->streams[2].fd >= 0;
}

int cf_stream_copy(const struct cf_stream *s, char **data, size_t *len, bool *truncated) {
	*truncated = s->truncated;
	if (!s->captured) {
		*data = NULL;
		*len = 0;
		return 0;
	}
	*data = malloc(s->buf.len + 1);
	if (!*data)
		return -ENOMEM;
	if (s->buf.len)
		memcpy(*data, s->buf.data, s->buf.len);
	(*data)[s->buf.len] = '\0';
	*len = s->buf.len;
	return 0;
}
