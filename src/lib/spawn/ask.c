/* SPDX-License-Identifier: MIT */
/*
 * The run's decider (doc/SPEC.md 15, "Ask"): the launcher's proxy asks on
 * the ask socket ("ask <id> <host> <port>", launcher-protocol.h) for a
 * host on neither network list; the thread that waits for the run reads
 * the question and hands it to a thread of its own, which calls
 * confine_spawn_options.ask_host. The waiting thread never calls the
 * decider itself (red team R3-F2): it polls the question's socket beside
 * the run's, and answers ("answer <id> allow|deny <reason>") when the
 * decider has, or deny when CONFINE_ASK_HOST_SECONDS have passed, the
 * run's timeout is due, a signal that ends it was sent, or the run has
 * ended. A decider answering later is not waited for: its answer is
 * dropped, and the question's memory is freed by whichever of the two
 * threads lets go last. Without a decider every question is answered deny.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "launcher-protocol.h"
#include "spawn/spawn.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* One question with the decider: shared by the waiting thread and the
 * decider's thread, freed by the last to let go. */
struct cf_ask_job {
	bool (*ask_host)(void *, const char *, unsigned, char *, size_t);
	void *data;
	char host[256];
	unsigned port;
	char reason[256];
	bool allow;
	atomic_bool done; /* allow and reason are written */
	atomic_int refs;
	int fd; /* the decider's thread's end: one byte when done */
};

static void job_release(struct cf_ask_job *job) {
	if (atomic_fetch_sub(&job->refs, 1) == 1)
		free(job);
}

static void *decide_thread(void *arg) {
	struct cf_ask_job *job = arg;
	job->reason[0] = '\0';
	job->allow = job->ask_host(job->data, job->host, job->port, job->reason,
	                           sizeof job->reason);
	job->reason[sizeof job->reason - 1] = '\0';
	atomic_store(&job->done, true);
	(void)send(job->fd, "!", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(job->fd);
	job_release(job);
	return NULL;
}

static void send_answer(confine_process *p, long id, bool allow, const char *why) {
	char reason[256], line[LAUNCHER_RECORD_MAX];
	int len;
	snprintf(reason, sizeof reason, "%s", why);
	/* one line: the first of what the decider said, control bytes out */
	reason[strcspn(reason, "\r\n")] = '\0';
	for (char *c = reason; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	if (p->ask_fd < 0)
		return;
	len = snprintf(line, sizeof line, LAUNCHER_ASK_ANSWER " %ld %s %s\n", id,
	               allow ? "allow" : "deny", reason);
	if (len > 0 && (size_t)len < sizeof line)
		(void)send(p->ask_fd, line, (size_t)len, MSG_NOSIGNAL);
}

/* Hands q to a thread of its own, or answers it at once. */
static void ask(confine_process *p, const struct launcher_question *q) {
	struct cf_ask_job *job;
	struct cf_ask_open *open;
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t thread;
	int fds[2], r;
	size_t n = q->host_length < 255 ? q->host_length : 255;

	if (!p->ask_host) {
		send_answer(p, q->id, false, "this run has no decider");
		return;
	}
	if (p->n_ask_open >= CF_ASK_OPEN_MAX) {
		send_answer(p, q->id, false, "the decider has too many open questions");
		return;
	}
	job = calloc(1, sizeof *job);
	if (!job || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0) {
		free(job);
		send_answer(p, q->id, false, "the decider cannot be asked: out of resources");
		return;
	}
	job->ask_host = p->ask_host;
	job->data = p->ask_host_data;
	memcpy(job->host, q->host, n);
	job->host[n] = '\0';
	job->port = q->port;
	atomic_init(&job->done, false);
	atomic_init(&job->refs, 2);
	job->fd = fds[1];
	/* The decider's thread takes no signal: they stay the caller's. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_attr_init(&attr);
	if (r == 0) {
		(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		r = pthread_create(&thread, &attr, decide_thread, job);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		close(fds[0]);
		close(fds[1]);
		free(job);
		send_answer(p, q->id, false, "the decider cannot be asked: no thread");
		return;
	}
	open = &p->ask_open[p->n_ask_open++];
	open->job = job;
	open->fd = fds[0];
	open->id = q->id;
	open->until_ms = cf_now_ms() + CONFINE_ASK_HOST_SECONDS * 1000LL;
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
				ask(p, &q);
			}
			memmove(p->ask_pending, p->ask_pending + len, p->n_ask_pending - len);
			p->n_ask_pending -= len;
		}
		if (p->n_ask_pending == sizeof p->ask_pending)
			p->n_ask_pending = 0; /* longer than any question: dropped */
	}
}

/* Why an open question is not waited for any more, or NULL. */
static const char *cut(const confine_process *p, const struct cf_ask_open *open, long long now) {
	if (p->state != CF_STATE_RUNNING || p->leader_ended)
		return "the decider was not waited for: the run has ended";
	if (p->timed_out)
		return "the decider was not waited for: the run's timeout came first";
	if (p->ask_ending)
		return "the decider was not waited for: the run is ending (a signal ended it)";
	if (now >= open->until_ms)
		return "the decider did not answer within " STR(CONFINE_ASK_HOST_SECONDS) " s";
	return NULL;
}

void cf_ask_settle(confine_process *p, bool all) {
	long long now = cf_now_ms();
	size_t i = 0;
	while (i < p->n_ask_open) {
		struct cf_ask_open *open = &p->ask_open[i];
		const char *why = NULL;
		if (atomic_load(&open->job->done))
			send_answer(p, open->id, open->job->allow, open->job->reason);
		else if ((why = all ? "the decider was not waited for: the run has ended"
		                    : cut(p, open, now)) != NULL)
			send_answer(p, open->id, false, why);
		else {
			i++;
			continue;
		}
		close(open->fd);
		job_release(open->job);
		*open = p->ask_open[--p->n_ask_open];
	}
}

int cf_ask_poll_fds(const confine_process *p, struct pollfd *pfds, long long *until) {
	int n = 0;
	for (size_t i = 0; i < p->n_ask_open; i++) {
		pfds[n++] = (struct pollfd){ .fd = p->ask_open[i].fd, .events = POLLIN };
		if (*until < 0 || p->ask_open[i].until_ms < *until)
			*until = p->ask_open[i].until_ms;
	}
	return n;
}
