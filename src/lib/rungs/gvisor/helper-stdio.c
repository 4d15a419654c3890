/* SPDX-License-Identifier: MIT */
/*
 * confine-gvisor's standard streams (doc/SPEC.md 22). `runsc run` as root
 * hands the sandbox its stdin, stdout and stderr after fchown()ing each to
 * the sandbox's user (runsc's configureStdios; skipped in rootless mode).
 * On a pipe or a socket that changes nothing on disk; on the caller's file,
 * terminal or /dev/null it changes an inode outside every grant (its ctime,
 * a set-ID bit the chown clears, maybe its owner): the escape suite saw the
 * caller's stdin file change on every run. So a stream that is neither a
 * pipe nor a socket is given to runsc as a pipe, and the helper copies
 * between that pipe and the caller's descriptor while runsc runs.
 */
#include "helper-stdio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool touches_no_inode(int fd) {
	struct stat st;
	if (fstat(fd, &st) < 0)
		return true; /* closed: nothing to hand over, nothing to chown */
	return S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode);
}

static void close_fd(int *fd) {
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int gv_stdio_setup(gv_stdio *s, bool chowned) {
	memset(s, 0, sizeof *s);
	for (int k = 0; k < 3; k++)
		s->inner[k] = s->mine[k] = -1;
	if (!chowned)
		return 0;
	for (int k = 0; k < 3; k++) {
		int p[2];
		if (touches_no_inode(k))
			continue;
		if (pipe2(p, O_CLOEXEC) < 0) {
			int e = errno;
			gv_stdio_close(s);
			return -e;
		}
		/* stdin: runsc reads p[0], the helper writes p[1]; else the
		 * other way round. The helper's end never blocks it. */
		s->inner[k] = k == 0 ? p[0] : p[1];
		s->mine[k] = k == 0 ? p[1] : p[0];
		(void)fcntl(s->mine[k], F_SETFL, O_NONBLOCK);
		s->relayed = true;
	}
	return 0;
}

void gv_stdio_in_child(const gv_stdio *s) {
	for (int k = 0; k < 3; k++)
		if (s->inner[k] >= 0)
			(void)dup2(s->inner[k], k); /* dup2 clears close-on-exec */
}

void gv_stdio_in_parent(gv_stdio *s) {
	for (int k = 0; k < 3; k++)
		close_fd(&s->inner[k]);
}

void gv_stdio_close(gv_stdio *s) {
	for (int k = 0; k < 3; k++) {
		close_fd(&s->inner[k]);
		close_fd(&s->mine[k]);
	}
}

/* Writes all of buf to the caller's fd (blocking, as the command's own
 * write would be); false when it cannot take more. */
static bool write_all(int fd, const char *buf, size_t n) {
	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

/* One stream out of the sandbox: what the pipe holds now, to the caller. */
static void copy_out(gv_stdio *s, int k) {
	char buf[sizeof s->in_buf];
	for (;;) {
		ssize_t r = read(s->mine[k], buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return;
		if (r <= 0 || !write_all(k, buf, (size_t)r)) {
			/* EOF, or the caller's end is gone: closing ours gives the
			 * command EPIPE, as the caller's would have. */
			close_fd(&s->mine[k]);
			return;
		}
	}
}

/* stdin into the sandbox: read the caller's only when the pipe took the
 * last chunk, so the helper never holds more than one buffer. */
static void copy_in(gv_stdio *s, bool caller_ready) {
	if (s->in_len == 0 && caller_ready && !s->in_eof) {
		ssize_t r = read(0, s->in_buf, sizeof s->in_buf);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (r <= 0) {
			s->in_eof = true;
			close_fd(&s->mine[0]);
			return;
		}
		s->in_len = (size_t)r;
		s->in_off = 0;
	}
	while (s->in_len > 0) {
		ssize_t w = write(s->mine[0], s->in_buf + s->in_off, s->in_len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		if (w <= 0) { /* the command closed its stdin */
			s->in_len = 0;
			s->in_eof = true;
			close_fd(&s->mine[0]);
			return;
		}
		s->in_off += (size_t)w;
		s->in_len -= (size_t)w;
	}
}

int gv_stdio_pump(gv_stdio *s, int wake_fd, int timeout_ms) {
	struct pollfd p[5];
	int n = 0, i_in = -1, i_pipe_in = -1, i_out[3] = { -1, -1, -1 }, i_wake = -1, r;
	if (s->mine[0] >= 0) {
		if (s->in_len == 0 && !s->in_eof) {
			i_in = n;
			p[n++] = (struct pollfd){ .fd = 0, .events = POLLIN };
		} else if (s->in_len > 0) {
			i_pipe_in = n;
			p[n++] = (struct pollfd){ .fd = s->mine[0], .events = POLLOUT };
		}
	}
	for (int k = 1; k < 3; k++)
		if (s->mine[k] >= 0) {
			i_out[k] = n;
			p[n++] = (struct pollfd){ .fd = s->mine[k], .events = POLLIN };
		}
	if (wake_fd >= 0) {
		i_wake = n;
		p[n++] = (struct pollfd){ .fd = wake_fd, .events = POLLIN };
	}
	if (n == 0)
		return 0;
	if ((r = poll(p, (nfds_t)n, timeout_ms)) < 0)
		return errno == EINTR ? 0 : -errno;
	r = 0;
	for (int k = 1; k < 3; k++)
		if (i_out[k] >= 0 && p[i_out[k]].revents) {
			copy_out(s, k);
			r |= GV_STDIO_MOVED;
		}
	if (i_in >= 0 && p[i_in].revents) {
		copy_in(s, true);
		r |= GV_STDIO_MOVED;
	} else if (i_pipe_in >= 0 && p[i_pipe_in].revents) {
		copy_in(s, false);
		r |= GV_STDIO_MOVED;
	}
	if (i_wake >= 0 && p[i_wake].revents)
		r |= GV_STDIO_WOKEN;
	return r;
}

void gv_stdio_drain(gv_stdio *s) {
	/* runsc has returned and its sandbox with it: what the pipes still
	 * hold is the command's last output. The bound only ends a wait on a
	 * writer that outlived runsc (none should). */
	int idle = 0;
	close_fd(&s->mine[0]);
	while ((s->mine[1] >= 0 || s->mine[2] >= 0) && idle < 40) {
		int r = gv_stdio_pump(s, -1, 50);
		if (r < 0)
			break;
		idle = (r & GV_STDIO_MOVED) ? 0 : idle + 1;
	}
	gv_stdio_close(s);
}
