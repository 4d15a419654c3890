/*
 * The decider (ask.h; doc/SPEC.md 15, "Ask").
 */
#include "ask.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "channel.h"
#include "launcher-protocol.h"

struct question {
	bool open;
	unsigned id;
	char host[256];
	unsigned port;
};

static int ask_fd = -1;
static struct proxy_answers answers;
static struct question questions[MAX_CONNS];
static unsigned next_id = 1;
static char inbox[LAUNCHER_RECORD_MAX];
static size_t inbox_len;
/* The host and port of each decision recorded (one record each). */
static struct proxy_answers recorded;

void proxy_ask_init(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	ask_fd = fd;
	if (flags >= 0)
		(void)fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

const struct proxy_answers *proxy_ask_answers(void)
{
	return &answers;
}

void proxy_record_decision(const char *host, unsigned port, bool allow, const char *by)
{
	if (by == NULL || proxy_answers_find(&recorded, host, port) != NULL)
		return;
	if (!proxy_answers_put(&recorded, host, port, allow, NULL)) {
		record_decision_dropped(); /* past the table: counted */
		return;
	}
	record_decision(host, port, allow, by);
}

void proxy_record_allowed(struct conn *c)
{
	if (c->allowed_by == NULL)
		return;
	proxy_record_decision(c->host, c->port, true, c->allowed_by);
	c->allowed_by = NULL;
}

static struct question *find_question(const char *host, unsigned port)
{
	size_t i;

	for (i = 0; i < MAX_CONNS; i++)
		if (questions[i].open && questions[i].port == port &&
		    strcmp(questions[i].host, host) == 0)
			return &questions[i];
	return NULL;
}

static void unanswerable(struct conn *c, const char *why)
{
	struct proxy_refusal r;

	proxy_decide_refused_by_decider(c->host, c->port, why, &r);
	proxy_record_decision(c->host, c->port, false, "decider");
	proxy_refuse(c, &r);
}

void proxy_ask(struct conn *c)
{
	struct question *q = find_question(c->host, c->port);
	char line[LAUNCHER_RECORD_MAX];
	size_t i;
	int n;

	if (q == NULL) {
		for (i = 0; i < MAX_CONNS && questions[i].open; i++)
			;
		n = snprintf(line, sizeof(line), LAUNCHER_ASK_QUESTION " %u %s %u\n", next_id,
			     c->host, c->port);
		/* A question the socket cannot take whole now is not asked:
		 * the request is refused, never held without a question. */
		if (i == MAX_CONNS || ask_fd < 0 || n <= 0 || (size_t)n >= sizeof(line) ||
		    send(ask_fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) != n) {
			unanswerable(c, "the decider cannot be asked");
			return;
		}
		q = &questions[i];
		q->open = true;
		q->id = next_id++;
		q->port = c->port;
		snprintf(q->host, sizeof(q->host), "%s", c->host);
	}
	c->ask_id = q->id;
	c->state = ST_ASK;
	c->deadline = proxy_now() + PROXY_ASK_SECONDS;
	proxy_rearm(c);
}

/* Every connection waiting on q goes on (allowed) or is refused. */
static void settle(struct question *q, bool allow, const char *reason)
{
	struct proxy_refusal r;
	size_t i, waiting = 0;

	(void)proxy_answers_put(&answers, q->host, q->port, allow, reason);
	/* An allow is recorded once an address is judged (loop.c), unless no
	 * connection waits to be judged. */
	for (i = 0; allow && i < MAX_CONNS; i++)
		if (proxy_conns[i].used && proxy_conns[i].state == ST_ASK &&
		    proxy_conns[i].ask_id == q->id)
			waiting++;
	if (!allow || waiting == 0)
		proxy_record_decision(q->host, q->port, allow, "decider");
	q->open = false;
	for (i = 0; i < MAX_CONNS; i++) {
		struct conn *c = &proxy_conns[i];

		if (!c->used || c->state != ST_ASK || c->ask_id != q->id)
			continue;
		if (allow) {
			c->deadline = 0;
			c->allowed_by = "decider";
			proxy_resolve_and_connect(c);
		} else {
			proxy_decide_refused_by_decider(c->host, c->port, reason, &r);
			proxy_refuse(c, &r);
		}
	}
}

static void take_answer(const char *line, size_t len)
{
	struct launcher_answer a;
	char reason[PROXY_REASON_MAX + 1];
	size_t i, n;

	if (launcher_answer_parse(line, len, &a) < 0)
		return;
	n = a.reason_length < PROXY_REASON_MAX ? a.reason_length : PROXY_REASON_MAX;
	memcpy(reason, a.reason, n);
	reason[n] = '\0';
	for (i = 0; i < MAX_CONNS; i++)
		if (questions[i].open && questions[i].id == a.id) {
			settle(&questions[i], a.allow, reason);
			return;
		}
}

void proxy_ask_readable(void)
{
	ssize_t got;
	char *nl;

	got = recv(ask_fd, inbox + inbox_len, sizeof(inbox) - inbox_len, MSG_DONTWAIT);
	if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
		/* The asker is gone: every open question is answered no. */
		size_t i;

		for (i = 0; i < MAX_CONNS; i++)
			if (questions[i].open) {
				struct question *q = &questions[i];
				size_t k;

				q->open = false;
				for (k = 0; k < MAX_CONNS; k++)
					if (proxy_conns[k].used && proxy_conns[k].state == ST_ASK &&
					    proxy_conns[k].ask_id == q->id)
						unanswerable(&proxy_conns[k], "the decider is gone");
			}
		close(ask_fd);
		ask_fd = -1;
		return;
	}
	if (got < 0)
		return;
	inbox_len += (size_t)got;
	while ((nl = memchr(inbox, '\n', inbox_len)) != NULL) {
		size_t len = (size_t)(nl - inbox) + 1;

		take_answer(inbox, len);
		memmove(inbox, inbox + len, inbox_len - len);
		inbox_len -= len;
	}
	if (inbox_len == sizeof(inbox))
		inbox_len = 0; /* a line longer than a record: dropped */
}

void proxy_ask_expired(struct conn *c)
{
	struct proxy_refusal r;

	/* The question stays open: a late answer is kept for the next
	 * request. */
	proxy_decide_refused_by_decider(c->host, c->port, NULL, &r);
	proxy_record_decision(c->host, c->port, false, "decider");
	proxy_refuse(c, &r);
}
