/* SPDX-License-Identifier: MIT */
/*
 * The status channel of a run the library spawns itself (doc/SPEC.md 12):
 * the runner (the launcher, inside bwrap or not) writes one record per
 * event on a pipe the command never holds. The records, not the command's
 * stderr, say whether the command started and how it ended.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "denials.h"
#include "launcher-protocol.h"
#include "spawn/spawn.h"

/* A `denied` record: the supervisor refused the command an operation on
 * an object (doc/SPEC.md 12, 13). Kept, decoded, for the outcome; one
 * that cannot be kept (no memory) is dropped, never guessed at. */
static void take_denial(struct cf_status *st, const struct launcher_record *rec) {
	char object[LAUNCHER_RECORD_MAX], clause[32], op[32];
	cf_denials list = { st->denials, st->n_denials, st->denials_dropped };
	if (!st->started || st->ended || rec->clause_length >= sizeof clause ||
	    rec->op_length >= sizeof op ||
	    launcher_object_decode(rec->text, rec->text_length, object, sizeof object) < 0)
		return;
	memcpy(clause, rec->clause, rec->clause_length);
	clause[rec->clause_length] = '\0';
	memcpy(op, rec->op, rec->op_length);
	op[rec->op_length] = '\0';
	(void)cf_denials_add(&list, op, object, NULL, clause);
	st->denials = list.items;
	st->n_denials = list.n;
	st->denials_dropped = list.dropped;
}

/* A `refused` record: the proxy refused a request (doc/SPEC.md 15): a
 * network denial "connect host:port", with the decider's reason. */
static void take_refusal(struct cf_status *st, const struct launcher_record *rec) {
	char address[300];
	cf_denials list = { st->denials, st->n_denials, st->denials_dropped };
	bool v6 = memchr(rec->host, ':', rec->host_length) != NULL && rec->host[0] != '[';
	bool by_decider = rec->clause_length == 11 && memcmp(rec->clause, "network.ask", 11) == 0;
	if (!st->started || st->ended || (rec->host_length == 1 && rec->host[0] == '-'))
		return;
	snprintf(address, sizeof address, v6 ? "[%.*s]:%ld" : "%.*s:%ld", (int)rec->host_length,
	         rec->host, rec->value);
	if (cf_denials_add(&list, "connect", NULL, address, "network") == 1 && by_decider) {
		confine_denial *d = &list.items[list.n - 1];
		d->reason = strndup(rec->text, rec->text_length);
	}
	st->denials = list.items;
	st->n_denials = list.n;
	st->denials_dropped = list.dropped;
}

static void take_decision(struct cf_status *st, const struct launcher_record *rec) {
	confine_network_decision *d;
	if (!st->started || st->ended || st->n_decisions >= LAUNCHER_DECISIONS_MAX)
		return;
	d = realloc(st->decisions, (st->n_decisions + 1) * sizeof *d);
	if (!d)
		return;
	st->decisions = d;
	d = &d[st->n_decisions];
	d->host = strndup(rec->host, rec->host_length);
	d->by = strndup(rec->op, rec->op_length);
	d->port = (unsigned)rec->value;
	d->allow = rec->allow;
	if (!d->host || !d->by) {
		free(d->host);
		free(d->by);
		return;
	}
	st->n_decisions++;
}

void cf_decisions_free(confine_network_decision *d, size_t n) {
	for (size_t i = 0; i < n; i++) {
		free(d[i].host);
		free(d[i].by);
	}
	free(d);
}

static void take_record(struct cf_status *st, const char *line, size_t len) {
	struct launcher_record rec;
	if (launcher_record_parse(line, len, &rec) < 0) {
		/* Before `started` an unreadable record is a runner failure; after
		 * it, the wait status decides (doc/SPEC.md 12). */
		if (!st->started)
			st->bad = true;
		return;
	}
	switch (rec.kind) {
	case LAUNCHER_RECORD_KIND_LAYERS:
		st->layers_seen = true;
		st->layers = rec.layers;
		break;
	case LAUNCHER_RECORD_KIND_STARTED:
		st->started = true;
		break;
	case LAUNCHER_RECORD_KIND_ERROR: {
		size_t n = rec.text_length < sizeof st->error - 1 ? rec.text_length
		                                                  : sizeof st->error - 1;
		if (!st->started) {
			memcpy(st->error, rec.text, n);
			st->error[n] = '\0';
		}
		break;
	}
	case LAUNCHER_RECORD_KIND_EXEC_FAILED:
		if (!st->started)
			st->exec_errno = (int)rec.value;
		break;
	case LAUNCHER_RECORD_KIND_DENIED:
		take_denial(st, &rec);
		break;
	case LAUNCHER_RECORD_KIND_REFUSED:
		take_refusal(st, &rec);
		break;
	case LAUNCHER_RECORD_KIND_DECISION:
		take_decision(st, &rec);
		break;
	case LAUNCHER_RECORD_KIND_DROPPED:
		if (st->started && !st->ended) {
			st->unsent_denied = (size_t)rec.dropped[0];
			st->unsent_refused = (size_t)rec.dropped[1];
			st->unsent_decisions = (size_t)rec.dropped[2];
		}
		break;
	case LAUNCHER_RECORD_KIND_CPU:
		if (st->started && !st->ended) {
			st->have_cpu = true;
			st->cpu_seconds = (double)rec.cpu_seconds + (double)rec.cpu_microseconds / 1e6;
		}
		break;
	case LAUNCHER_RECORD_KIND_EXIT:
	case LAUNCHER_RECORD_KIND_SIGNAL:
		if (st->started && !st->ended) {
			st->ended = true;
			st->signaled = rec.kind == LAUNCHER_RECORD_KIND_SIGNAL;
			st->code = (int)rec.value;
		}
		break;
	}
}

int cf_status_read(int fd, struct cf_status *st) {
	for (;;) {
		char buf[4096];
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
		}
		if (n == 0) {
			if (st->n_pending)
				take_record(st, st->pending, st->n_pending);
			st->n_pending = 0;
			return 1;
		}
		for (ssize_t i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				take_record(st, st->pending, st->n_pending);
				st->n_pending = 0;
			} else if (st->n_pending < sizeof st->pending) {
				st->pending[st->n_pending++] = buf[i];
			} else if (!st->started) {
				st->bad = true; /* longer than any record */
			}
		}
	}
}

bool cf_status_decided(const struct cf_status *st) {
	return st->started || st->error[0] || st->exec_errno || st->bad;
}

void cf_status_free(struct cf_status *st) {
	cf_denials list = { st->denials, st->n_denials, st->denials_dropped };
	cf_denials_free(&list);
	st->denials = NULL;
	st->n_denials = 0;
	cf_decisions_free(st->decisions, st->n_decisions);
	st->decisions = NULL;
	st->n_decisions = 0;
}

/* ---- the start of a run with a status channel ---- */

/* The command's name: the word after the runner's "--" (one per layer: a
 * supervising runner's (bwrap), then the launcher's). */
static const char *command_name(const confine_argv *c) {
	int layers = (c->runner_facts & CONFINE_RUNNER_FACT_SUPERVISES) ? 2 : 1;
	for (size_t i = 0; c->argv[i]; i++)
		if (strcmp(c->argv[i], "--") == 0 && --layers == 0)
			return c->argv[i + 1] ? c->argv[i + 1] : "";
	return c->argv[0];
}

/* The runner's own line in what was captured of stderr: the first line
 * that starts with one of its fatal signatures. */
static bool runner_line(const confine_process *p, char *out, size_t size) {
	const cf_buf *b = &p->streams[2].buf;
	const confine_argv *c = p->confined;
	size_t pos = 0;
	while (pos < b->len) {
		const char *line = b->data + pos;
		const char *nl = memchr(line, '\n', b->len - pos);
		size_t len = nl ? (size_t)(nl - line) : b->len - pos;
		for (size_t r = 0; r < c->n_rules; r++)
			for (char *const *sig = c->rules[r].fatal_signatures; sig && *sig; sig++)
				if ((*sig)[0] && len >= strlen(*sig) && strncmp(line, *sig, strlen(*sig)) == 0) {
					size_t n = len < size - 1 ? len : size - 1;
					memcpy(out, line, n);
					out[n] = '\0';
					return true;
				}
		pos += len + 1;
	}
	return false;
}

/* After the runner ended without starting the command: what it printed
 * (bounded: only the runner and its own helpers can still hold the pipes). */
static void drain(confine_process *p) {
	long long until = cf_now_ms() + 1000;
	while (cf_streams_open(p) && cf_now_ms() < until) {
		struct pollfd fds[2];
		nfds_t n = 0;
		for (int i = 1; i < 3; i++)
			if (p->streams[i].fd >= 0)
				fds[n++] = (struct pollfd){ .fd = p->streams[i].fd, .events = POLLIN };
		if (poll(fds, n, 100) < 0 && errno != EINTR)
			break;
		cf_streams_pump(p);
	}
}

int cf_await_start(confine_process *p, confine_error *err) {
	const confine_argv *c = p->confined;
	char detail[1200];
	int status = 0, r = 0;
	pid_t w;

	while (!cf_status_decided(&p->channel)) {
		struct pollfd fds[3];
		nfds_t n = 0;
		fds[n++] = (struct pollfd){ .fd = p->status_fd, .events = POLLIN };
		for (int i = 1; i < 3; i++)
			if (p->streams[i].fd >= 0)
				fds[n++] = (struct pollfd){ .fd = p->streams[i].fd, .events = POLLIN };
		if (poll(fds, n, -1) < 0 && errno != EINTR)
			break;
		cf_streams_pump(p);
		r = cf_status_read(p->status_fd, &p->channel);
		if (r != 0)
			break; /* end of the channel, or it cannot be read */
	}
	if (p->channel.started)
		return 0;

	/* The command never ran: the runner is ending; reap it, keep its words. */
	while ((w = waitpid(p->pid, &status, 0)) < 0 && errno == EINTR)
		;
	p->pid = -1;
	drain(p);
	if (p->channel.exec_errno) {
		int e = p->channel.exec_errno;
		return cf_error_set(err, e, CONFINE_E_SPAWN, "spawn", e, "cannot execute \"%s\": %s",
		                    command_name(c), strerror(e));
	}
	if (p->channel.error[0])
		snprintf(detail, sizeof detail, "%s", p->channel.error);
	else if (p->channel.bad)
		snprintf(detail, sizeof detail, "%s wrote a status record that cannot be read",
		         confine_runner_name(c->runner));
	else if (!runner_line(p, detail, sizeof detail)) {
		if (w > 0 && WIFSIGNALED(status)) {
			char buf[16];
			snprintf(detail, sizeof detail,
			         "%s was killed by signal %s before starting the command",
			         confine_runner_name(c->runner),
			         confine_signal_name(WTERMSIG(status), buf, sizeof buf));
		} else if (w > 0 && (c->runner_facts & CONFINE_RUNNER_FACT_SUPERVISES) &&
		           WEXITSTATUS(status) > 128 && WEXITSTATUS(status) < 128 + NSIG) {
			/* A supervising runner (bwrap) reports its child's death by
			 * signal N as 128+N: here the launcher inside it. */
			char buf[16];
			snprintf(detail, sizeof detail,
			         "%s exited with status %d (the launcher inside it was killed by "
			         "signal %s) before starting the command",
			         confine_runner_name(c->runner), WEXITSTATUS(status),
			         confine_signal_name(WEXITSTATUS(status) - 128, buf, sizeof buf));
		} else
			snprintf(detail, sizeof detail,
			         "%s exited with status %d before starting the command",
			         confine_runner_name(c->runner), w > 0 ? WEXITSTATUS(status) : -1);
	}
	r = confine_error_sandbox_unavailable(err, c->policy.mode, detail);
	if (err)
		err->stage = "runner";
	return r;
}
