/* SPDX-License-Identifier: MIT */
/*
 * The run's decider (doc/SPEC.md 15, "Ask"): the launcher's proxy asks on
 * the ask socket ("ask <id> <host> <port>", launcher-protocol.h) for a
 * host on neither network list; the thread that waits for the run reads
 * the question, calls confine_spawn_options.ask_host and writes the
 * answer ("answer <id> allow|deny <reason>"). Without a decider every
 * question is answered deny.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher-protocol.h"
#include "spawn/spawn.h"

static void answer(confine_process *p, const struct launcher_question *q) {
	char host[256], reason[256] = "", line[LAUNCHER_RECORD_MAX];
	bool allow = false;
	size_t n = q->host_length < sizeof host ? q->host_length : sizeof host - 1;
	int len;
	memcpy(host, q->host, n);
	host[n] = '\0';
	if (p->ask_host)
		allow = p->ask_host(p->ask_host_data, host, q->port, reason, sizeof reason);
	else
		snprintf(reason, sizeof reason, "this run has no decider");
	reason[sizeof reason - 1] = '\0';
	/* one line: the first of what the decider said, control bytes out */
	reason[strcspn(reason, "\r\n")] = '\0';
	for (char *c = reason; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	len = snprintf(line, sizeof line, LAUNCHER_ASK_ANSWER " %ld %s %s\n", q->id,
	               allow ? "allow" : "deny", reason);
	if (len > 0 && (size_t)len < sizeof line)
		(void)send(p->ask_fd, line, (size_t)len, MSG_NOSIGNAL);
}

void cf_ask_pump(confine_process *p) {
	for (;;) {
		ssize_t got;
		char *nl;
		if (p->ask_fd < 0)
			return;
		got = recv(p->ask_fd, p->ask_pending + p->n_ask_pending,
		           sizeof p->ask_pending - p->n_ask_pending, MSG_DONTWAIT);
		if (got < 0 && errno == EINTR)
			continue;
		if (got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) {
			cf_close_fd(&p->ask_fd);
			return;
		}
		if (got < 0)
			return;
		p->n_ask_pending += (size_t)got;
		while ((nl = memchr(p->ask_pending, '\n', p->n_ask_pending)) != NULL) {
			size_t len = (size_t)(nl - p->ask_pending) + 1;
			struct launcher_question q;
			/* Each question once, in the proxy's order; a line that
			 * repeats or goes back is not answered (a forged line
			 * cannot settle a real question), and the host is a
			 * DNS name (launcher_question_parse checks it again). */
			if (launcher_question_parse(p->ask_pending, len, &q) == 0 &&
			    q.id > p->ask_last_id) {
				p->ask_last_id = q.id;
				answer(p, &q);
			}
			memmove(p->ask_pending, p->ask_pending + len, p->n_ask_pending - len);
			p->n_ask_pending -= len;
		}
		if (p->n_ask_pending == sizeof p->ask_pending)
			p->n_ask_pending = 0; /* longer than any question: dropped */
	}
}
