/*
 * What the launcher tells its caller: failure lines on stderr and records
 * on the status channel (`--status-fd N`, launcher-protocol.h).
 */
#ifndef LAUNCHER_CHANNEL_H
#define LAUNCHER_CHANNEL_H

#include <stdbool.h>
#include <sys/types.h>

#include "launcher-protocol.h"

/* Takes fd as the status channel: marks it close-on-exec at once, so the
 * command never holds it. Returns 0, or -errno when fd is not open. */
int channel_open(int fd);

/* Forgets the channel (the proxy's child without one). */
void channel_close(void);

/* The channel descriptor, or -1 without --status-fd. */
int channel_fd(void);

/* Prints "landlock-run: <message>" as one stderr line and, when the
 * channel is open, the record "error <that line>". Use for every failure
 * before the command runs. */
void report_failure(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* The stderr line alone, for a failure the channel words its own way
 * (exec-failed) or for a notice. */
void report_line(const char *format, ...) __attribute__((format(printf, 1, 2)));

void record_layers(unsigned layers);
void record_started(pid_t pid);
void record_exec_failed(int error);
/* "denied <clause> <op> <object>": a refusal of the supervisor. At most
 * LAUNCHER_DENIED_MAX per run, each once, and only where the pipe has room
 * for it and the final record: it never blocks the supervisor. */
void record_denied(const char *clause, const char *op, const char *object);
/* "refused <clause> <host> <port> <reason>": a refusal of the proxy (its
 * host "-" when it is not one word of host characters). "decision <host>
 * <port> allow|deny <by>": what a name got, once per host and port. Each
 * only where the pipe has room, like record_denied, at most
 * LAUNCHER_REFUSED_MAX and LAUNCHER_DECISIONS_MAX a run. */
void record_refused(const char *clause, const char *host, unsigned port, const char *why);
void record_decision(const char *host, unsigned port, bool allow, const char *by);
/* A decision that cannot be recorded (the proxy's table of recorded names
 * is full): counted in the `dropped` record. */
void record_decision_dropped(void);
/* "exit <code>" or "signal <n>" from a wait status, after "dropped <denied>
 * <refused> <decision>" when any record was not written. */
void record_wait_status(int wait_status);

#endif
