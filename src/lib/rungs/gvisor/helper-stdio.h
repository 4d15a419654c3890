/* SPDX-License-Identifier: MIT */
/*
 * confine-gvisor's standard streams (helper-stdio.c): a stream runsc would
 * fchown on the host (neither a pipe nor a socket) goes to runsc as a pipe
 * the helper copies to and from.
 */
#ifndef CONFINE_RUNGS_GVISOR_HELPER_STDIO_H
#define CONFINE_RUNGS_GVISOR_HELPER_STDIO_H

#include <stdbool.h>
#include <stddef.h>

typedef struct gv_stdio {
	/* Per stream 0..2: the pipe end runsc gets as that stream, and the
	 * helper's (non-blocking); -1 where the caller's is passed as is. */
	int inner[3], mine[3];
	bool relayed;
	/* stdin: one chunk read from the caller, not yet in the pipe. */
	char in_buf[16384];
	size_t in_len, in_off;
	bool in_eof;
} gv_stdio;

/* gv_stdio_pump()'s result bits. */
#define GV_STDIO_WOKEN 1 /* wake_fd is readable */
#define GV_STDIO_MOVED 2 /* a stream moved (data or its end) */

/* Pipes for the caller's streams that are not pipes or sockets, when
 * `chowned` (runsc run as root). 0 or -errno (nothing left open). */
int gv_stdio_setup(gv_stdio *s, bool chowned);
/* In the child before exec: the pipes onto 0..2. Async-signal-safe. */
void gv_stdio_in_child(const gv_stdio *s);
/* In the parent after fork: runsc's ends closed. */
void gv_stdio_in_parent(gv_stdio *s);
/* One round: waits up to timeout_ms (-1: no bound) for a stream or
 * wake_fd (-1: none), moves what is ready. GV_STDIO_* bits, or -errno. */
int gv_stdio_pump(gv_stdio *s, int wake_fd, int timeout_ms);
/* After runsc returned: the rest of the command's output, then closed. */
void gv_stdio_drain(gv_stdio *s);
void gv_stdio_close(gv_stdio *s);

#endif
