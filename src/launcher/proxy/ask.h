/*
 * The decider for names on neither list (doc/SPEC.md 15, "Ask"). The
 * proxy asks whoever started the launcher over the ask socket
 * (`--ask-fd N`, launcher-protocol.h's `ask` and `answer` lines) and holds
 * the request, at most PROXY_ASK_SECONDS; each answer is kept for the run
 * (decide.h's answers), and each decision goes once on the status channel
 * (`decision` records).
 */
#ifndef CONFINE_LAUNCHER_PROXY_ASK_H
#define CONFINE_LAUNCHER_PROXY_ASK_H

#include <stdbool.h>

#include "proxy-internal.h"

/* Takes fd (non-blocking from here) as the ask socket. */
void proxy_ask_init(int fd);
/* The answers kept so far. */
const struct proxy_answers *proxy_ask_answers(void);
/* Holds c (ST_ASK) until the decider answers for its host and port; one
 * question per host and port however many requests wait on it. */
void proxy_ask(struct conn *c);
/* The ask socket is readable: takes the answers, lets the waiting go on. */
void proxy_ask_readable(void);
/* c waited PROXY_ASK_SECONDS: refused (clause network.ask). */
void proxy_ask_expired(struct conn *c);
/* One `decision` record per host and port for the run. */
void proxy_record_decision(const char *host, unsigned port, bool allow, const char *by);
/* The allow of c's name (c->allowed_by), recorded once and cleared; nothing
 * when none is pending. */
void proxy_record_allowed(struct conn *c);

#endif
